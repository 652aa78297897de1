/* PCBufs (sync.md 4): BRISC pushes into three 16-entry FIFOs and parks on the 17th word until
 * the TRISC pops; a TRISC pop of an empty FIFO parks until a push; BRISC's barrier read waits
 * for an empty FIFO and a TRISC parked in its pop; TRISC_PC_BUF_OVERRIDE; Manual TTSync; who may
 * reach which window; a TRISC leaving reset empties its FIFO; blocked cores use no CPU; 100k
 * words through each PCBuf at once arrive in order. Meant to be clean under TSan. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

#include "testlib.h"

#define PCBUF0 0xFFE80000u          /* BRISC: PCBuf 0; TRISC i: its own PCBuf */
#define PCBUF1 0xFFE90000u
#define PCBUF2 0xFFEA0000u
#define PC_BUF_OVERRIDE 0xFFB12090u

/* L1 words shared with the host (each core's code is at core_code_at[core]). */
#define PROGRESS 0x10000u   /* BRISC: words pushed so far / barrier passed */
#define GATE 0x10100u       /* TRISC waits for the host to write it */
#define GATE2 0x10104u
#define SUM 0x10200u

static const uint32_t pcbuf_of[3] = { PCBUF0, PCBUF1, PCBUF2 };

/* TRISC i pops its (empty) PCBuf once and exits with the word; returns once it waits there. */
static void start_pop_waiting(struct bh_device *dev, unsigned i)
{
	struct prog t = { 0 };
	char what[64];
	emit_load_word(&t, A0, PCBUF0);
	emit_exit(&t);
	start_core(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
	snprintf(what, sizeof what, "PCBuf %u pop (trisc%u): FIFO empty", i, i);
	wait_blocked(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), what);
}

/* BRISC reads PCBuf i (the barrier) and exits with the value; returns once it waits there for
 * trisc i. */
static void start_barrier_waiting_for_trisc(struct bh_device *dev, unsigned i)
{
	struct prog b = { 0 };
	char what[64];
	emit_load_word(&b, A0, pcbuf_of[i]);
	emit_exit(&b);
	start_core(dev, BH_CORE_BRISC, &b);
	snprintf(what, sizeof what, "PCBuf %u barrier (brisc): trisc%u not waiting", i, i);
	wait_blocked(dev, BH_CORE_BRISC, what);
}

/* ------------------------------------------------------------------------- FIFO and capacity */

Test(pcbuf, brisc_parks_on_the_17th_push_until_the_trisc_pops)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_wait_nonzero(&t, GATE, A3);
	emit_pop_expect_count(&t, PCBUF0, 17);
	start_core(dev, BH_CORE_TRISC0, &t);
	emit_push_count(&b, PCBUF0, 17, PROGRESS);
	start_core(dev, BH_CORE_BRISC, &b);

	wait_l1(dev, PROGRESS, 16);
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 0 push (brisc): FIFO full (16 entries)");
	expect_stays_parked(dev, BH_CORE_BRISC);
	cr_expect_eq(l1_get(dev, PROGRESS), 16);

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
		emit_pop_expect_count(&t, PCBUF0, 16);
		start_core(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
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
	start_core(dev, BH_CORE_BRISC, &b);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	set_l1(dev, GATE, 1);
	for (unsigned i = 0; i < 3; i++)
		expect_exit(dev, 0, (enum bh_core_id)(BH_CORE_TRISC0 + i), 0);
	bh_device_close(dev);
}

Test(pcbuf, trisc_pop_of_an_empty_fifo_parks_until_brisc_pushes)
{
	struct bh_device *dev = t_open();
	start_pop_waiting(dev, 1);
	expect_stays_parked(dev, BH_CORE_TRISC1);

	run_store_word(dev, BH_CORE_BRISC, PCBUF1, 0x1234);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0x1234);
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
	start_core(dev, BH_CORE_TRISC2, &t);

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
	start_core(dev, BH_CORE_BRISC, &b);

	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 2 barrier (brisc): FIFO holds 3, trisc2 not waiting");
	expect_stays_parked(dev, BH_CORE_BRISC);
	cr_expect_eq(l1_get(dev, PROGRESS), 0);

	set_l1(dev, GATE, 1);                   /* drained, but TRISC2 is not reading */
	wait_l1(dev, SUM, 6);
	expect_stays_parked(dev, BH_CORE_BRISC);
	cr_expect_eq(l1_get(dev, PROGRESS), 0, "barrier passed while trisc2 was not reading");

	set_l1(dev, GATE2, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0x77);
	bh_device_close(dev);
}

Test(pcbuf, barrier_with_trisc_in_reset_waits_and_names_it)
{
	struct bh_device *dev = t_open();
	start_barrier_waiting_for_trisc(dev, 1);
	/* Now TRISC1 parks in its pop: the barrier completes. */
	start_pop_waiting(dev, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	cr_expect_eq(core_status(dev, 0, BH_CORE_TRISC1), BH_RUN_RUNNING);
	bh_device_close(dev);
}

/* A TRISC parked in its pop and then put in reset no longer counts as waiting. */
Test(pcbuf, trisc_entering_reset_stops_counting_as_waiting)
{
	struct bh_device *dev = t_open();
	start_pop_waiting(dev, 1);
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v | reset_bit(BH_CORE_TRISC1)), BH_OK);
	/* The core's thread leaves its blocked pop when it sees the reset (not synchronously with
	 * the host's write): wait for that before asking the barrier. */
	for (int k = 0; k < 2000 && core_status(dev, 0, BH_CORE_TRISC1) != BH_RUN_IN_RESET; k++)
		sleep_ms(1);
	cr_assert_eq(core_status(dev, 0, BH_CORE_TRISC1), BH_RUN_IN_RESET);

	start_barrier_waiting_for_trisc(dev, 1);
	cr_expect_eq(core_status(dev, 0, BH_CORE_TRISC1), BH_RUN_IN_RESET);

	start_pop_waiting(dev, 1);                  /* parks in its pop again */
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
	emit_load_word(&b, A0, PCBUF1);         /* no TRISC1 at all */
	emit_exit(&b);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	bh_device_close(dev);
}

Test(pcbuf, override_busy_written_while_brisc_waits_releases_the_barrier)
{
	struct bh_device *dev = t_open();
	cr_assert_eq(bh_reg_write(dev, 0, PC_BUF_OVERRIDE, OV_EN(2)), BH_OK);   /* En alone: no effect */
	start_barrier_waiting_for_trisc(dev, 2);
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
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &t), 0xA5);
	bh_device_close(dev);
}

Test(pcbuf, override_en_written_while_trisc_waits_returns_override_value)
{
	struct bh_device *dev = t_open();
	start_pop_waiting(dev, 2);
	cr_assert_eq(bh_reg_write(dev, 0, PC_BUF_OVERRIDE, OV_EN(2) | OV_VALUE(2, 0x5A)), BH_OK);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0x5A);
	bh_device_close(dev);
}

/* Words in the FIFO come first; OverrideValue only stands in for an empty FIFO. */
Test(pcbuf, fifo_words_win_over_override_value)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 };
	emit_wait_nonzero(&t, GATE, A3);
	emit_li(&t, S0, PCBUF0);
	emit(&t, lw(A0, 0, S0));
	emit(&t, lw(A1, 0, S0));
	emit_pack(&t, A1);                      /* a0 = a0 << 8 | a1 */
	emit_exit(&t);
	start_core(dev, BH_CORE_TRISC1, &t);
	run_store_word(dev, BH_CORE_BRISC, PCBUF1, 7);
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
	uint32_t pc = core_code_at[BH_CORE_BRISC] + (uint32_t)prog_here(&b);
	emit(&b, sw(T0, 0, S0));
	emit_exit_with(&b, 0);
	run_prog(dev, BH_CORE_BRISC, core_code_at[BH_CORE_BRISC], &b, r);
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
		emit(&t, addi(A2, A0, 0));   /* use the TTSync result before the next PCBuf load (ttsync-load) */
		emit(&t, sw(X0, 8, S0));
		emit(&t, lw(A1, 8, S0));
		emit(&t, or(A0, A2, A1));
		emit_exit(&t);
		enum bh_core_id c = (enum bh_core_id)(BH_CORE_TRISC0 + i);
		cr_expect_eq(run_core(dev, c, &t), 0);
	}
	bh_device_close(dev);
}

Test(pcbuf, reserved_ttsync_words_fault_naming_the_offset)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog t = { 0 };
	emit_li(&t, S0, PCBUF0);
	uint32_t pc = core_code_at[BH_CORE_TRISC1] + (uint32_t)prog_here(&t);
	emit(&t, lw(A0, 0x1C, S0));
	emit_exit(&t);
	run_prog(dev, BH_CORE_TRISC1, core_code_at[BH_CORE_TRISC1], &t, r);
	expect_fault(r, BH_CORE_TRISC1, pc, "not modelled", "PC_BUF_BASE + 0x1c");
	expect_in_report(r, "PCBuf 1 Manual TTSync");
	free(r);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------- access rules */

/* One load or store of core at addr, on a device of its own. */
static void expect_access_fault(enum bh_core_id core, bool store, uint32_t addr, const char *phrase)
{
	struct bh_device *dev = t_open();
	expect_access_faults(dev, core, store, addr, "access not allowed", phrase);
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
	start_pop_waiting(dev, 2);
	run_store_word(dev, BH_CORE_BRISC, PCBUF2 + 0xFFFC, 0x4242);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0x4242);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------------ reset */

/* TRISC0 held: BRISC fills PCBuf 0 and parks on the 17th word. Releasing TRISC0 empties its
 * FIFO, which lets the 17th word in: it is the only word TRISC0 finds. */
Test(pcbuf, trisc_leaving_reset_empties_its_fifo_and_wakes_brisc)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_push_count(&b, PCBUF0, 17, PROGRESS);
	start_core(dev, BH_CORE_BRISC, &b);
	wait_l1(dev, PROGRESS, 16);
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 0 push (brisc): FIFO full (16 entries)");

	emit_li(&t, S0, PCBUF0);
	emit_li(&t, S1, SUM);
	emit(&t, lw(A0, 0, S0));
	emit(&t, sw(A0, 0, S1));
	emit(&t, lw(A0, 0, S0));                /* nothing else is left: parks */
	emit_exit(&t);
	start_core(dev, BH_CORE_TRISC0, &t);
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
	struct prog b = { 0 };
	start_pop_waiting(dev, 0);
	emit_push_count(&b, PCBUF1, 17, PROGRESS);        /* TRISC1 held: never pops */
	start_core(dev, BH_CORE_BRISC, &b);
	wait_blocked(dev, BH_CORE_BRISC, "PCBuf 1 push (brisc): FIFO full");
	sleep_ms(20);
	double used = cpu_used_while_sleeping(300, NULL);
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
		emit_pop_sequence(&t, PCBUF0, i << 24, STRESS_N);
		start_core(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
	}
	struct prog b = { 0 };
	emit_push_round_robin(&b, pcbuf_of, STRESS_N);
	start_core(dev, BH_CORE_BRISC, &b);
	for (unsigned i = 0; i < 3; i++)
		expect_sequence_exit(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i));
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}
