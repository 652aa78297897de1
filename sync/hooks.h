/* Read-mostly hooks: observers that the host attaches and detaches while every core runs, and
 * that cores consult on their own threads at points they pass anyway (start, park, wake, stop).
 *
 * The set of attached hooks is an immutable array behind one pointer. Cores read it with one
 * acquire load (a NULL pointer: nothing attached, nothing more to do). The host replaces the
 * array and frees the old one only after a grace period of liburcu's QSBR flavour: every core
 * thread is an RCU reader that announces quiescent states where it holds no hook pointer
 * (bh_rcu_quiescent at the periodic event check; offline while it sleeps, bh_park_sleep and the
 * held-in-reset wait). So a detach that returns guarantees its callback runs nowhere any more,
 * without a lock or a reference count on the cores' side. */
#ifndef BH_SYNC_HOOKS_H
#define BH_SYNC_HOOKS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "bhemu/bhemu.h"

struct bh_hook_set;

struct bh_hooks {
	_Atomic(struct bh_hook_set *) set;   /* NULL when nothing is attached */
	_Atomic uint32_t kinds;              /* the kinds some attached hook wants */
	pthread_mutex_t lock;                /* writers (attach, detach) */
	uint64_t next_id;
};

void bh_hooks_init(struct bh_hooks *h);
/* Frees the set: no reader may run any more (the core threads have been joined). */
void bh_hooks_destroy(struct bh_hooks *h);
/* Attach fn(arg, event) for the event kinds in `kinds` (1 << enum bh_core_event_kind); *id names
 * it for bh_hooks_detach. Returns 0, or -1 (out of memory). */
int bh_hooks_attach(struct bh_hooks *h, uint32_t kinds, bh_core_observer fn, void *arg, uint64_t *id);
/* Detach; when it returns, fn is running nowhere and will not be called again. Must not be
 * called from a hook or a core thread. Returns 0, or -1 when id is not attached. */
int bh_hooks_detach(struct bh_hooks *h, uint64_t id);
/* Call every attached hook that wants ev->kind (RCU readers only: the core and NoC threads). */
void bh_hooks_emit_slow(struct bh_hooks *h, const struct bh_core_event *ev);
/* The same from any thread: an RCU reader as above, any other (the host, the fast-dispatch
 * models) under the writers' lock. A hook must not attach or detach (it would deadlock). */
void bh_hooks_emit_any(struct bh_hooks *h, const struct bh_core_event *ev);
/* BH_EVENT_ACTOR for the track `track` (BH_ACTOR_*) of tile: it runs or waits (what), from any
 * thread holding no lock that a hook's caller could need. */
void bh_hooks_emit_actor(struct bh_hooks *h, unsigned tile, unsigned track, const char *what);
static inline bool bh_hooks_attached(struct bh_hooks *h)
{
	return atomic_load_explicit(&h->set, memory_order_relaxed) != NULL;
}
/* Whether some attached hook wants events of this kind: one relaxed load. */
static inline bool bh_hooks_want(struct bh_hooks *h, unsigned kind)
{
	return atomic_load_explicit(&h->kinds, memory_order_relaxed) >> kind & 1;
}

/* RCU reader side, for threads that call bh_hooks_emit_slow (core threads). Offline and online
 * are no-ops on threads that never registered, so shared sleep paths can call them. */
void bh_rcu_thread_register(void);
void bh_rcu_thread_unregister(void);
void bh_rcu_quiescent(void);
void bh_rcu_offline(void);
void bh_rcu_online(void);

#endif
