/* tt-metal style reductions on the three TRISCs (firmware/compute/reduce.h): reduce_tile over
 * compute_tiles input tiles with the pool type compute_pool (0 SUM, 1 AVG, 2 MAX) and the dimension
 * compute_dim (0 REDUCE_ROW, 1 REDUCE_COL, 2 REDUCE_SCALAR), the scaler tile in CB 1; with
 * compute_accumulate set, every input tile reduces into one Dst tile (one output tile), otherwise
 * one output tile per input tile. The host
 * (tests/unit/test_compute_reduce.c) fills the tiles and checks the outputs. */
#include "compute.h"
#include "multicore.h"
#include "reduce.h"

#define MAX_TILES 4

COMPUTE_DEFINE_STATE;

#define HOST_SET __attribute__((section(".data")))
HOST_SET volatile uint32_t compute_pool = SUM;
HOST_SET volatile uint32_t compute_dim = REDUCE_COL;
HOST_SET volatile uint32_t compute_tiles = 1;
HOST_SET volatile uint32_t compute_accumulate;
HOST_SET uint8_t tiles_in[MAX_TILES * 2048] __attribute__((aligned(16)));
HOST_SET uint8_t tile_scaler[2048] __attribute__((aligned(16)));
uint8_t tiles_out[MAX_TILES * 2048] __attribute__((aligned(16)));

static int kernel(enum compute_thread role)
{
	const uint32_t n = compute_tiles, acc = compute_accumulate;
	const enum compute_pool pool = (enum compute_pool)compute_pool;
	const enum compute_reduce_dim dim = (enum compute_reduce_dim)compute_dim;
	if (n > MAX_TILES || pool > MAX || dim > REDUCE_SCALAR)
		return 2;
	compute_begin(role);
	reduce_init(pool, dim, 0, 1, 16);
	if (acc)
		tile_regs_acquire();
	for (uint32_t t = 0; t < n; t++) {
		if (!acc)
			tile_regs_acquire();
		reduce_tile(pool, dim, 0, 1, t, 0, 0);
		if (!acc) {
			tile_regs_commit();
			tile_regs_wait();
			pack_tile(0, 16, t);
			tile_regs_release();
		}
	}
	if (acc) {
		tile_regs_commit();
		tile_regs_wait();
		pack_tile(0, 16, 0);
		tile_regs_release();
	}
	compute_end();
	return 0;
}

void multicore_init(void)
{
	compute_cb_setup(0, (uint32_t)(uintptr_t)tiles_in, COMPUTE_FMT_BF16);
	compute_cb_setup(1, (uint32_t)(uintptr_t)tile_scaler, COMPUTE_FMT_BF16);
	compute_cb_setup(16, (uint32_t)(uintptr_t)tiles_out, COMPUTE_FMT_BF16);
}

int main_brisc(void) { return 0; }
int main_ncrisc(void) { return 0; }
int main_trisc0(void) { return kernel(COMPUTE_UNPACK); }
int main_trisc1(void) { return kernel(COMPUTE_MATH); }
int main_trisc2(void) { return kernel(COMPUTE_PACK); }
