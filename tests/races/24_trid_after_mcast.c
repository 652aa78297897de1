/* races.md #24: BRISC of tile 0 multicasts a block to tiles 1 and 2 with a non-posted write and
 * waits for both acknowledgements (noc_async_write_barrier). The NIU's outstanding-request
 * counter of that transaction id went +1 at the issue and -2 at the acknowledgements: 255 in its
 * 8 bits. The next non-posted write takes it past 255. Caught by noc-trid-overflow at that
 * write's CMD_CTRL. The fix clears the counter after the multicast
 * (NIU_CLEAR_OUTSTANDING_REQ_CNT), as fast dispatch does. */
#include "multicore.h"
#include "noc.h"

#define NIU_CLEAR_OUTSTANDING_REQ_CNT (NOC_NIU_BASE + 0x60u)
#define LEN 256u
/* Where the block lands on tiles 1 and 2: above the program image, which nobody there touches
 * (their .bss, zeroed by their own crt0 while the multicast may be in flight, would be a race
 * of its own). */
#define DEST 0x100000u

static uint8_t block[LEN] __attribute__((aligned(64)));

int main_brisc(void)
{
	noc_init_brisc();
	if (my_x() != 1 || my_y() != 2)
		return 0;   /* tiles 1 and 2 only receive */
	for (unsigned k = 0; k < LEN; k++)
		block[k] = (uint8_t)k;
	uint32_t src = (uint32_t)(uintptr_t)block;
	noc_async_write_multicast(src, get_noc_multicast_addr(2, 2, 3, 2, DEST), LEN, 2);
	noc_async_write_barrier();
#ifdef RACE_FIXED
	*(volatile uint32_t *)NIU_CLEAR_OUTSTANDING_REQ_CNT = 1;
#endif
	noc_async_write(src, get_noc_addr(2, 2, DEST + LEN / 2), LEN / 2);
	noc_async_write_barrier();
	return 0;
}
