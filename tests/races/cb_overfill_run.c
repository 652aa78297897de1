/* `bhemu run` learns each CB's page count from the guest's own CB set-up (cb_interface_setup's
 * cb_config host call), so the CB protocol check catches an overfill there as in a launch: BRISC
 * pushes a third page into a 2-page CB without cb_reserve_back. NCRISC does not pop in this form,
 * so the third push overfills whatever the interleaving (a pop between the second and third push
 * would hide it). Built with -DRACE_FIXED BRISC reserves first and NCRISC frees a page. */
#include "cb.h"
#include "multicore.h"

#define CB 0
#define CB_PAGES 2
#define PAGE_BYTES 32

static uint8_t fifo[CB_PAGES * PAGE_BYTES] __attribute__((aligned(16)));
static volatile uint32_t cb_config[4] __attribute__((aligned(16))) = {
	(uint32_t)(uintptr_t)fifo, CB_PAGES * PAGE_BYTES, CB_PAGES, PAGE_BYTES,
};

void multicore_init(void)
{
	cb_counters_reset(1u << CB);
}

int main_brisc(void)
{
	cb_interface_setup(cb_config, 1u << CB);
	for (int k = 0; k < 3; k++) {
#ifdef RACE_FIXED
		cb_reserve_back(CB, 1);
#endif
		cb_push_back(CB, 1);
	}
	return 0;
}

int main_ncrisc(void)
{
	cb_interface_setup(cb_config, 1u << CB);
	cb_wait_front(CB, 1);
#ifdef RACE_FIXED
	cb_pop_front(CB, 1);
#endif
	return 0;
}
