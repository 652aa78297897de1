/* Native references of bench_noc (noc_native.h). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/noc_bench.h"
#include "noc_native.h"
#include "benchlib.h"

double native_memcpy(uint32_t iterations, uint32_t batch, uint32_t block, char *err, size_t errlen)
{
	const size_t area = (size_t)batch * block;
	uint8_t *src = aligned_alloc(4096, area), *dst = aligned_alloc(4096, area);
	double rate = -1, t0 = 0;

	if (src == NULL || dst == NULL) {
		benchlib_set_err(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < area; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 12));
	memset(dst, 0, area);
	for (uint32_t i = 0; i <= iterations; i++) {
		if (i == 1)
			t0 = benchlib_now();
		for (uint32_t b = 0; b < batch; b++)
			memcpy(dst + (size_t)b * block, src + (size_t)b * block, block);
		/* The copies are observable, as the guest's are at its barrier: the optimiser may
		 * neither drop nor merge them. */
		__asm__ volatile("" : : "r"(dst), "r"(src) : "memory");
	}
	double s = benchlib_now() - t0;
	if (memcmp(dst, src, area) != 0) {
		benchlib_set_err(err, errlen, "memcpy reference: destination differs from source");
		goto out;
	}
	rate = (double)iterations * (double)area / s;
out:
	free(src);
	free(dst);
	return rate;
}

double native_fetch_add(uint32_t n, char *err, size_t errlen)
{
	static uint32_t word;
	uint64_t sum = 0, expect = (uint64_t)n * (n - 1) / 2;

	__atomic_store_n(&word, 0, __ATOMIC_SEQ_CST);
	double t0 = benchlib_now();
	for (uint32_t i = 0; i < n; i++)
		sum += __atomic_fetch_add(&word, 1, __ATOMIC_SEQ_CST);
	double s = benchlib_now() - t0;
	uint32_t w = __atomic_load_n(&word, __ATOMIC_SEQ_CST);
	if (w != n || sum != expect) {
		benchlib_set_err(err, errlen, "fetch_add reference: word %u, sum %" PRIu64 " (expected %u, %" PRIu64 ")", w, sum,
			n, expect);
		return -1;
	}
	return n / s;
}

struct compute_shared {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;                   /* under lock: 0 wait, 1 run, -1 leave without running */
	uint32_t rounds, expect;
	bool failed;              /* set by any worker (relaxed); read after pthread_join */
};

static void *compute_worker(void *arg)
{
	struct compute_shared *sh = arg;
	uint32_t table[NOC_BENCH_TABLE_WORDS];
	int go;

	pthread_mutex_lock(&sh->lock);
	while ((go = sh->go) == 0)
		pthread_cond_wait(&sh->cond, &sh->lock);
	pthread_mutex_unlock(&sh->lock);
	if (go > 0 && noc_bench_compute(table, sh->rounds) != sh->expect)
		__atomic_store_n(&sh->failed, true, __ATOMIC_RELAXED);
	return NULL;
}

static void compute_release(struct compute_shared *sh, int go)
{
	pthread_mutex_lock(&sh->lock);
	sh->go = go;
	pthread_cond_broadcast(&sh->cond);
	pthread_mutex_unlock(&sh->lock);
}

double native_compute_threads(unsigned nthreads, uint32_t rounds, double *cpu_s, char *err, size_t errlen)
{
	uint32_t table[NOC_BENCH_TABLE_WORDS];
	struct compute_shared sh = {
		.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
		.rounds = rounds, .expect = noc_bench_compute(table, rounds),
	};
	pthread_t *threads = calloc(nthreads, sizeof *threads);
	unsigned started = 0;
	double seconds = -1;

	if (threads == NULL) {
		benchlib_set_err(err, errlen, "out of memory");
		return -1;
	}
	for (; started < nthreads; started++)
		if (pthread_create(&threads[started], NULL, compute_worker, &sh) != 0)
			break;
	double c0 = benchlib_process_cpu(), t0 = benchlib_now();
	compute_release(&sh, started == nthreads ? 1 : -1);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	double t1 = benchlib_now();
	*cpu_s = benchlib_process_cpu() - c0;
	free(threads);
	if (started < nthreads)
		benchlib_set_err(err, errlen, "could start only %u of %u threads", started, nthreads);
	else if (__atomic_load_n(&sh.failed, __ATOMIC_RELAXED))
		benchlib_set_err(err, errlen, "a native compute thread got the wrong digest");
	else
		seconds = t1 - t0;
	return seconds;
}
