/* Zba and Zbb: every RV32 instruction of both, written out in inline asm, over the shared
 * patterns, walking ones and zeros (printed) and random operands (digest). */
#include "guest_test.h"

#define BITMANIP_EXIT_STATUS 9
#define BITMANIP_RANDOM 2000

#define BM_UNARY_OPS(X)                                                                      \
	X(clz, "clz") X(ctz, "ctz") X(cpop, "cpop") X(sext_b, "sext.b") X(sext_h, "sext.h")    \
	X(zext_h, "zext.h") X(orc_b, "orc.b") X(rev8, "rev8")

#define BM_UNARY_FUNCTION(fn, mnemonic)                                                      \
	static uint32_t bm_##fn(uint32_t a)                                                  \
	{                                                                                    \
		uint32_t r;                                                                  \
		__asm__ volatile(mnemonic " %0, %1" : "=r"(r) : "r"(a));                       \
		return r;                                                                    \
	}
BM_UNARY_OPS(BM_UNARY_FUNCTION)

/* rori: (name suffix, shift amount). */
#define BM_RORI_OPS(X) X(0) X(1) X(7) X(8) X(16) X(31)
#define BM_RORI_FUNCTION(shamt)                                                              \
	static uint32_t bm_rori_##shamt(uint32_t a)                                          \
	{                                                                                    \
		uint32_t r;                                                                  \
		__asm__ volatile("rori %0, %1, " #shamt : "=r"(r) : "r"(a));                    \
		return r;                                                                    \
	}
BM_RORI_OPS(BM_RORI_FUNCTION)

struct bm_unary_op {
	const char *name;
	uint32_t (*fn)(uint32_t a);
};

#define BM_UNARY_ENTRY(fn, mnemonic) { mnemonic, bm_##fn },
#define BM_RORI_ENTRY(shamt) { "rori " #shamt, bm_rori_##shamt },
static const struct bm_unary_op bm_unary_ops[] = { BM_UNARY_OPS(BM_UNARY_ENTRY)
							   BM_RORI_OPS(BM_RORI_ENTRY) };

#define BM_BINARY_OPS(X)                                                                     \
	X(sh1add) X(sh2add) X(sh3add) X(andn) X(orn) X(xnor) X(max) X(maxu) X(min) X(minu)    \
	X(rol) X(ror)

#define BM_BINARY_FUNCTION(op)                                                               \
	static uint32_t bm_##op(uint32_t a, uint32_t b)                                      \
	{                                                                                    \
		uint32_t r;                                                                  \
		__asm__ volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));                \
		return r;                                                                    \
	}
BM_BINARY_OPS(BM_BINARY_FUNCTION)

struct bm_binary_op {
	const char *name;
	uint32_t (*fn)(uint32_t a, uint32_t b);
};

#define BM_BINARY_ENTRY(op) { #op, bm_##op },
static const struct bm_binary_op bm_binary_ops[] = { BM_BINARY_OPS(BM_BINARY_ENTRY) };

static void bm_test_unary(void)
{
	uint32_t row[TEST_N_PATTERNS > 32 ? TEST_N_PATTERNS : 32];

	for (size_t op = 0; op < sizeof(bm_unary_ops) / sizeof(bm_unary_ops[0]); op++) {
		const struct bm_unary_op *o = &bm_unary_ops[op];

		for (int i = 0; i < TEST_N_PATTERNS; i++)
			row[i] = o->fn(test_patterns[i]);
		test_row(o->name, row, TEST_N_PATTERNS);
		for (int i = 0; i < 32; i++)
			row[i] = o->fn(1u << i);
		bare_printf("%s walking ones:", o->name);
		test_print_values(row, 32);
		for (int i = 0; i < 32; i++)
			row[i] = o->fn(~(1u << i));
		bare_printf("%s walking zeros:", o->name);
		test_print_values(row, 32);
		/* Runs of ones from the top and from the bottom: clz/ctz/cpop of every count. */
		for (int i = 0; i < 32; i++)
			row[i] = o->fn(0xffffffffu << i);
		bare_printf("%s ones<<i:", o->name);
		test_print_values(row, 32);
		for (int i = 0; i < 32; i++)
			row[i] = o->fn(0xffffffffu >> i);
		bare_printf("%s ones>>i:", o->name);
		test_print_values(row, 32);

		uint32_t seed = 0xc0ffee11u + (uint32_t)op, h = BARE_FNV_INIT;
		for (int k = 0; k < BITMANIP_RANDOM; k++)
			h = bare_fnv1a_u32(h, o->fn(test_rand(&seed)));
		bare_printf("%s random digest = %08x\n", o->name, h);
		test_mix(h);
	}
}

static void bm_test_binary(void)
{
	uint32_t row[TEST_N_PATTERNS];

	for (size_t op = 0; op < sizeof(bm_binary_ops) / sizeof(bm_binary_ops[0]); op++) {
		const struct bm_binary_op *o = &bm_binary_ops[op];

		for (int i = 0; i < TEST_N_PATTERNS; i++) {
			for (int j = 0; j < TEST_N_PATTERNS; j++)
				row[j] = o->fn(test_patterns[i], test_patterns[j]);
			test_row_a(o->name, test_patterns[i], row, TEST_N_PATTERNS);
		}
		/* Rotates by every amount, including 32..63 (only the low 5 bits count). */
		if (o->fn == bm_rol || o->fn == bm_ror) {
			uint32_t rot[64];
			for (int i = 0; i < 64; i++)
				rot[i] = o->fn(0x80000001u, (uint32_t)i);
			bare_printf("%s 80000001 by 0..63:", o->name);
			test_print_values(rot, 64);
		}
		uint32_t seed = 0xbadc0deu + (uint32_t)op, h = BARE_FNV_INIT;
		for (int k = 0; k < BITMANIP_RANDOM; k++) {
			uint32_t a = test_rand(&seed), b = test_rand(&seed);
			h = bare_fnv1a_u32(h, o->fn(a, b));
		}
		bare_printf("%s random pairs digest = %08x\n", o->name, h);
		test_mix(h);
	}
}

int main(void)
{
	bm_test_unary();
	bm_test_binary();
	return test_finish("bitmanip", BITMANIP_EXIT_STATUS);
}
