/* The per-core NoC state of noc.h: the NoC choice, the software counters and the bank tables.
 * Each core's private local data RAM holds its own copy. Separate from noc.c because a kernel
 * links the functions but shares this state with the firmware (firmware/kernel/ABI.md 2, 4). */
#include "noc.h"

#include "multicore.h"

BARE_LDM uint8_t noc_index;
BARE_LDM uint8_t noc_proc;
BARE_LDM uint32_t noc_reads_num_issued[NOC_NUM_NOCS];
BARE_LDM uint32_t noc_nonposted_writes_num_issued[NOC_NUM_NOCS];
BARE_LDM uint32_t noc_nonposted_writes_acked[NOC_NUM_NOCS];
BARE_LDM uint32_t noc_nonposted_atomics_acked[NOC_NUM_NOCS];
BARE_LDM uint32_t noc_posted_writes_num_issued[NOC_NUM_NOCS];

BARE_LDM uint32_t noc_num_dram_banks, noc_num_l1_banks;
BARE_LDM uint16_t dram_bank_to_noc_xy[NOC_NUM_NOCS][NOC_MAX_DRAM_BANKS];
BARE_LDM uint16_t l1_bank_to_noc_xy[NOC_NUM_NOCS][NOC_MAX_L1_BANKS];
BARE_LDM int32_t bank_to_dram_offset[NOC_MAX_DRAM_BANKS];
BARE_LDM int32_t bank_to_l1_offset[NOC_MAX_L1_BANKS];
