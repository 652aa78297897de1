/* Shared helpers of the benchmark guest programs (bench_*.c). Each program runs a fixed
 * amount of work, prints a checksum on stdout and exits 0; bhemu and qemu-riscv32 must
 * print the same. */
#ifndef BHEMU_BENCH_H
#define BHEMU_BENCH_H

#include "bare.h"

/* xorshift32: deterministic input data without a libc. state must not be 0. */
static inline uint32_t bench_rand(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

#endif
