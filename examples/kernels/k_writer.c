/* k_writer (BRISC): writes pages from a circular buffer to an interleaved DRAM buffer, the consumer
 * end of the k_reader -> k_mul_add -> k_writer pipeline.
 *
 * ct[0] page size (bytes), ct[1] CB index; rta[0] destination buffer base, [1] first page,
 * [2] number of pages. */
#include "kernel.h"

void kernel_main(void)
{
	const uint32_t page_size = get_compile_time_arg_val(0), cb = get_compile_time_arg_val(1);
	const struct interleaved_addr_gen dst = { .bank_base_address = get_arg_val(0), .page_size = page_size,
						  .is_dram = true };
	const uint32_t first = get_arg_val(1), num = get_arg_val(2);

	for (uint32_t p = first; p < first + num; p++) {
		cb_wait_front(cb, 1);
		noc_async_write_page(p, &dst, get_read_ptr(cb));
		noc_async_write_barrier();	/* the page is free only once it has left */
		cb_pop_front(cb, 1);
	}
}
