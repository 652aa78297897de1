/* Test patterns of the whole-grid programs, shared with the host side of their tests
 * (tests/unit/test_grid_host.c): plain C, no guest headers. */
#ifndef BHEMU_GRID_PATTERN_H
#define BHEMU_GRID_PATTERN_H

#include <stdint.h>

/* Word i of the test data that `from` (a tile, a page) produces in round `salt`. */
static inline uint32_t grid_word(uint32_t from, uint32_t salt, uint32_t i)
{
	uint32_t x = from * 0x9E3779B1u ^ salt * 0x85EBCA77u ^ i * 0xC2B2AE3Du;
	return x ^ (x >> 16);
}

/* dram_loopback.c: word i of input page p, and what the tiles make of it. */
#define LOOP_SALT 0xD4A3u

static inline uint32_t loop_in_word(uint32_t p, uint32_t i)
{
	return grid_word(p, LOOP_SALT, i);
}

static inline uint32_t loop_transform(uint32_t in, uint32_t p)
{
	return in * 3u + p;
}

static inline uint32_t loop_out_word(uint32_t p, uint32_t i)
{
	return loop_transform(loop_in_word(p, i), p);
}

/* host_mem.c with host input: what tile k makes of an input word. */
static inline uint32_t hostmem_out_word(uint32_t in, uint32_t k)
{
	return ~in + k;
}

#endif
