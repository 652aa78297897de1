/* Native references of bench_noc: what the host does, in the same run, in place of each guest
 * measurement. Each says in its comment how it matches the guest (bench/guest/noc_bench.c). */
#ifndef BENCH_NOC_NATIVE_H
#define BENCH_NOC_NATIVE_H

#include <stddef.h>
#include <stdint.h>

/* memcpy of `iterations` batches of `batch` blocks of `block` bytes, block i of one area to block
 * i of a separate area, after one untimed batch (first touch), as the guest's NoC loops do.
 * Bytes/s, or a negative value with err set (out of memory, destination wrong). */
double native_memcpy(uint32_t iterations, uint32_t batch, uint32_t block, char *err, size_t errlen);

/* One thread: n round trips of __atomic_fetch_add (seq_cst) on one word, every old value used.
 * Ops/s, or a negative value with err set. */
double native_fetch_add(uint32_t n, char *err, size_t errlen);

/* noc_bench_compute() on nthreads host threads at once, `rounds` each, released together: the
 * seconds from the release until the last one finished (every digest checked), or a negative
 * value with err set. cpu_s gets the process CPU time over the same span. */
double native_compute_threads(unsigned nthreads, uint32_t rounds, double *cpu_s, char *err, size_t errlen);

#endif
