/* Race #5 (races.md): a kernel starts while TRISC0 still zeroes the CB counters. The program plays
 * the firmware's launch protocol on the p100a mailbox (launch.md 2, 4, 5): BRISC is the firmware's
 * main loop and runs a producer kernel, NCRISC the subordinate that runs the consumer kernel,
 * TRISC0 the firmware's counter reset. After every run (and once after boot) BRISC asks TRISC0 to
 * zero the counters of every CB (subordinate_sync.trisc0 = 3, RUN_SYNC_MSG_INIT_SYNC_REGISTERS);
 * the bug: it starts the next launch's kernels at once, so its push into CB0 races the reset (the
 * reset may zero it behind the producer and the consumer waits for ever, or the kernel starts on
 * the last run's counters). cb-reset-window names the push.
 *   bhemu run --cores brisc,ncrisc,trisc0 --profile p100a 05_cb_reset_window.elf
 * RACE_FIXED: BRISC waits until TRISC0 reports DONE (0) before it releases the kernels, as the
 * firmware does (launch.md 5 step 4). */
#include "cb.h"
#include "multicore.h"

/* p100a mailbox (launch.md 6, 8): subordinate_sync at 0x68, byte 0 NCRISC, byte 1 TRISC0 (built
 * with --param=min-pagesize=0: GCC would take these low addresses for a null page). */
#define SYNC_NCRISC ((volatile uint8_t *)0x68u)
#define SYNC_TRISC0 ((volatile uint8_t *)0x69u)
#define RUN_SYNC_MSG_DONE 0x00u
#define RUN_SYNC_MSG_INIT_SYNC_REGISTERS 0x03u
#define RUN_SYNC_MSG_GO 0x80u

#define CB_IN 0
#define CB_PAGES 2
#define PAGE_WORDS 16
#define PAGE_BYTES (PAGE_WORDS * 4)
#define LAUNCHES 4
#define TILES 4            /* pages per launch: a whole number of laps of the FIFO */
_Static_assert(TILES % CB_PAGES == 0, "each launch must end at the FIFO start");

static uint32_t fifo[CB_PAGES * PAGE_WORDS] __attribute__((aligned(16)));
static volatile uint32_t cb_config[4] __attribute__((aligned(16))) = {
	(uint32_t)(uintptr_t)fifo, CB_PAGES * PAGE_BYTES, CB_PAGES, PAGE_BYTES,
};
static volatile uint32_t shutdown;   /* BRISC -> NCRISC, TRISC0: no more launches */

/* One poll of a mailbox byte, with the fence every firmware poll has (races.md 20). */
static uint8_t poll8(volatile uint8_t *p)
{
	__asm__ volatile("fence" ::: "memory");
	return *p;
}

static void publish8(volatile uint8_t *p, uint8_t v)
{
	__asm__ volatile("fence rw, w" ::: "memory");
	*p = v;
}

/* The producer kernel: TILES pages of CB_IN, page k of launch l holding l * 1000 + k * 16 + i.
 * Each launch ends where it started in the FIFO (TILES laps it twice), so the CB interface set up
 * once stays right for every launch, as the firmware's set-up from the same config would be. */
static void producer(uint32_t launch)
{
	for (uint32_t k = 0; k < TILES; k++) {
		cb_reserve_back(CB_IN, 1);
		volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)get_write_ptr(CB_IN);
		for (uint32_t i = 0; i < PAGE_WORDS; i++)
			p[i] = launch * 1000 + k * 16 + i;
		cb_push_back(CB_IN, 1);
	}
}

int main_brisc(void)
{
	cb_interface_setup(cb_config, 1u << CB_IN);
	publish8(SYNC_TRISC0, RUN_SYNC_MSG_INIT_SYNC_REGISTERS);   /* after boot (launch.md 2 step 11) */
	for (uint32_t l = 0; l < LAUNCHES; l++) {
#ifdef RACE_FIXED
		while (poll8(SYNC_TRISC0) != RUN_SYNC_MSG_DONE)   /* the previous counter reset finished */
			;
#endif
		publish8(SYNC_NCRISC, RUN_SYNC_MSG_GO);
		producer(l);
		while (poll8(SYNC_NCRISC) != RUN_SYNC_MSG_DONE)
			;
		publish8(SYNC_TRISC0, RUN_SYNC_MSG_INIT_SYNC_REGISTERS);   /* reset the CB counters again */
	}
	while (poll8(SYNC_TRISC0) != RUN_SYNC_MSG_DONE)
		;
	shutdown = 1;
	return 0;
}

/* The consumer kernel: checks every page of the launch; a wrong one is exit status 9. */
static int consumer(uint32_t launch)
{
	int bad = 0;
	for (uint32_t k = 0; k < TILES; k++) {
		cb_wait_front(CB_IN, 1);
		const volatile uint32_t *p = (const volatile uint32_t *)(uintptr_t)get_read_ptr(CB_IN);
		for (uint32_t i = 0; i < PAGE_WORDS; i++)
			bad |= p[i] != launch * 1000 + k * 16 + i;
		cb_pop_front(CB_IN, 1);
	}
	return bad;
}

int main_ncrisc(void)
{
	int bad = 0;
	cb_interface_setup(cb_config, 1u << CB_IN);
	for (uint32_t l = 0;; l++) {
		while (poll8(SYNC_NCRISC) != RUN_SYNC_MSG_GO)
			if (shutdown)
				return bad ? 9 : 0;
		bad |= consumer(l);
		publish8(SYNC_NCRISC, RUN_SYNC_MSG_DONE);
	}
}

/* The firmware's counter reset (launch.md 4): zero both counters of every CB, then DONE. */
int main_trisc0(void)
{
	for (;;) {
		if (poll8(SYNC_TRISC0) == RUN_SYNC_MSG_INIT_SYNC_REGISTERS) {
			cb_counters_reset(~0u);
			publish8(SYNC_TRISC0, RUN_SYNC_MSG_DONE);
		} else if (shutdown) {
			return 0;
		}
	}
}
