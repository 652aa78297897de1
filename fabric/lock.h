/* A mutex for the short critical sections on a NoC request's path (the engine's heap and runner,
 * fabric/noc_engine.c; a tile's in-flight spans, fabric/inflight.c): taken with one inline
 * compare-and-swap and released with one inline atomic decrement, where a pthread mutex costs a
 * library call each way (a write request takes seven such pairs). A contended lock sleeps on its
 * word (futex), as a pthread mutex does: a holder preempted on a busy host costs its waiters no
 * CPU. The word is 0 free, 1 held, 2 held with sleepers possibly waiting (U. Drepper, "Futexes
 * Are Tricky", mutex 3). Not recursive; no owner is recorded. */
#ifndef BH_FABRIC_LOCK_H
#define BH_FABRIC_LOCK_H

#include <stdatomic.h>
#include <stdint.h>

struct bh_lock {
	_Atomic uint32_t word;
};

/* The slow paths (fabric/lock.c): wait for a held lock; wake a sleeper after a release that
 * found one possible. */
void bh_lock_wait(struct bh_lock *l);
void bh_lock_wake(struct bh_lock *l);

static inline void bh_lock_init(struct bh_lock *l)
{
	atomic_init(&l->word, 0);
}

static inline void bh_lock(struct bh_lock *l)
{
	uint32_t free = 0;
	if (!atomic_compare_exchange_strong_explicit(&l->word, &free, 1, memory_order_acquire, memory_order_relaxed))
		bh_lock_wait(l);
}

static inline void bh_unlock(struct bh_lock *l)
{
	if (atomic_fetch_sub_explicit(&l->word, 1, memory_order_release) != 1)
		bh_lock_wake(l);
}

#endif
