/* Race #8 (races.md): a core's local RAM read over the slow path right after its release from
 * reset, while the hardware may still be zeroing it (up to 2048 cycles). BRISC releases NCRISC
 * and at once reads NCRISC's status word through NCRISC's slow-path local-RAM window. Caught by
 * ldm-zeroing (a default check). The window is wall-clock time (and until NCRISC has started), so
 * a run whose BRISC is preempted right after the release may miss it: several seeds.
 *   bhemu run --cores brisc 08_ldm_zeroing.elf   (BRISC releases NCRISC itself)
 * RACE_FIXED: BRISC waits 2048 wall-clock cycles after the release and for NCRISC's handshake
 * (in bhemu the zeroing happens when NCRISC's thread starts). */
#include "multicore.h"

#define SOFT_RESET_0 ((volatile uint32_t *)0xFFB121B0u)
#define SOFT_RESET_NCRISC (1u << 18)
#define NCRISC_RESET_PC ((volatile uint32_t *)0xFFB12238u)
#define NCRISC_RESET_PC_OVERRIDE ((volatile uint32_t *)0xFFB1223Cu)
#define WALL_CLOCK_0 ((volatile uint32_t *)0xFFB121F0u)
#define NCRISC_LDM_SLOW 0xFFB16000u   /* NCRISC's local RAM as the other cores and the NoC see it */
#define LDM_ZEROING_CYCLES 2048u

extern char _start_ncrisc[];

BARE_LDM static volatile uint32_t status;   /* each core's own, in its local RAM */
static volatile uint32_t ncrisc_up;         /* NCRISC's handshake, in L1 */

int main_ncrisc(void)
{
	status = 0;
	ncrisc_up = 1;
	return 0;
}

int main_brisc(void)
{
	*NCRISC_RESET_PC = (uint32_t)(uintptr_t)_start_ncrisc;
	*NCRISC_RESET_PC_OVERRIDE = 1;
	*SOFT_RESET_0 &= ~SOFT_RESET_NCRISC;
#ifdef RACE_FIXED
	uint32_t t0 = *WALL_CLOCK_0;
	while (!ncrisc_up || *WALL_CLOCK_0 - t0 < LDM_ZEROING_CYCLES)
		__asm__ volatile("fence" ::: "memory");
#endif
	volatile uint32_t *nc_status = (volatile uint32_t *)(NCRISC_LDM_SLOW + ((uintptr_t)&status - BARE_LDM_BASE));
	return *nc_status == 0 ? 0 : 1;
}
