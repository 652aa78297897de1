/* races.md #10: an output page popped right after noc_async_write. Run with
 *   bhemu run --board grid:2x1 --grid --cores brisc,ncrisc 10_write_source_reused.elf
 * On tile 0, NCRISC produces pages into CB 0 and BRISC writes each to tile 1 and pops it. The
 * write reads its source only when it leaves the initiator, so a page popped before that may be
 * refilled by the producer first and the next page's bytes go out instead: caught by the
 * noc-inflight check at the producer's store into the page (status 8), or by tile 1, which checks
 * every page it received (GRID_ERR_DATA). Fixed (-DRACE_FIXED): noc_async_writes_flushed()
 * before cb_pop_front.
 *
 * With -DRACE_SEND_UNWAITED, races.md #9 on the writer kernel's side instead: BRISC sends each
 * page (and waits until the write has left) before cb_wait_front, and the producer is the slow
 * side (each word takes some arithmetic), so the slot's old bytes go out. cb-ownership (opt-in)
 * judges the write's source at its CMD_CTRL store, or at the producer's first push when nothing
 * was written to the CB yet, against BRISC; without it, noc-inflight sees the producer's store
 * into the slot still being sent (against NCRISC), or tile 1 finds the old bytes. Fixed:
 * cb_wait_front first. */
#include "cb.h"
#include "grid_test.h"

#define PAGES 64
#define PAGE_WORDS 16
#define PAGE_BYTES (PAGE_WORDS * 4u)
#define CB_PAGES 2
#define CB 0
#define DONE_SEM 2                      /* GRID_SEM index on tile 1: the pages are there */
#define SALT 0x1010u

static const char prog[] = "10_write_source_reused";

static uint8_t fifo[CB_PAGES * PAGE_BYTES] __attribute__((aligned(16)));
static volatile uint32_t cb_config[4] __attribute__((aligned(16))) = {
	(uint32_t)(uintptr_t)fifo, CB_PAGES * PAGE_BYTES, CB_PAGES, PAGE_BYTES,
};

void multicore_init(void)
{
	cb_counters_reset(1u << CB);
}

/* grid_word(p, SALT, i), slowly with RACE_SEND_UNWAITED (the producer is then the slow side). */
static uint32_t page_word(uint32_t p, uint32_t i)
{
#ifdef RACE_SEND_UNWAITED
	volatile uint32_t x = p + i;
	for (uint32_t k = 0; k < 200; k++)
		x = x * 1664525u + 1013904223u;
#endif
	return grid_word(p, SALT, i);
}

/* Tile 0 NCRISC: page p holds grid_word(p, SALT, i). */
static int produce(void)
{
	cb_interface_setup(cb_config, 1u << CB);
	for (uint32_t p = 0; p < PAGES; p++) {
		cb_reserve_back(CB, 1);
		volatile uint32_t *w = (volatile uint32_t *)(uintptr_t)get_write_ptr(CB);
		for (uint32_t i = 0; i < PAGE_WORDS; i++)
			w[i] = page_word(p, i);
		cb_push_back(CB, 1);
	}
	return GRID_OK;
}

/* Tile 0 BRISC: each page to tile 1's data area, then tell tile 1. */
static int write_out(void)
{
	cb_interface_setup(cb_config, 1u << CB);
	for (uint32_t p = 0; p < PAGES; p++) {
#if defined(RACE_SEND_UNWAITED) && !defined(RACE_FIXED)
		noc_async_write(get_read_ptr(CB), grid_tile_addr(1, GRID_DATA_BASE + p * PAGE_BYTES), PAGE_BYTES);
		noc_async_writes_flushed();
		cb_wait_front(CB, 1);
#else
		cb_wait_front(CB, 1);
		noc_async_write(get_read_ptr(CB), grid_tile_addr(1, GRID_DATA_BASE + p * PAGE_BYTES), PAGE_BYTES);
#if defined(RACE_FIXED) || defined(RACE_SEND_UNWAITED)
		noc_async_writes_flushed();
#endif
#endif
		cb_pop_front(CB, 1);
	}
	noc_async_write_barrier();
	noc_semaphore_inc(grid_tile_addr(1, GRID_SEM_ADDR(DONE_SEM)), 1);
	noc_async_atomic_barrier();
	return GRID_OK;
}

/* Tile 1 BRISC: every page as produced. */
static int check_in(const struct grid_self *self)
{
	noc_semaphore_wait(GRID_SEM(DONE_SEM), 1);
	for (uint32_t p = 0; p < PAGES; p++) {
		const volatile uint32_t *w = (const volatile uint32_t *)(uintptr_t)(GRID_DATA_BASE + p * PAGE_BYTES);
		for (uint32_t i = 0; i < PAGE_WORDS; i++)
			if (w[i] != grid_word(p, SALT, i)) {
				bare_printf("%s: tile %u: page %u word %u is 0x%08x, expected 0x%08x\n", prog, self->index, p,
					    i, w[i], grid_word(p, SALT, i));
				return GRID_ERR_DATA;
			}
	}
	return GRID_OK;
}

/* Tile 0: NCRISC produces, BRISC writes out; tile 1: BRISC checks. */
static int run(uint32_t proc, const struct grid_self *self)
{
	if (self->index == 0)
		return proc == NOC_PROC_BRISC ? write_out() : produce();
	return self->index == 1 && proc == NOC_PROC_BRISC ? check_in(self) : GRID_OK;
}

int main_brisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_BRISC, &self, prog, run);
}

int main_ncrisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_NCRISC, &self, prog, run);
}
