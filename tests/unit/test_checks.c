/* The detectors of synchronisation bugs (fabric/check.h, races.md): for each check a program with
 * the bug is stopped with the exact report (check, tile, core, pc, other party, why), and its
 * fixed twin runs to its end; log mode records each finding once and lets the run go on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/noc.h"
#include "host/device.h"
#include "testlib.h"
#include "tensix_testlib.h"

/* ------------------------------------------------------------------ the framework and its table */

Test(checks, every_check_has_a_name_that_parses_back_and_a_description)
{
	for (unsigned k = 0; k < BH_CHECK_COUNT; k++) {
		cr_assert_not_null(bh_check_name((enum bh_check)k));
		cr_expect_eq(bh_check_parse(bh_check_name((enum bh_check)k)), (int)k, "%s", bh_check_name((enum bh_check)k));
		cr_expect(strlen(bh_check_description((enum bh_check)k)) > 10);
	}
	cr_expect_eq(bh_check_parse("sem-reinit"), BH_CHECK_SEM_REINIT);
	cr_expect_eq(bh_check_parse("no-such-check"), -1);
	cr_expect_null(bh_check_name(BH_CHECK_COUNT));
	cr_expect_null(bh_check_description(BH_CHECK_COUNT));
}

/* ------------------------------------------------------------------ #13 Tensix semaphores */

/* A buggy sequence of Tensix pushes: the last word is flagged, at its push, with `why`. */
struct sem_bug {
	const char *check;
	enum bh_core_id core;
	uint32_t words[4];       /* ends at the flagged word (0 after it) */
	const char *why;
};

static const struct sem_bug sem_bugs[] = {
	/* SEMINIT of a semaphore still at 1 (posted, never taken). */
	{ "sem-reinit", BH_CORE_TRISC0, { SEMINIT(1u << 2, 2, 0), SEMPOST(1u << 2), SEMINIT(1u << 2, 2, 0) },
	  "  why: Tensix thread 0, instruction 0xa3200010 SEMINIT sem_sel=0x4 init_value=0x0 max_value=0x2 "
	  "(pushed by trisc0): SEMINIT of semaphore 2 while its value is 1 (max 2), not 0: it is still in use" },
	{ "sem-overflow", BH_CORE_TRISC2, { SEMINIT(1u << 1, 1, 0), SEMPOST(1u << 1), SEMPOST(1u << 1) },
	  "  why: Tensix thread 2, instruction 0xa4000008 SEMPOST sem_sel=0x2 (pushed by trisc2): "
	  "SEMPOST of semaphore 1 past its max: value 1, max 1" },
	{ "sem-underflow", BH_CORE_TRISC1, { SEMINIT(1u << 6, 2, 0), SEMGET(1u << 6) },
	  "  why: Tensix thread 1, instruction 0xa5000100 SEMGET sem_sel=0x40 (pushed by trisc1): "
	  "SEMGET of semaphore 6 at 0 (max 2): nothing was posted to take" },
};

/* The fixed twins: drained before SEMINIT, taken before the next SEMPOST, posted before SEMGET. */
static const uint32_t sem_twins[][5] = {
	{ SEMINIT(1u << 2, 2, 0), SEMPOST(1u << 2), SEMGET(1u << 2), SEMINIT(1u << 2, 2, 0) },
	{ SEMINIT(1u << 1, 1, 0), SEMPOST(1u << 1), SEMGET(1u << 1), SEMPOST(1u << 1) },
	{ SEMINIT(1u << 6, 2, 0), SEMPOST(1u << 6), SEMGET(1u << 6) },
};

Test(checks, tensix_semaphore_misuse_stops_the_pushing_core_at_the_push)
{
	for (unsigned b = 0; b < N(sem_bugs); b++) {
		const struct sem_bug *c = &sem_bugs[b];
		struct bh_device *dev = t_open();
		struct prog p = { 0 };
		uint32_t pc = 0;
		for (unsigned k = 0; k < N(c->words) && c->words[k]; k++)
			pc = emit_push_at(&p, c->core, c->words[k]);
		emit_tensix_sync(&p);
		emit_exit_with(&p, 0);
		struct bh_core_result *res = run_checked(dev, c->core, &p);
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 1, "%s", c->check);
		expect_check(dev, res, c->core, c->check, pc, NULL, c->why);
	}
}

/* Push words[0..n) (up to a 0 word) from `core`, sync, exit: the run must end with exit 0 and no
 * finding. Closes dev. */
static void expect_pushes_clean(struct bh_device *dev, enum bh_core_id core, const uint32_t *words, unsigned n,
				const char *what, unsigned idx)
{
	struct prog p = { 0 };
	for (unsigned k = 0; k < n && words[k]; k++)
		emit_push(&p, words[k]);
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, core, &p), 0, "%s %u", what, idx);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "%s %u", what, idx);
	bh_device_close(dev);
}

Test(checks, tensix_semaphore_twins_are_not_flagged)
{
	for (unsigned b = 0; b < N(sem_twins); b++)
		expect_pushes_clean(t_open(), BH_CORE_TRISC1, sem_twins[b], N(sem_twins[b]), "twin", b);
}

/* Thread 1 waits at its gate for semaphore 3 (SEMWAIT, then a sync-unit word it holds); TRISC0's
 * SEMINIT of semaphore 3 is flagged, naming the waiting thread. */
static uint32_t emit_waiter_on_sem3(struct prog *w)
{
	emit_push(w, SEMWAIT(0x2, 1u << 3, 1));   /* block the sync unit while semaphore 3 is zero */
	uint32_t held = emit_push_at(w, BH_CORE_TRISC1, SEMPOST(1u << 4));
	emit_exit_with(w, 0);
	return held;
}

Test(checks, sem_reinit_while_another_thread_waits_names_the_waiter)
{
	struct bh_device *dev = t_open();
	struct prog w = { 0 }, p = { 0 };
	bh_sem_init(tile0(dev), 0xFF, 1, 0);
	uint32_t held = emit_waiter_on_sem3(&w);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &w), 0);
	wait_report_has(dev, "tensix1: waits at the Wait Gate");
	uint32_t pc;
	struct bh_core_result *res = run_push_checked(dev, BH_CORE_TRISC0, &p, SEMINIT(1u << 3, 1, 0), &pc);
	char other[224];
	snprintf(other, sizeof other,
		 "  other: Tensix thread 1 held at its Wait Gate by SEMWAIT until semaphore 3 is non-zero (value 0, max 1) "
		 "(the held word pushed by trisc1 at pc 0x%08x)\n", held);
	expect_check(dev, res, BH_CORE_TRISC0, "sem-reinit", pc, other,
		     "SEMINIT of semaphore 3 while another thread waits on it (drain the users first)");
}

/* Thread 1 has a SEMWAIT on semaphore 3 latched (nothing gated came after it, so it has not
 * waited yet): TRISC0's SEMINIT of semaphore 3 is flagged, naming the latch. */
Test(checks, sem_reinit_while_another_thread_has_a_semwait_latched_names_the_latch)
{
	struct bh_device *dev = t_open();
	struct prog w = { 0 }, p = { 0 };
	bh_sem_init(tile0(dev), 0xFF, 1, 0);
	emit_push(&w, SEMWAIT(0x2, 1u << 3, 1));
	emit_tensix_sync(&w);
	emit_exit_with(&w, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &w), 0);
	uint32_t pc;
	struct bh_core_result *res = run_push_checked(dev, BH_CORE_TRISC0, &p, SEMINIT(1u << 3, 1, 0), &pc);
	expect_check(dev, res, BH_CORE_TRISC0, "sem-reinit", pc,
		     "  other: Tensix thread 1 with SEMWAIT wait_sem_cond=0x1 sem_sel=0x8 stall_res=0x2 latched (its next gated "
		     "instruction waits on it)\n",
		     "SEMINIT of semaphore 3 while another thread waits on it (drain the users first)");
}

/* The fixed twin: the waiter is released (SEMPOST) and takes the semaphore back to 0 (SEMGET)
 * before TRISC0 initialises it again. */
Test(checks, sem_reinit_after_the_waiter_left_is_not_flagged)
{
	struct bh_device *dev = t_open();
	struct prog w = { 0 }, p = { 0 };
	bh_sem_init(tile0(dev), 0xFF, 1, 0);
	emit_push(&w, SEMWAIT(0x2, 1u << 3, 1));
	emit_push(&w, SEMGET(1u << 3));
	emit_tensix_sync(&w);
	emit_exit_with(&w, 0);
	start_core(dev, BH_CORE_TRISC1, &w);
	wait_report_has(dev, "tensix1: waits at the Wait Gate");
	emit_push(&p, SEMPOST(1u << 3));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 0);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	struct prog q = { 0 };
	emit_push(&q, SEMINIT(1u << 3, 1, 0));
	emit_tensix_sync(&q);
	emit_exit_with(&q, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &q), 0);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* The TRISC semaphore window (store of 0 posts, of 1 gets) is checked at the store itself:
 * semaphore 5 (max 1) at `value`, one store of `stored`. */
static const struct {
	unsigned value;
	uint32_t stored;
	const char *check, *why;
} sem_window_bugs[] = {
	{ 1, 0, "sem-overflow",
	  "  access: 4-byte store to 0xffe80034 in PCBuf 0 / TTSync / Tensix semaphores\n"
	  "  why: semaphore post (store of 0) of Tensix semaphore 5 past its max: value 1, max 1 (value becomes 2)" },
	{ 0, 1, "sem-underflow",
	  "  why: semaphore get (store of 1) of Tensix semaphore 5 at 0 (max 1): nothing was posted to take" },
};

Test(checks, semaphore_window_misuse_stops_the_core_at_the_store)
{
	for (unsigned b = 0; b < N(sem_window_bugs); b++) {
		struct bh_device *dev = t_open();
		bh_sem_init(tile0(dev), 1u << 5, 1, sem_window_bugs[b].value);
		struct prog p = { 0 };
		uint32_t pc = emit_store_pc(&p, BH_CORE_TRISC0, SEM(5), sem_window_bugs[b].stored);
		emit_exit_with(&p, 0);
		struct bh_core_result *res = run_checked(dev, BH_CORE_TRISC0, &p);
		expect_check(dev, res, BH_CORE_TRISC0, sem_window_bugs[b].check, pc, NULL, sem_window_bugs[b].why);
	}
}

Test(checks, semaphore_window_get_then_post_is_not_flagged)
{
	struct bh_device *dev = t_open();
	bh_sem_init(tile0(dev), 1u << 5, 1, 1);
	struct prog p = { 0 };
	emit_store_word(&p, SEM(5), 1);   /* get: 1 -> 0 */
	emit_store_word(&p, SEM(5), 0);   /* post: 0 -> 1 */
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 0);
	cr_expect_eq(bh_sem_value(tile0(dev), 5), 1);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------ modes and selection */

/* Log mode: the same bug at the same pc, hit three times, is one finding; the program runs on
 * and exits; the finding reads as the stop-mode report would. */
Test(checks, log_mode_records_a_finding_once_per_pc_and_the_run_goes_on)
{
	struct bh_device *dev = t_open_checks(0, BH_CHECK_LOG);
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 0, 1, 0));
	emit_li(&p, A2, 3);
	int32_t loop = prog_here(&p);
	uint32_t pc = emit_push_at(&p, BH_CORE_TRISC0, SEMGET(1u << 0));
	emit(&p, addi(A2, A2, -1));
	emit_branch(&p, BNE, A2, X0, loop);
	emit_tensix_sync(&p);
	emit_exit_with(&p, 7);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 7);
	char buf[2048];
	cr_expect_eq(bh_device_findings(dev, buf, sizeof buf), 1);
	char head[160];
	snprintf(head, sizeof head, "check sem-underflow: on tile 0 (1,2) core trisc0\n  pc 0x%08x: ", pc);
	cr_expect(!strncmp(buf, head, strlen(head)), "findings:\n%s", buf);
	assert_has(buf, "SEMGET of semaphore 0 at 0 (max 1): nothing was posted to take\n");
	bh_device_close(dev);
}

/* bh_device_findings counts every finding and copies only whole reports that fit. */
Test(checks, findings_count_all_and_copy_whole_reports_only)
{
	struct bh_device *dev = t_open_checks(0, BH_CHECK_LOG);
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 0, 1, 0));
	emit_push(&p, SEMGET(1u << 0));   /* two SEMGETs at 0, at two pcs: two findings */
	emit_push(&p, SEMGET(1u << 0));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 0);
	static char all[4096], part[4096];
	cr_assert_eq(bh_device_findings(dev, all, sizeof all), 2);
	const char *second = strstr(all + 1, "check sem-underflow");
	cr_assert_not_null(second, "%s", all);
	size_t first_len = (size_t)(second - all);
	cr_expect_eq(bh_device_findings(dev, part, first_len + 1), 2);
	cr_expect_eq(strlen(part), first_len, "only the first report fits:\n%s", part);
	cr_expect_eq(bh_device_findings(dev, part, first_len), 2);
	cr_expect_eq(strlen(part), 0u, "no partial report:\n%s", part);
	cr_expect_eq(bh_device_findings(NULL, NULL, 0), BH_ERR_ARG);
	bh_device_close(dev);
}

/* Checks turned off (BH_CHECKS_EXACT with no bit) find nothing; one left out by name neither. */
Test(checks, checks_off_find_nothing)
{
	uint32_t sets[] = { BH_CHECKS_EXACT, BH_CHECKS_EXACT | (BH_CHECKS_DEFAULT & ~BH_CHECK_BIT(BH_CHECK_SEM_UNDERFLOW)) };
	for (unsigned s = 0; s < N(sets); s++) {
		const uint32_t words[] = { SEMINIT(1u << 0, 1, 0), SEMGET(1u << 0) };
		expect_pushes_clean(t_open_checks(sets[s], BH_CHECK_STOP), BH_CORE_TRISC0, words, N(words), "set", s);
	}
}

/* Check lists as --check and BHEMU_CHECKS take them. */
Test(checks, check_lists_parse_names_sets_and_removals)
{
	const uint32_t X = BH_CHECKS_EXACT, D = BH_CHECKS_DEFAULT, A = BH_CHECKS_ALL;
	const uint32_t sem = BH_CHECK_BIT(BH_CHECK_SEM_REINIT), under = BH_CHECK_BIT(BH_CHECK_SEM_UNDERFLOW);
	static const struct {
		const char *list;
		uint32_t mask;
	} good[] = {
		{ "all", 0 }, { "default", 1 }, { "none", 2 }, { "sem-reinit", 3 }, { "-sem-underflow", 4 },
		{ "sem-reinit,sem-underflow", 5 }, { "all,-sem-reinit", 6 }, { "none,sem-reinit", 3 }, { "-all", 2 },
	};
	const uint32_t want[] = { X | A, X | D, X, X | sem, X | (D & ~under), X | sem | under, X | (A & ~sem) };
	for (unsigned k = 0; k < N(good); k++) {
		uint32_t mask = 0;
		char err[256] = "";
		cr_expect_eq(bh_check_list_parse(good[k].list, &mask, err, sizeof err), 0, "%s: %s", good[k].list, err);
		cr_expect_eq(mask, want[good[k].mask], "%s: 0x%x, want 0x%x", good[k].list, mask, want[good[k].mask]);
	}
	static const struct {
		const char *list, *err;
	} bad[] = {
		{ "", "needs a comma-separated list of checks, not ''" },
		{ "sem-reinit,", "needs a comma-separated list of checks, not 'sem-reinit,'" },
		{ "all,,none", "needs a comma-separated list of checks, not 'all,,none'" },
		{ "all,-races", "has no check '-races' in 'all,-races' (--list-checks lists them)" },
		{ "-none", "has no check '-none' in '-none'" },
	};
	for (unsigned k = 0; k < N(bad); k++) {
		uint32_t mask = 0x1234;
		char err[256] = "";
		cr_expect_eq(bh_check_list_parse(bad[k].list, &mask, err, sizeof err), BH_ERR_ARG, "%s", bad[k].list);
		cr_expect(strstr(err, bad[k].err) != NULL, "%s: '%s', want '%s'", bad[k].list, err, bad[k].err);
		cr_expect_eq(mask, 0x1234u, "%s changed the mask", bad[k].list);
	}
}

/* BHEMU_CHECKS and BHEMU_CHECK_MODE choose checks and mode when the config leaves them at their
 * defaults: a SEMGET at 0 is stopped, logged, or not seen; a malformed value fails the open. */
Test(checks, environment_chooses_checks_and_mode)
{
	const uint32_t words[] = { SEMINIT(1u << 0, 1, 0), SEMGET(1u << 0) };
	struct bh_device *dev = NULL;
	cr_assert_eq(setenv("BHEMU_CHECKS", "-sem-underflow", 1), 0);
	expect_pushes_clean(t_open(), BH_CORE_TRISC0, words, N(words), "env", 0);
	cr_assert_eq(setenv("BHEMU_CHECKS", "sem-underflow", 1), 0);
	cr_assert_eq(setenv("BHEMU_CHECK_MODE", "log", 1), 0);
	dev = t_open();
	struct prog p = { 0 };
	for (unsigned k = 0; k < N(words); k++)
		emit_push(&p, words[k]);
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 0, "log mode lets the run go on");
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 1);
	bh_device_close(dev);
	unsetenv("BHEMU_CHECK_MODE");
	static const char *const bad[][2] = { { "BHEMU_CHECKS", "sem-reinit,nosuch" }, { "BHEMU_CHECK_MODE", "loud" } };
	for (unsigned k = 0; k < N(bad); k++) {
		cr_assert_eq(setenv(bad[k][0], bad[k][1], 1), 0);
		dev = (struct bh_device *)1;
		cr_expect_eq(bh_device_open(NULL, &dev), BH_ERR_ARG, "%s=%s", bad[k][0], bad[k][1]);
		cr_expect_null(dev);
		unsetenv(bad[k][0]);
	}
	unsetenv("BHEMU_CHECKS");
}

/* ------------------------------------------------------------------ #15 MopCfg while the expander is busy */

/* TRISC0 programs MopCfg, then pushes SEMWAIT (sync unit while semaphore 2 is zero) and a MOP
 * whose expansion holds at the gate on its first SEMPOST: the expander holds the MOP until
 * semaphore 2 is posted. Returns the pc of the MOP's push. */
static uint32_t emit_held_mop(struct prog *p)
{
	static const uint32_t cfg[9] = { 0, 0, TT_NOP, SEMPOST(1), TT_NOP, TT_NOP, TT_NOP, SEMPOST(2), TT_NOP };
	emit_push(p, SEMINIT(7, 15, 0));
	emit_tensix_sync(p);   /* initialised before the twin posts semaphore 2 through the window */
	for (unsigned k = 0; k < 9; k++)
		emit_store_word(p, MOP_CFG + 4 * k, cfg[k]);
	emit_push(p, SEMWAIT(0x2, 1u << 2, 1));
	return emit_push_at(p, BH_CORE_TRISC0, MOP(0, 4, 0x5));
}

Test(checks, mopcfg_store_while_a_mop_is_held_stops_the_storing_core)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	uint32_t mop_pc = emit_held_mop(&p);
	uint32_t pc = emit_store_pc(&p, BH_CORE_TRISC0, MOP_CFG + 12, SEMPOST(1u << 1));
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_checked(dev, BH_CORE_TRISC0, &p);
	char other[160];
	snprintf(other, sizeof other, "  access: 4-byte store to 0xffb8000c in MOP expander configuration\n"
		 "  other: MOP 0x%08x pushed by trisc0 at pc 0x%08x, ", MOP(0, 4, 0x5), mop_pc);
	expect_check(dev, res, BH_CORE_TRISC0, "mopcfg-busy", pc, other,
		     "  why: store of 0xa4000008 to MopCfg[3] while the MOP expander of Tensix thread 0 holds a MOP that "
		     "reads it (wait for MOPExpanderDoneCheck, mop_sync(), first)");
}

/* The fixed twin: the MOP is released (semaphore 2 posted) and mop_sync (PCBuf +8) waits for the
 * expander before MopCfg is written again. */
Test(checks, mopcfg_store_after_mop_sync_is_not_flagged)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_held_mop(&p);
	emit_store_word(&p, SEM(2), 0);   /* post semaphore 2: the MOP expands to its end */
	emit_li(&p, T0, PCBUF0);
	emit(&p, sw(X0, 8, T0));
	emit(&p, lw(A0, 8, T0));          /* mop_sync */
	emit_store_word(&p, MOP_CFG + 12, SEMPOST(1u << 1));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 0);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------ #11 lost targets */

#define COUNTER 0x10000u

/* brisc polls the L1 word COUNTER until it equals 4 (`bne a5, a3, loop`), or with `geu` until it
 * is at least 4 (`bltu a5, a3, loop`); then exit(0). Returns the branch's pc. */
static uint32_t start_counter_wait(struct bh_device *dev, bool geu)
{
	struct prog p = { 0 };
	emit(&p, INSN_L0_CACHE_OFF);   /* the poll has no fence (poll-no-fence) */
	emit_li(&p, A4, COUNTER);
	emit_li(&p, A3, 4);
	int32_t loop = prog_here(&p);
	emit(&p, lw(A5, 0, A4));
	uint32_t branch = core_code_at[BH_CORE_BRISC] + (uint32_t)prog_here(&p);
	emit_branch(&p, geu ? BLTU : BNE, A5, A3, loop);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_BRISC, &p);
	wait_parked(dev, 0, BH_CORE_BRISC);
	return branch;
}

/* The counter goes from 3 to 5 while brisc waits for 4: flagged at the branch, with the target
 * and both values. */
Test(checks, lost_target_counter_skipping_the_awaited_value_stops_the_waiter)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *res = result_new();
	set_l1(dev, COUNTER, 3);
	uint32_t branch = start_counter_wait(dev, false);
	set_l1(dev, COUNTER, 5);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, res), BH_OK);
	char pc[64];
	snprintf(pc, sizeof pc, "  pc 0x%08x: fed79ee3  bne a5,a3,0x%x\n", branch, branch - 4);
	char why[400];
	snprintf(why, sizeof why,
		 "  access: 4-byte load from 0x00010000\n"
		 "  why: the poll loop at 0x%08x..0x%08x (bne a5,a3,0x%x) waits for the word to equal 4 (0x4), but it went "
		 "from 3 to 5 (0x3 to 0x5), past the target without holding it: the value waited for was skipped (wait with >= "
		 "for a counter)", branch - 4, branch, branch - 4);
	expect_check(dev, res, BH_CORE_BRISC, "lost-target", branch, pc, why);
}

/* The twins: the counter reaching 4, a counter still short of 4 (2 then 3), one moving away from
 * it first, and a >= wait over the same jump from 3 to 5 all end in the waiter's exit, with no finding. */
Test(checks, lost_target_is_not_flagged_for_waits_that_end_or_may_still_end)
{
	static const struct {
		bool geu;
		uint32_t values[3];   /* the first before the start, the last ends the wait */
	} twins[] = {
		{ false, { 3, 4 } },
		{ false, { 2, 3, 4 } },
		{ false, { 3, 2, 4 } },   /* moved away from the target, then reached it */
		{ true, { 3, 5 } },
	};
	for (unsigned k = 0; k < N(twins); k++) {
		struct bh_device *dev = t_open();
		set_l1(dev, COUNTER, twins[k].values[0]);
		start_counter_wait(dev, twins[k].geu);
		for (unsigned v = 1; v < N(twins[k].values) && twins[k].values[v]; v++) {
			sleep_ms(20);   /* the waiter parks again on the value before */
			cr_expect_eq(core_status(dev, 0, BH_CORE_BRISC), BH_RUN_RUNNING, "twin %u", k);
			set_l1(dev, COUNTER, twins[k].values[v]);
		}
		expect_exit(dev, 0, BH_CORE_BRISC, 0);
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 0, "twin %u", k);
		bh_device_close(dev);
	}
}

/* ------------------------------------------------------------------ #23, #24 NoC initiators */

/* Program a 64-byte write from NOC_SRC of this tile to NOC_DST at `hi` (xy, or a rectangle) on
 * NoC0 command buffer 0; returns the pc of its first store for a program of `core`. */
static uint32_t emit_program_write(struct prog *p, enum bh_core_id core, uint32_t ctrl, uint32_t hi)
{
	return emit_program_noc_write(p, core, ctrl, hi, NOC_DST, 64);
}

/* brisc programs a write on command buffer 0; ncrisc then writes RET_LO of the same buffer; brisc
 * issues: flagged at brisc's CMD_CTRL, naming ncrisc's store. */
Test(checks, noc_shared_initiator_issue_after_another_core_wrote_into_the_transaction_is_flagged)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 };
	uint32_t first = emit_program_write(&b, BH_CORE_BRISC, CTRL_WRITE_POSTED, TILE0_XY);
	emit_exit_with(&b, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	expect_shared_after_ncrisc_write(dev, first, NOC_DST + 64);
}

/* while (CMD_CTRL != 0) on command buffer 0: where every issue begins. */
static void emit_wait_ready(struct prog *p)
{
	emit_li(p, T0, CMDBUF0(0) + N_CMD_CTRL);
	int32_t loop = prog_here(p);
	emit(p, lw(T1, 0, T0));
	emit_branch(p, BNE, T1, X0, loop);
}

/* The fixed twins: brisc preprograms static fields (as noc_init does), ncrisc writes one of them
 * for its own use, then each core issues whole requests in turn, each polling CMD_CTRL first
 * (the transaction begins there: what was written before is not part of it). */
Test(checks, noc_initiator_preprogrammed_or_used_in_turn_is_not_flagged)
{
	struct bh_device *dev = t_open();
	struct prog pre = { 0 }, other = { 0 };
	emit_store_word(&pre, CMDBUF0(0) + N_TARG_MID, 0);
	emit_store_word(&pre, CMDBUF0(0) + N_TARG_HI, TILE0_XY);
	emit_exit_with(&pre, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &pre), 0);
	emit_store_word(&other, CMDBUF0(0) + N_TARG_HI, TILE0_XY);
	emit_exit_with(&other, 0);
	cr_expect_eq(run_core(dev, BH_CORE_NCRISC, &other), 0);
	enum bh_core_id cores[3] = { BH_CORE_BRISC, BH_CORE_NCRISC, BH_CORE_BRISC };
	for (unsigned k = 0; k < 3; k++) {
		struct prog p = { 0 };
		emit_wait_ready(&p);
		emit_program_write(&p, cores[k], CTRL_WRITE_POSTED, TILE0_XY);
		emit_issue(&p, cores[k]);
		emit_exit_with(&p, 0);
		cr_expect_eq(run_core(dev, cores[k], &p), 0, "request %u", k);
	}
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* On a row of three tiles, a non-posted multicast to the two others counts +1 and -2 on
 * REQS_OUTSTANDING_ID(0), which reads 255; the next non-posted write with id 0 takes it past
 * 255. The twin clears the counter first (NOC_CLEAR_OUTSTANDING_REQ_CNT). */
static struct bh_core_result *run_after_mcast(struct bh_device *dev, bool clear, uint32_t *pc)
{
	struct prog p = { 0 };
	emit_program_write(&p, BH_CORE_BRISC, CTRL_MCAST_NONPOSTED, 2u << 18 | 2u << 12 | (2u << 6 | 3u));   /* (2,2)..(3,2) */
	emit_issue(&p, BH_CORE_BRISC);
	/* Write barrier: both acks in (NIU_MST_WR_ACK_RECEIVED == 2), as dispatch does after a
	 * multicast; with the asynchronous NoC the counter drops only when they arrive. */
	emit_li(&p, T0, 0xFFB20204u);
	emit_li(&p, T2, 2);
	int32_t acks = prog_here(&p);
	emit(&p, lw(T1, 0, T0));
	emit_branch(&p, BNE, T1, T2, acks);
	if (clear)
		emit_store_word(&p, CLEAR_OUTSTANDING_REQ_CNT, 1);
	emit_program_write(&p, BH_CORE_BRISC, CTRL_WRITE_NONPOSTED, TILE0_XY);
	*pc = emit_issue(&p, BH_CORE_BRISC);
	emit_exit_with(&p, 0);
	return run_checked(dev, BH_CORE_BRISC, &p);
}

Test(checks, noc_trid_overflow_request_past_255_outstanding_stops_the_issuer)
{
	struct bh_device *dev = t_open_cfg(&(struct bh_device_config){ .board = BH_BOARD_GRID, .grid_cols = 3, .grid_rows = 1 });
	uint32_t pc;
	struct bh_core_result *res = run_after_mcast(dev, false, &pc);
	expect_check(dev, res, BH_CORE_BRISC, "noc-trid-overflow", pc, NULL,
		     "  access: 4-byte store to 0xffb20040 in NoC0 NIU\n"
		     "  why: this request adds 1 to NIU_MST_REQS_OUTSTANDING_ID(0) of NoC0, which holds 255: the 8-bit counter "
		     "wraps past 255 (a non-posted multicast counts +1 but -1 per ack: clear it with "
		     "NOC_CLEAR_OUTSTANDING_REQ_CNT)");
}

/* The same counter at 255, then a non-posted atomic with id 0 (which a core's CMD_CTRL store
 * otherwise completes in one step, fabric/noc.c): left to the general issue, which reports the
 * same finding at its store. */
Test(checks, noc_trid_overflow_by_an_atomic_stops_the_issuer_as_the_general_issue_reports_it)
{
	struct bh_device *dev = t_open_cfg(&(struct bh_device_config){ .board = BH_BOARD_GRID, .grid_cols = 3, .grid_rows = 1 });
	struct prog p = { 0 };
	emit_program_write(&p, BH_CORE_BRISC, CTRL_MCAST_NONPOSTED, 2u << 18 | 2u << 12 | (2u << 6 | 3u));
	emit_issue(&p, BH_CORE_BRISC);
	emit_li(&p, T0, NOC0_WR_ACKS);
	emit_li(&p, T2, 2);
	int32_t acks = prog_here(&p);
	emit(&p, lw(T1, 0, T0));
	emit_branch(&p, BNE, T1, T2, acks);
	/* noc_semaphore_inc of a word of this tile, result to L1 0x100, on the same buffer and id. */
	static const uint32_t regs[][2] = {
		{ N_CTRL, 0x2011u }, { N_TARG_LO, NOC_DST }, { N_TARG_MID, 0 }, { N_TARG_HI, TILE0_XY },
		{ N_RET_LO, 0x100 }, { N_RET_MID, 0 }, { N_RET_HI, TILE0_XY }, { N_LEN, 1u << 12 | 31u << 2 },
		{ 0x28, 1 },
	};
	for (unsigned k = 0; k < sizeof regs / sizeof regs[0]; k++)
		emit_store_word(&p, CMDBUF0(0) + regs[k][0], regs[k][1]);
	uint32_t pc = emit_issue(&p, BH_CORE_BRISC);
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_checked(dev, BH_CORE_BRISC, &p);
	cr_expect_eq(bh_noc_one_step_atomics(&dev->chip), 0, "left to the general issue");
	expect_check(dev, res, BH_CORE_BRISC, "noc-trid-overflow", pc, NULL,
		     "  access: 4-byte store to 0xffb20040 in NoC0 NIU\n"
		     "  why: this request adds 1 to NIU_MST_REQS_OUTSTANDING_ID(0) of NoC0, which holds 255: the 8-bit counter "
		     "wraps past 255 (a non-posted multicast counts +1 but -1 per ack: clear it with "
		     "NOC_CLEAR_OUTSTANDING_REQ_CNT)");
}

Test(checks, noc_trid_counter_cleared_after_a_multicast_is_not_flagged)
{
	struct bh_device *dev = t_open_cfg(&(struct bh_device_config){ .board = BH_BOARD_GRID, .grid_cols = 3, .grid_rows = 1 });
	uint32_t pc;
	struct bh_core_result *res = run_after_mcast(dev, true, &pc);
	cr_expect_eq(res->status, BH_RUN_EXITED, "%s", res->report);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	free(res);
	bh_device_close(dev);
}

/* A STOREREG into a command buffer is the Tensix thread's access as its TRISC: written into
 * brisc's transaction, it is named as trisc0's store at the push of the STOREREG. */
Test(checks, storereg_into_another_cores_transaction_is_named_as_the_pushers_store)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 }, p = { 0 }, i = { 0 };
	emit_program_write(&b, BH_CORE_BRISC, CTRL_WRITE_POSTED, TILE0_XY);
	emit_exit_with(&b, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	emit_push(&p, SETDMAREG(2 * 9, 0));   /* GPR 9 = 0 */
	uint32_t push = emit_push_at(&p, BH_CORE_TRISC0, STOREREG(9, CMDBUF0(0) + N_TARG_MID));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 0);
	uint32_t pc = emit_issue(&i, BH_CORE_BRISC);
	emit_exit_with(&i, 0);
	struct bh_core_result *res = run_checked(dev, BH_CORE_BRISC, &i);
	char other[160];
	snprintf(other, sizeof other, "  other: trisc0, which wrote NOC_TARG_ADDR_MID of this command buffer at pc 0x%08x\n",
		 push);
	expect_check(dev, res, BH_CORE_BRISC, "noc-shared-initiator", pc, other, "another core wrote into");
}

/* A check's finding on a STOREREG stays that check's finding: a STOREREG issuing another
 * core's transaction (CMD_CTRL) stops the pusher with the check's report. */
Test(checks, storereg_finding_stops_the_pusher_with_the_checks_report)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 }, p = { 0 };
	emit_store_word(&t, CMDBUF0(0) + N_TARG_LO, NOC_SRC);   /* trisc0 begins a transaction */
	emit_exit_with(&t, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &t), 0);
	emit_program_write(&b, BH_CORE_BRISC, CTRL_WRITE_POSTED, TILE0_XY);   /* brisc writes into it */
	emit_exit_with(&b, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	emit_push(&p, SETDMAREG(2 * 9, 1));   /* GPR 9 = 1 */
	uint32_t pc;
	struct bh_core_result *res = run_push_checked(dev, BH_CORE_TRISC0, &p, STOREREG(9, CMDBUF0(0) + N_CMD_CTRL), &pc);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 1);
	expect_check(dev, res, BH_CORE_TRISC0, "noc-shared-initiator", pc, "  other: brisc, which wrote NOC_RET_ADDR_HI",
		     "(pushed by trisc0): STOREREG GPR 9 -> 0xffb20040 (NoC0 NIU): issue (CMD_CTRL) of NoC0 command buffer 0 by "
		     "trisc0");
}

/* The host's accesses are not judged (no core to blame): a host write into brisc's transaction
 * is no finding when brisc issues. */
Test(checks, host_accesses_are_not_judged)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 }, i = { 0 };
	emit_program_write(&b, BH_CORE_BRISC, CTRL_WRITE_POSTED, TILE0_XY);
	emit_exit_with(&b, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	cr_expect_eq(bh_reg_write(dev, 0, CMDBUF0(0) + N_RET_LO, NOC_DST), BH_OK);
	emit_issue(&i, BH_CORE_BRISC);
	emit_exit_with(&i, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &i), 0);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* races.md #23 with the asynchronous NoC: NOC_CMD_CTRL stays 1 until the request is accepted
 * (here 62 ms after the store), and programming the initiator meanwhile is the finding; the twin
 * polls CMD_CTRL first. */
static struct bh_core_result *run_reprogram(struct bh_device **dev, bool poll, uint32_t *pc)
{
	*dev = t_open_cfg(&(struct bh_device_config){ .board = BH_BOARD_GRID, .grid_cols = 1, .grid_rows = 1,
						       .noc = BH_NOC_ASYNC, .noc_latency = "500000000:500000000" });
	struct prog p = { 0 };
	emit_program_write(&p, BH_CORE_BRISC, CTRL_WRITE_POSTED, TILE0_XY);
	emit_issue(&p, BH_CORE_BRISC);
	if (poll)
		emit_wait_ready(&p);
	*pc = (uint32_t)prog_here(&p);
	emit_program_write(&p, BH_CORE_BRISC, CTRL_WRITE_POSTED, TILE0_XY);
	emit_exit_with(&p, 0);
	return run_checked(*dev, BH_CORE_BRISC, &p);
}

Test(checks, noc_busy_reprogram_while_cmd_ctrl_is_busy_stops_the_core, .timeout = 60)
{
	struct bh_device *dev;
	uint32_t at;
	struct bh_core_result *res = run_reprogram(&dev, false, &at);
	cr_assert_eq(res->status, BH_RUN_FAULTED, "%s", res->report);
	cr_expect(strstr(res->report, "check noc-busy-reprogram: on tile 0 (1,2) core brisc"), "%s", res->report);
	cr_expect(strstr(res->report, "while its CMD_CTRL is busy"), "%s", res->report);
	cr_expect(strstr(res->report, "still in flight"), "%s", res->report);
	free(res);
	bh_device_close(dev);
}

Test(checks, noc_reprogram_after_cmd_ctrl_reads_0_is_not_flagged, .timeout = 60)
{
	struct bh_device *dev;
	uint32_t at;
	struct bh_core_result *res = run_reprogram(&dev, true, &at);
	cr_expect_eq(res->status, BH_RUN_EXITED, "%s", res->report);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	free(res);
	bh_device_close(dev);
}
