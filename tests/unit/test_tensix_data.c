/* The Tensix data plane's register files and matrix unit (cores/tensix_data.c): SrcA/SrcB bank
 * hand-over between unpackers and matrix unit (SETDVALID, CLEARDVALID, FlipSrc) gating the
 * matrix unit and STALLWAIT C5-C8; ELWADD/ELWSUB/ELWMUL, MVMUL with fidelity phases, MOVA2D,
 * ZEROACC, ZEROSRC, SETRWC/INCRWC and ADDR_MOD, in 16-bit and 32-bit Dst, against host
 * arithmetic; Blackhole's implied Src formats per consumer. Src contents are placed directly (the
 * unpackers have their own tests); the instructions come from TRISC programs through the real
 * FIFOs. Most tests hand the banks over with SETDVALID, which leaves the implied formats
 * unpredictable: they set every thread's DISABLE_IMPLIED_SRCA/SRCB_FMT (dp_open) and so test the
 * configured formats. */
#include <math.h>
#include <string.h>

#include "cores/tensix.h"
#include "cores/tensix_dp.h"
#include "cores/tensix_fmt.h"
#include "tensix_testlib.h"

#define SETDVALID(ab) TT(0x57, (ab))
#define CLEARDVALID(flip, keep, reset) TT(0x36, (uint32_t)(flip) << 22 | (uint32_t)(keep) << 1 | (reset))
#define ELW(op, flip, acc, bcast, am, dst) \
	TT(op, (uint32_t)(flip) << 22 | (uint32_t)(acc) << 21 | (uint32_t)(bcast) << 19 | (uint32_t)(am) << 14 | (dst))
#define ELWADD(flip, acc, bcast, am, dst) ELW(0x28, flip, acc, bcast, am, dst)
#define ELWSUB(flip, acc, bcast, am, dst) ELW(0x30, flip, acc, bcast, am, dst)
#define ELWMUL(flip, bcast, am, dst) ELW(0x27, flip, 0, bcast, am, dst)
#define MVMUL(flip, am, dst) TT(0x26, (uint32_t)(flip) << 22 | (uint32_t)(am) << 14 | (dst))
#define SETRWC(clr, cr, d, b, a, mask) \
	TT(0x37, (uint32_t)(clr) << 22 | (uint32_t)(cr) << 18 | (uint32_t)(d) << 14 | (uint32_t)(b) << 10 | (uint32_t)(a) << 6 | (mask))
#define INCRWC(cr, d, b, a) TT(0x38, (uint32_t)(cr) << 18 | (uint32_t)(d) << 14 | (uint32_t)(b) << 10 | (uint32_t)(a) << 6)
#define ZEROACC_M(mode, wide, am, imm) TT(0x10, (uint32_t)(mode) << 19 | (uint32_t)(wide) << 18 | (uint32_t)(am) << 14 | (imm))
#define ZEROSRC(neg, single, both, ab) TT(0x11, (uint32_t)(neg) << 4 | (uint32_t)(single) << 3 | (uint32_t)(both) << 2 | (ab))
#define SETC16(reg, v) TT(0xB2, (uint32_t)(reg) << 16 | (v))
#define MOVA2D(row, am, move8, dst) TT(0x12, (uint32_t)(row) << 17 | (uint32_t)(am) << 14 | (uint32_t)(move8) << 13 | (dst))
#define MOVB2D(row, am, four, dst) \
	TT(0x13, (uint32_t)(row) << 17 | (uint32_t)(am) << 14 | (uint32_t)(four) << 13 | (dst))
#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct tt_dp *dp_of(struct bh_device *dev) { return tile0(dev)->tensix->dp; }
static float f_of(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t b_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static uint16_t bf16_of(float f) { return (uint16_t)(b_of(f) >> 16); }   /* f must be exact in BF16 */

static void put_src(struct bh_device *dev, bool b_reg, unsigned bank, unsigned row, unsigned col, uint32_t cell)
{
	struct tt_dp *dp = dp_of(dev);
	atomic_store(b_reg ? &dp->srcb[bank][row][col] : &dp->srca[bank][row][col], cell);
}

static float dst_bf16(struct bh_device *dev, unsigned row, unsigned col)
{
	return f_of((uint32_t)tt_dst_to_bf16(tt_dst16_read(dp_of(dev), row, col)) << 16);
}

static float dst_fp32(struct bh_device *dev, unsigned row, unsigned col)
{
	return f_of(tt_dst_to_fp32(tt_dst32_read(dp_of(dev), row, col)));
}

/* A device whose three threads read the configured ALU formats (DISABLE_IMPLIED_SRCA_FMT and
 * DISABLE_IMPLIED_SRCB_FMT set), as the tests that hand banks over with SETDVALID need. */
static struct bh_device *dp_open(void)
{
	struct bh_device *dev = t_open();
	for (unsigned t = 0; t < BH_TT_THREADS; t++) {
		atomic_store(&tile0(dev)->tensix->th[t].thread_cfg[BH_DP_TCFG_DISABLE_IMPLIED_SRCA], 1u);
		atomic_store(&tile0(dev)->tensix->th[t].thread_cfg[BH_DP_TCFG_DISABLE_IMPLIED_SRCB], 1u);
	}
	return dev;
}

static void set_alu(struct bh_device *dev, uint32_t v)
{
	bh_tensix_cfg_store(tile0(dev), 0, BH_DP_CFG_ALU, v);
}

/* SrcA/SrcB bank 0 rows 0..7 hold a[i][j] = (i*16+j)/4 - 8 and b[i][j] = 3 - j/2 (BF16-exact). */
static float va(unsigned i, unsigned j) { return (float)(i * 16 + j) / 4.f - 8.f; }
static float vb(unsigned i, unsigned j) { (void)i; return 3.f - (float)j / 2.f; }

static void fill_ab(struct bh_device *dev, unsigned bank)
{
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 16; j++) {
			put_src(dev, false, bank, i, j, tt_src_from_bf16(bf16_of(va(i, j))));
			put_src(dev, true, bank, i, j, tt_src_from_bf16(bf16_of(vb(i, j))));
		}
}

/* ---------------------------------------------------------------------------- bank hand-over */

/* ELWADD waits (parked, named in the report) until the unpacker side hands both banks over;
 * SETDVALID from another thread releases it; its FlipSrc gives the banks back to the unpackers
 * and moves the matrix unit to bank 1 (SrcASrcB.md). */
/* A device whose TRISC1 pushed ELWADD (then TTSync, exit 0) with the operands in bank 0, the ELWADD
 * waiting for the banks, which the unpackers still own. */
static struct bh_device *start_elwadd_waiting(void)
{
	struct bh_device *dev = dp_open();
	fill_ab(dev, 0);
	struct prog p = { 0 };
	emit_push(&p, ELWADD(3, 0, 0, 0, 0));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC1, &p);
	wait_report_has(dev, "ELWADD until SrcA bank 0 belongs to the matrix unit (it belongs to the unpackers)");
	return dev;
}

Test(tensix_data, elwadd_waits_for_setdvalid_then_flips_the_banks_back)
{
	struct bh_device *dev = start_elwadd_waiting();
	struct tt_dp *dp = dp_of(dev);
	cr_expect_eq(tt_dst16_read(dp, 0, 1), 0, "nothing computed before the hand-over");
	const uint32_t give[] = { SETDVALID(3) };
	run_pushes(dev, BH_CORE_TRISC0, give, 1);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 16; j++)
			cr_expect_eq(dst_bf16(dev, i, j), va(i, j) + vb(i, j), "Dst[%u][%u]", i, j);
	cr_expect_eq(atomic_load(&dp->srca_client[0]), TT_SRC_UNPACKERS);
	cr_expect_eq(atomic_load(&dp->srcb_client[0]), TT_SRC_UNPACKERS);
	cr_expect_eq(atomic_load(&dp->matrix_srca_bank), 1);
	cr_expect_eq(atomic_load(&dp->unpacker_bank[0]), 1);
	cr_expect_eq(atomic_load(&dp->unpacker_bank[1]), 1);
	bh_device_close(dev);
}

/* ELWADD waits for both banks: SrcA handed over alone leaves it held by SrcB (its report says so:
 * the change woke it), SrcB then releases it. */
Test(tensix_data, elwadd_held_by_srca_then_srcb_is_released_by_the_second_setdvalid)
{
	struct bh_device *dev = start_elwadd_waiting();
	const uint32_t give_a[] = { SETDVALID(1) }, give_b[] = { SETDVALID(2) };
	run_pushes(dev, BH_CORE_TRISC0, give_a, 1);
	wait_report_has(dev, "ELWADD until SrcB bank 0 belongs to the matrix unit (it belongs to the unpackers)");
	cr_expect_eq(tt_dst16_read(dp_of(dev), 0, 1), 0, "nothing computed before both hand-overs");
	run_pushes(dev, BH_CORE_TRISC0, give_b, 1);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	cr_expect_eq(dst_bf16(dev, 0, 1), va(0, 1) + vb(0, 1));
	bh_device_close(dev);
}

/* STALLWAIT C7 (SrcA valid for the matrix unit) holds the SEMPOST behind it until another thread
 * hands SrcA over; C5 then holds on the unpacker side's new bank only once it too is given. */
Test(tensix_data, stallwait_c7_is_released_by_setdvalid_of_another_thread)
{
	struct bh_device *dev = dp_open();
	struct bh_tile *t = tile0(dev);
	bh_sem_init(t, 0xFF, 15, 0);
	struct prog p = { 0 };
	emit_push(&p, STALLWAIT(0x2, 0x080));
	emit_push(&p, SEMPOST(1u << 3));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC1, &p);
	wait_report_has(dev, "STALLWAIT C7 until SrcA bank 0 belongs to the matrix unit");
	cr_expect_eq(bh_sem_value(t, 3), 0u);
	const uint32_t give[] = { SETDVALID(1) };
	run_pushes(dev, BH_CORE_TRISC0, give, 1);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	cr_expect_eq(bh_sem_value(t, 3), 1u);
	/* The unpackers are on bank 1 now, still theirs: C5 passes; CLEARDVALID reset gives all back. */
	const uint32_t more[] = { STALLWAIT(0x2, 0x020), SEMPOST(1u << 3), CLEARDVALID(0, 0, 1), STALLWAIT(0x2, 0x060),
				  SEMPOST(1u << 3) };
	run_pushes(dev, BH_CORE_TRISC2, more, N(more));
	cr_expect_eq(bh_sem_value(t, 3), 3u);
	cr_expect_eq(atomic_load(&dp_of(dev)->srca_client[0]), TT_SRC_UNPACKERS);
	cr_expect_eq(atomic_load(&dp_of(dev)->unpacker_bank[0]), 0);
	bh_device_close(dev);
}

/* CLEARDVALID with KeepReadingSameSrc gives the bank back without moving the matrix unit. */
Test(tensix_data, cleardvalid_keep_reading_returns_the_bank_without_flipping)
{
	struct bh_device *dev = dp_open();
	struct tt_dp *dp = dp_of(dev);
	const uint32_t w[] = { SETDVALID(3), CLEARDVALID(1, 1, 0), CLEARDVALID(2, 0, 0) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	cr_expect_eq(atomic_load(&dp->srca_client[0]), TT_SRC_UNPACKERS);
	cr_expect_eq(atomic_load(&dp->matrix_srca_bank), 0);
	cr_expect_eq(atomic_load(&dp->srcb_client[0]), TT_SRC_UNPACKERS);
	cr_expect_eq(atomic_load(&dp->matrix_srcb_bank), 1);
	bh_device_close(dev);
}

/* ----------------------------------------------------------------------- element-wise ops */

/* Sums that BF16 cannot hold: a 16-bit Dst rounds them (to nearest, ties away), a 32-bit Dst
 * (ALU_ACC_CTRL_Fp32_enabled) keeps them. */
Test(tensix_data, elwadd_rounds_in_a_16_bit_dst_and_is_exact_in_fp32)
{
	static const struct { float b, want16; } c[] = {
		{ 0x1p-9f, 1.0f },            /* below half a BF16 step of 1: down */
		{ 0x1p-8f, 1.0f + 0x1p-7f },  /* exactly half: away from zero */
		{ 0x3p-9f, 1.0f + 0x1p-7f },  /* above half: up */
	};
	for (int fp32 = 0; fp32 < 2; fp32++) {
		struct bh_device *dev = dp_open();
		set_alu(dev, (uint32_t)TT_FMT_BF16 << 17 | (fp32 ? BH_DP_ALU_FP32 : 0));
		for (unsigned i = 0; i < 8; i++)
			for (unsigned j = 0; j < 16; j++) {
				put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(1.0f)));
				put_src(dev, true, 0, i, j, tt_src_from_bf16(bf16_of(c[j % 3].b)));
			}
		const uint32_t w[] = { SETDVALID(3), ELWADD(0, 0, 0, 0, 0) };
		run_pushes(dev, BH_CORE_TRISC1, w, N(w));
		for (unsigned j = 0; j < 16; j++) {
			float got = fp32 ? dst_fp32(dev, 3, j) : dst_bf16(dev, 3, j);
			cr_expect_eq(got, fp32 ? 1.0f + c[j % 3].b : c[j % 3].want16, "fp32 %d col %u: %a", fp32, j, got);
		}
		bh_device_close(dev);
	}
}

/* AddDst accumulates; ELWSUB subtracts; broadcast of SrcB row 0 and column 0 (scalar). */
Test(tensix_data, elwadd_accumulates_and_elwsub_and_broadcasts_follow_the_model)
{
	struct bh_device *dev = dp_open();
	fill_ab(dev, 0);
	const uint32_t w[] = { SETDVALID(3), ELWADD(0, 0, 0, 0, 0), ELWADD(0, 1, 0, 0, 0), ELWSUB(0, 0, 0, 0, 8),
			       ELWADD(0, 0, 3, 0, 16), ELWADD(0, 0, 2, 0, 24), ELWADD(0, 0, 1, 0, 32) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 16; j++) {
			cr_expect_eq(dst_bf16(dev, i, j), 2 * (va(i, j) + vb(i, j)), "acc [%u][%u]", i, j);
			cr_expect_eq(dst_bf16(dev, 8 + i, j), va(i, j) - vb(i, j), "sub [%u][%u]", i, j);
			cr_expect_eq(dst_bf16(dev, 16 + i, j), va(i, j) + vb(0, 0), "scalar [%u][%u]", i, j);
			cr_expect_eq(dst_bf16(dev, 24 + i, j), va(i, j) + vb(0, j), "row [%u][%u]", i, j);
			cr_expect_eq(dst_bf16(dev, 32 + i, j), va(i, j) + vb(i, 0), "col0 [%u][%u]", i, j);
		}
	bh_device_close(dev);
}

/* The host's view of a fidelity phase's operands (SrcASrcB.md table): SrcA phase 0/2 keeps the
 * implicit 1 and 4 mantissa bits, 1/3 the next five; SrcB phase 0/1 keeps 6 bits, 2/3 the rest. */
static double host_fid(float x, int keep, bool lo)
{
	if (x == 0)
		return 0;
	double step = ldexp(1, ilogb(x) - keep), hi = trunc(x / step) * step;
	return lo ? x - hi : hi;
}

/* ELWMUL: each fidelity phase multiplies the documented mantissa slices; the four phases
 * together give the exact product in an FP32 Dst, phase 0 alone a different, coarser one. The
 * fidelity phase advances through ADDR_MOD_DST FidelityIncr. */
Test(tensix_data, elwmul_fidelity_phases_sum_to_the_exact_product)
{
	const float a = 1.9921875f, b = -1.7421875f;   /* BF16 0x3FFF and 0xBFDF: all mantissa bits in use */
	double a0 = host_fid(a, 4, false), a1 = host_fid(a, 4, true);
	double b0 = host_fid(b, 6, false), b1 = host_fid(b, 6, true);
	for (int phases = 1; phases <= 4; phases += 3) {
		struct bh_device *dev = dp_open();
		set_alu(dev, (uint32_t)TT_FMT_BF16 << 17 | BH_DP_ALU_FP32);
		for (unsigned i = 0; i < 8; i++)
			for (unsigned j = 0; j < 16; j++) {
				put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(a)));
				put_src(dev, true, 0, i, j, tt_src_from_bf16(bf16_of(b)));
			}
		uint32_t w[8];
		unsigned n = 0;
		w[n++] = SETC16(BH_DP_TCFG_ADDR_MOD_DST + 1, 1u << 13);   /* section 1: FidelityIncr 1 */
		w[n++] = SETDVALID(3);
		w[n++] = ZEROACC_M(3, 0, 0, 0);
		for (int k = 0; k < phases; k++)
			w[n++] = ELWMUL(0, 0, 1, 0);
		run_pushes(dev, BH_CORE_TRISC1, w, n);
		double want = phases == 4 ? (double)a * b : a0 * b0;
		cr_expect_eq(dst_fp32(dev, 5, 7), (float)want, "%d phases: %a, want %a", phases, dst_fp32(dev, 5, 7), want);
		cr_expect_eq(phases == 4 ? a0 * b0 + a1 * b0 + a0 * b1 + a1 * b1 : a0 * b0, want);
		bh_device_close(dev);
	}
}

/* INT8 math: Src integers in the FP16 overlay, Dst32 sign-magnitude, saturating accumulation. */
Test(tensix_data, int8_elwadd_saturates_in_the_int32_dst)
{
	struct bh_device *dev = dp_open();
	set_alu(dev, BH_DP_ALU_INT8_MATH | (uint32_t)TT_FMT_INT8 << 17);
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 16; j++) {
			put_src(dev, false, 0, i, j, tt_src_from_fp16(tt_int8_to_fp16_overlay(100, true)));
			put_src(dev, true, 0, i, j, tt_src_from_fp16(tt_int8_to_fp16_overlay(0x80 | 27, false)));
		}
	tt_dst32_write(dp_of(dev), 1, 2, tt_dst_from_fp32(0x7FFFFFF0u));   /* Integer "32" has FP32's Dst layout */
	const uint32_t w[] = { SETDVALID(3), ELWADD(0, 1, 0, 0, 0) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	cr_expect_eq(tt_dst32_read(dp_of(dev), 0, 0), tt_dst_from_fp32(73u));
	cr_expect_eq(tt_dst_to_fp32(tt_dst32_read(dp_of(dev), 1, 2)), 0x7FFFFFFFu);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------------- MVMUL */

/* Dst[8x16] += SrcB[8x16] @ SrcA[16x16] with BF16 operands whose every mantissa bit matters:
 * four fidelity phases (HiFi4) in an FP32 Dst give the exact host product, one phase (LoFi)
 * gives the product of the documented slices. RWC SrcA/SrcB/Dst move by ADDR_MOD section 2
 * between two MVMULs. */
Test(tensix_data, mvmul_hifi4_is_exact_and_lofi_uses_the_documented_slices)
{
	static float A[16][16], B[16][16];
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			A[i][j] = f_of((0x3F80u + ((i * 7 + j * 13) & 0x7F)) << 16) * ((i + j) % 3 ? 1 : -1);
			B[i][j] = f_of((0x3F80u + ((i * 11 + j * 5) & 0x7F)) << 16);
		}
	for (int hifi = 0; hifi < 2; hifi++) {
		struct bh_device *dev = dp_open();
		set_alu(dev, (uint32_t)TT_FMT_BF16 << 17 | BH_DP_ALU_FP32);
		for (unsigned i = 0; i < 16; i++)
			for (unsigned j = 0; j < 16; j++) {
				put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(A[i][j])));
				put_src(dev, true, 0, i, j, tt_src_from_bf16(bf16_of(B[i][j])));
			}
		uint32_t w[16];
		unsigned n = 0;
		w[n++] = SETC16(BH_DP_TCFG_ADDR_MOD_DST + 1, 1u << 13);           /* fidelity + 1 */
		w[n++] = SETC16(BH_DP_TCFG_ADDR_MOD_AB + 2, 8u << 8);             /* SrcB + 8 */
		w[n++] = SETC16(BH_DP_TCFG_ADDR_MOD_DST + 2, 8u | 1u << 15);      /* Dst + 8, fidelity cleared */
		w[n++] = SETDVALID(3);
		w[n++] = ZEROACC_M(3, 0, 0, 0);
		for (unsigned half = 0; half < 2; half++) {
			for (int k = 0; k < (hifi ? 3 : 0); k++)
				w[n++] = MVMUL(0, 1, 0);
			w[n++] = MVMUL(half ? 3 : 0, 2, 0);
		}
		run_pushes(dev, BH_CORE_TRISC1, w, n);
		for (unsigned i = 0; i < 16; i++)
			for (unsigned j = 0; j < 16; j++) {
				double want = 0;
				for (unsigned k = 0; k < 16; k++)
					want += hifi ? (double)B[i][k] * A[k][j]
						     : host_fid(B[i][k], 6, false) * host_fid(A[k][j], 4, false);
				cr_expect_eq(dst_fp32(dev, i, j), (float)want, "hifi %d [%u][%u]: %a want %a", hifi, i, j,
					     dst_fp32(dev, i, j), want);
			}
		cr_expect_eq(atomic_load(&dp_of(dev)->srca_client[0]), TT_SRC_UNPACKERS, "the last MVMUL flipped");
		bh_device_close(dev);
	}
}

/* Each Dst element's dot product is a binary32 sum in k order from 0 (tensix_data.c: the model's
 * order), whatever order the host computes the 16 columns in: columns whose sums round
 * differently in another order (2^24 and -2^24 among ones, at k = j % 15 and 15) come out as
 * the k-order sum, not the exact one. One phase (fidelity 0 keeps these operands whole). */
Test(tensix_data, mvmul_sums_each_column_in_k_order_in_binary32)
{
	struct bh_device *dev = dp_open();
	set_alu(dev, (uint32_t)TT_FMT_BF16 << 17 | BH_DP_ALU_FP32);
	float A[16][16];
	for (unsigned k = 0; k < 16; k++)
		for (unsigned j = 0; j < 16; j++) {
			A[k][j] = k == 15 ? -0x1p24f : k == j % 15 ? 0x1p24f : 1.f;
			put_src(dev, false, 0, k, j, tt_src_from_bf16(bf16_of(A[k][j])));
			put_src(dev, true, 0, k, j, tt_src_from_bf16(bf16_of(1.f)));
		}
	const uint32_t w[] = { SETDVALID(3), ZEROACC_M(3, 0, 0, 0), MVMUL(0, 0, 0) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	unsigned inexact = 0;
	for (unsigned j = 0; j < 16; j++) {
		volatile float want = 0;
		for (unsigned k = 0; k < 16; k++)
			want = want + 1.f * A[k][j];
		inexact += want != 14.f;
		for (unsigned i = 0; i < 8; i++)
			cr_expect_eq(dst_fp32(dev, i, j), (float)want, "[%u][%u]: %a want %a", i, j, (double)dst_fp32(dev, i, j),
				     (double)want);
	}
	cr_assert_gt(inexact, 8, "the sums must depend on the order");
	bh_device_close(dev);
}

/* The vector paths of MVMUL (AVX2 where the host has it, and the baseline ISA's) leave every Dst
 * bit as the per-element path does: four fidelity phases over Src cells of many kinds (zero
 * exponents with and without mantissa, both signs, the smallest normals, all-ones mantissas,
 * exponents up to 0xBC, pseudo-random ones; SrcB rows of denormals onto zero Dst rows, where
 * products of denormals that were not flushed would show) accumulated onto pseudo-random Dst contents, in a
 * 16-bit and a 32-bit Dst, with and without the SrcB row broadcast, in the BF16 and TF32 styles.
 * Exponents stay where no sum overflows: a NaN (infinity minus infinity) has the host's sign,
 * which the paths need not share, and the unit's model has no NaN (tensix_data.c). */
static uint32_t mvmul_tame(uint32_t cell)
{
	return (cell >> 10 & 0xFF) > 0xBC ? cell - (0x40u << 10) : cell;   /* exponent (bits 17:10) at most 0xBC */
}

static void mvmul_edge_run(int path, bool dst32, bool bcast, unsigned fmt, uint16_t out[32][16])
{
	static const uint32_t edge[] = { 0x00000, 0x40000, 0x003FF, 0x403FF, 0x2F000, 0x6F3FF, 0x00400, 0x40400,
					 0x2F3FF, 0x6F000, 0x1FC00, 0x5FC01, 0x20000, 0x1FFFF, 0x203FF, 0x60001 };
	atomic_store(&tt_mvmul_path, path);
	struct bh_device *dev = dp_open();
	set_alu(dev, fmt << 17 | (dst32 ? BH_DP_ALU_FP32 : 0));
	uint32_t seed = 77;
	for (unsigned r = 0; r < 16; r++)
		for (unsigned j = 0; j < 16; j++)
			for (unsigned b = 0; b < 2; b++) {
				seed = seed * 1103515245u + 12345u;
				uint32_t cell = mvmul_tame(seed >> 8 & 0x7FFFF);
				if ((r + j + b) % 3 == 0)
					cell = edge[(r * 5 + j + b * 7) % N(edge)];
				if (b && (r == 0 || r == 3))
					cell = (cell & 0x403FF) | 1;   /* SrcB rows 0 and 3: denormals (read as zeros) */
				put_src(dev, b, 0, r, j, cell);   /* the cell: sign 18, exponent 17:10, mantissa 9:0 */
			}
	for (unsigned r = 0; r < 32; r++)
		for (unsigned j = 0; j < 16; j++) {
			seed = seed * 1103515245u + 12345u;
			uint16_t v = (uint16_t)(seed >> 12);
			if ((v & 0xFF) > 0xBC)
				v -= 0x40;   /* the BF16 layout's exponent is bits 7:0 */
			if (r % 8 == 0 || r % 8 == 3)
				v = 0;   /* where the products of SrcB rows 0 and 3 land (both halves of a 32-bit Dst) */
			tt_dst16_write(dp_of(dev), r, j, v);
		}
	uint32_t w[8];
	unsigned n = 0;
	w[n++] = SETC16(BH_DP_TCFG_ADDR_MOD_DST + 1, 1u << 13);   /* fidelity + 1 */
	w[n++] = SETDVALID(3);
	for (unsigned k = 0; k < 4; k++)
		w[n++] = MVMUL(0, 1, 0) | (uint32_t)bcast << 19;
	run_pushes(dev, BH_CORE_TRISC1, w, n);
	for (unsigned r = 0; r < 32; r++)
		for (unsigned j = 0; j < 16; j++)
			out[r][j] = tt_dst16_read(dp_of(dev), r, j);
	bh_device_close(dev);
}

Test(tensix_data, mvmul_vector_paths_give_the_per_element_paths_bits)
{
	int paths[] = { TT_MVMUL_BASE, TT_MVMUL_AVX2 };
	for (unsigned f = 0; f < 2; f++)
		for (unsigned v = 0; v < 4; v++) {
			bool dst32 = v & 1, bcast = v & 2;
			unsigned fmt = f ? TT_FMT_TF32 : TT_FMT_BF16;
			static uint16_t want[32][16], got[32][16];
			mvmul_edge_run(TT_MVMUL_SCALAR, dst32, bcast, fmt, want);
			unsigned changed = 0;
			for (unsigned r = 0; r < 8; r++)
				for (unsigned j = 0; j < 16; j++)
					changed += want[r][j] != 0;
			cr_assert_gt(changed, 64, "the product rows must be written");
			for (unsigned p = 0; p < N(paths); p++) {
				if (paths[p] == TT_MVMUL_AVX2 && !__builtin_cpu_supports("avx2"))
					continue;
				mvmul_edge_run(paths[p], dst32, bcast, fmt, got);
				for (unsigned r = 0; r < 32; r++)
					for (unsigned j = 0; j < 16; j++)
						cr_expect_eq(got[r][j], want[r][j], "path %d fmt %u dst32 %d bcast %d: Dst[%u][%u] 0x%04x want 0x%04x",
							     paths[p], fmt, dst32, bcast, r, j, got[r][j], want[r][j]);
			}
		}
}

/* ----------------------------------------------------------------- pooling and transposes */

#define GPOOL(op, flip, dim, am, argmax, dst) \
	TT(op, (uint32_t)(flip) << 22 | (uint32_t)(dim) << 19 | (uint32_t)(am) << 15 | (uint32_t)(argmax) << 14 | (dst))
#define GMPOOL(flip, am, argmax, dst) GPOOL(0x33, flip, 1, am, argmax, dst)
#define GAPOOL(flip, am, dst) GPOOL(0x34, flip, 1, am, 0, dst)
#define TRNSPSRCB TT(0x16, 0)
#define GATESRCRST TT(0x35, 3)
#define MOVB2A(arow, am, four, brow) \
	TT(0x0B, (uint32_t)(arow) << 17 | (uint32_t)(am) << 14 | (uint32_t)(four) << 13 | (brow))

/* GAPOOL is MVMUL on a 4x16 Dst block (aligned to 4, not 8) with the top four rows of SrcB's
 * aligned eight: Dst rows 4..7 get SrcB[0..3] @ SrcA; rows 0..3 and 8 keep their zeros. One
 * fidelity phase is exact for integers of at most four significant bits (GAPOOL.md). */
Test(tensix_data, gapool_multiplies_a_four_row_block_aligned_to_four)
{
	struct bh_device *dev = dp_open();
	set_alu(dev, (uint32_t)TT_FMT_BF16 << 17 | BH_DP_ALU_FP32);
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of((float)((int)(i * 3 + j) % 15 - 7))));
			put_src(dev, true, 0, i, j, tt_src_from_bf16(bf16_of((float)((int)(i + 2 * j) % 13 - 6))));
		}
	const uint32_t w[] = { SETDVALID(3), ZEROACC_M(3, 0, 0, 0), GAPOOL(3, 0, 4) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 16; j++) {
			int want = 0;
			for (unsigned k = 0; k < 16; k++)
				want += ((int)(i + 2 * k) % 13 - 6) * ((int)(k * 3 + j) % 15 - 7);
			cr_expect_eq(dst_fp32(dev, 4 + i, j), (float)want, "Dst[%u][%u]", 4 + i, j);
			cr_expect_eq(tt_dst32_read(dp_of(dev), i, j), 0u, "row %u untouched", i);
		}
	cr_expect_eq(tt_dst32_read(dp_of(dev), 8, 3), 0u, "row 8 untouched");
	cr_expect_eq(atomic_load(&dp_of(dev)->srca_client[0]), TT_SRC_UNPACKERS, "FlipSrc gave the banks back");
	bh_device_close(dev);
}

#define DOTPV(flip, acc, bcast, am, dst) ELW(0x29, flip, acc, bcast, am, dst)

/* DOTPV is MVMUL without the row broadcast (DOTPV.md), written with dest_accum_en: Dst rows
 * 8..15 accumulate SrcB[0..7] @ SrcA onto what they held (3 everywhere). */
Test(tensix_data, dotpv_accumulates_a_matrix_product_like_mvmul)
{
	struct bh_device *dev = dp_open();
	set_alu(dev, (uint32_t)TT_FMT_BF16 << 17 | BH_DP_ALU_FP32);
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of((float)((int)(i * 5 + j) % 11 - 5))));
			put_src(dev, true, 0, i, j, tt_src_from_bf16(bf16_of((float)((int)(3 * i + j) % 9 - 4))));
		}
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 16; j++)
			tt_dst32_write(dp_of(dev), 8 + i, j, tt_dst_from_fp32(b_of(3.f)));
	const uint32_t w[] = { SETDVALID(3), DOTPV(0, 1, 0, 0, 8) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 16; j++) {
			int want = 3;
			for (unsigned k = 0; k < 16; k++)
				want += ((int)(3 * i + k) % 9 - 4) * ((int)(k * 5 + j) % 11 - 5);
			cr_expect_eq(dst_fp32(dev, 8 + i, j), (float)want, "Dst[%u][%u]", 8 + i, j);
		}
	bh_device_close(dev);
}

/* GMPOOL: the max down each SrcA column, row i scaled by the exponent of SrcB row 0 column i
 * (2.0 doubles row 3, a zero drops row 5 as minus infinity), max'ed with the Dst row (column 0
 * keeps its 50), the three rows below zeroed (GMPOOL.md). */
Test(tensix_data, gmpool_takes_the_scaled_column_max_with_the_dst_row)
{
	struct bh_device *dev = dp_open();
	set_alu(dev, (uint32_t)TT_FMT_BF16 << 17);
	for (unsigned i = 0; i < 16; i++) {
		put_src(dev, true, 0, 0, i, tt_src_from_bf16(bf16_of(i == 3 ? 2.f : i == 5 ? 0.f : 1.f)));
		for (unsigned j = 0; j < 16; j++) {
			float v = i == 5 ? 1000.f : i == 3 && (j & 1) ? 1.f + (float)j / 4.f : -0.5f * (float)(i + 1) - (float)j;
			put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(v)));
		}
	}
	struct tt_dp *dp = dp_of(dev);
	for (unsigned j = 0; j < 16; j++) {
		tt_dst16_write(dp, 8, j, tt_dst_from_bf16(bf16_of(j ? -100.f : 50.f)));
		for (unsigned r = 9; r < 13; r++)
			tt_dst16_write(dp, r, j, 0x1234);
	}
	const uint32_t w[] = { SETDVALID(3), GMPOOL(0, 0, 0, 8) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned j = 0; j < 16; j++) {
		float want = j == 0 ? 50.f : (j & 1) ? 2.f * (1.f + (float)j / 4.f) : -0.5f - (float)j;
		cr_expect_eq(dst_bf16(dev, 8, j), want, "column %u: %g want %g", j, dst_bf16(dev, 8, j), want);
		for (unsigned r = 9; r < 12; r++)
			cr_expect_eq(tt_dst16_read(dp, r, j), 0, "row %u column %u zeroed", r, j);
		cr_expect_eq(tt_dst16_read(dp, 12, j), 0x1234, "row 12 untouched");
	}
	bh_device_close(dev);
}

/* ZEROACC leaves Dst Undefined, which GMPOOL reads as minus infinity (ZEROACC.md): a column of
 * negative values yields its max, not zero; the packers' and other readers' zero stays (row 20
 * after ZEROACC reads zero); a written element is defined again (column 0 of row 4 holds -50,
 * which is below every value of its column, so it is the Dst row that loses, not minus infinity). */
Test(tensix_data, gmpool_reads_zeroacc_rows_as_minus_infinity)
{
	struct bh_device *dev = dp_open();
	set_alu(dev, (uint32_t)TT_FMT_BF16 << 17);
	for (unsigned i = 0; i < 16; i++) {
		put_src(dev, true, 0, 0, i, tt_src_from_bf16(bf16_of(1.f)));
		for (unsigned j = 0; j < 16; j++)
			put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(-(float)(i + 1) - (float)j)));
	}
	const uint32_t clear[] = { ZEROACC_M(3, 0, 0, 0) };
	run_pushes(dev, BH_CORE_TRISC1, clear, N(clear));
	struct tt_dp *dp = dp_of(dev);
	cr_expect(tt_dst_undefined(dp, 4, 0, false));
	tt_dst16_write(dp, 4, 0, tt_dst_from_bf16(bf16_of(-50.f)));
	cr_expect(!tt_dst_undefined(dp, 4, 0, false), "a write defines the element");
	cr_expect(tt_dst_undefined(dp, 4, 1, false), "only that element");
	const uint32_t w[] = { SETDVALID(3), GMPOOL(0, 0, 0, 0), GMPOOL(0, 0, 0, 4) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned j = 0; j < 16; j++) {
		cr_expect_eq(dst_bf16(dev, 0, j), -1.f - (float)j, "row 0 column %u: %g", j, dst_bf16(dev, 0, j));
		cr_expect_eq(dst_bf16(dev, 4, j), -1.f - (float)j, "row 4 column %u: %g", j, dst_bf16(dev, 4, j));
		cr_expect(!tt_dst_undefined(dp, 0, j, false), "GMPOOL's write defined row 0");
		cr_expect_eq(tt_dst16_read(dp, 20, j), 0, "other readers see zero");
	}
	bh_device_close(dev);
}

/* GMPOOL with INT8 math: integer "8" SrcA, scaled by one (SrcB exponents non-zero), max'ed with
 * the integer "32" Dst row, written back as the sign and 13 bits of magnitude in Dst's integer
 * layout (GMPOOL.md). */
Test(tensix_data, gmpool_int8_takes_the_integer_column_max)
{
	struct bh_device *dev = dp_open();
	set_alu(dev, BH_DP_ALU_INT8_MATH);
	struct tt_dp *dp = dp_of(dev);
	int want[16];
	for (unsigned j = 0; j < 16; j++) {
		want[j] = j == 3 ? 120 : -5;   /* the Dst row's value, beaten below except in column 3 */
		tt_dst32_write(dp, 4, j, tt_dst_from_fp32(tt_int_to_sm32(want[j])));
		put_src(dev, true, 0, 0, j, tt_src_from_fp16(tt_int8_to_fp16_overlay(1, false)));
	}
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			int v = (int)((i * 37 + j * 11) % 200) - 100 - (j == 9 ? 60 : 0);
			if (v < -127)
				v = -127;
			put_src(dev, false, 0, i, j, tt_src_from_fp16(tt_int8_to_fp16_overlay((uint8_t)(v < 0 ? 0x80 | -v : v), false)));
			if (v > want[j])
				want[j] = v;
		}
	const uint32_t w[] = { SETDVALID(3), GMPOOL(0, 0, 0, 4) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned j = 0; j < 16; j++)
		cr_expect_eq(tt_dst32_read(dp, 4, j), tt_dst_from_fp32(tt_int_to_sm32(want[j])), "column %u: %08x want %d", j,
			     tt_dst32_read(dp, 4, j), want[j]);
	bh_device_close(dev);
}

/* GMPOOL's argmax with BF16 into a 32-bit Dst: the max in the high half and, in the low bits,
 * the index phase (Dst + 0x100, bits 11:8) and the row of the max among the first eight through
 * the documented transform {0, 3, 6, 1, 4, 7, 2, 5}; the rows below get their own phase. */
Test(tensix_data, gmpool_argmax_returns_the_transformed_row_index)
{
	static const uint8_t transform[8] = { 0, 3, 6, 1, 4, 7, 2, 5 };
	struct bh_device *dev = dp_open();
	set_alu(dev, (uint32_t)TT_FMT_BF16 << 17 | BH_DP_ALU_FP32);
	struct tt_dp *dp = dp_of(dev);
	for (unsigned i = 0; i < 16; i++) {
		put_src(dev, true, 0, 0, i, tt_src_from_bf16(bf16_of(1.f)));
		for (unsigned j = 0; j < 16; j++)
			put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(i == j % 8 ? 10.f + (float)j : -1.f)));
	}
	for (unsigned j = 0; j < 16; j++)
		tt_dst32_write(dp, 1, j, 0x00000200u);
	const uint32_t w[] = { SETDVALID(3), GMPOOL(0, 0, 1, 0) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned j = 0; j < 16; j++) {
		uint32_t want = (uint32_t)tt_dst_from_bf16(bf16_of(10.f + (float)j)) << 16 | 0x100u | (0x10u + transform[j % 8]);
		cr_expect_eq(tt_dst32_read(dp, 0, j), want, "column %u: %08x want %08x", j, tt_dst32_read(dp, 0, j), want);
		cr_expect_eq(tt_dst32_read(dp, 1, j), 0x300u, "row 1: its phase moved on");
		cr_expect_eq(tt_dst32_read(dp, 2, j), 0x100u, "row 2");
	}
	bh_device_close(dev);
}

/* TRNSPSRCB transposes SrcB rows 16..31 in place; MOVB2A then copies four of the transposed
 * rows into SrcA rows 0..3 and one more into row 9 (with GATESRCRST around them as tt-llk's
 * reduce does it: it changes nothing), the 19 bits unchanged except a zero
 * exponent, which is flushed (ALU_ACC_CTRL_Zero_Flag_disabled_src clear). Cells are given and
 * read in the hardware's layout (exponent in bits 7:0). */
Test(tensix_data, trnspsrcb_then_movb2a_moves_the_transposed_rows_to_srca)
{
	struct bh_device *dev = dp_open();
	struct tt_dp *dp = dp_of(dev);
	uint32_t orig[16][16];
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++) {
			orig[i][j] = (i * 16 + j) << 8 | (i == 7 && j == 2 ? 0 : 0x40u + i);
			put_src(dev, true, 0, 16 + i, j, tt_src_cell_of_hw(orig[i][j]));
		}
	const uint32_t w[] = { SETDVALID(3), GATESRCRST, TRNSPSRCB, GATESRCRST, MOVB2A(0, 0, 1, 16), MOVB2A(9, 0, 0, 21) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < 16; j++)
			cr_expect_eq(tt_src_hw_of_cell(atomic_load(&dp->srcb[0][16 + i][j])), orig[j][i], "SrcB[%u][%u]", 16 + i, j);
	for (unsigned j = 0; j < 16; j++) {
		for (unsigned i = 0; i < 4; i++) {
			uint32_t want = orig[j][i] & 0xFF ? orig[j][i] : 0;
			cr_expect_eq(tt_src_hw_of_cell(atomic_load(&dp->srca[0][i][j])), want, "SrcA[%u][%u]", i, j);
		}
		uint32_t want9 = orig[j][5] & 0xFF ? orig[j][5] : 0;
		cr_expect_eq(tt_src_hw_of_cell(atomic_load(&dp->srca[0][9][j])), want9, "SrcA[9][%u]", j);
	}
	cr_expect_eq(atomic_load(&dp->srca[0][2][7]), 0u, 
		     "the zero-exponent datum (SrcB[23][2] before the transpose) was flushed");
	bh_device_close(dev);
}

/* ----------------------------------------------------------------- moves, clears, counters */

Test(tensix_data, mova2d_moves_src_rows_into_the_dst_layout)
{
	struct bh_device *dev = dp_open();
	fill_ab(dev, 0);
	const uint32_t w[] = { SETDVALID(1), MOVA2D(0, 0, 1, 40), MOVA2D(3, 0, 0, 100) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 16; j++)
			cr_expect_eq(dst_bf16(dev, 40 + i, j), va(i, j));
	cr_expect_eq(dst_bf16(dev, 100, 5), va(3, 5));
	cr_expect_eq(dst_bf16(dev, 101, 5), 0.0f);
	bh_device_close(dev);
}

/* MOVA2D and MOVB2D of a whole row into a 16-bit Dst in the BF16 style, on every kind of cell
 * (given in the hardware's Src layout: zero exponents with and without a mantissa, both signs,
 * exponent 255, all ones, pseudo-random ones): RemoveLowMantissa of each (sign, the top seven
 * mantissa bits, the eight exponent bits), a zero exponent flushed to 0 unless
 * ALU_ACC_CTRL_Zero_Flag_disabled_src is set (MOVA2D.md, MOVB2D.md); each written element is
 * defined again after a ZEROACC. */
Test(tensix_data, mova2d_and_movb2d_rows_move_every_kind_of_cell_bit_for_bit)
{
	static const uint32_t edge[] = { 0x00000, 0x40000, 0x3FF00, 0x7FF00, 0x000FF, 0x400FF, 0x7FFFF, 0x00001,
					 0x12380, 0x5AB7F };
	uint32_t seed = 5;
	for (int from_b = 0; from_b < 2; from_b++)
		for (int keep = 0; keep < 2; keep++) {
			struct bh_device *dev = dp_open();
			uint32_t hw[16];
			for (unsigned j = 0; j < 16; j++) {
				seed = seed * 1103515245u + 12345u;
				hw[j] = j < N(edge) ? edge[j] : seed >> 8 & 0x7FFFF;
				put_src(dev, from_b, 0, 2, j, tt_src_cell_of_hw(hw[j]));
				tt_dst16_write(dp_of(dev), 9, j, 0x1234);   /* written, so that ZEROACC leaves it Undefined */
			}
			bh_tensix_cfg_store(tile0(dev), 0, BH_DP_CFG_ACC_CTRL, keep ? 1u : 0u);
			const uint32_t w[] = { SETDVALID(3), ZEROACC_M(3, 0, 0, 0), from_b ? MOVB2D(2, 0, 0, 9) : MOVA2D(2, 0, 0, 9) };
			run_pushes(dev, BH_CORE_TRISC1, w, N(w));
			for (unsigned j = 0; j < 16; j++) {
				uint32_t v = !keep && !(hw[j] & 0xFF) ? 0 : hw[j];
				uint16_t want = (uint16_t)((v >> 18 & 1) << 15 | (v >> 11 & 0x7F) << 8 | (v & 0xFF));
				cr_expect_eq(tt_dst16_read(dp_of(dev), 9, j), want, "from_b %d keep %d column %u: cell 0x%05x", from_b,
					     keep, j, hw[j]);
				cr_expect_not(tt_dst_undefined(dp_of(dev), 9, j, false), "column %u defined again after ZEROACC", j);
			}
			bh_device_close(dev);
		}
}

Test(tensix_data, zeroacc_clears_one_row_16_rows_a_half_or_all)
{
	struct bh_device *dev = dp_open();
	struct tt_dp *dp = dp_of(dev);
	for (unsigned r = 0; r < TT_DST_ROWS; r++)
		for (unsigned c = 0; c < 16; c++)
			tt_dst16_write(dp, r, c, 0x1234);
	const uint32_t w[] = { ZEROACC_M(0, 0, 0, 7), ZEROACC_M(1, 0, 0, 2), ZEROACC_M(2, 0, 0, 1) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned r = 0; r < TT_DST_ROWS; r++) {
		bool zero = r == 7 || (r >= 32 && r < 48) || r >= 512;
		cr_expect_eq(tt_dst16_read(dp, r, 9), zero ? 0 : 0x1234, "row %u", r);
	}
	const uint32_t all[] = { ZEROACC_M(3, 0, 0, 0) };
	run_pushes(dev, BH_CORE_TRISC1, all, 1);
	cr_expect_eq(tt_dst16_read(dp, 100, 0), 0);
	/* Rows written after a clear, in several 64-row groups of both halves: a half's ZEROACC
	 * clears its own (and leaves them Undefined), not the other half's. */
	static const unsigned again[] = { 3, 70, 511, 600, 1023 };
	for (unsigned k = 0; k < N(again); k++)
		tt_dst16_write(dp, again[k], 11, 0x5555);
	const uint32_t half0[] = { ZEROACC_M(2, 0, 0, 0) };
	run_pushes(dev, BH_CORE_TRISC1, half0, 1);
	for (unsigned k = 0; k < N(again); k++) {
		bool low = again[k] < 512;
		cr_expect_eq(tt_dst16_read(dp, again[k], 11), low ? 0 : 0x5555, "row %u", again[k]);
		cr_expect_eq(tt_dst_undefined(dp, again[k], 11, false), low, "row %u", again[k]);
	}
	bh_device_close(dev);
}

Test(tensix_data, zerosrc_clears_the_chosen_banks_and_srca_to_minus_infinity)
{
	struct bh_device *dev = dp_open();
	struct tt_dp *dp = dp_of(dev);
	for (unsigned b = 0; b < 2; b++) {
		put_src(dev, false, b, 9, 3, 0x1111);
		put_src(dev, true, b, 9, 3, 0x2222);
	}
	/* SrcB: the unpacker's bank (0) only; SrcA: both banks, to -inf. */
	const uint32_t w[] = { ZEROSRC(0, 0, 0, 2), ZEROSRC(1, 0, 1, 1) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	cr_expect_eq(atomic_load(&dp->srcb[0][9][3]), 0u);
	cr_expect_eq(atomic_load(&dp->srcb[1][9][3]), 0x2222u);
	cr_expect_eq(atomic_load(&dp->srca[0][9][3]), 0x7FFFFu);
	cr_expect_eq(atomic_load(&dp->srca[1][9][3]), 0x7FFFFu);
	bh_device_close(dev);
}

/* SETRWC / INCRWC set and move the thread's counters, which choose the rows of the next ELWADD;
 * ZEROACC with an ADDR_MOD advances them too. */
Test(tensix_data, setrwc_incrwc_and_addr_mods_choose_the_rows)
{
	struct bh_device *dev = dp_open();
	fill_ab(dev, 0);
	for (unsigned j = 0; j < 16; j++)
		put_src(dev, false, 0, 8, j, tt_src_from_bf16(bf16_of(100.f)));   /* SrcA row 8 */
	const uint32_t w[] = {
		SETDVALID(3),
		SETRWC(0, 0, 0, 0, 8, 0x1),            /* SrcA = 8 */
		INCRWC(0, 4, 0, 0),                    /* Dst += 4: rows 0..7 after alignment */
		INCRWC(0, 12, 0, 0),                   /* Dst = 16 */
		ELWADD(0, 0, 0, 0, 0),                 /* Dst rows 16..23 = SrcA rows 8.. + SrcB rows 0.. */
		SETRWC(0, 0, 0, 0, 0, 0xF),            /* all back to 0 */
		SETC16(BH_DP_TCFG_ADDR_MOD_DST + 3, 48),
		ZEROACC_M(1, 0, 3, 0xFF),              /* clears nothing (row group 255), applies ADDR_MOD 3 */
		ELWADD(0, 0, 0, 0, 0),                 /* Dst rows 48..55 */
	};
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	cr_expect_eq(dst_bf16(dev, 16, 3), 100.f + vb(0, 3));
	cr_expect_eq(dst_bf16(dev, 0, 3), 0.f);
	cr_expect_eq(dst_bf16(dev, 48 + 2, 3), va(2, 3) + vb(2, 3));
	cr_expect_eq(tile0(dev)->tensix->th[1].rwc.dst, 48);
	bh_device_close(dev);
}

/* An ELWADD nobody gives a bank to is a deadlock whose report names the wait. */
Test(tensix_data, elwadd_without_a_bank_forever_is_a_reported_deadlock)
{
	struct bh_device *dev = dp_open();
	struct prog p = { 0 };
	emit_push(&p, ELWADD(0, 0, 0, 0, 0));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC1, &p);
	const char *rep = wait_deadlock_report(dev);
	assert_has(rep, "ELWADD until SrcA bank 0 belongs to the matrix unit (it belongs to the unpackers)");
	bh_device_close(dev);
}

/* Undocumented modes fault by name. */
Test(tensix_data, undocumented_modes_fault_by_name)
{
	struct bh_device *dev = dp_open();
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	uint32_t pc = emit_push_at(&p, BH_CORE_TRISC1, ZEROACC_M(0, 0, 0, 0) | 1u << 17);
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	run_prog(dev, BH_CORE_TRISC1, core_code_at[BH_CORE_TRISC1], &p, r);
	expect_fault(r, BH_CORE_TRISC1, pc, "not modelled", "ZEROACC with clear_zero_flags (Revert) set");
	free(r);
	bh_device_close(dev);
}

/* DEST_ACCESS_CFG remap_addrs / swizzle_32b (config word 220, bits 1 and 0) remap Dst rows (Dst.md):
 * not modelled, so the next data-plane instruction faults by name; with both clear it runs. */
Test(tensix_data, dest_access_cfg_row_remapping_faults_by_name)
{
	for (unsigned bits = 0; bits < 3; bits++) {
		struct bh_device *dev = dp_open();
		bh_tensix_cfg_store(tile0(dev), 0, BH_DP_CFG_DEST_ACCESS, bits | 1u << 3);   /* bit 3: not a row mapping */
		struct bh_core_result *r = result_new();
		struct prog p = { 0 };
		uint32_t pc = emit_push_at(&p, BH_CORE_TRISC1, ZEROACC_M(0, 0, 0, 0));
		emit_tensix_sync(&p);
		emit_exit_with(&p, 0);
		run_prog(dev, BH_CORE_TRISC1, core_code_at[BH_CORE_TRISC1], &p, r);
		if (bits)
			expect_fault(r, BH_CORE_TRISC1, pc, "not modelled",
				     "ZEROACC with DEST_ACCESS_CFG remap_addrs or swizzle_32b set");
		else
			cr_assert_eq(r->status, BH_RUN_EXITED, "%s", r->report);
		free(r);
		bh_device_close(dev);
	}
}

/* GMPOOL's 1x16 form (instr_mod19 clear), DOTPV with a broadcast and MOVB2A's odd instr_mod are not
 * documented. */
Test(tensix_data, undocumented_pool_and_move_forms_fault_by_name)
{
	static const struct { uint32_t w; const char *kind, *why; } cases[] = {
		{ GPOOL(0x33, 0, 0, 0, 0, 0), "not modelled", "GMPOOL with instr_mod19 clear (the 1x16 form)" },
		{ DOTPV(0, 1, 1, 0, 0), "not modelled", "DOTPV with instr_mod19 1 and dest_accum_en 1" },
		{ MOVB2A(0, 0, 0, 0) | 1u << 12, "bad register value", "MOVB2A instr_mod 1: only 0 (one row) and 2 (four rows)" },
	};
	for (size_t k = 0; k < N(cases); k++) {
		struct bh_device *dev = dp_open();
		struct bh_core_result *r = result_new();
		struct prog p = { 0 };
		emit_push(&p, SETDVALID(3));
		uint32_t pc = emit_push_at(&p, BH_CORE_TRISC1, cases[k].w);
		emit_tensix_sync(&p);
		emit_exit_with(&p, 0);
		run_prog(dev, BH_CORE_TRISC1, core_code_at[BH_CORE_TRISC1], &p, r);
		expect_fault(r, BH_CORE_TRISC1, pc, cases[k].kind, cases[k].why);
		free(r);
		bh_device_close(dev);
	}
}

/* ---------------------------------------------------------------------------- Dst window */

#define DST_WIN 0xFFBD8000u

/* TRISC1 (RISC_DEST_ACCESS_CTRL_SEC1: bits 19 no_swizzle, 23:21 fmt) stores one element through
 * the window and loads another back as its exit status. */
static uint32_t dst_window_run(struct bh_device *dev, unsigned fmt, bool raw, unsigned width, uint32_t st_off,
			       uint32_t st_val, uint32_t ld_off)
{
	bh_tensix_cfg_store(tile0(dev), 0, 3, (uint32_t)fmt << 21 | (uint32_t)raw << 19);
	struct prog p = { 0 };
	emit_li(&p, T0, DST_WIN + st_off);
	emit_li(&p, T1, st_val);
	emit(&p, store(width == 4 ? 2 : 1, T1, 0, T0));
	emit_li(&p, T0, DST_WIN + ld_off);
	emit(&p, load(width == 4 ? 2 : 5, A0, 0, T0));
	emit_exit(&p);
	return run_core(dev, BH_CORE_TRISC1, &p);
}

Test(tensix_data, the_risc_v_dst_window_converts_by_its_format_control)
{
	struct bh_device *dev = dp_open();
	struct tt_dp *dp = dp_of(dev);
	/* BF16 view: element 37 = row 2, col 5 */
	tt_dst16_write(dp, 3, 0, tt_dst_from_bf16(0xC040));
	cr_expect_eq(dst_window_run(dev, 3, false, 2, 37 * 2, 0x3FC0, 48 * 2), 0xC040u);
	cr_expect_eq(tt_dst16_read(dp, 2, 5), tt_dst_from_bf16(0x3FC0));
	/* no_swizzle: the raw Dst bits */
	cr_expect_eq(dst_window_run(dev, 3, true, 2, 0, 0x1234, 37 * 2), tt_dst_from_bf16(0x3FC0));
	/* FP16 view */
	cr_expect_eq(dst_window_run(dev, 2, false, 2, 7 * 2, 0xBE00, 7 * 2), 0xBE00u);
	cr_expect_eq(tt_dst16_read(dp, 0, 7), tt_dst_from_fp16(0xBE00));
	/* FP32 view of Dst32b: element 20 = row 1, col 4 */
	cr_expect_eq(dst_window_run(dev, 0, false, 4, 20 * 4, 0x3FC01234u, 20 * 4), 0x3FC01234u);
	cr_expect_eq(tt_dst32_read(dp, 1, 4), tt_dst_from_fp32(0x3FC01234u));
	bh_device_close(dev);
}

Test(tensix_data, dst_window_integer_views_and_wrong_widths_fault_by_name)
{
	struct bh_device *dev = dp_open();
	struct bh_core_result *r = result_new();
	bh_tensix_cfg_store(tile0(dev), 0, 3, 1u << 21);
	struct prog p = { 0 };
	emit_load_word(&p, A0, DST_WIN);
	emit_exit(&p);
	run_prog(dev, BH_CORE_TRISC1, core_code_at[BH_CORE_TRISC1], &p, r);
	cr_expect_eq(r->status, BH_RUN_FAULTED);
	expect_in_report(r, "RISC_DEST_ACCESS_CTRL fmt 1 (integer conversion) is not modelled");
	bh_tensix_cfg_store(tile0(dev), 0, 3, 3u << 21);
	run_prog(dev, BH_CORE_TRISC1, core_code_at[BH_CORE_TRISC1], &p, r);
	cr_expect_eq(r->status, BH_RUN_FAULTED);
	expect_in_report(r, "a 4-byte access in view fmt 3, whose elements are 2 bytes");
	free(r);
	bh_device_close(dev);
}

#define MOVD2A(row, am, four, dst) TT(0x08, (uint32_t)(row) << 17 | (uint32_t)(am) << 14 | (uint32_t)(four) << 13 | (dst))
#define MOVD2B(row, am, four, dst) TT(0x0A, (uint32_t)(row) << 17 | (uint32_t)(am) << 14 | (uint32_t)(four) << 13 | (dst))

/* MOVD2A/MOVD2B put Dst rows back into the matrix unit's Src bank in the Src layout: a BF16 Dst
 * row as BF16, an FP32 Dst row truncated to TF32 (SrcA format TF32). */
Test(tensix_data, movd2a_and_movd2b_move_dst_rows_into_src)
{
	struct bh_device *dev = dp_open();
	struct tt_dp *dp = dp_of(dev);
	for (unsigned r = 0; r < 4; r++)
		for (unsigned c = 0; c < 16; c++)
			tt_dst16_write(dp, 8 + r, c, tt_dst_from_bf16(bf16_of(va(r, c))));
	const uint32_t w[] = { SETDVALID(3), MOVD2A(4, 0, 1, 8), MOVD2B(0, 0, 0, 9) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned r = 0; r < 4; r++)
		for (unsigned c = 0; c < 16; c++)
			cr_expect_eq(atomic_load(&dp->srca[0][4 + r][c]), tt_src_from_bf16(bf16_of(va(r, c))), "SrcA [%u][%u]", r, c);
	cr_expect_eq(atomic_load(&dp->srcb[0][0][3]), tt_src_from_bf16(bf16_of(va(1, 3))));
	/* FP32 Dst, TF32 view: the low 13 mantissa bits go */
	set_alu(dev, (uint32_t)TT_FMT_TF32 << 17 | BH_DP_ALU_FP32);
	tt_dst32_write(dp, 2, 6, tt_dst_from_fp32(0xC0ABCDEFu));
	const uint32_t w2[] = { MOVD2B(5, 0, 0, 2) };
	run_pushes(dev, BH_CORE_TRISC1, w2, 1);
	cr_expect_eq(atomic_load(&dp->srcb[0][5][6]), tt_src_from_fp32(0xC0ABCDEFu));
	bh_device_close(dev);
}

/* LaneConfig = Imm16 in the lanes Imm16's even bits choose (mask), or in every lane */
#define SFPCONFIG_LANES(imm16, mask) TT(0x91, (uint32_t)(imm16) << 8 | 15u << 4 | ((mask) ? 9u : 1u))
#define BLOCKED(c) ((c) == 0 || (c) == 4 || (c) == 7 || (c) == 11)

/* LaneConfig's BLOCK_DEST_MOV (SFPCONFIG of LaneConfig, lanes chosen by Imm16's even bits): bit 9
 * of lanes 0 and 2 blocks columns 0 and 4, bit 10 of lanes 3 and 5 (Imm16 0x440's bits 6 and 10)
 * columns 7 and 11. Every MOV instruction
 * (MOVA2D, MOVB2D, MOVB2A, MOVD2A, MOVD2B) leaves those columns of its destination as they were
 * and moves the others; LaneConfig cleared, every column moves again. */
Test(tensix_data, block_dest_mov_keeps_the_blocked_columns_of_every_move)
{
	struct bh_device *dev = dp_open();
	struct tt_dp *dp = dp_of(dev);
	const uint16_t old16 = bf16_of(-5.5f);
	const uint32_t old_src = tt_src_from_bf16(old16);
	fill_ab(dev, 0);
	for (unsigned c = 0; c < 16; c++) {
		tt_dst16_write(dp, 200, c, tt_dst_from_bf16(bf16_of(va(5, c))));   /* MOVD2A/MOVD2B source */
		for (unsigned r = 0; r < 8; r++)
			tt_dst16_write(dp, 40 + r, c, tt_dst_from_bf16(old16));      /* MOVA2D, MOVB2D targets */
		put_src(dev, false, 0, 20, c, old_src);                           /* MOVB2A target */
		put_src(dev, false, 0, 21, c, old_src);                           /* MOVD2A target */
		put_src(dev, true, 0, 30, c, old_src);                            /* MOVD2B target */
	}
	const uint32_t w[] = {
		SETDVALID(3),
		SFPCONFIG_LANES(0x211, 1),   /* lanes 0 and 2 (bits 0 and 4): 0x211 */
		SFPCONFIG_LANES(0x440, 1),   /* lanes 3 and 5 (bits 6 and 10): 0x440 */
		MOVA2D(0, 0, 0, 40), MOVB2D(1, 0, 0, 41), MOVB2A(20, 0, 0, 2),
		MOVD2A(21, 0, 0, 200), MOVD2B(30, 0, 0, 200),
		SFPCONFIG_LANES(0, 0),       /* every lane's LaneConfig 0 */
		MOVA2D(3, 0, 0, 42),
	};
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned c = 0; c < 16; c++) {
		bool blk = BLOCKED(c);
		cr_expect_eq(dst_bf16(dev, 40, c), blk ? -5.5f : va(0, c), "MOVA2D column %u", c);
		cr_expect_eq(dst_bf16(dev, 41, c), blk ? -5.5f : vb(1, c), "MOVB2D column %u", c);
		cr_expect_eq(atomic_load(&dp->srca[0][20][c]), blk ? old_src : tt_src_from_bf16(bf16_of(vb(2, c))),
			     "MOVB2A column %u", c);
		cr_expect_eq(atomic_load(&dp->srca[0][21][c]), blk ? old_src : tt_src_from_bf16(bf16_of(va(5, c))),
			     "MOVD2A column %u", c);
		cr_expect_eq(atomic_load(&dp->srcb[0][30][c]), blk ? old_src : tt_src_from_bf16(bf16_of(va(5, c))),
			     "MOVD2B column %u", c);
		cr_expect_eq(dst_bf16(dev, 42, c), va(3, c), "MOVA2D after the clear, column %u", c);
	}
	bh_device_close(dev);
}

/* ------------------------------------------------------------ Blackhole's implied Src formats */

#define UNPACR_NOP_SETDVALID(u) TT(0x43, (uint32_t)(u) << 23 | 0x7u)
#define THCON_REG2(u) (64u + 48u * (u) + 8u)   /* THCON_SEC[u].REG2: Out_data_format 3:0 */

/* SrcASrcB.md's layouts: a Src cell holds BF16 as Sign, Man(10b, low three zero), Exp(8b), FP16 as
 * Sign, Man(10b), Zero(3b), Exp(5b). The value a BF16 datum's cell has when read as FP16: the low
 * five bits of its exponent with the FP16 bias, its mantissa (zero or denormal exponents read 0). */
static float fp16_reading_of_bf16(float x)
{
	uint32_t b = b_of(x) >> 16, e5 = (b >> 7) & 31;
	float v = e5 ? ldexpf(1.f + (float)(b & 0x7F) / 128.f, (int)e5 - 15) : 0.f;
	return b >> 15 ? -v : v;
}

/* The tests of the consumers: the unpackers hand the banks over with UNPACR_NOP's SETDVALID form,
 * THCON Out_data_format BF16 for both (so the implied formats are BF16), while ALU_FORMAT_SPEC_REG0
 * says FP16; the cells hold BF16 datums. TRISC1 sets its DISABLE_IMPLIED_SRCA_FMT to dis_a and
 * DISABLE_IMPLIED_SRCB_FMT to dis_b, hands the banks over and runs ops[0..n). */
static void run_implied(struct bh_device *dev, uint32_t alu_extra, bool dis_a, bool dis_b, const uint32_t *ops, size_t n)
{
	bh_tensix_cfg_store(tile0(dev), 0, THCON_REG2(0), TT_FMT_BF16);
	bh_tensix_cfg_store(tile0(dev), 0, THCON_REG2(1), TT_FMT_BF16);
	set_alu(dev, (uint32_t)TT_FMT_FP16 << 17 | alu_extra);
	uint32_t w[16] = { SETC16(BH_DP_TCFG_DISABLE_IMPLIED_SRCA, dis_a), SETC16(BH_DP_TCFG_DISABLE_IMPLIED_SRCB, dis_b),
			   UNPACR_NOP_SETDVALID(0), UNPACR_NOP_SETDVALID(1) };
	cr_assert_leq(n, N(w) - 4);
	memcpy(w + 4, ops, n * sizeof *ops);
	run_pushes(dev, BH_CORE_TRISC1, w, 4 + n);
	cr_expect_eq(atomic_load(&dp_of(dev)->implied_srca[0]), TT_FMT_BF16, "UNPACR_NOP's SETDVALID form latched SrcA's");
	cr_expect_eq(atomic_load(&dp_of(dev)->implied_srcb[0]), TT_FMT_BF16, "and SrcB's Out_data_format");
}

/* ELWADD and ELWMUL (32-bit Dst): with the disable bit clear they read the BF16 datums as BF16 (the
 * implied format), 6 + 5 and 6 * 5; with it set as FP16 (the configured one), which turns 6 and 5
 * into 1.5 and 1.25 times 2^-14. SrcB follows SrcA's style: DISABLE_IMPLIED_SRCB_FMT alone changes
 * nothing (ELWADD.md reads ImpliedSrcAFmt only). */
Test(tensix_data, implied_srca_format_chooses_the_elementwise_style)
{
	for (int dis = 0; dis < 3; dis++) {
		for (int mul = 0; mul < 2; mul++) {
			struct bh_device *dev = t_open();
			for (unsigned i = 0; i < 8; i++)
				for (unsigned j = 0; j < 16; j++) {
					put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(6.f)));
					put_src(dev, true, 0, i, j, tt_src_from_bf16(bf16_of(5.f)));
				}
			const uint32_t op[] = { mul ? ELWMUL(0, 0, 0, 0) : ELWADD(0, 0, 0, 0, 0) };
			run_implied(dev, BH_DP_ALU_FP32, dis == 1, dis == 2, op, 1);
			float a = dis == 1 ? fp16_reading_of_bf16(6.f) : 6.f, b = dis == 1 ? fp16_reading_of_bf16(5.f) : 5.f;
			float want = mul ? a * b : a + b;
			cr_assert_eq(a, dis == 1 ? 0x1.8p-14f : 6.f);
			for (unsigned j = 0; j < 16; j++)
				cr_expect_eq(dst_fp32(dev, 7, j), want, "dis %d mul %d col %u: %a want %a", dis, mul, j,
					     dst_fp32(dev, 7, j), want);
			bh_device_close(dev);
		}
	}
}

/* MVMUL, DOTPV and GAPOOL (32-bit Dst): SrcA row 0 all 6, SrcB column 0 all 5, zeros elsewhere, so
 * every Dst datum of the block is one product: 30 in the implied BF16 style, 1.875 * 2^-28 in the
 * configured FP16 one. */
Test(tensix_data, implied_srca_format_chooses_the_matrix_product_style)
{
	static const struct { const char *name; uint32_t w; unsigned rows; } ops[] = {
		{ "MVMUL", MVMUL(0, 0, 0), 8 }, { "DOTPV", DOTPV(0, 1, 0, 0, 0), 8 }, { "GAPOOL", GAPOOL(0, 0, 0), 4 },
	};
	for (unsigned o = 0; o < N(ops); o++)
		for (int dis = 0; dis < 2; dis++) {
			struct bh_device *dev = t_open();
			for (unsigned i = 0; i < 16; i++)
				for (unsigned j = 0; j < 16; j++) {
					put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(i == 0 ? 6.f : 0.f)));
					put_src(dev, true, 0, i, j, tt_src_from_bf16(bf16_of(j == 0 ? 5.f : 0.f)));
				}
			run_implied(dev, BH_DP_ALU_FP32, dis, false, &ops[o].w, 1);
			float want = dis ? fp16_reading_of_bf16(6.f) * fp16_reading_of_bf16(5.f) : 30.f;
			for (unsigned i = 0; i < ops[o].rows; i++)
				for (unsigned j = 0; j < 16; j++)
					cr_expect_eq(dst_fp32(dev, i, j), want, "%s dis %d [%u][%u]: %a want %a", ops[o].name, dis, i, j,
						     dst_fp32(dev, i, j), want);
			bh_device_close(dev);
		}
}

/* GMPOOL (16-bit Dst, after ZEROACC): a column of 6s scaled by SrcB's 1.0. In the implied BF16
 * style the exponents add (129 + 127) and the max is written back as BF16 6; in the configured FP16
 * style their low five bits add (1 + 31) and it is written as FP16 with exponent 32 - 15 = 17 and
 * the same mantissa: FP16 6 (GMPOOL.md's ReadAndScaleSrc and WriteDst). */
Test(tensix_data, implied_srca_format_chooses_the_gmpool_style)
{
	for (int dis = 0; dis < 2; dis++) {
		struct bh_device *dev = t_open();
		for (unsigned i = 0; i < 16; i++) {
			put_src(dev, true, 0, 0, i, tt_src_from_bf16(bf16_of(1.f)));
			for (unsigned j = 0; j < 16; j++)
				put_src(dev, false, 0, i, j, tt_src_from_bf16(bf16_of(6.f)));
		}
		const uint32_t op[] = { ZEROACC_M(3, 0, 0, 0), GMPOOL(0, 0, 0, 0) };
		run_implied(dev, 0, dis, false, op, N(op));
		for (unsigned j = 0; j < 16; j++) {
			uint16_t d = tt_dst16_read(dp_of(dev), 0, j);
			if (dis)
				cr_expect_eq(tt_dst_to_fp16(d), 17u << 10 | 0x200u, "column %u: %04x", j, d);
			else
				cr_expect_eq(tt_dst_to_bf16(d), bf16_of(6.f), "column %u: %04x", j, d);
		}
		bh_device_close(dev);
	}
}

/* MOVA2D and MOVB2D (16-bit Dst): a BF16 6 keeps its eight exponent bits in the implied BF16 style
 * (RemoveLowMantissa: BF16 6 in Dst); the configured FP16 style keeps the low five (RemoveHighExponent:
 * FP16 with exponent 129 & 31 = 1, mantissa 0x200). MOVB2D reads SrcB's implied format under SrcA's
 * disable bit: DISABLE_IMPLIED_SRCB_FMT alone leaves it implied (ttsim's rule, tt-llk's usage). */
Test(tensix_data, implied_formats_choose_the_mova2d_and_movb2d_styles)
{
	for (int from_b = 0; from_b < 2; from_b++)
		for (int dis = 0; dis < 3; dis++) {
			struct bh_device *dev = t_open();
			for (unsigned j = 0; j < 16; j++)
				put_src(dev, from_b, 0, 2, j, tt_src_from_bf16(bf16_of(6.f)));
			const uint32_t op[] = { from_b ? MOVB2D(2, 0, 0, 9) : MOVA2D(2, 0, 0, 9) };
			run_implied(dev, 0, dis == 1, dis == 2, op, 1);
			for (unsigned j = 0; j < 16; j++) {
				uint16_t d = tt_dst16_read(dp_of(dev), 9, j);
				if (dis == 1)
					cr_expect_eq(tt_dst_to_fp16(d), 1u << 10 | 0x200u, "from_b %d column %u: %04x", from_b, j, d);
				else
					cr_expect_eq(tt_dst_to_bf16(d), bf16_of(6.f), "from_b %d dis %d column %u: %04x", from_b, dis,
						     j, d);
			}
			bh_device_close(dev);
		}
}

/* MOVD2A and MOVD2B (16-bit Dst) shuffle a Dst datum into the Src layout of their style: BF16 6 in
 * Dst goes to SrcA or SrcB as BF16 6 in the implied BF16 style, as the FP16 its bits spell in the
 * configured FP16 one. MOVD2A follows DISABLE_IMPLIED_SRCA_FMT, MOVD2B DISABLE_IMPLIED_SRCB_FMT
 * (MOVD2B.md; ttsim gates it by SrcA's bit). */
Test(tensix_data, implied_formats_choose_the_movd2a_and_movd2b_styles)
{
	for (int to_b = 0; to_b < 2; to_b++)
		for (int dis = 0; dis < 3; dis++) {
			struct bh_device *dev = t_open();
			struct tt_dp *dp = dp_of(dev);
			uint16_t d = tt_dst_from_bf16(bf16_of(6.f));
			for (unsigned j = 0; j < 16; j++)
				tt_dst16_write(dp, 12, j, d);
			const uint32_t op[] = { to_b ? MOVD2B(5, 0, 0, 12) : MOVD2A(5, 0, 0, 12) };
			run_implied(dev, 0, dis == 1, dis == 2, op, 1);
			bool configured = to_b ? dis == 2 : dis == 1;
			uint32_t want = configured ? tt_src_from_fp16(tt_dst_to_fp16(d)) : tt_src_from_bf16(bf16_of(6.f));
			cr_assert_neq(tt_src_from_fp16(tt_dst_to_fp16(d)), tt_src_from_bf16(bf16_of(6.f)));
			for (unsigned j = 0; j < 16; j++) {
				uint32_t got = atomic_load(to_b ? &dp->srcb[0][5][j] : &dp->srca[0][5][j]);
				cr_expect_eq(got, want, "to_b %d dis %d column %u: %05x want %05x", to_b, dis, j, got, want);
			}
			bh_device_close(dev);
		}
}

/* SETDVALID leaves the implied formats unpredictable on Blackhole (SETDVALID.md): a matrix unit
 * instruction that reads one faults as undefined, naming the bank and the disable bit; with the bit
 * set it reads the configured format and runs (the rest of this suite). */
Test(tensix_data, reading_an_implied_format_setdvalid_left_unpredictable_faults)
{
	struct bh_device *dev = t_open();
	const uint32_t pre[] = { SETDVALID(3) };
	expect_push_fault_after(dev, BH_CORE_TRISC1, pre, 1, ELWADD(0, 0, 0, 0, 0), "bad register value",
				"ELWADD reads SrcA bank 0's implied format, unpredictable after SETDVALID");
	cr_expect_eq(atomic_load(&dp_of(dev)->implied_srca[0]), TT_IMPLIED_UNPREDICTABLE);
	bh_device_close(dev);
	dev = t_open();
	const uint32_t pre_b[] = { SETC16(BH_DP_TCFG_DISABLE_IMPLIED_SRCA, 1), SETDVALID(2) };
	expect_push_fault_after(dev, BH_CORE_TRISC1, pre_b, N(pre_b), MOVD2B(0, 0, 0, 0), "bad register value",
				"MOVD2B reads SrcB bank 0's implied format, unpredictable after SETDVALID (undefined; see "
				"DISABLE_IMPLIED_SRCB_FMT)");
	bh_device_close(dev);
}

/* CLEARDVALID's Reset sets both banks' implied formats to 0 (FP32: the BF16 style) on Blackhole
 * (CLEARDVALID.md): MOVD2A, which does not wait for the bank, then moves a BF16 Dst datum as BF16
 * although UNPACR_NOP had handed bank 0 over as FP16 and the ALU format says FP16. */
Test(tensix_data, cleardvalid_reset_clears_the_implied_formats)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	bh_tensix_cfg_store(tile0(dev), 0, THCON_REG2(0), TT_FMT_FP16);
	bh_tensix_cfg_store(tile0(dev), 0, THCON_REG2(1), TT_FMT_FP16);
	set_alu(dev, (uint32_t)TT_FMT_FP16 << 17);   /* configured FP16 too: only the implied 0 reads BF16 */
	const uint32_t give[] = { UNPACR_NOP_SETDVALID(0), UNPACR_NOP_SETDVALID(1) };
	run_pushes(dev, BH_CORE_TRISC1, give, N(give));
	cr_expect_eq(atomic_load(&dp->implied_srca[0]), TT_FMT_FP16);
	cr_expect_eq(atomic_load(&dp->implied_srcb[0]), TT_FMT_FP16);
	uint16_t d = tt_dst_from_bf16(bf16_of(-2.5f));
	tt_dst16_write(dp, 3, 4, d);
	const uint32_t w[] = { CLEARDVALID(0, 0, 1), MOVD2A(1, 0, 0, 3) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	for (unsigned b = 0; b < 2; b++) {
		cr_expect_eq(atomic_load(&dp->implied_srca[b]), 0, "SrcA bank %u", b);
		cr_expect_eq(atomic_load(&dp->implied_srcb[b]), 0, "SrcB bank %u", b);
	}
	cr_expect_eq(atomic_load(&dp->srca[0][1][4]), tt_src_from_bf16(bf16_of(-2.5f)));
	bh_device_close(dev);
}
