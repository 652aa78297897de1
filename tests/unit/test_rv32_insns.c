/* Exact semantics of every instruction the baby RISC-V cores execute (riscv-cores.md 1): RV32I,
 * M, Zicsr, Zba, Zbb, pack/brev8 and Zaamo, with the edge cases the RISC-V unprivileged spec
 * defines. Every expected value is worked out by hand from the spec and written as a constant;
 * nothing is computed with the emulator's own formulas.
 *
 * Instructions of one shape share one table (a row per case) and one Test that runs every row
 * and names the failing row, e.g. "rv32i_alu[14]: sll(0x00000001, 0x00000020) = ...". A case is a
 * program at CODE (li a7, 93; snippet; ecall) that BRISC runs from reset, and its result is a0 at
 * exit (plus memory where the table says so). The rows of a table share one device, except the
 * Zicsr cases, which each start from reset values. */
#include <criterion/criterion.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
 * One-instruction ALU cases: a1 = a, then one of
 *   RR  op a0, a1, a2   with a2 = b            (OP)
 *   RI  op a0, a1, imm  with imm = b           (OP-IMM; shift-immediates carry their f7 in imm)
 *   UN  op a0, a1       with a fixed rs2 field (Zbb/Zbkb one-operand ops; zext.h is pack rd, rs1, x0)
 * and the case expects a0 = want. Adding a case is adding one row to the extension's table.
 */

enum alu_form { RR, RI, UN };

struct alu_op {
	const char *name;
	enum alu_form form;
	uint32_t opc, f7, f3, rs2;      /* rs2: the fixed rs2 field of UN ops */
};

#define R_OP(nm, f7, f3) { nm, RR, OP_REG, f7, f3, 0 }
#define I_OP(nm, f3) { nm, RI, OP_IMM, 0, f3, 0 }
#define U_OP(nm, opc, f7, rs2, f3) { nm, UN, opc, f7, f3, rs2 }

static const struct alu_op ADD = R_OP("add", 0x00, 0), SUB = R_OP("sub", 0x20, 0), SLL = R_OP("sll", 0x00, 1),
	SLT = R_OP("slt", 0x00, 2), SLTU = R_OP("sltu", 0x00, 3), XOR = R_OP("xor", 0x00, 4),
	SRL = R_OP("srl", 0x00, 5), SRA = R_OP("sra", 0x20, 5), OR = R_OP("or", 0x00, 6), AND = R_OP("and", 0x00, 7),
	MUL = R_OP("mul", 0x01, 0), MULH = R_OP("mulh", 0x01, 1), MULHSU = R_OP("mulhsu", 0x01, 2),
	MULHU = R_OP("mulhu", 0x01, 3), DIV = R_OP("div", 0x01, 4), DIVU = R_OP("divu", 0x01, 5),
	REM = R_OP("rem", 0x01, 6), REMU = R_OP("remu", 0x01, 7),
	SH1ADD = R_OP("sh1add", 0x10, 2), SH2ADD = R_OP("sh2add", 0x10, 4), SH3ADD = R_OP("sh3add", 0x10, 6),
	ANDN = R_OP("andn", 0x20, 7), ORN = R_OP("orn", 0x20, 6), XNOR = R_OP("xnor", 0x20, 4),
	MIN = R_OP("min", 0x05, 4), MINU = R_OP("minu", 0x05, 5), MAX = R_OP("max", 0x05, 6),
	MAXU = R_OP("maxu", 0x05, 7), ROL = R_OP("rol", 0x30, 1), ROR = R_OP("ror", 0x30, 5),
	PACK = R_OP("pack", 0x04, 4),
	ADDI = I_OP("addi", 0), SLTI = I_OP("slti", 2), SLTIU = I_OP("sltiu", 3), XORI = I_OP("xori", 4),
	ORI = I_OP("ori", 6), ANDI = I_OP("andi", 7), SLLI = I_OP("slli", 1), SRLI = I_OP("srli", 5),
	SRAI = I_OP("srai", 5), RORI = I_OP("rori", 5),
	CLZ = U_OP("clz", OP_IMM, 0x30, 0, 1), CTZ = U_OP("ctz", OP_IMM, 0x30, 1, 1),
	CPOP = U_OP("cpop", OP_IMM, 0x30, 2, 1), SEXT_B = U_OP("sext.b", OP_IMM, 0x30, 4, 1),
	SEXT_H = U_OP("sext.h", OP_IMM, 0x30, 5, 1), ORC_B = U_OP("orc.b", OP_IMM, 0x14, 7, 5),
	REV8 = U_OP("rev8", OP_IMM, 0x34, 0x18, 5), BREV8 = U_OP("brev8", OP_IMM, 0x34, 7, 5),
	ZEXT_H = U_OP("zext.h", OP_REG, 0x04, X0, 4);

struct alu_case {
	const struct alu_op *op;
	uint32_t a;
	int64_t b;                      /* rs2 value (RR), immediate (RI), unused (UN) */
	uint32_t want;
};

/* Runs every case of table `name` on one device; a failure names the row, the op and operands. */
static void check_alu(const char *name, const struct alu_case *c, size_t n)
{
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < n; k++) {
		const struct alu_op *op = c[k].op;
		struct prog p;
		char what[64];
		snippet_begin(&p);
		emit_li(&p, A1, c[k].a);
		switch (op->form) {
		case RR:
			emit_li(&p, A2, (uint32_t)c[k].b);
			emit(&p, enc_r(op->f7, A2, A1, op->f3, A0, op->opc));
			snprintf(what, sizeof what, "%s(0x%08x, 0x%08x)", op->name, c[k].a, (uint32_t)c[k].b);
			break;
		case RI:
			emit(&p, i_op(op->f3, A0, A1, (int32_t)c[k].b));
			snprintf(what, sizeof what, "%s(0x%08x, %d)", op->name, c[k].a, (int32_t)c[k].b);
			break;
		case UN:
			emit(&p, enc_r(op->f7, op->rs2, A1, op->f3, A0, op->opc));
			snprintf(what, sizeof what, "%s(0x%08x)", op->name, c[k].a);
			break;
		}
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, c[k].want, "%s[%zu]: %s = 0x%08x, expected 0x%08x", name, k, what, got, c[k].want);
	}
	bh_device_close(dev);
}

#define CHECK_ALU(table) check_alu(#table, table, N(table))

TestSuite(rv32i, .timeout = 30);
TestSuite(rv32m, .timeout = 30);
TestSuite(zicsr, .timeout = 30);
TestSuite(zba, .timeout = 30);
TestSuite(zbb, .timeout = 30);
TestSuite(zbkb, .timeout = 30);
TestSuite(zaamo, .timeout = 30);

/* ---------------------------------------------------------------------------------------------
 * RV32I: register-register and register-immediate. The 12-bit immediate is sign-extended for
 * every one of them, including sltiu (which then compares unsigned) and the logical ones.
 */

static const struct alu_case rv32i_alu[] = {
	/* add, sub wrap modulo 2^32 */
	{ &ADD, 1, 2, 3 }, { &ADD, 0xffffffff, 1, 0 }, { &ADD, 0x7fffffff, 1, 0x80000000 },
	{ &ADD, 0x80000000, 0x80000000, 0 }, { &ADD, 0x12345678, 0x87654321, 0x99999999 },
	{ &ADD, 0xfffffffe, 0xfffffffe, 0xfffffffc },
	{ &SUB, 3, 1, 2 }, { &SUB, 0, 1, 0xffffffff }, { &SUB, 0x80000000, 1, 0x7fffffff },
	{ &SUB, 1, 0xffffffff, 2 }, { &SUB, 0x12345678, 0x12345678, 0 },
	{ &SUB, 0x7fffffff, 0xffffffff, 0x80000000 },
	/* sll uses the low five bits of rs2 */
	{ &SLL, 1, 0, 1 }, { &SLL, 1, 31, 0x80000000 },
	{ &SLL, 1, 32, 1 },                        /* 32 & 31 = 0 */
	{ &SLL, 0x12345678, 4, 0x23456780 },
	{ &SLL, 3, 0xffffffe1, 6 },                /* only bits 4..0 count */
	{ &SLL, 0xffffffff, 33, 0xfffffffe },
	/* srl zero-fills and masks the shift amount */
	{ &SRL, 0x80000000, 31, 1 }, { &SRL, 0x80000000, 1, 0x40000000 }, { &SRL, 0xffffffff, 32, 0xffffffff },
	{ &SRL, 0xffffffff, 36, 0x0fffffff }, { &SRL, 0x12345678, 0, 0x12345678 },
	{ &SRL, 0x87654321, 0xfffffff8, 0x00000087 },   /* 0xfffffff8 & 31 = 24 */
	/* sra fills with the sign bit and masks the shift amount */
	{ &SRA, 0x80000000, 31, 0xffffffff }, { &SRA, 0x80000000, 1, 0xc0000000 }, { &SRA, 0x7fffffff, 30, 1 },
	{ &SRA, 0xf0000000, 4, 0xff000000 }, { &SRA, 0x80000000, 32, 0x80000000 },
	{ &SRA, 0x80000000, 0x3f, 0xffffffff }, { &SRA, 0x40000000, 0xffffffe1, 0x20000000 },
	/* slt compares signed, sltu unsigned */
	{ &SLT, 1, 2, 1 }, { &SLT, 2, 1, 0 },
	{ &SLT, 0xffffffff, 0, 1 },                /* -1 < 0 */
	{ &SLT, 0, 0xffffffff, 0 }, { &SLT, 0x80000000, 0x7fffffff, 1 }, { &SLT, 0x7fffffff, 0x80000000, 0 },
	{ &SLT, 5, 5, 0 },
	{ &SLTU, 1, 2, 1 }, { &SLTU, 2, 1, 0 }, { &SLTU, 0xffffffff, 0, 0 }, { &SLTU, 0, 0xffffffff, 1 },
	{ &SLTU, 0x80000000, 0x7fffffff, 0 }, { &SLTU, 0x7fffffff, 0x80000000, 1 }, { &SLTU, 5, 5, 0 },
	/* xor, or, and are bitwise */
	{ &XOR, 0xff00ff00, 0x0ff00ff0, 0xf0f0f0f0 }, { &XOR, 0x12345678, 0x12345678, 0 },
	{ &XOR, 0xffffffff, 0x12345678, 0xedcba987 },
	{ &OR, 0xff00ff00, 0x0ff00ff0, 0xfff0fff0 }, { &OR, 0, 0, 0 },
	{ &OR, 0x80000001, 0x7ffffffe, 0xffffffff },
	{ &AND, 0xff00ff00, 0x0ff00ff0, 0x0f000f00 }, { &AND, 0xffffffff, 0x12345678, 0x12345678 },
	{ &AND, 0xaaaaaaaa, 0x55555555, 0 },
	/* addi sign-extends its immediate */
	{ &ADDI, 1, 2, 3 }, { &ADDI, 1, -1, 0 }, { &ADDI, 0, -2048, 0xfffff800 },
	{ &ADDI, 0x7fffffff, 1, 0x80000000 }, { &ADDI, 5, 2047, 2052 }, { &ADDI, 0xffffffff, 0, 0xffffffff },
	/* slti compares signed against the sign-extended immediate */
	{ &SLTI, 0, 1, 1 }, { &SLTI, 0xffffffff, 0, 1 }, { &SLTI, 0, -1, 0 }, { &SLTI, 0x80000000, -2048, 1 },
	{ &SLTI, 5, 5, 0 }, { &SLTI, 0x7fffffff, 2047, 0 }, { &SLTI, 0xfffff800, -2047, 1 },
	/* sltiu compares unsigned against the sign-extended immediate: -1 is all ones */
	{ &SLTIU, 0, -1, 1 },                      /* everything else is below 0xffffffff */
	{ &SLTIU, 0xfffffffe, -1, 1 }, { &SLTIU, 0xffffffff, -1, 0 },
	{ &SLTIU, 0, 1, 1 },                       /* seqz */
	{ &SLTIU, 1, 1, 0 },
	{ &SLTIU, 0x7fffffff, -2048, 1 },          /* imm 0xfffff800 */
	{ &SLTIU, 0xfffff800, -2048, 0 }, { &SLTIU, 0xfffff7ff, -2048, 1 }, { &SLTIU, 2046, 2047, 1 },
	{ &SLTIU, 2047, 2047, 0 },
	/* xori, ori, andi sign-extend their immediate */
	{ &XORI, 0x12345678, -1, 0xedcba987 },     /* not */
	{ &XORI, 0xff, 0x0f, 0xf0 }, { &XORI, 0, -2048, 0xfffff800 },
	{ &ORI, 0x12340000, 0x5a5, 0x123405a5 }, { &ORI, 0, -1, 0xffffffff },
	{ &ORI, 0x80000000, 1, 0x80000001 },
	{ &ANDI, 0xffffffff, 0x7ff, 0x7ff }, { &ANDI, 0x12345678, -16, 0x12345670 },
	{ &ANDI, 0x12345678, 0, 0 }, { &ANDI, 0x80000800, -2048, 0x80000800 },
	/* slli, srli shift by the immediate */
	{ &SLLI, 1, 31, 0x80000000 }, { &SLLI, 0x12345678, 0, 0x12345678 },
	{ &SLLI, 0xffffffff, 16, 0xffff0000 }, { &SLLI, 0x12345678, 8, 0x34567800 },
	{ &SRLI, 0x80000000, 31, 1 }, { &SRLI, 0xffffffff, 1, 0x7fffffff },
	{ &SRLI, 0x12345678, 0, 0x12345678 }, { &SRLI, 0x87654321, 16, 0x00008765 },
	/* srai fills with the sign bit; imm[10] = 1 selects it */
	{ &SRAI, 0x80000000, 0x400 | 31, 0xffffffff }, { &SRAI, 0x80000000, 0x400 | 4, 0xf8000000 },
	{ &SRAI, 0x7fffffff, 0x400 | 31, 0 }, { &SRAI, 0x81234567, 0x400 | 8, 0xff812345 },
	{ &SRAI, 0x71234567, 0x400 | 8, 0x00712345 }, { &SRAI, 0xfedcba98, 0x400 | 0, 0xfedcba98 },
};

Test(rv32i, register_and_immediate_alu_ops)
{
	CHECK_ALU(rv32i_alu);
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

/* bXX a1, a2, +12 over "a0 = 2; j +8" to "a0 = 1": exit 1 when taken, 2 when not. */
struct branch_case {
	const char *name;
	uint32_t f3, a, b;
	bool taken;
};

static const struct branch_case branches[] = {
	/* beq, bne compare for equality */
	{ "beq", BEQ, 5, 5, 1 }, { "beq", BEQ, 5, 6, 0 }, { "beq", BEQ, 0x80000000, 0x80000000, 1 },
	{ "beq", BEQ, 0, 0xffffffff, 0 },
	{ "bne", BNE, 5, 5, 0 }, { "bne", BNE, 5, 6, 1 }, { "bne", BNE, 0x80000000, 0x80000000, 0 },
	{ "bne", BNE, 0, 0xffffffff, 1 },
	/* blt, bge compare signed */
	{ "blt", BLT, 1, 2, 1 }, { "blt", BLT, 2, 1, 0 }, { "blt", BLT, 0xffffffff, 0, 1 },
	{ "blt", BLT, 0, 0xffffffff, 0 }, { "blt", BLT, 0x80000000, 0x7fffffff, 1 }, { "blt", BLT, 5, 5, 0 },
	{ "bge", BGE, 1, 2, 0 }, { "bge", BGE, 2, 1, 1 }, { "bge", BGE, 0xffffffff, 0, 0 },
	{ "bge", BGE, 0, 0xffffffff, 1 }, { "bge", BGE, 0x7fffffff, 0x80000000, 1 }, { "bge", BGE, 5, 5, 1 },
	/* bltu, bgeu compare unsigned */
	{ "bltu", BLTU, 1, 2, 1 }, { "bltu", BLTU, 2, 1, 0 }, { "bltu", BLTU, 0xffffffff, 0, 0 },
	{ "bltu", BLTU, 0, 0xffffffff, 1 }, { "bltu", BLTU, 0x80000000, 0x7fffffff, 0 },
	{ "bltu", BLTU, 5, 5, 0 },
	{ "bgeu", BGEU, 1, 2, 0 }, { "bgeu", BGEU, 2, 1, 1 }, { "bgeu", BGEU, 0xffffffff, 0, 1 },
	{ "bgeu", BGEU, 0, 0xffffffff, 0 }, { "bgeu", BGEU, 0x80000000, 0x7fffffff, 1 },
	{ "bgeu", BGEU, 5, 5, 1 },
};

Test(rv32i, conditional_branches_compare_as_the_spec_says)
{
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(branches); k++) {
		const struct branch_case *c = &branches[k];
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A1, c->a);
		emit_li(&p, A2, c->b);
		emit(&p, enc_b(12, A2, A1, c->f3));
		emit(&p, addi(A0, X0, 2));
		emit(&p, jal(X0, 8));
		emit(&p, addi(A0, X0, 1));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, c->taken ? 1u : 2u, "branches[%zu]: %s 0x%08x, 0x%08x: %s, expected %s", k, c->name,
			     c->a, c->b, got == 1 ? "taken" : got == 2 ? "not taken" : "neither",
			     c->taken ? "taken" : "not taken");
	}
	bh_device_close(dev);
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

/* Bytes at DATA: 81 7f 34 92 78 56 34 12. lb/lh sign-extend, lbu/lhu zero-extend; the offset is
 * added to the base, negative offsets included. */
static const uint32_t load_data[2] = { 0x92347f81, 0x12345678 };

struct load_case {
	const char *name;
	uint32_t f3, base;
	int32_t off;
	uint32_t want;
};

static const struct load_case loads[] = {
	{ "lb", W_B, DATA, 0, 0xffffff81 }, { "lb", W_B, DATA, 1, 0x0000007f },
	{ "lb", W_B, DATA, 3, 0xffffff92 },
	{ "lbu", W_BU, DATA, 0, 0x00000081 }, { "lbu", W_BU, DATA, 1, 0x0000007f },
	{ "lbu", W_BU, DATA, 3, 0x00000092 },
	{ "lh", W_H, DATA, 0, 0x00007f81 }, { "lh", W_H, DATA, 2, 0xffff9234 },
	{ "lh", W_H, DATA, 6, 0x00001234 },
	{ "lhu", W_HU, DATA, 0, 0x00007f81 }, { "lhu", W_HU, DATA, 2, 0x00009234 },
	{ "lw", W_W, DATA, 0, 0x92347f81 }, { "lw", W_W, DATA, 4, 0x12345678 },
	/* negative offsets */
	{ "lw", W_W, DATA + 8, -8, 0x92347f81 }, { "lw", W_W, DATA + 8, -4, 0x12345678 },
	{ "lb", W_B, DATA + 8, -8, 0xffffff81 },
	{ "lhu", W_HU, DATA + 8, -6, 0x00009234 },
	{ "lbu", W_BU, DATA + 8, -1, 0x00000012 },
};

Test(rv32i, loads_extend_and_add_signed_offsets)
{
	struct bh_device *dev = t_open();
	l1_put(dev, DATA, load_data, 2);
	for (size_t k = 0; k < N(loads); k++) {
		const struct load_case *c = &loads[k];
		struct prog p;
		snippet_begin(&p);
		emit_li(&p, A1, c->base);
		emit(&p, load(c->f3, A0, c->off, A1));
		uint32_t got = snippet_run(dev, &p);
		cr_expect_eq(got, c->want, "loads[%zu]: %s %d(0x%x) = 0x%08x, expected 0x%08x", k, c->name, c->off,
			     c->base, got, c->want);
	}
	bh_device_close(dev);
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

static const struct alu_case rv32m_alu[] = {
	/* mul returns the low 32 bits */
	{ &MUL, 3, 7, 21 }, { &MUL, 0xffffffff, 0xffffffff, 1 }, { &MUL, 0x80000000, 0xffffffff, 0x80000000 },
	{ &MUL, 0x12345678, 0x10, 0x23456780 }, { &MUL, 0x00010000, 0x00010000, 0 },
	{ &MUL, 0xfffffffe, 3, 0xfffffffa }, { &MUL, 0x7fffffff, 0x7fffffff, 1 },
	/* mulh: high word of signed x signed */
	{ &MULH, 0x7fffffff, 0x7fffffff, 0x3fffffff },   /* 2^62 - 2^32 + 1 */
	{ &MULH, 0x80000000, 0x80000000, 0x40000000 },   /* 2^62 */
	{ &MULH, 0x80000000, 0x7fffffff, 0xc0000000 },   /* -2^62 + 2^31 */
	{ &MULH, 0xffffffff, 0xffffffff, 0 },            /* (-1)(-1) = 1 */
	{ &MULH, 0xffffffff, 1, 0xffffffff },            /* -1 */
	{ &MULH, 0x00010000, 0x00010000, 1 },            /* 2^32 */
	{ &MULH, 0x80000000, 0xffffffff, 0 },            /* 2^31 */
	{ &MULH, 0xfffffffe, 0x00010000, 0xffffffff },   /* -2^17 */
	/* mulhsu: high word of signed rs1 x unsigned rs2 */
	{ &MULHSU, 0xffffffff, 0xffffffff, 0xffffffff },   /* -1 * (2^32 - 1) = 0xffffffff_00000001 */
	{ &MULHSU, 0x80000000, 0xffffffff, 0x80000000 },   /* -2^31 * (2^32 - 1) = 0x80000000_80000000 */
	{ &MULHSU, 0x7fffffff, 0xffffffff, 0x7ffffffe },   /* 0x7ffffffe_80000001 */
	{ &MULHSU, 0xffffffff, 1, 0xffffffff },
	{ &MULHSU, 2, 0x80000000, 1 },                     /* 2^32: rs2 is not negative */
	{ &MULHSU, 0xfffffffe, 0x80000000, 0xffffffff },   /* -2^32 */
	{ &MULHSU, 0, 0xffffffff, 0 },
	/* mulhu: high word of unsigned x unsigned */
	{ &MULHU, 0xffffffff, 0xffffffff, 0xfffffffe },    /* 2^64 - 2^33 + 1 */
	{ &MULHU, 0x80000000, 2, 1 }, { &MULHU, 0xffffffff, 1, 0 },
	{ &MULHU, 0x80000000, 0x80000000, 0x40000000 }, { &MULHU, 0xffffffff, 2, 1 },
	{ &MULHU, 0x12345678, 0x9abcdef0, 0x0b00ea4e },
	/* div rounds toward zero */
	{ &DIV, 7, 2, 3 },
	{ &DIV, 0xfffffff9, 2, 0xfffffffd },               /* -7 / 2 = -3 */
	{ &DIV, 7, 0xfffffffe, 0xfffffffd },               /* 7 / -2 = -3 */
	{ &DIV, 0xfffffff9, 0xfffffffe, 3 },               /* -7 / -2 = 3 */
	{ &DIV, 0x80000000, 1, 0x80000000 }, { &DIV, 0x7fffffff, 0xffffffff, 0x80000001 }, { &DIV, 1, 2, 0 },
	/* div by zero returns all ones */
	{ &DIV, 1, 0, 0xffffffff }, { &DIV, 0, 0, 0xffffffff }, { &DIV, 0x80000000, 0, 0xffffffff },
	{ &DIV, 0xfffffff9, 0, 0xffffffff },
	/* div overflow: INT_MIN / -1 returns INT_MIN */
	{ &DIV, 0x80000000, 0xffffffff, 0x80000000 },
	/* divu divides unsigned; by zero it returns all ones */
	{ &DIVU, 7, 2, 3 }, { &DIVU, 0xffffffff, 2, 0x7fffffff }, { &DIVU, 0x80000000, 0xffffffff, 0 },
	{ &DIVU, 0xfffffffe, 0xfffffff0, 1 }, { &DIVU, 0xfffffff9, 7, 0x24924923 }, { &DIVU, 0, 0, 0xffffffff },
	{ &DIVU, 1, 0, 0xffffffff }, { &DIVU, 0xffffffff, 0, 0xffffffff },
	/* rem takes the sign of the dividend */
	{ &REM, 7, 2, 1 },
	{ &REM, 0xfffffff9, 2, 0xffffffff },               /* -7 % 2 = -1 */
	{ &REM, 7, 0xfffffffe, 1 },                        /* 7 % -2 = 1 */
	{ &REM, 0xfffffff9, 0xfffffffe, 0xffffffff },      /* -7 % -2 = -1 */
	{ &REM, 0x80000000, 2, 0 }, { &REM, 0x80000001, 2, 0xffffffff },
	/* rem by zero returns the dividend */
	{ &REM, 5, 0, 5 }, { &REM, 0xfffffff9, 0, 0xfffffff9 }, { &REM, 0x80000000, 0, 0x80000000 },
	{ &REM, 0, 0, 0 },
	/* rem overflow: INT_MIN % -1 returns 0 */
	{ &REM, 0x80000000, 0xffffffff, 0 },
	/* remu divides unsigned; by zero it returns the dividend */
	{ &REMU, 7, 2, 1 }, { &REMU, 0xffffffff, 2, 1 }, { &REMU, 0x80000000, 0xffffffff, 0x80000000 },
	{ &REMU, 0xfffffff9, 0xfffffffe, 0xfffffff9 },
	{ &REMU, 0xfffffff9, 7, 4 },                       /* 0xfffffff9 = 7 * 0x24924923 + 4 */
	{ &REMU, 100, 7, 2 }, { &REMU, 5, 0, 5 }, { &REMU, 0xffffffff, 0, 0xffffffff }, { &REMU, 0, 0, 0 },
};

Test(rv32m, multiply_and_divide)
{
	CHECK_ALU(rv32m_alu);
}

/* ---------------------------------------------------------------------------------------------
 * Zicsr, on the free scratch CSRs 0x7C3-0x7C6 and cfg0 0x7C0. Each case is a short program on a
 * fresh device (CSRs at their reset values): its steps are li a1, a CSR instruction, fence, or a
 * save of a register to the next result slot at DATA; slot k must then hold want[k].
 */

#define CSR_CFG0 0x7C0u
#define CSR_S0 0x7C3u
#define CSR_S1 0x7C4u
#define CSR_S2 0x7C5u
#define CSR_S3 0x7C6u

enum { STEP_END, STEP_LI, STEP_CSR, STEP_FENCE, STEP_SAVE };

struct csr_step {
	uint8_t kind;
	uint8_t f3, rd;
	uint8_t rs1;                    /* register, or the 5-bit immediate of the *I forms */
	uint32_t csr_or_value;          /* the CSR (STEP_CSR), the value for a1 (STEP_LI) */
};

#define LI_A1(v) { STEP_LI, 0, 0, 0, v }
#define CSR(f3, rd, csr, rs1) { STEP_CSR, f3, rd, rs1, csr }
#define FENCE { STEP_FENCE, 0, 0, 0, 0 }
#define SAVE(r) { STEP_SAVE, 0, r, 0, 0 }

struct csr_case {
	const char *name;
	struct csr_step step[16];
	uint32_t want[4];               /* one per SAVE step */
};

static const struct csr_case csr_cases[] = {
	{ "csrrw returns the old value and writes rs1",
	  { LI_A1(0xa5a5a5a5), CSR(F3_CSRRW, A2, CSR_S0, A1), SAVE(A2),     /* old: 0 after reset */
	    LI_A1(0x12345678), CSR(F3_CSRRW, A2, CSR_S0, A1), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S0, X0), SAVE(A2),                         /* csrr */
	    CSR(F3_CSRRW, A1, CSR_S0, A1), SAVE(A1) },                       /* rd = rs1: write old a1 */
	  { 0, 0xa5a5a5a5, 0x12345678, 0x12345678 } },
	{ "csrrw with rd x0 still writes",
	  { LI_A1(0x0badcafe), CSR(F3_CSRRW, X0, CSR_S1, A1),                /* csrw */
	    CSR(F3_CSRRS, A2, CSR_S1, X0), SAVE(A2), SAVE(X0) },
	  { 0x0badcafe, 0 } },
	{ "csrrs sets bits and returns the old value",
	  { LI_A1(0x0000f0f0), CSR(F3_CSRRW, X0, CSR_S1, A1),
	    LI_A1(0x0f00000f), CSR(F3_CSRRS, A2, CSR_S1, A1), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S1, X0), SAVE(A2) },
	  { 0x0000f0f0, 0x0f00f0ff } },
	{ "csrrc clears bits and returns the old value",
	  { LI_A1(0xffffffff), CSR(F3_CSRRW, X0, CSR_S2, A1),
	    LI_A1(0x0000ff00), CSR(F3_CSRRC, A2, CSR_S2, A1), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S2, X0), SAVE(A2) },
	  { 0xffffffff, 0xffff00ff } },
	{ "csrrs and csrrc with rs1 x0 leave the CSR unchanged",
	  { LI_A1(0x13572468), CSR(F3_CSRRW, X0, CSR_S3, A1),
	    CSR(F3_CSRRS, A2, CSR_S3, X0), SAVE(A2),
	    CSR(F3_CSRRC, A2, CSR_S3, X0), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S3, X0), SAVE(A2) },
	  { 0x13572468, 0x13572468, 0x13572468 } },
	/* rs1 = x0 means "no write": on the read-only mstatus, misa and mhartid these must not fault. */
	{ "csrrs, csrrc, csrrsi, csrrci without a write read read-only CSRs",
	  { CSR(F3_CSRRS, A2, 0x300, X0), SAVE(A2),
	    CSR(F3_CSRRC, A2, 0x301, X0), SAVE(A2),
	    CSR(F3_CSRRSI, A2, 0xF14, 0), SAVE(A2),
	    CSR(F3_CSRRCI, A2, 0x300, 0), SAVE(A2) },
	  { 0x80006600, 0x40201123, 0, 0x80006600 } },
	{ "csrrwi writes the zero-extended 5-bit immediate",
	  { LI_A1(0xffffffff), CSR(F3_CSRRW, X0, CSR_S3, A1),
	    CSR(F3_CSRRWI, A2, CSR_S3, 31), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S3, X0), SAVE(A2),
	    CSR(F3_CSRRWI, A2, CSR_S3, 0), SAVE(A2),                          /* always writes, even 0 */
	    CSR(F3_CSRRS, A2, CSR_S3, X0), SAVE(A2) },
	  { 0xffffffff, 31, 31, 0 } },
	{ "csrrsi and csrrci set and clear the immediate bits",
	  { LI_A1(0x100), CSR(F3_CSRRW, X0, CSR_S0, A1),
	    CSR(F3_CSRRSI, A2, CSR_S0, 0x15), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S0, X0), SAVE(A2),
	    LI_A1(0xfff), CSR(F3_CSRRW, X0, CSR_S0, A1),
	    CSR(F3_CSRRCI, A2, CSR_S0, 0x1f), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S0, X0), SAVE(A2) },
	  { 0x100, 0x115, 0xfff, 0xfe0 } },
	{ "the scratch CSRs are independent",
	  { LI_A1(0x11111111), CSR(F3_CSRRW, X0, CSR_S0, A1),
	    LI_A1(0x22222222), CSR(F3_CSRRW, X0, CSR_S1, A1),
	    LI_A1(0x33333333), CSR(F3_CSRRW, X0, CSR_S2, A1),
	    LI_A1(0x44444444), CSR(F3_CSRRW, X0, CSR_S3, A1),
	    CSR(F3_CSRRS, A2, CSR_S0, X0), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S1, X0), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S2, X0), SAVE(A2),
	    CSR(F3_CSRRS, A2, CSR_S3, X0), SAVE(A2) },
	  { 0x11111111, 0x22222222, 0x33333333, 0x44444444 } },
	/* riscv-cores.md 3: cfg0 resets to StMergeTimer = 16 (bits 13..17) and is plain R/W; the p100a
	 * prologue csrs 2; csrs 1 << 18; csrc 2; csrs 8 leaves 0x20000 | 0x40000 | 8. */
	{ "cfg0 resets to StMergeTimer 16 and follows the firmware prologue",
	  { CSR(F3_CSRRS, A2, CSR_CFG0, X0), SAVE(A2),
	    CSR(F3_CSRRSI, X0, CSR_CFG0, 2), FENCE,
	    LI_A1(1u << 18), CSR(F3_CSRRS, X0, CSR_CFG0, A1),
	    CSR(F3_CSRRCI, X0, CSR_CFG0, 2),
	    CSR(F3_CSRRSI, X0, CSR_CFG0, 8),
	    CSR(F3_CSRRS, A2, CSR_CFG0, X0), SAVE(A2) },
	  { 0x00020000, 0x00060008 } },
};

/* Builds the case's program (s0 = DATA) and returns the number of result slots it saves. */
static unsigned csr_case_build(const struct csr_case *c, struct prog *p)
{
	unsigned slots = 0;
	snippet_begin(p);
	emit_li(p, S0, DATA);
	for (const struct csr_step *s = c->step; s < c->step + N(c->step) && s->kind != STEP_END; s++) {
		switch (s->kind) {
		case STEP_LI:
			emit_li(p, A1, s->csr_or_value);
			break;
		case STEP_CSR:
			emit(p, csr_op(s->f3, s->rd, s->csr_or_value, s->rs1));
			break;
		case STEP_FENCE:
			emit(p, INSN_FENCE);
			break;
		case STEP_SAVE:
			emit(p, sw(s->rd, (int32_t)(4 * slots++), S0));
			break;
		}
	}
	return slots;
}

Test(zicsr, csr_instructions_read_old_value_and_write_set_or_clear)
{
	static const uint32_t poison[4] = { 0xdead0000, 0xdead0001, 0xdead0002, 0xdead0003 };
	for (size_t k = 0; k < N(csr_cases); k++) {
		const struct csr_case *c = &csr_cases[k];
		struct prog p;
		unsigned slots = csr_case_build(c, &p);
		cr_assert_leq(slots, N(c->want), "csr_cases[%zu] %s: too many saves", k, c->name);
		struct bh_device *dev = t_open();
		l1_put(dev, DATA, poison, N(poison));
		snippet_run(dev, &p);
		for (unsigned j = 0; j < slots; j++) {
			uint32_t got = l1_get(dev, DATA + 4 * j);
			cr_expect_eq(got, c->want[j], "csr_cases[%zu] %s: result %u = 0x%08x, expected 0x%08x", k,
				     c->name, j, got, c->want[j]);
		}
		bh_device_close(dev);
	}
}

/* ---------------------------------------------------------------------------------------------
 * Zba.
 */

static const struct alu_case zba_alu[] = {
	/* shNadd adds rs1 shifted left by N to rs2 */
	{ &SH1ADD, 1, 2, 4 }, { &SH1ADD, 0x80000000, 5, 5 }, { &SH1ADD, 0xffffffff, 0, 0xfffffffe },
	{ &SH1ADD, 3, 0xffffffff, 5 },
	{ &SH2ADD, 1, 2, 6 }, { &SH2ADD, 0x40000000, 1, 1 }, { &SH2ADD, 0xffffffff, 4, 0 },
	{ &SH2ADD, 0x12345678, 0x10, 0x48d159f0 },
	{ &SH3ADD, 1, 2, 10 }, { &SH3ADD, 0x20000000, 7, 7 }, { &SH3ADD, 0x12345678, 0, 0x91a2b3c0 },
	{ &SH3ADD, 0xffffffff, 8, 0 },
};

Test(zba, shift_and_add)
{
	CHECK_ALU(zba_alu);
}

/* ---------------------------------------------------------------------------------------------
 * Zbb.
 */

static const struct alu_case zbb_alu[] = {
	/* andn, orn, xnor invert rs2 */
	{ &ANDN, 0xff00ff00, 0x0ff00ff0, 0xf000f000 }, { &ANDN, 0xffffffff, 0, 0xffffffff },
	{ &ANDN, 0x12345678, 0xffffffff, 0 },
	{ &ORN, 0xff00ff00, 0x0ff00ff0, 0xff0fff0f }, { &ORN, 0, 0, 0xffffffff },
	{ &ORN, 0x12345678, 0xffffffff, 0x12345678 },
	{ &XNOR, 0xff00ff00, 0x0ff00ff0, 0x0f0f0f0f }, { &XNOR, 0x12345678, 0x12345678, 0xffffffff },
	{ &XNOR, 0, 0xffffffff, 0 },
	/* clz, ctz count leading and trailing zeros, 32 for zero; cpop counts set bits */
	{ &CLZ, 0, .want = 32 }, { &CLZ, 1, .want = 31 }, { &CLZ, 0x80000000, .want = 0 },
	{ &CLZ, 0x00010000, .want = 15 }, { &CLZ, 0x0000ffff, .want = 16 }, { &CLZ, 0xffffffff, .want = 0 },
	{ &CLZ, 0x7fffffff, .want = 1 },
	{ &CTZ, 0, .want = 32 }, { &CTZ, 1, .want = 0 }, { &CTZ, 0x80000000, .want = 31 },
	{ &CTZ, 0x00010000, .want = 16 }, { &CTZ, 0xfffffff0, .want = 4 }, { &CTZ, 0xffffffff, .want = 0 },
	{ &CPOP, 0, .want = 0 }, { &CPOP, 0xffffffff, .want = 32 }, { &CPOP, 0x80000001, .want = 2 },
	{ &CPOP, 0x12345678, .want = 13 }, { &CPOP, 0xaaaaaaaa, .want = 16 },
	/* sext.b, sext.h sign-extend the low byte and half; zext.h zero-extends the low half */
	{ &SEXT_B, 0x7f, .want = 0x7f }, { &SEXT_B, 0x80, .want = 0xffffff80 },
	{ &SEXT_B, 0x12345678, .want = 0x78 }, { &SEXT_B, 0xffffff00, .want = 0 },
	{ &SEXT_B, 0xff, .want = 0xffffffff },
	{ &SEXT_H, 0x7fff, .want = 0x7fff }, { &SEXT_H, 0x8000, .want = 0xffff8000 },
	{ &SEXT_H, 0x12345678, .want = 0x5678 }, { &SEXT_H, 0xffff0000, .want = 0 },
	{ &SEXT_H, 0x1234abcd, .want = 0xffffabcd },
	{ &ZEXT_H, 0x12345678, .want = 0x5678 }, { &ZEXT_H, 0xffffffff, .want = 0xffff },
	{ &ZEXT_H, 0xffff0000, .want = 0 }, { &ZEXT_H, 0x8000, .want = 0x8000 },
	/* max, min compare signed; maxu, minu unsigned */
	{ &MAX, 1, 2, 2 }, { &MAX, 0xffffffff, 0, 0 }, { &MAX, 0x80000000, 0x7fffffff, 0x7fffffff },
	{ &MAX, 5, 5, 5 }, { &MAX, 0xfffffffe, 0xffffffff, 0xffffffff },
	{ &MIN, 1, 2, 1 }, { &MIN, 0xffffffff, 0, 0xffffffff }, { &MIN, 0x80000000, 0x7fffffff, 0x80000000 },
	{ &MIN, 5, 5, 5 }, { &MIN, 0xfffffffe, 0xffffffff, 0xfffffffe },
	{ &MAXU, 1, 2, 2 }, { &MAXU, 0xffffffff, 0, 0xffffffff }, { &MAXU, 0x80000000, 0x7fffffff, 0x80000000 },
	{ &MAXU, 5, 5, 5 },
	{ &MINU, 1, 2, 1 }, { &MINU, 0xffffffff, 0, 0 }, { &MINU, 0x80000000, 0x7fffffff, 0x7fffffff },
	{ &MINU, 5, 5, 5 },
	/* rol, ror rotate by the low five bits of rs2; rori by the immediate (imm[11:5] = 0110000) */
	{ &ROL, 0x12345678, 4, 0x23456781 }, { &ROL, 0x80000000, 1, 1 }, { &ROL, 0x12345678, 0, 0x12345678 },
	{ &ROL, 0x12345678, 36, 0x23456781 }, { &ROL, 0x12345678, 32, 0x12345678 },
	{ &ROL, 1, 0xffffffff, 0x80000000 },
	{ &ROR, 0x12345678, 4, 0x81234567 }, { &ROR, 1, 1, 0x80000000 }, { &ROR, 0x12345678, 32, 0x12345678 },
	{ &ROR, 0x12345678, 0xffffffe4, 0x81234567 }, { &ROR, 0x80000000, 31, 1 },
	{ &RORI, 0x12345678, 0x600 | 4, 0x81234567 }, { &RORI, 0x12345678, 0x600 | 0, 0x12345678 },
	{ &RORI, 1, 0x600 | 31, 2 }, { &RORI, 0x80000001, 0x600 | 1, 0xc0000000 },
	{ &RORI, 0x12345678, 0x600 | 16, 0x56781234 },
	/* orc.b sets each non-zero byte to 0xff; rev8 reverses the byte order */
	{ &ORC_B, 0, .want = 0 }, { &ORC_B, 0x00010000, .want = 0x00ff0000 },
	{ &ORC_B, 0x01008000, .want = 0xff00ff00 }, { &ORC_B, 0x12345678, .want = 0xffffffff },
	{ &ORC_B, 0x00000100, .want = 0x0000ff00 }, { &ORC_B, 0x80000000, .want = 0xff000000 },
	{ &REV8, 0x12345678, .want = 0x78563412 }, { &REV8, 0x000000ff, .want = 0xff000000 },
	{ &REV8, 0, .want = 0 }, { &REV8, 0x01020304, .want = 0x04030201 },
};

Test(zbb, basic_bit_manipulation)
{
	CHECK_ALU(zbb_alu);
}

/* ---------------------------------------------------------------------------------------------
 * Zbkb subset: pack joins the low halves of rs1 and rs2, brev8 reverses the bits of each byte.
 */

static const struct alu_case zbkb_alu[] = {
	{ &PACK, 0x12345678, 0x9abcdef0, 0xdef05678 },
	{ &PACK, 0xffffffff, 0, 0x0000ffff },         /* rs2 = a2 holding 0: same as zext.h */
	{ &PACK, 0, 0x0000ffff, 0xffff0000 }, { &PACK, 0xabcd1234, 0x5678abcd, 0xabcd1234 },
	{ &BREV8, 0x00000001, .want = 0x00000080 }, { &BREV8, 0x12345678, .want = 0x482c6a1e },
	{ &BREV8, 0xffffffff, .want = 0xffffffff }, { &BREV8, 0x80402010, .want = 0x01020408 },
	{ &BREV8, 0x0f000000, .want = 0xf0000000 },
};

Test(zbkb, pack_and_brev8)
{
	CHECK_ALU(zbkb_alu);
}

/* ---------------------------------------------------------------------------------------------
 * Zaamo: amoXXX.w a0, a2, (a1) with a1 = DATA. a0 gets the old word, memory the result.
 */

struct amo_case {
	const char *name;
	uint32_t f5, mem, src, want_mem;
};

static const struct amo_case amos[] = {
	/* amoadd adds */
	{ "amoadd.w", 0x00, 5, 3, 8 }, { "amoadd.w", 0x00, 0xffffffff, 1, 0 },
	{ "amoadd.w", 0x00, 0x7fffffff, 1, 0x80000000 }, { "amoadd.w", 0x00, 0x12345678, 0xedcba988, 0 },
	/* amoswap stores rs2 */
	{ "amoswap.w", 0x01, 0x12345678, 0xdeadbeef, 0xdeadbeef },
	{ "amoswap.w", 0x01, 0, 0xffffffff, 0xffffffff },
	/* amoxor, amoor, amoand are bitwise */
	{ "amoxor.w", 0x04, 0xff00ff00, 0x0ff00ff0, 0xf0f0f0f0 },
	{ "amoxor.w", 0x04, 0xffffffff, 0xffffffff, 0 },
	{ "amoor.w", 0x08, 0xff00ff00, 0x0ff00ff0, 0xfff0fff0 }, { "amoor.w", 0x08, 0, 0, 0 },
	{ "amoand.w", 0x0c, 0xff00ff00, 0x0ff00ff0, 0x0f000f00 },
	{ "amoand.w", 0x0c, 0xffffffff, 0x80000001, 0x80000001 },
	/* amomin, amomax compare signed */
	{ "amomin.w", 0x10, 5, 3, 3 }, { "amomin.w", 0x10, 3, 5, 3 },
	{ "amomin.w", 0x10, 0xffffffff, 1, 0xffffffff }, { "amomin.w", 0x10, 1, 0xffffffff, 0xffffffff },
	{ "amomin.w", 0x10, 0x80000000, 0x7fffffff, 0x80000000 },
	{ "amomin.w", 0x10, 0x7fffffff, 0x80000000, 0x80000000 },
	{ "amomax.w", 0x14, 5, 3, 5 }, { "amomax.w", 0x14, 3, 5, 5 }, { "amomax.w", 0x14, 0xffffffff, 1, 1 },
	{ "amomax.w", 0x14, 1, 0xffffffff, 1 }, { "amomax.w", 0x14, 0x80000000, 0x7fffffff, 0x7fffffff },
	{ "amomax.w", 0x14, 0x7fffffff, 0x80000000, 0x7fffffff },
	/* amominu, amomaxu compare unsigned */
	{ "amominu.w", 0x18, 0xffffffff, 1, 1 }, { "amominu.w", 0x18, 1, 0xffffffff, 1 },
	{ "amominu.w", 0x18, 0x80000000, 0x7fffffff, 0x7fffffff }, { "amominu.w", 0x18, 5, 5, 5 },
	{ "amomaxu.w", 0x1c, 0xffffffff, 1, 0xffffffff }, { "amomaxu.w", 0x1c, 1, 0xffffffff, 0xffffffff },
	{ "amomaxu.w", 0x1c, 0x80000000, 0x7fffffff, 0x80000000 }, { "amomaxu.w", 0x1c, 5, 5, 5 },
};

Test(zaamo, amos_return_the_old_word_and_store_the_result)
{
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(amos); k++) {
		const struct amo_case *c = &amos[k];
		struct prog p;
		l1_put(dev, DATA, &c->mem, 1);
		snippet_begin(&p);
		emit_li(&p, A1, DATA);
		emit_li(&p, A2, c->src);
		emit(&p, amo(c->f5, A0, A2, A1, (unsigned)k & 3));   /* aq/rl vary: ignored */
		uint32_t old = snippet_run(dev, &p), mem = l1_get(dev, DATA);
		cr_expect_eq(old, c->mem, "amos[%zu]: %s mem 0x%08x src 0x%08x: rd = 0x%08x, expected the old word", k,
			     c->name, c->mem, c->src, old);
		cr_expect_eq(mem, c->want_mem, "amos[%zu]: %s mem 0x%08x src 0x%08x: memory 0x%08x, expected 0x%08x", k,
			     c->name, c->mem, c->src, mem, c->want_mem);
	}
	bh_device_close(dev);
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
