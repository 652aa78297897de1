/* Shared by the whole-grid test programs (`bhemu run --grid`): where this tile is in the run,
 * failure reporting, test patterns, and a grid-wide barrier.
 *
 * Every tile finds its own position in NOC_ID_LOGICAL (my_x/my_y) and its index by looking that
 * position up in the tile list the CLI wrote (firmware/baremetal/grid.h). Exit statuses name the
 * failure (enum grid_status); a failing tile prints one line saying what it saw.
 *
 * Tiles start in no particular order, and BRISC's crt0 zeroes .bss when it starts, so nothing
 * another tile may write lives in the program image: semaphores and receive buffers are at fixed
 * addresses from GRID_SHARED_BASE, zero because the device is new (one per `bhemu run`). */
#ifndef BHEMU_GRID_TEST_H
#define BHEMU_GRID_TEST_H

#include <stdint.h>

#include "grid.h"
#include "grid_pattern.h"
#include "multicore.h"
#include "noc.h"

/* L1 [GRID_SHARED_BASE, 0x180000) is for data other tiles write: the program image stays below. */
#define GRID_SHARED_BASE	0x100000u
#define GRID_SHARED_END		0x180000u
/* Semaphore i: one word per 16-byte block (atomics act on a block). 0 and 1 are grid_barrier's. */
#define GRID_SEM(i)		((volatile uint32_t *)(uintptr_t)(GRID_SHARED_BASE + 16u * (i)))
#define GRID_SEM_ADDR(i)	(GRID_SHARED_BASE + 16u * (i))
/* Data areas start here. */
#define GRID_DATA_BASE		(GRID_SHARED_BASE + 0x1000u)

extern char __bss_end[];

enum grid_status {
	GRID_OK = 0,
	GRID_ERR_SETUP = 20,     /* no run information, or this tile is not in it */
	GRID_ERR_DATA = 21,      /* a word received is not what its sender wrote */
	GRID_ERR_CHECKSUM = 22,  /* a block's checksum word is wrong */
	GRID_ERR_COUNT = 23,     /* a semaphore or token count is wrong */
	GRID_ERR_COUNTERS = 24,  /* NIU counters disagree with the software counters at the end */
};

/* This tile's place in the run. */
struct grid_self {
	uint32_t index;          /* tile index in the run */
	uint32_t ntiles;
	uint32_t x, y;           /* translated NoC coordinates */
};

/* Fills *self (noc_init must have run). GRID_OK, or GRID_ERR_SETUP after printing why. */
static inline int grid_self_init(struct grid_self *self, const char *prog)
{
	const volatile struct bare_grid_info *g = bare_grid();
	self->x = my_x();
	self->y = my_y();
	int k = bare_grid_tile_index(NOC_XY_ENCODING(self->x, self->y));
	if (g->magic != BARE_GRID_MAGIC || k < 0) {
		bare_printf("%s: tile (%u,%u): no run information at 0x%x, or this tile is not in it (run it "
			    "with bhemu run --grid)\n", prog, self->x, self->y, BARE_GRID_INFO_ADDR);
		return GRID_ERR_SETUP;
	}
	if ((uintptr_t)__bss_end > GRID_SHARED_BASE) {
		bare_printf("%s: the program image ends at 0x%x, inside the shared area at 0x%x\n", prog,
			    (uint32_t)(uintptr_t)__bss_end, GRID_SHARED_BASE);
		return GRID_ERR_SETUP;
	}
	self->index = (uint32_t)k;
	self->ntiles = g->num_tiles;
	return GRID_OK;
}

/* Starts this core: noc_init for proc (NOC_PROC_BRISC, NoC0, or NOC_PROC_NCRISC, NoC1), then
 * grid_self_init. */
static inline int grid_start(uint32_t proc, struct grid_self *self, const char *prog)
{
	if (proc == NOC_PROC_BRISC)
		noc_init_brisc();
	else
		noc_init_ncrisc();
	return grid_self_init(self, prog);
}

/* grid_start, then run(proc, self) if that succeeded: the body of most main_brisc/main_ncrisc. */
static inline int grid_main(uint32_t proc, struct grid_self *self, const char *prog,
			    int (*run)(uint32_t proc, const struct grid_self *self))
{
	int rc = grid_start(proc, self, prog);
	if (rc == GRID_OK)
		rc = run(proc, self);
	return rc;
}

/* NoC address of addr in tile k of the run. */
static inline uint64_t grid_tile_addr(uint32_t k, uint32_t addr)
{
	return get_noc_addr_from_xy(bare_grid()->tile_xy[k], addr);
}

/* Fills n words: n - 1 pattern words, then their FNV-1a checksum. */
static inline void grid_block_fill(volatile uint32_t *p, uint32_t n, uint32_t from, uint32_t salt)
{
	uint32_t h = BARE_FNV_INIT;
	for (uint32_t i = 0; i < n - 1; i++) {
		uint32_t w = grid_word(from, salt, i);
		p[i] = w;
		h = bare_fnv1a_u32(h, w);
	}
	p[n - 1] = h;
}

/* Checks a block written by grid_block_fill; prints the first bad word. */
static inline int grid_block_check(const volatile uint32_t *p, uint32_t n, uint32_t from, uint32_t salt,
				   const char *prog, const struct grid_self *self)
{
	uint32_t h = BARE_FNV_INIT;
	for (uint32_t i = 0; i < n - 1; i++) {
		uint32_t w = p[i], want = grid_word(from, salt, i);
		if (w != want) {
			bare_printf("%s: tile %u: block from tile %u word %u at 0x%x: 0x%08x, expected 0x%08x\n", prog,
				    self->index, from, i, (uint32_t)(uintptr_t)&p[i], w, want);
			return GRID_ERR_DATA;
		}
		h = bare_fnv1a_u32(h, w);
	}
	if (p[n - 1] != h) {
		bare_printf("%s: tile %u: block from tile %u: checksum 0x%08x, expected 0x%08x\n", prog, self->index, from,
			    p[n - 1], h);
		return GRID_ERR_CHECKSUM;
	}
	return GRID_OK;
}

/* Every software counter of this core's NoC equals its NIU counter: nothing is still in flight
 * and nothing moved that the library did not count. */
static inline int grid_counters_check(const char *prog, const struct grid_self *self)
{
	const uint32_t noc = noc_index;
	static const struct {
		uint32_t reg;
		const char *name;
	} regs[] = {
		{ NIU_MST_RD_RESP_RECEIVED, "RD_RESP_RECEIVED" },
		{ NIU_MST_WR_ACK_RECEIVED, "WR_ACK_RECEIVED" },
		{ NIU_MST_NONPOSTED_WR_REQ_SENT, "NONPOSTED_WR_REQ_SENT" },
		{ NIU_MST_POSTED_WR_REQ_SENT, "POSTED_WR_REQ_SENT" },
		{ NIU_MST_ATOMIC_RESP_RECEIVED, "ATOMIC_RESP_RECEIVED" },
	};
	const uint32_t sw[] = {
		noc_reads_num_issued[noc], noc_nonposted_writes_acked[noc], noc_nonposted_writes_num_issued[noc],
		noc_posted_writes_num_issued[noc], noc_nonposted_atomics_acked[noc],
	};
	for (uint32_t i = 0; i < sizeof sw / sizeof sw[0]; i++) {
		uint32_t hw = noc_status_read(noc, regs[i].reg);
		if (hw != sw[i]) {
			bare_printf("%s: tile %u NoC%u: NIU_MST_%s = %u, software counter %u\n", prog, self->index, noc,
				    regs[i].name, hw, sw[i]);
			return GRID_ERR_COUNTERS;
		}
	}
	return GRID_OK;
}

/* A grid-wide barrier on semaphores 0 (arrive) and 1 (go): every tile increments `arrive` on
 * tile 0; tile 0 waits for all of them, then sets `go` on every tile with one multicast over the
 * grid's rectangle. generation counts the barriers passed (1, 2, ...). A tile's writes must be
 * complete (noc_async_write_barrier) before it arrives. One core per tile calls it. */
static inline void grid_barrier(const struct grid_self *self, uint32_t generation)
{
	volatile uint32_t *arrive = GRID_SEM(0), *go = GRID_SEM(1);

	noc_semaphore_inc(grid_tile_addr(0, (uint32_t)(uintptr_t)arrive), 1);
	noc_async_atomic_barrier();
	if (self->index == 0) {
		noc_semaphore_wait(arrive, generation * self->ntiles);
		/* The tile list is row-major over a rectangle: first and last tile are its corners. */
		uint32_t first = bare_grid()->tile_xy[0], last = bare_grid()->tile_xy[self->ntiles - 1];
		*go = generation;
		if (self->ntiles > 1) {
			uint64_t mcast = get_noc_multicast_addr(first & NOC_COORD_MASK, first >> 6, last & NOC_COORD_MASK,
								last >> 6, (uint32_t)(uintptr_t)go);
			noc_semaphore_set_multicast((uint32_t)(uintptr_t)go, mcast, self->ntiles - 1);
			noc_async_write_barrier();
		}
	}
	noc_semaphore_wait(go, generation);
}

#endif
