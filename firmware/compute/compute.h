/* Compute kernels for the three TRISCs, under tt-metal's compute API names (copy_tile,
 * add_tiles, sub_tiles, mul_tiles, matmul_tiles, pack_tile, tile_regs_acquire/commit/wait/release),
 * written by this project on the Tensix data plane as bhemu models it (README, Tensix table).
 *
 * As in tt-metal, one kernel body runs on all three TRISCs: each call does its own thread's part
 * (TRISC0 unpacks, TRISC1 drives the matrix unit, TRISC2 packs) and nothing on the others. A TRISC
 * says which one it is with compute_begin() first. Tiles are 32x32 in four 16x16 faces, stored
 * face after face in L1 without headers.
 *
 * Two kinds of program use it. Bare-metal multi-core programs (firmware/baremetal/multicore.h): a
 * "CB" is a tile buffer in L1 (compute_cb_setup), the tile index of a call selects the tile in it.
 * Kernels of the reference firmware (firmware/kernel/, KERNEL_PROCESSOR defined; include
 * compute_kernel.h): a CB is a real circular buffer of the launch, whose format the kernel states
 * with compute_cb_format; the tile index counts from TRISC0's read pointer (unpack) or TRISC2's
 * write pointer (pack), pages waited for and reserved with the CB calls of compute_kernel.h.
 *
 * Hand-overs: SrcA/SrcB by the data-valid mechanism (the last UNPACR of a tile flips the bank to
 * the matrix unit; the matrix unit's last instruction gives it back), Dst from math to pack by
 * Tensix semaphore TT_SEM_MATH_PACK (tile_regs_*), as tt-llk does. Configuration words a thread's
 * instructions read are written by that thread's own Tensix instructions (WRCFG, RMWCIB, SETC16),
 * so they take effect in order with its UNPACR/ELW/PACR instructions.
 *
 * Formats: BF16 or BFP8 tiles in, BF16 out; add/sub/mul/copy accumulate in a 16-bit BF16 Dst,
 * matmul in an FP32 Dst (packed to BF16 with rounding). With compute_fp32_dest_acc_en(true) (tt-metal's
 * ComputeConfig fp32_dest_acc_en) the copy_tile/SFPU/pack_tile path runs on a 32-bit Dst: FP32, INT32 and
 * UINT32 tiles are unpacked straight into Dst (unpack-to-Dst), BF16 tiles go through SrcA as TF32
 * (exact), and FP32/INT32/UINT32/BF16 tiles are packed from it (the integer ops and typecasts below). */
#ifndef BHEMU_COMPUTE_H
#define BHEMU_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "tensix.h"

#ifdef KERNEL_PROCESSOR
#include "cb.h"
/* A kernel's .data and .bss are in the core's local data RAM already (ABI.md 1). */
#define COMPUTE_LDM
#else
#include "multicore.h"
#define COMPUTE_LDM BARE_LDM
#endif

enum compute_thread { COMPUTE_UNPACK, COMPUTE_MATH, COMPUTE_PACK };

/* DataFormat codes (cores/tensix_fmt.h). */
#define COMPUTE_FMT_FP32 0u
#define COMPUTE_FMT_BF16 5u
#define COMPUTE_FMT_BFP8 6u
/* tt-metal's DataFormat values; the hardware sees the low four bits (UInt32 is INT32's code). */
#define COMPUTE_FMT_INT32 8u
#define COMPUTE_FMT_UINT32 24u
#define COMPUTE_FMT_UINT16 9u     /* INT16's code: opaque 16 bits */
#define COMPUTE_FMT_UINT8 30u     /* INT8's code, unpacked with SrcAUnsigned, packed with Read_unsigned */
#define COMPUTE_FMT_INT8 14u      /* sign-magnitude bytes */
#define COMPUTE_HW_FMT(f) ((f) & 15u)
#define COMPUTE_FMT_IS32(f) (COMPUTE_HW_FMT(f) == COMPUTE_FMT_FP32 || COMPUTE_HW_FMT(f) == COMPUTE_FMT_INT32)
#define COMPUTE_FMT_IS8(f) (COMPUTE_HW_FMT(f) == COMPUTE_FMT_INT8)
/* A tile of fmt narrower than a 32-bit Dst's datums (Int8, UInt8, UInt16): unpacked into 16-bit Dst
 * rows and widened by the SFPU (copy_tile), narrowed back for UInt16 outputs (typecast_tile). */
#define COMPUTE_FMT_NARROW_INT(f) (COMPUTE_FMT_IS8(f) || (f) == COMPUTE_FMT_UINT16)

/* Math fidelity of matmul_tiles (number of fidelity phases - 1), as tt-metal's MathFidelity. */
enum compute_fidelity { LoFi = 0, HiFi2 = 1, HiFi3 = 2, HiFi4 = 3 };

#define COMPUTE_CBS 32
struct compute_cb {
	uint32_t addr;   /* first tile, 16-byte aligned */
	uint32_t fmt;    /* COMPUTE_FMT_* */
};
/* Bare-metal programs: shared by the TRISCs (plain L1), set up before compute_begin. Kernels:
 * each TRISC's own copy (only fmt is used), set by compute_cb_format. */
extern struct compute_cb compute_cbs[COMPUTE_CBS];

static inline uint32_t compute_tile_bytes(uint32_t fmt)
{
	return COMPUTE_FMT_IS32(fmt) ? 4096u : fmt == COMPUTE_FMT_BFP8 ? 1088u : COMPUTE_FMT_IS8(fmt) ? 1024u : 2048u;
}

static inline void compute_cb_setup(unsigned cb, uint32_t addr, uint32_t fmt)
{
	compute_cbs[cb].addr = addr;
	compute_cbs[cb].fmt = fmt;
}

#ifdef KERNEL_PROCESSOR
/* The data format of CB cb's pages (a page holds one tile). */
static inline void compute_cb_format(unsigned cb, uint32_t fmt)
{
	compute_cbs[cb].fmt = fmt;
}

/* The thread of this kernel's TRISC (KERNEL_PROCESSOR 2-4: TRISC0-2). */
#define COMPUTE_KERNEL_THREAD ((enum compute_thread)(KERNEL_PROCESSOR - 2))
#endif

/* L1 byte address of tile itile of cb. Kernels: counted in pages from TRISC0's read pointer or
 * TRISC2's write pointer (16-byte units), wrapping at the CB's end; TRISC1 has no pointers (0). */
static inline uint32_t compute_cb_tile_addr(unsigned cb, unsigned itile)
{
#ifdef KERNEL_PROCESSOR
	const struct cb_interface *ci = get_local_cb_interface(cb);
	if (KERNEL_PROCESSOR == 3)
		return 0;
	return cb_ptr_advance(ci, KERNEL_PROCESSOR == 2 ? ci->fifo_rd_ptr : ci->fifo_wr_ptr, itile) << CB_COMPUTE_ADDR_SHIFT;
#else
	return compute_cbs[cb].addr + itile * compute_tile_bytes(compute_cbs[cb].fmt);
#endif
}

/* ---- instruction words of the data plane (Blackhole operand layouts) ---- */
#define TT_UNPACR(u, ch0z, flip) \
	TT_OP(0x42, (uint32_t)(u) << 23 | (uint32_t)(ch0z) << 15 | (uint32_t)(flip) << 6 | 1u)
/* PACR with all four Dst read interfaces (ReadIntfSel 0): four Dst rows. */
#define TT_PACR(am, last)	TT_OP(0x41, (uint32_t)(am) << 15 | (uint32_t)(last))
#define TT_SETADCXX(units, x1, x0)	TT_OP(0x5E, (uint32_t)(units) << 21 | (uint32_t)(x1) << 10 | (x0))
#define TT_SETADCZW_Z0(units)	TT_OP(0x54, (uint32_t)(units) << 21 | 0x5u)   /* Z of both channels = 0 */
/* UNPACR to Dst: input and output Z (the next face) + 1. */
#define TT_UNPACR_DST(flip)	TT_OP(0x42, 1u << 19 | 1u << 15 | (uint32_t)(flip) << 6 | 1u)
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
#define CFG_UNP0_ZW1 57u
#define CFG_PCK_XY0 12u
#define CFG_PCK_ZW0 13u
#define CFG_PCK_DEST_RD 18u
#define CFG_PCK_EDGE_OFFSET0 24u   /* PCK_EDGE_OFFSET_SEC0 mask 15:0 (and the edge mode, row-set select) */
#define CFG_PCK_SEC0_OFFSET 180u
#define TCFG_DISABLE_IMPLIED_SRCA 2u   /* DISABLE_IMPLIED_SRCA_FMT_Base */
#define TCFG_FIDELITY_BASE 11u
#define TCFG_ADDR_MOD_AB 12u
#define TCFG_ADDR_MOD_DST 28u
#define TCFG_ADDR_MOD_PACK 37u
#define COMPUTE_GPR 48u   /* GPRs 48..49: the library's WRCFG staging */

extern COMPUTE_LDM uint32_t compute_role;
extern COMPUTE_LDM uint32_t compute_fidelity;
extern COMPUTE_LDM uint32_t compute_dst32;        /* fp32_dest_acc_en: Dst in its 32-bit mode */
extern COMPUTE_LDM uint32_t compute_unpack_dst;   /* copy_tile unpacks straight into Dst */
extern COMPUTE_LDM uint32_t compute_unp_base1;    /* UNP0_ADDR_BASE_REG_1 as last written */
extern COMPUTE_LDM uint32_t compute_sfpu_mods;    /* SFPLOAD/SFPSTORE formats of the integer ops (below) */
extern COMPUTE_LDM uint32_t compute_replay_mm;    /* 1 + the Dst tile whose MVMULs the replay buffer holds, or 0 */
extern volatile uint32_t compute_sems_ready;
struct compute_sfpu_seq;
extern struct compute_sfpu_seq compute_sfpu_q;   /* the SFPU sequence being built (TRISC1) */
#define COMPUTE_SEMS_READY 0xC0FFEE01u
/* The library's state: expand once in the program. */
#define COMPUTE_DEFINE_STATE \
	struct compute_cb compute_cbs[COMPUTE_CBS]; \
	COMPUTE_LDM uint32_t compute_role; \
	COMPUTE_LDM uint32_t compute_fidelity; \
	COMPUTE_LDM uint32_t compute_dst32; \
	COMPUTE_LDM uint32_t compute_unpack_dst; \
	COMPUTE_LDM uint32_t compute_unp_base1; \
	COMPUTE_LDM uint32_t compute_sfpu_mods; \
	COMPUTE_LDM uint32_t compute_replay_mm; \
	struct compute_sfpu_seq compute_sfpu_q; \
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
	compute_dst32 = 0;
	compute_unp_base1 = 0;
	compute_sfpu_mods = 4u | 4u << 4 | 2u << 8;   /* INT32 in and out, BF16 floats (compute_sfpu_formats) */
	compute_replay_mm = 0;
#ifdef KERNEL_PROCESSOR
	/* Kernels: the reference firmware's BRISC initialised both semaphores at boot (value 0, max
	 * 1; launch.md 2), and every launch leaves them at 0 again. Initialising them here would
	 * race with the other threads' SEMWAITs (races.md 13). */
	if (role == COMPUTE_UNPACK) {
		tt_push(TT_SETADCXX(3, 255, 0));   /* a face (256 datums) per UNPACR */
		return;
	}
#else
	if (role == COMPUTE_UNPACK) {
		tt_push(TT_SEMINIT(1u << TT_SEM_MATH_PACK, 1, 0));
		tt_push(TT_SEMINIT(1u << TT_SEM_UNPACK_TO_DEST, 1, 0));   /* math -> unpack: Dst is free */
		tt_push(TT_SETADCXX(3, 255, 0));   /* a face (256 datums) per UNPACR */
		tt_sync();
		compute_sems_ready = COMPUTE_SEMS_READY;
		return;
	}
	while (compute_sems_ready != COMPUTE_SEMS_READY)
		__asm__ volatile("fence" ::: "memory");   /* past the L0 data cache, each poll */
#endif
	if (role == COMPUTE_MATH) {
		tt_push(TT_SETC16(TCFG_ADDR_MOD_AB + 0, 8u | 8u << 8));   /* 0: SrcA, SrcB, Dst + 8 */
		tt_push(TT_SETC16(TCFG_ADDR_MOD_DST + 0, 8u));
		tt_push(TT_SETC16(TCFG_ADDR_MOD_AB + 1, 0));             /* 1: nothing moves */
		tt_push(TT_SETC16(TCFG_ADDR_MOD_DST + 1, 0));
	} else {
		/* As tt-llk's Blackhole packer: four PACRs of four rows per face. 0: Y + 4 rows; 1: the
		 * tile's end, Y and Z back to 0; 2: a face's end, Y to 0 and Z + 1 (the next face). */
		tt_push(TT_SETC16(TCFG_ADDR_MOD_PACK + 0, 4u | 4u << 6));
		tt_push(TT_SETC16(TCFG_ADDR_MOD_PACK + 1, 1u << 5 | 1u << 11 | 1u << 13));
		tt_push(TT_SETC16(TCFG_ADDR_MOD_PACK + 2, 1u << 5 | 4u << 6 | 1u << 12));
		tt_push(TT_SETADCXX(4, 15, 0));   /* a Dst row (16 datums) per read interface */
	}
}

/* ---- unpack (TRISC0) ---- */

/* UNP0_ADDR_BASE_REG_1 = v, unless it is already. */
static inline void compute_unp0_base1(uint32_t v)
{
	if (compute_unp_base1 == v + 1)
		return;
	compute_unp_base1 = v + 1;
	compute_wrcfg(CFG_UNP0_BASE1, v);
}

/* Does copy_tile of a tile of fmt unpack straight into Dst? 32-bit formats into a 32-bit Dst, UInt16
 * (opaque 16 bits, which no Src path carries) and Int8/UInt8 (Integer "8") into either Dst. */
static inline bool compute_to_dst(uint32_t fmt)
{
	return COMPUTE_FMT_NARROW_INT(fmt) || (compute_dst32 && COMPUTE_FMT_IS32(fmt));
}

/* Bytes of one datum of fmt unpacked into Dst: the unpacker's output address counts in datums of
 * 32 or 16 bits, in bytes for INT8 (UNPACR_Regular.md). */
static inline uint32_t compute_dst_bytes(uint32_t fmt)
{
	return COMPUTE_FMT_IS32(fmt) ? 4u : COMPUTE_FMT_IS8(fmt) ? 1u : 2u;
}

/* The first 16-bit Dst row (Dst16b) of Dst tile idst: a 16-bit Dst's tile, or in a 32-bit Dst the
 * first of the 128 physical rows its 64 32-bit rows occupy (Dst.md: Dst16b[r] is physical row r,
 * Dst32b[r] physical rows Adj32(r) and Adj32(r) + 8, Adj32(r) = (r & 0x1F8) << 1 | (r & 0x207)). */
static inline uint32_t compute_dst16_row(unsigned idst)
{
	return idst * (compute_dst32 ? 128u : 64u);
}

/* Unpacker u: the tile's format and four faces of 16x16, one face per UNPACR. Unpacking into Dst
 * (Unpack_to_dst), output Z steps one face (256 datums). */
static inline void compute_unpack_config(unsigned u, uint32_t fmt)
{
	uint32_t hw = COMPUTE_HW_FMT(fmt);
	bool to_dst = u == 0 && compute_to_dst(fmt);
	compute_wrcfg(CFG_THCON(u) + 0, hw | 1u << 4 | 16u << 16);
	compute_wrcfg(CFG_THCON(u) + 1, 16u | 4u << 16);
	compute_wrcfg(CFG_THCON(u) + 8, hw | (to_dst ? 1u << 11 : 1u << 10));   /* out = in; SrcRow + 16 per face */
	if (COMPUTE_FMT_IS8(fmt))   /* ALU_FORMAT_SPEC_REG0_SrcA/BUnsigned: INT8 in L1 means uint8_t */
		compute_cfg_field(CFG_ALU, 15 + u, 1, fmt == COMPUTE_FMT_UINT8);
	if (u == 0 && to_dst)
		compute_wrcfg(CFG_UNP0_ZW1, 256u * compute_dst_bytes(fmt));
	else if (u == 0)
		compute_unp0_base1(4u * 16u * 2u);   /* SrcA output starts at row 4 */
}

/* Unpack the tile at L1 addr into SrcA (u 0) or SrcB (u 1) and hand the bank to the matrix unit. */
static inline void compute_unpack_tile_at(unsigned u, uint32_t addr)
{
	compute_wrcfg(CFG_THCON(u) + 12, addr / 16 - 1);
	tt_push(TT_SETADCZW_Z0(1u << u));
	for (unsigned f = 0; f < 4; f++)
		tt_push(TT_UNPACR(u, 1, f == 3));
}

/* Unpack the tile (of fmt) at L1 addr into Dst tile idst, once math has said Dst is free; the last
 * UNPACR hands the SrcA bank to the matrix unit, which is how math learns the tile is there. A
 * 16-bit or 8-bit tile lands in 16-bit rows (compute_dst16_row), a 32-bit one in 32-bit rows. */
static inline void compute_unpack_tile_to_dst(uint32_t addr, uint32_t fmt, unsigned idst)
{
	uint32_t row = COMPUTE_FMT_IS32(fmt) ? idst * 64u : compute_dst16_row(idst);
	tt_push(TT_SEMWAIT(0x00Au, 1u << TT_SEM_UNPACK_TO_DEST, TT_SEMWAIT_WHILE_ZERO));   /* B1 | B3 */
	tt_push(TT_SEMGET(1u << TT_SEM_UNPACK_TO_DEST));
	compute_unp0_base1((4u * 16u + row * 16u) * compute_dst_bytes(fmt));   /* Dst row = output row - 4 */
	compute_wrcfg(CFG_THCON(0) + 12, addr / 16 - 1);
	tt_push(TT_SETADCZW_Z0(1u));
	for (unsigned f = 0; f < 4; f++)
		tt_push(TT_UNPACR_DST(f == 3));
}

/* The same for tile itile of cb. */
static inline void compute_unpack_tile(unsigned u, unsigned cb, unsigned itile)
{
	compute_unpack_tile_at(u, compute_cb_tile_addr(cb, itile));
}

/* ---- math (TRISC1) ---- */

/* The matrix unit's SrcA format and Dst width. Blackhole's matrix unit reads a Src bank in the
 * format the unpacker handed it over in (the implied format), which is the tile's own here, unless
 * the math thread sets DISABLE_IMPLIED_SRCA_FMT; tt-llk sets it where it wants a configured format
 * other than the unpacker's, as the TF32 reading of BF16 tiles into a 32-bit Dst below does. */
static inline void compute_math_formats(uint32_t fmt_a, int fp32_dst)
{
	compute_cfg_field(CFG_ALU, 17, 4, fmt_a);
	compute_cfg_field(CFG_ALU, 29, 1, fp32_dst ? 1u : 0u);
	tt_push(TT_SETC16(TCFG_DISABLE_IMPLIED_SRCA, fmt_a == 4u /* TF32 */ ? 1u : 0u));
}

/* 64 rows of SrcA op SrcB into Dst tile idst, eight at a time; the last gives both banks back. */
static inline void compute_math_eltwise(uint32_t op, unsigned idst)
{
	for (unsigned r = 0; r < 8; r++)
		tt_push(TT_ELW(op, r == 7 ? 3u : 0u, 0, idst * 64u));
	tt_push(TT_SETRWC(0, 0xF));
}

/* ---- pack (TRISC2) ---- */

/* From a 32-bit Dst: FP32/INT32 outputs as they are (bitcast), Int8/UInt8 as the packer's INT8 early
 * conversion (Integer "32" rounded and saturated to -127..127, with Read_unsigned to 0..255:
 * negative to 0), UInt16 from the 16-bit rows typecast_tile narrowed it into (Read_32b_data clear,
 * INT16 intermediate), others through BF16 (rounded). */
static inline bool compute_pack_dst16(uint32_t out_fmt, int fp32_dst)
{
	return !fp32_dst || out_fmt == COMPUTE_FMT_UINT16;
}

static inline void compute_pack_config(uint32_t out_fmt, int fp32_dst)
{
	uint32_t out = COMPUTE_HW_FMT(out_fmt);
	uint32_t inter = fp32_dst && !COMPUTE_FMT_IS32(out) && !COMPUTE_FMT_IS8(out) && out_fmt != COMPUTE_FMT_UINT16
				 ? COMPUTE_FMT_BF16 : out;
	compute_cfg_field(CFG_ALU, 25, 4, inter);
	compute_wrcfg(CFG_PCK_DEST_RD, (compute_pack_dst16(out_fmt, fp32_dst) ? 0u : 1u) | (out_fmt == COMPUTE_FMT_UINT8 ? 2u : 0u));
	compute_wrcfg(CFG_THCON(0) + 6, 1u | out << 4 | inter << 8);
	compute_wrcfg(CFG_PCK_EDGE_OFFSET0, 0xFFFFu);   /* edge mask: every column (rows map to mask 0) */
	/* Y: one Dst row (16 datums) in the input address generator's bytes of In_data_format (4, 2 or
	 * 1 by its low two bits), Z: one face (16 rows) */
	uint32_t row = (inter & 3u) == 0 ? 64u : (inter & 3u) == 1 ? 32u : 16u;
	compute_wrcfg(CFG_PCK_XY0, row << 16);
	compute_wrcfg(CFG_PCK_ZW0, row * 16u);
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

/* tt-metal's ComputeConfig fp32_dest_acc_en: call after compute_begin, before the inits. */
static inline void compute_fp32_dest_acc_en(bool on)
{
	compute_dst32 = on;
	compute_sfpu_mods = (compute_sfpu_mods & 0xFF) | (on ? 3u : 2u) << 8;
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
/* The integer ops' SFPLOAD/SFPSTORE formats for a tile of in_fmt into one of out_fmt: integers
 * INT32 (4), UInt16 UINT16 (6, zero-extended); floats FP32 (3) in a 32-bit Dst, BF16 (2). */
static inline void compute_sfpu_formats(uint32_t in_fmt, uint32_t out_fmt)
{
	bool u16 = !compute_dst32;   /* a 32-bit Dst holds UInt16 tiles widened (copy_tile) */
	compute_sfpu_mods = (u16 && in_fmt == COMPUTE_FMT_UINT16 ? 6u : 4u) | (u16 && out_fmt == COMPUTE_FMT_UINT16 ? 6u : 4u) << 4 |
			    (compute_dst32 ? 3u : 2u) << 8;
}

/* With a 32-bit Dst, SrcA is read as TF32 so that MOVA2D writes whole FP32 datums. */
static inline void unary_op_init_common(unsigned icb, unsigned ocb)
{
	compute_unpack_dst = compute_to_dst(compute_cbs[icb].fmt);
	compute_sfpu_formats(compute_cbs[icb].fmt, compute_cbs[ocb].fmt);
	if (compute_role == COMPUTE_UNPACK)
		compute_unpack_config(0, compute_cbs[icb].fmt);
	else if (compute_role == COMPUTE_MATH)
		compute_math_formats(compute_dst32 ? 4u /* TF32 */ : COMPUTE_FMT_BF16, (int)compute_dst32);
	else
		compute_pack_config(compute_cbs[ocb].fmt, (int)compute_dst32);
}

static inline void compute_dst_widen(unsigned idst, uint32_t fmt);

/* copy_tile: unpack to SrcA and move it into Dst (MOVA2D, eight rows at a time); a 32-bit tile into
 * a 32-bit Dst, a UInt16, Int8 or UInt8 tile into either: unpack to Dst (math tells the unpacker Dst
 * is free, waits for the SrcA bank the unpacker hands over and gives it back); into a 32-bit Dst the
 * narrow integers are then widened to Int32 (compute_dst_widen). */
static inline void copy_tile_init(unsigned icb)
{
	compute_unpack_dst = compute_to_dst(compute_cbs[icb].fmt);
	if (compute_role == COMPUTE_UNPACK)
		compute_unpack_config(0, compute_cbs[icb].fmt);
}

static inline void copy_tile(unsigned icb, unsigned itile, unsigned idst)
{
	uint32_t fmt = compute_cbs[icb].fmt;
	if (compute_unpack_dst) {
		if (compute_role == COMPUTE_UNPACK) {
			compute_unpack_tile_to_dst(compute_cb_tile_addr(icb, itile), fmt, idst);
		} else if (compute_role == COMPUTE_MATH) {
			tt_push(TT_SEMWAIT(0x002u, 1u << TT_SEM_MATH_PACK, TT_SEMWAIT_WHILE_MAX));   /* after acquire's wait */
			tt_push(TT_SEMPOST(1u << TT_SEM_UNPACK_TO_DEST));
			tt_push(TT_STALLWAIT(0x140u, 0x080u));   /* B6 | B8 until C7: the tile is in Dst */
			tt_push(TT_CLEARDVALID(1));
			if (compute_dst32 && COMPUTE_FMT_NARROW_INT(fmt))
				compute_dst_widen(idst, fmt);
		}
		return;
	}
	if (compute_role == COMPUTE_UNPACK) {
		compute_unpack_tile(0, icb, itile);
	} else if (compute_role == COMPUTE_MATH) {
		for (unsigned r = 0; r < 8; r++)
			tt_push(TT_MOVA2D8(0, 0, idst * 64u));   /* ADDR_MOD 0: SrcA and Dst + 8 */
		tt_push(TT_CLEARDVALID(1));
		tt_push(TT_SETRWC(0, 0xF));
	}
}

/* ADDR_MOD sections of matmul_tiles' MVMULs (mm_init; the other users of the math thread's
 * sections are 0 to 2). */
#define MM_AM_B8 3u
#define MM_AM_A32_B8 4u
#define MM_AM_NEXT_J 5u
#define MM_AM_NEXT_I 6u

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
		/* matmul_tiles' RWC steps, applied by its MVMULs (as tt-llk's matmul moves the RWCs
		 * with ADDR_MODs instead of SETRWC/INCRWC per MVMUL); Dst never moves. */
		static const uint16_t mm_am_ab[4] = {
			8u << 8,                              /* MM_AM_B8: SrcB + 8 */
			32u | 8u << 8,                        /* MM_AM_A32_B8: SrcA + 32, SrcB + 8 */
			1u << 6 | 16u | 1u << 14,             /* MM_AM_NEXT_J: SrcA = CR + 16, SrcB = CR */
			1u << 6 | 48u | 1u << 14 | 32u << 8,  /* MM_AM_NEXT_I: SrcA = CR - 16, SrcB = CR + 32 */
		};
		for (unsigned s = 0; s < 4; s++) {
			tt_push(TT_SETC16(TCFG_ADDR_MOD_AB + MM_AM_B8 + s, mm_am_ab[s]));
			tt_push(TT_SETC16(TCFG_ADDR_MOD_DST + MM_AM_B8 + s, 0));
		}
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
	 * the fidelity loop outermost. Each MVMUL reads SrcA at RWC 16 (2k + j) and SrcB at
	 * 16 (2i + k) + 8h, and its ADDR_MOD moves them to the next MVMUL's: within an (i, j) the
	 * plain increments, then from the counters' CR (16 j, 32 i) to the next (i, j)'s, and after
	 * (1, 1) back to 0 (rows wrap at 64). A phase's first 15 MVMULs are the same words in every
	 * phase: recorded in the replay buffer once for the Dst tile, played in the others; the 16th
	 * is pushed, flipping both banks after the last phase. */
	compute_rwc_ab(0, 0);
	for (unsigned p = 0; p <= compute_fidelity; p++) {
		tt_push(TT_SETC16(TCFG_FIDELITY_BASE, p));
		if (compute_replay_mm == idst + 1) {
			tt_push(TT_REPLAY(0, 15, 0, 0));
		} else {
			tt_push(TT_REPLAY(0, 15, 1, 1));   /* record and execute */
			for (unsigned m = 0; m < 15; m++) {
				unsigned i = m >> 3, j = m >> 2 & 1, k = m >> 1 & 1, h = m & 1;
				unsigned am = !h ? MM_AM_B8 : !k ? MM_AM_A32_B8 : !j ? MM_AM_NEXT_J : MM_AM_NEXT_I;
				tt_push(TT_MVMUL(0, am, idst * 64u + 16u * (2 * i + j) + 8u * h));
			}
			compute_replay_mm = idst + 1;
		}
		tt_push(TT_MVMUL(p == compute_fidelity ? 3u : 0u, MM_AM_NEXT_I, idst * 64u + 16u * 3 + 8u));
	}
	tt_push(TT_SETC16(TCFG_FIDELITY_BASE, 0));
	tt_push(TT_SETRWC(0, 0xF));
}

/* Pack Dst tile idst to L1 addr (TRISC2); from its 16-bit rows (compute_dst16_row) if dst16. */
static inline void compute_pack_tile_at(unsigned idst, uint32_t addr, bool dst16)
{
	if (compute_role != COMPUTE_PACK)
		return;
	compute_wrcfg(CFG_THCON(0) + 5, addr / 16 - 1);
	compute_wrcfg(CFG_PCK_SEC0_OFFSET, dst16 ? compute_dst16_row(idst) : idst * 64u);
	for (unsigned f = 0; f < 4; f++)
		for (unsigned r = 0; r < 4; r++)
			tt_push(TT_PACR(r < 3 ? 0u : f < 3 ? 2u : 1u, f == 3 && r == 3));
}

/* Pack Dst tile idst into tile itile of ocb. */
static inline void pack_tile(unsigned idst, unsigned ocb, unsigned itile)
{
	uint32_t fmt = compute_cbs[ocb].fmt;
	compute_pack_tile_at(idst, compute_cb_tile_addr(ocb, itile), compute_pack_dst16(fmt, (int)compute_dst32));
}

/* tt-metal's pack_reconfig_l1_acc: with l1_acc_en the packer adds each datum to the one already in
 * L1 (FP32 and Float16_b outputs) instead of overwriting it, as tt-llk's reconfigure_packer_l1_acc
 * sets it: once earlier PACRs are done (STALLWAIT B7 until C3), Disable_pack_zero_flags and
 * Pack_L1_Acc. After compute_pack_config (which rewrites the first of the two words). */
static inline void pack_reconfig_l1_acc(uint32_t l1_acc_en)
{
	if (compute_role != COMPUTE_PACK)
		return;
	tt_push(TT_STALLWAIT(0x080u, 0x008u));
	compute_cfg_field(CFG_THCON(0) + 6, 2, 1, l1_acc_en ? 1u : 0u);
	compute_cfg_field(CFG_THCON(0) + 7, 19, 1, l1_acc_en ? 1u : 0u);
}

/* ---- the vector unit (SFPU, TRISC1): unary operations on a Dst tile ----
 *
 * As tt-llk does: each operation is a short SFP* sequence over one LReg's worth of the tile (32
 * datums: four Dst rows, even or odd columns), loaded from Dst as BF16 into LReg 0, computed in
 * FP32, rounded to BF16 (to nearest, ties away: SFP_STOCH_RND) and stored back. The store's
 * ADDR_MOD section 2 moves RWC Dst on by 2 (the next half-rows), so the sequence is the same for
 * each of the 32 steps of a tile: its first 32 words are recorded in the replay buffer once and
 * played 31 times, the rest (if any) pushed each step. LReg 8, 9, 10 are the constants 0.8373, 0 and 1; LReg 0-6 are scratch,
 * LReg 7 keeps the input of the composite operations (gelu).
 *
 * The approximations are ours, from the usual documented methods: exp by range reduction
 * (x = n ln2 + r, a degree-6 Taylor polynomial of r, 2^n put into the exponent with SFPSETEXP),
 * reciprocal and reciprocal square root by a bit-pattern first guess and three Newton-Raphson
 * steps, log by exponent extraction and 2 atanh((m-1)/(m+1)) as a series, sigmoid, tanh and GELU
 * (tanh form) from those. Relative error before the BF16 rounding: below 1e-6 for exp (|x| < 87),
 * reciprocal, sqrt and rsqrt; below 1e-6 absolute for log, sigmoid and tanh; GELU's tanh form is
 * within 1e-3 of the erf definition. Inputs outside: exp clamps x to [-87, 88]; reciprocal of 0,
 * log of x <= 0 and rsqrt of 0 are not defined here. */
#define TT_SFPLOAD(vd, mod0, am, imm)	TT_OP(0x70, (uint32_t)(vd) << 20 | (uint32_t)(mod0) << 16 | (uint32_t)(am) << 13 | (imm))
#define TT_SFPSTORE(vd, mod0, am, imm)	TT_OP(0x72, (uint32_t)(vd) << 20 | (uint32_t)(mod0) << 16 | (uint32_t)(am) << 13 | (imm))
#define TT_SFPLOADI(vd, mod0, imm16)	TT_OP(0x71, (uint32_t)(vd) << 20 | (uint32_t)(mod0) << 16 | (imm16))
#define TT_SFPMAD(va, vb, vc, vd, mod1) \
	TT_OP(0x84, (uint32_t)(va) << 16 | (uint32_t)(vb) << 12 | (uint32_t)(vc) << 8 | (uint32_t)(vd) << 4 | (mod1))
#define TT_SFPMULI(imm16, vd)	TT_OP(0x74, (uint32_t)(imm16) << 8 | (uint32_t)(vd) << 4)
#define TT_SFPI(op, imm, vc, vd, mod1) \
	TT_OP(op, (uint32_t)(imm) << 12 | (uint32_t)(vc) << 8 | (uint32_t)(vd) << 4 | (mod1))
#define SFP_IADD 0x79u
#define SFP_SHFT 0x7Au
#define SFP_SETCC 0x7Bu
#define SFP_MOV 0x7Cu
#define SFP_ABS 0x7Du
#define SFP_AND 0x7Eu
#define SFP_OR 0x7Fu
#define SFP_NOT 0x80u
#define SFP_XOR 0x8Du
#define SFP_EXMAN 0x78u
#define SFP_EXEXP 0x77u
#define SFP_SETEXP 0x82u
#define SFP_SETSGN 0x89u
#define SFP_ENCC 0x8Au
#define SFP_CAST 0x90u
#define SFP_SWAP 0x92u
#define SFP_LE 0x96u
#define SFP_GT 0x97u
#define TT_SFPSTOCHRND_BF16(vc, vd)	TT_OP(0x8E, (uint32_t)(vc) << 8 | (uint32_t)(vd) << 4 | 1u)
#define SFP_MAD_NEG_A 1u
#define SFP_MAD_NEG_C 2u
#define SFP_ZERO 9u
#define SFP_ONE 10u
#define SFP_MOD0_BF16 2u
#define SFP_MOD0_FP32 3u
#define SFP_MOD0_INT32 4u
#define SFP_MOD0_INT8 5u      /* Integer "8" (sign, 8 bits of magnitude) to sign-magnitude */
#define SFP_MOD0_UINT16 6u
/* The float format of Dst: FP32 in a 32-bit Dst, else BF16. */
#define SFP_MOD0_FLOAT (compute_dst32 ? SFP_MOD0_FP32 : SFP_MOD0_BF16)
#define TT_SFPADDI(imm16, vd)	TT_OP(0x75, (uint32_t)(imm16) << 8 | (uint32_t)(vd) << 4)
#define SFP_ADDR_MOD_STAY 1u    /* ADDR_MOD section of the load: nothing moves (compute_begin) */
#define SFP_ADDR_MOD_NEXT 2u    /* ADDR_MOD section of the store: Dst + 2 */

#define COMPUTE_SFPU_MAX 160
struct compute_sfpu_seq {
	uint32_t w[COMPUTE_SFPU_MAX];
	unsigned n;
	unsigned pre;   /* w[0..pre): executed once before the steps (constants no step overwrites) */
};

static inline void sfpu_begin(struct compute_sfpu_seq *q)
{
	q->n = 0;
	q->pre = 0;
}

static inline void sfpu_emit(struct compute_sfpu_seq *q, uint32_t w)
{
	q->w[q->n++] = w;
}

/* LReg r = the FP32 value of bits (one SFPLOADI when the low half is zero). */
static inline void sfpu_const(struct compute_sfpu_seq *q, unsigned r, uint32_t bits)
{
	if (!(bits & 0xFFFF)) {
		sfpu_emit(q, TT_SFPLOADI(r, 0, bits >> 16));
		return;
	}
	sfpu_emit(q, TT_SFPLOADI(r, 8, bits >> 16));
	sfpu_emit(q, TT_SFPLOADI(r, 10, bits & 0xFFFF));
}

static inline uint32_t sfpu_bits(float f)
{
	union { float f; uint32_t u; } v = { .f = f };
	return v.u;
}

#define sfpu_constf(q, r, f) sfpu_const(q, r, sfpu_bits(f))
/* Predication on (every lane enabled), off again. */
#define SFP_CC_ON TT_SFPI(SFP_ENCC, 3, 0, 0, 10)
#define SFP_CC_OFF TT_SFPI(SFP_ENCC, 0, 0, 0, 2)

#define SFP_LOG2E 0x3FB8AA3Bu

/* LReg 0 = exp(LReg 0); LReg 1-5 scratch (LReg 1 only read: log2(e), loaded here unless
 * log2e_loaded). */
static inline void sfpu_exp_body(struct compute_sfpu_seq *q, bool log2e_loaded)
{
	sfpu_constf(q, 3, 88.0f);
	sfpu_emit(q, TT_SFPI(SFP_SWAP, 0, 3, 0, 1));                /* LReg0 = min(x, 88) */
	sfpu_constf(q, 3, -87.0f);
	sfpu_emit(q, TT_SFPI(SFP_SWAP, 0, 0, 3, 1));                /* LReg0 = max(x, -87) */
	if (!log2e_loaded)
		sfpu_const(q, 1, SFP_LOG2E);
	sfpu_const(q, 2, 0x4B400000u);                               /* 1.5 * 2^23: rounds to an integer */
	sfpu_emit(q, TT_SFPMAD(0, 1, 2, 3, 0));                      /* t = x log2e + 1.5 2^23 */
	sfpu_emit(q, TT_SFPMAD(SFP_ONE, 3, 2, 4, SFP_MAD_NEG_C));    /* n = t - 1.5 2^23 */
	sfpu_const(q, 5, 0xBF317200u);                               /* -ln2 (high part) */
	sfpu_emit(q, TT_SFPMAD(4, 5, 0, 0, 0));
	sfpu_const(q, 5, 0xB5BFBE8Eu);                               /* -ln2 (low part) */
	sfpu_emit(q, TT_SFPMAD(4, 5, 0, 0, 0));                      /* r = x - n ln2 */
	sfpu_emit(q, TT_SFPI(SFP_IADD, 0, 3, 2, 2 | 4));             /* LReg2 = t - magic bits = n (integer) */
	static const uint32_t c[] = { 0x3AB60B61u, 0x3C088889u, 0x3D2AAAABu, 0x3E2AAAABu, 0x3F000000u };
	sfpu_const(q, 4, c[0]);                                      /* 1/720, 1/120, 1/24, 1/6, 1/2, 1, 1 */
	for (unsigned k = 1; k < 5; k++) {
		sfpu_const(q, 5, c[k]);
		sfpu_emit(q, TT_SFPMAD(4, 0, 5, 4, 0));
	}
	sfpu_emit(q, TT_SFPMAD(4, 0, SFP_ONE, 4, 0));
	sfpu_emit(q, TT_SFPMAD(4, 0, SFP_ONE, 4, 0));                /* p = e^r in [0.7, 1.42] */
	sfpu_emit(q, TT_SFPI(SFP_EXEXP, 0, 4, 5, 1));                /* its biased exponent */
	sfpu_emit(q, TT_SFPI(SFP_IADD, 0, 2, 5, 4));                 /* + n */
	sfpu_emit(q, TT_SFPI(SFP_SETEXP, 0, 4, 5, 0));               /* p with that exponent */
	sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 5, 0, 0));
}

/* LReg 0 = 1 / LReg 0; LReg 1-5 scratch. */
static inline void sfpu_recip_body(struct compute_sfpu_seq *q)
{
	sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, 0, 1, 1));               /* a = |x| */
	sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 1, 3, 0));
	sfpu_const(q, 2, 0x7EF311C3u);
	sfpu_emit(q, TT_SFPI(SFP_IADD, 0, 2, 3, 2 | 4));             /* y0 = magic - bits(a) */
	sfpu_constf(q, 4, 2.0f);
	for (unsigned k = 0; k < 3; k++) {                          /* y = y (2 - a y) */
		sfpu_emit(q, TT_SFPMAD(1, 3, 4, 5, SFP_MAD_NEG_A));
		sfpu_emit(q, TT_SFPMAD(3, 5, SFP_ZERO, 3, 0));
	}
	sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, 3, 0, 0));               /* the sign of x back */
}

/* LReg 3 = 1 / sqrt(LReg 0); LReg 1-6 scratch. */
static inline void sfpu_rsqrt_body(struct compute_sfpu_seq *q)
{
	sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 0, 3, 0));
	sfpu_emit(q, TT_SFPI(SFP_SHFT, 0xFFF, 0, 3, 1));             /* bits(x) >> 1 */
	sfpu_const(q, 2, 0x5F3759DFu);
	sfpu_emit(q, TT_SFPI(SFP_IADD, 0, 2, 3, 2 | 4));             /* y0 = magic - (bits(x) >> 1) */
	sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 0, 4, 0));
	sfpu_emit(q, TT_SFPMULI(0x3F00, 4));                         /* x / 2 */
	sfpu_constf(q, 6, 1.5f);
	for (unsigned k = 0; k < 3; k++) {                          /* y = y (1.5 - x/2 y^2) */
		sfpu_emit(q, TT_SFPMAD(3, 3, SFP_ZERO, 5, 0));
		sfpu_emit(q, TT_SFPMAD(4, 5, 6, 5, SFP_MAD_NEG_A));
		sfpu_emit(q, TT_SFPMAD(3, 5, SFP_ZERO, 3, 0));
	}
}

/* LReg 0 = 1 / (1 + exp(-LReg 0)). */
static inline void sfpu_sigmoid_body(struct compute_sfpu_seq *q)
{
	sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 0, 0, 1));
	sfpu_exp_body(q, false);
	sfpu_emit(q, TT_SFPMAD(SFP_ONE, 0, SFP_ONE, 0, 0));
	sfpu_recip_body(q);
}

/* LReg 0 = tanh(LReg 0) = 2 sigmoid(2x) - 1. */
static inline void sfpu_tanh_body(struct compute_sfpu_seq *q)
{
	sfpu_emit(q, TT_SFPMULI(0x4000, 0));
	sfpu_sigmoid_body(q);
	sfpu_constf(q, 1, 2.0f);
	sfpu_constf(q, 2, -1.0f);
	sfpu_emit(q, TT_SFPMAD(0, 1, 2, 0, 0));
}

/* LReg 0 = ln(LReg 0), x > 0: x = m 2^e, ln x = e ln2 + 2 atanh(s), s = (m - 1) / (m + 1). */
static inline void sfpu_log_body(struct compute_sfpu_seq *q)
{
	sfpu_emit(q, TT_SFPI(SFP_SETEXP, 127, 0, 6, 1));             /* m in [1, 2) */
	sfpu_emit(q, TT_SFPI(SFP_EXEXP, 0, 0, 7, 0));                /* e */
	sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 7, 7, 3));                 /* two's complement -> sign-magnitude */
	sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 7, 7, 0));                 /* -> FP32 */
	sfpu_emit(q, TT_SFPMAD(6, SFP_ONE, SFP_ONE, 0, 0));          /* m + 1 */
	sfpu_recip_body(q);
	sfpu_emit(q, TT_SFPMAD(6, SFP_ONE, SFP_ONE, 6, SFP_MAD_NEG_C));   /* m - 1 */
	sfpu_emit(q, TT_SFPMAD(6, 0, SFP_ZERO, 0, 0));               /* s */
	sfpu_emit(q, TT_SFPMAD(0, 0, SFP_ZERO, 1, 0));               /* s^2 */
	static const float c[] = { 1.f / 9, 1.f / 7, 1.f / 5, 1.f / 3 };
	sfpu_constf(q, 2, 1.f / 11);
	for (unsigned k = 0; k < 4; k++) {
		sfpu_constf(q, 3, c[k]);
		sfpu_emit(q, TT_SFPMAD(2, 1, 3, 2, 0));
	}
	sfpu_emit(q, TT_SFPMAD(2, 1, SFP_ONE, 2, 0));
	sfpu_emit(q, TT_SFPMAD(2, 0, SFP_ZERO, 0, 0));               /* atanh(s) */
	sfpu_emit(q, TT_SFPMAD(0, SFP_ONE, 0, 0, 0));                /* 2 atanh(s) */
	sfpu_const(q, 2, 0x3F317218u);                               /* ln2 */
	sfpu_emit(q, TT_SFPMAD(7, 2, 0, 0, 0));
}

/* Comparison with zero into 1.0 or 0.0: the compared value (x, or |x| for eq/ne, or a signed zero)
 * as VD of SFPGT/SFPLE, writing -1 or 0, then AND 1.0. */
enum compute_cmp { CMP_GTZ, CMP_LTZ, CMP_GEZ, CMP_LEZ, CMP_EQZ, CMP_NEZ };

static inline void sfpu_cmp_body(struct compute_sfpu_seq *q, enum compute_cmp c)
{
	if (c == CMP_EQZ || c == CMP_NEZ)
		sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, 0, 0, 1));
	if (c == CMP_LTZ || c == CMP_GEZ) {
		sfpu_emit(q, TT_SFPLOADI(1, 0, 0x8000));                 /* -0: x < -0 is false for x = -0 */
		sfpu_emit(q, TT_SFPI(c == CMP_LTZ ? SFP_GT : SFP_LE, 0, 0, 1, 8));   /* -0 > x, -0 <= x */
		sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 1, 0, 0));
	} else {
		bool gt = c == CMP_GTZ || c == CMP_NEZ;
		sfpu_emit(q, TT_SFPI(gt ? SFP_GT : SFP_LE, 0, SFP_ZERO, 0, 8));   /* x > +0, x <= +0 */
	}
	sfpu_emit(q, TT_SFPI(SFP_AND, 0, SFP_ONE, 0, 0));
}

enum compute_unary {
	UNARY_ADD, UNARY_SUB, UNARY_MUL, UNARY_RELU, UNARY_LEAKY_RELU, UNARY_ABS, UNARY_NEG, UNARY_SIGN, UNARY_EXP,
	UNARY_LOG, UNARY_RECIP, UNARY_SQRT, UNARY_RSQRT, UNARY_SIGMOID, UNARY_TANH, UNARY_GELU, UNARY_GTZ, UNARY_LTZ,
	UNARY_GEZ, UNARY_LEZ, UNARY_EQZ, UNARY_NEZ, UNARY_COUNT
};

/* The sequence of one step of operation op (param: the scalar's FP32 bits). */
static inline void compute_sfpu_build(struct compute_sfpu_seq *q, unsigned base, enum compute_unary op, uint32_t param)
{
	sfpu_begin(q);
	if (op == UNARY_ADD || op == UNARY_SUB || op == UNARY_MUL || op == UNARY_LEAKY_RELU || op == UNARY_EXP) {
		/* the scalar (exp: log2(e)) in LReg 1, once: the steps only read it */
		sfpu_const(q, 1, op == UNARY_EXP ? SFP_LOG2E : param);
		q->pre = q->n;
	}
	sfpu_emit(q, TT_SFPLOAD(0, SFP_MOD0_FLOAT, SFP_ADDR_MOD_STAY, base));
	switch (op) {
	case UNARY_ADD: case UNARY_SUB:
		sfpu_emit(q, TT_SFPMAD(SFP_ONE, 0, 1, 0, op == UNARY_SUB ? SFP_MAD_NEG_C : 0));
		break;
	case UNARY_MUL:
		sfpu_emit(q, TT_SFPMAD(0, 1, SFP_ZERO, 0, 0));
		break;
	case UNARY_RELU: case UNARY_LEAKY_RELU:
		sfpu_emit(q, SFP_CC_ON);
		sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, 0, 0, 0));            /* lanes with x < 0 (sign set) */
		if (op == UNARY_RELU)
			sfpu_emit(q, TT_SFPLOADI(0, 0, 0));
		else
			sfpu_emit(q, TT_SFPMAD(0, 1, SFP_ZERO, 0, 0));
		sfpu_emit(q, SFP_CC_OFF);
		break;
	case UNARY_ABS: sfpu_emit(q, TT_SFPI(SFP_ABS, 0, 0, 0, 1)); break;
	case UNARY_NEG: sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 0, 0, 1)); break;
	case UNARY_SIGN:
		sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, 0, 2, 1));           /* |x| */
		sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, SFP_ONE, 0, 0));     /* +-1 with the sign of x */
		sfpu_emit(q, SFP_CC_ON);
		sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, 2, 0, 6));            /* x == 0 */
		sfpu_emit(q, TT_SFPLOADI(0, 0, 0));
		sfpu_emit(q, SFP_CC_OFF);
		break;
	case UNARY_EXP: sfpu_exp_body(q, true); break;
	case UNARY_LOG: sfpu_log_body(q); break;
	case UNARY_RECIP: sfpu_recip_body(q); break;
	case UNARY_SQRT: case UNARY_RSQRT:
		sfpu_rsqrt_body(q);
		sfpu_emit(q, op == UNARY_SQRT ? TT_SFPMAD(0, 3, SFP_ZERO, 0, 0) : TT_SFPI(SFP_MOV, 0, 3, 0, 0));
		break;
	case UNARY_SIGMOID: sfpu_sigmoid_body(q); break;
	case UNARY_TANH: sfpu_tanh_body(q); break;
	case UNARY_GELU:   /* x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
		sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 0, 7, 0));
		sfpu_emit(q, TT_SFPMAD(0, 0, SFP_ZERO, 1, 0));
		sfpu_constf(q, 2, 0.044715f);
		sfpu_emit(q, TT_SFPMAD(1, 2, SFP_ONE, 1, 0));
		sfpu_emit(q, TT_SFPMAD(0, 1, SFP_ZERO, 0, 0));
		sfpu_constf(q, 2, 0.7978845608f);
		sfpu_emit(q, TT_SFPMAD(0, 2, SFP_ZERO, 0, 0));
		sfpu_tanh_body(q);
		sfpu_emit(q, TT_SFPMAD(0, SFP_ONE, SFP_ONE, 0, 0));
		sfpu_emit(q, TT_SFPMULI(0x3F00, 7));
		sfpu_emit(q, TT_SFPMAD(0, 7, SFP_ZERO, 0, 0));
		break;
	default:
		sfpu_cmp_body(q, (enum compute_cmp)(op - UNARY_GTZ));
		break;
	}
	if (!compute_dst32)   /* a 32-bit Dst keeps the FP32 result */
		sfpu_emit(q, TT_SFPSTOCHRND_BF16(0, 0));
	sfpu_emit(q, TT_SFPSTORE(0, SFP_MOD0_FLOAT, SFP_ADDR_MOD_NEXT, base));
}

/* 32 steps of the sequence q over a Dst tile (TRISC1). */
static inline void compute_sfpu_run(const struct compute_sfpu_seq *q)
{
	tt_push(TT_SETC16(TCFG_ADDR_MOD_AB + SFP_ADDR_MOD_NEXT, 0));
	tt_push(TT_SETC16(TCFG_ADDR_MOD_DST + SFP_ADDR_MOD_NEXT, 2));
	for (unsigned k = 0; k < q->pre; k++)
		tt_push(q->w[k]);
	/* The first (up to) 32 words of the step go through the replay buffer, the rest are pushed. */
	const uint32_t *step = q->w + q->pre;
	unsigned n = q->n - q->pre, rec = n < 32 ? n : 32;
	compute_replay_mm = 0;
	tt_push(TT_REPLAY(0, rec, 1, 1));   /* record and execute the first step's head */
	for (unsigned k = 0; k < rec; k++)
		tt_push(step[k]);
	for (unsigned s = 0; s < 32; s++) {
		if (s)
			tt_push(TT_REPLAY(0, rec, 0, 0));
		for (unsigned k = rec; k < n; k++)
			tt_push(step[k]);
	}
	tt_push(TT_SETRWC(0, 0x4));   /* RWC Dst back to 0 */
}

/* Unary operation op on Dst tile idst (TRISC1). */
static inline void compute_sfpu_unary(unsigned idst, enum compute_unary op, uint32_t param)
{
	struct compute_sfpu_seq *const q = &compute_sfpu_q;
	if (compute_role != COMPUTE_MATH)
		return;
	compute_sfpu_build(q, idst * 64u, op, param);
	compute_sfpu_run(q);
}

/* where_tile: Dst tile icond = icond != 0 ? itrue : ifalse, datum by datum (either zero is zero). */
static inline void where_tile(unsigned icond, unsigned itrue, unsigned ifalse)
{
	struct compute_sfpu_seq *const q = &compute_sfpu_q;
	if (compute_role != COMPUTE_MATH)
		return;
	sfpu_begin(q);
	sfpu_emit(q, TT_SFPLOAD(0, SFP_MOD0_FLOAT, SFP_ADDR_MOD_STAY, icond * 64u));
	sfpu_emit(q, TT_SFPLOAD(1, SFP_MOD0_FLOAT, SFP_ADDR_MOD_STAY, itrue * 64u));
	sfpu_emit(q, TT_SFPLOAD(2, SFP_MOD0_FLOAT, SFP_ADDR_MOD_STAY, ifalse * 64u));
	sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, 0, 0, 1));              /* |cond|: -0 is zero too */
	sfpu_emit(q, SFP_CC_ON);
	sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, 0, 0, 6));               /* lanes with cond == 0 */
	sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 2, 1, 0));
	sfpu_emit(q, SFP_CC_OFF);
	sfpu_emit(q, TT_SFPSTORE(1, SFP_MOD0_FLOAT, SFP_ADDR_MOD_NEXT, icond * 64u));
	compute_sfpu_run(q);
}

/* ---- integer and bitwise operations, typecasts ----
 *
 * Int32/UInt32/Float32 tiles need a 32-bit Dst (compute_fp32_dest_acc_en), UInt16 tiles a 16-bit
 * one. Integers are two's complement in L1, Dst and the LRegs (Blackhole's SFPLOAD/SFPSTORE INT32
 * move the bits as they are), loaded and stored with MOD0_FMT_INT32, UInt16 with MOD0_FMT_UINT16
 * (zero-extended; the low 16 bits stored); floats with MOD0_FMT_FP32 (32-bit Dst) or BF16. The
 * sequences are tt-llk's (the SFPU's own rounding):
 *   int32 -> fp32     |x| by SFPABS, SFPCAST (to nearest, ties even), the sign back; INT_MIN (whose
 *                     absolute value stays INT_MIN, -0 to SFPCAST) becomes -0 + -2^31.
 *   uint32 -> fp32    the low 31 bits by SFPCAST, + 2^31 by SFPADDI when bit 31 is set (two
 *                     roundings to nearest even, as on silicon).
 *   -> bf16           the above, then SFP_STOCH_RND to BF16 (to nearest, ties away from zero).
 *   fp32 -> int32     truncation toward zero; |x| < 1 -> 0; |x| >= 2^31, infinities and NaN -> INT_MIN.
 *   fp32 -> uint32    truncation; x < 0 (also -0, -inf) -> 0; x >= 2^32, +inf, NaN -> 0xFFFFFFFF.
 *   fp32 -> bf16      to nearest, ties to even, by integer arithmetic on the bits (+0x7FFF + lsb).
 *   uint16 -> bf16    SFPCAST, then SFP_STOCH_RND to BF16 (a 16-bit Dst).
 *   bf16 -> uint16    max(x, 0) by SFPSWAP, SFP_STOCH_RND to UINT16: to nearest, ties away; below
 *                     0.5 -> 0; 65536 and above, +inf, NaN -> 65535 (a 16-bit Dst).
 *   -> uint8          the packer: Integer "32" rounded and saturated to 0..255 (negative -> 0), from
 *                     int32/uint32 as they are, from floats after fp32 -> int32 (a 32-bit Dst).
 *   bf16 -> fp32, int32 <-> uint32: no SFPU work (the unpacker and packer move the bits).
 * Bitwise and shift operations take the scalar's bits; shifts take 0..31 (SFPSHFT uses the low five
 * bits); right_shift is arithmetic. Comparisons write integer 1 or 0.
 *
 * Narrow integer tiles (Int8 and UInt8: Integer "8" in Dst, sign-magnitude with 8 bits of magnitude;
 * UInt16) are unpacked straight into 16-bit Dst rows. With a 16-bit Dst they stay there: Int8/UInt8
 * -> Float16_b (SFPLOAD INT8, SFPCAST to FP32, exact in BF16) and -> UInt16 (the two's complement,
 * its low 16 bits: -1 -> 65535). With a 32-bit Dst copy_tile widens them in place into the two's
 * complement Int32 of the tile (compute_dst_widen), so every Int32 operation and typecast applies;
 * -0 (Int8 0x80) becomes 0. Outputs from a 32-bit Dst:
 *   -> int8           typecast_tile(.., Int8) last: two's complement to sign-magnitude by SFPCAST (from
 *                     floats after fp32 -> int32), then the packer rounds and saturates to -127..127;
 *                     INT_MIN (also fp32 -> int32's overflow) becomes -0 (0x80), as SFPCAST maps it.
 *   -> uint16         typecast_tile(.., UInt16) last: the value saturated to 0..65535 (from integers
 *                     through SFPCAST's exact FP32 below 2^24 and SFP_STOCH_RND; from floats as
 *                     bf16 -> uint16 above), stored into the tile's first 64 16-bit rows, which the
 *                     packer reads (compute_dst16_row).
 * Int8 outputs need a 32-bit Dst: from a 16-bit one the packer keeps the sign bit only
 * (FormatConversion.md). */
enum compute_int_unary {
	INT_AND, INT_OR, INT_XOR, INT_NOT, INT_SHL, INT_SHR, INT_ADD, INT_SUB, INT_ABS, INT_NEG, INT_EQZ, INT_NEZ,
	INT_LTZ, INT_GTZ, INT_LEZ, INT_GEZ, TC_INT32_FP32, TC_UINT32_FP32, TC_INT32_BF16, TC_UINT32_BF16, TC_FP32_INT32,
	TC_FP32_UINT32, TC_FP32_BF16, TC_FP32_UINT16, TC_INT8_BF16, TC_INT8_UINT16, TC_INT32_SM, TC_FP32_SM,
	TC_INT32_UINT16, TC_UINT32_UINT16, INT_UNARY_COUNT
};

/* LReg 1 = the two's complement of the sign-magnitude LReg 0 (-0 -> 0; SFPCAST would give INT_MIN). */
static inline void sfpu_sm_to_int(struct compute_sfpu_seq *q)
{
	sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, 0, 1, 1));                /* |x| */
	sfpu_emit(q, SFP_CC_ON);
	sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, 0, 0, 0));                /* sign set: negate */
	sfpu_emit(q, TT_SFPI(SFP_IADD, 0, SFP_ZERO, 1, 2 | 4));
	sfpu_emit(q, SFP_CC_OFF);
}

/* copy_tile of an Int8/UInt8/UInt16 tile into a 32-bit Dst: the unpacker wrote it to the 64 16-bit
 * rows from compute_dst16_row(idst); each four rows (even or odd columns) are loaded (INT8 or
 * UINT16), made two's complement and stored as INT32 to the 32-bit rows of the same index in tile
 * idst. Dst32b row r of the tile lies on its physical rows Adj32(r) and Adj32(r) + 8, both >= r, so
 * walking from the last rows to the first no store reaches a 16-bit row still to be read. */
static inline void compute_dst_widen(unsigned idst, uint32_t fmt)
{
	struct compute_sfpu_seq *const q = &compute_sfpu_q;
	bool i8 = COMPUTE_FMT_IS8(fmt);
	for (unsigned a = 64; a;) {
		a -= 2;
		sfpu_begin(q);
		sfpu_emit(q, TT_SFPLOAD(0, i8 ? SFP_MOD0_INT8 : SFP_MOD0_UINT16, SFP_ADDR_MOD_STAY, compute_dst16_row(idst) + a));
		if (i8)
			sfpu_sm_to_int(q);
		sfpu_emit(q, TT_SFPSTORE(i8 ? 1u : 0u, SFP_MOD0_INT32, SFP_ADDR_MOD_STAY, idst * 64u + a));
		for (unsigned k = 0; k < q->n; k++)
			tt_push(q->w[k]);
	}
}

/* LReg 0 = 0 + 2^31 when LReg 0 is negative (VC: the lane's sign source). */
static inline void sfpu_cast_top_bit(struct compute_sfpu_seq *q, unsigned vc, uint32_t bf16)
{
	sfpu_emit(q, SFP_CC_ON);
	sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, vc, 0, 0));                /* lanes with VC < 0 */
	sfpu_emit(q, TT_SFPADDI(bf16, 0));
	sfpu_emit(q, SFP_CC_OFF);
}

/* LReg 0 = the FP32 of the uint32 in LReg 0: its low 31 bits by SFPCAST, + 2^31 by SFPADDI when
 * bit 31 is set (LReg 1, 2 scratch). */
static inline void sfpu_uint32_to_fp32(struct compute_sfpu_seq *q)
{
	sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, 0, 1, 1));                /* the low 31 bits */
	sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 1, 1, 0));
	sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 0, 2, 0));
	sfpu_emit(q, TT_SFPI(SFP_MOV, 0, 1, 0, 0));
	sfpu_cast_top_bit(q, 2, 0x4F00);                             /* + 2^31 */
}

/* LReg 1 = the truncated integer of the float in LReg 0 (lanes enabled as on entry); the largest
 * exponent and the overflow pattern as given. */
static inline void sfpu_float_to_int(struct compute_sfpu_seq *q, int max_exp, unsigned loadi_mod, uint32_t overflow)
{
	sfpu_emit(q, TT_SFPI(SFP_EXEXP, 0, 0, 2, 2 | 8));             /* e = exponent, lanes with e >= 0 */
	sfpu_emit(q, TT_SFPLOADI(1, loadi_mod, overflow));
	sfpu_emit(q, TT_SFPI(SFP_IADD, (uint32_t)-max_exp & 0xFFF, 2, 2, 1));   /* lanes with e < max_exp */
	sfpu_emit(q, TT_SFPI(SFP_IADD, (uint32_t)(max_exp - 23) & 0xFFF, 2, 2, 1 | 4));   /* e - 23 */
	sfpu_emit(q, TT_SFPI(SFP_EXMAN, 0, 0, 1, 0));                 /* 1.mantissa as an integer */
	sfpu_emit(q, TT_SFPI(SFP_SHFT, 0, 2, 1, 0));                  /* shifted by e - 23 */
	sfpu_emit(q, SFP_CC_OFF);
}

/* The sequence of op over the 32 datums at Dst row base (RWC Dst added), stored at row sbase. */
static inline void compute_sfpu_int_build(struct compute_sfpu_seq *q, unsigned base, unsigned sbase,
					  enum compute_int_unary op, uint32_t param)
{
	bool float_in = (op >= TC_FP32_INT32 && op <= TC_FP32_UINT16) || op == TC_FP32_SM;
	bool float_out = (op >= TC_INT32_FP32 && op <= TC_UINT32_BF16) || op == TC_FP32_BF16 || op == TC_INT8_BF16;
	bool u16_out = op == TC_FP32_UINT16 || op == TC_INT8_UINT16 || op == TC_INT32_UINT16 || op == TC_UINT32_UINT16;
	unsigned out = 0, ild = compute_sfpu_mods & 15, ist = compute_sfpu_mods >> 4 & 15, fmod = compute_sfpu_mods >> 8 & 15;
	if (op == TC_INT8_BF16 || op == TC_INT8_UINT16)
		ild = SFP_MOD0_INT8;
	sfpu_begin(q);
	sfpu_emit(q, TT_SFPLOAD(0, float_in ? fmod : ild, SFP_ADDR_MOD_STAY, base));
	switch (op) {
	case INT_AND: case INT_OR: case INT_XOR:
		sfpu_const(q, 1, param);
		sfpu_emit(q, TT_SFPI(op == INT_AND ? SFP_AND : op == INT_OR ? SFP_OR : SFP_XOR, 0, 1, 0, 0));
		break;
	case INT_NOT: sfpu_emit(q, TT_SFPI(SFP_NOT, 0, 0, 0, 0)); break;
	case INT_SHL: sfpu_emit(q, TT_SFPI(SFP_SHFT, param & 31, 0, 0, 1)); break;
	case INT_SHR: sfpu_emit(q, TT_SFPI(SFP_SHFT, (0u - (param & 31)) & 0xFFF, 0, 0, 1 | 2)); break;   /* arithmetic */
	case INT_ADD:
		sfpu_const(q, 1, param);
		sfpu_emit(q, TT_SFPI(SFP_IADD, 0, 1, 0, 4));
		break;
	case INT_SUB:
		sfpu_const(q, 1, param);
		sfpu_emit(q, TT_SFPI(SFP_IADD, 0, 0, 1, 2 | 4));             /* LReg 1 = x - p */
		out = 1;
		break;
	case INT_ABS: sfpu_emit(q, TT_SFPI(SFP_ABS, 0, 0, 0, 0)); break;
	case INT_NEG: sfpu_emit(q, TT_SFPI(SFP_IADD, 0, SFP_ZERO, 0, 2 | 4)); break;   /* 0 - x */
	case INT_EQZ: case INT_NEZ: case INT_LTZ: case INT_GEZ: case INT_GTZ: case INT_LEZ: {
		bool pos = op == INT_GTZ || op == INT_LEZ;
		sfpu_emit(q, TT_SFPLOADI(1, 2, op == INT_LEZ));
		sfpu_emit(q, SFP_CC_ON);
		static const uint8_t mode[] = { 6, 2, 0, 4 };   /* EQ0, NE0, LT0, GTE0 */
		sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, 0, 0, pos ? 4 : mode[op == INT_GEZ ? 3 : op - INT_EQZ]));
		if (pos)
			sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, 0, 0, 2));           /* and != 0 */
		sfpu_emit(q, TT_SFPLOADI(1, 2, op != INT_LEZ));
		sfpu_emit(q, SFP_CC_OFF);
		out = 1;
		break;
	}
	case TC_INT32_FP32: case TC_INT32_BF16:
		sfpu_emit(q, TT_SFPI(SFP_ABS, 0, 0, 1, 0));                   /* |x| (INT_MIN stays) */
		sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 1, 2, 0));                  /* sign-magnitude to FP32 */
		sfpu_emit(q, TT_SFPI(SFP_SETSGN, 0, 2, 0, 0));                /* with x's sign */
		sfpu_cast_top_bit(q, 1, 0xCF00);                             /* INT_MIN: -0 + -2^31 */
		break;
	case TC_UINT32_FP32: case TC_UINT32_BF16:
		sfpu_uint32_to_fp32(q);
		break;
	case TC_FP32_INT32: case TC_FP32_SM:
		sfpu_emit(q, TT_SFPLOADI(1, 2, 0));
		sfpu_emit(q, SFP_CC_ON);
		sfpu_float_to_int(q, 31, 0, 0x8000);                         /* overflow: INT_MIN */
		sfpu_emit(q, SFP_CC_ON);
		sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, 0, 0, 0));                /* x < 0: negate */
		sfpu_emit(q, TT_SFPI(SFP_IADD, 0, SFP_ZERO, 1, 2 | 4));
		sfpu_emit(q, SFP_CC_OFF);
		out = 1;
		break;
	case TC_FP32_UINT32:
		sfpu_emit(q, TT_SFPLOADI(1, 2, 0));
		sfpu_emit(q, SFP_CC_ON);
		sfpu_emit(q, TT_SFPI(SFP_SETCC, 0, 0, 0, 4));                /* lanes with x >= 0 */
		sfpu_float_to_int(q, 32, 4, 0xFFFF);                         /* overflow: all ones */
		out = 1;
		break;
	case TC_INT8_BF16:
		sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 0, 0, 0));                  /* sign-magnitude to FP32 (exact) */
		break;
	case TC_INT8_UINT16:
		sfpu_sm_to_int(q);
		out = 1;
		break;
	case TC_INT32_SM:
		sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 0, 0, 3));                  /* two's complement -> sign-magnitude */
		break;
	case TC_INT32_UINT16: case TC_UINT32_UINT16: case TC_FP32_UINT16:
		if (op == TC_INT32_UINT16) {
			sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 0, 0, 3));
			sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 0, 0, 0));          /* exact below 2^24 */
		} else if (op == TC_UINT32_UINT16) {
			sfpu_uint32_to_fp32(q);
		}
		sfpu_emit(q, TT_SFPLOADI(1, 2, 0));
		sfpu_emit(q, TT_SFPI(SFP_SWAP, 0, 0, 1, 1));                  /* LReg 0 = max(x, 0) */
		sfpu_emit(q, TT_OP(0x8E, 0u << 8 | 0u << 4 | 6u));            /* SFP_STOCH_RND FP32 -> UINT16, nearest */
		break;
	default:   /* TC_FP32_BF16: bits + 0x7FFF + (bit 16), the low half cleared */
		sfpu_emit(q, TT_SFPI(SFP_SHFT, 0xFF0, 0, 1, 1 | 4));          /* LReg 1 = x >> 16 */
		sfpu_emit(q, TT_SFPLOADI(2, 2, 1));
		sfpu_emit(q, TT_SFPI(SFP_AND, 0, 2, 1, 0));
		sfpu_emit(q, TT_SFPLOADI(2, 2, 0x7FFF));
		sfpu_emit(q, TT_SFPI(SFP_IADD, 0, 2, 0, 4));
		sfpu_emit(q, TT_SFPI(SFP_IADD, 0, 1, 0, 4));
		sfpu_emit(q, TT_SFPLOADI(2, 0, 0xFFFF));                     /* 0xFFFF0000 */
		sfpu_emit(q, TT_SFPI(SFP_AND, 0, 2, 0, 0));
		break;
	}
	if (op == TC_INT32_BF16 || op == TC_UINT32_BF16)
		sfpu_emit(q, TT_SFPSTOCHRND_BF16(0, 0));
	if (op == TC_FP32_SM)
		sfpu_emit(q, TT_SFPI(SFP_CAST, 0, 1, 1, 3));
	sfpu_emit(q, TT_SFPSTORE(out, float_out ? fmod : u16_out ? SFP_MOD0_UINT16 : ist, SFP_ADDR_MOD_NEXT, sbase));
}

/* Integer/bitwise operation or typecast op on Dst tile idst (TRISC1; a 32-bit Dst). */
static inline void compute_sfpu_int(unsigned idst, enum compute_int_unary op, uint32_t param)
{
	struct compute_sfpu_seq *const q = &compute_sfpu_q;
	if (compute_role != COMPUTE_MATH)
		return;
	bool narrow = compute_dst32 && (op == TC_FP32_UINT16 || op == TC_INT32_UINT16 || op == TC_UINT32_UINT16);
	compute_sfpu_int_build(q, idst * 64u, narrow ? compute_dst16_row(idst) : idst * 64u, op, param);
	compute_sfpu_run(q);
}

/* typecast_tile<IN_DTYPE, OUT_DTYPE>(idst) of tt-metal, the formats as arguments (COMPUTE_FMT_*:
 * Float32, Float16_b, Int32, UInt32, Int8, UInt8, UInt16 in, and out with a 32-bit Dst; Int8, UInt8
 * -> Float16_b, UInt16 and Float16_b <-> UInt16 with a 16-bit Dst). Pairs without an SFPU sequence
 * (the same format but Int8 and UInt16, Float16_b -> Float32, Int32 <-> UInt32, integers -> UInt8)
 * do nothing; Float16_b -> integers is Float32's (Dst holds FP32), Int8/UInt8/UInt16 in a 32-bit Dst
 * are Int32 (copy_tile widened them). With a 32-bit Dst, Int8 and UInt16 outputs need this call
 * last (Int8 of any input, UInt16 of UInt16 too). */
static inline void typecast_tile_init(void) {}
static inline void typecast_tile(unsigned idst, uint32_t in_fmt, uint32_t out_fmt)
{
	if (compute_dst32 && COMPUTE_FMT_NARROW_INT(in_fmt))
		in_fmt = COMPUTE_FMT_INT32;
	bool in_f = in_fmt == COMPUTE_FMT_FP32 || in_fmt == COMPUTE_FMT_BF16;
	int op = -1;
	if (COMPUTE_FMT_IS8(in_fmt))   /* a 16-bit Dst */
		op = out_fmt == COMPUTE_FMT_BF16 ? TC_INT8_BF16 : out_fmt == COMPUTE_FMT_UINT16 ? TC_INT8_UINT16 : -1;
	else if (out_fmt == COMPUTE_FMT_INT8)
		op = !compute_dst32 ? -1 : in_f ? TC_FP32_SM : TC_INT32_SM;
	else if (compute_dst32 && out_fmt == COMPUTE_FMT_UINT16)
		op = in_f ? TC_FP32_UINT16 : in_fmt == COMPUTE_FMT_UINT32 ? TC_UINT32_UINT16 : TC_INT32_UINT16;
	else if (in_f && (out_fmt == COMPUTE_FMT_INT32 || out_fmt == COMPUTE_FMT_UINT8))
		op = TC_FP32_INT32;
	else if (in_fmt == COMPUTE_FMT_BF16 && out_fmt == COMPUTE_FMT_UINT16)
		op = TC_FP32_UINT16;
	else if (in_fmt == COMPUTE_FMT_UINT16 && out_fmt == COMPUTE_FMT_BF16)
		op = TC_INT32_BF16;   /* the same sequence: a zero-extended UINT16 is a non-negative integer */
	else if (in_f && out_fmt == COMPUTE_FMT_UINT32)
		op = TC_FP32_UINT32;
	else if (in_fmt == COMPUTE_FMT_FP32 && out_fmt == COMPUTE_FMT_BF16)
		op = TC_FP32_BF16;
	else if (in_fmt == COMPUTE_FMT_INT32 && out_fmt == COMPUTE_FMT_FP32)
		op = TC_INT32_FP32;
	else if (in_fmt == COMPUTE_FMT_INT32 && out_fmt == COMPUTE_FMT_BF16)
		op = TC_INT32_BF16;
	else if (in_fmt == COMPUTE_FMT_UINT32 && out_fmt == COMPUTE_FMT_FP32)
		op = TC_UINT32_FP32;
	else if (in_fmt == COMPUTE_FMT_UINT32 && out_fmt == COMPUTE_FMT_BF16)
		op = TC_UINT32_BF16;
	if (op >= 0)
		compute_sfpu_int(idst, (enum compute_int_unary)op, 0);
}

/* tt-metal's names of the integer and bitwise unary operations (Int32/UInt32 tiles). */
static inline void bitwise_and_tile_init(void) {}
static inline void bitwise_and_tile(unsigned idst, uint32_t p) { compute_sfpu_int(idst, INT_AND, p); }
static inline void bitwise_or_tile(unsigned idst, uint32_t p) { compute_sfpu_int(idst, INT_OR, p); }
static inline void bitwise_xor_tile(unsigned idst, uint32_t p) { compute_sfpu_int(idst, INT_XOR, p); }
static inline void bitwise_not_tile(unsigned idst) { compute_sfpu_int(idst, INT_NOT, 0); }
static inline void left_shift_tile(unsigned idst, uint32_t p) { compute_sfpu_int(idst, INT_SHL, p); }
static inline void right_shift_tile(unsigned idst, uint32_t p) { compute_sfpu_int(idst, INT_SHR, p); }
static inline void add_unary_tile_int32(unsigned idst, uint32_t p) { compute_sfpu_int(idst, INT_ADD, p); }
static inline void sub_unary_tile_int32(unsigned idst, uint32_t p) { compute_sfpu_int(idst, INT_SUB, p); }
static inline void abs_tile_int32(unsigned idst) { compute_sfpu_int(idst, INT_ABS, 0); }
static inline void negative_tile_int32(unsigned idst) { compute_sfpu_int(idst, INT_NEG, 0); }
static inline void eqz_tile_int32(unsigned idst) { compute_sfpu_int(idst, INT_EQZ, 0); }
static inline void nez_tile_int32(unsigned idst) { compute_sfpu_int(idst, INT_NEZ, 0); }
static inline void ltz_tile_int32(unsigned idst) { compute_sfpu_int(idst, INT_LTZ, 0); }
static inline void gtz_tile_int32(unsigned idst) { compute_sfpu_int(idst, INT_GTZ, 0); }
static inline void lez_tile_int32(unsigned idst) { compute_sfpu_int(idst, INT_LEZ, 0); }
static inline void gez_tile_int32(unsigned idst) { compute_sfpu_int(idst, INT_GEZ, 0); }

/* tt-metal's names. The *_init calls set nothing beyond what compute_sfpu_unary does. */
static inline void init_sfpu(unsigned icb, unsigned ocb) { unary_op_init_common(icb, ocb); }
static inline void binop_with_scalar_tile_init(void) {}
static inline void add_unary_tile(unsigned idst, uint32_t param) { compute_sfpu_unary(idst, UNARY_ADD, param); }
static inline void sub_unary_tile(unsigned idst, uint32_t param) { compute_sfpu_unary(idst, UNARY_SUB, param); }
static inline void mul_unary_tile(unsigned idst, uint32_t param) { compute_sfpu_unary(idst, UNARY_MUL, param); }
static inline void relu_tile_init(void) {}
static inline void relu_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_RELU, 0); }
static inline void leaky_relu_tile(unsigned idst, uint32_t slope) { compute_sfpu_unary(idst, UNARY_LEAKY_RELU, slope); }
static inline void abs_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_ABS, 0); }
static inline void negative_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_NEG, 0); }
static inline void sign_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_SIGN, 0); }
static inline void exp_tile_init(void) {}
static inline void exp_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_EXP, 0); }
static inline void log_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_LOG, 0); }
static inline void recip_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_RECIP, 0); }
static inline void sqrt_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_SQRT, 0); }
static inline void rsqrt_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_RSQRT, 0); }
static inline void sigmoid_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_SIGMOID, 0); }
static inline void tanh_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_TANH, 0); }
static inline void gelu_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_GELU, 0); }
static inline void gtz_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_GTZ, 0); }
static inline void ltz_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_LTZ, 0); }
static inline void gez_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_GEZ, 0); }
static inline void lez_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_LEZ, 0); }
static inline void eqz_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_EQZ, 0); }
static inline void nez_tile(unsigned idst) { compute_sfpu_unary(idst, UNARY_NEZ, 0); }

/* Each TRISC: every instruction it pushed has executed. */
static inline void compute_end(void)
{
	tt_sync();
}

#endif
