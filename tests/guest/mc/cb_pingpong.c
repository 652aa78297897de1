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

static int params_check(const char *who, uint32_t batch)
{
	int rc = page_config_check(pingpong_cb_config, (uintptr_t)fifo_mem, FIFO_MEM_BYTES, who, CB);
	if (rc != MC_OK)
		return rc;
	if (batch == 0 || batch > pingpong_cb_config[2]) {
		bare_printf("%s: batch of %u pages does not fit a %u-page CB\n", who, batch, pingpong_cb_config[2]);
		return MC_ERR_CONFIG;
	}
	return MC_OK;
}

static int produce(const char *who, int packer)
{
	uint32_t batch = pingpong_producer_batch;
	int rc = params_check(who, batch);
	if (rc != MC_OK)
		return rc;
	if (packer)
		cb_interface_setup_packer(pingpong_cb_config, 1u << CB);
	else
		cb_interface_setup(pingpong_cb_config, 1u << CB);
	const uint32_t pages = pingpong_pages, page_size = pingpong_cb_config[3];
	const uint32_t start = pingpong_cb_config[0], size = pingpong_cb_config[1], nwords = page_size / 4;

	for (uint32_t seq = 0; seq < pages;) {
		uint32_t n = pages - seq < batch ? pages - seq : batch;
		uint32_t ptr;
		if (packer) {
			cb_reserve_back_packer(CB, n);
			ptr = get_write_ptr_packer(CB);
		} else {
			cb_reserve_back(CB, n);
			ptr = get_write_ptr(CB);
		}
		for (uint32_t k = 0; k < n; k++)
			page_fill(page_at(ptr, k, page_size, start, size), nwords, seq + k, 0);
		if (packer)
			cb_push_back_packer_nocp(CB, n);
		else
			cb_push_back(CB, n);
		seq += n;
	}
	return MC_OK;
}

static int consume(const char *who, int unpacker)
{
	uint32_t batch = pingpong_consumer_batch;
	int rc = params_check(who, batch);
	if (rc != MC_OK)
		return rc;
	if (unpacker)
		cb_interface_setup_unpacker(pingpong_cb_config, 1u << CB);
	else
		cb_interface_setup(pingpong_cb_config, 1u << CB);
	const uint32_t pages = pingpong_pages, page_size = pingpong_cb_config[3];
	const uint32_t start = pingpong_cb_config[0], size = pingpong_cb_config[1], nwords = page_size / 4;

	for (uint32_t seq = 0; seq < pages;) {
		uint32_t n = pages - seq < batch ? pages - seq : batch;
		uint32_t ptr;
		if (unpacker) {
			cb_wait_front_unpacker(CB, n);
			ptr = get_read_ptr_unpacker(CB);
		} else {
			cb_wait_front(CB, n);
			ptr = get_read_ptr(CB);
		}
		for (uint32_t k = 0; k < n; k++) {
			rc = page_check(page_at(ptr, k, page_size, start, size), nwords, seq + k, 0, who, CB);
			if (rc != MC_OK)
				return rc;
		}
		if (unpacker)
			cb_pop_front_unpacker_nocp(CB, n);
		else
			cb_pop_front(CB, n);
		seq += n;
	}

	/* Both counters started at 0 and must now both be at the page count (16-bit). */
	uint16_t received = (uint16_t)*cb_stream_reg(CB, CB_REG_TILES_RECEIVED);
	uint16_t acked = (uint16_t)*cb_stream_reg(CB, CB_REG_TILES_ACKED);
	if (received != (uint16_t)pages || acked != (uint16_t)pages) {
		bare_printf("%s: CB%u counters after %u pages: received %u acked %u, expected %u\n", who, CB, pages,
			    received, acked, (uint16_t)pages);
		return MC_ERR_COUNTERS;
	}
	bare_printf("cb_pingpong: %s: %u pages of %u bytes through a %u-page CB%u (batches %u/%u): ok\n", who,
		    pages, page_size, pingpong_cb_config[2], CB, pingpong_producer_batch, pingpong_consumer_batch);
	return MC_OK;
}

#if PINGPONG_COMPUTE
int main_brisc(void)
{
	return MC_OK;
}

int main_trisc2(void)
{
	return produce("trisc2", 1);
}

int main_trisc0(void)
{
	return consume("trisc0", 1);
}
#else
int main_brisc(void)
{
	return produce("brisc", 0);
}

int main_ncrisc(void)
{
	return consume("ncrisc", 0);
}
#endif
