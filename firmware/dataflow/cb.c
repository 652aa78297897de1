/* Circular-buffer interface set-up (sync.md section 3). The per-call API is inline in cb.h, so a
 * program can override CB_FIRST_STREAM; nothing here depends on it. The interface table itself
 * is in cb_state.c (a kernel links these functions and uses the firmware's table). */
#include "cb.h"

/* Words of one CB's slot in the L1 config block (sync.md 3.1). */
enum { CFG_ADDR, CFG_SIZE, CFG_NUM_PAGES, CFG_PAGE_SIZE, CFG_WORDS };

/* Which firmware's set-up to follow: each fills only the fields its side uses. */
enum cb_side { CB_SIDE_DATA_MOVEMENT, CB_SIDE_UNPACKER, CB_SIDE_PACKER };

static void cb_interface_setup_side(const volatile uint32_t *config, uint32_t mask, enum cb_side side)
{
	/* Data-movement cores count in bytes, the TRISCs in 16-byte units. */
	const unsigned shift = side == CB_SIDE_DATA_MOVEMENT ? 0 : CB_COMPUTE_ADDR_SHIFT;

	for (uint32_t cb = 0; cb < CB_NUM; cb++) {
		if (!(mask & (1u << cb)))
			continue;
		const volatile uint32_t *slot = config + cb * CFG_WORDS;
		struct cb_interface *ci = &cb_interface[cb];
		uint32_t addr = slot[CFG_ADDR] >> shift;
		uint32_t size = slot[CFG_SIZE] >> shift;
		ci->fifo_size = size;
		ci->fifo_limit = addr + size;
		ci->fifo_page_size = slot[CFG_PAGE_SIZE] >> shift;
		ci->tiles_acked_received_init = 0;
		switch (side) {
		case CB_SIDE_DATA_MOVEMENT:
			ci->fifo_num_pages = slot[CFG_NUM_PAGES];
			ci->fifo_rd_ptr = addr;
			ci->fifo_wr_ptr = addr;
			break;
		case CB_SIDE_UNPACKER:
			ci->fifo_rd_ptr = addr;
			break;
		case CB_SIDE_PACKER:
			ci->fifo_num_pages = slot[CFG_NUM_PAGES];
			ci->fifo_wr_ptr = addr;
			ci->fifo_wr_tile_ptr = 0;
			break;
		}
	}
}

/* Kernels: nothing to tell, the launch that wrote the config block told the emulator. MULTICORE
 * programs (cb_state.c) tell `bhemu run` through a host call. */
__attribute__((weak)) void cb_config_announce(const volatile uint32_t *config, uint32_t mask)
{
	(void)config;
	(void)mask;
}

void cb_interface_setup(const volatile uint32_t *config, uint32_t mask)
{
	cb_interface_setup_side(config, mask, CB_SIDE_DATA_MOVEMENT);
	cb_config_announce(config, mask);
}

void cb_interface_setup_unpacker(const volatile uint32_t *config, uint32_t mask)
{
	cb_interface_setup_side(config, mask, CB_SIDE_UNPACKER);
	cb_config_announce(config, mask);
}

void cb_interface_setup_packer(const volatile uint32_t *config, uint32_t mask)
{
	cb_interface_setup_side(config, mask, CB_SIDE_PACKER);
	cb_config_announce(config, mask);
}
