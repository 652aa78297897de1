/* Reductions for compute kernels (firmware/compute/compute.h), under tt-metal's names:
 * reduce_init and reduce_tile with PoolType SUM / AVG / MAX and ReduceDim REDUCE_COL, on the
 * matrix unit's pooling instructions as tt-llk uses them (GMPOOL.md, GAPOOL.md).
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
 * REDUCE_ROW and REDUCE_SCALAR are not in this library yet: reduce_tile with them stops the TRISC
 * at an ebreak (a fault naming its pc), never a silent wrong result. */
#ifndef BHEMU_COMPUTE_REDUCE_H
#define BHEMU_COMPUTE_REDUCE_H

#include "compute.h"

enum compute_pool { SUM, AVG, MAX };
enum compute_reduce_dim { REDUCE_ROW, REDUCE_COL, REDUCE_SCALAR };

#define TT_GPOOL(op, flip, am, dst) \
	TT_OP(op, (uint32_t)(flip) << 22 | 1u << 19 | (uint32_t)(am) << 15 | (dst))   /* 16x16, no argmax */
#define TT_GMPOOL_OP 0x33u
#define TT_GAPOOL_OP 0x34u

static inline void reduce_init(enum compute_pool pool, enum compute_reduce_dim dim, unsigned icb, unsigned icb_scaler,
			       unsigned ocb)
{
	(void)dim;
	bool fp32 = pool != MAX;
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_config(0, compute_cbs[icb].fmt);
		compute_unpack_config(1, compute_cbs[icb_scaler].fmt);
	} else if (compute_role == COMPUTE_MATH) {
		compute_math_formats(COMPUTE_FMT_BF16, fp32);
		tt_push(TT_ZEROACC_ALL);
	} else {
		compute_pack_config(compute_cbs[ocb].fmt, fp32);
	}
}

static inline void reduce_tile(enum compute_pool pool, enum compute_reduce_dim dim, unsigned icb, unsigned icb_scaler,
			       unsigned itile, unsigned itile_scaler, unsigned idst)
{
	if (dim != REDUCE_COL)
		__builtin_trap();   /* not in the library yet (above) */
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_tile(0, icb, itile);
		compute_unpack_tile(1, icb_scaler, itile_scaler);
		return;
	}
	if (compute_role != COMPUTE_MATH)
		return;
	unsigned phases = pool == MAX ? 1 : 4;
	for (unsigned p = 0; p < phases; p++) {
		if (pool != MAX)
			tt_push(TT_SETC16(TCFG_FIDELITY_BASE, p));
		for (unsigned f = 0; f < 4; f++) {
			compute_rwc_ab(16u * f, 0);
			bool last = p == phases - 1 && f == 3;
			/* ADDR_MOD 1: nothing moves (compute_begin) */
			tt_push(TT_GPOOL(pool == MAX ? TT_GMPOOL_OP : TT_GAPOOL_OP, last ? 3u : 0u, 1, idst * 64u + 16u * (f & 1)));
		}
	}
	if (pool != MAX)
		tt_push(TT_SETC16(TCFG_FIDELITY_BASE, 0));
	tt_push(TT_SETRWC(0, 0xF));
}

#endif
