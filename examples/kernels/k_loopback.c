/* k_loopback (BRISC): copies pages of one interleaved DRAM buffer to the same pages of another,
 * through an L1 buffer, one page at a time.
 *
 * rta[0] source buffer base, [1] destination buffer base, [2] page size (bytes), [3] first page,
 * [4] number of pages, [5] L1 buffer address (64-byte aligned, page-size bytes). */
#include "kernel.h"

void kernel_main(void)
{
	const struct interleaved_addr_gen src = { .bank_base_address = get_arg_val(0), .page_size = get_arg_val(2),
						  .is_dram = true };
	const struct interleaved_addr_gen dst = { .bank_base_address = get_arg_val(1), .page_size = get_arg_val(2),
						  .is_dram = true };
	const uint32_t first = get_arg_val(3), num = get_arg_val(4), buf = get_arg_val(5);

	for (uint32_t p = first; p < first + num; p++) {
		noc_async_read_page(p, &src, buf);
		noc_async_read_barrier();
		noc_async_write_page(p, &dst, buf);
		noc_async_write_barrier();	/* buf is reused for the next page */
	}
}
