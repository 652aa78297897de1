/* DRAM -> L1 -> DRAM through interleaved buffers (noc.md 9, 10). Run with
 *   bhemu run --grid --cores brisc,ncrisc dram_loopback.elf
 * Two DRAM buffers of loopback_pages_per_tile * N pages of loopback_page_size bytes (default
 * 20000: each page is two NoC requests, split at 16 KiB) are interleaved over all DRAM banks,
 * with the bank tables the CLI wrote into L1:
 *   1. every tile generates the input pages p with p mod N = its index and writes them;
 *   2. (grid barrier) every tile reads the input pages another tile wrote (p mod N = index + 1),
 *      transforms every word and writes the result to the same page of the output buffer;
 *   3. (grid barrier) every tile reads the output pages of a third tile (p mod N = index + 2)
 *      and checks every word.
 * BRISC moves the pages with p div N even on NoC0, NCRISC the others on NoC1, so both NoCs' DRAM
 * ports are used. A host that sets loopback_host_io to 1 before the cores start (the unit test
 * tests/unit/test_grid_host.c) writes the input pages itself with bh_interleaved_write and checks
 * the output with bh_interleaved_read: steps 1 and 3 are skipped. */
#include "grid_test.h"

#define LOOP_MAX_PAGE 20032u     /* the L1 page buffer of each core */
#ifndef LOOP_PAGES_PER_TILE
#define LOOP_PAGES_PER_TILE 2
#endif

/* Parameters a host may patch (bh_core_symbol_lookup + bh_l1_write) before the cores start. */
volatile uint32_t loopback_pages_per_tile = LOOP_PAGES_PER_TILE;
volatile uint32_t loopback_page_size = 20000;
volatile uint32_t loopback_in_base = 0x100000;
volatile uint32_t loopback_out_base = 0x10000000;
/* In .data, not .bss: BRISC zeroes .bss when it starts, after the host patched the word. */
volatile uint32_t loopback_host_io __attribute__((section(".data"))) = 0;

static const char prog[] = "dram_loopback";

static uint32_t page_buf[2][LOOP_MAX_PAGE / 4] __attribute__((aligned(64)));

/* The pages of step `owner_shift` (0, 1, 2) this core moves. */
#define FOR_MY_PAGES(p, self, proc, owner_shift)                                                       \
	for (uint32_t p = ((self)->index + (owner_shift)) % (self)->ntiles;                           \
	     p < loopback_pages_per_tile * (self)->ntiles; p += (self)->ntiles)                        \
		if ((p / (self)->ntiles) % 2 == (proc))

static int loop_step(uint32_t step, uint32_t proc, const struct grid_self *self)
{
	const struct interleaved_addr_gen in = { loopback_in_base, loopback_page_size, true };
	const struct interleaved_addr_gen out = { loopback_out_base, loopback_page_size, true };
	volatile uint32_t *buf = page_buf[proc];
	uint32_t l1 = (uint32_t)(uintptr_t)buf, words = loopback_page_size / 4;

	FOR_MY_PAGES(p, self, proc, step - 1) {
		switch (step) {
		case 1:
			for (uint32_t i = 0; i < words; i++)
				buf[i] = loop_in_word(p, i);
			noc_async_write_page(p, &in, l1);
			noc_async_writes_flushed();   /* buf is rewritten for the next page */
			break;
		case 2:
			noc_async_read_page(p, &in, l1);
			noc_async_read_barrier();
			for (uint32_t i = 0; i < words; i++)
				buf[i] = loop_transform(buf[i], p);
			noc_async_write_page(p, &out, l1);
			noc_async_writes_flushed();
			break;
		case 3:
			noc_async_read_page(p, &out, l1);
			noc_async_read_barrier();
			for (uint32_t i = 0; i < words; i++) {
				if (buf[i] != loop_out_word(p, i)) {
					bare_printf("%s: tile %u: output page %u word %u: 0x%08x, expected 0x%08x\n", prog,
						    self->index, p, i, buf[i], loop_out_word(p, i));
					return GRID_ERR_DATA;
				}
			}
			break;
		}
	}
	noc_async_write_barrier();
	return GRID_OK;
}

/* BRISC arrives at the grid barrier once NCRISC has finished the step too (GRID_SEM(4) holds
 * NCRISC's last finished step); NCRISC waits for the barrier's go word. */
static void loop_sync(uint32_t proc, uint32_t gen, const struct grid_self *self)
{
	if (proc == NOC_PROC_BRISC) {
		noc_semaphore_wait_min(GRID_SEM(4), gen);
		grid_barrier(self, gen);
	} else {
		noc_fence();   /* release: this step's accesses before the flag */
		*GRID_SEM(4) = gen;
		noc_semaphore_wait_min(GRID_SEM(1), gen);
	}
}

static int loop_run(uint32_t proc, const struct grid_self *self)
{
	int rc = GRID_OK;
	if (loopback_page_size > LOOP_MAX_PAGE || loopback_page_size % 4 || loopback_page_size == 0) {
		bare_printf("%s: page size %u: must be a multiple of 4 up to %u\n", prog, loopback_page_size, LOOP_MAX_PAGE);
		return GRID_ERR_SETUP;
	}
	if (noc_bank_tables_init(BARE_BANK_TABLES_ADDR, bare_grid()->num_dram_banks, bare_grid()->num_l1_banks) != 0) {
		bare_printf("%s: bank tables for %u DRAM and %u L1 banks do not fit\n", prog, bare_grid()->num_dram_banks,
			    bare_grid()->num_l1_banks);
		return GRID_ERR_SETUP;
	}
	if (!loopback_host_io)
		rc = loop_step(1, proc, self);
	loop_sync(proc, 1, self);
	if (rc == GRID_OK)
		rc = loop_step(2, proc, self);
	loop_sync(proc, 2, self);
	if (rc == GRID_OK && !loopback_host_io)
		rc = loop_step(3, proc, self);
	if (rc == GRID_OK)
		rc = grid_counters_check(prog, self);
	return rc;
}

int main_brisc(void)
{
	struct grid_self self;
	int rc = grid_main(NOC_PROC_BRISC, &self, prog, loop_run);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: %u pages of %u bytes over %u DRAM banks, %u tiles%s: ok\n", prog,
			    loopback_pages_per_tile * self.ntiles, loopback_page_size, bare_grid()->num_dram_banks,
			    self.ntiles, loopback_host_io ? " (host input and check)" : "");
	return rc;
}

int main_ncrisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_NCRISC, &self, prog, loop_run);
}
