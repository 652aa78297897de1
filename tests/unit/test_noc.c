/* NIUs and NoC transactions (reference/noc.md sections 3-8, 11): every initiator, configuration
 * and counter register (reset values, identification on both NoCs, read-only and unmodelled
 * ones faulting by name), and transactions programmed by guest code exactly as tt-metal's
 * dataflow API does (noc.md 5): reads (split into 16 KiB packets), posted and non-posted writes,
 * byte-enable writes, inline writes to a remote stream register, multicasts on both NoCs,
 * atomics, DRAM and host memory, with the counters after each; the alignment and endpoint
 * faults with their wording; a core parked on tile B woken (and its decoded code dropped) by a
 * NoC write from tile A; cores of several tiles incrementing one semaphore. Meant to be clean
 * under TSan. */
#include <criterion/criterion.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/bhemu.h"
#include "fabric/mmio.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "host/device.h"
#include "testlib.h"

/* ------------------------------------------------------------------------------- registers */

#define NIU(noc) (0xFFB20000u + 0x10000u * (noc))
#define CMDBUF(noc, b) (NIU(noc) + 0x800u * (b))

enum {
	TARG_LO = 0x00, TARG_MID = 0x04, TARG_HI = 0x08, RET_LO = 0x0C, RET_MID = 0x10, RET_HI = 0x14,
	PACKET_TAG = 0x18, CTRL = 0x1C, AT_LEN_BE = 0x20, AT_LEN_BE_1 = 0x24, AT_DATA = 0x28,
	BRCST_EXCLUDE = 0x2C, L1_ACC_AT_INSTRN = 0x30, CMD_CTRL = 0x40, NODE_ID = 0x44, ENDPOINT_ID = 0x48,
};
#define CLEAR_OUTSTANDING 0x60u
#define NIU_CFG_0 0x100u
#define ROUTER_CFG(k) (0x104u + 4u * (k))
#define NOC_ID_LOGICAL 0x148u

/* Counter indices (noc.md 3.4). */
enum {
	ATOMIC_RESP_RECEIVED = 0, WR_ACK_RECEIVED = 1, RD_RESP_RECEIVED = 2, CMD_ACCEPTED = 4, RD_REQ_SENT = 5,
	NONPOSTED_ATOMIC_SENT = 6, POSTED_ATOMIC_SENT = 7, NONPOSTED_WR_REQ_SENT = 10, POSTED_WR_REQ_SENT = 11,
	NONPOSTED_WR_REQ_STARTED = 12, POSTED_WR_REQ_STARTED = 13, RD_REQ_STARTED = 14,
	NONPOSTED_ATOMIC_STARTED = 15,
};
#define OUTSTANDING(id) (16u + (id))
#define OUTGOING(id) (32u + (id))
#define CTR(noc, i) (NIU(noc) + 0x200u + 4u * (i))

/* NOC_CTRL. */
#define C_RD 0x0u
#define C_AT 0x1u
#define C_WR 0x2u
#define C_WR_BE 0x4u
#define C_WR_INLINE 0x8u
#define C_RESP 0x10u
#define C_BRCST 0x20u
#define C_VC_LINKED 0x40u
#define C_VC_STATIC 0x80u
#define C_PATH_RESERVE 0x100u
#define C_SRC_INCLUDE (1u << 17)
#define C_STATIC_VC(v) ((uint32_t)(v) << 13)

/* tt-metal's values (noc.md 3.2). */
#define CTRL_READ 0x2090u
#define CTRL_WRITE_NONPOSTED 0x2092u
#define CTRL_WRITE_POSTED 0x2082u
#define CTRL_INLINE_POSTED 0x208Au
#define CTRL_MCAST (C_WR | C_VC_STATIC | C_STATIC_VC(4) | C_BRCST | C_PATH_RESERVE | C_RESP)
#define CTRL_ATOMIC (C_AT | C_RESP | C_VC_STATIC | C_STATIC_VC(1))

/* Dedicated-NoC initiators (noc.md 3.1). */
enum { BUF_WR = 0, BUF_RD = 1, BUF_WR_REG = 2, BUF_AT = 3 };

#define XY(x, y) ((uint32_t)(y) << 6 | (uint32_t)(x))
#define RECT(sx, sy, ex, ey) ((uint32_t)(sy) << 18 | (uint32_t)(sx) << 12 | XY(ex, ey))
#define ATOMIC_RET 4u                  /* MEM_NOC_ATOMIC_RET_VAL_ADDR, where noc_init points buf 3 */
#define SRC 0x20000u
#define DST 0x30000u
#define STREAM_REG(s, r) (0xFFB40000u + (s) * 0x1000u + (r) * 4u)

/* ------------------------------------------------------------------------------- devices */

/* A test grid of cols x rows tiles at translated (1.., 2..), host calls on every core. */
static struct bh_device *open_grid_checks(unsigned cols, unsigned rows, uint32_t checks)
{
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = cols, .grid_rows = rows,
					.deadlock_ms = -1, .checks = checks };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	for (unsigned t = 0; t < bh_device_num_tiles(dev); t++)
		for (int c = 0; c < 5; c++)
			bh_core_enable_host_calls(dev, t, (enum bh_core_id)c, true);
	return dev;
}

static struct bh_device *open_grid(unsigned cols, unsigned rows)
{
	return open_grid_checks(cols, rows, 0);
}

static struct bh_device *open_row(unsigned n)
{
	return open_grid(n, 1);
}

static uint32_t tile_xy(struct bh_device *dev, unsigned tile)
{
	unsigned x, y;
	cr_assert_eq(bh_device_tile_xy(dev, tile, &x, &y), BH_OK);
	return XY(x, y);
}

static uint32_t reg_rd(struct bh_device *dev, unsigned tile, uint32_t addr)
{
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, tile, addr, &v), BH_OK, "host read of 0x%08x on tile %u failed", addr, tile);
	return v;
}

static void reg_wr(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t v)
{
	cr_assert_eq(bh_reg_write(dev, tile, addr, v), BH_OK, "host write of 0x%x to 0x%08x failed", v, addr);
}

static uint32_t ctr(struct bh_device *dev, unsigned tile, unsigned noc, unsigned i)
{
	return reg_rd(dev, tile, CTR(noc, i));
}

/* A host access expected to fault: the fault. */
static struct bh_fault host_fault(struct bh_device *dev, unsigned tile, uint32_t addr, bool store, uint32_t v)
{
	struct bh_fault f;
	memset(&f, 0, sizeof f);
	cr_assert_eq(bh_mmio_access(dev->tiles[tile], BH_REQ_HOST, addr, 4, store, &v, &f, NULL, 0), BH_ACC_FAULT,
		     "host %s of 0x%08x did not fault", store ? "write" : "read", addr);
	return f;
}

static void expect_host_fault(struct bh_device *dev, uint32_t addr, bool store, uint32_t v, enum bh_fault_kind kind,
			      const char *phrase)
{
	struct bh_fault f = host_fault(dev, 0, addr, store, v);
	char both[sizeof f.region + sizeof f.detail + 2];
	snprintf(both, sizeof both, "%s: %s", f.region, f.detail);
	cr_expect_eq(f.kind, kind, "0x%08x: fault kind %s, expected %s (%s)", addr, bh_fault_kind_name(f.kind),
		     bh_fault_kind_name(kind), both);
	cr_expect(strstr(both, phrase), "0x%08x: fault lacks \"%s\": %s", addr, phrase, both);
}

static void l1_fill(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t len, uint32_t seed)
{
	uint8_t *b = malloc(len);
	for (uint32_t k = 0; k < len; k++)
		b[k] = (uint8_t)(seed + k * 7 + (k >> 8));
	cr_assert_eq(bh_l1_write(dev, tile, addr, b, len), BH_OK);
	free(b);
}

static void l1_expect_fill(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t len, uint32_t seed)
{
	uint8_t *b = malloc(len);
	cr_assert_eq(bh_l1_read(dev, tile, addr, b, len), BH_OK);
	for (uint32_t k = 0; k < len; k++)
		if (b[k] != (uint8_t)(seed + k * 7 + (k >> 8))) {
			cr_expect(false, "tile %u L1[0x%x] = 0x%02x, expected 0x%02x", tile, addr + k, b[k],
				  (uint8_t)(seed + k * 7 + (k >> 8)));
			break;
		}
	free(b);
}

static uint32_t l1_word(struct bh_device *dev, unsigned tile, uint32_t addr)
{
	uint32_t v;
	cr_assert_eq(bh_l1_read(dev, tile, addr, &v, 4), BH_OK);
	return v;
}

static void l1_set_word(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t v)
{
	cr_assert_eq(bh_l1_write(dev, tile, addr, &v, 4), BH_OK);
}

/* ------------------------------------------------------------------------------- guest code */

/* li t0, addr; li t1, v; sw t1, 0(t0). */
static void emit_reg(struct prog *p, unsigned noc, unsigned buf, unsigned off, uint32_t v)
{
	emit_store_word(p, CMDBUF(noc, buf) + off, v);
}

/* Every issue starts with while (NOC_CMD_CTRL != 0). */
static void emit_wait_ready(struct prog *p, unsigned noc, unsigned buf)
{
	emit_li(p, T0, CMDBUF(noc, buf) + CMD_CTRL);
	int32_t loop = prog_here(p);
	emit(p, lw(T1, 0, T0));
	emit_branch(p, BNE, T1, X0, loop);
}

/* NOC_CMD_CTRL = 1; returns the byte offset of that store (where issue faults land). */
static int32_t emit_cmd(struct prog *p, unsigned noc, unsigned buf)
{
	emit_li(p, T0, CMDBUF(noc, buf) + CMD_CTRL);
	emit_li(p, T1, 1);
	int32_t at = prog_here(p);
	emit(p, sw(T1, 0, T0));
	return at;
}

/* noc_init (noc.md 4): own xy from NOC_ID_LOGICAL into s1; bufs 0 and 2 point their source at
 * the tile, buf 1 returns reads here, buf 3 returns atomics to L1 4. */
static void emit_noc_init(struct prog *p, unsigned noc)
{
	emit_li(p, T0, NIU(noc) + NOC_ID_LOGICAL);
	emit(p, lw(S1, 0, T0));
	for (unsigned b = 0; b < 4; b += 2) {
		emit_reg(p, noc, b, TARG_MID, 0);
		emit_li(p, T0, CMDBUF(noc, b) + TARG_HI);
		emit(p, sw(S1, 0, T0));
	}
	emit_reg(p, noc, BUF_RD, CTRL, CTRL_READ);
	emit_reg(p, noc, BUF_RD, RET_MID, 0);
	emit_li(p, T0, CMDBUF(noc, BUF_RD) + RET_HI);
	emit(p, sw(S1, 0, T0));
	emit_reg(p, noc, BUF_AT, RET_LO, ATOMIC_RET);
	emit_reg(p, noc, BUF_AT, RET_MID, 0);
	emit_li(p, T0, CMDBUF(noc, BUF_AT) + RET_HI);
	emit(p, sw(S1, 0, T0));
}

/* noc_async_read(xy:mid:src, dst, len). */
static int32_t emit_read(struct prog *p, unsigned noc, uint32_t xy, uint32_t mid, uint32_t src, uint32_t dst,
			 uint32_t len)
{
	emit_wait_ready(p, noc, BUF_RD);
	emit_reg(p, noc, BUF_RD, RET_LO, dst);
	emit_reg(p, noc, BUF_RD, TARG_LO, src);
	emit_reg(p, noc, BUF_RD, TARG_MID, mid);
	emit_reg(p, noc, BUF_RD, TARG_HI, xy);
	emit_reg(p, noc, BUF_RD, AT_LEN_BE, len);
	return emit_cmd(p, noc, BUF_RD);
}

/* noc_async_write(src, xy:mid:dst, len) with NOC_CTRL ctrl (unicast or multicast: hi is the
 * coordinate register). */
static int32_t emit_write(struct prog *p, unsigned noc, uint32_t ctrl, uint32_t src, uint32_t hi, uint32_t mid,
			  uint32_t dst, uint32_t len)
{
	emit_wait_ready(p, noc, BUF_WR);
	emit_reg(p, noc, BUF_WR, CTRL, ctrl);
	emit_reg(p, noc, BUF_WR, TARG_LO, src);
	emit_reg(p, noc, BUF_WR, RET_LO, dst);
	emit_reg(p, noc, BUF_WR, RET_MID, mid);
	emit_reg(p, noc, BUF_WR, RET_HI, hi);
	emit_reg(p, noc, BUF_WR, AT_LEN_BE, len);
	return emit_cmd(p, noc, BUF_WR);
}

/* noc_semaphore_inc-style atomic on buf 3: NOC_AT_LEN_BE = at, NOC_AT_DATA = data. */
static int32_t emit_atomic(struct prog *p, unsigned noc, uint32_t ctrl, uint32_t hi, uint32_t addr, uint32_t at,
			   uint32_t data)
{
	emit_wait_ready(p, noc, BUF_AT);
	emit_reg(p, noc, BUF_AT, TARG_LO, addr);
	emit_reg(p, noc, BUF_AT, TARG_MID, 0);
	emit_reg(p, noc, BUF_AT, TARG_HI, hi);
	emit_reg(p, noc, BUF_AT, CTRL, ctrl);
	emit_reg(p, noc, BUF_AT, AT_LEN_BE, at);
	emit_reg(p, noc, BUF_AT, AT_DATA, data);
	return emit_cmd(p, noc, BUF_AT);
}

/* INCR_GET of a full word at addr (0x107C for a 16-byte aligned one). */
static uint32_t incr_get(uint32_t addr)
{
	return 1u << 12 | 31u << 2 | (addr >> 2 & 3);
}

static int32_t emit_sem_inc(struct prog *p, unsigned noc, uint32_t xy, uint32_t addr, uint32_t incr)
{
	return emit_atomic(p, noc, CTRL_ATOMIC, xy, addr, incr_get(addr), incr);
}

/* noc_inline_dw_write to a register on buf 2. */
static int32_t emit_inline(struct prog *p, unsigned noc, uint32_t ctrl, uint32_t xy, uint32_t addr, uint32_t val)
{
	emit_wait_ready(p, noc, BUF_WR_REG);
	emit_reg(p, noc, BUF_WR_REG, AT_DATA, val);
	emit_reg(p, noc, BUF_WR_REG, CTRL, ctrl);
	emit_reg(p, noc, BUF_WR_REG, TARG_LO, addr);
	emit_reg(p, noc, BUF_WR_REG, TARG_MID, 0);
	emit_reg(p, noc, BUF_WR_REG, TARG_HI, xy);
	emit_reg(p, noc, BUF_WR_REG, AT_LEN_BE, 0xFu << (addr & 0xF));
	return emit_cmd(p, noc, BUF_WR_REG);
}

/* Barrier: spin until counter i of this NoC reads value (noc.md 5, barriers). */
static void emit_wait_counter(struct prog *p, unsigned noc, unsigned i, uint32_t value)
{
	emit_li(p, T0, CTR(noc, i));
	emit_li(p, T2, value);
	int32_t loop = prog_here(p);
	emit(p, INSN_FENCE);
	emit(p, lw(T1, 0, T0));
	emit_branch(p, BNE, T1, T2, loop);
}

static void start_on(struct bh_device *dev, unsigned tile, enum bh_core_id core, const struct prog *p)
{
	prog_put(dev, tile, core_code_at[core], p);
	cr_assert_eq(bh_core_start(dev, tile, core, core_code_at[core]), BH_OK);
}

/* Run p on tile/core and expect exit(status). */
static void run_on(struct bh_device *dev, unsigned tile, enum bh_core_id core, const struct prog *p, uint32_t status)
{
	start_on(dev, tile, core, p);
	expect_exit(dev, tile, core, status);
}

/* Run p on tile/core and expect a fault of `kind` at the store at byte offset `at`. */
static void run_fault(struct bh_device *dev, unsigned tile, enum bh_core_id core, const struct prog *p, int32_t at,
		      const char *kind, const char *phrase)
{
	struct bh_core_result *r = result_new();
	start_on(dev, tile, core, p);
	cr_assert_eq(bh_core_wait(dev, tile, core, T_STOP_MS, r), BH_OK);
	expect_fault(r, core, core_code_at[core] + (uint32_t)at, kind, phrase);
	free(r);
}

/* ------------------------------------------------------------------------------- register tests */

Test(niu_regs, initiator_config_and_counter_registers_reset_as_documented)
{
	struct bh_device *dev = open_row(1);
	for (unsigned noc = 0; noc < 2; noc++) {
		for (unsigned b = 0; b < 4; b++)
			for (unsigned off = TARG_LO; off <= L1_ACC_AT_INSTRN; off += 4)
				cr_expect_eq(reg_rd(dev, 0, CMDBUF(noc, b) + off), 0, "NoC%u buf %u +0x%x", noc, b, off);
		for (unsigned b = 0; b < 4; b++)
			cr_expect_eq(reg_rd(dev, 0, CMDBUF(noc, b) + CMD_CTRL), 0, "CMD_CTRL reads 0: ready");
		cr_expect_eq(reg_rd(dev, 0, NIU(noc) + NIU_CFG_0), 1u << 14, "translation on, as ARC leaves it");
		for (unsigned k = 0; k < 5; k++)
			cr_expect_eq(reg_rd(dev, 0, NIU(noc) + ROUTER_CFG(k)), 0);
		for (unsigned i = 0; i < 48; i++)
			if (i != 3 && i != 8 && i != 9)   /* the flit counters are not modelled */
				cr_expect_eq(ctr(dev, 0, noc, i), 0, "NoC%u counter %u", noc, i);
	}
	bh_device_close(dev);
}

Test(niu_regs, node_id_endpoint_id_and_noc_id_logical_on_both_nocs)
{
	struct bh_device *dev = open_row(4);
	for (unsigned t = 0; t < 4; t++) {
		unsigned x = t + 1, y = 2;
		cr_assert_eq(tile_xy(dev, t), XY(x, y), "tile %u sits at (%u,2) of the test row", t, x);
		for (unsigned b = 0; b < 4; b++) {
			/* NoC0: the tile's coordinates, X-first routing; NoC1: the flip (16-x, 11-y). */
			cr_expect_eq(reg_rd(dev, t, CMDBUF(0, b) + NODE_ID), x | y << 6 | 17u << 12 | 12u << 19 | 1u << 28);
			cr_expect_eq(reg_rd(dev, t, CMDBUF(1, b) + NODE_ID), (16 - x) | (11 - y) << 6 | 17u << 12 | 12u << 19);
			cr_expect_eq(reg_rd(dev, t, CMDBUF(0, b) + ENDPOINT_ID), t | 0x0100u << 8);
			cr_expect_eq(reg_rd(dev, t, CMDBUF(1, b) + ENDPOINT_ID), t | 0x0100u << 8 | 1u << 24);
		}
		cr_expect_eq(reg_rd(dev, t, NIU(0) + NOC_ID_LOGICAL), XY(x, y));
		cr_expect_eq(reg_rd(dev, t, NIU(1) + NOC_ID_LOGICAL), XY(x, y), "translated on both NoCs");
	}
	/* Firmware reads them the same way. */
	struct prog p = { 0 };
	emit_li(&p, T0, NIU(1) + NOC_ID_LOGICAL);
	emit(&p, lw(A0, 0, T0));
	emit_li(&p, T0, CMDBUF(1, 3) + NODE_ID);
	emit(&p, lw(A1, 0, T0));
	emit(&p, enc_i(6, A1, 5, A1, OP_IMM));   /* srli a1, a1, 6 */
	emit(&p, i_op(7, A1, A1, 0x3F));         /* andi a1, a1, 63: NoC1 y */
	emit_pack(&p, A1);
	emit_exit(&p);
	run_on(dev, 2, BH_CORE_NCRISC, &p, XY(3, 2) << 8 | 9);
	bh_device_close(dev);
}

Test(niu_regs, written_registers_read_back)
{
	struct bh_device *dev = open_row(1);
	static const unsigned offs[] = { TARG_LO, TARG_MID, TARG_HI, RET_LO, RET_MID, RET_HI, AT_LEN_BE, AT_LEN_BE_1,
					 AT_DATA };
	for (unsigned noc = 0; noc < 2; noc++)
		for (unsigned b = 0; b < 4; b++)
			for (unsigned k = 0; k < N(offs); k++)
				reg_wr(dev, 0, CMDBUF(noc, b) + offs[k], 0x1000u * noc + 0x100u * b + k + 0xA5000000u);
	for (unsigned noc = 0; noc < 2; noc++)
		for (unsigned b = 0; b < 4; b++)
			for (unsigned k = 0; k < N(offs); k++)
				cr_expect_eq(reg_rd(dev, 0, CMDBUF(noc, b) + offs[k]), 0x1000u * noc + 0x100u * b + k + 0xA5000000u);
	reg_wr(dev, 0, CMDBUF(1, 2) + PACKET_TAG, 0xFu << 10);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(1, 2) + PACKET_TAG), 0xFu << 10);
	reg_wr(dev, 0, CMDBUF(0, 1) + CTRL, CTRL_MCAST | C_SRC_INCLUDE | C_VC_LINKED | 0xFu << 27);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(0, 1) + CTRL), CTRL_MCAST | C_SRC_INCLUDE | C_VC_LINKED | 0xFu << 27);
	reg_wr(dev, 0, NIU(0) + NIU_CFG_0, 1u << 14 | 1u << 16 | 1);   /* firmware ORs in bit 0 */
	cr_expect_eq(reg_rd(dev, 0, NIU(0) + NIU_CFG_0), 1u << 14 | 1u << 16 | 1);
	for (unsigned k = 0; k < 5; k++)
		reg_wr(dev, 0, NIU(1) + ROUTER_CFG(k), 0x11110000u + k);
	for (unsigned k = 0; k < 5; k++)
		cr_expect_eq(reg_rd(dev, 0, NIU(1) + ROUTER_CFG(k)), 0x11110000u + k);
	bh_device_close(dev);
}

Test(niu_regs, identification_counters_and_clear_register_have_their_access_rights)
{
	struct bh_device *dev = open_row(1);
	expect_host_fault(dev, CMDBUF(0, 0) + NODE_ID, true, 1, BH_FAULT_ACCESS, "NOC_NODE_ID is read-only");
	expect_host_fault(dev, CMDBUF(1, 3) + ENDPOINT_ID, true, 1, BH_FAULT_ACCESS, "NoC1 NIU initiator 3 NOC_ENDPOINT_ID");
	expect_host_fault(dev, NIU(0) + NOC_ID_LOGICAL, true, 1, BH_FAULT_ACCESS, "translated coordinates");
	expect_host_fault(dev, CTR(1, WR_ACK_RECEIVED), true, 0, BH_FAULT_ACCESS, "NIU_MST_WR_ACK_RECEIVED is read-only");
	expect_host_fault(dev, CTR(0, OUTSTANDING(7)), true, 0, BH_FAULT_ACCESS, "NIU_MST_REQS_OUTSTANDING_ID(7)");
	expect_host_fault(dev, NIU(0) + CLEAR_OUTSTANDING, false, 0, BH_FAULT_ACCESS, "write-only");
	/* A core storing to NODE_ID faults at its store, naming the register. */
	expect_access_faults(dev, BH_CORE_BRISC, true, CMDBUF(0, 2) + NODE_ID, "access not allowed",
			     "NoC0 NIU initiator 2 NOC_NODE_ID is read-only");
	bh_device_close(dev);
}

Test(niu_regs, packet_tag_bits_other_than_the_transaction_id_fault_naming_them)
{
	struct bh_device *dev = open_row(1);
	expect_host_fault(dev, CMDBUF(0, 0) + PACKET_TAG, true, 1u << 9, BH_FAULT_NOT_MODELLED, "[9] HEADER_STORE");
	expect_host_fault(dev, CMDBUF(0, 0) + PACKET_TAG, true, 1u << 6 | 5, BH_FAULT_NOT_MODELLED,
			  "[5:0] overlay stream id, [6] DeliverToReceiverOverlay");
	expect_host_fault(dev, CMDBUF(1, 1) + PACKET_TAG, true, 1u << 20, BH_FAULT_NOT_MODELLED, "[31:16] reserved");
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(0, 0) + PACKET_TAG), 0, "a refused write changes nothing");
	bh_device_close(dev);
}

Test(niu_regs, noc_ctrl_bits_that_change_the_result_and_are_not_modelled_fault)
{
	struct bh_device *dev = open_row(1);
	expect_host_fault(dev, CMDBUF(0, 0) + CTRL, true, C_WR | 1u << 31, BH_FAULT_NOT_MODELLED, "L1_ACC_AT_EN");
	expect_host_fault(dev, CMDBUF(0, 0) + CTRL, true, 3, BH_FAULT_BAD_VALUE, "request type 3 is reserved");
	expect_host_fault(dev, CMDBUF(0, 0) + CTRL, true, C_WR | 1u << 11, BH_FAULT_BAD_VALUE, "reserved bits 0x00000800");
	expect_host_fault(dev, CMDBUF(0, 0) + BRCST_EXCLUDE, true, 1, BH_FAULT_NOT_MODELLED, "non-rectangular");
	expect_host_fault(dev, CMDBUF(0, 3) + L1_ACC_AT_INSTRN, true, 5, BH_FAULT_NOT_MODELLED, "L1 accumulate");
	expect_host_fault(dev, CMDBUF(0, 3) + CMD_CTRL, true, 3, BH_FAULT_BAD_VALUE, "write 1 to issue");
	reg_wr(dev, 0, CMDBUF(0, 0) + BRCST_EXCLUDE, 0);
	reg_wr(dev, 0, CMDBUF(0, 0) + CMD_CTRL, 0);     /* 0: nothing to issue */
	cr_expect_eq(ctr(dev, 0, 0, CMD_ACCEPTED), 0);
	bh_device_close(dev);
}

/* A core's store of v to addr, then exit(0): the store is a fault `kind` naming `phrase`. */
static void core_store_faults(struct bh_device *dev, uint32_t addr, uint32_t v, const char *kind, const char *phrase)
{
	struct prog p = { 0 };
	emit_li(&p, T0, addr);
	emit_li(&p, T1, v);
	int32_t at = prog_here(&p);
	emit(&p, sw(T1, 0, T0));
	emit_exit_with(&p, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, kind, phrase);
}

/* Cores store a request's fields on a short path (fabric/niu_lane.h): what it accepts lands as
 * the host's stores do, what changes the result and is not modelled still faults at the store,
 * naming the field, and changes nothing; its counter and CMD_CTRL reads still refuse the
 * counters bhemu does not model. */
Test(niu_regs, core_stores_of_request_fields_land_or_fault_as_the_hosts)
{
	struct bh_device *dev = open_row(1);
	struct prog p = { 0 };
	emit_reg(&p, 1, 2, PACKET_TAG, 0xFu << 10);
	emit_reg(&p, 0, 1, CTRL, CTRL_MCAST | C_SRC_INCLUDE | C_VC_LINKED | 0xFu << 27);
	emit_reg(&p, 0, 3, BRCST_EXCLUDE, 0);
	emit_reg(&p, 1, 3, L1_ACC_AT_INSTRN, 0);
	emit_reg(&p, 0, 0, TARG_LO, 0xA5000001u);
	emit_reg(&p, 1, 3, AT_DATA, 0xA5000002u);
	emit_li(&p, T0, CMDBUF(1, 3) + CMD_CTRL);
	emit(&p, lw(A0, 0, T0));   /* nothing issued: 0 */
	emit_li(&p, T0, CTR(1, CMD_ACCEPTED));
	emit(&p, lw(T1, 0, T0));
	emit(&p, add(A0, A0, T1));
	emit_exit(&p);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(1, 2) + PACKET_TAG), 0xFu << 10);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(0, 1) + CTRL), CTRL_MCAST | C_SRC_INCLUDE | C_VC_LINKED | 0xFu << 27);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(0, 0) + TARG_LO), 0xA5000001u);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(1, 3) + AT_DATA), 0xA5000002u);

	core_store_faults(dev, CMDBUF(0, 0) + CTRL, C_WR | 1u << 31, "not modelled", "L1_ACC_AT_EN");
	core_store_faults(dev, CMDBUF(1, 2) + CTRL, 3, "bad register value", "request type 3 is reserved");
	core_store_faults(dev, CMDBUF(0, 0) + CTRL, C_WR | 1u << 11, "bad register value", "reserved bits 0x00000800");
	core_store_faults(dev, CMDBUF(0, 2) + PACKET_TAG, 1u << 9 | 3u << 10, "not modelled", "[9] HEADER_STORE");
	core_store_faults(dev, CMDBUF(1, 0) + BRCST_EXCLUDE, 1, "not modelled", "non-rectangular");
	core_store_faults(dev, CMDBUF(0, 3) + L1_ACC_AT_INSTRN, 5, "not modelled", "L1 accumulate");
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(0, 0) + CTRL), 0, "a refused store changes nothing");
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(1, 2) + CTRL), 0);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(0, 2) + PACKET_TAG), 0);
	expect_access_faults(dev, BH_CORE_BRISC, false, CTR(0, 3), "not modelled",
			     "NIU_MST_RD_DATA_WORD_RECEIVED counts 64-byte");
	expect_access_faults(dev, BH_CORE_NCRISC, false, CTR(1, 48), "not modelled", "NIU_SLV_ATOMIC_RESP_SENT");
	bh_device_close(dev);
}

/* A core's loads of CMD_CTRL and of the modelled counters take a short path (bh_niu_core_load,
 * ahead of what a blocking access needs): after a non-posted atomic and a non-posted multicast
 * to two tiles on NoC0 (transaction id 0 for both) and a posted write on NoC1 (id 5), what brisc
 * reads of each is what the host reads and what noc.md 3.4 says the requests moved. The 8-bit
 * REQS_OUTSTANDING_ID(0) took +1 and -1 for the atomic, +1 and -2 for the multicast: it reads 255. */
Test(niu_regs, core_reads_of_cmd_ctrl_and_counters_are_the_counters)
{
	static const struct { unsigned noc, i; uint32_t want; } reads[] = {
		{ 0, ATOMIC_RESP_RECEIVED, 1 }, { 0, CMD_ACCEPTED, 2 }, { 0, NONPOSTED_ATOMIC_SENT, 1 },
		{ 0, NONPOSTED_ATOMIC_STARTED, 1 }, { 0, POSTED_ATOMIC_SENT, 0 }, { 0, WR_ACK_RECEIVED, 2 },
		{ 0, NONPOSTED_WR_REQ_SENT, 1 }, { 0, OUTSTANDING(0), 255 }, { 0, OUTGOING(0), 0 },
		{ 1, CMD_ACCEPTED, 1 }, { 1, POSTED_WR_REQ_SENT, 1 }, { 1, POSTED_WR_REQ_STARTED, 1 },
		{ 1, NONPOSTED_WR_REQ_SENT, 0 }, { 1, WR_ACK_RECEIVED, 0 }, { 1, OUTGOING(5), 0 },
		{ 1, OUTSTANDING(5), 0 },
	};
	struct bh_device *dev = open_row(3);
	l1_set_word(dev, 1, SRC, 7);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_noc_init(&p, 1);
	emit_sem_inc(&p, 0, tile_xy(dev, 1), SRC, 1);
	emit_wait_counter(&p, 0, ATOMIC_RESP_RECEIVED, 1);
	emit_write(&p, 0, CTRL_MCAST, SRC, RECT(2, 2, 3, 2), 0, DST, 64);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 2);
	emit_reg(&p, 1, BUF_WR, PACKET_TAG, 5u << 10);
	emit_write(&p, 1, CTRL_WRITE_POSTED, SRC, tile_xy(dev, 2), 0, DST + 0x1000, 64);
	emit_wait_counter(&p, 1, POSTED_WR_REQ_SENT, 1);
	for (unsigned k = 0; k <= N(reads); k++) {   /* the counters, then CMD_CTRL of buf 3 */
		emit_load_word(&p, T1, k < N(reads) ? CTR(reads[k].noc, reads[k].i) : CMDBUF(0, BUF_AT) + CMD_CTRL);
		emit_li(&p, T0, DST + 4 * k);
		emit(&p, sw(T1, 0, T0));
	}
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	for (unsigned k = 0; k < N(reads); k++) {
		cr_expect_eq(l1_word(dev, 0, DST + 4 * k), reads[k].want, "NoC%u counter %u", reads[k].noc, reads[k].i);
		cr_expect_eq(l1_word(dev, 0, DST + 4 * k), ctr(dev, 0, reads[k].noc, reads[k].i), "NoC%u counter %u",
			     reads[k].noc, reads[k].i);
	}
	cr_expect_eq(l1_word(dev, 0, DST + 4 * N(reads)), 0, "CMD_CTRL of an idle initiator reads 0");
	cr_expect_eq(l1_word(dev, 1, SRC), 8);
	bh_device_close(dev);
}

/* The same reads from a compiled loop (cores/rv32_jit.c reads the counters inline) and
 * interpreted: brisc issues 300 non-posted multicasts to two tiles, one at a time, each waited
 * for at WR_ACK_RECEIVED, and reads the 8-bit REQS_OUTSTANDING_ID(0) after each (+1 at the
 * issue, -1 per acknowledgement): 255, 254, ... 0, then 255 again, as the host reads at the end.
 * (noc-trid-overflow, which the id's wrap would trip, is off.) */
Test(niu_regs, counters_read_by_a_compiled_loop_move_as_interpreted_with_the_8_bit_wrap)
{
	enum { ROUNDS = 300 };
	const uint32_t out = DST + 0x1000;
	for (unsigned m = 0; m < 2; m++) {
		struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 3, .grid_rows = 1, .deadlock_ms = -1,
						.jit = m ? BH_JIT_EAGER : BH_JIT_OFF,
						.checks = BH_CHECKS_EXACT | (BH_CHECKS_DEFAULT & ~BH_CHECK_BIT(BH_CHECK_NOC_TRID_OVERFLOW)) };
		struct bh_device *dev;
		cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
		bh_core_enable_host_calls(dev, 0, BH_CORE_BRISC, true);
		struct prog p = { 0 };
		emit_noc_init(&p, 0);
		emit_li(&p, A2, 0);                 /* acknowledgements so far */
		emit_li(&p, A3, out);
		emit_li(&p, A4, 0);
		emit_li(&p, A5, ROUNDS);
		int32_t loop = prog_here(&p);
		emit_write(&p, 0, CTRL_MCAST, SRC, RECT(2, 2, 3, 2), 0, DST, 64);
		emit(&p, addi(A2, A2, 2));
		emit_li(&p, T0, CTR(0, WR_ACK_RECEIVED));
		int32_t wait = prog_here(&p);
		emit(&p, lw(T1, 0, T0));
		emit_branch(&p, BNE, T1, A2, wait);
		emit_li(&p, T0, CTR(0, OUTSTANDING(0)));
		emit(&p, lw(T1, 0, T0));
		emit(&p, sw(T1, 0, A3));
		emit(&p, addi(A3, A3, 4));
		emit(&p, addi(A4, A4, 1));
		emit_branch(&p, BNE, A4, A5, loop);
		emit_exit_with(&p, 0);
		run_on(dev, 0, BH_CORE_BRISC, &p, 0);
		for (unsigned i = 0; i < ROUNDS; i++)
			cr_expect_eq(l1_word(dev, 0, out + 4 * i), (255u - i) & 0xFF, "jit %u round %u", m, i);
		cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), (256u - ROUNDS) & 0xFF, "jit %u", m);
		cr_expect_eq(ctr(dev, 0, 0, WR_ACK_RECEIVED), 2 * ROUNDS, "jit %u", m);
		if (m) {
			struct bh_jit_stats st;
			bh_core_jit_stats(dev, 0, BH_CORE_BRISC, &st);
			cr_expect_gt(st.regions, 0);
		}
		bh_device_close(dev);
	}
}

/* A core parked polling a command-buffer register (a watched register) is woken by another
 * core's store of that register: the stores' short path (fabric/niu_lane.h) leaves a watched
 * register to the path that announces it. */
Test(niu_regs, a_core_polling_a_request_field_wakes_on_another_cores_store_of_it)
{
	struct bh_device *dev = open_row(1);
	start_parked_poller(dev, BH_CORE_NCRISC, core_code_at[BH_CORE_NCRISC], CMDBUF(1, 2) + TARG_LO);
	run_store_word(dev, BH_CORE_BRISC, CMDBUF(1, 2) + TARG_LO, 0x5A5A0);
	expect_exit(dev, 0, BH_CORE_NCRISC, 0x5A5A0);
	bh_device_close(dev);
}

Test(niu_regs, clearing_translation_or_stopping_the_clock_faults)
{
	struct bh_device *dev = open_row(1);
	expect_host_fault(dev, NIU(1) + NIU_CFG_0, true, 1, BH_FAULT_NOT_MODELLED, "untranslated coordinates not modelled");
	expect_host_fault(dev, NIU(0) + NIU_CFG_0, true, 1u << 14 | 1u << 12, BH_FAULT_NOT_MODELLED, "tile clock");
	cr_expect_eq(reg_rd(dev, 0, NIU(1) + NIU_CFG_0), 1u << 14);
	bh_device_close(dev);
}

Test(niu_regs, unlisted_offsets_and_unmodelled_blocks_fault_by_offset_or_name)
{
	struct bh_device *dev = open_row(1);
	expect_host_fault(dev, NIU(0) + 0x34, false, 0, BH_FAULT_UNMAPPED, "offset 0x0034");
	expect_host_fault(dev, NIU(1) + 0x900, true, 0, BH_FAULT_UNMAPPED, "offset 0x0900");
	expect_host_fault(dev, NIU(0) + 0x860, true, 1, BH_FAULT_UNMAPPED, "offset 0x0860");   /* CLEAR exists once */
	expect_host_fault(dev, NIU(0) + 0x2F8, false, 0, BH_FAULT_UNMAPPED, "offset 0x02f8");
	expect_host_fault(dev, NIU(0) + 0x8000, false, 0, BH_FAULT_UNMAPPED, "offset 0x8000");
	expect_host_fault(dev, NIU(0) + 0x118, false, 0, BH_FAULT_NOT_MODELLED, "NOC_X_ID_TRANSLATE_TABLE");
	expect_host_fault(dev, NIU(1) + 0x1864, false, 0, BH_FAULT_NOT_MODELLED, "initiator 3 NIU request FIFO status");
	expect_host_fault(dev, NIU(0) + 0x178, true, 1, BH_FAULT_NOT_MODELLED, "NIU interrupts");
	expect_host_fault(dev, CTR(0, 3), false, 0, BH_FAULT_NOT_MODELLED, "NIU_MST_RD_DATA_WORD_RECEIVED counts 64-byte");
	expect_host_fault(dev, CTR(1, 9), false, 0, BH_FAULT_NOT_MODELLED, "NIU_MST_POSTED_WR_DATA_WORD_SENT");
	expect_host_fault(dev, CTR(0, 48), false, 0, BH_FAULT_NOT_MODELLED, "NIU_SLV_ATOMIC_RESP_SENT counts every request");
	expect_host_fault(dev, CTR(1, 61), false, 0, BH_FAULT_NOT_MODELLED, "NIU_SLV_POSTED_WR_REQ_STARTED");
	bh_device_close(dev);
}

Test(niu_regs, byte_and_halfword_accesses_are_refused)
{
	struct bh_device *dev = open_row(1);
	struct prog p = { 0 };
	emit_li(&p, S0, CMDBUF(0, 0) + TARG_LO);
	int32_t at = prog_here(&p);
	emit(&p, store(W_B, X0, 0, S0));
	emit_exit_with(&p, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, "access not allowed", "32-bit accesses only");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- reads */

Test(noc_read, read_from_a_remote_l1_lands_in_own_l1_then_moves_the_read_counters)
{
	struct bh_device *dev = open_row(2);
	l1_fill(dev, 1, SRC + 0x40, 1000, 3);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_read(&p, 0, tile_xy(dev, 1), 0, SRC + 0x40, DST + 0x40, 1000);
	emit_wait_counter(&p, 0, RD_RESP_RECEIVED, 1);   /* noc_async_read_barrier */
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	l1_expect_fill(dev, 0, DST + 0x40, 1000, 3);
	cr_expect_eq(ctr(dev, 0, 0, RD_RESP_RECEIVED), 1);
	cr_expect_eq(ctr(dev, 0, 0, RD_REQ_SENT), 1);
	cr_expect_eq(ctr(dev, 0, 0, RD_REQ_STARTED), 1);
	cr_expect_eq(ctr(dev, 0, 0, CMD_ACCEPTED), 1);
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), 0);
	cr_expect_eq(ctr(dev, 0, 0, WR_ACK_RECEIVED), 0);
	cr_expect_eq(ctr(dev, 0, 1, RD_RESP_RECEIVED), 0, "the other NoC saw nothing");
	cr_expect_eq(ctr(dev, 1, 0, RD_RESP_RECEIVED), 0, "the target's NIU counts nothing as initiator");
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(0, BUF_RD) + CMD_CTRL), 0);
	bh_device_close(dev);
}

Test(noc_read, read_longer_than_16_kib_splits_into_packets_each_counted)
{
	struct bh_device *dev = open_row(2);
	uint32_t len = 2 * 16384 + 7232;
	l1_fill(dev, 1, SRC, len, 11);
	struct prog p = { 0 };
	emit_noc_init(&p, 1);
	emit_reg(&p, 1, BUF_RD, PACKET_TAG, 5u << 10);
	emit_read(&p, 1, tile_xy(dev, 1), 0, SRC, DST, len);
	emit_wait_counter(&p, 1, RD_RESP_RECEIVED, 3);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_NCRISC, &p, 0);
	l1_expect_fill(dev, 0, DST, len, 11);
	cr_expect_eq(ctr(dev, 0, 1, RD_REQ_SENT), 3);
	cr_expect_eq(ctr(dev, 0, 1, CMD_ACCEPTED), 3);
	cr_expect_eq(ctr(dev, 0, 1, OUTSTANDING(5)), 0);
	/* As on silicon, the initiator is left pointing at the last packet. */
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(1, BUF_RD) + AT_LEN_BE), 7232);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(1, BUF_RD) + TARG_LO), SRC + 32768);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(1, BUF_RD) + RET_LO), DST + 32768);
	bh_device_close(dev);
}

Test(noc_read, response_sent_to_another_tile_is_counted_at_that_tiles_niu)
{
	struct bh_device *dev = open_row(3);
	l1_fill(dev, 1, SRC, 64, 5);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_reg(&p, 0, BUF_RD, PACKET_TAG, 2u << 10);
	emit_reg(&p, 0, BUF_RD, RET_HI, tile_xy(dev, 2));
	emit_read(&p, 0, tile_xy(dev, 1), 0, SRC, DST, 64);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	bh_device_noc_flush(dev);   /* the response lands on another tile: nobody here can wait for it */
	l1_expect_fill(dev, 2, DST, 64, 5);
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(2)), 1, "raised at issue by the initiator");
	cr_expect_eq(ctr(dev, 0, 0, RD_RESP_RECEIVED), 0);
	cr_expect_eq(ctr(dev, 2, 0, RD_RESP_RECEIVED), 1, "counted where the data landed");
	cr_expect_eq(ctr(dev, 2, 0, OUTSTANDING(2)), 0xFF, "8-bit counter below zero");
	reg_wr(dev, 0, NIU(0) + CLEAR_OUTSTANDING, 1u << 2);
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(2)), 0);
	/* Tile 2's count went below zero by the response (moved by the NoC's runner when
	 * asynchronous): the clear cancels that too, and the next move starts from 0. */
	reg_wr(dev, 2, NIU(0) + CLEAR_OUTSTANDING, 1u << 2);
	cr_expect_eq(ctr(dev, 2, 0, OUTSTANDING(2)), 0, "cleared from below zero");
	cr_expect_eq(ctr(dev, 2, 0, RD_RESP_RECEIVED), 1, "other counters keep their value");
	bh_device_close(dev);
}

Test(noc_read, four_byte_read_of_a_remote_register_into_l1)
{
	struct bh_device *dev = open_row(2);
	reg_wr(dev, 1, STREAM_REG(2, 4), 0x00ABCDEFu);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_read(&p, 0, tile_xy(dev, 1), 0, STREAM_REG(2, 4), DST + 0x10, 4);
	emit_wait_counter(&p, 0, RD_RESP_RECEIVED, 1);
	emit_load_word(&p, A0, DST + 0x10);
	emit_exit(&p);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0x00ABCDEFu);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- writes */

static void write_and_check(bool nonposted)
{
	struct bh_device *dev = open_row(2);
	l1_fill(dev, 0, SRC + 0x30, 3000, 9);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, nonposted ? CTRL_WRITE_NONPOSTED : CTRL_WRITE_POSTED, SRC + 0x30, tile_xy(dev, 1), 0, DST + 0x30,
		   3000);
	emit_wait_counter(&p, 0, nonposted ? NONPOSTED_WR_REQ_SENT : POSTED_WR_REQ_SENT, 1);   /* writes flushed */
	if (nonposted)
		emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);                                  /* write barrier */
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	/* Flushed is not landed: a posted write has no ack to wait for, and under long latencies
	 * (the noc_slow rerun) its data may still be on the way when the core exits. */
	if (!nonposted)
		bh_device_noc_flush(dev);
	l1_expect_fill(dev, 1, DST + 0x30, 3000, 9);
	cr_expect_eq(ctr(dev, 0, 0, CMD_ACCEPTED), 1);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_WR_REQ_SENT), nonposted);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_WR_REQ_STARTED), nonposted);
	cr_expect_eq(ctr(dev, 0, 0, POSTED_WR_REQ_SENT), !nonposted);
	cr_expect_eq(ctr(dev, 0, 0, POSTED_WR_REQ_STARTED), !nonposted);
	cr_expect_eq(ctr(dev, 0, 0, WR_ACK_RECEIVED), nonposted);
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), 0);
	cr_expect_eq(ctr(dev, 0, 0, OUTGOING(0)), 0, "the source has been read");
	cr_expect_eq(ctr(dev, 1, 0, WR_ACK_RECEIVED), 0);
	bh_device_close(dev);
}

Test(noc_write, posted_write_moves_only_the_posted_counters)
{
	write_and_check(false);
}

Test(noc_write, nonposted_write_is_acked_once)
{
	write_and_check(true);
}

Test(noc_write, write_ack_goes_to_the_niu_named_by_targ_addr_hi)
{
	struct bh_device *dev = open_row(3);
	l1_fill(dev, 0, SRC, 16, 1);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_reg(&p, 0, BUF_WR, TARG_HI, tile_xy(dev, 2));
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 1), 0, DST, 16);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	bh_device_noc_flush(dev);   /* the ack is counted on another tile: nobody here can wait for it */
	l1_expect_fill(dev, 1, DST, 16, 1);
	cr_expect_eq(ctr(dev, 0, 0, WR_ACK_RECEIVED), 0);
	cr_expect_eq(ctr(dev, 2, 0, WR_ACK_RECEIVED), 1);
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), 1);
	bh_device_close(dev);
}

Test(noc_write, byte_enable_write_changes_only_the_enabled_bytes)
{
	struct bh_device *dev = open_row(2);
	uint8_t src[64], before[64], after[64];
	for (unsigned k = 0; k < 64; k++) {
		src[k] = (uint8_t)(0x80 + k);
		before[k] = (uint8_t)k;
	}
	cr_assert_eq(bh_l1_write(dev, 0, SRC + 0x10, src, 64), BH_OK);
	cr_assert_eq(bh_l1_write(dev, 1, DST + 0x10, before, 64), BH_OK);
	uint64_t be = 0x8000000100F00F01ull;
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_reg(&p, 0, BUF_WR, AT_LEN_BE_1, (uint32_t)(be >> 32));
	/* Both addresses are used 16-byte aligned: +0x14 and +0x1C pick the blocks at +0x10. */
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED | C_WR_BE, SRC + 0x14, tile_xy(dev, 1), 0, DST + 0x1C, (uint32_t)be);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_assert_eq(bh_l1_read(dev, 1, DST + 0x10, after, 64), BH_OK);
	for (unsigned k = 0; k < 64; k++)
		cr_expect_eq(after[k], be >> k & 1 ? src[k] : before[k], "byte %u", k);
	cr_expect_eq(ctr(dev, 0, 0, OUTGOING(0)), 0);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_WR_REQ_SENT), 1);
	bh_device_close(dev);
}

/* Fast dispatch's completion: a posted inline write of 0x40 to stream 48 reg 270 of a worker's
 * dispatcher adds 1 to reg 297. */
Test(noc_write, inline_write_to_remote_stream_reg270_moves_reg297)
{
	struct bh_device *dev = open_row(2);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	for (int k = 0; k < 3; k++)
		emit_inline(&p, 0, CTRL_INLINE_POSTED, tile_xy(dev, 1), STREAM_REG(48, 270), 0x40);
	emit_inline(&p, 0, CTRL_INLINE_POSTED | C_RESP, tile_xy(dev, 1), STREAM_REG(49, 270), 0x80);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_expect_eq(reg_rd(dev, 1, STREAM_REG(48, 297)), 3);
	cr_expect_eq(reg_rd(dev, 1, STREAM_REG(49, 297)), 2);
	cr_expect_eq(reg_rd(dev, 0, STREAM_REG(48, 297)), 0, "the initiator's own streams are untouched");
	cr_expect_eq(ctr(dev, 0, 0, POSTED_WR_REQ_SENT), 3);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_WR_REQ_SENT), 1);
	cr_expect_eq(ctr(dev, 0, 0, CMD_ACCEPTED), 4);
	cr_expect_eq(ctr(dev, 0, 0, OUTGOING(0)), 0, "inline writes read no source");
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), 0);
	bh_device_close(dev);
}

Test(noc_write, inline_write_to_l1_faults_with_the_hardware_bug_explained)
{
	struct bh_device *dev = open_row(2);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	int32_t at = emit_inline(&p, 0, CTRL_INLINE_POSTED, tile_xy(dev, 1), DST, 7);
	emit_exit_with(&p, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, "not modelled", "unsafe on Blackhole");
	cr_expect_eq(l1_word(dev, 1, DST), 0);
	cr_expect_eq(ctr(dev, 0, 0, CMD_ACCEPTED), 0, "a refused request moves no counter");
	bh_device_close(dev);
}

Test(noc_write, remote_register_refusal_is_reported_at_the_issuing_store)
{
	struct bh_device *dev = open_row(2);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	int32_t at = emit_inline(&p, 0, CTRL_INLINE_POSTED, tile_xy(dev, 1), STREAM_REG(48, 297), 1);
	/* Still running when the refusal comes (the asynchronous NoC finds it after the store): the
	 * fault names the store that issued, not where the core was told. */
	emit(&p, INSN_SELF_LOOP);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, "access not allowed", "NoC0 write to (2,2) 0xffb704a4");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- DRAM, PCIe */

Test(noc_mem, write_to_dram_and_read_it_back_on_both_nocs)
{
	struct bh_device *dev = open_row(1);
	unsigned x, y;
	l1_fill(dev, 0, SRC, 5000, 21);
	for (unsigned noc = 0; noc < 2; noc++) {
		cr_assert_eq(bh_dram_bank_xy(dev, noc, 3, &x, &y), BH_OK);
		struct prog p = { 0 };
		emit_noc_init(&p, noc);
		emit_write(&p, noc, CTRL_WRITE_NONPOSTED, SRC, XY(x, y), 0, 0x100000u + 0x1000u * noc, 5000);
		emit_wait_counter(&p, noc, WR_ACK_RECEIVED, 1);
		emit_read(&p, noc, XY(x, y), 0, 0x100000u + 0x1000u * noc, DST + 0x2000u * noc, 5000);
		emit_wait_counter(&p, noc, RD_RESP_RECEIVED, 1);
		emit_exit_with(&p, 0);
		run_on(dev, 0, noc ? BH_CORE_NCRISC : BH_CORE_BRISC, &p, 0);
		l1_expect_fill(dev, 0, DST + 0x2000u * noc, 5000, 21);
	}
	uint8_t b[16], want[16];
	cr_assert_eq(bh_dram_read(dev, 3, 0x101000, b, 16), BH_OK);
	cr_assert_eq(bh_l1_read(dev, 0, SRC, want, 16), BH_OK);
	cr_expect_eq(memcmp(b, want, 16), 0, "all ports of a bank alias one space");
	bh_device_close(dev);
}

Test(noc_mem, host_memory_through_the_pcie_tile)
{
	struct bh_device *dev = open_row(1);
	uint8_t *host;
	void *hp;
	uint64_t size, base;
	unsigned px, py;
	cr_assert_eq(bh_host_mem(dev, &hp, &size, &base), BH_OK);
	cr_assert_eq(bh_pcie_xy(dev, &px, &py), BH_OK);
	host = hp;
	for (unsigned k = 0; k < 256; k++)
		host[0x2000 + k] = (uint8_t)(k ^ 0x5A);
	l1_fill(dev, 0, SRC, 512, 77);
	uint64_t w = base + 0x1000, r = base + 0x2000;
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, XY(px, py), (uint32_t)(w >> 32), (uint32_t)w, 512);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);
	emit_read(&p, 0, XY(px, py), (uint32_t)(r >> 32), (uint32_t)r, DST, 256);
	emit_wait_counter(&p, 0, RD_RESP_RECEIVED, 1);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	uint8_t want[512];
	cr_assert_eq(bh_l1_read(dev, 0, SRC, want, 512), BH_OK);
	cr_expect_eq(memcmp(host + 0x1000, want, 512), 0);
	for (unsigned k = 0; k < 256; k++)
		cr_expect_eq(l1_word(dev, 0, DST + (k & ~3u)) >> 8 * (k & 3) & 0xFF, (k ^ 0x5A) & 0xFF);
	bh_device_close(dev);
}

Test(noc_mem, dram_read_needs_equal_low_6_bits_and_stays_in_the_bank)
{
	struct bh_device *dev = open_row(1);
	unsigned x, y;
	cr_assert_eq(bh_dram_bank_xy(dev, 0, 0, &x, &y), BH_OK);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	int32_t at = emit_read(&p, 0, XY(x, y), 0, 0x1010, DST + 0x20, 64);
	emit_exit_with(&p, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, "misaligned access", "low 6 bits (reads from DRAM/PCIe: 64-byte");
	struct prog q = { 0 };
	emit_noc_init(&q, 0);
	at = emit_read(&q, 0, XY(x, y), 0, 0xFEFFFFC0u, DST, 128);
	emit_exit_with(&q, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &q, at, "access not allowed", "leave DRAM bank 0");
	bh_device_close(dev);
}

/* A P150's Ethernet tiles from a core: their L1 takes NoC writes and reads (channel 0 is the
 * first at translated (20, 25)); their registers, positions past the twelfth and multicast are
 * not theirs. */
Test(noc_mem, ethernet_tile_l1_from_a_core_and_what_it_refuses, .timeout = 60)
{
	struct bh_device_config cfg = { .board = BH_BOARD_P150, .deadlock_ms = -1 };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	bh_core_enable_host_calls(dev, 0, BH_CORE_BRISC, true);
	l1_fill(dev, 0, SRC, 5000, 33);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, XY(31, 25), 0, 0x7E000u, 5000);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);
	emit_read(&p, 0, XY(31, 25), 0, 0x7E000u, DST, 5000);
	emit_wait_counter(&p, 0, RD_RESP_RECEIVED, 1);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	l1_expect_fill(dev, 0, DST, 5000, 33);
	uint8_t want[64];
	cr_assert_eq(bh_l1_read(dev, 0, SRC, want, 64), BH_OK);
	cr_expect_eq(memcmp(bh_eth_l1_ptr(&dev->chip, 11, 0x7E000u, 64), want, 64), 0, "the twelfth tile's L1");
	cr_expect_eq(bh_eth_l1_ptr(&dev->chip, 11, 0x80000u - 63, 64), NULL);
	cr_expect_eq(bh_eth_l1_ptr(&dev->chip, 12, 0, 4), NULL);

	struct prog q = { 0 };
	emit_noc_init(&q, 0);
	int32_t at = emit_write(&q, 0, CTRL_WRITE_POSTED, SRC, XY(20, 25), 0, 0xFFB121B0u, 4);
	emit_exit_with(&q, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &q, at, "not modelled", "NoC0 write to (20,25) 0xffb121b0: Ethernet tile (channel "
		  "0) address 0x0_ffb121b0: only its L1 [0, 0x80000) is modelled, not its registers or ERISC cores");
	struct prog r = { 0 };
	emit_noc_init(&r, 0);
	at = emit_read(&r, 0, XY(20, 25), 0, 0x7FFC0u, DST, 128);
	emit_exit_with(&r, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &r, at, "access not allowed", "128 bytes at 0x7ffc0 leave the Ethernet tile's L1 "
		  "(channel 0, 0x80000 bytes)");
	struct prog u = { 0 };
	emit_noc_init(&u, 0);
	at = emit_write(&u, 0, CTRL_WRITE_POSTED, SRC, XY(32, 25), 0, 0, 64);
	emit_exit_with(&u, 0);
	struct bh_core_result *res = result_new();
	start_on(dev, 0, BH_CORE_BRISC, &u);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, res), BH_OK);
	expect_fault(res, BH_CORE_BRISC, core_code_at[0] + (uint32_t)at, "unmapped address",
		     "NoC0 write to (32,25): no endpoint there");
	expect_in_report(res, "PCIe at (19,24); Ethernet at x 20-31, y 25");
	free(res);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- request faults */

Test(noc_faults, out_of_grid_coordinates_fault_naming_the_request_and_the_grid)
{
	struct bh_device *dev = open_row(4);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	int32_t at = emit_write(&p, 0, CTRL_WRITE_POSTED, SRC, XY(20, 2), 0, DST, 64);
	emit_exit_with(&p, 0);
	struct bh_core_result *r = result_new();
	start_on(dev, 0, BH_CORE_BRISC, &p);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, r), BH_OK);
	expect_fault(r, BH_CORE_BRISC, core_code_at[0] + (uint32_t)at, "unmapped address",
		     "NoC0 write to (20,2): no endpoint there");
	expect_in_report(r, "Tensix tiles at x 1-4, y 2-2");
	expect_in_report(r, "NoC0 NIU initiator 0 NOC_CMD_CTRL");
	free(r);
	struct prog q = { 0 };
	emit_noc_init(&q, 1);
	at = emit_read(&q, 1, XY(5, 2), 0, SRC, DST, 64);
	emit_exit_with(&q, 0);
	run_fault(dev, 3, BH_CORE_NCRISC, &q, at, "unmapped address", "NoC1 read from (5,2): no endpoint there");
	bh_device_close(dev);
}

Test(noc_faults, l1_to_l1_needs_equal_low_4_bits)
{
	struct bh_device *dev = open_row(2);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	int32_t at = emit_write(&p, 0, CTRL_WRITE_POSTED, SRC + 4, tile_xy(dev, 1), 0, DST + 8, 32);
	emit_exit_with(&p, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, "misaligned access", "L1 to L1: 16-byte alignment");
	bh_device_close(dev);
}

Test(noc_faults, lengths_registers_and_l1_bounds_are_checked)
{
	struct bh_device *dev = open_row(2);
	uint32_t xy = tile_xy(dev, 1);
	struct { uint32_t src, dst, len; const char *kind, *phrase; } cases[] = {
		{ SRC, DST, 0, "bad register value", "NOC_AT_LEN_BE is 0" },
		{ SRC, STREAM_REG(48, 270), 8, "access not allowed", "exactly 4 bytes, not 8" },
		{ SRC, 0x17FFF0u, 32, "access not allowed", "run past the end of L1" },
		{ SRC, 0x200000u, 4, "unmapped address", "nothing at 0x00200000" },
		{ SRC + 16, DST + 16, 20000, "misaligned access", "both 64-byte aligned" },
		{ SRC, 0xFFB20000u, 4, "not modelled", "NIU registers" },
	};
	for (unsigned k = 0; k < N(cases); k++) {
		struct prog p = { 0 };
		emit_noc_init(&p, 0);
		int32_t at = emit_write(&p, 0, CTRL_WRITE_POSTED, cases[k].src, xy, 0, cases[k].dst, cases[k].len);
		emit_exit_with(&p, 0);
		run_fault(dev, 0, BH_CORE_BRISC, &p, at, cases[k].kind, cases[k].phrase);
	}
	bh_device_close(dev);
}

Test(noc_faults, nonposted_write_without_noc_init_names_the_missing_ack_destination)
{
	struct bh_device *dev = open_row(2);
	struct prog p = { 0 };
	int32_t at = emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 1), 0, DST, 16);
	emit_exit_with(&p, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, "unmapped address", "write ack (TARG_ADDR_HI) goes to (0,0)");
	bh_device_close(dev);
}

Test(noc_faults, linked_requests_must_share_their_destination)
{
	struct bh_device *dev = open_row(3);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_POSTED | C_VC_LINKED, SRC, tile_xy(dev, 1), 0, DST, 16);
	emit_write(&p, 0, CTRL_WRITE_POSTED | C_VC_LINKED, SRC, tile_xy(dev, 1), 0, DST + 16, 16);
	int32_t at = emit_write(&p, 0, CTRL_WRITE_POSTED, SRC, tile_xy(dev, 2), 0, DST, 16);
	emit_exit_with(&p, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, "bad register value", "VC_LINKED transaction");
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- multicast */

/* On a 4 x 2 grid (x 1..4, y 2..3), tile 0 at (1,2) multicasts 256 bytes with NOC_CTRL extra
 * bits to the rectangle `hi`; returns the mask of tiles that received the data. */
static unsigned mcast_receivers(struct bh_device *dev, unsigned noc, uint32_t extra, uint32_t hi, unsigned *acks)
{
	for (unsigned t = 0; t < 8; t++)
		l1_set_word(dev, t, DST, 0);
	l1_fill(dev, 0, SRC, 256, 0x33);
	struct prog p = { 0 };
	emit_noc_init(&p, noc);
	emit_write(&p, noc, CTRL_MCAST | extra, SRC, hi, 0, DST, 256);
	emit_exit_with(&p, 0);
	run_on(dev, 0, noc ? BH_CORE_NCRISC : BH_CORE_BRISC, &p, 0);
	/* The program does not wait for its acks (how many would it wait for?): the host flushes the
	 * NoC before it looks (asynchronous NoC). */
	bh_device_noc_flush(dev);
	unsigned got = 0;
	for (unsigned t = 0; t < 8; t++)
		if (l1_word(dev, t, DST) != 0) {
			l1_expect_fill(dev, t, DST, 256, 0x33);
			got |= 1u << t;
		}
	*acks = ctr(dev, 0, noc, WR_ACK_RECEIVED);
	return got;
}

/* Tile k of the 4 x 2 grid: (1 + k % 4, 2 + k / 4). */
#define TB(x, y) (1u << (((y) - 2) * 4 + (x) - 1))

Test(noc_mcast, noc0_rectangle_reaches_every_tile_in_it_and_acks_once_per_receiver)
{
	struct bh_device *dev = open_grid(4, 2);
	unsigned acks;
	cr_expect_eq(mcast_receivers(dev, 0, 0, RECT(2, 2, 3, 3), &acks), TB(2, 2) | TB(3, 2) | TB(2, 3) | TB(3, 3));
	cr_expect_eq(acks, 4);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_WR_REQ_SENT), 1, "one request");
	/* One OUTSTANDING increment, four decrements (noc.md 8): software clears it. */
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), (1u - 4u) & 0xFF);
	reg_wr(dev, 0, NIU(0) + CLEAR_OUTSTANDING, 1);
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), 0);
	bh_device_close(dev);
}

Test(noc_mcast, initiator_receives_only_with_src_include)
{
	struct bh_device *dev = open_grid(4, 2);
	unsigned acks;
	cr_expect_eq(mcast_receivers(dev, 0, 0, RECT(1, 2, 2, 3), &acks), TB(2, 2) | TB(1, 3) | TB(2, 3));
	cr_expect_eq(acks, 3);
	cr_expect_eq(mcast_receivers(dev, 0, C_SRC_INCLUDE, RECT(1, 2, 2, 3), &acks),
		     TB(1, 2) | TB(2, 2) | TB(1, 3) | TB(2, 3));
	cr_expect_eq(acks, 3 + 4);
	bh_device_close(dev);
}

Test(noc_mcast, noc1_names_the_corners_the_other_way_round)
{
	struct bh_device *dev = open_grid(4, 2);
	unsigned acks;
	/* tt-metal on NoC1: start = the larger corner, end = the smaller one. */
	cr_expect_eq(mcast_receivers(dev, 1, 0, RECT(3, 3, 2, 2), &acks), TB(2, 2) | TB(3, 2) | TB(2, 3) | TB(3, 3));
	cr_expect_eq(acks, 4);
	cr_expect_eq(mcast_receivers(dev, 1, C_SRC_INCLUDE, RECT(4, 2, 1, 2), &acks),
		     TB(1, 2) | TB(2, 2) | TB(3, 2) | TB(4, 2));
	cr_expect_eq(acks, 4 + 4);
	bh_device_close(dev);
}

Test(noc_mcast, start_beyond_end_wraps_around)
{
	/* What silicon does with it; noc-mcast-order would stop the issue (test_checks_host). */
	struct bh_device *dev = open_grid_checks(4, 2, BH_CHECKS_EXACT | (BH_CHECKS_DEFAULT &
								       ~BH_CHECK_BIT(BH_CHECK_NOC_MCAST_ORDER)));
	unsigned acks;
	/* NoC0, StartX 4 > EndX 1: x <= 1 || x >= 4. */
	cr_expect_eq(mcast_receivers(dev, 0, C_SRC_INCLUDE, RECT(4, 2, 1, 3), &acks),
		     TB(1, 2) | TB(4, 2) | TB(1, 3) | TB(4, 3));
	bh_device_close(dev);
}

Test(noc_mcast, broadcast_opt_out_masks_of_the_initiator_remove_columns_and_rows)
{
	struct bh_device *dev = open_grid(4, 2);
	unsigned acks;
	reg_wr(dev, 0, NIU(0) + ROUTER_CFG(1), 1u << 3);          /* NoC0 column x = 3 */
	cr_expect_eq(mcast_receivers(dev, 0, 0, RECT(2, 2, 4, 3), &acks), TB(2, 2) | TB(4, 2) | TB(2, 3) | TB(4, 3));
	reg_wr(dev, 0, NIU(1) + ROUTER_CFG(3), 1u << (11 - 3));   /* NoC1 row of translated y = 3 */
	cr_expect_eq(mcast_receivers(dev, 1, 0, RECT(4, 3, 2, 2), &acks), TB(2, 2) | TB(3, 2) | TB(4, 2));
	cr_expect_eq(acks, 3);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- atomics */

Test(noc_atomic, semaphore_inc_returns_the_old_value_and_moves_the_atomic_counters)
{
	struct bh_device *dev = open_row(2);
	l1_set_word(dev, 1, SRC, 41);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_sem_inc(&p, 0, tile_xy(dev, 1), SRC, 1);
	emit_wait_counter(&p, 0, ATOMIC_RESP_RECEIVED, 1);   /* noc_async_atomic_barrier */
	emit_load_word(&p, A0, ATOMIC_RET);
	emit_exit(&p);
	run_on(dev, 0, BH_CORE_BRISC, &p, 41);
	cr_expect_eq(l1_word(dev, 1, SRC), 42);
	cr_expect_eq(reg_rd(dev, 0, CMDBUF(0, BUF_AT) + AT_LEN_BE), 0x107C);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_ATOMIC_SENT), 1);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_ATOMIC_STARTED), 1);
	cr_expect_eq(ctr(dev, 0, 0, CMD_ACCEPTED), 1);
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), 0);
	cr_expect_eq(ctr(dev, 0, 0, POSTED_ATOMIC_SENT), 0);
	bh_device_close(dev);
}

/* One atomic on tile 1's block at SRC (words w[4]) with NOC_AT_LEN_BE at, targeting SRC + targ;
 * returns what came back at ATOMIC_RET and leaves the block in w. */
static uint32_t atomic_on_block(uint32_t at, uint32_t data, uint32_t targ, uint32_t w[4])
{
	struct bh_device *dev = open_row(2);
	cr_assert_eq(bh_l1_write(dev, 1, SRC, w, 16), BH_OK);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_atomic(&p, 0, CTRL_ATOMIC, tile_xy(dev, 1), SRC + targ, at, data);
	emit_wait_counter(&p, 0, ATOMIC_RESP_RECEIVED, 1);
	emit_load_word(&p, A0, ATOMIC_RET);
	emit_exit(&p);
	start_on(dev, 0, BH_CORE_BRISC, &p);
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_EXITED, "%s", r->report);
	uint32_t ret = (uint32_t)r->exit_status;
	free(r);
	cr_assert_eq(bh_l1_read(dev, 1, SRC, w, 16), BH_OK);
	bh_device_close(dev);
	return ret;
}

Test(noc_atomic, incr_get_adds_within_int_width_at_word_ofs)
{
	uint32_t w[4] = { 1, 2, 0x123456FFu, 4 };
	/* IntWidth 7: an 8-bit increment of word 2; the result is the word at TARG_ADDR_LO. */
	cr_expect_eq(atomic_on_block(1u << 12 | 7u << 2 | 2, 1, 8, w), 0x123456FFu);
	cr_expect_eq(w[2], 0x12345600u, "carry stays inside the low 8 bits");
	cr_expect_eq(w[0] + w[1] + w[3], 7u);
	uint32_t v[4] = { 10, 20, 30, 40 };
	/* Ofs 3 with TARG_ADDR_LO at word 1: word 3 increments, word 1 is reported. */
	cr_expect_eq(atomic_on_block(1u << 12 | 31u << 2 | 3, 0xFFFFFFFFu, 4, v), 20u);
	cr_expect_eq(v[3], 39u);
}

Test(noc_atomic, cas_swaps_only_on_a_match_and_reports_the_old_value)
{
	uint32_t w[4] = { 5, 0, 0, 0 };
	cr_expect_eq(atomic_on_block(4u << 12 | 9u << 6 | 5u << 2 | 0, 0, 0, w), 5u);
	cr_expect_eq(w[0], 9u);
	uint32_t v[4] = { 0, 7, 0, 0 };
	cr_expect_eq(atomic_on_block(4u << 12 | 9u << 6 | 5u << 2 | 1, 0, 4, v), 7u);
	cr_expect_eq(v[1], 7u, "no match: unchanged");
}

Test(noc_atomic, swaps_by_index_and_by_halfword_mask)
{
	uint32_t w[4] = { 1, 2, 3, 4 };
	cr_expect_eq(atomic_on_block(6u << 12 | 2, 0xCAFEF00Du, 8, w), 3u);
	cr_expect_eq(w[2], 0xCAFEF00Du);
	uint32_t v[4] = { 1, 2, 3, 4 };
	cr_expect_eq(atomic_on_block(7u << 12 | 1u << 2, 0xBEEFu, 4, v), 2u);
	cr_expect_eq(v[1], 0xBEEFu);
	uint32_t m[4] = { 0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u };
	/* Mask 0b10000110: halfwords 1, 2 and 7 take the high, low and high half of AT_DATA. */
	cr_expect_eq(atomic_on_block(3u << 12 | 0x86u << 2, 0xAAAABBBBu, 4, m), 0x22222222u);
	cr_expect_eq(m[0], 0xAAAA1111u);
	cr_expect_eq(m[1], 0x2222BBBBu);
	cr_expect_eq(m[2], 0x33333333u);
	cr_expect_eq(m[3], 0xAAAA4444u);
}

Test(noc_atomic, posted_atomic_sends_no_response)
{
	struct bh_device *dev = open_row(2);
	l1_set_word(dev, 0, ATOMIC_RET, 0xDEAD);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_atomic(&p, 0, CTRL_ATOMIC & ~C_RESP, tile_xy(dev, 1), SRC, 0x107C, 5);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	bh_device_noc_flush(dev);   /* posted: no counter says when it applied */
	cr_expect_eq(l1_word(dev, 1, SRC), 5);
	cr_expect_eq(l1_word(dev, 0, ATOMIC_RET), 0xDEAD);
	cr_expect_eq(ctr(dev, 0, 0, POSTED_ATOMIC_SENT), 1);
	cr_expect_eq(ctr(dev, 0, 0, ATOMIC_RESP_RECEIVED), 0);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_ATOMIC_STARTED), 0);
	bh_device_close(dev);
}

Test(noc_atomic, unmodelled_opcodes_and_non_l1_targets_fault)
{
	struct bh_device *dev = open_row(2);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	int32_t at = emit_atomic(&p, 0, CTRL_ATOMIC, tile_xy(dev, 1), SRC, 2u << 12, 1);
	emit_exit_with(&p, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &p, at, "not modelled", "atomic opcode 2 (INCR_GET_PTR");
	struct prog q = { 0 };
	emit_noc_init(&q, 0);
	at = emit_sem_inc(&q, 0, tile_xy(dev, 1), STREAM_REG(2, 4), 1);
	emit_exit_with(&q, 0);
	run_fault(dev, 0, BH_CORE_BRISC, &q, at, "access not allowed", "atomics act on L1 of a Tensix tile only");
	bh_device_close(dev);
}

Test(noc_atomic, multicast_increment_applies_at_every_receiver)
{
	struct bh_device *dev = open_grid(4, 2);
	for (unsigned t = 0; t < 8; t++)
		l1_set_word(dev, t, SRC, 100 + t);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_atomic(&p, 0, CTRL_ATOMIC | C_BRCST, RECT(2, 2, 3, 3), SRC, 0x107C, 10);
	emit_wait_counter(&p, 0, ATOMIC_RESP_RECEIVED, 4);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	for (unsigned t = 0; t < 8; t++) {
		unsigned x = 1 + t % 4, y = 2 + t / 4;
		bool in = x >= 2 && x <= 3;
		cr_expect_eq(l1_word(dev, t, SRC), 100 + t + (in ? 10 : 0), "tile %u (%u,%u)", t, x, y);
	}
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- waking */

Test(noc_wake, core_parked_on_tile_b_wakes_on_a_noc_write_from_tile_a_and_sees_new_code)
{
	struct bh_device *dev = open_row(2);
	const uint32_t func = 0x9000, flag = 0x8000;
	struct prog f1 = { 0 }, f2 = { 0 };
	emit_li(&f1, A0, 1);
	emit(&f1, INSN_RET);
	emit_li(&f2, A0, 2);
	emit(&f2, INSN_RET);
	prog_put(dev, 1, func, &f1);
	l1_set_word(dev, 1, flag, 0);
	/* Tile B: call func (decoded), poll the flag, call func again, exit(sum). Other agents'
	 * code writes reach a core at its next event check (at most 4096 instructions later; on
	 * silicon firmware flushes the I-cache): the countdown gets there. */
	struct prog b = { 0 };
	emit_call(&b, core_code_at[BH_CORE_BRISC], func);
	emit(&b, addi(S0, A0, 0));
	emit_wait_nonzero(&b, flag, A1);
	emit_li(&b, A2, 5000);
	int32_t count = prog_here(&b);
	emit(&b, addi(A2, A2, -1));
	emit_branch(&b, BNE, A2, X0, count);
	emit_call(&b, core_code_at[BH_CORE_BRISC], func);
	emit(&b, add(A0, A0, S0));
	emit_exit(&b);
	start_on(dev, 1, BH_CORE_BRISC, &b);
	for (int ms = 0; ms < T_STOP_MS && !atomic_load(&dev->tiles[1]->core[BH_BRISC]->waiter.parks); ms++)
		sleep_ms(1);
	cr_assert_gt(atomic_load(&dev->tiles[1]->core[BH_BRISC]->waiter.parks), 0, "tile B never parked");
	/* Tile A: new code for func, then the flag, by NoC writes. */
	cr_assert_eq(bh_l1_write(dev, 0, SRC, f2.w, f2.n * 4), BH_OK);
	l1_set_word(dev, 0, SRC + 0x100, 1);
	struct prog a = { 0 };
	emit_noc_init(&a, 0);
	emit_write(&a, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 1), 0, func, f2.n * 4);
	emit_wait_counter(&a, 0, WR_ACK_RECEIVED, 1);
	emit_write(&a, 0, CTRL_WRITE_NONPOSTED, SRC + 0x100, tile_xy(dev, 1), 0, flag, 4);
	emit_exit_with(&a, 0);
	run_on(dev, 0, BH_CORE_BRISC, &a, 0);
	expect_exit(dev, 1, BH_CORE_BRISC, 1 + 2);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- concurrency */

/* Every BRISC (NoC0) and NCRISC (NoC1) of four tiles: n noc_semaphore_inc on one word of tile 0,
 * then the atomic barrier. */
Test(noc_concurrency, eight_cores_on_four_tiles_incrementing_one_semaphore_give_the_exact_total)
{
	struct bh_device *dev = open_row(4);
	const uint32_t n = 2000, sem = 0x40000;
	uint32_t target = tile_xy(dev, 0);
	for (unsigned t = 0; t < 4; t++)
		for (unsigned noc = 0; noc < 2; noc++) {
			struct prog p = { 0 };
			emit_noc_init(&p, noc);
			emit_li(&p, S0, n);
			int32_t loop = prog_here(&p);
			emit_sem_inc(&p, noc, target, sem, 1);
			emit(&p, addi(S0, S0, -1));
			emit_branch(&p, BNE, S0, X0, loop);
			emit_wait_counter(&p, noc, ATOMIC_RESP_RECEIVED, n);
			emit_exit_with(&p, 0);
			start_on(dev, t, noc ? BH_CORE_NCRISC : BH_CORE_BRISC, &p);
		}
	for (unsigned t = 0; t < 4; t++)
		for (unsigned noc = 0; noc < 2; noc++) {
			expect_exit(dev, t, noc ? BH_CORE_NCRISC : BH_CORE_BRISC, 0);
			cr_expect_eq(ctr(dev, t, noc, ATOMIC_RESP_RECEIVED), n);
			cr_expect_eq(ctr(dev, t, noc, NONPOSTED_ATOMIC_SENT), n);
		}
	cr_expect_eq(l1_word(dev, 0, sem), 8 * n);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------- page-spanning delivery */

/* A NoC delivery that spans L1 pages wakes the cores polling a word on any of them: here the
 * polled word is on the last page of the write (or read response), 2 or 5 pages long. */
#define SPAN_FLAG 0x48000u

/* Tiles in `mask` start a BRISC polling SPAN_FLAG (exit with what it read) and park. */
static void span_pollers(struct bh_device *dev, unsigned mask)
{
	struct prog p = { 0 };
	emit_wait_nonzero(&p, SPAN_FLAG, T1);
	emit(&p, addi(A0, T2, 0));
	emit_exit(&p);
	for (unsigned t = 0; mask >> t; t++)
		if (mask >> t & 1) {
			l1_set_word(dev, t, SPAN_FLAG, 0);
			start_on(dev, t, BH_CORE_BRISC, &p);
		}
	for (unsigned t = 0; mask >> t; t++)
		if (mask >> t & 1)
			wait_parked(dev, t, BH_CORE_BRISC);
}

/* Source bytes [SRC, SRC + len) with 0x5A where the polled word lands. */
static void span_source(struct bh_device *dev, uint32_t len)
{
	uint8_t *b = calloc(1, len);
	b[len - 16] = 0x5A;
	cr_assert_eq(bh_l1_write(dev, 0, SRC, b, len), BH_OK);
	free(b);
}

static void span_write(uint32_t pages, bool mcast)
{
	struct bh_device *dev = open_grid(4, 2);
	uint32_t len = (pages - 2) * 0x1000u + 32, dst = SPAN_FLAG + 16 - len;
	unsigned mask = mcast ? TB(2, 2) | TB(3, 2) | TB(2, 3) | TB(3, 3) : TB(2, 2);
	span_pollers(dev, mask);
	span_source(dev, len);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	if (mcast)
		emit_write(&p, 0, CTRL_MCAST, SRC, RECT(2, 2, 3, 3), 0, dst, len);
	else
		emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, XY(2, 2), 0, dst, len);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_NCRISC, &p, 0);
	for (unsigned t = 0; mask >> t; t++)
		if (mask >> t & 1)
			expect_exit(dev, t, BH_CORE_BRISC, 0x5A);
	bh_device_close(dev);
}

Test(noc_span, unicast_write_over_two_pages_wakes_a_poller_on_the_second)
{
	span_write(2, false);
}

Test(noc_span, unicast_write_over_five_pages_wakes_a_poller_on_the_last)
{
	span_write(5, false);
}

Test(noc_span, multicast_write_over_two_and_five_pages_wakes_every_receivers_poller)
{
	span_write(2, true);
	span_write(5, true);
}

/* A DRAM -> L1 read whose response spans pages wakes the tile's own poller on the last one. */
Test(noc_span, dram_read_response_over_two_and_five_pages_wakes_a_poller)
{
	for (uint32_t pages = 2; pages <= 5; pages += 3) {
		struct bh_device *dev = open_row(1);
		uint32_t len = (pages - 2) * 0x1000u + 64, dst = SPAN_FLAG + 16 - len;
		uint8_t *b = calloc(1, len);
		b[len - 16] = 0x5A;
		cr_assert_eq(bh_dram_write(dev, 2, 0x200000u + (dst & 63), b, len), BH_OK);
		free(b);
		span_pollers(dev, 1);
		unsigned x, y;
		cr_assert_eq(bh_dram_bank_xy(dev, 0, 2, &x, &y), BH_OK);
		struct prog p = { 0 };
		emit_noc_init(&p, 0);
		emit_read(&p, 0, XY(x, y), 0, 0x200000u + (dst & 63), dst, len);
		emit_wait_counter(&p, 0, RD_RESP_RECEIVED, 1);
		emit_exit_with(&p, 0);
		run_on(dev, 0, BH_CORE_NCRISC, &p, 0);
		expect_exit(dev, 0, BH_CORE_BRISC, 0x5A);
		bh_device_close(dev);
	}
}

/* ------------------------------------------------------------------------- asynchronous NoC */

#define RES 0x40000u   /* result words the programs store */

static struct bh_device *open_async_sched(unsigned n, const char *latency, uint64_t seed, int deadlock_ms,
					 uint32_t checks, enum bh_sched_mode sched)
{
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = n, .grid_rows = 1,
					.deadlock_ms = deadlock_ms, .noc = BH_NOC_ASYNC, .noc_latency = latency,
					.noc_seed = seed, .checks = checks, .sched = sched };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	for (unsigned t = 0; t < n; t++)
		for (int c = 0; c < 5; c++)
			bh_core_enable_host_calls(dev, t, (enum bh_core_id)c, true);
	return dev;
}

static struct bh_device *open_async_checks(unsigned n, const char *latency, uint64_t seed, int deadlock_ms,
					  uint32_t checks)
{
	return open_async_sched(n, latency, seed, deadlock_ms, checks, BH_SCHED_THREADED);
}

static struct bh_device *open_async(unsigned n, const char *latency, uint64_t seed, int deadlock_ms)
{
	return open_async_checks(n, latency, seed, deadlock_ms, 0);
}

/* A test that looks at a transaction while it is in flight needs the look to come before the
 * landing: under threads that holds only while the host schedules the core within the latency,
 * which a loaded machine does not promise. Serial scheduling's time is virtual (a nanosecond per
 * instruction, sync/sched.c): 500 ms in flight are 500 ms of it whatever the host does. */
static struct bh_device *open_async_serial(unsigned n, const char *latency, uint32_t checks)
{
	return open_async_sched(n, latency, 1, -1, checks, BH_SCHED_SERIAL);
}

/* The races themselves, as the NoC plays them out: without the check that stops them
 * (tests/unit/test_checks.c tests it). */
#define CHECKS_BUT_INFLIGHT (BH_CHECKS_EXACT | (BH_CHECKS_DEFAULT & ~BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT)))

static void emit_store_at(struct prog *p, unsigned reg, uint32_t addr)
{
	emit_li(p, T2, addr);
	emit(p, sw(reg, 0, T2));
}

static void emit_load_at(struct prog *p, unsigned reg, uint32_t addr)
{
	emit_li(p, T2, addr);
	emit(p, lw(reg, 0, T2));
}

/* 500 ms from issue to landing: far beyond the few instructions between the store and the
 * program's own look (in virtual time: open_async_serial). */
#define SLOW_NOC "500000000:500000000"

Test(noc_async, a_write_is_in_flight_until_it_lands_and_the_barrier_waits_for_it, .timeout = 60)
{
	struct bh_device *dev = open_async_serial(1, SLOW_NOC, 0);
	l1_fill(dev, 0, SRC, 16, 9);
	l1_set_word(dev, 0, DST, 0);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 0), 0, DST, 16);   /* loopback */
	emit_load_at(&p, A1, CMDBUF(0, BUF_WR) + CMD_CTRL);
	emit_store_at(&p, A1, RES);                   /* CMD_CTRL right after the store */
	emit_load_at(&p, A1, DST);
	emit_store_at(&p, A1, RES + 4);               /* the destination before the barrier */
	emit_load_at(&p, A1, CTR(0, NONPOSTED_WR_REQ_SENT));
	emit_store_at(&p, A1, RES + 8);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);
	emit_load_at(&p, A1, DST);
	emit_store_at(&p, A1, RES + 12);              /* after it */
	emit_load_at(&p, A1, CMDBUF(0, BUF_WR) + CMD_CTRL);
	emit_store_at(&p, A1, RES + 16);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_expect_eq(l1_word(dev, 0, RES), 1, "CMD_CTRL reads 1 until the request is accepted");
	cr_expect_eq(l1_word(dev, 0, RES + 4), 0, "nothing landed yet");
	cr_expect_eq(l1_word(dev, 0, RES + 8), 0, "not sent before it was accepted");
	uint32_t want;
	memcpy(&want, (uint8_t[]){ 9, 16, 23, 30 }, 4);
	cr_expect_eq(l1_word(dev, 0, RES + 12), want, "landed when the ack came");
	cr_expect_eq(l1_word(dev, 0, RES + 16), 0);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_WR_REQ_SENT), 1);
	bh_device_close(dev);
}

Test(noc_async, a_write_reads_its_source_when_it_leaves_not_at_the_store, .timeout = 60)
{
	/* races.md #10: the source buffer reused right after noc_async_write. */
	struct bh_device *dev = open_async_serial(2, SLOW_NOC, CHECKS_BUT_INFLIGHT);
	l1_set_word(dev, 0, SRC, 0x600D);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 1), 0, DST, 4);
	emit_li(&p, A1, 0xBAD);
	emit_store_at(&p, A1, SRC);                   /* too early: no flush, no barrier */
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_expect_eq(l1_word(dev, 1, DST), 0xBAD, "the overwritten source is what arrived");
	bh_device_close(dev);
}

/* noc_async_writes_flushed (the write's *_SENT), then the destination and a reuse of the source:
 * what the program saw at RES, what finally landed at DST. */
static void flush_then_look(struct bh_device *dev)
{
	l1_set_word(dev, 0, SRC, 0x600D);
	l1_set_word(dev, 0, DST, 0);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 0), 0, DST, 4);   /* loopback, apart */
	emit_wait_counter(&p, 0, NONPOSTED_WR_REQ_SENT, 1);
	emit_load_at(&p, A1, DST);
	emit_store_at(&p, A1, RES);                   /* the destination right after the flush */
	emit_li(&p, A1, 0xBAD);
	emit_store_at(&p, A1, SRC);                   /* reuse: allowed once flushed */
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_expect_eq(l1_word(dev, 0, DST), 0x600D, "the source as it was when the write left, not the reuse");
}

Test(noc_async, a_write_landing_within_the_5us_lookahead_has_landed_when_flushed, .timeout = 60)
{
	/* 2 us from acceptance to landing: the poll of *_SENT runs both (fabric/noc_engine.c: the
	 * write leaves as it lands, in one step, the source read as it is copied). */
	struct bh_device *dev = open_async(1, "2000:2000", 1, -1);
	flush_then_look(dev);
	cr_expect_eq(l1_word(dev, 0, RES), 0x600D, "landed by the time *_SENT rose");
	bh_device_close(dev);
}

Test(noc_async, a_write_landing_later_leaves_first_so_a_flush_is_not_a_barrier, .timeout = 60)
{
	/* 500 ms in flight: the source is read into the network when the write leaves (*_SENT), and
	 * lands from there: a flush-instead-of-barrier bug sees the old destination. */
	struct bh_device *dev = open_async_serial(1, SLOW_NOC, 0);
	flush_then_look(dev);
	cr_expect_eq(l1_word(dev, 0, RES), 0, "sent, not landed yet");
	bh_device_close(dev);
}

/* A posted write whose core then parks (a worker's completion report before it waits for the next
 * launch): nobody waits for its counters, and it still lands (delivered by the parking core as at a
 * barrier, or by the NoC thread) and wakes the core polling its destination on the other tile. */
Test(noc_async, a_posted_write_issued_before_its_core_parks_lands_and_wakes_the_destinations_poller,
     .timeout = 60)
{
	struct bh_device *dev = open_async(2, "2000:2000", 1, -1);
	l1_set_word(dev, 0, SRC, 0x5EED);
	l1_set_word(dev, 0, RES, 0);
	l1_set_word(dev, 1, DST, 0);
	struct prog b = { 0 };
	emit_wait_nonzero(&b, DST, T1);
	emit(&b, addi(A0, T2, 0));
	emit_exit(&b);
	start_on(dev, 1, BH_CORE_BRISC, &b);
	struct prog a = { 0 };
	emit_noc_init(&a, 0);
	emit_write(&a, 0, CTRL_WRITE_POSTED, SRC, tile_xy(dev, 1), 0, DST, 4);
	emit_wait_nonzero(&a, RES, T1);   /* parks: only the host ends it */
	emit_exit_with(&a, 0);
	start_on(dev, 0, BH_CORE_BRISC, &a);
	expect_exit(dev, 1, BH_CORE_BRISC, 0x5EED);
	l1_set_word(dev, 0, RES, 1);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	bh_device_close(dev);
}

Test(noc_async, a_read_lands_later_and_the_read_barrier_waits_for_it, .timeout = 60)
{
	struct bh_device *dev = open_async_serial(2, SLOW_NOC, 0);
	l1_set_word(dev, 1, SRC, 0x1234);
	l1_set_word(dev, 0, DST, 0);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_read(&p, 0, tile_xy(dev, 1), 0, SRC, DST, 4);
	emit_load_at(&p, A1, DST);
	emit_store_at(&p, A1, RES);                   /* read before the barrier: races.md #19 */
	emit_wait_counter(&p, 0, RD_RESP_RECEIVED, 1);
	emit_load_at(&p, A1, DST);
	emit_store_at(&p, A1, RES + 4);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_expect_eq(l1_word(dev, 0, RES), 0, "the data was still in flight");
	cr_expect_eq(l1_word(dev, 0, RES + 4), 0x1234);
	bh_device_close(dev);
}

Test(noc_async, transactions_in_flight_are_not_a_deadlock, .timeout = 60)
{
	/* The barrier parks for 500 ms, far longer than the 40 ms deadlock window. */
	struct bh_device *dev = open_async(2, SLOW_NOC, 1, 40);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 1), 0, DST, 64);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 1);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	bh_device_close(dev);
}

/* Two writes to one word, the second on `ctrl2`; returns the word after both acks. */
static uint32_t two_writes(uint64_t seed, uint32_t ctrl2)
{
	struct bh_device *dev = open_async_checks(2, "0:2000000", seed, -1, CHECKS_BUT_INFLIGHT);
	l1_set_word(dev, 0, SRC, 1);
	l1_set_word(dev, 0, SRC + 16, 2);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 1), 0, DST, 4);
	emit_write(&p, 0, ctrl2, SRC + 16, tile_xy(dev, 1), 0, DST, 4);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 2);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	uint32_t v = l1_word(dev, 1, DST);
	bh_device_close(dev);
	return v;
}

Test(noc_async, one_static_vc_delivers_in_issue_order_and_other_vcs_may_overtake, .timeout = 120)
{
	unsigned reordered = 0;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		cr_expect_eq(two_writes(seed, CTRL_WRITE_NONPOSTED), 2, "seed %llu: same static VC, second write last",
			     (unsigned long long)seed);
		reordered += two_writes(seed, CTRL_WRITE_NONPOSTED & ~C_VC_STATIC) == 1;
	}
	/* Up to 2 ms of jitter each: a dynamic-VC write overtakes in about half of the seeds. */
	cr_expect_gt(reordered, 0, "no seed reordered writes on different VCs");
}

/* 1 us each way, no jitter: an atomic's round trip fits in the one-step window and nothing else
 * is in flight, so it completes at its CMD_CTRL store (fabric/noc_engine.c, bh_noc_at_issue),
 * after which every counter and the result are exactly as the three phases leave them. */
Test(noc_async, an_atomic_within_the_lookahead_alone_on_the_chip_completes_at_issue_with_every_counter_exact,
     .timeout = 60)
{
	struct bh_device *dev = open_async(2, "1000:1000", 1, -1);
	l1_set_word(dev, 1, SRC, 41);
	l1_set_word(dev, 0, ATOMIC_RET, 0xEEEE);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_sem_inc(&p, 0, tile_xy(dev, 1), SRC, 1);
	emit_wait_counter(&p, 0, ATOMIC_RESP_RECEIVED, 1);
	static const uint32_t after[] = { CTR(0, NONPOSTED_ATOMIC_STARTED), CTR(0, NONPOSTED_ATOMIC_SENT),
					  CTR(0, CMD_ACCEPTED), CTR(0, OUTSTANDING(0)), CTR(0, POSTED_ATOMIC_SENT),
					  CMDBUF(0, BUF_AT) + CMD_CTRL, ATOMIC_RET };
	for (unsigned k = 0; k < sizeof after / sizeof after[0]; k++) {
		emit_load_at(&p, A1, after[k]);
		emit_store_at(&p, A1, RES + 4 + 4 * k);
	}
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_expect_eq(bh_noc_engine_at_issue(dev->chip.noc), 1, "the atomic completed at issue");
	cr_expect_eq(bh_noc_engine_all_in_one(dev->chip.noc), 0, "no event for it");
	static const uint32_t want[] = { 1, 1, 1, 0, 0, 0, 41 };
	static const char *const what[] = { "NONPOSTED_ATOMIC_STARTED", "NONPOSTED_ATOMIC_SENT", "CMD_ACCEPTED",
					    "REQS_OUTSTANDING_ID(0)", "POSTED_ATOMIC_SENT", "CMD_CTRL", "the result" };
	for (unsigned k = 0; k < sizeof want / sizeof want[0]; k++)
		cr_expect_eq(l1_word(dev, 0, RES + 4 + 4 * k), want[k], "%s after the barrier: %u", what[k],
			     l1_word(dev, 0, RES + 4 + 4 * k));
	cr_expect_eq(l1_word(dev, 1, SRC), 42);
	bh_device_close(dev);
}

/* 3 us each way: a round trip (6 us) beyond the one-step window, so the atomic stays in flight
 * (three events, none at issue) and the barrier still finds the counters and the result exact. */
Test(noc_async, an_atomic_whose_round_trip_exceeds_the_lookahead_stays_in_flight, .timeout = 60)
{
	struct bh_device *dev = open_async(2, "3000:3000", 1, -1);
	l1_set_word(dev, 1, SRC, 7);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_sem_inc(&p, 0, tile_xy(dev, 1), SRC, 1);
	emit_wait_counter(&p, 0, ATOMIC_RESP_RECEIVED, 1);
	emit_load_word(&p, A0, ATOMIC_RET);
	emit_exit(&p);
	run_on(dev, 0, BH_CORE_BRISC, &p, 7);
	cr_expect_eq(bh_noc_engine_at_issue(dev->chip.noc), 0, "not completed at issue");
	cr_expect_eq(bh_noc_engine_all_in_one(dev->chip.noc), 0, "not one event");
	cr_expect_eq(l1_word(dev, 1, SRC), 8);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_ATOMIC_STARTED), 1);
	cr_expect_eq(ctr(dev, 0, 0, NONPOSTED_ATOMIC_SENT), 1);
	cr_expect_eq(ctr(dev, 0, 0, OUTSTANDING(0)), 0);
	bh_device_close(dev);
}

/* The size of each NoC landing, in the order they happen (observer callback). */
enum { LANDS_MAX = 64 };
struct lands {
	_Atomic unsigned n;
	uint32_t size[LANDS_MAX];
};

static void record_land(void *arg, const struct bh_core_event *ev)
{
	struct lands *l = arg;
	unsigned k = atomic_fetch_add(&l->n, 1);
	if (k < LANDS_MAX)
		l->size[k] = ev->size;
}

/* 32 times a 16 KiB write and then a semaphore increment on the same static VC to the same tile,
 * each one step (round trips of about 5 us: the pair is issued within one), or, for an increment
 * issued once nothing is in flight (a poll ran the write), done at its store: the payload always
 * lands before the semaphore moves, whatever the seed, as the VC orders them. */
Test(noc_async, one_step_requests_keep_the_static_vc_order_payload_before_semaphore, .timeout = 120)
{
	enum { LEN = 16384, SEM = 0x10000u, PAIRS = LANDS_MAX / 2 };
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct bh_device *dev = open_async(2, "2400:2500", seed, -1);
		struct lands lands = { 0 };
		uint64_t id;
		cr_assert_eq(bh_device_observe_kinds(dev, 1u << BH_EVENT_NOC_LAND, record_land, &lands, &id), BH_OK);
		l1_fill(dev, 0, SRC, LEN, (uint32_t)seed);
		struct prog w = { 0 };
		emit_noc_init(&w, 0);
		emit_li(&w, S0, PAIRS);
		int32_t loop = prog_here(&w);
		emit_write(&w, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 1), 0, DST, LEN);
		emit_sem_inc(&w, 0, tile_xy(dev, 1), SEM, 1);
		emit(&w, addi(S0, S0, -1));
		emit_branch(&w, BNE, S0, X0, loop);
		emit_wait_counter(&w, 0, ATOMIC_RESP_RECEIVED, PAIRS);
		emit_wait_counter(&w, 0, WR_ACK_RECEIVED, PAIRS);
		emit_exit_with(&w, 0);
		run_on(dev, 0, BH_CORE_BRISC, &w, 0);
		bh_device_unobserve(dev, id);
		cr_expect_eq(bh_noc_engine_all_in_one(dev->chip.noc) + bh_noc_engine_at_issue(dev->chip.noc), 2 * PAIRS,
			     "seed %llu: all one step", (unsigned long long)seed);
		cr_assert_eq(atomic_load(&lands.n), 2 * PAIRS, "seed %llu: every landing seen", (unsigned long long)seed);
		for (unsigned k = 0; k < PAIRS; k++)
			cr_expect(lands.size[2 * k] == LEN && lands.size[2 * k + 1] == 4,
				  "seed %llu, pair %u: landed %u then %u bytes", (unsigned long long)seed, k,
				  lands.size[2 * k], lands.size[2 * k + 1]);
		l1_expect_fill(dev, 1, DST, LEN, (uint32_t)seed);
		cr_expect_eq(l1_word(dev, 1, SEM), PAIRS);
		bh_device_close(dev);
	}
}

/* ------------------------------------------------------------------- atomics in one step */

/* An atomic of the mix below: on NoC noc with NOC_CTRL ctrl and transaction id id, on `tile`'s
 * word at addr, NOC_AT_LEN_BE at, NOC_AT_DATA data. */
struct mix_atomic {
	unsigned noc, tile, id;
	uint32_t ctrl, addr, at, data;
};

#define CTRL_ATOMIC_POSTED (CTRL_ATOMIC & ~C_RESP)
#define MIX_BLOCK 0x50000u   /* 16 words the mix works on, in both tiles */

/* Every modelled opcode (noc.md 6), posted and non-posted, both NoCs, transaction ids, VC_LINKED,
 * on the other tile and on the issuer's own L1. */
static const struct mix_atomic mix[] = {
	{ 0, 1, 0, CTRL_ATOMIC, MIX_BLOCK + 0, 1u << 12 | 31u << 2 | 0, 1 },
	{ 0, 1, 2, CTRL_ATOMIC, MIX_BLOCK + 8, 1u << 12 | 7u << 2 | 2, 1 },        /* 8 bits wide: 0xFF wraps */
	{ 0, 1, 2, CTRL_ATOMIC, MIX_BLOCK + 16, 4u << 12 | 9u << 6 | 5u << 2 | 0, 0 },   /* CAS 5 -> 9 */
	{ 0, 1, 0, CTRL_ATOMIC, MIX_BLOCK + 20, 4u << 12 | 9u << 6 | 5u << 2 | 1, 0 },   /* CAS, no match */
	{ 1, 1, 7, CTRL_ATOMIC, MIX_BLOCK + 40, 6u << 12 | 2, 0xCAFEF00Du },              /* SWAP by index */
	{ 1, 1, 7, CTRL_ATOMIC, MIX_BLOCK + 36, 7u << 12 | 1u << 2, 0xBEEFu },            /* SWAP, high index */
	{ 0, 1, 1, CTRL_ATOMIC, MIX_BLOCK + 52, 3u << 12 | 0x86u << 2, 0xAAAABBBBu },     /* SWAP by halfword mask */
	{ 0, 1, 5, CTRL_ATOMIC_POSTED, MIX_BLOCK + 12, 1u << 12 | 31u << 2 | 3, 3 },
	{ 1, 0, 3, CTRL_ATOMIC, MIX_BLOCK + 4, 1u << 12 | 31u << 2 | 1, 0xFFFFFFFFu }, /* its own L1 */
	{ 1, 1, 3, CTRL_ATOMIC | C_VC_LINKED, MIX_BLOCK + 0, 1u << 12 | 31u << 2 | 0, 2 },
	{ 1, 1, 3, CTRL_ATOMIC, MIX_BLOCK + 0, 1u << 12 | 31u << 2 | 0, 4 },
	{ 1, 0, 0, CTRL_ATOMIC_POSTED, MIX_BLOCK + 60, 1u << 12 | 31u << 2 | 3, 5 },
};
enum { MIX_ROUNDS = 3, MIX_N = sizeof mix / sizeof mix[0], MIX_CTRS = 2 * 48 };

static void noop_event(void *arg, const struct bh_core_event *ev)
{
	(void)ev;
	atomic_fetch_add((_Atomic unsigned *)arg, 1);
}

/* What a run of the mix leaves: both blocks, the last result, every readable counter of both NIUs
 * (the flit counters 3, 8 and 9 fault by name when read). */
struct mix_state {
	uint32_t block[2][16], ret, ctr[MIX_CTRS];
	uint64_t one_step;
};

/* Run the mix MIX_ROUNDS times on tile 0's BRISC, each atomic issued and left (no barrier in
 * between), then a barrier on each NoC's atomic responses; `observed`: with an observer of NoC
 * issues, which the one-step path leaves to the general issue. */
static void run_mix(struct bh_device *dev, bool observed, struct mix_state *out)
{
	static const uint32_t init[16] = { 10, 20, 0x123456FFu, 4, 5, 0, 0, 0, 5, 7, 1, 2, 3, 4, 0x11111111u,
					   0x22222222u };
	_Atomic unsigned seen = 0;
	uint64_t id = 0;
	if (observed)
		cr_assert_eq(bh_device_observe_kinds(dev, 1u << BH_EVENT_NOC_ISSUE, noop_event, &seen, &id), BH_OK);
	for (unsigned t = 0; t < 2; t++)
		cr_assert_eq(bh_l1_write(dev, t, MIX_BLOCK, init, sizeof init), BH_OK);
	struct prog p = { 0 };
	uint32_t resps[2] = { 0, 0 };
	emit_noc_init(&p, 0);
	emit_noc_init(&p, 1);
	emit_li(&p, S0, MIX_ROUNDS);
	int32_t round = prog_here(&p);
	for (unsigned k = 0; k < MIX_N; k++) {
		const struct mix_atomic *m = &mix[k];
		emit_wait_ready(&p, m->noc, BUF_AT);
		emit_reg(&p, m->noc, BUF_AT, PACKET_TAG, m->id << 10);
		emit_atomic(&p, m->noc, m->ctrl, tile_xy(dev, m->tile), m->addr, m->at, m->data);
		resps[m->noc] += MIX_ROUNDS * ((m->ctrl & C_RESP) != 0);
	}
	emit(&p, addi(S0, S0, -1));
	emit_branch(&p, BNE, S0, X0, round);
	for (unsigned noc = 0; noc < 2; noc++) {
		emit_wait_counter(&p, noc, ATOMIC_RESP_RECEIVED, resps[noc]);
		/* Counters 0-2, 4-7 and 10-47 into RES. */
		static const unsigned from[] = { 0, 4, 10 }, n[] = { 3, 4, 38 };
		for (unsigned r = 0; r < 3; r++) {
			emit_li(&p, T0, CTR(noc, from[r]));
			emit_li(&p, T2, RES + 4 * (48 * noc + from[r]));
			emit_li(&p, S1, n[r]);
			int32_t copy = prog_here(&p);
			emit(&p, lw(T1, 0, T0));
			emit(&p, sw(T1, 0, T2));
			emit(&p, addi(T0, T0, 4));
			emit(&p, addi(T2, T2, 4));
			emit(&p, addi(S1, S1, -1));
			emit_branch(&p, BNE, S1, X0, copy);
		}
	}
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	if (observed) {
		bh_device_unobserve(dev, id);
		cr_expect_eq(atomic_load(&seen), MIX_ROUNDS * MIX_N, "every issue observed");
	}
	memset(out, 0, sizeof *out);
	for (unsigned t = 0; t < 2; t++)
		cr_assert_eq(bh_l1_read(dev, t, MIX_BLOCK, out->block[t], sizeof out->block[t]), BH_OK);
	out->ret = l1_word(dev, 0, ATOMIC_RET);
	for (unsigned i = 0; i < MIX_CTRS; i++)
		if (i % 48 != 3 && i % 48 != 8 && i % 48 != 9)
			out->ctr[i] = l1_word(dev, 0, RES + 4 * i);
	out->one_step = bh_noc_one_step_atomics(&dev->chip);
}

/* The one-step atomic against the general issue and completion, on one kind of NoC: the same
 * words in both tiles, the same result, every counter the same (noc.md 3.4: CMD_ACCEPTED, the
 * *_STARTED and *_SENT ones, ATOMIC_RESP_RECEIVED, REQS_OUTSTANDING_ID back to 0 on every id). */
static void expect_mix_as_general(struct bh_device *(*open)(void))
{
	struct mix_state fast, general;
	struct bh_device *dev = open();
	run_mix(dev, false, &fast);
	bh_device_close(dev);
	dev = open();
	run_mix(dev, true, &general);
	bh_device_close(dev);
	cr_expect_eq(fast.one_step, MIX_ROUNDS * MIX_N, "every atomic in one step: %llu",
		     (unsigned long long)fast.one_step);
	cr_expect_eq(general.one_step, 0, "observed: none in one step");
	for (unsigned t = 0; t < 2; t++)
		for (unsigned w = 0; w < 16; w++)
			cr_expect_eq(fast.block[t][w], general.block[t][w], "tile %u word %u: 0x%08x, general 0x%08x", t, w,
				     fast.block[t][w], general.block[t][w]);
	cr_expect_eq(fast.ret, general.ret, "result 0x%08x, general 0x%08x", fast.ret, general.ret);
	for (unsigned i = 0; i < MIX_CTRS; i++)
		cr_expect_eq(fast.ctr[i], general.ctr[i], "NoC%u counter %u: %u, general %u", i / 48, i % 48, fast.ctr[i],
			     general.ctr[i]);
	/* And what noc.md 3.4 says they are: per round 5 non-posted and 1 posted on each NoC ... */
	for (unsigned noc = 0; noc < 2; noc++) {
		cr_expect_eq(fast.ctr[48 * noc + CMD_ACCEPTED], MIX_ROUNDS * 6u);
		cr_expect_eq(fast.ctr[48 * noc + NONPOSTED_ATOMIC_SENT], MIX_ROUNDS * 5u);
		cr_expect_eq(fast.ctr[48 * noc + NONPOSTED_ATOMIC_STARTED], MIX_ROUNDS * 5u);
		cr_expect_eq(fast.ctr[48 * noc + ATOMIC_RESP_RECEIVED], MIX_ROUNDS * 5u);
		cr_expect_eq(fast.ctr[48 * noc + POSTED_ATOMIC_SENT], MIX_ROUNDS * 1u);
	}
	for (unsigned id = 0; id < 16; id++)
		cr_expect_eq(fast.ctr[OUTSTANDING(id)] | fast.ctr[48 + OUTSTANDING(id)], 0, "id %u outstanding", id);
	/* ... and the words as noc.md 6 leaves them after three rounds. */
	cr_expect_eq(fast.block[1][0], 10u + MIX_ROUNDS * 7u, "INCR_GET +1, linked +2, +4");
	cr_expect_eq(fast.block[1][2], 0x12345602u, "8-bit increments wrap inside the low byte");
	cr_expect_eq(fast.block[1][4], 9u, "CAS 5 -> 9");
	cr_expect_eq(fast.block[1][5], 0u, "CAS without a match");
	cr_expect_eq(fast.block[1][10], 0xCAFEF00Du);
	cr_expect_eq(fast.block[1][9], 0xBEEFu);
	cr_expect_eq(fast.block[1][3], 4u + MIX_ROUNDS * 3u, "posted INCR_GET at word 3");
	cr_expect_eq(fast.block[0][1], 20u - MIX_ROUNDS, "its own L1: + 0xFFFFFFFF");
	cr_expect_eq(fast.block[1][12], 0xAAAA0003u);
	cr_expect_eq(fast.block[1][13], 0x0000BBBBu);
	cr_expect_eq(fast.block[1][15], 0xAAAA2222u);
}

/* Two tiles on the synchronous NoC, whatever BHEMU_NOC says. */
static struct bh_device *open_sync_pair(void)
{
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 2, .grid_rows = 1, .deadlock_ms = -1,
					.noc = BH_NOC_SYNC };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	for (unsigned t = 0; t < 2; t++)
		for (int c = 0; c < 5; c++)
			bh_core_enable_host_calls(dev, t, (enum bh_core_id)c, true);
	return dev;
}

static struct bh_device *open_async_pair(void)
{
	return open_async(2, "1000:1000", 1, -1);
}

Test(noc_atomic, an_atomic_in_one_step_leaves_words_result_and_counters_as_the_general_issue)
{
	expect_mix_as_general(open_sync_pair);
}

Test(noc_async, an_atomic_done_at_issue_in_one_step_leaves_words_result_and_counters_as_the_general_issue,
     .timeout = 60)
{
	expect_mix_as_general(open_async_pair);
}

/* The one-step atomic tells who waits: tile 1's BRISC parked polling the word it increments, and
 * tile 0's NCRISC parked polling NoC0's ATOMIC_RESP_RECEIVED (its counter announce), both wake. */
Test(noc_atomic, an_atomic_in_one_step_wakes_the_parked_pollers_of_its_word_and_of_its_counter, .timeout = 60)
{
	struct bh_device *dev = open_sync_pair();
	l1_set_word(dev, 1, SRC, 0);
	struct prog w = { 0 };
	emit_wait_nonzero(&w, SRC, T0);
	emit_exit_with(&w, 7);
	start_on(dev, 1, BH_CORE_BRISC, &w);
	struct prog c = { 0 };
	emit_wait_counter(&c, 0, ATOMIC_RESP_RECEIVED, 1);
	emit_exit_with(&c, 8);
	start_on(dev, 0, BH_CORE_NCRISC, &c);
	wait_parked(dev, 1, BH_CORE_BRISC);
	wait_parked(dev, 0, BH_CORE_NCRISC);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_sem_inc(&p, 0, tile_xy(dev, 1), SRC, 1);
	emit_exit_with(&p, 0);
	run_on(dev, 0, BH_CORE_BRISC, &p, 0);
	cr_expect_eq(bh_noc_one_step_atomics(&dev->chip), 1);
	expect_exit(dev, 1, BH_CORE_BRISC, 7);
	expect_exit(dev, 0, BH_CORE_NCRISC, 8);
	bh_device_close(dev);
}

Test(noc_async, bad_latency_specifications_are_refused_at_open)
{
	static const char *const bad[] = { "fast", "5:3", ":3", "3:", "-1:5", "1:2000000000", "" };
	char err[200];
	for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		cr_expect_eq(bh_noc_latency_check(bad[k], err, sizeof err), BH_ERR_ARG, "'%s' accepted", bad[k]);
		cr_expect(strstr(err, "is not a NoC latency"), "%s", err);
	}
	static const char *const good[] = { "zero", "silicon", "slow", "0:0", "100:5000" };
	for (unsigned k = 0; k < sizeof good / sizeof good[0]; k++)
		cr_expect_eq(bh_noc_latency_check(good[k], err, sizeof err), BH_OK, "'%s': %s", good[k], err);
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 1, .noc = BH_NOC_ASYNC, .noc_latency = "5:3" };
	struct bh_device *dev = NULL;
	cr_expect_eq(bh_device_open(&cfg, &dev), BH_ERR_ARG);
	cr_expect_null(dev);
}

Test(noc_async, a_barrier_waiting_for_acks_that_never_come_is_a_deadlock_naming_the_counter, .timeout = 60)
{
	/* One non-posted write, a barrier for two acks: it parks on the counter and nothing can
	 * ever move it (nothing left in flight). */
	struct bh_device *dev = open_async(2, "silicon", 1, 100);
	struct prog p = { 0 };
	emit_noc_init(&p, 0);
	emit_write(&p, 0, CTRL_WRITE_NONPOSTED, SRC, tile_xy(dev, 1), 0, DST, 64);
	emit_wait_counter(&p, 0, WR_ACK_RECEIVED, 2);
	emit_exit_with(&p, 0);
	start_on(dev, 0, BH_CORE_BRISC, &p);
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, 30000, r), BH_ERR_DEADLOCK);
	char rep[8192];
	bh_device_report(dev, rep, sizeof rep);
	cr_expect(strstr(rep, "NoC0 NIU counter NIU_MST_WR_ACK_RECEIVED"), "%s", rep);
	cr_expect(strstr(rep, "0 NoC requests in flight"), "%s", rep);
	cr_expect(strstr(rep, "= 0x1") || strstr(rep, "= 1"), "the counter's value: %s", rep);
	free(r);
	bh_device_close(dev);
}
