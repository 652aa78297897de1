/* The public API over the chip: coordinates, DRAM, host memory, interleaved buffers and the bank
 * tables firmware reads (noc.md sections 2, 9, 10, 11). */
#include <string.h>

#include "fabric/copy.h"
#include "host/device.h"

#define DRAM_PAGE_ALIGN 64u
#define L1_PAGE_ALIGN 16u

enum bh_board bh_device_board(const struct bh_device *dev)
{
	return dev->chip.topo.board;
}

int bh_device_tile_xy(const struct bh_device *dev, unsigned tile, unsigned *x, unsigned *y)
{
	if (!dev || tile >= dev->ntiles)
		return BH_ERR_ARG;
	*x = dev->tiles[tile]->x;
	*y = dev->tiles[tile]->y;
	return BH_OK;
}

int bh_device_tile_at(const struct bh_device *dev, unsigned x, unsigned y)
{
	struct bh_endpoint ep = bh_topology_at(&dev->chip.topo, x, y);
	return ep.kind == BH_EP_TENSIX ? (int)ep.index : -1;
}

int bh_pcie_xy(const struct bh_device *dev, unsigned *x, unsigned *y)
{
	*x = BH_PCIE_X;
	*y = BH_PCIE_Y;
	return BH_OK;
}

static void xy_decode(uint16_t xy, unsigned *x, unsigned *y)
{
	*x = xy & 63u;
	*y = xy >> 6;
}

unsigned bh_dram_num_banks(const struct bh_device *dev)
{
	return dev->chip.topo.ndram;
}

int bh_dram_bank_xy(const struct bh_device *dev, unsigned noc, unsigned bank, unsigned *x, unsigned *y)
{
	if (noc > 1 || bank >= dev->chip.topo.ndram)
		return BH_ERR_ARG;
	xy_decode(dev->chip.topo.dram_xy[noc][bank], x, y);
	return BH_OK;
}

/* Host copies to DRAM are relaxed atomic copies (fabric/copy.h): firmware orders them against its
 * NoC traffic through the launch protocol, as on silicon, but that ordering runs through relaxed
 * mailbox words and fences, so plain copies would be C data races with the NoC's atomic ones. */
int bh_dram_write(struct bh_device *dev, unsigned bank, uint64_t offset, const void *src, size_t len)
{
	uint8_t *p = dev ? bh_dram_ptr(&dev->chip, bank, offset, len) : NULL;
	if (!p)
		return BH_ERR_ARG;
	bh_copy_relaxed(p, src, len);
	bh_device_host_acted(dev);
	return BH_OK;
}

int bh_dram_read(struct bh_device *dev, unsigned bank, uint64_t offset, void *dst, size_t len)
{
	const uint8_t *p = dev ? bh_dram_ptr(&dev->chip, bank, offset, len) : NULL;
	if (!p)
		return BH_ERR_ARG;
	bh_copy_relaxed(dst, p, len);
	return BH_OK;
}

int bh_host_mem(struct bh_device *dev, void **ptr, uint64_t *size, uint64_t *noc_base)
{
	if (!dev)
		return BH_ERR_ARG;
	*ptr = dev->chip.host_mem;
	*size = dev->chip.host_mem_size;
	*noc_base = BH_NOC_PCIE_BIT | dev->chip.host_base;
	return BH_OK;
}

/* L1 bank k is tile k: the bank order runs along a logical row, then to the next row. */
unsigned bh_num_l1_banks(const struct bh_device *dev)
{
	return dev->ntiles;
}

int bh_l1_bank_xy(const struct bh_device *dev, unsigned noc, unsigned bank, unsigned *x, unsigned *y)
{
	if (noc > 1)
		return BH_ERR_ARG;
	return bh_device_tile_xy(dev, bank, x, y);
}

/* One interleaved buffer: where page p lives (noc.md 10). */
struct interleave {
	bool dram;
	unsigned nbanks;
	uint64_t limit;        /* bytes of each bank a page may use */
	uint64_t stride;       /* page size rounded to the bank kind's alignment */
	uint64_t base;
};

/* nbanks 0: every bank of the kind; more than the device has: false. */
static bool interleave_init(struct interleave *il, const struct bh_device *dev, bool dram, unsigned nbanks,
			    uint32_t base, uint32_t page_size)
{
	uint32_t align = dram ? DRAM_PAGE_ALIGN : L1_PAGE_ALIGN;
	unsigned have = dram ? dev->chip.topo.ndram : dev->ntiles;
	if (nbanks > have)
		return false;
	il->dram = dram;
	il->nbanks = nbanks ? nbanks : have;
	il->limit = dram ? BH_DRAM_BANK_USABLE : BH_L1_SIZE;
	il->stride = ((uint64_t)page_size + align - 1) & ~(uint64_t)(align - 1);
	il->base = base;
	return page_size != 0 && il->nbanks != 0;
}

/* Offset of page p in its bank, or false when bytes of it would leave the bank. */
static bool interleave_offset(const struct interleave *il, uint64_t p, uint64_t bytes, uint64_t *off)
{
	uint64_t row = p / il->nbanks;
	if (il->base > il->limit || row > (il->limit - il->base) / il->stride)
		return false;
	*off = il->base + row * il->stride;
	return bytes <= il->limit - *off;
}

static int interleaved_copy(struct bh_device *dev, bool dram, unsigned nbanks, uint32_t base, uint32_t page_size,
			    uint32_t first_page, uint8_t *host, size_t len, bool to_device)
{
	struct interleave il;
	uint64_t off;
	if (!dev || !interleave_init(&il, dev, dram, nbanks, base, page_size))
		return BH_ERR_ARG;
	/* Check every page before touching any: an error leaves the device unchanged. */
	for (size_t done = 0; done < len; done += page_size) {
		uint64_t p = first_page + done / page_size;
		if (!interleave_offset(&il, p, len - done < page_size ? len - done : page_size, &off))
			return BH_ERR_ARG;
	}
	for (size_t done = 0; done < len; done += page_size) {
		uint64_t p = first_page + done / page_size;
		uint32_t n = len - done < page_size ? (uint32_t)(len - done) : page_size;
		unsigned bank = (unsigned)(p % il.nbanks);
		interleave_offset(&il, p, n, &off);
		if (dram) {
			uint8_t *d = bh_dram_ptr(&dev->chip, bank, off, n);
			bh_copy_relaxed(to_device ? d : host + done, to_device ? host + done : d, n);
		} else if (to_device) {
			bh_tile_l1_write(dev->tiles[bank], (uint32_t)off, host + done, n);
		} else {
			bh_tile_l1_read(dev->tiles[bank], (uint32_t)off, host + done, n);
		}
	}
	if (to_device && len)
		bh_device_host_acted(dev);
	return BH_OK;
}

int bh_interleaved_write(struct bh_device *dev, bool dram, uint32_t base, uint32_t page_size, uint32_t first_page,
			 const void *src, size_t len)
{
	return interleaved_copy(dev, dram, 0, base, page_size, first_page, (uint8_t *)src, len, true);
}

int bh_interleaved_read(struct bh_device *dev, bool dram, uint32_t base, uint32_t page_size, uint32_t first_page,
			void *dst, size_t len)
{
	return interleaved_copy(dev, dram, 0, base, page_size, first_page, dst, len, false);
}

int bh_interleaved_write_banks(struct bh_device *dev, bool dram, unsigned num_banks, uint32_t base,
			       uint32_t page_size, uint32_t first_page, const void *src, size_t len)
{
	return interleaved_copy(dev, dram, num_banks, base, page_size, first_page, (uint8_t *)src, len, true);
}

int bh_interleaved_read_banks(struct bh_device *dev, bool dram, unsigned num_banks, uint32_t base,
			      uint32_t page_size, uint32_t first_page, void *dst, size_t len)
{
	return interleaved_copy(dev, dram, num_banks, base, page_size, first_page, dst, len, false);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* Bank-table blob, noc.md 9: xy tables (NoC0 row, then NoC1 row), then offsets (all 0). */
int bh_bank_tables(const struct bh_device *dev, uint8_t *out, size_t len, unsigned num_dram, unsigned num_l1)
{
	if (!dev || num_dram > dev->chip.topo.ndram || num_l1 > dev->ntiles)
		return BH_ERR_ARG;
	size_t size = 8 * (size_t)num_dram + 8 * (size_t)num_l1;
	if (!out)
		return (int)size;
	if (len < size)
		return BH_ERR_ARG;
	uint8_t *dram_xy = out, *l1_xy = out + 4 * num_dram;
	for (unsigned noc = 0; noc < 2; noc++) {
		for (unsigned b = 0; b < num_dram; b++)
			put16(dram_xy + 2 * (noc * num_dram + b), dev->chip.topo.dram_xy[noc][b]);
		for (unsigned b = 0; b < num_l1; b++)
			put16(l1_xy + 2 * (noc * num_l1 + b),
			      (uint16_t)(dev->tiles[b]->y << 6 | dev->tiles[b]->x));
	}
	memset(out + 4 * num_dram + 4 * num_l1, 0, 4 * (size_t)num_dram + 4 * (size_t)num_l1);
	return (int)size;
}

int bh_device_boot_banks(const struct bh_device *dev, unsigned *num_dram, unsigned *num_l1)
{
	if (!dev || !dev->booted)
		return BH_ERR_ARG;
	if (num_dram)
		*num_dram = dev->boot_dram_banks;
	if (num_l1)
		*num_l1 = dev->boot_l1_banks;
	return BH_OK;
}

void bh_device_grid_size(const struct bh_device *dev, unsigned *cols, unsigned *rows)
{
	unsigned c = dev->chip.topo.cols ? dev->chip.topo.cols : 1;
	if (cols)
		*cols = c;
	if (rows)
		*rows = (dev->ntiles + c - 1) / c;
}

unsigned bh_device_all_tiles(const struct bh_device *dev, struct bh_core_range r[2])
{
	unsigned cols, rows, n = dev->ntiles;
	bh_device_grid_size(dev, &cols, &rows);
	r[0] = (struct bh_core_range){ 0, 0, cols - 1, rows - 1 };
	if (n % cols == 0)
		return 1;
	r[1] = (struct bh_core_range){ 0, rows - 1, n % cols - 1, rows - 1 };
	if (rows == 1) {
		r[0] = r[1];
		return 1;
	}
	r[0].y1 = rows - 2;
	return 2;
}
