/* Reductions written with firmware/compute/reduce.h under tt-metal's names (reduce_init,
 * reduce_tile, PoolType SUM / AVG / MAX, REDUCE_COL), run by the three TRISCs through the data
 * plane's pooling instructions (tests/guest/mc/reduce_kernels.c): every output datum against the
 * host's reduction of the same tiles (exact sums rounded to BF16 as the packer rounds, exact
 * maxima), one output tile per input tile and accumulated over several tiles. */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "compute_testlib.h"
#include "host/device.h"
#include "testlib.h"

#define ELF "guest/mc_reduce_kernels.elf"
#define TILES 3

/* Datum (r, c) of a 32x32 tile stored face after face. */
static unsigned at(unsigned r, unsigned c) { return (r / 16 * 2 + c / 16) * 256 + r % 16 * 16 + c % 16; }

static uint16_t in[TILES][1024], scaler[1024], out[TILES][1024];

/* Multiples of 1/8 in [-8, 8), a different pattern per tile (negative columns included). */
static void fill(void)
{
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned r = 0; r < 32; r++)
			for (unsigned c = 0; c < 32; c++)
				in[t][at(r, c)] = bf16_exact((double)((r * 13 + c * 7 + t * 29) % 128) / 8 - 8 -
							     (c == 5 ? 8 : 0));
}

static void set_scaler(double v)
{
	memset(scaler, 0, sizeof scaler);
	for (unsigned c = 0; c < 16; c++)
		scaler[c] = bf16_exact(v);   /* row 0 of face 0 */
}

static void run(uint32_t pool, uint32_t accumulate)
{
	static const enum bh_core_id cores[] = { BH_CORE_BRISC, BH_CORE_TRISC0, BH_CORE_TRISC1, BH_CORE_TRISC2 };
	tl_skip_unless_built(ELF);
	uint32_t entry[4];
	struct bh_device *dev = t_open();
	load_multicore_elf(dev, ELF, cores, 4, entry);
	put32(dev, "compute_pool", pool);
	put32(dev, "compute_tiles", TILES);
	put32(dev, "compute_accumulate", accumulate);
	cr_assert_eq(bh_l1_write(dev, 0, symbol(dev, "tiles_in"), in, sizeof in), BH_OK);
	cr_assert_eq(bh_l1_write(dev, 0, symbol(dev, "tile_scaler"), scaler, sizeof scaler), BH_OK);
	for (unsigned k = 0; k < 4; k++)
		cr_assert_eq(bh_core_start(dev, 0, cores[k], entry[k]), BH_OK);
	struct bh_core_result *r = result_new();
	for (unsigned k = 0; k < 4; k++) {
		int rc = bh_core_wait(dev, 0, cores[k], 60000, r);
		cr_assert(rc == BH_OK && r->status == BH_RUN_EXITED && r->exit_status == 0,
			  "core %u: wait %d, status %d, exit %d\n%s", k, rc, r->status, r->exit_status, r->report);
	}
	free(r);
	cr_assert_eq(bh_l1_read(dev, 0, symbol(dev, "tiles_out"), out, sizeof out), BH_OK);
	bh_device_close(dev);
}

/* Row 0 of output tile o holds want[c]; every other datum is zero. */
static void expect_row0(unsigned o, const double *want, bool round)
{
	for (unsigned r = 0; r < 32; r++)
		for (unsigned c = 0; c < 32; c++) {
			float got = f_of((uint32_t)out[o][at(r, c)] << 16);
			float w = r ? 0.f : round ? bf16_round_away(want[c]) : (float)want[c];
			cr_assert_eq(got, w, "tile %u (%u, %u): %g want %g", o, r, c, got, w);
		}
}

static double datum(unsigned t, unsigned r, unsigned c) { return f_of((uint32_t)in[t][at(r, c)] << 16); }

Test(compute_reduce, max_over_the_rows_of_each_tile_is_exact)
{
	fill();
	set_scaler(1.0);
	run(2, 0);
	for (unsigned t = 0; t < TILES; t++) {
		double want[32];
		for (unsigned c = 0; c < 32; c++) {
			want[c] = -INFINITY;
			for (unsigned r = 0; r < 32; r++)
				want[c] = fmax(want[c], datum(t, r, c));
		}
		expect_row0(t, want, false);
	}
}

Test(compute_reduce, sum_over_the_rows_of_each_tile_rounds_as_the_packer)
{
	fill();
	set_scaler(1.0);
	run(0, 0);
	for (unsigned t = 0; t < TILES; t++) {
		double want[32] = { 0 };
		for (unsigned c = 0; c < 32; c++)
			for (unsigned r = 0; r < 32; r++)
				want[c] += datum(t, r, c);
		expect_row0(t, want, true);
	}
}

/* AVG is SUM with the scaler 1/32 (as tt-metal passes the mean's factor). */
Test(compute_reduce, mean_over_the_rows_uses_the_scaler)
{
	fill();
	set_scaler(1.0 / 32);
	run(1, 0);
	for (unsigned t = 0; t < TILES; t++) {
		double want[32] = { 0 };
		for (unsigned c = 0; c < 32; c++) {
			for (unsigned r = 0; r < 32; r++)
				want[c] += datum(t, r, c);
			want[c] /= 32;
		}
		expect_row0(t, want, true);
	}
}

/* Several reduce_tile calls into one Dst tile: the max and the sum over all 96 rows. */
Test(compute_reduce, max_and_sum_accumulate_over_tiles)
{
	for (uint32_t pool = 0; pool <= 2; pool += 2) {
		fill();
		set_scaler(1.0);
		run(pool, 1);
		double want[32];
		for (unsigned c = 0; c < 32; c++) {
			want[c] = pool ? -INFINITY : 0;
			for (unsigned t = 0; t < TILES; t++)
				for (unsigned r = 0; r < 32; r++)
					want[c] = pool ? fmax(want[c], datum(t, r, c)) : want[c] + datum(t, r, c);
		}
		expect_row0(0, want, pool == 0);
	}
}
