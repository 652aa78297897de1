/* In-flight NoC ranges (races.md #10, #18, #19): which L1 bytes of a tile an asynchronous NoC
 * transaction still reads (a write's source until it leaves) or still lands in (a read's return
 * buffer, a write's destination at each receiver, until its data is there), for the checks
 * noc-inflight (stores, and NoC requests at their CMD_CTRL store) and noc-inflight-load (loads).
 *
 * Each such range is a span, registered by the NoC engine at submit and removed when its phase
 * runs. A tile keeps its spans in a list under its own lock; while a listed span touches a 4 KiB
 * page, the page's byte in tile->code_pages has BH_PAGE_INFLIGHT, set under that lock when the span
 * is listed (the other bits of the byte change by atomic read-modify-writes of their own owners).
 * When the span goes the bit stays (stale) until an access meets it: a core's store already
 * leaves the fast path when the byte is non-zero, and on that slow path it looks up the spans
 * under the lock and clears a stale bit. Nothing is registered when neither check is on.
 *
 * Only NoC requests put spans in flight: the host's accesses, and the fast-dispatch models' NoC
 * requests (native C, completed at their issue), are neither judged nor ever in flight. */
#ifndef BH_FABRIC_INFLIGHT_H
#define BH_FABRIC_INFLIGHT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabric/hw.h"
#include "fabric/lock.h"

struct bh_access;
struct bh_chip;
struct bh_fault;
struct bh_noc_txn;
struct bh_tile;

#define BH_PAGE_CODE_MASK 0x1Fu   /* bits of tile->code_pages[page]: the cores' decoded code */
#define BH_PAGE_INFLIGHT 0x40u    /* ... a NoC transaction in flight touches the page */

enum bh_span_role {
	BH_SPAN_SOURCE,           /* a write's source, not read yet */
	BH_SPAN_DEST,             /* where a read's or write's data lands, not landed yet */
};

struct bh_inflight_span {
	struct bh_inflight_span *prev, *next;   /* in tile->inflight.head (under its lock) */
	struct bh_tile *tile;                   /* NULL: nothing to register (not L1) */
	uint32_t lo, hi;                        /* L1 [lo, hi) */
	uint8_t role;                           /* enum bh_span_role */
	bool listed;
	const struct bh_noc_txn *txn;           /* the transaction, alive while the span is listed */
	unsigned who;                           /* who issued it (enum bh_core_kind, BH_REQ_HOST) */
	uint32_t pc;                            /* of its CMD_CTRL store */
};

struct bh_inflight_set {
	struct bh_lock lock;
	struct bh_inflight_span *head;
	_Atomic uint32_t listed;                /* spans in the list: stored under lock, read without */
};

void bh_inflight_init(struct bh_inflight_set *s);
void bh_inflight_destroy(struct bh_inflight_set *s);

/* Whether the chip's checks want spans at all. */
bool bh_inflight_wanted(const struct bh_chip *chip);
/* The spans of transaction x (issued by `who` at pc): out[0] its source, out[1 + k] its
 * destination at receiver k (bh_noc_next_receiver order). out has 1 + receivers entries. */
void bh_inflight_spans(const struct bh_noc_txn *x, unsigned who, uint32_t pc, struct bh_inflight_span *out,
		       unsigned n);
/* List a span on its tile (nothing when its tile is NULL), or take it off (nothing when it is not
 * listed). Any thread; the removals of one span are ordered by their caller. */
void bh_inflight_add(struct bh_inflight_span *s);
void bh_inflight_remove(struct bh_inflight_span *s);

/* Whether a span still touches L1 page `page` of t; when none does, the page's BH_PAGE_INFLIGHT
 * bit (possibly stale) is cleared. Any thread. */
bool bh_inflight_page_busy(struct bh_tile *t, uint32_t page);
/* A core's L1 store (size bytes at addr, at pc) hit a page with BH_PAGE_INFLIGHT: a finding of
 * noc-inflight when it overlaps a span. Returns false with *f filled in stop mode. */
bool bh_inflight_store(struct bh_tile *t, unsigned who, uint32_t addr, unsigned size, uint32_t pc,
		       struct bh_fault *f);
/* The same for a load: noc-inflight-load when it overlaps a destination not landed yet. */
bool bh_inflight_load(struct bh_tile *t, unsigned who, uint32_t addr, unsigned size, uint32_t pc,
		      struct bh_fault *f);
/* At a core's CMD_CTRL store (a) issuing x: its source or a destination overlapping another
 * in-flight transaction's destination is a finding of noc-inflight. False: a->fault (stop mode). */
bool bh_inflight_check_issue(struct bh_access *a, const struct bh_noc_txn *x);

#endif
