/* DRAM banks and the host memory behind the PCIe tile (noc.md sections 2, 11).
 *
 * Each bank is a 4 GiB anonymous mapping with MAP_NORESERVE: pages are backed only when first
 * touched, so a P150 with eight banks costs no host memory until a program writes DRAM. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "fabric/chip.h"

#define HOST_MEM_DEFAULT (256ull << 20)
#define HOST_NOC_BASE 0x40000000ull     /* blackhole-py's fixed CQ layout */

static uint8_t *lazy_map(uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int bh_chip_memories_init(struct bh_chip *chip, uint64_t host_mem_size, char *err, size_t errlen)
{
	for (unsigned b = 0; b < chip->topo.ndram; b++) {
		chip->dram[b] = lazy_map(BH_DRAM_BANK_SIZE);
		if (!chip->dram[b]) {
			snprintf(err, errlen, "cannot map DRAM bank %u (4 GiB of address space, MAP_NORESERVE): %s", b,
				 strerror(errno));
			bh_chip_memories_destroy(chip);
			return -1;
		}
	}
	chip->host_mem_size = host_mem_size ? host_mem_size : HOST_MEM_DEFAULT;
	chip->host_base = HOST_NOC_BASE;
	chip->host_mem = lazy_map(chip->host_mem_size);
	if (!chip->host_mem) {
		snprintf(err, errlen, "cannot map %llu bytes of host memory: %s", (unsigned long long)chip->host_mem_size,
			 strerror(errno));
		bh_chip_memories_destroy(chip);
		return -1;
	}
	return 0;
}

void bh_chip_memories_destroy(struct bh_chip *chip)
{
	for (unsigned b = 0; b < BH_DRAM_BANKS_MAX; b++) {
		if (chip->dram[b])
			munmap(chip->dram[b], BH_DRAM_BANK_SIZE);
		chip->dram[b] = NULL;
	}
	if (chip->host_mem)
		munmap(chip->host_mem, chip->host_mem_size);
	chip->host_mem = NULL;
}

uint8_t *bh_dram_ptr(struct bh_chip *chip, unsigned bank, uint64_t offset, uint64_t len)
{
	if (bank >= chip->topo.ndram || offset > BH_DRAM_BANK_USABLE || len > BH_DRAM_BANK_USABLE - offset)
		return NULL;
	return chip->dram[bank] + offset;
}

uint8_t *bh_host_mem_ptr(struct bh_chip *chip, uint64_t addr, uint64_t len)
{
	if (!(addr & BH_NOC_PCIE_BIT))
		return NULL;
	uint64_t off = (addr & ~BH_NOC_PCIE_BIT) - chip->host_base;   /* wraps to huge below the base */
	if (off > chip->host_mem_size || len > chip->host_mem_size - off)
		return NULL;
	return chip->host_mem + off;
}
