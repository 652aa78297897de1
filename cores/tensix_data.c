/* The Tensix data plane (tensix.md 10): SrcA/SrcB with their bank hand-over between unpackers and
 * matrix unit, Dst, the threads' RWCs, and the matrix unit (FPU). Semantics from the functional
 * models of tt-isa-documentation (SrcASrcB.md, Dst.md, RWCs.md, SETDVALID.md, CLEARDVALID.md,
 * ZEROSRC.md, ZEROACC.md, SETRWC.md, INCRWC.md, ELWADD.md, ELWSUB.md, ELWMUL.md, MVMUL.md,
 * MOVA2D.md, MOVB2D.md); Blackhole operand bit ranges from cores/tensix_insns.h, configuration
 * field positions from the Blackhole register tables (BH_DP_* below).
 *
 * Each unit executes one instruction at a time whichever thread issued it (fpu_lock,
 * unpack_lock, pack_lock). An instruction that needs a Src bank waits for its owner the way the
 * Wait Gate waits: parked under tx->lock, woken by every ownership change.
 *
 * Floating-point arithmetic: the documentation gives the matrix unit's model as "a rough guide"
 * (denormals flushed, no IEEE NaN/infinity). bhemu computes each element in binary32 in the
 * model's order, flushes denormal inputs and results to zero, and rounds a 16-bit Dst result to
 * nearest with ties away from zero (the rounding the documentation gives the packers; it gives
 * none for RoundToBF16/RoundToFP16). Results whose binary32 computation is exact are therefore
 * exact; others may differ from silicon in the last place. */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "cores/tensix.h"
#include "cores/tensix_dp.h"
#include "cores/tensix_fmt.h"
#include "cores/tensix_sfpu.h"
#include "fabric/mmio.h"
#include "fabric/pages.h"
#include "fabric/tile.h"

bool tt_dp_init(struct bh_tensix *tx)
{
	struct tt_dp *dp = bh_pages_alloc(sizeof *dp);   /* zeroed, touched where used */
	if (!dp)
		return false;
	/* SrcASrcB.md reset: every bank belongs to the unpackers, every client on bank 0. */
	for (unsigned b = 0; b < 2; b++) {
		atomic_init(&dp->srca_client[b], TT_SRC_UNPACKERS);
		atomic_init(&dp->srcb_client[b], TT_SRC_UNPACKERS);
	}
	for (unsigned w = 0; w < TT_DST_ROWS / 64; w++)
		atomic_init(&dp->dst_dirty[w], UINT64_MAX);   /* reset: zeros, defined */
	bh_lock_init(&dp->fpu_lock);
	bh_lock_init(&dp->unpack_lock);
	bh_lock_init(&dp->pack_lock);
	bh_lock_init(&dp->adc_lock);
	dp->pack.fresh = true;
	if (!tt_sfpu_init(dp)) {
		bh_pages_free(dp, sizeof *dp);
		return false;
	}
	tx->dp = dp;
	return true;
}

void tt_dp_destroy(struct bh_tensix *tx)
{
	if (!tx->dp)
		return;
	tt_sfpu_destroy(tx->dp);
	bh_pages_free(tx->dp, sizeof *tx->dp);
	tx->dp = NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Configuration reads.
 */

/* ---------------------------------------------------------------------------------------------
 * Dst views (Dst.md).
 */

bool tt_dst_undefined(struct tt_dp *dp, unsigned row, unsigned col, bool dst32)
{
	unsigned r = dst32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	return atomic_load_explicit(&dp->dst_undef[r], memory_order_relaxed) & (1u << col);
}

/* ZEROACC of one 16-bit row: zeros, all Undefined. A row that is all Undefined already holds zeros
 * (every write stores its datum before it defines it, and only this sets the flags), so it is left
 * as it is: clearing the whole of Dst costs little when the kernel used a few tiles of it. */
static void dst_clear16(struct tt_dp *dp, unsigned r)
{
	if (atomic_load_explicit(&dp->dst_undef[r], memory_order_relaxed) == 0xFFFF)
		return;
	for (unsigned q = 0; q < 4; q++)   /* the row's 16 elements, four to a relaxed 8-byte word */
		tt_st64(&dp->dst[r][4 * q], 0);
	atomic_store_explicit(&dp->dst_undef[r], 0xFFFF, memory_order_relaxed);
}

/* ZEROACC of 16-bit rows lo .. hi - 1: only those written since their last clear (dst_dirty). */
static void dst_clear_rows(struct tt_dp *dp, unsigned lo, unsigned hi)
{
	for (unsigned w = lo / 64; w * 64 < hi; w++) {
		unsigned a = w * 64 > lo ? 0 : lo % 64, b = (w + 1) * 64 <= hi ? 64 : hi % 64;
		uint64_t mask = (b == 64 ? UINT64_MAX : (1ull << b) - 1) & ~((1ull << a) - 1);
		uint64_t bits = atomic_fetch_and_explicit(&dp->dst_dirty[w], ~mask, memory_order_relaxed) & mask;
		for (; bits; bits &= bits - 1)
			dst_clear16(dp, w * 64 + (unsigned)__builtin_ctzll(bits));
	}
}

static void dst_clear_row(struct tt_dp *dp, unsigned row, bool dst32)
{
	unsigned r = dst32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	dst_clear16(dp, r);
	if (dst32)
		dst_clear16(dp, r + 8);
}

/* ---------------------------------------------------------------------------------------------
 * SrcA/SrcB ownership.
 */

static const char *const client_name[] = { "the matrix unit", "the unpackers" };

static uint8_t ld8(_Atomic uint8_t *p)
{
	return atomic_load_explicit(p, memory_order_acquire);
}

static void st8(_Atomic uint8_t *p, uint8_t v)
{
	atomic_store_explicit(p, v, memory_order_release);
}

/* The first Src ownership condition of mask that holds (keep waiting), as which | bank << 2 |
 * owner << 3, or -1 when none does. Condition `which` (bit of mask): 0 SrcA for the unpackers
 * (C5), 1 SrcB for the unpackers (C6), 2 SrcA for the matrix unit (C7), 3 SrcB for the matrix
 * unit (C8); bank: the one that client works on, owner: who has it. */
static int src_blocker(struct tt_dp *dp, unsigned mask)
{
	for (unsigned which = 0; which < 4; which++) {
		if (!(mask >> which & 1))
			continue;
		bool b_reg = which & 1, matrix = which >> 1;
		unsigned bank = matrix ? ld8(b_reg ? &dp->matrix_srcb_bank : &dp->matrix_srca_bank)
				       : ld8(&dp->unpacker_bank[b_reg]);
		unsigned owner = ld8(b_reg ? &dp->srcb_client[bank] : &dp->srca_client[bank]);
		if (owner != (matrix ? TT_SRC_MATRIX_UNIT : TT_SRC_UNPACKERS))
			return (int)(which | bank << 2 | owner << 3);
	}
	return -1;
}

/* Whether a condition of mask holds; with describe, which one goes into th->wait_desc for
 * reports ("<who> until ...", who: the instruction's name, NULL: "STALLWAIT C<5 + which>"). */
static bool src_holds(struct bh_tt_thread *th, unsigned mask, bool describe, const char *who)
{
	int b = src_blocker(th->tx->dp, mask);
	if (b < 0)
		return false;
	if (describe)
		th->wait_desc = (struct tt_wait_desc){ .kind = TT_WD_SRC, .blocker = b, .who = who };
	return true;
}

void tt_dp_src_text(const struct tt_wait_desc *d, char *buf, size_t n)
{
	unsigned b = (unsigned)d->blocker, owner = b >> 3;
	char who[16];
	if (!d->who)
		snprintf(who, sizeof who, "STALLWAIT C%u", 5 + (b & 3));
	snprintf(buf, n, "%s until %s bank %u belongs to %s (it belongs to %s)", d->who ? d->who : who,
		 b & 1 ? "SrcB" : "SrcA", b >> 2 & 1, client_name[owner ^ 1], client_name[owner]);
}

void tt_dp_src_waiter(struct bh_tt_thread *th, bool on, unsigned mask)
{
	struct tt_dp *dp = th->tx->dp;
	if (on) {
		/* What holds the wait now is what the waiter's re-check under the same lock sees. */
		atomic_store_explicit(&dp->src_wait_mask[th->id], (uint8_t)mask, memory_order_relaxed);
		atomic_store_explicit(&dp->src_wait_blocker[th->id], (int16_t)src_blocker(dp, mask), memory_order_relaxed);
		atomic_fetch_or_explicit(&dp->src_waiters, (uint8_t)(1u << th->id), memory_order_seq_cst);
	} else {
		atomic_fetch_and_explicit(&dp->src_waiters, (uint8_t)~(1u << th->id), memory_order_seq_cst);
	}
}

/* The executors waiting on ownership that a change concerns re-check their wait. A waiter
 * registers (its conditions and what holds them, then its bit) under tx->lock before its last
 * check, and ownership changes under that lock before this runs: either the waiter's check sees
 * the change or this sees the waiter. This reads ownership after the change that called it, and
 * every later change calls it again, so a waiter held by the same condition, bank and owner as
 * when it parked is left asleep: woken, it would only park again with the same description. */
static void dp_wake_all(struct bh_tensix *tx)
{
	struct tt_dp *dp = tx->dp;
	unsigned w = atomic_load_explicit(&dp->src_waiters, memory_order_seq_cst);
	for (unsigned i = 0; i < BH_TT_THREADS; i++)
		if (w >> i & 1 && src_blocker(dp, atomic_load_explicit(&dp->src_wait_mask[i], memory_order_relaxed)) !=
				    atomic_load_explicit(&dp->src_wait_blocker[i], memory_order_relaxed))
			bh_park_wake(&tx->th[i].waiter);
}

bool tt_dp_stall_holds(struct bh_tt_thread *th, uint32_t cond, bool describe)
{
	return src_holds(th, cond >> 5 & 15, describe, NULL);
}

/* Wait, parked, while any of the conditions in mask (bit k: src_blocker's which) holds. */
enum tt_result tt_dp_wait_src(struct bh_tt_thread *th, uint32_t w, unsigned mask)
{
	struct bh_tensix *tx = th->tx;
	const char *name = tt_opinfo(tt_opcode_of(w))->name;
	enum tt_result r = TT_OK;
	bool locked = false;
	for (;;) {
		if (!src_holds(th, mask, false, name))   /* described only when the thread parks */
			break;
		if (!locked) {   /* re-check under the lock, which the owner changes take */
			bh_lock(&tx->lock);
			locked = true;
			continue;
		}
		if (tt_abandoned(th)) {
			r = TT_ABORT;
			break;
		}
		th->cur_word = w;
		tt_dp_src_waiter(th, true, mask);
		if (src_holds(th, mask, !th->on_trisc, name))
			tt_wait_locked(th, NULL);
		tt_dp_src_waiter(th, false, mask);
	}
	if (locked)
		bh_unlock(&tx->lock);
	return r;
}

/* Hand the matrix unit's current banks to the unpackers (clear: unless disabled) and flip it
 * to the other bank (flip), for each of SrcA (bit 0) and SrcB (bit 1) of regs. */
static void matrix_release(struct bh_tt_thread *th, unsigned regs, bool clear_a, bool clear_b, bool flip)
{
	struct tt_dp *dp = th->tx->dp;
	if (!regs)
		return;
	bh_lock(&th->tx->lock);
	for (unsigned r = 0; r < 2; r++) {
		if (!(regs >> r & 1))
			continue;
		_Atomic uint8_t *bank = r ? &dp->matrix_srcb_bank : &dp->matrix_srca_bank;
		unsigned b = ld8(bank);
		if (r ? clear_b : clear_a)
			st8(r ? &dp->srcb_client[b] : &dp->srca_client[b], TT_SRC_UNPACKERS);
		if (flip)
			st8(bank, (uint8_t)(b ^ 1));
	}
	bh_unlock(&th->tx->lock);
	dp_wake_all(th->tx);
}

/* The FPU instructions' FlipSrcA/FlipSrcB (ELWADD.md "Possibly flip source banks"): the hand-back
 * can be disabled per thread (ThreadConfig CLR_DVALID). */
static void matrix_flip(struct bh_tt_thread *th, unsigned regs)
{
	uint32_t dis = tt_dp_tcfg(th, BH_DP_TCFG_CLR_DVALID);
	matrix_release(th, regs, !(dis & 1), !(dis & 2), true);
}

/* SETDVALID (and UNPACR's FlipSrc, UNPACR_NOP's SETDVALID form): the unpacker's current bank goes
 * to the matrix unit with its implied format, the unpacker flips and its row for this thread
 * returns to SRCA/SRCB_SET_Base * 16 (each thread's row is only ever touched by that thread's
 * instructions). */
void tt_dp_unpacker_flip(struct bh_tt_thread *th, unsigned u, unsigned fmt)
{
	struct tt_dp *dp = th->tx->dp;
	bh_lock(&th->tx->lock);
	unsigned b = ld8(&dp->unpacker_bank[u]);
	atomic_store_explicit(u ? &dp->implied_srcb[b] : &dp->implied_srca[b], (uint8_t)fmt, memory_order_relaxed);
	st8(u ? &dp->srcb_client[b] : &dp->srca_client[b], TT_SRC_MATRIX_UNIT);
	st8(&dp->unpacker_bank[u], (uint8_t)(b ^ 1));
	bh_unlock(&th->tx->lock);
	dp->unpacker_src_row[u][th->id] = (uint8_t)((tt_dp_tcfg(th, u ? BH_DP_TCFG_SRCB_SET : BH_DP_TCFG_SRCA_SET) & 3) << 4);
	dp_wake_all(th->tx);
}

static enum tt_result dp_cleardvalid(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	if (tt_bits(w, 0, 0)) {   /* Reset */
		bh_lock(&th->tx->lock);
		st8(&dp->matrix_srca_bank, 0);
		st8(&dp->matrix_srcb_bank, 0);
		for (unsigned b = 0; b < 2; b++) {
			st8(&dp->unpacker_bank[b], 0);
			st8(&dp->srca_client[b], TT_SRC_UNPACKERS);
			st8(&dp->srcb_client[b], TT_SRC_UNPACKERS);
			st8(&dp->implied_srca[b], 0);   /* Blackhole: both implied formats 0 (CLEARDVALID.md) */
			st8(&dp->implied_srcb[b], 0);
		}
		bh_unlock(&th->tx->lock);
		dp_wake_all(th->tx);
		return TT_OK;
	}
	matrix_release(th, tt_bits(w, 23, 22), true, true, !tt_bits(w, 1, 1));
	return TT_OK;
}

/* SETDVALID is a miscellaneous-unit instruction: it does not queue behind an UNPACR that waits
 * for its bank (the row it resets is this thread's own, touched by no other thread). On Blackhole
 * it leaves the bank's implied format unpredictable (SETDVALID.md, which calls the instruction
 * unsupported there and recommends UNPACR_NOP's SETDVALID form): the hand-over is modelled, and a
 * matrix-unit instruction that reads that implied format faults. */
static enum tt_result dp_setdvalid(struct bh_tt_thread *th, uint32_t w)
{
	for (unsigned u = 0; u < 2; u++)
		if (tt_bits(w, u, u))
			tt_dp_unpacker_flip(th, u, TT_IMPLIED_UNPREDICTABLE);
	return TT_OK;
}

/* ZEROSRC (ZEROSRC.md). */
static enum tt_result dp_zerosrc(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	bool both = tt_bits(w, 2, 2), matrix = tt_bits(w, 3, 3), neg_inf = tt_bits(w, 4, 4);
	for (unsigned r = 0; r < 2; r++) {
		if (!tt_bits(w, r, r))
			continue;
		bool clear[2] = { both, both };
		if (!both)
			clear[matrix ? ld8(r ? &dp->matrix_srcb_bank : &dp->matrix_srca_bank) : ld8(&dp->unpacker_bank[r])] = true;
		uint32_t v = r == 0 && neg_inf ? 0x7FFFFu : 0;
		for (unsigned b = 0; b < 2; b++)
			for (unsigned i = 0; clear[b] && i < TT_SRC_ROWS; i++)
				for (unsigned j = 0; j < 16; j++)
					atomic_store_explicit(r ? &dp->srcb[b][i][j] : &dp->srca[b][i][j], v,
							      memory_order_relaxed);
	}
	return TT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * RWCs (RWCs.md). Blackhole's AddrMod is three bits: an index into the eight ADDR_MOD sections.
 */

static enum tt_result apply_addr_mod(struct bh_tt_thread *th, uint32_t w, unsigned am)
{
	return tt_dp_addr_mod(th, w, am, true);
}

enum tt_result tt_dp_addr_mod(struct bh_tt_thread *th, uint32_t w, unsigned am, bool fidelity)
{
	struct tt_rwc *c = &th->rwc;
	uint32_t ab = tt_dp_tcfg(th, BH_DP_TCFG_ADDR_MOD_AB + am), d = tt_dp_tcfg(th, BH_DP_TCFG_ADDR_MOD_DST + am);
	if (tt_dp_tcfg(th, BH_DP_TCFG_ADDR_MOD_AB2 + am) & 3)
		return tt_fault(th, BH_FAULT_NOT_MODELLED, w,
				"ADDR_MOD_AB2_SEC%u increments are set: their meaning is not documented", am);
	if (ab >> 7 & 1)
		c->srca = c->srca_cr = 0;
	else if (ab >> 6 & 1)
		c->srca = c->srca_cr = (uint8_t)((c->srca_cr + (ab & 0x3F)) & 0x3F);
	else
		c->srca = (uint8_t)((c->srca + (ab & 0x3F)) & 0x3F);
	if (ab >> 15 & 1)
		c->srcb = c->srcb_cr = 0;
	else if (ab >> 14 & 1)
		c->srcb = c->srcb_cr = (uint8_t)((c->srcb_cr + (ab >> 8 & 0x3F)) & 0x3F);
	else
		c->srcb = (uint8_t)((c->srcb + (ab >> 8 & 0x3F)) & 0x3F);
	unsigned inc = d & 0x3FF;
	if (d >> 11 & 1) {
		c->dst = c->dst_cr = 0;
	} else if (d >> 12 & 1) {
		c->dst = (uint16_t)((c->dst + inc) & 0x3FF);
		c->dst_cr = c->dst;
	} else if (d >> 10 & 1) {
		c->dst = c->dst_cr = (uint16_t)((c->dst_cr + inc) & 0x3FF);
	} else {
		c->dst = (uint16_t)((c->dst + inc) & 0x3FF);
	}
	if (!fidelity)
		return TT_OK;
	if (d >> 15 & 1)
		c->fidelity = 0;
	else
		c->fidelity = (uint8_t)((c->fidelity + (d >> 13 & 3)) & 3);
	return TT_OK;
}

static enum tt_result dp_setrwc(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_rwc *c = &th->rwc;
	unsigned mask = tt_bits(w, 3, 0), cr = tt_bits(w, 21, 18);
	unsigned a = tt_bits(w, 9, 6), b = tt_bits(w, 13, 10), d = tt_bits(w, 17, 14);
	if (mask & 1) {
		if (cr & 1)
			a += c->srca_cr;
		c->srca = c->srca_cr = (uint8_t)(a & 0x3F);
	}
	if (mask & 2) {
		if (cr & 2)
			b += c->srcb_cr;
		c->srcb = c->srcb_cr = (uint8_t)(b & 0x3F);
	}
	if ((mask & 4) || (cr & 8)) {
		if (cr & 8)
			d += c->dst;
		else if (cr & 4)
			d += c->dst_cr;
		c->dst = c->dst_cr = (uint16_t)(d & 0x3FF);
	}
	if (mask & 8)
		c->fidelity = 0;
	matrix_flip(th, tt_bits(w, 23, 22));
	return TT_OK;
}

static enum tt_result dp_incrwc(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_rwc *c = &th->rwc;
	unsigned cr = tt_bits(w, 20, 18), a = tt_bits(w, 9, 6), b = tt_bits(w, 13, 10), d = tt_bits(w, 17, 14);
	if (cr & 1)
		c->srca = c->srca_cr = (uint8_t)((c->srca_cr + a) & 0x3F);
	else
		c->srca = (uint8_t)((c->srca + a) & 0x3F);
	if (cr & 2)
		c->srcb = c->srcb_cr = (uint8_t)((c->srcb_cr + b) & 0x3F);
	else
		c->srcb = (uint8_t)((c->srcb + b) & 0x3F);
	if (cr & 4)
		c->dst = c->dst_cr = (uint16_t)((c->dst_cr + d) & 0x3FF);
	else
		c->dst = (uint16_t)((c->dst + d) & 0x3FF);
	return TT_OK;
}

/* Dst row of an FPU instruction before alignment: Imm10 + the thread's MATH offset + RWC Dst +
 * DEST_REGW_BASE. */
static unsigned dst_base_row(struct bh_tt_thread *th, uint32_t w)
{
	return tt_bits(w, 9, 0) + (tt_dp_tcfg(th, BH_DP_TCFG_MATH_OFFSET) & 0xFFF) + th->rwc.dst +
	       (tt_dp_cfg(th, BH_DP_CFG_DEST_REGW_BASE) & 0xFFFF);
}

/* ---------------------------------------------------------------------------------------------
 * ZEROACC (ZEROACC.md): the rows become "undefined", which every reader bhemu models (matrix unit
 * ELW and MVMUL, packers) reads as zero: bhemu writes zeros. GMPOOL reads them as minus infinity
 * (dst_undef).
 */

static enum tt_result dp_zeroacc(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	unsigned imm = tt_bits(w, 9, 0), mode = tt_bits(w, 20, 19);
	bool wide = tt_bits(w, 18, 18);
	if (tt_bits(w, 17, 17))
		return tt_fault(th, BH_FAULT_NOT_MODELLED, w,
				"ZEROACC with clear_zero_flags (Revert) set: the documentation calls it undefined");
	switch (mode) {
	case 0: {   /* one row */
		uint32_t acc = tt_dp_cfg(th, BH_DP_CFG_ALU);
		dst_clear_row(dp, dst_base_row(th, w) & 0x3FF, acc & (BH_DP_ALU_FP32 | BH_DP_ALU_INT8_MATH));
		break;
	}
	case 1:     /* 16 rows */
		imm &= 0xFF;
		if (imm < (wide ? 32u : 64u))
			for (unsigned i = 0; i < 16; i++)
				dst_clear_row(dp, imm * 16 + i, wide);
		break;
	default: {  /* half (by bit 0 of Imm10) or all of Dst */
		unsigned lo = mode == 3 ? 0 : (imm & 1) * 512, hi = mode == 3 ? 1024 : lo + 512;
		dst_clear_rows(dp, lo, hi);
		return TT_OK;
	}
	}
	return apply_addr_mod(th, w, tt_bits(w, 16, 14));
}

/* ---------------------------------------------------------------------------------------------
 * The matrix unit's arithmetic (ELWADD.md, ELWMUL.md, MVMUL.md).
 */

/* STYLE_NONE: the SrcA format is an implied one SETDVALID left unpredictable (implied_unpredictable). */
enum fpu_style { STYLE_BF16, STYLE_FP16, STYLE_TF32, STYLE_INT8, STYLE_NONE };

/* The data format an instruction reads the matrix unit's SrcA (b false) or SrcB (b true) bank in:
 * on Blackhole that bank's implied format unless the thread's ThreadConfig entry `disable`
 * (DISABLE_IMPLIED_SRCA_FMT_Base or DISABLE_IMPLIED_SRCB_FMT_Base) is set, then the configured
 * SrcA format (ALU_FORMAT_SPEC_REG_SrcA_val when overridden, else REG0_SrcA: MOVB2D and MOVD2B
 * read SrcA's too, as documented). TT_IMPLIED_UNPREDICTABLE after SETDVALID. */
static unsigned src_format(struct bh_tt_thread *th, bool b, unsigned disable)
{
	struct tt_dp *dp = th->tx->dp;
	if (!(tt_dp_tcfg(th, disable) & 1))
		return atomic_load_explicit(b ? &dp->implied_srcb[ld8(&dp->matrix_srcb_bank)]
					      : &dp->implied_srca[ld8(&dp->matrix_srca_bank)], memory_order_relaxed);
	uint32_t spec = tt_dp_cfg(th, BH_DP_CFG_ALU_SPEC);
	return spec & 0x10 ? spec & 15 : tt_dp_cfg(th, BH_DP_CFG_ALU) >> 17 & 15;
}

__attribute__((cold))
static enum tt_result implied_unpredictable(struct bh_tt_thread *th, uint32_t w, bool b)
{
	struct tt_dp *dp = th->tx->dp;
	return tt_fault(th, BH_FAULT_BAD_VALUE, w,
			"%s reads %s bank %u's implied format, unpredictable after SETDVALID (undefined; see "
			"DISABLE_IMPLIED_SRC%c_FMT)", tt_opinfo(tt_opcode_of(w))->name, b ? "SrcB" : "SrcA",
			ld8(b ? &dp->matrix_srcb_bank : &dp->matrix_srca_bank), b && tt_opcode_of(w) == TT_OP_MOVD2B ? 'B' : 'A');
}

static enum fpu_style style_of_format(unsigned fmt)
{
	static const enum fpu_style styles[] = { STYLE_BF16, STYLE_FP16, STYLE_TF32 };
	return styles[tt_dp_src_style(fmt)];
}

/* SrcAStyle and UseDst32b of the functional models (the SrcA format implied unless disabled). */
static enum fpu_style fpu_style(struct bh_tt_thread *th, bool *dst32)
{
	uint32_t alu = tt_dp_cfg(th, BH_DP_CFG_ALU);
	if (tt_dp_tcfg(th, BH_DP_TCFG_FP16A_FORCE) & 1) {
		*dst32 = false;
		return STYLE_FP16;
	}
	if (alu & BH_DP_ALU_INT8_MATH) {
		*dst32 = true;
		return STYLE_INT8;
	}
	*dst32 = alu & BH_DP_ALU_FP32;
	unsigned fmt = src_format(th, false, BH_DP_TCFG_DISABLE_IMPLIED_SRCA);
	if (__builtin_expect(fmt == TT_IMPLIED_UNPREDICTABLE, 0))
		return STYLE_NONE;
	return style_of_format(fmt);
}

unsigned tt_dp_src_style(unsigned fmt)
{
	switch (fmt) {
	case TT_FMT_FP16: case TT_FMT_FP8: case TT_FMT_BFP8A: case TT_FMT_BFP4A: case TT_FMT_BFP2A: case TT_FMT_INT8:
		return 1;
	case TT_FMT_TF32:
		return 2;
	default:
		return 0;
	}
}

static inline __attribute__((always_inline)) float fbits(uint32_t b)
{
	float f;
	if (!(b & 0x7F800000u))
		b &= 0x80000000u;   /* denormals read as zero */
	memcpy(&f, &b, 4);
	return f;
}

static inline __attribute__((always_inline)) uint32_t bitsf(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	if (!(b & 0x7F800000u))
		b &= 0x80000000u;
	return b;
}

static inline __attribute__((always_inline)) float read_src(uint32_t cell, enum fpu_style s)
{
	if (s == STYLE_FP16)
		return fbits(tt_fp16_to_fp32(tt_src_to_fp16(cell)));
	return fbits(tt_src_to_fp32(cell));
}

static int32_t read_src_int8(uint32_t cell)
{
	int32_t m = (int32_t)(cell & 0x3FF);   /* the mantissa field: the magnitude */
	return cell >> 18 & 1 ? -m : m;
}

/* The bits of an integer "8" Src cell a fidelity phase multiplies (SrcA: a, else SrcB), given in
 * the hardware's layout. */
static inline uint32_t int8_fid_mask(bool a, unsigned phase)
{
	return tt_src_cell_of_hw(a ? (phase & 1 ? 0x41FFFu : 0x4E0FFu) : (phase & 2 ? 0x40FFFu : 0x7F0FFu));
}

/* SrcAFidelityBits / SrcBFidelityBits (ELWMUL.md): x with
 * only the bits of hi_mask; with `rest`, the value of the bits that rest_mask clears. */
static float fid_bits(float x, bool rest, uint32_t hi_mask, uint32_t rest_mask)
{
	uint32_t b;
	memcpy(&b, &x, 4);
	return rest ? x - fbits(b & rest_mask) : fbits(b & hi_mask);
}

static float fid_a(float x, unsigned phase)
{
	return fid_bits(x, phase & 1, 0xFFF80000u, 0xFFF83FFFu);
}

static float fid_b(float x, unsigned phase)
{
	return fid_bits(x, phase & 2, 0xFFFE0000u, 0xFFFE1FFFu);
}

static inline __attribute__((always_inline)) float read_dst(struct tt_dp *dp, unsigned row, unsigned col, bool dst32, enum fpu_style s)
{
	if (dst32)
		return fbits(tt_dst_to_fp32(tt_dst32_read(dp, row, col)));
	uint16_t v = tt_dst16_read(dp, row, col);
	return s == STYLE_FP16 ? fbits(tt_fp16_to_fp32(tt_dst_to_fp16(v))) : fbits((uint32_t)tt_dst_to_bf16(v) << 16);
}

static inline __attribute__((always_inline)) void write_dst(struct tt_dp *dp, unsigned row, unsigned col, bool dst32, enum fpu_style s, float x)
{
	uint32_t b = bitsf(x);
	if (dst32)
		tt_dst32_write(dp, row, col, tt_dst_from_fp32(b));
	else if (s == STYLE_FP16)
		tt_dst16_write(dp, row, col, tt_dst_from_fp16(tt_fp32_to_fp16(b, TT_ROUND_NEAREST_AWAY)));
	else
		tt_dst16_write(dp, row, col, tt_dst_from_bf16(tt_fp32_to_bf16(b, TT_ROUND_NEAREST_AWAY)));
}

static int32_t sat_add(int64_t a, int64_t b)
{
	int64_t s = a + b;
	return s > 0x7FFFFFFF ? 0x7FFFFFFF : s < -0x7FFFFFFF ? -0x7FFFFFFF : (int32_t)s;
}

static unsigned fidelity_phase(struct bh_tt_thread *th)
{
	return (th->rwc.fidelity + (tt_dp_tcfg(th, BH_DP_TCFG_FIDELITY_BASE) & 3)) & 3;
}

/* The float paths of ELW* and MVMUL for the BF16 and TF32 styles, four columns per host vector
 * (GCC's vector extensions; SSE2 on x86-64). The operations and their order are those of the
 * scalar path (read_src, fid_a/fid_b, the arithmetic in the same order, read_dst/write_dst), each
 * lane an IEEE single-precision operation, so the results are the same bits (NaN payloads are the
 * host's in both). Cells are loaded one by one: they are relaxed atomics. */
typedef float mm_v4f __attribute__((vector_size(16)));
/* fbits/bitsf on four lanes: denormals as signed zeros. */
static inline __attribute__((always_inline)) tt_v4u mm_flush(tt_v4u b)
{
	return b & ~((tt_v4u)((b & 0x7F800000u) == 0) & 0x7FFFFFFFu);
}

/* The register files' rows are 16-byte aligned (struct tt_dp is page-aligned, bh_pages_alloc), so
 * four cells at a multiple of four columns are two aligned 8-byte words, four Dst elements one. */
_Static_assert(offsetof(struct tt_dp, srca) % 16 == 0 && offsetof(struct tt_dp, srcb) % 16 == 0 &&
	       offsetof(struct tt_dp, dst) % 16 == 0, "register rows are not 16-byte aligned");


/* Four Src cells (c[0..3], c at a multiple of four columns; or c[0] in every lane with bcast) as
 * read_src reads them. */
static inline __attribute__((always_inline)) tt_v4u mm_src_bits(_Atomic uint32_t *c, bool bcast)
{
	tt_v4u v;
	if (bcast) {
		uint32_t x = atomic_load_explicit(c, memory_order_relaxed);
		v = (tt_v4u){ x, x, x, x };
	} else {
		v = tt_v4u_of(tt_ld64(c), tt_ld64(c + 2));
	}
	return mm_flush(v << 13);   /* tt_src_to_fp32 */
}

/* fid_bits on four lanes of flushed FP32 bits. */
static inline __attribute__((always_inline)) mm_v4f mm_fid(tt_v4u b, bool rest, uint32_t hi_mask, uint32_t rest_mask)
{
	return rest ? (mm_v4f)b - (mm_v4f)(b & rest_mask) : (mm_v4f)(b & hi_mask);
}

/* Eight lanes (two SSE2 vectors, one AVX2 vector): a half row of Dst, MVMUL's operand rows. */
typedef float mm_v8f __attribute__((vector_size(32)));
typedef uint32_t mm_v8u __attribute__((vector_size(32)));
typedef uint64_t mm_v4q __attribute__((vector_size(32)));

/* mm_flush on eight lanes. */
static inline __attribute__((always_inline)) void mm_flush8(mm_v8u *b)
{
	*b &= ~((mm_v8u)((*b & 0x7F800000u) == 0) & 0x7FFFFFFFu);
}

/* A Dst row's sixteen 16-bit words (relaxed 8-byte loads and stores), and tt_v8_dst_to_bf16 /
 * tt_v8_dst_from_bf16 on sixteen lanes. */
typedef uint16_t mm_v16h __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) void mm_row_load(_Atomic uint16_t *p, mm_v16h *out)
{
	*out = (mm_v16h)(mm_v4q){ tt_ld64(p), tt_ld64(p + 4), tt_ld64(p + 8), tt_ld64(p + 12) };
}

static inline __attribute__((always_inline)) void mm_row_store(_Atomic uint16_t *p, const mm_v16h *v)
{
	mm_v4q q = (mm_v4q)*v;
	tt_st64(p, q[0]);
	tt_st64(p + 4, q[1]);
	tt_st64(p + 8, q[2]);
	tt_st64(p + 12, q[3]);
}

/* Dst's row (its sixteen elements) as read_dst reads them (BF16 style): the Dst32 halves (or a
 * Dst16 element and zero) as the high and low sixteen bits of the FP32 words, columns 0-7 in
 * out[0], 8-15 in out[1]. */
static inline __attribute__((always_inline)) void mm_dst_read_row(struct tt_dp *dp, unsigned row, bool dst32,
								  mm_v8f out[2])
{
	unsigned r = dst32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	mm_v16h hi, lo = { 0 };
	mm_row_load(dp->dst[r], &hi);
	hi = (hi & 0x8000u) | (hi & 0xFFu) << 7 | (hi >> 8 & 0x7Fu);   /* tt_dst_to_bf16 */
	if (dst32)
		mm_row_load(dp->dst[r + 8], &lo);
	mm_v8u b[2] = {
		__builtin_convertvector(__builtin_shufflevector(hi, hi, 0, 1, 2, 3, 4, 5, 6, 7), mm_v8u) << 16 |
			__builtin_convertvector(__builtin_shufflevector(lo, lo, 0, 1, 2, 3, 4, 5, 6, 7), mm_v8u),
		__builtin_convertvector(__builtin_shufflevector(hi, hi, 8, 9, 10, 11, 12, 13, 14, 15), mm_v8u) << 16 |
			__builtin_convertvector(__builtin_shufflevector(lo, lo, 8, 9, 10, 11, 12, 13, 14, 15), mm_v8u),
	};
	for (unsigned h = 0; h < 2; h++) {
		mm_flush8(&b[h]);
		out[h] = (mm_v8f)b[h];
	}
}

/* Dst's row written as write_dst writes it (BF16 style: FP32, or rounded to BF16 with ties away,
 * NaN to infinity, denormals to +0: tt_fp32_round), from x as mm_dst_read_row gives it.
 * Definedness is the caller's. */
static inline __attribute__((always_inline)) void mm_dst_write_row(struct tt_dp *dp, unsigned row, bool dst32,
								   const mm_v8f x[2])
{
	mm_v8u b[2] = { (mm_v8u)x[0], (mm_v8u)x[1] };
	for (unsigned h = 0; h < 2; h++) {
		mm_flush8(&b[h]);
		if (!dst32)
			b[h] = __builtin_shufflevector(tt_v4_round_bf16(__builtin_shufflevector(b[h], b[h], 0, 1, 2, 3)),
						       tt_v4_round_bf16(__builtin_shufflevector(b[h], b[h], 4, 5, 6, 7)),
						       0, 1, 2, 3, 4, 5, 6, 7);
	}
	unsigned r = dst32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	mm_v16h w0 = (mm_v16h)b[0], w1 = (mm_v16h)b[1];
	mm_v16h hi = __builtin_shufflevector(w0, w1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
	hi = (hi & 0x8000u) | (hi & 0x7Fu) << 8 | (hi & 0x7F80u) >> 7;   /* tt_dst_from_bf16 */
	mm_row_store(dp->dst[r], &hi);
	if (dst32) {
		mm_v16h lo = __builtin_shufflevector(w0, w1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
		mm_row_store(dp->dst[r + 8], &lo);
	}
}

/* Eight Dst elements of row from column col (a multiple of 8) as read_dst reads them (BF16
 * style), as two four-lane vectors (ELW's path on the baseline ISA, where these beat whole rows):
 * the Dst32 halves (or a Dst16 element and zero) interleaved sixteen bits at a time are the FP32
 * words. */
static inline __attribute__((always_inline)) void mm_dst_read8x4(struct tt_dp *dp, unsigned row, unsigned col, bool dst32,
							       mm_v4f out[2])
{
	unsigned r = dst32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	tt_v8h hi = tt_v8_dst_to_bf16(tt_v8h_of(tt_ld64(&dp->dst[r][col]), tt_ld64(&dp->dst[r][col + 4]))), lo = { 0 };
	if (dst32)
		lo = tt_v8h_of(tt_ld64(&dp->dst[r + 8][col]), tt_ld64(&dp->dst[r + 8][col + 4]));
	out[0] = (mm_v4f)mm_flush((tt_v4u)__builtin_shufflevector(lo, hi, 0, 8, 1, 9, 2, 10, 3, 11));
	out[1] = (mm_v4f)mm_flush((tt_v4u)__builtin_shufflevector(lo, hi, 4, 12, 5, 13, 6, 14, 7, 15));
}

/* Eight Dst elements written as write_dst writes them (BF16 style: FP32, or rounded to BF16 with
 * ties away, NaN to infinity, denormals to +0: tt_fp32_round). Definedness is the caller's. */
static inline __attribute__((always_inline)) void mm_dst_write8x4(struct tt_dp *dp, unsigned row, unsigned col, bool dst32,
								const mm_v4f x[2])
{
	tt_v4u b0 = mm_flush((tt_v4u)x[0]), b1 = mm_flush((tt_v4u)x[1]);
	unsigned r = dst32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	if (!dst32)
		b0 = tt_v4_round_bf16(b0), b1 = tt_v4_round_bf16(b1);
	tt_v8h hi = tt_v8_dst_from_bf16(__builtin_shufflevector((tt_v8h)b0, (tt_v8h)b1, 1, 3, 5, 7, 9, 11, 13, 15));
	tt_st64(&dp->dst[r][col], tt_v8h_word(hi, 0));
	tt_st64(&dp->dst[r][col + 4], tt_v8h_word(hi, 1));
	if (dst32) {
		tt_v8h lo = __builtin_shufflevector((tt_v8h)b0, (tt_v8h)b1, 0, 2, 4, 6, 8, 10, 12, 14);
		tt_st64(&dp->dst[r + 8][col], tt_v8h_word(lo, 0));
		tt_st64(&dp->dst[r + 8][col + 4], tt_v8h_word(lo, 1));
	}
}

/* A Dst row written in all 16 columns is defined again (tt_dst_define per element). */
static inline void mm_dst_define_row(struct tt_dp *dp, unsigned row, bool dst32)
{
	unsigned r = dst32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	for (unsigned h = 0; h < (dst32 ? 2u : 1u); h++)
		tt_dst_define_cols(dp, r + 8 * h, 0xFFFF);
}

/* The operands of an element-wise instruction (fpu_elw). */
struct elw_args {
	struct tt_dp *dp;
	unsigned op;
	bool bcast_col0, bcast_row, add_dst;
	unsigned arow, brow, drow, phase, ab, bb;
};

/* ELWADD/ELWSUB/ELWMUL on 8 rows: inlined per (style, Dst width) so that the per-element work is
 * the arithmetic and its conversions. */
static inline __attribute__((always_inline)) void elw_block(const struct elw_args *a, enum fpu_style s, bool dst32)
{
	for (unsigned i = 0; i < 8; i++) {
		for (unsigned j = 0; j < 16; j++) {
			uint32_t va = atomic_load_explicit(&a->dp->srca[a->ab][a->arow + i][j], memory_order_relaxed);
			uint32_t vb = atomic_load_explicit(&a->dp->srcb[a->bb][(a->brow + (a->bcast_row ? 0 : i)) & 0x3F][a->bcast_col0 ? 0 : j],
							  memory_order_relaxed);
			if (s == STYLE_INT8) {
				int32_t r;
				if (a->op == TT_OP_ELWMUL) {
					r = read_src_int8(va & int8_fid_mask(true, a->phase)) * read_src_int8(vb & int8_fid_mask(false, a->phase));
				} else {
					r = a->op == TT_OP_ELWADD ? read_src_int8(va) + read_src_int8(vb) : read_src_int8(va) - read_src_int8(vb);
				}
				if (a->op == TT_OP_ELWMUL || a->add_dst)
					r = sat_add(r, tt_sm32_to_int(tt_dst_to_fp32(tt_dst32_read(a->dp, a->drow + i, j))));
				tt_dst32_write(a->dp, a->drow + i, j, tt_dst_from_fp32(tt_int_to_sm32(r)));
				continue;
			}
			float fa = read_src(va, s), fb = read_src(vb, s), r;
			if (a->op == TT_OP_ELWMUL) {
				r = fid_a(fa, a->phase) * fid_b(fb, a->phase);
			} else {
				r = a->op == TT_OP_ELWADD ? fa + fb : fa - fb;
				if (a->phase & 1)
					r /= 32.f;
				if (a->phase & 2)
					r /= 128.f;
			}
			if (a->op == TT_OP_ELWMUL || a->add_dst)
				r += read_dst(a->dp, a->drow + i, j, dst32, s);
			write_dst(a->dp, a->drow + i, j, dst32, s, r);
		}
	}
}

/* elw_block's float path for the BF16 and TF32 styles on host vectors (see mm_v4f). */
static void elw_float4(const struct elw_args *a, bool dst32)
{
	for (unsigned i = 0; i < 8; i++) {
		_Atomic uint32_t *ra = a->dp->srca[a->ab][a->arow + i];
		_Atomic uint32_t *rb = a->dp->srcb[a->bb][(a->brow + (a->bcast_row ? 0 : i)) & 0x3F];
		for (unsigned q2 = 0; q2 < 4; q2 += 2) {
			mm_v4f r[2], d[2];
			for (unsigned h = 0; h < 2; h++) {
				unsigned q = q2 + h;
				tt_v4u fa = mm_src_bits(&ra[4 * q], false), fb = mm_src_bits(&rb[a->bcast_col0 ? 0 : 4 * q], a->bcast_col0);
				if (a->op == TT_OP_ELWMUL) {
					r[h] = mm_fid(fa, a->phase & 1, 0xFFF80000u, 0xFFF83FFFu) *
					       mm_fid(fb, a->phase & 2, 0xFFFE0000u, 0xFFFE1FFFu);
				} else {
					r[h] = a->op == TT_OP_ELWADD ? (mm_v4f)fa + (mm_v4f)fb : (mm_v4f)fa - (mm_v4f)fb;
					if (a->phase & 1)
						r[h] /= 32.f;
					if (a->phase & 2)
						r[h] /= 128.f;
				}
			}
			if (a->op == TT_OP_ELWMUL || a->add_dst) {
				mm_dst_read8x4(a->dp, a->drow + i, 4 * q2, dst32, d);
				r[0] += d[0];
				r[1] += d[1];
			}
			mm_dst_write8x4(a->dp, a->drow + i, 4 * q2, dst32, r);
		}
		mm_dst_define_row(a->dp, a->drow + i, dst32);
	}
}

/* ELWADD, ELWSUB, ELWMUL. */
static enum tt_result fpu_elw(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	unsigned op = tt_opcode_of(w);
	bool bcast_col0 = tt_bits(w, 19, 19), bcast_row = tt_bits(w, 20, 20), add_dst = tt_bits(w, 21, 21);
	if (op == TT_OP_ELWMUL && add_dst)
		return tt_fault(th, BH_FAULT_NOT_MODELLED, w,
				"ELWMUL with dest_accum_en (bit 21) set: ELWMUL always accumulates and the bit's meaning is "
				"not documented");
	bool dst32;
	enum fpu_style s = fpu_style(th, &dst32);
	if (s == STYLE_NONE)
		return implied_unpredictable(th, w, false);
	unsigned arow = th->rwc.srca & 0x38, brow = th->rwc.srcb & (bcast_row ? 0x3F : 0x38);
	unsigned drow = dst_base_row(th, w) & 0x3F8, phase = fidelity_phase(th);
	struct elw_args a = { dp, op, bcast_col0, bcast_row, add_dst, arow, brow, drow, phase, ld8(&dp->matrix_srca_bank),
			      ld8(&dp->matrix_srcb_bank) };
	/* The common float styles on host vectors; the others per element. */
	if (s == STYLE_BF16 || s == STYLE_TF32)
		elw_float4(&a, dst32);
	else
		elw_block(&a, s, dst32);
	matrix_flip(th, tt_bits(w, 23, 22));
	return apply_addr_mod(th, w, tt_bits(w, 16, 14));
}

/* An MVMUL operand: a float, or an integer in the INT8 style. */
union mm_operand {
	int32_t i;
	float f;
};

/* The matrix unit's operands of one MVMUL: n rows of 16 Src cells from row row0 + i * step (of 64)
 * of one bank, read in style s with the fidelity phase's bits of SrcA (a) or SrcB (INT8: the
 * masked integers). Inlined per style. */

static inline __attribute__((always_inline)) void mvmul_operands(_Atomic uint32_t (*cells)[16], unsigned row0,
								 unsigned step, unsigned n, enum fpu_style s, bool a,
								 unsigned phase, union mm_operand out[][16])
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < 16; j++) {
			uint32_t v = atomic_load_explicit(&cells[(row0 + i * step) & 0x3F][j], memory_order_relaxed);
			if (s == STYLE_INT8)
				out[i][j].i = read_src_int8(v & int8_fid_mask(a, phase));
			else
				out[i][j].f = a ? fid_a(read_src(v, s), phase) : fid_b(read_src(v, s), phase);
		}
}

/* A row of MVMUL sums added to Dst (inlined per Dst width and style). */
static inline __attribute__((always_inline)) void mvmul_row_out(struct tt_dp *dp, unsigned row, const float x[16],
								bool dst32, enum fpu_style s)
{
	for (unsigned j = 0; j < 16; j++)
		write_dst(dp, row, j, dst32, s, x[j] + read_dst(dp, row, j, dst32, s));
}

/* Eight Src cells (c[0..7], c at a multiple of eight columns) with the fidelity phase's bits of
 * SrcA (a) or SrcB (SrcAFidelityBits / SrcBFidelityBits: fid_a / fid_b) on eight lanes. */
static inline __attribute__((always_inline)) void mm_src8(_Atomic uint32_t *c, bool a, bool rest, mm_v8f *out)
{
	mm_v8u b = (mm_v8u)(mm_v4q){ tt_ld64(c), tt_ld64(c + 2), tt_ld64(c + 4), tt_ld64(c + 6) } << 13;
	mm_flush8(&b);
	uint32_t hi_mask = a ? 0xFFF80000u : 0xFFFE0000u, rest_mask = a ? 0xFFF83FFFu : 0xFFFE1FFFu;
	*out = rest ? (mm_v8f)b - (mm_v8f)(b & rest_mask) : (mm_v8f)(b & hi_mask);
}

/* mm_src8 of rows row0 + i * step (of 64), i < n by istep, into out[i]; one loop per part of the
 * fidelity phase (rest) so that the loops do not test it. */
static inline __attribute__((always_inline)) void mm_src_rows(_Atomic uint32_t (*cells)[16], unsigned row0,
							      unsigned step, unsigned n, unsigned istep, bool a,
							      bool rest, mm_v8f out[][2])
{
	if (rest) {
		for (unsigned i = 0; i < n; i += istep)
			for (unsigned h = 0; h < 2; h++)
				mm_src8(&cells[(row0 + i * step) & 0x3F][8 * h], a, true, &out[i][h]);
	} else {
		for (unsigned i = 0; i < n; i += istep)
			for (unsigned h = 0; h < 2; h++)
				mm_src8(&cells[(row0 + i * step) & 0x3F][8 * h], a, false, &out[i][h]);
	}
}

/* MVMUL's rows for the BF16/TF32 styles: each row's sixteen sums in two eight-lane vectors, two
 * rows at a time, each lane's operations those of the scalar path in its order (see mm_v4f).
 * rows and step as in fpu_mvmul. Inlined into an AVX2 and a baseline version (mvmul_float). */
static inline __attribute__((always_inline)) void mvmul_float8(struct tt_dp *dp, unsigned ab, unsigned bb,
							       unsigned arow, unsigned brow, unsigned drow, unsigned rows,
							       unsigned istep, bool bstep, bool dst32, unsigned phase)
{
	mm_v8f ma[16][2], mb[8][2];
	mm_src_rows(dp->srca[ab], arow, 1, 16, 1, true, phase & 1, ma);
	mm_src_rows(dp->srcb[bb], brow, bstep, rows, istep, false, phase & 2, mb);
	/* Two rows at a time, four vectors of sums in registers (rows / istep is 8 or 4). */
	for (unsigned i = 0; i < rows; i += 2 * istep) {
		unsigned i2 = i + istep < rows ? i + istep : i;
		mm_v8f x[2][2] = { { { 0 } } };
		for (unsigned k = 0; k < 16; k++) {
			for (unsigned h = 0; h < 2; h++) {
				x[0][h] += mb[i][k / 8][k % 8] * ma[k][h];   /* the scalar in every lane */
				x[1][h] += mb[i2][k / 8][k % 8] * ma[k][h];
			}
		}
		for (unsigned r = 0; r < (i2 != i ? 2u : 1u); r++) {
			unsigned row = drow + (r ? i2 : i);
			mm_v8f d[2];
			mm_dst_read_row(dp, row, dst32, d);
			d[0] = x[r][0] + d[0];
			d[1] = x[r][1] + d[1];
			mm_dst_write_row(dp, row, dst32, d);
			mm_dst_define_row(dp, row, dst32);
		}
	}
}

__attribute__((target("avx2"))) static void mvmul_float_avx2(struct tt_dp *dp, unsigned ab, unsigned bb,
							    unsigned arow, unsigned brow, unsigned drow,
							    unsigned rows, unsigned istep, bool bstep, bool dst32,
							    unsigned phase)
{
	mvmul_float8(dp, ab, bb, arow, brow, drow, rows, istep, bstep, dst32, phase);
}

static void mvmul_float_base(struct tt_dp *dp, unsigned ab, unsigned bb, unsigned arow, unsigned brow, unsigned drow,
			     unsigned rows, unsigned istep, bool bstep, bool dst32, unsigned phase)
{
	mvmul_float8(dp, ab, bb, arow, brow, drow, rows, istep, bstep, dst32, phase);
}

/* Which path fpu_mvmul takes for the BF16/TF32 styles (TT_MVMUL_AUTO: AVX2 when the host has it). */
_Atomic int tt_mvmul_path = TT_MVMUL_AUTO;

static void mvmul_float(struct tt_dp *dp, unsigned ab, unsigned bb, unsigned arow, unsigned brow, unsigned drow,
			unsigned rows, unsigned istep, bool bstep, bool dst32, unsigned phase)
{
	int path = atomic_load_explicit(&tt_mvmul_path, memory_order_relaxed);
	if (path == TT_MVMUL_AUTO)
		path = __builtin_cpu_supports("avx2") ? TT_MVMUL_AVX2 : TT_MVMUL_BASE;
	if (path == TT_MVMUL_AVX2)
		mvmul_float_avx2(dp, ab, bb, arow, brow, drow, rows, istep, bstep, dst32, phase);
	else
		mvmul_float_base(dp, ab, bb, arow, brow, drow, rows, istep, bstep, dst32, phase);
}

/* MVMUL (MVMUL.md): Dst[8x16] += SrcB[8x16] @ SrcA[16x16] for one fidelity phase. GAPOOL
 * (GAPOOL.md) is the same on 4x16 Dst and SrcB (the top half of SrcB's aligned 8 rows), without
 * BroadcastSrcBRow, its ADDR_MOD at bits 17:15. DOTPV (DOTPV.md) is MVMUL without
 * BroadcastSrcBRow, in the element-wise instructions' layout, written with dest_accum_en set. */
static enum tt_result fpu_mvmul(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	bool gapool = tt_opcode_of(w) == TT_OP_GAPOOL, dotpv = tt_opcode_of(w) == TT_OP_DOTPV;
	if (dotpv && (tt_bits(w, 20, 19) || !tt_bits(w, 21, 21)))
		return tt_fault(th, BH_FAULT_NOT_MODELLED, w,
				"DOTPV with instr_mod19 %u and dest_accum_en %u: only the documented form (0 and 1, "
				"accumulating without broadcast) is defined", tt_bits(w, 20, 19), tt_bits(w, 21, 21));
	bool bcast_row = !gapool && !dotpv && tt_bits(w, 19, 19), dst32;
	enum fpu_style s = fpu_style(th, &dst32);
	if (s == STYLE_NONE)
		return implied_unpredictable(th, w, false);
	unsigned rows = gapool ? 4 : bcast_row ? 7 : 8;
	unsigned arow = th->rwc.srca & 0x38, brow = th->rwc.srcb & (bcast_row ? 0x3F : 0x38);
	unsigned drow = dst_base_row(th, w) & (0x400 - rows), phase = fidelity_phase(th);
	unsigned ab = ld8(&dp->matrix_srca_bank), bb = ld8(&dp->matrix_srcb_bank);
	bool vec = atomic_load_explicit(&tt_mvmul_path, memory_order_relaxed) != TT_MVMUL_SCALAR;
	if (vec && (s == STYLE_BF16 || s == STYLE_TF32)) {
		mvmul_float(dp, ab, bb, arow, brow, drow, rows, bcast_row ? 2 : 1, !bcast_row, dst32, phase);
		matrix_flip(th, tt_bits(w, 23, 22));
		return apply_addr_mod(th, w, gapool ? tt_bits(w, 17, 15) : tt_bits(w, 16, 14));
	}
	union mm_operand mb[8][16], ma[16][16];
	mvmul_operands(dp->srcb[bb], brow, !bcast_row, rows, s, false, phase, mb);
	mvmul_operands(dp->srca[ab], arow, 1, 16, s, true, phase, ma);
	for (unsigned i = 0; i < rows; i += bcast_row ? 2 : 1) {
		if (s == STYLE_INT8) {
			for (unsigned j = 0; j < 16; j++) {
				int32_t x = 0;
				for (unsigned k = 0; k < 16; k++)
					x += mb[i][k].i * ma[k][j].i;
				x = sat_add(x, tt_sm32_to_int(tt_dst_to_fp32(tt_dst32_read(dp, drow + i, j))));
				tt_dst32_write(dp, drow + i, j, tt_dst_from_fp32(tt_int_to_sm32(x)));
			}
			continue;
		}
		/* Each column's sum in k order from 0, as one dot product per column would add it. */
		float x[16] = { 0 };
		for (unsigned k = 0; k < 16; k++)
			for (unsigned j = 0; j < 16; j++)
				x[j] += mb[i][k].f * ma[k][j].f;
		mvmul_row_out(dp, drow + i, x, dst32, s);
	}
	matrix_flip(th, tt_bits(w, 23, 22));
	return apply_addr_mod(th, w, gapool ? tt_bits(w, 17, 15) : tt_bits(w, 16, 14));
}

/* GMPOOL (GMPOOL.md): the column-wise max of a 16x16 SrcA block, each row scaled by the exponent
 * of one SrcB datum, max'ed with a Dst row (the top of an aligned 4-row block, whose other rows
 * become zero), with the documented partial argmax over the first eight rows. Datums compare as
 * sign and (exponent, mantissa or magnitude) in the unit's own encoding. */
struct pool_datum {
	unsigned sign, exp, man;   /* exp 9 bits, man 10 bits */
};

static int32_t pool_key(struct pool_datum d)
{
	int32_t k = (int32_t)((d.exp & 0x1FF) << 10 | (d.man & 0x3FF));
	return d.sign ? -k : k;
}

static struct pool_datum pool_read_dst(uint32_t v, enum fpu_style ds)
{
	struct pool_datum d = { v >> 31, 0, 0 };
	if (ds == STYLE_INT8) {   /* integer "32" (Sign, MagMiddle 7b, MagHi 8b, MagLo 16b): the low 19 bits */
		d.man = v & 0x3FF;
		d.exp = (v >> 10 & 0x3F) | (v >> 24 & 7) << 6;
	} else if (ds == STYLE_FP16) {
		d.exp = (v >> 16 & 0x1F) + 15;
		d.man = v >> 21 & 0x3FF;
	} else {
		d.exp = (v >> 16 & 0xFF) + 127;
		d.man = (v >> 24 & 0x7F) << 3;
		if (ds == STYLE_TF32)
			d.man += v >> 13 & 7;
	}
	return d;
}

static uint32_t pool_write_dst(struct pool_datum d, enum fpu_style ds)
{
	if (ds == STYLE_INT8)   /* the sign and 13 bits of magnitude */
		return d.sign << 31 | (d.exp & 7) << 10 | (d.man & 0x3FF);
	if (ds == STYLE_FP16) {
		if (!(d.exp & 0x3F))
			return 0;
		return d.sign << 31 | (d.man & 0x3FF) << 21 | ((d.exp - 15) & 0x1F) << 16;   /* wraps, as documented */
	}
	if (!(d.exp & 0x1FF))
		return 0;
	uint32_t x = d.sign << 31 | (d.man & 0x3F8) << 21 | ((d.exp - 127) & 0xFF) << 16;
	return ds == STYLE_TF32 ? x + ((d.man & 7) << 13) : x;
}

static struct pool_datum pool_read_src(uint32_t a, enum fpu_style as, uint32_t b)
{
	if (!(b & 0xFF))   /* a zero scale: minus infinity */
		return (struct pool_datum){ 1, 0x1FF, 0x3FF };
	if (!(a & 0xFF))   /* denormals flushed */
		return (struct pool_datum){ 0, 0, 0 };
	struct pool_datum d = { a >> 18 & 1, 0, a >> 8 & 0x3FF };
	switch (as) {
	case STYLE_INT8: break;
	case STYLE_FP16: d.exp = (a & 0x1F) + (b & 0x1F); break;
	case STYLE_TF32: d.exp = (a & 0xFF) + (b & 0xFF); break;
	default: d.exp = (a & 0xFF) + (b & 0xFF); d.man &= 0x3F8; break;
	}
	return d;
}

static enum tt_result fpu_gmpool(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	bool argmax = tt_bits(w, 14, 14);
	if (!tt_bits(w, 19, 19))
		return tt_fault(th, BH_FAULT_NOT_MODELLED, w,
				"GMPOOL with instr_mod19 clear (the 1x16 form): only the 16x16 form is documented");
	/* Styles: SrcA as the other matrix instructions read it; Dst per GMPOOL.md's table. */
	bool dst32;
	enum fpu_style as = fpu_style(th, &dst32), ds = as;
	if (as == STYLE_NONE)
		return implied_unpredictable(th, w, false);
	if (as == STYLE_TF32 && argmax)
		ds = STYLE_INT8;   /* the index alone, as integer "32" */
	else if (as != STYLE_INT8 && !argmax)
		ds = dst32 ? STYLE_TF32 : as == STYLE_TF32 ? STYLE_BF16 : as;
	unsigned arow = th->rwc.srca & 0x30, brow = th->rwc.srcb & 0x38, drow = dst_base_row(th, w) & 0x3FC;
	unsigned ab = ld8(&dp->matrix_srca_bank), bb = ld8(&dp->matrix_srcb_bank);
	static const uint8_t index_of_row[8] = { 0, 3, 6, 1, 4, 7, 2, 5 };
	for (unsigned j = 0; j < 16; j++) {
		uint32_t dv = dst32 ? tt_dst32_read(dp, drow, j) : (uint32_t)tt_dst16_read(dp, drow, j) << 16;
		struct pool_datum max = pool_read_dst(dv, ds);
		if (tt_dst_undefined(dp, drow, j, dst32))   /* ZEROACC'd: GMPOOL's identity, minus infinity */
			max = (struct pool_datum){ 1, 0x1FF, 0x3FF };
		uint32_t max_index = dv & 0xFF, phase = (dv + 0x100) & 0xF00;
		for (unsigned k = 0; k < 16; k++) {
			unsigned i = k < 8 ? k ^ 4 : k;   /* the documented visiting order (ties) */
			uint32_t a = atomic_load_explicit(&dp->srca[ab][arow + i][j], memory_order_relaxed);
			uint32_t b = atomic_load_explicit(&dp->srcb[bb][brow][i], memory_order_relaxed);
			struct pool_datum x = pool_read_src(tt_src_hw_of_cell(a), as, tt_src_hw_of_cell(b));
			if (pool_key(x) >= pool_key(max)) {
				max = x;
				if (i < 8)
					max_index = (phase >> 4) + index_of_row[i];
			}
		}
		uint32_t out = pool_write_dst(max, ds);
		if (argmax)
			out = ds == STYLE_INT8 ? (phase | max_index) : out | phase | max_index;   /* integer: index only */
		if (dst32) {
			tt_dst32_write(dp, drow, j, out);
			for (unsigned i = 1; i < 4; i++)
				tt_dst32_write(dp, drow + i, j, argmax ? (tt_dst32_read(dp, drow + i, j) + 0x100) & 0xF00 : 0);
		} else {
			tt_dst16_write(dp, drow, j, (uint16_t)(out >> 16));
			for (unsigned i = 1; i < 4; i++)
				tt_dst16_write(dp, drow + i, j, 0);
		}
	}
	matrix_flip(th, tt_bits(w, 23, 22));
	return apply_addr_mod(th, w, tt_bits(w, 17, 15));
}

/* The columns LaneConfig's BLOCK_DEST_MOV keeps every MOV instruction (MOVA2D, MOVB2D, MOVB2A,
 * MOVD2A, MOVD2B) from writing (bit = column): their destination datums keep their old values. */
static uint32_t mov_blocked(struct tt_dp *dp)
{
	return atomic_load_explicit(&dp->sfpu->mov_blocked, memory_order_relaxed);
}

/* TRNSPSRCB (TRNSPSRCB.md): SrcB rows 16..31 of the matrix unit's bank transposed in place. */
static enum tt_result fpu_trnspsrcb(struct bh_tt_thread *th)
{
	struct tt_dp *dp = th->tx->dp;
	unsigned bb = ld8(&dp->matrix_srcb_bank);
	for (unsigned i = 0; i < 16; i++)
		for (unsigned j = 0; j < i; j++) {
			_Atomic uint32_t *ij = &dp->srcb[bb][16 + i][j], *ji = &dp->srcb[bb][16 + j][i];
			uint32_t v = atomic_load_explicit(ij, memory_order_relaxed);
			atomic_store_explicit(ij, atomic_load_explicit(ji, memory_order_relaxed), memory_order_relaxed);
			atomic_store_explicit(ji, v, memory_order_relaxed);
		}
	return TT_OK;
}

/* MOVB2A (MOVB2A.md): one row or an aligned block of four from the matrix unit's SrcB bank to
 * its SrcA bank (waiting for SrcB only), denormals flushed unless disabled. The documentation's
 * TruncateSrc is not defined anywhere public; bhemu copies the 19 bits unchanged (a raw copy, as
 * the Blackhole emulator notes describe it). */
static enum tt_result fpu_movb2a(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	unsigned mode = tt_bits(w, 13, 12);
	if (mode & 1)
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "MOVB2A instr_mod %u: only 0 (one row) and 2 (four rows) are "
				"documented", mode);
	bool four = mode & 2, flush = !(tt_dp_cfg(th, BH_DP_CFG_ACC_CTRL) & 1);
	uint32_t blocked = mov_blocked(dp);
	unsigned arow = tt_bits(w, 22, 17) + th->rwc.srca, brow = tt_bits(w, 5, 0) + th->rwc.srcb;
	unsigned rows = four ? 4 : 1, mask = four ? 0x3C : 0x3F;
	unsigned ab = ld8(&dp->matrix_srca_bank), bb = ld8(&dp->matrix_srcb_bank);
	arow &= mask;
	brow &= mask;
	for (; rows; rows--, arow++, brow++)
		for (unsigned c = 0; c < 16; c++) {
			if (blocked >> c & 1)
				continue;
			uint32_t v = atomic_load_explicit(&dp->srcb[bb][brow][c], memory_order_relaxed);
			if (flush && !(tt_src_hw_of_cell(v) & 0xFF))   /* a zero exponent */
				v = 0;
			atomic_store_explicit(&dp->srca[ab][arow][c], v, memory_order_relaxed);
		}
	return apply_addr_mod(th, w, tt_bits(w, 16, 14));
}

/* MOVA2D / MOVB2D (MOVA2D.md, MOVB2D.md). */
static uint16_t remove_low_mantissa(uint32_t x)
{
	return (uint16_t)((x & (1u << 18)) >> 3 | (x & (0x7Fu << 11)) >> 3 | (x & 0xFF));
}

static uint16_t remove_high_exponent(uint32_t x)
{
	return (uint16_t)((x & (1u << 18)) >> 3 | (x & (0x3FFu << 8)) >> 3 | (x & 0x1F));
}

static enum tt_result fpu_mov2d(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	bool from_b = tt_opcode_of(w) == TT_OP_MOVB2D, lo32 = tt_bits(w, 23, 23);
	/* MOVB2D: SrcB's implied format under SrcA's disable bit, as ttsim and tt-llk have it (README). */
	unsigned fmt = src_format(th, from_b, BH_DP_TCFG_DISABLE_IMPLIED_SRCA);
	if (fmt == TT_IMPLIED_UNPREDICTABLE)
		return implied_unpredictable(th, w, from_b);
	bool exp8 = !(tt_dp_tcfg(th, BH_DP_TCFG_FP16A_FORCE) & 1) && tt_dp_src_style(fmt) != 1;
	bool flush = !(tt_dp_cfg(th, BH_DP_CFG_ACC_CTRL) & 1);
	uint32_t blocked = mov_blocked(dp);
	unsigned drow = dst_base_row(th, w), srow = tt_bits(w, 22, 17) + (from_b ? th->rwc.srcb : th->rwc.srca);
	unsigned rows = 1, bank = ld8(from_b ? &dp->matrix_srcb_bank : &dp->matrix_srca_bank);
	bool col0 = false, bcast = false;
	if (!from_b) {
		if (tt_bits(w, 13, 13))
			rows = 8, drow &= 0x3F8, srow &= 0x38;
	} else {
		col0 = tt_bits(w, 11, 11);
		bcast = tt_bits(w, 12, 12);
		if (bcast)
			rows = 8, drow &= 0x3F8;
		else if (tt_bits(w, 13, 13))
			rows = 4, drow &= 0x3FC, srow &= 0x3C;
	}
	drow &= 0x3FF;
	srow &= 0x3F;
	for (; rows; rows--, drow++, srow = bcast ? srow : srow + 1) {
		if (!blocked && !col0 && exp8 && fmt != TT_FMT_TF32 && !lo32) {
			/* The common move of a whole row to a 16-bit Dst (remove_low_mantissa), four cells
			 * at a time: in bhemu's cell a BF16 is cell >> 3. */
			_Atomic uint32_t *cells = from_b ? dp->srcb[bank][srow & 0x3F] : dp->srca[bank][srow & 0x3F];
			for (unsigned q = 0; q < 4; q++) {
				tt_v4u v = tt_v4u_of(tt_ld64(&cells[4 * q]), tt_ld64(&cells[4 * q + 2]));
				if (flush)
					v &= (tt_v4u)((v & 0x3FC00u) != 0);   /* a zero exponent: 0 */
				tt_st64(&dp->dst[drow & 0x3FF][4 * q], tt_narrow16(tt_v4_dst_from_bf16(v >> 3)));
			}
			tt_dst_define_cols(dp, drow & 0x3FF, 0xFFFF);
			continue;
		}
		for (unsigned c = 0; c < 16; c++) {
			if (blocked >> c & 1)
				continue;
			uint32_t v = atomic_load_explicit(from_b ? &dp->srcb[bank][srow & 0x3F][col0 ? 0 : c]
							  : &dp->srca[bank][srow & 0x3F][c], memory_order_relaxed);
			v = tt_src_hw_of_cell(v);
			if (flush && !(v & 0xFF))
				v = 0;
			uint16_t v16 = exp8 ? remove_low_mantissa(v) : remove_high_exponent(v);
			if (fmt == TT_FMT_TF32) {
				uint32_t lo = (v >> 8 & 7) << 13;
				if (lo32)
					lo |= v16;
				tt_dst32_write(dp, drow, c, (uint32_t)v16 << 16 | (lo & 0xFFFF));
			} else if (lo32) {
				tt_dst32_write(dp, drow, c, (tt_dst32_read(dp, drow, c) & 0xFFFF0000u) | v16);
			} else {
				tt_dst16_write(dp, drow, c, v16);
			}
		}
	}
	return apply_addr_mod(th, w, tt_bits(w, 16, 14));
}

/* MOVD2A / MOVD2B (MOVD2A.md, MOVD2B.md): one or four Dst rows into the matrix unit's SrcA or
 * SrcB bank, without waiting for it (software waits with STALLWAIT C7/C8). The documentation's
 * ShuffleTF32 masks the sign and high mantissa with 0x3fc000, which is outside a 19-bit value;
 * bhemu takes the evident intent (bits 18:11). */
static uint32_t shuffle_bf16(uint16_t x)
{
	return (uint32_t)(x & 0xFF00u) << 3 | (x & 0xFFu);
}

static uint32_t shuffle_fp16(uint16_t x)
{
	return (uint32_t)(x & 0xFFE0u) << 3 | (x & 0x1Fu);
}

static enum tt_result fpu_movd2src(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	bool to_b = tt_opcode_of(w) == TT_OP_MOVD2B, lo32 = tt_bits(w, 23, 23), four = tt_bits(w, 13, 13);
	bool force16 = tt_dp_tcfg(th, BH_DP_TCFG_FP16A_FORCE) & 1;
	unsigned fmt = force16 ? TT_FMT_FP16
			       : src_format(th, to_b, to_b ? BH_DP_TCFG_DISABLE_IMPLIED_SRCB : BH_DP_TCFG_DISABLE_IMPLIED_SRCA);
	if (fmt == TT_IMPLIED_UNPREDICTABLE)
		return implied_unpredictable(th, w, to_b);
	enum fpu_style s = style_of_format(fmt);   /* integer "8" is overlaid onto FP16 */
	bool dst32 = !force16 && (tt_dp_cfg(th, BH_DP_CFG_ALU) & (BH_DP_ALU_FP32 | BH_DP_ALU_INT8_MATH));
	if (!dst32 && (lo32 || s == STYLE_TF32))
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "%s from a 16-bit Dst %s (undefined)", to_b ? "MOVD2B" : "MOVD2A",
				lo32 ? "with UseDst32bLo" : "as TF32");
	unsigned drow = dst_base_row(th, w), srow = tt_bits(w, 22, 17) + (to_b ? th->rwc.srcb : th->rwc.srca);
	unsigned rows = four ? 4 : 1, bank = ld8(to_b ? &dp->matrix_srcb_bank : &dp->matrix_srca_bank);
	uint32_t blocked = mov_blocked(dp);
	drow &= four ? 0x3FC : 0x3FF;
	srow &= four ? 0x3C : 0x3F;
	for (; rows; rows--, drow++, srow++) {
		for (unsigned c = 0; c < 16; c++) {
			uint32_t v;
			if (blocked >> c & 1)
				continue;
			if (dst32) {
				uint32_t d = tt_dst32_read(dp, drow, c);
				if (lo32)
					d = d << 16 | (d & 0xFFFF);
				if (s == STYLE_BF16)
					v = shuffle_bf16((uint16_t)(d >> 16));
				else if (s == STYLE_FP16)
					v = shuffle_fp16((uint16_t)(d >> 16));
				else if (!lo32)
					v = (d >> 13 & 0x7F800u) | (d >> 13 & 7u) << 8 | (d >> 13 & 0x7F8u) >> 3;
				else
					v = d & 0x1FFF;
			} else {
				uint16_t d = tt_dst16_read(dp, drow, c);
				v = s == STYLE_BF16 ? shuffle_bf16(d) : shuffle_fp16(d);
			}
			atomic_store_explicit(to_b ? &dp->srcb[bank][srow & 0x3F][c] : &dp->srca[bank][srow & 0x3F][c],
					      tt_src_cell_of_hw(v), memory_order_relaxed);
		}
	}
	return apply_addr_mod(th, w, tt_bits(w, 16, 14));
}

/* ---------------------------------------------------------------------------------------------
 * Dispatch.
 */

static enum tt_result fpu_execute(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	unsigned op = tt_opcode_of(w), need = 0;
	switch (op) {
	case TT_OP_ELWADD: case TT_OP_ELWSUB: case TT_OP_ELWMUL: case TT_OP_MVMUL: case TT_OP_GAPOOL:
	case TT_OP_GMPOOL: case TT_OP_DOTPV:
		need = 0xC;   /* C7 and C8: both banks the matrix unit's */
		break;
	case TT_OP_TRNSPSRCB: case TT_OP_MOVB2A:
		need = 0x8;
		break;
	case TT_OP_MOVA2D:
		need = 0x4;
		break;
	case TT_OP_MOVB2D:
		need = 0x8;
		break;
	default:
		break;
	}
	if (need) {
		enum tt_result r = tt_dp_wait_src(th, w, need);
		if (r != TT_OK)
			return r;
	}
	bh_lock(&dp->fpu_lock);
	enum tt_result r;
	switch (op) {
	case TT_OP_ELWADD: case TT_OP_ELWSUB: case TT_OP_ELWMUL: r = fpu_elw(th, w); break;
	case TT_OP_MVMUL: case TT_OP_GAPOOL: case TT_OP_DOTPV: r = fpu_mvmul(th, w); break;
	case TT_OP_GMPOOL: r = fpu_gmpool(th, w); break;
	case TT_OP_GATESRCRST:   /* invalidates SrcB's operand cache (GATESRCRST.md): bhemu keeps none, */
		r = TT_OK;       /* every matrix instruction reads SrcB itself */
		break;
	case TT_OP_TRNSPSRCB: r = fpu_trnspsrcb(th); break;
	case TT_OP_MOVB2A: r = fpu_movb2a(th, w); break;
	case TT_OP_MOVA2D: case TT_OP_MOVB2D: r = fpu_mov2d(th, w); break;
	case TT_OP_MOVD2A: case TT_OP_MOVD2B: r = fpu_movd2src(th, w); break;
	case TT_OP_ZEROACC: r = dp_zeroacc(th, w); break;
	case TT_OP_ZEROSRC: r = dp_zerosrc(th, w); break;
	case TT_OP_SETRWC: r = dp_setrwc(th, w); break;
	case TT_OP_INCRWC: r = dp_incrwc(th, w); break;
	default: r = dp_cleardvalid(th, w); break;
	}
	bh_unlock(&dp->fpu_lock);
	return r;
}

enum tt_result tt_dp_execute(struct bh_tt_thread *th, const struct tt_opinfo *oi, uint32_t w)
{
	/* DEST_ACCESS_CFG's remap_addrs and swizzle_32b change Dst.md's Adj16/Adj32 row mappings (and
	 * the packers' Dst addressing); every unit here addresses Dst without them. */
	if (__builtin_expect(tt_dp_cfg(th, BH_DP_CFG_DEST_ACCESS) & 3, 0))
		return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "%s with DEST_ACCESS_CFG remap_addrs or swizzle_32b set: "
				"the remapped Dst rows are not modelled", oi->name);
	if (oi->unit != TT_U_VECTOR)
		tt_sfpu_drain(th);
	switch (oi->unit) {
	case TT_U_MATRIX:
		return fpu_execute(th, w);
	case TT_U_UNPACK:
		return tt_dp_unpack(th, w);
	case TT_U_PACK:
		return tt_dp_pack(th, w);
	case TT_U_VECTOR:
		return tt_sfpu_execute(th, w);
	default:
		if (tt_opcode_of(w) == TT_OP_SETDVALID)
			return dp_setdvalid(th, w);
		return tt_dp_adc(th, w);
	}
}

/* ---------------------------------------------------------------------------------------------
 * The RISC-V window onto Dst (0xFFBD8000, 32 KiB, TRISCs): RISC_DEST_ACCESS_CTRL_SEC[thread]
 * in configuration word 3 chooses the view (fmt 0: FP32 in Dst32b, 32-bit accesses; 2: FP16 and
 * 3: BF16 in Dst16b, 16-bit accesses; 4: 16-bit integers, raw) and whether the Dst bit layouts
 * are converted to IEEE order (no_swizzle clear). The integer conversions of fmt 1 and 5 and
 * TRISC2's accesses of several elements at once are not documented in detail: named faults.
 */

/* The view of the access and the element it names (row and column of Dst32b or Dst16b). */
static bool dst_window(struct bh_access *a, unsigned *fmt, bool *raw, unsigned *row, unsigned *col)
{
	struct bh_tensix *tx = a->dev;
	unsigned t = a->who - BH_TRISC0;
	unsigned bank = atomic_load_explicit(&tx->th[t].thread_cfg[0], memory_order_relaxed) & 1;
	uint32_t c = atomic_load_explicit(bh_tensix_cfg_cell(tx->tile, bank, 3), memory_order_relaxed) >> (14 + 5 * t);
	*fmt = c >> 2 & 7;
	*raw = c & 1;
	unsigned want = *fmt == 0 ? 4 : *fmt <= 4 ? 2 : 0;
	if (*fmt == 1 || *fmt == 5)
		return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, "Tensix Dst (RISC-V view)",
				     "RISC_DEST_ACCESS_CTRL fmt %u (integer conversion) is not modelled", *fmt);
	if (!want)
		return bh_fault_fill(a->fault, BH_FAULT_BAD_VALUE, a->addr, "Tensix Dst (RISC-V view)",
				     "RISC_DEST_ACCESS_CTRL fmt %u names no view", *fmt);
	if (a->size != want)
		return bh_fault_fill(a->fault, BH_FAULT_ACCESS, a->addr, "Tensix Dst (RISC-V view)",
				     "a %u-byte access in view fmt %u, whose elements are %u bytes (several elements "
				     "at once are not modelled)", a->size, *fmt, want);
	*row = a->off / a->size / 16;
	*col = a->off / a->size % 16;
	return true;
}

bool bh_tensix_dst_read(struct bh_access *a, uint32_t *val)
{
	struct tt_dp *dp = ((struct bh_tensix *)a->dev)->dp;
	unsigned fmt = 0, row = 0, col = 0;   /* set by dst_window when it succeeds */
	bool raw = false;
	if (!dst_window(a, &fmt, &raw, &row, &col))
		return false;
	if (fmt == 0) {
		uint32_t v = tt_dst32_read(dp, row, col);
		*val = raw ? v : tt_dst_to_fp32(v);
		return true;
	}
	uint16_t v = tt_dst16_read(dp, row, col);
	*val = raw || fmt == 4 ? v : fmt == 2 ? tt_dst_to_fp16(v) : tt_dst_to_bf16(v);
	return true;
}

bool bh_tensix_dst_write(struct bh_access *a, uint32_t val)
{
	struct tt_dp *dp = ((struct bh_tensix *)a->dev)->dp;
	unsigned fmt = 0, row = 0, col = 0;   /* set by dst_window when it succeeds */
	bool raw = false;
	if (!dst_window(a, &fmt, &raw, &row, &col))
		return false;
	if (fmt == 0) {
		tt_dst32_write(dp, row, col, raw ? val : tt_dst_from_fp32(val));
		return true;
	}
	uint16_t v = (uint16_t)val;
	tt_dst16_write(dp, row, col, raw || fmt == 4 ? v : fmt == 2 ? tt_dst_from_fp16(v) : tt_dst_from_bf16(v));
	return true;
}
