/* Inline writes (noc_inline_dw_write) to registers and to L1 of other tiles. Run with
 *   bhemu run --grid --cores brisc,ncrisc inline_write.elf
 * BRISC (NoC0, non-posted) writes to the next tile in tile order: its index + 1 into stream 60
 * register 8 (an MMIO target: a WR_INLINE request) and a pattern word into an L1 word 4 bytes
 * into a 16-byte block (L1 target: staged in MEM_L1_INLINE_BASE and sent as a 4-byte write).
 * NCRISC (NoC1, posted) does the same to the previous tile, into stream 61 register 8 and an L1
 * word 8 bytes into its block, then flushes. After a grid barrier (BRISC arrives once its writes
 * are acknowledged and NCRISC's have left) every BRISC checks the four words it received and
 * both cores check their NIU counters. Streams 60 and 61 carry no CB (CBs use 8..39). */
#include "grid_test.h"

#define STREAM_REG(s, r)	(0xFFB40000u + (s) * 0x1000u + (r) * 4u)
#define FWD_REG			STREAM_REG(60, 8)
#define BACK_REG		STREAM_REG(61, 8)
#define FWD_WORD		(GRID_SEM_ADDR(2) + 4)     /* not 16-byte aligned: the staging offset matters */
#define BACK_WORD		(GRID_SEM_ADDR(3) + 8)

static const char prog[] = "inline_write";

static uint32_t inline_pattern(uint32_t from, uint32_t dir)
{
	return grid_word(from, 0x1A1Eu + dir, 0);
}

static int expect_word(const struct grid_self *self, const char *what, uint32_t addr, uint32_t want)
{
	uint32_t got = *(volatile uint32_t *)(uintptr_t)addr;
	if (got != want) {
		bare_printf("%s: tile %u: %s at 0x%08x: 0x%08x, expected 0x%08x\n", prog, self->index, what, addr, got,
			    want);
		return GRID_ERR_DATA;
	}
	return GRID_OK;
}

int main_brisc(void)
{
	struct grid_self self;
	int rc = grid_start(NOC_PROC_BRISC, &self, prog);
	if (rc != GRID_OK)
		return rc;
	uint32_t n = self.ntiles, next = (self.index + 1) % n, prev = (self.index + n - 1) % n;

	noc_inline_dw_write(grid_tile_addr(next, FWD_REG), self.index + 1);
	noc_inline_dw_write(grid_tile_addr(next, FWD_WORD), inline_pattern(self.index, 0));
	noc_async_write_barrier();
	noc_semaphore_wait_min(GRID_SEM(4), 1);   /* NCRISC's posted writes have left */
	grid_barrier(&self, 1);

	if ((rc = expect_word(&self, "stream 60 reg 8 (from the previous tile)", FWD_REG, prev + 1)) != GRID_OK ||
	    (rc = expect_word(&self, "L1 word (from the previous tile)", FWD_WORD, inline_pattern(prev, 0))) != GRID_OK ||
	    (rc = expect_word(&self, "stream 61 reg 8 (from the next tile)", BACK_REG, next + 1)) != GRID_OK ||
	    (rc = expect_word(&self, "L1 word (from the next tile)", BACK_WORD, inline_pattern(next, 1))) != GRID_OK)
		return rc;
	rc = grid_counters_check(prog, &self);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: %u tiles wrote registers and L1 words inline, posted and non-posted: ok\n", prog, n);
	return rc;
}

int main_ncrisc(void)
{
	struct grid_self self;
	int rc = grid_start(NOC_PROC_NCRISC, &self, prog);
	if (rc != GRID_OK)
		return rc;
	uint32_t prev = (self.index + self.ntiles - 1) % self.ntiles;

	noc_inline_dw_write_mmio(grid_tile_addr(prev, BACK_REG), self.index + 1, true);
	noc_inline_dw_write_l1(grid_tile_addr(prev, BACK_WORD), inline_pattern(self.index, 1), true);
	noc_async_posted_writes_flushed();
	rc = grid_counters_check(prog, &self);
	noc_fence();
	*GRID_SEM(4) = 1;
	return rc;
}
