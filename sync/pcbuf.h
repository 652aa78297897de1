/* PCBufs (sync.md section 4): three 16-entry FIFOs per tile from BRISC to TRISC0/1/2, the
 * BRISC-side barrier read, and the TRISC-side view of 0xFFE80000 (pop, Manual TTSync at +4/+8,
 * the Tensix semaphore window at +0x20, served by sync/tensix_sem.c). */
#ifndef BH_SYNC_PCBUF_H
#define BH_SYNC_PCBUF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabric/hw.h"
#include "sync/park.h"

struct bh_access;
struct bh_tile;

#define BH_PCBUF_COUNT 3
#define BH_PCBUF_DEPTH 16
#define BH_PCBUF_BASE 0xFFE80000u      /* PC_BUF_BASE; PCBuf i's BRISC side at + 0x10000 * i */
#define BH_PCBUF_STRIDE 0x10000u
#define BH_PCBUF_OVERRIDE 0xFFB12090u  /* RISCV_DEBUG_REG_TRISC_PC_BUF_OVERRIDE */

/* One FIFO BRISC -> TRISC i. Every field below lock is written and read under lock. */
struct bh_pcbuf {
	pthread_mutex_t lock;
	uint32_t slot[BH_PCBUF_DEPTH];
	unsigned head, count;
	/* TRISC i is parked in a pop of an empty FIFO: the barrier's second condition. Set by the
	 * pop that parks, cleared by the pop that completes and by TRISC i entering reset. */
	bool trisc_waiting;
	struct bh_waitq push_waiters;     /* BRISC, FIFO full */
	struct bh_waitq pop_waiters;      /* TRISC i, FIFO empty */
	struct bh_waitq barrier_waiters;  /* BRISC, barrier read not satisfied */
	struct bh_waitq ttsync_waiters;   /* TRISC i, Manual TTSync (+4/+8) on a busy Tensix thread */
};

struct bh_pcbufs {
	/* TRISC_PC_BUF_OVERRIDE: bit 10i OverrideEn, 10i+1 OverrideBusy, 10i+2..10i+9 OverrideValue.
	 * Written by any requester (seq_cst store, then the waiters are woken); read seq_cst by the
	 * blocking paths after they registered on a waitq (pairs with the store). */
	_Atomic uint32_t override;
	struct bh_pcbuf buf[BH_PCBUF_COUNT];
	/* Tensix thread i (tensix.md 9): instructions pushed and not yet executed (FIFO, expanders,
	 * Wait Gate, units, including everything a MOP expanded into), and MOPs queued before or
	 * inside its MOP expander. Changed seq_cst by the coprocessor (cores/tensix.c), which then
	 * calls bh_pcbuf_tensix_idle_changed(); read seq_cst after a waiter registered. */
	_Atomic uint32_t tensix_busy[BH_PCBUF_COUNT];
	_Atomic uint32_t mop_busy[BH_PCBUF_COUNT];
	/* cb-publish-early (races.md #9): the units (BH_TT_OPEN_*) of thread i that have been given
	 * instructions (pushed, or expanded from a MOP) since TRISC i last saw the thread idle
	 * through TTSync CoprocessorDoneCheck: a store of TRISC i's own is not ordered after them.
	 * Or'ed by the coprocessor (relaxed), cleared by that TTSync and by T_i's reset. */
	_Atomic uint32_t tt_open[BH_PCBUF_COUNT];
};

void bh_pcbuf_init(struct bh_pcbufs *p);
void bh_pcbuf_destroy(struct bh_pcbufs *p);

/* MMIO handlers of the three 64 KiB windows at 0xFFE80000, 0xFFE90000, 0xFFEA0000 (BRISC: push
 * and barrier of PCBuf 0/1/2; TRISC i, 0xFFE80000 only: its own PCBuf, TTSync, semaphores). */
bool bh_pcbuf_read(struct bh_access *a, uint32_t *val);
bool bh_pcbuf_write(struct bh_access *a, uint32_t val);
/* Of PCBuf 0's window only the Tensix semaphores can be watched (their changes are announced;
 * the rest pops or reads live Tensix state); they are named "Tensix semaphore k". */
uint32_t bh_pcbuf_watch(unsigned who, uint32_t addr);
const char *bh_pcbuf_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n);

/* TRISC_PC_BUF_OVERRIDE, served for fabric/tile_ctrl.c. Setting a reserved bit (31:30) faults. */
uint32_t bh_pcbuf_override_read(struct bh_tile *tile);
bool bh_pcbuf_override_write(struct bh_access *a, uint32_t val);

/* SOFT_RESET_0 edge of core k (called by bh_tile_soft_reset_write under tile->lock). TRISC i
 * entering reset abandons its parked pop; leaving reset empties the BRISC -> TRISC i FIFO and
 * wakes a BRISC parked on it being full. Other cores: nothing. */
void bh_pcbuf_reset_edge(struct bh_tile *tile, enum bh_core_kind k, bool entering);

/* Coprocessor state as PCBufs see it: the BRISC barrier's third condition and Manual TTSync
 * (+4, +8) read the counters above. The coprocessor calls bh_pcbuf_tensix_idle_changed() when
 * thread `thread` may have become idle (wakes the barrier and TTSync waiters of that PCBuf). */
bool bh_pcbuf_tensix_thread_idle(struct bh_tile *tile, unsigned thread);  /* no in-flight instruction */
bool bh_pcbuf_mop_expander_idle(struct bh_tile *tile, unsigned thread);   /* no MOP queued or expanding */
void bh_pcbuf_tensix_idle_changed(struct bh_tile *tile, unsigned thread);

#endif
