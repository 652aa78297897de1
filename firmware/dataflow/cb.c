/* Circular-buffer interface set-up (sync.md section 3) and the per-core interface table. The
 * per-call API is inline in cb.h, so a program can override CB_FIRST_STREAM; nothing here
 * depends on it. */
#include "cb.h"

#include "multicore.h"

/* Per core: each core's local data RAM holds its own copy. */
BARE_LDM struct cb_interface cb_interface[CB_NUM];

/* Words of one CB's slot in the L1 config block (sync.md 3.1). */
enum { CFG_ADDR, CFG_SIZE, CFG_NUM_PAGES, CFG_PAGE_SIZE, CFG_WORDS };

void cb_interface_setup(const volatile uint32_t *config, uint32_t mask)
{
	for (uint32_t cb = 0; cb < CB_NUM; cb++) {
		if (!(mask & (1u << cb)))
			continue;
		const volatile uint32_t *slot = config + cb * CFG_WORDS;
		struct cb_interface *ci = &cb_interface[cb];
		uint32_t addr = slot[CFG_ADDR];
		ci->fifo_size = slot[CFG_SIZE];
		ci->fifo_limit = addr + slot[CFG_SIZE];
		ci->fifo_page_size = slot[CFG_PAGE_SIZE];
		ci->fifo_num_pages = slot[CFG_NUM_PAGES];
		ci->fifo_rd_ptr = addr;
		ci->fifo_wr_ptr = addr;
		ci->tiles_acked_received_init = 0;
	}
}

void cb_interface_setup_unpacker(const volatile uint32_t *config, uint32_t mask)
{
	for (uint32_t cb = 0; cb < CB_NUM; cb++) {
		if (!(mask & (1u << cb)))
			continue;
		const volatile uint32_t *slot = config + cb * CFG_WORDS;
		struct cb_interface *ci = &cb_interface[cb];
		uint32_t addr = slot[CFG_ADDR] >> CB_COMPUTE_ADDR_SHIFT;
		uint32_t size = slot[CFG_SIZE] >> CB_COMPUTE_ADDR_SHIFT;
		ci->fifo_size = size;
		ci->fifo_limit = addr + size;
		ci->fifo_page_size = slot[CFG_PAGE_SIZE] >> CB_COMPUTE_ADDR_SHIFT;
		ci->fifo_rd_ptr = addr;
		ci->tiles_acked_received_init = 0;
	}
}

void cb_interface_setup_packer(const volatile uint32_t *config, uint32_t mask)
{
	for (uint32_t cb = 0; cb < CB_NUM; cb++) {
		if (!(mask & (1u << cb)))
			continue;
		const volatile uint32_t *slot = config + cb * CFG_WORDS;
		struct cb_interface *ci = &cb_interface[cb];
		uint32_t addr = slot[CFG_ADDR] >> CB_COMPUTE_ADDR_SHIFT;
		uint32_t size = slot[CFG_SIZE] >> CB_COMPUTE_ADDR_SHIFT;
		ci->fifo_size = size;
		ci->fifo_limit = addr + size;
		ci->fifo_page_size = slot[CFG_PAGE_SIZE] >> CB_COMPUTE_ADDR_SHIFT;
		ci->fifo_num_pages = slot[CFG_NUM_PAGES];
		ci->fifo_wr_ptr = addr;
		ci->tiles_acked_received_init = 0;
		ci->fifo_wr_tile_ptr = 0;
	}
}
