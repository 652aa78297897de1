/* Compute kernels for the three TRISCs, under tt-metal's compute API names (copy_tile,
 * add_tiles, sub_tiles, mul_tiles, matmul_tiles, pack_tile, tile_regs_acquire/commit/wait/release),
 * written by this project on the Tensix data plane as bhemu models it (README, Tensix table).
 *
 * As in tt-metal, one kernel body runs on all three TRISCs: each call does its own thread's part
 * (TRISC0 unpacks, TRISC1 drives the matrix unit, TRISC2 packs) and nothing on the others. A TRISC
 * says which one it is with compute_begin() first. Tiles are 32x32 in four 16x16 faces, stored
 * face after face in L1 without headers; a "CB" here is a tile buffer in L1 (compute_cb_setup):
 * the tile index of a call selects the tile in it.
 *
 * Hand-overs: SrcA/SrcB by the data-valid mechanism (the last UNPACR of a tile flips the bank to
 * the matrix unit; the matrix unit's last instruction gives it back), Dst from math to pack by
 * Tensix semaphore TT_SEM_MATH_PACK (tile_regs_*), as tt-llk does. Configuration words a thread's
 * instructions read are written by that thread's own Tensix instructions (WRCFG, RMWCIB, SETC16),
 * so they take effect in order with its UNPACR/ELW/PACR instructions.
 *
 * Formats: BF16 or BFP8 tiles in, BF16 out; add/sub/mul/copy accumulate in a 16-bit BF16 Dst,
 * matmul in an FP32 Dst (packed to BF16 with rounding). */
#ifndef BHEMU_COMPUTE_H
#define BHEMU_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "multicore.h"
#include "tensix.h"

enum compute_thread { COMPUTE_UNPACK, COMPUTE_MATH, COMPUTE_PACK };

/* DataFormat codes (cores/tensix_fmt.h). */
#define COMPUTE_FMT_FP32 0u
#define COMPUTE_FMT_BF16 5u
#define COMPUTE_FMT_BFP8 6u

/* Math fidelity of matmul_tiles (number of fidelity phases - 1), as tt-metal's MathFidelity. */
enum compute_fidelity { LoFi = 0, HiFi2 = 1, HiFi3 = 2, HiFi4 = 3 };

#define COMPUTE_CBS 32
struct compute_cb {
	uint32_t addr;   /* first tile, 16-byte aligned */
	uint32_t fmt;    /* COMPUTE_FMT_* */
};
/* Shared by the TRISCs (plain L1): set up before compute_begin. */
extern struct compute_cb compute_cbs[COMPUTE_CBS];

static inline uint32_t compute_tile_bytes(uint32_t fmt)
{
	return fmt == COMPUTE_FMT_FP32 ? 4096u : fmt == COMPUTE_FMT_BFP8 ? 1088u : 2048u;
}

static inline void compute_cb_setup(unsigned cb, uint32_t addr, uint32_t fmt)
{
	compute_cbs[cb].addr = addr;
	compute_cbs[cb].fmt = fmt;
}

/* ---- instruction words of the data plane (Blackhole operand layouts) ---- */
#define TT_UNPACR(u, ch0z, flip) \
	TT_OP(0x42, (uint32_t)(u) << 23 | (uint32_t)(ch0z) << 15 | (uint32_t)(flip) << 6 | 1u)
#define TT_PACR(am, last)	TT_OP(0x41, (uint32_t)(am) << 15 | 1u << 8 | (uint32_t)(last))
#define TT_SETADCXX(units, x1, x0)	TT_OP(0x5E, (uint32_t)(units) << 21 | (uint32_t)(x1) << 10 | (x0))
#define TT_SETADCZW_Z0(units)	TT_OP(0x54, (uint32_t)(units) << 21 | 0x1u)
#define TT_ELW(op, flip, am, dst)	TT_OP(op, (uint32_t)(flip) << 22 | (uint32_t)(am) << 14 | (dst))
#define TT_ELWADD_OP 0x28u
#define TT_ELWSUB_OP 0x30u
#define TT_ELWMUL_OP 0x27u
#define TT_MVMUL(flip, am, dst)	TT_OP(0x26, (uint32_t)(flip) << 22 | (uint32_t)(am) << 14 | (dst))
#define TT_MOVA2D8(flip_unused, am, dst)	TT_OP(0x12, (uint32_t)(am) << 14 | 1u << 13 | (dst))
#define TT_SETRWC(clr, mask)	TT_OP(0x37, (uint32_t)(clr) << 22 | (mask))
#define TT_INCRWC(d, b, a)	TT_OP(0x38, (uint32_t)(d) << 14 | (uint32_t)(b) << 10 | (uint32_t)(a) << 6)
#define TT_CLEARDVALID(flip)	TT_OP(0x36, (uint32_t)(flip) << 22)
#define TT_ZEROACC_ALL		TT_OP(0x10, 3u << 19)
#define TT_SETC16(reg, v)	TT_OP(0xB2, (uint32_t)(reg) << 16 | (uint32_t)(v))
/* Config[idx] byte `byte`: the bits of mask take data's (atomic, in order in the thread). */
#define TT_RMWCIB(byte, idx, mask, data) \
	TT_OP(0xB3 + (byte), (uint32_t)(mask) << 16 | (uint32_t)(data) << 8 | (idx))

/* Configuration words and ThreadConfig entries used here (Blackhole). */
#define CFG_ALU 1u
#define CFG_THCON(u) (64u + 48u * (u))
#define CFG_UNP0_BASE1 49u
#define CFG_PCK_XY0 12u
#define CFG_PCK_DEST_RD 18u
#define CFG_PCK_SEC0_OFFSET 180u
#define TCFG_FIDELITY_BASE 11u
#define TCFG_ADDR_MOD_AB 12u
#define TCFG_ADDR_MOD_DST 28u
#define TCFG_ADDR_MOD_PACK 37u
#define COMPUTE_GPR 48u   /* GPRs 48..49: the library's WRCFG staging */

extern BARE_LDM uint32_t compute_role;
extern BARE_LDM uint32_t compute_fidelity;
extern volatile uint32_t compute_sems_ready;
#define COMPUTE_SEMS_READY 0xC0FFEE01u
/* The library's state: expand once in the program. */
#define COMPUTE_DEFINE_STATE \
	struct compute_cb compute_cbs[COMPUTE_CBS]; \
	BARE_LDM uint32_t compute_role; \
	BARE_LDM uint32_t compute_fidelity; \
	volatile uint32_t compute_sems_ready

/* Config[idx] = v, in order in this thread's instruction stream (then a NOP: the word is not
 * read in the cycle after its WRCFG). */
static inline void compute_wrcfg(unsigned idx, uint32_t v)
{
	tt_push(TT_SETDMAREG_LO(COMPUTE_GPR, v & 0xFFFF));
	tt_push(TT_SETDMAREG_HI(COMPUTE_GPR, v >> 16));
	tt_push(TT_WRCFG(COMPUTE_GPR, idx));
	tt_push(TT_NOP);
}

/* The field of Config[idx] at bits lo..lo+width-1 (within one word) = v, atomically. */
static inline void compute_cfg_field(unsigned idx, unsigned lo, unsigned width, uint32_t v)
{
	for (unsigned b = lo / 8; b <= (lo + width - 1) / 8; b++) {
		uint32_t m = 0;
		for (unsigned k = lo; k < lo + width; k++)
			if (k / 8 == b)
				m |= 1u << (k % 8);
		tt_push(TT_RMWCIB(b, idx, m, (uint8_t)((v << lo) >> (8 * b)) & m));
	}
}

/* Which TRISC this is; TRISC0 also initialises the Math->Pack semaphore and the others wait for
 * it. Sets this thread's counters and address modes. */
static inline void compute_begin(enum compute_thread role)
{
	compute_role = role;
	if (role == COMPUTE_UNPACK) {
		tt_push(TT_SEMINIT(1u << TT_SEM_MATH_PACK, 1, 0));
		tt_push(TT_SETADCXX(3, 255, 0));   /* a face (256 datums) per UNPACR */
		tt_sync();
		compute_sems_ready = COMPUTE_SEMS_READY;
		return;
	}
	while (compute_sems_ready != COMPUTE_SEMS_READY)
		__asm__ volatile("fence" ::: "memory");   /* past the L0 data cache, each poll */
	if (role == COMPUTE_MATH) {
		tt_push(TT_SETC16(TCFG_ADDR_MOD_AB + 0, 8u | 8u << 8));   /* 0: SrcA, SrcB, Dst + 8 */
		tt_push(TT_SETC16(TCFG_ADDR_MOD_DST + 0, 8u));
		tt_push(TT_SETC16(TCFG_ADDR_MOD_AB + 1, 0));             /* 1: nothing moves */
		tt_push(TT_SETC16(TCFG_ADDR_MOD_DST + 1, 0));
	} else {
		tt_push(TT_SETC16(TCFG_ADDR_MOD_PACK + 0, 1u));          /* 0: next face */
		tt_push(TT_SETC16(TCFG_ADDR_MOD_PACK + 1, 1u << 5));     /* 1: back to face 0 */
		tt_push(TT_SETADCXX(4, 255, 0));
	}
}

/* ---- unpack (TRISC0) ---- */

/* Unpacker u: the tile's format and four faces of 16x16, one face per UNPACR. */
static inline void compute_unpack_config(unsigned u, uint32_t fmt)
{
	compute_wrcfg(CFG_THCON(u) + 0, fmt | 1u << 4 | 16u << 16);
	compute_wrcfg(CFG_THCON(u) + 1, 16u | 4u << 16);
	compute_wrcfg(CFG_THCON(u) + 8, fmt | 1u << 10);   /* out = in; SrcRow + 16 per face */
	if (u == 0)
		compute_wrcfg(CFG_UNP0_BASE1, 4u * 16u * 2u);   /* SrcA output starts at row 4 */
}

/* Unpack tile itile of cb into SrcA (u 0) or SrcB (u 1) and hand the bank to the matrix unit. */
static inline void compute_unpack_tile(unsigned u, unsigned cb, unsigned itile)
{
	uint32_t addr = compute_cbs[cb].addr + itile * compute_tile_bytes(compute_cbs[cb].fmt);
	compute_wrcfg(CFG_THCON(u) + 12, addr / 16 - 1);
	tt_push(TT_SETADCZW_Z0(1u << u));
	for (unsigned f = 0; f < 4; f++)
		tt_push(TT_UNPACR(u, 1, f == 3));
}

/* ---- math (TRISC1) ---- */

static inline void compute_math_formats(uint32_t fmt_a, int fp32_dst)
{
	compute_cfg_field(CFG_ALU, 17, 4, fmt_a);
	compute_cfg_field(CFG_ALU, 29, 1, fp32_dst ? 1u : 0u);
}

/* 64 rows of SrcA op SrcB into Dst tile idst, eight at a time; the last gives both banks back. */
static inline void compute_math_eltwise(uint32_t op, unsigned idst)
{
	for (unsigned r = 0; r < 8; r++)
		tt_push(TT_ELW(op, r == 7 ? 3u : 0u, 0, idst * 64u));
	tt_push(TT_SETRWC(0, 0xF));
}

/* ---- pack (TRISC2) ---- */

static inline void compute_pack_config(uint32_t out_fmt, int fp32_dst)
{
	compute_cfg_field(CFG_ALU, 25, 4, fp32_dst ? COMPUTE_FMT_BF16 : out_fmt);
	compute_wrcfg(CFG_PCK_DEST_RD, fp32_dst ? 1u : 0u);
	compute_wrcfg(CFG_THCON(0) + 6, 1u | out_fmt << 4 | (fp32_dst ? COMPUTE_FMT_BF16 : out_fmt) << 8);
	compute_wrcfg(CFG_PCK_XY0, 512u << 16);   /* Y: one face (256 datums of the BF16 intermediate) */
}

/* ---- the tt-metal compute API ---- */

/* Dst for math: waits until pack has released it. */
static inline void tile_regs_acquire(void)
{
	if (compute_role == COMPUTE_MATH)
		tt_push(TT_SEMWAIT(0x040u, 1u << TT_SEM_MATH_PACK, TT_SEMWAIT_WHILE_MAX));
}

/* Math is done with Dst: pack may read it. */
static inline void tile_regs_commit(void)
{
	if (compute_role == COMPUTE_MATH)
		tt_push(TT_SEMPOST(1u << TT_SEM_MATH_PACK));
}

/* Pack waits until math has committed Dst. */
static inline void tile_regs_wait(void)
{
	if (compute_role == COMPUTE_PACK)
		tt_push(TT_SEMWAIT(0x004u, 1u << TT_SEM_MATH_PACK, TT_SEMWAIT_WHILE_ZERO));
}

/* Pack is done with Dst: it clears it (ZEROACC, as tt-llk's packer does) and math may write it
 * again. */
static inline void tile_regs_release(void)
{
	if (compute_role == COMPUTE_PACK) {
		tt_push(TT_ZEROACC_ALL);
		tt_push(TT_SEMGET(1u << TT_SEM_MATH_PACK));
	}
}

/* Unpacker and math set-up for two-input element-wise operations on icb0, icb1 into ocb. */
static inline void binary_op_init_common(unsigned icb0, unsigned icb1, unsigned ocb)
{
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_config(0, compute_cbs[icb0].fmt);
		compute_unpack_config(1, compute_cbs[icb1].fmt);
	} else if (compute_role == COMPUTE_MATH) {
		compute_math_formats(COMPUTE_FMT_BF16, 0);
	} else {
		compute_pack_config(compute_cbs[ocb].fmt, 0);
	}
}

static inline void compute_binary(uint32_t op, unsigned icb0, unsigned icb1, unsigned itile0, unsigned itile1,
				  unsigned idst)
{
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_tile(0, icb0, itile0);
		compute_unpack_tile(1, icb1, itile1);
	} else if (compute_role == COMPUTE_MATH) {
		if (op == TT_ELWMUL_OP)
			tt_push(TT_ZEROACC_ALL);   /* ELWMUL accumulates: Dst = 0 first */
		compute_math_eltwise(op, idst);
	}
}

static inline void add_tiles(unsigned icb0, unsigned icb1, unsigned itile0, unsigned itile1, unsigned idst)
{
	compute_binary(TT_ELWADD_OP, icb0, icb1, itile0, itile1, idst);
}

static inline void sub_tiles(unsigned icb0, unsigned icb1, unsigned itile0, unsigned itile1, unsigned idst)
{
	compute_binary(TT_ELWSUB_OP, icb0, icb1, itile0, itile1, idst);
}

static inline void mul_tiles(unsigned icb0, unsigned icb1, unsigned itile0, unsigned itile1, unsigned idst)
{
	compute_binary(TT_ELWMUL_OP, icb0, icb1, itile0, itile1, idst);
}

/* One-input operations from icb into ocb: unpacker 0, math formats and the packer. */
static inline void unary_op_init_common(unsigned icb, unsigned ocb)
{
	if (compute_role == COMPUTE_UNPACK)
		compute_unpack_config(0, compute_cbs[icb].fmt);
	else if (compute_role == COMPUTE_MATH)
		compute_math_formats(COMPUTE_FMT_BF16, 0);
	else
		compute_pack_config(compute_cbs[ocb].fmt, 0);
}

/* copy_tile: unpack to SrcA and move it into Dst (MOVA2D, eight rows at a time). */
static inline void copy_tile_init(unsigned icb)
{
	if (compute_role == COMPUTE_UNPACK)
		compute_unpack_config(0, compute_cbs[icb].fmt);
}

static inline void copy_tile(unsigned icb, unsigned itile, unsigned idst)
{
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_tile(0, icb, itile);
	} else if (compute_role == COMPUTE_MATH) {
		for (unsigned r = 0; r < 8; r++)
			tt_push(TT_MOVA2D8(0, 0, idst * 64u));   /* ADDR_MOD 0: SrcA and Dst + 8 */
		tt_push(TT_CLEARDVALID(1));
		tt_push(TT_SETRWC(0, 0xF));
	}
}

/* matmul: Dst tile idst (FP32) += tile itile0 of in0 (M x K) @ tile itile1 of in1 (K x N),
 * with the fidelity phases of `fidelity`. Unpacker 0 puts in1 into SrcA, unpacker 1 in0 into
 * SrcB (MVMUL computes SrcB @ SrcA). */
static inline void mm_init(unsigned in0, unsigned in1, unsigned ocb, enum compute_fidelity fidelity)
{
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_config(0, compute_cbs[in1].fmt);
		compute_unpack_config(1, compute_cbs[in0].fmt);
	} else if (compute_role == COMPUTE_MATH) {
		compute_fidelity = fidelity;
		compute_math_formats(COMPUTE_FMT_BF16, 1);
	} else {
		compute_pack_config(compute_cbs[ocb].fmt, 1);
	}
}

/* RWC SrcA = a, SrcB = b (SETRWC clears; INCRWC adds at most 15 a step). */
static inline void compute_rwc_ab(unsigned a, unsigned b)
{
	tt_push(TT_SETRWC(0, 0x3));
	while (a || b) {
		unsigned da = a > 15 ? 15 : a, db = b > 15 ? 15 : b;
		tt_push(TT_INCRWC(0, db, da));
		a -= da;
		b -= db;
	}
}

static inline void matmul_tiles(unsigned in0, unsigned in1, unsigned itile0, unsigned itile1, unsigned idst,
				unsigned transpose)
{
	(void)transpose;
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_tile(0, in1, itile1);
		compute_unpack_tile(1, in0, itile0);
		return;
	}
	if (compute_role != COMPUTE_MATH)
		return;
	/* Faces f(r, c) = 2r + c at Src rows 16 f. C(i,j) += A(i,k) @ B(k,j), eight rows at a time;
	 * the fidelity loop outermost. */
	for (unsigned p = 0; p <= compute_fidelity; p++) {
		tt_push(TT_SETC16(TCFG_FIDELITY_BASE, p));
		for (unsigned i = 0; i < 2; i++)
			for (unsigned j = 0; j < 2; j++)
				for (unsigned k = 0; k < 2; k++)
					for (unsigned h = 0; h < 2; h++) {
						compute_rwc_ab(16u * (2 * k + j), 16u * (2 * i + k) + 8u * h);
						bool last = p == compute_fidelity && i == 1 && j == 1 && k == 1 && h == 1;
						tt_push(TT_MVMUL(last ? 3u : 0u, 1, idst * 64u + 16u * (2 * i + j) + 8u * h));
					}
	}
	tt_push(TT_SETC16(TCFG_FIDELITY_BASE, 0));
	tt_push(TT_SETRWC(0, 0xF));
}

/* Pack Dst tile idst into tile itile of ocb. */
static inline void pack_tile(unsigned idst, unsigned ocb, unsigned itile)
{
	if (compute_role != COMPUTE_PACK)
		return;
	uint32_t addr = compute_cbs[ocb].addr + itile * compute_tile_bytes(compute_cbs[ocb].fmt);
	compute_wrcfg(CFG_THCON(0) + 5, addr / 16 - 1);
	compute_wrcfg(CFG_PCK_SEC0_OFFSET, idst * 64u);
	for (unsigned f = 0; f < 4; f++)
		tt_push(TT_PACR(f == 3, f == 3));
}

/* Each TRISC: every instruction it pushed has executed. */
static inline void compute_end(void)
{
	tt_sync();
}

#endif
