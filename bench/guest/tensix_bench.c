/* Guest of bench_tensix: the TRISCs drive their Tensix threads as the parameter block says
 * (tensix_bench.h): a stream of ADDDMAREG pushed one by one or expanded from MOPs, or a
 * semaphore ping-pong between threads 0 and 1. Every TRISC waits until its thread drained what
 * it pushed (tensix_sync) before it exits, so the host's start-to-last-exit time covers the
 * execution. BRISC and NCRISC exit at once (BRISC first releases the others). */
#include <stdint.h>

#include "multicore.h"
#include "tensix.h"
#include "tensix_bench.h"

#define GPR_COUNT 10u             /* the GPR an ADDDMAREG stream counts in */
#define SEM_PING 3u               /* thread 0 waits on it, thread 1 posts it */
#define SEM_PONG 4u               /* and the other way round */
#define REPLAY_ROUND 0u           /* replay slot of the three instructions of one round */

volatile struct tensix_bench_params tensix_bench_params __attribute__((section(".data.tensix_bench"))) = { 0 };

static void gpr_count_zero(void)
{
	tt_push(TT_SETDMAREG_LO(GPR_COUNT, 0));
	tt_push(TT_SETDMAREG_HI(GPR_COUNT, 0));
}

/* MopCfg for template 1: OUTER x INNER copies of op and nothing else. */
static void mop_config_loop(uint32_t op)
{
	const uint32_t cfg[9] = { TENSIX_BENCH_MOP_OUTER, TENSIX_BENCH_MOP_INNER, TT_NOP, TT_NOP, TT_NOP, op, TT_NOP, op, op };

	tt_mop_sync();
	for (uint32_t k = 0; k < 9; k++)
		tt_mop_cfg_write(k, cfg[k]);
}

static void mops_push(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		tt_push(TT_MOP(1, 0, 0));
}

static void stream_pushed(uint32_t count)
{
	const uint32_t w = TT_ADDDMAREG_CONST(GPR_COUNT, GPR_COUNT, 1);
	uint32_t n = count;

	gpr_count_zero();
	for (; n >= 8; n -= 8) {
		tt_push(w);
		tt_push(w);
		tt_push(w);
		tt_push(w);
		tt_push(w);
		tt_push(w);
		tt_push(w);
		tt_push(w);
	}
	for (; n > 0; n--)
		tt_push(w);
	tt_sync();
}

static void stream_mop(uint32_t count)
{
	gpr_count_zero();
	mop_config_loop(TT_ADDDMAREG_CONST(GPR_COUNT, GPR_COUNT, 1));
	mops_push(count / TENSIX_BENCH_MOP_INSNS);
	tt_sync();
}

/* Thread 0 holds the ball first. After thread 1's last round, thread 0 has played all of its own
 * too: PING is back at 1 and PONG at 0. */
static int handoff(uint32_t thread, uint32_t rounds)
{
	const uint32_t mine = 1u << (thread ? SEM_PONG : SEM_PING), theirs = 1u << (thread ? SEM_PING : SEM_PONG);

	volatile struct tensix_bench_params *p = &tensix_bench_params;
	if (thread == 0) {   /* before thread 0's first post, so thread 1 cannot see PONG set early */
		tt_push(TT_SEMINIT(1u << SEM_PING, 1, 1));
		tt_push(TT_SEMINIT(1u << SEM_PONG, 1, 0));
		tt_sync();        /* executed: nobody waits on them before this */
		p->sems_ready = 1;
	} else {
		while (!p->sems_ready)
			__asm__ volatile("fence" ::: "memory");
	}
	tt_push(TT_REPLAY(REPLAY_ROUND, 3, 0, 1));
	tt_push(TT_SEMWAIT(TT_BLOCK_SYNC, mine, TT_SEMWAIT_WHILE_ZERO));
	tt_push(TT_SEMGET(mine));
	tt_push(TT_SEMPOST(theirs));
	mop_config_loop(TT_REPLAY(REPLAY_ROUND, 3, 0, 0));
	mops_push(rounds / TENSIX_BENCH_MOP_INSNS);
	tt_sync();
	if (thread == 1 && (tt_sem_read(SEM_PING) != 1 || tt_sem_read(SEM_PONG) != 0))
		return TENSIX_BENCH_ERR_RESULT;
	return 0;
}

static int trisc_main(uint32_t thread)
{
	volatile struct tensix_bench_params *p = &tensix_bench_params;
	const uint32_t mode = p->mode, count = p->count, works = p->threads >> thread & 1;

	if (mode != TENSIX_BENCH_PUSHED && mode != TENSIX_BENCH_MOP && mode != TENSIX_BENCH_HANDOFF)
		return TENSIX_BENCH_ERR_MODE;
	if (mode != TENSIX_BENCH_PUSHED && count % TENSIX_BENCH_MOP_INSNS)
		return TENSIX_BENCH_ERR_PARAMS;
	if (mode == TENSIX_BENCH_HANDOFF)
		return thread < 2 ? handoff(thread, count) : 0;
	if (!works)
		return 0;
	if (mode == TENSIX_BENCH_PUSHED)
		stream_pushed(count);
	else
		stream_mop(count);
	p->gpr[thread] = tt_gpr_read(GPR_COUNT);
	return p->gpr[thread] == count ? 0 : TENSIX_BENCH_ERR_RESULT;
}

int main_brisc(void)
{
	return 0;
}

int main_ncrisc(void)
{
	return 0;
}

int main_trisc0(void)
{
	return trisc_main(0);
}

int main_trisc1(void)
{
	return trisc_main(1);
}

int main_trisc2(void)
{
	return trisc_main(2);
}
