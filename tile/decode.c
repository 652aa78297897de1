/* The address decode table of a Tensix tile (memory-map.md section 1): the single place that
 * says which requester may reach which window, which module serves it and where that module's
 * state lives, and which windows are synchronisation points for provocation (sync/provoke.h).
 * The mechanism that walks it is fabric/mmio.c. */
#include "fabric/niu.h"
#include "sync/mailbox.h"
#include "sync/pcbuf.h"
#include "sync/provoke.h"
#include "sync/streams.h"
#include "tile/tile.h"

/* Where each device's state is, in one tile. */
static void *st_niu0(struct bh_tile *t) { return &t->niu[0]; }
static void *st_niu1(struct bh_tile *t) { return &t->niu[1]; }
static void *st_streams(struct bh_tile *t) { return t->streams; }
static void *st_pcbuf(struct bh_tile *t) { return &t->pcbuf; }
static void *st_mbox(struct bh_tile *t) { return &t->mbox; }
static void *st_tensix(struct bh_tile *t) { return t->tensix; }

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

const struct bh_region bh_worker_regions[] = {
	{ R(BH_LDM_BASE, 0x1000, "local data RAM", ALL, ALL, W_ANY, bh_ldm_fast_read, bh_ldm_fast_write),
	  .watch = bh_ldm_watch, .describe = bh_ldm_describe },
	{ R(BH_LDM_BASE + 0x1000, 0x1000, "local data RAM upper 4 KiB (BRISC/NCRISC only)",
	     B | NC, B | NC, W_ANY, bh_ldm_fast_read, bh_ldm_fast_write),
	  .watch = bh_ldm_watch, .describe = bh_ldm_describe },
	{ R(0xFFB11000, 0x1000, "TDMA-RISC registers", B | T, B | T, W32, bh_tdma_read, bh_tdma_write) },
	{ R(BH_TILE_CTRL_BASE, 0x1000, "tile control registers",
	     ALL | H, ALL | H, W32, bh_tile_ctrl_read, bh_tile_ctrl_write),
	  .watch = bh_tile_ctrl_watch, .sync = BH_SYNC_REG },
	{ R(0xFFB13000, 0x138, "PIC configuration/status", ALL | H, ALL | H, W32, NULL, NULL),
	  .missing = "the PIC is not modelled (tt-metal does not use interrupts)" },
	{ R(0xFFB13138, 0x14, "RISC-V pc snapshots", ALL | H, 0, W32, bh_pc_snapshot_read, NULL) },
	{ R(BH_LDM_SLOW_BASE, 5 * 0x2000, "local data RAM slow-path windows",
	     ALL | H, ALL | H, W_ANY, bh_ldm_slow_read, bh_ldm_slow_write),
	  .watch = bh_watch_same },
	{ R(BH_NIU_BASE(0), BH_NIU_SIZE, "NoC0 NIU", ALL | H, ALL | H, W32, bh_niu_read, bh_niu_write), .state = st_niu0,
	  .watch = bh_watch_same, .describe = bh_niu_describe,
	  .sync = BH_SYNC_REG },
	{ R(BH_NIU_BASE(1), BH_NIU_SIZE, "NoC1 NIU", ALL | H, ALL | H, W32, bh_niu_read, bh_niu_write), .state = st_niu1,
	  .watch = bh_watch_same, .describe = bh_niu_describe,
	  .sync = BH_SYNC_REG },
	{ R(BH_STREAM_BASE, BH_STREAM_COUNT * BH_STREAM_STRIDE, "NoC overlay stream registers",
	     ALL | H, ALL | H, W32, bh_stream_mmio_read, bh_stream_mmio_write), .state = st_streams,
	  .watch = bh_watch_same, .describe = bh_stream_describe, .sync = BH_SYNC_COUNTER },
	{ R(BH_TT_MOP_CFG_BASE, 0x24, "MOP expander configuration", 0, T, W32, NULL, bh_tensix_mop_cfg_write), .state = st_tensix },
	{ R(BH_TT_DST_BASE, 0x8000, "Tensix Dst (RISC-V view)", T, T, W_ANY, bh_tensix_dst_read, bh_tensix_dst_write),
	  .state = st_tensix },
	{ R(BH_TT_GPR_BASE, 0x1000, "Tensix GPRs", B | T, B | T, W32, bh_tensix_gpr_read, bh_tensix_gpr_write), .state = st_tensix },
	{ R(BH_TT_PUSH_BASE, BH_TT_PUSH_STRIDE, "Tensix instruction push (thread 0 / own thread)",
	     0, B | T, W32, NULL, bh_tensix_push_write), .state = st_tensix },
	/* TRISCs may store here only to be told it hangs them (the handler faults). */
	{ R(BH_TT_PUSH_BASE + BH_TT_PUSH_STRIDE, BH_TT_PUSH_STRIDE,
	     "Tensix instruction push, thread 1 (BRISC only; hangs a TRISC)",
	     0, B | T, W32, NULL, bh_tensix_push_write), .state = st_tensix },
	{ R(BH_TT_PUSH_BASE + 2 * BH_TT_PUSH_STRIDE, BH_TT_PUSH_STRIDE,
	     "Tensix instruction push, thread 2 (BRISC only; hangs a TRISC)",
	     0, B | T, W32, NULL, bh_tensix_push_write), .state = st_tensix },
	{ R(BH_PCBUF_BASE, BH_PCBUF_STRIDE, "PCBuf 0 / TTSync / Tensix semaphores",
	     B | T, B | T, W32, bh_pcbuf_read, bh_pcbuf_write), .state = st_pcbuf,
	  .watch = bh_pcbuf_watch, .describe = bh_pcbuf_describe, .sync = BH_SYNC_COUNTER },
	{ R(BH_PCBUF_BASE + BH_PCBUF_STRIDE, BH_PCBUF_STRIDE, "PCBuf 1 (BRISC side)",
	     B, B, W32, bh_pcbuf_read, bh_pcbuf_write), .state = st_pcbuf, .sync = BH_SYNC_REG },
	{ R(BH_PCBUF_BASE + 2 * BH_PCBUF_STRIDE, BH_PCBUF_STRIDE, "PCBuf 2 (BRISC side)",
	     B, B, W32, bh_pcbuf_read, bh_pcbuf_write), .state = st_pcbuf, .sync = BH_SYNC_REG },
	{ R(BH_MAILBOX_BASE, BH_MAILBOX_CORES * BH_MAILBOX_PAGE, "RISC-V mailboxes",
	     B | T, B | T, W32, bh_mailbox_read, bh_mailbox_write), .state = st_mbox,
	  .watch = bh_mailbox_watch, .sync = BH_SYNC_REG },
	{ R(BH_TENSIX_CFG_BASE, 0x10000, "Tensix backend configuration",
	     B | T | H, B | T | H, W16_32, bh_tensix_cfg_read, bh_tensix_cfg_write),
	  .watch = bh_watch_same },
};

const unsigned bh_worker_nregions = sizeof bh_worker_regions / sizeof bh_worker_regions[0];
