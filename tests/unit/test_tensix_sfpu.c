/* The Tensix vector unit (cores/tensix_sfpu.c): SFP* instructions pushed by TRISC1 through the
 * real FIFO, LRegs and Dst set and read directly. Values are chosen so that a wrong implementation
 * fails: lane layout over Dst rows and columns, round-to-nearest-even and fusion of the MAD
 * unit, denormal flushing, canonical NaNs, the LReg classes (general, fixed and programmable
 * constants, lane ids), nested predication through the flag stack, and named faults for what is
 * not modelled. */
#include <math.h>
#include <string.h>

#include "cores/tensix.h"
#include "cores/tensix_dp.h"
#include "cores/tensix_fmt.h"
#include "cores/tensix_sfpu.h"
#include "tensix_testlib.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* Operand layouts of cores/tensix_insns.h. */
#define SFPMEM(op, vd, mod0, am, imm10) TT(op, (uint32_t)(vd) << 20 | (uint32_t)(mod0) << 16 | (uint32_t)(am) << 13 | (imm10))
#define SFPLOAD(vd, mod0, am, imm10) SFPMEM(0x70, vd, mod0, am, imm10)
#define SFPSTORE(vd, mod0, am, imm10) SFPMEM(0x72, vd, mod0, am, imm10)
#define SFPLOADI(vd, mod0, imm16) TT(0x71, (uint32_t)(vd) << 20 | (uint32_t)(mod0) << 16 | (imm16))
#define SFP3(op, va, vb, vc, vd, mod1) \
	TT(op, (uint32_t)(va) << 16 | (uint32_t)(vb) << 12 | (uint32_t)(vc) << 8 | (uint32_t)(vd) << 4 | (mod1))
#define SFPMAD(va, vb, vc, vd, mod1) SFP3(0x84, va, vb, vc, vd, mod1)
#define SFPADD(va, vb, vc, vd, mod1) SFP3(0x85, va, vb, vc, vd, mod1)
#define SFPMUL24(va, vb, vd, mod1) SFP3(0x98, va, vb, 9, vd, mod1)
#define SFPIMM16(op, imm16, vd, mod1) TT(op, (uint32_t)(imm16) << 8 | (uint32_t)(vd) << 4 | (mod1))
#define SFPMULI(imm16, vd, mod1) SFPIMM16(0x74, imm16, vd, mod1)
#define SFPADDI(imm16, vd, mod1) SFPIMM16(0x75, imm16, vd, mod1)
#define SFPI(op, imm, vc, vd, mod1) TT(op, (uint32_t)(imm) << 12 | (uint32_t)(vc) << 8 | (uint32_t)(vd) << 4 | (mod1))
#define OP_DIVP2 0x76
#define OP_EXEXP 0x77
#define OP_EXMAN 0x78
#define OP_IADD 0x79
#define OP_SHFT 0x7A
#define OP_SETCC 0x7B
#define OP_MOV 0x7C
#define OP_ABS 0x7D
#define OP_AND 0x7E
#define OP_OR 0x7F
#define OP_NOT 0x80
#define OP_LZ 0x81
#define OP_SETEXP 0x82
#define OP_SETMAN 0x83
#define OP_PUSHC 0x87
#define OP_POPC 0x88
#define OP_SETSGN 0x89
#define OP_ENCC 0x8A
#define OP_COMPC 0x8B
#define OP_TRANSP 0x8C
#define OP_XOR 0x8D
#define OP_STOCH 0x8E
#define OP_NOP 0x8F
#define OP_CAST 0x90
#define OP_CONFIG 0x91
#define OP_SWAP 0x92
#define OP_SHFT2 0x94
#define OP_LE 0x96
#define OP_GT 0x97
#define SFPSTOCH(rnd, vc, vd, mod1) TT(OP_STOCH, (uint32_t)(rnd) << 21 | (uint32_t)(vc) << 8 | (uint32_t)(vd) << 4 | (mod1))
#define SFPCONFIG(imm16, dest, mod1) TT(OP_CONFIG, (uint32_t)(imm16) << 8 | (uint32_t)(dest) << 4 | (mod1))
#define SETC16(reg, v) TT(0xB2, (uint32_t)(reg) << 16 | (v))
#define ENABLE_CC SFPI(OP_ENCC, 3, 0, 0, 10)   /* predication on, every lane's flag set */
#define ALL_LANES_T 0xFFFFFFFFu

static struct tt_dp *dp_of(struct bh_device *dev) { return tile0(dev)->tensix->dp; }
static struct tt_sfpu *sfpu_of(struct bh_device *dev) { return dp_of(dev)->sfpu; }
static float f_of(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t b_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

static void run(struct bh_device *dev, const uint32_t *w, size_t n)
{
	run_pushes(dev, BH_CORE_TRISC1, w, n);
}

static void set_lreg(struct bh_device *dev, unsigned r, uint32_t v)
{
	for (unsigned l = 0; l < TT_SFPU_LANES; l++)
		sfpu_of(dev)->lreg[r][l] = v;
}

static uint32_t lreg(struct bh_device *dev, unsigned r, unsigned lane) { return sfpu_of(dev)->lreg[r][lane]; }

/* TRISC1 pushes w, which faults with `phrase` in its report. */
static void expect_word_fault(struct bh_device *dev, uint32_t w, const char *kind, const char *phrase)
{
	expect_push_fault_after(dev, BH_CORE_TRISC1, NULL, 0, w, kind, phrase);
}

/* ---------------------------------------------------------------------------- Dst <-> LReg */

/* SFPLOAD (BF16) puts Dst[addr & ~3 + lane / 8][2 (lane & 7) + addr bit 1] in lane; SFPSTORE
 * is its inverse. Imm10, RWC Dst and the ADDR_MOD increment all move the address. */
Test(tensix_sfpu, load_and_store_map_lanes_onto_four_rows_of_even_or_odd_columns)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	for (unsigned r = 0; r < 16; r++)
		for (unsigned c = 0; c < 16; c++)
			tt_dst16_write(dp, r, c, tt_dst_from_bf16((uint16_t)(b_of((float)(r * 16 + c)) >> 16)));
	const uint32_t w[] = {
		SETC16(28 + 2, 2),                  /* ADDR_MOD_DST section 2: Dst + 2 */
		SFPLOAD(0, 2, 0, 0),                /* rows 0-3, even columns */
		SFPLOAD(1, 2, 2, 2),                /* rows 0-3, odd columns; then RWC Dst += 2 */
		SFPLOAD(2, 2, 0, 4),                /* RWC 2 + 4 = 6: rows 4-7, odd columns */
		SFPSTORE(0, 2, 0, 10 - 2),          /* 2 + 8 = 10: rows 8-11, odd columns */
	};
	run(dev, w, N(w));
	for (unsigned l = 0; l < 32; l++) {
		unsigned row = l / 8, col = (l & 7) * 2;
		cr_expect_eq(f_of(lreg(dev, 0, l)), (float)(row * 16 + col), "lane %u even", l);
		cr_expect_eq(f_of(lreg(dev, 1, l)), (float)(row * 16 + col + 1), "lane %u odd", l);
		cr_expect_eq(f_of(lreg(dev, 2, l)), (float)((row + 4) * 16 + col + 1), "lane %u rows 4-7", l);
		cr_expect_eq(f_of((uint32_t)tt_dst_to_bf16(tt_dst16_read(dp, 8 + row, col + 1)) << 16),
			     (float)(row * 16 + col), "stored lane %u", l);
	}
	cr_expect_eq(tile0(dev)->tensix->th[1].rwc.dst, 2);
	bh_device_close(dev);
}

/* Format conversions: BF16 stores truncate and flush denormals, FP16 rebiases and saturates,
 * FP32 stores flush denormals (Blackhole) while INT32 keeps every bit, LO16/HI16 halves. */
Test(tensix_sfpu, store_and_load_formats_convert_bit_for_bit)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	set_lreg(dev, 0, 0x3F80FFFFu);   /* 1.0078: BF16 truncates to 0x3F80 */
	set_lreg(dev, 1, 0x00400000u);   /* a denormal */
	set_lreg(dev, 2, 0x48000000u);   /* 2^17: past the range of FP16 with exponent 31 normal */
	set_lreg(dev, 3, 0x3FC00000u);   /* 1.5 */
	set_lreg(dev, 4, 0x12345678u);
	const uint32_t w[] = {
		SFPSTORE(0, 2, 0, 0), SFPSTORE(1, 2, 0, 2),               /* BF16 rows 0-3 */
		SFPSTORE(2, 1, 0, 4), SFPSTORE(3, 1, 0, 6),               /* FP16 rows 4-7 */
		SFPSTORE(1, 3, 0, 16), SFPSTORE(1, 4, 0, 18),             /* FP32 / INT32 32-bit rows 16-19 */
		SFPSTORE(4, 9, 0, 20),                                    /* LO16: halves swapped, rows 20-23 */
		SFPLOAD(5, 1, 0, 4), SFPLOAD(6, 1, 0, 6),                 /* FP16 back */
		SFPLOAD(7, 3, 0, 18),                                     /* INT32 raw back */
		SFPLOADI(0, 2, 0xABCD), SFPLOAD(0, 15, 0, 0),             /* HI16_ONLY keeps the low half */
	};
	run(dev, w, N(w));
	cr_expect_eq(tt_dst_to_bf16(tt_dst16_read(dp, 0, 0)), 0x3F80);
	cr_expect_eq(tt_dst_to_bf16(tt_dst16_read(dp, 0, 1)), 0x0000, "denormal flushed");
	cr_expect_eq(tt_dst_to_fp16(tt_dst16_read(dp, 4, 0)), 0x7FFF, "saturated");
	cr_expect_eq(tt_dst_to_fp16(tt_dst16_read(dp, 4, 1)), 0x3E00, "1.5");
	cr_expect_eq(tt_dst_to_fp32(tt_dst32_read(dp, 16, 0)), 0, "FP32 store flushes");
	cr_expect_eq(tt_dst_to_fp32(tt_dst32_read(dp, 16, 1)), 0x00400000u, "INT32 store keeps");
	cr_expect_eq(tt_dst32_read(dp, 20, 0), 0x56781234u);
	cr_expect_eq(lreg(dev, 5, 0), 0x47FFE000u, "FP16 0x7FFF reads as 131008 (no infinity)");
	cr_expect_eq(lreg(dev, 6, 9), 0x3FC00000u);
	cr_expect_eq(lreg(dev, 7, 31), 0x00400000u);
	cr_expect_eq(lreg(dev, 0, 3), (uint32_t)tt_dst_from_bf16(0x3F80) << 16 | 0xABCDu, "raw high half from Dst, low half kept");
	bh_device_close(dev);
}

/* ZEROACC's Undefined is cleared exactly where a store writes: the enabled lanes' cells, both
 * 16-bit rows of a 32-bit element; HI16 and LO16 load through the 16-bit view and store through
 * the 32-bit one (SFPLOAD.md, SFPSTORE.md). */
Test(tensix_sfpu, store_defines_only_written_cells_and_hi16_lo16_pick_their_dst_view)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	for (unsigned r = 0; r < 64; r++)
		atomic_store(&dp->dst_undef[r], 0xFFFF);
	for (unsigned l = 0; l < TT_SFPU_LANES; l++)
		sfpu_of(dev)->lreg[0][l] = l % 3 ? 0x3F800000u + l : 0xBF800000u + l;   /* lanes 0, 3, 6, ... negative */
	set_lreg(dev, 1, 0x12345678u);
	tt_dst16_write(dp, 24, 4, 0xBEEF);
	const uint32_t w[] = {
		ENABLE_CC, SFPI(OP_SETCC, 0, 0, 0, 0),                    /* the negative lanes only */
		SFPSTORE(0, 2, 0, 0),                                     /* BF16 rows 0-3, even columns */
		SFPSTORE(0, 3, 0, 16),                                    /* FP32 rows 16-19 */
		SFPI(OP_ENCC, 0, 0, 0, 2),                                /* predication off */
		SFPSTORE(1, 7, 0, 20),                                    /* HI16: a 32-bit store, rows 20-23 */
		SFPLOAD(2, 7, 0, 24), SFPLOAD(3, 9, 0, 24),               /* HI16 / LO16 loads: the 16-bit view */
	};
	run(dev, w, N(w));
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		unsigned row = l / 8, col = (l & 7) * 2;
		bool on = l % 3 == 0;
		cr_expect_eq(tt_dst_undefined(dp, row, col, false), !on, "lane %u: BF16 cell defined iff written", l);
		cr_expect(tt_dst_undefined(dp, row, col + 1, false), "lane %u: the odd column stays undefined", l);
		cr_expect_eq(tt_dst_undefined(dp, 16 + row, col, true), !on, "lane %u: FP32 element defined iff written", l);
		unsigned r32 = tt_dst32_adj(16 + row);
		cr_expect_eq(tt_dst_undefined(dp, r32, col, false), !on, "lane %u: high half's row", l);
		cr_expect_eq(tt_dst_undefined(dp, r32 + 8, col, false), !on, "lane %u: low half's row", l);
		if (on)
			cr_expect_eq(tt_dst32_read(dp, 16 + row, col), tt_dst_from_fp32(0xBF800000u + l));
		cr_expect_eq(tt_dst32_read(dp, 20 + row, col), 0x12345678u, "lane %u: HI16 stores all 32 bits", l);
		cr_expect(!tt_dst_undefined(dp, 20 + row, col, true));
	}
	cr_expect_eq(lreg(dev, 2, 2), 0xBEEF0000u, "HI16 load: the 16-bit datum to the high half");
	cr_expect_eq(lreg(dev, 3, 2), 0x0000BEEFu, "LO16 load: to the low half");
	bh_device_close(dev);
}

/* A fixed-seed generator for the randomised tests (xorshift32). */
static uint32_t next_rand(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Random Dst contents, addresses (even or odd columns, any row group, the 32-bit view's rows) and
 * predication: INT32 and UINT16 loads give each enabled lane its cell (lane 8 i + k: row
 * (addr & ~3) + i, column 2 k + bit 1 of addr) and leave the others' LReg; the stores write
 * exactly the enabled lanes' cells and no other cell of Dst. */
Test(tensix_sfpu, load_and_store_move_exactly_the_enabled_lanes_cells_at_random_places)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	struct tt_sfpu *s = sfpu_of(dev);
	static uint16_t want[TT_DST_ROWS][16];
	uint32_t seed = 0x2545F491u;
	for (unsigned r = 0; r < TT_DST_ROWS; r++)
		for (unsigned c = 0; c < 16; c++)
			atomic_store(&dp->dst[r][c], want[r][c] = (uint16_t)next_rand(&seed));
	for (unsigned round = 0; round < 64; round++) {
		bool wide = round & 1;
		unsigned addr = next_rand(&seed) & 0x3FF, mod0 = wide ? 4 : 6;   /* INT32 / UINT16 */
		uint32_t mask = round % 4 < 2 ? next_rand(&seed) : 0xFFFFFFFFu;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			s->lreg[2][l] = 0xA5A50000u | l;
			s->lreg[3][l] = next_rand(&seed);
		}
		s->use_flags = 0xFFFFFFFFu;
		s->flags = mask;
		const uint32_t w[] = { SFPLOAD(2, mod0, 0, addr), SFPSTORE(3, mod0, 0, addr) };
		run(dev, w, N(w));
		s->use_flags = 0;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			unsigned row = (addr & ~3u) + l / 8, col = (l & 7) * 2 + (addr >> 1 & 1);
			bool on = mask >> l & 1;
			uint32_t cell = wide ? tt_dst_to_fp32((uint32_t)want[tt_dst32_adj(row)][col] << 16 |
							      want[tt_dst32_adj(row) + 8][col])
					     : want[row][col];
			cr_expect_eq(lreg(dev, 2, l), on ? cell : 0xA5A50000u | l, "round %u lane %u", round, l);
			if (!on)
				continue;
			uint32_t x = s->lreg[3][l];
			if (wide) {
				uint32_t d = tt_dst_from_fp32(x);
				want[tt_dst32_adj(row)][col] = (uint16_t)(d >> 16);
				want[tt_dst32_adj(row) + 8][col] = (uint16_t)d;
			} else {
				want[row][col] = (uint16_t)x;
			}
		}
		unsigned wrong = 0;
		for (unsigned r = 0; r < TT_DST_ROWS; r++)
			for (unsigned c = 0; c < 16; c++)
				wrong += atomic_load(&dp->dst[r][c]) != want[r][c];
		cr_expect_eq(wrong, 0, "round %u (addr 0x%03x, %s, mask 0x%08x): %u cells differ", round, addr,
			     wide ? "INT32" : "UINT16", mask, wrong);
	}
	bh_device_close(dev);
}

/* MOD0_FMT_SRCB: FP32 with SFPU_Fp32_enabled, else BF16 or FP16 by the SrcB format, for which
 * Blackhole's ThreadConfig SFPU_DEST_FMT (Enable bit 0, Base 4:1) stands in when enabled. */
Test(tensix_sfpu, srcb_mode_follows_the_srcb_format_or_sfpu_dest_fmt)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	bh_tensix_cfg_store(tile0(dev), 0, BH_DP_CFG_ALU, (uint32_t)TT_FMT_BF16 << 21);
	tt_dst16_write(dp, 0, 0, 0x3C05);   /* one Dst16 datum, read as BF16 or as FP16 */
	const uint32_t w[] = { SFPLOAD(0, 0, 0, 0), SETC16(4, 1u | TT_FMT_FP16 << 1), SFPLOAD(1, 0, 0, 0), SETC16(4, 0),
			       SFPLOAD(2, 0, 0, 0) };
	run(dev, w, N(w));
	cr_expect_eq(lreg(dev, 0, 0), (uint32_t)tt_dst_to_bf16(0x3C05) << 16, "BF16 by the SrcB format");
	cr_expect_eq(lreg(dev, 1, 0), tt_fp16_to_fp32(tt_dst_to_fp16(0x3C05)), "FP16 by SFPU_DEST_FMT");
	cr_expect_eq(lreg(dev, 2, 0), lreg(dev, 0, 0), "disabled again");
	cr_expect_neq(lreg(dev, 0, 0), lreg(dev, 1, 0));
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- MAD unit */

Test(tensix_sfpu, mad_rounds_to_nearest_even_is_fused_flushes_denormals_and_canonicalises_nan)
{
	struct bh_device *dev = t_open();
	static const struct { uint32_t a, b, c, want; const char *why; } v[] = {
		{ 0x3F800000u, 0x3F800000u, 0x33800000u, 0x3F800000u, "1 + 2^-24: a tie, to even" },
		{ 0x3F800001u, 0x3F800000u, 0x33800000u, 0x3F800002u, "(1 + 2^-23) + 2^-24: a tie, to even (up)" },
		{ 0x3F800800u, 0x3F800800u, 0xBF800000u, 0x3A000400u, "(1+2^-12)^2 - 1 keeps 2^-24: fused" },
		{ 0x3F800001u, 0x3F800400u, 0xBF800401u, 0x32800000u,
		  "partial fusion: the product's sticky bit (2^-26), not the exact 2^-36" },
		{ 0x00400000u, 0x7E800000u, 0x00000000u, 0x00000000u, "denormal input reads as zero" },
		{ 0x20000000u, 0x1F000000u, 0x00000000u, 0x00000000u, "denormal result flushed" },
		{ 0xA0000000u, 0x1F000000u, 0x80000000u, 0x80000000u, "flushed result keeps its sign" },
		{ 0x7F800000u, 0x00000000u, 0x3F800000u, 0x7FC00000u, "inf * 0: canonical NaN" },
		{ 0x7F800001u, 0x3F800000u, 0x00000000u, 0x7FC00000u, "NaN payload dropped" },
		{ 0x7F800000u, 0x3F800000u, 0xFF800000u, 0x7FC00000u, "inf - inf" },
		{ 0x7F000000u, 0x40000000u, 0x00000000u, 0x7F800000u, "overflow to infinity" },
	};
	for (size_t k = 0; k < N(v); k++) {
		set_lreg(dev, 0, v[k].a);
		set_lreg(dev, 1, v[k].b);
		set_lreg(dev, 2, v[k].c);
		const uint32_t w[] = { SFPMAD(0, 1, 2, 3, 0) };
		run(dev, w, 1);
		cr_expect_eq(lreg(dev, 3, 5), v[k].want, "%s: 0x%08x", v[k].why, lreg(dev, 3, 5));
	}
	bh_device_close(dev);
}

/* The instructions' MAD (tt_sfpu_mad_lanes: host floating point where it claims the same bits)
 * against the bit-level model (tt_sfpu_mad_ref) on operands made for the host path's edges: exact
 * products (a power-of-two or short-mantissa factor) added to addends of nearby exponents
 * (cancellation, a power of two minus a little), sums that land on a rounding tie, zero and
 * denormal addends with products near underflow and overflow, results at the normal/denormal
 * boundary, exact products about the unit's underflow, inexact products about the smallest normal, and
 * every special (zero, denormal, infinity, NaN) in every slot; both negate bits; and lanes of
 * different generators side by side (groups the host path takes in part). */
static uint64_t mad_rng = 0x9E3779B97F4A7C15ull;
static uint32_t mad_rand(void)
{
	mad_rng ^= mad_rng << 13;
	mad_rng ^= mad_rng >> 7;
	mad_rng ^= mad_rng << 17;
	return (uint32_t)(mad_rng >> 16);
}

static uint32_t mad_fp(uint32_t sign, uint32_t exp, uint32_t man)
{
	return sign << 31 | (exp & 0xFF) << 23 | (man & 0x7FFFFFu);
}

static uint32_t mad_special(void)
{
	static const uint32_t v[] = { 0, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x7F800000u,
				      0xFF800000u, 0x7FC00000u, 0x7F800001u, 0x3F800000u, 0xBF800000u };
	return v[mad_rand() % N(v)];
}

/* One lane's operands of generator g. */
static void mad_operands(unsigned g, uint32_t *a, uint32_t *b, uint32_t *c)
{
	uint32_t r = mad_rand(), ea = 1 + mad_rand() % 254;
	*a = mad_fp(r & 1, ea, mad_rand());
	switch (g) {
	case 0:   /* exact product (power of two), addend within a few binades: cancellation */
		*b = mad_fp(r >> 1 & 1, 127 + (int)(mad_rand() % 7) - 3, 0);
		*c = mad_fp(r >> 2 & 1, (*a >> 23 & 0xFF) + (*b >> 23 & 0xFF) - 127 + (int)(mad_rand() % 61) - 30,
			    r >> 3 & 1 ? *a : mad_rand());
		break;
	case 1:   /* short mantissas: exact products of any exponent, addends near them */
		*a &= 0xFFFFF000u;
		*b = mad_fp(r >> 1 & 1, 100 + mad_rand() % 56, mad_rand() & 0x7FF000u);
		*c = mad_fp(r >> 2 & 1, (*a >> 23 & 0xFF) + (*b >> 23 & 0xFF) - 127 + (int)(mad_rand() % 9) - 4, mad_rand());
		break;
	case 2: {   /* a * 1.0 + a tie: half an ulp of a (or 1.5, 2.5 ulp), either sign, on any a */
		uint32_t e = *a >> 23 & 0xFF;
		*b = 0x3F800000u;
		*c = e > 24 ? mad_fp(r >> 2 & 1, e - 24 + mad_rand() % 2, r >> 4 & 1 ? 0x400000u : 0) : mad_special();
		break;
	}
	case 3:   /* a zero or denormal addend: the rounded product, near underflow and overflow */
		*b = mad_fp(r >> 1 & 1, 127 - (int)(*a >> 23 & 0xFF) + 127 + (int)(mad_rand() % 260) - 130, mad_rand());
		*c = r >> 2 & 1 ? (r >> 3 & 1) << 31 : mad_fp(r >> 3 & 1, 0, mad_rand());
		break;
	case 4:   /* results at the normal/denormal boundary: a tiny a minus about a */
		*a = mad_fp(r & 1, 1 + mad_rand() % 4, mad_rand());
		*b = 0x3F800000u;
		*c = (*a ^ 0x80000000u) + (mad_rand() % 5) - 2;
		break;
	case 5:   /* exact products at the bottom of the range (the unit's product exponent about 0,
		   * where an underflowing product leaves the addend) with addends there */
		*a = mad_fp(r & 1, 1 + mad_rand() % 8, mad_rand() & 0x7FF000u);
		*b = mad_fp(r >> 1 & 1, 124 + mad_rand() % 6, mad_rand() & 0x7FF000u);
		*c = mad_fp(r >> 2 & 1, 1 + mad_rand() % 8, mad_rand());
		break;
	case 6:   /* general operands (the host path declines the inexact ones with an addend) */
		*b = mad_fp(r >> 1 & 1, 100 + mad_rand() % 56, mad_rand());
		*c = mad_fp(r >> 2 & 1, (*a >> 23 & 0xFF) + (*b >> 23 & 0xFF) - 127 + (int)(mad_rand() % 9) - 4, mad_rand());
		break;
	case 7: {   /* inexact products about the smallest normal (the unit's product exponent 0-2)
		   * with tiny addends: results that round up to normal or are flushed */
		*a = mad_fp(r & 1, 1 + mad_rand() % 126, mad_rand());
		*b = mad_fp(r >> 1 & 1, 127 - (*a >> 23 & 0xFF) + mad_rand() % 3, mad_rand());
		*c = mad_fp(r >> 2 & 1, mad_rand() % 3, mad_rand());
		if (r >> 8 & 1) {   /* a negative product and an addend that sum to within a few
				     * 2^-149 of the smallest normal 2^-126 */
			*a |= 0x80000000u;
			*b &= 0x7FFFFFFFu;
			double want = 0x1p-126 + (double)((int)(mad_rand() % 9) - 4) * 0x1p-150;
			*c = b_of((float)(want - (double)f_of(*a) * f_of(*b)));
		}
		break;
	}
	default:   /* a special in one slot or more */
		*b = mad_fp(r >> 1 & 1, 127 + (int)(mad_rand() % 9) - 4, mad_rand());
		*c = mad_fp(r >> 2 & 1, ea, mad_rand());
		if (r >> 5 & 1)
			*a = mad_special();
		if (r >> 6 & 1)
			*b = mad_special();
		if (r >> 7 & 1 || !(r >> 5 & 3))
			*c = mad_special();
		break;
	}
}

/* The lanes the host path declines take the model lane by lane or, on AVX2 hosts, eight lanes at
 * a time (tt_mad_path): both paths give the model's bits. */
Test(tensix_sfpu, mad_host_path_gives_the_bit_models_result)
{
	enum { GENS = 9, ROUNDS = 36000 };
	unsigned host_like[GENS] = { 0 }, lanes[GENS] = { 0 };
	for (unsigned round = 0; round < 2 * ROUNDS; round++) {
		atomic_store(&tt_mad_path, round < ROUNDS ? TT_MAD_SCALAR : TT_MAD_AVX2);
		if (round == ROUNDS && !__builtin_cpu_supports("avx2"))
			break;
		/* Two rounds in three give every lane the same generator, the third one a generator per
		 * lane: groups of eight lanes that the host path takes in part. */
		unsigned g = round % GENS;
		bool mixed = round / GENS % 3 == 2;
		uint32_t a[TT_SFPU_LANES], b[TT_SFPU_LANES], c[TT_SFPU_LANES], r[TT_SFPU_LANES];
		uint32_t na = round / GENS / 3 % 2 ? 0x80000000u : 0, nc = round / GENS / 6 % 2 ? 0x80000000u : 0;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			mad_operands(mixed ? (g + l * 5 + l / 8) % GENS : g, &a[l], &b[l], &c[l]);
		tt_sfpu_mad_lanes(a, na, b, c, nc, r);
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			uint32_t want = tt_sfpu_mad_ref(a[l] ^ na, b[l], c[l] ^ nc);
			if (r[l] != want)
				cr_assert_fail("path %d generator %u%s, lane %u: (0x%08x ^ 0x%08x) * 0x%08x + (0x%08x ^ 0x%08x) = "
					       "0x%08x, the model 0x%08x", atomic_load(&tt_mad_path), g, mixed ? " (mixed)" : "",
					       l, a[l], na, b[l], c[l], nc, r[l], want);
			if (mixed)
				continue;
			/* How often the model's result is the host's rounded arithmetic: the host path's domain. */
			float fa = f_of(a[l] ^ na), fb = f_of(b[l]), fc = f_of(c[l] ^ nc);
			float host = (c[l] >> 23 & 0xFF) == 0 ? (float)((double)fa * fb) : (float)((double)fa * fb) + fc;
			host_like[g] += b_of(host) == want;
			lanes[g]++;
		}
	}
	/* The generators meant for the host path reach it (most of their lanes are host arithmetic). */
	for (unsigned g = 0; g < 4; g++)
		cr_expect_gt(host_like[g], lanes[g] / 2, "generator %u: %u of %u lanes in the host path's domain", g,
			     host_like[g], lanes[g]);
}

/* Negate bits, indirect VA/VD through LReg 7, SFPADD with LReg 10 (1.0), the immediates. */
Test(tensix_sfpu, mad_modes_and_immediates)
{
	struct bh_device *dev = t_open();
	set_lreg(dev, 0, b_of(3.f));
	set_lreg(dev, 1, b_of(5.f));
	set_lreg(dev, 2, b_of(7.f));
	for (unsigned l = 0; l < 32; l++)
		sfpu_of(dev)->lreg[7][l] = l & 1 ? 1 : 6;   /* odd lanes: LReg 1, even: LReg 6 */
	const uint32_t w[] = {
		SFPMAD(0, 1, 2, 3, 1 | 2),        /* -(3 * 5) - 7 = -22 */
		SFPADD(10, 1, 2, 4, 0),           /* 1 * 5 + 7 = 12 */
		SFPMAD(0, 2, 9, 5, 4 | 8),        /* VA = LReg[LReg7]: odd 5 * 7, even LReg6 (0) * 7; into LReg[LReg7] */
		SFPLOADI(5, 0, 0x4040),           /* BF16 3.0 */
		SFPADDI(0x3F00, 5, 0),            /* 3 + 0.5 */
		SFPMULI(0xC000, 5, 0),            /* * -2 = -7 */
		SFPLOADI(0, 1, 0x3C00),           /* FP16 1.0 */
	};
	run(dev, w, N(w));
	cr_expect_eq(f_of(lreg(dev, 3, 0)), -22.f);
	cr_expect_eq(f_of(lreg(dev, 4, 0)), 12.f);
	cr_expect_eq(f_of(lreg(dev, 1, 1)), 35.f, "odd lanes wrote LReg 1");
	cr_expect_eq(f_of(lreg(dev, 1, 0)), 5.f, "even lanes left LReg 1");
	cr_expect_eq(f_of(lreg(dev, 6, 0)), 0.f, "even lanes wrote 0 * 7 to LReg 6");
	cr_expect_eq(f_of(lreg(dev, 5, 7)), -7.f);
	cr_expect_eq(f_of(lreg(dev, 0, 7)), 1.f);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- LReg classes */

/* 8-10 fixed, 15 the lane ids, writes to them dropped; 11-14 programmable only by SFPCONFIG,
 * which broadcasts lanes 0-7 of LReg 0 down the rows, or takes fixed values with bit 0. */
Test(tensix_sfpu, constant_lregs_lane_ids_and_sfpconfig)
{
	struct bh_device *dev = t_open();
	for (unsigned l = 0; l < 32; l++)
		sfpu_of(dev)->lreg[0][l] = 100 + l;
	const uint32_t w[] = {
		SFPCONFIG(0, 12, 0),              /* LReg 12 = LReg 0 lanes 0-7 down the rows */
		SFPCONFIG(0, 13, 1),              /* LReg 13 = -0.67487759 */
		SFPI(OP_MOV, 0, 15, 1, 0),        /* lane ids */
		SFPI(OP_MOV, 0, 8, 2, 0),
		SFPLOADI(9, 0, 0x4000),           /* a write to LReg 9 is dropped */
		SFPI(OP_MOV, 0, 10, 10, 1),       /* and to LReg 10 */
	};
	run(dev, w, N(w));
	for (unsigned l = 0; l < 32; l++) {
		cr_expect_eq(lreg(dev, 12, l), 100 + (l & 7), "lane %u", l);
		cr_expect_eq(lreg(dev, 13, l), 0xBF2CC4C7u);
		cr_expect_eq(lreg(dev, 1, l), 2 * l);
		cr_expect_eq(lreg(dev, 2, l), 0x3F566189u);
		cr_expect_eq(lreg(dev, 9, l), 0);
		cr_expect_eq(lreg(dev, 10, l), 0x3F800000u);
	}
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- predication */

/* v = lane id (0..62); if (v >= 32) { if (v < 48) v = 1 else v = 2 } else v = 3 — nested
 * if/else through SFPIADD's flags, SETCC, PUSHC, COMPC and POPC; then all lanes again. */
Test(tensix_sfpu, nested_if_else_through_the_flag_stack)
{
	struct bh_device *dev = t_open();
	const uint32_t w[] = {
		SFPI(OP_MOV, 0, 15, 0, 0),
		ENABLE_CC,
		SFPI(OP_PUSHC, 0, 0, 0, 0),
		SFPI(OP_IADD, (uint32_t)-32 & 0xFFF, 0, 1, 1 | 8),   /* LReg1 = v - 32; flag = >= 0 */
		SFPI(OP_PUSHC, 0, 0, 0, 0),
		SFPI(OP_IADD, (uint32_t)-48 & 0xFFF, 0, 2, 1),       /* flag = v - 48 < 0 */
		SFPLOADI(3, 2, 1),
		SFPI(OP_COMPC, 0, 0, 0, 0),
		SFPLOADI(3, 2, 2),
		SFPI(OP_POPC, 0, 0, 0, 0),
		SFPI(OP_COMPC, 0, 0, 0, 0),
		SFPLOADI(3, 2, 3),
		SFPI(OP_POPC, 0, 0, 0, 0),
		SFPLOADI(4, 2, 7),                                     /* every lane again */
		SFPI(OP_ENCC, 0, 0, 0, 2),                             /* predication off */
	};
	run(dev, w, N(w));
	struct tt_sfpu *s = sfpu_of(dev);
	for (unsigned l = 0; l < 32; l++) {
		unsigned v = 2 * l, want = v >= 32 ? (v < 48 ? 1 : 2) : 3;
		cr_expect_eq(lreg(dev, 3, l), want, "lane %u", l);
		cr_expect_eq(lreg(dev, 4, l), 7);
	}
	cr_expect_eq(s->depth, 0);
	cr_expect_eq(s->use_flags, 0);
	bh_device_close(dev);
}

/* SETCC modes; with predication off SETCC clears the flags; POPC's combining modes; empty pop
 * and full push fault. */
Test(tensix_sfpu, setcc_modes_and_popc_boolean_ops)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	for (unsigned l = 0; l < 32; l++)
		s->lreg[0][l] = l < 8 ? 0x80000000u : l < 16 ? 0 : l < 24 ? 5 : 0xFFFFFFFFu;
	const uint32_t w0[] = { SFPI(OP_SETCC, 0, 0, 0, 6) };   /* predication off: flags cleared */
	run(dev, w0, 1);
	cr_expect_eq(s->flags, 0);
	static const struct { unsigned mod; uint32_t want; } v[] = {
		{ 0, 0xFF0000FFu }, { 2, 0xFFFF00FFu }, { 4, 0x00FFFF00u }, { 6, 0x0000FF00u },
	};
	for (size_t k = 0; k < N(v); k++) {
		const uint32_t w[] = { ENABLE_CC, SFPI(OP_SETCC, 0, 0, 0, v[k].mod) };
		run(dev, w, N(w));
		cr_expect_eq(s->flags, v[k].want, "mode %u: 0x%08x", v[k].mod, s->flags);
	}
	/* flags 0x0000FF00 now; push, set LT0 (0xFF0000FF), POPC mode 4 (flags OR top). */
	const uint32_t w1[] = {
		SFPI(OP_PUSHC, 0, 0, 0, 0), ENABLE_CC, SFPI(OP_SETCC, 0, 0, 0, 0), SFPI(OP_POPC, 0, 0, 0, 4),
	};
	run(dev, w1, N(w1));
	cr_expect_eq(s->flags, 0xFF00FFFFu);
	cr_expect_eq(s->depth, 1, "mode 4 peeks");
	const uint32_t w2[] = { SFPI(OP_POPC, 0, 0, 0, 0) };
	run(dev, w2, 1);
	expect_word_fault(dev, SFPI(OP_POPC, 0, 0, 0, 0), "bad register value", "SFPPOPC with the flag stack empty");
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- simple unit */

Test(tensix_sfpu, integer_bit_and_field_operations)
{
	struct bh_device *dev = t_open();
	set_lreg(dev, 0, 0xF0000010u);
	set_lreg(dev, 1, (uint32_t)-4);
	set_lreg(dev, 2, 0x80000000u);
	set_lreg(dev, 3, 0xC0490FDBu);   /* -pi */
	const uint32_t w[] = {
		SFPI(OP_MOV, 0, 0, 4, 0), SFPI(OP_SHFT, 0, 1, 4, 2),            /* arithmetic >> 4 */
		SFPI(OP_MOV, 0, 0, 5, 0), SFPI(OP_SHFT, 0xFFC, 0, 5, 1),        /* logical >> 4 (imm -4) */
		SFPI(OP_LZ, 0, 0, 6, 4),                                        /* sign masked: 1 */
		SFPI(OP_ABS, 0, 2, 7, 0),                                       /* INT_MIN stays */
	};
	run(dev, w, N(w));
	cr_expect_eq(lreg(dev, 4, 0), 0xFF000001u);
	cr_expect_eq(lreg(dev, 5, 0), 0x0F000001u);
	cr_expect_eq(lreg(dev, 6, 0), 1);
	cr_expect_eq(lreg(dev, 7, 0), 0x80000000u);
	const uint32_t w2[] = {
		SFPI(OP_EXEXP, 0, 3, 4, 0),                                     /* 1 */
		SFPI(OP_EXMAN, 0, 3, 5, 0),                                     /* hidden bit set */
		SFPI(OP_SETSGN, 0, 3, 6, 1),                                    /* pi */
		SFPI(OP_DIVP2, 0xFFF, 3, 7, 1),                                 /* -pi / 2 */
		SFPI(OP_CAST, 0, 1, 0, 3),                                      /* -4 -> sign-magnitude */
	};
	run(dev, w2, N(w2));
	cr_expect_eq(lreg(dev, 4, 0), 1);
	cr_expect_eq(lreg(dev, 5, 0), 0x00C90FDBu);
	cr_expect_eq(f_of(lreg(dev, 6, 0)), (float)M_PI);
	cr_expect_eq(f_of(lreg(dev, 7, 0)), -(float)M_PI / 2);
	cr_expect_eq(lreg(dev, 0, 0), 0x80000004u);
	const uint32_t w3[] = {
		SFPI(OP_CAST, 0, 0, 1, 0),                                      /* SM -4 -> -4.0 */
		SFPI(OP_SETEXP, 130, 10, 2, 1),                                 /* 1.0 with exponent 130: 8 */
		SFPI(OP_SETMAN, 0x800, 10, 3, 1),                               /* 1.5 */
		SFPMUL24(10, 10, 4, 1),                                         /* high 23 bits of 0 * 0 */
		SFPI(OP_NOT, 0, 9, 5, 0),
		SFPI(OP_XOR, 0, 10, 5, 0),
	};
	run(dev, w3, N(w3));
	cr_expect_eq(f_of(lreg(dev, 1, 0)), -4.f);
	cr_expect_eq(f_of(lreg(dev, 2, 0)), 8.f);
	cr_expect_eq(f_of(lreg(dev, 3, 0)), 1.5f);
	cr_expect_eq(lreg(dev, 4, 0), 0);
	cr_expect_eq(lreg(dev, 5, 0), ~0x3F800000u);
	bh_device_close(dev);
}

/* SFPGT/SFPLE order sign-magnitude values (-0 < +0); SFPSWAP min/max; SFPTRANSP; SFPSHFT2's
 * lane rotation; SFPSTOCHRND to BF16 precision, to nearest and toward zero. */
Test(tensix_sfpu, compare_swap_transpose_shuffle_and_round)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	set_lreg(dev, 0, 0x80000000u);   /* -0 */
	set_lreg(dev, 1, 0);             /* +0 */
	const uint32_t w[] = {
		SFPI(OP_MOV, 0, 1, 2, 0), SFPI(OP_GT, 0, 0, 2, 8),             /* +0 > -0: -1 */
		SFPI(OP_MOV, 0, 1, 3, 0), SFPI(OP_LE, 0, 0, 3, 8),             /* +0 <= -0: 0 */
		SFPI(OP_SWAP, 0, 1, 0, 1),                                      /* LReg0 = min = -0, LReg1 = +0 */
	};
	run(dev, w, N(w));
	cr_expect_eq(lreg(dev, 2, 0), 0xFFFFFFFFu);
	cr_expect_eq(lreg(dev, 3, 0), 0);
	cr_expect_eq(lreg(dev, 0, 0), 0x80000000u);
	cr_expect_eq(lreg(dev, 1, 0), 0);
	for (unsigned r = 0; r < 8; r++)
		for (unsigned l = 0; l < 32; l++)
			s->lreg[r][l] = r * 100 + l;
	const uint32_t w2[] = { SFPI(OP_TRANSP, 0, 0, 0, 0), SFPI(OP_SHFT2, 0, 5, 6, 3) };
	run(dev, w2, N(w2));
	cr_expect_eq(lreg(dev, 1, 2 * 8 + 3), 2 * 100 + 1 * 8 + 3, "row 2 of LReg 1 = row 1 of LReg 2");
	cr_expect_eq(lreg(dev, 6, 8), lreg(dev, 5, 15), "rotated right within the lanes' row");
	cr_expect_eq(lreg(dev, 6, 9), lreg(dev, 5, 8));
	set_lreg(dev, 0, 0x3F818000u);   /* half way between two BF16 values: ties away */
	set_lreg(dev, 1, 0xBF817FFFu);
	const uint32_t w3[] = { SFPSTOCH(0, 0, 2, 1), SFPSTOCH(0, 1, 3, 1), SFPSTOCH(2, 0, 4, 1) };
	run(dev, w3, N(w3));
	cr_expect_eq(lreg(dev, 2, 0), 0x3F820000u);
	cr_expect_eq(lreg(dev, 3, 0), 0xBF810000u);
	cr_expect_eq(lreg(dev, 4, 0), 0x3F810000u);
	bh_device_close(dev);
}

/* SFPLUT: 8-bit table values (0x88: -0.5 ... 0xFF: 0) chosen by |LReg 3| < 1, < 2; SFPLUTFP32:
 * FP32 slopes/offsets from LReg 0-2 / 4-6 and the 6-entry FP16 table's half-steps; SGN_RETAIN. */
Test(tensix_sfpu, lut_and_lutfp32_pick_the_piece_by_the_magnitude_of_lreg3)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	static const float x[4] = { 0.25f, -1.5f, 3.0f, -0.75f };
	for (unsigned l = 0; l < 32; l++)
		s->lreg[3][l] = b_of(x[l & 3]);
	set_lreg(dev, 0, 0x1020);   /* slope 0x10 = 0.5, offset 0x20 = 0.25 */
	set_lreg(dev, 1, 0x0008);   /* slope 1.0, offset 1.5 */
	set_lreg(dev, 2, 0xFF90);   /* slope 0, offset -0.5 */
	const uint32_t w[] = { SFPMEM(0x73, 4, 4, 0, 0) };   /* SFPLUT into LReg 4, sign retained */
	run(dev, w, 1);
	cr_expect_eq(f_of(lreg(dev, 4, 0)), 0.5f * 0.25f + 0.25f);
	cr_expect_eq(f_of(lreg(dev, 4, 1)), -(1.0f * 1.5f + 1.5f));
	cr_expect_eq(f_of(lreg(dev, 4, 2)), 0.5f, "-0.5 with the sign of +3 retained");
	cr_expect_eq(f_of(lreg(dev, 4, 3)), -(0.5f * 0.75f + 0.25f));
	set_lreg(dev, 0, b_of(2.0f));
	set_lreg(dev, 4, b_of(-1.0f));
	set_lreg(dev, 1, 0x3C004000u);   /* FP16 pairs: hi 1.0 (|x| in [1.5, 2)), lo 2.0 ([1, 1.5)) */
	set_lreg(dev, 5, 0x3800BC00u);   /* hi 0.5, lo -1.0 */
	const uint32_t w2[] = { TT(0x95, 6u << 4 | 0), TT(0x95, 7u << 4 | 2) };
	run(dev, w2, N(w2));
	cr_expect_eq(f_of(lreg(dev, 6, 0)), 2.0f * 0.25f - 1.0f, "FP32 table, piece 0");
	cr_expect_eq(f_of(lreg(dev, 7, 1)), 1.0f * 1.5f + 0.5f, "FP16 6-entry table, |x| in [1.5, 2): high halves");
	bh_device_close(dev);
}

/* SFPSWAP's sub-vector modes: rows 0 and 2 get the minimum in VD, rows 1 and 3 the maximum. */
Test(tensix_sfpu, swap_subvector_modes_choose_min_or_max_per_row)
{
	struct bh_device *dev = t_open();
	set_lreg(dev, 0, b_of(1.0f));
	set_lreg(dev, 1, b_of(-2.0f));
	const uint32_t w[] = { SFPI(OP_SWAP, 0, 1, 0, 3) };   /* MIN02_MAX13 */
	run(dev, w, 1);
	for (unsigned l = 0; l < 32; l++) {
		bool min = (l / 8) % 2 == 0;
		cr_expect_eq(f_of(lreg(dev, 0, l)), min ? -2.0f : 1.0f, "lane %u", l);
		cr_expect_eq(f_of(lreg(dev, 1, l)), min ? 1.0f : -2.0f, "lane %u", l);
	}
	bh_device_close(dev);
}

/* SFPSWAP on random values (signed zeros, NaN patterns, equal pairs), modes 0-9, predication and
 * LaneConfig's EXCHANGE_SRCB_SRCC on random lanes, VC == VD and a read-only VC: each enabled lane
 * swaps when mode 0, else when it leaves VD with the minimum (sign-magnitude order, -0 below +0)
 * in the rows the mode gives the minimum to VD and the maximum elsewhere, the exchange bit
 * inverting that; the writable one of the two LRegs takes the other's value. */
Test(tensix_sfpu, swap_modes_on_random_lanes_follow_the_sign_magnitude_order)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	static const uint8_t vd_min_rows[10] = { 0, 0xF, 0x3, 0x5, 0x9, 0x1, 0x2, 0x4, 0x8, 0x0 };   /* SFPSWAP.md */
	static const uint32_t edge[] = { 0, 0x80000000u, 0x7FC00000u, 0xFFC00000u, 0x3F800000u, 0xBF800000u };
	uint32_t seed = 0x1234567u;
	for (unsigned round = 0; round < 120; round++) {
		unsigned mod1 = round % 10, vc = round % 7 == 3 ? 9 : 1, vd = round % 11 == 5 ? 1 : 2;   /* LReg 9: read-only */
		uint32_t mask = round % 3 ? next_rand(&seed) : 0xFFFFFFFFu, invert = round % 4 == 1 ? next_rand(&seed) : 0;
		uint32_t c[TT_SFPU_LANES], d[TT_SFPU_LANES];
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			uint32_t r = next_rand(&seed);
			s->lreg[1][l] = r % 4 == 0 ? edge[r / 4 % N(edge)] : next_rand(&seed);
			s->lreg[2][l] = r % 8 == 1 ? s->lreg[1][l] : r % 4 == 2 ? edge[r / 8 % N(edge)] : next_rand(&seed);
			s->lane_config[l] = (invert >> l & 1) * 0x100u;   /* EXCHANGE_SRCB_SRCC */
			c[l] = s->lreg[vc][l];
			d[l] = s->lreg[vd][l];
		}
		s->lc_any = invert ? 0x100u : 0;
		s->use_flags = 0xFFFFFFFFu;
		s->flags = mask;
		const uint32_t w[] = { SFPI(OP_SWAP, 0, vc, vd, mod1) };
		run(dev, w, N(w));
		s->use_flags = 0;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			int64_t kc = c[l] >> 31 ? -(int64_t)(c[l] & 0x7FFFFFFFu) - 1 : c[l];
			int64_t kd = d[l] >> 31 ? -(int64_t)(d[l] & 0x7FFFFFFFu) - 1 : d[l];
			bool vd_gets_min = vd_min_rows[mod1] >> (l / 8) & 1;
			bool swap = mod1 == 0 || (vd_gets_min ? kc < kd : !(kc < kd));
			swap = (mask >> l & 1) && (mod1 == 0 ? swap : swap != (bool)(invert >> l & 1));
			uint32_t want_d = swap ? c[l] : d[l], want_c = vc < 8 && swap ? d[l] : c[l];
			if (vc == vd)
				want_c = want_d;
			cr_expect_eq(s->lreg[vd][l], want_d, "round %u (mode %u) lane %u VD", round, mod1, l);
			cr_expect_eq(s->lreg[vc][l], want_c, "round %u (mode %u) lane %u VC", round, mod1, l);
		}
	}
	bh_device_close(dev);
}

/* SFPMOV (SFPMOV.md): mode 0 copies VC into the enabled lanes of VD, 1 with the sign bit flipped
 * (of zeros and NaNs too), 2 into every lane whatever the predication. */
Test(tensix_sfpu, mov_copies_negates_or_copies_into_every_lane)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		s->lreg[0][l] = l % 3 == 0 ? 0 : l % 3 == 1 ? 0xFFC00001u + l : 0x3F800000u + l;
		s->lreg[1][l] = s->lreg[2][l] = s->lreg[3][l] = 0xA0000000u | l;
	}
	s->use_flags = 0xFFFFFFFFu;
	s->flags = 0x0F0F00FFu;
	const uint32_t w[] = { SFPI(OP_MOV, 0, 0, 1, 0), SFPI(OP_MOV, 0, 0, 2, 1), SFPI(OP_MOV, 0, 0, 3, 2) };
	run(dev, w, N(w));
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		bool on = 0x0F0F00FFu >> l & 1;
		uint32_t x = s->lreg[0][l];
		cr_expect_eq(lreg(dev, 1, l), on ? x : 0xA0000000u | l, "lane %u: move", l);
		cr_expect_eq(lreg(dev, 2, l), on ? x ^ 0x80000000u : 0xA0000000u | l, "lane %u: negate", l);
		cr_expect_eq(lreg(dev, 3, l), x, "lane %u: every lane", l);
	}
	bh_device_close(dev);
}

/* The simple operations that set LaneFlags (SFPIADD.md, SFPLZ.md, SFPEXEXP.md), on random lanes
 * under predication: the enabled lanes' flags become the condition (inverted by bit 3), the
 * disabled lanes' stay; SFPIADD with bit 2 alone and SFPEXEXP without bit 1 leave the flags. */
Test(tensix_sfpu, iadd_lz_exexp_set_the_enabled_lanes_flags)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	static const struct { unsigned op, imm, mod1; } cases[] = {
		{ OP_IADD, 0x800, 1 }, { OP_IADD, 5, 1 | 8 }, { OP_IADD, 0, 0 }, { OP_IADD, 5, 1 | 4 },
		{ OP_LZ, 0, 2 }, { OP_LZ, 0, 2 | 4 | 8 }, { OP_EXEXP, 0, 2 }, { OP_EXEXP, 0, 2 | 8 }, { OP_EXEXP, 0, 0 },
	};
	uint32_t seed = 0xC0FFEEu;
	for (unsigned round = 0; round < 4 * N(cases); round++) {
		unsigned k = round % N(cases), op = cases[k].op, mod1 = cases[k].mod1;
		uint32_t flags = next_rand(&seed), x[TT_SFPU_LANES], y[TT_SFPU_LANES];
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			uint32_t r = next_rand(&seed);
			s->lreg[0][l] = x[l] = r % 5 == 0 ? 0 : r % 5 == 1 ? 0x80000000u : r % 5 == 2 ? 2000 + r % 100 : next_rand(&seed);
			s->lreg[1][l] = y[l] = next_rand(&seed);
		}
		s->use_flags = 0xFFFFFFFFu;
		s->flags = flags;
		const uint32_t w[] = { SFPI(op, cases[k].imm, 0, 1, mod1) };
		run(dev, w, N(w));
		uint32_t want = flags;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			bool cond, sets;
			if (op == OP_IADD) {
				uint32_t r = mod1 & 1 ? x[l] + (uint32_t)((int32_t)(cases[k].imm << 20) >> 20)
						      : mod1 & 2 ? x[l] - y[l] : x[l] + y[l];
				cond = (int32_t)r < 0;
				sets = !(mod1 & 4) || (mod1 & 8);
			} else if (op == OP_LZ) {
				cond = (mod1 & 4 ? x[l] & 0x7FFFFFFFu : x[l]) != 0;
				sets = mod1 & 2;
			} else {
				cond = (int32_t)((x[l] >> 23 & 0xFF) - (mod1 & 1 ? 0 : 127)) < 0;
				sets = mod1 & 2;
			}
			if (sets && (flags >> l & 1) && cond == (bool)(mod1 & 8))
				want &= ~(1u << l);
		}
		cr_expect_eq(s->flags, want, "round %u (op 0x%02x mod1 %u): flags 0x%08x, want 0x%08x", round, op, mod1, s->flags,
			     want);
		s->use_flags = 0;
	}
	bh_device_close(dev);
}

/* SFP_STOCH_RND's integer forms: FP32 to INT8 (clamped, ties away), UINT16 (sign dropped), |x| <
 * 0.5 to 0; sign-magnitude >> Imm5 to INT8 with rounding. */
Test(tensix_sfpu, stochrnd_integer_forms_round_and_clamp)
{
	struct bh_device *dev = t_open();
	static const struct { uint32_t in; unsigned mod; unsigned imm; uint32_t want; } v[] = {
		{ 0x40200000u, 3, 0, 3 },                     /* 2.5 -> 3 */
		{ 0xC0200000u, 3, 0, 0x80000003u },           /* -2.5 -> -3 */
		{ 0x43800000u, 3, 0, 127 },                   /* 256 -> 127 */
		{ 0xC3800000u, 6, 0, 256 },                   /* -256 -> 256 unsigned */
		{ 0x3EFFFFFFu, 3, 0, 0 },                     /* 0.4999 -> 0 */
		{ 0x80000006u, 5, 2, 0x80000002u },           /* -6 >> 2 = -1.5 -> -2 */
		{ 0x00000FFFu, 4, 4, 255 },                   /* 4095 >> 4 = 255.9 -> 256 -> 255 */
	};
	for (size_t k = 0; k < N(v); k++) {
		set_lreg(dev, 0, v[k].in);
		const uint32_t w[] = { TT(OP_STOCH, v[k].imm << 16 | 1u << 4 | (v[k].mod == 4 || v[k].mod == 5 ? 8u : 0) | v[k].mod) };
		run(dev, w, 1);
		cr_expect_eq(lreg(dev, 1, 0), v[k].want, "case %zu: 0x%08x", k, lreg(dev, 1, 0));
	}
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- SFPLOADMACRO */

#define SFPLOADMACRO(macro, vd, mod0, am, addr) \
	TT(0x93, (uint32_t)((macro) << 2 | ((vd) & 3)) << 20 | (uint32_t)(mod0) << 16 | (uint32_t)(am) << 13 | \
		 ((addr) & ~1u) | ((vd) >> 2 & 1))

/* LReg 0 = v in every lane, then SFPCONFIG of LoadMacroConfig destination dest. */
static void macro_config(uint32_t *w, size_t *n, unsigned dest, uint32_t v)
{
	w[(*n)++] = SFPLOADI(0, 8, v >> 16);
	w[(*n)++] = SFPLOADI(0, 10, v & 0xFFFF);
	w[(*n)++] = SFPCONFIG(0, dest, 0);
}

/* Macro 0: SFPADDI +1.0 on the MAD sub-unit at delay 0 (the loaded LReg in and out), SFPSTORE at
 * delay 1 with the macro's format and address. Eight SFPLOADMACROs back to back overlap load,
 * add and store of neighbouring rows; Dst rows 0-7 must come out as the unrolled
 * SFPLOAD/SFPADDI/SFPSTORE sequence leaves rows 16-23, and as x + 1 truncated to BF16. */
Test(tensix_sfpu, loadmacro_overlapping_load_add_store_equals_the_unrolled_sequence)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	for (unsigned r = 0; r < 8; r++)
		for (unsigned c = 0; c < 16; c++) {
			uint16_t v = (uint16_t)(b_of((float)(r * 16 + c) / 8 - 5) >> 16) | (uint16_t)(c == 3 ? 0x7F : 0);
			tt_dst16_write(dp, r, c, tt_dst_from_bf16(v));
			tt_dst16_write(dp, 16 + r, c, tt_dst_from_bf16(v));
		}
	uint32_t w[64];
	size_t n = 0;
	macro_config(w, &n, 0, SFPADDI(0x3F80, 0, 0));   /* template 0 */
	macro_config(w, &n, 4, 0x0B000400u);            /* sequence 0: MAD = template 0 now, store 1 later */
	w[n++] = SFPCONFIG(0x10, 8, 1);                 /* Misc: macro 0 stores in the load's format */
	for (unsigned k = 0; k < 8; k++)
		w[n++] = SFPLOADMACRO(0, k % 4, 2, 0, 2 * k);
	for (unsigned k = 0; k < 8; k++) {              /* the unrolled sequence on rows 16-23 */
		w[n++] = SFPLOAD(k % 4, 2, 0, 16 + 2 * k);
		w[n++] = SFPADDI(0x3F80, k % 4, 0);
		w[n++] = SFPSTORE(k % 4, 2, 0, 16 + 2 * k);
	}
	run(dev, w, n);
	for (unsigned r = 0; r < 8; r++)
		for (unsigned c = 0; c < 16; c++) {
			uint16_t in = (uint16_t)(b_of((float)(r * 16 + c) / 8 - 5) >> 16) | (uint16_t)(c == 3 ? 0x7F : 0);
			uint16_t want = (uint16_t)(b_of(f_of((uint32_t)in << 16) + 1.0f) >> 16);
			cr_expect_eq(tt_dst16_read(dp, r, c), tt_dst16_read(dp, 16 + r, c), "row %u col %u", r, c);
			cr_expect_eq(tt_dst_to_bf16(tt_dst16_read(dp, r, c)), want, "row %u col %u: 0x%04x", r, c,
				     tt_dst_to_bf16(tt_dst16_read(dp, r, c)));
		}
	cr_expect_eq(atomic_load(&sfpu_of(dev)->pending), 0, "the last store ran when the unrolled sequence came");
	bh_device_close(dev);
}

/* A received instruction on the sub-unit a scheduled one uses in that cycle is discarded; the
 * macro-only LReg 16 takes a scheduled result and feeds a scheduled store. */
Test(tensix_sfpu, loadmacro_wins_its_sub_unit_and_uses_lreg16)
{
	struct bh_device *dev = t_open();
	uint32_t w[32];
	size_t n = 0;
	set_lreg(dev, 5, b_of(2.0f));
	macro_config(w, &n, 1, SFPADDI(0x3F80, 0, 0));   /* template 1 */
	macro_config(w, &n, 5, 0x00000500u);            /* sequence 1: MAD = template 1 at delay 0 */
	w[n++] = SFPLOADMACRO(1, 1, 11, 0, 0);          /* LReg1 = 0 (FMT_ZERO), then + 1 next cycle */
	w[n++] = SFPADDI(0x4000, 5, 0);                 /* MAD sub-unit in that cycle: discarded */
	w[n++] = SFPI(OP_NOP, 0, 0, 0, 0);
	run(dev, w, n);
	cr_expect_eq(f_of(lreg(dev, 1, 0)), 1.0f);
	cr_expect_eq(f_of(lreg(dev, 5, 0)), 2.0f, "the regular SFPADDI was discarded");
	const uint32_t rd[] = { SFPI(OP_MOV, 0, 5, 2, 8), SFPI(OP_MOV, 0, 1, 3, 8) };   /* FROM_SPECIAL */
	run(dev, rd, N(rd));
	cr_expect_eq(lreg(dev, 2, 7), 0x00000500u, "sequence 1 read back");
	cr_expect_eq(lreg(dev, 3, 7), SFPADDI(0x3F80, 0, 0), "template 1 read back");
	/* Macro 2: the MAD sub-unit's result into LReg 16 (bit 6), the store a cycle later from LReg 16
	 * in the load's format: Dst row 0 becomes x + 1 while the loaded LReg keeps x. */
	struct tt_dp *dp = dp_of(dev);
	for (unsigned c = 0; c < 16; c++)
		tt_dst16_write(dp, c / 8, c, tt_dst_from_bf16((uint16_t)(b_of((float)c) >> 16)));
	n = 0;
	macro_config(w, &n, 0, SFPADDI(0x3F80, 0, 0));   /* template 0: + 1.0 */
	macro_config(w, &n, 6, 0x4B004400u);            /* MAD = template 0 into LReg 16, store LReg 16 at delay 1 */
	w[n++] = SFPCONFIG(0x40, 8, 1);                 /* Misc: macro 2 stores in the load's format */
	w[n++] = SFPLOADMACRO(2, 3, 2, 0, 0);
	w[n++] = SFPI(OP_NOP, 0, 0, 0, 0);
	w[n++] = SFPI(OP_NOP, 0, 0, 0, 0);
	run(dev, w, n);
	for (unsigned l = 0; l < 32; l++) {
		unsigned row = l / 8, col = (l & 7) * 2;
		float x = row < 2 && col / 8 == row ? (float)col : 0.0f;
		cr_expect_eq(f_of(lreg(dev, 3, l)), x, "lane %u: the loaded LReg keeps x", l);
		cr_expect_eq(f_of(sfpu_of(dev)->lreg[16][l]), x + 1, "lane %u: LReg 16 = x + 1", l);
		cr_expect_eq(tt_dst_to_bf16(tt_dst16_read(dp, row, col)), (uint16_t)(b_of(x + 1) >> 16), "lane %u stored", l);
	}
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- SFPARECIP */

#define OP_ARECIP 0x99
#define SFPARECIP(vb, vc, vd, mod1) SFP3(OP_ARECIP, 0, vb, vc, vd, mod1)

static uint32_t fnv1a(uint32_t h, uint32_t v) { return (h ^ v) * 0x01000193u; }

/* The reciprocal and exponential tables, read back through the instruction over every entry,
 * hash to the FNV-1a of the tables SFPARECIP.md lists (so one wrong entry fails); the documented
 * points: 1/1.0 = 0.99609375, e^1.0 = 2.703125; the sign rejoined (RECIP, EXP) or not
 * (COND_RECIP, only where VB < 0); the ranges past the tables; the input's low 16 bits going
 * through the exponential; predication; VD 8-11 not written. */
Test(tensix_sfpu, arecip_reciprocal_and_exponential_match_the_documented_tables)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	uint32_t h = 0x811C9DC5u;
	for (unsigned l = 0; l < 32; l++)
		for (unsigned r = 0; r < 4; r++)
			s->lreg[r][l] = 0x3F800000u | (r * 32 + l) << 16;   /* 1.0 + i / 128 */
	const uint32_t w[] = { SFPARECIP(0, 0, 4, 0), SFPARECIP(0, 1, 5, 0), SFPARECIP(0, 2, 6, 0), SFPARECIP(0, 3, 7, 0) };
	run(dev, w, N(w));
	for (unsigned r = 0; r < 4; r++)
		for (unsigned l = 0; l < 32; l++) {
			cr_expect_eq(lreg(dev, 4 + r, l) >> 23, 126, "entry %u: 1/x in [0.5, 1)", r * 32 + l);
			h = fnv1a(h, lreg(dev, 4 + r, l) >> 16 & 0x7F);
		}
	cr_expect_eq(h, 0x5A467D34u, "the reciprocal table");
	h = 0x811C9DC5u;
	for (unsigned j = 0; j < 896; j += 128) {
		for (unsigned l = 0; l < 32; l++)
			for (unsigned r = 0; r < 4; r++)
				s->lreg[r][l] = (0x3C80u + j + r * 32 + l) << 16;
		const uint32_t e[] = { SFPARECIP(0, 0, 4, 2), SFPARECIP(0, 1, 5, 2), SFPARECIP(0, 2, 6, 2), SFPARECIP(0, 3, 7, 2) };
		run(dev, e, N(e));
		for (unsigned r = 0; r < 4; r++)
			for (unsigned l = 0; l < 32; l++) {
				unsigned k = j + r * 32 + l;
				h = fnv1a(h, lreg(dev, 4 + r, l) >> 16 & (k < 0x3F32 - 0x3C80 ? 0x7Fu : 0xFFu));
			}
	}
	cr_expect_eq(h, 0x5BF307CDu, "the exponential table");
	static const struct { uint32_t in, vb; unsigned mod; uint32_t want; } v[] = {
		{ 0x3F800000u, 0, 0, 0x3F7F0000u },          /* 1/1.0 = 0.99609375 */
		{ 0xC0400000u, 0, 0, 0xBEAA0000u },          /* 1/-3 = -0.33203125 */
		{ 0x00400000u, 0, 0, 0x7F800000u },          /* a denormal: +inf */
		{ 0x80000000u, 0, 0, 0xFF800000u },          /* -0: -inf */
		{ 0x7E800000u, 0, 0, 0 },                    /* 2^126: 0 */
		{ 0xFFC00000u, 0, 0, 0x80000000u },          /* -NaN: -0 */
		{ 0xC0400000u, 0x80000000u, 1, 0x3EAA0000u },   /* VB -0 is negative: the sign is dropped */
		{ 0xC0400000u, 0x7FFFFFFFu, 1, 0xC0400000u },   /* VB >= 0: VC unchanged */
		{ 0x3F800001u, 0, 2, 0x402D0001u },          /* e^1.0 = 2.703125, the low bits go through */
		{ 0xBF000000u, 0, 2, 0xBFD30000u },          /* -0.5: -(e^0.5) = -1.6484375 */
		{ 0x3C23D70Au, 0, 2, 0x3F81D70Au },          /* 0.01, below the table: 1.0078 | low bits */
		{ 0x00000001u, 0, 2, 0x3F800000u },          /* a denormal: 1.0 */
		{ 0x40400000u, 0, 3, 0x40800000u },          /* 3.0 (mode 3 as 2): 4.0, no use */
	};
	for (size_t k = 0; k < N(v); k++) {
		set_lreg(dev, 0, v[k].in);
		set_lreg(dev, 1, v[k].vb);
		set_lreg(dev, 2, 0x12345678u);
		const uint32_t one[] = { SFPARECIP(1, 0, 2, v[k].mod), SFPARECIP(1, 0, 9, v[k].mod) };
		run(dev, one, N(one));
		cr_expect_eq(lreg(dev, 2, 5), v[k].want, "case %zu: 0x%08x", k, lreg(dev, 2, 5));
		cr_expect_eq(lreg(dev, 9, 5), 0, "LReg 9 is not written");
	}
	const uint32_t pred[] = {
		SFPI(OP_MOV, 0, 15, 3, 0), SFPI(OP_IADD, 0xFF0, 3, 3, 1),   /* lane id - 16: negative in lanes 0-7 */
		ENABLE_CC, SFPI(OP_SETCC, 0, 3, 0, 0), SFPARECIP(0, 0, 2, 0), SFPI(OP_ENCC, 0, 0, 0, 2),
	};
	set_lreg(dev, 0, 0x40000000u);
	set_lreg(dev, 2, 0);
	run(dev, pred, N(pred));
	for (unsigned l = 0; l < 32; l++)
		cr_expect_eq(lreg(dev, 2, l), l < 8 ? 0x3EFF0000u : 0, "lane %u: 1/2 (0.498) only where enabled", l);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- PRNG */

static uint32_t prng_after(uint32_t x, unsigned steps)
{
	while (steps--)
		x = (uint32_t)~__builtin_popcount(x & 0x80200003u) << 31 | x >> 1;
	return x;
}

/* SFPSTOCHRND's float forms (FP16A and BF16 precision) on random values, PRNG states and
 * predication, in the three rounding modes, against the documented rule lane by lane: a zero
 * exponent gives 0, 255 keeps sign, exponent and the mantissa's top bit... of an infinity or NaN
 * (0xFF800000 of it), else the 13 or 16 discarded bits round up when they reach the threshold
 * (0x400000, the PRNG's low 23 bits, 0x7FFFFF) shifted to their width. Only enabled lanes write
 * and advance their PRNG; rounding toward zero that rounds away is reported per instruction. */
Test(tensix_sfpu, stochrnd_float_forms_follow_the_rule_on_every_lane)
{
	uint32_t seed = 0x9E3779B9u;
	unsigned reported = 0;
	struct bh_device *dev = NULL;
	for (unsigned round = 0; round < 96; round++) {
		unsigned rnd = round % 3, flavour = round / 3 % 2, drop = flavour ? 16 : 13;
		uint32_t mask = round % 4 ? next_rand(&seed) : 0xFFFFFFFFu, before[TT_SFPU_LANES], x[TT_SFPU_LANES];
		bool away = false;
		if (!dev || rnd == 2) {   /* a finding is logged once per site: a device of its own */
			if (dev)
				bh_device_close(dev);
			dev = t_open_checks(BH_CHECK_BIT(BH_CHECK_SFPU_ERRATUM), BH_CHECK_LOG);
		}
		struct tt_sfpu *s = sfpu_of(dev);
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			uint32_t v = next_rand(&seed);
			/* Every fourth round in each mode without all-ones discards (nothing rounds away). */
			switch (next_rand(&seed) % (round / 6 % 4 == 3 ? 5 : 6)) {
			case 0: v &= 0x807FFFFFu; break;                              /* zero exponent */
			case 1: v |= 0x7F800000u; break;                              /* 255 */
			case 2: v = (v & ~((1u << drop) - 1)) | 1u << (drop - 1); break; /* a tie */
			case 5: v |= (1u << drop) - 1; break;                         /* all discarded bits set */
			default: break;
			}
			s->lreg[0][l] = x[l] = v;
			s->lreg[4][l] = 0x5A5A0000u | l;
			s->prng[l] = before[l] = next_rand(&seed);
		}
		s->use_flags = 0xFFFFFFFFu;
		s->flags = mask;
		const uint32_t w[] = { SFPSTOCH(rnd, 0, 4, flavour) };
		run(dev, w, N(w));
		s->use_flags = 0;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			bool on = mask >> l & 1;
			uint32_t e = x[l] >> 23 & 0xFF, lost = x[l] & ((1u << drop) - 1);
			uint32_t thr = (rnd == 1 ? before[l] & 0x7FFFFFu : rnd == 0 ? 0x400000u : 0x7FFFFFu) >> (23 - drop);
			uint32_t want = e == 0 ? 0 : e == 255 ? x[l] & 0xFF800000u : x[l] - lost + (lost >= thr ? 1u << drop : 0);
			away |= on && rnd == 2 && e != 0 && e != 255 && lost >= thr;
			cr_expect_eq(lreg(dev, 4, l), on ? want : 0x5A5A0000u | l, "round %u lane %u: 0x%08x", round, l, x[l]);
			cr_expect_eq(s->prng[l], on ? prng_after(before[l], 1) : before[l], "round %u lane %u PRNG", round, l);
		}
		reported += away;
		if (rnd == 2)
			cr_expect_eq(bh_device_findings(dev, NULL, 0), away, "round %u: a rounding away reported iff one happened",
				     round);
	}
	bh_device_close(dev);
	cr_expect(reported > 0 && reported < 32, "rounds with a rounding away: %u of 32", reported);
	/* All-ones discards only in disabled lanes, under a zero exponent and under 255: none rounds
	 * away, none is reported. */
	dev = t_open_checks(BH_CHECK_BIT(BH_CHECK_SFPU_ERRATUM), BH_CHECK_LOG);
	struct tt_sfpu *s = sfpu_of(dev);
	for (unsigned l = 0; l < TT_SFPU_LANES; l++)
		s->lreg[0][l] = l % 4 == 0 ? 0x3F80FFFFu : l % 4 == 1 ? 0x007FFFFFu : l % 4 == 2 ? 0xFFFFFFFFu : 0x3F800000u;
	s->use_flags = 0xFFFFFFFFu;
	s->flags = 0xEEEEEEEEu;   /* lanes 4 k off */
	const uint32_t w[] = { SFPSTOCH(2, 0, 4, 1) };
	run(dev, w, N(w));
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	cr_expect_eq(lreg(dev, 4, 1), 0);
	cr_expect_eq(lreg(dev, 4, 2), 0xFF800000u);
	bh_device_close(dev);
}

/* Out of reset every lane's state is 0: SFPMOV FROM_SPECIAL 9 returns 0, 0x80000000, 0x40000000
 * and leaves 0xA0000000 (the complemented parity of bits 31, 21, 1, 0 shifts in at the top); a
 * disabled lane does not advance. A write of PRNG_SEED_Seed_Val reseeds as ttsim's Blackhole model does. */
Test(tensix_sfpu, prng_sequence_predication_and_seeding)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	const uint32_t w[] = { SFPI(OP_MOV, 0, 9, 0, 8), SFPI(OP_MOV, 0, 9, 1, 8), SFPI(OP_MOV, 0, 9, 2, 8) };
	run(dev, w, N(w));
	for (unsigned l = 0; l < 32; l++) {
		cr_expect_eq(lreg(dev, 0, l), 0);
		cr_expect_eq(lreg(dev, 1, l), 0x80000000u);
		cr_expect_eq(lreg(dev, 2, l), 0x40000000u);
		cr_expect_eq(s->prng[l], 0xA0000000u);
	}
	const uint32_t pred[] = {
		SFPI(OP_MOV, 0, 15, 3, 0), SFPI(OP_IADD, 0xFF0, 3, 3, 1), ENABLE_CC, SFPI(OP_SETCC, 0, 3, 0, 0),
		SFPI(OP_MOV, 0, 9, 4, 8), SFPI(OP_ENCC, 0, 0, 0, 2),
	};
	run(dev, pred, N(pred));
	cr_expect_eq(s->prng[0], 0x50000000u, "lane 0 was enabled: advanced");
	cr_expect_eq(s->prng[8], 0xA0000000u, "lane 8 was not");
	/* SFPSTOCHRND under the same predication (lanes 0-7): those lanes advance, the others not. */
	const uint32_t pred_stoch[] = {
		SFPI(OP_MOV, 0, 15, 3, 0), SFPI(OP_IADD, 0xFF0, 3, 3, 1), ENABLE_CC, SFPI(OP_SETCC, 0, 3, 0, 0),
		SFPSTOCH(1, 1, 4, 1), SFPI(OP_ENCC, 0, 0, 0, 2),
	};
	uint32_t before[32];
	memcpy(before, s->prng, sizeof before);
	run(dev, pred_stoch, N(pred_stoch));
	for (unsigned l = 0; l < 32; l++)
		cr_expect_eq(s->prng[l], l < 8 ? prng_after(before[l], 1) : before[l], "SFPSTOCHRND, lane %u", l);
	bh_tensix_cfg_store(tile0(dev), 0, BH_CFG_PRNG_SEED, 0x12345678u);
	cr_expect_eq(s->prng[0], 0x837EE01Du);
	cr_expect_eq(s->prng[7], 0xB807426Au);
	cr_expect_eq(s->prng[31], 0x4E0D6479u);
	bh_device_close(dev);
}

/* Stochastic rounding against known PRNG states: state 0 (PRNG bits 0) rounds even exact values
 * up (the documented ">=" bug), 0x7FFFFFFF (bits 0x7FFFFF) rounds up only all-ones discards,
 * 0x00400000 behaves as to-nearest. Round toward zero's documented bugs: a BF16 discard of 0xFFFF
 * and the FP32 0.9999999403954 to an integer round away. SFPCAST mode 1: the 8 bits below the
 * result against 7 bits of the PRNG. Every enabled lane advances, whatever the rounding mode. */
Test(tensix_sfpu, stochastic_rounding_uses_the_prng_with_the_documented_bugs)
{
	struct bh_device *dev = t_open_checks(BH_CHECK_BIT(BH_CHECK_SFPU_ERRATUM), BH_CHECK_LOG);
	struct tt_sfpu *s = sfpu_of(dev);
	static const uint32_t state[3] = { 0, 0x7FFFFFFFu, 0x00400000u };
	for (unsigned l = 0; l < 32; l++)
		s->prng[l] = state[l % 3];
	for (unsigned l = 0; l < 32; l++) {
		s->lreg[0][l] = 0x3F818000u;   /* a BF16 half-way discard */
		s->lreg[1][l] = 0x3F810000u;   /* exact in BF16 */
		s->lreg[2][l] = 0x3F81FFFFu;
		s->lreg[3][l] = 0x3F7FFFFFu;   /* 0.9999999403954 */
	}
	const uint32_t w[] = { SFPSTOCH(1, 0, 4, 1) };
	run(dev, w, N(w));
	for (unsigned l = 0; l < 32; l++)
		cr_expect_eq(lreg(dev, 4, l), l % 3 == 1 ? 0x3F810000u : 0x3F820000u, "lane %u", l);
	for (unsigned l = 0; l < 32; l++)
		s->prng[l] = state[l % 3];
	const uint32_t w2[] = { SFPSTOCH(1, 1, 5, 1) };
	run(dev, w2, N(w2));
	for (unsigned l = 0; l < 32; l++)
		cr_expect_eq(lreg(dev, 5, l), l % 3 == 0 ? 0x3F820000u : 0x3F810000u, "lane %u: exact", l);
	cr_expect_eq(s->prng[0], 0x80000000u, "advanced once");
	const uint32_t w3[] = { SFPSTOCH(2, 2, 6, 1), SFPSTOCH(2, 3, 7, 2), SFPSTOCH(2, 1, 4, 1) };
	run(dev, w3, N(w3));
	cr_expect_eq(lreg(dev, 6, 0), 0x3F820000u, "toward zero rounds a discard of 0xFFFF up");
	cr_expect_eq(lreg(dev, 7, 0), 1, "and 0.9999999 to 1");
	cr_expect_eq(lreg(dev, 4, 0), 0x3F810000u);
	cr_expect_eq(s->prng[0], prng_after(0x80000000u, 3), "every SFPSTOCHRND advances the PRNG");
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 2, "the two roundings away from zero are logged (sfpu-erratum)");
	set_lreg(dev, 0, 0x01000001u);   /* 2^24 + 1: one bit below FP32's mantissa */
	s->prng[0] = 0;
	s->prng[1] = 0xFFFFFFFFu;
	const uint32_t c[] = { SFPI(OP_CAST, 0, 0, 1, 1), SFPI(OP_CAST, 0, 0, 2, 0) };
	run(dev, c, N(c));
	cr_expect_eq(lreg(dev, 1, 0), 0x4B800001u, "0x80 > 0: up");
	cr_expect_eq(lreg(dev, 1, 1), 0x4B800000u, "0x80 > 0xFE fails: down");
	cr_expect_eq(lreg(dev, 2, 0), 0x4B800000u, "nearest even: down");
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- LaneConfig */

#define SFPMOV_SPECIAL(vc, vd) SFPI(OP_MOV, 0, vc, vd, 8)

/* SFPCONFIG 15 writes LaneConfig (LReg 0's 18 bits; Imm16 with OR/AND/XOR keeping bits 17:16),
 * SFPMOV FROM_SPECIAL 15 reads it; ROW_MASK disables rows of lanes. */
Test(tensix_sfpu, laneconfig_writes_combine_read_back_and_row_mask_disables_rows)
{
	struct bh_device *dev = t_open();
	set_lreg(dev, 0, 0xFFFF0000u);
	const uint32_t w[] = {
		SFPCONFIG(0, 15, 0),                 /* 0x30000 (18 bits of LReg 0) */
		SFPCONFIG(0x0102, 15, 1),            /* Imm16 = 0x0102, bits 17:16 kept: 0x30102 */
		SFPMOV_SPECIAL(15, 1),
		SFPCONFIG(0x0003, 15, 1 | 6),        /* XOR: 0x30101 */
		SFPCONFIG(0x0100, 15, 1 | 4),        /* AND: 0x30100 */
		SFPCONFIG(0x5000, 15, 1 | 2),        /* OR: 0x35100 (ROW_MASK rows 0 and 2) */
		SFPMOV_SPECIAL(15, 2),
		SFPLOADI(3, 2, 0x77),                /* only rows 1 and 3 */
		SFPCONFIG(0, 15, 1),                 /* Imm16 0: 0x30000, every row again */
		SFPMOV_SPECIAL(15, 4),
	};
	set_lreg(dev, 3, 0);
	run(dev, w, N(w));
	for (unsigned l = 0; l < 32; l++) {
		cr_expect_eq(lreg(dev, 1, l), 0x30102u, "lane %u", l);
		cr_expect_eq(lreg(dev, 2, l) & ~0x5000u, l / 8 % 2 ? 0x30100u : 0, "lane %u", l);
		cr_expect_eq(lreg(dev, 3, l), l / 8 % 2 ? 0x77u : 0, "lane %u: ROW_MASK", l);
		cr_expect_eq(lreg(dev, 4, l), 0x30000u, "lane %u", l);
	}
	bh_device_close(dev);
}

/* The LaneConfig bits SFPLOAD and SFPSTORE obey: column exchanges (even-column addresses reach
 * the odd columns), BLOCK_SFPU_RD_FROM_DEST / BLOCK_DEST_WR_FROM_SFPU, ENABLE_FP16A_INF (the
 * largest FP16 pattern reads as infinity), and the Dst index CAPTURE_DEFAULT_DEST_INDEX writes
 * to LReg VD + 4. */
Test(tensix_sfpu, laneconfig_steers_load_and_store)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	for (unsigned r = 0; r < 8; r++)
		for (unsigned c = 0; c < 16; c++)
			tt_dst16_write(dp, r, c, (uint16_t)(r * 16 + c));
	tt_dst16_write(dp, 4, 0, tt_dst_from_fp16(0x7FFF));   /* FP16 exponent 31, mantissa all ones */
	set_lreg(dev, 6, 0xAAAA);
	set_lreg(dev, 7, 0xBBBB);
	const uint32_t w[] = {
		SFPCONFIG(0x40, 15, 1), SFPLOAD(0, 6, 0, 0),          /* odd columns */
		SFPCONFIG(0x20, 15, 1), SFPLOAD(1, 6, 0, 0),          /* blocked: LReg 1 keeps */
		SFPCONFIG(0x80, 15, 1), SFPSTORE(6, 6, 0, 8),         /* rows 8-11, odd columns */
		SFPCONFIG(0x10, 15, 1), SFPSTORE(7, 6, 0, 8),         /* blocked */
		SFPCONFIG(0x01, 15, 1), SFPLOAD(2, 1, 0, 4),          /* FP16A infinity */
		SFPCONFIG(0x00, 15, 1), SFPLOAD(3, 1, 0, 4),          /* the largest finite value */
		SFPCONFIG(0x0C, 15, 1), SFPLOAD(1, 6, 0, 6),          /* LReg 5 = row << 4 | column */
		SFPCONFIG(0x00, 15, 1),
	};
	set_lreg(dev, 1, 0x1111);
	run(dev, w, N(w));
	for (unsigned l = 0; l < 32; l++) {
		unsigned row = l / 8, col = (l & 7) * 2;
		cr_expect_eq(lreg(dev, 0, l), row * 16 + col + 1, "lane %u: odd column", l);
		cr_expect_eq(lreg(dev, 1, l), (4 + row) * 16 + col + 1, "lane %u: after the capture", l);
		cr_expect_eq(lreg(dev, 5, l), (4 + row) << 4 | (col + 1), "lane %u: the Dst index", l);
		cr_expect_eq(tt_dst16_read(dp, 8 + row, col + 1), 0xAAAA, "lane %u: stored to the odd column", l);
		cr_expect_eq(tt_dst16_read(dp, 8 + row, col), 0, "lane %u: not to the even one", l);
	}
	cr_expect_eq(lreg(dev, 2, 0), 0x7F800000u, "FP16A infinity");
	cr_expect_eq(lreg(dev, 3, 0), 0x47FFE000u, "131008: Dst's FP16 has no infinity");
	bh_device_close(dev);
}

/* SFPSWAP with LaneConfig: EXCHANGE_SRCB_SRCC inverts min/max; ENABLE_DEST_INDEX swaps LReg 4 +
 * (VC & 3) and 4 + (VD & 3) with the values (argmin/argmax). */
Test(tensix_sfpu, laneconfig_swap_argmin_and_exchange)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	for (unsigned l = 0; l < 32; l++) {
		s->lreg[0][l] = b_of(l % 2 ? 1.0f : -1.0f);
		s->lreg[1][l] = 0;
		s->lreg[4][l] = 40;
		s->lreg[5][l] = 50;
	}
	const uint32_t w[] = { SFPCONFIG(0x4, 15, 1), SFPI(OP_SWAP, 0, 1, 0, 1), SFPCONFIG(0x100, 15, 1),
			       SFPI(OP_MOV, 0, 1, 3, 0), SFPI(OP_SWAP, 0, 3, 2, 1), SFPCONFIG(0, 15, 1) };
	set_lreg(dev, 2, b_of(5.0f));
	run(dev, w, N(w));
	for (unsigned l = 0; l < 32; l++) {
		bool swapped = l % 2;   /* VD 1.0 > VC 0: VD takes the minimum */
		cr_expect_eq(lreg(dev, 0, l), swapped ? 0 : b_of(-1.0f), "lane %u", l);
		cr_expect_eq(lreg(dev, 4, l), swapped ? 50u : 40u, "lane %u: the index follows", l);
		cr_expect_eq(lreg(dev, 5, l), swapped ? 40u : 50u, "lane %u", l);
		/* EXCHANGE_SRCB_SRCC: LReg 2 (VD) gets the maximum of 5.0 and LReg 1 */
		cr_expect_eq(lreg(dev, 2, l), b_of(5.0f), "lane %u: the maximum to VD", l);
	}
	bh_device_close(dev);
}

/* The back door: with DISABLE_BACKDOOR_LOAD clear an instruction with VD 12-15 writes its own
 * bits to InstructionTemplate[VD - 12] and does not execute; with it set, it executes (an
 * SFPSTORE of LReg 15, the lane ids, and a dropped SFPADDI). */
Test(tensix_sfpu, backdoor_writes_templates_unless_disabled)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	const uint32_t w[] = {
		SFPADDI(0x3F80, 13, 0), SFPMOV_SPECIAL(1, 0),
		SFPSTORE(15, 6, 0, 0), SFPMOV_SPECIAL(3, 1),
		SFPCONFIG(0x2, 15, 1), SFPSTORE(15, 6, 0, 4), SFPADDI(0x4000, 13, 0), SFPMOV_SPECIAL(1, 2),
		SFPCONFIG(0, 15, 1),
	};
	tt_dst16_write(dp, 0, 0, 0x5555);
	run(dev, w, N(w));
	cr_expect_eq(lreg(dev, 0, 3), SFPADDI(0x3F80, 13, 0), "template 1 = the SFPADDI");
	cr_expect_eq(lreg(dev, 1, 3), SFPSTORE(15, 6, 0, 0), "template 3 = the SFPSTORE");
	cr_expect_eq(tt_dst16_read(dp, 0, 0), 0x5555, "that store did not execute");
	cr_expect_eq(lreg(dev, 2, 3), SFPADDI(0x3F80, 13, 0), "the second SFPADDI executed instead");
	for (unsigned l = 0; l < 32; l++)
		cr_expect_eq(tt_dst16_read(dp, 4 + l / 8, (l & 7) * 2), 2 * l, "lane %u: LReg 15 stored", l);
	bh_device_close(dev);
}

/* Erratum TEN-2932: with ENABLE_DEST_INDEX set an SFPMAD into LReg 5 is reported (check
 * sfpu-erratum, naming the erratum and the LReg) and, logged, leaves LReg 5 as it was. The
 * fixed twins: the same SFPMAD into LReg 2, SFPLOAD into LReg 5, and the bit clear. */
Test(tensix_sfpu, ten2932_result_into_lreg4_7_with_dest_index_is_reported)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_push(&p, SFPCONFIG(0x4, 15, 1));
	uint32_t pc;
	struct bh_core_result *res = run_push_checked(dev, BH_CORE_TRISC1, &p, SFPMAD(10, 10, 9, 5, 0), &pc);
	expect_check(dev, res, BH_CORE_TRISC1, "sfpu-erratum", pc, NULL,
		     "erratum TEN-2932: SFPMAD writes LReg 5 with ENABLE_DEST_INDEX set: undefined on silicon (LReg kept)");
	dev = t_open_checks(BH_CHECK_BIT(BH_CHECK_SFPU_ERRATUM), BH_CHECK_LOG);
	set_lreg(dev, 5, 0x55);
	const uint32_t w[] = { SFPCONFIG(0x4, 15, 1), SFPMAD(10, 10, 9, 5, 0), SFPMAD(10, 10, 9, 2, 0), SFPLOAD(6, 11, 0, 0) };
	run(dev, w, N(w));
	cr_expect_eq(lreg(dev, 5, 0), 0x55, "LReg 5 kept");
	cr_expect_eq(lreg(dev, 2, 0), 0x3F800000u, "LReg 2 written");
	cr_expect_eq(lreg(dev, 6, 0), 0, "the load into LReg 6 is exempt");
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 1, "one finding, of the SFPMAD into LReg 5");
	bh_device_close(dev);
	dev = t_open();
	const uint32_t clean[] = { SFPCONFIG(0x4, 15, 1), SFPMAD(10, 10, 9, 2, 0), SFPLOAD(5, 11, 0, 0),
				   SFPCONFIG(0, 15, 1), SFPMAD(10, 10, 9, 5, 0) };
	run(dev, clean, N(clean));
	cr_expect_eq(lreg(dev, 5, 0), 0x3F800000u);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* The round-toward-zero bug of SFP_STOCH_RND is reported when it changes a result (check
 * sfpu-erratum): 1.9999998807907 to an integer toward zero gives 2. The twin, 1.75, rounds down. */
Test(tensix_sfpu, stochrnd_toward_zero_rounding_away_is_reported)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	uint32_t pc = emit_push_at(&p, BH_CORE_TRISC1, SFPSTOCH(2, 0, 1, 3));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	set_lreg(dev, 0, 0x3FFFFFFFu);
	struct bh_core_result *res = run_checked(dev, BH_CORE_TRISC1, &p);
	expect_check(dev, res, BH_CORE_TRISC1, "sfpu-erratum", pc, NULL,
		     "erratum: rounding toward zero rounded lane 0 away (its discarded bits all ones)");
	dev = t_open();
	set_lreg(dev, 0, 0x3FE00000u);
	const uint32_t w[] = { SFPSTOCH(2, 0, 1, 3) };
	run(dev, w, N(w));
	cr_expect_eq(lreg(dev, 1, 0), 1);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- INT8, stack modes */

/* "Integer 8" in Dst is FP16 with exponent 16 and the magnitude in the mantissa: SFPSTORE keeps
 * 10 bits of magnitude, SFPLOAD INT8 reads 8 of them (range +-255) and INT8_COMP 10. */
Test(tensix_sfpu, int8_store_and_load)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = dp_of(dev);
	set_lreg(dev, 0, 0x80000123u);   /* -291 sign-magnitude */
	set_lreg(dev, 1, 0x000000FFu);
	const uint32_t w[] = { SFPSTORE(0, 5, 0, 0), SFPSTORE(1, 13, 0, 2), SFPLOAD(2, 5, 0, 0), SFPLOAD(3, 13, 0, 0),
			       SFPLOAD(4, 5, 0, 2) };
	run(dev, w, N(w));
	cr_expect_eq(tt_dst_to_fp16(tt_dst16_read(dp, 0, 0)), 0x8000 | 16u << 10 | 0x123);
	cr_expect_eq(tt_dst_to_fp16(tt_dst16_read(dp, 0, 1)), 16u << 10 | 0xFF);
	cr_expect_eq(lreg(dev, 2, 0), 0x80000023u, "8 bits of magnitude");
	cr_expect_eq(lreg(dev, 3, 0), 0x80000123u, "10 bits");
	cr_expect_eq(lreg(dev, 4, 0), 0xFFu);
	bh_device_close(dev);
}

/* SFPGT / SFPLE with MUTATE_STACK: the comparison of every lane (enabled or not) ANDs or ORs into
 * the top of the flag stack; with the stack empty nothing happens. SFPPUSHC's Blackhole modes:
 * 1-12 BooleanOp(top, current) into the top with the current UseLaneFlags, 13 invert the current
 * flags into the top, 14/15 constants; empty: a fault. SFPPOPC's combining modes work with the
 * stack full (Blackhole fixed Wormhole's bug). */
Test(tensix_sfpu, compare_and_pushc_rewrite_the_stack_top)
{
	struct bh_device *dev = t_open();
	struct tt_sfpu *s = sfpu_of(dev);
	set_lreg(dev, 2, 20);
	const uint32_t w[] = {
		SFPI(OP_MOV, 0, 15, 1, 0),            /* lane ids 2l */
		SFPI(OP_GT, 0, 2, 1, 2),              /* empty stack: no effect */
		ENABLE_CC, SFPI(OP_PUSHC, 0, 0, 0, 0),   /* top: all set */
		SFPI(OP_GT, 0, 2, 1, 2),              /* AND 2l > 20: lanes 11-31 */
		SFPI(OP_SETCC, 0, 1, 0, 6),           /* current flags: lane 0 only (2l == 0) */
		SFPI(OP_LE, 0, 2, 1, 2 | 4),          /* OR 2l <= 20 in every lane, enabled or not: all */
	};
	run(dev, w, N(w));
	cr_expect_eq(s->depth, 1);
	cr_expect_eq(s->stack_flags[0], ALL_LANES_T, "0xFFFFF800 | 0x7FF");
	cr_expect_eq(s->flags & 0xFFFFFFFFu, 1u, "the current flags untouched");
	const uint32_t w2[] = {
		SFPI(OP_PUSHC, 0, 0, 0, 15),          /* top: flags 0, UseLaneFlags all */
		SFPI(OP_PUSHC, 0, 0, 0, 4),           /* top |= current: lane 0 */
	};
	run(dev, w2, N(w2));
	cr_expect_eq(s->stack_flags[0], 1u);
	const uint32_t w3[] = { SFPI(OP_PUSHC, 0, 0, 0, 13) };   /* invert current into the top */
	run(dev, w3, N(w3));
	cr_expect_eq(s->flags, 0xFFFFFFFEu);
	cr_expect_eq(s->stack_flags[0], 0xFFFFFFFEu);
	uint32_t full[16];
	size_t n = 0;
	for (unsigned k = 1; k < 8; k++)
		full[n++] = SFPI(OP_PUSHC, 0, 0, 0, 0);
	full[n++] = SFPI(OP_POPC, 0, 0, 0, 13);   /* peek with the stack full */
	run(dev, full, n);
	cr_expect_eq(s->depth, 8);
	cr_expect_eq(s->flags, 1u);
	for (unsigned k = 0; k < 8; k++)
		full[k] = SFPI(OP_POPC, 0, 0, 0, 0);
	run(dev, full, 8);
	expect_word_fault(dev, SFPI(OP_PUSHC, 0, 0, 0, 3), "bad register value", "SFPPUSHC mode 3 with the flag stack empty");
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- not modelled */

Test(tensix_sfpu, unmodelled_instructions_and_modes_fault_by_name)
{
	struct bh_device *dev = t_open();
	expect_word_fault(dev, SFPSTOCH(0, 0, 0, 8 | 2), "not modelled", "SFP_STOCH_RND mode 10 is not modelled");
	expect_word_fault(dev, SFPSTOCH(3, 0, 0, 0), "not modelled", "with rounding mode 3 is undefined");
	const uint32_t w[] = { SFPCONFIG(0x1000, 15, 1) };   /* ROW_MASK: row 0 off */
	run(dev, w, N(w));
	expect_word_fault(dev, SFPADDI(0x3F80, 12, 0), "not modelled", "while lanes are disabled is not modelled");
	bh_device_close(dev);
}
