/* NoC set-up (noc.md section 4) and the bank-table copy (section 9). The per-core state these
 * and the inline calls of noc.h use is defined in noc_state.c, so a kernel can link these
 * functions while the state comes from the firmware it runs under (firmware/kernel/ABI.md 2). */
#include "noc.h"

void noc_init(uint32_t proc, uint32_t noc)
{
	uint32_t xy = *noc_niu_reg(noc, NOC_ID_LOGICAL) & 0xFFFu;

	noc_index = (uint8_t)noc;
	noc_proc = (uint8_t)proc;

	/* Writes: the source is local L1. */
	noc_cmd_buf_write(noc, NOC_BUF_WR, NOC_TARG_ADDR_MID, 0);
	noc_cmd_buf_write(noc, NOC_BUF_WR, NOC_TARG_ADDR_HI, xy);
	noc_cmd_buf_write(noc, NOC_BUF_WR_REG, NOC_TARG_ADDR_MID, 0);
	noc_cmd_buf_write(noc, NOC_BUF_WR_REG, NOC_TARG_ADDR_HI, xy);
	/* Reads: the data returns to local L1. */
	noc_cmd_buf_write(noc, NOC_BUF_RD, NOC_CTRL, NOC_CTRL_READ);
	noc_cmd_buf_write(noc, NOC_BUF_RD, NOC_RET_ADDR_MID, 0);
	noc_cmd_buf_write(noc, NOC_BUF_RD, NOC_RET_ADDR_HI, xy);
	/* Atomics: the old value returns to local L1 at 4. */
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_RET_ADDR_LO, MEM_NOC_ATOMIC_RET_VAL_ADDR);
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_RET_ADDR_MID, 0);
	noc_cmd_buf_write(noc, NOC_BUF_AT, NOC_RET_ADDR_HI, xy);

	noc_counters_init(noc);
}

void noc_counters_init(uint32_t noc)
{
	/* The NIU's counters are monotonic and never reset: start the software ones where they are
	 * (noc_local_state_init). */
	noc_reads_num_issued[noc] = noc_status_read(noc, NIU_MST_RD_RESP_RECEIVED);
	noc_nonposted_writes_num_issued[noc] = noc_status_read(noc, NIU_MST_NONPOSTED_WR_REQ_SENT);
	noc_nonposted_writes_acked[noc] = noc_status_read(noc, NIU_MST_WR_ACK_RECEIVED);
	noc_nonposted_atomics_acked[noc] = noc_status_read(noc, NIU_MST_ATOMIC_RESP_RECEIVED);
	noc_posted_writes_num_issued[noc] = noc_status_read(noc, NIU_MST_POSTED_WR_REQ_SENT);
}

void noc_inline_dw_write_l1(uint64_t dst_noc_addr, uint32_t val, bool posted)
{
	const uint32_t noc = noc_index;
	uint32_t stage = MEM_L1_INLINE_BASE + 32u * noc_proc + 16u * noc + ((uint32_t)dst_noc_addr & 15u);

	/* The staging word may still be the source of the previous inline write. */
	if (posted)
		noc_async_posted_writes_flushed();
	else
		noc_async_writes_flushed();
	*(volatile uint32_t *)(uintptr_t)stage = val;
	NOC_COMPILER_BARRIER();
	if (posted)
		noc_async_write_posted(stage, dst_noc_addr, 4);
	else
		noc_async_write(stage, dst_noc_addr, 4);
}

int noc_bank_tables_init(uint32_t l1_tables, uint32_t num_dram, uint32_t num_l1)
{
	if (num_dram == 0 || num_l1 == 0 || num_dram > NOC_MAX_DRAM_BANKS || num_l1 > NOC_MAX_L1_BANKS)
		return -1;
	const volatile uint16_t *dram_xy = (const volatile uint16_t *)(uintptr_t)l1_tables;
	const volatile uint16_t *l1_xy = dram_xy + 2 * num_dram;
	const volatile int32_t *dram_off = (const volatile int32_t *)(l1_xy + 2 * num_l1);
	const volatile int32_t *l1_off = dram_off + num_dram;

	for (uint32_t noc = 0; noc < NOC_NUM_NOCS; noc++) {
		for (uint32_t b = 0; b < num_dram; b++)
			dram_bank_to_noc_xy[noc][b] = dram_xy[noc * num_dram + b];
		for (uint32_t b = 0; b < num_l1; b++)
			l1_bank_to_noc_xy[noc][b] = l1_xy[noc * num_l1 + b];
	}
	for (uint32_t b = 0; b < num_dram; b++)
		bank_to_dram_offset[b] = dram_off[b];
	for (uint32_t b = 0; b < num_l1; b++)
		bank_to_l1_offset[b] = l1_off[b];
	noc_num_dram_banks = num_dram;
	noc_num_l1_banks = num_l1;
	return 0;
}
