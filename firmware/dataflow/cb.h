/* Circular buffers (CBs) for bhemu guest programs, with tt-metal's kernel API names.
 *
 * A CB is a FIFO of pages in L1 plus two shared 17-bit counters in the CB's overlay stream
 * (sync.md section 2): tiles_received (stream reg 10, bumped by the producer) and tiles_acked
 * (stream reg 8, bumped by the consumer). Both sides use them as free-running 16-bit counts:
 * pages ready = (u16)(received - acked), free pages = num_pages - that. Each core keeps its
 * own read/write pointers in a struct cb_interface (LocalCBInterface, sync.md 3.2), one per CB,
 * in that core's private local RAM (BARE_LDM).
 *
 * Three flavours, each with the exact stream-register traffic of the real firmware:
 *  - data-movement cores (BRISC, NCRISC; pointers in bytes), sync.md 2.1:
 *      cb_interface_setup, cb_reserve_back, cb_push_back, cb_wait_front, cb_pop_front,
 *      get_write_ptr, get_read_ptr;
 *  - TRISC0 "unpacker" side (consumer, 16-byte units), sync.md 2.2:
 *      cb_interface_setup_unpacker, cb_wait_front_unpacker, cb_pop_front_unpacker,
 *      cb_pop_front_unpacker_nocp, get_read_ptr_unpacker (returns bytes);
 *  - TRISC2 "packer" side (producer, 16-byte units), sync.md 2.2:
 *      cb_interface_setup_packer, cb_reserve_back_packer, cb_push_back_packer,
 *      cb_push_back_packer_nocp, get_write_ptr_packer (returns bytes).
 * Plus get_local_cb_interface and cb_counters_reset (zero the counters, as TRISC0 firmware does).
 * For MULTICORE programs (cmake/BhemuGuest.cmake): they link cb.c and cb_state.c (the per-core table);
 * kernels (firmware/kernel/) link cb.c only and use the firmware's table.
 *
 * Compute-side publishing: cb_pop_front_unpacker and cb_push_back_packer publish the new 16-bit
 * count as tt-metal's compute API does, through the core's Tensix thread: SETDMAREG writes it
 * into the low half of a GPR, STALLWAIT holds the scalar unit until the unpackers (packer) are
 * idle, STOREREG writes the GPR to the stream register. The *_nocp variants store the same count
 * with a plain `sw`, at once: right for programs whose TRISCs move data with their own loads and
 * stores.
 *
 * Nothing here may be used from two cores for the same side of a CB: one producer, one consumer
 * (the counters are updated by read-modify-write). Any core can use the data-movement flavour
 * (bhemu's TRISCs can reach the streams too), which is how programs without a coprocessor move
 * pages through TRISCs. */
#ifndef BHEMU_DATAFLOW_CB_H
#define BHEMU_DATAFLOW_CB_H

#include <stdint.h>

#include "tensix.h"

/* First overlay stream used for CB counters: CB n uses stream CB_FIRST_STREAM + n. p100a
 * firmware: 8 (streams 8..39); newer tt-metal builds: 0. */
#ifndef CB_FIRST_STREAM
#define CB_FIRST_STREAM 8u
#endif
/* CBs per tile and width of the CB mask (p100a: 32, a u32 mask). */
#define CB_NUM 32

#define CB_STREAM_REG_BASE	0xFFB40000u
#define CB_STREAM_STRIDE	0x1000u
#define CB_REG_TILES_ACKED	8	/* REMOTE_DEST_BUF_START, used as tiles_acked */
#define CB_REG_TILES_RECEIVED	10	/* REMOTE_DEST_BUF_SIZE, used as tiles_received */

/* Compiler-only barrier: keeps the page accesses of the program on their side of the counter
 * accesses (volatile orders only volatile accesses). Emits no instruction, so the register
 * traffic stays exactly that of the firmware. */
#define CB_COMPILER_BARRIER() __asm__ volatile("" ::: "memory")

/* Compute cores count addresses and sizes in 16-byte units. */
#define CB_COMPUTE_ADDR_SHIFT	4

/* LocalCBInterface of the p100a firmware (sync.md 3.2), 32 bytes. Units: bytes on data-movement
 * cores, 16-byte units on TRISCs (fifo_num_pages is always a page count). */
struct cb_interface {
	uint32_t fifo_size;
	uint32_t fifo_limit;		/* fifo start + fifo_size */
	uint32_t fifo_page_size;
	uint32_t fifo_num_pages;
	uint32_t fifo_rd_ptr;
	uint32_t fifo_wr_ptr;
	union {
		uint32_t tiles_acked_received_init;
		struct {
			uint16_t tiles_acked;		/* TRISC0's private shadow of reg 8 */
			uint16_t tiles_received;	/* TRISC2's private shadow of reg 10 */
		};
	};
	uint32_t fifo_wr_tile_ptr;
};
_Static_assert(sizeof(struct cb_interface) == 32, "LocalCBInterface is 32 bytes");

/* One per CB, private to each core (local data RAM). */
extern struct cb_interface cb_interface[CB_NUM];

static inline struct cb_interface *get_local_cb_interface(uint32_t cb)
{
	return &cb_interface[cb];
}

/* The stream register r of CB cb's counter stream. Every access is one 32-bit MMIO access. */
static inline volatile uint32_t *cb_stream_reg(uint32_t cb, uint32_t reg)
{
	return (volatile uint32_t *)(uintptr_t)(CB_STREAM_REG_BASE + (CB_FIRST_STREAM + cb) * CB_STREAM_STRIDE +
						reg * 4);
}

/* ---- Set-up (sync.md 3.1/3.2) -----------------------------------------------------------------
 * config: the L1 CB config block, 4 words per CB index (fifo start address, fifo size in bytes,
 * number of pages, page size in bytes), one 16-byte slot per index whether used or not.
 * Only the CBs whose bit is set in mask are set up; each fills exactly the fields its side's
 * firmware fills, with tiles_acked/received = 0. */

/* BRISC/NCRISC: bytes; size, limit, page size, num pages, rd_ptr = wr_ptr = start. */
void cb_interface_setup(const volatile uint32_t *config, uint32_t mask);
/* TRISC0: 16-byte units; size, limit, page size, rd_ptr (not num_pages, not wr_ptr). */
void cb_interface_setup_unpacker(const volatile uint32_t *config, uint32_t mask);
/* TRISC2: 16-byte units; size, limit, page size, num_pages, wr_ptr, wr_tile_ptr = 0 (not rd_ptr). */
void cb_interface_setup_packer(const volatile uint32_t *config, uint32_t mask);

/* After each set-up: tells the emulator the config of the CBs in mask, as a launch does for
 * kernels (there: nothing to do). MULTICORE programs (cb_state.c) use `bhemu run`'s cb_config
 * host call (ecall a7 = 0xCB0, a0 = config, a1 = mask), so that its CB checks know each CB's
 * pages (overfill) and FIFO (page ownership). */
void cb_config_announce(const volatile uint32_t *config, uint32_t mask);

/* Writes 0 to tiles_received (reg 10) then tiles_acked (reg 8) of every CB in mask, as TRISC0
 * firmware does between runs. Only while no core uses those CBs. */
static inline void cb_counters_reset(uint32_t mask)
{
	for (uint32_t cb = 0; cb < CB_NUM; cb++) {
		if (!(mask & (1u << cb)))
			continue;
		*cb_stream_reg(cb, CB_REG_TILES_RECEIVED) = 0;
		*cb_stream_reg(cb, CB_REG_TILES_ACKED) = 0;
	}
}

/* Advances a FIFO pointer by n pages, wrapping once at the limit (both sides, both units). */
static inline uint32_t cb_ptr_advance(const struct cb_interface *ci, uint32_t ptr, uint32_t n)
{
	ptr += n * ci->fifo_page_size;
	if (ptr >= ci->fifo_limit)
		ptr -= ci->fifo_size;
	return ptr;
}

/* ---- The two wait loops, shared by every flavour ---------------------------------------------- */

/* Producer side: polls tiles_acked until n of the CB's pages are free, given the producer's
 * tiles_received count. fenced: a fence before each poll (data-movement firmware has one). */
static inline void cb_wait_free(uint32_t cb, uint16_t received, uint32_t n, int fenced)
{
	const struct cb_interface *ci = &cb_interface[cb];
	volatile uint32_t *acked = cb_stream_reg(cb, CB_REG_TILES_ACKED);
	uint16_t free_pages;

	do {
		if (fenced)
			__asm__ volatile("fence" ::: "memory");
		uint16_t a = (uint16_t)*acked;
		free_pages = (uint16_t)(ci->fifo_num_pages - (uint16_t)(received - a));
	} while (free_pages < n);
	CB_COMPILER_BARRIER();
}

/* Consumer side: polls tiles_received until n pages are ready, given the consumer's
 * tiles_acked count. */
static inline void cb_wait_ready(uint32_t cb, uint16_t acked, uint32_t n)
{
	volatile uint32_t *received = cb_stream_reg(cb, CB_REG_TILES_RECEIVED);

	while ((uint16_t)((uint16_t)*received - acked) < n)
		;
	CB_COMPILER_BARRIER();
}

/* ---- Data-movement cores (sync.md 2.1) -------------------------------------------------------- */

/* Waits until n pages are free. Reads tiles_received once, then polls tiles_acked behind a fence. */
static inline void cb_reserve_back(uint32_t cb, uint32_t n)
{
	cb_wait_free(cb, (uint16_t)*cb_stream_reg(cb, CB_REG_TILES_RECEIVED), n, 1);
}

/* Publishes n written pages: tiles_received += n (read-modify-write; single producer), then
 * moves the write pointer on. */
static inline void cb_push_back(uint32_t cb, uint32_t n)
{
	struct cb_interface *ci = &cb_interface[cb];
	volatile uint32_t *received = cb_stream_reg(cb, CB_REG_TILES_RECEIVED);

	CB_COMPILER_BARRIER();
	*received = *received + n;
	ci->fifo_wr_ptr = cb_ptr_advance(ci, ci->fifo_wr_ptr, n);
}

/* Waits until n pages are ready. Reads tiles_acked once, then polls tiles_received. */
static inline void cb_wait_front(uint32_t cb, uint32_t n)
{
	cb_wait_ready(cb, (uint16_t)*cb_stream_reg(cb, CB_REG_TILES_ACKED), n);
}

/* Frees n read pages: tiles_acked += n (read-modify-write; single consumer), then moves the
 * read pointer on. */
static inline void cb_pop_front(uint32_t cb, uint32_t n)
{
	struct cb_interface *ci = &cb_interface[cb];
	volatile uint32_t *acked = cb_stream_reg(cb, CB_REG_TILES_ACKED);

	CB_COMPILER_BARRIER();
	*acked = *acked + n;
	ci->fifo_rd_ptr = cb_ptr_advance(ci, ci->fifo_rd_ptr, n);
}

/* L1 byte address of the next page to write / read. */
static inline uint32_t get_write_ptr(uint32_t cb)
{
	return cb_interface[cb].fifo_wr_ptr;
}

static inline uint32_t get_read_ptr(uint32_t cb)
{
	return cb_interface[cb].fifo_rd_ptr;
}

/* ---- TRISC0, consumer side (sync.md 2.2; llk_wait_tiles / llk_pop_tiles) --------------------- */

/* Waits until n pages are ready: polls tiles_received against the private tiles_acked shadow. */
static inline void cb_wait_front_unpacker(uint32_t cb, uint32_t n)
{
	cb_wait_ready(cb, cb_interface[cb].tiles_acked, n);
}

/* Frees n pages: shadow tiles_acked += n, published as a 16-bit value to reg 8 with a plain
 * store (hardware: STOREREG after the unpackers are idle; see NO COPROCESSOR above), then the
 * read pointer (16-byte units) moves on. */
static inline void cb_pop_front_unpacker_nocp(uint32_t cb, uint32_t n)
{
	struct cb_interface *ci = &cb_interface[cb];

	CB_COMPILER_BARRIER();
	ci->tiles_acked = (uint16_t)(ci->tiles_acked + n);
	*cb_stream_reg(cb, CB_REG_TILES_ACKED) = ci->tiles_acked;
	ci->fifo_rd_ptr = cb_ptr_advance(ci, ci->fifo_rd_ptr, n);
}

/* ---- Publishing through the Tensix thread (sync.md 2.2) --------------------------------------
 * SETDMAREG and STOREREG carry run-time values: pushed with a store to the push window
 * (tt_push, tensix.h), as tt-metal builds them. STALLWAIT is a constant: a .ttinsn word. */
#define CB_GPR_TILES_ACKED	4u	/* TRISC0 publishes tiles_acked from GPR 4 */
#define CB_GPR_TILES_RECEIVED	24u	/* TRISC2 publishes tiles_received from GPR 24 */
/* STALLWAIT block B5 (scalar unit) until C1|C2 (unpackers idle) / C3 (packer idle). */
#define CB_TT_STALL_UNPACKERS_WORD	".word 0x8840001A"	/* rotl(0xA2100006, 2): ttstallwait 32,6 */
#define CB_TT_STALL_PACKER_WORD		".word 0x88400022"	/* rotl(0xA2100008, 2): ttstallwait 32,8 */

/* Publishes count to stream register reg of cb from GPR gpr, after the stall in `stall`. */
#define CB_PUBLISH_THROUGH_TENSIX(cb, reg, gpr, count, stall) do { \
		tt_push(TT_SETDMAREG_LO(gpr, count)); \
		__asm__ volatile(stall ::: "memory"); \
		tt_push(TT_STOREREG(gpr, (uint32_t)(uintptr_t)cb_stream_reg(cb, reg))); \
	} while (0)

/* Frees n pages like llk_pop_tiles: shadow tiles_acked += n, published to reg 8 by the Tensix
 * thread once the unpackers are idle; the read pointer (16-byte units) moves on. */
static inline void cb_pop_front_unpacker(uint32_t cb, uint32_t n)
{
	struct cb_interface *ci = &cb_interface[cb];

	CB_COMPILER_BARRIER();
	ci->tiles_acked = (uint16_t)(ci->tiles_acked + n);
	CB_PUBLISH_THROUGH_TENSIX(cb, CB_REG_TILES_ACKED, CB_GPR_TILES_ACKED, ci->tiles_acked,
				  CB_TT_STALL_UNPACKERS_WORD);
	ci->fifo_rd_ptr = cb_ptr_advance(ci, ci->fifo_rd_ptr, n);
}

/* L1 byte address of the next page to read (the interface holds 16-byte units). */
static inline uint32_t get_read_ptr_unpacker(uint32_t cb)
{
	return cb_interface[cb].fifo_rd_ptr << CB_COMPUTE_ADDR_SHIFT;
}

/* ---- TRISC2, producer side (sync.md 2.2; llk_wait_for_free_tiles / llk_push_tiles) ----------- */

/* Waits until n pages are free: tiles_received from the private shadow (the register may lag
 * the packer on hardware), polls tiles_acked (no fence). */
static inline void cb_reserve_back_packer(uint32_t cb, uint32_t n)
{
	cb_wait_free(cb, cb_interface[cb].tiles_received, n, 0);
}

/* Publishes n pages: the write pointer (16-byte units) moves on, shadow tiles_received += n,
 * published as a 16-bit value to reg 10 with a plain store (hardware: STOREREG after the packer
 * is idle; see NO COPROCESSOR above). */
static inline void cb_push_back_packer_nocp(uint32_t cb, uint32_t n)
{
	struct cb_interface *ci = &cb_interface[cb];

	CB_COMPILER_BARRIER();
	ci->fifo_wr_ptr = cb_ptr_advance(ci, ci->fifo_wr_ptr, n);
	ci->tiles_received = (uint16_t)(ci->tiles_received + n);
	*cb_stream_reg(cb, CB_REG_TILES_RECEIVED) = ci->tiles_received;
}

/* Publishes n pages like llk_push_tiles: the write pointer moves on, shadow tiles_received += n,
 * published to reg 10 by the Tensix thread once the packer is idle. */
static inline void cb_push_back_packer(uint32_t cb, uint32_t n)
{
	struct cb_interface *ci = &cb_interface[cb];

	CB_COMPILER_BARRIER();
	ci->fifo_wr_ptr = cb_ptr_advance(ci, ci->fifo_wr_ptr, n);
	ci->tiles_received = (uint16_t)(ci->tiles_received + n);
	CB_PUBLISH_THROUGH_TENSIX(cb, CB_REG_TILES_RECEIVED, CB_GPR_TILES_RECEIVED, ci->tiles_received,
				  CB_TT_STALL_PACKER_WORD);
}

/* L1 byte address of the next page to write (the interface holds 16-byte units). */
static inline uint32_t get_write_ptr_packer(uint32_t cb)
{
	return cb_interface[cb].fifo_wr_ptr << CB_COMPUTE_ADDR_SHIFT;
}

#endif
