/* races.md #9, RISC-V side: a producer writes into a page after publishing it. The reader
 * (BRISC) fills each CB0 page's payload, pushes it, and only then stamps the page's header word
 * with its sequence number ("the consumer is slower than that"). The consumer (NCRISC) may
 * already hold the page and read a header that is not there yet. cb-ownership (opt-in) names the
 * store into the held page. The fixed twin stamps the header before cb_push_back. */
#include "cb.h"
#include "multicore.h"

#define CB 0
#define CB_PAGES 2
#define PAGE_WORDS 16
#define PAGE_BYTES (PAGE_WORDS * 4)
#define PAGES 16

static uint32_t fifo[CB_PAGES * PAGE_WORDS] __attribute__((aligned(16)));
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
	for (uint32_t k = 0; k < PAGES; k++) {
		cb_reserve_back(CB, 1);
		volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)get_write_ptr(CB);
		for (uint32_t i = 1; i < PAGE_WORDS; i++)
			p[i] = k * i;
#ifdef RACE_FIXED
		p[0] = k;
		cb_push_back(CB, 1);
#else
		cb_push_back(CB, 1);
		p[0] = k;   /* the header last */
#endif
	}
	return 0;
}

/* Checks every page; a wrong header or payload is exit status 1. */
int main_ncrisc(void)
{
	int bad = 0;
	cb_interface_setup(cb_config, 1u << CB);
	for (uint32_t k = 0; k < PAGES; k++) {
		cb_wait_front(CB, 1);
		const volatile uint32_t *p = (const volatile uint32_t *)(uintptr_t)get_read_ptr(CB);
		bad |= p[0] != k;
		for (uint32_t i = 1; i < PAGE_WORDS; i++)
			bad |= p[i] != k * i;
		cb_pop_front(CB, 1);
	}
	return bad;
}
