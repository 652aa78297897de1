/* The command-buffer state the NoC library leaves behind (noc.md sections 4, 5), read back from
 * the NIU. Run with
 *   bhemu run --board grid:2x2 --grid --cores brisc,ncrisc noc_regs.elf
 * BRISC checks NoC0, NCRISC NoC1:
 *   - after noc_init: WR and WR_REG have TARG_ADDR_MID 0 and TARG_ADDR_HI = own xy, RD has
 *     NOC_CTRL 0x2090 and RET_ADDR_MID/HI = 0/own xy, AT has RET_ADDR_LO 4 and RET_ADDR_MID/HI =
 *     0/own xy, where own xy is NOC_ID_LOGICAL;
 *   - after a write, a read, two semaphore increments, a remote semaphore set and an inline
 *     register write, those preprogrammed registers still hold their values, NOC_CTRL of WR is
 *     0x2092 and AT_LEN_BE of AT is 0x107C / 0x107D for the word at offset 0 / 4 of a 16-byte
 *     block, the old value of the incremented word is in L1 at 4, and the counters match. */
#include "grid_test.h"

static const char prog[] = "noc_regs";

static uint32_t noc_regs_buf[2][16] __attribute__((aligned(16)));
/* Set by BRISC once it has checked its atomics (in .data: BRISC zeroes .bss at start). */
static volatile uint32_t noc_regs_brisc_atomics_done __attribute__((section(".data")));

static int expect_reg(const struct grid_self *self, uint32_t buf, uint32_t off, const char *name, uint32_t want)
{
	uint32_t got = *noc_cmd_buf_reg(noc_index, buf, off);
	if (got != want) {
		bare_printf("%s: tile %u NoC%u buf %u %s = 0x%08x, expected 0x%08x\n", prog, self->index, noc_index, buf,
			    name, got, want);
		return GRID_ERR_DATA;
	}
	return GRID_OK;
}

/* The registers noc_init programs (noc.md 4); OWN_XY stands for this tile's NOC_ID_LOGICAL. */
#define OWN_XY 0xFFFFFFFFu
static const struct {
	uint8_t buf, off;
	const char *name;
	uint32_t value;
} preprogrammed[] = {
	{ NOC_BUF_WR, NOC_TARG_ADDR_MID, "TARG_ADDR_MID", 0 },
	{ NOC_BUF_WR, NOC_TARG_ADDR_HI, "TARG_ADDR_HI", OWN_XY },
	{ NOC_BUF_WR_REG, NOC_TARG_ADDR_MID, "TARG_ADDR_MID", 0 },
	{ NOC_BUF_WR_REG, NOC_TARG_ADDR_HI, "TARG_ADDR_HI", OWN_XY },
	{ NOC_BUF_RD, NOC_CTRL, "NOC_CTRL", 0x2090 },
	{ NOC_BUF_RD, NOC_RET_ADDR_MID, "RET_ADDR_MID", 0 },
	{ NOC_BUF_RD, NOC_RET_ADDR_HI, "RET_ADDR_HI", OWN_XY },
	{ NOC_BUF_AT, NOC_RET_ADDR_LO, "RET_ADDR_LO", MEM_NOC_ATOMIC_RET_VAL_ADDR },
	{ NOC_BUF_AT, NOC_RET_ADDR_MID, "RET_ADDR_MID", 0 },
	{ NOC_BUF_AT, NOC_RET_ADDR_HI, "RET_ADDR_HI", OWN_XY },
};

static int expect_preprogrammed(const struct grid_self *self, uint32_t xy)
{
	int rc = GRID_OK;
	for (uint32_t i = 0; i < sizeof preprogrammed / sizeof preprogrammed[0] && rc == GRID_OK; i++) {
		uint32_t want = preprogrammed[i].value == OWN_XY ? xy : preprogrammed[i].value;
		rc = expect_reg(self, preprogrammed[i].buf, preprogrammed[i].off, preprogrammed[i].name, want);
	}
	return rc;
}

static int noc_regs_run(uint32_t proc, const struct grid_self *self)
{
	uint32_t xy = *noc_niu_reg(noc_index, NOC_ID_LOGICAL) & 0xFFFu;
	uint32_t next = (self->index + 1) % self->ntiles;
	volatile uint32_t *buf = noc_regs_buf[proc];
	/* A 16-byte block of semaphores private to this core: words 0 and 1 are incremented. */
	volatile uint32_t *sem = GRID_SEM(8 + proc);
	int rc;

	if ((rc = expect_preprogrammed(self, xy)) != GRID_OK)
		return rc;

	for (uint32_t i = 0; i < 16; i++)
		buf[i] = i * 0x01010101u + proc;
	noc_async_write((uint32_t)(uintptr_t)buf, grid_tile_addr(next, GRID_DATA_BASE + 64 * proc), 64);
	noc_async_write_barrier();
	noc_async_read(grid_tile_addr(next, GRID_DATA_BASE + 64 * proc), (uint32_t)(uintptr_t)&buf[0], 64);
	noc_async_read_barrier();
	if ((rc = expect_reg(self, NOC_BUF_WR, NOC_CTRL, "NOC_CTRL", 0x2092)) != GRID_OK)
		return rc;

	/* Both cores' atomics return their old value to the same L1 word (4): NCRISC waits until
	 * BRISC has read its own before it issues any. */
	if (proc == NOC_PROC_NCRISC)
		while (!noc_regs_brisc_atomics_done)
			__asm__ volatile("fence" ::: "memory");
	sem[0] = 5;
	noc_semaphore_inc(get_noc_addr(my_x(), my_y(), (uint32_t)(uintptr_t)&sem[0]), 3);
	noc_async_atomic_barrier();
	if ((rc = expect_reg(self, NOC_BUF_AT, NOC_AT_LEN_BE, "AT_LEN_BE", 0x107C)) != GRID_OK)
		return rc;
	volatile uint32_t *ret = (volatile uint32_t *)(uintptr_t)MEM_NOC_ATOMIC_RET_VAL_ADDR;
	__asm__("" : "+r"(ret));   /* an L1 address, not a null pointer plus 4 (-Warray-bounds) */
	uint32_t old = *ret;
	if (sem[0] != 8 || old != 5) {
		bare_printf("%s: tile %u NoC%u: semaphore 5 + 3 = %u, old value at L1 4 = %u\n", prog, self->index, noc_index,
			    sem[0], old);
		return GRID_ERR_COUNT;
	}
	noc_semaphore_inc(get_noc_addr(my_x(), my_y(), (uint32_t)(uintptr_t)&sem[1]), 1);
	noc_async_atomic_barrier();
	if ((rc = expect_reg(self, NOC_BUF_AT, NOC_AT_LEN_BE, "AT_LEN_BE", 0x107D)) != GRID_OK)
		return rc;
	if (proc == NOC_PROC_BRISC) {
		__asm__ volatile("fence" ::: "memory");
		noc_regs_brisc_atomics_done = 1;
	}

	buf[0] = 0xC0FFEE00u + proc;
	noc_semaphore_set_remote((uint32_t)(uintptr_t)&buf[0], grid_tile_addr(next, GRID_DATA_BASE + 256 + 16 * proc));
	noc_inline_dw_write(grid_tile_addr(next, 0xFFB40000u + (62 + proc) * 0x1000u + 8 * 4), 0x1234 + proc);
	noc_async_write_barrier();

	if ((rc = expect_preprogrammed(self, xy)) != GRID_OK)
		return rc;
	return grid_counters_check(prog, self);
}

/* Both cores check their own NoC; tile 0 reports each. */
static int noc_regs_main(uint32_t proc)
{
	struct grid_self self;
	int rc = grid_main(proc, &self, prog, noc_regs_run);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: NoC%u command buffers as noc_init and the calls leave them: ok\n", prog, noc_index);
	return rc;
}

int main_brisc(void)
{
	return noc_regs_main(NOC_PROC_BRISC);
}

int main_ncrisc(void)
{
	return noc_regs_main(NOC_PROC_NCRISC);
}
