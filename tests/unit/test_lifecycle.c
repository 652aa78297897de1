/* Core threads and reset (memory-map.md 4.1, 8): held cores cost no CPU; a spinning core is
 * stopped by its SOFT_RESET_0 bit and can be restarted; closing the device joins spinning
 * cores; the instruction limit; code written while it runs (by itself, by another core, by
 * the host) is what executes, and the I-cache invalidate register drops decoded code; many
 * cores on many tiles compute independent results at once. Meant to be clean under TSan. */
#include <criterion/criterion.h>

#include <stdlib.h>

#include "bhemu/bhemu.h"
#include "host/device.h"
#include "testlib.h"

#define IC_INVALIDATE (0xFFEF0000u + 185u * 4u)

static struct bh_device *open_tiles_cfg(unsigned n, uint32_t checks, uint32_t provoke)
{
	struct bh_device_config cfg = { .num_tiles = n, .checks = checks, .provoke = provoke };
	struct bh_device *dev = NULL;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	cr_assert_eq(bh_device_num_tiles(dev), n);
	for (unsigned t = 0; t < n; t++)
		for (unsigned c = 0; c < 5; c++)
			bh_core_enable_host_calls(dev, t, all_cores[c], true);
	return dev;
}

static struct bh_device *open_tiles_checks(unsigned n, uint32_t checks)
{
	return open_tiles_cfg(n, checks, 0);
}

static struct bh_device *open_tiles(unsigned n)
{
	return open_tiles_checks(n, 0);
}

static void start_self_loop(struct bh_device *dev, unsigned tile, enum bh_core_id core, uint32_t at)
{
	const uint32_t w = INSN_SELF_LOOP;
	cr_assert_eq(bh_l1_write(dev, tile, at, &w, 4), BH_OK);
	cr_assert_eq(bh_core_start(dev, tile, core, at), BH_OK);
}

/* ------------------------------------------------------------------------- open, idle, close */

Test(lifecycle, four_tile_device_opens_held_and_closes)
{
	struct bh_device *dev = open_tiles(4);
	for (unsigned t = 0; t < 4; t++) {
		uint32_t v = 0;
		cr_assert_eq(bh_reg_read(dev, t, SOFT_RESET_0, &v), BH_OK);
		cr_expect_eq(v, 0x47800u);
		for (unsigned c = 0; c < 5; c++)
			cr_expect_eq(core_status(dev, t, all_cores[c]), BH_RUN_IN_RESET);
	}
	bh_device_close(dev);
}

/* 20 core threads held in reset sleep: 300 ms of idle costs well under 30 ms of CPU. */
Test(lifecycle, held_device_uses_no_cpu)
{
	struct bh_device *dev = open_tiles(4);
	sleep_ms(50);   /* let the threads reach their wait */
	double used = cpu_used_while_sleeping(300, NULL);
	cr_expect_lt(used, 0.030, "a held 4-tile device used %.1f ms of CPU in 300 ms", used * 1e3);
	bh_device_close(dev);
}

/* Cores that ran and stopped (exited, faulted, held again) go back to sleeping. */
Test(lifecycle, stopped_cores_use_no_cpu)
{
	struct bh_device *dev = open_tiles(1);
	put_exit(dev, 0x1000, 0);
	const uint32_t bad = 0;
	cr_assert_eq(bh_l1_write(dev, 0, 0x2000, &bad, 4), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x1000), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_NCRISC, 0x2000), BH_OK);
	start_self_loop(dev, 0, BH_CORE_TRISC0, 0x3000);
	sleep_ms(20);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, 0x47800), BH_OK);
	struct bh_core_result *r = result_new();
	for (unsigned c = 0; c < 3; c++)
		cr_assert_eq(bh_core_wait(dev, 0, all_cores[c], T_STOP_MS, r), BH_OK);
	free(r);
	sleep_ms(50);
	double used = cpu_used_while_sleeping(300, NULL);
	cr_expect_lt(used, 0.030, "stopped cores used %.1f ms of CPU in 300 ms", used * 1e3);
	bh_device_close(dev);
}

Test(lifecycle, close_joins_cores_spinning_in_infinite_loops, .timeout = 30)
{
	struct bh_device *dev = open_tiles(2);
	for (unsigned t = 0; t < 2; t++)
		for (unsigned c = 0; c < 5; c++)
			start_self_loop(dev, t, all_cores[c], 0x1000 + 0x1000 * c);
	sleep_ms(50);
	for (unsigned t = 0; t < 2; t++)
		for (unsigned c = 0; c < 5; c++)
			cr_expect_eq(core_status(dev, t, all_cores[c]), BH_RUN_RUNNING);
	bh_device_close(dev);
}

/* Opening and closing repeatedly, with cores running or not, leaks no thread and hangs nowhere. */
Test(lifecycle, open_close_repeatedly_with_running_cores, .timeout = 60)
{
	for (int k = 0; k < 20; k++) {
		struct bh_device *dev = open_tiles(2);
		if (k & 1)
			start_self_loop(dev, k & 2 ? 1 : 0, all_cores[k % 5], 0x2000);
		bh_device_close(dev);
	}
}

/* ------------------------------------------------------------------------------ reset bits */

/* Each core spins; asserting one core's SOFT_RESET_0 bit from the host stops only that core
 * (BH_RUN_IN_RESET), and it can be started again. */
Test(lifecycle, host_reset_bit_stops_a_spinning_core_and_it_restarts, .timeout = 60)
{
	struct bh_device *dev = open_tiles(1);
	struct bh_core_result *r = result_new();
	for (unsigned c = 0; c < 5; c++)
		start_self_loop(dev, 0, all_cores[c], 0x1000 + 0x1000 * c);
	cr_expect_eq(bh_core_wait(dev, 0, BH_CORE_TRISC1, 100, r), BH_ERR_TIMEOUT);
	cr_expect_eq(r->status, BH_RUN_RUNNING);
	/* On a loaded host a core thread may not have been scheduled yet: wait until each ran. */
	for (unsigned c = 0; c < 5; c++)
		for (int k = 0; k < 5000 && bh_core_instructions(dev, 0, all_cores[c]) == 0; k++)
			sleep_ms(1);

	for (unsigned c = 0; c < 5; c++) {
		uint32_t v = 0;
		cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
		cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v | reset_bit(all_cores[c])), BH_OK);
		cr_assert_eq(bh_core_wait(dev, 0, all_cores[c], T_STOP_MS, r), BH_OK, "%s did not stop",
			     bh_core_name(all_cores[c]));
		cr_expect_eq(r->status, BH_RUN_IN_RESET, "%s: status %d", bh_core_name(all_cores[c]), r->status);
		cr_expect_gt(r->instructions, 0);
		for (unsigned o = c + 1; o < 5; o++)
			cr_expect_eq(core_status(dev, 0, all_cores[o]), BH_RUN_RUNNING, "%s stopped with %s",
				     bh_core_name(all_cores[o]), bh_core_name(all_cores[c]));
	}

	/* Restart each from the API at a program that exits. */
	for (unsigned c = 0; c < 5; c++) {
		put_exit(dev, 0x20000 + 0x100 * c, 0x40 + c);
		cr_assert_eq(bh_core_start(dev, 0, all_cores[c], 0x20000 + 0x100 * c), BH_OK);
		expect_exit(dev, 0, all_cores[c], 0x40 + c);
	}
	free(r);
	bh_device_close(dev);
}

/* BRISC started at a self loop at 0x1000 (after `settle` ms), then held by SOFT_RESET_0 and
 * released by clearing the bit again: it restarts at its reset pc 0, where it exits 7. */
static void start_reset_release_restarts_at_0(struct bh_device *dev, unsigned settle)
{
	struct bh_core_result *r = result_new();
	start_self_loop(dev, 0, BH_CORE_BRISC, 0x1000);
	sleep_ms(settle);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, 0x47800), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_IN_RESET);
	put_exit(dev, 0, 7);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, 0x47000), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 7);
	free(r);
	bh_device_close(dev);
}

Test(lifecycle, brisc_released_again_by_the_host_restarts_at_0)
{
	start_reset_release_restarts_at_0(open_tiles(1), 10);
}

/* A host start whose release the core's thread has not picked up yet, then reset and released
 * again: the core started (at the start's pc) and was reset, so it restarts at its reset pc 0.
 * Serial scheduling keeps the core's thread from running between the host's calls, so the start
 * is never picked up before the reset (under threads that was a race, lost under load). */
Test(lifecycle, a_start_cancelled_by_reset_before_the_core_ran_leaves_the_next_release_at_0)
{
	struct bh_device_config cfg = { .num_tiles = 1, .sched = BH_SCHED_SERIAL };
	struct bh_device *dev = NULL;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	bh_core_enable_host_calls(dev, 0, BH_CORE_BRISC, true);
	start_reset_release_restarts_at_0(dev, 0);
}

/* A core's own store to SOFT_RESET_0 takes effect at that store: BRISC putting the whole tile in
 * reset (0x47800) stops right there, before the next instruction (a marker store), and its result
 * says who reset it, at which pc and after how many instructions. */
Test(lifecycle, core_resetting_itself_stops_at_that_store, .timeout = 60)
{
	struct bh_device *dev = open_tiles(1);
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	emit_li(&p, T0, SOFT_RESET_0);                   /* lui + addi */
	emit_li(&p, T1, 0x47800);                        /* lui + addi */
	uint32_t store_pc = 0x10000 + (uint32_t)prog_here(&p);   /* prog_here: a byte offset */
	uint32_t before = (uint32_t)prog_here(&p) / 4;
	emit(&p, sw(T1, 0, T0));
	emit_store_word(&p, 0x20000, 0x600d);            /* must never run */
	int32_t loop = prog_here(&p);
	emit(&p, addi(T2, T2, 1));
	emit_j(&p, loop);
	prog_put(dev, 0, 0x10000, &p);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x10000), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_IN_RESET, "status %d", r->status);
	cr_expect_eq(r->instructions, before, "stopped after %llu instructions, the store is instruction %u",
		     (unsigned long long)r->instructions, before + 1);
	cr_expect_eq(r->reset_by, BH_CORE_BRISC);
	cr_expect_eq(r->reset_pc, store_pc);
	cr_expect_eq(r->reset_value, 0x47800u);
	cr_expect_eq(r->reset_instructions, before);
	assert_has(r->report, "SOFT_RESET_0");
	assert_has(r->report, "brisc");
	uint32_t marker = 1;
	cr_assert_eq(bh_l1_read(dev, 0, 0x20000, &marker, 4), BH_OK);
	cr_expect_eq(marker, 0, "the instruction after the reset store ran");
	/* Released by the host, it starts afresh: the cause is gone. */
	put_exit(dev, 0x30000, 3);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x30000), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 3);
	bh_core_result(dev, 0, BH_CORE_BRISC, r);
	cr_expect_eq(r->reset_by, -1);
	free(r);
	bh_device_close(dev);
}

/* BRISC holding NCRISC: NCRISC's result names BRISC and the store; a host reset names no core. */
Test(lifecycle, core_reset_by_another_core_names_it, .timeout = 60)
{
	struct bh_device *dev = open_tiles(1);
	struct bh_core_result *r = result_new();
	start_self_loop(dev, 0, BH_CORE_NCRISC, 0x1000);
	for (int k = 0; k < 5000 && bh_core_instructions(dev, 0, BH_CORE_NCRISC) == 0; k++)
		sleep_ms(1);
	struct prog p = { 0 };
	emit_li(&p, T0, SOFT_RESET_0);
	emit_li(&p, T1, 0x47800 & ~reset_bit(BH_CORE_BRISC));   /* every core but itself */
	uint32_t store_pc = 0x10000 + (uint32_t)prog_here(&p);
	emit(&p, sw(T1, 0, T0));
	emit_exit_with(&p, 0);
	prog_put(dev, 0, 0x10000, &p);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x10000), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_NCRISC, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_IN_RESET, "status %d", r->status);
	cr_expect_gt(r->instructions, 0);
	cr_expect_eq(r->reset_by, BH_CORE_BRISC);
	cr_expect_eq(r->reset_pc, store_pc);
	assert_has(r->report, "brisc");
	static char buf[8192];
	cr_assert_eq(bh_device_report(dev, buf, sizeof buf), BH_OK);
	assert_has(buf, "ncrisc: held in reset, put in reset by brisc: SOFT_RESET_0 = 0x00047000");
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, 0x47800), BH_OK);
	start_self_loop(dev, 0, BH_CORE_TRISC0, 0x2000);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, 0x47800), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC0, T_STOP_MS, r), BH_OK);
	cr_expect_eq(r->status, BH_RUN_IN_RESET);
	cr_expect_eq(r->reset_by, -1, "the host is not a core");
	free(r);
	bh_device_close(dev);
}

/* bh_core_start on a running core restarts it at the new pc. */
Test(lifecycle, start_on_a_running_core_restarts_it)
{
	struct bh_device *dev = open_tiles(1);
	start_self_loop(dev, 0, BH_CORE_TRISC2, 0x1000);
	sleep_ms(10);
	put_exit(dev, 0x2000, 9);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC2, 0x2000), BH_OK);
	expect_exit(dev, 0, BH_CORE_TRISC2, 9);
	bh_device_close(dev);
}

/* A fault stops only the faulting core. */
Test(lifecycle, fault_on_one_core_leaves_the_others_running)
{
	struct bh_device *dev = open_tiles(1);
	for (unsigned c = 1; c < 5; c++)
		start_self_loop(dev, 0, all_cores[c], 0x1000 + 0x1000 * c);
	struct prog p = { 0 };
	emit_li(&p, T0, 0x80000000);
	emit(&p, lw(A0, 0, T0));
	prog_put(dev, 0, 0x10000, &p);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x10000), BH_OK);
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, r), BH_OK);
	cr_expect_eq(r->status, BH_RUN_FAULTED);
	sleep_ms(10);
	for (unsigned c = 1; c < 5; c++)
		cr_expect_eq(core_status(dev, 0, all_cores[c]), BH_RUN_RUNNING);
	free(r);
	bh_device_close(dev);
}

/* --------------------------------------------------------------------- instruction limit */

Test(lifecycle, max_instructions_stops_an_infinite_loop)
{
	struct bh_device *dev = open_tiles(1);
	struct bh_core_result *r = result_new();
	const uint64_t limits[] = { 1, 1000, 100000, 5000000 };
	for (unsigned k = 0; k < 4; k++) {
		bh_core_set_max_instructions(dev, 0, BH_CORE_NCRISC, limits[k]);
		start_self_loop(dev, 0, BH_CORE_NCRISC, 0x1000);
		cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_NCRISC, T_STOP_MS, r), BH_OK);
		cr_expect_eq(r->status, BH_RUN_LIMIT, "limit %llu: status %d", (unsigned long long)limits[k], r->status);
		cr_expect_geq(r->instructions, limits[k], "limit %llu: %llu instructions", (unsigned long long)limits[k],
			      (unsigned long long)r->instructions);
		/* counted from the last release, not accumulated over restarts */
		cr_expect_lt(r->instructions, 2 * limits[k] + 4096, "limit %llu: %llu instructions",
			     (unsigned long long)limits[k], (unsigned long long)r->instructions);
	}
	free(r);
	bh_device_close(dev);
}

/* A loop with a body: the limit holds wherever in the body it falls. */
Test(lifecycle, max_instructions_stops_a_loop_with_a_body)
{
	struct bh_device *dev = open_tiles(1);
	struct prog p = { 0 };
	int32_t loop = prog_here(&p);
	for (int k = 0; k < 9; k++)
		emit(&p, addi(A0, A0, 1));
	emit_j(&p, loop);
	bh_core_set_max_instructions(dev, 0, BH_CORE_TRISC0, 12345);
	struct bh_core_result *r = result_new();
	run_prog(dev, BH_CORE_TRISC0, 0x1000, &p, r);
	cr_expect_eq(r->status, BH_RUN_LIMIT);
	cr_expect_geq(r->instructions, 12345u);
	free(r);
	bh_device_close(dev);
}

/* 50 x addi a0, a0, 1, then exit(a0): 53 instructions, run on BRISC with the given limit. */
static void run_fifty_addis(struct bh_device *dev, uint64_t limit, struct bh_core_result *r)
{
	struct prog p = { 0 };
	for (int k = 0; k < 50; k++)
		emit(&p, addi(A0, A0, 1));
	emit_exit(&p);
	bh_core_set_max_instructions(dev, 0, BH_CORE_BRISC, limit);
	run_prog(dev, BH_CORE_BRISC, 0x1000, &p, r);
}

/* A program that would exit after 53 instructions, with a limit of 10: it must not get to
 * exit (the limit is reached on straight-line code, without any jump). */
Test(lifecycle, max_instructions_applies_to_straight_line_code)
{
	struct bh_device *dev = open_tiles(1);
	struct bh_core_result *r = result_new();
	run_fifty_addis(dev, 10, r);
	cr_expect_eq(r->status, BH_RUN_LIMIT, "status %d (exit %d) after %llu instructions with a limit of 10",
		     r->status, r->exit_status, (unsigned long long)r->instructions);
	cr_expect_geq(r->instructions, 10u);
	free(r);
	bh_device_close(dev);
}

Test(lifecycle, program_shorter_than_the_limit_exits_normally)
{
	struct bh_device *dev = open_tiles(1);
	struct bh_core_result *r = result_new();
	run_fifty_addis(dev, 1000, r);
	cr_expect_eq(r->status, BH_RUN_EXITED);
	cr_expect_eq(r->exit_status, 50);
	cr_expect_eq(r->instructions, 53u, "%llu instructions", (unsigned long long)r->instructions);
	free(r);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------ code written live */

/* The core executes `addi a0, zero, 1` once, stores `addi a0, zero, 2` over it (then, with
 * invalidate, writes its I-cache invalidate bit) and runs it again; returns what it exits with. */
static uint32_t run_self_modifying(struct bh_device *dev, bool invalidate)
{
	const uint32_t base = 0x1000;
	struct prog p = { 0 };
	emit(&p, addi(T0, X0, 0));
	int32_t target = prog_here(&p);
	emit(&p, addi(A0, X0, 1));
	int32_t bne_at = prog_here(&p);
	emit(&p, 0);                             /* bne t0, zero, done (patched below) */
	emit(&p, addi(T0, X0, 1));
	emit_li(&p, T1, addi(A0, X0, 2));
	emit_li(&p, T2, base + (uint32_t)target);
	emit(&p, sw(T1, 0, T2));
	if (invalidate)
		emit_store_word(&p, IC_INVALIDATE, 0x1);   /* BRISC's bit */
	emit_j(&p, target);
	int32_t done = prog_here(&p);
	emit_exit(&p);
	p.w[bne_at / 4] = enc_b(done - bne_at, X0, T0, BNE);
	uint32_t r = run_to_exit(dev, BH_CORE_BRISC, base, &p);
	bh_device_close(dev);
	return r;
}

Test(lifecycle, self_modifying_code_runs_the_new_instruction)
{
	cr_expect_eq(run_self_modifying(open_tiles(1), false), 2, "the old instruction ran after it was overwritten");
}

/* stale-icache (races.md #6's Provoke): the core runs the instruction it decoded until its I-cache
 * is invalidated, its own store over it included; after the invalidate, the new one. */
Test(lifecycle, stale_icache_runs_the_old_instruction_until_the_invalidate)
{
	cr_expect_eq(run_self_modifying(open_tiles_cfg(1, 0, BH_PROVOKE_STALE_ICACHE), false), 1,
		     "the new instruction ran without an invalidate");
	cr_expect_eq(run_self_modifying(open_tiles_cfg(1, 0, BH_PROVOKE_STALE_ICACHE), true), 2,
		     "the old instruction ran after the invalidate");
}

/* A store over the instruction right after it, never executed before. */
Test(lifecycle, store_over_the_next_instruction_runs_the_new_instruction)
{
	struct bh_device *dev = open_tiles(1);
	const uint32_t base = 0x5000;
	struct prog p = { 0 };
	emit_li(&p, T1, addi(A0, X0, 0x77));
	emit_li(&p, T2, base + 6 * 4);
	emit(&p, addi(A0, X0, 0));
	emit(&p, sw(T1, 0, T2));
	emit(&p, addi(A0, X0, 0x11));           /* at base + 24: replaced by addi a0, zero, 0x77 */
	emit_exit(&p);
	cr_assert_eq(p.w[6], addi(A0, X0, 0x11));
	cr_expect_eq(run_to_exit(dev, BH_CORE_TRISC1, base, &p), 0x77);
	bh_device_close(dev);
}

/* A loop that rewrites the immediate of an `addi a1, a1, k` in its own body every iteration
 * (k = 1..100), so the sum is 5050 only if every rewrite is seen. */
Test(lifecycle, code_patched_every_iteration_is_seen_every_time)
{
	struct bh_device *dev = open_tiles(1);
	const uint32_t base = 0x3000;
	struct prog p = { 0 };
	emit(&p, addi(A1, X0, 0));
	emit(&p, addi(S0, X0, 1));               /* k */
	emit(&p, addi(S1, X0, 101));
	emit_li(&p, A2, addi(A1, A1, 0));
	int32_t la_at = prog_here(&p);
	emit_li(&p, A3, 0);                      /* address of the patched word, set below */
	int32_t loop = prog_here(&p);
	emit(&p, i_op(1, T0, S0, 20));           /* slli t0, s0, 20: k in the imm field */
	emit(&p, or(T0, T0, A2));
	emit(&p, sw(T0, 0, A3));
	int32_t patched = prog_here(&p);
	emit(&p, addi(A1, A1, 0));
	emit(&p, addi(S0, S0, 1));
	emit_branch(&p, BNE, S0, S1, loop);
	emit(&p, addi(A0, A1, 0));
	emit_exit(&p);
	uint32_t li_words[2];
	enc_li(li_words, A3, base + (uint32_t)patched);
	p.w[la_at / 4] = li_words[0];
	p.w[la_at / 4 + 1] = li_words[1];
	cr_expect_eq(run_to_exit(dev, BH_CORE_NCRISC, base, &p), 5050);
	bh_device_close(dev);
}

/* BRISC calls a function at 0x4000 until it returns 2; it returns 1 until rewritten. */
#define FUNC 0x4000u
#define CALLED_FLAG 0x8000u

/* FUNC: return 1. */
static void put_func1(struct bh_device *dev)
{
	struct prog f = { 0 };
	emit(&f, addi(A0, X0, 1));
	emit(&f, INSN_RET);
	prog_put(dev, 0, FUNC, &f);
}

static void put_caller(struct bh_device *dev, uint32_t base)
{
	struct prog p = { 0 };
	emit_li(&p, S0, CALLED_FLAG);
	emit(&p, addi(S1, X0, 1));
	emit(&p, addi(T0, X0, 2));
	int32_t loop = prog_here(&p);
	emit_call(&p, base, FUNC);
	emit(&p, sw(S1, 0, S0));                   /* the old function has run at least once */
	emit_branch(&p, BNE, A0, T0, loop);
	emit_exit(&p);
	prog_put(dev, 0, base, &p);
	put_func1(dev);
}

/* Once the caller has run FUNC, rewrite it to return 2 (a store by a core), then exit(0). */
static void put_rewriter(struct bh_device *dev, uint32_t at)
{
	struct prog w = { 0 };
	emit_wait_nonzero(&w, CALLED_FLAG, A2);
	emit_li(&w, T1, addi(A0, X0, 2));
	emit_li(&w, T0, FUNC);
	emit(&w, sw(T1, 0, T0));
	emit_exit_with(&w, 0);
	prog_put(dev, 0, at, &w);
}

static void wait_called(struct bh_device *dev)
{
	uint32_t v = 0;
	for (int k = 0; k < 5000 && !v; k++) {
		cr_assert_eq(bh_l1_read(dev, 0, CALLED_FLAG, &v, 4), BH_OK);
		if (!v)
			sleep_ms(1);
	}
	cr_assert_eq(v, 1u, "the caller never ran the function");
}

Test(lifecycle, code_rewritten_by_the_host_is_executed)
{
	struct bh_device *dev = open_tiles(1);
	put_caller(dev, 0x1000);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x1000), BH_OK);
	wait_called(dev);
	sleep_ms(10);
	cr_assert_eq(core_status(dev, 0, BH_CORE_BRISC), BH_RUN_RUNNING);
	const uint32_t ret2 = addi(A0, X0, 2);
	cr_assert_eq(bh_l1_write(dev, 0, FUNC, &ret2, 4), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 2);
	bh_device_close(dev);
}

Test(lifecycle, code_rewritten_by_another_core_is_executed)
{
	struct bh_device *dev = open_tiles(1);
	put_caller(dev, 0x1000);
	put_rewriter(dev, 0x2000);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x1000), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_NCRISC, 0x2000), BH_OK);
	expect_exit(dev, 0, BH_CORE_NCRISC, 0);
	expect_exit(dev, 0, BH_CORE_BRISC, 2);
	bh_device_close(dev);
}

/* Five cores run the same function; one rewrites it, all four others see the new code. */
Test(lifecycle, code_rewritten_under_four_cores_is_seen_by_all)
{
	struct bh_device *dev = open_tiles(1);
	put_caller(dev, 0x1000);   /* FUNC and the caller loop, shared by four cores */
	for (unsigned c = 0; c < 4; c++)
		cr_assert_eq(bh_core_start(dev, 0, all_cores[c], 0x1000), BH_OK);
	put_rewriter(dev, 0x2000);
	sleep_ms(10);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC2, 0x2000), BH_OK);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0);
	for (unsigned c = 0; c < 4; c++)
		expect_exit(dev, 0, all_cores[c], 2);
	bh_device_close(dev);
}

/* A write the emulator does not see as a store (here: straight into the L1 array, as a DMA
 * engine outside the model would) leaves the decoded copy in place until the RISCV_IC_INVALIDATE
 * register (Tensix config index 185) drops it for the selected cores. */
static void rewrite_behind_the_back(struct bh_device *dev)
{
	__atomic_store_n((uint32_t *)(dev->tiles[0]->l1 + FUNC), addi(A0, X0, 2),
			 __ATOMIC_RELAXED);
}

/* With provoke 0 the rewrite goes behind the model's back; with BH_PROVOKE_STALE_ICACHE it is an
 * ordinary host write, which the core's kept decoded copy outlives until the invalidate. */
static void expect_host_invalidate_resyncs_in(uint32_t checks, uint32_t provoke)
{
	struct bh_device *dev = open_tiles_cfg(1, checks, provoke);
	put_caller(dev, 0x1000);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x1000), BH_OK);
	wait_called(dev);
	if (provoke) {
		const uint32_t ret2 = addi(A0, X0, 2);
		cr_assert_eq(bh_l1_write(dev, 0, FUNC, &ret2, 4), BH_OK);
	} else {
		rewrite_behind_the_back(dev);
	}
	sleep_ms(50);
	cr_assert_eq(core_status(dev, 0, BH_CORE_BRISC), BH_RUN_RUNNING,
		     "the core saw an unannounced write: this test no longer exercises the invalidate");
	/* Every core but BRISC (T0 2, T1 4, T2 8, NC 0x10): BRISC keeps its copy. */
	cr_assert_eq(bh_reg_write(dev, 0, IC_INVALIDATE, 0x1E), BH_OK);
	sleep_ms(50);
	cr_expect_eq(core_status(dev, 0, BH_CORE_BRISC), BH_RUN_RUNNING, "mask 0x1E flushed BRISC");
	cr_assert_eq(bh_reg_write(dev, 0, IC_INVALIDATE, 0x1), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 2);
	struct bh_provoke_stats ps;
	bh_device_provoke_stats(dev, &ps);
	cr_expect_eq(ps.stale_kept, provoke ? 1u : 0u, "BRISC's page kept past the host's write");
	bh_device_close(dev);
}

static void expect_host_invalidate_resyncs(uint32_t checks)
{
	expect_host_invalidate_resyncs_in(checks, 0);
}

/* stale-icache: a host write into the function the core keeps calling is not seen until the
 * core's invalidate bit is written (the other cores' bits do not do it). */
Test(lifecycle, stale_icache_keeps_a_host_rewritten_function_until_the_invalidate)
{
	expect_host_invalidate_resyncs_in(0, BH_PROVOKE_STALE_ICACHE);
}

Test(lifecycle, ic_invalidate_from_the_host_flushes_decoded_code)
{
	expect_host_invalidate_resyncs(0);
}

/* Without the code checks (no code map) the kept slots still compare their words with L1. */
Test(lifecycle, ic_invalidate_flushes_decoded_code_with_every_check_off)
{
	expect_host_invalidate_resyncs(BH_CHECKS_EXACT);
}

Test(lifecycle, ic_invalidate_written_by_a_core_flushes_decoded_code)
{
	struct bh_device *dev = open_tiles(1);
	put_caller(dev, 0x1000);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_NCRISC, 0x1000), BH_OK);
	wait_called(dev);
	rewrite_behind_the_back(dev);
	sleep_ms(20);
	cr_assert_eq(core_status(dev, 0, BH_CORE_NCRISC), BH_RUN_RUNNING);
	/* TRISC0 writes 0x1F (every core), as firmware does before each launch. */
	struct prog w = { 0 };
	emit_store_word(&w, IC_INVALIDATE, 0x1F);
	emit_exit_with(&w, 0);
	prog_put(dev, 0, 0x2000, &w);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC0, 0x2000), BH_OK);
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	expect_exit(dev, 0, BH_CORE_NCRISC, 2);
	bh_device_close(dev);
}

/* Decoded pages are checked again when the core next enters them after an invalidate, not at
 * the invalidate (cores/rv32_page.h): a page the core left before the invalidates and enters
 * only after them still runs what L1 holds now. The core runs FUNC once, then polls GO on its
 * own page (and parks); FUNC is rewritten behind the model's back, the I-cache invalidated
 * three times, GO set: the second call runs the new word. */
#define GO_FLAG 0x8004u

/* brisc's program at 0x1000 from its start: call FUNC, store 1 to CALLED_FLAG, wait for GO_FLAG. */
static void emit_call_then_wait_go(struct prog *p)
{
	emit_li(p, S0, CALLED_FLAG);
	emit(p, addi(S1, X0, 1));
	emit_call(p, 0x1000, FUNC);
	emit(p, sw(S1, 0, S0));
	emit_wait_nonzero(p, GO_FLAG, A2);
}
Test(lifecycle, a_page_entered_only_after_invalidates_runs_what_l1_holds)
{
	struct bh_device *dev = open_tiles(1);
	struct prog p = { 0 };
	emit_call_then_wait_go(&p);
	emit_call(&p, 0x1000, FUNC);
	emit_exit(&p);
	prog_put(dev, 0, 0x1000, &p);
	put_func1(dev);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x1000), BH_OK);
	wait_called(dev);
	for (int ms = 0; !atomic_load(&dev->tiles[0]->core[BH_CORE_BRISC]->waiter.parks); ms++) {
		cr_assert_lt(ms, 60000, "the core never parked on GO");
		sleep_ms(1);
	}
	rewrite_behind_the_back(dev);
	for (int k = 0; k < 3; k++)
		cr_assert_eq(bh_reg_write(dev, 0, IC_INVALIDATE, 0x1), BH_OK);
	const uint32_t go = 1;
	cr_assert_eq(bh_l1_write(dev, 0, GO_FLAG, &go, 4), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 2);
	bh_device_close(dev);
}

/* stale-icache keeps one I-cache per core, however many of the interpreter's variants run its
 * code: the core calls FUNC (the default variant decodes it), parks polling GO, FUNC is rewritten
 * by the host, GO set; then it calls FUNC 100,000 times in a loop, which the poll detector
 * suspects and runs in its monitoring variant again and again (a variant that never decoded
 * FUNC). Every call must still be the old function (one returning anything else ends the loop
 * with that value) until the core's invalidate; with the mode off, the first call is the new one. */
static uint32_t call_after_wake(uint32_t provoke, bool invalidate)
{
	struct bh_device *dev = open_tiles_cfg(1, 0, provoke);
	struct prog p = { 0 };
	emit_call_then_wait_go(&p);
	if (invalidate)
		emit_store_word(&p, IC_INVALIDATE, 1);
	emit_li(&p, A3, 100000);
	emit(&p, addi(T0, X0, 1));
	int32_t loop = prog_here(&p);
	emit_call(&p, 0x1000, FUNC);
	int32_t here = prog_here(&p);
	emit_branch(&p, BNE, A0, T0, here + 12);   /* to the exit */
	emit(&p, addi(A3, A3, -1));
	emit_branch(&p, BNE, A3, X0, loop);
	emit_exit(&p);
	prog_put(dev, 0, 0x1000, &p);
	put_func1(dev);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x1000), BH_OK);
	wait_called(dev);
	wait_parked(dev, 0, BH_CORE_BRISC);
	const uint32_t ret2 = addi(A0, X0, 2), go = 1;
	cr_assert_eq(bh_l1_write(dev, 0, FUNC, &ret2, 4), BH_OK);
	cr_assert_eq(bh_l1_write(dev, 0, GO_FLAG, &go, 4), BH_OK);
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, 60000, r), BH_OK, "brisc did not stop");
	cr_assert_eq(r->status, BH_RUN_EXITED, "brisc: status %d\n%s", r->status, r->report);
	uint32_t status = (uint32_t)r->exit_status;
	free(r);
	bh_device_close(dev);
	return status;
}

Test(lifecycle, stale_icache_is_one_cache_per_core_across_the_interpreters_variants)
{
	cr_expect_eq(call_after_wake(BH_PROVOKE_STALE_ICACHE, false), 1, "the woken core ran the rewritten function");
	cr_expect_eq(call_after_wake(BH_PROVOKE_STALE_ICACHE, true), 2, "its invalidate did not drop the old one");
	cr_expect_eq(call_after_wake(0, false), 2, "without the mode the write is seen at once");
}

/* ------------------------------------------------------------------------------- stress */

/* Every core of every tile sums i*i over its own range; entry stubs pick the parameter block.
 * params (per core, 16 bytes): start, count, result, running sum. */
struct stress_layout {
	uint32_t code, common, params;
	bool store_running_sum;   /* store the running sum every iteration (into params) */
	bool amo_counter;         /* amoadd 1 to params - 16 every iteration */
};

static void stress_put(struct bh_device *dev, unsigned tile, const struct stress_layout *l)
{
	for (unsigned c = 0; c < 5; c++) {
		struct prog s = { 0 };
		uint32_t at = l->code + 16 * c;
		emit_li(&s, A1, l->params + 16 * c);
		emit(&s, jal(X0, (int32_t)(l->common - (at + 8))));
		prog_put(dev, tile, at, &s);
	}
	struct prog p = { 0 };
	emit(&p, lw(T0, 0, A1));
	emit(&p, lw(T1, 4, A1));
	emit_li(&p, A3, l->params - 16);
	emit(&p, addi(A4, X0, 1));
	emit(&p, addi(A0, X0, 0));
	int32_t loop = prog_here(&p);
	emit(&p, mul(T2, T0, T0));
	emit(&p, add(A0, A0, T2));
	if (l->store_running_sum)
		emit(&p, sw(A0, 12, A1));
	if (l->amo_counter)
		emit(&p, amo(0, X0, A4, A3, 0));         /* amoadd.w x0, a4, (a3) */
	emit(&p, addi(T0, T0, 1));
	emit(&p, addi(T1, T1, -1));
	emit_branch(&p, BNE, T1, X0, loop);
	emit(&p, sw(A0, 8, A1));
	emit_exit(&p);
	prog_put(dev, tile, l->common, &p);
}

static void stress_run(unsigned ntiles, const struct stress_layout *l, uint32_t count_base)
{
	struct bh_device *dev = open_tiles(ntiles);
	for (unsigned t = 0; t < ntiles; t++) {
		stress_put(dev, t, l);
		for (unsigned c = 0; c < 5; c++) {
			uint32_t prm[4] = { (t * 5 + c) * 1000003u, count_base + t * 5 + c, 0, 0 };
			cr_assert_eq(bh_l1_write(dev, t, l->params + 16 * c, prm, sizeof prm), BH_OK);
		}
	}
	for (unsigned t = 0; t < ntiles; t++)
		for (unsigned c = 0; c < 5; c++)
			cr_assert_eq(bh_core_start(dev, t, all_cores[c], l->code + 16 * c), BH_OK);
	for (unsigned t = 0; t < ntiles; t++) {
		for (unsigned c = 0; c < 5; c++) {
			struct bh_core_result *r = result_new();
			cr_assert_eq(bh_core_wait(dev, t, all_cores[c], 120000, r), BH_OK);
			cr_assert_eq(r->status, BH_RUN_EXITED, "tile %u %s: %d\n%s", t, bh_core_name(all_cores[c]),
				     r->status, r->report);
			free(r);
			uint32_t start = (t * 5 + c) * 1000003u, n = count_base + t * 5 + c, want = 0, got[4];
			for (uint32_t k = 0; k < n; k++)
				want += (start + k) * (start + k);
			cr_assert_eq(bh_l1_read(dev, t, l->params + 16 * c, got, sizeof got), BH_OK);
			cr_expect_eq(got[2], want, "tile %u %s: sum 0x%08x, expected 0x%08x", t,
				     bh_core_name(all_cores[c]), got[2], want);
			if (l->store_running_sum)
				cr_expect_eq(got[3], want);
		}
		if (l->amo_counter) {
			uint32_t cnt = 0, want = 0;
			for (unsigned c = 0; c < 5; c++)
				want += count_base + t * 5 + c;
			cr_assert_eq(bh_l1_read(dev, t, l->params - 16, &cnt, 4), BH_OK);
			cr_expect_eq(cnt, want, "tile %u: amoadd counter %u, expected %u", t, cnt, want);
		}
	}
	bh_device_close(dev);
}

Test(lifecycle_stress, twenty_cores_on_four_tiles_compute_independent_sums, .timeout = 240)
{
	const struct stress_layout l = { .code = 0x1000, .common = 0x1100, .params = 0x10000 };
	stress_run(4, &l, 200000);
}

/* The same with code, parameters and an amoadd counter in one 4 KiB page: every store and AMO
 * hits a page other cores execute from, so decoded code is dropped all the time. */
Test(lifecycle_stress, cores_storing_into_the_page_they_all_execute, .timeout = 240)
{
	const struct stress_layout l = { .code = 0x1000, .common = 0x1100, .params = 0x1800,
					 .store_running_sum = true, .amo_counter = true };
	stress_run(2, &l, 3000);
}
