/* Watch tables: which words each parked core waits on, so that whoever writes them wakes it.
 *
 * L1 words: the tile's per-page byte (tile->code_pages) gets BH_PAGE_WATCHED while any core
 * watches a word in that 4 KiB page. The store hot path already loads that byte (decoded-code
 * bookkeeping), so a store with no waiter pays nothing more; a store into a watched page takes
 * the cold path and wakes the cores whose words it overlaps.
 * Registers (stream registers, semaphores, local RAM through the slow window, ...): devices call
 * bh_tile_mmio_written() after a change; it costs one relaxed load while nothing is watched.
 *
 * Order (no lost wake-ups): the core registers, issues bh_park_heavy_fence(), re-reads the words,
 * then sleeps on the wake_seq it read before registering. Writers store, then look at the page
 * byte / watch count: the heavy fence makes either the writer see the registration or the core
 * see the store.
 *
 * Registrations outlive the park (threaded scheduling): a waiter that parks again on words it
 * watched before, as every core does at every launch, keeps its entries (up to
 * BH_WATCH_ENTRIES per slot: the words of the few waits it alternates between, such as a BRISC's
 * go signal with each of the launch ring's slots, and its subordinates' sync word), and once a
 * membarrier has begun after they were stored every writer's later store is followed by a look
 * that sees them, so that park needs no fence of its own (bh_watch_arm). A kept entry only costs
 * its page's stores the cold path and may bump the waiter's wake_seq (a spurious return, which
 * every sleep allows). Serial scheduling drops them at each wake (bh_watch_release), as a store
 * into a watched page is one of its scheduling points. */
#ifndef BH_SYNC_WATCH_H
#define BH_SYNC_WATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabric/hw.h"

#define BH_WATCH_MAX 8        /* words of one wait */
#define BH_WATCH_ENTRIES 16   /* words a slot keeps watching across its waits */
#define BH_PAGE_WATCHED 0x20u   /* bit of tile->code_pages[page]; bits 0..4 are the cores' code bits */
/* Who can watch a tile's words: its five cores (slot = core kind), and the fast-dispatch models
 * of the roles that live on it (cores/cq_model.c). */
#define BH_WATCH_SLOTS (BH_CORES_PER_TILE + 2)
#define BH_WATCH_SLOT_CQ(role) (BH_CORES_PER_TILE + (role))

struct bh_tile;
struct bh_waiter;

struct bh_watch_set {
	pthread_mutex_t lock;                      /* registration and unregistration */
	uint16_t page_refs[BH_L1_PAGES];           /* watches per L1 page (under lock) */
	_Atomic uint32_t reg_watches;              /* watches outside L1, whole tile */
	/* Which registers are watched, one bit per hash of their address (bh_watch_reg_bit), so that a
	 * write to another register (a TRISC zeroing the CB counters of 32 streams at every launch)
	 * skips the scan; a superset between clears (under lock). */
	_Atomic uint64_t reg_mask;
	/* entry = addr | (uint64_t)size << 32 | 1ull << 40 (valid); written by the owner under lock
	 * (release, after its waiter), scanned by any waker without it (acquire). */
	_Atomic uint64_t entry[BH_WATCH_SLOTS][BH_WATCH_ENTRIES];   /* packed from 0 */
	struct bh_waiter *_Atomic waiter[BH_WATCH_SLOTS];   /* whom a write to a slot's words wakes */
	/* The slot's entries have been seen by every writer since (a membarrier began after they were
	 * stored): written and read by the slot's owner only, cleared by bh_watch_unregister. */
	bool armed[BH_WATCH_SLOTS];
	/* A counter the slot waits to reach (bh_watch_until): 0, or the register's address |
	 * target << 32 | bits << 56 | 1 << 63. Written by the slot's owner (seq_cst), read by the
	 * counter's writers (seq_cst). */
	_Atomic uint64_t until[BH_WATCH_SLOTS];
	/* What the slot's waiter last saw in an L1 entry of its current wait (bh_watch_expect): 0, or
	 * the value | 1 << 32. Written by the slot's owner, read by writers after a fence. */
	_Atomic uint64_t expect[BH_WATCH_SLOTS][BH_WATCH_ENTRIES];
	uint32_t expect_mask[BH_WATCH_SLOTS];      /* entries with an expectation (owner only) */
};

void bh_watch_init(struct bh_watch_set *w);
void bh_watch_destroy(struct bh_watch_set *w);
/* The slot watches nothing any more (its owner only). */
void bh_watch_unregister(struct bh_tile *t, unsigned slot);
/* Before a park: make waiter w in `slot` watch the n words (adding those it does not watch yet,
 * or starting again with only these when the slot is full) and make them visible to every writer.
 * Returns what bh_park_heavy_fence() would (false: no membarrier, sleep bounded); true without a
 * fence when every word was armed by an earlier park. The caller re-checks its words after this. */
bool bh_watch_arm(struct bh_tile *t, unsigned slot, struct bh_waiter *w, const uint32_t *addr, const uint8_t *size,
		  unsigned n);
/* After bh_watch_arm and before the re-check: the values the waiter saw in the n words of its
 * wait (a poll loop waits until one of them changes). A write into an L1 word of the slot's that
 * leaves it holding the value its waiter saw does not wake it: the waiter would find nothing
 * changed and park again (a dispatcher's launch message rewriting the preload byte a worker polls
 * with the same value, every launch). Words outside L1 and earlier waits' entries wake as before.
 * No wake-up is lost: the owner stores the values and fences before it re-reads the words, a writer
 * stores, then fences before it compares, so either the re-read sees the store or the writer
 * compares with these values. Owner only. */
void bh_watch_expect(struct bh_tile *t, unsigned slot, const uint32_t *addr, const uint8_t *size,
		     const uint32_t *value, unsigned n);
/* After the park: keep armed entries for the next one; drop them under serial scheduling or when
 * they were not armed. */
void bh_watch_release(struct bh_tile *t, unsigned slot, const struct bh_waiter *w);
/* Cold path of a write of len bytes at L1 addr into a watched page: wake overlapping watchers,
 * except slot `writer` (the storing core's own, whose kept entries it is not parked on while it
 * stores; BH_WATCH_SLOTS: a writer with no slot). */
void bh_watch_l1_written(struct bh_tile *t, uint32_t addr, uint32_t len, unsigned writer);

/* A device register at addr changed (stream register, semaphore, ...): wake cores parked on it.
 * One relaxed load when nothing outside L1 is watched. */
void bh_tile_mmio_written(struct bh_tile *tile, uint32_t addr);

/* Counter waits: a waiter whose wait on the register at addr can only end once the counter there,
 * compared with wrap-around on `bits` bits (2..24), reaches target (a dispatcher counting worker
 * completions) says so after bh_watch_arm and before its re-check; from then on a writer that
 * knows the value its own atomic update left (bh_tile_mmio_counter_written) wakes it only when
 * that value has reached the target, instead of at every increment. Writers that do not know the
 * value (bh_tile_mmio_written) still wake it. No wake-up is lost: the waiter publishes the target
 * (seq_cst) before it re-reads the counter, the writer updates the counter (seq_cst RMW) before it
 * reads the target, so either the waiter's re-check sees the update or the writer compares against
 * this target. Clear it (bh_watch_until_clear) when the wait ends: a stale target would hold back
 * the wake-ups of the slot's next wait on that register. Owner only. */
void bh_watch_until(struct bh_tile *t, unsigned slot, uint32_t addr, uint32_t target, unsigned bits);
void bh_watch_until_clear(struct bh_tile *t, unsigned slot);
/* Whether a counter of `bits` bits holding value has reached target (wrap-around compare: at most
 * half the range ahead of it). */
static inline bool bh_watch_counter_reached(uint32_t value, uint32_t target, unsigned bits)
{
	uint32_t mask = (uint32_t)((1ull << bits) - 1);
	return ((value - target) & mask) < (mask >> 1) + 1;
}
/* The counter register at addr was updated by an atomic RMW that left `value` there: wake cores
 * parked on it, except a counter waiter whose target value has not reached. */
void bh_tile_mmio_counter_written(struct bh_tile *tile, uint32_t addr, uint32_t value);

#endif
