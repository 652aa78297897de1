/* races.md #19: data of a noc_async_read used before noc_async_read_barrier. Run with
 *   bhemu run --board grid:2x1 --grid --cores brisc,ncrisc --check default,noc-inflight-load \
 *     19_read_before_barrier.elf
 * Tile 1 fills a block and tells tile 0 (noc_semaphore_inc); tile 0 reads the block into its L1
 * and sums it. The read's data lands later than the CMD_CTRL store that issued it, so without
 * the barrier the sum is over bytes not landed yet: caught by noc-inflight-load at the first
 * such load (status 8), or by the sum (GRID_ERR_CHECKSUM). Fixed (-DRACE_FIXED):
 * noc_async_read_barrier() before the loads. */
#include "grid_test.h"

#define WORDS 64
#define BYTES (WORDS * 4u)
#define READY_SEM 2                     /* on tile 0: tile 1's block is ready */
#define SALT 0x1919u

static const char prog[] = "19_read_before_barrier";

static volatile uint32_t local[WORDS] __attribute__((aligned(16)));

static int reader(const struct grid_self *self)
{
	noc_semaphore_wait(GRID_SEM(READY_SEM), 1);
	noc_async_read(grid_tile_addr(1, GRID_DATA_BASE), (uint32_t)(uintptr_t)local, BYTES);
#ifdef RACE_FIXED
	noc_async_read_barrier();
#endif
	uint32_t sum = 0, want = 0;
	for (uint32_t i = 0; i < WORDS; i++) {
		sum += local[i];
		want += grid_word(1, SALT, i);
	}
	noc_async_read_barrier();
	if (sum != want) {
		bare_printf("%s: tile %u: block sums to 0x%08x, expected 0x%08x\n", prog, self->index, sum, want);
		return GRID_ERR_CHECKSUM;
	}
	return GRID_OK;
}

static int source(void)
{
	volatile uint32_t *block = (volatile uint32_t *)(uintptr_t)GRID_DATA_BASE;
	for (uint32_t i = 0; i < WORDS; i++)
		block[i] = grid_word(1, SALT, i);
	noc_semaphore_inc(grid_tile_addr(0, GRID_SEM_ADDR(READY_SEM)), 1);
	noc_async_atomic_barrier();
	return GRID_OK;
}

static int run(uint32_t proc, const struct grid_self *self)
{
	(void)proc;
	return self->index == 0 ? reader(self) : self->index == 1 ? source() : GRID_OK;
}

int main_brisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_BRISC, &self, prog, run);
}

int main_ncrisc(void)
{
	return GRID_OK;
}
