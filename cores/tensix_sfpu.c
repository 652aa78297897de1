/* The Tensix vector unit (SFPU): 32 lanes of 32 bits, the LRegs, lane predication under a flag
 * stack, and the SFP* instructions that move Dst rows into LRegs, compute lane by lane and store
 * back. Semantics from the functional models of tt-isa-documentation (VectorUnit.md, LReg.md and
 * the page of each instruction) with the Blackhole additions and changes as
 * boopdotpng/tenstorrent-docs (blackhole-emulator-specs/sfpu-operations.md) and ttsim's Blackhole
 * model state them: the MAD unit's negate bits, SFPLE/SFPGT, SFPMUL24, FP32 stores flushing
 * denormals, 10-bit Dst addresses.
 *
 * One instruction executes at a time (sfpu->lock), whichever thread issued it. A mode this file
 * does not model is a named fault; see tt_sfpu_execute for the list.
 *
 * Arithmetic of the MAD unit (SFPMAD.md "IEEE754 conformance", and the bit-level behaviour
 * ttsim's Blackhole model gives): denormal inputs read as zero; the product keeps its top bits
 * and a sticky bit before the add ("partially fused"); the smaller operand is aligned with a
 * sticky bit only when something of it is left; the sum is rounded to nearest even on three
 * guard bits; a denormal result is flushed to zero of its sign after rounding; every NaN result
 * is the canonical 0x7FC00000. A differential run of 50 million operand triples (specials,
 * denormals, cancellation) against ttsim's bit-level Blackhole model found no difference. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/tensix.h"
#include "cores/tensix_dp.h"
#include "cores/tensix_fmt.h"
#include "cores/tensix_sfpu.h"
#include "fabric/chip.h"
#include "fabric/tile.h"

#define ALL_LANES 0xFFFFFFFFu
#define CANON_NAN 0x7FC00000u

static void sfpu_tables(void);

bool tt_sfpu_init(struct tt_dp *dp)
{
	struct tt_sfpu *s = calloc(1, sizeof *s);
	if (!s)
		return false;
	bh_lock_init(&s->lock);
	static pthread_once_t tables = PTHREAD_ONCE_INIT;
	pthread_once(&tables, sfpu_tables);
	/* LReg.md: the fixed constants and the lane ids (lane i holds 2 i). The programmable ones
	 * (11-14) start at zero here; firmware writes them with SFPCONFIG before use. */
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		s->lreg[8][l] = 0x3F566189u;    /* 0.8373 */
		s->lreg[9][l] = 0;
		s->lreg[10][l] = 0x3F800000u;   /* 1.0 */
		s->lreg[15][l] = 2 * l;
	}
	dp->sfpu = s;
	return true;
}

void tt_sfpu_destroy(struct tt_dp *dp)
{
	if (!dp->sfpu)
		return;
	free(dp->sfpu);
	dp->sfpu = NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Helpers.
 */

/* LaneEnabled of every lane (VectorUnit.md IsLaneEnabled): not masked off by LaneConfig's
 * ROW_MASK, and the lane's flag when predication is on. */
static uint32_t enabled(const struct tt_sfpu *s)
{
	return (~s->use_flags | s->flags) & ~s->row_off;
}

/* LaneConfig bits (SFPCONFIG.md "LaneConfig"). */
#define LC_FP16A_INF 0x1u
#define LC_NO_BACKDOOR 0x2u
#define LC_DEST_INDEX 0x4u
#define LC_CAPTURE_INDEX 0x8u
#define LC_BLOCK_STORE 0x10u
#define LC_BLOCK_LOAD 0x20u
#define LC_RD_COL_EXCHANGE 0x40u
#define LC_WR_COL_EXCHANGE 0x80u
#define LC_EXCHANGE_SRCB_SRCC 0x100u
#define LC_BLOCK_DEST_MOV 0x600u
#define LC_BITS 0x3FFFFu

/* Recompute what is kept beside LaneConfig after a write. BLOCK_DEST_MOV: bit 9 of lane c / 2's
 * blocks the even column c, bit 10 the odd one (LaneConfig[Column / 2].BLOCK_DEST_MOV.Bit[Column & 1]
 * of the MOV pages). */
static void lane_config_changed(struct tt_sfpu *s)
{
	uint32_t blocked = 0;
	s->lc_any = 0;
	s->row_off = 0;
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		s->lc_any |= s->lane_config[l];
		if (s->lane_config[l & 7] >> (12 + l / 8) & 1)
			s->row_off |= 1u << l;
	}
	for (unsigned c = 0; c < 16; c++)
		blocked |= ((s->lane_config[c / 2] & LC_BLOCK_DEST_MOV) >> (9 + (c & 1)) & 1) << c;
	atomic_store_explicit(&s->mov_blocked, blocked, memory_order_relaxed);
}

/* Lanes (bit = lane) whose LaneConfig has all of bits. */
static uint32_t lanes_with(const struct tt_sfpu *s, uint32_t bits)
{
	uint32_t m = 0;
	if ((s->lc_any & bits) == bits)
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			m |= (uint32_t)((s->lane_config[l] & bits) == bits) << l;
	return m;
}

/* The PRNG (VectorUnit.md AdvancePRNG): lane's state is the result; the state shifts right
 * with the complement of the parity of taps 31, 21, 1 and 0 coming in at the top. */
static uint32_t prng_step(uint32_t x)
{
	return ~(x ^ x >> 1 ^ x >> 21 ^ x >> 31) << 31 | x >> 1;   /* the parity of bits 0, 1, 21, 31 */
}

static uint32_t prng_advance(struct tt_sfpu *s, unsigned lane)
{
	uint32_t r = s->prng[lane];
	s->prng[lane] = prng_step(r);
	return r;
}

/* Lanes 4 q .. 4 q + 3 of a lane mask (bit = lane) as a host vector: all ones where set. */
static inline __attribute__((always_inline)) tt_v4u lanes4(uint32_t mask, unsigned q)
{
	return (tt_v4u)(((tt_v4u){ 1, 2, 4, 8 } << (4 * q) & mask) != 0);
}

/* The lanes of a host vector of all-ones / zero lanes (lanes4's inverse) as mask bits 4 q .. */
static inline __attribute__((always_inline)) uint32_t mask_of4(tt_v4u m, unsigned q)
{
	tt_v4u b = m & ((tt_v4u){ 1, 2, 4, 8 } << (4 * q));
	return b[0] | b[1] | b[2] | b[3];
}

static inline __attribute__((always_inline)) tt_v4u ld4(const uint32_t *p)
{
	tt_v4u v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline __attribute__((always_inline)) void st4(uint32_t *p, tt_v4u v)
{
	memcpy(p, &v, sizeof v);
}

/* prng_advance on the lanes of mask (r: every lane's state before, whether it advanced or not),
 * four lanes at a time on host vectors. */
static void prng_advance_lanes(struct tt_sfpu *s, uint32_t mask, uint32_t r[TT_SFPU_LANES])
{
	for (unsigned q = 0; q < TT_SFPU_LANES / 4; q++) {
		tt_v4u x = ld4(&s->prng[4 * q]), m = lanes4(mask, q);
		tt_v4u next = ~(x ^ x >> 1 ^ x >> 21 ^ x >> 31) << 31 | x >> 1;   /* prng_step */
		st4(&r[4 * q], x);
		st4(&s->prng[4 * q], (next & m) | (x & ~m));
	}
}

/* Reseeding as ttsim's Blackhole model does it (the documentation says only that the value
 * reseeds all the PRNGs): the seed steps 32 times, then every second step of the next 64 seeds
 * one lane, lane 31 first. */
void tt_sfpu_seed(struct tt_dp *dp, uint32_t seed)
{
	struct tt_sfpu *s = dp->sfpu;
	if (!s)
		return;
	for (unsigned i = 0; i < 32; i++)
		seed = prng_step(seed);
	bh_lock(&s->lock);
	for (unsigned i = 0; i < 32; i++) {
		seed = prng_step(prng_step(seed));
		s->prng[31 - i] = seed;
	}
	bh_unlock(&s->lock);
}

static uint32_t b32(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	return b;
}

static float f32_of(uint32_t b)
{
	float f;
	memcpy(&f, &b, 4);
	return f;
}

static uint32_t ftz(uint32_t x)
{
	return x & 0x7F800000u ? x : x & 0x80000000u;
}

/* The MAD unit: a * b + c (see the top of the file). Operands as {sign, biased exponent,
 * significand}; significands are fixed point with 26 fraction bits (1.0 = 2^26: 23 mantissa
 * bits and three guard bits). */
struct mad_op {
	uint32_t sign, sig;
	int32_t exp;
};

static inline __attribute__((always_inline)) struct mad_op mad_unpack(uint32_t x)
{
	struct mad_op o = { x & 0x80000000u, 0, (int32_t)(x >> 23 & 0xFF) };
	if (o.exp)
		o.sig = (x & 0x7FFFFFu) | 0x800000u;   /* a zero exponent: zero (denormals flushed) */
	return o;
}

/* The product of two significands (46 fraction bits) keeps 26 fraction bits and a sticky bit of
 * the 20 below: on the addend's scale at exponent x + y - 127. */
static inline __attribute__((always_inline)) uint32_t mad_product(uint32_t x, uint32_t y)
{
	uint64_t full = (uint64_t)x * y;
	return (uint32_t)(full >> 20) | ((full & 0xFFFFFu) != 0);
}

/* v >> s, with the lost bits ORed into bit 0 only when something is left ("semi-sticky"). */
static inline __attribute__((always_inline)) uint32_t mad_align(uint32_t v, int32_t s)
{
	if (s >= 32)
		return 0;
	uint32_t r = v >> s;
	return r | (r != 0 && (r << s) != v);
}

/* The sum of the product p (exponent p_exp, 26 fraction bits and a sticky bit) and the aligned
 * addend zs (exponent z_exp), normalised, rounded and flushed (see the top of the file). */
static inline __attribute__((always_inline)) uint32_t mad_sum(uint32_t p, int32_t p_exp, uint32_t p_sign,
							       uint32_t zs, int32_t z_exp, uint32_t z_sign)
{
	int32_t e = p_exp;
	if (p_exp >= z_exp)
		zs = mad_align(zs, p_exp - z_exp);
	else
		p = mad_align(p, z_exp - p_exp), e = z_exp;
	/* Both below 2^29: the signed sum's sign picks the result's sign. */
	int32_t sum = (int32_t)p + (int32_t)(p_sign == z_sign ? zs : 0u - zs);
	uint32_t sign = sum < 0 ? z_sign : p_sign;
	uint32_t r = sum < 0 ? 0u - (uint32_t)sum : (uint32_t)sum;
	if (!r)
		return z_sign & p_sign;
	/* Normalise to the leading one at bit 26; a result below the normal range gets exponent 0
	 * and one more shift, and is flushed after rounding unless rounding made it normal. */
	int32_t n = 5 - __builtin_clz(r);
	e += n;
	if (e >= 255)
		return sign | 0x7F800000u;
	if (e <= 0) {
		n += 1;
		e = 0;
	}
	if (n <= 0)
		r <<= -n;
	else
		r = r >> n | ((r & ((uint32_t)n | 1)) != 0);
	uint32_t out = ((uint32_t)e << 23) + (r >> 3 & 0x7FFFFFu);
	out += ((r & 7) + (out & 1)) > 4;   /* to nearest, ties to even, on the guard bits */
	if (!(out >> 23))
		out = 0;
	return sign | out;
}

/* sfpu_mad's operands with a special exponent (zero, 255) or a product out of range. */
__attribute__((noinline))
static uint32_t sfpu_mad_special(uint32_t a, uint32_t b, uint32_t c)
{
	struct mad_op x = mad_unpack(a), y = mad_unpack(b), z = mad_unpack(c);
	uint32_t p_sign = x.sign ^ y.sign;
	int32_t p_exp = x.exp + y.exp - 127;
	if (x.exp == 255 || y.exp == 255 || z.exp == 255 || p_exp >= 255) {
		bool x_nan = x.exp == 255 && (x.sig != 0x800000u || !y.sig), y_nan = y.exp == 255 && (y.sig != 0x800000u || !x.sig);
		bool z_nan = z.exp == 255 && z.sig != 0x800000u;
		bool inf_diff = z.exp == 255 && (x.exp == 255 || y.exp == 255) && z.sign != p_sign;
		if (x_nan || y_nan || z_nan || inf_diff)
			return CANON_NAN;
		return z.exp == 255 ? c : p_sign | 0x7F800000u;
	}
	if (!x.sig || !y.sig || p_exp < 0)   /* a zero or underflowing product leaves the addend */
		return z.sig ? c : z.sign & p_sign;
	return mad_sum(mad_product(x.sig, y.sig), p_exp, p_sign, z.sig << 3, z.exp, z.sign);
}

/* Finite operands whose product is zero or has an exponent of 0-254 take the inline path; the
 * rest sfpu_mad_special. */
static inline __attribute__((always_inline)) uint32_t sfpu_mad(uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t ea = a >> 23 & 0xFF, eb = b >> 23 & 0xFF, ec = c >> 23 & 0xFF;
	int32_t p_exp = (int32_t)(ea + eb) - 127;
	if (__builtin_expect(ea == 255 || eb == 255 || ec == 255, 0))
		return sfpu_mad_special(a, b, c);
	if (!ea || !eb)   /* a zero product leaves the addend */
		return ec ? c : c & (a ^ b) & 0x80000000u;
	if (__builtin_expect((uint32_t)p_exp > 254u, 0))
		return sfpu_mad_special(a, b, c);
	uint32_t zs = ec ? ((c & 0x7FFFFFu) | 0x800000u) << 3 : 0;
	return mad_sum(mad_product((a & 0x7FFFFFu) | 0x800000u, (b & 0x7FFFFFu) | 0x800000u), p_exp,
		       (a ^ b) & 0x80000000u, zs, (int32_t)ec, c & 0x80000000u);
}

uint32_t tt_sfpu_mad_ref(uint32_t a, uint32_t b, uint32_t c)
{
	return sfpu_mad(a, b, c);
}

/* sfpu_mad on every lane (a ^ na, b, c ^ nc), four lanes at a time on the host's floating point
 * where that is provably the same bits, sfpu_mad for the other lanes. The host path takes finite
 * normal a and b and a finite c (a zero or denormal c reads as zero of its sign):
 *  - c zero: the unit rounds the product, truncated to 26 fraction bits with a sticky bit, to
 *    nearest even on its guard bits: the correctly rounded product, which the host's double
 *    product (exact: 48 bits) converted to single gives;
 *  - a * b exact in single: the unit adds two exact operands, the smaller aligned with a sticky
 *    bit below its three guard bits (only ever left of the rounding point's round bit, the
 *    addend having three zero low bits), and rounds to nearest even: a correctly rounded sum,
 *    which the host's single add gives.
 * Both only when the rounded product has a biased exponent of 3-253 (so that the unit's product
 * exponent ea + eb - 127 is 1-254: it neither underflows to "the addend" nor overflows) and the
 * result one of 2-254 (no denormal, flush-at-the-boundary or overflow: those take sfpu_mad), or
 * the +0 of an exact product's exact cancellation (the unit's sign of a zero sum is the AND of
 * the operands', which differ there). A zero factor leaves the addend as sfpu_mad does. The host is in its default rounding mode (round to nearest even). */
typedef uint32_t mad_v4u __attribute__((vector_size(16)));
typedef int32_t mad_v4i __attribute__((vector_size(16)));
typedef float mad_v4f __attribute__((vector_size(16)));
typedef uint32_t mad_v8u __attribute__((vector_size(32)));
typedef int32_t mad_v8i __attribute__((vector_size(32)));
typedef float mad_v8f __attribute__((vector_size(32)));
typedef double mad_v8d __attribute__((vector_size(64)));
typedef uint32_t mad_v16u __attribute__((vector_size(64)));

/* Lanes of e in [lo, hi], as a macro (an eight-lane vector is an AVX register: no function takes
 * or returns one, for the baseline ABI): one signed compare, e + (INT32_MAX - hi) leaves the
 * positive range exactly when e > hi. */
#define MAD_IN(e, lo, hi) ((mad_v8u)((mad_v8i)((e) + (0x7FFFFFFFu - (hi))) > (int32_t)(0x7FFFFFFFu - (hi) + (lo) - 1)))

/* Bit k for each lane k whose mask is all ones (masks are all ones or zero). */
static inline __attribute__((always_inline)) uint32_t mad_bits(mad_v4u m)
{
#ifdef __SSE__
	return (uint32_t)__builtin_ia32_movmskps((mad_v4f)m);
#else
	m &= (mad_v4u){ 1, 2, 4, 8 };
	return m[0] | m[1] | m[2] | m[3];
#endif
}

/* mad_bits of an eight-lane mask m (a variable). */
#define MAD_BITS8(m) \
	(mad_bits(__builtin_shufflevector(m, m, 0, 1, 2, 3)) | mad_bits(__builtin_shufflevector(m, m, 4, 5, 6, 7)) << 4)

/* The lanes from l of a host vector's width: a ^ na, b, c ^ nc (in A, na, B, C, nc, l). */
#define MAD_OPERANDS(a, b, c) \
	(memcpy(&(a), A + l, sizeof(a)), memcpy(&(b), B + l, sizeof(b)), memcpy(&(c), C + l, sizeof(c)), (a) ^= na, \
	 (c) ^= nc)

/* Eight lanes from l on the host path: their results in r, and a bit (l + k) for each lane k the
 * host path declines. */
static inline __attribute__((always_inline)) uint32_t mad_host8(const uint32_t *A, uint32_t na, const uint32_t *B,
								 const uint32_t *C, uint32_t nc, uint32_t *r, unsigned l)
{
	mad_v8u a, b, c;
	MAD_OPERANDS(a, b, c);
	mad_v8u ec = c >> 23 & 0xFF, cz = (mad_v8u)(ec == 0);
	c &= ~cz | 0x80000000u;   /* a zero or denormal addend: zero of its sign */
	mad_v8d pd = __builtin_convertvector((mad_v8f)a, mad_v8d) * __builtin_convertvector((mad_v8f)b, mad_v8d);
	mad_v8f pf = __builtin_convertvector(pd, mad_v8f);
	/* Exact in single (pf normal): the double's low 29 fraction bits, in its low word, are zero. */
	mad_v16u pw = (mad_v16u)pd;
	mad_v8u exact = (mad_v8u)((__builtin_shufflevector(pw, pw, 0, 2, 4, 6, 8, 10, 12, 14) & 0x1FFFFFFFu) == 0);
	mad_v8f sum = pf + (mad_v8f)c;
	/* An exact product's exact cancellation: +0 from both (the unit: the signs' AND, which differ). */
	mad_v8u sum_ok = MAD_IN((mad_v8u)sum >> 23 & 0xFF, 2, 254) | ((mad_v8u)((mad_v8u)sum == 0) & exact);
	mad_v8u ea = a >> 23 & 0xFF, eb = b >> 23 & 0xFF, c_finite = (mad_v8u)(ec != 255);
	mad_v8u ok = MAD_IN(ea, 1, 254) & MAD_IN(eb, 1, 254) & c_finite & (cz | exact) &
		     MAD_IN((mad_v8u)pf >> 23 & 0xFF, 3, 253) & sum_ok;
	/* A zero (or denormal) factor: the addend, a zero one with the signs' AND (as sfpu_mad). */
	mad_v8u zp = ((mad_v8u)(ea == 0) | (mad_v8u)(eb == 0)) & (mad_v8u)(ea != 255) & (mad_v8u)(eb != 255) & c_finite;
	mad_v8u addend = (cz & c & (a ^ b)) | (~cz & c);   /* c: its sign alone when cz */
	mad_v8u res = (zp & addend) | (~zp & (mad_v8u)sum);
	ok |= zp;
	memcpy(r + l, &res, sizeof res);
	return (~MAD_BITS8(ok) & 0xFFu) << l;
}

typedef uint64_t mad_v4q __attribute__((vector_size(32)));

/* Per lane: m ? x : y (m all ones or zero); v >> s for shift counts 0-255, 0 from 32 on (no host
 * shift by the lane width or more). */
#define MAD_SEL(m, x, y) (((m) & (x)) | (~(m) & (y)))
#define MAD_SHR(v, s) (((v) >> ((s) & 31)) & (mad_v8u)((s) < 32))

/* sfpu_mad's inline path (finite operands; a zero product or a product exponent of 0-254) on
 * eight lanes from l, the same integer steps lane by lane (mad_product, mad_align, mad_sum);
 * results in r, and a bit (l + k) for each lane k that needs sfpu_mad_special. */
static inline __attribute__((always_inline)) uint32_t mad_model8(const uint32_t *A, uint32_t na, const uint32_t *B,
								  const uint32_t *C, uint32_t nc, uint32_t *r, unsigned l)
{
	mad_v8u a, b, c;
	MAD_OPERANDS(a, b, c);
	const mad_v8u sgn = (mad_v8u){ 0 } + 0x80000000u, m23 = (mad_v8u){ 0 } + 0x7FFFFFu, one = (mad_v8u){ 0 } + 1;
	mad_v8u ea = a >> 23 & 0xFF, eb = b >> 23 & 0xFF, ec = c >> 23 & 0xFF;
	mad_v8i p_exp = (mad_v8i)(ea + eb) - 127;
	mad_v8u zero_p = (mad_v8u)(ea == 0) | (mad_v8u)(eb == 0);
	mad_v8u special = (mad_v8u)(ea == 255) | (mad_v8u)(eb == 255) | (mad_v8u)(ec == 255) |
			  (~zero_p & ((mad_v8u)(p_exp < 0) | (mad_v8u)(p_exp > 254)));
	mad_v8u p_sign = (a ^ b) & sgn, z_sign = c & sgn;
	/* mad_product: the 48-bit products of the even and the odd lanes, 26 fraction bits kept with
	 * a sticky bit of the 20 below (below 2^28: each fits its 32-bit lane). */
	mad_v8u sa = (a & m23) | 0x800000u, sb = (b & m23) | 0x800000u;
	mad_v4q lo32 = (mad_v4q){ 0 } + 0xFFFFFFFFu;
	mad_v4q fe = ((mad_v4q)sa & lo32) * ((mad_v4q)sb & lo32), fo = ((mad_v4q)sa >> 32) * ((mad_v4q)sb >> 32);
	mad_v4q pe = fe >> 20 | (mad_v4q)((fe & 0xFFFFFu) != 0) >> 63;
	mad_v4q po = fo >> 20 | (mad_v4q)((fo & 0xFFFFFu) != 0) >> 63;
	mad_v8u p = (mad_v8u)(pe | po << 32);
	mad_v8u zs = ((c & m23) | 0x800000u) << 3 & ~(mad_v8u)(ec == 0);
	/* mad_sum: align the smaller (mad_align: the lost bits into bit 0 when something is left). */
	mad_v8i d = p_exp - (mad_v8i)ec;
	mad_v8u ge = (mad_v8u)(d >= 0), dz = (mad_v8u)d, dp = (mad_v8u)(0 - d);
	dz &= ge, dp &= ~ge;   /* below 512 */
	mad_v8u zr = MAD_SHR(zs, dz), pr = MAD_SHR(p, dp);
	zr |= (mad_v8u)(zr != 0) & (mad_v8u)((zr << (dz & 31)) != zs) & (mad_v8u)(dz < 32) & one;
	pr |= (mad_v8u)(pr != 0) & (mad_v8u)((pr << (dp & 31)) != p) & (mad_v8u)(dp < 32) & one;
	mad_v8i e = (mad_v8i)((ge & (mad_v8u)p_exp) | (~ge & ec));
	mad_v8i sum = (mad_v8i)pr + (mad_v8i)MAD_SEL((mad_v8u)(p_sign == z_sign), zr, 0 - zr);
	mad_v8u neg = (mad_v8u)(sum < 0);
	mad_v8u sign = (neg & z_sign) | (~neg & p_sign);
	mad_v8u rr = MAD_SEL(neg, (mad_v8u)-sum, (mad_v8u)sum);
	mad_v8u rzero = (mad_v8u)(rr == 0);
	/* The leading one's position: rr below 2^29, exact in single once bits below the top 21 of a
	 * value from 2^24 up are cleared. */
	mad_v8u rx = rr & ~((mad_v8u)(rr >= 0x1000000u) & 0xFFu);
	mad_v8u msb = ((mad_v8u)__builtin_convertvector((mad_v8i)rx, mad_v8f) >> 23) - 127;
	mad_v8i n = (mad_v8i)msb - 26;
	e += n;
	mad_v8u ovf = (mad_v8u)(e >= 255), unf = (mad_v8u)(e <= 0);
	n += (mad_v8i)(unf & one);
	e = (mad_v8i)((mad_v8u)e & ~unf);
	mad_v8u npos = (mad_v8u)(n > 0), sh = MAD_SEL(npos, (mad_v8u)n, (mad_v8u)-n) & 31;
	mad_v8u rs = (rr >> sh) | ((mad_v8u)((rr & ((mad_v8u)n | 1)) != 0) & one);
	rr = MAD_SEL(npos, rs, rr << sh);
	mad_v8u out = ((mad_v8u)e << 23) + (rr >> 3 & m23);
	out += (mad_v8u)(((rr & 7) + (out & 1)) > 4) & one;
	out &= (mad_v8u)((out >> 23) != 0);
	mad_v8u res = MAD_SEL(rzero, z_sign & p_sign, MAD_SEL(ovf, sign | 0x7F800000u, sign | out));
	/* A zero product leaves the addend (a zero one with the signs' AND). */
	mad_v8u addend = MAD_SEL((mad_v8u)(ec != 0), c, c & (a ^ b) & sgn);
	res = MAD_SEL(zero_p, addend, res);
	memcpy(r + l, &res, sizeof res);
	return MAD_BITS8(special) << l;
}

/* The lanes of slow (bit = lane) by the model, eight at a time on AVX2; specials lane by lane. */
__attribute__((target("avx2"))) static void mad_model_lanes_avx2(const uint32_t *A, uint32_t na, const uint32_t *B,
								  const uint32_t *C, uint32_t nc, uint32_t *r, uint32_t slow)
{
	uint32_t v[TT_SFPU_LANES];
	for (unsigned l = 0; l < TT_SFPU_LANES; l += 8) {
		uint32_t lanes = slow & 0xFFu << l;
		if (!lanes)
			continue;
		uint32_t special = mad_model8(A, na, B, C, nc, v, l);
		if (lanes == 0xFFu << l) {   /* the whole group: its eight results at once, then the specials */
			memcpy(r + l, v + l, 8 * sizeof *r);
			lanes &= special;
		}
		for (; lanes; lanes &= lanes - 1) {
			unsigned k = (unsigned)__builtin_ctz(lanes);
			r[k] = special >> k & 1 ? sfpu_mad_special(A[k] ^ na, B[k], C[k] ^ nc) : v[k];
		}
	}
}

/* Which path tt_sfpu_mad_lanes takes (TT_MAD_AUTO: AVX2 when the host has it). */
_Atomic int tt_mad_path = TT_MAD_AUTO;

/* The host path on every lane, the model on those it declines (avx2: both on AVX2; else the
 * baseline ISA's host path and the model lane by lane). */
static inline __attribute__((always_inline)) void mad_lanes(const uint32_t *A, uint32_t na, const uint32_t *B,
							      const uint32_t *C, uint32_t nc, uint32_t *r, bool avx2)
{
	/* Lanes of one instruction tend to be alike: when the first eight all need the model, so
	 * does the rest, most likely (an inexact product with an addend), and the lanes go to it
	 * without the host path's trial. */
	uint32_t slow = mad_host8(A, na, B, C, nc, r, 0);
	if (slow != 0xFF)
		for (unsigned l = 8; l < TT_SFPU_LANES; l += 8)
			slow |= mad_host8(A, na, B, C, nc, r, l);
	else
		slow = ALL_LANES;
	if (slow && avx2)
		mad_model_lanes_avx2(A, na, B, C, nc, r, slow);
	for (; slow && !avx2; slow &= slow - 1) {
		unsigned l = (unsigned)__builtin_ctz(slow);
		r[l] = sfpu_mad(A[l] ^ na, B[l], C[l] ^ nc);
	}
}

__attribute__((target("avx2"))) static void mad_lanes_avx2(const uint32_t *A, uint32_t na, const uint32_t *B,
							    const uint32_t *C, uint32_t nc, uint32_t *r)
{
	mad_lanes(A, na, B, C, nc, r, true);
}

static void mad_lanes_base(const uint32_t *A, uint32_t na, const uint32_t *B, const uint32_t *C, uint32_t nc,
			   uint32_t *r)
{
	mad_lanes(A, na, B, C, nc, r, false);
}

void tt_sfpu_mad_lanes(const uint32_t *A, uint32_t na, const uint32_t *B, const uint32_t *C, uint32_t nc,
		       uint32_t r[TT_SFPU_LANES])
{
	int path = atomic_load_explicit(&tt_mad_path, memory_order_relaxed);
	if (path == TT_MAD_AUTO)
		path = __builtin_cpu_supports("avx2") ? TT_MAD_AVX2 : TT_MAD_SCALAR;
	if (path == TT_MAD_AVX2)
		mad_lanes_avx2(A, na, B, C, nc, r);
	else
		mad_lanes_base(A, na, B, C, nc, r);
}

static int32_t sext12(uint32_t v)
{
	return (int32_t)(v << 20) >> 20;
}

/* Sign-magnitude total order (SFPGT, SFPLE, SFPSWAP): -0 below +0, NaNs at the ends. */
static int64_t sm_key(uint32_t x)
{
	int64_t m = x & 0x7FFFFFFFu;
	return x >> 31 ? -m - 1 : m;
}

/* sm_key of four lanes, in 32 bits (-m - 1 is ~m). */
typedef int32_t tt_v4i __attribute__((vector_size(16)));
static inline __attribute__((always_inline)) tt_v4i sm_key4(tt_v4u x)
{
	return (tt_v4i)((x & 0x7FFFFFFFu) ^ (tt_v4u)((tt_v4i)x >> 31));
}

/* Set LaneFlags of the lanes in mask from cond (bit = lane). */
static void set_flags(struct tt_sfpu *s, uint32_t mask, uint32_t cond)
{
	s->flags = (s->flags & ~mask) | (cond & mask);
}

/* The LReg an instruction's result goes to: VD, or LReg 16 for an instruction SFPLOADMACRO
 * scheduled with its result there; only LReg 0-7 and 16 take results (LReg.md), so the caller
 * drops writes to others. */
static unsigned result_lreg(const struct tt_sfpu *s, unsigned vd)
{
	return s->to16 ? 16 : vd;
}

static bool writable(unsigned d)
{
	return d < 8 || d == 16;
}

/* d[lane] = v[lane] for the lanes of mask; every lane at once when all are enabled (the usual
 * case, a copy the compiler vectorises). */
static inline void merge_lanes(uint32_t d[TT_SFPU_LANES], const uint32_t v[TT_SFPU_LANES], uint32_t mask)
{
	if (mask == ALL_LANES) {
		memcpy(d, v, TT_SFPU_LANES * sizeof *d);
		return;
	}
	for (unsigned l = 0; l < TT_SFPU_LANES; l++)
		d[l] = mask >> l & 1 ? v[l] : d[l];
}

/* Write v[lane] into the result LReg of VD vd for the lanes of mask. */
static void write_lanes(struct tt_sfpu *s, unsigned vd, uint32_t mask, const uint32_t v[TT_SFPU_LANES])
{
	vd = result_lreg(s, vd);
	if (writable(vd))
		merge_lanes(s->lreg[vd], v, mask);
}

__attribute__((cold, noinline))
static enum tt_result sfpu_unmodelled(struct bh_tt_thread *th, uint32_t w, const char *what)
{
	return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "%s %s", tt_opinfo(tt_opcode_of(w))->name, what);
}

/* A documented hardware erratum met by w: reported as check sfpu-erratum when it is on. */
__attribute__((cold, noinline))
static enum tt_result sfpu_erratum(struct bh_tt_thread *th, uint32_t w, const char *why)
{
	if (!bh_checks_on(&th->tx->tile->chip->checks, BH_CHECK_SFPU_ERRATUM))
		return TT_OK;
	return tt_check(th, BH_CHECK_SFPU_ERRATUM, w, NULL, "%s", why);
}

__attribute__((cold, noinline))
static enum tt_result sfpu_bad_mode(struct bh_tt_thread *th, uint32_t w, unsigned mod, const char *what)
{
	return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "%s mode %u is not modelled (%s)", tt_opinfo(tt_opcode_of(w))->name,
			mod, what);
}

/* ---------------------------------------------------------------------------------------------
 * SFPLOAD / SFPSTORE (SFPLOAD.md, SFPSTORE.md).
 */

enum {
	MOD0_SRCB, MOD0_FP16, MOD0_BF16, MOD0_FP32, MOD0_INT32, MOD0_INT8, MOD0_UINT16, MOD0_HI16, MOD0_INT16,
	MOD0_LO16, MOD0_INT32_ALL, MOD0_ZERO, MOD0_INT32_SM, MOD0_INT8_COMP, MOD0_LO16_ONLY, MOD0_HI16_ONLY,
};

/* MOD0_FMT_SRCB resolved by ALU_ACC_CTRL_SFPU_Fp32_enabled (config word 1 bit 30) and the SrcB
 * format (ALU_FORMAT_SPEC_REG_SrcB_val/override in word 0 bits 8:5 and 9, else REG1_SrcB), which
 * Blackhole's ThreadConfig SFPU_DEST_FMT replaces when enabled. */
static unsigned resolve_mod0(struct bh_tt_thread *th, unsigned mod0)
{
	if (mod0 != MOD0_SRCB)
		return mod0;
	uint32_t alu = tt_dp_cfg(th, BH_DP_CFG_ALU), spec = tt_dp_cfg(th, BH_DP_CFG_ALU_SPEC);
	if (alu >> 30 & 1)
		return MOD0_FP32;
	uint32_t dest_fmt = tt_dp_tcfg(th, BH_DP_TCFG_SFPU_DEST_FMT);
	unsigned fmt = dest_fmt & 1 ? dest_fmt >> 1 & 15 : spec >> 9 & 1 ? spec >> 5 & 15 : alu >> 21 & 15;
	switch (fmt) {
	case TT_FMT_FP32: case TT_FMT_TF32: case TT_FMT_BF16: case TT_FMT_BFP8: case TT_FMT_BFP4: case TT_FMT_BFP2:
	case TT_FMT_INT32: case TT_FMT_INT16:
		return MOD0_BF16;
	default:
		return MOD0_FP16;
	}
}

/* The Dst address of SFPLOAD/SFPSTORE: Imm10 + MATH offset + RWC Dst + DEST_REGW_BASE (only the
 * low two bits of the last two for MOD0_FMT_INT32_ALL). Blackhole adds the Sp counter and
 * DEST_SP_BASE (config word 7), which bhemu does not keep: a non-zero base faults. */
static bool sfpu_addr(struct bh_tt_thread *th, uint32_t w, unsigned mod0, unsigned *addr)
{
	uint32_t a = tt_bits(w, 9, 0) + (tt_dp_tcfg(th, BH_DP_TCFG_MATH_OFFSET) & 0xFFF);
	uint32_t rw = th->rwc.dst + (tt_dp_cfg(th, BH_DP_CFG_DEST_REGW_BASE) & 0xFFFF);
	if (tt_dp_cfg(th, BH_DP_CFG_DEST_SP_BASE) & 0xFFFF) {
		sfpu_unmodelled(th, w, "with DEST_SP_BASE set: the SFPU stack-pointer counter is not modelled");
		return false;
	}
	*addr = (a + (mod0 == MOD0_INT32_ALL ? rw & 3 : rw)) & 0x3FF;
	return true;
}

/* The Dst cell of a lane: row addr & ~3 + lane / 8 (the same for every lane of a row of 8),
 * column 2 (lane & 7) + bit 1 of addr, which LaneConfig's column exchange sets per lane (odd). */
static unsigned lane_col(unsigned addr, uint32_t odd, unsigned lane)
{
	return (lane & 7) * 2 + ((addr >> 1 | odd >> (lane & 7)) & 1);
}

/* The formats SFPLOAD reads through Dst's 32-bit view; SFPSTORE also writes HI16 and LO16
 * through it. */
static bool mod0_dst32(unsigned mod0)
{
	return mod0 == MOD0_FP32 || mod0 == MOD0_INT32 || mod0 == MOD0_INT32_ALL || mod0 == MOD0_INT32_SM;
}

/* inf: LaneConfig's ENABLE_FP16A_INF, which reads the largest pattern as infinity. */
static uint32_t read_fp16(uint16_t d, bool inf)
{
	uint32_t sign = d >> 15, man = d >> 5 & 0x3FF, exp = d & 0x1F;
	if (inf && exp == 0x1F && man == 0x3FF)
		exp = 255, man = 0;
	else if (exp)
		exp += 112;   /* rebias; a zero exponent stays (a denormal that arithmetic flushes) */
	return sign << 31 | exp << 23 | man << 13;
}

static uint16_t to_fp16(uint32_t x)
{
	uint32_t sign = x >> 31, man = x & 0x7FFFFF;
	int32_t exp = (int32_t)(x >> 23 & 0xFF) - 112;
	if (exp <= 0)
		exp = 0, man = 0;             /* underflow and denormals: signed zero */
	else if (exp > 31)
		exp = 31, man = 0x7FFFFF;     /* saturate (Dst has no infinity) */
	return (uint16_t)(sign << 15 | (uint32_t)exp << 10 | man >> 13);
}

/* The even (p 0) or odd (p 1) columns of Dst row r, eight 16-bit cells read as four 8-byte words. */
static inline __attribute__((always_inline)) tt_v8h dst_row_cols(struct tt_dp *dp, unsigned r, unsigned p)
{
	tt_v8h a = tt_v8h_of(tt_ld64(&dp->dst[r][0]), tt_ld64(&dp->dst[r][4]));
	tt_v8h b = tt_v8h_of(tt_ld64(&dp->dst[r][8]), tt_ld64(&dp->dst[r][12]));
	return p ? __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15) : __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
}

/* The lanes' Dst data without a column exchange: lane 8 i + k at row (addr & ~3) + i, column
 * 2 k + bit 1 of addr (lane_col with odd 0); wide: the 32-bit view's two halves. */
static void dst_gather(struct tt_dp *dp, unsigned addr, bool wide, uint32_t raw[TT_SFPU_LANES])
{
	unsigned p = addr >> 1 & 1;
	for (unsigned i = 0; i < 4; i++) {
		unsigned row = ((addr & ~3u) + i) & 0x3FF, r = wide ? tt_dst32_adj(row) : row;
		tt_v8h cells = dst_row_cols(dp, r, p);
		tt_v4u v0 = tt_widen16(tt_v8h_word(cells, 0)), v1 = tt_widen16(tt_v8h_word(cells, 1));
		if (wide) {
			tt_v8h low = dst_row_cols(dp, r + 8, p);
			v0 = v0 << 16 | tt_widen16(tt_v8h_word(low, 0));
			v1 = v1 << 16 | tt_widen16(tt_v8h_word(low, 1));
		}
		st4(&raw[8 * i], v0);
		st4(&raw[8 * i + 4], v1);
	}
}

/* The enabled lanes (mask) of v into Dst without a column exchange (dst_gather's places): the
 * elements, then each row's written columns defined. */
static void dst_scatter(struct tt_dp *dp, unsigned addr, bool wide, uint32_t mask, const uint32_t v[TT_SFPU_LANES])
{
	unsigned p = addr >> 1 & 1;
	for (unsigned i = 0; i < 4; i++, mask >>= 8) {
		unsigned row = ((addr & ~3u) + i) & 0x3FF, r = wide ? tt_dst32_adj(row) : row;
		uint32_t m = mask & 0xFF, cols = 0;
		_Atomic uint16_t *d = dp->dst[r] + p, *lo = dp->dst[(r + 8) & 0x3FF] + p;   /* lo: wide only */
		const uint32_t *x = v + 8 * i;
		if (!m)
			continue;
		if (m == 0xFF) {
			cols = 0x5555u << p;
			for (unsigned k = 0; k < 8; k++)
				atomic_store_explicit(&d[2 * k], (uint16_t)(wide ? x[k] >> 16 : x[k]), memory_order_relaxed);
			if (wide)
				for (unsigned k = 0; k < 8; k++)
					atomic_store_explicit(&lo[2 * k], (uint16_t)x[k], memory_order_relaxed);
		} else {
			for (unsigned k = 0; k < 8; k++) {
				if (!(m >> k & 1))
					continue;
				cols |= 1u << (2 * k + p);
				atomic_store_explicit(&d[2 * k], (uint16_t)(wide ? x[k] >> 16 : x[k]), memory_order_relaxed);
				if (wide)
					atomic_store_explicit(&lo[2 * k], (uint16_t)x[k], memory_order_relaxed);
			}
		}
		tt_dst_define_cols(dp, r, cols);
		if (wide)
			tt_dst_define_cols(dp, r + 8, cols);
	}
}

static enum tt_result sfpu_load(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	struct tt_dp *dp = th->tx->dp;
	unsigned vd = tt_bits(w, 23, 20), mod0 = resolve_mod0(th, tt_bits(w, 19, 16)), addr;
	if (!sfpu_addr(th, w, mod0, &addr))
		return TT_FAULT;
	if (vd >= 8)
		return tt_dp_addr_mod(th, w, tt_bits(w, 15, 13), false);
	/* LaneConfig: BLOCK_SFPU_RD_FROM_DEST drops the lane, DEST_RD_COL_EXCHANGE reads the odd
	 * column, ENABLE_DEST_INDEX with CAPTURE_DEFAULT_DEST_INDEX writes the Dst index of the datum
	 * to LReg VD + 4 too. */
	uint32_t mask = (mod0 == MOD0_INT32_ALL ? ALL_LANES : enabled(s)) & ~lanes_with(s, LC_BLOCK_LOAD);
	uint32_t odd = lanes_with(s, LC_RD_COL_EXCHANGE);
	uint32_t capture = vd < 4 ? lanes_with(s, LC_DEST_INDEX | LC_CAPTURE_INDEX) : 0;
	uint32_t raw[TT_SFPU_LANES], v[TT_SFPU_LANES];
	const uint32_t *old = s->lreg[vd];
	/* Every lane's datum first (a read has no side effect), then the format's conversion. */
	bool wide = mod0_dst32(mod0);
	if (!odd)
		dst_gather(dp, addr, wide, raw);
	else
		for (unsigned i = 0; i < 4; i++) {   /* lanes 8 i .. 8 i + 7 read row (addr & ~3) + i (lane_col) */
			unsigned row = ((addr & ~3u) + i) & 0x3FF, r = wide ? tt_dst32_adj(row) : row;
			for (unsigned k = 0; k < 8; k++) {
				unsigned col = lane_col(addr, odd, k);
				uint32_t hi = atomic_load_explicit(&dp->dst[r][col], memory_order_relaxed);
				raw[8 * i + k] = wide ? hi << 16 | atomic_load_explicit(&dp->dst[r + 8][col], memory_order_relaxed) : hi;
			}
		}
	switch (mod0) {
	case MOD0_FP16:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = read_fp16((uint16_t)raw[l], s->lane_config[l] & LC_FP16A_INF);
		break;
	case MOD0_BF16:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = (uint32_t)tt_dst_to_bf16((uint16_t)raw[l]) << 16;
		break;
	case MOD0_FP32: case MOD0_INT32: case MOD0_INT32_ALL: case MOD0_INT32_SM:   /* Blackhole: SM no longer converted */
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = tt_dst_to_fp32(raw[l]);
		break;
	case MOD0_HI16:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = raw[l] << 16;
		break;
	case MOD0_UINT16: case MOD0_LO16:
		memcpy(v, raw, sizeof v);
		break;
	case MOD0_INT16:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = (raw[l] >> 15) << 31 | (raw[l] & 0x7FFFu);
		break;
	case MOD0_INT8: case MOD0_INT8_COMP: {   /* Dst's sign, then the magnitude from bit 5: 8 or 10 bits */
		uint32_t m = mod0 == MOD0_INT8 ? 0xFFu : 0x3FFu;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = (raw[l] >> 15) << 31 | (raw[l] >> 5 & m);
		break;
	}
	case MOD0_LO16_ONLY:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = (old[l] & 0xFFFF0000u) | raw[l];
		break;
	case MOD0_HI16_ONLY:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = raw[l] << 16 | (old[l] & 0xFFFFu);
		break;
	default:   /* MOD0_FMT_ZERO */
		memset(v, 0, sizeof v);
		break;
	}
	merge_lanes(s->lreg[vd], v, mask);
	for (unsigned l = 0; capture && l < TT_SFPU_LANES; l++)
		if ((capture & mask) >> l & 1)
			s->lreg[vd + 4][l] = ((addr & ~3u) + l / 8) << 4 | lane_col(addr, odd, l);
	return tt_dp_addr_mod(th, w, tt_bits(w, 15, 13), false);
}

/* The enabled lanes (mask) of LReg vd into Dst at addr in format mod0 (resolved); LaneConfig's
 * BLOCK_DEST_WR_FROM_SFPU drops a lane, DEST_WR_COL_EXCHANGE stores to the odd column. The
 * format's conversion runs over every lane first; the written columns of each of the four rows
 * are defined once. */
static void store_lanes(struct tt_dp *dp, struct tt_sfpu *s, unsigned vd, unsigned mod0, unsigned addr, uint32_t mask)
{
	uint32_t odd = lanes_with(s, LC_WR_COL_EXCHANGE), v[TT_SFPU_LANES];
	const uint32_t *x = s->lreg[vd];
	mask &= ~lanes_with(s, LC_BLOCK_STORE);
	switch (mod0) {
	case MOD0_FP16:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = tt_dst_from_fp16(to_fp16(x[l]));
		break;
	case MOD0_BF16:   /* truncates */
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = tt_dst_from_bf16((uint16_t)(ftz(x[l]) >> 16));
		break;
	case MOD0_FP32:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = tt_dst_from_fp32(ftz(x[l]));
		break;
	case MOD0_INT32: case MOD0_INT32_ALL: case MOD0_INT32_SM:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = tt_dst_from_fp32(x[l]);
		break;
	case MOD0_UINT16: case MOD0_LO16_ONLY: case MOD0_HI16:
		memcpy(v, x, sizeof v);   /* the 16-bit view keeps the low half; HI16 is a 32-bit store */
		break;
	case MOD0_HI16_ONLY:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = x[l] >> 16;
		break;
	case MOD0_INT16:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = (x[l] >> 31) << 15 | (x[l] & 0x7FFF);
		break;
	case MOD0_INT8: case MOD0_INT8_COMP:   /* "Integer 8": FP16 with exponent 16, 10 bits of magnitude */
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = tt_dst_from_fp16((uint16_t)((x[l] >> 31) << 15 | 16u << 10 | (x[l] & 0x3FFu)));
		break;
	case MOD0_LO16:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			v[l] = x[l] << 16 | x[l] >> 16;
		break;
	default:   /* MOD0_FMT_ZERO */
		memset(v, 0, sizeof v);
		break;
	}
	bool wide = mod0_dst32(mod0) || mod0 == MOD0_HI16 || mod0 == MOD0_LO16;
	if (!odd) {
		dst_scatter(dp, addr, wide, mask, v);
		return;
	}
	for (unsigned i = 0; i < 4; i++) {
		unsigned row = ((addr & ~3u) + i) & 0x3FF, r = wide ? tt_dst32_adj(row) : row;
		uint32_t cols = 0;
		for (unsigned k = 0; k < 8; k++) {
			unsigned l = 8 * i + k, col = lane_col(addr, odd, k);
			if (!(mask >> l & 1))
				continue;
			cols |= 1u << col;
			if (wide) {
				atomic_store_explicit(&dp->dst[r][col], (uint16_t)(v[l] >> 16), memory_order_relaxed);
				atomic_store_explicit(&dp->dst[r + 8][col], (uint16_t)v[l], memory_order_relaxed);
			} else {
				atomic_store_explicit(&dp->dst[r][col], (uint16_t)v[l], memory_order_relaxed);
			}
		}
		tt_dst_define_cols(dp, r, cols);
		if (wide)
			tt_dst_define_cols(dp, r + 8, cols);
	}
}

static enum tt_result sfpu_store(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned vd = tt_bits(w, 23, 20), mod0 = resolve_mod0(th, tt_bits(w, 19, 16)), addr;
	if (!sfpu_addr(th, w, mod0, &addr))
		return TT_FAULT;
	store_lanes(th->tx->dp, s, vd, mod0, addr, mod0 == MOD0_INT32_ALL ? ALL_LANES : enabled(s));
	return tt_dp_addr_mod(th, w, tt_bits(w, 15, 13), false);
}

/* SFPLOADI (SFPLOADI.md): an immediate into the enabled lanes of LReg 0-7. */
static enum tt_result sfpu_loadi(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned vd = tt_bits(w, 23, 20), mod0 = tt_bits(w, 19, 16);
	uint32_t imm = tt_bits(w, 15, 0), keep = 0, v;
	switch (mod0) {
	case 0: v = imm << 16; break;                                                   /* BF16 */
	case 1: v = (imm & 0x8000u) << 16 | ((imm & 0x7FFFu) + (112u << 10)) << 13; break;  /* FP16, rebiased */
	case 2: v = imm; break;
	case 4: v = (uint32_t)(int32_t)(int16_t)imm; break;
	case 8: v = imm << 16, keep = 0xFFFFu; break;
	case 10: v = imm, keep = 0xFFFF0000u; break;
	default: return sfpu_bad_mode(th, w, mod0, "SFPLOADI's modes are 0, 1, 2, 4, 8 and 10");
	}
	uint32_t out[TT_SFPU_LANES];
	if (vd >= 8)
		return TT_OK;
	for (unsigned l = 0; l < TT_SFPU_LANES; l++)
		out[l] = (s->lreg[vd][l] & keep) | v;
	merge_lanes(s->lreg[vd], out, enabled(s));
	return TT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * MAD unit (SFPMAD.md, SFPADD.md, SFPMUL.md, SFPADDI.md, SFPMULI.md, SFPMUL24).
 */

#define MAD_NEG_A 1u
#define MAD_NEG_C 2u
#define MAD_IND_A 4u
#define MAD_IND_D 8u

/* src: the LReg SFPADDI/SFPMULI read (VD, or what SFPLOADMACRO chose). */
static enum tt_result sfpu_mad_insn(struct tt_sfpu *s, uint32_t w, unsigned src)
{
	unsigned mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4), vc = tt_bits(w, 11, 8);
	unsigned vb = tt_bits(w, 15, 12), va = tt_bits(w, 19, 16), op = tt_opcode_of(w);
	uint32_t mask = enabled(s);
	unsigned out = result_lreg(s, vd);
	bool imm = op == TT_OP_SFPADDI || op == TT_OP_SFPMULI;
	if (!(mod1 & MAD_IND_D) && (imm || !(mod1 & MAD_IND_A))) {
		/* The common form: fixed registers, every lane computed (the unit has no side effect),
		 * the enabled ones written. SFPADDI is imm * 1.0 + src, SFPMULI imm * src + 0; neither
		 * has NEG_A. */
		const uint32_t *A = s->lreg[va], *B = s->lreg[vb], *C = s->lreg[vc];
		uint32_t na = mod1 & MAD_NEG_A ? 0x80000000u : 0, nc = mod1 & MAD_NEG_C ? 0x80000000u : 0;
		uint32_t r[TT_SFPU_LANES], ka[TT_SFPU_LANES], kb[TT_SFPU_LANES];
		if (!writable(out))
			return TT_OK;
		if (imm) {
			for (unsigned l = 0; l < TT_SFPU_LANES; l++)
				ka[l] = tt_bits(w, 23, 8) << 16, kb[l] = op == TT_OP_SFPADDI ? 0x3F800000u : 0;
			A = ka, na = 0;
			B = op == TT_OP_SFPADDI ? kb : s->lreg[src];
			C = op == TT_OP_SFPADDI ? s->lreg[src] : kb;
		}
		tt_sfpu_mad_lanes(A, na, B, C, nc, r);
		merge_lanes(s->lreg[out], r, mask);
		return TT_OK;
	}
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint32_t a, b, c;
		if (op == TT_OP_SFPADDI || op == TT_OP_SFPMULI) {
			a = tt_bits(w, 23, 8) << 16;
			b = op == TT_OP_SFPADDI ? 0x3F800000u : s->lreg[src][l];
			c = op == TT_OP_SFPADDI ? s->lreg[src][l] : 0;
		} else {
			a = s->lreg[mod1 & MAD_IND_A ? s->lreg[7][l] & 15 : va][l];
			b = s->lreg[vb][l];
			c = s->lreg[vc][l];
			if (mod1 & MAD_NEG_A)
				a ^= 0x80000000u;
		}
		if (mod1 & MAD_NEG_C)
			c ^= 0x80000000u;
		uint32_t r = sfpu_mad(a, b, c);
		unsigned d = mod1 & MAD_IND_D ? s->lreg[7][l] & 15 : vd;
		d = result_lreg(s, d);
		if (writable(d))
			s->lreg[d][l] = r;
	}
	return TT_OK;
}

/* SFPMUL24 (Blackhole): the low or high 23 bits of the product of the low 23 bits of VA and VB.
 * VC must be LReg 9 (zero); otherwise the documentation calls the result non-contractual. */
static enum tt_result sfpu_mul24(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4), vc = tt_bits(w, 11, 8);
	unsigned vb = tt_bits(w, 15, 12), va = tt_bits(w, 19, 16);
	if (vc != 9)
		return sfpu_unmodelled(th, w, "with VC other than LReg 9 (zero): the result is non-contractual");
	if (mod1 & ~(1u | MAD_IND_A | MAD_IND_D))
		return sfpu_bad_mode(th, w, mod1, "bit 1 is reserved");
	uint32_t mask = enabled(s);
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint64_t a = s->lreg[mod1 & MAD_IND_A ? s->lreg[7][l] & 15 : va][l] & 0x7FFFFFu, b = s->lreg[vb][l] & 0x7FFFFFu;
		uint32_t r = mod1 & 1 ? (uint32_t)(a * b >> 23) : (uint32_t)(a * b) & 0x7FFFFFu;
		unsigned d = mod1 & MAD_IND_D ? s->lreg[7][l] & 15 : vd;
		d = result_lreg(s, d);
		if (writable(d))
			s->lreg[d][l] = r;
	}
	return TT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Simple unit: lanewise integer, bit and field operations.
 */

/* One lanewise result per enabled lane of the simple operations that write VD only. */
/* src_b: the second source of the operations that read VD (VD, or what SFPLOADMACRO chose). */
/* One lane of sfpu_simple (VD's value; *flag: ALL_LANES or 0, the flag it sets when the operation
 * sets flags, which sfpu_simple decides). Inlined with a constant op
 * into a loop per operation, so that the lane loop has no switch. */
static inline __attribute__((always_inline)) uint32_t simple_lane(struct tt_sfpu *s, unsigned op, unsigned mod1,
								   unsigned vc, uint32_t imm12, uint32_t mask, unsigned l,
								   uint32_t c, uint32_t d, uint32_t *flag)
{
	uint32_t r = 0;
	switch (op) {
	case TT_OP_SFPIADD: {   /* SFPIADD.md */
		if (mod1 & 1)
			r = c + (uint32_t)sext12(imm12);
		else
			r = mod1 & 2 ? c - d : c + d;
		if (!(mod1 & 4) || (mod1 & 8)) {
			bool lt0 = (int32_t)r < 0;
			*flag = (mod1 & 8 ? !lt0 : lt0) ? ALL_LANES : 0;
		}
		break;
	}
	case TT_OP_SFPSHFT: {   /* SFPSHFT.md with Blackhole's arithmetic and use-VC bits */
		uint32_t x = mod1 & 4 ? c : d;
		int32_t sh = mod1 & 1 ? sext12(imm12) : (int32_t)c;
		unsigned n = (sh >= 0 ? (uint32_t)sh : 0u - (uint32_t)sh) & 31;
		r = sh >= 0 ? x << n : mod1 & 2 ? (uint32_t)((int32_t)x >> n) : x >> n;
		break;
	}
	case TT_OP_SFPAND: r = (mod1 & 1 ? s->lreg[imm12 & 15][l] : d) & c; break;
	case TT_OP_SFPOR: r = (mod1 & 1 ? s->lreg[imm12 & 15][l] : d) | c; break;
	case TT_OP_SFPXOR: r = d ^ c; break;
	case TT_OP_SFPNOT: r = ~c; break;
	case TT_OP_SFPMOV:
		/* FROM_SPECIAL: LoadMacroConfig 0-3 templates, 4-7 sequences, 8 Misc; 9 the PRNG
		 * (advanced in enabled lanes only); 15 LaneConfig. */
		if (mod1 == 8 && vc == 9)
			r = mask >> l & 1 ? prng_advance(s, l) : 0;
		else if (mod1 == 8)
			r = vc < 4 ? s->lm_template[vc][l] : vc < 8 ? s->lm_sequence[vc - 4][l] : vc == 8 ? s->lm_misc[l]
				: vc == 15 ? s->lane_config[l] : 0;
		else
			r = mod1 & 1 ? c ^ 0x80000000u : c;
		break;
	case TT_OP_SFPABS:
		if (mod1)   /* float: clear the sign, except of a NaN */
			r = (c & 0x7FFFFFFFu) > 0x7F800000u ? c : c & 0x7FFFFFFFu;
		else
			r = (int32_t)c < 0 && c != 0x80000000u ? 0u - c : c;
		break;
	case TT_OP_SFPLZ: {     /* SFPLZ.md */
		uint32_t x = mod1 & 4 ? c & 0x7FFFFFFFu : c;
		r = x ? (uint32_t)__builtin_clz(x) : 32;
		if (mod1 & 2) {
			*flag = (x != 0) != ((mod1 & 8) != 0) ? ALL_LANES : 0;
		}
		break;
	}
	case TT_OP_SFPEXEXP: {  /* SFPEXEXP.md */
		r = (c >> 23 & 0xFF) - (mod1 & 1 ? 0 : 127);
		if (mod1 & 2) {
			*flag = ((int32_t)r < 0) != ((mod1 & 8) != 0) ? ALL_LANES : 0;
		}
		break;
	}
	case TT_OP_SFPEXMAN: r = (mod1 & 1 ? 0 : 0x800000u) | (c & 0x7FFFFFu); break;
	case TT_OP_SFPSETEXP: { /* SFPSETEXP.md */
		uint32_t e = mod1 & 1 ? imm12 & 0xFF : mod1 & 2 ? d >> 23 & 0xFF : d & 0xFF;
		r = (c & 0x807FFFFFu) | e << 23;
		break;
	}
	case TT_OP_SFPSETMAN:   /* SFPSETMAN.md */
		r = (c & 0xFF800000u) | (mod1 & 1 ? (imm12 << 11) & 0x7FFFFFu : d & 0x7FFFFFu);
		break;
	case TT_OP_SFPSETSGN:   /* SFPSETSGN.md */
		r = (c & 0x7FFFFFFFu) | (mod1 & 1 ? (imm12 & 1) << 31 : d & 0x80000000u);
		break;
	case TT_OP_SFPDIVP2: {  /* SFPDIVP2.md */
		uint32_t e = c >> 23 & 0xFF;
		if (mod1 & 1)
			e = e == 255 ? e : (e + imm12) & 0xFF;
		else
			e = imm12 & 0xFF;
		r = (c & 0x807FFFFFu) | e << 23;
		break;
	}
	default: {              /* SFPCAST (SFPCAST.md) */
		uint32_t sign = c & 0x80000000u, mag = c & 0x7FFFFFFFu;
		if (mod1 == 0) {    /* sign-magnitude to FP32, nearest even */
			r = sign | b32((float)mag);
		} else if (mod1 == 1) {   /* stochastic: the 8 bits below the result against 7 of the PRNG */
			unsigned lz = mag ? (unsigned)__builtin_clz(mag) : 157;
			uint32_t norm = mag << (lz & 31);
			r = sign + ((157 - lz) << 23) + (norm >> 8);
			if ((mask >> l & 1) && (norm & 0xFE) > (prng_advance(s, l) >> 9 & 0xFE))
				r++;
		} else if (mod1 == 2) {   /* the documented bug: two's complement absolute value */
			r = (int32_t)c < 0 ? 0u - c : c;
		} else {                  /* two's complement <-> sign-magnitude */
			r = sign | (sign ? 0u - c : c);
		}
		break;
	}
	}
	return r;
}

static enum tt_result sfpu_simple(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w, unsigned src_b)
{
	unsigned op = tt_opcode_of(w), mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4), vc = tt_bits(w, 11, 8);
	uint32_t imm12 = tt_bits(w, 23, 12), mask = enabled(s), out[TT_SFPU_LANES], flag[TT_SFPU_LANES] = { 0 };
	const uint32_t *C = s->lreg[vc], *D = s->lreg[src_b];
	switch (op) {
	case TT_OP_SFPIADD:
		if ((mod1 & 3) == 3)
			return sfpu_bad_mode(th, w, mod1, "bits 1:0 = 3 select no operand");
		break;
	case TT_OP_SFPSHFT:
		if (mod1 & 8)
			return sfpu_bad_mode(th, w, mod1, "bit 3 is reserved");
		break;
	case TT_OP_SFPMOV:
		if (mod1 > 2 && mod1 != 8)
			return sfpu_bad_mode(th, w, mod1, "0 move, 1 negate, 2 all lanes");
		if (mod1 == 2)
			mask = ALL_LANES;
		break;
	case TT_OP_SFPABS:
		if (mod1 > 1)
			return sfpu_bad_mode(th, w, mod1, "0 integer, 1 float");
		break;
	case TT_OP_SFPCAST:
		if (mod1 > 3)
			return sfpu_bad_mode(th, w, mod1, "0 SM32->FP32, 2 INT32 ABS, 3 INT32<->SM32");
		break;
	default:
		break;
	}
#define SIMPLE_LOOP(o) \
	case o: \
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) \
			out[l] = simple_lane(s, o, mod1, vc, imm12, mask, l, C[l], D[l], &flag[l]); \
		break
	switch (op) {
	case TT_OP_SFPMOV:
		if (mod1 == 8) {   /* FROM_SPECIAL: per lane */
			for (unsigned l = 0; l < TT_SFPU_LANES; l++)
				out[l] = simple_lane(s, TT_OP_SFPMOV, mod1, vc, imm12, mask, l, C[l], D[l], &flag[l]);
			break;
		}
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)   /* a move (or negation): host vectors */
			out[l] = C[l] ^ (mod1 & 1) << 31;
		break;
	SIMPLE_LOOP(TT_OP_SFPIADD);
	SIMPLE_LOOP(TT_OP_SFPSHFT);
	SIMPLE_LOOP(TT_OP_SFPAND);
	SIMPLE_LOOP(TT_OP_SFPOR);
	SIMPLE_LOOP(TT_OP_SFPXOR);
	SIMPLE_LOOP(TT_OP_SFPNOT);
	SIMPLE_LOOP(TT_OP_SFPABS);
	SIMPLE_LOOP(TT_OP_SFPLZ);
	SIMPLE_LOOP(TT_OP_SFPEXEXP);
	SIMPLE_LOOP(TT_OP_SFPEXMAN);
	SIMPLE_LOOP(TT_OP_SFPSETEXP);
	SIMPLE_LOOP(TT_OP_SFPSETMAN);
	SIMPLE_LOOP(TT_OP_SFPSETSGN);
	SIMPLE_LOOP(TT_OP_SFPDIVP2);
	default:   /* SFPCAST */
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			out[l] = simple_lane(s, op, mod1, vc, imm12, mask, l, C[l], D[l], &flag[l]);
		break;
	}
#undef SIMPLE_LOOP
	/* Flags of the enabled lanes, from the result computed for VD < 8 (the models set them only
	 * then): SFPIADD unless bit 2 alone (of 2 and 3) says not, SFPLZ and SFPEXEXP with bit 1. */
	bool sets = op == TT_OP_SFPIADD ? !(mod1 & 4) || (mod1 & 8)
				       : (op == TT_OP_SFPLZ || op == TT_OP_SFPEXEXP) && (mod1 & 2);
	if (sets && vd < 8) {
		uint32_t cc = 0;
		for (unsigned q = 0; q < TT_SFPU_LANES / 4; q++)
			cc |= mask_of4(ld4(&flag[4 * q]), q);
		set_flags(s, mask, cc);
	}
	write_lanes(s, vd, mask, out);
	return TT_OK;
}

/* SFPSETCC (SFPSETCC.md). */
static enum tt_result sfpu_setcc(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0), vc = tt_bits(w, 11, 8);
	uint32_t mask = enabled(s), cc = 0;
	if (mod1 != 0 && mod1 != 1 && mod1 != 2 && mod1 != 4 && mod1 != 6 && mod1 != 8)
		return sfpu_bad_mode(th, w, mod1, "0 LT0, 1 immediate, 2 NE0, 4 GTE0, 6 EQ0, 8 clear");
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		int32_t c = (int32_t)s->lreg[vc][l];
		bool f;
		if (!(s->use_flags >> l & 1) || (mod1 & 8))
			f = false;
		else if (mod1 & 1)
			f = tt_bits(w, 12, 12);
		else
			f = mod1 == 0 ? c < 0 : mod1 == 2 ? c != 0 : mod1 == 4 ? c >= 0 : c == 0;
		cc |= (uint32_t)f << l;
	}
	set_flags(s, mask, cc);
	return TT_OK;
}

/* SFPGT / SFPLE (SFPGT.md, SFPLE.md): VD > VC (VD <= VC) in sign-magnitude order, into the
 * flags of the enabled lanes (bit 0), VD as -1 or 0 (bit 3), and the top of a non-empty flag
 * stack in every lane (bit 1: OR with bit 2, else AND). */
static enum tt_result sfpu_cmp(struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4), vc = tt_bits(w, 11, 8);
	bool gt = tt_opcode_of(w) == TT_OP_SFPGT;
	uint32_t mask = enabled(s), res = 0, out[TT_SFPU_LANES];
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		bool r = sm_key(s->lreg[vd][l]) > sm_key(s->lreg[vc][l]);
		r = gt ? r : !r;
		res |= (uint32_t)r << l;
		out[l] = r ? ALL_LANES : 0;
	}
	if (mod1 & 1)
		set_flags(s, mask, res);
	if (mod1 & 8)
		write_lanes(s, vd, mask, out);
	if ((mod1 & 2) && s->depth) {
		uint32_t *top = &s->stack_flags[s->depth - 1];
		*top = mod1 & 4 ? *top | res : *top & res;
	}
	return TT_OK;
}

/* SFPENCC (SFPENCC.md): Imm2 in bits 13:12 (bit 0 enable, bit 1 result). */
static enum tt_result sfpu_encc(struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0), imm = tt_bits(w, 13, 12);
	if (mod1 & 2)
		s->use_flags = imm & 1 ? ALL_LANES : 0;
	else if (mod1 & 1)
		s->use_flags = ~s->use_flags;
	s->flags = !(mod1 & 8) || (imm & 2) ? ALL_LANES : 0;
	return TT_OK;
}

static bool boolean_op(unsigned op, bool a, bool b)
{
	switch (op) {
	case 1: return b;
	case 2: return !b;
	case 3: return a && b;
	case 4: return a || b;
	case 5: return a && !b;
	case 6: return a || !b;
	case 7: return !a && b;
	case 8: return !a || b;
	case 9: return !a && !b;
	case 10: return !a || !b;
	case 11: return a != b;
	default: return a == b;
	}
}

/* SFPPUSHC (SFPPUSHC.md): mode 0 pushes; Blackhole's other modes rewrite the top: 1-12 the
 * current UseLaneFlags and BooleanOp(top, current) flags, 13 the inverted current flags (which
 * become the current ones too), 14 and 15 constants. */
static enum tt_result sfpu_pushc(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0);
	if (mod1) {
		if (!s->depth)
			return tt_fault(th, BH_FAULT_BAD_VALUE, w, "SFPPUSHC mode %u with the flag stack empty: undefined",
					mod1);
		uint32_t *top_f = &s->stack_flags[s->depth - 1], *top_u = &s->stack_use[s->depth - 1], f = 0;
		if (mod1 <= 12) {
			for (unsigned l = 0; l < TT_SFPU_LANES; l++)
				f |= (uint32_t)boolean_op(mod1, *top_f >> l & 1, s->flags >> l & 1) << l;
			*top_f = f;
			*top_u = s->use_flags;
		} else if (mod1 == 13) {
			s->flags = ~s->flags;
			*top_f = s->flags;
			*top_u = s->use_flags;
		} else {
			*top_u = ALL_LANES;
			*top_f = mod1 == 14 ? ALL_LANES : 0;
		}
		return TT_OK;
	}
	if (s->depth >= TT_SFPU_STACK)
		return tt_fault(th, BH_FAULT_BAD_VALUE, w, "SFPPUSHC with the flag stack full (%u entries): undefined",
				TT_SFPU_STACK);
	s->stack_flags[s->depth] = s->flags;
	s->stack_use[s->depth] = s->use_flags;
	s->depth++;
	return TT_OK;
}

/* SFPPOPC (SFPPOPC.md): pop, or combine the flags with the top, or constants. */
static enum tt_result sfpu_popc(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0);
	uint32_t top_f = s->depth ? s->stack_flags[s->depth - 1] : 0, top_u = s->depth ? s->stack_use[s->depth - 1] : 0;
	if (mod1 == 0) {
		if (!s->depth)
			return tt_fault(th, BH_FAULT_BAD_VALUE, w, "SFPPOPC with the flag stack empty: undefined");
		s->depth--;
		s->flags = top_f;
		s->use_flags = top_u;
		return TT_OK;
	}
	/* Wormhole's bug with a full stack (the bottom entry overwritten) is fixed in Blackhole. */
	if (mod1 <= 12) {
		uint32_t f = 0;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			f |= (uint32_t)boolean_op(mod1, s->flags >> l & 1, top_f >> l & 1) << l;
		s->use_flags = top_u;
		s->flags = f;
	} else if (mod1 == 13) {
		s->flags = ~s->flags;
	} else {
		s->use_flags = ALL_LANES;
		s->flags = mod1 == 14 ? ALL_LANES : 0;
	}
	return TT_OK;
}

/* SFPCOMPC (SFPCOMPC.md): else. */
static enum tt_result sfpu_compc(struct tt_sfpu *s)
{
	uint32_t top_f = s->depth ? s->stack_flags[s->depth - 1] : ALL_LANES;
	uint32_t top_u = s->depth ? s->stack_use[s->depth - 1] : ALL_LANES;
	s->flags = top_u & s->use_flags & top_f & ~s->flags;
	return TT_OK;
}

/* SFPSWAP (SFPSWAP.md): swap, or per-lane min to VD and max to VC, as a conditional swap.
 * LaneConfig: EXCHANGE_SRCB_SRCC inverts the condition; ENABLE_DEST_INDEX makes it argmin/argmax
 * (the values move within LReg 0-3 only, and LReg 4 + (VC & 3) and 4 + (VD & 3) swap alike). */
static enum tt_result sfpu_swap(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4), vc = tt_bits(w, 11, 8);
	/* Rows (8 lanes each) whose VD takes the minimum, per mode 1-9 (SFPSWAP.md). */
	static const uint8_t min_rows[10] = { 0, 0xF, 0x3, 0x5, 0x9, 0x1, 0x2, 0x4, 0x8, 0x0 };
	if (mod1 > 9)
		return sfpu_bad_mode(th, w, mod1, "0 swap, 1-9 min/max");
	uint32_t mask = enabled(s), invert = lanes_with(s, LC_EXCHANGE_SRCB_SRCC), index = lanes_with(s, LC_DEST_INDEX);
	if (!index) {   /* four lanes at a time on host vectors: which lanes swap, then the swap */
		uint32_t swap = mask;
		if (mod1) {
			uint32_t c_smaller = 0, min = 0;
			for (unsigned q = 0; q < TT_SFPU_LANES / 4; q++) {
				tt_v4u c = ld4(&s->lreg[vc][4 * q]), d = ld4(&s->lreg[vd][4 * q]);
				c_smaller |= mask_of4((tt_v4u)(sm_key4(c) < sm_key4(d)), q);
			}
			for (unsigned row = 0; row < 4; row++)
				min |= (uint32_t)(min_rows[mod1] >> row & 1) * (0xFFu << 8 * row);
			swap &= ~(c_smaller ^ min) ^ invert;
		}
		for (unsigned q = 0; q < TT_SFPU_LANES / 4; q++) {
			tt_v4u c = ld4(&s->lreg[vc][4 * q]), d = ld4(&s->lreg[vd][4 * q]), m = lanes4(swap, q);
			if (vc < 8)
				st4(&s->lreg[vc][4 * q], (d & m) | (c & ~m));
			if (vd < 8 && !s->to16)
				st4(&s->lreg[vd][4 * q], (c & m) | (d & ~m));
		}
		return TT_OK;
	}
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint32_t c = s->lreg[vc][l], d = s->lreg[vd][l];
		bool swap = true;
		if (mod1) {
			bool c_smaller = sm_key(c) < sm_key(d);
			swap = min_rows[mod1] >> (l / 8) & 1 ? c_smaller : !c_smaller;
			swap ^= invert >> l & 1;
		}
		if (!swap)
			continue;
		if (index >> l & 1) {
			unsigned ca = 4 + (vc & 3), da = 4 + (vd & 3);
			uint32_t t = s->lreg[ca][l];
			if (vc < 4)
				s->lreg[vc][l] = d;
			if (vd < 4)
				s->lreg[vd][l] = c;
			s->lreg[ca][l] = s->lreg[da][l];
			s->lreg[da][l] = t;
		} else {
			if (vc < 8)
				s->lreg[vc][l] = d;
			if (vd < 8 && !s->to16)
				s->lreg[vd][l] = c;
		}
	}
	return TT_OK;
}

/* SFPTRANSP (SFPTRANSP.md): within each column of the 4x8 lane grid, LReg[0..3] and LReg[4..7]
 * are each transposed (row i of LReg j <-> row j of LReg i). All lanes. */
static enum tt_result sfpu_transp(struct tt_sfpu *s)
{
	for (unsigned g = 0; g < 8; g += 4)
		for (unsigned i = 0; i < 4; i++)
			for (unsigned j = i + 1; j < 4; j++)
				for (unsigned c = 0; c < 8; c++) {
					uint32_t t = s->lreg[g + i][j * 8 + c];
					s->lreg[g + i][j * 8 + c] = s->lreg[g + j][i * 8 + c];
					s->lreg[g + j][i * 8 + c] = t;
				}
	return TT_OK;
}

/* SFPSHFT2 (SFPSHFT2.md): the copy and shuffle modes of LReg 0-3 and the shifts. */
static enum tt_result sfpu_shft2(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4), vc = tt_bits(w, 11, 8);
	uint32_t imm12 = tt_bits(w, 23, 12), mask = enabled(s), out[TT_SFPU_LANES];
	switch (mod1) {
	case 0: case 1: case 2: {
		uint32_t l0[TT_SFPU_LANES], rot[TT_SFPU_LANES];
		memcpy(l0, s->lreg[0], sizeof l0);
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			rot[l] = s->lreg[vc][(l & ~7u) | ((l + 7) & 7)];
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			if (!(mask >> l & 1))
				continue;
			s->lreg[0][l] = s->lreg[1][l];
			s->lreg[1][l] = s->lreg[2][l];
			s->lreg[2][l] = s->lreg[3][l];
			s->lreg[3][l] = mod1 == 0 ? 0 : mod1 == 1 ? (l >= 8 ? l0[l - 8] : 0) : rot[l];
		}
		return TT_OK;
	}
	case 3: case 4:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			out[l] = mod1 == 4 && !(l & 7) ? 0 : s->lreg[vc][(l & ~7u) | ((l + 7) & 7)];
		break;
	case 5: case 6:
		for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
			uint32_t x = s->lreg[imm12 & 15][l];
			int32_t sh = mod1 == 5 ? (int32_t)s->lreg[vc][l] : sext12(imm12);
			unsigned n = (sh >= 0 ? (uint32_t)sh : 0u - (uint32_t)sh) & 31;
			out[l] = sh >= 0 ? x << n : x >> n;
		}
		break;
	default:
		return sfpu_bad_mode(th, w, mod1, "0-6 are documented");
	}
	write_lanes(s, vd, mask, out);
	return TT_OK;
}

/* SFP_STOCH_RND (SFPSTOCHRND_FloatFloat.md, _FloatInt.md, _IntInt.md): FP32 to FP16A or BF16
 * precision (mode 0, 1), FP32 to a clamped sign-magnitude integer (2 UINT8, 3 INT8, 6 UINT16,
 * 7 INT16), sign-magnitude shifted right by VB or Imm5 (mode bit 3) to UINT8/INT8 (4, 5). Every
 * enabled lane advances its PRNG; the discarded bits (23 of them, or the 13 / 16 of the float
 * forms) round up when they reach a threshold: 0x400000 (rounding mode 0, to nearest), the low
 * 23 bits of the PRNG (1, stochastic) or 0x7FFFFF (2, toward zero), the documented ">=" bug
 * included (stochastic rounding can round up exact values; toward zero rounds up all-ones). */
static enum tt_result sfpu_stochrnd(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4), vc = tt_bits(w, 11, 8), vb = tt_bits(w, 15, 12);
	unsigned rnd = tt_bits(w, 22, 21), imm5 = tt_bits(w, 20, 16) & 31, flavour = mod1 & 7;
	if ((mod1 & 8) && flavour != 4 && flavour != 5)
		return sfpu_bad_mode(th, w, mod1, "bit 3 (Imm5) goes with the integer forms 4 and 5 only");
	if (rnd == 3)
		return sfpu_unmodelled(th, w, "with rounding mode 3 is undefined (0 nearest, 1 stochastic, 2 toward zero)");
	static const uint32_t max_mag[8] = { 0, 0, 255, 127, 255, 127, 65535, 32767 };
	uint32_t mask = enabled(s), out[TT_SFPU_LANES], away = 0, prng[TT_SFPU_LANES];   /* away: lanes toward zero rounded up */
	prng_advance_lanes(s, mask, prng);
	if (flavour <= 1) {   /* the float forms, four lanes at a time on host vectors */
		unsigned drop = flavour ? 16 : 13;
		uint32_t fixed = rnd == 0 ? 0x400000u : 0x7FFFFFu, up_lanes = 0;
		for (unsigned q = 0; q < TT_SFPU_LANES / 4; q++) {
			tt_v4u x = ld4(&s->lreg[vc][4 * q]), e = x >> 23 & 0xFF, lost = x & ((1u << drop) - 1);
			tt_v4u thr = (rnd == 1 ? ld4(&prng[4 * q]) & 0x7FFFFFu : (tt_v4u){ fixed, fixed, fixed, fixed }) >> (23 - drop);
			tt_v4u up = (tt_v4u)(lost >= thr), finite = (tt_v4u)(e != 0) & (tt_v4u)(e != 255);
			tt_v4u v = (finite & (x - lost + (up & (1u << drop)))) | ((tt_v4u)(e == 255) & (x & 0xFF800000u));
			st4(&out[4 * q], v);   /* a zero exponent: 0 */
			up_lanes |= mask_of4(up & finite, q);
		}
		away = rnd == 2 ? up_lanes & mask : 0;
	}
	for (unsigned l = 0; flavour > 1 && l < TT_SFPU_LANES; l++) {   /* the integer forms */
		if (!(mask >> l & 1))
			continue;
		uint32_t thr = rnd == 1 ? prng[l] & 0x7FFFFFu : rnd == 0 ? 0x400000u : 0x7FFFFFu;
		uint32_t x = s->lreg[vc][l], e = x >> 23 & 0xFF;
		bool keep_sign = flavour & 1, up = false;
		uint32_t sign = keep_sign ? x & 0x80000000u : 0;
		uint64_t mag;   /* with 23 fraction bits until rounded */
		if (flavour == 4 || flavour == 5) {   /* sign-magnitude in */
			sign = x & 0x80000000u;
			mag = ((uint64_t)(x & 0x7FFFFFFFu) << 23) >> (mod1 & 8 ? imm5 : s->lreg[vb][l] & 31);
			up = (mag & 0x7FFFFF) >= thr;
		} else if ((int32_t)e - 127 < -1) {   /* |x| < 0.5, whatever the rounding */
			mag = 0;
		} else if ((int32_t)e - 127 >= 16) {  /* and NaN */
			mag = (uint64_t)max_mag[flavour] << 23;
		} else {
			int32_t ex = (int32_t)e - 127;
			mag = 0x800000u | (x & 0x7FFFFFu);
			mag = ex >= 0 ? mag << ex : mag >> -ex;
			up = (mag & 0x7FFFFF) >= thr;
		}
		mag = (mag >> 23) + up;
		away |= (uint32_t)(up && rnd == 2) << l;
		if (mag > max_mag[flavour])
			mag = max_mag[flavour];
		if (!keep_sign || mag == 0)
			sign = 0;
		out[l] = sign | (uint32_t)mag;
	}
	if (away) {
		char why[128];
		snprintf(why, sizeof why, "erratum: rounding toward zero rounded lane %u away (its discarded bits all ones)",
			 (unsigned)__builtin_ctz(away));
		enum tt_result r = sfpu_erratum(th, w, why);
		if (r != TT_OK)
			return r;
	}
	write_lanes(s, vd, mask, out);
	return TT_OK;
}

/* SFPARECIP (SFPARECIP.md): mode 0 the approximate reciprocal of |VC| with VC's sign; 1 the
 * same without the sign, only where VB is negative (VC elsewhere); 2 and up the approximate
 * exponential of |VC| with VC's sign. The tables are the documented ones, which these formulas
 * reproduce entry for entry: the reciprocal's 7-bit mantissa for the mantissa's top 7 bits is
 * that of the middle of the interval, 2^15 / (128.5 + i) - 128, rounded; the exponential's for
 * the BF16 values from 2^-6 to 2 is e^x of the value, truncated to the 7 mantissa bits of a
 * number in [1, 2) below 0x3F32 (0.6953125), and past it to 8 bits over [2, 8) (a table value
 * of 128 and up carries into the exponent). */
static uint8_t arecip_lut[128], aexp_lut[896];

/* e^x by its series (no libm in the library): within a few ulps for the table's x < 2. */
static double exp_series(double x)
{
	double sum = 1, term = 1;
	for (unsigned k = 1; k < 40; k++) {
		term *= x / k;
		sum += term;
	}
	return sum;
}

static void sfpu_tables(void)
{
	for (unsigned i = 0; i < 128; i++)   /* 65536 / (257 + 2i) rounded, less 128 */
		arecip_lut[i] = (uint8_t)((2u * 65536 + 257 + 2 * i) / (2 * (257 + 2 * i)) - 128);
	for (unsigned j = 0; j < 896; j++) {
		double e = exp_series((double)f32_of((0x3C80u + j) << 16));
		double m = j < 0x3F32 - 0x3C80 ? e - 1 : e < 4 ? e / 2 - 1 : e / 4;   /* from 4: 128 + mantissa */
		aexp_lut[j] = (uint8_t)(m * 128);
	}
}

static uint32_t approx_recip(uint32_t x)
{
	if (x < 0x00800000u)
		return 0x7F800000u;
	if (x >= 0x7E800000u)
		return 0;
	return (253 - (x >> 23)) << 23 | (uint32_t)arecip_lut[x >> 16 & 0x7F] << 16;
}

static uint32_t approx_exp(uint32_t x)
{
	uint32_t low = x & 0xFFFFu;   /* the input's low 16 bits go through to the result */
	if (x < 0x00800000u)
		return 0x3F800000u;
	if (x < 0x3C800000u)
		return 0x3F810000u | low;
	if (x >= 0x40000000u)
		return 0x40800000u | low;
	return (x < 0x3F320000u ? 0x3F800000u : 0x40000000u) | (uint32_t)aexp_lut[(x >> 16) - 0x3C80] << 16 | low;
}

static enum tt_result sfpu_arecip(struct tt_sfpu *s, uint32_t w)
{
	unsigned mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4), vc = tt_bits(w, 11, 8), vb = tt_bits(w, 15, 12);
	uint32_t mask = enabled(s), out[TT_SFPU_LANES];
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		uint32_t x = s->lreg[vc][l], sign = x & 0x80000000u;
		if (mod1 == 0)
			x = sign | approx_recip(x - sign);
		else if (mod1 == 1)
			x = (int32_t)s->lreg[vb][l] < 0 ? approx_recip(x - sign) : x;
		else
			x = sign | approx_exp(x - sign);
		out[l] = x;
	}
	write_lanes(s, vd, mask, out);
	return TT_OK;
}

/* SFPLUT and SFPLUTFP32 (SFPLUT.md, SFPLUTFP32.md): a piecewise-linear function of |LReg 3|,
 * the piece chosen by |LReg 3| < 1, < 2 (and the half-steps of the 6-entry FP16 tables), its
 * slope and offset from LReg 0-2 (and 4-6) as FP32, FP16-like or 8-bit table values, evaluated
 * by the MAD unit. FP16_3ENTRY_TABLE (10) shares bit 3 with INDIRECT_VD, so its result goes to
 * LReg[LReg 7 & 15], as the documentation warns. */
static uint32_t lut8(uint32_t x)
{
	x &= 0xFF;
	return x == 0xFF ? 0 : (x >> 7) << 31 | (127 - (x >> 4 & 7)) << 23 | (x & 15) << 19;
}

static uint32_t lut16(uint32_t x)
{
	uint32_t exp = x >> 10 & 0x1F;
	return (x >> 15 & 1) << 31 | (exp == 0x1F ? 0 : 112 + exp) << 23 | (x & 0x3FF) << 13;
}

static enum tt_result sfpu_lut(struct tt_sfpu *s, uint32_t w)
{
	bool fp32 = tt_opcode_of(w) == TT_OP_SFPLUTFP32;
	unsigned mod = fp32 ? tt_bits(w, 3, 0) : tt_bits(w, 19, 16), vd = fp32 ? tt_bits(w, 7, 4) : tt_bits(w, 23, 20);
	uint32_t mask = enabled(s);
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		if (!(mask >> l & 1))
			continue;
		uint32_t l3 = s->lreg[3][l], b = l3 & 0x7FFFFFFFu, a, c;
		unsigned i = b < 0x3F800000u ? 0 : b < 0x40000000u ? 1 : 2;
		if (!fp32) {
			a = lut8(s->lreg[i][l] >> 8);
			c = lut8(s->lreg[i][l]);
		} else if (!(mod & 2)) {
			a = s->lreg[i][l];
			c = s->lreg[4 + i][l];
		} else if (mod & 8) {
			a = lut16(s->lreg[i][l] >> 16);
			c = lut16(s->lreg[i][l]);
		} else {
			uint32_t cut = mod & 1 ? 0x40800000u : 0x40400000u;   /* 4.0 or 3.0 */
			unsigned j = b < 0x3F000000u ? 0 : b < 0x3F800000u ? 16 : b < 0x3FC00000u ? 0 : b < 0x40000000u ? 16
				   : b < cut ? 0 : 16;
			a = lut16(s->lreg[i][l] >> j);
			c = lut16(s->lreg[4 + i][l] >> j);
		}
		uint32_t d = sfpu_mad(a, b, c);
		if (mod & 4)
			d = (d & 0x7FFFFFFFu) | (l3 & 0x80000000u);
		unsigned t = mod & 8 ? s->lreg[7][l] & 15 : vd;
		t = result_lreg(s, t);
		if (writable(t))
			s->lreg[t][l] = d;
	}
	return TT_OK;
}

/* SFPCONFIG (SFPCONFIG.md): LoadMacroConfig (0-3 instruction templates from LReg 0, 4-7 sequences,
 * 8 Misc with OR/AND/XOR), the programmable constants LReg 11-14 (from LReg 0 or their fixed
 * values), LaneConfig (15, with OR/AND/XOR; Imm16 leaves bits 17:16 alone), each lane taking
 * lane & 7 of LReg 0, gated by lane & 7's predication and, with bit 3, by the even bits of Imm16.
 * LaneConfig's BLOCK_DEST_MOV blocks columns of the matrix unit's MOV instructions
 * (lane_config_changed, cores/tensix_data.c). */
static enum tt_result sfpu_config(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	static const uint32_t imm_values[4] = { 0xBF800000u, 0x3B000000u, 0xBF2CC4C7u, 0xBEB08FF9u };
	unsigned mod1 = tt_bits(w, 3, 0), vd = tt_bits(w, 7, 4);
	uint32_t imm = tt_bits(w, 23, 8), lane_config[TT_SFPU_LANES];
	if ((mod1 & 6) && vd != 8 && vd != 15)
		return sfpu_bad_mode(th, w, mod1, "the OR/AND/XOR combinations apply to Misc (8) and LaneConfig (15) only");
	memcpy(lane_config, s->lane_config, sizeof lane_config);
	for (unsigned l = 0; vd == 15 && l < TT_SFPU_LANES; l++) {
		unsigned g = l & 7;
		if (((mod1 & 8) && !(imm >> (2 * g) & 1)) || ((s->use_flags >> g & 1) && !(s->flags >> g & 1)))
			continue;
		uint32_t v = mod1 & 1 ? imm : s->lreg[0][g] & LC_BITS, *c = &lane_config[l];
		uint32_t old = *c;
		*c = (mod1 & 6) == 2 ? *c | v : (mod1 & 6) == 4 ? *c & v : (mod1 & 6) == 6 ? *c ^ v : v;
		if (mod1 & 1)
			*c |= old & ~0xFFFFu;
	}
	if (vd == 15) {
		memcpy(s->lane_config, lane_config, sizeof lane_config);
		lane_config_changed(s);
		return TT_OK;
	}
	for (unsigned l = 0; l < TT_SFPU_LANES; l++) {
		unsigned g = l & 7;
		if ((mod1 & 8) && !(imm >> (2 * g) & 1))
			continue;
		if ((s->use_flags >> g & 1) && !(s->flags >> g & 1))
			continue;
		uint32_t v = mod1 & 1 ? imm : s->lreg[0][g];
		if (vd < 4) {
			s->lm_template[vd][l] = s->lreg[0][g];
		} else if (vd < 8) {
			s->lm_sequence[vd - 4][l] = v;
		} else if (vd == 8) {
			v &= 0xFFF;
			uint32_t *m = &s->lm_misc[l];
			*m = (mod1 & 6) == 2 ? *m | v : (mod1 & 6) == 4 ? *m & v : (mod1 & 6) == 6 ? *m ^ v : v;
		} else if (vd >= 11) {
			s->lreg[vd][l] = mod1 & 1 ? imm_values[vd - 11] : s->lreg[0][g];
		}
	}
	return TT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * SFPLOADMACRO (SFPLOADMACRO.md): an SFPLOAD, then up to one instruction for each of the simple,
 * MAD, round and store sub-units, chosen and delayed by LoadMacroConfig. bhemu counts one SFPU
 * cycle per instruction the unit receives (so both delay kinds, elapsed cycles and elapsed
 * instructions, count alike: a kernel that relies on idle cycles between its SFPU instructions is
 * not modelled) and executes every instruction in one cycle; a scheduled instruction due in a
 * cycle runs before the instruction the unit receives in it, and a received instruction of the
 * same sub-unit is discarded, as documented. Any other data-plane instruction first completes
 * what is scheduled (tt_sfpu_drain). Bit 6 of a sub-unit's sequence byte sends its result to
 * (or, for the store, takes its input from) LReg 16, the register only SFPLOADMACRO reaches. Not
 * modelled (named fault): LoadMacroConfig differing between lanes.
 */

enum { SU_SIMPLE, SU_MAD, SU_ROUND, SU_STORE, SU_LOAD };

static enum tt_result sfpu_dispatch(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w, unsigned src);

static unsigned sub_unit(unsigned op)
{
	switch (op) {
	case TT_OP_SFPMAD: case TT_OP_SFPADD: case TT_OP_SFPMUL: case TT_OP_SFPADDI: case TT_OP_SFPMULI:
	case TT_OP_SFPLUT: case TT_OP_SFPLUTFP32: case TT_OP_SFPMUL24:
		return SU_MAD;
	case TT_OP_SFP_STOCH_RND: case TT_OP_SFPSHFT2: return SU_ROUND;
	case TT_OP_SFPSTORE: return SU_STORE;
	case TT_OP_SFPLOAD: case TT_OP_SFPLOADI: case TT_OP_SFPLOADMACRO: case TT_OP_SFPNOP: return SU_LOAD;
	default: return SU_SIMPLE;
	}
}

static enum tt_result sched_run(struct bh_tt_thread *th, struct tt_sfpu *s, struct tt_sfpu_sched *e)
{
	e->valid = 0;
	atomic_fetch_sub_explicit(&s->pending, 1, memory_order_relaxed);
	if (e->unit == SU_STORE) {   /* no ADDR_MOD, the macro's address, every enabled lane */
		store_lanes(th->tx->dp, s, e->to16 ? 16 : tt_bits(e->word, 23, 20), tt_bits(e->word, 19, 16), e->addr,
			    enabled(s));
		return TT_OK;
	}
	s->to16 = e->to16;
	enum tt_result r = sfpu_dispatch(th, s, e->word, e->src);
	s->to16 = 0;
	return r;
}

/* Runs what is due by cycle `upto` in cycle order, sub-units in order within a cycle; returns the
 * sub-units that ran in cycle `upto` (bit u). */
static enum tt_result sched_until(struct bh_tt_thread *th, struct tt_sfpu *s, uint64_t upto, unsigned *ran)
{
	*ran = 0;
	for (;;) {
		struct tt_sfpu_sched *next = NULL;
		for (unsigned k = 0; k < 16; k++) {
			struct tt_sfpu_sched *e = &s->sched[k];
			if (e->valid && e->due <= upto &&
			    (!next || e->due < next->due || (e->due == next->due && e->unit < next->unit)))
				next = e;
		}
		if (!next)
			return TT_OK;
		if (next->due == upto)
			*ran |= 1u << next->unit;
		enum tt_result r = sched_run(th, s, next);
		if (r != TT_OK)
			return r;
	}
}

void tt_sfpu_drain(struct bh_tt_thread *th)
{
	struct tt_sfpu *s = th->tx->dp->sfpu;
	unsigned ran;
	if (!atomic_load_explicit(&s->pending, memory_order_relaxed))
		return;
	bh_lock(&s->lock);
	sched_until(th, s, UINT64_MAX, &ran);
	bh_unlock(&s->lock);
}

static bool lanes_agree(const uint32_t v[TT_SFPU_LANES])
{
	for (unsigned l = 1; l < TT_SFPU_LANES; l++)
		if (v[l] != v[0])
			return false;
	return true;
}

static enum tt_result sfpu_loadmacro(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w)
{
	unsigned ind = tt_bits(w, 23, 20), macro = ind >> 2, mod0 = tt_bits(w, 19, 16), imm13 = tt_bits(w, 12, 0);
	unsigned vd = (imm13 & 1) << 2 | (ind & 3), addr;
	if (!lanes_agree(s->lm_sequence[macro]) || !lanes_agree(s->lm_misc))
		return sfpu_unmodelled(th, w, "with LoadMacroConfig differing between lanes is not modelled");
	/* The SFPLOAD part: VD and Imm10 = Imm9 << 1 | VDHi, repacked into an SFPLOAD word. */
	uint32_t load = (uint32_t)TT_OP_SFPLOAD << 24 | vd << 20 | mod0 << 16 | tt_bits(w, 15, 13) << 13 | (imm13 & 0x3FF);
	unsigned rmod0 = resolve_mod0(th, mod0);
	if (!sfpu_addr(th, load, rmod0, &addr))
		return TT_FAULT;
	enum tt_result r = sfpu_load(th, s, load);
	if (r != TT_OK)
		return r;
	uint32_t seq = s->lm_sequence[macro][0], misc = s->lm_misc[0];
	for (unsigned u = 0; u < 4; u++) {
		unsigned bits = seq >> (8 * u) & 0xFF, sel = bits & 7, delay = bits >> 3 & 7;
		uint64_t due = s->cycle + 1 + delay;
		if (sel == 0)
			continue;
		if (delay != 7)   /* forget what this sub-unit had for the same cycle */
			for (unsigned k = 0; k < 16; k++)
				if (s->sched[k].valid && s->sched[k].unit == u && s->sched[k].due == due) {
					s->sched[k].valid = 0;
					atomic_fetch_sub_explicit(&s->pending, 1, memory_order_relaxed);
				}
		if (sel == 1)
			return sfpu_unmodelled(th, w, "sequence selector 1 is undefined");
		uint32_t insn;
		if (sel == 2) {
			insn = (uint32_t)TT_OP_SFPNOP << 24;
		} else if (sel == 3) {
			insn = (uint32_t)TT_OP_SFPSTORE << 24;
		} else {
			if (!lanes_agree(s->lm_template[sel - 4]))
				return sfpu_unmodelled(th, w, "with LoadMacroConfig differing between lanes is not modelled");
			insn = s->lm_template[sel - 4][0];
		}
		unsigned op = insn >> 24, tvd = tt_bits(insn, 7, 4), src = tvd;
		if (sub_unit(op) != u && op != TT_OP_SFPNOP)   /* not for this sub-unit: an SFPNOP */
			insn = (uint32_t)TT_OP_SFPNOP << 24, op = TT_OP_SFPNOP;
		if (u == SU_STORE && op != TT_OP_SFPSTORE)
			return sfpu_unmodelled(th, w, "scheduling a non-SFPSTORE on the store sub-unit is undefined");
		if (u == SU_STORE) {
			unsigned svd = bits & 0x80 ? tt_bits(insn, 23, 20) : vd;
			unsigned smod0 = misc >> (4 + macro) & 1 ? mod0 : misc & 15;
			insn = (uint32_t)TT_OP_SFPSTORE << 24 | svd << 20 | resolve_mod0(th, smod0) << 16;
		} else if (op != TT_OP_SFPNOP) {
			bool imm_form = op == TT_OP_SFPADDI || op == TT_OP_SFPMULI;
			if (bits & 0x80) {   /* VB = VD: the loaded LReg is the second source */
				src = vd;
				if (!imm_form && (u != SU_SIMPLE || op == TT_OP_SFPAND || op == TT_OP_SFPOR))
					insn = (insn & ~0xF000u) | vd << 12;
			} else {             /* VC = VD */
				if (imm_form)
					src = vd;
				else
					insn = (insn & ~0xF00u) | vd << 8;
			}
			insn = (insn & ~0xF0u) | vd << 4;
		}
		struct tt_sfpu_sched *e = NULL;
		for (unsigned k = 0; k < 16 && !e; k++)
			if (!s->sched[k].valid)
				e = &s->sched[k];
		if (!e)
			return sfpu_unmodelled(th, w, "with more than 16 instructions outstanding");
		*e = (struct tt_sfpu_sched){ .due = due, .word = insn, .addr = (uint16_t)addr, .unit = (uint8_t)u,
					     .src = (uint8_t)src, .to16 = (uint8_t)(bits >> 6 & 1), .valid = 1 };
		atomic_fetch_add_explicit(&s->pending, 1, memory_order_relaxed);
	}
	return TT_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Dispatch.
 */

/* The VD field of an instruction: bits 23:20 for SFPLOAD, SFPLOADI, SFPSTORE and SFPLUT. */
static unsigned vd_field(uint32_t w)
{
	unsigned op = tt_opcode_of(w);
	return op >= TT_OP_SFPLOAD && op <= TT_OP_SFPLUT ? tt_bits(w, 23, 20) : tt_bits(w, 7, 4);
}

/* LaneConfig.DISABLE_BACKDOOR_LOAD clear (the default): an instruction with VD 12-15 is no
 * instruction but a write of its own bits to LoadMacroConfig's InstructionTemplate[VD - 12]
 * (SFPCONFIG.md; SFPCONFIG and SFPLOADMACRO themselves excepted). Returns false when w executes
 * as an instruction; *r: the result of the write. */
static bool sfpu_backdoor(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w, enum tt_result *r)
{
	unsigned op = tt_opcode_of(w), vd = vd_field(w);
	if (vd < 12 || op == TT_OP_SFPCONFIG || op == TT_OP_SFPLOADMACRO)
		return false;
	uint32_t lanes = ~lanes_with(s, LC_NO_BACKDOOR);
	if (!lanes)
		return false;
	*r = TT_OK;
	if (lanes != ALL_LANES)
		*r = sfpu_unmodelled(th, w, "with VD 12-15 and LaneConfig.DISABLE_BACKDOOR_LOAD differing between lanes "
				     "is not modelled");
	else if (enabled(s) != ALL_LANES)
		*r = sfpu_unmodelled(th, w, "with VD 12-15 (a back-door write of LoadMacroConfig) while lanes are disabled "
				     "is not modelled: whether they take the write is not documented");
	else
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			s->lm_template[vd - 12][l] = w;
	return true;
}

static enum tt_result sfpu_execute_one(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w, unsigned src);

/* Erratum TEN-2932 (as ttsim's Blackhole model enforces it): while LaneConfig.ENABLE_DEST_INDEX
 * is set, an instruction other than the loads, SFPSWAP, SFPTRANSP and SFPCONFIG that writes
 * LReg 4-7 writes an undefined index value instead of its result. bhemu reports it (check
 * sfpu-erratum) and leaves the LReg as it was in the lanes with the bit set. */
static enum tt_result sfpu_dispatch(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w, unsigned src)
{
	unsigned op = tt_opcode_of(w), vd = vd_field(w);
	if (!(s->lc_any & LC_DEST_INDEX) || s->to16 || vd < 4 || vd > 7 || op <= TT_OP_SFPSTORE || op == TT_OP_SFPCONFIG ||
	    op == TT_OP_SFPSWAP || op == TT_OP_SFPTRANSP || op == TT_OP_SFPLOADMACRO || op == TT_OP_SFPSETCC ||
	    op == TT_OP_SFPENCC || op == TT_OP_SFPCOMPC || op == TT_OP_SFPPUSHC || op == TT_OP_SFPPOPC || op == TT_OP_SFPNOP)
		return sfpu_execute_one(th, s, w, src);
	uint32_t lanes = lanes_with(s, LC_DEST_INDEX), keep[TT_SFPU_LANES];
	char why[128];
	snprintf(why, sizeof why, "erratum TEN-2932: %s writes LReg %u with ENABLE_DEST_INDEX set: undefined on silicon "
		 "(LReg kept)", tt_opinfo(op)->name, vd);
	enum tt_result r = sfpu_erratum(th, w, why);
	if (r != TT_OK)
		return r;
	memcpy(keep, s->lreg[vd], sizeof keep);
	r = sfpu_execute_one(th, s, w, src);
	for (unsigned l = 0; l < TT_SFPU_LANES; l++)
		if (lanes >> l & 1)
			s->lreg[vd][l] = keep[l];
	return r;
}

/* One instruction; src: the implicit second source (VD unless SFPLOADMACRO overrides it). */
static enum tt_result sfpu_execute_one(struct bh_tt_thread *th, struct tt_sfpu *s, uint32_t w, unsigned src)
{
	switch (tt_opcode_of(w)) {
	case TT_OP_SFPLOAD: return sfpu_load(th, s, w);
	case TT_OP_SFPSTORE: return sfpu_store(th, s, w);
	case TT_OP_SFPLOADI: return sfpu_loadi(th, s, w);
	case TT_OP_SFPMAD: case TT_OP_SFPADD: case TT_OP_SFPMUL: case TT_OP_SFPADDI: case TT_OP_SFPMULI:
		return sfpu_mad_insn(s, w, src);
	case TT_OP_SFPMUL24: return sfpu_mul24(th, s, w);
	case TT_OP_SFPSETCC: return sfpu_setcc(th, s, w);
	case TT_OP_SFPGT: case TT_OP_SFPLE: return sfpu_cmp(s, w);
	case TT_OP_SFPENCC: return sfpu_encc(s, w);
	case TT_OP_SFPPUSHC: return sfpu_pushc(th, s, w);
	case TT_OP_SFPPOPC: return sfpu_popc(th, s, w);
	case TT_OP_SFPCOMPC: return sfpu_compc(s);
	case TT_OP_SFPSWAP: return sfpu_swap(th, s, w);
	case TT_OP_SFPTRANSP: return sfpu_transp(s);
	case TT_OP_SFPSHFT2: return sfpu_shft2(th, s, w);
	case TT_OP_SFP_STOCH_RND: return sfpu_stochrnd(th, s, w);
	case TT_OP_SFPCONFIG: return sfpu_config(th, s, w);
	case TT_OP_SFPNOP: return TT_OK;
	case TT_OP_SFPLUT: case TT_OP_SFPLUTFP32: return sfpu_lut(s, w);
	case TT_OP_SFPARECIP: return sfpu_arecip(s, w);
	case TT_OP_SFPLOADMACRO: return sfpu_loadmacro(th, s, w);
	default: return sfpu_simple(th, s, w, src);
	}
}

enum tt_result tt_sfpu_execute(struct bh_tt_thread *th, uint32_t w)
{
	struct tt_sfpu *s = th->tx->dp->sfpu;
	unsigned ran = 0;
	bh_lock(&s->lock);
	s->cycle++;
	enum tt_result r = atomic_load_explicit(&s->pending, memory_order_relaxed) ? sched_until(th, s, s->cycle, &ran)
										  : TT_OK;
	/* A received instruction meeting a scheduled one on its sub-unit is discarded. */
	if (r == TT_OK && !(ran >> sub_unit(tt_opcode_of(w)) & 1) && !sfpu_backdoor(th, s, w, &r))
		r = sfpu_dispatch(th, s, w, tt_bits(w, 7, 4));
	bh_unlock(&s->lock);
	return r;
}
