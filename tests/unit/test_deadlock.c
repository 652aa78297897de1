/* Deadlock detection and the wait report: when every running core is parked with no timeout and
 * nothing moves, bh_core_wait() says BH_ERR_DEADLOCK and bh_device_report() names, per core,
 * the loop it polls in and the words it waits on with their values. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define CODE_A 0x1000u
#define CODE_B 0x2000u
#define FLAG_A 0x8000u
#define FLAG_B 0x8004u

static char report[8192];

/* Wait for FLAG (fence; lw; beqz), then store 1 to OTHER and exit 0. */
static void emit_wait_then_signal(struct prog *p, uint32_t flag, uint32_t other)
{
	emit_li(p, A1, flag);
	int32_t loop = prog_here(p);
	emit(p, INSN_FENCE);
	emit(p, lw(A0, 0, A1));
	emit_branch(p, BEQ, A0, X0, loop);
	emit_store_word(p, other, 1);
	emit_exit_with(p, 0);
}

Test(deadlock, two_cores_waiting_on_each_other_are_reported_with_their_words)
{
	struct bh_device *dev = t_open();
	struct prog a = { 0 }, b = { 0 };
	emit_wait_then_signal(&a, FLAG_A, FLAG_B);
	emit_wait_then_signal(&b, FLAG_B, FLAG_A);
	prog_put(dev, 0, CODE_A, &a);
	prog_put(dev, 0, CODE_B, &b);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, CODE_A), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_NCRISC, CODE_B), BH_OK);
	struct bh_core_result *res = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, res), BH_ERR_DEADLOCK);
	cr_assert(bh_device_deadlocked(dev));
	cr_assert_eq(bh_device_report(dev, report, sizeof report), BH_OK);
	assert_has(report, "brisc : polling in the loop at 0x00001008");
	assert_has(report, "waits on L1 0x00008000 = 0 (0x0, 4 bytes)");
	assert_has(report, "ncrisc: polling in the loop at 0x00002008");
	assert_has(report, "waits on L1 0x00008004 = 0 (0x0, 4 bytes)");
	assert_has(report, "beq a0,zero,0x1008");
	/* The host breaks the deadlock: both finish. */
	uint32_t one = 1;
	cr_assert_eq(bh_l1_write(dev, 0, FLAG_A, &one, 4), BH_OK);
	cr_assert_not(bh_device_deadlocked(dev));
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	expect_exit(dev, 0, BH_CORE_NCRISC, 0);
	free(res);
	bh_device_close(dev);
}

/* A poll loop whose store writes what its word already holds waits all the same: with nothing to
 * wake it, the core is deadlocked and the report names the word it keeps storing. */
Test(deadlock, a_poll_loop_with_a_silent_store_is_reported_with_the_stored_word)
{
	struct bh_device *dev = t_open();
	struct prog a = { 0 };
	emit_li(&a, A1, FLAG_A);
	emit_li(&a, A3, FLAG_B);
	int32_t loop = prog_here(&a);
	emit(&a, INSN_FENCE);
	emit(&a, sw(X0, 0, A3));
	emit(&a, lw(A0, 0, A1));
	emit_branch(&a, BEQ, A0, X0, loop);
	emit_exit_with(&a, 0);
	prog_put(dev, 0, CODE_A, &a);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, CODE_A), BH_OK);
	struct bh_core_result *res = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, res), BH_ERR_DEADLOCK);
	cr_assert_eq(bh_device_report(dev, report, sizeof report), BH_OK);
	assert_has(report, "keeps storing 0 (0x0, 4 bytes) to L1 0x00008004, which holds it");
	assert_has(report, "waits on L1 0x00008000 = 0 (0x0, 4 bytes)");
	uint32_t one = 1;
	cr_assert_eq(bh_l1_write(dev, 0, FLAG_A, &one, 4), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	free(res);
	bh_device_close(dev);
}

Test(deadlock, a_core_waiting_on_the_wall_clock_is_not_deadlocked)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A1, 0xFFB121F0u);          /* WALL_CLOCK_0 */
	emit(&p, lw(A2, 0, A1));
	emit_li(&p, A3, 1350000000u);           /* one second */
	int32_t loop = prog_here(&p);
	emit(&p, lw(A4, 0, A1));
	emit(&p, sub(A5, A4, A2));
	emit_branch(&p, BLTU, A5, A3, loop);
	emit_exit_with(&p, 4);
	prog_put(dev, 0, CODE_A, &p);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC2, CODE_A), BH_OK);
	struct bh_core_result *res = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC2, T_STOP_MS, res), BH_OK);
	cr_expect_eq(res->status, BH_RUN_EXITED);
	cr_expect_eq(res->exit_status, 4);
	free(res);
	bh_device_close(dev);
}

Test(deadlock, report_names_running_exited_and_never_started_cores_correctly)
{
	struct bh_device *dev = t_open();
	struct prog spin = { 0 };
	emit_li(&spin, A2, 0);
	int32_t loop = prog_here(&spin);
	emit(&spin, addi(A2, A2, 1));            /* progress every iteration: never parks */
	emit_j(&spin, loop);
	prog_put(dev, 0, CODE_A, &spin);
	put_exit(dev, CODE_B, 3);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC0, CODE_B), BH_OK);
	expect_exit(dev, 0, BH_CORE_TRISC0, 3);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, CODE_A), BH_OK);
	/* Its pc is published with its count: wait until it has run (a loaded host may not
	 * schedule the thread for a while). */
	for (int ms = 0; ms < T_STOP_MS && !bh_core_instructions(dev, 0, BH_CORE_BRISC); ms++)
		sleep_ms(1);
	cr_assert_eq(bh_device_report(dev, report, sizeof report), BH_OK);
	assert_has(report, "brisc : running, near pc 0x0000100");
	assert_has(report, "trisc0: exited with status 3");
	cr_expect_null(strstr(report, "ncrisc"), "a core that never ran is listed:\n%s", report);
	struct bh_core_result *res = result_new();
	cr_expect_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, 700, res), BH_ERR_TIMEOUT);
	cr_expect_not(bh_device_deadlocked(dev));
	free(res);
	bh_device_close(dev);
}

/* ------------------------------------------------------------ the detector over waiters */

#include "sync/deadlock.h"
#include "sync/park.h"

#define LOOKS 3

static struct bh_waiter ws[4];
static struct bh_waiter *wp[4] = { &ws[0], &ws[1], &ws[2], &ws[3] };

static void set_states(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	uint32_t s[4] = { a, b, c, d };
	for (unsigned k = 0; k < 4; k++) {
		memset(&ws[k], 0, sizeof ws[k]);
		atomic_store(&ws[k].park_state, s[k]);
	}
}

/* Looks until the detector says deadlock, at most max looks; returns how many it took (0: never). */
static unsigned looks_to_deadlock(struct bh_deadlock_snap *s, uint64_t host_epoch, unsigned max)
{
	for (unsigned k = 1; k <= max; k++)
		if (bh_deadlock_look(s, host_epoch, LOOKS))
			return k;
	return 0;
}

Test(deadlock_detector, every_active_waiter_parked_without_timeout_is_a_deadlock_after_the_quiet_looks)
{
	/* A core on watched words, a Tensix thread at its gate, a blocked access, an idle CQ model. */
	set_states(BH_PARK_WATCH, BH_PARK_GATE, BH_PARK_BLOCKED, BH_PARK_IDLE);
	struct bh_deadlock_snap s;
	cr_assert_eq(bh_deadlock_snap_init(&s, wp, 4), 0);
	/* Counters start at 0 as in the fresh snapshot: the first look is already a quiet one. */
	cr_expect_eq(looks_to_deadlock(&s, 0, 10), LOOKS, "deadlock after exactly %d quiet looks", LOOKS);
	bh_deadlock_snap_free(&s);
}

Test(deadlock_detector, a_running_or_timed_waiter_means_no_deadlock)
{
	static const uint32_t live[] = { BH_PARK_NONE, BH_PARK_TIMED };
	for (unsigned k = 0; k < 2; k++) {
		set_states(BH_PARK_WATCH, BH_PARK_GATE, live[k], BH_PARK_IDLE);
		struct bh_deadlock_snap s;
		cr_assert_eq(bh_deadlock_snap_init(&s, wp, 4), 0);
		cr_expect_eq(looks_to_deadlock(&s, 0, 20), 0, "state %u keeps the device alive", live[k]);
		bh_deadlock_snap_free(&s);
	}
}

Test(deadlock_detector, nobody_active_is_not_a_deadlock)
{
	set_states(BH_PARK_IDLE, BH_PARK_IDLE, BH_PARK_IDLE, BH_PARK_IDLE);
	struct bh_deadlock_snap s;
	cr_assert_eq(bh_deadlock_snap_init(&s, wp, 4), 0);
	cr_expect_eq(looks_to_deadlock(&s, 0, 20), 0);
	bh_deadlock_snap_free(&s);
}

/* A parked actor woken since it went to sleep only waits for a host CPU: however long that
 * takes on a loaded host, it is no deadlock until it has run and parked again. */
Test(deadlock_detector, a_woken_actor_that_has_not_run_yet_is_never_a_deadlock)
{
	set_states(BH_PARK_BLOCKED, BH_PARK_WATCH, BH_PARK_IDLE, BH_PARK_IDLE);
	struct bh_deadlock_snap s;
	cr_assert_eq(bh_deadlock_snap_init(&s, wp, 4), 0);
	bh_park_wake(&ws[1]);
	cr_expect_eq(looks_to_deadlock(&s, 0, 20 * LOOKS), 0, "declared while a woken actor waits for a CPU");
	atomic_store(&ws[1].sleep_seq, atomic_load(&ws[1].wake_seq));   /* it ran and parked again */
	cr_expect_eq(looks_to_deadlock(&s, 0, 10), LOOKS);
	bh_deadlock_snap_free(&s);
}

Test(deadlock_detector, a_wake_up_progress_or_host_action_restarts_the_quiet_count)
{
	set_states(BH_PARK_WATCH, BH_PARK_GATE, BH_PARK_WATCH, BH_PARK_IDLE);
	struct bh_deadlock_snap s;
	cr_assert_eq(bh_deadlock_snap_init(&s, wp, 4), 0);
	for (unsigned k = 0; k < LOOKS - 1; k++)
		cr_assert_not(bh_deadlock_look(&s, 0, LOOKS));
	bh_park_wake(&ws[0]);                                   /* a wake-up of a parked core */
	cr_expect_not(bh_deadlock_look(&s, 0, LOOKS), "a wake-up is movement");
	atomic_store(&ws[0].sleep_seq, atomic_load(&ws[0].wake_seq));   /* it ran and parked again */
	for (unsigned k = 0; k < LOOKS - 1; k++)
		cr_assert_not(bh_deadlock_look(&s, 0, LOOKS));
	atomic_fetch_add(&ws[1].progress, 1);                   /* a Tensix thread executed */
	cr_expect_not(bh_deadlock_look(&s, 0, LOOKS), "progress is movement");
	for (unsigned k = 0; k < LOOKS - 1; k++)
		cr_assert_not(bh_deadlock_look(&s, 0, LOOKS));
	cr_expect_not(bh_deadlock_look(&s, 1, LOOKS), "a host action is movement");
	atomic_fetch_add(&ws[3].wake_seq, 1);                   /* even an idle actor's wake moves */
	cr_expect_not(bh_deadlock_look(&s, 1, LOOKS));
	cr_expect_eq(looks_to_deadlock(&s, 1, 10), LOOKS, "quiet again: deadlock after %d looks", LOOKS);
	bh_deadlock_snap_free(&s);
}
