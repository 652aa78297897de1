/* The address decode mechanism (fabric/mmio.h): lookup in the tile's region table, the checks
 * every access goes through, and the call of the serving device with its state. */
#include <stdarg.h>
#include <stdio.h>

#include "fabric/chip.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"

const char *bh_requester_name(unsigned who)
{
	return who == BH_REQ_HOST ? "host" : bh_core_kind_name((enum bh_core_kind)who);
}

void bh_mmio_index_build(const struct bh_region *regions, unsigned n, uint8_t index[BH_MMIO_INDEX_PAGES])
{
	for (uint32_t p = 0; p < BH_MMIO_INDEX_PAGES; p++)
		index[p] = 0;
	for (unsigned k = 0; k < n; k++) {
		const struct bh_region *r = &regions[k];
		uint64_t lo = r->base, hi = (uint64_t)r->base + r->size;
		if (!r->size || hi <= BH_MMIO_INDEX_BASE)
			continue;
		if (lo < BH_MMIO_INDEX_BASE)
			lo = BH_MMIO_INDEX_BASE;
		for (uint64_t p = (lo - BH_MMIO_INDEX_BASE) >> 12; p <= (hi - 1 - BH_MMIO_INDEX_BASE) >> 12; p++)
			index[p] = index[p] || k + 1 >= BH_MMIO_INDEX_MANY ? BH_MMIO_INDEX_MANY : (uint8_t)(k + 1);
	}
}

const struct bh_region *bh_mmio_region(const struct bh_tile *t, uint32_t addr)
{
	if (t->region_index && addr >= BH_MMIO_INDEX_BASE) {
		unsigned k = t->region_index[(addr - BH_MMIO_INDEX_BASE) >> 12];
		if (k != BH_MMIO_INDEX_MANY) {
			const struct bh_region *r = k ? &t->regions[k - 1] : NULL;
			return r && addr - r->base < r->size ? r : NULL;
		}
	}
	for (unsigned k = 0; k < t->nregions; k++)
		if (addr - t->regions[k].base < t->regions[k].size)
			return &t->regions[k];
	return NULL;
}

uint32_t bh_watch_same(unsigned who, uint32_t addr)
{
	return addr;
}

uint32_t bh_mmio_watch(const struct bh_tile *t, unsigned who, uint32_t addr)
{
	if (addr < BH_L1_SIZE)
		return addr;
	const struct bh_region *r = bh_mmio_region(t, addr);
	return r && r->watch ? r->watch(who, addr) : BH_WATCH_NONE;
}

const char *bh_mmio_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n)
{
	const struct bh_region *r = addr < BH_L1_SIZE ? NULL : bh_mmio_region(t, addr);
	if (r && r->describe)
		return r->describe(t, addr, buf, n);
	snprintf(buf, n, "%s 0x%08x", addr < BH_L1_SIZE ? "L1" : r ? r->name : "address", addr);
	return buf;
}

static bool mmio_access(struct bh_access *a, bool store, uint32_t *val)
{
	struct bh_fault *f = a->fault;
	uint32_t addr = a->addr;
	unsigned size = a->size, who = a->who;
	if (addr < BH_L1_SIZE) {
		if (addr & (size - 1))
			return bh_fault_fill(f, BH_FAULT_MISALIGNED, addr, "L1",
					     "%u-byte %s at 0x%08x is not naturally aligned (Blackhole has no misaligned access)",
					     size, store ? "store" : "load", addr);
		if (store)
			bh_mem_st(a->tile->l1 + addr, size, *val);
		else
			*val = bh_mem_ld(a->tile->l1 + addr, size);
		return true;
	}
	const struct bh_region *r = bh_mmio_region(a->tile, addr);
	if (!r)
		return bh_fault_fill(f, BH_FAULT_UNMAPPED, addr, "unmapped",
				     "0x%08x is neither L1 [0x0, 0x%x) nor a register window of the tile", addr, BH_L1_SIZE);
	if (!((store ? r->write_mask : r->read_mask) & BH_REQ_BIT(who)))
		return bh_fault_fill(f, BH_FAULT_ACCESS, addr, r->name, "%s cannot %s %s%s", bh_requester_name(who),
				     store ? "write" : "read", r->name,
				     (store ? r->read_mask : r->write_mask) & BH_REQ_BIT(who)
					     ? (store ? " (read-only)" : " (write-only)") : "");
	if (addr & (size - 1))
		return bh_fault_fill(f, BH_FAULT_MISALIGNED, addr, r->name,
				     "%u-byte access at 0x%08x is not naturally aligned", size, addr);
	if (!(r->widths & (1u << size)))
		return bh_fault_fill(f, BH_FAULT_ACCESS, addr, r->name, "%u-byte access: %s takes %s accesses only",
				     size, r->name, r->widths == 16 ? "32-bit" : "16- or 32-bit");
	a->region = r;
	a->off = addr - r->base;
	a->dev = r->state ? r->state(a->tile) : a->tile;
	bh_dev_read_fn rd = r->read;
	bh_dev_write_fn wr = r->write;
	if (store ? !wr : !rd)
		return bh_fault_fill(f, BH_FAULT_NOT_MODELLED, addr, r->name, "%s", r->missing);
	/* Provocation: a core's own instruction (wait_what set; the host's accesses, which may come
	 * from tiles without a chip, have none) may be late here, before the device takes any lock.
	 * Predictable branches when off. */
	if (a->wait_what && __builtin_expect(a->tile->chip->provoke.mmio, 0))
		bh_provoke_sync_point(&a->tile->chip->provoke, bh_provoke_tile_actor(a->tile->index, who), r->sync, store);
	return store ? wr(a, *val) : rd(a, val);
}

enum bh_acc bh_mmio_access(struct bh_tile *tile, unsigned who, uint32_t addr, unsigned size, bool store,
			   uint32_t *val, struct bh_fault *f, char *wait_what, unsigned wait_len)
{
	struct bh_access a = { .tile = tile, .who = who, .addr = addr, .size = size, .fault = f,
			       .wait_what = wait_what, .wait_len = wait_len };
	return bh_access_result(&a, mmio_access(&a, store, val), store);
}

enum bh_acc bh_mmio_access_tensix(struct bh_tile *tile, unsigned who, uint32_t addr, bool store, uint32_t *val,
				  struct bh_fault *f, unsigned open)
{
	struct bh_access a = { .tile = tile, .who = who, .addr = addr, .size = 4, .fault = f,
			       .tensix = (uint8_t)(BH_TT_ACC | open) };
	return bh_access_result(&a, mmio_access(&a, store, val), store);
}

enum bh_acc bh_access_result(struct bh_access *a, bool ok, bool store)
{
	if (ok)
		return BH_ACC_OK;
	if (a->blocked)
		return BH_ACC_BLOCKED;
	a->fault->has_addr = true;
	a->fault->is_store = store;
	a->fault->size = a->size;
	return BH_ACC_FAULT;
}

bool bh_access_block(struct bh_access *a, const char *fmt, ...)
{
	va_list ap;
	if (!a->wait_what)
		return bh_fault_fill(a->fault, BH_FAULT_ACCESS, a->addr, a->region ? a->region->name : NULL,
				     "the host cannot wait on this register");
	a->blocked = true;
	va_start(ap, fmt);
	vsnprintf(a->wait_what, a->wait_len, fmt, ap);
	va_end(ap);
	return false;
}
