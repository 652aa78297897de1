/* Core observers (bh_device_observe, sync/hooks.h): every core's start, park, wake and stop reach
 * the attached callbacks on the core's own thread, and attaching and detaching while 700 cores
 * run is safe: once bh_device_unobserve returns, the callback is never called again (the hook
 * table is read-mostly, replaced under liburcu QSBR grace periods). */
#define _GNU_SOURCE   /* RUSAGE_THREAD */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>

#include "host/device.h"
#include "testlib.h"

#define CODE 0x1000u
#define FLAG 0x8000u

struct observer {
	_Atomic unsigned long count[4];   /* by enum bh_core_event_kind */
	_Atomic unsigned long bad;        /* calls after detach, or events that name no core */
	_Atomic bool detached;
	unsigned tiles;
};

static void observe(void *arg, const struct bh_core_event *ev)
{
	struct observer *o = arg;
	if (atomic_load(&o->detached) || ev->tile >= o->tiles || (unsigned)ev->core >= 5 || (unsigned)ev->kind >= 4) {
		atomic_fetch_add(&o->bad, 1);
		return;
	}
	atomic_fetch_add(&o->count[ev->kind], 1);
}

struct recorder {
	pthread_mutex_t lock;
	struct bh_core_event ev[16];
	unsigned n;
};

static void record(void *arg, const struct bh_core_event *ev)
{
	struct recorder *r = arg;
	pthread_mutex_lock(&r->lock);
	if (r->n < 16)
		r->ev[r->n++] = *ev;
	pthread_mutex_unlock(&r->lock);
}

static unsigned recorded(struct recorder *r)
{
	pthread_mutex_lock(&r->lock);
	unsigned n = r->n;
	pthread_mutex_unlock(&r->lock);
	return n;
}

/* One core: running at its start pc, parked and woken in its poll loop, stopped at its exit;
 * after detaching, nothing more. */
Test(observe, a_core_reports_running_parked_woken_and_stopped_in_order)
{
	struct bh_device *dev = t_open();
	struct recorder r = { .lock = PTHREAD_MUTEX_INITIALIZER };
	uint64_t id;
	cr_assert_eq(bh_device_observe(dev, record, &r, &id), BH_OK);
	start_parked_poller(dev, BH_CORE_NCRISC, CODE, FLAG);
	set_l1(dev, FLAG, 3);
	expect_exit(dev, 0, BH_CORE_NCRISC, 3);
	for (int ms = 0; ms < T_STOP_MS && recorded(&r) < 4; ms++)
		sleep_ms(1);
	cr_assert_eq(bh_device_unobserve(dev, id), BH_OK);
	cr_assert_eq(r.n, 4, "%u events", r.n);
	static const enum bh_core_event_kind want[4] = { BH_CORE_EVENT_RUNNING, BH_CORE_EVENT_PARKED,
							 BH_CORE_EVENT_WOKEN, BH_CORE_EVENT_STOPPED };
	for (unsigned k = 0; k < 4; k++) {
		cr_expect_eq(r.ev[k].kind, want[k], "event %u: kind %d", k, r.ev[k].kind);
		cr_expect_eq(r.ev[k].tile, 0);
		cr_expect_eq(r.ev[k].core, BH_CORE_NCRISC);
	}
	cr_expect_eq(r.ev[0].pc, CODE);
	cr_expect_eq(r.ev[1].pc, r.ev[2].pc, "parks and wakes in the same loop");
	cr_expect(r.ev[1].pc > CODE && r.ev[1].pc < CODE + 0x40, "parked at 0x%x", r.ev[1].pc);
	cr_expect_gt(r.ev[3].instructions, 0);
	/* Detached: another run reports nothing. */
	put_exit(dev, 0x2000, 0);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x2000), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	cr_expect_eq(r.n, 4);
	cr_expect_eq(bh_device_unobserve(dev, id), BH_ERR_ARG, "detaching twice");
	cr_expect_eq(bh_device_observe(dev, NULL, NULL, &id), BH_ERR_ARG);
	bh_device_close(dev);
}

/* Page faults of the calling thread so far. */
static long thread_faults(void)
{
	struct rusage u;
	getrusage(RUSAGE_THREAD, &u);
	return u.ru_minflt + u.ru_majflt;
}

/* Per core of tile 0: the core thread's page faults when it woke and when it stopped. */
struct fault_marks {
	_Atomic long woken[5], stopped[5];
};

static void mark_faults(void *arg, const struct bh_core_event *ev)
{
	struct fault_marks *m = arg;
	if (ev->tile != 0 || (unsigned)ev->core >= 5)
		return;
	if (ev->kind == BH_CORE_EVENT_WOKEN)
		atomic_store(&m->woken[ev->core], thread_faults());
	else if (ev->kind == BH_CORE_EVENT_STOPPED)
		atomic_store(&m->stopped[ev->core], thread_faults());
}

/* A parked core that is woken and exits goes no deeper into its thread's stack, or into any
 * other memory, than it went before parking: on a chip of 700 cores woken at once, every page
 * first touched on the way out is a page fault per core (one in the exit host call's 4 KiB
 * buffer doubled bench_sync's wake-all time). Sanitizers fault on their own shadow memory. */
Test(observe, a_woken_core_exits_without_a_page_fault)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	cr_skip_test("sanitizer runtimes fault on their shadow memory");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
	cr_skip_test("sanitizer runtimes fault on their shadow memory");
#endif
#endif
	struct bh_device *dev = t_open();
	static struct fault_marks m;
	for (unsigned c = 0; c < 5; c++)
		atomic_store(&m.woken[c], -1), atomic_store(&m.stopped[c], -1);
	uint64_t id;
	cr_assert_eq(bh_device_observe(dev, mark_faults, &m, &id), BH_OK);
	struct prog p = { 0 };
	emit_wait_nonzero(&p, FLAG, T1);
	emit_exit_with(&p, 0);
	for (unsigned c = 0; c < 5; c++) {
		prog_put(dev, 0, core_code_at[c], &p);
		cr_assert_eq(bh_core_start(dev, 0, all_cores[c], core_code_at[c]), BH_OK);
	}
	for (unsigned c = 0; c < 5; c++)
		wait_parked(dev, 0, all_cores[c]);
	set_l1(dev, FLAG, 1);
	for (unsigned c = 0; c < 5; c++) {
		expect_exit(dev, 0, all_cores[c], 0);
		/* The stop is announced to observers after the state change bh_core_wait sees. */
		for (int ms = 0; ms < T_STOP_MS && atomic_load(&m.stopped[c]) < 0; ms++)
			sleep_ms(1);
	}
	cr_assert_eq(bh_device_unobserve(dev, id), BH_OK);
	for (unsigned c = 0; c < 5; c++) {
		cr_assert_geq(m.woken[c], 0, "%s: no wake observed", core_names[c]);
		cr_assert_geq(m.stopped[c], 0, "%s: no stop observed", core_names[c]);
		cr_expect_eq(m.stopped[c] - m.woken[c], 0, "%s: %ld page faults between its wake-up and its stop",
			     core_names[c], m.stopped[c] - m.woken[c]);
	}
	bh_device_close(dev);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ROUNDS 6u
#else
#define ROUNDS 30u
#endif

/* Attaches and detaches an observer over and over until told to stop. */
struct churn {
	struct bh_device *dev;
	struct observer obs;
	_Atomic bool stop;
	unsigned cycles;
	int failures;
};

static void *churn_main(void *arg)
{
	struct churn *ch = arg;
	while (!atomic_load(&ch->stop)) {
		uint64_t id;
		atomic_store(&ch->obs.detached, false);
		if (bh_device_observe(ch->dev, observe, &ch->obs, &id) != BH_OK) {
			ch->failures++;
			break;
		}
		sched_yield();
		if (bh_device_unobserve(ch->dev, id) != BH_OK)
			ch->failures++;
		atomic_store(&ch->obs.detached, true);   /* from here on, a call is a violation */
		ch->cycles++;
	}
	return NULL;
}

/* Every core of a P150 polls one word of its tile until it has seen ROUNDS + 1; the host bumps
 * the word on every tile ROUNDS + 1 times. One observer stays attached throughout and must see
 * exactly 700 starts and stops and as many wakes as parks; two host threads attach and detach
 * other observers all along, which must never be called once detached. */
Test(observe, attach_and_detach_while_700_cores_park_and_wake, .timeout = 600)
{
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&(struct bh_device_config){ .board = BH_BOARD_P150, .deadlock_ms = -1 }, &dev), BH_OK);
	unsigned tiles = bh_device_num_tiles(dev);
	struct prog p = { 0 };
	emit(&p, INSN_L0_CACHE_OFF);                /* the poll below has no fence */
	emit(&p, addi(S0, X0, 0));                  /* last value seen */
	emit_li(&p, S1, ROUNDS + 1);
	emit_li(&p, T0, FLAG);
	int32_t loop = prog_here(&p);
	emit(&p, lw(T1, 0, T0));
	emit_branch(&p, BEQ, T1, S0, loop);         /* parks until the word changes */
	emit(&p, addi(S0, T1, 0));
	emit_branch(&p, BNE, S0, S1, loop);
	emit_exit_with(&p, 0);
	for (unsigned t = 0; t < tiles; t++)
		for (unsigned c = 0; c < 5; c++) {
			prog_put(dev, t, core_code_at[c], &p);
			bh_core_enable_host_calls(dev, t, all_cores[c], true);
		}

	static struct observer all;
	all.tiles = tiles;
	uint64_t all_id;
	cr_assert_eq(bh_device_observe(dev, observe, &all, &all_id), BH_OK);
	static struct churn ch[2];
	pthread_t th[2];
	for (unsigned k = 0; k < 2; k++) {
		ch[k] = (struct churn){ .dev = dev };
		ch[k].obs.tiles = tiles;
		atomic_store(&ch[k].obs.detached, true);
		cr_assert_eq(pthread_create(&th[k], NULL, churn_main, &ch[k]), 0);
	}
	for (unsigned t = 0; t < tiles; t++)
		for (unsigned c = 0; c < 5; c++)
			cr_assert_eq(bh_core_start(dev, t, all_cores[c], core_code_at[c]), BH_OK);
	for (uint32_t v = 1; v <= ROUNDS + 1; v++) {
		sleep_ms(20);
		for (unsigned t = 0; t < tiles; t++)
			cr_assert_eq(bh_l1_write(dev, t, FLAG, &v, 4), BH_OK);
	}
	for (unsigned t = 0; t < tiles; t++)
		for (unsigned c = 0; c < 5; c++)
			expect_exit(dev, t, all_cores[c], 0);
	for (unsigned k = 0; k < 2; k++) {
		atomic_store(&ch[k].stop, true);
		pthread_join(th[k], NULL);
	}
	cr_assert_eq(bh_device_unobserve(dev, all_id), BH_OK);
	atomic_store(&all.detached, true);

	cr_expect_eq(all.bad, 0);
	cr_expect_eq(all.count[BH_CORE_EVENT_RUNNING], 5ul * tiles);
	cr_expect_eq(all.count[BH_CORE_EVENT_STOPPED], 5ul * tiles);
	cr_expect_eq(all.count[BH_CORE_EVENT_PARKED], all.count[BH_CORE_EVENT_WOKEN]);
	cr_expect_gt(all.count[BH_CORE_EVENT_PARKED], 0);
	for (unsigned k = 0; k < 2; k++) {
		cr_expect_eq(ch[k].failures, 0);
		cr_expect_eq(ch[k].obs.bad, 0, "churn observer %u called %lu times after detaching", k, ch[k].obs.bad);
		cr_expect_gt(ch[k].cycles, 0);
		cr_log_info("churn %u: %u attach/detach cycles, %lu events seen", k, ch[k].cycles,
			    ch[k].obs.count[0] + ch[k].obs.count[1] + ch[k].obs.count[2] + ch[k].obs.count[3]);
	}
	cr_log_info("%u tiles: %lu parks observed", tiles, all.count[BH_CORE_EVENT_PARKED]);
	bh_device_close(dev);
}
