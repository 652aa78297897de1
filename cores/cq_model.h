/* Fast-dispatch cores (fast-dispatch.md): the prefetcher and the dispatcher as native C models,
 * each on its own OS thread, on the BRISC of their tiles. They use the L1 structures and the
 * protocol of the real kernels (prefetch_q, cmddat_q, the dispatch CB, page-credit semaphores
 * moved by NoC atomics, stream 48 completion counts, the completion ring), move every byte
 * between tiles, DRAM and host memory through the NoC model (fabric/noc.c) on the NIUs of their
 * tiles, and wait by parking on the words they poll (sync/watch.h), borrowing the parking
 * identity of their tile's BRISC, which the host holds in reset meanwhile.
 *
 * A malformed command stops both models: the report names the core, the command, its offset in
 * its ring and the field at fault; the host API returns BH_ERR_CQ with it. */
#ifndef BH_CORES_CQ_MODEL_H
#define BH_CORES_CQ_MODEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cores/cq_cmds.h"
#include "fabric/fault.h"
#include "sync/park.h"

struct bh_chip;
struct bh_tile;

/* Fixed layout of the CQ ELFs (fast-dispatch.md 2-3). */
#define BH_CQ_PAGE               4096u
#define BH_CQ_PCIE_ALIGN         64u
#define BH_CQ_L1_ALIGN           16u
#define BH_CQ_HOST_ISSUE_RD      0x00u      /* host-memory offsets */
#define BH_CQ_HOST_ISSUE_WR      0x40u
#define BH_CQ_HOST_COMPLETION_WR 0x80u
#define BH_CQ_HOST_COMPLETION_RD 0xC0u
#define BH_CQ_HOST_ISSUE_BASE    0x100u
#define BH_CQ_PREFETCH_Q_RD_PTR  0x196C0u   /* prefetch-core L1 */
#define BH_CQ_PCIE_RD_PTR        0x196C4u
#define BH_CQ_COMPLETION_WR_PTR  0x196D0u   /* dispatch-core L1 */
#define BH_CQ_COMPLETION_RD_PTR  0x196E0u
#define BH_CQ_DISPATCH_S_SYNC    0x19710u
#define BH_CQ_DISPATCH_SCRATCH   0x19840u   /* dispatcher: go word, timestamps (prefetch_q is the prefetcher's) */
#define BH_CQ_PREFETCH_Q         0x19840u
#define BH_CQ_PREFETCH_Q_ENTRIES 1534u
#define BH_CQ_CMDDAT_Q           0x1A440u
#define BH_CQ_CMDDAT_SIZE        (256u * 1024u)
#define BH_CQ_SCRATCH_DB         0x5A440u
#define BH_CQ_SCRATCH_SIZE       (128u * 1024u)
#define BH_CQ_DISPATCH_CB        0x1A000u
#define BH_CQ_DISPATCH_CB_PAGES  128u
#define BH_CQ_DISPATCH_CB_BLOCKS 4u
#define BH_CQ_DISPATCH_CB_SIZE   (BH_CQ_DISPATCH_CB_PAGES * BH_CQ_PAGE)
#define BH_CQ_DISPATCH_S_END     (0x9A000u + 32u * 1024u)   /* dispatch_s buffer end: the dispatcher's state */
#define BH_CQ_STREAM_FIRST       48u        /* FIRST_STREAM_USED */
/* Semaphore ids (fast-dispatch.md 5); address = sem_base + 16 * id on either core. */
enum { BH_CQ_SEM_DOWNSTREAM_CB = 0, BH_CQ_SEM_DISPATCH_S_CB = 1, BH_CQ_SEM_DOWNSTREAM_SYNC = 2 };
enum { BH_CQ_SEM_DISPATCH_CB = 0 };
/* Pages of flushed relay units the dispatcher checks commands against (>= CB pages). */
#define BH_CQ_UNIT_RING 256u

enum bh_cq_role { BH_CQ_PREFETCH = 0, BH_CQ_DISPATCH = 1 };

struct bh_cq_model {
	/* Configuration, set before bh_cq_model_start() and then read-only. */
	struct bh_chip *chip;
	struct bh_tile *tile[2];           /* by enum bh_cq_role */
	uint32_t issue_base, issue_size;   /* NoC-local (bit 60 not included) */
	uint32_t completion_base, completion_size;
	uint32_t host_base;                /* NoC-local address of host-memory offset 0 */
	uint32_t sem_base;                 /* kernel_config_base + sem_offset (16) */
	uint32_t go_addr;                  /* go_messages[0] on workers */
	uint32_t go_mcast_grid;            /* WORKER_MCAST_GRID (bh_cq_config), 0 = none */
	uint32_t go_count;                 /* go_messages[] entries on workers */
	unsigned num_dram_banks, num_l1_banks;   /* what RELAY_PAGED / WRITE_PAGED interleave over */

	pthread_t thread[2];
	bool started[2];
	/* Each model parks on its own waiter, &chip->cq_waiter[role] (fabric/chip.h), and watches its
	 * tile's words in slot BH_WATCH_SLOT_CQ(role) (sync/watch.h). */
	_Atomic uint32_t stop;             /* set by the host or by a failing model */
	_Atomic uint32_t exited;           /* bit per role */

	/* The host sleeps on host_seq (futex) while it waits for the models: bumped after a
	 * prefetch_q slot was freed, a completion was pushed, a failure or an exit. */
	_Atomic uint32_t host_seq;
	_Atomic uint32_t host_waiting;

	/* Exact ends (free-running dispatch-CB byte offsets, before the round-up to a page) of the
	 * relay units the prefetcher flushed, so the dispatcher can tell, to the byte, a command
	 * that runs past what was relayed for it. Written by the prefetcher (release on head), read
	 * by the dispatcher. */
	_Atomic uint64_t unit_end[BH_CQ_UNIT_RING];
	_Atomic uint32_t unit_head;

	_Atomic uint64_t commands[2];      /* commands executed, by role */
	_Atomic uint64_t cmd_count[2][32]; /* by role and id */

	/* The command each model executes, for its wait descriptions: written and read by that
	 * model's own thread only. */
	struct bh_cqm_at {
		const char *cmd, *ring;
		uint64_t off;
	} at[2];

	pthread_mutex_t lock;              /* the fields below */
	bool failed;
	char error[1024];
	char waiting[2][256];              /* what each model waits for now ("" = running) */
	/* What each model is parked on when it waits for the other one (kind BH_CQW_NONE: for
	 * something else, or running): L1 word addr of its own tile reaching target (wrap_ge). */
	struct bh_cqm_block {
		int kind;                  /* enum bh_cqm_wait_kind */
		uint32_t addr, target;
		uint32_t unit_head;        /* BH_CQW_DATA: unit_head when the dispatcher last looked */
	} blocked[2];
};

/* Waits of one model that only the other model can end (model-to-model deadlock detection). */
enum bh_cqm_wait_kind {
	BH_CQW_NONE = 0,
	BH_CQW_CREDITS,   /* prefetcher: dispatch-CB pages the dispatcher returns */
	BH_CQW_STALL,     /* prefetcher: STALL, for a WAIT with NOTIFY_PREFETCH */
	BH_CQW_DATA,      /* dispatcher: dispatch-CB bytes the prefetcher relays */
};

/* Start both threads; the host has written the L1 and host-memory state of fast-dispatch.md 6. */
int bh_cq_model_start(struct bh_cq_model *m);
/* Ask both to stop (they leave any wait) and join them. */
void bh_cq_model_stop(struct bh_cq_model *m);
/* Copy of the failure report, "" if none. */
bool bh_cq_model_error(struct bh_cq_model *m, char *buf, size_t n);
/* "prefetch: waits for ...; dispatch: waits for ..." */
void bh_cq_model_describe(struct bh_cq_model *m, char *buf, size_t n);

/* ---- For the two models (cores/cq_model.c) ----------------------------------------------------- */

/* Stop with a report: "<role>: <CMD> at <ring> offset 0x..: field <f> = 0x..: why". field may be
 * BH_CQF_COUNT (no particular field) and cmd NULL. Returns false. */
__attribute__((format(printf, 7, 8)))
bool bh_cqm_fail(struct bh_cq_model *m, enum bh_cq_role r, const char *cmd, const char *ring, uint64_t off,
		 int field, const char *fmt, ...);
bool bh_cqm_stopping(struct bh_cq_model *m);
void bh_cqm_host_wake(struct bh_cq_model *m);
/* The command the role executes from now on (its waits name it). */
static inline void bh_cqm_at(struct bh_cq_model *m, enum bh_cq_role r, const char *cmd, const char *ring,
			     uint64_t off)
{
	m->at[r] = (struct bh_cqm_at){ cmd, ring, off };
}
/* Park the role's thread on words (L1 or register addresses of its own tile) until ready(arg)
 * holds. block (may be NULL): the wait is one only the other model can end; when the other
 * model is parked on such a wait for this one, the two are deadlocked and both stop with a
 * report naming each command and what it waits for. False when the model must stop. */
bool bh_cqm_wait(struct bh_cq_model *m, enum bh_cq_role r, const uint32_t *addr, unsigned n,
		 bool (*ready)(void *), void *arg, const char *what, const struct bh_cqm_block *block);
/* A count to wait for: the counter register (sync/watch.h, bh_watch_until) of `bits` bits reaching
 * target, compared with wrap-around. */
struct bh_cqm_until {
	uint32_t target;
	unsigned bits;
};
/* bh_cqm_wait on the counter register addr for until's count: only a write that leaves the count
 * reached wakes the model (not every increment on the way), other writes of the register still do. */
bool bh_cqm_wait_count(struct bh_cq_model *m, enum bh_cq_role r, uint32_t addr, const struct bh_cqm_until *until,
		       bool (*ready)(void *), void *arg, const char *what);
/* Writes of dispatch commands: false when (hi, mid, lo, len) on `noc` from the dispatch tile
 * reaches a CQ core's own code or state (L1 below the end of its rings, SOFT_RESET_0); why
 * then names the tile and the region. */
bool bh_cqm_dest_allowed(struct bh_cq_model *m, unsigned noc, uint32_t hi, uint32_t mid, uint32_t lo, uint64_t len,
			 bool mcast, char *why, size_t n);
/* Sleep ns (DELAY), cut short by a stop. */
void bh_cqm_sleep(struct bh_cq_model *m, enum bh_cq_role r, uint64_t ns);
/* Provocation (sync/provoke.h): when `kind` is on, sleep as above for a random 0..max_ns drawn
 * from the role's own stream (a late start-up, a slow fetch; races.md 4, 28). */
void bh_cqm_provoke(struct bh_cq_model *m, enum bh_cq_role r, uint32_t kind, uint64_t max_ns);

/* NoC requests from the role's tile on `noc`, through the NIU initiators and fabric/noc.c. hi is
 * the coordinate register (unicast (y << 6) | x, or a multicast rectangle when mcast); mid the
 * upper address bits (bit 28: PCIe). Longer than 16 KiB: several requests. False: *f says why. */
bool bh_cqm_noc_write(struct bh_cq_model *m, enum bh_cq_role r, unsigned noc, uint32_t src, uint32_t hi,
		      uint32_t mid, uint32_t lo, uint32_t len, bool mcast, struct bh_fault *f);
bool bh_cqm_noc_read(struct bh_cq_model *m, enum bh_cq_role r, unsigned noc, uint32_t hi, uint32_t mid, uint32_t lo,
		     uint32_t dst, uint32_t len, struct bh_fault *f);
bool bh_cqm_noc_inc(struct bh_cq_model *m, enum bh_cq_role r, unsigned noc, uint32_t hi, uint32_t lo, uint32_t inc,
		    struct bh_fault *f);
/* (y << 6) | x of the role's tile, of the other role's, of the PCIe endpoint; of bank b. */
uint32_t bh_cqm_xy(struct bh_cq_model *m, enum bh_cq_role r);
uint32_t bh_cqm_pcie_xy(void);
/* NoC address of page `page` of an interleaved buffer (noc.md 10): *hi, *lo. False: no banks. */
bool bh_cqm_bank_page(struct bh_cq_model *m, unsigned noc, bool dram, uint32_t base, uint32_t page_size,
		      uint32_t page, uint32_t *hi, uint32_t *lo);

/* Relaxed L1 word access on the role's own tile, with the wake-up check of a store. */
uint32_t bh_cqm_l1_ld(struct bh_cq_model *m, enum bh_cq_role r, uint32_t addr);
void bh_cqm_l1_st(struct bh_cq_model *m, enum bh_cq_role r, uint32_t addr, uint32_t v);

static inline bool bh_cq_wrap_ge(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) >= 0;
}

/* The two main loops (cores/cq_prefetch.c, cores/cq_dispatch.c). */
void bh_cq_prefetch_run(struct bh_cq_model *m);
void bh_cq_dispatch_run(struct bh_cq_model *m);

#endif
