/* A start-order race for the tests of `bhemu hunt` (tests/mc/CMakeLists.txt). BRISC, once it has
 * released NCRISC, works a while and then publishes `ready`; NCRISC checks `ready` as soon as it
 * starts and exits 9 when BRISC has not published it yet. Whether it has depends on how late
 * NCRISC starts: with `--provoke skew` that is the seed's choice (0-500 us), so some seeds fail.
 * HUNT_FIXED builds the correct twin: NCRISC waits for `ready`. */
#include "multicore.h"

static volatile uint32_t ready;

int main_brisc(void)
{
	volatile uint32_t work = 0;
	for (uint32_t k = 0; k < 20000; k++)
		work += k;
	ready = 1;
	return 0;
}

int main_ncrisc(void)
{
#ifdef HUNT_FIXED
	while (!ready)
		__asm__ volatile("fence" ::: "memory");
#endif
	return ready ? 0 : 9;
}
