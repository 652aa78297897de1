/* The core and Tensix misuse detectors (fabric/check.h, races.md #14, #16, #17, #20; #5 for a
 * TRISC's STOREREG, the rest of #5 is in test_checks_code.c): for each a
 * program with the bug is stopped with the exact report (check, core, pc, other party, why), and
 * its fixed twin runs to its end with no finding. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "tensix_testlib.h"

#define WRCFG(gpr, idx) TT(0xB0, (uint32_t)(gpr) << 16 | (idx))
#define RDCFG(gpr, idx) TT(0xB1, (uint32_t)(gpr) << 16 | (idx))
#define STALL_B7 0x80u        /* block the configuration unit */
#define STALL_C12 0x1000u     /* while any thread has an instruction in the configuration unit */
#define SCRATCH0 209u         /* Config SCRATCH_SEC0 */
#define MAILBOX_QUERY 0xFFEC0004u   /* B -> this core: "has data", no pop */
#define FLAG 0x10300u

/* expect_check (testlib.h), and that finding is the only one. */
static void expect_one_check(struct bh_device *dev, struct bh_core_result *res, enum bh_core_id core, const char *name,
			     uint32_t pc, const char *other, const char *why)
{
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 1);
	expect_check(dev, res, core, name, pc, other, why);
}

/* p ends: exit 0, run on core, no finding; closes dev. */
static void expect_clean(struct bh_device *dev, enum bh_core_id core, struct prog *p, const char *what)
{
	emit_exit_with(p, 0);
	cr_expect_eq(run_core(dev, core, p), 0, "%s", what);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "%s", what);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------ #14 cfg-hazard */

/* RDCFG of the word the WRCFG right before it writes: flagged at the RDCFG's push, naming the
 * WRCFG. */
Test(checks_core, cfg_hazard_rdcfg_right_after_wrcfg_of_its_word_is_flagged)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_push(&p, SETDMAREG(4, 0x1234));
	uint32_t wr = emit_push_at(&p, BH_CORE_TRISC0, WRCFG(2, SCRATCH0));
	uint32_t pc;
	struct bh_core_result *res = run_push_checked(dev, BH_CORE_TRISC0, &p, RDCFG(3, SCRATCH0), &pc);
	char other[256];
	snprintf(other, sizeof other,
		 "  other: the WRCFG right before it: Tensix thread 0, instruction 0xb00200d1 WRCFG cfg_reg=0xd1 "
		 "wr128b=0x0 gpr_address=0x2 (pushed by trisc0 at pc 0x%08x)\n", wr);
	expect_one_check(dev, res, BH_CORE_TRISC0, "cfg-hazard", pc, other,
		     "  why: Tensix thread 0, instruction 0xb10300d1 RDCFG cfg_reg=0xd1 gpr_address=0x3 (pushed by trisc0): "
		     "reads configuration word 209 in the cycle after the WRCFG before it wrote it, before the write lands "
		     "(put a NOP between, WRCFG.md)");
}

/* The 128-bit WRCFG covers four words: an RMWCIB of the third one right after it is flagged. */
Test(checks_core, cfg_hazard_rmwcib_inside_a_128_bit_wrcfg_is_flagged)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_push(&p, WRCFG(4, 208u) | 1u << 15);   /* words 208..211 from GPRs 4..7 */
	uint32_t pc;
	struct bh_core_result *res = run_push_checked(dev, BH_CORE_TRISC1, &p, TT(0xB3, 0xFFu << 16 | 0x5Au << 8 | 210u), &pc);
	expect_one_check(dev, res, BH_CORE_TRISC1, "cfg-hazard", pc, "  other: the WRCFG right before it: ",
		     "reads configuration word 210 in the cycle after the WRCFG before it wrote it");
}

/* The twins: a NOP between; another word; the read is a WRCFG of the same word (no read). */
Test(checks_core, cfg_hazard_wrcfg_then_nop_or_other_word_is_not_flagged)
{
	static const uint32_t twins[][3] = {
		{ WRCFG(2, SCRATCH0), TT_NOP, RDCFG(3, SCRATCH0) },
		{ WRCFG(2, SCRATCH0), RDCFG(3, SCRATCH0 + 1) },
		{ WRCFG(2, SCRATCH0), WRCFG(3, SCRATCH0) },
	};
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = t_open();
		struct prog p = { 0 };
		for (unsigned j = 0; j < N(twins[k]) && twins[k][j]; j++)
			emit_push(&p, twins[k][j]);
		emit_tensix_sync(&p);
		expect_clean(dev, BH_CORE_TRISC0, &p, "wrcfg twin");
	}
}

/* WRCFG of a GPR an RDCFG has not written yet (a NOP between is not enough): flagged at the
 * WRCFG, naming the RDCFG. */
Test(checks_core, cfg_hazard_gpr_read_before_the_rdcfg_result_is_flagged)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	uint32_t rd = emit_push_at(&p, BH_CORE_TRISC2, RDCFG(3, SCRATCH0));
	emit_push(&p, TT_NOP);
	uint32_t pc;
	struct bh_core_result *res = run_push_checked(dev, BH_CORE_TRISC2, &p, STOREREG(3, 0xFFB40000u + 0x1000u * 8 + 0x20u), &pc);
	char other[256];
	snprintf(other, sizeof other,
		 "  other: the RDCFG writing it: Tensix thread 2, instruction 0xb10300d1 RDCFG cfg_reg=0xd1 "
		 "gpr_address=0x3 (pushed by trisc2 at pc 0x%08x)\n", rd);
	expect_one_check(dev, res, BH_CORE_TRISC2, "cfg-hazard", pc, other,
		     "(pushed by trisc2): reads GPR 3 before the RDCFG result has arrived (wait with STALLWAIT C12, the "
		     "configuration unit idle, first)");
}

/* The twins: STALLWAIT C12 between; a GPR the RDCFG does not write. */
Test(checks_core, cfg_hazard_gpr_read_after_stallwait_c12_is_not_flagged)
{
	static const uint32_t twins[][3] = {
		{ RDCFG(3, SCRATCH0), STALLWAIT(STALL_B7 | 0x20u, STALL_C12), WRCFG(3, SCRATCH0 + 1) },
		{ RDCFG(3, SCRATCH0), DMAOP(0x58, 4, 5, 6, 0) },
	};
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = t_open();
		struct prog p = { 0 };
		for (unsigned j = 0; j < N(twins[k]) && twins[k][j]; j++)
			emit_push(&p, twins[k][j]);
		emit_tensix_sync(&p);
		expect_clean(dev, BH_CORE_TRISC1, &p, "rdcfg twin");
	}
}

/* ------------------------------------------------------------------ #16 ttsync-load */

/* tensix_sync's load, then `gap` instructions that do not use a0, then a load from addr. Returns
 * the second load's pc; *first gets the TTSync load's. */
static uint32_t emit_ttsync_then_load(struct prog *p, enum bh_core_id core, unsigned gap, uint32_t addr,
				      uint32_t *first)
{
	emit_li(p, T0, PCBUF0);
	emit_li(p, T1, addr);
	emit(p, sw(X0, 4, T0));
	*first = core_code_at[core] + (uint32_t)prog_here(p);
	emit(p, lw(A0, 4, T0));
	for (unsigned k = 0; k < gap; k++)
		emit(p, addi(A2, A2, 1));
	uint32_t pc = core_code_at[core] + (uint32_t)prog_here(p);
	emit(p, lw(A1, 0, T1));
	return pc;
}

Test(checks_core, ttsync_load_semaphore_read_right_after_tensix_sync_is_flagged)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	uint32_t first, pc = emit_ttsync_then_load(&p, BH_CORE_TRISC0, 0, SEM(2), &first);
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_checked(dev, BH_CORE_TRISC0, &p);
	char other[256];
	snprintf(other, sizeof other,
		 "  other: the TTSync load at pc 0x%08x (lw a0,4(t0)) from 0xffe80004 (CoprocessorDoneCheck), 0 "
		 "instructions before, its result unused since\n", first);
	expect_one_check(dev, res, BH_CORE_TRISC0, "ttsync-load", pc, other,
		     "  why: a load from the PCBuf range started while a TTSync load may still be outstanding (wrong values "
		     "or a hang on silicon, sync.md 4): use its result or run 7 other instructions first");
}

/* Six other instructions are not enough, also before a mailbox load. */
Test(checks_core, ttsync_load_mailbox_read_six_instructions_later_is_flagged)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	uint32_t first, pc = emit_ttsync_then_load(&p, BH_CORE_TRISC2, 6, MAILBOX_QUERY, &first);
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_checked(dev, BH_CORE_TRISC2, &p);
	expect_one_check(dev, res, BH_CORE_TRISC2, "ttsync-load", pc, "6 instructions before, its result unused since",
		     "  why: a load from the mailbox range started while a TTSync load may still be outstanding");
}

/* The twins: seven other instructions between; the result used at once (as tensix_sync does). */
Test(checks_core, ttsync_load_after_seven_instructions_or_using_the_result_is_not_flagged)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	uint32_t first;
	emit_ttsync_then_load(&p, BH_CORE_TRISC0, 7, SEM(2), &first);
	expect_clean(dev, BH_CORE_TRISC0, &p, "seven between");

	dev = t_open();
	struct prog q = { 0 };
	emit_li(&q, T0, PCBUF0);
	emit(&q, sw(X0, 4, T0));
	emit(&q, lw(A0, 4, T0));
	emit(&q, sw(A0, 0, T0));   /* the result stored (a use), as tt-metal's tensix_sync does */
	emit(&q, lw(A1, 0x28, T0));
	expect_clean(dev, BH_CORE_TRISC1, &q, "result used");
}

/* ------------------------------------------------------------------ #17 brisc-push */

/* li t0, addr; li t1, v; sw t1, 0(t0): returns the store's pc for a program of `core`. */
static uint32_t emit_store_at(struct prog *p, enum bh_core_id core, uint32_t addr, uint32_t v)
{
	emit_li(p, T0, addr);
	emit_li(p, T1, v);
	uint32_t pc = core_code_at[core] + (uint32_t)prog_here(p);
	emit(p, sw(T1, 0, T0));
	return pc;
}

/* TRISC1 is out of reset (parked in a poll): BRISC's push into thread 1 is flagged. */
Test(checks_core, brisc_push_while_the_trisc_runs_is_flagged)
{
	struct bh_device *dev = t_open();
	start_parked_poller(dev, BH_CORE_TRISC1, core_code_at[BH_CORE_TRISC1], FLAG);
	struct prog b = { 0 };
	uint32_t pc = emit_store_at(&b, BH_CORE_BRISC, 0xFFE50000u, SEMINIT(1u << 2, 1, 0));
	emit_exit_with(&b, 0);
	struct bh_core_result *res = run_checked(dev, BH_CORE_BRISC, &b);
	expect_one_check(dev, res, BH_CORE_BRISC, "brisc-push", pc,
		     "  other: trisc1, out of reset and running (last seen at pc 0x",
		     "  why: brisc pushes 0xa3100010 SEMINIT sem_sel=0x4 init_value=0x0 max_value=0x1 into Tensix thread 1 "
		     "while trisc1 runs: a trisc1 push in the same cycle would be lost (design notes, unverified on "
		     "silicon); push from brisc only while the TRISC is held in reset");
}

/* The twins: TRISC1 held in reset, or already exited, when BRISC pushes. */
Test(checks_core, brisc_push_while_the_trisc_is_in_reset_or_exited_is_not_flagged)
{
	for (unsigned exited = 0; exited < 2; exited++) {
		struct bh_device *dev = t_open();
		if (exited) {
			struct prog t = { 0 };
			emit_exit_with(&t, 0);
			cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &t), 0);
		}
		struct prog b = { 0 };
		emit_store_at(&b, BH_CORE_BRISC, 0xFFE50000u, SEMINIT(1u << 2, 1, 0));
		expect_clean(dev, BH_CORE_BRISC, &b, exited ? "exited" : "in reset");
	}
}

/* ------------------------------------------------------------------ #20 poll-no-fence */

/* [csrsi cfg0, 8;] li a1, addr; loop: [fence;] lw a0, 0(a1); beq a0, zero, loop; exit(a0).
 * Returns the branch's pc. */
static uint32_t emit_poll(struct prog *p, enum bh_core_id core, uint32_t addr, bool fence, bool cache_off)
{
	if (cache_off)
		emit(p, INSN_L0_CACHE_OFF);
	emit_li(p, A1, addr);
	int32_t loop = prog_here(p);
	if (fence)
		emit(p, INSN_FENCE);
	emit(p, lw(A0, 0, A1));
	uint32_t pc = core_code_at[core] + (uint32_t)prog_here(p);
	emit_branch(p, BEQ, A0, X0, loop);
	emit_exit(p);
	return pc;
}

Test(checks_core, poll_no_fence_l1_poll_with_the_l0_cache_on_is_flagged)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	uint32_t pc = emit_poll(&p, BH_CORE_NCRISC, FLAG, false, false);
	struct bh_core_result *res = run_checked(dev, BH_CORE_NCRISC, &p);
	char why[512];
	snprintf(why, sizeof why,
		 "  access: 4-byte load from 0x00010300 in L1\n"
		 "  why: the poll loop at 0x%08x..0x%08x (beq a0,zero,0x%x) reads L1 with the L0 data cache on (cfg0 bit 3 "
		 "clear) and no fence: on silicon it may spin on a stale cached value (fence each poll, as "
		 "invalidate_l1_cache() does)", pc - 4, pc, pc - 4);
	expect_one_check(dev, res, BH_CORE_NCRISC, "poll-no-fence", pc, NULL, why);
}

/* The twins park too and wake on the host's write: a fence in the loop; the L0 cache off; a
 * register (not L1) polled. */
Test(checks_core, poll_no_fence_fenced_or_cache_off_or_register_polls_are_not_flagged)
{
	static const struct {
		bool fence, cache_off;
		uint32_t addr;
	} twins[] = {
		{ true, false, FLAG },
		{ false, true, FLAG },
		{ false, false, 0xFFB12228u },   /* TRISC0_RESET_PC, a watchable tile control register */
	};
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = t_open();
		struct prog p = { 0 };
		emit_poll(&p, BH_CORE_BRISC, twins[k].addr, twins[k].fence, twins[k].cache_off);
		start_core(dev, BH_CORE_BRISC, &p);
		wait_parked(dev, 0, BH_CORE_BRISC);
		if (twins[k].addr == FLAG)
			set_l1(dev, FLAG, 0x40);
		else
			cr_assert_eq(bh_reg_write(dev, 0, twins[k].addr, 0x40), BH_OK);
		expect_exit(dev, 0, BH_CORE_BRISC, 0x40);
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "twin %u", k);
		bh_device_close(dev);
	}
}

/* ------------------------------------------------------------------ #5 cb-reset-window, Tensix side */

/* TRISC2's cb_push_back publishes tiles_received through the scalar unit (sync.md 2.2): a STOREREG
 * of GPR 24 into CB0's reg 10 while subordinate_sync.trisc0 (p100a: L1 0x69) holds 3 is TRISC2's
 * write in the window, flagged at its push. */
Test(checks_core, cb_reset_window_storereg_push_during_trisc0_reset_is_flagged)
{
	struct bh_device *dev = t_open();
	const uint8_t requested = 3;
	cr_assert_eq(bh_device_use_profile(dev, bh_profile_default()), BH_OK);
	cr_assert_eq(bh_l1_write(dev, 0, 0x69, &requested, 1), BH_OK);
	struct prog p = { 0 };
	emit_push(&p, SETDMAREG(2 * 24, 1));   /* GPR 24 = 1 */
	uint32_t pc;
	struct bh_core_result *res = run_push_checked(dev, BH_CORE_TRISC2, &p, STOREREG(24, 0xFFB40000u + 0x1000u * 8 + 0x28u), &pc);
	expect_one_check(dev, res, BH_CORE_TRISC2, "cb-reset-window", pc,
			 "  other: trisc0, asked to zero the CB counters: its reset byte (subordinate_sync.trisc0, L1 0x69) "
			 "holds 3 (RUN_SYNC_MSG_INIT_SYNC_REGISTERS), not yet DONE\n",
			 "trisc2 writes CB0 tiles_received 0x0 -> 0x1 while TRISC0 resets the CB counters");
}
