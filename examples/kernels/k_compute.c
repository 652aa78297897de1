/* k_compute (TRISC1): out = in * A + B + i on u32 words, page by page from one circular buffer to
 * another, i being the page's index within this core's run. There is no Tensix coprocessor yet, so
 * TRISC1 moves the words itself, with the data-movement CB calls (kernel_cb_setup_data_movement).
 *
 * ct[0] page size (bytes, a multiple of 4), ct[1] input CB, ct[2] output CB; rta[0] number of
 * pages; crta[0] multiplier A, crta[1] addend B. */
#include "kernel.h"

void kernel_main(void)
{
	const uint32_t page_words = get_compile_time_arg_val(0) / 4u;
	const uint32_t cb_in = get_compile_time_arg_val(1), cb_out = get_compile_time_arg_val(2);
	const uint32_t num = get_arg_val(0), a = get_common_arg_val(0), b = get_common_arg_val(1);

	kernel_cb_setup_data_movement();
	for (uint32_t i = 0; i < num; i++) {
		cb_wait_front(cb_in, 1);
		cb_reserve_back(cb_out, 1);
		const uint32_t *in = (const uint32_t *)(uintptr_t)get_read_ptr(cb_in);
		uint32_t *out = (uint32_t *)(uintptr_t)get_write_ptr(cb_out);
		for (uint32_t w = 0; w < page_words; w++)
			out[w] = in[w] * a + b + i;
		cb_push_back(cb_out, 1);
		cb_pop_front(cb_in, 1);
	}
}
