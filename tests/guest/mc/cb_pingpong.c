/* CB ping-pong: one producer core fills pages into CB0, one consumer core checks every page
 * (sequence number, every payload word, checksum) and frees it. Run with
 *   bhemu run --cores brisc,ncrisc cb_pingpong.elf                (data-movement API, bytes)
 * or, built with -DPINGPONG_COMPUTE=1,
 *   bhemu run --cores brisc,trisc2,trisc0 cb_pingpong_compute.elf
 * where TRISC2 produces with the packer-side calls and TRISC0 consumes with the unpacker-side
 * calls (the *_nocp variants: no Tensix coprocessor; see cb.h) and BRISC only starts the run.
 *
 * Parameters are words in L1 that a host may patch between loading and starting the cores
 * (bh_core_symbol_lookup + bh_l1_write): pingpong_pages, pingpong_producer_batch,
 * pingpong_consumer_batch and the CB config block pingpong_cb_config (sync.md 3.1). Their
 * defaults come from the -D options below. Every core exits 0 on success, else an mc_status. */
#include "cb.h"
#include "cb_page.h"
#include "multicore.h"

#ifndef PINGPONG_PAGES
#define PINGPONG_PAGES 100000
#endif
#ifndef PINGPONG_CB_PAGES
#define PINGPONG_CB_PAGES 2
#endif
#ifndef PINGPONG_PAGE_SIZE
#define PINGPONG_PAGE_SIZE 64
#endif
#ifndef PINGPONG_PRODUCER_BATCH
#define PINGPONG_PRODUCER_BATCH 1
#endif
#ifndef PINGPONG_CONSUMER_BATCH
#define PINGPONG_CONSUMER_BATCH 1
#endif
#ifndef PINGPONG_COMPUTE
#define PINGPONG_COMPUTE 0
#endif

#define CB 0
#define FIFO_MEM_BYTES (128 * 1024)

static uint8_t fifo_mem[FIFO_MEM_BYTES] __attribute__((aligned(16)));

volatile uint32_t pingpong_pages = PINGPONG_PAGES;
volatile uint32_t pingpong_producer_batch = PINGPONG_PRODUCER_BATCH;
volatile uint32_t pingpong_consumer_batch = PINGPONG_CONSUMER_BATCH;
/* Slot of CB0, as the host writes it: fifo start, fifo size, pages, page size (bytes). */
volatile uint32_t pingpong_cb_config[4] __attribute__((aligned(16))) = {
	(uint32_t)(uintptr_t)fifo_mem,
	PINGPONG_CB_PAGES * PINGPONG_PAGE_SIZE,
	PINGPONG_CB_PAGES,
	PINGPONG_PAGE_SIZE,
};

void multicore_init(void)
{
	cb_counters_reset(1u << CB);
}

/* One end of CB0: the producer fills every page, the consumer checks every page and, at the
 * end, the CB counters. calls: data-movement, or the TRISC packer/unpacker calls. */
static int pingpong_end(const char *who, int producer, enum page_calls calls)
{
	const struct page_end e = {
		.who = who,
		.cb = CB,
		.producer = producer,
		.calls = calls,
		.pages = pingpong_pages,
		.batch = producer ? pingpong_producer_batch : pingpong_consumer_batch,
		.stage = 0,
	};
	int rc = page_config_check(pingpong_cb_config, (uintptr_t)fifo_mem, FIFO_MEM_BYTES, e.batch, who, CB);
	if (rc == MC_OK)
		rc = page_end_run(&e, pingpong_cb_config);
	if (rc == MC_OK && !producer)
		bare_printf("cb_pingpong: %s: %u pages of %u bytes through a %u-page CB%u (batches %u/%u): ok\n", who,
			    e.pages, pingpong_cb_config[3], pingpong_cb_config[2], CB, pingpong_producer_batch,
			    pingpong_consumer_batch);
	return rc;
}

#if PINGPONG_COMPUTE
int main_brisc(void)
{
	return MC_OK;
}

int main_trisc2(void)
{
	return pingpong_end("trisc2", 1, PAGE_CALLS_COMPUTE);
}

int main_trisc0(void)
{
	return pingpong_end("trisc0", 0, PAGE_CALLS_COMPUTE);
}
#else
int main_brisc(void)
{
	return pingpong_end("brisc", 1, PAGE_CALLS_DATA_MOVEMENT);
}

int main_ncrisc(void)
{
	return pingpong_end("ncrisc", 0, PAGE_CALLS_DATA_MOVEMENT);
}
#endif
