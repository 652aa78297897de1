#include <string.h>

#include "fabric/tile.h"
#include "sync/park.h"
#include "sync/watch.h"

#define ENTRY_VALID (1ull << 40)

void bh_watch_init(struct bh_watch_set *w)
{
	memset(w->page_refs, 0, sizeof w->page_refs);
	pthread_mutex_init(&w->lock, NULL);
	atomic_store_explicit(&w->reg_watches, 0, memory_order_relaxed);
	for (unsigned c = 0; c < BH_WATCH_SLOTS; c++) {
		w->armed[c] = false;
		atomic_store_explicit(&w->waiter[c], NULL, memory_order_relaxed);
		for (unsigned k = 0; k < BH_WATCH_MAX; k++)
			atomic_store_explicit(&w->entry[c][k], 0, memory_order_relaxed);
	}
}

void bh_watch_destroy(struct bh_watch_set *w)
{
	pthread_mutex_destroy(&w->lock);
}

void bh_watch_register(struct bh_tile *t, unsigned slot, struct bh_waiter *waiter, const uint32_t *addr,
		       const uint8_t *size, unsigned n)
{
	struct bh_watch_set *w = &t->watch;
	if (n > BH_WATCH_MAX)
		n = BH_WATCH_MAX;
	pthread_mutex_lock(&w->lock);
	atomic_store_explicit(&w->waiter[slot], waiter, memory_order_relaxed);
	for (unsigned k = 0; k < n; k++) {
		atomic_store_explicit(&w->entry[slot][k], addr[k] | (uint64_t)size[k] << 32 | ENTRY_VALID,
				      memory_order_release);
		if (addr[k] < BH_L1_SIZE) {
			unsigned p = addr[k] >> BH_L1_PAGE_SHIFT;
			if (w->page_refs[p]++ == 0)
				atomic_fetch_or_explicit(&t->code_pages[p], BH_PAGE_WATCHED, memory_order_relaxed);
		} else {
			atomic_fetch_add_explicit(&w->reg_watches, 1, memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&w->lock);
}

void bh_watch_unregister(struct bh_tile *t, unsigned slot)
{
	struct bh_watch_set *w = &t->watch;
	w->armed[slot] = false;
	pthread_mutex_lock(&w->lock);
	for (unsigned k = 0; k < BH_WATCH_MAX; k++) {
		uint64_t e = atomic_exchange_explicit(&w->entry[slot][k], 0, memory_order_relaxed);
		if (!(e & ENTRY_VALID))
			continue;
		uint32_t addr = (uint32_t)e;
		if (addr < BH_L1_SIZE) {
			unsigned p = addr >> BH_L1_PAGE_SHIFT;
			if (--w->page_refs[p] == 0)
				atomic_fetch_and_explicit(&t->code_pages[p], (uint8_t)~BH_PAGE_WATCHED, memory_order_relaxed);
		} else {
			atomic_fetch_sub_explicit(&w->reg_watches, 1, memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&w->lock);
}

/* Whether the slot's entries are exactly these words of this waiter (owner only: it is the one
 * that writes them). */
static bool watch_registered(struct bh_watch_set *w, unsigned slot, const struct bh_waiter *waiter,
			     const uint32_t *addr, const uint8_t *size, unsigned n)
{
	if (atomic_load_explicit(&w->waiter[slot], memory_order_relaxed) != waiter)
		return false;
	for (unsigned k = 0; k < BH_WATCH_MAX; k++) {
		uint64_t e = atomic_load_explicit(&w->entry[slot][k], memory_order_relaxed);
		if (k == n)
			return !(e & ENTRY_VALID);
		if (e != (addr[k] | (uint64_t)size[k] << 32 | ENTRY_VALID))
			return false;
	}
	return true;
}

bool bh_watch_arm(struct bh_tile *t, unsigned slot, struct bh_waiter *waiter, const uint32_t *addr,
		  const uint8_t *size, unsigned n)
{
	struct bh_watch_set *w = &t->watch;
	if (n > BH_WATCH_MAX)
		n = BH_WATCH_MAX;
	if (!watch_registered(w, slot, waiter, addr, size, n)) {
		bh_watch_unregister(t, slot);
		bh_watch_register(t, slot, waiter, addr, size, n);
	} else if (w->armed[slot]) {
		return true;   /* a membarrier began after the entries were stored (sync/watch.h) */
	}
	bool fenced = bh_park_heavy_fence();   /* pairs with the writers' store-then-check */
	/* Serial scheduling fences nothing (no writer runs meanwhile) and drops the entries anyway. */
	w->armed[slot] = fenced && !waiter->actor;
	return fenced;
}

void bh_watch_release(struct bh_tile *t, unsigned slot, const struct bh_waiter *waiter)
{
	/* Unarmed entries (no membarrier: every park fences again anyway) go too, so a core that
	 * wakes from a bounded sleep and stores into its own words does not look woken. */
	if (waiter->actor || !t->watch.armed[slot])
		bh_watch_unregister(t, slot);
}

/* Wake every waiter with a watched word overlapping [addr, addr + len). */
static void watch_wake_range(struct bh_tile *t, uint32_t addr, uint32_t len, unsigned writer)
{
	struct bh_watch_set *w = &t->watch;
	for (unsigned c = 0; c < BH_WATCH_SLOTS; c++) {
		if (c == writer)
			continue;
		for (unsigned k = 0; k < BH_WATCH_MAX; k++) {
			/* Acquire: a valid entry's waiter was stored before it. */
			uint64_t e = atomic_load_explicit(&w->entry[c][k], memory_order_acquire);
			if (!(e & ENTRY_VALID))
				break;
			uint32_t a = (uint32_t)e, sz = (uint32_t)(e >> 32) & 0xff;
			if (a < addr + len && addr < a + sz) {
				bh_park_wake(atomic_load_explicit(&w->waiter[c], memory_order_relaxed));
				break;
			}
		}
	}
}

void bh_watch_l1_written(struct bh_tile *t, uint32_t addr, uint32_t len, unsigned writer)
{
	watch_wake_range(t, addr, len, writer);
}

void bh_tile_mmio_written(struct bh_tile *t, uint32_t addr)
{
	/* Pairs with bh_park_heavy_fence() on the registering side. */
	if (!atomic_load_explicit(&t->watch.reg_watches, memory_order_relaxed))
		return;
	watch_wake_range(t, addr & ~3u, 4, BH_WATCH_SLOTS);
}
