/* Native references of bench_tensix: host threads doing what a Tensix thread and its TRISC do in
 * bench/guest/tensix_bench.c, as fast as the host allows. bhemu is measured against these in the
 * same run. Each returns the seconds from the start signal until the last thread finished, or a
 * negative value with err set. */
#ifndef BENCH_TENSIX_NATIVE_H
#define BENCH_TENSIX_NATIVE_H

#include <stddef.h>
#include <stdint.h>

/* nthreads pairs of threads: a producer stores `count` ADDDMAREG words (GPR += 1) one by one into
 * a ring of the Tensix FIFO's depth, a consumer decodes and executes each on its own 64 GPRs and
 * checks the count at the end. Waits spin with a pause, then yield. */
double native_insn_ring(unsigned nthreads, uint32_t count, char *err, size_t errlen);

/* nthreads threads, each expanding `count` ADDDMAREG words from a MOP-like double loop (the
 * configuration read once per `outer x inner` words) and decoding and executing every one. */
double native_insn_loop(unsigned nthreads, uint32_t count, uint32_t outer, uint32_t inner, char *err, size_t errlen);

/* Two threads hand a token back and forth `rounds` times through two POSIX semaphores (futex
 * based: a waiter sleeps in the kernel): 2 x rounds hand-offs. */
double native_sem_pingpong(uint32_t rounds, char *err, size_t errlen);

#endif
