/* Firmware profiles: the one table of what differs between firmware builds (reference/README.md
 * rule (a), memory-map.md section 10). The public struct is struct bh_profile in bhemu.h; this
 * header holds the field table that formatting and derivation share. */
#ifndef BH_HOST_PROFILE_H
#define BH_HOST_PROFILE_H

#include "bhemu/bhemu.h"

/* How a scalar field is read from a symbol: an L1 address, an L1 address inside mailboxes_t
 * (kept as an offset from mailbox_base), or a plain number. */
enum bh_profile_kind { BH_PF_ADDR, BH_PF_MBOX, BH_PF_COUNT };

/* X(member, kind, alias): every scalar field. The ELF symbol __fw_export_<member> gives it; alias
 * is a firmware symbol that also does (NULL: none). */
#define BH_PROFILE_FIELDS(X) \
	X(mailbox_base,        BH_PF_ADDR,  "mailboxes") \
	X(subordinate_sync,    BH_PF_MBOX,  NULL) \
	X(launch_msg_rd_ptr,   BH_PF_MBOX,  NULL) \
	X(launch_base,         BH_PF_MBOX,  NULL) \
	X(launch_entry_size,   BH_PF_COUNT, NULL) \
	X(launch_count,        BH_PF_COUNT, NULL) \
	X(go_messages_base,    BH_PF_MBOX,  "go_messages") \
	X(go_messages_count,   BH_PF_COUNT, NULL) \
	X(go_message_index,    BH_PF_MBOX,  "go_message_index") \
	X(core_info_logical_x, BH_PF_MBOX,  NULL) \
	X(core_info_logical_y, BH_PF_MBOX,  NULL) \
	X(kernel_config_base,  BH_PF_ADDR,  NULL) \
	X(bank_scratch,        BH_PF_ADDR,  NULL) \
	X(num_dram_banks,      BH_PF_COUNT, NULL) \
	X(num_l1_banks,        BH_PF_COUNT, NULL) \
	X(logical_col_map,     BH_PF_ADDR,  NULL) \
	X(logical_row_map,     BH_PF_ADDR,  NULL) \
	X(num_cbs,             BH_PF_COUNT, NULL) \
	X(first_cb_stream,     BH_PF_COUNT, NULL)

/* launch_msg_t (launch.md 9); the profile gives its size and where the ring is. */
enum {
	LM_KCB = 0x00, LM_SEM_OFF = 0x0C, LM_LOCAL_CB_OFF = 0x12, LM_REMOTE_CB_OFF = 0x14, LM_RTA_OFF = 0x16,
	LM_MODE = 0x2A, LM_TEXT_OFF = 0x2C, LM_LOCAL_CB_MASK = 0x40, LM_BRISC_NOC_ID = 0x44,
	LM_MIN_REMOTE_CB = 0x46, LM_HOST_ID = 0x48, LM_ENABLES = 0x4C, LM_SIZE = 0x60,
};

/* Per-core firmware file names, in bh_core_id order: "brisc.elf" ... "trisc2.elf". */
extern const char *const bh_profile_fw_file[5];

/* Absolute L1 address of a mailbox field. */
static inline uint32_t bh_profile_mbox(const struct bh_profile *p, uint32_t offset)
{
	return p->mailbox_base + offset;
}

#endif
