/* Spin-wait detection and parking of poll loops (see spin.h). */
#include <string.h>
#include <time.h>

#include "cores/core.h"
#include "cores/tensix.h"
#include "cores/rv32_insns.h"
#include "fabric/chip.h"
#include "fabric/noc.h"
#include "fabric/mmio.h"
#include "fabric/wallclock.h"
#include "fabric/tile.h"
#include "sync/park.h"
#include "sync/sched.h"
#include "sync/watch.h"

#define SPIN_STABLE_ITERS 2          /* identical iterations before parking */
#define SPIN_MAX_INSNS 2048u         /* monitoring budget */
#define SPIN_BACKOFF_MIN 64u
#define SPIN_BACKOFF_MAX (1u << 16)
/* A detected wait first yields the host CPU for this long before it parks: a handshake that
 * completes within a few microseconds costs less than a futex sleep and wake (~5 us), and on
 * an oversubscribed host the yield lets the core it waits for run. */
#define SPIN_YIELD_NS 20000u
#define SPIN_TIMED_MIN_NS 2000u      /* first sleep of a wall-clock poll */
#define SPIN_TIMED_MAX_NS 1000000u

/* Which words a parked core may watch, where their changes are announced and which are timed
 * (the wall clock) is the address decode table's business (fabric/mmio.h: bh_mmio_watch). */

void bh_spin_begin(struct bh_core *c)
{
	struct bh_spin *s = &c->spin;
	s->head = 0;
	s->branch_pc = 0;
	s->iters = 0;
	s->stable = 0;
	s->n = 0;
	s->prev_n = 0;
	s->overflow = false;
	s->timed_rd = 0;
	s->fenced = false;
	s->started = c->instret;
}

void bh_spin_abort(struct bh_core *c)
{
	struct bh_spin *s = &c->spin;
	s->backoff = s->backoff < SPIN_BACKOFF_MIN ? SPIN_BACKOFF_MIN : s->backoff * 2;
	if (s->backoff > SPIN_BACKOFF_MAX)
		s->backoff = SPIN_BACKOFF_MAX;
	s->next_allowed = c->instret + s->backoff;
}

/* One access of this iteration: a word seen again must hold the same value (a wall-clock
 * register excepted), else the iteration made progress. False: not a poll (or too many words). */
static bool spin_log(struct bh_spin *s, uint32_t addr, unsigned size, bool timed, bool stored, uint32_t value)
{
	for (unsigned k = 0; k < s->n; k++)
		if (s->cur[k].addr == addr && s->cur[k].size == size)
			return timed || s->cur[k].value == value;
	if (s->n == BH_WATCH_MAX)
		return false;
	s->cur[s->n++] = (struct bh_spin_load){ .addr = addr, .size = (uint8_t)size, .timed = timed, .stored = stored,
						.value = value };
	return true;
}

bool bh_spin_note_load(struct bh_core *c, uint32_t addr, unsigned size, uint32_t value, unsigned rd)
{
	struct bh_spin *s = &c->spin;
	uint32_t watch = bh_mmio_watch(c->tile, c->kind, addr);
	if (watch == BH_WATCH_NONE)
		return false;
	bool timed = watch == BH_WATCH_TIMED;
	if (timed && rd < 32)
		s->timed_rd |= 1u << rd;
	return spin_log(s, addr, size, timed, false, value);
}

bool bh_spin_note_store(struct bh_core *c, uint32_t addr, unsigned size, uint32_t value)
{
	struct bh_spin *s = &c->spin;
	struct bh_tile *t = c->tile;
	unsigned page = addr >> BH_L1_PAGE_SHIFT;
	uint32_t mask = size == 4 ? ~0u : (1u << (size * 8)) - 1;
	value &= mask;
	if (bh_mem_ld(c->l1 + addr, size) != value)
		return false;
	/* A store the checks judge even when silent: into a range a NoC transaction in flight reads
	 * or lands in, or into a CB FIFO's pages (cb-ownership). */
	unsigned flags = atomic_load_explicit(&t->code_pages[page], memory_order_relaxed);
	if (((flags & BH_PAGE_INFLIGHT) && bh_inflight_page_busy(t, page)) ||
	    (atomic_load_explicit(&t->cb_page_mark[page / 32], memory_order_relaxed) >> (page % 32) & 1))
		return false;
	return spin_log(s, addr, size, false, true, value);
}

static bool spin_same_loads(const struct bh_spin *s)
{
	if (s->n != s->prev_n)
		return false;
	for (unsigned k = 0; k < s->n; k++) {
		const struct bh_spin_load *a = &s->cur[k], *b = &s->prev[k];
		if (a->addr != b->addr || a->size != b->size || a->stored != b->stored ||
		    (!a->timed && a->value != b->value))
			return false;
	}
	return true;
}

enum bh_spin_verdict bh_spin_backjump(struct bh_core *c, uint32_t pc, uint32_t target)
{
	struct bh_spin *s = &c->spin;
	if (c->instret - s->started > SPIN_MAX_INSNS)
		return BH_SPIN_ABORT;
	if (s->iters && (target != s->head || pc != s->branch_pc))
		return BH_SPIN_ABORT;   /* another loop: not a simple poll */
	if (s->iters == 0) {
		/* The first back-edge: monitoring may have begun mid-iteration, so what was logged
		 * so far is partial. Record from the loop head on. */
		s->head = target;
		s->branch_pc = pc;
		s->iters = 1;
		s->stable = 0;
		s->fenced = false;
	} else if (s->iters >= 2) {
		/* Same loads, same values, same registers as the previous full iteration: the loop
		 * can only leave when a loaded word changes. A loop that reads the wall clock may
		 * differ in registers (whatever it computes from the time): it parks with a timeout,
		 * which only makes the core look slower against the clock, never changes what it
		 * computes. */
		bool same = spin_same_loads(s);
		bool reads_clock = s->timed_rd != 0;
		if (same && !reads_clock && memcmp(&c->x[1], &s->regs[1], sizeof s->regs - sizeof s->regs[0]))
			same = false;   /* x1..x31 (one block compare: a loop checks every back edge) */
		if (!same)
			return BH_SPIN_ABORT;
		s->iters++;
		if (++s->stable >= SPIN_STABLE_ITERS && s->n)
			return BH_SPIN_PARK;
	} else {
		s->iters = 2;   /* the first full iteration: the reference for the next ones */
	}
	memcpy(s->regs, c->x, sizeof s->regs);
	memcpy(s->prev, s->cur, sizeof s->prev);
	s->prev_n = s->n;
	s->n = 0;
	s->timed_rd = 0;
	s->fenced = false;
	return BH_SPIN_CONTINUE;
}


static bool spin_reread(struct bh_core *c, const struct bh_spin_load *l, uint32_t *v)
{
	struct bh_fault f;
	if (l->addr < BH_L1_SIZE) {
		*v = bh_mem_ld(c->l1 + l->addr, l->size);
		return true;
	}
	if (l->addr - BH_LDM_BASE < c->ldm_size) {
		*v = bh_mem_ld(c->ldm + (l->addr - BH_LDM_BASE), l->size);
		return true;
	}
	bh_fault_clear(&f);
	return bh_mmio_access(c->tile, c->kind, l->addr, l->size, false, v, &f, NULL, 0) == BH_ACC_OK;
}

/* True while the wait just detected is young: the caller yields instead of parking. */
static bool spin_still_young(struct bh_spin *s)
{
	uint32_t h = 2166136261u;
	for (unsigned k = 0; k < s->prev_n; k++)
		h = (h ^ s->prev[k].addr ^ (s->prev[k].timed ? 0 : s->prev[k].value)) * 16777619u;
	uint64_t now = bh_time_ns();
	if (s->wait_head != s->head || s->wait_hash != h) {
		s->wait_head = s->head;
		s->wait_hash = h;
		s->wait_start_ns = now;
	}
	return now - s->wait_start_ns < SPIN_YIELD_NS;
}

/* A check's finding f about the poll loop c parks in (the branch's instruction insn, a polled word
 * of size bytes): placed at the loop's branch and recorded. True when it stops the core (c->fault
 * holds it, c->pc is the branch). */
static bool spin_finding(struct bh_core *c, struct bh_fault *f, uint32_t insn, unsigned size)
{
	struct bh_tile *t = c->tile;
	f->pc = c->spin.branch_pc;
	f->insn = insn;
	f->has_addr = true;
	f->size = size;
	if (!bh_check_found(&t->chip->checks, t->index, c->kind, f))
		return false;
	c->fault = *f;
	c->pc = c->spin.branch_pc;
	return true;
}


/* poll-no-fence (races.md #20, riscv-cores.md 4): each core's L0 data cache (4 x 16 B in front
 * of L1, not coherent) is flushed only by fence or an AMO, so a poll of an L1 word with the cache
 * on and no fence in the loop may read the cached line forever; tt-metal polls with
 * invalidate_l1_cache() (a fence on Blackhole) in the loop. AMOs end the monitoring, so a loop
 * that parks has none. True when the core must stop (c->fault holds the finding). */
__attribute__((cold, noinline))
static bool spin_poll_no_fence(struct bh_core *c)
{
	struct bh_spin *s = &c->spin;
	const struct bh_spin_load *word = NULL;
	if (s->fenced || !bh_core_l0_on(c))
		return false;
	for (unsigned k = 0; k < s->prev_n && !word; k++)
		if (!s->prev[k].timed && !s->prev[k].stored && s->prev[k].addr < BH_L1_SIZE)
			word = &s->prev[k];
	if (!word)
		return false;
	struct bh_fault f;
	char dis[64];
	uint32_t insn = s->branch_pc < BH_L1_SIZE ? bh_mem_ld(c->l1 + s->branch_pc, 4) : 0;
	rv32_disasm(insn, s->branch_pc, dis, sizeof dis);
	bh_check_fill(&f, BH_CHECK_POLL_NO_FENCE, word->addr, "L1", NULL,
		      "the poll loop at 0x%08x..0x%08x (%s) reads L1 with the L0 data cache on (cfg0 bit 3 clear) and "
		      "no fence: on silicon it may spin on a stale cached value (fence each poll, as "
		      "invalidate_l1_cache() does)", s->head, s->branch_pc, dis);
	return spin_finding(c, &f, insn, word->size);
}

enum bh_spin_park_result bh_spin_park(struct bh_core *c)
{
	struct bh_spin *s = &c->spin;
	struct bh_tile *t = c->tile;
	/* A TRISC may poll for what its own deferred Tensix words do: run them, then poll again. */
	if (c->tt_deferred && bh_tensix_drain(c)) {
		s->backoff = SPIN_BACKOFF_MIN;
		s->next_allowed = c->instret + SPIN_BACKOFF_MIN;
		return atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP ? BH_SPIN_LEAVE : BH_SPIN_PARKED;
	}
	/* Serial scheduling parks at once: a park is as cheap as a yield there, and exact. */
	if (!bh_sched_self && spin_still_young(s)) {
		bh_park_yield(&c->waiter);   /* a fiber: the tile's other actors first (the word may be theirs) */
		s->backoff = SPIN_BACKOFF_MIN;
		s->next_allowed = c->instret + SPIN_BACKOFF_MIN;
		return atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP ? BH_SPIN_LEAVE : BH_SPIN_PARKED;
	}
	if (bh_checks_on(&t->chip->checks, BH_CHECK_POLL_NO_FENCE) && spin_poll_no_fence(c))
		return BH_SPIN_FINDING;
	/* REORDER: a parking core's held stores land first (what it waits for may need them). */
	if (c->sq_n && bh_core_sq_drain(c) != BH_ACC_OK) {
		c->pc = s->branch_pc;
		return BH_SPIN_FINDING;
	}
	uint32_t addr[BH_WATCH_MAX], value[BH_WATCH_MAX];
	uint8_t size[BH_WATCH_MAX], esize[BH_WATCH_MAX];
	unsigned n = 0;
	bool timed = false;

	uint32_t seq = bh_park_seq(&c->waiter);
	for (unsigned k = 0; k < s->prev_n; k++) {
		if (s->prev[k].timed) {
			timed = true;
			continue;
		}
		addr[n] = bh_mmio_watch(c->tile, c->kind, s->prev[k].addr);   /* where a waker names the change */
		/* The value it waits to change, for a word named as itself (bh_watch_expect keeps L1's). */
		value[n] = s->prev[k].value;
		esize[n] = addr[n] == s->prev[k].addr ? s->prev[k].size : 0;
		size[n++] = s->prev[k].size;
	}
	bool fenced = bh_watch_arm(t, c->kind, &c->waiter, addr, size, n);   /* sync/watch.h */
	bh_watch_expect(t, c->kind, addr, esize, value, n);

	bool changed = false;
	for (unsigned k = 0; k < s->prev_n && !changed; k++) {
		uint32_t v;
		if (s->prev[k].timed)
			continue;
		if (!spin_reread(c, &s->prev[k], &v) || v != s->prev[k].value)
			changed = true;
	}
	/* A reset or shutdown that moved wake_seq before we read it would not wake us: look. */
	if (atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP)
		changed = true;
	if (!changed) {
		/* What reports show about this wait: written under the tile lock, which reports hold
		 * while they copy it (the core may park again while a report reads). */
		pthread_mutex_lock(&t->lock);
		memcpy(s->watched, s->prev, sizeof s->watched);
		s->nwatched = s->prev_n;
		s->park_pc = s->head;
		s->park_branch = s->branch_pc;
		s->branch_word = bh_mem_ld(c->l1 + s->branch_pc, 4);
		s->branch_rs1 = c->x[s->branch_word >> 15 & 31];
		s->branch_rs2 = c->x[s->branch_word >> 20 & 31];
		pthread_mutex_unlock(&t->lock);
		if (!timed || !s->timed_ns)
			s->timed_ns = SPIN_TIMED_MIN_NS;
		atomic_fetch_add_explicit(&c->waiter.parks, 1, memory_order_relaxed);
		atomic_store_explicit(&c->waiter.park_state, timed ? BH_PARK_TIMED : BH_PARK_WATCH, memory_order_release);
		unsigned first = 0;   /* the first polled word, not one the loop stores */
		while (first + 1 < s->nwatched && s->watched[first].stored)
			first++;
		bh_core_emit_what(c, BH_CORE_EVENT_PARKED, timed ? "timed poll" : "poll",
				  s->nwatched ? s->watched[first].addr : 0);
		bh_noc_engine_nudge(c->tile->chip->noc);   /* the word it polls may be in flight */
		bh_park_sleep(&c->waiter, seq, bh_park_fenced_timeout(fenced, timed ? s->timed_ns : 0, &s->unfenced_ns));
		bh_park_unfenced_woken(&c->waiter, seq, &s->unfenced_ns);
		atomic_store_explicit(&c->waiter.park_state, BH_PARK_NONE, memory_order_relaxed);
		bh_core_emit(c, BH_CORE_EVENT_WOKEN);
		if (timed) {
			s->timed_ns *= 2;
			if (s->timed_ns > SPIN_TIMED_MAX_NS)
				s->timed_ns = SPIN_TIMED_MAX_NS;
		}
	}
	bh_watch_release(t, c->kind, &c->waiter);
	/* Back in the loop: suspect it again soon (it may still be waiting). */
	s->backoff = SPIN_BACKOFF_MIN;
	s->next_allowed = c->instret + SPIN_BACKOFF_MIN;
	return atomic_load_explicit(&c->events, memory_order_acquire) & BH_EV_STOP ? BH_SPIN_LEAVE : BH_SPIN_PARKED;
}

/* ---------------------------------------------------------------------------------------------
 * lost-target (races.md #11): an == wait on a counter that went past the value it waits for.
 */

#define INSN_BNE_MASK 0x707Fu
#define INSN_BNE 0x1063u

bool bh_spin_lost_target(struct bh_core *c)
{
	struct bh_spin *s = &c->spin;
	const struct bh_spin_load *word = NULL;
	for (unsigned k = 0; k < s->prev_n; k++) {
		if (s->prev[k].timed)
			return false;   /* a wait on the clock: not a wait for a value */
		if (s->prev[k].stored)
			continue;       /* what the loop writes, not what it waits for */
		if (word)
			return false;   /* several polled words: which one the branch compares is unclear */
		word = &s->prev[k];
	}
	uint32_t insn = s->branch_pc < BH_L1_SIZE ? bh_mem_ld(c->l1 + s->branch_pc, 4) : 0;
	if (!word || (insn & INSN_BNE_MASK) != INSN_BNE)
		return false;   /* only `bne value, target, head`: stay while not equal */
	uint32_t a = c->x[insn >> 15 & 31], b = c->x[insn >> 20 & 31], value = word->value, target;
	if (a == value && b != value)
		target = b;
	else if (b == value && a != value)
		target = a;
	else
		return false;   /* the branch does not compare the polled value itself (masked, shifted) */
	bool same_wait = s->lt_valid && s->lt_head == s->head && s->lt_branch == s->branch_pc &&
			 s->lt_addr == word->addr && s->lt_target == target;
	uint32_t before = s->lt_value;
	s->lt_valid = true;
	s->lt_head = s->head;
	s->lt_branch = s->branch_pc;
	s->lt_addr = word->addr;
	s->lt_target = target;
	s->lt_value = value;
	/* Strictly across the target, without wrapping: a word still short of it, or one that
	 * moved away from it, is a wait that may yet end. */
	if (!same_wait || !((before < target && target < value) || (before > target && target > value)))
		return false;

	struct bh_tile *t = c->tile;
	struct bh_fault f;
	char dis[64], buf[96];
	rv32_disasm(insn, s->branch_pc, dis, sizeof dis);
	const char *region = word->addr >= BH_L1_SIZE ? bh_mmio_describe(t, word->addr, buf, sizeof buf) : NULL;
	bh_check_fill(&f, BH_CHECK_LOST_TARGET, word->addr, region, NULL,
		      "the poll loop at 0x%08x..0x%08x (%s) waits for the word to equal %u (0x%x), but it went from %u to "
		      "%u (0x%x to 0x%x), past the target without holding it: the value waited for was skipped (wait "
		      "with >= for a counter)", s->head, s->branch_pc, dis, target, target, before, value, before, value);
	return spin_finding(c, &f, insn, word->size);
}
