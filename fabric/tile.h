/* The devices of a Tensix tile: 1.5 MiB L1 shared by five baby RISC-V cores, their local RAMs,
 * and the state behind the tile's register windows (memory-map.md). The cores and the Tensix
 * coprocessor sit above this layer: the tile assembly (tile/tile.h) builds them around this
 * struct and fills the links to them (core, tensix, waiter, regions) before anything runs.
 * Device models here and in sync/ never look inside those; they wake a core through its
 * waiter. */
#ifndef BH_FABRIC_TILE_H
#define BH_FABRIC_TILE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/hw.h"
#include "fabric/inflight.h"
#include "fabric/niu.h"
#include "sync/mailbox.h"
#include "sync/pcbuf.h"
#include "sync/tensix_sem.h"
#include "sync/watch.h"

struct bh_chip;
struct bh_code_map;
struct bh_core;
struct bh_fault;
struct bh_fiber_group;
struct bh_l1_writer;
struct bh_noc_txn;
struct bh_region;
struct bh_streams;
struct bh_tensix;

/* Where a firmware profile keeps the launch messages, registered by the host when it boots the
 * tile (host/boot.c), for launch-slot-busy (races.md 7). Slot k is [base + k * size, + size);
 * BRISC owns it while its u32 at `enables` is non-zero and either its byte at `mode` is 0
 * (dispatch mode DEV: BRISC clears enables when done) or the go signal (byte 3 of go message
 * go_index's word) is GO (0x80; mode HOST: enables stay, the signal returns to DONE). */
struct bh_launch_guard {
	uint32_t base, size, count;
	uint32_t enables, mode;          /* offsets in a slot */
	uint32_t go_base, go_index;      /* go_messages[] and go_message_index */
};

struct bh_tile {
	struct bh_chip *chip;    /* topology, other tiles, DRAM and host memory (fabric/chip.h) */
	unsigned index;          /* position in the device's tile array: row-major logical position */
	unsigned x, y;           /* translated NoC coordinates (both NoCs; what firmware and reports use) */
	unsigned lx, ly;         /* logical column and row in the worker grid */

	/* L1: every guest access is a relaxed atomic of its width (no C data race between cores). */
	uint8_t *l1;
	/* Per 4 KiB L1 page: bit k set while core k holds decoded instructions of that page, bit 5
	 * (BH_PAGE_WATCHED) while a parked core watches a word in it, bit 6 (BH_PAGE_INFLIGHT) while
	 * a NoC transaction in flight reads or lands in it, bit 7 (BH_PAGE_EXECUTED, fabric/code.h)
	 * while a core executed words in it since its last I-cache invalidate (code-written on). A store pays one
	 * relaxed load of this byte; non-zero sends it to the slow path (cores/core.c,
	 * bh_core_l1_stored). The bytes
	 * live right after L1 in the same allocation (l1 + BH_L1_SIZE), so the interpreter reaches
	 * them from the same base register as L1. */
	_Atomic uint8_t *code_pages;
	/* Bit 7 of code_pages is shared by two opt-in checks: BH_PAGE_EXECUTED (fabric/code.h; set and
	 * cleared as words are executed and invalidated) and BH_PAGE_CB (sync/streams.h; set for good
	 * on the pages of CB FIFOs). Pages with a CB FIFO are also marked here, so that clearing
	 * executed words never drops their bit. */
	_Atomic uint32_t cb_page_mark[(BH_L1_PAGES + 31) / 32];

	uint8_t *ldm[BH_CORES_PER_TILE];   /* local data RAMs, also reachable through the slow windows */
	/* ldm-zeroing: wall-clock tick at which each core was last released from reset with its
	 * local RAM to be zeroed (0: never, the window is over, or DISABLE_RESET kept it), and
	 * whether its thread has zeroed it since (the zeroing runs there, when the core starts). */
	_Atomic uint64_t ldm_zeroing_from[BH_CORES_PER_TILE];
	_Atomic bool ldm_zeroed[BH_CORES_PER_TILE];
	/* What the cores executed since their last I-cache invalidate (fabric/code.h); NULL unless
	 * code-written or atomic-into-code is on. */
	struct bh_code_map *code;
	/* The launch slots launch-slot-busy guards (size 0: none); set by the host at boot, while
	 * every core is held. */
	struct bh_launch_guard launch_guard;

	/* Set by the tile assembly (tile/tile.c) before any thread runs, constant afterwards. */
	struct bh_core *core[BH_CORES_PER_TILE];     /* opaque below cores/ */
	struct bh_tensix *tensix;                    /* opaque below cores/ */
	struct bh_waiter *waiter[BH_CORES_PER_TILE]; /* where core kind k parks (wakes, waitqs) */
	const struct bh_region *regions;             /* the tile's address decode (fabric/mmio.h) */
	unsigned nregions;
	const uint8_t *region_index;                 /* its page index (bh_mmio_index_build), or NULL */
	/* BH_REQ_BIT of the cores whose aligned 4-byte loads (niu_lane[0]) and stores (niu_lane[1])
	 * of both NIU windows the region table gives straight to the NIU (bh_niu_lane_init). */
	uint8_t niu_lane[2];

	/* Lifecycle and tile-control state below is protected by lock. */
	pthread_mutex_t lock;
	_Atomic uint32_t soft_reset;       /* SOFT_RESET_0; written under lock, read relaxed */
	uint32_t trisc_reset_pc[3];
	uint32_t trisc_reset_pc_override;
	uint32_t ncrisc_reset_pc;
	uint32_t ncrisc_reset_pc_override;
	uint32_t disable_reset;
	_Atomic uint32_t clk_gate_en;      /* TDMA-RISC CLK_GATE_EN */
	_Atomic uint32_t ctrl_cells[0x1000 / 4];  /* plain storage of tile control registers */

	bool shutdown;                     /* device closing: core threads exit (under lock) */
	/* The host thread the tile's cores and executors share as fibers (bh_chip.tile_fibers),
	 * else NULL: each has its own. Set at creation. */
	struct bh_fiber_group *fibers;

	struct bh_watch_set watch;         /* words parked cores wait on (sync/watch.h) */

	_Atomic uint32_t wall_clock_hi_latched;  /* WALL_CLOCK_1_AT, latched by reads of WALL_CLOCK_0 */

	/* Tensix backend configuration: two config states (banks); MMIO reaches bank 0 (index k at
	 * 0xFFEF0000 + 4k), Tensix instructions the bank of their thread's CFG_STATE_ID. Global
	 * words (k >= BH_CFG_GLOBAL_BASE) live in bank 0 only: reach them through
	 * bh_tensix_cfg_cell(). Relaxed. */
	_Atomic uint32_t tensix_cfg[2][BH_CFG_WORDS];

	struct bh_streams *streams;        /* NoC overlay stream registers (sync/streams.c) */

	struct bh_pcbufs pcbuf;            /* PCBufs BRISC -> TRISC0..2, override register (sync/pcbuf.c) */
	struct bh_sems sem;                /* Tensix semaphores (sync/tensix_sem.c) */
	struct bh_mailboxes mbox;          /* RISC-V mailboxes (sync/mailbox.c) */

	struct bh_niu niu[2];              /* NoC0 and NoC1 interface units (fabric/niu.c) */
	struct bh_inflight_set inflight;   /* L1 ranges of NoC transactions in flight (fabric/inflight.h) */
};

void bh_tile_guard_launch_slots(struct bh_tile *tile, const struct bh_launch_guard *g);
/* Before a write from outside the tile (host, NoC; w) into [addr, addr + len) of L1: a finding
 * of launch-slot-busy when it overlaps a slot BRISC owns. True in stop mode for a NoC write of a
 * core (*f filled: the write is refused and the initiator stops); the host's and the fast-dispatch
 * models' findings are logged against BRISC. */
bool bh_tile_launch_guard_check(struct bh_tile *tile, uint32_t addr, uint32_t len, const struct bh_l1_writer *w,
				struct bh_fault *f);
/* The same for cb-ownership (races.md #9, #19): a NoC write landing in a CB page the consumer holds
 * (published, not popped) — a read into a page pushed before its barrier, or a write into pages
 * the producer did not reserve. Judged on every page it covers. */
bool bh_tile_cb_guard_check(struct bh_tile *tile, uint32_t addr, uint32_t len, const struct bh_l1_writer *w,
			    struct bh_fault *f);
/* cb-ownership at a core's issue of NoC write x (its CMD_CTRL store, access a): its source in the
 * tile's L1 reads a CB slot holding no published page, by a core not the CB's producer (a writer
 * kernel's noc_async_write before cb_wait_front, bh_stream_cb_read_check). False with a->fault
 * filled in stop mode (the issue is refused, the core stops); true otherwise. */
bool bh_tile_cb_source_check(struct bh_access *a, const struct bh_noc_txn *x);

/* The devices of tile `index` of chip (chip->topo must be built) in zeroed memory (tile/tile.c
 * allocates it so): coordinates come from the topology. The links to cores and coprocessor stay
 * NULL (tile/tile.c fills them). */
int bh_tile_init(struct bh_tile *tile, struct bh_chip *chip, unsigned index);
void bh_tile_destroy(struct bh_tile *tile);

/* Host and NoC writes into L1 pages holding decoded code call chip->code_written once per page
 * (fabric/chip.h), with the part of the write in that page: the cores drop their stale decoded
 * code. Watchers of the pages are woken after every page of a write has had its code dropped, so
 * a core woken by a write never runs code the same write replaced. */
/* Host-side (loader, tests, later NoC) access to L1. Bounds are checked by the caller. */
void bh_tile_l1_write(struct bh_tile *tile, uint32_t addr, const void *src, uint32_t len);
void bh_tile_l1_read(struct bh_tile *tile, uint32_t addr, void *dst, uint32_t len);
/* Someone outside the tile's cores (NoC) has written [addr, addr + len) of L1 with relaxed
 * atomics: take the page check of bh_tile_l1_write (decoded code, watched words). */
void bh_tile_l1_written(struct bh_tile *tile, uint32_t addr, uint32_t len);
/* The same, naming the writer for the code checks (fabric/code.h); bh_tile_l1_write and
 * bh_tile_l1_written name the host. */
void bh_tile_l1_written_by(struct bh_tile *tile, uint32_t addr, uint32_t len, const struct bh_l1_writer *w);
void bh_tile_ldm_write(struct bh_tile *tile, enum bh_core_kind k, uint32_t off, const void *src, uint32_t len);
void bh_tile_ldm_read(struct bh_tile *tile, enum bh_core_kind k, uint32_t off, void *dst, uint32_t len);

/* The local data RAM windows (fabric/tile.c); their state is the tile itself. */
struct bh_access;
bool bh_ldm_fast_read(struct bh_access *a, uint32_t *val);
bool bh_ldm_fast_write(struct bh_access *a, uint32_t val);
bool bh_ldm_slow_read(struct bh_access *a, uint32_t *val);
bool bh_ldm_slow_write(struct bh_access *a, uint32_t val);
uint32_t bh_ldm_watch(unsigned who, uint32_t addr);
const char *bh_ldm_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n);

/* bh_tile_mmio_written (sync/watch.h) without the call while no core of the tile watches a
 * register: its own first test, the NoC's counter moves and NIU register stores take it. */
static inline void bh_tile_mmio_announce(struct bh_tile *t, uint32_t addr)
{
	if (atomic_load_explicit(&t->watch.reg_watches, memory_order_relaxed))
		bh_tile_mmio_written(t, addr);
}

/* Relaxed atomic guest accesses (the memory model of DESIGN.md). `p` must be naturally aligned. */
static inline uint32_t bh_mem_ld(const uint8_t *p, unsigned size)
{
	switch (size) {
	case 1: return __atomic_load_n(p, __ATOMIC_RELAXED);
	case 2: return __atomic_load_n((const uint16_t *)p, __ATOMIC_RELAXED);
	default: return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
	}
}

static inline void bh_mem_st(uint8_t *p, unsigned size, uint32_t v)
{
	switch (size) {
	case 1: __atomic_store_n(p, (uint8_t)v, __ATOMIC_RELAXED); break;
	case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELAXED); break;
	default: __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELAXED); break;
	}
}

#endif
