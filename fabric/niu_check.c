/* Checks of NoC initiator use (fabric/niu_check.h). */
#include <stddef.h>
#include <stdio.h>

#include "fabric/chip.h"
#include "fabric/check.h"
#include "fabric/mmio.h"
#include "fabric/niu.h"
#include "fabric/niu_check.h"
#include "fabric/niu_lane.h"
#include "fabric/tile.h"

static bool niu_checks_on(const struct bh_access *a, enum bh_check id)
{
	return a->who != BH_REQ_HOST && bh_checks_on(&a->tile->chip->checks, id);
}

static const char *cmdbuf_reg_name(unsigned off)
{
	switch (off) {
#define X(o, name, w) case o: return "NOC_" #name;
		BH_NIU_CMDBUF_REGS(X)
#undef X
	default: return "a register";
	}
}

/* noc-shared-initiator at core who's CMD_CTRL: the other core that wrote last after who's
 * transaction began, or -1. */
static inline int niu_shared_other(struct bh_niu_programming *pg, unsigned who)
{
	uint32_t issued = atomic_load_explicit(&pg->issued, memory_order_relaxed);
	uint32_t mine = atomic_load_explicit(&pg->core[who].first, memory_order_relaxed);
	if (mine <= issued)
		return -1;   /* the issuer neither polled nor wrote: it issues what others preprogrammed */
	int other = -1;
	uint32_t latest = mine;
#pragma GCC unroll 8
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
		uint32_t last = atomic_load_explicit(&pg->core[k].last, memory_order_relaxed);
		bool later = k != who && last > latest;
		other = later ? (int)k : other;
		latest = later ? last : latest;
	}
	return other;
}

__attribute__((noinline))
static bool niu_check_shared(struct bh_access *a, struct bh_niu *n, unsigned buf)
{
	struct bh_niu_programming *pg = &n->prog[buf];
	int other = niu_shared_other(pg, a->who);
	if (other < 0)
		return true;
	char desc[160];
	snprintf(desc, sizeof desc, "%s, which wrote %s of this command buffer at pc 0x%08x", bh_requester_name((unsigned)other),
		 cmdbuf_reg_name(atomic_load_explicit(&pg->core[other].last_off, memory_order_relaxed)),
		 atomic_load_explicit(&pg->core[other].last_pc, memory_order_relaxed));
	return bh_check_access(a, BH_CHECK_NOC_SHARED_INITIATOR, desc,
			       "issue (CMD_CTRL) of NoC%u command buffer %u by %s, whose transaction (begun at pc 0x%08x) "
			       "another core wrote into (one owner per command buffer)", n->noc, buf,
			       bh_requester_name(a->who), atomic_load_explicit(&pg->core[a->who].first_pc, memory_order_relaxed));
}

void bh_niu_check_cmd_ctrl_poll(const struct bh_tile *t, struct bh_niu *n, unsigned who, unsigned buf, uint32_t pc)
{
	if (bh_checks_on(&t->chip->checks, BH_CHECK_NOC_SHARED_INITIATOR))
		bh_niu_number(&n->prog[buf], who, pc, true);
}

void bh_niu_check_cmd_ctrl_read(struct bh_access *a, struct bh_niu *n, unsigned buf)
{
	if (a->who != BH_REQ_HOST)
		bh_niu_check_cmd_ctrl_poll(a->tile, n, a->who, buf, a->fault->pc);
}

/* noc-busy-reprogram found (cold: its report needs a frame the check itself does not). */
__attribute__((cold, noinline))
static bool niu_busy_reprogram(struct bh_access *a, struct bh_niu *n, unsigned buf, uint32_t v)
{
	char other[160];
	snprintf(other, sizeof other, "the request NoC%u command buffer %u issued last, still in flight", n->noc, buf);
	return bh_check_access(a, BH_CHECK_NOC_BUSY_REPROGRAM, other,
			       "write of 0x%08x to a register of NoC%u command buffer %u while its CMD_CTRL is busy "
			       "(poll CMD_CTRL until 0 first)", v, n->noc, buf);
}

bool bh_niu_check_cmdbuf_write(struct bh_access *a, struct bh_niu *n, unsigned buf, unsigned off, uint32_t v)
{
	/* Both checks' bits read once: this runs at every register store of a request. */
	uint32_t on = a->who != BH_REQ_HOST ? a->tile->chip->checks.enabled : 0;
	if ((on >> BH_CHECK_NOC_BUSY_REPROGRAM & 1) && bh_niu_cmd_busy(n, buf) && !niu_busy_reprogram(a, n, buf, v))
		return false;
	if (!(on >> BH_CHECK_NOC_SHARED_INITIATOR & 1) || (off == BH_NIU_CMD_CTRL && v == 0))
		return true;
	if (off == BH_NIU_CMD_CTRL)
		return niu_check_shared(a, n, buf);
	bh_niu_note_write(&n->prog[buf], a->who, a->fault->pc, off);
	return true;
}

bool bh_niu_check_issue_quiet(const struct bh_tile *t, struct bh_niu *n, unsigned who, unsigned buf, int outstanding)
{
	uint32_t on = t->chip->checks.enabled;
	if ((on >> BH_CHECK_NOC_BUSY_REPROGRAM & 1) && bh_niu_cmd_busy(n, buf))
		return false;
	if ((on >> BH_CHECK_NOC_SHARED_INITIATOR & 1) && niu_shared_other(&n->prog[buf], who) >= 0)
		return false;
	/* A request adding 1 takes the 8-bit counter past 255 from 255 (trid_passed_255). */
	return !(on >> BH_CHECK_NOC_TRID_OVERFLOW & 1) || outstanding < 0 ||
	       (bh_niu_counter_raw(n, BH_NIU_MST_REQS_OUTSTANDING_ID0 + (unsigned)outstanding) & 0xFF) != 0xFF;
}

void bh_niu_check_issued_quiet(struct bh_niu *n, unsigned buf)
{
	/* The transaction ended: every write so far belongs to it. */
	struct bh_niu_programming *pg = &n->prog[buf];
	atomic_store_explicit(&pg->issued, atomic_load_explicit(&pg->seq, memory_order_relaxed), memory_order_relaxed);
}

void bh_niu_check_trid_before(struct bh_niu *n, unsigned buf, struct bh_niu_trid_snap *s)
{
	s->id = BH_NOC_PACKET_TAG_TXN_ID(bh_niu_cmdbuf_get(n, buf, BH_NIU_PACKET_TAG));
	s->outstanding = bh_niu_counter_raw(n, BH_NIU_MST_REQS_OUTSTANDING_ID0 + s->id);
	s->outgoing = bh_niu_counter_raw(n, BH_NIU_MST_WRITE_REQS_OUTGOING_ID0 + s->id);
}

/* The 8-bit counter at cell i, `before` its raw value before the issue: did the issue take it
 * past 255? (The cells count freely; the register is their low 8 bits.) */
static bool trid_passed_255(struct bh_niu *n, unsigned i, uint32_t before, uint32_t *added)
{
	*added = bh_niu_counter_raw(n, i) - before;
	return (int32_t)*added > 0 && (before & 0xFF) + *added > 0xFF;
}

bool bh_niu_check_issued(struct bh_access *a, struct bh_niu *n, unsigned buf, const struct bh_niu_trid_snap *s)
{
	bh_niu_check_issued_quiet(n, buf);
	if (!niu_checks_on(a, BH_CHECK_NOC_TRID_OVERFLOW))
		return true;
	static const struct {
		unsigned cell;
		const char *name;
		size_t snap;
	} ctr[] = {
		{ BH_NIU_MST_REQS_OUTSTANDING_ID0, "REQS_OUTSTANDING_ID", offsetof(struct bh_niu_trid_snap, outstanding) },
		{ BH_NIU_MST_WRITE_REQS_OUTGOING_ID0, "WRITE_REQS_OUTGOING_ID", offsetof(struct bh_niu_trid_snap, outgoing) },
	};
	for (unsigned k = 0; k < 2; k++) {
		uint32_t before = *(const uint32_t *)((const char *)s + ctr[k].snap), added;
		if (trid_passed_255(n, ctr[k].cell + s->id, before, &added))
			return bh_check_access(a, BH_CHECK_NOC_TRID_OVERFLOW, NULL,
					       "this request adds %u to NIU_MST_%s(%u) of NoC%u, which holds %u: the 8-bit "
					       "counter wraps past 255 (a non-posted multicast counts +1 but -1 per ack: clear "
					       "it with NOC_CLEAR_OUTSTANDING_REQ_CNT)",
					       added, ctr[k].name, s->id, n->noc, before & 0xFF);
	}
	return true;
}

/* noc-mcast-order: the rectangle's corners as the request's coordinate register holds them
 * (noc.md 8: EndX [5:0], EndY [11:6], StartX [17:12], StartY [23:18]). NoC0 spans start..end,
 * NoC1 takes the corners exchanged (tt-metal issues start >= end there); the other order is a
 * wrapped rectangle, which silicon delivers around the grid. */
bool bh_niu_check_mcast_order(struct bh_access *a, struct bh_niu *n, unsigned buf)
{
	uint32_t ctrl = bh_niu_cmdbuf_get(n, buf, BH_NIU_CTRL);
	if (!(ctrl & BH_NOC_CTRL_BRCST_PACKET) || !niu_checks_on(a, BH_CHECK_NOC_MCAST_ORDER))
		return true;
	bool write = (ctrl & BH_NOC_CTRL_TYPE_MASK) == BH_NOC_CTRL_WR;
	uint32_t hi = bh_niu_cmdbuf_get(n, buf, write ? BH_NIU_RET_ADDR_HI : BH_NIU_TARG_ADDR_HI);
	unsigned ex = hi & 0x3F, ey = hi >> 6 & 0x3F, sx = hi >> 12 & 0x3F, sy = hi >> 18 & 0x3F;
	bool wraps = n->noc ? sx < ex || sy < ey : sx > ex || sy > ey;
	if (!wraps)
		return true;
	return bh_check_access(a, BH_CHECK_NOC_MCAST_ORDER, NULL,
			       "NoC%u multicast %s with start (%u,%u) and end (%u,%u) in %s: %s, so the rectangle wraps "
			       "around the grid and reaches the wrong tiles; probably meant start (%u,%u) end (%u,%u)",
			       n->noc, write ? "write" : "atomic", sx, sy, ex, ey, write ? "RET_ADDR_HI" : "TARG_ADDR_HI",
			       n->noc ? "NoC1 takes the corners exchanged (start >= end in translated coordinates)"
				      : "NoC0 spans start..end (start <= end)",
			       ex, ey, sx, sy);
}
