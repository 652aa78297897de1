/* Tensix semaphores (sync.md 5) and RISC-V mailboxes (sync.md 7).
 * Semaphores: TRISC writes post (bit 0 clear) or get (bit 0 set), saturating at 15 and flooring
 * at 0; all three TRISCs see the same eight; the instruction API; the window past the eight.
 * Mailboxes: order, the "has data" query, 4 words per mailbox and per writer, parking readers
 * and writers, any pair of B/T0/T1/T2, reset discarding what a core wrote, NCRISC and host
 * kept out, and 100k words each way between BRISC and the TRISCs. Meant to be clean under TSan. */
#include <criterion/criterion.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "host/device.h"
#include "sync/tensix_sem.h"
#include "testlib.h"

#define SEM(k) (0xFFE80020u + 4u * (k))
#define MAILBOX(i) (0xFFEC0000u + 0x1000u * (i))   /* i: B 0, T0 1, T1 2, T2 3 */
#define HAS_DATA 4u

/* L1 words shared with the host (each core's code is at core_code_at[core]). */
#define PROGRESS 0x10000u
#define GATE 0x10100u

/* ------------------------------------------------------------------------------ semaphores */

Test(semaphore, mmio_post_saturates_at_15)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	struct prog p = { 0 };
	emit_li(&p, S0, SEM(3));
	for (int k = 0; k < 20; k++)
		emit(&p, sw(X0, 0, S0));
	emit(&p, lw(A0, 0, S0));
	emit_exit(&p);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &p), 15);
	cr_expect_eq(bh_sem_value(dev->tiles[0], 3), 15);
	cr_expect_eq(bh_sem_max(dev->tiles[0], 3), 0, "a post does not touch Max");
	bh_device_close(dev);
}

Test(semaphore, mmio_get_floors_at_0)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	struct prog p = { 0 };
	emit_li(&p, S0, SEM(5));
	emit_li(&p, T1, 1);
	emit(&p, sw(X0, 0, S0));                /* post, post: 2 */
	emit(&p, sw(X0, 0, S0));
	emit(&p, lw(A0, 0, S0));
	emit(&p, sw(T1, 0, S0));                /* get: 1 */
	emit(&p, lw(A1, 0, S0));
	emit_pack(&p, A1);
	emit(&p, sw(T1, 0, S0));                /* get, get: 0, stays 0 */
	emit(&p, sw(T1, 0, S0));
	emit(&p, sw(T1, 0, S0));
	emit(&p, lw(A1, 0, S0));
	emit_pack(&p, A1);
	emit_exit(&p);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &p), 0x020100);
	bh_device_close(dev);
}

/* The ISA decides by bit 0 alone (ttsim would reject these values; see tensix_sem.c). */
Test(semaphore, mmio_write_value_other_than_0_or_1_acts_by_bit_0)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	struct prog p = { 0 };
	emit_li(&p, S0, SEM(0));
	emit_li(&p, T1, 2);
	emit(&p, sw(T1, 0, S0));                /* post */
	emit_li(&p, T1, 0xFE);
	emit(&p, sw(T1, 0, S0));                /* post */
	emit_li(&p, T1, 3);
	emit(&p, sw(T1, 0, S0));                /* get */
	emit(&p, lw(A0, 0, S0));
	emit_exit(&p);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &p), 1);
	bh_device_close(dev);
}

Test(semaphore, the_three_triscs_share_the_eight_semaphores)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	struct prog post5 = { 0 }, read = { 0 }, get = { 0 };
	emit_li(&post5, S0, SEM(6));
	for (int k = 0; k < 5; k++)
		emit(&post5, sw(X0, 0, S0));
	emit_exit_with(&post5, 0);
	emit_load_word(&read, A0, SEM(6));
	emit_exit(&read);
	emit_store_word(&get, SEM(6), 1);
	emit_exit_with(&get, 0);

	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &post5), 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &read), 5);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &read), 5);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &read), 5);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC2, &get), 0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &read), 4);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &read), 4);
	bh_device_close(dev);
}

/* SEMINIT / SEMPOST / SEMGET as the coprocessor will call them; TRISCs see the result. */
Test(semaphore, instruction_api_init_post_get)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = dev->tiles[0];
	for (unsigned k = 0; k < BH_SEM_COUNT; k++) {
		cr_expect_eq(bh_sem_value(t, k), 0, "reset value (assumed 0/0)");
		cr_expect_eq(bh_sem_max(t, k), 0);
	}
	bh_sem_init(t, 0x86, 1, 0);             /* what BRISC firmware does for 1, 2 and 7 */
	cr_expect_eq(bh_sem_max(t, 1), 1);
	cr_expect_eq(bh_sem_max(t, 2), 1);
	cr_expect_eq(bh_sem_max(t, 7), 1);
	cr_expect_eq(bh_sem_max(t, 0), 0);
	bh_sem_post(t, 0x06);
	bh_sem_post(t, 0x02);                   /* past Max: allowed, only SEMWAIT reads Max */
	cr_expect_eq(bh_sem_value(t, 1), 2);
	cr_expect_eq(bh_sem_value(t, 2), 1);
	cr_expect_eq(bh_sem_value(t, 7), 0);
	bh_sem_get(t, 0x84);
	cr_expect_eq(bh_sem_value(t, 2), 0);
	cr_expect_eq(bh_sem_value(t, 7), 0, "floor 0");
	bh_sem_init(t, 0x08, 15, 15);
	bh_sem_post(t, 0x08);
	cr_expect_eq(bh_sem_value(t, 3), 15, "saturates at 15");
	cr_expect_eq(bh_sem_max(t, 3), 15);

	struct prog p = { 0 };
	emit_load_word(&p, A0, SEM(1));
	emit_load_word(&p, A1, SEM(3));
	emit_pack(&p, A1);
	emit_exit(&p);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &p), 0x20F);
	bh_device_close(dev);
}

/* Every change wakes the cores registered on the semaphore waitq (future SEMWAIT). */
Test(semaphore, a_change_wakes_the_semaphore_waiters)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = dev->tiles[0];
	struct bh_core *c = dev->tiles[0]->core[BH_CORE_TRISC2];
	bh_waitq_add(&t->sem.waiters, BH_TRISC2);
	uint32_t seq = atomic_load(&c->waiter.wake_seq);
	bh_sem_post(t, 0x10);
	cr_expect_neq(atomic_load(&c->waiter.wake_seq), seq, "SEMPOST did not wake the waiter");
	cr_expect_eq(atomic_load(&t->sem.waiters.waiters), 0);
	bh_device_close(dev);
}

/* TRISC0 polls semaphore 5 (as firmware polls 0xFFE80034) until TRISC1 posts it. */
Test(semaphore, poll_loop_sees_a_post_by_another_trisc)
{
	struct bh_device *dev = t_open_checks(T_CHECKS_OFF, BH_CHECK_STOP);
	struct prog poll = { 0 }, post = { 0 };
	emit_li(&poll, S0, SEM(5));
	int32_t loop = prog_here(&poll);
	emit(&poll, lw(A0, 0, S0));
	emit_branch(&poll, BEQ, A0, X0, loop);
	emit_exit(&poll);
	start_core(dev, BH_CORE_TRISC0, &poll);
	emit_wait_nonzero(&post, GATE, A3);
	emit_store_word(&post, SEM(5), 0);
	emit_exit_with(&post, 0);
	start_core(dev, BH_CORE_TRISC1, &post);
	sleep_ms(50);
	cr_expect_eq(core_status(dev, 0, BH_CORE_TRISC0), BH_RUN_RUNNING);
	set_l1(dev, GATE, 1);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	expect_exit(dev, 0, BH_CORE_TRISC0, 1);
	bh_device_close(dev);
}

Test(semaphore, window_past_the_eight_semaphores_faults)
{
	struct bh_device *dev = t_open();
	expect_access_faults(dev, BH_CORE_TRISC2, false, 0xFFE80040, "not modelled",
			"PC_BUF_BASE + 0x40 is past the eight Tensix semaphores");
	expect_access_faults(dev, BH_CORE_TRISC0, true, 0xFFE8FFFC, "not modelled",
			"PC_BUF_BASE + 0xfffc is past the eight Tensix semaphores");
	expect_access_faults(dev, BH_CORE_NCRISC, false, SEM(0), "access not allowed", "ncrisc cannot read PCBuf 0");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- mailboxes */

/* BRISC leaves 11, 22, 33 for TRISC0; TRISC0 queries (no pop), pops three, queries again. */
Test(mailbox, words_arrive_in_order_and_the_query_does_not_pop)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 }, t = { 0 };
	emit_store_word(&b, MAILBOX(1), 11);
	emit_store_word(&b, MAILBOX(1), 22);
	emit_store_word(&b, MAILBOX(1), 33);
	emit_exit_with(&b, 0);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0);

	emit_li(&t, S0, MAILBOX(0));            /* from TRISC0: page 0 reads brisc -> trisc0 */
	emit(&t, lw(A0, HAS_DATA, S0));         /* 1 */
	emit(&t, lw(A1, HAS_DATA, S0));         /* still 1: the query does not pop */
	emit_pack(&t, A1);
	emit_li(&t, A2, 0);                     /* pops out of order */
	for (uint32_t k = 1; k <= 3; k++) {
		emit(&t, lw(A1, 0, S0));
		emit_li(&t, T1, 11 * k);
		emit_branch(&t, BEQ, A1, T1, prog_here(&t) + 8);
		emit(&t, addi(A2, A2, 1));
	}
	emit_pack(&t, A2);
	emit(&t, lw(A1, HAS_DATA, S0));         /* 0: drained */
	emit_pack(&t, A1);
	emit_exit(&t);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &t), 0x01010000);
	bh_device_close(dev);
}

Test(mailbox, has_data_query_is_0_on_an_empty_mailbox)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 };
	emit_load_word(&t, A0, MAILBOX(0) + HAS_DATA);
	emit_exit(&t);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &t), 0);
	bh_device_close(dev);
}

Test(mailbox, writer_parks_on_the_fifth_word_until_a_pop)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_wait_nonzero(&t, GATE, A3);
	emit_pop_expect_count(&t, MAILBOX(0), 5);
	start_core(dev, BH_CORE_TRISC1, &t);
	emit_push_count(&b, MAILBOX(2), 5, PROGRESS);   /* brisc -> trisc1 */
	start_core(dev, BH_CORE_BRISC, &b);

	wait_l1(dev, PROGRESS, 4);
	wait_blocked(dev, BH_CORE_BRISC, "mailbox brisc→trisc1 write: full (4 words)");
	expect_stays_parked(dev, BH_CORE_BRISC);
	cr_expect_eq(l1_get(dev, PROGRESS), 4);

	set_l1(dev, GATE, 1);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	cr_expect_eq(l1_get(dev, PROGRESS), 5);
	bh_device_close(dev);
}

/* The four mailboxes a core writes hold 4 words together (ISA functional model). */
Test(mailbox, a_writer_holds_at_most_4_words_across_its_mailboxes)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_wait_nonzero(&t, GATE, A3);
	emit_load_word(&t, A0, MAILBOX(0));        /* brisc -> trisc2: 3 */
	emit_exit(&t);
	start_core(dev, BH_CORE_TRISC2, &t);

	emit_li(&b, S1, PROGRESS);
	for (uint32_t k = 0; k < 5; k++) {
		static const unsigned to[5] = { 1, 2, 3, 0, 1 };   /* T0, T1, T2, itself, T0 */
		emit_store_word(&b, MAILBOX(to[k]), k + 1);
		emit_li(&b, T0, k + 1);
		emit(&b, sw(T0, 0, S1));
	}
	emit_exit_with(&b, 0);
	start_core(dev, BH_CORE_BRISC, &b);
	wait_l1(dev, PROGRESS, 4);
	wait_blocked(dev, BH_CORE_BRISC, "mailbox brisc→trisc0 write: brisc's mailboxes hold 4 words together");
	expect_stays_parked(dev, BH_CORE_BRISC);
	cr_expect_eq(l1_get(dev, PROGRESS), 4);

	set_l1(dev, GATE, 1);                   /* TRISC2 pops one: room for the fifth */
	expect_exit(dev, 0, BH_CORE_TRISC2, 3);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);

	struct prog t0 = { 0 }, t1 = { 0 };
	emit_li(&t0, S0, MAILBOX(0));
	emit(&t0, lw(A0, 0, S0));
	emit(&t0, lw(A1, 0, S0));
	emit_pack(&t0, A1);
	emit_exit(&t0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &t0), 0x105);
	emit_load_word(&t1, A0, MAILBOX(0));
	emit_exit(&t1);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &t1), 2);
	bh_device_close(dev);
}

Test(mailbox, read_of_an_empty_mailbox_parks_until_a_write)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 };
	emit_load_word(&t, A0, MAILBOX(0));
	emit_exit(&t);
	start_core(dev, BH_CORE_TRISC2, &t);
	wait_blocked(dev, BH_CORE_TRISC2, "mailbox brisc→trisc2 read: empty");
	expect_stays_parked(dev, BH_CORE_TRISC2);
	run_store_word(dev, BH_CORE_BRISC, MAILBOX(3), 0xBEEF);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0xBEEF);
	bh_device_close(dev);
}

/* TRISC -> TRISC, TRISC -> itself, TRISC -> BRISC; any word of the page (bit 2 = query). */
Test(mailbox, every_pair_including_self_and_any_word_of_the_page)
{
	struct bh_device *dev = t_open();
	struct prog t0 = { 0 }, t1 = { 0 }, b = { 0 };
	emit_store_word(&t0, MAILBOX(2) + 0xFF0, 0x10);   /* trisc0 -> trisc1 */
	emit_store_word(&t0, MAILBOX(1) + 0x400, 0x20);   /* trisc0 -> trisc0 */
	emit_load_word(&t0, A0, MAILBOX(1) + 0x8);       /* pop trisc0 -> trisc0 (bit 2 clear) */
	emit_exit(&t0);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &t0), 0x20);

	emit_load_word(&t1, A0, MAILBOX(1) + 0xC);       /* query trisc0 -> trisc1 (bit 2 set): 1 */
	emit_load_word(&t1, A1, MAILBOX(1));             /* pop: 0x10 */
	emit_pack(&t1, A1);
	emit_store_word(&t1, MAILBOX(0), 0x30);           /* trisc1 -> brisc */
	emit_exit(&t1);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &t1), 0x110);

	emit_load_word(&b, A0, MAILBOX(2));              /* brisc pops trisc1 -> brisc */
	emit_exit(&b);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b), 0x30);
	bh_device_close(dev);
}

/* BRISC parks on a full mailbox; putting it in reset discards the words it wrote (and only
 * those): TRISC0 and TRISC1 find nothing, BRISC still finds what TRISC2 wrote to it. */
Test(mailbox, entering_reset_discards_what_the_core_wrote)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 };
	run_store_word(dev, BH_CORE_TRISC2, MAILBOX(0), 0x99);   /* trisc2 -> brisc */

	for (int k = 0; k < 3; k++)
		emit_store_word(&b, MAILBOX(1), 0x40 + (uint32_t)k);
	emit_store_word(&b, MAILBOX(2), 0x50);
	emit_store_word(&b, MAILBOX(2), 0x51);            /* writer limit: parks */
	emit_exit_with(&b, 0);
	start_core(dev, BH_CORE_BRISC, &b);
	wait_blocked(dev, BH_CORE_BRISC, "mailbox brisc→trisc1 write");
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v | reset_bit(BH_CORE_BRISC)), BH_OK);
	for (int ms = 0; ms < T_STOP_MS && core_status(dev, 0, BH_CORE_BRISC) != BH_RUN_IN_RESET; ms++)
		sleep_ms(1);
	cr_expect_eq(core_status(dev, 0, BH_CORE_BRISC), BH_RUN_IN_RESET);

	struct prog q = { 0 };
	emit_load_word(&q, A0, MAILBOX(0) + HAS_DATA);
	emit_exit(&q);
	cr_expect_eq(run_core(dev, BH_CORE_TRISC0, &q), 0, "brisc -> trisc0 kept words across brisc's reset");
	cr_expect_eq(run_core(dev, BH_CORE_TRISC1, &q), 0, "brisc -> trisc1 kept words across brisc's reset");

	struct prog b2 = { 0 };
	emit_load_word(&b2, A0, MAILBOX(3));             /* trisc2 -> brisc survives */
	emit_exit(&b2);
	cr_expect_eq(run_core(dev, BH_CORE_BRISC, &b2), 0x99);
	bh_device_close(dev);
}

Test(mailbox, ncrisc_and_host_cannot_reach_mailboxes)
{
	struct bh_device *dev = t_open();
	expect_access_faults(dev, BH_CORE_NCRISC, false, MAILBOX(0), "access not allowed",
			"ncrisc cannot read RISC-V mailboxes");
	expect_access_faults(dev, BH_CORE_NCRISC, true, MAILBOX(3), "access not allowed",
			"ncrisc cannot write RISC-V mailboxes");
	uint32_t v = 0;
	cr_expect_eq(bh_reg_read(dev, 0, MAILBOX(1), &v), BH_ERR_ARG);
	cr_expect_eq(bh_reg_write(dev, 0, MAILBOX(1), 1), BH_ERR_ARG);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------- stress */

#define STRESS_N 100000u

/* BRISC writes (i << 24) + n round robin to the three TRISCs; each checks its sequence. */
Test(mailbox, stress_100k_words_from_brisc_to_each_trisc, .timeout = 240)
{
	static const uint32_t to_triscs[3] = { MAILBOX(1), MAILBOX(2), MAILBOX(3) };
	struct bh_device *dev = t_open();
	for (unsigned i = 0; i < 3; i++) {
		struct prog t = { 0 };
		emit_pop_sequence(&t, MAILBOX(0), i << 24, STRESS_N);
		start_core(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
	}
	struct prog b = { 0 };
	emit_push_round_robin(&b, to_triscs, STRESS_N);
	start_core(dev, BH_CORE_BRISC, &b);
	for (unsigned i = 0; i < 3; i++)
		expect_sequence_exit(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i));
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}

/* Each TRISC writes (i << 24) + n to BRISC; BRISC pops round robin and checks the three. */
Test(mailbox, stress_100k_words_from_each_trisc_to_brisc, .timeout = 240)
{
	struct bh_device *dev = t_open();
	for (unsigned i = 0; i < 3; i++) {
		struct prog t = { 0 };
		emit_li(&t, S0, MAILBOX(0));
		emit_li(&t, A0, i << 24);
		emit_li(&t, A1, (i << 24) + STRESS_N);
		int32_t loop = prog_here(&t);
		emit(&t, sw(A0, 0, S0));
		emit(&t, addi(A0, A0, 1));
		emit_branch(&t, BNE, A0, A1, loop);
		emit_exit_with(&t, 0);
		start_core(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
	}
	struct prog b = { 0 };
	emit_li(&b, S0, MAILBOX(1));
	emit_li(&b, S1, MAILBOX(2));
	emit_li(&b, A3, MAILBOX(3));
	emit_li(&b, A4, 0);                     /* expected from trisc0; +1 << 24, +2 << 24 for the others */
	emit_li(&b, A6, 1u << 24);
	emit_li(&b, A7, 2u << 24);
	emit_li(&b, A5, STRESS_N);
	emit_li(&b, A2, 0);                     /* mismatches */
	int32_t loop = prog_here(&b);
	emit(&b, lw(T0, 0, S0));
	emit_branch(&b, BEQ, T0, A4, prog_here(&b) + 8);
	emit(&b, addi(A2, A2, 1));
	emit(&b, lw(T0, 0, S1));
	emit(&b, add(T1, A4, A6));
	emit_branch(&b, BEQ, T0, T1, prog_here(&b) + 8);
	emit(&b, addi(A2, A2, 1));
	emit(&b, lw(T0, 0, A3));
	emit(&b, add(T1, A4, A7));
	emit_branch(&b, BEQ, T0, T1, prog_here(&b) + 8);
	emit(&b, addi(A2, A2, 1));
	emit(&b, addi(A4, A4, 1));
	emit(&b, addi(A5, A5, -1));
	emit_branch(&b, BNE, A5, X0, loop);
	emit(&b, addi(A0, A2, 0));
	emit_exit(&b);
	start_core(dev, BH_CORE_BRISC, &b);
	expect_sequence_exit(dev, BH_CORE_BRISC);
	for (unsigned i = 0; i < 3; i++)
		expect_exit(dev, 0, (enum bh_core_id)(BH_CORE_TRISC0 + i), 0);
	bh_device_close(dev);
}
