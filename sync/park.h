/* Parking: how an actor (a RISC-V core, a Tensix thread, a fast-dispatch model, ...) sleeps while it waits, and
 * how whoever changes what it waits on wakes it. Each actor embeds a struct bh_waiter and sleeps
 * on its own futex word (wake_seq); every waker bumps that word. Waits never lose a wake-up: the
 * actor reads wake_seq *before* it checks the thing it waits on, and sleeps only if wake_seq still
 * has that value.
 *
 *   actor:  seq = bh_park_seq(w);  register as waiter;  re-check (seq_cst);  bh_park_sleep(w, seq, t)
 *   waker:  change state (seq_cst);  for each registered waiter: bh_park_wake(w)
 *
 * Device modules that block a requester (PCBuf pop on empty, mailbox read, ...) keep a
 * struct bh_waitq and follow the same order. */
#ifndef BH_SYNC_PARK_H
#define BH_SYNC_PARK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct bh_tile;

/* What a parked actor waits on, for deadlock detection and reports. */
enum bh_park_state {
	BH_PARK_NONE = 0,
	BH_PARK_WATCH,    /* parked on watched words, no timeout */
	BH_PARK_TIMED,    /* parked on the wall clock (and maybe words): wakes by itself */
	BH_PARK_BLOCKED,  /* a device access blocked (PCBuf, mailbox, ...) */
	BH_PARK_GATE,     /* a Tensix thread held at its Wait Gate (no timeout) */
	BH_PARK_IDLE,     /* nothing to do: held in reset, stopped, no work queued, closed */
};

/* The part of an actor that sleeps and is woken. */
struct bh_waiter {
	_Atomic uint32_t wake_seq;      /* futex word: wakers bump it */
	/* While in bh_park_sleep: the wake_seq it sleeps on | 1 << 32; else 0. A fiber's (sync/fiber.h)
	 * is only for observers (its wakers do not look at it). */
	_Atomic uint64_t sleeping;
	_Atomic uint32_t sleep_seq;     /* the wake_seq its last bh_park_sleep waited on */
	_Atomic uint32_t park_state;    /* enum bh_park_state: release by the owner, acquire by monitors */
	_Atomic uint32_t progress;      /* bumped by an owner that works without parking (monitors) */
	_Atomic uint64_t parks;         /* times it parked (statistics, tests) */
	/* The owner's word of requests to it, whose bit BH_WAITER_STOP says it is leaving what it
	 * was doing (reset, restart, shutdown, a fault); NULL: never asked. Set before it runs. */
	_Atomic uint32_t *events;
	/* Serial scheduling (sync/sched.h): the actor this waiter belongs to, whose sleeps and
	 * wake-ups the scheduler decides; NULL when threaded. Set before its thread runs. */
	struct bh_actor *actor;
	/* The fiber it belongs to when its actor runs in a fiber group (sync/fiber.h), else NULL:
	 * its sleeps switch fibers, its wakes wake the group's thread. Set before the fiber runs. */
	struct bh_fiber *_Atomic fiber;
};

#define BH_WAITER_STOP 1u

/* Whether the actor is on its way out of its current wait: a device must not record it as a
 * waiter anymore. Relaxed: the caller orders it with its own lock against whoever set it. */
static inline bool bh_waiter_stopping(const struct bh_waiter *w)
{
	return w->events && (atomic_load_explicit(w->events, memory_order_relaxed) & BH_WAITER_STOP);
}

/* Value to pass to bh_park_sleep(); read it before checking the wait condition. */
uint32_t bh_park_seq(struct bh_waiter *w);
/* Sleep until woken after `seq` was read, or timeout_ns passes (0: no timeout). Spurious returns
 * are allowed: the caller re-checks. */
void bh_park_sleep(struct bh_waiter *w, uint32_t seq, uint64_t timeout_ns);
/* Give the host CPU to another thread instead of sleeping (a wait expected to end soon); a fiber
 * gives its group's thread to another of its fibers that can run (sync/fiber.h). */
void bh_park_yield(struct bh_waiter *w);
/* Wake (any thread). Cheap when nobody sleeps: one atomic add and one load. */
void bh_park_wake(struct bh_waiter *w);

/* The calling thread is one more (added) or one less (gone, at its end) of the process's threads
 * that sleep through bh_park_sleep on a futex of their own. Linux (6.16 and later) gives a threaded
 * process its own futex hash of 4 buckets per online CPU (at least 16), and a futex wake walks
 * every waiter in its bucket: 700 parked cores on a 2-CPU host put ~44 in each. Each time the
 * count of live such threads reaches a power of two (from BH_PARK_HASH_MIN_THREADS), the hash grows
 * to BH_PARK_HASH_PER_THREAD buckets per thread for twice that count (prctl PR_FUTEX_HASH; the
 * process's other futexes share it; it never shrinks). A kernel without it refuses the prctl:
 * the hash stays as it was and only wake-ups cost more. */
void bh_park_thread_added(void);
void bh_park_thread_gone(void);
#define BH_PARK_HASH_MIN_THREADS 64u
#define BH_PARK_HASH_PER_THREAD 2u
/* Buckets of the process's futex hash: 0 while it uses the kernel's global one, -1 when the
 * kernel has no PR_FUTEX_HASH. */
int bh_park_futex_hash_slots(void);

/* A set of cores of one tile waiting on one device condition. */
struct bh_waitq {
	_Atomic uint32_t waiters;   /* bit k: core kind k of the owning tile */
};

/* Register core `kind` as a waiter (seq_cst: pairs with the load in bh_waitq_wake). The caller
 * must re-check its condition after this and before blocking. */
void bh_waitq_add(struct bh_waitq *q, unsigned kind);
/* Wake every registered waiter of `tile` and clear the set. Call after the state change. */
void bh_waitq_wake(struct bh_tile *tile, struct bh_waitq *q);

/* Asymmetric fence: makes every other thread's earlier stores visible before the caller's
 * later loads, so that the store hot path needs no fence of its own (Linux membarrier).
 * Returns false when it is unavailable: the kernel refuses membarrier, or BHEMU_MEMBARRIER=off
 * in the environment (or bh_park_set_unfenced) forces the fallback. Without it a writer's
 * relaxed store and its check for watchers can reorder and a wake-up can be lost, so a caller
 * that got false must sleep at most BH_PARK_UNFENCED_SLEEP_NS before it re-checks. */
bool bh_park_heavy_fence(void);
#define BH_PARK_UNFENCED_SLEEP_NS 1000000ull       /* first bounded sleep: 1 ms */
#define BH_PARK_UNFENCED_SLEEP_MAX_NS 64000000ull  /* doubled per sleep that nobody ended, up to 64 ms */
/* The timeout for a sleep that follows bh_park_heavy_fence() (0: none): `want`, or when the
 * fence was unavailable at most *unfenced_ns (the caller's back-off, 0 at first), which this
 * doubles; bh_park_unfenced_woken() restarts it after a sleep that a waker ended. */
uint64_t bh_park_fenced_timeout(bool fenced, uint64_t want, uint64_t *unfenced_ns);
void bh_park_unfenced_woken(struct bh_waiter *w, uint32_t seq, uint64_t *unfenced_ns);
/* Force (or stop forcing) the fallback for the whole process, as BHEMU_MEMBARRIER=off does. */
void bh_park_set_unfenced(bool unfenced);
/* Membarriers are at least this far apart: each interrupts every CPU running a thread of the
 * process, and parks come in waves (a launch parks every core of the chip, each at its own
 * time), so a fencer that comes sooner waits out the gap and its membarrier serves everyone who
 * asked meanwhile (603 membarriers per launch of a P150 became 58; kept watches, sync/watch.h, then
 * took most parks off the fence altogether). A parker that waits there is
 * idle anyway; only a wake-up racing with its park can come that much later. */
#define BH_PARK_FENCE_GAP_NS 200000u

/* Calls of bh_park_heavy_fence that used membarrier, and membarrier system calls made for them
 * (one serves every call that came before it started). */
void bh_park_fence_stats(uint64_t *calls, uint64_t *membarriers);
/* Threaded sleeps of every actor in the process (futex waits entered by bh_park_sleep), and
 * wake-ups that had to wake a sleeper through the kernel (statistics, benches). */
void bh_park_sleep_stats(uint64_t *sleeps, uint64_t *futex_wakes);
/* Yields of every actor in the process (bh_park_yield: waits that gave the CPU away instead of
 * sleeping). */
uint64_t bh_park_yield_stats(void);

#endif
