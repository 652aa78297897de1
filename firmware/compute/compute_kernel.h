/* Compute kernels of the reference firmware (firmware/kernel/ABI.md) with the compute library
 * (compute.h), as tt-metal writes them: one source built once per TRISC (bhemu_kernel() with
 * PROCESSOR trisc0, trisc1 and trisc2), every call doing its own thread's part.
 *
 * The CB calls take tt-metal's compute-kernel meaning here, which differs from the data-movement
 * one of cb.h: cb_wait_front and cb_pop_front act on TRISC0 only (the unpacker side, which the
 * firmware set up for this launch: cb_wait_front_unpacker, cb_pop_front_unpacker, whose count
 * reaches the stream register through the Tensix thread once the unpackers are idle), and
 * cb_reserve_back and cb_push_back on TRISC2 only (the packer side: cb_reserve_back_packer,
 * cb_push_back_packer, published once the packer is idle). Elsewhere they do nothing, as in
 * tt-metal. Tile indices of copy_tile, add_tiles, matmul_tiles, ... count from the CB's read
 * pointer and those of pack_tile from its write pointer (compute_cb_tile_addr).
 *
 * A kernel expands COMPUTE_DEFINE_STATE once, states its CBs' formats with compute_cb_format
 * (pages are whole tiles: the CB's page size must be compute_tile_bytes of the format) and calls
 * compute_begin(COMPUTE_KERNEL_THREAD) before any other compute call. */
#ifndef BHEMU_COMPUTE_KERNEL_H
#define BHEMU_COMPUTE_KERNEL_H

#include "kernel.h"

#include "compute.h"

#if KERNEL_PROCESSOR < 2
#error "compute kernels run on TRISC0-2"
#endif

/* name(cb, n) does impl(cb, n) on TRISC `proc` (KERNEL_PROCESSOR) and nothing on the others. */
#define COMPUTE_CB_CALL(name, proc, impl) \
	static inline void name(uint32_t cb, uint32_t n) \
	{ \
		if (KERNEL_PROCESSOR == (proc)) \
			impl(cb, n); \
	}

COMPUTE_CB_CALL(compute_cb_wait_front, 2, cb_wait_front_unpacker)
COMPUTE_CB_CALL(compute_cb_pop_front, 2, cb_pop_front_unpacker)
COMPUTE_CB_CALL(compute_cb_reserve_back, 4, cb_reserve_back_packer)
COMPUTE_CB_CALL(compute_cb_push_back, 4, cb_push_back_packer)

/* tt-metal's names for the compute flavour (the data-movement functions of cb.h keep theirs
 * under these macros' names only in this kernel). */
#define cb_wait_front compute_cb_wait_front
#define cb_pop_front compute_cb_pop_front
#define cb_reserve_back compute_cb_reserve_back
#define cb_push_back compute_cb_push_back

/* The usual end of a tile's math and its packing: math hands Dst tile idst over
 * (tile_regs_commit); pack reserves a page of ocb, packs the tile into it once Dst is handed
 * over, gives Dst back (tile_regs_release) and pushes the page. */
static inline void compute_commit_and_pack(unsigned idst, unsigned ocb)
{
	tile_regs_commit();
	cb_reserve_back(ocb, 1);
	tile_regs_wait();
	pack_tile(idst, ocb, 0);
	tile_regs_release();
	cb_push_back(ocb, 1);
}

#endif
