/* PCBufs (sync.md 4): BRISC pushes into three 16-entry FIFOs and parks on the 17th word until
 * the TRISC pops; a TRISC pop of an empty FIFO parks until a push; BRISC's barrier read waits
 * for an empty FIFO and a TRISC parked in its pop; TRISC_PC_BUF_OVERRIDE; Manual TTSync; who may
 * reach which window; a TRISC leaving reset empties its FIFO; blocked cores use no CPU; 100k
 * words through each PCBuf at once arrive in order. Meant to be clean under TSan. */
#include <criterion/criterion.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/device.h"
#include "testlib.h"

#define PCBUF0 0xFFE80000u          /* BRISC: PCBuf 0; TRISC i: its own PCBuf */
#define PCBUF1 0xFFE90000u
#define PCBUF2 0xFFEA0000u
#define PC_BUF_OVERRIDE 0xFFB12090u
#define PC_SNAPSHOT 0xFFB13138u     /* B, NC, T0, T1, T2 */

/* Code of each core, and L1 words shared with the host. */
static const uint32_t code_at[5] = { 0x1000, 0x2000, 0x3000, 0x4000, 0x5000 };
#define PROGRESS 0x10000u   /* BRISC: words pushed so far / barrier passed */
#define GATE 0x10100u       /* TRISC waits for the host to write it */
#define GATE2 0x10104u
#define SUM 0x10200u

static const uint32_t pcbuf_of[3] = { PCBUF0, PCBUF1, PCBUF2 };

static struct bh_core *core_of(struct bh_device *dev, enum bh_core_id c)
{
	return &dev->tiles[0]->core[c];
}

static void start(struct bh_device *dev, enum bh_core_id c, const struct prog *p)
{
	prog_put(dev, 0, code_at[c], p);
	cr_assert_eq(bh_core_start(dev, 0, c, code_at[c]), BH_OK);
}

static enum bh_run_status status_of(struct bh_device *dev, enum bh_core_id c)
{
	struct bh_core_result *r = result_new();
	bh_core_result(dev, 0, c, r);
	enum bh_run_status s = r->status;
	free(r);
	return s;
}

/* Wait (5 s) until `core` sleeps in a blocked access whose wait text contains `what`. The text
 * is read only after the core published `sleeping` (seq_cst store after writing it), and only
 * where nothing can wake the core meanwhile. */
static void wait_blocked(struct bh_device *dev, enum bh_core_id core, const char *what)
{
	struct bh_core *c = core_of(dev, core);
	char seen[sizeof c->wait_what] = "";
	for (int ms = 0; ms < 5000; ms++) {
		if (atomic_load_explicit(&c->sleeping, memory_order_seq_cst)) {
			memcpy(seen, c->wait_what, sizeof seen);
			seen[sizeof seen - 1] = 0;
			if (strstr(seen, what))
				return;
		}
		sleep_ms(1);
	}
	cr_assert(false, "%s did not block on \"%s\" within 5 s (last: \"%s\")", core_names[core], what, seen);
}

static uint32_t pc_snapshot(struct bh_device *dev, enum bh_core_id c)
{
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, PC_SNAPSHOT + 4u * (unsigned)c, &v), BH_OK);
	return v;
}

/* A parked core makes no progress: its pc snapshot and the L1 word it counts in stay put
 * for 100 ms and it is still running. */
static void expect_stays_parked(struct bh_device *dev, enum bh_core_id c, uint32_t progress_addr, uint32_t progress)
{
	uint32_t pc = pc_snapshot(dev, c);
	sleep_ms(100);
	cr_expect_eq(pc_snapshot(dev, c), pc, "%s moved while blocked", core_names[c]);
	cr_expect_eq(l1_get(dev, progress_addr), progress);
	cr_expect_eq(status_of(dev, c), BH_RUN_RUNNING);
}

static void wait_l1(struct bh_device *dev, uint32_t addr, uint32_t value)
{
	for (int ms = 0; ms < 5000; ms++) {
		if (l1_get(dev, addr) == value)
			return;
		sleep_ms(1);
	}
	cr_assert(false, "L1[0x%x] = 0x%x, expected 0x%x within 5 s", addr, l1_get(dev, addr), value);
}

static void set_l1(struct bh_device *dev, uint32_t addr, uint32_t value)
{
	l1_put(dev, addr, &value, 1);
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* BRISC: push 1..n into the PCBuf at `pcbuf`, storing the count pushed to PROGRESS after each
 * push; exit(0). */
static void emit_push_count(struct prog *p, uint32_t pcbuf, uint32_t n)
{
	emit_li(p, S0, pcbuf);
	emit_li(p, S1, PROGRESS);
	emit_li(p, A0, 0);
	emit_li(p, A1, n);
	int32_t loop = prog_here(p);
	emit(p, addi(A0, A0, 1));
	emit(p, sw(A0, 0, S0));
	emit(p, sw(A0, 0, S1));
	emit_branch(p, BNE, A0, A1, loop);
	emit_exit_with(p, 0);
}

/* TRISC: pop n words from its PCBuf, expecting 1..n; exit(number of mismatches). */
static void emit_pop_expect_count(struct prog *p, uint32_t n)
{
	emit_li(p, S0, PCBUF0);
	emit_li(p, A0, 0);
	emit_li(p, A1, n);
	emit_li(p, A2, 0);
	int32_t loop = prog_here(p);
	emit(p, addi(A0, A0, 1));
	emit(p, lw(T0, 0, S0));
	emit_branch(p, BEQ, T0, A0, prog_here(p) + 8);
	emit(p, addi(A2, A2, 1));
	emit_branch(p, BNE, A0, A1, loop);
	emit(p, addi(A0, A2, 0));
	emit_exit(p);
}

/* pop once (lw a0, PC_BUF_BASE); exit(a0). */
static void emit_pop_exit(struct prog *p)
{
	emit_li(p, S0, PCBUF0);
	emit(p, lw(A0, 0, S0));
	emit_exit(p);
}

/* ------------------------------------------------------------------------- FIFO and capacity */

Test(pcbuf, brisc_parks_on_the_17th_push_until_the_trisc_pops)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_wait_nonzero(&t, GATE, A3);
	emit_pop_expect_count(&t, 17);
	start(dev, BH_CORE_TRISC0, &t);
	emit_push_count(&b, PCBUF0, 17);
	start(dev, BH_CORE_BRISC, &b);

	wait_l1(dev, PROGRESS, 16);
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 0 push (brisc): FIFO full (16 entries)");
	expect_stays_parked(dev, BH_CORE_BRISC, PROGRESS, 16);

	set_l1(dev, GATE, 1);   /* TRISC0 pops 1..17 in order: the first pop lets the 17th push in */
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	cr_expect_eq(l1_get(dev, PROGRESS), 17);
	bh_device_close(dev);
}

Test(pcbuf, each_pcbuf_is_its_own_fifo)
{
	struct bh_device *dev = t_open();
	for (unsigned i = 0; i < 3; i++) {
		struct prog t = { 0 };
		emit_wait_nonzero(&t, GATE, A3);
		emit_pop_expect_count(&t, 16);
		start(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
	}
	/* 16 words into each: no PCBuf is full, BRISC never waits. */
	struct prog b = { 0 };
	for (unsigned i = 0; i < 3; i++) {
		emit_li(&b, S0, pcbuf_of[i]);
		for (uint32_t v = 1; v <= 16; v++) {
			emit_li(&b, T0, v);
			emit(&b, sw(T0, 0, S0));
		}
	}
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	set_l1(dev, GATE, 1);
	for (unsigned i = 0; i < 3; i++)
		expect_exit(dev, 0, (enum bh_core_id)(BH_CORE_TRISC0 + i), 0);
	bh_device_close(dev);
}

Test(pcbuf, trisc_pop_of_an_empty_fifo_parks_until_brisc_pushes)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_pop_exit(&t);
	start(dev, BH_CORE_TRISC1, &t);
	wait_blocked(dev, BH_CORE_TRISC1, "PCBuf 1 pop (trisc1): FIFO empty");
	uint32_t pc = pc_snapshot(dev, BH_CORE_TRISC1);
	sleep_ms(100);
	cr_expect_eq(pc_snapshot(dev, BH_CORE_TRISC1), pc);
	cr_expect_eq(status_of(dev, BH_CORE_TRISC1), BH_RUN_RUNNING);

	emit_store_word(&b, PCBUF1, 0x1234);
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0x1234);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------- barrier */

/* The barrier holds while the FIFO has words, still holds once it is drained but the TRISC is
 * not reading, and completes (value 0) when the TRISC parks in a pop. The third condition
 * (Tensix thread idle) always holds until the coprocessor exists. */
Test(pcbuf, barrier_waits_for_empty_fifo_and_trisc_parked_in_pop)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_wait_nonzero(&t, GATE, A3);
	emit_li(&t, S0, PCBUF0);
	emit(&t, lw(A0, 0, S0));
	emit(&t, lw(A1, 0, S0));
	emit(&t, lw(A2, 0, S0));
	emit(&t, add(A0, A0, A1));
	emit(&t, add(A0, A0, A2));
	emit_li(&t, S1, SUM);
	emit(&t, sw(A0, 0, S1));
	emit_wait_nonzero(&t, GATE2, A3);
	emit(&t, lw(A0, 0, S0));                /* parks: FIFO empty -> barrier completes */
	emit_exit(&t);
	start(dev, BH_CORE_TRISC2, &t);

	emit_li(&b, S0, PCBUF2);
	for (uint32_t v = 1; v <= 3; v++) {
		emit_li(&b, T0, v);
		emit(&b, sw(T0, 0, S0));
	}
	emit(&b, lw(A0, 0, S0));                /* barrier */
	emit_li(&b, S1, PROGRESS);
	emit_li(&b, T0, 1);
	emit(&b, sw(T0, 0, S1));
	emit_li(&b, T0, 0x77);                  /* lets TRISC2 leave its last pop */
	emit(&b, sw(T0, 0, S0));
	emit_exit(&b);                          /* exit(barrier value) */
	start(dev, BH_CORE_BRISC, &b);

	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 2 barrier (brisc): FIFO holds 3, trisc2 not waiting");
	expect_stays_parked(dev, BH_CORE_BRISC, PROGRESS, 0);

	set_l1(dev, GATE, 1);                   /* drained, but TRISC2 is not reading */
	wait_l1(dev, SUM, 6);
	sleep_ms(100);
	cr_expect_eq(l1_get(dev, PROGRESS), 0, "barrier passed while trisc2 was not reading");
	cr_expect_eq(status_of(dev, BH_CORE_BRISC), BH_RUN_RUNNING);

	set_l1(dev, GATE2, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0x77);
	bh_device_close(dev);
}

Test(pcbuf, barrier_with_trisc_in_reset_waits_and_names_it)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 };
	emit_li(&b, S0, PCBUF1);
	emit(&b, lw(A0, 0, S0));
	emit_exit(&b);
	start(dev, BH_CORE_BRISC, &b);
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 1 barrier (brisc): trisc1 not waiting");
	/* Now TRISC1 parks in its pop: the barrier completes. */
	struct prog t = { 0 };
	emit_pop_exit(&t);
	start(dev, BH_CORE_TRISC1, &t);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	cr_expect_eq(status_of(dev, BH_CORE_TRISC1), BH_RUN_RUNNING);
	bh_device_close(dev);
}

/* A TRISC parked in its pop and then put in reset no longer counts as waiting. */
Test(pcbuf, trisc_entering_reset_stops_counting_as_waiting)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_pop_exit(&t);
	start(dev, BH_CORE_TRISC1, &t);
	wait_blocked(dev, BH_CORE_TRISC1, "PCBuf 1 pop (trisc1): FIFO empty");
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v | reset_bit(BH_CORE_TRISC1)), BH_OK);

	emit_li(&b, S0, PCBUF1);
	emit(&b, lw(A0, 0, S0));
	emit_exit(&b);
	start(dev, BH_CORE_BRISC, &b);
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 1 barrier (brisc): trisc1 not waiting");
	cr_expect_eq(status_of(dev, BH_CORE_TRISC1), BH_RUN_IN_RESET);

	start(dev, BH_CORE_TRISC1, &t);          /* parks in its pop again */
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}

/* -------------------------------------------------------------------------- override bits */

#define OV_EN(i) (1u << (10 * (i)))
#define OV_BUSY(i) (1u << (10 * (i) + 1))
#define OV_VALUE(i, v) ((uint32_t)(v) << (10 * (i) + 2))

Test(pcbuf, barrier_returns_at_once_with_override_en_and_busy)
{
	struct bh_device *dev = t_open();
	cr_assert_eq(bh_reg_write(dev, 0, PC_BUF_OVERRIDE, OV_EN(1) | OV_BUSY(1)), BH_OK);
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, PC_BUF_OVERRIDE, &v), BH_OK);
	cr_expect_eq(v, OV_EN(1) | OV_BUSY(1));
	struct prog b = { 0 };
	emit_li(&b, S0, PCBUF1);
	emit(&b, lw(A0, 0, S0));                /* no TRISC1 at all */
	emit_exit(&b);
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, code_at[BH_CORE_BRISC], &b), 0);
	bh_device_close(dev);
}

Test(pcbuf, override_busy_written_while_brisc_waits_releases_the_barrier)
{
	struct bh_device *dev = t_open();
	cr_assert_eq(bh_reg_write(dev, 0, PC_BUF_OVERRIDE, OV_EN(2)), BH_OK);   /* En alone: no effect */
	struct prog b = { 0 };
	emit_li(&b, S0, PCBUF2);
	emit(&b, lw(A0, 0, S0));
	emit_exit(&b);
	start(dev, BH_CORE_BRISC, &b);
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 2 barrier (brisc): trisc2 not waiting");
	cr_assert_eq(bh_reg_write(dev, 0, PC_BUF_OVERRIDE, OV_EN(2) | OV_BUSY(2)), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}

/* Empty FIFO and OverrideEn: the pop returns OverrideValue; TRISC writes are discarded. */
Test(pcbuf, empty_pop_with_override_en_returns_override_value)
{
	struct bh_device *dev = t_open();
	cr_assert_eq(bh_reg_write(dev, 0, PC_BUF_OVERRIDE, OV_EN(0) | OV_VALUE(0, 0xA5) | OV_VALUE(1, 0x11)), BH_OK);
	struct prog t = { 0 };
	emit_li(&t, S0, PCBUF0);
	emit_li(&t, T0, 0xDEAD);
	emit(&t, sw(T0, 0, S0));                /* discarded: does not enter the FIFO */
	emit(&t, lw(A0, 0, S0));
	emit_exit(&t);
	cr_expect_eq(run_to_exit(dev, BH_CORE_TRISC0, code_at[BH_CORE_TRISC0], &t), 0xA5);
	bh_device_close(dev);
}

Test(pcbuf, override_en_written_while_trisc_waits_returns_override_value)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 };
	emit_pop_exit(&t);
	start(dev, BH_CORE_TRISC2, &t);
	wait_blocked(dev, BH_CORE_TRISC2, "PCBuf 2 pop (trisc2): FIFO empty");
	cr_assert_eq(bh_reg_write(dev, 0, PC_BUF_OVERRIDE, OV_EN(2) | OV_VALUE(2, 0x5A)), BH_OK);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0x5A);
	bh_device_close(dev);
}

/* Words in the FIFO come first; OverrideValue only stands in for an empty FIFO. */
Test(pcbuf, fifo_words_win_over_override_value)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_wait_nonzero(&t, GATE, A3);
	emit_li(&t, S0, PCBUF0);
	emit(&t, lw(A0, 0, S0));
	emit(&t, lw(A1, 0, S0));
	emit(&t, enc_i(8, A0, 1, A0, OP_IMM));  /* slli a0, a0, 8 */
	emit(&t, or(A0, A0, A1));
	emit_exit(&t);
	start(dev, BH_CORE_TRISC1, &t);
	emit_store_word(&b, PCBUF1, 7);
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	cr_assert_eq(bh_reg_write(dev, 0, PC_BUF_OVERRIDE, OV_EN(1) | OV_VALUE(1, 0x33)), BH_OK);
	set_l1(dev, GATE, 1);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0x733);
	bh_device_close(dev);
}

Test(pcbuf, override_reserved_bits_fault)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog b = { 0 };
	emit_li(&b, S0, PC_BUF_OVERRIDE);
	emit_li(&b, T0, 0x40000000);
	uint32_t pc = code_at[BH_CORE_BRISC] + (uint32_t)prog_here(&b);
	emit(&b, sw(T0, 0, S0));
	emit_exit_with(&b, 0);
	run_prog(dev, BH_CORE_BRISC, code_at[BH_CORE_BRISC], &b, r);
	expect_fault(r, BH_CORE_BRISC, pc, "bad register value", "bits 31:30 are reserved");
	free(r);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------- Manual TTSync */

/* Without a coprocessor, CoprocessorDoneCheck and MOPExpanderDoneCheck complete at once; the
 * model returns 0 (silicon: undefined) and discards the ordering stores. */
Test(pcbuf, ttsync_done_checks_complete_at_once_and_read_zero)
{
	struct bh_device *dev = t_open();
	for (unsigned i = 0; i < 3; i++) {
		struct prog t = { 0 };
		emit_li(&t, S0, PCBUF0);
		emit(&t, sw(X0, 4, S0));
		emit(&t, lw(A0, 4, S0));
		emit(&t, sw(X0, 8, S0));
		emit(&t, lw(A1, 8, S0));
		emit(&t, or(A0, A0, A1));
		emit_exit(&t);
		enum bh_core_id c = (enum bh_core_id)(BH_CORE_TRISC0 + i);
		cr_expect_eq(run_to_exit(dev, c, code_at[c], &t), 0);
	}
	bh_device_close(dev);
}

Test(pcbuf, reserved_ttsync_words_fault_naming_the_offset)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog t = { 0 };
	emit_li(&t, S0, PCBUF0);
	uint32_t pc = code_at[BH_CORE_TRISC1] + (uint32_t)prog_here(&t);
	emit(&t, lw(A0, 0x1C, S0));
	emit_exit(&t);
	run_prog(dev, BH_CORE_TRISC1, code_at[BH_CORE_TRISC1], &t, r);
	expect_fault(r, BH_CORE_TRISC1, pc, "not modelled", "PC_BUF_BASE + 0x1c");
	expect_in_report(r, "PCBuf 1 Manual TTSync");
	free(r);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- access rules */

static void expect_access_fault(enum bh_core_id core, bool store, uint32_t addr, const char *phrase)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	emit_li(&p, S0, addr);
	uint32_t pc = code_at[core] + (uint32_t)prog_here(&p);
	emit(&p, store ? sw(X0, 0, S0) : lw(A0, 0, S0));
	emit_exit_with(&p, 0);
	run_prog(dev, core, code_at[core], &p, r);
	expect_fault(r, core, pc, "access not allowed", phrase);
	free(r);
	bh_device_close(dev);
}

Test(pcbuf, ncrisc_cannot_reach_any_pcbuf)
{
	expect_access_fault(BH_CORE_NCRISC, false, PCBUF0, "ncrisc cannot read PCBuf 0");
	expect_access_fault(BH_CORE_NCRISC, true, PCBUF0 + 0x20, "ncrisc cannot write PCBuf 0");
	expect_access_fault(BH_CORE_NCRISC, true, PCBUF1, "ncrisc cannot write PCBuf 1");
	expect_access_fault(BH_CORE_NCRISC, false, PCBUF2, "ncrisc cannot read PCBuf 2");
}

Test(pcbuf, trisc_reaches_only_its_own_pcbuf_through_pc_buf_base)
{
	expect_access_fault(BH_CORE_TRISC0, false, PCBUF1, "trisc0 cannot read PCBuf 1");
	expect_access_fault(BH_CORE_TRISC1, true, PCBUF1, "trisc1 cannot write PCBuf 1");
	expect_access_fault(BH_CORE_TRISC2, false, PCBUF2 + 0x100, "trisc2 cannot read PCBuf 2");
}

Test(pcbuf, host_cannot_reach_pcbufs)
{
	struct bh_device *dev = t_open();
	uint32_t v = 0;
	cr_expect_eq(bh_reg_read(dev, 0, PCBUF0, &v), BH_ERR_ARG);
	cr_expect_eq(bh_reg_write(dev, 0, PCBUF1, 1), BH_ERR_ARG);
	bh_device_close(dev);
}

/* Any offset of BRISC's 64 KiB window pushes (and reads are the barrier). */
Test(pcbuf, brisc_pushes_through_any_offset_of_its_window)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_pop_exit(&t);
	start(dev, BH_CORE_TRISC2, &t);
	emit_store_word(&b, PCBUF2 + 0xFFFC, 0x4242);
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0x4242);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------------ reset */

/* TRISC0 held: BRISC fills PCBuf 0 and parks on the 17th word. Releasing TRISC0 empties its
 * FIFO, which lets the 17th word in: it is the only word TRISC0 finds. */
Test(pcbuf, trisc_leaving_reset_empties_its_fifo_and_wakes_brisc)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_push_count(&b, PCBUF0, 17);
	start(dev, BH_CORE_BRISC, &b);
	wait_l1(dev, PROGRESS, 16);
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 0 push (brisc): FIFO full (16 entries)");

	emit_li(&t, S0, PCBUF0);
	emit_li(&t, S1, SUM);
	emit(&t, lw(A0, 0, S0));
	emit(&t, sw(A0, 0, S1));
	emit(&t, lw(A0, 0, S0));                /* nothing else is left: parks */
	emit_exit(&t);
	start(dev, BH_CORE_TRISC0, &t);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	wait_l1(dev, SUM, 17);
	wait_blocked(dev, BH_CORE_TRISC0, "PCBuf 0 pop (trisc0): FIFO empty");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------------- CPU */

/* TRISC0 parked on an empty PCBuf, BRISC parked on a full one: 300 ms cost far less than 30 ms
 * of CPU (the device does not spin). */
Test(pcbuf, blocked_cores_use_no_cpu)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_pop_exit(&t);
	start(dev, BH_CORE_TRISC0, &t);
	emit_push_count(&b, PCBUF1, 17);        /* TRISC1 held: never pops */
	start(dev, BH_CORE_BRISC, &b);
	wait_blocked(dev, BH_CORE_TRISC0, "PCBuf 0 pop (trisc0): FIFO empty");
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 1 push (brisc): FIFO full");
	sleep_ms(20);
	double c0 = cpu_seconds();
	sleep_ms(300);
	double used = cpu_seconds() - c0;
	cr_expect_lt(used, 0.030, "two blocked cores used %.1f ms of CPU in 300 ms", used * 1e3);
	bh_device_close(dev);
}

/* -------------------------------------------------------------------------------- stress */

#define STRESS_N 100000u

/* BRISC pushes (i << 24) + n, n = 0..N-1, into PCBuf i, round robin over the three; each TRISC
 * pops N words and counts those that are not the next of its sequence (loss, duplication,
 * reordering or a word of another PCBuf). */
Test(pcbuf, stress_100k_words_through_each_pcbuf_arrive_in_order, .timeout = 240)
{
	struct bh_device *dev = t_open();
	for (unsigned i = 0; i < 3; i++) {
		struct prog t = { 0 };
		emit_li(&t, S0, PCBUF0);
		emit_li(&t, A0, i << 24);           /* expected word */
		emit_li(&t, A3, STRESS_N);          /* words left */
		emit_li(&t, A2, 0);                 /* mismatches */
		int32_t loop = prog_here(&t);
		emit(&t, lw(T0, 0, S0));
		emit_branch(&t, BEQ, T0, A0, prog_here(&t) + 12);
		emit(&t, addi(A2, A2, 1));
		emit(&t, addi(A0, T0, 0));          /* resynchronise on what arrived */
		emit(&t, addi(A0, A0, 1));
		emit(&t, addi(A3, A3, -1));
		emit_branch(&t, BNE, A3, X0, loop);
		emit(&t, addi(A0, A2, 0));
		emit_exit(&t);
		start(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
	}
	struct prog b = { 0 };
	emit_li(&b, A3, PCBUF0);
	emit_li(&b, A4, PCBUF1);
	emit_li(&b, A5, PCBUF2);
	emit_li(&b, A6, 1u << 24);
	emit_li(&b, A7, 2u << 24);
	emit_li(&b, A0, 0);
	emit_li(&b, A1, STRESS_N);
	int32_t loop = prog_here(&b);
	emit(&b, sw(A0, 0, A3));
	emit(&b, add(T0, A0, A6));
	emit(&b, sw(T0, 0, A4));
	emit(&b, add(T1, A0, A7));
	emit(&b, sw(T1, 0, A5));
	emit(&b, addi(A0, A0, 1));
	emit_branch(&b, BNE, A0, A1, loop);
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);

	for (unsigned i = 0; i < 3; i++) {
		struct bh_core_result *r = result_new();
		enum bh_core_id c = (enum bh_core_id)(BH_CORE_TRISC0 + i);
		cr_assert_eq(bh_core_wait(dev, 0, c, 200000, r), BH_OK, "%s did not finish", core_names[c]);
		cr_expect_eq(r->status, BH_RUN_EXITED, "%s: status %d\n%s", core_names[c], r->status, r->report);
		cr_expect_eq(r->exit_status, 0, "%s saw %d words out of sequence", core_names[c], r->exit_status);
		free(r);
	}
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}
