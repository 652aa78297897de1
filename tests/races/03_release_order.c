/* Race #3 (races.md): BRISC and NCRISC released together (SOFT_RESET_0 = 0x07000 instead of
 * 0x47000), so NCRISC may read its launch message before BRISC's init has written it. BRISC
 * sets up the launch message, then the subordinate sync byte; NCRISC (bug) reads the message at
 * once. Only a late BRISC shows it: run with --provoke skew (random start order per seed). NCRISC
 * checks what it read and exits 9 on a message that was not written yet.
 *   bhemu run --cores brisc,ncrisc --provoke skew 03_release_order.elf
 * RACE_FIXED: NCRISC waits until BRISC's sync byte says GO, as the real subordinate firmware
 * waits on subordinate_sync (launch.md 3). */
#include "multicore.h"

#define RUN_SYNC_MSG_GO 0x80u
#define KERNEL_ARGS 4u
#define WALL_CLOCK_0 ((volatile uint32_t *)0xFFB121F0u)
#define DEVICE_SETUP_CYCLES 270000u   /* 200 us at 1.35 GHz */

static volatile struct {
	uint32_t args[KERNEL_ARGS];
	uint32_t enables;
} launch;                              /* what BRISC's init fills in */
static volatile uint32_t sync_ncrisc;  /* subordinate_sync byte of NCRISC */

int main_brisc(void)
{
	uint32_t t0 = *WALL_CLOCK_0;
	while (*WALL_CLOCK_0 - t0 < DEVICE_SETUP_CYCLES)   /* device setup, bank tables, ... */
		;
	for (uint32_t k = 0; k < KERNEL_ARGS; k++)
		launch.args[k] = 100 + k;
	launch.enables = 3;
	__asm__ volatile("fence" ::: "memory");
	sync_ncrisc = RUN_SYNC_MSG_GO;
	return 0;
}

int main_ncrisc(void)
{
#ifdef RACE_FIXED
	while (sync_ncrisc != RUN_SYNC_MSG_GO)
		__asm__ volatile("fence" ::: "memory");
#endif
	if (!(launch.enables & 2) || launch.args[0] != 100) {
		bare_printf("release_order: ncrisc read its launch message before brisc wrote it\n");
		return 9;
	}
	return 0;
}
