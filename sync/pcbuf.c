/* PCBufs (sync.md section 4, tt-isa-documentation PCBufs.md and ManualTTSync.md).
 *
 * Blocking follows sync/park.h: a handler that must wait registers the requester on a waitq,
 * re-checks, and returns bh_access_block(); the core parks and re-executes the access when
 * woken. FIFO state is under the PCBuf's mutex; a waker changes it under the mutex and wakes
 * after unlocking (the waiter's registration happened under the same mutex, so it is seen).
 * The override register and the coprocessor predicates are lock-free: their waiters register
 * first and re-read them with seq_cst, pairing with the seq_cst store / waitq load of the
 * writer. Silicon buffers excess pushes in BRISC's memory subsystem before stalling it; the
 * model stalls BRISC at the 17th word. */
#include <stdio.h>
#include <string.h>

#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/pcbuf.h"
#include "sync/tensix_sem.h"

/* TRISC view of PC_BUF_BASE: word offsets of the window. */
enum {
	TT_POP = 0x00,              /* pop of the TRISC's own PCBuf; writes discarded */
	TT_COPROC_DONE = 0x04,      /* Manual TTSync CoprocessorDoneCheck */
	TT_MOP_DONE = 0x08,         /* Manual TTSync MOPExpanderDoneCheck */
	TT_SEM_BASE = 0x20,         /* Tensix semaphore k at 0x20 + 4k */
	TT_SEM_END = TT_SEM_BASE + 4 * BH_SEM_COUNT,
};

uint32_t bh_pcbuf_watch(unsigned who, uint32_t addr)
{
	uint32_t off = addr - BH_PCBUF_BASE;
	return off - TT_SEM_BASE < TT_SEM_END - TT_SEM_BASE ? addr : BH_WATCH_NONE;
}

const char *bh_pcbuf_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n)
{
	uint32_t off = addr - BH_PCBUF_BASE;
	if (off - TT_SEM_BASE < TT_SEM_END - TT_SEM_BASE)
		snprintf(buf, n, "Tensix semaphore %u", (off - TT_SEM_BASE) / 4);
	else
		snprintf(buf, n, "PCBuf 0 / TTSync 0x%08x", addr);
	return buf;
}

static bool ov_en(uint32_t ov, unsigned i) { return ov >> (10 * i) & 1; }
static bool ov_busy(uint32_t ov, unsigned i) { return ov >> (10 * i + 1) & 1; }
static uint32_t ov_value(uint32_t ov, unsigned i) { return ov >> (10 * i + 2) & 0xff; }

static uint32_t override_load(struct bh_tile *t)
{
	/* seq_cst: pairs with the store in bh_pcbuf_override_write (see the file comment). */
	return atomic_load_explicit(&t->pcbuf.override, memory_order_seq_cst);
}

void bh_pcbuf_init(struct bh_pcbufs *p)
{
	memset(p, 0, sizeof *p);
	for (unsigned i = 0; i < BH_PCBUF_COUNT; i++)
		pthread_mutex_init(&p->buf[i].lock, NULL);
}

void bh_pcbuf_destroy(struct bh_pcbufs *p)
{
	for (unsigned i = 0; i < BH_PCBUF_COUNT; i++)
		pthread_mutex_destroy(&p->buf[i].lock);
}

/* ---------------------------------------------------------------------------------------------
 * Coprocessor state (counters kept by cores/tensix.c).
 */

bool bh_pcbuf_tensix_thread_idle(struct bh_tile *t, unsigned thread)
{
	/* seq_cst: pairs with the coprocessor's seq_cst updates (see struct bh_pcbufs). */
	return atomic_load_explicit(&t->pcbuf.tensix_busy[thread], memory_order_seq_cst) == 0;
}

bool bh_pcbuf_mop_expander_idle(struct bh_tile *t, unsigned thread)
{
	return atomic_load_explicit(&t->pcbuf.mop_busy[thread], memory_order_seq_cst) == 0;
}

void bh_pcbuf_tensix_idle_changed(struct bh_tile *t, unsigned thread)
{
	bh_waitq_wake(t, &t->pcbuf.buf[thread].barrier_waiters);
	bh_waitq_wake(t, &t->pcbuf.buf[thread].ttsync_waiters);
}

/* ---------------------------------------------------------------------------------------------
 * BRISC side: push and barrier.
 */

static bool pcbuf_push(struct bh_access *a, unsigned i, uint32_t v)
{
	struct bh_tile *t = a->tile;
	struct bh_pcbuf *pb = &((struct bh_pcbufs *)a->dev)->buf[i];
	pthread_mutex_lock(&pb->lock);
	if (pb->count == BH_PCBUF_DEPTH) {
		bh_waitq_add(&pb->push_waiters, a->who);
		pthread_mutex_unlock(&pb->lock);
		return bh_access_block(a, "PCBuf %u push (brisc): FIFO full (%u entries)", i, BH_PCBUF_DEPTH);
	}
	pb->slot[(pb->head + pb->count) % BH_PCBUF_DEPTH] = v;
	pb->count++;
	pthread_mutex_unlock(&pb->lock);
	bh_waitq_wake(t, &pb->pop_waiters);
	return true;
}

/* The three conditions of the barrier, or the override. Caller holds pb->lock. */
static bool barrier_done(struct bh_tile *t, const struct bh_pcbuf *pb, unsigned i)
{
	uint32_t ov = override_load(t);
	if (ov_en(ov, i) && ov_busy(ov, i))
		return true;
	return pb->count == 0 && pb->trisc_waiting && bh_pcbuf_tensix_thread_idle(t, i);
}

static bool pcbuf_barrier(struct bh_access *a, unsigned i, uint32_t *val)
{
	struct bh_tile *t = a->tile;
	struct bh_pcbuf *pb = &((struct bh_pcbufs *)a->dev)->buf[i];
	pthread_mutex_lock(&pb->lock);
	bool done = barrier_done(t, pb, i);
	if (!done) {
		bh_waitq_add(&pb->barrier_waiters, a->who);
		done = barrier_done(t, pb, i);   /* the lock-free parts may have changed meanwhile */
	}
	unsigned count = pb->count;
	bool waiting = pb->trisc_waiting, idle = bh_pcbuf_tensix_thread_idle(t, i);
	pthread_mutex_unlock(&pb->lock);
	if (done) {
		*val = 0;
		return true;
	}
	/* Name the conditions that do not hold (at least one, or done would be true). */
	char why[96] = "";
	int n = 0;
	if (count)
		n += snprintf(why + n, sizeof why - (size_t)n, ", FIFO holds %u", count);
	if (!waiting)
		n += snprintf(why + n, sizeof why - (size_t)n, ", trisc%u not waiting", i);
	if (!idle)
		n += snprintf(why + n, sizeof why - (size_t)n, ", Tensix thread %u busy", i);
	return bh_access_block(a, "PCBuf %u barrier (brisc): %s", i, n ? why + 2 : "Tensix thread state changed");
}

/* ---------------------------------------------------------------------------------------------
 * TRISC side: pop, Manual TTSync.
 */

/* The core is leaving the interpreter (reset entered, restart, shutdown): not waiting. */
static bool core_stopping(struct bh_tile *t, unsigned kind)
{
	/* Relaxed: read under pb->lock. bh_tile_soft_reset_write sets BH_EV_STOP before
	 * bh_pcbuf_reset_edge takes that lock, and only the core's own thread clears it, after this
	 * access returned: either we see the bit or the hook clears trisc_waiting after us. */
	return bh_waiter_stopping(t->waiter[kind]);
}

static bool pcbuf_pop(struct bh_access *a, unsigned i, uint32_t *val)
{
	struct bh_tile *t = a->tile;
	struct bh_pcbuf *pb = &((struct bh_pcbufs *)a->dev)->buf[i];
	pthread_mutex_lock(&pb->lock);
	if (pb->count) {
		*val = pb->slot[pb->head];
		pb->head = (pb->head + 1) % BH_PCBUF_DEPTH;
		pb->count--;
		pb->trisc_waiting = false;
		bool drained = pb->count == 0;
		pthread_mutex_unlock(&pb->lock);
		bh_waitq_wake(t, &pb->push_waiters);
		/* Not a barrier condition yet (trisc_waiting is clear), but a BRISC in the barrier
		 * re-evaluates, so that its wait text no longer counts the drained words. */
		if (drained)
			bh_waitq_wake(t, &pb->barrier_waiters);
		return true;
	}
	/* Empty: with OverrideEn the pop returns OverrideValue instead of waiting. */
	uint32_t ov = override_load(t);
	if (!ov_en(ov, i)) {
		bh_waitq_add(&pb->pop_waiters, a->who);
		ov = override_load(t);
	}
	if (ov_en(ov, i)) {
		pb->trisc_waiting = false;
		pthread_mutex_unlock(&pb->lock);
		*val = ov_value(ov, i);
		return true;
	}
	bool now_waiting = !pb->trisc_waiting && !core_stopping(t, a->who);
	if (now_waiting)
		pb->trisc_waiting = true;
	pthread_mutex_unlock(&pb->lock);
	if (now_waiting)
		bh_waitq_wake(t, &pb->barrier_waiters);
	return bh_access_block(a, "PCBuf %u pop (trisc%u): FIFO empty", i, i);
}

/* CoprocessorDoneCheck / MOPExpanderDoneCheck: wait until the thread is idle (or
 * OverrideEn && OverrideBusy). Silicon returns an undefined value; the model returns 0. */
static bool ttsync_idle(struct bh_tile *t, unsigned i, bool mop)
{
	uint32_t ov = override_load(t);
	if (ov_en(ov, i) && ov_busy(ov, i))
		return true;
	return mop ? bh_pcbuf_mop_expander_idle(t, i) : bh_pcbuf_tensix_thread_idle(t, i);
}

static bool ttsync_wait(struct bh_access *a, unsigned i, bool mop, uint32_t *val)
{
	struct bh_tile *t = a->tile;
	if (!ttsync_idle(t, i, mop)) {
		bh_waitq_add(&((struct bh_pcbufs *)a->dev)->buf[i].ttsync_waiters, a->who);
		if (!ttsync_idle(t, i, mop))
			return bh_access_block(a, mop ? "TTSync MOPExpanderDoneCheck (trisc%u): MOP expander %u busy"
						      : "TTSync CoprocessorDoneCheck (trisc%u): Tensix thread %u busy",
					       i, i);
	}
	/* Everything the thread was given is done: TRISC i's next stores come after it (not when
	 * the override answered for a busy thread). */
	if (!mop && bh_pcbuf_tensix_thread_idle(t, i))
		atomic_store_explicit(&t->pcbuf.tt_open[i], 0, memory_order_relaxed);
	*val = 0;
	return true;
}

static bool trisc_window_fault(struct bh_access *a, unsigned i)
{
	char region[64];
	if (a->off < TT_SEM_BASE) {
		snprintf(region, sizeof region, "PCBuf %u Manual TTSync (trisc%u)", i, i);
		return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, region,
				     "PC_BUF_BASE + 0x%02x: of the words before the semaphores only +0x0 (pop), +0x4 "
				     "(CoprocessorDoneCheck) and +0x8 (MOPExpanderDoneCheck) are modelled, not +0xC..+0x1C",
				     a->off);
	}
	return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, "Tensix semaphores",
			     "PC_BUF_BASE + 0x%x is past the eight Tensix semaphores (+0x20..+0x3C); what silicon does "
			     "there is unverified and not modelled",
			     a->off);
}

static bool pcbuf_trisc_read(struct bh_access *a, unsigned i, uint32_t *val)
{
	switch (a->off) {
	case TT_POP: return pcbuf_pop(a, i, val);
	case TT_COPROC_DONE: return ttsync_wait(a, i, false, val);
	case TT_MOP_DONE: return ttsync_wait(a, i, true, val);
	default: break;
	}
	if (a->off >= TT_SEM_BASE && a->off < TT_SEM_END)
		return bh_sem_mmio_read(a, (a->off - TT_SEM_BASE) / 4, val);
	return trisc_window_fault(a, i);
}

static bool pcbuf_trisc_write(struct bh_access *a, unsigned i, uint32_t val)
{
	switch (a->off) {
	case TT_POP:            /* discarded */
	case TT_COPROC_DONE:    /* discarded: the store only orders earlier stores before the check */
	case TT_MOP_DONE:
		return true;
	default: break;
	}
	if (a->off >= TT_SEM_BASE && a->off < TT_SEM_END)
		return bh_sem_mmio_write(a, (a->off - TT_SEM_BASE) / 4, val);
	return trisc_window_fault(a, i);
}

/* ---------------------------------------------------------------------------------------------
 * Windows, override register, reset.
 */

/* BRISC reaches PCBuf i through window i; a TRISC reaches only 0xFFE80000 (the address table
 * says so), which is its own PCBuf. */
bool bh_pcbuf_read(struct bh_access *a, uint32_t *val)
{
	if (a->who == BH_BRISC)
		return pcbuf_barrier(a, (a->addr - BH_PCBUF_BASE) / BH_PCBUF_STRIDE, val);
	return pcbuf_trisc_read(a, a->who - BH_TRISC0, val);
}

bool bh_pcbuf_write(struct bh_access *a, uint32_t val)
{
	if (a->who == BH_BRISC)
		return pcbuf_push(a, (a->addr - BH_PCBUF_BASE) / BH_PCBUF_STRIDE, val);
	return pcbuf_trisc_write(a, a->who - BH_TRISC0, val);
}

uint32_t bh_pcbuf_override_read(struct bh_tile *t)
{
	return override_load(t);
}

bool bh_pcbuf_override_write(struct bh_access *a, uint32_t val)
{
	struct bh_tile *t = a->tile;
	if (val >> 30)
		return bh_fault_fill(a->fault, BH_FAULT_BAD_VALUE, a->addr, "tile control register TRISC_PC_BUF_OVERRIDE",
				     "TRISC_PC_BUF_OVERRIDE written with 0x%08x: bits 31:30 are reserved", val);
	/* seq_cst: pairs with override_load() after a waiter's bh_waitq_add. */
	atomic_store_explicit(&t->pcbuf.override, val, memory_order_seq_cst);
	for (unsigned i = 0; i < BH_PCBUF_COUNT; i++) {
		struct bh_pcbuf *pb = &t->pcbuf.buf[i];
		bh_waitq_wake(t, &pb->pop_waiters);
		bh_waitq_wake(t, &pb->barrier_waiters);
		bh_waitq_wake(t, &pb->ttsync_waiters);
	}
	return true;
}

void bh_pcbuf_reset_edge(struct bh_tile *t, enum bh_core_kind k, bool entering)
{
	if (k < BH_TRISC0)
		return;
	struct bh_pcbuf *pb = &t->pcbuf.buf[k - BH_TRISC0];
	pthread_mutex_lock(&pb->lock);
	if (entering) {
		pb->trisc_waiting = false;   /* its parked pop is abandoned */
	} else {
		pb->head = 0;
		pb->count = 0;
	}
	pthread_mutex_unlock(&pb->lock);
	if (!entering)
		bh_waitq_wake(t, &pb->push_waiters);
}
