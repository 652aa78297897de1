/* The ARC tile's host-visible state (fabric/arc.h). */
#include <stdio.h>
#include <string.h>

#include "fabric/fault.h"
#include "fabric/arc.h"
#include "fabric/topology.h"

/* CSM layout of the state set up at init (offsets from BH_ARC_CSM_BASE). */
#define TELEM_TABLE    0x100u     /* version, entry count, then tag | (index << 16) per entry */
#define TELEM_VALUES   0x200u
#define MSG_QCB        0x300u     /* queue base, then entries | (queues << 8) */
#define MSG_QUEUES_AT  0x400u
#define MSG_QUEUES     4u
#define MSG_ENTRIES    8u
#define MSG_HEADER     32u
#define MSG_ENTRY      32u
#define BOOT_STATUS_READY 0x5u    /* scratch_ram[2]: ARC started (bit 2), takes messages (bit 0) */
#define FLASH_BUNDLE   0x12050000u   /* 18.5 */

static uint32_t csm_rd(const struct bh_arc *a, uint32_t off)
{
	uint32_t v;
	memcpy(&v, a->csm + off, 4);
	return v;
}

static void csm_wr(struct bh_arc *a, uint32_t off, uint32_t v)
{
	memcpy(a->csm + off, &v, 4);
}

/* ENABLED_TENSIX_COL: bit i stands for the Tensix column at NoC x tensix_col_bit_x[i] (tt-umd's
 * HARVESTING_NOC_LOCATIONS, which it sorts back into x order). */
static const uint8_t tensix_col_bit_x[14] = { 1, 16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10 };

static uint32_t arc_enabled_cols(const struct bh_topology *t)
{
	uint32_t m = 0;
	for (unsigned c = 0; c < t->cols; c++)
		for (unsigned i = 0; i < 14; i++)
			if (tensix_col_bit_x[i] == t->col_x[c])
				m |= 1u << i;
	return m;
}

void bh_arc_init(struct bh_arc *a, uint32_t board_id_hi, const struct bh_topology *topo)
{
	unsigned ndram = topo->ndram;
	const struct { uint16_t tag; uint32_t value; } telem[] = {
		{ BH_TAG_BOARD_ID_HIGH, board_id_hi },
		{ BH_TAG_BOARD_ID_LOW, 1 },
		{ BH_TAG_ASIC_ID, 1 },
		{ BH_TAG_HARVESTING_STATE, 0 },
		{ BH_TAG_AICLK, 1000 },
		{ BH_TAG_AXICLK, 900 },
		{ BH_TAG_ARCCLK, 540 },
		{ BH_TAG_ETH_LIVE_STATUS, 0 },       /* no link up (31:16), no base-firmware heartbeat (15:0) */
		{ BH_TAG_GDDR_STATUS, 0x55555555u >> (32 - 2 * ndram) },   /* 2 bits per channel: trained */
		{ BH_TAG_FLASH_BUNDLE_VERSION, FLASH_BUNDLE },
		{ BH_TAG_TIMER_HEARTBEAT, 1 },
		{ BH_TAG_ENABLED_TENSIX_COL, arc_enabled_cols(topo) },
		{ BH_TAG_ENABLED_ETH, topo->eth_enabled },         /* present channels; none of them linked */
		{ BH_TAG_ENABLED_GDDR, (1u << ndram) - 1 },
		{ BH_TAG_PCIE_USAGE, 1 },            /* PCIe 0 an endpoint, PCIe 1 unused (tt-umd: mask 0x2) */
		{ BH_TAG_ASIC_LOCATION, 0 },
	};
	memset(a, 0, sizeof *a);
	unsigned n = sizeof telem / sizeof telem[0];
	csm_wr(a, TELEM_TABLE, 1);
	csm_wr(a, TELEM_TABLE + 4, n);
	for (unsigned i = 0; i < n; i++) {
		csm_wr(a, TELEM_TABLE + 8 + 4 * i, telem[i].tag | i << 16);
		csm_wr(a, TELEM_VALUES + 4 * i, telem[i].value);
	}
	csm_wr(a, MSG_QCB, BH_ARC_CSM_BASE + MSG_QUEUES_AT);
	csm_wr(a, MSG_QCB + 4, MSG_ENTRIES | MSG_QUEUES << 8);
	a->scratch_ram[2] = BOOT_STATUS_READY;
	a->scratch_ram[11] = BH_ARC_CSM_BASE + MSG_QCB;
	a->scratch_ram[12] = BH_ARC_CSM_BASE + TELEM_VALUES;
	a->scratch_ram[13] = BH_ARC_CSM_BASE + TELEM_TABLE;
}

/* The answer to message code (request word 0, low byte) in resp[0]; false: not a message the
 * model answers (resp[0] then holds status 0xFF, which hosts read as a failure). */
static bool arc_answer(uint8_t code, uint32_t *resp)
{
	switch (code) {
	case 0x57:   /* GET_HARVESTING: 0 (tt-umd asks it of Wormhole only; Blackhole's is in telemetry) */
		resp[0] = 0;
		return true;
	case 0x58:   /* SET_ETH_DRAM_TRAINED_STATUS: trained */
		resp[0] = 1;
		return true;
	case 0x11: case 0x21: case 0x51: case 0x52: case 0x53: case 0x54: case 0x56: case 0x90:
	case 0xA0: case 0xA3: case 0xB6: case 0xB7: case 0xBA: case 0xBC: case 0xC1: case 0xC7:
		resp[0] = 0;  /* NOP, power, PCIe index, busy/idle, reset, test, ASIC state, GDDR reset, date,
			       * RISC-V reset, timeouts, PCIe log: nothing modelled changes */
		return true;
	default:
		resp[0] = 0xFF;
		return false;
	}
}

/* The doorbell: answer every queued request of every queue, in order. */
static bool arc_drain(struct bh_arc *a, char *err, size_t errlen)
{
	uint32_t qcb = a->scratch_ram[11] - BH_ARC_CSM_BASE;
	if (qcb > BH_ARC_CSM_SIZE - 8)
		return bh_errf(err, errlen, "ARC message doorbell: scratch_ram[11] 0x%x is not in the CSM",
			       a->scratch_ram[11]);
	uint32_t base = csm_rd(a, qcb) - BH_ARC_CSM_BASE, entries = csm_rd(a, qcb + 4) & 0xFFu;
	uint32_t stride = MSG_HEADER + 2 * entries * MSG_ENTRY;
	if (!entries || base > BH_ARC_CSM_SIZE || MSG_QUEUES * stride > BH_ARC_CSM_SIZE - base)
		return bh_errf(err, errlen, "ARC message queues at 0x%x with %u entries: outside the CSM", base, entries);
	bool ok = true;
	for (uint32_t q = 0; q < MSG_QUEUES; q++) {
		uint32_t h = base + q * stride, wr = csm_rd(a, h), rd = csm_rd(a, h + 0x10), res = csm_rd(a, h + 0x14);
		uint32_t pending = (wr - rd) % (2 * entries);
		for (uint32_t k = 0; k < pending && k < entries; k++) {
			uint32_t req = h + MSG_HEADER + rd % entries * MSG_ENTRY;
			uint32_t out = h + MSG_HEADER + entries * MSG_ENTRY + res % entries * MSG_ENTRY;
			uint32_t resp[8] = { 0 };
			uint8_t code = (uint8_t)csm_rd(a, req);
			if (!arc_answer(code, resp) && ok)
				ok = bh_errf(err, errlen, "ARC message 0x%02x (queue %u) is not modelled: answered with status "
					     "0xff", code, q);
			for (unsigned i = 0; i < 8; i++)
				csm_wr(a, out + 4 * i, resp[i]);
			rd = (rd + 1) % (2 * entries);
			res = (res + 1) % (2 * entries);
			a->messages++;
		}
		csm_wr(a, h + 0x10, rd);
		csm_wr(a, h + 0x14, res);
	}
	return ok;
}

static uint32_t *arc_reg(struct bh_arc *a, uint64_t addr)
{
	uint64_t off = addr - BH_ARC_RESET_UNIT;
	if (addr < BH_ARC_RESET_UNIT)
		return NULL;
	if (off - BH_ARC_RESET_SCRATCH < sizeof a->scratch)
		return &a->scratch[(off - BH_ARC_RESET_SCRATCH) / 4];
	if (off == BH_ARC_MISC_CNTL)
		return &a->misc_cntl;
	if (off - BH_ARC_SCRATCH_RAM < sizeof a->scratch_ram)
		return &a->scratch_ram[(off - BH_ARC_SCRATCH_RAM) / 4];
	return NULL;
}

static bool arc_access(struct bh_arc *a, uint64_t addr, void *buf, uint32_t len, bool write, char *err,
		       size_t errlen)
{
	if (addr >= BH_ARC_CSM_BASE && addr - BH_ARC_CSM_BASE <= BH_ARC_CSM_SIZE &&
	    len <= BH_ARC_CSM_SIZE - (addr - BH_ARC_CSM_BASE)) {
		uint8_t *p = a->csm + (addr - BH_ARC_CSM_BASE);
		if (write)
			memcpy(p, buf, len);
		else
			memcpy(buf, p, len);
		return true;
	}
	uint32_t *r = arc_reg(a, addr);
	if (!r)
		return bh_errf(err, errlen, "ARC 0x%llx + %u bytes: only the CSM [0x%x, 0x%x) and the reset unit's "
			       "scratch, ARC_MISC_CNTL and scratch_ram registers are modelled", (unsigned long long)addr,
			       len, BH_ARC_CSM_BASE, BH_ARC_CSM_BASE + BH_ARC_CSM_SIZE);
	if (len != 4 || (addr & 3))
		return bh_errf(err, errlen, "ARC register 0x%llx: %u bytes; registers take aligned 4-byte accesses",
			       (unsigned long long)addr, len);
	if (!write) {
		memcpy(buf, r, 4);
		return true;
	}
	memcpy(r, buf, 4);
	if (r == &a->misc_cntl && (a->misc_cntl & BH_ARC_MISC_IRQ0)) {
		a->misc_cntl &= ~BH_ARC_MISC_IRQ0;   /* taken at once: the answers are in the CSM */
		return arc_drain(a, err, errlen);
	}
	return true;
}

bool bh_arc_read(struct bh_arc *a, uint64_t addr, void *buf, uint32_t len, char *err, size_t errlen)
{
	return arc_access(a, addr, buf, len, false, err, errlen);
}

bool bh_arc_write(struct bh_arc *a, uint64_t addr, const void *buf, uint32_t len, char *err, size_t errlen)
{
	return arc_access(a, addr, (void *)buf, len, true, err, errlen);
}
