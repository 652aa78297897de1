/* races.md #9, RISC-V side: a consumer frees pages it never waited for. The reader (BRISC)
 * fills two CBs in step: CB0 with data pages and CB1 with a scale page for each, pushing the data
 * page first. The consumer (NCRISC) waits for the data page only, "since the scale page is pushed
 * with it", reads both and pops both. Whenever it gets between the two pushes it reads a scale
 * page that is still being written, and even when the scale page is there in time its pop frees
 * a page it never saw published: cb-pop-unwaited names the pop. The fixed twin waits on CB1 too. */
#include "cb.h"
#include "multicore.h"

#define CB_DATA 0
#define CB_SCALE 1
#define CB_PAGES 2
#define PAGE_WORDS 32
#define PAGE_BYTES (PAGE_WORDS * 4)
#define TILES 16

static uint32_t fifo[2][CB_PAGES * PAGE_WORDS] __attribute__((aligned(16)));
static volatile uint32_t cb_config[2 * 4] __attribute__((aligned(16))) = {
	(uint32_t)(uintptr_t)fifo[0], CB_PAGES * PAGE_BYTES, CB_PAGES, PAGE_BYTES,
	(uint32_t)(uintptr_t)fifo[1], CB_PAGES * PAGE_BYTES, CB_PAGES, PAGE_BYTES,
};

void multicore_init(void)
{
	cb_counters_reset(1u << CB_DATA | 1u << CB_SCALE);
}

static void produce(uint32_t cb, uint32_t first)
{
	cb_reserve_back(cb, 1);
	volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)get_write_ptr(cb);
	for (uint32_t i = 0; i < PAGE_WORDS; i++)
		p[i] = first + i;
	cb_push_back(cb, 1);
}

int main_brisc(void)
{
	cb_interface_setup(cb_config, 1u << CB_DATA | 1u << CB_SCALE);
	for (uint32_t k = 0; k < TILES; k++) {
		produce(CB_DATA, k);
		produce(CB_SCALE, 2 * k + 1);
	}
	return 0;
}

/* Scales each data page by its scale page and checks the sum; a wrong one is exit status 1. */
int main_ncrisc(void)
{
	int bad = 0;
	cb_interface_setup(cb_config, 1u << CB_DATA | 1u << CB_SCALE);
	for (uint32_t k = 0; k < TILES; k++) {
		cb_wait_front(CB_DATA, 1);
#ifdef RACE_FIXED
		cb_wait_front(CB_SCALE, 1);
#endif
		const volatile uint32_t *d = (const volatile uint32_t *)(uintptr_t)get_read_ptr(CB_DATA);
		const volatile uint32_t *s = (const volatile uint32_t *)(uintptr_t)get_read_ptr(CB_SCALE);
		uint32_t sum = 0, want = 0;
		for (uint32_t i = 0; i < PAGE_WORDS; i++) {
			sum += d[i] * s[i];
			want += (k + i) * (2 * k + 1 + i);
		}
		bad |= sum != want;
		cb_pop_front(CB_DATA, 1);
		cb_pop_front(CB_SCALE, 1);
	}
	return bad;
}
