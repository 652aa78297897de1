/* Board grids in translated coordinates (noc.md section 2): where each Tensix tile, DRAM port and
 * the PCIe endpoint sits. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fabric/topology.h"

#define P150_COLS 14
#define P150_ROWS 10
#define DRAM_PORTS 3
#define DRAM_X0 17                /* banks 0-3 */
#define DRAM_X1 18                /* banks 4-7 */
#define DRAM_Y0 12                /* y = 12 + 3 * (bank mod 4) + port */

/* Translated x of the P150 Tensix columns (identity with NoC0 physical on an unharvested chip);
 * P100 and test grids use a prefix of them. Rows are y = 2..11. */
static const uint8_t p150_col_x[P150_COLS] = { 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16 };
#define TENSIX_Y0 2

/* Which of a bank's three ports firmware addresses, per NoC (BANK_PORT in noc.md 2). */
static const uint8_t bank_port[BH_DRAM_BANKS_MAX][2] = {
	{ 2, 1 }, { 0, 1 }, { 0, 1 }, { 0, 1 }, { 2, 1 }, { 2, 1 }, { 2, 1 }, { 2, 1 },
};

/* NoC0 x of Ethernet channels 0-13, all in row 1 (tt-umd's ETH_CORES_NOC0 order). */
static const uint8_t eth_noc0_x[BH_ETH_CHANNELS] = { 1, 16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10 };

static const struct {
	const char *name;
	unsigned cols, rows, dram_banks;
	uint16_t eth_enabled;
} boards[] = {
	[BH_BOARD_GRID] = { "grid", 0, 0, 8, 0 },
	[BH_BOARD_P150] = { "p150", 14, 10, 8, 0x3FFF & ~(1u << 5 | 1u << 8) },
	[BH_BOARD_P100] = { "p100", 12, 10, 7, 0 },
};
#define NBOARDS (sizeof boards / sizeof boards[0])

const char *bh_board_name(enum bh_board b)
{
	return (unsigned)b < NBOARDS ? boards[b].name : NULL;
}

int bh_board_parse(const char *name, enum bh_board *out)
{
	for (unsigned b = 0; b < NBOARDS; b++)
		if (strcmp(name, boards[b].name) == 0) {
			*out = (enum bh_board)b;
			return 0;
		}
	return -1;
}

void bh_topology_dram_port_xy(unsigned bank, unsigned port, unsigned *x, unsigned *y)
{
	*x = bank < 4 ? DRAM_X0 : DRAM_X1;
	*y = DRAM_Y0 + DRAM_PORTS * (bank % 4) + port;
}

void bh_topology_eth_noc0(unsigned c, unsigned *x, unsigned *y)
{
	*x = eth_noc0_x[c];
	*y = 1;
}

void bh_topology_tile_xy(const struct bh_topology *t, unsigned k, unsigned *x, unsigned *y)
{
	*x = t->col_x[k % t->cols];
	*y = t->row_y[k / t->cols];
}

__attribute__((cold, format(printf, 3, 4)))
static int topo_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Columns and DRAM banks before harvesting, and how many tiles fill the grid. */
static int topology_board(struct bh_topology *t, const struct bh_topology_config *cfg, unsigned *cols,
			  unsigned *ntiles, unsigned *dram_off, char *err, size_t errlen)
{
	if ((unsigned)cfg->board >= NBOARDS)
		return topo_err(err, errlen, "unknown board %u (expected grid, p150 or p100)", cfg->board);
	t->board = cfg->board;
	*cols = boards[cfg->board].cols;
	t->rows = boards[cfg->board].rows;
	*dram_off = cfg->harvest_dram;
	if (cfg->board == BH_BOARD_P100 && !*dram_off)
		*dram_off = 1u << 7;          /* a P100 has one of its eight banks harvested */
	if (cfg->board != BH_BOARD_GRID) {
		*ntiles = 0;
		return 0;
	}
	if (cfg->cols < 1 || cfg->cols > P150_COLS || cfg->rows < 1 || cfg->rows > P150_ROWS)
		return topo_err(err, errlen, "grid %ux%u: a test grid is 1..14 columns by 1..10 rows", cfg->cols,
				cfg->rows);
	if (cfg->ntiles > cfg->cols * cfg->rows)
		return topo_err(err, errlen, "%u tiles do not fit a grid of %u positions", cfg->ntiles,
				cfg->cols * cfg->rows);
	*cols = cfg->cols;
	t->rows = cfg->rows;
	*ntiles = cfg->ntiles;
	return 0;
}

static void topology_place_tensix(struct bh_topology *t)
{
	for (unsigned c = 0; c < t->cols; c++)
		t->col_x[c] = p150_col_x[c];
	for (unsigned r = 0; r < t->rows; r++)
		t->row_y[r] = (uint8_t)(TENSIX_Y0 + r);
	for (unsigned k = 0; k < t->ntiles; k++) {
		unsigned x, y;
		bh_topology_tile_xy(t, k, &x, &y);
		t->map[y][x] = (struct bh_endpoint){ .kind = BH_EP_TENSIX, .index = (uint16_t)k };
	}
	if (t->rows >= 2) {
		t->dispatch_x = t->col_x[t->cols - 1];
		t->dispatch_y[0] = t->row_y[0];
		t->dispatch_y[1] = t->row_y[1];
	}
}

/* Enabled banks take the first translated DRAM positions, whichever banks were harvested. */
static void topology_place_dram(struct bh_topology *t)
{
	for (unsigned b = 0; b < t->ndram; b++) {
		unsigned x, y;
		for (unsigned p = 0; p < DRAM_PORTS; p++) {
			bh_topology_dram_port_xy(b, p, &x, &y);
			t->map[y][x] = (struct bh_endpoint){ .kind = BH_EP_DRAM, .port = (uint8_t)p, .index = (uint16_t)b };
		}
		for (unsigned noc = 0; noc < 2; noc++) {
			bh_topology_dram_port_xy(b, bank_port[b][noc], &x, &y);
			t->dram_xy[noc][b] = (uint16_t)(y << 6 | x);
		}
	}
}

int bh_topology_init(struct bh_topology *t, const struct bh_topology_config *cfg, char *err, size_t errlen)
{
	unsigned cols = 0, ntiles = 0, dram_off = 0;
	memset(t, 0, sizeof *t);
	if (topology_board(t, cfg, &cols, &ntiles, &dram_off, err, errlen) != 0)
		return -1;
	if (cfg->harvest_cols >> cols)
		return topo_err(err, errlen, "harvest_cols 0x%x names columns beyond the board's %u", cfg->harvest_cols,
				cols);
	t->cols = cols - (unsigned)__builtin_popcount(cfg->harvest_cols);
	if (t->cols == 0)
		return topo_err(err, errlen, "harvest_cols 0x%x disables all %u Tensix columns", cfg->harvest_cols, cols);
	if (ntiles > t->cols * t->rows)
		return topo_err(err, errlen, "%u tiles do not fit %u columns x %u rows left after harvesting", ntiles,
				t->cols, t->rows);
	t->ntiles = ntiles ? ntiles : t->cols * t->rows;
	t->ndram = BH_DRAM_BANKS_MAX - (unsigned)__builtin_popcount(dram_off & 0xFFu);
	if (t->ndram == 0)
		return topo_err(err, errlen, "harvest_dram 0x%x disables all %u DRAM banks", dram_off, BH_DRAM_BANKS_MAX);
	topology_place_tensix(t);
	topology_place_dram(t);
	t->eth_enabled = boards[t->board].eth_enabled;
	for (unsigned c = 0; c < BH_ETH_CHANNELS; c++)
		if (t->eth_enabled >> c & 1) {
			t->map[BH_ETH_Y][BH_ETH_X0 + t->neth] = (struct bh_endpoint){ .kind = BH_EP_ETH,
										.index = (uint16_t)t->neth };
			t->eth_chan[t->neth++] = (uint8_t)c;
		}
	t->map[BH_PCIE_Y][BH_PCIE_X] = (struct bh_endpoint){ .kind = BH_EP_PCIE };
	return 0;
}
