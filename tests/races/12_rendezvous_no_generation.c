/* races.md #12: BRISC and NCRISC meet at a reusable rendezvous once per phase, RMSNorm style:
 * each adds 1 to a shared counter (a stream register) and waits until it reads 2; BRISC then
 * resets it to 0 for the next phase. If NCRISC's read comes late (--provoke delay), BRISC has
 * already reset the counter, or even arrived at the next phase: NCRISC never sees 2 and both wait
 * forever. Caught as a deadlock naming the counter. The fix counts generations: the counter is
 * never reset and phase p waits until it reaches 2 (p + 1) (wrap-aware). */
#include "multicore.h"

#define STREAM_REG(s, r) (*(volatile uint32_t *)(uintptr_t)(0xFFB40000u + 0x1000u * (s) + 4u * (r)))
#define COUNTER_STREAM 21u
#define BUF_SIZE 10u
#define SPACE_AVAILABLE_UPDATE 270u
#define SPACE_AVAILABLE 297u
#define CORES 2u
#define PHASES 100u

void multicore_init(void)
{
	STREAM_REG(COUNTER_STREAM, BUF_SIZE) = 0;
}

static inline int stream_wrap_ge(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 15) >= 0;
}

static void rendezvous(uint32_t phase, int resetter)
{
	STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE_UPDATE) = 1u << 6;
#ifdef RACE_FIXED
	(void)resetter;
	while (!stream_wrap_ge(STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE), CORES * (phase + 1)))
		;
#else
	(void)phase;
	while (STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE) != CORES)
		;
	if (resetter)
		STREAM_REG(COUNTER_STREAM, BUF_SIZE) = 0;
#endif
}

int main_brisc(void)
{
	for (uint32_t p = 0; p < PHASES; p++)
		rendezvous(p, 1);
	return 0;
}

int main_ncrisc(void)
{
	for (uint32_t p = 0; p < PHASES; p++)
		rendezvous(p, 0);
	return 0;
}
