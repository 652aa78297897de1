/* The parameter block of noc_bench.c, shared with its host, bench/bench_noc.c. Plain C with
 * fixed-width types only: the guest (RV32) and the host (x86-64, aarch64) must agree on the
 * layout, which is all 32-bit words.
 *
 * The host finds the block by its symbol (NOC_BENCH_PARAMS_SYMBOL), writes the parameters before
 * it starts BRISC, and reads the results once BRISC has exited. The block is in .data, not .bss:
 * BRISC zeroes .bss when it starts, which would lose the host's parameters. */
#ifndef BHEMU_NOC_BENCH_H
#define BHEMU_NOC_BENCH_H

#include <stdint.h>

#define NOC_BENCH_PARAMS_SYMBOL "noc_bench_params"

/* What BRISC measures. */
enum noc_bench_mode {
	NOC_BENCH_WRITE = 1,       /* L1 -> remote L1, non-posted writes, write barrier per batch */
	NOC_BENCH_DRAM_READ = 2,   /* DRAM -> local L1 reads, read barrier per batch */
	NOC_BENCH_ATOMIC = 3,      /* noc_semaphore_inc on a remote word + atomic barrier, one at a time */
	NOC_BENCH_COMPUTE = 4,     /* arithmetic and L1 loads/stores only; no NoC */
};

/* Exit statuses besides 0. */
enum noc_bench_status {
	NOC_BENCH_ERR_MODE = 30,     /* mode is none of the above */
	NOC_BENCH_ERR_PARAMS = 31,   /* block size, batch or addresses out of range */
};

/* L1 areas the host and the guest agree on (the program image stays below 0x100000). */
#define NOC_BENCH_SRC_L1	0x100000u	/* write source: batch * block bytes on tile A */
#define NOC_BENCH_DST_L1	0x140000u	/* write destination (tile B), read destination (tile A) */
#define NOC_BENCH_AREA_SIZE	0x40000u	/* each area: at most 256 KiB */
#define NOC_BENCH_SEM_L1	0x17F000u	/* the atomic's word on tile B (16-byte aligned) */

struct noc_bench_params {
	/* Set by the host. */
	uint32_t mode;          /* enum noc_bench_mode */
	uint32_t iterations;    /* timed batches (write, read), atomics, or compute rounds (0: steady
				 * state, timed by `phase` below) */
	uint32_t batch;         /* requests per batch, each to the next block of the areas */
	uint32_t block;         /* bytes per request (at most 16384: one NoC packet) */
	uint32_t peer_xy;       /* (y << 6) | x: tile B (write, atomic) or the DRAM port (read) */
	uint32_t src;           /* write: local L1 source; read: DRAM offset */
	uint32_t dst;           /* write, atomic: tile B's L1; read: local L1 */
	/* Steady-state compute (iterations 0): the host writes it while BRISC runs; BRISC reads it
	 * (after a fence) after every round. */
	uint32_t phase;         /* enum noc_bench_phase */
	/* Set by BRISC before it exits 0. One untimed warm-up batch (or atomic) precedes the timed
	 * loop; the counters cover the timed loop only (steady state: from the first round that saw
	 * NOC_BENCH_PHASE_TIMED to the first that saw NOC_BENCH_PHASE_STOP). */
	uint32_t ticks_lo, ticks_hi;       /* wall clock (rdcycle: 1.35 GHz, from host time) */
	uint32_t instret_lo, instret_hi;   /* instructions retired (rdinstret) */
	uint32_t result;        /* compute: digest; atomic: old value returned by the last atomic */
	uint32_t rounds;        /* compute: rounds done in all (the digest is of these) */
	uint32_t running;       /* steady-state compute: 1 once the first round is done */
	uint32_t done;          /* NOC_BENCH_DONE once the results are written */
};

#define NOC_BENCH_DONE 0x600DD0E5u

/* The phases of a steady-state compute run, in order. */
enum noc_bench_phase {
	NOC_BENCH_PHASE_WARM = 0,    /* computing, not timed (until every core runs) */
	NOC_BENCH_PHASE_TIMED = 1,   /* computing, timed */
	NOC_BENCH_PHASE_STOP = 2,    /* stop at the end of the round and write the results */
};

/* The compute loop, one source for the guest (table in L1) and the host (the digest every tile
 * must report, and the native threads bench_noc compares the scaling with): xorshift32 steps a
 * 256-word table, a load, a multiply and a store per step, and a branch the data decides.
 * About 20 RV32 instructions per step, 64 steps per round. */
#define NOC_BENCH_TABLE_WORDS 256

struct noc_bench_state {
	uint32_t x, acc;
};

static inline struct noc_bench_state noc_bench_compute_init(uint32_t *table)
{
	struct noc_bench_state s = { 0x12345678u, 0 };

	for (uint32_t i = 0; i < NOC_BENCH_TABLE_WORDS; i++)
		table[i] = i * 0x9E3779B1u;
	return s;
}

static inline void noc_bench_compute_round(uint32_t *table, struct noc_bench_state *s)
{
	uint32_t x = s->x, acc = s->acc;

	for (uint32_t i = 0; i < 64; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		uint32_t j = x & (NOC_BENCH_TABLE_WORDS - 1), t = table[j];
		acc += t ^ (x >> 8);
		table[j] = t * 33u + acc;
		if (acc & 1)
			acc = acc >> 1 | acc << 31;
	}
	s->x = x;
	s->acc = acc;
}

/* `rounds` rounds from the start: the digest. */
static inline uint32_t noc_bench_compute(uint32_t *table, uint32_t rounds)
{
	struct noc_bench_state s = noc_bench_compute_init(table);

	for (uint32_t r = 0; r < rounds; r++)
		noc_bench_compute_round(table, &s);
	return s.acc;
}

#endif
