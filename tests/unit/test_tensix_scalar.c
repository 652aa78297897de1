/* The scalar unit's GPR arithmetic (ADD/SUB/MUL/BITWOP/SHIFT/CMPDMAREG), the special form of
 * SETDMAREG, CFGSHIFTMASK and the global configuration words, STALLWAIT on SrcA/SrcB ownership,
 * STREAMWAIT on stream registers, and the instruction-type bits of tt_cfg_qstatus/bstatus.
 * Expected values come from the tt-isa-documentation pages named in each comment; each is
 * chosen so that a plausible wrong reading (signed compare, shift not taken mod 32, mask not
 * cleared, wrong ALU mode) gives another number. Meant to be clean under TSan. */
#include <stdio.h>

#include <criterion/criterion.h>

#include <stdatomic.h>
#include <string.h>

#include "cores/tensix.h"
#include "fabric/tile.h"
#include "sync/streams.h"
#include "tensix_testlib.h"
#include "testlib.h"

#define TENSIX_CFG 0xFFEF0000u
#define CSR_QSTATUS 0xBC0u
#define CSR_BSTATUS 0xBC1u
#define CSR_CFG0 0x7C0u

enum { ADD = 0x58, SUB = 0x59, MUL = 0x5A, BITWOP = 0x5B, SHIFT = 0x5C, CMP = 0x5D };

/* Instruction words beyond tensix_testlib.h. */
#define DMAMODE(op, mode, a, b, res, imm) (DMAOP(op, a, b, res, imm) | (uint32_t)(mode) << 18)
#define SET_LO(r, v) SETDMAREG(2 * (r), (v) & 0xFFFFu)
#define SET_HI(r, v) SETDMAREG(2 * (r) + 1, (uint32_t)(v) >> 16)
#define SETDMAREG_SPECIAL(size, source, in_half, out_half) \
	TT(0x45, (uint32_t)(size) << 22 | (uint32_t)(source) << 11 | (uint32_t)(in_half) << 8 | 1u << 7 | (out_half))
#define CFGSHIFTMASK(mask_mode, alu, width, rot, scratch, idx) \
	TT(0xB8, (uint32_t)(mask_mode) << 23 | (uint32_t)(alu) << 20 | (uint32_t)(width) << 15 | (uint32_t)(rot) << 10 | \
		 (uint32_t)(scratch) << 8 | (idx))
#define SETC16(idx, v) TT(0xB2, (uint32_t)(idx) << 16 | (v))
#define WRCFG(gpr, idx) TT(0xB0, (uint32_t)(gpr) << 16 | (idx))
#define STREAMWAIT(block, target_lo, cond, sel) \
	TT(0xA7, (uint32_t)(block) << 15 | (uint32_t)(target_lo) << 4 | (uint32_t)(cond) << 3 | (sel))

static uint32_t gpr_of(struct bh_device *dev, unsigned thread, unsigned r)
{
	return atomic_load_explicit(&tile0(dev)->tensix->th[thread].gpr[r], memory_order_relaxed);
}

/* GPRs first.. of Tensix thread `thread` hold want[0..n). */
static void expect_gprs(struct bh_device *dev, unsigned thread, unsigned first, const uint32_t *want, size_t n)
{
	for (size_t k = 0; k < n; k++)
		cr_expect_eq(gpr_of(dev, thread, first + (unsigned)k), want[k], "thread %u GPR %zu: 0x%08x, want 0x%08x",
			     thread, first + k, gpr_of(dev, thread, first + (unsigned)k), want[k]);
}

/* On a fresh device, TRISC `core` pushes w[0..n); then its thread's GPRs first.. hold want. */
static void expect_pushes_leave_gprs(enum bh_core_id core, const uint32_t *w, size_t n, unsigned first,
				     const uint32_t *want, size_t nwant)
{
	struct bh_device *dev = t_open();
	run_pushes(dev, core, w, n);
	expect_gprs(dev, (unsigned)(core - BH_CORE_TRISC0), first, want, nwant);
	bh_device_close(dev);
}

/* On a fresh device, `core` pushes w, which faults with `kind` and `phrase`, at its push. */
static void expect_push_faults(enum bh_core_id core, uint32_t w, const char *kind, const char *phrase)
{
	struct bh_device *dev = t_open();
	expect_push_fault_after(dev, core, NULL, 0, w, kind, phrase);
	bh_device_close(dev);
}

/* A fresh device whose eight semaphores are at 0 (max 15); *t = its tile. */
static struct bh_device *open_with_sems_at_0(struct bh_tile **t)
{
	struct bh_device *dev = t_open();
	*t = tile0(dev);
	bh_sem_init(*t, 0xFF, 15, 0);
	return dev;
}

static uint32_t cfg_get(struct bh_device *dev, unsigned idx)
{
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, TENSIX_CFG + 4 * idx, &v), BH_OK);
	return v;
}

static void cfg_put(struct bh_device *dev, unsigned idx, uint32_t v)
{
	cr_assert_eq(bh_reg_write(dev, 0, TENSIX_CFG + 4 * idx, v), BH_OK);
}

static void reset_core(struct bh_device *dev, enum bh_core_id core)
{
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v | reset_bit(core)), BH_OK);
}

/* ------------------------------------------------------------------------------ decoding */

Test(tensix_scalar_decode, dmareg_mode_is_bits_20_18_and_bits_22_21_are_reserved)
{
	char why[160];
	cr_expect(tt_decode_check(DMAMODE(BITWOP, 7, 1, 2, 3, 0), why, sizeof why), "%s", why);
	cr_expect_not(tt_decode_check(DMAMODE(BITWOP, 0, 1, 2, 3, 0) | 1u << 21, why, sizeof why));
	cr_expect(strstr(why, "reserved bits 0x200000 of BITWOPDMAREG") != NULL, "%s", why);
	cr_expect_not(tt_decode_check(DMAOP(ADD, 1, 2, 3, 0) | 1u << 18, why, sizeof why), "ADDDMAREG has no mode");
	char b[128];
	tt_disasm(DMAMODE(CMP, 2, 5, 63, 7, 1), b, sizeof b);
	cr_expect_str_eq(b, "CMPDMAREG left_reg=0x5 right=0x3f result_reg=0x7 mode=0x2 right_is_imm=0x1");
}

Test(tensix_scalar_decode, streamwait_fields_and_reserved_bits_2_and_14)
{
	char why[160], b[128];
	tt_disasm(STREAMWAIT(0x40, 0x3FF, 1, 3), b, sizeof b);
	cr_expect_str_eq(b, "STREAMWAIT stream_select=0x3 condition_index=0x1 target_value_lo=0x3ff block_mask=0x40");
	cr_expect_eq(tt_opinfo(0xA7)->exec, TT_E_Y);
	cr_expect_not(tt_decode_check(STREAMWAIT(0, 0, 0, 0) | 1u << 2, why, sizeof why));
	cr_expect_not(tt_decode_check(STREAMWAIT(0, 0, 0, 0) | 1u << 14, why, sizeof why));
	cr_expect(strstr(why, "reserved bits 0x004000 of STREAMWAIT") != NULL, "%s", why);
}

/* ------------------------------------------------------------------- GPR arithmetic */

/* BITWOPDMAREG.md: mode 0 and, 1 or, 2 xor; the right operand is a GPR or a 6-bit immediate. */
Test(tensix_scalar, bitwopdmareg_and_or_xor_with_a_register_and_with_an_immediate)
{
	const uint32_t w[] = {
		SET_LO(1, 0xF0F01234u), SET_HI(1, 0xF0F01234u), SET_LO(2, 0x0FF000FFu), SET_HI(2, 0x0FF000FFu),
		DMAMODE(BITWOP, 0, 1, 2, 10, 0), DMAMODE(BITWOP, 1, 1, 2, 11, 0), DMAMODE(BITWOP, 2, 1, 2, 12, 0),
		DMAMODE(BITWOP, 0, 1, 0x3F, 13, 1), DMAMODE(BITWOP, 1, 1, 0x21, 14, 1), DMAMODE(BITWOP, 2, 1, 0x3F, 15, 1),
	};
	const uint32_t want[] = { 0x00F00034u, 0xFFF012FFu, 0xFF0012CBu, 0x34u, 0xF0F01235u, 0xF0F0120Bu };
	expect_pushes_leave_gprs(BH_CORE_TRISC0, w, N(w), 10, want, N(want));
}

Test(tensix_scalar, bitwopdmareg_mode_3_is_undefined_and_faults)
{
	expect_push_faults(BH_CORE_TRISC1, DMAMODE(BITWOP, 3, 1, 2, 3, 0), "bad register value",
			   "BITWOPDMAREG mode 3 is undefined (0 and, 1 or, 2 xor)");
}

/* SHIFTDMAREG.md: logical shifts; a register amount is taken mod 32 (33 shifts by 1, 32 by 0),
 * the immediate has 5 bits. Right register 33 sets bit 11 legally in the register form. */
Test(tensix_scalar, shiftdmareg_takes_a_register_amount_mod_32_and_shifts_logically)
{
	const uint32_t w[] = {
		SET_LO(1, 0x80000003u), SET_HI(1, 0x80000003u), SET_LO(33, 33), SET_HI(33, 0), SET_LO(2, 32), SET_HI(2, 0),
		DMAMODE(SHIFT, 0, 1, 33, 10, 0), DMAMODE(SHIFT, 1, 1, 33, 11, 0), DMAMODE(SHIFT, 0, 1, 2, 12, 0),
		DMAMODE(SHIFT, 0, 1, 4, 13, 1), DMAMODE(SHIFT, 1, 1, 31, 14, 1),
	};
	const uint32_t want[] = {
		0x00000006u,   /* left by 33 = left by 1 */
		0x40000001u,   /* right by 33 = right by 1, no sign fill */
		0x80000003u,   /* by 32 = by 0 */
		0x00000030u, 0x00000001u,
	};
	expect_pushes_leave_gprs(BH_CORE_TRISC2, w, N(w), 10, want, N(want));
}

Test(tensix_scalar, shiftdmareg_immediate_form_reserves_bit_11_and_mode_2_is_undefined)
{
	expect_push_faults(BH_CORE_TRISC0, DMAMODE(SHIFT, 0, 1, 33, 10, 1), "illegal instruction",
			   "reserved bit 11 of SHIFTDMAREG's immediate form is set");
	expect_push_faults(BH_CORE_TRISC1, DMAMODE(SHIFT, 2, 1, 3, 10, 1), "bad register value",
			   "SHIFTDMAREG mode 2 is undefined");
}

/* CMPDMAREG.md: unsigned compares, result 1 or 0 (the whole GPR is written). 0xFFFFFFFF > 1
 * unsigned; signed it would be -1 < 1. */
Test(tensix_scalar, cmpdmareg_compares_unsigned_and_writes_0_or_1)
{
	const uint32_t w[] = {
		SET_LO(1, 0xFFFFFFFFu), SET_HI(1, 0xFFFFFFFFu), SET_LO(2, 1), SET_HI(2, 0), SET_LO(3, 5), SET_HI(3, 0),
		SET_LO(10, 0xDEAD), SET_HI(10, 0xBEEF0000u), SET_LO(11, 0xDEAD), SET_HI(11, 0xBEEF0000u),
		DMAMODE(CMP, 0, 1, 2, 10, 0), DMAMODE(CMP, 1, 1, 2, 11, 0), DMAMODE(CMP, 2, 2, 2, 12, 0),
		DMAMODE(CMP, 2, 3, 5, 13, 1), DMAMODE(CMP, 1, 3, 63, 14, 1), DMAMODE(CMP, 0, 3, 5, 15, 1),
	};
	const uint32_t want[] = {
		1,   /* 0xffffffff > 1 (unsigned) */
		0,   /* 0xffffffff < 1 is false */
		1,   /* 1 == 1 */
		1,   /* 5 == immediate 5 */
		1,   /* 5 < immediate 63 */
		0,   /* 5 > immediate 5 is false */
	};
	expect_pushes_leave_gprs(BH_CORE_TRISC1, w, N(w), 10, want, N(want));
	expect_push_faults(BH_CORE_TRISC2, DMAMODE(CMP, 3, 1, 2, 3, 0), "bad register value",
			   "CMPDMAREG mode 3 is undefined (0 greater, 1 less, 2 equal)");
}

/* ADDDMAREG.md, SUBDMAREG.md, MULDMAREG.md: 32-bit wrap-around; MUL multiplies the low 16 bits
 * of each side into a full 32-bit product. */
Test(tensix_scalar, add_sub_wrap_and_mul_takes_the_low_16_bits_of_each_side)
{
	const uint32_t w[] = {
		SET_LO(1, 0x0001FFFFu), SET_HI(1, 0x0001FFFFu), SET_LO(2, 0x00030002u), SET_HI(2, 0x00030002u),
		SET_LO(3, 0xFFFFFFFFu), SET_HI(3, 0xFFFFFFFFu), SET_LO(4, 1), SET_HI(4, 0),
		DMAOP(MUL, 1, 2, 10, 0), DMAOP(MUL, 3, 3, 11, 0), DMAOP(SUB, 4, 2, 12, 1), DMAOP(ADD, 3, 4, 13, 0),
		DMAOP(ADD, 4, 63, 14, 1), DMAOP(SUB, 4, 3, 15, 0),
	};
	const uint32_t want[] = {
		0x1FFFEu,       /* 0xffff * 2 */
		0xFFFE0001u,    /* 0xffff * 0xffff */
		0xFFFFFFFFu,    /* 1 - immediate 2 */
		0,              /* 0xffffffff + 1 */
		64,             /* 1 + immediate 63 */
		2,              /* 1 - 0xffffffff */
	};
	expect_pushes_leave_gprs(BH_CORE_TRISC0, w, N(w), 10, want, N(want));
}

/* ------------------------------------------------------------- SETDMAREG special form */

/* SETDMAREG_Special.md: InputSource 10-15 selects no packer state, so the 128 bits are zero.
 * ResultSize 2 clears the aligned group of four GPRs, 3 only the tile-header fields (TileSize,
 * DataFormat..SpareBits, AllZeroFlags), 1 one GPR, 0 one half-register. */
Test(tensix_scalar, setdmareg_special_with_a_source_above_9_writes_zeros_by_result_size)
{
	uint32_t w[64];
	size_t n = 0;
	for (unsigned r = 4; r < 16; r++) {
		w[n++] = SET_LO(r, 0xFFFFFFFFu);
		w[n++] = SET_HI(r, 0xFFFFFFFFu);
	}
	w[n++] = SETDMAREG_SPECIAL(2, 15, 0, 2 * 5);      /* GPR 5: its group 4..7 */
	w[n++] = SETDMAREG_SPECIAL(3, 10, 0, 2 * 8);      /* tile header in 8..11 */
	w[n++] = SETDMAREG_SPECIAL(1, 12, 6, 2 * 13);     /* GPR 13 */
	w[n++] = SETDMAREG_SPECIAL(0, 11, 3, 2 * 14 + 1); /* high half of GPR 14 */
	const uint32_t want[] = {
		0, 0, 0, 0,     /* 4..7 */
		0xFFFF0000u,    /* 8: TileSize cleared, the reserved half kept */
		0xFF00FFFFu,    /* 9: DataFormat, DisableZeroCompression, SpareBits cleared */
		0,              /* 10: AllZeroFlags */
		0xFFFFFFFFu,    /* 11: reserved word kept */
		0xFFFFFFFFu, 0, /* 12 untouched, 13 cleared */
		0x0000FFFFu,    /* 14: high half cleared */
		0xFFFFFFFFu,
	};
	expect_pushes_leave_gprs(BH_CORE_TRISC2, w, n, 4, want, N(want));
}

Test(tensix_scalar, setdmareg_special_reading_packer_state_is_a_named_fault)
{
	expect_push_faults(BH_CORE_TRISC0, SETDMAREG_SPECIAL(1, 0, 0, 2), "not modelled",
			   "InputSource 0 reads the packers' accumulated and last tile sizes");
	expect_push_faults(BH_CORE_TRISC1, SETDMAREG_SPECIAL(1, 15, 0, 2) | 1u << 20, "illegal instruction",
			   "reserved bits 21:19 of SETDMAREG's special form are set (0x2)");
}

/* ------------------------------------------------------------------ CFGSHIFTMASK */

#define CFG_T 100u          /* a per-state word with no side effects */
#define CFG_GLOBAL 200u     /* INT_DESCALE_VALUES_SEC13: global (>= 180), no side effects */
#define SCRATCH(k) (209u + (k))

/* The LLK idiom CFGSHIFTMASK(1, 0b011, 31, 0, sel, reg): reg += SCRATCH_SEC[sel] (full mask, no
 * clear, add); ScratchIndex 3 selects the issuing thread's own scratch word. */
Test(tensix_cfgshiftmask, adds_a_scratch_word_and_scratch_index_3_is_the_threads_own)
{
	struct bh_device *dev = t_open();
	cfg_put(dev, CFG_T, 0x1000);
	cfg_put(dev, SCRATCH(0), 0x234);
	cfg_put(dev, SCRATCH(1), 0x5);
	cfg_put(dev, SCRATCH(2), 0x70000000u);
	const uint32_t w[] = { CFGSHIFTMASK(1, 3, 31, 0, 0, CFG_T), CFGSHIFTMASK(1, 3, 31, 0, 0, CFG_T),
			       CFGSHIFTMASK(1, 3, 31, 0, 3, CFG_T) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	cr_expect_eq(cfg_get(dev, CFG_T), 0x1000u + 2 * 0x234 + 5, "0x%08x", cfg_get(dev, CFG_T));
	const uint32_t w2[] = { CFGSHIFTMASK(1, 3, 31, 0, 3, CFG_T) };
	run_pushes(dev, BH_CORE_TRISC2, w2, N(w2));
	cr_expect_eq(cfg_get(dev, CFG_T), 0x7000146Du, "0x%08x", cfg_get(dev, CFG_T));
	bh_device_close(dev);
}

/* CFGSHIFTMASK.md, every AluMode with cfg 0x0000F0F0 and scratch 0x00FF00FF, full mask. */
Test(tensix_cfgshiftmask, each_alu_mode)
{
	static const uint32_t want[8] = { 0x00FFF0FFu, 0x000000F0u, 0x00FFF00Fu, 0x00FFF1EFu,
					  0xFF00FFF0u, 0x0000F000u, 0xFF000FF0u, 0xFF01EFF1u };
	struct bh_device *dev = t_open();
	cfg_put(dev, SCRATCH(2), 0x00FF00FFu);
	for (unsigned alu = 0; alu < 8; alu++) {
		cfg_put(dev, CFG_T, 0x0000F0F0u);
		const uint32_t w[] = { CFGSHIFTMASK(1, alu, 31, 0, 2, CFG_T) };
		run_pushes(dev, BH_CORE_TRISC0, w, N(w));
		cr_expect_eq(cfg_get(dev, CFG_T), want[alu], "AluMode %u: 0x%08x", alu, cfg_get(dev, CFG_T));
	}
	bh_device_close(dev);
}

/* Mask = bits MaskWidth..0 of the scratch word, rotated right by RotateAmt with it. MaskMode 0
 * first clears the rotated mask's bits of the old value, MaskMode 1 does not. */
Test(tensix_cfgshiftmask, mask_width_rotate_and_the_clear_of_the_old_bits)
{
	struct bh_device *dev = t_open();
	cfg_put(dev, SCRATCH(0), 0xFFFFFFABu);
	cfg_put(dev, CFG_T, 0x12345678u);
	const uint32_t xor_clear[] = { CFGSHIFTMASK(0, 2, 7, 24, 0, CFG_T) };
	run_pushes(dev, BH_CORE_TRISC0, xor_clear, N(xor_clear));
	cr_expect_eq(cfg_get(dev, CFG_T), 0x1234AB78u, "0x%08x", cfg_get(dev, CFG_T));
	cfg_put(dev, CFG_T, 0x12345678u);
	const uint32_t xor_keep[] = { CFGSHIFTMASK(1, 2, 7, 24, 0, CFG_T) };
	run_pushes(dev, BH_CORE_TRISC0, xor_keep, N(xor_keep));
	cr_expect_eq(cfg_get(dev, CFG_T), 0x1234FD78u, "0x%08x", cfg_get(dev, CFG_T));
	cfg_put(dev, CFG_T, 0);
	const uint32_t width3[] = { CFGSHIFTMASK(1, 0, 3, 0, 0, CFG_T) };
	run_pushes(dev, BH_CORE_TRISC0, width3, N(width3));
	cr_expect_eq(cfg_get(dev, CFG_T), 0xBu, "0x%08x", cfg_get(dev, CFG_T));
	cfg_put(dev, SCRATCH(1), 0x80000001u);
	cfg_put(dev, CFG_T, 0);
	const uint32_t rot1[] = { CFGSHIFTMASK(0, 0, 31, 1, 1, CFG_T) };
	run_pushes(dev, BH_CORE_TRISC0, rot1, N(rot1));
	cr_expect_eq(cfg_get(dev, CFG_T), 0xC0000000u, "0x%08x", cfg_get(dev, CFG_T));
	bh_device_close(dev);
}

/* A thread on config state 1 (SETC16 CFG_STATE_ID) changes bank 1 only; the scratch words and
 * index 200 are global (BackendConfiguration.md, GLOBAL_CFGREG_BASE_ADDR32 = 180), one value
 * for both banks: MMIO (bank 0) sees the bank-1 thread's write there. */
Test(tensix_cfgshiftmask, state_1_writes_bank_1_and_global_words_are_shared)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	cfg_put(dev, SCRATCH(0), 7);
	cfg_put(dev, CFG_T, 100);
	cfg_put(dev, CFG_GLOBAL, 1000);
	const uint32_t w[] = { SETC16(0, 1), CFGSHIFTMASK(1, 3, 31, 0, 0, CFG_T), CFGSHIFTMASK(1, 3, 31, 0, 0, CFG_GLOBAL),
			       SET_LO(20, 0xCAFE), SET_HI(20, 0xCAFE0000u), WRCFG(20, CFG_GLOBAL + 1) };
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
	cr_expect_eq(cfg_get(dev, CFG_T), 100u, "bank 0 untouched");
	cr_expect_eq(atomic_load(&t->tensix_cfg[1][CFG_T]), 7u, "bank 1 = 0 + 7");
	cr_expect_eq(cfg_get(dev, CFG_GLOBAL), 1007u);
	cr_expect_eq(cfg_get(dev, CFG_GLOBAL + 1), 0xCAFECAFEu, "WRCFG from state 1 to a global word");
	bh_device_close(dev);
}

Test(tensix_cfgshiftmask, cfg_index_past_223_faults)
{
	expect_push_faults(BH_CORE_TRISC2, CFGSHIFTMASK(1, 3, 31, 0, 0, 224), "unmapped address",
			   "configuration index 224 is past the last register (223)");
}

/* ------------------------------------------------------------ STALLWAIT C5-C8 */

/* SrcASrcB.md: at reset every SrcA/SrcB bank belongs to the unpackers and every client uses
 * bank 0, and nothing bhemu executes changes that. STALLWAIT C5/C6 (unpacker's bank owned by
 * the unpackers) are met: the SEMPOST behind passes. */
Test(tensix_stallwait, c5_c6_pass_because_the_unpackers_own_the_src_banks_after_reset)
{
	struct bh_tile *t;
	struct bh_device *dev = open_with_sems_at_0(&t);
	const uint32_t w[] = { STALLWAIT(0x2, 0x060), SEMPOST(1u << 3) };
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
	cr_expect_eq(bh_sem_value(t, 3), 1u);
	bh_device_close(dev);
}

/* C7/C8 wait for the matrix unit to own its bank, which only data-plane instructions arrange:
 * the thread stays at the gate (the report says why) until its TRISC enters reset. */
static void expect_src_wait_holds(uint32_t cond, const char *why)
{
	struct bh_tile *t;
	struct bh_device *dev = open_with_sems_at_0(&t);
	struct prog p = { 0 };
	emit_push(&p, STALLWAIT(0x2, cond));
	emit_push(&p, SEMPOST(1u << 3));
	emit_exit_with(&p, 0);
	cr_assert_eq(run_core(dev, BH_CORE_TRISC1, &p), 0);
	wait_report_has(dev, "tensix1: waits at the Wait Gate with SEMPOST");
	wait_report_has(dev, why);
	sleep_ms(20);
	cr_expect_eq(bh_sem_value(t, 3), 0u, "the SEMPOST must stay behind the wait");
	reset_core(dev, BH_CORE_TRISC1);
	wait_thread_idle(t, 1);
	cr_expect(bh_pcbuf_tensix_thread_idle(t, 1));
	bh_device_close(dev);
}

Test(tensix_stallwait, c7_holds_while_the_unpackers_own_srca)
{
	expect_src_wait_holds(0x080, "STALLWAIT C7 until SrcA bank 0 belongs to the matrix unit (it belongs to the unpackers");
}

Test(tensix_stallwait, c8_holds_while_the_unpackers_own_srcb)
{
	expect_src_wait_holds(0x160, "STALLWAIT C8 until SrcB bank 0 belongs to the matrix unit");   /* C5, C6 met */
}

Test(tensix_stallwait, c7_forever_with_the_trisc_in_tensix_sync_is_a_reported_deadlock)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_push(&p, STALLWAIT(0x2, 0x080));
	emit_push(&p, SEMPOST(1u << 3));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC2, &p);
	const char *rep = wait_deadlock_report(dev);
	assert_has(rep, "tensix2: waits at the Wait Gate with SEMPOST");
	assert_has(rep, "STALLWAIT C7 until SrcA bank 0 belongs to the matrix unit");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------ STREAMWAIT */

#define STREAM_REG(s, r) (0xFFB40000u + (uint32_t)(s) * 0x1000u + (uint32_t)(r) * 4u)
#define CURR_PHASE 29u

/* STREAMWAIT.md, C0: hold while CURR_PHASE of the stream in ThreadConfig STREAM_ID_SYNC_SEC
 * [StreamSelect] (59 + sel) is below STREAMWAIT_PHASE_HI (57) << 10 | TargetValueLo. Here
 * slot 2 names stream 12 and the target is 1 << 10 | 3 = 1027: 1026 still holds, 1027 frees. */
Test(tensix_streamwait, c0_holds_until_the_streams_phase_reaches_the_target)
{
	struct bh_tile *t;
	struct bh_device *dev = open_with_sems_at_0(&t);
	struct prog p = { 0 };
	emit_push(&p, SETC16(57, 1));
	for (unsigned k = 0; k < 4; k++)
		emit_push(&p, SETC16(59 + k, 10 + k));
	emit_push(&p, STREAMWAIT(0x2, 3, 0, 2));
	emit_push(&p, SEMPOST(1u << 3));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC0, &p);
	wait_report_has(dev, "tensix0: waits at the Wait Gate with SEMPOST");
	wait_report_has(dev, "STREAMWAIT until stream 12 CURR_PHASE (reg 29) (0) reaches 1027");
	cr_assert(bh_stream_write(t, 12, CURR_PHASE, 1026));
	cr_assert(bh_stream_write(t, 13, CURR_PHASE, 5000), "another stream changes nothing");
	wait_report_has(dev, "(1026) reaches 1027");
	cr_expect_eq(bh_sem_value(t, 3), 0u);
	cr_assert(bh_stream_write(t, 12, CURR_PHASE, 1027));
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	cr_expect_eq(bh_sem_value(t, 3), 1u);
	bh_device_close(dev);
}

/* A core writing the phase releases the wait too: the write wakes the parked thread. */
Test(tensix_streamwait, a_core_writing_the_phase_releases_it)
{
	struct bh_tile *t;
	struct bh_device *dev = open_with_sems_at_0(&t);
	struct prog p = { 0 };
	emit_push(&p, SETC16(62, 40));
	emit_push(&p, STREAMWAIT(0x2, 7, 0, 3));
	emit_push(&p, SEMPOST(1u << 3));
	emit_exit_with(&p, 0);
	cr_assert_eq(run_core(dev, BH_CORE_TRISC2, &p), 0);
	wait_report_has(dev, "STREAMWAIT until stream 40 CURR_PHASE (reg 29) (0) reaches 7");
	struct prog b = { 0 };
	emit_store_word(&b, STREAM_REG(40, CURR_PHASE), 7);
	emit_load_word(&b, A0, STREAM_REG(40, CURR_PHASE));
	emit_exit(&b);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 7u);
	wait_sem(dev, 3, 1);
	bh_device_close(dev);
}

/* C1 compares NUM_MSGS_RECEIVED (reg 259), which stays 0 in bhemu (no overlay messages):
 * target 0 passes at once, target 1 holds and the report says why. */
Test(tensix_streamwait, c1_on_messages_received_passes_for_target_0_and_holds_for_1)
{
	struct bh_tile *t;
	struct bh_device *dev = open_with_sems_at_0(&t);
	const uint32_t w[] = { STREAMWAIT(0x2, 0, 1, 0), SEMPOST(1u << 3) };
	run_pushes(dev, BH_CORE_TRISC1, w, N(w));
	cr_expect_eq(bh_sem_value(t, 3), 1u);
	struct prog p = { 0 };
	emit_push(&p, STREAMWAIT(0x2, 1, 1, 0));
	emit_push(&p, SEMPOST(1u << 3));
	emit_exit_with(&p, 0);
	cr_assert_eq(run_core(dev, BH_CORE_TRISC1, &p), 0);
	wait_report_has(dev, "STREAMWAIT until stream 0 NUM_MSGS_RECEIVED (reg 259; bhemu models no overlay messages, so it stays 0) (0) reaches 1");
	cr_expect_eq(bh_sem_value(t, 3), 1u);
	reset_core(dev, BH_CORE_TRISC1);
	wait_thread_idle(t, 1);
	bh_device_close(dev);
}

/* BlockMask 0 means B6 (matrix unit): a sync instruction passes, ZEROACC waits. */
Test(tensix_streamwait, block_mask_0_blocks_only_the_matrix_unit)
{
	struct bh_tile *t;
	struct bh_device *dev = open_with_sems_at_0(&t);
	struct prog p = { 0 };
	emit_push(&p, STREAMWAIT(0, 1, 0, 0));
	emit_push(&p, SEMPOST(1u << 3));
	emit_push(&p, ZEROACC);
	emit_push(&p, SEMPOST(1u << 4));
	emit_exit_with(&p, 0);
	cr_assert_eq(run_core(dev, BH_CORE_TRISC0, &p), 0);
	wait_sem(dev, 3, 1);
	wait_report_has(dev, "tensix0: waits at the Wait Gate with ZEROACC");
	cr_expect_eq(bh_sem_value(t, 4), 0u);
	cr_assert(bh_stream_write(t, 0, CURR_PHASE, 1));
	wait_sem(dev, 4, 1);
	bh_device_close(dev);
}

/* -------------------------------------------------------- tt_cfg_qstatus / bstatus */

/* Exit status = csr as `core` reads it. Starting a TRISC resets it, which empties its Tensix
 * thread: a TRISC whose thread holds work reads through emit_read_status_at_gate instead. */
static uint32_t read_csr_on(struct bh_device *dev, enum bh_core_id core, uint32_t csr)
{
	struct prog p = { 0 };
	emit(&p, csrr(A0, csr));
	emit_exit(&p);
	return run_core(dev, core, &p);
}

/* Once L1[gate] is non-zero: L1[out] = qstatus, L1[out + 4] = bstatus; exit(0). */
static void emit_read_status_at_gate(struct prog *p, uint32_t gate, uint32_t out)
{
	emit_wait_nonzero(p, gate, A3);
	emit_li(p, T0, out);
	emit(p, csrr(A1, CSR_QSTATUS));
	emit(p, sw(A1, 0, T0));
	emit(p, csrr(A1, CSR_BSTATUS));
	emit(p, sw(A1, 4, T0));
	emit_exit_with(p, 0);
}

/* TRISC i (core) pushes words (the first two hold it at the Wait Gate: SEMWAIT, then SEMPOST),
 * then reads its status CSRs into L1[OUT] once L1[GATE] opens; returns when its thread waits. */
static void start_status_reader(struct bh_device *dev, enum bh_core_id core, const uint32_t *w, size_t n)
{
	struct prog p = { 0 };
	char waits[64];
	for (size_t k = 0; k < n; k++)
		emit_push(&p, w[k]);
	emit_read_status_at_gate(&p, GATE, OUT);
	start_core(dev, core, &p);
	snprintf(waits, sizeof waits, "tensix%u: waits at the Wait Gate with SEMPOST", (unsigned)(core - BH_CORE_TRISC0));
	wait_report_has(dev, waits);
}

/* Open L1[gate] for a reader started with emit_read_status_at_gate; wait for it to exit. */
static void release_status_reader(struct bh_device *dev, enum bh_core_id core, uint32_t gate)
{
	set_l1(dev, gate, 1);
	expect_exit(dev, 0, core, 0);
}

/* CSRs.md: T0 is held at the gate with a SEMPOST (sync, bit 7) and has queued SETDMAREG (scalar
 * 2 and B0 group 8), SETC16 (config 6), ZEROACC (matrix 10), MOP (1) and a playing REPLAY (0):
 * own mask 0x5C7 at bits 10:0 for TRISC0, the OR of all threads at 23:13 (qstatus) or 21:11
 * (bstatus); B and NC see the OR in both places; T1, whose thread is idle, only at 23:13. */
Test(tensix_status, queued_instruction_types_by_bit_for_the_own_thread_and_all_threads)
{
	struct bh_tile *t;
	struct bh_device *dev = open_with_sems_at_0(&t);
	const uint32_t w[] = { SEMWAIT(0x2, 1u << 4, 1), SEMPOST(1u << 5), SETDMAREG(2, 7), SETC16(1, 0), ZEROACC,
			       MOP(0, 0, 0), REPLAY(0, 1, 0, 0) };
	start_status_reader(dev, BH_CORE_TRISC0, w, N(w));
	const uint32_t own = 0x5C7;
	cr_expect_eq(read_csr_on(dev, BH_CORE_TRISC1, CSR_QSTATUS), own << 13);
	cr_expect_eq(read_csr_on(dev, BH_CORE_TRISC1, CSR_BSTATUS), own << 11);
	cr_expect_eq(read_csr_on(dev, BH_CORE_BRISC, CSR_QSTATUS), own | own << 13);
	cr_expect_eq(read_csr_on(dev, BH_CORE_NCRISC, CSR_BSTATUS), own | own << 11);
	release_status_reader(dev, BH_CORE_TRISC0, GATE);
	cr_expect_eq(l1_get(dev, OUT), own | own << 13, "qstatus 0x%08x", l1_get(dev, OUT));
	cr_expect_eq(l1_get(dev, OUT + 4), own | own << 11, "bstatus: nothing executes in a unit");
	reset_core(dev, BH_CORE_TRISC0);   /* drop the queue (the MOP and REPLAY have nothing configured) */
	wait_thread_idle(t, 0);
	cr_expect_eq(read_csr_on(dev, BH_CORE_TRISC0, CSR_QSTATUS), 0u);
	bh_device_close(dev);
}

/* A REPLAY that only records (Load set, Exec clear) does not count; nor do BRISC's pushes (the
 * CSRs count what RISCV T_i pushed), though they keep the thread busy. BRISC pushes while TRISC2
 * runs on purpose here: brisc-push is off. */
Test(tensix_status, recording_replay_and_brisc_pushes_do_not_count)
{
	struct bh_device *dev = t_open_checks(BH_CHECKS_EXACT | (BH_CHECKS_DEFAULT & ~BH_CHECK_BIT(BH_CHECK_BRISC_PUSH)),
					      BH_CHECK_STOP);
	struct bh_tile *t = tile0(dev);
	bh_sem_init(t, 0xFF, 15, 0);
	const uint32_t gate2 = GATE + 0x10, out2 = OUT + 0x10;
	const uint32_t w[] = { SEMWAIT(0x2, 1u << 4, 1), SEMPOST(1u << 5), REPLAY(0, 1, 0, 1) };
	start_status_reader(dev, BH_CORE_TRISC1, w, N(w));
	release_status_reader(dev, BH_CORE_TRISC1, GATE);
	cr_expect_eq(l1_get(dev, OUT), TT_ST_SYNC | TT_ST_SYNC << 13, "0x%08x", l1_get(dev, OUT));

	struct prog r2 = { 0 };   /* started before BRISC's pushes: starting T2 empties thread 2 */
	emit_read_status_at_gate(&r2, gate2, out2);
	start_core(dev, BH_CORE_TRISC2, &r2);
	struct prog b = { 0 };
	emit_store_word(&b, 0xFFE60000u, SEMWAIT(0x2, 1u << 6, 1));
	emit_store_word(&b, 0xFFE60000u, SEMPOST(1u << 7));
	emit_exit_with(&b, 0);
	cr_assert_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	wait_report_has(dev, "tensix2: waits at the Wait Gate with SEMPOST");
	release_status_reader(dev, BH_CORE_TRISC2, gate2);
	cr_expect_eq(l1_get(dev, out2), TT_ST_SYNC << 13, "thread 2 holds only BRISC's: 0x%08x", l1_get(dev, out2));
	cr_expect_eq(l1_get(dev, out2 + 4), TT_ST_SYNC << 11);
	bh_sem_post(t, 1u << 4 | 1u << 6);
	wait_thread_idle(t, 1);
	wait_thread_idle(t, 2);
	cr_expect_eq(read_csr_on(dev, BH_CORE_BRISC, CSR_QSTATUS), 0u);
	bh_device_close(dev);
}

/* cfg0.DisTTStatusReg freezes the status CSRs at values bhemu does not know: a named fault. */
Test(tensix_status, reading_with_cfg0_dis_tt_status_reg_set_is_a_named_fault)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	emit_li(&p, A1, 1u << 29);
	emit(&p, csrw(CSR_CFG0, A1));
	uint32_t pc = core_code_at[BH_CORE_TRISC0] + (uint32_t)prog_here(&p);
	emit(&p, csrr(A0, CSR_QSTATUS));
	emit_exit(&p);
	run_prog(dev, BH_CORE_TRISC0, core_code_at[BH_CORE_TRISC0], &p, r);
	expect_fault(r, BH_CORE_TRISC0, pc, "not modelled", "tt_cfg_qstatus read with cfg0.DisTTStatusReg (bit 29) set");
	free(r);
	bh_device_close(dev);
}
