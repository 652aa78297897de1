/* Helpers shared by the differential-test guest programs in tests/guest/. Each program
 * prints every result in hex plus a running digest and exits with its own status, so
 * difftest.sh can compare bhemu against qemu-riscv32 line by line. */
#ifndef BHEMU_GUEST_TEST_H
#define BHEMU_GUEST_TEST_H

#include "bare.h"

/* Operand patterns where RV32 implementations tend to differ: signs, carries, shift amounts
 * at and above 31, byte and halfword boundaries. */
static const uint32_t test_patterns[] = {
	0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x0000001f, 0x00000020, 0x00000021,
	0x0000003f, 0x0000007f, 0x00000080, 0x000000ff, 0x00000100, 0x00007fff, 0x00008000,
	0x0000ffff, 0x00010000, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
	0xffffff80, 0xffff8000, 0x12345678, 0x87654321, 0xdeadbeef, 0x0f0f0f0f, 0xf0f0f0f0,
	0x55555555, 0xaaaaaaaa,
};
#define TEST_N_PATTERNS ((int)(sizeof(test_patterns) / sizeof(test_patterns[0])))

/* Digest of everything printed so far (and of results too many to print). */
static uint32_t test_digest = BARE_FNV_INIT;

static inline void test_mix(uint32_t value)
{
	test_digest = bare_fnv1a_u32(test_digest, value);
}

static inline uint32_t test_rand(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Prints " v0 v1 ...\n" in hex, in pieces of at most a few hundred bytes, and mixes every
 * value into the digest. */
static inline void test_print_values(const uint32_t *values, int n)
{
	static const char hex[] = "0123456789abcdef";
	char line[9 * 32 + 1];
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		test_mix(values[i]);
		line[len++] = ' ';
		for (int shift = 28; shift >= 0; shift -= 4)
			line[len++] = hex[(values[i] >> shift) & 0xf];
		if (i == n - 1)
			line[len++] = '\n';
		if (len > sizeof(line) - 10 || i == n - 1) {
			bare_write(BARE_STDOUT, line, len);
			len = 0;
		}
	}
}

/* One output line: "label: v0 v1 ...". */
static inline void test_row(const char *label, const uint32_t *values, int n)
{
	bare_printf("%s:", label);
	test_print_values(values, n);
}

/* One output line for a binary op with first operand a: "label a=XXXXXXXX: v0 v1 ...". */
static inline void test_row_a(const char *label, uint32_t a, const uint32_t *values, int n)
{
	bare_printf("%s a=%08x:", label, a);
	test_print_values(values, n);
}

/* A single named value. */
static inline void test_value(const char *label, uint32_t value)
{
	test_mix(value);
	bare_printf("%s = %08x\n", label, value);
}

static inline int test_finish(const char *program, int status)
{
	bare_printf("%s digest %08x exit %d\n", program, test_digest, status);
	return status;
}

#endif
