/* In-flight NoC ranges and the checks noc-inflight and noc-inflight-load (fabric/inflight.h). */
#include <stdio.h>
#include <string.h>

#include "fabric/chip.h"
#include "fabric/check.h"
#include "fabric/inflight.h"
#include "fabric/mmio.h"
#include "fabric/noc.h"
#include "fabric/tile.h"

void bh_inflight_init(struct bh_inflight_set *s)
{
	memset(s, 0, sizeof *s);
	bh_lock_init(&s->lock);
}

void bh_inflight_destroy(struct bh_inflight_set *s)
{
	(void)s;   /* a struct bh_lock holds nothing to release */
}

bool bh_inflight_wanted(const struct bh_chip *chip)
{
	return bh_checks_on(&chip->checks, BH_CHECK_NOC_INFLIGHT) || bh_checks_on(&chip->checks, BH_CHECK_NOC_INFLIGHT_LOAD);
}

/* The L1 bytes a side of x touches, or false (not L1). A byte-enable write touches the 16-byte
 * aligned block up to its last enabled byte. */
static bool side_l1(const struct bh_noc_txn *x, const struct bh_noc_side *sd, uint32_t *lo, uint32_t *hi)
{
	if (sd->kind != BH_NOC_SIDE_L1)
		return false;
	*lo = sd->addr;
	*hi = sd->addr + (x->op == BH_NOC_OP_WRITE_BE ? 64u - (unsigned)__builtin_clzll(x->be | 1) : x->len);
	return *hi > *lo;
}

void bh_inflight_spans(const struct bh_noc_txn *x, unsigned who, uint32_t pc, struct bh_inflight_span *out,
		       unsigned n)
{
	bool data = x->op == BH_NOC_OP_READ || x->op == BH_NOC_OP_WRITE || x->op == BH_NOC_OP_WRITE_BE;
	for (unsigned k = 0; k < n; k++)
		out[k] = (struct bh_inflight_span){ .role = k ? BH_SPAN_DEST : BH_SPAN_SOURCE, .txn = x, .who = who, .pc = pc };
	/* Inline writes and atomics carry no L1 buffer; a read's source is read where it is. */
	if (!data)
		return;
	if (x->op != BH_NOC_OP_READ && n && side_l1(x, &x->src, &out[0].lo, &out[0].hi))
		out[0].tile = x->src.tile;
	unsigned it = 0;
	struct bh_noc_side d;
	for (unsigned k = 1; k < n && bh_noc_next_receiver(x, &it, &d); k++)
		if (side_l1(x, &d, &out[k].lo, &out[k].hi))
			out[k].tile = d.tile;
}

/* Mark the pages span s touches (caller holds the set's lock). A page's bit is set when a span
 * touching it is listed and left set when the span goes: no count per page, so listing and
 * unlisting a span costs no walk of its pages but this one. The accesses that meet a stale bit
 * clear it (bh_inflight_page_busy looks at the listed spans), so a buffer the NoC moves again and
 * again costs no atomic read-modify-write per page and transfer. */
static void span_mark_pages(struct bh_tile *t, const struct bh_inflight_span *s)
{
	for (uint32_t p = s->lo >> BH_L1_PAGE_SHIFT; p <= (s->hi - 1) >> BH_L1_PAGE_SHIFT; p++)
		if (!(atomic_load_explicit(&t->code_pages[p], memory_order_relaxed) & BH_PAGE_INFLIGHT))
			atomic_fetch_or_explicit(&t->code_pages[p], BH_PAGE_INFLIGHT, memory_order_relaxed);
}

/* Caller holds the set's lock: whether a listed span touches the page; when none does, the
 * page's bit is cleared. */
static bool page_busy_locked(struct bh_tile *t, uint32_t page)
{
	uint32_t lo = page << BH_L1_PAGE_SHIFT, hi = lo + (1u << BH_L1_PAGE_SHIFT);
	for (const struct bh_inflight_span *s = t->inflight.head; s; s = s->next)
		if (s->lo < hi && lo < s->hi)
			return true;
	atomic_fetch_and_explicit(&t->code_pages[page], (uint8_t)~BH_PAGE_INFLIGHT, memory_order_relaxed);
	return false;
}

bool bh_inflight_page_busy(struct bh_tile *t, uint32_t page)
{
	bh_lock(&t->inflight.lock);
	bool busy = page_busy_locked(t, page);
	bh_unlock(&t->inflight.lock);
	return busy;
}

void bh_inflight_add(struct bh_inflight_span *s)
{
	struct bh_tile *t = s->tile;
	if (!t)
		return;
	struct bh_inflight_set *set = &t->inflight;
	bh_lock(&set->lock);
	s->prev = NULL;
	s->next = set->head;
	if (set->head)
		set->head->prev = s;
	set->head = s;
	s->listed = true;
	atomic_store_explicit(&set->listed, atomic_load_explicit(&set->listed, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	span_mark_pages(t, s);
	bh_unlock(&set->lock);
}

void bh_inflight_remove(struct bh_inflight_span *s)
{
	struct bh_tile *t = s->tile;
	/* Only the span's own phase and then its flight's release take it off, one after the other
	 * (the flight's pending count orders them): `listed` needs no lock to be read here. */
	if (!t || !s->listed)
		return;
	struct bh_inflight_set *set = &t->inflight;
	bh_lock(&set->lock);
	if (s->listed) {
		if (s->prev)
			s->prev->next = s->next;
		else
			set->head = s->next;
		if (s->next)
			s->next->prev = s->prev;
		s->listed = false;
		atomic_store_explicit(&set->listed, atomic_load_explicit(&set->listed, memory_order_relaxed) - 1,
				      memory_order_relaxed);
	}
	bh_unlock(&set->lock);
}

/* ------------------------------------------------------------------------------- reports */

static const char *txn_kind(const struct bh_noc_txn *x)
{
	switch (x->op) {
	case BH_NOC_OP_READ:
		return "read";
	case BH_NOC_OP_WRITE_BE:
		return "byte-enable write";
	default:
		return x->mcast ? "multicast write" : "write";
	}
}

/* "L1 [0x00020000, 0x00020040) of (1,2)"; a multicast destination without a receiver: of every
 * tile of the rectangle. */
static void side_str(const struct bh_noc_txn *x, const struct bh_noc_side *sd, const struct bh_tile *recv, char *buf,
		     size_t n)
{
	uint32_t lo, hi;
	if (side_l1(x, sd, &lo, &hi)) {
		const struct bh_tile *t = recv ? recv : sd->tile;
		if (t)
			snprintf(buf, n, "L1 [0x%08x, 0x%08x) of (%u,%u)", lo, hi, t->x, t->y);
		else
			snprintf(buf, n, "L1 [0x%08x, 0x%08x) of each tile of the multicast", lo, hi);
	} else if (sd->kind == BH_NOC_SIDE_MMIO) {
		snprintf(buf, n, "register 0x%08x of (%u,%u)", sd->addr, sd->tile->x, sd->tile->y);
	} else {
		snprintf(buf, n, "DRAM or host memory 0x%08x", sd->addr);
	}
}

/* The other party: the transaction of span s, who issued it, and the phase it is in. */
static void span_describe(const struct bh_inflight_span *s, char *buf, size_t n)
{
	const struct bh_noc_txn *x = s->txn;
	char src[96], dst[96];
	side_str(x, &x->src, NULL, src, sizeof src);
	side_str(x, &x->dst, s->role == BH_SPAN_DEST ? s->tile : NULL, dst, sizeof dst);
	snprintf(buf, n, "NoC%u %s of %u bytes from %s to %s, command buffer %u, issued by tile %u (%u,%u) %s at pc "
		 "0x%08x (CMD_CTRL): %s", x->noc, txn_kind(x), x->op == BH_NOC_OP_WRITE_BE ? 64u : x->len, src, dst, x->buf,
		 x->init->index, x->init->x, x->init->y, bh_requester_name(s->who), s->pc,
		 s->role == BH_SPAN_SOURCE ? "its source not read yet" : "not landed yet");
}

static bool overlaps(const struct bh_inflight_span *s, uint32_t lo, uint32_t hi)
{
	return s->lo < hi && lo < s->hi;
}

/* A core's access at addr overlapping a span (a store: any; a load: destinations): report it. */
static bool core_access(struct bh_tile *t, enum bh_check id, unsigned who, uint32_t addr, unsigned size, uint32_t pc,
			bool store, struct bh_fault *f)
{
	if (!bh_checks_on(&t->chip->checks, id) || who >= BH_CORES_PER_TILE) {
		bh_inflight_page_busy(t, addr >> BH_L1_PAGE_SHIFT);
		return true;
	}
	char other[384];
	struct bh_fault found;
	const struct bh_inflight_span *hit = NULL;
	bool read = false;
	bh_lock(&t->inflight.lock);
	if (page_busy_locked(t, addr >> BH_L1_PAGE_SHIFT))
		for (const struct bh_inflight_span *s = t->inflight.head; s && !hit; s = s->next)
			if (overlaps(s, addr, addr + size) && (store || s->role == BH_SPAN_DEST))
				hit = s;
	if (hit) {
		span_describe(hit, other, sizeof other);
		read = hit->txn->op == BH_NOC_OP_READ;
	}
	enum bh_span_role role = hit ? (enum bh_span_role)hit->role : BH_SPAN_DEST;
	bh_unlock(&t->inflight.lock);
	if (!hit)
		return true;
	if (role == BH_SPAN_SOURCE)
		bh_check_fill(&found, id, addr, "L1", other,
			      "store into the source of a NoC write still in flight: the write reads its source when it "
			      "leaves and may send this store's bytes (noc_async_writes_flushed before reusing the buffer)");
	else if (store)
		bh_check_fill(&found, id, addr, "L1", other,
			      "store into the destination of a NoC %s still in flight: its data lands over this store%s", 
			      read ? "read" : "write",
			      read ? " (noc_async_read_barrier first)" : " (write after write: which lands last is a race)");
	else
		bh_check_fill(&found, id, addr, "L1", other,
			      "load from the destination of a NoC %s whose data has not landed yet%s", read ? "read" : "write",
			      read ? " (noc_async_read_barrier first)"
				   : " (the writer signals only after its write barrier, or on the same static VC)");
	found.pc = pc;
	found.insn = pc < BH_L1_SIZE && !(pc & 3) ? bh_mem_ld(t->l1 + pc, 4) : 0;
	found.has_addr = true;
	found.is_store = store;
	found.size = (uint8_t)size;
	if (!bh_check_found(&t->chip->checks, t->index, who, &found))
		return true;
	*f = found;
	return false;
}

bool bh_inflight_store(struct bh_tile *t, unsigned who, uint32_t addr, unsigned size, uint32_t pc, struct bh_fault *f)
{
	return core_access(t, BH_CHECK_NOC_INFLIGHT, who, addr, size, pc, true, f);
}

bool bh_inflight_load(struct bh_tile *t, unsigned who, uint32_t addr, unsigned size, uint32_t pc, struct bh_fault *f)
{
	return core_access(t, BH_CHECK_NOC_INFLIGHT_LOAD, who, addr, size, pc, false, f);
}

/* Two transactions of one initiator on one static VC of one NoC land in issue order: the later
 * one's bytes win, as the program meant. */
static bool ordered(const struct bh_noc_txn *a, const struct bh_noc_txn *b)
{
	return a->init == b->init && a->noc == b->noc && a->vc_static && b->vc_static && a->vc == b->vc;
}

/* The first in-flight destination on span n's tile that n overlaps (a destination: unless both
 * land in order). Caller holds the tile's lock. */
static const struct bh_inflight_span *issue_hit(const struct bh_inflight_span *n)
{
	for (const struct bh_inflight_span *s = n->tile->inflight.head; s; s = s->next)
		if (s->role == BH_SPAN_DEST && overlaps(s, n->lo, n->hi) &&
		    !(n->role == BH_SPAN_DEST && ordered(s->txn, n->txn)))
			return s;
	return NULL;
}

bool bh_inflight_check_issue(struct bh_access *a, const struct bh_noc_txn *x)
{
	if (a->who >= BH_CORES_PER_TILE || !bh_checks_on(&a->tile->chip->checks, BH_CHECK_NOC_INFLIGHT))
		return true;
	if (x->op != BH_NOC_OP_READ && x->op != BH_NOC_OP_WRITE && x->op != BH_NOC_OP_WRITE_BE)
		return true;
	/* The new request's own ranges, one at a time: its source (a read's too: it is read at the
	 * target), then each receiver's destination. Checked before the request is listed: two
	 * requests issued at the same instant may miss each other, never flag a correct pair. */
	struct bh_inflight_span n = { .txn = x, .who = a->who };
	unsigned it = 0;
	struct bh_noc_side d;
	for (int k = -1; k < 0 || bh_noc_next_receiver(x, &it, &d); k++) {
		const struct bh_noc_side *sd = k < 0 ? &x->src : &d;
		n.role = k < 0 ? BH_SPAN_SOURCE : BH_SPAN_DEST;
		if (!side_l1(x, sd, &n.lo, &n.hi) || !sd->tile)
			continue;
		n.tile = sd->tile;
		/* Nothing listed on that tile: no lock. A span listed meanwhile by another thread is
		 * one issued at the same instant (above); one listed before this request was issued
		 * (by this core, or by one this core synchronised with) is seen. */
		if (!atomic_load_explicit(&n.tile->inflight.listed, memory_order_relaxed))
			continue;
		char other[384], mine[96];
		bh_lock(&n.tile->inflight.lock);
		const struct bh_inflight_span *hit = issue_hit(&n);
		if (hit)
			span_describe(hit, other, sizeof other);
		bh_unlock(&n.tile->inflight.lock);
		if (!hit)
			continue;
		side_str(x, sd, n.tile, mine, sizeof mine);
		return bh_check_access(a, BH_CHECK_NOC_INFLIGHT, other,
				       "NoC%u %s (command buffer %u) whose %s, %s, overlaps the destination of another NoC "
				       "transaction still in flight: %s", x->noc, txn_kind(x), x->buf,
				       n.role == BH_SPAN_SOURCE ? "source" : "destination", mine,
				       n.role == BH_SPAN_SOURCE ? "it reads bytes that have not landed yet (barrier first)"
								: "both land in the same bytes in no fixed order");
	}
	return true;
}
