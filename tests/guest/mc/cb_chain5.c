/* CB chain through all five cores of a tile:
 *   BRISC --CB0--> NCRISC --CB1--> TRISC0 --CB2--> TRISC1 --CB3--> TRISC2
 * BRISC makes the pages; each middle stage checks every page it receives (sequence, stage,
 * payload, checksum), forwards it one stage further on (payload transformed, see cb_page.h) and
 * frees it; TRISC2 checks the final pages. Run with
 *   bhemu run --cores brisc,ncrisc,trisc0,trisc1,trisc2 cb_chain5.elf
 *
 * Every core uses the data-movement CB calls (bytes, direct stream-register traffic): there is
 * no Tensix coprocessor yet, and bhemu's TRISCs reach the stream registers like the others.
 *
 * Parameters are L1 words a host may patch before the start: chain_pages, chain_batch (pages
 * per call at both ends) and the config block chain_cb_config (CB0..CB3, sync.md 3.1; every CB
 * must have the same page size). Every core exits 0 on success, else an mc_status. */
#include "cb.h"
#include "cb_page.h"
#include "multicore.h"

#ifndef CHAIN_PAGES
#define CHAIN_PAGES 100000
#endif
#ifndef CHAIN_PAGE_SIZE
#define CHAIN_PAGE_SIZE 64
#endif
#ifndef CHAIN_BATCH
#define CHAIN_BATCH 1
#endif
/* Pages per CB: different depths so that the stages run out of step. */
#ifndef CHAIN_CB0_PAGES
#define CHAIN_CB0_PAGES 4
#endif
#ifndef CHAIN_CB1_PAGES
#define CHAIN_CB1_PAGES 2
#endif
#ifndef CHAIN_CB2_PAGES
#define CHAIN_CB2_PAGES 1
#endif
#ifndef CHAIN_CB3_PAGES
#define CHAIN_CB3_PAGES 3
#endif

#define NUM_CBS 4
#define FIFO_MEM_BYTES (4 * 32 * 1024)

static uint8_t fifo_mem[FIFO_MEM_BYTES] __attribute__((aligned(16)));

#define FIFO_SLICE (FIFO_MEM_BYTES / NUM_CBS)
#define CB_SLOT(cb, pages) \
	(uint32_t)(uintptr_t)(fifo_mem + (cb) * FIFO_SLICE), (pages) * CHAIN_PAGE_SIZE, (pages), CHAIN_PAGE_SIZE

volatile uint32_t chain_pages = CHAIN_PAGES;
volatile uint32_t chain_batch = CHAIN_BATCH;
/* CB0..CB3 as the host writes them: fifo start, fifo size, pages, page size (bytes). */
volatile uint32_t chain_cb_config[NUM_CBS * 4] __attribute__((aligned(16))) = {
	CB_SLOT(0, CHAIN_CB0_PAGES), CB_SLOT(1, CHAIN_CB1_PAGES), CB_SLOT(2, CHAIN_CB2_PAGES), CB_SLOT(3, CHAIN_CB3_PAGES),
};

void multicore_init(void)
{
	cb_counters_reset((1u << NUM_CBS) - 1);
}

static int config_check(const char *who, uint32_t cb)
{
	int rc = page_config_check(&chain_cb_config[cb * 4], (uintptr_t)fifo_mem, FIFO_MEM_BYTES, chain_batch, who, cb);
	if (rc == MC_OK && chain_cb_config[cb * 4 + 3] != chain_cb_config[3]) {
		bare_printf("%s: CB%u page size %u differs from CB0's %u\n", who, cb, chain_cb_config[cb * 4 + 3],
			    chain_cb_config[3]);
		rc = MC_ERR_CONFIG;
	}
	return rc;
}

/* First stage (producer: makes the pages into CB cb) or last (checks the pages of CB cb, which
 * have been through `stage` stages). */
static int chain_end(const char *who, uint32_t cb, int producer, uint32_t stage)
{
	const struct page_end e = {
		.who = who,
		.cb = cb,
		.producer = producer,
		.calls = PAGE_CALLS_DATA_MOVEMENT,
		.pages = chain_pages,
		.batch = chain_batch,
		.stage = stage,
	};
	int rc = config_check(who, cb);
	return rc == MC_OK ? page_end_run(&e, chain_cb_config) : rc;
}

/* Stage `stage` (1..3): checks each page of CB in, writes it transformed to CB in + 1. */
static int chain_forward(const char *who, uint32_t in, uint32_t stage)
{
	uint32_t out = in + 1;
	int rc = config_check(who, in);
	if (rc == MC_OK)
		rc = config_check(who, out);
	if (rc != MC_OK)
		return rc;
	cb_interface_setup(chain_cb_config, (1u << in) | (1u << out));
	const uint32_t pages = chain_pages, nwords = chain_cb_config[3] / 4;

	for (uint32_t seq = 0; seq < pages; seq++) {
		cb_wait_front(in, 1);
		volatile uint32_t *src = page_in_cb(chain_cb_config, in, get_read_ptr(in), 0);
		rc = page_check(src, nwords, seq, stage - 1, who, in);
		if (rc != MC_OK)
			return rc;
		cb_reserve_back(out, 1);
		page_forward(page_in_cb(chain_cb_config, out, get_write_ptr(out), 0), src, nwords, seq, stage);
		cb_push_back(out, 1);
		cb_pop_front(in, 1);
	}
	return page_counters_check(who, in, pages);
}

int main_brisc(void)
{
	return chain_end("brisc", 0, 1, 0);
}

int main_ncrisc(void)
{
	return chain_forward("ncrisc", 0, 1);
}

int main_trisc0(void)
{
	return chain_forward("trisc0", 1, 2);
}

int main_trisc1(void)
{
	return chain_forward("trisc1", 2, 3);
}

int main_trisc2(void)
{
	int rc = chain_end("trisc2", 3, 0, 3);
	if (rc == MC_OK)
		bare_printf("cb_chain5: %u pages of %u bytes through CB0..CB3 (%u/%u/%u/%u pages): ok\n", chain_pages,
			    chain_cb_config[3], chain_cb_config[2], chain_cb_config[6], chain_cb_config[10],
			    chain_cb_config[14]);
	return rc;
}
