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

static struct bh_cq *open_cq(struct bh_device *dev, uint32_t issue, uint32_t completion)
{
	struct bh_cq *cq = NULL;
	char err[512] = "";
	struct bh_cq_config cfg = { .issue_size = issue, .completion_size = completion, .timeout_s = 10 };
	int rc = bh_cq_open(dev, &cfg, &cq, err, sizeof err);
	cr_assert_eq(rc, BH_OK, "bh_cq_open: %d: %s", rc, err);
	return cq;
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

/* WRITE_LINEAR of len bytes to worker (1,2) at addr; 64 data bytes follow in c. */
static void write_linear(uint8_t *c, uint32_t addr, uint64_t len)
{
	memset(c, 0, 32 + 64);
	c[0] = BH_CQD_WRITE_LINEAR;
	bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_noc_xy_addr, 2u << 6 | 1u);
	bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_addr, addr);
	bh_cq_put(c, BH_CQF_D_WRITE_LINEAR_length, len);
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
	expect_rejected(c, sizeof c, (const char *const[]){ "WRITE_LINEAR", "field addr",
							     "runs past what was relayed" }, 3);
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
		struct bh_cq_config cfg = { .timeout_s = 0.5 };
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
