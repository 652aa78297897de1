/* Exact semantics of every instruction the baby RISC-V cores execute (riscv-cores.md 1): RV32I,
 * M, Zicsr, Zba, Zbb, pack/brev8 and Zaamo, with the edge cases the RISC-V unprivileged spec
 * defines. Every expected value is worked out by hand from the spec and written as a constant;
 * nothing is computed with the emulator's own formulas.
 *
 * Each table runs on one device: a vector is a program at CODE (li a7, 93; snippet; ecall) that
 * BRISC runs from reset, and its result is a0 at exit (plus memory where the table says so). */
#include <criterion/criterion.h>

#include <stddef.h>
#include <stdint.h>

#include "testlib.h"

#define CODE 0x1000u          /* every program starts here with li a7, 93 (two words) */
#define SNIP (CODE + 8)       /* first word after that prologue */
#define DATA 0x8000u          /* data words, on a page that never holds code */

/* ---------------------------------------------------------------------------------------------
 * Snippets: li a7, 93 at CODE, the words under test, then ecall (exit with a0) on BRISC.
 */

static void snippet_begin(struct prog *p)
{
	p->n = 0;
	emit_li(p, A7, 93);
}

/* Address of the next word emitted. */
static uint32_t snippet_pc(const struct prog *p)
{
	return CODE + 4 * p->n;
}

/* Append ecall (exit with a0), run on BRISC from CODE and return a0. */
static uint32_t snippet_run(struct bh_device *dev, struct prog *p)
{
	emit(p, INSN_ECALL);
	return run_to_exit(dev, BH_CORE_BRISC, CODE, p);
}

/* ---------------------------------------------------------------------------------------------
 * Register-register operations: op a0, a1, a2 with a1 = a, a2 = b.
 */

struct rop {
	const char *name;
	uint32_t f7, f3;
};

struct v2 {
	uint32_t a, b, want;
};

static const struct rop ADD = { "add", 0x00, 0 }, SUB = { "sub", 0x20, 0 }, SLL = { "sll", 0x00, 1 },
	SLT = { "slt", 0x00, 2 }, SLTU = { "sltu", 0x00, 3 }, XOR = { "xor", 0x00, 4 },
	SRL = { "srl", 0x00, 5 }, SRA = { "sra", 0x20, 5 }, OR = { "or", 0x00, 6 }, AND = { "and", 0x00, 7 },
	MUL = { "mul", 0x01, 0 }, MULH = { "mulh", 0x01, 1 }, MULHSU = { "mulhsu", 0x01, 2 },
	MULHU = { "mulhu", 0x01, 3 }, DIV = { "div", 0x01, 4 }, DIVU = { "divu", 0x01, 5 },
	REM = { "rem", 0x01, 6 }, REMU = { "remu", 0x01, 7 },
	SH1ADD = { "sh1add", 0x10, 2 }, SH2ADD = { "sh2add", 0x10, 4 }, SH3ADD = { "sh3add", 0x10, 6 },
	ANDN = { "andn", 0x20, 7 }, ORN = { "orn", 0x20, 6 }, XNOR = { "xnor", 0x20, 4 },
	MIN = { "min", 0x05, 4 }, MINU = { "minu", 0x05, 5 }, MAX = { "max", 0x05, 6 }, MAXU = { "maxu", 0x05, 7 },
	ROL = { "rol", 0x30, 1 }, ROR = { "ror", 0x30, 5 }, PACK = { "pack", 0x04, 4 };

static void check_rr(const struct rop *op, const struct v2 *v, size_t n)
{
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < n; k++) {
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A1, v[k].a);
		emit_li(&p, A2, v[k].b);
		emit(&p, r_op(op->f7, op->f3, A0, A1, A2));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, v[k].want, "%s(0x%08x, 0x%08x) = 0x%08x, expected 0x%08x", op->name, v[k].a, v[k].b,
			     got, v[k].want);
	}
	bh_device_close(dev);
}

/* Immediate operations: op a0, a1, imm with a1 = a. Shift-immediates pass the full f7 in imm. */
struct vi {
	uint32_t a;
	int32_t imm;
	uint32_t want;
};

static void check_ri(const char *name, uint32_t f3, const struct vi *v, size_t n)
{
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < n; k++) {
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A1, v[k].a);
		emit(&p, i_op(f3, A0, A1, v[k].imm));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, v[k].want, "%s(0x%08x, %d) = 0x%08x, expected 0x%08x", name, v[k].a, v[k].imm, got,
			     v[k].want);
	}
	bh_device_close(dev);
}

/* One-operand Zbb/Zbkb operations (OP-IMM with a fixed rs2 field): op a0, a1. */
struct uop {
	const char *name;
	uint32_t f7, sel, f3;
};

struct v1 {
	uint32_t a, want;
};

static const struct uop CLZ = { "clz", 0x30, 0, 1 }, CTZ = { "ctz", 0x30, 1, 1 }, CPOP = { "cpop", 0x30, 2, 1 },
	SEXT_B = { "sext.b", 0x30, 4, 1 }, SEXT_H = { "sext.h", 0x30, 5, 1 }, ORC_B = { "orc.b", 0x14, 7, 5 },
	REV8 = { "rev8", 0x34, 0x18, 5 }, BREV8 = { "brev8", 0x34, 7, 5 };

static void check_unary(const struct uop *op, const struct v1 *v, size_t n)
{
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < n; k++) {
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A1, v[k].a);
		emit(&p, enc_r(op->f7, op->sel, A1, op->f3, A0, OP_IMM));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, v[k].want, "%s(0x%08x) = 0x%08x, expected 0x%08x", op->name, v[k].a, got, v[k].want);
	}
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * RV32I: register-register.
 */

TestSuite(rv32i, .timeout = 30);
TestSuite(rv32m, .timeout = 30);
TestSuite(zicsr, .timeout = 30);
TestSuite(zba, .timeout = 30);
TestSuite(zbb, .timeout = 30);
TestSuite(zbkb, .timeout = 30);
TestSuite(zaamo, .timeout = 30);

Test(rv32i, add_wraps_modulo_2_32)
{
	static const struct v2 v[] = {
		{ 1, 2, 3 },
		{ 0xffffffff, 1, 0 },
		{ 0x7fffffff, 1, 0x80000000 },
		{ 0x80000000, 0x80000000, 0 },
		{ 0x12345678, 0x87654321, 0x99999999 },
		{ 0xfffffffe, 0xfffffffe, 0xfffffffc },
	};
	check_rr(&ADD, v, N(v));
}

Test(rv32i, sub_wraps_modulo_2_32)
{
	static const struct v2 v[] = {
		{ 3, 1, 2 },
		{ 0, 1, 0xffffffff },
		{ 0x80000000, 1, 0x7fffffff },
		{ 1, 0xffffffff, 2 },
		{ 0x12345678, 0x12345678, 0 },
		{ 0x7fffffff, 0xffffffff, 0x80000000 },
	};
	check_rr(&SUB, v, N(v));
}

Test(rv32i, sll_uses_low_five_bits_of_rs2)
{
	static const struct v2 v[] = {
		{ 1, 0, 1 },
		{ 1, 31, 0x80000000 },
		{ 1, 32, 1 },                        /* 32 & 31 = 0 */
		{ 0x12345678, 4, 0x23456780 },
		{ 3, 0xffffffe1, 6 },                /* only bits 4..0 count */
		{ 0xffffffff, 33, 0xfffffffe },
	};
	check_rr(&SLL, v, N(v));
}

Test(rv32i, srl_zero_fills_and_masks_shift_amount)
{
	static const struct v2 v[] = {
		{ 0x80000000, 31, 1 },
		{ 0x80000000, 1, 0x40000000 },
		{ 0xffffffff, 32, 0xffffffff },
		{ 0xffffffff, 36, 0x0fffffff },
		{ 0x12345678, 0, 0x12345678 },
		{ 0x87654321, 0xfffffff8, 0x00000087 },   /* 0xfffffff8 & 31 = 24 */
	};
	check_rr(&SRL, v, N(v));
}

Test(rv32i, sra_fills_with_sign_bit_and_masks_shift_amount)
{
	static const struct v2 v[] = {
		{ 0x80000000, 31, 0xffffffff },
		{ 0x80000000, 1, 0xc0000000 },
		{ 0x7fffffff, 30, 1 },
		{ 0xf0000000, 4, 0xff000000 },
		{ 0x80000000, 32, 0x80000000 },
		{ 0x80000000, 0x3f, 0xffffffff },
		{ 0x40000000, 0xffffffe1, 0x20000000 },
	};
	check_rr(&SRA, v, N(v));
}

Test(rv32i, slt_compares_signed)
{
	static const struct v2 v[] = {
		{ 1, 2, 1 },
		{ 2, 1, 0 },
		{ 0xffffffff, 0, 1 },                /* -1 < 0 */
		{ 0, 0xffffffff, 0 },
		{ 0x80000000, 0x7fffffff, 1 },
		{ 0x7fffffff, 0x80000000, 0 },
		{ 5, 5, 0 },
	};
	check_rr(&SLT, v, N(v));
}

Test(rv32i, sltu_compares_unsigned)
{
	static const struct v2 v[] = {
		{ 1, 2, 1 },
		{ 2, 1, 0 },
		{ 0xffffffff, 0, 0 },
		{ 0, 0xffffffff, 1 },
		{ 0x80000000, 0x7fffffff, 0 },
		{ 0x7fffffff, 0x80000000, 1 },
		{ 5, 5, 0 },
	};
	check_rr(&SLTU, v, N(v));
}

Test(rv32i, xor_or_and_are_bitwise)
{
	static const struct v2 vx[] = {
		{ 0xff00ff00, 0x0ff00ff0, 0xf0f0f0f0 },
		{ 0x12345678, 0x12345678, 0 },
		{ 0xffffffff, 0x12345678, 0xedcba987 },
	};
	static const struct v2 vo[] = {
		{ 0xff00ff00, 0x0ff00ff0, 0xfff0fff0 },
		{ 0, 0, 0 },
		{ 0x80000001, 0x7ffffffe, 0xffffffff },
	};
	static const struct v2 va[] = {
		{ 0xff00ff00, 0x0ff00ff0, 0x0f000f00 },
		{ 0xffffffff, 0x12345678, 0x12345678 },
		{ 0xaaaaaaaa, 0x55555555, 0 },
	};
	check_rr(&XOR, vx, N(vx));
	check_rr(&OR, vo, N(vo));
	check_rr(&AND, va, N(va));
}

/* The sources are read before rd is written: add a1, a1, a1 and sub a2, a1, a2 style aliasing. */
Test(rv32i, sources_are_read_before_rd_is_written)
{
	struct bh_device *dev = t_open();
	struct prog p;

	snippet_begin(&p);
	emit_li(&p, A1, 0x40000001);
	emit(&p, add(A1, A1, A1));              /* a1 = 0x80000002 */
	emit(&p, addi(A0, A1, 0));
	cr_expect_eq(snippet_run(dev, &p), 0x80000002);

	snippet_begin(&p);
	emit_li(&p, A0, 10);
	emit_li(&p, A1, 3);
	emit(&p, sub(A0, A1, A0));              /* a0 = 3 - 10 */
	cr_expect_eq(snippet_run(dev, &p), 0xfffffff9);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * RV32I: register-immediate. The 12-bit immediate is sign-extended for every one of them,
 * including sltiu (which then compares unsigned) and the logical ones.
 */

Test(rv32i, addi_sign_extends_immediate)
{
	static const struct vi v[] = {
		{ 1, 2, 3 },
		{ 1, -1, 0 },
		{ 0, -2048, 0xfffff800 },
		{ 0x7fffffff, 1, 0x80000000 },
		{ 5, 2047, 2052 },
		{ 0xffffffff, 0, 0xffffffff },
	};
	check_ri("addi", 0, v, N(v));
}

Test(rv32i, slti_compares_signed_against_sign_extended_imm)
{
	static const struct vi v[] = {
		{ 0, 1, 1 },
		{ 0xffffffff, 0, 1 },
		{ 0, -1, 0 },
		{ 0x80000000, -2048, 1 },
		{ 5, 5, 0 },
		{ 0x7fffffff, 2047, 0 },
		{ 0xfffff800, -2047, 1 },
	};
	check_ri("slti", 2, v, N(v));
}

Test(rv32i, sltiu_with_imm_minus_one_compares_against_all_ones)
{
	static const struct vi v[] = {
		{ 0, -1, 1 },                        /* imm -1 is 0xffffffff: everything else is below it */
		{ 0xfffffffe, -1, 1 },
		{ 0xffffffff, -1, 0 },
		{ 0, 1, 1 },                         /* seqz */
		{ 1, 1, 0 },
		{ 0x7fffffff, -2048, 1 },            /* imm 0xfffff800 */
		{ 0xfffff800, -2048, 0 },
		{ 0xfffff7ff, -2048, 1 },
		{ 2046, 2047, 1 },
		{ 2047, 2047, 0 },
	};
	check_ri("sltiu", 3, v, N(v));
}

Test(rv32i, xori_ori_andi_sign_extend_immediate)
{
	static const struct vi vx[] = {
		{ 0x12345678, -1, 0xedcba987 },      /* not */
		{ 0xff, 0x0f, 0xf0 },
		{ 0, -2048, 0xfffff800 },
	};
	static const struct vi vo[] = {
		{ 0x12340000, 0x5a5, 0x123405a5 },
		{ 0, -1, 0xffffffff },
		{ 0x80000000, 1, 0x80000001 },
	};
	static const struct vi va[] = {
		{ 0xffffffff, 0x7ff, 0x7ff },
		{ 0x12345678, -16, 0x12345670 },
		{ 0x12345678, 0, 0 },
		{ 0x80000800, -2048, 0x80000800 },
	};
	check_ri("xori", 4, vx, N(vx));
	check_ri("ori", 6, vo, N(vo));
	check_ri("andi", 7, va, N(va));
}

Test(rv32i, slli_srli_shift_by_immediate)
{
	static const struct vi vl[] = {
		{ 1, 31, 0x80000000 },
		{ 0x12345678, 0, 0x12345678 },
		{ 0xffffffff, 16, 0xffff0000 },
		{ 0x12345678, 8, 0x34567800 },
	};
	static const struct vi vr[] = {
		{ 0x80000000, 31, 1 },
		{ 0xffffffff, 1, 0x7fffffff },
		{ 0x12345678, 0, 0x12345678 },
		{ 0x87654321, 16, 0x00008765 },
	};
	check_ri("slli", 1, vl, N(vl));
	check_ri("srli", 5, vr, N(vr));
}

Test(rv32i, srai_fills_with_sign_bit)
{
	static const struct vi v[] = {
		{ 0x80000000, 0x400 | 31, 0xffffffff },   /* imm[10] = 1 selects srai */
		{ 0x80000000, 0x400 | 4, 0xf8000000 },
		{ 0x7fffffff, 0x400 | 31, 0 },
		{ 0x81234567, 0x400 | 8, 0xff812345 },
		{ 0x71234567, 0x400 | 8, 0x00712345 },
		{ 0xfedcba98, 0x400 | 0, 0xfedcba98 },
	};
	check_ri("srai", 5, v, N(v));
}

/* ---------------------------------------------------------------------------------------------
 * RV32I: lui, auipc, jumps, branches.
 */

Test(rv32i, lui_places_imm_in_upper_20_bits)
{
	static const struct {
		uint32_t imm20, want;
	} v[] = {
		{ 0x12345, 0x12345000 }, { 0x80000, 0x80000000 }, { 0xfffff, 0xfffff000 }, { 0, 0 }, { 1, 0x1000 },
	};
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++) {
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A0, 0xffffffff);       /* lui must clear the low 12 bits */
		emit(&p, lui(A0, v[k].imm20));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, v[k].want, "lui 0x%05x = 0x%08x, expected 0x%08x", v[k].imm20, got, v[k].want);
	}
	bh_device_close(dev);
}

Test(rv32i, auipc_adds_upper_imm_to_its_own_pc)
{
	/* The snippet starts at 0x1008; `nops` nops come before the auipc. */
	static const struct {
		uint32_t imm20, nops, want;
	} v[] = {
		{ 0x00000, 0, 0x00001008 },
		{ 0x00001, 0, 0x00002008 },
		{ 0xfffff, 0, 0x00000008 },          /* pc - 0x1000 */
		{ 0x80000, 1, 0x8000100c },
		{ 0x12345, 2, 0x12346010 },
		{ 0xffffe, 3, 0xfffff014 },          /* pc - 0x2000 wraps below zero */
	};
	cr_assert_eq(SNIP, 0x1008u);
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++) {
		struct prog p;
		snippet_begin(&p);
		for (unsigned j = 0; j < v[k].nops; j++)
			emit(&p, INSN_NOP);
		emit(&p, auipc(A0, v[k].imm20));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, v[k].want, "auipc 0x%05x after %u nops = 0x%08x, expected 0x%08x", v[k].imm20,
			     v[k].nops, got, v[k].want);
	}
	bh_device_close(dev);
}

Test(rv32i, jal_links_pc_plus_4_and_jumps_forward)
{
	struct bh_device *dev = t_open();
	struct prog p;
	snippet_begin(&p);
	emit(&p, jal(RA, 8));                   /* 0x1008 */
	emit(&p, addi(A0, X0, 1));              /* 0x100c: skipped */
	emit(&p, add(A0, A0, RA));              /* 0x1010: a0 = 0 + ra */
	cr_expect_eq(snippet_run(dev, &p), 0x100c);
	bh_device_close(dev);
}

Test(rv32i, jal_jumps_backward_with_negative_offset)
{
	struct bh_device *dev = t_open();
	struct prog p;
	snippet_begin(&p);
	emit(&p, jal(X0, 12));                  /* 0x1008 -> 0x1014 */
	emit(&p, addi(A0, RA, 0));              /* 0x100c: a0 = ra */
	emit(&p, jal(X0, 12));                  /* 0x1010 -> 0x101c (ecall) */
	emit(&p, jal(RA, -8));                  /* 0x1014 -> 0x100c, ra = 0x1018 */
	emit(&p, addi(A0, X0, -1));             /* 0x1018: never runs */
	cr_assert_eq(snippet_pc(&p), 0x101cu);
	cr_expect_eq(snippet_run(dev, &p), 0x1018);
	bh_device_close(dev);
}

Test(rv32i, jal_to_another_l1_page)
{
	struct bh_device *dev = t_open();
	struct prog p;
	static const uint32_t far[] = { 0x00700513 /* addi a0, x0, 7 */, INSN_ECALL };
	l1_put(dev, 0x1008 + 0x3000, far, 2);
	snippet_begin(&p);
	emit(&p, jal(X0, 0x3000));              /* 0x1008 -> 0x4008 */
	cr_expect_eq(snippet_run(dev, &p), 7);
	bh_device_close(dev);
}

/* Branches and jumps whose target is on another 4 KiB L1 page, both directions: a loop that
 * starts at the end of page 0x1000 and branches into page 0x2000 and back, three times. */
Test(rv32i, branches_cross_l1_pages_in_both_directions)
{
	const uint32_t at = 0x1ff0;
	uint32_t w[12], li[2];
	enc_li(li, A7, 93);
	w[0] = li[0];                           /* 0x1ff0 */
	w[1] = li[1];                           /* 0x1ff4 */
	w[2] = addi(A0, A0, 1);                 /* 0x1ff8: loop */
	w[3] = enc_b(0x14, X0, X0, BEQ);        /* 0x1ffc: beq x0, x0, 0x2010 */
	w[4] = addi(A0, X0, -1);                /* 0x2000: never runs */
	w[5] = INSN_ECALL;                      /* 0x2004: done */
	w[6] = INSN_NOP;
	w[7] = INSN_NOP;
	w[8] = addi(T0, T0, 1);                 /* 0x2010 */
	w[9] = addi(T1, X0, 3);                 /* 0x2014 */
	w[10] = enc_b(-0x20, T1, T0, BLT);      /* 0x2018: blt t0, t1, 0x1ff8 */
	w[11] = jal(X0, -0x18);                 /* 0x201c: j 0x2004 */
	struct bh_device *dev = t_open();
	struct bh_core_result res;
	t_run(dev, BH_CORE_BRISC, at, w, N(w), &res);
	cr_assert_eq(res.status, BH_RUN_EXITED, "%s", res.report);
	cr_expect_eq(res.exit_status, 3);
	/* li (2) + 3 x (addi, beq, addi, addi, blt) + j + ecall */
	cr_expect_eq(res.instructions, 2 + 3 * 5 + 2);
	bh_device_close(dev);
}

Test(rv32i, jalr_links_and_jumps_to_rs1_plus_imm)
{
	struct bh_device *dev = t_open();
	struct prog p;

	snippet_begin(&p);
	emit_li(&p, A1, 0x1014);                /* 0x1008, 0x100c */
	emit(&p, jalr(RA, A1, 0));              /* 0x1010 -> 0x1014 */
	emit(&p, add(A0, A0, RA));              /* 0x1014: a0 = ra */
	cr_expect_eq(snippet_run(dev, &p), 0x1014);

	snippet_begin(&p);
	emit_li(&p, A1, 0x1020);
	emit(&p, jalr(RA, A1, -4));             /* 0x1010 -> 0x101c */
	emit(&p, addi(A0, X0, 1));              /* 0x1014: skipped */
	emit(&p, addi(A0, X0, 2));              /* 0x1018: skipped */
	emit(&p, add(A0, A0, RA));              /* 0x101c */
	cr_expect_eq(snippet_run(dev, &p), 0x1014);
	bh_device_close(dev);
}

Test(rv32i, jalr_clears_bit_0_of_the_sum)
{
	struct bh_device *dev = t_open();
	struct prog p;

	snippet_begin(&p);
	emit_li(&p, A1, 0x1019);                /* odd base */
	emit(&p, jalr(RA, A1, 0));              /* 0x1010 -> 0x1018 */
	emit(&p, addi(A0, X0, 1));              /* 0x1014: skipped */
	emit(&p, add(A0, A0, RA));              /* 0x1018 */
	cr_expect_eq(snippet_run(dev, &p), 0x1014);

	snippet_begin(&p);
	emit_li(&p, A1, 0x1016);                /* even base, odd sum: 0x1016 + 3 = 0x1019 -> 0x1018 */
	emit(&p, jalr(RA, A1, 3));
	emit(&p, addi(A0, X0, 1));
	emit(&p, add(A0, A0, RA));
	cr_expect_eq(snippet_run(dev, &p), 0x1014);
	bh_device_close(dev);
}

Test(rv32i, jalr_with_rd_equal_rs1_jumps_to_old_value)
{
	struct bh_device *dev = t_open();
	struct prog p;
	snippet_begin(&p);
	emit_li(&p, A1, 0x1018);
	emit(&p, jalr(A1, A1, 0));              /* 0x1010 -> 0x1018, a1 = 0x1014 */
	emit(&p, addi(A0, X0, 1));              /* skipped */
	emit(&p, add(A0, A0, A1));              /* 0x1018 */
	cr_expect_eq(snippet_run(dev, &p), 0x1014);
	bh_device_close(dev);
}

struct vb {
	uint32_t a, b;
	int taken;
};

/* bXX a1, a2, +12 over "a0 = 2; j +8" to "a0 = 1": exit 1 when taken, 2 when not. */
static void check_branch(const char *name, uint32_t f3, const struct vb *v, size_t n)
{
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < n; k++) {
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A1, v[k].a);
		emit_li(&p, A2, v[k].b);
		emit(&p, enc_b(12, A2, A1, f3));
		emit(&p, addi(A0, X0, 2));
		emit(&p, jal(X0, 8));
		emit(&p, addi(A0, X0, 1));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, v[k].taken ? 1u : 2u, "%s 0x%08x, 0x%08x: %s, expected %s", name, v[k].a, v[k].b,
			     got == 1 ? "taken" : got == 2 ? "not taken" : "neither", v[k].taken ? "taken" : "not taken");
	}
	bh_device_close(dev);
}

Test(rv32i, beq_bne_compare_for_equality)
{
	static const struct vb veq[] = {
		{ 5, 5, 1 }, { 5, 6, 0 }, { 0x80000000, 0x80000000, 1 }, { 0, 0xffffffff, 0 },
	};
	static const struct vb vne[] = {
		{ 5, 5, 0 }, { 5, 6, 1 }, { 0x80000000, 0x80000000, 0 }, { 0, 0xffffffff, 1 },
	};
	check_branch("beq", BEQ, veq, N(veq));
	check_branch("bne", BNE, vne, N(vne));
}

Test(rv32i, blt_bge_compare_signed)
{
	static const struct vb vlt[] = {
		{ 1, 2, 1 }, { 2, 1, 0 }, { 0xffffffff, 0, 1 }, { 0, 0xffffffff, 0 },
		{ 0x80000000, 0x7fffffff, 1 }, { 5, 5, 0 },
	};
	static const struct vb vge[] = {
		{ 1, 2, 0 }, { 2, 1, 1 }, { 0xffffffff, 0, 0 }, { 0, 0xffffffff, 1 },
		{ 0x7fffffff, 0x80000000, 1 }, { 5, 5, 1 },
	};
	check_branch("blt", BLT, vlt, N(vlt));
	check_branch("bge", BGE, vge, N(vge));
}

Test(rv32i, bltu_bgeu_compare_unsigned)
{
	static const struct vb vlt[] = {
		{ 1, 2, 1 }, { 2, 1, 0 }, { 0xffffffff, 0, 0 }, { 0, 0xffffffff, 1 },
		{ 0x80000000, 0x7fffffff, 0 }, { 5, 5, 0 },
	};
	static const struct vb vge[] = {
		{ 1, 2, 0 }, { 2, 1, 1 }, { 0xffffffff, 0, 1 }, { 0, 0xffffffff, 0 },
		{ 0x80000000, 0x7fffffff, 1 }, { 5, 5, 1 },
	};
	check_branch("bltu", BLTU, vlt, N(vlt));
	check_branch("bgeu", BGEU, vge, N(vge));
}

Test(rv32i, backward_branch_loops)
{
	struct bh_device *dev = t_open();
	struct prog p;
	snippet_begin(&p);
	emit_li(&p, A1, 5);
	emit(&p, addi(A0, A0, 3));              /* loop: a0 += 3 */
	emit(&p, addi(A1, A1, -1));
	emit(&p, enc_b(-8, X0, A1, BNE));       /* bne a1, x0, loop */
	cr_expect_eq(snippet_run(dev, &p), 15);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * RV32I: loads and stores.
 */

/* Bytes at DATA: 81 7f 34 92 78 56 34 12. */
static const uint32_t load_data[2] = { 0x92347f81, 0x12345678 };

struct vl {
	const char *name;
	uint32_t f3;
	int32_t off;
	uint32_t want;
};

static void check_loads(uint32_t base, const struct vl *v, size_t n)
{
	struct bh_device *dev = t_open();
	l1_put(dev, DATA, load_data, 2);
	for (size_t k = 0; k < n; k++) {
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A1, base);
		emit(&p, load(v[k].f3, A0, v[k].off, A1));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, v[k].want, "%s %d(0x%x) = 0x%08x, expected 0x%08x", v[k].name, v[k].off, base, got,
			     v[k].want);
	}
	bh_device_close(dev);
}

Test(rv32i, lb_lh_sign_extend_lbu_lhu_zero_extend)
{
	static const struct vl v[] = {
		{ "lb", 0, 0, 0xffffff81 },
		{ "lb", 0, 1, 0x0000007f },
		{ "lb", 0, 3, 0xffffff92 },
		{ "lbu", 4, 0, 0x00000081 },
		{ "lbu", 4, 1, 0x0000007f },
		{ "lbu", 4, 3, 0x00000092 },
		{ "lh", 1, 0, 0x00007f81 },
		{ "lh", 1, 2, 0xffff9234 },
		{ "lh", 1, 6, 0x00001234 },
		{ "lhu", 5, 0, 0x00007f81 },
		{ "lhu", 5, 2, 0x00009234 },
		{ "lw", 2, 0, 0x92347f81 },
		{ "lw", 2, 4, 0x12345678 },
	};
	check_loads(DATA, v, N(v));
}

Test(rv32i, loads_add_negative_offsets)
{
	static const struct vl v[] = {
		{ "lw", 2, -8, 0x92347f81 },
		{ "lw", 2, -4, 0x12345678 },
		{ "lb", 0, -8, 0xffffff81 },
		{ "lhu", 5, -6, 0x00009234 },
		{ "lbu", 4, -1, 0x00000012 },
	};
	check_loads(DATA + 8, v, N(v));
}

Test(rv32i, stores_write_only_their_bytes)
{
	static const uint32_t fill[2] = { 0x11223344, 0x55667788 };
	static const struct {
		const char *name;
		uint32_t f3;
		int32_t off;
		uint32_t want0, want1;
	} v[] = {
		{ "sb", 0, 0, 0x112233ef, 0x55667788 },
		{ "sb", 0, 3, 0xef223344, 0x55667788 },
		{ "sb", 0, 5, 0x11223344, 0x5566ef88 },
		{ "sh", 1, 0, 0x1122beef, 0x55667788 },
		{ "sh", 1, 2, 0xbeef3344, 0x55667788 },
		{ "sh", 1, 6, 0x11223344, 0xbeef7788 },
		{ "sw", 2, 0, 0xdeadbeef, 0x55667788 },
		{ "sw", 2, 4, 0x11223344, 0xdeadbeef },
	};
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++) {
		struct prog p;
		l1_put(dev, DATA, fill, 2);
		snippet_begin(&p);
		emit_li(&p, A1, DATA + 8);          /* negative offsets exercise the S-immediate sign */
		emit_li(&p, A2, 0xdeadbeef);
		emit(&p, store(v[k].f3, A2, v[k].off - 8, A1));
		snippet_run(dev, &p);
		uint32_t w0 = l1_get(dev, DATA), w1 = l1_get(dev, DATA + 4);
		cr_expect(w0 == v[k].want0 && w1 == v[k].want1, "%s at +%d: memory %08x %08x, expected %08x %08x",
			  v[k].name, v[k].off, w0, w1, v[k].want0, v[k].want1);
	}
	bh_device_close(dev);
}

Test(rv32i, store_then_load_through_local_data_ram)
{
	struct bh_device *dev = t_open();
	struct prog p;
	snippet_begin(&p);
	emit_li(&p, A1, 0xFFB00100);
	emit_li(&p, A2, 0x8badf00d);
	emit(&p, sw(A2, 4, A1));
	emit(&p, load(W_H, A3, 4, A1));         /* lh a3, 4(a1) = sign-extended 0xf00d */
	emit(&p, lw(A0, 4, A1));
	emit(&p, add(A0, A0, A3));              /* 0x8badf00d + 0xfffff00d */
	cr_expect_eq(snippet_run(dev, &p), 0x8badf00d + 0xfffff00du);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * RV32I: x0, fence.
 */

Test(rv32i, writes_to_x0_are_discarded)
{
	struct bh_device *dev = t_open();
	struct prog p;
	uint32_t zero_word = 0x5a5a5a5a;
	l1_put(dev, DATA, &zero_word, 1);
	l1_put(dev, DATA + 4, &zero_word, 1);
	snippet_begin(&p);
	emit_li(&p, A1, 5);
	emit_li(&p, A2, DATA);
	emit(&p, add(X0, A1, A1));              /* R-type */
	emit(&p, addi(X0, A1, 1));              /* I-type */
	emit(&p, lui(X0, 0x12345));
	emit(&p, auipc(X0, 0x12345));
	emit(&p, lw(X0, 0, A2));                /* load */
	emit(&p, mul(X0, A1, A1));
	emit(&p, enc_r(0x30, 0, A1, 1, X0, OP_IMM));  /* clz */
	emit(&p, csrr(X0, 0x7C3));              /* scratch0 */
	emit(&p, amo(0x01, X0, A1, A2, 0));     /* amoswap.w x0, a1, (a2): memory still swapped */
	emit(&p, jal(X0, 4));                   /* jal x0: no link */
	emit(&p, sw(X0, 4, A2));                /* x0 reads as zero */
	emit(&p, add(A0, X0, X0));
	cr_expect_eq(snippet_run(dev, &p), 0);
	cr_expect_eq(l1_get(dev, DATA), 5, "amoswap with rd = x0 must still write memory");
	cr_expect_eq(l1_get(dev, DATA + 4), 0, "sw x0 must store zero");
	bh_device_close(dev);
}

Test(rv32i, fence_variants_execute_as_no_ops)
{
	static const uint32_t fences[] = {
		0x0ff0000f,    /* fence iorw, iorw */
		0x8330000f,    /* fence.tso */
		0x0100000f,    /* pause (fence w, 0) */
		0x0220000f,    /* fence r, r */
		0x0ff5850f,    /* fence with rd = a0, rs1 = a1: reserved fields are ignored */
	};
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(fences); k++) {
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A0, 0x600d);
		emit(&p, fences[k]);
		cr_expect_eq(snippet_run(dev, &p), 0x600d, "fence word 0x%08x changed a0", fences[k]);
	}
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * M: multiply and divide.
 */

Test(rv32m, mul_returns_low_32_bits)
{
	static const struct v2 v[] = {
		{ 3, 7, 21 },
		{ 0xffffffff, 0xffffffff, 1 },
		{ 0x80000000, 0xffffffff, 0x80000000 },
		{ 0x12345678, 0x10, 0x23456780 },
		{ 0x00010000, 0x00010000, 0 },
		{ 0xfffffffe, 3, 0xfffffffa },
		{ 0x7fffffff, 0x7fffffff, 1 },
	};
	check_rr(&MUL, v, N(v));
}

Test(rv32m, mulh_is_signed_times_signed_high_word)
{
	static const struct v2 v[] = {
		{ 0x7fffffff, 0x7fffffff, 0x3fffffff },   /* 2^62 - 2^32 + 1 */
		{ 0x80000000, 0x80000000, 0x40000000 },   /* 2^62 */
		{ 0x80000000, 0x7fffffff, 0xc0000000 },   /* -2^62 + 2^31 */
		{ 0xffffffff, 0xffffffff, 0 },            /* (-1)(-1) = 1 */
		{ 0xffffffff, 1, 0xffffffff },            /* -1 */
		{ 0x00010000, 0x00010000, 1 },            /* 2^32 */
		{ 0x80000000, 0xffffffff, 0 },            /* 2^31 */
		{ 0xfffffffe, 0x00010000, 0xffffffff },   /* -2^17 */
	};
	check_rr(&MULH, v, N(v));
}

Test(rv32m, mulhsu_is_signed_rs1_times_unsigned_rs2)
{
	static const struct v2 v[] = {
		{ 0xffffffff, 0xffffffff, 0xffffffff },   /* -1 * (2^32 - 1) = 0xffffffff_00000001 */
		{ 0x80000000, 0xffffffff, 0x80000000 },   /* -2^31 * (2^32 - 1) = 0x80000000_80000000 */
		{ 0x7fffffff, 0xffffffff, 0x7ffffffe },   /* 0x7ffffffe_80000001 */
		{ 0xffffffff, 1, 0xffffffff },
		{ 2, 0x80000000, 1 },                     /* 2^32: rs2 is not negative */
		{ 0xfffffffe, 0x80000000, 0xffffffff },   /* -2^32 */
		{ 0, 0xffffffff, 0 },
	};
	check_rr(&MULHSU, v, N(v));
}

Test(rv32m, mulhu_is_unsigned_times_unsigned_high_word)
{
	static const struct v2 v[] = {
		{ 0xffffffff, 0xffffffff, 0xfffffffe },   /* 2^64 - 2^33 + 1 */
		{ 0x80000000, 2, 1 },
		{ 0xffffffff, 1, 0 },
		{ 0x80000000, 0x80000000, 0x40000000 },
		{ 0xffffffff, 2, 1 },
		{ 0x12345678, 0x9abcdef0, 0x0b00ea4e },
	};
	check_rr(&MULHU, v, N(v));
}

Test(rv32m, div_rounds_toward_zero)
{
	static const struct v2 v[] = {
		{ 7, 2, 3 },
		{ 0xfffffff9, 2, 0xfffffffd },            /* -7 / 2 = -3 */
		{ 7, 0xfffffffe, 0xfffffffd },            /* 7 / -2 = -3 */
		{ 0xfffffff9, 0xfffffffe, 3 },            /* -7 / -2 = 3 */
		{ 0x80000000, 1, 0x80000000 },
		{ 0x7fffffff, 0xffffffff, 0x80000001 },
		{ 1, 2, 0 },
	};
	check_rr(&DIV, v, N(v));
}

Test(rv32m, div_by_zero_returns_all_ones)
{
	static const struct v2 v[] = {
		{ 1, 0, 0xffffffff }, { 0, 0, 0xffffffff }, { 0x80000000, 0, 0xffffffff }, { 0xfffffff9, 0, 0xffffffff },
	};
	check_rr(&DIV, v, N(v));
}

Test(rv32m, div_overflow_int_min_by_minus_one_returns_int_min)
{
	static const struct v2 v[] = { { 0x80000000, 0xffffffff, 0x80000000 } };
	check_rr(&DIV, v, N(v));
}

Test(rv32m, divu_divides_unsigned)
{
	static const struct v2 v[] = {
		{ 7, 2, 3 },
		{ 0xffffffff, 2, 0x7fffffff },
		{ 0x80000000, 0xffffffff, 0 },
		{ 0xfffffffe, 0xfffffff0, 1 },
		{ 0xfffffff9, 7, 0x24924923 },
	};
	check_rr(&DIVU, v, N(v));
}

Test(rv32m, divu_by_zero_returns_all_ones)
{
	static const struct v2 v[] = { { 0, 0, 0xffffffff }, { 1, 0, 0xffffffff }, { 0xffffffff, 0, 0xffffffff } };
	check_rr(&DIVU, v, N(v));
}

Test(rv32m, rem_takes_sign_of_dividend)
{
	static const struct v2 v[] = {
		{ 7, 2, 1 },
		{ 0xfffffff9, 2, 0xffffffff },            /* -7 % 2 = -1 */
		{ 7, 0xfffffffe, 1 },                     /* 7 % -2 = 1 */
		{ 0xfffffff9, 0xfffffffe, 0xffffffff },   /* -7 % -2 = -1 */
		{ 0x80000000, 2, 0 },
		{ 0x80000001, 2, 0xffffffff },
	};
	check_rr(&REM, v, N(v));
}

Test(rv32m, rem_by_zero_returns_dividend)
{
	static const struct v2 v[] = {
		{ 5, 0, 5 }, { 0xfffffff9, 0, 0xfffffff9 }, { 0x80000000, 0, 0x80000000 }, { 0, 0, 0 },
	};
	check_rr(&REM, v, N(v));
}

Test(rv32m, rem_overflow_int_min_by_minus_one_returns_zero)
{
	static const struct v2 v[] = { { 0x80000000, 0xffffffff, 0 } };
	check_rr(&REM, v, N(v));
}

Test(rv32m, remu_divides_unsigned)
{
	static const struct v2 v[] = {
		{ 7, 2, 1 },
		{ 0xffffffff, 2, 1 },
		{ 0x80000000, 0xffffffff, 0x80000000 },
		{ 0xfffffff9, 0xfffffffe, 0xfffffff9 },
		{ 0xfffffff9, 7, 4 },                     /* 0xfffffff9 = 7 * 0x24924923 + 4 */
		{ 100, 7, 2 },
	};
	check_rr(&REMU, v, N(v));
}

Test(rv32m, remu_by_zero_returns_dividend)
{
	static const struct v2 v[] = { { 5, 0, 5 }, { 0xffffffff, 0, 0xffffffff }, { 0, 0, 0 } };
	check_rr(&REMU, v, N(v));
}

/* ---------------------------------------------------------------------------------------------
 * Zicsr, on the free scratch CSRs 0x7C3-0x7C6 and cfg0 0x7C0. Results go to memory at DATA.
 */

#define CSR_CFG0 0x7C0u
#define CSR_S0 0x7C3u
#define CSR_S1 0x7C4u
#define CSR_S2 0x7C5u
#define CSR_S3 0x7C6u

/* Store register r to DATA + 4 * slot (s0 holds DATA). */
static void emit_save(struct prog *p, unsigned r, unsigned slot)
{
	emit(p, sw(r, (int32_t)(4 * slot), S0));
}

/* Runs p on a fresh device with DATA poisoned; DATA + 4 * k must then hold want[k]. */
static void run_and_expect_slots(struct prog *p, const uint32_t *want, unsigned n)
{
	struct bh_device *dev = t_open();
	static const uint32_t poison[16] = {
		0xdead0000, 0xdead0001, 0xdead0002, 0xdead0003, 0xdead0004, 0xdead0005, 0xdead0006, 0xdead0007,
		0xdead0008, 0xdead0009, 0xdead000a, 0xdead000b, 0xdead000c, 0xdead000d, 0xdead000e, 0xdead000f,
	};
	l1_put(dev, DATA, poison, 16);
	snippet_run(dev, p);
	for (unsigned k = 0; k < n; k++) {
		uint32_t got = l1_get(dev, DATA + 4 * k);
		cr_expect_eq(got, want[k], "result %u: 0x%08x, expected 0x%08x", k, got, want[k]);
	}
	bh_device_close(dev);
}

static void csr_prog_begin(struct prog *p)
{
	snippet_begin(p);
	emit_li(p, S0, DATA);
}

Test(zicsr, csrrw_returns_old_value_and_writes_rs1)
{
	struct prog p;
	csr_prog_begin(&p);
	emit_li(&p, A1, 0xa5a5a5a5);
	emit(&p, csr_op(F3_CSRRW, A2, CSR_S0, A1));   /* old: 0 after reset */
	emit_save(&p, A2, 0);
	emit_li(&p, A1, 0x12345678);
	emit(&p, csr_op(F3_CSRRW, A2, CSR_S0, A1));
	emit_save(&p, A2, 1);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S0, X0));   /* csrr */
	emit_save(&p, A2, 2);
	emit(&p, csr_op(F3_CSRRW, A1, CSR_S0, A1));   /* rd = rs1: write old a1, then a1 = old csr */
	emit_save(&p, A1, 3);
	static const uint32_t want[] = { 0, 0xa5a5a5a5, 0x12345678, 0x12345678 };
	run_and_expect_slots(&p, want, N(want));
}

Test(zicsr, csrrw_with_rd_x0_still_writes)
{
	struct prog p;
	csr_prog_begin(&p);
	emit_li(&p, A1, 0x0badcafe);
	emit(&p, csr_op(F3_CSRRW, X0, CSR_S1, A1));   /* csrw */
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S1, X0));
	emit_save(&p, A2, 0);
	emit_save(&p, X0, 1);
	static const uint32_t want[] = { 0x0badcafe, 0 };
	run_and_expect_slots(&p, want, N(want));
}

Test(zicsr, csrrs_sets_bits_and_returns_old_value)
{
	struct prog p;
	csr_prog_begin(&p);
	emit_li(&p, A1, 0x0000f0f0);
	emit(&p, csr_op(F3_CSRRW, X0, CSR_S1, A1));
	emit_li(&p, A1, 0x0f00000f);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S1, A1));
	emit_save(&p, A2, 0);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S1, X0));
	emit_save(&p, A2, 1);
	static const uint32_t want[] = { 0x0000f0f0, 0x0f00f0ff };
	run_and_expect_slots(&p, want, N(want));
}

Test(zicsr, csrrc_clears_bits_and_returns_old_value)
{
	struct prog p;
	csr_prog_begin(&p);
	emit_li(&p, A1, 0xffffffff);
	emit(&p, csr_op(F3_CSRRW, X0, CSR_S2, A1));
	emit_li(&p, A1, 0x0000ff00);
	emit(&p, csr_op(F3_CSRRC, A2, CSR_S2, A1));
	emit_save(&p, A2, 0);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S2, X0));
	emit_save(&p, A2, 1);
	static const uint32_t want[] = { 0xffffffff, 0xffff00ff };
	run_and_expect_slots(&p, want, N(want));
}

Test(zicsr, csrrs_csrrc_with_rs1_x0_leave_csr_unchanged)
{
	struct prog p;
	csr_prog_begin(&p);
	emit_li(&p, A1, 0x13572468);
	emit(&p, csr_op(F3_CSRRW, X0, CSR_S3, A1));
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S3, X0));
	emit_save(&p, A2, 0);
	emit(&p, csr_op(F3_CSRRC, A2, CSR_S3, X0));
	emit_save(&p, A2, 1);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S3, X0));
	emit_save(&p, A2, 2);
	static const uint32_t want[] = { 0x13572468, 0x13572468, 0x13572468 };
	run_and_expect_slots(&p, want, N(want));
}

/* rs1 = x0 means "no write": on the read-only mstatus, misa and mhartid these must not fault. */
Test(zicsr, csrrs_csrrc_csrrsi_csrrci_without_write_read_read_only_csrs)
{
	struct prog p;
	csr_prog_begin(&p);
	emit(&p, csr_op(F3_CSRRS, A2, 0x300, X0));
	emit_save(&p, A2, 0);
	emit(&p, csr_op(F3_CSRRC, A2, 0x301, X0));
	emit_save(&p, A2, 1);
	emit(&p, csr_op(F3_CSRRSI, A2, 0xF14, 0));
	emit_save(&p, A2, 2);
	emit(&p, csr_op(F3_CSRRCI, A2, 0x300, 0));
	emit_save(&p, A2, 3);
	static const uint32_t want[] = { 0x80006600, 0x40201123, 0, 0x80006600 };
	run_and_expect_slots(&p, want, N(want));
}

Test(zicsr, csrrwi_writes_zero_extended_5_bit_immediate)
{
	struct prog p;
	csr_prog_begin(&p);
	emit_li(&p, A1, 0xffffffff);
	emit(&p, csr_op(F3_CSRRW, X0, CSR_S3, A1));
	emit(&p, csr_op(F3_CSRRWI, A2, CSR_S3, 31));
	emit_save(&p, A2, 0);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S3, X0));
	emit_save(&p, A2, 1);
	emit(&p, csr_op(F3_CSRRWI, A2, CSR_S3, 0));   /* csrrwi always writes, even 0 */
	emit_save(&p, A2, 2);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S3, X0));
	emit_save(&p, A2, 3);
	static const uint32_t want[] = { 0xffffffff, 31, 31, 0 };
	run_and_expect_slots(&p, want, N(want));
}

Test(zicsr, csrrsi_csrrci_set_and_clear_immediate_bits)
{
	struct prog p;
	csr_prog_begin(&p);
	emit_li(&p, A1, 0x100);
	emit(&p, csr_op(F3_CSRRW, X0, CSR_S0, A1));
	emit(&p, csr_op(F3_CSRRSI, A2, CSR_S0, 0x15));
	emit_save(&p, A2, 0);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S0, X0));
	emit_save(&p, A2, 1);
	emit_li(&p, A1, 0xfff);
	emit(&p, csr_op(F3_CSRRW, X0, CSR_S0, A1));
	emit(&p, csr_op(F3_CSRRCI, A2, CSR_S0, 0x1f));
	emit_save(&p, A2, 2);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_S0, X0));
	emit_save(&p, A2, 3);
	static const uint32_t want[] = { 0x100, 0x115, 0xfff, 0xfe0 };
	run_and_expect_slots(&p, want, N(want));
}

Test(zicsr, scratch_csrs_are_independent)
{
	struct prog p;
	csr_prog_begin(&p);
	for (unsigned k = 0; k < 4; k++) {
		emit_li(&p, A1, 0x11111111u * (k + 1));
		emit(&p, csr_op(F3_CSRRW, X0, CSR_S0 + k, A1));
	}
	for (unsigned k = 0; k < 4; k++) {
		emit(&p, csr_op(F3_CSRRS, A2, CSR_S0 + k, X0));
		emit_save(&p, A2, k);
	}
	static const uint32_t want[] = { 0x11111111, 0x22222222, 0x33333333, 0x44444444 };
	run_and_expect_slots(&p, want, N(want));
}

/* riscv-cores.md 3: cfg0 resets to StMergeTimer = 16 (bits 13..17) and is plain R/W; the p100a
 * prologue csrs 2; csrs 1 << 18; csrc 2; csrs 8 leaves 0x20000 | 0x40000 | 8. */
Test(zicsr, cfg0_resets_to_st_merge_timer_16_and_follows_firmware_prologue)
{
	struct prog p;
	csr_prog_begin(&p);
	emit(&p, csr_op(F3_CSRRS, A2, CSR_CFG0, X0));
	emit_save(&p, A2, 0);
	emit(&p, csr_op(F3_CSRRSI, X0, CSR_CFG0, 2));
	emit(&p, INSN_FENCE);
	emit_li(&p, A1, 1u << 18);
	emit(&p, csr_op(F3_CSRRS, X0, CSR_CFG0, A1));
	emit(&p, csr_op(F3_CSRRCI, X0, CSR_CFG0, 2));
	emit(&p, csr_op(F3_CSRRSI, X0, CSR_CFG0, 8));
	emit(&p, csr_op(F3_CSRRS, A2, CSR_CFG0, X0));
	emit_save(&p, A2, 1);
	static const uint32_t want[] = { 0x00020000, 0x00060008 };
	run_and_expect_slots(&p, want, N(want));
}

/* ---------------------------------------------------------------------------------------------
 * Zba.
 */

Test(zba, sh1add_adds_rs1_shifted_by_1)
{
	static const struct v2 v[] = {
		{ 1, 2, 4 }, { 0x80000000, 5, 5 }, { 0xffffffff, 0, 0xfffffffe }, { 3, 0xffffffff, 5 },
	};
	check_rr(&SH1ADD, v, N(v));
}

Test(zba, sh2add_adds_rs1_shifted_by_2)
{
	static const struct v2 v[] = {
		{ 1, 2, 6 }, { 0x40000000, 1, 1 }, { 0xffffffff, 4, 0 }, { 0x12345678, 0x10, 0x48d159f0 },
	};
	check_rr(&SH2ADD, v, N(v));
}

Test(zba, sh3add_adds_rs1_shifted_by_3)
{
	static const struct v2 v[] = {
		{ 1, 2, 10 }, { 0x20000000, 7, 7 }, { 0x12345678, 0, 0x91a2b3c0 }, { 0xffffffff, 8, 0 },
	};
	check_rr(&SH3ADD, v, N(v));
}

/* ---------------------------------------------------------------------------------------------
 * Zbb.
 */

Test(zbb, andn_orn_xnor_invert_rs2)
{
	static const struct v2 vandn[] = {
		{ 0xff00ff00, 0x0ff00ff0, 0xf000f000 }, { 0xffffffff, 0, 0xffffffff }, { 0x12345678, 0xffffffff, 0 },
	};
	static const struct v2 vorn[] = {
		{ 0xff00ff00, 0x0ff00ff0, 0xff0fff0f }, { 0, 0, 0xffffffff }, { 0x12345678, 0xffffffff, 0x12345678 },
	};
	static const struct v2 vxnor[] = {
		{ 0xff00ff00, 0x0ff00ff0, 0x0f0f0f0f }, { 0x12345678, 0x12345678, 0xffffffff }, { 0, 0xffffffff, 0 },
	};
	check_rr(&ANDN, vandn, N(vandn));
	check_rr(&ORN, vorn, N(vorn));
	check_rr(&XNOR, vxnor, N(vxnor));
}

Test(zbb, clz_counts_leading_zeros_32_for_zero)
{
	static const struct v1 v[] = {
		{ 0, 32 }, { 1, 31 }, { 0x80000000, 0 }, { 0x00010000, 15 }, { 0x0000ffff, 16 }, { 0xffffffff, 0 },
		{ 0x7fffffff, 1 },
	};
	check_unary(&CLZ, v, N(v));
}

Test(zbb, ctz_counts_trailing_zeros_32_for_zero)
{
	static const struct v1 v[] = {
		{ 0, 32 }, { 1, 0 }, { 0x80000000, 31 }, { 0x00010000, 16 }, { 0xfffffff0, 4 }, { 0xffffffff, 0 },
	};
	check_unary(&CTZ, v, N(v));
}

Test(zbb, cpop_counts_set_bits)
{
	static const struct v1 v[] = {
		{ 0, 0 }, { 0xffffffff, 32 }, { 0x80000001, 2 }, { 0x12345678, 13 }, { 0xaaaaaaaa, 16 },
	};
	check_unary(&CPOP, v, N(v));
}

Test(zbb, sext_b_sext_h_sign_extend_low_byte_and_half)
{
	static const struct v1 vb[] = {
		{ 0x7f, 0x7f }, { 0x80, 0xffffff80 }, { 0x12345678, 0x78 }, { 0xffffff00, 0 }, { 0xff, 0xffffffff },
	};
	static const struct v1 vh[] = {
		{ 0x7fff, 0x7fff }, { 0x8000, 0xffff8000 }, { 0x12345678, 0x5678 }, { 0xffff0000, 0 },
		{ 0x1234abcd, 0xffffabcd },
	};
	check_unary(&SEXT_B, vb, N(vb));
	check_unary(&SEXT_H, vh, N(vh));
}

Test(zbb, zext_h_zero_extends_low_half)
{
	/* zext.h a0, a1 is pack a0, a1, x0. */
	static const struct v1 v[] = { { 0x12345678, 0x5678 }, { 0xffffffff, 0xffff }, { 0xffff0000, 0 }, { 0x8000, 0x8000 } };
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++) {
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A1, v[k].a);
		emit(&p, r_op(0x04, 4, A0, A1, X0));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, v[k].want, "zext.h(0x%08x) = 0x%08x, expected 0x%08x", v[k].a, got, v[k].want);
	}
	bh_device_close(dev);
}

Test(zbb, max_min_compare_signed)
{
	static const struct v2 vmax[] = {
		{ 1, 2, 2 }, { 0xffffffff, 0, 0 }, { 0x80000000, 0x7fffffff, 0x7fffffff }, { 5, 5, 5 },
		{ 0xfffffffe, 0xffffffff, 0xffffffff },
	};
	static const struct v2 vmin[] = {
		{ 1, 2, 1 }, { 0xffffffff, 0, 0xffffffff }, { 0x80000000, 0x7fffffff, 0x80000000 }, { 5, 5, 5 },
		{ 0xfffffffe, 0xffffffff, 0xfffffffe },
	};
	check_rr(&MAX, vmax, N(vmax));
	check_rr(&MIN, vmin, N(vmin));
}

Test(zbb, maxu_minu_compare_unsigned)
{
	static const struct v2 vmax[] = {
		{ 1, 2, 2 }, { 0xffffffff, 0, 0xffffffff }, { 0x80000000, 0x7fffffff, 0x80000000 }, { 5, 5, 5 },
	};
	static const struct v2 vmin[] = {
		{ 1, 2, 1 }, { 0xffffffff, 0, 0 }, { 0x80000000, 0x7fffffff, 0x7fffffff }, { 5, 5, 5 },
	};
	check_rr(&MAXU, vmax, N(vmax));
	check_rr(&MINU, vmin, N(vmin));
}

Test(zbb, rol_ror_rotate_by_low_five_bits_of_rs2)
{
	static const struct v2 vrol[] = {
		{ 0x12345678, 4, 0x23456781 }, { 0x80000000, 1, 1 }, { 0x12345678, 0, 0x12345678 },
		{ 0x12345678, 36, 0x23456781 }, { 0x12345678, 32, 0x12345678 }, { 1, 0xffffffff, 0x80000000 },
	};
	static const struct v2 vror[] = {
		{ 0x12345678, 4, 0x81234567 }, { 1, 1, 0x80000000 }, { 0x12345678, 32, 0x12345678 },
		{ 0x12345678, 0xffffffe4, 0x81234567 }, { 0x80000000, 31, 1 },
	};
	check_rr(&ROL, vrol, N(vrol));
	check_rr(&ROR, vror, N(vror));
}

Test(zbb, rori_rotates_right_by_immediate)
{
	static const struct vi v[] = {
		{ 0x12345678, 0x600 | 4, 0x81234567 },    /* imm[11:5] = 0110000 selects rori */
		{ 0x12345678, 0x600 | 0, 0x12345678 },
		{ 1, 0x600 | 31, 2 },
		{ 0x80000001, 0x600 | 1, 0xc0000000 },
		{ 0x12345678, 0x600 | 16, 0x56781234 },
	};
	check_ri("rori", 5, v, N(v));
}

Test(zbb, orc_b_sets_each_nonzero_byte_to_ff)
{
	static const struct v1 v[] = {
		{ 0, 0 }, { 0x00010000, 0x00ff0000 }, { 0x01008000, 0xff00ff00 }, { 0x12345678, 0xffffffff },
		{ 0x00000100, 0x0000ff00 }, { 0x80000000, 0xff000000 },
	};
	check_unary(&ORC_B, v, N(v));
}

Test(zbb, rev8_reverses_byte_order)
{
	static const struct v1 v[] = {
		{ 0x12345678, 0x78563412 }, { 0x000000ff, 0xff000000 }, { 0, 0 }, { 0x01020304, 0x04030201 },
	};
	check_unary(&REV8, v, N(v));
}

/* ---------------------------------------------------------------------------------------------
 * Zbkb subset: pack, brev8.
 */

Test(zbkb, pack_joins_low_halves_of_rs1_and_rs2)
{
	static const struct v2 v[] = {
		{ 0x12345678, 0x9abcdef0, 0xdef05678 },
		{ 0xffffffff, 0, 0x0000ffff },           /* rs2 = a2 holding 0: same as zext.h */
		{ 0, 0x0000ffff, 0xffff0000 },
		{ 0xabcd1234, 0x5678abcd, 0xabcd1234 },
	};
	check_rr(&PACK, v, N(v));
}

Test(zbkb, brev8_reverses_bits_in_each_byte)
{
	static const struct v1 v[] = {
		{ 0x00000001, 0x00000080 }, { 0x12345678, 0x482c6a1e }, { 0xffffffff, 0xffffffff },
		{ 0x80402010, 0x01020408 }, { 0x0f000000, 0xf0000000 },
	};
	check_unary(&BREV8, v, N(v));
}

/* ---------------------------------------------------------------------------------------------
 * Zaamo: amoXXX.w a0, a2, (a1) with a1 = DATA. a0 gets the old word, memory the result.
 */

struct vamo {
	uint32_t mem, src, want_mem;
};

static void check_amo(const char *name, uint32_t f5, const struct vamo *v, size_t n)
{
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < n; k++) {
		struct prog p;
		l1_put(dev, DATA, &v[k].mem, 1);
		snippet_begin(&p);
		emit_li(&p, A1, DATA);
		emit_li(&p, A2, v[k].src);
		emit(&p, amo(f5, A0, A2, A1, (unsigned)k & 3));   /* aq/rl vary: ignored */
		uint32_t old = snippet_run(dev, &p), mem = l1_get(dev, DATA);
		cr_expect_eq(old, v[k].mem, "%s mem 0x%08x src 0x%08x: rd = 0x%08x, expected the old word", name,
			     v[k].mem, v[k].src, old);
		cr_expect_eq(mem, v[k].want_mem, "%s mem 0x%08x src 0x%08x: memory 0x%08x, expected 0x%08x", name,
			     v[k].mem, v[k].src, mem, v[k].want_mem);
	}
	bh_device_close(dev);
}

Test(zaamo, amoadd_adds_and_returns_old_word)
{
	static const struct vamo v[] = {
		{ 5, 3, 8 }, { 0xffffffff, 1, 0 }, { 0x7fffffff, 1, 0x80000000 }, { 0x12345678, 0xedcba988, 0 },
	};
	check_amo("amoadd.w", 0x00, v, N(v));
}

Test(zaamo, amoswap_stores_rs2_and_returns_old_word)
{
	static const struct vamo v[] = { { 0x12345678, 0xdeadbeef, 0xdeadbeef }, { 0, 0xffffffff, 0xffffffff } };
	check_amo("amoswap.w", 0x01, v, N(v));
}

Test(zaamo, amoxor_amoor_amoand_are_bitwise)
{
	static const struct vamo vx[] = { { 0xff00ff00, 0x0ff00ff0, 0xf0f0f0f0 }, { 0xffffffff, 0xffffffff, 0 } };
	static const struct vamo vo[] = { { 0xff00ff00, 0x0ff00ff0, 0xfff0fff0 }, { 0, 0, 0 } };
	static const struct vamo va[] = { { 0xff00ff00, 0x0ff00ff0, 0x0f000f00 }, { 0xffffffff, 0x80000001, 0x80000001 } };
	check_amo("amoxor.w", 0x04, vx, N(vx));
	check_amo("amoor.w", 0x08, vo, N(vo));
	check_amo("amoand.w", 0x0c, va, N(va));
}

Test(zaamo, amomin_amomax_compare_signed)
{
	static const struct vamo vmin[] = {
		{ 5, 3, 3 }, { 3, 5, 3 }, { 0xffffffff, 1, 0xffffffff }, { 1, 0xffffffff, 0xffffffff },
		{ 0x80000000, 0x7fffffff, 0x80000000 }, { 0x7fffffff, 0x80000000, 0x80000000 },
	};
	static const struct vamo vmax[] = {
		{ 5, 3, 5 }, { 3, 5, 5 }, { 0xffffffff, 1, 1 }, { 1, 0xffffffff, 1 },
		{ 0x80000000, 0x7fffffff, 0x7fffffff }, { 0x7fffffff, 0x80000000, 0x7fffffff },
	};
	check_amo("amomin.w", 0x10, vmin, N(vmin));
	check_amo("amomax.w", 0x14, vmax, N(vmax));
}

Test(zaamo, amominu_amomaxu_compare_unsigned)
{
	static const struct vamo vmin[] = {
		{ 0xffffffff, 1, 1 }, { 1, 0xffffffff, 1 }, { 0x80000000, 0x7fffffff, 0x7fffffff }, { 5, 5, 5 },
	};
	static const struct vamo vmax[] = {
		{ 0xffffffff, 1, 0xffffffff }, { 1, 0xffffffff, 0xffffffff }, { 0x80000000, 0x7fffffff, 0x80000000 },
		{ 5, 5, 5 },
	};
	check_amo("amominu.w", 0x18, vmin, N(vmin));
	check_amo("amomaxu.w", 0x1c, vmax, N(vmax));
}

Test(zaamo, amoswap_with_rd_equal_rs2_swaps_register_and_memory)
{
	struct bh_device *dev = t_open();
	struct prog p;
	uint32_t mem = 0x11112222;
	l1_put(dev, DATA, &mem, 1);
	snippet_begin(&p);
	emit_li(&p, A1, DATA);
	emit_li(&p, A2, 0x33334444);
	emit(&p, amo(0x01, A2, A2, A1, 0));
	emit(&p, addi(A0, A2, 0));
	cr_expect_eq(snippet_run(dev, &p), 0x11112222);
	cr_expect_eq(l1_get(dev, DATA), 0x33334444);
	bh_device_close(dev);
}

Test(zaamo, amo_works_on_the_last_word_of_l1)
{
	struct bh_device *dev = t_open();
	struct prog p;
	const uint32_t last = 1536u * 1024u - 4u;
	uint32_t mem = 40;
	l1_put(dev, last, &mem, 1);
	snippet_begin(&p);
	emit_li(&p, A1, last);
	emit_li(&p, A2, 2);
	emit(&p, amo(0x00, A0, A2, A1, 0));
	cr_expect_eq(snippet_run(dev, &p), 40);
	cr_expect_eq(l1_get(dev, last), 42);
	bh_device_close(dev);
}
