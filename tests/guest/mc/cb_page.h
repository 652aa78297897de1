/* Test pages for the circular-buffer stress programs (cb_pingpong.c, cb_chain5.c), and the
 * producer and consumer ends those programs share (page_end_run).
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

#include "cb.h"
#include "cb_page_words.h"
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

#define PAGE_MIN_BYTES 16

/* Writes page seq at stage into the words at p. */
static inline void page_fill(volatile uint32_t *p, uint32_t nwords, uint32_t seq, uint32_t stage)
{
	uint32_t h = page_hash(page_hash(PAGE_HASH_SEED, seq), stage);
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
	uint32_t h = page_hash(page_hash(PAGE_HASH_SEED, got_seq), got_stage);
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

/* Address of page k of a batch starting at ptr in CB cb of the config block (sync.md 3.1). */
static inline volatile uint32_t *page_in_cb(const volatile uint32_t *config, uint32_t cb, uint32_t ptr, uint32_t k)
{
	const volatile uint32_t *slot = &config[cb * 4];
	return page_at(ptr, k, slot[3], slot[0], slot[1]);
}

/* Checks one CB slot of a config block (sync.md 3.1) against the FIFO memory the program owns,
 * and that a batch of `batch` pages fits the CB. */
static inline int page_config_check(const volatile uint32_t *slot, uintptr_t mem, uint32_t mem_size, uint32_t batch,
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
	if (batch == 0 || batch > num_pages) {
		bare_printf("%s: batch of %u pages does not fit the %u-page CB%u\n", who, batch, num_pages, cb);
		return MC_ERR_CONFIG;
	}
	return MC_OK;
}

/* After its last pop, a consumer's CB is settled: the producer pushed every page and the
 * consumer popped every page, so both 16-bit counts equal the page count (they started at 0). */
static inline int page_counters_check(const char *who, uint32_t cb, uint32_t pages)
{
	uint16_t received = (uint16_t)*cb_stream_reg(cb, CB_REG_TILES_RECEIVED);
	uint16_t acked = (uint16_t)*cb_stream_reg(cb, CB_REG_TILES_ACKED);
	if (received != (uint16_t)pages || acked != (uint16_t)pages) {
		bare_printf("%s: CB%u counters after %u pages: received %u acked %u, expected %u\n", who, cb, pages,
			    received, acked, (uint16_t)pages);
		return MC_ERR_COUNTERS;
	}
	return MC_OK;
}

/* ---- One end of a CB: makes every page into it, or checks every page out of it --------------- */

/* The CB calls an end uses: the data-movement ones (any core; bytes), or the TRISC compute-side
 * ones (packer calls for a producer, unpacker calls for a consumer; the *_nocp variants, cb.h). */
enum page_calls { PAGE_CALLS_DATA_MOVEMENT, PAGE_CALLS_COMPUTE };

struct page_end {
	const char *who;        /* core name, for messages */
	uint32_t cb;
	int producer;           /* 1: fills pages at `stage`; 0: checks they arrive at `stage` */
	enum page_calls calls;
	uint32_t pages;         /* pages in all */
	uint32_t batch;         /* pages per reserve / wait call (checked by page_config_check) */
	uint32_t stage;
};

static inline void page_end_setup(const struct page_end *e, const volatile uint32_t *config)
{
	if (e->calls == PAGE_CALLS_DATA_MOVEMENT)
		cb_interface_setup(config, 1u << e->cb);
	else if (e->producer)
		cb_interface_setup_packer(config, 1u << e->cb);
	else
		cb_interface_setup_unpacker(config, 1u << e->cb);
}

/* Waits for room for (producer) or arrival of (consumer) n pages; returns the L1 byte address
 * of the first. */
static inline uint32_t page_end_acquire(const struct page_end *e, uint32_t n)
{
	if (e->producer && e->calls == PAGE_CALLS_DATA_MOVEMENT) {
		cb_reserve_back(e->cb, n);
		return get_write_ptr(e->cb);
	}
	if (e->producer) {
		cb_reserve_back_packer(e->cb, n);
		return get_write_ptr_packer(e->cb);
	}
	if (e->calls == PAGE_CALLS_DATA_MOVEMENT) {
		cb_wait_front(e->cb, n);
		return get_read_ptr(e->cb);
	}
	cb_wait_front_unpacker(e->cb, n);
	return get_read_ptr_unpacker(e->cb);
}

/* Pushes (producer) or pops (consumer) n pages. */
static inline void page_end_release(const struct page_end *e, uint32_t n)
{
	if (e->producer && e->calls == PAGE_CALLS_DATA_MOVEMENT)
		cb_push_back(e->cb, n);
	else if (e->producer)
		cb_push_back_packer_nocp(e->cb, n);
	else if (e->calls == PAGE_CALLS_DATA_MOVEMENT)
		cb_pop_front(e->cb, n);
	else
		cb_pop_front_unpacker_nocp(e->cb, n);
}

/* Moves e->pages pages through CB e->cb in batches of e->batch (the last may be smaller); a
 * consumer checks every page and, at the end, the CB counters. Returns an mc_status. */
static inline int page_end_run(const struct page_end *e, const volatile uint32_t *config)
{
	const volatile uint32_t *slot = &config[e->cb * 4];
	const uint32_t start = slot[0], size = slot[1], page_size = slot[3], nwords = page_size / 4;
	const uint32_t pages = e->pages, batch = e->batch;

	page_end_setup(e, config);
	for (uint32_t seq = 0; seq < pages;) {
		uint32_t n = pages - seq < batch ? pages - seq : batch;
		uint32_t ptr = page_end_acquire(e, n);
		for (uint32_t k = 0; k < n; k++) {
			volatile uint32_t *page = page_at(ptr, k, page_size, start, size);
			if (e->producer) {
				page_fill(page, nwords, seq + k, e->stage);
			} else {
				int rc = page_check(page, nwords, seq + k, e->stage, e->who, e->cb);
				if (rc != MC_OK)
					return rc;
			}
		}
		page_end_release(e, n);
		seq += n;
	}
	return e->producer ? MC_OK : page_counters_check(e->who, e->cb, pages);
}

#endif
