/* k_cb_check (NCRISC): the data-movement consumer of the compute-side CB test. Checks that word i
 * of page p is seed + 1000 * p + i and counts the words that are not.
 *
 * rta[0] CB index, [1] pages, [2] seed, [3] L1 output address (u32 wrong words, u32 pages). */
#include "kernel.h"

void kernel_main(void)
{
	const uint32_t cb = get_arg_val(0), pages = get_arg_val(1), seed = get_arg_val(2);
	volatile uint32_t *out = (volatile uint32_t *)(uintptr_t)get_arg_val(3);
	const uint32_t words = get_local_cb_interface(cb)->fifo_page_size / 4;
	uint32_t wrong = 0, p;

	for (p = 0; p < pages; p++) {
		cb_wait_front(cb, 1);
		const volatile uint32_t *w = (const volatile uint32_t *)(uintptr_t)get_read_ptr(cb);
		for (uint32_t i = 0; i < words; i++)
			wrong += w[i] != seed + 1000 * p + i;
		cb_pop_front(cb, 1);
	}
	out[0] = wrong;
	out[1] = p;
}
