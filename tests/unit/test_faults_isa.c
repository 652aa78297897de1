/* What the baby RISC-V cores refuse, and how they say so (riscv-cores.md 1-3): encodings that do
 * not exist on Blackhole, ebreak/ecall, CSR access rules, .ttinsn per core kind, bad jump targets
 * and bad AMO addresses. Every fault must stop the core with BH_RUN_FAULTED and a report that
 * names the core, the pc ("pc 0x%08x"), the kind of fault and what was wrong.
 *
 * Also the CSRs that must *not* fault: the read-only constants on every core, the counters and
 * cfg0. */
#include <criterion/criterion.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "testlib.h"

#define CODE 0x1000u
#define DATA 0x8000u
#define L1_END 0x180000u     /* 1.5 MiB */

/* Run one word at CODE + 4 (after a nop) on `core` and expect it to fault there. */
static void expect_word_faults(struct bh_device *dev, enum bh_core_id core, uint32_t addr, uint32_t word,
			       const char *kind, const char *phrase)
{
	struct prog p = { 0 };
	struct bh_core_result res;
	char buf[64];
	emit(&p, INSN_NOP);
	emit(&p, word);
	emit_exit(&p);
	run_prog(dev, core, addr, &p, &res);
	expect_fault(&res, core, addr + 4, kind, phrase);
	snprintf(buf, sizeof buf, "pc 0x%08x: %08x", addr + 4, word);   /* the instruction word itself */
	expect_in_report(&res, buf);
	cr_expect_eq(res.instructions, 1, "word 0x%08x: the faulting instruction must not retire (%llu retired)",
		     word, (unsigned long long)res.instructions);
}

/* li a1, a1_value, then the word (at CODE + 8) on BRISC: it must fault. */
static void expect_word_after_li_a1_faults(struct bh_device *dev, uint32_t a1_value, uint32_t word, const char *kind,
					   const char *phrase)
{
	struct prog p = { 0 };
	struct bh_core_result res;
	emit_li(&p, A1, a1_value);
	emit(&p, word);
	emit_exit(&p);
	run_prog(dev, BH_CORE_BRISC, CODE, &p, &res);
	expect_fault(&res, BH_CORE_BRISC, CODE + 8, kind, phrase);
}

TestSuite(isa_faults, .timeout = 30);
TestSuite(csr_faults, .timeout = 30);
TestSuite(csr_values, .timeout = 30);
TestSuite(ttinsn, .timeout = 30);
TestSuite(jump_faults, .timeout = 30);
TestSuite(mem_faults, .timeout = 30);

/* ---------------------------------------------------------------------------------------------
 * Instructions that do not exist on Blackhole.
 */

Test(isa_faults, lr_sc_fence_i_wfi_mret_fault_naming_the_instruction)
{
	static const struct {
		uint32_t word;
		const char *phrase;
	} v[] = {
		{ 0x1005a52f, "lr.w: LR/SC do not exist on Blackhole" },    /* lr.w a0, (a1) */
		{ 0x1605a52f, "lr.w: LR/SC do not exist on Blackhole" },    /* lr.w.aqrl a0, (a1) */
		{ 0x18c5a52f, "sc.w: LR/SC do not exist on Blackhole" },    /* sc.w a0, a2, (a1) */
		{ 0x0000100f, "fence.i: fence.i does not flush the I-cache" },
		{ 0x10500073, "wfi: wfi is not modelled" },
		{ 0x30200073, "mret: mret is not modelled" },
	};
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++)
		expect_word_faults(dev, BH_CORE_BRISC, CODE, v[k].word, "illegal instruction", v[k].phrase);
	bh_device_close(dev);
}

Test(isa_faults, undecodable_words_fault_as_illegal_instruction)
{
	static const uint32_t words[] = {
		0xffffffff,    /* all ones */
		0x0000000b,    /* custom-0: an opcode nothing uses */
		0x00000057,    /* OP-V: vectors are not decoded */
		0x02051513,    /* slli a0, a0, 32: shamt[5] is reserved on RV32 */
		0x42055513,    /* srai a0, a0, 32 */
		0x62055513,    /* rori a0, a0, 32 */
		0x60351513,    /* Zbb unary with rs2 field 3: unassigned */
		0x0005b503,    /* ld (RV64) */
		0x00c5b52f,    /* amoadd.d (RV64) */
		0x06c58533,    /* OP with funct7 = 3: unassigned */
		0x00004073,    /* SYSTEM funct3 = 4: unassigned */
		0x10200073,    /* sret: no supervisor mode */
		0x00200073,    /* uret / reserved SYSTEM word */
	};
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(words); k++) {
		char phrase[64];
		snprintf(phrase, sizeof phrase, "illegal instruction 0x%08x", words[k]);
		expect_word_faults(dev, BH_CORE_BRISC, CODE, words[k], "illegal instruction", phrase);
	}
	bh_device_close(dev);
}

Test(isa_faults, illegal_instruction_faults_on_every_core)
{
	struct bh_device *dev = t_open();
	for (unsigned c = 0; c < 5; c++)
		expect_word_faults(dev, (enum bh_core_id)c, 0x10000 + c * 0x1000, 0xffffffff, "illegal instruction",
				   "illegal instruction 0xffffffff");
	bh_device_close(dev);
}

Test(isa_faults, ebreak_faults_as_a_debug_pause)
{
	struct bh_device *dev = t_open();
	expect_word_faults(dev, BH_CORE_BRISC, CODE, 0x00100073, "ebreak",
			   "ebreak: the core would pause into its debug unit");
	expect_word_faults(dev, BH_CORE_TRISC2, 0x6000, 0x00100073, "ebreak",
			   "ebreak: the core would pause into its debug unit");
	bh_device_close(dev);
}

Test(isa_faults, ecall_faults_when_host_calls_are_disabled)
{
	struct bh_device *dev = t_open();
	for (unsigned c = 0; c < 5; c += 2) {
		struct prog p = { 0 };
		struct bh_core_result res;
		uint32_t addr = 0x2000 + c * 0x1000;
		bh_core_enable_host_calls(dev, 0, (enum bh_core_id)c, false);
		emit_exit(&p);                          /* li a7, 93; ecall at +8 */
		run_prog(dev, (enum bh_core_id)c, addr, &p, &res);
		expect_fault(&res, (enum bh_core_id)c, addr + 8, "ecall", "ecall a7=93: host calls are not enabled");
	}
	bh_device_close(dev);
}

Test(isa_faults, ecall_with_unknown_a7_faults_naming_the_number)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	struct bh_core_result res;
	emit_li(&p, A7, 1234);
	emit(&p, INSN_ECALL);
	run_prog(dev, BH_CORE_BRISC, CODE, &p, &res);
	expect_fault(&res, BH_CORE_BRISC, CODE + 8, "ecall", "ecall a7=1234 is not a host call");
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * CSR access faults.
 */

Test(csr_faults, unknown_csr_read_and_write_fault_naming_the_number)
{
	static const struct {
		uint32_t word;
		const char *phrase;
	} v[] = {
		{ 0x7ff02573, "read of unknown CSR 0x7ff" },    /* csrr a0, 0x7ff */
		{ 0x7ff59073, "write of unknown CSR 0x7ff" },   /* csrw 0x7ff, a1: rd = x0, so no read */
		{ 0x7ff59573, "read of unknown CSR 0x7ff" },    /* csrrw a0, 0x7ff, a1: reads first */
		{ 0x7ff0d073, "write of unknown CSR 0x7ff" },   /* csrwi 0x7ff, 1 */
		{ 0x7ff5a073, "read of unknown CSR 0x7ff" },    /* csrrs x0, 0x7ff, a1: csrrs always reads */
		{ 0x7ff07073, "read of unknown CSR 0x7ff" },    /* csrrci x0, 0x7ff, 0 */
		{ 0x30502573, "read of unknown CSR 0x305" },    /* mtvec: no traps on Blackhole */
		{ 0x00002573, "read of unknown CSR 0x000" },
	};
	cr_assert_eq(0x7ff02573u, csrr(A0, 0x7ff));
	cr_assert_eq(0x7ff59073u, csrw(0x7ff, A1));
	cr_assert_eq(0x7ff59573u, csr_op(F3_CSRRW, A0, 0x7ff, A1));
	cr_assert_eq(0x7ff0d073u, csr_op(F3_CSRRWI, X0, 0x7ff, 1));
	cr_assert_eq(0x7ff5a073u, csr_op(F3_CSRRS, X0, 0x7ff, A1));
	cr_assert_eq(0x7ff07073u, csr_op(F3_CSRRCI, X0, 0x7ff, 0));
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++)
		expect_word_faults(dev, BH_CORE_BRISC, CODE, v[k].word, "CSR access", v[k].phrase);
	bh_device_close(dev);
}

Test(csr_faults, writes_to_read_only_csrs_fault)
{
	static const struct {
		uint32_t a1;       /* value in a1 */
		uint32_t word;
		const char *phrase;
	} v[] = {
		{ 0x1234, 0x30059073, "write of 0x00001234 to read-only CSR mstatus (0x300)" },   /* csrw mstatus, a1 */
		{ 0x1234, 0x30159073, "write of 0x00001234 to read-only CSR misa (0x301)" },
		{ 0x1234, 0xf1459073, "write of 0x00001234 to read-only CSR mhartid (0xf14)" },
		/* csrrs/csrrc with rs1 != x0 write even when the register holds 0 (the spec's rule) */
		{ 0, 0x3005a573, "write of 0x80006600 to read-only CSR mstatus (0x300)" },      /* csrrs a0, mstatus, a1 */
		{ 0, 0x3015b573, "write of 0x40201123 to read-only CSR misa (0x301)" },         /* csrrc a0, misa, a1 */
		{ 0, 0xf140e573, "write of 0x00000001 to read-only CSR mhartid (0xf14)" },      /* csrrsi a0, mhartid, 1 */
		{ 0, 0xbc02d073, "to read-only CSR tt_cfg_qstatus (0xbc0)" },                   /* csrwi 0xbc0, 5 */
	};
	cr_assert_eq(0x30059073u, csrw(0x300, A1));
	cr_assert_eq(0x3005a573u, csr_op(F3_CSRRS, A0, 0x300, A1));
	cr_assert_eq(0x3015b573u, csr_op(F3_CSRRC, A0, 0x301, A1));
	cr_assert_eq(0xf140e573u, csr_op(F3_CSRRSI, A0, 0xf14, 1));
	cr_assert_eq(0xbc02d073u, csr_op(F3_CSRRWI, X0, 0xbc0, 5));
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++)
		expect_word_after_li_a1_faults(dev, v[k].a1, v[k].word, "CSR access", v[k].phrase);
	bh_device_close(dev);
}

Test(csr_faults, trisc_stream_status_csrs_are_not_modelled)
{
	struct bh_device *dev = t_open();
	expect_word_faults(dev, BH_CORE_TRISC0, 0x6000, csrr(A0, 0xBC2), "not modelled",
			   "tt_cfg_sstatus0 on a TRISC reports Tensix stream status");
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * CSR values that must read back (riscv-cores.md 3).
 */

Test(csr_values, mstatus_misa_mhartid_read_constants_on_every_core)
{
	struct bh_device *dev = t_open();
	for (unsigned c = 0; c < 5; c++) {
		struct prog p = { 0 };
		uint32_t out = DATA + 16 * c;
		emit_li(&p, S0, out);
		emit(&p, csrr(A1, 0x300));
		emit(&p, csrr(A2, 0x301));
		emit(&p, csrr(A3, 0xF14));
		emit(&p, sw(A1, 0, S0));
		emit(&p, sw(A2, 4, S0));
		emit(&p, sw(A3, 8, S0));
		emit_exit(&p);
		static const uint32_t poison[3] = { 0xdeadbeef, 0xdeadbeef, 0xdeadbeef };
		l1_put(dev, out, poison, 3);
		run_to_exit(dev, (enum bh_core_id)c, 0x10000 + c * 0x1000, &p);
		cr_expect_eq(l1_get(dev, out), 0x80006600, "%s mstatus", core_names[c]);
		cr_expect_eq(l1_get(dev, out + 4), 0x40201123, "%s misa", core_names[c]);
		cr_expect_eq(l1_get(dev, out + 8), 0, "%s mhartid must be 0 on every core", core_names[c]);
	}
	bh_device_close(dev);
}

Test(csr_values, cfg0_reads_back_what_was_written)
{
	static const uint32_t values[] = { 0xffffffff, 0x0104000a, 0, 0x12345678 };
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(values); k++) {
		struct prog p = { 0 };
		emit_li(&p, A1, values[k]);
		emit(&p, csrw(0x7C0, A1));
		emit(&p, csrr(A0, 0x7C0));
		emit_exit(&p);
		uint32_t got = run_to_exit(dev, BH_CORE_NCRISC, CODE, &p);
		cr_expect_eq(got, values[k], "cfg0 wrote 0x%08x, read 0x%08x", values[k], got);
	}
	bh_device_close(dev);
}

/* Run p (which must end by exiting) on BRISC at CODE and return a0. */
static uint32_t run_exit(struct bh_device *dev, struct prog *p)
{
	emit_exit(p);
	return run_to_exit(dev, BH_CORE_BRISC, CODE, p);
}

/* csrr a1, from; n x (addi t0, t0, -1; bnez t0); csrr a2, to; run and return a2 - a1. */
static uint32_t csr_delta_over_a_loop(struct bh_device *dev, uint32_t from, uint32_t to, int32_t n)
{
	struct prog p = { 0 };
	emit(&p, csrr(A1, from));
	emit(&p, addi(T0, X0, n));
	emit(&p, addi(T0, T0, -1));             /* loop */
	emit(&p, enc_b(-4, X0, T0, BNE));
	emit(&p, csrr(A2, to));
	emit(&p, sub(A0, A2, A1));
	return run_exit(dev, &p);
}

/* A CSR read returns the value before the reading instruction executes, so the count is the
 * number of instructions retired before it (RISC-V Zicsr). */
Test(csr_values, instret_counts_instructions_retired_since_reset)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit(&p, INSN_NOP);
	emit(&p, INSN_NOP);
	emit(&p, INSN_NOP);
	emit(&p, csrr(A0, 0xC02));
	cr_expect_eq(run_exit(dev, &p), 3);
	bh_device_close(dev);
}

Test(csr_values, instret_difference_over_k_instructions_is_k_plus_one)
{
	static const unsigned ks[] = { 0, 1, 5, 100 };
	struct bh_device *dev = t_open();
	for (size_t j = 0; j < N(ks); j++) {
		struct prog p = { 0 };
		emit(&p, csrr(A1, 0xC02));
		for (unsigned k = 0; k < ks[j]; k++)
			emit(&p, INSN_NOP);
		emit(&p, csrr(A2, 0xC02));
		emit(&p, sub(A0, A2, A1));
		/* the first csrr itself retires too */
		cr_expect_eq(run_exit(dev, &p), ks[j] + 1, "k = %u", ks[j]);
	}
	bh_device_close(dev);
}

Test(csr_values, instret_counts_taken_branches_and_loop_iterations)
{
	struct bh_device *dev = t_open();
	/* csrr, addi, 10 x (addi, bne) */
	cr_expect_eq(csr_delta_over_a_loop(dev, 0xC02, 0xC02, 10), 1 + 1 + 20);
	bh_device_close(dev);
}

Test(csr_values, instret_counts_straight_line_code_across_a_page_boundary)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	struct bh_core_result res;
	const uint32_t at = 0x1ff0;             /* csrr at 0x1ff0, nops to 0x2000, csrr at 0x2004 */
	emit(&p, csrr(A1, 0xC02));
	emit(&p, INSN_NOP);
	emit(&p, INSN_NOP);
	emit(&p, INSN_NOP);
	emit(&p, INSN_NOP);
	emit(&p, csrr(A2, 0xC02));
	emit(&p, sub(A0, A2, A1));
	emit_exit(&p);
	run_prog(dev, BH_CORE_BRISC, at, &p, &res);
	cr_assert_eq(res.status, BH_RUN_EXITED, "%s", res.report);
	cr_expect_eq(res.exit_status, 5);
	cr_expect_eq(res.instructions, p.n, "every instruction including the exit ecall retires");
	bh_device_close(dev);
}

Test(csr_values, minstret_and_instret_are_the_same_counter)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit(&p, csrr(A1, 0xB02));
	emit(&p, csrr(A2, 0xC02));
	emit(&p, sub(A0, A2, A1));
	cr_expect_eq(run_exit(dev, &p), 1);

	p.n = 0;
	emit(&p, csrr(A1, 0xB82));
	emit(&p, csrr(A2, 0xC82));
	emit(&p, or(A0, A1, A2));               /* both high halves are 0 */
	cr_expect_eq(run_exit(dev, &p), 0);
	bh_device_close(dev);
}

/* RISC-V Zicsr: "If a CSR access instruction writes such a CSR, the write is done instead of the
 * increment. In particular, a value written to instret by one instruction will be the value read
 * by the following instruction." */
Test(csr_values, value_written_to_instret_is_read_by_the_next_instruction)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A1, 1000);
	emit(&p, csrw(0xB02, A1));              /* minstret = 1000 */
	emit(&p, csrr(A0, 0xC02));
	cr_expect_eq(run_exit(dev, &p), 1000, "minstret written 1000, next instret read must be 1000");

	p.n = 0;
	emit_li(&p, A1, 1000);
	emit(&p, csrw(0xC02, A1));              /* through the user alias */
	emit(&p, INSN_NOP);
	emit(&p, csrr(A0, 0xB02));
	cr_expect_eq(run_exit(dev, &p), 1001);

	p.n = 0;                                 /* no carry into the high half from the write itself */
	emit_li(&p, A1, 0xffffffff);
	emit(&p, csrw(0xB02, A1));
	emit(&p, csrr(A0, 0xB82));
	cr_expect_eq(run_exit(dev, &p), 0, "minstret = 0xffffffff must not carry into minstreth yet");
	bh_device_close(dev);
}

Test(csr_values, instreth_write_sets_the_high_half)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A1, 5);
	emit(&p, csrw(0xB82, A1));
	emit(&p, csrr(A0, 0xC82));
	cr_expect_eq(run_exit(dev, &p), 5);
	bh_device_close(dev);
}

Test(csr_values, cycle_and_mcycle_advance)
{
	struct bh_device *dev = t_open();
	uint32_t d = csr_delta_over_a_loop(dev, 0xC00, 0xC00, 1000);
	cr_expect(d > 0 && d < 0x80000000u, "cycle advanced by %u over 2000 instructions", d);
	d = csr_delta_over_a_loop(dev, 0xC00, 0xB00, 1000);   /* mcycle is the same clock */
	cr_expect(d > 0 && d < 0x80000000u, "mcycle - cycle = %u", d);
	bh_device_close(dev);
}

Test(csr_values, mcycle_write_sets_the_counter)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A1, 0x40000000);
	emit(&p, csrw(0xB00, A1));
	emit(&p, csrr(A2, 0xC00));
	emit(&p, sub(A0, A2, A1));
	double t0 = wall_seconds();
	uint32_t d = run_exit(dev, &p);
	/* At most the ticks (1.35 GHz) of the host time the whole run took. */
	double most = (wall_seconds() - t0) * 1.35e9 + 2;
	cr_expect((double)d <= most, "cycle read 0x40000000 + %u after writing 0x40000000, run took %.0f ticks", d, most);
	bh_device_close(dev);
}

Test(csr_values, sstatus_csrs_are_scratch_on_brisc_and_ncrisc)
{
	struct bh_device *dev = t_open();
	for (unsigned c = 0; c < 2; c++) {
		struct prog p = { 0 };
		emit_li(&p, A1, 0xcafe0000 + c);
		emit(&p, csrw(0xBC9, A1));
		emit(&p, csrr(A0, 0xBC9));
		emit_exit(&p);
		cr_expect_eq(run_to_exit(dev, (enum bh_core_id)c, CODE + 0x1000 * c, &p), 0xcafe0000 + c);
	}
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * .ttinsn words (low two bits != 11): a Tensix push on BRISC/TRISC, illegal on NCRISC.
 */

/* 0x74000000 = rotl(0x1D000000, 2): SETPKEDGOF, a data-plane instruction (tensix.md 10) not modelled. */
Test(ttinsn, data_plane_ttinsn_faults_as_not_modelled_on_brisc_and_triscs)
{
	static const enum bh_core_id cores[] = { BH_CORE_BRISC, BH_CORE_TRISC0, BH_CORE_TRISC1, BH_CORE_TRISC2 };
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(cores); k++)
		expect_word_faults(dev, cores[k], 0x6000 + 0x1000 * (uint32_t)k, 0x74000000, "not modelled",
				   "data-plane instruction SETPKEDGOF is not modelled yet");
	bh_device_close(dev);
}

Test(ttinsn, ttinsn_on_ncrisc_is_an_illegal_instruction)
{
	struct bh_device *dev = t_open();
	expect_word_faults(dev, BH_CORE_NCRISC, 0x12000, 0x08000000, "illegal instruction",
			   "word 0x08000000 is a .ttinsn, but NCRISC has no Tensix instruction push path");
	bh_device_close(dev);
}

Test(ttinsn, every_low_bit_pattern_but_11_is_a_ttinsn_rotated_right_by_2)
{
	static const struct {
		uint32_t word;
		const char *kind, *phrase;
	} v[] = {
		{ 0x00000001, "not modelled", "push of 0x40000000 XMOV" },
		{ 0xDC000002, "not modelled", "push of 0xb7000000 STREAMWRCFG" },
		{ 0x0a000094, "illegal instruction", "push of 0x02800025 NOP" },
	};
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++)
		expect_word_faults(dev, BH_CORE_TRISC1, 0xA000, v[k].word, v[k].kind, v[k].phrase);
	bh_device_close(dev);
}

Test(ttinsn, zero_word_is_flagged_as_running_into_zeroed_l1)
{
	struct bh_device *dev = t_open();
	expect_word_faults(dev, BH_CORE_TRISC0, 0x6000, 0x00000000, "illegal instruction",
			   "opcode 0: did a core run into zeroed L1?");
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * Bad jump targets: the jump itself is reported, with the target address.
 */

static void expect_jump_fault(struct bh_device *dev, const struct prog *p, uint32_t at, uint32_t pc,
			      uint32_t target, const char *kind, const char *phrase)
{
	struct bh_core_result res;
	char buf[64];
	run_prog(dev, BH_CORE_BRISC, at, p, &res);
	expect_fault(&res, BH_CORE_BRISC, pc, kind, phrase);
	snprintf(buf, sizeof buf, "jump to 0x%08x", target);
	expect_in_report(&res, buf);
	snprintf(buf, sizeof buf, "address: 0x%08x", target);
	expect_in_report(&res, buf);
}

Test(jump_faults, jalr_to_a_misaligned_target_faults)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A1, CODE + 0x20);
	emit(&p, jalr(X0, A1, 2));               /* at CODE + 8, to CODE + 0x22 */
	expect_jump_fault(dev, &p, CODE, CODE + 8, CODE + 0x22, "misaligned access",
			  "instructions are 4-byte aligned");
	bh_device_close(dev);
}

Test(jump_faults, branch_and_jal_to_a_halfword_target_fault)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit(&p, INSN_NOP);
	emit(&p, enc_b(6, X0, X0, BEQ));         /* beq x0, x0, +6 at CODE + 4 */
	expect_jump_fault(dev, &p, CODE, CODE + 4, CODE + 10, "misaligned access", "instructions are 4-byte aligned");

	p.n = 0;
	emit(&p, jal(X0, -2));                   /* jal x0, -2 at CODE */
	expect_jump_fault(dev, &p, CODE, CODE, CODE - 2, "misaligned access", "instructions are 4-byte aligned");
	bh_device_close(dev);
}

Test(jump_faults, jump_outside_l1_faults_with_the_target)
{
	static const uint32_t targets[] = { LDM, L1_END, 0xfffffffc };
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(targets); k++) {
		struct prog p = { 0 };
		emit_li(&p, A1, targets[k]);
		emit(&p, jalr(RA, A1, 0));
		expect_jump_fault(dev, &p, CODE, CODE + 8, targets[k], "instruction fetch outside L1",
				  "instructions can only be fetched from L1");
	}
	bh_device_close(dev);
}

Test(jump_faults, running_off_the_end_of_l1_faults_at_the_last_word)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit(&p, INSN_NOP);
	emit(&p, INSN_NOP);                           /* at 0x17fffc: the next fetch is 0x180000 */
	struct bh_core_result res;
	run_prog(dev, BH_CORE_BRISC, L1_END - 8, &p, &res);
	expect_fault(&res, BH_CORE_BRISC, L1_END - 4, "instruction fetch outside L1",
		     "execution ran past the end of L1 (0x180000) without a jump");
	expect_in_report(&res, "address: 0x00180000");
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------------------
 * AMOs: L1 only, naturally aligned (riscv-cores.md 1). Misaligned loads/stores fault too.
 */

static void expect_amo_fault(struct bh_device *dev, uint32_t f5, const char *mn, uint32_t addr, const char *kind)
{
	static const uint32_t fill[2] = { 0x11111111, 0x22222222 };
	struct prog p = { 0 };
	struct bh_core_result res;
	char buf[96];
	cr_assert_eq(bh_l1_write(dev, 0, DATA, fill, sizeof fill), BH_OK);
	emit_li(&p, A1, addr);
	emit_li(&p, A2, 0xffffffff);
	emit(&p, amo(f5, A0, A2, A1, 0));        /* at CODE + 16 */
	emit_exit(&p);
	run_prog(dev, BH_CORE_BRISC, CODE, &p, &res);
	snprintf(buf, sizeof buf, "%s needs a naturally aligned word in L1", mn);
	expect_fault(&res, BH_CORE_BRISC, CODE + 16, kind, buf);
	snprintf(buf, sizeof buf, "access: 4-byte store to 0x%08x", addr);
	expect_in_report(&res, buf);
	cr_expect(l1_get(dev, DATA) == fill[0] && l1_get(dev, DATA + 4) == fill[1], "a faulting AMO changed memory");
}

Test(mem_faults, amo_to_a_misaligned_address_faults)
{
	struct bh_device *dev = t_open();
	expect_amo_fault(dev, 0x00, "amoadd.w", DATA + 2, "misaligned access");
	expect_amo_fault(dev, 0x01, "amoswap.w", DATA + 1, "misaligned access");
	expect_amo_fault(dev, 0x1c, "amomaxu.w", DATA + 3, "misaligned access");
	bh_device_close(dev);
}

Test(mem_faults, amo_outside_l1_faults)
{
	struct bh_device *dev = t_open();
	expect_amo_fault(dev, 0x00, "amoadd.w", LDM, "access not allowed");
	expect_amo_fault(dev, 0x08, "amoor.w", L1_END, "access not allowed");
	expect_amo_fault(dev, 0x10, "amomin.w", 0xFFB12000, "access not allowed");
	bh_device_close(dev);
}

Test(mem_faults, misaligned_loads_and_stores_fault_with_the_address)
{
	static const struct {
		uint32_t word;        /* with a1 = DATA */
		const char *phrase;
	} v[] = {
		{ 0x0025a503, "4-byte load at 0x00008002 is not naturally aligned" },    /* lw a0, 2(a1) */
		{ 0x0015d503, "2-byte load at 0x00008001 is not naturally aligned" },    /* lhu a0, 1(a1) */
		{ 0x00a5a0a3, "4-byte store at 0x00008001 is not naturally aligned" },   /* sw a0, 1(a1) */
		{ 0x00a591a3, "2-byte store at 0x00008003 is not naturally aligned" },   /* sh a0, 3(a1) */
	};
	cr_assert_eq(0x0025a503u, lw(A0, 2, A1));
	cr_assert_eq(0x0015d503u, load(W_HU, A0, 1, A1));
	cr_assert_eq(0x00a5a0a3u, sw(A0, 1, A1));
	cr_assert_eq(0x00a591a3u, store(W_H, A0, 3, A1));
	struct bh_device *dev = t_open();
	for (size_t k = 0; k < N(v); k++)
		expect_word_after_li_a1_faults(dev, DATA, v[k].word, "misaligned access", v[k].phrase);
	bh_device_close(dev);
}

/* A fault stops only that run: releasing the same core again runs a good program normally. */
Test(isa_faults, core_runs_again_after_a_fault)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	expect_word_faults(dev, BH_CORE_BRISC, CODE, 0xffffffff, "illegal instruction", "illegal instruction 0xffffffff");
	emit(&p, INSN_FENCE);
	emit(&p, addi(A0, X0, 42));
	emit(&p, sltu(A1, X0, A0));
	emit_exit(&p);
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, CODE, &p), 42);
	bh_device_close(dev);
}
