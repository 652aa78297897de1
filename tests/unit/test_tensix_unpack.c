/* Unpackers, packers and ADCs (cores/tensix_unpack.c): a three-thread unpack -> ELWADD -> pack
 * pipeline over several 32x32 tiles (BF16 A, BFP8 B with shared exponents, BF16 out) with the
 * data-valid hand-over and a Tensix semaphore between math and pack, exact against the host; the
 * format paths of UNPACR and PACR on their own; ADC instructions; named faults. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cores/tensix.h"
#include "cores/tensix_dp.h"
#include "cores/tensix_fmt.h"
#include "cores/tensix_sfpu.h"
#include "sync/streams.h"
#include "tensix_testlib.h"

#define TENSIX_CFG 0xFFEF0000u
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SETC16(reg, v) TT(0xB2, (uint32_t)(reg) << 16 | (v))
#define UNPACR(u, ch1y, ch1z, ch0y, ch0z, flip) \
	TT(0x42, (uint32_t)(u) << 23 | (uint32_t)(ch1y) << 21 | (uint32_t)(ch1z) << 19 | (uint32_t)(ch0y) << 17 | \
		 (uint32_t)(ch0z) << 15 | (uint32_t)(flip) << 6 | 1u)
/* PACR with ReadIntfSel sel; PACR: all four Dst read interfaces (0). */
#define PACRI(am, sel, last) TT(0x41, (uint32_t)(am) << 15 | (uint32_t)(sel) << 8 | (uint32_t)(last))
#define PACR(am, last) PACRI(am, 0, last)
#define SETADCXX(units, x1, x0) TT(0x5E, (uint32_t)(units) << 21 | (uint32_t)(x1) << 10 | (x0))
#define SETADCZW(units, w1, z1, w0, z0, mask) \
	TT(0x54, (uint32_t)(units) << 21 | (uint32_t)(w1) << 15 | (uint32_t)(z1) << 12 | (uint32_t)(w0) << 9 | \
		 (uint32_t)(z0) << 6 | (mask))
#define SETADCXY(units, y1, x1, y0, x0, mask) \
	TT(0x51, (uint32_t)(units) << 21 | (uint32_t)(y1) << 15 | (uint32_t)(x1) << 12 | (uint32_t)(y0) << 9 | \
		 (uint32_t)(x0) << 6 | (mask))
#define INCADCXY(units, y1, x1, y0, x0) \
	TT(0x52, (uint32_t)(units) << 21 | (uint32_t)(y1) << 15 | (uint32_t)(x1) << 12 | (uint32_t)(y0) << 9 | (uint32_t)(x0) << 6)
#define ADDRCRXY(units, y1, x1, y0, x0, mask) \
	TT(0x53, (uint32_t)(units) << 21 | (uint32_t)(y1) << 15 | (uint32_t)(x1) << 12 | (uint32_t)(y0) << 9 | \
		 (uint32_t)(x0) << 6 | (mask))
#define SETADC(units, ch, dim, v) TT(0x50, (uint32_t)(units) << 21 | (uint32_t)(ch) << 20 | (uint32_t)(dim) << 18 | (v))
#define ELWADD(flip, am) TT(0x28, (uint32_t)(flip) << 22 | (uint32_t)(am) << 14)
#define SETRWC_ALL0 TT(0x37, 0xF)

#define THCON(u) (64u + 48u * (u))
#define TILES 4
#define A_AT(t) (0x20000u + 0x1000u * (t))
#define B_AT(t) (0x30000u + 0x1000u * (t))
#define C_AT(t) (0x40000u + 0x1000u * (t))

static float f_of(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t b_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

static void cfg(struct bh_device *dev, unsigned idx, uint32_t v)
{
	bh_tensix_cfg_store(tile0(dev), 0, idx, v);
}

static void emit_cfg(struct prog *p, unsigned idx, uint32_t v)
{
	emit_store_word(p, TENSIX_CFG + 4 * idx, v);
}

/* Packing one 16-row face from Dst row 0 as tt-llk's Blackhole code does: a row (16 datums) per
 * read interface, four PACRs of all four interfaces, Y + 4 rows each (ADDR_MOD_PACK 0), the last
 * with Last and Y back to 0 (ADDR_MOD_PACK 1). PCK0_ADDR_CTRL_XY_REG_0's Ystride is a row of
 * In_data_format (pack_face sets it). */
#define PACK_FACE_WORDS \
	SETC16(37, 4u), SETC16(38, 1u << 5), SETADCXX(4, 15, 0), PACR(0, 0), PACR(0, 0), PACR(0, 0), PACR(1, 1)

static unsigned fmt_bytes(unsigned fmt)
{
	return (fmt & 3) == 0 ? 4 : (fmt & 3) == 1 ? 2 : 1;
}

static void cfg(struct bh_device *dev, unsigned idx, uint32_t v);

static void pack_face(struct bh_device *dev, unsigned in_fmt)
{
	static const uint32_t w[] = { PACK_FACE_WORDS };
	cfg(dev, 12, 16u * fmt_bytes(in_fmt) << 16);
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
}

/* A device whose packer 0 passes every column (PCK_EDGE_OFFSET_SEC0 mask 0xFFFF, as tt-llk's
 * packer set-up writes it; every row maps to mask 0). */
static struct bh_device *packer_masks_open(struct bh_device *dev)
{
	cfg(dev, 24, 0xFFFF);
	return dev;
}

static struct bh_device *open_packer(void)
{
	return packer_masks_open(t_open());
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* Host data: A[t][k] = (k*7 + t) % 64 / 4 - 8 (BF16-exact), B as BFP8 with shared exponent 130
 * (values mag/8) or 129 per group, random signs and magnitudes: every sum is a multiple of 1/16
 * below 24 in magnitude, exact in BF16. */
static float host_a(unsigned t, unsigned k) { return (float)((k * 7 + t) % 64) / 4.f - 8.f; }

static void put_tiles(struct bh_device *dev, float b_val[TILES][1024])
{
	uint32_t s = 99;
	for (unsigned t = 0; t < TILES; t++) {
		uint8_t buf[2048];
		for (unsigned k = 0; k < 1024; k++) {
			uint16_t h = (uint16_t)(b_of(host_a(t, k)) >> 16);
			memcpy(buf + 2 * k, &h, 2);
		}
		bh_tile_l1_write(tile0(dev), A_AT(t), buf, 2048);
		uint8_t bb[64 + 1024];
		for (unsigned g = 0; g < 64; g++) {
			uint8_t e = (uint8_t)(129 + (g & 1));
			bb[g] = e;
			for (unsigned k = 0; k < 16; k++) {
				uint8_t mag = (uint8_t)(lcg(&s) % 128), sign = mag ? (uint8_t)(lcg(&s) & 1) : 0;
				bb[64 + g * 16 + k] = (uint8_t)(sign << 7 | mag);
				b_val[t][g * 16 + k] = (float)ldexp(sign ? -(double)mag : mag, e - 127 - 6);
			}
		}
		bh_tile_l1_write(tile0(dev), B_AT(t), bb, sizeof bb);
	}
}

/* The configuration the host writes once (state 0). */
static void configure(struct bh_device *dev)
{
	cfg(dev, BH_DP_CFG_ALU, (uint32_t)TT_FMT_BF16 << 17 | (uint32_t)TT_FMT_BFP8 << 21 | (uint32_t)TT_FMT_BF16 << 25);
	/* Unpacker 0: BF16 faces of 16x16, 4 per tile; SrcA rows start 4 rows into the output space. */
	cfg(dev, THCON(0) + 0, TT_FMT_BF16 | 1u << 4 | 16u << 16);
	cfg(dev, THCON(0) + 1, 16u | 4u << 16);
	cfg(dev, THCON(0) + 8, TT_FMT_BF16 | 1u << 10);
	cfg(dev, 49, 4 * 16 * 2);
	/* Unpacker 1: BFP8 with its exponent section. */
	cfg(dev, THCON(1) + 0, TT_FMT_BFP8 | 1u << 4 | 16u << 16);
	cfg(dev, THCON(1) + 1, 16u | 4u << 16);
	cfg(dev, THCON(1) + 8, TT_FMT_BFP8 | 1u << 10);
	/* The packer: BF16 from a 16-bit Dst, uncompressed; Y counts Dst rows of BF16, Z faces. */
	cfg(dev, THCON(0) + 6, 1u | TT_FMT_BF16 << 4 | TT_FMT_BF16 << 8);
	cfg(dev, 12, 32u << 16);   /* PCK0_ADDR_CTRL_XY_REG_0 Ystride */
	cfg(dev, 13, 512u);        /* PCK0_ADDR_CTRL_ZW_REG_0 Zstride */
}

/* As tt-llk's Blackhole packer: ADDR_MOD_PACK 0 Y + 4 rows; 1 (the tile's last PACR) Y and Z to 0;
 * 2 (a face's last) Y to 0, Z + 1. A row per read interface. */
static void emit_pack_modes(struct prog *p)
{
	emit_push(p, SETC16(37, 4u));
	emit_push(p, SETC16(38, 1u << 5 | 1u << 13));
	emit_push(p, SETC16(39, 1u << 5 | 1u << 12));
	emit_push(p, SETADCXX(4, 15, 0));
}

/* A 32x32 tile: four faces, each four PACRs of four Dst rows, Last at the end. */
static void emit_pack_tile(struct prog *p)
{
	for (unsigned f = 0; f < 4; f++)
		for (unsigned r = 0; r < 4; r++)
			emit_push(p, PACR(r < 3 ? 0 : f < 3 ? 2 : 1, f == 3 && r == 3));
}

static void emit_unpacker(struct prog *p)
{
	emit_push(p, SETADCXX(3, 255, 0));
	for (unsigned t = 0; t < TILES; t++) {
		emit_cfg(p, THCON(0) + 12, A_AT(t) / 16 - 1);
		emit_cfg(p, THCON(1) + 12, B_AT(t) / 16 - 1);
		emit_push(p, SETADCZW(3, 0, 0, 0, 0, 0x1));
		for (unsigned f = 0; f < 4; f++)
			emit_push(p, UNPACR(0, 0, 0, 0, 1, f == 3));
		for (unsigned f = 0; f < 4; f++)
			emit_push(p, UNPACR(1, 0, 0, 0, 1, f == 3));
		emit_tensix_sync(p);   /* the next tile's addresses only once these UNPACRs have read theirs */
	}
	emit_exit_with(p, 0);
}

static void emit_math(struct prog *p)
{
	emit_push(p, SETC16(BH_DP_TCFG_ADDR_MOD_AB, 8u | 8u << 8));
	emit_push(p, SETC16(BH_DP_TCFG_ADDR_MOD_DST, 8u));
	for (unsigned t = 0; t < TILES; t++) {
		emit_push(p, SEMWAIT(0x40, 1u, 2));       /* Dst free: semaphore 0 below its max */
		for (unsigned r = 0; r < 8; r++)
			emit_push(p, ELWADD(r == 7 ? 3 : 0, 0));
		emit_push(p, SETRWC_ALL0);
		emit_push(p, SEMPOST(1u));
	}
	emit_tensix_sync(p);
	emit_exit_with(p, 0);
}

static void emit_packer(struct prog *p)
{
	emit_pack_modes(p);
	for (unsigned t = 0; t < TILES; t++) {
		emit_cfg(p, THCON(0) + 5, C_AT(t) / 16 - 1);
		emit_push(p, SEMWAIT(0x4, 1u, 1));        /* Dst full: semaphore 0 non-zero */
		emit_pack_tile(p);
		emit_push(p, SEMGET(1u));
		emit_tensix_sync(p);
	}
	emit_exit_with(p, 0);
}

Test(tensix_unpack, three_thread_unpack_elwadd_pack_over_tiles_is_exact)
{
	static float bv[TILES][1024];
	struct bh_device *dev = open_packer();
	bh_sem_init(tile0(dev), 1u, 1, 0);
	put_tiles(dev, bv);
	configure(dev);
	struct prog pu = { 0 }, pm = { 0 }, pp = { 0 };
	emit_unpacker(&pu);
	emit_math(&pm);
	emit_packer(&pp);
	start_core(dev, BH_CORE_TRISC2, &pp);
	start_core(dev, BH_CORE_TRISC1, &pm);
	start_core(dev, BH_CORE_TRISC0, &pu);
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0);
	for (unsigned t = 0; t < TILES; t++) {
		uint16_t c[1024];
		bh_tile_l1_read(tile0(dev), C_AT(t), c, sizeof c);
		for (unsigned k = 0; k < 1024; k++) {
			float want = host_a(t, k) + bv[t][k];
			cr_assert_eq(f_of((uint32_t)c[k] << 16), want, "tile %u datum %u: %g, want %g", t, k,
				     f_of((uint32_t)c[k] << 16), want);
		}
	}
	bh_device_close(dev);
}

/* One face of datums of `in_fmt` at L1 0x20000 unpacked to Dst (Unpack_If_Sel), a 32-bit Dst or a
 * 16-bit one, then packed from it (Read_32b_data with the 32-bit one) as `out_fmt` to L1 0x30000. */
static void unpack_face_to_dst_then_pack(struct bh_device *dev, const void *in, unsigned in_fmt, unsigned out_fmt,
					 bool dst32)
{
	unsigned dst_bytes = dst32 ? 4 : 2;
	bh_tile_l1_write(tile0(dev), 0x20000, in, 256 * fmt_bytes(in_fmt));
	cfg(dev, BH_DP_CFG_ALU, (dst32 ? BH_DP_ALU_FP32 : 0) | (uint32_t)out_fmt << 25);
	cfg(dev, THCON(0) + 0, in_fmt | 1u << 4 | 16u << 16);
	cfg(dev, THCON(0) + 1, 16u);
	cfg(dev, THCON(0) + 8, in_fmt | 1u << 11);   /* to Dst */
	cfg(dev, 49, 4 * 16 * dst_bytes);            /* row 4 of the output space */
	cfg(dev, THCON(0) + 12, 0x20000 / 16 - 1);
	cfg(dev, 18, dst32);                         /* Read_32b_data */
	cfg(dev, THCON(0) + 6, 1u | out_fmt << 4 | out_fmt << 8);
	cfg(dev, THCON(0) + 5, 0x30000 / 16 - 1);
	const uint32_t w[] = { SETADCXX(7, 255, 0), UNPACR(0, 0, 0, 0, 0, 0) };
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
	pack_face(dev, out_fmt);
}

static void unpack_face_to_dst32_then_pack(struct bh_device *dev, const void *in, unsigned in_fmt, unsigned out_fmt)
{
	unpack_face_to_dst_then_pack(dev, in, in_fmt, out_fmt, true);
}

/* The BF16 patterns every conversion must get right: zeros, denormals, the normal range's ends,
 * infinities and NaNs of both signs; then pseudo-random ones. */
static uint16_t bf16_pattern(unsigned k, uint32_t *s)
{
	static const uint16_t edge[] = { 0x0000, 0x8000, 0x0001, 0x007F, 0x8001, 0x807F, 0x0080, 0x8080,
					 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC0, 0xFFFF,
					 0x3F80, 0xBF80, 0x3F81, 0x4049 };
	return k < N(edge) ? edge[k] : (uint16_t)lcg(s);
}

/* The packers' early conversion to BF16 (FormatConversion.md): NaN becomes infinity of its sign,
 * denormals and -0 become +0, every other BF16 value is kept. */
static uint16_t pack_bf16_ref(uint16_t x)
{
	unsigned e = x >> 7 & 0xFF;
	return e == 0xFF ? (uint16_t)((x & 0x8000) | 0x7F80) : e == 0 ? 0 : x;
}

/* BF16 unpacked to a 16-bit Dst keeps its bits (every pattern, the row fast path of the unpacker);
 * packed from there as BF16 (the packer's row fast path) it comes out as the early conversion
 * gives it. Four faces: the edge patterns and 1004 others. */
Test(tensix_unpack, bf16_through_a_16_bit_dst_keeps_its_bits_and_packs_by_the_early_conversion)
{
	struct bh_device *dev = open_packer();
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	uint32_t s = 7;
	for (unsigned face = 0; face < 4; face++) {
		uint16_t in[256], out[256];
		for (unsigned k = 0; k < 256; k++)
			in[k] = bf16_pattern(face * 256 + k, &s);
		unpack_face_to_dst_then_pack(dev, in, TT_FMT_BF16, TT_FMT_BF16, false);
		bh_tile_l1_read(tile0(dev), 0x30000, out, sizeof out);
		for (unsigned k = 0; k < 256; k++) {
			cr_assert_eq(tt_dst_to_bf16(tt_dst16_read(dp, k / 16, k % 16)), in[k], "face %u Dst16 datum %u", face, k);
			cr_assert_eq(out[k], pack_bf16_ref(in[k]), "face %u datum %u: 0x%04x packed as 0x%04x", face, k, in[k],
				     out[k]);
		}
	}
	bh_device_close(dev);
}

/* FP32 to BF16 by the packer from a 32-bit Dst: to nearest with ties away from zero (a carry out
 * of the mantissa goes into the exponent, up to infinity), NaN to infinity, denormals and -0 to
 * +0 (FormatConversion.md), independently of the unpacker's row fast path that put the FP32 bits
 * into Dst unchanged. */
static uint16_t pack_fp32_to_bf16_ref(uint32_t x)
{
	uint32_t sign = x >> 16 & 0x8000u, e = x >> 23 & 0xFF;
	if (e == 0xFF)
		return (uint16_t)(sign | 0x7F80);
	if (e == 0)
		return 0;
	return (uint16_t)(sign | ((x & 0x7FFFFFFFu) + 0x8000u) >> 16);
}

Test(tensix_unpack, fp32_through_a_32_bit_dst_packs_to_bf16_with_ties_away_and_flushes)
{
	static const uint32_t edge[] = { 0x3F808000u, 0xBF808000u, 0x3F807FFFu, 0x3F818000u, 0x7F7F8000u, 0xFF7FFFFFu,
					 0x7F7F7FFFu, 0x00400000u, 0x80000001u, 0x00800000u, 0x007FFFFFu, 0x80000000u,
					 0x00000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFFFFFFFu, 0x7F800001u };
	struct bh_device *dev = open_packer();
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	uint32_t s = 11;
	for (unsigned face = 0; face < 2; face++) {
		uint32_t in[256];
		uint16_t out[256];
		for (unsigned k = 0; k < 256; k++)
			in[k] = face == 0 && k < N(edge) ? edge[k] : lcg(&s) << 8 ^ lcg(&s);
		unpack_face_to_dst_then_pack(dev, in, TT_FMT_FP32, TT_FMT_BF16, true);
		bh_tile_l1_read(tile0(dev), 0x30000, out, sizeof out);
		for (unsigned k = 0; k < 256; k++) {
			cr_assert_eq(tt_dst_to_fp32(tt_dst32_read(dp, k / 16, k % 16)), in[k], "face %u Dst32 datum %u", face, k);
			cr_assert_eq(out[k], pack_fp32_to_bf16_ref(in[k]), "face %u datum %u: 0x%08x packed as 0x%04x want 0x%04x",
				     face, k, in[k], out[k], pack_fp32_to_bf16_ref(in[k]));
		}
	}
	bh_device_close(dev);
}

/* Unpack a face to Dst (Unpack_If_Sel) in FP32, then pack it as BF16 from the 32-bit Dst with
 * rounding (ties away) and as BFP8 (shared exponent per 16 datums). */
Test(tensix_unpack, fp32_to_dst_then_pack_rounds_to_bf16_and_bfp8)
{
	struct bh_device *dev = open_packer();
	float in[256];
	for (unsigned k = 0; k < 256; k++)
		in[k] = (1.0f + (float)k / 256.f + 0x1p-9f * (k & 1)) * (k % 3 ? 1.f : -1.f);
	unpack_face_to_dst32_then_pack(dev, in, TT_FMT_FP32, TT_FMT_BF16);
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	for (unsigned k = 0; k < 256; k++)
		cr_assert_eq(tt_dst_to_fp32(tt_dst32_read(dp, k / 16, k % 16)), b_of(in[k]), "Dst32 datum %u", k);
	uint16_t out[256];
	bh_tile_l1_read(tile0(dev), 0x30000, out, sizeof out);
	for (unsigned k = 0; k < 256; k++) {
		double v = in[k], ulp = ldexp(1, ilogb(v) - 7), want = copysign(floor(fabs(v) / ulp + 0.5) * ulp, v);
		cr_assert_eq(f_of((uint32_t)out[k] << 16), (float)want, "BF16 datum %u: %a want %a", k,
			     f_of((uint32_t)out[k] << 16), want);
	}
	/* Now BFP8 (intermediate BFP8 = E8M6 with rounding, then one exponent per 16 datums). */
	cfg(dev, BH_DP_CFG_ALU, BH_DP_ALU_FP32 | (uint32_t)TT_FMT_BFP8 << 25);
	cfg(dev, THCON(0) + 6, 1u | TT_FMT_BFP8 << 4 | TT_FMT_BF16 << 8);
	cfg(dev, THCON(0) + 5, 0x31000 / 16 - 1);
	cfg(dev, THCON(0) + 4, 1u << 16);                 /* Exp_section_size: one 16-byte unit */
	pack_face(dev, TT_FMT_BF16);
	uint8_t ex[16], man[256];
	bh_tile_l1_read(tile0(dev), 0x31000, ex, 16);
	bh_tile_l1_read(tile0(dev), 0x31010, man, 256);
	double e86[256];
	for (unsigned k = 0; k < 256; k++) {   /* host: E8M6 rounding (ties away) */
		double v = in[k], u6 = ldexp(1, ilogb(v) - 6);
		e86[k] = copysign(floor(fabs(v) / u6 + 0.5) * u6, v);
	}
	for (unsigned k = 0; k < 256; k++) {
		/* the group's largest exponent, 7 magnitude bits below it, ties away, saturating */
		int emax = -1000;
		for (unsigned j = k & ~15u; j < (k & ~15u) + 16; j++)
			emax = ilogb(e86[j]) > emax ? ilogb(e86[j]) : emax;
		double step = ldexp(1, emax - 6), q = floor(fabs(e86[k]) / step + 0.5);
		if (q > 127)
			q = 127;
		cr_assert_eq(ex[k / 16], emax + 127, "exponent of group %u", k / 16);
		cr_assert_eq(man[k], (uint8_t)((e86[k] < 0 && q ? 0x80 : 0) | (unsigned)q), "BFP8 datum %u", k);
	}
	bh_device_close(dev);
}

/* INT32 (two's complement bits, read by the packer as sign-magnitude Integer "32") unpacked to a
 * 32-bit Dst in FP32's layout, packed back as INT32 (a bitcast: the same bits), as UINT8 and INT8
 * raw (the low bits of the magnitude) and rounded/saturated after INT_DESCALE's ShiftAmount. */
static uint8_t int8_ref(uint32_t x, bool is_unsigned, bool raw, unsigned shift)
{
	uint32_t sign = x >> 31, mag = x & 0x7FFFFFFFu;
	if (raw)
		return (uint8_t)(is_unsigned ? mag : sign << 7 | (mag & 0x7F));
	if (shift)
		mag = (mag >> shift) + (mag >> (shift - 1) & 1);   /* nearest, ties away */
	if (is_unsigned)
		return (uint8_t)(sign ? 0 : mag > 255 ? 255 : mag);
	return (uint8_t)(sign << 7 | (mag > 127 ? 127 : mag));
}

Test(tensix_unpack, int32_to_dst_packs_as_int32_and_as_int8_uint8)
{
	struct bh_device *dev = open_packer();
	uint32_t in[256], s = 5;
	for (unsigned k = 0; k < 256; k++)
		in[k] = k < 64 ? (uint32_t)((int)k * 7 - 200) : k < 128 ? lcg(&s) : k < 192 ? lcg(&s) % 600 : 0x80000000u | (k * 3);
	in[0] = 0x7FFFFFFFu;
	in[1] = 0x80000000u;
	in[2] = 0x17;   /* 23 >> 4 = 1.4375 -> 1 */
	in[3] = 0x18;   /* 24 >> 4 = 1.5 -> 2 (ties away) */
	unpack_face_to_dst32_then_pack(dev, in, TT_FMT_INT32, TT_FMT_INT32);
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	for (unsigned k = 0; k < 256; k++)
		cr_assert_eq(tt_dst32_read(dp, k / 16, k % 16), tt_dst_from_fp32(in[k]), "Dst32 datum %u (FP32's layout)", k);
	uint32_t out[256];
	bh_tile_l1_read(tile0(dev), 0x30000, out, sizeof out);
	cr_assert_eq(memcmp(out, in, sizeof out), 0, "INT32 -> INT32 is a bitcast");
	for (unsigned mode = 0; mode < 6; mode++) {   /* unsigned x {raw, shift 0, shift 4} */
		bool is_unsigned = mode & 1, raw = mode >> 1 == 0;
		unsigned shift = mode >> 1 == 2 ? 4 : 0;
		cfg(dev, BH_DP_CFG_ALU, BH_DP_ALU_FP32 | (uint32_t)TT_FMT_INT8 << 25);
		cfg(dev, THCON(0) + 6, 1u | TT_FMT_INT8 << 4 | TT_FMT_INT8 << 8);
		cfg(dev, 18, 1u | (uint32_t)is_unsigned << 1 | (uint32_t)raw << 2);
		cfg(dev, 8, shift ? 1 : 0);                     /* INT_DESCALE_Enable, Mode 0 */
		cfg(dev, 187, shift | 0x20u);                   /* ShiftAmount: the low five bits */
		cfg(dev, THCON(0) + 5, (0x31000 + 0x100 * mode) / 16 - 1);
		pack_face(dev, TT_FMT_INT8);
		uint8_t b[256];
		bh_tile_l1_read(tile0(dev), 0x31000 + 0x100 * mode, b, sizeof b);
		for (unsigned k = 0; k < 256; k++)
			cr_assert_eq(b[k], int8_ref(in[k], is_unsigned, raw, shift), "mode %u datum %u: %#x -> %#x want %#x", mode, k,
				     in[k], b[k], int8_ref(in[k], is_unsigned, raw, shift));
		if (mode == 5) {
			cr_assert_eq(b[2], 1);
			cr_assert_eq(b[3], 2);
		}
	}
	bh_device_close(dev);
}

/* INT8 in L1 (all 256 values) unpacked to Dst (Unpack_If_Sel, 8-bit output: the output address in
 * bytes) becomes Integer "8", overlaid on FP16 with raw exponent 16 (0 for magnitude 0): sign-magnitude
 * with SrcAUnsigned clear, uint8_t with it set (UNPACR_Regular.md). It lands in Dst16b rows also
 * when Dst is used as 32-bit: row 8 is the low half of Dst32b row 0 (Dst.md). SFPLOAD INT8 reads
 * the sign and 8 bits of magnitude of four rows, even or odd columns, into sign-magnitude lanes. */
#define SFPLOAD(vd, mod0, imm10) TT(0x70, (uint32_t)(vd) << 20 | (uint32_t)(mod0) << 16 | (imm10))

static uint16_t int8_overlay_ref(unsigned b, bool is_unsigned)
{
	unsigned sign = is_unsigned ? 0 : b >> 7, mag = is_unsigned ? b : b & 0x7F;
	return (uint16_t)(sign << 15 | (mag ? 16u : 0) << 10 | mag);   /* FP16 bits: sign, exponent, mantissa */
}

Test(tensix_unpack, int8_and_uint8_unpack_to_dst_as_integer_8_and_sfpload_int8_reads_them)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	uint8_t in[256];
	for (unsigned k = 0; k < 256; k++)
		in[k] = (uint8_t)(k * 149 + 7);   /* every value once, out of order */
	bh_tile_l1_write(tile0(dev), 0x20000, in, sizeof in);
	for (unsigned u = 0; u < 2; u++) {
		cfg(dev, BH_DP_CFG_ALU, u << 15);                /* SrcAUnsigned */
		cfg(dev, THCON(0) + 0, TT_FMT_INT8 | 1u << 4 | 16u << 16);
		cfg(dev, THCON(0) + 1, 16u);
		cfg(dev, THCON(0) + 8, TT_FMT_INT8 | 1u << 11);  /* to Dst */
		cfg(dev, 49, (4 + 8) * 16);                      /* Dst16b row 8: bytes of 8-bit datums */
		cfg(dev, THCON(0) + 12, 0x20000 / 16 - 1);
		const uint32_t w[] = { SETADCXX(7, 255, 0), UNPACR(0, 0, 0, 0, 0, 0), SFPLOAD(0, 5, 8), SFPLOAD(1, 5, 10) };
		run_pushes(dev, BH_CORE_TRISC1, w, N(w));
		for (unsigned k = 0; k < 256; k++)
			cr_assert_eq(tt_dst_to_fp16(tt_dst16_read(dp, 8 + k / 16, k % 16)), int8_overlay_ref(in[k], u),
				     "unsigned %u datum %u (%#x)", u, k, in[k]);
		for (unsigned k = 0; k < 16; k++)   /* the low half of Dst32b row 0 */
			cr_assert_eq(tt_dst32_read(dp, 0, k) & 0xFFFFu, tt_dst16_read(dp, 8, k));
		const struct tt_sfpu *s = dp->sfpu;
		for (unsigned l = 0; l < TT_SFPU_LANES; l++)
			for (unsigned odd = 0; odd < 2; odd++) {
				unsigned b = in[(l / 8) * 16 + (l & 7) * 2 + odd];
				uint32_t want = u ? b : (uint32_t)(b >> 7) << 31 | (b & 0x7F);
				cr_assert_eq(s->lreg[odd][l], want, "unsigned %u lane %u odd %u: %#x from %#x", u, l, odd,
					     s->lreg[odd][l], b);
			}
	}
	bh_device_close(dev);
}

/* MultiContextMode contexts 4-7 (UNPACR_Regular.md, Blackhole's register map): context 5 reads its
 * own Base_cntx5 (word 81), data formats (REG7 word 29 bits 31:24 with Ovrd_data_format),
 * Disable_zero_compress_cntx5 and Unpack_if_sel_cntx5 (word 73 bits 17, 21), and context 1's
 * Offset, Tile_x_dim and Dest address (5 & 3). ContextNumber + CfgContextOffset wraps at 8: 7 + 6
 * is context 5. Context 1 itself (the twin) reads its own base and format. */
#define UNPACR_CTX(ctx) (UNPACR(0, 0, 0, 0, 0, 0) | 1u << 7 | (uint32_t)(ctx) << 10)

Test(tensix_unpack, multi_context_mode_reaches_contexts_4_to_7)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	uint16_t bf[256];
	float f32[256];
	for (unsigned k = 0; k < 256; k++) {
		bf[k] = (uint16_t)(b_of((float)k - 100.f) >> 16);
		f32[k] = (float)k * 0.25f + 1000.f;
	}
	bh_tile_l1_write(tile0(dev), 0x21000, bf, sizeof bf);    /* context 1: BF16 */
	bh_tile_l1_write(tile0(dev), 0x25000, f32, sizeof f32);  /* context 5: FP32 */
	cfg(dev, BH_DP_CFG_ALU, 0);
	cfg(dev, THCON(0) + 0, TT_FMT_BF16 | 1u << 4 | 7u << 16);   /* descriptor XDim 7: not used */
	cfg(dev, THCON(0) + 1, 16u);
	cfg(dev, THCON(0) + 8, TT_FMT_BF16 | 1u << 14);             /* Ovrd_data_format */
	cfg(dev, THCON(0) + 9, 1u << 1 | 1u << 5 | 1u << 17 | 1u << 21);   /* contexts 1, 5: uncompressed, to Dst */
	cfg(dev, THCON(0) + 13, 0x21000 / 16 - 1);                 /* Base_cntx1 */
	cfg(dev, THCON(0) + 17, 0x25000 / 16 - 1);                 /* Base_cntx5 */
	cfg(dev, THCON(0) + 20, 0u << 16);                         /* Dest_cntx1: 0 */
	cfg(dev, THCON(0) + 22, 256u << 16);                       /* Tile_x_dim_cntx1: a face */
	cfg(dev, THCON(0) + 29, (uint32_t)(TT_FMT_BF16 | TT_FMT_BF16 << 4) << 16 |
				(uint32_t)(TT_FMT_FP32 | TT_FMT_FP32 << 4) << 24);
	cfg(dev, 49, 4 * 16 * 2);                                  /* Dst16b row 0 (BF16) */
	const uint32_t w[] = { SETADCXX(7, 255, 0), UNPACR_CTX(1) };
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
	for (unsigned k = 0; k < 256; k++)
		cr_assert_eq(tt_dst_to_bf16(tt_dst16_read(dp, k / 16, k % 16)), bf[k], "context 1 datum %u", k);
	cfg(dev, 49, 4 * 16 * 4 + 64 * 16 * 4);                    /* Dst32b row 64 */
	cfg(dev, BH_DP_CFG_ALU, BH_DP_ALU_FP32);
	const uint32_t w5[] = { SETC16(BH_DP_TCFG_UNPACK_MISC, 6), SETADCXX(7, 255, 0), UNPACR_CTX(7) };
	run_pushes(dev, BH_CORE_TRISC0, w5, N(w5));
	for (unsigned k = 0; k < 256; k++)
		cr_assert_eq(tt_dst_to_fp32(tt_dst32_read(dp, 64 + k / 16, k % 16)), b_of(f32[k]), "context 5 datum %u", k);
	bh_device_close(dev);
}

/* Blackhole's implied Src formats: UNPACR's FlipSrc hands the bank over in the format this UNPACR
 * wrote it in (ttsim's rule; with Ovrd_data_format a context's Unpack_out_data_format_cntx, here
 * context 5's FP32 while REG2_Out_data_format says BF16), UNPACR_NOP's SETDVALID form in
 * THCON_SEC[u].REG2_Out_data_format (UNPACR_NOP_SETDVALID.md), each into the bank it hands over. */
Test(tensix_unpack, flipsrc_and_unpacr_nop_latch_the_implied_src_formats)
{
	struct bh_device *dev = t_open();
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	cfg(dev, BH_DP_CFG_ALU, BH_DP_ALU_FP32);
	cfg(dev, THCON(0) + 0, TT_FMT_BF16 | 1u << 4 | 16u << 16);
	cfg(dev, THCON(0) + 1, 16u);
	cfg(dev, THCON(0) + 8, TT_FMT_BF16 | 1u << 14);                  /* Ovrd_data_format */
	cfg(dev, THCON(0) + 9, 1u << 0 | 1u << 4 | 1u << 17 | 1u << 21);  /* contexts 0, 5: uncompressed, to Dst */
	cfg(dev, THCON(0) + 22, 256u | 256u << 16);                       /* Tile_x_dim_cntx0, 1 (5 & 3): a face */
	cfg(dev, 49, 4 * 16 * 4);                                         /* Dst rows 4 (16-bit), 0 (32-bit) */
	cfg(dev, THCON(0) + 17, 0x25000 / 16 - 1);                        /* Base_cntx5 */
	cfg(dev, THCON(0) + 12, 0x21000 / 16 - 1);                        /* context 0's base */
	cfg(dev, THCON(0) + 28, (uint32_t)(TT_FMT_BF16 | TT_FMT_BF16 << 4) << 16);   /* context 0: BF16 */
	cfg(dev, THCON(0) + 29, (uint32_t)(TT_FMT_FP32 | TT_FMT_FP32 << 4) << 24);   /* context 5: FP32 */
	cfg(dev, THCON(1) + 8, TT_FMT_FP16);
	const uint32_t w[] = { SETADCXX(7, 255, 0), UNPACR_CTX(0) | 1u << 6, SETC16(BH_DP_TCFG_UNPACK_MISC, 5),
			       UNPACR_CTX(0) | 1u << 6, TT(0x43, 1u << 23 | 0x7u) };
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
	cr_expect_eq(atomic_load(&dp->implied_srca[0]), TT_FMT_BF16, "context 0's output format");
	cr_expect_eq(atomic_load(&dp->implied_srca[1]), TT_FMT_FP32, "context 5's, not REG2_Out_data_format");
	cr_expect_eq(atomic_load(&dp->srca_client[1]), TT_SRC_MATRIX_UNIT);
	cr_expect_eq(atomic_load(&dp->implied_srcb[0]), TT_FMT_FP16, "UNPACR_NOP: unpacker 1's REG2_Out_data_format");
	cr_expect_eq(atomic_load(&dp->implied_srcb[1]), 0, "the other SrcB bank keeps its reset format");
	bh_device_close(dev);
}

/* TRISC0 pushes the words `pre`, then w, which faults with kind and why at its push. Closes dev. */
static void expect_push_fault(struct bh_device *dev, const uint32_t *pre, unsigned npre, uint32_t w, const char *kind,
			      const char *why)
{
	expect_push_fault_after(dev, BH_CORE_TRISC0, pre, npre, w, kind, why);
	bh_device_close(dev);
}

/* The integer packer modes and ReLU modes outside the documentation fault by name: not modelled, or
 * undefined (a bad register value). */
Test(tensix_unpack, int8_and_relu_pack_modes_outside_the_documentation_fault_by_name)
{
	static const struct { uint32_t inter, rd, descale, relu, edge; const char *kind, *why; } c[] = {
		{ TT_FMT_BF16, 1u | 2u, 0, 0, 0, "not modelled",
		  "PACR: Read_unsigned with an intermediate format other than INT8 is not modelled" },
		{ TT_FMT_INT8, 1u, 3u, 0, 0, "not modelled",
		  "PACR: INT_DESCALE_Mode 1 (a ShiftAmount per datum row) is not modelled" },
		{ TT_FMT_INT16, 0, 0, 1u << 2, 0, "not modelled",
		  "PACR: ReLU of an INT16 intermediate (its sign is not documented) is not modelled" },
		{ TT_FMT_INT32, 1u, 0, 3u << 2, 0, "bad register value",
		  "PACR: ReLU mode 3 of an integer intermediate (undefined: only modes 0 and 1 are)" },
		{ TT_FMT_BF16, 1u, 0, 2u << 2 | 0x8000u << 6, 0, "bad register value",
		  "PACR: ReLU mode 2 with the threshold 0x8000 <= -0 (undefined)" },
		{ TT_FMT_INT32, 1u, 0, 0, 1u << 16 | 0xFFFEu, "bad register value",
		  "PACR: an edge mask's -inf (PCK_EDGE_MODE 1) in an integer intermediate format (undefined)" },
	};
	for (size_t k = 0; k < N(c); k++) {
		struct bh_device *dev = open_packer();
		cfg(dev, BH_DP_CFG_ALU, BH_DP_ALU_FP32 | c[k].inter << 25);
		cfg(dev, THCON(0) + 6, 1u | c[k].inter << 4 | c[k].inter << 8);
		cfg(dev, 18, c[k].rd);
		cfg(dev, 8, c[k].descale);
		cfg(dev, 2, c[k].relu);
		if (c[k].edge)
			cfg(dev, 24, c[k].edge);
		const uint32_t pre[] = { SETADCXX(4, 15, 0) };
		expect_push_fault(dev, pre, N(pre), PACR(0, 1), c[k].kind, c[k].why);
	}
}

/* Packer ReLU (Packers/ReLU.md; STACC_RELU in Config word 2), after the early conversion: mode 1
 * zeroes x <= 0 (-0 too), mode 2 x <= the threshold, mode 3 zeroes x <= 0 and clamps x > the
 * threshold to it. The threshold is BF16 for FP32 and BF16 intermediates (5.5 here), FP16 for an
 * FP16 one (from a 16-bit Dst); a BF16 intermediate compares the rounded datum. An INT32
 * or INT8 intermediate's mode 1 zeroes the negative values (sign and magnitude). */
/* PACR of the Dst face left by unpack_face_to_dst32_then_pack, with a `fmt` intermediate and output
 * (an FP32 Dst), to L1 at `at`; the 256 words written there into out. */
static void pack_face_as(struct bh_device *dev, unsigned fmt, uint32_t at, uint32_t out[256])
{
	cfg(dev, BH_DP_CFG_ALU, BH_DP_ALU_FP32 | fmt << 25);
	cfg(dev, THCON(0) + 6, 1u | fmt << 4 | fmt << 8);
	cfg(dev, THCON(0) + 5, at / 16 - 1);
	pack_face(dev, fmt);
	bh_tile_l1_read(tile0(dev), at, out, 256 * sizeof *out);
}

static float relu_ref(float x, unsigned mode, float t)
{
	if (x <= 0 || (mode == 2 && x <= t))
		return 0;
	return mode == 3 && x > t ? t : x;
}

Test(tensix_unpack, packer_relu_zeroes_and_clamps_after_the_early_conversion)
{
	struct bh_device *dev = open_packer();
	float in[256];
	for (unsigned k = 0; k < 256; k++)
		in[k] = ((float)k - 100.f) / 8.f + 0x1p-10f * (float)(k & 3);   /* FP32 between BF16 values */
	in[5] = -0.0f;
	in[150] = 5.5f;                                                     /* the threshold itself */
	unpack_face_to_dst32_then_pack(dev, in, TT_FMT_FP32, TT_FMT_FP32);
	for (unsigned mode = 1; mode < 4; mode++) {
		cfg(dev, 2, mode << 2 | 0x40B0u << 6);   /* ReluThreshold 5.5 (BF16) */
		for (unsigned bf16 = 0; bf16 < 2; bf16++) {
			uint32_t fmt = bf16 ? TT_FMT_BF16 : TT_FMT_FP32, at = 0x31000 + 0x800 * (mode * 2 + bf16);
			uint32_t out[256];
			pack_face_as(dev, fmt, at, out);
			for (unsigned k = 0; k < 256; k++) {
				double v = in[k], ulp = v ? ldexp(1, ilogb(v) - 7) : 1;
				float x = bf16 ? (float)copysign(floor(fabs(v) / ulp + 0.5) * ulp, v) : in[k];
				uint32_t got = bf16 ? (uint32_t)((const uint16_t *)out)[k] << 16 : out[k];
				cr_assert_eq(got, b_of(relu_ref(x, mode, 5.5f)), "mode %u %s datum %u: %a -> %a", mode,
					     bf16 ? "BF16" : "FP32", k, (double)in[k], (double)f_of(got));
			}
		}
	}
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	for (unsigned k = 0; k < 256; k++) {   /* FP16-exact datums in a 16-bit FP16 Dst */
		in[k] = ((float)k - 100.f) / 8.f;
		uint16_t x = tt_fp32_to_fp16(b_of(in[k]), TT_ROUND_NEAREST_AWAY);
		tt_dst16_write(dp, k / 16, k % 16, tt_dst_from_fp16(x));
	}
	cfg(dev, 2, 3u << 2 | 0x4580u << 6);   /* mode 3, ReluThreshold 5.5 (FP16) */
	cfg(dev, 18, 0);
	cfg(dev, BH_DP_CFG_ALU, (uint32_t)TT_FMT_FP16 << 25);
	cfg(dev, THCON(0) + 6, 1u | TT_FMT_FP16 << 4 | TT_FMT_FP16 << 8);
	cfg(dev, THCON(0) + 5, 0x38000 / 16 - 1);
	pack_face(dev, TT_FMT_FP16);
	uint16_t h[256];
	bh_tile_l1_read(tile0(dev), 0x38000, h, sizeof h);
	for (unsigned k = 0; k < 256; k++)
		cr_assert_eq(f_of(tt_fp16_to_fp32(h[k])), relu_ref(in[k], 3, 5.5f), "FP16 datum %u", k);
	uint32_t ints[256], out[256];
	for (unsigned k = 0; k < 256; k++)
		ints[k] = (uint32_t)((int)k * 5 - 600);
	cfg(dev, 2, 1u << 2);
	unpack_face_to_dst32_then_pack(dev, ints, TT_FMT_INT32, TT_FMT_INT32);
	bh_tile_l1_read(tile0(dev), 0x30000, out, sizeof out);
	for (unsigned k = 0; k < 256; k++)
		cr_assert_eq(out[k], ints[k] >> 31 ? 0 : ints[k], "INT32 datum %u", k);
	/* INT8 (raw) from the same Dst: sign and magnitude, negative values zeroed */
	cfg(dev, BH_DP_CFG_ALU, BH_DP_ALU_FP32 | (uint32_t)TT_FMT_INT8 << 25);
	cfg(dev, THCON(0) + 6, 1u | TT_FMT_INT8 << 4 | TT_FMT_INT8 << 8);
	cfg(dev, 18, 1u | 4u);
	cfg(dev, THCON(0) + 5, 0x39000 / 16 - 1);
	pack_face(dev, TT_FMT_INT8);
	uint8_t b[256];
	bh_tile_l1_read(tile0(dev), 0x39000, b, sizeof b);
	for (unsigned k = 0; k < 256; k++)
		cr_assert_eq(b[k], ints[k] >> 31 ? 0 : int8_ref(ints[k], false, true, 0), "INT8 datum %u", k);
	bh_device_close(dev);
}

/* ---- Edge masking (Packers/EdgeMasking.md): PCK_EDGE_OFFSET_SEC0..3 (words 24-27, mask 15:0; in
 * word 24 also PCK_EDGE_MODE 16 and PCK_EDGE_TILE_ROW_SET_SELECT 24:17), TILE_ROW_SET_MAPPING_0..3
 * (words 20-23, a 2-bit mask number per tile position Y), TILE_FACE_SET_MAPPING_0..3 (words 36-39, a
 * row set per Z), PCK_EDGE_TILE_FACE_SET_SELECT (word 19), PACK_COUNTERS_SEC0 (word 28) ---- */

static const uint16_t edge_masks[4] = { 0xFFFF, 0x00FF, 0x0F0F, 0x8001 };
static const uint8_t edge_rows[16] = { 1, 1, 2, 3, 0, 0, 1, 2, 3, 3, 0, 1, 2, 0, 3, 1 };

static uint32_t edge_rows_word(unsigned rot)
{
	uint32_t v = 0;
	for (unsigned y = 0; y < 16; y++)
		v |= (uint32_t)((edge_rows[y] + rot) & 3) << 2 * y;
	return v;
}

/* Packs the face of FP32 datums `in` (already in Dst) as `fmt` to L1 `at` with the given edge
 * configuration words, then checks datum i against mask number mask_of(i) (zero or -inf). */
static void pack_edges(struct bh_device *dev, unsigned fmt, uint32_t at, uint32_t w24, uint32_t w19, uint32_t w28,
		       const float *in, unsigned (*mask_of)(unsigned i))
{
	for (unsigned c = 0; c < 4; c++)
		cfg(dev, 24 + c, edge_masks[c] | (c ? 0 : w24));
	cfg(dev, 19, w19);
	cfg(dev, 28, w28);
	uint32_t out[256];
	pack_face_as(dev, fmt, at, out);
	bool inf = w24 >> 16 & 1;
	for (unsigned i = 0; i < 256; i++) {
		bool keep = edge_masks[mask_of(i)] >> (i % 16) & 1;
		float want = keep ? in[i] : inf ? -INFINITY : 0;
		uint32_t got = fmt == TT_FMT_BF16 ? (uint32_t)((const uint16_t *)out)[i] << 16 : out[i];
		cr_assert_eq(got, b_of(want), "fmt %u w24 %08x w19 %03x w28 %08x datum %u (mask %u): %a want %a", fmt, w24, w19,
			     w28, i, mask_of(i), (double)f_of(got), (double)want);
	}
}

/* Tile positions: Y is the row (16 datums each) when pack_reads_per_xy_plane never matches (0). */
static unsigned by_row(unsigned i) { return edge_rows[(i / 16) & 15]; }
/* pack_reads_per_xy_plane 4: Y = row % 4 (Z = row / 4 unused by row sets). */
static unsigned by_row_mod4(unsigned i) { return edge_rows[(i / 16) % 4]; }
/* PCK_EDGE_TILE_ROW_SET_SELECT 2: row set 2, whose mapping is row set 0's rotated by 2. */
static unsigned by_row_set2(unsigned i) { return (edge_rows[(i / 16) & 15] + 2) & 3; }
/* Face sets: Z = ZOffset 2 + row / 4 picks row set b = TILE_FACE_SET_MAPPING_1[Z] = (Z * 3) % 4,
 * whose mapping (rotated by b) gives the mask for Y = row % 4. */
static unsigned by_face(unsigned i)
{
	unsigned z = 2 + (i / 16) / 4, b = (z * 3) % 4;
	return (edge_rows[(i / 16) % 4] + b) & 3;
}

Test(tensix_unpack, edge_masks_zero_or_minus_inf_by_row_set_and_face_set)
{
	struct bh_device *dev = open_packer();
	float in[256];
	for (unsigned k = 0; k < 256; k++)
		in[k] = (float)((int)k - 128) / 4.f + 0.25f;   /* BF16-exact, none zero */
	unpack_face_to_dst32_then_pack(dev, in, TT_FMT_FP32, TT_FMT_FP32);
	for (unsigned b = 0; b < 4; b++)
		cfg(dev, 20 + b, edge_rows_word(b));
	for (unsigned inf = 0; inf < 2; inf++) {
		uint32_t w24 = inf << 16;
		pack_edges(dev, TT_FMT_FP32, 0x31000, w24, 0, 0, in, by_row);   /* row set 0 */
		pack_edges(dev, TT_FMT_BF16, 0x32000, w24, 0, 4u << 8, in, by_row_mod4);
		pack_edges(dev, TT_FMT_BF16, 0x35000, w24 | 2u << 17, 0, 0, in, by_row_set2);
	}
	/* Face sets: enable, packer 0 uses TILE_FACE_SET_MAPPING_1; Z starts at ZOffset 2. */
	uint32_t faces = 0;
	for (unsigned z = 0; z < 16; z++)
		faces |= ((z * 3) % 4) << 2 * z;
	cfg(dev, 37, faces);
	cfg(dev, 180, 2u << 12);
	pack_edges(dev, TT_FMT_FP32, 0x34000, 1u << 16, 1u << 8 | 1u, 4u << 8, in, by_face);
	bh_device_close(dev);
}

/* The tile position goes on from one PACR to the next while the output stream does (no Last) and
 * starts again at 0 with a fresh output: two PACRs of Dst rows 0-7, the second with Last (rows 0-7
 * of the row mapping), then four PACRs of the same rows, only the last with Last (rows 0-7,
 * 8-15). */
Test(tensix_unpack, edge_mask_positions_continue_until_the_last_pacr)
{
	struct bh_device *dev = open_packer();
	float in[256];
	for (unsigned k = 0; k < 256; k++)
		in[k] = (float)k + 1.f;
	unpack_face_to_dst32_then_pack(dev, in, TT_FMT_FP32, TT_FMT_FP32);
	for (unsigned c = 0; c < 4; c++)
		cfg(dev, 24 + c, edge_masks[c]);
	cfg(dev, 20, edge_rows_word(0));
	cfg(dev, THCON(0) + 5, 0x36000 / 16 - 1);
	cfg(dev, 12, 64u << 16);
	const uint32_t w1[] = { SETC16(37, 4u), SETC16(38, 1u << 5), SETADCXX(4, 15, 0), PACR(0, 0), PACR(1, 1) },
		       w2[] = { PACR(0, 0), PACR(1, 0), PACR(0, 0), PACR(1, 1) };
	run_pushes(dev, BH_CORE_TRISC0, w1, N(w1));
	cfg(dev, THCON(0) + 5, 0x37000 / 16 - 1);
	run_pushes(dev, BH_CORE_TRISC0, w2, N(w2));
	uint32_t out[384];
	bh_tile_l1_read(tile0(dev), 0x36000, out, 128 * 4);
	bh_tile_l1_read(tile0(dev), 0x37000, out + 128, 256 * 4);
	for (unsigned i = 0; i < 384; i++) {
		unsigned y = i < 128 ? i / 16 : (i - 128) / 16;
		bool keep = edge_masks[edge_rows[y]] >> (i % 16) & 1;
		cr_assert_eq(out[i], keep ? b_of(in[i % 128]) : 0, "datum %u (Y %u): %a", i, y, (double)f_of(out[i]));
	}
	bh_device_close(dev);
}

/* ---- The Dst read interfaces (BlackholeA0 PACR.md): ReadIntfSel (bits 11:8) enables interfaces,
 * 0 all four; interface i reads Dst row (StartRow & ~3) | i, a row of the ADC X range each, packed
 * in increasing i; a mask that shifted by StartRow & 3 leaves the group of four is undefined ---- */

/* Dst16b rows 0-31 hold BF16 bit patterns that name their row and column (normal numbers, kept
 * exactly by the early conversion). */
static uint16_t rowcol(unsigned row, unsigned col)
{
	return (uint16_t)(0x4000u | row << 4 | col);
}

static struct bh_device *open_rowcol_on(struct bh_device *dev)
{
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	for (unsigned r = 0; r < 32; r++)
		for (unsigned c = 0; c < 16; c++)
			tt_dst16_write(dp, r, c, tt_dst_from_bf16(rowcol(r, c)));
	cfg(dev, BH_DP_CFG_ALU, (uint32_t)TT_FMT_BF16 << 25);
	cfg(dev, THCON(0) + 6, 1u | TT_FMT_BF16 << 4 | TT_FMT_BF16 << 8);
	cfg(dev, 12, 32u << 16);   /* Ystride: a Dst row of BF16 */
	return dev;
}

static struct bh_device *open_rowcol(void)
{
	return open_rowcol_on(open_packer());
}

#define SENTINEL 0xDEADu

/* `n` halfwords at `at` set to SENTINEL. */
static void l1_sentinel(struct bh_device *dev, uint32_t at, unsigned n)
{
	uint16_t s[512];
	for (unsigned k = 0; k < n; k++)
		s[k] = SENTINEL;
	bh_tile_l1_write(tile0(dev), at, s, n * 2);
}

/* Every ReadIntfSel from StartRow 8, 9, 10 and 11 (ADC Y, a row each), whole rows: the rows
 * (StartRow & ~3) | i of the enabled interfaces i in increasing order, 16 datums each, and nothing
 * after them (the 49th datum of a three-interface PACR onwards stays untouched). The combinations
 * the page leaves undefined fault (the next test). */
Test(tensix_unpack, pacr_read_intf_sel_reads_rows_start_and_not_3_or_i_in_order)
{
	struct bh_device *dev = open_rowcol();
	uint32_t at = 0x40000;
	unsigned runs = 0;
	for (unsigned sr = 8; sr < 12; sr++)
		for (unsigned sel = 0; sel < 16; sel++) {
			unsigned m = sel ? sel : 0xF;
			if ((m << (sr & 3)) > 0xF)
				continue;
			l1_sentinel(dev, at, 80);
			cfg(dev, THCON(0) + 5, at / 16 - 1);
			const uint32_t w[] = { SETC16(37, 0), SETADCXX(4, 15, 0), SETADC(4, 0, 1, sr), PACRI(0, sel, 1) };
			run_pushes(dev, BH_CORE_TRISC0, w, N(w));
			uint16_t out[80];
			bh_tile_l1_read(tile0(dev), at, out, sizeof out);
			unsigned n = 0;
			for (unsigned i = 0; i < 4; i++)
				for (unsigned c = 0; m >> i & 1 && c < 16; c++, n++)
					cr_assert_eq(out[n], rowcol((sr & ~3u) | i, c), "StartRow %u ReadIntfSel %#x datum %u: %04x, want "
						     "row %u col %u", sr, sel, n, out[n], (sr & ~3u) | i, c);
			for (; n < 80; n++)
				cr_assert_eq(out[n], SENTINEL, "StartRow %u ReadIntfSel %#x: datum %u written", sr, sel, n);
			at += 0x100;
			runs++;
		}
	cr_assert_eq(runs, 16 + 7 + 3 + 1, "every defined combination ran");
	bh_device_close(dev);
}

/* cb-ownership judges a PACR on every byte it writes, not on its first: CB0 (p100a: stream 8) is 4
 * pages of 32 bytes at 0x40000, 2 pushed and 1 popped (slot 1 published, the consumer's; slots 0, 2
 * and 3 free). Four BF16 rows (128 bytes) from slot 0 reach into slot 1: refused at the push, TRISC0
 * stopped there and nothing written. From slot 2 they land in slots 2 and 3 (and on past the FIFO). */
Test(tensix_unpack, pacr_reaching_into_a_held_cb_page_is_refused_by_cb_ownership)
{
	for (unsigned from = 0; from < 3; from += 2) {
		struct bh_device *dev = t_open_checks(BH_CHECKS_EXACT | BH_CHECKS_DEFAULT |
						      BH_CHECK_BIT(BH_CHECK_CB_OWNERSHIP), BH_CHECK_STOP);
		cr_assert_eq(bh_device_use_profile(dev, bh_profile_default()), BH_OK);
		open_rowcol_on(packer_masks_open(dev));
		cr_assert(bh_stream_set_cb_config(tile0(dev), 0, 0x40000, 4, 32));
		cr_assert(bh_stream_write(tile0(dev), 8, 10, 2));
		cr_assert(bh_stream_write(tile0(dev), 8, 8, 1));
		uint32_t at = 0x40000 + 32 * from;
		l1_sentinel(dev, 0x40000, 192);
		cfg(dev, THCON(0) + 5, at / 16 - 1);
		struct prog p = { 0 };
		const uint32_t pre[] = { SETC16(37, 0), SETADCXX(4, 15, 0), SETADC(4, 0, 1, 8) };
		for (unsigned k = 0; k < N(pre); k++)
			emit_push(&p, pre[k]);
		uint32_t pc;
		struct bh_core_result *r = run_push_checked(dev, BH_CORE_TRISC0, &p, PACR(0, 1), &pc);
		uint16_t out[96];
		bh_tile_l1_read(tile0(dev), 0x40000, out, sizeof out);
		if (from == 0) {
			char why[200];
			cr_assert_eq(r->status, BH_RUN_FAULTED, "status %d\n%s", r->status, r->report);
			expect_in_report(r, "check cb-ownership: on tile 0 (1,2) core trisc0\n");
			snprintf(why, sizeof why, "pc 0x%08x", pc);
			expect_in_report(r, why);
			expect_in_report(r, "PACR packs into L1 0x40020, in CB0 page 0x1 (slot 1 of 4), which is published and "
					 "the consumer still holds");
			for (unsigned n = 0; n < 96; n++)
				cr_assert_eq(out[n], SENTINEL, "datum %u written by the refused PACR", n);
		} else {
			cr_assert_eq(r->status, BH_RUN_EXITED, "status %d\n%s", r->status, r->report);
			for (unsigned n = 0; n < 64; n++)
				cr_assert_eq(out[32 + n], rowcol(8 + n / 16, n % 16), "datum %u", n);
			cr_assert_eq(bh_device_findings(dev, NULL, 0), 0);
		}
		free(r);
		bh_device_close(dev);
	}
}

/* What the page leaves undefined, or does not describe, faults by name at the PACR. */
Test(tensix_unpack, pacr_read_intf_sel_outside_its_group_and_undocumented_fields_fault_by_name)
{
	static const struct { unsigned sr, sel, x1; uint32_t r1, ctr; const char *kind, *why; } c[] = {
		{ 9, 0, 15, 0, 0, "bad register value",
		  "PACR: ReadIntfSel 0xf from Dst row 9 leaves its group of four rows (undefined)" },
		{ 11, 2, 15, 0, 0, "bad register value",
		  "PACR: ReadIntfSel 0x2 from Dst row 11 leaves its group of four rows (undefined)" },
		{ 8, 1, 255, 0, 0, "bad register value",
		  "PACR: 256 datums from column 0 leave the Dst row (undefined: a read interface packs from one row)" },
		{ 8, 0, 15, 1u << 13, 0, "not modelled",
		  "PACR: Auto_set_last_pacr_intf_sel (undocumented) is not modelled" },
		{ 8, 0, 15, 1u << 17, 0, "not modelled",
		  "PACR: pack_start_intf_pos (undocumented) is not modelled" },
		{ 8, 0, 15, 0, 1u << 23 | 4u << 8, "not modelled",
		  "PACR: pack_yz_transposed (not documented for the Dst read interfaces) is not modelled" },
	};
	for (size_t k = 0; k < N(c); k++) {
		struct bh_device *dev = open_rowcol();
		cfg(dev, THCON(0) + 6, 1u | TT_FMT_BF16 << 4 | TT_FMT_BF16 << 8 | c[k].r1);
		cfg(dev, 28, c[k].ctr);
		cfg(dev, THCON(0) + 5, 0x40000 / 16 - 1);
		const uint32_t pre[] = { SETADCXX(4, c[k].x1, 0), SETADC(4, 0, 1, c[k].sr) };
		expect_push_fault(dev, pre, N(pre), PACRI(0, c[k].sel, 1), c[k].kind, c[k].why);
	}
}

/* The tile position of edge masking advances per enabled read interface, the k'th enabled one at
 * Y + k, and starts a new xy plane (Z + 1, Y 0) only when Y lands exactly on
 * pack_reads_per_xy_plane (4 here): after 3 + 1 interfaces it does, after 3 + 3 it steps over 4
 * and goes on. Row sets by Y and, through face sets, by Z pick a different mask per row. Six PACRs
 * (ADDR_MOD_PACK 0: the next group of four Dst rows each) form one output stream. */
Test(tensix_unpack, pacr_tile_position_advances_per_enabled_interface)
{
	static const unsigned sels[] = { 0x7, 0x8, 0x7, 0x7, 0x0, 0x5 };
	struct bh_device *dev = open_rowcol();
	for (unsigned c = 0; c < 4; c++)
		cfg(dev, 24 + c, edge_masks[c]);
	for (unsigned b = 0; b < 4; b++)
		cfg(dev, 20 + b, edge_rows_word(b));
	uint32_t faces = 0;
	for (unsigned z = 0; z < 16; z++)
		faces |= ((z * 3 + 1) % 4) << 2 * z;
	cfg(dev, 37, faces);              /* TILE_FACE_SET_MAPPING_1 */
	cfg(dev, 19, 1u << 8 | 1u);       /* face sets on, mapping 1 */
	cfg(dev, 28, 4u << 8);            /* pack_reads_per_xy_plane 4 */
	cfg(dev, THCON(0) + 5, 0x40000 / 16 - 1);
	l1_sentinel(dev, 0x40000, 272);
	struct prog p = { 0 };
	emit_push(&p, SETC16(37, 4u));
	emit_push(&p, SETADCXX(4, 15, 0));
	for (unsigned q = 0; q < N(sels); q++)
		emit_push(&p, PACRI(0, sels[q], q == N(sels) - 1));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_assert_eq(run_core(dev, BH_CORE_TRISC0, &p), 0);
	uint16_t out[272];
	bh_tile_l1_read(tile0(dev), 0x40000, out, sizeof out);
	unsigned y = 0, z = 0, n = 0, masked = 0, zs = 0;
	for (unsigned q = 0; q < N(sels); q++) {
		unsigned m = sels[q] ? sels[q] : 0xF, k = 0;
		for (unsigned i = 0; i < 4; i++) {
			if (!(m >> i & 1))
				continue;
			unsigned b = (z * 3 + 1) % 4, mask = edge_masks[(edge_rows[(y + k++) & 15] + b) & 3];
			for (unsigned c = 0; c < 16; c++, n++) {
				uint16_t want = mask >> c & 1 ? rowcol(4 * q + i, c) : 0;
				masked += !want;
				cr_assert_eq(out[n], want, "PACR %u interface %u (Y %u Z %u) col %u: %04x want %04x", q, i,
					     y + k - 1, z, c, out[n], want);
			}
		}
		y = (y + k) & 0xFF;
		if (y == 4) {
			y = 0;
			z++;
		}
		zs += z;
	}
	cr_assert_eq(n, 16u * (3 + 1 + 3 + 3 + 4 + 2));
	cr_assert_eq(zs, 5, "one new xy plane, after the second PACR");
	cr_assert(masked > 16 && masked < n - 16, "%u of %u datums masked", masked, n);
	for (; n < 272; n++)
		cr_assert_eq(out[n], SENTINEL);
	bh_device_close(dev);
}

/* A part of each row (ADC X 4..11: eight columns) through two PACRs of one output stream: each
 * enabled interface packs those columns of its row, the second PACR's datums follow the first's
 * directly (the L1 position advances by exactly N * D datums). */
Test(tensix_unpack, pacr_packs_the_adc_x_columns_of_each_interface_contiguously)
{
	struct bh_device *dev = open_rowcol();
	cfg(dev, THCON(0) + 5, 0x40000 / 16 - 1);
	l1_sentinel(dev, 0x40000, 48);
	const uint32_t w[] = { SETC16(37, 4u), SETADCXX(4, 11, 4), SETADC(4, 0, 1, 0), PACRI(0, 0x6, 0), PACRI(0, 0x9, 1) };
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
	static const unsigned rows[] = { 1, 2, 4, 7 };
	uint16_t out[48];
	bh_tile_l1_read(tile0(dev), 0x40000, out, sizeof out);
	for (unsigned n = 0; n < 32; n++)
		cr_assert_eq(out[n], rowcol(rows[n / 8], 4 + n % 8), "datum %u: %04x", n, out[n]);
	for (unsigned n = 32; n < 48; n++)
		cr_assert_eq(out[n], SENTINEL, "datum %u written", n);
	bh_device_close(dev);
}

/* The output address: L1_Dest_addr + 1 + YZW >> 4 (16-byte units), YZW = PCK0_ADDR_BASE_REG_1 + ADC
 * channel 1's Y, Z, W times PCK0_ADDR_CTRL_XY_REG_1/ZW_REG_1's strides, in bytes (ttsim's
 * Blackhole rule): 0x108 + 3 * 0x40 + 2 * 0x200 + 0x1000 = 0x15C8, 0x15C0 bytes on. Wormhole's
 * YZW & ~0xF would be 0x15C0 16-byte units on (0x15C00 bytes): that L1 stays untouched. */
Test(tensix_unpack, pacr_output_address_adds_yzw_bytes_in_16_byte_units)
{
	struct bh_device *dev = open_rowcol();
	const uint32_t base = 0x40000, yzw = 0x108 + 3 * 0x40 + 2 * 0x200 + 0x1000;
	cfg(dev, THCON(0) + 5, base / 16 - 1);
	cfg(dev, 17, 0x108);                    /* PCK0_ADDR_BASE_REG_1 */
	cfg(dev, 14, 0x40u << 16);              /* Ystride (channel 1) */
	cfg(dev, 15, 0x200u | 0x1000u << 16);   /* Zstride, Wstride (channel 1) */
	l1_sentinel(dev, base, 32);
	l1_sentinel(dev, base + (yzw >> 4 << 4), 32);
	l1_sentinel(dev, base + ((yzw & ~0xFu) << 4), 32);
	const uint32_t w[] = { SETC16(37, 0), SETADCXX(4, 15, 0), SETADC(4, 0, 1, 4), SETADC(4, 1, 1, 3), SETADC(4, 1, 2, 2),
			       SETADC(4, 1, 3, 1), PACRI(0, 0x3, 1) };
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
	uint16_t out[32], wh[32], at0[32];
	bh_tile_l1_read(tile0(dev), base + 0x15C0, out, sizeof out);
	bh_tile_l1_read(tile0(dev), base + 0x15C00, wh, sizeof wh);
	bh_tile_l1_read(tile0(dev), base, at0, sizeof at0);
	for (unsigned n = 0; n < 32; n++) {
		cr_assert_eq(out[n], rowcol(4 + n / 16, n % 16), "datum %u at +0x15C0: %04x", n, out[n]);
		cr_assert_eq(wh[n], SENTINEL, "Wormhole's address (+0x15C00) written at %u", n);
		cr_assert_eq(at0[n], SENTINEL, "YZW ignored: datum %u at L1_Dest_addr", n);
	}
	bh_device_close(dev);
}

/* Three interfaces to BFP4 with Last: three shared exponents (one per row) and 24 bytes of
 * mantissas, then the flush completes both 16-byte blocks with zeros (PACR.md's example: 48
 * datums of BFP4 and eight zero bytes); L1 after the blocks stays untouched. */
Test(tensix_unpack, pacr_flush_pads_a_partial_16_byte_block_with_zeros)
{
	struct bh_device *dev = open_rowcol();
	uint8_t before[64], got[64];
	memset(before, 0xAD, sizeof before);
	bh_tile_l1_write(tile0(dev), 0x40000, before, sizeof before);
	cfg(dev, THCON(0) + 6, 1u | TT_FMT_BFP4 << 4 | TT_FMT_BF16 << 8);
	cfg(dev, THCON(0) + 4, 1u << 16);   /* Exp_section_size: one 16-byte unit */
	cfg(dev, THCON(0) + 5, 0x40000 / 16 - 1);
	const uint32_t w[] = { SETC16(37, 0), SETADCXX(4, 15, 0), SETADC(4, 0, 1, 0), PACRI(0, 0x7, 1) };
	run_pushes(dev, BH_CORE_TRISC0, w, N(w));
	bh_tile_l1_read(tile0(dev), 0x40000, got, sizeof got);
	for (unsigned k = 0; k < 3; k++)
		cr_assert_eq(got[k], 0x80, "exponent %u: %#x", k, got[k]);   /* rows 0-2: BF16 exponent 0x80 */
	for (unsigned k = 3; k < 16; k++)
		cr_assert_eq(got[k], 0, "exponent block byte %u: %#x", k, got[k]);
	unsigned set = 0;
	for (unsigned k = 16; k < 40; k++)
		set += got[k] != 0xAD;
	cr_assert_eq(set, 24, "24 mantissa bytes written");
	for (unsigned k = 40; k < 48; k++)
		cr_assert_eq(got[k], 0, "padding byte %u: %#x", k - 16, got[k]);
	for (unsigned k = 48; k < 64; k++)
		cr_assert_eq(got[k], 0xAD, "byte %u after the block written", k);
	bh_device_close(dev);
}

/* ---- L1 accumulation (Pack_L1_Acc, THCON_SEC0_REG1 word 1 bit 19): L1 += datum ---- */

static uint32_t flush32(uint32_t x) { return (x & 0x7F800000u) ? x : x & 0x80000000u; }

/* FP32: denormal operands and results are signed zeros, the sum rounds to nearest even (the host's
 * float addition), every NaN is 0x7FC00000. */
static uint32_t acc_fp32_ref(uint32_t old, uint32_t d)
{
	float r = f_of(flush32(old)) + f_of(flush32(d));
	return isnan(r) ? 0x7FC00000u : flush32(b_of(r));
}

/* BF16: the exact sum of the (flushed) operands rounded to 8 significant bits, ties to even
 * (ties away when `away`); below BF16's normal range a signed zero, past it infinity. */
static uint16_t acc_bf16_ref(uint16_t old, uint16_t d, bool away)
{
	float a = f_of(flush32((uint32_t)old << 16)), b = f_of(flush32((uint32_t)d << 16));
	if (isinf(a) || isinf(b))
		return isnan(a + b) ? 0x7FC0 : (uint16_t)(b_of(a + b) >> 16);
	double x = (double)a + b;
	if (x == 0)
		return (uint16_t)(old & d & 0x8000);
	if (ilogb(x) < -126)
		return x < 0 ? 0x8000 : 0;
	double ulp = ldexp(1, ilogb(x) - 7), q = x / ulp;
	q = away ? copysign(floor(fabs(q) + 0.5), q) : nearbyint(q);
	return (uint16_t)(b_of((float)(q * ulp)) >> 16);
}

static uint16_t lcg_bf16(uint32_t *s)
{
	uint32_t r = lcg(s);
	return (uint16_t)((r & 0x8000) | (0x3800 + (r >> 4) % 0x1000) | (r & 0x7F));   /* 2^-16 .. 2^16 */
}

/* Pack the face in Dst (FP32, rows 4-19: unpack_face_to_dst32_then_pack) once more as `fmt` (BF16:
 * an exact BF16 intermediate) to L1 `at`, which holds `old`, with Pack_L1_Acc set. */
static void pack_acc_face(struct bh_device *dev, unsigned fmt, uint32_t at, const void *old, size_t bytes)
{
	bh_tile_l1_write(tile0(dev), at, old, bytes);
	cfg(dev, BH_DP_CFG_ALU, BH_DP_ALU_FP32 | fmt << 25);
	cfg(dev, THCON(0) + 6, 1u | fmt << 4 | fmt << 8);
	cfg(dev, THCON(0) + 7, 1u << 19);
	cfg(dev, THCON(0) + 5, at / 16 - 1);
	pack_face(dev, fmt);
	cfg(dev, THCON(0) + 7, 0);
}

/* FP32 and BF16 accumulation against the rules above, with operands whose sums are ties (1 + k/128
 * plus 1, 2, 3 or 4 half-ulps), wide random ones, denormal operands and results, infinities and a
 * NaN in L1. Overwriting, rounding ties away or not flushing would each change many datums. */
Test(tensix_unpack, packer_l1_accumulation_adds_in_fp32_and_bf16_to_nearest_even)
{
	struct bh_device *dev = open_packer();
	uint32_t s = 7, in[256], old32[256], got32[256];
	uint16_t in16[256], old16[256], got16[256];
	for (unsigned k = 0; k < 256; k++) {
		if (k < 128) {
			in16[k] = (uint16_t)((k & 4 ? 0xBB80 : 0x3B80) + (k % 4 == 3 ? 0x40 : 0) + (k % 4 == 1 ? 0x80 : 0));
			in16[k] = k % 4 == 3 ? (uint16_t)((k & 4 ? 0xBBC0 : 0x3BC0)) : in16[k];   /* +-2^-8, 2^-7, 1.5*2^-8 */
			old16[k] = (uint16_t)(0x3F80 + k);
		} else {
			in16[k] = lcg_bf16(&s);
			old16[k] = lcg_bf16(&s);
		}
		in[k] = (uint32_t)in16[k] << 16;
		old32[k] = k < 128 ? 0x3F800000u + k : (uint32_t)old16[k] << 16 | (lcg(&s) & 0xFFFF);
		if (k < 128)
			in[k] = b_of((float)ldexp((k & 4 ? -1.0 : 1.0) * (k % 4 + 1), -24));   /* 1..4 half-ulps of 1 */
	}
	old32[200] = 0x00000005;  old16[200] = 0x0005;            /* denormal in L1: read as zero */
	old32[201] = 0x00C00000;  in[201] = 0x80800000;           /* the sum 2^-127 is a denormal: +0 */
	old16[201] = 0x00C0;      in16[201] = 0x8080;
	old32[202] = 0x7F800000;  old16[202] = 0x7F80;            /* +inf + x */
	old32[203] = 0x7F800001;                                  /* a NaN in FP32: 0x7FC00000 */
	old32[204] = 0x7F7FFFFF;  in[204] = 0x7F7FFFFF;           /* overflow: +inf */
	old16[204] = 0x7F7F;      in16[204] = 0x7F7F;
	old32[205] = 0xC0000000;  in[205] = 0x40000000;           /* cancellation: +0 */
	old16[205] = 0xC000;      in16[205] = 0x4000;
	unpack_face_to_dst32_then_pack(dev, in, TT_FMT_FP32, TT_FMT_FP32);
	pack_acc_face(dev, TT_FMT_FP32, 0x32000, old32, sizeof old32);
	bh_tile_l1_read(tile0(dev), 0x32000, got32, sizeof got32);
	for (unsigned k = 0; k < 256; k++) {
		uint32_t want = acc_fp32_ref(old32[k], in[k]);
		cr_assert_eq(got32[k], want, "FP32 datum %u: %08x + %08x = %08x, want %08x", k, old32[k], in[k], got32[k], want);
	}
	cr_assert_eq(got32[201], 0);
	cr_assert_eq(got32[203], 0x7FC00000u);
	cr_assert_eq(got32[204], 0x7F800000u);
	cr_assert_eq(f_of(got32[0]), 1.0f, "1 + 2^-24 is a tie: to even, 1");
	cr_assert_eq(f_of(got32[1]), 1.0f + 0x1p-22f, "1 + 2^-23 + 2^-24 is a tie: to even, up");
	/* BF16 from the same Dst (the values are BF16-exact, the early conversion keeps them). */
	for (unsigned k = 0; k < 256; k++)
		in[k] = (uint32_t)in16[k] << 16;
	unpack_face_to_dst32_then_pack(dev, in, TT_FMT_FP32, TT_FMT_FP32);
	pack_acc_face(dev, TT_FMT_BF16, 0x33000, old16, sizeof old16);
	bh_tile_l1_read(tile0(dev), 0x33000, got16, sizeof got16);
	unsigned ties = 0;
	for (unsigned k = 0; k < 256; k++) {
		uint16_t want = acc_bf16_ref(old16[k], in16[k], false);
		ties += want != acc_bf16_ref(old16[k], in16[k], true);
		cr_assert_eq(got16[k], want, "BF16 datum %u: %04x + %04x = %04x, want %04x", k, old16[k], in16[k], got16[k],
			     want);
	}
	cr_assert_gt(ties, 20, "ties to even and ties away differ on %u datums only", ties);
	cr_assert_eq(got16[0], 0x3F80, "1 + 2^-8 is a tie: to even, 1");
	cr_assert_eq(got16[1], 0x3F82, "(1 + 2^-7) + 2^-7: exact");
	cr_assert_eq(got16[2], 0x3F82, "(1 + 2^-6) + 2^-8 is a tie: to even, 0x3F82 (ties away: 0x3F83)");
	cr_assert_eq(got16[201], 0);
	cr_assert_eq(got16[202], 0x7F80);
	cr_assert_eq(got16[204], 0x7F80);
	cr_assert_eq(got16[205], 0);
	bh_device_close(dev);
}

/* FP16 (A-exponent) data, erratum model: exponent fields 1-31 read as normal numbers (no
 * infinity or NaN), sums rounded to nearest even; below 2^-15 or past 0x7BFF.. the all-ones NaN
 * 0x7FFF of the sum's sign, in [2^-15, 2^-14) a signed zero, an exact cancellation of an L1 value of
 * exponent >= 30 0x7FFF. */
static double fp16_read(uint16_t h)
{
	return (h & 0x8000 ? -1 : 1) * ((h & 0x7C00) ? ldexp(1 + (h & 0x3FF) / 1024.0, (h >> 10 & 31) - 15) : 0);
}

static uint16_t acc_fp16_ref(uint16_t old, uint16_t d)
{
	double x = fp16_read(old) + fp16_read(d);
	uint16_t sign = x < 0 || (x == 0 && (old & d & 0x8000)) ? 0x8000 : 0;
	if (x == 0)
		return (uint16_t)(sign | ((old >> 10 & 31) >= 30 ? 0x7FFF : 0));
	if (ilogb(x) < -15)
		return sign | 0x7FFF;
	if (ilogb(x) < -14)
		return sign;
	double ulp = ldexp(1, ilogb(x) - 10), q = nearbyint(fabs(x) / ulp) * ulp;
	unsigned bits = (unsigned)(ilogb(q) + 15) << 10 | ((unsigned)(q / ldexp(1, ilogb(q) - 10)) - 1024);
	return (uint16_t)(sign | (bits > 0x7FFF ? 0x7FFF : bits));
}

Test(tensix_unpack, packer_l1_accumulation_of_fp16_faults_unless_the_erratum_is_modelled)
{
	for (unsigned model = 0; model < 2; model++) {
		struct bh_device *dev = packer_masks_open(t_open_cfg(&(struct bh_device_config){
			.num_tiles = 1, .hw_bugs = model ? BH_HW_BUG_PACK_L1ACC_FP16 : 0 }));
		struct tt_dp *dp = tile0(dev)->tensix->dp;
		uint32_t s = 3;
		uint16_t old[256], d[256], got[256];
		for (unsigned k = 0; k < 256; k++) {
			d[k] = (uint16_t)(lcg(&s) & 0xFFFF);
			d[k] = (d[k] & 0x7C00) == 0x7C00 ? d[k] ^ 0x4000 : d[k];   /* Dst holds no FP16 inf/NaN */
			old[k] = (uint16_t)(lcg(&s) & 0xFFFF);
		}
		for (unsigned k = 0; k < 32; k++) {   /* close magnitudes: small sums, cancellations */
			old[k] = (uint16_t)(d[k] ^ 0x8000) + (uint16_t)(k % 8);
			old[k] = k < 4 ? (uint16_t)(0x7800 + k) : old[k];
			d[k] = k < 4 ? (uint16_t)(0xF800 + k) : d[k];         /* exponent 30, exact cancellation */
		}
		old[40] = 0x7BFF;  d[40] = 0x7BFF;     /* 2 * 65504: past FP16, 0x7FFF */
		old[41] = 0x7C00;  d[41] = 0x3C00;     /* exponent 31 reads as 2^16: 65536 + 1 -> 65536 */
		old[42] = 0x0400;  d[42] = 0x8200;     /* 2^-14 - denormal(=0): 2^-14 */
		old[43] = 0x0401;  d[43] = 0x8400;     /* 2^-24: below 2^-15, 0x7FFF */
		for (unsigned k = 0; k < 256; k++)
			tt_dst16_write(dp, k / 16, k % 16, tt_dst_from_fp16(d[k]));
		bh_tile_l1_write(tile0(dev), 0x34000, old, sizeof old);
		cfg(dev, 18, 0);
		cfg(dev, BH_DP_CFG_ALU, (uint32_t)TT_FMT_FP16 << 25);
		cfg(dev, THCON(0) + 6, 1u | TT_FMT_FP16 << 4 | TT_FMT_FP16 << 8);
		cfg(dev, THCON(0) + 7, 1u << 19);
		cfg(dev, THCON(0) + 5, 0x34000 / 16 - 1);
		cfg(dev, 12, 32u << 16);
		struct prog p = { 0 };
		static const uint32_t face[] = { PACK_FACE_WORDS };
		for (unsigned k = 0; k < 3; k++)
			emit_push(&p, face[k]);
		uint32_t pc = emit_push_at(&p, BH_CORE_TRISC0, face[3]);
		for (unsigned k = 4; k < N(face); k++)
			emit_push(&p, face[k]);
		emit_tensix_sync(&p);
		emit_exit_with(&p, 0);
		struct bh_core_result *r = result_new();
		run_prog(dev, BH_CORE_TRISC0, core_code_at[BH_CORE_TRISC0], &p, r);
		if (!model) {
			expect_fault(r, BH_CORE_TRISC0, pc, "bad register value",
				     "PACR: FP16 L1 accumulation meets the packer erratum (hw bug pack-l1acc-fp16)");
			free(r);
			bh_device_close(dev);
			continue;
		}
		cr_assert_eq(r->status, BH_RUN_EXITED, "%s", r->report);
		free(r);
		bh_tile_l1_read(tile0(dev), 0x34000, got, sizeof got);
		unsigned nans = 0;
		for (unsigned k = 0; k < 256; k++) {
			uint16_t want = acc_fp16_ref(old[k], d[k]);
			nans += (want & 0x7FFF) == 0x7FFF;
			cr_assert_eq(got[k], want, "FP16 datum %u: %04x + %04x = %04x, want %04x", k, old[k], d[k], got[k], want);
		}
		cr_assert_eq(got[0], 0x7FFF, "exact cancellation at exponent 30");
		cr_assert_eq(got[40], 0x7FFF);
		cr_assert_eq(got[41], 0x7C00);
		cr_assert_eq(got[42], 0x0400);
		cr_assert_eq(got[43], 0x7FFF);
		cr_assert_gt(nans, 8, "only %u erratum NaNs", nans);
		bh_device_close(dev);
	}
}

/* Modes outside the model fault by name at the instruction. */
Test(tensix_unpack, unmodelled_modes_fault_by_name)
{
	static const struct { uint32_t w; const char *why; } c[] = {
		{ UNPACR(0, 0, 0, 0, 0, 0) | 1u << 2, "UNPACR: RowSearch (bit 2) is not modelled" },
		{ TT(0x41, 1u << 17), "PACR: DstAccessMode (strided reads; undocumented with ReadIntfSel) is not modelled" },
		{ TT(0x43, 0x4), "UNPACR_NOP form 0x4 (overlay-stream pop or register write) is not modelled" },
		{ TT(0x4A, 0), "control-plane instruction PACR_SETREG is not modelled yet (its SetRegBase/SetRegHiScaler: "
			       "TDMA-RISC, undocumented)" },
		{ TT(0x1D, 0xF0F0), "data-plane instruction SETPKEDGOF is not modelled yet (no documented effect; the edge "
				    "masks are PCK_EDGE_*)" },
	};
	for (size_t k = 0; k < N(c); k++) {
		struct bh_device *dev = open_packer();
		cfg(dev, THCON(0) + 0, TT_FMT_BF16 | 1u << 4 | 16u << 16);
		cfg(dev, THCON(0) + 6, 1u | TT_FMT_BF16 << 4 | TT_FMT_BF16 << 8);
		expect_push_fault(dev, NULL, 0, c[k].w, "not modelled", c[k].why);
	}
}

/* A kernel whose packer skips the math -> pack semaphore packs Dst before math has written it:
 * the wrong data (here the zeros of a fresh Dst) reaches L1 and stays there, nothing corrects it.
 * Deterministic: math is held (no SrcA/SrcB bank yet) until unpack runs, after the pack. The
 * pipeline test above is the fixed twin. */
Test(tensix_unpack, pack_without_the_math_semaphore_packs_stale_dst)
{
	static float bv[TILES][1024];
	struct bh_device *dev = open_packer();
	put_tiles(dev, bv);
	configure(dev);
	uint16_t junk[1024];
	memset(junk, 0x5A, sizeof junk);
	bh_tile_l1_write(tile0(dev), C_AT(0), junk, sizeof junk);
	struct prog pm = { 0 }, pp = { 0 }, pu = { 0 };
	emit_push(&pm, SETC16(BH_DP_TCFG_ADDR_MOD_AB, 8u | 8u << 8));
	emit_push(&pm, SETC16(BH_DP_TCFG_ADDR_MOD_DST, 8u));
	for (unsigned r = 0; r < 8; r++)
		emit_push(&pm, ELWADD(r == 7 ? 3 : 0, 0));
	emit_tensix_sync(&pm);
	emit_exit_with(&pm, 0);
	start_core(dev, BH_CORE_TRISC1, &pm);
	wait_report_has(dev, "ELWADD until SrcA bank 0 belongs to the matrix unit");
	/* Pack with no wait on the semaphore. */
	emit_pack_modes(&pp);
	emit_cfg(&pp, THCON(0) + 5, C_AT(0) / 16 - 1);
	emit_pack_tile(&pp);
	emit_tensix_sync(&pp);
	emit_exit_with(&pp, 0);
	cr_assert_eq(run_core(dev, BH_CORE_TRISC2, &pp), 0);
	/* Now the unpacker gives math its banks and math computes, too late. */
	emit_push(&pu, SETADCXX(3, 255, 0));
	emit_cfg(&pu, THCON(0) + 12, A_AT(0) / 16 - 1);
	emit_cfg(&pu, THCON(1) + 12, B_AT(0) / 16 - 1);
	for (unsigned u = 0; u < 2; u++)
		for (unsigned f = 0; f < 4; f++)
			emit_push(&pu, UNPACR(u, 0, 0, 0, 1, f == 3));
	emit_tensix_sync(&pu);
	emit_exit_with(&pu, 0);
	cr_assert_eq(run_core(dev, BH_CORE_TRISC0, &pu), 0);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	uint16_t c[1024];
	bh_tile_l1_read(tile0(dev), C_AT(0), c, sizeof c);
	struct tt_dp *dp = tile0(dev)->tensix->dp;
	for (unsigned k = 0; k < 1024; k++) {
		cr_assert_eq(c[k], 0, "datum %u was packed from the fresh Dst (0), not corrected later", k);
		cr_assert_eq(f_of((uint32_t)tt_dst_to_bf16(tt_dst16_read(dp, k / 16, k % 16)) << 16), host_a(0, k) + bv[0][k],
			     "math did compute datum %u afterwards", k);
	}
	bh_device_close(dev);
}
