/* Block compiler for the fast interpreter variant: hot regions of one decoded page are
 * translated to x86-64 code (rv32_jit.c). The interpreter stays the reference: every instruction
 * the compiled code does not handle inline (register windows, CSRs, fences, AMOs, host calls,
 * stores into pages holding code, cross-page jumps) leaves the native code *before* it, and the
 * interpreter executes it. So faults, parking, spin detection and event checks keep exactly one
 * implementation, and the instruction count stays exact. */
#ifndef BH_CORES_RV32_JIT_H
#define BH_CORES_RV32_JIT_H

#include <stdbool.h>
#include <stdint.h>

struct bh_core;
struct rv_page;
struct rv_insn;
struct bh_niu;

enum rv_jit_mode {
	RV_JIT_OFF = 0,
	RV_JIT_SAMPLED,   /* default: compile jump targets the periodic event check lands on */
	RV_JIT_EAGER,     /* tests: compile at every jump that goes through lookup */
};

/* How compiled code left (rv32_jit_enter's return value). */
enum rv_jit_exit {
	RV_JIT_EXIT_AT = 0,   /* the interpreter executes the instruction at ctx.pc (same page) */
	RV_JIT_EXIT_JUMP,     /* a taken jump from ctx.fpc to ctx.pc: continue through lookup */
	RV_JIT_EXIT_MONITOR,  /* the core suspects a poll loop (after a register-window load, or at
			       * a fence): leave the interpreter at ctx.pc for the monitor variant */
	RV_JIT_EXIT_FAULT,    /* the store at ctx.pc faulted through rv32_jit_store_slow (c->fault) */
	RV_JIT_EXIT_BLOCKED,  /* the store at ctx.pc blocked the core: park, then execute it again */
};

/* rv32_jit_load_slow's status, in bits 32.. of its result (the value in bits 0..31). */
enum { RV_JIT_LOAD_OK = 0, RV_JIT_LOAD_RETRY = 1, RV_JIT_LOAD_SUSPECT = 2 };

/* What compiled code reads and writes; offsets are baked into the generated code. */
struct rv_jit_ctx {
	uint32_t *x;
	struct bh_core *core;
	uint8_t *l1;
	uint64_t icount;   /* instructions completed, exact at every exit */
	uint64_t limit;    /* backward jumps leave once icount reaches it */
	uint8_t *ldm;
	uint32_t pc;
	uint32_t fpc;
	/* The page the code runs in (chaining to its other compiled slots): its slots, their
	 * entries, and the handler that marks a compiled slot. */
	const struct rv_insn *insn;
	const void *const *jit;
	const void *jit_h;
	uint64_t chained;   /* chained jumps taken (statistics) */
	/* The NIU lane of compiled stores (rv32_jit.c), set by rv32_jit_enter from what stays
	 * constant while the code runs: the tile's NIUs when this core's aligned NIU stores may
	 * take the lane (no serial scheduling, no REORDER or MMIO provocation, the tile's region
	 * table gives the windows to the NIU), else NULL; which NIU checks are on (bit 0
	 * noc-busy-reprogram, bit 1 noc-shared-initiator); the core's kind and its part of a
	 * command buffer's bh_niu_programming. The lane reads what may change (a watched register,
	 * deferred Tensix words, the busy flag, the programming record) at every store. */
	struct bh_niu *niu_st;
	/* The same for its loads (a CMD_CTRL poll, a counter read: emit_niu_load), and the NoC
	 * engine's earliest event (NULL: synchronous NoC), which a counter read helps along. */
	struct bh_niu *niu_ld;
	const _Atomic uint64_t *noc_due;
	const _Atomic uint32_t *reg_watches;
	uint32_t niu_checks;
	uint32_t niu_who, niu_who_off;
};

/* Marks a slot where compiling was tried and refused (first instruction not compilable). */
extern const void *const rv32_jit_none;

/* BHEMU_JIT=0|off, 1|on (default), eager. */
enum rv_jit_mode rv32_jit_default_mode(void);
/* This host can run compiled code (x86-64). */
bool rv32_jit_supported(void);
/* Compile the region of pg that starts at slot and install its entries: pg->jit[k] and the
 * slot handler jit_handler. handlers are the fast variant's handlers (for slots the compiler
 * decodes). Owner thread, outside compiled code. Returns false when nothing was installed. */
bool rv32_jit_compile(struct bh_core *c, struct rv_page *pg, unsigned slot, const void *const *handlers,
		      const void *jit_handler);
/* Run compiled code from entry until it leaves; see enum rv_jit_exit. */
enum rv_jit_exit rv32_jit_enter(struct bh_core *c, struct rv_jit_ctx *ctx, const void *entry);
void rv32_jit_free(struct bh_core *c);
/* Operations the compiled code calls out for (rare ALU ops): the interpreter's semantics. */
uint32_t rv32_jit_alu(uint32_t op, uint32_t a, uint32_t b);
/* A load the compiled code cannot do inline (rv32_exec.c): the interpreter's slow path at pc
 * with icount instructions completed. RETRY: nothing happened (fault or blocked), the interpreter
 * must execute the load itself. */
uint64_t rv32_jit_load_slow(struct bh_core *c, uint32_t addr, uint32_t size, uint32_t pc, uint64_t icount);
/* A store the compiled code cannot do inline: the interpreter's slow path (bh_mem_store_slow) at
 * pc with icount instructions completed. 0: done; else RV_JIT_EXIT_FAULT or RV_JIT_EXIT_BLOCKED,
 * which the interpreter takes as its own slow store's result. */
/* A compiled L1 store found its page watched after it stored: wake the watchers of the words. */
void rv32_jit_store_watched(struct bh_core *c, uint32_t addr, uint32_t size);
uint32_t rv32_jit_store_slow(struct bh_core *c, uint32_t addr, uint32_t val, uint32_t size, uint32_t pc,
			     uint64_t icount);

#endif
