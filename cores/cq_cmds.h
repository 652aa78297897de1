/* Fast-dispatch command formats (fast-dispatch.md 4): the one table of every prefetch command,
 * dispatch command and sub-command, byte for byte. The host encoder (host/cq*.c), the device
 * decoders (cores/cq_prefetch.c, cores/cq_dispatch.c), tracing and the tests all read it.
 *
 * C(NAME, id, header bytes) opens a command; F(NAME, field, offset, bytes) lists its fields in
 * order. Every struct is packed little-endian; byte 0 of a command is its id (sub-commands have
 * no id: their "id" is only their index in the table). Fields named pad are not listed. */
#ifndef BH_CORES_CQ_CMDS_H
#define BH_CORES_CQ_CMDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BH_CQ_PREFETCH_CMDS(C, F) \
	C(RELAY_LINEAR, 1, 32) \
		F(RELAY_LINEAR, length, 3, 8) F(RELAY_LINEAR, noc_xy_addr, 11, 4) F(RELAY_LINEAR, addr, 15, 8) \
	C(RELAY_LINEAR_H, 2, 32) \
		F(RELAY_LINEAR_H, noc_xy_addr, 4, 4) F(RELAY_LINEAR_H, addr, 8, 8) F(RELAY_LINEAR_H, length, 16, 4) \
	C(RELAY_PAGED, 3, 16) \
		F(RELAY_PAGED, start_page, 1, 1) F(RELAY_PAGED, is_dram_and_length_adjust, 2, 2) \
		F(RELAY_PAGED, base_addr, 4, 4) F(RELAY_PAGED, page_size, 8, 4) F(RELAY_PAGED, pages, 12, 4) \
	C(RELAY_PAGED_PACKED, 4, 16) \
		F(RELAY_PAGED_PACKED, count, 2, 2) F(RELAY_PAGED_PACKED, total_length, 4, 4) \
		F(RELAY_PAGED_PACKED, stride, 8, 4) \
	C(RELAY_INLINE, 5, 16) \
		F(RELAY_INLINE, dispatcher_type, 1, 1) F(RELAY_INLINE, length, 4, 4) F(RELAY_INLINE, stride, 8, 4) \
	C(RELAY_INLINE_NOFLUSH, 6, 16) \
		F(RELAY_INLINE_NOFLUSH, dispatcher_type, 1, 1) F(RELAY_INLINE_NOFLUSH, length, 4, 4) \
		F(RELAY_INLINE_NOFLUSH, stride, 8, 4) \
	C(EXEC_BUF, 7, 16) \
		F(EXEC_BUF, base_addr, 4, 4) F(EXEC_BUF, log_page_size, 8, 4) F(EXEC_BUF, pages, 12, 4) \
	C(EXEC_BUF_END, 8, 16) \
		F(EXEC_BUF_END, dispatcher_type, 1, 1) F(EXEC_BUF_END, length, 4, 4) F(EXEC_BUF_END, stride, 8, 4) \
	C(STALL, 9, 16) \
	C(DEBUG, 10, 16) \
		F(DEBUG, key, 2, 2) F(DEBUG, size, 4, 4) F(DEBUG, stride, 8, 4) \
	C(TERMINATE, 11, 16) \
	C(PAGED_TO_RINGBUFFER, 12, 16) \
		F(PAGED_TO_RINGBUFFER, flags, 1, 1) F(PAGED_TO_RINGBUFFER, log2_page_size, 2, 1) \
		F(PAGED_TO_RINGBUFFER, start_page, 3, 1) F(PAGED_TO_RINGBUFFER, wp_offset_update, 4, 4) \
		F(PAGED_TO_RINGBUFFER, base_addr, 8, 4) F(PAGED_TO_RINGBUFFER, length, 12, 4) \
	C(SET_RINGBUFFER_OFFSET, 13, 16) \
		F(SET_RINGBUFFER_OFFSET, offset, 1, 4) F(SET_RINGBUFFER_OFFSET, update_wp, 8, 1) \
	C(RELAY_RINGBUFFER, 14, 16) \
		F(RELAY_RINGBUFFER, count, 2, 2) F(RELAY_RINGBUFFER, stride, 4, 4)

#define BH_CQ_DISPATCH_CMDS(C, F) \
	C(WRITE_LINEAR, 1, 32) \
		F(WRITE_LINEAR, num_mcast_dests, 1, 1) F(WRITE_LINEAR, write_offset_index, 2, 1) \
		F(WRITE_LINEAR, noc_xy_addr, 4, 4) F(WRITE_LINEAR, addr, 8, 8) F(WRITE_LINEAR, length, 16, 8) \
	C(WRITE_LINEAR_H, 2, 32) \
		F(WRITE_LINEAR_H, num_mcast_dests, 1, 1) F(WRITE_LINEAR_H, write_offset_index, 2, 1) \
		F(WRITE_LINEAR_H, noc_xy_addr, 4, 4) F(WRITE_LINEAR_H, addr, 8, 8) F(WRITE_LINEAR_H, length, 16, 8) \
	C(WRITE_LINEAR_H_HOST, 3, 16) \
		F(WRITE_LINEAR_H_HOST, is_event, 1, 1) F(WRITE_LINEAR_H_HOST, length, 8, 8) \
	C(WRITE_PAGED, 4, 16) \
		F(WRITE_PAGED, is_dram, 1, 1) F(WRITE_PAGED, start_page, 2, 2) F(WRITE_PAGED, base_addr, 4, 4) \
		F(WRITE_PAGED, page_size, 8, 4) F(WRITE_PAGED, pages, 12, 4) \
	C(WRITE_PACKED, 5, 16) \
		F(WRITE_PACKED, flags, 1, 1) F(WRITE_PACKED, count, 2, 2) F(WRITE_PACKED, write_offset_index, 4, 2) \
		F(WRITE_PACKED, size, 6, 2) F(WRITE_PACKED, addr, 8, 4) \
	C(WRITE_PACKED_LARGE, 6, 16) \
		F(WRITE_PACKED_LARGE, type, 1, 1) F(WRITE_PACKED_LARGE, count, 2, 2) \
		F(WRITE_PACKED_LARGE, alignment, 4, 2) F(WRITE_PACKED_LARGE, write_offset_index, 6, 2) \
	C(WAIT, 7, 16) \
		F(WAIT, flags, 1, 1) F(WAIT, stream, 2, 2) F(WAIT, addr, 4, 4) F(WAIT, count, 8, 4) \
	C(SINK, 8, 16) \
	C(DEBUG, 9, 16) \
		F(DEBUG, key, 2, 2) F(DEBUG, size, 4, 4) F(DEBUG, stride, 8, 4) \
	C(DELAY, 10, 16) \
		F(DELAY, delay, 4, 4) \
	C(EXEC_BUF_END, 11, 16) \
	C(SET_WRITE_OFFSET, 12, 16) \
		F(SET_WRITE_OFFSET, offset_count, 1, 1) F(SET_WRITE_OFFSET, program_host_id, 2, 2) \
	C(TERMINATE, 13, 16) \
	C(SEND_GO_SIGNAL, 14, 16) \
		F(SEND_GO_SIGNAL, go_signal, 1, 4) F(SEND_GO_SIGNAL, multicast_go_offset, 5, 1) \
		F(SEND_GO_SIGNAL, num_unicast_txns, 6, 1) F(SEND_GO_SIGNAL, noc_data_start_index, 7, 1) \
		F(SEND_GO_SIGNAL, wait_count, 8, 4) F(SEND_GO_SIGNAL, wait_stream, 12, 4) \
	C(NOTIFY_SUBORDINATE_GO_SIGNAL, 15, 16) \
		F(NOTIFY_SUBORDINATE_GO_SIGNAL, wait, 1, 1) F(NOTIFY_SUBORDINATE_GO_SIGNAL, index_bitmask, 2, 2) \
	C(SET_NUM_WORKER_SEMS, 16, 16) \
		F(SET_NUM_WORKER_SEMS, num_worker_sems, 4, 4) \
	C(SET_GO_SIGNAL_NOC_DATA, 17, 16) \
		F(SET_GO_SIGNAL_NOC_DATA, num_words, 4, 4) \
	C(TIMESTAMP, 18, 16) \
		F(TIMESTAMP, noc_xy, 4, 4) F(TIMESTAMP, addr, 8, 8)

/* Sub-commands that follow a command header (ids are table positions, not wire bytes). */
#define BH_CQ_SUB_CMDS(C, F) \
	C(PACKED_UNICAST, 1, 4) \
		F(PACKED_UNICAST, noc_xy, 0, 4) \
	C(PACKED_MCAST, 2, 8) \
		F(PACKED_MCAST, noc_xy, 0, 4) F(PACKED_MCAST, num_mcast_dests, 4, 4) \
	C(PACKED_LARGE, 3, 12) \
		F(PACKED_LARGE, noc_xy_addr, 0, 4) F(PACKED_LARGE, addr, 4, 4) F(PACKED_LARGE, length_minus1, 8, 2) \
		F(PACKED_LARGE, num_mcast_dests, 10, 1) F(PACKED_LARGE, flags, 11, 1) \
	C(PAGED_PACKED, 4, 12) \
		F(PAGED_PACKED, start_page, 0, 2) F(PAGED_PACKED, log_page_size, 2, 2) F(PAGED_PACKED, base_addr, 4, 4) \
		F(PAGED_PACKED, length, 8, 4)

enum bh_cq_fmt { BH_CQ_FMT_PREFETCH, BH_CQ_FMT_DISPATCH, BH_CQ_FMT_SUB, BH_CQ_FMTS };

#define BH_CQ_NOP_C(name, id, size)
#define BH_CQ_NOP_F(cmd, field, off, size)

enum bh_cq_prefetch_id {
#define C(name, id, size) BH_CQP_##name = id,
	BH_CQ_PREFETCH_CMDS(C, BH_CQ_NOP_F)
#undef C
	BH_CQP_COUNT
};

enum bh_cq_dispatch_id {
#define C(name, id, size) BH_CQD_##name = id,
	BH_CQ_DISPATCH_CMDS(C, BH_CQ_NOP_F)
#undef C
	BH_CQD_COUNT
};

enum bh_cq_sub_id {
#define C(name, id, size) BH_CQS_##name = id,
	BH_CQ_SUB_CMDS(C, BH_CQ_NOP_F)
#undef C
	BH_CQS_COUNT
};

/* Every field of every format: BH_CQF_P_<cmd>_<field>, BH_CQF_D_..., BH_CQF_S_... */
enum bh_cq_field_id {
#define F(cmd, field, off, size) BH_CQF_P_##cmd##_##field,
	BH_CQ_PREFETCH_CMDS(BH_CQ_NOP_C, F)
#undef F
#define F(cmd, field, off, size) BH_CQF_D_##cmd##_##field,
	BH_CQ_DISPATCH_CMDS(BH_CQ_NOP_C, F)
#undef F
#define F(cmd, field, off, size) BH_CQF_S_##cmd##_##field,
	BH_CQ_SUB_CMDS(BH_CQ_NOP_C, F)
#undef F
	BH_CQF_COUNT
};

struct bh_cq_field {
	uint8_t fmt;              /* enum bh_cq_fmt */
	uint8_t cmd;              /* command id in that format */
	uint8_t off, size;        /* bytes */
	const char *name;
};

struct bh_cq_cmd {
	const char *name;         /* NULL: no such id */
	uint8_t size;             /* header (or sub-command) bytes */
};

extern const struct bh_cq_field bh_cq_fields[BH_CQF_COUNT];
/* Indexed by id; entry 0 (ILLEGAL) has no name. */
extern const struct bh_cq_cmd bh_cq_prefetch_cmds[BH_CQP_COUNT];
extern const struct bh_cq_cmd bh_cq_dispatch_cmds[BH_CQD_COUNT];
extern const struct bh_cq_cmd bh_cq_sub_cmds[BH_CQS_COUNT];

/* The command `id` of a format, or NULL when the id is unknown (0 included). */
const struct bh_cq_cmd *bh_cq_cmd_find(enum bh_cq_fmt fmt, unsigned id);

/* Little-endian field access. The header must hold the field's bytes. */
static inline uint64_t bh_cq_get(const uint8_t *hdr, enum bh_cq_field_id f)
{
	uint64_t v = 0;
	for (unsigned i = bh_cq_fields[f].size; i-- > 0;)
		v = v << 8 | hdr[bh_cq_fields[f].off + i];
	return v;
}

/* False (nothing written) when v does not fit the field. */
static inline bool bh_cq_put(uint8_t *hdr, enum bh_cq_field_id f, uint64_t v)
{
	unsigned size = bh_cq_fields[f].size;
	if (size < 8 && v >> (8 * size))
		return false;
	for (unsigned i = 0; i < size; i++)
		hdr[bh_cq_fields[f].off + i] = (uint8_t)(v >> (8 * i));
	return true;
}

/* "WRITE_PACKED flags=0x11 count=2 write_offset_index=0 size=0x60 addr=0x70": command `id` of
 * fmt (for commands, hdr[0]) with all its fields, for traces and reports. Returns buf. */
const char *bh_cq_format(enum bh_cq_fmt fmt, unsigned id, const uint8_t *hdr, char *buf, size_t n);

/* Constants of the command set (fast-dispatch.md 4.2). */
enum {
	BH_CQ_PACKED_MCAST = 0x01, BH_CQ_PACKED_NO_STRIDE = 0x02,       /* WRITE_PACKED flags */
	BH_CQ_PACKED_TYPE_SHIFT = 4,
	BH_CQ_PACKED_TYPE_RTA = 1, BH_CQ_PACKED_TYPE_LAUNCH = 2, BH_CQ_PACKED_TYPE_SEMS = 3,
	BH_CQ_PACKED_TYPE_EVENT = 4, BH_CQ_PACKED_TYPE_GO_MSG_INDEX = 5,
	BH_CQ_LARGE_TYPE_CBS_SEMS_CRTAS = 1, BH_CQ_LARGE_TYPE_PROGRAM_BINARIES = 2,
	BH_CQ_LARGE_UNLINK = 0x01,                                     /* PACKED_LARGE sub-command flags */
	BH_CQ_WAIT_BARRIER = 0x01, BH_CQ_WAIT_NOTIFY_PREFETCH = 0x02, BH_CQ_WAIT_MEMORY = 0x04,
	BH_CQ_WAIT_STREAM = 0x08, BH_CQ_WAIT_CLEAR_STREAM = 0x10,
	BH_CQ_PACKED_MAX_UNICAST = 118,           /* PACKED_WRITE_MAX_UNICAST_SUB_CMDS */
	BH_CQ_PACKED_LARGE_MAX = 35,
	BH_CQ_PAGED_PACKED_MAX = 35,
	BH_CQ_GO_NOC_DATA_MAX = 256,
	BH_CQ_WRITE_OFFSETS = 4,
	BH_CQ_MAX_WORKER_SEMS = 8,
	BH_CQ_PAGED_IS_DRAM = 0x8000,             /* RELAY_PAGED is_dram_and_length_adjust */
	BH_CQ_GO_NO_MCAST = 0xFF,                 /* SEND_GO_SIGNAL multicast_go_offset */
	BH_CQ_RUN_MSG_GO = 0x80,                  /* SEND_GO_SIGNAL go_signal bits 31:24 that start kernels */
};

#endif
