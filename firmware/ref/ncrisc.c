/* Reference NCRISC firmware for the p100a profile (launch.md 3). Circular-buffer set-up is left
 * out (the reference firmware has none); NoC state is the kernel's business, as on p100a. */
#include "fw.h"

volatile uint8_t *ncrisc_run = (volatile uint8_t *)(uintptr_t)MBOX_SYNC_DM1;	/* .data */

int main(void)
{
	fw_publish8((uint32_t)(uintptr_t)ncrisc_run, RUN_SYNC_MSG_DONE);
	for (;;) {
		uint8_t v;
		do
			v = fw_poll8((uint32_t)(uintptr_t)ncrisc_run);
		while (v != RUN_SYNC_MSG_GO && v != RUN_SYNC_MSG_LOAD);

		struct launch_msg volatile *l = fw_launch(REG32(MBOX_LAUNCH_RD_PTR));
		while (fw_poll8((uint32_t)(uintptr_t)ncrisc_run) != RUN_SYNC_MSG_GO)
			;
		fw_call_kernel(PROC_NCRISC, l);
		fw_publish8((uint32_t)(uintptr_t)ncrisc_run, RUN_SYNC_MSG_DONE);
	}
}
