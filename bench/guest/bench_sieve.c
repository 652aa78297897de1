/* Sieve of Eratosthenes over the odd numbers below SIEVE_LIMIT, repeated: byte stores with
 * a large stride, a byte-scanning count loop. */
#include "bench.h"

#ifndef SIEVE_ROUNDS /* override with -DSIEVE_ROUNDS=N */
#define SIEVE_ROUNDS 76			/* tune: ~5.9 M instructions per round */
#endif
#define SIEVE_LIMIT 1000000u		/* odd-only: SIEVE_LIMIT / 2 bytes of L1 */

static uint8_t composite[SIEVE_LIMIT / 2];	/* composite[i] describes 2*i + 1 */

static uint32_t sieve_count_primes(uint32_t limit)
{
	uint32_t n = limit / 2;

	memset(composite, 0, n);
	for (uint32_t i = 1; (2 * i + 1) * (2 * i + 1) < limit; i++) {
		if (composite[i])
			continue;
		uint32_t p = 2 * i + 1;
		for (uint32_t j = (p * p) / 2; j < n; j += p)
			composite[j] = 1;
	}
	uint32_t count = 1;	/* 2 */
	for (uint32_t i = 1; i < n; i++)
		count += composite[i] ^ 1;
	return count;
}

int main(void)
{
	uint32_t digest = 0;
	uint32_t last = 0;

	/* Shrink the limit a little each round so no two rounds are the same work. */
	for (uint32_t round = 0; round < SIEVE_ROUNDS; round++) {
		last = sieve_count_primes(SIEVE_LIMIT - round * 1000);
		digest = digest * 31 + last;
	}
	bare_printf("sieve: primes_below_%u=%u rounds=%d digest=%08x\n",
		    SIEVE_LIMIT - (SIEVE_ROUNDS - 1) * 1000, last, SIEVE_ROUNDS, digest);
	return 0;
}
