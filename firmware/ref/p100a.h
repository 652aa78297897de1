/* Layout of the "p100a" firmware profile (reference/README.md (b), memory-map.md 9-10,
 * launch.md 6-10), shared by the five reference firmware images in firmware/ref/ and by host-side
 * tests that drive them. Everything firmware places in L1 or local RAM is a build property, so it
 * lives here and nowhere in the emulator core (golden rule (a)).
 *
 * This header is plain C with fixed-width types only: it compiles for the RV32 guest and the host. */
#ifndef BHEMU_FW_REF_P100A_H
#define BHEMU_FW_REF_P100A_H

#include <stdint.h>

/* ---- Firmware images (text base = _start = ELF entry) ------------------------------------------- */

#define FW_BRISC_BASE		0x3840u
#define FW_NCRISC_BASE		0x5440u
#define FW_TRISC0_BASE		0x5A40u
#define FW_TRISC1_BASE		0x6040u
#define FW_TRISC2_BASE		0x6640u
#define FW_TEXT_END		0x6C40u		/* end of TRISC2's slot (the NoC counter block follows) */

/* Where the host stages each image's 0xFFB00000 PT_LOAD; _start copies .data from here. */
#define FW_BRISC_SCRATCH	0x82B0u
#define FW_NCRISC_SCRATCH	0xA2B0u
#define FW_TRISC0_SCRATCH	0xC2B0u
#define FW_TRISC1_SCRATCH	0xD2B0u
#define FW_TRISC2_SCRATCH	0xE2B0u

/* Local data RAM, gp and stack tops set by _start. */
#define FW_LDM_BASE		0xFFB00000u
#define FW_GP			0xFFB007F0u
#define FW_SP_DM		0xFFB01FF0u	/* BRISC, NCRISC (8 KiB) */
#define FW_SP_TRISC		0xFFB00FF0u	/* TRISC0..2 (4 KiB) */

/* The local-RAM split of firmware/kernel/ABI.md 1: firmware .data/.bss from FW_LDM_BASE, then the
 * kernel's .data/.bss, then free space up to the shared stack. fw.ld.in and kernel.ld.in get the
 * same numbers from CMake (firmware/ref/CMakeLists.txt, firmware/kernel/CMakeLists.txt). */
#define FW_LDM_SIZE_DM		0xC00u
#define FW_LDM_SIZE_TRISC	0x600u
#define KERNEL_LDM_BASE_DM	0xFFB00C00u
#define KERNEL_LDM_END_DM	0xFFB01400u
#define KERNEL_LDM_BASE_TRISC	0xFFB00600u
#define KERNEL_LDM_END_TRISC	0xFFB00A00u

/* ---- L1 low memory ----------------------------------------------------------------------------- */

#define MEM_MAILBOX_BASE	0x60u
#define MEM_ZEROS_BASE		0x3240u		/* 512 bytes BRISC zeroes at boot */
#define MEM_ZEROS_SIZE		0x200u
#define MEM_LLK_DEBUG_BASE	0x3440u
#define MEM_NOC_COUNTER_BASE	0x6C40u		/* dynamic NoC mode counters (unused here) */
#define MEM_MAP_END		0x82B0u		/* kernel-config base; reuses BRISC's scratch after boot */
#define MEM_BANK_TO_NOC_SCRATCH	0x112B0u
#define MEM_LOGICAL_TO_VIRTUAL_X 0x11AB0u
#define MEM_LOGICAL_TO_VIRTUAL_Y 0x11AC4u
#define NUM_DRAM_BANKS		7u
#define NUM_L1_BANKS		110u

/* Circular buffers: 32, CB n counts in overlay stream 8 + n. */
#define NUM_CBS			32u
#define CB_FIRST_STREAM		8u
#define CB_STREAM_REG_TILES_RECEIVED	10u	/* sync.md 3: the two counters TRISC0 zeroes */
#define CB_STREAM_REG_TILES_ACKED	8u

/* ---- Mailboxes (launch.md 6-9) ------------------------------------------------------------------ */

#define MBOX_SUBORDINATE_SYNC	0x68u	/* byte 0 NC (dm1), 1 T0, 2 T1, 3 T2 */
#define MBOX_SYNC_DM1		0x68u
#define MBOX_SYNC_TRISC0	0x69u
#define MBOX_SYNC_TRISC1	0x6Au
#define MBOX_SYNC_TRISC2	0x6Bu
#define MBOX_LAUNCH_RD_PTR	0x6Cu
#define MBOX_LAUNCH		0x70u
#define MBOX_LAUNCH_SIZE	96u
#define MBOX_LAUNCH_COUNT	8u
#define MBOX_GO_MESSAGES	0x370u
#define MBOX_GO_COUNT		9u
#define MBOX_GO_MESSAGE_INDEX	0x3A0u
#define MBOX_LOGICAL_X		0x9A0u	/* core_info.absolute_logical_x */
#define MBOX_LOGICAL_Y		0x9A1u

/* Byte 3 of go_messages[i]: the host's "done" poll address for i = 0 is 0x373. */
#define MBOX_GO_SIGNAL(i)	(MBOX_GO_MESSAGES + 4u * (i) + 3u)

/* go_msg_t.signal */
#define RUN_MSG_DONE			0x00u
#define RUN_MSG_INIT			0x40u
#define RUN_MSG_GO			0x80u
#define RUN_MSG_RESET_READ_PTR		0xC0u
#define RUN_MSG_RESET_READ_PTR_FROM_HOST 0xE0u
#define RUN_MSG_REPLAY_TRACE		0xF0u

/* subordinate_sync bytes */
#define RUN_SYNC_MSG_DONE		0x00u
#define RUN_SYNC_MSG_LOAD		0x01u
#define RUN_SYNC_MSG_WAITING_FOR_RESET	0x02u
#define RUN_SYNC_MSG_INIT_SYNC_REGISTERS 0x03u
#define RUN_SYNC_MSG_INIT		0x40u
#define RUN_SYNC_MSG_GO			0x80u
#define RUN_SYNC_MSG_ALL_INIT		0x40404040u
#define RUN_SYNC_MSG_ALL_GO		0x80808080u

#define DISPATCH_MODE_DEV		0u
#define DISPATCH_MODE_HOST		1u
#define DISPATCH_ENABLE_FLAG_PRELOAD	0x80u
/* Fast dispatch (launch.md 12): a worker reports completion to the dispatcher's overlay stream
 * DISPATCH_STREAM_FIRST + go_msg.dispatch_message_offset, whose reg 297 counts done workers. */
#define DISPATCH_STREAM_FIRST		48u

/* launch_msg_t.enables */
#define ENABLE_BRISC		(1u << 0)
#define ENABLE_NCRISC		(1u << 1)
#define ENABLE_TRISC		(1u << 2)	/* bit 2 starts all three TRISCs */
#define ENABLE_ALL		0x1Fu

/* Processor index p of kernel_text_offset[p] and rta_offset[p]. */
#define PROC_BRISC	0u
#define PROC_NCRISC	1u
#define PROC_TRISC0	2u
#define PROC_COUNT	5u

struct go_msg {
	uint8_t dispatch_message_offset;
	uint8_t master_x;
	uint8_t master_y;
	uint8_t signal;
};

struct rta_offset {
	uint16_t rta;
	uint16_t crta;
};

/* launch_msg_t = kernel_config_msg_t, 96 bytes, p100a (32-bit local_cb_mask). aligned(4): every
 * launch message starts at a multiple of 16 (0x70 + 96 * i), so the firmware reads its fields with
 * word loads, as the real firmware does, instead of byte by byte. */
struct launch_msg {
	uint32_t kernel_config_base[3];		/* 0x00; Tensix uses [0] */
	uint16_t sem_offset[3];			/* 0x0C */
	uint16_t local_cb_offset;		/* 0x12 */
	uint16_t remote_cb_offset;		/* 0x14 */
	struct rta_offset rta_offset[PROC_COUNT]; /* 0x16 */
	uint8_t mode;				/* 0x2A: DISPATCH_MODE_* */
	uint8_t pad0;
	uint32_t kernel_text_offset[PROC_COUNT]; /* 0x2C */
	uint32_t local_cb_mask;			/* 0x40 */
	uint8_t brisc_noc_id;			/* 0x44 */
	uint8_t brisc_noc_mode;			/* 0x45: 0 dedicated, 1 dynamic */
	uint8_t min_remote_cb_start_index;	/* 0x46 */
	uint8_t exit_erisc_kernel;		/* 0x47 */
	uint32_t host_assigned_id;		/* 0x48 */
	uint32_t enables;			/* 0x4C */
	uint16_t watcher_kernel_ids[PROC_COUNT]; /* 0x50 */
	uint16_t ncrisc_kernel_size16;		/* 0x5A */
	uint8_t sub_device_origin_x;		/* 0x5C */
	uint8_t sub_device_origin_y;		/* 0x5D */
	uint8_t pad1;
	uint8_t preload;			/* 0x5F: bit 7; writers put it last */
} __attribute__((packed, aligned(4)));

_Static_assert(sizeof(struct launch_msg) == MBOX_LAUNCH_SIZE, "launch_msg_t is 96 bytes on p100a");
_Static_assert(__builtin_offsetof(struct launch_msg, kernel_text_offset) == 0x2C, "kernel_text_offset");
_Static_assert(__builtin_offsetof(struct launch_msg, enables) == 0x4C, "enables");
_Static_assert(__builtin_offsetof(struct launch_msg, preload) == 0x5F, "preload");

/* ---- Kernel ABI of the reference firmware --------------------------------------------------------
 *
 * firmware/kernel/ABI.md is the contract. The entry of processor p is
 * kernel_config_base[0] + kernel_text_offset[p], called as
 *     uint32_t kernel(uint32_t rta_l1_base, uint32_t crta_l1_base, uint32_t sem_l1_base,
 *                     uint32_t launch_msg_addr);
 * i.e. a0 = kcb + rta_offset[p].rta, a1 = kcb + rta_offset[p].crta, a2 = kcb + sem_offset[0]
 * (semaphore id at + 16·id), a3 = L1 address of the launch message being run; the firmware has
 * also set the globals of fw_abi.h (ABI.md 4). gp and sp are the firmware's: a kernel keeps gp,
 * may use the stack and keeps its own variables in the kernel part of local RAM (ABI.md 1). The
 * return value is ignored. */
typedef uint32_t (*fw_kernel_fn)(uint32_t rta_l1_base, uint32_t crta_l1_base, uint32_t sem_l1_base,
				 uint32_t launch_msg_addr);

#endif
