/* What the cores of a tile executed since their last I-cache invalidate, for the checks that
 * judge writes into code (races.md 1, 6, 30): code-written and atomic-into-code.
 *
 * Per core, a bitmap of the L1 words it executed since its last invalidate (Tensix config 185)
 * or release from reset, and of those the words somebody wrote since ("stale": real hardware
 * may still hold the old instruction in its I-cache). A core marks a word when it decodes it
 * (a slow path: once per word until its decoded code is dropped) and finds stale words there;
 * writers reach the map on the slow path of stores into pages whose code_pages byte is set.
 * With code-written on, BH_PAGE_EXECUTED keeps that byte set on every page with executed words, so
 * a later write into the page is seen even after the decoded code was dropped (atomic-into-code
 * alone looks at the map at the atomic, and leaves stores into executed pages their fast path).
 * Everything is off (tile->code NULL) unless one of the two checks is on. */
#ifndef BH_FABRIC_CODE_H
#define BH_FABRIC_CODE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/hw.h"

struct bh_fault;
struct bh_noc_txn;
struct bh_tile;

#define BH_PAGE_EXECUTED 0x80u   /* bit of tile->code_pages[page]: some core executed words here (shared with BH_PAGE_CB, fabric/tile.h) */
/* The same bit (fabric/tile.h): the L1 page holds part of a CB FIFO and cb-ownership is on, so the
 * cores' stores into it take the slow path (cores/core.c) and, through the load-checking
 * interpreter, their loads look too (fabric/check.h, sync/streams.h). */
#define BH_PAGE_CB 0x80u
#define BH_L1_WORDS (BH_L1_SIZE / 4u)

struct bh_code_map {
	bool stale_on;             /* code-written is on: stale words and BH_PAGE_EXECUTED */
	_Atomic uint32_t exec[BH_CORES_PER_TILE][BH_L1_WORDS / 32];
	_Atomic uint32_t stale[BH_CORES_PER_TILE][BH_L1_WORDS / 32];
	_Atomic uint32_t pages[BH_CORES_PER_TILE][BH_L1_PAGES / 32];   /* pages with executed words */
	pthread_mutex_t lock;      /* writer */
	char writer[BH_CORES_PER_TILE][BH_L1_PAGES][80];   /* the last write that made words of the page stale */
};

/* Who writes L1: a core of the tile (core < BH_CORES_PER_TILE, the store's pc), else a NoC
 * transaction (noc), else the host (and the fast-dispatch models' host-side writes). */
struct bh_l1_writer {
	unsigned core;
	uint32_t pc;
	const struct bh_noc_txn *noc;
};

/* "brisc at pc 0x...", "NoC0 write from (1,2) ncrisc at pc 0x...", "the host". */
void bh_l1_writer_describe(const struct bh_l1_writer *w, char *buf, size_t n);

/* The map of tile t when its chip runs code-written or atomic-into-code (else t->code stays
 * NULL). Returns 0 or -1 (out of memory). */
int bh_code_map_init(struct bh_tile *t);
void bh_code_map_destroy(struct bh_tile *t);

/* bh_code_fetch's part for code-written: the page's BH_PAGE_EXECUTED and a stale word's finding. */
bool bh_code_fetch_stale(struct bh_tile *t, unsigned k, uint32_t pc, struct bh_fault *f);

/* A core's rows of its tile's map (exec[k], pages[k]), kept by the core; exec NULL without a map. */
struct bh_code_row {
	_Atomic uint32_t *exec, *pages;
	bool stale_on;
};

/* Core k of t executes the word at pc, whose page r->pages already marks (bh_code_page_mark):
 * at the first run of a slot kept across an I-cache invalidate. Every word a core runs after
 * each launch's invalidate comes here, so the marking is inline. r: the core's rows of t->code.
 * The word is marked executed before the decoder reads it (seq_cst, as op_decode's page
 * marking): a writer either sees the mark or the decoder reads what it wrote. Returns true when
 * that word is stale and code-written has a finding for the core (filled into *f; stop mode: the
 * core stops with it). */
static inline bool bh_code_fetch_word(struct bh_tile *t, const struct bh_code_row *r, unsigned k, uint32_t pc,
				      struct bh_fault *f)
{
	uint32_t w = pc >> 2, bit = 1u << (w & 31);
	_Atomic uint32_t *e = &r->exec[w / 32];
	if (!(atomic_load_explicit(e, memory_order_relaxed) & bit))
		atomic_fetch_or_explicit(e, bit, memory_order_seq_cst);
	/* Only code-written judges stores into executed words (atomic-into-code looks at the map at
	 * the atomic): without it, stores into the page keep their fast path. */
	return r->stale_on && bh_code_fetch_stale(t, k, pc, f);
}

/* Page p may hold words the core executes from now on: writers look at their pages' marks
 * first. Set before any of its words' marks (bh_code_fetch_word). */
static inline void bh_code_page_mark(const struct bh_code_row *r, unsigned p)
{
	_Atomic uint32_t *pw = &r->pages[p / 32];
	if (!(atomic_load_explicit(pw, memory_order_relaxed) >> (p % 32) & 1))
		atomic_fetch_or_explicit(pw, 1u << (p % 32), memory_order_seq_cst);
}

/* Core k of t executes the word at pc (at decode): bh_code_fetch_word with the page's mark. */
static inline bool bh_code_fetch(struct bh_tile *t, const struct bh_code_row *r, unsigned k, uint32_t pc,
				 struct bh_fault *f)
{
	bh_code_page_mark(r, pc >> BH_L1_PAGE_SHIFT);
	return bh_code_fetch_word(t, r, k, pc, f);
}

/* [addr, addr + len) of t's L1 was written by w (plain store or transfer, not an atomic): the
 * words of it running cores executed become stale for them. A core of the tile writing words
 * another running core executed is a code-written finding at the store: true (stop mode) with
 * *f filled for the writer. */
bool bh_code_written(struct bh_tile *t, const struct bh_l1_writer *w, uint32_t addr, uint32_t len,
		     struct bh_fault *f);
/* The running core of t that executed a word of [addr, addr + len) since its last invalidate
 * (lowest kind first), or -1; *word is that word. For atomic-into-code. */
int bh_code_executed_by(struct bh_tile *t, uint32_t addr, uint32_t len, uint32_t *word);
/* The same for a caller whose store of the word was followed by a seq_cst fence already (a NoC
 * atomic: bh_tile_l1_written_by fenced after it): no second fence. */
int bh_code_executed_fenced(struct bh_tile *t, uint32_t addr, uint32_t len, uint32_t *word);
/* The I-cache of the cores in core_mask (bit = enum bh_core_kind) was invalidated (config 185,
 * release from reset): nothing they executed before counts any more. */
void bh_code_invalidated(struct bh_tile *t, unsigned core_mask);

#endif
