/* Superinstructions of the fast interpreter (cores/rv32_run.inc): an add/addi followed by a
 * conditional branch on the same page runs as one handler. Every case must behave exactly like
 * the two instructions: each branch kind taken and not taken, the branch reading the register
 * the add just wrote, x0 as destination, a jump straight to the branch of a fused pair, a pair
 * split by the page end, and code rewritten after it was fused. */
#include <criterion/criterion.h>

#include "testlib.h"

#define AT 0x8000u

/* Counts a0 down from n with "addi a0, a0, -1; b<kind> a0, a1, loop" and counts iterations in
 * a2; returns a2 (the loop runs until the branch falls through). */
static uint32_t count_loop(struct bh_device *dev, uint32_t f3, uint32_t n, uint32_t a1)
{
	struct prog p = { 0 };
	emit_li(&p, A0, n);
	emit_li(&p, A1, a1);
	emit(&p, addi(A2, X0, 0));
	int32_t loop = prog_here(&p);
	emit(&p, addi(A2, A2, 1));
	emit(&p, addi(A0, A0, -1));
	emit_branch(&p, f3, A0, A1, loop);
	emit(&p, addi(A0, A2, 0));
	emit_exit(&p);
	return run_to_exit(dev, BH_CORE_BRISC, AT, &p);
}

Test(fusion, every_branch_kind_after_addi_counts_like_the_two_instructions)
{
	struct bh_device *dev = t_open();
	/* bne a0, a1: stops when a0 reaches a1 = 0 after n = 1000 decrements. */
	cr_expect_eq(count_loop(dev, BNE, 1000, 0), 1000);
	/* beq a0, a1 with a1 = n - 1: taken once (a0 = 9), not at a0 = 8. */
	cr_expect_eq(count_loop(dev, BEQ, 10, 9), 2);
	cr_expect_eq(count_loop(dev, BGE, 20, 0), 21);            /* signed: taken for 19 .. 0, not at -1 */
	cr_expect_eq(count_loop(dev, BLT, 0, 0xFFFFFFF0u), 1);     /* -1 < -16 is false at once */
	cr_expect_eq(count_loop(dev, BGEU, 7, 1), 7);              /* unsigned: taken for 6 .. 1, not at 0 */
	cr_expect_eq(count_loop(dev, BLTU, 3, 0x80000000u), 4);   /* 2, 1, 0 < 2^31; 0xffffffff is not */
	bh_device_close(dev);
}

Test(fusion, add_then_branch_reads_the_new_value)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	/* a0 += a3 (= 3) until a0 == 300: add then beq/bne on the result. */
	emit_li(&p, A0, 0);
	emit_li(&p, A3, 3);
	emit_li(&p, A1, 300);
	emit(&p, addi(A2, X0, 0));
	int32_t loop = prog_here(&p);
	emit(&p, addi(A2, A2, 1));
	emit(&p, add(A0, A0, A3));
	emit_branch(&p, BNE, A0, A1, loop);
	emit(&p, addi(A0, A2, 0));
	emit_exit(&p);
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, AT, &p), 100);
	bh_device_close(dev);
}

Test(fusion, x0_destination_stays_zero)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A0, 5);
	int32_t loop = prog_here(&p);
	emit(&p, addi(A0, A0, -1));
	emit(&p, addi(X0, A0, 7));                 /* fused with the bne, which reads x0: still 0 */
	emit_branch(&p, BNE, A0, X0, loop);
	emit(&p, add(A0, X0, X0));
	emit(&p, addi(A0, A0, 42));
	emit_exit(&p);
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, AT, &p), 42);
	bh_device_close(dev);
}

/* The loop is entered at its branch (the second slot of the fused pair), as a jump into the
 * middle of a superinstruction: the branch must run alone, without the addi before it. */
Test(fusion, a_jump_to_the_branch_of_a_fused_pair_runs_the_branch_alone)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A0, 10);
	emit(&p, addi(A2, X0, 0));
	int32_t j = prog_here(&p);
	emit(&p, 0);                                 /* patched: j to the branch */
	int32_t loop = prog_here(&p);
	emit(&p, addi(A2, A2, 1));
	emit(&p, addi(A0, A0, -1));                  /* fused with the bne */
	int32_t br = prog_here(&p);
	emit_branch(&p, BNE, A0, X0, loop);
	emit(&p, addi(A0, A2, 0));
	emit_exit(&p);
	p.w[j / 4] = jal(X0, br - j);
	/* Entering at the bne with a0 = 10: taken; then 10 iterations of the loop body. */
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, AT, &p), 10);
	bh_device_close(dev);
}

/* addi in the last slot of a page and its branch on the next page: no fusion across the page
 * end, and the loop still counts right. */
Test(fusion, a_pair_split_by_the_page_end_is_not_fused)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A0, 50);
	emit(&p, addi(A2, X0, 0));
	int32_t loop = prog_here(&p);
	emit(&p, addi(A2, A2, 1));
	emit(&p, addi(A0, A0, -1));
	emit_branch(&p, BNE, A0, X0, loop);
	emit(&p, addi(A0, A2, 0));
	emit_exit(&p);
	const uint32_t at = 0x8FFCu - 4 - (uint32_t)loop;   /* the addi a0 lands at 0x8FFC */
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, at, &p), 50);
	bh_device_close(dev);
}

/* The program runs its fused loop, then rewrites the loop's branch (bne -> beq) and runs it
 * again: the store drops the decoded page, so the new branch is what runs. */
Test(fusion, rewriting_the_branch_of_a_fused_pair_takes_effect)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, S0, 0);                          /* pass */
	emit(&p, addi(A2, X0, 0));
	int32_t again = prog_here(&p);
	emit_li(&p, A0, 4);
	int32_t loop = prog_here(&p);
	emit(&p, addi(A2, A2, 1));
	emit(&p, addi(A0, A0, -1));
	int32_t br = prog_here(&p);
	emit_branch(&p, BNE, A0, X0, loop);
	emit(&p, addi(S0, S0, 1));
	emit(&p, addi(T1, X0, 2));
	int32_t done = prog_here(&p);
	emit(&p, 0);                                 /* patched: beq s0, t1, exit */
	/* Rewrite the branch at br into "beq a0, x0, loop" (same offset), then run again. */
	struct prog tmp = { 0 };
	emit_branch(&tmp, BEQ, A0, X0, loop - br);
	emit_li(&p, T0, AT + (uint32_t)br);
	emit_li(&p, T2, tmp.w[0]);
	emit(&p, sw(T2, 0, T0));
	emit_j(&p, again);
	int32_t out = prog_here(&p);
	emit(&p, addi(A0, A2, 0));
	emit_exit(&p);
	struct prog b = { 0 };
	emit_branch(&b, BEQ, S0, T1, out - done);
	p.w[done / 4] = b.w[0];
	/* First pass: bne loops 4 times (a2 = 4). Second pass: beq a0, x0 is not taken at a0 = 3,
	 * so the body runs once (a2 = 5). */
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, AT, &p), 5);
	bh_device_close(dev);
}
