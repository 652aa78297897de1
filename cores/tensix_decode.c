/* Decode, reserved-bit checks and disassembly of Tensix instructions from the one opcode table
 * (cores/tensix_insns.h), and the MOP expander (tensix.md 3). */
#include <stdio.h>

#include "cores/tensix.h"

#define TT_X_FIELDS(name, op, unit, plane, ex, layout, fields) \
	static const struct tt_field tt_fields_##name[] = { fields { NULL, 0, 0 } };
#define TT_X_F(n, h, l) { #n, h, l },
TT_INSNS(TT_X_FIELDS, TT_X_F)
#undef TT_X_FIELDS
#undef TT_X_F

#define TT_FIELD_MASK(h, l) ((uint32_t)((2ull << (h)) - (1ull << (l))))
#define TT_X_MASK(n, h, l) | TT_FIELD_MASK(h, l)
#define TT_X_INFO(name, op, unit, plane, ex, layout, fields) \
	[op] = { #name, TT_U_##unit, TT_P_##plane, TT_E_##ex, TT_LAYOUT_##layout, 0 fields, tt_fields_##name },
#define TT_LAYOUT_FIELDS true
#define TT_LAYOUT_UNKNOWN false
const struct tt_opinfo tt_ops[256] = { TT_INSNS(TT_X_INFO, TT_X_MASK) };
#undef TT_X_INFO
#undef TT_X_MASK

bool tt_decode_reject(uint32_t w, char *why, size_t n)
{
	const struct tt_opinfo *oi = tt_opinfo(tt_opcode_of(w));
	if (!oi) {
		snprintf(why, n, "opcode 0x%02x is not a Blackhole Tensix instruction%s", tt_opcode_of(w),
			 w >> 24 == 0 ? " (opcode 0: did a core run into zeroed L1?)" : "");
		return false;
	}
	uint32_t reserved = w & 0xFFFFFFu & ~oi->field_mask;
	if (oi->fields_known && reserved) {
		snprintf(why, n, "reserved bits 0x%06x of %s are set (its operands are 0x%06x)", reserved, oi->name,
			 oi->field_mask);
		return false;
	}
	return true;
}

void tt_not_modelled_why(const struct tt_opinfo *oi, char *why, size_t n)
{
	/* Where the documentation stops short of a functional model, the reason. */
	const char *reason = "";
	if (oi == tt_opinfo(TT_OP_SETPKEDGOF))
		reason = " (no documented effect; the edge masks are PCK_EDGE_*)";
	else if (oi == tt_opinfo(TT_OP_PACR_SETREG))
		reason = " (its SetRegBase/SetRegHiScaler: TDMA-RISC, undocumented)";
	snprintf(why, n, "%s instruction %s is not modelled yet%s",
		 oi->plane == TT_P_DATA ? "data-plane" : "control-plane", oi->name, reason);
}

uint32_t tt_status_type_bits(uint32_t w)
{
	const struct tt_opinfo *oi = tt_opinfo(tt_opcode_of(w));
	switch (oi ? oi->unit : TT_U_NOP) {
	case TT_U_FRONT:
		if (tt_opcode_of(w) == TT_OP_MOP)
			return TT_ST_MOP;
		/* A REPLAY that only records leaves the frontend at once. */
		return tt_opcode_of(w) == TT_OP_REPLAY && (tt_bits(w, 1, 1) || !tt_bits(w, 0, 0)) ? TT_ST_REPLAY : 0;
	case TT_U_SCALAR: return TT_ST_SCALAR | TT_ST_B0;
	case TT_U_MOVER: return TT_ST_MOVER | TT_ST_B0;
	case TT_U_UNPACK: return TT_ST_UNPACK | TT_ST_B0;
	case TT_U_PACK: return TT_ST_PACK | TT_ST_B0;
	case TT_U_MISC: return TT_ST_B0;
	case TT_U_CONFIG: return TT_ST_CONFIG;
	case TT_U_SYNC:
	case TT_U_WAIT: return TT_ST_SYNC;
	case TT_U_VECTOR: return TT_ST_VECTOR;
	case TT_U_MATRIX: return TT_ST_MATRIX;
	default: return 0;   /* NOP belongs to no unit */
	}
}

void tt_disasm(uint32_t w, char *buf, size_t n)
{
	const struct tt_opinfo *oi = tt_opinfo(tt_opcode_of(w));
	if (!oi) {
		snprintf(buf, n, "opcode 0x%02x (unknown) 0x%06x", tt_opcode_of(w), w & 0xFFFFFFu);
		return;
	}
	int used = snprintf(buf, n, "%s", oi->name);
	if (!oi->fields_known && (w & 0xFFFFFFu))
		used += snprintf(buf + used, used < (int)n ? n - (size_t)used : 0, " 0x%06x", w & 0xFFFFFFu);
	for (const struct tt_field *f = oi->fields; f->name && used < (int)n; f++)
		used += snprintf(buf + used, n - (size_t)used, " %s=0x%x", f->name, tt_bits(w, f->hi, f->lo));
}

/* ---------------------------------------------------------------------------------------------
 * MOP expander. "NOP" in template 1 means opcode 0x02 exactly (the whole word).
 */

#define MOP_NOP ((uint32_t)TT_OP_NOP << 24)

/* Template 0: masked unpack loop over k = 0..Count1. */
static bool mop_template0(const uint32_t *cfg, uint32_t mop, uint32_t mask_hi, tt_emit_fn emit, void *ctx)
{
	uint32_t mask = mask_hi << 16 | tt_bits(mop, 15, 0), count1 = tt_bits(mop, 22, 16);
	bool has_b = cfg[1] & 1, has_a123 = cfg[1] >> 1 & 1;
	for (uint32_t k = 0; k <= count1; k++) {
		if (!(k < 32 && (mask >> k & 1))) {
			if (!emit(ctx, cfg[3]))
				return false;
			if (has_a123 && !(emit(ctx, cfg[4]) && emit(ctx, cfg[5]) && emit(ctx, cfg[6])))
				return false;
			if (has_b && !emit(ctx, cfg[2]))
				return false;
		} else {
			if (!emit(ctx, cfg[7]))
				return false;
			if (has_b && !emit(ctx, cfg[8]))
				return false;
		}
	}
	return true;
}

/* Template 1: double loop, with the hardware's OuterCount quirk. */
static bool mop_template1(const uint32_t *cfg, tt_emit_fn emit, void *ctx)
{
	uint32_t outer = cfg[0] & 0x7F, inner = cfg[1] & 0x7F;
	uint32_t start = cfg[2], end0 = cfg[3], end1 = cfg[4], loop = cfg[5], loop1 = cfg[6];
	uint32_t last0 = cfg[7], last1 = cfg[8];
	bool alternate = loop1 != MOP_NOP;
	if (outer == 1 && start == MOP_NOP && inner == 0 && end0 != MOP_NOP)
		outer = 129;   /* silicon bug, reproduced (tensix.md 3) */
	if (alternate)
		inner *= 2;
	for (uint32_t o = 0; o < outer; o++) {
		if (start != MOP_NOP && !emit(ctx, start))
			return false;
		uint32_t op = loop;
		for (uint32_t k = 0; k < inner; k++) {
			uint32_t w = k + 1 < inner ? op : o + 1 < outer ? last1 : last0;
			if (!emit(ctx, w))
				return false;
			if (alternate)
				op ^= loop ^ loop1;
		}
		if (end0 != MOP_NOP && !emit(ctx, end0))
			return false;
		if (end1 != MOP_NOP && !emit(ctx, end1))
			return false;
	}
	return true;
}

bool tt_mop_expand(const uint32_t cfg[BH_TT_MOP_CFG_WORDS], uint32_t mop, uint32_t mask_hi, tt_emit_fn emit,
		   void *ctx)
{
	return tt_bits(mop, 23, 23) ? mop_template1(cfg, emit, ctx) : mop_template0(cfg, mop, mask_hi, emit, ctx);
}
