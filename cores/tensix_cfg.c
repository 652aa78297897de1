/* Tensix backend configuration as reached by RISC-V MMIO at 0xFFEF0000 (memory-map.md 8):
 * register index k at +4k, bank 0. Storage for every index; side effects for those the
 * RISC-V side relies on. Tensix instructions (cores/tensix_exec.c) write either bank through
 * bh_tensix_cfg_store / bh_tensix_cfg_rmw / bh_tensix_cfg_cmpxchg, with the same side effects.
 * Words from GLOBAL_CFGREG_BASE_ADDR32 (180) on are shared by both banks
 * (BackendConfiguration.md): bh_tensix_cfg_cell() maps them to one cell. */
#include "cores/core.h"
#include "cores/tensix.h"
#include "cores/tensix_sfpu.h"
#include "fabric/code.h"
#include "fabric/mmio.h"

static bool cfg_index(struct bh_access *a, unsigned *idx)
{
	unsigned k = a->off >> 2;
	if (k >= BH_CFG_WORDS)
		return bh_fault_fill(a->fault, BH_FAULT_UNMAPPED, a->addr, "Tensix backend configuration",
				     "configuration index %u is past the last register (%u)", k, BH_CFG_WORDS - 1);
	*idx = k;
	return true;
}

bool bh_tensix_cfg_read(struct bh_access *a, uint32_t *val)
{
	unsigned k = 0;
	if (!cfg_index(a, &k))
		return false;
	uint32_t w = atomic_load_explicit(bh_tensix_cfg_cell(a->tile, 0, k), memory_order_relaxed);
	*val = a->size == 4 ? w : (w >> (a->off & 2) * 8) & 0xffff;   /* 16-bit view */
	return true;
}

/* Side effects of a configuration word, whichever path wrote it. */
static void cfg_side_effects(struct bh_tile *t, unsigned k, uint32_t val)
{
	if (k == BH_CFG_IC_INVALIDATE) {
		/* RISCV_IC_INVALIDATE_InvalidateAll: bit per core (B 1, T0 2, T1 4, T2 8, NC 0x10). */
		unsigned mask = 0;
		for (unsigned c = 0; c < BH_CORES_PER_TILE; c++)
			if (val >> bh_ic_invalidate_bit((enum bh_core_kind)c) & 1)
				mask |= 1u << c;
		bh_tile_flush_decoded(t, mask);
		bh_code_invalidated(t, mask);
	} else if (k == BH_CFG_PRNG_SEED && t->tensix && t->tensix->dp) {
		tt_sfpu_seed(t->tensix->dp, val);
	}
	bh_tile_mmio_written(t, BH_TENSIX_CFG_BASE + 4 * k);   /* a core may poll it */
}

bool bh_tensix_cfg_cmpxchg(struct bh_tile *t, unsigned bank, unsigned k, uint32_t *old, uint32_t val)
{
	if (!atomic_compare_exchange_strong_explicit(bh_tensix_cfg_cell(t, bank, k), old, val, memory_order_relaxed,
						     memory_order_relaxed))
		return false;
	cfg_side_effects(t, k, val);
	return true;
}

void bh_tensix_cfg_rmw(struct bh_tile *t, unsigned bank, unsigned k, uint32_t mask, uint32_t val)
{
	uint32_t old = atomic_load_explicit(bh_tensix_cfg_cell(t, bank, k), memory_order_relaxed);
	while (!bh_tensix_cfg_cmpxchg(t, bank, k, &old, (old & ~mask) | (val & mask)))
		;
}

void bh_tensix_cfg_store(struct bh_tile *t, unsigned bank, unsigned k, uint32_t val)
{
	atomic_store_explicit(bh_tensix_cfg_cell(t, bank, k), val, memory_order_relaxed);
	cfg_side_effects(t, k, val);
}

bool bh_tensix_cfg_write(struct bh_access *a, uint32_t val)
{
	unsigned k = 0;
	if (!cfg_index(a, &k))
		return false;
	if (a->size == 2) {
		unsigned sh = (a->off & 2) * 8;
		bh_tensix_cfg_rmw(a->tile, 0, k, 0xffffu << sh, (val & 0xffff) << sh);
	} else {
		bh_tensix_cfg_store(a->tile, 0, k, val);
	}
	return true;
}
