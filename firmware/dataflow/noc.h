/* The NoC part of tt-metal's dataflow API for bhemu guest programs: reads, writes, multicast,
 * semaphores, inline writes, barriers and interleaved buffers, with the register traffic and
 * software counters of the real firmware (noc.md sections 3-5, 8-10).
 *
 * Each data-movement core issues requests on one NoC ("dedicated NoC mode"): noc_init(proc, noc)
 * selects it, preprograms the four command buffers of that NIU (noc.md 4) and snapshots the
 * NIU's counters into the core's software counters. Command buffers: 0 WR (writes), 1 RD
 * (reads), 2 WR_REG (small writes: semaphore sets), 3 AT (atomics and inline writes).
 * The default split is BRISC on NoC0 and NCRISC on NoC1 (NOC_INDEX_BRISC / NOC_INDEX_NCRISC,
 * overridable with -D). Two cores must not issue on the same NoC: the hardware counters are
 * per NIU, the software counters per core, and the barriers compare the two.
 *
 * Every issue first spins `while (CMD_CTRL != 0)` on the command buffer it programs; every
 * barrier spins on an NIU counter with a `fence` per poll until it equals the software counter.
 * Addresses are NoC addresses: (y << 42) | (x << 36) | local, in translated coordinates, with
 * bit 60 for host memory behind the PCIe tile (noc.md 1, 11).
 *
 * For MULTICORE programs (cmake/BhemuGuest.cmake): they link noc.c (the functions) and
 * noc_state.c, which keeps the counters, the NoC choice and the bank tables in each core's local
 * data RAM. Kernels (firmware/kernel/) link noc.c only and use the firmware's noc_state.c. */
#ifndef BHEMU_DATAFLOW_NOC_H
#define BHEMU_DATAFLOW_NOC_H

#include <stdbool.h>
#include <stdint.h>

/* ---- NIU registers (noc.md 3) ----------------------------------------------------------------- */

#define NOC_NIU_BASE		0xFFB20000u	/* NoC0; NoC1 at +0x10000 */
#define NOC_NIU_STRIDE		0x10000u
#define NOC_CMD_BUF_STRIDE	0x800u

/* Command-buffer registers (offsets in a buffer). */
#define NOC_TARG_ADDR_LO	0x00
#define NOC_TARG_ADDR_MID	0x04
#define NOC_TARG_ADDR_HI	0x08	/* the "coordinate" register */
#define NOC_RET_ADDR_LO		0x0C
#define NOC_RET_ADDR_MID	0x10
#define NOC_RET_ADDR_HI		0x14
#define NOC_PACKET_TAG		0x18
#define NOC_CTRL		0x1C
#define NOC_AT_LEN_BE		0x20
#define NOC_AT_LEN_BE_1		0x24
#define NOC_AT_DATA		0x28
#define NOC_BRCST_EXCLUDE	0x2C
#define NOC_CMD_CTRL		0x40
#define NOC_NODE_ID		0x44
#define NOC_ENDPOINT_ID		0x48

/* Configuration block. */
#define NOC_ID_LOGICAL		0x148	/* this tile's translated x [5:0], y [11:6] */
/* Write-only: bit i set sets NIU_MST_REQS_OUTSTANDING_ID(i) to 0. */
#define NOC_CLEAR_OUTSTANDING_REQ_CNT	0x060

/* Counters (noc.md 3.4). */
#define NIU_MST_ATOMIC_RESP_RECEIVED		0x200
#define NIU_MST_WR_ACK_RECEIVED			0x204
#define NIU_MST_RD_RESP_RECEIVED		0x208
#define NIU_MST_NONPOSTED_WR_REQ_SENT		0x228
#define NIU_MST_POSTED_WR_REQ_SENT		0x22C

/* Command buffers in dedicated-NoC mode. */
enum noc_cmd_buf {
	NOC_BUF_WR = 0,
	NOC_BUF_RD = 1,
	NOC_BUF_WR_REG = 2,
	NOC_BUF_AT = 3,
};

/* NOC_CTRL fields (noc.md 3.2). */
#define NOC_CMD_RD		0x0u
#define NOC_CMD_AT		0x1u
#define NOC_CMD_WR		0x2u
#define NOC_CMD_WR_BE		(1u << 2)
#define NOC_CMD_WR_INLINE	(1u << 3)
#define NOC_CMD_RESP_MARKED	(1u << 4)
#define NOC_CMD_BRCST_PACKET	(1u << 5)
#define NOC_CMD_VC_LINKED	(1u << 6)
#define NOC_CMD_VC_STATIC	(1u << 7)
#define NOC_CMD_PATH_RESERVE	(1u << 8)
#define NOC_CMD_STATIC_VC(v)	((uint32_t)(v) << 13)

/* Virtual channels tt-metal uses. */
#define NOC_UNICAST_WRITE_VC	1
#define NOC_MULTICAST_WRITE_VC	4

/* 0x2090: what noc_init leaves in the RD buffer's NOC_CTRL. */
#define NOC_CTRL_READ		(NOC_CMD_RD | NOC_CMD_RESP_MARKED | NOC_CMD_VC_STATIC | \
				 NOC_CMD_STATIC_VC(NOC_UNICAST_WRITE_VC))

/* Atomic INCR_GET on a 32-bit word (noc.md 6): opcode 1 in [15:12], IntWidth 31 in [6:2], word
 * offset within the 16-byte block in [1:0]. 0x107C for a 16-byte-aligned word. */
#define NOC_AT_INS_INCR_GET	1u
#define NOC_AT_INCR_WORD(addr)	((NOC_AT_INS_INCR_GET << 12) | (31u << 2) | (((uint32_t)(addr) >> 2) & 3u))

/* L1 words of every tile (memory-map.md 9). */
#define MEM_NOC_ATOMIC_RET_VAL_ADDR	4u
#define MEM_L1_INLINE_BASE		0x20u

/* One request moves at most this many bytes; longer transfers are split in software. */
#define NOC_MAX_BURST_SIZE	16384u

/* Local addresses at or above this are MMIO (registers), not L1. */
#define NOC_MMIO_BASE		0xFF000000u

/* ---- Addresses (noc.md 1) ----------------------------------------------------------------------- */

#define NOC_ADDR_LOCAL_BITS	36
#define NOC_COORD_MASK		0x3Fu
#define NOC_PCIE_BIT		(1ull << 60)
#define NOC_ADDR_MID_MASK	0x1000000Fu	/* bits 63:32 the NIU keeps: 35:32 and the PCIe bit */

/* 16-bit table encoding of a tile: (y << 6) | x. */
#define NOC_XY_ENCODING(x, y)	((((uint32_t)(y) & NOC_COORD_MASK) << 6) | ((uint32_t)(x) & NOC_COORD_MASK))

/* NoC address of local address addr in tile (x, y). */
static inline uint64_t get_noc_addr(uint32_t x, uint32_t y, uint32_t addr)
{
	return ((uint64_t)NOC_XY_ENCODING(x, y) << NOC_ADDR_LOCAL_BITS) | addr;
}

/* NoC address from a table entry (y << 6) | x. */
static inline uint64_t get_noc_addr_from_xy(uint32_t xy, uint64_t addr)
{
	return ((uint64_t)xy << NOC_ADDR_LOCAL_BITS) | addr;
}

/* ---- Per-core state (noc_state.c; local data RAM) --------------------------------------------- */

#define NOC_NUM_NOCS 2

#define NOC_PROC_BRISC	0	/* tt-metal processor index: picks the inline-write staging words */
#define NOC_PROC_NCRISC	1
#ifndef NOC_INDEX_BRISC
#define NOC_INDEX_BRISC	0
#endif
#ifndef NOC_INDEX_NCRISC
#define NOC_INDEX_NCRISC 1
#endif

/* The NoC this core issues on (noc_init). */
extern uint8_t noc_index;
extern uint8_t noc_proc;
/* Software counters, per NoC, as in the firmware's local RAM (noc.md 5). */
extern uint32_t noc_reads_num_issued[NOC_NUM_NOCS];
extern uint32_t noc_nonposted_writes_num_issued[NOC_NUM_NOCS];
extern uint32_t noc_nonposted_writes_acked[NOC_NUM_NOCS];
extern uint32_t noc_nonposted_atomics_acked[NOC_NUM_NOCS];
extern uint32_t noc_posted_writes_num_issued[NOC_NUM_NOCS];

/* Selects the NoC this core uses (proc: NOC_PROC_BRISC or NOC_PROC_NCRISC), preprograms that
 * NIU's command buffers 0-3 from its NOC_ID_LOGICAL (noc.md 4) and loads the software counters
 * from the NIU's counters. Call once per core before any other call here. */
void noc_init(uint32_t proc, uint32_t noc);
/* Only the counter part of noc_init: loads this core's software counters of NoC noc from the
 * NIU's (the firmware does it before each launch; another core may have used that NoC). */
void noc_counters_init(uint32_t noc);

static inline void noc_init_brisc(void)
{
	noc_init(NOC_PROC_BRISC, NOC_INDEX_BRISC);
}

static inline void noc_init_ncrisc(void)
{
	noc_init(NOC_PROC_NCRISC, NOC_INDEX_NCRISC);
}

/* ---- Register access --------------------------------------------------------------------------- */

static inline volatile uint32_t *noc_niu_reg(uint32_t noc, uint32_t off)
{
	return (volatile uint32_t *)(uintptr_t)(NOC_NIU_BASE + noc * NOC_NIU_STRIDE + off);
}

static inline volatile uint32_t *noc_cmd_buf_reg(uint32_t noc, uint32_t buf, uint32_t off)
{
	return noc_niu_reg(noc, buf * NOC_CMD_BUF_STRIDE + off);
}

static inline void noc_cmd_buf_write(uint32_t noc, uint32_t buf, uint32_t off, uint32_t val)
{
	*noc_cmd_buf_reg(noc, buf, off) = val;
}

static inline uint32_t noc_status_read(uint32_t noc, uint32_t counter)
{
	return *noc_niu_reg(noc, counter);
}

/* Spins until the command buffer may be reprogrammed (CMD_CTRL reads 0). */
static inline void noc_cmd_buf_wait_ready(uint32_t noc, uint32_t buf)
{
	while (*noc_cmd_buf_reg(noc, buf, NOC_CMD_CTRL) != 0)
		;
}

/* TARG (or RET) LO/MID/HI of a 64-bit NoC address, starting at register lo. */
static inline void noc_cmd_buf_write_addr(uint32_t noc, uint32_t buf, uint32_t lo, uint64_t addr)
{
	noc_cmd_buf_write(noc, buf, lo, (uint32_t)addr);
	noc_cmd_buf_write(noc, buf, lo + 4, (uint32_t)(addr >> 32) & NOC_ADDR_MID_MASK);
	noc_cmd_buf_write(noc, buf, lo + 8, (uint32_t)(addr >> NOC_ADDR_LOCAL_BITS) & 0xFFFFFFu);
}

/* Compiler barrier: the program's own accesses to the data stay on their side of the
 * (volatile) register accesses. No instruction. */
#define NOC_COMPILER_BARRIER() __asm__ volatile("" ::: "memory")

static inline void noc_fence(void)
{
	__asm__ volatile("fence" ::: "memory");
}

/* ---- Where this tile is ------------------------------------------------------------------------- */

/* Translated coordinates of this tile, from NOC_ID_LOGICAL of the core's NIU (noc_index; both
 * NIUs hold the same translated position). */
static inline uint32_t my_x(void)
{
	return *noc_niu_reg(noc_index, NOC_ID_LOGICAL) & NOC_COORD_MASK;
}

static inline uint32_t my_y(void)
{
	return (*noc_niu_reg(noc_index, NOC_ID_LOGICAL) >> 6) & NOC_COORD_MASK;
}

/* ---- Reads and writes (noc.md 5) ---------------------------------------------------------------
 * Alignment (noc.md 7): L1 <-> L1 needs (src & 15) == (dst & 15); DRAM and PCIe reads need
 * (src & 63) == (dst & 63). Lengths may exceed 16 KiB (split here); a length of 0 issues nothing. */

/* Reads len bytes at src_noc_addr into local L1 dst. Completes at noc_async_read_barrier(). */
static inline void noc_async_read(uint64_t src_noc_addr, uint32_t dst_l1, uint32_t len)
{
	const uint32_t noc = noc_index;

	NOC_COMPILER_BARRIER();
	while (len) {
		uint32_t n = len > NOC_MAX_BURST_SIZE ? NOC_MAX_BURST_SIZE : len;
		noc_cmd_buf_wait_ready(noc, NOC_BUF_RD);
		noc_cmd_buf_write(noc, NOC_BUF_RD, NOC_RET_ADDR_LO, dst_l1);
		noc_cmd_buf_write_addr(noc, NOC_BUF_RD, NOC_TARG_ADDR_LO, src_noc_addr);
		noc_cmd_buf_write(noc, NOC_BUF_RD, NOC_AT_LEN_BE, n);
		noc_cmd_buf_write(noc, NOC_BUF_RD, NOC_CMD_CTRL, 1);
		noc_reads_num_issued[noc] += 1;
		src_noc_addr += n;
		dst_l1 += n;
		len -= n;
	}
}

/* One write request on buffer buf: source in local L1 (TARG_ADDR_MID/HI preprogrammed to this
 * tile), destination dst (unicast address, or a multicast rectangle: see
 * get_noc_multicast_addr), NOC_CTRL ctrl. No counters. */
static inline void noc_issue_write(uint32_t noc, uint32_t buf, uint32_t ctrl, uint32_t src_l1, uint64_t dst,
				   uint32_t len)
{
	noc_cmd_buf_wait_ready(noc, buf);
	noc_cmd_buf_write(noc, buf, NOC_CTRL, ctrl);
	noc_cmd_buf_write(noc, buf, NOC_TARG_ADDR_LO, src_l1);
	noc_cmd_buf_write_addr(noc, buf, NOC_RET_ADDR_LO, dst);
	noc_cmd_buf_write(noc, buf, NOC_AT_LEN_BE, len);
	noc_cmd_buf_write(noc, buf, NOC_CMD_CTRL, 1);
}

#define NOC_CTRL_WRITE_POSTED	(NOC_CMD_WR | NOC_CMD_VC_STATIC | NOC_CMD_STATIC_VC(NOC_UNICAST_WRITE_VC))
#define NOC_CTRL_WRITE		(NOC_CTRL_WRITE_POSTED | NOC_CMD_RESP_MARKED)	/* 0x2092 */
#define NOC_CTRL_WRITE_MCAST	(NOC_CMD_WR | NOC_CMD_VC_STATIC | NOC_CMD_STATIC_VC(NOC_MULTICAST_WRITE_VC) | \
				 NOC_CMD_BRCST_PACKET | NOC_CMD_PATH_RESERVE | NOC_CMD_RESP_MARKED)

/* Writes len bytes of local L1 src to dst_noc_addr, non-posted: complete (acknowledged) at
 * noc_async_write_barrier(); src may be reused after noc_async_writes_flushed(). */
static inline void noc_async_write(uint32_t src_l1, uint64_t dst_noc_addr, uint32_t len)
{
	const uint32_t noc = noc_index;

	NOC_COMPILER_BARRIER();
	while (len) {
		uint32_t n = len > NOC_MAX_BURST_SIZE ? NOC_MAX_BURST_SIZE : len;
		noc_issue_write(noc, NOC_BUF_WR, NOC_CTRL_WRITE, src_l1, dst_noc_addr, n);
		noc_nonposted_writes_num_issued[noc] += 1;
		noc_nonposted_writes_acked[noc] += 1;
		src_l1 += n;
		dst_noc_addr += n;
		len -= n;
	}
}

/* As noc_async_write, posted (no acknowledgement): complete only as far as
 * noc_async_posted_writes_flushed() says it has left. */
static inline void noc_async_write_posted(uint32_t src_l1, uint64_t dst_noc_addr, uint32_t len)
{
	const uint32_t noc = noc_index;

	NOC_COMPILER_BARRIER();
	while (len) {
		uint32_t n = len > NOC_MAX_BURST_SIZE ? NOC_MAX_BURST_SIZE : len;
		noc_issue_write(noc, NOC_BUF_WR, NOC_CTRL_WRITE_POSTED, src_l1, dst_noc_addr, n);
		noc_posted_writes_num_issued[noc] += 1;
		src_l1 += n;
		dst_noc_addr += n;
		len -= n;
	}
}

/* ---- Multicast (noc.md 8) ----------------------------------------------------------------------
 * A rectangle of tiles, x_start <= x_end and y_start <= y_end in translated coordinates. On
 * NoC1 the address carries the corners exchanged, as tt-metal's NoC1 kernels issue them (the
 * NIU swaps them back). The initiator is not a receiver even when inside the rectangle. */
static inline uint64_t get_noc_multicast_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end,
					      uint32_t addr)
{
	if (noc_index == 1) {
		uint32_t t = x_start;
		x_start = x_end;
		x_end = t;
		t = y_start;
		y_start = y_end;
		y_end = t;
	}
	return ((uint64_t)(x_end & NOC_COORD_MASK) << 36) | ((uint64_t)(y_end & NOC_COORD_MASK) << 42) |
	       ((uint64_t)(x_start & NOC_COORD_MASK) << 48) | ((uint64_t)(y_start & NOC_COORD_MASK) << 54) | addr;
}

/* Writes len bytes of local L1 src to every tile of the rectangle in mcast_addr; num_dests is
 * how many tiles that is (each acknowledges). Complete at noc_async_write_barrier(). */
static inline void noc_async_write_multicast(uint32_t src_l1, uint64_t mcast_addr, uint32_t len, uint32_t num_dests)
{
	const uint32_t noc = noc_index;

	NOC_COMPILER_BARRIER();
	while (len) {
		uint32_t n = len > NOC_MAX_BURST_SIZE ? NOC_MAX_BURST_SIZE : len;
		noc_issue_write(noc, NOC_BUF_WR, NOC_CTRL_WRITE_MCAST, src_l1, mcast_addr, n);
		noc_nonposted_writes_num_issued[noc] += 1;
		noc_nonposted_writes_acked[noc] += num_dests;
		src_l1 += n;
		mcast_addr += n;
		len -= n;
	}
}

/* A non-posted multicast moves its transaction id's outstanding-request counter +1 at the issue
 * and -1 per acknowledgement (races.md 24): once the multicasts of this NoC are acknowledged
 * (noc_async_write_barrier), this sets the counter of id 0, which this library uses, back to 0
 * before it can wrap. */
static inline void noc_async_write_multicast_done(void)
{
	*noc_niu_reg(noc_index, NOC_CLEAR_OUTSTANDING_REQ_CNT) = 1u;
}

/* ---- Semaphores (noc.md 5, 6) -------------------------------------------------------------------
 * A semaphore is a 32-bit word in L1, 16-byte aligned by convention (atomics act on the 16-byte
 * block holding the word; any word of it works). */

/* Atomically adds incr to the word at remote_noc_addr (INCR_GET on the AT buffer; Blackhole
 * makes atomics non-posted). The old value lands in this tile's L1 at 4. Complete at
 * noc_async_atomic_barrier(). */
static inline void noc_semaphore_inc(uint64_t remote_noc_addr, uint32_t incr)
{
	const uint32_t noc = noc_index;

	NOC_COMPILER_BARRIER();
	noc_cmd_buf_wait_ready(noc, NOC_BUF_AT);
	noc_cmd_buf_write_addr(noc, NOC_BUF_AT, NOC_TARG_ADDR_LO, remote_noc_addr);
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_CTRL,
			  NOC_CMD_AT | NOC_CMD_RESP_MARKED | NOC_CMD_VC_STATIC | NOC_CMD_STATIC_VC(NOC_UNICAST_WRITE_VC));
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_AT_LEN_BE, NOC_AT_INCR_WORD(remote_noc_addr));
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_AT_DATA, incr);
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_CMD_CTRL, 1);
	noc_nonposted_atomics_acked[noc] += 1;
}

/* Local store. */
static inline void noc_semaphore_set(volatile uint32_t *sem, uint32_t val)
{
	*sem = val;
}

/* Copies the local word at src_l1 (set it first) to remote_noc_addr: a non-posted 4-byte write
 * on the WR_REG buffer. Complete at noc_async_write_barrier(). (src & 15) == (dst & 15). */
static inline void noc_semaphore_set_remote(uint32_t src_l1, uint64_t remote_noc_addr)
{
	const uint32_t noc = noc_index;

	NOC_COMPILER_BARRIER();
	noc_issue_write(noc, NOC_BUF_WR_REG, NOC_CTRL_WRITE, src_l1, remote_noc_addr, 4);
	noc_nonposted_writes_num_issued[noc] += 1;
	noc_nonposted_writes_acked[noc] += 1;
}

/* As noc_semaphore_set_remote, to every tile of a multicast rectangle (num_dests tiles). */
static inline void noc_semaphore_set_multicast(uint32_t src_l1, uint64_t mcast_addr, uint32_t num_dests)
{
	const uint32_t noc = noc_index;

	NOC_COMPILER_BARRIER();
	noc_issue_write(noc, NOC_BUF_WR_REG, NOC_CTRL_WRITE_MCAST, src_l1, mcast_addr, 4);
	noc_nonposted_writes_num_issued[noc] += 1;
	noc_nonposted_writes_acked[noc] += num_dests;
}

/* Polls the local word, a fence before each read, until it equals val. */
static inline void noc_semaphore_wait(const volatile uint32_t *sem, uint32_t val)
{
	do
		noc_fence();
	while (*sem != val);
	NOC_COMPILER_BARRIER();
}

/* Polls until the local word is at least val. */
static inline void noc_semaphore_wait_min(const volatile uint32_t *sem, uint32_t val)
{
	do
		noc_fence();
	while (*sem < val);
	NOC_COMPILER_BARRIER();
}

/* ---- Inline writes (noc.md 5) ---------------------------------------------------------------------
 * Writes the 32-bit val to dst_noc_addr. To a register (local address >= 0xFF000000): an inline
 * write from the AT buffer (its TARG is rewritten on every use, while WR_REG's TARG must keep
 * this tile for the writes above): TARG = the register, AT_LEN_BE = the enables of its 4 bytes
 * within their 16-byte NoC word. To L1
 * (inline writes to L1 are unsafe on Blackhole): earlier writes are flushed, val is staged in
 * this core's word at MEM_L1_INLINE_BASE + 32 * proc + 16 * noc + (dst & 15), and an ordinary
 * 4-byte write sends it. posted: no acknowledgement (counted for
 * noc_async_posted_writes_flushed), else non-posted (noc_async_write_barrier). */
void noc_inline_dw_write_l1(uint64_t dst_noc_addr, uint32_t val, bool posted);

/* 0x208A: a posted inline write (the fast-dispatch completion write of launch.md 12). */
#define NOC_CTRL_WRITE_INLINE_POSTED	(NOC_CMD_WR | NOC_CMD_WR_INLINE | NOC_CMD_VC_STATIC | \
					 NOC_CMD_STATIC_VC(NOC_UNICAST_WRITE_VC))

/* One inline write request on the AT buffer: AT_DATA, NOC_CTRL, TARG, AT_LEN_BE, CMD_CTRL in the
 * firmware's order. No counters. */
static inline void noc_issue_write_inline(uint32_t noc, uint32_t ctrl, uint64_t dst_noc_addr, uint32_t val,
					  uint32_t byte_enables)
{
	noc_cmd_buf_wait_ready(noc, NOC_BUF_AT);
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_AT_DATA, val);
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_CTRL, ctrl);
	noc_cmd_buf_write_addr(noc, NOC_BUF_AT, NOC_TARG_ADDR_LO, dst_noc_addr);
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_AT_LEN_BE, byte_enables);
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_CMD_CTRL, 1);
}

static inline void noc_inline_dw_write_mmio(uint64_t dst_noc_addr, uint32_t val, bool posted)
{
	const uint32_t noc = noc_index;
	uint32_t ctrl = NOC_CTRL_WRITE_INLINE_POSTED;

	if (!posted)
		ctrl |= NOC_CMD_RESP_MARKED;
	NOC_COMPILER_BARRIER();
	noc_issue_write_inline(noc, ctrl, dst_noc_addr, val, 0xFu << (dst_noc_addr & 15));
	if (posted) {
		noc_posted_writes_num_issued[noc] += 1;
	} else {
		noc_nonposted_writes_num_issued[noc] += 1;
		noc_nonposted_writes_acked[noc] += 1;
	}
}

static inline void noc_inline_dw_write(uint64_t dst_noc_addr, uint32_t val)
{
	if ((uint32_t)dst_noc_addr >= NOC_MMIO_BASE)
		noc_inline_dw_write_mmio(dst_noc_addr, val, false);
	else
		noc_inline_dw_write_l1(dst_noc_addr, val, false);
}

/* ---- Barriers (noc.md 5): an NIU counter against this core's software counter ----------------- */

static inline void noc_counter_wait(uint32_t noc, uint32_t counter, uint32_t expected)
{
	while (noc_status_read(noc, counter) != expected)
		noc_fence();
	NOC_COMPILER_BARRIER();
}

/* Every read issued so far has written its data into local L1. */
static inline void noc_async_read_barrier(void)
{
	noc_counter_wait(noc_index, NIU_MST_RD_RESP_RECEIVED, noc_reads_num_issued[noc_index]);
}

/* Every non-posted write issued so far is acknowledged by every destination. */
static inline void noc_async_write_barrier(void)
{
	noc_counter_wait(noc_index, NIU_MST_WR_ACK_RECEIVED, noc_nonposted_writes_acked[noc_index]);
}

/* Every non-posted write has left (its source may be overwritten); not yet acknowledged. */
static inline void noc_async_writes_flushed(void)
{
	noc_counter_wait(noc_index, NIU_MST_NONPOSTED_WR_REQ_SENT, noc_nonposted_writes_num_issued[noc_index]);
}

/* Every posted write has left. */
static inline void noc_async_posted_writes_flushed(void)
{
	noc_counter_wait(noc_index, NIU_MST_POSTED_WR_REQ_SENT, noc_posted_writes_num_issued[noc_index]);
}

/* Every atomic issued so far has been performed and answered. */
static inline void noc_async_atomic_barrier(void)
{
	noc_counter_wait(noc_index, NIU_MST_ATOMIC_RESP_RECEIVED, noc_nonposted_atomics_acked[noc_index]);
}

/* ---- Interleaved buffers (noc.md 9, 10) ----------------------------------------------------------
 * Pages of an interleaved buffer go round-robin over the DRAM (or L1) banks: page p is in bank
 * p mod N at base + (p div N) * aligned page size + that bank's offset. The bank tables come from
 * L1 (noc_bank_tables_init), as the firmware copies MEM_BANK_TO_NOC_SCRATCH into local RAM. */

#ifndef NOC_MAX_DRAM_BANKS
#define NOC_MAX_DRAM_BANKS 8
#endif
#ifndef NOC_MAX_L1_BANKS
#define NOC_MAX_L1_BANKS 140
#endif
#define NOC_DRAM_ALIGNMENT 64
#define NOC_L1_ALIGNMENT 16

extern uint32_t noc_num_dram_banks, noc_num_l1_banks;
extern uint16_t dram_bank_to_noc_xy[NOC_NUM_NOCS][NOC_MAX_DRAM_BANKS];
extern uint16_t l1_bank_to_noc_xy[NOC_NUM_NOCS][NOC_MAX_L1_BANKS];
extern int32_t bank_to_dram_offset[NOC_MAX_DRAM_BANKS];
extern int32_t bank_to_l1_offset[NOC_MAX_L1_BANKS];

/* Copies the bank tables at L1 address l1_tables (noc.md 9 layout for num_dram DRAM banks and
 * num_l1 L1 banks) into this core's local RAM. Returns 0, or -1 if the counts exceed
 * NOC_MAX_DRAM_BANKS / NOC_MAX_L1_BANKS or are 0 (nothing is copied then). */
int noc_bank_tables_init(uint32_t l1_tables, uint32_t num_dram, uint32_t num_l1);

/* InterleavedAddrGen: a buffer at bank_base_address of page_size-byte pages. */
struct interleaved_addr_gen {
	uint32_t bank_base_address;
	uint32_t page_size;
	bool is_dram;
};

/* Page size rounded up to the bank alignment (64 B DRAM, 16 B L1). */
static inline uint32_t interleaved_aligned_page_size(const struct interleaved_addr_gen *g)
{
	uint32_t a = g->is_dram ? NOC_DRAM_ALIGNMENT : NOC_L1_ALIGNMENT;
	return (g->page_size + a - 1) & ~(a - 1);
}

/* NoC address of byte offset of page page_id, on this core's NoC. */
static inline uint64_t interleaved_get_noc_addr(const struct interleaved_addr_gen *g, uint32_t page_id,
						uint32_t offset)
{
	const uint32_t noc = noc_index;
	uint32_t nbanks = g->is_dram ? noc_num_dram_banks : noc_num_l1_banks;
	uint32_t bank = page_id % nbanks;
	uint32_t addr = g->bank_base_address + (page_id / nbanks) * interleaved_aligned_page_size(g) + offset;
	uint32_t xy;

	if (g->is_dram) {
		addr += (uint32_t)bank_to_dram_offset[bank];
		xy = dram_bank_to_noc_xy[noc][bank];
	} else {
		addr += (uint32_t)bank_to_l1_offset[bank];
		xy = l1_bank_to_noc_xy[noc][bank];
	}
	return get_noc_addr_from_xy(xy, addr);
}

/* Whole-page reads and writes of an interleaved buffer. */
static inline void noc_async_read_page(uint32_t page_id, const struct interleaved_addr_gen *g, uint32_t dst_l1)
{
	noc_async_read(interleaved_get_noc_addr(g, page_id, 0), dst_l1, g->page_size);
}

static inline void noc_async_write_page(uint32_t page_id, const struct interleaved_addr_gen *g, uint32_t src_l1)
{
	noc_async_write(src_l1, interleaved_get_noc_addr(g, page_id, 0), g->page_size);
}

#endif
