#include <stdlib.h>
#include <urcu-qsbr.h>

#include "sync/fiber.h"
#include "sync/hooks.h"

/* ThreadSanitizer cannot see liburcu's grace periods (the library is not instrumented): make
 * every quiescent state a release and the end of a grace period an acquire, so the writer's
 * free of an old set is ordered after the readers' last use of it, as RCU guarantees. */
#if defined(__SANITIZE_THREAD__)
#define BH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BH_TSAN 1
#endif
#endif
#ifdef BH_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
static char tsan_grace;
#define TSAN_RELEASE() __tsan_release(&tsan_grace)
#define TSAN_ACQUIRE() __tsan_acquire(&tsan_grace)
#else
#define TSAN_RELEASE() ((void)0)
#define TSAN_ACQUIRE() ((void)0)
#endif

struct bh_hook {
	bh_core_observer fn;
	void *arg;
	uint64_t id;
	uint32_t kinds;   /* 1 << enum bh_core_event_kind it wants */
};

struct bh_hook_set {
	unsigned n;
	struct bh_hook hook[];
};

static __thread bool rcu_registered;

/* A fiber's thread is its group's (sync/fiber.c): the group registers it and takes it offline
 * while it sleeps; the fibers' own calls change nothing. */
void bh_rcu_thread_register(void)
{
	if (bh_fiber_self)
		return;
	urcu_qsbr_register_thread();
	rcu_registered = true;
}

void bh_rcu_thread_unregister(void)
{
	if (!rcu_registered || bh_fiber_self)
		return;
	TSAN_RELEASE();
	urcu_qsbr_unregister_thread();
	rcu_registered = false;
}

void bh_rcu_quiescent(void)
{
	if (!rcu_registered)
		return;
	TSAN_RELEASE();
	urcu_qsbr_quiescent_state();
}

void bh_rcu_offline(void)
{
	if (!rcu_registered || bh_fiber_self)
		return;
	TSAN_RELEASE();
	urcu_qsbr_thread_offline();
}

void bh_rcu_online(void)
{
	if (rcu_registered && !bh_fiber_self)
		urcu_qsbr_thread_online();
}

void bh_hooks_init(struct bh_hooks *h)
{
	atomic_init(&h->set, NULL);
	atomic_init(&h->kinds, 0);
	pthread_mutex_init(&h->lock, NULL);
	h->next_id = 1;
}

void bh_hooks_destroy(struct bh_hooks *h)
{
	free(atomic_load_explicit(&h->set, memory_order_relaxed));
	pthread_mutex_destroy(&h->lock);
}

/* Publish `next` (may be NULL) in place of the current set, wait for every reader to let go of
 * the old one, free it. Caller holds h->lock. */
static void hooks_replace(struct bh_hooks *h, struct bh_hook_set *next)
{
	uint32_t kinds = 0;
	for (unsigned k = 0; next && k < next->n; k++)
		kinds |= next->hook[k].kinds;
	atomic_store_explicit(&h->kinds, kinds, memory_order_relaxed);
	struct bh_hook_set *old = atomic_exchange_explicit(&h->set, next, memory_order_acq_rel);
	if (!old)
		return;
	urcu_qsbr_synchronize_rcu();
	TSAN_ACQUIRE();
	free(old);
}

static struct bh_hook_set *hooks_alloc(unsigned n)
{
	struct bh_hook_set *s = malloc(sizeof *s + n * sizeof s->hook[0]);
	if (s)
		s->n = n;
	return s;
}

int bh_hooks_attach(struct bh_hooks *h, uint32_t kinds, bh_core_observer fn, void *arg, uint64_t *id)
{
	pthread_mutex_lock(&h->lock);
	struct bh_hook_set *cur = atomic_load_explicit(&h->set, memory_order_relaxed);
	unsigned n = cur ? cur->n : 0;
	struct bh_hook_set *next = hooks_alloc(n + 1);
	if (!next) {
		pthread_mutex_unlock(&h->lock);
		return -1;
	}
	for (unsigned k = 0; k < n; k++)
		next->hook[k] = cur->hook[k];
	next->hook[n] = (struct bh_hook){ fn, arg, h->next_id++, kinds };
	*id = next->hook[n].id;
	hooks_replace(h, next);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

int bh_hooks_detach(struct bh_hooks *h, uint64_t id)
{
	pthread_mutex_lock(&h->lock);
	struct bh_hook_set *cur = atomic_load_explicit(&h->set, memory_order_relaxed);
	unsigned n = cur ? cur->n : 0, at = n;
	for (unsigned k = 0; k < n; k++)
		if (cur->hook[k].id == id)
			at = k;
	if (at == n) {
		pthread_mutex_unlock(&h->lock);
		return -1;
	}
	struct bh_hook_set *next = NULL;
	if (n > 1) {
		next = hooks_alloc(n - 1);
		if (!next) {
			pthread_mutex_unlock(&h->lock);
			return -1;
		}
		for (unsigned k = 0, j = 0; k < n; k++)
			if (k != at)
				next->hook[j++] = cur->hook[k];
	}
	hooks_replace(h, next);
	pthread_mutex_unlock(&h->lock);
	return 0;
}

static void hooks_call(const struct bh_hook_set *s, const struct bh_core_event *ev)
{
	for (unsigned k = 0; k < s->n; k++)
		if (s->hook[k].kinds >> ev->kind & 1)
			s->hook[k].fn(s->hook[k].arg, ev);
}

void bh_hooks_emit_slow(struct bh_hooks *h, const struct bh_core_event *ev)
{
	/* Acquire: pairs with the publishing exchange, so the array's contents are visible. */
	const struct bh_hook_set *s = atomic_load_explicit(&h->set, memory_order_acquire);
	if (s)
		hooks_call(s, ev);
}

void bh_hooks_emit_actor(struct bh_hooks *h, unsigned tile, unsigned track, const char *what)
{
	if (!bh_hooks_want(h, BH_EVENT_ACTOR))
		return;
	struct bh_core_event ev = { .kind = BH_EVENT_ACTOR, .tile = tile, .core = (enum bh_core_id)track, .what = what };
	bh_hooks_emit_any(h, &ev);
}

void bh_hooks_emit_any(struct bh_hooks *h, const struct bh_core_event *ev)
{
	if (rcu_registered) {
		bh_hooks_emit_slow(h, ev);
		return;
	}
	/* Not an RCU reader: the writers' lock keeps the set from being replaced meanwhile. */
	pthread_mutex_lock(&h->lock);
	const struct bh_hook_set *s = atomic_load_explicit(&h->set, memory_order_acquire);
	if (s)
		hooks_call(s, ev);
	pthread_mutex_unlock(&h->lock);
}
