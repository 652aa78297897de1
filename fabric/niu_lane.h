/* The NIU lane's plain register store, inlined into a core's device-store path (cores/core.c):
 * the one NIU access a NoC request makes most often (an address, a length, atomic data, the
 * request's NOC_CTRL), with the bookkeeping of noc-shared-initiator it needs (fabric/niu_check.h),
 * which fabric/niu_check.c shares. */
#ifndef BH_FABRIC_NIU_LANE_H
#define BH_FABRIC_NIU_LANE_H

#include "fabric/chip.h"
#include "fabric/niu.h"
#include "fabric/tile.h"

/* A register write or CMD_CTRL poll of core `who` on the buffer, at pc: its number in the
 * buffer's sequence, and the start of who's transaction when none is under way (a poll always
 * starts one: the reader's transaction begins there). A core's accesses in a row need no numbers
 * of their own (no locked instruction per register write): only another core's access between
 * the issuer's first one and its CMD_CTRL matters, and that one takes a new number. */
static inline __attribute__((always_inline)) uint32_t bh_niu_number(struct bh_niu_programming *pg, unsigned who,
								     uint32_t pc, bool poll)
{
	bool begun = atomic_load_explicit(&pg->core[who].first, memory_order_relaxed) >
		     atomic_load_explicit(&pg->issued, memory_order_relaxed);
	uint32_t seq;
	if (begun && atomic_load_explicit(&pg->last_who, memory_order_relaxed) == who) {
		seq = atomic_load_explicit(&pg->seq, memory_order_relaxed);
	} else {
		seq = atomic_fetch_add_explicit(&pg->seq, 1, memory_order_relaxed) + 1;
		atomic_store_explicit(&pg->last_who, who, memory_order_relaxed);
	}
	if (!begun || poll) {
		atomic_store_explicit(&pg->core[who].first, seq, memory_order_relaxed);
		atomic_store_explicit(&pg->core[who].first_pc, pc, memory_order_relaxed);
	}
	return seq;
}

/* noc-shared-initiator: core `who` wrote register off (not CMD_CTRL) of the buffer at pc. */
static inline __attribute__((always_inline)) void bh_niu_note_write(struct bh_niu_programming *pg, unsigned who,
								    uint32_t pc, unsigned off)
{
	uint32_t seq = bh_niu_number(pg, who, pc, false);
	atomic_store_explicit(&pg->core[who].last, seq, memory_order_relaxed);
	atomic_store_explicit(&pg->core[who].last_pc, pc, memory_order_relaxed);
	atomic_store_explicit(&pg->core[who].last_off, off, memory_order_relaxed);
}

/* What bh_niu_check_cmdbuf_write does for a core's store to a register other than CMD_CTRL
 * (fabric/niu_check.h), without an access: true when it found nothing (done); false, nothing
 * done, when it has a finding for the general path to report. */
static inline bool bh_niu_check_cmdbuf_quick(const struct bh_tile *t, struct bh_niu *n, unsigned who, unsigned buf,
					     unsigned off, uint32_t pc)
{
	uint32_t on = t->chip->checks.enabled;
	if ((on >> BH_CHECK_NOC_BUSY_REPROGRAM & 1) && bh_niu_cmd_busy(n, buf))
		return false;   /* a finding: the general path reports it */
	if (on >> BH_CHECK_NOC_SHARED_INITIATOR & 1)
		bh_niu_note_write(&n->prog[buf], who, pc, off);
	return true;
}

/* Core `who`'s store of val at addr (bh_niu_lane(addr, 4)), at pc: when it goes to the NIU
 * (t->niu_lane, MMIO provocation off), is a store with no effect but its value
 * (bh_niu_plain_value) and the initiator checks find nothing, the value lands in its register
 * (not announced yet) and it returns true. Otherwise false, nothing done. */
static inline __attribute__((always_inline)) bool niu_store_plain_unannounced(struct bh_tile *t, unsigned who,
									       uint32_t addr, uint32_t val, uint32_t pc)
{
	if (!(t->niu_lane[1] >> who & 1) || __builtin_expect(t->chip->provoke.mmio, 0))
		return false;
	unsigned noc = addr >= BH_NIU_BASE(1);
	uint32_t off = addr - BH_NIU_BASE(noc);
	unsigned buf = off / BH_NIU_CMD_BUF_STRIDE, in = off % BH_NIU_CMD_BUF_STRIDE;
	struct bh_niu *n = &t->niu[noc];
	if (!bh_niu_plain_value(buf, in, val) || !bh_niu_check_cmdbuf_quick(t, n, who, buf, in, pc))
		return false;
	bh_niu_cmdbuf_set(n, buf, in, val);
	return true;
}

/* Core `who`'s store of val at addr (bh_niu_lane(addr, 4)), at pc: when it goes to the NIU
 * (t->niu_lane, MMIO provocation off), is a store with no effect but its value
 * (bh_niu_plain_value) and the initiator checks find nothing, the value is stored and announced
 * and it returns true: what bh_mmio_access would have done. Otherwise false, nothing done: the caller takes the general
 * path, which serves the store or reports the finding. */
static inline bool bh_niu_store_plain(struct bh_tile *t, unsigned who, uint32_t addr, uint32_t val, uint32_t pc)
{
	if (!niu_store_plain_unannounced(t, who, addr, val, pc))
		return false;
	bh_tile_mmio_announce(t, addr);
	return true;
}

/* The same with no call on its way, for a caller's first try (cores/core.c): false, nothing
 * done, also while a core of the tile watches a register (the general path announces). */
static inline __attribute__((always_inline)) bool bh_niu_store_plain_leaf(struct bh_tile *t, unsigned who,
									   uint32_t addr, uint32_t val, uint32_t pc)
{
	return !atomic_load_explicit(&t->watch.reg_watches, memory_order_relaxed) &&
	       niu_store_plain_unannounced(t, who, addr, val, pc);
}

#endif
