/* DRAM banks, the host memory behind the PCIe tile (noc.md sections 2, 11) and the Ethernet
 * tiles' L1 (fabric/chip.h).
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

static void eth_wr32(uint8_t *l1, uint32_t addr, uint32_t v)
{
	memcpy(l1 + addr, &v, 4);
}

/* Every enabled Ethernet tile's L1 as a card without links leaves it (fabric/chip.h). */
static void eth_boot_results(struct bh_chip *chip)
{
	for (unsigned k = 0; k < chip->topo.neth; k++) {
		uint8_t *l1 = chip->eth_l1 + (size_t)k * BH_ETH_L1_SIZE;
		eth_wr32(l1, BH_ETH_BOOT_RESULTS, BH_ETH_POSTCODE_FAIL);
		eth_wr32(l1, BH_ETH_BOOT_RESULTS + 4, BH_ETH_PORT_DOWN);
		eth_wr32(l1, BH_ETH_BOOT_RESULTS + 8, BH_ETH_TRAIN_TIMEOUT_LINK_UP);
		l1[BH_ETH_CHIP_INFO + 2] = chip->topo.eth_chan[k];
		l1[BH_ETH_CHIP_INFO + 3] = (uint8_t)k;
	}
}

void bh_eth_set_ids(struct bh_chip *chip, uint32_t board_hi, uint32_t board_lo, uint32_t asic_hi, uint32_t asic_lo)
{
	for (unsigned k = 0; k < chip->topo.neth; k++) {
		uint8_t *l1 = chip->eth_l1 + (size_t)k * BH_ETH_L1_SIZE;
		eth_wr32(l1, BH_ETH_CHIP_INFO + 4, board_hi);
		eth_wr32(l1, BH_ETH_CHIP_INFO + 8, board_lo);
		eth_wr32(l1, BH_ETH_CHIP_INFO + 20, asic_hi);
		eth_wr32(l1, BH_ETH_CHIP_INFO + 24, asic_lo);
	}
}

uint8_t *bh_eth_l1_ptr(struct bh_chip *chip, unsigned k, uint64_t addr, uint64_t len)
{
	if (k >= chip->topo.neth || addr > BH_ETH_L1_SIZE || len > BH_ETH_L1_SIZE - addr)
		return NULL;
	return chip->eth_l1 + (size_t)k * BH_ETH_L1_SIZE + addr;
}

int bh_chip_memories_init(struct bh_chip *chip, uint64_t host_mem_size, char *err, size_t errlen)
{
	if (chip->topo.neth) {
		chip->eth_l1 = lazy_map((uint64_t)chip->topo.neth * BH_ETH_L1_SIZE);
		if (!chip->eth_l1) {
			snprintf(err, errlen, "cannot map the L1 of %u Ethernet tiles: %s", chip->topo.neth,
				 strerror(errno));
			return -1;
		}
		eth_boot_results(chip);
	}
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
	if (chip->eth_l1)
		munmap(chip->eth_l1, (uint64_t)chip->topo.neth * BH_ETH_L1_SIZE);
	chip->eth_l1 = NULL;
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
