/* The devices of a tile: L1, local RAMs, host-side access, the local RAM windows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/chip.h"
#include "fabric/code.h"
#include "fabric/copy.h"
#include "fabric/mmio.h"
#include "fabric/noc.h"
#include "fabric/pages.h"
#include "fabric/wallclock.h"
#include "fabric/tile.h"
#include "sync/park.h"
#include "sync/streams.h"
#include "sync/watch.h"

int bh_tile_init(struct bh_tile *t, struct bh_chip *chip, unsigned index)
{
	t->chip = chip;
	t->index = index;
	t->lx = index % chip->topo.cols;
	t->ly = index / chip->topo.cols;
	bh_topology_tile_xy(&chip->topo, index, &t->x, &t->y);
	/* calloc: untouched L1 costs no host memory until written. */
	t->l1 = calloc(1, BH_L1_SIZE + BH_L1_PAGES);
	if (!t->l1)
		return -1;
	t->code_pages = (_Atomic uint8_t *)(t->l1 + BH_L1_SIZE);
	if (bh_code_map_init(t) != 0) {
		free(t->l1);
		t->l1 = NULL;
		return -1;
	}
	t->streams = bh_stream_create();
	if (!t->streams) {
		bh_tile_destroy(t);
		return -1;
	}
	/* Every core's local RAM, zeroed, in one block (touched only where written). */
	uint8_t *ldm = bh_pages_alloc(BH_CORES_PER_TILE * BH_LDM_SIZE_DM);
	if (!ldm) {
		bh_tile_destroy(t);
		return -1;
	}
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		t->ldm[k] = ldm + k * BH_LDM_SIZE_DM;
	pthread_mutex_init(&t->lock, NULL);
	bh_pcbuf_init(&t->pcbuf);
	bh_mailbox_init(&t->mbox);
	bh_watch_init(&t->watch);
	bh_inflight_init(&t->inflight);
	bh_niu_init(&t->niu[0], 0);
	bh_niu_init(&t->niu[1], 1);
	atomic_store_explicit(&t->soft_reset, BH_SOFT_RESET_INIT, memory_order_relaxed);
	return 0;
}

void bh_tile_destroy(struct bh_tile *t)
{
	if (t->l1) {
		bh_watch_destroy(&t->watch);
		bh_inflight_destroy(&t->inflight);
		bh_pcbuf_destroy(&t->pcbuf);
		bh_mailbox_destroy(&t->mbox);
		pthread_mutex_destroy(&t->lock);
	}
	bh_pages_free(t->ldm[0], BH_CORES_PER_TILE * BH_LDM_SIZE_DM);
	memset(t->ldm, 0, sizeof t->ldm);
	bh_code_map_destroy(t);
	bh_stream_free(t->streams);
	t->streams = NULL;
	free(t->l1);
	t->l1 = NULL;
}

/* After a host/NoC write: the code checks see it (words cores executed become stale), every page
 * it touches that holds decoded code has that code dropped (the hook acts on one page at a time,
 * with the part of the write that falls in it); then the watchers of every page it touches are
 * woken. */
static void tile_page_check(struct bh_tile *t, uint32_t addr, uint32_t len, const struct bh_l1_writer *w)
{
	void (*hook)(struct bh_tile *, struct bh_core *, uint32_t, uint32_t) = t->chip->code_written;
	if (!len)
		return;
	uint32_t end = addr + len, first = addr >> BH_L1_PAGE_SHIFT, last = (end - 1) >> BH_L1_PAGE_SHIFT;
	bool watched = false, code = false;
	for (uint32_t p = first; p <= last; p++) {
		unsigned mask = atomic_load_explicit(&t->code_pages[p], memory_order_relaxed);
		watched |= mask & BH_PAGE_WATCHED;
		code |= mask & (BH_PAGE_CODE_MASK | BH_PAGE_EXECUTED);
	}
	if (code && t->code) {
		struct bh_fault f;
		bh_code_written(t, w, addr, len, &f);   /* outside writers: the finding comes at the fetch */
	}
	for (uint32_t p = first; code && p <= last; p++) {
		unsigned mask = atomic_load_explicit(&t->code_pages[p], memory_order_relaxed);
		if (!(mask & BH_PAGE_CODE_MASK) || !hook)
			continue;
		uint32_t lo = p << BH_L1_PAGE_SHIFT, hi = lo + (1u << BH_L1_PAGE_SHIFT);
		hook(t, NULL, addr > lo ? addr : lo, (end < hi ? end : hi) - (addr > lo ? addr : lo));
	}
	if (watched)
		bh_watch_l1_written(t, addr, len, BH_WATCH_SLOTS);
}

void bh_tile_l1_written_by(struct bh_tile *t, uint32_t addr, uint32_t len, const struct bh_l1_writer *w)
{
	atomic_thread_fence(memory_order_seq_cst);   /* pairs with the fence in op_decode's page marking */
	/* Within one page whose byte is clear (no code, no watcher): nothing to do (an atomic's word). */
	if (len && (addr ^ (addr + len - 1)) >> BH_L1_PAGE_SHIFT == 0 &&
	    !atomic_load_explicit(&t->code_pages[addr >> BH_L1_PAGE_SHIFT], memory_order_relaxed))
		return;
	tile_page_check(t, addr, len, w);
}

void bh_tile_l1_written(struct bh_tile *t, uint32_t addr, uint32_t len)
{
	static const struct bh_l1_writer host = { .core = BH_CORES_PER_TILE };
	bh_tile_l1_written_by(t, addr, len, &host);
}

void bh_tile_l1_write(struct bh_tile *t, uint32_t addr, const void *src, uint32_t len)
{
	struct bh_fault f;
	bh_tile_launch_guard_check(t, addr, len, &(struct bh_l1_writer){ .core = BH_CORES_PER_TILE }, &f);
	bh_copy_relaxed(t->l1 + addr, src, len);
	bh_tile_l1_written(t, addr, len);
}

void bh_tile_guard_launch_slots(struct bh_tile *t, const struct bh_launch_guard *g)
{
	t->launch_guard = *g;
}

/* Slot k of the guard: does BRISC own it now (enables, mode, go signal as in fabric/tile.h)? */
static bool launch_slot_owned(struct bh_tile *t, unsigned k, uint32_t *enables, uint8_t *mode)
{
	const struct bh_launch_guard *g = &t->launch_guard;
	uint32_t slot = g->base + k * g->size;
	*enables = bh_mem_ld(t->l1 + slot + g->enables, 4);
	*mode = (uint8_t)bh_mem_ld(t->l1 + slot + g->mode, 1);
	if (!*enables)
		return false;
	if (*mode == 0)
		return true;
	uint32_t idx = bh_mem_ld(t->l1 + g->go_index, 4);
	uint32_t go = g->go_base + 4 * (idx & 0xFF) + 3;
	return go < BH_L1_SIZE && bh_mem_ld(t->l1 + go, 1) == 0x80;
}

/* A check's finding f against the writer w of len bytes: a NoC request's is its initiator's (at the
 * store that issued it), anything else's is recorded against BRISC. True when it stops the
 * initiator (stop mode). */
static bool l1_writer_found(struct bh_tile *t, const struct bh_l1_writer *w, uint32_t len, struct bh_fault *f)
{
	f->has_addr = true;
	f->is_store = true;
	f->size = len;
	const struct bh_noc_txn *x = w->noc;
	if (x && x->who < BH_CORES_PER_TILE) {
		f->pc = x->pc;
		f->insn = x->pc < BH_L1_SIZE && !(x->pc & 3) ? bh_mem_ld(x->init->l1 + x->pc, 4) : 0;
		return bh_check_found(&t->chip->checks, x->init->index, x->who, f);
	}
	f->pc = t->chip->core_pc ? t->chip->core_pc(t, BH_BRISC) : 0;
	bh_check_found(&t->chip->checks, t->index, BH_BRISC, f);
	return false;
}

bool bh_tile_launch_guard_check(struct bh_tile *t, uint32_t addr, uint32_t len, const struct bh_l1_writer *w,
				struct bh_fault *f)
{
	const struct bh_launch_guard *g = &t->launch_guard;
	uint32_t end = g->base + g->count * g->size, enables;
	uint8_t mode;
	if (!g->size || addr >= end || addr + len <= g->base || !bh_checks_on(&t->chip->checks, BH_CHECK_LAUNCH_SLOT_BUSY))
		return false;
	unsigned first = addr > g->base ? (addr - g->base) / g->size : 0;
	unsigned last = (addr + len < end ? addr + len - 1 - g->base : end - 1 - g->base) / g->size;
	for (unsigned k = first; k <= last; k++) {
		if (!launch_slot_owned(t, k, &enables, &mode))
			continue;
		char who[80], other[96];
		bh_l1_writer_describe(w, who, sizeof who);
		snprintf(other, sizeof other, "brisc of (%u,%u), which has not finished launch[%u] (enables 0x%x, mode %s)",
			 t->x, t->y, k, enables, mode ? "HOST" : "DEV");
		bh_check_fill(f, BH_CHECK_LAUNCH_SLOT_BUSY, addr, "L1", other,
			      "%s writes %u bytes at 0x%05x into launch[%u] of (%u,%u) while BRISC owns it: reuse a slot only "
			      "after BRISC cleared its enables (DEV) or reported DONE (HOST)", who, len, addr, k, t->x, t->y);
		return l1_writer_found(t, w, len, f);
	}
	return false;
}

/* A configured CB FIFO in one of the 4 KiB L1 pages [addr, addr + len) covers (BH_PAGE_CB, set only
 * while cb-ownership is on): the cheap test before the page-by-page judgement. */
static bool cb_pages_in(struct bh_tile *t, uint32_t addr, uint32_t len)
{
	for (uint32_t p = addr >> BH_L1_PAGE_SHIFT; len && p <= (addr + len - 1) >> BH_L1_PAGE_SHIFT; p++)
		if (atomic_load_explicit(&t->code_pages[p], memory_order_relaxed) & BH_PAGE_CB)
			return true;
	return false;
}

bool bh_tile_cb_guard_check(struct bh_tile *t, uint32_t addr, uint32_t len, const struct bh_l1_writer *w,
			    struct bh_fault *f)
{
	struct bh_cb_page pg;
	if (!bh_checks_on(&t->chip->checks, BH_CHECK_CB_OWNERSHIP))
		return false;
	if (!cb_pages_in(t, addr, len))
		return false;
	/* A read its own tile's core issued, filling a free slot before the first push: that core is
	 * the producer at work (bh_stream_cb_read_check). */
	if (w->noc && w->noc->init == t)
		bh_stream_cb_filled(t, addr, len, w->noc->who);
	/* Every page the write covers is judged, not only its first byte's. */
	if (!bh_stream_cb_page_in(t, addr, len, true, &pg))
		return false;
	char who[80], region[64], other[160];
	bh_l1_writer_describe(w, who, sizeof who);
	bh_check_fill(f, BH_CHECK_CB_OWNERSHIP, addr, bh_stream_cb_page_region(&pg, region, sizeof region),
		      bh_stream_cb_page_party(&pg, other, sizeof other),
		      "%s lands %u bytes at 0x%05x%s in CB%u page 0x%x of (%u,%u), which is published and the consumer "
		      "still holds: a NoC read into a CB page must complete (noc_async_read_barrier) before "
		      "cb_push_back, and a write may fill only pages the producer reserved",
		      who, len, addr, pg.addr > addr ? ", some of them" : "", pg.cb, pg.seq, t->x, t->y);
	return l1_writer_found(t, w, len, f);
}

bool bh_tile_cb_source_check(struct bh_access *a, const struct bh_noc_txn *x)
{
	struct bh_tile *t = a->tile;
	struct bh_fault f;
	if (x->op != BH_NOC_OP_WRITE || x->src.kind != BH_NOC_SIDE_L1 || x->src.tile != t || !x->len ||
	    !bh_checks_on(&t->chip->checks, BH_CHECK_CB_OWNERSHIP))
		return true;
	if (!cb_pages_in(t, x->src.addr, x->len) || !bh_stream_cb_read_check(t, a->who, x->src.addr, x->len, a->fault->pc, true, &f) ||
	    !bh_check_found(&t->chip->checks, t->index, a->who, &f))
		return true;
	*a->fault = f;
	return false;
}

void bh_tile_l1_read(struct bh_tile *t, uint32_t addr, void *dst, uint32_t len)
{
	bh_copy_relaxed(dst, t->l1 + addr, len);
}

void bh_tile_ldm_write(struct bh_tile *t, enum bh_core_kind k, uint32_t off, const void *src, uint32_t len)
{
	bh_copy_relaxed(t->ldm[k] + off, src, len);
}

void bh_tile_ldm_read(struct bh_tile *t, enum bh_core_kind k, uint32_t off, void *dst, uint32_t len)
{
	bh_copy_relaxed(dst, t->ldm[k] + off, len);
}

/* Local data RAM windows. The fast window is the requester's own RAM (aligned accesses never
 * get here: the interpreter serves them inline). */
bool bh_ldm_fast_read(struct bh_access *a, uint32_t *val)
{
	*val = bh_mem_ld(a->tile->ldm[a->who] + (a->addr - BH_LDM_BASE), a->size);
	return true;
}

bool bh_ldm_fast_write(struct bh_access *a, uint32_t val)
{
	bh_mem_st(a->tile->ldm[a->who] + (a->addr - BH_LDM_BASE), a->size, val);
	return true;
}

/* Others write a core's own RAM only through its slow-path window, which announces the write. */
uint32_t bh_ldm_watch(unsigned who, uint32_t addr)
{
	return who < BH_CORES_PER_TILE ? BH_LDM_SLOW_BASE + 0x2000u * who + (addr - BH_LDM_BASE) : BH_WATCH_NONE;
}

const char *bh_ldm_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n)
{
	snprintf(buf, n, "local RAM 0x%08x", addr);
	return buf;
}

/* ldm-zeroing (races.md 8): someone other than core k reaches k's local RAM while the zeroing
 * after k's release may still run: 2048 cycles of the wall clock, and in bhemu until k's thread
 * has zeroed it (it does when the core starts, so an access before that reads what was there
 * before the reset, as one during the hardware's zeroing may). A core is stopped at its access
 * (stop mode); the host and the NoC have no core here to blame, so theirs is logged against k. */
static bool ldm_zeroing_check(struct bh_access *a, enum bh_core_kind k, uint32_t off)
{
	struct bh_tile *t = a->tile;
	if (a->who == (unsigned)k || !bh_checks_on(&t->chip->checks, BH_CHECK_LDM_ZEROING))
		return true;
	uint64_t from = atomic_load_explicit(&t->ldm_zeroing_from[k], memory_order_acquire), now;
	if (!from)
		return true;
	now = bh_wallclock_ticks();
	if (now - from >= BH_LDM_ZEROING_CYCLES && atomic_load_explicit(&t->ldm_zeroed[k], memory_order_acquire)) {
		atomic_compare_exchange_strong_explicit(&t->ldm_zeroing_from[k], &from, 0, memory_order_relaxed,
							memory_order_relaxed);   /* over: no clock reads from now on */
		return true;
	}
	const char *by = a->who < BH_CORES_PER_TILE ? bh_core_kind_name((enum bh_core_kind)a->who) : "the host or the NoC";
	char other[64];
	snprintf(other, sizeof other, "%s, released from reset %llu cycles before", bh_core_kind_name(k),
		 (unsigned long long)(now - from));
	if (a->who < BH_CORES_PER_TILE)
		return bh_check_access(a, BH_CHECK_LDM_ZEROING, other,
				       "%s reaches offset 0x%x of %s's local RAM while its zeroing after the release from "
				       "reset may still run (up to %u cycles; in bhemu until the core has started): wait %u "
				       "cycles after the release", by, off, bh_core_kind_name(k), BH_LDM_ZEROING_CYCLES,
				       BH_LDM_ZEROING_CYCLES);
	struct bh_fault f;
	bh_check_fill(&f, BH_CHECK_LDM_ZEROING, a->addr, a->region ? a->region->name : NULL, "the host or the NoC",
		      "%s's local RAM (offset 0x%x) reached from outside the tile %llu cycles after its release, while "
		      "its zeroing may still run (up to %u cycles; in bhemu until the core has started)", bh_core_kind_name(k),
		      off, (unsigned long long)(now - from), BH_LDM_ZEROING_CYCLES);
	f.pc = t->chip->core_pc ? t->chip->core_pc(t, k) : 0;
	f.has_addr = true;
	f.size = a->size;
	bh_check_found(&t->chip->checks, t->index, k, &f);
	return true;
}

/* Slow-path windows: 8 KiB slots in the order B, NC, T0, T1, T2. */
static bool ldm_slow_locate(struct bh_access *a, uint8_t **p)
{
	static const enum bh_core_kind slot_core[5] = { BH_BRISC, BH_NCRISC, BH_TRISC0, BH_TRISC1, BH_TRISC2 };
	enum bh_core_kind k = slot_core[a->off >> 13];
	uint32_t off = a->off & 0x1fff;
	if (off >= bh_ldm_size(k))
		return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, "local data RAM slow-path window",
				     "offset 0x%x of the %s slot is past its 4 KiB local RAM (aliasing of the upper half is unverified)",
				     off, bh_core_kind_name(k));
	if (!ldm_zeroing_check(a, k, off))
		return false;
	*p = a->tile->ldm[k] + off;
	return true;
}

bool bh_ldm_slow_read(struct bh_access *a, uint32_t *val)
{
	uint8_t *p = NULL;
	if (!ldm_slow_locate(a, &p))
		return false;
	*val = bh_mem_ld(p, a->size);
	return true;
}

bool bh_ldm_slow_write(struct bh_access *a, uint32_t val)
{
	uint8_t *p = NULL;
	if (!ldm_slow_locate(a, &p))
		return false;
	bh_mem_st(p, a->size, val);
	bh_tile_mmio_written(a->tile, a->addr);   /* a core may poll its own RAM for this */
	return true;
}
