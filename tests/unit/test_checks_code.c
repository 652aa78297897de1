/* The code and launch-state detectors (races.md 1, 5, 6, 7, 8, 30): writes into code a running core
 * executed since its last I-cache invalidate, fetches of such stale bytes, atomics into code,
 * accesses to a local RAM while its post-reset zeroing may still run, launch slots rewritten while
 * BRISC owns them, and CB counters written while TRISC0 resets them. Each has a bug program
 * stopped with the exact report and a fixed twin that runs to its end with no finding. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/noc.h"
#include "fabric/tile.h"
#include "host/device.h"
#include "sync/streams.h"
#include "testlib.h"

#define FUNC 0x6000u                /* a function brisc calls: li a0, v; ret */
#define FUNC_DATA (FUNC + 0x10u)    /* a word of the same page that nobody executes */
#define FLAG 0x20000u
#define IC_INVALIDATE (0xFFEF0000u + 4u * 185u)   /* Tensix config 185: RISCV_IC_INVALIDATE */
#define CODE_CHECKS (BH_CHECKS_DEFAULT | BH_CHECK_BIT(BH_CHECK_CODE_WRITTEN))

/* li a0, v; ret at FUNC. */
static void put_func(struct bh_device *dev, uint32_t v)
{
	const uint32_t words[2] = { addi(A0, X0, (int32_t)v), INSN_RET };
	l1_put(dev, FUNC, words, 2);
}

/* brisc: call FUNC, wait for FLAG, (invalidate its I-cache,) call FUNC again, exit(a0). Started
 * and parked on FLAG when this returns. */
static void start_caller(struct bh_device *dev, bool invalidate)
{
	struct prog b = { 0 };
	emit_call(&b, core_code_at[BH_CORE_BRISC], FUNC);
	emit_wait_nonzero(&b, FLAG, T0);
	if (invalidate)
		emit_store_word(&b, IC_INVALIDATE, 1);   /* brisc's bit */
	emit_call(&b, core_code_at[BH_CORE_BRISC], FUNC);
	emit_exit(&b);
	start_core(dev, BH_CORE_BRISC, &b);
	wait_parked(dev, 0, BH_CORE_BRISC);
}

static struct bh_core_result *wait_result(struct bh_device *dev, enum bh_core_id core)
{
	struct bh_core_result *res = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, core, T_STOP_MS, res), BH_OK, "%s did not stop", core_names[core]);
	return res;
}

/* ------------------------------------------------------------------ #6 stale I-cache (code-written) */

/* The host replaces FUNC while brisc, which ran it, waits; brisc calls it again without an I-cache
 * invalidate: stopped at the fetch of the rewritten word, naming the host. */
Test(checks_code, code_written_fetch_of_code_rewritten_without_invalidate_stops_the_core)
{
	struct bh_device *dev = t_open_checks(CODE_CHECKS, BH_CHECK_STOP);
	put_func(dev, 1);
	start_caller(dev, false);
	put_func(dev, 2);
	set_l1(dev, FLAG, 1);
	expect_check(dev, wait_result(dev, BH_CORE_BRISC), BH_CORE_BRISC, "code-written", FUNC, "  other: the host\n",
		     "  why: brisc fetches 0x00006000, written (by the host) after brisc executed it and before its next "
		     "I-cache invalidate (Tensix config 185): silicon may still run the old instruction");
}

/* The host rewrites FUNC under the waiting caller, which must run the new code (exit 2) with no
 * finding. Closes dev. */
static void expect_rewrite_clean(struct bh_device *dev, bool invalidate)
{
	put_func(dev, 1);
	start_caller(dev, invalidate);
	put_func(dev, 2);
	set_l1(dev, FLAG, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 2);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* The twin: brisc writes Tensix config 185 before it calls the new code. */
Test(checks_code, code_rewritten_then_invalidated_is_not_flagged)
{
	expect_rewrite_clean(t_open_checks(CODE_CHECKS, BH_CHECK_STOP), true);
}

/* Off by default (opt-in): the same rewrite runs the new code with no finding. */
Test(checks_code, code_written_is_opt_in)
{
	cr_expect(BH_CHECKS_OPT_IN & BH_CHECK_BIT(BH_CHECK_CODE_WRITTEN));
	expect_rewrite_clean(t_open(), false);
}

/* ------------------------------------------------------------------ #1 code rewritten under a running core */

/* ncrisc stores into FUNC, which brisc (running) executed since its last invalidate: stopped at
 * its store, naming brisc. */
static void expect_ncrisc_store_into_func_stopped(struct bh_device *dev)
{
	struct prog n = { 0 };
	uint32_t pc = emit_store_pc(&n, BH_CORE_NCRISC, FUNC, addi(A0, X0, 3));
	emit_exit_with(&n, 0);
	expect_check(dev, run_checked(dev, BH_CORE_NCRISC, &n), BH_CORE_NCRISC, "code-written", pc,
		     "  other: brisc (running), which executed 0x00006000\n",
		     "  why: ncrisc stores into code brisc executed since its last I-cache invalidate while it runs: "
		     "overwrite code only while its core is in reset (or invalidate before it runs the new code)");
}

/* brisc, parked on FLAG, executed FUNC: ncrisc's store into it is stopped. */
Test(checks_code, code_written_store_into_code_another_running_core_executed_stops_the_writer)
{
	struct bh_device *dev = t_open_checks(CODE_CHECKS, BH_CHECK_STOP);
	put_func(dev, 1);
	start_caller(dev, false);
	expect_ncrisc_store_into_func_stopped(dev);
}

/* The twins: a store into the same page but a word brisc never executed, and a rewrite of FUNC
 * after brisc has been put back in reset (its release invalidates the I-cache). */
Test(checks_code, code_written_store_next_to_code_or_under_a_core_in_reset_is_not_flagged)
{
	struct bh_device *dev = t_open_checks(CODE_CHECKS, BH_CHECK_STOP);
	put_func(dev, 1);
	start_caller(dev, false);
	run_store_word(dev, BH_CORE_NCRISC, FUNC_DATA, 7);
	run_store_word(dev, BH_CORE_NCRISC, FLAG, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 1);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	set_l1(dev, FLAG, 0);
	start_caller(dev, false);
	struct prog n = { 0 };
	emit_li(&n, T0, SOFT_RESET_0);   /* hold brisc, then rewrite FUNC */
	emit(&n, lw(T1, 0, T0));
	emit_li(&n, T2, 1u << 11);
	emit(&n, or(T1, T1, T2));
	emit(&n, sw(T1, 0, T0));
	emit_store_word(&n, FUNC, addi(A0, X0, 3));
	emit_exit_with(&n, 0);
	cr_expect_eq(run_core(dev, BH_CORE_NCRISC, &n), 0);
	set_l1(dev, FLAG, 1);
	struct prog b = { 0 };
	emit_call(&b, core_code_at[BH_CORE_BRISC], FUNC);
	emit_exit(&b);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 3);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* brisc: call FUNC, invalidate its I-cache, wait for FLAG (parked: the invalidate is handled),
 * call FUNC again only if `again`, set PAST, then wait for FLAG2 and exit(a0). Started and parked
 * on FLAG. */
#define FLAG2 (FLAG + 4u)
#define PAST (FLAG + 8u)
static void start_invalidating_caller(struct bh_device *dev, bool again)
{
	struct prog b = { 0 };
	emit_call(&b, core_code_at[BH_CORE_BRISC], FUNC);
	emit_store_word(&b, IC_INVALIDATE, 1);
	emit_wait_nonzero(&b, FLAG, T0);
	if (again)
		emit_call(&b, core_code_at[BH_CORE_BRISC], FUNC);
	emit_store_word(&b, PAST, 1);
	emit_wait_nonzero(&b, FLAG2, T0);
	emit_exit(&b);
	start_core(dev, BH_CORE_BRISC, &b);
	wait_parked(dev, 0, BH_CORE_BRISC);
}

/* Decoded code outlives an I-cache invalidate (a launch does not decode its firmware again), but
 * what it counts as executed starts over: FUNC, run again after the invalidate, is code brisc
 * executed since it, and ncrisc's store into it is flagged. */
Test(checks_code, code_written_code_run_again_after_an_invalidate_counts_as_executed)
{
	struct bh_device *dev = t_open_checks(CODE_CHECKS, BH_CHECK_STOP);
	put_func(dev, 1);
	start_invalidating_caller(dev, true);
	set_l1(dev, FLAG, 1);
	wait_l1(dev, PAST, 1);   /* past the second call */
	expect_ncrisc_store_into_func_stopped(dev);
}

/* The same with a FUNC whose words each run again through their kept decode alone (ori, not the
 * add the interpreter pairs with its next word): the page is marked for the code checks when it is
 * armed after the invalidate, before its words are (rv32_page_arm), and the store is flagged. */
Test(checks_code, code_written_kept_decode_run_again_after_an_invalidate_counts_as_executed)
{
	struct bh_device *dev = t_open_checks(CODE_CHECKS, BH_CHECK_STOP);
	const uint32_t words[2] = { i_op(6, A0, X0, 1), INSN_RET };   /* ori a0, x0, 1; ret */
	l1_put(dev, FUNC, words, 2);
	start_invalidating_caller(dev, true);
	set_l1(dev, FLAG, 1);
	wait_l1(dev, PAST, 1);
	expect_ncrisc_store_into_func_stopped(dev);
}

/* The twin: brisc does not call FUNC after the invalidate, so what it ran before no longer
 * counts (the kept decode is not executed again): the store is not flagged, and brisc, calling
 * nothing more, exits with the first call's value. */
Test(checks_code, code_not_run_again_after_an_invalidate_is_not_flagged)
{
	struct bh_device *dev = t_open_checks(CODE_CHECKS, BH_CHECK_STOP);
	put_func(dev, 1);
	start_invalidating_caller(dev, false);
	set_l1(dev, FLAG, 1);
	wait_l1(dev, PAST, 1);
	run_store_word(dev, BH_CORE_NCRISC, FUNC, addi(A0, X0, 3));
	set_l1(dev, FLAG2, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 1);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------ #30 atomic into code */

/* ncrisc's amoadd lands on FUNC, which brisc executed (the default checks: atomic-into-code). */
Test(checks_code, atomic_into_code_a_running_core_executed_stops_the_amo)
{
	struct bh_device *dev = t_open();
	put_func(dev, 1);
	start_caller(dev, false);
	struct prog n = { 0 };
	emit_li(&n, T0, FUNC);
	emit_li(&n, T1, 1);
	uint32_t pc = core_code_at[BH_CORE_NCRISC] + (uint32_t)prog_here(&n);
	emit(&n, amo(0, T2, T1, T0, 0));
	emit_exit_with(&n, 0);
	expect_check(dev, run_checked(dev, BH_CORE_NCRISC, &n), BH_CORE_NCRISC, "atomic-into-code", pc,
		     "  other: brisc (running), which executed 0x00006000\n",
		     "  why: ncrisc AMO on 0x00006000 lands in code brisc ran since its last I-cache invalidate: a "
		     "semaphore there aliases kernel text");
}

/* The twin: the semaphore moved out of the code (a word of the page nobody executed). */
Test(checks_code, atomic_next_to_code_is_not_flagged)
{
	struct bh_device *dev = t_open();
	put_func(dev, 1);
	start_caller(dev, false);
	struct prog n = { 0 };
	emit_li(&n, T0, FUNC_DATA);
	emit_li(&n, T1, 1);
	emit(&n, amo(0, T2, T1, T0, 0));
	emit_exit_with(&n, 0);
	cr_expect_eq(run_core(dev, BH_CORE_NCRISC, &n), 0);
	run_store_word(dev, BH_CORE_NCRISC, FLAG, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 1);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

static void count_event(void *arg, const struct bh_core_event *ev)
{
	(void)ev;
	atomic_fetch_add((_Atomic unsigned *)arg, 1);
}

/* The same through the NoC: ncrisc's noc_semaphore_inc on FUNC (NoC0 command buffer 3, its own
 * tile at (1,2), the result to L1 0x100). A core's CMD_CTRL store does such an atomic in one step
 * (fabric/noc.c); with an observer of NoC issues it takes the general issue and completion. Either
 * way: applied, then the same finding at the same store, with the same report. */
static void expect_noc_atomic_into_code_stopped(bool observed)
{
	struct bh_device *dev = t_open();
	_Atomic unsigned seen = 0;
	uint64_t id;
	if (observed)
		cr_assert_eq(bh_device_observe_kinds(dev, 1u << BH_EVENT_NOC_ISSUE, count_event, &seen, &id), BH_OK);
	put_func(dev, 1);
	start_caller(dev, false);
	static const uint32_t regs[][2] = {
		{ N_CTRL, 0x2011u }, { N_TARG_LO, FUNC }, { N_TARG_MID, 0 }, { N_TARG_HI, TILE0_XY }, { N_RET_LO, 0x100 },
		{ N_RET_MID, 0 }, { N_RET_HI, TILE0_XY }, { N_LEN, 1u << 12 | 31u << 2 }, { 0x28, 1 },
	};
	struct prog n = { 0 };
	for (unsigned k = 0; k < sizeof regs / sizeof regs[0]; k++)
		emit_store_word(&n, CMDBUF0(3) + regs[k][0], regs[k][1]);
	uint32_t pc = emit_store_pc(&n, BH_CORE_NCRISC, CMDBUF0(3) + N_CMD_CTRL, 1);
	emit_exit_with(&n, 0);
	struct bh_core_result *res = run_checked(dev, BH_CORE_NCRISC, &n);
	cr_expect_eq(bh_noc_one_step_atomics(&dev->chip), observed ? 0 : 1);
	cr_expect_eq(atomic_load(&seen), observed ? 1 : 0);
	uint32_t w = 0;
	cr_assert_eq(bh_l1_read(dev, 0, FUNC, &w, 4), BH_OK);
	cr_expect_eq(w, addi(A0, X0, 1) + 1, "the atomic applied: 0x%08x", w);
	expect_check(dev, res, BH_CORE_NCRISC, "atomic-into-code", pc, "  other: brisc of (1,2) (running), which executed 0x00006000\n",
		     "  why: NoC0 atomic on (1,2) 0x00006000 lands in code brisc ran since its last I-cache invalidate: a "
		     "semaphore there aliases kernel text");
}

Test(checks_code, noc_atomic_into_code_in_one_step_stops_the_issuer_at_its_cmd_ctrl_store)
{
	expect_noc_atomic_into_code_stopped(false);
}

Test(checks_code, noc_atomic_into_code_through_the_general_issue_stops_the_issuer_the_same_way)
{
	expect_noc_atomic_into_code_stopped(true);
}

/* ------------------------------------------------------------------ #8 local RAM zeroing */

#define NCRISC_RESET_PC_DEFAULT 0x12000u
#define NCRISC_LDM_SLOW 0xFFB16000u
#define WALL_CLOCK_0 0xFFB121F0u

#define NCRISC_UP 0x30000u   /* ncrisc's program stores 1 here when it runs */

/* brisc releases ncrisc (SOFT_RESET_0 bit 18); with `wait`, waits until ncrisc runs and `wait`
 * wall-clock ticks have passed; then reads ncrisc's local RAM through the slow window. Returns the
 * load's pc. */
static uint32_t emit_release_then_peek(struct prog *p, uint32_t wait)
{
	emit_li(p, T0, SOFT_RESET_0);
	emit(p, lw(T1, 0, T0));
	emit_li(p, T2, ~(1u << 18));
	emit(p, r_op(0, 7, T1, T1, T2));   /* and */
	emit(p, sw(T1, 0, T0));
	if (wait) {
		emit_load_word(p, S0, WALL_CLOCK_0);
		emit_wait_nonzero(p, NCRISC_UP, T0);
		int32_t loop = prog_here(p);
		emit_load_word(p, S1, WALL_CLOCK_0);
		emit(p, sub(S1, S1, S0));
		emit_li(p, T2, wait);
		emit_branch(p, BLTU, S1, T2, loop);
	}
	emit_li(p, T0, NCRISC_LDM_SLOW);
	uint32_t pc = core_code_at[BH_CORE_BRISC] + (uint32_t)prog_here(p);
	emit(p, lw(T1, 0, T0));
	emit_exit_with(p, 0);
	return pc;
}

/* ncrisc at its reset pc: NCRISC_UP = 1; exit(0). */
static void put_ncrisc_up(struct bh_device *dev)
{
	struct prog n = { 0 };
	emit_store_word(&n, NCRISC_UP, 1);
	emit_exit_with(&n, 0);
	prog_put(dev, 0, NCRISC_RESET_PC_DEFAULT, &n);
}

/* Right after the release the read falls in the window (2048 wall-clock cycles, and until ncrisc's
 * thread has started). A run preempted between the two stores may miss it: up to 20 tries. */
Test(checks_code, ldm_zeroing_read_right_after_the_release_stops_the_reader)
{
	for (unsigned attempt = 0; attempt < 20; attempt++) {
		struct bh_device *dev = t_open();
		put_ncrisc_up(dev);
		struct prog b = { 0 };
		uint32_t pc = emit_release_then_peek(&b, 0);
		struct bh_core_result *res = run_checked(dev, BH_CORE_BRISC, &b);
		if (res->status == BH_RUN_EXITED) {
			free(res);
			bh_device_close(dev);
			continue;
		}
		assert_has(res->report, "  other: ncrisc, released from reset ");
		expect_check(dev, res, BH_CORE_BRISC, "ldm-zeroing", pc, NULL,
			     "  why: brisc reaches offset 0x0 of ncrisc's local RAM while its zeroing after the release "
			     "from reset may still run (up to 2048 cycles; in bhemu until the core has started): wait 2048 "
			     "cycles after the release");
		return;
	}
	cr_assert_fail("20 reads right after the release were none of them inside the zeroing window");
}

/* The twin waits until ncrisc runs and 2048 wall-clock ticks have passed. */
Test(checks_code, ldm_zeroing_read_after_the_window_is_not_flagged)
{
	struct bh_device *dev = t_open();
	put_ncrisc_up(dev);
	struct prog b = { 0 };
	emit_release_then_peek(&b, 2048);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------ #7 launch slot reused too early */

#define LAUNCH(k) (0x70u + 0x60u * (k))   /* p100a launch[k] (launch.md 6) */
#define GO_SIGNAL0 0x373u

/* The p100a launch ring as host/boot.c registers it when it boots that profile. */
static struct bh_device *open_guarded(void)
{
	struct bh_device *dev = t_open();
	const struct bh_launch_guard g = { .base = LAUNCH(0), .size = 0x60, .count = 8, .enables = 0x4C, .mode = 0x2A,
					   .go_base = 0x370, .go_index = 0x3A0 };
	bh_tile_guard_launch_slots(dev->tiles[0], &g);
	return dev;
}

/* BRISC NoC-writes len bytes from NOC_SRC to dst on its own tile and waits for the acknowledgement
 * (asynchronous NoC); returns its result, *pc its CMD_CTRL store. */
static struct bh_core_result *brisc_noc_write(struct bh_device *dev, uint32_t dst, uint32_t len, uint32_t *pc)
{
	struct prog b = { 0 };
	emit_program_noc_write(&b, BH_CORE_BRISC, CTRL_WRITE_NONPOSTED, TILE0_XY, dst, len);
	*pc = emit_issue(&b, BH_CORE_BRISC);
	emit_wait_one(&b, NOC0_WR_ACKS);
	emit_exit_with(&b, 0);
	return run_checked(dev, BH_CORE_BRISC, &b);
}

/* launch[1] with enables and mode as given, go signal 0 = sig; then brisc NoC-writes 96 bytes over
 * launch[1]. Returns its result; *pc is its CMD_CTRL store. */
static struct bh_core_result *rewrite_slot(struct bh_device *dev, uint32_t enables, uint8_t mode, uint8_t sig,
					   uint32_t *pc)
{
	cr_assert_eq(bh_l1_write(dev, 0, LAUNCH(1) + 0x2A, &mode, 1), BH_OK);
	cr_assert_eq(bh_l1_write(dev, 0, GO_SIGNAL0, &sig, 1), BH_OK);
	l1_put(dev, LAUNCH(1) + 0x4C, &enables, 1);   /* last: the slot is BRISC's from here on */
	return brisc_noc_write(dev, LAUNCH(1), 0x60, pc);
}

/* A DEV-mode slot BRISC has not cleared, and a HOST-mode slot whose kernel still runs (GO). */
Test(checks_code, launch_slot_busy_noc_write_into_a_slot_brisc_owns_stops_the_writer)
{
	static const struct { uint8_t mode, sig; const char *other; } bugs[] = {
		{ 0, 0x00, "  other: brisc of (1,2), which has not finished launch[1] (enables 0x1f, mode DEV)\n" },
		{ 1, 0x80, "  other: brisc of (1,2), which has not finished launch[1] (enables 0x1f, mode HOST)\n" },
	};
	for (unsigned k = 0; k < N(bugs); k++) {
		struct bh_device *dev = open_guarded();
		uint32_t pc;
		struct bh_core_result *res = rewrite_slot(dev, 0x1F, bugs[k].mode, bugs[k].sig, &pc);
		char why[256];
		snprintf(why, sizeof why, "  why: NoC0 write issued by (1,2) brisc at pc 0x%08x writes 96 bytes at 0x000d0 "
			 "into launch[1] of (1,2) while BRISC owns it: reuse a slot only after BRISC cleared its enables "
			 "(DEV) or reported DONE (HOST)", pc);
		expect_check(dev, res, BH_CORE_BRISC, "launch-slot-busy", pc, bugs[k].other, why);
	}
}

/* The twins: the DEV-mode slot after BRISC cleared its enables, the HOST-mode slot after DONE. */
Test(checks_code, launch_slot_reused_after_brisc_finished_is_not_flagged)
{
	static const struct { uint32_t enables; uint8_t mode, sig; } twins[] = { { 0, 0, 0x80 }, { 0x1F, 1, 0x00 } };
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = open_guarded();
		uint32_t pc;
		struct bh_core_result *res = rewrite_slot(dev, twins[k].enables, twins[k].mode, twins[k].sig, &pc);
		cr_expect_eq(res->status, BH_RUN_EXITED, "twin %u: %s", k, res->report);
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "twin %u", k);
		free(res);
		bh_device_close(dev);
	}
}

/* ------------------------------------------------------------------ #5 CB counters written during TRISC0's reset */

#define CB_RESET_BYTE 0x69u                                 /* p100a subordinate_sync.trisc0 (launch.md 6) */
#define CB_REG(s, r) (0xFFB40000u + 0x1000u * (s) + 4u * (r))   /* CB n on stream 8 + n (p100a) */
#define CB_WHY_TAIL " while TRISC0 resets the CB counters: the reset may zero it behind the writer, or its kernel " \
		    "started on counters not yet reset (start kernels only after subordinate_sync.trisc0 reads DONE)"
#define CB_READ_WHY_TAIL " while TRISC0 resets the CB counters: its kernel started on the last run's counters, which " \
			 "the reset is about to zero (start kernels only after subordinate_sync.trisc0 reads DONE)"
#define CB_RESET_OTHER "  other: trisc0, asked to zero the CB counters: its reset byte (subordinate_sync.trisc0, L1 " \
		       "0x69) holds 3 (RUN_SYNC_MSG_INIT_SYNC_REGISTERS), not yet DONE\n"

/* A device whose tile 0 follows the p100a profile (bh_device_use_profile registers subordinate_sync
 * + 1 as the CB reset byte), with that byte at `sync`. */
static struct bh_device *open_cb_reset(uint32_t checks, enum bh_check_mode mode, bool profile, uint8_t sync)
{
	struct bh_device *dev = t_open_checks(checks, mode);
	if (profile)
		cr_assert_eq(bh_device_use_profile(dev, bh_profile_default()), BH_OK);
	cr_assert_eq(bh_l1_write(dev, 0, CB_RESET_BYTE, &sync, 1), BH_OK);
	return dev;
}

/* NCRISC pushes a page into CB0 (tiles_received 0 -> 1), BRISC zeroes CB31's tiles_acked itself:
 * both while TRISC0 has been asked to reset the counters. Each is stopped at its store and the
 * register keeps its value. */
Test(checks_code, cb_reset_window_counter_write_during_trisc0_reset_stops_the_writer)
{
	static const struct {
		enum bh_core_id core;
		unsigned stream, reg;
		uint32_t v;
		const char *why;
	} bugs[] = {
		{ BH_CORE_NCRISC, 8, 10, 1, "  why: ncrisc writes CB0 tiles_received 0x0 -> 0x1" CB_WHY_TAIL },
		{ BH_CORE_BRISC, 39, 8, 0, "  why: brisc writes CB31 tiles_acked 0x0 -> 0x0" CB_WHY_TAIL },
	};
	for (unsigned k = 0; k < N(bugs); k++) {
		struct bh_device *dev = open_cb_reset(0, BH_CHECK_STOP, true, 3);
		struct prog p = { 0 };
		uint32_t pc = emit_store_pc(&p, bugs[k].core, CB_REG(bugs[k].stream, bugs[k].reg), bugs[k].v);
		emit_exit_with(&p, 0);
		struct bh_core_result *res = run_checked(dev, bugs[k].core, &p);
		assert_has(res->report, "  access: 4-byte store to ");
		cr_expect_eq(bh_stream_read(dev->tiles[0], bugs[k].stream, bugs[k].reg), 0, "the refused write landed");
		expect_check(dev, res, bugs[k].core, "cb-reset-window", pc, CB_RESET_OTHER, bugs[k].why);
	}
}

/* Not judged: TRISC0's own writes in the window (the reset itself), any write once the byte is back
 * at DONE, a stream outside the profile's CB layout, a tile with no profile registered, and the
 * check left out. Every write lands and nothing is found. */
Test(checks_code, cb_reset_window_writes_outside_the_window_or_by_trisc0_are_not_flagged)
{
	static const struct {
		enum bh_core_id core;
		unsigned stream;
		uint8_t sync;
		bool profile;
		uint32_t checks;
	} twins[] = {
		{ BH_CORE_TRISC0, 8, 3, true, 0 },
		{ BH_CORE_NCRISC, 8, 0, true, 0 },
		{ BH_CORE_NCRISC, 40, 3, true, 0 },
		{ BH_CORE_NCRISC, 8, 3, false, 0 },
		{ BH_CORE_BRISC, 8, 3, true, BH_CHECKS_EXACT | (BH_CHECKS_DEFAULT & ~BH_CHECK_BIT(BH_CHECK_CB_RESET_WINDOW)) },
	};
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = open_cb_reset(twins[k].checks, BH_CHECK_STOP, twins[k].profile, twins[k].sync);
		struct prog p = { 0 };
		emit_store_pc(&p, twins[k].core, CB_REG(twins[k].stream, 10), 1);
		emit_exit_with(&p, 0);
		struct bh_core_result *res = run_checked(dev, twins[k].core, &p);
		cr_expect_eq(res->status, BH_RUN_EXITED, "twin %u: %s", k, res->report);
		cr_expect_eq(bh_stream_read(dev->tiles[0], twins[k].stream, 10), 1, "twin %u", k);
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "twin %u", k);
		free(res);
		bh_device_close(dev);
	}
}

/* A kernel started in the window shows at its first CB call: NCRISC's cb_wait_front reads CB0's
 * tiles_received, BRISC's cb_reserve_back CB31's tiles_acked, each still at the last run's 4
 * because TRISC0 has not zeroed them yet. Each core is stopped at its load, naming the value. */
Test(checks_code, cb_reset_window_read_of_a_stale_counter_stops_the_reader)
{
	static const struct {
		enum bh_core_id core;
		unsigned stream, reg;
		const char *why;
	} bugs[] = {
		{ BH_CORE_NCRISC, 8, 10, "  why: ncrisc reads CB0 tiles_received 0x4" CB_READ_WHY_TAIL },
		{ BH_CORE_BRISC, 39, 8, "  why: brisc reads CB31 tiles_acked 0x4" CB_READ_WHY_TAIL },
	};
	for (unsigned k = 0; k < N(bugs); k++) {
		struct bh_device *dev = open_cb_reset(0, BH_CHECK_STOP, true, 3);
		bh_stream_write(dev->tiles[0], bugs[k].stream, 10, 4);   /* received first: a pop needs pages */
		bh_stream_write(dev->tiles[0], bugs[k].stream, bugs[k].reg, 4);
		cr_assert_eq(bh_stream_read(dev->tiles[0], bugs[k].stream, bugs[k].reg), 4);
		struct prog p = { 0 };
		emit_li(&p, T0, CB_REG(bugs[k].stream, bugs[k].reg));
		uint32_t pc = core_code_at[bugs[k].core] + (uint32_t)prog_here(&p);
		emit(&p, lw(A0, 0, T0));
		emit_exit_with(&p, 0);
		struct bh_core_result *res = run_checked(dev, bugs[k].core, &p);
		assert_has(res->report, "  access: 4-byte load from ");
		expect_check(dev, res, bugs[k].core, "cb-reset-window", pc, CB_RESET_OTHER, bugs[k].why);
	}
}

/* Not judged: a read of 0 in the window (what the reset leaves), TRISC0's own read, and a read of
 * the stale counter once the byte is back at DONE. Each core reads to the end and exits with the
 * value it read; nothing is found. */
Test(checks_code, cb_reset_window_reads_of_zero_by_trisc0_or_after_done_are_not_flagged)
{
	static const struct {
		enum bh_core_id core;
		uint8_t sync;
		uint32_t v;
	} twins[] = {
		{ BH_CORE_NCRISC, 3, 0 },
		{ BH_CORE_TRISC0, 3, 4 },
		{ BH_CORE_NCRISC, 0, 4 },
	};
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = open_cb_reset(0, BH_CHECK_STOP, true, twins[k].sync);
		bh_stream_write(dev->tiles[0], 8, 10, twins[k].v);
		struct prog p = { 0 };
		emit_load_word(&p, A0, CB_REG(8, 10));
		emit_exit(&p);
		cr_expect_eq(run_core(dev, twins[k].core, &p), (int)twins[k].v, "twin %u", k);
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "twin %u", k);
		bh_device_close(dev);
	}
}

/* ------------------------------------------------------------------ #9 cb-ownership, the load side */

#define CTRL_READ 0x2090u   /* NOC_CTRL of a read (type 0), as test_noc.c */
#define OWN_CHECKS (BH_CHECKS_EXACT | BH_CHECKS_DEFAULT | BH_CHECK_BIT(BH_CHECK_CB_OWNERSHIP))
#define OWN_FIFO 0x30000u   /* CB0's FIFO: 2 pages of 64 bytes (NOC_SRC, 0x20000, is a NoC source) */
#define OWN_PAGE 64u

/* A device with CB0 (stream 8, p100a) at OWN_FIFO, 2 pages, on which BRISC pushed one page (the
 * producer is known: the core that wrote tiles_received). */
static struct bh_device *open_cb_pushed(void)
{
	struct bh_device *dev = open_cb_reset(OWN_CHECKS, BH_CHECK_STOP, true, 0);
	cr_assert(bh_stream_set_cb_config(dev->tiles[0], 0, OWN_FIFO, 2, OWN_PAGE));
	struct prog b = { 0 };
	emit_store_word(&b, CB_REG(8, 10), 1);
	emit_exit_with(&b, 0);
	cr_assert_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	return dev;
}

/* NCRISC reads slot 1, which BRISC has not pushed: stopped at its load, naming the slot, the
 * counters and the producer. */
Test(checks_code, cb_ownership_load_from_an_unpublished_slot_stops_the_reader)
{
	struct bh_device *dev = open_cb_pushed();
	struct prog p = { 0 };
	emit_li(&p, A0, 7);
	emit_li(&p, T0, OWN_FIFO + OWN_PAGE + 8);
	uint32_t pc = core_code_at[BH_CORE_NCRISC] + (uint32_t)prog_here(&p);
	emit(&p, lw(A0, 0, T0));
	emit_exit(&p);
	struct bh_core_result *res = run_checked(dev, BH_CORE_NCRISC, &p);
	assert_has(res->report, "  access: 4-byte load from 0x00030048 in CB0 slot 1 of 2 (L1 0x30040)\n");
	expect_check(dev, res, BH_CORE_NCRISC, "cb-ownership", pc,
		     "  other: brisc, the producer of CB0: it has pushed tiles_received to 0x1 (tiles_acked 0x0)\n",
		     "  why: 4-byte load by ncrisc from CB0 slot 1, which holds no published page (tiles_acked 0x0, "
		     "tiles_received 0x1): read only pages cb_wait_front gave you, before cb_pop_front");
}

/* Not judged: NCRISC's load from the published slot 0, BRISC's (the producer's) own load from
 * slot 1, and with the check off NCRISC's load from slot 1. Each exits with the word it read. */
Test(checks_code, cb_ownership_loads_of_published_pages_or_by_the_producer_are_not_flagged)
{
	static const struct {
		enum bh_core_id core;
		uint32_t off;
		bool off_check;
	} twins[] = {
		{ BH_CORE_NCRISC, 8, false },
		{ BH_CORE_BRISC, OWN_PAGE + 8, false },
		{ BH_CORE_NCRISC, OWN_PAGE + 8, true },
	};
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = twins[k].off_check ? open_cb_reset(0, BH_CHECK_STOP, true, 0) : open_cb_pushed();
		if (twins[k].off_check)
			cr_assert(bh_stream_set_cb_config(dev->tiles[0], 0, OWN_FIFO, 2, OWN_PAGE));
		uint32_t word = 0x40 + k;
		cr_assert_eq(bh_l1_write(dev, 0, OWN_FIFO + twins[k].off, &word, 4), BH_OK);
		struct prog p = { 0 };
		emit_load_word(&p, A0, OWN_FIFO + twins[k].off);
		emit_exit(&p);
		cr_expect_eq(run_core(dev, twins[k].core, &p), (int)word, "twin %u", k);
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "twin %u", k);
		bh_device_close(dev);
	}
}

/* BRISC NoC-writes a page from NOC_SRC into CB0 slot `slot` of its own tile. */
static struct bh_core_result *noc_write_into_cb(struct bh_device *dev, unsigned slot, uint32_t *pc)
{
	return brisc_noc_write(dev, OWN_FIFO + slot * OWN_PAGE, OWN_PAGE, pc);
}

/* BRISC NoC-writes a page to dst, which reaches CB0 page 0 (BRISC pushed it, nobody popped it):
 * refused, the initiator stopped at its CMD_CTRL store, page 0 keeps its bytes; the report's why
 * goes on after "lands 64 bytes at " with `at`. */
static void expect_held_page_write_refused(uint32_t dst, const char *at)
{
	struct bh_device *dev = open_cb_pushed();
	uint32_t before = 0x5A5A5A5Au, after = 0, pc;
	cr_assert_eq(bh_l1_write(dev, 0, OWN_FIFO, &before, 4), BH_OK);
	struct bh_core_result *res = brisc_noc_write(dev, dst, OWN_PAGE, &pc);
	char why[320];
	snprintf(why, sizeof why, "  why: NoC0 write issued by (1,2) brisc at pc 0x%08x lands 64 bytes at %s", pc, at);
	cr_assert_eq(bh_l1_read(dev, 0, OWN_FIFO, &after, 4), BH_OK);
	cr_expect_eq(after, before, "the refused write landed");
	expect_check(dev, res, BH_CORE_BRISC, "cb-ownership", pc,
		     "  other: the consumer of CB0: it has not popped page 0x0 yet (tiles_acked 0x0, tiles_received 0x1)\n",
		     why);
}

/* A NoC write landing in page 0 (a NoC read pushed before its barrier looks the same). */
Test(checks_code, cb_ownership_noc_write_into_a_held_page_stops_the_initiator)
{
	expect_held_page_write_refused(OWN_FIFO, "0x30000 in CB0 page 0x0 of (1,2), which is published and the consumer "
				       "still holds: a NoC read into a CB page must complete (noc_async_read_barrier) "
				       "before cb_push_back, and a write may fill only pages the producer reserved");
}

/* A write whose first bytes lie before the FIFO and whose rest lands in page 0 is judged by every
 * page it covers. */
Test(checks_code, cb_ownership_noc_write_reaching_into_a_held_page_stops_the_initiator)
{
	expect_held_page_write_refused(OWN_FIFO - 32, "0x2ffe0, some of them in CB0 page 0x0 of (1,2), which is "
				       "published and the consumer still holds");
}

/* The twin: the same write into slot 1, which the producer has not published, lands. */
Test(checks_code, cb_ownership_noc_write_into_an_unpublished_page_is_not_flagged)
{
	struct bh_device *dev = open_cb_pushed();
	uint32_t pc, src = 0x1234ABCDu, got = 0;
	cr_assert_eq(bh_l1_write(dev, 0, NOC_SRC, &src, 4), BH_OK);
	struct bh_core_result *res = noc_write_into_cb(dev, 1, &pc);
	cr_expect_eq(res->status, BH_RUN_EXITED, "%s", res->report);
	cr_assert_eq(bh_l1_read(dev, 0, OWN_FIFO + OWN_PAGE, &got, 4), BH_OK);
	cr_expect_eq(got, src);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	free(res);
	bh_device_close(dev);
}

/* ---------------------------------------- cb-ownership before the first push; a NoC write's source */

/* CB0 at OWN_FIFO, 2 pages, that nobody has pushed to or written. */
static struct bh_device *open_cb_fresh(void)
{
	struct bh_device *dev = open_cb_reset(OWN_CHECKS, BH_CHECK_STOP, true, 0);
	cr_assert(bh_stream_set_cb_config(dev->tiles[0], 0, OWN_FIFO, 2, OWN_PAGE));
	return dev;
}

/* A program of `core` that loads the word at addr and exits with it; *pc is the load's. */
static struct prog load_and_exit(enum bh_core_id core, uint32_t addr, uint32_t *pc)
{
	struct prog p = { 0 };
	emit_li(&p, T0, addr);
	*pc = core_code_at[core] + (uint32_t)prog_here(&p);
	emit(&p, lw(A0, 0, T0));
	emit_exit(&p);
	return p;
}

#define OWN_LOAD_WHY(slot, rcv) \
	"  why: 4-byte load by ncrisc from CB0 slot " #slot ", which holds no published page (tiles_acked 0x0, " \
	"tiles_received " #rcv "): read only pages cb_wait_front gave you, before cb_pop_front"

/* Nobody has pushed, but BRISC has stored into slot 0 (it is filling the CB): NCRISC's load from
 * slot 0 is judged at once. */
Test(checks_code, cb_ownership_load_while_another_core_fills_the_cb_stops_the_reader)
{
	struct bh_device *dev = open_cb_fresh();
	run_store_word(dev, BH_CORE_BRISC, OWN_FIFO + 4, 0x77);
	uint32_t pc;
	struct prog p = load_and_exit(BH_CORE_NCRISC, OWN_FIFO + 4, &pc);
	expect_check(dev, run_checked(dev, BH_CORE_NCRISC, &p), BH_CORE_NCRISC, "cb-ownership", pc,
		     "  other: brisc, the producer of CB0: it writes the CB's free slots and has pushed nothing yet\n",
		     OWN_LOAD_WHY(0, 0x0));
}

/* The same with the CB filled by a NoC read NCRISC issued (landed: it waited for the response):
 * BRISC's load is judged at once, naming NCRISC. */
Test(checks_code, cb_ownership_load_while_a_noc_read_fills_the_cb_stops_the_reader)
{
	struct bh_device *dev = open_cb_fresh();
	struct prog n = { 0 };
	emit_program_noc_write(&n, BH_CORE_NCRISC, CTRL_READ, TILE0_XY, OWN_FIFO, OWN_PAGE);   /* NOC_SRC -> slot 0 */
	emit_issue(&n, BH_CORE_NCRISC);
	emit_wait_one(&n, NOC0_RD_RESPS);
	emit_exit_with(&n, 0);
	cr_assert_eq(run_core(dev, BH_CORE_NCRISC, &n), 0);
	uint32_t pc;
	struct prog b = load_and_exit(BH_CORE_BRISC, OWN_FIFO, &pc);
	expect_check(dev, run_checked(dev, BH_CORE_BRISC, &b), BH_CORE_BRISC, "cb-ownership", pc,
		     "  other: ncrisc, the producer of CB0: it writes the CB's free slots and has pushed nothing yet\n",
		     "  why: 4-byte load by brisc from CB0 slot 0, which holds no published page");
}

/* NCRISC loads slot 0 before anybody wrote or pushed: nothing says yet whose page it is, and it
 * reads on. BRISC's first push decides: the finding is recorded against NCRISC at its load, and
 * NCRISC, which has exited, stops faulted. */
Test(checks_code, cb_ownership_load_before_anything_is_judged_at_the_first_push)
{
	struct bh_device *dev = open_cb_fresh();
	uint32_t word = 0x5EED, pc;
	cr_assert_eq(bh_l1_write(dev, 0, OWN_FIFO + 8, &word, 4), BH_OK);
	struct prog p = load_and_exit(BH_CORE_NCRISC, OWN_FIFO + 8, &pc);
	cr_assert_eq(run_core(dev, BH_CORE_NCRISC, &p), word);
	cr_assert_eq(bh_device_findings(dev, NULL, 0), 0, "judged before the push");
	run_store_word(dev, BH_CORE_BRISC, CB_REG(8, 10), 1);
	struct bh_core_result *res = result_new();
	bh_core_result(dev, 0, BH_CORE_NCRISC, res);
	assert_has(res->report, "  access: 4-byte load from 0x00030008 in CB0 slot 0 of 2 (L1 0x30000)\n");
	expect_check(dev, res, BH_CORE_NCRISC, "cb-ownership", pc,
		     "  other: brisc, the producer of CB0: its first push (tiles_received 0x0 -> 0x1) came after this "
		     "read\n",
		     "  why: 4-byte load by ncrisc from CB0 slot 0 before anything was pushed to it (tiles_received 0x0): "
		     "read only pages cb_wait_front gave you, before cb_pop_front (found at the first push)");
}

/* Not judged: the core that pushes first read a slot before (BRISC), the core filling the CB reads
 * back what it wrote and pushes it (NCRISC), and a read made before a counter reset (the next
 * kernels' roles start anew). Each load exits with its word; nothing is found. */
Test(checks_code, cb_ownership_reads_by_the_core_that_fills_or_pushes_first_are_not_flagged)
{
	static const struct {
		enum bh_core_id reader, pusher;
		bool fill, reset;
	} twins[] = {
		{ BH_CORE_BRISC, BH_CORE_BRISC, false, false },
		{ BH_CORE_NCRISC, BH_CORE_NCRISC, true, false },
		{ BH_CORE_NCRISC, BH_CORE_BRISC, false, true },
	};
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = open_cb_fresh();
		uint32_t word = 0x700 + k, pc;
		if (twins[k].fill)
			run_store_word(dev, twins[k].reader, OWN_FIFO, word);
		else
			cr_assert_eq(bh_l1_write(dev, 0, OWN_FIFO, &word, 4), BH_OK);
		struct prog p = load_and_exit(twins[k].reader, OWN_FIFO, &pc);
		cr_expect_eq(run_core(dev, twins[k].reader, &p), word, "twin %u", k);
		if (twins[k].reset)
			run_store_word(dev, BH_CORE_TRISC0, CB_REG(8, 10), 0);
		run_store_word(dev, twins[k].pusher, CB_REG(8, 10), 1);
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "twin %u", k);
		bh_device_close(dev);
	}
}

/* NCRISC (a writer kernel) sends CB0 slot `slot` by a NoC write to 0x50000, BRISC having pushed
 * page 0 only; returns its result, *pc its CMD_CTRL store. */
static struct bh_core_result *noc_write_from_cb(struct bh_device *dev, unsigned slot, uint32_t *pc)
{
	struct prog p = { 0 };
	emit_program_noc_write(&p, BH_CORE_NCRISC, CTRL_WRITE_NONPOSTED, TILE0_XY, 0x50000, OWN_PAGE);
	emit_store_word(&p, CMDBUF0(0) + N_TARG_LO, OWN_FIFO + slot * OWN_PAGE);
	*pc = emit_issue(&p, BH_CORE_NCRISC);
	emit_wait_one(&p, NOC0_WR_ACKS);
	emit_exit_with(&p, 0);
	return run_checked(dev, BH_CORE_NCRISC, &p);
}

/* Slot 1 holds no published page: the write is refused at its CMD_CTRL store (noc_async_write of a
 * page before cb_wait_front) and nothing lands. */
Test(checks_code, cb_ownership_noc_write_from_an_unpublished_slot_stops_the_initiator)
{
	struct bh_device *dev = open_cb_pushed();
	uint32_t pc, got = 0xA5A5A5A5u, src = 0x11111111u;
	cr_assert_eq(bh_l1_write(dev, 0, OWN_FIFO + OWN_PAGE, &src, 4), BH_OK);
	cr_assert_eq(bh_l1_write(dev, 0, 0x50000, &got, 4), BH_OK);
	struct bh_core_result *res = noc_write_from_cb(dev, 1, &pc);
	cr_assert_eq(bh_l1_read(dev, 0, 0x50000, &got, 4), BH_OK);
	cr_expect_eq(got, 0xA5A5A5A5u, "the refused write landed");
	expect_check(dev, res, BH_CORE_NCRISC, "cb-ownership", pc,
		     "  other: brisc, the producer of CB0: it has pushed tiles_received to 0x1 (tiles_acked 0x0)\n",
		     "  why: NoC write issued by ncrisc reads its 64-byte source at 0x30040 from CB0 slot 1, which holds "
		     "no published page (tiles_acked 0x0, tiles_received 0x1): send only pages cb_wait_front gave you, "
		     "and pop them only after noc_async_write_barrier");
}

/* The twin: the published page 0 goes out and lands. */
Test(checks_code, cb_ownership_noc_write_from_a_published_page_is_not_flagged)
{
	struct bh_device *dev = open_cb_pushed();
	uint32_t pc, got = 0, src = 0x22222222u;
	cr_assert_eq(bh_l1_write(dev, 0, OWN_FIFO, &src, 4), BH_OK);
	struct bh_core_result *res = noc_write_from_cb(dev, 0, &pc);
	cr_expect_eq(res->status, BH_RUN_EXITED, "%s", res->report);
	cr_assert_eq(bh_l1_read(dev, 0, 0x50000, &got, 4), BH_OK);
	cr_expect_eq(got, src);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	free(res);
	bh_device_close(dev);
}

/* Log mode: the write lands, the core runs on, and the finding is recorded once. */
Test(checks_code, cb_reset_window_log_mode_records_the_write_and_goes_on)
{
	struct bh_device *dev = open_cb_reset(0, BH_CHECK_LOG, true, 3);
	struct prog p = { 0 };
	uint32_t pc = emit_store_pc(&p, BH_CORE_NCRISC, CB_REG(9, 10), 2);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_NCRISC, &p), 0);
	cr_expect_eq(bh_stream_read(dev->tiles[0], 9, 10), 2);
	char buf[2048], at[32];
	cr_assert_eq(bh_device_findings(dev, buf, sizeof buf), 1, "%s", buf);
	snprintf(at, sizeof at, "  pc 0x%08x", pc);
	assert_has(buf, "check cb-reset-window: on tile 0 (1,2) core ncrisc\n");
	assert_has(buf, at);
	assert_has(buf, CB_RESET_OTHER);
	assert_has(buf, "  why: ncrisc writes CB1 tiles_received 0x0 -> 0x2" CB_WHY_TAIL);
	bh_device_close(dev);
}
