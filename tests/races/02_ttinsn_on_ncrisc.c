/* races.md #2: a Tensix instruction emitted as a .ttinsn word ends up in NCRISC's code (a
 * compute helper pasted into a data-movement kernel). NCRISC has no push path: on silicon the
 * word is undefined behaviour; bhemu faults it, naming the .ttinsn. The fix issues the
 * instruction from TRISC0, whose .ttinsn pushes into its own thread. */
#include "multicore.h"
#include "tensix.h"

#define TTINSN(w) __asm__ volatile(".word %0" ::"i"(TT_INSN_WORD(w)))

int main_brisc(void)
{
	return 0;
}

int main_ncrisc(void)
{
#ifndef RACE_FIXED
	TTINSN(TT_NOP);
#endif
	return 0;
}

int main_trisc0(void)
{
#ifdef RACE_FIXED
	TTINSN(TT_NOP);
	tt_sync();
#endif
	return 0;
}
