/* Host side of the whole-grid programs (tests/guest/grid/): the host writes the input through the
 * public API, every tile of a 4x3 grid transforms it over the NoC, the host checks the output.
 * Proves that the guest's interleaved address generator (firmware/dataflow/noc.h, with the bank
 * tables `bhemu run` writes) and bh_interleaved_* agree on where every page lives, and that host
 * memory seen through bh_host_mem is what device cores reach at the PCIe tile. The tests set up
 * the tiles as `bhemu run --grid` does (firmware/baremetal/grid.h) and skip when the guest
 * programs were not built. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "firmware/baremetal/grid.h"
#include "tests/guest/grid/grid_pattern.h"

#define GRID_COLS 4
#define GRID_ROWS 3
#define GRID_TILES (GRID_COLS * GRID_ROWS)
#define WAIT_MS 120000

static const enum bh_core_id cores[] = { BH_CORE_BRISC, BH_CORE_NCRISC };
#define NCORES 2

static struct bh_device *grid_open(void)
{
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = GRID_COLS, .grid_rows = GRID_ROWS };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	cr_assert_eq(bh_device_num_tiles(dev), GRID_TILES);
	return dev;
}

/* What `bhemu run --grid` writes into low L1 of every tile: the run information and the bank
 * tables (grid.h). */
static void grid_write_run_info(struct bh_device *dev)
{
	struct bare_grid_info info = { .magic = BARE_GRID_MAGIC, .num_tiles = GRID_TILES,
				       .bank_tables = BARE_BANK_TABLES_ADDR };
	static uint8_t tables[BARE_BANK_TABLES_END - BARE_BANK_TABLES_ADDR];
	unsigned x, y;
	void *host;
	uint64_t size, base;

	info.num_dram_banks = bh_dram_num_banks(dev);
	info.num_l1_banks = bh_num_l1_banks(dev);
	int len = bh_bank_tables(dev, tables, sizeof tables, info.num_dram_banks, info.num_l1_banks);
	cr_assert_gt(len, 0);
	cr_assert_eq(bh_pcie_xy(dev, &x, &y), BH_OK);
	info.pcie_xy = y << 6 | x;
	cr_assert_eq(bh_host_mem(dev, &host, &size, &base), BH_OK);
	info.host_mem_lo = (uint32_t)(base & ~(1ull << 60));
	info.host_mem_hi = (uint32_t)((base & ~(1ull << 60)) >> 32);
	info.host_mem_size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	for (unsigned t = 0; t < GRID_TILES; t++) {
		cr_assert_eq(bh_device_tile_xy(dev, t, &x, &y), BH_OK);
		info.tile_xy[t] = (uint16_t)(y << 6 | x);
	}
	for (unsigned t = 0; t < GRID_TILES; t++) {
		cr_assert_eq(bh_l1_write(dev, t, BARE_GRID_INFO_ADDR, &info, sizeof info), BH_OK);
		cr_assert_eq(bh_l1_write(dev, t, BARE_BANK_TABLES_ADDR, tables, (size_t)len), BH_OK);
	}
}

/* Loads the guest program NAME on BRISC and NCRISC of every tile (skips the test if it was not
 * built); entry[k] receives each core's _start_<core>. */
static void grid_load(struct bh_device *dev, const char *name, uint32_t entry[NCORES])
{
	char path[512], err[512];
	snprintf(path, sizeof path, "%s/guest/%s.elf", BHEMU_BINARY_DIR, name);
	if (access(path, R_OK) != 0)
		cr_skip_test("%s not built (cross compiler missing?)", path);
	for (unsigned t = 0; t < GRID_TILES; t++) {
		for (unsigned k = 0; k < NCORES; k++) {
			char sym[32];
			cr_assert_eq(bh_load_elf(dev, t, cores[k], path, NULL, &entry[k], err, sizeof err), BH_OK, "%s", err);
			snprintf(sym, sizeof sym, "_start_%s", bh_core_name(cores[k]));
			cr_assert_eq(bh_core_symbol_lookup(dev, t, cores[k], sym, &entry[k]), BH_OK);
			bh_core_enable_host_calls(dev, t, cores[k], true);
		}
	}
}

/* Sets the program's parameter word `name` on every tile (the program's .data is in each L1). */
static void grid_set_param(struct bh_device *dev, const char *name, uint32_t value)
{
	for (unsigned t = 0; t < GRID_TILES; t++) {
		uint32_t addr;
		cr_assert_eq(bh_core_symbol_lookup(dev, t, BH_CORE_BRISC, name, &addr), BH_OK, "no symbol %s", name);
		cr_assert_eq(bh_l1_write(dev, t, addr, &value, 4), BH_OK);
	}
}

static uint32_t grid_param(struct bh_device *dev, const char *name)
{
	uint32_t addr, value;
	cr_assert_eq(bh_core_symbol_lookup(dev, 0, BH_CORE_BRISC, name, &addr), BH_OK, "no symbol %s", name);
	cr_assert_eq(bh_l1_read(dev, 0, addr, &value, 4), BH_OK);
	return value;
}

/* Starts both cores of every tile; every one must exit 0. */
static void grid_run(struct bh_device *dev, const uint32_t entry[NCORES])
{
	for (unsigned t = 0; t < GRID_TILES; t++)
		for (unsigned k = 0; k < NCORES; k++)
			cr_assert_eq(bh_core_start(dev, t, cores[k], entry[k]), BH_OK);
	struct bh_core_result *r = calloc(1, sizeof *r);
	for (unsigned t = 0; t < GRID_TILES; t++) {
		for (unsigned k = 0; k < NCORES; k++) {
			int rc = bh_core_wait(dev, t, cores[k], WAIT_MS, r);
			if (rc != BH_OK || r->status != BH_RUN_EXITED || r->exit_status != 0) {
				static char report[1 << 16];
				bh_device_report(dev, report, sizeof report);
				cr_assert(0, "tile %u %s: wait %d, status %d, exit %d\n%s\n%s", t, bh_core_name(cores[k]), rc,
					 r->status, r->exit_status, r->report, report);
			}
		}
	}
	free(r);
}

Test(grid_host, dram_pages_the_host_wrote_interleaved_come_back_transformed_where_the_host_reads_them)
{
	struct bh_device *dev = grid_open();
	uint32_t entry[NCORES];
	grid_write_run_info(dev);
	grid_load(dev, "grid_dram_loopback", entry);
	grid_set_param(dev, "loopback_host_io", 1);
	const uint32_t page = grid_param(dev, "loopback_page_size");
	const uint32_t pages = grid_param(dev, "loopback_pages_per_tile") * GRID_TILES;
	const uint32_t in_base = grid_param(dev, "loopback_in_base"), out_base = grid_param(dev, "loopback_out_base");
	const uint32_t words = page / 4;

	uint32_t *buf = malloc((size_t)pages * page);
	for (uint32_t p = 0; p < pages; p++)
		for (uint32_t i = 0; i < words; i++)
			buf[p * words + i] = loop_in_word(p, i);
	cr_assert_eq(bh_interleaved_write(dev, true, in_base, page, 0, buf, (size_t)pages * page), BH_OK);

	grid_run(dev, entry);

	memset(buf, 0, (size_t)pages * page);
	cr_assert_eq(bh_interleaved_read(dev, true, out_base, page, 0, buf, (size_t)pages * page), BH_OK);
	for (uint32_t p = 0; p < pages; p++)
		for (uint32_t i = 0; i < words; i++)
			if (buf[p * words + i] != loop_out_word(p, i))
				cr_assert_eq(buf[p * words + i], loop_out_word(p, i), "page %u word %u: 0x%08x, expected 0x%08x",
					     p, i, buf[p * words + i], loop_out_word(p, i));
	free(buf);
	bh_device_close(dev);
}

Test(grid_host, host_memory_the_host_filled_is_transformed_by_every_tile_through_the_pcie_tile)
{
	struct bh_device *dev = grid_open();
	uint32_t entry[NCORES];
	void *host;
	uint64_t size, base;
	grid_write_run_info(dev);
	grid_load(dev, "grid_host_mem", entry);
	grid_set_param(dev, "hostmem_host_io", 1);
	const uint32_t block = grid_param(dev, "hostmem_block"), words = block / 4;
	cr_assert_eq(bh_host_mem(dev, &host, &size, &base), BH_OK);
	cr_assert_geq(size, 2ull * GRID_TILES * block);

	/* Area A: slot k for tile k; area B (the output) follows it. */
	uint32_t *area_a = host, *area_b = (uint32_t *)((uint8_t *)host + (size_t)GRID_TILES * block);
	for (uint32_t k = 0; k < GRID_TILES; k++)
		for (uint32_t i = 0; i < words; i++)
			area_a[k * words + i] = grid_word(k, 0x5EED, i);

	grid_run(dev, entry);

	for (uint32_t k = 0; k < GRID_TILES; k++) {
		for (uint32_t i = 0; i < words; i++) {
			uint32_t want = hostmem_out_word(grid_word(k, 0x5EED, i), k);
			if (area_b[k * words + i] != want)
				cr_assert_eq(area_b[k * words + i], want, "tile %u word %u: 0x%08x, expected 0x%08x", k, i,
					     area_b[k * words + i], want);
		}
	}
	bh_device_close(dev);
}
