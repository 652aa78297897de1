/* What the compute-kernel suites share: BF16 values and the guest program's symbols. */
#ifndef BHEMU_TESTS_COMPUTE_TESTLIB_H
#define BHEMU_TESTS_COMPUTE_TESTLIB_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bhemu/bhemu.h"

static inline float f_of(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }

/* The BF16 bits of v, which must be exact in BF16. */
static inline uint16_t bf16_exact(double v)
{
	float f = (float)v;
	uint32_t b;
	memcpy(&b, &f, 4);
	cr_assert_eq(b & 0xFFFF, 0, "%g is not a BF16 value", v);
	return (uint16_t)(b >> 16);
}

/* Nearest BF16 with ties away from zero (the packer's rounding), of an exact value. */
static inline float bf16_round_away(double v)
{
	if (v == 0)
		return 0;
	double ulp = ldexp(1, ilogb(v) - 7);
	return (float)copysign(floor(fabs(v) / ulp + 0.5) * ulp, v);
}

/* The address of a symbol of the program loaded on tile 0's BRISC. */
static inline uint32_t symbol(struct bh_device *dev, const char *name)
{
	uint32_t addr = 0;
	cr_assert_eq(bh_core_symbol_lookup(dev, 0, BH_CORE_BRISC, name, &addr), BH_OK, "no symbol %s", name);
	return addr;
}

static inline void put32(struct bh_device *dev, const char *sym, uint32_t v)
{
	cr_assert_eq(bh_l1_write(dev, 0, symbol(dev, sym), &v, 4), BH_OK);
}

#endif
