/* races.md #7, as a slow-dispatch host would make it: the next program's launch message written
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
	for (int ms = 0; ms < 5000 && (v & mask) != value; ms++) {
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
