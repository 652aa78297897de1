/* k_cb_fill (BRISC): the data-movement producer of the compute-side CB test. Pushes pages into a
 * CB, word i of page p holding seed + 1000 * p + i.
 *
 * rta[0] CB index, [1] pages, [2] seed. */
#include "kernel.h"

void kernel_main(void)
{
	const uint32_t cb = get_arg_val(0), pages = get_arg_val(1), seed = get_arg_val(2);
	const uint32_t words = get_local_cb_interface(cb)->fifo_page_size / 4;

	for (uint32_t p = 0; p < pages; p++) {
		cb_reserve_back(cb, 1);
		volatile uint32_t *w = (volatile uint32_t *)(uintptr_t)get_write_ptr(cb);
		for (uint32_t i = 0; i < words; i++)
			w[i] = seed + 1000 * p + i;
		cb_push_back(cb, 1);
	}
}
