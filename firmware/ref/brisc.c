/* Reference BRISC firmware for the p100a profile (launch.md 2, 5): boots the tile, then runs
 * launch messages. It pushes the same Tensix instructions as the real firmware at boot
 * (tensix.md 9); the copy of the logical-to-virtual maps, which nothing reads, is left out. */
#include "cb.h"
#include "fw.h"
#include "noc.h"

/* In .data (copied from the scratch by crt0), like the real firmware's subordinate_sync pointer. */
volatile uint32_t *subordinate_sync = (volatile uint32_t *)(uintptr_t)MBOX_SUBORDINATE_SYNC;

/* Tensix boot instructions of the p100a firmware (tensix.md 9), pushed into thread 0 through
 * BRISC's push window (after the MOP expander). */
static const uint32_t tensix_boot_insns[] = {
	0x10180000u,	/* ZEROACC clear_mode 3: the whole Dst */
	0x8A00300Au,	/* SFPENCC: enable the SFPU condition-code stack */
	0x02000000u,	/* NOP */
	0x7100BF80u,	/* SFPLOADI LReg0 <- -1.0 (bf16) */
	0x910000B0u,	/* SFPCONFIG: LReg0 into constant LReg11 */
};
static const uint32_t tensix_boot_seminit[] = {
	0xA3100008u,	/* SEMINIT sem 1 (MATH_PACK): value 0, max 1 */
	0xA3100010u,	/* SEMINIT sem 2 (UNPACK_TO_DEST) */
	0xA3100200u,	/* SEMINIT sem 7 (MATH_DONE) */
};

/* ECC scrubber (Tensix config index 3): Enable, Scrub_On_Error, Delay (bits 13:3) = 0x100. */
#define ECC_SCRUBBER_MASK	(0x7FFu << 3 | 3u)
#define ECC_SCRUBBER_VALUE	(0x100u << 3 | 3u)

/* launch.md 2 step 6. */
static void device_setup(void)
{
	REG32(DEST_CG_CTRL) = 0;
	REG32(TDMA_CLK_GATE_EN) = 0x3F;
	for (uint32_t noc = 0; noc < NOC_NUM_NOCS; noc++) {
		*noc_niu_reg(noc, NIU_CFG_0_OFF) |= 1u;
		*noc_niu_reg(noc, ROUTER_CFG_0_OFF) |= 1u;
	}
	REG32(NCRISC_RESET_PC) = FW_NCRISC_BASE;
	REG32(TRISC0_RESET_PC) = FW_TRISC0_BASE;
	REG32(TRISC1_RESET_PC) = FW_TRISC1_BASE;
	REG32(TRISC2_RESET_PC) = FW_TRISC2_BASE;
	REG32(TRISC_RESET_PC_OVERRIDE) = 7;
	REG32(NCRISC_RESET_PC_OVERRIDE) = 1;
	for (uint32_t a = MEM_ZEROS_BASE; a < MEM_ZEROS_BASE + MEM_ZEROS_SIZE; a += 4)
		REG32(a) = 0;
	REG32(TENSIX_CFG(TENSIX_CFG_IC_INVALIDATE)) = 0x1F;
	for (uint32_t k = 0; k < sizeof tensix_boot_insns / sizeof tensix_boot_insns[0]; k++)
		REG32(TENSIX_PUSH_THREAD0) = tensix_boot_insns[k];
	REG32(TENSIX_CFG(TENSIX_CFG_ECC_SCRUBBER)) =
		(REG32(TENSIX_CFG(TENSIX_CFG_ECC_SCRUBBER)) & ~ECC_SCRUBBER_MASK) | ECC_SCRUBBER_VALUE;
	for (uint32_t k = 0; k < sizeof tensix_boot_seminit / sizeof tensix_boot_seminit[0]; k++)
		REG32(TENSIX_PUSH_THREAD0) = tensix_boot_seminit[k];
}

static struct go_msg read_go_msg(uint32_t idx)
{
	uint32_t w = REG32(MBOX_GO_MESSAGES + 4u * idx);
	struct go_msg g = {
		.dispatch_message_offset = (uint8_t)w,
		.master_x = (uint8_t)(w >> 8),
		.master_y = (uint8_t)(w >> 16),
		.signal = (uint8_t)(w >> 24),
	};
	return g;
}

/* Fast dispatch (launch.md 12): one posted inline write adds 1 to reg 297 of the dispatcher's
 * stream (through reg 270), which the dispatcher's WAIT polls for the count of done workers. The
 * byte enables stay 0, as in the real firmware: an inline write to a register ignores them. */
static void notify_dispatcher(struct go_msg go)
{
	const uint32_t noc = noc_index;
	uint32_t reg = STREAM_REG(DISPATCH_STREAM_FIRST + go.dispatch_message_offset, STREAM_REG_WORDS_FREE_INC);

	noc_issue_write_inline(noc, NOC_CTRL_WRITE_INLINE_POSTED, get_noc_addr(go.master_x, go.master_y, reg),
			       1u << STREAM_WORDS_FREE_INC_SHIFT, 0);
	noc_posted_writes_num_issued[noc] += 1;
}

/* Wait for GO on go_messages[idx], handling the read-pointer resets on the way (launch.md 5.1).
 * Returns the launch message to run. */
static struct launch_msg volatile *wait_for_go(uint32_t idx)
{
	for (;;) {
		uint8_t sig = fw_poll8(MBOX_GO_SIGNAL(idx));
		struct launch_msg volatile *l = fw_launch(REG32(MBOX_LAUNCH_RD_PTR));
		if (sig == RUN_MSG_GO || (l->preload & DISPATCH_ENABLE_FLAG_PRELOAD))
			return l;
		if (sig == RUN_MSG_RESET_READ_PTR || sig == RUN_MSG_REPLAY_TRACE) {
			struct go_msg go = read_go_msg(idx);
			REG32(MBOX_LAUNCH_RD_PTR) = 0;
			fw_publish8(MBOX_GO_SIGNAL(idx), RUN_MSG_DONE);
			notify_dispatcher(go);
		} else if (sig == RUN_MSG_RESET_READ_PTR_FROM_HOST) {
			REG32(MBOX_LAUNCH_RD_PTR) = 0;
		}
	}
}

static void run_launch(uint32_t idx, struct launch_msg volatile *l)
{
	uint32_t enables = l->enables;

	if (enables & ENABLE_NCRISC)
		fw_publish8(MBOX_SYNC_DM1, RUN_SYNC_MSG_LOAD);
	fw_launch_globals(PROC_BRISC, l);
	REG32(TENSIX_CFG(TENSIX_CFG_IC_INVALIDATE)) = 0x1F;	/* new kernel text in L1 */

	/* TRISC0 may still be zeroing the CB counters from the previous launch. */
	while (fw_poll8(MBOX_SYNC_TRISC0) != RUN_SYNC_MSG_DONE)
		;
	if (enables & ENABLE_TRISC) {
		__asm__ volatile("fence rw, w" ::: "memory");
		REG8(MBOX_SYNC_TRISC0) = RUN_SYNC_MSG_GO;
		REG8(MBOX_SYNC_TRISC1) = RUN_SYNC_MSG_GO;
		REG8(MBOX_SYNC_TRISC2) = RUN_SYNC_MSG_GO;
	}

	/* Dedicated NoC mode only: re-initialise when the launch picks the other NoC (NCRISC used it
	 * last time), else just take the NIU's counters again. */
	uint32_t noc = l->brisc_noc_id & 1u;
	if (noc != noc_index)
		noc_init(NOC_PROC_BRISC, noc);
	else
		noc_counters_init(noc);

	if (enables & ENABLE_NCRISC)
		fw_publish8(MBOX_SYNC_DM1, RUN_SYNC_MSG_GO);
	if (enables & ENABLE_BRISC) {
		/* Remote CBs (remote_cb_offset, sync.md 3.1) are not set up: the host never configures
		 * any (min_remote_cb_start_index is always 32). */
		cb_interface_setup(launch_local_cb_config(l), l->local_cb_mask);
		fw_call_kernel(PROC_BRISC, l);
	}

	while (fw_poll32(MBOX_SUBORDINATE_SYNC) != 0)
		;
	REG8(MBOX_SYNC_TRISC0) = RUN_SYNC_MSG_INIT_SYNC_REGISTERS;
	struct go_msg go = read_go_msg(idx);	/* before DONE: the dispatcher may reuse it after */
	fw_publish8(MBOX_GO_SIGNAL(idx), RUN_MSG_DONE);

	if (l->mode == DISPATCH_MODE_DEV) {
		l->enables = 0;
		l->preload = 0;
		notify_dispatcher(go);
		REG32(MBOX_LAUNCH_RD_PTR) = (REG32(MBOX_LAUNCH_RD_PTR) + 1u) & (MBOX_LAUNCH_COUNT - 1u);
	}
}

int main(void)
{
	/* The host wrote the p100a-sized tables (fewer banks on a smaller device; ABI.md 4). */
	(void)noc_bank_tables_init(MEM_BANK_TO_NOC_SCRATCH, NUM_DRAM_BANKS, NUM_L1_BANKS);
	REG32(MBOX_LAUNCH_RD_PTR) = 0;
	fw_read_position();

	device_setup();

	/* Release the subordinates; each writes its sync byte to DONE once it is up. */
	REG32(MEM_MAILBOX_BASE) = 0;	/* ncrisc_halt.resume_addr */
	*subordinate_sync = RUN_SYNC_MSG_ALL_INIT;
	__asm__ volatile("fence" ::: "memory");
	REG32(SOFT_RESET_0) = 0;
	while (fw_poll32((uint32_t)(uintptr_t)subordinate_sync) != 0)
		;

	fw_publish8(MBOX_GO_SIGNAL(0), RUN_MSG_DONE);	/* the host's "boot complete" */
	noc_init(NOC_PROC_NCRISC, 1);			/* command buffers of NoC1 for later switches */
	noc_init(NOC_PROC_BRISC, 0);
	REG8(MBOX_SYNC_TRISC0) = RUN_SYNC_MSG_INIT_SYNC_REGISTERS;

	for (;;) {
		uint32_t idx = REG32(MBOX_GO_MESSAGE_INDEX);
		if (idx >= MBOX_GO_COUNT)
			idx = 0;
		run_launch(idx, wait_for_go(idx));
	}
}
