/* Compute kernels written with the compute library (firmware/compute/compute.h) under tt-metal's
 * API names, run by the three TRISCs of a tile through the Tensix data plane
 * (tests/guest/mc/compute_kernels.c): add/sub/mul over several tiles (BF16 and BFP8 inputs),
 * copy_tile, and a 32x32x32 matmul in HiFi4 and LoFi, every output datum exact against the host's
 * arithmetic of the same operation; the SFPU unary operations (copy_tile, then the operation on
 * Dst) against the host's libm within the error compute.h documents plus the BF16 rounding. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute_testlib.h"
#include "host/device.h"
#include "testlib.h"

#define ELF "guest/mc_compute_kernels.elf"
#define TILES 6

static uint32_t kernel_param;   /* compute_param of the next run */

/* Loads the program, sets the operation and the formats of in0 and out, writes the tiles, runs
 * BRISC and the TRISCs to exit 0 and reads the output tiles. */
static void run_kernel_fmt(uint32_t op, uint32_t tiles, uint32_t in_fmt, uint32_t out_fmt, uint32_t in1_fmt,
			   const void *in0, size_t in0_bytes, const void *in1, size_t in1_bytes, void *out, size_t out_bytes)
{
	static const enum bh_core_id cores[] = { BH_CORE_BRISC, BH_CORE_TRISC0, BH_CORE_TRISC1, BH_CORE_TRISC2 };
	static const char *const names[] = { "brisc", "trisc0", "trisc1", "trisc2" };
	tl_skip_unless_built(ELF);
	uint32_t entry[4];
	struct bh_device *dev = t_open();
	load_multicore_elf(dev, ELF, cores, 4, entry);
	put32(dev, "compute_op", op);
	put32(dev, "compute_tiles", tiles);
	put32(dev, "compute_in1_fmt", in1_fmt);
	put32(dev, "compute_param", kernel_param);
	put32(dev, "compute_in_fmt", in_fmt);
	put32(dev, "compute_out_fmt", out_fmt);
	cr_assert_eq(bh_l1_write(dev, 0, symbol(dev, "tiles_in0"), in0, in0_bytes), BH_OK);
	if (in1)
		cr_assert_eq(bh_l1_write(dev, 0, symbol(dev, "tiles_in1"), in1, in1_bytes), BH_OK);
	for (unsigned k = 0; k < 4; k++)
		cr_assert_eq(bh_core_start(dev, 0, cores[k], entry[k]), BH_OK);
	struct bh_core_result *r = result_new();
	for (unsigned k = 0; k < 4; k++) {
		int rc = bh_core_wait(dev, 0, cores[k], 60000, r);
		if (rc != BH_OK || r->status != BH_RUN_EXITED || r->exit_status != 0) {
			static char report[1 << 16];
			bh_device_report(dev, report, sizeof report);
			cr_assert_fail("%s: wait %d, status %d, exit %d\n%s\n%s", names[k], rc, r->status, r->exit_status,
				       r->report, report);
		}
	}
	free(r);
	cr_assert_eq(bh_l1_read(dev, 0, symbol(dev, "tiles_out"), out, out_bytes), BH_OK);
	bh_device_close(dev);
}

static void run_kernel(uint32_t op, uint32_t tiles, uint32_t in1_fmt, const void *in0, const void *in1, size_t in1_bytes,
		       uint16_t *out)
{
	run_kernel_fmt(op, tiles, 5, 5, in1_fmt, in0, tiles * 2048, in1, in1_bytes, out, tiles * 2048);
}

static uint16_t in0[TILES][1024], in1[TILES][1024], out[TILES][1024];

/* in0: multiples of 1/4 in [-8, 8); in1: multiples of 1/2 in [-4, 4): every sum, difference
 * and product is exact in BF16 (and within one fidelity phase's slices for the product). */
static void fill_bf16(void)
{
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned k = 0; k < 1024; k++) {
			in0[t][k] = bf16_exact((double)((k * 7 + t * 3) % 64) / 4 - 8);
			in1[t][k] = bf16_exact((double)((k * 5 + t) % 16) / 2 - 4);
		}
}

static void expect_eltwise(uint32_t op)
{
	fill_bf16();
	run_kernel(op, TILES, 5, in0, in1, sizeof in1, &out[0][0]);
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned k = 0; k < 1024; k++) {
			double a = f_of((uint32_t)in0[t][k] << 16), b = f_of((uint32_t)in1[t][k] << 16);
			double want = op == 0 ? a + b : op == 1 ? a - b : a * b;
			cr_assert_eq(f_of((uint32_t)out[t][k] << 16), (float)want, "op %u tile %u datum %u: %g want %g", op, t,
				     k, f_of((uint32_t)out[t][k] << 16), want);
		}
}

Test(compute_kernels, add_tiles_over_six_tiles_is_exact)
{
	expect_eltwise(0);
}

Test(compute_kernels, sub_tiles_over_six_tiles_is_exact)
{
	expect_eltwise(1);
}

Test(compute_kernels, mul_tiles_over_six_tiles_is_exact)
{
	expect_eltwise(2);
}

Test(compute_kernels, add_tiles_with_a_bfp8_input_is_exact)
{
	static uint8_t bfp[TILES][1088];
	static float bval[TILES][1024];
	fill_bf16();
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned g = 0; g < 64; g++) {
			bfp[t][g] = (uint8_t)(128 + (g + t) % 3);   /* 2^1 .. 2^3 scale: steps of 1/32 .. 1/8 */
			for (unsigned k = 0; k < 16; k++) {
				unsigned mag = (g * 16 + k * 5 + t) % 128, sign = mag && (k & 1);
				bfp[t][64 + g * 16 + k] = (uint8_t)(sign << 7 | mag);
				bval[t][g * 16 + k] = (float)ldexp(sign ? -(double)mag : mag, bfp[t][g] - 127 - 6);
			}
		}
	/* in1 tiles are 1088 bytes apart: the program places tile t at t * 1088 for BFP8. */
	run_kernel(0, TILES, 6, in0, bfp, sizeof bfp, &out[0][0]);
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned k = 0; k < 1024; k++) {
			double want = bf16_round_away((double)f_of((uint32_t)in0[t][k] << 16) + bval[t][k]);
			cr_assert_eq(f_of((uint32_t)out[t][k] << 16), (float)want, "tile %u datum %u", t, k);
		}
}

Test(compute_kernels, copy_tile_moves_tiles_unchanged)
{
	fill_bf16();
	run_kernel(3, TILES, 5, in0, NULL, 0, &out[0][0]);
	cr_assert_eq(memcmp(out, in0, sizeof out), 0);
}

/* Element (r, c) of a 32x32 tile stored as four 16x16 faces. */
static unsigned at(unsigned r, unsigned c)
{
	return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16;
}

/* Fidelity slices as SrcASrcB.md gives them for BF16 (implicit 1 + 4 bits of SrcA = in1 here,
 * implicit 1 + 6 bits of SrcB = in0). */
static double hi_bits(double x, int keep)
{
	if (x == 0)
		return 0;
	double step = ldexp(1, ilogb(x) - keep);
	return trunc(x / step) * step;
}

/* op 4, 5, or 38: HiFi4 into Dst tiles 0, 0, 1, 1, ..., every third tile (t % 3 == 2) then
 * multiplied by kernel_param (2.0: exact) on the SFPU. */
static void expect_matmul(uint32_t op)
{
	/* Values (1 + m/128) * sign: every mantissa bit in use; HiFi4 sums are exact in FP32. */
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned k = 0; k < 1024; k++) {
			in0[t][k] = (uint16_t)(0x3F80 + (k * 37 + t * 11) % 128) | (uint16_t)(k % 5 == 0 ? 0x8000 : 0);
			in1[t][k] = (uint16_t)(0x3F80 + (k * 53 + t * 7) % 128) | (uint16_t)(k % 7 == 3 ? 0x8000 : 0);
		}
	run_kernel(op, TILES, 5, in0, in1, sizeof in1, &out[0][0]);
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned r = 0; r < 32; r++)
			for (unsigned c = 0; c < 32; c++) {
				double acc = 0;
				for (unsigned k = 0; k < 32; k++) {
					double a = f_of((uint32_t)in0[t][at(r, k)] << 16), b = f_of((uint32_t)in1[t][at(k, c)] << 16);
					acc += op != 5 ? a * b : hi_bits(a, 6) * hi_bits(b, 4);
				}
				if (op == 38 && t % 3 == 2)
					acc *= 2;
				float want = bf16_round_away(acc), got = f_of((uint32_t)out[t][at(r, c)] << 16);
				cr_assert_eq(got, want, "op %u tile %u C[%u][%u]: %a want %a", op, t, r, c, got, want);
			}
}

Test(compute_kernels, matmul_tiles_hifi4_is_exact)
{
	expect_matmul(4);
}

Test(compute_kernels, matmul_tiles_lofi_uses_one_fidelity_phase)
{
	expect_matmul(5);
}

/* matmul_tiles records a phase's MVMULs in the replay buffer for its Dst tile and plays them in
 * the other phases and in the next matmul into the same tile: into another Dst tile, or after
 * an SFPU operation recorded its own sequence there, it must record again. */
Test(compute_kernels, matmul_tiles_into_alternating_dst_tiles_between_sfpu_operations_is_exact)
{
	kernel_param = 0x40000000u;   /* 2.0f */
	expect_matmul(38);
	kernel_param = 0;
}

/* ---- matmul accumulated over K blocks in L1 (pack_reconfig_l1_acc) ---- */

/* a + b in BF16 as the packer's L1 accumulation does it: exact sum, to nearest even (ties away
 * when `away`); the operands here are normal and far from BF16's limits. */
static float bf16_add(float a, float b, bool away)
{
	double x = (double)a + b;
	if (x == 0)
		return 0;
	double ulp = ldexp(1, ilogb(x) - 7), q = x / ulp;
	return (float)((away ? copysign(floor(fabs(q) + 0.5), q) : nearbyint(q)) * ulp);
}

/* Out = sum over K blocks t of in0[t] @ in1[t]: each block's HiFi4 matmul (exact in the FP32 Dst)
 * is packed as Float16_b (rounded, ties away: the packer's early conversion) or Float32, the first
 * block overwriting the output tile, every later one added to it in L1 (BF16: rounded to nearest
 * even; FP32: exact here). Ties occur, so rounding them away, or overwriting, fails. */
static void expect_matmul_l1acc(uint32_t out_fmt)
{
	enum { K = TILES };
	for (unsigned t = 0; t < K; t++)
		for (unsigned k = 0; k < 1024; k++) {
			in0[t][k] = (uint16_t)(0x3F80 + (k * 37 + t * 11) % 128) | (uint16_t)(k % 5 == 0 ? 0x8000 : 0);
			in1[t][k] = (uint16_t)(0x3F80 + (k * 53 + t * 7) % 128) | (uint16_t)(k % 7 == 3 ? 0x8000 : 0);
		}
	static uint32_t out32[1024];
	kernel_param = 0;
	run_kernel_fmt(39, K, 5, out_fmt, 5, in0, sizeof in0, in1, sizeof in1, out32, out_fmt == 5 ? 2048 : 4096);
	unsigned ties = 0;
	for (unsigned r = 0; r < 32; r++)
		for (unsigned c = 0; c < 32; c++) {
			float want = 0, away = 0;
			double wide = 0;
			for (unsigned t = 0; t < K; t++) {
				double acc = 0;
				for (unsigned k = 0; k < 32; k++)
					acc += (double)f_of((uint32_t)in0[t][at(r, k)] << 16) * f_of((uint32_t)in1[t][at(k, c)] << 16);
				wide += acc;
				float p = out_fmt == 5 ? bf16_round_away(acc) : (float)acc;
				want = t ? (out_fmt == 5 ? bf16_add(want, p, false) : want + p) : p;
				away = t ? (out_fmt == 5 ? bf16_add(away, p, true) : away + p) : p;
			}
			ties += want != away;
			float got = out_fmt == 5 ? f_of((uint32_t)((const uint16_t *)out32)[at(r, c)] << 16) : f_of(out32[at(r, c)]);
			cr_assert_eq(got, want, "fmt %u C[%u][%u]: %a want %a (exact %a)", out_fmt, r, c, got, want, wide);
			if (out_fmt == 0)
				cr_assert_eq((double)got, wide, "FP32 C[%u][%u] is exact", r, c);
		}
	if (out_fmt == 5)
		cr_assert_gt(ties, 5, "ties to even and away differ on %u datums only", ties);
}

Test(compute_kernels, matmul_accumulated_over_k_blocks_in_l1_is_exact_in_bf16_and_fp32)
{
	expect_matmul_l1acc(5);
	expect_matmul_l1acc(0);
}

/* ---- SFPU unary operations (enum compute_unary of firmware/compute/compute.h) ---- */

enum { U_ADD, U_SUB, U_MUL, U_RELU, U_LEAKY, U_ABS, U_NEG, U_SIGN, U_EXP, U_LOG, U_RECIP, U_SQRT, U_RSQRT, U_SIGMOID,
       U_TANH, U_GELU, U_GTZ, U_LTZ, U_GEZ, U_LEZ, U_EQZ, U_NEZ, U_WHERE };

static uint32_t fbits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* Inputs: multiples of 1/32 in [-8, 8) (some exact zeros and -0), or, for positive domains,
 * multiples of 1/32 in (0, 8]. */
static void fill_unary(bool positive)
{
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned k = 0; k < 1024; k++) {
			unsigned v = (k * 37 + t * 11) % 512;
			in0[t][k] = positive ? bf16_exact((double)(v % 256 + 1) / 32) : bf16_exact(((double)v - 256) / 32);
			if (!positive && k % 97 == 5)
				in0[t][k] = 0x8000;   /* -0 */
		}
}

/* Run unary u over TILES tiles; each output within abs_tol + rel_tol |want| of ref(x), or (both
 * tolerances 0) equal to ref(x) rounded to BF16 (to nearest, ties away). */
static void expect_unary(unsigned u, float param, bool positive, double (*ref)(double, double), double abs_tol,
			 double rel_tol)
{
	fill_unary(positive);
	kernel_param = fbits(param);
	run_kernel(6 + u, TILES, 5, in0, NULL, 0, &out[0][0]);
	kernel_param = 0;
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned k = 0; k < 1024; k++) {
			double x = f_of((uint32_t)in0[t][k] << 16), want = ref(x, param);
			double got = f_of((uint32_t)out[t][k] << 16);
			if (abs_tol == 0 && rel_tol == 0)
				cr_assert_eq(got, bf16_round_away(want), "op %u tile %u datum %u: f(%g) = %g want %g", u, t, k, x,
					     got, bf16_round_away(want));
			else
				cr_assert_leq(fabs(got - want), abs_tol + rel_tol * fabs(want),
					      "op %u tile %u datum %u: f(%g) = %.8g want %.8g", u, t, k, x, got, want);
		}
}

static double r_add(double x, double p) { return x + p; }
static double r_sub(double x, double p) { return x - p; }
static double r_mul(double x, double p) { return x * p; }
static double r_relu(double x, double p) { (void)p; return x > 0 ? x : 0; }
static double r_leaky(double x, double p) { return x < 0 ? x * p : x; }
static double r_abs(double x, double p) { (void)p; return fabs(x); }
static double r_neg(double x, double p) { (void)p; return -x; }
static double r_sign(double x, double p) { (void)p; return x > 0 ? 1 : x < 0 ? -1 : 0; }
static double r_exp(double x, double p) { (void)p; return exp(x); }
static double r_log(double x, double p) { (void)p; return log(x); }
static double r_recip(double x, double p) { (void)p; return 1 / x; }
static double r_sqrt(double x, double p) { (void)p; return sqrt(x); }
static double r_rsqrt(double x, double p) { (void)p; return 1 / sqrt(x); }
static double r_sigmoid(double x, double p) { (void)p; return 1 / (1 + exp(-x)); }
static double r_tanh(double x, double p) { (void)p; return tanh(x); }
static double r_gelu(double x, double p) { (void)p; return 0.5 * x * (1 + erf(x / sqrt(2))); }
static double r_gtz(double x, double p) { (void)p; return x > 0; }
static double r_ltz(double x, double p) { (void)p; return x < 0; }
static double r_gez(double x, double p) { (void)p; return x >= 0; }
static double r_lez(double x, double p) { (void)p; return x <= 0; }
static double r_eqz(double x, double p) { (void)p; return x == 0; }
static double r_nez(double x, double p) { (void)p; return x != 0; }

#define BF16_REL (1.0 / 256)   /* BF16 rounding (2^-9) plus the approximation's error */

Test(compute_sfpu, scalar_add_sub_mul_round_once_to_bf16)
{
	expect_unary(U_ADD, 1.0f, false, r_add, 0, 0);
	expect_unary(U_SUB, 0.40625f, false, r_sub, 0, 0);
	expect_unary(U_MUL, -0.75f, false, r_mul, 0, 0);
}

Test(compute_sfpu, relu_leaky_abs_neg_sign_are_exact)
{
	expect_unary(U_RELU, 0, false, r_relu, 0, 0);
	expect_unary(U_LEAKY, 0.125f, false, r_leaky, 0, 0);
	expect_unary(U_ABS, 0, false, r_abs, 0, 0);
	expect_unary(U_NEG, 0, false, r_neg, 0, 0);
	expect_unary(U_SIGN, 0, false, r_sign, 0, 0);
}

Test(compute_sfpu, comparisons_with_zero_give_one_or_zero)
{
	static const struct { unsigned u; double (*ref)(double, double); } v[] = {
		{ U_GTZ, r_gtz }, { U_LTZ, r_ltz }, { U_GEZ, r_gez }, { U_LEZ, r_lez }, { U_EQZ, r_eqz }, { U_NEZ, r_nez },
	};
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
		expect_unary(v[k].u, 0, false, v[k].ref, 0, 0);
}

Test(compute_sfpu, exp_log_recip_sqrt_rsqrt_within_bf16)
{
	expect_unary(U_EXP, 0, false, r_exp, 0, BF16_REL);
	expect_unary(U_LOG, 0, true, r_log, 1e-6, BF16_REL);
	expect_unary(U_RECIP, 0, true, r_recip, 0, BF16_REL);
	expect_unary(U_SQRT, 0, true, r_sqrt, 0, BF16_REL);
	expect_unary(U_RSQRT, 0, true, r_rsqrt, 0, BF16_REL);
}

Test(compute_sfpu, sigmoid_tanh_gelu_within_bf16)
{
	expect_unary(U_SIGMOID, 0, false, r_sigmoid, 1e-6, BF16_REL);
	expect_unary(U_TANH, 0, false, r_tanh, 1e-6, BF16_REL);
	expect_unary(U_GELU, 0, false, r_gelu, 1e-3, BF16_REL);
}

/* The GELU example: gelu_tile over 32 tiles (32768 datums, multiples of 1/32 in [-8, 8)) against
 * the host's erf definition. */
Test(compute_sfpu, gelu_over_32_tiles_matches_the_host)
{
	enum { T = 32 };
	static uint16_t gin[T][1024], gout[T][1024];
	for (unsigned t = 0; t < T; t++)
		for (unsigned k = 0; k < 1024; k++)
			gin[t][k] = bf16_exact(((double)((k * 3 + t * 37) % 512) - 256) / 32);
	run_kernel(6 + U_GELU, T, 5, gin, NULL, 0, &gout[0][0]);
	for (unsigned t = 0; t < T; t++)
		for (unsigned k = 0; k < 1024; k++) {
			double x = f_of((uint32_t)gin[t][k] << 16), want = r_gelu(x, 0), got = f_of((uint32_t)gout[t][k] << 16);
			cr_assert_leq(fabs(got - want), 1e-3 + BF16_REL * fabs(want), "tile %u datum %u: gelu(%g) = %.8g want %.8g",
				      t, k, x, got, want);
		}
}

/* where(in0 > 0, in1, in0) through three Dst tiles, gtz_tile and where_tile. (-0 reaches Dst as
 * +0: MOVA2D flushes zero exponents while ALU_ACC_CTRL_Zero_Flag_disabled_src is clear.) */
Test(compute_sfpu, where_selects_per_datum)
{
	fill_unary(false);
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned k = 0; k < 1024; k++)
			in1[t][k] = bf16_exact((double)((k * 5 + t) % 16) / 2 - 4);
	run_kernel(6 + U_WHERE, TILES, 5, in0, in1, sizeof in1, &out[0][0]);
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned k = 0; k < 1024; k++) {
			uint16_t want = f_of((uint32_t)in0[t][k] << 16) > 0 ? in1[t][k] : in0[t][k] == 0x8000 ? 0 : in0[t][k];
			cr_assert_eq(out[t][k], want, "tile %u datum %u: 0x%04x want 0x%04x", t, k, out[t][k], want);
		}
}

/* ---- a 32-bit Dst: integer and bitwise operations, typecasts (enum compute_int_unary) ----
 * Each runs as copy_tile (Int32/UInt32/Float32 tiles unpacked straight into Dst, Float16_b through
 * SrcA) + the SFPU sequence + pack_tile, over T32 tiles; every output datum exact against the
 * host's arithmetic of the documented behaviour. */

#define OP_DST32 40u
#define T32 6
enum { F_FP32 = 0, F_BF16 = 5, F_INT32 = 8, F_UINT32 = 24 };
enum { I_AND, I_OR, I_XOR, I_NOT, I_SHL, I_SHR, I_ADD, I_SUB, I_ABS, I_NEG, I_EQZ, I_NEZ, I_LTZ, I_GTZ, I_LEZ, I_GEZ,
       C_I32_F32, C_U32_F32, C_I32_BF16, C_U32_BF16, C_F32_I32, C_F32_U32, C_F32_BF16 };

static uint32_t w_in[T32][1024], w_out[T32][1024];
static uint16_t h_out[T32][1024];

/* Integers with the corners: 0, +-1, INT_MIN, INT_MAX, values around 2^24 and 2^31, the rest from
 * an LCG. */
static void fill_ints(void)
{
	static const uint32_t edge[] = { 0, 1, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x01000001u, 0xFEFFFFFFu,
					 0x01000003u, 0x7FFFFFC0u, 0x7FFFFFBFu, 0x80000001u, 0xFFFFFF80u, 0x00FFFFFFu };
	uint32_t x = 12345;
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			x = x * 1664525u + 1013904223u;
			unsigned e = (k * 7 + t) % 64;
			w_in[t][k] = e < sizeof edge / sizeof edge[0] ? edge[e] : k % 3 ? x : x >> (k % 29);
		}
}

/* Floats: +-0, +-0.5, +-1.5, -2.7, 2^24 + 1 neighbours, 2^31 and around, 2^32, 1e10, infinities,
 * NaNs of both signs, a denormal, the largest float, and LCG patterns with exponents -4..40. */
static void fill_floats(void)
{
	static const uint32_t edge[] = { 0, 0x80000000u, 0x3F000000u, 0xBF000000u, 0x3FC00000u, 0xBFC00000u, 0xC02CCCCDu,
					 0x4B800001u, 0x4EFFFFFFu, 0x4F000000u, 0xCF000000u, 0xCF000001u, 0x4F7FFFFFu,
					 0x4F800000u, 0x501502F9u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
					 0x00000001u, 0x7F7FFFFFu, 0x3F808000u, 0x3F818000u, 0x3F80C000u, 0xBF808001u };
	uint32_t x = 777;
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			x = x * 1664525u + 1013904223u;
			unsigned e = (k * 5 + t) % 80;
			w_in[t][k] = e < sizeof edge / sizeof edge[0] ? edge[e]
				     : (x & 0x807FFFFFu) | (uint32_t)(123 + (x >> 8) % 45) << 23;
		}
}

/* BF16 round to nearest, ties to even, by the bits (tt-llk's method: + 0x7FFF + the kept lsb). */
static uint32_t bf16_rne_bits(uint32_t b)
{
	return (b + 0x7FFFu + (b >> 16 & 1)) & 0xFFFF0000u;
}

/* The packer's early conversion of a 32-bit Dst datum to BF16 (rounding): an exact BF16 stays,
 * except NaN (infinity), denormals and -0 (+0). */
static uint16_t pack_bf16(uint32_t b)
{
	uint32_t e = b >> 23 & 0xFF;
	if (e == 255)
		return (uint16_t)(b >> 16 & 0x8000u) | 0x7F80u;
	if (e == 0)
		return 0;
	uint32_t m = b & 0x7FFFFFFFu;   /* nearest, ties away, of the magnitude */
	return (uint16_t)((b & 0x80000000u) >> 16 | ((m + 0x8000u) >> 16));
}

static uint32_t u_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

static uint32_t ref_int(unsigned op, uint32_t x, uint32_t p)
{
	int32_t v = (int32_t)x;
	switch (op) {
	case I_AND: return x & p;
	case I_OR: return x | p;
	case I_XOR: return x ^ p;
	case I_NOT: return ~x;
	case I_SHL: return x << (p & 31);
	case I_SHR: return (uint32_t)(v < 0 ? ~(~v >> (p & 31)) : v >> (p & 31));
	case I_ADD: return x + p;
	case I_SUB: return x - p;
	case I_ABS: return v < 0 && x != 0x80000000u ? 0u - x : x;
	case I_NEG: return 0u - x;
	case I_EQZ: return v == 0;
	case I_NEZ: return v != 0;
	case I_LTZ: return v < 0;
	case I_GTZ: return v > 0;
	case I_LEZ: return v <= 0;
	default: return v >= 0;
	}
}

/* Integer op over the integer tiles, Int32 in and out. */
static void expect_int(unsigned op, uint32_t param)
{
	fill_ints();
	kernel_param = param;
	run_kernel_fmt(OP_DST32 + 1 + op, T32, F_INT32, F_INT32, 5, w_in, sizeof w_in, NULL, 0, w_out, sizeof w_out);
	kernel_param = 0;
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(w_out[t][k], ref_int(op, w_in[t][k], param), "op %u (%#x) tile %u datum %u: f(%#x) = %#x want %#x",
				     op, param, t, k, w_in[t][k], w_out[t][k], ref_int(op, w_in[t][k], param));
}

Test(compute_int, int32_and_uint32_tiles_pass_through_dst_unchanged)
{
	fill_ints();
	run_kernel_fmt(OP_DST32, T32, F_INT32, F_INT32, 5, w_in, sizeof w_in, NULL, 0, w_out, sizeof w_out);
	cr_assert_eq(memcmp(w_out, w_in, sizeof w_out), 0);
	run_kernel_fmt(OP_DST32, T32, F_UINT32, F_UINT32, 5, w_in, sizeof w_in, NULL, 0, w_out, sizeof w_out);
	cr_assert_eq(memcmp(w_out, w_in, sizeof w_out), 0);
	fill_floats();   /* FP32 too, NaNs and denormals included (identity conversions) */
	run_kernel_fmt(OP_DST32, T32, F_FP32, F_FP32, 5, w_in, sizeof w_in, NULL, 0, w_out, sizeof w_out);
	cr_assert_eq(memcmp(w_out, w_in, sizeof w_out), 0);
}

Test(compute_int, bitwise_and_or_xor_not_are_exact)
{
	expect_int(I_AND, 0x0F0F00FFu);
	expect_int(I_OR, 0x80000001u);
	expect_int(I_XOR, 0xDEADBEEFu);
	expect_int(I_NOT, 0);
}

Test(compute_int, left_and_arithmetic_right_shifts_are_exact)
{
	static const uint32_t amounts[] = { 0, 1, 7, 31 };
	for (unsigned k = 0; k < 4; k++) {
		expect_int(I_SHL, amounts[k]);
		expect_int(I_SHR, amounts[k]);
	}
}

Test(compute_int, add_sub_abs_negative_wrap_as_two_s_complement)
{
	expect_int(I_ADD, 12345);
	expect_int(I_ADD, 0x7FFFFFFFu);
	expect_int(I_SUB, (uint32_t)-7);
	expect_int(I_SUB, 0x80000000u);
	expect_int(I_ABS, 0);
	expect_int(I_NEG, 0);
}

Test(compute_int, comparisons_with_zero_give_integer_one_or_zero)
{
	for (unsigned op = I_EQZ; op <= I_GEZ; op++)
		expect_int(op, 0);
}

/* int32 / uint32 -> fp32: SFPCAST rounds to nearest even; uint32 adds 2^31 with a second rounding. */
static uint32_t ref_to_f32(unsigned op, uint32_t x)
{
	if (op == C_I32_F32 || op == C_I32_BF16)
		return u_of((float)(int32_t)x);
	float f = (float)(x & 0x7FFFFFFFu);
	if (x >> 31)
		f = f + 2147483648.0f;
	return u_of(f);
}

Test(compute_int, int32_and_uint32_to_float32_round_to_nearest_even)
{
	fill_ints();
	for (unsigned op = C_I32_F32; op <= C_U32_F32; op++) {
		run_kernel_fmt(OP_DST32 + 1 + op, T32, op == C_I32_F32 ? F_INT32 : F_UINT32, F_FP32, 5, w_in, sizeof w_in, NULL,
			       0, w_out, sizeof w_out);
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq(w_out[t][k], ref_to_f32(op, w_in[t][k]), "op %u tile %u: %#x -> %#x want %#x", op, t,
					     w_in[t][k], w_out[t][k], ref_to_f32(op, w_in[t][k]));
	}
}

Test(compute_int, int32_and_uint32_to_bfloat16_round_twice)
{
	fill_ints();
	for (unsigned op = C_I32_BF16; op <= C_U32_BF16; op++) {
		run_kernel_fmt(OP_DST32 + 1 + op, T32, op == C_I32_BF16 ? F_INT32 : F_UINT32, F_BF16, 5, w_in, sizeof w_in, NULL,
			       0, h_out, sizeof h_out);
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++) {
				/* SFP_STOCH_RND to BF16: nearest, ties away from zero, of the FP32 conversion */
				uint32_t f = ref_to_f32(op - 2, w_in[t][k]);
				uint16_t want = pack_bf16((f + 0x8000u) & 0xFFFF0000u);
				cr_assert_eq(h_out[t][k], want, "op %u tile %u: %#x -> %#x want %#x", op, t, w_in[t][k], h_out[t][k],
					     want);
			}
	}
}

/* fp32 -> int32 / uint32: truncation; out of range, infinities and NaN as tt-llk's sequence
 * leaves them (int32: INT_MIN; uint32: negative 0, too large and +NaN all ones). */
static uint32_t ref_f32_to_int(bool to_unsigned, uint32_t b)
{
	float f;
	memcpy(&f, &b, 4);
	int e = (int)(b >> 23 & 0xFF) - 127;
	if (to_unsigned) {
		if (b >> 31)
			return 0;
		if (e >= 32)
			return 0xFFFFFFFFu;
		return e < 0 ? 0 : (uint32_t)f;
	}
	if (e >= 31)
		return 0x80000000u;
	return e < 0 ? 0 : (uint32_t)(int32_t)f;
}

Test(compute_int, float32_and_bfloat16_to_int32_and_uint32_truncate)
{
	for (unsigned bf = 0; bf < 2; bf++) {
		fill_floats();
		static uint16_t h_in[T32][1024];
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++) {
				h_in[t][k] = (uint16_t)(w_in[t][k] >> 16);
				if (bf && !(h_in[t][k] & 0x7F80u))   /* the move from SrcA flushes zero exponents to +0 */
					h_in[t][k] = 0;
				if (bf)
					w_in[t][k] = (uint32_t)h_in[t][k] << 16;
			}
		for (unsigned op = C_F32_I32; op <= C_F32_U32; op++) {
			uint32_t out_fmt = op == C_F32_I32 ? F_INT32 : F_UINT32;
			if (bf)
				run_kernel_fmt(OP_DST32 + 1 + op, T32, F_BF16, out_fmt, 5, h_in, sizeof h_in, NULL, 0, w_out,
					       sizeof w_out);
			else
				run_kernel_fmt(OP_DST32 + 1 + op, T32, F_FP32, out_fmt, 5, w_in, sizeof w_in, NULL, 0, w_out,
					       sizeof w_out);
			for (unsigned t = 0; t < T32; t++)
				for (unsigned k = 0; k < 1024; k++) {
					uint32_t want = ref_f32_to_int(op == C_F32_U32, w_in[t][k]);
					cr_assert_eq(w_out[t][k], want, "bf16 %u op %u tile %u: %#x -> %#x want %#x", bf, op, t,
						     w_in[t][k], w_out[t][k], want);
				}
		}
	}
}

Test(compute_int, float32_to_bfloat16_rounds_to_nearest_even_and_bfloat16_to_float32_is_exact)
{
	fill_floats();
	run_kernel_fmt(OP_DST32 + 1 + C_F32_BF16, T32, F_FP32, F_BF16, 5, w_in, sizeof w_in, NULL, 0, h_out, sizeof h_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			uint32_t b = w_in[t][k];
			uint16_t want = pack_bf16(bf16_rne_bits(b));
			if ((b >> 23 & 0xFF) == 0)
				continue;   /* denormal inputs: SFPSTORE's flush, then the packer's: both zero, sign unchecked */
			cr_assert_eq(h_out[t][k], want, "tile %u: %#x -> %#x want %#x", t, b, h_out[t][k], want);
		}
	/* Float16_b -> Float32: SrcA (TF32) to a 32-bit Dst and out, no SFPU work. */
	static uint16_t h_in[T32][1024];
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			h_in[t][k] = (uint16_t)(w_in[t][k] >> 16);
	run_kernel_fmt(OP_DST32, T32, F_BF16, F_FP32, 5, h_in, sizeof h_in, NULL, 0, w_out, sizeof w_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			uint32_t want = h_in[t][k] & 0x7F80u ? (uint32_t)h_in[t][k] << 16 : 0;
			cr_assert_eq(w_out[t][k], want, "tile %u: %#x -> %#x want %#x", t, h_in[t][k], w_out[t][k], want);
		}
}

/* ---- UInt16 tiles (a 16-bit Dst, MOD0_FMT_UINT16) and UInt8 outputs (the packer) ---- */

#define OP_DST16 80u
enum { F_UINT16 = 9, F_UINT8 = 30, C_F32_U16 = C_F32_BF16 + 1 };

static uint16_t u16_in[T32][1024], u16_out[T32][1024];
static uint8_t u8_out[T32][1024];

static void expect_u16(unsigned op, uint32_t param)
{
	uint32_t x = 99;
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			x = x * 1664525u + 1013904223u;
			u16_in[t][k] = k % 17 == 0 ? 0 : k % 17 == 1 ? 0xFFFF : k % 17 == 2 ? 0x8000 : (uint16_t)(x >> 16);
		}
	kernel_param = param;
	run_kernel_fmt(OP_DST16 + 1 + op, T32, F_UINT16, F_UINT16, 5, u16_in, sizeof u16_in, NULL, 0, u16_out, sizeof u16_out);
	kernel_param = 0;
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			uint16_t want = (uint16_t)ref_int(op, u16_in[t][k], param);   /* zero-extended, the low 16 bits kept */
			cr_assert_eq(u16_out[t][k], want, "op %u (%#x) tile %u datum %u: f(%#x) = %#x want %#x", op, param, t, k,
				     u16_in[t][k], u16_out[t][k], want);
		}
}

Test(compute_int, uint16_bitwise_shift_add_ops_keep_sixteen_bits)
{
	expect_u16(I_AND, 0x0FF0u);
	expect_u16(I_OR, 0x8001u);
	expect_u16(I_XOR, 0xA5A5u);
	expect_u16(I_NOT, 0);
	expect_u16(I_SHL, 3);
	expect_u16(I_SHR, 5);   /* zero-extended: arithmetic and logical agree */
	expect_u16(I_ADD, 0xFFF0u);
	expect_u16(I_SUB, 1000);
	expect_u16(I_EQZ, 0);
	expect_u16(I_NEZ, 0);
}

/* SFP_STOCH_RND FP32 -> UINT16 of max(x, 0): to nearest (ties away), saturating at 65535. */
static uint16_t ref_bf16_to_u16(uint16_t h)
{
	uint32_t b = (uint32_t)h << 16;
	if ((h & 0x8000u) || !(h & 0x7F80u))
		return 0;   /* max(x, 0), and denormals flushed by the move from SrcA */
	int e = (int)(b >> 23 & 0xFF) - 127;
	if (e >= 16)
		return 0xFFFF;
	if (e < -1)
		return 0;
	float f;
	memcpy(&f, &b, 4);
	double r = floor((double)f + 0.5);
	return r > 65535 ? 0xFFFF : (uint16_t)r;
}

Test(compute_int, uint16_and_bfloat16_typecasts)
{
	/* UInt16 -> Float16_b: SFPCAST (exact below 2^24), SFP_STOCH_RND to BF16: ties away. */
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			u16_in[t][k] = (uint16_t)(k * 67 + t * 4099 + (k % 5 == 0 ? 0x0180 : 0));
	u16_in[0][3] = 0xFFFF;
	u16_in[0][4] = 0x0181;   /* 385: ties between 384 and 386 -> 386 (away) */
	u16_in[0][5] = 0x0183;   /* 387 -> 388 */
	run_kernel_fmt(OP_DST16 + 1 + C_I32_BF16, T32, F_UINT16, F_BF16, 5, u16_in, sizeof u16_in, NULL, 0, u16_out,
		       sizeof u16_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			uint32_t f = u_of((float)u16_in[t][k]);
			uint16_t want = (uint16_t)((f + 0x8000u) >> 16);
			cr_assert_eq(u16_out[t][k], want, "tile %u: %u -> %#x want %#x", t, u16_in[t][k], u16_out[t][k], want);
		}
	cr_assert_eq(u16_out[0][4], 0x43C1);   /* 386 */
	/* Float16_b -> UInt16. */
	fill_floats();
	static uint16_t h_in[T32][1024];
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			h_in[t][k] = (uint16_t)(w_in[t][k] >> 16);
	h_in[0][0] = 0x3FC0;   /* 1.5 -> 2 */
	h_in[0][1] = 0x4020;   /* 2.5 -> 3 (ties away) */
	h_in[0][2] = 0x3EFF;   /* just below 0.5 -> 0 */
	h_in[0][3] = 0x477F;   /* 65280 */
	h_in[0][4] = 0x4780;   /* 65536 -> 65535 */
	run_kernel_fmt(OP_DST16 + 1 + C_F32_U16, T32, F_BF16, F_UINT16, 5, h_in, sizeof h_in, NULL, 0, u16_out, sizeof u16_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(u16_out[t][k], ref_bf16_to_u16(h_in[t][k]), "tile %u: %#x -> %u want %u", t, h_in[t][k],
				     u16_out[t][k], ref_bf16_to_u16(h_in[t][k]));
	cr_assert_eq(u16_out[0][1], 3);
	cr_assert_eq(u16_out[0][4], 65535);
}

/* UInt8 out of a 32-bit Dst: the packer rounds and saturates Integer "32" (its sign-magnitude
 * reading) to 0..255: two's complement negatives have the sign bit, so they become 0. */
static uint8_t ref_u8(uint32_t x)
{
	return x >> 31 ? 0 : x > 255 ? 255 : (uint8_t)x;
}

Test(compute_int, int32_and_float32_to_uint8_saturate_in_the_packer)
{
	fill_ints();
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k += 3)
			w_in[t][k] = w_in[t][k] % 300;   /* plenty in range */
	run_kernel_fmt(OP_DST32, T32, F_INT32, F_UINT8, 5, w_in, sizeof w_in, NULL, 0, u8_out, sizeof u8_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(u8_out[t][k], ref_u8(w_in[t][k]), "tile %u: %#x -> %u want %u", t, w_in[t][k], u8_out[t][k],
				     ref_u8(w_in[t][k]));
	fill_floats();
	run_kernel_fmt(OP_DST32 + 1 + C_F32_I32, T32, F_FP32, F_UINT8, 5, w_in, sizeof w_in, NULL, 0, u8_out, sizeof u8_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			uint8_t want = ref_u8(ref_f32_to_int(false, w_in[t][k]));
			cr_assert_eq(u8_out[t][k], want, "tile %u: %#x -> %u want %u", t, w_in[t][k], u8_out[t][k], want);
		}
}

/* The float unary operations on a 32-bit Dst keep FP32 (no BF16 rounding): Float32 tiles in and
 * out, against libm within the approximations' documented error (compute.h) and FP32's. */
#define OP_DST32F 120u

static void expect_unary_fp32(unsigned u, bool positive, double (*ref)(double, double), double abs_tol, double rel_tol)
{
	static float fin[T32][1024], fout[T32][1024];
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			double v = ((double)((k * 37 + t * 11) % 4096) + 0.3) / 512;   /* (0, 8) */
			fin[t][k] = (float)(positive ? v : v * ((k & 1) ? 1 : -1));
		}
	run_kernel_fmt(OP_DST32F + u, T32, F_FP32, F_FP32, 5, fin, sizeof fin, NULL, 0, fout, sizeof fout);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			double x = fin[t][k], want = ref(x, 0);
			cr_assert_leq(fabs(fout[t][k] - want), abs_tol + rel_tol * fabs(want), "op %u: f(%.9g) = %.9g want %.9g", u,
				      x, fout[t][k], want);
		}
}

Test(compute_sfpu, exp_recip_sqrt_tanh_on_a_fp32_dst_keep_fp32_precision)
{
	expect_unary_fp32(U_EXP, false, r_exp, 0, 2e-6);
	expect_unary_fp32(U_RECIP, true, r_recip, 0, 2e-6);
	expect_unary_fp32(U_SQRT, true, r_sqrt, 0, 2e-6);
	expect_unary_fp32(U_TANH, false, r_tanh, 2e-6, 2e-6);
}

/* ---- narrow integer tiles: Int8/UInt8 inputs, Int8 outputs, UInt16 with a 32-bit Dst ----
 * copy_tile + typecast_tile(in, out) + pack_tile (OP_TYPECAST), a 32-bit Dst when dst32. Int8 in L1
 * is sign-magnitude (0x80 is -0); every output datum exact against the host's arithmetic of the
 * behaviour compute.h lists. */

#define OP_TYPECAST 160u
enum { F_INT8 = 14 };

static uint8_t b_in[T32][1024], b_out[T32][1024];
static float f_out[T32][1024];

static void run_typecast(bool dst32, uint32_t in_fmt, uint32_t out_fmt, const void *src, size_t src_bytes, void *dst,
			 size_t dst_bytes)
{
	kernel_param = dst32;
	run_kernel_fmt(OP_TYPECAST, T32, in_fmt, out_fmt, 5, src, src_bytes, NULL, 0, dst, dst_bytes);
	kernel_param = 0;
}

/* Irregular bytes: every tile holds all 256 values, in a different order each tile. */
static void fill_bytes(void)
{
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			b_in[t][k] = (uint8_t)(k * 37 + (k >> 8) * 11 + t * 101);
}

static int32_t int8_value(uint8_t b, bool is_unsigned)
{
	return is_unsigned ? b : b & 0x80 ? -(int32_t)(b & 0x7F) : (int32_t)(b & 0x7F);
}

/* The packer's INT8 of a sign-magnitude Integer "32": saturated to -127..127. */
static uint8_t ref_i8_of_int(uint32_t x)
{
	if (x == 0x80000000u)
		return 0x80;   /* SFPCAST: INT_MIN is -0 in sign-magnitude */
	int32_t v = (int32_t)x;
	uint32_t m = v < 0 ? 0u - x : x;
	return (uint8_t)((v < 0 ? 0x80u : 0) | (m > 127 ? 127 : m));
}

static uint16_t ref_u16_of_int(int64_t v)
{
	return v < 0 ? 0 : v > 65535 ? 0xFFFF : (uint16_t)v;
}

/* SFP_STOCH_RND FP32 -> UINT16 of max(x, 0): to nearest (ties away), saturating. */
static uint16_t ref_u16_of_f32(uint32_t b)
{
	if (b >> 31)
		return 0;
	unsigned e = b >> 23 & 0xFF;
	if (e >= 127 + 16)
		return 0xFFFF;   /* also infinity and NaN */
	float f;
	memcpy(&f, &b, 4);
	double r = floor((double)f + 0.5);
	return r > 65535 ? 0xFFFF : (uint16_t)r;
}

Test(compute_narrow, int8_and_uint8_tiles_widen_into_a_32_bit_dst)
{
	fill_bytes();
	for (unsigned u = 0; u < 2; u++) {
		uint32_t f = u ? F_UINT8 : F_INT8;
		run_typecast(true, f, F_INT32, b_in, sizeof b_in, w_out, sizeof w_out);   /* 1024-byte tiles */
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq((int32_t)w_out[t][k], int8_value(b_in[t][k], u), "uint %u tile %u datum %u: %#x -> %d",
					     u, t, k, b_in[t][k], (int32_t)w_out[t][k]);
		run_typecast(true, f, F_FP32, b_in, sizeof b_in, f_out, sizeof f_out);
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq(u_of(f_out[t][k]), u_of((float)int8_value(b_in[t][k], u)), "uint %u: %#x -> %g", u,
					     b_in[t][k], f_out[t][k]);
		run_typecast(true, f, F_BF16, b_in, sizeof b_in, h_out, sizeof h_out);
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq(h_out[t][k], u_of((float)int8_value(b_in[t][k], u)) >> 16, "uint %u: %#x -> %#x", u,
					     b_in[t][k], h_out[t][k]);
		run_typecast(true, f, F_UINT16, b_in, sizeof b_in, u16_out, sizeof u16_out);
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq(u16_out[t][k], ref_u16_of_int(int8_value(b_in[t][k], u)), "uint %u: %#x -> %u", u,
					     b_in[t][k], u16_out[t][k]);
		run_typecast(true, f, F_UINT8, b_in, sizeof b_in, b_out, sizeof b_out);   /* negative -> 0 */
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq(b_out[t][k], (uint8_t)ref_u16_of_int(int8_value(b_in[t][k], u)), "uint %u: %#x -> %#x",
					     u, b_in[t][k], b_out[t][k]);
		run_typecast(true, f, F_INT8, b_in, sizeof b_in, b_out, sizeof b_out);   /* -0 -> 0, > 127 -> 127 */
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq(b_out[t][k], ref_i8_of_int((uint32_t)int8_value(b_in[t][k], u)), "uint %u: %#x -> %#x",
					     u, b_in[t][k], b_out[t][k]);
	}
}

Test(compute_narrow, int8_and_uint8_tiles_in_a_16_bit_dst)
{
	fill_bytes();
	for (unsigned u = 0; u < 2; u++) {
		uint32_t f = u ? F_UINT8 : F_INT8;
		run_typecast(false, f, F_BF16, b_in, sizeof b_in, h_out, sizeof h_out);   /* -0.0 packs as +0 */
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq(h_out[t][k], u_of((float)int8_value(b_in[t][k], u)) >> 16, "uint %u: %#x -> %#x", u,
					     b_in[t][k], h_out[t][k]);
		run_typecast(false, f, F_UINT16, b_in, sizeof b_in, u16_out, sizeof u16_out);   /* -1 -> 65535 */
		for (unsigned t = 0; t < T32; t++)
			for (unsigned k = 0; k < 1024; k++)
				cr_assert_eq(u16_out[t][k], (uint16_t)int8_value(b_in[t][k], u), "uint %u: %#x -> %#x", u, b_in[t][k],
					     u16_out[t][k]);
	}
	cr_assert_eq(u16_out[0][0], 0);
}

Test(compute_narrow, int32_float32_and_bfloat16_to_int8_saturate)
{
	fill_ints();
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k += 2)
			w_in[t][k] = (uint32_t)((int32_t)(w_in[t][k] % 401) - 200);   /* plenty in and around range */
	run_typecast(true, F_INT32, F_INT8, w_in, sizeof w_in, b_out, sizeof b_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(b_out[t][k], ref_i8_of_int(w_in[t][k]), "tile %u: %d -> %#x want %#x", t, (int32_t)w_in[t][k],
				     b_out[t][k], ref_i8_of_int(w_in[t][k]));
	fill_floats();
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 1; k < 1024; k += 3)
			w_in[t][k] = u_of((float)((int)(k % 541) - 270) / 2);   /* halves in +-135: truncated */
	run_typecast(true, F_FP32, F_INT8, w_in, sizeof w_in, b_out, sizeof b_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			uint8_t want = ref_i8_of_int(ref_f32_to_int(false, w_in[t][k]));
			cr_assert_eq(b_out[t][k], want, "tile %u: %#x -> %#x want %#x", t, w_in[t][k], b_out[t][k], want);
		}
	static uint16_t h_in[T32][1024];
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			h_in[t][k] = (uint16_t)(w_in[t][k] >> 16);
	run_typecast(true, F_BF16, F_INT8, h_in, sizeof h_in, b_out, sizeof b_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			uint32_t x = (uint32_t)h_in[t][k] << 16;
			if (!(x & 0x7F800000u))
				x &= 0x80000000u;   /* the move from SrcA flushes denormals */
			uint8_t want = ref_i8_of_int(ref_f32_to_int(false, x));
			cr_assert_eq(b_out[t][k], want, "tile %u: %#x -> %#x want %#x", t, h_in[t][k], b_out[t][k], want);
		}
	cr_assert_eq(b_out[0][1], ref_i8_of_int((uint32_t)-135));   /* -135 saturates to -127: 0xFF */
}

Test(compute_narrow, uint16_tiles_with_a_32_bit_dst)
{
	uint32_t x = 4242;
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++) {
			x = x * 1664525u + 1013904223u;
			u16_in[t][k] = k % 13 == 0 ? 0 : k % 13 == 1 ? 0xFFFF : k % 13 == 2 ? 0x8000 : (uint16_t)(x >> 16);
		}
	run_typecast(true, F_UINT16, F_UINT32, u16_in, sizeof u16_in, w_out, sizeof w_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(w_out[t][k], u16_in[t][k], "tile %u datum %u: %#x -> %#x", t, k, u16_in[t][k], w_out[t][k]);
	run_typecast(true, F_UINT16, F_FP32, u16_in, sizeof u16_in, f_out, sizeof f_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(f_out[t][k], (float)u16_in[t][k], "tile %u: %#x -> %g", t, u16_in[t][k], f_out[t][k]);
	run_typecast(true, F_UINT16, F_UINT16, u16_in, sizeof u16_in, u16_out, sizeof u16_out);
	cr_assert_eq(memcmp(u16_out, u16_in, sizeof u16_out), 0);
	/* Int32, UInt32 and Float32 -> UInt16: saturated to 0..65535 (floats rounded, ties away). */
	fill_ints();
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k += 2)
			w_in[t][k] = w_in[t][k] % 70001;
	run_typecast(true, F_INT32, F_UINT16, w_in, sizeof w_in, u16_out, sizeof u16_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(u16_out[t][k], ref_u16_of_int((int32_t)w_in[t][k]), "int32 tile %u: %d -> %u", t,
				     (int32_t)w_in[t][k], u16_out[t][k]);
	run_typecast(true, F_UINT32, F_UINT16, w_in, sizeof w_in, u16_out, sizeof u16_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(u16_out[t][k], ref_u16_of_int(w_in[t][k]), "uint32 tile %u: %u -> %u", t, w_in[t][k],
				     u16_out[t][k]);
	fill_floats();
	w_in[0][1] = u_of(2.5f);       /* ties away: 3 */
	w_in[0][2] = u_of(65535.4f);
	w_in[0][3] = u_of(65535.5f);   /* 65536: saturates */
	run_typecast(true, F_FP32, F_UINT16, w_in, sizeof w_in, u16_out, sizeof u16_out);
	for (unsigned t = 0; t < T32; t++)
		for (unsigned k = 0; k < 1024; k++)
			cr_assert_eq(u16_out[t][k], ref_u16_of_f32(w_in[t][k]), "fp32 tile %u: %#x -> %u want %u", t, w_in[t][k],
				     u16_out[t][k], ref_u16_of_f32(w_in[t][k]));
	cr_assert_eq(u16_out[0][1], 3);
	cr_assert_eq(u16_out[0][3], 0xFFFF);
}
