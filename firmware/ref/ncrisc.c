/* Reference NCRISC firmware for the p100a profile (launch.md 3). Unlike p100a it runs noc_init
 * before each kernel (firmware/kernel/ABI.md 4), so kernels need not snapshot the NIU counters. */
#include "cb.h"
#include "fw.h"
#include "noc.h"

volatile uint8_t *ncrisc_run = (volatile uint8_t *)(uintptr_t)MBOX_SYNC_DM1;	/* .data */

int main(void)
{
	(void)noc_bank_tables_init(MEM_BANK_TO_NOC_SCRATCH, NUM_DRAM_BANKS, NUM_L1_BANKS);
	fw_read_position();
	fw_publish8((uint32_t)(uintptr_t)ncrisc_run, RUN_SYNC_MSG_DONE);
	for (;;) {
		uint8_t v;
		do
			v = fw_poll8((uint32_t)(uintptr_t)ncrisc_run);
		while (v != RUN_SYNC_MSG_GO && v != RUN_SYNC_MSG_LOAD);

		/* LOAD: set up while BRISC prepares; remote CBs are left out as on BRISC. */
		struct launch_msg volatile *l = fw_launch(REG32(MBOX_LAUNCH_RD_PTR));
		fw_launch_globals(PROC_NCRISC, l);
		cb_interface_setup(launch_local_cb_config(l), l->local_cb_mask);
		while (fw_poll8((uint32_t)(uintptr_t)ncrisc_run) != RUN_SYNC_MSG_GO)
			;
		/* After GO: BRISC has finished with its own NoC's set-up by then. */
		noc_init(NOC_PROC_NCRISC, (l->brisc_noc_id & 1u) ^ 1u);
		fw_call_kernel(PROC_NCRISC, l);
		fw_publish8((uint32_t)(uintptr_t)ncrisc_run, RUN_SYNC_MSG_DONE);
	}
}
