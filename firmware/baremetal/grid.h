/* What `bhemu run` tells a program about the chip it runs on: a block in low L1 of every tile it
 * loads, and the bank tables next to it. Shared by the CLI (host/cli.c, which writes both) and
 * guest programs (which read them), so it is plain C with fixed-width types only.
 *
 * Low L1 [0, 0x10000) holds no program: bare.ld and bare_multi.ld start at 0x10000. Besides the
 * fixed words of every build (memory-map.md section 9: the NoC atomic return value at 4, the
 * inline-write staging words at 0x20), bhemu programs find there:
 *   BARE_GRID_INFO_ADDR    struct bare_grid_info (below)
 *   BARE_BANK_TABLES_ADDR  the bank tables in the layout of noc.md section 9, for
 *                          num_dram_banks (D) and num_l1_banks (L): u16 DRAM xy [2][D],
 *                          u16 L1 xy [2][L], i32 DRAM offsets [D], i32 L1 offsets [L]
 * The CLI writes both into every tile before it loads the ELF (an ELF segment there wins) and
 * before any core starts. A tile's own position is not here: it reads NOC_ID_LOGICAL (noc.h). */
#ifndef BHEMU_GRID_H
#define BHEMU_GRID_H

#include <stdint.h>

#define BARE_GRID_INFO_ADDR	0x1000u
#define BARE_BANK_TABLES_ADDR	0x2000u
#define BARE_BANK_TABLES_END	0x4000u		/* room for 8 DRAM and 1020 L1 banks */

#define BARE_GRID_MAGIC		0x44495247u	/* "GRID" */
#define BARE_GRID_MAX_TILES	140u		/* a P150 */

/* Byte size of the bank tables for D DRAM and L L1 banks (noc.md 9). */
#define BARE_BANK_TABLES_SIZE(d, l)	(8u * (d) + 8u * (l))

struct bare_grid_info {
	uint32_t magic;			/* BARE_GRID_MAGIC once the CLI has written the block */
	uint32_t num_tiles;		/* tiles whose cores the run starts (1 without --grid) */
	uint32_t num_dram_banks;	/* D of the bank tables */
	uint32_t num_l1_banks;		/* L of the bank tables */
	uint32_t bank_tables;		/* BARE_BANK_TABLES_ADDR */
	uint32_t pcie_xy;		/* (y << 6) | x of the PCIe endpoint (translated) */
	uint32_t host_mem_lo;		/* NoC-local address of host memory, without bit 60 */
	uint32_t host_mem_hi;
	uint32_t host_mem_size;		/* bytes reachable there (at most 4 GiB - 1 shown) */
	uint32_t grid_cols, grid_rows;	/* the worker grid of the board */
	uint32_t reserved[5];
	/* (y << 6) | x of every tile of the run, in tile order (tile 0 first). */
	uint16_t tile_xy[BARE_GRID_MAX_TILES];
};
_Static_assert(sizeof(struct bare_grid_info) <= BARE_BANK_TABLES_ADDR - BARE_GRID_INFO_ADDR,
	       "grid info overlaps the bank tables");

#ifdef __riscv
/* The block as the guest sees it. */
static inline const volatile struct bare_grid_info *bare_grid(void)
{
	return (const volatile struct bare_grid_info *)(uintptr_t)BARE_GRID_INFO_ADDR;
}

/* Index of the tile at table position xy ((y << 6) | x) in the run, or -1 if it is not one of
 * the run's tiles (or the CLI wrote no block). */
static inline int bare_grid_tile_index(uint32_t xy)
{
	const volatile struct bare_grid_info *g = bare_grid();
	if (g->magic != BARE_GRID_MAGIC)
		return -1;
	for (uint32_t k = 0; k < g->num_tiles && k < BARE_GRID_MAX_TILES; k++)
		if (g->tile_xy[k] == xy)
			return (int)k;
	return -1;
}
#endif

#endif
