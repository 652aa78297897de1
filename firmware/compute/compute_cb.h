/* A unary compute kernel's tile loop over two CBs, for bare-metal multi-core programs that run
 * all five cores of a tile (the reader and writer on BRISC and NCRISC, compute.h on the TRISCs),
 * as tt-metal's unary kernels (add1 and the like) are written. */
#ifndef BHEMU_COMPUTE_CB_H
#define BHEMU_COMPUTE_CB_H

#include <stdint.h>

#include "cb.h"
#include "compute.h"

/* CB cb's config block (sync.md 3.1) in cfg: a FIFO at mem of `pages` pages of `page` bytes. */
static inline void cb_config_set(volatile uint32_t *cfg, unsigned cb, const void *mem, uint32_t pages, uint32_t page)
{
	cfg[cb * 4 + 0] = (uint32_t)(uintptr_t)mem;
	cfg[cb * 4 + 1] = pages * page;
	cfg[cb * 4 + 2] = pages;
	cfg[cb * 4 + 3] = page;
}

/* The kernel's start on TRISC `role`: its side of the CB interface from cfg (TRISC0 icb's,
 * TRISC2 ocb's), both CBs as BF16, compute_begin and the unary set-up (init_sfpu, copy_tile). */
static inline void compute_unary_cb_begin(enum compute_thread role, const volatile uint32_t *cfg, unsigned icb,
					  unsigned ocb)
{
	if (role == COMPUTE_UNPACK)
		cb_interface_setup_unpacker(cfg, 1u << icb);
	else if (role == COMPUTE_PACK)
		cb_interface_setup_packer(cfg, 1u << ocb);
	compute_cb_setup(icb, 0, COMPUTE_FMT_BF16);
	compute_cb_setup(ocb, 0, COMPUTE_FMT_BF16);
	compute_begin(role);
	unary_op_init_common(icb, ocb);
}

/* The CB calls of the compute side: TRISC0 waits for pages and frees them, TRISC2 waits for room
 * and publishes pages. compute_cb_llk holds the ones tt-llk's kernels make (cb.h); a program that
 * means to show another way passes its own. */
struct compute_cb_calls {
	void (*wait_front)(uint32_t cb, uint32_t n);
	void (*pop_front)(uint32_t cb, uint32_t n);
	void (*reserve_back)(uint32_t cb, uint32_t n);
	void (*push_back)(uint32_t cb, uint32_t n);
};
static const struct compute_cb_calls compute_cb_llk = {
	cb_wait_front_unpacker, cb_pop_front_unpacker, cb_reserve_back_packer, cb_push_back_packer,
};

/* One tile, on whichever TRISC runs it: TRISC0 waits for icb's front page, unpacks it and frees it;
 * TRISC1 moves it into Dst 0 and computes with math(0) (copy_tile first, then its operations);
 * TRISC2 waits for room in ocb, packs Dst 0 into it (BF16 from Dst rows of 16 bits) and publishes
 * it. The CB calls are cb's. */
static inline void compute_unary_cb_tile(unsigned icb, unsigned ocb, void (*math)(unsigned idst),
					 const struct compute_cb_calls *cb)
{
	if (compute_role == COMPUTE_UNPACK) {
		cb->wait_front(icb, 1);
		compute_unpack_tile_at(0, get_read_ptr_unpacker(icb));
		cb->pop_front(icb, 1);
	}
	tile_regs_acquire();
	if (compute_role == COMPUTE_MATH)
		math(0);
	tile_regs_commit();
	if (compute_role == COMPUTE_PACK)
		cb->reserve_back(ocb, 1);
	tile_regs_wait();
	if (compute_role == COMPUTE_PACK)
		compute_pack_tile_at(0, get_write_ptr_packer(ocb), true);
	tile_regs_release();
	if (compute_role == COMPUTE_PACK)
		cb->push_back(ocb, 1);
}

#endif
