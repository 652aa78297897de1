/* Tensix number formats (tt-isa-documentation FloatBitPatterns.md, SrcASrcB.md, Dst.md,
 * UNPACR_Regular.md "FormatConversion", Packers/FormatConversion.md): one table of the 4-bit
 * DataFormat codes and the conversions the units do, bit for bit. Pure functions, no state; the
 * unpackers, the matrix unit, the packers and the tests use them.
 *
 * Storage layouts:
 *   L1      the format's own bits (BFP: sign + magnitude per datum, one shared exponent byte
 *           per 16 datums in a separate section).
 *   Src     19-bit cells; the hardware's layout is {sign 18, mantissa 17:8, exponent 7:0}: TF32
 *           natively, BF16 with the low three mantissa bits zero, FP16 with its 5-bit exponent in
 *           bits 4:0, integer "8" as FP16 with raw exponent 16 (0 for magnitude 0). bhemu keeps
 *           the same fields in IEEE order, {sign 18, exponent 17:10, mantissa 9:0} (a TF32
 *           pattern: BF16 and FP32 in and out are shifts), a permutation of the hardware's bits
 *           (tt_src_cell_of_hw, tt_src_hw_of_cell) that the code working on the hardware's
 *           layout (MOV*, GMPOOL, integer reads) applies at the register.
 *   Dst16   {sign 15, mantissa 14:8, exponent 7:0} for BF16, {sign 15, mantissa 14:5, exponent
 *           4:0} for FP16, raw bits for integer "16".
 *   Dst32   FP32 as the Dst16 BF16 layout of its top half above its low 16 mantissa bits;
 *           integer "32" sign-magnitude, raw.
 * Values are passed around as IEEE-layout bit patterns (uint32_t FP32 / uint16_t BF16, FP16)
 * and converted to and from the register layouts at the register boundary. */
#ifndef BH_CORES_TENSIX_FMT_H
#define BH_CORES_TENSIX_FMT_H

#include <stdbool.h>
#include <stdint.h>

/* DataFormat codes (the 4-bit field of tile descriptors, unpacker and packer configuration and
 * ALU_FORMAT_SPEC; Packers/FormatConversion.md). "a" formats have a 5-bit exponent. */
enum tt_fmt {
	TT_FMT_FP32 = 0, TT_FMT_FP16 = 1, TT_FMT_BFP8A = 2, TT_FMT_BFP4A = 3,
	TT_FMT_TF32 = 4, TT_FMT_BF16 = 5, TT_FMT_BFP8 = 6, TT_FMT_BFP4 = 7,
	TT_FMT_INT32 = 8, TT_FMT_INT16 = 9, TT_FMT_FP8 = 10, TT_FMT_BFP2A = 11,
	TT_FMT_INT8 = 14, TT_FMT_BFP2 = 15,
	TT_FMT_COUNT = 16
};

struct tt_fmt_info {
	const char *name;        /* NULL: code 12 and 13 name no format */
	uint8_t l1_bits;         /* bits per datum in L1 (BFP: sign + magnitude, exponents apart) */
	uint8_t exp_bits;        /* 8, 5 (the "a" formats, FP16, FP8) or 0 (integers) */
	uint8_t man_bits;        /* explicit mantissa bits (BFP, integers: magnitude bits) */
	bool bfp;                /* shares one exponent byte per 16 datums */
	bool integer;
};

const struct tt_fmt_info *tt_fmt_info(unsigned code);
/* Bytes of n datums of the format in L1, BFP exponent section included (n a multiple of 16). */
unsigned tt_fmt_bytes(unsigned code, unsigned n);

/* Rounding of a narrowing conversion. */
enum tt_round {
	TT_ROUND_TRUNC,          /* drop the bits */
	TT_ROUND_NEAREST_AWAY,   /* to nearest, ties away from zero (packers, FormatConversion.md) */
	TT_ROUND_NEAREST_EVEN,   /* to nearest, ties to even */
};

/* FP32 with its mantissa narrowed to man_bits (0..23) by the rounding, as the packer's early
 * conversion does it when it rounds: denormals (and results below the smallest normal) become
 * +0, -0 becomes +0, NaN becomes infinity of its sign first; a carry out of the mantissa goes
 * into the exponent (255 with mantissa 0 is the FPU's "too large" pattern). TRUNC keeps
 * denormals and NaN as truncation leaves them. */
/* The magnitude mag with its low `drop` bits dropped by the rounding (the increment added). */
static inline uint32_t tt_round_bits(uint32_t mag, unsigned drop, enum tt_round r)
{
	if (drop == 0)
		return mag;
	uint32_t half = 1u << (drop - 1), keep = ~((1u << drop) - 1);
	switch (r) {
	case TT_ROUND_NEAREST_AWAY:
		return (mag + half) & keep;
	case TT_ROUND_NEAREST_EVEN:
		return (mag + half - 1 + (mag >> drop & 1)) & keep;
	default:
		return mag & keep;
	}
}
static inline uint32_t tt_fp32_round(uint32_t x, unsigned man_bits, enum tt_round r)
{
	unsigned drop = 23 - man_bits;
	if (r == TT_ROUND_TRUNC)
		return tt_round_bits(x, drop, r);
	uint32_t sign = x & 0x80000000u, exp = x >> 23 & 0xFF;
	if (exp == 255)
		return sign | 0x7F800000u;   /* NaN becomes infinity (8-bit exponent) */
	if (exp == 0)
		return 0;                    /* denormals and -0 become +0 */
	/* The magnitude's carry out of the mantissa lands in the exponent. */
	return sign | tt_round_bits(x & 0x7FFFFFFFu, drop, r);
}
static inline uint16_t tt_fp32_to_bf16(uint32_t x, enum tt_round r) { return (uint16_t)(tt_fp32_round(x, 7, r) >> 16); }
static inline uint32_t tt_bf16_to_fp32(uint16_t x) { return (uint32_t)x << 16; }
/* FP32 to the coprocessor's FP16 (no NaN, exponent 31 is a normal exponent): saturate on a
 * narrowing exponent (|x| >= 2^16, infinity, NaN -> sign | 0x7FFF), then narrow the mantissa
 * by the rounding; |x| < 2^-14 (denormals and the range the documentation calls mishandled)
 * becomes zero of the input's sign. */
uint16_t tt_fp32_to_fp16(uint32_t x, enum tt_round r);
/* FP16 to FP32, exponent rebiased (31 is a normal exponent); FP16 denormals become zero of
 * their sign (the widening the documentation calls mishandled: no consumer may rely on it). */
uint32_t tt_fp16_to_fp32(uint16_t x);
/* FP8 (e5m2) is the top byte of an FP16. */
static inline uint16_t tt_fp8_to_fp16(uint8_t x) { return (uint16_t)(x << 8); }

/* BFP datum (bits of the given width: 8, 4 or 2) with its shared exponent byte to BF16 (8-bit
 * exponent formats) or FP16 ("a" formats), as UNPACR_Regular.md gives them. The "a" decode sets
 * *undefined when the result's exponent leaves 5 bits (silicon's behaviour is undefined). */
uint16_t tt_bfp_to_bf16(uint8_t datum, unsigned bits, uint8_t exp);
uint16_t tt_bfpa_to_fp16(uint8_t datum, unsigned bits, uint8_t exp, bool *undefined);
/* One group of 16 values to BFP (Packers/FormatConversion.md late conversion): the 8-bit
 * formats take BF16 inputs (sign, 8-bit exponent, 7-bit mantissa), the "a" formats E5M7 inputs
 * (sign, 5-bit exponent in 11:7, 7-bit mantissa). The shared exponent is the largest exponent
 * of the group; each datum's 1.mantissa is shifted to it and rounded to 7 magnitude bits (to
 * nearest, ties away, saturating at 127), then BFP4/BFP2 keep its top 3/1 bits. A magnitude
 * that comes out 0 has its sign cleared (sign with magnitude 0 means -2^128). datums[k] is
 * right-aligned in `bits` bits. */
void tt_bfp_encode(const uint16_t in[16], unsigned bits, uint8_t *exp, uint8_t datums[16]);
/* FP32 to E5M7 for the "a" BFP formats: saturate on the narrowing exponent, truncate the
 * mantissa; below 2^-14 becomes 0. Layout {sign 15, exponent 11:7 (bits 14:12 zero), mantissa 6:0}. */
uint16_t tt_fp32_to_e5m7(uint32_t x);

/* Sign-magnitude integers. */
static inline int32_t tt_sm32_to_int(uint32_t x)
{
	int32_t m = (int32_t)(x & 0x7FFFFFFFu);
	return x >> 31 ? -m : m;
}
/* Saturates to +-(2^31 - 1). */
uint32_t tt_int_to_sm32(int64_t v);

/* Register layouts. A Src cell between the hardware's layout and bhemu's (see the top). */
static inline uint32_t tt_src_cell_of_hw(uint32_t hw)
{
	return (hw & 0x40000u) | (hw & 0xFFu) << 10 | (hw >> 8 & 0x3FFu);
}
static inline uint32_t tt_src_hw_of_cell(uint32_t cell)
{
	return (cell & 0x40000u) | (cell & 0x3FFu) << 8 | (cell & 0x3FC00u) >> 10;
}
static inline uint32_t tt_src_from_tf32(uint32_t t19) { return t19 & 0x7FFFFu; }   /* IEEE-order TF32 (19 bits) */
static inline uint32_t tt_src_to_tf32(uint32_t s) { return s; }
static inline uint32_t tt_src_from_bf16(uint16_t x) { return tt_src_from_tf32((uint32_t)x << 3); }
static inline uint32_t tt_src_from_fp16(uint16_t x) { return tt_src_from_tf32((uint32_t)(x & 0x8000u) << 3 | (x & 0x7FFFu)); }
static inline uint32_t tt_src_from_fp32(uint32_t x) { return tt_src_from_tf32(x >> 13); }   /* truncating */
static inline uint32_t tt_src_to_fp32(uint32_t s) { return tt_src_to_tf32(s) << 13; }       /* BF16 / TF32 view */
static inline uint16_t tt_src_to_fp16(uint32_t s)
{
	uint32_t t = tt_src_to_tf32(s);
	return (uint16_t)((t >> 3 & 0x8000u) | (t & 0x7FFFu));
}
/* Integer "8" in Src/Dst16 FP16 overlay: magnitude in the mantissa, raw exponent 16 (0 for 0). */
uint16_t tt_int8_to_fp16_overlay(uint8_t x, bool is_unsigned);
static inline int32_t tt_fp16_overlay_to_int(uint16_t x) { return (x & 0x8000u) ? -(int32_t)(x & 0x3FFu) : (int32_t)(x & 0x3FFu); }

static inline uint16_t tt_dst_from_bf16(uint16_t x)
{
	return (uint16_t)((x & 0x8000u) | (x & 0x7Fu) << 8 | (x & 0x7F80u) >> 7);
}
static inline uint16_t tt_dst_to_bf16(uint16_t d)
{
	return (uint16_t)((d & 0x8000u) | (d & 0xFFu) << 7 | (d >> 8 & 0x7Fu));
}
static inline uint16_t tt_dst_from_fp16(uint16_t x)
{
	return (uint16_t)((x & 0x8000u) | (x & 0x3FFu) << 5 | (x & 0x7C00u) >> 10);
}
static inline uint16_t tt_dst_to_fp16(uint16_t d)
{
	return (uint16_t)((d & 0x8000u) | (d & 0x1Fu) << 10 | (d >> 5 & 0x3FFu));
}
static inline uint32_t tt_dst_from_fp32(uint32_t x) { return (uint32_t)tt_dst_from_bf16((uint16_t)(x >> 16)) << 16 | (x & 0xFFFFu); }
static inline uint32_t tt_dst_to_fp32(uint32_t d) { return (uint32_t)tt_dst_to_bf16((uint16_t)(d >> 16)) << 16 | (d & 0xFFFFu); }

/* The unpackers' FormatConversion (UNPACR_Regular.md): one L1 datum (and its shared exponent
 * for BFP) to a Src cell (to_dst false) or a Dst16 / Dst32 word (to_dst true; *wide tells which
 * view). int8_unsigned: ALU_FORMAT_SPEC_REG0_SrcA/BUnsigned. Returns false, with *why, for a
 * combination the documentation calls undefined.
 * Inline (always): the unpackers call it per datum with constant formats, which leaves only the
 * conversion; for every input format but the BFP ones whether it fails depends only on the formats. */
static inline __attribute__((always_inline)) bool
tt_unpack_convert(unsigned in_fmt, unsigned out_fmt, uint32_t bits, uint8_t exp, bool to_dst,
		  bool int8_unsigned, uint32_t *out, bool *wide, const char **why)
{
	bool undef = false;
	*wide = false;
	*why = NULL;
	if (in_fmt == TT_FMT_FP32) {
		switch (out_fmt) {
		case TT_FMT_FP32:
			break;
		case TT_FMT_TF32:
			if (to_dst)   /* TF32 to Dst means FP32 */
				break;
			*out = tt_src_from_tf32(bits >> 13);
			return true;
		case TT_FMT_BF16:
			if (!(bits & 0x7F800000u))
				bits &= 0x80000000u;   /* denormals flushed */
			bits >>= 16;
			in_fmt = TT_FMT_BF16;
			break;
		case TT_FMT_FP16:
			bits = tt_fp32_to_fp16(bits, TT_ROUND_TRUNC);
			in_fmt = TT_FMT_FP16;
			break;
		default:
			*why = "FP32 in L1 converts only to FP32, TF32, BF16 or FP16";
			return false;
		}
	} else {
		if (in_fmt != out_fmt) {
			*why = "a non-FP32 input format must equal the output format";
			return false;
		}
		switch (in_fmt) {
		case TT_FMT_FP8:
			bits = tt_fp8_to_fp16((uint8_t)bits);
			in_fmt = TT_FMT_FP16;
			break;
		case TT_FMT_BFP8: case TT_FMT_BFP4: case TT_FMT_BFP2:
			bits = tt_bfp_to_bf16((uint8_t)bits, tt_fmt_info(in_fmt)->l1_bits, exp);
			in_fmt = TT_FMT_BF16;
			break;
		case TT_FMT_BFP8A: case TT_FMT_BFP4A: case TT_FMT_BFP2A:
			bits = tt_bfpa_to_fp16((uint8_t)bits, tt_fmt_info(in_fmt)->l1_bits, exp, &undef);
			if (undef) {
				*why = "a BFPa datum whose exponent leaves 5 bits after normalisation";
				return false;
			}
			in_fmt = TT_FMT_FP16;
			break;
		case TT_FMT_INT8:
			bits = tt_int8_to_fp16_overlay((uint8_t)bits, int8_unsigned);
			in_fmt = TT_FMT_FP16;
			break;
		case TT_FMT_TF32:
			if (!to_dst) {
				*why = "TF32 as the input format of an unpack to Src (use FP32 in, TF32 out)";
				return false;
			}
			in_fmt = TT_FMT_FP32;
			break;
		default:
			break;
		}
	}
	switch (in_fmt) {
	case TT_FMT_INT16:
		*out = to_dst ? bits & 0xFFFFu : tt_src_cell_of_hw((bits & 0xFF00u) << 3 | (bits & 0xFFu));
		return true;
	case TT_FMT_INT32:
	case TT_FMT_FP32:
		if (!to_dst) {
			*why = "32-bit data unpacked to Src without a TF32 output format";
			return false;
		}
		*out = tt_dst_from_fp32(bits);
		*wide = true;
		return true;
	case TT_FMT_BF16:
		*out = to_dst ? tt_dst_from_bf16((uint16_t)bits) : tt_src_from_bf16((uint16_t)bits);
		return true;
	case TT_FMT_FP16:
		*out = to_dst ? tt_dst_from_fp16((uint16_t)bits) : tt_src_from_fp16((uint16_t)bits);
		return true;
	default:
		*why = "the input format has no conversion";
		return false;
	}
}

#endif
