/* Board topology and chip memories (noc.md sections 2, 9, 10, 11): Tensix, DRAM, PCIe and Ethernet
 * coordinates of P150, P100 and test grids in translated space, harvesting, the DRAM and host
 * memory API, interleaved buffers and their exact placement, the bank-table blob, lazily backed
 * memory, and a full P150 device with 700 core threads. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/bhemu.h"
#include "fabric/chip.h"
#include "fabric/topology.h"
#include "host/device.h"
#include "testlib.h"

static const unsigned p150_x[14] = { 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16 };

/* noc.md 2, P100A: DRAM bank -> (x, y) on NoC0 and NoC1. */
static const unsigned p100a_dram[7][2][2] = {
	{ { 17, 14 }, { 17, 13 } }, { { 17, 15 }, { 17, 16 } }, { { 17, 18 }, { 17, 19 } },
	{ { 17, 21 }, { 17, 22 } }, { { 18, 14 }, { 18, 13 } }, { { 18, 17 }, { 18, 16 } },
	{ { 18, 20 }, { 18, 19 } },
};

static struct bh_topology *topo_new(const struct bh_topology_config *cfg)
{
	struct bh_topology *t = malloc(sizeof *t);
	char err[160] = "";
	cr_assert_not_null(t);
	cr_assert_eq(bh_topology_init(t, cfg, err, sizeof err), 0, "%s", err);
	return t;
}

static void topo_rejects(const struct bh_topology_config *cfg, const char *why)
{
	struct bh_topology t;
	char err[160] = "";
	cr_expect_eq(bh_topology_init(&t, cfg, err, sizeof err), -1, "accepted: %s", why);
	cr_expect(strstr(err, why) != NULL, "message \"%s\" lacks \"%s\"", err, why);
}

/* Every tile k sits at (col_x[k mod cols], 2 + k div cols) and the map finds it there. */
static void expect_tensix_grid(const struct bh_topology *t, unsigned cols, unsigned rows)
{
	cr_assert_eq(t->cols, cols);
	cr_assert_eq(t->rows, rows);
	cr_assert_eq(t->ntiles, cols * rows);
	unsigned found = 0;
	for (unsigned k = 0; k < t->ntiles; k++) {
		unsigned x, y;
		bh_topology_tile_xy(t, k, &x, &y);
		cr_expect_eq(x, p150_x[k % cols], "tile %u x", k);
		cr_expect_eq(y, 2 + k / cols, "tile %u y", k);
		struct bh_endpoint ep = bh_topology_at(t, x, y);
		cr_expect_eq(ep.kind, BH_EP_TENSIX);
		cr_expect_eq(ep.index, k);
	}
	for (unsigned y = 0; y < BH_NOC_GRID; y++)
		for (unsigned x = 0; x < BH_NOC_GRID; x++)
			found += bh_topology_at(t, x, y).kind == BH_EP_TENSIX;
	cr_expect_eq(found, cols * rows, "Tensix endpoints in the map");
}

static void expect_dram_xy_p100a(const struct bh_topology *t, unsigned nbanks)
{
	for (unsigned b = 0; b < nbanks; b++)
		for (unsigned noc = 0; noc < 2; noc++) {
			unsigned xy = t->dram_xy[noc][b];
			cr_expect_eq(xy & 63, p100a_dram[b][noc][0], "bank %u NoC%u x", b, noc);
			cr_expect_eq(xy >> 6, p100a_dram[b][noc][1], "bank %u NoC%u y", b, noc);
		}
}

static unsigned count_kind(const struct bh_topology *t, enum bh_ep_kind kind)
{
	unsigned n = 0;
	for (unsigned y = 0; y < BH_NOC_GRID; y++)
		for (unsigned x = 0; x < BH_NOC_GRID; x++)
			n += bh_topology_at(t, x, y).kind == kind;
	return n;
}

/* ------------------------------------------------------------------------------ board grids */

Test(topology, p150_has_140_tensix_at_columns_1_7_10_16_rows_2_11_and_8_dram_banks)
{
	struct bh_topology *t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P150 });
	expect_tensix_grid(t, 14, 10);
	cr_expect_eq(t->ndram, 8);
	cr_expect_eq(count_kind(t, BH_EP_DRAM), 24, "8 banks x 3 ports");
	cr_expect_eq(t->dispatch_x, 16);
	cr_expect_eq(t->dispatch_y[0], 2);
	cr_expect_eq(t->dispatch_y[1], 3);
	free(t);
}

Test(topology, p100_has_120_tensix_at_columns_1_7_10_14_and_7_dram_banks_of_the_p100a_table)
{
	struct bh_topology *t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P100 });
	expect_tensix_grid(t, 12, 10);
	cr_expect_eq(bh_topology_at(t, 15, 2).kind, BH_EP_NONE);
	cr_expect_eq(t->ndram, 7);
	cr_expect_eq(count_kind(t, BH_EP_DRAM), 21);
	expect_dram_xy_p100a(t, 7);
	cr_expect_eq(t->dispatch_x, 14);
	cr_expect_eq(t->dispatch_y[0], 2);
	cr_expect_eq(t->dispatch_y[1], 3);
	free(t);
}

Test(topology, p150_dram_ports_per_noc_follow_bank_port_and_agree_with_p100a_on_shared_banks)
{
	struct bh_topology *t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P150 });
	expect_dram_xy_p100a(t, 7);
	cr_expect_eq(t->dram_xy[0][7], (23u << 6) | 18, "bank 7 NoC0: port 2 of y 21..23");
	cr_expect_eq(t->dram_xy[1][7], (22u << 6) | 18, "bank 7 NoC1: port 1");
	free(t);
}

Test(topology, grid_is_the_first_cols_by_rows_positions_of_the_p150_grid)
{
	struct bh_topology *t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 9, .rows = 3 });
	expect_tensix_grid(t, 9, 3);
	cr_expect_eq(t->ndram, 8);
	cr_expect_eq(t->dispatch_x, 11, "last column of 9 is x 11");
	cr_expect_eq(t->dispatch_y[0], 2);
	cr_expect_eq(t->dispatch_y[1], 3);
	free(t);
	t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 4, .rows = 1 });
	cr_expect_eq(t->dispatch_x, 0, "one row: no fast-dispatch pair");
	free(t);
}

Test(topology, grid_with_fewer_tiles_fills_the_last_row_partially)
{
	struct bh_topology *t =
		topo_new(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 14, .rows = 2, .ntiles = 20 });
	cr_expect_eq(t->ntiles, 20);
	unsigned x, y;
	bh_topology_tile_xy(t, 19, &x, &y);
	cr_expect(x == 6 && y == 3, "tile 19 at (%u,%u)", x, y);
	cr_expect_eq(bh_topology_at(t, 7, 3).kind, BH_EP_NONE, "position 20 is empty");
	free(t);
}

/* ------------------------------------------------------------------------------ harvesting */

Test(topology, harvested_columns_leave_the_enabled_columns_at_the_first_translated_x)
{
	/* Any two harvested columns of a P150 look like a P100 in translated space. */
	struct bh_topology *t =
		topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P150, .harvest_cols = 1u << 3 | 1u << 9 });
	expect_tensix_grid(t, 12, 10);
	cr_expect_eq(t->dispatch_x, 14);
	cr_expect_eq(bh_topology_at(t, 15, 2).kind, BH_EP_NONE);
	cr_expect_eq(bh_topology_at(t, 16, 11).kind, BH_EP_NONE);
	free(t);
	t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P100, .harvest_cols = 1u << 11 });
	expect_tensix_grid(t, 11, 10);
	free(t);
}

Test(topology, harvested_dram_banks_keep_dense_ids_at_the_first_translated_positions)
{
	/* One harvested bank, wherever it is, gives the P100A table. */
	struct bh_topology *t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P150, .harvest_dram = 1u << 2 });
	cr_expect_eq(t->ndram, 7);
	expect_dram_xy_p100a(t, 7);
	cr_expect_eq(bh_topology_at(t, 18, 21).kind, BH_EP_NONE, "the eighth position is empty");
	free(t);
	t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P150, .harvest_dram = 0x81 });
	cr_expect_eq(t->ndram, 6);
	cr_expect_eq(count_kind(t, BH_EP_DRAM), 18);
	free(t);
	/* A P100 mask replaces its default one harvested bank. */
	t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P100, .harvest_dram = 0x18 });
	cr_expect_eq(t->ndram, 6);
	free(t);
}

Test(topology, rejects_grids_that_do_not_exist)
{
	topo_rejects(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 15, .rows = 1 }, "1..14 columns");
	topo_rejects(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 2, .rows = 11 }, "1..10 rows");
	topo_rejects(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 0, .rows = 1 }, "1..14 columns");
	topo_rejects(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 2, .rows = 2, .ntiles = 5 },
		     "do not fit");
	topo_rejects(&(struct bh_topology_config){ .board = BH_BOARD_P100, .harvest_cols = 1u << 12 }, "beyond");
	topo_rejects(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 2, .rows = 1, .harvest_cols = 3 },
		     "all 2 Tensix columns");
	topo_rejects(&(struct bh_topology_config){ .board = BH_BOARD_P150, .harvest_dram = 0xFF }, "all 8 DRAM");
	topo_rejects(&(struct bh_topology_config){ .board = (enum bh_board)7 }, "unknown board");
}

/* ------------------------------------------------------------------- DRAM ports, PCIe, NONE */

Test(topology, every_port_of_every_dram_bank_maps_to_that_bank)
{
	struct bh_topology *t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P150 });
	for (unsigned b = 0; b < 8; b++)
		for (unsigned p = 0; p < 3; p++) {
			unsigned x = b < 4 ? 17 : 18, y = 12 + 3 * (b % 4) + p;
			struct bh_endpoint ep = bh_topology_at(t, x, y);
			cr_expect_eq(ep.kind, BH_EP_DRAM, "(%u,%u)", x, y);
			cr_expect_eq(ep.index, b, "(%u,%u)", x, y);
			cr_expect_eq(ep.port, p, "(%u,%u)", x, y);
		}
	free(t);
}

Test(topology, pcie_is_at_19_24_and_positions_off_the_grid_are_none)
{
	struct bh_topology *t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P150 });
	cr_expect_eq(bh_topology_at(t, 19, 24).kind, BH_EP_PCIE);
	cr_expect_eq(count_kind(t, BH_EP_PCIE), 1);
	static const unsigned none[][2] = {
		{ 0, 0 }, { 8, 2 }, { 9, 5 }, { 1, 1 }, { 1, 12 }, { 17, 11 }, { 17, 24 }, { 19, 23 }, { 63, 63 },
		{ 64, 2 }, { 2, 64 }, { 1000, 1000 },
	};
	for (unsigned k = 0; k < N(none); k++)
		cr_expect_eq(bh_topology_at(t, none[k][0], none[k][1]).kind, BH_EP_NONE, "(%u,%u)", none[k][0],
			     none[k][1]);
	free(t);
}

Test(topology, board_names_parse_both_ways)
{
	enum bh_board b;
	cr_expect_str_eq(bh_board_name(BH_BOARD_P150), "p150");
	cr_expect_str_eq(bh_board_name(BH_BOARD_P100), "p100");
	cr_expect_str_eq(bh_board_name(BH_BOARD_GRID), "grid");
	cr_expect_null(bh_board_name((enum bh_board)9));
	cr_expect(bh_board_parse("p100", &b) == 0 && b == BH_BOARD_P100);
	cr_expect(bh_board_parse("p150", &b) == 0 && b == BH_BOARD_P150);
	cr_expect(bh_board_parse("grid", &b) == 0 && b == BH_BOARD_GRID);
	cr_expect_eq(bh_board_parse("n300", &b), -1);
}

/* ----------------------------------------------------------------------- device coordinates */

static struct bh_device *open_cfg(const struct bh_device_config *cfg)
{
	struct bh_device *dev = NULL;
	cr_assert_eq(bh_device_open(cfg, &dev), BH_OK);
	return dev;
}

Test(device_topology, null_config_is_one_tile_at_1_2_and_num_tiles_fills_rows_of_14)
{
	struct bh_device *dev = open_cfg(NULL);
	unsigned x, y;
	cr_expect_eq(bh_device_board(dev), BH_BOARD_GRID);
	cr_expect_eq(bh_device_num_tiles(dev), 1);
	cr_assert_eq(bh_device_tile_xy(dev, 0, &x, &y), BH_OK);
	cr_expect(x == 1 && y == 2, "tile 0 at (%u,%u)", x, y);
	cr_expect_eq(bh_device_tile_xy(dev, 1, &x, &y), BH_ERR_ARG);
	cr_expect_eq(bh_dram_num_banks(dev), 8);
	bh_device_close(dev);

	dev = open_cfg(&(struct bh_device_config){ .num_tiles = 20 });
	cr_expect_eq(bh_device_num_tiles(dev), 20);
	cr_assert_eq(bh_device_tile_xy(dev, 13, &x, &y), BH_OK);
	cr_expect(x == 16 && y == 2, "tile 13 at (%u,%u)", x, y);
	cr_assert_eq(bh_device_tile_xy(dev, 14, &x, &y), BH_OK);
	cr_expect(x == 1 && y == 3, "tile 14 at (%u,%u)", x, y);
	cr_expect_eq(bh_device_tile_at(dev, 6, 3), 19);
	cr_expect_eq(bh_device_tile_at(dev, 7, 3), -1, "row 1 holds only 6 tiles");
	cr_expect_eq(bh_device_tile_at(dev, 17, 12), -1, "a DRAM port is not a tile");
	cr_expect_eq(bh_device_tile_at(dev, 200, 2), -1);
	cr_expect_eq(dev->tiles[19]->lx, 5);
	cr_expect_eq(dev->tiles[19]->ly, 1);
	cr_expect_eq(dev->tiles[19]->chip, &dev->chip);
	bh_device_close(dev);

	dev = open_cfg(&(struct bh_device_config){ .grid_cols = 3, .grid_rows = 2 });
	cr_expect_eq(bh_device_num_tiles(dev), 6);
	cr_expect_eq(bh_device_tile_at(dev, 3, 3), 5);
	bh_device_close(dev);
}

Test(device_topology, bad_configurations_are_rejected_with_arg)
{
	struct bh_device *dev = (struct bh_device *)1;
	cr_expect_eq(bh_device_open(&(struct bh_device_config){ .num_tiles = 141 }, &dev), BH_ERR_ARG);
	cr_expect_null(dev);
	cr_expect_eq(bh_device_open(&(struct bh_device_config){ .grid_cols = 15 }, &dev), BH_ERR_ARG);
	cr_expect_eq(bh_device_open(&(struct bh_device_config){ .board = BH_BOARD_P150, .harvest_dram = 0xFF }, &dev),
		     BH_ERR_ARG);
}

Test(device_topology, fault_and_device_reports_name_tiles_by_translated_coordinates)
{
	struct bh_device *dev = open_cfg(&(struct bh_device_config){ .num_tiles = 16 });
	struct bh_core_result *r = result_new();
	const uint32_t illegal = 0, loop = INSN_SELF_LOOP;
	cr_assert_eq(bh_l1_write(dev, 1, 0x1000, &illegal, 4), BH_OK);
	cr_assert_eq(bh_core_start(dev, 1, BH_CORE_BRISC, 0x1000), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 1, BH_CORE_BRISC, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_FAULTED);
	assert_has(r->report, "tile 1 (2,2)");
	cr_assert_eq(bh_l1_write(dev, 15, 0x1000, &loop, 4), BH_OK);
	cr_assert_eq(bh_core_start(dev, 15, BH_CORE_NCRISC, 0x1000), BH_OK);
	char rep[4096];
	cr_assert_eq(bh_device_report(dev, rep, sizeof rep), BH_OK);
	assert_has(rep, "tile 15 (2,3)");
	bh_device_close(dev);
	free(r);
}

/* ------------------------------------------------------------------------ DRAM, host memory */

Test(chip_memory, dram_bank_xy_per_noc_of_a_device_follows_the_p100a_table)
{
	struct bh_device *dev = open_cfg(NULL);
	unsigned x, y;
	for (unsigned b = 0; b < 7; b++)
		for (unsigned noc = 0; noc < 2; noc++) {
			cr_assert_eq(bh_dram_bank_xy(dev, noc, b, &x, &y), BH_OK);
			cr_expect(x == p100a_dram[b][noc][0] && y == p100a_dram[b][noc][1], "bank %u NoC%u at (%u,%u)", b,
				  noc, x, y);
		}
	cr_expect_eq(bh_dram_bank_xy(dev, 0, 8, &x, &y), BH_ERR_ARG);
	cr_expect_eq(bh_dram_bank_xy(dev, 2, 0, &x, &y), BH_ERR_ARG);
	cr_assert_eq(bh_pcie_xy(dev, &x, &y), BH_OK);
	cr_expect(x == 19 && y == 24);
	bh_device_close(dev);
}

Test(chip_memory, dram_round_trips_up_to_the_usable_end_and_rejects_what_leaves_it)
{
	struct bh_device *dev = open_cfg(NULL);
	const uint8_t w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t r[8] = { 0 };
	for (unsigned b = 0; b < 8; b++) {
		cr_assert_eq(bh_dram_write(dev, b, 0xFF000000ull - 8, w, 8), BH_OK, "bank %u", b);
		cr_assert_eq(bh_dram_read(dev, b, 0xFF000000ull - 8, r, 8), BH_OK);
		cr_expect_arr_eq(r, w, 8);
	}
	cr_assert_eq(bh_dram_write(dev, 3, 0x12345, w, 8), BH_OK);
	cr_assert_eq(bh_dram_read(dev, 3, 0x12347, r, 2), BH_OK);
	cr_expect(r[0] == 3 && r[1] == 4);
	cr_expect_eq(bh_dram_read(dev, 2, 0x12345, r, 1), BH_OK);
	cr_expect_eq(r[0], 0, "banks are separate memories");
	cr_expect_eq(bh_dram_write(dev, 0, 0xFF000000ull - 7, w, 8), BH_ERR_ARG);
	cr_expect_eq(bh_dram_write(dev, 0, 0xFF000000ull, w, 1), BH_ERR_ARG);
	cr_expect_eq(bh_dram_read(dev, 0, UINT64_MAX - 2, r, 8), BH_ERR_ARG, "no wrap-around");
	cr_expect_eq(bh_dram_read(dev, 8, 0, r, 8), BH_ERR_ARG);
	cr_expect_eq(bh_dram_write(dev, 0, 0xFF000000ull, w, 0), BH_OK, "an empty range at the end is inside");
	bh_device_close(dev);

	dev = open_cfg(&(struct bh_device_config){ .harvest_dram = 0x10 });
	cr_expect_eq(bh_dram_num_banks(dev), 7);
	cr_expect_eq(bh_dram_write(dev, 6, 0, w, 8), BH_OK);
	cr_expect_eq(bh_dram_write(dev, 7, 0, w, 8), BH_ERR_ARG, "bank ids stay dense");
	bh_device_close(dev);
}

Test(chip_memory, host_memory_is_shared_with_the_noc_view_at_bit_60_plus_0x40000000)
{
	struct bh_device *dev = open_cfg(&(struct bh_device_config){ .host_mem_size = 1u << 20 });
	void *p;
	uint64_t size, base;
	cr_assert_eq(bh_host_mem(dev, &p, &size, &base), BH_OK);
	cr_expect_eq(size, 1u << 20);
	cr_expect_eq(base, (1ull << 60) | 0x40000000ull);
	memcpy((uint8_t *)p + 0x1230, "bhemu", 6);
	cr_expect_str_eq((char *)bh_host_mem_ptr(&dev->chip, base + 0x1230, 6), "bhemu");
	cr_expect_eq(bh_host_mem_ptr(&dev->chip, base + size - 4, 4), (uint8_t *)p + size - 4);
	cr_expect_null(bh_host_mem_ptr(&dev->chip, base + size - 4, 5));
	cr_expect_null(bh_host_mem_ptr(&dev->chip, base - 1, 1), "below the base");
	cr_expect_null(bh_host_mem_ptr(&dev->chip, 0x40001230, 6), "without bit 60 it is not host memory");
	bh_device_close(dev);

	dev = open_cfg(NULL);
	cr_assert_eq(bh_host_mem(dev, &p, &size, &base), BH_OK);
	cr_expect_eq(size, 256u << 20, "default 256 MiB");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------ interleaved buffers */

Test(interleaved, dram_page_k_lands_in_bank_k_mod_8_at_base_plus_row_times_64_aligned_size)
{
	struct bh_device *dev = open_cfg(NULL);
	enum { PS = 100, PAGES = 21, FIRST = 3, BASE = 0x10000, STRIDE = 128 };
	uint8_t *src = malloc(PS * PAGES), *back = malloc(PS * PAGES), page[PS];
	for (unsigned k = 0; k < PS * PAGES; k++)
		src[k] = (uint8_t)(k * 7 + k / PS);
	cr_assert_eq(bh_interleaved_write(dev, true, BASE, PS, FIRST, src, PS * PAGES), BH_OK);
	for (unsigned k = 0; k < PAGES; k++) {
		unsigned p = FIRST + k;
		cr_assert_eq(bh_dram_read(dev, p % 8, BASE + (p / 8) * STRIDE, page, PS), BH_OK);
		cr_expect_arr_eq(page, src + k * PS, PS, "page %u", p);
	}
	cr_assert_eq(bh_interleaved_read(dev, true, BASE, PS, FIRST, back, PS * PAGES), BH_OK);
	cr_expect_arr_eq(back, src, PS * PAGES);
	free(src);
	free(back);
	bh_device_close(dev);
}

Test(interleaved, l1_page_k_lands_in_tile_k_mod_n_at_base_plus_row_times_16_aligned_size)
{
	struct bh_device *dev = open_cfg(&(struct bh_device_config){ .grid_cols = 3, .grid_rows = 2 });
	enum { PS = 40, PAGES = 14, BASE = 0x20000, STRIDE = 48, LAST = 10 };
	uint8_t src[PS * PAGES - LAST], back[sizeof src], page[PS];
	unsigned x, y;
	cr_expect_eq(bh_num_l1_banks(dev), 6);
	cr_assert_eq(bh_l1_bank_xy(dev, 1, 4, &x, &y), BH_OK);
	cr_expect(x == 2 && y == 3, "L1 bank 4 = tile 4 at (%u,%u)", x, y);
	for (unsigned k = 0; k < sizeof src; k++)
		src[k] = (uint8_t)(k ^ 0x5A);
	cr_assert_eq(bh_interleaved_write(dev, false, BASE, PS, 0, src, sizeof src), BH_OK);
	for (unsigned p = 0; p < PAGES; p++) {
		unsigned n = p == PAGES - 1 ? PS - LAST : PS;
		cr_assert_eq(bh_l1_read(dev, p % 6, BASE + (p / 6) * STRIDE, page, n), BH_OK);
		cr_expect_arr_eq(page, src + p * PS, n, "page %u", p);
	}
	cr_assert_eq(bh_l1_read(dev, (PAGES - 1) % 6, BASE + ((PAGES - 1) / 6) * STRIDE + PS - LAST, page, 1), BH_OK);
	cr_expect_eq(page[0], 0, "a partial last page writes only its bytes");
	cr_assert_eq(bh_interleaved_read(dev, false, BASE, PS, 0, back, sizeof back), BH_OK);
	cr_expect_arr_eq(back, src, sizeof src);
	bh_device_close(dev);
}

Test(interleaved, a_page_that_would_leave_its_bank_fails_and_writes_nothing)
{
	struct bh_device *dev = open_cfg(&(struct bh_device_config){ .num_tiles = 2 });
	const uint32_t base = 1536 * 1024 - 64;
	uint8_t src[256], got[64];
	memset(src, 0xAB, sizeof src);
	/* Pages 0, 1 fit (row 0); pages 2, 3 would start at base + 64 = the end of L1. */
	cr_expect_eq(bh_interleaved_write(dev, false, base, 64, 0, src, 256), BH_ERR_ARG);
	cr_assert_eq(bh_l1_read(dev, 0, base, got, 64), BH_OK);
	for (unsigned k = 0; k < 64; k++)
		cr_assert_eq(got[k], 0, "byte %u written by a failed call", k);
	cr_expect_eq(bh_interleaved_write(dev, false, base, 64, 0, src, 128), BH_OK);
	cr_expect_eq(bh_interleaved_write(dev, true, 0xFF000000u - 64, 64, 8, src, 64), BH_ERR_ARG,
		     "page 8 is row 1 of 8 DRAM banks");
	cr_expect_eq(bh_interleaved_write(dev, true, 0, 0, 0, src, 64), BH_ERR_ARG, "page size 0");
	cr_expect_eq(bh_interleaved_read(dev, true, 0, 2048, UINT32_MAX, got, 64), BH_ERR_ARG);
	bh_device_close(dev);
}

/* --------------------------------------------------------------------------------- bank tables */

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

Test(bank_tables, blob_holds_dram_xy_then_l1_xy_then_dram_and_l1_offsets)
{
	struct bh_device *dev = open_cfg(&(struct bh_device_config){ .grid_cols = 3, .grid_rows = 2 });
	enum { D = 7, L = 5 };
	uint8_t blob[8 * D + 8 * L + 4];
	memset(blob, 0xEE, sizeof blob);
	cr_assert_eq(bh_bank_tables(dev, NULL, 0, D, L), 8 * D + 8 * L);
	cr_assert_eq(bh_bank_tables(dev, blob, 8 * D + 8 * L - 1, D, L), BH_ERR_ARG, "too small");
	cr_assert_eq(bh_bank_tables(dev, blob, sizeof blob, D, L), 8 * D + 8 * L);
	for (unsigned noc = 0; noc < 2; noc++) {
		for (unsigned b = 0; b < D; b++) {
			unsigned xy = le16(blob + 2 * (noc * D + b));
			cr_expect_eq(xy, p100a_dram[b][noc][1] << 6 | p100a_dram[b][noc][0], "DRAM bank %u NoC%u", b, noc);
		}
		for (unsigned b = 0; b < L; b++) {
			unsigned xy = le16(blob + 4 * D + 2 * (noc * L + b)), x, y;
			bh_l1_bank_xy(dev, noc, b, &x, &y);
			cr_expect_eq(xy, y << 6 | x, "L1 bank %u NoC%u", b, noc);
		}
	}
	for (unsigned k = 4 * D + 4 * L; k < 8 * D + 8 * L; k++)
		cr_expect_eq(blob[k], 0, "offset byte %u", k);
	cr_expect_eq(blob[8 * D + 8 * L], 0xEE, "nothing written past the blob");
	cr_expect_eq(bh_bank_tables(dev, blob, sizeof blob, 9, 1), BH_ERR_ARG, "9 DRAM banks");
	cr_expect_eq(bh_bank_tables(dev, blob, sizeof blob, 1, 7), BH_ERR_ARG, "7 L1 banks on 6 tiles");
	bh_device_close(dev);
}

/* -------------------------------------------------------------------- a whole P150 device */

static long proc_status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	cr_assert_not_null(f);
	while (fgets(line, sizeof line, f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* A core's thread starts at its first release, not at open: an opened P150 has no core threads
 * (the chip's own, a few, only); releasing every core of every tile starts 700, each parked in a
 * poll of an L1 word that never changes; close joins every one of them. How long either takes is
 * bench_launch's business. */
Test(p150, core_threads_start_at_release_and_close_joins_them_all)
{
	/* A first device of one tile lets the runtime start any threads of its own (TSan's
	 * background thread) before the count. */
	bh_device_close(open_cfg(&(struct bh_device_config){ .num_tiles = 1 }));
	long threads0 = proc_status_kib("Threads");
	/* A thread per core, whatever BHEMU_TILE_THREADS says (test_fiber has the other mode). */
	struct bh_device *dev = open_cfg(&(struct bh_device_config){ .board = BH_BOARD_P150,
								     .tile_threads = BH_TILE_THREADS_PER_CORE });
	long opened = proc_status_kib("Threads") - threads0;
	cr_expect_eq(bh_device_num_tiles(dev), 140);
	cr_expect_lt(opened, 8, "%ld threads at open", opened);
	/* lw t0, 0x100(x0); beq t0, x0, -4: a poll that parks */
	const uint32_t poll[] = { enc_i(0x100, 0, 2, 5, 0x03), enc_b(-4, 0, 5, 0) };
	for (unsigned t = 0; t < 140; t++) {
		cr_assert_eq(bh_l1_write(dev, t, 0, poll, sizeof poll), BH_OK);
		cr_assert_eq(bh_reg_write(dev, t, 0xFFB121B0u, 0), BH_OK);   /* SOFT_RESET_0: release all five */
	}
	long threads = proc_status_kib("Threads") - threads0;
	cr_expect_geq(threads, 700 + opened, "%ld threads after the releases", threads);
	bh_device_close(dev);
	long left = proc_status_kib("Threads") - threads0;
	cr_expect_eq(left, 0, "%ld of the device's threads outlived bh_device_close", left);
}

Test(chip_memory, eight_dram_banks_and_host_memory_are_backed_only_where_touched)
{
	struct bh_chip *chip = calloc(1, sizeof *chip);
	char err[160] = "";
	cr_assert_not_null(chip);
	cr_assert_eq(bh_topology_init(&chip->topo, &(struct bh_topology_config){ .board = BH_BOARD_P150 }, err,
				      sizeof err), 0, "%s", err);
	long rss0 = proc_status_kib("VmRSS");
	cr_assert_eq(bh_chip_memories_init(chip, 1ull << 30, err, sizeof err), 0, "%s", err);
	for (unsigned k = 0; k < 8; k++) {    /* one page at each end of every bank */
		*bh_dram_ptr(chip, k, 0, 1) = 1;
		*bh_dram_ptr(chip, k, 0xFF000000ull - 1, 1) = 1;
	}
	*bh_host_mem_ptr(chip, BH_NOC_PCIE_BIT | (chip->host_base + (1ull << 30) - 1), 1) = 1;
	long grown = proc_status_kib("VmRSS") - rss0;
	cr_expect_lt(grown, 4 * 1024, "33 GiB mapped, 17 pages touched: RSS grew by %ld KiB", grown);
	bh_chip_memories_destroy(chip);
	cr_expect_null(chip->dram[0]);
	cr_expect_null(chip->host_mem);
	free(chip);
}

Test(p150, a_whole_device_costs_far_less_host_memory_than_its_32_gib_of_dram)
{
	long rss0 = proc_status_kib("VmRSS");
	struct bh_device *dev = open_cfg(&(struct bh_device_config){ .board = BH_BOARD_P150 });
	uint8_t b = 1;
	for (unsigned k = 0; k < 8; k++) {
		cr_assert_eq(bh_dram_write(dev, k, 0, &b, 1), BH_OK);
		cr_assert_eq(bh_dram_write(dev, k, 0xFF000000ull - 1, &b, 1), BH_OK);
	}
	long grown = proc_status_kib("VmRSS") - rss0;
	printf("P150 device with 32 GiB of DRAM: RSS grew by %ld MiB\n", grown / 1024);
#ifndef __SANITIZE_THREAD__   /* TSan keeps ~1.4 MiB per thread: 700 threads cost ~1 GiB there */
	cr_expect_lt(grown, 256 * 1024, "RSS grew by %ld KiB", grown);
#endif
	bh_device_close(dev);
}

Test(p150, p100a_firmware_tables_fit_the_offsets_its_copy_loop_reads)
{
	/* p100a: D = 7, L = 110 at 0x112B0: L1 xy at 0x112CC, DRAM offsets 0x11484, L1 offsets 0x114A0. */
	struct bh_device *dev = open_cfg(&(struct bh_device_config){ .board = BH_BOARD_P100 });
	uint8_t blob[1024];
	cr_expect_eq(bh_dram_num_banks(dev), 7);
	cr_expect_eq(bh_num_l1_banks(dev), 120);
	int n = bh_bank_tables(dev, blob, sizeof blob, 7, 110);
	cr_assert_eq(n, 0x114A0 - 0x112B0 + 4 * 110);
	unsigned x, y;
	bh_l1_bank_xy(dev, 0, 0, &x, &y);
	cr_expect_eq(le16(blob + (0x112CC - 0x112B0)), y << 6 | x);
	cr_expect_eq(le16(blob + (0x112CC - 0x112B0) - 2), p100a_dram[6][1][1] << 6 | p100a_dram[6][1][0],
		     "the last DRAM entry is bank 6 on NoC1");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- Ethernet */

/* A P150: channels 0-13 at NoC0 row 1 in tt-umd's order, 5 and 8 harvested; the other twelve at
 * translated (20 + k, 25) in channel order. A P100 and test grids have none. */
Test(topology, p150_ethernet_tiles_take_translated_20_to_31_in_channel_order)
{
	static const unsigned noc0_x[14] = { 1, 16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10 };
	static const unsigned chan[12] = { 0, 1, 2, 3, 4, 6, 7, 9, 10, 11, 12, 13 };
	struct bh_topology *t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P150 });
	cr_expect_eq(t->neth, 12u);
	cr_expect_eq(t->eth_enabled, 0x3EDFu);
	cr_expect_eq(count_kind(t, BH_EP_ETH), 12);
	for (unsigned k = 0; k < 12; k++) {
		struct bh_endpoint ep = bh_topology_at(t, 20 + k, 25);
		cr_expect_eq(ep.kind, BH_EP_ETH, "(%u,25)", 20 + k);
		cr_expect_eq(ep.index, k);
		cr_expect_eq(t->eth_chan[k], chan[k], "logical %u is channel %u", k, t->eth_chan[k]);
	}
	cr_expect_eq(bh_topology_at(t, 32, 25).kind, BH_EP_NONE);
	for (unsigned c = 0; c < 14; c++) {
		unsigned x, y;
		bh_topology_eth_noc0(c, &x, &y);
		cr_expect(x == noc0_x[c] && y == 1, "channel %u at NoC0 (%u,%u)", c, x, y);
	}
	free(t);
	t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_P100 });
	cr_expect_eq(t->neth, 0u);
	cr_expect_eq(count_kind(t, BH_EP_ETH), 0);
	free(t);
	t = topo_new(&(struct bh_topology_config){ .board = BH_BOARD_GRID, .cols = 14, .rows = 10 });
	cr_expect_eq(count_kind(t, BH_EP_ETH), 0);
	free(t);
}
