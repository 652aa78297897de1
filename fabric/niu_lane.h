/* The NIU lane's plain register store, inlined into a core's device-store path (cores/core.c):
 * the one NIU access a NoC request makes most often (an address, a length, atomic data, the
 * request's NOC_CTRL). */
#ifndef BH_FABRIC_NIU_LANE_H
#define BH_FABRIC_NIU_LANE_H

#include "fabric/chip.h"
#include "fabric/niu.h"
#include "fabric/tile.h"

/* Core `who`'s store of val at addr (bh_niu_lane(addr, 4)), at pc: when it goes to the NIU
 * (t->niu_lane, MMIO provocation off), is a store with no effect but its value
 * (bh_niu_plain_value) and the initiator checks find nothing, the value is stored and announced and it returns true: what
 * bh_mmio_access would have done. Otherwise false, nothing done: the caller takes the general
 * path, which serves the store or reports the finding. */
static inline bool bh_niu_store_plain(struct bh_tile *t, unsigned who, uint32_t addr, uint32_t val, uint32_t pc)
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
	bh_tile_mmio_written(t, addr);
	return true;
}

#endif
