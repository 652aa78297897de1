/* Data-plane internals shared by cores/tensix_data.c (register files, matrix unit) and
 * cores/tensix_unpack.c (unpackers, packers, ADCs). Configuration word and ThreadConfig entry
 * indices are Blackhole's (facts from its register tables). */
#ifndef BH_CORES_TENSIX_DP_H
#define BH_CORES_TENSIX_DP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cores/tensix.h"

/* Config words (per state). */
#define BH_DP_CFG_ALU_SPEC 0u          /* ALU_FORMAT_SPEC_REG: SrcA_val 3:0, SrcA_override 4 */
#define BH_DP_CFG_ALU 1u               /* SrcAUnsigned 15, SrcBUnsigned 16, REG0_SrcA 20:17, REG1_SrcB 24:21,
					* REG2_Dstacc 28:25, ALU_ACC_CTRL_Fp32_enabled 29, INT8_math_enabled 31 */
#define BH_DP_ALU_FP32 (1u << 29)
#define BH_DP_ALU_INT8_MATH (1u << 31)
#define BH_DP_CFG_ACC_CTRL 2u          /* ALU_ACC_CTRL_Zero_Flag_disabled_src 0 */
#define BH_DP_CFG_DEST_REGW_BASE 6u
#define BH_DP_CFG_DEST_SP_BASE 7u
#define BH_DP_CFG_DEST_ACCESS 220u     /* DEST_ACCESS_CFG: swizzle_32b 0, remap_addrs 1 */

/* ThreadConfig entries. */
#define BH_DP_TCFG_MATH_OFFSET 1u      /* DEST_TARGET_REG_CFG_MATH_Offset */
#define BH_DP_TCFG_DISABLE_IMPLIED_SRCA 2u   /* DISABLE_IMPLIED_SRCA_FMT_Base 0 */
#define BH_DP_TCFG_DISABLE_IMPLIED_SRCB 3u   /* DISABLE_IMPLIED_SRCB_FMT_Base 0 */
#define BH_DP_TCFG_SFPU_DEST_FMT 4u    /* SFPU_DEST_FMT_Enable 0, SFPU_DEST_FMT_Base 4:1 */
#define BH_DP_TCFG_SRCA_SET 5u         /* SRCA_SET_Base 1:0, SetOvrdWithAddr 2 */
#define BH_DP_TCFG_SRCB_SET 6u
#define BH_DP_TCFG_CLR_DVALID 7u       /* SrcA_Disable 0, SrcB_Disable 1 */
#define BH_DP_TCFG_FIDELITY_BASE 11u
#define BH_DP_TCFG_ADDR_MOD_AB 12u     /* 8 sections */
#define BH_DP_TCFG_ADDR_MOD_AB2 20u
#define BH_DP_TCFG_ADDR_MOD_DST 28u
#define BH_DP_TCFG_UNPACK_MISC 41u
#define BH_DP_TCFG_FP16A_FORCE 55u

/* A configuration word of the thread's state (inline: the units read a few dozen an instruction). */
static inline uint32_t tt_dp_cfg(struct bh_tt_thread *th, unsigned idx)
{
	unsigned bank = atomic_load_explicit(&th->thread_cfg[0], memory_order_relaxed) & 1;
	return atomic_load_explicit(bh_tensix_cfg_cell(th->tx->tile, bank, idx), memory_order_relaxed);
}

static inline uint32_t tt_dp_tcfg(struct bh_tt_thread *th, unsigned idx)
{
	return atomic_load_explicit(&th->thread_cfg[idx], memory_order_relaxed);
}
/* 0 BF16 style, 1 FP16 style, 2 TF32 of a SrcA data format (ELWADD.md). */
unsigned tt_dp_src_style(unsigned fmt);

/* Dst views (Dst.md), inline: the units call them once per datum. A 32-bit element is two 16-bit
 * rows, r and r + 8 of its adjusted row. */
static inline unsigned tt_dst32_adj(unsigned row)
{
	return ((row & 0x1F8u) << 1) | (row & 0x207u);
}

/* ZEROACC marks Dst elements Undefined (ZEROACC.md); any write defines them again. bhemu also
 * writes zeros there, which is what every reader but GMPOOL takes an undefined element for. The
 * flags live per 16-bit row (a 32-bit element is its two halves' rows); cols: bit c for column c. */
static inline void tt_dst_define_cols(struct tt_dp *dp, unsigned r, uint32_t cols)
{
	uint16_t u = atomic_load_explicit(&dp->dst_undef[r], memory_order_relaxed);
	if (!(u & cols))
		return;
	atomic_fetch_and_explicit(&dp->dst_undef[r], (uint16_t)~cols, memory_order_relaxed);
	if (u == 0xFFFF)   /* the row's first element since ZEROACC: it is to be cleared again */
		atomic_fetch_or_explicit(&dp->dst_dirty[r / 64], 1ull << (r % 64), memory_order_relaxed);
}

static inline void tt_dst_define(struct tt_dp *dp, unsigned r, unsigned col)
{
	tt_dst_define_cols(dp, r, 1u << col);
}

static inline uint32_t tt_dst32_read(struct tt_dp *dp, unsigned row, unsigned col)
{
	unsigned r = tt_dst32_adj(row & 0x3FF);
	return (uint32_t)atomic_load_explicit(&dp->dst[r][col], memory_order_relaxed) << 16 |
	       atomic_load_explicit(&dp->dst[r + 8][col], memory_order_relaxed);
}

static inline void tt_dst32_write(struct tt_dp *dp, unsigned row, unsigned col, uint32_t v)
{
	unsigned r = tt_dst32_adj(row & 0x3FF);
	atomic_store_explicit(&dp->dst[r][col], (uint16_t)(v >> 16), memory_order_relaxed);
	atomic_store_explicit(&dp->dst[r + 8][col], (uint16_t)v, memory_order_relaxed);
	tt_dst_define(dp, r, col);
	tt_dst_define(dp, r + 8, col);
}

static inline uint16_t tt_dst16_read(struct tt_dp *dp, unsigned row, unsigned col)
{
	return atomic_load_explicit(&dp->dst[row & 0x3FF][col], memory_order_relaxed);
}

static inline void tt_dst16_write(struct tt_dp *dp, unsigned row, unsigned col, uint16_t v)
{
	atomic_store_explicit(&dp->dst[row & 0x3FF][col], v, memory_order_relaxed);
	tt_dst_define(dp, row & 0x3FF, col);
}
/* Four lanes at a time on host vectors (GCC's vector extensions; SSE2 on x86-64) for the units'
 * row loops: relaxed 8-byte words of the register files and L1 as vectors, and the register
 * layouts' conversions lane by lane as tensix_fmt.h gives them. */
typedef uint32_t tt_v4u __attribute__((vector_size(16)));
typedef uint64_t tt_v2q __attribute__((vector_size(16)));
typedef uint16_t tt_v4h __attribute__((vector_size(8)));

static inline __attribute__((always_inline)) uint64_t tt_ld64(const void *p)
{
	return __atomic_load_n((const uint64_t *)p, __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) void tt_st64(void *p, uint64_t v)
{
	__atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED);
}

typedef uint16_t tt_v8h __attribute__((vector_size(16)));

/* Two 8-byte words as one vector (lo in lanes 0-1); four 16-bit words widened to (or narrowed
 * from: the low halves) four lanes. */
static inline __attribute__((always_inline)) tt_v4u tt_v4u_of(uint64_t lo, uint64_t hi)
{
	return (tt_v4u)(tt_v2q){ lo, hi };
}

static inline __attribute__((always_inline)) tt_v4u tt_widen16(uint64_t x)
{
	tt_v4h h;
	__builtin_memcpy(&h, &x, sizeof h);
	return __builtin_convertvector(h, tt_v4u);
}

static inline __attribute__((always_inline)) uint64_t tt_narrow16(tt_v4u v)
{
	tt_v4h h = __builtin_convertvector(v, tt_v4h);
	uint64_t x;
	__builtin_memcpy(&x, &h, sizeof x);
	return x;
}

/* Eight 16-bit words from two 8-byte words, and back. */
static inline __attribute__((always_inline)) tt_v8h tt_v8h_of(uint64_t lo, uint64_t hi)
{
	return (tt_v8h)(tt_v2q){ lo, hi };
}

static inline __attribute__((always_inline)) uint64_t tt_v8h_word(tt_v8h v, unsigned k)
{
	return ((tt_v2q)v)[k];
}

/* tt_dst_to_bf16 (tt_dst_from_bf16) of eight Dst16 BF16-layout elements (BF16 values); tt_fp32_to_bf16(x << 16, nearest away) of
 * eight BF16 values (the packer's early conversion of a 16-bit Dst's BF16: NaN and infinity to
 * infinity of their sign, a zero exponent to +0, the others kept). */
static inline __attribute__((always_inline)) tt_v8h tt_v8_dst_to_bf16(tt_v8h d)
{
	return (d & 0x8000u) | (d & 0xFFu) << 7 | (d >> 8 & 0x7Fu);
}

static inline __attribute__((always_inline)) tt_v8h tt_v8_dst_from_bf16(tt_v8h x)
{
	return (x & 0x8000u) | (x & 0x7Fu) << 8 | (x & 0x7F80u) >> 7;
}

static inline __attribute__((always_inline)) tt_v8h tt_v8_round_bf16(tt_v8h x)
{
	tt_v8h e = x & 0x7F80u;
	tt_v8h inf = (tt_v8h)(e == 0x7F80u), zero = (tt_v8h)(e == 0);
	return (inf & ((x & 0x8000u) | 0x7F80u)) | (~inf & ~zero & x);
}

/* tt_dst_to_fp32 of Dst32 halves hi (the Dst16 BF16 layout) and lo; with lo 0, a Dst16 BF16
 * element as FP32. tt_dst_from_bf16 of BF16 bits (low halves). */
static inline __attribute__((always_inline)) tt_v4u tt_v4_dst_to_fp32(tt_v4u hi, tt_v4u lo)
{
	return ((hi & 0x8000u) | (hi & 0xFFu) << 7 | (hi >> 8 & 0x7Fu)) << 16 | lo;
}

static inline __attribute__((always_inline)) tt_v4u tt_v4_dst_from_bf16(tt_v4u x)
{
	return (x & 0x8000u) | (x & 0x7Fu) << 8 | (x & 0x7F80u) >> 7;
}

/* tt_fp32_round(b, 7, TT_ROUND_NEAREST_AWAY): NaN and infinity to infinity of their sign, a zero
 * exponent to +0, else rounded to BF16 with ties away (the BF16 in the high halves). */
static inline __attribute__((always_inline)) tt_v4u tt_v4_round_bf16(tt_v4u b)
{
	tt_v4u e = b & 0x7F800000u;
	tt_v4u inf = (tt_v4u)(e == 0x7F800000u), normal = (tt_v4u)(e != 0x7F800000u) & (tt_v4u)(e != 0);
	return (inf & ((b & 0x80000000u) | 0x7F800000u)) |
	       (normal & ((b & 0x80000000u) | (((b & 0x7FFFFFFFu) + 0x8000u) & 0xFFFF0000u)));
}

/* MVMUL's path for the BF16/TF32 styles: host vectors (AVX2 when the host has it, or the
 * baseline ISA's), or per element as the other styles (the reference the vector paths must equal;
 * tests choose). */
enum { TT_MVMUL_AUTO, TT_MVMUL_AVX2, TT_MVMUL_BASE, TT_MVMUL_SCALAR };
extern _Atomic int tt_mvmul_path;

/* Whether ZEROACC left the element Undefined (no write since). */
bool tt_dst_undefined(struct tt_dp *dp, unsigned row, unsigned col, bool dst32);

/* Wait, parked, while any Src ownership condition of mask holds (bit 0 SrcA for the unpackers,
 * 1 SrcB for the unpackers, 2 SrcA for the matrix unit, 3 SrcB for the matrix unit). */
enum tt_result tt_dp_wait_src(struct bh_tt_thread *th, uint32_t w, unsigned mask);
/* Unpacker u's current bank to the matrix unit with implied format fmt (ImpliedSrcAFmt for u 0,
 * ImpliedSrcBFmt for u 1: a data format or TT_IMPLIED_UNPREDICTABLE), flip, row back to the SET
 * base. */
void tt_dp_unpacker_flip(struct bh_tt_thread *th, unsigned u, unsigned fmt);

/* ADDR_MOD section am of the thread applied to its RWCs (RWCs.md); without fidelity, the Fidelity
 * counter stays (ApplyPartialAddrMod of the SFPU). */
enum tt_result tt_dp_addr_mod(struct bh_tt_thread *th, uint32_t w, unsigned am, bool fidelity);
/* The vector unit (cores/tensix_sfpu.c). */
enum tt_result tt_sfpu_execute(struct bh_tt_thread *th, uint32_t w);

enum tt_result tt_dp_unpack(struct bh_tt_thread *th, uint32_t w);
enum tt_result tt_dp_pack(struct bh_tt_thread *th, uint32_t w);
enum tt_result tt_dp_adc(struct bh_tt_thread *th, uint32_t w);

#endif
