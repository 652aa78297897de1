/* The arithmetic of the circular-buffer test pages (cb_page.h), plain C with no guest headers,
 * shared with the host: tests that compute what a guest program must end with, and the native
 * references of the benchmarks (bench/sync_native.c). */
#ifndef BHEMU_MC_CB_PAGE_WORDS_H
#define BHEMU_MC_CB_PAGE_WORDS_H

#include <stdint.h>

/* What each stage that forwards a page adds to every payload word. */
#define PAGE_STAGE_STEP 0x9E3779B9u
#define PAGE_HASH_SEED 0x811c9dc5u

/* Payload word i of page seq before any stage forwarded it. */
static inline uint32_t page_word(uint32_t seq, uint32_t i)
{
	uint32_t x = seq * 0x85EBCA77u + i * 0xC2B2AE3Du;
	return x ^ (x >> 15);
}

static inline uint32_t page_hash(uint32_t h, uint32_t w)
{
	return (h ^ w) * 0x01000193u;
}

/* The checksum word (the last of nwords) of page seq after `stage` forwards. */
static inline uint32_t page_checksum(uint32_t seq, uint32_t stage, uint32_t nwords)
{
	uint32_t h = page_hash(page_hash(PAGE_HASH_SEED, seq), stage);
	for (uint32_t i = 2; i < nwords - 1; i++)
		h = page_hash(h, page_word(seq, i) + stage * PAGE_STAGE_STEP);
	return h;
}

/* Writes page seq one stage on from the page at src (checked before): forwarded from the source
 * words, not recomputed ones, so that a corruption on the way would show downstream. */
static inline void page_forward(volatile uint32_t *dst, const volatile uint32_t *src, uint32_t nwords, uint32_t seq,
				uint32_t stage)
{
	uint32_t h = page_hash(page_hash(PAGE_HASH_SEED, seq), stage);
	dst[0] = src[0];
	dst[1] = stage;
	for (uint32_t i = 2; i < nwords - 1; i++) {
		uint32_t w = src[i] + PAGE_STAGE_STEP;
		dst[i] = w;
		h = page_hash(h, w);
	}
	dst[nwords - 1] = h;
}

#endif
