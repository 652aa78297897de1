/* k_mm_in0 (NCRISC) and k_mm_in1_writer (BRISC): the data-movement side of examples/matmul. One
 * input of C = A x B reaches a row (A) or a column (B) of worker tiles from DRAM through one of
 * them, the sender, which reads each K step's tiles into its CB and multicasts them to the same
 * CB address on the others, the receivers, as tt-metal's multicast matmul does:
 *   receiver: reserves the step's pages, clears its "valid" semaphore, increments the sender's
 *             "ready" semaphore, waits for "valid", pushes the pages;
 *   sender:   reserves, reads the tiles from DRAM, waits until every receiver is ready, multicasts
 *             the tiles, waits for their acknowledgements, multicasts "valid", waits again, and
 *             pushes; after each multicast's acknowledgements it resets the NoC's
 *             outstanding-request count (noc_async_write_multicast_done).
 * Every tile of a row (column) pushes the same pages in the same order, so their CB write
 * pointers agree. k_mm_in1_writer then writes the output tiles of CB ct[2] to DRAM.
 *
 * ct[0] input CB, ct[1] 1: also the writer, ct[2] output CB. rta: enum below. Pages are one BF16
 * tile (2048 bytes); page p of an input is tile first + i * tile_stride + k * step_stride for
 * tile i of step k. */
#include "kernel.h"

#define TILE_BYTES 2048u

enum {
	ARG_BASE, ARG_FIRST, ARG_TILE_STRIDE, ARG_STEP_STRIDE, ARG_TILES, ARG_STEPS,
	ARG_SENDER,			/* 1: this tile reads and multicasts */
	ARG_SENDER_X, ARG_SENDER_Y,	/* receivers: the sender's NoC coordinates */
	ARG_MC_X0, ARG_MC_Y0, ARG_MC_X1, ARG_MC_Y1, ARG_RECEIVERS,	/* sender: the rectangle, its receivers */
	ARG_READY_SEM, ARG_VALID_SEM,	/* semaphore ids */
	ARG_OUT_BASE, ARG_OUT_FIRST, ARG_OUT_ROWS, ARG_OUT_COLS, ARG_OUT_ROW_STRIDE	/* the writer */
};

#define SEM_INVALID 0u
#define SEM_VALID 1u

static void input_steps(uint32_t cb)
{
	const struct interleaved_addr_gen src = { .bank_base_address = get_arg_val(ARG_BASE), .page_size = TILE_BYTES,
						  .is_dram = true };
	const uint32_t first = get_arg_val(ARG_FIRST), tile_stride = get_arg_val(ARG_TILE_STRIDE);
	const uint32_t step_stride = get_arg_val(ARG_STEP_STRIDE), tiles = get_arg_val(ARG_TILES);
	const uint32_t steps = get_arg_val(ARG_STEPS), receivers = get_arg_val(ARG_RECEIVERS);
	const bool sender = get_arg_val(ARG_SENDER) != 0;
	volatile uint32_t *ready = (volatile uint32_t *)(uintptr_t)get_semaphore(get_arg_val(ARG_READY_SEM));
	volatile uint32_t *valid = (volatile uint32_t *)(uintptr_t)get_semaphore(get_arg_val(ARG_VALID_SEM));
	const uint64_t sender_ready = get_noc_addr(get_arg_val(ARG_SENDER_X), get_arg_val(ARG_SENDER_Y), (uint32_t)(uintptr_t)ready);

	for (uint32_t k = 0; k < steps; k++) {
		cb_reserve_back(cb, tiles);
		const uint32_t l1 = get_write_ptr(cb);
		if (!sender) {
			noc_semaphore_set(valid, SEM_INVALID);
			noc_semaphore_inc(sender_ready, 1);
			noc_async_atomic_barrier();
			noc_semaphore_wait(valid, SEM_VALID);
			cb_push_back(cb, tiles);
			continue;
		}
		for (uint32_t i = 0; i < tiles; i++)
			noc_async_read_page(first + i * tile_stride + k * step_stride, &src, l1 + i * TILE_BYTES);
		noc_async_read_barrier();
		if (receivers) {
			const uint32_t x0 = get_arg_val(ARG_MC_X0), y0 = get_arg_val(ARG_MC_Y0);
			const uint32_t x1 = get_arg_val(ARG_MC_X1), y1 = get_arg_val(ARG_MC_Y1);
			noc_semaphore_wait(ready, receivers);
			noc_semaphore_set(ready, 0);
			noc_async_write_multicast(l1, get_noc_multicast_addr(x0, y0, x1, y1, l1), tiles * TILE_BYTES, receivers);
			noc_async_write_barrier();	/* the tiles are in every receiver's L1 before "valid" */
			noc_async_write_multicast_done();
			noc_semaphore_set(valid, SEM_VALID);
			noc_semaphore_set_multicast((uint32_t)(uintptr_t)valid,
						    get_noc_multicast_addr(x0, y0, x1, y1, (uint32_t)(uintptr_t)valid), receivers);
			noc_async_write_barrier();
			noc_async_write_multicast_done();
		}
		cb_push_back(cb, tiles);
	}
}

/* Output tile (i, j) of this tile's block, in the order the compute kernel packs them, to page
 * first + i * row_stride + j. */
static void write_block(uint32_t cb)
{
	const struct interleaved_addr_gen dst = { .bank_base_address = get_arg_val(ARG_OUT_BASE),
						  .page_size = TILE_BYTES, .is_dram = true };
	const uint32_t first = get_arg_val(ARG_OUT_FIRST), rows = get_arg_val(ARG_OUT_ROWS);
	const uint32_t cols = get_arg_val(ARG_OUT_COLS), stride = get_arg_val(ARG_OUT_ROW_STRIDE);

	for (uint32_t i = 0; i < rows; i++)
		for (uint32_t j = 0; j < cols; j++) {
			cb_wait_front(cb, 1);
			noc_async_write_page(first + i * stride + j, &dst, get_read_ptr(cb));
			noc_async_write_barrier();
			cb_pop_front(cb, 1);
		}
}

void kernel_main(void)
{
	input_steps(get_compile_time_arg_val(0));
	if (get_compile_time_arg_val(1))
		write_block(get_compile_time_arg_val(2));
}
