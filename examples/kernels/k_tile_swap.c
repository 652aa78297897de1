/* k_tile_swap_trisc0/1/2: a compute kernel that addresses input tiles by index: for each pair of
 * BF16 tiles in CB ct[0] it waits for both, copies tile 1 and then tile 0 of the pair through Dst
 * (copy_tile, pack_tile) into CB ct[1], and pops both. With a CB of an odd number of pages the
 * pairs straddle the CB's end, so tile 1 of such a pair lies at the CB's start.
 *
 * rta[0] number of pairs (the same on the three TRISCs). */
#include "compute_kernel.h"

COMPUTE_DEFINE_STATE;

void kernel_main(void)
{
	const uint32_t cb_in = get_compile_time_arg_val(0), cb_out = get_compile_time_arg_val(1);
	const uint32_t pairs = get_arg_val(0);

	compute_cb_format(cb_in, COMPUTE_FMT_BF16);
	compute_cb_format(cb_out, COMPUTE_FMT_BF16);
	compute_begin(COMPUTE_KERNEL_THREAD);
	init_sfpu(cb_in, cb_out);
	for (uint32_t p = 0; p < pairs; p++) {
		cb_wait_front(cb_in, 2);
		for (uint32_t t = 2; t-- > 0;) {
			tile_regs_acquire();
			copy_tile(cb_in, t, 0);
			compute_commit_and_pack(0, cb_out);
		}
		cb_pop_front(cb_in, 2);
	}
	compute_end();
}
