/* NoC transactions (noc.md sections 1, 3-8, 11): what one NOC_CMD_CTRL store asks for, between
 * any endpoints of the chip (Tensix L1 and registers, DRAM banks, host memory behind the PCIe
 * tile), in translated coordinates on both NoCs.
 *
 * Two steps, so that a later engine thread can sit between them:
 *   bh_noc_issue()    reads the initiator's registers, checks everything firmware can get wrong
 *                     (faults land on the issuing core, at its CMD_CTRL store), resolves the
 *                     endpoints and moves the counters that hardware moves at the CMD_CTRL write
 *                     (REQS_OUTSTANDING_ID, WRITE_REQS_OUTGOING_ID);
 *   bh_noc_complete() moves the data packet by packet and the remaining counters, each with
 *                     release order after the data it reports is visible at its destination.
 * Today the NIU calls both at the CMD_CTRL store (the ttsim model, enough for tt-metal), so
 * NOC_CMD_CTRL reads 0 right after. A queued engine would keep CMD_CTRL busy until accepted,
 * move *_SENT before the acks, and need another way to report target-side faults (a register
 * write refused at the destination), which today also land on the issuing core. */
#ifndef BH_FABRIC_NOC_H
#define BH_FABRIC_NOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fault.h"

struct bh_chip;
struct bh_tile;

#define BH_NOC_PACKET_MAX 16384u     /* hardware splits longer requests into packets this long */
#define BH_NOC_MMIO_BASE  0xFF000000u

enum bh_noc_op {
	BH_NOC_OP_READ,
	BH_NOC_OP_WRITE,
	BH_NOC_OP_WRITE_BE,       /* byte-enable mask of up to 64 bytes */
	BH_NOC_OP_WRITE_INLINE,   /* NOC_AT_DATA to a register of a Tensix tile */
	BH_NOC_OP_ATOMIC,
};

/* One side of a transfer, resolved at issue. */
enum bh_noc_side_kind {
	BH_NOC_SIDE_L1,           /* Tensix L1: tile, addr */
	BH_NOC_SIDE_MMIO,         /* a Tensix register, 4 bytes: tile, addr */
	BH_NOC_SIDE_MEM,          /* DRAM bank or host memory: mem points at the first byte */
	BH_NOC_SIDE_HOST,         /* host memory the chip's owner serves (chip->host_io): NoC address host */
};

struct bh_noc_side {
	uint8_t kind;             /* enum bh_noc_side_kind */
	struct bh_tile *tile;
	uint32_t addr;
	uint8_t *mem;
	uint64_t host;
};

struct bh_noc_txn {
	struct bh_chip *chip;
	struct bh_tile *init;     /* initiating tile; its NIU `noc` issued the request */
	uint8_t noc, buf, id;     /* NoC, initiator, transaction id (NOC_PACKET_TAG [13:10]) */
	uint8_t op;               /* enum bh_noc_op */
	uint8_t who;              /* the core that wrote CMD_CTRL (enum bh_core_kind), else BH_CORES_PER_TILE */
	uint32_t pc;              /* its pc there */
	bool resp;                /* response / ack wanted (reads always) */
	bool mcast;
	bool src_include;         /* multicast: the initiator receives too (BRCST_SRC_INCLUDE) */
	bool vc_static;           /* VC_STATIC: delivered in order with its VC's other requests */
	uint8_t vc;               /* NOC_CTRL [15:13] */
	uint32_t len;             /* bytes (read, write) */
	uint32_t packets;         /* ceil(len / 16384), 1 for the rest */
	uint64_t be;              /* WR_BE byte mask, bit i = byte i of the 16-byte aligned base */
	uint32_t data;            /* NOC_AT_DATA: inline value or atomic operand */
	uint32_t at;              /* NOC_AT_LEN_BE of an atomic */
	struct bh_noc_side src;   /* read: the target; write: local data (unused for inline/atomic) */
	struct bh_noc_side dst;   /* read: return address; write/inline/atomic: destination (for
				     a multicast: the address, tile NULL) */
	struct bh_noc_side ret;   /* atomic with response: where the old value goes */
	struct bh_tile *ack;      /* tile whose NIU `noc` counts the responses (NULL: posted) */
	uint64_t span_x, span_y;  /* multicast: receiving translated columns / rows (bit = coordinate) */
	uint64_t trace_id;        /* for observers of BH_EVENT_NOC_* (0: none asked when it issued) */
	bool by_runner;           /* its phases run on the asynchronous NoC's runner (bh_niu_count_run) */
};

/* Build the transaction of initiator `buf` of NIU `noc` on tile t. False: *f says what firmware
 * did wrong (and nothing moved). */
bool bh_noc_issue(struct bh_tile *t, unsigned noc, unsigned buf, struct bh_noc_txn *txn, struct bh_fault *f);
/* Tell observers that txn issued (BH_EVENT_NOC_ISSUE), giving it an id its landings carry. Any
 * thread, no lock held. */
void bh_noc_trace_issue(struct bh_noc_txn *txn);
/* Move data and counters at once (the synchronous NoC). False: a destination refused the data
 * (*f says why); the counters of what did arrive have moved. */
bool bh_noc_complete(struct bh_noc_txn *txn, struct bh_fault *f);

/* The phases of a transaction, in order, for the asynchronous engine (fabric/noc_engine.c);
 * bh_noc_complete runs them back to back.
 *   accepted:    the initiator took the request: CMD_ACCEPTED, *_STARTED, *_SENT (split
 *                requests write their last packet's length and addresses back);
 *   deliver:     the data at one receiver (bh_noc_next_receiver: the destination, or each tile
 *                of a multicast rectangle; *it starts at 0): a write lands there (with the
 *                destination's page check: wake-ups, stale code), a read's data lands in the
 *                initiator's L1, an atomic applies (*old: its result); src is where the data
 *                comes from (txn->src, or a snapshot of it);
 *   accepted_unsent, sent: accepted without *_SENT, and *_SENT alone (bh_noc_accepted is both),
 *                for a write that reads its source as it lands (fabric/noc_engine.c: one step);
 *   source_read: a write's source has been read: WRITE_REQS_OUTGOING drops;
 *   responded:   one receiver's response arrived: the ack / response counters (an atomic's
 *                result stored to RET first), OUTSTANDING drops. */
void bh_noc_accepted(const struct bh_noc_txn *txn);
void bh_noc_accepted_unsent(const struct bh_noc_txn *txn);
void bh_noc_sent(const struct bh_noc_txn *txn);
bool bh_noc_next_receiver(const struct bh_noc_txn *txn, unsigned *it, struct bh_noc_side *d);
bool bh_noc_deliver(const struct bh_noc_txn *txn, const struct bh_noc_side *d, const struct bh_noc_side *src,
		    uint32_t *old, struct bh_fault *f);
void bh_noc_source_read(const struct bh_noc_txn *txn);
void bh_noc_responded(const struct bh_noc_txn *txn, uint32_t old);
/* An atomic in one step, for a core's CMD_CTRL store when the request needs nothing of the general
 * issue: quick builds the transaction of initiator buf (x->who and x->pc left to the caller) when
 * it is a unicast atomic that bh_noc_issue would accept without a fault, whose response (if any)
 * returns to t, outside a VC_LINKED mismatch and with no observer of BH_EVENT_NOC_*; false,
 * nothing done, otherwise. *link is what NIU `linked` becomes. now then does what bh_noc_issue
 * and bh_noc_complete do for it, in their order (the counters as noc.md 3.4 moves them, the
 * atomic, its page check, atomic-into-code, the result and its counter); REQS_OUTSTANDING_ID,
 * up and down again on the same NIU, is not moved; x->who must be a core (on its thread). False:
 * *f (atomic-into-code stops). */
bool bh_noc_atomic_quick(struct bh_tile *t, unsigned noc, unsigned buf, struct bh_noc_txn *x, uint64_t *link);
bool bh_noc_atomic_now(const struct bh_noc_txn *x, uint64_t link, struct bh_fault *f);
/* Atomics done by bh_noc_atomic_now on the chip's tiles so far (tests, statistics). */
uint64_t bh_noc_one_step_atomics(const struct bh_chip *chip);
/* Whether a write from tile init on `noc` to hi (a tile, or a rectangle when mcast, without
 * BRCST_SRC_INCLUDE) would reach tile t: for checks made before anything moves. */
bool bh_noc_write_reaches(struct bh_tile *init, unsigned noc, uint32_t hi, bool mcast, const struct bh_tile *t);
/* The Tensix tile a unicast to hi (its NoC x/y) reaches, or NULL. */
struct bh_tile *bh_noc_unicast_tile(const struct bh_chip *c, uint32_t hi);

/* ---------------------------------------------------------------------------------------------
 * The asynchronous NoC (fabric/noc_engine.c). With an engine (chip->noc), a CMD_CTRL store only
 * issues: the request is in flight until the engine runs its phases at times drawn from the
 * latency model; CMD_CTRL reads 1 until it is accepted, counters move when hardware moves them,
 * data lands (and wakes pollers) at its destination's own time.
 */

/* Time of one transaction: base + hop * hops + byte_ps * bytes / 1000, plus a uniform jitter
 * 0..jitter_ns drawn from the engine's seeded stream; the response takes the way back. */
struct bh_noc_latency {
	uint32_t base_ns, hop_ns, byte_ps, jitter_ns;
};

struct bh_noc_engine;
struct bh_waiter;

/* Create the engine of chip (tiles assembled) and its thread. NULL if out of memory. */
struct bh_noc_engine *bh_noc_engine_create(struct bh_chip *chip, const struct bh_noc_latency *lat, uint64_t seed);
/* Stop the thread; what is still in flight is dropped. Before the tiles go. */
void bh_noc_engine_destroy(struct bh_noc_engine *e);
/* True: the issued transaction x completes at its CMD_CTRL store (the caller does it, as on the
 * synchronous NoC): a unicast atomic whose round trip always fits in a barrier's look-ahead,
 * issued while nothing is in flight on the chip (fabric/noc_engine.c). */
bool bh_noc_at_issue(struct bh_noc_engine *e, const struct bh_noc_txn *x);
/* Whether a unicast atomic issued now would complete at its store (bh_noc_at_issue's test of the
 * engine alone; nothing counted). */
bool bh_noc_at_issue_open(const struct bh_noc_engine *e);
/* Put an issued transaction in flight for requester `who` (enum bh_core_kind). False: *f. */
bool bh_noc_submit(struct bh_noc_engine *e, const struct bh_noc_txn *x, unsigned who, struct bh_fault *f);
/* Run what is due now on the calling thread, unless someone already runs the engine: a core
 * reading the counters a barrier polls finishes due work without a thread hand-off. */
void bh_noc_engine_help(struct bh_noc_engine *e);
/* Run everything in flight now, in order (the host flushes the NoC). */
void bh_noc_engine_flush(struct bh_noc_engine *e);
/* The NoC thread's waiter (an actor for deadlock detection: TIMED while anything is in flight). */
/* A core (or model) about to park: threaded, it first runs what is due within the look-ahead
 * itself, as a core at a barrier does (a posted write it just issued lands without a hand-off to
 * the NoC thread); then, if events wait and the NoC thread would look at them later than their
 * grace time (its tick grew while cores ran everything themselves), wakes it. Any thread; NULL:
 * no engine. */
void bh_noc_engine_nudge(struct bh_noc_engine *e);
struct bh_waiter *bh_noc_engine_waiter(struct bh_noc_engine *e);
uint64_t bh_noc_engine_inflight(const struct bh_noc_engine *e);
/* The word bh_noc_engine_help looks at first: UINT64_MAX while no event waits (it returns at
 * once). Compiled code reads it to skip the call (cores/rv32_jit.c). */
const _Atomic uint64_t *bh_noc_engine_earliest(const struct bh_noc_engine *e);
/* Requests done in one step so far (a unicast write, read or atomic whose round trip fits in the
 * one-step window: fabric/noc_engine.c). */
uint64_t bh_noc_engine_all_in_one(const struct bh_noc_engine *e);
/* Atomics completed at their CMD_CTRL store (bh_noc_at_issue, or in one step: bh_noc_atomic_now),
 * for tests and statistics. */
uint64_t bh_noc_engine_at_issue(const struct bh_noc_engine *e);
/* "zero", "silicon", "slow", or "MIN:MAX" (ns). False: err says why. */
bool bh_noc_latency_parse(const char *s, struct bh_noc_latency *out, char *err, size_t errlen);

#endif
