/* Checks of NoC initiator use (races.md #23, #24), called from the NIU's register-write path
 * (fabric/niu.c) on a core's store:
 *   noc-busy-reprogram    a command buffer's register written while its CMD_CTRL is busy;
 *   noc-shared-initiator  a command buffer programmed by two cores of the tile within one
 *                         transaction (from the first register write to the CMD_CTRL that issues it);
 *   noc-trid-overflow     a request that takes REQS_OUTSTANDING_ID(id) or WRITE_REQS_OUTGOING_ID(id)
 *                         (8 bits, noc.md 3.4) past 255.
 * Each returns false with a->fault filled when the finding stops the core (the handler returns
 * false), true otherwise. The host's requests are not checked. */
#ifndef BH_FABRIC_NIU_CHECK_H
#define BH_FABRIC_NIU_CHECK_H

#include <stdbool.h>
#include <stdint.h>

struct bh_access;
struct bh_niu;

/* Before a write of v to register off (enum bh_niu_cmdbuf_reg) of command buffer buf, CMD_CTRL
 * included. */
bool bh_niu_check_cmdbuf_write(struct bh_access *a, struct bh_niu *n, unsigned buf, unsigned off, uint32_t v);
/* Around the issue at a CMD_CTRL store: snapshot the transaction id's counters before, compare
 * after (the counters a request moves at its CMD_CTRL, noc.md 3.4). Then the transaction's
 * programmer is forgotten. */
struct bh_niu_trid_snap {
	unsigned id;
	uint32_t outstanding, outgoing;
};
void bh_niu_check_trid_before(struct bh_niu *n, unsigned buf, struct bh_niu_trid_snap *s);
bool bh_niu_check_issued(struct bh_access *a, struct bh_niu *n, unsigned buf, const struct bh_niu_trid_snap *s);

#endif
