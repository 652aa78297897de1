/* The devices of a tile: L1, local RAMs, host-side access, the local RAM windows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/chip.h"
#include "fabric/copy.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/park.h"
#include "sync/streams.h"
#include "sync/watch.h"

int bh_tile_init(struct bh_tile *t, struct bh_chip *chip, unsigned index)
{
	memset(t, 0, sizeof *t);
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
	t->streams = bh_stream_create();
	if (!t->streams) {
		bh_tile_destroy(t);
		return -1;
	}
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
		t->ldm[k] = aligned_alloc(64, BH_LDM_SIZE_DM);
		if (!t->ldm[k]) {
			bh_tile_destroy(t);
			return -1;
		}
		memset(t->ldm[k], 0, BH_LDM_SIZE_DM);
	}
	pthread_mutex_init(&t->lock, NULL);
	bh_pcbuf_init(&t->pcbuf);
	bh_mailbox_init(&t->mbox);
	bh_watch_init(&t->watch);
	bh_niu_init(&t->niu[0], 0);
	bh_niu_init(&t->niu[1], 1);
	atomic_store_explicit(&t->soft_reset, BH_SOFT_RESET_INIT, memory_order_relaxed);
	return 0;
}

void bh_tile_destroy(struct bh_tile *t)
{
	if (t->l1) {
		bh_watch_destroy(&t->watch);
		bh_pcbuf_destroy(&t->pcbuf);
		bh_mailbox_destroy(&t->mbox);
		pthread_mutex_destroy(&t->lock);
	}
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		free(t->ldm[k]);
	bh_stream_free(t->streams);
	t->streams = NULL;
	free(t->l1);
	t->l1 = NULL;
}

/* After a host/NoC write: every page it touches that holds decoded code has that code dropped
 * (the hook acts on one page at a time, with the part of the write that falls in it); then the
 * watchers of every page it touches are woken. */
static void tile_page_check(struct bh_tile *t, uint32_t addr, uint32_t len)
{
	void (*hook)(struct bh_tile *, struct bh_core *, uint32_t, uint32_t) = t->chip->code_written;
	if (!len)
		return;
	uint32_t end = addr + len, first = addr >> BH_L1_PAGE_SHIFT, last = (end - 1) >> BH_L1_PAGE_SHIFT;
	bool watched = false;
	for (uint32_t p = first; p <= last; p++) {
		unsigned mask = atomic_load_explicit(&t->code_pages[p], memory_order_relaxed);
		watched |= mask & BH_PAGE_WATCHED;
		if (!(mask & 0x1Fu) || !hook)   /* bits 0-4: cores holding decoded code */
			continue;
		uint32_t lo = p << BH_L1_PAGE_SHIFT, hi = lo + (1u << BH_L1_PAGE_SHIFT);
		hook(t, NULL, addr > lo ? addr : lo, (end < hi ? end : hi) - (addr > lo ? addr : lo));
	}
	if (watched)
		bh_watch_l1_written(t, addr, len);
}

void bh_tile_l1_written(struct bh_tile *t, uint32_t addr, uint32_t len)
{
	atomic_thread_fence(memory_order_seq_cst);   /* pairs with the fence in op_decode's page marking */
	tile_page_check(t, addr, len);
}

void bh_tile_l1_write(struct bh_tile *t, uint32_t addr, const void *src, uint32_t len)
{
	bh_copy_relaxed(t->l1 + addr, src, len);
	bh_tile_l1_written(t, addr, len);
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
