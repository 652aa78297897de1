/* Checks of NoC initiator use (fabric/niu_check.h). */
#include <stddef.h>
#include <stdio.h>

#include "fabric/chip.h"
#include "fabric/check.h"
#include "fabric/mmio.h"
#include "fabric/niu.h"
#include "fabric/niu_check.h"
#include "fabric/tile.h"

/* bh_niu.programmer[buf]: 0 when no transaction is being programmed, else (core + 1) << 32 | pc
 * of its first register write. */
#define PROG(who, pc) ((uint64_t)((who) + 1) << 32 | (pc))
#define PROG_CORE(p) ((unsigned)((p) >> 32) - 1)
#define PROG_PC(p) ((uint32_t)(p))

static bool niu_checks_on(const struct bh_access *a, enum bh_check id)
{
	return a->who != BH_REQ_HOST && bh_checks_on(&a->tile->chip->checks, id);
}

bool bh_niu_check_cmdbuf_write(struct bh_access *a, struct bh_niu *n, unsigned buf, unsigned off, uint32_t v)
{
	char other[160];
	if (niu_checks_on(a, BH_CHECK_NOC_BUSY_REPROGRAM) && bh_niu_cmd_busy(n, buf)) {
		snprintf(other, sizeof other, "the request NoC%u command buffer %u issued last, still in flight", n->noc, buf);
		if (!bh_check_access(a, BH_CHECK_NOC_BUSY_REPROGRAM, other,
				     "write of 0x%08x to a register of NoC%u command buffer %u while its CMD_CTRL is busy "
				     "(poll CMD_CTRL until 0 first)", v, n->noc, buf))
			return false;
	}
	if (!niu_checks_on(a, BH_CHECK_NOC_SHARED_INITIATOR) || (off == BH_NIU_CMD_CTRL && v == 0))
		return true;
	uint64_t p = atomic_load_explicit(&n->programmer[buf], memory_order_relaxed);
	if (p == 0 && off != BH_NIU_CMD_CTRL) {
		atomic_compare_exchange_strong_explicit(&n->programmer[buf], &p, PROG(a->who, a->fault->pc),
							memory_order_relaxed, memory_order_relaxed);
		if (p == 0)
			return true;   /* this core opened the transaction */
	}
	if (p == 0 || PROG_CORE(p) == a->who)
		return true;
	snprintf(other, sizeof other, "%s, which started programming this command buffer at pc 0x%08x and has not issued "
		 "it (CMD_CTRL)", bh_requester_name(PROG_CORE(p)), PROG_PC(p));
	return bh_check_access(a, BH_CHECK_NOC_SHARED_INITIATOR, other,
			       "%s of NoC%u command buffer %u by %s in the middle of another core's transaction (one "
			       "owner per command buffer)", off == BH_NIU_CMD_CTRL ? "issue (CMD_CTRL)" : "register write",
			       n->noc, buf, bh_requester_name(a->who));
}

void bh_niu_check_trid_before(struct bh_niu *n, unsigned buf, struct bh_niu_trid_snap *s)
{
	s->id = BH_NOC_PACKET_TAG_TXN_ID(bh_niu_cmdbuf_get(n, buf, BH_NIU_PACKET_TAG));
	s->outstanding = atomic_load_explicit(&n->counter[BH_NIU_MST_REQS_OUTSTANDING_ID0 + s->id], memory_order_relaxed);
	s->outgoing = atomic_load_explicit(&n->counter[BH_NIU_MST_WRITE_REQS_OUTGOING_ID0 + s->id], memory_order_relaxed);
}

/* The 8-bit counter at cell i, `before` its raw value before the issue: did the issue take it
 * past 255? (The cells count freely; the register is their low 8 bits.) */
static bool trid_passed_255(struct bh_niu *n, unsigned i, uint32_t before, uint32_t *added)
{
	*added = atomic_load_explicit(&n->counter[i], memory_order_relaxed) - before;
	return (int32_t)*added > 0 && (before & 0xFF) + *added > 0xFF;
}

bool bh_niu_check_issued(struct bh_access *a, struct bh_niu *n, unsigned buf, const struct bh_niu_trid_snap *s)
{
	atomic_store_explicit(&n->programmer[buf], 0, memory_order_relaxed);
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
