/* Reductions written with firmware/compute/reduce.h under tt-metal's names (reduce_init,
 * reduce_tile, PoolType SUM / AVG / MAX, REDUCE_COL / REDUCE_ROW / REDUCE_SCALAR), run by the three
 * TRISCs through the data plane's pooling and move instructions (tests/guest/mc/reduce_kernels.c):
 * every output datum against the host's reduction of the same tiles (exact sums rounded to BF16 as
 * the packer rounds, exact maxima), one output tile per input tile and accumulated over several
 * tiles. Column 5 and row 7 of every tile are all negative (GMPOOL's minus-infinity identity). */
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

enum { ROW, COL, SCALAR };

/* Multiples of 1/8 in [-8, 8.25) - shift, a different pattern per tile (irregular enough that sums
 * need more than BF16's bits); column 5 and row 7 8 lower (all negative). */
static void fill_shifted(double shift)
{
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned r = 0; r < 32; r++)
			for (unsigned c = 0; c < 32; c++)
				in[t][at(r, c)] = bf16_exact((double)((r * 13 + c * 7 + t * 29) % 128) / 8 +
							     (double)((r * c * 3 + t) % 7) / 8 - 8 - (c == 5 ? 8 : 0) -
							     (r == 7 ? 8 : 0) - shift);
}

static void fill(void) { fill_shifted(0); }

static void set_scaler(double v)
{
	memset(scaler, 0, sizeof scaler);
	for (unsigned c = 0; c < 16; c++)
		scaler[c] = bf16_exact(v);   /* row 0 of face 0 */
}

static void run_dim(uint32_t pool, uint32_t dim, uint32_t accumulate)
{
	static const enum bh_core_id cores[] = { BH_CORE_BRISC, BH_CORE_TRISC0, BH_CORE_TRISC1, BH_CORE_TRISC2 };
	tl_skip_unless_built(ELF);
	uint32_t entry[4];
	struct bh_device *dev = t_open();
	load_multicore_elf(dev, ELF, cores, 4, entry);
	put32(dev, "compute_pool", pool);
	put32(dev, "compute_dim", dim);
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

static void run(uint32_t pool, uint32_t accumulate) { run_dim(pool, COL, accumulate); }

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

/* ---- REDUCE_ROW and REDUCE_SCALAR ---- */

/* The reduction (SUM 0, AVG 1, MAX 2) of tile row r over tiles t0..t1, times the scaler s. */
static double row_reduce(uint32_t pool, unsigned t0, unsigned t1, unsigned r, double s)
{
	double x = pool == 2 ? -INFINITY : 0;
	for (unsigned t = t0; t <= t1; t++)
		for (unsigned c = 0; c < 32; c++)
			x = pool == 2 ? fmax(x, datum(t, r, c)) : x + s * datum(t, r, c);
	return x;
}

/* Output tile o is want (row-major), rounded to BF16 as the packer rounds with round. */
static void expect_tile(unsigned o, const double want[32][32], bool round)
{
	for (unsigned r = 0; r < 32; r++)
		for (unsigned c = 0; c < 32; c++) {
			float got = f_of((uint32_t)out[o][at(r, c)] << 16);
			float w = round ? bf16_round_away(want[r][c]) : (float)want[r][c];
			cr_assert_eq(got, w, "tile %u (%u, %u): %g want %g", o, r, c, got, w);
		}
}

/* REDUCE_ROW into output tile o: row r's reduction in (r, 0); rows 0 and 16 keep the pooled row
 * (column c < 16: the reduction of row r + c); every other datum zero. */
static void check_rows(uint32_t pool, uint32_t accumulate, double s)
{
	set_scaler(s);
	run_dim(pool, ROW, accumulate);
	for (unsigned t = 0; t < (accumulate ? 1u : TILES); t++) {
		double red[32], want[32][32];
		for (unsigned r = 0; r < 32; r++)
			red[r] = row_reduce(pool, accumulate ? 0 : t, accumulate ? TILES - 1 : t, r, s);
		for (unsigned r = 0; r < 32; r++)
			for (unsigned c = 0; c < 32; c++)
				want[r][c] = c == 0 ? red[r] : r % 16 == 0 && c < 16 ? red[r + c] : 0;
		expect_tile(t, want, pool != 2);
	}
}

/* The BF16 truncation of an FP32 value (MOVD2B of an FP32 Dst in BF16 style). */
static double bf16_trunc(double v)
{
	float f = (float)v;
	uint32_t b;
	memcpy(&b, &f, 4);
	cr_assert_eq((double)f, v, "%g is not an FP32 value", v);
	return f_of(b & 0xFFFF0000u);
}

/* REDUCE_SCALAR of tiles t0..t1: MAX exact; SUM/AVG the 16 column partials (columns c and c + 16 of
 * one tile, times s) truncated to BF16, summed times s again, accumulated over the tiles. */
static double scalar_reduce(uint32_t pool, unsigned t0, unsigned t1, double s)
{
	double x = pool == 2 ? -INFINITY : 0;
	for (unsigned t = t0; t <= t1; t++)
		for (unsigned c = 0; c < 16; c++) {
			double part = pool == 2 ? -INFINITY : 0;
			for (unsigned r = 0; r < 32; r++)
				for (unsigned k = c; k < 32; k += 16)
					part = pool == 2 ? fmax(part, datum(t, r, k)) : part + s * datum(t, r, k);
			x = pool == 2 ? fmax(x, part) : x + s * bf16_trunc(part);
		}
	return x;
}

/* REDUCE_SCALAR into output tile o: the reduction in (0, 0), every other datum zero. */
static void check_scalar(uint32_t pool, uint32_t accumulate, double s)
{
	set_scaler(s);
	run_dim(pool, SCALAR, accumulate);
	for (unsigned t = 0; t < (accumulate ? 1u : TILES); t++) {
		double want[32][32] = { { 0 } };
		want[0][0] = scalar_reduce(pool, accumulate ? 0 : t, accumulate ? TILES - 1 : t, s);
		expect_tile(t, want, pool != 2);
	}
}

/* MAX exact; the FP32 row sums go through SrcB in two 16-bit halves (every bit arrives) and the
 * packer rounds them; AVG is SUM with the scaler 1/32 for rows, for the scalar the scaler applies
 * twice (once per pooling), so 1/32 gives the mean of the 1024 datums. */
Test(compute_reduce, row_and_scalar_max_sum_and_mean_of_each_tile)
{
	static const double scaler_of_pool[3] = { 1.0, 1.0 / 32, 1.0 };
	fill();
	for (uint32_t pool = 0; pool <= 2; pool++) {
		check_rows(pool, 0, scaler_of_pool[pool]);
		check_scalar(pool, 0, scaler_of_pool[pool]);
	}
}

Test(compute_reduce, row_and_scalar_max_and_sum_accumulate_over_tiles)
{
	fill();
	for (uint32_t pool = 0; pool <= 2; pool += 2) {
		check_rows(pool, 1, 1.0);
		check_scalar(pool, 1, 1.0);
	}
}

/* All datums negative: the maximum is negative (minus infinity, not zero, is where it starts). */
Test(compute_reduce, scalar_and_row_max_of_negative_tiles)
{
	fill_shifted(8.75);   /* [-16.75, -0.5) */
	check_scalar(2, 1, 1.0);
	cr_assert_lt(f_of((uint32_t)out[0][0] << 16), 0.f);
	check_rows(2, 0, 1.0);
}
