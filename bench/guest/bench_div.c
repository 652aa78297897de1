/* Division-heavy integer code: Euclid's gcd (remu), base conversion (divu/remu by 10 and 7)
 * and signed div/rem with mixed signs. */
#include "bench.h"

#ifndef DIV_ROUNDS /* override with -DDIV_ROUNDS=N */
#define DIV_ROUNDS 2400000		/* tune: ~186 instructions per round */
#endif

static uint32_t gcd(uint32_t x, uint32_t y)
{
	while (y != 0) {
		uint32_t t = x % y;
		x = y;
		y = t;
	}
	return x;
}

/* Sum of the digits of value in base; the divisor is a runtime value (no multiply trick). */
static uint32_t digit_sum(uint32_t value, uint32_t base)
{
	uint32_t sum = 0;

	do {
		sum += value % base;
		value /= base;
	} while (value != 0);
	return sum;
}

int main(void)
{
	uint32_t seed = 0xdeadbeefu;
	uint32_t digest = 0;
	volatile uint32_t base10 = 10, base7 = 7;	/* keep the divisors out of the compiler's reach */

	for (int round = 0; round < DIV_ROUNDS; round++) {
		uint32_t x = bench_rand(&seed);
		uint32_t y = bench_rand(&seed) >> (round & 15);
		int32_t sx = (int32_t)x, sy = (int32_t)(y | 1) >> 3;
		if (round & 1)
			sy = -sy;
		digest += gcd(x, y | 1);
		digest ^= digit_sum(x, base10) << 8 ^ digit_sum(y, base7);
		digest += (uint32_t)(sx / (sy | 1)) ^ (uint32_t)(sx % (sy | 1));
		digest = digest << 3 | digest >> 29;
	}
	bare_printf("div: rounds=%d digest=%08x\n", DIV_ROUNDS, digest);
	return 0;
}
