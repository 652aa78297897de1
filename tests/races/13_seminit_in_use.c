/* races.md #13: TRISC0 re-initialises the Tensix semaphore it shares with TRISC1 for the next
 * phase while TRISC1's token from this phase is still in it (Value 1): the SEMINIT throws the
 * token away. Caught by sem-reinit at the SEMINIT. The fix drains first: TRISC0 waits for the
 * token (SEMWAIT while zero), takes it (SEMGET) and only then re-initialises. */
#include "multicore.h"
#include "tensix.h"

#define SEM 3u
static volatile uint32_t phase0_ready, token_posted;

static void fence(void)
{
	__asm__ volatile("fence" ::: "memory");
}

int main_brisc(void)
{
	return 0;
}

int main_trisc0(void)
{
	tt_push(TT_SEMINIT(1u << SEM, 1, 0));
	tt_sync();
	phase0_ready = 1;
	while (!token_posted)
		fence();
#ifdef RACE_FIXED
	tt_push(TT_SEMWAIT(TT_BLOCK_SYNC, 1u << SEM, TT_SEMWAIT_WHILE_ZERO));
	tt_push(TT_SEMGET(1u << SEM));
#endif
	tt_push(TT_SEMINIT(1u << SEM, 1, 0));   /* the next phase */
	tt_sync();
	return 0;
}

int main_trisc1(void)
{
	while (!phase0_ready)
		fence();
	tt_push(TT_SEMPOST(1u << SEM));
	tt_sync();
	token_posted = 1;
	return 0;
}
