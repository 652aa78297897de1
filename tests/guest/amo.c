/* AMO*.W (Zaamo) on L1 words: every op over all pattern pairs (old memory value x operand),
 * the returned old value, neighbours left alone, aq/rl variants, register corner cases,
 * and words in .data, .bss and on the stack. */
#include "guest_test.h"

#define AMO_EXIT_STATUS 13
#define AMO_RANDOM 2000
#define AMO_COUNTER_STEPS 10000

/* amo.S */
uint32_t amo_swap(uint32_t *addr, uint32_t value);
uint32_t amo_add(uint32_t *addr, uint32_t value);
uint32_t amo_xor(uint32_t *addr, uint32_t value);
uint32_t amo_and(uint32_t *addr, uint32_t value);
uint32_t amo_or(uint32_t *addr, uint32_t value);
uint32_t amo_min(uint32_t *addr, uint32_t value);
uint32_t amo_max(uint32_t *addr, uint32_t value);
uint32_t amo_minu(uint32_t *addr, uint32_t value);
uint32_t amo_maxu(uint32_t *addr, uint32_t value);
uint32_t amo_add_aq(uint32_t *addr, uint32_t value);
uint32_t amo_add_rl(uint32_t *addr, uint32_t value);
uint32_t amo_add_aqrl(uint32_t *addr, uint32_t value);
uint32_t amo_swap_aqrl(uint32_t *addr, uint32_t value);
uint32_t amo_add_distinct(uint32_t *addr, uint32_t value);
uint32_t amo_swap_rd_is_rs2(uint32_t *addr, uint32_t value);
void amo_add_discard(uint32_t *addr, uint32_t value);

struct amo_op {
	const char *name;
	uint32_t (*fn)(uint32_t *addr, uint32_t value);
};

static const struct amo_op amo_ops[] = {
	{ "amoswap.w", amo_swap },	   { "amoadd.w", amo_add },
	{ "amoxor.w", amo_xor },	   { "amoand.w", amo_and },
	{ "amoor.w", amo_or },		   { "amomin.w", amo_min },
	{ "amomax.w", amo_max },	   { "amominu.w", amo_minu },
	{ "amomaxu.w", amo_maxu },	   { "amoadd.w.aq", amo_add_aq },
	{ "amoadd.w.rl", amo_add_rl },	   { "amoadd.w.aqrl", amo_add_aqrl },
	{ "amoswap.w.aqrl", amo_swap_aqrl }, { "amoadd.w rd!=rs1", amo_add_distinct },
	{ "amoswap.w rd=rs2", amo_swap_rd_is_rs2 },
};

/* The target word sits between two sentinels that must survive every AMO. */
#define AMO_SENTINEL 0x5a5aa5a5u
static volatile uint32_t amo_cell[3] __attribute__((aligned(16)));
static uint32_t amo_data_word = 0x11111111u;	/* .data */
static uint32_t amo_bss_words[64];		/* .bss */

static int amo_errors;

static void amo_check(const char *what, uint32_t got, uint32_t want)
{
	if (got != want) {
		amo_errors++;
		bare_printf("MISMATCH %s: got %08x want %08x\n", what, got, want);
	}
}

static void amo_test_patterns(void)
{
	uint32_t row[TEST_N_PATTERNS];

	for (size_t op = 0; op < sizeof(amo_ops) / sizeof(amo_ops[0]); op++) {
		const struct amo_op *o = &amo_ops[op];
		for (int i = 0; i < TEST_N_PATTERNS; i++) {
			uint32_t old = test_patterns[i];
			for (int j = 0; j < TEST_N_PATTERNS; j++) {
				amo_cell[0] = AMO_SENTINEL;
				amo_cell[1] = old;
				amo_cell[2] = ~AMO_SENTINEL;
				uint32_t ret = o->fn((uint32_t *)&amo_cell[1], test_patterns[j]);
				row[j] = amo_cell[1];
				amo_check(o->name, ret, old);
				amo_check("sentinel below", amo_cell[0], AMO_SENTINEL);
				amo_check("sentinel above", amo_cell[2], ~AMO_SENTINEL);
			}
			test_row_a(o->name, old, row, TEST_N_PATTERNS);
		}
		uint32_t seed = 0xa5a5f00du + (uint32_t)op, h = BARE_FNV_INIT, word = 0x89abcdefu;
		for (int k = 0; k < AMO_RANDOM; k++) {
			uint32_t ret = o->fn(&word, test_rand(&seed));
			h = bare_fnv1a_u32(bare_fnv1a_u32(h, ret), word);
		}
		bare_printf("%s random chain digest = %08x\n", o->name, h);
		test_mix(h);
	}
}

static void amo_test_places(void)
{
	uint32_t stack_word = 0x22222222u;
	uint32_t counter = 0;

	test_value("amoadd .data old", amo_add(&amo_data_word, 0x01010101u));
	test_value("amoadd .data new", amo_data_word);
	test_value("amoor stack old", amo_or(&stack_word, 0x80000001u));
	test_value("amoor stack new", stack_word);
	/* Every word of a .bss array, each with a different operand. */
	for (int i = 0; i < 64; i++)
		amo_add_discard(&amo_bss_words[i], (uint32_t)i * 0x01000001u);
	for (int i = 0; i < 64; i++)
		amo_xor(&amo_bss_words[i], amo_bss_words[(i * 7 + 3) % 64] << (i % 32));
	bare_printf(".bss words:");
	test_print_values(amo_bss_words, 64);
	for (int i = 0; i < AMO_COUNTER_STEPS; i++)
		amo_add_discard(&counter, 1);
	test_value("counter after amoadd x0 steps", counter);
	amo_check("counter", counter, AMO_COUNTER_STEPS);
}

int main(void)
{
	amo_test_patterns();
	amo_test_places();
	bare_printf("amo self-check errors = %d\n", amo_errors);
	test_mix((uint32_t)amo_errors);
	return test_finish("amo", AMO_EXIT_STATUS);
}
