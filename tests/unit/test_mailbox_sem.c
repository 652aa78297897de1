/* Tensix semaphores (sync.md 5) and RISC-V mailboxes (sync.md 7).
 * Semaphores: TRISC writes post (bit 0 clear) or get (bit 0 set), saturating at 15 and flooring
 * at 0; all three TRISCs see the same eight; the instruction API; the window past the eight.
 * Mailboxes: order, the "has data" query, 4 words per mailbox and per writer, parking readers
 * and writers, any pair of B/T0/T1/T2, reset discarding what a core wrote, NCRISC and host
 * kept out, and 100k words each way between BRISC and the TRISCs. Meant to be clean under TSan. */
#include <criterion/criterion.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "host/device.h"
#include "sync/tensix_sem.h"
#include "testlib.h"

#define SEM(k) (0xFFE80020u + 4u * (k))
#define MAILBOX(i) (0xFFEC0000u + 0x1000u * (i))   /* i: B 0, T0 1, T1 2, T2 3 */
#define HAS_DATA 4u

static const uint32_t code_at[5] = { 0x1000, 0x2000, 0x3000, 0x4000, 0x5000 };
#define PROGRESS 0x10000u
#define GATE 0x10100u

static struct bh_core *core_of(struct bh_device *dev, enum bh_core_id c)
{
	return &dev->tiles[0]->core[c];
}

static void start(struct bh_device *dev, enum bh_core_id c, const struct prog *p)
{
	prog_put(dev, 0, code_at[c], p);
	cr_assert_eq(bh_core_start(dev, 0, c, code_at[c]), BH_OK);
}

static uint32_t run(struct bh_device *dev, enum bh_core_id c, const struct prog *p)
{
	return run_to_exit(dev, c, code_at[c], p);
}

static enum bh_run_status status_of(struct bh_device *dev, enum bh_core_id c)
{
	struct bh_core_result *r = result_new();
	bh_core_result(dev, 0, c, r);
	enum bh_run_status s = r->status;
	free(r);
	return s;
}

/* Wait (5 s) until `core` sleeps in a blocked access whose wait text contains `what` (read
 * after the seq_cst `sleeping` store that follows it, where nothing else can wake the core). */
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

/* sw of `value` to addr (t0 = addr, t1 = value). */
static void emit_sw_imm(struct prog *p, uint32_t addr, uint32_t value)
{
	emit_store_word(p, addr, value);
}

/* a_reg = lw addr (clobbers t0). */
static void emit_lw_abs(struct prog *p, unsigned rd, uint32_t addr)
{
	emit_li(p, T0, addr);
	emit(p, lw(rd, 0, T0));
}

/* a0 = (a0 << 8) | reg: pack small results into the exit status. */
static void emit_pack(struct prog *p, unsigned reg)
{
	emit(p, enc_i(8, A0, 1, A0, OP_IMM));   /* slli a0, a0, 8 */
	emit(p, or(A0, A0, reg));
}

static void expect_fault_at(struct bh_device *dev, enum bh_core_id core, bool store, uint32_t addr, const char *kind,
			    const char *phrase)
{
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	emit_li(&p, S0, addr);
	uint32_t pc = code_at[core] + (uint32_t)prog_here(&p);
	emit(&p, store ? sw(X0, 0, S0) : lw(A0, 0, S0));
	emit_exit_with(&p, 0);
	run_prog(dev, core, code_at[core], &p, r);
	expect_fault(r, core, pc, kind, phrase);
	free(r);
}

/* ------------------------------------------------------------------------------ semaphores */

Test(semaphore, mmio_post_saturates_at_15)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, S0, SEM(3));
	for (int k = 0; k < 20; k++)
		emit(&p, sw(X0, 0, S0));
	emit(&p, lw(A0, 0, S0));
	emit_exit(&p);
	cr_expect_eq(run(dev, BH_CORE_TRISC0, &p), 15);
	cr_expect_eq(bh_sem_value(dev->tiles[0], 3), 15);
	cr_expect_eq(bh_sem_max(dev->tiles[0], 3), 0, "a post does not touch Max");
	bh_device_close(dev);
}

Test(semaphore, mmio_get_floors_at_0)
{
	struct bh_device *dev = t_open();
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
	cr_expect_eq(run(dev, BH_CORE_TRISC1, &p), 0x020100);
	bh_device_close(dev);
}

/* The ISA decides by bit 0 alone (ttsim would reject these values; see tensix_sem.c). */
Test(semaphore, mmio_write_value_other_than_0_or_1_acts_by_bit_0)
{
	struct bh_device *dev = t_open();
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
	cr_expect_eq(run(dev, BH_CORE_TRISC2, &p), 1);
	bh_device_close(dev);
}

Test(semaphore, the_three_triscs_share_the_eight_semaphores)
{
	struct bh_device *dev = t_open();
	struct prog post5 = { 0 }, read = { 0 }, get = { 0 };
	emit_li(&post5, S0, SEM(6));
	for (int k = 0; k < 5; k++)
		emit(&post5, sw(X0, 0, S0));
	emit_exit_with(&post5, 0);
	emit_lw_abs(&read, A0, SEM(6));
	emit_exit(&read);
	emit_sw_imm(&get, SEM(6), 1);
	emit_exit_with(&get, 0);

	cr_expect_eq(run(dev, BH_CORE_TRISC0, &post5), 0);
	cr_expect_eq(run(dev, BH_CORE_TRISC0, &read), 5);
	cr_expect_eq(run(dev, BH_CORE_TRISC1, &read), 5);
	cr_expect_eq(run(dev, BH_CORE_TRISC2, &read), 5);
	cr_expect_eq(run(dev, BH_CORE_TRISC2, &get), 0);
	cr_expect_eq(run(dev, BH_CORE_TRISC1, &read), 4);
	cr_expect_eq(run(dev, BH_CORE_TRISC0, &read), 4);
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
	emit_lw_abs(&p, A0, SEM(1));
	emit_lw_abs(&p, A1, SEM(3));
	emit_pack(&p, A1);
	emit_exit(&p);
	cr_expect_eq(run(dev, BH_CORE_TRISC1, &p), 0x20F);
	bh_device_close(dev);
}

/* Every change wakes the cores registered on the semaphore waitq (future SEMWAIT). */
Test(semaphore, a_change_wakes_the_semaphore_waiters)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = dev->tiles[0];
	struct bh_core *c = core_of(dev, BH_CORE_TRISC2);
	bh_waitq_add(&t->sem.waiters, BH_TRISC2);
	uint32_t seq = atomic_load(&c->wake_seq);
	bh_sem_post(t, 0x10);
	cr_expect_neq(atomic_load(&c->wake_seq), seq, "SEMPOST did not wake the waiter");
	cr_expect_eq(atomic_load(&t->sem.waiters.waiters), 0);
	bh_device_close(dev);
}

/* TRISC0 polls semaphore 5 (as firmware polls 0xFFE80034) until TRISC1 posts it. */
Test(semaphore, poll_loop_sees_a_post_by_another_trisc)
{
	struct bh_device *dev = t_open();
	struct prog poll = { 0 }, post = { 0 };
	emit_li(&poll, S0, SEM(5));
	int32_t loop = prog_here(&poll);
	emit(&poll, lw(A0, 0, S0));
	emit_branch(&poll, BEQ, A0, X0, loop);
	emit_exit(&poll);
	start(dev, BH_CORE_TRISC0, &poll);
	emit_wait_nonzero(&post, GATE, A3);
	emit_sw_imm(&post, SEM(5), 0);
	emit_exit_with(&post, 0);
	start(dev, BH_CORE_TRISC1, &post);
	sleep_ms(50);
	cr_expect_eq(status_of(dev, BH_CORE_TRISC0), BH_RUN_RUNNING);
	set_l1(dev, GATE, 1);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	expect_exit(dev, 0, BH_CORE_TRISC0, 1);
	bh_device_close(dev);
}

Test(semaphore, window_past_the_eight_semaphores_faults)
{
	struct bh_device *dev = t_open();
	expect_fault_at(dev, BH_CORE_TRISC2, false, 0xFFE80040, "not modelled",
			"PC_BUF_BASE + 0x40 is past the eight Tensix semaphores");
	expect_fault_at(dev, BH_CORE_TRISC0, true, 0xFFE8FFFC, "not modelled",
			"PC_BUF_BASE + 0xfffc is past the eight Tensix semaphores");
	expect_fault_at(dev, BH_CORE_NCRISC, false, SEM(0), "access not allowed", "ncrisc cannot read PCBuf 0");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- mailboxes */

/* BRISC leaves 11, 22, 33 for TRISC0; TRISC0 queries (no pop), pops three, queries again. */
Test(mailbox, words_arrive_in_order_and_the_query_does_not_pop)
{
	struct bh_device *dev = t_open();
	struct prog b = { 0 }, t = { 0 };
	emit_sw_imm(&b, MAILBOX(1), 11);
	emit_sw_imm(&b, MAILBOX(1), 22);
	emit_sw_imm(&b, MAILBOX(1), 33);
	emit_exit_with(&b, 0);
	cr_expect_eq(run(dev, BH_CORE_BRISC, &b), 0);

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
	cr_expect_eq(run(dev, BH_CORE_TRISC0, &t), 0x01010000);
	bh_device_close(dev);
}

Test(mailbox, has_data_query_is_0_on_an_empty_mailbox)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 };
	emit_lw_abs(&t, A0, MAILBOX(0) + HAS_DATA);
	emit_exit(&t);
	cr_expect_eq(run(dev, BH_CORE_TRISC1, &t), 0);
	bh_device_close(dev);
}

Test(mailbox, writer_parks_on_the_fifth_word_until_a_pop)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_wait_nonzero(&t, GATE, A3);
	emit_li(&t, S0, MAILBOX(0));
	emit_li(&t, A0, 0);
	emit_li(&t, A1, 5);
	emit_li(&t, A2, 0);
	int32_t loop = prog_here(&t);
	emit(&t, addi(A0, A0, 1));
	emit(&t, lw(T0, 0, S0));
	emit_branch(&t, BEQ, T0, A0, prog_here(&t) + 8);
	emit(&t, addi(A2, A2, 1));
	emit_branch(&t, BNE, A0, A1, loop);
	emit(&t, addi(A0, A2, 0));
	emit_exit(&t);
	start(dev, BH_CORE_TRISC1, &t);

	emit_li(&b, S0, MAILBOX(2));            /* brisc -> trisc1 */
	emit_li(&b, S1, PROGRESS);
	emit_li(&b, A0, 0);
	emit_li(&b, A1, 5);
	loop = prog_here(&b);
	emit(&b, addi(A0, A0, 1));
	emit(&b, sw(A0, 0, S0));
	emit(&b, sw(A0, 0, S1));
	emit_branch(&b, BNE, A0, A1, loop);
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);

	wait_l1(dev, PROGRESS, 4);
	wait_blocked(dev, BH_CORE_BRISC, "mailbox brisc→trisc1 write: full (4 words)");
	sleep_ms(100);
	cr_expect_eq(l1_get(dev, PROGRESS), 4);
	cr_expect_eq(status_of(dev, BH_CORE_BRISC), BH_RUN_RUNNING);

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
	emit_lw_abs(&t, A0, MAILBOX(0));        /* brisc -> trisc2: 3 */
	emit_exit(&t);
	start(dev, BH_CORE_TRISC2, &t);

	emit_li(&b, S1, PROGRESS);
	for (uint32_t k = 0; k < 5; k++) {
		static const unsigned to[5] = { 1, 2, 3, 0, 1 };   /* T0, T1, T2, itself, T0 */
		emit_sw_imm(&b, MAILBOX(to[k]), k + 1);
		emit_li(&b, T0, k + 1);
		emit(&b, sw(T0, 0, S1));
	}
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);
	wait_l1(dev, PROGRESS, 4);
	wait_blocked(dev, BH_CORE_BRISC, "mailbox brisc→trisc0 write: brisc's mailboxes hold 4 words together");
	sleep_ms(50);
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
	cr_expect_eq(run(dev, BH_CORE_TRISC0, &t0), 0x105);
	emit_lw_abs(&t1, A0, MAILBOX(0));
	emit_exit(&t1);
	cr_expect_eq(run(dev, BH_CORE_TRISC1, &t1), 2);
	bh_device_close(dev);
}

Test(mailbox, read_of_an_empty_mailbox_parks_until_a_write)
{
	struct bh_device *dev = t_open();
	struct prog t = { 0 }, b = { 0 };
	emit_lw_abs(&t, A0, MAILBOX(0));
	emit_exit(&t);
	start(dev, BH_CORE_TRISC2, &t);
	wait_blocked(dev, BH_CORE_TRISC2, "mailbox brisc→trisc2 read: empty");
	sleep_ms(50);
	cr_expect_eq(status_of(dev, BH_CORE_TRISC2), BH_RUN_RUNNING);
	emit_sw_imm(&b, MAILBOX(3), 0xBEEF);
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0xBEEF);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}

/* TRISC -> TRISC, TRISC -> itself, TRISC -> BRISC; any word of the page (bit 2 = query). */
Test(mailbox, every_pair_including_self_and_any_word_of_the_page)
{
	struct bh_device *dev = t_open();
	struct prog t0 = { 0 }, t1 = { 0 }, b = { 0 };
	emit_sw_imm(&t0, MAILBOX(2) + 0xFF0, 0x10);   /* trisc0 -> trisc1 */
	emit_sw_imm(&t0, MAILBOX(1) + 0x400, 0x20);   /* trisc0 -> trisc0 */
	emit_lw_abs(&t0, A0, MAILBOX(1) + 0x8);       /* pop trisc0 -> trisc0 (bit 2 clear) */
	emit_exit(&t0);
	cr_expect_eq(run(dev, BH_CORE_TRISC0, &t0), 0x20);

	emit_lw_abs(&t1, A0, MAILBOX(1) + 0xC);       /* query trisc0 -> trisc1 (bit 2 set): 1 */
	emit_lw_abs(&t1, A1, MAILBOX(1));             /* pop: 0x10 */
	emit_pack(&t1, A1);
	emit_sw_imm(&t1, MAILBOX(0), 0x30);           /* trisc1 -> brisc */
	emit_exit(&t1);
	cr_expect_eq(run(dev, BH_CORE_TRISC1, &t1), 0x110);

	emit_lw_abs(&b, A0, MAILBOX(2));              /* brisc pops trisc1 -> brisc */
	emit_exit(&b);
	cr_expect_eq(run(dev, BH_CORE_BRISC, &b), 0x30);
	bh_device_close(dev);
}

/* BRISC parks on a full mailbox; putting it in reset discards the words it wrote (and only
 * those): TRISC0 and TRISC1 find nothing, BRISC still finds what TRISC2 wrote to it. */
Test(mailbox, entering_reset_discards_what_the_core_wrote)
{
	struct bh_device *dev = t_open();
	struct prog t2 = { 0 }, b = { 0 };
	emit_sw_imm(&t2, MAILBOX(0), 0x99);           /* trisc2 -> brisc */
	emit_exit_with(&t2, 0);
	cr_expect_eq(run(dev, BH_CORE_TRISC2, &t2), 0);

	for (int k = 0; k < 3; k++)
		emit_sw_imm(&b, MAILBOX(1), 0x40 + (uint32_t)k);
	emit_sw_imm(&b, MAILBOX(2), 0x50);
	emit_sw_imm(&b, MAILBOX(2), 0x51);            /* writer limit: parks */
	emit_exit_with(&b, 0);
	start(dev, BH_CORE_BRISC, &b);
	wait_blocked(dev, BH_CORE_BRISC, "mailbox brisc→trisc1 write");
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v | reset_bit(BH_CORE_BRISC)), BH_OK);
	for (int ms = 0; ms < 5000 && status_of(dev, BH_CORE_BRISC) != BH_RUN_IN_RESET; ms++)
		sleep_ms(1);
	cr_expect_eq(status_of(dev, BH_CORE_BRISC), BH_RUN_IN_RESET);

	struct prog q = { 0 };
	emit_lw_abs(&q, A0, MAILBOX(0) + HAS_DATA);
	emit_exit(&q);
	cr_expect_eq(run(dev, BH_CORE_TRISC0, &q), 0, "brisc -> trisc0 kept words across brisc's reset");
	cr_expect_eq(run(dev, BH_CORE_TRISC1, &q), 0, "brisc -> trisc1 kept words across brisc's reset");

	struct prog b2 = { 0 };
	emit_lw_abs(&b2, A0, MAILBOX(3));             /* trisc2 -> brisc survives */
	emit_exit(&b2);
	cr_expect_eq(run(dev, BH_CORE_BRISC, &b2), 0x99);
	bh_device_close(dev);
}

Test(mailbox, ncrisc_and_host_cannot_reach_mailboxes)
{
	struct bh_device *dev = t_open();
	expect_fault_at(dev, BH_CORE_NCRISC, false, MAILBOX(0), "access not allowed",
			"ncrisc cannot read RISC-V mailboxes");
	expect_fault_at(dev, BH_CORE_NCRISC, true, MAILBOX(3), "access not allowed",
			"ncrisc cannot write RISC-V mailboxes");
	uint32_t v = 0;
	cr_expect_eq(bh_reg_read(dev, 0, MAILBOX(1), &v), BH_ERR_ARG);
	cr_expect_eq(bh_reg_write(dev, 0, MAILBOX(1), 1), BH_ERR_ARG);
	bh_device_close(dev);
}

/* ---------------------------------------------------------------------------------- stress */

#define STRESS_N 100000u

/* Receiver: pop N words from page `page`, expecting tag + 0, 1, ...; exit(mismatches). Uses
 * a0 (expected), a2 (mismatches), a3 (left), s0. */
static void emit_receive_sequence(struct prog *p, uint32_t page, uint32_t tag)
{
	emit_li(p, S0, page);
	emit_li(p, A0, tag);
	emit_li(p, A3, STRESS_N);
	emit_li(p, A2, 0);
	int32_t loop = prog_here(p);
	emit(p, lw(T0, 0, S0));
	emit_branch(p, BEQ, T0, A0, prog_here(p) + 12);
	emit(p, addi(A2, A2, 1));
	emit(p, addi(A0, T0, 0));
	emit(p, addi(A0, A0, 1));
	emit(p, addi(A3, A3, -1));
	emit_branch(p, BNE, A3, X0, loop);
	emit(p, addi(A0, A2, 0));
	emit_exit(p);
}

static void expect_clean_exit(struct bh_device *dev, enum bh_core_id c)
{
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, c, 200000, r), BH_OK, "%s did not finish", core_names[c]);
	cr_expect_eq(r->status, BH_RUN_EXITED, "%s: status %d\n%s", core_names[c], r->status, r->report);
	cr_expect_eq(r->exit_status, 0, "%s saw %d words out of sequence", core_names[c], r->exit_status);
	free(r);
}

/* BRISC writes (i << 24) + n round robin to the three TRISCs; each checks its sequence. */
Test(mailbox, stress_100k_words_from_brisc_to_each_trisc, .timeout = 240)
{
	struct bh_device *dev = t_open();
	for (unsigned i = 0; i < 3; i++) {
		struct prog t = { 0 };
		emit_receive_sequence(&t, MAILBOX(0), i << 24);
		start(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
	}
	struct prog b = { 0 };
	emit_li(&b, A3, MAILBOX(1));
	emit_li(&b, A4, MAILBOX(2));
	emit_li(&b, A5, MAILBOX(3));
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
	for (unsigned i = 0; i < 3; i++)
		expect_clean_exit(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i));
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
		start(dev, (enum bh_core_id)(BH_CORE_TRISC0 + i), &t);
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
	start(dev, BH_CORE_BRISC, &b);
	expect_clean_exit(dev, BH_CORE_BRISC);
	for (unsigned i = 0; i < 3; i++)
		expect_exit(dev, 0, (enum bh_core_id)(BH_CORE_TRISC0 + i), 0);
	bh_device_close(dev);
}
