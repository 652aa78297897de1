#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fabric/tile.h"
#include "sync/fiber.h"
#include "sync/hooks.h"
#include "sync/park.h"
#include "sync/sched.h"

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, ts, NULL, 0);
}

uint32_t bh_park_seq(struct bh_waiter *w)
{
	return atomic_load_explicit(&w->wake_seq, memory_order_acquire);
}

/* Statistics (bh_park_sleep_stats): futex sleeps entered, and wakes that had to make the system
 * call, counted in shards picked by the waiter's address, so that 700 cores parking together do
 * not all bounce one cache line. */
#define PARK_STAT_SHARDS 64u
static struct park_stat {
	_Atomic uint64_t sleeps, futex_wakes, yields;
} __attribute__((aligned(64))) park_stat[PARK_STAT_SHARDS];

static struct park_stat *park_shard(const struct bh_waiter *w)
{
	return &park_stat[(uintptr_t)w / 64u % PARK_STAT_SHARDS];
}

void bh_park_sleep_stats(uint64_t *sleeps, uint64_t *futex_wakes)
{
	*sleeps = *futex_wakes = 0;
	for (unsigned k = 0; k < PARK_STAT_SHARDS; k++) {
		*sleeps += atomic_load_explicit(&park_stat[k].sleeps, memory_order_relaxed);
		*futex_wakes += atomic_load_explicit(&park_stat[k].futex_wakes, memory_order_relaxed);
	}
}

uint64_t bh_park_yield_stats(void)
{
	uint64_t n = 0;
	for (unsigned k = 0; k < PARK_STAT_SHARDS; k++)
		n += atomic_load_explicit(&park_stat[k].yields, memory_order_relaxed);
	return n;
}

void bh_park_yield(struct bh_waiter *w)
{
	atomic_fetch_add_explicit(&park_shard(w)->yields, 1, memory_order_relaxed);
	if (bh_fiber_self)
		bh_fiber_yield();   /* the group's other fibers that can run, not the kernel's threads */
	else
		sched_yield();
}

void bh_park_sleep(struct bh_waiter *w, uint32_t seq, uint64_t timeout_ns)
{
	struct timespec ts, *tsp = NULL;
	/* For the deadlock monitor: a parked waiter whose wake_seq moved past this was woken and
	 * only waits for a CPU (sync/deadlock.c). */
	atomic_store_explicit(&w->sleep_seq, seq, memory_order_release);
	/* Serial: not runnable until woken (or virtual time passes the timeout). */
	if (w->actor && bh_sched_park(w->actor, &w->wake_seq, seq, timeout_ns))
		return;
	/* A fiber: the group's other fibers run meanwhile (sync/fiber.h). */
	if (bh_fiber_self) {
		atomic_fetch_add_explicit(&park_shard(w)->sleeps, 1, memory_order_relaxed);
		/* The mark only tells observers that it sleeps: its wakers take the fiber's path. */
		atomic_store_explicit(&w->sleeping, (uint64_t)seq | 1ull << 32, memory_order_release);
		bh_fiber_park(w, seq, timeout_ns);
		atomic_store_explicit(&w->sleeping, 0, memory_order_relaxed);
		return;
	}
	if (timeout_ns) {
		ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
		ts.tv_nsec = (long)(timeout_ns % 1000000000u);
		tsp = &ts;
	}
	atomic_store_explicit(&w->sleeping, (uint64_t)seq | 1ull << 32, memory_order_seq_cst);
	/* Returns at once (EAGAIN) if wake_seq moved since seq was read: no lost wake-up. */
	bh_rcu_offline();   /* a sleeping core holds no hook pointer (sync/hooks.h) */
	atomic_fetch_add_explicit(&park_shard(w)->sleeps, 1, memory_order_relaxed);
	futex(&w->wake_seq, FUTEX_WAIT_PRIVATE, seq, tsp);
	bh_rcu_online();
	atomic_store_explicit(&w->sleeping, 0, memory_order_relaxed);
}

void bh_park_wake(struct bh_waiter *w)
{
	uint32_t old = atomic_fetch_add_explicit(&w->wake_seq, 1, memory_order_seq_cst);
	if (w->actor)
		bh_sched_wake(w->actor);
	struct bh_fiber *f = atomic_load_explicit(&w->fiber, memory_order_seq_cst);
	if (f) {
		bh_fiber_wake(f);
		return;
	}
	/* Only the waker that moved wake_seq off the value a sleep waits on makes the system call:
	 * the others' increments are enough (a sleeper not yet in the kernel sees wake_seq moved and
	 * does not sleep). Either the sleeper's mark is visible here, or its futex sees the moved
	 * word (both seq_cst). The mark names the sleep's value: a waker of an earlier sleep that
	 * comes late must not clear a later sleep's mark, which would leave that sleep's own waker
	 * nothing to wake and the sleeper asleep for good (a rare hang under load). */
	uint64_t mine = (uint64_t)old | 1ull << 32;
	if (atomic_load_explicit(&w->sleeping, memory_order_seq_cst) == mine &&
	    atomic_compare_exchange_strong_explicit(&w->sleeping, &mine, 0, memory_order_seq_cst, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&park_shard(w)->futex_wakes, 1, memory_order_relaxed);
		futex(&w->wake_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	}
}

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

static _Atomic unsigned park_threads;

int bh_park_futex_hash_slots(void)
{
	int n = prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
	return n < 0 ? -1 : n;
}

void bh_park_thread_added(void)
{
	unsigned n = atomic_fetch_add_explicit(&park_threads, 1, memory_order_relaxed) + 1;
	if (n < BH_PARK_HASH_MIN_THREADS || (n & (n - 1)))
		return;   /* only when the count reaches a power of two */
	/* 2 buckets per thread for twice the threads: grown once per doubling. Growing only (a
	 * slower caller with a smaller count leaves a bigger hash as it is); 0 is the global hash. */
	unsigned long want = 2ul * n * BH_PARK_HASH_PER_THREAD;
	int have = prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
	if (have > 0 && (unsigned long)have < want)
		(void)prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, want, 0, 0);
}

void bh_park_thread_gone(void)
{
	atomic_fetch_sub_explicit(&park_threads, 1, memory_order_relaxed);
}

void bh_waitq_add(struct bh_waitq *q, unsigned kind)
{
	atomic_fetch_or_explicit(&q->waiters, 1u << kind, memory_order_seq_cst);
}

void bh_waitq_wake(struct bh_tile *t, struct bh_waitq *q)
{
	if (!atomic_load_explicit(&q->waiters, memory_order_seq_cst))
		return;
	uint32_t w = atomic_exchange_explicit(&q->waiters, 0, memory_order_seq_cst);
	while (w) {
		unsigned k = (unsigned)__builtin_ctz(w);
		w &= w - 1;
		bh_park_wake(t->waiter[k]);
	}
}

static pthread_once_t membarrier_once = PTHREAD_ONCE_INIT;
static bool membarrier_ok;
static _Atomic bool park_unfenced;   /* the fallback is forced */

static void membarrier_init(void)
{
	const char *e = getenv("BHEMU_MEMBARRIER");
	if (e && (!strcmp(e, "off") || !strcmp(e, "0")))
		atomic_store_explicit(&park_unfenced, true, memory_order_relaxed);
	membarrier_ok = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

void bh_park_set_unfenced(bool unfenced)
{
	pthread_once(&membarrier_once, membarrier_init);
	atomic_store_explicit(&park_unfenced, unfenced, memory_order_relaxed);
}

uint64_t bh_park_fenced_timeout(bool fenced, uint64_t want, uint64_t *unfenced_ns)
{
	if (fenced)
		return want;
	uint64_t ns = *unfenced_ns ? *unfenced_ns : BH_PARK_UNFENCED_SLEEP_NS;
	*unfenced_ns = ns * 2 > BH_PARK_UNFENCED_SLEEP_MAX_NS ? BH_PARK_UNFENCED_SLEEP_MAX_NS : ns * 2;
	return want && want < ns ? want : ns;
}

void bh_park_unfenced_woken(struct bh_waiter *w, uint32_t seq, uint64_t *unfenced_ns)
{
	if (bh_park_seq(w) != seq)
		*unfenced_ns = 0;
}

/* Combined heavy fences. A membarrier makes every thread of the process pass a full barrier while
 * it runs, so one that *starts* after a caller's request serves that caller as well as its own: a
 * caller only needs some membarrier to begin after its request and to have returned before it
 * re-reads. When the whole chip parks at once (every core after a launch), 700 membarriers
 * queued on the kernel's lock and IPIs; now one or two serve them all. requests counts callers;
 * done is the highest request number a finished membarrier began after. One caller at a time is
 * the fencer (fencing 1, or 2 once others sleep for it); the others sleep on gen, which the
 * fencer bumps when it finishes. No lock: with a mutex and a condition variable the 700 callers
 * of a launch's parks convoyed on the mutex after every broadcast. */
static struct {
	_Atomic uint64_t requests;
	_Atomic uint64_t done;
	_Atomic uint32_t fencing;       /* 0 none, 1 under way, 2 under way with sleepers */
	_Atomic uint32_t gen;           /* futex word: membarriers finished (or refused) */
	_Atomic uint64_t membarriers;   /* statistics: system calls made */
	_Atomic uint64_t last_ns;       /* when the last one returned (CLOCK_MONOTONIC) */
} park_fence;

void bh_park_fence_stats(uint64_t *calls, uint64_t *membarriers)
{
	*calls = atomic_load_explicit(&park_fence.requests, memory_order_relaxed);
	*membarriers = atomic_load_explicit(&park_fence.membarriers, memory_order_relaxed);
}

/* The fencer's turn: one membarrier for every request made before it began, at least
 * BH_BH_PARK_FENCE_GAP_NS after the last one returned (sync/park.h). */
static uint64_t park_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool park_fence_run(void)
{
	uint64_t last = atomic_load_explicit(&park_fence.last_ns, memory_order_relaxed), now = park_mono_ns();
	if (last && now - last < BH_PARK_FENCE_GAP_NS) {
		uint64_t ns = BH_PARK_FENCE_GAP_NS - (now - last);
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
		}
	}
	uint64_t upto = atomic_load_explicit(&park_fence.requests, memory_order_seq_cst);
	atomic_fetch_add_explicit(&park_fence.membarriers, 1, memory_order_relaxed);
	bool ok = syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
	atomic_store_explicit(&park_fence.last_ns, park_mono_ns(), memory_order_relaxed);
	if (ok)
		atomic_store_explicit(&park_fence.done, upto, memory_order_release);
	else
		atomic_thread_fence(memory_order_seq_cst);   /* refused now: this caller fences for itself */
	atomic_fetch_add_explicit(&park_fence.gen, 1, memory_order_release);
	if (atomic_exchange_explicit(&park_fence.fencing, 0, memory_order_acq_rel) == 2)
		futex(&park_fence.gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);   /* the others retry */
	return ok;
}

bool bh_park_heavy_fence(void)
{
	/* Serial scheduling: no other actor runs, and the token's hand-over orders every store
	 * before the next holder's loads; there is no writer to fence against. */
	if (bh_sched_serial_now())
		return true;
	pthread_once(&membarrier_once, membarrier_init);
	if (!membarrier_ok || atomic_load_explicit(&park_unfenced, memory_order_relaxed)) {
		atomic_thread_fence(memory_order_seq_cst);
		return false;
	}
	/* seq_cst RMW: the caller's registration stores are visible before a fencer reads requests. */
	uint64_t ticket = atomic_fetch_add_explicit(&park_fence.requests, 1, memory_order_seq_cst) + 1;
	for (;;) {
		/* gen before done: a fencer that finishes after this read bumps gen, so the sleep
		 * below returns at once. */
		uint32_t gen = atomic_load_explicit(&park_fence.gen, memory_order_acquire);
		if (atomic_load_explicit(&park_fence.done, memory_order_acquire) >= ticket)
			return true;
		uint32_t f = 0;
		if (atomic_compare_exchange_strong_explicit(&park_fence.fencing, &f, 1, memory_order_acq_rel,
							    memory_order_acquire))
			return park_fence_run();   /* it began after our request: it serves us */
		/* One is under way, maybe begun before our request: sleep until it finishes, then
		 * look again. Marking 2 tells the fencer to wake us; if it finished meanwhile (0),
		 * look again at once. */
		if (f == 2 || atomic_compare_exchange_strong_explicit(&park_fence.fencing, &f, 2, memory_order_acq_rel,
								     memory_order_acquire))
			futex(&park_fence.gen, FUTEX_WAIT_PRIVATE, gen, NULL);
	}
}
