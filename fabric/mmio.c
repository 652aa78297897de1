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

static const struct bh_region bh_regions[] = {
	{ 0xFFB00000, 0x1000, "local data RAM", ALL, ALL, W_ANY, bh_ldm_fast_read, bh_ldm_fast_write, NULL },
	{ 0xFFB01000, 0x1000, "local data RAM upper 4 KiB (BRISC/NCRISC only)", B | NC, B | NC, W_ANY,
	  bh_ldm_fast_read, bh_ldm_fast_write, NULL },
	{ 0xFFB11000, 0x1000, "TDMA-RISC registers", B | T, B | T, W32, bh_tdma_read, bh_tdma_write, NULL },
	{ 0xFFB12000, 0x1000, "tile control registers", ALL | H, ALL | H, W32, bh_tile_ctrl_read, bh_tile_ctrl_write, NULL },
	{ 0xFFB13000, 0x138, "PIC configuration/status", ALL | H, ALL | H, W32, NULL, NULL,
	  "the PIC is not modelled (tt-metal does not use interrupts)" },
	{ 0xFFB13138, 0x14, "RISC-V pc snapshots", ALL | H, 0, W32, bh_pc_snapshot_read, NULL, NULL },
	{ 0xFFB14000, 0xA000, "local data RAM slow-path windows", ALL | H, ALL | H, W_ANY,
	  bh_ldm_slow_read, bh_ldm_slow_write, NULL },
	{ 0xFFB20000, 0x10000, "NoC0 NIU", ALL | H, ALL | H, W32, bh_niu_read, bh_niu_write, NULL },
	{ 0xFFB30000, 0x10000, "NoC1 NIU", ALL | H, ALL | H, W32, bh_niu_read, bh_niu_write, NULL },
	{ 0xFFB40000, 0x40000, "NoC overlay stream registers", ALL | H, ALL | H, W32,
	  bh_stream_mmio_read, bh_stream_mmio_write, NULL },
	{ 0xFFB80000, 0x24, "MOP expander configuration", 0, T, W32, NULL, bh_tensix_mop_cfg_write, NULL },
	{ 0xFFBD8000, 0x8000, "Tensix Dst (RISC-V view)", T, T, W_ANY, NULL, NULL, "Tensix Dst is not modelled" },
	{ 0xFFE00000, 0x1000, "Tensix GPRs", B | T, B | T, W32, bh_tensix_gpr_read, bh_tensix_gpr_write, NULL },
	{ 0xFFE40000, 0x10000, "Tensix instruction push (thread 0 / own thread)", 0, B | T, W32, NULL,
	  bh_tensix_push_write, NULL },
	/* TRISCs may store here only to be told it hangs them (the handler faults). */
	{ 0xFFE50000, 0x10000, "Tensix instruction push, thread 1 (BRISC only; hangs a TRISC)", 0, B | T, W32, NULL,
	  bh_tensix_push_write, NULL },
	{ 0xFFE60000, 0x10000, "Tensix instruction push, thread 2 (BRISC only; hangs a TRISC)", 0, B | T, W32, NULL,
	  bh_tensix_push_write, NULL },
	{ 0xFFE80000, 0x10000, "PCBuf 0 / TTSync / Tensix semaphores", B | T, B | T, W32,
	  bh_pcbuf_read, bh_pcbuf_write, NULL },
	{ 0xFFE90000, 0x10000, "PCBuf 1 (BRISC side)", B, B, W32, bh_pcbuf_read, bh_pcbuf_write, NULL },
	{ 0xFFEA0000, 0x10000, "PCBuf 2 (BRISC side)", B, B, W32, bh_pcbuf_read, bh_pcbuf_write, NULL },
	{ 0xFFEC0000, 0x4000, "RISC-V mailboxes", B | T, B | T, W32, bh_mailbox_read, bh_mailbox_write, NULL },
	{ 0xFFEF0000, 0x10000, "Tensix backend configuration", B | T | H, B | T | H, W16_32,
	  bh_tensix_cfg_read, bh_tensix_cfg_write, NULL },
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
