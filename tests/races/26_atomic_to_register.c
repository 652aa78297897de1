/* races.md #26: NCRISC bumps a completion counter kept in a stream register of its tile
 * (REMOTE_DEST_BUF_SPACE_AVAILABLE, stream 48) with noc_semaphore_inc, a NoC atomic. Atomics work
 * on L1 only (noc.md): bhemu faults the request. The fix increments the counter the way the
 * hardware offers, a 4-byte inline write of (n << 6) to its UPDATE register (reg 270). */
#include "multicore.h"
#include "noc.h"

#define STREAM_REG(s, r) (0xFFB40000u + 0x1000u * (s) + 4u * (r))
#define COUNTER_STREAM 48u
#define SPACE_AVAILABLE 297u
#define SPACE_AVAILABLE_UPDATE 270u
#define BUF_SIZE 10u

int main_brisc(void)
{
	return 0;
}

int main_ncrisc(void)
{
	noc_init_ncrisc();
	*(volatile uint32_t *)STREAM_REG(COUNTER_STREAM, BUF_SIZE) = 0;   /* counter = 0 */
#ifdef RACE_FIXED
	noc_inline_dw_write(get_noc_addr(my_x(), my_y(), STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE_UPDATE)), 1u << 6);
	noc_async_write_barrier();
#else
	noc_semaphore_inc(get_noc_addr(my_x(), my_y(), STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE)), 1);
	noc_async_atomic_barrier();
#endif
	return *(volatile uint32_t *)STREAM_REG(COUNTER_STREAM, SPACE_AVAILABLE) == 1 ? 0 : 1;
}
