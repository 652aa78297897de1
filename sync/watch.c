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
	atomic_store_explicit(&w->reg_mask, 0, memory_order_relaxed);
	for (unsigned c = 0; c < BH_WATCH_SLOTS; c++) {
		w->armed[c] = false;
		atomic_store_explicit(&w->until[c], 0, memory_order_relaxed);
		atomic_store_explicit(&w->waiter[c], NULL, memory_order_relaxed);
		w->expect_mask[c] = 0;
		for (unsigned k = 0; k < BH_WATCH_ENTRIES; k++) {
			atomic_store_explicit(&w->entry[c][k], 0, memory_order_relaxed);
			atomic_store_explicit(&w->expect[c][k], 0, memory_order_relaxed);
		}
	}
}

void bh_watch_destroy(struct bh_watch_set *w)
{
	pthread_mutex_destroy(&w->lock);
}

/* The reg_mask bit of the register word at addr: its index and its block (stream, ...) mixed. */
static uint64_t watch_reg_bit(uint32_t addr)
{
	return 1ull << (((addr >> 2) ^ (addr >> 12)) & 63u);
}

/* The bits of every register word a watch entry of size bytes at addr overlaps. */
static uint64_t watch_reg_bits(uint32_t addr, uint32_t size)
{
	return watch_reg_bit(addr & ~3u) | watch_reg_bit((addr + (size ? size : 1) - 1) & ~3u);
}

static uint64_t watch_entry(uint32_t addr, uint8_t size)
{
	return addr | (uint64_t)size << 32 | ENTRY_VALID;
}

/* Entry k of the slot watches e (under lock; entries stay packed from 0). */
static void watch_add_locked(struct bh_tile *t, unsigned slot, unsigned k, uint64_t e)
{
	struct bh_watch_set *w = &t->watch;
	uint32_t addr = (uint32_t)e;
	atomic_store_explicit(&w->entry[slot][k], e, memory_order_release);
	if (addr < BH_L1_SIZE) {
		unsigned p = addr >> BH_L1_PAGE_SHIFT;
		if (w->page_refs[p]++ == 0)
			atomic_fetch_or_explicit(&t->code_pages[p], BH_PAGE_WATCHED, memory_order_relaxed);
	} else {
		atomic_fetch_or_explicit(&w->reg_mask, watch_reg_bits(addr, (uint32_t)(e >> 32) & 0xffu), memory_order_relaxed);
		atomic_fetch_add_explicit(&w->reg_watches, 1, memory_order_relaxed);
	}
}

/* The slot's expectations (bh_watch_expect) in `keep` stay; the others go. Owner only. */
static void watch_expect_keep(struct bh_watch_set *w, unsigned slot, uint32_t keep)
{
	for (uint32_t drop = w->expect_mask[slot] & ~keep; drop; drop &= drop - 1)
		atomic_store_explicit(&w->expect[slot][__builtin_ctz(drop)], 0, memory_order_relaxed);
	w->expect_mask[slot] = keep;
}

/* reg_mask again from the registers still watched (under lock: every entry is written under it). */
static void watch_reg_mask_locked(struct bh_watch_set *w)
{
	uint64_t mask = 0;
	for (unsigned c = 0; c < BH_WATCH_SLOTS; c++)
		for (unsigned k = 0; k < BH_WATCH_ENTRIES; k++) {
			uint64_t e = atomic_load_explicit(&w->entry[c][k], memory_order_relaxed);
			if (!(e & ENTRY_VALID))
				break;
			if ((uint32_t)e >= BH_L1_SIZE)
				mask |= watch_reg_bits((uint32_t)e, (uint32_t)(e >> 32) & 0xffu);
		}
	atomic_store_explicit(&w->reg_mask, mask, memory_order_relaxed);
}

static void watch_clear_locked(struct bh_tile *t, unsigned slot)
{
	struct bh_watch_set *w = &t->watch;
	bool regs = false;
	watch_expect_keep(w, slot, 0);
	for (unsigned k = 0; k < BH_WATCH_ENTRIES; k++) {
		uint64_t e = atomic_exchange_explicit(&w->entry[slot][k], 0, memory_order_relaxed);
		if (!(e & ENTRY_VALID))
			break;
		uint32_t addr = (uint32_t)e;
		if (addr < BH_L1_SIZE) {
			unsigned p = addr >> BH_L1_PAGE_SHIFT;
			if (--w->page_refs[p] == 0)
				atomic_fetch_and_explicit(&t->code_pages[p], (uint8_t)~BH_PAGE_WATCHED, memory_order_relaxed);
		} else {
			atomic_fetch_sub_explicit(&w->reg_watches, 1, memory_order_relaxed);
			regs = true;
		}
	}
	if (regs)
		watch_reg_mask_locked(w);
}

void bh_watch_unregister(struct bh_tile *t, unsigned slot)
{
	struct bh_watch_set *w = &t->watch;
	w->armed[slot] = false;
	bh_watch_until_clear(t, slot);
	pthread_mutex_lock(&w->lock);
	watch_clear_locked(t, slot);
	pthread_mutex_unlock(&w->lock);
}

/* How many entries the slot holds, and whether e is one of them (owner only: it writes them). */
static unsigned watch_count(struct bh_watch_set *w, unsigned slot)
{
	unsigned k = 0;
	while (k < BH_WATCH_ENTRIES && (atomic_load_explicit(&w->entry[slot][k], memory_order_relaxed) & ENTRY_VALID))
		k++;
	return k;
}

static bool watch_has(struct bh_watch_set *w, unsigned slot, unsigned count, uint64_t e)
{
	for (unsigned k = 0; k < count; k++)
		if (atomic_load_explicit(&w->entry[slot][k], memory_order_relaxed) == e)
			return true;
	return false;
}

bool bh_watch_arm(struct bh_tile *t, unsigned slot, struct bh_waiter *waiter, const uint32_t *addr,
		  const uint8_t *size, unsigned n)
{
	struct bh_watch_set *w = &t->watch;
	if (n > BH_WATCH_MAX)
		n = BH_WATCH_MAX;
	bool mine = atomic_load_explicit(&w->waiter[slot], memory_order_relaxed) == waiter;
	unsigned count = mine ? watch_count(w, slot) : 0, missing = 0;
	uint64_t add[BH_WATCH_MAX];
	for (unsigned k = 0; k < n; k++)
		if (!watch_has(w, slot, count, watch_entry(addr[k], size[k])))
			add[missing++] = watch_entry(addr[k], size[k]);
	if (!missing && w->armed[slot])
		return true;   /* a membarrier began after these entries were stored (sync/watch.h) */
	if (missing) {
		w->armed[slot] = false;
		pthread_mutex_lock(&w->lock);
		if (!mine || count + missing > BH_WATCH_ENTRIES) {
			/* Another waiter's entries, or no room: start again with exactly these words. */
			watch_clear_locked(t, slot);
			atomic_store_explicit(&w->waiter[slot], waiter, memory_order_relaxed);
			count = missing = 0;
			for (unsigned k = 0; k < n; k++)
				add[missing++] = watch_entry(addr[k], size[k]);
		}
		for (unsigned k = 0; k < missing; k++)
			watch_add_locked(t, slot, count + k, add[k]);
		pthread_mutex_unlock(&w->lock);
	}
	bool fenced = bh_park_heavy_fence();   /* pairs with the writers' store-then-check */
	/* Serial scheduling fences nothing (no writer runs meanwhile) and drops the entries anyway. */
	w->armed[slot] = fenced && !waiter->actor;
	return fenced;
}

#define EXPECT_VALID (1ull << 32)

void bh_watch_expect(struct bh_tile *t, unsigned slot, const uint32_t *addr, const uint8_t *size,
		     const uint32_t *value, unsigned n)
{
	struct bh_watch_set *w = &t->watch;
	unsigned count = watch_count(w, slot);
	uint32_t keep = 0;
	for (unsigned k = 0; k < n && k < BH_WATCH_MAX; k++) {
		if (addr[k] >= BH_L1_SIZE || (size[k] != 1 && size[k] != 2 && size[k] != 4) || addr[k] % size[k])
			continue;
		uint64_t e = watch_entry(addr[k], size[k]);
		for (unsigned j = 0; j < count; j++) {
			if (atomic_load_explicit(&w->entry[slot][j], memory_order_relaxed) != e)
				continue;
			uint64_t x = (uint64_t)value[k] | EXPECT_VALID;
			if (atomic_load_explicit(&w->expect[slot][j], memory_order_relaxed) != x)
				atomic_store_explicit(&w->expect[slot][j], x, memory_order_relaxed);
			keep |= 1u << j;
			break;
		}
	}
	watch_expect_keep(w, slot, keep);
	/* Before the caller's re-check: pairs with the writer's fence in watch_wake_range. */
	atomic_thread_fence(memory_order_seq_cst);
}

void bh_watch_release(struct bh_tile *t, unsigned slot, const struct bh_waiter *waiter)
{
	/* Unarmed entries (no membarrier: every park fences again anyway) go too, so a core that
	 * wakes from a bounded sleep and stores into its own words does not look woken. */
	if (waiter->actor || !t->watch.armed[slot])
		bh_watch_unregister(t, slot);
}

#define UNTIL_VALID (1ull << 63)

void bh_watch_until(struct bh_tile *t, unsigned slot, uint32_t addr, uint32_t target, unsigned bits)
{
	uint64_t u = addr | (uint64_t)(target & 0xFFFFFFu) << 32 | (uint64_t)(bits & 0x3Fu) << 56 | UNTIL_VALID;
	/* Before the caller's re-check of the counter (sync/watch.h: pairs with the writer's RMW). */
	atomic_store_explicit(&t->watch.until[slot], u, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
}

void bh_watch_until_clear(struct bh_tile *t, unsigned slot)
{
	if (atomic_load_explicit(&t->watch.until[slot], memory_order_relaxed))
		atomic_store_explicit(&t->watch.until[slot], 0, memory_order_seq_cst);
}

/* Whether slot c's counter wait on the register at addr still holds back a writer that left value
 * there (value: its own update's result; has_value false: unknown, wake). */
static bool watch_until_short(struct bh_watch_set *w, unsigned c, uint32_t addr, bool has_value, uint32_t value)
{
	if (!has_value)
		return false;
	uint64_t u = atomic_load_explicit(&w->until[c], memory_order_seq_cst);
	if (!(u & UNTIL_VALID) || (uint32_t)u != addr)
		return false;
	return !bh_watch_counter_reached(value, (uint32_t)(u >> 32) & 0xFFFFFFu, (unsigned)(u >> 56) & 0x3Fu);
}

/* Wake every waiter with a watched word overlapping [addr, addr + len) (has_value: a counter
 * register's writer that left value there, see bh_watch_until). */
static void watch_wake_range(struct bh_tile *t, uint32_t addr, uint32_t len, unsigned writer, bool has_value,
			     uint32_t value)
{
	struct bh_watch_set *w = &t->watch;
	bool fenced = false;
	for (unsigned c = 0; c < BH_WATCH_SLOTS; c++) {
		if (c == writer)
			continue;
		for (unsigned k = 0; k < BH_WATCH_ENTRIES; k++) {
			/* Acquire: a valid entry's waiter was stored before it. */
			uint64_t e = atomic_load_explicit(&w->entry[c][k], memory_order_acquire);
			if (!(e & ENTRY_VALID))
				break;
			uint32_t a = (uint32_t)e, sz = (uint32_t)(e >> 32) & 0xff;
			if (a < addr + len && addr < a + sz) {
				if (a < BH_L1_SIZE) {
					/* After the store (sync/watch.h: bh_watch_expect). */
					if (!fenced)
						atomic_thread_fence(memory_order_seq_cst);
					fenced = true;
					uint64_t x = atomic_load_explicit(&w->expect[c][k], memory_order_relaxed);
					if ((x & EXPECT_VALID) && bh_mem_ld(t->l1 + a, sz) == (uint32_t)x)
						continue;   /* it still holds what the waiter saw */
				}
				if (watch_until_short(w, c, addr, has_value, value))
					break;   /* not at its target yet: nothing it waits for happened */
				bh_park_wake(atomic_load_explicit(&w->waiter[c], memory_order_relaxed));
				break;
			}
		}
	}
}

void bh_watch_l1_written(struct bh_tile *t, uint32_t addr, uint32_t len, unsigned writer)
{
	watch_wake_range(t, addr, len, writer, false, 0);
}

static void mmio_written(struct bh_tile *t, uint32_t addr, bool has_value, uint32_t value)
{
	/* Pairs with bh_park_heavy_fence() on the registering side (the mask is stored before it too). */
	if (!atomic_load_explicit(&t->watch.reg_watches, memory_order_relaxed) ||
	    !(atomic_load_explicit(&t->watch.reg_mask, memory_order_relaxed) & watch_reg_bit(addr & ~3u)))
		return;
	watch_wake_range(t, addr & ~3u, 4, BH_WATCH_SLOTS, has_value, value);
}

void bh_tile_mmio_written(struct bh_tile *t, uint32_t addr)
{
	mmio_written(t, addr, false, 0);
}

void bh_tile_mmio_counter_written(struct bh_tile *t, uint32_t addr, uint32_t value)
{
	mmio_written(t, addr, true, value);
}
