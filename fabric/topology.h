/* The chip: which endpoint sits at which NoC coordinate (noc.md sections 1, 2, 11).
 *
 * bhemu works in translated ("virtual") coordinates on both NoCs, as tt-metal firmware, kernels,
 * bank tables and hosts do (NIU_CFG_0 bit 14 set). A Tensix tile is also known by its logical
 * (column, row) position in the worker grid and by its index in the device's tile array
 * (row-major over the logical grid). Harvested Tensix columns and DRAM banks are simply absent:
 * enabled columns come first in translated space, as on silicon. */
#ifndef BH_FABRIC_TOPOLOGY_H
#define BH_FABRIC_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BH_NOC_GRID 64            /* coordinates are 6-bit */
#define BH_DRAM_BANKS_MAX 8
#define BH_DRAM_BANK_SIZE (4ull << 30)
#define BH_DRAM_BANK_USABLE 0xFF000000ull
#define BH_PCIE_X 19              /* translated PCIe endpoint (noc.md 11) */
#define BH_PCIE_Y 24
#define BH_NOC_PCIE_BIT (1ull << 60)
#define BH_ARC_X 8                /* the ARC tile (not translated; fabric/arc.h) */
#define BH_ARC_Y 0
/* Ethernet tiles (tt-umd blackhole_implementation.hpp, erisc-cores-and-ethernet-launch.md):
 * fourteen channels in NoC0 row 1; enabled channel k (in channel order, harvested ones skipped)
 * answers at translated (20 + k, 25), as enabled Tensix columns come first. Each has 512 KiB of
 * L1 (the top 64 KiB base-firmware results); their ERISC cores are not modelled. */
#define BH_ETH_CHANNELS 14
#define BH_ETH_X0 20
#define BH_ETH_Y 25
#define BH_ETH_L1_SIZE 0x80000u

/* Public in include/bhemu/bhemu.h as enum bh_board: BH_BOARD_GRID (a small test grid: the
 * first cols x rows positions of the P150 grid, all 8 DRAM banks, no Ethernet), BH_BOARD_P150
 * (14 Tensix columns 1-7, 10-16 x rows 2-11, 8 DRAM banks, Ethernet channels 5 and 8 harvested
 * as tt-umd's P150 descriptors have them), BH_BOARD_P100 (12 columns 1-7, 10-14, 7 banks, every
 * Ethernet channel harvested: tt-umd expects 14 on a P100). */
#include "bhemu/bhemu.h"

enum bh_ep_kind {
	BH_EP_NONE = 0,
	BH_EP_TENSIX,
	BH_EP_DRAM,
	BH_EP_PCIE,
	BH_EP_ETH,
};

struct bh_endpoint {
	uint8_t kind;             /* enum bh_ep_kind */
	uint8_t port;             /* DRAM: which of the bank's three ports */
	uint16_t index;           /* Tensix: tile index; DRAM: bank; Ethernet: enabled channel k (logical) */
};

struct bh_topology {
	enum bh_board board;
	unsigned cols, rows;                  /* logical worker grid (after harvesting) */
	unsigned ntiles;                      /* cols * rows; fewer for a GRID with a partial last row */
	uint8_t col_x[16];                    /* logical column -> translated x */
	uint8_t row_y[16];                    /* logical row -> translated y */
	unsigned ndram;                       /* enabled DRAM banks (logical ids 0..ndram-1) */
	uint16_t dram_xy[2][BH_DRAM_BANKS_MAX];  /* per NoC, per bank: (y << 6) | x, the port firmware uses */
	/* Fast-dispatch cores: prefetch (x, y[0]), dispatch (x, y[1]); dispatch_x = 0 when the grid
	 * has fewer than two rows (x = 0 is never a Tensix column in translated space). */
	uint8_t dispatch_x, dispatch_y[2];
	unsigned neth;                        /* enabled Ethernet channels */
	uint16_t eth_enabled;                 /* bit c: channel c present (ARC's ENABLED_ETH) */
	uint8_t eth_chan[BH_ETH_CHANNELS];    /* logical k -> channel */
	struct bh_endpoint map[BH_NOC_GRID][BH_NOC_GRID];   /* [y][x], translated coordinates */
};

struct bh_topology_config {
	enum bh_board board;
	unsigned cols, rows;                  /* BH_BOARD_GRID only: 1..14 x 1..10 */
	unsigned ntiles;                      /* BH_BOARD_GRID only: 0 = cols * rows, else fill row-major */
	uint32_t harvest_cols;                /* bit k: logical Tensix column k of the board disabled */
	/* bit b: DRAM bank b disabled. Enabled banks take the first translated DRAM positions (as
	 * harvested Tensix columns do), so only the count matters. P100: 0 means its one harvested
	 * bank (bank 7); a non-zero mask replaces that default. */
	uint8_t harvest_dram;
};

/* NoC0 coordinates of Ethernet channel c (c < BH_ETH_CHANNELS). */
void bh_topology_eth_noc0(unsigned c, unsigned *x, unsigned *y);

/* Build the topology. Returns 0, or -1 with a message in err (bad grid, everything harvested). */
int bh_topology_init(struct bh_topology *t, const struct bh_topology_config *cfg, char *err, size_t errlen);
/* Endpoint at translated (x, y); kind BH_EP_NONE if nothing is there. */
static inline struct bh_endpoint bh_topology_at(const struct bh_topology *t, unsigned x, unsigned y)
{
	struct bh_endpoint none = { 0, 0, 0 };
	return x < BH_NOC_GRID && y < BH_NOC_GRID ? t->map[y][x] : none;
}
/* Translated coordinates of tile index k (k < t->ntiles). */
void bh_topology_tile_xy(const struct bh_topology *t, unsigned k, unsigned *x, unsigned *y);
/* Translated coordinates of DRAM bank b, port p (b < t->ndram, p < 3). */
void bh_topology_dram_port_xy(unsigned bank, unsigned port, unsigned *x, unsigned *y);
/* bh_board_name() / bh_board_parse() are public (bhemu.h). */

#endif
