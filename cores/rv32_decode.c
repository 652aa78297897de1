/* Decode of RV32 words into pre-decoded instructions, driven by the table in rv32_insns.h. */
#include <pthread.h>
#include <stdatomic.h>

#include "cores/rv32_insns.h"

const struct rv_opinfo rv_opinfo[RV_OP_NUM_REAL] = {
#define RV_X_INFO(name, mn, mask, match, fmt) [RV_OP_##name] = { mn, mask, match, RV_FMT_##fmt },
	RV32_INSNS(RV_X_INFO)
#undef RV_X_INFO
};

static const struct {
	uint32_t mask, match;
	const char *reason;
} rv_unsupported[] = {
#define RV_X_UNSUP(name, mn, mask, match, why) { mask, match, mn ": " why },
	RV32_UNSUPPORTED(RV_X_UNSUP)
#undef RV_X_UNSUP
};

/* Immediates are assembled in unsigned arithmetic; sext(v, bits) sign-extends the low bits. */
static inline int32_t sext(uint32_t v, unsigned bits)
{
	uint32_t m = 1u << (bits - 1);
	return (int32_t)((v ^ m) - m);
}

static inline int32_t imm_i(uint32_t w) { return sext(w >> 20, 12); }
static inline int32_t imm_s(uint32_t w) { return sext((w >> 25) << 5 | (w >> 7 & 0x1f), 12); }

static inline int32_t imm_b(uint32_t w)
{
	return sext((w >> 31) << 12 | (w >> 7 & 1) << 11 | (w >> 25 & 0x3f) << 5 | (w >> 8 & 0xf) << 1, 13);
}

static inline int32_t imm_j(uint32_t w)
{
	return sext((w >> 31) << 20 | (w & 0xff000) | (w >> 20 & 1) << 11 | (w >> 21 & 0x3ff) << 1, 21);
}

/* 1 when a branch/jal target is aligned and on the same 4 KiB page as the instruction: the
 * interpreter then jumps by imm / 4 decoded slots without any lookup. Branches keep the flag
 * in rd, jal in rs1 (fields those formats do not have). */
static inline uint8_t rv_local_target(uint32_t pc, int32_t imm)
{
	uint32_t t = pc + (uint32_t)imm;
	return !(t & 3) && (t >> 12) == (pc >> 12);
}

const char *rv32_unsupported_reason(uint32_t word)
{
	for (size_t k = 0; k < sizeof rv_unsupported / sizeof rv_unsupported[0]; k++)
		if ((word & rv_unsupported[k].mask) == rv_unsupported[k].match)
			return rv_unsupported[k].reason;
	return NULL;
}

/* Candidates per major opcode (the low 7 bits), in table order, so that a decode scans a few
 * entries instead of the whole table (every launch flushes and re-decodes firmware). Built once. */
#define RV_MAJOR_MAX RV_OP_NUM_REAL   /* OP has 32 today; a bound no table can exceed */
_Static_assert(RV_OP_NUM_REAL < 256, "ops fit in a byte");
static struct {
	uint8_t n;
	uint8_t op[RV_MAJOR_MAX];
} rv_major[128];
static pthread_once_t rv_major_once = PTHREAD_ONCE_INIT;

/* The op of a word is a function of the word alone: a direct-mapped cache of recent answers,
 * shared by every core (firmware is the same on 700 cores, and each launch's I-cache invalidate
 * makes all of them decode it again). An entry is word << 32 | (op + 2), 0 when empty; relaxed:
 * a reader uses an entry only when it holds the very word it looks up. */
#define RV_LOOKUP_BITS 12u
static _Atomic uint64_t rv_lookup_cache[1u << RV_LOOKUP_BITS];

static void rv_major_build(void)
{
	/* Written once here, before any entry is (entries are stored only after this returns):
	 * the cache's pages are resident before the first core parks, so a woken core decoding
	 * its way out takes no page fault (test_observe). */
	for (unsigned k = 0; k < 1u << RV_LOOKUP_BITS; k++)
		atomic_store_explicit(&rv_lookup_cache[k], 0, memory_order_relaxed);
	for (int op = 0; op < RV_OP_NUM_REAL; op++)
		for (unsigned opc = 0; opc < 128; opc++)
			if ((opc & rv_opinfo[op].mask & 0x7f) == (rv_opinfo[op].match & 0x7f))
				rv_major[opc].op[rv_major[opc].n++] = (uint8_t)op;
}

static int rv32_scan(uint32_t word)
{
	pthread_once(&rv_major_once, rv_major_build);
	const unsigned opc = word & 0x7f;
	for (unsigned k = 0; k < rv_major[opc].n; k++) {
		int op = rv_major[opc].op[k];
		if ((word & rv_opinfo[op].mask) == rv_opinfo[op].match)
			return op;
	}
	return -1;
}

static int rv32_lookup(uint32_t word)
{
	_Atomic uint64_t *slot = &rv_lookup_cache[(word * 0x9E3779B1u) >> (32 - RV_LOOKUP_BITS)];
	uint64_t e = atomic_load_explicit(slot, memory_order_relaxed);
	if ((uint32_t)(e >> 32) == word && (uint32_t)e)
		return (int)(uint32_t)e - 2;
	int op = rv32_scan(word);
	atomic_store_explicit(slot, (uint64_t)word << 32 | (uint32_t)(op + 2), memory_order_relaxed);
	return op;
}

void rv32_decode(uint32_t w, uint32_t pc, struct rv_insn *d)
{
	d->rd = 0;
	d->rs1 = 0;
	d->rs2 = 0;
	d->imm = (int32_t)w;
	if ((w & 3) != 3) {            /* .ttinsn: a Tensix instruction push (riscv-cores.md 2) */
		d->op = RV_OP_ttinsn;
		return;
	}
	int op = rv32_lookup(w);
	if (op < 0) {
		d->op = rv32_unsupported_reason(w) ? RV_OP_unsupported : RV_OP_illegal;
		return;
	}
	d->op = (uint8_t)op;
	unsigned rd = w >> 7 & 31;
	d->rd = rd ? rd : 32;
	d->rs1 = w >> 15 & 31;
	d->rs2 = w >> 20 & 31;
	switch (rv_opinfo[op].fmt) {
	case RV_FMT_I: case RV_FMT_L: d->imm = imm_i(w); break;
	case RV_FMT_S: d->imm = imm_s(w); break;
	case RV_FMT_B: d->imm = imm_b(w); d->rd = rv_local_target(pc, d->imm); break;
	case RV_FMT_J: d->imm = imm_j(w); d->rs1 = rv_local_target(pc, d->imm); break;
	case RV_FMT_U: d->imm = (int32_t)(w & 0xfffff000u); break;
	case RV_FMT_SH: d->imm = w >> 20 & 31; break;
	case RV_FMT_CSR: case RV_FMT_CSRI: d->imm = w >> 20; break;  /* CSR number; rs1 = uimm */
	default: d->imm = 0; break;
	}
	if (op == RV_OP_auipc)
		d->imm = (int32_t)(pc + (uint32_t)d->imm);
}
