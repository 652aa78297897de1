/* races.md #15: TRISC0 programs the MOP configuration for its next MOP while the previous MOP is
 * still in its MOP expander (here: held behind a SEMWAIT until TRISC1 lets the unpacker go).
 * MopCfg is sampled lazily, so the running MOP would expand the new words. Caught by mopcfg-busy
 * at the MopCfg store. The fix waits with mop_sync() (tt_mop_sync) before the store. */
#include "multicore.h"
#include "tensix.h"

#define SEM 2u
/* Template 0: for each of Count1 + 1 iterations, InsnA0 = a SEMPOST of semaphore 6 (mask bit clear). */
static const uint32_t mop_cfg[9] = { 0, 0, TT_NOP, TT_SEMPOST(1u << 6), TT_NOP, TT_NOP, TT_NOP, TT_NOP, TT_NOP };
static volatile uint32_t mop_queued;

int main_brisc(void)
{
	return 0;
}

int main_trisc0(void)
{
	tt_push(TT_SEMINIT(1u << SEM | 1u << 6, 15, 0));
	tt_sync();
	for (unsigned k = 0; k < 9; k++)
		tt_mop_cfg_write(k, mop_cfg[k]);
	tt_push(TT_SEMWAIT(TT_BLOCK_SYNC, 1u << SEM, TT_SEMWAIT_WHILE_ZERO));
	tt_push(TT_MOP(0, 3, 0));
#ifdef RACE_FIXED
	mop_queued = 1;
	tt_mop_sync();
	tt_mop_cfg_write(3, TT_SEMGET(1u << 6));   /* the next MOP takes them back */
#else
	tt_mop_cfg_write(3, TT_SEMGET(1u << 6));
	mop_queued = 1;
#endif
	tt_sync();
	return tt_sem_read(6) == 4 ? 0 : 1;
}

int main_trisc1(void)
{
	while (!mop_queued)
		__asm__ volatile("fence" ::: "memory");
	tt_push(TT_SEMPOST(1u << SEM));
	tt_sync();
	return 0;
}
