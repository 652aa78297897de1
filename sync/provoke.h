/* Provocation (races.md, "Provoke"): opt-in, seeded perturbations of timing that make latent
 * synchronisation bugs show. One seed drives every random choice of a run: each actor (a RISC-V
 * core, a Tensix thread, a fast-dispatch model, later the NoC engine) draws from its own
 * xoshiro256** stream, seeded by splitmix64 from (seed, actor id) and touched only by that
 * actor's thread: no shared generator, no lock, no C library rand. What an actor draws depends
 * only on the seed and on the sync points it passes, so a failing run's perturbation plan is
 * replayed by its seed (the host's interleaving is not, being real threads).
 *
 * Every perturbation is a delay of the perturbed actor on its own thread, before it acts, with
 * no lock held: a nanosleep of bounded length (never a busy wait). A delayed core is running,
 * not parked, for the deadlock monitor. Each kind is faithful because the hardware gives no
 * bound on it: a core can be late at any access (interrupts are off, but cores run at different
 * clocks relative to each other's progress, NoC back-pressure stalls a store, an instruction
 * cache miss stalls the fetch), released cores start whenever their reset deasserts and their
 * first fetch completes, and the host starts and feeds the CQ cores at its own pace. */
#ifndef BH_SYNC_PROVOKE_H
#define BH_SYNC_PROVOKE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bhemu/bhemu.h"

/* ---- Random streams ---------------------------------------------------------------------------- */

struct bh_rng {
	uint64_t s[4];   /* xoshiro256** state; never all zero */
};

/* The stream of `actor` under `seed`: splitmix64 of the two, so neighbouring ids and seeds give
 * unrelated streams. */
void bh_rng_seed(struct bh_rng *r, uint64_t seed, uint64_t actor);
uint64_t bh_rng_next(struct bh_rng *r);
/* Uniform in [0, n) (n > 0), without modulo bias worth speaking of (64-bit multiply-high). */
static inline uint64_t bh_rng_below(struct bh_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)bh_rng_next(r) * n) >> 64);
}

/* ---- Actors ------------------------------------------------------------------------------------ */

/* Per tile: the five cores by enum bh_core_kind, then the three Tensix threads. After all tiles,
 * the chip's own actors: the fast-dispatch models by role, then room for the NoC engine. */
#define BH_PROVOKE_TILE_ACTORS 8u
#define BH_PROVOKE_TENSIX_ACTOR 5u
#define BH_PROVOKE_CHIP_ACTORS 8u
#define BH_PROVOKE_CQ_ACTOR 0u      /* + enum bh_cq_role */
#define BH_PROVOKE_NOC_ACTOR 2u     /* + NoC (reserved for the asynchronous NoC) */

static inline unsigned bh_provoke_tile_actor(unsigned tile, unsigned k)
{
	return tile * BH_PROVOKE_TILE_ACTORS + k;
}

static inline unsigned bh_provoke_chip_actor(unsigned ntiles, unsigned k)
{
	return ntiles * BH_PROVOKE_TILE_ACTORS + k;
}

static inline unsigned bh_provoke_actors(unsigned ntiles)
{
	return ntiles * BH_PROVOKE_TILE_ACTORS + BH_PROVOKE_CHIP_ACTORS;
}

/* ---- Strengths (the hardware bounds none of these; they are long enough to reorder host
 * threads, short enough that a run with every sync point perturbed stays quick) ------------------ */
#define BH_PROVOKE_DELAY_MAX_NS      200000ull    /* sync-point delay: 1 us .. 200 us */
#define BH_PROVOKE_COALESCE_MAX_NS   300000ull    /* counter read: 20 us .. 300 us */
#define BH_PROVOKE_COALESCE_MIN_NS   20000ull
#define BH_PROVOKE_SKEW_MAX_NS       500000ull    /* start skew: 0 .. 500 us */
#define BH_PROVOKE_CQ_START_MAX_NS   20000000ull  /* CQ start-up: 0 .. 20 ms */
#define BH_PROVOKE_FETCH_MAX_NS      1000000ull   /* prefetcher, per fetch: 0 .. 1 ms */

/* What a region of the address decode is for provocation (struct bh_region.sync). */
enum bh_sync_point {
	BH_SYNC_NONE = 0,
	BH_SYNC_REG,       /* synchronisation registers: tile control, NIU, PCBufs, mailboxes */
	BH_SYNC_COUNTER,   /* counters others move and pollers compare: stream registers, semaphores */
};

/* Statistics, by index (bh_provoke_stats in bhemu.h lists them in this order). */
enum bh_provoke_stat {
	BH_PSTAT_SYNC_POINTS,   /* core accesses that reached a sync point with delay or coalesce on */
	BH_PSTAT_DELAYS,
	BH_PSTAT_DELAY_NS,
	BH_PSTAT_COALESCED,     /* counter reads delayed */
	BH_PSTAT_SKEWS,         /* core starts skewed */
	BH_PSTAT_SKEW_NS,
	BH_PSTAT_CQ_DELAYS,     /* CQ start-up and prefetch delays */
	BH_PSTAT_CQ_DELAY_NS,
	BH_PSTAT_REORDERED,     /* stream-register stores held in a core's store queue */
	BH_PSTAT_STALE_KEPT,    /* (core, page) writes a core's decoded code outlived (STALE_ICACHE) */
	BH_PSTAT_L0_STALE,      /* loads answered from an L0 line older than L1 (L0_CACHE) */
	BH_PSTAT_COUNT,
};

/* One actor's stream, alone on its cache line (actors run on different host threads). */
struct bh_provoke_stream {
	_Alignas(64) struct bh_rng rng;
};

/* A chip's provocation: configuration set before any actor runs, then read-only; streams owned
 * each by its actor's thread; statistics relaxed. */
struct bh_provoke {
	bool mmio;            /* DELAY or COALESCE on: sync points call bh_provoke_sync_point */
	uint32_t mask;        /* BH_PROVOKE_* (bhemu.h), without BH_PROVOKE_NONE */
	uint64_t chance;      /* rate in units of 2^-32 (2^32: every time) */
	uint64_t seed;
	unsigned nactors;
	struct bh_provoke_stream *stream;
	_Atomic uint64_t stats[BH_PSTAT_COUNT];
};

/* Set up for nactors actors (0 and NULL streams when the mask is empty). Returns 0, or -1 when
 * out of memory. rate in [0, 1]. */
int bh_provoke_init(struct bh_provoke *p, uint32_t mask, double rate, uint64_t seed, unsigned nactors);
void bh_provoke_destroy(struct bh_provoke *p);

static inline bool bh_provoke_on(const struct bh_provoke *p, uint32_t kind)
{
	return __builtin_expect((p->mask & kind) != 0, 0);
}

/* REORDER: true when the actor's store at this point is held in its store queue (counted). */
bool bh_provoke_reorder(struct bh_provoke *p, unsigned actor);

/* Sleep ns on the calling thread (nanosleep, restarted after signals). */
void bh_provoke_sleep(uint64_t ns);

/* An actor's instruction reaches a sync point (its own thread, no lock held, before the device
 * acts): a core's access to a register of a sync-point region, a Tensix thread's semaphore
 * instruction or STOREREG/LOADREG. with the configured chance it sleeps 1..200 us (DELAY), and a
 * read of a counter window sleeps 20..300 us more with the same chance (COALESCE; see provoke.c
 * for why that is how two increments become one visible step). */
__attribute__((cold, noinline))
void bh_provoke_sync_point(struct bh_provoke *p, unsigned actor, unsigned sync, bool store);
/* Start skew of a released core (SKEW), on the core's own thread before its first instruction. */
void bh_provoke_skew(struct bh_provoke *p, unsigned actor);
/* A random delay of the fast-dispatch actor for `kind` (CQ_SLOW at start-up, PREFETCH_SLOW
 * before each fetch), up to max_ns; 0 when that kind is off. The caller sleeps it its own way
 * (stop-aware). */
uint64_t bh_provoke_cq_delay(struct bh_provoke *p, unsigned actor, uint32_t kind, uint64_t max_ns);

/* Parsing and naming the mask: bh_provoke_parse and bh_provoke_format (bhemu.h). */

#endif
