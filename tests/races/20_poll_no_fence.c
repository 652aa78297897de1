/* races.md #20: NCRISC waits for BRISC's flag in L1 with a plain volatile poll. Its L0 data cache
 * is on (crt0 leaves cfg0 bit 3 clear) and is not coherent: on silicon the loop may read the
 * cached line forever. Caught by poll-no-fence once NCRISC parks in the loop. The fix polls
 * with invalidate_l1_cache() (a fence on Blackhole) in the loop, as tt-metal does. */
#include "multicore.h"

static volatile uint32_t flag;

static inline void invalidate_l1_cache(void)
{
	__asm__ volatile("fence" ::: "memory");
}

int main_brisc(void)
{
	volatile uint32_t work = 0;
	for (uint32_t k = 0; k < 5000000; k++)   /* a few ms: NCRISC waits meanwhile */
		work += k;
	flag = 1;
	return 0;
}

int main_ncrisc(void)
{
	while (flag == 0) {
#ifdef RACE_FIXED
		invalidate_l1_cache();
#endif
	}
	return 0;
}
