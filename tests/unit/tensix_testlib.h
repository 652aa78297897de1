/* Tensix helpers shared by the coprocessor tests (test_tensix.c, test_tensix_scalar.c):
 * addresses, instruction words (tensix.md 8) and pushes from a program. Include after
 * testlib.h. */
#ifndef BH_TESTS_TENSIX_TESTLIB_H
#define BH_TESTS_TENSIX_TESTLIB_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include "host/device.h"
#include "sync/pcbuf.h"
#include "sync/tensix_sem.h"
#include "testlib.h"

#define PUSH 0xFFE40000u
#define GPR 0xFFE00000u
#define MOP_CFG 0xFFB80000u
#define PCBUF0 0xFFE80000u
#define SEM(k) (0xFFE80020u + 4u * (k))
#define PROGRESS 0x10000u
#define GATE 0x10100u
#define OUT 0x10200u

/* Instruction words. */
#define TT(op, params) ((uint32_t)(op) << 24 | (params))
#define SEMINIT(mask, max, val) TT(0xA3, (uint32_t)(max) << 20 | (uint32_t)(val) << 16 | (uint32_t)(mask) << 2)
#define SEMPOST(mask) TT(0xA4, (uint32_t)(mask) << 2)
#define SEMGET(mask) TT(0xA5, (uint32_t)(mask) << 2)
#define SEMWAIT(block, mask, cond) TT(0xA6, (uint32_t)(block) << 15 | (uint32_t)(mask) << 2 | (cond))
#define STALLWAIT(block, cond) TT(0xA2, (uint32_t)(block) << 15 | (cond))
#define SETDMAREG(half, v) TT(0x45, (uint32_t)(v) << 8 | (half))
#define DMAOP(op, a, b, res, bconst) TT(op, (uint32_t)(bconst) << 23 | (uint32_t)(res) << 12 | (uint32_t)(b) << 6 | (a))
#define STOREREG(gpr, addr) TT(0x67, (uint32_t)(gpr) << 18 | (((addr) >> 2) & 0x3FFFFu))
#define LOADREG(gpr, addr) TT(0x68, (uint32_t)(gpr) << 18 | (((addr) >> 2) & 0x3FFFFu))
#define MOP(tmpl, count1, mask_lo) TT(0x01, (uint32_t)(tmpl) << 23 | (uint32_t)(count1) << 16 | (mask_lo))
#define REPLAY(start, len, exec, load) TT(0x04, (uint32_t)(start) << 14 | (uint32_t)(len) << 4 | (exec) << 1 | (load))
#define ATGETM(m) TT(0xA0, m)
#define ATRELM(m) TT(0xA1, m)
#define TT_NOP TT(0x02, 0)
#define ZEROACC TT(0x10, 0)

/* The .ttinsn form of w: rotated left by 2 (the core rotates it back). */
static inline uint32_t ttinsn(uint32_t w) { return w << 2 | w >> 30; }

static inline void emit_push(struct prog *p, uint32_t w) { emit_store_word(p, PUSH, w); }

/* Push w with one sw; returns that sw's pc when the program runs at core_code_at[core] (the pc a
 * fault of the pushed instruction names). */
static inline uint32_t emit_push_at(struct prog *p, enum bh_core_id core, uint32_t w)
{
	emit_li(p, T0, PUSH);
	emit_li(p, T1, w);
	uint32_t pc = core_code_at[core] + (uint32_t)prog_here(p);
	emit(p, sw(T1, 0, T0));
	return pc;
}

/* tensix_sync(): store to PC_BUF_BASE + 4, load it (waits until the thread is idle) and use the
 * result, so that a PCBuf or mailbox load may follow at once (ttsync-load, races.md #16). */
static inline void emit_tensix_sync(struct prog *p)
{
	emit_li(p, T0, PCBUF0);
	emit(p, sw(X0, 4, T0));
	emit(p, lw(A0, 4, T0));
	emit(p, addi(A0, A0, 0));
}

static inline struct bh_tile *tile0(struct bh_device *dev) { return dev->tiles[0]; }

/* `core` pushes the words pre[0..npre), then w, which faults with `kind` and `why` at its push. */
static inline void expect_push_fault_after(struct bh_device *dev, enum bh_core_id core, const uint32_t *pre,
					   unsigned npre, uint32_t w, const char *kind, const char *why)
{
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	for (unsigned k = 0; k < npre; k++)
		emit_push(&p, pre[k]);
	uint32_t pc = emit_push_at(&p, core, w);
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	run_prog(dev, core, core_code_at[core], &p, r);
	expect_fault(r, core, pc, kind, why);
	free(r);
}

/* `core` runs p (already emitted), then pushes w (*pc: the push's pc), waits in tensix_sync and
 * exits 0; returns its result (run_checked: free it). */
static inline struct bh_core_result *run_push_checked(struct bh_device *dev, enum bh_core_id core, struct prog *p,
						      uint32_t w, uint32_t *pc)
{
	*pc = emit_push_at(p, core, w);
	emit_tensix_sync(p);
	emit_exit_with(p, 0);
	return run_checked(dev, core, p);
}

/* `core` pushes w[0..n), waits in tensix_sync and exits 0: every word has executed. */
static inline void run_pushes(struct bh_device *dev, enum bh_core_id core, const uint32_t *w, size_t n)
{
	struct prog p = { 0 };
	for (size_t k = 0; k < n; k++)
		emit_push(&p, w[k]);
	emit_tensix_sync(&p);
	emit_exit_with(&p, 0);
	cr_assert_eq(run_core(dev, core, &p), 0);
}

/* Wait (5 s) until Tensix thread i is idle. */
static inline void wait_thread_idle(struct bh_tile *t, unsigned i)
{
	for (int ms = 0; ms < 5000 && !bh_pcbuf_tensix_thread_idle(t, i); ms++)
		sleep_ms(1);
}

/* Wait (5 s) until semaphore k of tile 0 has value v; the test stops if it never does. */
static inline void wait_sem(struct bh_device *dev, unsigned k, unsigned v)
{
	for (int ms = 0; ms < 5000 && bh_sem_value(tile0(dev), k) != v; ms++)
		sleep_ms(1);
	cr_assert_eq(bh_sem_value(tile0(dev), k), v, "semaphore %u", k);
}

#endif
