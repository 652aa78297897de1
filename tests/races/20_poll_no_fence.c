/* races.md #20: NCRISC waits for BRISC's flag in L1 with a plain volatile poll. Its L0 data cache
 * is on (crt0 leaves cfg0 bit 3 clear) and is not coherent: on silicon the loop may read the
 * cached line forever. Caught by poll-no-fence once NCRISC parks in the loop. The fix polls
 * with invalidate_l1_cache() (a fence on Blackhole) in the loop, as tt-metal does.
 *
 * With -DRACE_READ_AFTER_SIGNAL, the same cache seen by one read: NCRISC has read the flag's
 * line before, learns through a stream register (device memory, never cached) that BRISC has
 * set the flag, and reads it once without a fence: its L0 may still hold the old line. Shown by
 * --provoke l0-cache (the program's own status 9); the fix reads after invalidate_l1_cache(). */
#include "multicore.h"

static volatile uint32_t flag;

static inline void invalidate_l1_cache(void)
{
	__asm__ volatile("fence" ::: "memory");
}

#ifdef RACE_READ_AFTER_SIGNAL
/* Stream registers 10 of streams 0 and 1: device registers, never cached. */
#define READY ((volatile uint32_t *)0xFFB40028u)    /* NCRISC -> BRISC: it has read the flag */
#define SIGNAL ((volatile uint32_t *)0xFFB41028u)   /* BRISC -> NCRISC: the flag is set */

int main_brisc(void)
{
	while (*READY == 0)
		;
	flag = 1;
	__asm__ volatile("fence" ::: "memory");   /* the flag lands before the signal */
	*SIGNAL = 1;
	return 0;
}

int main_ncrisc(void)
{
	uint32_t before = flag;   /* its line enters NCRISC's L0 */
	*READY = 1;
	while (*SIGNAL == 0)
		;
#ifdef RACE_FIXED
	invalidate_l1_cache();
#endif
	return flag == 1 && before == 0 ? 0 : 9;
}
#else

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
#endif
