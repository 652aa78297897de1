/* NoC overlay stream registers (reference/sync.md section 1): 64 streams per tile at
 * 0xFFB40000 + s*0x1000 + r*4. bhemu models the registers firmware and fast dispatch use and
 * the phase pair a Tensix STREAMWAIT reads; every other index faults. Streams carry the circular-buffer counters (reg 8 tiles_acked,
 * reg 10 tiles_received) and the fast-dispatch completion counters (reg 270 -> reg 297).
 *
 * Reached by every core kind and the host/NoC through the tile's address decode (fabric/mmio.c),
 * and by C code through bh_stream_read() / bh_stream_write(), which take the same path. After
 * every change the handlers call bh_tile_mmio_written() (fabric/tile.h) with the address of each
 * readable register that changed (a reg 10 write: reg 10 and reg 297; reg 270: reg 297), so
 * that cores parked on it wake. */
#ifndef BH_SYNC_STREAMS_H
#define BH_SYNC_STREAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/code.h"
#include "fabric/fault.h"

struct bh_access;
struct bh_tile;
struct bh_streams;

#define BH_STREAM_BASE       0xFFB40000u
#define BH_STREAM_COUNT      64u
#define BH_STREAM_STRIDE     0x1000u
#define BH_STREAM_REG_COUNT  (BH_STREAM_STRIDE / 4u)
#define BH_STREAM_ADDR(s, r) (BH_STREAM_BASE + (uint32_t)(s) * BH_STREAM_STRIDE + (uint32_t)(r) * 4u)
#define BH_STREAM_MAX_CBS    64u

/* The modelled registers: X(index, NAME, access, width in bits). Names as in tt-metal's
 * stream_io_map.h without the STREAM_ prefix and _REG_INDEX suffix. */
#define BH_STREAM_REGS(X) \
	X(4, REMOTE_SRC, BH_STREAM_RW, 24) \
	X(8, REMOTE_DEST_BUF_START, BH_STREAM_RW, 17) \
	X(10, REMOTE_DEST_BUF_SIZE, BH_STREAM_RW, 17) \
	X(28, CURR_PHASE_BASE, BH_STREAM_RW, 20) \
	X(29, CURR_PHASE, BH_STREAM_RW, 20) \
	X(31, PHASE_AUTO_CFG_PTR, BH_STREAM_RW, 17) \
	X(270, REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE, BH_STREAM_WO, 32) \
	X(297, REMOTE_DEST_BUF_SPACE_AVAILABLE, BH_STREAM_RO, 17)

enum { BH_STREAM_RO = 1, BH_STREAM_WO = 2, BH_STREAM_RW = 3 };

enum bh_stream_reg {
#define X(idx, name, rw, bits) BH_STREAM_REG_##name = idx,
	BH_STREAM_REGS(X)
#undef X
};

/* Roles of the registers in tt-metal. */
#define BH_STREAM_REG_CB_ACKED      BH_STREAM_REG_REMOTE_DEST_BUF_START
#define BH_STREAM_REG_CB_RECEIVED   BH_STREAM_REG_REMOTE_DEST_BUF_SIZE
#define BH_STREAM_DISPATCH_FIRST    48u   /* FIRST_STREAM_USED: completion counters 48..55 */
#define BH_STREAM_DISPATCH_COUNT    8u    /* MAX_NUM_WORKER_SEMS */

/* Lifecycle (fabric/tile.c). Defaults: CBs on streams 8..39 (p100a), page counts unknown,
 * protocol checks on, every register 0. */
struct bh_streams *bh_stream_create(void);
void bh_stream_free(struct bh_streams *st);

/* Address-decode handlers of the stream window (fabric/mmio.c): a->off = s*0x1000 + r*4. */
bool bh_stream_mmio_read(struct bh_access *a, uint32_t *val);
bool bh_stream_mmio_write(struct bh_access *a, uint32_t val);

/* One access as requester `who` (core kind or BH_REQ_HOST) through the tile's address decode.
 * Returns false with *f filled (the register, what was wrong) when the access faults. */
bool bh_stream_access(struct bh_tile *t, unsigned who, unsigned s, unsigned r, bool store, uint32_t *val,
		      struct bh_fault *f);
/* Host/NoC-side helpers for C code that knows which registers exist. Reading a register that
 * cannot be read (unmodelled, write-only, s or r out of range) is a bug in the caller: the
 * fault is printed and the process aborts. bh_stream_write returns false when the write
 * faulted (read-only register, CB protocol violation); the register is then unchanged. */
uint32_t bh_stream_read(struct bh_tile *t, unsigned s, unsigned r);
bool bh_stream_write(struct bh_tile *t, unsigned s, unsigned r, uint32_t val);

/* What a Tensix STREAMWAIT compares (Blackhole STREAMWAIT.md): reg 29 as a read returns it, and
 * STREAM_NUM_MSGS_RECEIVED (reg 259), the depth of the stream's message metadata FIFO. bhemu
 * models no overlay message traffic (no phases run, reg 1 NUM_MSGS_RECEIVED_INC faults), so
 * that FIFO stays empty from reset: 0. */
uint32_t bh_stream_curr_phase(struct bh_tile *t, unsigned s);
uint32_t bh_stream_num_msgs_received(struct bh_tile *t, unsigned s);
/* A Tensix thread about to park on a STREAMWAIT registers (+1, before it re-reads the
 * registers) and unregisters (-1); writes of regs 28/29 then wake it (sync/park.h). */
void bh_stream_gate_waiters_add(struct bh_tile *t, int delta);

/* "stream 8 reg 10 (CB0 tiles_received)": the register at addr with its role on this tile.
 * Returns buf. */
const char *bh_stream_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n);

/* CB layout of the firmware build: CB k lives on stream first_stream + k, k < num_cbs
 * (p100a: 8, 32; newer tt-metal: 0, 64). Returns false (nothing changed) if it does not fit
 * in 64 streams. Set it before cores run. */
bool bh_stream_set_cb_layout(struct bh_tile *t, unsigned first_stream, unsigned num_cbs);
/* cb-reset-window (races.md #5): the L1 byte through which BRISC asks TRISC0 to zero the CB
 * counters, subordinate_sync.trisc0 of the firmware profile (launch.md 2, 5, 8): while it holds
 * BH_CB_RESET_REQUESTED (RUN_SYNC_MSG_INIT_SYNC_REGISTERS), a CB counter write, or a read of a
 * non-zero counter (a kernel started on the last run's counters), by any core but TRISC0 is a
 * finding. The host registers it with the profile (bh_boot, bh_device_use_profile);
 * an address outside L1 (BH_L1_SIZE) unregisters it: nothing is judged. Set it before cores run. */
#define BH_CB_RESET_REQUESTED 3u
void bh_stream_set_cb_reset_flag(struct bh_tile *t, uint32_t addr);
/* cb-reset-window at a launch (the kernels' entry): with the reset byte registered and at DONE (no
 * reset pending), every CB counter must be 0; the first CB with a non-zero counter is recorded as
 * a finding against BRISC (logged in either mode: the launch goes on). True when found. Slow
 * dispatch calls it before it sets a tile's GO (host/program.c, fast false), the dispatcher model
 * before it sends the go signal to the tile (cores/cq_dispatch.c, fast true: the finding says so). */
bool bh_stream_cb_launch_check(struct bh_tile *t, bool fast);
/* CB cb_index as its config block (sync.md 3.1) describes it: FIFO at L1 addr, pages pages of
 * page_size bytes. Launches set it from the config they write (host/program.c), `bhemu run` when
 * a guest sets its CBs up (the cb_config host call). pages 0 = unknown (the overfill check is then
 * skipped); page_size 0 = FIFO unknown (no page checks). Returns false (nothing changed) for more
 * than 65535 pages, as the host rejects them, or a FIFO outside L1. Setting the same config again
 * (the CB's other side) changes nothing; a new one starts its page bookkeeping at the FIFO start.
 * With cb-ownership on, the FIFO's L1 pages get BH_PAGE_CB. */
bool bh_stream_set_cb_config(struct bh_tile *t, unsigned cb_index, uint32_t addr, uint32_t pages, uint32_t page_size);
/* Page count only (FIFO unknown). */
bool bh_stream_set_cb_pages(struct bh_tile *t, unsigned cb_index, uint32_t pages);


/* The CB page at an L1 address, as the counters say now (the shadow state of races.md #9). */
struct bh_cb_page {
	unsigned cb, slot, pages;  /* CB index, FIFO slot of the page, slots in all */
	uint32_t addr, size;       /* L1 address of the page, its bytes */
	uint32_t received, acked;  /* the CB's counters */
	uint16_t seq;              /* the page's 16-bit sequence number (published, or next to fill) */
	bool published;            /* pushed and not yet popped: the consumer's */
	int producer;              /* requester of the last push, -1 = none */
	int filler;                /* before the first push: the core that wrote a free slot last, -1 = none */
};
/* False when no CB with a known FIFO covers addr (cb-ownership's stores and loads, and the
 * packer's and unpackers' accesses in cores/tensix_unpack.c, look at pages through this). */
bool bh_stream_cb_page_at(struct bh_tile *t, uint32_t addr, struct bh_cb_page *pg);
/* The first page of a known CB FIFO in L1 bytes [addr, addr + len) that is published (published
 * true) or not: false when there is none. */
bool bh_stream_cb_page_in(struct bh_tile *t, uint32_t addr, uint32_t len, bool published, struct bh_cb_page *pg);
/* Reports on the page: where it is ("CB0 page 1 of 2 (L1 0x...)", "slot" when not published),
 * and the other party (its consumer while published, else its producer). Return buf. */
const char *bh_stream_cb_page_region(const struct bh_cb_page *pg, char *buf, size_t n);
const char *bh_stream_cb_page_party(const struct bh_cb_page *pg, char *buf, size_t n);
/* cb-ownership: a store of len bytes at L1 addr by core `who` (enum bh_core_kind) into a page its
 * producer published and the consumer has not popped. True with *f filled (a finding; pc and insn
 * are the caller's), false when the store is fine or the check is off. Before the CB's first push
 * a store into a free slot names `who` the producer at work (see bh_stream_cb_read_check). */
bool bh_stream_cb_store_check(struct bh_tile *t, unsigned who, uint32_t addr, unsigned len, struct bh_fault *f);
/* cb-ownership, the read side: a read of len bytes at L1 addr by core `who` (a load, or with noc
 * the source of a NoC write it issues) from a CB slot that holds no published page (not yet
 * pushed, or popped), by a core that is not the CB's producer: a consumer reading before
 * cb_wait_front gave it the page, or after cb_pop_front. While nobody has pushed, the producer may
 * read back a page it fills: a core that popped before (the known consumer) is judged at once, so
 * is one reading while another core fills the CB (bh_stream_cb_filled, the stores); a read before
 * anybody wrote is kept and judged at the CB's first push, against the reader (recorded, and in
 * stop mode the reader stopped through chip->noc_fault). True with *f filled (pc and insn from pc),
 * false when the read is fine, waits for the push, or the check is off. */
bool bh_stream_cb_read_check(struct bh_tile *t, unsigned who, uint32_t addr, uint32_t len, uint32_t pc, bool noc,
			     struct bh_fault *f);
/* cb-ownership: core `who` wrote L1 [addr, addr + len) (a NoC read it issued landing there):
 * before a CB's first push, a write into a free slot names the CB's producer at work. */
void bh_stream_cb_filled(struct bh_tile *t, uint32_t addr, uint32_t len, unsigned who);
/* CB protocol checks on reg 8/10 writes (default on). */
void bh_stream_set_checks(struct bh_tile *t, bool on);

#endif
