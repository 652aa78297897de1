/* The Tensix coprocessor of a tile: instruction push (tensix.md 2, riscv-cores.md 2), the
 * per-thread FIFOs and executor threads, the MOP expander stage, GPR and MOP-config MMIO, idle
 * tracking for PCBufs, faults and reset. Instruction semantics: cores/tensix_exec.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/core.h"
#include "cores/tensix.h"
#include "fabric/chip.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/fiber.h"
#include "sync/sched.h"
#include "sync/pcbuf.h"
#include "sync/tensix_sem.h"

/* A change of state the Wait Gate reads (sync/park.h) wakes the executors parked on it: for a
 * semaphore change only those whose SEMWAIT latch names one of the changed semaphores and whose
 * wait the semaphores as they are now release, or hold for another reason than the one they
 * parked with (its description, for reports), for any other state (stream registers) every
 * parked executor. Not waking the others loses nothing: the state is read under tx->lock after
 * the change that called this, and every later change calls this again (a woken executor would
 * only re-check the current state and park again with the same description). The broadcast comes after the
 * unlock, so that a woken executor does not wait for tx->lock: taking the lock once is enough,
 * since a waiter re-checks and sleeps all under it (tt_gate). */
static void tt_gate_wake(struct bh_tile *t, unsigned sems_changed)
{
	struct bh_tensix *tx = t->tensix;
	unsigned wake = 0;
	bh_lock(&tx->lock);
	uint64_t st = atomic_load_explicit(&t->sem.state, memory_order_seq_cst);
	for (unsigned i = 0; i < BH_TT_THREADS; i++) {
		const struct bh_tt_thread *o = &tx->th[i];
		wake |= (unsigned)(sems_changed == BH_GATE_WAKE_ALL ||
				   ((o->wait_sems & sems_changed) &&
				    bh_sem_wait_blocker(st, o->wait_sems, o->wait_sem_cond) != o->wait_sem_blocker))
			<< i;
	}
	bh_unlock(&tx->lock);
	for (unsigned i = 0; i < BH_TT_THREADS; i++)
		if (wake >> i & 1)
			bh_park_wake(&tx->th[i].waiter);
}

void bh_tensix_init(struct bh_tensix *tx, struct bh_tile *tile)
{
	tx->tile = tile;
	bh_lock_init(&tx->lock);
	memset(tx->mutex_owner, -1, sizeof tx->mutex_owner);
	if (!tt_dp_init(tx))
		abort();
	for (unsigned i = 0; i < BH_TT_THREADS; i++) {
		tx->th[i].tx = tx;
		tx->th[i].id = i;
		atomic_init(&tx->th[i].waiter.park_state, BH_PARK_IDLE);
	}
	tile->chip->gate_wake = tt_gate_wake;
}

void bh_tensix_destroy(struct bh_tensix *tx)
{
	bh_lock(&tx->lock);
	tx->shutdown = true;
	for (unsigned i = 0; i < BH_TT_THREADS; i++) {
		atomic_fetch_add_explicit(&tx->th[i].epoch, 1, memory_order_relaxed);
		bh_park_wake(&tx->th[i].waiter);
	}
	bh_unlock(&tx->lock);
	for (unsigned i = 0; i < BH_TT_THREADS; i++) {
		if (tx->th[i].started && tx->th[i].fiber)
			bh_fiber_join(tx->th[i].fiber);
		else if (tx->th[i].started)
			pthread_join(tx->th[i].thread, NULL);
	}
	tt_dp_destroy(tx);
}

/* Park the executor as `state` until woken, with tx->lock held on entry and on return. Wakers
 * change what it waits on under tx->lock (or announce it through tt_gate_wake, which takes that
 * lock) and then bump its waiter: the sequence read here, still under the lock, is older than any
 * such bump, so no wake-up is lost. Spurious returns: the caller re-checks. */
static void tt_sleep_locked(struct bh_tt_thread *th, enum bh_park_state state)
{
	uint32_t seq = bh_park_seq(&th->waiter);
	atomic_store_explicit(&th->waiter.park_state, state, memory_order_release);
	/* The timeline trace's track of this thread (host/trace.c): told outside the lock. */
	struct bh_tile *t = th->tx->tile;
	bool traced = bh_hooks_want(&t->chip->hooks, BH_EVENT_ACTOR);
	char what[sizeof th->wait_what + 16];
	if (traced) {
		char wait[sizeof th->wait_what];
		tt_wait_text(th, wait, sizeof wait);
		snprintf(what, sizeof what, state == BH_PARK_IDLE || !wait[0] ? "idle" : "parked: %s", wait);
	}
	bool room = th->count <= BH_TT_FIFO_ACCEPT;
	bh_unlock(&th->tx->lock);
	if (room)   /* cores stalled on the FIFO above BH_TT_FIFO_REFILL: it takes no more for now */
		bh_waitq_wake(t, &th->push_waiters);
	if (traced)
		bh_hooks_emit_actor(&t->chip->hooks, t->index, BH_ACTOR_TENSIX0 + th->id, what);
	bh_park_sleep(&th->waiter, seq, 0);
	if (traced)
		bh_hooks_emit_actor(&t->chip->hooks, t->index, BH_ACTOR_TENSIX0 + th->id, "running");
	bh_lock(&th->tx->lock);
	atomic_store_explicit(&th->waiter.park_state, BH_PARK_NONE, memory_order_relaxed);
}

bool tt_abandoned(struct bh_tt_thread *th)
{
	return th->gave_back || atomic_load_explicit(&th->epoch, memory_order_relaxed) != th->run_epoch;
}

void tt_wait_locked(struct bh_tt_thread *th, const char *what)
{
	/* A TRISC executing deferred words never waits: the word goes back to the FIFO for the
	 * executor. Every wait comes before its instruction acts, and the callers leave through
	 * their abandon path (tt_abandoned), which undoes their registrations. */
	if (th->on_trisc) {
		th->gave_back = true;
		return;
	}
	if (what) {
		size_t n = strnlen(what, sizeof th->wait_what - 1);
		memcpy(th->wait_what, what, n);
		th->wait_what[n] = 0;
		th->wait_desc.kind = TT_WD_TEXT;
	}
	/* The executor's own latch (it runs here): a SEMWAIT's semaphores, for tt_gate_wake. */
	th->wait_sems = th->latch.active && th->latch.kind == TT_WAIT_SEM ? (uint8_t)th->latch.sem_mask : 0;
	th->wait_sem_cond = (uint8_t)th->latch.cond;
	th->wait_sem_blocker = th->sem_blocker;
	tt_sleep_locked(th, BH_PARK_GATE);
	atomic_fetch_add_explicit(&th->waiter.progress, 1, memory_order_relaxed);
	th->wait_desc.kind = TT_WD_NONE;
	th->wait_sems = 0;
}

/* ---------------------------------------------------------------------------------------------
 * Faults: the thread stops; the core that pushed the instruction faults with the report.
 */

/* f as the fault of `word` on th (the detail names the thread, the word and its pusher). */
static void tt_fault_fill(struct bh_tt_thread *th, struct bh_fault *f, enum bh_fault_kind kind, uint32_t word,
			  const char *why)
{
	char dis[192], region[48], from[64] = "";
	tt_disasm(word, dis, sizeof dis);
	snprintf(region, sizeof region, "Tensix thread %u", th->id);
	/* Where the word came from: the FIFO word itself, a MOP's expansion or a replay slot (kept
	 * short: the detail has room for about 500 characters, the cause included). */
	if (th->origin == TT_FROM_MOP)
		snprintf(from, sizeof from, "emitted by MOP 0x%08x, ", th->cur.word);
	else if (th->origin == TT_FROM_REPLAY)
		snprintf(from, sizeof from, "from replay slot %u, ", th->origin_slot);
	bh_fault_fill(f, kind, 0, region, "Tensix thread %u, instruction 0x%08x %s (%spushed by %s): %s", th->id, word,
		      dis, from, bh_core_kind_name((enum bh_core_kind)th->cur.pusher), why);
}

enum tt_result tt_fault(struct bh_tt_thread *th, enum bh_fault_kind kind, uint32_t word, const char *fmt, ...)
{
	char why[sizeof th->fault.detail];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	bh_lock(&th->tx->lock);
	tt_fault_fill(th, &th->fault, kind, word, why);
	bh_unlock(&th->tx->lock);
	return TT_FAULT;
}

/* The pushing store (or .ttinsn) of the FIFO word being processed: the pc and instruction a
 * fault or finding of the thread names. */
static void tt_fault_at_push(struct bh_tile *t, const struct tt_entry *e, struct bh_fault *f)
{
	f->pc = e->pc;
	f->insn = e->pc < BH_L1_SIZE && !(e->pc & 3) ? bh_mem_ld(t->l1 + e->pc, 4) : 0;
}

enum tt_result tt_check(struct bh_tt_thread *th, enum bh_check id, uint32_t word, const char *other, const char *fmt,
			...)
{
	struct bh_tile *t = th->tx->tile;
	struct bh_fault f;
	char why[sizeof th->fault.detail];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	tt_fault_fill(th, &f, BH_FAULT_CHECK, word, why);
	f.check = (uint8_t)id;
	snprintf(f.other, sizeof f.other, "%s", other ? other : "");
	tt_fault_at_push(t, &th->cur, &f);
	if (!bh_check_found(&t->chip->checks, t->index, th->cur.pusher, &f))
		return TT_OK;   /* logged: the thread goes on */
	bh_lock(&th->tx->lock);
	th->fault = f;
	bh_unlock(&th->tx->lock);
	return TT_FAULT;
}

/* Stop the thread at th->fault and hand the fault to the core that pushed the instruction, all
 * in one critical section under tile->lock (which orders the core's state changes, cores/core.c)
 * and tx->lock: nobody sees the thread faulted next to a core that looks clean. A running core
 * gets the event and stops with it (its thread re-checks under tile->lock when it stops, so an
 * exit racing this is not missed); one that exited or hit its limit becomes FAULTED at once. A
 * core in (or entering) reset or already faulted keeps its state: reports show the thread.
 * Returns false if T_i's reset abandoned the instruction first (the caller retires it). */
/* Hand fault f (f->pc: the access that caused it) to core c, with tile->lock and tx->lock held:
 * a running core gets the event and stops with it; one that exited or hit its limit becomes
 * FAULTED at once (returns true: tell the owner); a core in (or entering) reset or already
 * faulted keeps its state. */
static bool core_take_fault_locked(struct bh_tile *t, struct bh_core *c, struct bh_fault *f)
{
	f->insn = f->pc < BH_L1_SIZE && !(f->pc & 3) ? bh_mem_ld(t->l1 + f->pc, 4) : 0;
	if (c->state == BH_CORE_RUNNING && !c->restart && !c->held) {
		t->tensix->pending[c->kind] = *f;
		atomic_fetch_or_explicit(&c->events, BH_EV_STOP | BH_EV_TENSIX_FAULT, memory_order_release);
		bh_park_wake(&c->waiter);
	} else if (c->state == BH_CORE_EXITED || c->state == BH_CORE_LIMIT) {
		c->fault = *f;
		c->state = BH_CORE_FAULTED;
		return true;
	}
	return false;
}

__attribute__((cold, noinline))
static bool tt_deliver_fault(struct bh_tt_thread *th, const struct tt_entry *e)
{
	struct bh_tensix *tx = th->tx;
	struct bh_tile *t = tx->tile;
	struct bh_core *c = t->core[e->pusher];
	bool notify = false;
	pthread_mutex_lock(&t->lock);
	bh_lock(&tx->lock);
	bool abandoned = tt_abandoned(th);
	if (!abandoned) {
		th->faulted = true;
		struct bh_fault f = th->fault;
		f.pc = e->pc;
		notify = core_take_fault_locked(t, c, &f);
	}
	bh_unlock(&tx->lock);
	pthread_mutex_unlock(&t->lock);
	if (notify)
		bh_chip_state_changed(t->chip);
	return !abandoned;
}

void bh_core_async_fault(struct bh_tile *t, unsigned who, const struct bh_fault *fault)
{
	if (who >= BH_CORES_PER_TILE)
		return;
	struct bh_tensix *tx = t->tensix;
	struct bh_core *c = t->core[who];
	bool notify = false;
	pthread_mutex_lock(&t->lock);
	bh_lock(&tx->lock);
	struct bh_fault f = *fault;   /* f.pc: the access that caused it (the core has moved on) */
	notify = core_take_fault_locked(t, c, &f);
	bh_unlock(&tx->lock);
	pthread_mutex_unlock(&t->lock);
	if (notify)
		bh_chip_state_changed(t->chip);
}

bool bh_tensix_take_fault(struct bh_core *c)
{
	if (!(atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_TENSIX_FAULT))
		return false;
	struct bh_tensix *tx = c->tile->tensix;
	bh_lock(&tx->lock);
	bool have = atomic_fetch_and_explicit(&c->events, ~BH_EV_TENSIX_FAULT, memory_order_acq_rel) &
		    BH_EV_TENSIX_FAULT;
	if (have) {
		c->fault = tx->pending[c->kind];
		c->pc = c->fault.pc;
		memset(&tx->pending[c->kind], 0, sizeof tx->pending[c->kind]);
	}
	bh_unlock(&tx->lock);
	return have;
}

/* ---------------------------------------------------------------------------------------------
 * Executor thread: FIFO -> MOP expander -> tt_replay_in (replay expander, gate, units).
 */

struct mop_ctx {
	struct bh_tt_thread *th;
	enum tt_result r;
};

static bool mop_emit(void *arg, uint32_t w)
{
	struct mop_ctx *m = arg;
	m->th->origin = TT_FROM_MOP;
	m->r = tt_replay_in(m->th, w);
	return m->r == TT_OK;
}

static enum tt_result tt_mop_stage(struct bh_tt_thread *th, const struct tt_entry *e)
{
	uint32_t w = e->word;
	th->origin = TT_FROM_PUSH;
	if (e->after_mop)
		return tt_replay_in(th, w);
	switch (tt_opcode_of(w)) {
	case TT_OP_MOP_CFG:
		th->mask_hi = tt_bits(w, 15, 0);
		return TT_OK;
	case TT_OP_MOP: {
		uint32_t cfg[BH_TT_MOP_CFG_WORDS];
		for (unsigned k = 0; k < BH_TT_MOP_CFG_WORDS; k++)
			cfg[k] = atomic_load_explicit(&th->mop_cfg[k], memory_order_relaxed);
		struct mop_ctx m = { th, TT_OK };
		tt_mop_expand(cfg, w, th->mask_hi, mop_emit, &m);
		return m.r;
	}
	default:
		return tt_replay_in(th, w);
	}
}

static bool is_mop(uint32_t w)
{
	return tt_opcode_of(w) == TT_OP_MOP;
}

/* One FIFO word has been fully processed (or dropped): idle bookkeeping for PCBufs. */
static void tt_retire(struct bh_tt_thread *th, const struct tt_entry *e)
{
	struct bh_tile *t = th->tx->tile;
	if (!e->after_mop && is_mop(e->word))
		atomic_fetch_sub_explicit(&t->pcbuf.mop_busy[th->id], 1, memory_order_seq_cst);
	/* seq_cst: pairs with the register-then-re-check of the PCBuf waiters (sync/pcbuf.c). */
	if (atomic_fetch_sub_explicit(&t->pcbuf.tensix_busy[th->id], 1, memory_order_seq_cst) == 1 ||
	    (!e->after_mop && is_mop(e->word)))
		bh_pcbuf_tensix_idle_changed(t, th->id);
}

/* Take the FIFO's head into processing (under tx->lock). */
static struct tt_entry tt_take_locked(struct bh_tt_thread *th)
{
	struct tt_entry e = th->fifo[th->head];
	th->head = (th->head + 1) % BH_TT_FIFO_SLOTS;
	th->count--;
	th->cur = e;
	th->in_flight = true;
	th->done = 0;
	th->skip = e.resume;
	unsigned epoch = atomic_load_explicit(&th->epoch, memory_order_relaxed);
	if (epoch != th->run_epoch) {
		/* T_i went through reset: the expanders and the gate start afresh. */
		th->run_epoch = epoch;
		th->rec_left = 0;
		memset(&th->latch, 0, sizeof th->latch);
		tt_publish_latch(th);
		th->hz_wrcfg.word = 0;
		th->hz_rdcfg_gprs = 0;
		th->tt_open = 0;
	}
	return e;
}

static bool tt_defer_on(const struct bh_tile *t)
{
	return t->chip->tensix_deferred && !bh_hooks_want(&t->chip->hooks, BH_EVENT_ACTOR);
}

static void *tt_thread_main(void *arg)
{
	struct bh_tt_thread *th = arg;
	struct bh_tensix *tx = th->tx;
	if (th->waiter.actor)
		bh_sched_enter(th->waiter.actor);   /* serial scheduling: only with the token */
	bh_lock(&tx->lock);
	for (;;) {
		while (!tx->shutdown && (th->count == 0 || th->faulted || th->in_flight || th->deferred)) {
			if (th->count == 0 && !th->in_flight)
				th->deferred = tt_defer_on(tx->tile);   /* empty: the TRISC's again */
			tt_sleep_locked(th, BH_PARK_IDLE);
		}
		if (tx->shutdown)
			break;
		struct tt_entry e = tt_take_locked(th);
		bool refill = th->count <= BH_TT_FIFO_REFILL;
		bh_unlock(&tx->lock);
		atomic_fetch_add_explicit(&th->by_executor, 1, memory_order_relaxed);
		if (refill)
			bh_waitq_wake(tx->tile, &th->push_waiters);   /* room for a batch of words */
		bh_sched_point();   /* serial: each instruction a scheduling point */

		enum tt_result r = tt_mop_stage(th, &e);

		bh_lock(&tx->lock);
		th->in_flight = false;
		if (r != TT_FAULT) {
			/* Retired under the lock the loop goes on with: tt_retire takes no lock (its
			 * wake-ups are atomics and futex calls), and one lock round per word is saved. */
			tt_retire(th, &e);
			continue;
		}
		bh_unlock(&tx->lock);
		/* A faulted word is never retired: the thread stays busy until T_i's reset drops it. */
		if (!tt_deliver_fault(th, &e))
			tt_retire(th, &e);
		bh_lock(&tx->lock);
	}
	bh_unlock(&tx->lock);
	if (th->waiter.actor)
		bh_sched_exit(th->waiter.actor);
	return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Push (stores to 0xFFE40000.. and .ttinsn, through the address decode).
 */

__attribute__((cold, noinline))
static bool push_fault(struct bh_access *a, unsigned thread, enum bh_fault_kind kind, uint32_t w, const char *why)
{
	char dis[96], region[64];
	tt_disasm(w, dis, sizeof dis);
	snprintf(region, sizeof region, "Tensix instruction push, thread %u", thread);
	return bh_fault_fill(a->fault, kind, a->addr, region, "push of 0x%08x %s to Tensix thread %u: %s", w, dis,
			     thread, why);
}

/* The word is checked at the push (precise fault at the pushing instruction): it must decode,
 * have no reserved bit set and be something bhemu executes. */
static bool push_check(struct bh_access *a, unsigned thread, uint32_t w, bool after_mop)
{
	char why[160];
	if (!tt_decode_check(w, why, sizeof why))
		return push_fault(a, thread, BH_FAULT_ILLEGAL_INSN, w, why);
	const struct tt_opinfo *oi = tt_opinfo(tt_opcode_of(w));
	if (after_mop && (tt_opcode_of(w) == TT_OP_MOP || tt_opcode_of(w) == TT_OP_MOP_CFG))
		return push_fault(a, thread, BH_FAULT_ILLEGAL_INSN, w,
				  "brisc's pushes enter after the MOP expander, so MOP and MOP_CFG from brisc are never expanded");
	if (oi->exec == TT_E_N) {
		tt_not_modelled_why(oi, why, sizeof why);
		return push_fault(a, thread, BH_FAULT_NOT_MODELLED, w, why);
	}
	return true;
}

/* brisc-push (races.md #17): BRISC pushes into thread i while TRISC i is out of reset and has not
 * stopped (running or parked). tensix.md 2 cites design notes, unverified on silicon: a push of
 * BRISC and one of TRISC i in the same cycle loses TRISC i's, so BRISC pushes only while the
 * TRISCs are idle (firmware: at boot, before it releases them). Returns false with a->fault
 * filled when the finding stops BRISC. */
__attribute__((cold, noinline))
static bool brisc_push_check(struct bh_access *a, unsigned thread, uint32_t w)
{
	struct bh_core *c = a->tile->core[BH_TRISC0 + thread];
	if (atomic_load_explicit(&c->waiter.park_state, memory_order_acquire) == BH_PARK_IDLE)
		return true;
	char other[96], dis[96];
	tt_disasm(w, dis, sizeof dis);
	snprintf(other, sizeof other, "trisc%u, out of reset and running (last seen at pc 0x%08x)", thread,
		 atomic_load_explicit(&c->pc_snapshot, memory_order_relaxed));
	return bh_check_access(a, BH_CHECK_BRISC_PUSH, other,
			       "brisc pushes 0x%08x %s into Tensix thread %u while trisc%u runs: a trisc%u push in the same "
			       "cycle would be lost (design notes, unverified on silicon); push from brisc only while the "
			       "TRISC is held in reset", w, dis, thread, thread, thread);
}

/* A push into thread th, stopped by a fault (tx->lock held; released here). The pusher that has a
 * Tensix fault on its way (tt_deliver_fault sets the event and th->faulted together, under
 * tx->lock) stops with that one, the earlier and the cause: the push leaves through the blocked
 * path, which sees the stop event, and the core takes the pending fault (its pc is the faulting
 * word's push). Any other push (a TRISC into the thread a BRISC word stopped, or after the core
 * took its fault and was restarted without T_i's reset) faults naming the earlier fault. */
__attribute__((cold, noinline))
static bool push_to_faulted(struct bh_access *a, struct bh_tt_thread *th, uint32_t w)
{
	struct bh_tensix *tx = th->tx;
	struct bh_core *c = a->tile->core[a->who];
	if (atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_TENSIX_FAULT) {
		bh_unlock(&tx->lock);
		return bh_access_block(a, "Tensix thread %u push: stops with the fault of a word it pushed earlier", th->id);
	}
	char why[160];
	snprintf(why, sizeof why, "the thread stopped at an earlier fault (%s of 0x%08x pushed by %s at pc 0x%08x) "
		 "until its TRISC enters reset", bh_fault_kind_name(th->fault.kind), th->cur.word,
		 bh_core_kind_name((enum bh_core_kind)th->cur.pusher), th->cur.pc);
	bh_unlock(&tx->lock);
	return push_fault(a, th->id, BH_FAULT_NOT_MODELLED, w, why);
}

static bool tt_start_thread(struct bh_access *a, struct bh_tt_thread *th, uint32_t w)
{
	struct bh_sched *s = a->tile->chip->sched;
	if (s && !th->waiter.actor) {
		char name[40];
		snprintf(name, sizeof name, "tile %u tensix %u", a->tile->index, th->id);
		if (!(th->waiter.actor = bh_sched_actor_add(s, name, true)))
			return push_fault(a, th->id, BH_FAULT_NOT_MODELLED, w, "host failure: out of memory for the executor");
	}
	int rc = 0;
	if (a->tile->fibers) {
		th->fiber = bh_fiber_start(a->tile->fibers, &th->waiter, tt_thread_main, th, 256 * 1024);
		rc = th->fiber ? 0 : ENOMEM;
	} else {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		rc = pthread_create(&th->thread, &attr, tt_thread_main, th);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0)
		return push_fault(a, th->id, BH_FAULT_NOT_MODELLED, w, "host failure: cannot create the executor thread");
	th->started = true;
	return true;
}

bool bh_tensix_push_write(struct bh_access *a, uint32_t w)
{
	struct bh_tile *t = a->tile;
	struct bh_tensix *tx = a->dev;
	unsigned window = (a->addr - BH_TT_PUSH_BASE) / BH_TT_PUSH_STRIDE;
	bool brisc = a->who == BH_BRISC;
	unsigned thread = brisc ? window : a->who - BH_TRISC0;
	if (!brisc && window != 0) {
		char why[128];
		snprintf(why, sizeof why, "%s may push only through 0xffe40000 (its own thread); on silicon a TRISC "
			 "store to thread %u's aperture hangs the core", bh_core_kind_name((enum bh_core_kind)a->who), window);
		return push_fault(a, window, BH_FAULT_ACCESS, w, why);
	}
	if (!push_check(a, thread, w, brisc))
		return false;
	if (brisc && bh_checks_on(&t->chip->checks, BH_CHECK_BRISC_PUSH) && !brisc_push_check(a, thread, w))
		return false;
	struct bh_tt_thread *th = &tx->th[thread];
	bh_lock(&tx->lock);
	if (th->count > BH_TT_FIFO_ACCEPT && th->deferred) {
		/* Full of words a pusher is to execute: this one does so first. */
		bh_unlock(&tx->lock);
		bh_tensix_drain(t->core[a->who]);
		bh_lock(&tx->lock);
	}
	if (th->faulted)
		return push_to_faulted(a, th, w);   /* unlocks */
	if (th->count > BH_TT_FIFO_ACCEPT) {
		bh_waitq_add(&th->push_waiters, a->who);
		unsigned n = th->count;
		bh_unlock(&tx->lock);
		return bh_access_block(a, "Tensix thread %u push (%s): instruction FIFO full (%u queued)", thread,
				       bh_core_kind_name((enum bh_core_kind)a->who), n);
	}
	if (!th->started && !tt_start_thread(a, th, w)) {
		bh_unlock(&tx->lock);
		return false;
	}
	struct tt_entry e = { .word = w, .pc = t->core[a->who]->pc, .pusher = (uint8_t)a->who, .after_mop = brisc };
	th->fifo[(th->head + th->count) % BH_TT_FIFO_SLOTS] = e;
	th->count++;
	/* seq_cst: a TTSync/barrier waiter that saw "idle" before this is not wrong (the push came
	 * later); one registering later sees busy. */
	atomic_fetch_add_explicit(&t->pcbuf.tensix_busy[thread], 1, memory_order_seq_cst);
	unsigned open = tt_open_unit(w);
	if (open)   /* cb-publish-early: the TRISC's stores from now on may overtake it */
		atomic_fetch_or_explicit(&t->pcbuf.tt_open[thread], open, memory_order_relaxed);
	if (!brisc && is_mop(w))
		atomic_fetch_add_explicit(&t->pcbuf.mop_busy[thread], 1, memory_order_seq_cst);
	if (th->count == 1 && !th->in_flight)
		th->deferred = tt_defer_on(t);   /* the executor is idle: the pusher may take over */
	if (th->deferred) {
		/* The pusher executes it later (bh_tensix_drain): a TRISC its own thread's words, BRISC
		 * those it pushed into any idle thread (its boot SEMINITs: silicon executes them within
		 * cycles, long before any kernel's SEMWAIT, which a starved executor thread would not). */
		t->core[a->who]->tt_deferred = true;
	} else {
		/* Work for an idle executor: it counts as running from now on (deadlock monitor). One
		 * held at the gate (or in a unit's wait) waits for something else: a new word changes
		 * nothing for it. */
		th->deferred = false;
		if (atomic_load_explicit(&th->waiter.park_state, memory_order_relaxed) != BH_PARK_GATE) {
			atomic_store_explicit(&th->waiter.park_state, BH_PARK_NONE, memory_order_release);
			bh_park_wake(&th->waiter);
		}
	}
	bh_unlock(&tx->lock);
	return true;
}

/* Deferred words of Tensix thread th, in order, on the calling core's thread (any pusher that
 * deferred into it: two never execute at once, in_flight). */
static bool tt_drain_thread(struct bh_tile *t, struct bh_tt_thread *th)
{
	struct bh_tensix *tx = t->tensix;
	bool ran = false;
	bh_lock(&tx->lock);
	while (th->count && th->deferred && !th->in_flight && !th->faulted && !tx->shutdown) {
		struct tt_entry e = tt_take_locked(th);
		th->on_trisc = true;
		bh_unlock(&tx->lock);
		enum tt_result r = tt_mop_stage(th, &e);
		bool gave_back = th->gave_back;
		th->on_trisc = th->gave_back = false;
		bh_lock(&tx->lock);
		th->in_flight = false;
		if (gave_back && !tt_abandoned(th)) {
			/* A word of it would wait: back to the head of the FIFO, for the executor, which
			 * passes over the words that executed. */
			e.resume = th->done;
			th->head = (th->head + BH_TT_FIFO_SLOTS - 1) % BH_TT_FIFO_SLOTS;
			th->fifo[th->head] = e;
			th->count++;
			break;
		}
		bh_unlock(&tx->lock);
		ran = true;
		atomic_fetch_add_explicit(&th->by_trisc, 1, memory_order_relaxed);
		if (r != TT_FAULT || !tt_deliver_fault(th, &e))
			tt_retire(th, &e);
		bh_lock(&tx->lock);
	}
	if (th->count && th->deferred && !th->in_flight && !tx->shutdown) {
		/* What the pusher could not execute: the executor takes the FIFO until it is empty. */
		th->deferred = false;
		atomic_fetch_add_explicit(&th->handovers, 1, memory_order_relaxed);
		atomic_store_explicit(&th->waiter.park_state, BH_PARK_NONE, memory_order_release);
		bh_park_wake(&th->waiter);
	}
	bh_unlock(&tx->lock);
	if (ran)
		bh_waitq_wake(t, &th->push_waiters);   /* BRISC's pushes may wait for a slot */
	return ran;
}

bool bh_tensix_drain(struct bh_core *c)
{
	struct bh_tile *t = c->tile;
	struct bh_tensix *tx = t->tensix;
	c->tt_deferred = false;
	if (c->kind != BH_BRISC)
		return tt_drain_thread(t, &tx->th[c->kind - BH_TRISC0]);
	bool ran = false;
	for (unsigned i = 0; i < BH_TT_THREADS; i++)
		ran |= tt_drain_thread(t, &tx->th[i]);
	return ran;
}

uint32_t bh_tensix_status_types(struct bh_tile *t, unsigned i, bool backend)
{
	struct bh_tensix *tx = t->tensix;
	struct bh_tt_thread *th = &tx->th[i];
	uint8_t pusher = (uint8_t)(BH_TRISC0 + i);
	uint32_t v = 0;
	bh_lock(&tx->lock);
	for (unsigned n = 0; n < th->count; n++) {
		const struct tt_entry *e = &th->fifo[(th->head + n) % BH_TT_FIFO_SLOTS];
		if (e->pusher == pusher)
			v |= tt_status_type_bits(e->word);
	}
	if (th->in_flight && th->cur.pusher == pusher) {
		uint64_t stage = atomic_load_explicit(&th->stage, memory_order_relaxed);
		if (is_mop(th->cur.word))
			v |= TT_ST_MOP;   /* still expanding */
		if (atomic_load_explicit(&th->replaying, memory_order_relaxed))
			v |= TT_ST_REPLAY;
		if ((stage & TT_STAGE_GATE) || (backend && (stage & TT_STAGE_UNIT)))
			v |= tt_status_type_bits((uint32_t)stage);
	}
	bh_unlock(&tx->lock);
	return v;
}

uint32_t bh_tensix_instrn_buf_status(struct bh_tile *t)
{
	struct bh_tensix *tx = t->tensix;
	uint32_t v = 0;
	bh_lock(&tx->lock);
	for (unsigned i = 0; i < BH_TT_THREADS; i++) {
		/* The same test as the push's back-pressure in bh_tensix_push_write. */
		v |= (uint32_t)(tx->th[i].count <= BH_TT_FIFO_ACCEPT) << i;
		v |= (uint32_t)(tx->th[i].count == 0) << (4 + i);
	}
	bh_unlock(&tx->lock);
	return v;
}

/* ---------------------------------------------------------------------------------------------
 * GPRs (0xFFE00000: T_i its own 64 at +0..0xFF; BRISC all three at +0x000/+0x100/+0x200) and
 * MOP configuration (0xFFB80000, write-only, the TRISC's own thread).
 */

static bool gpr_locate(struct bh_access *a, _Atomic uint32_t **cell)
{
	unsigned thread = a->who == BH_BRISC ? a->off >> 8 : a->who - BH_TRISC0;
	unsigned limit = a->who == BH_BRISC ? 0x300 : 0x100;
	if (a->off >= limit)
		return bh_fault_fill(a->fault, BH_FAULT_UNMAPPED, a->addr, "Tensix GPRs",
				     "offset 0x%x is past the GPRs %s sees (%s)", a->off, bh_requester_name(a->who),
				     a->who == BH_BRISC ? "three threads x 64 at +0x000/+0x100/+0x200" : "its thread's 64 at +0x00..+0xFC");
	*cell = &((struct bh_tensix *)a->dev)->th[thread].gpr[(a->off & 0xFF) >> 2];
	return true;
}

bool bh_tensix_gpr_read(struct bh_access *a, uint32_t *val)
{
	_Atomic uint32_t *cell = NULL;
	if (!gpr_locate(a, &cell))
		return false;
	*val = atomic_load_explicit(cell, memory_order_relaxed);
	return true;
}

bool bh_tensix_gpr_write(struct bh_access *a, uint32_t val)
{
	_Atomic uint32_t *cell = NULL;
	if (!gpr_locate(a, &cell))
		return false;
	atomic_store_explicit(cell, val, memory_order_relaxed);
	return true;
}

/* mopcfg-busy (races.md #15): the MOP the expander of th holds, first the one it expands, else the
 * first queued, described in other; false when it holds none. */
static bool mop_held(struct bh_tt_thread *th, char *other, size_t n)
{
	struct bh_tensix *tx = th->tx;
	const struct tt_entry *e = NULL;
	bh_lock(&tx->lock);
	if (th->in_flight && !th->cur.after_mop && is_mop(th->cur.word))
		e = &th->cur;
	for (unsigned k = 0; !e && k < th->count; k++) {
		const struct tt_entry *q = &th->fifo[(th->head + k) % BH_TT_FIFO_SLOTS];
		if (!q->after_mop && is_mop(q->word))
			e = q;
	}
	if (e)
		snprintf(other, n, "MOP 0x%08x pushed by %s at pc 0x%08x, %s by Tensix thread %u's MOP expander", e->word,
			 bh_core_kind_name((enum bh_core_kind)e->pusher), e->pc, e == &th->cur ? "being expanded" : "queued",
			 th->id);
	bh_unlock(&tx->lock);
	return e != NULL;
}

bool bh_tensix_mop_cfg_write(struct bh_access *a, uint32_t val)
{
	struct bh_tt_thread *th = &((struct bh_tensix *)a->dev)->th[a->who - BH_TRISC0];
	char other[192];
	if (bh_checks_on(&a->tile->chip->checks, BH_CHECK_MOPCFG_BUSY) &&
	    !bh_pcbuf_mop_expander_idle(a->tile, th->id) && mop_held(th, other, sizeof other) &&
	    !bh_check_access(a, BH_CHECK_MOPCFG_BUSY, other,
			     "store of 0x%08x to MopCfg[%u] while the MOP expander of Tensix thread %u holds a MOP that "
			     "reads it (wait for MOPExpanderDoneCheck, mop_sync(), first)", val, a->off >> 2, th->id))
		return false;
	atomic_store_explicit(&th->mop_cfg[a->off >> 2], val, memory_order_relaxed);
	return true;
}

/* ---------------------------------------------------------------------------------------------
 * Reset and reports.
 */

void bh_tensix_reset_edge(struct bh_tile *t, enum bh_core_kind k, bool entering)
{
	struct bh_tensix *tx = t->tensix;
	if (!entering)
		return;
	atomic_fetch_and_explicit(&t->core[k]->events, ~BH_EV_TENSIX_FAULT, memory_order_relaxed);
	bh_lock(&tx->lock);
	memset(&tx->pending[k], 0, sizeof tx->pending[k]);
	unsigned dropped = 0, dropped_mops = 0, i = k - BH_TRISC0;
	struct bh_tt_thread *th = k >= BH_TRISC0 ? &tx->th[i] : NULL;
	if (th) {
		for (unsigned n = 0; n < th->count; n++) {
			const struct tt_entry *e = &th->fifo[(th->head + n) % BH_TT_FIFO_SLOTS];
			dropped_mops += !e->after_mop && is_mop(e->word);
		}
		dropped = th->count;
		if (th->faulted && th->in_flight == false) {
			/* The faulted word was never retired: drop it now. */
			dropped++;
			dropped_mops += !th->cur.after_mop && is_mop(th->cur.word);
		}
		th->head = th->count = 0;
		th->faulted = false;
		atomic_store_explicit(&th->latched_sems, 0, memory_order_relaxed);   /* the gate starts afresh */
		atomic_store_explicit(&t->pcbuf.tt_open[i], 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&th->epoch, 1, memory_order_relaxed);
		bh_park_wake(&th->waiter);
	}
	bh_unlock(&tx->lock);
	if (!th)
		return;
	if (dropped_mops)
		atomic_fetch_sub_explicit(&t->pcbuf.mop_busy[i], dropped_mops, memory_order_seq_cst);
	if (dropped) {
		atomic_fetch_sub_explicit(&t->pcbuf.tensix_busy[i], dropped, memory_order_seq_cst);
		bh_pcbuf_tensix_idle_changed(t, i);
	}
	bh_waitq_wake(t, &th->push_waiters);
}

void bh_tensix_report(struct bh_tile *t, void (*put)(void *o, const char *line), void *o)
{
	struct bh_tensix *tx = t->tensix;
	char line[512], dis[96], pdis[96], wait[sizeof tx->th[0].wait_what];
	bh_lock(&tx->lock);
	for (unsigned i = 0; i < BH_TT_THREADS; i++) {
		struct bh_tt_thread *th = &tx->th[i];
		if (!th->started)
			continue;
		uint32_t park = atomic_load_explicit(&th->waiter.park_state, memory_order_acquire);
		int n = snprintf(line, sizeof line, "  tile %u (%u,%u) tensix%u: ", t->index, t->x, t->y, i);
		tt_disasm(th->cur_word, dis, sizeof dis);
		tt_disasm(th->cur.word, pdis, sizeof pdis);
		if (th->faulted)
			snprintf(line + n, sizeof line - (size_t)n, "stopped by a fault: %s\n", th->fault.detail);
		else if (park == BH_PARK_GATE && (tt_wait_text(th, wait, sizeof wait), true))
			snprintf(line + n, sizeof line - (size_t)n,
				 "waits at the Wait Gate with %s: %s (from 0x%08x %s pushed by %s at pc 0x%08x; %u more queued)\n",
				 dis, wait, th->cur.word, pdis, bh_core_kind_name((enum bh_core_kind)th->cur.pusher),
				 th->cur.pc, th->count);
		else if (th->in_flight || th->count)
			snprintf(line + n, sizeof line - (size_t)n, "running 0x%08x %s pushed by %s (%u more queued)\n",
				 th->cur.word, pdis, bh_core_kind_name((enum bh_core_kind)th->cur.pusher), th->count);
		else
			continue;
		put(o, line);
	}
	bh_unlock(&tx->lock);
}
