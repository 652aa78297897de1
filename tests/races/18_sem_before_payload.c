/* races.md #18: a remote semaphore bumped before the multicast payload arrived. Run with
 *   bhemu run --board grid:2x1 --grid --cores brisc,ncrisc --check default,noc-inflight-load \
 *     --noc-latency 0:2000000 18_sem_before_payload.elf
 * Round by round, tile 0 multicasts a block to the other tiles (static VC 4), then increments
 * each receiver's semaphore with an atomic (VC 1); receivers check the block and answer. Nothing
 * orders the two VCs, so a receiver may see its semaphore move while the payload is still on its
 * way: caught by noc-inflight-load at the receiver's first load of the payload (status 8), or by
 * its check of the block (GRID_ERR_DATA or GRID_ERR_CHECKSUM). Fixed
 * (-DRACE_FIXED): noc_async_write_barrier() between the payload and the semaphores. */
#include "grid_test.h"

#define WORDS 64
#define BYTES (WORDS * 4u)
#define ROUNDS 8
#define ARRIVED_SEM 2                   /* on each receiver: rounds sent */
#define CHECKED_SEM 3                   /* on tile 0: receivers that checked, over all rounds */
#define SALT 0x1818u

static const char prog[] = "18_sem_before_payload";

static uint32_t block[WORDS] __attribute__((aligned(16)));

static int sender(const struct grid_self *self)
{
	uint32_t first = bare_grid()->tile_xy[1], last = bare_grid()->tile_xy[self->ntiles - 1];
	for (uint32_t r = 0; r < ROUNDS; r++) {
		grid_block_fill(block, WORDS, r, SALT);
		noc_async_write_multicast((uint32_t)(uintptr_t)block,
					  get_noc_multicast_addr(first & NOC_COORD_MASK, first >> 6, last & NOC_COORD_MASK,
								 last >> 6, GRID_DATA_BASE),
					  BYTES, self->ntiles - 1);
#ifdef RACE_FIXED
		noc_async_write_barrier();
#endif
		for (uint32_t k = 1; k < self->ntiles; k++)
			noc_semaphore_inc(grid_tile_addr(k, GRID_SEM_ADDR(ARRIVED_SEM)), 1);
		noc_async_atomic_barrier();
		noc_async_write_barrier();
		/* Every receiver is done with this round's block before the next one is sent. */
		noc_semaphore_wait(GRID_SEM(CHECKED_SEM), (r + 1) * (self->ntiles - 1));
	}
	return GRID_OK;
}

static int receiver(const struct grid_self *self)
{
	int rc = GRID_OK;
	for (uint32_t r = 0; r < ROUNDS; r++) {
		noc_semaphore_wait(GRID_SEM(ARRIVED_SEM), r + 1);
		int got = grid_block_check((const volatile uint32_t *)(uintptr_t)GRID_DATA_BASE, WORDS, r, SALT, prog, self);
		if (rc == GRID_OK)
			rc = got;   /* the first bad round is the status; the protocol goes on to its end */
		noc_semaphore_inc(grid_tile_addr(0, GRID_SEM_ADDR(CHECKED_SEM)), 1);
		noc_async_atomic_barrier();
	}
	return rc;
}

static int run(uint32_t proc, const struct grid_self *self)
{
	(void)proc;
	return self->index == 0 ? sender(self) : receiver(self);
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
