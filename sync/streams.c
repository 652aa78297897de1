/* NoC overlay stream registers (reference/sync.md sections 1-2). Each register access is one
 * atomic operation on the stream's cells, so many cores and (later) NoC writes from many tiles
 * can hit one stream at once. Writes to the CB counters are checked against the CB protocol.
 *
 * Memory order: every access is seq_cst. The CB counters publish L1 data (a producer's tile
 * stores happen before its reg 10 write; the consumer reads reg 10, then the data), which needs
 * release/acquire at least; seq_cst also puts all stream accesses of all cores in one order, so
 * a core's store to one stream register is never passed by its later load of another (the
 * silicon may reorder those; bhemu does not model that). On x86-64 a seq_cst load is a plain
 * load and the RMWs are locked instructions either way. Waking after a change goes through
 * bh_tile_mmio_written() (sync/watch.h), which pairs with the watcher's bh_park_heavy_fence(). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/chip.h"
#include "fabric/check.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "fabric/wallclock.h"
#include "sync/streams.h"
#include "sync/tensix_sem.h"

#define MASK17 0x1FFFFu

_Static_assert(ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
	       "reg 10 and reg 297 share one lock-free 64-bit atomic");

/* One stream; a cache line each, so cores working on different CBs do not share lines. */
struct bh_stream {
	/* reg 10 (REMOTE_DEST_BUF_SIZE) in bits 16:0 and reg 297 (SPACE_AVAILABLE) in bits 63:32
	 * (read masked to 17 bits). A reg 10 write stores both halves in one atomic step; a reg 270
	 * write is one fetch_add on the upper half, whose carries leave through bit 63 and never
	 * reach reg 10. Separate cells would lose a reg 270 increment that lands between the two
	 * stores of a reg 10 write, and would let a reader see the new reg 10 with the old 297. */
	_Atomic uint64_t size_avail;
	_Atomic uint32_t acked;             /* reg 8, REMOTE_DEST_BUF_START (17 bits) */
	_Atomic uint32_t remote_src;        /* reg 4 (24 bits) */
	_Atomic uint32_t phase_auto_cfg;    /* reg 31 (17 bits) */
	/* reg 28 CURR_PHASE_BASE in bits 19:0, reg 29 CURR_PHASE as stored in bits 51:32. The base
	 * is added to a reg 29 write and subtracted from a reg 29 read (Wormhole AsGeneralUse.md;
	 * Blackhole's noc_overlay_parameters.h calls the sum the phase executed), so one atomic
	 * word keeps a read from pairing a new base with an old phase. */
	_Atomic uint64_t phase;
} __attribute__((aligned(64)));

/* What the CB checks know of one CB index. The configuration is written by the host (launches
 * before cores run; `bhemu run` when a guest sets its CBs up) and read relaxed. */
struct bh_stream_cb {
	_Atomic uint32_t pages;            /* 0 = unknown */
	_Atomic uint32_t addr, page_size;  /* the FIFO in L1; page_size 0 = unknown (no page checks) */
	/* cb-pop-unwaited: tiles_received as each core last read it (zeroed by a counter reset). */
	_Atomic uint32_t seen_rcv[BH_CORES_PER_TILE];
	/* cb-ownership: tiles_acked (bits 16:0) with the FIFO slot of the oldest unpopped page (bits
	 * 63:32), stored by the consumer before its tiles_acked write lands (single consumer), so a
	 * page the register says is free is free here too. */
	_Atomic uint64_t rd;
	_Atomic uint32_t producer;         /* requester + 1 of the last push (reg 10 write), 0 = none */
	_Atomic uint32_t consumer;         /* core + 1 of the last pop (non-zero reg 8 write), 0 = none */
	/* Before the first push: core + 1 of the last core that wrote a free slot (its stores, its
	 * NoC reads landing there), the producer at work; 0 = none yet. */
	_Atomic uint32_t filler;
	_Atomic bool suspected;            /* a read waits in bh_streams.suspect[] for the first push */
};

/* cb-ownership: a core's read of a free slot while nobody has pushed to or written the CB and the
 * reader never popped it: whether it was the consumer reading before cb_wait_front shows only at
 * the first push (a push by another core). Kept under bh_streams.suspect_lock. */
struct cb_suspect {
	uint8_t who;        /* enum bh_core_kind */
	bool noc;           /* the source of a NoC write, else a load */
	uint32_t pc, addr, size, slot, received;
};

struct bh_streams {
	struct bh_stream s[BH_STREAM_COUNT];
	/* Configuration, written by the host before cores run (ordered by their release from
	 * reset), read relaxed by the handlers. */
	_Atomic uint32_t cb_layout;                  /* first CB stream in bits 7:0, CB count in 15:8 */
	_Atomic uint32_t cb_reset_flag;              /* L1 address + 1 of the CB reset byte, 0 = none */
	struct bh_stream_cb cb[BH_STREAM_MAX_CBS];   /* per CB index */
	_Atomic bool checks;
	_Atomic uint32_t gate_waiters;    /* Tensix threads parked on STREAMWAIT (sync/park.h) */
	/* BH_EVENT_CB samples (only while observed): time and counters read under it, so samples of
	 * two writers ordered by time never show a counter going back. */
	pthread_mutex_t trace_lock;
	pthread_mutex_t suspect_lock;
	struct cb_suspect suspect[BH_STREAM_MAX_CBS];   /* valid while cb[].suspected */
};

/* ---------------------------------------------------------------------------------------------
 * The register table.
 */

struct stream_reg {
	uint16_t idx;
	uint8_t rw;
	uint8_t bits;
	const char *name;
};

enum {
#define X(idx, name, rw, bits) SR_##name,
	BH_STREAM_REGS(X)
#undef X
	SR_COUNT
};

static const struct stream_reg stream_regs[SR_COUNT] = {
#define X(idx, name, rw, bits) { idx, rw, bits, #name },
	BH_STREAM_REGS(X)
#undef X
};

/* Register index -> its entry + 1 (0: not modelled): one load on every access. */
static const uint8_t stream_reg_slot[BH_STREAM_REG_COUNT] = {
#define X(idx, name, rw, bits) [idx] = SR_##name + 1,
	BH_STREAM_REGS(X)
#undef X
};

static const struct stream_reg *stream_reg_find(unsigned r)
{
	unsigned k = r < BH_STREAM_REG_COUNT ? stream_reg_slot[r] : 0;
	return k ? &stream_regs[k - 1] : NULL;
}

static uint32_t stream_reg_mask(const struct stream_reg *reg)
{
	return reg->bits >= 32 ? 0xFFFFFFFFu : (1u << reg->bits) - 1;
}

/* CB index of stream s on this tile, or -1. */
static int stream_cb(const struct bh_streams *st, unsigned s)
{
	uint32_t layout = atomic_load_explicit(&st->cb_layout, memory_order_relaxed);
	unsigned first = layout & 0xFF, num = layout >> 8 & 0xFF;
	return s - first < num ? (int)(s - first) : -1;
}

const char *bh_stream_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n)
{
	uint32_t off = addr - BH_STREAM_BASE;
	if (off >= BH_STREAM_COUNT * BH_STREAM_STRIDE || (off & 3)) {
		snprintf(buf, n, "0x%08x (not a stream register)", addr);
		return buf;
	}
	unsigned s = off / BH_STREAM_STRIDE, r = off % BH_STREAM_STRIDE / 4;
	const struct stream_reg *reg = stream_reg_find(r);
	const char *name = reg ? reg->name : "not modelled";
	int cb = stream_cb(t->streams, s);
	bool dispatch = s - BH_STREAM_DISPATCH_FIRST < BH_STREAM_DISPATCH_COUNT;
	/* The completion counters use only regs 270/297, which no CB uses: there the dispatch
	 * role wins when a 64-CB layout also covers streams 48..55. */
	if (dispatch && (cb < 0 || r == BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE ||
			 r == BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE))
		snprintf(buf, n, "stream %u reg %u (dispatch completion counter %u, %s)", s, r,
			 s - BH_STREAM_DISPATCH_FIRST, name);
	else if (cb >= 0 && r == BH_STREAM_REG_CB_ACKED)
		snprintf(buf, n, "stream %u reg %u (CB%d tiles_acked)", s, r, cb);
	else if (cb >= 0 && r == BH_STREAM_REG_CB_RECEIVED)
		snprintf(buf, n, "stream %u reg %u (CB%d tiles_received)", s, r, cb);
	else if (cb >= 0)
		snprintf(buf, n, "stream %u reg %u (CB%d, %s)", s, r, cb, name);
	else
		snprintf(buf, n, "stream %u reg %u (%s)", s, r, name);
	return buf;
}

/* ---------------------------------------------------------------------------------------------
 * Faults (cold).
 */

__attribute__((cold, noinline))
static bool stream_fault_unmodelled(struct bh_access *a, unsigned s, unsigned r)
{
	char region[64], list[64];
	size_t len = 0;
	for (unsigned k = 0; k < SR_COUNT; k++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%u", k ? ", " : "", stream_regs[k].idx);
	snprintf(region, sizeof region, "stream %u register %u (0x%08x)", s, r, a->addr);
	return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, region,
			     "register %u is not modelled: bhemu models stream registers %s only", r, list);
}

__attribute__((cold, noinline))
static bool stream_fault_direction(struct bh_access *a, const struct stream_reg *reg, bool store)
{
	char region[96];
	bh_stream_describe(a->tile, a->addr, region, sizeof region);
	if (store)
		return bh_fault_fill(a->fault, BH_FAULT_ACCESS, a->addr, region,
				     "%s (reg %u) is read-only: it is loaded by writes to reg 10 and incremented through reg 270",
				     reg->name, reg->idx);
	return bh_fault_fill(a->fault, BH_FAULT_ACCESS, a->addr, region,
			     "%s (reg %u) is write-only; the counter it updates is reg 297", reg->name, reg->idx);
}

__attribute__((cold, noinline))
static bool stream_fault_subcounter(struct bh_access *a, uint32_t val)
{
	char region[96];
	bh_stream_describe(a->tile, a->addr, region, sizeof region);
	return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, region,
			     "REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE written with 0x%08x: low 6 bits %u select "
			     "multicast sub-counter %u, which is not modelled (only sub-counter 0: value = n << 6)",
			     val, val & 0x3F, val & 0x3F);
}

static const char *plural(uint32_t n)
{
	return n == 1 ? "" : "s";
}

__attribute__((cold, noinline))
static bool stream_fault_pop(struct bh_access *a, int cb, uint32_t pages, uint32_t old, uint32_t v, uint32_t rcv)
{
	char region[96], size[40];
	uint32_t n = (uint16_t)(v - old), m = (uint16_t)(rcv - old);
	bh_stream_describe(a->tile, a->addr, region, sizeof region);
	if (pages)
		snprintf(size, sizeof size, "the CB has %u page%s", pages, plural(pages));
	else
		snprintf(size, sizeof size, "page count unknown");
	return bh_fault_fill(a->fault, BH_FAULT_PROTOCOL, a->addr, region,
			     "pop of %u page%s from CB %d but only %u %s received (%s wrote tiles_acked 0x%x -> 0x%x, "
			     "tiles_received is 0x%x; %s)",
			     n, plural(n), cb, m, m == 1 ? "was" : "were", bh_requester_name(a->who), old, v, rcv, size);
}

__attribute__((cold, noinline))
static bool stream_fault_push(struct bh_access *a, int cb, uint32_t pages, uint32_t old, uint32_t v, uint32_t acked)
{
	char region[96];
	uint32_t n = (uint16_t)(v - old), fill = (uint16_t)(old - acked) + n;
	bh_stream_describe(a->tile, a->addr, region, sizeof region);
	return bh_fault_fill(a->fault, BH_FAULT_PROTOCOL, a->addr, region,
			     "push of %u page%s into CB %d overfills it: received-acked would be %u, the CB has %u page%s "
			     "(%s wrote tiles_received 0x%x -> 0x%x, tiles_acked is 0x%x)",
			     n, plural(n), cb, fill, pages, plural(pages), bh_requester_name(a->who), old, v, acked);
}

/* ---------------------------------------------------------------------------------------------
 * CB counters. Only the owning core writes a counter (single producer, single consumer), but
 * each write is a compare-and-swap so that the check and the update see the same old value
 * and a faulting write changes nothing. The other counter is read once per attempt: it can
 * only move in the direction that makes the write more legal, and the requester's own earlier
 * read of it (in cb_wait_front / cb_reserve_back) is not newer than this one (read-read
 * coherence), so the check never flags a write the firmware had a right to make.
 */

static bool cb_check_on(const struct bh_access *a, enum bh_check id)
{
	return a->who < BH_CORES_PER_TILE && bh_checks_on(&a->tile->chip->checks, id);
}

static const char *cb_producer_name(const struct bh_stream_cb *c)
{
	uint32_t p = atomic_load_explicit(&c->producer, memory_order_relaxed);
	return p ? bh_requester_name(p - 1) : "nobody yet";
}

/* cb-pop-unwaited: a core pops n pages (tiles_acked old -> v) of which its own reads of
 * tiles_received showed fewer published: it freed pages it never waited for. */
__attribute__((cold, noinline))
static bool cb_pop_unwaited(struct bh_access *a, struct bh_streams *st, int cb, uint32_t old, uint32_t v,
			    uint32_t rcv)
{
	struct bh_stream_cb *c = &st->cb[cb];
	uint32_t n = (uint16_t)(v - old);
	uint32_t seen = atomic_load_explicit(&c->seen_rcv[a->who], memory_order_relaxed);
	uint32_t saw = (uint16_t)(seen - old);
	if (saw >= n)
		return true;
	char other[96];
	snprintf(other, sizeof other, "CB%d producer %s, which has pushed tiles_received to 0x%x", cb,
		 cb_producer_name(c), rcv);
	return bh_check_access(a, BH_CHECK_CB_POP_UNWAITED, other,
			       "%s pops %u page%s of CB %d (tiles_acked 0x%x -> 0x%x) but its last read of tiles_received "
			       "was 0x%x: it saw %u of them published (cb_pop_front without a cb_wait_front for them; the "
			       "producer may still be writing them)",
			       bh_requester_name(a->who), n, plural(n), cb, old, v, seen, saw > n ? n : saw);
}

/* The finding of cb-reset-window at a core's access to CB cb's counter: a write old -> v, or with
 * `read` a read of the non-zero value old. */
__attribute__((cold, noinline))
static bool cb_reset_window_found(struct bh_access *a, int cb, uint32_t flag, bool read, uint32_t old, uint32_t v)
{
	const char *reg = (a->addr - BH_STREAM_BASE) % BH_STREAM_STRIDE / 4 == BH_STREAM_REG_CB_ACKED ? "tiles_acked"
												       : "tiles_received";
	char other[160];
	snprintf(other, sizeof other, "trisc0, asked to zero the CB counters: its reset byte (subordinate_sync.trisc0, "
		 "L1 0x%x) holds %u (RUN_SYNC_MSG_INIT_SYNC_REGISTERS), not yet DONE", flag, BH_CB_RESET_REQUESTED);
	if (read)
		return bh_check_access(a, BH_CHECK_CB_RESET_WINDOW, other,
				       "%s reads CB%d %s 0x%x while TRISC0 resets the CB counters: its kernel started on "
				       "the last run's counters, which the reset is about to zero (start kernels only "
				       "after subordinate_sync.trisc0 reads DONE)",
				       bh_requester_name(a->who), cb, reg, old);
	return bh_check_access(a, BH_CHECK_CB_RESET_WINDOW, other,
			       "%s writes CB%d %s 0x%x -> 0x%x while TRISC0 resets the CB counters: the reset may zero "
			       "it behind the writer, or its kernel started on counters not yet reset (start kernels "
			       "only after subordinate_sync.trisc0 reads DONE)",
			       bh_requester_name(a->who), cb, reg, old, v);
}

/* cb-ownership bookkeeping at a pop of n pages: the oldest unpopped page moves n slots on. A
 * write of 0 (a counter reset) starts over at slot 0. */
static void cb_rd_advance(struct bh_streams *st, int cb, uint32_t v, uint32_t n)
{
	struct bh_stream_cb *c = &st->cb[cb];
	uint32_t pages = atomic_load_explicit(&c->pages, memory_order_relaxed);
	uint64_t rd = atomic_load_explicit(&c->rd, memory_order_relaxed);
	uint32_t slot = v == 0 || !pages ? 0 : (uint32_t)((rd >> 32) + n) % pages;
	atomic_store_explicit(&c->rd, (uint64_t)slot << 32 | v, memory_order_seq_cst);
}

/* A counter reset (0 written to reg 10 or 8), or a new FIFO: what cores saw before is void, and
 * who produces and consumes is learnt anew (the next kernels may swap the roles). */
static void cb_seen_reset(struct bh_streams *st, int cb)
{
	struct bh_stream_cb *c = &st->cb[cb];
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		atomic_store_explicit(&c->seen_rcv[k], 0, memory_order_relaxed);
	atomic_store_explicit(&c->producer, 0, memory_order_relaxed);
	atomic_store_explicit(&c->consumer, 0, memory_order_relaxed);
	atomic_store_explicit(&c->filler, 0, memory_order_relaxed);
	atomic_store_explicit(&c->suspected, false, memory_order_relaxed);
}

/* cb-ownership: core `who` wrote a free slot of CB cb before its first push (it is filling it). */
static void cb_note_filler(struct bh_streams *st, unsigned cb, unsigned who)
{
	struct bh_stream_cb *c = &st->cb[cb];
	if (who < BH_CORES_PER_TILE && atomic_load_explicit(&c->filler, memory_order_relaxed) != who + 1)
		atomic_store_explicit(&c->filler, who + 1, memory_order_relaxed);
}

/* Keep the first suspect read of CB cb (a free slot read while nobody pushed or filled). */
__attribute__((cold, noinline))
static void cb_suspect_keep(struct bh_streams *st, unsigned cb, const struct cb_suspect *r)
{
	pthread_mutex_lock(&st->suspect_lock);
	if (!atomic_load_explicit(&st->cb[cb].suspected, memory_order_relaxed)) {
		st->suspect[cb] = *r;
		atomic_store_explicit(&st->cb[cb].suspected, true, memory_order_release);
	}
	pthread_mutex_unlock(&st->suspect_lock);
}

/* The first push of CB cb (tiles_received old -> v), by a->who, judges the read kept before it:
 * a read by another core was a consumer's read of a page not yet published. The reader has moved
 * on: the finding is recorded against it at its read's pc and, in stop mode, stops it (the
 * chip's noc_fault signal: a fault found after its core moved on). */
__attribute__((cold, noinline))
static void cb_suspect_judge(struct bh_access *a, struct bh_streams *st, unsigned cb, uint32_t old, uint32_t v)
{
	struct cb_suspect r;
	pthread_mutex_lock(&st->suspect_lock);
	bool have = atomic_exchange_explicit(&st->cb[cb].suspected, false, memory_order_acquire);
	r = st->suspect[cb];
	pthread_mutex_unlock(&st->suspect_lock);
	if (!have || r.who == a->who)
		return;   /* the producer read a slot before filling it: its own business */
	struct bh_tile *t = a->tile;
	struct bh_stream_cb *c = &st->cb[cb];
	uint32_t start = atomic_load_explicit(&c->addr, memory_order_relaxed);
	uint32_t pages = atomic_load_explicit(&c->pages, memory_order_relaxed);
	uint32_t size = atomic_load_explicit(&c->page_size, memory_order_relaxed);
	char region[64], other[160], what[96];
	snprintf(region, sizeof region, "CB%u slot %u of %u (L1 0x%x)", cb, r.slot, pages, start + r.slot * size);
	snprintf(other, sizeof other, "%s, the producer of CB%u: its first push (tiles_received 0x%x -> 0x%x) came "
		 "after this read", bh_requester_name(a->who), cb, old, v);
	if (r.noc)
		snprintf(what, sizeof what, "NoC write issued by %s reads its %u-byte source at 0x%x",
			 bh_requester_name(r.who), r.size, r.addr);
	else
		snprintf(what, sizeof what, "%u-byte load by %s", r.size, bh_requester_name(r.who));
	struct bh_fault f;
	bh_check_fill(&f, BH_CHECK_CB_OWNERSHIP, r.addr, region, other,
		      "%s from CB%u slot %u before anything was pushed to it (tiles_received 0x%x): read only pages "
		      "cb_wait_front gave you, before cb_pop_front (found at the first push)",
		      what, cb, r.slot, r.received);
	f.pc = r.pc;
	f.insn = r.pc < BH_L1_SIZE && !(r.pc & 3) ? bh_mem_ld(t->l1 + r.pc, 4) : 0;
	f.has_addr = !r.noc;   /* a load's access line; a NoC write's pc is its CMD_CTRL store */
	f.size = r.size;
	if (bh_check_found(&t->chip->checks, t->index, r.who, &f) && t->chip->noc_fault)
		t->chip->noc_fault(t, r.who, &f);
}

/* cb-reset-window (races.md #5): a core other than TRISC0 writes a CB counter, or reads one that
 * is not 0, while the tile's CB reset byte (subordinate_sync.trisc0) holds
 * RUN_SYNC_MSG_INIT_SYNC_REGISTERS: TRISC0 has been asked to zero every CB's counters and has not
 * reported DONE, so the access races the reset. A write may be zeroed behind the writer; a read of
 * a value the reset is about to zero is a kernel that started on the last run's counters (the
 * kernel's entry shows as its first CB call: cb_wait_front and cb_reserve_back read them). A read
 * of 0 is not judged: it is what the reset leaves. True when the access may go on. TRISC0's own
 * accesses (the reset itself, its pops) are not judged; nor are the host's and the NoC's (the host
 * never writes the counters; remote CBs are not modelled). */
static inline __attribute__((always_inline)) bool cb_reset_window(struct bh_access *a, struct bh_streams *st, int cb,
								    bool read, uint32_t old, uint32_t v)
{
	uint32_t flag = atomic_load_explicit(&st->cb_reset_flag, memory_order_relaxed);
	if (!flag || a->who == BH_TRISC0 || (read && !old) || !cb_check_on(a, BH_CHECK_CB_RESET_WINDOW) ||
	    bh_mem_ld(a->tile->l1 + flag - 1, 1) != BH_CB_RESET_REQUESTED)
		return true;
	return cb_reset_window_found(a, cb, flag - 1, read, old, v);
}

/* cb-publish-early (races.md #9, the Tensix side): TRISC k publishes CB cb's counter (a push,
 * tiles_received, with `push`; a pop, tiles_acked) old -> v while the unit that writes (the
 * packer) or reads (an unpacker) the CB's pages may still be at work: its instructions came
 * before the publish in program order and nothing ordered the publish after them. A STOREREG of
 * Tensix thread k is ordered by a STALLWAIT on the unit that holds the scalar unit
 * (a->tensix); a plain store of TRISC k's own by a TTSync CoprocessorDoneCheck that saw the
 * thread idle (pcbuf.tt_open). Silicon's unit may then finish after the consumer (the producer)
 * already took the page. Resets (writes of 0) and writes that do not move the counter are not
 * publishes. True when the write may go on. */
__attribute__((cold, noinline))
static bool cb_publish_early_found(struct bh_access *a, int cb, bool push, unsigned open, uint32_t old, uint32_t v)
{
	/* The unit bits are STALLWAIT's C1..C3 (fabric/mmio.h): the lowest names the unit and its wait. */
	unsigned k = a->who - BH_TRISC0, c = (unsigned)__builtin_ctz(open);
	const char *insn = push ? "PACR" : "UNPACR";
	char unit[24], other[160];
	snprintf(unit, sizeof unit, push ? "the packer" : "unpacker %u", c - 1);
	snprintf(other, sizeof other, "%s of Tensix thread %u, given a %s before this %s", unit, k, insn,
		 a->tensix ? "STOREREG" : "store");
	const char *effect = push ? "the consumer may read the page before the packer wrote it"
				  : "the producer may overwrite the page before the unpacker read it";
	const char *reg = push ? "tiles_received" : "tiles_acked";
	if (a->tensix)
		return bh_check_access(a, BH_CHECK_CB_PUBLISH_EARLY, other,
				       "%s's STOREREG publishes CB%d %s 0x%x -> 0x%x with no STALLWAIT on %s (C%u, "
				       "holding the scalar unit) since its %s in Tensix thread %u: %s (push STALLWAIT "
				       "B5 until C%u before the STOREREG)",
				       bh_requester_name(a->who), cb, reg, old, v, unit, c, insn, k, effect, c);
	return bh_check_access(a, BH_CHECK_CB_PUBLISH_EARLY, other,
			       "%s publishes CB%d %s 0x%x -> 0x%x with a store of its own while the %s it pushed "
			       "into Tensix thread %u may still be at work (no TTSync CoprocessorDoneCheck since): %s "
			       "(publish through the thread: STALLWAIT B5 until C%u, then STOREREG)",
			       bh_requester_name(a->who), cb, reg, old, v, insn, k, effect, c);
}

static bool cb_publish_early(struct bh_access *a, int cb, bool push, uint32_t old, uint32_t v)
{
	if (a->who < BH_TRISC0 || a->who > BH_TRISC2 || !v || v == old ||
	    !cb_check_on(a, BH_CHECK_CB_PUBLISH_EARLY))
		return true;
	unsigned open = a->tensix ? a->tensix
				  : atomic_load_explicit(&a->tile->pcbuf.tt_open[a->who - BH_TRISC0], memory_order_relaxed);
	open &= push ? BH_TT_OPEN_PACK : BH_TT_OPEN_UNPACK;
	return !open || cb_publish_early_found(a, cb, push, open, old, v);
}

/* pop: reg 8 moves by n = (u16)(new - old); legal while n <= (u16)(received - old). */
/* Observers of BH_EVENT_CB: the counters of CB cbi (stream s) after a push or a pop. */
__attribute__((noinline))
static void stream_trace_cb_emit(struct bh_access *a, struct bh_streams *st, unsigned s, int cbi)
{
	struct bh_hooks *h = &a->tile->chip->hooks;
	/* Time and counters under one lock: a writer preempted between reading the two could
	 * otherwise record a later counter under an earlier time than another writer's sample. */
	pthread_mutex_lock(&st->trace_lock);
	uint64_t t = bh_time_ns();
	struct bh_stream *sp = &st->s[s];
	uint32_t rcv = (uint32_t)atomic_load_explicit(&sp->size_avail, memory_order_seq_cst) & MASK17;
	uint32_t acked = atomic_load_explicit(&sp->acked, memory_order_seq_cst);
	pthread_mutex_unlock(&st->trace_lock);
	struct bh_core_event ev = { .kind = BH_EVENT_CB, .tile = a->tile->index, .time_ns = t,
				    .core = a->who < BH_CORES_PER_TILE ? (enum bh_core_id)a->who : BH_CORE_NONE,
				    .addr = (uint32_t)cbi, .value = { rcv & 0xFFFF, acked & 0xFFFF, (uint16_t)(rcv - acked) } };
	bh_hooks_emit_any(h, &ev);
}

static inline void stream_trace_cb(struct bh_access *a, struct bh_streams *st, unsigned s, int cbi)
{
	if (cbi >= 0 && bh_hooks_want(&a->tile->chip->hooks, BH_EVENT_CB))
		stream_trace_cb_emit(a, st, s, cbi);
}

static bool stream_write_acked(struct bh_access *a, struct bh_streams *st, unsigned s, uint32_t v)
{
	struct bh_stream *sp = &st->s[s];
	int cbi = stream_cb(st, s);
	int cb = v && atomic_load_explicit(&st->checks, memory_order_relaxed) ? cbi : -1;
	uint32_t old = atomic_load_explicit(&sp->acked, memory_order_seq_cst);
	if (cbi >= 0 && (!cb_reset_window(a, st, cbi, false, old, v) || !cb_publish_early(a, cbi, false, old, v)))
		return false;
	do {
		if (cb >= 0) {
			uint32_t rcv = (uint32_t)atomic_load_explicit(&sp->size_avail, memory_order_seq_cst) & MASK17;
			if ((uint16_t)(v - old) > (uint16_t)(rcv - old))
				return stream_fault_pop(a, cb, atomic_load_explicit(&st->cb[cb].pages, memory_order_relaxed),
							old, v, rcv);
			if (cb_check_on(a, BH_CHECK_CB_POP_UNWAITED) && !cb_pop_unwaited(a, st, cb, old, v, rcv))
				return false;
		}
		/* Single consumer: no other write of reg 8 races this one. */
		if (cbi >= 0)
			cb_rd_advance(st, cbi, v, (uint16_t)(v - old));
		if (cbi >= 0 && v && a->who < BH_CORES_PER_TILE)   /* who pops: cb-ownership's loads */
			atomic_store_explicit(&st->cb[cbi].consumer, a->who + 1, memory_order_relaxed);
	} while (!atomic_compare_exchange_weak_explicit(&sp->acked, &old, v, memory_order_seq_cst,
							memory_order_seq_cst));
	if (cbi >= 0 && v == 0)
		cb_seen_reset(st, cbi);
	/* The silicon also zeroes REMOTE_DEST_WR_PTR here, which bhemu does not model. */
	bh_tile_mmio_written(a->tile, a->addr);
	stream_trace_cb(a, st, s, cbi);
	return true;
}

/* push: reg 10 moves by n; legal while (u16)(old - acked) + n <= pages (when pages is known). */
static bool stream_write_received(struct bh_access *a, struct bh_streams *st, unsigned s, uint32_t v)
{
	struct bh_stream *sp = &st->s[s];
	int cb = v && atomic_load_explicit(&st->checks, memory_order_relaxed) ? stream_cb(st, s) : -1;
	uint32_t pages = cb >= 0 ? atomic_load_explicit(&st->cb[cb].pages, memory_order_relaxed) : 0;
	uint64_t old = atomic_load_explicit(&sp->size_avail, memory_order_seq_cst);
	int cbi = stream_cb(st, s);
	if (cbi >= 0 && (!cb_reset_window(a, st, cbi, false, (uint32_t)old & MASK17, v) ||
			 !cb_publish_early(a, cbi, true, (uint32_t)old & MASK17, v)))
		return false;
	do {
		uint32_t old_rcv = (uint32_t)old & MASK17, n = (uint16_t)(v - old_rcv);
		if (pages && n) {
			uint32_t acked = atomic_load_explicit(&sp->acked, memory_order_seq_cst);
			if ((uint16_t)(old_rcv - acked) + n > pages)
				return stream_fault_push(a, cb, pages, old_rcv, v, acked);
		}
	} while (!atomic_compare_exchange_weak_explicit(&sp->size_avail, &old, (uint64_t)v << 32 | v,
							memory_order_seq_cst, memory_order_seq_cst));
	if (cbi >= 0 && v == 0)
		cb_seen_reset(st, cbi);
	else if (cbi >= 0 && a->who < BH_CORES_PER_TILE) {
		atomic_store_explicit(&st->cb[cbi].producer, a->who + 1, memory_order_relaxed);
		/* A core knows what it published itself (cb-pop-unwaited). */
		atomic_store_explicit(&st->cb[cbi].seen_rcv[a->who], v, memory_order_relaxed);
		if (atomic_load_explicit(&st->cb[cbi].suspected, memory_order_relaxed))
			cb_suspect_judge(a, st, (unsigned)cbi, (uint32_t)old & MASK17, v);
	}
	bh_tile_mmio_written(a->tile, a->addr);
	bh_tile_mmio_written(a->tile, BH_STREAM_ADDR(s, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE));
	stream_trace_cb(a, st, s, cbi);
	return true;
}

/* Reg 297 moves by n (mod 2^17): a counter, of worker completions at a dispatcher, whose waiter
 * for a count is woken when the count is reached (sync/watch.h, bh_watch_until). */
static void stream_space_add(struct bh_tile *t, struct bh_stream *sp, unsigned s, uint32_t n)
{
	uint64_t add = (uint64_t)n << 32;
	uint64_t now = atomic_fetch_add_explicit(&sp->size_avail, add, memory_order_seq_cst) + add;
	bh_tile_mmio_counter_written(t, BH_STREAM_ADDR(s, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE),
				     (uint32_t)(now >> 32) & MASK17);
}

/* ---------------------------------------------------------------------------------------------
 * Address-decode handlers.
 */

static const struct stream_reg *stream_decode(struct bh_access *a, bool store, unsigned *s, unsigned *r)
{
	*s = a->off / BH_STREAM_STRIDE;
	*r = a->off % BH_STREAM_STRIDE / 4;
	const struct stream_reg *reg = stream_reg_find(*r);
	if (!reg) {
		stream_fault_unmodelled(a, *s, *r);
		return NULL;
	}
	if (!(reg->rw & (store ? BH_STREAM_WO : BH_STREAM_RO))) {
		stream_fault_direction(a, reg, store);
		return NULL;
	}
	return reg;
}

#define MASK20 0xFFFFFu

static uint32_t phase_read(uint64_t ph)
{
	return ((uint32_t)(ph >> 32) - (uint32_t)ph) & MASK20;
}

uint32_t bh_stream_curr_phase(struct bh_tile *t, unsigned s)
{
	return phase_read(atomic_load_explicit(&t->streams->s[s].phase, memory_order_seq_cst));
}

uint32_t bh_stream_num_msgs_received(struct bh_tile *t, unsigned s)
{
	return 0;   /* see streams.h: no message ever enters the FIFO */
}

void bh_stream_gate_waiters_add(struct bh_tile *t, int delta)
{
	atomic_fetch_add_explicit(&t->streams->gate_waiters, (uint32_t)delta, memory_order_seq_cst);
}

/* Reg 28 (base) or reg 29 (phase) write; both change what reg 29 reads. */
static void phase_write(struct bh_access *a, struct bh_stream *sp, unsigned s, bool base, uint32_t v)
{
	uint64_t old = atomic_load_explicit(&sp->phase, memory_order_relaxed), nv;
	do {
		uint32_t b = (uint32_t)old & MASK20, stored = (uint32_t)(old >> 32);
		if (base)
			b = v;
		else
			stored = (v + b) & MASK20;
		nv = (uint64_t)stored << 32 | b;
	} while (!atomic_compare_exchange_weak_explicit(&sp->phase, &old, nv, memory_order_seq_cst,
						       memory_order_relaxed));
	bh_tile_mmio_written(a->tile, BH_STREAM_ADDR(s, BH_STREAM_REG_CURR_PHASE_BASE));
	bh_tile_mmio_written(a->tile, BH_STREAM_ADDR(s, BH_STREAM_REG_CURR_PHASE));
	bh_tensix_gate_wake(a->tile, &a->tile->streams->gate_waiters, BH_GATE_WAKE_ALL);
}

/* The reads of a CB's two counters (every cb_wait_front and cb_reserve_back polls one). */
static bool stream_read_acked(struct bh_access *a, struct bh_streams *st, unsigned s, uint32_t *val)
{
	int cb;
	*val = atomic_load_explicit(&st->s[s].acked, memory_order_seq_cst);
	return !*val || (cb = stream_cb(st, s)) < 0 || cb_reset_window(a, st, cb, true, *val, *val);
}

static bool stream_read_received(struct bh_access *a, struct bh_streams *st, unsigned s, uint32_t *val)
{
	*val = (uint32_t)atomic_load_explicit(&st->s[s].size_avail, memory_order_seq_cst) & MASK17;
	int cb = stream_cb(st, s);
	if (cb < 0)
		return true;
	if (*val && !cb_reset_window(a, st, cb, true, *val, *val))
		return false;
	if (cb_check_on(a, BH_CHECK_CB_POP_UNWAITED))   /* what this core has seen published */
		atomic_store_explicit(&st->cb[cb].seen_rcv[a->who], *val, memory_order_relaxed);
	return true;
}

/* Every other register: the decode, then its value. */
__attribute__((noinline))
static bool stream_read_other(struct bh_access *a, uint32_t *val)
{
	unsigned s, r;
	if (!stream_decode(a, false, &s, &r))
		return false;
	struct bh_streams *st = a->dev;
	struct bh_stream *sp = &st->s[s];
	switch (r) {
	case BH_STREAM_REG_REMOTE_SRC:
		*val = atomic_load_explicit(&sp->remote_src, memory_order_seq_cst);
		break;
	case BH_STREAM_REG_PHASE_AUTO_CFG_PTR:
		*val = atomic_load_explicit(&sp->phase_auto_cfg, memory_order_seq_cst);
		break;
	case BH_STREAM_REG_CURR_PHASE_BASE:
		*val = (uint32_t)atomic_load_explicit(&sp->phase, memory_order_seq_cst) & MASK20;
		break;
	case BH_STREAM_REG_CURR_PHASE:
		*val = phase_read(atomic_load_explicit(&sp->phase, memory_order_seq_cst));
		break;
	case BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE:
		*val = (uint32_t)(atomic_load_explicit(&sp->size_avail, memory_order_seq_cst) >> 32) & MASK17;
		break;
	default:
		break;   /* write-only registers were refused by stream_decode, the counters taken above */
	}
	return true;
}

bool bh_stream_mmio_read(struct bh_access *a, uint32_t *val)
{
	/* The two counters first: readable registers, which stream_decode admits. */
	unsigned s = a->off / BH_STREAM_STRIDE, r = a->off % BH_STREAM_STRIDE / 4;
	if (r == BH_STREAM_REG_REMOTE_DEST_BUF_SIZE)
		return stream_read_received(a, a->dev, s, val);
	if (r == BH_STREAM_REG_REMOTE_DEST_BUF_START)
		return stream_read_acked(a, a->dev, s, val);
	return stream_read_other(a, val);
}

/* Every other register: the decode, then its effect. */
__attribute__((noinline))
static bool stream_write_other(struct bh_access *a, uint32_t val)
{
	unsigned s, r;
	const struct stream_reg *reg = stream_decode(a, true, &s, &r);
	if (!reg)
		return false;
	struct bh_streams *st = a->dev;
	struct bh_stream *sp = &st->s[s];
	uint32_t v = val & stream_reg_mask(reg);
	switch (r) {
	case BH_STREAM_REG_REMOTE_SRC:
		atomic_store_explicit(&sp->remote_src, v, memory_order_seq_cst);
		break;
	case BH_STREAM_REG_PHASE_AUTO_CFG_PTR:
		/* The "sync register" of get_sync_register_ptr(). On Wormhole a base register is added
		 * on write and subtracted on read; unverified for Blackhole and unused by p100a
		 * firmware, so it is a plain 17-bit cell here. */
		atomic_store_explicit(&sp->phase_auto_cfg, v, memory_order_seq_cst);
		break;
	case BH_STREAM_REG_CURR_PHASE_BASE:
	case BH_STREAM_REG_CURR_PHASE:
		phase_write(a, sp, s, r == BH_STREAM_REG_CURR_PHASE_BASE, v);
		return true;
	case BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE:
		/* (j << 6) + i adds j to sub-counter i; i > 0 exists only on multicast streams. A
		 * logical shift, and 2^26 being a multiple of 2^17, make (uint32)(-v) << 6 subtract v. */
		if (v & 0x3F)
			return stream_fault_subcounter(a, v);
		stream_space_add(a->tile, sp, s, v >> 6);
		return true;
	default:
		break;   /* read-only registers were refused by stream_decode, the counters taken above */
	}
	bh_tile_mmio_written(a->tile, a->addr);
	return true;
}

bool bh_stream_mmio_write(struct bh_access *a, uint32_t val)
{
	/* The two counters first (a CB's push and pop): writable registers, which stream_decode
	 * admits. */
	unsigned s = a->off / BH_STREAM_STRIDE, r = a->off % BH_STREAM_STRIDE / 4;
	if (r == BH_STREAM_REG_REMOTE_DEST_BUF_SIZE)
		return stream_write_received(a, a->dev, s, val & stream_reg_mask(&stream_regs[SR_REMOTE_DEST_BUF_SIZE]));
	if (r == BH_STREAM_REG_REMOTE_DEST_BUF_START)
		return stream_write_acked(a, a->dev, s, val & stream_reg_mask(&stream_regs[SR_REMOTE_DEST_BUF_START]));
	return stream_write_other(a, val);
}

/* ---------------------------------------------------------------------------------------------
 * Host and C-code access, configuration, lifecycle.
 */

bool bh_stream_access(struct bh_tile *t, unsigned who, unsigned s, unsigned r, bool store, uint32_t *val,
		      struct bh_fault *f)
{
	if (s >= BH_STREAM_COUNT || r >= BH_STREAM_REG_COUNT)
		return bh_fault_fill(f, BH_FAULT_UNMAPPED, 0, "NoC overlay stream registers",
				     "stream %u register %u is outside the stream window (%u streams of %u registers)", s, r,
				     BH_STREAM_COUNT, BH_STREAM_REG_COUNT);
	return bh_mmio_access(t, who, BH_STREAM_ADDR(s, r), 4, store, val, f, NULL, 0) == BH_ACC_OK;
}

uint32_t bh_stream_read(struct bh_tile *t, unsigned s, unsigned r)
{
	struct bh_fault f = { 0 };
	uint32_t v = 0;
	if (!bh_stream_access(t, BH_REQ_HOST, s, r, false, &v, &f)) {
		fprintf(stderr, "bhemu: bh_stream_read(stream %u, reg %u): %s: %s\n", s, r, f.region, f.detail);
		abort();
	}
	return v;
}

bool bh_stream_write(struct bh_tile *t, unsigned s, unsigned r, uint32_t val)
{
	struct bh_fault f = { 0 };
	return bh_stream_access(t, BH_REQ_HOST, s, r, true, &val, &f);
}

bool bh_stream_set_cb_layout(struct bh_tile *t, unsigned first_stream, unsigned num_cbs)
{
	if (first_stream >= BH_STREAM_COUNT || num_cbs > BH_STREAM_COUNT - first_stream)
		return false;
	atomic_store_explicit(&t->streams->cb_layout, first_stream | num_cbs << 8, memory_order_relaxed);
	return true;
}

void bh_stream_set_cb_reset_flag(struct bh_tile *t, uint32_t addr)
{
	atomic_store_explicit(&t->streams->cb_reset_flag, addr < BH_L1_SIZE ? addr + 1 : 0, memory_order_relaxed);
}

bool bh_stream_cb_launch_check(struct bh_tile *t, bool fast)
{
	struct bh_streams *st = t->streams;
	uint32_t flag = atomic_load_explicit(&st->cb_reset_flag, memory_order_relaxed);
	if (!flag || !bh_checks_on(&t->chip->checks, BH_CHECK_CB_RESET_WINDOW))
		return false;
	/* The firmware fences (a seq_cst fence each) between its counter writes and its mailbox
	 * stores (go DONE, the reset byte); these fences pair with them. */
	atomic_thread_fence(memory_order_seq_cst);
	uint8_t reset = (uint8_t)bh_mem_ld(t->l1 + flag - 1, 1);
	atomic_thread_fence(memory_order_seq_cst);
	if (reset != 0)
		return false;
	uint32_t layout = atomic_load_explicit(&st->cb_layout, memory_order_relaxed);
	unsigned first = layout & 0xFF, num = layout >> 8 & 0xFF;
	for (unsigned cb = 0; cb < num; cb++) {
		uint32_t rcv = (uint32_t)atomic_load_explicit(&st->s[first + cb].size_avail, memory_order_seq_cst) & MASK17;
		uint32_t acked = atomic_load_explicit(&st->s[first + cb].acked, memory_order_seq_cst);
		if (!rcv && !acked)
			continue;
		uint32_t addr = BH_STREAM_ADDR(first + cb, rcv ? BH_STREAM_REG_CB_RECEIVED : BH_STREAM_REG_CB_ACKED);
		char region[96], other[192];
		struct bh_fault f;
		bh_stream_describe(t, addr, region, sizeof region);
		snprintf(other, sizeof other, "brisc of (%u,%u), whose firmware starts the kernels: no counter reset is "
			 "pending (subordinate_sync.trisc0, L1 0x%x, is DONE)", t->x, t->y, flag - 1);
		bh_check_fill(&f, BH_CHECK_CB_RESET_WINDOW, addr, region, other,
			      "%s (%u,%u) with CB%u tiles_received 0x%x and tiles_acked 0x%x: the counters "
			      "were not reset since a run moved them (BRISC asks TRISC0 to reset them, subordinate_sync.trisc0 "
			      "= 3, after every run), so the kernels start on stale counters",
			      fast ? "the dispatcher sends GO to" : "the host launches on", t->x, t->y, cb, rcv, acked);
		f.pc = t->chip->core_pc ? t->chip->core_pc(t, BH_BRISC) : 0;
		bh_check_found(&t->chip->checks, t->index, BH_BRISC, &f);
		return true;
	}
	return false;
}

bool bh_stream_set_cb_config(struct bh_tile *t, unsigned cb_index, uint32_t addr, uint32_t pages, uint32_t page_size)
{
	if (cb_index >= BH_STREAM_MAX_CBS || pages > 0xFFFF || (page_size && (!pages || addr >= BH_L1_SIZE ||
								       (uint64_t)pages * page_size > BH_L1_SIZE - addr)))
		return false;
	struct bh_stream_cb *c = &t->streams->cb[cb_index];
	bool same = atomic_load_explicit(&c->pages, memory_order_relaxed) == pages &&
		    atomic_load_explicit(&c->addr, memory_order_relaxed) == addr &&
		    atomic_load_explicit(&c->page_size, memory_order_relaxed) == page_size;
	if (same)
		return true;   /* the other side of the CB set it up the same way */
	/* A new FIFO: its oldest page is in slot 0 (the interfaces start at the FIFO start). */
	atomic_store_explicit(&c->page_size, 0, memory_order_relaxed);
	int s = (int)(atomic_load_explicit(&t->streams->cb_layout, memory_order_relaxed) & 0xFF) + (int)cb_index;
	uint32_t acked = s < (int)BH_STREAM_COUNT ? atomic_load_explicit(&t->streams->s[s].acked, memory_order_relaxed) : 0;
	atomic_store_explicit(&c->rd, acked, memory_order_relaxed);
	cb_seen_reset(t->streams, (int)cb_index);
	atomic_store_explicit(&c->pages, pages, memory_order_relaxed);
	atomic_store_explicit(&c->addr, addr, memory_order_relaxed);
	atomic_store_explicit(&c->page_size, page_size, memory_order_release);
	/* cb-ownership: stores into the FIFO's L1 pages leave the fast path (bits are only ever
	 * added: a page no CB uses any more costs a slow store and no finding). */
	if (page_size && bh_checks_on(&t->chip->checks, BH_CHECK_CB_OWNERSHIP))
		for (uint32_t p = addr >> BH_L1_PAGE_SHIFT; p <= (addr + pages * page_size - 1) >> BH_L1_PAGE_SHIFT; p++) {
			atomic_fetch_or_explicit(&t->cb_page_mark[p / 32], 1u << (p % 32), memory_order_seq_cst);
			atomic_fetch_or_explicit(&t->code_pages[p], BH_PAGE_CB, memory_order_seq_cst);
		}
	return true;
}

bool bh_stream_set_cb_pages(struct bh_tile *t, unsigned cb_index, uint32_t pages)
{
	return bh_stream_set_cb_config(t, cb_index, 0, pages, 0);
}

bool bh_stream_cb_page_at(struct bh_tile *t, uint32_t addr, struct bh_cb_page *pg)
{
	struct bh_streams *st = t->streams;
	uint32_t layout = atomic_load_explicit(&st->cb_layout, memory_order_relaxed);
	unsigned first = layout & 0xFF, num = layout >> 8 & 0xFF;
	for (unsigned cb = 0; cb < num; cb++) {
		struct bh_stream_cb *c = &st->cb[cb];
		uint32_t page_size = atomic_load_explicit(&c->page_size, memory_order_acquire);
		uint32_t start = atomic_load_explicit(&c->addr, memory_order_relaxed);
		uint32_t pages = atomic_load_explicit(&c->pages, memory_order_relaxed);
		if (!page_size || addr - start >= pages * page_size)
			continue;
		/* The oldest unpopped page first, then tiles_received: both only grow, and a page the
		 * consumer freed is free in rd before the register says so. */
		uint64_t rd = atomic_load_explicit(&c->rd, memory_order_seq_cst);
		uint32_t rcv = (uint32_t)atomic_load_explicit(&st->s[first + cb].size_avail, memory_order_seq_cst) & MASK17;
		uint32_t acked = (uint32_t)rd & MASK17, held = (uint16_t)(rcv - acked);
		uint32_t slot = (addr - start) / page_size, k = (slot + pages - (uint32_t)(rd >> 32)) % pages;
		*pg = (struct bh_cb_page){ .cb = cb, .slot = slot, .pages = pages, .addr = start + slot * page_size,
					   .size = page_size,
					   .received = rcv, .acked = acked, .published = k < held,
					   .seq = (uint16_t)(acked + k) };
		uint32_t p = atomic_load_explicit(&c->producer, memory_order_relaxed);
		uint32_t fl = atomic_load_explicit(&c->filler, memory_order_relaxed);
		pg->producer = p ? (int)p - 1 : -1;
		pg->filler = fl ? (int)fl - 1 : -1;
		return true;
	}
	return false;
}

/* The lowest start of a known CB FIFO above addr, or UINT32_MAX. */
static uint32_t cb_next_fifo(struct bh_tile *t, uint32_t addr)
{
	struct bh_streams *st = t->streams;
	uint32_t layout = atomic_load_explicit(&st->cb_layout, memory_order_relaxed), next = UINT32_MAX;
	for (unsigned cb = 0, num = layout >> 8 & 0xFF; cb < num; cb++) {
		uint32_t start = atomic_load_explicit(&st->cb[cb].addr, memory_order_relaxed);
		if (atomic_load_explicit(&st->cb[cb].page_size, memory_order_acquire) && start > addr && start < next)
			next = start;
	}
	return next;
}

bool bh_stream_cb_page_in(struct bh_tile *t, uint32_t addr, uint32_t len, bool published, struct bh_cb_page *pg)
{
	uint64_t end = (uint64_t)addr + len;
	for (uint64_t a = addr; a < end;) {
		if (!bh_stream_cb_page_at(t, (uint32_t)a, pg)) {
			a = cb_next_fifo(t, (uint32_t)a);
			continue;
		}
		if (pg->published == published)
			return true;
		a = (uint64_t)pg->addr + pg->size;
	}
	return false;
}

const char *bh_stream_cb_page_region(const struct bh_cb_page *pg, char *buf, size_t n)
{
	snprintf(buf, n, "CB%u %s %u of %u (L1 0x%x)", pg->cb, pg->published ? "page" : "slot", pg->slot, pg->pages,
		 pg->addr);
	return buf;
}

const char *bh_stream_cb_page_party(const struct bh_cb_page *pg, char *buf, size_t n)
{
	if (pg->published)
		snprintf(buf, n, "the consumer of CB%u: it has not popped page 0x%x yet (tiles_acked 0x%x, "
			 "tiles_received 0x%x)", pg->cb, pg->seq, pg->acked, pg->received);
	else if (pg->producer >= 0)
		snprintf(buf, n, "%s, the producer of CB%u: it has pushed tiles_received to 0x%x (tiles_acked 0x%x)",
			 bh_requester_name((unsigned)pg->producer), pg->cb, pg->received, pg->acked);
	else if (pg->filler >= 0)
		snprintf(buf, n, "%s, the producer of CB%u: it writes the CB's free slots and has pushed nothing yet",
			 bh_requester_name((unsigned)pg->filler), pg->cb);
	else
		snprintf(buf, n, "the producer of CB%u, which has pushed nothing yet", pg->cb);
	return buf;
}

bool bh_stream_cb_store_check(struct bh_tile *t, unsigned who, uint32_t addr, unsigned len, struct bh_fault *f)
{
	struct bh_cb_page pg;
	if (!bh_checks_on(&t->chip->checks, BH_CHECK_CB_OWNERSHIP) || !bh_stream_cb_page_at(t, addr, &pg))
		return false;
	if (!pg.published && pg.producer < 0)
		cb_note_filler(t->streams, pg.cb, who);   /* filling it before the first push */
	if (!pg.published || pg.producer != (int)who)
		return false;
	char region[64], other[160];
	bh_check_fill(f, BH_CHECK_CB_OWNERSHIP, addr, bh_stream_cb_page_region(&pg, region, sizeof region),
		      bh_stream_cb_page_party(&pg, other, sizeof other),
		      "%u-byte store by %s, the producer of CB%u, into page 0x%x, which it published (cb_push_back) and "
		      "the consumer still holds: write only pages cb_reserve_back gave you, before cb_push_back",
		      len, bh_requester_name(who), pg.cb, pg.seq);
	f->has_addr = true;
	f->is_store = true;
	f->size = len;
	return true;
}

void bh_stream_cb_filled(struct bh_tile *t, uint32_t addr, uint32_t len, unsigned who)
{
	struct bh_cb_page pg;
	if (who < BH_CORES_PER_TILE && bh_checks_on(&t->chip->checks, BH_CHECK_CB_OWNERSHIP) &&
	    bh_stream_cb_page_in(t, addr, len, false, &pg) && pg.producer < 0)
		cb_note_filler(t->streams, pg.cb, who);
}

bool bh_stream_cb_read_check(struct bh_tile *t, unsigned who, uint32_t addr, uint32_t len, uint32_t pc, bool noc,
			     struct bh_fault *f)
{
	struct bh_cb_page pg;
	if (!bh_checks_on(&t->chip->checks, BH_CHECK_CB_OWNERSHIP) || who >= BH_CORES_PER_TILE ||
	    !bh_stream_cb_page_in(t, addr, len, false, &pg) || pg.producer == (int)who)
		return false;
	struct bh_stream_cb *c = &t->streams->cb[pg.cb];
	uint32_t at = pg.addr > addr ? pg.addr : addr;
	/* Nobody pushed yet: a core that popped before is the consumer; one that did not is judged if
	 * another core is filling the CB, and at the first push if nobody is yet. */
	if (pg.producer < 0 && atomic_load_explicit(&c->consumer, memory_order_relaxed) != who + 1) {
		if (pg.filler == (int)who)
			return false;
		if (pg.filler < 0) {
			struct cb_suspect r = { (uint8_t)who, noc, pc, at, noc ? len - (at - addr) : len, pg.slot,
						pg.received };
			if (!atomic_load_explicit(&c->suspected, memory_order_relaxed))
				cb_suspect_keep(t->streams, pg.cb, &r);
			return false;
		}
	}
	char region[64], other[160], what[96];
	if (noc)
		snprintf(what, sizeof what, "NoC write issued by %s reads its %u-byte source at 0x%x%s", bh_requester_name(who),
			 len, addr, at > addr ? ", some of it," : "");
	else
		snprintf(what, sizeof what, "%u-byte load by %s", len, bh_requester_name(who));
	bh_check_fill(f, BH_CHECK_CB_OWNERSHIP, at, bh_stream_cb_page_region(&pg, region, sizeof region),
		      bh_stream_cb_page_party(&pg, other, sizeof other),
		      "%s from CB%u slot %u, which holds no published page (tiles_acked 0x%x, tiles_received 0x%x): %s",
		      what, pg.cb, pg.slot, pg.acked, pg.received,
		      noc ? "send only pages cb_wait_front gave you, and pop them only after noc_async_write_barrier"
			  : "read only pages cb_wait_front gave you, before cb_pop_front");
	f->pc = pc;
	f->insn = pc < BH_L1_SIZE && !(pc & 3) ? bh_mem_ld(t->l1 + pc, 4) : 0;
	f->has_addr = !noc;   /* a load's access line; a NoC write's pc is its CMD_CTRL store */
	f->is_store = false;
	f->size = len;
	return true;
}

void bh_stream_set_checks(struct bh_tile *t, bool on)
{
	atomic_store_explicit(&t->streams->checks, on, memory_order_relaxed);
}

struct bh_streams *bh_stream_create(void)
{
	struct bh_streams *st = aligned_alloc(_Alignof(struct bh_streams), sizeof *st);
	if (!st)
		return NULL;
	for (unsigned s = 0; s < BH_STREAM_COUNT; s++) {
		atomic_init(&st->s[s].size_avail, 0);
		atomic_init(&st->s[s].acked, 0);
		atomic_init(&st->s[s].remote_src, 0);
		atomic_init(&st->s[s].phase_auto_cfg, 0);
		atomic_init(&st->s[s].phase, 0);
	}
	memset(st->cb, 0, sizeof st->cb);   /* every CB unknown, nothing seen */
	atomic_init(&st->cb_layout, 8u | 32u << 8);   /* p100a: CB k on stream 8 + k, 32 CBs */
	atomic_init(&st->cb_reset_flag, 0);
	atomic_init(&st->checks, true);
	atomic_init(&st->gate_waiters, 0);
	pthread_mutex_init(&st->trace_lock, NULL);
	pthread_mutex_init(&st->suspect_lock, NULL);
	return st;
}

void bh_stream_free(struct bh_streams *st)
{
	if (st) {
		pthread_mutex_destroy(&st->trace_lock);
		pthread_mutex_destroy(&st->suspect_lock);
	}
	free(st);
}

