/* Wake-up guest of bench_sync: every core it runs on waits for the host in a poll loop.
 *
 * Each core polls wake_flag (fence, load, compare: a loop bhemu parks) until the flag differs
 * from the last value it saw. It then answers by writing that value to wake_ack, or exits 0 if
 * the value is WAKE_EXIT. bench_sync times host write -> core answer on one core (wake-up
 * latency) and measures the CPU use of 700 cores parked here (idle device). */
#include <stdint.h>

#include "multicore.h"

#define WAKE_EXIT 0xFFFFFFFFu

/* In .data, not .bss: BRISC zeroes .bss after it starts, which would lose an early host write. */
volatile uint32_t wake_flag __attribute__((section(".data.wake"))) = 0;
volatile uint32_t wake_ack __attribute__((section(".data.wake"))) = 0;

static int wake_echo(void)
{
	uint32_t last = 0;

	for (;;) {
		uint32_t v;
		do {
			__asm__ volatile("fence" ::: "memory");   /* each poll sees fresh L1 */
			v = wake_flag;
		} while (v == last);
		if (v == WAKE_EXIT)
			return 0;
		wake_ack = v;
		last = v;
	}
}

int main_brisc(void)
{
	return wake_echo();
}

int main_ncrisc(void)
{
	return wake_echo();
}

int main_trisc0(void)
{
	return wake_echo();
}

int main_trisc1(void)
{
	return wake_echo();
}

int main_trisc2(void)
{
	return wake_echo();
}
