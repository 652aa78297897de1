/* races.md #16: a compute kernel waits for its Tensix thread with a hand-written tensix_sync that
 * drops the load's result, and at once reads a Tensix semaphore through the PCBuf window. The
 * TTSync load may still be in flight: on silicon the second PCBuf load returns a wrong value or
 * hangs (sync.md 4). Caught by ttsync-load at the semaphore read. The fix is tt_sync(), which
 * stores the result (an instruction uses it) before the next PCBuf load, as tt-metal does. */
#include "multicore.h"
#include "tensix.h"

#define SEM 3u

int main_brisc(void)
{
	return 0;
}

int main_trisc0(void)
{
	tt_push(TT_SEMINIT(1u << SEM, 2, 0));
	tt_push(TT_SEMPOST(1u << SEM));
#ifdef RACE_FIXED
	tt_sync();
#else
	TT_REG32(TT_COPROC_DONE_ADDR) = 0;
	(void)TT_REG32(TT_COPROC_DONE_ADDR);
#endif
	return tt_sem_read(SEM) == 1 ? 0 : 1;
}
