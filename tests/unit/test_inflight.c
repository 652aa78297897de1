/* The in-flight NoC checks (fabric/inflight.h; races.md #10, #18, #19): a core's store into a range
 * an asynchronous NoC transaction still reads or lands in, a NoC request into (or from) another's
 * destination not landed yet, and, opt-in, a core's load from a destination not landed yet. Each
 * bug program is stopped with the exact report; its fixed twin (flush or barrier first) runs to
 * its end with no finding. The NoC here takes 200 ms per phase (accept after 25 ms, landing
 * after 225 ms, the answer after 425 ms): a handful of instructions after the issue is always
 * in flight. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define LATENCY "200000000:200000000"
#define CMDBUF(noc, b) (0xFFB20000u + 0x10000u * (noc) + 0x800u * (b))
#define NIU(noc, off) (0xFFB20000u + 0x10000u * (noc) + (off))
enum { WR_ACK_RECEIVED = 0x204, RD_RESP_RECEIVED = 0x208, NONPOSTED_WR_REQ_SENT = 0x228 };
#define CTRL_READ 0x2090u               /* static VC 1, response */
#define CTRL_WRITE 0x2092u              /* non-posted, static VC 1 */
#define BUF_WR 0
#define BUF_RD 1
#define SRC 0x20000u
#define DST 0x30000u

static struct bh_device *open_inflight(uint32_t checks, const char *latency)
{
	return t_open_cfg(&(struct bh_device_config){ .board = BH_BOARD_GRID, .grid_cols = 1, .grid_rows = 1,
						       .noc = BH_NOC_ASYNC, .noc_latency = latency, .checks = checks });
}

/* The pc the next instruction of p will have when p runs on `core`. */
static uint32_t pc_here(const struct prog *p, enum bh_core_id core)
{
	return core_code_at[core] + (uint32_t)prog_here(p);
}

/* store `width` of 0x5A to addr; returns its pc. */
static uint32_t emit_store(struct prog *p, enum bh_core_id core, uint32_t width, uint32_t addr)
{
	emit_li(p, T0, addr);
	emit_li(p, T1, 0x5A);
	uint32_t pc = pc_here(p, core);
	emit(p, store(width, T1, 0, T0));
	return pc;
}

static uint32_t emit_load(struct prog *p, enum bh_core_id core, uint32_t addr)
{
	emit_li(p, T0, addr);
	uint32_t pc = pc_here(p, core);
	emit(p, lw(T1, 0, T0));
	return pc;
}

/* while (reg != value); */
static void emit_wait_word(struct prog *p, uint32_t addr, uint32_t value)
{
	emit_li(p, T0, addr);
	emit_li(p, T2, value);
	int32_t loop = prog_here(p);
	emit(p, lw(T1, 0, T0));
	emit_branch(p, BNE, T1, T2, loop);
}

/* A request of len bytes on command buffer buf of `noc` between L1 of tile 0: a write from src
 * to dst (ctrl CTRL_WRITE) or a read of src into dst (CTRL_READ). CMD_CTRL is polled first (the
 * buffer is free). Returns the pc of the CMD_CTRL store. */
static uint32_t emit_request(struct prog *p, enum bh_core_id core, unsigned noc, unsigned buf, uint32_t ctrl,
			     uint32_t src, uint32_t dst, uint32_t len)
{
	emit_wait_word(p, CMDBUF(noc, buf) + N_CMD_CTRL, 0);
	const uint32_t regs[][2] = {
		{ N_CTRL, ctrl }, { N_TARG_LO, src }, { N_TARG_MID, 0 }, { N_TARG_HI, TILE0_XY },
		{ N_RET_LO, dst }, { N_RET_MID, 0 }, { N_RET_HI, TILE0_XY }, { N_LEN, len },
	};
	for (unsigned k = 0; k < N(regs); k++)
		emit_store_word(p, CMDBUF(noc, buf) + regs[k][0], regs[k][1]);
	emit_li(p, T0, CMDBUF(noc, buf) + N_CMD_CTRL);
	emit_li(p, T1, 1);
	uint32_t pc = pc_here(p, core);
	emit(p, sw(T1, 0, T0));
	return pc;
}

static void expect_clean_exit(struct bh_device *dev, enum bh_core_id core, const struct prog *p)
{
	cr_expect_eq(run_core(dev, core, p), 0);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
}

/* The "other" line naming NoC0 request `kind` of 64 bytes from SRC to DST on command buffer buf,
 * issued by brisc at pc `issue`, in `phase`. */
static void other_line(char *out, size_t n, const char *kind, unsigned buf, uint32_t issue, const char *phase)
{
	snprintf(out, n, "  other: NoC0 %s of 64 bytes from L1 [0x00020000, 0x00020040) of (1,2) to L1 [0x00030000, "
		 "0x00030040) of (1,2), command buffer %u, issued by tile 0 (1,2) brisc at pc 0x%08x (CMD_CTRL): %s\n",
		 kind, buf, issue, phase);
}

/* Run p on core. The fixed twin exits 0 with no finding; the bug program is stopped by `check`
 * at pc with exactly these access, other and why lines. Closes dev. */
static void expect_run(struct bh_device *dev, bool fixed, enum bh_core_id core, const struct prog *p,
		       const char *check, uint32_t pc, const char *access, const char *other, const char *why)
{
	if (fixed) {
		expect_clean_exit(dev, core, p);
		bh_device_close(dev);
		return;
	}
	struct bh_core_result *res = result_new();
	run_prog(dev, core, core_code_at[core], p, res);
	char head[128], at[32];
	snprintf(head, sizeof head, "check %s: on tile 0 (1,2) core %s\n", check, core_names[core]);
	snprintf(at, sizeof at, "  pc 0x%08x", pc);
	cr_assert_eq(res->status, BH_RUN_FAULTED, "status %d, report:\n%s", res->status, res->report);
	cr_expect(!strncmp(res->report, head, strlen(head)), "report does not start with '%s':\n%s", head, res->report);
	assert_has(res->report, at);
	assert_has(res->report, access);
	assert_has(res->report, other);
	assert_has(res->report, why);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 1);
	free(res);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------ stores (noc-inflight, default) */

/* #10: the source of a write reused before it left; the twin flushes first. */
Test(inflight, store_into_the_source_of_a_write_not_sent_yet_is_flagged_at_the_store, .timeout = 60)
{
	for (int fixed = 0; fixed < 2; fixed++) {
		struct bh_device *dev = open_inflight(0, LATENCY);
		struct prog p = { 0 };
		uint32_t issue = emit_request(&p, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC, DST, 64);
		if (fixed)
			emit_wait_word(&p, NIU(0, NONPOSTED_WR_REQ_SENT), 1);   /* noc_async_writes_flushed */
		uint32_t pc = emit_store(&p, BH_CORE_BRISC, W_W, SRC + 8);
		emit_exit_with(&p, 0);
		char other[300];
		other_line(other, sizeof other, "write", 0, issue, "its source not read yet");
		expect_run(dev, fixed, BH_CORE_BRISC, &p, "noc-inflight", pc,
			   "  access: 4-byte store to 0x00020008 in L1\n", other,
			   "  why: store into the source of a NoC write still in flight: the write reads its source "
			   "when it leaves and may send this store's bytes (noc_async_writes_flushed before reusing "
			   "the buffer)");
	}
}

/* A page keeps its in-flight mark after the transfer left, until an access finds nothing in flight
 * there (fabric/inflight.h): a buffer sent again is judged again, whether or not the core touched
 * it in between, and a store between the two, after the first left, finds nothing. */
Test(inflight, a_buffer_sent_again_is_judged_again_after_its_first_write_left, .timeout = 60)
{
	for (int touch = 0; touch < 2; touch++) {
		struct bh_device *dev = open_inflight(0, LATENCY);
		struct prog p = { 0 };
		emit_request(&p, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC, DST, 64);
		emit_wait_word(&p, NIU(0, NONPOSTED_WR_REQ_SENT), 1);   /* noc_async_writes_flushed */
		if (touch)
			emit_store(&p, BH_CORE_BRISC, W_W, SRC + 4);   /* left: nothing to find */
		uint32_t issue = emit_request(&p, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC, DST, 64);
		uint32_t pc = emit_store(&p, BH_CORE_BRISC, W_W, SRC + 8);
		emit_exit_with(&p, 0);
		char other[300];
		other_line(other, sizeof other, "write", 0, issue, "its source not read yet");
		expect_run(dev, false, BH_CORE_BRISC, &p, "noc-inflight", pc,
			   "  access: 4-byte store to 0x00020008 in L1\n", other,
			   "  why: store into the source of a NoC write still in flight");
	}
}

/* Two writes into one page of the destination, the second issued after the first landed: a store
 * into the first's bytes finds nothing (and leaves the page marked: the second is still listed
 * there), a store into the second's bytes right after is flagged. */
Test(inflight, a_page_stays_judged_while_another_transaction_still_lands_in_it, .timeout = 60)
{
	struct bh_device *dev = open_inflight(0, LATENCY);
	struct prog p = { 0 };
	emit_request(&p, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC + 0x100, DST + 0x100, 64);
	emit_wait_word(&p, NIU(0, WR_ACK_RECEIVED), 1);   /* the first landed and was acknowledged */
	uint32_t issue = emit_request(&p, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC, DST, 64);
	emit_store(&p, BH_CORE_BRISC, W_W, DST + 0x100);  /* the first's bytes, same page: landed */
	uint32_t pc = emit_store(&p, BH_CORE_BRISC, W_W, DST + 0x10);
	emit_exit_with(&p, 0);
	char other[300];
	other_line(other, sizeof other, "write", 0, issue, "not landed yet");
	expect_run(dev, false, BH_CORE_BRISC, &p, "noc-inflight", pc, "  access: 4-byte store to 0x00030010 in L1\n",
		   other, "  why: store into the destination of a NoC write still in flight: its data lands over this "
			  "store (write after write: which lands last is a race)");
}

/* #19's store side: the return buffer of a read written before the data landed; the twin waits
 * for the read barrier. */
Test(inflight, store_into_the_destination_of_a_read_not_landed_yet_is_flagged, .timeout = 60)
{
	for (int fixed = 0; fixed < 2; fixed++) {
		struct bh_device *dev = open_inflight(0, LATENCY);
		struct prog p = { 0 };
		uint32_t issue = emit_request(&p, BH_CORE_BRISC, 0, BUF_RD, CTRL_READ, SRC, DST, 64);
		if (fixed)
			emit_wait_word(&p, NIU(0, RD_RESP_RECEIVED), 1);   /* noc_async_read_barrier */
		uint32_t pc = emit_store(&p, BH_CORE_BRISC, W_H, DST + 0x3E);
		emit_exit_with(&p, 0);
		char other[300];
		other_line(other, sizeof other, "read", 1, issue, "not landed yet");
		expect_run(dev, fixed, BH_CORE_BRISC, &p, "noc-inflight", pc,
			   "  access: 2-byte store to 0x0003003e in L1\n", other,
			   "  why: store into the destination of a NoC read still in flight: its data lands over this "
			   "store (noc_async_read_barrier first)");
	}
}

/* Write after write: BRISC's write lands in a buffer NCRISC stores into meanwhile (the byte just
 * past the end is not part of it); the twin waits for the write's acknowledgement. */
Test(inflight, store_into_the_destination_of_an_incoming_write_names_the_writer, .timeout = 60)
{
	for (int fixed = 0; fixed < 2; fixed++) {
		struct bh_device *dev = open_inflight(0, LATENCY);
		struct prog w = { 0 }, s = { 0 };
		uint32_t issue = emit_request(&w, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC, DST, 64);
		emit_exit_with(&w, 0);
		cr_expect_eq(run_core(dev, BH_CORE_BRISC, &w), 0);
		emit_store(&s, BH_CORE_NCRISC, W_B, DST + 64);   /* next to it: not flagged */
		if (fixed)
			emit_wait_word(&s, NIU(0, WR_ACK_RECEIVED), 1);
		uint32_t pc = emit_store(&s, BH_CORE_NCRISC, W_B, DST + 63);
		emit_exit_with(&s, 0);
		char other[300];
		other_line(other, sizeof other, "write", 0, issue, "not landed yet");
		expect_run(dev, fixed, BH_CORE_NCRISC, &s, "noc-inflight", pc,
			   "  access: 1-byte store to 0x0003003f in L1\n", other,
			   "  why: store into the destination of a NoC write still in flight: its data lands over this "
			   "store (write after write: which lands last is a race)");
	}
}

/* ------------------------------------------------------------------ NoC against NoC */

/* A second read into the buffer of a read not landed yet, on another NoC (unordered): blamed on
 * the second CMD_CTRL store. Then a write whose source is that buffer. The twins wait for the
 * first read's barrier. */
Test(inflight, a_request_into_or_from_a_destination_not_landed_yet_is_flagged_at_its_cmd_ctrl, .timeout = 60)
{
	for (int variant = 0; variant < 4; variant++) {
		bool fixed = variant >= 2, from = variant & 1;
		struct bh_device *dev = open_inflight(0, LATENCY);
		struct prog p = { 0 };
		uint32_t issue = emit_request(&p, BH_CORE_BRISC, 0, BUF_RD, CTRL_READ, SRC, DST, 64);
		if (fixed)
			emit_wait_word(&p, NIU(0, RD_RESP_RECEIVED), 1);
		uint32_t pc = from ? emit_request(&p, BH_CORE_BRISC, 1, BUF_WR, CTRL_WRITE, DST + 16, SRC + 0x100, 16)
				   : emit_request(&p, BH_CORE_BRISC, 1, BUF_RD, CTRL_READ, SRC + 0x100, DST + 32, 64);
		emit_exit_with(&p, 0);
		char other[300], access[80];
		other_line(other, sizeof other, "read", 1, issue, "not landed yet");
		snprintf(access, sizeof access, "  access: 4-byte store to 0x%08x in NoC1 NIU\n",
			 CMDBUF(1, from ? BUF_WR : BUF_RD) + N_CMD_CTRL);
		expect_run(dev, fixed, BH_CORE_BRISC, &p, "noc-inflight", pc, access, other,
			   from ? "  why: NoC1 write (command buffer 0) whose source, L1 [0x00030010, 0x00030020) of "
				  "(1,2), overlaps the destination of another NoC transaction still in flight: it reads "
				  "bytes that have not landed yet (barrier first)"
				: "  why: NoC1 read (command buffer 1) whose destination, L1 [0x00030020, 0x00030060) of "
				  "(1,2), overlaps the destination of another NoC transaction still in flight: both land "
				  "in the same bytes in no fixed order");
	}
}

/* Two writes of one initiator on one static VC land in issue order: the second's bytes win, as
 * meant. Not a finding. */
Test(inflight, writes_of_one_initiator_on_one_static_vc_into_one_buffer_are_ordered, .timeout = 60)
{
	struct bh_device *dev = open_inflight(0, LATENCY);
	struct prog p = { 0 };
	emit_request(&p, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC, DST, 64);
	emit_request(&p, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC + 64, DST, 64);
	emit_exit_with(&p, 0);
	expect_clean_exit(dev, BH_CORE_BRISC, &p);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------ loads (noc-inflight-load, opt-in) */

/* #19: the read's data used before its barrier. Flagged only with the opt-in check on; the twin
 * waits for the barrier. */
Test(inflight, load_from_a_read_not_landed_yet_is_flagged_only_with_the_load_check_on, .timeout = 60)
{
	const uint32_t with_load = BH_CHECKS_DEFAULT | BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT_LOAD);
	for (int variant = 0; variant < 3; variant++) {
		bool on = variant != 1, fixed = variant == 2;
		struct bh_device *dev = open_inflight(on ? with_load : 0, LATENCY);
		struct prog p = { 0 };
		uint32_t issue = emit_request(&p, BH_CORE_BRISC, 0, BUF_RD, CTRL_READ, SRC, DST, 64);
		emit_load(&p, BH_CORE_BRISC, SRC);   /* the read's source: not judged */
		if (fixed)
			emit_wait_word(&p, NIU(0, RD_RESP_RECEIVED), 1);
		uint32_t pc = emit_load(&p, BH_CORE_BRISC, DST + 8);
		emit_exit_with(&p, 0);
		char other[300];
		other_line(other, sizeof other, "read", 1, issue, "not landed yet");
		expect_run(dev, !on || fixed, BH_CORE_BRISC, &p, "noc-inflight-load", pc,
			   "  access: 4-byte load from 0x00030008 in L1\n", other,
			   "  why: load from the destination of a NoC read whose data has not landed yet "
			   "(noc_async_read_barrier first)");
	}
}

Test(inflight, the_load_check_is_opt_in)
{
	cr_expect(BH_CHECKS_DEFAULT & BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT));
	cr_expect(!(BH_CHECKS_DEFAULT & BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT_LOAD)));
	cr_expect(BH_CHECKS_OPT_IN & BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT_LOAD));
}

/* ------------------------------------------------------------------ the host, and concurrency */

Test(inflight, host_accesses_to_an_in_flight_range_are_not_judged, .timeout = 60)
{
	struct bh_device *dev = open_inflight(BH_CHECKS_DEFAULT | BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT_LOAD), LATENCY);
	struct prog p = { 0 };
	emit_request(&p, BH_CORE_BRISC, 0, BUF_RD, CTRL_READ, SRC, DST, 64);
	emit_request(&p, BH_CORE_BRISC, 0, BUF_WR, CTRL_WRITE, SRC + 0x100, DST + 0x100, 64);
	emit_exit_with(&p, 0);
	expect_clean_exit(dev, BH_CORE_BRISC, &p);
	uint32_t w[16] = { 0 };
	cr_expect_eq(bh_l1_write(dev, 0, DST, w, sizeof w), BH_OK);
	cr_expect_eq(bh_l1_write(dev, 0, SRC + 0x100, w, sizeof w), BH_OK);
	cr_expect_eq(bh_l1_read(dev, 0, DST + 0x100, w, sizeof w), BH_OK);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_device_close(dev);
}

/* Two cores keep transactions in flight on both NoCs (writes from one page into another, reads
 * back) while both store into and load from other ranges of the same pages: no finding, every
 * byte as expected. The load check is on, so the loads take its path too. */
#define STRESS_ROUNDS 40
#define STRESS_REQS 4

/* core's program: STRESS_ROUNDS rounds of STRESS_REQS requests of 64 bytes on `noc`, each into
 * its own slot base + 64 * k, while it stores and loads the 64 words at scratch; after each round
 * it waits for all of them (counter `done` at STRESS_REQS * round). */
static void emit_stress(struct prog *p, enum bh_core_id core, unsigned noc, uint32_t ctrl, uint32_t src,
			uint32_t dst, uint32_t scratch, uint32_t done)
{
	emit_li(p, S0, 0);   /* round */
	int32_t round = prog_here(p);
	for (unsigned k = 0; k < STRESS_REQS; k++) {
		emit_request(p, core, noc, ctrl == CTRL_READ ? BUF_RD : BUF_WR, ctrl, src + 64 * k, dst + 64 * k, 64);
		emit_li(p, A0, scratch);
		emit_li(p, A1, scratch + 256);
		int32_t fill = prog_here(p);
		emit(p, sw(S0, 0, A0));
		emit(p, lw(A2, 0, A0));
		emit(p, addi(A0, A0, 4));
		emit_branch(p, BNE, A0, A1, fill);
	}
	emit(p, addi(S0, S0, 1));
	/* while (counter != STRESS_REQS * round) */
	emit_li(p, T0, NIU(noc, done));
	emit_li(p, A3, STRESS_REQS);
	emit(p, mul(A3, A3, S0));
	int32_t wait = prog_here(p);
	emit(p, lw(T1, 0, T0));
	emit_branch(p, BNE, T1, A3, wait);
	emit_li(p, A4, STRESS_ROUNDS);
	emit_branch(p, BNE, S0, A4, round);
	emit_exit_with(p, 0);
}

Test(inflight, many_transactions_in_flight_and_stores_to_the_rest_of_their_pages_find_nothing, .timeout = 120)
{
	struct bh_device *dev = open_inflight(BH_CHECKS_DEFAULT | BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT_LOAD), "0:200000");
	uint32_t pattern[64];
	for (unsigned k = 0; k < 64; k++)
		pattern[k] = 0xC0DE0000u + k;
	l1_put(dev, SRC, pattern, 64);
	l1_put(dev, SRC + 0x400, pattern, 64);
	struct prog b = { 0 }, n = { 0 };
	emit_stress(&b, BH_CORE_BRISC, 0, CTRL_WRITE, SRC, DST, SRC + 0x800, WR_ACK_RECEIVED);
	emit_stress(&n, BH_CORE_NCRISC, 1, CTRL_READ, SRC + 0x400, DST + 0x400, DST + 0x800, RD_RESP_RECEIVED);
	start_core(dev, BH_CORE_BRISC, &b);
	start_core(dev, BH_CORE_NCRISC, &n);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	expect_exit(dev, 0, BH_CORE_NCRISC, 0);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	for (unsigned k = 0; k < 64; k++) {
		cr_expect_eq(l1_get(dev, DST + 4 * k), pattern[k], "written word %u", k);
		cr_expect_eq(l1_get(dev, DST + 0x400 + 4 * k), pattern[k], "read word %u", k);
	}
	bh_device_close(dev);
}
