/* All-to-all exchange: every tile sends a checksummed block into its own slot of every other
 * tile's L1, then signals each receiver with noc_semaphore_inc; every tile waits for N - 1
 * signals and checks every slot. Run with
 *   bhemu run --grid --cores brisc,ncrisc all_to_all.elf
 * BRISC sends on NoC0 to the tiles U with T + U even, NCRISC on NoC1 to the others, so both
 * NIUs of every tile issue writes and atomics, and every receiver counts signals from both.
 * A sender signals a receiver only after noc_async_write_barrier() (every block acknowledged),
 * so a receiver that has seen N - 1 signals must see every block. BRISC then checks the slots,
 * the signal count, and (both cores) that the NIU counters match the software counters.
 * Tile 0's BRISC prints the summary line. */
#include "grid_test.h"

#ifndef A2A_BLOCK_WORDS
#define A2A_BLOCK_WORDS 128      /* 512 bytes per slot */
#endif
#define A2A_BLOCK_BYTES (A2A_BLOCK_WORDS * 4u)
#define A2A_SALT 0xA11A11u
#define A2A_SIGNALS GRID_SEM(2)
_Static_assert(GRID_DATA_BASE + BARE_GRID_MAX_TILES * A2A_BLOCK_BYTES <= GRID_SHARED_END,
	       "a slot per tile of a P150 must fit the shared area");

static const char prog[] = "all_to_all";

/* This core's copy of the block it sends (private: each core fills its own). */
static uint32_t send_block[2][A2A_BLOCK_WORDS] __attribute__((aligned(16)));

static uint32_t slot_addr(uint32_t from)
{
	return GRID_DATA_BASE + from * A2A_BLOCK_BYTES;
}

/* Sends this tile's block to every tile this core serves, then signals each of them. */
static int a2a_send(uint32_t proc, const struct grid_self *self)
{
	volatile uint32_t *block = send_block[proc];
	uint32_t src = (uint32_t)(uintptr_t)block;

	grid_block_fill(block, A2A_BLOCK_WORDS, self->index, A2A_SALT);
	for (uint32_t u = 0; u < self->ntiles; u++)
		if (u != self->index && (u + self->index) % 2 == proc)
			noc_async_write(src, grid_tile_addr(u, slot_addr(self->index)), A2A_BLOCK_BYTES);
	noc_async_write_barrier();
	for (uint32_t u = 0; u < self->ntiles; u++)
		if (u != self->index && (u + self->index) % 2 == proc)
			noc_semaphore_inc(grid_tile_addr(u, GRID_SEM_ADDR(2)), 1);
	noc_async_atomic_barrier();
	return grid_counters_check(prog, self);
}

/* Waits for every other tile's signal and checks every slot. */
static int a2a_receive(const struct grid_self *self)
{
	noc_semaphore_wait(A2A_SIGNALS, self->ntiles - 1);
	for (uint32_t u = 0; u < self->ntiles; u++) {
		const volatile uint32_t *slot = (const volatile uint32_t *)(uintptr_t)slot_addr(u);
		if (u == self->index) {
			for (uint32_t i = 0; i < A2A_BLOCK_WORDS; i++) {
				if (slot[i] != 0) {
					bare_printf("%s: tile %u: its own slot was written (word %u = 0x%08x)\n", prog,
						    self->index, i, slot[i]);
					return GRID_ERR_DATA;
				}
			}
			continue;
		}
		int rc = grid_block_check(slot, A2A_BLOCK_WORDS, u, A2A_SALT, prog, self);
		if (rc != GRID_OK)
			return rc;
	}
	uint32_t signals = *A2A_SIGNALS;
	if (signals != self->ntiles - 1) {
		bare_printf("%s: tile %u: %u signals, expected %u\n", prog, self->index, signals, self->ntiles - 1);
		return GRID_ERR_COUNT;
	}
	return GRID_OK;
}

int main_brisc(void)
{
	struct grid_self self;
	int rc = grid_main(NOC_PROC_BRISC, &self, prog, a2a_send);
	if (rc == GRID_OK)
		rc = a2a_receive(&self);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: %u tiles exchanged %u-byte blocks (%u transfers): ok\n", prog, self.ntiles,
			    A2A_BLOCK_BYTES, self.ntiles * (self.ntiles - 1));
	return rc;
}

int main_ncrisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_NCRISC, &self, prog, a2a_send);
}
