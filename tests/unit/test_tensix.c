/* The Tensix coprocessor control plane (tensix.md, sync.md 5-8): the opcode table, MOP expansion
 * order (both templates and the OuterCount quirk), pushes by store and .ttinsn, semaphores and
 * SEMWAIT blocking the Tensix thread (not the core), the Wait Gate's block classes, FIFO
 * back-pressure, replay, GPRs, STOREREG into stream registers with the CB checks, mutex
 * hand-over, faults of Tensix instructions, deadlock reports, and a semaphore token ring over
 * the three threads. Meant to be clean under TSan. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/tensix.h"
#include "fabric/mmio.h"
#include "host/device.h"
#include "sync/pcbuf.h"
#include "sync/streams.h"
#include "sync/tensix_sem.h"
#include "tensix_testlib.h"
#include "testlib.h"

/* a0 = value of semaphore k (TRISC view). */
static void emit_read_sem(struct prog *p, uint32_t k) { emit_load_word(p, A0, SEM(k)); }

/* ------------------------------------------------------------------------------ opcode table */

Test(tensix_decode, table_holds_every_blackhole_opcode_by_number)
{
	unsigned n = 0;
	for (unsigned op = 0; op < 256; op++)
		n += tt_opinfo(op) != NULL;
	cr_expect_eq(n, 137);
	cr_expect_str_eq(tt_opinfo(0x02)->name, "NOP");
	cr_expect_str_eq(tt_opinfo(0x04)->name, "REPLAY");
	cr_expect_str_eq(tt_opinfo(0xA2)->name, "STALLWAIT");
	cr_expect_str_eq(tt_opinfo(0xB0)->name, "WRCFG");
	cr_expect_str_eq(tt_opinfo(0x67)->name, "STOREREG");
	cr_expect_null(tt_opinfo(0x00));
	cr_expect_eq(tt_opinfo(0x1D)->plane, TT_P_DATA);
	cr_expect_eq(tt_opinfo(0x1D)->exec, TT_E_N);   /* SETPKEDGOF */
}

Test(tensix_decode, reserved_bits_and_unknown_opcodes_do_not_decode)
{
	char why[160];
	cr_expect(tt_decode_check(0xA3100008, why, sizeof why));
	cr_expect_not(tt_decode_check(0xA3100009, why, sizeof why));
	cr_expect(strstr(why, "reserved bits 0x000001 of SEMINIT") != NULL, "%s", why);
	cr_expect_not(tt_decode_check(0x00000000, why, sizeof why));
	cr_expect(strstr(why, "opcode 0x00 is not a Blackhole Tensix instruction") != NULL, "%s", why);
	static const uint32_t boot[] = { 0x10180000, 0x8A00300A, 0x02000000, 0x7100BF80, 0x910000B0,
					 0xA3100008, 0xA3100010, 0xA3100200 };
	for (size_t k = 0; k < N(boot); k++)
		cr_expect(tt_decode_check(boot[k], why, sizeof why), "boot word 0x%08x: %s", boot[k], why);
}

Test(tensix_decode, disassembly_names_the_fields)
{
	char b[128];
	tt_disasm(0xA3100200, b, sizeof b);
	cr_expect_str_eq(b, "SEMINIT sem_sel=0x80 init_value=0x0 max_value=0x1");
	tt_disasm(0x67112008, b, sizeof b);
	cr_expect_str_eq(b, "STOREREG reg_addr=0x12008 data_reg=0x4");
	tt_disasm(0x05000001, b, sizeof b);
	cr_expect_str_eq(b, "RESOURCEDECL 0x000001");
}

/* ------------------------------------------------------------------------------ MOP expander */

struct seq {
	unsigned n;
	uint32_t w[512];
};

static bool collect(void *ctx, uint32_t w)
{
	struct seq *s = ctx;
	if (s->n < N(s->w))
		s->w[s->n] = w;
	s->n++;
	return true;
}

enum { A0W = 0xA4000004, A1W = 0xA4000008, A2W = 0xA4000010, A3W = 0xA4000020, BW = 0xA4000040,
       S0W = 0xA4000080, SBW = 0xA4000100 };

Test(tensix_mop, template0_emits_a0_a1_a2_a3_b_or_skip_a0_skip_b_per_mask_bit)
{
	const uint32_t cfg[9] = { 0, 3 /* HasB | HasA123 */, BW, A0W, A1W, A2W, A3W, S0W, SBW };
	struct seq s = { 0 };
	tt_mop_expand(cfg, MOP(0, 2, 0x2), 0, collect, &s);
	const uint32_t want[] = { A0W, A1W, A2W, A3W, BW, S0W, SBW, A0W, A1W, A2W, A3W, BW };
	cr_assert_eq(s.n, N(want));
	cr_expect_arr_eq(s.w, want, sizeof want);
}

Test(tensix_mop, template0_mask_hi_from_mop_cfg_covers_iterations_16_to_31)
{
	const uint32_t cfg[9] = { 0, 0, BW, A0W, A1W, A2W, A3W, S0W, SBW };
	struct seq s = { 0 };
	tt_mop_expand(cfg, MOP(0, 17, 0), 0x1, collect, &s);   /* k = 16 skipped */
	cr_assert_eq(s.n, 18);
	for (unsigned k = 0; k < 18; k++)
		cr_expect_eq(s.w[k], k == 16 ? (uint32_t)S0W : (uint32_t)A0W, "k = %u", k);
}

Test(tensix_mop, template1_double_loop_with_last_iterations)
{
	/* outer 2, inner 3: start, loop, loop, last1, end0 / start, loop, loop, last0, end0 */
	const uint32_t cfg[9] = { 2, 3, S0W, A1W, TT_NOP, A0W, TT_NOP, BW, SBW };
	struct seq s = { 0 };
	tt_mop_expand(cfg, MOP(1, 0, 0), 0, collect, &s);
	const uint32_t want[] = { S0W, A0W, A0W, SBW, A1W, S0W, A0W, A0W, BW, A1W };
	cr_assert_eq(s.n, N(want));
	cr_expect_arr_eq(s.w, want, sizeof want);
}

Test(tensix_mop, template1_loop_op1_alternates_and_doubles_the_inner_count)
{
	const uint32_t cfg[9] = { 1, 2, TT_NOP, TT_NOP, TT_NOP, A0W, A2W, BW, SBW };
	struct seq s = { 0 };
	tt_mop_expand(cfg, MOP(1, 0, 0), 0, collect, &s);
	const uint32_t want[] = { A0W, A2W, A0W, BW };
	cr_assert_eq(s.n, N(want));
	cr_expect_arr_eq(s.w, want, sizeof want);
}

Test(tensix_mop, template1_hardware_bug_turns_outer_count_1_into_129)
{
	const uint32_t cfg[9] = { 1, 0, TT_NOP, A1W, TT_NOP, A0W, TT_NOP, BW, SBW };
	struct seq s = { 0 };
	tt_mop_expand(cfg, MOP(1, 0, 0), 0, collect, &s);
	cr_expect_eq(s.n, 129);
	cr_expect_eq(s.w[128], (uint32_t)A1W);
	const uint32_t cfg2[9] = { 1, 0, S0W, A1W, TT_NOP, A0W, TT_NOP, BW, SBW };   /* StartOp set: no bug */
	struct seq s2 = { 0 };
	tt_mop_expand(cfg2, MOP(1, 0, 0), 0, collect, &s2);
	cr_expect_eq(s2.n, 2);
}

/* ---------------------------------------------------------------------- pushes and semaphores */

/* BRISC pushes the p100a boot words into thread 0: semaphores 1, 2, 7 get Value 0 Max 1. */
Test(tensix, brisc_boot_pushes_initialise_semaphores_1_2_7)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	bh_sem_init(tile0(dev), 0xFF, 5, 3);
	struct prog b = { 0 };
	static const uint32_t boot[] = { 0x10180000, 0x8A00300A, 0x02000000, 0x7100BF80, 0x910000B0,
					 0xA3100008, 0xA3100010, 0xA3100200 };
	for (size_t k = 0; k < N(boot); k++)
		emit_push(&b, boot[k]);
	emit_exit_with(&b, 0);
	cr_assert_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	wait_sem(dev, 7, 0);
	for (unsigned k = 0; k < 8; k++) {
		bool init = k == 1 || k == 2 || k == 7;
		cr_expect_eq(bh_sem_value(tile0(dev), k), init ? 0u : 3u, "sem %u value", k);
		cr_expect_eq(bh_sem_max(tile0(dev), k), init ? 1u : 5u, "sem %u max", k);
	}
	bh_device_close(dev);
}

/* .ttinsn on TRISC1 pushes rotr(word, 2) into thread 1; tensix_sync waits for it. */
Test(tensix, ttinsn_pushes_into_the_fetching_triscs_thread)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 };
	emit(&t, ttinsn(SEMINIT(1u << 3, 5, 2)));
	emit(&t, ttinsn(SEMPOST(1u << 3)));
	emit_tensix_sync(&t);
	emit_read_sem(&t, 3);
	emit_exit(&t);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &t), 3);
	cr_expect_eq(bh_sem_max(tile0(dev), 3), 5);
	bh_device_close(dev);
}

/* SEMWAIT holds the Tensix thread; the TRISC that pushed it runs on (it stores PROGRESS) until
 * its TTSync, which waits; a SEMPOST from another TRISC (semaphore window) releases both. */
Test(tensix, semwait_blocks_the_tensix_thread_not_the_pushing_trisc)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 };
	emit_push(&t, SEMINIT(0x30, 15, 0));
	emit_push(&t, SEMWAIT(0x2, 1u << 4, 1));   /* block sync instructions while sem 4 == 0 */
	emit_push(&t, SEMPOST(1u << 5));
	emit_store_word(&t, PROGRESS, 1);
	emit_tensix_sync(&t);
	emit_exit_with(&t, 1);
	start_core(dev, BH_CORE_TRISC0, &t);
	wait_l1(dev, PROGRESS, 1);
	wait_report_has(dev, "tensix0: waits at the Wait Gate with SEMPOST");
	wait_report_has(dev, "SEMWAIT until semaphore 4 is non-zero");
	wait_blocked(dev, BH_CORE_TRISC0, "TTSync CoprocessorDoneCheck (trisc0): Tensix thread 0 busy");
	expect_stays_parked(dev, BH_CORE_TRISC0);
	cr_expect_eq(bh_sem_value(tile0(dev), 5), 0);

	run_store_word(dev, BH_CORE_TRISC1, SEM(4), 0);   /* SEMPOST 4 through the window */
	expect_exit(dev, 0, BH_CORE_TRISC0, 1);
	cr_expect_eq(bh_sem_value(tile0(dev), 5), 1);
	bh_device_close(dev);
}

/* A SEMWAIT on two semaphores holds while either is zero: a post to the first leaves it held by
 * the second (the report names that one), a post to the second releases it. A SEMWAIT on the max
 * holds through changes of other semaphores and is released by a get. (Executors are woken only
 * by changes that release them or change what holds them: each step here needs its wake.) */
Test(tensix, semwait_wakes_when_a_change_releases_it_or_changes_what_holds_it)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	bh_sem_init(t, 0x70, 15, 0);
	bh_sem_init(t, 1u << 7, 1, 1);
	struct prog p = { 0 };
	emit_push(&p, SEMWAIT(0x2, 1u << 4 | 1u << 5, 1));   /* sync class while sem 4 or 5 is zero */
	emit_push(&p, SEMPOST(1u << 6));
	emit_push(&p, SEMWAIT(0x2, 1u << 7, 2));              /* ... while sem 7 is at its max */
	emit_push(&p, SEMPOST(1u << 6));
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &p), 0);
	wait_report_has(dev, "SEMWAIT until semaphore 4 is non-zero (value 0, max 15)");
	bh_sem_post(t, 1u << 4);
	wait_report_has(dev, "SEMWAIT until semaphore 5 is non-zero (value 0, max 15)");
	cr_expect_eq(bh_sem_value(t, 6), 0, "still held by semaphore 5");
	bh_sem_post(t, 1u << 5);
	wait_sem(dev, 6, 1);
	wait_report_has(dev, "SEMWAIT until semaphore 7 is below its max (value 1, max 1)");
	bh_sem_post(t, 1u << 4);   /* another semaphore: it stays held */
	bh_sem_get(t, 1u << 5);
	cr_expect_eq(bh_sem_value(t, 6), 1);
	bh_sem_get(t, 1u << 7);
	wait_sem(dev, 6, 2);
	bh_device_close(dev);
}

/* The latched wait holds only the selected classes: a SEMPOST (sync) passes a SEMWAIT that
 * blocks the matrix unit, until a blocked instruction arrives: then everything waits. */
Test(tensix, wait_gate_holds_only_blocked_classes_and_then_everything_behind)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	bh_sem_init(t, 0xF0, 15, 0);
	struct prog p = { 0 };
	emit_push(&p, SEMWAIT(0, 1u << 4, 1));    /* block mask 0 = B6 (matrix) */
	emit_push(&p, SEMPOST(1u << 5));          /* sync unit: passes */
	emit_push(&p, ZEROACC);                   /* matrix: held */
	emit_push(&p, SEMPOST(1u << 6));          /* behind it: held too */
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &p), 0);
	wait_sem(dev, 5, 1);
	wait_report_has(dev, "tensix2: waits at the Wait Gate with ZEROACC");
	cr_expect_eq(bh_sem_value(t, 6), 0);
	bh_sem_post(t, 1u << 4);
	wait_sem(dev, 6, 1);
	bh_device_close(dev);
}

/* The FIFO accepts a push while it holds at most 28: with the thread held at the gate (the
 * TRISC fills the FIFO only once it is, so no slot frees while it fills), the TRISC stalls
 * (parked) on its 30th SEMPOST after the one at the gate (29 queued). */
Test(tensix, full_fifo_stalls_the_pushing_trisc_until_the_thread_drains)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	struct bh_tile *t = tile0(dev);
	bh_sem_init(t, 0xFF, 15, 0);
	struct prog p = { 0 };
	emit_push(&p, SEMWAIT(0x2, 1u << 4, 1));
	emit_push(&p, SEMPOST(1u << 5));
	emit_wait_nonzero(&p, GATE, A3);
	emit_li(&p, S0, PUSH);
	emit_li(&p, S1, PROGRESS);
	emit_li(&p, A1, SEMPOST(1u << 5));
	emit_li(&p, A2, 0);
	emit_li(&p, A3, 39);
	int32_t loop = prog_here(&p);
	emit(&p, sw(A1, 0, S0));
	emit(&p, addi(A2, A2, 1));
	emit(&p, sw(A2, 0, S1));
	emit_branch(&p, BNE, A2, A3, loop);
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC0, &p);
	wait_report_has(dev, "tensix0: waits at the Wait Gate with SEMPOST");
	set_l1(dev, GATE, 1);
	wait_l1(dev, PROGRESS, 29);   /* past its poll of GATE: the sleep seen next is the push's */
	wait_blocked(dev, BH_CORE_TRISC0, "Tensix thread 0 push (trisc0): instruction FIFO full (29 queued)");
	expect_stays_parked(dev, BH_CORE_TRISC0);
	cr_expect_eq(l1_get(dev, PROGRESS), 29);
	bh_sem_post(t, 1u << 4);
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	cr_expect_eq(l1_get(dev, PROGRESS), 39);
	cr_expect_eq(bh_sem_value(t, 5), 15, "SEMPOST saturates at 15");
	bh_device_close(dev);
}

/* MopCfg through 0xFFB80000, MOP through the thread: template 0 with mask 0b00101 over 5
 * iterations emits skip, A0, skip, A0, A0. mop_sync (+8) then tensix_sync (+4). */
Test(tensix, mop_from_a_trisc_expands_through_its_thread)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	const uint32_t cfg[9] = { 0, 0, TT_NOP, SEMPOST(1), TT_NOP, TT_NOP, TT_NOP, SEMPOST(2), TT_NOP };
	emit_push(&p, SEMINIT(3, 15, 0));
	for (unsigned k = 0; k < 9; k++)
		emit_store_word(&p, MOP_CFG + 4 * k, cfg[k]);
	emit_push(&p, MOP(0, 4, 0x5));
	emit_li(&p, T0, PCBUF0);
	emit(&p, sw(X0, 8, T0));
	emit(&p, lw(A0, 8, T0));
	emit(&p, addi(A0, A0, 0));   /* use the result before the next TTSync load (ttsync-load) */
	emit_tensix_sync(&p);
	emit_read_sem(&p, 0);
	emit_load_word(&p, A1, SEM(1));
	emit_pack(&p, A1);
	emit_exit(&p);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 3u << 8 | 2u);
	bh_device_close(dev);
}

/* REPLAY load records without executing (exec = 0) or while executing (exec = 1); play emits. */
Test(tensix, replay_records_and_plays_back)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(3, 15, 0));
	emit_push(&p, REPLAY(30, 3, 0, 1));       /* slots 30, 31, 0 (wraps) */
	emit_push(&p, SEMPOST(1));
	emit_push(&p, SEMPOST(2));
	emit_push(&p, SEMPOST(1));
	emit_push(&p, REPLAY(30, 3, 0, 0));
	emit_push(&p, REPLAY(31, 2, 0, 0));       /* SEMPOST 2, SEMPOST 1 */
	emit_tensix_sync(&p);
	emit_read_sem(&p, 0);
	emit_load_word(&p, A1, SEM(1));
	emit_pack(&p, A1);
	emit_exit(&p);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &p), 3u << 8 | 2u);

	struct prog q = { 0 };
	emit_push(&q, SEMINIT(3, 15, 0));
	emit_push(&q, REPLAY(5, 1, 1, 1));        /* record and execute */
	emit_push(&q, SEMPOST(1));
	emit_push(&q, REPLAY(5, 1, 0, 0));
	emit_tensix_sync(&q);
	emit_read_sem(&q, 0);
	emit_exit(&q);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &q), 2);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------ GPRs and STOREREG */

Test(tensix, dmareg_arithmetic_lands_in_gprs_seen_by_riscv)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_push(&p, SETDMAREG(2, 0x1234));                  /* GPR 1 low half */
	emit_push(&p, SETDMAREG(3, 0x0002));                  /* GPR 1 high half */
	emit_push(&p, DMAOP(0x58, 1, 5, 2, 1));               /* GPR 2 = GPR 1 + 5 */
	emit_push(&p, DMAOP(0x5A, 1, 2, 3, 0));               /* GPR 3 = lo(GPR 1) * lo(GPR 2) */
	emit_push(&p, DMAOP(0x59, 2, 1, 4, 0));               /* GPR 4 = GPR 2 - GPR 1 */
	emit_tensix_sync(&p);
	for (unsigned r = 1; r <= 4; r++) {
		emit_load_word(&p, A1, GPR + 4 * r);
		emit_store_word(&p, OUT + 4 * r, 0);
		emit_li(&p, T0, OUT + 4 * r);
		emit(&p, sw(A1, 0, T0));
	}
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &p), 0);
	cr_expect_eq(l1_get(dev, OUT + 4), 0x00021234u);
	cr_expect_eq(l1_get(dev, OUT + 8), 0x00021239u);
	cr_expect_eq(l1_get(dev, OUT + 12), 0x1234u * 0x1239u);
	cr_expect_eq(l1_get(dev, OUT + 16), 5u);

	struct prog b = { 0 };                                 /* BRISC sees thread 1 at +0x100 */
	emit_load_word(&b, A0, GPR + 0x100 + 8);
	emit_exit(&b);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0x00021239u);
	bh_device_close(dev);
}

/* TRISC2's llk_push_tiles traffic: SETDMAREG GPR 24, STALLWAIT 32,8, STOREREG GPR 24 -> stream
 * reg 10 of CB 16 (0x6761600A, sync.md 2.2): the count lands in the stream register. */
Test(tensix, storereg_publishes_a_cb_counter_into_the_stream_register)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_push(&p, SETDMAREG(48, 3));
	emit(&p, ttinsn(STALLWAIT(32, 8)));
	emit_push(&p, 0x6761600Au);
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &p), 0);
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, 0xFFB58028, &v), BH_OK);
	cr_expect_eq(v, 3);
	bh_device_close(dev);
}

/* A STOREREG pop past what was received breaks the CB protocol: the check sees it, and the
 * TRISC that pushed the STOREREG faults at that push with the Tensix thread named. */
Test(tensix, storereg_pop_beyond_received_is_a_cb_protocol_fault_of_the_pushing_trisc)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	emit_push(&p, SETDMAREG(8, 3));
	uint32_t pc = emit_push_at(&p, BH_CORE_TRISC0, 0x67112008u);   /* STOREREG GPR 4 -> CB 0 tiles_acked */
	emit_tensix_sync(&p);                                 /* parked here when the fault arrives */
	emit_exit_with(&p, 0);
	run_prog(dev, BH_CORE_TRISC0, core_code_at[BH_CORE_TRISC0], &p, r);
	expect_fault(r, BH_CORE_TRISC0, pc, "CB protocol violation", "pop of 3 pages from CB 0 but only 0 were received");
	expect_in_report(r, "Tensix thread 0, instruction 0x67112008 STOREREG");
	expect_in_report(r, "pushed by trisc0");
	uint32_t v = 1;
	cr_assert_eq(bh_reg_read(dev, 0, 0xFFB48020, &v), BH_OK);
	cr_expect_eq(v, 0, "a faulting STOREREG changes nothing");
	free(r);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------ faults */

/* `core` pushes a template-0 MOP whose InsnA0 is insn, then waits in tensix_sync; returns the
 * push's pc. */
static uint32_t run_mop_emitting(struct bh_device *dev, enum bh_core_id core, uint32_t insn, struct bh_core_result *r)
{
	struct prog p = { 0 };
	emit_store_word(&p, MOP_CFG + 12, insn);
	uint32_t pc = emit_push_at(&p, core, MOP(0, 0, 0));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	run_prog(dev, core, core_code_at[core], &p, r);
	return pc;
}

Test(tensix, data_plane_instruction_from_a_mop_faults_at_execution_naming_it)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	uint32_t pc = run_mop_emitting(dev, BH_CORE_TRISC1, 0x1D000000u, r);   /* SETPKEDGOF */
	expect_fault(r, BH_CORE_TRISC1, pc, "not modelled", "data-plane instruction SETPKEDGOF is not modelled yet");
	expect_in_report(r, "Tensix thread 1, instruction 0x1d000000 SETPKEDGOF");
	wait_report_has(dev, "tensix1: stopped by a fault");
	free(r);
	bh_device_close(dev);
}

/* A MOP template word that is no Blackhole instruction (opcode 0x00, as in never-written MopCfg)
 * or has a reserved bit set faults by name when the expander emits it, with the MOP named as
 * its source. */
Test(tensix, unknown_or_reserved_word_from_a_mop_faults_naming_the_mop)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	uint32_t pc = run_mop_emitting(dev, BH_CORE_TRISC0, 0x00000000u, r);
	expect_fault(r, BH_CORE_TRISC0, pc, "illegal instruction", "opcode 0x00 is not a Blackhole Tensix instruction");
	expect_in_report(r, "Tensix thread 0, instruction 0x00000000");
	expect_in_report(r, "emitted by MOP 0x01000000");
	expect_in_report(r, "pushed by trisc0");
	free(r);
	bh_device_close(dev);

	dev = t_open();
	r = result_new();
	pc = run_mop_emitting(dev, BH_CORE_TRISC2, 0xA3100009u, r);   /* SEMINIT with reserved bit 0 */
	expect_fault(r, BH_CORE_TRISC2, pc, "illegal instruction", "reserved bits 0x000001 of SEMINIT are set");
	expect_in_report(r, "emitted by MOP 0x01000000");
	free(r);
	bh_device_close(dev);
}

/* Issue 12, defect 1: BRISC plays replay slot 0 of thread 0, which nothing recorded
 * (li t0,0xFFE40000; li t1,0x04000010; sw t1,0(t0)). The reference does not say what silicon
 * plays from such a slot, so it is a named fault of the push, not a crash of the host. */
Test(tensix, replay_of_a_slot_never_recorded_faults_naming_the_slot)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog b = { 0 };
	uint32_t pc = emit_push_at(&b, BH_CORE_BRISC, REPLAY(0, 1, 0, 0));
	cr_assert_eq(REPLAY(0, 1, 0, 0), 0x04000010u);
	emit(&b, INSN_SELF_LOOP);   /* the fault stops the core here */
	run_prog(dev, BH_CORE_BRISC, core_code_at[BH_CORE_BRISC], &b, r);
	expect_fault(r, BH_CORE_BRISC, pc, "illegal instruction", "replay slot 0 of Tensix thread 0 was never recorded");
	expect_in_report(r, "Tensix thread 0, instruction 0x04000010 REPLAY");
	expect_in_report(r, "pushed by brisc");
	wait_report_has(dev, "tensix0: stopped by a fault");
	free(r);
	bh_device_close(dev);
}

/* Slots 3 and 4 recorded, 5 not: a play of 3..5 executes the two recorded SEMPOSTs, then faults
 * at slot 5 naming it. */
Test(tensix, replay_past_the_recorded_slots_runs_them_then_faults_at_the_first_unrecorded)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(3, 15, 0));
	emit_push(&p, REPLAY(3, 2, 0, 1));
	emit_push(&p, SEMPOST(1));
	emit_push(&p, SEMPOST(2));
	uint32_t pc = emit_push_at(&p, BH_CORE_TRISC1, REPLAY(3, 3, 0, 0));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	run_prog(dev, BH_CORE_TRISC1, core_code_at[BH_CORE_TRISC1], &p, r);
	expect_fault(r, BH_CORE_TRISC1, pc, "illegal instruction", "replay slot 5 of Tensix thread 1 was never recorded");
	expect_in_report(r, "pushed by trisc1");
	cr_expect_eq(bh_sem_value(tile0(dev), 0), 1);
	cr_expect_eq(bh_sem_value(tile0(dev), 1), 1);
	free(r);
	bh_device_close(dev);
}

/* A replayed instruction that faults when it executes names the slot it was played from. */
Test(tensix, fault_of_a_replayed_instruction_names_its_replay_slot)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	emit_push(&p, REPLAY(7, 1, 0, 1));
	emit_push(&p, ATGETM(1));                  /* decodes, but mutex 1 does not exist */
	uint32_t pc = emit_push_at(&p, BH_CORE_TRISC2, REPLAY(7, 1, 0, 0));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	run_prog(dev, BH_CORE_TRISC2, core_code_at[BH_CORE_TRISC2], &p, r);
	expect_fault(r, BH_CORE_TRISC2, pc, "bad register value", "mutex 1 does not exist");
	expect_in_report(r, "Tensix thread 2, instruction 0xa0000001 ATGETM");
	expect_in_report(r, "(from replay slot 7, pushed by trisc2): mutex 1 does not exist");
	free(r);
	bh_device_close(dev);
}

/* The pushing TRISC goes on pushing after an instruction that faults when it executes: deferred,
 * its 29th queued word makes it execute the FIFO inside that push; threaded, the executor (kept
 * busy by 1000 NOPs before) faults while the TRISC pushes. Either way the report is the faulting
 * instruction's (its name, why, the pc of its push), not the later push's "thread stopped at an
 * earlier fault". Returns the faulting push's pc. */
static uint32_t run_fault_then_keep_pushing(struct bh_device *dev, enum bh_core_id core, uint32_t mop_insn,
					    uint32_t insn, struct bh_core_result *r)
{
	struct prog p = { 0 };
	if (mop_insn)
		emit_store_word(&p, MOP_CFG + 12, mop_insn);
	emit_li(&p, T0, PUSH);
	emit_li(&p, T1, TT_NOP);
	emit_li(&p, T2, 1000);
	int32_t warm = prog_here(&p);
	emit(&p, sw(T1, 0, T0));
	emit(&p, addi(T2, T2, -1));
	emit_branch(&p, BNE, T2, X0, warm);
	uint32_t pc = emit_push_at(&p, core, insn);
	emit_li(&p, T1, TT_NOP);
	int32_t loop = prog_here(&p);
	emit(&p, sw(T1, 0, T0));   /* t0 is still the push address */
	emit_j(&p, loop);
	run_prog(dev, core, core_code_at[core], &p, r);
	return pc;
}

static void expect_original_fault_first(const struct bh_core_result *r)
{
	cr_expect_null(strstr(r->report, "stopped at an earlier fault"),
		       "the report names the later push, not (only) the fault:\n%s", r->report);
}

Test(tensix, fault_then_more_pushes_reports_the_faulting_instruction)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	uint32_t pc = run_fault_then_keep_pushing(dev, BH_CORE_TRISC0, 0, ATGETM(1), r);
	expect_fault(r, BH_CORE_TRISC0, pc, "bad register value", "mutex 1 does not exist");
	expect_in_report(r, "Tensix thread 0, instruction 0xa0000001 ATGETM mutex_index=0x1 (pushed by trisc0): "
			    "mutex 1 does not exist");
	expect_original_fault_first(r);
	wait_report_has(dev, "tensix0: stopped by a fault: Tensix thread 0, instruction 0xa0000001 ATGETM");
	free(r);
	bh_device_close(dev);
}

/* The same under serial scheduling (Tensix threads always threaded): the executor's fault may
 * land at any scheduling point of the pushing TRISC, also between one push's stop check and the
 * next push. */
Test(tensix, fault_then_more_pushes_reports_the_faulting_instruction_at_every_interleaving)
{
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct bh_device *dev = t_open_cfg(&(struct bh_device_config){ .num_tiles = 1, .sched = BH_SCHED_SERIAL,
			.strategy = BH_STRATEGY_RANDOM, .switch_every = 1, .seed = seed });
		struct bh_core_result *r = result_new();
		uint32_t pc = run_fault_then_keep_pushing(dev, BH_CORE_TRISC0, 0, ATGETM(1), r);
		expect_fault(r, BH_CORE_TRISC0, pc, "bad register value", "mutex 1 does not exist");
		expect_original_fault_first(r);
		free(r);
		bh_device_close(dev);
	}
}

/* A word BRISC pushed stops thread 0; TRISC0's later push into it faults naming that earlier
 * fault (its kind, word, pusher and push pc), which is BRISC's report. */
Test(tensix, push_into_a_thread_another_cores_word_stopped_names_the_earlier_fault)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog b = { 0 };
	uint32_t bpc = emit_push_at(&b, BH_CORE_BRISC, ATGETM(1));
	emit(&b, INSN_SELF_LOOP);   /* the fault stops the core here */
	run_prog(dev, BH_CORE_BRISC, core_code_at[BH_CORE_BRISC], &b, r);
	expect_fault(r, BH_CORE_BRISC, bpc, "bad register value", "mutex 1 does not exist");
	struct prog p = { 0 };
	uint32_t pc = emit_push_at(&p, BH_CORE_TRISC0, TT_NOP);
	emit_exit_with(&p, 0);
	run_prog(dev, BH_CORE_TRISC0, core_code_at[BH_CORE_TRISC0], &p, r);
	char why[160];
	snprintf(why, sizeof why, "the thread stopped at an earlier fault (bad register value of 0xa0000001 pushed by "
		 "brisc at pc 0x%08x)", bpc);
	expect_fault(r, BH_CORE_TRISC0, pc, "not modelled", why);
	free(r);
	bh_device_close(dev);
}

Test(tensix, fault_from_a_mop_then_more_pushes_reports_the_faulting_instruction)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	uint32_t pc = run_fault_then_keep_pushing(dev, BH_CORE_TRISC1, 0x1D000000u, MOP(0, 0, 0), r);   /* SETPKEDGOF */
	expect_fault(r, BH_CORE_TRISC1, pc, "not modelled", "data-plane instruction SETPKEDGOF is not modelled yet");
	expect_in_report(r, "Tensix thread 1, instruction 0x1d000000 SETPKEDGOF (emitted by MOP 0x01000000");
	expect_original_fault_first(r);
	free(r);
	bh_device_close(dev);
}

Test(tensix, trisc_store_to_another_threads_aperture_faults)
{
	struct bh_device *dev = t_open();
	expect_access_faults(dev, BH_CORE_TRISC0, true, 0xFFE50000, "access not allowed",
			     "on silicon a TRISC store to thread 1's aperture hangs the core");
	bh_device_close(dev);
}

/* A core's store to the push windows (cores/core.c's push lane takes 4-byte ones past the general
 * decode): every store the decode refuses, or whose word the push refuses, faults with the
 * decode's own verdict, word for word: the kind and text bh_mmio_access gives for the same
 * access, at the store's pc. */
Test(tensix, push_stores_fault_with_the_decodes_verdict_word_for_word)
{
	static const struct { enum bh_core_id core; uint32_t width, addr, word; } cases[] = {
		{ BH_CORE_NCRISC, W_W, PUSH, TT_NOP },                /* no push path on NCRISC */
		{ BH_CORE_TRISC0, W_H, PUSH, TT_NOP },                /* 32-bit stores only */
		{ BH_CORE_TRISC1, W_B, PUSH + 1, TT_NOP },
		{ BH_CORE_TRISC0, W_W, PUSH + 2, TT_NOP },            /* misaligned */
		{ BH_CORE_TRISC1, W_W, PUSH + 0x20004, TT_NOP },      /* thread 2's window */
		{ BH_CORE_TRISC2, W_W, PUSH + 8, 0xA3100009 },        /* a reserved bit set */
		{ BH_CORE_BRISC, W_W, PUSH + 0x10004, MOP(0, 0, 0) }, /* BRISC's pushes skip the expander */
	};
	static const unsigned bytes[] = { [W_B] = 1, [W_H] = 2, [W_W] = 4 };
	for (size_t k = 0; k < N(cases); k++) {
		struct bh_device *dev = t_open();
		enum bh_core_id core = cases[k].core;
		uint32_t v = cases[k].word;
		char wait[128];
		struct bh_fault f = { 0 };
		cr_assert_eq(bh_mmio_access(tile0(dev), (unsigned)core, cases[k].addr, bytes[cases[k].width], true, &v, &f,
					    wait, sizeof wait), BH_ACC_FAULT, "case %zu", k);
		struct bh_core_result *r = result_new();
		struct prog p = { 0 };
		emit_li(&p, S0, cases[k].addr);
		emit_li(&p, T1, cases[k].word);
		uint32_t pc = core_code_at[core] + (uint32_t)prog_here(&p);
		emit(&p, store(cases[k].width, T1, 0, S0));
		emit_exit_with(&p, 0);
		run_prog(dev, core, core_code_at[core], &p, r);
		expect_fault(r, core, pc, bh_fault_kind_name(f.kind), f.detail);
		free(r);
		bh_device_close(dev);
	}
}

/* Any word of a push window pushes (not only its base): TRISC2 at +8 of its own, BRISC at +4 of
 * thread 1's. */
Test(tensix, a_store_anywhere_in_a_push_window_pushes)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 };
	emit_store_word(&b, PUSH + 0x10004, SEMINIT(1u << 3, 9, 4));
	emit_exit_with(&b, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	wait_sem(dev, 3, 4);
	struct prog t = { 0 };
	emit_store_word(&t, PUSH + 8, SEMINIT(1u << 5, 7, 6));
	emit_tensix_sync(&t);
	emit_exit_with(&t, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &t), 0);
	wait_sem(dev, 5, 6);
	cr_expect_eq(bh_sem_max(tile0(dev), 5), 7);
	bh_device_close(dev);
}

Test(tensix, brisc_pushes_into_threads_1_and_2_through_their_windows)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 };
	emit_store_word(&b, 0xFFE50000, SEMINIT(1u << 3, 9, 4));
	emit_store_word(&b, 0xFFE60000, SEMINIT(1u << 6, 8, 2));
	emit_exit_with(&b, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);
	wait_sem(dev, 3, 4);
	wait_sem(dev, 6, 2);
	cr_expect_eq(bh_sem_max(tile0(dev), 3), 9);
	bh_device_close(dev);
}

Test(tensix, brisc_mop_push_bypasses_the_expander_and_faults)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog b = { 0 };
	emit_push(&b, MOP(0, 0, 0));
	emit_exit_with(&b, 0);
	run_prog(dev, BH_CORE_BRISC, core_code_at[BH_CORE_BRISC], &b, r);
	expect_fault(r, BH_CORE_BRISC, core_code_at[BH_CORE_BRISC] + 16, "illegal instruction",
		     "MOP and MOP_CFG from brisc are never expanded");
	free(r);
	bh_device_close(dev);
}

Test(tensix, mutex_1_does_not_exist)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	uint32_t pc = core_code_at[BH_CORE_TRISC2] + (uint32_t)prog_here(&p) + 16;
	emit_push(&p, ATGETM(1));   /* li t0 (2), li t1 (2), sw: the sw is at +16 */
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	run_prog(dev, BH_CORE_TRISC2, core_code_at[BH_CORE_TRISC2], &p, r);
	expect_fault(r, BH_CORE_TRISC2, pc, "bad register value", "mutex 1 does not exist");
	free(r);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------- mutexes, deadlocks */

/* T0 holds mutex 2; T1 and T2 wait; T0 releases: (0 + 1) mod 3 = T1 wins, then T2. */
Test(tensix, mutex_release_hands_over_to_the_next_thread)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	bh_sem_init(t, 0xFF, 15, 0);
	struct prog p0 = { 0 }, p1 = { 0 }, p2 = { 0 };
	emit_push(&p0, ATGETM(2));
	emit_store_word(&p0, PROGRESS, 1);
	emit_wait_nonzero(&p0, GATE, A3);
	emit_push(&p0, ATRELM(2));
	emit_exit_with(&p0, 0);
	start_core(dev, BH_CORE_TRISC0, &p0);
	wait_l1(dev, PROGRESS, 1);   /* pushed; idle after that: ATGETM executed, T0 holds mutex 2 */
	wait_thread_idle(t, 0);
	emit_push(&p2, ATGETM(2));
	emit_push(&p2, SEMPOST(1u << 2));
	emit_push(&p2, ATRELM(2));
	emit_exit_with(&p2, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &p2), 0);
	wait_report_has(dev, "tensix2: waits at the Wait Gate with ATGETM");
	emit_push(&p1, ATGETM(2));
	emit_push(&p1, SEMPOST(1u << 1));
	emit_push(&p1, SEMWAIT(0x2, 1u << 3, 1));   /* holds T1 (and the mutex) until sem 3 */
	emit_push(&p1, ATRELM(2));
	emit_exit_with(&p1, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &p1), 0);
	wait_report_has(dev, "tensix1: waits at the Wait Gate with ATGETM");
	set_l1(dev, GATE, 1);
	wait_sem(dev, 1, 1);
	cr_expect_eq(bh_sem_value(t, 2), 0, "T2 must not get the mutex before T1 released it");
	bh_sem_post(t, 1u << 3);
	wait_sem(dev, 2, 1);
	bh_device_close(dev);
}

Test(tensix, semwait_forever_is_a_deadlock_and_the_report_names_the_thread)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 4, 1, 0));
	emit_push(&p, SEMWAIT(0x2, 1u << 4, 1));
	emit_push(&p, SEMPOST(1u << 4));
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC0, &p);
	const char *rep = wait_deadlock_report(dev);
	assert_has(rep, "trisc0: blocked");
	assert_has(rep, "TTSync CoprocessorDoneCheck");
	assert_has(rep, "tensix0: waits at the Wait Gate with SEMPOST sem_sel=0x10");
	assert_has(rep, "SEMWAIT until semaphore 4 is non-zero (value 0, max 1)");
	bh_device_close(dev);
}

/* TRISC i entering reset empties thread i's FIFO and abandons its wait: the thread is idle. */
Test(tensix, trisc_entering_reset_abandons_its_threads_work)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 4, 1, 0));
	emit_push(&p, SEMWAIT(0x2, 1u << 4, 1));
	emit_push(&p, SEMPOST(1u << 5));
	emit_push(&p, SEMPOST(1u << 5));
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &p), 0);
	wait_report_has(dev, "tensix1: waits at the Wait Gate");
	cr_expect_not(bh_pcbuf_tensix_thread_idle(t, 1));
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v | reset_bit(BH_CORE_TRISC1)), BH_OK);
	wait_thread_idle(t, 1);
	cr_expect(bh_pcbuf_tensix_thread_idle(t, 1));
	bh_sem_post(t, 1u << 4);
	sleep_ms(20);
	cr_expect_eq(bh_sem_value(t, 5), 0, "abandoned instructions must not run");
	bh_device_close(dev);
}

/* ----------------------------------------------- deferred execution (bh_device_config.tensix) */

static struct bh_device *t_open_tensix(enum bh_tensix_mode mode)
{
	return t_open_cfg(&(struct bh_device_config){ .num_tiles = 1, .tensix = mode });
}

/* Deferred: the pushes wait in the FIFO while the TRISC runs on; its next device access still
 * sees them pending, and its own thread executes them right after that access. */
Test(tensix_deferred, the_next_device_access_sees_the_pushes_pending_and_they_execute_after_it)
{
	struct bh_device *dev = t_open_tensix(BH_TENSIX_DEFERRED);
	struct prog p = { 0 };
	emit_push(&p, SETDMAREG(2, 0x1234));   /* GPR 1 low half */
	emit_push(&p, SETDMAREG(3, 0x0002));   /* GPR 1 high half */
	for (unsigned k = 0; k < 2; k++) {
		emit_load_word(&p, A1, GPR + 4);
		emit_li(&p, T0, OUT + 4 * k);
		emit(&p, sw(A1, 0, T0));
	}
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &p), 0);
	cr_expect_eq(l1_get(dev, OUT), 0, "the first read saw GPR 1 before the pushes");
	cr_expect_eq(l1_get(dev, OUT + 4), 0x00021234u, "the second read saw both done");
	bh_device_close(dev);
}

/* TRISC0 pushes SEMINIT and SEMPOST of semaphore 5 and loops (emit_loop) until the host sets
 * GATE, which the host does once the SEMPOST is done: without a device access in the loop. */
static void sempost_then_loop(void (*emit_loop)(struct prog *))
{
	struct bh_device *dev = t_open_tensix(BH_TENSIX_DEFERRED);
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 5, 15, 0));
	emit_push(&p, SEMPOST(1u << 5));
	emit_loop(&p);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC0, &p);
	wait_sem(dev, 5, 1);
	set_l1(dev, GATE, 1);
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	bh_device_close(dev);
}

static void emit_poll_gate(struct prog *p)
{
	emit_wait_nonzero(p, GATE, A2);
}

/* Its loop counts, so it is no poll. */
static void emit_count_until_gate(struct prog *p)
{
	emit_li(p, T0, GATE);
	int32_t loop = prog_here(p);
	emit(p, addi(A3, A3, 1));
	emit(p, lw(A2, 0, T0));
	emit_branch(p, BEQ, A2, X0, loop);
}

/* A TRISC that polls L1 (no device access) parks: its words execute before it sleeps. */
Test(tensix_deferred, a_trisc_polling_memory_executes_its_words_before_it_parks)
{
	sempost_then_loop(emit_poll_gate);
}

/* One that neither accesses a device nor parks executes them at the end of a quantum. */
Test(tensix_deferred, a_trisc_that_never_parks_executes_its_words_within_a_quantum)
{
	sempost_then_loop(emit_count_until_gate);
}

/* A word that would wait goes back to the FIFO for the executor, with everything behind it; the
 * TRISC runs on, and a later release lets the executor finish them in order. */
Test(tensix_deferred, a_word_that_would_wait_goes_to_the_executor_with_what_follows)
{
	struct bh_device *dev = t_open_tensix(BH_TENSIX_DEFERRED);
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 4 | 1u << 5, 1, 0));
	emit_push(&p, SEMWAIT(0x2, 1u << 4, 1));   /* sync instructions wait while sem 4 == 0 */
	emit_push(&p, SEMPOST(1u << 5));
	emit_push(&p, SETDMAREG(2, 0x77));
	emit_load_word(&p, A1, GPR + 4);           /* a device access: the TRISC executes what it can */
	emit_store_word(&p, PROGRESS, 1);
	emit_wait_nonzero(&p, GATE, A2);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_TRISC0, &p);
	wait_l1(dev, PROGRESS, 1);
	wait_report_has(dev, "tensix0: waits at the Wait Gate with SEMPOST");
	cr_expect_eq(bh_sem_value(tile0(dev), 5), 0);
	cr_expect_eq(atomic_load(&tile0(dev)->tensix->th[0].gpr[1]), 0, "the SETDMAREG behind it waits too");
	bh_sem_post(tile0(dev), 1u << 4);
	wait_sem(dev, 5, 1);
	wait_thread_idle(tile0(dev), 0);
	cr_expect_eq(atomic_load(&tile0(dev)->tensix->th[0].gpr[1]), 0x77u);
	set_l1(dev, GATE, 1);
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	bh_device_close(dev);
}

/* BRISC's pushes into idle threads (its boot SEMINITs) execute on BRISC's own thread before it
 * parks, as on silicon within cycles, so no kernel released later can run ahead of them; a word
 * that would wait (the SEMPOST behind a SEMWAIT's latch) goes to that thread's executor with what
 * follows, as a TRISC's does. */
Test(tensix_deferred, brisc_executes_its_pushes_into_idle_threads_before_it_parks)
{
	struct bh_device *dev = t_open_tensix(BH_TENSIX_DEFERRED);
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 5, 15, 3));                                  /* thread 0 */
	emit_store_word(&p, PUSH + 2 * BH_TT_PUSH_STRIDE, SEMINIT(1u << 4 | 1u << 6, 15, 0));
	emit_store_word(&p, PUSH + 2 * BH_TT_PUSH_STRIDE, SEMWAIT(0x2, 1u << 4, 1));
	emit_store_word(&p, PUSH + 2 * BH_TT_PUSH_STRIDE, SEMPOST(1u << 6));
	emit_store_word(&p, PROGRESS, 1);
	emit_wait_nonzero(&p, GATE, A2);
	emit_exit_with(&p, 0);
	start_core(dev, BH_CORE_BRISC, &p);
	wait_l1(dev, PROGRESS, 1);
	wait_sem(dev, 5, 3);
	wait_report_has(dev, "tensix2: waits at the Wait Gate with SEMPOST");
	struct bh_tensix_stats st;
	bh_device_tensix_stats(dev, &st);
	cr_expect_eq(st.by_trisc, 3, "the SEMINITs and the SEMWAIT (it latches) executed on BRISC's thread");
	cr_expect_eq(st.handovers, 1, "the SEMPOST held by the latch went to thread 2's executor");
	cr_expect_eq(bh_sem_value(tile0(dev), 6), 0);
	bh_sem_post(tile0(dev), 1u << 4);
	wait_sem(dev, 6, 1);
	wait_thread_idle(tile0(dev), 2);
	bh_device_tensix_stats(dev, &st);
	cr_expect_eq(st.by_trisc, 3);
	cr_expect_eq(st.by_executor, 1, "the executor ran the SEMPOST");
	set_l1(dev, GATE, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}

/* ------------------------------------------------------------- status registers and CSRs */

#define INSTRN_BUF_STATUS 0xFFB120A8u
#define CSR_QSTATUS 0xBC0u
#define CSR_BSTATUS 0xBC1u

/* Exit status = INSTRN_BUF_STATUS as `core` reads it. */
static uint32_t read_instrn_buf_status(struct bh_device *dev, enum bh_core_id core)
{
	struct prog p = { 0 };
	emit_load_word(&p, A0, INSTRN_BUF_STATUS);
	emit_exit(&p);
	return run_core(dev, core, &p);
}

/* Pushes SEMWAIT (sync class, while semaphore 4 is zero) and n SEMPOSTs; with `gate`, the pushes
 * after the first SEMPOST wait for L1[GATE] (set once the thread is held with that SEMPOST, so
 * no slot frees while the FIFO fills and a stalled push stays parked). */
static void emit_held_pushes(struct prog *p, unsigned n, bool gate)
{
	emit_push(p, SEMWAIT(0x2, 1u << 4, 1));
	emit_push(p, SEMPOST(1u << 5));
	if (gate)
		emit_wait_nonzero(p, GATE, A3);
	emit_li(p, S0, PUSH);
	emit_li(p, A1, SEMPOST(1u << 5));
	for (unsigned k = 1; k < n; k++)
		emit(p, sw(A1, 0, S0));
}

/* INSTRN_BUF_STATUS (tensix.md 2): bits 0-2 "FIFO of T0/T1/T2 not full", bits 4-6 "empty", from
 * the live FIFOs. Idle: 0x77. T2 held at the gate with 28 queued: not full (a push would be
 * accepted), not empty: 0x37. T0 stalled with 29 queued: full, not empty: 0x26. */
Test(tensix, instrn_buf_status_reports_each_threads_fifo_not_full_and_empty)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	struct bh_tile *t = tile0(dev);
	bh_sem_init(t, 0xFF, 15, 0);
	cr_expect_eq(read_instrn_buf_status(dev, BH_CORE_BRISC), 0x77u);

	struct prog p2 = { 0 };
	emit_held_pushes(&p2, 29, false);          /* 1 at the gate, 28 queued */
	emit_exit_with(&p2, 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &p2), 0);
	wait_report_has(dev, "tensix2: waits at the Wait Gate with SEMPOST");
	wait_report_has(dev, "pushed by trisc2 at pc 0x00005024; 28 more queued");
	cr_expect_eq(read_instrn_buf_status(dev, BH_CORE_TRISC1), 0x37u);

	struct prog p0 = { 0 };
	emit_held_pushes(&p0, 40, true);           /* stalls with 29 queued */
	emit_exit_with(&p0, 0);
	start_core(dev, BH_CORE_TRISC0, &p0);
	wait_report_has(dev, "tensix0: waits at the Wait Gate with SEMPOST");
	set_l1(dev, GATE, 1);
	uint32_t v = 1;
	for (int ms = 0; ms < T_STOP_MS && (v & 1); ms++) {   /* the host reads it too */
		cr_assert_eq(bh_reg_read(dev, 0, INSTRN_BUF_STATUS, &v), BH_OK);
		if (v & 1)
			sleep_ms(1);
	}
	cr_expect_eq(v, 0x26u);
	cr_expect_eq(read_instrn_buf_status(dev, BH_CORE_NCRISC), 0x26u);
	cr_expect_eq(read_instrn_buf_status(dev, BH_CORE_TRISC1), 0x26u);

	bh_sem_post(t, 1u << 4);                   /* releases both threads */
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	wait_thread_idle(t, 0);
	wait_thread_idle(t, 2);
	cr_expect_eq(read_instrn_buf_status(dev, BH_CORE_BRISC), 0x77u);
	bh_device_close(dev);
}

Test(tensix, instrn_buf_status_is_read_only)
{
	struct bh_device *dev = t_open();
	expect_access_faults(dev, BH_CORE_TRISC0, true, INSTRN_BUF_STATUS, "access not allowed",
			     "DBG_INSTRN_BUF_STATUS is read-only");
	bh_device_close(dev);
}

/* a0 = csr (read by `core`); exit with it. */
static void run_csr_read(struct bh_device *dev, enum bh_core_id core, uint32_t csr, struct bh_core_result *r,
			 uint32_t *pc)
{
	struct prog p = { 0 };
	*pc = core_code_at[core] + (uint32_t)prog_here(&p);
	emit(&p, csrr(A0, csr));
	emit_exit(&p);
	run_prog(dev, core, core_code_at[core], &p, r);
}

/* Nothing queued or executing: 0 on every core, for both CSRs (CSRs.md; sfpu_cc reads 0 in
 * bhemu), also right after work drained (tensix_sync on the reading TRISC, then the read). The
 * busy bits: test_tensix_scalar.c. */
Test(tensix, tt_cfg_qstatus_and_bstatus_read_0_when_every_thread_is_idle)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	uint32_t pc;
	for (unsigned core = BH_CORE_BRISC; core <= BH_CORE_TRISC2; core++) {
		for (uint32_t csr = CSR_QSTATUS; csr <= CSR_BSTATUS; csr++) {
			run_csr_read(dev, (enum bh_core_id)core, csr, r, &pc);
			cr_expect_eq(r->status, BH_RUN_EXITED, "core %u csr 0x%x: %s", core, csr, r->report);
			cr_expect_eq(r->exit_status, 0, "core %u csr 0x%x", core, csr);
		}
	}
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 3, 5, 2));
	emit_push(&p, SEMPOST(1u << 3));
	emit_tensix_sync(&p);
	emit(&p, csrr(A0, CSR_QSTATUS));
	emit(&p, csrr(A1, CSR_BSTATUS));
	emit(&p, or(A0, A0, A1));
	emit_exit(&p);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &p), 0);
	free(r);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------- random pushes */

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s ^ *s >> 15;
}

/* A random Tensix word: rarely any opcode or any from the table, mostly one that bhemu executes
 * with its reserved bits clear. Waits, ATGETM and the executed data-plane instructions (which
 * wait for SrcA/SrcB banks nobody hands over; tested in test_tensix_data) become NOPs, so that
 * no round waits for a semaphore or a bank nobody gives. */
static uint32_t random_tensix_word(uint32_t *s)
{
	uint32_t w = lcg(s);
	unsigned r = lcg(s) % 32;
	if (r) {
		unsigned op;
		do
			op = lcg(s) % 256;
		while (!tt_opinfo(op) || (r > 1 && tt_opinfo(op)->exec == TT_E_N));
		w = (uint32_t)op << 24 | (w & 0xFFFFFFu);
		if (r > 1 && tt_opinfo(op)->fields_known)
			w &= 0xFF000000u | tt_opinfo(op)->field_mask;
	}
	const struct tt_opinfo *oi = tt_opinfo(w >> 24);
	if (oi && (oi->unit == TT_U_WAIT || w >> 24 == 0xA0 || (oi->plane == TT_P_DATA && oi->exec == TT_E_Y)))
		w = TT_NOP;
	return w;
}

/* Random pushes, MopCfg words, MOPs and REPLAYs (small counts) into each TRISC's thread: every
 * round ends in an exit or in a fault whose report names the Tensix word that was wrong. (The
 * random MopCfg stores race the MOPs: mopcfg-busy is off, it is tested in test_checks.) */
Test(tensix, random_pushes_mops_and_replays_end_in_an_exit_or_a_named_fault)
{
	uint32_t seed = 12;
	struct bh_core_result *r = result_new();
	unsigned faulted = 0;
	for (unsigned round = 0; round < 48; round++) {
		struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
		enum bh_core_id core = (enum bh_core_id)(BH_CORE_TRISC0 + round % 3);
		struct prog p = { 0 };
		for (unsigned k = 0; k < BH_TT_MOP_CFG_WORDS; k++)
			emit_store_word(&p, MOP_CFG + 4 * k, k < 2 ? lcg(&seed) % 3 : TT_NOP);
		for (unsigned k = 0; k < 8; k++) {
			uint32_t w = random_tensix_word(&seed);
			switch (lcg(&seed) % 8) {
			case 0: emit_store_word(&p, MOP_CFG + 4 * (lcg(&seed) % 9), w); break;
			case 1: emit_push(&p, MOP(lcg(&seed) & 1, lcg(&seed) % 4, lcg(&seed) & 0xFFFF)); break;
			case 2: emit_push(&p, REPLAY(lcg(&seed) % 32, lcg(&seed) % 5, lcg(&seed) & 1, lcg(&seed) & 1)); break;
			case 3: emit_store_word(&p, GPR + 4 * (lcg(&seed) % 64), lcg(&seed)); break;
			default: emit_push(&p, w); break;
			}
		}
		emit_tensix_sync(&p);
		emit_exit_with(&p, 0);
		run_prog(dev, core, core_code_at[core], &p, r);
		cr_assert(r->status == BH_RUN_EXITED || r->status == BH_RUN_FAULTED, "round %u: status %d\n%s", round,
			  r->status, r->report);
		if (r->status == BH_RUN_FAULTED) {
			faulted++;
			cr_assert(strstr(r->report, "why: Tensix thread") || strstr(r->report, "why: push of 0x"),
				  "round %u: the fault does not name the Tensix word:\n%s", round, r->report);
		}
		bh_device_close(dev);
	}
	cr_expect(faulted > 0 && faulted < 48, "%u of 48 rounds faulted: the mix should give both outcomes", faulted);
	free(r);
}

/* ------------------------------------------------------------------------------- stress */

/* A token goes round the three threads through semaphores 0 -> 1 -> 2 -> 0. Holding it, a thread
 * does LOADREG / ADDDMAREG / STOREREG on one stream register (a non-atomic read-modify-write):
 * any broken hand-over loses increments. 3 x 1000 rounds. */
Test(tensix_stress, three_threads_hand_a_semaphore_token_around)
{
	enum { ROUNDS = 1000 };
	const uint32_t reg = 0xFFB40010u;   /* stream 0 reg 4 (REMOTE_SRC, plain 24 bits) */
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	bh_sem_init(t, 0x7, 15, 0);
	bh_sem_post(t, 1u << 0);
	for (unsigned i = 0; i < 3; i++) {
		struct prog p = { 0 };
		uint32_t gpr = 10 + i;
		emit_li(&p, S0, PUSH);
		emit_li(&p, A1, SEMWAIT(0x22, 1u << i, 1));
		emit_li(&p, A2, SEMGET(1u << i));
		emit_li(&p, A3, LOADREG(gpr, reg));
		emit_li(&p, A4, DMAOP(0x58, gpr, 1, gpr, 1));
		emit_li(&p, A5, STOREREG(gpr, reg));
		emit_li(&p, A6, SEMPOST(1u << ((i + 1) % 3)));
		emit_li(&p, S1, ROUNDS);
		int32_t loop = prog_here(&p);
		for (unsigned r = A1; r <= A6; r++)
			emit(&p, sw(r, 0, S0));
		emit(&p, addi(S1, S1, -1));
		emit_branch(&p, BNE, S1, X0, loop);
		emit_tensix_sync(&p);
		emit_exit_with(&p, 0);
		start_core(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &p);
	}
	for (unsigned i = 0; i < 3; i++)
		expect_exit(dev, 0, (enum bh_core_id)(BH_CORE_TRISC0 + i), 0);
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, reg, &v), BH_OK);
	cr_expect_eq(v, 3u * ROUNDS);
	cr_expect_eq(bh_sem_value(t, 0), 1, "the token is back at thread 0");
	bh_device_close(dev);
}

/* Thread i of the tile has stopped at a fault, and the state of the core that pushed into it,
 * both read under the locks the fault delivery holds (tile->lock, then tx->lock). */
static bool thread_faulted_core_state(struct bh_tile *t, unsigned i, enum bh_core_kind k, enum bh_core_state *st)
{
	pthread_mutex_lock(&t->lock);
	bh_lock(&t->tensix->lock);
	bool faulted = t->tensix->th[i].faulted;
	*st = t->core[k]->state;
	bh_unlock(&t->tensix->lock);
	pthread_mutex_unlock(&t->lock);
	return faulted;
}

/* The pushing TRISC exits right after pushing an instruction that faults when it executes, so
 * the exit races the fault's delivery. Whoever wins, a faulted thread is never next to a core
 * that looks clean: the core is still running (the fault is on its way) or FAULTED with the
 * Tensix report at the push's pc, never EXITED. 5000 rounds. */
Test(tensix_stress, fault_racing_the_pushing_cores_exit_is_never_lost)
{
	enum { ROUNDS = 5000 };
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	uint32_t pc = emit_push_at(&p, BH_CORE_TRISC0, ATGETM(1));
	emit_exit_with(&p, 0);
	unsigned exited_first = 0;
	for (unsigned n = 0; n < ROUNDS; n++) {
		start_core(dev, BH_CORE_TRISC0, &p);
		cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC0, T_STOP_MS, r), BH_OK, "round %u", n);
		exited_first += r->status == BH_RUN_EXITED;
		enum bh_core_state st = BH_CORE_RUNNING;
		int ms = 0;
		while (!thread_faulted_core_state(t, 0, BH_TRISC0, &st)) {
			cr_assert(st == BH_CORE_RUNNING || st == BH_CORE_EXITED, "round %u: state %d before the fault", n, st);
			cr_assert_lt(ms++, T_STOP_MS, "round %u: the Tensix thread never faulted", n);
			sleep_ms(1);
		}
		cr_assert(st == BH_CORE_RUNNING || st == BH_CORE_FAULTED,
			  "round %u: tensix0 faulted but trisc0 looks clean (state %d)", n, st);
		cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC0, T_STOP_MS, r), BH_OK);
		expect_fault(r, BH_CORE_TRISC0, pc, "bad register value", "mutex 1 does not exist");
	}
	cr_log_info("%u of %u rounds: the core exited before the thread faulted", exited_first, ROUNDS);
	free(r);
	bh_device_close(dev);
}
