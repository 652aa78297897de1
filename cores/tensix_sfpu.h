/* The Tensix vector unit (SFPU, tt-isa-documentation VectorUnit.md, LReg.md): its state, kept by
 * cores/tensix_sfpu.c and read by the tests. */
#ifndef BH_CORES_TENSIX_SFPU_H
#define BH_CORES_TENSIX_SFPU_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/lock.h"

#define TT_SFPU_LANES 32
#define TT_SFPU_LREGS 17        /* 0-7 general, 8-10 fixed constants, 11-14 programmable, 15 lane ids, 16 macro scratch */
#define TT_SFPU_STACK 8         /* FlagStack depth */

struct tt_sfpu {
	struct bh_lock lock;    /* one instruction at a time, whichever thread issued it (an inline
				 * compare-and-swap each way: the unit takes it per instruction) */
	uint32_t lreg[TT_SFPU_LREGS][TT_SFPU_LANES];
	/* Per-lane predication as bit masks (bit = lane): LaneFlags, UseLaneFlagsForLaneEnable and
	 * the FlagStack (every lane pushes and pops together, so one depth serves all). */
	uint32_t flags, use_flags;
	uint32_t stack_flags[TT_SFPU_STACK], stack_use[TT_SFPU_STACK];
	unsigned depth;
	/* LoadMacroConfig (SFPLOADMACRO.md), per lane as SFPCONFIG writes it. */
	uint32_t lm_template[4][TT_SFPU_LANES], lm_sequence[4][TT_SFPU_LANES], lm_misc[TT_SFPU_LANES];
	/* LaneConfig (SFPCONFIG.md, 18 bits a lane), with what instructions test kept beside it:
	 * lc_any the OR of every lane's (zero: the plain paths), row_off the lanes its ROW_MASK
	 * disables (bit = lane). */
	uint32_t lane_config[TT_SFPU_LANES], lc_any, row_off;
	/* The Dst/Src columns (bit = column) BLOCK_DEST_MOV of LaneConfig[column / 2] keeps the MOV
	 * instructions from writing: written under lock, read by the matrix unit without it. */
	_Atomic uint32_t mov_blocked;
	/* The per-lane PRNG (VectorUnit.md "PRNG"): zero out of reset, reseeded by writes of
	 * PRNG_SEED_Seed_Val. */
	uint32_t prng[TT_SFPU_LANES];
	/* Instructions SFPLOADMACRO scheduled, each due at an SFPU cycle: bhemu counts a cycle per
	 * instruction the unit receives. pending is read without the lock to skip an empty drain. */
	struct tt_sfpu_sched {
		uint64_t due;
		uint32_t word;
		uint16_t addr;            /* a store's Dst address: the SFPLOADMACRO's */
		uint8_t unit, src, to16, valid;   /* to16: the result (a store's input) is LReg 16 */
	} sched[16];
	uint8_t to16;                     /* the scheduled instruction running has to16 */
	uint64_t cycle;
	_Atomic unsigned pending;
};

struct tt_dp;
bool tt_sfpu_init(struct tt_dp *dp);
void tt_sfpu_destroy(struct tt_dp *dp);
struct bh_tt_thread;
/* Another data-plane unit is about to act: what SFPLOADMACRO scheduled completes first. */
void tt_sfpu_drain(struct bh_tt_thread *th);
/* A write of PRNG_SEED_Seed_Val (BackendConfiguration.md): every lane's PRNG reseeded from seed. */
void tt_sfpu_seed(struct tt_dp *dp, uint32_t seed);

/* The MAD unit's a * b + c, bit for bit (SFPMAD.md; see cores/tensix_sfpu.c): the lane-by-lane
 * model, and what the instructions use, every lane's (a[l] ^ na) * b[l] + (c[l] ^ nc) with the
 * host's floating point where it gives the same bits. Exposed for the tests that compare them. */
uint32_t tt_sfpu_mad_ref(uint32_t a, uint32_t b, uint32_t c);
void tt_sfpu_mad_lanes(const uint32_t *a, uint32_t na, const uint32_t *b, const uint32_t *c, uint32_t nc,
		       uint32_t r[TT_SFPU_LANES]);
/* tt_sfpu_mad_lanes's path: the host path and the model's integer steps on eight lanes at once
 * compiled for AVX2 (when the host has it), or the baseline ISA's host path and the model lane by
 * lane (tests choose). */
enum { TT_MAD_AUTO, TT_MAD_AVX2, TT_MAD_SCALAR };
extern _Atomic int tt_mad_path;

#endif
