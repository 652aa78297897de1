/* A plain multi-core program for the tests of `bhemu run --cores` (tests/mc/CMakeLists.txt).
 * Each core does one thing the CLI must handle:
 *   brisc, ncrisc   print a line and exit 0 (ncrisc waits for brisc's line, so the output order
 *                   is fixed)
 *   trisc0          faults (load from an unmapped address)
 *   trisc1          never stops (for --max-instructions)
 *   trisc2          has no main_trisc2: crt0_multi exits it with BARE_MULTI_NO_MAIN (127) */
#include "multicore.h"

static volatile uint32_t brisc_said_hello;

int main_brisc(void)
{
	bare_printf("hello from brisc\n");
	__asm__ volatile("fence" ::: "memory");
	brisc_said_hello = 1;
	return 0;
}

int main_ncrisc(void)
{
	while (!brisc_said_hello)
		__asm__ volatile("fence" ::: "memory");
	bare_printf("hello from ncrisc\n");
	return 0;
}

int main_trisc0(void)
{
	return (int)*(volatile uint32_t *)0xFFB90000u;
}

int main_trisc1(void)
{
	for (volatile uint32_t spins = 0;; spins++)
		;
}
