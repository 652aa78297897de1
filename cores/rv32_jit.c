/* Block compiler: translates a region of one decoded page into x86-64 code.
 *
 * Why: the threaded interpreter pays one indirect jump and ~10 host instructions per guest
 * instruction; tight loops (a sieve, a dot product) then run at a quarter of qemu's JIT. Here a
 * region -- the straight run of compilable slots from a hot jump target to the first slot that
 * is not compilable or the end of the page -- becomes one piece of native code in which in-page
 * branches are native jumps and its most used guest registers stay in host registers (pinned).
 *
 * What the code does inline: ALU ops, loads and stores that hit L1 or the core's own local
 * RAM, jumps inside the region, and the NIU accesses of a NoC request that bh_mem_store_slow /
 * bh_mem_load_slow serve without blocking, faulting or announcing (a plain command-buffer field
 * store, a CMD_CTRL poll of an idle initiator, a counter read: emit_niu_store, emit_niu_load),
 * with what noc-busy-reprogram and noc-shared-initiator record of them. Other loads (register windows) call the interpreter's slow
 * path (rv32_jit_load_slow), which also applies its poll suspicion; other stores call its slow
 * store (rv32_jit_store_slow) and leave only when that faulted or blocked; a fence is a barrier, or
 * where the interpreter would suspect a poll loop, a way out to its monitor variant. Everything
 * else leaves *before* the instruction (RV_JIT_EXIT_AT) and the interpreter executes it, so
 * parking, faults and device side effects stay in one place: a load that faulted or blocked
 * (nothing happened yet), a store that faulted or blocked, CSRs, AMOs, host calls, Tensix pushes, a store
 * into a page whose code_pages byte is set (decoded code or a watched word: the interpreter
 * stores and invalidates), misaligned or unmapped addresses. Jumps out of the region to a compiled
 * slot of the same page go straight into its code below the event-check limit (chaining, as the
 * interpreter's own same-page jumps skip lookup); other jumps out of the region, and backward
 * jumps once the count reaches the limit, leave through lookup (RV_JIT_EXIT_JUMP), where the
 * interpreter checks events and jump targets exactly as for its own jumps.
 *
 * Instruction counting is exact: the code adds the number of completed instructions to r13 at
 * every region label and exit. Code memory is one arena per core, filled in order; when it is
 * full, every decoded page of the fast variant is reset (which drops all entries) and the arena
 * starts over. Only the owning core's thread compiles, enters or resets, always from the
 * interpreter, never while compiled code runs.
 *
 * Shared translations: a region's code depends only on its words, its address and the core's
 * local RAM size (the bounds of its inline LDM accesses), so the cores of a chip that run
 * byte-identical code at the same address (every tile's firmware, a kernel launched on the whole
 * grid) enter one copy, as multi-vCPU translators share translation blocks. Regions are compiled
 * into a process-wide arena under one lock and kept in a table keyed by exactly those three
 * things; a core looking for a region first takes it from there. The shared code is never
 * changed or freed (the arena and table stop taking new regions when full; cores then compile
 * into their own arenas), so it needs no invalidation of its own: a core drops its entries into
 * it exactly as into its own arena (a write to the page, an invalidate, a flush), and a page
 * whose words changed has another key. BHEMU_JIT_SHARE=off turns it off. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cores/core.h"
#include "cores/rv32_jit.h"
#include "cores/rv32_page.h"
#include "fabric/chip.h"
#include "fabric/mmio.h"
#include "fabric/niu.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "sync/sched.h"
#include "sync/watch.h"

const void *const rv32_jit_none = &rv32_jit_none;

bool rv32_jit_supported(void)
{
#if defined(__x86_64__)
	return true;
#else
	return false;   /* the code generator targets x86-64 only */
#endif
}

enum rv_jit_mode rv32_jit_default_mode(void)
{
	static _Atomic int mode = -1;
	int m = atomic_load_explicit(&mode, memory_order_relaxed);
	if (m < 0) {
		const char *e = getenv("BHEMU_JIT");
		m = RV_JIT_SAMPLED;
		if (e && (!strcmp(e, "0") || !strcmp(e, "off")))
			m = RV_JIT_OFF;
		else if (e && !strcmp(e, "eager"))
			m = RV_JIT_EAGER;
		if (!rv32_jit_supported())
			m = RV_JIT_OFF;
		atomic_store_explicit(&mode, m, memory_order_relaxed);
	}
	return (enum rv_jit_mode)m;
}

#if defined(__x86_64__)

#define JIT_ARENA_SIZE (1u << 20)        /* per core; reserved, touched as used */
#define JIT_ARENA_MIN (128u << 10)       /* BHEMU_JIT_ARENA_KIB (tests) cannot go below */
#define JIT_REGION_MAX 256u              /* guest instructions per region */
#define JIT_REGION_BYTES (JIT_REGION_MAX * 96u)   /* upper bound of one region's main code */
#define JIT_COLD_BYTES (JIT_REGION_MAX * 192u)   /* exits and calls write the pinned registers back */
#define JIT_NIU_LANE_BYTES 704u          /* at most one emit_niu_store with its issue's call (360 + 252)
					    * or one emit_niu_load (422) */
#define JIT_COLD_WORST 448u              /* above the most cold code one instruction takes without them (321 seen) */
#define JIT_FIX_WORST 12u                /* and the most fixups (10 seen: a store) */
#define JIT_FIXUPS (JIT_REGION_MAX * 4u + 16u)
/* A page that had its code overwritten this recently (instructions of this core) is left to the
 * interpreter: code that rewrites itself would otherwise be compiled again and again. */
#define JIT_DROP_COOLDOWN 200000u

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
/* Registers the compiled code keeps (all callee-saved in the SysV ABI, so C helpers keep them);
 * r14 and r15 hold pinned guest registers. */
#define R_X RBX      /* guest registers: bh_core.x */
#define R_L1 R12     /* L1 base */
#define R_IC R13     /* instructions completed */
#define R_CTX RBP    /* struct rv_jit_ctx */

/* x86 condition codes */
enum { CC_B = 2, CC_AE = 3, CC_E = 4, CC_NE = 5, CC_BE = 6, CC_A = 7, CC_L = 0xc, CC_GE = 0xd, CC_G = 0xf };

enum fix_kind { FIX_LABEL, FIX_COLD, FIX_ABS, FIX_EXIT };

struct jit_fix {
	uint8_t *at;        /* the rel32 field, in main code or in the cold buffer */
	bool in_cold;
	enum fix_kind kind;
	uintptr_t val;      /* slot (LABEL), cold offset (COLD), address (ABS) */
};

struct rv_jit {
	uint8_t *arena;
	size_t size, used;
	uint8_t *exit;      /* common exit: stores r13, restores registers, returns eax */
	enum rv_jit_exit (*enter)(struct rv_jit_ctx *ctx, const void *code);
};

struct jbuf {
	uint8_t *p, *start, *end;
	bool full;
};

/* Compilation state of one region. */
struct jc {
	struct bh_core *c;
	struct rv_jit *j;
	struct rv_page *pg;
	struct jbuf m, k;           /* main code (in the arena) and cold code (scratch) */
	unsigned s0, end;           /* region: slots [s0, end) */
	struct jit_fix *fix;
	unsigned nfix;
	bool fix_full;
	/* Which guest register eax / edx still hold (-1: none): in_* at the start of the current
	 * instruction, out_* what it leaves. Saves the store-to-load round trip through x[] in
	 * dependency chains; forgotten at every label. */
	int in_ax, in_dx, out_ax, out_dx;
	/* Guest registers pinned to host registers for the whole region (see JIT_PINS): pin[xr] the
	 * host register of x[xr], or -1. */
	int8_t pin[33];
	unsigned npin;
	uint8_t target[RV_PAGE_INSNS];
	uint8_t *label[RV_PAGE_INSNS];
	uint32_t entry_off[RV_PAGE_INSNS];   /* a target's entry stub, in the cold code (npin > 0) */
	uint8_t *cold_dst;                   /* where jit_resolve put the cold code */
};

/* What one compilation needs besides the arena, allocated for it and freed after it (compiles are
 * rare; a chip's 700 cores should not each keep ~60 KiB). */
struct jit_scratch {
	struct jc jc;
	struct jit_fix fix[JIT_FIXUPS];
	uint8_t cold[JIT_COLD_BYTES];   /* out-of-line code, copied after the main code */
};

static void b1(struct jbuf *b, unsigned v)
{
	if (b->p < b->end)
		*b->p++ = (uint8_t)v;
	else
		b->full = true;
}

static void b4(struct jbuf *b, uint32_t v)
{
	for (unsigned k = 0; k < 4; k++)
		b1(b, v >> 8 * k & 0xff);
}

static void x_rex(struct jbuf *b, bool w, int r, int index, int base)
{
	unsigned rex = 0x40u | (w ? 8u : 0u) | (r & 8 ? 4u : 0u) | (index >= 0 && (index & 8) ? 2u : 0u) |
		       (base & 8 ? 1u : 0u);
	if (rex != 0x40u)
		b1(b, rex);
}

static void x_opc(struct jbuf *b, unsigned opc)
{
	if (opc > 0xff)
		b1(b, opc >> 8);
	b1(b, opc & 0xff);
}

/* [pfx] [REX] opcode ModRM [SIB] [disp]: register operand r, memory [base + index + disp]
 * (index < 0: none). Opcodes above 0xff are two bytes (0x0f xx). */
static void x_m(struct jbuf *b, unsigned pfx, bool w, unsigned opc, int r, int base, int index, int32_t disp)
{
	if (pfx)
		b1(b, pfx);
	x_rex(b, w, r, index, base);
	x_opc(b, opc);
	unsigned mod = disp == 0 && (base & 7) != 5 ? 0 : disp >= -128 && disp <= 127 ? 1 : 2;
	if (index >= 0 || (base & 7) == 4) {
		b1(b, mod << 6 | (unsigned)(r & 7) << 3 | 4);
		b1(b, (unsigned)(index >= 0 ? index & 7 : 4) << 3 | (unsigned)(base & 7));
	} else {
		b1(b, mod << 6 | (unsigned)(r & 7) << 3 | (unsigned)(base & 7));
	}
	if (mod == 1)
		b1(b, (uint8_t)disp);
	else if (mod == 2)
		b4(b, (uint32_t)disp);
}

/* Register-register form: opcode r, rm (or opcode /ext, rm with r = ext). */
static void x_rr(struct jbuf *b, bool w, unsigned opc, int r, int rm)
{
	x_rex(b, w, r, -1, rm);
	x_opc(b, opc);
	b1(b, 0xc0u | (unsigned)(r & 7) << 3 | (unsigned)(rm & 7));
}

#define XOFF(r) ((int32_t)(4 * (r)))
/* Pinned guest registers: the region's most used ones live in host registers the compiled code
 * does not otherwise use (six caller-saved ones, and r14/r15, saved by the trampoline; the
 * event-check limit and the local RAM base are read from the context instead), written back:
 * the main code writes only the host register, and stores them all to x[] before every call and
 * every exit while they hold the values (pin_flush), so exits, cold code and C helpers see x[]
 * current; after a call (which may clobber them) the code reloads them from x[], and each entry
 * into the region loads them first (an entry stub per target). */
#define JIT_PINS 8u
static const int pin_host[JIT_PINS] = { RSI, RDI, R8, R9, R10, R11, R14, R15 };

static int pin_of(const struct jc *jc, const struct jbuf *b, unsigned xr)
{
	return b == &jc->m && xr < 33 ? jc->pin[xr] : -1;
}
static void mov_r_imm(struct jbuf *b, int reg, uint32_t v)
{
	if (reg & 8)
		b1(b, 0x41);
	b1(b, 0xb8u + (unsigned)(reg & 7));
	b4(b, v);
}
static void ldx_mem(struct jbuf *b, int reg, unsigned xr) { x_m(b, 0, false, 0x8b, reg, R_X, -1, XOFF(xr)); }

/* x[xr] = reg: a pinned register in the main code only there (written back at exits and calls,
 * pin_flush); cold code writes x[] (and the pinned register) */
static void stx(struct jc *jc, struct jbuf *b, unsigned xr, int reg)
{
	if (pin_of(jc, b, xr) < 0)
		x_m(b, 0, false, 0x89, reg, R_X, -1, XOFF(xr));
	if (xr < 33 && jc->pin[xr] >= 0)
		x_rr(b, false, 0x89, reg, jc->pin[xr]);   /* mov p, reg */
}
static void stx_imm(struct jc *jc, struct jbuf *b, unsigned xr, uint32_t v)
{
	if (pin_of(jc, b, xr) < 0) {
		x_m(b, 0, false, 0xc7, 0, R_X, -1, XOFF(xr));
		b4(b, v);
	}
	if (xr < 33 && jc->pin[xr] >= 0)
		mov_r_imm(b, jc->pin[xr], v);
}
/* reg = x[xr] from its pinned register whichever the buffer (cold code that has not called) */
static void ldx_live(struct jc *jc, struct jbuf *b, int reg, unsigned xr)
{
	int p = xr < 33 ? jc->pin[xr] : -1;
	if (p < 0)
		ldx_mem(b, reg, xr);
	else if (p != reg)
		x_rr(b, false, 0x89, p, reg);   /* mov reg, p */
}
/* reg = x[xr]: the pinned register in the main code, x[] in cold code */
static void ldx(struct jc *jc, struct jbuf *b, int reg, unsigned xr)
{
	if (pin_of(jc, b, xr) < 0)
		ldx_mem(b, reg, xr);
	else
		ldx_live(jc, b, reg, xr);
}
/* Every pinned register stored to x[]: before a call and before leaving the region while they
 * hold the values (not after a call, which made x[] current and clobbered them). */
static void pin_flush(struct jc *jc, struct jbuf *b)
{
	for (unsigned xr = 1; xr < 32; xr++)
		if (jc->pin[xr] >= 0)
			x_m(b, 0, false, 0x89, jc->pin[xr], R_X, -1, XOFF(xr));
}
/* Every pinned register loaded from x[] (region entry, after a call). */
static void pin_reload(struct jc *jc, struct jbuf *b)
{
	for (unsigned xr = 1; xr < 32; xr++)
		if (jc->pin[xr] >= 0)
			x_m(b, 0, false, 0x8b, jc->pin[xr], R_X, -1, XOFF(xr));
}
/* eax = x[xr] as the first thing an instruction emits: from a register that still holds it. */
static void ld_first(struct jc *jc, unsigned xr)
{
	if (jc->in_ax == (int)xr)
		return;
	if (jc->in_dx == (int)xr)
		x_rr(&jc->m, false, 0x89, RDX, RAX);   /* mov eax, edx */
	else
		ldx(jc, &jc->m, RAX, xr);
}
/* op reg, x[xr] (03 add, 2b sub, 23 and, 0b or, 33 xor, 3b cmp, 0faf imul, w: 63 movsxd) */
static void op_rx(struct jc *jc, struct jbuf *b, bool w, unsigned opc, int reg, unsigned xr)
{
	int p = pin_of(jc, b, xr);
	if (p < 0)
		x_m(b, 0, w, opc, reg, R_X, -1, XOFF(xr));
	else
		x_rr(b, w, opc, reg, p);
}
/* eax = x[xr] zero/sign-extended from its low 8 or 16 bits (0fbe, 0fbf, 0fb7) */
static void ext_rx(struct jc *jc, unsigned opc, unsigned xr)
{
	if (pin_of(jc, &jc->m, xr) < 0) {
		x_m(&jc->m, 0, false, opc, RAX, R_X, -1, XOFF(xr));
		return;
	}
	ld_first(jc, xr);
	x_rr(&jc->m, false, opc, RAX, RAX);
}
/* 81 /ext: add 0, or 1, and 4, sub 5, xor 6, cmp 7 */
static void op_ri(struct jbuf *b, bool w, unsigned ext, int reg, uint32_t imm)
{
	x_rr(b, w, 0x81, (int)ext, reg);
	b4(b, imm);
}
/* c1 /ext ib: rol 0, ror 1, shl 4, shr 5, sar 7 */
static void shift_ri(struct jbuf *b, bool w, unsigned ext, int reg, unsigned n)
{
	x_rr(b, w, 0xc1, (int)ext, reg);
	b1(b, n);
}
static void setcc_eax(struct jbuf *b, unsigned cc)
{
	x_rr(b, false, 0x0f90u | cc, 0, RAX);       /* setcc al */
	x_rr(b, false, 0x0fb6u, RAX, RAX);          /* movzx eax, al */
}
static void mov_eax_imm(struct jbuf *b, uint32_t v)
{
	b1(b, 0xb8);
	b4(b, v);
}

/* mov rax, fn; call rax. Compiled code keeps rsp 16-aligned and its state in callee-saved
 * registers, so a C function can be called as is; rax, rcx, rdx, rsi, rdi, r8-r11 are lost. */
static void emit_call(struct jbuf *b, uintptr_t fn)
{
	x_rex(b, true, 0, -1, RAX);
	b1(b, 0xb8);
	b4(b, (uint32_t)fn);
	b4(b, (uint32_t)((uint64_t)fn >> 32));
	b1(b, 0xff);
	b1(b, 0xd0);
}

static void fix_add(struct jc *jc, struct jbuf *b, enum fix_kind kind, uintptr_t val)
{
	if (jc->nfix == JIT_FIXUPS) {
		jc->fix_full = true;
		return;
	}
	if (b->p + 4 > b->end) {
		b->full = true;
		return;
	}
	jc->fix[jc->nfix++] = (struct jit_fix){ b->p, b == &jc->k, kind, val };
	b4(b, 0);
}

static void jmp_to(struct jc *jc, struct jbuf *b, enum fix_kind kind, uintptr_t val)
{
	b1(b, 0xe9);
	fix_add(jc, b, kind, val);
}

static void jcc_to(struct jc *jc, struct jbuf *b, unsigned cc, enum fix_kind kind, uintptr_t val)
{
	b1(b, 0x0f);
	b1(b, 0x80u | cc);
	fix_add(jc, b, kind, val);
}

static void add_count(struct jbuf *b, uint32_t n)
{
	if (n)
		op_ri(b, true, 0, R_IC, n);
}

static uint32_t slot_pc(const struct jc *jc, unsigned slot) { return jc->pg->base + slot * 4u; }

/* Leave before the instruction in `slot` after counting `pend` more completed instructions
 * (flush: the pinned registers hold the values; false after a call). */
static void emit_exit_at(struct jc *jc, struct jbuf *b, unsigned pend, unsigned slot, bool flush)
{
	if (flush)
		pin_flush(jc, b);
	add_count(b, pend);
	x_m(b, 0, false, 0xc7, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, pc));
	b4(b, slot_pc(jc, slot));
	mov_eax_imm(b, RV_JIT_EXIT_AT);
	jmp_to(jc, b, FIX_EXIT, 0);
}

/* A forward jcc rel32 inside one emitted sequence: the displacement to patch (jcc_land). */
static uint8_t *jcc_fwd(struct jbuf *b, unsigned cc)
{
	b1(b, 0x0f);
	b1(b, 0x80u | cc);
	uint8_t *rel = b->p;
	b4(b, 0);
	return rel;
}
static void jcc_land(struct jbuf *b, uint8_t *rel)
{
	if (!b->full) {
		int32_t d = (int32_t)(b->p - (rel + 4));
		memcpy(rel, &d, 4);
	}
}

/* Chaining: a jump that leaves the region for a slot of the same page goes straight into that
 * slot's compiled code when it has some, as the interpreter's own same-page jumps do (JUMP,
 * JUMP_LOCAL: no lookup, no event check) and with the same limit: below the event-check limit
 * only. What a slot holds is read at every jump from the core's page (ctx->insn, ctx->jit: the
 * slot's handler is the compiled-code handler exactly while pg->jit[slot] is its entry), so a
 * reset or an invalidation needs nothing here, and code shared between cores reads each core's
 * own page. The pinned registers are stored (the entry stub of the target loads its own). rcx
 * holds the byte offset of the slot in the page; rax, rdx are free; falls through when not
 * taken. */
static void emit_chain_rcx(struct jbuf *b)
{
	x_m(b, 0, true, 0x3b, R_IC, R_CTX, -1, offsetof(struct rv_jit_ctx, limit));     /* cmp r13, limit */
	uint8_t *at_limit = jcc_fwd(b, CC_AE);
	x_m(b, 0, true, 0x8b, RDX, R_CTX, -1, offsetof(struct rv_jit_ctx, insn));      /* mov rdx, insn */
	x_m(b, 0, true, 0x8b, RAX, R_CTX, -1, offsetof(struct rv_jit_ctx, jit_h));     /* mov rax, jit_h */
	shift_ri(b, true, 4, RCX, 2);                                                   /* rcx = slot * 16 */
	_Static_assert(sizeof(struct rv_insn) == 16 && offsetof(struct rv_insn, h) == 0, "slot layout");
	x_m(b, 0, true, 0x39, RAX, RDX, RCX, 0);                                         /* cmp [rdx+rcx], rax */
	uint8_t *not_compiled = jcc_fwd(b, CC_NE);
	shift_ri(b, true, 5, RCX, 1);                                                   /* rcx = slot * 8 */
	x_m(b, 0, true, 0x8b, RDX, R_CTX, -1, offsetof(struct rv_jit_ctx, jit));       /* mov rdx, jit */
	x_m(b, 0, true, 0xff, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, chained));     /* inc chained */
	x_m(b, 0, false, 0xff, 4, RDX, RCX, 0);                                          /* jmp [rdx+rcx] */
	jcc_land(b, at_limit);
	jcc_land(b, not_compiled);
}

/* Leave through lookup: a taken jump from `from` to `to` (already counted); chained when `to`
 * is a slot of this page and chain is set (not for exits at the limit). */
static void emit_exit_jump(struct jc *jc, struct jbuf *b, uint32_t from, uint32_t to, bool chain)
{
	pin_flush(jc, b);
	if (chain && ((to - jc->pg->base) & ~0xffcu) == 0) {
		_Static_assert(BH_L1_PAGE_SHIFT == 12, "0xffc: a slot of the page");
		b1(b, 0xb9);                                                             /* mov ecx, offset */
		b4(b, to - jc->pg->base);
		emit_chain_rcx(b);
	}
	x_m(b, 0, false, 0xc7, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, pc));
	b4(b, to);
	x_m(b, 0, false, 0xc7, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, fpc));
	b4(b, from);
	mov_eax_imm(b, RV_JIT_EXIT_JUMP);
	jmp_to(jc, b, FIX_EXIT, 0);
}

static uintptr_t cold_here(const struct jc *jc) { return (uintptr_t)(jc->k.p - jc->k.start); }

/* Instructions the compiler handles (inline, or through rv32_jit_alu); the region ends at any
 * other, and the interpreter executes it. */
static bool jit_compilable(unsigned op)
{
	switch (op) {
	case RV_OP_lui: case RV_OP_auipc: case RV_OP_jal: case RV_OP_jalr: case RV_OP_fence:
	case RV_OP_beq: case RV_OP_bne: case RV_OP_blt: case RV_OP_bge: case RV_OP_bltu: case RV_OP_bgeu:
	case RV_OP_lb: case RV_OP_lh: case RV_OP_lw: case RV_OP_lbu: case RV_OP_lhu:
	case RV_OP_sb: case RV_OP_sh: case RV_OP_sw:
	case RV_OP_addi: case RV_OP_slti: case RV_OP_sltiu: case RV_OP_xori: case RV_OP_ori: case RV_OP_andi:
	case RV_OP_slli: case RV_OP_srli: case RV_OP_srai:
	case RV_OP_add: case RV_OP_sub: case RV_OP_sll: case RV_OP_slt: case RV_OP_sltu: case RV_OP_xor:
	case RV_OP_srl: case RV_OP_sra: case RV_OP_or: case RV_OP_and:
	case RV_OP_mul: case RV_OP_mulh: case RV_OP_mulhsu: case RV_OP_mulhu:
	case RV_OP_sh1add: case RV_OP_sh2add: case RV_OP_sh3add:
	case RV_OP_andn: case RV_OP_orn: case RV_OP_xnor: case RV_OP_min: case RV_OP_max: case RV_OP_minu:
	case RV_OP_maxu: case RV_OP_sext_b: case RV_OP_sext_h: case RV_OP_zext_h: case RV_OP_rol: case RV_OP_ror:
	case RV_OP_rori: case RV_OP_rev8:
		return true;   /* inline */
	case RV_OP_div: case RV_OP_divu: case RV_OP_rem: case RV_OP_remu:
		return true;   /* inline, edge cases out of line */
	case RV_OP_clz: case RV_OP_ctz: case RV_OP_cpop: case RV_OP_orc_b: case RV_OP_pack: case RV_OP_brev8:
		return true;   /* rv32_jit_alu */
	default:
		return false;
	}
}

/* Address of a load/store in eax, then the one-branch "in L1 and naturally aligned" check
 * (the interpreter's RV_IN) with `bad` taken when it fails. lg = log2(size). */
static void emit_addr_check(struct jc *jc, const struct rv_insn *in, unsigned lg, uintptr_t cold_off)
{
	struct jbuf *m = &jc->m;
	ld_first(jc, in->rs1);
	if (in->imm)
		op_ri(m, false, 0, RAX, (uint32_t)in->imm);
	if (lg) {
		x_rr(m, false, 0x89, RAX, RCX);              /* mov ecx, eax */
		shift_ri(m, false, 1, RCX, lg);              /* ror ecx, lg */
		op_ri(m, false, 7, RCX, BH_L1_SIZE >> lg);
	} else {
		op_ri(m, false, 7, RAX, BH_L1_SIZE);
	}
	jcc_to(jc, m, CC_AE, FIX_COLD, cold_off);
}

/* Cold half of a memory access: the own local RAM (offset in ecx), else leave before it. */
static void emit_ldm_check(struct jc *jc, unsigned lg, uintptr_t exit_off)
{
	struct jbuf *k = &jc->k;
	x_rr(k, false, 0x89, RAX, RCX);
	op_ri(k, false, 5, RCX, BH_LDM_BASE);
	if (lg) {
		x_rr(k, false, 0x89, RCX, RDX);
		shift_ri(k, false, 1, RDX, lg);
		op_ri(k, false, 7, RDX, jc->c->ldm_size >> lg);
	} else {
		op_ri(k, false, 7, RCX, jc->c->ldm_size);
	}
	jcc_to(jc, k, CC_AE, FIX_COLD, exit_off);
}

static unsigned ld_opc(unsigned op)
{
	switch (op) {
	case RV_OP_lb: return 0x0fbe;
	case RV_OP_lbu: return 0x0fb6;
	case RV_OP_lh: return 0x0fbf;
	case RV_OP_lhu: return 0x0fb7;
	default: return 0x8b;
	}
}

/* edx = the loaded value in eax, extended as the load says. */
static void emit_extend_eax(struct jbuf *b, unsigned op)
{
	switch (op) {
	case RV_OP_lb: x_rr(b, false, 0x0fbe, RDX, RAX); break;   /* movsx edx, al */
	case RV_OP_lbu: x_rr(b, false, 0x0fb6, RDX, RAX); break;
	case RV_OP_lh: x_rr(b, false, 0x0fbf, RDX, RAX); break;
	case RV_OP_lhu: x_rr(b, false, 0x0fb7, RDX, RAX); break;
	default: x_rr(b, false, 0x89, RAX, RDX); break;          /* mov edx, eax */
	}
}

/* push / pop of a 64-bit register; a forward jmp rel32 to patch (jcc_land) */
static void push_r(struct jbuf *b, int reg)
{
	if (reg & 8)
		b1(b, 0x41);
	b1(b, 0x50u + (unsigned)(reg & 7));
}
static void pop_r(struct jbuf *b, int reg)
{
	if (reg & 8)
		b1(b, 0x41);
	b1(b, 0x58u + (unsigned)(reg & 7));
}
static uint8_t *jmp_fwd(struct jbuf *b)
{
	b1(b, 0xe9);
	uint8_t *rel = b->p;
	b4(b, 0);
	return rel;
}
/* test x[xr], imm in cold code before any call (its pinned register holds it) */
static void test_x_live(struct jc *jc, struct jbuf *b, unsigned xr, uint32_t imm)
{
	int p = xr < 33 ? jc->pin[xr] : -1;
	if (p < 0)
		x_m(b, 0, false, 0xf7, 0, R_X, -1, XOFF(xr));
	else
		x_rr(b, false, 0xf7, 0, p);
	b4(b, imm);
}

/* Forward jumps of one emitted sequence to one place (patched by jumps_land). */
struct jit_jumps {
	uint8_t *rel[16];
	unsigned n;
	bool over;
};
static void jumps_add(struct jit_jumps *j, uint8_t *rel)
{
	if (j->n < 16)
		j->rel[j->n++] = rel;
	else
		j->over = true;
}
static void jumps_land(struct jbuf *b, struct jit_jumps *j)
{
	for (unsigned k = 0; k < j->n; k++)
		jcc_land(b, j->rel[k]);
	if (j->over)
		b->full = true;   /* never: the sequences below take fewer; refuse the region if so */
}

/* An NIU lane for the access in `slot` fits in the cold code and the fixups with more than any
 * instruction takes without lanes (JIT_COLD_WORST, JIT_FIX_WORST) still left for it and every
 * later instruction of the region: a long region of
 * loads and stores gets lanes only where they cannot make it run out of room, so no region the
 * compiler took before is refused now. */
static bool niu_lane_room(const struct jc *jc, unsigned slot)
{
	size_t left = (size_t)(jc->k.end - jc->k.p), remaining = jc->end - slot;
	return left >= JIT_NIU_LANE_BYTES + remaining * JIT_COLD_WORST &&
	       jc->nfix + 5 + remaining * JIT_FIX_WORST <= JIT_FIXUPS;
}

/* First checks of an NIU access at eax (word aligned, one of the four request initiators' windows
 * or the counters of either NoC, the lane `lane` of the context open, no deferred Tensix words),
 * jumping to `slow` when one fails: ecx = addr - NIU0 (bit 16 the NoC), rdx = the core. */
static void emit_niu_enter(struct jbuf *k, int32_t lane, struct jit_jumps *slow)
{
	x_rr(k, false, 0x89, RAX, RCX);                                              /* mov ecx, eax */
	op_ri(k, false, 0, RCX, 0u - BH_NIU_BASE(0));
	x_rr(k, false, 0xf7, 0, RCX);                                                /* test ecx, imm */
	b4(k, ~(0x10000u | 0x1ffcu));
	jumps_add(slow, jcc_fwd(k, CC_NE));
	x_m(k, 0, true, 0x83, 7, R_CTX, -1, lane);                                     /* cmp qword lane, 0 */
	b1(k, 0);
	jumps_add(slow, jcc_fwd(k, CC_E));
	x_m(k, 0, true, 0x8b, RDX, R_CTX, -1, offsetof(struct rv_jit_ctx, core));
	x_m(k, 0, false, 0x80, 7, RDX, -1, offsetof(struct bh_core, tt_deferred));      /* cmp byte, 0 */
	b1(k, 0);
	jumps_add(slow, jcc_fwd(k, CC_NE));
}

/* noc-shared-initiator's record of command buffer ecx of the NIU at rax (fabric/niu_check.h):
 * r9 = the buffer's bh_niu_programming - its offset in the NIU (prog), rcx = the same for this
 * core's part of it; then the jumps to `fresh` when the access needs a new number (the core has
 * not begun a transaction, or another core took the last number: bh_niu_number). eax is lost. */
static void emit_niu_record(struct jbuf *k, int32_t prog, struct jit_jumps *fresh)
{
	x_rr(k, false, 0x69, R9, RCX);                                                /* imul r9d, ecx, size */
	b4(k, (uint32_t)sizeof(struct bh_niu_programming));
	x_rr(k, true, 0x01, RAX, R9);
	x_m(k, 0, false, 0x8b, RCX, R_CTX, -1, offsetof(struct rv_jit_ctx, niu_who_off));
	x_rr(k, true, 0x01, R9, RCX);
	x_m(k, 0, false, 0x8b, RAX, RCX, -1, prog + (int32_t)offsetof(struct bh_niu_programming, core[0].first));
	x_m(k, 0, false, 0x3b, RAX, R9, -1, prog + (int32_t)offsetof(struct bh_niu_programming, issued));
	jumps_add(fresh, jcc_fwd(k, CC_BE));
	x_m(k, 0, false, 0x8b, RAX, R9, -1, prog + (int32_t)offsetof(struct bh_niu_programming, last_who));
	x_m(k, 0, false, 0x3b, RAX, R_CTX, -1, offsetof(struct rv_jit_ctx, niu_who));
	jumps_add(fresh, jcc_fwd(k, CC_NE));
}

/* rax = the NIU of the window at ecx (addr - NIU0, bit 16 the NoC) from ctx field `base`. */
static void emit_niu_of(struct jbuf *k, int32_t base)
{
	x_rr(k, false, 0x89, RCX, RAX);
	shift_ri(k, false, 5, RAX, 16);
	x_rr(k, false, 0x69, RAX, RAX);                                               /* imul eax, eax, size */
	b4(k, (uint32_t)sizeof(struct bh_niu));
	x_m(k, 0, true, 0x03, RAX, R_CTX, -1, base);
}

/* Cold, first try of an lw whose address (eax) is neither L1 nor the own local RAM: what
 * bh_mem_load_slow's NIU lane (bh_niu_core_load) does, without a call, for a CMD_CTRL poll of an
 * initiator that is not busy (0, and, with noc-shared-initiator on, the poll numbered as the
 * start of the core's transaction, bh_niu_number) and for a modelled counter's read (its two
 * cells, 8 bits for the per-id ones) while no NoC event waits (nothing for the read to help
 * along). Only when the lane is open (ctx->niu_ld), the core holds no deferred Tensix words and
 * the load would not make it suspect a poll loop (bh_spin_suspect: the slow load then leaves
 * for the monitor as before). Goes on at resume with the value in edx; anything else falls
 * through to the slow load with eax and the pinned registers unchanged. */
static void emit_niu_load(struct jc *jc, unsigned slot, unsigned pend, uint8_t *resume)
{
	struct jbuf *k = &jc->k;
	struct jit_jumps slow = { .n = 0 }, popped = { .n = 0 };
	const int32_t busy = (int32_t)offsetof(struct bh_niu, busy), prog = (int32_t)offsetof(struct bh_niu, prog);
	const uint64_t modelled = 0xFFFFFFFFFCF7ull;   /* EXACT counters 0-15 and the per-id ones 16-47 */
	_Static_assert(BH_NIU_MST_RD_DATA_WORD_RECEIVED == 3 && BH_NIU_MST_NONPOSTED_WR_DATA_WORD_SENT == 8 &&
			       BH_NIU_MST_POSTED_WR_DATA_WORD_SENT == 9 && BH_NIU_MST_REQS_OUTSTANDING_ID0 == 16 &&
			       BH_NIU_SLV_ATOMIC_RESP_SENT == 48,
		       "the modelled counters' mask");

	emit_niu_enter(k, offsetof(struct rv_jit_ctx, niu_ld), &slow);
	x_m(k, 0, true, 0x8b, RDX, RDX, -1, offsetof(struct bh_core, spin.next_allowed));
	push_r(k, RAX);
	x_m(k, 0, true, 0x8d, RAX, R_IC, -1, (int32_t)pend);                           /* lea rax, [r13 + pend] */
	x_rr(k, true, 0x3b, RAX, RDX);                                                /* cmp rax, rdx */
	pop_r(k, RAX);
	jumps_add(&slow, jcc_fwd(k, CC_AE));                                           /* a suspected poll */
	/* edx = window offset - 0x200: a counter below 0x100 */
	x_rr(k, false, 0x89, RCX, RDX);
	op_ri(k, false, 4, RDX, 0xffffu);
	op_ri(k, false, 5, RDX, BH_NIU_COUNTER_BASE);
	op_ri(k, false, 7, RDX, 4u * BH_NIU_COUNTER_CELLS);
	uint8_t *counter = jcc_fwd(k, CC_B);
	x_rr(k, false, 0x89, RCX, RDX);
	op_ri(k, false, 4, RDX, BH_NIU_CMD_BUF_STRIDE - 1);
	op_ri(k, false, 7, RDX, BH_NIU_CMD_CTRL);
	jumps_add(&slow, jcc_fwd(k, CC_NE));

	/* CMD_CTRL of buffer (ecx >> 11) & 3. */
	push_r(k, RAX);
	push_r(k, R8);
	push_r(k, R9);
	emit_niu_of(k, offsetof(struct rv_jit_ctx, niu_ld));
	shift_ri(k, false, 5, RCX, 11);
	op_ri(k, false, 4, RCX, BH_NIU_CMD_BUFS - 1);                                  /* ecx = buf */
	x_m(k, 0, false, 0x80, 7, RAX, RCX, busy);                                     /* cmp byte busy[buf], 0 */
	b1(k, 0);
	jumps_add(&popped, jcc_fwd(k, CC_NE));
	x_m(k, 0, false, 0xf6, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, niu_checks));  /* test byte, 2 */
	b1(k, 2);
	uint8_t *no_shared = jcc_fwd(k, CC_E);
	/* bh_niu_number(poll): the number of the core's writes in a row, else a new one. */
	struct jit_jumps fresh = { .n = 0 };
	emit_niu_record(k, prog, &fresh);
	x_m(k, 0, false, 0x8b, RAX, R9, -1, prog + (int32_t)offsetof(struct bh_niu_programming, seq));
	uint8_t *have = jmp_fwd(k);
	jumps_land(k, &fresh);
	mov_eax_imm(k, 1);
	x_m(k, 0xf0, false, 0x0fc1, RAX, R9, -1, prog + (int32_t)offsetof(struct bh_niu_programming, seq)); /* lock xadd */
	op_ri(k, false, 0, RAX, 1);
	x_m(k, 0, false, 0x8b, R8, R_CTX, -1, offsetof(struct rv_jit_ctx, niu_who));
	x_m(k, 0, false, 0x89, R8, R9, -1, prog + (int32_t)offsetof(struct bh_niu_programming, last_who));
	jcc_land(k, have);
	x_m(k, 0, false, 0x89, RAX, RCX, -1, prog + (int32_t)offsetof(struct bh_niu_programming, core[0].first));
	x_m(k, 0, false, 0xc7, 0, RCX, -1, prog + (int32_t)offsetof(struct bh_niu_programming, core[0].first_pc));
	b4(k, slot_pc(jc, slot));
	jcc_land(k, no_shared);
	x_rr(k, false, 0x31, RDX, RDX);                                               /* xor edx, edx: not busy */
	pop_r(k, R9);
	pop_r(k, R8);
	op_ri(k, true, 0, RSP, 8);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)resume);
	jumps_land(k, &popped);
	pop_r(k, R9);
	pop_r(k, R8);
	pop_r(k, RAX);
	uint8_t *to_slow = jmp_fwd(k);
	jumps_add(&slow, to_slow);

	/* A counter: edx its offset (4 * index) while no NoC event waits. */
	jcc_land(k, counter);
	x_m(k, 0, true, 0x83, 7, R_CTX, -1, offsetof(struct rv_jit_ctx, noc_due));      /* cmp qword noc_due, 0 */
	b1(k, 0);
	uint8_t *no_engine = jcc_fwd(k, CC_E);
	push_r(k, RAX);
	x_m(k, 0, true, 0x8b, RAX, R_CTX, -1, offsetof(struct rv_jit_ctx, noc_due));
	x_m(k, 0, true, 0x83, 7, RAX, -1, 0);                                          /* cmp qword [rax], -1 */
	b1(k, 0xff);
	pop_r(k, RAX);
	jumps_add(&slow, jcc_fwd(k, CC_NE));
	jcc_land(k, no_engine);
	push_r(k, RAX);
	emit_niu_of(k, offsetof(struct rv_jit_ctx, niu_ld));
	x_rr(k, false, 0x89, RDX, RCX);
	shift_ri(k, false, 5, RCX, 2);                                                /* ecx = index */
	push_r(k, R8);
	x_rex(k, true, 0, -1, R8);                                                     /* mov r8, modelled */
	b1(k, 0xb8);
	b4(k, (uint32_t)modelled);
	b4(k, (uint32_t)(modelled >> 32));
	x_rr(k, true, 0x0fa3, RCX, R8);                                               /* bt r8, rcx */
	pop_r(k, R8);
	uint8_t *unmodelled = jcc_fwd(k, CC_AE);                                       /* jnc */
	x_rr(k, true, 0x01, RDX, RAX);                                                /* rax = the NIU + 4 * index */
	x_m(k, 0, false, 0x8b, RDX, RAX, -1, (int32_t)offsetof(struct bh_niu, counter_run));
	x_m(k, 0, false, 0x03, RDX, RAX, -1, (int32_t)offsetof(struct bh_niu, counter));
	x_rr(k, false, 0x83, 7, RCX);                                                 /* cmp ecx, 16 */
	b1(k, BH_NIU_MST_REQS_OUTSTANDING_ID0);
	uint8_t *wide = jcc_fwd(k, CC_B);
	x_rr(k, false, 0x0fb6, RDX, RDX);                                             /* movzx edx, dl */
	jcc_land(k, wide);
	op_ri(k, true, 0, RSP, 8);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)resume);
	jcc_land(k, unmodelled);
	pop_r(k, RAX);
	jumps_land(k, &slow);
}

/* Cold: the address (eax) is neither L1 nor the own local RAM. rv32_jit_load_slow does what the
 * interpreter's slow path does; on a fault or a blocked access the interpreter executes the load
 * again (nothing happened yet), and a load that makes the core suspect a poll loop leaves after
 * it for the monitor, as the interpreter's LOAD_HOOK does. */
static void emit_slow_load(struct jc *jc, unsigned slot, const struct rv_insn *in, unsigned pend, uint8_t *resume)
{
	struct jbuf *k = &jc->k;
	unsigned size = in->op == RV_OP_lw ? 4 : in->op == RV_OP_lh || in->op == RV_OP_lhu ? 2 : 1;
	uint32_t pc = slot_pc(jc, slot);
	pin_flush(jc, k);
	x_m(k, 0, true, 0x8b, RDI, R_CTX, -1, offsetof(struct rv_jit_ctx, core));   /* mov rdi, core */
	x_rr(k, false, 0x89, RAX, RSI);                                               /* mov esi, eax */
	b1(k, 0xba);                                                                  /* mov edx, size */
	b4(k, size);
	b1(k, 0xb9);                                                                  /* mov ecx, pc */
	b4(k, pc);
	x_m(k, 0, true, 0x8d, R8, R_IC, -1, (int32_t)pend);                           /* lea r8, [r13 + pend] */
	emit_call(k, (uintptr_t)&rv32_jit_load_slow);
	x_rr(k, true, 0x89, RAX, RCX);                                                /* mov rcx, rax */
	shift_ri(k, true, 5, RCX, 32);                                                /* shr rcx, 32 */
	emit_extend_eax(k, in->op);
	x_rr(k, false, 0x85, RCX, RCX);                                               /* test ecx, ecx */
	unsigned not_ok = jc->nfix;
	jcc_to(jc, k, CC_NE, FIX_COLD, 0);
	pin_reload(jc, k);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)resume);
	if (not_ok < jc->nfix)
		jc->fix[not_ok].val = cold_here(jc);
	x_rr(k, false, 0x83, 7, RCX);                                                 /* cmp ecx, RETRY */
	b1(k, RV_JIT_LOAD_RETRY);
	unsigned retry = jc->nfix;
	jcc_to(jc, k, CC_E, FIX_COLD, 0);
	/* RV_JIT_LOAD_SUSPECT: the value is the load's; leave after it for the monitor. */
	stx(jc, k, in->rd, RDX);
	add_count(k, pend + 1);
	x_m(k, 0, false, 0xc7, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, pc));
	b4(k, pc + 4);
	mov_eax_imm(k, RV_JIT_EXIT_MONITOR);
	jmp_to(jc, k, FIX_EXIT, 0);
	if (retry < jc->nfix)
		jc->fix[retry].val = cold_here(jc);
	emit_exit_at(jc, k, pend, slot, false);
}

static void emit_load(struct jc *jc, unsigned slot, const struct rv_insn *in, unsigned pend)
{
	unsigned lg = in->op == RV_OP_lw ? 2 : in->op == RV_OP_lh || in->op == RV_OP_lhu ? 1 : 0;
	unsigned opc = ld_opc(in->op);
	/* cold layout: [ldm check, load, jmp resume] [exit stub] */
	uintptr_t cold = cold_here(jc);
	emit_addr_check(jc, in, lg, cold);
	x_m(&jc->m, 0, false, opc, RDX, R_L1, RAX, 0);
	uint8_t *resume = jc->m.p;
	stx(jc, &jc->m, in->rd, RDX);
	jc->out_dx = in->rd == 32 ? -1 : in->rd;   /* eax: the address, or the slow load's result */

	struct jbuf *k = &jc->k;
	unsigned ldm_fix = jc->nfix;                  /* the jae of emit_ldm_check, patched below */
	emit_ldm_check(jc, lg, 0);
	x_m(k, 0, true, 0x03, RCX, R_CTX, -1, offsetof(struct rv_jit_ctx, ldm));     /* add rcx, local RAM base */
	x_m(k, 0, false, opc, RDX, RCX, -1, 0);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)resume);
	/* Anything else (register windows, other cores' local RAM, ...): the interpreter's slow
	 * load through a call, so a poll of a register stays in compiled code. */
	uintptr_t slow_off = cold_here(jc);
	if (in->op == RV_OP_lw && niu_lane_room(jc, slot))
		emit_niu_load(jc, slot, pend, resume);
	emit_slow_load(jc, slot, in, pend, resume);
	if (ldm_fix < jc->nfix)
		jc->fix[ldm_fix].val = slow_off;
}

/* Cold, first try of an sw whose address (eax) is neither L1 nor the own local RAM: what
 * bh_mem_store_slow's first lane does (cores/core.c, fabric/niu_lane.h) for an aligned store to
 * a command-buffer register whose store has no effect but its value, without a call. It stores
 * the value into the register when the lane is open (ctx->niu_st, see rv_jit_ctx), no core of
 * the tile watches a register, the core holds no deferred Tensix words, the register is a plain
 * one (addresses, lengths, atomic data) or NOC_CTRL / NOC_PACKET_TAG with a value the NIU
 * accepts, its CMD_CTRL is not busy when noc-busy-reprogram is on, and, when
 * noc-shared-initiator is on, the store continues this core's transaction with nobody's write
 * in between (bh_niu_number's case without a new number: the record takes its last write and
 * pc); then it goes on at resume with eax and edx as the inline path leaves them. Anything else
 * falls through to the slow store after it, with eax and the pinned registers unchanged, which
 * does it (or reports the finding) as before. */
static void emit_niu_store(struct jc *jc, unsigned slot, const struct rv_insn *in, uint8_t *resume,
			   struct jit_jumps *issue)
{
	struct jbuf *k = &jc->k;
	struct jit_jumps slow = { .n = 0 }, popped = { .n = 0 };
	const int32_t cmdbuf = (int32_t)offsetof(struct bh_niu, cmdbuf), busy = (int32_t)offsetof(struct bh_niu, busy);
	const int32_t prog = (int32_t)offsetof(struct bh_niu, prog);
	_Static_assert(BH_NIU_BASE(1) - BH_NIU_BASE(0) == 0x10000u && BH_NIU_CMD_BUF_STRIDE == 0x800u &&
			       BH_NIU_CMD_BUFS == 4u && BH_NIU_CMDBUF_CELLS * 4u == 68u,
		       "the decode below");
	_Static_assert(BH_NIU_PLAIN_CELLS == 0x73fu, "cells 0-5 and 8-10 plain: below 0x2c all but CTRL, PACKET_TAG");

	/* ecx = addr - NIU0: only bit 16 (the NoC) and bits 12..2 (four buffers, word aligned). */
	emit_niu_enter(k, offsetof(struct rv_jit_ctx, niu_st), &slow);
	x_m(k, 0, true, 0x8b, RDX, R_CTX, -1, offsetof(struct rv_jit_ctx, reg_watches));
	x_m(k, 0, false, 0x83, 7, RDX, -1, 0);                                        /* cmp dword [rdx], 0 */
	b1(k, 0);
	jumps_add(&slow, jcc_fwd(k, CC_NE));
	/* edx = the register's offset in its buffer; the value as bh_niu_plain_value takes it. */
	x_rr(k, false, 0x89, RCX, RDX);
	op_ri(k, false, 4, RDX, BH_NIU_CMD_BUF_STRIDE - 1);
	op_ri(k, false, 7, RDX, BH_NIU_CTRL);
	uint8_t *not_ctrl = jcc_fwd(k, CC_NE);
	test_x_live(jc, k, in->rs2, BH_NOC_CTRL_L1_ACC_AT_EN | BH_NOC_CTRL_RESERVED);
	jumps_add(&slow, jcc_fwd(k, CC_NE));
	ldx_live(jc, k, RDX, in->rs2);
	op_ri(k, false, 4, RDX, BH_NOC_CTRL_TYPE_MASK);
	op_ri(k, false, 7, RDX, 3);
	jumps_add(&slow, jcc_fwd(k, CC_E));
	b1(k, 0xba);                                                                  /* mov edx, CTRL */
	b4(k, BH_NIU_CTRL);
	uint8_t *ctrl_ok = jmp_fwd(k);
	jcc_land(k, not_ctrl);
	op_ri(k, false, 7, RDX, BH_NIU_PACKET_TAG);
	uint8_t *not_tag = jcc_fwd(k, CC_NE);
	test_x_live(jc, k, in->rs2, ~(0xFu << 10));
	jumps_add(&slow, jcc_fwd(k, CC_NE));
	uint8_t *tag_ok = jmp_fwd(k);
	jcc_land(k, not_tag);
	op_ri(k, false, 7, RDX, BH_NIU_CMD_CTRL);
	jumps_add(issue, jcc_fwd(k, CC_E));                                            /* a request's issue */
	op_ri(k, false, 7, RDX, BH_NIU_BRCST_EXCLUDE);
	jumps_add(&slow, jcc_fwd(k, CC_AE));
	jcc_land(k, ctrl_ok);
	jcc_land(k, tag_ok);

	/* Three registers more: eax (the address, for the slow store) and two pinned ones. */
	push_r(k, RAX);
	push_r(k, R8);
	push_r(k, R9);
	x_rr(k, false, 0x89, RCX, RAX);
	shift_ri(k, false, 5, RAX, 16);                                               /* eax = noc */
	x_rr(k, false, 0x69, RAX, RAX);                                               /* imul eax, eax, size */
	b4(k, (uint32_t)sizeof(struct bh_niu));
	x_m(k, 0, true, 0x03, RAX, R_CTX, -1, offsetof(struct rv_jit_ctx, niu_st));    /* rax = the NIU */
	shift_ri(k, false, 5, RCX, 11);
	op_ri(k, false, 4, RCX, BH_NIU_CMD_BUFS - 1);                                  /* ecx = buf */
	x_m(k, 0, false, 0xf6, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, niu_checks));  /* test byte, 1 */
	b1(k, 1);
	uint8_t *no_busy = jcc_fwd(k, CC_E);
	x_m(k, 0, false, 0x80, 7, RAX, RCX, busy);                                     /* cmp byte busy[buf], 0 */
	b1(k, 0);
	jumps_add(&popped, jcc_fwd(k, CC_NE));
	jcc_land(k, no_busy);
	x_rr(k, false, 0x69, R8, RCX);                                                /* imul r8d, ecx, 68 */
	b4(k, BH_NIU_CMDBUF_CELLS * 4u);
	x_rr(k, true, 0x01, RDX, R8);                                                 /* add r8, rdx */
	x_rr(k, true, 0x01, RAX, R8);                                                 /* add r8, rax: cell - cmdbuf */
	x_m(k, 0, false, 0xf6, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, niu_checks));  /* test byte, 2 */
	b1(k, 2);
	uint8_t *no_shared = jcc_fwd(k, CC_E);
	/* begun and this core took the last number: the write shares it (else a new number: the
	 * slow store takes it). */
	emit_niu_record(k, prog, &popped);
	x_m(k, 0, false, 0x8b, RAX, R9, -1, prog + (int32_t)offsetof(struct bh_niu_programming, seq));
	x_m(k, 0, false, 0x89, RAX, RCX, -1, prog + (int32_t)offsetof(struct bh_niu_programming, core[0].last));
	x_m(k, 0, false, 0xc7, 0, RCX, -1, prog + (int32_t)offsetof(struct bh_niu_programming, core[0].last_pc));
	b4(k, slot_pc(jc, slot));
	x_m(k, 0, false, 0x89, RDX, RCX, -1, prog + (int32_t)offsetof(struct bh_niu_programming, core[0].last_off));
	jcc_land(k, no_shared);
	/* The value (its pinned register may be one of the two pushed) into its register. */
	int p = in->rs2 < 33 ? jc->pin[in->rs2] : -1;
	if (p == R8 || p == R9)
		x_m(k, 0, false, 0x8b, RAX, RSP, -1, p == R9 ? 0 : 8);
	else
		ldx_live(jc, k, RAX, in->rs2);
	x_m(k, 0, false, 0x89, RAX, R8, -1, cmdbuf);
	pop_r(k, R9);
	pop_r(k, R8);
	op_ri(k, true, 0, RSP, 8);                                                    /* drop the address */
	ldx_live(jc, k, RDX, in->rs2);
	if (!in->imm)
		ldx_live(jc, k, RAX, in->rs1);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)resume);
	jumps_land(k, &popped);
	pop_r(k, R9);
	pop_r(k, R8);
	pop_r(k, RAX);
	jumps_land(k, &slow);
}

/* A compiled sw to a CMD_CTRL with the NIU lane open (emit_niu_store: serial scheduling, REORDER
 * and MMIO provocation off, no deferred Tensix words): the atomic it issues done in one step
 * (bh_mem_store_issue), else the device store bh_mem_store_slow would reach after its lanes (not
 * trying them twice); the results as rv32_jit_store_slow gives them. */
static uint32_t rv32_jit_niu_issue(struct bh_core *c, uint32_t addr, uint32_t val, uint32_t size, uint32_t pc,
				   uint64_t icount)
{
	c->instret = icount;
	c->pc = pc;
	int r = bh_mem_store_issue(c, addr, val);
	if (r == BH_NIU_LANE_GENERAL)
		r = bh_mem_store_device(c, addr, size, val);
	return r == BH_ACC_OK ? 0 : r == BH_ACC_BLOCKED ? RV_JIT_EXIT_BLOCKED : RV_JIT_EXIT_FAULT;
}

/* Cold: a store whose address (eax) is neither L1 nor the own local RAM. rv32_jit_store_slow
 * does what the interpreter's slow path does; when the store faulted or blocked the code leaves
 * before it with the exit the function returned (the fault is filled in, the core registered as
 * a waiter), and the interpreter takes it as its own slow store would. After a store that went
 * through, eax and edx hold again what the inline path leaves in them. */
static void emit_slow_store(struct jc *jc, unsigned slot, const struct rv_insn *in, unsigned pend, uint8_t *resume,
			    uintptr_t fn)
{
	struct jbuf *k = &jc->k;
	unsigned size = in->op == RV_OP_sw ? 4 : in->op == RV_OP_sh ? 2 : 1;
	pin_flush(jc, k);
	x_m(k, 0, true, 0x8b, RDI, R_CTX, -1, offsetof(struct rv_jit_ctx, core));   /* mov rdi, core */
	x_rr(k, false, 0x89, RAX, RSI);                                               /* mov esi, eax */
	ldx(jc, k, RDX, in->rs2);                                                     /* mov edx, value */
	b1(k, 0xb9);                                                                  /* mov ecx, size */
	b4(k, size);
	b1(k, 0x41);                                                                  /* mov r8d, pc */
	b1(k, 0xb8);
	b4(k, slot_pc(jc, slot));
	x_m(k, 0, true, 0x8d, R9, R_IC, -1, (int32_t)pend);                           /* lea r9, [r13 + pend] */
	emit_call(k, fn);
	x_rr(k, false, 0x85, RAX, RAX);                                               /* test eax, eax */
	unsigned failed = jc->nfix;
	jcc_to(jc, k, CC_NE, FIX_COLD, 0);
	ldx(jc, k, RDX, in->rs2);
	if (!in->imm)
		ldx(jc, k, RAX, in->rs1);
	pin_reload(jc, k);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)resume);
	if (failed < jc->nfix)
		jc->fix[failed].val = cold_here(jc);
	add_count(k, pend);
	x_m(k, 0, false, 0xc7, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, pc));
	b4(k, slot_pc(jc, slot));
	jmp_to(jc, k, FIX_EXIT, 0);                                                   /* eax: the exit */
}

static void emit_store(struct jc *jc, unsigned slot, const struct rv_insn *in, unsigned pend)
{
	unsigned lg = in->op == RV_OP_sw ? 2 : in->op == RV_OP_sh ? 1 : 0;
	unsigned pfx = lg == 1 ? 0x66 : 0, opc = lg ? 0x89 : 0x88;
	struct jbuf *m = &jc->m, *k = &jc->k;
	uintptr_t cold = cold_here(jc);
	emit_addr_check(jc, in, lg, cold);
	/* A page holding decoded code or a watched word: the interpreter stores and tells them. */
	x_rr(m, false, 0x89, RAX, RCX);
	shift_ri(m, false, 5, RCX, BH_L1_PAGE_SHIFT);
	x_m(m, 0, false, 0x80, 7, R_L1, RCX, BH_L1_SIZE);
	b1(m, 0);
	unsigned page_fix = jc->nfix;
	jcc_to(jc, m, CC_NE, FIX_COLD, 0);
	if (jc->in_dx != in->rs2)
		ldx(jc, m, RDX, in->rs2);
	x_m(m, pfx, false, opc, RDX, R_L1, RAX, 0);
	/* A core that started watching a word here between the check and the store has fenced and
	 * re-read the word before the store landed (sync/watch.h): look again, after the store. */
	x_m(m, 0, false, 0xf6, 0, R_L1, RCX, BH_L1_SIZE);                             /* test byte [page], WATCHED */
	b1(m, BH_PAGE_WATCHED);
	unsigned late_fix = jc->nfix;
	jcc_to(jc, m, CC_NE, FIX_COLD, 0);
	jc->out_dx = in->rs2;   /* the local-RAM path loads it too */
	if (!in->imm)
		jc->out_ax = in->rs1;
	uint8_t *resume = m->p;

	unsigned ldm_fix = jc->nfix;
	emit_ldm_check(jc, lg, 0);
	ldx_live(jc, k, RDX, in->rs2);
	x_m(k, 0, true, 0x03, RCX, R_CTX, -1, offsetof(struct rv_jit_ctx, ldm));     /* add rcx, local RAM base */
	x_m(k, pfx, false, opc, RDX, RCX, -1, 0);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)resume);
	/* Anything else (device registers, other cores' local RAM, misaligned or unmapped): the
	 * interpreter's slow store through a call, so issuing a NoC request stays in compiled code. */
	uintptr_t slow_off = cold_here(jc);
	struct jit_jumps issue = { .n = 0 };
	if (in->op == RV_OP_sw && niu_lane_room(jc, slot))
		emit_niu_store(jc, slot, in, resume, &issue);
	emit_slow_store(jc, slot, in, pend, resume, (uintptr_t)&rv32_jit_store_slow);
	/* A CMD_CTRL store with the lane open: the same call to the issue's own entry. */
	if (issue.n) {
		jumps_land(k, &issue);
		emit_slow_store(jc, slot, in, pend, resume, (uintptr_t)&rv32_jit_niu_issue);
	}
	uintptr_t exit_off = cold_here(jc);
	emit_exit_at(jc, k, pend, slot, true);
	if (page_fix < jc->nfix)
		jc->fix[page_fix].val = exit_off;
	if (ldm_fix < jc->nfix)
		jc->fix[ldm_fix].val = slow_off;
	/* The watched page seen after the store: wake, then go on. */
	uintptr_t late_off = cold_here(jc);
	pin_flush(jc, k);
	x_m(k, 0, true, 0x8b, RDI, R_CTX, -1, offsetof(struct rv_jit_ctx, core));   /* mov rdi, core */
	x_rr(k, false, 0x89, RAX, RSI);                                               /* mov esi, eax */
	b1(k, 0xba);                                                                  /* mov edx, size */
	b4(k, 1u << lg);
	emit_call(k, (uintptr_t)&rv32_jit_store_watched);
	ldx(jc, k, RDX, in->rs2);
	if (!in->imm)
		ldx(jc, k, RAX, in->rs1);
	pin_reload(jc, k);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)resume);
	if (late_fix < jc->nfix)
		jc->fix[late_fix].val = late_off;
}

/* A taken control transfer from slot to target slot t (counted: pend + 1 already added). */
static void emit_goto(struct jc *jc, struct jbuf *b, unsigned slot, uint32_t to, bool local)
{
	uint32_t from = slot_pc(jc, slot);
	unsigned t = (to - jc->pg->base) >> 2;
	bool at_limit = false;
	if (local && t >= jc->s0 && t < jc->end && jc->target[t]) {
		if (t <= slot) {
			/* Back edge: keep going until the event-check limit, then leave through lookup. */
			x_m(b, 0, true, 0x3b, R_IC, R_CTX, -1, offsetof(struct rv_jit_ctx, limit));   /* cmp r13, limit */
			jcc_to(jc, b, CC_B, FIX_LABEL, t);
			at_limit = true;
		} else {
			jmp_to(jc, b, FIX_LABEL, t);
			return;
		}
	}
	emit_exit_jump(jc, b, from, to, !at_limit);
}

static unsigned branch_cc(unsigned op, bool invert)
{
	unsigned cc;
	switch (op) {
	case RV_OP_beq: cc = CC_E; break;
	case RV_OP_bne: cc = CC_NE; break;
	case RV_OP_blt: cc = CC_L; break;
	case RV_OP_bge: cc = CC_GE; break;
	case RV_OP_bltu: cc = CC_B; break;
	default: cc = CC_AE; break;
	}
	return invert ? cc ^ 1 : cc;
}

static void emit_branch(struct jc *jc, unsigned slot, const struct rv_insn *in, unsigned pend)
{
	struct jbuf *m = &jc->m;
	uint32_t pc = slot_pc(jc, slot), to = pc + (uint32_t)in->imm;
	unsigned t = (to - jc->pg->base) >> 2;
	bool back = in->rd && t >= jc->s0 && t <= slot && jc->target[t];
	int p1 = pin_of(jc, m, in->rs1);
	if (p1 >= 0 && jc->in_ax != (int)in->rs1) {
		op_rx(jc, m, false, 0x3b, p1, in->rs2);   /* cmp p1, rs2: eax keeps what it held */
		jc->out_ax = jc->in_ax;
	} else {
		ld_first(jc, in->rs1);
		op_rx(jc, m, false, 0x3b, RAX, in->rs2);
		jc->out_ax = in->rs1;   /* on the fall-through path */
	}
	jc->out_dx = jc->in_dx;
	if (back) {
		/* Loop back edge inline: the taken path is the hot one. */
		uint8_t *skip = jcc_fwd(m, branch_cc(in->op, true));
		add_count(m, pend + 1);
		x_m(m, 0, true, 0x3b, R_IC, R_CTX, -1, offsetof(struct rv_jit_ctx, limit));
		jcc_to(jc, m, CC_B, FIX_LABEL, t);
		uintptr_t cold = cold_here(jc);
		jmp_to(jc, m, FIX_COLD, cold);
		emit_exit_jump(jc, &jc->k, pc, to, false);   /* at the limit */
		jcc_land(m, skip);
		return;
	}
	jcc_to(jc, m, branch_cc(in->op, false), FIX_COLD, cold_here(jc));
	add_count(&jc->k, pend + 1);
	emit_goto(jc, &jc->k, slot, to, in->rd);
}

/* The common ALU instructions whose rd is pinned, computed in rd's host register p (no trip
 * through eax): op p, imm / op p, rs2 when rd is rs1, the commutative ones with the operands
 * swapped when rd is rs2, else p = rs1 first (lea for addi). False: not one of them (or rd is
 * rs2 of a non-commutative one); the eax path does it. */
static bool emit_alu_pinned(struct jc *jc, const struct rv_insn *in, int p)
{
	struct jbuf *m = &jc->m;
	uint32_t imm = (uint32_t)in->imm;
	unsigned rd = in->rd, rs1 = in->rs1, rs2 = in->rs2;
	unsigned ext = 0, opc = 0;
	bool commutes = true;
	switch (in->op) {
	case RV_OP_addi: ext = 0; break;
	case RV_OP_xori: ext = 6; break;
	case RV_OP_ori: ext = 1; break;
	case RV_OP_andi: ext = 4; break;
	case RV_OP_slli: ext = 4 | 0x100; break;
	case RV_OP_srli: ext = 5 | 0x100; break;
	case RV_OP_srai: ext = 7 | 0x100; break;
	case RV_OP_add: opc = 0x03; break;
	case RV_OP_and: opc = 0x23; break;
	case RV_OP_or: opc = 0x0b; break;
	case RV_OP_xor: opc = 0x33; break;
	case RV_OP_mul: opc = 0x0faf; break;
	case RV_OP_sub: opc = 0x2b; commutes = false; break;
	default: return false;
	}
	if (!opc) {   /* the immediate forms */
		if (in->op == RV_OP_addi && rs1 == 0)
			return false;   /* li: one mov of the immediate on the other path */
		int p1 = pin_of(jc, m, rs1);
		if (rs1 != rd && in->op == RV_OP_addi && p1 >= 0) {
			x_m(m, 0, false, 0x8d, p, p1, -1, (int32_t)imm);   /* lea p, [p1 + imm] */
			return true;
		}
		if (rs1 != rd)
			ldx(jc, m, p, rs1);
		if (ext & 0x100)
			shift_ri(m, false, ext & 7, p, imm & 31);
		else if (imm || in->op != RV_OP_addi)
			op_ri(m, false, ext, p, imm);
		return true;
	}
	if (rs1 == rd) {
		op_rx(jc, m, false, opc, p, rs2);
	} else if (rs2 == rd) {
		if (!commutes)
			return false;
		op_rx(jc, m, false, opc, p, rs1);
	} else {
		ldx(jc, m, p, rs1);
		op_rx(jc, m, false, opc, p, rs2);
	}
	return true;
}

/* ALU instructions (rd != x0). Returns false for ops handled by the C helper. */
static bool emit_alu_inline(struct jc *jc, const struct rv_insn *in)
{
	struct jbuf *m = &jc->m;
	uint32_t imm = (uint32_t)in->imm;
	unsigned rd = in->rd, rs1 = in->rs1, rs2 = in->rs2;
	int p = pin_of(jc, m, rd);
	if (p >= 0 && emit_alu_pinned(jc, in, p)) {
		jc->out_ax = jc->in_ax == (int)rd ? -1 : jc->in_ax;
		return true;
	}
	switch (in->op) {
	case RV_OP_lui: case RV_OP_auipc:
		stx_imm(jc, m, rd, imm);
		jc->out_ax = jc->in_ax == (int)rd ? -1 : jc->in_ax;
		jc->out_dx = jc->in_dx == (int)rd ? -1 : jc->in_dx;
		return true;
	case RV_OP_addi:
		if (rs1 == 0) {
			stx_imm(jc, m, rd, imm);
			jc->out_ax = jc->in_ax == (int)rd ? -1 : jc->in_ax;
			jc->out_dx = jc->in_dx == (int)rd ? -1 : jc->in_dx;
			return true;
		}
		ld_first(jc, rs1);
		if (imm)
			op_ri(m, false, 0, RAX, imm);
		break;
	case RV_OP_xori: ld_first(jc, rs1); op_ri(m, false, 6, RAX, imm); break;
	case RV_OP_ori: ld_first(jc, rs1); op_ri(m, false, 1, RAX, imm); break;
	case RV_OP_andi: ld_first(jc, rs1); op_ri(m, false, 4, RAX, imm); break;
	case RV_OP_slti: ld_first(jc, rs1); op_ri(m, false, 7, RAX, imm); setcc_eax(m, CC_L); break;
	case RV_OP_sltiu: ld_first(jc, rs1); op_ri(m, false, 7, RAX, imm); setcc_eax(m, CC_B); break;
	case RV_OP_slli: ld_first(jc, rs1); shift_ri(m, false, 4, RAX, imm & 31); break;
	case RV_OP_srli: ld_first(jc, rs1); shift_ri(m, false, 5, RAX, imm & 31); break;
	case RV_OP_srai: ld_first(jc, rs1); shift_ri(m, false, 7, RAX, imm & 31); break;
	case RV_OP_rori: ld_first(jc, rs1); shift_ri(m, false, 1, RAX, imm & 31); break;
	case RV_OP_add: ld_first(jc, rs1); op_rx(jc, m, false, 0x03, RAX, rs2); break;
	case RV_OP_sub: ld_first(jc, rs1); op_rx(jc, m, false, 0x2b, RAX, rs2); break;
	case RV_OP_and: ld_first(jc, rs1); op_rx(jc, m, false, 0x23, RAX, rs2); break;
	case RV_OP_or: ld_first(jc, rs1); op_rx(jc, m, false, 0x0b, RAX, rs2); break;
	case RV_OP_xor: ld_first(jc, rs1); op_rx(jc, m, false, 0x33, RAX, rs2); break;
	case RV_OP_mul: ld_first(jc, rs1); op_rx(jc, m, false, 0x0faf, RAX, rs2); break;
	case RV_OP_slt: ld_first(jc, rs1); op_rx(jc, m, false, 0x3b, RAX, rs2); setcc_eax(m, CC_L); break;
	case RV_OP_sltu: ld_first(jc, rs1); op_rx(jc, m, false, 0x3b, RAX, rs2); setcc_eax(m, CC_B); break;
	case RV_OP_sll: case RV_OP_srl: case RV_OP_sra: case RV_OP_rol: case RV_OP_ror: {
		unsigned ext = in->op == RV_OP_sll ? 4 : in->op == RV_OP_srl ? 5 : in->op == RV_OP_sra ? 7 :
			       in->op == RV_OP_rol ? 0 : 1;
		ld_first(jc, rs1);
		ldx(jc, m, RCX, rs2);
		x_rr(m, false, 0xd3, (int)ext, RAX);   /* shift eax, cl: the count is masked to 5 bits */
		break;
	}
	case RV_OP_sh1add: case RV_OP_sh2add: case RV_OP_sh3add:
		ld_first(jc, rs1);
		shift_ri(m, false, 4, RAX, in->op == RV_OP_sh1add ? 1 : in->op == RV_OP_sh2add ? 2 : 3);
		op_rx(jc, m, false, 0x03, RAX, rs2);
		break;
	case RV_OP_andn: case RV_OP_orn:
		ldx(jc, m, RAX, rs2);
		x_rr(m, false, 0xf7, 2, RAX);          /* not eax */
		op_rx(jc, m, false, in->op == RV_OP_andn ? 0x23 : 0x0b, RAX, rs1);
		break;
	case RV_OP_xnor:
		ld_first(jc, rs1);
		op_rx(jc, m, false, 0x33, RAX, rs2);
		x_rr(m, false, 0xf7, 2, RAX);
		break;
	case RV_OP_min: case RV_OP_max: case RV_OP_minu: case RV_OP_maxu: {
		/* eax = rs1; replace it by rs2 when rs2 wins */
		unsigned cc = in->op == RV_OP_min ? CC_G : in->op == RV_OP_max ? CC_L : in->op == RV_OP_minu ? CC_A : CC_B;
		ld_first(jc, rs1);
		ldx(jc, m, RCX, rs2);
		x_rr(m, false, 0x39, RCX, RAX);        /* cmp eax, ecx */
		x_rr(m, false, 0x0f40u | cc, RAX, RCX); /* cmovcc eax, ecx */
		break;
	}
	case RV_OP_mulh: case RV_OP_mulhsu: case RV_OP_mulhu:
		if (in->op == RV_OP_mulhu)
			ld_first(jc, rs1);
		else
			op_rx(jc, m, true, 0x63, RAX, rs1);   /* movsxd rax */
		if (in->op == RV_OP_mulh)
			op_rx(jc, m, true, 0x63, RCX, rs2);
		else
			ldx(jc, m, RCX, rs2);
		x_rr(m, true, 0x0faf, RAX, RCX);        /* imul rax, rcx: low 64 bits are exact */
		shift_ri(m, true, 5, RAX, 32);
		break;
	case RV_OP_sext_b: ext_rx(jc, 0x0fbe, rs1); break;
	case RV_OP_sext_h: ext_rx(jc, 0x0fbf, rs1); break;
	case RV_OP_zext_h: ext_rx(jc, 0x0fb7, rs1); break;
	case RV_OP_rev8: ld_first(jc, rs1); b1(m, 0x0f); b1(m, 0xc8); break;   /* bswap eax */
	default:
		return false;
	}
	stx(jc, m, rd, RAX);
	jc->out_ax = (int)rd;
	return true;
}

/* Operands from x[] (the argument registers may be pinned ones); the pinned registers are
 * reloaded after the call. */
static void emit_alu_call(struct jc *jc, const struct rv_insn *in, bool imm_form)
{
	struct jbuf *m = &jc->m;
	pin_flush(jc, m);
	b1(m, 0xbf);                               /* mov edi, op */
	b4(m, in->op);
	ldx_mem(m, RSI, in->rs1);
	if (imm_form) {
		b1(m, 0xba);                       /* mov edx, imm */
		b4(m, (uint32_t)in->imm);
	} else {
		ldx_mem(m, RDX, in->rs2);
	}
	emit_call(m, (uintptr_t)&rv32_jit_alu);
	pin_reload(jc, m);
	stx(jc, m, in->rd, RAX);
}

/* div/divu/rem/remu with the RISC-V results for a zero divisor (all ones / the dividend) and
 * for INT_MIN / -1 (INT_MIN / 0), where x86 would trap: those go out of line. */
static void emit_div(struct jc *jc, const struct rv_insn *in)
{
	struct jbuf *m = &jc->m, *k = &jc->k;
	bool sign = in->op == RV_OP_div || in->op == RV_OP_rem, rem = in->op == RV_OP_rem || in->op == RV_OP_remu;
	ld_first(jc, in->rs1);
	ldx(jc, m, RCX, in->rs2);
	x_rr(m, false, 0x85, RCX, RCX);            /* test ecx, ecx */
	uintptr_t zero = cold_here(jc);
	jcc_to(jc, m, CC_E, FIX_COLD, zero);
	unsigned m1_fix = jc->nfix;
	if (sign) {
		x_rr(m, false, 0x83, 7, RCX);      /* cmp ecx, -1 */
		b1(m, 0xff);
		jcc_to(jc, m, CC_E, FIX_COLD, 0);
		b1(m, 0x99);                       /* cdq */
		x_rr(m, false, 0xf7, 7, RCX);      /* idiv ecx */
	} else {
		x_rr(m, false, 0x31, RDX, RDX);    /* xor edx, edx */
		x_rr(m, false, 0xf7, 6, RCX);      /* div ecx */
	}
	if (rem)
		x_rr(m, false, 0x89, RDX, RAX);    /* mov eax, edx */
	uint8_t *done = m->p;
	stx(jc, m, in->rd, RAX);
	jc->out_ax = in->rd;
	jc->out_dx = -1;
	/* divisor 0: quotient all ones, remainder the dividend (already in eax) */
	if (!rem)
		mov_eax_imm(k, 0xffffffffu);
	jmp_to(jc, k, FIX_ABS, (uintptr_t)done);
	if (sign) {
		/* divisor -1: quotient -dividend (INT_MIN stays INT_MIN), remainder 0 */
		if (m1_fix < jc->nfix)
			jc->fix[m1_fix].val = cold_here(jc);
		if (rem)
			x_rr(k, false, 0x31, RAX, RAX);
		else
			x_rr(k, false, 0xf7, 3, RAX);   /* neg eax */
		jmp_to(jc, k, FIX_ABS, (uintptr_t)done);
	}
}

/* fence, as the fast interpreter does it: when the core may suspect a poll loop (its throttle
 * allows it), leave before the fence for the monitor variant; otherwise a full barrier. */
static void emit_fence(struct jc *jc, unsigned slot, unsigned pend)
{
	struct jbuf *m = &jc->m, *k = &jc->k;
	x_m(m, 0, true, 0x8b, RAX, R_CTX, -1, offsetof(struct rv_jit_ctx, core));   /* mov rax, core */
	x_m(m, 0, true, 0x8b, RAX, RAX, -1,
	    (int32_t)(offsetof(struct bh_core, spin) + offsetof(struct bh_spin, next_allowed)));
	x_m(m, 0, true, 0x8d, RCX, R_IC, -1, (int32_t)pend);                         /* lea rcx, [r13 + pend] */
	x_rr(m, true, 0x39, RAX, RCX);                                               /* cmp rcx, rax */
	jcc_to(jc, m, CC_AE, FIX_COLD, cold_here(jc));
	b1(m, 0x0f);                                                                 /* mfence */
	b1(m, 0xae);
	b1(m, 0xf0);
	pin_flush(jc, k);
	add_count(k, pend);
	x_m(k, 0, false, 0xc7, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, pc));
	b4(k, slot_pc(jc, slot));
	mov_eax_imm(k, RV_JIT_EXIT_MONITOR);
	jmp_to(jc, k, FIX_EXIT, 0);
}

/* Emit one instruction; `pend` counts completed instructions not yet added to r13. */
static void emit_insn(struct jc *jc, unsigned slot, const struct rv_insn *in, unsigned *pend)
{
	struct jbuf *m = &jc->m;
	uint32_t pc = slot_pc(jc, slot);
	jc->in_ax = jc->out_ax;
	jc->in_dx = jc->out_dx;
	jc->out_ax = -1;
	jc->out_dx = jc->in_dx;   /* edx survives what does not clobber it (emitters say so) */
	switch (in->op) {
	case RV_OP_div: case RV_OP_divu: case RV_OP_rem: case RV_OP_remu:
		if (in->rd != 32)
			emit_div(jc, in);
		break;
	case RV_OP_fence:
		emit_fence(jc, slot, *pend);
		break;
	case RV_OP_lb: case RV_OP_lbu: case RV_OP_lh: case RV_OP_lhu: case RV_OP_lw:
		emit_load(jc, slot, in, *pend);
		break;
	case RV_OP_sb: case RV_OP_sh: case RV_OP_sw:
		emit_store(jc, slot, in, *pend);
		break;
	case RV_OP_beq: case RV_OP_bne: case RV_OP_blt: case RV_OP_bge: case RV_OP_bltu: case RV_OP_bgeu:
		emit_branch(jc, slot, in, *pend);
		break;
	case RV_OP_jal:
		jc->out_dx = -1;
		if (in->rd != 32)
			stx_imm(jc, m, in->rd, pc + 4);
		add_count(m, *pend + 1);
		emit_goto(jc, m, slot, pc + (uint32_t)in->imm, in->rs1);
		*pend = 0;
		return;
	case RV_OP_jalr:
		jc->out_dx = -1;
		ld_first(jc, in->rs1);
		if (in->imm)
			op_ri(m, false, 0, RAX, (uint32_t)in->imm);
		op_ri(m, false, 4, RAX, ~1u);
		if (in->rd != 32)
			stx_imm(jc, m, in->rd, pc + 4);
		x_m(m, 0, false, 0x89, RAX, R_CTX, -1, offsetof(struct rv_jit_ctx, pc));
		add_count(m, *pend + 1);
		x_m(m, 0, false, 0xc7, 0, R_CTX, -1, offsetof(struct rv_jit_ctx, fpc));
		b4(m, pc);
		pin_flush(jc, m);
		/* A target in this page (a return, mostly): chained when compiled (emit_chain_rcx). */
		x_rr(m, false, 0x89, RAX, RCX);                                               /* mov ecx, eax */
		op_ri(m, false, 5, RCX, jc->pg->base);                                        /* sub ecx, base */
		x_rr(m, false, 0xf7, 0, RCX);                                                 /* test ecx, ~0xffc */
		b4(m, ~0xffcu);
		uint8_t *other_page = jcc_fwd(m, CC_NE);
		emit_chain_rcx(m);
		jcc_land(m, other_page);
		mov_eax_imm(m, RV_JIT_EXIT_JUMP);
		jmp_to(jc, m, FIX_EXIT, 0);
		*pend = 0;
		return;
	default:
		if (in->rd == 32) {
			jc->out_ax = jc->in_ax;   /* nothing emitted */
			jc->out_dx = jc->in_dx;
		} else if (!emit_alu_inline(jc, in)) {
			emit_alu_call(jc, in, rv_opinfo[in->op].fmt == RV_FMT_I || rv_opinfo[in->op].fmt == RV_FMT_SH);
			jc->out_dx = -1;   /* a call clobbers it */
		} else if (jc->out_dx == (int)in->rd) {
			jc->out_dx = -1;   /* x[rd] changed under the claim */
		}
		break;
	}
	(*pend)++;
}

/* Entry: int enter(struct rv_jit_ctx *ctx = rdi, const void *code = rsi). Exit: eax = kind. */
static void emit_trampolines(struct rv_jit *j)
{
	struct jbuf b = { j->arena, j->arena, j->arena + 256, false };
	static const int saved[] = { RBX, RBP, R12, R13, R14, R15 };
	j->enter = (enum rv_jit_exit (*)(struct rv_jit_ctx *, const void *))(void *)b.p;
	for (unsigned k = 0; k < 6; k++) {
		if (saved[k] & 8)
			b1(&b, 0x41);
		b1(&b, 0x50u + (saved[k] & 7));
	}
	x_rr(&b, true, 0x83, 5, RSP);    /* sub rsp, 8 (keeps calls from compiled code 16-aligned) */
	b1(&b, 8);
	x_rr(&b, true, 0x89, RDI, R_CTX);
	x_m(&b, 0, true, 0x8b, R_X, R_CTX, -1, offsetof(struct rv_jit_ctx, x));
	x_m(&b, 0, true, 0x8b, R_L1, R_CTX, -1, offsetof(struct rv_jit_ctx, l1));
	x_m(&b, 0, true, 0x8b, R_IC, R_CTX, -1, offsetof(struct rv_jit_ctx, icount));
	b1(&b, 0xff);                    /* jmp rsi */
	b1(&b, 0xe6);
	while ((uintptr_t)b.p & 15)
		b1(&b, 0xcc);
	j->exit = b.p;
	x_m(&b, 0, true, 0x89, R_IC, R_CTX, -1, offsetof(struct rv_jit_ctx, icount));
	x_rr(&b, true, 0x83, 0, RSP);    /* add rsp, 8 */
	b1(&b, 8);
	for (unsigned k = 6; k-- > 0;) {
		if (saved[k] & 8)
			b1(&b, 0x41);
		b1(&b, 0x58u + (saved[k] & 7));
	}
	b1(&b, 0xc3);
	while ((uintptr_t)b.p & 63)
		b1(&b, 0xcc);
	j->used = (size_t)(b.p - j->arena);
}

/* An arena of `size` bytes, or of BHEMU_JIT_ARENA_KIB (test knob: a small arena fills up quickly,
 * tests/unit/test_jit.c; also the shared one, so that the cores' own arenas fill after it). */
static size_t jit_arena_size(size_t size)
{
	const char *kib = getenv("BHEMU_JIT_ARENA_KIB");
	if (kib && strtoul(kib, NULL, 10) > 0) {
		unsigned long v = strtoul(kib, NULL, 10);
		size = v > JIT_ARENA_SIZE / 1024 ? JIT_ARENA_SIZE : v < JIT_ARENA_MIN / 1024 ? JIT_ARENA_MIN : v * 1024;
	}
	return size;
}

static void jit_shared_hold(void);

static struct rv_jit *jit_get(struct bh_core *c)
{
	if (c->jit)
		return c->jit;
	struct rv_jit *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->size = jit_arena_size(JIT_ARENA_SIZE);
	j->arena = mmap(NULL, j->size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (j->arena == MAP_FAILED) {
		/* No executable memory (hardened host): this core interprets. */
		free(j);
		c->jit_mode = RV_JIT_OFF;
		return NULL;
	}
	emit_trampolines(j);
	c->jit = j;
	jit_shared_hold();
	return j;
}

/* The shared translations (see the top of the file). */
#define JIT_SHARED_SIZE (64u << 20)      /* reserved; touched as used */
#define JIT_SHARED_SLOTS (1u << 15)      /* table slots; at most 3/4 used */

struct jit_shared_entry {
	uint64_t hash;
	uint32_t pc, n, ldm_size;        /* the region's first address, slots, the compiling core's LDM */
	uint32_t *words;                 /* [n]: what it was compiled from */
	uint32_t *label;                 /* [n]: each slot's entry, as an offset in the arena (0: none) */
};

/* Set up when the first core gets a code arena and torn down when the last one frees its own
 * (every device closed): no core can be running shared code then, since entering any compiled
 * code needs the core's arena (its entry trampoline), and a library unloaded by dlclose leaves
 * nothing behind. */
static struct {
	pthread_mutex_t lock;            /* all of it; compiles into the arena */
	unsigned users;                  /* cores holding a code arena */
	bool on;                         /* the arena is there (not turned off, mapped) */
	struct rv_jit jit;               /* arena and trampolines (the same code as every core's) */
	unsigned entries;
	struct jit_shared_entry *slot[JIT_SHARED_SLOTS];
} jit_shared = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A core got its code arena. */
static void jit_shared_hold(void)
{
	pthread_mutex_lock(&jit_shared.lock);
	if (!jit_shared.users++) {
		const char *e = getenv("BHEMU_JIT_SHARE");
		struct rv_jit *j = &jit_shared.jit;
		j->size = jit_arena_size(JIT_SHARED_SIZE);
		j->arena = e && (!strcmp(e, "0") || !strcmp(e, "off")) ? MAP_FAILED :
			   mmap(NULL, j->size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0);
		if (j->arena != MAP_FAILED) {   /* else each core compiles for itself */
			emit_trampolines(j);
			jit_shared.on = true;
		}
	}
	pthread_mutex_unlock(&jit_shared.lock);
}

/* A core freed its code arena: the last one takes the shared arena and table with it. */
static void jit_shared_release(void)
{
	pthread_mutex_lock(&jit_shared.lock);
	if (!--jit_shared.users && jit_shared.on) {
		for (unsigned i = 0; i < JIT_SHARED_SLOTS; i++) {
			struct jit_shared_entry *e = jit_shared.slot[i];
			if (e) {
				free(e->words);
				free(e->label);
				free(e);
				jit_shared.slot[i] = NULL;
			}
		}
		jit_shared.entries = 0;
		munmap(jit_shared.jit.arena, jit_shared.jit.size);
		jit_shared.jit = (struct rv_jit){ 0 };
		jit_shared.on = false;
	}
	pthread_mutex_unlock(&jit_shared.lock);
}

static uint64_t jit_shared_hash(uint32_t pc, uint32_t n, const uint32_t *w, uint32_t ldm_size)
{
	uint64_t h = 0xcbf29ce484222325ull ^ pc ^ (uint64_t)ldm_size << 32 ^ (uint64_t)n << 52;
	for (uint32_t k = 0; k < n; k++) {
		h = (h ^ w[k]) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

/* The slot holding the region, or the empty slot where it belongs. Lock held. */
static struct jit_shared_entry **jit_shared_find(uint64_t h, uint32_t pc, uint32_t n, const uint32_t *w,
						 uint32_t ldm_size)
{
	for (unsigned i = (unsigned)h & (JIT_SHARED_SLOTS - 1);; i = (i + 1) & (JIT_SHARED_SLOTS - 1)) {
		struct jit_shared_entry *e = jit_shared.slot[i];
		if (!e || (e->hash == h && e->pc == pc && e->n == n && e->ldm_size == ldm_size &&
			   !memcmp(e->words, w, n * sizeof *w)))
			return &jit_shared.slot[i];
	}
}

/* Remember the region just compiled into the shared arena at *where. Lock held. */
static uint8_t *jit_entry(const struct jc *jc, unsigned k);

static void jit_shared_add(struct jit_shared_entry **where, uint64_t h, const struct jc *jc, uint32_t ldm_size)
{
	uint32_t n = jc->end - jc->s0;
	struct jit_shared_entry *e = malloc(sizeof *e);
	uint32_t *words = malloc(n * sizeof *words), *label = calloc(n, sizeof *label);
	if (!e || !words || !label) {
		free(e);
		free(words);
		free(label);
		return;   /* not shared: the cores that compiled it keep their entries */
	}
	memcpy(words, &jc->pg->raw[jc->s0], n * sizeof *words);
	for (uint32_t k = 0; k < n; k++)
		if (jc->target[jc->s0 + k])
			label[k] = (uint32_t)(jit_entry(jc, jc->s0 + k) - jit_shared.jit.arena);
	*e = (struct jit_shared_entry){ h, jc->pg->base + jc->s0 * 4u, n, ldm_size, words, label };
	*where = e;
	jit_shared.entries++;
}

static size_t trampoline_size(const struct rv_jit *j) { return (size_t)(j->exit - j->arena) + 64; }

/* The arena is full: drop every compiled entry (each page's slots go back to "decode me") and
 * start over. Safe because only this thread runs the code, and it is not running it now. */
static void jit_flush(struct bh_core *c, struct rv_jit *j)
{
	for (unsigned p = 0; p < BH_L1_PAGES; p++)
		if (c->pages[0][p])
			rv32_page_reset(c->pages[0][p]);
	j->used = trampoline_size(j);
	atomic_store_explicit(&c->jit_flushes, atomic_load_explicit(&c->jit_flushes, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

static bool jit_resolve(struct jc *jc)
{
	uint8_t *cold_dst = jc->m.p;
	jc->cold_dst = cold_dst;
	size_t cold_len = (size_t)(jc->k.p - jc->k.start);
	if ((size_t)(jc->m.end - cold_dst) < cold_len)
		return false;
	memcpy(cold_dst, jc->k.start, cold_len);
	for (unsigned f = 0; f < jc->nfix; f++) {
		const struct jit_fix *x = &jc->fix[f];
		uint8_t *at = x->in_cold ? cold_dst + (x->at - jc->k.start) : x->at;
		uintptr_t to;
		switch (x->kind) {
		case FIX_LABEL: to = (uintptr_t)jc->label[x->val]; break;
		case FIX_COLD: to = (uintptr_t)(cold_dst + x->val); break;
		case FIX_ABS: to = x->val; break;
		default: to = (uintptr_t)jc->j->exit; break;
		}
		if (!to)
			return false;
		int32_t rel = (int32_t)((intptr_t)to - (intptr_t)(at + 4));
		memcpy(at, &rel, 4);
	}
	jc->m.p = cold_dst + cold_len;
	return true;
}

static bool jit_compile_region(struct bh_core *c, struct rv_jit *j, struct rv_page *pg, unsigned s0,
			       const void *const *handlers, const void *jit_handler, struct jit_scratch *scr);

bool rv32_jit_compile(struct bh_core *c, struct rv_page *pg, unsigned s0, const void *const *handlers,
		      const void *jit_handler)
{
	if (pg->jit && pg->jit[s0])
		return false;   /* compiled (and entered through op_jit) or refused before */
	if (pg->insn[s0].h == rv32_remark_handler(pg->variant))
		return false;   /* kept across an invalidate: compiled once the interpreter marked it again */
	if (c->jit_mode != RV_JIT_EAGER && pg->rewritten && c->instret - pg->dropped_at < JIT_DROP_COOLDOWN)
		return false;
	struct rv_jit *j = jit_get(c);
	if (!j)
		return false;
	if (j->size - j->used < JIT_REGION_BYTES + JIT_COLD_BYTES + 64)
		jit_flush(c, j);
	if (!pg->jit) {
		pg->jit = calloc(RV_PAGE_INSNS, sizeof *pg->jit);
		if (!pg->jit)
			return false;
	}
	pg->jit_dirty = true;   /* every entry is set below (rv_page_jit_clear) */

	struct jit_scratch *scr = malloc(sizeof *scr);
	if (!scr)
		return false;
	bool ok = jit_compile_region(c, j, pg, s0, handlers, jit_handler, scr);
	free(scr);
	return ok;
}

/* Pin the region's most used guest registers to the JIT_PINS host registers: uses weighted by
 * loop depth (an instruction inside n back edges of the region counts 8^n, up to n = 3), at
 * least three (three uses in straight code, or any in a loop). */
static void jit_choose_pins(struct jc *jc)
{
	unsigned uses[33] = { 0 };
	uint8_t depth[RV_PAGE_INSNS] = { 0 };
	for (unsigned k = jc->s0; k < jc->end; k++) {
		const struct rv_insn *in = &jc->pg->insn[k];
		bool br = rv_opinfo[in->op].fmt == RV_FMT_B, jal = in->op == RV_OP_jal;
		if ((br && in->rd) || (jal && in->rs1)) {
			unsigned t = (unsigned)((int)k + (in->imm >> 2));
			if (t >= jc->s0 && t <= k)
				for (unsigned i = t; i <= k; i++)
					depth[i] += depth[i] < 3;
		}
	}
	for (unsigned k = jc->s0; k < jc->end; k++) {
		const struct rv_insn *in = &jc->pg->insn[k];
		enum rv_format f = rv_opinfo[in->op].fmt;
		unsigned w = 1u << (3 * depth[k]);
		if (f == RV_FMT_R || f == RV_FMT_R1 || f == RV_FMT_I || f == RV_FMT_L || f == RV_FMT_S || f == RV_FMT_B ||
		    f == RV_FMT_SH)
			uses[in->rs1 & 31] += w;
		if (f == RV_FMT_R || f == RV_FMT_S || f == RV_FMT_B)
			uses[in->rs2 & 31] += w;
		if (f == RV_FMT_R || f == RV_FMT_R1 || f == RV_FMT_I || f == RV_FMT_L || f == RV_FMT_U || f == RV_FMT_J ||
		    f == RV_FMT_SH)
			uses[in->rd < 32 ? in->rd : 0] += w;
	}
	uses[0] = 0;   /* x0 (counted above as a source or destination) is never pinned: not a bar to the others */
	memset(jc->pin, -1, sizeof jc->pin);
	jc->npin = 0;
	while (jc->npin < JIT_PINS) {
		unsigned best = 0;
		for (unsigned xr = 1; xr < 32; xr++)
			if (jc->pin[xr] < 0 && uses[xr] > uses[best])
				best = xr;
		if (!best || uses[best] < 3)
			break;
		jc->pin[best] = (int8_t)pin_host[jc->npin++];
	}
}

/* Where control enters the region at target k from outside: its label, or with pinned
 * registers the stub that loads them (after jit_resolve). */
static uint8_t *jit_entry(const struct jc *jc, unsigned k)
{
	return jc->npin ? jc->cold_dst + jc->entry_off[k] : jc->label[k];
}

static bool jit_compile_region(struct bh_core *c, struct rv_jit *j, struct rv_page *pg, unsigned s0,
			       const void *const *handlers, const void *jit_handler, struct jit_scratch *scr)
{
	struct jc *jc = &scr->jc;
	jc->fix = scr->fix;
	memset(jc->target, 0, sizeof jc->target);
	jc->c = c;
	jc->j = j;
	jc->pg = pg;
	jc->s0 = s0;
	jc->nfix = 0;
	jc->fix_full = false;

	/* Decode the run of compilable slots (filling the interpreter's slots as op_decode does). */
	unsigned page = pg->base >> BH_L1_PAGE_SHIFT, end = s0;
	const void *remark = rv32_remark_handler(pg->variant);
	rv_code_page_mark(c, page);
	while (end < RV_PAGE_INSNS && end - s0 < JIT_REGION_MAX) {
		struct rv_insn *in = &pg->insn[end];
		if (in->h == remark)
			break;   /* kept across an invalidate: the interpreter marks it executed first */
		if (in->op == RV_OP_decode) {
			/* With the code checks on, only words the interpreter ran (and marked executed,
			 * bh_code_fetch) are compiled: a word compiled ahead would run unmarked, and a
			 * mark made here would name words that never ran. */
			if (c->tile->code)
				break;
			uint32_t pc = pg->base + end * 4u;
			rv_page_touch(pg, end);
			pg->raw[end] = bh_mem_ld(c->l1 + pc, 4);
			rv32_decode(pg->raw[end], pc, in);
			in->h = handlers[in->op];
		}
		if (!jit_compilable(in->op))
			break;
		end++;
	}
	if (end == s0) {
		pg->jit[s0] = rv32_jit_none;
		return false;
	}
	jc->end = end;
	jc->target[s0] = 1;
	for (unsigned k = s0; k < end; k++) {
		const struct rv_insn *in = &pg->insn[k];
		bool br = rv_opinfo[in->op].fmt == RV_FMT_B, jal = in->op == RV_OP_jal;
		if ((br && in->rd) || (jal && in->rs1)) {
			unsigned t = (unsigned)((int)k + (in->imm >> 2));
			if (t >= s0 && t < end)
				jc->target[t] = 1;
		}
	}

	/* The same words at the same address compiled before (by any core): enter that code. Else
	 * compile into the shared arena while it has room, holding its lock until the entry is in. */
	uint32_t n = end - s0, pc0 = pg->base + s0 * 4u;
	uint64_t h = 0;
	struct jit_shared_entry **where = NULL;
	pthread_mutex_lock(&jit_shared.lock);
	if (!jit_shared.on) {
		pthread_mutex_unlock(&jit_shared.lock);
	} else {
		h = jit_shared_hash(pc0, n, &pg->raw[s0], c->ldm_size);
		where = jit_shared_find(h, pc0, n, &pg->raw[s0], c->ldm_size);
		if (*where) {
			const struct jit_shared_entry *e = *where;
			for (unsigned k = s0; k < end; k++)
				if (e->label[k - s0]) {
					pg->jit[k] = jit_shared.jit.arena + e->label[k - s0];
					pg->insn[k].h = jit_handler;
				}
			pthread_mutex_unlock(&jit_shared.lock);
			atomic_store_explicit(&c->jit_shared, atomic_load_explicit(&c->jit_shared, memory_order_relaxed) + 1,
					      memory_order_relaxed);
			atomic_store_explicit(&c->jit_regions,
					      atomic_load_explicit(&c->jit_regions, memory_order_relaxed) + 1,
					      memory_order_relaxed);
			return true;
		}
		if (jit_shared.entries < JIT_SHARED_SLOTS / 4 * 3 &&
		    jit_shared.jit.size - jit_shared.jit.used >= JIT_REGION_BYTES + JIT_COLD_BYTES + 64) {
			j = &jit_shared.jit;
			jc->j = j;
		} else {
			pthread_mutex_unlock(&jit_shared.lock);
			where = NULL;
		}
	}

	jc->m = (struct jbuf){ j->arena + j->used, j->arena + j->used, j->arena + j->size, false };
	jc->k = (struct jbuf){ scr->cold, scr->cold, scr->cold + JIT_COLD_BYTES, false };
	unsigned pend = 0;
	jc->out_ax = jc->out_dx = -1;
	jit_choose_pins(jc);
	for (unsigned k = s0; k < end; k++) {
		if (jc->target[k]) {
			add_count(&jc->m, pend);
			pend = 0;
			jc->label[k] = jc->m.p;
			jc->out_ax = jc->out_dx = -1;   /* control also arrives from elsewhere */
		}
		emit_insn(jc, k, &pg->insn[k], &pend);
	}
	emit_exit_at(jc, &jc->m, pend, end, true);
	if (jc->npin)
		for (unsigned k = s0; k < end; k++)
			if (jc->target[k]) {
				jc->entry_off[k] = (uint32_t)cold_here(jc);
				pin_reload(jc, &jc->k);
				jmp_to(jc, &jc->k, FIX_LABEL, k);
			}
	if (jc->m.full || jc->k.full || jc->fix_full || !jit_resolve(jc)) {
		if (where)
			pthread_mutex_unlock(&jit_shared.lock);
		pg->jit[s0] = rv32_jit_none;
		return false;
	}
	while ((uintptr_t)jc->m.p & 15)
		b1(&jc->m, 0xcc);
	j->used = (size_t)(jc->m.p - j->arena);
	__builtin___clear_cache((char *)jc->m.start, (char *)jc->m.p);
	for (unsigned k = s0; k < end; k++)
		if (jc->target[k]) {
			pg->jit[k] = jit_entry(jc, k);
			pg->insn[k].h = jit_handler;
		}
	if (where) {
		jit_shared_add(where, h, jc, c->ldm_size);
		pthread_mutex_unlock(&jit_shared.lock);
	}
	atomic_store_explicit(&c->jit_regions, atomic_load_explicit(&c->jit_regions, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	return true;
}

/* What the NIU lane of compiled stores (emit_niu_store) takes as constant while the code runs:
 * serial scheduling is an actor's from its start to its exit, provocation and the checks are
 * set before any core runs, the lane's cores when the tile's region table is. */
static void jit_niu_lane(struct bh_core *c, struct rv_jit_ctx *ctx)
{
	struct bh_tile *t = c->tile;
	const struct bh_chip *ch = t->chip;
	bool open = !bh_sched_active() && !(ch->provoke.mask & BH_PROVOKE_REORDER) && !ch->provoke.mmio;
	ctx->niu_st = open && (t->niu_lane[1] >> c->kind & 1) ? t->niu : NULL;
	ctx->niu_ld = open && (t->niu_lane[0] >> c->kind & 1) ? t->niu : NULL;
	ctx->noc_due = ch->noc ? bh_noc_engine_earliest(ch->noc) : NULL;
	ctx->reg_watches = &t->watch.reg_watches;
	ctx->niu_checks = (uint32_t)bh_checks_on(&ch->checks, BH_CHECK_NOC_BUSY_REPROGRAM) |
			  (uint32_t)bh_checks_on(&ch->checks, BH_CHECK_NOC_SHARED_INITIATOR) << 1;
	ctx->niu_who = c->kind;
	ctx->niu_who_off = (uint32_t)(c->kind * sizeof(t->niu[0].prog[0].core[0]));
}

enum rv_jit_exit rv32_jit_enter(struct bh_core *c, struct rv_jit_ctx *ctx, const void *entry)
{
	jit_niu_lane(c, ctx);
	return c->jit->enter(ctx, entry);
}

void rv32_jit_free(struct bh_core *c)
{
	struct rv_jit *j = c->jit;
	if (!j)
		return;
	munmap(j->arena, j->size);
	free(j);
	c->jit = NULL;
	jit_shared_release();
}

#else   /* not x86-64: the interpreter runs everything */

bool rv32_jit_compile(struct bh_core *c, struct rv_page *pg, unsigned s0, const void *const *handlers,
		      const void *jit_handler)
{
	(void)c; (void)pg; (void)s0; (void)handlers; (void)jit_handler;
	return false;
}

enum rv_jit_exit rv32_jit_enter(struct bh_core *c, struct rv_jit_ctx *ctx, const void *entry)
{
	(void)c; (void)ctx; (void)entry;
	return RV_JIT_EXIT_AT;
}

void rv32_jit_free(struct bh_core *c) { (void)c; }

#endif
