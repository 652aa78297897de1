/* The host side of fast dispatch (fast-dispatch.md 2, 3, 8): the issue ring and prefetch_q
 * producer, the completion-ring reader, events; host/cq_launch.c lowers programs onto it. */
#ifndef BH_HOST_CQ_H
#define BH_HOST_CQ_H

#include <stdbool.h>
#include <stdint.h>

#include "bhemu/bhemu.h"
#include "cores/cq_model.h"
#include "host/profile.h"

struct bh_device;

/* What the host expects next in the completion ring, in enqueue order. */
struct cq_pending {
	bool is_event;
	uint32_t event;          /* event id */
	uint8_t *dst;            /* read: where the data goes */
	uint32_t len;
};

struct bh_cq {
	struct bh_device *dev;
	struct bh_cq_model m;
	double timeout_s;
	unsigned pf_tile, dp_tile;
	uint8_t *host;           /* host memory (offset 0 = NoC-local m.host_base) */
	uint32_t issue_wr;       /* offset in the issue ring of the next record */
	unsigned q_idx;          /* next prefetch_q slot */
	/* Completion reader: cursor (byte offset in the ring, toggle) and the read pointer last
	 * written back (16-byte units | toggle << 31). */
	uint32_t c_off, c_toggle, c_rd;
	struct cq_pending *pend;
	unsigned pend_cap, pend_head, pend_n;
	uint32_t next_event, last_event;
	uint8_t *launch_wr;      /* per tile: the launch[] slot the next DEV launch uses */
	bool *worker;            /* per tile: may run programs */
	unsigned nworkers;
	uint64_t records, bytes;
	bool failed;             /* sticky: the queue stopped */
	int fail_rc;
	char err[2048];
	uint8_t *rec;            /* record under construction (BH_CQ_CMDDAT_SIZE) */
	uint8_t saved_kcb[2][256];   /* firmware bytes under the models' semaphores, by role */
};

/* Append one fetch record (len a multiple of 16) to the issue ring and hand its size to the
 * prefetcher, waiting for ring space and a free slot. */
int bh_cq_push(struct bh_cq *cq, const uint8_t *rec, uint32_t len);
/* One dispatch command of len bytes (header + payload), wrapped in RELAY_INLINE(_NOFLUSH). */
int bh_cq_push_dispatch(struct bh_cq *cq, const uint8_t *cmd, uint32_t len, bool flush);
/* Largest dispatch command one RELAY_INLINE record carries. */
#define BH_CQ_MAX_INLINE (BH_CQ_CMDDAT_SIZE - 64u)
int bh_cq_fail(struct bh_cq *cq, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The models' configuration for the prefetcher on tile pf and the dispatcher on tile dp, with the
 * firmware profile's kernel-config and mailbox layout and the CQ host memory at NoC-local
 * host_base of the PCIe tile's host window (issue ring at + 0x100, completion ring after it). */
void bh_cq_model_setup(struct bh_cq_model *m, struct bh_device *dev, const struct bh_profile *prof, unsigned pf,
		       unsigned dp, uint32_t host_base, uint32_t issue_size, uint32_t completion_size,
		       unsigned num_dram_banks, unsigned num_l1_banks, uint32_t go_mcast_grid);
/* Hold every core of tile t in reset and wait until they stopped (BH_OK, or BH_ERR_TIMEOUT). */
int bh_cq_hold_tile(struct bh_device *dev, unsigned t);
/* fast-dispatch.md 6, the L1 half: prefetch_q zeroed, read pointers, credits, completion pointers. */
void bh_cq_model_l1_init(struct bh_device *dev, const struct bh_cq_model *m, unsigned pf, unsigned dp);

#endif
