/* races.md #21: BRISC sets a stream's REMOTE_DEST_BUF_SIZE (reg 10), which also sets its
 * SPACE_AVAILABLE (reg 297), and reads reg 297 right after, assuming the store came first. On
 * silicon the core's store queue lets a load of another address overtake an older store, and
 * stream-register requests can complete out of order (riscv-cores.md 4, sync.md 1): the load may
 * see the value before the store. --provoke reorder holds the store in the core's store queue,
 * and the read of reg 297 sees the old value: the program's own check fails (status 9). The fix
 * reads back the last-written register first (sync.md 1): a load of the same word waits for the
 * store. */
#include "multicore.h"

#define STREAM_REG(s, r) (*(volatile uint32_t *)(uintptr_t)(0xFFB40000u + 0x1000u * (s) + 4u * (r)))
#define STREAM 44u
#define BUF_SIZE 10u
#define SPACE_AVAILABLE 297u
#define ROUNDS 64u

int main_brisc(void)
{
	for (uint32_t k = 1; k <= ROUNDS; k++) {
		STREAM_REG(STREAM, BUF_SIZE) = k;
#ifdef RACE_FIXED
		(void)STREAM_REG(STREAM, BUF_SIZE);   /* read back: the store has landed */
#endif
		if (STREAM_REG(STREAM, SPACE_AVAILABLE) != k)
			return 9;
	}
	return 0;
}
