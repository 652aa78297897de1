/* Reference TRISC firmware for the p100a profile (launch.md 4), built once per thread with
 * -DTRISC_ID=0/1/2. The Tensix coprocessor is not modelled yet, so the real firmware's GPR zeroing
 * (0xFFE00000, not modelled) is left out; tensix_sync is kept, since the TTSync window exists and
 * returns at once when no Tensix instruction is in flight. */
#include "cb.h"
#include "fw.h"

#ifndef TRISC_ID
#error "build with -DTRISC_ID=0, 1 or 2"
#endif

#define MY_SYNC	(MBOX_SYNC_TRISC0 + TRISC_ID)
#define BOOT_WAIT_TICKS	600u

#if TRISC_ID == 0
/* TRISC0: zero the two CB counters of every CB stream (RUN_SYNC_MSG_INIT_SYNC_REGISTERS). */
static void init_sync_registers(void)
{
	for (uint32_t s = CB_FIRST_STREAM; s < CB_FIRST_STREAM + NUM_CBS; s++) {
		REG32(STREAM_REG(s, CB_STREAM_REG_TILES_RECEIVED)) = 0;
		REG32(STREAM_REG(s, CB_STREAM_REG_TILES_ACKED)) = 0;
	}
}
#endif

/* sync.md 3.2: TRISC0 sets up the unpacker (consumer) side, TRISC2 the packer (producer) side,
 * TRISC1 leaves its table alone. Remote CBs are left out, as on BRISC. */
static void setup_cbs(struct launch_msg volatile *l)
{
#if TRISC_ID == 0
	cb_interface_setup_unpacker(launch_local_cb_config(l), l->local_cb_mask);
#elif TRISC_ID == 2
	cb_interface_setup_packer(launch_local_cb_config(l), l->local_cb_mask);
#else
	(void)l;
#endif
}

int main(void)
{
	REG32(TENSIX_CFG(TENSIX_CFG_PRNG_SEED)) = 0;
	uint64_t until = fw_wall_clock() + BOOT_WAIT_TICKS;
	while (fw_wall_clock() < until)
		;
	fw_read_position();
	fw_publish8(MY_SYNC, RUN_SYNC_MSG_DONE);

	for (;;) {
		uint8_t v = fw_poll8(MY_SYNC);
#if TRISC_ID == 0
		if (v == RUN_SYNC_MSG_INIT_SYNC_REGISTERS) {
			init_sync_registers();
			fw_publish8(MY_SYNC, RUN_SYNC_MSG_DONE);
			continue;
		}
#endif
		if (v != RUN_SYNC_MSG_GO)
			continue;
		struct launch_msg volatile *l = fw_launch(REG32(MBOX_LAUNCH_RD_PTR));
		fw_launch_globals(PROC_TRISC0 + TRISC_ID, l);
		setup_cbs(l);
		fw_call_kernel(PROC_TRISC0 + TRISC_ID, l);
		REG32(TTSYNC_TENSIX_SYNC) = 0;
		(void)REG32(TTSYNC_TENSIX_SYNC);
		fw_publish8(MY_SYNC, RUN_SYNC_MSG_DONE);
	}
}
