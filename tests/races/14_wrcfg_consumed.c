/* races.md #14: a compute kernel stores a value into a configuration word with WRCFG and reads it
 * back with RDCFG as the very next Tensix instruction. WRCFG takes two cycles and the thread goes
 * on in the second, so the read may see the old word (WRCFG.md: the next instruction must not
 * consume what WRCFG writes). Caught by cfg-hazard at the RDCFG. The fix puts a NOP between; the
 * RDCFG's GPR is read only after STALLWAIT C12 in both. */
#include "multicore.h"
#include "tensix.h"

#define VALUE 0x1234u
#define GPR_IN 4u
#define GPR_OUT 5u

int main_brisc(void)
{
	return 0;
}

int main_trisc0(void)
{
	tt_push(TT_SETDMAREG_LO(GPR_IN, VALUE));
	tt_push(TT_SETDMAREG_HI(GPR_IN, 0));
	tt_push(TT_WRCFG(GPR_IN, TT_CFG_SCRATCH0));
#ifdef RACE_FIXED
	tt_push(TT_NOP);
#endif
	tt_push(TT_RDCFG(GPR_OUT, TT_CFG_SCRATCH0));
	tt_push(TT_STALLWAIT(TT_BLOCK_CONFIG, TT_COND_CONFIG_BUSY));
	tt_sync();
	return tt_gpr_read(GPR_OUT) == VALUE ? 0 : 1;
}
