/* k_pack_fill (TRISC2): the packer side of a CB as tt-metal's compute API drives it: reserves
 * against its private tiles_received, writes the page, and publishes it with cb_push_back_packer
 * (stream register 10 written by the Tensix thread's STOREREG). Word i of page p holds
 * seed + 1000 * p + i.
 *
 * rta[0] CB index, [1] pages, [2] seed. */
#include "kernel.h"

void kernel_main(void)
{
	const uint32_t cb = get_arg_val(0), pages = get_arg_val(1), seed = get_arg_val(2);
	const uint32_t words = (get_local_cb_interface(cb)->fifo_page_size << CB_COMPUTE_ADDR_SHIFT) / 4;

	for (uint32_t p = 0; p < pages; p++) {
		cb_reserve_back_packer(cb, 1);
		volatile uint32_t *w = (volatile uint32_t *)(uintptr_t)get_write_ptr_packer(cb);
		for (uint32_t i = 0; i < words; i++)
			w[i] = seed + 1000 * p + i;
		cb_push_back_packer(cb, 1);
	}
}
