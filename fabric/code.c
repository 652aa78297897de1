/* Executed and stale words per core, for code-written and atomic-into-code (fabric/code.h). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "fabric/chip.h"
#include "fabric/code.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "sync/park.h"

int bh_code_map_init(struct bh_tile *t)
{
	const struct bh_checks *ch = &t->chip->checks;
	t->code = NULL;
	if (!bh_checks_on(ch, BH_CHECK_CODE_WRITTEN) && !bh_checks_on(ch, BH_CHECK_ATOMIC_INTO_CODE))
		return 0;
	/* Fresh zero pages (not calloc, which may reuse and clear heap memory): only the parts of
	 * the maps that executed code touches cost memory. */
	struct bh_code_map *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	m->stale_on = bh_checks_on(ch, BH_CHECK_CODE_WRITTEN);
	pthread_mutex_init(&m->lock, NULL);
	t->code = m;
	return 0;
}

void bh_code_map_destroy(struct bh_tile *t)
{
	if (!t->code)
		return;
	pthread_mutex_destroy(&t->code->lock);
	munmap(t->code, sizeof *t->code);
	t->code = NULL;
}

/* Not held in reset, exited or stopped: the core may fetch again without a release from reset.
 * A core whose SOFT_RESET_0 bit is set is held from that store on, as on silicon, even before its
 * thread has seen the stop (its waiter still says running). */
static bool code_core_running(const struct bh_tile *t, unsigned k)
{
	if (atomic_load_explicit(&t->soft_reset, memory_order_acquire) & (1u << bh_soft_reset_bit((enum bh_core_kind)k)))
		return false;
	return atomic_load_explicit(&t->waiter[k]->park_state, memory_order_acquire) != BH_PARK_IDLE;
}

static bool code_fetch_stale(struct bh_tile *t, unsigned k, uint32_t pc, struct bh_fault *f);

bool bh_code_fetch_stale(struct bh_tile *t, unsigned k, uint32_t pc, struct bh_fault *f)
{
	struct bh_code_map *m = t->code;
	uint32_t w = pc >> 2, bit = 1u << (w & 31);
	unsigned page = pc >> BH_L1_PAGE_SHIFT;
	if (!(atomic_load_explicit(&t->code_pages[page], memory_order_relaxed) & BH_PAGE_EXECUTED))
		atomic_fetch_or_explicit(&t->code_pages[page], BH_PAGE_EXECUTED, memory_order_seq_cst);
	if (!(atomic_load_explicit(&m->stale[k][w / 32], memory_order_acquire) & bit))
		return false;
	return code_fetch_stale(t, k, pc, f);
}

/* bh_code_fetch's finding: the word at pc is stale for core k (kept out of the marking path,
 * which runs for every word a core executes after each invalidate). */
__attribute__((cold, noinline))
static bool code_fetch_stale(struct bh_tile *t, unsigned k, uint32_t pc, struct bh_fault *f)
{
	struct bh_code_map *m = t->code;
	uint32_t w = pc >> 2, bit = 1u << (w & 31);
	unsigned page = pc >> BH_L1_PAGE_SHIFT;
	atomic_fetch_and_explicit(&m->stale[k][w / 32], ~bit, memory_order_relaxed);
	char other[sizeof m->writer[0][0]];
	pthread_mutex_lock(&m->lock);
	memcpy(other, m->writer[k][page], sizeof other);
	pthread_mutex_unlock(&m->lock);
	struct bh_fault lf;   /* *f is the core's own fault record: written only for a stop */
	bh_check_fill(&lf, BH_CHECK_CODE_WRITTEN, pc, "L1", other,
		      "%s fetches 0x%08x, written (by %s) after %s executed it and before its next I-cache invalidate "
		      "(Tensix config 185): silicon may still run the old instruction", bh_core_kind_name(k), pc, other,
		      bh_core_kind_name(k));
	lf.pc = pc;
	lf.insn = bh_mem_ld(t->l1 + pc, 4);   /* a fetch, not a data access: no access line */
	if (!bh_check_found(&t->chip->checks, t->index, k, &lf))
		return false;
	*f = lf;
	return true;
}

/* Bits of the map word holding word w that fall in [w0, w1]. */
static uint32_t code_range_bits(uint32_t w, uint32_t w0, uint32_t w1)
{
	uint32_t lo = w & ~31u, hi = lo + 31;
	uint32_t mask = ~0u;
	if (w0 > lo)
		mask &= ~0u << (w0 - lo);
	if (w1 < hi)
		mask &= ~0u >> (hi - w1);
	return mask;
}

/* The first word of [addr, addr + len) core k executed since its last invalidate, or false. */
static bool code_first_executed(const struct bh_code_map *m, unsigned k, uint32_t addr, uint32_t len, uint32_t *word)
{
	uint32_t w0 = addr >> 2, w1 = (addr + len - 1) >> 2;
	for (uint32_t p = addr >> BH_L1_PAGE_SHIFT; p <= (addr + len - 1) >> BH_L1_PAGE_SHIFT; p++) {
		if (!(atomic_load_explicit(&m->pages[k][p / 32], memory_order_relaxed) >> (p % 32) & 1))
			continue;
		uint32_t a = p << (BH_L1_PAGE_SHIFT - 2), b = a + (1u << (BH_L1_PAGE_SHIFT - 2)) - 1;
		for (uint32_t w = a > w0 ? a : w0; w <= (b < w1 ? b : w1); w = (w | 31) + 1) {
			uint32_t hit = atomic_load_explicit(&m->exec[k][w / 32], memory_order_relaxed) &
				       code_range_bits(w, w0, w1);
			if (hit) {
				*word = ((w & ~31u) + (uint32_t)__builtin_ctz(hit)) << 2;
				return true;
			}
		}
	}
	return false;
}

int bh_code_executed_by(struct bh_tile *t, uint32_t addr, uint32_t len, uint32_t *word)
{
	atomic_thread_fence(memory_order_seq_cst);   /* pairs with the marking in bh_code_fetch */
	return bh_code_executed_fenced(t, addr, len, word);
}

int bh_code_executed_fenced(struct bh_tile *t, uint32_t addr, uint32_t len, uint32_t *word)
{
	if (!t->code || !len)
		return -1;
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		if (code_core_running(t, k) && code_first_executed(t->code, k, addr, len, word))
			return (int)k;
	return -1;
}

void bh_l1_writer_describe(const struct bh_l1_writer *w, char *buf, size_t n)
{
	const struct bh_noc_txn *x = w->noc;
	const char *op = !x ? "" : x->op == BH_NOC_OP_ATOMIC ? "atomic" : x->op == BH_NOC_OP_READ ? "read" : "write";
	if (w->core < BH_CORES_PER_TILE)
		snprintf(buf, n, "%s at pc 0x%08x", bh_core_kind_name((enum bh_core_kind)w->core), w->pc);
	else if (x && x->who < BH_CORES_PER_TILE)
		snprintf(buf, n, "NoC%u %s issued by (%u,%u) %s at pc 0x%08x", x->noc, op, x->init->x, x->init->y,
			 bh_core_kind_name((enum bh_core_kind)x->who), x->pc);
	else if (x)
		snprintf(buf, n, "NoC%u %s issued by (%u,%u)", x->noc, op, x->init->x, x->init->y);
	else
		snprintf(buf, n, "the host");
}

/* Core k's executed words in [w0, w1] become stale; returns whether there were any. */
static bool code_make_stale(struct bh_code_map *m, unsigned k, uint32_t w0, uint32_t w1)
{
	bool any = false;
	for (uint32_t w = w0; w <= w1; w = (w | 31) + 1) {
		uint32_t hit = atomic_load_explicit(&m->exec[k][w / 32], memory_order_relaxed) & code_range_bits(w, w0, w1);
		if (hit) {
			atomic_fetch_or_explicit(&m->stale[k][w / 32], hit, memory_order_release);
			any = true;
		}
	}
	return any;
}

/* Whether page p must keep bit 7: a core executed words there, or a CB FIFO uses it (the bit is
 * shared with BH_PAGE_CB, fabric/tile.h). */
static bool code_page_held(struct bh_tile *t, unsigned p, memory_order mo)
{
	struct bh_code_map *m = t->code;
	if (atomic_load_explicit(&t->cb_page_mark[p / 32], mo) >> (p % 32) & 1)
		return true;
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		if (atomic_load_explicit(&m->pages[k][p / 32], mo) >> (p % 32) & 1)
			return true;
	return false;
}

/* No core has executed words on page p any more: stores there may take the fast path again.
 * Cleared first, then looked again, so a concurrent bh_code_fetch's (or CB set-up's) mark is
 * never lost. */
static void code_page_settle(struct bh_tile *t, unsigned p)
{
	_Atomic uint8_t *b = &t->code_pages[p];
	if (!(atomic_load_explicit(b, memory_order_relaxed) & BH_PAGE_EXECUTED) ||
	    code_page_held(t, p, memory_order_relaxed))
		return;
	atomic_fetch_and_explicit(b, (uint8_t)~BH_PAGE_EXECUTED, memory_order_seq_cst);
	if (code_page_held(t, p, memory_order_seq_cst))
		atomic_fetch_or_explicit(b, BH_PAGE_EXECUTED, memory_order_seq_cst);
}

bool bh_code_written(struct bh_tile *t, const struct bh_l1_writer *w, uint32_t addr, uint32_t len, struct bh_fault *f)
{
	struct bh_code_map *m = t->code;
	if (!m || !len)
		return false;
	atomic_thread_fence(memory_order_seq_cst);   /* pairs with the marking in bh_code_fetch */
	uint32_t end = addr + len, w0 = addr >> 2, w1 = (end - 1) >> 2;
	char who[sizeof m->writer[0][0]];
	who[0] = 0;
	int victim = -1;
	uint32_t word = 0;
	for (uint32_t p = addr >> BH_L1_PAGE_SHIFT; p <= (end - 1) >> BH_L1_PAGE_SHIFT; p++) {
		uint32_t a = p << (BH_L1_PAGE_SHIFT - 2), b = a + (1u << (BH_L1_PAGE_SHIFT - 2)) - 1;
		for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
			if (!(atomic_load_explicit(&m->pages[k][p / 32], memory_order_relaxed) >> (p % 32) & 1))
				continue;
			if (!m->stale_on || (k != w->core && !code_core_running(t, k)))
				continue;
			uint32_t lo = a > w0 ? a : w0, hi = b < w1 ? b : w1;
			if (!code_make_stale(m, k, lo, hi))
				continue;
			if (!who[0])
				bh_l1_writer_describe(w, who, sizeof who);
			pthread_mutex_lock(&m->lock);
			memcpy(m->writer[k][p], who, sizeof who);
			pthread_mutex_unlock(&m->lock);
			if (victim < 0 && w->core < BH_CORES_PER_TILE && k != w->core) {
				victim = (int)k;
				code_first_executed(m, k, lo << 2, (hi - lo + 1) << 2, &word);
			}
		}
		code_page_settle(t, p);
	}
	if (victim < 0 || !bh_checks_on(&t->chip->checks, BH_CHECK_CODE_WRITTEN))
		return false;
	char other[64];
	snprintf(other, sizeof other, "%s (running), which executed 0x%08x", bh_core_kind_name((enum bh_core_kind)victim),
		 word);
	bh_check_fill(f, BH_CHECK_CODE_WRITTEN, addr, "L1", other,
		      "%s stores into code %s executed since its last I-cache invalidate while it runs: overwrite code "
		      "only while its core is in reset (or invalidate before it runs the new code)",
		      bh_core_kind_name((enum bh_core_kind)w->core), bh_core_kind_name((enum bh_core_kind)victim));
	f->pc = w->pc;
	f->insn = w->pc < BH_L1_SIZE && !(w->pc & 3) ? bh_mem_ld(t->l1 + w->pc, 4) : 0;
	f->has_addr = true;
	f->is_store = true;
	f->size = len;
	return bh_check_found(&t->chip->checks, t->index, w->core, f);
}

void bh_code_invalidated(struct bh_tile *t, unsigned core_mask)
{
	struct bh_code_map *m = t->code;
	if (!m)
		return;
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
		if (!(core_mask >> k & 1))
			continue;
		for (unsigned pw = 0; pw < BH_L1_PAGES / 32; pw++) {
			/* Most words name no executed page: a load instead of a locked exchange each
			 * (12 per core, five cores per tile, 140 tiles at every launch). */
			if (!atomic_load_explicit(&m->pages[k][pw], memory_order_relaxed))
				continue;
			uint32_t pages = atomic_exchange_explicit(&m->pages[k][pw], 0, memory_order_relaxed);
			while (pages) {
				unsigned p = pw * 32 + (unsigned)__builtin_ctz(pages);
				pages &= pages - 1;
				unsigned w0 = (p << (BH_L1_PAGE_SHIFT - 2)) / 32, nw = (1u << (BH_L1_PAGE_SHIFT - 2)) / 32;
				for (unsigned i = 0; i < nw; i++)
					atomic_store_explicit(&m->exec[k][w0 + i], 0, memory_order_relaxed);
				if (m->stale_on)   /* only code-written makes words stale */
					for (unsigned i = 0; i < nw; i++)
						atomic_store_explicit(&m->stale[k][w0 + i], 0, memory_order_relaxed);
			}
		}
	}
}
