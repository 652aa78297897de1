/* Decoded-instruction pages of the RV32 interpreter, shared by the interpreter (rv32_exec.c) and
 * the x86-64 block compiler (rv32_jit.c). Owned by one core's thread. */
#ifndef BH_CORES_RV32_PAGE_H
#define BH_CORES_RV32_PAGE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "cores/core.h"
#include "cores/rv32_insns.h"
#include "fabric/hw.h"
#include "fabric/tile.h"

#define RV_PAGE_INSNS (1u << (BH_L1_PAGE_SHIFT - 2))

struct rv_page {
	struct rv_insn insn[RV_PAGE_INSNS + 1];   /* + sentinel: falls through to the next page */
	/* The word each decoded slot was decoded from: a slot kept across an I-cache invalidate is
	 * decoded again when L1 no longer holds it (a write the model did not see as one). */
	uint32_t raw[RV_PAGE_INSNS];
	uint32_t base;
	/* The owner's ic_epoch when its slots were last armed (or reset): behind it, the page must
	 * be armed before any of its slots runs (rv32_page_enter). Next to base: the same line. */
	uint64_t armed;
	unsigned variant;                         /* whose handler addresses the slots hold */
	/* Fast variant only (rv32_jit.c): native entry of the slot whose handler is op_jit, or
	 * RV_JIT_NONE where compiling was tried and refused. Allocated on first compile. */
	const void **jit;
	uint16_t lo, hi;                          /* slots decoded since the last reset (lo > hi: none) */
	/* Slots given a handler (decoded, or marked again after an invalidate) since the last arm or
	 * reset: all that an I-cache invalidate must set back to op_remark (rv32_page_arm). */
	uint64_t live[RV_PAGE_INSNS / 64];
	bool rewritten;                           /* its code was overwritten at least once */
	bool jit_dirty;                           /* jit holds entries since it was last cleared */
	uint64_t dropped_at;                      /* the core's instret when it last was */
};

/* Every slot back to "decode me" (and no compiled entries). Owner thread only. */
void rv32_page_reset(struct rv_page *pg);
/* The handler of the variant's slots kept across an I-cache invalidate, to be marked executed
 * again when they next run (NULL until the variant first ran). */
const void *rv32_remark_handler(unsigned variant);

/* Arm the page's live slots for c's I-cache invalidate (c->ic_epoch) since they last ran
 * (op_remark), and mark the page for the code checks (bh_code_page_mark). */
void rv32_page_arm(const struct bh_core *c, struct rv_page *pg);

/* stale-icache (BH_PROVOKE_STALE_ICACHE): the word at pc of a page whose L1 was written while
 * the core kept running its decoded code (c->icache_kept), as the core's one I-cache holds it:
 * the word another interpreter variant decoded there, or l1_word (L1's) where none did. */
uint32_t rv32_kept_word(const struct bh_core *c, uint32_t pc, uint32_t l1_word);

/* The word at pc (in L1 at l1 + pc) the interpreter decodes: L1's, or under stale-icache the
 * core's cached one (rv32_kept_word). Owner thread only. */
static inline uint32_t rv32_fetch_word(const struct bh_core *c, const uint8_t *l1, uint32_t pc)
{
	uint32_t w = bh_mem_ld(l1 + pc, 4);
	unsigned page = pc >> BH_L1_PAGE_SHIFT;
	if (__builtin_expect(atomic_load_explicit(&c->icache_kept[page / 32], memory_order_relaxed) >> (page % 32) & 1, 0))
		w = rv32_kept_word(c, pc, w);
	return w;
}

/* The interpreter enters pg (every entry to a page goes through its lookup): slots kept across an
 * I-cache invalidate since the page last ran are marked to be checked again first. */
static inline void rv32_page_enter(const struct bh_core *c, struct rv_page *pg)
{
	if (__builtin_expect(pg->armed != c->ic_epoch, 0))
		rv32_page_arm(c, pg);
}

/* A slot is about to be decoded: the next reset must cover it (resets touch only that range:
 * every launch flushes the I-cache, and most pages hold a few hundred decoded slots at most). */
static inline void rv_page_live(struct rv_page *pg, unsigned slot)
{
	pg->live[slot / 64] |= 1ull << (slot % 64);
}

static inline void rv_page_touch(struct rv_page *pg, unsigned slot)
{
	rv_page_live(pg, slot);
	if (slot < pg->lo)
		pg->lo = (uint16_t)slot;
	if (slot > pg->hi)
		pg->hi = (uint16_t)slot;
}

/* Core c is about to decode words of L1 page `page`: its bit in the tile's code_pages (seq_cst:
 * a writer either sees it or the decoder reads what it wrote), and the page in its own list. */
static inline void rv_code_page_mark(struct bh_core *c, unsigned page)
{
	if (!(atomic_load_explicit(&c->code_pages[page], memory_order_relaxed) & (1u << c->kind))) {
		c->code_seen[page / 64] |= 1ull << (page % 64);
		atomic_fetch_or_explicit(&c->code_pages[page], (uint8_t)(1u << c->kind), memory_order_seq_cst);
	}
}

#endif
