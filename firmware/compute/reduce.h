/* Reductions for compute kernels (firmware/compute/compute.h), under tt-metal's names:
 * reduce_init and reduce_tile with PoolType SUM / AVG / MAX and ReduceDim REDUCE_COL, REDUCE_ROW and
 * REDUCE_SCALAR, on the matrix unit's pooling and move instructions as tt-llk uses them (GMPOOL.md,
 * GAPOOL.md, MOVD2B.md, TRNSPSRCB.md, MOVB2D.md, MOVB2A.md).
 *
 * REDUCE_COL reduces each column of a 32x32 tile over its 32 rows into row 0 of the Dst tile
 * (faces 0 and 1; the other rows of those faces and faces 2 and 3 stay zero): face f of the
 * input, in SrcA rows 16f, is pooled into Dst face f % 2. The scaler tile (unpacked into SrcB)
 * holds the scaling factor in row 0 of face 0 and zeros in rows 1-3: SUM and AVG multiply by it
 * (1.0 for a sum, 1/32 for the mean over the rows), MAX uses only its exponent (GMPOOL scales
 * each row by it), so MAX wants 1.0. Successive reduce_tile calls into the same Dst tile
 * accumulate (SUM) or keep the max (MAX) over several tiles, as in tt-metal.
 *
 * SUM/AVG run GAPOOL in all four fidelity phases into an FP32 Dst (exact products, packed to
 * BF16 with rounding); MAX runs GMPOOL in a 16-bit BF16 Dst, which reduce_init leaves Undefined
 * (ZEROACC) so that the first max is taken against minus infinity, GMPOOL's identity.
 *
 * REDUCE_ROW follows tt-llk's Blackhole sequence: the unpacker transposes each face (Haloize), so
 * pooling faces 0 and 1 (2 and 3) gives the reductions of tile rows 0-15 (16-31) in one Dst row,
 * which MOVD2B / TRNSPSRCB / MOVB2D turn into column 0 (reduce_transpose_row). The output holds
 * the reduction of row r in (r, 0); as in tt-llk, rows 0 and 16 also keep the pooled row (column
 * c < 16 of row 16h: the reduction of row 16h + c), the other datums are zero. The scaler tile's
 * rows 17-31 of SrcB (face 1 rows 1-15) must be zero, as tt-metal's scaler tiles are.
 * REDUCE_SCALAR pools all four faces into a scratch row, moves it through SrcB (transposed) into
 * SrcA column 0 and pools that into (0, 0), as tt-llk does: the scaler applies twice (AVG over a
 * tile wants 1/32), and in an FP32 Dst MOVD2B truncates the 16 column partials to BF16 on the way
 * (its documented FP32 -> BF16 conversion), as on silicon. Row 0's other datums are zero. */
#ifndef BHEMU_COMPUTE_REDUCE_H
#define BHEMU_COMPUTE_REDUCE_H

#include "compute.h"

enum compute_pool { SUM, AVG, MAX };
enum compute_reduce_dim { REDUCE_ROW, REDUCE_COL, REDUCE_SCALAR };

#define TT_GPOOL(op, flip, am, dst) \
	TT_OP(op, (uint32_t)(flip) << 22 | 1u << 19 | (uint32_t)(am) << 15 | (dst))   /* 16x16, no argmax */
#define TT_GMPOOL_OP 0x33u
#define TT_GAPOOL_OP 0x34u
/* The moves of the transposes (MOVD2B.md, MOVB2D.md, MOVB2A.md, TRNSPSRCB.md, GATESRCRST.md), ADDR_MOD 1. */
#define TT_MOVD2B_ROW(lo, srcb, dst) \
	TT_OP(0x0A, (uint32_t)(lo) << 23 | (uint32_t)(srcb) << 17 | 1u << 14 | (dst))
#define TT_MOVB2D_ROWS(lo, srcb, four, dst) \
	TT_OP(0x13, (uint32_t)(lo) << 23 | (uint32_t)(srcb) << 17 | 1u << 14 | (uint32_t)(four) << 13 | (dst))
#define TT_MOVB2A_4ROWS(srca, srcb)	TT_OP(0x0B, (uint32_t)(srca) << 17 | 1u << 14 | 1u << 13 | (srcb))
#define TT_TRNSPSRCB			TT_OP(0x16, 0)
#define TT_GATESRCRST_BOTH		TT_OP(0x35, 3u)
#define TT_ZEROACC_ROW(dst)		TT_OP(0x10, 1u << 14 | (dst))
#define CFG_ACC_CTRL 2u   /* ALU_ACC_CTRL_Zero_Flag_disabled_src, bit 0 */
#define CFG_ALU_SPEC 0u   /* ALU_FORMAT_SPEC_REG_SrcA_val 3:0, SrcA_override 4 */

static inline void reduce_init(enum compute_pool pool, enum compute_reduce_dim dim, unsigned icb, unsigned icb_scaler,
			       unsigned ocb)
{
	bool fp32 = pool != MAX;
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_config(0, compute_cbs[icb].fmt);
		compute_unpack_config(1, compute_cbs[icb_scaler].fmt);
		if (dim == REDUCE_ROW)
			compute_cfg_field(CFG_THCON(0) + 8, 8, 1, 1);   /* Haloize: each face transposed */
	} else if (compute_role == COMPUTE_MATH) {
		compute_math_formats(COMPUTE_FMT_BF16, fp32);
		tt_push(TT_ZEROACC_ALL);
	} else {
		compute_pack_config(compute_cbs[ocb].fmt, fp32);
	}
}

/* Pool the faces of mask (bit f: the face in SrcA rows 16f) into Dst row drow (+ step for the
 * odd faces), over all fidelity phases for SUM/AVG. The banks stay the matrix unit's. */
static inline void reduce_pool_faces(enum compute_pool pool, unsigned mask, unsigned drow, unsigned step)
{
	unsigned phases = pool == MAX ? 1 : 4;
	for (unsigned p = 0; p < phases; p++) {
		if (pool != MAX)
			tt_push(TT_SETC16(TCFG_FIDELITY_BASE, p));
		for (unsigned f = 0; f < 4; f++) {
			if (!(mask >> f & 1))
				continue;
			compute_rwc_ab(16u * f, 0);
			/* ADDR_MOD 1: nothing moves (compute_begin) */
			tt_push(TT_GPOOL(pool == MAX ? TT_GMPOOL_OP : TT_GAPOOL_OP, 0, 1, drow + step * (f & 1)));
		}
	}
	if (pool != MAX)
		tt_push(TT_SETC16(TCFG_FIDELITY_BASE, 0));
	compute_rwc_ab(0, 0);
}

/* Dst row drow into SrcB row 16 (its bits 31:16, or 15:0 with lo), rows 16-31 transposed, row 16
 * again: SrcB rows 17-31 hold the row's datums 1-15 in column 0 (and zeros elsewhere, as the
 * scaler tile's rows 17-31 are zero), row 16 the row itself. */
static inline void reduce_row_to_srcb(bool lo, unsigned drow)
{
	tt_push(TT_MOVD2B_ROW(lo, 16, drow));
	tt_push(TT_TRNSPSRCB);
	tt_push(TT_MOVD2B_ROW(lo, 16, drow));
}

/* SrcB rows 17-31 into Dst rows drow+1..drow+15 (row drow keeps the pooled row). */
static inline void reduce_srcb_to_rows(bool lo, unsigned drow)
{
	for (unsigned r = 1; r < 4; r++)
		tt_push(TT_MOVB2D_ROWS(lo, 16 + r, 0, drow + r));
	for (unsigned r = 4; r < 16; r += 4)
		tt_push(TT_MOVB2D_ROWS(lo, 16 + r, 1, drow + r));
}

/* The pooled row drow (datum c the reduction of the tile's row c of this half) transposed into
 * column 0 of rows drow..drow+15, as tt-llk's reduce_row_perform_transpose does: MOVD2B, TRNSPSRCB,
 * MOVD2B, MOVB2D (MOVB2D where tt-llk's 16-bit path adds SrcB to a zeroed SrcA: the same datums).
 * A 16-bit Dst moves in one pass. An FP32 Dst (SUM/AVG) moves in two, as tt-llk's
 * enforce_fp32_accumulation does, but on the documented paths (tt-llk instead clears
 * ALU_ACC_CTRL_Fp32_enabled around the moves, a Blackhole workaround no page describes): bits 31:16
 * with SrcA's format overridden to TF32 and DISABLE_IMPLIED_SRCA_FMT set (Blackhole's MOVB2D would
 * otherwise read SrcB's implied format; tt-llk sets the bit the same way), so that MOVB2D writes
 * them with zero low bits, then bits 15:0 with UseDst32bLo, with denormal flushing off (the low
 * halves are not floats). Row drow itself is not rewritten, so it keeps all 32 bits. */
static inline void reduce_transpose_row(enum compute_pool pool, unsigned drow)
{
	if (pool == MAX) {
		reduce_row_to_srcb(false, drow);
		for (unsigned r = 0; r < 16; r += 4)
			tt_push(TT_MOVB2D_ROWS(0, 16 + r, 1, drow + r));
		return;
	}
	compute_cfg_field(CFG_ACC_CTRL, 0, 1, 1);
	reduce_row_to_srcb(false, drow);
	compute_cfg_field(CFG_ALU_SPEC, 0, 5, 0x10u | 4u /* TF32 */);
	tt_push(TT_SETC16(TCFG_DISABLE_IMPLIED_SRCA, 1));   /* MOVB2D reads the TF32, not SrcB's implied BF16 */
	reduce_srcb_to_rows(false, drow);
	tt_push(TT_SETC16(TCFG_DISABLE_IMPLIED_SRCA, 0));
	compute_cfg_field(CFG_ALU_SPEC, 0, 5, 0);
	reduce_row_to_srcb(true, drow);
	reduce_srcb_to_rows(true, drow);
	compute_cfg_field(CFG_ACC_CTRL, 0, 1, 0);
}

static inline void reduce_tile(enum compute_pool pool, enum compute_reduce_dim dim, unsigned icb, unsigned icb_scaler,
			       unsigned itile, unsigned itile_scaler, unsigned idst)
{
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_tile(0, icb, itile);
		compute_unpack_tile(1, icb_scaler, itile_scaler);
		return;
	}
	if (compute_role != COMPUTE_MATH)
		return;
	unsigned base = idst * 64u;
	if (dim == REDUCE_COL) {
		reduce_pool_faces(pool, 0xF, base, 16);   /* faces 0 and 2 into Dst face 0, 1 and 3 into face 1 */
	} else if (dim == REDUCE_ROW) {
		for (unsigned h = 0; h < 2; h++) {
			reduce_pool_faces(pool, 3u << (2 * h), base + 32 * h, 0);
			reduce_transpose_row(pool, base + 32 * h);
		}
	} else {
		/* Column reductions of all four faces into the scratch row 4, that row through SrcB
		 * (transposed) into SrcA rows 0-15, the scratch row cleared, the column pooled into row 0. */
		reduce_pool_faces(pool, 0xF, base + 4, 0);
		tt_push(TT_MOVD2B_ROW(0, 16, base + 4));
		tt_push(TT_GATESRCRST_BOTH);
		tt_push(TT_TRNSPSRCB);
		tt_push(TT_GATESRCRST_BOTH);
		for (unsigned r = 0; r < 16; r += 4)
			tt_push(TT_MOVB2A_4ROWS(r, 16 + r));
		tt_push(TT_GATESRCRST_BOTH);
		tt_push(TT_ZEROACC_ROW(base + 4));
		reduce_pool_faces(pool, 0x1, base, 0);
	}
	tt_push(TT_SETRWC(3, 0xF));   /* both banks back to the unpackers; counters to 0 */
}

#endif
