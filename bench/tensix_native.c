/* Native references of bench_tensix (see tensix_native.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "benchlib.h"
#include "tensix_native.h"

#define MAX_THREADS 8
#define FIFO_SLOTS 32             /* the Tensix instruction FIFO's depth (cores/tensix.h) */
#define SPIN_PAUSES 128           /* then yield: with more threads than CPUs a spin steals the partner's slice */
#define GPRS 64
#define OP_ADDDMAREG 0x58u
#define ADDDMAREG_COUNT(gpr) (OP_ADDDMAREG << 24 | 1u << 23 | (uint32_t)(gpr) << 12 | 1u << 6 | (gpr))
#define GPR_COUNT 10u

/* Decodes and executes one word as a Tensix thread's scalar unit would; false if it is not an
 * ADDDMAREG (the only instruction the references push). Not inlined: every word is decoded, as
 * an executor of words must (the compiler would hoist the decode out of native_insn_loop). */
__attribute__((noinline)) static bool execute(uint32_t *gpr, uint32_t w)
{
	if (w >> 24 != OP_ADDDMAREG)
		return false;
	uint32_t a = w & 63, b = w >> 6 & 63, res = w >> 12 & 63;
	gpr[res] = gpr[a] + (w >> 23 & 1 ? b : gpr[b]);
	return true;
}

/* What every reference shares: the start signal, the finish times, the first error. */
struct run {
	_Atomic unsigned ready;
	_Atomic uint32_t go;
	_Atomic uint32_t failed;
	double end[MAX_THREADS];
	char err[128];
};

static void run_wait_go(struct run *r)
{
	atomic_fetch_add_explicit(&r->ready, 1, memory_order_relaxed);
	while (!atomic_load_explicit(&r->go, memory_order_acquire))   /* pairs with the release in run_threads */
		sched_yield();
}

static void run_fail(struct run *r, const char *what)
{
	if (atomic_exchange_explicit(&r->failed, 1, memory_order_acq_rel) == 0)
		snprintf(r->err, sizeof r->err, "%s", what);
}

/* Starts n threads fn(args + i * size), releases them at once and joins them: seconds from the
 * release to the last end[] (each thread stores its own), or < 0 with err. */
static double run_threads(struct run *r, unsigned n, void *(*fn)(void *), void *args, size_t size, char *err,
			  size_t errlen)
{
	pthread_t t[MAX_THREADS];
	unsigned started = 0;

	for (; started < n; started++)
		if (pthread_create(&t[started], NULL, fn, (char *)args + started * size) != 0)
			break;
	if (started < n)
		run_fail(r, "cannot start a thread");
	while (atomic_load_explicit(&r->ready, memory_order_relaxed) < started)
		sched_yield();
	double t0 = benchlib_now(), last = 0;
	atomic_store_explicit(&r->go, 1, memory_order_release);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	if (atomic_load_explicit(&r->failed, memory_order_acquire)) {
		benchlib_set_err(err, errlen, "%s", r->err);
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		last = r->end[i] - t0 > last ? r->end[i] - t0 : last;
	return last;
}

/* ---- Pushed one by one: a ring per pair ------------------------------------------------------ */

struct ring {
	_Alignas(64) _Atomic uint32_t head;   /* consumer: words taken (release) */
	_Alignas(64) _Atomic uint32_t tail;   /* producer: words stored (release) */
	_Alignas(64) uint32_t slot[FIFO_SLOTS];
};

struct ring_arg {
	struct run *run;
	struct ring *ring;
	uint32_t count;
	unsigned index;           /* end[] slot: the pair's consumer */
	bool producer;
};

static void backoff(unsigned *tries)
{
	if (++*tries <= SPIN_PAUSES)
		benchlib_cpu_relax();
	else
		sched_yield();
}

static void *ring_thread(void *p)
{
	struct ring_arg *a = p;
	struct ring *q = a->ring;
	uint32_t gpr[GPRS] = { 0 };

	run_wait_go(a->run);
	for (uint32_t i = 0; i < a->count; i++) {
		unsigned tries = 0;
		if (a->producer) {
			/* Acquire: the consumer has read the slot it frees; pairs with its release of head. */
			while (i - atomic_load_explicit(&q->head, memory_order_acquire) >= FIFO_SLOTS)
				backoff(&tries);
			q->slot[i % FIFO_SLOTS] = ADDDMAREG_COUNT(GPR_COUNT);
			atomic_store_explicit(&q->tail, i + 1, memory_order_release);
		} else {
			/* Acquire: the word is stored; pairs with the producer's release of tail. */
			while (atomic_load_explicit(&q->tail, memory_order_acquire) == i)
				backoff(&tries);
			bool ok = execute(gpr, q->slot[i % FIFO_SLOTS]);
			atomic_store_explicit(&q->head, i + 1, memory_order_release);
			if (!ok) {
				run_fail(a->run, "native ring: a word is not an ADDDMAREG");
				break;
			}
		}
	}
	if (!a->producer) {
		if (gpr[GPR_COUNT] != a->count)
			run_fail(a->run, "native ring: the GPR missed instructions");
		a->run->end[a->index] = benchlib_now();
	}
	return NULL;
}

double native_insn_ring(unsigned nthreads, uint32_t count, char *err, size_t errlen)
{
	static struct ring rings[MAX_THREADS / 2];
	struct ring_arg args[MAX_THREADS];
	struct run r;

	if (nthreads < 1 || nthreads > MAX_THREADS / 2) {
		benchlib_set_err(err, errlen, "native ring: %u pairs (1..%d)", nthreads, MAX_THREADS / 2);
		return -1;
	}
	memset(&r, 0, sizeof r);
	memset(rings, 0, sizeof rings);
	for (unsigned i = 0; i < 2 * nthreads; i++)
		args[i] = (struct ring_arg){ &r, &rings[i / 2], count, i / 2, i % 2 == 0 };
	return run_threads(&r, 2 * nthreads, ring_thread, args, sizeof args[0], err, errlen);
}

/* ---- Expanded from a loop --------------------------------------------------------------------- */

struct loop_arg {
	struct run *run;
	uint32_t count, outer, inner;
	unsigned index;
};

/* The MopCfg the expander reads once per expansion: through a volatile, so that the compiler
 * cannot fold the loop into one addition. */
static volatile uint32_t loop_op = ADDDMAREG_COUNT(GPR_COUNT);

static void *loop_thread(void *p)
{
	struct loop_arg *a = p;
	uint32_t gpr[GPRS] = { 0 }, per = a->outer * a->inner;

	run_wait_go(a->run);
	for (uint32_t m = 0; m < a->count / per; m++) {
		uint32_t w = loop_op;
		for (uint32_t o = 0; o < a->outer; o++)
			for (uint32_t k = 0; k < a->inner; k++)
				if (!execute(gpr, w))
					run_fail(a->run, "native loop: a word is not an ADDDMAREG");
	}
	if (gpr[GPR_COUNT] != a->count / per * per)
		run_fail(a->run, "native loop: the GPR missed instructions");
	a->run->end[a->index] = benchlib_now();
	return NULL;
}

double native_insn_loop(unsigned nthreads, uint32_t count, uint32_t outer, uint32_t inner, char *err, size_t errlen)
{
	struct loop_arg args[MAX_THREADS];
	struct run r;

	if (nthreads < 1 || nthreads > MAX_THREADS || outer * inner == 0) {
		benchlib_set_err(err, errlen, "native loop: %u threads (1..%d), %u x %u per expansion", nthreads,
			MAX_THREADS, outer, inner);
		return -1;
	}
	memset(&r, 0, sizeof r);
	for (unsigned i = 0; i < nthreads; i++)
		args[i] = (struct loop_arg){ &r, count, outer, inner, i };
	return run_threads(&r, nthreads, loop_thread, args, sizeof args[0], err, errlen);
}

/* ---- Semaphore ping-pong ---------------------------------------------------------------------- */

struct pingpong {
	sem_t sem[2];             /* thread i waits on sem[i] and posts sem[1 - i] */
	uint32_t rounds;
	struct run run;
};

struct pingpong_arg {
	struct pingpong *pp;
	unsigned index;
};

static void *pingpong_thread(void *p)
{
	struct pingpong_arg *a = p;
	struct pingpong *pp = a->pp;

	run_wait_go(&pp->run);
	for (uint32_t i = 0; i < pp->rounds; i++) {
		while (sem_wait(&pp->sem[a->index]) != 0)
			;   /* EINTR */
		sem_post(&pp->sem[1 - a->index]);
	}
	pp->run.end[a->index] = benchlib_now();
	return NULL;
}

double native_sem_pingpong(uint32_t rounds, char *err, size_t errlen)
{
	static struct pingpong pp;
	struct pingpong_arg args[2] = { { &pp, 0 }, { &pp, 1 } };

	memset(&pp, 0, sizeof pp);
	pp.rounds = rounds;
	if (sem_init(&pp.sem[0], 0, 1) != 0 || sem_init(&pp.sem[1], 0, 0) != 0) {
		benchlib_set_err(err, errlen, "native ping-pong: sem_init failed");
		return -1;
	}
	double s = run_threads(&pp.run, 2, pingpong_thread, args, sizeof args[0], err, errlen);
	sem_destroy(&pp.sem[0]);
	sem_destroy(&pp.sem[1]);
	return s;
}
