/* The serial scheduler (sync/sched.h): one actor at a time, the order a function of the seed,
 * parks that are "not runnable until woken", virtual time that jumps to the earliest timed wait,
 * exact deadlock, PCT's priorities, and dissolving back to threads. Actors here are plain threads
 * with waiters (sync/park.h), as the cores are. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/park.h"
#include "sync/sched.h"
#include "testlib.h"

#define NACT 4
#define STEPS 200

struct world {
	struct bh_sched *s;
	struct bh_actor *host;
	_Atomic int inside;             /* actors between enter and their next point: must stay <= 1 */
	_Atomic int overlaps;
	unsigned log[NACT * STEPS];     /* plain: only the token holder writes */
	unsigned nlog;
	_Atomic unsigned done;
};

struct actor_arg {
	struct world *w;
	struct bh_waiter waiter;
	unsigned id;
	pthread_t th;
};

/* An actor: STEPS times, log its id with nobody else inside, then a scheduling point. */
static void *stepper(void *p)
{
	struct actor_arg *a = p;
	struct world *w = a->w;
	bh_sched_enter(a->waiter.actor);
	for (unsigned k = 0; k < STEPS; k++) {
		if (atomic_fetch_add(&w->inside, 1) != 0)
			atomic_fetch_add(&w->overlaps, 1);
		w->log[w->nlog++] = a->id;
		atomic_fetch_sub(&w->inside, 1);
		bh_sched_point();
	}
	atomic_fetch_add(&w->done, 1);
	bh_sched_wake(w->host);
	bh_sched_exit(a->waiter.actor);
	return NULL;
}

static void world_run_every(struct world *w, struct actor_arg *a, enum bh_sched_strategy_kind st, uint64_t seed,
			    unsigned depth, unsigned switch_every, void *(*fn)(void *))
{
	memset(w, 0, sizeof *w);
	w->s = bh_sched_create(st, seed, depth, NACT * STEPS, switch_every);
	cr_assert_not_null(w->s);
	w->host = bh_sched_host(w->s);
	for (unsigned k = 0; k < NACT; k++) {
		memset(&a[k], 0, sizeof a[k]);
		a[k].w = w;
		a[k].id = k;
		char name[16];
		snprintf(name, sizeof name, "actor %u", k);
		a[k].waiter.actor = bh_sched_actor_add(w->s, name, true);
		cr_assert_not_null(a[k].waiter.actor);
		cr_assert_eq(pthread_create(&a[k].th, NULL, fn, &a[k]), 0);
	}
	while (atomic_load(&w->done) < NACT)
		bh_sched_host_wait(w->s, 0);
	for (unsigned k = 0; k < NACT; k++)
		pthread_join(a[k].th, NULL);
	bh_sched_destroy(w->s);
}

static void world_run(struct world *w, struct actor_arg *a, enum bh_sched_strategy_kind st, uint64_t seed,
		      unsigned depth, void *(*fn)(void *))
{
	world_run_every(w, a, st, seed, depth, 1, fn);
}

static unsigned switches_in(const struct world *w)
{
	unsigned changes = 0;
	for (unsigned k = 1; k < w->nlog; k++)
		changes += w->log[k] != w->log[k - 1];
	return changes;
}

Test(sched, one_actor_runs_at_a_time_and_the_seed_alone_fixes_the_interleaving, .timeout = 60)
{
	static struct world w1, w2, w3;
	struct actor_arg a[NACT];
	world_run(&w1, a, BH_SCHED_RANDOM, 42, 0, stepper);
	world_run(&w2, a, BH_SCHED_RANDOM, 42, 0, stepper);
	cr_expect_eq(atomic_load(&w1.overlaps), 0, "two actors ran at once");
	cr_assert_eq(w1.nlog, NACT * STEPS);
	cr_assert_eq(w2.nlog, NACT * STEPS);
	cr_expect_eq(memcmp(w1.log, w2.log, sizeof w1.log), 0, "seed 42 interleaved differently twice");
	unsigned changes = switches_in(&w1);
	cr_expect_gt(changes, NACT * STEPS / 2, "uniform: most points switch (%u switches)", changes);
	world_run(&w3, a, BH_SCHED_RANDOM, 43, 0, stepper);
	cr_expect_neq(memcmp(w1.log, w3.log, sizeof w1.log), 0, "seeds 42 and 43 interleaved alike");
}

Test(sched, random_with_switch_every_8_switches_at_about_one_point_in_8_and_replays, .timeout = 60)
{
	static struct world w1, w2;
	struct actor_arg a[NACT];
	world_run_every(&w1, a, BH_SCHED_RANDOM, 9, 0, 8, stepper);
	world_run_every(&w2, a, BH_SCHED_RANDOM, 9, 0, 8, stepper);
	cr_expect_eq(memcmp(w1.log, w2.log, sizeof w1.log), 0);
	/* 800 points, a draw at 1 in 8 of them, landing on another actor 3 times in 4: about 75
	 * while all four run, fewer towards the end. */
	unsigned changes = switches_in(&w1);
	cr_expect(changes >= 25 && changes <= 150, "%u switches", changes);
}

Test(sched, pct_without_change_points_runs_the_highest_priority_actor_until_it_exits, .timeout = 60)
{
	static struct world w;
	struct actor_arg a[NACT];
	world_run(&w, a, BH_SCHED_PCT, 7, 1, stepper);
	cr_assert_eq(w.nlog, NACT * STEPS);
	/* depth 1: no change point, nobody blocks: each actor's steps are one run. */
	unsigned runs = 1;
	for (unsigned k = 1; k < w.nlog; k++)
		runs += w.log[k] != w.log[k - 1];
	cr_expect_eq(runs, NACT, "%u runs", runs);
}

Test(sched, pct_change_points_drop_the_running_actor_below_the_others, .timeout = 60)
{
	static struct world w;
	struct actor_arg a[NACT];
	world_run(&w, a, BH_SCHED_PCT, 7, 4, stepper);
	unsigned runs = 1;
	for (unsigned k = 1; k < w.nlog; k++)
		runs += w.log[k] != w.log[k - 1];
	/* 3 change points among 800 steps: at most 3 more runs than actors, and the order is not
	 * simply one actor after another unless no change point fell on a running actor. */
	cr_expect_leq(runs, NACT + 3, "%u runs", runs);
	cr_expect_geq(runs, NACT, "%u runs", runs);
}

/* ---- parks, time, deadlock -------------------------------------------------------------- */

struct park_arg {
	struct bh_sched *s;
	struct bh_waiter waiter;
	uint64_t timeout, parked_at, woke_at;
	_Atomic bool done;
};

static void *parker(void *p)
{
	struct park_arg *a = p;
	bh_sched_enter(a->waiter.actor);
	a->parked_at = bh_sched_now_ns();
	bh_park_sleep(&a->waiter, bh_park_seq(&a->waiter), a->timeout);
	a->woke_at = bh_sched_now_ns();
	atomic_store(&a->done, true);
	bh_sched_wake(bh_sched_host(a->s));
	bh_sched_exit(a->waiter.actor);
	return NULL;
}

/* A scheduler with one parker actor, its thread started. */
static pthread_t parker_start(struct park_arg *a)
{
	pthread_t th;
	a->s = bh_sched_create(BH_SCHED_RANDOM, 1, 0, 0, 1);
	a->waiter.actor = bh_sched_actor_add(a->s, "parker", true);
	cr_assert_eq(pthread_create(&th, NULL, parker, a), 0);
	return th;
}

Test(sched, a_timed_park_with_nothing_else_to_run_jumps_virtual_time_to_its_deadline, .timeout = 60)
{
	struct park_arg a = { .timeout = 123456 };
	pthread_t th = parker_start(&a);
	while (!atomic_load(&a.done))
		bh_sched_host_wait(a.s, 0);
	pthread_join(th, NULL);
	/* Exactly its deadline: the timeout after the park, whose own step (10 ns) comes first. */
	cr_expect_eq(a.woke_at, a.parked_at + 10 + a.timeout, "parked at %llu, woke at %llu",
		     (unsigned long long)a.parked_at, (unsigned long long)a.woke_at);
	cr_expect(!bh_sched_deadlocked(a.s), "a timed wait is not a deadlock");
	bh_sched_destroy(a.s);
}

Test(sched, an_untimed_park_nobody_can_end_is_an_exact_deadlock_and_a_wake_ends_it, .timeout = 60)
{
	struct park_arg a = { .timeout = 0 };
	pthread_t th = parker_start(&a);
	bh_sched_host_wait(a.s, 0);   /* the parker runs, parks: only the host is left */
	cr_expect(bh_sched_deadlocked(a.s), "every actor but the host waits untimed: deadlocked");
	cr_expect(!atomic_load(&a.done));
	char desc[256];
	bh_sched_describe(a.s, desc, sizeof desc);
	cr_expect(strstr(desc, "parker parked"), "%s", desc);
	bh_sched_host_acted(a.s);
	bh_park_wake(&a.waiter);      /* the host moves its word: runnable again */
	while (!atomic_load(&a.done))
		bh_sched_host_wait(a.s, 0);
	pthread_join(th, NULL);
	cr_expect(!bh_sched_deadlocked(a.s));
	bh_sched_destroy(a.s);
}

Test(sched, dissolving_lets_a_parked_actor_sleep_as_a_thread_until_woken, .timeout = 60)
{
	struct park_arg a = { .timeout = 0 };
	pthread_t th = parker_start(&a);
	bh_sched_host_wait(a.s, 0);
	cr_expect(bh_sched_deadlocked(a.s));
	bh_sched_dissolve(a.s);
	cr_expect(bh_sched_dissolved(a.s));
	/* A spurious return from the dissolved park is allowed; the parker's futex sleep ends at a wake. */
	bh_park_wake(&a.waiter);
	pthread_join(th, NULL);
	cr_expect(atomic_load(&a.done));
	bh_sched_destroy(a.s);
}

/* ---- a whole device ----------------------------------------------------------------------- */

#define SCRATCH 0x60000u   /* worker L1 no firmware area uses */

/* What a replay must reproduce of a booted 2x2 chip after slow- and fast-dispatch launches. */
struct device_run {
	uint64_t l1_fnv, points, vt;
	uint64_t instructions[4][5];
	uint32_t counter[4];
};

static void device_run(uint64_t seed, enum bh_sched_strategy st, struct device_run *out)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	memset(out, 0, sizeof *out);
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 2, .grid_rows = 2,
					.sched = BH_SCHED_SERIAL, .strategy = st, .seed = seed };
	struct bh_device *dev = tl_boot_ref_grid_cfg(&cfg);
	/* Slow, then fast dispatch on the workers (the last column holds the prefetch and dispatch
	 * cores): a counter kernel on BRISC, three launches each. */
	uint32_t code[5] = { lui(A1, SCRATCH >> 12), lw(A0, 0, A1), addi(A0, A0, 1), sw(A0, 0, A1), INSN_RET };
	struct bh_core_range r[4];
	unsigned nr = bh_device_worker_ranges(dev, r);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, code, 5, r, nr) >= 0, "%s", bh_program_error(p));
	for (unsigned i = 0; i < 3; i++)
		tl_launch_ok(p, NULL);
	bh_program_destroy(p);
	struct bh_cq *cq = NULL;
	char err[512] = "";
	cr_assert_eq(bh_cq_open(dev, &(struct bh_cq_config){ .timeout_s = 20 }, &cq, err, sizeof err), BH_OK, "%s", err);
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, code, 5, r, nr) >= 0, "%s", bh_program_error(p));
	for (unsigned i = 0; i < 3; i++)
		cr_assert_eq(bh_cq_launch(cq, p, NULL), BH_OK, "%s %s", bh_program_error(p), bh_cq_error(cq));
	cr_assert_eq(bh_cq_finish(cq), BH_OK, "%s", bh_cq_error(cq));
	bh_program_destroy(p);
	bh_cq_close(cq);
	uint64_t switches;
	cr_assert(bh_device_serial_stats(dev, &out->points, &switches, &out->vt));
	uint64_t h = 0xcbf29ce484222325ull;
	static uint8_t l1[65536];
	for (unsigned t = 0; t < 4; t++) {
		for (uint32_t a = 0; bh_l1_read(dev, t, a, l1, sizeof l1) == BH_OK; a += sizeof l1) {
			for (size_t k = 0; k < sizeof l1; k++)
				h = (h ^ l1[k]) * 0x100000001b3ull;
		}
		for (unsigned c = 0; c < 5; c++)
			out->instructions[t][c] = bh_core_instructions(dev, t, (enum bh_core_id)c);
		bh_l1_read(dev, t, SCRATCH, &out->counter[t], 4);
	}
	out->l1_fnv = h;
	bh_device_close(dev);
}

Test(sched, a_booted_chip_with_slow_and_fast_dispatch_launches_replays_bit_for_bit, .timeout = 300)
{
	struct device_run a, b, c;
	device_run(11, BH_STRATEGY_RANDOM, &a);
	device_run(11, BH_STRATEGY_RANDOM, &b);
	/* The workers ran 3 slow and 3 fast launches; the dispatch column none. */
	cr_expect_eq(a.counter[0], 6);
	cr_expect_eq(a.counter[2], 6);
	cr_expect_eq(a.counter[1], 0);
	cr_expect_eq(a.counter[3], 0);
	cr_expect_eq(a.points, b.points, "%llu vs %llu scheduling points", (unsigned long long)a.points,
		     (unsigned long long)b.points);
	cr_expect_eq(a.vt, b.vt, "virtual time %llu vs %llu", (unsigned long long)a.vt, (unsigned long long)b.vt);
	cr_expect_eq(memcmp(a.instructions, b.instructions, sizeof a.instructions), 0, "instructions per core differ");
	cr_expect_eq(a.l1_fnv, b.l1_fnv, "L1 differs");
	device_run(12, BH_STRATEGY_RANDOM, &c);
	cr_expect(c.points != a.points || c.vt != a.vt || memcmp(c.instructions, a.instructions, sizeof a.instructions),
		  "seeds 11 and 12 scheduled alike");
}

Test(sched, pct_on_a_booted_chip_replays_too, .timeout = 300)
{
	struct device_run a, b;
	device_run(5, BH_STRATEGY_PCT, &a);
	device_run(5, BH_STRATEGY_PCT, &b);
	cr_expect_eq(a.counter[0], 6);
	cr_expect_eq(a.points, b.points);
	cr_expect_eq(a.vt, b.vt);
	cr_expect_eq(memcmp(a.instructions, b.instructions, sizeof a.instructions), 0);
	cr_expect_eq(a.l1_fnv, b.l1_fnv);
}
