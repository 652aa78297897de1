/* Device cores reading and writing host memory through the PCIe tile (noc.md 11): NoC addresses
 * at the PCIe endpoint with bit 60 set. Run with
 *   bhemu run --grid --cores brisc,ncrisc host_mem.elf
 * Host memory is split into per-tile slots of hostmem_block bytes (default 16 KiB + 64, so every
 * transfer is two NoC requests). Area A (from offset 0) belongs to BRISC on NoC0, area B (after
 * all of A) to NCRISC on NoC1:
 *   1. every core writes a checksummed block into its tile's slot of its area;
 *   2. (grid barrier) every core reads the slot of the next tile back (64-byte aligned) and
 *      checks it: data that went out of one tile and into another through host memory.
 * A host that sets hostmem_host_io to 1 before the cores start (tests/unit/test_grid_host.c)
 * fills area A itself; each BRISC then reads its slot, transforms every word and writes it to
 * the same slot of area B, which the host checks (NCRISC does nothing then). */
#include "grid_test.h"

#define HOSTMEM_MAX_BLOCK 32768u

volatile uint32_t hostmem_block = 16384 + 64;
/* In .data, not .bss: BRISC zeroes .bss when it starts, after the host patched the word. */
volatile uint32_t hostmem_host_io __attribute__((section(".data"))) = 0;

static const char prog[] = "host_mem";

static uint32_t block_buf[2][HOSTMEM_MAX_BLOCK / 4] __attribute__((aligned(64)));

#define HOSTMEM_SALT 0x9C1Eu

/* NoC address of byte off of host memory. */
static uint64_t host_addr(uint64_t off)
{
	const volatile struct bare_grid_info *g = bare_grid();
	uint64_t local = ((uint64_t)g->host_mem_hi << 32 | g->host_mem_lo) + off;
	return NOC_PCIE_BIT | get_noc_addr_from_xy(g->pcie_xy, local);
}

static uint64_t slot_offset(uint32_t area, uint32_t tile, const struct grid_self *self)
{
	return ((uint64_t)area * self->ntiles + tile) * hostmem_block;
}

/* Host input and check: area A slot -> transform -> area B slot (BRISC only). */
static int hostmem_transform(const struct grid_self *self)
{
	volatile uint32_t *buf = block_buf[0];
	uint32_t l1 = (uint32_t)(uintptr_t)buf;
	noc_async_read(host_addr(slot_offset(0, self->index, self)), l1, hostmem_block);
	noc_async_read_barrier();
	for (uint32_t i = 0; i < hostmem_block / 4; i++)
		buf[i] = hostmem_out_word(buf[i], self->index);
	noc_async_write(l1, host_addr(slot_offset(1, self->index, self)), hostmem_block);
	noc_async_write_barrier();
	return grid_counters_check(prog, self);
}

static int hostmem_run(uint32_t proc, const struct grid_self *self)
{
	volatile uint32_t *buf = block_buf[proc];
	uint32_t l1 = (uint32_t)(uintptr_t)buf, words = hostmem_block / 4;
	uint32_t salt = HOSTMEM_SALT + proc;
	uint64_t need = slot_offset(2, 0, self);

	if (hostmem_block > HOSTMEM_MAX_BLOCK || hostmem_block % 64 || need > bare_grid()->host_mem_size) {
		bare_printf("%s: %u-byte blocks: must be a multiple of 64 up to %u, and %u tiles' two areas must fit "
			    "the %u bytes of host memory\n", prog, hostmem_block, HOSTMEM_MAX_BLOCK, self->ntiles,
			    bare_grid()->host_mem_size);
		return GRID_ERR_SETUP;
	}
	if (hostmem_host_io)
		return proc == NOC_PROC_BRISC ? hostmem_transform(self) : GRID_OK;

	grid_block_fill(buf, words, self->index, salt);
	noc_async_write(l1, host_addr(slot_offset(proc, self->index, self)), hostmem_block);
	noc_async_write_barrier();
	for (uint32_t i = 0; i < words; i++)
		buf[i] = 0;

	/* Both cores of every tile have written before anyone reads: BRISC arrives at the grid
	 * barrier once NCRISC has (GRID_SEM(4)); NCRISC waits for the go word. */
	if (proc == NOC_PROC_BRISC) {
		noc_semaphore_wait_min(GRID_SEM(4), 1);
		grid_barrier(self, 1);
	} else {
		noc_fence();
		*GRID_SEM(4) = 1;
		noc_semaphore_wait_min(GRID_SEM(1), 1);
	}

	uint32_t from = (self->index + 1) % self->ntiles;
	noc_async_read(host_addr(slot_offset(proc, from, self)), l1, hostmem_block);
	noc_async_read_barrier();
	int rc = grid_block_check(buf, words, from, salt, prog, self);
	if (rc == GRID_OK)
		rc = grid_counters_check(prog, self);
	return rc;
}

int main_brisc(void)
{
	struct grid_self self;
	int rc = grid_main(NOC_PROC_BRISC, &self, prog, hostmem_run);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: %u tiles, %u-byte blocks through host memory at PCIe (%u,%u)%s: ok\n", prog, self.ntiles,
			    hostmem_block, bare_grid()->pcie_xy & NOC_COORD_MASK, bare_grid()->pcie_xy >> 6,
			    hostmem_host_io ? " (host input and check)" : "");
	return rc;
}

int main_ncrisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_NCRISC, &self, prog, hostmem_run);
}
