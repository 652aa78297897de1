/* The parameter block of tensix_bench.c, shared with its host, bench/bench_tensix.c. Plain C with
 * fixed-width types only: guest (RV32) and host agree on a layout of 32-bit words.
 *
 * The host finds the block by its symbol (TENSIX_BENCH_PARAMS_SYMBOL), writes the parameters
 * before it starts the cores and reads the results once they have all exited. The block is in
 * .data, not .bss: BRISC zeroes .bss when it starts, which would lose the host's parameters. */
#ifndef BHEMU_TENSIX_BENCH_H
#define BHEMU_TENSIX_BENCH_H

#include <stdint.h>

#define TENSIX_BENCH_PARAMS_SYMBOL "tensix_bench_params"

/* What the TRISCs do. */
enum tensix_bench_mode {
	/* Each selected TRISC pushes `count` ADDDMAREG (GPR += 1), one store each, then waits until
	 * its thread drained them (tensix_sync). */
	TENSIX_BENCH_PUSHED = 1,
	/* The same instructions, TENSIX_BENCH_MOP_INSNS per pushed MOP (template 1). */
	TENSIX_BENCH_MOP = 2,
	/* Threads 0 and 1 play ping-pong `count` times: each round a thread waits for its semaphore
	 * (SEMWAIT), takes it (SEMGET) and posts the other's (SEMPOST): two hand-offs per round.
	 * The three instructions are recorded once (REPLAY) and played by MOPs, so that pushes do not
	 * count. */
	TENSIX_BENCH_HANDOFF = 3,
};

/* Exit statuses besides 0. */
enum tensix_bench_status {
	TENSIX_BENCH_ERR_MODE = 40,     /* mode is none of the above */
	TENSIX_BENCH_ERR_PARAMS = 41,   /* count not a multiple of TENSIX_BENCH_MOP_INSNS (MOP, hand-off) */
	TENSIX_BENCH_ERR_RESULT = 42,   /* a GPR or a semaphore ended with the wrong value */
};

/* MopCfg of the MOP modes: template 1, OuterCount x InnerCount loop instructions per MOP. */
#define TENSIX_BENCH_MOP_OUTER 100u
#define TENSIX_BENCH_MOP_INNER 100u
#define TENSIX_BENCH_MOP_INSNS (TENSIX_BENCH_MOP_OUTER * TENSIX_BENCH_MOP_INNER)

struct tensix_bench_params {
	/* Set by the host. */
	uint32_t mode;          /* enum tensix_bench_mode */
	uint32_t threads;       /* PUSHED, MOP: bit i set = TRISC i works; HANDOFF uses threads 0 and 1 */
	uint32_t count;         /* instructions per thread (PUSHED, MOP), rounds (HANDOFF) */
	/* Set by each TRISC before it exits: the GPR its ADDDMAREGs counted in (PUSHED, MOP). */
	uint32_t gpr[3];
	/* HANDOFF: set by thread 0 once its SEMINITs executed; thread 1 waits for it before its
	 * first SEMWAIT (re-initialising a semaphore another thread waits on is races.md #13). The
	 * host writes 0. */
	uint32_t sems_ready;
};

#endif
