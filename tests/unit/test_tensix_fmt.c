/* Tensix number formats (cores/tensix_fmt.h) against host arithmetic written from the documented
 * rules (FloatBitPatterns.md, UNPACR_Regular.md, Packers/FormatConversion.md): values are
 * compared as numbers computed with the host's double arithmetic, not as re-derived bit tricks. */
#include <criterion/criterion.h>
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cores/tensix_fmt.h"

static float f_of(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t b_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static double bf16_val(uint16_t x) { return f_of((uint32_t)x << 16); }
/* The coprocessor's FP16 read as a number: exponent 31 is a normal exponent, no NaN. */
static double fp16_val(uint16_t x)
{
	int e = x >> 10 & 31;
	double m = x & 0x3FF, v = e ? ldexp(1 + m / 1024, e - 15) : ldexp(m / 1024, -14);
	return x & 0x8000 ? -v : v;
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s;
}

Test(tensix_fmt, table_names_each_code_and_sizes_a_32x32_tile)
{
	static const struct { unsigned code; const char *name; unsigned tile; } want[] = {
		{ TT_FMT_FP32, "FP32", 4096 }, { TT_FMT_TF32, "TF32", 4096 }, { TT_FMT_INT32, "INT32", 4096 },
		{ TT_FMT_FP16, "FP16", 2048 }, { TT_FMT_BF16, "BF16", 2048 }, { TT_FMT_INT16, "INT16", 2048 },
		{ TT_FMT_BFP8, "BFP8", 1088 }, { TT_FMT_BFP8A, "BFP8a", 1088 }, { TT_FMT_BFP4, "BFP4", 576 },
		{ TT_FMT_BFP4A, "BFP4a", 576 }, { TT_FMT_BFP2, "BFP2", 320 }, { TT_FMT_BFP2A, "BFP2a", 320 },
		{ TT_FMT_INT8, "INT8", 1024 }, { TT_FMT_FP8, "FP8", 1024 },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		cr_assert_str_eq(tt_fmt_info(want[k].code)->name, want[k].name);
		cr_assert_eq(tt_fmt_bytes(want[k].code, 1024), want[k].tile, "%s", want[k].name);
	}
	cr_assert_null(tt_fmt_info(12)->name);
	cr_assert_null(tt_fmt_info(13)->name);
	cr_assert_eq(tt_fmt_info(TT_FMT_BFP8A)->exp_bits, 5);
	cr_assert_eq(tt_fmt_info(TT_FMT_BFP8)->exp_bits, 8);
}

/* Rounding of FP32 to BF16: the three modes against the host's nearest value. */
Test(tensix_fmt, fp32_to_bf16_rounds_ties_by_mode_and_flushes_denormals_nan_and_minus_zero)
{
	/* 1 + 2^-8 is the tie between 1 and 1 + 2^-7. */
	cr_assert_eq(tt_fp32_to_bf16(0x3F808000u, TT_ROUND_TRUNC), 0x3F80);
	cr_assert_eq(tt_fp32_to_bf16(0x3F808000u, TT_ROUND_NEAREST_EVEN), 0x3F80);
	cr_assert_eq(tt_fp32_to_bf16(0x3F808000u, TT_ROUND_NEAREST_AWAY), 0x3F81);
	cr_assert_eq(tt_fp32_to_bf16(0x3F818000u, TT_ROUND_NEAREST_EVEN), 0x3F82);   /* tie, odd: up */
	cr_assert_eq(tt_fp32_to_bf16(0xBF808000u, TT_ROUND_NEAREST_AWAY), 0xBF81);   /* away from zero */
	cr_assert_eq(tt_fp32_to_bf16(0x3F807FFFu, TT_ROUND_NEAREST_AWAY), 0x3F80);   /* below the tie */
	/* Carry into the exponent; past the largest finite value to the infinity pattern. */
	cr_assert_eq(tt_fp32_to_bf16(0x3FFFFFFFu, TT_ROUND_NEAREST_EVEN), 0x4000);
	cr_assert_eq(tt_fp32_to_bf16(0x7F7FFFFFu, TT_ROUND_NEAREST_AWAY), 0x7F80);
	/* Rounding flushes denormals and -0 to +0 and turns NaN into infinity; truncation does not. */
	cr_assert_eq(tt_fp32_to_bf16(0x00400000u, TT_ROUND_NEAREST_EVEN), 0);
	cr_assert_eq(tt_fp32_to_bf16(0x80400000u, TT_ROUND_NEAREST_AWAY), 0);
	cr_assert_eq(tt_fp32_to_bf16(0x80000000u, TT_ROUND_NEAREST_AWAY), 0);
	cr_assert_eq(tt_fp32_to_bf16(0x00400000u, TT_ROUND_TRUNC), 0x0040);
	cr_assert_eq(tt_fp32_to_bf16(0x7FC00001u, TT_ROUND_NEAREST_EVEN), 0x7F80);
	cr_assert_eq(tt_fp32_to_bf16(0xFF800001u, TT_ROUND_NEAREST_AWAY), 0xFF80);
	cr_assert_eq(tt_fp32_to_bf16(0x7FC00001u, TT_ROUND_TRUNC), 0x7FC0);

	/* Random normal values: RNE matches the host's nearest-even quantisation. */
	uint32_t s = 7;
	fesetround(FE_TONEAREST);
	for (int k = 0; k < 20000; k++) {
		uint32_t x = lcg(&s) & 0xBFFFFFFFu;   /* exponents up to 127 + 0x3F: no overflow */
		if (!(x & 0x7F800000u))
			continue;
		double v = f_of(x), ulp = ldexp(1, ilogb(v) - 7), want = nearbyint(v / ulp) * ulp;
		cr_assert_eq(bf16_val(tt_fp32_to_bf16(x, TT_ROUND_NEAREST_EVEN)), want, "0x%08x", x);
		double away = (double)(int64_t)(fabs(v) / ulp + 0.5) * ulp * (v < 0 ? -1 : 1);
		cr_assert_eq(bf16_val(tt_fp32_to_bf16(x, TT_ROUND_NEAREST_AWAY)), away, "0x%08x", x);
		cr_assert_eq(bf16_val(tt_fp32_to_bf16(x, TT_ROUND_TRUNC)), trunc(v / ulp) * ulp, "0x%08x", x);
	}
}

Test(tensix_fmt, fp32_round_to_tf32_keeps_ten_mantissa_bits)
{
	cr_assert_eq(tt_fp32_round(0x3F801000u, 10, TT_ROUND_NEAREST_AWAY), 0x3F802000u);
	cr_assert_eq(tt_fp32_round(0x3F801000u, 10, TT_ROUND_NEAREST_EVEN), 0x3F800000u);
	cr_assert_eq(tt_fp32_round(0x3F801FFFu, 10, TT_ROUND_TRUNC), 0x3F800000u);
}

/* FP32 to FP16: the host's IEEE conversion where both agree (normal range), the coprocessor's
 * saturation and flushing outside it. */
Test(tensix_fmt, fp32_to_fp16_matches_ieee_in_range_and_saturates_outside)
{
	uint32_t s = 11;
	for (int k = 0; k < 20000; k++) {
		/* |x| in [2^-14, 2^15]: exponents 113..142 */
		uint32_t x = (lcg(&s) & 0x807FFFFFu) | (113u + lcg(&s) % 30) << 23;
		_Float16 h = (_Float16)f_of(x);
		uint16_t hb;
		memcpy(&hb, &h, 2);
		cr_assert_eq(tt_fp32_to_fp16(x, TT_ROUND_NEAREST_EVEN), hb, "0x%08x", x);
		cr_assert_eq(fp16_val(tt_fp32_to_fp16(x, TT_ROUND_TRUNC)), f_of(x & 0xFFFFE000u), "0x%08x", x);
		/* back to FP32 is exact */
		cr_assert_eq(tt_fp16_to_fp32(hb), b_of((float)h), "0x%04x", hb);
	}
	/* 2^16 and up (exponent 31 is finite here: the largest value is 0x7FFF = 131008) */
	cr_assert_eq(fp16_val(0x7FFF), 131008.0);
	cr_assert_eq(tt_fp32_to_fp16(b_of(65536.f), TT_ROUND_TRUNC), 0x7C00);      /* 2^16 is representable */
	cr_assert_eq(tt_fp32_to_fp16(b_of(131072.f), TT_ROUND_TRUNC), 0x7FFF);     /* 2^17 saturates */
	cr_assert_eq(tt_fp32_to_fp16(0xFF800000u, TT_ROUND_TRUNC), 0xFFFF);        /* -inf */
	cr_assert_eq(tt_fp32_to_fp16(0x7FC00000u, TT_ROUND_NEAREST_EVEN), 0x7FFF); /* NaN */
	cr_assert_eq(tt_fp32_to_fp16(0x477FFFFFu, TT_ROUND_NEAREST_EVEN), 0x7C00); /* rounds up into 2^16 */
	cr_assert_eq(tt_fp32_to_fp16(0x47FFFFFFu, TT_ROUND_NEAREST_EVEN), 0x7FFF); /* rounds past the top */
	/* below 2^-14 (FP16 denormals): zero of the sign */
	cr_assert_eq(tt_fp32_to_fp16(b_of(0x1p-15f), TT_ROUND_NEAREST_EVEN), 0);
	cr_assert_eq(tt_fp32_to_fp16(b_of(-0x1.8p-15f), TT_ROUND_TRUNC), 0x8000);
	cr_assert_eq(tt_fp16_to_fp32(0x0200), 0);
	cr_assert_eq(tt_fp16_to_fp32(0xFFFF), b_of(-131008.f));
}

/* BFP decode: each datum is sign * magnitude / 2^(bits-2) * 2^(exp - bias), as FloatBitPatterns.md
 * tabulates, for every datum and a spread of exponents; sign with magnitude 0 is the -2^128
 * (BF16 0xFF80) or -2^16 (FP16 0xFC00) pattern. */
Test(tensix_fmt, bfp_datums_decode_to_the_documented_values)
{
	static const unsigned widths[] = { 8, 4, 2 };
	for (size_t w = 0; w < 3; w++) {
		unsigned bits = widths[w], magbits = bits - 1;
		for (unsigned exp = 10; exp < 250; exp += 7) {
			for (unsigned d = 0; d < 1u << bits; d++) {
				unsigned mag = d & ((1u << magbits) - 1), sign = d >> magbits;
				uint16_t b = tt_bfp_to_bf16((uint8_t)d, bits, (uint8_t)exp);
				if (!mag) {
					cr_assert_eq(b, sign ? 0xFF80 : 0, "bits %u d %u", bits, d);
					continue;
				}
				double want = ldexp(mag, (int)exp - 127 - ((int)magbits - 1));
				cr_assert_eq(bf16_val(b), sign ? -want : want, "bits %u exp %u d 0x%x", bits, exp, d);
			}
		}
		for (unsigned exp = 7; exp < 32; exp++) {
			for (unsigned d = 0; d < 1u << bits; d++) {
				unsigned mag = d & ((1u << magbits) - 1), sign = d >> magbits;
				bool undef;
				uint16_t h = tt_bfpa_to_fp16((uint8_t)d, bits, (uint8_t)exp, &undef);
				cr_assert_not(undef);
				if (!mag) {
					cr_assert_eq(h, sign ? 0xFC00 : 0);
					continue;
				}
				double want = ldexp(mag, (int)exp - 15 - ((int)magbits - 1));
				cr_assert_eq(fp16_val(h), sign ? -want : want, "a bits %u exp %u d 0x%x", bits, exp, d);
			}
		}
	}
	bool undef;
	tt_bfpa_to_fp16(0x01, 8, 3, &undef);   /* normalising by 6 takes exponent 3 below 0 */
	cr_assert(undef);
}

/* BFP encode: the shared exponent is the group's largest, others shift onto it with rounding to
 * nearest (ties away) and lose what falls below; decoding the result gives the host's value of
 * that rounding. */
Test(tensix_fmt, bfp8_encode_shares_the_largest_exponent_and_rounds_ties_away)
{
	uint16_t in[16];
	for (int k = 0; k < 16; k++)
		in[k] = 0x3F80;                            /* 1.0 */
	in[3] = 0x4100;                                /* 8.0: shared exponent 130 */
	in[4] = 0xBF90;                                /* -1.125 */
	in[5] = 0x3FC0;                                /* 1.5 */
	in[6] = 0x3C00;                                /* 2^-7: below 2^-6 of the shared scale, rounds to 0 */
	in[7] = 0x3D80;                                /* 2^-4: exactly half a step, a tie: away, to 1 */
	in[8] = 0x0000;
	in[9] = 0x8000;                                /* -0: magnitude 0, sign cleared */
	uint8_t exp, d[16];
	tt_bfp_encode(in, 8, &exp, d);
	cr_assert_eq(exp, 130);
	double scale = ldexp(1, 130 - 127 - 6);        /* value of one magnitude step */
	for (int k = 0; k < 16; k++) {
		double v = bf16_val(in[k]), q = fabs(v) / scale, want = floor(q + 0.5) * scale * (v < 0 ? -1 : 1);
		cr_assert_eq(bf16_val(tt_bfp_to_bf16(d[k], 8, exp)), want, "datum %d", k);
	}
	cr_assert_eq(d[3], 64);                        /* 8.0 = 64 * 2^-6 * 2^3 */
	cr_assert_eq(d[6], 0);
	cr_assert_eq(d[7], 1);
	cr_assert_eq(d[9], 0);
	cr_assert_eq(d[4], 0x80 | 9);                  /* -1.125 = -9 steps of 2^-3 */

	/* BFP4 and BFP2 keep the top bits of the BFP8 magnitude (truncation). */
	uint8_t d4[16], d2[16], e4, e2;
	tt_bfp_encode(in, 4, &e4, d4);
	tt_bfp_encode(in, 2, &e2, d2);
	cr_assert_eq(e4, 130);
	cr_assert_eq(d4[3], 64 >> 4);
	cr_assert_eq(d4[5], 0);                        /* 1.5 at scale 8: magnitude 12 >> 4 = 0 */
	cr_assert_eq(d2[3], 1);
	cr_assert_eq(bf16_val(tt_bfp_to_bf16(d4[3], 4, e4)), 8.0);
	cr_assert_eq(bf16_val(tt_bfp_to_bf16(d2[3], 2, e2)), 8.0);

	/* Rounding up past 127 saturates. */
	for (int k = 0; k < 16; k++)
		in[k] = 0x3FFF;                            /* 1.9921875: 255/128, magnitude 127.5 */
	tt_bfp_encode(in, 8, &exp, d);
	cr_assert_eq(d[0], 127);
}

Test(tensix_fmt, bfp8a_encode_via_e5m7_saturates_the_exponent)
{
	cr_assert_eq(tt_fp32_to_e5m7(b_of(1.0f)), 15u << 7);
	cr_assert_eq(tt_fp32_to_e5m7(b_of(-3.0f)), 0x8000 | 16u << 7 | 0x40);
	cr_assert_eq(tt_fp32_to_e5m7(b_of(1e6f)), 31u << 7 | 0x7F);
	cr_assert_eq(tt_fp32_to_e5m7(b_of(1e-6f)), 0);
	uint16_t in[16] = { 0 };
	in[0] = tt_fp32_to_e5m7(b_of(2.0f));
	in[1] = tt_fp32_to_e5m7(b_of(-0.5f));
	uint8_t exp, d[16];
	bool undef;
	tt_bfp_encode(in, 8, &exp, d);
	cr_assert_eq(exp, 16);
	cr_assert_eq(fp16_val(tt_bfpa_to_fp16(d[0], 8, exp, &undef)), 2.0);
	cr_assert_eq(fp16_val(tt_bfpa_to_fp16(d[1], 8, exp, &undef)), -0.5);
}

Test(tensix_fmt, integers_are_sign_magnitude_and_saturate)
{
	cr_assert_eq(tt_int_to_sm32(-5), 0x80000005u);
	cr_assert_eq(tt_int_to_sm32(5), 5u);
	cr_assert_eq(tt_int_to_sm32(0x100000000ll), 0x7FFFFFFFu);
	cr_assert_eq(tt_int_to_sm32(-0x100000000ll), 0xFFFFFFFFu);
	cr_assert_eq(tt_sm32_to_int(0x80000007u), -7);
	cr_assert_eq(tt_sm32_to_int(0x80000000u), 0);   /* -0 */
	/* INT8 to the FP16 overlay: raw exponent 16, 0 for magnitude 0 */
	cr_assert_eq(tt_int8_to_fp16_overlay(0x85, false), 0x8000 | 16u << 10 | 5);
	cr_assert_eq(tt_int8_to_fp16_overlay(0x85, true), 16u << 10 | 0x85);
	cr_assert_eq(tt_int8_to_fp16_overlay(0x80, false), 0x8000);
	cr_assert_eq(tt_int8_to_fp16_overlay(0, false), 0);
	cr_assert_eq(tt_fp16_overlay_to_int(tt_int8_to_fp16_overlay(0xFF, false)), -127);
	cr_assert_eq(tt_fp16_overlay_to_int(tt_int8_to_fp16_overlay(0xFF, true)), 255);
}

Test(tensix_fmt, register_layouts_move_the_exponent_below_the_mantissa)
{
	/* BF16 1.5 = 0x3FC0: sign 0, exponent 0x7F, mantissa 0x40 */
	cr_assert_eq(tt_src_hw_of_cell(tt_src_from_bf16(0x3FC0)), 0x40u << 3 << 8 | 0x7F);   /* the hardware's Src layout */
	cr_assert_eq(tt_src_from_bf16(0x3FC0), 0x3FC0u << 3);                             /* bhemu's cell: IEEE order */
	cr_assert_eq(tt_dst_from_bf16(0x3FC0), 0x40u << 8 | 0x7F);
	cr_assert_eq(tt_dst_to_bf16(tt_dst_from_bf16(0xBFC1)), 0xBFC1);
	/* FP16 -1.5 = 0xBE00: exponent 15 in the low five bits */
	cr_assert_eq(tt_src_hw_of_cell(tt_src_from_fp16(0xBE00)), 0x40000u | 0x200u << 8 | 15);
	cr_assert_eq(tt_src_to_fp16(tt_src_from_fp16(0xBE00)), 0xBE00);
	cr_assert_eq(tt_dst_from_fp16(0xBE00), 0x8000u | 0x200u << 5 | 15);
	cr_assert_eq(tt_dst_to_fp16(tt_dst_from_fp16(0x7FFF)), 0x7FFF);
	/* FP32 in Dst32: the top half in the BF16 layout, the low 16 mantissa bits below */
	cr_assert_eq(tt_dst_from_fp32(0x3FC01234u), (uint32_t)(0x40u << 8 | 0x7F) << 16 | 0x1234);
	cr_assert_eq(tt_dst_to_fp32(tt_dst_from_fp32(0xC0123456u)), 0xC0123456u);
	/* Src to FP32 drops the low 13 bits (TF32) */
	cr_assert_eq(tt_src_to_fp32(tt_src_from_fp32(0x3F812345u)), 0x3F812345u & ~0x1FFFu);
	uint32_t s = 3;
	for (int k = 0; k < 1000; k++) {
		uint32_t t = lcg(&s) & 0x7FFFFu;
		cr_assert_eq(tt_src_to_tf32(tt_src_from_tf32(t)), t);
		cr_assert_eq(tt_src_hw_of_cell(tt_src_cell_of_hw(t)), t);
		cr_assert_eq(tt_src_cell_of_hw(tt_src_hw_of_cell(t)), t);
	}
}

Test(tensix_fmt, unpack_conversion_follows_the_functional_model)
{
	uint32_t out;
	bool wide;
	const char *why;
	/* FP32 -> BF16 to Src: truncation, denormal flushed, sign kept */
	cr_assert(tt_unpack_convert(TT_FMT_FP32, TT_FMT_BF16, 0x3F80FFFFu, 0, false, false, &out, &wide, &why));
	cr_assert_eq(out, tt_src_from_bf16(0x3F80));
	cr_assert(tt_unpack_convert(TT_FMT_FP32, TT_FMT_BF16, 0x80012345u, 0, false, false, &out, &wide, &why));
	cr_assert_eq(out, tt_src_from_bf16(0x8000));
	/* FP32 -> TF32 to Src keeps 10 mantissa bits; to Dst it is FP32 */
	cr_assert(tt_unpack_convert(TT_FMT_FP32, TT_FMT_TF32, 0x3F812345u, 0, false, false, &out, &wide, &why));
	cr_assert_eq(out, tt_src_from_tf32(0x3F812345u >> 13));
	cr_assert(tt_unpack_convert(TT_FMT_FP32, TT_FMT_TF32, 0x3F812345u, 0, true, false, &out, &wide, &why));
	cr_assert(wide);
	cr_assert_eq(out, tt_dst_from_fp32(0x3F812345u));
	/* BFP8 with its exponent */
	cr_assert(tt_unpack_convert(TT_FMT_BFP8, TT_FMT_BFP8, 0x40, 130, false, false, &out, &wide, &why));
	cr_assert_eq(out, tt_src_from_bf16(0x4100));   /* 64/64 * 2^3 = 8 */
	/* INT8 to Dst: FP16 overlay in the Dst16 FP16 layout */
	cr_assert(tt_unpack_convert(TT_FMT_INT8, TT_FMT_INT8, 0x83, 0, true, false, &out, &wide, &why));
	cr_assert_eq(out, tt_dst_from_fp16(0x8000 | 16u << 10 | 3));
	/* INT16 to Src: the high byte moves up three bits */
	cr_assert(tt_unpack_convert(TT_FMT_INT16, TT_FMT_INT16, 0xABCD, 0, false, false, &out, &wide, &why));
	cr_assert_eq(tt_src_hw_of_cell(out), 0xAB00u << 3 | 0xCD);
	/* undefined combinations say why */
	cr_assert_not(tt_unpack_convert(TT_FMT_BF16, TT_FMT_FP16, 0, 0, false, false, &out, &wide, &why));
	cr_assert_not_null(why);
	cr_assert_not(tt_unpack_convert(TT_FMT_FP32, TT_FMT_FP32, 0, 0, false, false, &out, &wide, &why));
	cr_assert_not(tt_unpack_convert(TT_FMT_TF32, TT_FMT_TF32, 0, 0, false, false, &out, &wide, &why));
	cr_assert_not(tt_unpack_convert(TT_FMT_FP32, TT_FMT_INT8, 0, 0, false, false, &out, &wide, &why));
}
