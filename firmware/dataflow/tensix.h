/* Driving the Tensix coprocessor from a TRISC (tensix.md, sync.md 4-5): instruction words of the
 * control plane, the push into the TRISC's own Tensix thread, Manual TTSync, and the TRISC's
 * windows onto its thread's GPRs, its MOP configuration and the tile's semaphores.
 *
 * Words are built as tt-metal builds them: opcode << 24 | operands, every operand bit not named
 * by a field left 0 (bhemu faults on a set reserved bit). tt_push() stores a word to the push
 * window; a constant word can also be a .ttinsn (TT_INSN_WORD: the word rotated left by 2). */
#ifndef BHEMU_DATAFLOW_TENSIX_H
#define BHEMU_DATAFLOW_TENSIX_H

#include <stdint.h>

#define TT_PUSH_ADDR		0xFFE40000u	/* T_i: push into Tensix thread i */
#define TT_GPR_ADDR		0xFFE00000u	/* T_i: its thread's 64 GPRs */
#define TT_MOP_CFG_ADDR		0xFFB80000u	/* T_i: MopCfg[0..8], write-only */
#define TT_PCBUF_ADDR		0xFFE80000u	/* PC_BUF_BASE */
#define TT_COPROC_DONE_ADDR	(TT_PCBUF_ADDR + 0x4u)	/* TTSync: waits until the thread is idle */
#define TT_MOP_DONE_ADDR	(TT_PCBUF_ADDR + 0x8u)	/* TTSync: waits until no MOP is queued */
#define TT_SEM_ADDR(k)		(TT_PCBUF_ADDR + 0x20u + 4u * (k))

/* Semaphore numbers of tt-llk (sync.md 5). */
#define TT_SEM_MATH_PACK	1u	/* Dst hand-over math -> pack */
#define TT_SEM_UNPACK_TO_DEST	2u

/* SEMWAIT conditions: keep waiting while a selected semaphore is 0, or is at (or above) its max. */
#define TT_SEMWAIT_WHILE_ZERO	1u
#define TT_SEMWAIT_WHILE_MAX	2u
/* Wait Gate block masks (sync.md 8): B1 holds sync-unit instructions; all nine bits also hold NOP. */
#define TT_BLOCK_SYNC		0x002u
#define TT_BLOCK_ALL		0x1FFu

#define TT_OP(op, params)	((uint32_t)(op) << 24 | (uint32_t)(params))
#define TT_NOP			TT_OP(0x02, 0)
#define TT_MOP(tmpl, count1, mask_lo)	TT_OP(0x01, (uint32_t)(tmpl) << 23 | (uint32_t)(count1) << 16 | (mask_lo))
/* REPLAY: record (load 1) the next len words at start, or play (load 0) them back. */
#define TT_REPLAY(start, len, exec, load) \
	TT_OP(0x04, (uint32_t)(start) << 14 | (uint32_t)(len) << 4 | (uint32_t)(exec) << 1 | (load))
#define TT_SETDMAREG_LO(gpr, v)	TT_OP(0x45, (uint32_t)(uint16_t)(v) << 8 | 2u * (gpr))
#define TT_SETDMAREG_HI(gpr, v)	TT_OP(0x45, (uint32_t)(uint16_t)(v) << 8 | (2u * (gpr) + 1u))
/* GPR res = GPR a + the 6-bit constant k. */
#define TT_ADDDMAREG_CONST(res, a, k)	TT_OP(0x58, 1u << 23 | (uint32_t)(res) << 12 | (uint32_t)(k) << 6 | (a))
#define TT_STOREREG(gpr, addr)	TT_OP(0x67, (uint32_t)(gpr) << 18 | (((uint32_t)(addr) >> 2) & 0x3FFFFu))
#define TT_STALLWAIT(block, cond)	TT_OP(0xA2, (uint32_t)(block) << 15 | (cond))
/* Config[bank][idx] = GPR gpr (the next instruction must not read that word: a NOP between), and
 * GPR gpr = Config[bank][idx] (arrives later: STALLWAIT C12 before a reader of the GPR). */
#define TT_WRCFG(gpr, idx)	TT_OP(0xB0, (uint32_t)(gpr) << 16 | (idx))
#define TT_RDCFG(gpr, idx)	TT_OP(0xB1, (uint32_t)(gpr) << 16 | (idx))
#define TT_BLOCK_CONFIG		0x080u	/* B7: the configuration unit */
#define TT_COND_CONFIG_BUSY	0x1000u	/* C12: any thread has an instruction in the configuration unit */
#define TT_CFG_SCRATCH0		209u	/* Config SCRATCH_SEC0 (global) */
/* Semaphores are selected by a mask: bit k is semaphore k. */
#define TT_SEMINIT(mask, max, value) \
	TT_OP(0xA3, (uint32_t)(max) << 20 | (uint32_t)(value) << 16 | (uint32_t)(mask) << 2)
#define TT_SEMPOST(mask)	TT_OP(0xA4, (uint32_t)(mask) << 2)
#define TT_SEMGET(mask)		TT_OP(0xA5, (uint32_t)(mask) << 2)
#define TT_SEMWAIT(block, mask, cond)	TT_OP(0xA6, (uint32_t)(block) << 15 | (uint32_t)(mask) << 2 | (cond))

/* The .ttinsn encoding of a constant word: an instruction word whose fetch pushes w. */
#define TT_INSN_WORD(w)		((uint32_t)(w) << 2 | (uint32_t)(w) >> 30)

#define TT_REG32(addr)		(*(volatile uint32_t *)(uintptr_t)(addr))

/* Pushes w into this TRISC's Tensix thread (stalls while its FIFO is full). */
static inline void tt_push(uint32_t w)
{
	TT_REG32(TT_PUSH_ADDR) = w;
}

/* tensix_sync(): returns once every instruction this TRISC pushed has executed. The load's
 * result is stored at once, as tt-metal's tensix_sync does: an instruction must use it before
 * another PCBuf or mailbox load starts (a second load while the TTSync load is in flight gives
 * wrong values or hangs silicon, sync.md 4; bhemu's ttsync-load check). An empty asm that takes
 * the value is no use: it emits no instruction. */
static inline void tt_sync(void)
{
	volatile uint32_t done;
	TT_REG32(TT_COPROC_DONE_ADDR) = 0;
	done = TT_REG32(TT_COPROC_DONE_ADDR);
	(void)done;
}

/* mop_sync(): returns once no MOP of this thread is queued or expanding (MopCfg may change); its
 * result is used at once like tt_sync's. */
static inline void tt_mop_sync(void)
{
	volatile uint32_t done;
	TT_REG32(TT_MOP_DONE_ADDR) = 0;
	done = TT_REG32(TT_MOP_DONE_ADDR);
	(void)done;
}

static inline uint32_t tt_gpr_read(uint32_t gpr)
{
	return TT_REG32(TT_GPR_ADDR + 4u * gpr);
}

/* MopCfg word k (0..8); only while the expander is idle (after tt_mop_sync). */
static inline void tt_mop_cfg_write(uint32_t k, uint32_t w)
{
	TT_REG32(TT_MOP_CFG_ADDR + 4u * k) = w;
}

/* Value of semaphore k, as the TRISC sees it. */
static inline uint32_t tt_sem_read(uint32_t k)
{
	return TT_REG32(TT_SEM_ADDR(k));
}

#endif
