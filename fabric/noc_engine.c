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
#include "fabric/niu.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "fabric/wallclock.h"
#include "sync/park.h"

enum ev_kind {
	EV_ACCEPT,     /* CMD_ACCEPTED, *_SENT; CMD_CTRL returns to 0 */
	EV_DELIVER,    /* data at one receiver */
	EV_RESPOND,    /* one receiver's ack / response at the initiator */
};

struct noc_flight {
	struct bh_noc_txn x;
	unsigned who;              /* the issuing requester (enum bh_core_kind) */
	uint32_t pc;               /* of its CMD_CTRL store */
	unsigned pending;          /* events not yet run (under the heap lock) */
	bool failed;               /* a receiver refused: later phases are dropped (runner only) */
	uint8_t *snap;             /* a write: its source as read when it left (runner only) */
	/* Its L1 ranges for the in-flight checks (fabric/inflight.h), or NULL when no check wants
	 * them: [0] the source until read, [1 + slot] each receiver's destination until landed. */
	struct bh_inflight_span *spans;
	unsigned nspans;
	uint32_t old[];            /* atomic: result per receiver slot (runner only) */
};

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
	pthread_mutex_t lock;      /* the heap, seq, rng, last_due */
	struct noc_event *heap;
	unsigned n, cap;
	uint64_t seq;
	uint64_t rng;
	uint64_t *last_due;        /* [tile][noc][vc]: latest delivery of a static VC */
	_Atomic uint64_t earliest; /* due of the heap's top, UINT64_MAX when empty (helpers' check) */
	_Atomic uint64_t deadline; /* when the NoC thread looks next (UINT64_MAX: when woken) */
	_Atomic uint64_t last_submit;
	_Atomic uint64_t inflight; /* transactions not finished */
	_Atomic uint64_t delivered;
	_Atomic uint64_t st_thread, st_wakes, st_help_calls;   /* statistics (BHEMU_NOC_STATS) */
	pthread_mutex_t run_lock;  /* one runner at a time */
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

/* Under e->lock. False: out of memory. */
static bool heap_push(struct bh_noc_engine *e, struct noc_event ev)
{
	if (e->n == e->cap) {
		unsigned cap = e->cap ? 2 * e->cap : 256;
		struct noc_event *h = realloc(e->heap, (size_t)cap * sizeof *h);
		if (!h)
			return false;
		e->heap = h;
		e->cap = cap;
	}
	ev.seq = e->seq++;
	e->heap[e->n] = ev;
	heap_up(e->heap, e->n++);
	ev.fl->pending++;
	return true;
}

/* seq_cst: pairs with the NoC thread's store of its deadline and load of earliest. */
static void publish_earliest(struct bh_noc_engine *e)
{
	atomic_store_explicit(&e->earliest, e->n ? e->heap[0].due : UINT64_MAX, memory_order_seq_cst);
}

/* The NoC thread runs an event this long after it is due: until then a core at a barrier may
 * run it itself (bh_noc_engine_help) without a thread hand-off. It is woken only when a new
 * event would otherwise wait longer than that: once per burst, not per transaction. */
#define THREAD_GRACE_NS 20000u
/* While requests keep coming (the last within IDLE_AFTER_NS), the NoC thread also looks every
 * TICK_NS when nothing is in flight, and submitters do not wake it: a core issuing one request
 * at a time and finishing each at its barrier costs no thread hand-off at all. After that long
 * without a request it sleeps until woken: a quiet chip costs no CPU. */
#define TICK_NS 20000u
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
	unsigned it = 0, n = 0;
	struct bh_noc_side d;
	while (bh_noc_next_receiver(x, &it, &d))
		n++;
	return n;
}

bool bh_noc_submit(struct bh_noc_engine *e, const struct bh_noc_txn *x, unsigned who, struct bh_fault *f)
{
	unsigned nrecv = receivers(x);
	struct noc_flight *fl = calloc(1, sizeof *fl + (size_t)(nrecv ? nrecv : 1) * sizeof fl->old[0]);
	if (!fl)
		return bh_fault_fill(f, BH_FAULT_NOT_MODELLED, 0, "NoC", "out of host memory for a NoC transaction");
	fl->x = *x;
	fl->who = who;
	fl->pc = x->init->chip->access_pc ? x->init->chip->access_pc(x->init, who) : 0;
	if (bh_inflight_wanted(e->chip)) {
		/* Listed before any of its events can run. */
		fl->nspans = 1 + nrecv;
		fl->spans = calloc(fl->nspans, sizeof *fl->spans);
		if (!fl->spans) {
			free(fl);
			return bh_fault_fill(f, BH_FAULT_NOT_MODELLED, 0, "NoC", "out of host memory for a NoC transaction");
		}
		bh_inflight_spans(&fl->x, who, fl->pc, fl->spans, fl->nspans);
		for (unsigned k = 0; k < fl->nspans; k++)
			bh_inflight_add(&fl->spans[k]);
	}
	struct bh_niu *niu = &x->init->niu[x->noc];
	/* CMD_CTRL reads 1 until the request is accepted (noc.md 3.4). */
	atomic_fetch_or_explicit(&niu->busy, 1u << x->buf, memory_order_relaxed);
	atomic_fetch_add_explicit(&e->inflight, 1, memory_order_relaxed);

	pthread_mutex_lock(&e->lock);
	uint64_t t = bh_monotonic_ns();
	atomic_store_explicit(&e->last_submit, t, memory_order_relaxed);
	uint64_t acc = t + e->lat.base_ns / 8 + jitter(e) / 4;   /* the initiator takes it: a VC is free */
	bool ok = heap_push(e, (struct noc_event){ .due = acc, .fl = fl, .kind = EV_ACCEPT });
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
		uint64_t back = there + travel(e, x, far, 0);
		ok = heap_push(e, (struct noc_event){ .due = there, .fl = fl, .kind = EV_DELIVER,
						      .recv = (uint16_t)(d.tile ? d.tile->index : 0), .slot = slot }) &&
		     heap_push(e, (struct noc_event){ .due = back, .fl = fl, .kind = EV_RESPOND,
						      .recv = (uint16_t)(d.tile ? d.tile->index : 0), .slot = slot });
		slot++;
	}
	uint64_t first = e->n ? e->heap[0].due : UINT64_MAX;
	publish_earliest(e);
	pthread_mutex_unlock(&e->lock);
	if (!ok)
		return bh_fault_fill(f, BH_FAULT_NOT_MODELLED, 0, "NoC", "out of host memory for a NoC transaction");
	if (first + THREAD_GRACE_NS + TICK_NS < atomic_load_explicit(&e->deadline, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&e->st_wakes, 1, memory_order_relaxed);
		bh_park_wake(&e->waiter);
	}
	return true;
}

/* ---------------------------------------------------------------------------------- run */

/* Take what is still listed of fl off its tiles (a refused delivery drops the later phases). */
static void flight_free(struct noc_flight *fl)
{
	for (unsigned k = 0; k < fl->nspans; k++)
		bh_inflight_remove(&fl->spans[k]);
	free(fl->spans);
	free(fl->snap);
	free(fl);
}

static void flight_done(struct bh_noc_engine *e, struct noc_flight *fl)
{
	flight_free(fl);
	atomic_fetch_sub_explicit(&e->inflight, 1, memory_order_release);
	atomic_fetch_add_explicit(&e->delivered, 1, memory_order_relaxed);
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
	fl->snap = malloc(len);
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

static void run_event(struct bh_noc_engine *e, const struct noc_event *ev)
{
	struct noc_flight *fl = ev->fl;
	const struct bh_noc_txn *x = &fl->x;
	struct bh_fault f;
	switch (ev->kind) {
	case EV_ACCEPT: {
		struct bh_niu *niu = &x->init->niu[x->noc];
		/* The source is read, and off the in-flight list, before *_SENT says so. */
		if (flight_writes(fl) && !fl->failed) {
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
		bh_noc_accepted(x);
		atomic_fetch_and_explicit(&niu->busy, ~(1u << x->buf), memory_order_release);
		bh_tile_mmio_written(x->init, BH_NIU_BASE(x->noc) + BH_NIU_CMD_BUF_STRIDE * x->buf + BH_NIU_CMD_CTRL);
		break;
	}
	case EV_DELIVER: {
		if (fl->failed)
			break;
		struct bh_noc_side d = x->dst, src;
		if (x->mcast)
			d.tile = e->chip->tiles[ev->recv];
		/* Off the list before the data lands: a core that sees it land (a poll of the word)
		 * must not find it still in flight. */
		if (fl->spans)
			bh_inflight_remove(&fl->spans[1 + ev->slot]);
		memset(&f, 0, sizeof f);
		flight_source(fl, &src);
		if (!bh_noc_deliver(x, &d, &src, &fl->old[ev->slot], &f))
			flight_fail(e, fl, &f);   /* the destination refused it */
		break;
	}
	default:
		if (!fl->failed)
			bh_noc_responded(x, fl->old[ev->slot]);
		break;
	}
}

/* Run every event due by `now`, in order. Caller holds run_lock. Returns the due time of the
 * next event (UINT64_MAX: none). */
static uint64_t run_due(struct bh_noc_engine *e, uint64_t now)
{
	for (;;) {
		pthread_mutex_lock(&e->lock);
		if (!e->n || e->heap[0].due > now) {
			uint64_t next = e->n ? e->heap[0].due : UINT64_MAX;
			publish_earliest(e);
			pthread_mutex_unlock(&e->lock);
			return next;
		}
		struct noc_event ev = e->heap[0];
		e->heap[0] = e->heap[--e->n];
		heap_down(e->heap, e->n, 0);
		publish_earliest(e);
		pthread_mutex_unlock(&e->lock);
		run_event(e, &ev);
		pthread_mutex_lock(&e->lock);
		bool last = --ev.fl->pending == 0;
		pthread_mutex_unlock(&e->lock);
		if (last)
			flight_done(e, ev.fl);
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
	uint64_t now = bh_monotonic_ns() + HELP_AHEAD_NS;
	if (due > now)
		return;
	/* The NoC thread may hold run_lock: it only ever holds it while running events, so waiting
	 * for it is short, and afterwards what is due still runs here, not after a hand-off. */
	pthread_mutex_lock(&e->run_lock);
	atomic_fetch_add_explicit(&e->st_help_calls, 1, memory_order_relaxed);
	run_due(e, now);
	pthread_mutex_unlock(&e->run_lock);
}

void bh_noc_engine_flush(struct bh_noc_engine *e)
{
	pthread_mutex_lock(&e->run_lock);
	run_due(e, UINT64_MAX);
	pthread_mutex_unlock(&e->run_lock);
}

static void *engine_main(void *arg)
{
	struct bh_noc_engine *e = arg;
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);   /* wake within a microsecond of the due time */
	while (!atomic_load_explicit(&e->stop, memory_order_acquire)) {
		uint32_t seq = bh_park_seq(&e->waiter);
		pthread_mutex_lock(&e->run_lock);
		uint64_t before = e->delivered;
		uint64_t next = run_due(e, bh_monotonic_ns());
		e->st_thread += e->delivered - before;
		pthread_mutex_unlock(&e->run_lock);
		if (atomic_load_explicit(&e->stop, memory_order_acquire))
			break;
		/* Publish when we look next, then check for something earlier that a submitter did not
		 * wake us for (it read the old deadline): Dekker with the submitter's seq_cst pair. */
		uint64_t now = bh_monotonic_ns(), deadline;
		if (next != UINT64_MAX)
			deadline = next + THREAD_GRACE_NS;
		else if (now - atomic_load_explicit(&e->last_submit, memory_order_relaxed) < IDLE_AFTER_NS)
			deadline = now + TICK_NS;
		else
			deadline = UINT64_MAX;
		atomic_store_explicit(&e->deadline, deadline, memory_order_seq_cst);
		uint64_t first = atomic_load_explicit(&e->earliest, memory_order_seq_cst);
		if (first != UINT64_MAX && first + THREAD_GRACE_NS + TICK_NS < deadline)
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
	return NULL;
}

struct bh_noc_engine *bh_noc_engine_create(struct bh_chip *chip, const struct bh_noc_latency *lat, uint64_t seed)
{
	struct bh_noc_engine *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->chip = chip;
	e->lat = *lat;
	e->rng = seed;
	e->last_due = calloc((size_t)chip->topo.ntiles * 2 * 8, sizeof *e->last_due);
	if (!e->last_due) {
		free(e);
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->run_lock, NULL);
	atomic_init(&e->earliest, UINT64_MAX);
	atomic_init(&e->deadline, UINT64_MAX);
	atomic_init(&e->waiter.park_state, BH_PARK_IDLE);
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
		fprintf(stderr, "noc: delivered=%llu thread_events=%llu help_calls=%llu submit_wakes=%llu\n",
			(unsigned long long)e->delivered, (unsigned long long)e->st_thread,
			(unsigned long long)e->st_help_calls, (unsigned long long)e->st_wakes);
	bh_park_wake(&e->waiter);
	if (e->started)
		pthread_join(e->thread, NULL);
	/* What is still in flight is dropped with the chip. */
	for (unsigned k = 0; k < e->n; k++)
		if (--e->heap[k].fl->pending == 0)
			flight_free(e->heap[k].fl);
	free(e->heap);
	free(e->last_due);
	pthread_mutex_destroy(&e->lock);
	pthread_mutex_destroy(&e->run_lock);
	free(e);
}

struct bh_waiter *bh_noc_engine_waiter(struct bh_noc_engine *e)
{
	return &e->waiter;
}

uint64_t bh_noc_engine_inflight(const struct bh_noc_engine *e)
{
	return atomic_load_explicit(&e->inflight, memory_order_acquire);
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
