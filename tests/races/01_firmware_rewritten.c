/* Race #1 (races.md): the dispatch core's firmware is written over the generic firmware that the
 * core already runs. NCRISC (the dispatch core) was released into the generic firmware, a loop
 * waiting for work; BRISC (in the host's role) then loads the dispatch firmware over it. Caught
 * by --check code-written at BRISC's first store into the code NCRISC executed.
 *   bhemu run --cores brisc,ncrisc --check code-written 01_firmware_rewritten.elf
 * RACE_FIXED: BRISC holds NCRISC in reset, loads the dispatch firmware, points NCRISC's reset pc
 * at it and releases NCRISC again (overwrite code only while its core is in reset). */
#include "multicore.h"

#define SOFT_RESET_0 ((volatile uint32_t *)0xFFB121B0u)
#define SOFT_RESET_NCRISC (1u << 18)
#define NCRISC_RESET_PC ((volatile uint32_t *)0xFFB12238u)
#define NCRISC_RESET_PC_OVERRIDE ((volatile uint32_t *)0xFFB1223Cu)

static volatile uint32_t in_generic;   /* NCRISC entered the generic firmware */
static volatile uint32_t work;         /* what the generic firmware waits for */

/* The generic firmware: wait for work. 16-byte aligned, so the dispatch firmware replaces its
 * first NoC/L1 granule. */
__attribute__((noinline, aligned(16))) static uint32_t generic_firmware(void)
{
	while (!work)
		__asm__ volatile("fence" ::: "memory");
	return work;
}

/* The dispatch firmware as the host loads it: exit(0) (a7 = 93, ecall). */
static const uint32_t dispatch_firmware[4] = { 0x00000513u, 0x05d00893u, 0x00000073u, 0x00000013u };

int main_ncrisc(void)
{
	in_generic = 1;
	return (int)generic_firmware();
}

int main_brisc(void)
{
	volatile uint32_t *text = (volatile uint32_t *)(uintptr_t)generic_firmware;
	while (!in_generic)
		__asm__ volatile("fence" ::: "memory");
	for (volatile uint32_t k = 0; k < 2000; k++)   /* NCRISC is well inside its loop */
		;
#ifdef RACE_FIXED
	*SOFT_RESET_0 |= SOFT_RESET_NCRISC;
#endif
	for (unsigned k = 0; k < 4; k++)
		text[k] = dispatch_firmware[k];
#ifdef RACE_FIXED
	*NCRISC_RESET_PC = (uint32_t)(uintptr_t)text;
	*NCRISC_RESET_PC_OVERRIDE = 1;
	*SOFT_RESET_0 &= ~SOFT_RESET_NCRISC;   /* released: it runs the dispatch firmware and exits 0 */
#else
	work = 1;
#endif
	return 0;
}
