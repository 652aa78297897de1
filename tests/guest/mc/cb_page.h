/* Test pages for the circular-buffer stress programs (cb_pingpong.c, cb_chain5.c).
 *
 * A page of page_size bytes (a multiple of 16, at least 16) is words
 *   [0] sequence number  [1] stage (hops so far)  [2..n-2] payload  [n-1] checksum of [0..n-2]
 * where payload word i of page seq at stage s is page_word(seq, i) + s * PAGE_STAGE_STEP, so
 * every stage that forwards a page also transforms it. The consumer checks each word it reads
 * once: a lost, duplicated or reordered page breaks the sequence, a torn or stale one the
 * payload, anything else the checksum. Exit codes name the failure. */
#ifndef BHEMU_MC_CB_PAGE_H
#define BHEMU_MC_CB_PAGE_H

#include <stdint.h>

#include "multicore.h"

enum mc_status {
	MC_OK = 0,
	MC_ERR_CONFIG = 10,     /* CB config block or parameters unusable */
	MC_ERR_SEQUENCE = 11,   /* page lost, duplicated or out of order */
	MC_ERR_PAYLOAD = 12,    /* payload word wrong: torn or stale page */
	MC_ERR_CHECKSUM = 13,   /* checksum word wrong */
	MC_ERR_STAGE = 14,      /* page skipped or repeated a stage of the chain */
	MC_ERR_COUNTERS = 15,   /* CB counters wrong after the last page */
};

#define PAGE_STAGE_STEP 0x9E3779B9u
#define PAGE_MIN_BYTES 16

static inline uint32_t page_word(uint32_t seq, uint32_t i)
{
	uint32_t x = seq * 0x85EBCA77u + i * 0xC2B2AE3Du;
	return x ^ (x >> 15);
}

static inline uint32_t page_hash(uint32_t h, uint32_t w)
{
	return (h ^ w) * 0x01000193u;
}

/* Writes page seq at stage into the words at p. */
static inline void page_fill(volatile uint32_t *p, uint32_t nwords, uint32_t seq, uint32_t stage)
{
	uint32_t h = page_hash(page_hash(0x811c9dc5u, seq), stage);
	p[0] = seq;
	p[1] = stage;
	for (uint32_t i = 2; i < nwords - 1; i++) {
		uint32_t w = page_word(seq, i) + stage * PAGE_STAGE_STEP;
		p[i] = w;
		h = page_hash(h, w);
	}
	p[nwords - 1] = h;
}

/* Checks the page at p; on failure prints what was wrong (naming core and CB) and returns the
 * code. Each word is read exactly once. */
static inline int page_check(const volatile uint32_t *p, uint32_t nwords, uint32_t seq, uint32_t stage,
			     const char *who, uint32_t cb)
{
	uint32_t got_seq = p[0], got_stage = p[1];
	if (got_seq != seq) {
		bare_printf("%s: CB%u: page %u arrived where page %u was due (lost, duplicated or reordered)\n",
			    who, cb, got_seq, seq);
		return MC_ERR_SEQUENCE;
	}
	if (got_stage != stage) {
		bare_printf("%s: CB%u: page %u has been through %u stages, expected %u\n", who, cb, seq, got_stage,
			    stage);
		return MC_ERR_STAGE;
	}
	uint32_t h = page_hash(page_hash(0x811c9dc5u, got_seq), got_stage);
	for (uint32_t i = 2; i < nwords - 1; i++) {
		uint32_t w = p[i], want = page_word(seq, i) + stage * PAGE_STAGE_STEP;
		if (w != want) {
			bare_printf("%s: CB%u: page %u word %u is 0x%08x, expected 0x%08x (torn or stale page)\n",
				    who, cb, seq, i, w, want);
			return MC_ERR_PAYLOAD;
		}
		h = page_hash(h, w);
	}
	uint32_t sum = p[nwords - 1];
	if (sum != h) {
		bare_printf("%s: CB%u: page %u checksum is 0x%08x, expected 0x%08x\n", who, cb, seq, sum, h);
		return MC_ERR_CHECKSUM;
	}
	return MC_OK;
}

/* Address of page k of a batch starting at ptr (bytes), wrapping at the FIFO end: a batch may
 * straddle the end of the FIFO, which the CB pointers (one wrap check per call) allow for. */
static inline volatile uint32_t *page_at(uint32_t ptr, uint32_t k, uint32_t page_size, uint32_t fifo_start,
					 uint32_t fifo_size)
{
	uint32_t addr = ptr + k * page_size;
	if (addr >= fifo_start + fifo_size)
		addr -= fifo_size;
	return (volatile uint32_t *)(uintptr_t)addr;
}

/* Checks one CB slot of a config block (sync.md 3.1) against the FIFO memory the program owns. */
static inline int page_config_check(const volatile uint32_t *slot, uintptr_t mem, uint32_t mem_size,
				    const char *who, uint32_t cb)
{
	uint32_t addr = slot[0], size = slot[1], num_pages = slot[2], page_size = slot[3];
	if (page_size < PAGE_MIN_BYTES || page_size % 16 != 0 || num_pages == 0 || num_pages > 0xFFFF ||
	    size != num_pages * page_size || addr % 16 != 0 || addr < mem || addr - mem > mem_size ||
	    size > mem_size - (addr - mem)) {
		bare_printf("%s: CB%u config unusable: addr 0x%x size %u pages %u page size %u "
			    "(need page size a multiple of 16 and >= 16, 1..65535 pages, size = pages * page size, "
			    "16-byte aligned inside [0x%x, 0x%x))\n",
			    who, cb, addr, size, num_pages, page_size, (uint32_t)mem, (uint32_t)mem + mem_size);
		return MC_ERR_CONFIG;
	}
	return MC_OK;
}

#endif
