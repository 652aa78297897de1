/* races.md #27, NoC1 multicast in NoC0 corner order. Tile 0's NCRISC issues on NoC1 (the
 * default split) and sends a block to the other tiles of its row with a multicast address built
 * the NoC0 way, start corner (smallest x, y) first. NoC1 takes the corners exchanged (start >=
 * end in translated coordinates), so this rectangle wraps around the grid and reaches the wrong
 * tiles: noc-mcast-order names the CMD_CTRL store. The fixed twin builds the address with
 * get_noc_multicast_addr, which exchanges the corners on NoC1. Every receiver checks the block
 * after the grid barrier. */
#include "grid_test.h"

#define WORDS 16
#define AREA GRID_DATA_BASE
#define SALT 0x2727u
#define SENT GRID_SEM(5)   /* tile 0: its NCRISC's multicast is acknowledged */

static const char prog[] = "race27";
static uint32_t block[WORDS] __attribute__((aligned(16)));

/* The tiles of row 0 after tile 0: logical columns 1 .. cols-1. */
static uint32_t row0_tiles(void)
{
	uint32_t y0 = bare_grid()->tile_xy[0] >> 6, n = 0;
	while (n < bare_grid()->num_tiles && (uint32_t)(bare_grid()->tile_xy[n] >> 6) == y0)
		n++;
	return n;
}

#ifndef RACE_FIXED
/* The address as a NoC0 kernel builds it: end in bits 36/42, start in 48/54. */
static uint64_t mcast_addr_noc0_order(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint32_t addr)
{
	return (uint64_t)x1 << 36 | (uint64_t)y1 << 42 | (uint64_t)x0 << 48 | (uint64_t)y0 << 54 | addr;
}
#endif

int main_brisc(void)
{
	struct grid_self self;
	int rc = grid_start(NOC_PROC_BRISC, &self, prog);
	if (rc != GRID_OK)
		return rc;
	if (self.index == 0)
		noc_semaphore_wait(SENT, 1);   /* tile 0's NCRISC has sent and flushed */
	grid_barrier(&self, 1);
	if (self.index == 0 || self.index >= row0_tiles())
		return GRID_OK;
	return grid_block_check((const volatile uint32_t *)(uintptr_t)AREA, WORDS, 0, SALT, prog, &self);
}

int main_ncrisc(void)
{
	noc_init_ncrisc();
	uint32_t cols = row0_tiles();
	if (my_x() != (bare_grid()->tile_xy[0] & NOC_COORD_MASK) || my_y() != (uint32_t)(bare_grid()->tile_xy[0] >> 6))
		return GRID_OK;
	uint32_t first = bare_grid()->tile_xy[1], last = bare_grid()->tile_xy[cols - 1];
	grid_block_fill(block, WORDS, 0, SALT);
#ifdef RACE_FIXED
	uint64_t dst = get_noc_multicast_addr(first & NOC_COORD_MASK, first >> 6, last & NOC_COORD_MASK, last >> 6, AREA);
#else
	uint64_t dst = mcast_addr_noc0_order(first & NOC_COORD_MASK, first >> 6, last & NOC_COORD_MASK, last >> 6, AREA);
#endif
	noc_async_write_multicast((uint32_t)(uintptr_t)block, dst, WORDS * 4, cols - 1);
	noc_async_write_barrier();
	*SENT = 1;
	return GRID_OK;
}
