/* Tensix number formats and conversions (cores/tensix_fmt.h). Rules per function, from
 * tt-isa-documentation FloatBitPatterns.md, UNPACR_Regular.md and Packers/FormatConversion.md. */
#include <stddef.h>

#include "cores/tensix_fmt.h"

static const struct tt_fmt_info fmt_table[TT_FMT_COUNT] = {
	[TT_FMT_FP32] = { "FP32", 32, 8, 23, false, false },
	[TT_FMT_FP16] = { "FP16", 16, 5, 10, false, false },
	[TT_FMT_BFP8A] = { "BFP8a", 8, 5, 7, true, false },
	[TT_FMT_BFP4A] = { "BFP4a", 4, 5, 3, true, false },
	[TT_FMT_TF32] = { "TF32", 32, 8, 10, false, false },
	[TT_FMT_BF16] = { "BF16", 16, 8, 7, false, false },
	[TT_FMT_BFP8] = { "BFP8", 8, 8, 7, true, false },
	[TT_FMT_BFP4] = { "BFP4", 4, 8, 3, true, false },
	[TT_FMT_INT32] = { "INT32", 32, 0, 31, false, true },
	[TT_FMT_INT16] = { "INT16", 16, 0, 15, false, true },
	[TT_FMT_FP8] = { "FP8", 8, 5, 2, false, false },
	[TT_FMT_BFP2A] = { "BFP2a", 2, 5, 1, true, false },
	[TT_FMT_INT8] = { "INT8", 8, 0, 7, false, true },
	[TT_FMT_BFP2] = { "BFP2", 2, 8, 1, true, false },
};

const struct tt_fmt_info *tt_fmt_info(unsigned code)
{
	return &fmt_table[code & 15];
}

unsigned tt_fmt_bytes(unsigned code, unsigned n)
{
	const struct tt_fmt_info *f = tt_fmt_info(code);
	return n * f->l1_bits / 8 + (f->bfp ? n / 16 : 0);
}

uint16_t tt_fp32_to_fp16(uint32_t x, enum tt_round r)
{
	uint16_t sign = (uint16_t)(x >> 16 & 0x8000u);
	int exp = (int)(x >> 23 & 0xFF) - 112;
	if (exp >= 32)   /* also infinity and NaN */
		return sign | 0x7FFF;
	if (exp <= 0)
		return sign;
	uint32_t m = tt_round_bits(x & 0x7FFFFFu, 13, r);
	if (m >> 23) {                       /* rounding carried into the exponent */
		m = 0;
		if (++exp >= 32)
			return sign | 0x7FFF;
	}
	return (uint16_t)(sign | (unsigned)exp << 10 | m >> 13);
}

uint32_t tt_fp16_to_fp32(uint16_t x)
{
	uint32_t sign = (uint32_t)(x & 0x8000u) << 16, exp = x >> 10 & 0x1F;
	if (exp == 0)
		return sign;
	return sign | (exp + 112) << 23 | (uint32_t)(x & 0x3FFu) << 13;
}

/* BFP8ToBF16 / BFP8aToFP16 of UNPACR_Regular.md: the datum widened to 8 bits, the magnitude
 * normalised by its leading zeros, which come off the (8-bit, wrapping) exponent. */
static unsigned bfp_normalise(uint8_t datum, unsigned bits, uint8_t *exp, uint8_t *mag)
{
	uint8_t d = (uint8_t)(datum << (8 - bits));
	uint8_t m = (uint8_t)(d << 1);
	if (m) {
		unsigned lz = (unsigned)__builtin_clz(m) - 24;
		m = (uint8_t)(m << lz);
		*exp = (uint8_t)(*exp - lz);
	}
	*mag = m;
	return d >> 7;
}

uint16_t tt_bfp_to_bf16(uint8_t datum, unsigned bits, uint8_t exp)
{
	uint8_t mag;
	unsigned sign = bfp_normalise(datum, bits, &exp, &mag);
	if (mag == 0)
		return sign ? 0xFF80 : 0;
	return (uint16_t)(sign << 15 | (unsigned)exp << 7 | (mag & 0x7Eu));
}

uint16_t tt_bfpa_to_fp16(uint8_t datum, unsigned bits, uint8_t exp, bool *undefined)
{
	uint8_t mag;
	unsigned sign = bfp_normalise(datum, bits, &exp, &mag);
	*undefined = false;
	if (mag == 0)
		return sign ? 0xFC00 : 0;
	if (exp & 0xE0)
		*undefined = true;
	return (uint16_t)(sign << 15 | (unsigned)(exp & 0x1F) << 10 | (unsigned)(mag & 0x7Eu) << 3);
}

uint16_t tt_fp32_to_e5m7(uint32_t x)
{
	uint16_t sign = (uint16_t)(x >> 16 & 0x8000u);
	int exp = (int)(x >> 23 & 0xFF) - 112;
	if (exp >= 32)
		return sign | 31u << 7 | 0x7F;
	if (exp <= 0)
		return 0;
	return (uint16_t)(sign | (unsigned)exp << 7 | (x >> 16 & 0x7Fu));
}

void tt_bfp_encode(const uint16_t in[16], unsigned bits, uint8_t *exp, uint8_t datums[16])
{
	unsigned shared = 0;
	for (unsigned k = 0; k < 16; k++)
		if ((in[k] >> 7 & 0xFFu) > shared)
			shared = in[k] >> 7 & 0xFFu;
	*exp = (uint8_t)shared;
	for (unsigned k = 0; k < 16; k++) {
		unsigned e = in[k] >> 7 & 0xFFu, mag = 0;
		if (e) {
			/* 1.m (8 bits, value m8 / 2^7) to 7 magnitude bits of value mag / 2^6 at the
			 * shared exponent: a right shift by one more than the exponent difference. */
			unsigned m8 = 0x80u | (in[k] & 0x7Fu), sh = shared - e + 1;
			mag = sh > 9 ? 0 : (m8 + (1u << (sh - 1))) >> sh;
			if (mag > 127)
				mag = 127;
		}
		mag >>= 8 - bits;                /* BFP4 / BFP2: the top bits of the BFP8 magnitude */
		unsigned sign = mag ? in[k] >> 15 : 0;
		datums[k] = (uint8_t)(sign << (bits - 1) | mag);
	}
}

uint32_t tt_int_to_sm32(int64_t v)
{
	const int64_t max = 0x7FFFFFFF;
	if (v > max)
		v = max;
	if (v < -max)
		v = -max;
	return v < 0 ? 0x80000000u | (uint32_t)-v : (uint32_t)v;
}

uint16_t tt_int8_to_fp16_overlay(uint8_t x, bool is_unsigned)
{
	unsigned sign = is_unsigned ? 0 : x & 0x80u, d = x - sign;
	if (d)
		d |= 16u << 10;
	return (uint16_t)(d | sign << 8);
}
