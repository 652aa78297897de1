/* The block compiler (cores/rv32_jit.c): compiled code must give exactly what the interpreter
 * gives -- register results, memory, instruction counts, faults with their pc, parking of poll
 * loops, wake-ups of parked cores by stores from compiled code, code rewritten under it -- and
 * must actually run (region counts), including after its code arena filled up. Each program runs
 * with the compiler off, on (sampling) and eager (compiling at every jump through lookup). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "cores/core.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "host/device.h"
#include "testlib.h"

#define CODE 0x8000u
#define DATA 0x40000u

/* The code checks off: with them on, a region holds only words the interpreter ran (README,
 * block compiler), and these tests want code compiled before it first runs (test_checks_code's
 * eager rerun covers the checks with the compiler). */
static struct bh_device *open_jit_tiles(enum bh_jit mode, unsigned tiles)
{
	struct bh_device_config cfg = {
		.board = BH_BOARD_GRID, .num_tiles = tiles, .jit = mode,
		.checks = BH_CHECKS_EXACT | (BH_CHECKS_DEFAULT & ~(1u << BH_CHECK_ATOMIC_INTO_CODE | 1u << BH_CHECK_CODE_WRITTEN)),
	};
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	for (unsigned t = 0; t < tiles; t++)
		for (int c = 0; c < 5; c++)
			bh_core_enable_host_calls(dev, t, (enum bh_core_id)c, true);
	return dev;
}

static struct bh_device *open_jit(enum bh_jit mode)
{
	return open_jit_tiles(mode, 1);
}

static uint64_t regions(struct bh_device *dev, enum bh_core_id core)
{
	struct bh_jit_stats st;
	bh_core_jit_stats(dev, 0, core, &st);
	return st.regions;
}

/* Runs p at CODE on BRISC under each mode; every run must exit with the same status after the
 * same number of instructions, and leave the same words at DATA. Something must have been
 * compiled when eager, and when sampling if the run was at least min_instructions long.
 * Returns the status. */
static uint32_t same_in_every_mode(const struct prog *p, unsigned data_words, uint64_t min_instructions)
{
	static const enum bh_jit modes[] = { BH_JIT_OFF, BH_JIT_ON, BH_JIT_EAGER };
	static const char *const names[] = { "off", "on", "eager" };
	uint32_t status[3], *data[3];
	uint64_t count[3];
	for (unsigned m = 0; m < 3; m++) {
		struct bh_device *dev = open_jit(modes[m]);
		struct bh_core_result *res = result_new();
		run_prog(dev, BH_CORE_BRISC, CODE, p, res);
		cr_assert_eq(res->status, BH_RUN_EXITED, "jit %s: status %d\n%s", names[m], res->status, res->report);
		status[m] = (uint32_t)res->exit_status;
		count[m] = res->instructions;
		data[m] = calloc(data_words + 1, sizeof(uint32_t));
		for (unsigned k = 0; k < data_words; k++)
			data[m][k] = l1_get(dev, DATA + 4 * k);
		if (modes[m] == BH_JIT_OFF)
			cr_expect_eq(regions(dev, BH_CORE_BRISC), 0, "the interpreter compiled something");
		else if (modes[m] == BH_JIT_EAGER || count[m] >= min_instructions)
			cr_expect_gt(regions(dev, BH_CORE_BRISC), 0, "jit %s: nothing was compiled (%llu instructions)",
				     names[m], (unsigned long long)count[m]);
		free(res);
		bh_device_close(dev);
	}
	for (unsigned m = 1; m < 3; m++) {
		cr_expect_eq(status[m], status[0], "jit %s: exit 0x%x, interpreter 0x%x", names[m], status[m], status[0]);
		cr_expect_eq(count[m], count[0], "jit %s: %llu instructions, interpreter %llu", names[m],
			     (unsigned long long)count[m], (unsigned long long)count[0]);
		for (unsigned k = 0; k < data_words; k++)
			cr_expect_eq(data[m][k], data[0][k], "jit %s: word %u is 0x%x, interpreter 0x%x", names[m], k,
				     data[m][k], data[0][k]);
	}
	for (unsigned m = 0; m < 3; m++)
		free(data[m]);
	return status[0];
}

/* A loop mixing every kind of work the compiler does inline: byte/half/word loads and stores in
 * L1 and in local RAM, multiply and its high halves, division with zero and -1 divisors,
 * shifts, compares, Zba/Zbb operations, a fence, and each branch kind. The result is also checked against
 * the same computation done here. */
Test(jit, mixed_loop_matches_the_interpreter_and_the_host)
{
	enum { ITER = 300000 };
	struct prog p = { 0 };
	emit_li(&p, S0, DATA);          /* L1 array of 64 words */
	emit_li(&p, S1, LDM + 0x100);   /* local RAM */
	emit_li(&p, A0, 0);             /* i */
	emit_li(&p, A1, ITER);
	emit_li(&p, A2, 0x12345678u);   /* x */
	emit_li(&p, A3, 0);             /* acc */
	int32_t loop = prog_here(&p);
	/* x = x * 1103515245 + i; acc ^= mulhu(x, x) + mulh(x, i) */
	emit_li(&p, T0, 1103515245u);
	emit(&p, mul(A2, A2, T0));
	emit(&p, add(A2, A2, A0));
	emit(&p, r_op(0x01, 3, T1, A2, A2));          /* mulhu t1, a2, a2 */
	emit(&p, r_op(0x01, 1, T2, A2, A0));          /* mulh t2, a2, a0 */
	emit(&p, add(T1, T1, T2));
	emit(&p, r_op(0x00, 4, A3, A3, T1));          /* xor a3, a3, t1 */
	/* t1 = x / (i & 3 ? i & 7 : 0) -- zero divisor gives all ones; t2 = x % -1 (i odd) */
	emit(&p, i_op(7, T1, A0, 7));                 /* andi t1, a0, 7 */
	emit(&p, r_op(0x01, 4, T2, A2, T1));          /* div t2, a2, t1 */
	emit(&p, add(A3, A3, T2));
	emit(&p, r_op(0x01, 7, T2, A2, T1));          /* remu t2, a2, t1 */
	emit(&p, add(A3, A3, T2));
	emit_li(&p, T1, 0xFFFFFFFFu);
	emit(&p, r_op(0x01, 6, T2, A2, T1));          /* rem t2, a2, -1 = 0 */
	emit(&p, add(A3, A3, T2));
	emit(&p, r_op(0x01, 4, T2, A2, T1));          /* div t2, a2, -1 = -x */
	emit(&p, add(A3, A3, T2));
	/* arr[i & 63] += x (word); byte and half views of it; local RAM copy */
	emit(&p, i_op(7, T1, A0, 63));
	emit(&p, r_op(0x10, 4, T1, T1, S0));          /* sh2add t1, t1, s0 */
	emit(&p, lw(T2, 0, T1));
	emit(&p, sub(T1, T1, S0));                    /* the base register right after the load */
	emit(&p, add(T2, T2, A2));
	emit(&p, add(T1, T1, S0));
	emit(&p, sw(T2, 0, T1));
	emit(&p, load(W_B, T2, 1, T1));               /* lb */
	emit(&p, add(A3, A3, T2));
	emit(&p, load(W_HU, T2, 2, T1));              /* lhu */
	emit(&p, add(A3, A3, T2));
	emit(&p, store(W_H, A3, 0, S1));              /* sh to local RAM */
	emit(&p, store(W_B, A2, 3, S1));              /* sb */
	emit(&p, load(W_H, T2, 0, S1));               /* lh */
	emit(&p, r_op(0x00, 4, A3, A3, T2));
	emit(&p, lw(T2, 0, S1));
	emit(&p, r_op(0x05, 6, A3, A3, T2));          /* max a3, a3, t2 */
	emit(&p, r_op(0x30, 1, A3, A3, A0));          /* rol a3, a3, a0 */
	emit(&p, r_op(0x20, 7, T2, A2, A0));          /* andn */
	emit(&p, r_op(0x00, 3, T2, T2, A3));          /* sltu */
	emit(&p, add(A3, A3, T2));
	/* if ((int)x < 0) acc += 1 -- a forward branch taken about half the time */
	emit(&p, enc_b(8, X0, A2, BGE));
	emit(&p, addi(A3, A3, 1));
	emit(&p, INSN_FENCE);                         /* compiled: a barrier unless a poll is suspected */
	emit(&p, addi(A0, A0, 1));
	emit_branch(&p, BLTU, A0, A1, loop);
	/* A CSR read ends the compiled region: the interpreter reads back what compiled code stored. */
	emit(&p, csrr(X0, 0xF14));                    /* mhartid */
	emit(&p, lw(T2, 0, S1));
	emit(&p, r_op(0x00, 4, A3, A3, T2));
	emit(&p, sw(A3, 4 * 64, S0));
	emit(&p, addi(A0, A3, 0));
	emit(&p, i_op(7, A0, A0, 0xff));
	emit_exit(&p);

	/* The same on the host. */
	uint32_t arr[64] = { 0 }, x = 0x12345678u, acc = 0, ldm_word = 0;
	for (uint32_t i = 0; i < ITER; i++) {
		x = x * 1103515245u + i;
		acc ^= (uint32_t)((uint64_t)x * x >> 32) + (uint32_t)((int64_t)(int32_t)x * (int32_t)i >> 32);
		uint32_t d = i & 7;
		acc += d ? (uint32_t)((int32_t)x / (int32_t)d) : 0xFFFFFFFFu;
		acc += d ? x % d : x;
		acc += 0 - x;
		arr[i & 63] += x;
		acc += (uint32_t)(int32_t)(int8_t)(arr[i & 63] >> 8);
		acc += arr[i & 63] >> 16;
		ldm_word = (ldm_word & 0xFFFF0000u) | (acc & 0xFFFF);
		ldm_word = (ldm_word & 0x00FFFFFFu) | (x & 0xFF) << 24;
		acc ^= (uint32_t)(int32_t)(int16_t)ldm_word;
		acc = (int32_t)acc > (int32_t)ldm_word ? acc : ldm_word;
		unsigned r = i & 31;
		acc = r ? acc << r | acc >> (32 - r) : acc;
		acc += (x & ~i) < acc;
		if ((int32_t)x < 0)
			acc += 1;
	}
	acc ^= ldm_word;
	uint32_t st = same_in_every_mode(&p, 65, 100000);
	cr_expect_eq(st, acc & 0xff, "exit 0x%x, host 0x%x", st, acc & 0xff);
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	run_to_exit(dev, BH_CORE_BRISC, CODE, &p);
	for (unsigned k = 0; k < 64; k++)
		cr_expect_eq(l1_get(dev, DATA + 4 * k), arr[k], "arr[%u]", k);
	cr_expect_eq(l1_get(dev, DATA + 4 * 64), acc);
	bh_device_close(dev);
}

/* instret read around a compiled loop counts every instruction, exactly. */
Test(jit, instret_is_exact_around_compiled_loops)
{
	struct prog p = { 0 };
	emit_li(&p, A1, 100000);
	emit(&p, csrr(S0, 0xB02));                    /* minstret */
	int32_t loop = prog_here(&p);
	emit(&p, addi(A2, A2, 3));
	emit(&p, addi(A1, A1, -1));
	emit_branch(&p, BNE, A1, X0, loop);
	emit(&p, csrr(S1, 0xB02));
	emit(&p, sub(A0, S1, S0));
	emit(&p, lui(T0, DATA >> 12));
	emit(&p, sw(A0, 0, T0));
	emit_exit(&p);
	same_in_every_mode(&p, 1, 100000);
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	run_to_exit(dev, BH_CORE_BRISC, CODE, &p);
	/* 3 per iteration, plus the first csrr: a read counts the instructions before it */
	cr_expect_eq(l1_get(dev, DATA), 3u * 100000 + 1, "minstret difference %u", l1_get(dev, DATA));
	bh_device_close(dev);
}

/* A loop that rewrites an instruction ahead of it on its own page: from iteration 500 on the
 * loop adds 2 instead of 1. The store leaves the compiled code, the interpreter stores and drops
 * the page, and the new instruction runs from the same iteration on. */
Test(jit, code_rewritten_by_the_compiled_loop_runs_at_once)
{
	struct prog p = { 0 };
	emit_li(&p, A0, 0);
	emit_li(&p, A1, 1000);
	emit_li(&p, A3, 500);
	emit_li(&p, A4, addi(A0, A0, 2));
	int32_t loop = prog_here(&p);
	emit(&p, enc_b(12, A3, A1, BNE));             /* if a1 == 500: patch */
	emit(&p, auipc(T0, 0));
	emit(&p, sw(A4, 8, T0));                      /* the addi below */
	emit(&p, addi(A0, A0, 1));
	emit(&p, addi(A1, A1, -1));
	emit_branch(&p, BNE, A1, X0, loop);
	emit(&p, lui(T0, DATA >> 12));
	emit(&p, sw(A0, 0, T0));
	emit(&p, i_op(7, A0, A0, 0xff));
	emit_exit(&p);
	same_in_every_mode(&p, 1, UINT64_MAX);   /* sampling leaves a page rewritten so recently alone */
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	run_to_exit(dev, BH_CORE_BRISC, CODE, &p);
	cr_expect_eq(l1_get(dev, DATA), 500u + 2 * 500, "sum %u", l1_get(dev, DATA));
	bh_device_close(dev);
}

/* p faults at pc, reported as kind with phrase, after the same number of instructions
 * interpreted and eagerly compiled (which must have compiled something); with check_data, the
 * word at DATA is data_want in both. */
static void same_fault_interpreted_and_compiled(const struct prog *p, uint32_t pc, const char *kind, const char *phrase,
						bool check_data, uint32_t data_want)
{
	uint64_t count[2];
	for (unsigned m = 0; m < 2; m++) {
		struct bh_device *dev = open_jit(m ? BH_JIT_EAGER : BH_JIT_OFF);
		struct bh_core_result res;
		run_prog(dev, BH_CORE_BRISC, CODE, p, &res);
		expect_fault(&res, BH_CORE_BRISC, pc, kind, phrase);
		if (check_data)
			cr_expect_eq(l1_get(dev, DATA), data_want, "jit %u: 0x%x at DATA", m, l1_get(dev, DATA));
		count[m] = res.instructions;
		if (m)
			cr_expect_gt(regions(dev, BH_CORE_BRISC), 0);
		bh_device_close(dev);
	}
	cr_expect_eq(count[1], count[0], "retired %llu under the compiler, %llu interpreted",
		     (unsigned long long)count[1], (unsigned long long)count[0]);
}

/* A misaligned load reached inside compiled code faults at its own pc, with the count of the
 * instructions before it, as in the interpreter. */
Test(jit, fault_in_compiled_code_names_the_instruction)
{
	struct prog p = { 0 };
	emit_li(&p, A0, DATA);
	emit_li(&p, A1, 0);
	int32_t loop = prog_here(&p);
	emit(&p, lw(A2, 0, A0));
	emit(&p, addi(A0, A0, 4));
	emit(&p, addi(A1, A1, 1));
	emit_li(&p, T0, 5000);
	emit(&p, enc_b(8, T0, A1, BNE));
	emit(&p, addi(A0, A0, 2));                    /* the next lw is misaligned */
	emit_j(&p, loop);
	same_fault_interpreted_and_compiled(&p, CODE + (uint32_t)loop, "misaligned access", "lw", false, 0);
}

/* Device-register stores from compiled code go through the interpreter's slow store by a call
 * and stay in compiled code: a loop writing an NIU register and reading it back gives what the
 * interpreter gives, and when the same store later hits an unmapped address it is reported at
 * its pc with the same instruction count. */
Test(jit, device_store_from_compiled_code_matches_the_interpreter_and_faults_in_place)
{
	struct prog p = { 0 };
	emit_li(&p, A0, 0xFFB20000u);                 /* NoC0 NIU initiator 0 NOC_TARG_ADDR_LO */
	emit_li(&p, A3, DATA);
	emit_li(&p, A1, 0);
	emit_li(&p, A4, 0);
	int32_t loop = prog_here(&p);
	emit(&p, sw(A1, 0, A0));
	emit(&p, lw(A2, 0, A0));
	emit(&p, add(A4, A4, A2));
	emit(&p, sw(A4, 0, A3));
	emit(&p, addi(A1, A1, 1));
	emit_li(&p, T0, 5000);
	emit(&p, enc_b(12, T0, A1, BNE));
	emit_li(&p, A0, 0xFFB13200u);                 /* nothing there: the sw above faults */
	emit_j(&p, loop);
	/* The sum of the values read back. */
	same_fault_interpreted_and_compiled(&p, CODE + (uint32_t)loop, "unmapped address", "sw", true, 4999u * 5000u / 2);
}

/* Pinned registers (cores/rv32_jit.c keeps a region's most used guest registers in host
 * registers): a loop whose hot registers are read and written around calls that clobber host
 * registers (a device store and load through the slow path, cpop through the ALU helper) and
 * around an AMO that the interpreter executes between two regions, writing a hot register that
 * the next region, entered from outside at a label, must take from x[]. The results must be
 * the interpreter's and the host's. */
Test(jit, pinned_registers_survive_calls_and_interpreter_writes)
{
	enum { ITER = 20000 };
	struct prog p = { 0 };
	emit_li(&p, A0, 0xFFB20000u);                 /* NoC0 NIU initiator 0 NOC_TARG_ADDR_LO */
	emit_li(&p, S0, DATA);
	emit_li(&p, A1, 0);                           /* i */
	emit_li(&p, A2, 7);                           /* x */
	emit_li(&p, A3, 0);                           /* acc */
	emit_li(&p, A4, ITER);
	int32_t loop = prog_here(&p);
	emit(&p, i_op(1, T0, A2, 2));                 /* slli t0, a2, 2 */
	emit(&p, add(A2, A2, T0));
	emit(&p, add(A2, A2, A1));                    /* x = 5x + i */
	emit(&p, sw(A2, 0, A0));                      /* slow store (a call) */
	emit(&p, lw(T1, 0, A0));                      /* slow load (a call): x again */
	emit(&p, add(A3, A3, T1));
	emit(&p, i_op(1, T2, A3, 0x602));             /* cpop t2, a3 (through the ALU helper) */
	emit(&p, add(A3, A3, T2));
	emit(&p, r_op(0x00, 4, A3, A3, A1));          /* xor a3, a3, a1 */
	emit(&p, sw(A3, 0, S0));
	emit(&p, amo(0, A3, A2, S0, 0));              /* amoadd.w a3, a2, (s0): the interpreter writes a3 */
	emit(&p, lw(T0, 0, S0));                      /* a new region, entered from the interpreter */
	emit(&p, add(A3, A3, T0));
	emit(&p, addi(A1, A1, 1));
	emit_branch(&p, BNE, A1, A4, loop);
	emit(&p, sw(A3, 4, S0));
	emit(&p, i_op(7, A0, A3, 0xff));
	emit_exit(&p);

	uint32_t x = 7, acc = 0, mem = 0;
	for (uint32_t i = 0; i < ITER; i++) {
		x = 5 * x + i;
		acc += x;
		acc += (uint32_t)__builtin_popcount(acc);
		acc ^= i;
		mem = acc + x;   /* sw a3; amoadd: a3 = old (acc), mem = acc + x */
		acc += mem;
	}
	uint32_t st = same_in_every_mode(&p, 2, 10000);
	cr_expect_eq(st, acc & 0xff, "exit 0x%x, host 0x%x", st, acc & 0xff);
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	run_to_exit(dev, BH_CORE_BRISC, CODE, &p);
	cr_expect_eq(l1_get(dev, DATA), mem);
	cr_expect_eq(l1_get(dev, DATA + 4), acc);
	bh_device_close(dev);
}

/* Calls and returns inside a page chain: a loop calls two functions of its page (jal) that
 * return (ret), each a compiled region; once compiled, a hop goes straight into the target's
 * code. The pinned registers of each region hold across the hops and the counts stay exact;
 * halfway, the loop rewrites the first function's addi, and the very next call runs the new one
 * (a chained jump looks at the target slot every time, and the store dropped the page). */
Test(jit, calls_and_returns_inside_a_page_chain_between_compiled_regions)
{
	enum { ITER = 4000 };
	struct prog p = { 0 };
	emit(&p, jal(X0, 20));                        /* over the two functions */
	int32_t f1 = prog_here(&p);
	emit(&p, addi(A0, A0, 3));
	emit(&p, INSN_RET);
	int32_t f2 = prog_here(&p);
	emit(&p, add(A2, A2, A1));
	emit(&p, INSN_RET);
	cr_assert_eq(prog_here(&p), 20);
	emit_li(&p, A0, 0);
	emit_li(&p, A2, 0);
	emit_li(&p, A1, ITER);
	emit_li(&p, A3, ITER / 2);
	emit_li(&p, A4, addi(A0, A0, 5));
	int32_t loop = prog_here(&p);
	emit(&p, enc_b(12, A3, A1, BNE));             /* a1 == ITER / 2: patch f1 */
	int32_t at = prog_here(&p);
	emit(&p, auipc(T0, 0));
	emit(&p, sw(A4, f1 - at, T0));
	emit(&p, jal(RA, f1 - prog_here(&p)));
	emit(&p, jal(RA, f2 - prog_here(&p)));
	emit(&p, addi(A1, A1, -1));
	emit_branch(&p, BNE, A1, X0, loop);
	emit(&p, lui(T0, DATA >> 12));
	emit(&p, sw(A0, 0, T0));
	emit(&p, sw(A2, 4, T0));
	emit(&p, i_op(7, A0, A0, 0xff));
	emit_exit(&p);
	const uint32_t acc = 3 * (ITER / 2) + 5 * (ITER / 2), sum = ITER * (ITER + 1) / 2;
	cr_expect_eq(same_in_every_mode(&p, 2, UINT64_MAX), acc & 0xff);
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	run_to_exit(dev, BH_CORE_BRISC, CODE, &p);
	cr_expect_eq(l1_get(dev, DATA), acc, "acc %u, host %u", l1_get(dev, DATA), acc);
	cr_expect_eq(l1_get(dev, DATA + 4), sum);
	struct bh_jit_stats st;
	bh_core_jit_stats(dev, 0, BH_CORE_BRISC, &st);
	cr_expect_gt(st.chained, 2 * ITER, "%llu chained jumps", (unsigned long long)st.chained);
	bh_device_close(dev);
}

/* jalr from compiled code to a misaligned target: the jalr is reported, as interpreted. */
Test(jit, bad_jump_from_compiled_code_reports_the_jump)
{
	struct prog p = { 0 };
	emit_li(&p, A1, 3000);
	int32_t loop = prog_here(&p);
	emit(&p, addi(A1, A1, -1));
	emit_branch(&p, BNE, A1, X0, loop);
	emit_li(&p, A2, CODE + 0x100);
	int32_t at = prog_here(&p);
	emit(&p, jalr(X0, A2, 2));
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	struct bh_core_result res;
	run_prog(dev, BH_CORE_BRISC, CODE, &p, &res);
	expect_fault(&res, BH_CORE_BRISC, CODE + (uint32_t)at, "misaligned access", "instructions are 4-byte aligned");
	expect_in_report(&res, "jump to 0x00008102");
	bh_device_close(dev);
}

/* A compiled poll loop on an L1 word still parks (no host CPU) and wakes on the host write. */
Test(jit, compiled_poll_loop_parks_and_wakes)
{
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	l1_put(dev, DATA, (const uint32_t[]){ 0 }, 1);
	start_parked_poller(dev, BH_CORE_BRISC, CODE, DATA);
	cr_expect_gt(regions(dev, BH_CORE_BRISC), 0);
	expect_stays_parked(dev, BH_CORE_BRISC);
	set_l1(dev, DATA, 77);
	expect_exit(dev, 0, BH_CORE_BRISC, 77);
	bh_device_close(dev);
}

/* Two cores hand a counter back and forth through two L1 words with plain loads and stores from
 * compiled loops; each waits for the other's value. Every store must be seen (a parked waiter is
 * woken by a store from compiled code), and both finish with the exact count. */
Test(jit, two_compiled_cores_ping_pong_through_l1)
{
	enum { ROUNDS = 20000 };
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	l1_put(dev, DATA, (const uint32_t[]){ 0, 0 }, 2);
	for (unsigned side = 0; side < 2; side++) {
		struct prog p = { 0 };
		uint32_t mine = DATA + 4 * side, theirs = DATA + 4 * (1 - side);
		emit(&p, INSN_L0_CACHE_OFF);   /* plain loads poll correctly */
		emit_li(&p, S0, mine);
		emit_li(&p, S1, theirs);
		emit_li(&p, A0, 1);
		emit_li(&p, A1, ROUNDS + 1);
		int32_t loop = prog_here(&p);
		if (side == 0)
			emit(&p, sw(A0, 0, S0));              /* ping i */
		int32_t wait = prog_here(&p);
		emit(&p, lw(T0, 0, S1));
		emit_branch(&p, BNE, T0, A0, wait);       /* wait for the other side's i */
		if (side == 1)
			emit(&p, sw(A0, 0, S0));              /* pong i */
		emit(&p, addi(A0, A0, 1));
		emit_branch(&p, BNE, A0, A1, loop);
		emit(&p, addi(A0, X0, 0));
		emit_exit(&p);
		start_core(dev, side ? BH_CORE_NCRISC : BH_CORE_BRISC, &p);
	}
	struct bh_core_result *r = result_new();
	for (unsigned side = 0; side < 2; side++) {
		enum bh_core_id c = side ? BH_CORE_NCRISC : BH_CORE_BRISC;
		cr_assert_eq(bh_core_wait(dev, 0, c, 60000, r), BH_OK, "%s did not finish", core_names[c]);
		cr_expect_eq(r->status, BH_RUN_EXITED, "%s: %d\n%s", core_names[c], r->status, r->report);
	}
	cr_expect_eq(l1_get(dev, DATA), ROUNDS);
	cr_expect_eq(l1_get(dev, DATA + 4), ROUNDS);
	cr_expect_gt(regions(dev, BH_CORE_BRISC), 0);
	cr_expect_gt(regions(dev, BH_CORE_NCRISC), 0);
	free(r);
	bh_device_close(dev);
}

/* A core parked on an L1 word is woken by a store that compiled code makes: NCRISC parks first,
 * then BRISC runs a compiled loop that ends in the store. */
Test(jit, store_from_compiled_code_wakes_a_parked_core)
{
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	l1_put(dev, DATA, (const uint32_t[]){ 0 }, 1);
	struct prog waiter = { 0 };
	emit_wait_nonzero(&waiter, DATA, T1);
	emit(&waiter, addi(A0, T2, 0));
	emit_exit(&waiter);
	start_core(dev, BH_CORE_NCRISC, &waiter);
	wait_parked(dev, 0, BH_CORE_NCRISC);
	struct prog p = { 0 };
	emit_li(&p, A1, 10000);
	emit_li(&p, S0, DATA);
	emit_li(&p, A2, 0);
	int32_t loop = prog_here(&p);
	emit(&p, addi(A2, A2, 3));
	emit(&p, addi(A1, A1, -1));
	emit_branch(&p, BNE, A1, X0, loop);
	emit(&p, i_op(7, A2, A2, 0xff));
	emit(&p, sw(A2, 0, S0));                      /* 30000 & 0xff = 0x30 */
	emit(&p, addi(A0, X0, 0));
	emit_exit(&p);
	start_core(dev, BH_CORE_BRISC, &p);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	expect_exit(dev, 0, BH_CORE_NCRISC, 30000 & 0xff);
	cr_expect_gt(regions(dev, BH_CORE_BRISC), 0);
	bh_device_close(dev);
}

/* ---- Shared translations: the same words at the same address are compiled once ---- */

/* A loop adding `step` n times, exiting with the low byte of the sum plus pc-dependent bits
 * (auipc: the same words at another address compute another value). Returns the expected status. */
static uint32_t put_step_loop(struct bh_device *dev, unsigned tile, uint32_t at, uint32_t step, uint32_t n)
{
	struct prog p = { 0 };
	emit_li(&p, A1, n);
	emit_li(&p, A2, 0);
	emit_li(&p, A3, step);
	int32_t loop = prog_here(&p);
	emit(&p, enc_r(0, A3, A2, 0, A2, 0x33));      /* add a2, a2, a3 */
	emit(&p, addi(A1, A1, -1));
	emit_branch(&p, BNE, A1, X0, loop);
	emit(&p, auipc(A4, 0));
	emit(&p, i_op(5, A4, A4, 12));                /* srli a4, a4, 12: the page number */
	emit(&p, enc_r(0, A4, A2, 0, A0, 0x33));      /* add a0, a2, a4 */
	emit(&p, i_op(7, A0, A0, 0xff));
	emit_exit(&p);
	prog_put(dev, tile, at, &p);
	uint32_t pc_auipc = at + 4u * (uint32_t)(p.n - 5);
	return (step * n + (pc_auipc >> 12)) & 0xff;
}

/* Four tiles' BRISCs run byte-identical code at the same address: each region is compiled by one
 * of them and taken from the shared cache by the three others (the lock orders them), and every
 * core computes its result. */
Test(jit, identical_code_at_the_same_address_is_compiled_once_for_every_core)
{
	enum { TILES = 4 };
	struct bh_device *dev = open_jit_tiles(BH_JIT_EAGER, TILES);
	uint32_t want = 0;
	for (unsigned t = 0; t < TILES; t++)
		want = put_step_loop(dev, t, 0x9000, 0x5A17, 3000);   /* words no other test uses */
	for (unsigned t = 0; t < TILES; t++)
		cr_assert_eq(bh_core_start(dev, t, BH_CORE_BRISC, 0x9000), BH_OK);
	uint64_t regions = 0, shared = 0, per_core = 0;
	for (unsigned t = 0; t < TILES; t++) {
		expect_exit(dev, t, BH_CORE_BRISC, want);
		struct bh_jit_stats st;
		bh_core_jit_stats(dev, t, BH_CORE_BRISC, &st);
		cr_expect_gt(st.regions, 0, "tile %u compiled nothing", t);
		cr_expect(t == 0 || st.regions == per_core, "tile %u entered %llu regions, tile 0 %llu", t,
			  (unsigned long long)st.regions, (unsigned long long)per_core);
		per_core = st.regions;
		regions += st.regions;
		shared += st.shared;
	}
	cr_expect_eq(shared, regions - per_core, "%llu of %llu regions shared: each should be compiled once",
		     (unsigned long long)shared, (unsigned long long)regions);
	bh_device_close(dev);
}

/* The same words at two addresses are two translations (their pc-relative results differ), and
 * neither core takes the other's. */
Test(jit, identical_code_at_another_address_is_not_shared)
{
	struct bh_device *dev = open_jit_tiles(BH_JIT_EAGER, 2);
	uint32_t want0 = put_step_loop(dev, 0, 0xA000, 0x6B29, 2000);
	uint32_t want1 = put_step_loop(dev, 1, 0xC000, 0x6B29, 2000);
	cr_assert_neq(want0, want1);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0xA000), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, want0);
	cr_assert_eq(bh_core_start(dev, 1, BH_CORE_BRISC, 0xC000), BH_OK);
	expect_exit(dev, 1, BH_CORE_BRISC, want1);
	struct bh_jit_stats st;
	bh_core_jit_stats(dev, 1, BH_CORE_BRISC, &st);
	cr_expect_gt(st.regions, 0);
	cr_expect_eq(st.shared, 0, "the core at 0xC000 took %llu regions compiled for 0xA000",
		     (unsigned long long)st.shared);
	bh_device_close(dev);
}

/* BRISC (8 KiB of local RAM) and TRISC0 (4 KiB) run the same words at the same address, storing
 * at local RAM offset 0x1800: BRISC's compiled bounds check passes it, TRISC0 must not enter that
 * code (the local RAM size is part of the key) and faults at the store. */
Test(jit, code_compiled_for_another_local_ram_size_is_not_shared)
{
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	struct prog p = { 0 };
	emit_li(&p, A1, 100);
	emit_li(&p, T0, BH_LDM_BASE + 0x1800);
	int32_t loop = prog_here(&p);
	emit(&p, sw(A1, 0, T0));
	emit(&p, addi(A1, A1, -1));
	emit_branch(&p, BNE, A1, X0, loop);
	emit(&p, addi(A0, X0, 0x3C));
	emit_exit(&p);
	prog_put(dev, 0, 0xE000, &p);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0xE000), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 0x3C);
	struct bh_core_result res;
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC0, 0xE000), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC0, 30000, &res), BH_OK);
	cr_expect_eq(res.status, BH_RUN_FAULTED, "TRISC0 stored past its 4 KiB of local RAM (status %d)", res.status);
	cr_expect_eq(regions(dev, BH_CORE_TRISC0) > 0 ? 0 : 1, 0, "TRISC0 compiled nothing");
	struct bh_jit_stats st;
	bh_core_jit_stats(dev, 0, BH_CORE_TRISC0, &st);
	cr_expect_eq(st.shared, 0, "TRISC0 took BRISC's code");
	bh_device_close(dev);
}

/* 48 pages of "addi a0, a0, 1" on tile `tile`, then a tail that runs them `rounds` times and exits
 * with a0 / 1024; BRISC is started at CODE and waited for. */
enum { ADDI_PAGES = 48 };

static void run_addi_pages(struct bh_device *dev, unsigned tile, unsigned rounds, struct bh_core_result *res)
{
	uint32_t *page = malloc(4096);
	cr_assert_not_null(page);
	for (unsigned k = 0; k < 1024; k++)
		page[k] = addi(A0, A0, 1);
	const uint32_t base = 0x10000;
	for (unsigned pg = 0; pg < ADDI_PAGES; pg++)
		cr_assert_eq(bh_l1_write(dev, tile, base + pg * 4096, page, 4096), BH_OK);
	free(page);
	struct prog p = { 0 };
	/* after the last page: a1 -= 1; if a1 != 0, jump back to base; else exit(a0 / 1024) */
	emit(&p, addi(A1, A1, -1));
	emit(&p, enc_b(8, X0, A1, BEQ));
	emit(&p, jal(X0, -(int32_t)(ADDI_PAGES * 4096 + 8)));
	emit(&p, i_op(5, A0, A0, 10));                /* srli a0, a0, 10 */
	emit_exit(&p);
	prog_put(dev, tile, base + ADDI_PAGES * 4096, &p);
	struct prog start = { 0 };
	emit_li(&start, A0, 0);
	emit_li(&start, A1, rounds);
	emit_li(&start, T0, base);
	emit(&start, jalr(X0, T0, 0));
	prog_put(dev, tile, CODE, &start);
	cr_assert_eq(bh_core_start(dev, tile, BH_CORE_BRISC, CODE), BH_OK);
	cr_assert_eq(bh_core_wait(dev, tile, BH_CORE_BRISC, 60000, res), BH_OK);
	cr_assert_eq(res->status, BH_RUN_EXITED, "tile %u: status %d\n%s", tile, res->status, res->report);
	cr_expect_eq(res->exit_status, (int)(ADDI_PAGES * rounds), "tile %u: exit %d", tile, res->exit_status);
}

/* More compiled code than the arena holds: it is emptied and refilled, and the program still
 * computes the right sum. The pages run three times (a small arena through the
 * BHEMU_JIT_ARENA_KIB test knob; the shared translations off, so that every region goes into
 * the core's own arena). */
Test(jit, full_arena_is_flushed_and_refilled)
{
	setenv("BHEMU_JIT_ARENA_KIB", "128", 1);
	setenv("BHEMU_JIT_SHARE", "off", 1);
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	struct bh_core_result res;
	run_addi_pages(dev, 0, 3, &res);
	struct bh_jit_stats st;
	bh_core_jit_stats(dev, 0, BH_CORE_BRISC, &st);
	cr_expect_gt(st.flushes, 0, "the arena never filled (%llu regions)", (unsigned long long)st.regions);
	cr_expect_gt(st.regions, ADDI_PAGES, "%llu regions", (unsigned long long)st.regions);
	cr_expect_eq(st.shared, 0);
	bh_device_close(dev);
}

/* The shared arena (as small, by the same knob) fills during tile 0's run: tile 0 compiles the rest
 * into its own arena. Tile 1 then takes what the shared arena holds and compiles the rest itself;
 * both compute the right sum. */
Test(jit, full_shared_arena_leaves_the_rest_to_the_cores_own_arenas)
{
	setenv("BHEMU_JIT_ARENA_KIB", "128", 1);
	struct bh_device *dev = open_jit_tiles(BH_JIT_EAGER, 2);
	struct bh_core_result res;
	struct bh_jit_stats st0, st1;
	run_addi_pages(dev, 0, 1, &res);
	run_addi_pages(dev, 1, 1, &res);
	bh_core_jit_stats(dev, 0, BH_CORE_BRISC, &st0);
	bh_core_jit_stats(dev, 1, BH_CORE_BRISC, &st1);
	cr_expect_gt(st1.shared, 0, "tile 1 took nothing from the shared arena");
	cr_expect_lt(st1.shared, st1.regions, "tile 1 compiled nothing itself: the shared arena never filled");
	cr_expect_eq(st0.shared, 0);
	bh_device_close(dev);
}

/* Register windows read from compiled code go through the interpreter's slow path by a call, and
 * stay in compiled code. A PCBuf pop is such a read with a side effect: BRISC pushes 1..N into
 * PCBuf 0 while TRISC0 pops in a compiled loop; every pop that blocks (empty FIFO) is retried by
 * the interpreter, and every word must arrive exactly once, in order. */
Test(jit, pcbuf_pops_from_compiled_code_lose_and_repeat_nothing)
{
	enum { WORDS = 100000 };
	const uint32_t pcbuf0 = 0xFFE80000u, progress = 0x30000u;
	struct bh_device *dev = open_jit(BH_JIT_EAGER);
	struct prog t = { 0 }, b = { 0 };
	emit_pop_expect_count(&t, pcbuf0, WORDS);
	start_core(dev, BH_CORE_TRISC0, &t);
	emit_push_count(&b, pcbuf0, WORDS, progress);
	start_core(dev, BH_CORE_BRISC, &b);
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC0, 120000, r), BH_OK, "trisc0 did not finish");
	cr_expect_eq(r->status, BH_RUN_EXITED, "%d\n%s", r->status, r->report);
	cr_expect_eq(r->exit_status, 0, "%d words arrived out of order", r->exit_status);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	cr_expect_eq(l1_get(dev, progress), WORDS);
	cr_expect_gt(regions(dev, BH_CORE_TRISC0), 0);
	free(r);
	bh_device_close(dev);
}

/* ---- NIU command-buffer registers stored by compiled code (emit_niu_store) ---------------- */

#define AT_CTRL (1u | 1u << 4 | 1u << 7 | 1u << 13)   /* atomic, response marked, static VC 1 */
#define AT_INCR_WORD0 (1u << 12 | 31u << 2)             /* INCR_GET of the first word of a 16-byte block */
#define AT_RESPS(noc) (0xFFB20200u + 0x10000u * (noc))  /* NIU_MST_ATOMIC_RESP_RECEIVED */
#define AT_LOOPS 3000u

/* brisc: AT_LOOPS atomics on its own tile's L1, i + 1 added to the word at DATA + 16 (i % 8),
 * each programmed with one sw per field of command buffer buf of `noc` (TARG_LO/MID/HI, RET_LO/MID/HI,
 * CTRL, AT_LEN_BE, AT_DATA, PACKET_TAG), issued and waited for at its counter; then register `reg` takes `value`
 * and the loop goes on (a wrong CTRL or coordinate): a fault. Returns the pc of the loop's sw
 * whose offset is `at`. */
static uint32_t emit_atomic_loop(struct prog *p, unsigned noc, unsigned buf, unsigned reg, uint32_t value, unsigned at)
{
	static const struct {
		unsigned off, rs2;
	} fields[] = { { N_TARG_LO, A2 }, { N_TARG_MID, X0 }, { N_TARG_HI, A3 }, { N_RET_LO, A6 }, { N_RET_MID, X0 },
		       { N_RET_HI, A7 }, { N_CTRL, A5 }, { N_LEN, A4 }, { 0x28, T1 }, { 0x18, X0 } };
	uint32_t pc = 0;
	emit_li(p, S0, CMDBUF0(buf) + 0x10000u * noc);
	emit_li(p, S1, DATA);
	emit_li(p, A1, 0);
	emit_li(p, A3, TILE0_XY);
	emit_li(p, A6, DATA + 0x100);   /* where the old values land */
	emit_li(p, A7, TILE0_XY);
	emit_li(p, A4, AT_INCR_WORD0);
	emit_li(p, A5, AT_CTRL);
	int32_t loop = prog_here(p);
	emit(p, i_op(7, T0, A1, 7));           /* andi t0, a1, 7 */
	emit(p, i_op(1, T0, T0, 4));           /* slli t0, t0, 4 */
	emit(p, add(A2, S1, T0));
	emit(p, addi(T1, A1, 1));
	for (unsigned k = 0; k < N(fields); k++) {
		if (fields[k].off == at)
			pc = CODE + (uint32_t)prog_here(p);
		emit(p, sw(fields[k].rs2, (int32_t)fields[k].off, S0));
	}
	emit_li(p, T2, 1);
	if (at == N_CMD_CTRL)
		pc = CODE + (uint32_t)prog_here(p);
	emit(p, sw(T2, N_CMD_CTRL, S0));
	emit(p, addi(A1, A1, 1));
	emit_li(p, T0, AT_RESPS(noc));
	int32_t wait = prog_here(p);
	emit(p, lw(T2, 0, T0));
	emit_branch(p, BNE, T2, A1, wait);
	emit_li(p, T0, AT_LOOPS);
	emit_branch(p, BNE, A1, T0, loop);
	emit_li(p, reg, value);
	emit_j(p, loop);
	return pc;
}

/* The fields a compiled loop stores inline (on two NoCs and command buffers) issue the atomics
 * the interpreter issues (same words, same counters), and a bad value stored later faults as it does interpreted: a NOC_CTRL with
 * reserved bits at its own sw (a value the inline store leaves to the NIU), a coordinate of no
 * tile at the CMD_CTRL that issues it. Same report, pc and instruction count. */
Test(jit, niu_fields_stored_by_compiled_code_issue_and_fault_as_interpreted)
{
	static const struct {
		unsigned noc, buf, reg, at;
		uint32_t value;
		const char *kind, *phrase;
	} poisons[] = {
		{ 0, 2, A5, N_CTRL, AT_CTRL | 1u << 10, "bad register value", "sets reserved bits" },
		{ 1, 3, A3, N_CMD_CTRL, 63u << 6 | 63u, "unmapped address", "no endpoint there" },
	};
	for (unsigned v = 0; v < N(poisons); v++) {
		struct prog p = { 0 };
		uint32_t pc = emit_atomic_loop(&p, poisons[v].noc, poisons[v].buf, poisons[v].reg, poisons[v].value, poisons[v].at);
		char report[2][sizeof ((struct bh_core_result *)0)->report];
		uint64_t count[2];
		for (unsigned m = 0; m < 2; m++) {
			struct bh_device *dev = open_jit(m ? BH_JIT_EAGER : BH_JIT_OFF);
			struct bh_core_result *res = result_new();
			run_prog(dev, BH_CORE_BRISC, CODE, &p, res);
			expect_fault(res, BH_CORE_BRISC, pc, poisons[v].kind, poisons[v].phrase);
			for (unsigned w = 0; w < 8; w++) {
				uint32_t want = 0;
				for (uint32_t i = w; i < AT_LOOPS; i += 8)
					want += i + 1;
				cr_expect_eq(l1_get(dev, DATA + 16 * w), want, "poison %u jit %u: word %u", v, m, w);
			}
			uint32_t resps;
			cr_assert_eq(bh_reg_read(dev, 0, AT_RESPS(poisons[v].noc), &resps), BH_OK);
			cr_expect_eq(resps, AT_LOOPS, "poison %u jit %u", v, m);
			/* Each in one step at its CMD_CTRL store (compiled: through the issue's own entry); the
			 * poisoned request through the general issue, which reports it. */
			cr_expect_eq(bh_noc_one_step_atomics(&dev->chip), AT_LOOPS, "poison %u jit %u: %llu in one step", v, m,
				     (unsigned long long)bh_noc_one_step_atomics(&dev->chip));
			if (m)
				cr_expect_gt(regions(dev, BH_CORE_BRISC), 0);
			memcpy(report[m], res->report, sizeof report[m]);
			count[m] = res->instructions;
			free(res);
			bh_device_close(dev);
		}
		cr_expect_str_eq(report[1], report[0], "poison %u", v);
		cr_expect_eq(count[1], count[0], "poison %u", v);
	}
}

/* noc-shared-initiator from compiled code: brisc begins a transaction on command buffer 0;
 * ncrisc writes NOC_RET_ADDR_LO once, then NOC_RET_ADDR_MID in a compiled loop (stores that
 * continue its own writes: the inline path's case); brisc's issue is flagged naming ncrisc's
 * last write, the loop's register and pc, as interpreted. */
Test(jit, noc_shared_initiator_names_the_last_write_of_a_compiled_loop)
{
	for (unsigned m = 0; m < 2; m++) {
		struct bh_device *dev = open_jit(m ? BH_JIT_EAGER : BH_JIT_OFF);
		struct prog b = { 0 }, n = { 0 }, i = { 0 };
		uint32_t first = emit_program_noc_write(&b, BH_CORE_BRISC, CTRL_WRITE_POSTED, TILE0_XY, NOC_DST, 64);
		emit_exit_with(&b, 0);
		cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
		emit_store_pc(&n, BH_CORE_NCRISC, CMDBUF0(0) + N_RET_LO, NOC_DST);
		emit_li(&n, S0, CMDBUF0(0));
		emit_li(&n, A1, 0);
		emit_li(&n, T0, AT_LOOPS);
		int32_t loop = prog_here(&n);
		uint32_t last = core_code_at[BH_CORE_NCRISC] + (uint32_t)loop;
		emit(&n, sw(A1, N_RET_MID, S0));
		emit(&n, addi(A1, A1, 1));
		emit_branch(&n, BNE, A1, T0, loop);
		emit_exit_with(&n, 0);
		cr_expect_eq(run_core(dev, BH_CORE_NCRISC, &n), 0);
		if (m)
			cr_expect_gt(regions(dev, BH_CORE_NCRISC), 0);
		uint32_t pc = emit_issue(&i, BH_CORE_BRISC);
		emit_exit_with(&i, 0);
		struct bh_core_result *res = run_checked(dev, BH_CORE_BRISC, &i);
		expect_shared_initiator(dev, res, pc, first, "NOC_RET_ADDR_MID", last);
	}
}

/* A CMD_CTRL poll from compiled code reads 0 and begins the poller's transaction as interpreted
 * (numbered by bh_niu_number, inline): brisc polls CMD_CTRL of command buffer 0 once, then in a
 * compiled loop that makes progress (no poll loop: its loads stay inline); ncrisc writes
 * NOC_RET_ADDR_LO; brisc's issue is flagged as a transaction begun at the loop's poll. */
Test(jit, a_compiled_cmd_ctrl_poll_begins_the_transaction_it_names)
{
	for (unsigned m = 0; m < 2; m++) {
		struct bh_device *dev = open_jit(m ? BH_JIT_EAGER : BH_JIT_OFF);
		struct prog b = { 0 };
		emit_li(&b, S0, CMDBUF0(0));
		emit_li(&b, S1, DATA);
		emit(&b, lw(A0, N_CMD_CTRL, S0));
		emit_li(&b, A1, 0);
		emit_li(&b, T0, AT_LOOPS);
		int32_t loop = prog_here(&b);
		uint32_t first = core_code_at[BH_CORE_BRISC] + (uint32_t)loop;
		emit(&b, lw(A0, N_CMD_CTRL, S0));
		emit(&b, add(A1, A1, A0));
		emit(&b, sw(T0, 0, S1));                      /* progress: not a poll loop */
		emit(&b, addi(T0, T0, -1));
		emit_branch(&b, BNE, T0, X0, loop);
		emit(&b, addi(A0, A1, 0));                    /* exit(the sum of what CMD_CTRL read): 0 */
		emit_exit(&b);
		cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
		if (m)
			cr_expect_gt(regions(dev, BH_CORE_BRISC), 0);
		expect_shared_after_ncrisc_write(dev, first, NOC_DST);
	}
}

/* A region that is mostly loads and stores is still compiled: their NIU lanes (which take cold
 * room and fixups per access) stop where a region's own cold code would run out of room,
 * instead of the whole region being refused. A loop of 55 word copies in L1 (a region the
 * compiler takes without lanes, near its limits) matches the interpreter, compiled. */
Test(jit, a_region_of_many_loads_and_stores_is_compiled)
{
	struct prog p = { 0 };
	emit_li(&p, S0, DATA);
	emit_li(&p, A1, 0);
	emit_li(&p, T0, 50);
	int32_t loop = prog_here(&p);
	for (int k = 0; k < 55; k++) {
		emit(&p, lw(T1, 4 * k, S0));
		emit(&p, add(T1, T1, A1));
		emit(&p, sw(T1, 4 * k + 4, S0));
	}
	emit(&p, addi(A1, A1, 1));
	emit_branch(&p, BNE, A1, T0, loop);
	emit_exit_with(&p, 0);
	cr_expect_eq(same_in_every_mode(&p, 57, 0), 0);
}
