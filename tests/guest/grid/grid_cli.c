/* A plain whole-grid program for the tests of `bhemu run --grid` (tests/grid/CMakeLists.txt).
 * Each core does one thing the CLI must handle, depending on its tile's index in the run:
 *   brisc    prints "tile K of N at (X,Y)" from NOC_ID_LOGICAL and the CLI's tile list, exits 0
 *   ncrisc   exits 9 on tile 3, 11 on tile 5, else 0 (the run's status: the first non-zero)
 *   trisc0   faults on tile 2 (load from an unmapped address), else exits 0 */
#include "grid.h"
#include "multicore.h"
#include "noc.h"

static int tile_index(void)
{
	return bare_grid_tile_index(NOC_XY_ENCODING(my_x(), my_y()));
}

int main_brisc(void)
{
	int k = tile_index();
	if (k < 0) {
		bare_printf("tile (%u,%u) is not in the run information\n", my_x(), my_y());
		return 1;
	}
	bare_printf("tile %d of %u at (%u,%u)\n", k, bare_grid()->num_tiles, my_x(), my_y());
	return 0;
}

int main_ncrisc(void)
{
	int k = tile_index();
	return k == 3 ? 9 : k == 5 ? 11 : 0;
}

int main_trisc0(void)
{
	if (tile_index() == 2)
		return (int)*(volatile uint32_t *)0xFFB90000u;
	return 0;
}
