/* Fiber groups (sync/fiber.h): the fibers of a group run one at a time on the group's thread and
 * switch only where one would sleep, yields or finishes. The thread's own context (the "main"
 * context) starts fibers and is where finished ones return; a parking fiber switches straight to
 * the next one that can run, round robin.
 *
 * Sleeping and waking the thread. The group's futex word gseq moves on every wake of one of its
 * fibers' waiters from outside the thread and on every fiber added. The thread sleeps only after
 * it has marked itself asleep, read gseq and found no fiber that can run, and sleeps on that
 * value; a waker first bumps the waiter's wake_seq, then gseq, then looks at the mark. Either the
 * sleeper's check sees the moved wake_seq, or its futex sees the moved gseq, or the waker sees the
 * mark and wakes it (all seq_cst): no wake-up is lost. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sync/fiber.h"
#include "sync/hooks.h"
#include "sync/park.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define FIBER_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define FIBER_TSAN 1
#endif
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#define FIBER_MAX 16u
#define GUARD 4096u

__thread struct bh_fiber *bh_fiber_self;

struct bh_fiber_ctx {
#if defined(__x86_64__)
	void *sp;   /* saved stack pointer (bh_fiber_swap) */
#else
	ucontext_t uc;
#endif
};

struct bh_fiber {
	struct bh_fiber_group *g;
	struct bh_fiber_ctx ctx;
	void *map;            /* the mapping: a guard page, then the stack */
	size_t map_size;
	void *(*fn)(void *);
	void *arg;
	struct bh_waiter *w;
	/* What it waits for, while blocked (only the group's thread reads and writes these). */
	bool blocked, finished;
	uint32_t seq;
	uint64_t deadline;    /* CLOCK_MONOTONIC ns; 0: none */
	_Atomic uint32_t done;   /* futex word of bh_fiber_join: 1 once fn returned */
#ifdef FIBER_TSAN
	void *tsan;
#endif
};

struct bh_fiber_group {
	pthread_t thread;
	pthread_mutex_t lock;            /* adding fibers */
	struct bh_fiber *fiber[FIBER_MAX];
	_Atomic unsigned n;
	_Atomic uint32_t gseq;           /* futex word of the thread's sleeps */
	_Atomic uint32_t sleeping;
	_Atomic bool closing;
	bool started;                    /* the thread runs (under lock) */
	struct bh_fiber_ctx main;
	unsigned next;                   /* round-robin cursor */
	char name[16];
#ifdef FIBER_TSAN
	void *tsan_main;
#endif
#ifdef FIBER_ASAN
	const void *main_bottom;
	size_t main_size;
#endif
};

/* Switches so far, in shards picked by the group's address (bh_fiber_switches). */
#define SWITCH_SHARDS 16u
static struct {
	_Atomic uint64_t n;
} __attribute__((aligned(64))) switch_count[SWITCH_SHARDS];

uint64_t bh_fiber_switches(void)
{
	uint64_t s = 0;
	for (unsigned k = 0; k < SWITCH_SHARDS; k++)
		s += atomic_load_explicit(&switch_count[k].n, memory_order_relaxed);
	return s;
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, ts, NULL, 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------------------------------------
 * Context switching. x86-64: callee-saved registers, MXCSR and the x87 control word on the old
 * stack, then the new stack's. A new fiber's stack holds such a frame whose return address is
 * bh_fiber_boot, which calls bh_fiber_entry(fiber) (the fiber in r12). Elsewhere: ucontext.
 */
void bh_fiber_entry(struct bh_fiber *f) __attribute__((noreturn, used, visibility("hidden")));

#if defined(__x86_64__)
void bh_fiber_swap(void **save, void *to) __attribute__((visibility("hidden")));
void bh_fiber_boot(void) __attribute__((visibility("hidden")));
__asm__(".text\n"
	".globl bh_fiber_swap\n"
	".type bh_fiber_swap,@function\n"
	"bh_fiber_swap:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tsubq $8, %rsp\n\tstmxcsr (%rsp)\n\tfnstcw 4(%rsp)\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tldmxcsr (%rsp)\n\tfldcw 4(%rsp)\n\taddq $8, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size bh_fiber_swap, .-bh_fiber_swap\n"
	".globl bh_fiber_boot\n"
	".type bh_fiber_boot,@function\n"
	"bh_fiber_boot:\n"
	"\tmovq %r12, %rdi\n"
	"\tandq $-16, %rsp\n"
	"\tcall bh_fiber_entry\n"
	"\tud2\n"
	".size bh_fiber_boot, .-bh_fiber_boot\n");

static void ctx_make(struct bh_fiber *f, void *lo, size_t size)
{
	uint64_t *top = (uint64_t *)(((uintptr_t)lo + size) & ~(uintptr_t)15);
	uint64_t *sp = top - 8;
	uint32_t mxcsr;
	uint16_t fpucw;
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fpucw));
	memset(sp, 0, 8 * sizeof *sp);
	sp[0] = (uint64_t)mxcsr | (uint64_t)fpucw << 32;
	sp[4] = (uint64_t)(uintptr_t)f;                 /* r12 */
	sp[7] = (uint64_t)(uintptr_t)bh_fiber_boot;     /* return address */
	f->ctx.sp = sp;
}

static void ctx_swap(struct bh_fiber_ctx *from, struct bh_fiber_ctx *to)
{
	bh_fiber_swap(&from->sp, to->sp);
}
#else
static void fiber_uc_entry(unsigned hi, unsigned lo)
{
	bh_fiber_entry((struct bh_fiber *)(uintptr_t)((uint64_t)hi << 32 | lo));
}

static void ctx_make(struct bh_fiber *f, void *lo, size_t size)
{
	getcontext(&f->ctx.uc);
	f->ctx.uc.uc_stack.ss_sp = lo;
	f->ctx.uc.uc_stack.ss_size = size;
	f->ctx.uc.uc_link = NULL;
	uint64_t p = (uint64_t)(uintptr_t)f;
	makecontext(&f->ctx.uc, (void (*)(void))fiber_uc_entry, 2, (unsigned)(p >> 32), (unsigned)p);
}

static void ctx_swap(struct bh_fiber_ctx *from, struct bh_fiber_ctx *to)
{
	swapcontext(&from->uc, &to->uc);
}
#endif

static void *stack_lo(const struct bh_fiber *f)
{
	return (char *)f->map + GUARD;
}

/* Switch from `from` (NULL: the main context) to `to` (NULL: main). dying: `from` never runs
 * again (its stack stays mapped until the group is destroyed). */
static void fiber_switch(struct bh_fiber_group *g, struct bh_fiber *from, struct bh_fiber *to, bool dying)
{
	bh_fiber_self = to;
	atomic_fetch_add_explicit(&switch_count[(uintptr_t)g / 64u % SWITCH_SHARDS].n, 1, memory_order_relaxed);
#ifdef FIBER_ASAN
	void *fake = NULL;
	__sanitizer_start_switch_fiber(dying ? NULL : &fake, to ? stack_lo(to) : g->main_bottom,
				       to ? to->map_size - GUARD : g->main_size);
#else
	(void)dying;
#endif
#ifdef FIBER_TSAN
	__tsan_switch_to_fiber(to ? to->tsan : g->tsan_main, 0);
#endif
	ctx_swap(from ? &from->ctx : &g->main, to ? &to->ctx : &g->main);
#ifdef FIBER_ASAN
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

/* ---------------------------------------------------------------------------------------------
 * Choosing the next fiber, and sleeping when none can run (on the group's thread).
 */

static bool fiber_runnable(struct bh_fiber *f, uint64_t *now, uint64_t *soonest)
{
	if (f->finished)
		return false;
	if (!f->blocked || atomic_load_explicit(&f->w->wake_seq, memory_order_seq_cst) != f->seq)
		return true;
	if (!f->deadline)
		return false;
	if (!*now)
		*now = now_ns();
	if (*now >= f->deadline)
		return true;
	if (f->deadline < *soonest)
		*soonest = f->deadline;
	return false;
}

/* A fiber that can run, others before `self`; NULL if none (*soonest: the earliest deadline of
 * the blocked ones, *live: whether any fiber has not finished). */
static struct bh_fiber *fiber_pick(struct bh_fiber_group *g, struct bh_fiber *self, uint64_t *soonest, bool *live)
{
	unsigned n = atomic_load_explicit(&g->n, memory_order_acquire);
	uint64_t now = 0;
	*soonest = UINT64_MAX;
	*live = false;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (g->next + i) % n;
		struct bh_fiber *f = g->fiber[k];
		*live |= !f->finished;
		if (f != self && fiber_runnable(f, &now, soonest)) {
			g->next = k + 1;
			return f;
		}
	}
	if (self && fiber_runnable(self, &now, soonest))
		return self;
	return NULL;
}

/* The next fiber to run, sleeping until one can; NULL only for the main context once the group
 * is closing and every fiber has finished. */
static struct bh_fiber *fiber_next(struct bh_fiber_group *g, struct bh_fiber *self)
{
	for (;;) {
		uint64_t soonest;
		bool live;
		struct bh_fiber *f = fiber_pick(g, self, &soonest, &live);
		if (f)
			return f;
		atomic_store_explicit(&g->sleeping, 1, memory_order_seq_cst);
		uint32_t gs = atomic_load_explicit(&g->gseq, memory_order_seq_cst);
		f = fiber_pick(g, self, &soonest, &live);
		if (f || (!live && atomic_load_explicit(&g->closing, memory_order_acquire))) {
			atomic_store_explicit(&g->sleeping, 0, memory_order_relaxed);
			return f;
		}
		struct timespec ts, *tsp = NULL;
		if (soonest != UINT64_MAX) {
			uint64_t now = now_ns(), d = soonest > now ? soonest - now : 0;
			ts.tv_sec = (time_t)(d / 1000000000u);
			ts.tv_nsec = (long)(d % 1000000000u);
			tsp = &ts;
		}
		/* Asleep, the thread holds no hook pointer: offline as an ordinary thread (the
		 * fibers' own offline/online calls are no-ops, sync/hooks.c). */
		struct bh_fiber *me = bh_fiber_self;
		bh_fiber_self = NULL;
		bh_rcu_offline();
		futex(&g->gseq, FUTEX_WAIT_PRIVATE, gs, tsp);
		bh_rcu_online();
		bh_fiber_self = me;
		atomic_store_explicit(&g->sleeping, 0, memory_order_relaxed);
	}
}

void bh_fiber_entry(struct bh_fiber *f)
{
#ifdef FIBER_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	f->fn(f->arg);
	struct bh_fiber_group *g = f->g;
	f->finished = true;
	atomic_store_explicit(&f->done, 1, memory_order_release);
	futex(&f->done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
	fiber_switch(g, f, NULL, true);   /* the main context picks the next */
	abort();
}

static void *group_main(void *arg)
{
	struct bh_fiber_group *g = arg;
	pthread_setname_np(pthread_self(), g->name);
	bh_rcu_thread_register();
#ifdef FIBER_TSAN
	g->tsan_main = __tsan_get_current_fiber();
#endif
#ifdef FIBER_ASAN
	pthread_attr_t attr;
	void *lo = NULL;
	size_t size = 0;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		pthread_attr_getstack(&attr, &lo, &size);
		pthread_attr_destroy(&attr);
	}
	g->main_bottom = lo;
	g->main_size = size;
#endif
	struct bh_fiber *f;
	while ((f = fiber_next(g, NULL)))
		fiber_switch(g, NULL, f, false);
	bh_rcu_thread_unregister();
	return NULL;
}

struct bh_fiber_group *bh_fiber_group_create(const char *name)
{
	struct bh_fiber_group *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	pthread_mutex_init(&g->lock, NULL);
	snprintf(g->name, sizeof g->name, "%s", name);
	return g;
}

/* The group's thread, at its first fiber (under g->lock): a tile none of whose cores was ever
 * released has no thread, as with a thread per core. */
static bool group_thread_start(struct bh_fiber_group *g)
{
	if (g->started)
		return true;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	g->started = pthread_create(&g->thread, &attr, group_main, g) == 0;
	pthread_attr_destroy(&attr);
	return g->started;
}

static void group_kick(struct bh_fiber_group *g)
{
	atomic_fetch_add_explicit(&g->gseq, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&g->sleeping, memory_order_seq_cst))
		futex(&g->gseq, FUTEX_WAKE_PRIVATE, 1, NULL);
}

void bh_fiber_group_destroy(struct bh_fiber_group *g)
{
	if (!g)
		return;
	atomic_store_explicit(&g->closing, true, memory_order_seq_cst);
	group_kick(g);
	pthread_mutex_lock(&g->lock);
	bool started = g->started;
	pthread_mutex_unlock(&g->lock);
	if (started)
		pthread_join(g->thread, NULL);
	unsigned n = atomic_load_explicit(&g->n, memory_order_acquire);
	for (unsigned k = 0; k < n; k++) {
		struct bh_fiber *f = g->fiber[k];
#ifdef FIBER_TSAN
		__tsan_destroy_fiber(f->tsan);
#endif
#ifdef FIBER_ASAN
		__asan_unpoison_memory_region(stack_lo(f), f->map_size - GUARD);
#endif
		munmap(f->map, f->map_size);
		free(f);
	}
	pthread_mutex_destroy(&g->lock);
	free(g);
}

struct bh_fiber *bh_fiber_start(struct bh_fiber_group *g, struct bh_waiter *w, void *(*fn)(void *), void *arg,
				size_t stack)
{
	struct bh_fiber *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	f->map_size = GUARD + (stack + page - 1) / page * page;
	f->map = mmap(NULL, f->map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (f->map == MAP_FAILED) {
		free(f);
		return NULL;
	}
	mprotect(f->map, GUARD, PROT_NONE);   /* an overflow faults instead of corrupting */
#ifdef FIBER_ASAN
	/* The range may have been an earlier fiber's stack: its shadow still marks dead frames. */
	__asan_unpoison_memory_region(stack_lo(f), f->map_size - GUARD);
#endif
	f->g = g;
	f->fn = fn;
	f->arg = arg;
	f->w = w;
	ctx_make(f, stack_lo(f), f->map_size - GUARD);
#ifdef FIBER_TSAN
	f->tsan = __tsan_create_fiber(0);
#endif
	pthread_mutex_lock(&g->lock);
	unsigned n = atomic_load_explicit(&g->n, memory_order_relaxed);
	if (n == FIBER_MAX || !group_thread_start(g)) {
		pthread_mutex_unlock(&g->lock);
#ifdef FIBER_TSAN
		__tsan_destroy_fiber(f->tsan);
#endif
		munmap(f->map, f->map_size);
		free(f);
		return NULL;
	}
	atomic_store_explicit(&w->fiber, f, memory_order_seq_cst);
	g->fiber[n] = f;
	atomic_store_explicit(&g->n, n + 1, memory_order_release);
	pthread_mutex_unlock(&g->lock);
	group_kick(g);
	return f;
}

void bh_fiber_join(struct bh_fiber *f)
{
	while (!atomic_load_explicit(&f->done, memory_order_acquire))
		futex(&f->done, FUTEX_WAIT_PRIVATE, 0, NULL);
}

/* ---------------------------------------------------------------------------------------------
 * Parking, waking and yielding.
 */

void bh_fiber_park(struct bh_waiter *w, uint32_t seq, uint64_t timeout_ns)
{
	struct bh_fiber *me = bh_fiber_self;
	if (atomic_load_explicit(&w->fiber, memory_order_relaxed) != me) {
		fprintf(stderr, "bhemu: internal error: a fiber parks on a waiter that is not its own\n");
		abort();
	}
	me->blocked = true;
	me->seq = seq;
	me->deadline = timeout_ns ? now_ns() + timeout_ns : 0;
	struct bh_fiber *next = fiber_next(me->g, me);
	if (next != me)
		fiber_switch(me->g, me, next, false);
	me->blocked = false;
}

void bh_fiber_sleep(uint64_t ns)
{
	struct bh_fiber *me = bh_fiber_self;
	uint64_t end = now_ns() + ns;
	/* Parked on its own waiter until the deadline; a wake-up meanwhile only parks it again. */
	for (uint64_t now; (now = now_ns()) < end;)
		bh_fiber_park(me->w, atomic_load_explicit(&me->w->wake_seq, memory_order_seq_cst), end - now);
}

void bh_fiber_wake(struct bh_fiber *f)
{
	struct bh_fiber_group *g = f->g;
	/* A fiber of the same group: the thread is awake (it runs the waker) and re-checks every
	 * fiber before it sleeps. */
	if (bh_fiber_self && bh_fiber_self->g == g)
		return;
	group_kick(g);
}

void bh_fiber_yield(void)
{
	struct bh_fiber *me = bh_fiber_self;
	if (!me)
		return;
	uint64_t soonest;
	bool live;
	struct bh_fiber *next = fiber_pick(me->g, me, &soonest, &live);
	if (next && next != me)
		fiber_switch(me->g, me, next, false);
}

void bh_fiber_point(void)
{
	if (bh_fiber_self)
		bh_fiber_yield();
}
