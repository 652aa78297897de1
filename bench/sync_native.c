/* Native references of bench_sync (see sync_native.h): host threads doing what the guest
 * programs do, with C11 atomics where the guests use stream registers and L1 words. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "benchlib.h"
#include "sync_native.h"
#include "tests/guest/mc/cb_page_words.h"

#define MAX_STAGES 8
#define STACK_BYTES (256 * 1024)
/* Waits spin this many times with a pause, then yield the CPU on every further try: with more
 * threads than CPUs (5 stages on 2 cores) a pure spin would burn the time slice of the stage
 * it waits for. */
#define SPIN_PAUSES 128

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, NULL, NULL, 0);
}

/* Starts fn(arg) on a thread with a small stack. */
static int thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_BYTES);
	int rc = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc;
}

/* ---- Pages: the format of tests/guest/mc/cb_page.h, the same arithmetic ---------------------- */

static void page_fill(uint32_t *p, uint32_t nwords, uint32_t seq)
{
	uint32_t h = page_hash(page_hash(PAGE_HASH_SEED, seq), 0);
	p[0] = seq;
	p[1] = 0;
	for (uint32_t i = 2; i < nwords - 1; i++) {
		uint32_t w = page_word(seq, i);
		p[i] = w;
		h = page_hash(h, w);
	}
	p[nwords - 1] = h;
}

/* 0 when page p is page seq after `stage` forwards; else which word is wrong (1-based). */
static uint32_t page_check(const uint32_t *p, uint32_t nwords, uint32_t seq, uint32_t stage)
{
	if (p[0] != seq)
		return 1;
	if (p[1] != stage)
		return 2;
	uint32_t h = page_hash(page_hash(PAGE_HASH_SEED, seq), stage);
	for (uint32_t i = 2; i < nwords - 1; i++) {
		uint32_t w = p[i];
		if (w != page_word(seq, i) + stage * PAGE_STAGE_STEP)
			return i + 1;
		h = page_hash(h, w);
	}
	return p[nwords - 1] == h ? 0 : nwords;
}

/* ---- SPSC rings: a CB's two counters, as cb.h uses them -------------------------------------- */

/* The counters are 32-bit words used as free-running 16-bit counts, like stream registers 10
 * (tiles_received) and 8 (tiles_acked); each on its own cache line, which is the best the host
 * can do (on a Blackhole tile both are registers of one stream). */
struct ring {
	_Alignas(64) _Atomic uint32_t received;   /* producer: load relaxed, store release */
	_Alignas(64) _Atomic uint32_t acked;      /* consumer: load relaxed, store release */
	_Alignas(64) uint32_t *fifo;
	uint32_t num_pages;
	uint32_t page_words;
	uint32_t wr_slot;                         /* producer only */
	uint32_t rd_slot;                         /* consumer only */
};

struct chain {
	unsigned nstages;
	uint32_t pages;
	uint32_t page_words;
	struct ring *rings;                       /* nstages - 1 of them */
	_Atomic unsigned ready;                   /* stages waiting for go */
	_Atomic uint32_t go;                      /* set (release) by the main thread to start */
	_Atomic uint32_t abort;                   /* a stage failed: the others stop waiting */
	_Atomic uint32_t failed;                  /* first failing stage fills err */
	double end[MAX_STAGES];                   /* each stage's finish time (own slot) */
	char err[256];
};

struct stage_arg {
	struct chain *ch;
	unsigned stage;
};

static void chain_fail(struct chain *ch, const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange_explicit(&ch->failed, 1, memory_order_acq_rel) == 0) {
		va_start(ap, fmt);
		vsnprintf(ch->err, sizeof ch->err, fmt, ap);
		va_end(ap);
	}
	atomic_store_explicit(&ch->abort, 1, memory_order_release);
}

/* One more try of a wait: pause, later yield. False once another stage failed. */
static bool wait_backoff(struct chain *ch, unsigned *tries)
{
	if (++*tries <= SPIN_PAUSES) {
		benchlib_cpu_relax();
		return true;
	}
	sched_yield();
	return !atomic_load_explicit(&ch->abort, memory_order_relaxed);
}

/* cb_reserve_back(cb, 1): reads received once, polls acked until a page is free. */
static bool ring_reserve(struct chain *ch, struct ring *r)
{
	uint16_t received = (uint16_t)atomic_load_explicit(&r->received, memory_order_relaxed);
	unsigned tries = 0;

	for (;;) {
		/* Acquire: the consumer's reads of the freed page are done; pairs with ring_pop(). */
		uint16_t a = (uint16_t)atomic_load_explicit(&r->acked, memory_order_acquire);
		uint16_t free_pages = (uint16_t)(r->num_pages - (uint16_t)(received - a));
		if (free_pages >= 1)
			return true;
		if (!wait_backoff(ch, &tries))
			return false;
	}
}

/* cb_push_back(cb, 1): received += 1 (single producer). Release: the page's words first. */
static void ring_push(struct ring *r)
{
	uint32_t v = atomic_load_explicit(&r->received, memory_order_relaxed);
	atomic_store_explicit(&r->received, v + 1, memory_order_release);
	r->wr_slot = r->wr_slot + 1 == r->num_pages ? 0 : r->wr_slot + 1;
}

/* cb_wait_front(cb, 1): reads acked once, polls received until a page is ready. */
static bool ring_wait_front(struct chain *ch, struct ring *r)
{
	uint16_t acked = (uint16_t)atomic_load_explicit(&r->acked, memory_order_relaxed);
	unsigned tries = 0;

	/* Acquire: the producer's page words are visible; pairs with the release in ring_push(). */
	while ((uint16_t)((uint16_t)atomic_load_explicit(&r->received, memory_order_acquire) - acked) < 1)
		if (!wait_backoff(ch, &tries))
			return false;
	return true;
}

/* cb_pop_front(cb, 1): acked += 1 (single consumer). Release: the page's reads first. */
static void ring_pop(struct ring *r)
{
	uint32_t v = atomic_load_explicit(&r->acked, memory_order_relaxed);
	atomic_store_explicit(&r->acked, v + 1, memory_order_release);
	r->rd_slot = r->rd_slot + 1 == r->num_pages ? 0 : r->rd_slot + 1;
}

static uint32_t *ring_page(struct ring *r, uint32_t slot)
{
	return r->fifo + (size_t)slot * r->page_words;
}

/* Stage 0 (cb_chain5.c chain_source, cb_pingpong.c produce). */
static void stage_source(struct chain *ch)
{
	struct ring *out = &ch->rings[0];

	for (uint32_t seq = 0; seq < ch->pages; seq++) {
		if (!ring_reserve(ch, out))
			return;
		page_fill(ring_page(out, out->wr_slot), ch->page_words, seq);
		ring_push(out);
	}
}

/* Stages 1 .. n-2 (cb_chain5.c chain_forward): check, forward transformed, free. */
static void stage_forward(struct chain *ch, unsigned stage)
{
	struct ring *in = &ch->rings[stage - 1], *out = &ch->rings[stage];

	for (uint32_t seq = 0; seq < ch->pages; seq++) {
		if (!ring_wait_front(ch, in))
			return;
		const uint32_t *src = ring_page(in, in->rd_slot);
		uint32_t bad = page_check(src, ch->page_words, seq, stage - 1);
		if (bad) {
			chain_fail(ch, "native stage %u: page %u word %u wrong", stage, seq, bad - 1);
			return;
		}
		if (!ring_reserve(ch, out))
			return;
		page_forward(ring_page(out, out->wr_slot), src, ch->page_words, seq, stage);
		ring_push(out);
		ring_pop(in);
	}
}

/* Last stage (cb_chain5.c chain_sink, cb_pingpong.c consume): check, free. */
static void stage_sink(struct chain *ch, unsigned stage)
{
	struct ring *in = &ch->rings[stage - 1];

	for (uint32_t seq = 0; seq < ch->pages; seq++) {
		if (!ring_wait_front(ch, in))
			return;
		uint32_t bad = page_check(ring_page(in, in->rd_slot), ch->page_words, seq, stage - 1);
		if (bad) {
			chain_fail(ch, "native stage %u: page %u word %u wrong", stage, seq, bad - 1);
			return;
		}
		ring_pop(in);
	}
}

static void *chain_stage(void *arg)
{
	struct stage_arg *a = arg;
	struct chain *ch = a->ch;

	atomic_fetch_add_explicit(&ch->ready, 1, memory_order_relaxed);
	/* Acquire: pairs with the release of go, after which the rings are set up. */
	while (!atomic_load_explicit(&ch->go, memory_order_acquire))
		sched_yield();
	if (a->stage == 0)
		stage_source(ch);
	else if (a->stage == ch->nstages - 1)
		stage_sink(ch, a->stage);
	else
		stage_forward(ch, a->stage);
	ch->end[a->stage] = benchlib_now();
	return NULL;
}

double native_cb_chain(unsigned nstages, const struct native_cb *cbs, uint32_t pages, char *err, size_t errlen)
{
	struct chain ch;
	struct ring rings[MAX_STAGES - 1];
	struct stage_arg args[MAX_STAGES];
	pthread_t threads[MAX_STAGES];
	unsigned started = 0;
	double result = -1;

	if (nstages < 2 || nstages > MAX_STAGES) {
		benchlib_set_err(err, errlen, "native chain: %u stages (2..%d)", nstages, MAX_STAGES);
		return -1;
	}
	memset(&ch, 0, sizeof ch);
	memset(rings, 0, sizeof rings);
	ch.nstages = nstages;
	ch.pages = pages;
	ch.page_words = cbs[0].page_size / 4;
	ch.rings = rings;
	for (unsigned i = 0; i + 1 < nstages; i++) {
		if (cbs[i].page_size != cbs[0].page_size || cbs[i].page_size < 16 || cbs[i].page_size % 16 ||
		    cbs[i].pages == 0 || cbs[i].pages > 0xFFFF) {
			benchlib_set_err(err, errlen, "native chain: CB%u of %u pages of %u bytes is unusable", i, cbs[i].pages,
				cbs[i].page_size);
			goto out;
		}
		rings[i].num_pages = cbs[i].pages;
		rings[i].page_words = ch.page_words;
		rings[i].fifo = aligned_alloc(64, ((size_t)cbs[i].pages * cbs[i].page_size + 63) & ~(size_t)63);
		if (rings[i].fifo == NULL) {
			benchlib_set_err(err, errlen, "native chain: out of memory");
			goto out;
		}
	}
	for (; started < nstages; started++) {
		args[started] = (struct stage_arg){ &ch, started };
		if (thread_start(&threads[started], chain_stage, &args[started]) != 0) {
			benchlib_set_err(err, errlen, "native chain: cannot start a thread");
			atomic_store_explicit(&ch.abort, 1, memory_order_relaxed);
			atomic_store_explicit(&ch.go, 1, memory_order_release);
			goto out;
		}
	}
	while (atomic_load_explicit(&ch.ready, memory_order_relaxed) < nstages)
		sched_yield();
	double t0 = benchlib_now();
	atomic_store_explicit(&ch.go, 1, memory_order_release);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	started = 0;
	if (atomic_load_explicit(&ch.failed, memory_order_acquire)) {
		benchlib_set_err(err, errlen, "%s", ch.err);
		goto out;
	}
	result = 0;
	for (unsigned i = 0; i < nstages; i++)
		if (ch.end[i] - t0 > result)
			result = ch.end[i] - t0;
out:
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (unsigned i = 0; i + 1 < nstages && i < MAX_STAGES - 1; i++)
		free(rings[i].fifo);
	return result;
}

/* ---- Wake-up round trips --------------------------------------------------------------------- */

struct wake_pair {
	_Alignas(64) _Atomic uint32_t flag;   /* host writes round numbers (seq_cst) */
	_Atomic uint32_t sleeping;            /* waiter: 1 from its last look at flag until futex returns */
	_Alignas(64) _Atomic uint32_t ack;    /* waiter answers the round it saw (release) */
};

/* sync_wake.c's wake_echo, blocking in the kernel where the core parks. */
static void *wake_waiter(void *arg)
{
	struct wake_pair *w = arg;
	uint32_t last = 0;

	for (;;) {
		uint32_t v = atomic_load_explicit(&w->flag, memory_order_acquire);
		if (v == last) {
			/* seq_cst store then load, against the host's seq_cst store of flag then load of
			 * sleeping: one of the two sees the other, so no wake-up is lost. */
			atomic_store_explicit(&w->sleeping, 1, memory_order_seq_cst);
			if (atomic_load_explicit(&w->flag, memory_order_seq_cst) == last)
				futex(&w->flag, FUTEX_WAIT_PRIVATE, last);
			atomic_store_explicit(&w->sleeping, 0, memory_order_relaxed);
			continue;
		}
		if (v == NATIVE_WAKE_EXIT)
			return NULL;
		atomic_store_explicit(&w->ack, v, memory_order_release);
		last = v;
	}
}

static void wake_write(struct wake_pair *w, uint32_t v)
{
	atomic_store_explicit(&w->flag, v, memory_order_seq_cst);
	if (atomic_load_explicit(&w->sleeping, memory_order_seq_cst))
		futex(&w->flag, FUTEX_WAKE_PRIVATE, 1);
}

int native_wake_rtt(unsigned rounds, unsigned warmup, double settle_s, double *rtt_s, char *err, size_t errlen)
{
	struct wake_pair *w = aligned_alloc(64, sizeof *w);
	pthread_t t;
	int rc = -1;

	if (w == NULL) {
		benchlib_set_err(err, errlen, "native wake: out of memory");
		return -1;
	}
	memset(w, 0, sizeof *w);
	if (thread_start(&t, wake_waiter, w) != 0) {
		benchlib_set_err(err, errlen, "native wake: cannot start a thread");
		free(w);
		return -1;
	}
	for (uint32_t r = 1; r <= warmup + rounds; r++) {
		double deadline = benchlib_now() + 1.0;
		while (!atomic_load_explicit(&w->sleeping, memory_order_acquire)) {
			if (benchlib_now() > deadline) {
				benchlib_set_err(err, errlen, "native wake: the waiter did not go to sleep in round %u", r);
				goto out;
			}
			benchlib_cpu_relax();
		}
		benchlib_spin_for(settle_s);
		double t0 = benchlib_now();
		wake_write(w, r);
		/* Acquire: pairs with the waiter's release of ack. */
		while (atomic_load_explicit(&w->ack, memory_order_acquire) != r) {
			if (benchlib_now() > t0 + 1.0) {
				benchlib_set_err(err, errlen, "native wake: no answer to round %u within 1 s", r);
				goto out;
			}
			benchlib_cpu_relax();
		}
		double t1 = benchlib_now();
		if (r > warmup)
			rtt_s[r - warmup - 1] = t1 - t0;
	}
	rc = 0;
out:
	wake_write(w, NATIVE_WAKE_EXIT);
	pthread_join(t, NULL);
	free(w);
	return rc;
}

/* ---- Idle: many threads blocked on a few flags ----------------------------------------------- */

struct idle_group {
	_Alignas(64) _Atomic uint32_t flag;   /* 0 while idle, NATIVE_WAKE_EXIT to leave (seq_cst) */
};

struct idle_arg {
	struct idle_group *g;
	_Atomic unsigned *asleep;             /* threads that reached their first futex wait */
	_Atomic unsigned *awake;              /* threads that saw the exit value (release) */
	_Atomic uint32_t *leave;              /* 1 once the main thread has counted them all */
};

static void *idle_waiter(void *arg)
{
	struct idle_arg *a = arg;
	bool counted = false;

	while (atomic_load_explicit(&a->g->flag, memory_order_acquire) != NATIVE_WAKE_EXIT) {
		if (!counted) {
			atomic_fetch_add_explicit(a->asleep, 1, memory_order_relaxed);
			counted = true;
		}
		futex(&a->g->flag, FUTEX_WAIT_PRIVATE, 0);
	}
	/* Counted here, and the thread stays until every one is counted: a bhemu core's exit is a
	 * state change and its thread stays, so thread teardown must not slow the wake-ups here. */
	atomic_fetch_add_explicit(a->awake, 1, memory_order_release);
	while (!atomic_load_explicit(a->leave, memory_order_acquire))
		futex(a->leave, FUTEX_WAIT_PRIVATE, 0);
	return NULL;
}

int native_idle_run(unsigned ngroups, unsigned per_group, double idle_s, struct native_idle *out, char *err,
		    size_t errlen)
{
	unsigned n = ngroups * per_group, started = 0;
	struct idle_group *groups = aligned_alloc(64, sizeof *groups * ngroups);
	struct idle_arg *args = calloc(n, sizeof *args);
	pthread_t *threads = calloc(n, sizeof *threads);
	_Atomic unsigned asleep = 0, awake = 0;
	_Atomic uint32_t leave = 0;
	int rc = -1;

	if (groups == NULL || args == NULL || threads == NULL) {
		benchlib_set_err(err, errlen, "native idle: out of memory");
		goto out;
	}
	for (unsigned g = 0; g < ngroups; g++)
		atomic_init(&groups[g].flag, 0);
	double t_start = benchlib_now();
	for (; started < n; started++) {
		args[started] = (struct idle_arg){ &groups[started / per_group], &asleep, &awake, &leave };
		if (thread_start(&threads[started], idle_waiter, &args[started]) != 0) {
			benchlib_set_err(err, errlen, "native idle: cannot start thread %u of %u", started + 1, n);
			goto out;
		}
	}
	while (atomic_load_explicit(&asleep, memory_order_relaxed) < n) {
		if (benchlib_now() > t_start + 30) {
			benchlib_set_err(err, errlen, "native idle: threads did not all go to sleep within 30 s");
			goto out;
		}
		usleep(1000);
	}
	out->settle_s = benchlib_now() - t_start;
	usleep(10000);   /* the last ones counted themselves just before their futex wait */

	double c0 = benchlib_process_cpu(), w0 = benchlib_now();
	struct timespec ts = { (time_t)idle_s, (long)((idle_s - (double)(time_t)idle_s) * 1e9) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	double c1 = benchlib_process_cpu(), w1 = benchlib_now();
	out->cpu_percent = (c1 - c0) / (w1 - w0) * 100;
	rc = 0;
out:;
	double t0 = benchlib_now();
	for (unsigned g = 0; groups != NULL && g < ngroups; g++) {
		atomic_store_explicit(&groups[g].flag, NATIVE_WAKE_EXIT, memory_order_seq_cst);
		futex(&groups[g].flag, FUTEX_WAKE_PRIVATE, INT_MAX);
	}
	while (rc == 0 && atomic_load_explicit(&awake, memory_order_acquire) < n)
		sched_yield();
	if (rc == 0)
		out->wake_all_s = benchlib_now() - t0;
	atomic_store_explicit(&leave, 1, memory_order_release);
	futex(&leave, FUTEX_WAKE_PRIVATE, INT_MAX);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	free(args);
	free(groups);
	return rc;
}
