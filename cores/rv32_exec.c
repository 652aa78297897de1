/* The RV32 interpreter: threaded dispatch (computed goto) over pages of pre-decoded
 * instructions. Each core decodes lazily into its own pages (one per 4 KiB of L1), so the hot
 * path touches no shared structure except L1 itself. Stores into L1 pages that hold decoded
 * code are caught by one relaxed byte load (tile->code_pages) and handled out of line.
 *
 * Hot path rules: no locks, no calls except on the slow paths, every check branch-predictable. */
#include <stdlib.h>
#include <string.h>

#include "cores/core.h"
#include "cores/rv32_insns.h"
#include "fabric/tile.h"

#define RV_PAGE_INSNS (1u << (BH_L1_PAGE_SHIFT - 2))
/* The core leaves the interpreter to look at its events at least this often (instructions,
 * counted at taken jumps and page ends). */
#define RV_CHECK_INTERVAL 4096u

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

struct rv_page {
	struct rv_insn insn[RV_PAGE_INSNS + 1];   /* + sentinel: falls through to the next page */
	uint32_t base;
};

/* Handler addresses of rv32_run(), published on its first call so that pages can be reset to
 * "decode me" outside it. Written once with the same value by any thread. */
static const void *_Atomic rv_decode_handler;
static const void *_Atomic rv_page_end_handler;

static void rv_page_reset(struct rv_page *pg)
{
	const void *dec = atomic_load_explicit(&rv_decode_handler, memory_order_relaxed);
	for (unsigned k = 0; k < RV_PAGE_INSNS; k++) {
		pg->insn[k].h = dec;
		pg->insn[k].op = RV_OP_decode;
	}
	pg->insn[RV_PAGE_INSNS].h = atomic_load_explicit(&rv_page_end_handler, memory_order_relaxed);
	pg->insn[RV_PAGE_INSNS].op = RV_OP_page_end;
}

__attribute__((cold, noinline))
static struct rv_page *rv_page_alloc(struct bh_core *c, uint32_t pc)
{
	struct rv_page *pg = aligned_alloc(64, (sizeof(struct rv_page) + 63) & ~(size_t)63);
	if (!pg)
		abort();   /* host out of memory: nothing sensible left to emulate */
	pg->base = pc & ~((1u << BH_L1_PAGE_SHIFT) - 1);
	rv_page_reset(pg);
	c->pages[pc >> BH_L1_PAGE_SHIFT] = pg;
	return pg;
}

/* Drop the decoded copy of one page: entries go back to "decode me" (the page stays allocated,
 * so an interpreter pointer into it stays valid and simply re-decodes). */
void rv32_drop_page(struct bh_core *c, unsigned page)
{
	struct rv_page *pg = c->pages[page];
	if (pg)
		rv_page_reset(pg);
	atomic_fetch_and_explicit(&c->code_pages[page], (uint8_t)~(1u << c->kind), memory_order_relaxed);
}

void rv32_flush_decoded(struct bh_core *c)
{
	for (unsigned p = 0; p < BH_L1_PAGES; p++)
		if (c->pages[p])
			rv32_drop_page(c, p);
	for (unsigned w = 0; w < BH_L1_PAGES / 32; w++)
		atomic_store_explicit(&c->stale_pages[w], 0, memory_order_relaxed);
}

void rv32_free_decoded(struct bh_core *c)
{
	for (unsigned p = 0; p < BH_L1_PAGES; p++) {
		free(c->pages[p]);
		c->pages[p] = NULL;
	}
}

/* Events from other threads. Returns true when the core must leave the interpreter. */
__attribute__((cold, noinline))
static bool rv_handle_events(struct bh_core *c)
{
	uint32_t ev = atomic_load_explicit(&c->events, memory_order_acquire); /* pairs with the release in senders */
	if (!ev)
		return false;
	if (ev & BH_EV_STOP)
		return true;
	atomic_fetch_and_explicit(&c->events, ~(uint32_t)(BH_EV_FLUSH_ALL | BH_EV_CODE_STALE), memory_order_acq_rel);
	if (ev & BH_EV_FLUSH_ALL) {
		rv32_flush_decoded(c);
		return false;
	}
	for (unsigned w = 0; w < BH_L1_PAGES / 32; w++) {
		uint32_t bits = atomic_exchange_explicit(&c->stale_pages[w], 0, memory_order_acq_rel);
		while (bits) {
			unsigned b = (unsigned)__builtin_ctz(bits);
			bits &= bits - 1;
			rv32_drop_page(c, w * 32 + b);
		}
	}
	return false;
}

static inline uint32_t rv_ror(uint32_t v, unsigned s) { s &= 31; return s ? (v >> s | v << (32 - s)) : v; }
static inline uint32_t rv_rol(uint32_t v, unsigned s) { s &= 31; return s ? (v << s | v >> (32 - s)) : v; }

static inline uint32_t rv_orc_b(uint32_t v)
{
	uint32_t r = 0;
	for (unsigned b = 0; b < 32; b += 8)
		if (v >> b & 0xff)
			r |= 0xffu << b;
	return r;
}

static inline uint32_t rv_brev8(uint32_t v)
{
	v = (v & 0x55555555u) << 1 | (v >> 1 & 0x55555555u);
	v = (v & 0x33333333u) << 2 | (v >> 2 & 0x33333333u);
	return (v & 0x0f0f0f0fu) << 4 | (v >> 4 & 0x0f0f0f0fu);
}

static inline uint32_t rv_div(int32_t a, int32_t b)
{
	if (b == 0) return UINT32_MAX;
	if (a == INT32_MIN && b == -1) return (uint32_t)INT32_MIN;
	return (uint32_t)(a / b);
}

static inline uint32_t rv_rem(int32_t a, int32_t b)
{
	if (b == 0) return (uint32_t)a;
	if (a == INT32_MIN && b == -1) return 0;
	return (uint32_t)(a % b);
}

/* AMO on L1: real host atomics, sequentially consistent (an AMO also flushes the L0 cache). */
static inline uint32_t rv_amo(unsigned op, uint32_t *p, uint32_t v)
{
	uint32_t old;
	switch (op) {
	case RV_OP_amoadd: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
	case RV_OP_amoswap: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
	case RV_OP_amoxor: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
	case RV_OP_amoor: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
	case RV_OP_amoand: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
	default: break;
	}
	old = __atomic_load_n(p, __ATOMIC_RELAXED);
	for (;;) {
		uint32_t nv;
		switch (op) {
		case RV_OP_amomin: nv = (int32_t)v < (int32_t)old ? v : old; break;
		case RV_OP_amomax: nv = (int32_t)v > (int32_t)old ? v : old; break;
		case RV_OP_amominu: nv = v < old ? v : old; break;
		default: nv = v > old ? v : old; break;
		}
		if (__atomic_compare_exchange_n(p, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return old;
	}
}

enum rv_stop rv32_run(struct bh_core *c)
{
	static const void *const handlers[RV_OP_NUM] = {
#define RV_X_LABEL(name, mn, mask, match, fmt) [RV_OP_##name] = &&op_##name,
		RV32_INSNS(RV_X_LABEL)
#undef RV_X_LABEL
		[RV_OP_unsupported] = &&op_unsupported,
		[RV_OP_illegal] = &&op_illegal,
		[RV_OP_ttinsn] = &&op_ttinsn,
		[RV_OP_decode] = &&op_decode,
		[RV_OP_page_end] = &&op_page_end,
	};
	atomic_store_explicit(&rv_decode_handler, &&op_decode, memory_order_relaxed);
	atomic_store_explicit(&rv_page_end_handler, &&op_page_end, memory_order_relaxed);

	uint32_t *const x = c->x;
	uint8_t *const l1 = c->l1;
	uint8_t *const ldm = c->ldm;
	const uint32_t ldm_size = c->ldm_size;
	_Atomic uint8_t *const code_pages = (_Atomic uint8_t *)(l1 + BH_L1_SIZE);  /* == c->code_pages */
	uint64_t icount = c->instret;
	uint64_t limit;
	struct rv_page *pg = NULL;
	struct rv_insn *i = NULL;
	uint32_t target = c->pc;   /* next pc when entering lookup */
	uint32_t fpc = target;     /* pc of the faulting instruction */
	enum rv_stop stop;

#define PC() (pg->base + (uint32_t)(((uintptr_t)i - (uintptr_t)pg->insn) / sizeof(struct rv_insn) * 4))
#define DISPATCH() goto *i->h
#define NEXT() do { i++; icount++; DISPATCH(); } while (0)
	/* Taken jump: in-page targets dispatch directly; everything else goes through lookup,
	 * which also enforces alignment and the fetch range. */
#define JUMP(t) do { \
		uint32_t t_ = (t), off_ = t_ - pg->base; icount++; \
		if (likely((off_ & ~(uint32_t)0xffc) == 0 && icount < limit)) { \
			i = &pg->insn[off_ >> 2]; DISPATCH(); } \
		fpc = PC(); target = t_; goto slow_jump; } while (0)
#define FAULT_HERE() do { fpc = PC(); goto fault; } while (0)

	/* Memory: naturally aligned L1 and the own local RAM inline, everything else out of line.
	 * RV_IN(off, sz, limit): off < limit and naturally aligned, in one compare: rotating the
	 * misalignment bits to the top makes a misaligned offset huge. */
#define RV_IN(off, sz, lim) ((sz) == 1 ? (off) < (lim) \
	: (((off) >> ((sz) >> 1) | (off) << (32 - ((sz) >> 1))) < ((lim) >> ((sz) >> 1))))
#define LOAD(T, sz) do { \
		uint32_t a_ = x[i->rs1] + (uint32_t)i->imm, v_; \
		if (likely(RV_IN(a_, sz, BH_L1_SIZE))) v_ = bh_mem_ld(l1 + a_, sz); \
		else if (likely(RV_IN(a_ - BH_LDM_BASE, sz, ldm_size))) v_ = bh_mem_ld(ldm + (a_ - BH_LDM_BASE), sz); \
		else { c->instret = icount; c->pc = PC(); if (!bh_mem_load_slow(c, a_, sz, &v_)) FAULT_HERE(); } \
		x[i->rd] = (uint32_t)(T)v_; NEXT(); } while (0)
#define STORE(sz) do { \
		uint32_t a_ = x[i->rs1] + (uint32_t)i->imm, v_ = x[i->rs2]; \
		if (likely(RV_IN(a_, sz, BH_L1_SIZE))) { \
			bh_mem_st(l1 + a_, sz, v_); \
			if (unlikely(atomic_load_explicit(&code_pages[a_ >> BH_L1_PAGE_SHIFT], memory_order_relaxed))) \
				bh_core_code_written(c->tile, c, a_); \
		} else if (likely(RV_IN(a_ - BH_LDM_BASE, sz, ldm_size))) bh_mem_st(ldm + (a_ - BH_LDM_BASE), sz, v_); \
		else { c->instret = icount; c->pc = PC(); if (!bh_mem_store_slow(c, a_, sz, v_)) FAULT_HERE(); } \
		NEXT(); } while (0)
#define ALU(expr) do { x[i->rd] = (expr); NEXT(); } while (0)
#define RS1 x[i->rs1]
#define RS2 x[i->rs2]
#define IMM ((uint32_t)i->imm)
	/* Branches and jal whose target is on the same page (flag set by decode) move the slot
	 * pointer directly; the rest take the general path. */
#define JUMP_LOCAL(flag) do { \
		icount++; \
		if (likely((flag) && icount < limit)) { i += i->imm >> 2; DISPATCH(); } \
		fpc = PC(); target = fpc + IMM; goto slow_jump; } while (0)
#define BRANCH(cond) do { if (cond) JUMP_LOCAL(i->rd); NEXT(); } while (0)

	limit = icount;   /* force an event check and a lookup on entry */
	goto slow_jump_nocheck;

op_lui: ALU(IMM);
op_auipc: ALU(IMM);
op_jal: x[i->rd] = PC() + 4; JUMP_LOCAL(i->rs1);
op_jalr: { uint32_t pc = PC(), t = (RS1 + IMM) & ~1u; x[i->rd] = pc + 4; JUMP(t); }
op_beq: BRANCH(RS1 == RS2);
op_bne: BRANCH(RS1 != RS2);
op_blt: BRANCH((int32_t)RS1 < (int32_t)RS2);
op_bge: BRANCH((int32_t)RS1 >= (int32_t)RS2);
op_bltu: BRANCH(RS1 < RS2);
op_bgeu: BRANCH(RS1 >= RS2);
op_lb: LOAD(int8_t, 1);
op_lh: LOAD(int16_t, 2);
op_lw: LOAD(uint32_t, 4);
op_lbu: LOAD(uint8_t, 1);
op_lhu: LOAD(uint16_t, 2);
op_sb: STORE(1);
op_sh: STORE(2);
op_sw: STORE(4);
op_addi: ALU(RS1 + IMM);
op_slti: ALU((int32_t)RS1 < i->imm);
op_sltiu: ALU(RS1 < IMM);
op_xori: ALU(RS1 ^ IMM);
op_ori: ALU(RS1 | IMM);
op_andi: ALU(RS1 & IMM);
op_slli: ALU(RS1 << IMM);
op_srli: ALU(RS1 >> IMM);
op_srai: ALU((uint32_t)((int32_t)RS1 >> IMM));
op_add: ALU(RS1 + RS2);
op_sub: ALU(RS1 - RS2);
op_sll: ALU(RS1 << (RS2 & 31));
op_slt: ALU((int32_t)RS1 < (int32_t)RS2);
op_sltu: ALU(RS1 < RS2);
op_xor: ALU(RS1 ^ RS2);
op_srl: ALU(RS1 >> (RS2 & 31));
op_sra: ALU((uint32_t)((int32_t)RS1 >> (RS2 & 31)));
op_or: ALU(RS1 | RS2);
op_and: ALU(RS1 & RS2);
op_fence:
	atomic_thread_fence(memory_order_seq_cst);   /* fence = full host barrier (DESIGN.md) */
	NEXT();
op_ecall: {
	int status = 0, r;
	c->instret = icount;
	c->pc = PC();
	if (!c->ecall) {
		bh_fault_set(c, BH_FAULT_ECALL, 0, NULL,
			     "ecall a7=%u: host calls are not enabled (firmware never uses ecall)", x[17]);
		FAULT_HERE();
	}
	r = c->ecall(c, c->ecall_opaque, &status);
	if (r < 0)
		FAULT_HERE();
	if (r > 0) {
		c->exit_status = status;
		icount++;
		stop = RV_STOP_EXIT;
		goto out_pc_next;
	}
	NEXT();
}
op_ebreak:
	c->pc = PC();
	bh_fault_set(c, BH_FAULT_EBREAK, 0, NULL, "ebreak: the core would pause into its debug unit (no debugger attached)");
	FAULT_HERE();
op_mul: ALU(RS1 * RS2);
op_mulh: ALU((uint32_t)((int64_t)(int32_t)RS1 * (int64_t)(int32_t)RS2 >> 32));
op_mulhsu: ALU((uint32_t)((int64_t)(int32_t)RS1 * (int64_t)(uint64_t)RS2 >> 32));
op_mulhu: ALU((uint32_t)((uint64_t)RS1 * (uint64_t)RS2 >> 32));
op_div: ALU(rv_div((int32_t)RS1, (int32_t)RS2));
op_divu: ALU(RS2 ? RS1 / RS2 : UINT32_MAX);
op_rem: ALU(rv_rem((int32_t)RS1, (int32_t)RS2));
op_remu: ALU(RS2 ? RS1 % RS2 : RS1);

	/* Zicsr: rd = x0 does not read (csrrw), rs1 = x0 / uimm 0 does not write (csrrs/c). */
#define CSR_OP(src, kind) do { \
		uint32_t csr_ = IMM, old_ = 0, src_ = (src); \
		c->instret = icount; c->pc = PC(); \
		if ((kind != 0 || i->rd != 32) && !rv32_csr_read(c, csr_, &old_)) FAULT_HERE(); \
		if (kind == 0 || i->rs1 != 0) { \
			uint32_t nv_ = kind == 0 ? src_ : kind == 1 ? (old_ | src_) : (old_ & ~src_); \
			if (!rv32_csr_write(c, csr_, nv_)) FAULT_HERE(); \
			icount = c->instret; } \
		x[i->rd] = old_; NEXT(); } while (0)
op_csrrw: CSR_OP(RS1, 0);
op_csrrs: CSR_OP(RS1, 1);
op_csrrc: CSR_OP(RS1, 2);
op_csrrwi: CSR_OP(i->rs1, 0);
op_csrrsi: CSR_OP(i->rs1, 1);
op_csrrci: CSR_OP(i->rs1, 2);

op_sh1add: ALU((RS1 << 1) + RS2);
op_sh2add: ALU((RS1 << 2) + RS2);
op_sh3add: ALU((RS1 << 3) + RS2);
op_andn: ALU(RS1 & ~RS2);
op_orn: ALU(RS1 | ~RS2);
op_xnor: ALU(~(RS1 ^ RS2));
op_clz: ALU(RS1 ? (uint32_t)__builtin_clz(RS1) : 32);
op_ctz: ALU(RS1 ? (uint32_t)__builtin_ctz(RS1) : 32);
op_cpop: ALU((uint32_t)__builtin_popcount(RS1));
op_sext_b: ALU((uint32_t)(int32_t)(int8_t)RS1);
op_sext_h: ALU((uint32_t)(int32_t)(int16_t)RS1);
op_max: ALU((int32_t)RS1 > (int32_t)RS2 ? RS1 : RS2);
op_maxu: ALU(RS1 > RS2 ? RS1 : RS2);
op_min: ALU((int32_t)RS1 < (int32_t)RS2 ? RS1 : RS2);
op_minu: ALU(RS1 < RS2 ? RS1 : RS2);
op_zext_h: ALU(RS1 & 0xffff);
op_rol: ALU(rv_rol(RS1, RS2));
op_ror: ALU(rv_ror(RS1, RS2));
op_rori: ALU(rv_ror(RS1, IMM));
op_orc_b: ALU(rv_orc_b(RS1));
op_rev8: ALU(__builtin_bswap32(RS1));
op_pack: ALU((RS1 & 0xffff) | RS2 << 16);
op_brev8: ALU(rv_brev8(RS1));

op_amoadd: op_amoswap: op_amoxor: op_amoor: op_amoand:
op_amomin: op_amomax: op_amominu: op_amomaxu: {
	uint32_t a = RS1;
	if (unlikely(a >= BH_L1_SIZE || (a & 3))) {
		c->pc = PC();
		bh_fault_set(c, (a & 3) ? BH_FAULT_MISALIGNED : BH_FAULT_ACCESS, a, NULL,
			     "%s needs a naturally aligned word in L1 (Zaamo works on L1 only)",
			     rv_opinfo[i->op].mnemonic);
		c->fault.has_addr = true;
		c->fault.is_store = true;
		c->fault.size = 4;
		FAULT_HERE();
	}
	uint32_t old = rv_amo(i->op, (uint32_t *)(l1 + a), RS2);
	if (unlikely(atomic_load_explicit(&code_pages[a >> BH_L1_PAGE_SHIFT], memory_order_relaxed)))
		bh_core_code_written(c->tile, c, a);
	ALU(old);
}

op_ttinsn: {
	/* A Tensix instruction push (riscv-cores.md 2): the coprocessor is not built yet. */
	uint32_t t = IMM >> 2 | IMM << 30;
	c->pc = PC();
	if (c->kind == BH_NCRISC)
		bh_fault_set(c, BH_FAULT_ILLEGAL_INSN, 0, NULL,
			     "word 0x%08x is a .ttinsn, but NCRISC has no Tensix instruction push path", IMM);
	else
		bh_fault_set(c, BH_FAULT_NOT_MODELLED, 0, NULL,
			     "Tensix instruction not modelled yet: .ttinsn pushes 0x%08x (opcode 0x%02x)%s", t, t >> 24,
			     t >> 24 == 0 ? "; opcode 0 is invalid: did the core run into zeroed L1?" : "");
	FAULT_HERE();
}
op_unsupported:
	c->pc = PC();
	bh_fault_set(c, BH_FAULT_ILLEGAL_INSN, 0, NULL, "%s", rv32_unsupported_reason(IMM));
	FAULT_HERE();
op_illegal:
	c->pc = PC();
	bh_fault_set(c, BH_FAULT_ILLEGAL_INSN, 0, NULL,
		     "illegal instruction 0x%08x: not RV32IM/Zicsr/Zba/Zbb/Zaamo", IMM);
	FAULT_HERE();

op_decode: {
	uint32_t pc = PC();
	unsigned page = pc >> BH_L1_PAGE_SHIFT;
	if (!(atomic_load_explicit(&code_pages[page], memory_order_relaxed) & (1u << c->kind)))
		atomic_fetch_or_explicit(&code_pages[page], (uint8_t)(1u << c->kind), memory_order_seq_cst);
	rv32_decode(bh_mem_ld(l1 + pc, 4), pc, i);
	i->h = handlers[i->op];
	DISPATCH();
}
op_page_end:
	/* Straight-line code ran off the page: continue on the next one through lookup. */
	fpc = pg->base + (RV_PAGE_INSNS - 1) * 4;
	target = pg->base + (1u << BH_L1_PAGE_SHIFT);
	goto slow_jump;

slow_jump:
	if (icount >= limit) {
		c->pc = target;
		c->instret = icount;
		atomic_store_explicit(&c->pc_snapshot, target, memory_order_relaxed);
		if (c->max_instructions && icount >= c->max_instructions) {
			stop = RV_STOP_LIMIT;
			goto out;
		}
		if (rv_handle_events(c)) {
			stop = RV_STOP_EVENT;
			goto out;
		}
slow_jump_nocheck:
		limit = icount + RV_CHECK_INTERVAL;
		if (c->max_instructions && limit > c->max_instructions)
			limit = c->max_instructions;
	}
	if (unlikely(target & 3)) {
		c->pc = fpc;
		bh_fault_set(c, BH_FAULT_MISALIGNED, target, "jump target",
			     "jump to 0x%08x: instructions are 4-byte aligned (no compressed instructions on Blackhole)", target);
		c->fault.has_addr = true;
		goto fault_at_fpc;
	}
	if (unlikely(target >= BH_L1_SIZE)) {
		c->pc = fpc;
		bh_fault_set(c, BH_FAULT_FETCH, target, "instruction fetch",
			     "jump to 0x%08x: instructions can only be fetched from L1 [0x0, 0x%x)", target, BH_L1_SIZE);
		c->fault.has_addr = true;
		goto fault_at_fpc;
	}
	pg = c->pages[target >> BH_L1_PAGE_SHIFT];
	if (unlikely(!pg))
		pg = rv_page_alloc(c, target);
	i = &pg->insn[(target & ((1u << BH_L1_PAGE_SHIFT) - 1)) >> 2];
	DISPATCH();

fault:
	c->pc = fpc;
fault_at_fpc:
	c->fault.pc = c->pc;
	if (c->pc < BH_L1_SIZE && !(c->pc & 3))
		c->fault.insn = bh_mem_ld(l1 + c->pc, 4);
	c->instret = icount;
	atomic_store_explicit(&c->pc_snapshot, c->pc, memory_order_relaxed);
	return RV_STOP_FAULT;

out_pc_next:
	c->pc = PC() + 4;
out:
	c->instret = icount;
	atomic_store_explicit(&c->pc_snapshot, c->pc, memory_order_relaxed);
	return stop;
}
