/* races.md #23: a reader kernel on NCRISC is built for NoC0, the NoC the writer on BRISC already
 * uses, so both cores program the same command buffers: one core's register writes land in the
 * middle of the other's transaction (and the per-core software counters no longer match the
 * NIU's). Caught, depending on the interleaving, by noc-shared-initiator or noc-busy-reprogram
 * at the request that was tampered with, or by lost-target when a barrier's == wait sees the
 * NIU counter, which the other core moves too, jump past its software count. The fix keeps
 * tt-metal's split: NCRISC on NoC1. */
#include "multicore.h"
#include "noc.h"

#define LEN 64u
#define ROUNDS 200u

static uint8_t src_b[LEN] __attribute__((aligned(64)));
static uint8_t dst_b[LEN] __attribute__((aligned(64)));
static uint8_t src_n[LEN] __attribute__((aligned(64)));
static uint8_t dst_n[LEN] __attribute__((aligned(64)));

int main_brisc(void)
{
	noc_init_brisc();
	for (unsigned k = 0; k < ROUNDS; k++) {
		noc_async_write((uint32_t)(uintptr_t)src_b, get_noc_addr(my_x(), my_y(), (uint32_t)(uintptr_t)dst_b), LEN);
		noc_async_write_barrier();
	}
	return 0;
}

int main_ncrisc(void)
{
#ifdef RACE_FIXED
	noc_init_ncrisc();
#else
	noc_init(NOC_PROC_NCRISC, 0);
#endif
	for (unsigned k = 0; k < ROUNDS; k++) {
		noc_async_write((uint32_t)(uintptr_t)src_n, get_noc_addr(my_x(), my_y(), (uint32_t)(uintptr_t)dst_n), LEN);
		noc_async_write_barrier();
	}
	return 0;
}
