/* The CB-ownership and NoC-coordinate detectors (races.md #9 RISC-V side, #27) and what they
 * learn: each CB's FIFO and page count, from a launch's config or from a `bhemu run` guest's own
 * CB set-up (the cb_config host call). The bug programs are the race catalogue's
 * (tests/races/NN_slug.c, built with and without RACE_FIXED): each is stopped with the exact
 * report, its twin runs clean; log mode records a finding once and lets the run go on. The
 * host-protocol check (cq-record-changed, #28) is tested in test_race_host.c; cb-reset-window (#5) is
 * tested here through its race program and in test_checks_code.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "host/device.h"
#include "sync/streams.h"
#include "testlib.h"

/* ---- The page bookkeeping (sync/streams.h) ----------------------------------------------------- */

#define CB 3
#define FIFO 0x20000u
#define PAGE 64u

static struct bh_tile *tile0(struct bh_device *dev)
{
	return dev->tiles[0];
}

static void counter(struct bh_device *dev, unsigned reg, uint32_t v)
{
	cr_assert(bh_stream_write(tile0(dev), 8 + CB, reg, v), "host write of 0x%x to CB%u reg %u", v, CB, reg);
}

static struct bh_cb_page page_at(struct bh_device *dev, uint32_t addr)
{
	struct bh_cb_page pg;
	cr_assert(bh_stream_cb_page_at(tile0(dev), addr, &pg), "no CB page at 0x%x", addr);
	return pg;
}

Test(checks_host, cb_config_is_refused_outside_l1_or_above_65535_pages)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	cr_expect(!bh_stream_set_cb_config(t, CB, FIFO, 65536, 16));
	cr_expect(!bh_stream_set_cb_config(t, CB, BH_L1_SIZE - 64, 2, 64), "the FIFO runs past the end of L1");
	cr_expect(!bh_stream_set_cb_config(t, 64, FIFO, 2, 64), "CB index 64");
	cr_expect(!bh_stream_set_cb_config(t, CB, FIFO, 0, 64), "a FIFO of no pages");
	struct bh_cb_page pg;
	cr_expect(!bh_stream_cb_page_at(t, FIFO, &pg), "nothing was configured");
	cr_expect(bh_stream_set_cb_config(t, CB, BH_L1_SIZE - 128, 2, 64), "the last 128 bytes of L1");
	cr_expect(bh_stream_set_cb_pages(t, CB, 7), "page count only");
	cr_expect(!bh_stream_cb_page_at(t, BH_L1_SIZE - 128, &pg), "a page count alone has no FIFO");
	bh_device_close(dev);
}

/* A page is published from its push to its pop; slots follow the FIFO and wrap. */
Test(checks_host, cb_page_state_follows_the_counters_and_wraps)
{
	struct bh_device *dev = t_open();
	cr_assert(bh_stream_set_cb_config(tile0(dev), CB, FIFO, 4, PAGE));
	counter(dev, 10, 0);
	counter(dev, 8, 0);
	counter(dev, 10, 3);   /* pages 0..2 pushed */
	counter(dev, 8, 2);    /* pages 0..1 popped */
	struct bh_cb_page pg = page_at(dev, FIFO + 2 * PAGE + 5);
	cr_expect(pg.published);
	cr_expect_eq(pg.cb, CB);
	cr_expect_eq(pg.slot, 2);
	cr_expect_eq(pg.addr, FIFO + 2 * PAGE);
	cr_expect_eq(pg.seq, 2);
	cr_expect(!page_at(dev, FIFO + PAGE).published, "popped");
	cr_expect(!page_at(dev, FIFO + 3 * PAGE).published, "not pushed yet");
	counter(dev, 10, 6);   /* pages 3..5: slots 3, 0, 1 */
	cr_expect(page_at(dev, FIFO).published);
	cr_expect_eq(page_at(dev, FIFO).seq, 4);
	cr_expect(page_at(dev, FIFO + PAGE).published);
	counter(dev, 8, 5);    /* pages 2..4 popped: only page 5 (slot 1) is held */
	cr_expect(!page_at(dev, FIFO).published);
	cr_expect(page_at(dev, FIFO + PAGE).published);
	cr_expect(!page_at(dev, FIFO + 2 * PAGE).published);
	cr_expect_eq(page_at(dev, FIFO + PAGE).producer, -1, "the host pushed: no core is the producer");
	/* The other side setting the same CB up changes nothing; a counter reset starts over. */
	cr_assert(bh_stream_set_cb_config(tile0(dev), CB, FIFO, 4, PAGE));
	cr_expect(page_at(dev, FIFO + PAGE).published);
	counter(dev, 10, 0);
	counter(dev, 8, 0);
	cr_expect(!page_at(dev, FIFO + PAGE).published);
	bh_device_close(dev);
}

/* ---- Whole programs through the CLI -------------------------------------------------------------- */

static int bhemu_cli(char *out, size_t n, const char *args)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "'%s/bhemu' %s 2>&1", BHEMU_BINARY_DIR, args);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	size_t len = fread(out, 1, n - 1, f);
	out[len] = 0;
	int st = pclose(f);
	cr_assert(WIFEXITED(st), "%s did not exit", cmd);
	return WEXITSTATUS(st);
}

/* `bhemu run OPTS ELF` (ELF under build/guest) exits with status and prints every line of want. */
static void cli_expect(const char *opts, const char *elf, int status, const char *const *want)
{
	char args[1024], out[16384];
	tl_skip_unless_built(elf);
	snprintf(args, sizeof args, "run %s %s/%s", opts, BHEMU_BINARY_DIR, elf);
	int st = bhemu_cli(out, sizeof out, args);
	cr_assert_eq(st, status, "bhemu %s: status %d\n%s", args, st, out);
	for (; *want; want++)
		assert_has(out, *want);
}

static void cli_clean(const char *opts, const char *elf)
{
	char args[1024], out[16384];
	tl_skip_unless_built(elf);
	snprintf(args, sizeof args, "run %s %s/%s", opts, BHEMU_BINARY_DIR, elf);
	int st = bhemu_cli(out, sizeof out, args);
	cr_assert_eq(st, 0, "bhemu %s: status %d\n%s", args, st, out);
	cr_expect_null(strstr(out, "check "), "a finding in a clean run:\n%s", out);
}

#define POP_ELF "guest/race_09_cb_pop_unwaited.elf"
#define HELD_ELF "guest/race_09_cb_overwrite_held.elf"
#define MCAST_ELF "guest/race_27_noc1_mcast_corners.elf"
#define FIXED(elf) elf "_fixed"

Test(checks_host, cb_pop_unwaited_names_the_pop_the_producer_and_what_the_core_saw)
{
	static const char *const want[] = {
		"bhemu: check cb-pop-unwaited: on tile 0 (1,2) core ncrisc\n  pc 0x",
		" <main_ncrisc+0x",
		"  access: 4-byte store to 0xffb49020 in NoC overlay stream registers\n",
		"  other: CB1 producer brisc, which has pushed tiles_received to 0x",
		"  why: ncrisc pops 1 page of CB 1 (tiles_acked 0x0 -> 0x1) but its last read of tiles_received was 0x0: "
		"it saw 0 of them published (cb_pop_front without a cb_wait_front for them; the producer may still be "
		"writing them)\n",
		NULL,
	};
	cli_expect("--cores brisc,ncrisc", POP_ELF, 8, want);
}

#define CB_RESET_ELF "guest/race_05_cb_reset_window.elf"
#define CB_RESET_RUN "--cores brisc,ncrisc,trisc0 --profile p100a --timeout 20"

/* races.md #5 as a program plays the firmware's launch protocol on the p100a mailbox: BRISC's
 * first push into CB0 comes right after it asked TRISC0 to reset the counters. Which access of
 * which launch is found first depends on when TRISC0's thread gets to the reset: usually BRISC's
 * first push (tiles_received 0x0 -> 0x1), sometimes, after a reset that came in time, a kernel of
 * the next launch reading or writing the counters the first run left. Each names TRISC0's reset. */
Test(checks_host, cb_reset_window_names_the_access_and_trisc0)
{
	static const char *const want[] = {
		"bhemu: check cb-reset-window: on tile 0 (1,2) core ",
		"  access: 4-byte ",
		" in NoC overlay stream registers\n",
		"  other: trisc0, asked to zero the CB counters: its reset byte (subordinate_sync.trisc0, L1 0x69) holds 3 "
		"(RUN_SYNC_MSG_INIT_SYNC_REGISTERS), not yet DONE\n",
		" while TRISC0 resets the CB counters: ",
		"(start kernels only after subordinate_sync.trisc0 reads DONE)\n",
		NULL,
	};
	cli_expect(CB_RESET_RUN, CB_RESET_ELF, 8, want);
}

/* The twin waits for TRISC0's DONE before each launch: four launches, every page checked. */
Test(checks_host, cb_reset_window_twin_waits_for_trisc0_done)
{
	for (unsigned seed = 1; seed <= 3; seed++) {
		char opts[128];
		snprintf(opts, sizeof opts, CB_RESET_RUN " --provoke delay --seed %u", seed);
		cli_clean(opts, "guest/race_05_cb_reset_window_fixed.elf");
	}
}

Test(checks_host, cb_pop_unwaited_twin_waits_on_both_cbs)
{
	for (unsigned seed = 1; seed <= 3; seed++) {
		char opts[96];
		snprintf(opts, sizeof opts, "--cores brisc,ncrisc --provoke delay --seed %u", seed);
		cli_clean(opts, "guest/race_09_cb_pop_unwaited_fixed.elf");
	}
}

/* Which page the first finding is about depends on how far the consumer got: page k's header
 * store is only a finding if NCRISC has not popped page k yet. Whatever k is, every line names
 * the same page: slot k % 2, sequence k, tiles_received k + 1 (the producer has pushed k + 1). */
Test(checks_host, cb_ownership_names_the_store_into_a_held_page)
{
	static const char *const want[] = {
		"bhemu: check cb-ownership: on tile 0 (1,2) core brisc\n  pc 0x",
		" <main_brisc+0x",
		"  access: 4-byte store to 0x",
		", which it published (cb_push_back) and the consumer still holds: write only pages cb_reserve_back "
		"gave you, before cb_push_back\n",
		NULL,
	};
	char args[1024], out[16384], line[256];
	tl_skip_unless_built(HELD_ELF);
	snprintf(args, sizeof args, "run --cores brisc,ncrisc --check default,cb-ownership %s/%s", BHEMU_BINARY_DIR,
		 HELD_ELF);
	int st = bhemu_cli(out, sizeof out, args);
	cr_assert_eq(st, 8, "bhemu %s: status %d\n%s", args, st, out);
	for (const char *const *w = want; *w; w++)
		assert_has(out, *w);
	const char *why = strstr(out, "  why: 4-byte store by brisc, the producer of CB0, into page 0x");
	cr_assert_not_null(why, "%s", out);
	unsigned k = 0;
	cr_assert_eq(sscanf(why, "  why: 4-byte store by brisc, the producer of CB0, into page 0x%x,", &k), 1);
	cr_assert_lt(k, 16u, "page 0x%x of a 16-page run\n%s", k, out);
	snprintf(line, sizeof line, " in CB0 page %u of 2 (L1 0x", k % 2);
	assert_has(out, line);
	snprintf(line, sizeof line, "  other: the consumer of CB0: it has not popped page 0x%x yet (tiles_acked 0x", k);
	assert_has(out, line);
	snprintf(line, sizeof line, ", tiles_received 0x%x)\n", k + 1);
	assert_has(out, line);
}

Test(checks_host, cb_ownership_twin_writes_before_its_push)
{
	cli_clean("--cores brisc,ncrisc --check all", "guest/race_09_cb_overwrite_held_fixed.elf");
	cli_clean("--cores brisc,ncrisc --check all --jit eager", "guest/race_09_cb_overwrite_held_fixed.elf");
}

/* Log mode: the same store of every page is one finding; the run goes on to its end. */
Test(checks_host, cb_ownership_in_log_mode_records_the_store_once)
{
	char args[1024], out[16384];
	tl_skip_unless_built(HELD_ELF);
	snprintf(args, sizeof args, "run --cores brisc,ncrisc --check cb-ownership --check-mode log %s/%s",
		 BHEMU_BINARY_DIR, HELD_ELF);
	int st = bhemu_cli(out, sizeof out, args);
	cr_expect(st == 0 || st == 1, "the program's own status (1: a header it read too early): %d\n%s", st, out);
	assert_has(out, "check cb-ownership: on tile 0 (1,2) core brisc");
	const char *first = strstr(out, "check cb-ownership:");
	cr_expect_null(strstr(first + 1, "check cb-ownership:"), "recorded more than once:\n%s", out);
}

/* cb-ownership costs a slow store per CB page store: opt-in. */
Test(checks_host, cb_ownership_is_opt_in_and_the_others_default)
{
	cr_expect(BH_CHECKS_OPT_IN & BH_CHECK_BIT(BH_CHECK_CB_OWNERSHIP));
	cr_expect(BH_CHECKS_DEFAULT & BH_CHECK_BIT(BH_CHECK_CB_POP_UNWAITED));
	cr_expect(BH_CHECKS_DEFAULT & BH_CHECK_BIT(BH_CHECK_NOC_MCAST_ORDER));
	cr_expect(BH_CHECKS_DEFAULT & BH_CHECK_BIT(BH_CHECK_CQ_RECORD_CHANGED));
}

Test(checks_host, noc_mcast_order_names_both_corners_and_the_meant_rectangle)
{
	static const char *const want[] = {
		"bhemu: check noc-mcast-order: on tile 0 (1,2) core ncrisc\n  pc 0x",
		" <main_ncrisc+0x",
		"  access: 4-byte store to 0xffb30040 in NoC1 NIU\n",
		"  why: NoC1 multicast write with start (2,2) and end (3,2) in RET_ADDR_HI: NoC1 takes the corners "
		"exchanged (start >= end in translated coordinates), so the rectangle wraps around the grid and reaches "
		"the wrong tiles; probably meant start (3,2) end (2,2)\n",
		NULL,
	};
	cli_expect("--board grid:3x2 --grid --cores brisc,ncrisc", MCAST_ELF, 8, want);
	cli_clean("--board grid:3x2 --grid --cores brisc,ncrisc", "guest/race_27_noc1_mcast_corners_fixed.elf");
}
