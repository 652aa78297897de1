/* k_matmul_trisc0/1/2: the compute kernel of examples/matmul, one source built for the three
 * TRISCs. This tile's output block of rows x cols tiles is C(i, j) = sum over k of A(i, k) B(k, j):
 * once the K steps of both inputs are in their CBs (step k holding A's column k of the block's
 * rows, then B's row k of its columns), each output tile accumulates its K matmul_tiles in Dst
 * (FP32, HiFi4: every product exact), is packed to BF16 (rounded to nearest, ties away from
 * zero) into the output CB, and Dst is handed back and cleared.
 *
 * ct[0] A's CB, ct[1] B's CB, ct[2] output CB (pages of one BF16 tile); rta[0] rows, [1] cols,
 * [2] K steps. */
#include "compute_kernel.h"

COMPUTE_DEFINE_STATE;

void kernel_main(void)
{
	const uint32_t cb_a = get_compile_time_arg_val(0), cb_b = get_compile_time_arg_val(1);
	const uint32_t cb_out = get_compile_time_arg_val(2);
	const uint32_t rows = get_arg_val(0), cols = get_arg_val(1), steps = get_arg_val(2);

	compute_cb_format(cb_a, COMPUTE_FMT_BF16);
	compute_cb_format(cb_b, COMPUTE_FMT_BF16);
	compute_cb_format(cb_out, COMPUTE_FMT_BF16);
	compute_begin(COMPUTE_KERNEL_THREAD);
	mm_init(cb_a, cb_b, cb_out, HiFi4);
	cb_wait_front(cb_a, rows * steps);
	cb_wait_front(cb_b, steps * cols);
	for (uint32_t i = 0; i < rows; i++)
		for (uint32_t j = 0; j < cols; j++) {
			tile_regs_acquire();
			for (uint32_t k = 0; k < steps; k++)
				matmul_tiles(cb_a, cb_b, k * rows + i, k * cols + j, 0, 0);
			compute_commit_and_pack(0, cb_out);
		}
	cb_pop_front(cb_a, rows * steps);
	cb_pop_front(cb_b, steps * cols);
	compute_end();
}
