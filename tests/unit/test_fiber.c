/* Fiber groups (sync/fiber.h): actors sharing one host thread switch where they would park, and
 * the parking protocol keeps its guarantees: no lost wake-up from a fiber of the same group,
 * of another group or a plain thread; timeouts end sleeps; a fiber that never parks still lets
 * the others run at its preemption points; an idle group costs no CPU. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cores/core.h"
#include "fabric/tile.h"
#include "host/device.h"
#include "sync/fiber.h"
#include "sync/park.h"
#include "testlib.h"

#define STACK (128 * 1024)

/* Park on w until *word == want (the protocol of sync/park.h). */
static void wait_for(struct bh_waiter *w, _Atomic uint32_t *word, uint32_t want)
{
	for (;;) {
		uint32_t seq = bh_park_seq(w);
		if (atomic_load(word) == want)
			return;
		bh_park_sleep(w, seq, 0);
	}
}

/* A token goes round n fibers, `per_group` consecutive ones in each group, for `hops` hops: each
 * fiber passes it on only when it holds it, so a lost wake-up hangs and a double hand-over shows
 * in the counts. */
#define RING_MAX 9u
struct lap {
	unsigned n;
	struct bh_waiter w[RING_MAX];
	_Atomic uint32_t holder;   /* hop number; fiber hop % n holds it */
	uint32_t hops;
	_Atomic uint32_t passed[RING_MAX];
	_Atomic bool on_fiber[RING_MAX];
};

struct lap_arg {
	struct lap *l;
	unsigned k;
};

static void *lap_fiber(void *arg)
{
	struct lap_arg *a = arg;
	struct lap *l = a->l;
	atomic_store(&l->on_fiber[a->k], bh_fiber_self != NULL);
	for (uint32_t hop = a->k; hop < l->hops; hop += l->n) {
		wait_for(&l->w[a->k], &l->holder, hop);
		atomic_fetch_add(&l->passed[a->k], 1);
		atomic_store(&l->holder, hop + 1);
		bh_park_wake(&l->w[(a->k + 1) % l->n]);
	}
	return NULL;
}

static void run_ring(unsigned n, unsigned per_group, uint32_t hops)
{
	struct lap l = { .n = n, .hops = hops };
	struct lap_arg args[RING_MAX];
	struct bh_fiber *f[RING_MAX];
	struct bh_fiber_group *g[RING_MAX];
	unsigned ngroups = (n + per_group - 1) / per_group;
	for (unsigned k = 0; k < ngroups; k++)
		cr_assert((g[k] = bh_fiber_group_create("test ring")));
	uint64_t before = bh_fiber_switches();
	for (unsigned k = 0; k < n; k++) {
		args[k] = (struct lap_arg){ &l, k };
		cr_assert((f[k] = bh_fiber_start(g[k / per_group], &l.w[k], lap_fiber, &args[k], STACK)));
	}
	for (unsigned k = 0; k < n; k++)
		bh_fiber_join(f[k]);
	cr_expect_eq(atomic_load(&l.holder), hops);
	for (unsigned k = 0; k < n; k++) {
		cr_expect_eq(atomic_load(&l.passed[k]), hops / n, "fiber %u passed %u", k, atomic_load(&l.passed[k]));
		cr_expect(atomic_load(&l.on_fiber[k]), "fiber %u did not run as a fiber", k);
	}
	if (ngroups == 1)   /* every hand-over in one group is a switch between its fibers */
		cr_expect_geq(bh_fiber_switches() - before, (uint64_t)hops - 1);
	for (unsigned k = 0; k < ngroups; k++)
		bh_fiber_group_destroy(g[k]);
}

Test(fiber, two_fibers_of_one_group_hand_a_token_back_and_forth)
{
	run_ring(2, 2, 100000);
}

Test(fiber, fibers_of_two_groups_wake_each_other_across_threads)
{
	run_ring(2, 1, 40000);
}

/* Nine fibers in three groups: every third hop crosses threads. */
Test(fiber, a_token_goes_round_nine_fibers_in_three_groups)
{
	run_ring(9, 3, 90000);
}

/* A plain thread feeds a fiber through a ring; the fiber parks when it is empty. */
#define RING 64u
struct feed {
	_Atomic uint32_t head, tail;
	uint32_t ring[RING];
	struct bh_waiter consumer, producer;
	unsigned items;
	uint64_t sum;
	bool in_order;
};

static void *feed_consumer(void *arg)
{
	struct feed *q = arg;
	uint32_t expect = 1;
	q->in_order = true;
	for (unsigned i = 0; i < q->items; i++) {
		uint32_t h = atomic_load(&q->head);
		for (;;) {
			uint32_t seq = bh_park_seq(&q->consumer);
			if (atomic_load(&q->tail) != h)
				break;
			bh_park_sleep(&q->consumer, seq, 0);
		}
		uint32_t v = q->ring[h % RING];
		q->in_order &= v == expect++;
		q->sum += v;
		atomic_store(&q->head, h + 1);
		bh_park_wake(&q->producer);
	}
	return NULL;
}

Test(fiber, a_plain_thread_feeds_a_fiber_without_losing_a_wake_up)
{
	struct feed q = { .items = 200000 };
	struct bh_fiber_group *g = bh_fiber_group_create("test feed");
	cr_assert(g);
	struct bh_fiber *f = bh_fiber_start(g, &q.consumer, feed_consumer, &q, STACK);
	cr_assert(f);
	for (uint32_t v = 1; v <= q.items; v++) {
		uint32_t t = atomic_load(&q.tail);
		for (;;) {
			uint32_t seq = bh_park_seq(&q.producer);
			if (t - atomic_load(&q.head) < RING)
				break;
			bh_park_sleep(&q.producer, seq, 0);   /* a plain thread: a futex sleep */
		}
		q.ring[t % RING] = v;
		atomic_store(&q.tail, t + 1);
		bh_park_wake(&q.consumer);
	}
	bh_fiber_join(f);
	cr_expect(q.in_order, "items came out of order");
	cr_expect_eq(q.sum, (uint64_t)q.items * (q.items + 1) / 2);
	bh_fiber_group_destroy(g);
}

/* A fiber parked with a timeout and nobody to wake it returns once the timeout has passed. */
struct timed {
	struct bh_waiter w;
	uint64_t slept_ns;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *timed_sleeper(void *arg)
{
	struct timed *t = arg;
	uint64_t t0 = mono_ns();
	bh_park_sleep(&t->w, bh_park_seq(&t->w), 20 * 1000 * 1000);
	t->slept_ns = mono_ns() - t0;
	return NULL;
}

Test(fiber, a_timed_park_ends_when_its_timeout_passes)
{
	struct timed t = { 0 };
	struct bh_fiber_group *g = bh_fiber_group_create("test timed");
	cr_assert(g);
	struct bh_fiber *f = bh_fiber_start(g, &t.w, timed_sleeper, &t, STACK);
	cr_assert(f);
	bh_fiber_join(f);   /* a lost timeout would hang here (ctest's limit) */
	cr_expect_geq(t.slept_ns, 20u * 1000 * 1000, "woke after %llu ns, before its 20 ms", (unsigned long long)t.slept_ns);
	bh_fiber_group_destroy(g);
}

/* A fiber's delay (a provoked one, sync/provoke.c) lets the other fibers of its group run: a
 * second fiber counts while the first sleeps 20 ms. */
struct delay {
	struct bh_waiter w[2];
	_Atomic uint32_t sleeping, done;
	uint64_t slept_ns, counted;
};

static void *delay_sleeper(void *arg)
{
	struct delay *d = arg;
	uint64_t t0 = mono_ns();
	atomic_store(&d->sleeping, 1);
	bh_fiber_sleep(20 * 1000 * 1000);
	d->slept_ns = mono_ns() - t0;
	atomic_store(&d->done, 1);
	return NULL;
}

static void *delay_counter(void *arg)
{
	struct delay *d = arg;
	while (!atomic_load(&d->done)) {
		if (atomic_load(&d->sleeping))
			d->counted++;
		bh_fiber_yield();
	}
	return NULL;
}

Test(fiber, a_delay_of_one_fiber_lets_the_others_of_its_group_run)
{
	struct delay d = { 0 };
	struct bh_fiber_group *g = bh_fiber_group_create("test delay");
	cr_assert(g);
	struct bh_fiber *a = bh_fiber_start(g, &d.w[0], delay_sleeper, &d, STACK);
	struct bh_fiber *b = bh_fiber_start(g, &d.w[1], delay_counter, &d, STACK);
	cr_assert(a && b);
	bh_fiber_join(a);
	bh_fiber_join(b);
	cr_expect_geq(d.slept_ns, 20u * 1000 * 1000, "woke after %llu ns, before its 20 ms", (unsigned long long)d.slept_ns);
	cr_expect_gt(d.counted, 0, "the other fiber did not run during the delay");
	bh_fiber_group_destroy(g);
}

/* A fiber that never parks (a compute loop polling a flag it cannot park on) gives the thread to
 * the others at its preemption points: the flag's writer, in the same group, gets to run. */
struct spin {
	struct bh_waiter w[2];
	_Atomic uint32_t flag;
	_Atomic uint32_t started;
	uint64_t points;
};

static void *spinner(void *arg)
{
	struct spin *s = arg;
	atomic_store(&s->started, 1);
	while (!atomic_load(&s->flag)) {
		s->points++;
		bh_fiber_point();
	}
	return NULL;
}

static void *setter(void *arg)
{
	struct spin *s = arg;
	atomic_store(&s->flag, 1);
	return NULL;
}

Test(fiber, a_fiber_that_never_parks_lets_the_others_run_at_its_preemption_points)
{
	struct spin s = { 0 };
	struct bh_fiber_group *g = bh_fiber_group_create("test spin");
	cr_assert(g);
	struct bh_fiber *a = bh_fiber_start(g, &s.w[0], spinner, &s, STACK);
	cr_assert(a);
	while (!atomic_load(&s.started))
		sleep_ms(1);
	struct bh_fiber *b = bh_fiber_start(g, &s.w[1], setter, &s, STACK);
	cr_assert(b);
	bh_fiber_join(b);
	bh_fiber_join(a);
	cr_expect_gt(s.points, 0);
	bh_fiber_group_destroy(g);
}

/* Fibers parked with nothing to wake them: the group's thread sleeps (no CPU), and a wake from
 * the host still gets through afterwards. */
struct idle {
	struct bh_waiter w[3];
	_Atomic uint32_t go;
	_Atomic uint32_t done;
};

struct idle_arg {
	struct idle *s;
	unsigned k;
};

static void *idle_fiber(void *arg)
{
	struct idle_arg *a = arg;
	wait_for(&a->s->w[a->k], &a->s->go, 1);
	atomic_fetch_add(&a->s->done, 1);
	return NULL;
}

Test(fiber, parked_fibers_cost_no_cpu_and_still_wake)
{
	struct idle s = { 0 };
	struct idle_arg args[3];
	struct bh_fiber *f[3];
	struct bh_fiber_group *g = bh_fiber_group_create("test idle");
	cr_assert(g);
	for (unsigned k = 0; k < 3; k++) {
		args[k] = (struct idle_arg){ &s, k };
		cr_assert((f[k] = bh_fiber_start(g, &s.w[k], idle_fiber, &args[k], STACK)));
	}
	sleep_ms(50);
	double wall;
	double used = cpu_used_while_sleeping(300, &wall);
	cr_expect_lt(used, 0.1 * wall, "three parked fibers used %.1f ms of CPU in %.0f ms", used * 1e3, wall * 1e3);
	atomic_store(&s.go, 1);
	for (unsigned k = 0; k < 3; k++)
		bh_park_wake(&s.w[k]);
	for (unsigned k = 0; k < 3; k++)
		bh_fiber_join(f[k]);
	cr_expect_eq(atomic_load(&s.done), 3);
	bh_fiber_group_destroy(g);
}


/* The device option: with tile_threads ONE a tile's cores run as fibers of its group (and a
 * program runs to its exit); the environment's value is checked. */
Test(fiber, a_device_with_one_thread_per_tile_runs_its_cores_as_fibers)
{
	struct bh_device *dev = t_open_cfg(&(struct bh_device_config){ .num_tiles = 2, .tile_threads = BH_TILE_THREADS_ONE });
	cr_assert(dev->tiles[0]->fibers && dev->tiles[1]->fibers, "no fiber group");
	struct prog p = { 0 };
	emit_exit_with(&p, 5);
	prog_put(dev, 1, 0x1000, &p);
	cr_assert_eq(bh_core_start(dev, 1, BH_CORE_NCRISC, 0x1000), BH_OK);
	expect_exit(dev, 1, BH_CORE_NCRISC, 5);
	cr_expect(dev->tiles[1]->core[BH_CORE_NCRISC]->fiber != NULL, "the core has no fiber");
	bh_device_close(dev);

	dev = t_open_cfg(&(struct bh_device_config){ .num_tiles = 1, .tile_threads = BH_TILE_THREADS_PER_CORE });
	cr_expect(dev->tiles[0]->fibers == NULL, "per-core made a fiber group");
	bh_device_close(dev);
}

Test(fiber, a_wrong_BHEMU_TILE_THREADS_is_refused)
{
	struct bh_device *dev = NULL;
	setenv("BHEMU_TILE_THREADS", "two", 1);
	cr_expect_eq(bh_device_open(NULL, &dev), BH_ERR_ARG);
	cr_expect_null(dev);
	setenv("BHEMU_TILE_THREADS", "one", 1);
	cr_assert_eq(bh_device_open(&(struct bh_device_config){ .num_tiles = 1 }, &dev), BH_OK);
	cr_expect(dev->tiles[0]->fibers != NULL, "BHEMU_TILE_THREADS=one made no fiber group");
	bh_device_close(dev);
	unsetenv("BHEMU_TILE_THREADS");
}

static long threads_now(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	cr_assert_not_null(f);
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "Threads:", 8))
			v = strtol(line + 8, NULL, 10);
	fclose(f);
	return v;
}

/* A P150 with one thread per tile: no tile thread at open, one per tile once its cores are
 * released (140 for 700 cores, each parked in a poll), none left after close. */
Test(fiber, a_p150_with_one_thread_per_tile_runs_140_threads_for_700_cores)
{
	bh_device_close(t_open_cfg(&(struct bh_device_config){ .num_tiles = 1 }));   /* runtime threads first */
	long threads0 = threads_now();
	struct bh_device *dev = t_open_cfg(&(struct bh_device_config){ .board = BH_BOARD_P150,
								      .tile_threads = BH_TILE_THREADS_ONE });
	long opened = threads_now() - threads0;
	cr_expect_lt(opened, 8, "%ld threads at open", opened);
	/* lw t0, 0x100(x0); beq t0, x0, -4: a poll that parks */
	struct prog p = { 0 };
	int32_t loop = prog_here(&p);
	emit(&p, lw(T0, 0x100, X0));
	emit_branch(&p, BEQ, T0, X0, loop);
	for (unsigned t = 0; t < 140; t++) {
		prog_put(dev, t, 0, &p);
		cr_assert_eq(bh_reg_write(dev, t, 0xFFB121B0u, 0), BH_OK);   /* SOFT_RESET_0: release all five */
	}
	long threads = threads_now() - threads0;
	cr_expect_eq(threads, 140 + opened, "%ld threads after the releases", threads);
	bh_device_close(dev);
	long left = threads_now() - threads0;
	cr_expect_eq(left, 0, "%ld of the device's threads outlived bh_device_close", left);
}
