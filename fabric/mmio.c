/* Address decode of a Tensix tile (memory-map.md section 1). The table is the single place
 * that says which requester may reach which window and which module serves it. */
#include <stdarg.h>
#include <stdio.h>

#include "fabric/mmio.h"
#include "fabric/niu.h"
#include "fabric/tile.h"
#include "sync/mailbox.h"
#include "sync/pcbuf.h"
#include "sync/streams.h"

#define B  BH_REQ_BIT(BH_BRISC)
#define NC BH_REQ_BIT(BH_NCRISC)
#define T  (BH_REQ_BIT(BH_TRISC0) | BH_REQ_BIT(BH_TRISC1) | BH_REQ_BIT(BH_TRISC2))
#define H  BH_REQ_BIT(BH_REQ_HOST)
#define ALL (B | NC | T)
#define W_ANY (2 | 4 | 16)   /* bit (1 << size): sizes 1, 2, 4 */
#define W32 16
#define W16_32 (4 | 16)
/* base, size, name, who may read, who may write, access sizes, handlers (NULL: not modelled). */
#define R(b, sz, nm, rd, wr, w, rfn, wfn) \
	.base = (b), .size = (sz), .name = (nm), .read_mask = (rd), .write_mask = (wr), .widths = (w), .read = (rfn), \
	.write = (wfn)

static const struct bh_region bh_regions[] = {
	{ R(BH_LDM_BASE, 0x1000, "local data RAM", ALL, ALL, W_ANY, bh_ldm_fast_read, bh_ldm_fast_write),
	  .watch = bh_ldm_watch, .describe = bh_ldm_describe },
	{ R(BH_LDM_BASE + 0x1000, 0x1000, "local data RAM upper 4 KiB (BRISC/NCRISC only)",
	     B | NC, B | NC, W_ANY, bh_ldm_fast_read, bh_ldm_fast_write),
	  .watch = bh_ldm_watch, .describe = bh_ldm_describe },
	{ R(0xFFB11000, 0x1000, "TDMA-RISC registers", B | T, B | T, W32, bh_tdma_read, bh_tdma_write) },
	{ R(BH_TILE_CTRL_BASE, 0x1000, "tile control registers",
	     ALL | H, ALL | H, W32, bh_tile_ctrl_read, bh_tile_ctrl_write),
	  .watch = bh_tile_ctrl_watch },
	{ R(0xFFB13000, 0x138, "PIC configuration/status", ALL | H, ALL | H, W32, NULL, NULL),
	  .missing = "the PIC is not modelled (tt-metal does not use interrupts)" },
	{ R(0xFFB13138, 0x14, "RISC-V pc snapshots", ALL | H, 0, W32, bh_pc_snapshot_read, NULL) },
	{ R(BH_LDM_SLOW_BASE, 5 * 0x2000, "local data RAM slow-path windows",
	     ALL | H, ALL | H, W_ANY, bh_ldm_slow_read, bh_ldm_slow_write),
	  .watch = bh_watch_same },
	{ R(BH_NIU_BASE(0), BH_NIU_SIZE, "NoC0 NIU", ALL | H, ALL | H, W32, bh_niu_read, bh_niu_write) },
	{ R(BH_NIU_BASE(1), BH_NIU_SIZE, "NoC1 NIU", ALL | H, ALL | H, W32, bh_niu_read, bh_niu_write) },
	{ R(BH_STREAM_BASE, BH_STREAM_COUNT * BH_STREAM_STRIDE, "NoC overlay stream registers",
	     ALL | H, ALL | H, W32, bh_stream_mmio_read, bh_stream_mmio_write),
	  .watch = bh_watch_same, .describe = bh_stream_describe },
	{ R(BH_TT_MOP_CFG_BASE, 0x24, "MOP expander configuration", 0, T, W32, NULL, bh_tensix_mop_cfg_write) },
	{ R(BH_TT_DST_BASE, 0x8000, "Tensix Dst (RISC-V view)", T, T, W_ANY, NULL, NULL),
	  .missing = "Tensix Dst is not modelled" },
	{ R(BH_TT_GPR_BASE, 0x1000, "Tensix GPRs", B | T, B | T, W32, bh_tensix_gpr_read, bh_tensix_gpr_write) },
	{ R(BH_TT_PUSH_BASE, BH_TT_PUSH_STRIDE, "Tensix instruction push (thread 0 / own thread)",
	     0, B | T, W32, NULL, bh_tensix_push_write) },
	/* TRISCs may store here only to be told it hangs them (the handler faults). */
	{ R(BH_TT_PUSH_BASE + BH_TT_PUSH_STRIDE, BH_TT_PUSH_STRIDE,
	     "Tensix instruction push, thread 1 (BRISC only; hangs a TRISC)",
	     0, B | T, W32, NULL, bh_tensix_push_write) },
	{ R(BH_TT_PUSH_BASE + 2 * BH_TT_PUSH_STRIDE, BH_TT_PUSH_STRIDE,
	     "Tensix instruction push, thread 2 (BRISC only; hangs a TRISC)",
	     0, B | T, W32, NULL, bh_tensix_push_write) },
	{ R(BH_PCBUF_BASE, BH_PCBUF_STRIDE, "PCBuf 0 / TTSync / Tensix semaphores",
	     B | T, B | T, W32, bh_pcbuf_read, bh_pcbuf_write),
	  .watch = bh_pcbuf_watch, .describe = bh_pcbuf_describe },
	{ R(BH_PCBUF_BASE + BH_PCBUF_STRIDE, BH_PCBUF_STRIDE, "PCBuf 1 (BRISC side)",
	     B, B, W32, bh_pcbuf_read, bh_pcbuf_write) },
	{ R(BH_PCBUF_BASE + 2 * BH_PCBUF_STRIDE, BH_PCBUF_STRIDE, "PCBuf 2 (BRISC side)",
	     B, B, W32, bh_pcbuf_read, bh_pcbuf_write) },
	{ R(BH_MAILBOX_BASE, BH_MAILBOX_CORES * BH_MAILBOX_PAGE, "RISC-V mailboxes",
	     B | T, B | T, W32, bh_mailbox_read, bh_mailbox_write),
	  .watch = bh_mailbox_watch },
	{ R(BH_TENSIX_CFG_BASE, 0x10000, "Tensix backend configuration",
	     B | T | H, B | T | H, W16_32, bh_tensix_cfg_read, bh_tensix_cfg_write),
	  .watch = bh_watch_same },
};

const char *bh_requester_name(unsigned who)
{
	return who == BH_REQ_HOST ? "host" : bh_core_kind_name((enum bh_core_kind)who);
}

const struct bh_region *bh_mmio_region(uint32_t addr)
{
	for (size_t k = 0; k < sizeof bh_regions / sizeof bh_regions[0]; k++)
		if (addr - bh_regions[k].base < bh_regions[k].size)
			return &bh_regions[k];
	return NULL;
}

uint32_t bh_watch_same(unsigned who, uint32_t addr)
{
	return addr;
}

uint32_t bh_mmio_watch(unsigned who, uint32_t addr)
{
	if (addr < BH_L1_SIZE)
		return addr;
	const struct bh_region *r = bh_mmio_region(addr);
	return r && r->watch ? r->watch(who, addr) : BH_WATCH_NONE;
}

const char *bh_mmio_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n)
{
	const struct bh_region *r = addr < BH_L1_SIZE ? NULL : bh_mmio_region(addr);
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
	const struct bh_region *r = bh_mmio_region(addr);
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
				     size, r->name, r->widths == W32 ? "32-bit" : "16- or 32-bit");
	a->region = r;
	a->off = addr - r->base;
	bh_dev_read_fn rd = r->read;
	bh_dev_write_fn wr = r->write;
	if (store ? !wr : !rd)
		return bh_fault_fill(f, BH_FAULT_NOT_MODELLED, addr, r->name, "%s", r->missing);
	return store ? wr(a, *val) : rd(a, val);
}

enum bh_acc bh_mmio_access(struct bh_tile *tile, unsigned who, uint32_t addr, unsigned size, bool store,
			   uint32_t *val, struct bh_fault *f, char *wait_what, unsigned wait_len)
{
	struct bh_access a = { .tile = tile, .who = who, .addr = addr, .size = size, .fault = f,
			       .wait_what = wait_what, .wait_len = wait_len };
	if (mmio_access(&a, store, val))
		return BH_ACC_OK;
	if (a.blocked)
		return BH_ACC_BLOCKED;
	f->has_addr = true;
	f->is_store = store;
	f->size = size;
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
