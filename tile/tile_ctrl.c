/* Tile control / debug registers (0xFFB12000, memory-map.md section 4), the TDMA-RISC window
 * (section 3) and the pc snapshots (section 5). Each register the model knows is listed once,
 * with its access and what the model does with it; everything else is a fault naming it. */
#include <stdio.h>

#include "fabric/wallclock.h"
#include "tile/tile.h"

enum reg_kind {
	REG_PLAIN,        /* storage cell: read back what was written */
	REG_SINK,         /* accepted and ignored (clock gating): no functional effect on an emulator */
	REG_SPECIAL,      /* behaviour in the switch below */
	REG_UNMODELLED,   /* exists on silicon, not modelled: access faults with its name */
};

enum { RO = 1, WO = 2, RW = 3 };

struct tile_reg {
	uint16_t off;
	uint8_t rw;
	uint8_t kind;
	const char *name;
};

/* X(offset, NAME, access, kind) — names as in the hardware register list. */
#define TILE_CTRL_REGS(X) \
	X(0x054, DBG_BUS_CTRL, WO, REG_UNMODELLED) \
	X(0x058, TENSIX_CREG_READ, WO, REG_UNMODELLED) \
	X(0x05C, DBG_RD_DATA, RO, REG_UNMODELLED) \
	X(0x060, DBG_ARRAY_RD_EN, WO, REG_UNMODELLED) \
	X(0x064, DBG_ARRAY_RD_CMD, WO, REG_UNMODELLED) \
	X(0x068, DBG_FEATURE_DISABLE, RW, REG_PLAIN) \
	X(0x06C, DBG_ARRAY_RD_DATA, RO, REG_UNMODELLED) \
	X(0x078, TENSIX_CREG_RDDATA, RO, REG_UNMODELLED) \
	X(0x080, RISC_DBG_CNTL_0, RW, REG_UNMODELLED) \
	X(0x084, RISC_DBG_CNTL_1, RW, REG_UNMODELLED) \
	X(0x088, RISC_DBG_STATUS_0, RO, REG_UNMODELLED) \
	X(0x08C, RISC_DBG_STATUS_1, RO, REG_UNMODELLED) \
	X(0x090, TRISC_PC_BUF_OVERRIDE, RW, REG_SPECIAL) \
	X(0x094, DBG_INVALID_INSTRN, RW, REG_UNMODELLED) \
	X(0x0A0, DBG_INSTRN_BUF_CTRL0, RW, REG_UNMODELLED) \
	X(0x0A4, DBG_INSTRN_BUF_CTRL1, RW, REG_UNMODELLED) \
	X(0x0A8, DBG_INSTRN_BUF_STATUS, RO, REG_SPECIAL) \
	X(0x1B0, SOFT_RESET_0, RW, REG_SPECIAL) \
	X(0x1D0, ECC_CTRL, RW, REG_UNMODELLED) \
	X(0x1D4, ECC_STATUS, RO, REG_UNMODELLED) \
	X(0x1E0, WATCHDOG_TIMER, RW, REG_UNMODELLED) \
	X(0x1E4, WDT_CNTL, RW, REG_UNMODELLED) \
	X(0x1E8, WDT_STATUS, RO, REG_UNMODELLED) \
	X(0x1F0, WALL_CLOCK_0, RO, REG_SPECIAL) \
	X(0x1F4, WALL_CLOCK_1, RO, REG_SPECIAL) \
	X(0x1F8, WALL_CLOCK_1_AT, RO, REG_SPECIAL) \
	X(0x224, DISABLE_RESET, RW, REG_SPECIAL) \
	X(0x228, TRISC0_RESET_PC, RW, REG_SPECIAL) \
	X(0x22C, TRISC1_RESET_PC, RW, REG_SPECIAL) \
	X(0x230, TRISC2_RESET_PC, RW, REG_SPECIAL) \
	X(0x234, TRISC_RESET_PC_OVERRIDE, RW, REG_SPECIAL) \
	X(0x238, NCRISC_RESET_PC, RW, REG_SPECIAL) \
	X(0x23C, NCRISC_RESET_PC_OVERRIDE, RW, REG_SPECIAL) \
	X(0x240, DEST_CG_CTRL, WO, REG_SINK) \
	X(0x244, CG_CTRL_EN, WO, REG_SINK) \
	X(0x248, CG_KICK, WO, REG_SINK)

enum {
#define X(off, name, rw, kind) TC_##name = off,
	TILE_CTRL_REGS(X)
#undef X
};

static const struct tile_reg tile_ctrl_regs[] = {
#define X(off, name, rw, kind) { off, rw, kind, #name },
	TILE_CTRL_REGS(X)
#undef X
};

static const struct tile_reg *tile_ctrl_find(uint32_t off)
{
	for (size_t k = 0; k < sizeof tile_ctrl_regs / sizeof tile_ctrl_regs[0]; k++)
		if (tile_ctrl_regs[k].off == off)
			return &tile_ctrl_regs[k];
	return NULL;
}

static bool tile_ctrl_check(struct bh_access *a, const struct tile_reg *r, bool store)
{
	char region[96];
	if (!r) {
		if (a->off < 0x128 || (a->off >= 0x1D0 && a->off < 0x224))
			return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, "tile control registers",
					     "tile control offset 0x%03x (performance counters, timestamp dump, ...) is not modelled",
					     a->off);
		return bh_fault_fill(a->fault, BH_FAULT_UNMAPPED, a->addr, "tile control registers",
				     "no tile control register at offset 0x%03x", a->off);
	}
	snprintf(region, sizeof region, "tile control register %s (0x%08x)", r->name, a->addr);
	if (!(r->rw & (store ? WO : RO)))
		return bh_fault_fill(a->fault, BH_FAULT_ACCESS, a->addr, region, "%s is %s", r->name,
				     store ? "read-only" : "write-only");
	if (r->kind == REG_UNMODELLED)
		return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, region, "%s is not modelled", r->name);
	return true;
}

/* Plain storage for the REG_PLAIN registers, indexed by word offset. */
static _Atomic uint32_t *tile_ctrl_cell(struct bh_tile *t, uint32_t off)
{
	return &t->ctrl_cells[off >> 2];
}

bool bh_tile_ctrl_read(struct bh_access *a, uint32_t *val)
{
	const struct tile_reg *r = tile_ctrl_find(a->off);
	struct bh_tile *t = a->tile;
	if (!tile_ctrl_check(a, r, false))
		return false;
	switch (a->off) {
	case TC_SOFT_RESET_0:
		*val = atomic_load_explicit(&t->soft_reset, memory_order_acquire);
		return true;
	case TC_WALL_CLOCK_0: {
		/* Reading the low word latches the high word into WALL_CLOCK_1_AT. */
		uint64_t now = bh_wallclock_ticks();
		atomic_store_explicit(&t->wall_clock_hi_latched, (uint32_t)(now >> 32), memory_order_relaxed);
		*val = (uint32_t)now;
		return true;
	}
	case TC_WALL_CLOCK_1:
		*val = (uint32_t)(bh_wallclock_ticks() >> 32);
		return true;
	case TC_WALL_CLOCK_1_AT:
		*val = atomic_load_explicit(&t->wall_clock_hi_latched, memory_order_relaxed);
		return true;
	case TC_TRISC_PC_BUF_OVERRIDE:
		*val = bh_pcbuf_override_read(t);
		return true;
	case TC_DBG_INSTRN_BUF_STATUS:
		*val = bh_tensix_instrn_buf_status(t);   /* live FIFO state (cores/tensix.c) */
		return true;
	default:
		break;
	}
	if (r->kind == REG_PLAIN || r->kind == REG_SPECIAL) {
		pthread_mutex_lock(&t->lock);
		switch (a->off) {
		case TC_DISABLE_RESET: *val = t->disable_reset; break;
		case TC_TRISC0_RESET_PC: *val = t->trisc_reset_pc[0]; break;
		case TC_TRISC1_RESET_PC: *val = t->trisc_reset_pc[1]; break;
		case TC_TRISC2_RESET_PC: *val = t->trisc_reset_pc[2]; break;
		case TC_TRISC_RESET_PC_OVERRIDE: *val = t->trisc_reset_pc_override; break;
		case TC_NCRISC_RESET_PC: *val = t->ncrisc_reset_pc; break;
		case TC_NCRISC_RESET_PC_OVERRIDE: *val = t->ncrisc_reset_pc_override; break;
		default: *val = atomic_load_explicit(tile_ctrl_cell(t, a->off), memory_order_relaxed); break;
		}
		pthread_mutex_unlock(&t->lock);
	}
	return true;
}

/* Parked polls may watch the tile control registers: every write below announces itself; the
 * wall clock moves by itself (timed sleeps), and the instruction-buffer status follows the
 * Tensix FIFOs, which announce nothing here. */
uint32_t bh_tile_ctrl_watch(unsigned who, uint32_t addr)
{
	uint32_t off = addr - BH_TILE_CTRL_BASE;
	if (off - TC_WALL_CLOCK_0 < TC_WALL_CLOCK_1_AT + 4 - TC_WALL_CLOCK_0)
		return BH_WATCH_TIMED;
	return off == TC_DBG_INSTRN_BUF_STATUS ? BH_WATCH_NONE : addr;
}

static bool tile_ctrl_store(struct bh_access *a, const struct tile_reg *r, uint32_t val);

bool bh_tile_ctrl_write(struct bh_access *a, uint32_t val)
{
	const struct tile_reg *r = tile_ctrl_find(a->off);
	if (!tile_ctrl_check(a, r, true))
		return false;
	if (r->kind == REG_SINK)
		return true;
	bool ok = tile_ctrl_store(a, r, val);
	if (ok)
		bh_tile_mmio_written(a->tile, a->addr);   /* wakes polls parked on it */
	return ok;
}

static bool tile_ctrl_store(struct bh_access *a, const struct tile_reg *r, uint32_t val)
{
	struct bh_tile *t = a->tile;
	if (a->off == TC_SOFT_RESET_0) {
		/* Only the RISC-V bits (11-14, 18) do anything in the model; the Tensix units they also
		 * reset come with the coprocessor. Bit 31 is written by UMD and has no effect. */
		bh_tile_soft_reset_write(t, val, a->who);
		return true;
	}
	if (a->off == TC_TRISC_PC_BUF_OVERRIDE)
		return bh_pcbuf_override_write(a, val);   /* wakes PCBuf waiters (sync/pcbuf.c) */
	if (r->kind == REG_PLAIN) {
		atomic_store_explicit(tile_ctrl_cell(t, a->off), val, memory_order_relaxed);
		return true;
	}
	pthread_mutex_lock(&t->lock);
	switch (a->off) {
	case TC_DISABLE_RESET: t->disable_reset = val & 0x3ff; break;
	case TC_TRISC0_RESET_PC: t->trisc_reset_pc[0] = val; break;
	case TC_TRISC1_RESET_PC: t->trisc_reset_pc[1] = val; break;
	case TC_TRISC2_RESET_PC: t->trisc_reset_pc[2] = val; break;
	case TC_TRISC_RESET_PC_OVERRIDE: t->trisc_reset_pc_override = val & 7; break;
	case TC_NCRISC_RESET_PC: t->ncrisc_reset_pc = val; break;
	case TC_NCRISC_RESET_PC_OVERRIDE: t->ncrisc_reset_pc_override = val & 1; break;
	default: break;
	}
	pthread_mutex_unlock(&t->lock);
	return true;
}

/* TDMA-RISC: only CLK_GATE_EN (0x24) is used by firmware on Blackhole, which writes 0x3F. */
bool bh_tdma_read(struct bh_access *a, uint32_t *val)
{
	if (a->off == 0x24)
		return bh_fault_fill(a->fault, BH_FAULT_ACCESS, a->addr, "TDMA-RISC CLK_GATE_EN", "CLK_GATE_EN is write-only");
	return bh_fault_fill(a->fault, BH_FAULT_NOT_MODELLED, a->addr, "TDMA-RISC registers",
			     "TDMA-RISC offset 0x%03x (mover, packer status) is not modelled; only CLK_GATE_EN (0x24) is", a->off);
}

bool bh_tdma_write(struct bh_access *a, uint32_t val)
{
	if (a->off != 0x24)
		return bh_tdma_read(a, &val);
	if (val != 0x3F)
		return bh_fault_fill(a->fault, BH_FAULT_BAD_VALUE, a->addr, "TDMA-RISC CLK_GATE_EN",
				     "CLK_GATE_EN written with 0x%x; firmware enables all clock gates with 0x3F", val);
	atomic_store_explicit(&a->tile->clk_gate_en, val, memory_order_relaxed);
	return true;
}

/* pc snapshots: B, NC, T0, T1, T2 (NCRISC comes second). The value is the core's last
 * published pc (it may lag, as the silicon value may be speculative). */
bool bh_pc_snapshot_read(struct bh_access *a, uint32_t *val)
{
	static const enum bh_core_kind order[] = { BH_BRISC, BH_NCRISC, BH_TRISC0, BH_TRISC1, BH_TRISC2 };
	*val = atomic_load_explicit(&a->tile->core[order[a->off >> 2]]->pc_snapshot, memory_order_relaxed);
	return true;
}
