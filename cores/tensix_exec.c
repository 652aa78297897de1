/* Tensix thread execution after the MOP expander: the replay expander (tensix.md 4), the Wait
 * Gate (sync.md 8) and the units of the control plane: sync (semaphores, mutexes, waits),
 * scalar (GPRs, STOREREG/LOADREG through the tile's address decode) and configuration
 * (tensix.md 6, 7). Every unit completes an instruction before the next one reaches the gate.
 * Semantics from tt-isa-documentation, cited per function by page name. */
#include <stdio.h>
#include <string.h>

#include "cores/tensix.h"
#include "fabric/chip.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/streams.h"
#include "sync/tensix_sem.h"

#define BLOCK_ALL 0x1FFu
#define BLOCK_DEFAULT 0x040u         /* BlockMask 0 means B6 (matrix unit) only */
#define STALL_COND_DEFAULT 0x0Fu     /* ConditionMask 0 means C0..C3 */
#define STOREREG_BASE 0xFFB00000u
#define STOREREG_MIN 0xFFB11000u     /* below: undefined */

/* Block bits that hold an instruction of each unit at the gate (sync.md 8). */
static uint32_t unit_block_bits(enum tt_unit u)
{
	switch (u) {
	case TT_U_MISC: return 0x001;
	case TT_U_PACK: return 0x001 | 0x004;
	case TT_U_UNPACK: return 0x001 | 0x008;
	case TT_U_MOVER: return 0x001 | 0x010;
	case TT_U_SCALAR: return 0x001 | 0x020;
	case TT_U_SYNC: return 0x002;
	case TT_U_MATRIX: return 0x040;
	case TT_U_CONFIG: return 0x080;
	case TT_U_VECTOR: return 0x100;
	case TT_U_WAIT: return BLOCK_ALL;    /* a new wait waits for the old one to be forgotten */
	default: return 0;
	}
}

static bool gate_blocks(uint32_t block, enum tt_unit u)
{
	return u == TT_U_NOP ? block == BLOCK_ALL : (block & unit_block_bits(u)) != 0;
}

/* SEMWAIT: semaphores are read seq_cst (pairs with the CAS of the writer, sync/tensix_sem.c). */
static bool sem_wait_holds(struct bh_tt_thread *th, bool describe)
{
	const struct tt_latch *l = &th->latch;
	uint64_t st = atomic_load_explicit(&th->tx->tile->sem.state, memory_order_seq_cst);
	int b = bh_sem_wait_blocker(st, l->sem_mask, l->cond);
	th->sem_blocker = b;   /* what the description says, for tt_gate_wake */
	if (b < 0)
		return false;
	if (describe)
		th->wait_desc = (struct tt_wait_desc){ .kind = TT_WD_SEM, .blocker = b, .cond = l->cond };
	return true;
}

static void sem_wait_text(const struct tt_wait_desc *d, char *what, size_t n)
{
	unsigned k = (unsigned)d->blocker & 7, v = (unsigned)d->blocker >> 4 & 15, m = (unsigned)d->blocker >> 8 & 15;
	if ((d->cond & 1) && v == 0)
		snprintf(what, n, "SEMWAIT until semaphore %u is non-zero (value 0, max %u)", k, m);
	else
		snprintf(what, n, "SEMWAIT until semaphore %u is below its max (value %u, max %u)", k, v, m);
}

/* STALLWAIT (STALLWAIT.md): units finish each instruction before the next one reaches the gate,
 * so C0-C4 and C9-C12 are met whenever the gate looks; C5-C8 compare SrcA/SrcB ownership. */
static bool stall_wait_holds(struct bh_tt_thread *th, bool describe)
{
	return tt_dp_stall_holds(th, th->latch.cond, describe);
}

/* STREAMWAIT (STREAMWAIT.md): keep waiting while the selected register of the stream named by
 * ThreadConfig STREAM_ID_SYNC_SEC[StreamSelect] is below TargetValue. */
static bool stream_wait_holds(struct bh_tt_thread *th, bool describe)
{
	const struct tt_latch *l = &th->latch;
	unsigned s = atomic_load_explicit(&th->thread_cfg[TT_TCFG_STREAM_ID_SYNC + l->stream_select],
					  memory_order_relaxed) & 0x3F;
	uint32_t v = l->cond ? bh_stream_num_msgs_received(th->tx->tile, s) : bh_stream_curr_phase(th->tx->tile, s);
	if (v >= l->target)
		return false;
	if (describe)
		th->wait_desc = (struct tt_wait_desc){ .kind = TT_WD_STREAM, .cond = l->cond, .stream = s, .value = v,
						       .target = l->target };
	return true;
}

static void stream_wait_text(const struct tt_wait_desc *d, char *what, size_t n)
{
	snprintf(what, n, "STREAMWAIT until stream %u %s (%u) reaches %u", d->stream,
		 d->cond ? "NUM_MSGS_RECEIVED (reg 259; bhemu models no overlay messages, so it stays 0)"
			 : "CURR_PHASE (reg 29)", d->value, d->target);
}

/* Does the latched wait still hold? describe: keep why in th->wait_desc, for reports. */
static bool latch_holds(struct bh_tt_thread *th, bool describe)
{
	switch (th->latch.kind) {
	case TT_WAIT_SEM: return sem_wait_holds(th, describe);
	case TT_WAIT_STREAM: return stream_wait_holds(th, describe);
	default: return stall_wait_holds(th, describe);
	}
}

void tt_wait_text(const struct bh_tt_thread *th, char *buf, size_t n)
{
	const struct tt_wait_desc *d = &th->wait_desc;
	switch (d->kind) {
	case TT_WD_TEXT: snprintf(buf, n, "%s", th->wait_what); break;
	case TT_WD_SEM: sem_wait_text(d, buf, n); break;
	case TT_WD_STREAM: stream_wait_text(d, buf, n); break;
	case TT_WD_SRC: tt_dp_src_text(d, buf, n); break;
	default: snprintf(buf, n, "%s", ""); break;
	}
}

/* Register (+1) or unregister (-1) as a waiter on the state the latch reads, so that a change
 * wakes the thread (sync/park.h). STALLWAIT C5-C8 read SrcA/SrcB ownership, whose changes wake
 * the executors registered as its waiters (cores/tensix_data.c). */
static void latch_watch(struct bh_tt_thread *th, int delta)
{
	struct bh_tile *t = th->tx->tile;
	if (th->latch.kind == TT_WAIT_SEM)
		atomic_fetch_add_explicit(&t->sem.gate_waiters, (uint32_t)delta, memory_order_seq_cst);
	else if (th->latch.kind == TT_WAIT_STREAM)
		bh_stream_gate_waiters_add(t, delta);
	else if (th->latch.cond & TT_DP_STALL_SRC_CONDS)
		tt_dp_src_waiter(th, delta > 0, th->latch.cond >> 5 & 15);
}

/* What sem-reinit of other threads needs to know about the latch: a SEMWAIT's semaphores. */
void tt_publish_latch(struct bh_tt_thread *th)
{
	bool sem = th->latch.active && th->latch.kind == TT_WAIT_SEM;
	atomic_store_explicit(&th->latched_sems, sem ? th->latch.sem_mask : 0, memory_order_relaxed);
	atomic_store_explicit(&th->latched_word, sem ? th->latch.word : 0, memory_order_relaxed);
}

static void tt_stage(struct bh_tt_thread *th, uint64_t where, uint32_t w)
{
	atomic_store_explicit(&th->stage, where ? where | w : 0, memory_order_relaxed);
}

static enum tt_result tt_execute(struct bh_tt_thread *th, const struct tt_opinfo *oi, uint32_t w);
static enum tt_result cfg_hazard(struct bh_tt_thread *th, uint32_t w);
static void cfg_hazard_note(struct bh_tt_thread *th, uint32_t w);

/* Thread th gives unit `open` (BH_TT_OPEN_*) an instruction: what the thread and its TRISC access
 * next is not ordered after it until a STALLWAIT (the thread's) or a TTSync (the TRISC's). */
static void tt_opened(struct bh_tt_thread *th, unsigned open)
{
	th->tt_open |= open;
	_Atomic uint32_t *rv = &th->tx->tile->pcbuf.tt_open[th->id];
	if (!(atomic_load_explicit(rv, memory_order_relaxed) & open))
		atomic_fetch_or_explicit(rv, open, memory_order_relaxed);
}

/* The Wait Gate: an instruction of a blocked class waits while the latched wait holds. */
static enum tt_result tt_gate(struct bh_tt_thread *th, uint32_t w)
{
	const struct tt_opinfo *oi = tt_opinfo(tt_opcode_of(w));
	struct bh_tensix *tx = th->tx;
	atomic_fetch_add_explicit(&th->waiter.progress, 1, memory_order_relaxed);
	if (tt_abandoned(th))   /* T_i entered reset (or shutdown) during an expansion */
		return TT_ABORT;
	/* STOREREG / LOADREG access the tile's address decode as the TRISC: the executor's, as the
	 * TRISC's own thread may be inside such an access (a push into a full FIFO). */
	if (th->on_trisc && (tt_opcode_of(w) == TT_OP_STOREREG || tt_opcode_of(w) == TT_OP_LOADREG)) {
		th->gave_back = true;
		return TT_ABORT;
	}
	tt_stage(th, TT_STAGE_GATE, w);
	while (th->latch.active && gate_blocks(th->latch.block, oi->unit)) {
		if (!latch_holds(th, false)) {   /* described only when the thread parks */
			th->latch.active = false;
			tt_publish_latch(th);
			break;
		}
		bh_lock(&tx->lock);
		latch_watch(th, 1);
		bool abandoned = tt_abandoned(th);
		if (!abandoned && latch_holds(th, !th->on_trisc)) {   /* re-check after registering */
			th->cur_word = w;
			tt_wait_locked(th, NULL);
			abandoned = tt_abandoned(th);
		}
		latch_watch(th, -1);
		bh_unlock(&tx->lock);
		if (abandoned) {
			tt_stage(th, 0, 0);
			return TT_ABORT;
		}
	}
	/* ATGETM waits for its mutex at the gate (tensix.md 5): it enters the unit once it has it. */
	if (tt_opcode_of(w) != TT_OP_ATGETM)
		tt_stage(th, TT_STAGE_UNIT, w);
	if (bh_checks_on(&tx->tile->chip->checks, BH_CHECK_CFG_HAZARD)) {
		if ((th->hz_wrcfg.word || th->hz_rdcfg_gprs) && cfg_hazard(th, w) != TT_OK) {
			tt_stage(th, 0, 0);
			return TT_FAULT;
		}
		cfg_hazard_note(th, w);
	}
	enum tt_result r = tt_execute(th, oi, w);
	tt_stage(th, 0, 0);
	return r;
}

/* One word after the expanders: executed, or passed over when it already executed before a
 * TRISC handed the FIFO word it came from to the executor (struct tt_entry.resume). */
static enum tt_result tt_word(struct bh_tt_thread *th, uint32_t w)
{
	if (th->skip) {
		th->skip--;
		th->done++;
		return TT_OK;
	}
	enum tt_result r = tt_gate(th, w);
	th->done += r == TT_OK;
	return r;
}

static enum tt_result tt_replay_word(struct bh_tt_thread *th, uint32_t w)
{
	char why[160];
	unsigned op = tt_opcode_of(w);
	if (!tt_decode_check(w, why, sizeof why))   /* words from MopCfg or the replay buffer */
		return tt_fault(th, BH_FAULT_ILLEGAL_INSN, w, "%s", why);
	const struct tt_opinfo *oi = tt_opinfo(op);
	if (oi->exec == TT_E_N) {
		tt_not_modelled_why(oi, why, sizeof why);
		return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "%s", why);
	}
	if (op == TT_OP_MOP || op == TT_OP_MOP_CFG)
		return tt_fault(th, BH_FAULT_ILLEGAL_INSN, w,
				"%s after the MOP expander (emitted by a MOP or pushed by brisc) is never expanded", oi->name);
	if (th->rec_left) {
		if (op == TT_OP_REPLAY)
			return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "REPLAY while the replay buffer records: nesting is not modelled");
		uint32_t was_recorded = th->replay_recorded;
		unsigned pos = th->rec_pos;
		th->replay[pos] = w;
		th->replay_recorded |= 1u << pos;
		th->rec_pos = (pos + 1) % BH_TT_REPLAY_SLOTS;
		th->rec_left--;
		if (!th->rec_exec)
			return TT_OK;
		enum tt_result r = tt_gate(th, w);
		if (r == TT_ABORT && th->gave_back) {   /* the executor records it again */
			th->replay_recorded = was_recorded;
			th->rec_pos = pos;
			th->rec_left++;
		}
		return r;
	}
	if (op != TT_OP_REPLAY)
		return tt_gate(th, w);
	unsigned len = tt_bits(w, 13, 4) & 0x3F, start = tt_bits(w, 23, 14) & 0x1F;
	if (len == 0)
		len = 64;
	if (tt_bits(w, 0, 0)) {   /* record the next len instructions */
		th->rec_left = len;
		th->rec_pos = start;
		th->rec_exec = tt_bits(w, 1, 1);
		return TT_OK;
	}
	/* A REPLAY may come out of a MOP, but a replayed sequence holds no REPLAY, MOP or invalid
	 * word: recording checked each one above. A slot never recorded holds nothing bhemu could
	 * play, and the reference does not say what silicon plays: a fault naming the slot. */
	atomic_store_explicit(&th->replaying, true, memory_order_relaxed);
	uint8_t from = th->origin;
	enum tt_result r = TT_OK;
	for (unsigned k = 0; k < len && r == TT_OK; k++) {
		unsigned slot = (start + k) % BH_TT_REPLAY_SLOTS;
		if (!(th->replay_recorded >> slot & 1)) {
			r = tt_fault(th, BH_FAULT_ILLEGAL_INSN, w,
				     "replay slot %u of Tensix thread %u was never recorded (the reference does not say "
				     "what silicon plays from it)", slot, th->id);
			break;
		}
		th->origin = TT_FROM_REPLAY;
		th->origin_slot = (uint8_t)slot;
		r = tt_word(th, th->replay[slot]);
		th->origin = from;
	}
	atomic_store_explicit(&th->replaying, false, memory_order_relaxed);
	return r;
}

enum tt_result tt_replay_in(struct bh_tt_thread *th, uint32_t w)
{
	/* A REPLAY that plays counts its words (tt_word); every other word entering counts as one. */
	bool plays = tt_opcode_of(w) == TT_OP_REPLAY && !tt_bits(w, 0, 0);
	if (!plays && th->skip) {
		th->skip--;
		th->done++;
		return TT_OK;
	}
	enum tt_result r = tt_replay_word(th, w);
	th->done += !plays && r == TT_OK;
	return r;
}

/* ---------------------------------------------------------------------------------------------
 * Sync unit.
 */

static void mutex_release(struct bh_tensix *tx, unsigned m, unsigned t)
{
	/* Hand-over (sync.md 6): with both others waiting, (t + 1) mod 3 wins. Under tx->lock. */
	unsigned waiting = tx->mutex_waiting[m], a = (t + 1) % 3, b = (t + 2) % 3;
	tx->mutex_owner[m] = waiting >> a & 1 ? (int8_t)a : waiting >> b & 1 ? (int8_t)b : -1;
	if (tx->mutex_owner[m] >= 0)
		bh_park_wake(&tx->th[tx->mutex_owner[m]].waiter);
}

static enum tt_result tt_mutex(struct bh_tt_thread *th, uint32_t w, bool get)
{
	struct bh_tensix *tx = th->tx;
	unsigned m = tt_bits(w, 15, 0), id = th->id;
	if (m == 1 || m >= BH_TT_MUTEXES)
		return tt_fault(th, BH_FAULT_BAD_VALUE, w,
				"mutex %u does not exist (0, 2, 3, 4); silicon would make the thread wait forever", m);
	bh_lock(&tx->lock);
	enum tt_result r = TT_OK;
	if (!get) {
		if (tx->mutex_owner[m] == (int8_t)id)   /* releases only if own */
			mutex_release(tx, m, id);
	} else {
		while (tx->mutex_owner[m] != -1 && tx->mutex_owner[m] != (int8_t)id) {
			if (tt_abandoned(th)) {
				r = TT_ABORT;
				break;
			}
			char what[64];
			snprintf(what, sizeof what, "ATGETM mutex %u, held by tensix%d", m, tx->mutex_owner[m]);
			tx->mutex_waiting[m] |= (uint8_t)(1u << id);
			th->cur_word = w;
			tt_wait_locked(th, what);
		}
		tx->mutex_waiting[m] &= (uint8_t)~(1u << id);
		if (r == TT_OK)
			tx->mutex_owner[m] = (int8_t)id;
		else if (tx->mutex_owner[m] == (int8_t)id)
			mutex_release(tx, m, id);    /* handed over while being abandoned */
	}
	bh_unlock(&tx->lock);
	return r;
}

/* STALLWAIT, SEMWAIT, STREAMWAIT latch the thread's wait; the gate evaluates it
 * (STALLWAIT.md, SEMWAIT.md, STREAMWAIT.md). BlockMask 0 means B6 for all three. */
static enum tt_result tt_wait_insn(struct bh_tt_thread *th, uint32_t w)
{
	uint32_t block = tt_bits(w, 23, 15);
	struct tt_latch l = { .active = true, .block = block ? block : BLOCK_DEFAULT, .word = w };
	switch (tt_opcode_of(w)) {
	case TT_OP_SEMWAIT:
		l.kind = TT_WAIT_SEM;
		l.cond = tt_bits(w, 1, 0);
		l.sem_mask = tt_bits(w, 9, 2);
		if (!l.cond)
			return tt_fault(th, BH_FAULT_BAD_VALUE, w, "SEMWAIT with condition 0 is undefined (1: wait while zero, 2: wait while at max)");
		break;
	case TT_OP_STREAMWAIT: {
		/* TargetValue takes its high bits from ThreadConfig when the wait is latched. */
		l.kind = TT_WAIT_STREAM;
		l.cond = tt_bits(w, 3, 3);
		l.stream_select = tt_bits(w, 1, 0);
		unsigned idx = l.cond ? TT_TCFG_STREAMWAIT_NUM_MSGS_HI : TT_TCFG_STREAMWAIT_PHASE_HI;
		uint32_t hi = atomic_load_explicit(&th->thread_cfg[idx], memory_order_relaxed) & (l.cond ? 0x7Fu : 0x3FFu);
		l.target = hi << 10 | tt_bits(w, 13, 4);
		break;
	}
	default:
		l.kind = TT_WAIT_STALL;
		l.cond = tt_bits(w, 12, 0) ? tt_bits(w, 12, 0) : STALL_COND_DEFAULT;
		/* A wait on a unit that holds the scalar unit orders the thread's STOREREGs after that
		 * unit's instructions (cb-publish-early). */
		if (gate_blocks(l.block, TT_U_SCALAR))
			th->tt_open &= ~l.cond;
		break;
	}
	th->latch = l;
	tt_publish_latch(th);
	return TT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Scalar unit (ThCon).
 */

static uint32_t gpr_get(struct bh_tt_thread *th, unsigned r)
{
	return atomic_load_explicit(&th->gpr[r], memory_order_relaxed);
}

static void gpr_set(struct bh_tt_thread *th, unsigned r, uint32_t v)
{
	struct bh_tile *t = th->tx->tile;
	atomic_store_explicit(&th->gpr[r], v, memory_order_relaxed);
	/* A core may poll the GPR: its own view (TRISC) and BRISC's. */
	bh_tile_mmio_written(t, BH_TT_GPR_BASE + 4 * r);
	if (th->id)
		bh_tile_mmio_written(t, BH_TT_GPR_BASE + 0x100 * th->id + 4 * r);
}

/* Provocation (sync/provoke.h): the thread may be late at its sync points, semaphore
 * instructions and STOREREG/LOADREG of sync registers, as a core may before a sync-register
 * access. Called without locks, before the instruction acts. */
static void tt_provoke(struct bh_tt_thread *th, unsigned sync, bool store)
{
	struct bh_tile *t = th->tx->tile;
	if (__builtin_expect(t->chip->provoke.mmio, 0))
		bh_provoke_sync_point(&t->chip->provoke, bh_provoke_tile_actor(t->index, BH_PROVOKE_TENSIX_ACTOR + th->id),
				      sync, store);
}

/* STOREREG / LOADREG: one 32-bit access at 0xFFB00000 + 4 * AddrLo through the tile's address
 * decode as the thread's TRISC, so every device check (CB protocol, access rights) applies. */
static enum tt_result tt_reg_access(struct bh_tt_thread *th, uint32_t w, bool store)
{
	uint32_t addr = STOREREG_BASE + (tt_bits(w, 17, 0) << 2), r = tt_bits(w, 23, 18);
	const char *name = store ? "STOREREG" : "LOADREG";
	if (addr < STOREREG_MIN)
		return tt_fault(th, BH_FAULT_ACCESS, w, "%s address 0x%08x is below 0x%08x, which is undefined", name,
				addr, STOREREG_MIN);
	struct bh_fault f;
	bh_fault_clear(&f);
	f.pc = th->cur.pc;   /* where a check that logs places the access: the push (fabric/check.h) */
	const struct bh_region *reg = bh_mmio_region(th->tx->tile, addr);
	if (reg)
		tt_provoke(th, reg->sync, store);
	uint32_t v = store ? gpr_get(th, r) : 0;
	enum bh_acc acc = bh_mmio_access_tensix(th->tx->tile, BH_TRISC0 + th->id, addr, store, &v, &f, th->tt_open);
	if (acc != BH_ACC_OK) {
		enum tt_result res = tt_fault(th, f.kind, w, "%s GPR %u %s 0x%08x (%s): %s", name, r, store ? "->" : "<-",
					      addr, f.region, f.detail);
		bh_lock(&th->tx->lock);
		th->fault.check = f.check;   /* a check's finding stays one, with its other party */
		memcpy(th->fault.other, f.other, sizeof f.other);
		bh_unlock(&th->tx->lock);
		return res;
	}
	if (!store)
		gpr_set(th, r, v);
	return TT_OK;
}

__attribute__((cold, noinline))
static enum tt_result dmareg_bad_mode(struct bh_tt_thread *th, uint32_t w, const char *modes)
{
	return tt_fault(th, BH_FAULT_BAD_VALUE, w, "%s mode %u is undefined (%s)", tt_opinfo(tt_opcode_of(w))->name,
			tt_bits(w, 20, 18), modes);
}

/* ADD/SUB/MUL/BITWOP/SHIFT/CMPDMAREG (the pages of those names): Result = Left op Right, where
 * Right is a GPR or the unsigned immediate in bits 11:6. Everything is unsigned 32-bit. */
static enum tt_result tt_dmareg_op(struct bh_tt_thread *th, uint32_t w)
{
	bool imm = tt_bits(w, 23, 23);
	unsigned mode = tt_bits(w, 20, 18);
	uint32_t a = gpr_get(th, tt_bits(w, 5, 0));
	uint32_t b = imm ? tt_bits(w, 11, 6) : gpr_get(th, tt_bits(w, 11, 6));
	uint32_t v;
	switch (tt_opcode_of(w)) {
	case TT_OP_ADDDMAREG: v = a + b; break;
	case TT_OP_SUBDMAREG: v = a - b; break;
	case TT_OP_MULDMAREG: v = (a & 0xFFFF) * (b & 0xFFFF); break;   /* 16 x 16 -> 32 bits */
	case TT_OP_BITWOPDMAREG:
		switch (mode) {
		case 0: v = a & b; break;
		case 1: v = a | b; break;
		case 2: v = a ^ b; break;
		default: return dmareg_bad_mode(th, w, "0 and, 1 or, 2 xor");
		}
		break;
	case TT_OP_SHIFTDMAREG:
		/* The immediate form has 5 bits (10:6); a register amount is taken mod 32. */
		if (imm && tt_bits(w, 11, 11))
			return tt_fault(th, BH_FAULT_ILLEGAL_INSN, w,
					"reserved bit 11 of SHIFTDMAREG's immediate form is set (its amount is bits 10:6)");
		b &= 0x1F;
		switch (mode) {
		case 0: v = a << b; break;
		case 1: v = a >> b; break;
		default: return dmareg_bad_mode(th, w, "0 left, 1 right");
		}
		break;
	default:   /* CMPDMAREG: 1 if the unsigned comparison holds, else 0 */
		switch (mode) {
		case 0: v = a > b; break;
		case 1: v = a < b; break;
		case 2: v = a == b; break;
		default: return dmareg_bad_mode(th, w, "0 greater, 1 less, 2 equal");
		}
		break;
	}
	gpr_set(th, tt_bits(w, 17, 12), v);
	return TT_OK;
}

static void halfreg_set(struct bh_tt_thread *th, unsigned h, uint32_t v)
{
	unsigned sh = 16 * (h & 1);
	uint32_t old = gpr_get(th, h >> 1);
	gpr_set(th, h >> 1, (old & ~(0xFFFFu << sh)) | (v & 0xFFFF) << sh);
}

static const char *const setdmareg_sources[10] = {
	"accumulated and last tile sizes", "AllZeroFlags", "packer 0's tile header", "packer 1's tile header",
	"packer 2's tile header", "packer 3's tile header", "exponent histogram bins 0-15",
	"exponent histogram bins 16-31", "AllZeroFlags bit 0 (and a reset of AccTileSize)", "maximum exponent",
};

/* SETDMAREG special form (SETDMAREG_Special.md): 128 bits chosen by InputSource go into GPRs,
 * 16, 32 or 128 of them by ResultSize. Sources 0-9 read packer state; sources 10-15 select
 * none, so the 128 bits are zero (the documented way to clear four GPRs). */
static enum tt_result tt_setdmareg_special(struct bh_tt_thread *th, uint32_t w)
{
	unsigned out_half = tt_bits(w, 6, 0), in_half = tt_bits(w, 10, 8), source = tt_bits(w, 14, 11);
	if (tt_bits(w, 21, 19))
		return tt_fault(th, BH_FAULT_ILLEGAL_INSN, w, "reserved bits 21:19 of SETDMAREG's special form are set (0x%x)",
				tt_bits(w, 21, 19));
	if (source < 10)
		return tt_fault(th, BH_FAULT_NOT_MODELLED, w,
				"SETDMAREG special form: InputSource %u reads the packers' %s, data-plane state bhemu does not "
				"keep (InputSource 10-15, which yields zeros, is modelled)", source, setdmareg_sources[source]);
	const uint32_t values[4] = { 0, 0, 0, 0 };
	unsigned g = (out_half >> 1) & 0x3C;   /* first of an aligned group of four GPRs */
	switch (tt_bits(w, 23, 22)) {
	case 0:   /* one half-register */
		halfreg_set(th, out_half, values[in_half >> 1] >> 16 * (in_half & 1));
		break;
	case 1:   /* one GPR */
		gpr_set(th, out_half >> 1, values[in_half >> 1]);
		break;
	case 2:   /* four GPRs */
		for (unsigned k = 0; k < 4; k++)
			gpr_set(th, g + k, values[k]);
		break;
	default:  /* four GPRs as a tile header: TileSize, DataFormat..SpareBits and AllZeroFlags only */
		gpr_set(th, g, (gpr_get(th, g) & 0xFFFF0000u) | (values[0] & 0xFFFF));
		gpr_set(th, g + 1, (gpr_get(th, g + 1) & ~0x00FF0000u) | (values[1] & 0x00FF0000u));
		gpr_set(th, g + 2, values[2]);
		break;
	}
	return TT_OK;
}

/* SETDMAREG immediate form (SETDMAREG_Immediate.md): 16 bits into one half-register. */
static enum tt_result tt_setdmareg(struct bh_tt_thread *th, uint32_t w)
{
	if (tt_bits(w, 7, 7))
		return tt_setdmareg_special(th, w);
	halfreg_set(th, tt_bits(w, 6, 0), tt_bits(w, 23, 8));
	return TT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Configuration unit: the bank is the thread's CFG_STATE_ID (ThreadConfig entry 0).
 */

static unsigned cfg_bank(struct bh_tt_thread *th)
{
	return atomic_load_explicit(&th->thread_cfg[0], memory_order_relaxed) & 1;
}

static enum tt_result cfg_range(struct bh_tt_thread *th, uint32_t w, unsigned idx, unsigned n)
{
	if (idx + n <= BH_TT_CFG_WORDS)
		return TT_OK;
	return tt_fault(th, BH_FAULT_UNMAPPED, w, "configuration index %u is past the last register (%u)", idx + n - 1,
			BH_TT_CFG_WORDS - 1);
}

static uint32_t rotr32(uint32_t x, unsigned r)
{
	return r ? x >> r | x << (32 - r) : x;
}

/* CFGSHIFTMASK (CFGSHIFTMASK.md): Config[bank][CfgIndex] op= rotr(scratch & mask, RotateAmt),
 * where scratch is Config.SCRATCH_SEC[ScratchIndex] (ScratchIndex 3: the thread's own) and mask
 * covers bits MaskWidth..0. Unless MaskMode is set, the rotated mask's bits of the old value
 * are cleared first. One atomic step against concurrent writers of the word. */
static enum tt_result tt_cfgshiftmask(struct bh_tt_thread *th, uint32_t w)
{
	struct bh_tile *t = th->tx->tile;
	unsigned bank = cfg_bank(th), idx = tt_bits(w, 7, 0), sel = tt_bits(w, 9, 8), rot = tt_bits(w, 14, 10);
	if (cfg_range(th, w, idx, 1) != TT_OK)   /* CfgIndex >= CFG_STATE_SIZE * 4 is undefined */
		return TT_FAULT;
	uint32_t mask = (uint32_t)((2ull << tt_bits(w, 19, 15)) - 1);
	uint32_t scratch = atomic_load_explicit(bh_tensix_cfg_cell(t, bank, BH_CFG_SCRATCH0 + (sel < 3 ? sel : th->id)),
						memory_order_relaxed);
	uint32_t x = rotr32(scratch & mask, rot);
	uint32_t old = atomic_load_explicit(bh_tensix_cfg_cell(t, bank, idx), memory_order_relaxed), v;
	do {
		v = tt_bits(w, 23, 23) ? old : old & ~rotr32(mask, rot);
		switch (tt_bits(w, 22, 20)) {
		case 0: v |= x; break;
		case 1: v &= x; break;
		case 2: v ^= x; break;
		case 3: v += x; break;
		case 4: v |= ~x; break;
		case 5: v &= ~x; break;
		case 6: v ^= ~x; break;
		default: v -= x; break;
		}
	} while (!bh_tensix_cfg_cmpxchg(t, bank, idx, &old, v));
	return TT_OK;
}

static enum tt_result tt_config(struct bh_tt_thread *th, uint32_t w)
{
	struct bh_tile *t = th->tx->tile;
	unsigned bank = cfg_bank(th), op = tt_opcode_of(w);
	switch (op) {
	case TT_OP_WRCFG:
	case TT_OP_RDCFG: {
		bool wide = op == TT_OP_WRCFG && tt_bits(w, 15, 15);
		unsigned idx = tt_bits(w, 10, 0), g = tt_bits(w, 21, 16), n = wide ? 4 : 1;
		if (wide) {
			idx &= ~3u;
			g &= ~3u;
		}
		if (cfg_range(th, w, idx, n) != TT_OK)
			return TT_FAULT;
		for (unsigned k = 0; k < n; k++) {
			if (op == TT_OP_WRCFG)
				bh_tensix_cfg_store(t, bank, idx + k, gpr_get(th, g + k));
			else
				gpr_set(th, g + k, atomic_load_explicit(bh_tensix_cfg_cell(t, bank, idx + k), memory_order_relaxed));
		}
		return TT_OK;
	}
	case TT_OP_SETC16: {
		unsigned idx = tt_bits(w, 23, 16);
		if (idx >= BH_TT_THREAD_CFG)
			return tt_fault(th, BH_FAULT_UNMAPPED, w, "ThreadConfig index %u is past the last entry (%u)", idx,
					BH_TT_THREAD_CFG - 1);
		atomic_store_explicit(&th->thread_cfg[idx], tt_bits(w, 15, 0), memory_order_relaxed);
		return TT_OK;
	}
	case TT_OP_RMWCIB0: case TT_OP_RMWCIB1: case TT_OP_RMWCIB2: case TT_OP_RMWCIB3: {
		unsigned idx = tt_bits(w, 7, 0), sh = 8 * (op - TT_OP_RMWCIB0);
		if (cfg_range(th, w, idx, 1) != TT_OK)
			return TT_FAULT;
		bh_tensix_cfg_rmw(t, bank, idx, tt_bits(w, 23, 16) << sh, tt_bits(w, 15, 8) << sh);
		return TT_OK;
	}
	default:
		return tt_cfgshiftmask(th, w);
	}
}

/* ---------------------------------------------------------------------------------------------
 * cfg-hazard (races.md #14): WRCFG takes two cycles and the thread goes on in the second, so the
 * instruction right after it must not read the configuration it writes (WRCFG.md "Instruction
 * scheduling": any Tensix NOP between suffices); RDCFG writes its GPR later, so a reader of that
 * GPR waits with STALLWAIT C12 (the configuration unit idle, tensix.md 7) first. The model
 * executes both at once; the check judges the order as silicon would. Readers of configuration
 * the model executes: RDCFG, RMWCIB, CFGSHIFTMASK (data-plane consumers are not executed);
 * readers of GPRs: WRCFG, STOREREG and the *DMAREG arithmetic. LOADIND is not modelled (it
 * faults), so its C0 rule is not judged.
 */

#define STALL_C12 0x1000u

/* The GPRs (bit g) that w reads. */
static uint64_t gprs_read(uint32_t w)
{
	switch (tt_opcode_of(w)) {
	case TT_OP_WRCFG:
		return tt_bits(w, 15, 15) ? 0xFull << (tt_bits(w, 21, 16) & ~3u) : 1ull << tt_bits(w, 21, 16);
	case TT_OP_STOREREG:
		return 1ull << tt_bits(w, 23, 18);
	case TT_OP_ADDDMAREG: case TT_OP_SUBDMAREG: case TT_OP_MULDMAREG:
	case TT_OP_BITWOPDMAREG: case TT_OP_SHIFTDMAREG: case TT_OP_CMPDMAREG:
		return 1ull << tt_bits(w, 5, 0) | (tt_bits(w, 23, 23) ? 0 : 1ull << tt_bits(w, 11, 6));
	default:
		return 0;
	}
}

/* The configuration word (index in the thread's bank) that w reads and that the WRCFG in
 * th->hz_wrcfg wrote; -1 when none. */
static int cfg_read_of_wrcfg(struct bh_tt_thread *th, uint32_t w)
{
	struct bh_tile *t = th->tx->tile;
	unsigned read[2], n = 0, op = tt_opcode_of(w);
	switch (op) {
	case TT_OP_RDCFG:
		read[n++] = tt_bits(w, 10, 0);
		break;
	case TT_OP_RMWCIB0: case TT_OP_RMWCIB1: case TT_OP_RMWCIB2: case TT_OP_RMWCIB3:
		read[n++] = tt_bits(w, 7, 0);
		break;
	case TT_OP_CFGSHIFTMASK: {
		unsigned sel = tt_bits(w, 9, 8);
		read[n++] = tt_bits(w, 7, 0);
		read[n++] = BH_CFG_SCRATCH0 + (sel < 3 ? sel : th->id);
		break;
	}
	default:
		return -1;
	}
	uint32_t wr = th->hz_wrcfg.word;
	bool wide = tt_bits(wr, 15, 15);
	unsigned idx = wide ? tt_bits(wr, 10, 0) & ~3u : tt_bits(wr, 10, 0), len = wide ? 4 : 1;
	for (unsigned k = 0; k < n; k++)
		for (unsigned j = 0; j < len; j++)
			if (read[k] < BH_TT_CFG_WORDS && idx + j < BH_TT_CFG_WORDS &&
			    bh_tensix_cfg_cell(t, cfg_bank(th), read[k]) == bh_tensix_cfg_cell(t, th->hz_wrcfg.bank, idx + j))
				return (int)read[k];
	return -1;
}

/* "Tensix thread 0 instruction 0x... WRCFG ... (pushed by trisc0 at pc 0x...)" */
static void hazard_describe(const struct bh_tt_thread *th, const struct tt_hazard *h, const char *what, char *buf,
			    size_t n)
{
	char dis[96];
	tt_disasm(h->word, dis, sizeof dis);
	snprintf(buf, n, "%s: Tensix thread %u, instruction 0x%08x %s (pushed by %s at pc 0x%08x)", what, th->id,
		 h->word, dis, bh_core_kind_name((enum bh_core_kind)h->pusher), h->pc);
}

__attribute__((cold, noinline))
static enum tt_result cfg_hazard(struct bh_tt_thread *th, uint32_t w)
{
	char other[256];
	int idx = th->hz_wrcfg.word ? cfg_read_of_wrcfg(th, w) : -1;
	if (idx >= 0) {
		hazard_describe(th, &th->hz_wrcfg, "the WRCFG right before it", other, sizeof other);
		th->hz_wrcfg.word = 0;
		return tt_check(th, BH_CHECK_CFG_HAZARD, w, other,
				"reads configuration word %d in the cycle after the WRCFG before it wrote it, before the "
				"write lands (put a NOP between, WRCFG.md)", idx);
	}
	uint64_t g = th->hz_rdcfg_gprs & gprs_read(w);
	if (!g)
		return TT_OK;
	hazard_describe(th, &th->hz_rdcfg, "the RDCFG writing it", other, sizeof other);
	th->hz_rdcfg_gprs &= ~g;
	return tt_check(th, BH_CHECK_CFG_HAZARD, w, other,
			"reads GPR %d before the RDCFG result has arrived (wait with STALLWAIT C12, the configuration "
			"unit idle, first)", __builtin_ctzll(g));
}

/* After the checks of w: what w leaves for the next instructions. */
static void cfg_hazard_note(struct bh_tt_thread *th, uint32_t w)
{
	unsigned op = tt_opcode_of(w);
	struct tt_hazard h = { .word = w, .pc = th->cur.pc, .pusher = th->cur.pusher, .bank = (uint8_t)cfg_bank(th) };
	th->hz_wrcfg.word = 0;
	if (op == TT_OP_WRCFG) {
		th->hz_wrcfg = h;
	} else if (op == TT_OP_RDCFG) {
		th->hz_rdcfg = h;
		th->hz_rdcfg_gprs |= 1ull << tt_bits(w, 21, 16);
	} else if (op == TT_OP_STALLWAIT && (tt_bits(w, 12, 0) & STALL_C12)) {
		th->hz_rdcfg_gprs = 0;
	}
}

/* ---------------------------------------------------------------------------------------------
 * Sync unit: semaphores (SEMINIT.md, SEMPOST.md, SEMGET.md) and their checks (races.md #13).
 */

/* sem-reinit, first half: another thread held at its Wait Gate by a SEMWAIT on a semaphore of
 * mask, or with such a SEMWAIT latched (its next instruction of a blocked unit will wait).
 * Returns that semaphore (-1: none) and describes the waiter in other. */
static int sem_waited_by_other(struct bh_tt_thread *th, unsigned mask, char *other, size_t n)
{
	struct bh_tensix *tx = th->tx;
	int found = -1;
	bh_lock(&tx->lock);
	for (unsigned i = 0; i < BH_TT_THREADS && found < 0; i++) {
		const struct bh_tt_thread *o = &tx->th[i];
		unsigned held = o->wait_sems & mask;
		unsigned latched = atomic_load_explicit(&o->latched_sems, memory_order_relaxed) & mask;
		if (i == th->id || !(held | latched))
			continue;
		if (held) {
			found = __builtin_ctz(held);
			size_t len = (size_t)snprintf(other, n, "Tensix thread %u held at its Wait Gate by ", i);
			if (len < n) {
				tt_wait_text(o, other + len, n - len);
				len += strlen(other + len);
				snprintf(other + len, n - len, " (the held word pushed by %s at pc 0x%08x)",
					 bh_core_kind_name((enum bh_core_kind)o->cur.pusher), o->cur.pc);
			}
		} else {
			char dis[64];
			found = __builtin_ctz(latched);
			tt_disasm(atomic_load_explicit(&o->latched_word, memory_order_relaxed), dis, sizeof dis);
			snprintf(other, n, "Tensix thread %u with %s latched (its next gated instruction waits on it)", i,
				 dis);
		}
	}
	bh_unlock(&tx->lock);
	return found;
}

/* The operation is applied first, so that the checks read the exact state it changed (another
 * thread's SEMGET between a check and the update cannot make a correct SEMPOST look wrong). */
static enum tt_result tt_sem_op(struct bh_tt_thread *th, uint32_t w)
{
	struct bh_tile *t = th->tx->tile;
	const struct bh_checks *ch = &t->chip->checks;
	unsigned mask = tt_bits(w, 9, 2);
	char other[192] = "";
	int k;
	switch (tt_opcode_of(w)) {
	case TT_OP_SEMINIT: {
		unsigned max = tt_bits(w, 23, 20), value = tt_bits(w, 19, 16);
		int waited = bh_checks_on(ch, BH_CHECK_SEM_REINIT) ? sem_waited_by_other(th, mask, other, sizeof other) : -1;
		uint64_t old = bh_sem_init(t, mask, max, value);
		if (!bh_checks_on(ch, BH_CHECK_SEM_REINIT))
			return TT_OK;
		if (waited >= 0)
			return tt_check(th, BH_CHECK_SEM_REINIT, w, other,
					"SEMINIT of semaphore %d while another thread waits on it (drain the users first)", waited);
		for (k = 0; k < BH_SEM_COUNT && !((mask >> k & 1) && bh_sem_state_value(old, (unsigned)k)); k++)
			;
		if (k < BH_SEM_COUNT)
			return tt_check(th, BH_CHECK_SEM_REINIT, w, NULL,
					"SEMINIT of semaphore %d while its value is %u (max %u), not 0: it is still in use", k,
					bh_sem_state_value(old, (unsigned)k), bh_sem_state_max(old, (unsigned)k));
		return TT_OK;
	}
	case TT_OP_SEMPOST: {
		uint64_t old = bh_sem_post(t, mask);
		if (bh_checks_on(ch, BH_CHECK_SEM_OVERFLOW) && (k = bh_sem_post_past_max(old, mask)) >= 0)
			return tt_check(th, BH_CHECK_SEM_OVERFLOW, w, NULL,
					"SEMPOST of semaphore %d past its max: value %u, max %u", k,
					bh_sem_state_value(old, (unsigned)k), bh_sem_state_max(old, (unsigned)k));
		return TT_OK;
	}
	default: {
		uint64_t old = bh_sem_get(t, mask);
		if (bh_checks_on(ch, BH_CHECK_SEM_UNDERFLOW) && (k = bh_sem_get_at_zero(old, mask)) >= 0)
			return tt_check(th, BH_CHECK_SEM_UNDERFLOW, w, NULL,
					"SEMGET of semaphore %d at 0 (max %u): nothing was posted to take", k,
					bh_sem_state_max(old, (unsigned)k));
		return TT_OK;
	}
	}
}

static enum tt_result tt_execute(struct bh_tt_thread *th, const struct tt_opinfo *oi, uint32_t w)
{
	if (oi->exec == TT_E_B)
		return TT_OK;   /* boot-time data-plane set-up (tensix.md 9): accepted, no state kept */
	if (oi->plane == TT_P_DATA) {
		unsigned open = tt_open_unit(w);
		if (open)
			tt_opened(th, open);
		return tt_dp_execute(th, oi, w);
	}
	unsigned op = tt_opcode_of(w);
	if (op == TT_OP_SEMINIT || op == TT_OP_SEMPOST || op == TT_OP_SEMGET)
		tt_provoke(th, BH_SYNC_COUNTER, true);
	switch (op) {
	case TT_OP_NOP:
	case TT_OP_DMANOP:
	case TT_OP_FLUSHDMA:   /* scalar-unit requests are complete before the next instruction */
		return TT_OK;
	case TT_OP_SEMINIT:
	case TT_OP_SEMPOST:
	case TT_OP_SEMGET:
		return tt_sem_op(th, w);
	case TT_OP_SEMWAIT:
	case TT_OP_STALLWAIT:
	case TT_OP_STREAMWAIT:
		return tt_wait_insn(th, w);
	case TT_OP_ATGETM:
		return tt_mutex(th, w, true);
	case TT_OP_ATRELM:
		return tt_mutex(th, w, false);
	case TT_OP_SETDMAREG:
		return tt_setdmareg(th, w);
	case TT_OP_STOREREG:
		return tt_reg_access(th, w, true);
	case TT_OP_LOADREG:
		return tt_reg_access(th, w, false);
	default:
		break;
	}
	if (oi->unit == TT_U_SCALAR)
		return tt_dmareg_op(th, w);
	return tt_config(th, w);
}
