/* races.md #7 (and #5 at the end), as a slow-dispatch host would make it: the next program's launch message written
 * into launch[0] while BRISC still runs the kernel of the current one (go signal GO, mode HOST).
 * launch-slot-busy (a default check) records it against BRISC; the fixed twin waits for the go
 * signal to return to DONE first. Boots the reference firmware (p100a profile) on one tile. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

/* p100a (launch.md 6, 9, 10). */
#define LAUNCH0 0x70u
#define GO0 0x370u
#define GO_MESSAGE_INDEX 0x3A0u
#define KCB 0x82B0u
#define TEXT_OFF 0x110u                 /* the BRISC kernel at KCB + TEXT_OFF */
#define STARTED 0x30000u
#define FINISH 0x30010u

/* A BRISC kernel: started = 1; wait until finish != 0; return 0. */
static void put_kernel(struct bh_device *dev)
{
	struct prog k = { 0 };
	emit_store_word(&k, STARTED, 1);
	emit_wait_nonzero(&k, FINISH, T0);
	emit(&k, addi(A0, X0, 0));
	emit(&k, INSN_RET);
	prog_put(dev, 0, KCB + TEXT_OFF, &k);
}

/* launch_msg_t for that kernel: mode HOST, BRISC only, no CBs. */
static void build_msg(uint8_t msg[96])
{
	memset(msg, 0, 96);
	uint32_t kcb = KCB, text = TEXT_OFF, enables = 1;
	memcpy(msg + 0x00, &kcb, 4);
	msg[0x2A] = 1;                  /* DISPATCH_MODE_HOST */
	memcpy(msg + 0x2C, &text, 4);
	msg[0x46] = 32;                 /* no remote CBs */
	memcpy(msg + 0x4C, &enables, 4);
}

static void set_signal(struct bh_device *dev, uint8_t sig)
{
	cr_assert_eq(bh_l1_write(dev, 0, GO0 + 3, &sig, 1), BH_OK);
}

static void wait_word(struct bh_device *dev, uint32_t addr, uint32_t mask, uint32_t value)
{
	uint32_t v = ~value;
	for (int ms = 0; ms < T_STOP_MS && (v & mask) != value; ms++) {
		cr_assert_eq(bh_l1_read(dev, 0, addr, &v, 4), BH_OK);
		if ((v & mask) != value)
			sleep_ms(1);
	}
	cr_assert_eq(v & mask, value, "L1 0x%x reads 0x%x, expected 0x%x under mask 0x%x", addr, v, value, mask);
}

/* Launch the kernel by slow dispatch and wait until it runs; then the next message goes into
 * launch[0] before (bug) or after (fixed) the go signal returned to DONE. */
static struct bh_device *relaunch(bool fixed)
{
	struct bh_device *dev = tl_boot_ref_grid(1, 1);
	uint8_t msg[96];
	uint32_t zero = 0;
	put_kernel(dev);
	build_msg(msg);
	cr_assert_eq(bh_l1_write(dev, 0, GO_MESSAGE_INDEX, &zero, 4), BH_OK);
	set_signal(dev, 0xE0);                         /* RESET_READ_PTR_FROM_HOST */
	cr_assert_eq(bh_l1_write(dev, 0, LAUNCH0, msg, sizeof msg), BH_OK);
	set_signal(dev, 0x80);                         /* GO */
	wait_word(dev, STARTED, ~0u, 1);
	if (fixed) {
		set_l1(dev, FINISH, 1);
		wait_word(dev, GO0, 0xFF000000u, 0);   /* DONE */
	}
	cr_assert_eq(bh_l1_write(dev, 0, LAUNCH0, msg, sizeof msg), BH_OK);   /* the next program's */
	if (!fixed) {
		set_l1(dev, FINISH, 1);
		wait_word(dev, GO0, 0xFF000000u, 0);
	}
	return dev;
}

Test(race_07, next_launch_message_written_while_brisc_runs_the_kernel_is_flagged)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	struct bh_device *dev = relaunch(false);
	char buf[2048] = "";
	cr_assert_eq(bh_device_findings(dev, buf, sizeof buf), 1, "%s", buf);
	assert_has(buf, "check launch-slot-busy: on tile 0 (1,2) core brisc\n");
	assert_has(buf, "  other: brisc of (1,2), which has not finished launch[0] (enables 0x1, mode HOST)\n");
	assert_has(buf, "  why: the host writes 96 bytes at 0x00070 into launch[0] of (1,2) while BRISC owns it: reuse a "
			"slot only after BRISC cleared its enables (DEV) or reported DONE (HOST)");
	bh_device_close(dev);
}

Test(race_07, fixed_next_launch_message_written_after_done_is_not_flagged)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	struct bh_device *dev = relaunch(true);
	char buf[2048] = "";
	cr_expect_eq(bh_device_findings(dev, buf, sizeof buf), 0, "%s", buf);
	bh_device_close(dev);
}

/* races.md #5, the launch side: the kernels of a launch start on the CB counters as they are at GO,
 * which the firmware's reset between runs (subordinate_sync.trisc0 = 3, TRISC0 zeroes them) leaves
 * at 0. A BRISC kernel pushes and pops one page of CB2 (stream 10) each launch; the reference
 * firmware resets after every run, so the next launch starts clean. The host launches once the
 * reset is over (with one pending the check has nothing to judge). */
#define CB2_RECEIVED 0xFFB4A028u
#define CB2_ACKED 0xFFB4A020u
#define SYNC_WORD 0x68u                 /* subordinate_sync; byte 1 is TRISC0's (launch.md 6) */

/* The program: on tile 0, a BRISC kernel that pushes and pops one page of CB2. */
static struct bh_program *push_pop_program(struct bh_device *dev)
{
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	struct prog k = { 0 };
	emit_store_word(&k, CB2_RECEIVED, 1);
	emit_store_word(&k, CB2_ACKED, 1);
	emit(&k, INSN_RET);
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, k.w, k.n, &(struct bh_core_range){ 0, 0, 0, 0 }, 1) >= 0);
	return p;
}

static int launch_push_pop(struct bh_device *dev)
{
	struct bh_program *p = push_pop_program(dev);
	int rc = bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = 10 }, NULL);
	cr_expect_eq(rc, BH_OK, "%s", bh_program_error(p));
	bh_program_destroy(p);
	return rc;
}

Test(race_05, launches_after_the_firmware_reset_the_counters_are_not_flagged)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	struct bh_device *dev = tl_boot_ref_grid(1, 1);
	launch_push_pop(dev);
	for (int i = 0; i < 3; i++) {
		wait_word(dev, SYNC_WORD, 0xFF00u, 0);   /* the reset is over: the check looks at the counters */
		launch_push_pop(dev);
	}
	char buf[2048] = "";
	cr_expect_eq(bh_device_findings(dev, buf, sizeof buf), 0, "%s", buf);
	bh_device_close(dev);
}

/* The counters a run moved and no reset followed (as firmware that skips the hand-off leaves
 * them; here the host puts them there once TRISC0's reset is over): the next launch is flagged,
 * against BRISC, naming the CB. */
Test(race_05, launch_on_counters_not_reset_since_a_run_is_flagged)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	struct bh_device *dev = tl_boot_ref_grid(1, 1);
	/* A run first: BRISC asks for the reset before it reports DONE (after boot it asks only after
	 * DONE), so once the byte reads DONE here the reset is over and none is pending. */
	launch_push_pop(dev);
	wait_word(dev, SYNC_WORD, 0xFF00u, 0);
	cr_assert_eq(bh_reg_write(dev, 0, CB2_RECEIVED, 1), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, CB2_ACKED, 1), BH_OK);
	launch_push_pop(dev);
	char buf[2048] = "";
	cr_assert_eq(bh_device_findings(dev, buf, sizeof buf), 1, "%s", buf);
	assert_has(buf, "check cb-reset-window: on tile 0 (1,2) core brisc\n");
	assert_has(buf, "  other: brisc of (1,2), whose firmware starts the kernels: no counter reset is pending "
			"(subordinate_sync.trisc0, L1 0x69, is DONE)\n");
	assert_has(buf, "  why: the host launches on (1,2) with CB2 tiles_received 0x1 and tiles_acked 0x1: the counters "
			"were not reset since a run moved them (BRISC asks TRISC0 to reset them, subordinate_sync.trisc0 = 3, "
			"after every run), so the kernels start on stale counters");
	bh_device_close(dev);
}

/* The same at fast-dispatch launches: the dispatcher model judges each worker its go signal is
 * about to reach (here by unicast: no multicast grid is configured), as slow dispatch judges its
 * tiles. A 3 x 2 grid: the command queue's cores are tiles 2 and 5; the kernel runs on tile 0. */
static int cq_push_pop(struct bh_cq *cq, struct bh_device *dev)
{
	struct bh_program *p = push_pop_program(dev);
	int rc = bh_cq_launch(cq, p, NULL);
	cr_expect_eq(rc, BH_OK, "%s %s", bh_program_error(p), bh_cq_error(cq));
	if (rc == BH_OK) {
		rc = bh_cq_finish(cq);
		cr_expect_eq(rc, BH_OK, "%s", bh_cq_error(cq));
	}
	bh_program_destroy(p);
	return rc;
}

static struct bh_cq *open_queue(struct bh_device *dev)
{
	struct bh_cq *cq = NULL;
	char err[512] = "";
	int rc = bh_cq_open(dev, &(struct bh_cq_config){ .timeout_s = 30 }, &cq, err, sizeof err);
	cr_assert_eq(rc, BH_OK, "bh_cq_open: %d: %s", rc, err);
	return cq;
}

Test(race_05, fast_dispatch_launches_after_the_firmware_reset_the_counters_are_not_flagged)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_queue(dev);
	for (int i = 0; i < 4; i++) {
		cq_push_pop(cq, dev);
		wait_word(dev, SYNC_WORD, 0xFF00u, 0);
	}
	char buf[2048] = "";
	cr_expect_eq(bh_device_findings(dev, buf, sizeof buf), 0, "%s", buf);
	bh_cq_close(cq);
	bh_device_close(dev);
}

Test(race_05, fast_dispatch_launch_on_counters_not_reset_since_a_run_is_flagged)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_queue(dev);
	cq_push_pop(cq, dev);
	wait_word(dev, SYNC_WORD, 0xFF00u, 0);
	cr_assert_eq(bh_reg_write(dev, 0, CB2_RECEIVED, 1), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, CB2_ACKED, 1), BH_OK);
	cq_push_pop(cq, dev);
	char buf[2048] = "";
	cr_assert_eq(bh_device_findings(dev, buf, sizeof buf), 1, "%s", buf);
	assert_has(buf, "check cb-reset-window: on tile 0 (1,2) core brisc\n");
	assert_has(buf, "  why: the dispatcher sends GO to (1,2) with CB2 tiles_received 0x1 and tiles_acked 0x1: the "
			"counters were not reset since a run moved them");
	bh_cq_close(cq);
	bh_device_close(dev);
}
