/* Checks of NoC initiator use (races.md #23, #24, #27), called from the NIU's register-write path
 * (fabric/niu.c) on a core's store:
 *   noc-busy-reprogram    a command buffer's register written while its CMD_CTRL is busy;
 *   noc-shared-initiator  a request issued (CMD_CTRL) by a core after another core wrote registers
 *                         of the same command buffer in the middle of its transaction. A core's
 *                         transaction begins when it polls CMD_CTRL (as every issue does before
 *                         programming), or, without a poll, at its first register write since the
 *                         buffer last issued. Registers written before (preprogrammed static
 *                         fields, by any core) are fine;
 *   noc-trid-overflow     a request that takes REQS_OUTSTANDING_ID(id) or WRITE_REQS_OUTGOING_ID(id)
 *                         (8 bits, noc.md 3.4) past 255;
 *   noc-mcast-order       a multicast whose corners are in the other NoC's order (a wrapped
 *                         rectangle on silicon, races.md #27).
 * Each returns false with a->fault filled when the finding stops the core (the handler returns
 * false), true otherwise. The host's requests are not checked. */
#ifndef BH_FABRIC_NIU_CHECK_H
#define BH_FABRIC_NIU_CHECK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabric/hw.h"

struct bh_access;
struct bh_niu;
struct bh_tile;

/* Who programmed a command buffer since its last CMD_CTRL, for noc-shared-initiator. Register
 * writes are numbered by seq; each core keeps (single writer) the numbers of its first and last
 * write since `issued` and where the last was. Relaxed atomics: other cores read them at a
 * CMD_CTRL, a racy view that is only ever compared. */
struct bh_niu_programming {
	_Atomic uint32_t seq, issued;
	_Atomic uint32_t last_who;   /* the core that took the last number (writes of one core in a row share it) */
	struct {
		_Atomic uint32_t first, last, first_pc, last_pc, last_off;
	} core[BH_CORES_PER_TILE];
};

/* A read of CMD_CTRL of command buffer buf: the reader's transaction begins here. */
void bh_niu_check_cmd_ctrl_read(struct bh_access *a, struct bh_niu *n, unsigned buf);
/* The same for a core's (`who`) read at pc, without an access (it finds nothing by itself). */
void bh_niu_check_cmd_ctrl_poll(const struct bh_tile *t, struct bh_niu *n, unsigned who, unsigned buf, uint32_t pc);
/* Before a write of v to register off (enum bh_niu_cmdbuf_reg) of command buffer buf, CMD_CTRL
 * included. */
bool bh_niu_check_cmdbuf_write(struct bh_access *a, struct bh_niu *n, unsigned buf, unsigned off, uint32_t v);
/* The same for a core's store to a register other than CMD_CTRL, without an access:
 * bh_niu_check_cmdbuf_quick (fabric/niu_lane.h). */
/* Around the issue at a CMD_CTRL store: snapshot the transaction id's counters before, compare
 * after (the counters a request moves at its CMD_CTRL, noc.md 3.4). Then the transaction's
 * programmer is forgotten. */
struct bh_niu_trid_snap {
	unsigned id;
	uint32_t outstanding, outgoing;
};
void bh_niu_check_trid_before(struct bh_niu *n, unsigned buf, struct bh_niu_trid_snap *s);
bool bh_niu_check_issued(struct bh_access *a, struct bh_niu *n, unsigned buf, const struct bh_niu_trid_snap *s);

/* For a unicast request issued by core who that moves only REQS_OUTSTANDING_ID(outstanding) by 1
 * at its CMD_CTRL (-1: no counter), before anything moves: true when the checks of that store
 * (noc-busy-reprogram, noc-shared-initiator, noc-trid-overflow) would find nothing; then
 * check_issued_quiet ends the transaction's programming as check_issued does. */
bool bh_niu_check_issue_quiet(const struct bh_tile *t, struct bh_niu *n, unsigned who, unsigned buf, int outstanding);
void bh_niu_check_issued_quiet(struct bh_niu *n, unsigned buf);

/* noc-mcast-order (races.md #27), at a CMD_CTRL store: a multicast whose rectangle is in the
 * other NoC's corner order (on NoC1, start < end in translated coordinates: NoC0 order). */
bool bh_niu_check_mcast_order(struct bh_access *a, struct bh_niu *n, unsigned buf);

#endif
