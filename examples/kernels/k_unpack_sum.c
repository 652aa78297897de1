/* k_unpack_sum (TRISC0): the unpacker side of a CB as tt-metal's compute API drives it: waits for
 * pages against its private tiles_acked, reads them, and frees them with cb_pop_front_unpacker,
 * whose new count reaches stream register 8 through the Tensix thread (SETDMAREG, STALLWAIT,
 * STOREREG). Writes the sum of every word and the page count to L1.
 *
 * rta[0] CB index, [1] pages, [2] L1 output address (u32 sum, u32 pages). */
#include "kernel.h"

void kernel_main(void)
{
	const uint32_t cb = get_arg_val(0), pages = get_arg_val(1);
	volatile uint32_t *out = (volatile uint32_t *)(uintptr_t)get_arg_val(2);
	const uint32_t words = (get_local_cb_interface(cb)->fifo_page_size << CB_COMPUTE_ADDR_SHIFT) / 4;
	uint32_t sum = 0, p;

	for (p = 0; p < pages; p++) {
		cb_wait_front_unpacker(cb, 1);
		const volatile uint32_t *w = (const volatile uint32_t *)(uintptr_t)get_read_ptr_unpacker(cb);
		for (uint32_t i = 0; i < words; i++)
			sum += w[i];
		cb_pop_front_unpacker(cb, 1);
	}
	out[0] = sum;
	out[1] = p;
}
