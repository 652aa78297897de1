/* k_cb_push_nowait (BRISC): pushes pages into a circular buffer without reserving space first, so
 * that n larger than the CB's page count overfills it (what the emulator's CB check must catch).
 *
 * rta[0] CB index, [1] n: cb_push_back(cb, 1) n times. */
#include "kernel.h"

void kernel_main(void)
{
	const uint32_t cb = get_arg_val(0), n = get_arg_val(1);

	for (uint32_t i = 0; i < n; i++)
		cb_push_back(cb, 1);
}
