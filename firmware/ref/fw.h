/* Helpers shared by the reference firmware images: mailbox access with the ordering the real
 * firmware uses, the tile registers they touch (memory-map.md 3-4, 8), and the wall clock. */
#ifndef BHEMU_FW_REF_FW_H
#define BHEMU_FW_REF_FW_H

#include <stdint.h>

#include "fw_abi.h"
#include "p100a.h"

/* Hardware addresses (silicon properties, memory-map.md). */
#define TDMA_CLK_GATE_EN	0xFFB11024u
#define TILE_CTRL_BASE		0xFFB12000u
#define SOFT_RESET_0		(TILE_CTRL_BASE + 0x1B0u)
#define WALL_CLOCK_0		(TILE_CTRL_BASE + 0x1F0u)
#define WALL_CLOCK_1_AT		(TILE_CTRL_BASE + 0x1F8u)
#define TRISC0_RESET_PC		(TILE_CTRL_BASE + 0x228u)
#define TRISC1_RESET_PC		(TILE_CTRL_BASE + 0x22Cu)
#define TRISC2_RESET_PC		(TILE_CTRL_BASE + 0x230u)
#define TRISC_RESET_PC_OVERRIDE	(TILE_CTRL_BASE + 0x234u)
#define NCRISC_RESET_PC		(TILE_CTRL_BASE + 0x238u)
#define NCRISC_RESET_PC_OVERRIDE (TILE_CTRL_BASE + 0x23Cu)
#define DEST_CG_CTRL		(TILE_CTRL_BASE + 0x240u)
#define NIU_CFG_0_OFF		0x100u
#define ROUTER_CFG_0_OFF	0x104u
#define STREAM_REG(s, r)	(0xFFB40000u + (uint32_t)(s) * 0x1000u + (uint32_t)(r) * 4u)
#define STREAM_REG_WORDS_FREE_INC	270u	/* write: reg 297 += value >> STREAM_WORDS_FREE_INC_SHIFT */
#define STREAM_WORDS_FREE_INC_SHIFT	6u
#define TTSYNC_TENSIX_SYNC	0xFFE80004u	/* TRISC side: load waits for the thread's Tensix work */
#define TENSIX_CFG(k)		(0xFFEF0000u + 4u * (uint32_t)(k))
#define TENSIX_CFG_IC_INVALIDATE 185u		/* RISCV_IC_INVALIDATE_InvalidateAll: B 1 T0 2 T1 4 T2 8 NC 16 */
#define TENSIX_CFG_PRNG_SEED	186u
#define TENSIX_CFG_ECC_SCRUBBER	3u
#define TENSIX_PUSH_THREAD0	0xFFE40000u	/* BRISC: push into Tensix thread 0 (after the MOP expander) */

#define REG32(a)	(*(volatile uint32_t *)(uintptr_t)(a))
#define REG8(a)		(*(volatile uint8_t *)(uintptr_t)(a))

static inline struct launch_msg volatile *fw_launch(uint32_t rd)
{
	return (struct launch_msg volatile *)(uintptr_t)(MBOX_LAUNCH + MBOX_LAUNCH_SIZE * (rd & 7u));
}

/* One poll of an L1 mailbox byte: the fence makes each read see fresh L1 (races.md 20) and, on the
 * read that ends a spin, orders the reads of the launch message after it (acquire). */
static inline uint8_t fw_poll8(uint32_t addr)
{
	__asm__ volatile("fence" ::: "memory");
	return REG8(addr);
}

static inline uint32_t fw_poll32(uint32_t addr)
{
	__asm__ volatile("fence" ::: "memory");
	return REG32(addr);
}

/* A store that publishes: everything before it (kernel results, launch reads) is visible first. */
static inline void fw_publish8(uint32_t addr, uint8_t v)
{
	__asm__ volatile("fence rw, w" ::: "memory");
	REG8(addr) = v;
}

static inline uint64_t fw_wall_clock(void)
{
	uint32_t lo = REG32(WALL_CLOCK_0);	/* latches the high word into WALL_CLOCK_1_AT */
	uint32_t hi = REG32(WALL_CLOCK_1_AT);
	return ((uint64_t)hi << 32) | lo;
}

/* fw.c: this tile's logical position from core_info (boot), and the fw_abi.h globals of processor
 * proc for launch l (every launch, before the kernel call). */
void fw_read_position(void);
void fw_launch_globals(uint32_t proc, struct launch_msg volatile *l);

/* Calls the kernel of processor proc; fw_launch_globals(proc, l) has run. a0-a3 carry what the
 * globals hold (p100a.h), for kernels written without the kernel runtime. */
static inline void fw_call_kernel(uint32_t proc, struct launch_msg volatile *l)
{
	fw_kernel_fn fn = (fw_kernel_fn)(uintptr_t)(l->kernel_config_base[0] + l->kernel_text_offset[proc]);
	fn((uint32_t)(uintptr_t)rta_l1_base, (uint32_t)(uintptr_t)crta_l1_base, sem_l1_base[0], (uint32_t)(uintptr_t)l);
}

#endif
