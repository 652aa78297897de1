/* NoC transactions: issue (checks, endpoints, at-issue counters) and completion (data, then
 * counters). See noc.h for the split and noc.md sections 3-8 and 11 for the rules. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fabric/chip.h"
#include "fabric/code.h"
#include "fabric/mmio.h"
#include "fabric/niu.h"
#include "fabric/copy.h"
#include "fabric/noc.h"
#include "fabric/tile.h"

/* Coordinate register (*_ADDR_HI): unicast x [5:0], y [11:6]; broadcast adds start x/y. */
#define HI_X(hi)       ((hi) & 0x3Fu)
#define HI_Y(hi)       ((hi) >> 6 & 0x3Fu)
#define HI_START_X(hi) ((hi) >> 12 & 0x3Fu)
#define HI_START_Y(hi) ((hi) >> 18 & 0x3Fu)
#define MID_PCIE       (1u << 28)     /* *_ADDR_MID bit 28 = NoC address bit 60 */
#define MID_LOCAL      0xFu           /* *_ADDR_MID [3:0] = local address bits 35:32 */

/* Atomic opcodes in NOC_AT_LEN_BE [15:12] (noc.md 6). */
enum { AT_INCR_GET = 1, AT_SWAP_MASK = 3, AT_CAS = 4, AT_SWAP_IDX = 6, AT_SWAP_IDX_HI = 7 };

static const char *const op_verb[] = {
	[BH_NOC_OP_READ] = "read from",
	[BH_NOC_OP_WRITE] = "write to",
	[BH_NOC_OP_WRITE_BE] = "byte-enable write to",
	[BH_NOC_OP_WRITE_INLINE] = "inline write to",
	[BH_NOC_OP_ATOMIC] = "atomic on",
};

static const char *noc_op_name(const struct bh_noc_txn *x)
{
	static const char *const name[] = {
		[BH_NOC_OP_READ] = "read", [BH_NOC_OP_WRITE] = "write", [BH_NOC_OP_WRITE_BE] = "byte-enable write",
		[BH_NOC_OP_WRITE_INLINE] = "inline write", [BH_NOC_OP_ATOMIC] = "atomic",
	};
	return x->mcast ? (x->op == BH_NOC_OP_ATOMIC ? "multicast atomic" : "multicast write") : name[x->op];
}

/* ------------------------------------------------------------------------------- faults */

/* Every issue-time fault is reported at the initiator's NOC_CMD_CTRL store. */
__attribute__((cold, format(printf, 4, 5)))
static bool noc_fault(const struct bh_noc_txn *x, struct bh_fault *f, enum bh_fault_kind kind, const char *fmt, ...)
{
	char region[96], detail[sizeof f->detail];
	va_list ap;
	snprintf(region, sizeof region, "NoC%u NIU initiator %u NOC_CMD_CTRL", x->noc, x->buf);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	return bh_fault_fill(f, kind, BH_NIU_BASE(x->noc) + x->buf * BH_NIU_CMD_BUF_STRIDE + BH_NIU_CMD_CTRL, region,
			     "%s", detail);
}

/* "x 1-7,10-16, y 2-11": where the chip's Tensix tiles are, for "no endpoint there". */
static void noc_describe_grid(const struct bh_topology *tp, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "Tensix tiles at x ");
	for (unsigned c = 0; c < tp->cols && len < n; c++) {
		unsigned first = tp->col_x[c];
		while (c + 1 < tp->cols && tp->col_x[c + 1] == tp->col_x[c] + 1)
			c++;
		len += (size_t)snprintf(buf + len, n - len, "%s%u", first == tp->col_x[0] ? "" : ",", first);
		if (tp->col_x[c] != first && len < n)
			len += (size_t)snprintf(buf + len, n - len, "-%u", tp->col_x[c]);
	}
	if (len < n)
		len += (size_t)snprintf(buf + len, n - len, ", y %u-%u; DRAM at x 17-18, y 12-23; PCIe at (%u,%u)",
					tp->row_y[0], tp->row_y[tp->rows - 1], BH_PCIE_X, BH_PCIE_Y);
	if (tp->neth && len < n)
		snprintf(buf + len, n - len, "; Ethernet at x %u-%u, y %u", BH_ETH_X0, BH_ETH_X0 + tp->neth - 1,
			 BH_ETH_Y);
}

__attribute__((cold))
static bool noc_no_endpoint(const struct bh_noc_txn *x, struct bh_fault *f, const char *verb, unsigned ex,
			    unsigned ey)
{
	char grid[200];
	noc_describe_grid(&x->chip->topo, grid, sizeof grid);
	return noc_fault(x, f, BH_FAULT_UNMAPPED, "NoC%u %s (%u,%u): no endpoint there (%s)", x->noc, verb, ex, ey,
			 grid);
}

/* ------------------------------------------------------------------------------- endpoints */

/* A Tensix-side address: L1, or a register (exactly 4 bytes, aligned; the NoC does not reach
 * the NIUs themselves). `where` names the request for messages. */
/* What a request is called in fault messages ("NoC0 write (3,2) 0x00010000"), formatted only
 * when a fault is reported: formatting on every transaction cost more than the copy. */
struct noc_where {
	const char *fixed;       /* a literal name, or NULL: built from the fields below */
	unsigned noc, ex, ey, sx, sy;
	const char *verb;
	uint32_t lo;
	bool mcast;
};

/* The name, in a buffer of the calling thread (a fault message formats one at a time): the
 * request's own noc_where carries no buffer, so building one per transaction zeroes nothing. */
__attribute__((cold))
static const char *noc_where_str(const struct noc_where *w)
{
	static _Thread_local char buf[112];
	if (w->fixed)
		return w->fixed;
	if (w->mcast)
		snprintf(buf, sizeof buf, "NoC%u multicast %s (%u,%u)-(%u,%u) 0x%08x", w->noc, w->verb, w->sx, w->sy,
			 w->ex, w->ey, w->lo);
	else
		snprintf(buf, sizeof buf, "NoC%u %s (%u,%u) 0x%08x", w->noc, w->verb, w->ex, w->ey, w->lo);
	return buf;
}

static bool noc_tensix_addr(const struct bh_noc_txn *x, struct bh_fault *f, struct noc_where *w, uint32_t mid,
			    uint32_t addr, uint32_t len, struct bh_noc_side *s)
{
	if (mid)
		return noc_fault(x, f, BH_FAULT_BAD_VALUE,
				 "%s: ADDR_MID is 0x%08x, but a Tensix tile has a 32-bit address space (MID must be 0)",
				 noc_where_str(w), mid);
	s->addr = addr;
	if (addr < BH_L1_SIZE) {
		s->kind = BH_NOC_SIDE_L1;
		if (len > BH_L1_SIZE - addr)
			return noc_fault(x, f, BH_FAULT_ACCESS, "%s: %u bytes run past the end of L1 (0x%x)", noc_where_str(w), len,
					 BH_L1_SIZE);
		return true;
	}
	if (addr < BH_NOC_MMIO_BASE)
		return noc_fault(x, f, BH_FAULT_UNMAPPED, "%s: nothing at 0x%08x (L1 ends at 0x%x, registers start at "
				 "0x%08x)", noc_where_str(w), addr, BH_L1_SIZE, BH_NOC_MMIO_BASE);
	s->kind = BH_NOC_SIDE_MMIO;
	if (len != 4)
		return noc_fault(x, f, BH_FAULT_ACCESS, "%s: a register request moves exactly 4 bytes, not %u", noc_where_str(w), len);
	if (addr & 3)
		return noc_fault(x, f, BH_FAULT_MISALIGNED, "%s: register address 0x%08x is not 4-byte aligned", noc_where_str(w),
				 addr);
	if (addr - BH_NIU_BASE(0) < 2 * BH_NIU_SIZE)
		return noc_fault(x, f, BH_FAULT_NOT_MODELLED, "%s: NoC requests to NIU registers are not modelled", noc_where_str(w));
	return true;
}

/* DRAM or host memory (either way of serving it). */
static bool noc_side_far(const struct bh_noc_side *s)
{
	return s->kind == BH_NOC_SIDE_MEM || s->kind == BH_NOC_SIDE_HOST;
}

/* The Tensix tile at endpoint ep when len bytes at mid:lo are all in its L1, else NULL. */
static inline struct bh_tile *noc_tensix_l1(const struct bh_chip *chip, struct bh_endpoint ep, uint32_t mid,
					    uint32_t lo, uint32_t len)
{
	return ep.kind == BH_EP_TENSIX && !mid && lo < BH_L1_SIZE && len <= BH_L1_SIZE - lo ? chip->tiles[ep.index]
											   : NULL;
}

/* Resolve the endpoint at translated (ex, ey) for a request of len bytes at mid:lo. */
static bool noc_resolve(const struct bh_noc_txn *x, struct bh_fault *f, const char *verb, unsigned ex, unsigned ey,
			uint32_t mid, uint32_t lo, uint32_t len, struct bh_noc_side *s)
{
	struct bh_chip *chip = x->chip;
	struct bh_endpoint ep = bh_topology_at(&chip->topo, ex, ey);
	memset(s, 0, sizeof *s);
	if ((s->tile = noc_tensix_l1(chip, ep, mid, lo, len))) {
		/* L1 of a Tensix tile, all of it there (noc_tensix_addr finds nothing to say) */
		s->kind = BH_NOC_SIDE_L1;
		s->addr = lo;
		return true;
	}
	struct noc_where w = { .noc = x->noc, .verb = verb, .ex = ex, .ey = ey, .lo = lo };
	switch (ep.kind) {
	case BH_EP_TENSIX:
		s->tile = chip->tiles[ep.index];
		return noc_tensix_addr(x, f, &w, mid, lo, len, s);
	case BH_EP_DRAM: {
		if (mid & ~MID_LOCAL)
			return noc_fault(x, f, BH_FAULT_BAD_VALUE, "%s: ADDR_MID 0x%08x has bits above address bit 35 (a "
					 "DRAM bank takes a 36-bit offset)", noc_where_str(&w), mid);
		uint64_t off = (uint64_t)mid << 32 | lo;
		s->kind = BH_NOC_SIDE_MEM;
		s->addr = lo;
		s->mem = bh_dram_ptr(chip, ep.index, off, len);
		if (!s->mem)
			return noc_fault(x, f, BH_FAULT_ACCESS, "%s: %u bytes at offset 0x%llx leave DRAM bank %u (usable "
					 "size 0x%llx)", noc_where_str(&w), len, (unsigned long long)off, ep.index,
					 (unsigned long long)BH_DRAM_BANK_USABLE);
		return true;
	}
	case BH_EP_PCIE: {
		if (!(mid & MID_PCIE))
			return noc_fault(x, f, BH_FAULT_NOT_MODELLED, "%s: PCIe requests without the bit-60 marker "
					 "(ADDR_MID bit 28; IOMMU windows) are not modelled", noc_where_str(&w));
		uint64_t addr = (uint64_t)mid << 32 | lo;
		s->addr = lo;
		if (chip->host_io) {
			s->kind = BH_NOC_SIDE_HOST;
			s->host = addr;
			return true;
		}
		s->kind = BH_NOC_SIDE_MEM;
		s->mem = bh_host_mem_ptr(chip, addr, len);
		if (!s->mem)
			return noc_fault(x, f, BH_FAULT_ACCESS, "%s: %u bytes at 0x%llx leave the host memory window "
					 "[0x%llx, 0x%llx) (bit 60 set)", noc_where_str(&w), len,
					 (unsigned long long)(addr & ~BH_NOC_PCIE_BIT), (unsigned long long)chip->host_base,
					 (unsigned long long)(chip->host_base + chip->host_mem_size));
		return true;
	}
	case BH_EP_ETH:
		/* L1 only: the Ethernet tile's registers and ERISC cores are not modelled. */
		if (mid || lo >= BH_NOC_MMIO_BASE)
			return noc_fault(x, f, BH_FAULT_NOT_MODELLED, "%s: Ethernet tile (channel %u) address "
					 "0x%x_%08x: only its L1 [0, 0x%x) is modelled, not its registers or ERISC "
					 "cores", noc_where_str(&w), chip->topo.eth_chan[ep.index], mid, lo, BH_ETH_L1_SIZE);
		s->kind = BH_NOC_SIDE_MEM;
		s->addr = lo;
		s->mem = bh_eth_l1_ptr(chip, ep.index, lo, len);
		if (!s->mem)
			return noc_fault(x, f, BH_FAULT_ACCESS, "%s: %u bytes at 0x%x leave the Ethernet tile's L1 "
					 "(channel %u, 0x%x bytes)", noc_where_str(&w), len, lo,
					 chip->topo.eth_chan[ep.index], BH_ETH_L1_SIZE);
		return true;
	default:
		return noc_no_endpoint(x, f, verb, ex, ey);
	}
}

/* A tile that receives responses: a Tensix tile at translated (ex, ey). */
static bool noc_resolve_ack(const struct bh_noc_txn *x, struct bh_fault *f, const char *what, unsigned ex,
			    unsigned ey, struct bh_tile **out)
{
	struct bh_endpoint ep = bh_topology_at(&x->chip->topo, ex, ey);
	if (ep.kind != BH_EP_TENSIX) {
		char grid[200];
		noc_describe_grid(&x->chip->topo, grid, sizeof grid);
		return noc_fault(x, f, BH_FAULT_UNMAPPED, "NoC%u %s goes to (%u,%u): no Tensix tile there (%s)", x->noc,
				 what, ex, ey, grid);
	}
	*out = x->chip->tiles[ep.index];
	return true;
}

/* ------------------------------------------------------------------------------- multicast */

/* Coordinates from start to end, wrapping when start > end (noc.md 8). */
static uint64_t noc_span(unsigned start, unsigned end)
{
	uint64_t upto_end = end >= 63 ? ~0ull : (2ull << end) - 1;
	uint64_t from_start = ~0ull << start;
	return start <= end ? upto_end & from_start : upto_end | from_start;
}

/* The receiving rectangle of a multicast, in translated coordinates. NoC1 multicasts name their
 * corners the other way round (start >= end in translated space, start <= end once flipped into
 * NoC1 coordinates): exchanging the corners forms the same spans, wrap included, without
 * leaving translated space. The initiator's broadcast opt-out masks (ROUTER_CFG_1 columns,
 * ROUTER_CFG_3 rows, a bit per coordinate of this NoC, i.e. flipped on NoC1) remove receivers. */
static void noc_mcast_spans(struct bh_noc_txn *x, uint32_t hi)
{
	unsigned ex = HI_X(hi), ey = HI_Y(hi), sx = HI_START_X(hi), sy = HI_START_Y(hi);
	struct bh_niu *n = &x->init->niu[x->noc];
	uint32_t cols_out = bh_niu_cfg_get(n, BH_NIU_ROUTER_CFG_1) & 0x1FFFFu;
	uint32_t rows_out = bh_niu_cfg_get(n, BH_NIU_ROUTER_CFG_3) & 0xFFFu;
	if (x->noc == 1) {
		unsigned t = sx; sx = ex; ex = t;
		t = sy; sy = ey; ey = t;
	}
	x->span_x = noc_span(sx, ex);
	x->span_y = noc_span(sy, ey);
	for (unsigned c = 0; c < 17; c++)
		if (cols_out >> c & 1)
			x->span_x &= ~(1ull << (x->noc ? 16 - c : c));
	for (unsigned r = 0; r < 12; r++)
		if (rows_out >> r & 1)
			x->span_y &= ~(1ull << (x->noc ? 11 - r : r));
}

static bool noc_receives(const struct bh_noc_txn *x, unsigned k)
{
	unsigned tx, ty;
	bh_topology_tile_xy(&x->chip->topo, k, &tx, &ty);
	if (!(x->span_x >> tx & 1) || !(x->span_y >> ty & 1))
		return false;
	return x->src_include || x->chip->tiles[k] != x->init;
}

bool bh_noc_write_reaches(struct bh_tile *init, unsigned noc, uint32_t hi, bool mcast, const struct bh_tile *t)
{
	struct bh_noc_txn x = { .chip = init->chip, .init = init, .noc = (uint8_t)noc, .mcast = mcast };
	if (!mcast) {
		struct bh_endpoint ep = bh_topology_at(&x.chip->topo, HI_X(hi), HI_Y(hi));
		return ep.kind == BH_EP_TENSIX && x.chip->tiles[ep.index] == t;
	}
	noc_mcast_spans(&x, hi);
	return noc_receives(&x, t->index);
}

struct bh_tile *bh_noc_unicast_tile(const struct bh_chip *c, uint32_t hi)
{
	struct bh_endpoint ep = bh_topology_at(&c->topo, HI_X(hi), HI_Y(hi));
	return ep.kind == BH_EP_TENSIX ? c->tiles[ep.index] : NULL;
}

/* ------------------------------------------------------------------------------- issue */

/* Lengths: 1..16384 per packet; longer requests split into packets when both addresses are
 * 64-byte aligned, and each packet counts in the 8-bit REQS_OUTSTANDING / WRITE_REQS_OUTGOING. */
static bool noc_check_len(struct bh_noc_txn *x, struct bh_fault *f, uint32_t len, uint32_t len_hi)
{
	if (len_hi)
		return noc_fault(x, f, BH_FAULT_BAD_VALUE, "NOC_AT_LEN_BE_1 is 0x%08x: lengths of 4 GiB and more are "
				 "not modelled", len_hi);
	if (len == 0)
		return noc_fault(x, f, BH_FAULT_BAD_VALUE, "NOC_AT_LEN_BE is 0: a request moves 1..16384 bytes (more "
				 "when split into packets)");
	x->len = len;
	x->packets = (len + BH_NOC_PACKET_MAX - 1) / BH_NOC_PACKET_MAX;
	if (x->packets > 255)
		return noc_fault(x, f, BH_FAULT_BAD_VALUE, "%u bytes split into %u packets, which overflows the 8-bit "
				 "outstanding-request counters", len, x->packets);
	return true;
}

/* noc.md 7: L1 <-> L1 equal low 4 bits; reads from DRAM/PCIe equal low 6 bits, writes to them
 * equal low 4 bits; registers 4 bytes (checked when resolved); split requests 64-byte aligned. */
static bool noc_check_alignment(struct bh_noc_txn *x, struct bh_fault *f, const struct bh_noc_side *src,
				const struct bh_noc_side *dst)
{
	const char *what = op_verb[x->op];
	uint32_t s = src->addr, d = dst->addr;
	if (src->kind == BH_NOC_SIDE_MMIO || dst->kind == BH_NOC_SIDE_MMIO) {
		if ((s | d) & 3)
			return noc_fault(x, f, BH_FAULT_MISALIGNED, "NoC%u %s a register: source 0x%08x and destination "
					 "0x%08x must both be 4-byte aligned", x->noc, what, s, d);
		return true;
	}
	unsigned mask = noc_side_far(src) ? 63 : 15;
	if ((s ^ d) & mask)
		return noc_fault(x, f, BH_FAULT_MISALIGNED, "NoC%u %s: source 0x%08x and destination 0x%08x must agree "
				 "in the low %u bits (%s)", x->noc, what, s, d, mask == 63 ? 6 : 4,
				 mask == 63 ? "reads from DRAM/PCIe: 64-byte alignment"
					    : noc_side_far(dst) ? "writes to DRAM/PCIe: 16-byte alignment"
									   : "L1 to L1: 16-byte alignment");
	if (x->packets > 1 && ((s | d) & 63))
		return noc_fault(x, f, BH_FAULT_MISALIGNED, "NoC%u %s: %u bytes split into %u packets need source "
				 "0x%08x and destination 0x%08x both 64-byte aligned", x->noc, what, x->len, x->packets, s,
				 d);
	return true;
}

static bool noc_issue_read(struct bh_noc_txn *x, struct bh_fault *f, const uint32_t *r)
{
	uint32_t targ_hi = r[BH_NIU_TARG_ADDR_HI / 4], ret_hi = r[BH_NIU_RET_ADDR_HI / 4];
	x->op = BH_NOC_OP_READ;
	x->resp = true;   /* reads always respond */
	if (x->mcast)
		return noc_fault(x, f, BH_FAULT_BAD_VALUE, "NOC_CTRL sets BRCST_PACKET on a read: there are no "
				 "multicast reads");
	if (!noc_check_len(x, f, r[BH_NIU_AT_LEN_BE / 4], r[BH_NIU_AT_LEN_BE_1 / 4]) ||
	    !noc_resolve(x, f, "read from", HI_X(targ_hi), HI_Y(targ_hi), r[BH_NIU_TARG_ADDR_MID / 4],
			 r[BH_NIU_TARG_ADDR_LO / 4], x->len, &x->src) ||
	    !noc_resolve(x, f, "read returning to", HI_X(ret_hi), HI_Y(ret_hi), r[BH_NIU_RET_ADDR_MID / 4],
			 r[BH_NIU_RET_ADDR_LO / 4], x->len, &x->dst))
		return false;
	if (noc_side_far(&x->dst))
		return noc_fault(x, f, BH_FAULT_NOT_MODELLED, "NoC%u read returning to (%u,%u): responses to DRAM or "
				 "PCIe are not modelled (RET_ADDR_HI names the reading tile)", x->noc, HI_X(ret_hi),
				 HI_Y(ret_hi));
	x->ack = x->dst.tile;
	return noc_check_alignment(x, f, &x->src, &x->dst);
}

/* Destination of a write or atomic: one endpoint, or a multicast rectangle of Tensix tiles
 * (the address then must be a Tensix one; tile stays NULL). */
static bool noc_resolve_dest(struct bh_noc_txn *x, struct bh_fault *f, uint32_t hi, uint32_t mid, uint32_t lo,
			     uint32_t len)
{
	const char *verb = op_verb[x->op];
	if (!x->mcast)
		return noc_resolve(x, f, verb, HI_X(hi), HI_Y(hi), mid, lo, len, &x->dst);
	struct noc_where w = { .noc = x->noc, .verb = verb, .ex = HI_X(hi), .ey = HI_Y(hi), .sx = HI_START_X(hi),
			       .sy = HI_START_Y(hi), .lo = lo, .mcast = true };
	memset(&x->dst, 0, sizeof x->dst);
	noc_mcast_spans(x, hi);
	return noc_tensix_addr(x, f, &w, mid, lo, len, &x->dst);
}

static bool noc_issue_write(struct bh_noc_txn *x, struct bh_fault *f, const uint32_t *r)
{
	uint32_t targ_hi = r[BH_NIU_TARG_ADDR_HI / 4], ret_hi = r[BH_NIU_RET_ADDR_HI / 4];
	uint32_t targ_lo = r[BH_NIU_TARG_ADDR_LO / 4], targ_mid = r[BH_NIU_TARG_ADDR_MID / 4];
	x->op = BH_NOC_OP_WRITE;
	if (!noc_check_len(x, f, r[BH_NIU_AT_LEN_BE / 4], r[BH_NIU_AT_LEN_BE_1 / 4]))
		return false;
	/* The data comes from the initiator's own address space at TARG_ADDR_LO. */
	x->src.tile = x->init;
	struct noc_where wsrc = { .fixed = "NoC write source (TARG_ADDR, local)" };
	if (!noc_tensix_addr(x, f, &wsrc, targ_mid, targ_lo, x->len, &x->src) ||
	    !noc_resolve_dest(x, f, ret_hi, r[BH_NIU_RET_ADDR_MID / 4], r[BH_NIU_RET_ADDR_LO / 4], x->len))
		return false;
	/* Acks go to the NIU named by TARG_ADDR_HI (noc_init points it at the tile itself). */
	if (x->resp && !noc_resolve_ack(x, f, "write ack (TARG_ADDR_HI)", HI_X(targ_hi), HI_Y(targ_hi), &x->ack))
		return false;
	return noc_check_alignment(x, f, &x->src, &x->dst);
}

/* WR_BE: up to 64 bytes picked by a mask from the 16-byte aligned source to the 16-byte aligned
 * destination, in L1. */
static bool noc_issue_write_be(struct bh_noc_txn *x, struct bh_fault *f, const uint32_t *r)
{
	uint32_t targ_hi = r[BH_NIU_TARG_ADDR_HI / 4], ret_hi = r[BH_NIU_RET_ADDR_HI / 4];
	x->op = BH_NOC_OP_WRITE_BE;
	x->be = r[BH_NIU_AT_LEN_BE / 4] | (uint64_t)r[BH_NIU_AT_LEN_BE_1 / 4] << 32;
	x->packets = 1;
	if (!x->be)
		return noc_fault(x, f, BH_FAULT_BAD_VALUE, "WR_BE with an empty byte mask (NOC_AT_LEN_BE and _1 are 0) "
				 "writes nothing");
	x->len = 64u - (unsigned)__builtin_clzll(x->be);   /* bytes from the base to the last enabled one */
	x->src.tile = x->init;
	struct noc_where wbe = { .fixed = "NoC byte-enable write source (TARG_ADDR, local)" };
	if (!noc_tensix_addr(x, f, &wbe, r[BH_NIU_TARG_ADDR_MID / 4],
			     r[BH_NIU_TARG_ADDR_LO / 4] & ~15u, x->len, &x->src) ||
	    !noc_resolve_dest(x, f, ret_hi, r[BH_NIU_RET_ADDR_MID / 4], r[BH_NIU_RET_ADDR_LO / 4] & ~15u, x->len))
		return false;
	if (x->src.kind != BH_NOC_SIDE_L1 || x->dst.kind != BH_NOC_SIDE_L1)
		return noc_fault(x, f, BH_FAULT_NOT_MODELLED, "NoC%u byte-enable write: only L1 to Tensix L1 is "
				 "modelled (to a register the mask is ignored; DRAM/PCIe unverified)", x->noc);
	if (x->resp && !noc_resolve_ack(x, f, "write ack (TARG_ADDR_HI)", HI_X(targ_hi), HI_Y(targ_hi), &x->ack))
		return false;
	return true;
}

/* WR_INLINE: NOC_AT_DATA stored to a register of the target. Inline writes to L1 are a known
 * Blackhole hardware bug; tt-metal stages the word in L1 and sends a normal write instead. */
static bool noc_issue_write_inline(struct bh_noc_txn *x, struct bh_fault *f, const uint32_t *r)
{
	uint32_t targ_hi = r[BH_NIU_TARG_ADDR_HI / 4], lo = r[BH_NIU_TARG_ADDR_LO / 4];
	x->op = BH_NOC_OP_WRITE_INLINE;
	x->len = 4;
	x->packets = 1;
	x->data = r[BH_NIU_AT_DATA / 4];
	if (!noc_resolve_dest(x, f, targ_hi, r[BH_NIU_TARG_ADDR_MID / 4], lo, 4))
		return false;
	if (x->dst.kind == BH_NOC_SIDE_L1)
		return noc_fault(x, f, BH_FAULT_NOT_MODELLED, "NoC%u inline write to L1 0x%08x: unsafe on Blackhole "
				 "(hardware bug: WR_INLINE is safe for registers only); stage the word in L1 and send a "
				 "4-byte write, as tt-metal's noc_inline_dw_write does", x->noc, lo);
	if (noc_side_far(&x->dst))
		return noc_fault(x, f, BH_FAULT_ACCESS, "NoC%u inline write to DRAM/PCIe: WR_INLINE needs a Tensix "
				 "(or Ethernet) destination", x->noc);
	x->ack = x->resp ? x->init : NULL;    /* inline acks return to the initiating NIU */
	return true;
}

static bool noc_at_modelled(unsigned op)
{
	return op == AT_INCR_GET || op == AT_SWAP_MASK || op == AT_CAS || op == AT_SWAP_IDX || op == AT_SWAP_IDX_HI;
}

static bool noc_issue_atomic(struct bh_noc_txn *x, struct bh_fault *f, const uint32_t *r)
{
	static const char *const unmodelled[16] = {
		[2] = "INCR_GET_PTR (operand layout unverified)", [5] = "GET_TILE_MAP", [8] = "Zaamo-style",
		[9] = "ACC (SIMD accumulate)", [10] = "SWAP (index variant 10)",
	};
	uint32_t targ_hi = r[BH_NIU_TARG_ADDR_HI / 4], lo = r[BH_NIU_TARG_ADDR_LO / 4];
	uint32_t ret_hi = r[BH_NIU_RET_ADDR_HI / 4];
	x->op = BH_NOC_OP_ATOMIC;
	x->len = 4;
	x->packets = 1;
	x->at = r[BH_NIU_AT_LEN_BE / 4];
	x->data = r[BH_NIU_AT_DATA / 4];
	unsigned op = x->at >> 12 & 0xF;
	if (!noc_at_modelled(op))
		return noc_fault(x, f, BH_FAULT_NOT_MODELLED, "NOC_AT_LEN_BE 0x%08x: atomic opcode %u (%s) is not modelled "
				 "(INCR_GET 1, SWAP 3/6/7, CAS 4 are)", x->at, op, unmodelled[op] ? unmodelled[op] : "reserved");
	if (!noc_resolve_dest(x, f, targ_hi, r[BH_NIU_TARG_ADDR_MID / 4], lo, 4))
		return false;
	if (x->dst.kind != BH_NOC_SIDE_L1)
		return noc_fault(x, f, BH_FAULT_ACCESS, "NoC%u atomic on 0x%08x: atomics act on L1 of a Tensix tile only "
				 "(not registers, DRAM or PCIe)", x->noc, lo);
	if (lo & 3)
		return noc_fault(x, f, BH_FAULT_MISALIGNED, "NoC%u atomic on 0x%08x: the result word at TARG_ADDR_LO must "
				 "be 4-byte aligned", x->noc, lo);
	if (!x->resp)
		return true;
	/* The old value goes to RET_ADDR, whose NIU counts the response. */
	if (!noc_resolve(x, f, "atomic result to", HI_X(ret_hi), HI_Y(ret_hi), r[BH_NIU_RET_ADDR_MID / 4],
			 r[BH_NIU_RET_ADDR_LO / 4], 4, &x->ret))
		return false;
	if (x->ret.kind != BH_NOC_SIDE_L1 || (x->ret.addr & 3))
		return noc_fault(x, f, BH_FAULT_ACCESS, "NoC%u atomic result to 0x%08x: RET_ADDR must be a 4-byte aligned "
				 "L1 word of a Tensix tile", x->noc, x->ret.addr);
	x->ack = x->ret.tile;
	return true;
}

/* The destination a VC_LINKED transaction keeps (tile or rectangle, broadcast axis). */
static uint64_t noc_link_key(bool mcast, uint32_t ctrl, uint32_t hi)
{
	return 1ull << 40 | (uint64_t)mcast << 32 | (uint64_t)!!(ctrl & BH_NOC_CTRL_BRCST_XY) << 33 |
	       (hi & (mcast ? 0xFFFFFFu : 0xFFFu));
}

/* VC_LINKED: every request of a linked transaction goes to the same destination (tile or
 * rectangle, same broadcast axis); on silicon a mismatch locks the NoC up. */
static bool noc_check_linked(struct bh_noc_txn *x, struct bh_fault *f, uint32_t ctrl, const uint32_t *r)
{
	struct bh_niu *n = &x->init->niu[x->noc];
	uint32_t hi = x->op == BH_NOC_OP_WRITE || x->op == BH_NOC_OP_WRITE_BE ? r[BH_NIU_RET_ADDR_HI / 4]
									       : r[BH_NIU_TARG_ADDR_HI / 4];
	uint64_t key = noc_link_key(x->mcast, ctrl, hi);
	uint64_t open = atomic_load_explicit(&n->linked, memory_order_relaxed);
	if (open && open != key)
		return noc_fault(x, f, BH_FAULT_BAD_VALUE, "VC_LINKED transaction: this request goes to %s 0x%06x, the "
				 "linked one before it to %s 0x%06x; all requests of a linked transaction need one "
				 "destination (silicon locks the NoC up)", x->mcast ? "rectangle" : "tile",
				 (unsigned)(key & 0xFFFFFF), open >> 32 & 1 ? "rectangle" : "tile", (unsigned)(open & 0xFFFFFF));
	atomic_store_explicit(&n->linked, ctrl & BH_NOC_CTRL_VC_LINKED ? key : 0, memory_order_relaxed);
	return true;
}

/* What every request of initiator buf starts from: its initiator, NOC_CTRL's bits and the
 * transaction id of NOC_PACKET_TAG, everything else zero. Field by field: a compound literal
 * zeroes the 200-odd bytes with a microcoded string store, at every request. */
static void noc_txn_start(struct bh_noc_txn *x, struct bh_tile *t, unsigned noc, unsigned buf, uint32_t ctrl,
			  uint32_t tag)
{
	x->chip = t->chip;
	x->init = t;
	x->noc = (uint8_t)noc;
	x->buf = (uint8_t)buf;
	x->id = (uint8_t)BH_NOC_PACKET_TAG_TXN_ID(tag);
	x->op = 0;
	x->who = BH_CORES_PER_TILE;
	x->pc = 0;
	x->resp = ctrl & BH_NOC_CTRL_RESP_MARKED;
	x->mcast = ctrl & BH_NOC_CTRL_BRCST_PACKET;
	x->src_include = ctrl & BH_NOC_CTRL_BRCST_SRC_INCLUDE;
	x->vc_static = ctrl & BH_NOC_CTRL_VC_STATIC;
	x->vc = (uint8_t)(ctrl >> 13 & 7);
	x->len = x->packets = 0;
	x->be = 0;
	x->data = x->at = 0;
	x->src = x->dst = x->ret = (struct bh_noc_side){ .kind = BH_NOC_SIDE_L1 };
	x->ack = NULL;
	x->span_x = x->span_y = 0;
	x->trace_id = 0;
	x->by_runner = false;
}

bool bh_noc_issue(struct bh_tile *t, unsigned noc, unsigned buf, struct bh_noc_txn *x, struct bh_fault *f)
{
	struct bh_niu *n = &t->niu[noc];
	/* The request's registers, up to NOC_L1_ACC_AT_INSTRN (CMD_CTRL is the store that issues it). */
	uint32_t r[BH_NIU_L1_ACC_AT_INSTRN / 4 + 1];
#pragma GCC unroll 16
	for (unsigned k = 0; k < sizeof r / sizeof r[0]; k++)
		r[k] = bh_niu_cmdbuf_get(n, buf, 4 * k);
	uint32_t ctrl = r[BH_NIU_CTRL / 4];
	noc_txn_start(x, t, noc, buf, ctrl, r[BH_NIU_PACKET_TAG / 4]);
	bool ok;
	switch (ctrl & BH_NOC_CTRL_TYPE_MASK) {
	case BH_NOC_CTRL_RD:
		ok = noc_issue_read(x, f, r);
		break;
	case BH_NOC_CTRL_AT:
		ok = noc_issue_atomic(x, f, r);
		break;
	default:   /* write; NOC_CTRL type 3 was refused when written */
		if (ctrl & BH_NOC_CTRL_WR_INLINE)
			ok = noc_issue_write_inline(x, f, r);
		else if (ctrl & BH_NOC_CTRL_WR_BE)
			ok = noc_issue_write_be(x, f, r);
		else
			ok = noc_issue_write(x, f, r);
		break;
	}
	if (!ok || !noc_check_linked(x, f, ctrl, r))
		return false;
	/* Counters that move at the CMD_CTRL write (noc.md 3.4). */
	if (x->resp)
		bh_niu_count(t, noc, BH_NIU_MST_REQS_OUTSTANDING_ID0 + x->id,
			     x->op == BH_NOC_OP_READ || x->op == BH_NOC_OP_WRITE ? x->packets : 1);
	if (x->op == BH_NOC_OP_WRITE || x->op == BH_NOC_OP_WRITE_BE)
		bh_niu_count(t, noc, BH_NIU_MST_WRITE_REQS_OUTGOING_ID0 + x->id, x->packets);
	return true;
}

/* ------------------------------------------------------------------------------- complete */

/* Relaxed atomic copy: either side may be a running core or another transfer. */
static void noc_copy(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	bh_copy_relaxed(dst, src, len);
}

static uint8_t *noc_side_ptr(const struct bh_noc_side *s, uint32_t off)
{
	return s->kind == BH_NOC_SIDE_MEM ? s->mem + off : s->tile->l1 + s->addr + off;
}

/* A register access at the far end, as a requester from outside the tile (the NoC and the host
 * share BH_REQ_HOST). A refusal is reported at the initiator's CMD_CTRL. */
static bool noc_mmio(const struct bh_noc_txn *x, struct bh_fault *f, const struct bh_noc_side *s, bool store,
		     uint32_t *v)
{
	struct bh_fault inner;
	memset(&inner, 0, sizeof inner);
	if (bh_mmio_access(s->tile, BH_REQ_HOST, s->addr, 4, store, v, &inner, NULL, 0) == BH_ACC_OK)
		return true;
	return noc_fault(x, f, inner.kind, "NoC%u %s (%u,%u) 0x%08x [%s]: %s", x->noc, store ? "write to" : "read from",
			 s->tile->x, s->tile->y, s->addr, inner.region, inner.detail);
}

static bool noc_move(const struct bh_noc_txn *x, struct bh_fault *f, const struct bh_noc_side *dst,
		     const struct bh_noc_side *src, uint32_t off, uint32_t len);

/* Side s moved on by off bytes. */
static struct bh_noc_side noc_side_at(const struct bh_noc_side *s, uint32_t off)
{
	struct bh_noc_side r = *s;
	if (r.kind == BH_NOC_SIDE_MEM)
		r.mem += off;
	else
		r.addr += off;
	r.host += off;
	return r;
}

/* Host memory the owner serves: through a bounce buffer, in chunks, the other side moved as any
 * memory (a read's data lands in L1 with its page check; a write's source is read as usual). */
static bool noc_move_host(const struct bh_noc_txn *x, struct bh_fault *f, const struct bh_noc_side *dst,
			  const struct bh_noc_side *src, uint32_t off, uint32_t len)
{
	struct bh_chip *chip = x->chip;
	uint8_t buf[4096];
	bool rd = src->kind == BH_NOC_SIDE_HOST;
	for (uint32_t done = 0; done < len;) {
		uint32_t n = len - done < sizeof buf ? len - done : (uint32_t)sizeof buf;
		struct bh_noc_side b = { .kind = BH_NOC_SIDE_MEM, .mem = buf };
		struct bh_noc_side other = noc_side_at(rd ? dst : src, off + done);
		uint64_t at = (rd ? src->host : dst->host) + off + done;
		if (rd && !chip->host_io(chip->host_io_arg, at, buf, n, false))
			return noc_fault(x, f, BH_FAULT_ACCESS, "NoC%u read of %u bytes from host memory 0x%llx: refused "
					 "by the host", x->noc, n, (unsigned long long)at);
		if (!(rd ? noc_move(x, f, &other, &b, 0, n) : noc_move(x, f, &b, &other, 0, n)))
			return false;
		if (!rd && !chip->host_io(chip->host_io_arg, at, buf, n, true))
			return noc_fault(x, f, BH_FAULT_ACCESS, "NoC%u write of %u bytes to host memory 0x%llx: refused "
					 "by the host", x->noc, n, (unsigned long long)at);
		done += n;
	}
	return true;
}

/* Move len bytes at offset off from src to dst. An L1 destination then takes the page check of
 * host writes: decoded code there is dropped and cores parked on a word there wake. */
static bool noc_move(const struct bh_noc_txn *x, struct bh_fault *f, const struct bh_noc_side *dst,
		     const struct bh_noc_side *src, uint32_t off, uint32_t len)
{
	if (src->kind == BH_NOC_SIDE_HOST || dst->kind == BH_NOC_SIDE_HOST)
		return noc_move_host(x, f, dst, src, off, len);
	if (src->kind == BH_NOC_SIDE_MMIO || dst->kind == BH_NOC_SIDE_MMIO) {
		uint32_t v;
		if (src->kind == BH_NOC_SIDE_MMIO) {
			if (!noc_mmio(x, f, src, false, &v))
				return false;
		} else {
			v = __atomic_load_n((const uint32_t *)noc_side_ptr(src, off), __ATOMIC_RELAXED);
		}
		if (dst->kind == BH_NOC_SIDE_MMIO)
			return noc_mmio(x, f, dst, true, &v);
		__atomic_store_n((uint32_t *)noc_side_ptr(dst, off), v, __ATOMIC_RELAXED);
	} else {
		if (dst->kind == BH_NOC_SIDE_L1 &&
		    (bh_tile_launch_guard_check(dst->tile, dst->addr + off, len,
						&(struct bh_l1_writer){ BH_CORES_PER_TILE, 0, x }, f) ||
		     bh_tile_cb_guard_check(dst->tile, dst->addr + off, len,
					    &(struct bh_l1_writer){ BH_CORES_PER_TILE, 0, x }, f)))
			return false;   /* launch-slot-busy, cb-ownership in stop mode: refused, the initiator stops */
		noc_copy(noc_side_ptr(dst, off), noc_side_ptr(src, off), len);
	}
	if (dst->kind == BH_NOC_SIDE_L1)
		bh_tile_l1_written_by(dst->tile, dst->addr + off, len, &(struct bh_l1_writer){ BH_CORES_PER_TILE, 0, x });
	return true;
}

static void noc_move_be(const struct bh_noc_txn *x, const struct bh_noc_side *dst, const struct bh_noc_side *src,
			uint64_t be)
{
	uint8_t *d = noc_side_ptr(dst, 0);
	const uint8_t *s = noc_side_ptr(src, 0);
	for (uint64_t m = be; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		__atomic_store_n(d + i, __atomic_load_n(s + i, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	}
	bh_tile_l1_written_by(dst->tile, dst->addr, 64u - (unsigned)__builtin_clzll(be),
			      &(struct bh_l1_writer){ BH_CORES_PER_TILE, 0, x });
}

/* Receivers one at a time: the unicast destination, or each Tensix tile of the rectangle in
 * tile-index order. *it starts at 0. */
static bool noc_receiver(const struct bh_noc_txn *x, unsigned *it, struct bh_noc_side *d)
{
	if (!x->mcast) {
		*d = x->dst;
		return (*it)++ == 0;
	}
	while (*it < x->chip->topo.ntiles) {
		unsigned k = (*it)++;
		if (noc_receives(x, k)) {
			*d = x->dst;
			d->tile = x->chip->tiles[k];
			return true;
		}
	}
	return false;
}

/* The atomic of noc.md 6 on the L1 of tile t. Each touched word is one host atomic (the block of
 * a SWAP mask is not atomic as a whole). Returns the value hardware reports: the word at
 * TARG_ADDR_LO before the operation. */
static uint32_t noc_atomic_apply(const struct bh_noc_txn *x, struct bh_tile *t)
{
	uint32_t at = x->at, data = x->data, targ = x->dst.addr, block = targ & ~15u;
	uint32_t result = __atomic_load_n((uint32_t *)(t->l1 + targ), __ATOMIC_RELAXED);
	unsigned op = at >> 12 & 0xF, w = op == AT_SWAP_IDX_HI ? at >> 2 & 3 : at & 3;
	uint32_t *p = (uint32_t *)(t->l1 + block + 4 * w), old;
	switch (op) {
	case AT_INCR_GET: {
		uint32_t mask = (2u << (at >> 2 & 31)) - 1, nv;
		old = __atomic_load_n(p, __ATOMIC_RELAXED);
		do
			nv = ((old + data) & mask) | (old & ~mask);
		while (!__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
		break;
	}
	case AT_CAS:
		old = at >> 2 & 0xF;
		__atomic_compare_exchange_n(p, &old, at >> 6 & 0xF, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		break;
	case AT_SWAP_IDX:
	case AT_SWAP_IDX_HI:
		old = __atomic_exchange_n(p, data, __ATOMIC_RELAXED);
		break;
	default:   /* AT_SWAP_MASK: halfword i of the block takes half (i & 1) of AT_DATA when Mask bit i is set */
		for (w = 0; w < 4; w++) {
			unsigned hm = at >> (2 + 2 * w) & 3;
			uint32_t wm = (hm & 1 ? 0x0000FFFFu : 0) | (hm & 2 ? 0xFFFF0000u : 0), o, nv;
			if (!hm)
				continue;
			p = (uint32_t *)(t->l1 + block + 4 * w);
			o = __atomic_load_n(p, __ATOMIC_RELAXED);
			do
				nv = (o & ~wm) | (data & wm);
			while (!__atomic_compare_exchange_n(p, &o, nv, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
			if (block + 4 * w == targ)
				result = o;
		}
		bh_tile_l1_written_by(t, block, 16, &(struct bh_l1_writer){ BH_CORES_PER_TILE, 0, x });
		return result;
	}
	if (block + 4 * w == targ)
		result = old;
	bh_tile_l1_written_by(t, block + 4 * w, 4, &(struct bh_l1_writer){ BH_CORES_PER_TILE, 0, x });
	return result;
}

/* A split request leaves the initiator as hardware does, packet by packet: AT_LEN_BE holds the
 * last packet's length and both addresses point at it. */
static void noc_split_writeback(const struct bh_noc_txn *x)
{
	struct bh_niu *n = &x->init->niu[x->noc];
	uint32_t adv = (x->packets - 1) * BH_NOC_PACKET_MAX;
	if (x->packets < 2)
		return;
	bh_niu_cmdbuf_set(n, x->buf, BH_NIU_AT_LEN_BE, x->len - adv);
	bh_niu_cmdbuf_set(n, x->buf, BH_NIU_TARG_ADDR_LO, bh_niu_cmdbuf_get(n, x->buf, BH_NIU_TARG_ADDR_LO) + adv);
	bh_niu_cmdbuf_set(n, x->buf, BH_NIU_RET_ADDR_LO, bh_niu_cmdbuf_get(n, x->buf, BH_NIU_RET_ADDR_LO) + adv);
	static const unsigned moved[] = { BH_NIU_AT_LEN_BE, BH_NIU_TARG_ADDR_LO, BH_NIU_RET_ADDR_LO };
	for (unsigned k = 0; k < 3; k++)
		bh_tile_mmio_written(x->init, BH_NIU_BASE(x->noc) + BH_NIU_CMD_BUF_STRIDE * x->buf + moved[k]);
}

/* Responses counted at the NIU of the responding side's `ack` tile, OUTSTANDING dropping by
 * the same number. OUTSTANDING first: whoever sees the counter a barrier polls rise (acquire)
 * also sees OUTSTANDING down, whichever thread ran the response. */
/* A counter move of a phase after issue: the runner's cell when the engine runs the phase. */
static void noc_count(const struct bh_noc_txn *x, struct bh_tile *t, unsigned i, uint32_t delta)
{
	if (x->by_runner)
		bh_niu_count_run(t, x->noc, i, delta);
	else
		bh_niu_count(t, x->noc, i, delta);
}

static void noc_responses(const struct bh_noc_txn *x, unsigned counter, uint32_t n)
{
	if (!x->resp || !n)
		return;
	noc_count(x, x->ack, BH_NIU_MST_REQS_OUTSTANDING_ID0 + x->id, (uint32_t)-n);
	noc_count(x, x->ack, counter, n);
}

static void noc_accepted(const struct bh_noc_txn *x, bool with_sent)
{
	uint32_t p = x->op == BH_NOC_OP_READ || x->op == BH_NOC_OP_WRITE ? x->packets : 1;
	unsigned started, sent;
	switch (x->op) {
	case BH_NOC_OP_READ:
		started = BH_NIU_MST_RD_REQ_STARTED;
		sent = BH_NIU_MST_RD_REQ_SENT;
		break;
	case BH_NOC_OP_ATOMIC:
		started = x->resp ? BH_NIU_MST_NONPOSTED_ATOMIC_STARTED : BH_NIU_COUNTER_CELLS;
		sent = x->resp ? BH_NIU_MST_NONPOSTED_ATOMIC_SENT : BH_NIU_MST_POSTED_ATOMIC_SENT;
		break;
	default:
		started = x->resp ? BH_NIU_MST_NONPOSTED_WR_REQ_STARTED : BH_NIU_MST_POSTED_WR_REQ_STARTED;
		sent = x->resp ? BH_NIU_MST_NONPOSTED_WR_REQ_SENT : BH_NIU_MST_POSTED_WR_REQ_SENT;
		break;
	}
	noc_count(x, x->init, BH_NIU_MST_CMD_ACCEPTED, p);
	if (started < BH_NIU_COUNTER_CELLS)
		noc_count(x, x->init, started, p);
	if (with_sent)
		noc_count(x, x->init, sent, p);
	noc_split_writeback(x);
}

void bh_noc_accepted(const struct bh_noc_txn *x)
{
	noc_accepted(x, true);
}

void bh_noc_accepted_unsent(const struct bh_noc_txn *x)
{
	noc_accepted(x, false);
}

void bh_noc_sent(const struct bh_noc_txn *x)
{
	uint32_t p = x->op == BH_NOC_OP_WRITE ? x->packets : 1;
	noc_count(x, x->init, x->resp ? BH_NIU_MST_NONPOSTED_WR_REQ_SENT : BH_NIU_MST_POSTED_WR_REQ_SENT, p);
}

/* atomic-into-code (races.md 30): the word of an atomic that a running core of the destination
 * executed since its last I-cache invalidate (a semaphore id that aliases kernel text). The finding
 * is the initiating core's, at its CMD_CTRL store; one issued by a fast-dispatch model is logged
 * against the core whose code it hit. False in stop mode, with *f filled. */
static bool noc_atomic_into_code(const struct bh_noc_txn *x, struct bh_tile *t, struct bh_fault *f)
{
	uint32_t word = 0;
	int k = -1;
	if (bh_checks_on(&x->chip->checks, BH_CHECK_ATOMIC_INTO_CODE))
		k = bh_code_executed_fenced(t, x->dst.addr & ~3u, 4, &word);   /* noc_atomic_apply fenced */
	if (k < 0)
		return true;
	const char *victim = bh_core_kind_name((enum bh_core_kind)k);
	char other[80];
	snprintf(other, sizeof other, "%s of (%u,%u) (running), which executed 0x%08x", victim, t->x, t->y, word);
	bh_check_fill(f, BH_CHECK_ATOMIC_INTO_CODE, x->dst.addr, "L1", other,
		      "NoC%u atomic on (%u,%u) 0x%08x lands in code %s ran since its last I-cache invalidate: a semaphore "
		      "there aliases kernel text", x->noc, t->x, t->y, x->dst.addr, victim);
	f->has_addr = true;
	f->is_store = true;
	f->size = 4;
	if (x->who >= BH_CORES_PER_TILE) {
		f->pc = x->chip->core_pc ? x->chip->core_pc(t, (unsigned)k) : 0;
		bh_check_found(&x->chip->checks, t->index, (unsigned)k, f);
		return true;
	}
	f->pc = x->pc;
	f->insn = x->pc < BH_L1_SIZE && !(x->pc & 3) ? bh_mem_ld(x->init->l1 + x->pc, 4) : 0;
	return !bh_check_found(&x->chip->checks, x->init->index, x->who, f);
}

bool bh_noc_next_receiver(const struct bh_noc_txn *x, unsigned *it, struct bh_noc_side *d)
{
	return noc_receiver(x, it, d);
}

void bh_noc_trace_issue(struct bh_noc_txn *x)
{
	struct bh_hooks *h = &x->chip->hooks;
	if (!bh_hooks_want(h, BH_EVENT_NOC_ISSUE) && !bh_hooks_want(h, BH_EVENT_NOC_LAND))
		return;
	x->trace_id = atomic_fetch_add_explicit(&x->chip->trace_seq, 1, memory_order_relaxed) + 1;
	if (!bh_hooks_want(h, BH_EVENT_NOC_ISSUE))
		return;
	unsigned it = 0;
	struct bh_noc_side d;
	bool any = noc_receiver(x, &it, &d);
	const struct bh_noc_side *far = x->op == BH_NOC_OP_READ ? &x->src : &d;
	struct bh_core_event ev = { .kind = BH_EVENT_NOC_ISSUE, .tile = x->init->index,
				    .core = x->who < BH_CORES_PER_TILE ? (enum bh_core_id)x->who : BH_CORE_NONE,
				    .pc = x->pc, .id = x->trace_id,
				    .peer_tile = any && far->tile ? far->tile->index : x->init->index,
				    .addr = x->op == BH_NOC_OP_READ ? x->dst.addr : d.addr,
				    .size = x->op == BH_NOC_OP_READ || x->op == BH_NOC_OP_WRITE ? x->len : 4,
				    .what = noc_op_name(x) };
	bh_hooks_emit_any(h, &ev);
}

/* The data of x landed at d (the initiator for a read). */
static void noc_trace_land(const struct bh_noc_txn *x, const struct bh_noc_side *d)
{
	struct bh_hooks *h = &x->chip->hooks;
	if (!x->trace_id || !bh_hooks_want(h, BH_EVENT_NOC_LAND))
		return;
	struct bh_core_event ev = { .kind = BH_EVENT_NOC_LAND, .tile = d->tile ? d->tile->index : x->init->index,
				    .core = BH_CORE_NONE, .id = x->trace_id, .peer_tile = x->init->index,
				    .addr = d->addr,
				    .size = x->op == BH_NOC_OP_READ || x->op == BH_NOC_OP_WRITE ? x->len : 4,
				    .what = noc_op_name(x) };
	bh_hooks_emit_any(h, &ev);
}

static bool noc_deliver(const struct bh_noc_txn *x, const struct bh_noc_side *d, const struct bh_noc_side *src,
			uint32_t *old, struct bh_fault *f)
{
	uint32_t v;
	switch (x->op) {
	case BH_NOC_OP_READ:
	case BH_NOC_OP_WRITE:
		return noc_move(x, f, d, src, 0, x->len);
	case BH_NOC_OP_WRITE_BE:
		noc_move_be(x, d, src, x->be);
		return true;
	case BH_NOC_OP_WRITE_INLINE:
		v = x->data;
		return noc_mmio(x, f, d, true, &v);
	default:
		*old = noc_atomic_apply(x, d->tile);
		return noc_atomic_into_code(x, d->tile, f);
	}
}

bool bh_noc_deliver(const struct bh_noc_txn *x, const struct bh_noc_side *d, const struct bh_noc_side *src,
		    uint32_t *old, struct bh_fault *f)
{
	bool ok = noc_deliver(x, d, src, old, f);
	if (ok && x->trace_id)
		noc_trace_land(x, d);
	return ok;
}

void bh_noc_source_read(const struct bh_noc_txn *x)
{
	if (x->op == BH_NOC_OP_WRITE || x->op == BH_NOC_OP_WRITE_BE)
		noc_count(x, x->init, BH_NIU_MST_WRITE_REQS_OUTGOING_ID0 + x->id, (uint32_t)-x->packets);
}

/* An atomic's result (the old word) lands at RET_ADDR. */
static void noc_atomic_result(const struct bh_noc_txn *x, uint32_t old)
{
	__atomic_store_n((uint32_t *)noc_side_ptr(&x->ret, 0), old, __ATOMIC_RELAXED);
	bh_tile_l1_written(x->ret.tile, x->ret.addr, 4);
}

void bh_noc_responded(const struct bh_noc_txn *x, uint32_t old)
{
	switch (x->op) {
	case BH_NOC_OP_READ:
		noc_responses(x, BH_NIU_MST_RD_RESP_RECEIVED, x->packets);
		break;
	case BH_NOC_OP_WRITE:
	case BH_NOC_OP_WRITE_BE:
		noc_responses(x, BH_NIU_MST_WR_ACK_RECEIVED, x->packets);   /* one ack per receiver and packet */
		break;
	case BH_NOC_OP_WRITE_INLINE:
		noc_responses(x, BH_NIU_MST_WR_ACK_RECEIVED, 1);
		break;
	default:
		if (!x->resp)
			break;
		noc_atomic_result(x, old);
		noc_responses(x, BH_NIU_MST_ATOMIC_RESP_RECEIVED, 1);
		break;
	}
}

bool bh_noc_complete(struct bh_noc_txn *x, struct bh_fault *f)
{
	unsigned it = 0;
	bool read = false;
	struct bh_noc_side d;
	bh_noc_accepted(x);
	while (bh_noc_next_receiver(x, &it, &d)) {
		uint32_t old = 0;
		if (!bh_noc_deliver(x, &d, &x->src, &old, f))
			return false;
		if (!read)
			bh_noc_source_read(x);
		read = true;
		bh_noc_responded(x, old);
	}
	if (!read)
		bh_noc_source_read(x);
	return true;
}

/* ------------------------------------------------------------------------ atomic in one step */

bool bh_noc_atomic_quick(struct bh_tile *t, unsigned noc, unsigned buf, struct bh_noc_txn *x, uint64_t *link)
{
	struct bh_chip *chip = t->chip;
	struct bh_niu *n = &t->niu[noc];
	uint32_t ctrl = bh_niu_cmdbuf_get(n, buf, BH_NIU_CTRL), at = bh_niu_cmdbuf_get(n, buf, BH_NIU_AT_LEN_BE);
	if ((ctrl & (BH_NOC_CTRL_TYPE_MASK | BH_NOC_CTRL_BRCST_PACKET)) != BH_NOC_CTRL_AT || !noc_at_modelled(at >> 12 & 0xF))
		return false;
	uint32_t hi = bh_niu_cmdbuf_get(n, buf, BH_NIU_TARG_ADDR_HI), lo = bh_niu_cmdbuf_get(n, buf, BH_NIU_TARG_ADDR_LO);
	struct bh_tile *dst = noc_tensix_l1(chip, bh_topology_at(&chip->topo, HI_X(hi), HI_Y(hi)),
					    bh_niu_cmdbuf_get(n, buf, BH_NIU_TARG_ADDR_MID), lo, 4);
	if (!dst || (lo & 3))
		return false;
	bool resp = ctrl & BH_NOC_CTRL_RESP_MARKED;
	uint32_t ret_hi = bh_niu_cmdbuf_get(n, buf, BH_NIU_RET_ADDR_HI), ret_lo = bh_niu_cmdbuf_get(n, buf, BH_NIU_RET_ADDR_LO);
	/* The response returns to the initiator itself (what the counters of one NIU can fold). */
	if (resp && (noc_tensix_l1(chip, bh_topology_at(&chip->topo, HI_X(ret_hi), HI_Y(ret_hi)),
				   bh_niu_cmdbuf_get(n, buf, BH_NIU_RET_ADDR_MID), ret_lo, 4) != t || (ret_lo & 3)))
		return false;
	uint64_t key = noc_link_key(false, ctrl, hi), open = atomic_load_explicit(&n->linked, memory_order_relaxed);
	struct bh_hooks *h = &chip->hooks;
	if ((open && open != key) || bh_hooks_want(h, BH_EVENT_NOC_ISSUE) || bh_hooks_want(h, BH_EVENT_NOC_LAND))
		return false;
	*link = ctrl & BH_NOC_CTRL_VC_LINKED ? key : 0;
	noc_txn_start(x, t, noc, buf, ctrl, bh_niu_cmdbuf_get(n, buf, BH_NIU_PACKET_TAG));
	x->op = BH_NOC_OP_ATOMIC;
	x->len = 4;
	x->packets = 1;
	x->data = bh_niu_cmdbuf_get(n, buf, BH_NIU_AT_DATA);
	x->at = at;
	x->dst.tile = dst;
	x->dst.addr = lo;
	if (resp) {
		x->ret.tile = x->ack = t;
		x->ret.addr = ret_lo;
	}
	return true;
}

bool bh_noc_atomic_now(const struct bh_noc_txn *x, uint64_t link, struct bh_fault *f)
{
	struct bh_niu *n = &x->init->niu[x->noc];
	_Atomic uint64_t *done = &n->one_step[x->who];   /* this core's cell: it alone moves it */
	atomic_store_explicit(done, atomic_load_explicit(done, memory_order_relaxed) + 1, memory_order_relaxed);
	atomic_store_explicit(&n->linked, link, memory_order_relaxed);
	/* REQS_OUTSTANDING_ID would rise here and drop with the response: on this one NIU (the
	 * response returns to it) nothing reads it in between. Then what noc_accepted moves. */
	bh_niu_count(x->init, x->noc, BH_NIU_MST_CMD_ACCEPTED, 1);
	if (x->resp)
		bh_niu_count(x->init, x->noc, BH_NIU_MST_NONPOSTED_ATOMIC_STARTED, 1);
	bh_niu_count(x->init, x->noc, x->resp ? BH_NIU_MST_NONPOSTED_ATOMIC_SENT : BH_NIU_MST_POSTED_ATOMIC_SENT, 1);
	uint32_t old = noc_atomic_apply(x, x->dst.tile);
	if (!noc_atomic_into_code(x, x->dst.tile, f))
		return false;
	if (x->resp) {
		noc_atomic_result(x, old);
		bh_niu_count(x->ack, x->noc, BH_NIU_MST_ATOMIC_RESP_RECEIVED, 1);
	}
	return true;
}

uint64_t bh_noc_one_step_atomics(const struct bh_chip *chip)
{
	return bh_niu_stat_sum(chip, offsetof(struct bh_niu, one_step), BH_CORES_PER_TILE);
}
