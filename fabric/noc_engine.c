/* The asynchronous NoC (fabric/noc.h): transactions in flight between their NOC_CMD_CTRL store
 * and their completion, each phase an event due at a time drawn from the latency model.
 *
 * Events live in one binary min-heap per chip, ordered by (due, sequence). Whoever is cheapest
 * runs them: the NoC thread of the chip, which sleeps on its waiter until the earliest event is
 * due (no event: it sleeps without a timeout, so a quiet chip costs no CPU), or a core that reads
 * a counter or CMD_CTRL and finds events due (bh_noc_engine_help): it runs them itself instead of
 * waiting for a thread hand-off. One runner at a time (run_lock), in due order, so the order the
 * model chose is the order that happens.
 *
 * Ordering (noc.md 3.2): requests of one initiator NIU on one static virtual channel reach their
 * destinations in issue order: their delivery times never go backwards per (tile, NoC, VC).
 * Requests on other VCs, dynamic VCs, other NoCs or other initiators are unordered: jitter may
 * deliver them in any order, as on silicon. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "fabric/chip.h"
#include "fabric/copy.h"
#include "fabric/inflight.h"
#include "fabric/lock.h"
#include "fabric/niu.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "fabric/wallclock.h"
#include "sync/hooks.h"
#include "sync/park.h"
#include "sync/sched.h"

enum ev_kind {
	EV_ACCEPT,     /* CMD_ACCEPTED, *_SENT; CMD_CTRL returns to 0 */
	EV_DELIVER,    /* data at one receiver */
	EV_RESPOND,    /* one receiver's ack / response at the initiator */
	EV_ALL,        /* a request done in one step: the three above, in that order */
};

struct noc_flight {
	struct bh_noc_txn x;
	unsigned who;              /* the issuing requester (enum bh_core_kind) */
	uint32_t pc;               /* of its CMD_CTRL store */
	/* Events not yet run. Moved by the submitter under e->lock before any of them can be taken,
	 * then by the one runner (run_lock): a load and a store, never at the same time. */
	_Atomic unsigned pending;
	bool failed;               /* a receiver refused: later phases are dropped (runner only) */
	bool one_step;             /* a write that leaves as it lands (set before its events run) */
	uint8_t *snap;             /* a write: its source as read when it left (runner only) */
	/* Its L1 ranges for the in-flight checks (fabric/inflight.h), or NULL when no check wants
	 * them: [0] the source until read, [1 + slot] each receiver's destination until landed. */
	struct bh_inflight_span *spans;
	unsigned nspans;
	/* A pooled flight (one receiver) carries room for its spans and a packet of write data, and
	 * goes back to e->pool when done: no allocation per transaction. NULL: a one-off. */
	struct bh_inflight_span *spans_room;
	uint8_t *snap_room;
	struct noc_flight *next_free;   /* in e->pool (under e->lock) */
	uint32_t old[];            /* atomic: result per receiver slot (runner only) */
};

/* Events a runner takes off the heap at once. */
#define RUN_BATCH_MAX 16u

struct noc_event {
	uint64_t due, seq;
	struct noc_flight *fl;
	uint8_t kind;
	uint16_t recv;             /* receiver tile index (multicast) */
	uint32_t slot;             /* index of this receiver among the transaction's receivers */
};

struct bh_noc_engine {
	struct bh_chip *chip;
	struct bh_noc_latency lat;
	struct bh_lock lock;       /* the heap, seq, rng, last_due, pool */
	struct noc_event *heap;
	unsigned n, cap;
	uint64_t seq;
	uint64_t rng;
	uint64_t *last_due;        /* [tile][noc][vc]: latest delivery of a static VC */
	struct noc_flight *pool;   /* finished pooled flights, for reuse */
	unsigned npool;
	_Atomic uint64_t earliest; /* due of the heap's top, UINT64_MAX when empty (helpers' check) */
	_Atomic uint64_t deadline; /* when the NoC thread looks next (UINT64_MAX: when woken) */
	_Atomic uint32_t tick;     /* the NoC thread's current tick (TICK_MIN_NS..TICK_MAX_NS) */
	_Atomic uint64_t last_submit;   /* bh_time_ns() of a recent submit (relaxed: any value is past) */
	/* Transactions submitted (under e->lock) and finished (by the runner, under run_lock): each
	 * written by one lock's holder, so no locked instruction; in flight = their difference. */
	_Atomic uint64_t submitted, finished;
	_Atomic uint64_t delivered;
	_Atomic uint64_t st_thread, st_wakes, st_help_calls;   /* statistics (BHEMU_NOC_STATS) */
	_Atomic uint64_t st_one_step, st_all_in_one;
	bool at_issue_fits;        /* an atomic's longest round trip fits in ONE_STEP_NS (bh_noc_at_issue) */
	struct bh_lock run_lock;   /* one runner at a time */
	/* Pooled flights the runner finished after its last look at the heap, for the pool at its
	 * next (under run_lock): a runner that found less than a batch due returns without taking
	 * e->lock again. */
	struct noc_flight *run_done[RUN_BATCH_MAX];
	unsigned nrun_done;
	struct bh_waiter waiter;   /* the NoC thread parks here; an actor for deadlock detection */
	_Atomic bool stop;
	pthread_t thread;
	bool started;
};

/* splitmix64: the engine's one stream of random numbers, drawn under its lock in issue order. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t jitter(struct bh_noc_engine *e)
{
	return e->lat.jitter_ns ? rng_next(&e->rng) % ((uint64_t)e->lat.jitter_ns + 1) : 0;
}

/* ---------------------------------------------------------------------------------- heap */

static bool ev_before(const struct noc_event *a, const struct noc_event *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static void heap_up(struct noc_event *h, unsigned k)
{
	while (k) {
		unsigned p = (k - 1) / 2;
		if (!ev_before(&h[k], &h[p]))
			break;
		struct noc_event t = h[k];
		h[k] = h[p];
		h[p] = t;
		k = p;
	}
}

static void heap_down(struct noc_event *h, unsigned n, unsigned k)
{
	for (;;) {
		unsigned l = 2 * k + 1, r = l + 1, m = k;
		if (l < n && ev_before(&h[l], &h[m]))
			m = l;
		if (r < n && ev_before(&h[r], &h[m]))
			m = r;
		if (m == k)
			return;
		struct noc_event t = h[k];
		h[k] = h[m];
		h[m] = t;
		k = m;
	}
}

/* Under e->lock: ev into the heap as it is. False: out of memory. */
static bool heap_insert(struct bh_noc_engine *e, const struct noc_event *ev)
{
	if (e->n == e->cap) {
		unsigned cap = e->cap ? 2 * e->cap : 256;
		struct noc_event *h = realloc(e->heap, (size_t)cap * sizeof *h);
		if (!h)
			return false;
		e->heap = h;
		e->cap = cap;
	}
	e->heap[e->n] = *ev;
	heap_up(e->heap, e->n++);
	return true;
}

/* Under e->lock: a new event of its flight, after every event already pushed at its due time. */
static bool heap_push(struct bh_noc_engine *e, struct noc_event ev)
{
	ev.seq = e->seq++;
	if (!heap_insert(e, &ev))
		return false;
	atomic_store_explicit(&ev.fl->pending, atomic_load_explicit(&ev.fl->pending, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	return true;
}

/* One more on a counter that only the holder of one lock writes (e->lock or run_lock; others
 * only read it): a load and a store, no locked instruction on the path of every request. Release:
 * a reader that sees it move sees what came before. */
static void count_held(_Atomic uint64_t *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_release);
}

/* Under e->lock: take the earliest event. */
static struct noc_event heap_pop(struct bh_noc_engine *e)
{
	struct noc_event ev = e->heap[0];
	e->heap[0] = e->heap[--e->n];
	heap_down(e->heap, e->n, 0);
	return ev;
}

/* Under e->lock. A submitter's store is seq_cst: it pairs with the NoC thread's store of its
 * deadline and load of earliest (the submitter then reads the deadline). The runner's is a
 * release: it only takes events off or puts back what it runs itself, and no one needs waking
 * for that (a locked instruction less per batch). */
static void publish_earliest(struct bh_noc_engine *e, bool submitter)
{
	uint64_t v = e->n ? e->heap[0].due : UINT64_MAX;
	if (atomic_load_explicit(&e->earliest, memory_order_relaxed) == v)   /* the store is a fence: skip it when unchanged */
		return;
	if (submitter)
		atomic_store_explicit(&e->earliest, v, memory_order_seq_cst);
	else
		atomic_store_explicit(&e->earliest, v, memory_order_release);
}

/* The NoC thread runs an event this long after it is due: until then a core at a barrier may
 * run it itself (bh_noc_engine_help) without a thread hand-off. It is woken only when a new
 * event would otherwise wait longer than that: once per burst, not per transaction. */
#define THREAD_GRACE_NS 20000u
/* While requests keep coming (the last within IDLE_AFTER_NS), the NoC thread also looks every
 * tick when nothing is in flight, and submitters do not wake it: a core issuing one request at a
 * time and finishing each at its barrier costs no thread hand-off at all. The tick starts at
 * TICK_MIN_NS and doubles up to TICK_MAX_NS each time the thread finds that the cores ran
 * everything themselves (they poll their barriers), so a busy NoC does not cost the thread
 * 50,000 wake-ups a second; it drops back when the thread has work. A core about to park nudges
 * the thread (bh_noc_engine_nudge) when events wait, so a waiter never waits for a long tick.
 * After IDLE_AFTER_NS without a request the thread sleeps until woken: a quiet chip costs no CPU. */
#define TICK_MIN_NS 20000u
#define TICK_MAX_NS 1000000u
#define IDLE_AFTER_NS 10000000u

/* ---------------------------------------------------------------------------------- timing */

/* Hops between two translated coordinates on a torus of 17 x 12 (noc.md 2): NoC0 goes east and
 * south, NoC1 west and north. */
static unsigned hops(unsigned noc, unsigned x0, unsigned y0, unsigned x1, unsigned y1)
{
	unsigned dx = noc ? (x0 + 17 - x1) % 17 : (x1 + 17 - x0) % 17;
	unsigned dy = noc ? (y0 + 12 - y1) % 12 : (y1 + 12 - y0) % 12;
	return dx + dy;
}

static uint64_t travel(struct bh_noc_engine *e, const struct bh_noc_txn *x, const struct bh_tile *to, uint32_t bytes)
{
	unsigned h = to ? hops(x->noc, x->init->x, x->init->y, to->x, to->y) : 4;
	return e->lat.base_ns + (uint64_t)e->lat.hop_ns * h + (uint64_t)e->lat.byte_ps * bytes / 1000 + jitter(e);
}

/* The static VC of a request, or -1 (dynamic: unordered). */
static int static_vc(const struct bh_noc_txn *x)
{
	return x->vc_static ? (int)x->vc : -1;
}

/* ---------------------------------------------------------------------------------- submit */

static unsigned receivers(const struct bh_noc_txn *x)
{
	if (!x->mcast)
		return 1;   /* a unicast: its destination */
	unsigned it = 0, n = 0;
	struct bh_noc_side d;
	while (bh_noc_next_receiver(x, &it, &d))
		n++;
	return n;
}

/* A pooled flight's room: its one result word, two spans, one packet of write data. */
#define POOL_SNAP 16384u          /* NOC_MAX_BURST_SIZE: what tt-metal's dataflow API sends at most */
#define POOL_MAX 64u              /* finished flights kept per chip (about 1 MiB) */

static size_t pool_spans_at(void)
{
	size_t a = _Alignof(struct bh_inflight_span);
	return (sizeof(struct noc_flight) + sizeof(uint32_t) + a - 1) / a * a;
}

/* A flight for a transaction with nrecv receivers, zeroed but for its rooms and its transaction
 * (the caller sets x whole): from the pool when one receiver (under e->lock), else allocated for
 * it alone. NULL: out of memory. */
static struct noc_flight *flight_get(struct bh_noc_engine *e, unsigned nrecv)
{
	struct noc_flight *fl = NULL;
	if (nrecv > 1)
		return calloc(1, sizeof *fl + (size_t)nrecv * sizeof fl->old[0]);
	if ((fl = e->pool) != NULL) {
		e->pool = fl->next_free;
		e->npool--;
	} else {
		size_t at = pool_spans_at(), snap_at = at + 2 * sizeof(struct bh_inflight_span);
		uint8_t *m = malloc(snap_at + POOL_SNAP);
		if (!m)
			return NULL;
		fl = (struct noc_flight *)m;
		fl->spans_room = (struct bh_inflight_span *)(m + at);
		fl->snap_room = m + snap_at;
	}
	/* Field by field: a block zeroing of the whole record (the transaction's 200-odd bytes, which
	 * the caller overwrites) was a microcoded string store on every request. */
	fl->who = fl->pc = fl->nspans = fl->old[0] = 0;
	atomic_store_explicit(&fl->pending, 0, memory_order_relaxed);
	fl->failed = fl->one_step = false;
	fl->snap = NULL;
	fl->spans = NULL;
	fl->next_free = NULL;
	return fl;
}

/* Under e->lock: finished pooled flights back into the pool (beyond POOL_MAX, freed). */
static void pool_put(struct bh_noc_engine *e, struct noc_flight **done, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		if (e->npool >= POOL_MAX) {
			free(done[k]);
			continue;
		}
		done[k]->next_free = e->pool;
		e->pool = done[k];
		e->npool++;
	}
}

/* A unicast write whose data would land within ONE_STEP_NS of its acceptance leaves as it lands:
 * its source is read as it is copied into the destination, in one step, and *_SENT and
 * WRITE_REQS_OUTGOING move then (noc.md 3.4 allows the gap between leaving and landing to be any
 * length; *_SENT only has to come before the ack). Until then the source counts as not yet left
 * (noc-inflight judges stores into it, noc_async_writes_flushed waits). A gap that short is below
 * what a barrier resolves anyway (it runs events HELP_AHEAD_NS ahead), and it saves a copy of
 * the data. A longer gap (the slow preset, long jitter) keeps the two phases: the source is read
 * into a snapshot when the write leaves and lands from it later, so a flushed-instead-of-barrier
 * bug shows. Multicasts, register sources and a write overlapping its own source keep them too. */
#define ONE_STEP_NS 5000u

/* A unicast request whose whole round trip (acceptance to response) fits in ONE_STEP_NS is one
 * event at its delivery time, which accepts it, delivers it and answers it in noc.md's order
 * (CMD_CTRL to 0 and *_STARTED, the data or the atomic, *_SENT of a one-step write, the ack or
 * the result and its counter): the response comes back with the delivery, sooner than the
 * model's return trip by less than a barrier resolves anyway (HELP_AHEAD_NS). Until the event
 * runs the request is in flight as before: CMD_CTRL reads 1, the counters have not moved, its
 * spans are listed. Its delivery time keeps the static VC's order, so a request issued after it
 * on the VC still lands after it. One event instead of three: a write or an atomic that a core
 * issues and waits for costs one heap entry. */
static bool all_in_one_ok(const struct bh_noc_txn *x, const struct noc_flight *fl, unsigned nrecv)
{
	if (nrecv != 1 || x->mcast)
		return false;
	return fl->one_step || x->op == BH_NOC_OP_ATOMIC || x->op == BH_NOC_OP_READ;
}

static bool one_step_ok(const struct bh_noc_txn *x, const struct bh_noc_side *d, unsigned nrecv)
{
	if ((x->op != BH_NOC_OP_WRITE && x->op != BH_NOC_OP_WRITE_BE) || nrecv != 1 || x->mcast ||
	    x->src.kind == BH_NOC_SIDE_MMIO)
		return false;
	if (x->src.kind == BH_NOC_SIDE_L1 && d->kind == BH_NOC_SIDE_L1 && x->src.tile == d->tile)
		return x->src.addr + 64u + x->len <= d->addr || d->addr + 64u + x->len <= x->src.addr;
	return true;
}

/* The longest round trip of an atomic (4 bytes there, the response back, both with the most
 * jitter, between the farthest tiles: 16 + 11 hops on the 17 x 12 torus) fits in ONE_STEP_NS. */
static bool atomic_round_trip_fits(const struct bh_noc_latency *lat)
{
	uint64_t way = lat->base_ns + (uint64_t)lat->hop_ns * (16 + 11) + lat->jitter_ns;
	return 2 * way + (uint64_t)lat->byte_ps * 4 / 1000 <= ONE_STEP_NS;
}

bool bh_noc_at_issue_open(const struct bh_noc_engine *e)
{
	return e->at_issue_fits && !bh_noc_engine_inflight(e);
}

/* A unicast atomic whose every possible round trip fits in ONE_STEP_NS, issued while nothing is
 * in flight on the chip, completes at its CMD_CTRL store, as on the synchronous NoC (the caller
 * completes it): it would be one event (all_in_one_ok) that the issuer's barrier runs at its
 * first poll, and with nothing in flight no request of its static VC can be before it, so the
 * order stays; requests issued after it see it done. What this gives up is the gap between the
 * store and the barrier: a program that reads an atomic's result without its barrier is not
 * caught with such latencies (`slow` keeps every atomic in flight). Transactions finished are
 * read before those submitted (bh_noc_engine_inflight): equal, every flight's effects are seen. */
bool bh_noc_at_issue(struct bh_noc_engine *e, const struct bh_noc_txn *x)
{
	if (x->op != BH_NOC_OP_ATOMIC || x->mcast || !bh_noc_at_issue_open(e))
		return false;
	atomic_fetch_add_explicit(&x->init->niu[x->noc].at_issue, 1, memory_order_relaxed);
	return true;
}

bool bh_noc_submit(struct bh_noc_engine *e, const struct bh_noc_txn *x, unsigned who, struct bh_fault *f)
{
	unsigned nrecv = receivers(x);
	uint32_t pc = x->init->chip->access_pc ? x->init->chip->access_pc(x->init, who) : 0;
	bool spans = bh_inflight_wanted(e->chip);
	bh_lock(&e->lock);
	struct noc_flight *fl = flight_get(e, nrecv);
	if (fl && spans) {
		fl->nspans = 1 + nrecv;
		fl->spans = fl->spans_room && fl->nspans <= 2 ? fl->spans_room : calloc(fl->nspans, sizeof *fl->spans);
		if (!fl->spans) {
			free(fl);
			fl = NULL;
		}
	}
	if (!fl) {
		bh_unlock(&e->lock);
		return bh_fault_fill(f, BH_FAULT_NOT_MODELLED, 0, "NoC", "out of host memory for a NoC transaction");
	}
	fl->x = *x;
	fl->x.by_runner = true;   /* its counters move on the runner (bh_niu_count_run) */
	fl->who = who;
	fl->pc = pc;
	if (fl->spans) {
		/* Listed before any of its events can run (the tiles' locks nest inside e->lock). */
		bh_inflight_spans(&fl->x, who, fl->pc, fl->spans, fl->nspans);
		for (unsigned k = 0; k < fl->nspans; k++)
			bh_inflight_add(&fl->spans[k]);
	}
	struct bh_niu *niu = &x->init->niu[x->noc];
	/* CMD_CTRL reads 1 until the request is accepted (noc.md 3.4). */
	atomic_store_explicit(&niu->busy[x->buf], 1, memory_order_relaxed);
	count_held(&e->submitted);

	uint64_t t = bh_time_ns();
	atomic_store_explicit(&e->last_submit, t, memory_order_relaxed);
	uint64_t acc = t + e->lat.base_ns / 8 + jitter(e) / 4;   /* the initiator takes it: a VC is free */
	bool ok = true, all_in_one = false;
	int vc = static_vc(x);
	uint64_t *last = vc >= 0 ? &e->last_due[(x->init->index * 2 + x->noc) * 8 + (unsigned)vc] : NULL;
	unsigned it = 0, slot = 0;
	struct bh_noc_side d;
	while (ok && bh_noc_next_receiver(x, &it, &d)) {
		/* A read's data travels from the target back to the initiator: one trip there, one
		 * back; a write's data goes there and its ack comes back. */
		struct bh_tile *far = x->op == BH_NOC_OP_READ ? x->src.tile : d.tile;
		uint64_t there = acc + travel(e, x, far, x->op == BH_NOC_OP_ATOMIC || x->op == BH_NOC_OP_WRITE_INLINE ? 4 : x->len);
		if (last && there <= *last)
			there = *last + 1;
		if (last)
			*last = there;
		if (one_step_ok(x, &d, nrecv) && there - acc <= ONE_STEP_NS) {
			fl->one_step = true;
			count_held(&e->st_one_step);
		}
		uint64_t back = there + travel(e, x, far, 0);
		uint16_t recv = (uint16_t)(d.tile ? d.tile->index : 0);
		if (all_in_one_ok(x, fl, nrecv) && back - acc <= ONE_STEP_NS) {
			all_in_one = true;
			ok = heap_push(e, (struct noc_event){ .due = there, .fl = fl, .kind = EV_ALL, .recv = recv });
			count_held(&e->st_all_in_one);
		} else {
			ok = heap_push(e, (struct noc_event){ .due = there, .fl = fl, .kind = EV_DELIVER, .recv = recv,
							      .slot = slot }) &&
			     heap_push(e, (struct noc_event){ .due = back, .fl = fl, .kind = EV_RESPOND, .recv = recv,
							      .slot = slot });
		}
		slot++;
	}
	if (ok && !all_in_one)
		ok = heap_push(e, (struct noc_event){ .due = acc, .fl = fl, .kind = EV_ACCEPT });
	uint64_t first = e->n ? e->heap[0].due : UINT64_MAX;
	publish_earliest(e, true);
	bh_unlock(&e->lock);
	if (!ok)
		return bh_fault_fill(f, BH_FAULT_NOT_MODELLED, 0, "NoC", "out of host memory for a NoC transaction");
	uint64_t tick = atomic_load_explicit(&e->tick, memory_order_relaxed);
	if (first + THREAD_GRACE_NS + tick < atomic_load_explicit(&e->deadline, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&e->st_wakes, 1, memory_order_relaxed);
		bh_park_wake(&e->waiter);
	}
	return true;
}

/* ---------------------------------------------------------------------------------- run */

/* Take what is still listed of fl off its tiles (a refused delivery drops the later phases) and
 * free what it allocated. A pooled flight is returned for the pool (NULL: freed). */
static struct noc_flight *flight_release(struct noc_flight *fl)
{
	for (unsigned k = 0; k < fl->nspans; k++)
		bh_inflight_remove(&fl->spans[k]);
	if (fl->spans != fl->spans_room)
		free(fl->spans);
	if (fl->snap != fl->snap_room)
		free(fl->snap);
	if (fl->snap_room)
		return fl;
	free(fl);
	return NULL;
}

/* fl ran its last event: finished. A pooled flight is returned for the pool. */
static struct noc_flight *flight_done(struct bh_noc_engine *e, struct noc_flight *fl)
{
	fl = flight_release(fl);
	count_held(&e->finished);    /* run_lock */
	count_held(&e->delivered);
	return fl;
}

static bool flight_writes(const struct noc_flight *fl)
{
	return fl->x.op == BH_NOC_OP_WRITE || fl->x.op == BH_NOC_OP_WRITE_BE;
}

/* A write reads its source when it leaves the initiator, as *_SENT rises (noc.md 3.4: after
 * noc_async_writes_flushed the buffer may be reused): every receiver gets that copy. */
static bool flight_read_source(struct noc_flight *fl)
{
	const struct bh_noc_txn *x = &fl->x;
	uint32_t len = x->op == BH_NOC_OP_WRITE_BE ? 64 : x->len;
	if (x->src.kind == BH_NOC_SIDE_MMIO)
		return true;   /* a register source is read at delivery */
	fl->snap = fl->snap_room && len <= POOL_SNAP ? fl->snap_room : malloc(len);
	if (!fl->snap)
		return false;
	const uint8_t *p = x->src.kind == BH_NOC_SIDE_MEM ? x->src.mem : x->src.tile->l1 + x->src.addr;
	bh_copy_relaxed(fl->snap, p, len);
	return true;
}

/* The source of a delivery: a write's copy taken when it left. */
static void flight_source(const struct noc_flight *fl, struct bh_noc_side *src)
{
	*src = fl->x.src;
	if (!fl->snap)
		return;
	src->kind = BH_NOC_SIDE_MEM;
	src->mem = fl->snap;
	src->tile = NULL;
}

/* The initiator refused or failed after its core moved on: that core's fault now. */
static void flight_fail(struct bh_noc_engine *e, struct noc_flight *fl, struct bh_fault *f)
{
	fl->failed = true;
	f->pc = fl->pc;
	if (e->chip->noc_fault)
		e->chip->noc_fault(fl->x.init, fl->who, f);
}

/* The initiator takes the request (EV_ACCEPT). */
static void run_accept(struct bh_noc_engine *e, struct noc_flight *fl)
{
	const struct bh_noc_txn *x = &fl->x;
	struct bh_niu *niu = &x->init->niu[x->noc];
	struct bh_fault f;
	/* The source is read, and off the in-flight list, before *_SENT says so; in one step,
	 * when it lands. */
	if (flight_writes(fl) && !fl->failed && !fl->one_step) {
		if (!flight_read_source(fl)) {
			memset(&f, 0, sizeof f);
			bh_fault_fill(&f, BH_FAULT_NOT_MODELLED, 0, "NoC", "out of host memory for a NoC write");
			flight_fail(e, fl, &f);
		} else {
			if (fl->spans)
				bh_inflight_remove(&fl->spans[0]);
			bh_noc_source_read(x);
		}
	}
	if (fl->one_step)
		bh_noc_accepted_unsent(x);
	else
		bh_noc_accepted(x);
	atomic_store_explicit(&niu->busy[x->buf], 0, memory_order_release);
	bh_tile_mmio_announce(x->init, BH_NIU_BASE(x->noc) + BH_NIU_CMD_BUF_STRIDE * x->buf + BH_NIU_CMD_CTRL);
}

/* The data (or the atomic) at the receiver of ev (EV_DELIVER). */
static void run_deliver(struct bh_noc_engine *e, struct noc_flight *fl, const struct noc_event *ev)
{
	const struct bh_noc_txn *x = &fl->x;
	struct bh_noc_side d = x->dst, src;
	struct bh_fault f;
	if (fl->failed)
		return;
	if (x->mcast)
		d.tile = e->chip->tiles[ev->recv];
	/* Off the list before the data lands: a core that sees it land (a poll of the word)
	 * must not find it still in flight. */
	if (fl->spans)
		bh_inflight_remove(&fl->spans[1 + ev->slot]);
	bh_fault_clear(&f);
	flight_source(fl, &src);
	bool ok = bh_noc_deliver(x, &d, &src, &fl->old[ev->slot], &f);
	if (fl->one_step) {
		/* Read as it landed: off the list, then *_SENT and OUTGOING (the request left). */
		if (fl->spans)
			bh_inflight_remove(&fl->spans[0]);
		bh_noc_sent(x);
		bh_noc_source_read(x);
	}
	if (!ok)
		flight_fail(e, fl, &f);   /* the destination refused it */
}

static void run_event(struct bh_noc_engine *e, const struct noc_event *ev)
{
	struct noc_flight *fl = ev->fl;
	if (ev->kind == EV_ACCEPT || ev->kind == EV_ALL)
		run_accept(e, fl);
	if (ev->kind == EV_DELIVER || ev->kind == EV_ALL)
		run_deliver(e, fl, ev);
	if ((ev->kind == EV_RESPOND || ev->kind == EV_ALL) && !fl->failed)
		bh_noc_responded(&fl->x, fl->old[ev->slot]);
}

/* Events taken off the heap go back, unrun (their sequence numbers kept). False: no room (out of
 * memory): the caller runs them now. */
static bool put_back(struct bh_noc_engine *e, const struct noc_event *ev, unsigned n)
{
	bh_lock(&e->lock);
	bool room = e->n + n <= e->cap;
	if (!room) {
		struct noc_event *h = realloc(e->heap, (size_t)(e->n + n) * sizeof *h);
		if (h) {
			e->heap = h;
			e->cap = e->n + n;
			room = true;
		}
	}
	for (unsigned k = 0; room && k < n; k++)
		heap_insert(e, &ev[k]);
	publish_earliest(e, false);
	bh_unlock(&e->lock);
	return room;
}

/* Run every event due by `now`, in order. Caller holds run_lock. Returns the due time of the
 * next event as it was when the last batch was taken (UINT64_MAX: none; the NoC thread checks
 * `earliest` again before it sleeps). Events are taken off the heap a batch at a time; should an
 * earlier one be submitted meanwhile (by an event of the batch, or a core), the rest of the batch
 * goes back, so the order stays (due, sequence). A batch that was not full took everything due
 * then; what was submitted since is due later than now, except for a flush (now = UINT64_MAX),
 * which looks again until the heap is empty. */
static uint64_t run_due(struct bh_noc_engine *e, uint64_t now)
{
	struct noc_event batch[RUN_BATCH_MAX];
	for (;;) {
		unsigned n = 0;
		bh_lock(&e->lock);
		pool_put(e, e->run_done, e->nrun_done);
		e->nrun_done = 0;
		while (n < RUN_BATCH_MAX && e->n && e->heap[0].due <= now)
			batch[n++] = heap_pop(e);
		uint64_t next = e->n ? e->heap[0].due : UINT64_MAX;
		publish_earliest(e, false);
		bh_unlock(&e->lock);
		if (!n)
			return next;
		bool whole = true;   /* the batch ran to its end (none went back) */
		for (unsigned k = 0; k < n; k++) {
			if (k && atomic_load_explicit(&e->earliest, memory_order_acquire) < batch[k].due &&
			    put_back(e, batch + k, n - k)) {
				whole = false;
				break;
			}
			run_event(e, &batch[k]);
			struct noc_flight *fl = batch[k].fl;
			unsigned left = atomic_load_explicit(&fl->pending, memory_order_relaxed) - 1;
			atomic_store_explicit(&fl->pending, left, memory_order_relaxed);
			if (left == 0 && (fl = flight_done(e, fl)) != NULL)
				e->run_done[e->nrun_done++] = fl;
		}
		if (whole && n < RUN_BATCH_MAX && now != UINT64_MAX)
			return next;
	}
}

/* A core at a barrier runs what is due within this much: the host cannot time a sleep shorter
 * than that anyway (a parked core costs a futex wake of several us), and the order of events stays the model's (they still run in due
 * order). Latencies this small only reorder; longer ones also leave time for the core to run. */
#define HELP_AHEAD_NS 5000u

void bh_noc_engine_help(struct bh_noc_engine *e)
{
	uint64_t due = atomic_load_explicit(&e->earliest, memory_order_acquire);
	if (due == UINT64_MAX)
		return;
	/* A submit's time is past: what is due within the look-ahead of it is due now, and the
	 * clock need not be read (a request polled right after its issue, the common case). */
	uint64_t now = atomic_load_explicit(&e->last_submit, memory_order_relaxed) + HELP_AHEAD_NS;
	if (due > now && due > (now = bh_time_ns() + HELP_AHEAD_NS))
		return;
	/* The NoC thread may hold run_lock: it only ever holds it while running events, so waiting
	 * for it is short, and afterwards what is due still runs here, not after a hand-off. */
	bh_lock(&e->run_lock);
	count_held(&e->st_help_calls);
	run_due(e, now);
	bh_unlock(&e->run_lock);
}

void bh_noc_engine_flush(struct bh_noc_engine *e)
{
	bh_lock(&e->run_lock);
	run_due(e, UINT64_MAX);
	bh_unlock(&e->run_lock);
}

static void *engine_main(void *arg)
{
	struct bh_noc_engine *e = arg;
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);   /* wake within a microsecond of the due time */
	bh_rcu_thread_register();   /* deliveries tell observers (sync/hooks.h) */
	if (e->waiter.actor)
		bh_sched_enter(e->waiter.actor);   /* serial: an actor like the cores */
	while (!atomic_load_explicit(&e->stop, memory_order_acquire)) {
		bh_rcu_quiescent();
		uint32_t seq = bh_park_seq(&e->waiter);
		/* Nothing due (a core at a barrier ran it): no lock taken, so the cores helping do not
		 * contend with a thread that only looked. */
		uint64_t next = atomic_load_explicit(&e->earliest, memory_order_seq_cst);
		uint32_t tick = atomic_load_explicit(&e->tick, memory_order_relaxed);
		if (next <= bh_time_ns()) {
			bh_lock(&e->run_lock);
			uint64_t before = e->delivered;
			next = run_due(e, bh_time_ns());
			e->st_thread += e->delivered - before;
			bh_unlock(&e->run_lock);
			tick = TICK_MIN_NS;   /* work the cores left: look often */
		} else if (tick < TICK_MAX_NS) {
			tick = tick * 2 < TICK_MAX_NS ? tick * 2 : TICK_MAX_NS;
		}
		atomic_store_explicit(&e->tick, tick, memory_order_relaxed);
		if (atomic_load_explicit(&e->stop, memory_order_acquire))
			break;
		/* Publish when we look next, then check for something earlier that a submitter did not
		 * wake us for (it read the old deadline): Dekker with the submitter's seq_cst pair. */
		uint64_t now = bh_time_ns(), deadline;
		if (next != UINT64_MAX)
			deadline = next + THREAD_GRACE_NS;
		else if (now - atomic_load_explicit(&e->last_submit, memory_order_relaxed) < IDLE_AFTER_NS)
			deadline = now + tick;
		else
			deadline = UINT64_MAX;
		atomic_store_explicit(&e->deadline, deadline, memory_order_seq_cst);
		uint64_t first = atomic_load_explicit(&e->earliest, memory_order_seq_cst);
		if (first != UINT64_MAX && first + THREAD_GRACE_NS + tick < deadline)
			continue;
		if (deadline <= now)
			continue;
		/* Something in flight: a timed sleep (the deadlock monitor sees TIMED, not a deadlock).
		 * Nothing: sleep until a submit wakes us, idle. */
		atomic_store_explicit(&e->waiter.park_state, next == UINT64_MAX ? BH_PARK_IDLE : BH_PARK_TIMED,
				      memory_order_release);
		bh_park_sleep(&e->waiter, seq, deadline == UINT64_MAX ? 0 : deadline - now);
		atomic_store_explicit(&e->waiter.park_state, BH_PARK_NONE, memory_order_release);
	}
	atomic_store_explicit(&e->waiter.park_state, BH_PARK_IDLE, memory_order_release);
	if (e->waiter.actor)
		bh_sched_exit(e->waiter.actor);
	bh_rcu_thread_unregister();
	return NULL;
}

struct bh_noc_engine *bh_noc_engine_create(struct bh_chip *chip, const struct bh_noc_latency *lat, uint64_t seed)
{
	struct bh_noc_engine *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->chip = chip;
	e->lat = *lat;
	e->at_issue_fits = atomic_round_trip_fits(lat);
	e->rng = seed;
	e->last_due = calloc((size_t)chip->topo.ntiles * 2 * 8, sizeof *e->last_due);
	if (!e->last_due) {
		free(e);
		return NULL;
	}
	bh_lock_init(&e->lock);
	bh_lock_init(&e->run_lock);
	atomic_init(&e->earliest, UINT64_MAX);
	atomic_init(&e->deadline, UINT64_MAX);
	atomic_init(&e->tick, TICK_MIN_NS);
	atomic_init(&e->waiter.park_state, BH_PARK_IDLE);
	if (chip->sched && !(e->waiter.actor = bh_sched_actor_add(chip->sched, "noc", true))) {
		bh_noc_engine_destroy(e);
		return NULL;
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	int rc = pthread_create(&e->thread, &attr, engine_main, e);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		bh_noc_engine_destroy(e);
		return NULL;
	}
	e->started = true;
	return e;
}

void bh_noc_engine_destroy(struct bh_noc_engine *e)
{
	if (!e)
		return;
	atomic_store_explicit(&e->stop, true, memory_order_release);
	if (getenv("BHEMU_NOC_STATS"))
		fprintf(stderr, "noc: delivered=%llu thread_events=%llu help_calls=%llu submit_wakes=%llu one_step_writes=%llu "
			"all_in_one=%llu atomics_at_issue=%llu\n", (unsigned long long)e->delivered,
			(unsigned long long)e->st_thread, (unsigned long long)e->st_help_calls,
			(unsigned long long)e->st_wakes, (unsigned long long)e->st_one_step,
			(unsigned long long)e->st_all_in_one, (unsigned long long)bh_noc_engine_at_issue(e));
	bh_park_wake(&e->waiter);
	if (e->started)
		pthread_join(e->thread, NULL);
	/* What is still in flight is dropped with the chip. */
	for (unsigned k = 0; k < e->n; k++)
		if (atomic_fetch_sub_explicit(&e->heap[k].fl->pending, 1, memory_order_relaxed) == 1)
			free(flight_release(e->heap[k].fl));
	pool_put(e, e->run_done, e->nrun_done);
	while (e->pool) {
		struct noc_flight *fl = e->pool;
		e->pool = fl->next_free;
		free(fl);
	}
	free(e->heap);
	free(e->last_due);
	free(e);
}

void bh_noc_engine_nudge(struct bh_noc_engine *e)
{
	if (!e)
		return;
	/* Threaded: what is due within the look-ahead runs here, as at a barrier: the parking core is
	 * idle anyway, and a posted write it issued just before (a worker's completion report) lands
	 * without waking the NoC thread. Serial scheduling keeps every delivery on its actors. */
	if (!bh_sched_self)
		bh_noc_engine_help(e);
	uint64_t first = atomic_load_explicit(&e->earliest, memory_order_seq_cst);
	if (first != UINT64_MAX && first + THREAD_GRACE_NS < atomic_load_explicit(&e->deadline, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&e->st_wakes, 1, memory_order_relaxed);
		bh_park_wake(&e->waiter);
	}
}

struct bh_waiter *bh_noc_engine_waiter(struct bh_noc_engine *e)
{
	return &e->waiter;
}

const _Atomic uint64_t *bh_noc_engine_earliest(const struct bh_noc_engine *e)
{
	return &e->earliest;
}

uint64_t bh_noc_engine_inflight(const struct bh_noc_engine *e)
{
	/* Finished first: a transaction counted there was submitted before, and is seen there too. */
	uint64_t finished = atomic_load_explicit(&e->finished, memory_order_acquire);
	return atomic_load_explicit(&e->submitted, memory_order_acquire) - finished;
}

uint64_t bh_noc_engine_all_in_one(const struct bh_noc_engine *e)
{
	return atomic_load_explicit(&e->st_all_in_one, memory_order_relaxed);
}

uint64_t bh_noc_engine_at_issue(const struct bh_noc_engine *e)
{
	return bh_niu_stat_sum(e->chip, offsetof(struct bh_niu, at_issue), 1) +
	       bh_niu_stat_sum(e->chip, offsetof(struct bh_niu, one_step), BH_CORES_PER_TILE);
}

/* ---------------------------------------------------------------------------------- latency */

/* zero: in flight, but due at once (issue order, no added time); silicon: about Blackhole's,
 * 150 ns + 10 ns per hop + 40 B/ns with 100 ns of jitter; slow: provoking, 2 us + 100 ns per hop
 * + 5 B/ns with 20 us of jitter. */
static const struct {
	const char *name;
	struct bh_noc_latency lat;
} presets[] = {
	{ "zero", { 0, 0, 0, 0 } },
	{ "silicon", { 150, 10, 25, 100 } },
	{ "slow", { 2000, 100, 200, 20000 } },
};

bool bh_noc_latency_parse(const char *s, struct bh_noc_latency *out, char *err, size_t errlen)
{
	for (size_t k = 0; k < sizeof presets / sizeof presets[0]; k++)
		if (!strcmp(s, presets[k].name)) {
			*out = presets[k].lat;
			return true;
		}
	char *end;
	errno = 0;
	unsigned long lo = strtoul(s, &end, 10), hi;
	if (end != s && *end == ':' && s[0] != '-') {
		const char *h = end + 1;
		hi = strtoul(h, &end, 10);
		if (end != h && !*end && h[0] != '-' && !errno && lo <= hi && hi <= 1000000000ul) {
			*out = (struct bh_noc_latency){ .base_ns = (uint32_t)lo, .jitter_ns = (uint32_t)(hi - lo) };
			return true;
		}
	}
	snprintf(err, errlen, "'%s' is not a NoC latency: give MIN:MAX in ns (MIN <= MAX <= 1e9) or one of zero, silicon, slow", s);
	return false;
}
