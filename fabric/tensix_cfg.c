/* Tensix backend configuration as reached by RISC-V MMIO at 0xFFEF0000 (memory-map.md 8):
 * register index k at +4k, bank 0. Storage for every index; side effects for those the
 * RISC-V side relies on. The Tensix instructions that use both banks come with the coprocessor. */
#include "fabric/mmio.h"
#include "fabric/tile.h"

#define CFG_WORDS 224u

static bool cfg_index(struct bh_access *a, unsigned *idx)
{
	unsigned k = a->off >> 2;
	if (k >= CFG_WORDS)
		return bh_fault_fill(a->fault, BH_FAULT_UNMAPPED, a->addr, "Tensix backend configuration",
				     "configuration index %u is past the last register (%u)", k, CFG_WORDS - 1);
	*idx = k;
	return true;
}

bool bh_tensix_cfg_read(struct bh_access *a, uint32_t *val)
{
	unsigned k = 0;
	if (!cfg_index(a, &k))
		return false;
	uint32_t w = atomic_load_explicit(&a->tile->tensix_cfg[0][k], memory_order_relaxed);
	*val = a->size == 4 ? w : (w >> (a->off & 2) * 8) & 0xffff;   /* 16-bit view */
	return true;
}

bool bh_tensix_cfg_write(struct bh_access *a, uint32_t val)
{
	unsigned k = 0;
	if (!cfg_index(a, &k))
		return false;
	_Atomic uint32_t *cell = &a->tile->tensix_cfg[0][k];
	if (a->size == 2) {
		unsigned sh = (a->off & 2) * 8;
		uint32_t old = atomic_load_explicit(cell, memory_order_relaxed), nv;
		do
			nv = (old & ~(0xffffu << sh)) | (val & 0xffff) << sh;
		while (!atomic_compare_exchange_weak_explicit(cell, &old, nv, memory_order_relaxed, memory_order_relaxed));
		val = nv;
	} else {
		atomic_store_explicit(cell, val, memory_order_relaxed);
	}
	if (k == BH_CFG_IC_INVALIDATE) {
		/* RISCV_IC_INVALIDATE_InvalidateAll: bit per core (B 1, T0 2, T1 4, T2 8, NC 0x10). */
		unsigned mask = 0;
		for (unsigned c = 0; c < BH_CORES_PER_TILE; c++)
			if (val >> bh_ic_invalidate_bit((enum bh_core_kind)c) & 1)
				mask |= 1u << c;
		bh_tile_flush_decoded(a->tile, mask);
	}
	return true;
}
