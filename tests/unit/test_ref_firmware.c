/* The reference firmware (firmware/ref/, p100a layout) boots and launches kernels when the host does
 * the slow-dispatch boot of launch.md section 1 by hand through the public API. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "firmware/ref/p100a.h"
#include "testlib.h"

#define SOFT_RESET_0_ADDR	0xFFB121B0u
#define SOFT_RESET_ALL_HELD	0x47800u
#define SOFT_RESET_RUN_BRISC	0x47000u
#define POLL_TIMEOUT_MS		T_STOP_MS

static const char *const fw_names[5] = { "brisc", "ncrisc", "trisc0", "trisc1", "trisc2" };
static const uint32_t fw_scratch[5] = { FW_BRISC_SCRATCH, FW_NCRISC_SCRATCH, FW_TRISC0_SCRATCH,
					FW_TRISC1_SCRATCH, FW_TRISC2_SCRATCH };
static const uint32_t fw_base[5] = { FW_BRISC_BASE, FW_NCRISC_BASE, FW_TRISC0_BASE, FW_TRISC1_BASE,
				     FW_TRISC2_BASE };

static void fw_path(char *buf, size_t len, unsigned core)
{
	snprintf(buf, len, "%s/firmware/ref/%s.elf", BHEMU_BINARY_DIR, fw_names[core]);
}

static void skip_unless_built(void)
{
	char path[512];
	for (unsigned c = 0; c < 5; c++) {
		fw_path(path, sizeof path, c);
		if (access(path, R_OK) != 0)
			cr_skip_test("reference firmware not built (%s); needs riscv64-unknown-elf-gcc", path);
	}
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint8_t l1_byte(struct bh_device *dev, unsigned tile, uint32_t addr)
{
	uint8_t v = 0xEE;
	cr_assert_eq(bh_l1_read(dev, tile, addr, &v, 1), BH_OK);
	return v;
}

static uint32_t l1_word(struct bh_device *dev, unsigned tile, uint32_t addr)
{
	uint32_t v = 0;
	cr_assert_eq(bh_l1_read(dev, tile, addr, &v, 4), BH_OK);
	return v;
}

static void l1_put_word(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t v)
{
	cr_assert_eq(bh_l1_write(dev, tile, addr, &v, 4), BH_OK);
}

static void fail_with_report(struct bh_device *dev, const char *what, unsigned tile, uint32_t got)
{
	static char report[16384];
	bh_device_report(dev, report, sizeof report);
	cr_assert_fail("tile %u: %s (last value 0x%x)\n%s", tile, what, got, report);
}

/* Poll an L1 word (masked) until it equals want, as the host does over PCIe. */
static void poll_until(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t mask, uint32_t want,
		       const char *what)
{
	uint64_t deadline = now_ms() + POLL_TIMEOUT_MS;
	uint32_t v;
	while (((v = l1_word(dev, tile, addr)) & mask) != want) {
		if (now_ms() > deadline)
			fail_with_report(dev, what, tile, v);
		usleep(100);
	}
}

/* launch.md 1, steps 1-4 and 7 (the firmware writes the reset PCs itself; no bank tables). */
static void host_boot_tile(struct bh_device *dev, unsigned tile)
{
	char path[512], err[256];
	cr_assert_eq(bh_reg_write(dev, tile, SOFT_RESET_0_ADDR, SOFT_RESET_ALL_HELD), BH_OK);
	for (unsigned c = 0; c < 5; c++) {
		struct bh_load_options opt = { .ldm_redirect = fw_scratch[c] };
		uint32_t entry = 0;
		fw_path(path, sizeof path, c);
		cr_assert_eq(bh_load_elf(dev, tile, (enum bh_core_id)c, path, &opt, &entry, err, sizeof err), BH_OK,
			     "%s", err);
		cr_assert_eq(entry, fw_base[c], "%s entry 0x%x", fw_names[c], entry);
	}
	uint32_t b = FW_BRISC_BASE;
	uint32_t jal = 0x6Fu | (b & 0x7FEu) << 20 | (b & 0x800u) << 9 | (b & 0xFF000u);
	cr_assert_eq(jal, 0x0410306Fu);
	l1_put_word(dev, tile, 0, jal);
	l1_put_word(dev, tile, MBOX_GO_MESSAGES, (uint32_t)RUN_MSG_INIT << 24);
	(void)l1_word(dev, tile, 0);	/* flush posted writes (free here, kept for the recipe) */
	cr_assert_eq(bh_reg_write(dev, tile, SOFT_RESET_0_ADDR, SOFT_RESET_RUN_BRISC), BH_OK);
}

static void wait_idle(struct bh_device *dev, unsigned tile)
{
	poll_until(dev, tile, MBOX_GO_MESSAGES, 0xFF000000u, 0, "go_messages[0].signal never returned to DONE");
	/* T0 may still be zeroing the CB counters (3) for a moment. */
	poll_until(dev, tile, MBOX_SUBORDINATE_SYNC, 0xFFFFFFFFu, 0, "subordinate_sync never settled to 0");
}

static struct bh_device *open_and_boot(const struct bh_device_config *cfg)
{
	struct bh_device *dev = NULL;
	cr_assert_eq(bh_device_open(cfg, &dev), BH_OK);
	unsigned n = bh_device_num_tiles(dev);
	for (unsigned t = 0; t < n; t++)
		host_boot_tile(dev, t);
	for (unsigned t = 0; t < n; t++)
		wait_idle(dev, t);
	return dev;
}

/* ---- Launches ----------------------------------------------------------------------------------- */

#define KCB		MEM_MAP_END
#define RTA_OFF(p)	(0x00u + 8u * (p))	/* per-processor runtime-arg word */
#define CRTA_OFF(p)	(0x40u + 8u * (p))
#define SEM_OFF		0x80u
#define TEXT_OFF(p)	(0x100u + 0x40u * (p))

/* Kernel of processor p: either a bare `ret`, or a store of (p + 1) * 0x11 + seq to rta[0]. */
static void write_kernels(struct bh_device *dev, unsigned tile, bool marker, uint32_t seq)
{
	for (uint32_t p = 0; p < PROC_COUNT; p++) {
		uint32_t code[3];
		unsigned n = 0;
		if (marker) {
			code[n++] = enc_i((int32_t)((p + 1) * 0x11 + seq), 0, 0, 5, OP_IMM);	/* li t0, v */
			code[n++] = enc_s(0, 5, 10, W_W, OP_STORE);				/* sw t0, 0(a0) */
		}
		code[n++] = INSN_RET;
		cr_assert_eq(bh_l1_write(dev, tile, KCB + TEXT_OFF(p), code, 4 * n), BH_OK);
		l1_put_word(dev, tile, KCB + RTA_OFF(p), 0);
	}
}

static void write_launch(struct bh_device *dev, unsigned tile, uint32_t rd, uint8_t mode, uint8_t noc)
{
	struct launch_msg l;
	memset(&l, 0, sizeof l);
	l.kernel_config_base[0] = KCB;
	l.sem_offset[0] = SEM_OFF;
	for (uint32_t p = 0; p < PROC_COUNT; p++) {
		l.rta_offset[p].rta = (uint16_t)RTA_OFF(p);
		l.rta_offset[p].crta = (uint16_t)CRTA_OFF(p);
		l.kernel_text_offset[p] = TEXT_OFF(p);
	}
	l.mode = mode;
	l.brisc_noc_id = noc;
	l.min_remote_cb_start_index = NUM_CBS;
	l.enables = ENABLE_ALL;
	cr_assert_eq(bh_l1_write(dev, tile, MBOX_LAUNCH + MBOX_LAUNCH_SIZE * rd, &l, sizeof l), BH_OK);
}

/* Slow dispatch (launch.md 11): reset the read pointer, write launch[0], GO, poll DONE. */
static void host_launch(struct bh_device *dev, unsigned tile, uint8_t noc)
{
	l1_put_word(dev, tile, MBOX_GO_MESSAGES, (uint32_t)RUN_MSG_RESET_READ_PTR_FROM_HOST << 24);
	poll_until(dev, tile, MBOX_LAUNCH_RD_PTR, 0xFFFFFFFFu, 0, "RESET_READ_PTR_FROM_HOST did not zero rd");
	write_launch(dev, tile, 0, DISPATCH_MODE_HOST, noc);
	l1_put_word(dev, tile, MBOX_GO_MESSAGES, (uint32_t)RUN_MSG_GO << 24);
}

static void boot_then_launch_empty_kernels(const struct bh_device_config *cfg)
{
	struct bh_device *dev = open_and_boot(cfg);
	unsigned n = bh_device_num_tiles(dev);
	for (unsigned t = 0; t < n; t++)
		write_kernels(dev, t, false, 0);
	for (unsigned round = 0; round < 4; round++) {
		for (unsigned t = 0; t < n; t++)
			host_launch(dev, t, (uint8_t)(round & 1));
		for (unsigned t = 0; t < n; t++) {
			wait_idle(dev, t);
			cr_assert_eq(l1_word(dev, t, MBOX_LAUNCH_RD_PTR), 0, "HOST mode must not advance rd");
		}
	}
	bh_device_close(dev);
}

Test(ref_firmware, boots_one_tile_and_every_subordinate_reports_done)
{
	skip_unless_built();
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .num_tiles = 1 };
	struct bh_device *dev = open_and_boot(&cfg);
	cr_assert_eq(l1_byte(dev, 0, MBOX_SYNC_DM1), RUN_SYNC_MSG_DONE);
	cr_assert_eq(l1_byte(dev, 0, MBOX_SYNC_TRISC1), RUN_SYNC_MSG_DONE);
	cr_assert_eq(l1_byte(dev, 0, MBOX_SYNC_TRISC2), RUN_SYNC_MSG_DONE);
	/* BRISC asks TRISC0 to zero the CB counters (3) right after reporting boot done. */
	uint8_t t0 = l1_byte(dev, 0, MBOX_SYNC_TRISC0);
	cr_assert(t0 == RUN_SYNC_MSG_DONE || t0 == RUN_SYNC_MSG_INIT_SYNC_REGISTERS, "T0 sync byte 0x%x", t0);
	poll_until(dev, 0, MBOX_SUBORDINATE_SYNC, 0xFFFFFFFFu, 0, "TRISC0 never finished the CB counter reset");
	cr_assert_eq(l1_word(dev, 0, MEM_MAILBOX_BASE), 0, "ncrisc_halt.resume_addr");
	uint32_t sr = 0xFFFFFFFFu;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0_ADDR, &sr), BH_OK);
	cr_assert_eq(sr, 0, "BRISC firmware releases every core");
	bh_device_close(dev);
}

Test(ref_firmware, boots_2x2_grid)
{
	skip_unless_built();
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 2, .grid_rows = 2 };
	struct bh_device *dev = open_and_boot(&cfg);
	cr_assert_eq(bh_device_num_tiles(dev), 4);
	/* BRISC may ask TRISC0 to zero the CB counters (3) right after it reports boot done, so the
	 * T0 byte is 0 or 3 (the host driver accepts both); the others are done. */
	for (unsigned t = 0; t < 4; t++) {
		uint32_t w = l1_word(dev, t, MBOX_SUBORDINATE_SYNC);
		uint8_t t0 = (uint8_t)(w >> 8);
		cr_assert_eq(w & 0xFFFF00FFu, 0, "tile %u: subordinate_sync 0x%08x", t, w);
		cr_assert(t0 == RUN_SYNC_MSG_DONE || t0 == RUN_SYNC_MSG_INIT_SYNC_REGISTERS, "tile %u: T0 byte 0x%x", t, t0);
	}
	bh_device_close(dev);
}

Test(ref_firmware, empty_kernels_on_all_five_cores_complete_one_tile)
{
	skip_unless_built();
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .num_tiles = 1 };
	boot_then_launch_empty_kernels(&cfg);
}

Test(ref_firmware, empty_kernels_on_all_five_cores_complete_2x2_grid)
{
	skip_unless_built();
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 2, .grid_rows = 2 };
	boot_then_launch_empty_kernels(&cfg);
}

Test(ref_firmware, kernels_get_their_runtime_arg_base_in_a0)
{
	skip_unless_built();
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .num_tiles = 1 };
	struct bh_device *dev = open_and_boot(&cfg);
	for (uint32_t seq = 0; seq < 3; seq++) {
		write_kernels(dev, 0, true, seq);
		host_launch(dev, 0, 0);
		wait_idle(dev, 0);
		for (uint32_t p = 0; p < PROC_COUNT; p++)
			cr_assert_eq(l1_word(dev, 0, KCB + RTA_OFF(p)), (p + 1) * 0x11 + seq, "processor %u, run %u",
				     p, seq);
	}
	bh_device_close(dev);
}

/* Fast-dispatch completion (launch.md 12): the firmware adds 1 to reg 297 of the dispatcher's stream
 * 48 + dispatch_message_offset, through reg 270, by a posted inline write to the go message's
 * master_x/y. Here the tile is its own dispatcher. */
#define STREAM_REG_ADDR(s, r)		(0xFFB40000u + (s) * 0x1000u + (r) * 4u)
#define STREAM_REG_SPACE_AVAILABLE	297u

static uint32_t go_word(struct bh_device *dev, unsigned tile, uint8_t offset, uint8_t signal)
{
	unsigned x = 0, y = 0;
	cr_assert_eq(bh_device_tile_xy(dev, tile, &x, &y), BH_OK);
	return (uint32_t)signal << 24 | (uint32_t)y << 16 | (uint32_t)x << 8 | offset;
}

static uint32_t completion_count(struct bh_device *dev, unsigned tile, uint8_t offset)
{
	uint32_t v = 0xFFFFFFFFu;
	cr_assert_eq(bh_reg_read(dev, tile, STREAM_REG_ADDR(DISPATCH_STREAM_FIRST + offset, STREAM_REG_SPACE_AVAILABLE),
				 &v), BH_OK);
	return v;
}

/* The write is issued after DONE, so the host may see DONE first. */
static void poll_completions(struct bh_device *dev, unsigned tile, uint8_t offset, uint32_t want, const char *what)
{
	uint64_t deadline = now_ms() + POLL_TIMEOUT_MS;
	uint32_t v;
	while ((v = completion_count(dev, tile, offset)) != want) {
		if (now_ms() > deadline)
			fail_with_report(dev, what, tile, v);
		usleep(100);
	}
}

Test(ref_firmware, dev_mode_launches_advance_the_read_pointer_clear_enables_and_notify_the_dispatcher)
{
	skip_unless_built();
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .num_tiles = 1 };
	struct bh_device *dev = open_and_boot(&cfg);
	write_kernels(dev, 0, false, 0);
	uint32_t done0 = completion_count(dev, 0, 0);
	for (uint32_t k = 0; k < 10; k++) {
		uint32_t rd = l1_word(dev, 0, MBOX_LAUNCH_RD_PTR);
		cr_assert_eq(rd, k & 7u);
		write_launch(dev, 0, rd, DISPATCH_MODE_DEV, (uint8_t)(k & 1));
		l1_put_word(dev, 0, MBOX_GO_MESSAGES, go_word(dev, 0, 0, RUN_MSG_GO));
		wait_idle(dev, 0);
		poll_until(dev, 0, MBOX_LAUNCH_RD_PTR, 0xFFFFFFFFu, (rd + 1) & 7u, "rd did not advance");
		cr_assert_eq(l1_word(dev, 0, MBOX_LAUNCH + MBOX_LAUNCH_SIZE * rd + 0x4C), 0, "enables cleared");
		poll_completions(dev, 0, 0, done0 + k + 1, "one completion per launch");
	}
	bh_device_close(dev);
}

Test(ref_firmware, reset_read_ptr_zeroes_rd_reports_done_and_notifies_the_dispatcher)
{
	skip_unless_built();
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .num_tiles = 1 };
	struct bh_device *dev = open_and_boot(&cfg);
	write_kernels(dev, 0, false, 0);
	uint32_t done0 = completion_count(dev, 0, 0);
	write_launch(dev, 0, 0, DISPATCH_MODE_DEV, 0);
	l1_put_word(dev, 0, MBOX_GO_MESSAGES, go_word(dev, 0, 0, RUN_MSG_GO));
	wait_idle(dev, 0);
	poll_until(dev, 0, MBOX_LAUNCH_RD_PTR, 0xFFFFFFFFu, 1, "rd did not advance");
	/* Its completion may still be in flight (asynchronous NoC). */
	poll_completions(dev, 0, 0, done0 + 1, "the launch's completion");

	/* Offset 2: the notification goes to stream 50, not 48. */
	const uint8_t signals[2] = { RUN_MSG_RESET_READ_PTR, RUN_MSG_REPLAY_TRACE };
	for (unsigned i = 0; i < 2; i++) {
		uint32_t done48 = completion_count(dev, 0, 0), done50 = completion_count(dev, 0, 2);
		l1_put_word(dev, 0, MBOX_LAUNCH_RD_PTR, 5);	/* the firmware re-reads it while idle */
		l1_put_word(dev, 0, MBOX_GO_MESSAGES, go_word(dev, 0, 2, signals[i]));
		wait_idle(dev, 0);
		poll_until(dev, 0, MBOX_LAUNCH_RD_PTR, 0xFFFFFFFFu, 0, "rd not reset");
		poll_completions(dev, 0, 2, done50 + 1, "one notification per reset");
		usleep(1000);	/* a second notification would have landed by now */
		cr_assert_eq(completion_count(dev, 0, 2), done50 + 1, "signal 0x%x: exactly one", signals[i]);
		cr_assert_eq(completion_count(dev, 0, 0), done48, "signal 0x%x: stream 48 untouched", signals[i]);
	}
	bh_device_close(dev);
}
