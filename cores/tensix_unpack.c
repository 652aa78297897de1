/* Unpackers, packers and their address counters (tt-isa-documentation UNPACR_Regular.md,
 * PACR.md, Packers/InputAddressGenerator.md, Packers/OutputAddressGenerator.md,
 * Packers/FormatConversion.md, ADCs.md, SETADC*.md, INCADC*.md, ADDRCR*.md). Blackhole operand
 * bit ranges from cores/tensix_insns.h, configuration positions from the Blackhole register
 * tables. What is modelled is the uncompressed data path the compute kernels use; every other
 * mode faults by name (the list is in the README's Tensix table). */
#include <stdio.h>
#include <string.h>

#include "cores/tensix_dp.h"
#include "cores/tensix_fmt.h"
#include "fabric/chip.h"
#include "fabric/copy.h"
#include "fabric/tile.h"
#include "sync/streams.h"

#define THCON(u) (64u + 48u * (u))      /* THCON_SEC0 (unpacker 0 / packer 0), THCON_SEC1 */
#define UNP_BASE1(u) ((u) ? 61u : 49u)   /* UNPn_ADDR_BASE_REG_1_Base */
#define UNP_XY1(u) ((u) ? 58u : 56u)     /* UNPn_ADDR_CTRL_XY_REG_1 (Ystride 31:16) */
#define UNP_ZW1(u) ((u) ? 59u : 57u)     /* UNPn_ADDR_CTRL_ZW_REG_1 (Zstride 15:0, Wstride 31:16) */
#define UNP_EXP(u) ((u) ? 62u : 50u)     /* FORCED_SHARED_EXP 7:0, ADD_DEST_ADDR_CNTR 8 */
#define PCK_XY0 12u
#define PCK_ZW0 13u
#define PCK_XY1 14u
#define PCK_ZW1 15u
#define PCK_BASE0 16u
#define PCK_BASE1 17u
#define PCK_DEST_RD 18u
#define PCK_INT_DESCALE 8u               /* INT_DESCALE_Enable 0, INT_DESCALE_Mode 1 */
#define PCK_INT_DESCALE_VALUE 187u       /* INT_DESCALE_VALUES_SEC0_Value */
#define PCK_LIMIT 100u                   /* Pack_0_2_limit_address, fifo_size */
#define PCK_SEC_OFFSET 180u              /* DEST_TARGET_REG_CFG_PACK_SEC[i]_Offset */
#define TCFG_ADDR_MOD_PACK 37u
#define PCK_RELU 2u                      /* STACC_RELU_ApplyRelu 5:2, STACC_RELU_ReluThreshold 21:6 */
#define UNPACK_LIMIT_EN 105u             /* THCON_SEC0_REG10_Unpack_limit_address_en, bit 17 */
#define PCK_EDGE_FACE_SEL 19u            /* PCK_EDGE_TILE_FACE_SET_SELECT: select 7:0, enable 8 */
#define PCK_ROW_SET_MAP 20u              /* TILE_ROW_SET_MAPPING_0..3: 2 bits per row */
#define PCK_EDGE_OFFSET 24u              /* PCK_EDGE_OFFSET_SEC0..3 mask 15:0; in SEC0 also
					  * PCK_EDGE_MODE 16, PCK_EDGE_TILE_ROW_SET_SELECT 24:17 */
#define PCK_COUNTERS 28u                 /* PACK_COUNTERS_SEC0: reads_per_xy_plane 15:8, yz_transposed 23 */
#define PCK_FACE_SET_MAP 36u             /* TILE_FACE_SET_MAPPING_0..3: 2 bits per face */

enum { AX, AY, AZ, AW };
static const uint32_t adc_width_mask[4] = { 0x3FFFF, 0x1FFF, 0xFF, 0xFF };

static uint32_t bits(uint32_t v, unsigned hi, unsigned lo)
{
	return tt_bits(v, hi, lo);
}

/* ---------------------------------------------------------------------------------------------
 * ADCs.
 */

static void adc_set(struct tt_dp *dp, unsigned t, unsigned u, unsigned ch, unsigned d, uint32_t v)
{
	dp->adc[t][u][ch][d] = dp->adc_cr[t][u][ch][d] = v & adc_width_mask[d];
}

static void adc_inc(struct tt_dp *dp, unsigned t, unsigned u, unsigned ch, unsigned d, uint32_t v)
{
	dp->adc[t][u][ch][d] = (dp->adc[t][u][ch][d] + v) & adc_width_mask[d];
}

static void adc_cr_inc(struct tt_dp *dp, unsigned t, unsigned u, unsigned ch, unsigned d, uint32_t v)
{
	dp->adc_cr[t][u][ch][d] = (dp->adc_cr[t][u][ch][d] + v) & adc_width_mask[d];
	dp->adc[t][u][ch][d] = dp->adc_cr[t][u][ch][d];
}

/* SETADC, SETADCXY, SETADCZW, SETADCXX, INCADCXY, INCADCZW, ADDRCRXY, ADDRCRZW. The unit mask
 * is bits 23:21 (unpacker 0, unpacker 1, packers). */
static enum tt_result adc_insn(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	unsigned op = tt_opcode_of(w), units = bits(w, 23, 21), t = th->id;
	if (op == TT_OP_SETADC && bits(w, 17, 16))
		t = bits(w, 17, 16) - 1;   /* ThreadOverride */
	bh_lock(&dp->adc_lock);
	for (unsigned u = 0; u < 3; u++) {
		if (!(units >> u & 1))
			continue;
		if (op == TT_OP_SETADC) {
			adc_set(dp, t, u, bits(w, 20, 20), bits(w, 19, 18), bits(w, 17, 0));
			continue;
		}
		if (op == TT_OP_SETADCXX) {
			adc_set(dp, t, u, 0, AX, bits(w, 9, 0));
			adc_set(dp, t, u, 1, AX, bits(w, 19, 10));
			continue;
		}
		bool zw = op == TT_OP_SETADCZW || op == TT_OP_INCADCZW || op == TT_OP_ADDRCRZW;
		/* (channel, dimension, value field) in bit-mask order: X0 Y0 X1 Y1 (or Z0 W0 Z1 W1) */
		const unsigned val[4] = { bits(w, 8, 6), bits(w, 11, 9), bits(w, 14, 12), bits(w, 17, 15) };
		unsigned mask = bits(w, 3, 0);
		for (unsigned k = 0; k < 4; k++) {
			unsigned ch = k >> 1, d = (zw ? AZ : AX) + (k & 1);
			switch (op) {
			case TT_OP_SETADCXY: case TT_OP_SETADCZW:
				if (mask >> k & 1)
					adc_set(dp, t, u, ch, d, val[k]);
				break;
			case TT_OP_INCADCXY: case TT_OP_INCADCZW:
				adc_inc(dp, t, u, ch, d, val[k]);
				break;
			default:
				if (mask >> k & 1)
					adc_cr_inc(dp, t, u, ch, d, val[k]);
				break;
			}
		}
	}
	bh_unlock(&dp->adc_lock);
	return TT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * L1 access by the units (relaxed atomics like every other L1 access).
 */

static bool l1_ok(uint64_t byte, unsigned len)
{
	return byte + len <= BH_L1_SIZE;
}

/* A row's bytes between L1, a register file and the host: relaxed 8-byte words when both sides
 * and len allow (a row of 16 datums always does), else bh_copy_relaxed. */
static inline __attribute__((always_inline)) void row_copy(uint8_t *dst, const uint8_t *src, unsigned len)
{
	if (!(((uintptr_t)dst | (uintptr_t)src | len) & 7)) {
		for (unsigned k = 0; k < len; k += 8)
			__atomic_store_n((uint64_t *)(void *)(dst + k),
					 __atomic_load_n((const uint64_t *)(const void *)(src + k), __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
		return;
	}
	bh_copy_relaxed(dst, src, len);
}

/* nbits (1..32, a power of two) at a bit address aligned to nbits. */
static inline __attribute__((always_inline)) uint32_t l1_read_bits(struct bh_tile *t, uint64_t bitaddr, unsigned nbits)
{
	uint64_t b = bitaddr >> 3;
	if (nbits == 32 && !(b & 3))
		return __atomic_load_n((uint32_t *)(void *)(t->l1 + b), __ATOMIC_RELAXED);
	if (nbits == 16 && !(b & 1))
		return __atomic_load_n((uint16_t *)(void *)(t->l1 + b), __ATOMIC_RELAXED);
	if (nbits >= 8) {
		uint32_t v = 0;
		for (unsigned k = 0; k < nbits / 8; k++)
			v |= (uint32_t)__atomic_load_n(t->l1 + b + k, __ATOMIC_RELAXED) << 8 * k;
		return v;
	}
	return (uint32_t)(__atomic_load_n(t->l1 + b, __ATOMIC_RELAXED) >> (bitaddr & 7)) & ((1u << nbits) - 1);
}

static void l1_write_bytes(struct bh_tile *t, uint32_t addr, uint32_t v, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		__atomic_store_n(t->l1 + addr + k, (uint8_t)(v >> 8 * k), __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------------------------------------
 * UNPACR (UNPACR_Regular.md), uncompressed data.
 */

struct unpack_job {
	unsigned u, ctx, adc, in_fmt, out_fmt;
	bool multi, to_dst, transpose, flip, zero;
};

__attribute__((cold))
static enum tt_result unpack_unmodelled(struct bh_tt_thread *th, uint32_t w, const char *what)
{
	return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "UNPACR: %s is not modelled", what);
}

/* Where an unpack's datums land: the register, bank and row/column placement of unpacr. */
struct unpack_dest {
	struct tt_dp *dp;
	const struct unpack_job *j;
	unsigned bank, srcrow, colshift;
	bool ovrd_addr;
};

/* The register row that output row `row` (datum / 16) of an unpack lands in: SrcB's or Dst's, or
 * SrcA's before a transpose (its first four output rows are not written: call only from row 4);
 * -1 for a SrcA row beyond what the unpack may write. */
static inline int unpack_dest_row(const struct unpack_dest *d, unsigned row)
{
	if (d->j->u == 1)
		return (int)((row + d->srcrow) & 0x3F);
	if (d->j->to_dst)
		return (int)((row - 4) & (d->ovrd_addr ? 15 : 0x3FF));
	row -= 4;
	if (d->ovrd_addr ? row >= 64 : row >= 16)
		return -1;
	return (int)(d->ovrd_addr ? row : (row + d->srcrow) & 0x3F);
}

/* Datum number `out` of the output address sequence into SrcA, SrcB or Dst (UNPACR_Regular.md).
 * False: a SrcA row beyond what the unpack may write (the caller faults, unpack_row_fault). */
static inline __attribute__((always_inline)) bool unpack_store(const struct unpack_dest *d, unsigned out,
							       uint32_t datum, bool wide)
{
	const struct unpack_job *j = d->j;
	unsigned col = out & 15;
	if (!j->to_dst && j->u != 1 && (out / 16 < 4 || col < d->colshift))
		return true;
	int r = unpack_dest_row(d, out / 16);
	if (r < 0)
		return false;
	unsigned row = (unsigned)r;
	if (j->u == 1) {
		atomic_store_explicit(&d->dp->srcb[d->bank][row][col], datum, memory_order_relaxed);
	} else if (!j->to_dst) {
		col -= d->colshift;
		if (j->transpose) {
			unsigned lo = row & 15;
			row = (row & ~15u) | col;
			col = lo;
		}
		atomic_store_explicit(&d->dp->srca[d->bank][row][col], datum, memory_order_relaxed);
	} else {
		if (wide)
			tt_dst32_write(d->dp, row, col, datum);
		else
			tt_dst16_write(d->dp, row, col, (uint16_t)datum);
	}
	return true;
}

/* A whole row of 16 datums (out a multiple of 16) stored as unpack_store stores them, when the
 * row lands in one Src row without a column shift or transpose, or in one Dst row. False: not this
 * case (the caller stores datum by datum). */
static inline bool unpack_store_row(const struct unpack_dest *d, unsigned out, const uint32_t v[16], bool wide)
{
	const struct unpack_job *j = d->j;
	bool srca = j->u != 1 && !j->to_dst;
	if (srca && out / 16 < 4)
		return true;   /* the first four rows are not written */
	int r = srca && (d->colshift || j->transpose) ? -1 : unpack_dest_row(d, out / 16);
	if (r < 0)
		return false;
	unsigned row = (unsigned)r;
	_Atomic uint32_t *cells;
	if (j->u == 1) {
		cells = d->dp->srcb[d->bank][row];
	} else if (srca) {
		cells = d->dp->srca[d->bank][row];
	} else {
		/* tt_dst16_write / tt_dst32_write of the 16 columns: the halves four to a relaxed 8-byte
		 * word, then the row's columns defined. */
		unsigned dr = wide ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
		for (unsigned q = 0; q < 4; q++) {
			tt_v4u x;
			memcpy(&x, v + 4 * q, sizeof x);
			tt_st64(&d->dp->dst[dr][4 * q], tt_narrow16(wide ? x >> 16 : x));
			if (wide)
				tt_st64(&d->dp->dst[dr + 8][4 * q], tt_narrow16(x));
		}
		tt_dst_define_cols(d->dp, dr, 0xFFFF);
		if (wide)
			tt_dst_define_cols(d->dp, dr + 8, 0xFFFF);
		return true;
	}
	row_copy((uint8_t *)cells, (const uint8_t *)v, 16 * sizeof *v);   /* a row of relaxed stores */
	return true;
}

__attribute__((cold))
static enum tt_result unpack_row_fault(struct bh_tt_thread *th, uint32_t w, const struct unpack_dest *d, unsigned out)
{
	return tt_fault(th, BH_FAULT_BAD_VALUE, w, "UNPACR writes SrcA row %u beyond the %s (undefined)", out / 16 - 4,
			d->ovrd_addr ? "register" : "16 rows of an unpack");
}

/* One row of up to 16 datums of a 16- or 32-bit format read from L1 and converted: with constant
 * formats (unpack_fast's cases) the compiler keeps only the conversion. */
static inline __attribute__((always_inline)) void unpack_row(struct bh_tile *tile, uint64_t bit, unsigned cnt,
							     unsigned dbits, unsigned in_fmt, unsigned out_fmt,
							     bool to_dst, bool int8_unsigned, uint32_t v[16])
{
	/* The row's bytes in one relaxed copy (unpack_fast's rows are whole bytes of 16- or 32-bit
	 * datums at aligned addresses), then widened as l1_read_bits reads them. */
	uint32_t raw[16] __attribute__((aligned(16)));
	if (in_fmt == TT_FMT_BF16 && out_fmt == TT_FMT_BF16 && cnt == 16 && !(bit % 64)) {
		/* A whole BF16 row on host vectors: eight datums from two 8-byte words, widened. */
		const uint8_t *l1 = tile->l1 + (bit >> 3);
		const tt_v8h zero = { 0 };
		for (unsigned h = 0; h < 2; h++) {
			tt_v8h x = tt_v8h_of(tt_ld64(l1 + 16 * h), tt_ld64(l1 + 16 * h + 8));
			if (to_dst)
				x = tt_v8_dst_from_bf16(x);
			tt_v4u lo = (tt_v4u)__builtin_shufflevector(x, zero, 0, 8, 1, 9, 2, 10, 3, 11);
			tt_v4u hi = (tt_v4u)__builtin_shufflevector(x, zero, 4, 12, 5, 13, 6, 14, 7, 15);
			if (!to_dst)   /* tt_src_from_bf16 */
				lo <<= 3, hi <<= 3;
			memcpy(v + 8 * h, &lo, sizeof lo);
			memcpy(v + 8 * h + 4, &hi, sizeof hi);
		}
		return;
	}
	if (dbits == 16) {
		uint16_t half[16] __attribute__((aligned(16)));
		row_copy((uint8_t *)half, tile->l1 + (bit >> 3), cnt * 2);
		for (unsigned k = 0; k < cnt; k++)
			raw[k] = half[k];
	} else {
		row_copy((uint8_t *)raw, tile->l1 + (bit >> 3), cnt * 4);
	}
	/* The conversions apart from the (atomic) loads; a whole row's count as a constant, so that
	 * they vectorise. */
	for (unsigned k = 0, n = cnt == 16 ? 16 : cnt; k < n; k++) {
		bool wide;
		const char *why;
		tt_unpack_convert(in_fmt, out_fmt, raw[k], 0, to_dst, int8_unsigned, &v[k], &wide, &why);
	}
}

#define UNPACK_KEY(in, out, dst) ((in) << 5 | (out) << 1 | (dst))

/* The unpack of a non-BFP format row by row, when no datum can fault on its way from L1 (all of
 * it inside L1, a conversion the formats define): the same datums, conversions and stores as the
 * per-datum loop of unpacr, without its per-datum checks. False: not applicable (the caller runs
 * the per-datum loop, which faults where it must). *r: a store's fault (unpack_store). */
static bool unpack_fast(struct bh_tt_thread *th, uint32_t w, const struct unpack_job *j, const struct unpack_dest *d,
			uint64_t datum_bit, uint64_t row_stride_bits, unsigned n, unsigned out, bool int8_unsigned,
			enum tt_result *r)
{
	struct bh_tile *tile = th->tx->tile;
	unsigned dbits = tt_fmt_info(j->in_fmt)->l1_bits;
	uint32_t probe;
	bool wide;
	const char *why;
	*r = TT_OK;
	if ((dbits != 16 && dbits != 32) || datum_bit % dbits || row_stride_bits % dbits ||
	    !tt_unpack_convert(j->in_fmt, j->out_fmt, 0, 0, j->to_dst, int8_unsigned, &probe, &wide, &why))
		return false;
	if (n && !l1_ok((datum_bit + (uint64_t)(n - 1) / 16 * row_stride_bits) / 8, 16 * dbits / 8))
		return false;
	for (unsigned i = 0; i < n; i += 16, datum_bit += row_stride_bits) {
		unsigned cnt = n - i < 16 ? n - i : 16;
		uint32_t v[16] __attribute__((aligned(16)));
		/* The common conversions with constant formats (int8_unsigned matters to INT8 only). */
#define UNPACK_CASE(in, out, dst, bits) \
	case UNPACK_KEY(in, out, dst): unpack_row(tile, datum_bit, cnt, bits, in, out, dst, false, v); break
		switch (UNPACK_KEY(j->in_fmt, j->out_fmt, j->to_dst)) {
		UNPACK_CASE(TT_FMT_BF16, TT_FMT_BF16, 0, 16);
		UNPACK_CASE(TT_FMT_BF16, TT_FMT_BF16, 1, 16);
		UNPACK_CASE(TT_FMT_FP32, TT_FMT_TF32, 0, 32);
		UNPACK_CASE(TT_FMT_FP32, TT_FMT_FP32, 1, 32);
		UNPACK_CASE(TT_FMT_FP16, TT_FMT_FP16, 0, 16);
#undef UNPACK_CASE
		default:
			unpack_row(tile, datum_bit, cnt, dbits, j->in_fmt, j->out_fmt, j->to_dst, int8_unsigned, v);
			break;
		}
		if (j->zero)
			memset(v, 0, sizeof v);
		if (cnt == 16 && out % 16 == 0 && unpack_store_row(d, out, v, wide)) {
			out += 16;
			continue;
		}
		for (unsigned k = 0; k < cnt; k++, out++)
			if (!unpack_store(d, out, v[k], wide)) {
				*r = unpack_row_fault(th, w, d, out);
				return true;
			}
	}
	return true;
}

/* cb-ownership (races.md #9), the compute side: the packer writing into a CB page the consumer
 * holds (published, not yet popped), or an unpacker reading one that is not published (not yet
 * pushed, or already popped), from the page state the counters give (bh_stream_cb_page_at).
 * Judged on every page the instruction's rows read or write (addr, len). A TRISC that unpacks
 * pages of a CB it produces itself is not judged; a pack into free slots names its TRISC the
 * CB's producer at work (bh_stream_cb_filled). */
__attribute__((cold, noinline))
static enum tt_result cb_ownership_found(struct bh_tt_thread *th, uint32_t w, unsigned unit, uint32_t addr,
					 const struct bh_cb_page *pg)
{
	char other[192];
	const char *insn = unit == 2 ? "PACR" : "UNPACR";
	bh_stream_cb_page_party(pg, other, sizeof other);
	if (unit == 2)
		return tt_check(th, BH_CHECK_CB_OWNERSHIP, w, other,
				"%s packs into L1 0x%x, in CB%u page 0x%x (slot %u of %u), which is published and the "
				"consumer still holds: pack only into pages cb_reserve_back gave you, before cb_push_back",
				insn, addr, pg->cb, pg->seq, pg->slot, pg->pages);
	return tt_check(th, BH_CHECK_CB_OWNERSHIP, w, other,
			"%s (unpacker %u) reads L1 0x%x, in CB%u slot %u of %u, which holds no published page: unpack "
			"only pages cb_wait_front gave you, before cb_pop_front",
			insn, unit, addr, pg->cb, pg->slot, pg->pages);
}

static enum tt_result cb_ownership(struct bh_tt_thread *th, uint32_t w, unsigned unit, uint32_t addr, uint32_t len)
{
	struct bh_tile *t = th->tx->tile;
	struct bh_cb_page pg;
	if (!bh_checks_on(&t->chip->checks, BH_CHECK_CB_OWNERSHIP))
		return TT_OK;
	if (unit == 2)
		bh_stream_cb_filled(t, addr, len, BH_TRISC0 + th->id);
	if (!bh_stream_cb_page_in(t, addr, len, unit == 2, &pg) || (unit != 2 && pg.producer == (int)(BH_TRISC0 + th->id)))
		return TT_OK;
	return cb_ownership_found(th, w, unit, pg.addr > addr ? pg.addr : addr, &pg);
}

static enum tt_result unpacr(struct bh_tt_thread *th, uint32_t w)
{
	struct bh_tensix *tx = th->tx;
	struct tt_dp *dp = tx->dp;
	struct bh_tile *tile = tx->tile;
	struct unpack_job j = { .u = bits(w, 23, 23), .multi = bits(w, 7, 7), .flip = bits(w, 6, 6),
				.zero = bits(w, 4, 4) };
	unsigned sec = THCON(j.u), me = th->id;
	if (bits(w, 13, 13))
		return unpack_unmodelled(th, w, "the increment-context-counter form (bit 13)");
	if (bits(w, 1, 1))
		return unpack_unmodelled(th, w, "the flush-decompression-cache form (bit 1): compression");
	if (bits(w, 2, 2))
		return unpack_unmodelled(th, w, "RowSearch (bit 2)");
	if (bits(w, 5, 5))
		return unpack_unmodelled(th, w, "srcb_bcast (bit 5), which the documentation does not describe,");
	if (bits(w, 3, 3))
		return unpack_unmodelled(th, w, "UseContextCounter (bit 3)");
	uint32_t reg2 = tt_dp_cfg(th, sec + 8), reg2b = tt_dp_cfg(th, sec + 9);
	if (j.multi) {
		/* WhichContext is three bits: ContextNumber + CfgContextOffset wraps at 8. */
		j.ctx = (bits(w, 12, 10) + (tt_dp_tcfg(th, BH_DP_TCFG_UNPACK_MISC) >> (8 * j.u) & 0xF)) & 7;
		j.adc = bits(w, 9, 8);
		if (j.u == 1 && j.ctx >= 2)
			return tt_fault(th, BH_FAULT_BAD_VALUE, w, "UNPACR: unpacker 1 has no configuration context %u", j.ctx);
		if (j.adc == 3)
			return tt_fault(th, BH_FAULT_BAD_VALUE, w, "UNPACR: ContextADC 3 is undefined");
	} else {
		j.ctx = 0;
		j.adc = me;
	}
	/* Tile descriptor: InDataFormat 3:0, IsUncompressed 4, BlobsPerXYPlane 10:8, XDim 31:16;
	 * YDim, ZDim, WDim in the next words' low bytes; DigestSize in bits 31:24 of word 3. */
	uint32_t td0 = tt_dp_cfg(th, sec), td1 = tt_dp_cfg(th, sec + 1), td2 = tt_dp_cfg(th, sec + 2), td3 = tt_dp_cfg(th, sec + 3);
	/* Contexts 0-7 have their own Base_cntx (words 12-19), Disable_zero_compress_cntx and
	 * Unpack_if_sel_cntx (REG2 word 9: bits 0-3 and 4-7 for contexts 0-3, 16-19 and 20-23 for 4-7)
	 * and data formats (REG7 word 28 + (ctx & 3): bits 16-23, 24-31 for 4-7); Tile_x_dim_cntx,
	 * Offset_cntx, Dest_cntx and Shift_amount_cntx exist for contexts 0-3 only: 4-7 use ctx & 3. */
	unsigned c3 = j.ctx & 3, hi = j.ctx >> 2;
	bool uncompressed = j.multi ? reg2b >> (c3 + 16 * hi) & 1 : td0 >> 4 & 1;
	if (!uncompressed)
		return unpack_unmodelled(th, w, "zero-compressed input (IsUncompressed / Disable_zero_compress_cntx clear)");
	unsigned xdim = j.multi && j.u == 0 ? tt_dp_cfg(th, sec + 22 + (c3 >> 1)) >> (16 * (c3 & 1)) & 0xFFFF
					      : td0 >> 16;
	unsigned ydim = td1 & 0xFF, zdim = td1 >> 16 & 0xFF ? td1 >> 16 & 0xFF : 1, wdim = td2 & 0xFF ? td2 & 0xFF : 1;
	uint32_t ctxfmt = tt_dp_cfg(th, sec + 28 + c3) >> (16 + 8 * hi);
	if (j.multi && reg2 >> 14 & 1) {   /* Ovrd_data_format */
		j.in_fmt = ctxfmt & 15;
		j.out_fmt = ctxfmt >> 4 & 15;
	} else {
		j.in_fmt = td0 & 15;
		j.out_fmt = reg2 & 15;
	}
	const struct tt_fmt_info *fi = tt_fmt_info(j.in_fmt);
	if (!fi->name)
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "UNPACR: input format code %u names no format", j.in_fmt);
	if (tt_dp_cfg(th, UNPACK_LIMIT_EN) >> 17 & 1)
		return unpack_unmodelled(th, w, "the input FIFO wrap (Unpack_limit_address_en)");
	if (reg2 >> 12 & 3 || reg2 >> 15 & 1)
		return unpack_unmodelled(th, w, "upsampling (Upsample_rate, Upsample_and_interleave)");
	bool force_exp = reg2b >> 8 & 1;
	/* Input address: (base + offset + 1 + DigestSize) * 16 bytes; then the exponent section. */
	uint32_t base = tt_dp_cfg(th, sec + 12 + (j.multi ? j.ctx : 0));
	uint32_t off = tt_dp_cfg(th, sec + 28 + (j.multi ? c3 : 0)) & 0xFFFF;
	uint64_t in = ((uint64_t)base + off + 1 + (td3 >> 24)) * 16, exp_base = 0;
	if (fi->bfp && !force_exp) {
		exp_base = in;
		if (j.in_fmt == TT_FMT_BFP8 || j.in_fmt == TT_FMT_BFP8A || !(td0 >> 5 & 1)) {
			uint64_t nexp = ((uint64_t)xdim * ydim * zdim * wdim + 15) / 16;
			in += (nexp + 15) / 16 * 16;
		}
	}
	bh_lock(&dp->adc_lock);
	const uint32_t *xy = dp->adc[j.adc][j.u][0], *zw = dp->adc[me][j.u][0];
	unsigned xpos = xy[AX], ypos = xy[AY], xend = dp->adc[j.adc][j.u][1][AX] + 1;
	uint64_t first = (((uint64_t)zw[AW] * zdim + zw[AZ]) * ydim + ypos) * xdim + xpos;
	const uint32_t *out_adc = dp->adc[me][j.u][1];
	uint32_t oy = out_adc[AY], oz = out_adc[AZ], ow = out_adc[AW];
	bh_unlock(&dp->adc_lock);
	unsigned n = xend > xpos ? xend - xpos : 0;
	unsigned dbits = fi->l1_bits;
	uint64_t datum_bit = in * 8 + first * dbits, exp16 = exp_base * 16 + first;
	bool tileize = reg2 >> 9 & 1;
	uint64_t row_stride_bits = tileize ? (uint64_t)((reg2 >> 16 & 15) << 4 | (reg2 >> 20 & 15) << 8 | (reg2 >> 24 & 15) << 12) * 8
					   : (uint64_t)dbits * 16;
	if (n && datum_bit >> 3 < BH_L1_SIZE) {
		/* The bytes its rows read: from the first datum to the end of the last row's. */
		uint64_t end = (datum_bit + (uint64_t)(n - 1) / 16 * row_stride_bits + (n < 16 ? n : 16) * (uint64_t)dbits + 7) / 8;
		enum tt_result r = cb_ownership(th, w, j.u, (uint32_t)(datum_bit >> 3),
						(uint32_t)((end < BH_L1_SIZE ? end : BH_L1_SIZE) - (datum_bit >> 3)));
		if (r != TT_OK)
			return r;
	}
	/* Output address. */
	j.to_dst = j.u == 0 && (j.multi ? reg2b >> (4 + c3 + 16 * hi) & 1 : reg2 >> 11 & 1);
	j.transpose = j.u == 0 && (reg2 >> 8 & 1);
	uint32_t out = (tt_dp_cfg(th, UNP_BASE1(j.u)) & 0x3FFFF) + oy * (tt_dp_cfg(th, UNP_XY1(j.u)) >> 16) +
		       oz * (tt_dp_cfg(th, UNP_ZW1(j.u)) & 0xFFFF) + ow * (tt_dp_cfg(th, UNP_ZW1(j.u)) >> 16);
	unsigned ow_bits = tt_fmt_info(j.out_fmt)->l1_bits;
	if (ow_bits == 32 || ow_bits == 16) {
		if (out & (ow_bits / 8 - 1))
			return tt_fault(th, BH_FAULT_BAD_VALUE, w, "UNPACR: output address %u is not aligned to its %u-byte "
					"datums (undefined)", out, ow_bits / 8);
		out /= ow_bits / 8;
	}
	if (j.multi && j.u == 0) {
		uint32_t ctx_out = tt_dp_cfg(th, sec + 20 + (c3 >> 1)) >> (16 * (c3 & 1)) & 0xFFFF;
		out = j.to_dst || (tt_dp_cfg(th, UNP_EXP(0)) >> 8 & 1) ? out + ctx_out : ctx_out;
	}
	unsigned colshift = tileize || j.u ? 0 : reg2 >> (16 + 4 * c3) & 15;
	if ((j.transpose || tileize) && (datum_bit & 127))
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "UNPACR: transpose/tileize input not 16-byte aligned (undefined)");
	if (j.to_dst && (colshift || j.transpose))
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "UNPACR: unpack to Dst with a column shift or transpose (undefined)");
	bool ovrd_addr = tt_dp_tcfg(th, j.u ? BH_DP_TCFG_SRCB_SET : BH_DP_TCFG_SRCA_SET) >> 2 & 1;
	bool int8_unsigned = tt_dp_cfg(th, BH_DP_CFG_ALU) >> (15 + j.u) & 1;
	uint8_t forced = (uint8_t)tt_dp_cfg(th, UNP_EXP(j.u));
	/* SrcA/SrcB: the unpacker's bank must be the unpackers' (also for unpacking to Dst). */
	enum tt_result r = tt_dp_wait_src(th, w, 1u << j.u);
	if (r != TT_OK)
		return r;
	struct unpack_dest d = { .dp = dp, .j = &j, .bank = atomic_load_explicit(&dp->unpacker_bank[j.u], memory_order_acquire),
				 .srcrow = dp->unpacker_src_row[j.u][me], .colshift = colshift, .ovrd_addr = ovrd_addr };
	if (!fi->bfp && unpack_fast(th, w, &j, &d, datum_bit, row_stride_bits, n, out, int8_unsigned, &r)) {
		if (r != TT_OK)
			return r;
	} else {
		for (unsigned i = 0; i < n; i++, out++) {
			uint64_t byte = datum_bit >> 3;
			if (!l1_ok(byte, (dbits + 7) / 8))
				return tt_fault(th, BH_FAULT_UNMAPPED, w, "UNPACR reads L1 0x%llx, past the end of L1",
						(unsigned long long)byte);
			uint32_t raw = l1_read_bits(tile, datum_bit, dbits);
			datum_bit += dbits;
			if ((i + 1) % 16 == 0)
				datum_bit = datum_bit - (uint64_t)dbits * 16 + row_stride_bits;
			uint8_t e = 0;
			if (fi->bfp) {
				if (force_exp) {
					e = forced;
				} else {
					if (!l1_ok(exp16 >> 4, 1))
						return tt_fault(th, BH_FAULT_UNMAPPED, w, "UNPACR reads exponents past the end of L1");
					e = __atomic_load_n(tile->l1 + (exp16 >> 4), __ATOMIC_RELAXED);
					exp16++;
				}
			}
			uint32_t datum;
			bool wide;
			const char *why;
			if (!tt_unpack_convert(j.in_fmt, j.out_fmt, raw, e, j.to_dst, int8_unsigned, &datum, &wide, &why))
				return tt_fault(th, BH_FAULT_BAD_VALUE, w, "UNPACR from %s to %s: %s (undefined)", fi->name,
						tt_fmt_info(j.out_fmt)->name ? tt_fmt_info(j.out_fmt)->name : "?", why);
			if (!unpack_store(&d, out, j.zero ? 0 : datum, wide))
				return unpack_row_fault(th, w, &d, out);
		}
	}
	/* Counters for the next instruction: Y/Z increments on this thread's and the named ADC. */
	bh_lock(&dp->adc_lock);
	for (unsigned t = 0; t < BH_TT_THREADS; t++) {
		if (t != me && t != j.adc)
			continue;
		adc_inc(dp, t, j.u, 0, AZ, bits(w, 16, 15));
		adc_inc(dp, t, j.u, 0, AY, bits(w, 18, 17));
		adc_inc(dp, t, j.u, 1, AZ, bits(w, 20, 19));
		adc_inc(dp, t, j.u, 1, AY, bits(w, 22, 21));
	}
	bh_unlock(&dp->adc_lock);
	unsigned set_base = (tt_dp_tcfg(th, j.u ? BH_DP_TCFG_SRCB_SET : BH_DP_TCFG_SRCA_SET) & 3) << 4;
	if (j.flip)   /* the implied format: this UNPACR's OutDataFormat (ttsim's rule; README "Implied Src formats") */
		tt_dp_unpacker_flip(th, j.u, j.out_fmt);
	else if (reg2 >> 10 & 1)   /* Unpack_Src_Reg_Set_Upd */
		dp->unpacker_src_row[j.u][me] = (uint8_t)((dp->unpacker_src_row[j.u][me] + 16 + set_base) & 0x3F);
	return TT_OK;
}

/* UNPACR_NOP: the forms the documentation describes (SETDVALID through the unpacker, ZEROSRC of
 * the unpacker's register, a plain NOP); the overlay-stream and register-write forms fault. */
static enum tt_result unpacr_nop(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	unsigned u = bits(w, 23, 23), mode = bits(w, 22, 0);
	if (mode == 0x7) {   /* the implied format: THCON_SEC[u].REG2_Out_data_format (UNPACR_NOP_SETDVALID.md) */
		tt_dp_unpacker_flip(th, u, tt_dp_cfg(th, THCON(u) + 8) & 15);
		return TT_OK;
	}
	if (mode == 0x2)
		return TT_OK;   /* occupies the unpacker for a cycle: no architectural state */
	if ((mode & ~0x1Cu) == 0x1) {
		bool like_unpacr = mode >> 4 & 1, both = mode >> 3 & 1, neg = mode >> 2 & 1;
		unsigned ub = atomic_load_explicit(&dp->unpacker_bank[u], memory_order_acquire);
		unsigned target = like_unpacr ? ub : atomic_load_explicit(u ? &dp->matrix_srcb_bank : &dp->matrix_srca_bank,
									  memory_order_acquire);
		/* Wait until that bank belongs to the unpackers (the unpacker's own bank: C5/C6). */
		if (target == ub) {
			enum tt_result r = tt_dp_wait_src(th, w, 1u << u);
			if (r != TT_OK)
				return r;
		} else if (atomic_load_explicit(u ? &dp->srcb_client[target] : &dp->srca_client[target], memory_order_acquire) !=
			   TT_SRC_UNPACKERS) {
			return tt_fault(th, BH_FAULT_NOT_MODELLED, w,
					"UNPACR_NOP ZEROSRC waiting for the matrix unit's bank to return is not modelled");
		}
		uint32_t v = u == 0 && neg ? 0x7FFFFu : 0;
		for (unsigned b = 0; b < 2; b++)
			for (unsigned i = 0; (both || b == ub) && i < TT_SRC_ROWS; i++)
				for (unsigned c = 0; c < 16; c++)
					atomic_store_explicit(u ? &dp->srcb[b][i][c] : &dp->srca[b][i][c], v, memory_order_relaxed);
		return TT_OK;
	}
	return tt_fault(th, BH_FAULT_NOT_MODELLED, w,
			"UNPACR_NOP form 0x%x (overlay-stream pop or register write) is not modelled", mode);
}

enum tt_result tt_dp_unpack(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	bh_lock(&dp->unpack_lock);
	enum tt_result r = tt_opcode_of(w) == TT_OP_UNPACR ? unpacr(th, w) : unpacr_nop(th, w);
	bh_unlock(&dp->unpack_lock);
	return r;
}

/* ---------------------------------------------------------------------------------------------
 * PACR: Blackhole's packer from Dst to L1, uncompressed (BlackholeA0 PACR.md for the Dst read
 * interfaces; for the other stages it defers to Wormhole's packer pages, which are used here).
 *
 * The Blackhole model. There is one packer with four Dst read interfaces; bits 11:8 of PACR are
 * ReadIntfSel, a mask of them (0 enables all four, as 0b1111; every value is defined). The input
 * address generator (InputAddressGenerator.md: ADC channel 0, PCK0_ADDR_*_REG_0, DEST_TARGET
 * offset) gives the start datum index; its row is StartRow, its column the first packed column.
 * Enabled interface i (in increasing i) reads Dst row (StartRow & ~3) | i; a mask that, shifted
 * left by StartRow & 3, leaves the group of four is undefined. (The page's prose also says the
 * subset is "selected relative to StartRow", and ttsim reads rows StartRow + k; its formula is
 * what is modelled. They agree whenever StartRow is a multiple of four, as in every sequence
 * tt-llk issues: Y moves by 4 rows.) Each interface reads a whole row
 * but packs the columns of the ADC X range, D = channel 1 X - channel 0 X + 1 datums (tt-llk's
 * Blackhole code sets the range to one row, 0..15; a range that leaves the row is undefined), so
 * a PACR of N enabled interfaces moves N * D datums, one row after the other, and the L1 data
 * position advances by exactly those (a BFP exponent per row). Flush packs nothing; Last and
 * Flush complete a begun 16-byte block of either stream with zeros. The Y and Z of
 * both ADC channels then move by ADDR_MOD_PACK as on Wormhole: tt-llk issues four PACRs of all
 * four interfaces per 16-row face, Y + 4 rows each, Z + 1 per face.
 * The tile position of edge masking (EdgeMasking.md's row-set and face-set selection) is an 8-bit
 * row counter Y and the plane Z: the k'th enabled interface uses row position Y + k; after the
 * PACR, Y += N, and only if that lands exactly on pack_reads_per_xy_plane Y becomes 0 and Z + 1.
 * The output address (OutputAddressGenerator.md) is L1_Dest_addr (+ 1 unless
 * Sub_l1_tile_header_size) + YZW >> 4, in 16-byte units, where YZW = PCK0_ADDR_BASE_REG_1 + Y, Z,
 * W of ADC channel 1 times their PCK0_ADDR_CTRL_*_REG_1 strides, in bytes. That rule is ttsim's
 * Blackhole model (the BlackholeA0 page does not give one; Wormhole's page adds YZW & ~0xF):
 * tt-llk programs channel 1's strides in bytes as it does channel 0's, and no sequence it issues
 * tells the two apart (its channel 1 Y, Z, W are 0 at every fresh output address). */

__attribute__((cold))
static enum tt_result pack_unmodelled(struct bh_tt_thread *th, uint32_t w, const char *what)
{
	return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "PACR: %s is not modelled", what);
}

/* The integer conversions of the early conversion: Read_unsigned and the INT8 ShiftAmount. */
struct pack_int8 {
	bool is_unsigned;
	unsigned shift;
};

/* 32 bits of Dst (FP32 or sign-magnitude Integer "32") to INT8 {sign 7, magnitude 6:0} or UINT8:
 * raw, the low bits of the magnitude (mantissa); else the magnitude shifted right by the
 * ShiftAmount, rounded to nearest (ties away: the packers' deterministic rounding) and saturated
 * to 127 (the sign as it is) or to 0..255 (negative to 0). */
static uint32_t pack_int8_of(uint32_t x, bool raw, struct pack_int8 i8)
{
	uint32_t sign = x >> 31, mag = x & 0x7FFFFFFFu;
	if (raw)
		return i8.is_unsigned ? mag & 0xFF : sign << 7 | (mag & 0x7F);
	if (i8.shift)
		mag = (mag >> i8.shift) + (mag >> (i8.shift - 1) & 1);
	if (i8.is_unsigned)
		return sign ? 0 : mag > 255 ? 255 : mag;
	return sign << 7 | (mag > 127 ? 127 : mag);
}

/* The early conversion (FormatConversion.md) of one Dst datum to the intermediate format: an
 * IEEE-layout value in *v (FP32 bits, or BF16/FP16 bits in the low half; INT32 sign-magnitude;
 * INT8/UINT8 in the low byte). */
static inline __attribute__((always_inline)) bool pack_early(unsigned inter, bool read32, bool raw, struct pack_int8 i8, uint32_t d, uint32_t *v)
{
	if (read32) {
		uint32_t f = tt_dst_to_fp32(d);
		switch (inter) {
		case TT_FMT_INT8:
			*v = pack_int8_of(f, raw, i8);
			return true;
		case TT_FMT_FP32: case TT_FMT_INT32:   /* INT32: a bitcast; Integer "32" is laid out in Dst as FP32 is */
			*v = f;
			return true;
		case TT_FMT_BF16:
			*v = raw ? f >> 16 : tt_fp32_to_bf16(f, TT_ROUND_NEAREST_AWAY);
			return true;
		case TT_FMT_BFP8:   /* E8M6: rounded to 6 mantissa bits, kept as BF16 */
			if (raw)
				return false;
			*v = tt_fp32_round(f, 6, TT_ROUND_NEAREST_AWAY) >> 16;
			return true;
		default:
			return false;
		}
	}
	uint16_t h = (uint16_t)d;
	switch (inter) {
	case TT_FMT_BF16: case TT_FMT_BFP8: {
		uint32_t f = (uint32_t)tt_dst_to_bf16(h) << 16;
		*v = raw ? f >> 16 : tt_fp32_round(f, inter == TT_FMT_BFP8 ? 6 : 7, TT_ROUND_NEAREST_AWAY) >> 16;
		return true;
	}
	case TT_FMT_FP16: {
		uint16_t x = tt_dst_to_fp16(h);
		*v = raw || (x & 0x7C00) ? x : (uint16_t)0;   /* rounding flushes denormals */
		return true;
	}
	case TT_FMT_INT16:
		*v = h;
		return true;
	case TT_FMT_INT8:   /* from BF16 or FP16 (raw, signed): the sign bit only */
		if (!raw || i8.is_unsigned)
			return false;
		*v = (uint32_t)(h >> 15) << 7;
		return true;
	default:
		return false;
	}
}

/* The ReLU stage (Packers/ReLU.md) on an early-converted datum v of intermediate format inter:
 * mode (STACC_RELU_ApplyRelu & 3) 1 zeroes x <= 0, 2 zeroes x <= the threshold, 3 zeroes x <= 0 and
 * clamps x > the threshold to it. The threshold (STACC_RELU_ReluThreshold) is FP16 for an FP16
 * intermediate, BF16 (the top half of FP32) otherwise; an integer intermediate (INT32, INT8, sign
 * and magnitude) only has mode 1, which zeroes the negative values. pacr checks the modes first. */
static uint32_t pack_relu(unsigned inter, unsigned mode, uint16_t thr, uint32_t v)
{
	if (inter == TT_FMT_INT32 || inter == TT_FMT_INT8)
		return v >> (inter == TT_FMT_INT8 ? 7 : 31) & 1 ? 0 : v;
	bool fp16 = inter == TT_FMT_FP16;
	float x, t;
	uint32_t xb = inter == TT_FMT_FP32 ? v : fp16 ? tt_fp16_to_fp32((uint16_t)v) : v << 16;
	uint32_t tb = fp16 ? tt_fp16_to_fp32(thr) : (uint32_t)thr << 16;
	memcpy(&x, &xb, 4);
	memcpy(&t, &tb, 4);
	if (x <= 0 || (mode == 2 && x <= t))
		return 0;
	if (mode == 3 && x > t)
		return inter == TT_FMT_FP32 ? tb : thr;
	return v;
}

/* L1 accumulation (Packers/README.md: L1 += Datum): the packed datum o added to the datum of the
 * same format already at its L1 address, as Blackhole does it (measured behaviour, ttsim): FP32
 * adds IEEE-style to nearest even with denormal operands and results flushed to signed zero and
 * every NaN result canonical (0x7FC00000); BF16 the same in its 7 mantissa bits (exponent below
 * BF16's normal range before rounding: signed zero; above it: infinity; +inf + -inf: 0x7FC0).
 * FP16 with the erratum model (BH_HW_BUG_PACK_L1ACC_FP16): exponent fields 1-31 all read as
 * normal numbers, 0 as zero; the sum rounds to nearest even, becomes the all-ones NaN of its sign
 * (0x7FFF) below 2^-15 or past the largest encoding, signed zero in [2^-15, 2^-14), and an exact
 * cancellation of an L1 value of exponent 30 or 31 gives +0x7FFF too. False: an operand the
 * model leaves undefined (a BF16 NaN). */
static uint32_t l1acc_flush32(uint32_t x)
{
	return (x & 0x7F800000u) ? x : x & 0x80000000u;
}

/* Positive finite x (an exact sum of two narrower values) to a format of man mantissa bits and an
 * ew-bit exponent field (IEEE bias), to nearest even: *e is x's unbiased exponent before rounding
 * (the caller flushes small ones); past emax after rounding the exponent field is all ones. */
static uint32_t l1acc_round(double x, unsigned man, int emax, unsigned ew, int *e)
{
	uint64_t b;
	memcpy(&b, &x, 8);
	int bias = (1 << (ew - 1)) - 1;
	*e = (int)(b >> 52 & 0x7FF) - 1023;
	uint64_t m = (b & ((1ull << 52) - 1)) | 1ull << 52;
	unsigned sh = 52 - man;
	m = (m + (1ull << (sh - 1)) - 1 + (m >> sh & 1)) >> sh;
	int ex = *e;
	if (m >> (man + 1)) {
		m >>= 1;
		ex++;
	}
	if (ex > emax)
		return ((1u << ew) - 1) << man;
	return (uint32_t)(ex + bias) << man | ((uint32_t)m & ((1u << man) - 1));
}

/* An FP16 datum as the erratum model reads it: exponent fields 1-31 normal, 0 zero. */
static double l1acc_fp16_value(uint32_t h)
{
	double v = 0;
	if (h & 0x7C00) {
		v = 1.0 + (double)(h & 0x3FF) / 1024.0;
		for (int k = (int)(h >> 10 & 31) - 15; k > 0; k--)
			v *= 2;
		for (int k = (int)(h >> 10 & 31) - 15; k < 0; k++)
			v /= 2;
	}
	return h & 0x8000 ? -v : v;
}

static bool pack_l1acc(unsigned fmt, uint32_t old, uint32_t o, uint32_t *out)
{
	int e;
	switch (fmt) {
	case TT_FMT_FP32: {
		float a, b, r;
		old = l1acc_flush32(old);
		o = l1acc_flush32(o);
		memcpy(&a, &old, 4);
		memcpy(&b, &o, 4);
		r = a + b;
		uint32_t rb;
		memcpy(&rb, &r, 4);
		*out = (rb & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : l1acc_flush32(rb);
		return true;
	}
	case TT_FMT_BF16: {
		uint32_t a = l1acc_flush32(old << 16), b = l1acc_flush32(o << 16);
		if ((a & 0x7FFFFFFFu) > 0x7F800000u || (b & 0x7FFFFFFFu) > 0x7F800000u)
			return false;
		float fa, fb;
		memcpy(&fa, &a, 4);
		memcpy(&fb, &b, 4);
		if ((a & 0x7FFFFFFFu) == 0x7F800000u || (b & 0x7FFFFFFFu) == 0x7F800000u) {
			float r = fa + fb;   /* an infinity: itself, or +inf + -inf */
			uint32_t rb;
			memcpy(&rb, &r, 4);
			*out = (rb & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC0u : rb >> 16;
			return true;
		}
		double x = (double)fa + (double)fb;
		uint32_t sign = x < 0 || (x == 0 && (a & b) >> 31) ? 0x8000u : 0;
		if (x == 0) {
			*out = sign;
			return true;
		}
		uint32_t r = l1acc_round(x < 0 ? -x : x, 7, 127, 8, &e);
		*out = sign | (e < -126 ? 0 : r);
		return true;
	}
	default: {   /* TT_FMT_FP16, the erratum model */
		double a = l1acc_fp16_value(old), b = l1acc_fp16_value(o), x = a + b;
		uint32_t sign = x < 0 || (x == 0 && (old & o & 0x8000)) ? 0x8000u : 0;
		if (x == 0) {
			*out = sign | ((old >> 10 & 31) >= 30 ? 0x7FFFu : 0);
			return true;
		}
		uint32_t r = l1acc_round(x < 0 ? -x : x, 10, 17, 6, &e);   /* a 6-bit field: no overflow */
		r -= 16u << 10;   /* rebias 31 -> 15 */
		*out = sign | (e < -15 || r > 0x7FFFu ? 0x7FFFu : e < -14 ? 0 : r);
		return true;
	}
	}
}

/* The late conversion of a non-BFP output (the supported ones, pacr). */
static inline __attribute__((always_inline)) uint32_t pack_late(unsigned in_fmt, unsigned out_fmt, uint32_t v)
{
	switch (out_fmt) {
	case TT_FMT_FP32:
		return in_fmt == TT_FMT_FP16 ? tt_fp16_to_fp32((uint16_t)v) : v;
	case TT_FMT_BF16:
		return in_fmt == TT_FMT_FP32 ? v >> 16 : v;
	default:
		return v;
	}
}

/* What pack_row_fast needs of a PACR. */
struct pack_fast {
	struct tt_dp *dp;
	struct bh_tile *tile;
	bool read32, raw;
	struct pack_int8 i8;
	unsigned inter, in_fmt, out_fmt;
};

/* One Dst row's datums col0.. through the early and late conversions into L1 at addr (aligned,
 * inside L1), as pacr's per-datum loop does it for unmasked datums without ReLU or L1
 * accumulation. */
static inline __attribute__((always_inline)) void pack_row_with(const struct pack_fast *p, unsigned row, unsigned col0,
								 unsigned n, uint32_t addr, bool read32, unsigned inter,
								 unsigned in_fmt, unsigned out_fmt)
{
	unsigned nb = out_fmt == TT_FMT_BF16 ? 2 : tt_fmt_info(out_fmt)->l1_bits / 8;
	/* The Dst row's halves (a 32-bit element is rows r and r + 8 of its adjusted row,
	 * tt_dst32_read) and the L1 bytes each in one relaxed copy, the conversions between. */
	uint16_t hi[16] __attribute__((aligned(16))), lo[16] __attribute__((aligned(16)));
	unsigned r = read32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	row_copy((uint8_t *)hi, (const uint8_t *)&p->dp->dst[r][col0], n * 2);
	if (read32)
		row_copy((uint8_t *)lo, (const uint8_t *)&p->dp->dst[r + 8][col0], n * 2);
	union {
		uint16_t h[16];
		uint32_t w[16];
	} out __attribute__((aligned(16)));
	for (unsigned c = 0; c < n; c++) {
		uint32_t d = read32 ? (uint32_t)hi[c] << 16 | lo[c] : hi[c], v = 0;
		pack_early(inter, read32, p->raw, p->i8, d, &v);
		uint32_t o = pack_late(in_fmt, out_fmt, v);
		if (nb == 2)
			out.h[c] = (uint16_t)o;
		else
			out.w[c] = o;
	}
	row_copy(p->tile->l1 + addr, (const uint8_t *)&out, n * nb);
}

/* pack_row_with's BF16 row (16 datums from a 16- or 32-bit Dst, rounded as pack_early rounds
 * them, not raw) on host vectors: eight BF16 datums a vector. From a 32-bit Dst, FP32 to BF16
 * (tt_v4_round_bf16: ties away) on the halves: the high half's BF16 plus the low half's top bit,
 * infinity for an infinite or NaN high half, +0 for a zero exponent (the magnitude's carry stops
 * at 0x7F80, infinity, below the sign). */
static void pack_row_bf16(const struct pack_fast *p, unsigned row, unsigned col0, uint32_t addr, bool read32)
{
	unsigned r = read32 ? tt_dst32_adj(row & 0x3FF) : row & 0x3FF;
	for (unsigned q = 0; q < 2; q++) {
		_Atomic uint16_t *d = &p->dp->dst[r][col0 + 8 * q];
		tt_v8h x = tt_v8_dst_to_bf16(tt_v8h_of(tt_ld64(d), tt_ld64(d + 4)));
		if (read32) {
			_Atomic uint16_t *l = &p->dp->dst[r + 8][col0 + 8 * q];
			tt_v8h e = x & 0x7F80u, carry = tt_v8h_of(tt_ld64(l), tt_ld64(l + 4)) >> 15;
			tt_v8h inf = (tt_v8h)(e == 0x7F80u), zero = (tt_v8h)(e == 0);
			x = (inf & ((x & 0x8000u) | 0x7F80u)) | (~inf & ~zero & (x + carry));
		} else {
			x = tt_v8_round_bf16(x);
		}
		tt_st64(p->tile->l1 + addr + 16 * q, tt_v8h_word(x, 0));
		tt_st64(p->tile->l1 + addr + 16 * q + 8, tt_v8h_word(x, 1));
	}
}

static void pack_row_fast(const struct pack_fast *p, unsigned row, unsigned col0, unsigned n, uint32_t addr)
{
	/* The compute kernels' BF16 packs, from a 16- or a 32-bit Dst: whole rows on host vectors,
	 * the others with the formats as constants. */
	bool bf16 = p->inter == TT_FMT_BF16 && p->in_fmt == TT_FMT_BF16 && p->out_fmt == TT_FMT_BF16;
	if (bf16 && n == 16 && !p->raw && !(col0 % 4) && !(addr % 8))
		pack_row_bf16(p, row, col0, addr, p->read32);
	else if (bf16 && !p->read32)
		pack_row_with(p, row, col0, n, addr, false, TT_FMT_BF16, TT_FMT_BF16, TT_FMT_BF16);
	else if (bf16)
		pack_row_with(p, row, col0, n, addr, true, TT_FMT_BF16, TT_FMT_BF16, TT_FMT_BF16);
	else
		pack_row_with(p, row, col0, n, addr, p->read32, p->inter, p->in_fmt, p->out_fmt);
}

/* Edge masking (Packers/EdgeMasking.md): its configuration, read as the PACR starts. */
struct pack_edge {
	uint32_t row_sets[4], face_sets;   /* TILE_ROW_SET_MAPPING_0..3, the selected TILE_FACE_SET_MAPPING */
	uint16_t mask[4];                   /* PCK_EDGE_OFFSET_SEC0..3 */
	unsigned row_set, zoffset, per_plane;
	bool faces, all;                    /* face sets enabled; every mask passes every column */
};

static void pack_edge_read(struct bh_tt_thread *th, struct pack_edge *pe)
{
	uint32_t sel = tt_dp_cfg(th, PCK_EDGE_FACE_SEL);
	pe->all = true;
	for (unsigned k = 0; k < 4; k++) {
		pe->row_sets[k] = tt_dp_cfg(th, PCK_ROW_SET_MAP + k);
		pe->mask[k] = (uint16_t)tt_dp_cfg(th, PCK_EDGE_OFFSET + k);
		pe->all &= pe->mask[k] == 0xFFFF;
	}
	pe->faces = sel >> 8 & 1;
	pe->face_sets = tt_dp_cfg(th, PCK_FACE_SET_MAP + (sel & 3));
	pe->row_set = tt_dp_cfg(th, PCK_EDGE_OFFSET) >> 17 & 3;
	pe->zoffset = tt_dp_cfg(th, PCK_SEC_OFFSET) >> 12 & 0x3F;
	pe->per_plane = tt_dp_cfg(th, PCK_COUNTERS) >> 8 & 0xFF;
}

/* The column mask of a Dst row read at tile row position y in plane z. */
static uint16_t pack_edge_mask(const struct pack_edge *pe, unsigned y, unsigned z)
{
	if (pe->all)
		return 0xFFFF;
	unsigned b = pe->faces ? pe->face_sets >> 2 * ((pe->zoffset + z) & 15) & 3 : pe->row_set;
	return pe->mask[pe->row_sets[b] >> 2 * (y & 15) & 3];
}

static enum tt_result pacr(struct bh_tt_thread *th, uint32_t w)
{
	struct bh_tensix *tx = th->tx;
	struct tt_dp *dp = tx->dp;
	struct bh_tile *tile = tx->tile;
	unsigned me = th->id, intf = bits(w, 11, 8) ? bits(w, 11, 8) : 0xF;
	bool last = bits(w, 0, 0), flush = bits(w, 1, 1), zero_write = bits(w, 12, 12);
	if (bits(w, 7, 7))
		return pack_unmodelled(th, w, "OvrdThreadId");
	if (bits(w, 17, 17))
		return pack_unmodelled(th, w, "DstAccessMode (strided reads; undocumented with ReadIntfSel)");
	if (bits(w, 3, 2) || bits(w, 14, 13) || bits(w, 20, 18) || bits(w, 22, 21))
		return pack_unmodelled(th, w, "a Blackhole field the documentation does not describe (CtxtCtrl, "
				       "AddrCntContext, RowPadZero or CfgContext)");
	uint32_t r1 = tt_dp_cfg(th, THCON(0) + 6), r1b = tt_dp_cfg(th, THCON(0) + 7);
	if (!(r1 & 1) && !(r1 >> 21 & 1))
		return pack_unmodelled(th, w, "zero compression (Disable_zero_compress clear)");
	if (r1 >> 21 & 1)
		return pack_unmodelled(th, w, "All_pack_disable_zero_compress_ovrd");
	if (r1 >> 16 & 1)
		return pack_unmodelled(th, w, "packing from L1 (Source_interface_selection)");
	if (r1 >> 1 & 1)
		return pack_unmodelled(th, w, "Add_l1_dest_addr_offset");
	if (r1 >> 13 & 1)
		return pack_unmodelled(th, w, "Auto_set_last_pacr_intf_sel (undocumented)");
	if (r1 >> 17 & 15)
		return pack_unmodelled(th, w, "pack_start_intf_pos (undocumented)");
	if (r1 >> 22 & 3)
		return pack_unmodelled(th, w, "Add_tile_header_size or pack_dis_y_pos_start_offset (undocumented)");
	if (tt_dp_cfg(th, PCK_COUNTERS) >> 23 & 1)
		return pack_unmodelled(th, w, "pack_yz_transposed (not documented for the Dst read interfaces)");
	if (r1b >> 20 & 1)
		return pack_unmodelled(th, w, "exponent thresholding");
	if ((r1b & 0xFFFF) && (r1b & 0xFFFF) != 0xFFFF)
		return pack_unmodelled(th, w, "downsampling (Downsample_mask)");
	if (r1 >> 12 & 1)
		return pack_unmodelled(th, w, "Dis_shared_exp_assembler");
	unsigned in_fmt = r1 >> 8 & 15, out_fmt = r1 >> 4 & 15;
	uint32_t alu_spec = tt_dp_cfg(th, BH_DP_CFG_ALU_SPEC), rd = tt_dp_cfg(th, PCK_DEST_RD);
	unsigned inter = alu_spec >> 14 & 1 ? alu_spec >> 10 & 15 : tt_dp_cfg(th, BH_DP_CFG_ALU) >> 25 & 15;
	bool read32 = rd & 1, raw = rd >> 2 & 1;
	if (rd >> 3 & 1)
		return pack_unmodelled(th, w, "Round_10b_mant");
	struct pack_int8 i8 = { rd >> 1 & 1, 0 };
	if (i8.is_unsigned && inter != TT_FMT_INT8)
		return pack_unmodelled(th, w, "Read_unsigned with an intermediate format other than INT8");
	if (inter == TT_FMT_INT8 && (tt_dp_cfg(th, PCK_INT_DESCALE) & 1)) {
		if (tt_dp_cfg(th, PCK_INT_DESCALE) >> 1 & 1)
			return pack_unmodelled(th, w, "INT_DESCALE_Mode 1 (a ShiftAmount per datum row)");
		i8.shift = tt_dp_cfg(th, PCK_INT_DESCALE_VALUE) & 31;
	}
	unsigned relu = tt_dp_cfg(th, PCK_RELU) >> 2 & 3;
	uint16_t relu_thr = (uint16_t)(tt_dp_cfg(th, PCK_RELU) >> 6);
	bool int_inter = inter == TT_FMT_INT32 || inter == TT_FMT_INT8 || inter == TT_FMT_INT16;
	if (relu && inter == TT_FMT_INT16)
		return pack_unmodelled(th, w, "ReLU of an INT16 intermediate (its sign is not documented)");
	if (relu >= 2 && int_inter)
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "PACR: ReLU mode %u of an integer intermediate (undefined: "
				"only modes 0 and 1 are)", relu);
	if (relu >= 2 && (relu_thr & 0x8000))
		return tt_fault(th, BH_FAULT_BAD_VALUE, w,
				"PACR: ReLU mode %u with the threshold 0x%04x <= -0 (undefined)", relu, relu_thr);
	const struct tt_fmt_info *fo = tt_fmt_info(out_fmt);
	if (!fo->name)
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "PACR: output format code %u names no format", out_fmt);
	/* Supported late conversions: identity of FP32/BF16/FP16/INT32/INT16/INT8 (INT8 to UINT8 is the
	 * same bitcast), BF16 to BFP8/4/2, FP32 to BF16 by truncation, FP16 to FP32. */
	bool late_ok = in_fmt == out_fmt ||
		       (in_fmt == TT_FMT_BFP8 && (out_fmt == TT_FMT_BFP8 || out_fmt == TT_FMT_BFP4 || out_fmt == TT_FMT_BFP2)) ||
		       (in_fmt == TT_FMT_BF16 && (out_fmt == TT_FMT_BFP8 || out_fmt == TT_FMT_BFP4 || out_fmt == TT_FMT_BFP2)) ||
		       (in_fmt == TT_FMT_FP32 && out_fmt == TT_FMT_BF16);
	if (!late_ok || !(in_fmt == TT_FMT_FP32 || in_fmt == TT_FMT_BF16 || in_fmt == TT_FMT_FP16 || in_fmt == TT_FMT_INT32 ||
			  in_fmt == TT_FMT_INT16 || in_fmt == TT_FMT_INT8 || in_fmt == TT_FMT_BFP8))
		return pack_unmodelled(th, w, "this late format conversion (In_data_format to Out_data_format)");
	if (inter != in_fmt && !(inter == TT_FMT_BFP8 && in_fmt == TT_FMT_BF16))
		return pack_unmodelled(th, w, "an intermediate format other than the late conversion's input");
	unsigned bpd = (in_fmt & 3) == 0 ? 4 : (in_fmt & 3) == 1 ? 2 : 1, xmask = bpd == 4 ? 3 : bpd == 2 ? 7 : 15;
	/* The input address generator: the start datum, and D datums per enabled read interface. */
	bh_lock(&dp->adc_lock);
	uint32_t *c0 = dp->adc[me][2][0], *c1 = dp->adc[me][2][1];
	uint32_t addr = (tt_dp_cfg(th, PCK_BASE0) & 0x3FFFF) + c0[AX] * (tt_dp_cfg(th, PCK_XY0) & 15) +
			c0[AY] * (tt_dp_cfg(th, PCK_XY0) >> 16) + c0[AZ] * (tt_dp_cfg(th, PCK_ZW0) & 0xFFFF) +
			c0[AW] * (tt_dp_cfg(th, PCK_ZW0) >> 16);
	unsigned per_row = flush ? 0 : c1[AX] - c0[AX] + 1;
	uint32_t start = (((addr / bpd) & ~xmask) + (c0[AX] & xmask) + ((tt_dp_cfg(th, PCK_SEC_OFFSET) & 0xFFF) << 4)) &
			 0x3FFF;
	uint32_t yzw = (tt_dp_cfg(th, PCK_BASE1) & 0x3FFFF) + c1[AY] * (tt_dp_cfg(th, PCK_XY1) >> 16) +
		       c1[AZ] * (tt_dp_cfg(th, PCK_ZW1) & 0xFFFF) + c1[AW] * (tt_dp_cfg(th, PCK_ZW1) >> 16);
	bh_unlock(&dp->adc_lock);
	unsigned start_row = start >> 4, col0 = start & 15;
	if (per_row && col0 + per_row > 16)
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "PACR: %u datums from column %u leave the Dst row (undefined: "
				"a read interface packs from one row)", per_row, col0);
	if (per_row && (intf << (start_row & 3)) > 0xF)
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "PACR: ReadIntfSel 0x%x from Dst row %u leaves its group of "
				"four rows (undefined)", intf, start_row);
	if (fo->bfp && per_row && per_row != 16)
		return pack_unmodelled(th, w, "a BFP pack of rows other than 16 datums");
	/* The output address generator: 16-byte units; L1_Dest_addr + 1 (the tile header) unless
	 * subtracted, plus YZW in bytes (see above). */
	struct tt_pack_stream *ps = &dp->pack;
	uint32_t oaddr = tt_dp_cfg(th, THCON(0) + 5) + !(r1 >> 15 & 1) + (yzw >> 4);
	uint32_t limit = tt_dp_cfg(th, PCK_LIMIT) & 0x1FFFF, fifo = tt_dp_cfg(th, PCK_LIMIT + 1) & 0x1FFFF;
	if (oaddr > limit * 2 + 1)
		oaddr -= fifo * 2;
	if (fo->l1_bits < 16 || out_fmt == TT_FMT_INT8 || out_fmt == TT_FMT_FP8) {
		if (ps->fresh)
			ps->exp = (oaddr & 0x1FFFF) << 4;
		oaddr += tt_dp_cfg(th, THCON(0) + 4) >> 16;   /* Exp_section_size */
	}
	if (ps->fresh) {
		ps->data = (oaddr & 0x1FFFF) << 4;
		ps->tpg_y = ps->tpg_z = 0;
	}
	ps->fresh = last || flush;
	if (out_fmt == TT_FMT_FP8 || out_fmt == TT_FMT_TF32 || out_fmt == TT_FMT_BFP8A ||
	    out_fmt == TT_FMT_BFP4A || out_fmt == TT_FMT_BFP2A)
		return pack_unmodelled(th, w, "this output format");
	bool l1acc = r1b >> 19 & 1;   /* Pack_L1_Acc */
	if (l1acc && out_fmt == TT_FMT_FP16 && !(tile->chip->hw_bugs & BH_HW_BUG_PACK_L1ACC_FP16))
		return tt_fault(th, BH_FAULT_BAD_VALUE, w,
				"PACR: FP16 L1 accumulation meets the packer erratum (hw bug pack-l1acc-fp16)");
	if (l1acc && out_fmt != TT_FMT_FP32 && out_fmt != TT_FMT_BF16 && out_fmt != TT_FMT_FP16)
		return pack_unmodelled(th, w,
				       "L1 accumulation (Pack_L1_Acc) into a format other than FP32, BF16 and FP16");
	uint32_t first = ps->data, first_exp = ps->exp;
	if (per_row) {
		/* What the rows below write: per_row datums of each enabled interface, and a BFP
		 * format's exponent per 16 of them. */
		uint32_t rows = (uint32_t)__builtin_popcount(intf & 0xFu);
		enum tt_result r = cb_ownership(th, w, 2, first, rows * per_row * fo->l1_bits / 8);
		if (r == TT_OK && fo->bfp)
			r = cb_ownership(th, w, 2, first_exp, rows * per_row / 16);
		if (r != TT_OK)
			return r;
	}
	struct pack_edge pe;
	pack_edge_read(th, &pe);
	bool edge_inf = tt_dp_cfg(th, PCK_EDGE_OFFSET) >> 16 & 1;   /* PCK_EDGE_MODE: -inf, else 0 */
	uint32_t minus_inf = inter == TT_FMT_FP32 ? 0xFF800000u : inter == TT_FMT_FP16 ? 0xFC00u : 0xFF80u;
	uint16_t group[16];
	unsigned k = 0;   /* enabled read interfaces so far */
	/* The whole rows of unmasked datums of a 16- or 32-bit output, when no datum can fault: one
	 * early conversion for all (it fails, if at all, for every datum alike), no ReLU, no L1
	 * accumulation, every row of this PACR inside L1. */
	uint32_t probe;
	struct pack_fast pf = { dp, tile, read32, raw, i8, inter, in_fmt, out_fmt };
	bool fast = !fo->bfp && !relu && !l1acc && !zero_write && (fo->l1_bits == 16 || fo->l1_bits == 32) &&
		    !(ps->data & (fo->l1_bits / 8 - 1)) && pack_early(inter, read32, raw, i8, 0, &probe) &&
		    l1_ok(ps->data, 4 * per_row * (fo->l1_bits / 8u));
	for (unsigned ri = 0; ri < 4 && per_row; ri++) {
		if (!(intf >> ri & 1))
			continue;
		unsigned row = (start_row & ~3u) | ri;
		uint16_t mask = pack_edge_mask(&pe, ps->tpg_y + k++, ps->tpg_z);
		if (fast && mask == 0xFFFF) {
			pack_row_fast(&pf, row, col0, per_row, ps->data);
			ps->data += per_row * (fo->l1_bits / 8);
			continue;
		}
		for (unsigned c = 0; c < per_row; c++) {
			unsigned col = col0 + c;
			uint32_t d = zero_write ? 0 : read32 ? tt_dst32_read(dp, row, col) : tt_dst16_read(dp, row, col), v;
			if (!(mask >> col & 1)) {
				if (edge_inf && int_inter)
					return tt_fault(th, BH_FAULT_BAD_VALUE, w, "PACR: an edge mask's -inf (PCK_EDGE_MODE 1) "
							"in an integer intermediate format (undefined)");
				v = edge_inf ? minus_inf : 0;
			} else if (!pack_early(inter, read32, raw, i8, d, &v)) {
				return pack_unmodelled(th, w, "this early format conversion (Read_32b_data, Read_raw, "
						       "intermediate format)");
			}
			if (relu)
				v = pack_relu(inter, relu, relu_thr, v);
			if (fo->bfp) {
				group[c] = (uint16_t)v;
				if (c != 15)
					continue;
				uint8_t e, m[16];
				tt_bfp_encode(group, fo->l1_bits, &e, m);
				if (!l1_ok(ps->exp, 1) || !l1_ok(ps->data, fo->l1_bits * 2))
					return tt_fault(th, BH_FAULT_UNMAPPED, w, "PACR writes past the end of L1");
				l1_write_bytes(tile, ps->exp++, e, 1);
				uint8_t buf[16] = { 0 };
				unsigned nbytes = fo->l1_bits * 2u;
				for (unsigned j = 0; j < 16; j++)
					buf[j * fo->l1_bits / 8] |= (uint8_t)(m[j] << (j * fo->l1_bits % 8));
				for (unsigned j = 0; j < nbytes; j++)
					l1_write_bytes(tile, ps->data + j, buf[j], 1);
				ps->data += nbytes;
				continue;
			}
			uint32_t o = pack_late(in_fmt, out_fmt, v);
			unsigned nb = fo->l1_bits / 8;
			if (!l1_ok(ps->data, nb))
				return tt_fault(th, BH_FAULT_UNMAPPED, w, "PACR writes L1 0x%x, past the end of L1", ps->data);
			if (l1acc && !pack_l1acc(out_fmt, l1_read_bits(tile, (uint64_t)ps->data << 3, nb * 8), o, &o))
				return pack_unmodelled(th, w, "L1 accumulation of a BF16 NaN (undocumented)");
			l1_write_bytes(tile, ps->data, o, nb);
			ps->data += nb;
		}
	}
	/* The tile position: + the enabled interfaces, a new xy plane only on landing on the count. */
	ps->tpg_y = (ps->tpg_y + k) & 0xFF;
	if (k && ps->tpg_y == pe.per_plane) {
		ps->tpg_y = 0;
		ps->tpg_z++;
	}
	/* Last and Flush flush the output buffers: a 16-byte block begun is completed with zeros (PACR.md:
	 * 48 datums of BFP4, 24 bytes, and eight zero bytes). */
	if ((last || flush) && ((ps->data & 15) || (fo->bfp && (ps->exp & 15)))) {
		if (l1acc)
			return pack_unmodelled(th, w, "L1 accumulation of a flush's zero padding (undocumented)");
		uint32_t pad = -ps->data & 15, epad = fo->bfp ? -ps->exp & 15 : 0;
		if (!l1_ok(ps->data, pad) || !l1_ok(ps->exp, epad))
			return tt_fault(th, BH_FAULT_UNMAPPED, w, "PACR writes past the end of L1");
		for (; pad; pad--)
			l1_write_bytes(tile, ps->data++, 0, 1);
		for (; epad; epad--)
			l1_write_bytes(tile, ps->exp++, 0, 1);
	}
	if (ps->data > first)
		bh_tile_l1_written(tile, first, ps->data - first);
	if (fo->bfp && ps->exp > first_exp)
		bh_tile_l1_written(tile, first_exp, ps->exp - first_exp);
	/* ADDR_MOD_PACK: Y/Z of both channels for the next PACR. */
	uint32_t am = tt_dp_tcfg(th, TCFG_ADDR_MOD_PACK + bits(w, 16, 15));
	bh_lock(&dp->adc_lock);
	for (unsigned ch = 0; ch < 2; ch++) {
		unsigned sh = ch ? 6 : 0, zsh = ch ? 14 : 12;
		if (am >> (sh + 5) & 1)
			dp->adc[me][2][ch][AY] = dp->adc_cr[me][2][ch][AY] = 0;
		else if (am >> (sh + 4) & 1)
			adc_cr_inc(dp, me, 2, ch, AY, am >> sh & 15);
		else
			adc_inc(dp, me, 2, ch, AY, am >> sh & 15);
		if (am >> (zsh + 1) & 1)
			dp->adc[me][2][ch][AZ] = dp->adc_cr[me][2][ch][AZ] = 0;
		else
			adc_inc(dp, me, 2, ch, AZ, am >> zsh & 1);
	}
	bh_unlock(&dp->adc_lock);
	return TT_OK;
}

enum tt_result tt_dp_pack(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	bh_lock(&dp->pack_lock);
	enum tt_result r = pacr(th, w);
	bh_unlock(&dp->pack_lock);
	return r;
}

enum tt_result tt_dp_adc(struct bh_tt_thread *th, uint32_t w)
{
	return adc_insn(th, w);
}
