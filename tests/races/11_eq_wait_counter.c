/* races.md #11: BRISC consumes NCRISC's items one by one and waits for each with `==` on the
 * free-running counter NCRISC bumps (a stream register, as the fast-dispatch completion counters
 * are). Two increments can land between two of BRISC's reads (--provoke coalesce makes its reads
 * late), and then the value it waits for is never seen: BRISC waits forever and NCRISC, which
 * runs at most four items ahead, waits for it. Caught as a deadlock (status 5) naming BRISC's
 * poll of the counter: the jump happens before BRISC first parks on the counter, so lost-target,
 * which compares two parks, has nothing to compare. The fix waits with a wrap-aware >=
 * (stream_wrap_ge of the dispatcher). */
#include "multicore.h"

#define STREAM_REG(s, r) (*(volatile uint32_t *)(uintptr_t)(0xFFB40000u + 0x1000u * (s) + 4u * (r)))
#define COUNTER_STREAM 20u
#define BUF_SIZE 10u
#define SPACE_AVAILABLE_UPDATE 270u
#define SPACE_AVAILABLE 297u
#define ITEMS 200u
#define AHEAD 4u   /* NCRISC makes at most four items ahead of BRISC */

static volatile uint32_t consumed;

void multicore_init(void)
{
	STREAM_REG(COUNTER_STREAM, BUF_SIZE) = 0;   /* the counter (reg 297) starts at 0 */
}

/* a >= b on the 17-bit counter, wrap-aware (stream_wrap_ge). */
static inline int stream_wrap_ge(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 15) >= 0;
}

int main_brisc(void)
{
	for (uint32_t k = 1; k <= ITEMS; k++) {
#ifdef RACE_FIXED
		while (!stream_wrap_ge(STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE), k))
			;
#else
		while (STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE) != k)
			;
#endif
		consumed = k;
	}
	return 0;
}

int main_ncrisc(void)
{
	for (uint32_t k = 1; k <= ITEMS; k++) {
		while (consumed + AHEAD < k)
			__asm__ volatile("fence" ::: "memory");
		volatile uint32_t work = 0;
		for (uint32_t j = 0; j < 20000; j++)   /* make item k */
			work += j;
		STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE_UPDATE) = 1u << 6;
	}
	return 0;
}
