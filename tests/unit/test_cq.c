/* Fast dispatch (host/cq*.c, cores/cq_*.c; reference/fast-dispatch.md): the host-memory rings,
 * prefetch_q, the prefetch and dispatch models, program launch through the queue, buffers,
 * events, and what a malformed command reports. Devices are small grids booted with the
 * reference firmware; the last column of rows 0 and 1 holds the prefetch and dispatch cores. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/cq_cmds.h"
#include "cores/cq_model.h"
#include "fabric/hw.h"
#include "fabric/wallclock.h"
#include "firmware/ref/p100a.h"
#include "testlib.h"

#define STREAM_REG_ADDR(s, r) (0xFFB40000u + (s) * 0x1000u + (r) * 4u)
#define SCRATCH 0x60000u       /* worker L1 no firmware area uses */

static void skip_unless_built(void)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
}

static uint32_t word(struct bh_device *dev, unsigned tile, uint32_t addr)
{
	uint32_t v = 0;
	cr_assert_eq(bh_l1_read(dev, tile, addr, &v, 4), BH_OK);
	return v;
}

static uint32_t host_word(struct bh_device *dev, uint32_t off)
{
	void *p;
	uint64_t size, base;
	cr_assert_eq(bh_host_mem(dev, &p, &size, &base), BH_OK);
	return __atomic_load_n((uint32_t *)((uint8_t *)p + off), __ATOMIC_ACQUIRE);
}

static struct bh_cq *open_cq_cfg(struct bh_device *dev, const struct bh_cq_config *cfg)
{
	struct bh_cq *cq = NULL;
	char err[512] = "";
	int rc = bh_cq_open(dev, cfg, &cq, err, sizeof err);
	cr_assert_eq(rc, BH_OK, "bh_cq_open: %d: %s", rc, err);
	return cq;
}

static struct bh_cq *open_cq(struct bh_device *dev, uint32_t issue, uint32_t completion)
{
	return open_cq_cfg(dev, &(struct bh_cq_config){ .issue_size = issue, .completion_size = completion, .timeout_s = 10 });
}

/* The firmware answers on stream 48 before it advances launch_msg_rd_ptr: give it a moment. */
static uint32_t word_settled(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t want)
{
	uint32_t v = word(dev, tile, addr);
	for (unsigned i = 0; i < 1000 && v != want; i++) {
		sleep_ms(1);
		v = word(dev, tile, addr);
	}
	return v;
}

static void finish_ok(struct bh_cq *cq)
{
	int rc = bh_cq_finish(cq);
	cr_assert_eq(rc, BH_OK, "finish: %d\n%s", rc, bh_cq_error(cq));
}

/* RV32: lw a0, SCRATCH(x0)... the counter at SCRATCH += 1; ret. SCRATCH needs lui. */
static void counter_kernel(uint32_t *code, uint32_t addr)
{
	code[0] = lui(A1, addr >> 12);
	code[1] = lw(A0, (int32_t)(addr & 0xFFF), A1);
	code[2] = addi(A0, A0, 1);
	code[3] = sw(A0, (int32_t)(addr & 0xFFF), A1);
	code[4] = INSN_RET;
}

Test(cq, table_matches_fast_dispatch_md_byte_offsets)
{
	/* A few layouts of fast-dispatch.md 4 as the encoder writes them. */
	uint8_t h[32] = { 0 };
	cr_assert(bh_cq_put(h, BH_CQF_D_SEND_GO_SIGNAL_go_signal, 0x80030E00));
	cr_assert(bh_cq_put(h, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, 0xFF));
	cr_assert(bh_cq_put(h, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns, 118));
	cr_assert(bh_cq_put(h, BH_CQF_D_SEND_GO_SIGNAL_wait_stream, 48));
	static const uint8_t go[16] = { 0, 0x00, 0x0E, 0x03, 0x80, 0xFF, 118, 0, 0, 0, 0, 0, 48, 0, 0, 0 };
	cr_expect_arr_eq(h, go, 16);
	memset(h, 0, sizeof h);
	cr_assert(bh_cq_put(h, BH_CQF_P_RELAY_LINEAR_length, 0x0102030405060708ull));
	cr_expect_eq(h[3], 0x08);
	cr_expect_eq(h[10], 0x01);
	cr_assert_not(bh_cq_put(h, BH_CQF_D_WRITE_PACKED_count, 0x10000), "count is 2 bytes");
	cr_expect_eq(bh_cq_fields[BH_CQF_S_PACKED_LARGE_length_minus1].off, 8);
	cr_expect_eq(bh_cq_dispatch_cmds[BH_CQD_WRITE_LINEAR].size, 32);
	cr_expect_eq(bh_cq_prefetch_cmds[BH_CQP_RELAY_INLINE].size, 16);
	cr_expect_eq(BH_CQD_SET_GO_SIGNAL_NOC_DATA, 17);
	cr_expect_eq(BH_CQP_TERMINATE, 11);
	cr_expect_null(bh_cq_cmd_find(BH_CQ_FMT_DISPATCH, 0));
	cr_expect_null(bh_cq_cmd_find(BH_CQ_FMT_DISPATCH, 19));
	char buf[256];
	uint8_t w[16] = { BH_CQD_WAIT, 0x18, 48, 0, 0, 0, 0, 0, 7, 0, 0, 0 };
	cr_expect_str_eq(bh_cq_format(BH_CQ_FMT_DISPATCH, w[0], w, buf, sizeof buf),
			 "WAIT flags=0x18 stream=0x30 addr=0x0 count=0x7");
}

Test(cq, open_resets_every_worker_through_the_queue_and_completes_event_1)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 3);
	struct bh_cq *cq = open_cq(dev, 0, 0);
	struct bh_cq_state st;
	cr_assert_eq(bh_cq_state(cq, &st), BH_OK);
	cr_expect_eq(st.prefetch_tile, 2, "logical (2,0)");
	cr_expect_eq(st.dispatch_tile, 5, "logical (2,1)");
	cr_expect_eq(st.workers, 7);
	cr_expect_eq(bh_cq_last_event(cq), 1);
	cr_expect_eq(st.dispatch_by_id[BH_CQD_SET_GO_SIGNAL_NOC_DATA], 1);
	cr_expect_eq(st.dispatch_by_id[BH_CQD_SEND_GO_SIGNAL], 1);
	cr_expect_eq(st.dispatch_by_id[BH_CQD_WAIT], 2);
	cr_expect_eq(st.dispatch_by_id[BH_CQD_WRITE_LINEAR_H_HOST], 1);
	cr_expect_eq(st.records, 5);
	/* Every record was fetched: prefetch_q is empty, the PCIe read pointer is the host's write. */
	for (unsigned i = 0; i < BH_CQ_PREFETCH_Q_ENTRIES; i += 2)
		cr_assert_eq(word(dev, 2, BH_CQ_PREFETCH_Q + 2 * i), 0, "prefetch_q[%u]", i);
	cr_expect_eq(word(dev, 2, BH_CQ_PCIE_RD_PTR), st.issue_base + st.issue_wr);
	cr_expect_eq(word(dev, 2, BH_CQ_PREFETCH_Q_RD_PTR), BH_CQ_PREFETCH_Q + 2 * 5);
	cr_expect_eq(st.issue_base, 0x40000100u);
	cr_expect_eq(st.completion_base, 0x40000100u + (64u << 20));
	/* One completion page consumed: rd = base/16 + 256, toggle 0, in both places. */
	uint32_t rd = (st.completion_base >> 4) + 256;
	cr_expect_eq(st.completion_rd, rd);
	cr_expect_eq(host_word(dev, BH_CQ_HOST_COMPLETION_RD), rd);
	cr_expect_eq(host_word(dev, BH_CQ_HOST_COMPLETION_WR), rd);
	cr_expect_eq(word(dev, 5, BH_CQ_COMPLETION_RD_PTR), rd);
	cr_expect_eq(word(dev, 5, BH_CQ_COMPLETION_WR_PTR), rd);
	/* Seven RESET_READ_PTR answers were counted on stream 48 and cleared. */
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 5, STREAM_REG_ADDR(48, 297), &v), BH_OK);
	cr_expect_eq(v, 0);
	for (unsigned t = 0; t < 9; t++) {
		if (t == 2 || t == 5)
			continue;
		cr_expect_eq(word_settled(dev, t, MBOX_LAUNCH_RD_PTR, 0), 0, "tile %u", t);
		cr_expect_eq(word(dev, t, MBOX_GO_MESSAGES) >> 24, RUN_MSG_DONE, "tile %u go signal", t);
		cr_expect_eq(word(dev, t, MBOX_GO_MESSAGES) & 0xFFFFFF, 3u << 16 | 3u << 8, "tile %u: go word names the "
			     "dispatcher (3,3)", t);
	}
	bh_cq_close(cq);
	bh_device_close(dev);
}

Test(cq, launch_runs_every_worker_n_times_in_dev_mode_and_uploads_binaries_once)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 3);
	struct bh_cq *cq = open_cq(dev, 0, 0);
	struct bh_core_range r[4];
	unsigned nr = bh_device_worker_ranges(dev, r);
	cr_assert_eq(nr, 2);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	uint32_t code[5];
	counter_kernel(code, SCRATCH);
	int k = bh_program_add_kernel_code(p, BH_CORE_BRISC, code, 5, r, nr);
	cr_assert(k >= 0, "%s", bh_program_error(p));
	for (unsigned t = 0; t < 9; t++)
		if (t != 2 && t != 5) {
			uint32_t zero = 0, a[2] = { t, 100 + t };
			bh_l1_write(dev, t, SCRATCH, &zero, 4);
			cr_assert_eq(bh_program_set_runtime_args(p, k, t, a, 2), BH_OK);
		}
	const unsigned n = 11;   /* wraps the 8-entry launch ring */
	for (unsigned i = 0; i < n; i++) {
		struct bh_launch_stats st;
		int rc = bh_cq_launch(cq, p, &st);
		cr_assert_eq(rc, BH_OK, "launch %u: %d %s %s", i, rc, bh_program_error(p), bh_cq_error(cq));
		cr_expect_eq(st.tiles, 7);
		cr_expect_eq(st.tiles_uploaded, i == 0 ? 7u : 0u, "launch %u", i);
	}
	finish_ok(cq);
	struct bh_cq_state st;
	bh_cq_state(cq, &st);
	cr_expect_eq(st.dispatch_by_id[BH_CQD_SEND_GO_SIGNAL], 1 + n);
	cr_expect_eq(st.dispatch_by_id[BH_CQD_WRITE_PACKED_LARGE], n + 1, "go_message_index every launch, the blob once");
	for (unsigned t = 0; t < 9; t++) {
		if (t == 2 || t == 5)
			continue;
		cr_expect_eq(word(dev, t, SCRATCH), n, "tile %u ran %u times", t, word(dev, t, SCRATCH));
		cr_expect_eq(word_settled(dev, t, MBOX_LAUNCH_RD_PTR, n % 8), n % 8, "tile %u: DEV mode advances the launch ring", t);
		uint32_t last = MBOX_LAUNCH + 96 * ((n - 1) % 8);
		uint8_t mode = 0xFF;
		bh_l1_read(dev, t, last + 0x2A, &mode, 1);
		cr_expect_eq(mode, 0, "tile %u: launch message in DEV mode", t);
		cr_expect_eq(word_settled(dev, t, last + 0x4C, 0), 0, "tile %u: firmware cleared enables after the run", t);
		uint16_t rta = 0;
		bh_l1_read(dev, t, last + 0x16, &rta, 2);
		cr_expect_eq(word(dev, t, MEM_MAP_END + rta + 4), 100 + t, "tile %u: runtime arg 1", t);
	}
	uint32_t v = 1;
	bh_reg_read(dev, 5, STREAM_REG_ADDR(48, 297), &v);
	cr_expect_eq(v, 0, "the last WAIT cleared stream 48");
	bh_program_destroy(p);
	bh_cq_close(cq);
	bh_device_close(dev);
}

Test(cq, a_program_on_a_dispatch_tile_is_refused_by_name)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_cq(dev, 0, 0);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	static const uint32_t ret[] = { INSN_RET };
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, ret, 1, &(struct bh_core_range){ 0, 0, 2, 1 }, 1) >= 0);
	cr_expect_eq(bh_cq_launch(cq, p, NULL), BH_ERR_ARG);
	assert_has(bh_program_error(p), "tile 2 (3,2) is the prefetch core of the open command queue");
	cr_expect_eq(bh_program_launch(p, NULL, NULL), BH_ERR_ARG, "slow dispatch while a queue is open");
	assert_has(bh_program_error(p), "a command queue is open");
	finish_ok(cq);
	bh_program_destroy(p);
	bh_cq_close(cq);
	bh_device_close(dev);
}

Test(cq, close_gives_the_dispatch_tiles_back_to_slow_dispatch)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 2);
	struct bh_cq *cq = open_cq(dev, 0, 0);
	bh_cq_close(cq);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	uint32_t code[5];
	counter_kernel(code, SCRATCH);
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, code, 5, &(struct bh_core_range){ 0, 0, 1, 1 }, 1) >= 0);
	for (unsigned t = 0; t < 4; t++) {
		uint32_t zero = 0;
		bh_l1_write(dev, t, SCRATCH, &zero, 4);
	}
	tl_launch_ok(p, NULL);
	for (unsigned t = 0; t < 4; t++)
		cr_expect_eq(word(dev, t, SCRATCH), 1, "tile %u", t);
	bh_program_destroy(p);
	bh_device_close(dev);
}

Test(cq, buffers_round_trip_through_dram_and_l1_pages_byte_for_byte)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_cq(dev, 0, 0);
	enum { PS = 2048, LEN = 37 * PS + 496 };
	uint8_t *src = malloc(LEN), *back = malloc(LEN), *direct = malloc(LEN);
	for (unsigned i = 0; i < LEN; i++)
		src[i] = (uint8_t)(i * 131 + 7);
	unsigned nd, nl;
	cr_assert_eq(bh_device_boot_banks(dev, &nd, &nl), BH_OK);
	for (int dram = 1; dram >= 0; dram--) {
		uint32_t base = 0x100000, first = 3;   /* above the CQ cores' rings: L1 banks include them */
		int rc = bh_cq_write_buffer(cq, dram, base, PS, first, src, LEN);
		cr_assert_eq(rc, BH_OK, "%s", bh_cq_error(cq));
		/* Where the pages landed, read directly over the host API with the firmware's banks. */
		finish_ok(cq);
		cr_assert_eq(bh_interleaved_read_banks(dev, dram, dram ? nd : nl, base, PS, first, direct, LEN), BH_OK);
		cr_assert_arr_eq(direct, src, LEN, "%s pages interleaved as noc.md 10 says", dram ? "DRAM" : "L1");
		memset(back, 0, LEN);
		rc = bh_cq_read_buffer(cq, dram, base, PS, first, back, LEN);
		cr_assert_eq(rc, BH_OK, "%s", bh_cq_error(cq));
		for (unsigned i = 0; i < LEN; i++)
			cr_assert_eq(back[i], src[i], "%s read back: byte %u is 0x%02x, not 0x%02x", dram ? "DRAM" : "L1", i,
				     back[i], src[i]);
	}
	free(src);
	free(back);
	free(direct);
	bh_cq_close(cq);
	bh_device_close(dev);
}

Test(cq, small_rings_wrap_with_toggles_and_events_complete_in_order)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 2);
	/* Issue ring of 8 KiB (records of 64 B wrap every 128), completion ring of 2 pages. */
	struct bh_cq *cq = open_cq(dev, 8192, 8192);
	struct bh_cq_state st;
	uint32_t ev[300];
	for (unsigned i = 0; i < 300; i++)
		cr_assert_eq(bh_cq_record_event(cq, &ev[i]), BH_OK, "%s", bh_cq_error(cq));
	for (unsigned i = 0; i < 300; i++)
		cr_assert_eq(ev[i], 2 + i, "ids count up after open's event 1");
	cr_assert_eq(bh_cq_wait_event(cq, ev[150]), BH_OK, "%s", bh_cq_error(cq));
	cr_expect_geq(bh_cq_last_event(cq), ev[150], "the host also drained completions while it waited for ring space");
	cr_assert_eq(bh_cq_wait_event(cq, ev[299]), BH_OK, "%s", bh_cq_error(cq));
	cr_expect_eq(bh_cq_last_event(cq), 301);
	bh_cq_state(cq, &st);
	/* 301 completion pages consumed: 150 laps of 2 pages and one more, toggle = 150 & 1. */
	uint32_t want = ((st.completion_base >> 4) + 256) | 0u << 31;
	cr_expect_eq(st.completion_rd, want, "rd 0x%08x", st.completion_rd);
	cr_expect_eq(host_word(dev, BH_CQ_HOST_COMPLETION_RD), want);
	cr_expect_eq(word(dev, 3, BH_CQ_COMPLETION_RD_PTR), want);
	/* 305 records of 64 bytes, 128 per lap: the host's write offset is 305 mod 128 records in. */
	cr_expect_eq(st.records, 305);
	cr_expect_eq(st.issue_wr, (305 % 128) * 64);
	cr_expect_eq(word(dev, 1, BH_CQ_PCIE_RD_PTR), st.issue_base + st.issue_wr);
	cr_expect_eq(bh_cq_wait_event(cq, 400), BH_ERR_ARG, "never recorded");
	bh_cq_close(cq);
	bh_device_close(dev);
}

/* Enqueue one raw dispatch command on a fresh queue; the finish must fail with BH_ERR_CQ and
 * the report must name each of the phrases. Afterwards every call returns the same error and
 * close does not hang. */
static void expect_rejected(const uint8_t *cmd, size_t len, const char *const *phrases, unsigned n)
{
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_cq(dev, 0, 0);
	int rc = bh_cq_enqueue_dispatch(cq, cmd, len);
	if (rc == BH_OK)
		rc = bh_cq_finish(cq);
	cr_assert_eq(rc, BH_ERR_CQ, "rc %d: %s", rc, bh_cq_error(cq));
	for (unsigned i = 0; i < n; i++)
		assert_has(bh_cq_error(cq), phrases[i]);
	cr_expect_eq(bh_cq_record_event(cq, NULL), BH_ERR_CQ, "the queue stays stopped");
	bh_cq_close(cq);
	bh_device_close(dev);
}

Test(cq, unknown_dispatch_command_is_named_with_its_offset)
{
	skip_unless_built();
	uint8_t c[16] = { 99 };
	/* open used 5 records, one dispatch-CB page each: this command is at page 5. */
	expect_rejected(c, 16, (const char *const[]){ "dispatch core (3,3): ", "unknown dispatch command id 99",
						       "dispatch CB offset 0x5000" }, 3);
}

Test(cq, write_packed_with_too_many_sub_commands_names_the_count_field)
{
	skip_unless_built();
	static uint8_t c[16 + 4 * 200 + 16 * 200];
	c[0] = BH_CQD_WRITE_PACKED;
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_count, 200);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_size, 16);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_addr, SCRATCH);
	expect_rejected(c, sizeof c, (const char *const[]){ "WRITE_PACKED at dispatch CB offset 0x5000",
							     "field count (byte 2, 2 bytes)", "200 sub-commands" }, 3);
}

/* The 32-byte WRITE_LINEAR header of len bytes to noc_xy (a tile, or a rectangle when mcast) at addr. */
static void write_linear_hdr(uint8_t *c, uint32_t noc_xy, uint64_t addr, uint64_t len, bool mcast)
{
	memset(c, 0, 32);
	c[0] = BH_CQD_WRITE_LINEAR;
	bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_num_mcast_dests, mcast);
	bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_noc_xy_addr, noc_xy);
	bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_addr, addr);
	bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_length, len);
}

/* WRITE_LINEAR of len bytes to worker (1,2) at addr; 64 data bytes follow in c. */
static void write_linear(uint8_t *c, uint32_t addr, uint64_t len)
{
	memset(c + 32, 0, 64);
	write_linear_hdr(c, 2u << 6 | 1u, addr, len, false);
}

Test(cq, misaligned_and_out_of_l1_writes_name_the_addr_field)
{
	skip_unless_built();
	uint8_t c[32 + 64];
	write_linear(c, SCRATCH + 4, 64);
	expect_rejected(c, sizeof c, (const char *const[]){ "WRITE_LINEAR at dispatch CB offset 0x5000",
							     "field addr (byte 8, 8 bytes)", "16-byte alignment" }, 3);
	bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_addr, 0x180000 - 32);
	expect_rejected(c, sizeof c, (const char *const[]){ "field addr", "run past the end of L1" }, 2);
}

Test(cq, a_length_past_what_was_relayed_is_reported_not_waited_for)
{
	skip_unless_built();
	uint8_t c[32 + 64];
	write_linear(c, SCRATCH, 100000);
	expect_rejected(c, sizeof c, (const char *const[]){ "WRITE_LINEAR", "field length",
							     "truncated command: WRITE_LINEAR needs 100032 bytes, but its "
							     "relay carried 96", "runs past what was relayed" }, 4);
}

Test(cq, malformed_prefetch_records_name_command_ring_offset_and_field)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_cq(dev, 0, 0);
	struct bh_cq_state st;
	bh_cq_state(cq, &st);
	uint8_t rec[64] = { BH_CQP_RELAY_INLINE };
	bh_cq_put(rec, BH_CQF_P_RELAY_INLINE_length, 16);
	bh_cq_put(rec, BH_CQF_P_RELAY_INLINE_stride, 128);   /* past the 64-byte record */
	cr_assert_eq(bh_cq_enqueue_record(cq, rec, sizeof rec), BH_OK);
	cr_expect_eq(bh_cq_finish(cq), BH_ERR_CQ);
	char want[96];
	snprintf(want, sizeof want, "RELAY_INLINE at issue ring offset 0x%x: field stride (byte 8, 4 bytes)", st.issue_wr);
	assert_has(bh_cq_error(cq), "prefetch core (3,2): ");
	assert_has(bh_cq_error(cq), want);
	bh_cq_close(cq);
	cq = open_cq(dev, 0, 0);
	uint8_t bad[64] = { 77 };
	cr_assert_eq(bh_cq_enqueue_record(cq, bad, sizeof bad), BH_OK);
	cr_expect_eq(bh_cq_finish(cq), BH_ERR_CQ);
	assert_has(bh_cq_error(cq), "unknown prefetch command id 77");
	bh_cq_close(cq);
	bh_device_close(dev);
}

/* ---- What each command does, byte for byte (fast-dispatch.md 4) ------------------------------ */

#define DST 0x100000u          /* L1 above every CQ structure, on the CQ tiles too */

struct cq_fx {
	struct bh_device *dev;
	struct bh_cq *cq;
};

static struct cq_fx fx_open(unsigned cols, unsigned rows)
{
	skip_unless_built();
	struct cq_fx f = { tl_boot_ref_grid(cols, rows), NULL };
	f.cq = open_cq(f.dev, 0, 0);
	return f;
}

static void fx_close(struct cq_fx *f)
{
	bh_cq_close(f->cq);
	bh_device_close(f->dev);
}

static struct bh_cq_state cq_state(struct bh_cq *cq)
{
	struct bh_cq_state st;
	cr_assert_eq(bh_cq_state(cq, &st), BH_OK);
	return st;
}

/* (y << 6) | x of tile t. */
static uint32_t tile_xy(struct bh_device *dev, unsigned t)
{
	unsigned x, y;
	cr_assert_eq(bh_device_tile_xy(dev, t, &x, &y), BH_OK);
	return y << 6 | x;
}

/* The multicast rectangle from tile a (top left) to tile b (bottom right), encoded as
 * host/cq_launch.c does for the dispatcher's NoC1: x0 | y0 << 6 | x1 << 12 | y1 << 18. */
static uint32_t tile_rect(struct bh_device *dev, unsigned a, unsigned b)
{
	return tile_xy(dev, a) | tile_xy(dev, b) << 12;
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 167 + seed * 59 + (i >> 8) + 1);
}

static void l1_fill(struct bh_device *dev, unsigned t, uint32_t addr, uint8_t v, size_t n)
{
	uint8_t *b = malloc(n);
	memset(b, v, n);
	cr_assert_eq(bh_l1_write(dev, t, addr, b, n), BH_OK);
	free(b);
}

/* Tile t's L1 at addr holds want[0..n), or n bytes of fill when want is NULL. */
static void expect_l1(struct bh_device *dev, unsigned t, uint32_t addr, const uint8_t *want, uint8_t fill, size_t n,
		      const char *what)
{
	uint8_t *b = malloc(n);
	cr_assert_eq(bh_l1_read(dev, t, addr, b, n), BH_OK);
	for (size_t i = 0; i < n; i++) {
		uint8_t w = want ? want[i] : fill;
		if (b[i] != w) {
			cr_expect_eq(b[i], w, "%s: tile %u L1 0x%x holds 0x%02x, not 0x%02x", what, t, addr + (unsigned)i,
				     b[i], w);
			break;
		}
	}
	free(b);
}

static void enqueue_ok(struct bh_cq *cq, const void *cmd, size_t len)
{
	int rc = bh_cq_enqueue_dispatch(cq, cmd, len);
	cr_assert_eq(rc, BH_OK, "enqueue: %d %s", rc, bh_cq_error(cq));
}

/* Prefetch commands back to back, each zero-padded to its stride: a fetch record, or an exec
 * buffer, under construction in the caller's b[cap]. */
struct rec {
	uint8_t *b;
	uint32_t cap, len;
};

#define REC(buf) ((struct rec){ (buf), sizeof(buf), 0 })

static uint8_t *rec_cmd(struct rec *r, unsigned id, uint32_t stride)
{
	cr_assert_leq(r->len + stride, r->cap);
	uint8_t *c = r->b + r->len;
	memset(c, 0, stride);
	c[0] = (uint8_t)id;
	r->len += stride;
	return c;
}

/* RELAY_INLINE(_NOFLUSH) of len bytes of dispatch command: with NOFLUSH, the next relay of the
 * record continues the same command (its data). */
static uint8_t *rec_inline(struct rec *r, const void *cmd, uint32_t len, bool flush)
{
	uint32_t stride = (16 + len + 63) & ~63u;
	uint8_t *c = rec_cmd(r, flush ? BH_CQP_RELAY_INLINE : BH_CQP_RELAY_INLINE_NOFLUSH, stride);
	bh_cq_put(c, BH_CQF_P_RELAY_INLINE_length, len);
	bh_cq_put(c, BH_CQF_P_RELAY_INLINE_stride, stride);
	memcpy(c + 16, cmd, len);
	return c;
}

/* RELAY_LINEAR(_H): len bytes at addr of the NoC0 endpoint xy (stride: the 64-byte minimum). */
static void rec_relay_linear(struct rec *r, bool h, uint32_t xy, uint64_t addr, uint32_t len)
{
	uint8_t *c = rec_cmd(r, h ? BH_CQP_RELAY_LINEAR_H : BH_CQP_RELAY_LINEAR, BH_CQ_PCIE_ALIGN);
	cr_assert(bh_cq_put(c, h ? BH_CQF_P_RELAY_LINEAR_H_noc_xy_addr : BH_CQF_P_RELAY_LINEAR_noc_xy_addr, xy));
	cr_assert(bh_cq_put(c, h ? BH_CQF_P_RELAY_LINEAR_H_addr : BH_CQF_P_RELAY_LINEAR_addr, addr));
	cr_assert(bh_cq_put(c, h ? BH_CQF_P_RELAY_LINEAR_H_length : BH_CQF_P_RELAY_LINEAR_length, len));
}

static void rec_push(struct bh_cq *cq, struct rec *r)
{
	int rc = bh_cq_enqueue_record(cq, r->b, r->len);
	cr_assert_eq(rc, BH_OK, "enqueue record: %d %s", rc, bh_cq_error(cq));
	r->len = 0;
}

/* [RELAY_INLINE_NOFLUSH WRITE_LINEAR header of len bytes to tile t at addr]: the caller appends
 * the relay that brings the data. */
static void rec_write_linear_hdr(struct rec *r, struct bh_device *dev, unsigned t, uint32_t addr, uint32_t len)
{
	uint8_t h[32];
	write_linear_hdr(h, tile_xy(dev, t), addr, len, false);
	rec_inline(r, h, sizeof h, false);
}

Test(cq, relay_linear_and_linear_h_bring_l1_and_dram_bytes_behind_an_inline_write_linear_header)
{
	struct cq_fx f = fx_open(3, 2);
	enum { L1_LEN = 3000, DRAM_LEN = 200 * 1024 + 40 };   /* the DRAM relay takes two trips through scratch_db */
	const uint64_t doff = 0x200020;                      /* 32 bytes into a 64-byte block: the skew is kept */
	uint8_t *l1src = malloc(L1_LEN), *dsrc = malloc(DRAM_LEN);
	pattern(l1src, L1_LEN, 1);
	pattern(dsrc, DRAM_LEN, 2);
	cr_assert_eq(bh_l1_write(f.dev, 0, DST, l1src, L1_LEN), BH_OK);
	cr_assert_eq(bh_dram_write(f.dev, 1, doff, dsrc, DRAM_LEN), BH_OK);
	unsigned dx, dy;
	cr_assert_eq(bh_dram_bank_xy(f.dev, 0, 1, &dx, &dy), BH_OK);
	l1_fill(f.dev, 4, DST, 0xEE, L1_LEN + 64);
	l1_fill(f.dev, 1, DST, 0xEE, DRAM_LEN + 64);
	struct bh_cq_state st0 = cq_state(f.cq);
	uint8_t rb[1024];
	struct rec r = REC(rb);
	rec_write_linear_hdr(&r, f.dev, 4, DST, L1_LEN);
	rec_relay_linear(&r, false, tile_xy(f.dev, 0), DST, L1_LEN);
	rec_push(f.cq, &r);
	rec_write_linear_hdr(&r, f.dev, 1, DST, DRAM_LEN);
	rec_relay_linear(&r, true, dy << 6 | dx, doff, DRAM_LEN);
	rec_push(f.cq, &r);
	finish_ok(f.cq);
	expect_l1(f.dev, 4, DST, l1src, 0, L1_LEN, "RELAY_LINEAR from tile 0's L1");
	expect_l1(f.dev, 4, DST + L1_LEN, NULL, 0xEE, 64, "past the relayed length");
	expect_l1(f.dev, 1, DST, dsrc, 0, DRAM_LEN, "RELAY_LINEAR_H from DRAM bank 1");
	expect_l1(f.dev, 1, DST + DRAM_LEN, NULL, 0xEE, 64, "past the relayed length");
	struct bh_cq_state st = cq_state(f.cq);
	cr_expect_eq(st.dispatch_by_id[BH_CQD_WRITE_LINEAR] - st0.dispatch_by_id[BH_CQD_WRITE_LINEAR], 2,
		     "header and relayed data made one command each time");
	cr_expect_eq(st.prefetch_commands - st0.prefetch_commands, 2 * 2 + 1, "two records of two, finish's event");
	free(l1src);
	free(dsrc);
	fx_close(&f);
}

Test(cq, relay_paged_packed_concatenates_the_dram_page_runs_of_its_sub_commands)
{
	struct cq_fx f = fx_open(3, 2);
	unsigned nd, nl;
	cr_assert_eq(bh_device_boot_banks(f.dev, &nd, &nl), BH_OK);
	enum { A = 0x300000, B = 0x380000, ALEN = 8 * 1024, BLEN = 4 * 512 };
	/* Sub-command 0: 2496 bytes from page 3 of A (1 KiB pages: two and 448 bytes of a third);
	 * sub-command 1: 1024 bytes from page 1 of B (512-byte pages). */
	enum { LEN0 = 2496, LEN1 = 1024, TOTAL = LEN0 + LEN1 };
	uint8_t a[ALEN], b[BLEN], want[TOTAL];
	pattern(a, ALEN, 3);
	pattern(b, BLEN, 4);
	cr_assert_eq(bh_interleaved_write_banks(f.dev, true, nd, A, 1024, 0, a, ALEN), BH_OK);
	cr_assert_eq(bh_interleaved_write_banks(f.dev, true, nd, B, 512, 0, b, BLEN), BH_OK);
	memcpy(want, a + 3 * 1024, LEN0);
	memcpy(want + LEN0, b + 512, LEN1);
	l1_fill(f.dev, 3, DST, 0xEE, TOTAL + 64);
	uint8_t rb[1024];
	struct rec r = REC(rb);
	rec_write_linear_hdr(&r, f.dev, 3, DST, TOTAL);
	uint8_t *c = rec_cmd(&r, BH_CQP_RELAY_PAGED_PACKED, 64);
	bh_cq_put(c, BH_CQF_P_RELAY_PAGED_PACKED_count, 2);
	bh_cq_put(c, BH_CQF_P_RELAY_PAGED_PACKED_total_length, TOTAL);
	bh_cq_put(c, BH_CQF_P_RELAY_PAGED_PACKED_stride, 64);
	const uint32_t sub[2][4] = { { 3, 10, A, LEN0 }, { 1, 9, B, LEN1 } };
	for (unsigned i = 0; i < 2; i++) {
		uint8_t *s = c + 16 + 12 * i;
		bh_cq_put(s, BH_CQF_S_PAGED_PACKED_start_page, sub[i][0]);
		bh_cq_put(s, BH_CQF_S_PAGED_PACKED_log_page_size, sub[i][1]);
		bh_cq_put(s, BH_CQF_S_PAGED_PACKED_base_addr, sub[i][2]);
		bh_cq_put(s, BH_CQF_S_PAGED_PACKED_length, sub[i][3]);
	}
	rec_push(f.cq, &r);
	finish_ok(f.cq);
	expect_l1(f.dev, 3, DST, want, 0, TOTAL, "pages 3.. of A, then pages 1..2 of B");
	expect_l1(f.dev, 3, DST + TOTAL, NULL, 0xEE, 64, "past total_length");
	fx_close(&f);
}

Test(cq, stall_holds_the_prefetcher_until_the_dispatchers_wait_completed_and_notified_it)
{
	struct cq_fx f = fx_open(3, 2);
	const uint32_t flag = DST;   /* a word of the dispatch tile (5) the host sets */
	uint32_t zero = 0;
	cr_assert_eq(bh_l1_write(f.dev, 5, flag, &zero, 4), BH_OK);
	/* Twice: each STALL waits for the next count of DOWNSTREAM_SYNC_SEM. */
	for (uint32_t round = 1; round <= 2; round++) {
		uint8_t old[64], fresh[64];
		pattern(old, 64, 10 + round);
		pattern(fresh, 64, 20 + round);
		cr_assert_eq(bh_l1_write(f.dev, 0, DST, old, 64), BH_OK);
		l1_fill(f.dev, 1, DST, 0xEE, 64);
		uint8_t w[16] = { BH_CQD_WAIT };
		bh_cq_put(w, BH_CQF_D_WAIT_flags, BH_CQ_WAIT_MEMORY | BH_CQ_WAIT_NOTIFY_PREFETCH);
		bh_cq_put(w, BH_CQF_D_WAIT_addr, flag);
		bh_cq_put(w, BH_CQF_D_WAIT_count, round);
		struct bh_cq_state st = cq_state(f.cq);
		enqueue_ok(f.cq, w, sizeof w);
		uint8_t rb[1024];
	struct rec r = REC(rb);
		rec_cmd(&r, BH_CQP_STALL, 64);
		rec_push(f.cq, &r);
		uint32_t third = cq_state(f.cq).issue_wr;
		/* Then a relay that reads tile 0's bytes: it must read them after the WAIT. */
		rec_write_linear_hdr(&r, f.dev, 1, DST, 64);
		rec_relay_linear(&r, false, tile_xy(f.dev, 0), DST, 64);
		rec_push(f.cq, &r);
		sleep_ms(30);
		uint16_t slot = 0;
		cr_assert_eq(bh_l1_read(f.dev, 2, BH_CQ_PREFETCH_Q + 2 * ((st.prefetch_q_idx + 2) % BH_CQ_PREFETCH_Q_ENTRIES),
					&slot, 2), BH_OK);
		cr_expect_neq(slot, 0, "round %u: the stalled prefetcher has not fetched the record after STALL", round);
		cr_expect_eq(word(f.dev, 2, BH_CQ_PCIE_RD_PTR), st.issue_base + third,
			     "round %u: the PCIe read pointer stops after the STALL record", round);
		expect_l1(f.dev, 1, DST, NULL, 0xEE, 64, "nothing relayed during the WAIT");
		cr_assert_eq(bh_l1_write(f.dev, 0, DST, fresh, 64), BH_OK);
		cr_assert_eq(bh_l1_write(f.dev, 5, flag, &round, 4), BH_OK);
		finish_ok(f.cq);
		expect_l1(f.dev, 1, DST, fresh, 0, 64, "the relay read its source after the WAIT completed");
	}
	fx_close(&f);
}

Test(cq, set_write_offset_moves_linear_packed_and_large_writes_but_not_host_bound_data)
{
	struct cq_fx f = fx_open(3, 2);
	static const uint32_t off[4] = { 0, 0x100, 0x2000, 0x40 };
	for (unsigned t = 0; t < 6; t++)
		l1_fill(f.dev, t, DST, 0xEE, 0x2100);
	uint8_t so[16 + 16] = { BH_CQD_SET_WRITE_OFFSET };
	bh_cq_put(so, BH_CQF_D_SET_WRITE_OFFSET_offset_count, 4);
	bh_cq_put(so, BH_CQF_D_SET_WRITE_OFFSET_program_host_id, 7);
	memcpy(so + 16, off, sizeof off);
	enqueue_ok(f.cq, so, sizeof so);
	uint8_t d1[64], d2[2][64], d3[64];
	pattern(d1, 64, 31);
	pattern(d2[0], 64, 32);
	pattern(d2[1], 64, 33);
	pattern(d3, 64, 34);
	/* Index 1: WRITE_LINEAR to tile 0. */
	uint8_t wl[32 + 64];
	write_linear_hdr(wl, tile_xy(f.dev, 0), DST, 64, false);
	bh_cq_put(wl, BH_CQF_D_WRITE_LINEAR_write_offset_index, 1);
	memcpy(wl + 32, d1, 64);
	enqueue_ok(f.cq, wl, sizeof wl);
	/* Index 2: WRITE_PACKED to tiles 1 and 3, a block each. */
	uint8_t wp[16 + 16 + 2 * 64] = { BH_CQD_WRITE_PACKED };
	bh_cq_put(wp, BH_CQF_D_WRITE_PACKED_count, 2);
	bh_cq_put(wp, BH_CQF_D_WRITE_PACKED_write_offset_index, 2);
	bh_cq_put(wp, BH_CQF_D_WRITE_PACKED_size, 64);
	bh_cq_put(wp, BH_CQF_D_WRITE_PACKED_addr, DST);
	bh_cq_put(wp + 16, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(f.dev, 1));
	bh_cq_put(wp + 20, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(f.dev, 3));
	memcpy(wp + 32, d2, sizeof d2);
	enqueue_ok(f.cq, wp, sizeof wp);
	/* Index 3: WRITE_PACKED_LARGE to tile 4. */
	uint8_t wl2[16 + 16 + 64] = { BH_CQD_WRITE_PACKED_LARGE };
	bh_cq_put(wl2, BH_CQF_D_WRITE_PACKED_LARGE_count, 1);
	bh_cq_put(wl2, BH_CQF_D_WRITE_PACKED_LARGE_alignment, 16);
	bh_cq_put(wl2, BH_CQF_D_WRITE_PACKED_LARGE_write_offset_index, 3);
	bh_cq_put(wl2 + 16, BH_CQF_S_PACKED_LARGE_noc_xy_addr, tile_xy(f.dev, 4));
	bh_cq_put(wl2 + 16, BH_CQF_S_PACKED_LARGE_addr, DST);
	bh_cq_put(wl2 + 16, BH_CQF_S_PACKED_LARGE_length_minus1, 63);
	memcpy(wl2 + 32, d3, 64);
	enqueue_ok(f.cq, wl2, sizeof wl2);
	finish_ok(f.cq);
	expect_l1(f.dev, 0, DST + off[1], d1, 0, 64, "WRITE_LINEAR + offset 1");
	expect_l1(f.dev, 1, DST + off[2], d2[0], 0, 64, "WRITE_PACKED block 0 + offset 2");
	expect_l1(f.dev, 3, DST + off[2], d2[1], 0, 64, "WRITE_PACKED block 1 + offset 2");
	expect_l1(f.dev, 4, DST + off[3], d3, 0, 64, "WRITE_PACKED_LARGE + offset 3");
	const unsigned moved[] = { 0, 1, 3, 4 };
	for (unsigned i = 0; i < 4; i++)
		expect_l1(f.dev, moved[i], DST, NULL, 0xEE, 64, "the command's own address stays untouched");
	/* Host-bound data ignores the offsets: RELAY_PAGED of tile 0 (L1 bank 0) into WRITE_LINEAR_H_HOST. */
	uint8_t back[64] = { 0 };
	cr_assert_eq(bh_cq_read_buffer(f.cq, false, DST + off[1], 64, 0, back, 64), BH_OK, "%s", bh_cq_error(f.cq));
	cr_expect_arr_eq(back, d1, 64);
	/* Offsets of zero put writes back at their addresses. */
	memset(so + 16, 0, 16);
	enqueue_ok(f.cq, so, sizeof so);
	bh_cq_put(wl, BH_CQF_D_WRITE_LINEAR_addr, DST + 0x400);
	enqueue_ok(f.cq, wl, sizeof wl);
	finish_ok(f.cq);
	expect_l1(f.dev, 0, DST + 0x400, d1, 0, 64, "offset 1 reset to 0");
	expect_l1(f.dev, 0, DST + 0x500, NULL, 0xEE, 64, "not at the old offset");
	cr_expect_eq(cq_state(f.cq).dispatch_by_id[BH_CQD_SET_WRITE_OFFSET], 2);
	fx_close(&f);
}

Test(cq, timestamp_writes_the_wall_clock_and_delay_spaces_two_stamps_by_its_cycles)
{
	struct cq_fx f = fx_open(2, 2);
	const uint32_t cycles = 27000000;   /* 20 ms at 1.35 GHz */
	uint8_t ts[16] = { BH_CQD_TIMESTAMP }, dl[16] = { BH_CQD_DELAY };
	bh_cq_put(ts, BH_CQF_D_TIMESTAMP_noc_xy, tile_xy(f.dev, 0));
	bh_cq_put(ts, BH_CQF_D_TIMESTAMP_addr, DST);
	bh_cq_put(dl, BH_CQF_D_DELAY_delay, cycles);
	l1_fill(f.dev, 0, DST, 0xEE, 48);
	uint64_t before = bh_wallclock_ticks();
	enqueue_ok(f.cq, ts, sizeof ts);
	enqueue_ok(f.cq, dl, sizeof dl);
	bh_cq_put(ts, BH_CQF_D_TIMESTAMP_addr, DST + 24);   /* 8 bytes into a 16-byte block: still within it */
	enqueue_ok(f.cq, ts, sizeof ts);
	finish_ok(f.cq);
	uint64_t after = bh_wallclock_ticks(), t0 = 0, t1 = 0;
	cr_assert_eq(bh_l1_read(f.dev, 0, DST, &t0, 8), BH_OK);
	cr_assert_eq(bh_l1_read(f.dev, 0, DST + 24, &t1, 8), BH_OK);
	cr_expect(before <= t0 && t0 < t1 && t1 <= after, "stamps %llu, %llu within the host's %llu..%llu",
		  (unsigned long long)t0, (unsigned long long)t1, (unsigned long long)before, (unsigned long long)after);
	cr_expect_geq(t1 - t0, cycles, "DELAY of %u AICLK cycles between the stamps (%llu ticks)", cycles,
		      (unsigned long long)(t1 - t0));
	expect_l1(f.dev, 0, DST + 8, NULL, 0xEE, 16, "only 8 bytes per stamp");
	fx_close(&f);
	bh_cq_put(ts, BH_CQF_D_TIMESTAMP_addr, DST + 12);
	expect_rejected(ts, sizeof ts, (const char *const[]){ "TIMESTAMP", "field addr", "16-byte boundary" }, 3);
}

Test(cq, notify_subordinate_go_signal_bumps_the_dispatch_s_sync_words_of_its_bitmask)
{
	struct cq_fx f = fx_open(2, 2);
	uint8_t n[16] = { BH_CQD_NOTIFY_SUBORDINATE_GO_SIGNAL };
	bh_cq_put(n, BH_CQF_D_NOTIFY_SUBORDINATE_GO_SIGNAL_index_bitmask, 0x85);
	enqueue_ok(f.cq, n, sizeof n);
	bh_cq_put(n, BH_CQF_D_NOTIFY_SUBORDINATE_GO_SIGNAL_wait, 1);
	bh_cq_put(n, BH_CQF_D_NOTIFY_SUBORDINATE_GO_SIGNAL_index_bitmask, 0x05);
	enqueue_ok(f.cq, n, sizeof n);
	finish_ok(f.cq);
	static const uint32_t want[8] = { 2, 0, 2, 0, 0, 0, 0, 1 };
	for (unsigned i = 0; i < 8; i++)
		cr_expect_eq(word(f.dev, 3, BH_CQ_DISPATCH_S_SYNC + 16 * i), want[i], "sync word %u", i);
	cr_expect_eq(cq_state(f.cq).dispatch_by_id[BH_CQD_NOTIFY_SUBORDINATE_GO_SIGNAL], 2);
	fx_close(&f);
	bh_cq_put(n, BH_CQF_D_NOTIFY_SUBORDINATE_GO_SIGNAL_index_bitmask, 0x100);
	expect_rejected(n, sizeof n, (const char *const[]){ "field index_bitmask", "8 sync words" }, 2);
}

Test(cq, set_num_worker_sems_is_consumed_and_counted_and_bounded_by_max_num_worker_sems)
{
	/* Only dispatch_s reads the count, and DISTRIBUTED_DISPATCHER is 0: the HD dispatcher
	 * validates it and goes on with the next command. */
	struct cq_fx f = fx_open(2, 2);
	uint8_t s[16] = { BH_CQD_SET_NUM_WORKER_SEMS };
	bh_cq_put(s, BH_CQF_D_SET_NUM_WORKER_SEMS_num_worker_sems, BH_CQ_MAX_WORKER_SEMS);
	enqueue_ok(f.cq, s, sizeof s);
	uint8_t wl[32 + 64];
	write_linear_hdr(wl, tile_xy(f.dev, 2), DST, 64, false);
	pattern(wl + 32, 64, 40);
	enqueue_ok(f.cq, wl, sizeof wl);
	finish_ok(f.cq);
	cr_expect_eq(cq_state(f.cq).dispatch_by_id[BH_CQD_SET_NUM_WORKER_SEMS], 1);
	expect_l1(f.dev, 2, DST, wl + 32, 0, 64, "the next command ran");
	fx_close(&f);
	bh_cq_put(s, BH_CQF_D_SET_NUM_WORKER_SEMS_num_worker_sems, BH_CQ_MAX_WORKER_SEMS + 1);
	expect_rejected(s, sizeof s, (const char *const[]){ "SET_NUM_WORKER_SEMS", "field num_worker_sems",
							     "MAX_NUM_WORKER_SEMS" }, 3);
}

Test(cq, write_packed_multicast_lands_on_every_core_of_each_rectangle_and_nowhere_else)
{
	struct cq_fx f = fx_open(3, 3);   /* workers 0 1 / 3 4 / 6 7 8; 2 and 5 are the CQ tiles */
	enum { SIZE = 40, BLK = 48 };
	for (unsigned t = 0; t < 9; t++)
		l1_fill(f.dev, t, DST, 0xEE, 128);
	/* Strided: block 0 to rectangle 0..4 (tiles 0 1 3 4), block 1 to rectangle 6..6. */
	uint8_t c[16 + 16 + 2 * BLK] = { BH_CQD_WRITE_PACKED };
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_flags, BH_CQ_PACKED_MCAST);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_count, 2);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_size, SIZE);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_addr, DST);
	bh_cq_put(c + 16, BH_CQF_S_PACKED_MCAST_noc_xy, tile_rect(f.dev, 0, 4));
	bh_cq_put(c + 16, BH_CQF_S_PACKED_MCAST_num_mcast_dests, 4);
	bh_cq_put(c + 24, BH_CQF_S_PACKED_MCAST_noc_xy, tile_rect(f.dev, 6, 6));
	bh_cq_put(c + 24, BH_CQF_S_PACKED_MCAST_num_mcast_dests, 1);
	pattern(c + 32, SIZE, 50);
	pattern(c + 32 + BLK, SIZE, 51);
	enqueue_ok(f.cq, c, sizeof c);
	/* NO_STRIDE: one 16-byte block to rectangles 7..7 and 8..8, at DST + 64. */
	uint8_t ns[16 + 16 + 16] = { BH_CQD_WRITE_PACKED };
	bh_cq_put(ns, BH_CQF_D_WRITE_PACKED_flags, BH_CQ_PACKED_MCAST | BH_CQ_PACKED_NO_STRIDE);
	bh_cq_put(ns, BH_CQF_D_WRITE_PACKED_count, 2);
	bh_cq_put(ns, BH_CQF_D_WRITE_PACKED_size, 16);
	bh_cq_put(ns, BH_CQF_D_WRITE_PACKED_addr, DST + 64);
	bh_cq_put(ns + 16, BH_CQF_S_PACKED_MCAST_noc_xy, tile_rect(f.dev, 7, 7));
	bh_cq_put(ns + 16, BH_CQF_S_PACKED_MCAST_num_mcast_dests, 1);
	bh_cq_put(ns + 24, BH_CQF_S_PACKED_MCAST_noc_xy, tile_rect(f.dev, 8, 8));
	bh_cq_put(ns + 24, BH_CQF_S_PACKED_MCAST_num_mcast_dests, 1);
	pattern(ns + 32, 16, 52);
	enqueue_ok(f.cq, ns, sizeof ns);
	finish_ok(f.cq);
	for (unsigned t = 0; t < 9; t++) {
		char what[64];
		snprintf(what, sizeof what, "tile %u", t);
		bool r0 = t == 0 || t == 1 || t == 3 || t == 4;
		if (r0 || t == 6) {
			expect_l1(f.dev, t, DST, c + 32 + (r0 ? 0 : BLK), 0, SIZE, what);
			expect_l1(f.dev, t, DST + SIZE, NULL, 0xEE, 64 - SIZE, "past size");
		} else {
			expect_l1(f.dev, t, DST, NULL, 0xEE, 64, what);
		}
		if (t == 7 || t == 8)
			expect_l1(f.dev, t, DST + 64, ns + 32, 0, 16, "the one NO_STRIDE block");
		else
			expect_l1(f.dev, t, DST + 64, NULL, 0xEE, 16, what);
	}
	fx_close(&f);
}

Test(cq, write_packed_no_stride_sends_its_one_block_to_every_unicast_core)
{
	struct cq_fx f = fx_open(3, 2);
	enum { SIZE = 40 };
	for (unsigned t = 0; t < 6; t++)
		l1_fill(f.dev, t, DST, 0xEE, 64);
	uint8_t c[16 + 16 + 48] = { BH_CQD_WRITE_PACKED };
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_flags, BH_CQ_PACKED_NO_STRIDE);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_count, 3);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_size, SIZE);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_addr, DST);
	const unsigned to[3] = { 0, 1, 3 };
	for (unsigned i = 0; i < 3; i++)
		bh_cq_put(c + 16 + 4 * i, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(f.dev, to[i]));
	pattern(c + 32, SIZE, 60);
	/* Exactly header + sub-commands + one block: a strided reading would run past the relay. */
	enqueue_ok(f.cq, c, sizeof c);
	finish_ok(f.cq);
	for (unsigned i = 0; i < 3; i++) {
		expect_l1(f.dev, to[i], DST, c + 32, 0, SIZE, "the shared block");
		expect_l1(f.dev, to[i], DST + SIZE, NULL, 0xEE, 64 - SIZE, "past size");
	}
	expect_l1(f.dev, 4, DST, NULL, 0xEE, 64, "tile 4 is not addressed");
	fx_close(&f);
}

Test(cq, write_linear_multicast_lands_on_the_rectangle_only)
{
	struct cq_fx f = fx_open(3, 3);
	enum { LEN = 4096 + 304 };   /* more than a dispatch-CB page */
	for (unsigned t = 0; t < 9; t++)
		l1_fill(f.dev, t, DST, 0xEE, LEN + 64);
	static uint8_t c[32 + LEN];
	write_linear_hdr(c, tile_rect(f.dev, 3, 7), DST, LEN, true);   /* tiles 3 4 6 7 */
	pattern(c + 32, LEN, 70);
	enqueue_ok(f.cq, c, sizeof c);
	finish_ok(f.cq);
	for (unsigned t = 0; t < 9; t++) {
		char what[64];
		snprintf(what, sizeof what, "tile %u", t);
		if (t == 3 || t == 4 || t == 6 || t == 7) {
			expect_l1(f.dev, t, DST, c + 32, 0, LEN, what);
			expect_l1(f.dev, t, DST + LEN, NULL, 0xEE, 64, "past the length");
		} else {
			expect_l1(f.dev, t, DST, NULL, 0xEE, LEN + 64, what);
		}
	}
	fx_close(&f);
}

Test(cq, write_paged_to_l1_banks_puts_page_p_in_tile_p_mod_n_at_base_plus_row_times_page_size)
{
	struct cq_fx f = fx_open(3, 2);
	unsigned nd, nl;
	cr_assert_eq(bh_device_boot_banks(f.dev, &nd, &nl), BH_OK);
	cr_assert_geq(nl, 2);
	enum { PS = 208, START = 5, PAGES = 9 };
	const unsigned rows = (START + PAGES) / nl + 2;
	for (unsigned t = 0; t < nl; t++)
		l1_fill(f.dev, t, DST, 0xEE, rows * PS);
	static uint8_t c[16 + PAGES * PS] = { BH_CQD_WRITE_PAGED };
	bh_cq_put(c, BH_CQF_D_WRITE_PAGED_is_dram, 0);
	bh_cq_put(c, BH_CQF_D_WRITE_PAGED_start_page, START);
	bh_cq_put(c, BH_CQF_D_WRITE_PAGED_base_addr, DST);
	bh_cq_put(c, BH_CQF_D_WRITE_PAGED_page_size, PS);
	bh_cq_put(c, BH_CQF_D_WRITE_PAGED_pages, PAGES);
	pattern(c + 16, PAGES * PS, 80);
	enqueue_ok(f.cq, c, sizeof c);
	finish_ok(f.cq);
	/* noc.md 10: page p in L1 bank (= tile) p mod N at base + (p div N) * align16(page size). */
	for (unsigned p = 0; p < START + PAGES + 2; p++) {
		char what[64];
		snprintf(what, sizeof what, "page %u", p);
		uint32_t addr = DST + (p / nl) * PS;
		if (p >= START && p < START + PAGES)
			expect_l1(f.dev, p % nl, addr, c + 16 + (p - START) * PS, 0, PS, what);
		else
			expect_l1(f.dev, p % nl, addr, NULL, 0xEE, PS, what);
	}
	cr_expect_eq(cq_state(f.cq).dispatch_by_id[BH_CQD_WRITE_PAGED], 1);
	fx_close(&f);
}

/* An exec buffer of 1 KiB pages in DRAM at EB_BASE (interleaved over the firmware's banks);
 * returns its pages. */
#define EB_BASE 0x400000u
static uint32_t exec_buf_store(struct bh_device *dev, struct rec *e)
{
	unsigned nd, nl;
	cr_assert_eq(bh_device_boot_banks(dev, &nd, &nl), BH_OK);
	uint32_t pages = (e->len + 1023) / 1024;
	cr_assert_leq(pages * 1024, e->cap);
	memset(e->b + e->len, 0, pages * 1024 - e->len);
	cr_assert_eq(bh_interleaved_write_banks(dev, true, nd, EB_BASE, 1024, 0, e->b, pages * 1024), BH_OK);
	return pages;
}

static void rec_exec_buf(struct rec *r, uint32_t pages)
{
	uint8_t *c = rec_cmd(r, BH_CQP_EXEC_BUF, BH_CQ_PCIE_ALIGN);
	bh_cq_put(c, BH_CQF_P_EXEC_BUF_base_addr, EB_BASE);
	bh_cq_put(c, BH_CQF_P_EXEC_BUF_log_page_size, 10);
	bh_cq_put(c, BH_CQF_P_EXEC_BUF_pages, pages);
}

Test(cq, exec_buf_runs_prefetch_commands_from_dram_pages_until_exec_buf_end_and_replays)
{
	struct cq_fx f = fx_open(3, 2);
	/* Three inline writes of 100 KiB (more than cmddat_q holds at once: commands cross pages and
	 * the window moves), a NOFLUSH header with a RELAY_LINEAR of tile 3's L1, and EXEC_BUF_END
	 * carrying a last write inline. */
	enum { BIG = 100 * 1024, SMALL = 64, CAP = 320 * 1024 };
	const unsigned big_to[3] = { 0, 1, 3 };
	uint8_t *eb = calloc(1, CAP), *cmd = malloc(32 + BIG), *src = malloc(BIG), small[SMALL], tail[32 + SMALL];
	struct rec e = { eb, CAP, 0 };
	pattern(src, BIG, 90);
	pattern(small, SMALL, 91);
	cr_assert_eq(bh_l1_write(f.dev, 3, DST + 0x40000, small, SMALL), BH_OK);
	for (unsigned i = 0; i < 3; i++) {
		write_linear_hdr(cmd, tile_xy(f.dev, big_to[i]), DST, BIG, false);
		memcpy(cmd + 32, src, BIG);
		cmd[32] = (uint8_t)i;   /* each copy tells which command wrote it */
		rec_inline(&e, cmd, 32 + BIG, true);
	}
	rec_write_linear_hdr(&e, f.dev, 4, DST, SMALL);
	rec_relay_linear(&e, false, tile_xy(f.dev, 3), DST + 0x40000, SMALL);
	write_linear_hdr(tail, tile_xy(f.dev, 4), DST + 0x100, SMALL, false);
	memcpy(tail + 32, small, SMALL);
	rec_inline(&e, tail, sizeof tail, true)[0] = BH_CQP_EXEC_BUF_END;
	uint32_t pages = exec_buf_store(f.dev, &e);
	cr_assert_gt(pages * 1024, BH_CQ_CMDDAT_SIZE);
	for (unsigned run = 0; run < 2; run++) {
		for (unsigned t = 0; t < 6; t++)
			l1_fill(f.dev, t, DST, 0xEE, 0x200);
		struct bh_cq_state st0 = cq_state(f.cq);
		uint8_t rb[64];
		struct rec r = REC(rb);
		rec_exec_buf(&r, pages);
		rec_push(f.cq, &r);
		finish_ok(f.cq);   /* a host record after the exec buffer: the prefetcher went back to the issue ring */
		for (unsigned i = 0; i < 3; i++) {
			memcpy(cmd, src, BIG);
			cmd[0] = (uint8_t)i;
			expect_l1(f.dev, big_to[i], DST, cmd, 0, BIG, "an inline write of the exec buffer");
		}
		expect_l1(f.dev, 4, DST, small, 0, SMALL, "RELAY_LINEAR inside the exec buffer");
		expect_l1(f.dev, 4, DST + 0x100, small, 0, SMALL, "EXEC_BUF_END's inline command");
		struct bh_cq_state st = cq_state(f.cq);
		cr_expect_eq(st.prefetch_commands - st0.prefetch_commands, 1 + 3 + 2 + 1 + 1,
			     "run %u: EXEC_BUF, the buffer's six commands, finish's event", run);
		cr_expect_eq(st.dispatch_by_id[BH_CQD_WRITE_LINEAR] - st0.dispatch_by_id[BH_CQD_WRITE_LINEAR], 5);
	}
	fx_close(&f);
	/* A buffer whose commands end without EXEC_BUF_END is reported at its end. */
	f = fx_open(3, 2);
	e.len = 0;
	uint8_t *c = rec_cmd(&e, BH_CQP_RELAY_INLINE, 1024);
	write_linear_hdr(c + 16, tile_xy(f.dev, 0), DST, SMALL, false);
	bh_cq_put(c, BH_CQF_P_RELAY_INLINE_length, 32 + SMALL);
	bh_cq_put(c, BH_CQF_P_RELAY_INLINE_stride, 1024);
	uint8_t rb[64];
	struct rec r = REC(rb);
	rec_exec_buf(&r, exec_buf_store(f.dev, &e));
	rec_push(f.cq, &r);
	cr_expect_eq(bh_cq_finish(f.cq), BH_ERR_CQ);
	assert_has(bh_cq_error(f.cq), "prefetch core (3,2): ");
	assert_has(bh_cq_error(f.cq), "at exec buffer offset 0x400: the exec buffer ends without EXEC_BUF_END");
	fx_close(&f);
	free(eb);
	free(cmd);
	free(src);
}

/* ---- Fuzzing: a mutator over valid command streams ------------------------------------------ */

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

/* A valid stream: a WRITE_PACKED of 64 bytes to two workers, a WRITE_LINEAR, a WAIT. */
static size_t valid_command(unsigned which, uint8_t *c)
{
	memset(c, 0, 256);
	if (which == 0) {
		c[0] = BH_CQD_WRITE_PACKED;
		bh_cq_put(c, BH_CQF_D_WRITE_PACKED_count, 2);
		bh_cq_put(c, BH_CQF_D_WRITE_PACKED_size, 64);
		bh_cq_put(c, BH_CQF_D_WRITE_PACKED_addr, SCRATCH);
		bh_cq_put(c + 16, BH_CQF_S_PACKED_UNICAST_noc_xy, 2u << 6 | 1u);
		bh_cq_put(c + 20, BH_CQF_S_PACKED_UNICAST_noc_xy, 3u << 6 | 2u);
		return 32 + 2 * 64;
	}
	if (which == 1) {
		write_linear(c, SCRATCH + 0x100, 64);
		return 32 + 64;
	}
	c[0] = BH_CQD_WAIT;
	bh_cq_put(c, BH_CQF_D_WAIT_flags, BH_CQ_WAIT_STREAM | BH_CQ_WAIT_CLEAR_STREAM);
	bh_cq_put(c, BH_CQF_D_WAIT_stream, 48);
	return 16;
}

Test(cq, fuzzed_command_streams_stop_with_a_report_or_complete_never_crash)
{
	skip_unless_built();
	unsigned ok = 0, rejected = 0, other = 0;
	for (uint64_t seed = 1; seed <= 24; seed++) {
		uint64_t s = seed;
		struct bh_device *dev = tl_boot_ref_grid(3, 2);
		struct bh_cq *cq = NULL;
		char err[256];
		/* Short, so the mutants that hang end quickly; longer when the provoke rerun slows the
		 * CQ cores and workers down on purpose (sync/provoke.h; TSan slows them further). */
		struct bh_cq_config cfg = { .timeout_s = getenv("BHEMU_PROVOKE") ? 3.0 : 0.5 };
		cr_assert_eq(bh_cq_open(dev, &cfg, &cq, err, sizeof err), BH_OK, "%s", err);
		uint8_t c[256];
		int rc = BH_OK;
		for (unsigned k = 0; k < 3 && rc == BH_OK; k++) {
			size_t len = valid_command(rnd(&s) % 3, c);
			/* Mutations: a random byte, a random field set to an extreme, or a truncated length. */
			unsigned what = rnd(&s) % 3;
			if (what == 0) {
				c[rnd(&s) % 32] = (uint8_t)rnd(&s);
			} else if (what == 1) {
				unsigned f = rnd(&s) % BH_CQF_COUNT;
				if (bh_cq_fields[f].fmt == BH_CQ_FMT_DISPATCH && bh_cq_fields[f].cmd == c[0])
					bh_cq_put(c, (enum bh_cq_field_id)f, rnd(&s) & ((1ull << (8 * bh_cq_fields[f].size)) - 1));
				else
					c[0] = (uint8_t)(rnd(&s) % 20);
			} else {
				len = 16 + rnd(&s) % (len - 15);
			}
			rc = bh_cq_enqueue_dispatch(cq, c, len);
		}
		if (rc == BH_OK)
			rc = bh_cq_finish(cq);
		if (rc == BH_OK) {
			ok++;
		} else if (rc == BH_ERR_CQ) {
			rejected++;
			const char *e = bh_cq_error(cq);
			cr_expect(strstr(e, "dispatch core (3,3): ") || strstr(e, "prefetch core (3,2): "), "seed %llu: %s",
				  (unsigned long long)seed, e);
		} else {
			other++;   /* a hang the device cannot tell from a long wait (WAIT on a count): timeout */
			cr_expect(rc == BH_ERR_TIMEOUT || rc == BH_ERR_FAULT || rc == BH_ERR_DEADLOCK, "seed %llu: rc %d %s",
				  (unsigned long long)seed, rc, bh_cq_error(cq));
		}
		bh_cq_close(cq);
		bh_device_close(dev);
	}
	cr_expect(rejected >= 4, "%u of 24 streams rejected by name", rejected);
	cr_expect(ok >= 2, "%u of 24 mutated streams still valid", ok);
	cr_log_info("fuzz: %u completed, %u rejected, %u timed out or faulted", ok, rejected, other);
}

/* SEND_GO_SIGNAL with a multicast offset writes the go word to go_messages[offset] of every tile
 * of the configured worker grid, then to the unicast list; without a configured grid it is an
 * error naming the field (the reference's WORKER_MCAST_GRID is unverified). */
Test(cq, send_go_signal_multicasts_to_the_configured_grid_then_unicasts)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 3);
	struct bh_cq *cq = NULL;
	char err[512] = "";
	/* Tiles 0 1 3 4 6 7 (columns 0-1): the fast-dispatch tiles 2 and 5 are outside. */
	struct bh_cq_config cfg = { .timeout_s = 10, .go_mcast_grid = tile_rect(dev, 0, 7) };
	cr_assert_eq(bh_cq_open(dev, &cfg, &cq, err, sizeof err), BH_OK, "%s", err);
	const uint32_t go1 = MBOX_GO_MESSAGES + 4, go2 = MBOX_GO_MESSAGES + 8, goword = 0x11223344u;
	for (unsigned t = 0; t < 9; t++) {
		uint32_t z[2] = { 0xEEEEEEEEu, 0xEEEEEEEEu };
		cr_assert_eq(bh_l1_write(dev, t, go1, z, 8), BH_OK);
	}
	uint8_t data[32] = { BH_CQD_SET_GO_SIGNAL_NOC_DATA };
	cr_assert(bh_cq_put(data, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words, 1));
	uint32_t xy8 = tile_xy(dev, 8);
	memcpy(data + 16, &xy8, 4);
	enqueue_ok(cq, data, 32);
	uint8_t g[16] = { BH_CQD_SEND_GO_SIGNAL };
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_go_signal, goword));
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, 1));
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns, 0));
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_wait_stream, 48));
	enqueue_ok(cq, g, 16);
	finish_ok(cq);
	for (unsigned t = 0; t < 9; t++) {
		bool in = t != 2 && t != 5 && t != 8;
		cr_expect_eq(word(dev, t, go1), in ? goword : 0xEEEEEEEEu, "tile %u go_messages[1]", t);
		cr_expect_eq(word(dev, t, go2), 0xEEEEEEEEu, "tile %u go_messages[2] untouched", t);
	}
	/* The unicast list reaches tile 8 at go_messages[0] after the multicast (offset 1 again). */
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_go_signal, 0));
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns, 1));
	enqueue_ok(cq, g, 16);
	finish_ok(cq);
	cr_expect_eq(word(dev, 0, go1), 0, "multicast word replaced");
	cr_expect_eq(word(dev, 8, go1), 0xEEEEEEEEu, "tile 8 is not in the grid");
	cr_expect_eq(word(dev, 8, MBOX_GO_MESSAGES) >> 24, 0, "unicast go word (signal DONE) on tile 8");
	/* An offset past go_messages[8] is refused by name. */
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, 9));
	enqueue_ok(cq, g, 16);
	cr_expect_neq(bh_cq_finish(cq), BH_OK);
	cr_expect(strstr(bh_cq_error(cq), "multicast_go_offset") != NULL, "%s", bh_cq_error(cq));
	bh_cq_close(cq);
	bh_device_close(dev);
}

Test(cq, send_go_signal_multicast_without_a_grid_names_the_field)
{
	struct cq_fx f = fx_open(3, 2);
	uint8_t g[16] = { BH_CQD_SEND_GO_SIGNAL };
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, 0));
	cr_assert(bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_wait_stream, 48));
	enqueue_ok(f.cq, g, 16);
	cr_expect_neq(bh_cq_finish(f.cq), BH_OK);
	cr_expect(strstr(bh_cq_error(f.cq), "multicast_go_offset") != NULL, "%s", bh_cq_error(f.cq));
	cr_expect(strstr(bh_cq_error(f.cq), "no worker multicast grid") != NULL, "%s", bh_cq_error(f.cq));
	fx_close(&f);
}

/* ---- Issue 12: reads after writes and launches, truncated commands, stalls, protected tiles ---- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ROUNDS(n) ((n) / 10)
#else
#define ROUNDS(n) (n)
#endif

/* A read issued right after a write (no finish in between) relays the pages only after the
 * dispatcher executed the write: WAIT (NOTIFY_PREFETCH) releases the prefetcher's STALL. */
Test(cq, a_read_right_after_a_write_sees_the_new_bytes_in_l1_and_dram_every_time)
{
	struct cq_fx f = fx_open(3, 2);
	enum { PS = 512, LEN = 3 * PS - 96 };
	uint8_t src[LEN], back[LEN];
	unsigned stale = 0, rounds = ROUNDS(1000);
	for (int dram = 0; dram < 2; dram++)
		for (unsigned i = 0; i < rounds; i++) {
			pattern(src, LEN, i * 2 + (unsigned)dram);
			int rc = bh_cq_write_buffer(f.cq, dram, DST, PS, 4, src, LEN);
			cr_assert_eq(rc, BH_OK, "%s", bh_cq_error(f.cq));
			memset(back, 0, LEN);
			rc = bh_cq_read_buffer(f.cq, dram, DST, PS, 4, back, LEN);
			cr_assert_eq(rc, BH_OK, "%s", bh_cq_error(f.cq));
			if (memcmp(back, src, LEN))
				stale++;
		}
	cr_expect_eq(stale, 0, "%u of %u reads returned old bytes", stale, 2 * rounds);
	fx_close(&f);
}

/* A read right after bh_cq_launch sees what the launched kernel wrote (the read's WAIT comes
 * after the launch's wait for every worker). */
Test(cq, a_read_right_after_a_launch_sees_the_kernels_output_every_time)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_cq(dev, 0, 0);
	struct bh_core_range r[4];
	unsigned nr = bh_device_worker_ranges(dev, r);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	uint32_t code[5];
	counter_kernel(code, SCRATCH);
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, code, 5, r, nr) >= 0, "%s", bh_program_error(p));
	uint32_t zero[4] = { 0 };
	for (unsigned t = 0; t < 6; t++)
		bh_l1_write(dev, t, SCRATCH, zero, 16);
	unsigned stale = 0, rounds = ROUNDS(500);
	for (unsigned i = 1; i <= rounds; i++) {
		int rc = bh_cq_launch(cq, p, NULL);
		cr_assert_eq(rc, BH_OK, "launch %u: %s %s", i, bh_program_error(p), bh_cq_error(cq));
		/* L1 bank 4 is tile 4 (a worker): page 4 of 16-byte pages at SCRATCH is its counter. */
		uint32_t got[4] = { 0 };
		rc = bh_cq_read_buffer(cq, false, SCRATCH, 16, 4, got, 16);
		cr_assert_eq(rc, BH_OK, "%s", bh_cq_error(cq));
		if (got[0] != i)
			stale++;
	}
	cr_expect_eq(stale, 0, "%u of %u reads missed the launch before them", stale, rounds);
	bh_program_destroy(p);
	bh_cq_close(cq);
	bh_device_close(dev);
}

/* Past 512 KiB of relayed commands: the dispatch CB has wrapped and every page holds bytes of
 * an earlier command (an 8-byte pattern whose every page offset 16 reads as length 64). */
static void wrap_dispatch_cb(struct bh_cq *cq, struct bh_device *dev)
{
	enum { N = 200 * 1024 };
	static uint8_t c[32 + N];
	write_linear_hdr(c, tile_xy(dev, 0), DST, N, false);
	for (unsigned i = 0; i < N; i += 8) {
		memset(c + 32 + i, 0, 8);
		c[32 + i] = 64;
	}
	for (unsigned k = 0; k < 3; k++)
		enqueue_ok(cq, c, sizeof c);
	finish_ok(cq);
	cr_assert_geq(cq_state(cq).dispatch_commands, 9);
}

/* Every dispatch command of the table, given fewer bytes than its header, and the commands with
 * a payload given less of it than their fields ask for, on a fresh dispatch CB and after it
 * wrapped: a named truncation, nothing written. */
Test(cq, truncated_dispatch_commands_of_every_kind_are_named_before_and_after_the_cb_wraps)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct tcase {
		unsigned id;
		uint32_t full, given;    /* bytes the command needs, bytes relayed */
	} cases[40];
	unsigned n = 0;
	for (unsigned id = 1; id < BH_CQD_COUNT; id++)
		cases[n++] = (struct tcase){ id, bh_cq_dispatch_cmds[id].size, bh_cq_dispatch_cmds[id].size / 2 };
	cases[n++] = (struct tcase){ BH_CQD_WRITE_LINEAR, 32 + 64, 32 + 48 };
	cases[n++] = (struct tcase){ BH_CQD_WRITE_LINEAR_H_HOST, 64, 48 };
	cases[n++] = (struct tcase){ BH_CQD_WRITE_PAGED, 16 + 2 * 64, 16 + 64 };
	cases[n++] = (struct tcase){ BH_CQD_WRITE_PACKED, 32 + 2 * 64, 32 + 64 };
	cases[n++] = (struct tcase){ BH_CQD_WRITE_PACKED_LARGE, 32 + 64, 40 };
	cases[n++] = (struct tcase){ BH_CQD_SET_WRITE_OFFSET, 16 + 8, 20 };
	cases[n++] = (struct tcase){ BH_CQD_SET_GO_SIGNAL_NOC_DATA, 16 + 8, 16 + 4 };
	for (int wrapped = 0; wrapped < 2; wrapped++)
		for (unsigned k = 0; k < n; k++) {
			struct bh_cq *cq = open_cq(dev, 0, 0);
			if (wrapped)
				wrap_dispatch_cb(cq, dev);
			l1_fill(dev, 1, DST, 0xEE, 256);
			uint8_t c[256] = { (uint8_t)cases[k].id };
			unsigned id = cases[k].id;
			if (id == BH_CQD_WRITE_LINEAR || id == BH_CQD_WRITE_LINEAR_H) {
				write_linear_hdr(c, tile_xy(dev, 1), DST, cases[k].full - 32, false);
				c[0] = (uint8_t)id;
			} else if (id == BH_CQD_WRITE_LINEAR_H_HOST) {
				bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_H_HOST_length, cases[k].full);
			} else if (id == BH_CQD_WRITE_PAGED) {
				bh_cq_put(c, BH_CQF_D_WRITE_PAGED_base_addr, DST);
				bh_cq_put(c, BH_CQF_D_WRITE_PAGED_page_size, 64);
				bh_cq_put(c, BH_CQF_D_WRITE_PAGED_pages, 2);
			} else if (id == BH_CQD_WRITE_PACKED) {
				bh_cq_put(c, BH_CQF_D_WRITE_PACKED_count, 2);
				bh_cq_put(c, BH_CQF_D_WRITE_PACKED_size, 64);
				bh_cq_put(c, BH_CQF_D_WRITE_PACKED_addr, DST);
				bh_cq_put(c + 16, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(dev, 1));
				bh_cq_put(c + 20, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(dev, 1));
			} else if (id == BH_CQD_WRITE_PACKED_LARGE) {
				bh_cq_put(c, BH_CQF_D_WRITE_PACKED_LARGE_count, 1);
				bh_cq_put(c, BH_CQF_D_WRITE_PACKED_LARGE_alignment, 16);
				bh_cq_put(c + 16, BH_CQF_S_PACKED_LARGE_noc_xy_addr, tile_xy(dev, 1));
				bh_cq_put(c + 16, BH_CQF_S_PACKED_LARGE_addr, DST);
				bh_cq_put(c + 16, BH_CQF_S_PACKED_LARGE_length_minus1, 63);
			} else if (id == BH_CQD_SET_WRITE_OFFSET) {
				bh_cq_put(c, BH_CQF_D_SET_WRITE_OFFSET_offset_count, 2);
			} else if (id == BH_CQD_SET_GO_SIGNAL_NOC_DATA) {
				bh_cq_put(c, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words, 2);
			}
			int rc = bh_cq_enqueue_dispatch(cq, c, cases[k].given);
			if (rc == BH_OK)
				rc = bh_cq_finish(cq);
			const char *name = bh_cq_dispatch_cmds[id].name;
			cr_expect_eq(rc, BH_ERR_CQ, "%s of %u bytes given %u (%s): rc %d %s", name, cases[k].full,
				     cases[k].given, wrapped ? "wrapped" : "fresh", rc, bh_cq_error(cq));
			char want[128];
			snprintf(want, sizeof want, "truncated command: %s needs %u bytes, but its relay carried %u", name,
				 cases[k].full, cases[k].given);
			cr_expect(strstr(bh_cq_error(cq), want), "%s: wants \"%s\" in: %s", wrapped ? "wrapped" : "fresh", want,
				  bh_cq_error(cq));
			expect_l1(dev, 1, DST, NULL, 0xEE, 256, name);
			bh_cq_close(cq);
		}
	bh_device_close(dev);
}

/* The issue's case: after the wrap, a 16-byte WRITE_LINEAR (of 32) used to read its length from
 * the stale half of its header and write 64 stale bytes. */
Test(cq, a_half_write_linear_header_after_the_wrap_writes_nothing_and_is_named)
{
	struct cq_fx f = fx_open(3, 2);
	wrap_dispatch_cb(f.cq, f.dev);
	l1_fill(f.dev, 1, DST, 0xEE, 256);
	uint8_t c[32];
	write_linear_hdr(c, tile_xy(f.dev, 1), DST, 0, false);
	enqueue_ok(f.cq, c, 16);
	cr_expect_eq(bh_cq_finish(f.cq), BH_ERR_CQ, "%s", bh_cq_error(f.cq));
	assert_has(bh_cq_error(f.cq), "WRITE_LINEAR at dispatch CB offset");
	assert_has(bh_cq_error(f.cq), "truncated command: WRITE_LINEAR needs 32 bytes, but its relay carried 16");
	expect_l1(f.dev, 1, DST, NULL, 0xEE, 256, "no stale bytes written");
	fx_close(&f);
}

/* A WRITE_PACKED needs all its bytes in the 512 KiB dispatch CB at once: one larger than that,
 * relayed in NOFLUSH pieces, is rejected naming the sizes instead of deadlocking the models. */
Test(cq, a_write_packed_larger_than_the_dispatch_cb_is_rejected_naming_the_sizes)
{
	struct cq_fx f = fx_open(3, 2);
	enum { COUNT = 100, SIZE = 8192, HDR = 16 + 400, PIECE = 200 * 1024 };
	const uint32_t total = HDR + COUNT * SIZE;
	uint8_t *c = calloc(1, total);
	c[0] = BH_CQD_WRITE_PACKED;
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_count, COUNT);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_size, SIZE);
	bh_cq_put(c, BH_CQF_D_WRITE_PACKED_addr, DST);
	for (unsigned i = 0; i < COUNT; i++)
		bh_cq_put(c + 16 + 4 * i, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(f.dev, 1));
	uint8_t *rb = malloc(PIECE + 64);
	int rc = BH_OK;
	for (uint32_t off = 0; off < total && rc == BH_OK; off += PIECE) {
		uint32_t n = total - off < PIECE ? total - off : PIECE;
		struct rec r = { rb, PIECE + 64, 0 };
		rec_inline(&r, c + off, n, off + n == total);
		rc = bh_cq_enqueue_record(f.cq, r.b, r.len);
	}
	if (rc == BH_OK)
		rc = bh_cq_finish(f.cq);
	cr_expect_eq(rc, BH_ERR_CQ, "rc %d: %s", rc, bh_cq_error(f.cq));
	char want[128];
	snprintf(want, sizeof want, "WRITE_PACKED needs its %u bytes in the dispatch CB at once", total);
	assert_has(bh_cq_error(f.cq), want);
	assert_has(bh_cq_error(f.cq), "512 KiB CB holds at most 503808");
	free(rb);
	free(c);
	fx_close(&f);
}

/* A STALL that no WAIT with NOTIFY_PREFETCH will ever end: both models wait for each other. */
Test(cq, a_stall_without_notify_is_a_deadlock_report_naming_the_stall)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_cq_cfg(dev, &(struct bh_cq_config){ .timeout_s = 60 });
	uint32_t at = cq_state(cq).issue_wr;
	uint8_t rec[64] = { BH_CQP_STALL };
	cr_assert_eq(bh_cq_enqueue_record(cq, rec, sizeof rec), BH_OK);
	int rc = bh_cq_finish(cq);
	cr_expect_eq(rc, BH_ERR_CQ, "a report, not a timeout: rc %d %s", rc, bh_cq_error(cq));
	char want[96];
	snprintf(want, sizeof want, "prefetch core: STALL at issue ring offset 0x%x waits for DOWNSTREAM_SYNC_SEM", at);
	assert_has(bh_cq_error(cq), "prefetch core (3,2): deadlock between the prefetch and dispatch cores");
	assert_has(bh_cq_error(cq), want);
	assert_has(bh_cq_error(cq), "dispatch core: next command at dispatch CB offset 0x5000 waits for dispatch-CB data");
	assert_has(bh_cq_error(cq), "NOTIFY_PREFETCH");
	bh_cq_close(cq);
	bh_device_close(dev);
}

/* Whatever the dispatcher waits for when the host gives up is named with the command (the
 * timeout leaves a loaded host time to reach the WAIT). */
Test(cq, a_timeout_names_the_command_that_waits_and_for_what)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	struct bh_cq *cq = open_cq_cfg(dev, &(struct bh_cq_config){ .timeout_s = 2 });
	uint8_t w[16] = { BH_CQD_WAIT };
	bh_cq_put(w, BH_CQF_D_WAIT_flags, BH_CQ_WAIT_MEMORY);
	bh_cq_put(w, BH_CQF_D_WAIT_addr, DST);
	bh_cq_put(w, BH_CQF_D_WAIT_count, 7);
	uint32_t zero = 0;
	bh_l1_write(dev, 5, DST, &zero, 4);
	enqueue_ok(cq, w, sizeof w);
	cr_expect_eq(bh_cq_finish(cq), BH_ERR_TIMEOUT, "%s", bh_cq_error(cq));
	assert_has(bh_cq_error(cq), "WAIT at dispatch CB offset 0x5000 waits for WAIT_MEMORY: L1 0x100000 >= 7");
	bh_cq_close(cq);
	bh_device_close(dev);
}

/* Writes into the CQ cores' own state, code or SOFT_RESET_0 are errors naming the command,
 * checked before anything is written; the queue closes at once and the tiles go back to their
 * firmware (a slow-dispatch launch runs on them afterwards). */
Test(cq, dispatch_writes_into_the_cq_cores_own_state_code_or_soft_reset_are_refused_by_name)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(3, 2);
	const unsigned pf = 2, dp = 5;
	struct pcase {
		const char *what, *want;
	} cases[] = {
		{ "WRITE_LINEAR to the dispatch tile's SOFT_RESET_0", "WRITE_LINEAR at dispatch CB offset 0x5000" },
		{ "WRITE_LINEAR over prefetch-tile L1 0", "reach the prefetch core (3,2)'s own code and state" },
		{ "WRITE_PACKED: a worker, then the dispatch tile's CB", "reach the dispatch core (3,3)'s own code and state" },
		{ "WRITE_PAGED over the L1 banks of the CQ tiles", "WRITE_PAGED at dispatch CB offset 0x5000" },
		{ "SEND_GO_SIGNAL to the dispatch tile", "SEND_GO_SIGNAL at dispatch CB offset" },
	};
	for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		struct bh_cq *cq = open_cq(dev, 0, 0);
		uint32_t reset_before = 0;
		cr_assert_eq(bh_reg_read(dev, dp, BH_SOFT_RESET_0, &reset_before), BH_OK);
		uint8_t l1_before[64];
		bh_l1_read(dev, pf, 0, l1_before, 64);
		l1_fill(dev, 1, SCRATCH, 0xEE, 256);
		uint8_t c[256] = { 0 };
		uint32_t len = 0;
		int rc = BH_OK;
		if (k == 0) {
			write_linear_hdr(c, tile_xy(dev, dp), BH_SOFT_RESET_0, 4, false);
			len = 48;
		} else if (k == 1) {
			write_linear_hdr(c, tile_xy(dev, pf), 0, 48, false);
			len = 32 + 48;
		} else if (k == 2) {
			c[0] = BH_CQD_WRITE_PACKED;
			bh_cq_put(c, BH_CQF_D_WRITE_PACKED_count, 2);
			bh_cq_put(c, BH_CQF_D_WRITE_PACKED_size, 64);
			bh_cq_put(c, BH_CQF_D_WRITE_PACKED_addr, SCRATCH);
			bh_cq_put(c + 16, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(dev, 1));
			bh_cq_put(c + 20, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(dev, dp));
			len = 32 + 128;
		} else if (k == 3) {
			c[0] = BH_CQD_WRITE_PAGED;
			bh_cq_put(c, BH_CQF_D_WRITE_PAGED_base_addr, SCRATCH);   /* page 2: the prefetch tile's scratch_db */
			bh_cq_put(c, BH_CQF_D_WRITE_PAGED_page_size, 32);
			bh_cq_put(c, BH_CQF_D_WRITE_PAGED_pages, 4);
			len = 16 + 128;
		} else {
			uint8_t nd[24] = { BH_CQD_SET_GO_SIGNAL_NOC_DATA };
			bh_cq_put(nd, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words, 2);
			uint32_t xy[2] = { tile_xy(dev, 1), tile_xy(dev, dp) };
			memcpy(nd + 16, xy, 8);
			rc = bh_cq_enqueue_dispatch(cq, nd, sizeof nd);
			c[0] = BH_CQD_SEND_GO_SIGNAL;
			bh_cq_put(c, BH_CQF_D_SEND_GO_SIGNAL_go_signal, 0x80u << 24);
			bh_cq_put(c, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, BH_CQ_GO_NO_MCAST);
			bh_cq_put(c, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns, 2);
			bh_cq_put(c, BH_CQF_D_SEND_GO_SIGNAL_wait_stream, 48);
			len = 16;
		}
		if (rc == BH_OK)
			rc = bh_cq_enqueue_dispatch(cq, c, len);
		if (rc == BH_OK)
			rc = bh_cq_finish(cq);
		cr_expect_eq(rc, BH_ERR_CQ, "%s: rc %d %s", cases[k].what, rc, bh_cq_error(cq));
		assert_has(bh_cq_error(cq), cases[k].want);
		assert_has(bh_cq_error(cq), "the CQ cores' own code and state are not a destination");
		uint32_t reset_after = 0;
		bh_reg_read(dev, dp, BH_SOFT_RESET_0, &reset_after);
		cr_expect_eq(reset_after, reset_before, "%s: SOFT_RESET_0 untouched", cases[k].what);
		expect_l1(dev, pf, 0, l1_before, 0, 64, cases[k].what);
		expect_l1(dev, 1, SCRATCH, NULL, 0xEE, 256, cases[k].what);
		bh_cq_close(cq);
	}
	/* Both CQ tiles run their firmware again: a slow-dispatch launch on every tile completes. */
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	uint32_t code[5];
	counter_kernel(code, SCRATCH);
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, code, 5, &(struct bh_core_range){ 0, 0, 2, 1 }, 1) >= 0);
	uint32_t zero = 0;
	for (unsigned t = 0; t < 6; t++)
		bh_l1_write(dev, t, SCRATCH, &zero, 4);
	tl_launch_ok(p, NULL);
	cr_expect_eq(word(dev, pf, SCRATCH), 1);
	cr_expect_eq(word(dev, dp, SCRATCH), 1);
	bh_program_destroy(p);
	bh_device_close(dev);
}

/* The prefetch commands with a 32-byte header, at the end of a fetch record with 16 bytes left. */
Test(cq, a_32_byte_prefetch_header_cut_by_the_end_of_its_record_is_a_named_truncation)
{
	struct cq_fx f = fx_open(3, 2);
	static const unsigned ids[] = { BH_CQP_RELAY_LINEAR, BH_CQP_RELAY_LINEAR_H };
	for (unsigned k = 0; k < 2; k++) {
		if (k)
			f.cq = open_cq(f.dev, 0, 0);
		uint32_t at = cq_state(f.cq).issue_wr;
		uint8_t rec[16] = { (uint8_t)ids[k] };
		cr_assert_eq(bh_cq_enqueue_record(f.cq, rec, sizeof rec), BH_OK);
		cr_expect_eq(bh_cq_finish(f.cq), BH_ERR_CQ, "%s", bh_cq_error(f.cq));
		char want[160];
		snprintf(want, sizeof want, "%s at issue ring offset 0x%x: truncated command: %s needs its 32-byte header, "
			 "the fetched record has 16 bytes left", bh_cq_prefetch_cmds[ids[k]].name, at,
			 bh_cq_prefetch_cmds[ids[k]].name);
		assert_has(bh_cq_error(f.cq), want);
		bh_cq_close(f.cq);
	}
	bh_device_close(f.dev);
}
