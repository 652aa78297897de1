/* Core lifecycle: one OS thread per baby RISC-V core. A core held in reset sleeps on its
 * condition variable (no CPU); releasing reset re-initialises it and runs the interpreter on
 * that thread until it exits, faults, hits its limit, or is asked to stop. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cores/core.h"
#include "cores/rv32_jit.h"
#include "cores/rv32_insns.h"
#include "cores/tensix.h"
#include "fabric/chip.h"
#include "fabric/code.h"
#include "fabric/fault.h"
#include "fabric/mmio.h"
#include "fabric/niu.h"
#include "fabric/niu_lane.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "sync/fiber.h"
#include "sync/park.h"
#include "sync/sched.h"
#include "sync/streams.h"

/* cfg0 reset value: all chicken bits clear except StMergeTimer (bits 13..17) = 16. */
#define CFG0_RESET (16u << 13)


static void core_code_stale(struct bh_tile *t, struct bh_core *writer, uint32_t addr, uint32_t len);

/* The interpreter stores pc before every device access (cores/rv32_run.inc); the access runs on
 * the core's own thread. */
static uint32_t core_access_pc(struct bh_tile *t, unsigned who)
{
	return who < BH_CORES_PER_TILE ? t->core[who]->pc : 0;
}

static uint32_t core_pc_now(struct bh_tile *t, unsigned who)
{
	return who < BH_CORES_PER_TILE ? atomic_load_explicit(&t->core[who]->pc_snapshot, memory_order_relaxed) : 0;
}

void bh_core_init(struct bh_core *c, struct bh_tile *t, enum bh_core_kind kind)
{
	c->tile = t;
	c->kind = kind;
	c->l1 = t->l1;
	c->ldm = t->ldm[kind];
	c->ldm_size = bh_ldm_size(kind);
	c->code_pages = t->code_pages;
	if (t->code)
		c->code_row = (struct bh_code_row){ t->code->exec[kind], t->code->pages[kind], t->code->stale_on };
	c->waiter.events = &c->events;
	atomic_init(&c->waiter.park_state, BH_PARK_IDLE);   /* held: not an active actor */
	c->held = true;
	c->state = BH_CORE_IN_RESET;
	c->reset_by = BH_REQ_HOST;
	c->cfg0 = CFG0_RESET;
	c->jit_mode = (uint8_t)rv32_jit_default_mode();
	pthread_cond_init(&c->cond, NULL);
	t->chip->code_written = core_code_stale;
	t->chip->noc_fault = bh_core_async_fault;
	t->chip->access_pc = core_access_pc;
	t->chip->core_pc = core_pc_now;
}

void bh_core_destroy(struct bh_core *c)
{
	rv32_free_decoded(c);
	pthread_cond_destroy(&c->cond);
}

uint32_t bh_core_reset_pc(const struct bh_core *c)
{
	const struct bh_tile *t = c->tile;
	static const uint32_t trisc_default[3] = { 0x06000, 0x0A000, 0x0E000 };
	switch (c->kind) {
	case BH_BRISC:
		return 0;   /* always 0: the host places a jal to the firmware at L1[0] */
	case BH_NCRISC:
		return t->ncrisc_reset_pc_override & 1 ? t->ncrisc_reset_pc : 0x12000;
	default: {
		unsigned n = c->kind - BH_TRISC0;
		return t->trisc_reset_pc_override >> n & 1 ? t->trisc_reset_pc[n] : trisc_default[n];
	}
	}
}

/* Leaving reset (memory-map.md 4.1): registers zeroed, decoded code dropped, local RAM zeroed
 * unless DISABLE_RESET keeps it, pc from the reset-pc rules. Caller holds tile->lock. */
static void core_leave_reset(struct bh_core *c)
{
	struct bh_tile *t = c->tile;
	memset(c->x, 0, sizeof c->x);
	if (c->start_pc_valid) {
		c->pc = c->start_pc;
		c->start_pc_valid = false;
	} else {
		c->pc = bh_core_reset_pc(c);
	}
	c->instret = 0;
	atomic_store_explicit(&c->instret_snapshot, 0, memory_order_relaxed);
	c->cycle_offset = 0;
	c->instret_offset = 0;
	c->cfg0 = CFG0_RESET;
	memset(c->pmacfg, 0, sizeof c->pmacfg);
	c->l0_model = t->chip->provoke.mask & BH_PROVOKE_L0_CACHE;
	memset(&c->l0, 0, sizeof c->l0);
	memset(c->csr_scratch, 0, sizeof c->csr_scratch);
	memset(c->sstatus, 0, sizeof c->sstatus);
	c->intp_restore_pc = 0;
	c->exit_status = 0;
	c->stopped_exit_status = 0;
	c->reset_by = BH_REQ_HOST;
	c->stopped_instret = 0;
	memset(&c->fault, 0, sizeof c->fault);
	if (!(t->disable_reset >> bh_disable_reset_ldm_bit(c->kind) & 1))
		for (uint32_t off = 0; off < c->ldm_size; off += 4)
			bh_mem_st(c->ldm + off, 4, 0);
	atomic_store_explicit(&t->ldm_zeroed[c->kind], true, memory_order_release);   /* ldm-zeroing */
	atomic_fetch_and_explicit(&c->events, ~(uint32_t)(BH_EV_STOP | BH_EV_FLUSH_ALL | BH_EV_CODE_STALE),
				  memory_order_acq_rel);
	rv32_flush_decoded(c);
	bh_code_invalidated(t, 1u << c->kind);   /* leaving reset invalidates the I-cache */
	memset(&c->spin, 0, sizeof c->spin);
	memset(&c->ttsync, 0, sizeof c->ttsync);
	c->monitoring = false;
	atomic_store_explicit(&c->pc_snapshot, c->pc, memory_order_relaxed);
}

void bh_core_emit_what(struct bh_core *c, enum bh_core_event_kind kind, const char *what, uint32_t addr)
{
	struct bh_hooks *h = &c->tile->chip->hooks;
	if (!bh_hooks_attached(h))
		return;
	struct bh_core_event ev = { .kind = kind, .tile = c->tile->index, .core = (enum bh_core_id)c->kind,
				    .pc = c->pc, .instructions = c->instret, .what = what, .addr = addr };
	bh_hooks_emit_slow(h, &ev);
}

void bh_core_emit(struct bh_core *c, enum bh_core_event_kind kind)
{
	bh_core_emit_what(c, kind, NULL, 0);
}

/* STOPPED, saying how: "exited N", "instruction limit", "reset", or "faulted: <kind>: <why>". */
static void core_emit_stopped(struct bh_core *c)
{
	if (!bh_hooks_attached(&c->tile->chip->hooks))
		return;
	char what[sizeof c->fault.detail + 64];
	switch (c->state) {
	case BH_CORE_EXITED:
		snprintf(what, sizeof what, "exited %u", (unsigned)c->stopped_exit_status);
		break;
	case BH_CORE_FAULTED:
		snprintf(what, sizeof what, "faulted: %s: %s", bh_fault_kind_name(c->fault.kind), c->fault.detail);
		break;
	case BH_CORE_LIMIT:
		snprintf(what, sizeof what, "instruction limit");
		break;
	default:
		snprintf(what, sizeof what, "reset");
		break;
	}
	bh_core_emit_what(c, BH_CORE_EVENT_STOPPED, what, 0);
}

static void *core_thread(void *arg)
{
	struct bh_core *c = arg;
	struct bh_tile *t = c->tile;

	struct bh_actor *act = c->waiter.actor;   /* serial scheduling (sync/sched.h), else NULL */
	const bool own_thread = !bh_fiber_self;  /* sleeps on its own futex (a fiber: its group's) */
	if (own_thread)
		bh_park_thread_added();
	bh_rcu_thread_register();   /* an RCU reader of the hook table (sync/hooks.h) */
	if (act)
		bh_sched_self = act;
	pthread_mutex_lock(&t->lock);
	for (;;) {
		bh_rcu_offline();
		while (!t->shutdown && !(c->restart && !c->held) && !(act && bh_sched_wanted(act))) {
			if (!c->fiber) {
				pthread_cond_wait(&c->cond, &t->lock);
				continue;
			}
			/* A fiber parks instead (its thread runs the tile's other actors): whoever
			 * signals c->cond changes the state under t->lock and bumps the waiter. */
			uint32_t seq = bh_park_seq(&c->waiter);
			if (t->shutdown || (c->restart && !c->held))
				break;
			pthread_mutex_unlock(&t->lock);
			bh_park_sleep(&c->waiter, seq, 0);
			pthread_mutex_lock(&t->lock);
		}
		bh_rcu_online();
		if (act && !t->shutdown) {
			/* Serial: run only with the token; a release taken back meanwhile gives it away. */
			pthread_mutex_unlock(&t->lock);
			bh_sched_enter(act);
			pthread_mutex_lock(&t->lock);
			if (!t->shutdown && !(c->restart && !c->held)) {
				pthread_mutex_unlock(&t->lock);
				bh_sched_leave(act);
				pthread_mutex_lock(&t->lock);
				continue;
			}
		}
		if (t->shutdown)
			break;
		c->restart = false;
		c->ever_ran = true;
		core_leave_reset(c);
		c->state = BH_CORE_RUNNING;
		atomic_store_explicit(&c->waiter.park_state, BH_PARK_NONE, memory_order_release);
		pthread_mutex_unlock(&t->lock);
		bh_chip_state_changed(t->chip);
		bh_core_emit(c, BH_CORE_EVENT_RUNNING);
		/* Provocation: cores released together start in a random order (races.md 3). */
		if (bh_provoke_on(&t->chip->provoke, BH_PROVOKE_SKEW))
			bh_provoke_skew(&t->chip->provoke, bh_provoke_tile_actor(t->index, c->kind));

		enum rv_stop why = rv32_run(c);
		/* A stopped core's held stores land (REORDER); one refused makes the stop a fault. */
		if (c->sq_n && bh_core_sq_drain(c) != BH_ACC_OK && why != RV_STOP_FAULT)
			why = RV_STOP_FAULT;

		pthread_mutex_lock(&t->lock);
		/* A Tensix fault delivered after rv32_run's own check but before this lock (the core
		 * exited or hit its limit meanwhile) is taken here: delivery decides under this lock. */
		if (why != RV_STOP_FAULT && bh_tensix_take_fault(c))
			why = RV_STOP_FAULT;
		c->stopped_exit_status = c->exit_status;
		c->stopped_instret = c->instret;
		switch (why) {
		case RV_STOP_EXIT: c->state = BH_CORE_EXITED; break;
		case RV_STOP_FAULT: c->state = BH_CORE_FAULTED; break;
		case RV_STOP_LIMIT: c->state = BH_CORE_LIMIT; break;
		default: c->state = BH_CORE_IN_RESET; break;   /* event: held, restarting or shutting down */
		}
		/* Active again at once if a release came meanwhile (restart: it runs next). */
		bool again = c->restart && !c->held;
		atomic_store_explicit(&c->waiter.park_state, again ? BH_PARK_NONE : BH_PARK_IDLE, memory_order_release);
		pthread_mutex_unlock(&t->lock);
		bh_chip_state_changed(t->chip);
		core_emit_stopped(c);
		if (act && !again)
			bh_sched_leave(act);   /* serial: off until a release makes it runnable */
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	bh_rcu_thread_unregister();
	if (own_thread)
		bh_park_thread_gone();
	return NULL;
}

int bh_core_thread_start(struct bh_core *c)
{
	if (c->tile->fibers) {
		/* c->fiber is set before the fiber runs: core_thread reads it first thing. */
		c->fiber = bh_fiber_start(c->tile->fibers, &c->waiter, core_thread, c, 256 * 1024);
		if (!c->fiber)
			return ENOMEM;
		c->thread_started = true;
		return 0;
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);   /* the interpreter needs little stack */
	int rc = pthread_create(&c->thread, &attr, core_thread, c);
	pthread_attr_destroy(&attr);
	if (rc == 0)
		c->thread_started = true;
	return rc;
}

/* Decoded code on the page of an L1 write: the writer drops its own copy now (its interpreter
 * re-decodes the next instruction from memory); other cores are told through their stale-page
 * bits and pick it up at their next event check. With stale-icache every core keeps its copy
 * until its next I-cache invalidate (rv32_invalidate_decoded drops the pages kept). */
static void core_code_stale(struct bh_tile *t, struct bh_core *writer, uint32_t addr, uint32_t len)
{
	unsigned page = addr >> BH_L1_PAGE_SHIFT;
	unsigned mask = atomic_load_explicit(&t->code_pages[page], memory_order_relaxed);
	bool keep = t->chip->provoke.mask & BH_PROVOKE_STALE_ICACHE;
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
		if (!(mask >> k & 1))
			continue;
		struct bh_core *c = t->core[k];
		if (__builtin_expect(keep, 0)) {
			uint32_t bit = 1u << (page % 32);
			if (!(atomic_fetch_or_explicit(&c->icache_kept[page / 32], bit, memory_order_relaxed) & bit))
				atomic_fetch_add_explicit(&t->chip->provoke.stats[BH_PSTAT_STALE_KEPT], 1, memory_order_relaxed);
			continue;
		}
		if (c == writer) {
			rv32_code_overwritten(c, page);
			continue;
		}
		atomic_fetch_or_explicit(&c->stale_pages[page / 32], 1u << (page % 32), memory_order_relaxed);
		atomic_fetch_or_explicit(&c->events, BH_EV_CODE_STALE, memory_order_release);
	}
}

/* atomic-into-code for an AMO of `c` (races.md 30): its word was executed since the last I-cache
 * invalidate by a running core of the tile (c itself included). True in stop mode, *f filled. */
static bool core_amo_into_code(struct bh_core *c, uint32_t addr, struct bh_fault *f)
{
	struct bh_tile *t = c->tile;
	uint32_t word = 0;
	int k = -1;
	if (bh_checks_on(&t->chip->checks, BH_CHECK_ATOMIC_INTO_CODE))
		k = bh_code_executed_by(t, addr, 4, &word);
	if (k < 0)
		return false;
	const char *victim = bh_core_kind_name((enum bh_core_kind)k);
	char other[64];
	snprintf(other, sizeof other, "%s (running), which executed 0x%08x", victim, word);
	bh_check_fill(f, BH_CHECK_ATOMIC_INTO_CODE, addr, "L1", other,
		      "%s AMO on 0x%08x lands in code %s ran since its last I-cache invalidate: a semaphore there aliases "
		      "kernel text", bh_core_kind_name(c->kind), addr, victim);
	f->pc = c->pc;
	f->insn = bh_mem_ld(t->l1 + c->pc, 4);
	f->has_addr = true;
	f->is_store = true;
	f->size = 4;
	return bh_check_found(&t->chip->checks, t->index, c->kind, f);
}

/* A core's store (or AMO) hit a page whose code_pages byte is non-zero: the code checks see it,
 * then stale code is dropped, then the parked cores whose watched words overlap the store are
 * woken. The store's pc is in writer->pc. */
bool bh_core_code_written(struct bh_tile *t, struct bh_core *writer, uint32_t addr, uint32_t len, bool amo)
{
	bool stop = false;
	if (t->code) {
		struct bh_fault f;
		struct bh_l1_writer w = { .core = writer->kind, .pc = writer->pc };
		stop = amo && core_amo_into_code(writer, addr, &f);
		if (!stop)
			stop = bh_code_written(t, &w, addr, len, &f);
		if (stop)
			writer->fault = f;
	}
	core_code_stale(t, writer, addr, len);
	unsigned mask = atomic_load_explicit(&t->code_pages[addr >> BH_L1_PAGE_SHIFT], memory_order_relaxed);
	if (mask & BH_PAGE_WATCHED)
		bh_watch_l1_written(t, addr, len, writer->kind);
	return stop;
}

bool bh_core_l1_stored(struct bh_core *c, uint32_t addr, unsigned size, bool amo)
{
	struct bh_tile *t = c->tile;
	if (bh_core_code_written(t, c, addr, size, amo))
		return false;
	unsigned mask = atomic_load_explicit(&t->code_pages[addr >> BH_L1_PAGE_SHIFT], memory_order_relaxed);
	if ((mask & BH_PAGE_INFLIGHT) && !bh_inflight_store(t, c->kind, addr, size, c->pc, &c->fault))
		return false;
	if (mask & BH_PAGE_WATCHED)
		bh_sched_point();   /* serial: a store to a page of watched words is a scheduling point */
	/* cb-ownership: a producer's store into a page its consumer still holds. */
	struct bh_fault f;
	if (!(mask & BH_PAGE_CB) || !bh_stream_cb_store_check(t, c->kind, addr, size, &f))
		return true;
	f.pc = c->pc;
	f.insn = c->pc < BH_L1_SIZE && !(c->pc & 3) ? bh_mem_ld(t->l1 + c->pc, 4) : 0;
	if (!bh_check_found(&t->chip->checks, t->index, c->kind, &f))
		return true;
	c->fault = f;
	return false;
}

/* ---------------------------------------------------------------------------------------------
 * ttsync-load (races.md #16, sync.md 4): after a TRISC starts a load from PC_BUF_BASE + 4 or + 8
 * (Manual TTSync), it must not start another load from the PCBuf or mailbox range until the first
 * finished: until an instruction used its result, or 7 other instructions ran. The core's
 * pipeline is not modelled, so the check reads the instructions between the two loads from L1
 * when they ran in a straight line (as many retired as lie between the two pcs); a path with a
 * jump between is not judged.
 */

#define TTSYNC_GAP 7u
#define PCBUF_RANGE_BASE 0xFFE80000u
#define PCBUF_RANGE_SIZE 0x30000u
#define MAILBOX_RANGE_BASE 0xFFEC0000u
#define MAILBOX_RANGE_SIZE 0x4000u

/* Whether instruction word w reads integer register r (x0 counts as read by nobody). */
static bool insn_reads(uint32_t w, unsigned r)
{
	unsigned rs1 = w >> 15 & 31, rs2 = w >> 20 & 31;
	if (r == 0 || (w & 3) != 3)
		return false;   /* .ttinsn: a constant pushed */
	switch (w & 0x7F) {
	case 0x03: case 0x13: case 0x67:   /* loads, OP-IMM, jalr */
		return rs1 == r;
	case 0x23: case 0x63: case 0x33: case 0x2F:   /* stores, branches, OP, AMO */
		return rs1 == r || rs2 == r;
	case 0x73:   /* ecall reads its arguments; csrrw/s/c read rs1, the immediate forms nothing */
		return !(w >> 12 & 7) || (!(w >> 14 & 1) && rs1 == r);
	default:     /* lui, auipc, jal, fence */
		return false;
	}
}

/* Whether the instructions between the TTSync load s and the load at c->pc used its result; true
 * too when they did not run in a straight line (not judged). */
static bool ttsync_result_used(const struct bh_core *c, const struct bh_ttsync_load *s, uint64_t between)
{
	if (c->pc - s->pc != 4 * (between + 1) || s->pc >= BH_L1_SIZE || c->pc > BH_L1_SIZE)
		return true;
	unsigned rd = bh_mem_ld(c->l1 + s->pc, 4) >> 7 & 31;
	for (uint32_t pc = s->pc + 4; pc < c->pc; pc += 4)
		if (insn_reads(bh_mem_ld(c->l1 + pc, 4), rd))
			return true;
	return false;
}

/* At a TRISC's load from addr in the PCBuf or mailbox range: judge it against the last TTSync
 * load, then remember it if it is one. Returns true when the core must stop (c->fault holds the
 * finding). */
__attribute__((cold, noinline))
static bool ttsync_load_check(struct bh_core *c, uint32_t addr)
{
	struct bh_ttsync_load *s = &c->ttsync;
	struct bh_tile *t = c->tile;
	if (s->flagged == c->instret + 1)
		return true;   /* the flagged load again (c->fault still holds its finding) */
	if (s->valid && s->instret == c->instret)
		return false;  /* the TTSync load itself again, after it blocked */
	uint64_t between = c->instret - s->instret - 1;
	bool found = s->valid && between < TTSYNC_GAP && !ttsync_result_used(c, s, between);
	uint32_t off = addr - PCBUF_RANGE_BASE;
	bool ttsync = off == 4 || off == 8;
	if (found) {
		struct bh_fault f;
		char dis[64], other[192];
		const struct bh_region *reg = bh_mmio_region(t, addr);
		uint32_t first = bh_mem_ld(c->l1 + s->pc, 4);
		rv32_disasm(first, s->pc, dis, sizeof dis);
		snprintf(other, sizeof other, "the TTSync load at pc 0x%08x (%s) from 0x%08x (%s), %u instruction%s "
			 "before, its result unused since", s->pc, dis, s->addr,
			 s->addr - PCBUF_RANGE_BASE == 4 ? "CoprocessorDoneCheck" : "MOPExpanderDoneCheck", (unsigned)between,
			 between == 1 ? "" : "s");
		bh_check_fill(&f, BH_CHECK_TTSYNC_LOAD, addr, reg ? reg->name : NULL, other,
			      "a load from the %s range started while a TTSync load may still be outstanding (wrong values "
			      "or a hang on silicon, sync.md 4): use its result or run %u other instructions first",
			      off < PCBUF_RANGE_SIZE ? "PCBuf" : "mailbox", TTSYNC_GAP);
		f.pc = c->pc;
		f.insn = c->pc < BH_L1_SIZE && !(c->pc & 3) ? bh_mem_ld(c->l1 + c->pc, 4) : 0;
		f.has_addr = true;
		f.size = 4;
		if (bh_check_found(&t->chip->checks, t->index, c->kind, &f)) {
			c->fault = f;
			s->flagged = c->instret + 1;
			return true;
		}
	}
	s->valid = ttsync;
	s->pc = c->pc;
	s->addr = addr;
	s->instret = c->instret;
	return false;
}

/* ---------------------------------------------------------------------------------------------
 * REORDER (races.md #21, riscv-cores.md 4): a core's store queue lets its loads of other
 * addresses overtake older stores, and requests to different regions complete out of order, so a
 * store to one stream register followed by a load of another may read the state before the
 * store. Under the provocation a RISC-V core's store to a modelled, writable stream register may
 * wait in the queue; it lands, in program order with the other held stores, at the core's next
 * access to the same word, its next device store of any other kind, when it parks (a poll loop or
 * a blocked access), stops or resets, and at the periodic event check (4096 instructions). A
 * load of the written register itself (the documented fix: read back the last-written register)
 * always sees it. L1 accesses never wait for the queue, as on silicon.
 */
int bh_core_sq_drain(struct bh_core *c)
{
	unsigned n = c->sq_n;
	c->sq_n = 0;
	for (unsigned k = 0; k < n; k++) {
		uint32_t v = c->sq[k].val;
		c->fault.pc = c->sq[k].pc;
		int r = bh_mmio_access(c->tile, c->kind, c->sq[k].addr, 4, true, &v, &c->fault, NULL, 0);
		if (r != BH_ACC_OK) {
			size_t len = strlen(c->fault.detail);
			snprintf(c->fault.detail + len, sizeof c->fault.detail - len,
				 " (the store at pc 0x%08x, held in the store queue by --provoke reorder)", c->sq[k].pc);
			return BH_ACC_FAULT;   /* the stores after it are dropped with the core */
		}
	}
	return BH_ACC_OK;
}

/* A 4-byte store to a stream register the model writes (REMOTE_SRC, BUF_START, BUF_SIZE, the
 * phase registers, the SPACE_AVAILABLE update): one that never blocks. */
static bool sq_holds(uint32_t addr, unsigned size)
{
	if (size != 4 || (addr & 3) || addr - BH_STREAM_BASE >= BH_STREAM_COUNT * BH_STREAM_STRIDE)
		return false;
	switch ((addr - BH_STREAM_BASE) % BH_STREAM_STRIDE / 4) {
	case BH_STREAM_REG_REMOTE_SRC: case BH_STREAM_REG_REMOTE_DEST_BUF_START:
	case BH_STREAM_REG_REMOTE_DEST_BUF_SIZE: case BH_STREAM_REG_CURR_PHASE_BASE: case BH_STREAM_REG_CURR_PHASE:
	case BH_STREAM_REG_PHASE_AUTO_CFG_PTR: case BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE:
		return true;
	default:
		return false;
	}
}

static bool sq_overlaps(const struct bh_core *c, uint32_t addr, unsigned size)
{
	for (unsigned k = 0; k < c->sq_n; k++)
		if (addr < c->sq[k].addr + 4 && c->sq[k].addr < addr + size)
			return true;
	return false;
}

/* A device store under REORDER: *held set when it waits in the queue. Older held stores land
 * first when it does not wait, or when the queue is full. BH_ACC_OK or a held store's fault. */
static int sq_store(struct bh_core *c, uint32_t addr, unsigned size, uint32_t val, bool *held)
{
	struct bh_provoke *p = &c->tile->chip->provoke;
	*held = sq_holds(addr, size) && bh_provoke_reorder(p, bh_provoke_tile_actor(c->tile->index, c->kind));
	if ((!*held || c->sq_n == 4) && c->sq_n && bh_core_sq_drain(c) != BH_ACC_OK) {
		*held = false;
		return BH_ACC_FAULT;
	}
	if (*held)
		c->sq[c->sq_n++] = (struct bh_sq_entry){ addr, val, c->pc };
	return BH_ACC_OK;
}

/* A device access of the core: the NIU windows' lane (most NoC request registers), else the
 * general decode. */
static inline __attribute__((always_inline)) int core_device_access(struct bh_core *c, uint32_t addr, unsigned size, bool store, uint32_t *val)
{
	int r = bh_niu_lane(addr, size) ? bh_niu_core_access(c->tile, c->kind, addr, store, val, &c->fault, c->wait_what,
							     sizeof c->wait_what) : BH_NIU_LANE_GENERAL;
	if (r == BH_NIU_LANE_GENERAL)
		r = bh_mmio_access(c->tile, c->kind, addr, size, store, val, &c->fault, c->wait_what, sizeof c->wait_what);
	return r;
}

/* The lanes' access of core c to region r: what the decode builds for it, field by field (an
 * initializer would also zero the padding, on every access of the lanes). */
static inline __attribute__((always_inline)) void lane_access(struct bh_access *a, struct bh_core *c,
							       const struct bh_region *r, uint32_t addr)
{
	_Static_assert(sizeof(struct bh_access) == 72, "struct bh_access changed: set its new fields here");
	a->dev = r->state ? r->state(c->tile) : c->tile;
	a->tile = c->tile;
	a->who = c->kind;
	a->addr = addr;
	a->off = addr - r->base;
	a->size = 4;
	a->region = r;
	a->fault = &c->fault;
	a->blocked = false;
	a->wait_what = c->wait_what;
	a->wait_len = sizeof c->wait_what;
	a->tensix = 0;
}

/* The load side of the device lane (mem_store_direct below): a core's 4-byte load from a region
 * served by `rd`, after bh_mem_load_slow's scheduling point and with block_seq and fault.pc set,
 * reaches the device directly when the decode (fabric/mmio.c) would find that region and admit
 * the load, with the same bh_access; MEM_LANE_GENERAL otherwise (a requester the region refuses,
 * a misaligned load, the provoked late access), for the general path. */
#define MEM_LANE_GENERAL (-1)
static inline __attribute__((always_inline)) int mem_load_direct(struct bh_core *c, uint32_t addr, uint32_t *val,
								 bh_dev_read_fn rd)
{
	struct bh_tile *t = c->tile;
	const struct bh_region *r = bh_mmio_region(t, addr);
	if (!r || r->read != rd || !(r->read_mask & BH_REQ_BIT(c->kind)) || !(r->widths & 16) || (addr & 3) ||
	    t->chip->provoke.mmio)
		return MEM_LANE_GENERAL;
	struct bh_access a;
	lane_access(&a, c, r, addr);
	return rd(&a, val) ? BH_ACC_OK : bh_access_result(&a, false, false);
}

/* Slow-path accesses read wake_seq first, so that a device that blocks the core (and registers
 * it as a waiter) cannot miss the wake-up that arrives before the core sleeps. */
int bh_mem_load_slow(struct bh_core *c, uint32_t addr, unsigned size, uint32_t *val)
{
	/* A load sees the core's own older stores to its bytes (REORDER). */
	if (c->sq_n && sq_overlaps(c, addr, size) && bh_core_sq_drain(c) != BH_ACC_OK)
		return BH_ACC_FAULT;
	bh_sched_point();   /* serial: a device access is a scheduling point */
	/* A CMD_CTRL poll or a NoC counter (a barrier's poll) never blocks and never faults: its
	 * value, without what an access that may needs (fabric/niu.h). */
	if (bh_niu_lane(addr, size) && bh_niu_core_load(c->tile, c->kind, addr, c->pc, val)) {
		if (c->tt_deferred)
			bh_tensix_drain(c);   /* after the access: it saw them pending */
		return BH_ACC_OK;
	}
	c->block_seq = bh_park_seq(&c->waiter);
	c->fault.pc = c->pc;   /* the access's pc, for checks that log and go on (fabric/check.h) */
	if (c->kind >= BH_TRISC0 &&
	    (addr - PCBUF_RANGE_BASE < PCBUF_RANGE_SIZE || addr - MAILBOX_RANGE_BASE < MAILBOX_RANGE_SIZE) &&
	    bh_checks_on(&c->tile->chip->checks, BH_CHECK_TTSYNC_LOAD) && ttsync_load_check(c, addr))
		return BH_ACC_FAULT;
	/* A stream register (a CB's counters: every cb_wait_front and cb_reserve_back polls one). */
	int r = addr - BH_STREAM_BASE < BH_STREAM_COUNT * BH_STREAM_STRIDE && size == 4
			? mem_load_direct(c, addr, val, bh_stream_mmio_read) : MEM_LANE_GENERAL;
	if (r == MEM_LANE_GENERAL)
		r = core_device_access(c, addr, size, false, val);
	if (c->tt_deferred && r == BH_ACC_OK)
		bh_tensix_drain(c);   /* after the access: it saw them pending */
	/* About to park on a device: what it waits for may need its held stores (REORDER). */
	if (r == BH_ACC_BLOCKED && c->sq_n && bh_core_sq_drain(c) != BH_ACC_OK)
		return BH_ACC_FAULT;
	return r;
}

/* A device store after its scheduling point (no plain NIU register, or one the NIU lane left to
 * the general decode). */
__attribute__((noinline))
static int mem_store_device(struct bh_core *c, uint32_t addr, unsigned size, uint32_t val)
{
	c->block_seq = bh_park_seq(&c->waiter);
	c->fault.pc = c->pc;   /* the access's pc, for checks that log and go on (fabric/check.h) */
	int r = core_device_access(c, addr, size, true, &val);
	/* A store that put this core in reset (its own SOFT_RESET_0 bit) takes effect at the store:
	 * leave through the blocked path, which sees the stop event and stops here. The event is set
	 * before the store returns (release in bh_tile_soft_reset_write). */
	if (r == BH_ACC_OK && (atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP))
		return BH_ACC_BLOCKED;
	/* Deferred Tensix words execute after any other device access (which saw them pending);
	 * a run of pushes stays queued. */
	if (c->tt_deferred && r == BH_ACC_OK && addr - BH_TT_PUSH_BASE >= BH_TT_PUSH_SPAN)
		bh_tensix_drain(c);
	return r;
}

/* A device store (past REORDER's queue when that is on): its scheduling point, then a plain NIU
 * register (most stores of a NoC request), which never blocks and never stops the core: the
 * value, announced (fabric/niu_lane.h); else the device. */
__attribute__((noinline))
static int mem_store_point(struct bh_core *c, uint32_t addr, unsigned size, uint32_t val)
{
	bh_sched_point();
	if (bh_niu_lane(addr, size) && bh_niu_store_plain(c->tile, c->kind, addr, val, c->pc)) {
		if (c->tt_deferred)
			bh_tensix_drain(c);
		return BH_ACC_OK;
	}
	return mem_store_device(c, addr, size, val);
}

/* REORDER on: the store may wait in the queue, or older held ones land first. */
__attribute__((cold, noinline))
static int mem_store_reorder(struct bh_core *c, uint32_t addr, unsigned size, uint32_t val)
{
	bool held;
	int q = sq_store(c, addr, size, val, &held);
	if (q != BH_ACC_OK || held)
		return q;
	return mem_store_point(c, addr, size, val);
}

/* Any store of the slow path: REORDER's queue, else mem_store_point. */
__attribute__((noinline))
static int mem_store_general(struct bh_core *c, uint32_t addr, unsigned size, uint32_t val)
{
	if (__builtin_expect(c->tile->chip->provoke.mask & BH_PROVOKE_REORDER, 0))
		return mem_store_reorder(c, addr, size, val);
	return mem_store_point(c, addr, size, val);
}

/* A device lane: a core's 4-byte store that the caller found in a region served by `wr` (a Tensix
 * push window, a stream register), with nothing else due (no store queue, no scheduling point;
 * deferred Tensix words only before a push, which leaves them queued as mem_store_device does),
 * reaches the device directly: what mem_store_device and the decode (fabric/mmio.c) would do for
 * it, in the same order, when the decode would find that region and admit the store; anything
 * else (a requester the region refuses, a narrow or misaligned store, the provoked late access)
 * takes the general path. */
__attribute__((noinline))
static int mem_store_direct(struct bh_core *c, uint32_t addr, uint32_t val, bh_dev_write_fn wr)
{
	struct bh_tile *t = c->tile;
	const struct bh_region *r = bh_mmio_region(t, addr);
	if (!r || r->write != wr || !(r->write_mask & BH_REQ_BIT(c->kind)) || !(r->widths & 16) || (addr & 3) ||
	    t->chip->provoke.mmio)
		return mem_store_device(c, addr, 4, val);
	c->block_seq = bh_park_seq(&c->waiter);
	c->fault.pc = c->pc;
	struct bh_access a;
	lane_access(&a, c, r, addr);
	if (!wr(&a, val))
		return bh_access_result(&a, false, true);
	if (atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP)
		return BH_ACC_BLOCKED;   /* as mem_store_device */
	return BH_ACC_OK;
}

int bh_mem_store_device(struct bh_core *c, uint32_t addr, unsigned size, uint32_t val)
{
	return mem_store_device(c, addr, size, val);
}

int bh_mem_store_issue(struct bh_core *c, uint32_t addr, uint32_t val)
{
	c->fault.pc = c->pc;
	int r = bh_niu_core_issue(c->tile, c->kind, addr, val, &c->fault);
	/* As mem_store_device: a stop that came meanwhile is taken at the store. */
	if (r == BH_ACC_OK && (atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP))
		return BH_ACC_BLOCKED;
	return r;
}

int bh_mem_store_slow(struct bh_core *c, uint32_t addr, unsigned size, uint32_t val)
{
	/* The lanes below take a store with no store queue and no scheduling point due. */
	if ((c->tile->chip->provoke.mask & BH_PROVOKE_REORDER) || bh_sched_active())
		return mem_store_general(c, addr, size, val);
	/* A Tensix push (its deferred words stay queued behind it). */
	if (addr - BH_TT_PUSH_BASE < BH_TT_PUSH_SPAN && size == 4)
		return mem_store_direct(c, addr, val, bh_tensix_push_write);
	/* Other device stores execute deferred Tensix words after them (mem_store_device). */
	if (c->tt_deferred)
		return mem_store_point(c, addr, size, val);
	/* The plain NIU register (no watched register): stored without a call. */
	if (bh_niu_lane(addr, size)) {
		if (bh_niu_store_plain_leaf(c->tile, c->kind, addr, val, c->pc))
			return BH_ACC_OK;
		int r = bh_mem_store_issue(c, addr, val);
		if (r != BH_NIU_LANE_GENERAL)
			return r;
		/* Other CMD_CTRL stores, a finding, a watched register: the device (the NIU's own lane,
		 * fabric/niu.h) without a second try here. */
		return mem_store_device(c, addr, size, val);
	}
	/* A stream register (TRISC0 zeroes both counters of every CB stream at each launch). */
	if (addr - BH_STREAM_BASE < BH_STREAM_COUNT * BH_STREAM_STRIDE && size == 4)
		return mem_store_direct(c, addr, val, bh_stream_mmio_write);
	return mem_store_point(c, addr, size, val);
}

void bh_l0_flush(struct bh_core *c)
{
	memset(c->l0.tag, 0, sizeof c->l0.tag);
}

uint32_t bh_l0_load(struct bh_core *c, uint32_t addr, unsigned size)
{
	uint32_t now = bh_mem_ld(c->l1 + addr, size);
	if (!bh_core_l0_on(c))
		return now;
	struct bh_l0 *l = &c->l0;
	struct bh_chip *chip = c->tile->chip;
	if (!(c->cfg0 & BH_CFG0_DIS_LOW_CACHE_FLUSH) && l->until_flush-- == 0) {
		bh_l0_flush(c);
		struct bh_rng *r = &chip->provoke.stream[bh_provoke_tile_actor(c->tile->index, c->kind)].rng;
		l->until_flush = (uint32_t)bh_rng_below(r, 250);
	}
	uint32_t line = addr & ~15u;
	unsigned k = 0;
	while (k < 4 && l->tag[k] != line + 1)
		k++;
	if (k == 4) {
		k = l->next;
		l->next = (k + 1) & 3;
		l->tag[k] = line + 1;
		for (unsigned w = 0; w < 16; w += 4) {
			uint32_t v = bh_mem_ld(c->l1 + line + w, 4);
			memcpy(&l->data[k][w], &v, 4);
		}
	}
	uint32_t v = 0;
	memcpy(&v, &l->data[k][addr & 15], size);   /* little-endian, as the core */
	if (v != now)
		atomic_fetch_add_explicit(&chip->provoke.stats[BH_PSTAT_L0_STALE], 1, memory_order_relaxed);
	return v;
}

void bh_l0_store(struct bh_core *c, uint32_t addr)
{
	for (unsigned k = 0; k < 4; k++)
		if (c->l0.tag[k] == (addr & ~15u) + 1)
			c->l0.tag[k] = 0;
}

bool bh_core_block(struct bh_core *c)
{
	/* Parked on a device: sleep until a waker or an event (reset, shutdown) moves wake_seq. */
	/* The events word is set before wake_seq moves (pairs with the release in the senders):
	 * a stop that happened before block_seq was read is seen here, not slept through. */
	if (atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP)
		return true;
	/* What it waits for may be its own deferred Tensix words (a TTSync, a full FIFO): run them
	 * and retry the access. */
	if (c->tt_deferred && bh_tensix_drain(c))
		return false;
	atomic_store_explicit(&c->waiter.park_state, BH_PARK_BLOCKED, memory_order_release);
	bh_core_emit_what(c, BH_CORE_EVENT_PARKED, "device access", 0);
	bh_noc_engine_nudge(c->tile->chip->noc);   /* what it waits for may be in flight */
	bh_park_sleep(&c->waiter, c->block_seq, 0);
	atomic_store_explicit(&c->waiter.park_state, BH_PARK_NONE, memory_order_relaxed);
	bh_core_emit(c, BH_CORE_EVENT_WOKEN);
	return atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP;
}

void bh_tile_flush_decoded(struct bh_tile *t, unsigned core_mask)
{
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		if (core_mask >> k & 1)
			atomic_fetch_or_explicit(&t->core[k]->events, BH_EV_FLUSH_ALL, memory_order_release);
}
