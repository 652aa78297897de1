/* races.md #17: BRISC pushes into Tensix thread 0 (its push window 0xFFE40000) after it released
 * TRISC0, while TRISC0 runs its kernel and pushes into the same thread. Per the design notes
 * (unverified on silicon) a BRISC push and a TRISC0 push in the same cycle lose TRISC0's. Caught
 * by brisc-push at BRISC's push. The fix is the firmware's order: BRISC pushes at boot, while
 * TRISC0 is still held in reset, and releases it afterwards. Run with --cores brisc: BRISC
 * releases TRISC0 itself (reset pc _start_trisc0), which reports back through L1. */
#include "multicore.h"
#include "tensix.h"

#define TILE_CTRL		0xFFB12000u
#define SOFT_RESET_0		(TILE_CTRL + 0x1B0u)
#define TRISC0_RESET_PC		(TILE_CTRL + 0x228u)
#define TRISC_RESET_PC_OVERRIDE	(TILE_CTRL + 0x234u)
#define RESET_ALL_BUT_BRISC	0x47000u	/* NCRISC, TRISC0..2 held */
#define RESET_TRISC0		0x1000u
#define BRISC_PUSH_T0		0xFFE40000u
#define SEM 4u

extern void _start_trisc0(void);
static volatile uint32_t trisc0_started, trisc0_done;

static void boot_push(void)
{
	TT_REG32(BRISC_PUSH_T0) = TT_SEMINIT(1u << SEM, 1, 0);
}

int main_brisc(void)
{
	TT_REG32(TRISC0_RESET_PC) = (uint32_t)(uintptr_t)_start_trisc0;
	TT_REG32(TRISC_RESET_PC_OVERRIDE) = 1;
#ifdef RACE_FIXED
	boot_push();
#endif
	TT_REG32(SOFT_RESET_0) = RESET_ALL_BUT_BRISC & ~RESET_TRISC0;
#ifndef RACE_FIXED
	while (!trisc0_started)
		__asm__ volatile("fence" ::: "memory");
	boot_push();
#endif
	while (!trisc0_done)
		__asm__ volatile("fence" ::: "memory");
	return trisc0_done == 1 ? 0 : 1;
}

/* TRISC0 has no host calls (not in --cores): it reports in L1 and stays in a loop. */
int main_trisc0(void)
{
	trisc0_started = 1;
	for (unsigned k = 0; k < 200; k++)
		tt_push(TT_NOP);
	tt_sync();
	trisc0_done = 1;
	for (;;)
		;
}
