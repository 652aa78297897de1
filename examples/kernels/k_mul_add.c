/* k_mul_add_trisc0/1/2: a Tensix compute kernel, one source built for the three TRISCs as tt-metal
 * builds one: out = x * A + B on the BF16 datums of each tile, tile by tile from one circular
 * buffer to another. TRISC0 waits for an input page, unpacks it (copy_tile: SrcA) and frees it;
 * TRISC1 moves it into Dst and runs two SFPU operations on it (mul_unary_tile, add_unary_tile:
 * each computed in FP32 and rounded to BF16, to nearest with ties away from zero); TRISC2 reserves
 * an output page, packs Dst into it and pushes it. Dst passes from math to pack by
 * tile_regs_commit/wait, back by tile_regs_release.
 *
 * ct[0] input CB, ct[1] output CB (pages of one BF16 tile, 2048 bytes); rta[0] number of tiles
 * (the same on the three TRISCs); crta[0] A, crta[1] B (FP32 bits). */
#include "compute_kernel.h"

COMPUTE_DEFINE_STATE;

void kernel_main(void)
{
	const uint32_t cb_in = get_compile_time_arg_val(0), cb_out = get_compile_time_arg_val(1);
	const uint32_t num = get_arg_val(0), a = get_common_arg_val(0), b = get_common_arg_val(1);

	compute_cb_format(cb_in, COMPUTE_FMT_BF16);
	compute_cb_format(cb_out, COMPUTE_FMT_BF16);
	compute_begin(COMPUTE_KERNEL_THREAD);
	init_sfpu(cb_in, cb_out);
	for (uint32_t i = 0; i < num; i++) {
		tile_regs_acquire();
		cb_wait_front(cb_in, 1);
		copy_tile(cb_in, 0, 0);
		cb_pop_front(cb_in, 1);
		mul_unary_tile(0, a);
		add_unary_tile(0, b);
		compute_commit_and_pack(0, cb_out);
	}
	compute_end();
}
