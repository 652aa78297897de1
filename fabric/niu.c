/* NoC interface unit registers (noc.md section 3): decode of the two NIU windows, register
 * storage and checks, counters. Transactions themselves are fabric/noc.c. */
#include <stdio.h>

#include "fabric/chip.h"
#include "fabric/inflight.h"
#include "fabric/mmio.h"
#include "fabric/niu.h"
#include "fabric/niu_check.h"
#include "fabric/niu_lane.h"
#include "fabric/noc.h"
#include "fabric/tile.h"

/* NoC grid size reported by NOC_NODE_ID (the same on every NIU of a Blackhole). */
#define NOC_WIDTH 17u
#define NOC_HEIGHT 12u
#define ENDPOINT_TENSIX 0x0100u

void bh_niu_init(struct bh_niu *n, unsigned noc)
{
	n->noc = noc;
	for (unsigned b = 0; b < BH_NIU_CMD_BUFS; b++)
		for (unsigned k = 0; k < BH_NIU_CMDBUF_CELLS; k++)
			atomic_store_explicit(&n->cmdbuf[b][k], 0, memory_order_relaxed);
	for (unsigned k = 0; k < BH_NIU_CFG_CELLS; k++)
		atomic_store_explicit(&n->cfg[k], 0, memory_order_relaxed);
	/* ARC firmware leaves translation on before any Tensix core runs. */
	atomic_store_explicit(&n->cfg[0], BH_NIU_CFG0_RESET, memory_order_relaxed);
	for (unsigned k = 0; k < BH_NIU_COUNTER_CELLS; k++) {
		atomic_store_explicit(&n->counter[k], 0, memory_order_relaxed);
		atomic_store_explicit(&n->counter_run[k], 0, memory_order_relaxed);
	}
	for (unsigned b = 0; b < BH_NIU_CMD_BUFS; b++)
		atomic_store_explicit(&n->busy[b], 0, memory_order_relaxed);
	atomic_store_explicit(&n->linked, 0, memory_order_relaxed);
	atomic_store_explicit(&n->at_issue, 0, memory_order_relaxed);
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		atomic_store_explicit(&n->one_step[k], 0, memory_order_relaxed);
}

uint64_t bh_niu_stat_sum(const struct bh_chip *chip, size_t field, unsigned cells)
{
	uint64_t sum = 0;
	for (unsigned t = 0; t < chip->topo.ntiles; t++)
		for (unsigned noc = 0; noc < 2; noc++)
			for (unsigned k = 0; k < cells; k++)
				sum += atomic_load_explicit((_Atomic uint64_t *)((char *)&chip->tiles[t]->niu[noc] + field) + k,
							    memory_order_relaxed);
	return sum;
}

uint32_t bh_niu_node_id(const struct bh_tile *t, unsigned noc)
{
	unsigned x = noc ? NOC_WIDTH - 1 - t->x : t->x, y = noc ? NOC_HEIGHT - 1 - t->y : t->y;
	return (x & 0x3F) | (y & 0x3F) << 6 | NOC_WIDTH << 12 | NOC_HEIGHT << 19 | (noc == 0) << 28;
}

uint32_t bh_niu_id_logical(const struct bh_tile *t)
{
	return (t->x & 0x3F) | (t->y & 0x3F) << 6;
}

static uint32_t niu_endpoint_id(const struct bh_tile *t, unsigned noc)
{
	return (t->index & 0xFF) | ENDPOINT_TENSIX << 8 | noc << 24;
}

/* ------------------------------------------------------------------------------- counters */

enum { CNT_NONE, CNT_EXACT, CNT_FLITS, CNT_SLV };

static const struct {
	const char *name;
	uint8_t how;
} niu_counters[BH_NIU_COUNTER_CELLS] = {
#define X(idx, name, how) [idx] = { "NIU_" #name, CNT_##how },
	BH_NIU_COUNTERS(X)
#undef X
};

const char *bh_niu_counter_name(unsigned i, char *buf, unsigned n)
{
	if (i - BH_NIU_MST_REQS_OUTSTANDING_ID0 < BH_NIU_TXN_IDS)
		snprintf(buf, n, "NIU_MST_REQS_OUTSTANDING_ID(%u)", i - BH_NIU_MST_REQS_OUTSTANDING_ID0);
	else if (i - BH_NIU_MST_WRITE_REQS_OUTGOING_ID0 < BH_NIU_TXN_IDS)
		snprintf(buf, n, "NIU_MST_WRITE_REQS_OUTGOING_ID(%u)", i - BH_NIU_MST_WRITE_REQS_OUTGOING_ID0);
	else
		snprintf(buf, n, "%s", i < BH_NIU_COUNTER_CELLS && niu_counters[i].name ? niu_counters[i].name : "?");
	return buf;
}

void bh_niu_count(struct bh_tile *t, unsigned noc, unsigned i, uint32_t delta)
{
	/* Release: pairs with the acquire in bh_niu_counter_read(); whoever sees the counter move
	 * sees the data it reports. */
	atomic_fetch_add_explicit(&t->niu[noc].counter[i], delta, memory_order_release);
	bh_tile_mmio_announce(t, BH_NIU_BASE(noc) + BH_NIU_COUNTER_BASE + 4 * i);
}

void bh_niu_count_run(struct bh_tile *t, unsigned noc, unsigned i, uint32_t delta)
{
	_Atomic uint32_t *c = &t->niu[noc].counter_run[i];
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + delta, memory_order_release);
	bh_tile_mmio_announce(t, BH_NIU_BASE(noc) + BH_NIU_COUNTER_BASE + 4 * i);
}

void bh_niu_counter_clear(struct bh_niu *n, unsigned i)
{
	uint32_t run = atomic_load_explicit(&n->counter_run[i], memory_order_relaxed);
	atomic_store_explicit(&n->counter[i], 0u - run, memory_order_release);
}

/* ------------------------------------------------------------------------------- decode */

#define NOT_TRANSLATED "bhemu addresses in translated coordinates; the translation tables are not modelled"

/* Documented parts of the window that bhemu does not model: named in the fault. Offsets in the
 * window of initiator 0 (the FIFO status repeats in every initiator). */
static const struct {
	uint16_t lo, hi;
	const char *name, *why;
} niu_unmodelled[] = {
	{ 0x064, 0x06C, "NIU request FIFO status", "the request FIFO is not modelled (requests complete at NOC_CMD_CTRL)" },
	{ 0x118, 0x130, "NOC_X_ID_TRANSLATE_TABLE", NOT_TRANSLATED },
	{ 0x130, 0x148, "NOC_Y_ID_TRANSLATE_TABLE", NOT_TRANSLATED },
	{ 0x150, 0x158, "NOC_ID_TRANSLATE_COL/ROW_MASK", NOT_TRANSLATED },
	{ 0x158, 0x174, "DDR_COORD_TRANSLATE_TABLE", NOT_TRANSLATED },
	{ 0x174, 0x178, "DEBUG_COUNTER_RESET", "NoC debug counters are not modelled" },
	{ 0x178, 0x180, "NIU_TRANS_COUNT_RTZ_CFG/CLR", "NIU interrupts are not modelled (tt-metal does not use them)" },
	{ 0x300, 0x378, "NoC router debug information", "router internals are not modelled" },
	{ 0x378, 0x380, "NIU interrupt status", "NIU interrupts are not modelled (tt-metal does not use them)" },
	{ 0x380, 0x400, "NIU debug information", "NIU internals are not modelled" },
	{ 0x400, 0x500, "NIU security fence configuration", "security fences are not modelled" },
	{ 0x500, 0x600, "NoC router per-VC packet counters", "router internals are not modelled" },
};

static const char *cmdbuf_reg_name(unsigned r)
{
	switch (r) {
#define X(off, name, w) case off: return "NOC_" #name;
	BH_NIU_CMDBUF_REGS(X)
#undef X
	default: return NULL;
	}
}

static const char *cfg_reg_name(unsigned off)
{
	switch (off) {
#define X(o, name, w) case o: return #name;
	BH_NIU_CFG_REGS(X)
#undef X
	default: return NULL;
	}
}

enum niu_kind { R_NONE, R_CMDBUF, R_CLEAR, R_CFG, R_COUNTER, R_UNMODELLED };

struct niu_reg {
	enum niu_kind kind;
	unsigned buf, off;        /* R_CMDBUF: initiator and offset in it; else NIU offset */
	unsigned idx;             /* R_COUNTER: counter index; R_UNMODELLED: table row */
	unsigned noc;
	const char *base;         /* register name in its block; NULL: by offset (or a counter) */
};

static void niu_decode(unsigned noc, uint32_t off, struct niu_reg *r)
{
	unsigned buf = off / BH_NIU_CMD_BUF_STRIDE, in = off % BH_NIU_CMD_BUF_STRIDE;
	const char *n;
	r->kind = R_NONE;
	r->buf = buf;
	r->off = off;
	r->noc = noc;
	r->base = NULL;
	if (buf < BH_NIU_CMD_BUFS && (n = cmdbuf_reg_name(in)) != NULL) {
		r->kind = R_CMDBUF;
		r->off = in;
		r->base = n;
		return;
	}
	if (buf < BH_NIU_CMD_BUFS && in - 0x064u < 8u) {
		r->kind = R_UNMODELLED;
		r->idx = 0;
		r->base = niu_unmodelled[0].name;
		return;
	}
	if (off == BH_NIU_CLEAR_OUTSTANDING_REQ_CNT) {
		r->kind = R_CLEAR;
		r->base = "NOC_CLEAR_OUTSTANDING_REQ_CNT";
	} else if ((n = cfg_reg_name(off)) != NULL) {
		r->kind = R_CFG;
		r->base = n;
	} else if (off - BH_NIU_COUNTER_BASE < 4u * BH_NIU_COUNTER_CELLS) {
		r->idx = (off - BH_NIU_COUNTER_BASE) / 4;
		if (niu_counters[r->idx].how == CNT_NONE && !bh_niu_counter_8bit(r->idx))
			return;
		r->kind = R_COUNTER;
	} else {
		for (unsigned k = 1; k < sizeof niu_unmodelled / sizeof niu_unmodelled[0]; k++)
			if (off >= niu_unmodelled[k].lo && off < niu_unmodelled[k].hi) {
				r->kind = R_UNMODELLED;
				r->idx = k;
				r->base = niu_unmodelled[k].name;
			}
	}
}

/* The register's full name, for fault reports (cold: never on a successful access). */
__attribute__((cold))
static const char *niu_name(const struct niu_reg *r)
{
	static _Thread_local char name[96];   /* "NoC0 NIU initiator 1 NOC_CTRL" */
	char cn[48];
	switch (r->kind) {
	case R_CMDBUF:
		snprintf(name, sizeof name, "NoC%u NIU initiator %u %s", r->noc, r->buf, r->base);
		break;
	case R_UNMODELLED:
		if (r->idx == 0)
			snprintf(name, sizeof name, "NoC%u NIU initiator %u %s", r->noc, r->buf, r->base);
		else
			snprintf(name, sizeof name, "NoC%u NIU %s", r->noc, r->base);
		break;
	case R_COUNTER:
		snprintf(name, sizeof name, "NoC%u NIU counter %s", r->noc, bh_niu_counter_name(r->idx, cn, sizeof cn));
		break;
	case R_CLEAR:
	case R_CFG:
		snprintf(name, sizeof name, "NoC%u NIU %s", r->noc, r->base);
		break;
	default:
		snprintf(name, sizeof name, "NoC%u NIU offset 0x%04x", r->noc, r->off);
		break;
	}
	return name;
}

static unsigned niu_noc(const struct bh_access *a)
{
	return a->addr >= BH_NIU_BASE(1);
}

__attribute__((cold))
static bool niu_not_a_register(struct bh_access *a, const struct niu_reg *r)
{
	if (r->kind == R_UNMODELLED)
		return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r), "%s",
				     niu_unmodelled[r->idx].why);
	return bh_fault_fill(a->fault, BH_FAULT_UNMAPPED, a->addr, niu_name(r),
			     "offset 0x%04x of the NoC%u NIU is not a register noc.md 3 lists (initiators at "
			     "+0x800*b: 0x00-0x30, 0x40-0x48; 0x60; config 0x100-0x114, 0x148; counters 0x200-0x2F4)",
			     r->off, niu_noc(a));
}

__attribute__((cold))
static bool niu_read_only(struct bh_access *a, const struct niu_reg *r, const char *why)
{
	return bh_fault_fill(a->fault, BH_FAULT_ACCESS, a->addr, niu_name(r), "%s is read-only%s", niu_name(r), why);
}

static bool niu_counter_modelled(struct bh_access *a, const struct niu_reg *r)
{
	switch (niu_counters[r->idx].how) {
	case CNT_FLITS:
		return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r),
				     "%s counts 64-byte data flits; how unaligned transfers split into flits is "
				     "unverified, so bhemu does not model it", niu_counters[r->idx].name);
	case CNT_SLV:
		return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r),
				     "%s counts every request this NIU receives, host (PCIe) traffic included, which "
				     "bhemu does not route through the NoC: it could not be exact", niu_counters[r->idx].name);
	default:
		return true;
	}
}

/* NOC_CMD_CTRL: 1 while the initiator holds a request not yet accepted (asynchronous NoC). */
static uint32_t niu_cmd_ctrl_value(struct bh_tile *t, struct bh_niu *n, unsigned buf)
{
	if (!bh_niu_cmd_busy(n, buf))
		return 0;
	bh_noc_engine_help(t->chip->noc);
	return bh_niu_cmd_busy(n, buf);
}

static uint32_t niu_cmd_ctrl_read(struct bh_access *a, struct bh_niu *n, unsigned buf)
{
	return niu_cmd_ctrl_value(a->tile, n, buf);
}

/* A modelled counter's value (a barrier polls: the asynchronous NoC first finishes what is due). */
static uint32_t niu_counter_value(struct bh_tile *t, struct bh_niu *n, unsigned idx)
{
	if (t->chip->noc)
		bh_noc_engine_help(t->chip->noc);
	return bh_niu_counter_read(n, idx);
}

const char *bh_niu_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n)
{
	unsigned noc = addr >= BH_NIU_BASE(1);
	struct niu_reg r;
	niu_decode(noc, addr - BH_NIU_BASE(noc), &r);
	int k = snprintf(buf, n, "%s", niu_name(&r));
	/* What a stuck barrier still waits for. */
	if ((r.kind == R_COUNTER || (r.kind == R_CMDBUF && r.off == BH_NIU_CMD_CTRL)) && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, t->chip->noc ? " (%llu NoC requests in flight on the chip)" :
			 " (synchronous NoC: nothing in flight)",
			 t->chip->noc ? (unsigned long long)bh_noc_engine_inflight(t->chip->noc) : 0ull);
	return buf;
}

bool bh_niu_read(struct bh_access *a, uint32_t *val)
{
	unsigned noc = niu_noc(a);
	struct bh_niu *n = a->dev;
	unsigned buf = a->off / BH_NIU_CMD_BUF_STRIDE;
	if (buf < BH_NIU_CMD_BUFS && a->off % BH_NIU_CMD_BUF_STRIDE == BH_NIU_CMD_CTRL) {
		/* A request's poll: CMD_CTRL without the general decode. */
		*val = niu_cmd_ctrl_read(a, n, buf);
		bh_niu_check_cmd_ctrl_read(a, n, buf);
		return true;
	}
	struct niu_reg r;
	niu_decode(noc, a->off, &r);
	switch (r.kind) {
	case R_CMDBUF:
		if (r.off == BH_NIU_NODE_ID)
			*val = bh_niu_node_id(a->tile, noc);
		else if (r.off == BH_NIU_ENDPOINT_ID)
			*val = niu_endpoint_id(a->tile, noc);
		else if (r.off == BH_NIU_CMD_CTRL)
			*val = niu_cmd_ctrl_read(a, n, r.buf);
		else
			*val = bh_niu_cmdbuf_get(n, r.buf, r.off);
		if (r.off == BH_NIU_CMD_CTRL)
			bh_niu_check_cmd_ctrl_read(a, n, r.buf);
		return true;
	case R_CFG:
		*val = r.off == BH_NIU_NOC_ID_LOGICAL ? bh_niu_id_logical(a->tile) : bh_niu_cfg_get(n, r.off);
		return true;
	case R_COUNTER:
		if (!niu_counter_modelled(a, &r))
			return false;
		*val = niu_counter_value(a->tile, n, r.idx);
		return true;
	case R_CLEAR:
		return bh_fault_fill(a->fault, BH_FAULT_ACCESS, a->addr, niu_name(&r), "%s is write-only", niu_name(&r));
	default:
		return niu_not_a_register(a, &r);
	}
}

/* ------------------------------------------------------------------------------- writes */

/* NOC_PACKET_TAG: only the transaction id [13:10] is modelled. */
static bool niu_check_packet_tag(struct bh_access *a, const struct niu_reg *r, uint32_t v)
{
	static const struct { uint32_t mask; const char *what; } fields[] = {
		{ 0x3Fu, "[5:0] overlay stream id" },
		{ 1u << 6, "[6] DeliverToReceiverOverlay" },
		{ 1u << 7, "[7] first-packet flag" },
		{ 1u << 8, "[8] last-packet flag" },
		{ 1u << 9, "[9] HEADER_STORE" },
		{ 3u << 14, "[15:14] reserved" },
		{ 0xFFFFu << 16, "[31:16] reserved" },
	};
	char named[160] = "";
	size_t len = 0;
	for (unsigned k = 0; k < sizeof fields / sizeof fields[0]; k++)
		if (v & fields[k].mask)
			len += (size_t)snprintf(named + len, sizeof named - len, "%s%s", len ? ", " : "", fields[k].what);
	if (!len)
		return true;
	return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r),
			     "0x%08x sets %s; only the transaction id [13:10] is modelled", v, named);
}

/* NOC_CTRL (noc.md 3.2): routing-only fields (VCs, priority, path reservation, broadcast axis)
 * are accepted and have no effect in bhemu; what changes the result and is not modelled faults. */
static bool niu_check_ctrl(struct bh_access *a, const struct niu_reg *r, uint32_t v)
{
	if ((v & BH_NOC_CTRL_TYPE_MASK) == 3)
		return bh_fault_fill(a->fault, BH_FAULT_BAD_VALUE, a->addr, niu_name(r),
				     "0x%08x: request type 3 is reserved (0 read, 1 atomic, 2 write)", v);
	if (v & BH_NOC_CTRL_L1_ACC_AT_EN)
		return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r),
				     "0x%08x sets L1_ACC_AT_EN [31]: L1 accumulate is not modelled (broken on Blackhole, "
				     "tt-metal never sets it)", v);
	if (v & BH_NOC_CTRL_RESERVED)
		return bh_fault_fill(a->fault, BH_FAULT_BAD_VALUE, a->addr, niu_name(r),
				     "0x%08x sets reserved bits 0x%08x ([12:10], [26:18]); software writes 0 there", v,
				     v & BH_NOC_CTRL_RESERVED);
	return true;
}

static bool niu_cmd_ctrl(struct bh_access *a, const struct niu_reg *r, unsigned noc, uint32_t v)
{
	struct bh_noc_txn txn;
	struct bh_niu_trid_snap snap;
	if (v == 0)
		return true;
	if (v != 1)
		return bh_fault_fill(a->fault, BH_FAULT_BAD_VALUE, a->addr, niu_name(r),
				     "0x%08x: write 1 to issue a request (no other bits exist)", v);
	if (!bh_niu_check_mcast_order(a, a->dev, r->buf))
		return false;
	bh_niu_check_trid_before(a->dev, r->buf, &snap);
	if (!bh_noc_issue(a->tile, noc, r->buf, &txn, a->fault) || !bh_niu_check_issued(a, a->dev, r->buf, &snap))
		return false;
	if (a->who < BH_CORES_PER_TILE) {
		txn.who = (uint8_t)a->who;
		txn.pc = a->fault->pc;   /* set by the core before the access (cores/core.c) */
		if (!bh_tile_cb_source_check(a, &txn))
			return false;
	}
	struct bh_noc_engine *e = a->tile->chip->noc;
	if (e && !bh_inflight_check_issue(a, &txn))
		return false;
	bh_noc_trace_issue(&txn);
	if (e && !bh_noc_at_issue(e, &txn))
		return bh_noc_submit(e, &txn, a->who, a->fault);   /* in flight: CMD_CTRL reads 1 until accepted */
	return bh_noc_complete(&txn, a->fault);   /* synchronous NoC (or an atomic at issue): done here, CMD_CTRL stays 0 */
}

/* A command-buffer register takes the value; every NIU register a core may poll is announced. */
static void niu_cmdbuf_store(struct bh_access *a, unsigned buf, unsigned off, uint32_t v)
{
	bh_niu_cmdbuf_set(a->dev, buf, off, v);
	bh_tile_mmio_announce(a->tile, a->addr);
}

static bool niu_cmdbuf_write(struct bh_access *a, const struct niu_reg *r, unsigned noc, uint32_t v)
{
	struct bh_niu *n = a->dev;
	if (!bh_niu_check_cmdbuf_write(a, n, r->buf, r->off, v))
		return false;
	switch (r->off) {
	case BH_NIU_NODE_ID:
	case BH_NIU_ENDPOINT_ID:
		return niu_read_only(a, r, "");
	case BH_NIU_PACKET_TAG:
		if (!niu_check_packet_tag(a, r, v))
			return false;
		break;
	case BH_NIU_CTRL:
		if (!niu_check_ctrl(a, r, v))
			return false;
		break;
	case BH_NIU_BRCST_EXCLUDE:
		if (v)
			return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r),
					     "0x%08x: non-rectangular broadcasts are not modelled (tt-metal writes 0)", v);
		break;
	case BH_NIU_L1_ACC_AT_INSTRN:
		if (v)
			return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r),
					     "0x%08x: L1 accumulate is not modelled (broken on Blackhole, never used)", v);
		break;
	case BH_NIU_CMD_CTRL:
		return niu_cmd_ctrl(a, r, noc, v);
	default:
		break;
	}
	niu_cmdbuf_store(a, r->buf, r->off, v);
	return true;
}

static bool niu_cfg_write(struct bh_access *a, const struct niu_reg *r, unsigned noc, uint32_t v)
{
	struct bh_niu *n = a->dev;
	if (r->off == BH_NIU_NOC_ID_LOGICAL)
		return niu_read_only(a, r, " in bhemu: it holds the tile's translated coordinates, set before release "
					   "(ARC firmware's job on silicon)");
	if (r->off == BH_NIU_NIU_CFG_0) {
		if (!(v & BH_NIU_CFG0_TRANSLATE))
			return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r),
					     "0x%08x clears bit 14: untranslated coordinates not modelled (bhemu "
					     "addresses every endpoint in translated coordinates)", v);
		if (v & BH_NIU_CFG0_TILE_CLOCK_DISABLE)
			return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, niu_name(r),
					     "0x%08x sets bit 12: disabling the tile clock is not modelled", v);
	}
	atomic_store_explicit(&n->cfg[(r->off - BH_NIU_CFG_BASE) / 4], v, memory_order_relaxed);
	bh_tile_mmio_written(a->tile, a->addr);
	return true;
}

/* NOC_CLEAR_OUTSTANDING_REQ_CNT: bit i set => REQS_OUTSTANDING_ID(i) = 0. */
static bool niu_clear_outstanding(struct bh_access *a, const struct niu_reg *r, unsigned noc, uint32_t v)
{
	struct bh_niu *n = a->dev;
	if (v >> BH_NIU_TXN_IDS)
		return bh_fault_fill(a->fault, BH_FAULT_BAD_VALUE, a->addr, niu_name(r),
				     "0x%08x: only bits [15:0] exist (one per transaction id)", v);
	for (unsigned id = 0; id < BH_NIU_TXN_IDS; id++)
		if (v >> id & 1) {
			unsigned i = BH_NIU_MST_REQS_OUTSTANDING_ID0 + id;
			bh_niu_counter_clear(n, i);
			bh_tile_mmio_written(a->tile, BH_NIU_BASE(noc) + BH_NIU_COUNTER_BASE + 4 * i);
		}
	return true;
}

/* A store to CMD_CTRL of initiator buf (a request's issue) without the general decode. */
static bool niu_cmd_ctrl_write(struct bh_access *a, unsigned buf, unsigned noc, uint32_t val)
{
	struct niu_reg cmd = { .kind = R_CMDBUF, .buf = buf, .off = BH_NIU_CMD_CTRL, .noc = noc, .base = "NOC_CMD_CTRL" };
	return niu_cmdbuf_write(a, &cmd, noc, val);
}

bool bh_niu_write(struct bh_access *a, uint32_t val)
{
	/* Plain registers skip the general decode (the access is aligned: fabric/mmio.c). */
	unsigned buf = a->off / BH_NIU_CMD_BUF_STRIDE, in = a->off % BH_NIU_CMD_BUF_STRIDE;
	if (bh_niu_plain(buf, in)) {
		if (!bh_niu_check_cmdbuf_write(a, a->dev, buf, in, val))
			return false;
		niu_cmdbuf_store(a, buf, in, val);
		return true;
	}
	unsigned noc = niu_noc(a);
	if (buf < BH_NIU_CMD_BUFS && in == BH_NIU_CMD_CTRL)
		return niu_cmd_ctrl_write(a, buf, noc, val);
	struct niu_reg r;
	niu_decode(noc, a->off, &r);
	switch (r.kind) {
	case R_CMDBUF:
		return niu_cmdbuf_write(a, &r, noc, val);
	case R_CFG:
		return niu_cfg_write(a, &r, noc, val);
	case R_CLEAR:
		return niu_clear_outstanding(a, &r, noc, val);
	case R_COUNTER:
		return niu_read_only(a, &r, "");
	default:
		return niu_not_a_register(a, &r);
	}
}

void bh_niu_lane_init(struct bh_tile *t)
{
	t->niu_lane[0] = t->niu_lane[1] = 0;
	if (!t->region_index)
		return;
	for (unsigned noc = 0; noc < 2; noc++) {
		unsigned k = t->region_index[(BH_NIU_BASE(noc) - BH_MMIO_INDEX_BASE) >> 12];
		const struct bh_region *r = k && k != BH_MMIO_INDEX_MANY ? &t->regions[k - 1] : NULL;
		/* The whole window one region, every page of it indexed to it, 4-byte accesses allowed. */
		bool whole = r && r->base == BH_NIU_BASE(noc) && r->size == BH_NIU_SIZE && (r->widths & (1u << 4));
		for (uint32_t p = 0; whole && p < BH_NIU_SIZE; p += 0x1000)
			whole = t->region_index[(BH_NIU_BASE(noc) + p - BH_MMIO_INDEX_BASE) >> 12] == k;
		uint8_t ld = whole && r->read == bh_niu_read ? r->read_mask : 0;
		uint8_t st = whole && r->write == bh_niu_write ? r->write_mask : 0;
		/* Both windows alike, or neither takes the lane. */
		t->niu_lane[0] = noc ? t->niu_lane[0] & ld : ld;
		t->niu_lane[1] = noc ? t->niu_lane[1] & st : st;
	}
	t->niu_lane[0] &= (uint8_t)~BH_REQ_BIT(BH_REQ_HOST);
	t->niu_lane[1] &= (uint8_t)~BH_REQ_BIT(BH_REQ_HOST);
}

/* A modelled counter cell, by offset in the window (an exact or per-transaction-id one). */
static bool niu_counter_quick(uint32_t off, unsigned *idx)
{
	*idx = (off - BH_NIU_COUNTER_BASE) / 4;
	return off - BH_NIU_COUNTER_BASE < 4u * BH_NIU_COUNTER_CELLS &&
	       (niu_counters[*idx].how == CNT_EXACT || bh_niu_counter_8bit(*idx));
}

bool bh_niu_core_load(struct bh_tile *t, unsigned who, uint32_t addr, uint32_t pc, uint32_t *val)
{
	if (!(t->niu_lane[0] >> who & 1) || __builtin_expect(t->chip->provoke.mmio, 0))
		return false;
	unsigned noc = addr >= BH_NIU_BASE(1);
	struct bh_niu *n = &t->niu[noc];
	uint32_t off = addr - BH_NIU_BASE(noc);
	unsigned buf = off / BH_NIU_CMD_BUF_STRIDE, idx;
	if (buf < BH_NIU_CMD_BUFS && off % BH_NIU_CMD_BUF_STRIDE == BH_NIU_CMD_CTRL) {
		/* A request's poll (every issue begins with one). */
		*val = niu_cmd_ctrl_value(t, n, buf);
		bh_niu_check_cmd_ctrl_poll(t, n, who, buf, pc);
		return true;
	}
	if (!niu_counter_quick(off, &idx))
		return false;
	*val = niu_counter_value(t, n, idx);
	return true;
}

/* Core who's CMD_CTRL store of 1 on initiator buf when it issues an atomic that completes at the
 * store (the synchronous NoC, or bh_noc_at_issue) and that the general path would issue with no
 * finding: the atomic in one step (bh_noc_atomic_now), what niu_cmd_ctrl does for it. Otherwise
 * BH_NIU_LANE_GENERAL, nothing done. */
static int niu_atomic_now(struct bh_tile *t, unsigned who, unsigned noc, unsigned buf, struct bh_fault *f)
{
	struct bh_niu *n = &t->niu[noc];
	struct bh_noc_engine *e = t->chip->noc;
	struct bh_noc_txn x;
	uint64_t link;
	/* The engine first: with requests in flight (a write before its semaphore's increment) the
	 * atomic goes in flight too, and nothing else needs to be looked at. */
	if ((e && !bh_noc_at_issue_open(e)) || !bh_noc_atomic_quick(t, noc, buf, &x, &link) ||
	    !bh_niu_check_issue_quiet(t, n, who, buf, x.resp ? (int)x.id : -1))
		return BH_NIU_LANE_GENERAL;
	x.who = (uint8_t)who;
	x.pc = f->pc;
	bh_niu_check_issued_quiet(n, buf);
	return bh_noc_atomic_now(&x, link, f) ? BH_ACC_OK : BH_ACC_FAULT;
}

int bh_niu_core_issue(struct bh_tile *t, unsigned who, uint32_t addr, uint32_t val, struct bh_fault *f)
{
	if (!(t->niu_lane[1] >> who & 1) || __builtin_expect(t->chip->provoke.mmio, 0) || val != 1)
		return BH_NIU_LANE_GENERAL;
	unsigned noc = addr >= BH_NIU_BASE(1);
	uint32_t off = addr - BH_NIU_BASE(noc);
	unsigned buf = off / BH_NIU_CMD_BUF_STRIDE;
	if (buf >= BH_NIU_CMD_BUFS || off % BH_NIU_CMD_BUF_STRIDE != BH_NIU_CMD_CTRL)
		return BH_NIU_LANE_GENERAL;
	/* Not a unicast atomic (most requests: writes, reads): at once, without the frame of one. */
	uint32_t ctrl = bh_niu_cmdbuf_get(&t->niu[noc], buf, BH_NIU_CTRL);
	if ((ctrl & (BH_NOC_CTRL_TYPE_MASK | BH_NOC_CTRL_BRCST_PACKET)) != BH_NOC_CTRL_AT)
		return BH_NIU_LANE_GENERAL;
	return niu_atomic_now(t, who, noc, buf, f);
}

int bh_niu_core_access(struct bh_tile *t, unsigned who, uint32_t addr, bool store, uint32_t *val,
		       struct bh_fault *f, char *wait_what, unsigned wait_len)
{
	if (!(t->niu_lane[store] >> who & 1) || __builtin_expect(t->chip->provoke.mmio, 0))
		return BH_NIU_LANE_GENERAL;
	unsigned noc = addr >= BH_NIU_BASE(1);
	struct bh_niu *n = &t->niu[noc];
	uint32_t off = addr - BH_NIU_BASE(noc);
	unsigned buf = off / BH_NIU_CMD_BUF_STRIDE, in = off % BH_NIU_CMD_BUF_STRIDE;
	bool cmd_ctrl = buf < BH_NIU_CMD_BUFS && in == BH_NIU_CMD_CTRL;
	if (store ? !cmd_ctrl && bh_niu_store_plain(t, who, addr, *val, f->pc)
		  : bh_niu_core_load(t, who, addr, f->pc, val))
		return BH_ACC_OK;
	const struct bh_region *r = &t->regions[t->region_index[(addr - BH_MMIO_INDEX_BASE) >> 12] - 1];
	struct bh_access a = { .dev = n, .tile = t, .who = who, .addr = addr, .off = off, .size = 4,
			       .region = r, .fault = f, .wait_what = wait_what, .wait_len = wait_len };
	if (store && cmd_ctrl)   /* what bh_niu_write does for it, without finding out again */
		return bh_access_result(&a, niu_cmd_ctrl_write(&a, buf, noc, *val), true);
	return bh_access_result(&a, store ? bh_niu_write(&a, *val) : bh_niu_read(&a, val), store);
}
