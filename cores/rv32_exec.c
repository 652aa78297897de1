/* The RV32 interpreter: threaded dispatch (computed goto) over pages of pre-decoded
 * instructions. Each core decodes lazily into its own pages (one per 4 KiB of L1), so the hot
 * path touches no shared structure except L1 itself. Stores into L1 pages that hold decoded
 * code are caught by one relaxed byte load (tile->code_pages) and handled out of line.
 *
 * Hot path rules: no locks, no calls except on the slow paths, every check branch-predictable. */
#include <stdlib.h>
#include <string.h>

#include "cores/core.h"
#include "cores/rv32_insns.h"
#include "cores/rv32_jit.h"
#include "cores/rv32_page.h"
#include "cores/tensix.h"
#include "fabric/chip.h"
#include "fabric/code.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/fiber.h"
#include "sync/hooks.h"
#include "sync/sched.h"
#include "sync/watch.h"

/* The core leaves the interpreter to look at its events at least this often (instructions,
 * counted at taken jumps and page ends). */
#define RV_CHECK_INTERVAL 4096u

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* Interpreter variants (macros: rv32_run.inc tests them with #if); see rv32_run.inc. */
#define RV_FAST 0
#define RV_MONITOR 1
#define RV_EXACT 2
#define RV_LOADCHK 3
_Static_assert(RV_VARIANTS == 4, "bh_core.pages has one table per interpreter variant");
/* Instructions a suspected poll loop may run in the monitor variant before it gives up. */
#define RV_MONITOR_BUDGET 2048u

/* Handler addresses of each interpreter variant, published on its first call so that pages can
 * be reset to "decode me" outside it. Written with the same value by any thread. */
static const void *_Atomic rv_decode_handler[RV_VARIANTS];
static const void *_Atomic rv_page_end_handler[RV_VARIANTS];
static const void *_Atomic rv_remark_handler[RV_VARIANTS];

const void *rv32_remark_handler(unsigned variant)
{
	return atomic_load_explicit(&rv_remark_handler[variant], memory_order_relaxed);
}

/* The compiled entries go (only where the block compiler set some since they last went: a launch
 * arms every page its firmware runs, and most were never compiled). */
static void rv_page_jit_clear(struct rv_page *pg)
{
	if (pg->jit && pg->jit_dirty && pg->lo <= pg->hi)
		memset(&pg->jit[pg->lo], 0, (size_t)(pg->hi - pg->lo + 1) * sizeof *pg->jit);
	pg->jit_dirty = false;
}

void rv32_page_reset(struct rv_page *pg)
{
	const void *dec = atomic_load_explicit(&rv_decode_handler[pg->variant], memory_order_relaxed);
	for (unsigned k = pg->lo; k <= pg->hi; k++) {
		pg->insn[k].h = dec;
		pg->insn[k].op = RV_OP_decode;
	}
	pg->insn[RV_PAGE_INSNS].h = atomic_load_explicit(&rv_page_end_handler[pg->variant], memory_order_relaxed);
	pg->insn[RV_PAGE_INSNS].op = RV_OP_page_end;
	rv_page_jit_clear(pg);
	pg->lo = RV_PAGE_INSNS;
	pg->hi = 0;
	memset(pg->live, 0, sizeof pg->live);
}

__attribute__((cold, noinline))
static struct rv_page *rv_page_alloc(struct bh_core *c, uint32_t pc, unsigned variant)
{
	struct rv_page *pg = aligned_alloc(64, (sizeof(struct rv_page) + 63) & ~(size_t)63);
	if (!pg)
		abort();   /* host out of memory: nothing sensible left to emulate */
	pg->base = pc & ~((1u << BH_L1_PAGE_SHIFT) - 1);
	pg->variant = variant;
	pg->jit = NULL;
	pg->jit_dirty = false;
	pg->rewritten = false;
	pg->dropped_at = 0;
	pg->lo = 0;                   /* a new page: every slot */
	pg->hi = RV_PAGE_INSNS - 1;
	pg->armed = c->ic_epoch;      /* nothing decoded: nothing to arm */
	rv32_page_reset(pg);
	c->pages[variant][pc >> BH_L1_PAGE_SHIFT] = pg;
	c->npages++;
	return pg;
}

/* Drop the decoded copies of one page: slots go back to "decode me" (pages stay allocated, so
 * an interpreter pointer into one stays valid and simply re-decodes). */
void rv32_drop_page(struct bh_core *c, unsigned page)
{
	for (unsigned v = 0; v < RV_VARIANTS; v++)
		if (c->pages[v][page])
			rv32_page_reset(c->pages[v][page]);
	/* The byte is shared with the tile's other cores: write it only when the bit is set. */
	if (atomic_load_explicit(&c->code_pages[page], memory_order_relaxed) & (1u << c->kind))
		atomic_fetch_and_explicit(&c->code_pages[page], (uint8_t)~(1u << c->kind), memory_order_relaxed);
}

uint32_t rv32_kept_word(const struct bh_core *c, uint32_t pc, uint32_t l1_word)
{
	unsigned page = pc >> BH_L1_PAGE_SHIFT, slot = (pc & ((1u << BH_L1_PAGE_SHIFT) - 1)) >> 2;
	for (unsigned v = 0; v < RV_VARIANTS; v++) {
		const struct rv_page *pg = c->pages[v][page];
		if (pg && pg->insn[slot].op != RV_OP_decode)
			return pg->raw[slot];
	}
	return l1_word;
}

/* Code in the page was overwritten (not a flush of everything): the block compiler leaves pages
 * that keep changing to the interpreter for a while. */
void rv32_code_overwritten(struct bh_core *c, unsigned page)
{
	struct rv_page *pg = c->pages[0][page];
	if (pg) {
		pg->rewritten = true;
		pg->dropped_at = c->instret;
	}
	rv32_drop_page(c, page);
}

/* Keep the page's decoded slots across an I-cache invalidate, each to be marked executed again by
 * the code checks when it next runs (op_remark, cores/rv32_run.inc); compiled entries go (compiled
 * code would run the words without marking them). Owner thread only, when the interpreter enters
 * the page after the invalidate (rv32_page_enter), so that pages it does not run again, and the
 * other interpreter variants' copies, cost the invalidate nothing. */
void rv32_page_arm(const struct bh_core *c, struct rv_page *pg)
{
	pg->armed = c->ic_epoch;
	const void *remark = atomic_load_explicit(&rv_remark_handler[pg->variant], memory_order_relaxed);
	if (!remark)
		return;   /* the variant never ran: nothing decoded */
	/* The code checks: the page of the words op_remark marks (bh_code_fetch_word) is marked once
	 * here, before any of them. */
	if (c->code_row.exec)
		for (unsigned w = 0; w < RV_PAGE_INSNS / 64; w++)
			if (pg->live[w]) {
				bh_code_page_mark(&c->code_row, pg->base >> BH_L1_PAGE_SHIFT);
				break;
			}
	/* Only the slots that got a handler since the last arm: the others still hold op_remark
	 * (or op_decode), and the firmware of a launch runs a small part of its decoded pages. Stores
	 * only (a slot is not read: stores to lines not in the cache do not stall, and a launch arms
	 * some hundred slots of every core): a live slot whose decoding never finished keeps op
	 * RV_OP_decode, which op_remark hands to op_decode either way. */
	for (unsigned w = 0; w < RV_PAGE_INSNS / 64; w++) {
		for (uint64_t bits = pg->live[w]; bits; bits &= bits - 1)
			pg->insn[w * 64 + (unsigned)__builtin_ctzll(bits)].h = remark;
		pg->live[w] = 0;
	}
	rv_page_jit_clear(pg);
}

void rv32_invalidate_decoded(struct bh_core *c)
{
	/* stale-icache: the pages written while the core kept running their old code go now. */
	if (c->tile->chip->provoke.mask & BH_PROVOKE_STALE_ICACHE)
		for (unsigned w = 0; w < BH_L1_PAGES / 32; w++)
			for (uint32_t bits = atomic_exchange_explicit(&c->icache_kept[w], 0, memory_order_acq_rel); bits;
			     bits &= bits - 1)
				rv32_code_overwritten(c, w * 32 + (unsigned)__builtin_ctz(bits));
	/* The decoded slots hold what L1 holds: every write into a page with decoded code drops them
	 * (core_code_stale, the stale pages just handled). The invalidate restarts what the code
	 * checks count as executed: the kept slots are marked again as they run (op_remark), and each
	 * compares its word with L1 first, so a write the model did not see as one is picked up here
	 * with or without the checks. A launch re-decodes nothing of its firmware. Every page is
	 * armed for that when the interpreter next enters it (rv32_page_enter): the interpreter
	 * handles this event at a jump that leaves through its lookup, where that happens. */
	c->ic_epoch++;
}

void rv32_flush_decoded(struct bh_core *c)
{
	/* Only pages this core decoded since their last drop hold anything (decode sets the core's
	 * code_pages bit first, a drop clears it last), and they are among those code_seen lists:
	 * a few bits instead of three page tables, for every core at every launch. */
	for (unsigned w = 0; w < sizeof c->code_seen / sizeof c->code_seen[0]; w++) {
		for (uint64_t bits = c->code_seen[w]; bits; bits &= bits - 1) {
			unsigned p = w * 64 + (unsigned)__builtin_ctzll(bits);
			if (atomic_load_explicit(&c->code_pages[p], memory_order_relaxed) & (1u << c->kind))
				rv32_drop_page(c, p);
		}
		c->code_seen[w] = 0;
	}
	for (unsigned w = 0; w < BH_L1_PAGES / 32; w++) {
		atomic_store_explicit(&c->stale_pages[w], 0, memory_order_relaxed);
		atomic_store_explicit(&c->icache_kept[w], 0, memory_order_relaxed);
	}
}

void rv32_free_decoded(struct bh_core *c)
{
	rv32_jit_free(c);
	if (!c->npages)
		return;   /* never ran: its tables were never touched (nor are they now) */
	c->npages = 0;
	for (unsigned v = 0; v < RV_VARIANTS; v++)
		for (unsigned p = 0; p < BH_L1_PAGES; p++) {
			if (c->pages[v][p])
				free(c->pages[v][p]->jit);
			free(c->pages[v][p]);
			c->pages[v][p] = NULL;
		}
}

/* Events from other threads. Returns true when the core must leave the interpreter. */
__attribute__((cold, noinline))
static bool rv_handle_events(struct bh_core *c)
{
	/* Every periodic check passes here: between two the core holds no hook pointer. */
	bh_rcu_quiescent();
	bh_sched_point();   /* serial scheduling: the end of a quantum of instructions */
	bh_fiber_point();   /* fibers: the tile's other actors get the thread (sync/fiber.h) */
	if (c->tt_deferred)
		bh_tensix_drain(c);   /* its Tensix words wait at most a quantum */
	uint32_t ev = atomic_load_explicit(&c->events, memory_order_acquire); /* pairs with the release in senders */
	if (!ev)
		return false;
	if (ev & BH_EV_STOP)
		return true;
	atomic_fetch_and_explicit(&c->events, ~(uint32_t)(BH_EV_FLUSH_ALL | BH_EV_CODE_STALE), memory_order_acq_rel);
	for (unsigned w = 0; w < BH_L1_PAGES / 32; w++) {
		uint32_t bits = atomic_exchange_explicit(&c->stale_pages[w], 0, memory_order_acq_rel);
		while (bits) {
			unsigned b = (unsigned)__builtin_ctz(bits);
			bits &= bits - 1;
			rv32_code_overwritten(c, w * 32 + b);
		}
	}
	if (ev & BH_EV_FLUSH_ALL)
		rv32_invalidate_decoded(c);   /* after the overwritten pages went */
	return false;
}

static inline uint32_t rv_ror(uint32_t v, unsigned s) { s &= 31; return s ? (v >> s | v << (32 - s)) : v; }
static inline uint32_t rv_rol(uint32_t v, unsigned s) { s &= 31; return s ? (v << s | v >> (32 - s)) : v; }

static inline uint32_t rv_orc_b(uint32_t v)
{
	uint32_t r = 0;
	for (unsigned b = 0; b < 32; b += 8)
		if (v >> b & 0xff)
			r |= 0xffu << b;
	return r;
}

static inline uint32_t rv_brev8(uint32_t v)
{
	v = (v & 0x55555555u) << 1 | (v >> 1 & 0x55555555u);
	v = (v & 0x33333333u) << 2 | (v >> 2 & 0x33333333u);
	return (v & 0x0f0f0f0fu) << 4 | (v >> 4 & 0x0f0f0f0fu);
}

static inline uint32_t rv_div(int32_t a, int32_t b)
{
	if (b == 0) return UINT32_MAX;
	if (a == INT32_MIN && b == -1) return (uint32_t)INT32_MIN;
	return (uint32_t)(a / b);
}

static inline uint32_t rv_rem(int32_t a, int32_t b)
{
	if (b == 0) return (uint32_t)a;
	if (a == INT32_MIN && b == -1) return 0;
	return (uint32_t)(a % b);
}

/* AMO on L1: real host atomics, sequentially consistent (an AMO also flushes the L0 cache). */
static inline uint32_t rv_amo(unsigned op, uint32_t *p, uint32_t v)
{
	uint32_t old;
	switch (op) {
	case RV_OP_amoadd: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
	case RV_OP_amoswap: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
	case RV_OP_amoxor: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
	case RV_OP_amoor: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
	case RV_OP_amoand: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
	default: break;
	}
	old = __atomic_load_n(p, __ATOMIC_RELAXED);
	for (;;) {
		uint32_t nv;
		switch (op) {
		case RV_OP_amomin: nv = (int32_t)v < (int32_t)old ? v : old; break;
		case RV_OP_amomax: nv = (int32_t)v > (int32_t)old ? v : old; break;
		case RV_OP_amominu: nv = v < old ? v : old; break;
		default: nv = v > old ? v : old; break;
		}
		if (__atomic_compare_exchange_n(p, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return old;
	}
}

/* ALU operations with edge cases or no single host instruction: the interpreter's handlers
 * (op constant, folded) and compiled code (rv32_jit.c calls out) share this one definition. */
static inline __attribute__((always_inline)) uint32_t rv_alu_rare(uint32_t op, uint32_t a, uint32_t b)
{
	switch (op) {
	case RV_OP_div: return rv_div((int32_t)a, (int32_t)b);
	case RV_OP_divu: return b ? a / b : UINT32_MAX;
	case RV_OP_rem: return rv_rem((int32_t)a, (int32_t)b);
	case RV_OP_remu: return b ? a % b : a;
	case RV_OP_clz: return a ? (uint32_t)__builtin_clz(a) : 32;
	case RV_OP_ctz: return a ? (uint32_t)__builtin_ctz(a) : 32;
	case RV_OP_cpop: return (uint32_t)__builtin_popcount(a);
	case RV_OP_orc_b: return rv_orc_b(a);
	case RV_OP_pack: return (a & 0xffff) | b << 16;
	case RV_OP_brev8: return rv_brev8(a);
	default: abort();   /* rv32_jit.c calls out only for the operations above */
	}
}

uint32_t rv32_jit_alu(uint32_t op, uint32_t a, uint32_t b)
{
	return rv_alu_rare(op, a, b);
}

uint64_t rv32_jit_load_slow(struct bh_core *c, uint32_t addr, uint32_t size, uint32_t pc, uint64_t icount)
{
	uint32_t v;
	c->instret = icount;
	c->pc = pc;
	if (bh_mem_load_slow(c, addr, size, &v) != BH_ACC_OK)
		return (uint64_t)RV_JIT_LOAD_RETRY << 32;
	/* The fast interpreter's LOAD_HOOK: a register-window load may be a poll (throttled). */
	uint64_t st = bh_spin_suspect(&c->spin, icount) ? RV_JIT_LOAD_SUSPECT : RV_JIT_LOAD_OK;
	return st << 32 | v;
}

void rv32_jit_store_watched(struct bh_core *c, uint32_t addr, uint32_t size)
{
	bh_watch_l1_written(c->tile, addr, size, c->kind);
}

uint32_t rv32_jit_store_slow(struct bh_core *c, uint32_t addr, uint32_t val, uint32_t size, uint32_t pc,
			     uint64_t icount)
{
	c->instret = icount;
	c->pc = pc;
	int r = bh_mem_store_slow(c, addr, size, val);
	return r == BH_ACC_OK ? 0 : r == BH_ACC_BLOCKED ? RV_JIT_EXIT_BLOCKED : RV_JIT_EXIT_FAULT;
}

#define RV_VARIANT RV_FAST
#define RV_RUN_FN rv32_run_fast
#include "cores/rv32_run.inc"

#define RV_VARIANT RV_MONITOR
#define RV_RUN_FN rv32_run_monitor
#include "cores/rv32_run.inc"

#define RV_VARIANT RV_EXACT
#define RV_RUN_FN rv32_run_exact
#include "cores/rv32_run.inc"

#define RV_VARIANT RV_LOADCHK
#define RV_RUN_FN rv32_run_loadchk
#include "cores/rv32_run.inc"

static enum rv_stop rv32_run_variants(struct bh_core *c)
{
	/* A check that judges loads runs the variant that looks at them, without compiled code: the
	 * default variant and the block compiler stay as they are. */
	c->load_checks = (c->tile->chip->checks.enabled & BH_CHECKS_LOADS) != 0 || c->l0_model;
	if (c->max_instructions)
		return rv32_run_exact(c);   /* exact limits: no spin detection */
	for (;;) {
		enum rv_stop r = c->monitoring ? rv32_run_monitor(c) : c->load_checks ? rv32_run_loadchk(c) : rv32_run_fast(c);
		switch (r) {
		case RV_STOP_MONITOR:
			c->monitoring = true;
			bh_spin_begin(c);
			break;
		case RV_STOP_UNMONITOR:
			c->monitoring = false;
			bh_spin_abort(c);
			break;
		case RV_STOP_PARK:
			c->monitoring = false;
			if (bh_checks_on(&c->tile->chip->checks, BH_CHECK_LOST_TARGET) && bh_spin_lost_target(c))
				return RV_STOP_FAULT;
			switch (bh_spin_park(c)) {
			case BH_SPIN_LEAVE: return RV_STOP_EVENT;
			case BH_SPIN_FINDING: return RV_STOP_FAULT;
			default: break;
			}
			break;
		default:
			c->monitoring = false;
			return r;
		}
	}
}

enum rv_stop rv32_run(struct bh_core *c)
{
	enum rv_stop r = rv32_run_variants(c);
	/* Words it pushed execute after it stops, as the Tensix thread goes on without it. */
	if (c->tt_deferred)
		bh_tensix_drain(c);
	/* A Tensix instruction this core pushed faulted (cores/tensix.c): that is the core's fault. */
	if (r != RV_STOP_FAULT && bh_tensix_take_fault(c))
		return RV_STOP_FAULT;
	return r;
}
