/* One baby RISC-V core (BRISC, NCRISC or TRISC0..2) of a Tensix tile, run on its own OS thread. */
#ifndef BH_CORES_CORE_H
#define BH_CORES_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabric/code.h"
#include "fabric/fault.h"
#include "fabric/hw.h"
#include "bhemu/bhemu.h"
#include "cores/spin.h"
#include "sync/park.h"

struct bh_core;
struct bh_tile;
struct rv_page;
struct rv_jit;

enum bh_core_state {
	BH_CORE_IN_RESET = 0,  /* held by SOFT_RESET_0; thread sleeps */
	BH_CORE_RUNNING,
	BH_CORE_EXITED,        /* host call exit(status) */
	BH_CORE_FAULTED,
	BH_CORE_LIMIT,         /* instruction limit reached */
};

/* Why rv32_run() returned. */
enum rv_stop {
	RV_STOP_EVENT,     /* events word asked the core to leave the interpreter (reset, shutdown) */
	RV_STOP_EXIT,      /* guest exit host call */
	RV_STOP_FAULT,
	RV_STOP_LIMIT,
	/* Internal to rv32_run(): switch interpreter variant, or park a detected poll loop. */
	RV_STOP_MONITOR,
	RV_STOP_UNMONITOR,
	RV_STOP_PARK,
};

/* Bits of bh_core.events: set by other threads, consumed by the core's own thread. */
enum {
	BH_EV_STOP = 1u << 0,        /* leave the interpreter: reset asserted, restart or shutdown */
	BH_EV_CODE_STALE = 1u << 1,  /* some decoded pages were overwritten: see stale_pages */
	BH_EV_FLUSH_ALL = 1u << 2,   /* I-cache invalidate register: drop every decoded page */
	/* A Tensix instruction this core pushed faulted (cores/tensix.c); set with BH_EV_STOP under
	 * tile->lock while the core runs, turned into the core's fault by bh_tensix_take_fault(). */
	BH_EV_TENSIX_FAULT = 1u << 3,
};
_Static_assert(BH_EV_STOP == BH_WAITER_STOP, "device models read the stop bit through the waiter");

/* Host-call (ecall) handler. Return 0 to continue, 1 when the guest exited (status in *exit_status),
 * -1 to fault (the handler filled core->fault.detail). */
typedef int (*bh_ecall_fn)(struct bh_core *core, void *opaque, int *exit_status);

struct bh_core {
	/* Hot interpreter state first. x[32] is a write sink: decode maps rd = x0 to it so that no
	 * handler needs an x0 special case. Only the core's own thread touches x[], pc, pages. */
	uint32_t x[33];
	uint32_t pc;
	uint64_t instret;
	uint64_t max_instructions;      /* 0 = unlimited */
	uint8_t *l1;                    /* tile L1 */
	uint8_t *ldm;                   /* this core's local data RAM */
	uint32_t ldm_size;
	_Atomic uint8_t *code_pages;    /* tile's per-page mask of cores holding decoded code */
	/* This core's rows of the tile's code map (fabric/code.h; exec NULL without one): the words
	 * and pages it executed since its last I-cache invalidate. */
	struct bh_code_row code_row;
	/* Owner only: the pages this core ever set its code_pages bit on since its last flush (a
	 * superset of those holding its decoded code), so an invalidate visits only them. */
	uint64_t code_seen[(BH_L1_PAGES + 63) / 64];
	/* Owner only: I-cache invalidates so far. A decoded page whose rv_page.armed is behind it
	 * has its slots set back to op_remark when the interpreter next enters it (rv32_page_enter):
	 * an invalidate costs nothing for the pages the core does not run again before the next. */
	uint64_t ic_epoch;
	_Atomic uint32_t events;        /* BH_EV_*, written by any thread (release), read relaxed then acquire */
	/* Decoded instructions per L1 page and interpreter variant (rv32_run.inc), owner only. */
#define RV_VARIANTS 4
	struct rv_page *pages[RV_VARIANTS][BH_L1_PAGES];
	unsigned npages;                /* pages decoded (allocated into pages[][]; owner) */
	_Atomic uint32_t stale_pages[BH_L1_PAGES / 32];
	/* stale-icache (BH_PROVOKE_STALE_ICACHE): pages written since the core decoded them, whose
	 * decoded code it keeps running until its next I-cache invalidate drops them. */
	_Atomic uint32_t icache_kept[BH_L1_PAGES / 32];

	struct bh_tile *tile;
	enum bh_core_kind kind;

	/* CSRs (owner thread only). */
	uint32_t cfg0;
	uint32_t pmacfg[2];
	uint32_t csr_scratch[4];       /* 0x7C3..0x7C6 */
	uint32_t sstatus[8];           /* 0xBC2..0xBC9 */
	uint32_t intp_restore_pc;
	uint64_t cycle_offset;         /* cycle = wall clock + offset (written through the aliases) */
	uint64_t instret_offset;

	struct bh_waiter waiter;        /* parking (sync/park.h) */
	uint32_t block_seq;             /* wake_seq read before the last device access (owner) */
	char wait_what[160];            /* what a blocked access waits for, for reports (owner) */
	struct bh_spin spin;            /* poll-loop detection (owner thread) */
	/* L0_CACHE provocation (races.md #20, riscv-cores.md 4): the L0 data cache, 4 lines of 16 B
	 * in front of L1 (owner thread; see bh_l0_load). l0_model is set at release from reset. */
	bool l0_model;
	struct bh_l0 {
		uint32_t tag[4];        /* line address + 1, 0 = empty */
		uint8_t data[4][16];
		unsigned next;          /* the line the next fill replaces (first in, first out) */
		uint32_t until_flush;   /* loads left before the next random flush */
	} l0;
	/* REORDER provocation (races.md #21): stream-register stores held in the core's store queue
	 * (4 entries, oldest first) while its later loads of other addresses go ahead; applied by
	 * bh_core_sq_drain (owner thread). */
	struct bh_sq_entry {
		uint32_t addr, val, pc;
	} sq[4];
	unsigned sq_n;
	/* ttsync-load (races.md #16), owner thread: a TRISC's last TTSync load (PCBuf +4/+8) with
	 * instret before it (valid), and the load last flagged (instret + 1, 0: none), which the
	 * interpreter may execute again after the block compiler's slow load gave up on it. */
	struct bh_ttsync_load {
		bool valid;
		uint32_t pc, addr;
		uint64_t instret, flagged;
	} ttsync;
	bool monitoring;                /* running the monitor variant of the interpreter */
	bool tt_deferred;               /* it pushed Tensix words it executes itself (bh_tensix_drain; owner) */
	bool load_checks;               /* a check judges loads (BH_CHECKS_LOADS): loads look at their page */
	uint8_t jit_mode;               /* enum rv_jit_mode (cores/rv32_jit.h), owner thread */
	struct rv_jit *jit;             /* block compiler state, created on first compile */
	_Atomic uint64_t jit_regions;   /* statistics (relaxed, written by the owner) */
	_Atomic uint64_t jit_chained;
	_Atomic uint64_t jit_flushes;
	_Atomic uint64_t jit_shared;    /* regions taken from the shared translation cache */

	/* Published pc for the PC-snapshot registers and reports (relaxed; may lag). */
	_Atomic uint32_t pc_snapshot;
	/* instret published with it (relaxed; lags by at most one slice of the interpreter). */
	_Atomic uint64_t instret_snapshot;

	/* Host calls: NULL means ecall is a fault, as for firmware. */
	bh_ecall_fn ecall;
	void *ecall_opaque;

	/* Lifecycle, protected by tile->lock. */
	pthread_t thread;
	struct bh_fiber *fiber;   /* instead of thread, in a tile whose actors are fibers */
	bool thread_started;
	pthread_cond_t cond;           /* the core thread sleeps on it while held or stopped */
	enum bh_core_state state;
	bool held;                     /* mirrors this core's SOFT_RESET_0 bit */
	bool restart;                  /* a release happened; the thread must re-initialise and run */
	bool ever_ran;                 /* left reset at least once (reports skip idle cores) */
	bool start_pc_valid;           /* one-shot start pc for the next release (host API) */
	uint32_t start_pc;
	int exit_status;               /* written by the core thread while running (no lock) */
	/* What put the core in reset last: BH_REQ_HOST (also at power-on), or the kind of the core of
	 * this tile whose SOFT_RESET_0 store did, with that core's pc and instret at the store and the
	 * value stored. Set by bh_tile_soft_reset_write, cleared on leaving reset. */
	unsigned reset_by;
	uint32_t reset_by_pc, reset_value;
	uint64_t reset_by_instret;
	struct bh_fault fault;         /* valid when state == BH_CORE_FAULTED */
	/* Copies taken by the core thread under the lock when it stops: what other threads read. */
	int stopped_exit_status;
	uint64_t stopped_instret;
};

/* Interpreter: run from core->pc until an event, exit, fault or the instruction limit. */
enum rv_stop rv32_run(struct bh_core *core);
/* Drop every decoded page of the core (owner thread, or while the core is stopped). */
void rv32_flush_decoded(struct bh_core *core);
/* The core's I-cache was invalidated (BH_EV_FLUSH_ALL): decoded code is kept, to be marked
 * executed again as it runs (cores/rv32_exec.c). */
void rv32_invalidate_decoded(struct bh_core *core);
void rv32_free_decoded(struct bh_core *core);
/* Drop the decoded copy of one L1 page (owner thread only). */
void rv32_drop_page(struct bh_core *core, unsigned page);
/* The same, because code in the page was overwritten (counted: see rv32_jit.c). */
void rv32_code_overwritten(struct bh_core *core, unsigned page);

/* Lifecycle (cores/core.c). */
/* core: zeroed memory (its page tables stay untouched until the core runs). */
void bh_core_init(struct bh_core *core, struct bh_tile *tile, enum bh_core_kind kind);
int bh_core_thread_start(struct bh_core *core);
void bh_core_destroy(struct bh_core *core);
/* Reset value of pc when the core leaves reset (memory-map.md 4.2). Caller holds tile->lock. */
uint32_t bh_core_reset_pc(const struct bh_core *core);

/* Faults: fill core->fault. Cold; returns false so callers can `return bh_fault_set(...)`. */
#define bh_fault_set(core, ...) bh_fault_fill(&(core)->fault, __VA_ARGS__)

/* CSR access (cores/rv32_csr.c). Return false with core->fault set when the CSR is not accessible. */
bool rv32_csr_read(struct bh_core *core, uint32_t csr, uint32_t *val);
bool rv32_csr_write(struct bh_core *core, uint32_t csr, uint32_t val);

/* Tell the attached observers (sync/hooks.h) about this core, on its own thread; _what with the
 * event's what and addr (struct bh_core_event). */
void bh_core_emit(struct bh_core *c, enum bh_core_event_kind kind);
void bh_core_emit_what(struct bh_core *c, enum bh_core_event_kind kind, const char *what, uint32_t addr);

/* An L1 store (amo: an AMO) hit a page holding decoded code, executed words or a watched word
 * (see fabric/tile.h); writer->pc is the store's. True: a check stops the writer (its fault is
 * set). */
__attribute__((cold, noinline))
bool bh_core_code_written(struct bh_tile *tile, struct bh_core *writer, uint32_t addr, uint32_t len, bool amo);
/* The core's L1 store (amo: an AMO) of size bytes at addr hit a page whose byte is non-zero, c->pc
 * at the store: the code checks, stale code and watchers as above, then the in-flight check
 * (fabric/inflight.h). False: c->fault holds a finding that stops the core. */
bool bh_core_l1_stored(struct bh_core *c, uint32_t addr, unsigned size, bool amo);

/* Slow path of loads/stores: anything that is not naturally aligned L1 or the own LDM fast
 * window. Return enum bh_acc (fabric/mmio.h): OK, FAULT (core->fault filled) or BLOCKED (the
 * device registered the core as a waiter: park with bh_core_block(), then retry). */
int bh_mem_load_slow(struct bh_core *core, uint32_t addr, unsigned size, uint32_t *val);
int bh_mem_store_slow(struct bh_core *core, uint32_t addr, unsigned size, uint32_t val);
/* The core's 4-byte store of val to an NIU window at addr (bh_niu_lane) when its device lanes may
 * be taken (no store queue, no scheduling point, no deferred Tensix words, as bh_mem_store_slow
 * finds first): a CMD_CTRL store issuing an atomic done in one step (bh_niu_core_issue), with what
 * mem_store_device does around it. BH_NIU_LANE_GENERAL: not such a store, nothing done. */
int bh_mem_store_issue(struct bh_core *core, uint32_t addr, uint32_t val);
/* The device store of bh_mem_store_slow, its lanes not taken (the same conditions): for a caller
 * that tried them already (compiled code's CMD_CTRL store). */
int bh_mem_store_device(struct bh_core *core, uint32_t addr, unsigned size, uint32_t val);
/* Sleep after a BLOCKED access. Returns true when the core must leave the interpreter. */
bool bh_core_block(struct bh_core *core);
/* cfg0 (riscv-cores.md 3) bits of the L0 data cache. */
#define BH_CFG0_DIS_LOW_CACHE (1u << 3)           /* DisLowCash: the cache is off */
#define BH_CFG0_DIS_LOW_CACHE_FLUSH (1u << 24)    /* DisLowCachePeriodicFlush: no random flush */
/* The core's L0 data cache is on: cfg0 bit 3 and pmacfg bit 0 clear (crt0 leaves them so; the
 * p100a firmware sets bit 3 at entry). */
static inline bool bh_core_l0_on(const struct bh_core *c)
{
	return !(c->cfg0 & BH_CFG0_DIS_LOW_CACHE) && !((c->pmacfg[0] | c->pmacfg[1]) & 1);
}
/* L0_CACHE (owner thread, c->l0_model): an aligned L1 load of size bytes at addr while the cache is
 * on is answered from its line, filled from L1 on a miss (4 lines, first in first out); unless
 * cfg0 bit 24, a random flush every 1..250 loads (silicon: ~0.8 %). Not coherent: writes by others
 * show only after a flush. The core's own store drops its line (the cache is never dirty); fence,
 * AMOs and cfg0 writes flush it. */
uint32_t bh_l0_load(struct bh_core *c, uint32_t addr, unsigned size);
void bh_l0_store(struct bh_core *c, uint32_t addr);
void bh_l0_flush(struct bh_core *c);

/* Apply the stores held in the core's store queue, oldest first (REORDER; owner thread).
 * BH_ACC_OK, or BH_ACC_FAULT with core->fault filled (a held store the model refused, e.g. a CB
 * protocol fault; the report names the store's pc and that it was held). */
int bh_core_sq_drain(struct bh_core *core);

/* Drop decoded code of the tile's cores selected by mask (bit = enum bh_core_kind): the
 * I-cache invalidate register (cores/tensix_cfg.c). */
void bh_tile_flush_decoded(struct bh_tile *tile, unsigned core_mask);

#endif
