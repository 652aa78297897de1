/* Circular-buffer programs that hang on purpose, for the deadlock monitor and --timeout of
 * `bhemu run --cores brisc,ncrisc` (tests/mc/CMakeLists.txt). CB_DEADLOCK_CASE picks one:
 *
 *   1 STARVED_CONSUMER  BRISC pushes 3 pages into CB0 and exits; NCRISC pops them and waits in
 *                       cb_wait_front for a 4th. Deadlock: NCRISC polls CB0 tiles_received = 3.
 *   2 CYCLE             BRISC and NCRISC pass a token back and forth twice (BRISC -> CB0 ->
 *                       NCRISC -> CB1 -> BRISC), then each waits for the other's next page
 *                       before sending its own. Deadlock: BRISC polls CB1 tiles_received = 2,
 *                       NCRISC polls CB0 tiles_received = 2.
 *   3 FULL_CB           NCRISC pops one page of the 2-page CB0 and exits; BRISC pushes a 4th
 *                       page and waits in cb_reserve_back for room. Deadlock: BRISC polls CB0
 *                       tiles_acked = 1 (tiles_received = 3 is read once, before the loop).
 *   4 LIVELOCK          BRISC exits without pushing; NCRISC polls CB0 tiles_received counting
 *                       its polls in a register. Every poll changes the counter, so the core
 *                       never parks and the monitor sees no deadlock: only --timeout ends it.
 *
 * Every core that gets to the end exits 0; a core that returns from a wait it cannot leave
 * exits MC_ERR_SEQUENCE. */
#include "cb.h"
#include "cb_page.h"
#include "multicore.h"

#ifndef CB_DEADLOCK_CASE
#define CB_DEADLOCK_CASE 1
#endif
#define STARVED_CONSUMER 1
#define CYCLE 2
#define FULL_CB 3
#define LIVELOCK 4

#define PAGE_BYTES 16
#define CB_PAGES 2

static uint8_t fifo_mem[2][CB_PAGES * PAGE_BYTES] __attribute__((aligned(16)));

/* CB0 and CB1: fifo start, fifo size, pages, page size (bytes). */
static volatile uint32_t deadlock_cb_config[2 * 4] __attribute__((aligned(16))) = {
	(uint32_t)(uintptr_t)fifo_mem[0], CB_PAGES * PAGE_BYTES, CB_PAGES, PAGE_BYTES,
	(uint32_t)(uintptr_t)fifo_mem[1], CB_PAGES * PAGE_BYTES, CB_PAGES, PAGE_BYTES,
};

void multicore_init(void)
{
	cb_counters_reset(0x3);
}

static inline void send_page(uint32_t cb)
{
	cb_reserve_back(cb, 1);
	cb_push_back(cb, 1);
}

static inline void receive_page(uint32_t cb)
{
	cb_wait_front(cb, 1);
	cb_pop_front(cb, 1);
}

#if CB_DEADLOCK_CASE == STARVED_CONSUMER
int main_brisc(void)
{
	cb_interface_setup(deadlock_cb_config, 1u << 0);
	for (int i = 0; i < 3; i++)
		send_page(0);
	return MC_OK;
}

int main_ncrisc(void)
{
	cb_interface_setup(deadlock_cb_config, 1u << 0);
	for (int i = 0; i < 4; i++)     /* one page more than BRISC sends */
		receive_page(0);
	return MC_ERR_SEQUENCE;
}

#elif CB_DEADLOCK_CASE == CYCLE
/* Two good rounds (send, then receive the reply), then a round where the core receives first. */
static int token_ring(uint32_t out, uint32_t in, int sends_first)
{
	cb_interface_setup(deadlock_cb_config, (1u << out) | (1u << in));
	for (int round = 0; round < 2; round++) {
		if (sends_first) {
			send_page(out);
			receive_page(in);
		} else {
			receive_page(in);
			send_page(out);
		}
	}
	receive_page(in);               /* the bug: both cores now wait for the other to send */
	send_page(out);
	return MC_ERR_SEQUENCE;
}

int main_brisc(void)
{
	return token_ring(0, 1, 1);
}

int main_ncrisc(void)
{
	return token_ring(1, 0, 0);
}

#elif CB_DEADLOCK_CASE == FULL_CB
int main_brisc(void)
{
	cb_interface_setup(deadlock_cb_config, 1u << 0);
	for (int i = 0; i < 2; i++)     /* fills the CB */
		send_page(0);
	/* The third page fits once NCRISC has popped its one page; the fourth never does. */
	for (int i = 0; i < 2; i++)
		send_page(0);
	return MC_ERR_SEQUENCE;
}

int main_ncrisc(void)
{
	cb_interface_setup(deadlock_cb_config, 1u << 0);
	receive_page(0);
	return MC_OK;
}

#elif CB_DEADLOCK_CASE == LIVELOCK
int main_brisc(void)
{
	return MC_OK;
}

int main_ncrisc(void)
{
	uint32_t polls = 0;
	while ((uint16_t)*cb_stream_reg(0, CB_REG_TILES_RECEIVED) == 0) {
		polls++;
		__asm__ volatile("" : "+r"(polls));   /* a real count, kept in a register */
	}
	return polls == 0 ? MC_OK : MC_ERR_SEQUENCE;
}

#else
#error "CB_DEADLOCK_CASE must be 1..4"
#endif
