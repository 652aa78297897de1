/* NoC interface units (noc.md section 3): every tile has one NIU per NoC, NoC0 at 0xFFB20000 and
 * NoC1 at 0xFFB30000. Each has four request initiators ("command buffers") at +0x800·b, a
 * configuration block at +0x100 and the counters at +0x200. Writing 1 to NOC_CMD_CTRL hands the
 * initiator's registers to fabric/noc.c, which runs the transaction on the issuing thread.
 *
 * Coordinates: bhemu has no physical NoC coordinates; every coordinate it knows is translated
 * (NIU_CFG_0 bit 14, always on). The tile's translated (x, y) are tile->x, tile->y. Registers
 * that hardware fills with NoC coordinates are derived from them: NOC_NODE_ID reports (x, y) on
 * NoC0 (translated = NoC0 physical for Tensix on an unharvested chip) and the NoC1 flip
 * (16 - x, 11 - y) on NoC1; NOC_ID_LOGICAL holds (x, y) on both, as ARC firmware leaves it.
 *
 * Concurrency: every register cell is an atomic. Initiator registers are written by whichever
 * core owns the initiator (or the host) and read, relaxed, by the same core's CMD_CTRL store.
 * Counters are moved by any thread whose transaction completes (release, after the data is
 * visible at the destination) and read with acquire by cores and the host. */
#ifndef BH_FABRIC_NIU_H
#define BH_FABRIC_NIU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/niu_check.h"

struct bh_fault;
struct bh_access;
struct bh_tile;

#define BH_NIU_BASE(noc)       (0xFFB20000u + 0x10000u * (noc))
#define BH_NIU_SIZE            0x10000u
#define BH_NIU_CMD_BUFS        4u
#define BH_NIU_CMD_BUF_STRIDE  0x800u
#define BH_NIU_CFG_BASE        0x100u
#define BH_NIU_COUNTER_BASE    0x200u
#define BH_NIU_TXN_IDS         16u

/* Request-initiator registers, at +0x800·b: X(offset, NAME, writable). */
#define BH_NIU_CMDBUF_REGS(X) \
	X(0x00, TARG_ADDR_LO, 1) \
	X(0x04, TARG_ADDR_MID, 1) \
	X(0x08, TARG_ADDR_HI, 1) \
	X(0x0C, RET_ADDR_LO, 1) \
	X(0x10, RET_ADDR_MID, 1) \
	X(0x14, RET_ADDR_HI, 1) \
	X(0x18, PACKET_TAG, 1) \
	X(0x1C, CTRL, 1) \
	X(0x20, AT_LEN_BE, 1) \
	X(0x24, AT_LEN_BE_1, 1) \
	X(0x28, AT_DATA, 1) \
	X(0x2C, BRCST_EXCLUDE, 1) \
	X(0x30, L1_ACC_AT_INSTRN, 1) \
	X(0x40, CMD_CTRL, 1) \
	X(0x44, NODE_ID, 0) \
	X(0x48, ENDPOINT_ID, 0)

enum bh_niu_cmdbuf_reg {
#define X(off, name, w) BH_NIU_##name = off,
	BH_NIU_CMDBUF_REGS(X)
#undef X
};
#define BH_NIU_CMDBUF_CELLS (BH_NIU_CMD_CTRL / 4u + 1u)   /* plain storage 0x00..0x40 */

/* Once per NIU, in the window of initiator 0. */
#define BH_NIU_CLEAR_OUTSTANDING_REQ_CNT 0x060u
/* Configuration block: X(offset, NAME, writable). */
#define BH_NIU_CFG_REGS(X) \
	X(0x100, NIU_CFG_0, 1) \
	X(0x104, ROUTER_CFG_0, 1) \
	X(0x108, ROUTER_CFG_1, 1) \
	X(0x10C, ROUTER_CFG_2, 1) \
	X(0x110, ROUTER_CFG_3, 1) \
	X(0x114, ROUTER_CFG_4, 1) \
	X(0x148, NOC_ID_LOGICAL, 0)

enum bh_niu_cfg_reg {
#define X(off, name, w) BH_NIU_##name = off,
	BH_NIU_CFG_REGS(X)
#undef X
};
#define BH_NIU_CFG_CELLS 6u                       /* NIU_CFG_0, ROUTER_CFG_0..4 */

#define BH_NIU_CFG0_TILE_CLOCK_DISABLE (1u << 12)
#define BH_NIU_CFG0_TRANSLATE          (1u << 14)
#define BH_NIU_CFG0_RESET              BH_NIU_CFG0_TRANSLATE

/* NOC_CTRL (noc.md 3.2). */
#define BH_NOC_CTRL_TYPE_MASK      0x3u
#define BH_NOC_CTRL_RD             0x0u
#define BH_NOC_CTRL_AT             0x1u
#define BH_NOC_CTRL_WR             0x2u
#define BH_NOC_CTRL_WR_BE          (1u << 2)
#define BH_NOC_CTRL_WR_INLINE      (1u << 3)
#define BH_NOC_CTRL_RESP_MARKED    (1u << 4)
#define BH_NOC_CTRL_BRCST_PACKET   (1u << 5)
#define BH_NOC_CTRL_VC_LINKED      (1u << 6)
#define BH_NOC_CTRL_VC_STATIC      (1u << 7)
#define BH_NOC_CTRL_PATH_RESERVE   (1u << 8)
#define BH_NOC_CTRL_MEM_RD_DROP_ACK (1u << 9)
#define BH_NOC_CTRL_BRCST_XY       (1u << 16)
#define BH_NOC_CTRL_BRCST_SRC_INCLUDE (1u << 17)
#define BH_NOC_CTRL_L1_ACC_AT_EN   (1u << 31)
#define BH_NOC_CTRL_RESERVED       (0x7u << 10 | 0x1FFu << 18)

#define BH_NOC_PACKET_TAG_TXN_ID(tag) ((tag) >> 10 & 0xFu)

/* Counters at +0x200 + 4·i (noc.md 3.4): X(index, NAME, how). EXACT counters move as the ISA
 * says; FLITS counters count 64-byte data flits, whose number for unaligned transfers is
 * unverified; SLV counters count every request a tile receives, host (PCIe) traffic included,
 * which bhemu does not route through the NoC. Those two kinds fault by name when read. */
#define BH_NIU_COUNTERS(X) \
	X(0, MST_ATOMIC_RESP_RECEIVED, EXACT) \
	X(1, MST_WR_ACK_RECEIVED, EXACT) \
	X(2, MST_RD_RESP_RECEIVED, EXACT) \
	X(3, MST_RD_DATA_WORD_RECEIVED, FLITS) \
	X(4, MST_CMD_ACCEPTED, EXACT) \
	X(5, MST_RD_REQ_SENT, EXACT) \
	X(6, MST_NONPOSTED_ATOMIC_SENT, EXACT) \
	X(7, MST_POSTED_ATOMIC_SENT, EXACT) \
	X(8, MST_NONPOSTED_WR_DATA_WORD_SENT, FLITS) \
	X(9, MST_POSTED_WR_DATA_WORD_SENT, FLITS) \
	X(10, MST_NONPOSTED_WR_REQ_SENT, EXACT) \
	X(11, MST_POSTED_WR_REQ_SENT, EXACT) \
	X(12, MST_NONPOSTED_WR_REQ_STARTED, EXACT) \
	X(13, MST_POSTED_WR_REQ_STARTED, EXACT) \
	X(14, MST_RD_REQ_STARTED, EXACT) \
	X(15, MST_NONPOSTED_ATOMIC_STARTED, EXACT) \
	X(48, SLV_ATOMIC_RESP_SENT, SLV) \
	X(49, SLV_WR_ACK_SENT, SLV) \
	X(50, SLV_RD_RESP_SENT, SLV) \
	X(51, SLV_RD_DATA_WORD_SENT, SLV) \
	X(52, SLV_REQ_ACCEPTED, SLV) \
	X(53, SLV_RD_REQ_RECEIVED, SLV) \
	X(54, SLV_NONPOSTED_ATOMIC_RECEIVED, SLV) \
	X(55, SLV_POSTED_ATOMIC_RECEIVED, SLV) \
	X(56, SLV_NONPOSTED_WR_DATA_WORD_RECEIVED, SLV) \
	X(57, SLV_POSTED_WR_DATA_WORD_RECEIVED, SLV) \
	X(58, SLV_NONPOSTED_WR_REQ_RECEIVED, SLV) \
	X(59, SLV_POSTED_WR_REQ_RECEIVED, SLV) \
	X(60, SLV_NONPOSTED_WR_REQ_STARTED, SLV) \
	X(61, SLV_POSTED_WR_REQ_STARTED, SLV)

enum bh_niu_counter {
#define X(idx, name, how) BH_NIU_##name = idx,
	BH_NIU_COUNTERS(X)
#undef X
	BH_NIU_MST_REQS_OUTSTANDING_ID0 = 16,    /* + id, 8 bits */
	BH_NIU_MST_WRITE_REQS_OUTGOING_ID0 = 32, /* + id, 8 bits */
	BH_NIU_COUNTER_CELLS = 64,
};

struct bh_niu {
	unsigned noc;                                             /* 0 or 1 */
	_Atomic uint32_t cmdbuf[BH_NIU_CMD_BUFS][BH_NIU_CMDBUF_CELLS];
	_Atomic uint32_t cfg[BH_NIU_CFG_CELLS];                   /* NIU_CFG_0, ROUTER_CFG_0..4 */
	/* The 8-bit counters live in 32-bit cells and are read masked (they wrap like 8 bits). A
	 * counter is the sum of two cells: `counter`, moved by read-modify-write by any thread (the
	 * issuing core, the synchronous NoC, the fast-dispatch models, clears), and `counter_run`,
	 * moved only by the asynchronous NoC's one runner (under the engine's run_lock) with a plain
	 * load and store: the phases after issue cost no locked instruction. */
	_Atomic uint32_t counter[BH_NIU_COUNTER_CELLS];
	/* Destination of an open VC_LINKED transaction (bh_noc_link_key), 0 if none. Moved by
	 * whichever core issues on this NIU (relaxed: linked requests come from one core). */
	_Atomic uint64_t linked;
	/* What the asynchronous NoC's runner writes starts a line of its own (the issuing core
	 * writes the fields above at every request). */
	_Alignas(64) _Atomic uint32_t counter_run[BH_NIU_COUNTER_CELLS];
	/* Asynchronous NoC: busy[b] while initiator b holds a request not yet accepted (CMD_CTRL
	 * reads 1). Set at the CMD_CTRL store, cleared by the engine (fabric/noc_engine.c); one byte
	 * each, so neither needs a read-modify-write. */
	_Atomic uint8_t busy[BH_NIU_CMD_BUFS];
	/* Who programs each command buffer (fabric/niu_check.h): written at every register store of
	 * the issuing core, so on lines of their own, away from what the asynchronous NoC's runner
	 * writes (busy, counter_run). */
	_Alignas(64) struct bh_niu_programming prog[BH_NIU_CMD_BUFS];
	/* Atomics this NIU completed at their CMD_CTRL store (bh_noc_at_issue; statistics, kept
	 * per NIU so that cores of different tiles do not share the line). */
	_Alignas(64) _Atomic uint64_t at_issue;
	/* Atomics each core's CMD_CTRL store did in one step (bh_noc_atomic_now; statistics): a cell
	 * per core, moved by that core alone with a load and a store (no locked instruction). */
	_Atomic uint64_t one_step[BH_CORES_PER_TILE];
};

void bh_niu_init(struct bh_niu *n, unsigned noc);
struct bh_chip;
/* The sum over every NIU of the chip of the statistic at offset `field`, `cells` counters there
 * (at_issue 1, one_step BH_CORES_PER_TILE). */
uint64_t bh_niu_stat_sum(const struct bh_chip *chip, size_t field, unsigned cells);

/* CMD_CTRL of command buffer buf reads busy: its last request is still being issued
 * (asynchronous NoC only). */
static inline bool bh_niu_cmd_busy(struct bh_niu *n, unsigned buf)
{
	return atomic_load_explicit(&n->busy[buf], memory_order_acquire);
}
/* Command-buffer registers whose store has no effect but the value (addresses, lengths, atomic
 * data): most NIU stores of a request. Bit = cell (offset / 4). */
#define BH_NIU_PLAIN_CELLS                                                                           \
	(1u << BH_NIU_TARG_ADDR_LO / 4 | 1u << BH_NIU_TARG_ADDR_MID / 4 | 1u << BH_NIU_TARG_ADDR_HI / 4 | \
	 1u << BH_NIU_RET_ADDR_LO / 4 | 1u << BH_NIU_RET_ADDR_MID / 4 | 1u << BH_NIU_RET_ADDR_HI / 4 |    \
	 1u << BH_NIU_AT_LEN_BE / 4 | 1u << BH_NIU_AT_LEN_BE_1 / 4 | 1u << BH_NIU_AT_DATA / 4)

/* Register `in` (offset in the initiator's window) of initiator buf is a plain one. */
static inline bool bh_niu_plain(unsigned buf, unsigned in)
{
	return buf < BH_NIU_CMD_BUFS && in < 32 * 4 && (BH_NIU_PLAIN_CELLS >> in / 4 & 1);
}

/* A store of v to register `in` of initiator buf that has no effect but the value: a plain
 * register, or NOC_CTRL, NOC_PACKET_TAG, NOC_BRCST_EXCLUDE, NOC_L1_ACC_AT_INSTRN with a value
 * fabric/niu.c accepts (it refuses the others by name). */
static inline bool bh_niu_plain_value(unsigned buf, unsigned in, uint32_t v)
{
	if (buf >= BH_NIU_CMD_BUFS)
		return false;
	switch (in) {
	case BH_NIU_CTRL:
		return (v & BH_NOC_CTRL_TYPE_MASK) != 3 && !(v & (BH_NOC_CTRL_L1_ACC_AT_EN | BH_NOC_CTRL_RESERVED));
	case BH_NIU_PACKET_TAG:
		return (v & ~(0xFu << 10)) == 0;   /* the transaction id [13:10] only */
	case BH_NIU_BRCST_EXCLUDE:
	case BH_NIU_L1_ACC_AT_INSTRN:
		return v == 0;
	default:
		return bh_niu_plain(buf, in);
	}
}

/* Address-decode handlers of the two NIU windows (fabric/mmio.c); a->off is the NIU offset. */
bool bh_niu_read(struct bh_access *a, uint32_t *val);
bool bh_niu_write(struct bh_access *a, uint32_t val);
/* A core's access to an NIU window straight from its device-access path (cores/core.c), without
 * the general decode: what bh_mmio_access does for these windows, when the tile's region table
 * gives addr to bh_niu_read/bh_niu_write and lets `who` in, the access is an aligned 4-byte one
 * and MMIO provocation is off (`who` a core: f->pc is its access's). A plain register store (an
 * address, a length, atomic data) with no check finding is the value and its announcement only;
 * a CMD_CTRL poll and a modelled counter's read are their value and the poll's check only.
 * Otherwise BH_NIU_LANE_GENERAL: the caller takes bh_mmio_access, which serves or faults it. */
#define BH_NIU_LANE_GENERAL (-1)
static inline bool bh_niu_lane(uint32_t addr, unsigned size)
{
	return addr - BH_NIU_BASE(0) < 2 * BH_NIU_SIZE && size == 4 && !(addr & 3);
}
/* Which cores take that lane on tile t (t->niu_lane), from its region table: once, when the
 * tile's region index is set (tile/tile.c). */
void bh_niu_lane_init(struct bh_tile *t);
int bh_niu_core_access(struct bh_tile *t, unsigned who, uint32_t addr, bool store, uint32_t *val,
		       struct bh_fault *f, char *wait_what, unsigned wait_len);
/* The lane's issue, for core who's store of val at addr (bh_niu_lane(addr, 4)), f->pc its pc,
 * tried before bh_niu_core_access: a CMD_CTRL store of 1 that issues an atomic done in one step
 * (bh_noc_atomic_now) with the effects bh_niu_core_access's general issue would have:
 * BH_ACC_OK, or BH_ACC_FAULT with *f (atomic-into-code stops the core). Anything else
 * BH_NIU_LANE_GENERAL, nothing done (bh_niu_core_access then issues it). It never blocks. */
int bh_niu_core_issue(struct bh_tile *t, unsigned who, uint32_t addr, uint32_t val, struct bh_fault *f);
/* The load half of that lane alone, for a core's load at pc (bh_niu_lane(addr, 4)): a CMD_CTRL
 * poll or a modelled counter's read, served (true), else false, nothing done. It never blocks,
 * never faults and judges nothing but the poll (noc-shared-initiator): a core's load path takes it
 * before the work a blocking or faulting access needs (cores/core.c). */
bool bh_niu_core_load(struct bh_tile *t, unsigned who, uint32_t addr, uint32_t pc, uint32_t *val);
/* The register at addr by name, for reports; counters and CMD_CTRL add what is in flight. */
const char *bh_niu_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n);

/* Register access for fabric/noc.c. */
static inline uint32_t bh_niu_cmdbuf_get(struct bh_niu *n, unsigned buf, unsigned off)
{
	return atomic_load_explicit(&n->cmdbuf[buf][off / 4], memory_order_relaxed);
}

static inline void bh_niu_cmdbuf_set(struct bh_niu *n, unsigned buf, unsigned off, uint32_t v)
{
	atomic_store_explicit(&n->cmdbuf[buf][off / 4], v, memory_order_relaxed);
}

static inline uint32_t bh_niu_cfg_get(struct bh_niu *n, unsigned off)
{
	return atomic_load_explicit(&n->cfg[(off - BH_NIU_CFG_BASE) / 4], memory_order_relaxed);
}

/* Move counter i of the NIU of `noc` on tile t by delta (release: the data this counter
 * reports is visible before it moves) and wake cores parked on it. */
void bh_niu_count(struct bh_tile *t, unsigned noc, unsigned i, uint32_t delta);
/* The same by the asynchronous NoC's runner (it holds the engine's run_lock: no other thread
 * moves counter_run). */
void bh_niu_count_run(struct bh_tile *t, unsigned noc, unsigned i, uint32_t delta);
/* Both cells summed, unmasked (acquire). The runner's cell is read first: a decrement seen there
 * comes after the increment it undoes, which the second read then sees, so a barrier never sees
 * a count below what is really outstanding. */
static inline uint32_t bh_niu_counter_raw(struct bh_niu *n, unsigned i)
{
	uint32_t run = atomic_load_explicit(&n->counter_run[i], memory_order_acquire);
	return run + atomic_load_explicit(&n->counter[i], memory_order_acquire);
}
/* Counter i is one of the 8-bit per-transaction-id ones. */
static inline bool bh_niu_counter_8bit(unsigned i)
{
	return i - BH_NIU_MST_REQS_OUTSTANDING_ID0 < 2 * BH_NIU_TXN_IDS;
}
/* Acquire read, masked to the counter's width. */
static inline uint32_t bh_niu_counter_read(struct bh_niu *n, unsigned i)
{
	uint32_t v = bh_niu_counter_raw(n, i);
	return bh_niu_counter_8bit(i) ? v & 0xFF : v;
}
/* Set counter i to 0 (NOC_CLEAR_OUTSTANDING_REQ_CNT): the runner's part is cancelled in the other
 * cell; a runner's move racing with the clear lands before or after it, as on silicon. */
void bh_niu_counter_clear(struct bh_niu *n, unsigned i);

/* "NIU_MST_WR_ACK_RECEIVED", "NIU_MST_REQS_OUTSTANDING_ID(3)", ...: for reports and tests. */
const char *bh_niu_counter_name(unsigned i, char *buf, unsigned n);

/* NOC_NODE_ID and NOC_ID_LOGICAL of tile t on `noc` (see the coordinate note above). */
uint32_t bh_niu_node_id(const struct bh_tile *t, unsigned noc);
uint32_t bh_niu_id_logical(const struct bh_tile *t);

#endif
