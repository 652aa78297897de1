/* Tensix pipeline: tiles (64-byte pages, cb_page.h) pass through the five cores of a tile the way
 * a compute kernel moves them, the three TRISCs handing each tile on through their Tensix threads:
 *
 *   BRISC --CB0--> TRISC0 unpack --SrcA slots--> TRISC1 math --Dst slots--> TRISC2 pack --CB16--> NCRISC
 *
 * BRISC makes page seq (stage 0) into CB0 with the data-movement calls. TRISC0 waits for it with
 * cb_wait_front_unpacker, copies it into a free SrcA slot, checks the copy and frees the page with
 * cb_pop_front_unpacker (Tensix thread 0 publishes tiles_acked by STOREREG). TRISC1 forwards each
 * SrcA slot into a Dst slot one stage on (page_forward, on its RISC-V side). TRISC2 copies each
 * Dst slot into CB16 and publishes it with cb_push_back_packer (STOREREG from Tensix thread 2).
 * NCRISC checks every page (sequence, stage 1, every word, checksum) and folds the checksums into
 * pipeline_result, which the host compares with its own (tests/unit/test_tensix_pipeline.c).
 *
 * The slots are handed over by Tensix semaphores as tt-llk hands Dst from math to pack: one
 * semaphore per set of slots counts the full ones (UNPACK_TO_DEST for SrcA, MATH_PACK for Dst;
 * Max = the number of slots). The producing TRISC waits while it is at Max, fills a slot and pushes SEMPOST; the
 * consuming one waits while it is 0, empties the slot and pushes SEMGET. A wait is a SEMWAIT
 * pushed into the TRISC's own Tensix thread with a NOP behind it, which the SEMWAIT holds at the
 * Wait Gate (block mask: all nine bits), then tensix_sync: the TRISC goes on once the NOP passed.
 * TRISC0 initialises the semaphores (SEMINIT) before TRISC1 and TRISC2 use them.
 *
 * pipeline_tiles is an L1 word the host may patch between loading and starting the cores. Every
 * core exits 0 on success, else an mc_status. */
#include "cb.h"
#include "cb_page.h"
#include "multicore.h"
#include "tensix.h"

#ifndef PIPELINE_TILES
#define PIPELINE_TILES 20000
#endif

#define CB_IN 0
#define CB_OUT 16
#define PAGE_SIZE 64
#define PAGE_WORDS (PAGE_SIZE / 4)
/* Different depths at each hand-over, so that the stages run out of step. */
#define CB_IN_PAGES 4
#define SRCA_SLOTS 2
#define DST_SLOTS 3
#define CB_OUT_PAGES 2
#define SEM_SRCA (1u << TT_SEM_UNPACK_TO_DEST)
#define SEM_DST (1u << TT_SEM_MATH_PACK)
#define SEMS_READY 0x5E3A4EAD

static uint8_t fifo_in[CB_IN_PAGES * PAGE_SIZE] __attribute__((aligned(16)));
static uint8_t fifo_out[CB_OUT_PAGES * PAGE_SIZE] __attribute__((aligned(16)));
/* The slots between the TRISCs: SrcA (unpack -> math) and Dst (math -> pack). */
static volatile uint32_t srca_slot[SRCA_SLOTS][PAGE_WORDS] __attribute__((aligned(16)));
static volatile uint32_t dst_slot[DST_SLOTS][PAGE_WORDS] __attribute__((aligned(16)));
/* TRISC0 stores SEMS_READY once its SEMINIT has executed. */
static volatile uint32_t sems_ready;

volatile uint32_t pipeline_tiles = PIPELINE_TILES;
/* Written by NCRISC at the end: pages checked, and the fold (page_hash from PAGE_HASH_SEED) of
 * their checksum words in order. */
volatile uint32_t pipeline_result[2];

#define CB_SLOT(fifo) (uint32_t)(uintptr_t)(fifo), sizeof(fifo), sizeof(fifo) / PAGE_SIZE, PAGE_SIZE
static volatile uint32_t cb_config[(CB_OUT + 1) * 4] __attribute__((aligned(16))) = {
	[CB_IN * 4] = CB_SLOT(fifo_in),
	[CB_OUT * 4] = CB_SLOT(fifo_out),
};

void multicore_init(void)
{
	cb_counters_reset(1u << CB_IN | 1u << CB_OUT);
}

/* One more SEMWAIT pushed into this TRISC's thread: it will hold what follows while any semaphore
 * in mask is 0 (TT_SEMWAIT_WHILE_ZERO) or at its Max (TT_SEMWAIT_WHILE_MAX). */
static void sem_wait_push(uint32_t mask, uint32_t cond)
{
	tt_push(TT_SEMWAIT(TT_BLOCK_ALL, mask, cond));
}

/* Returns once the waits pushed so far have all been satisfied: a NOP goes behind them and the
 * TRISC waits until its thread is idle. */
static void sem_waits_done(void)
{
	tt_push(TT_NOP);
	tt_sync();
}

static void wait_sems_ready(void)
{
	while (sems_ready != SEMS_READY)
		__asm__ volatile("fence" ::: "memory");   /* each poll sees fresh L1; the last one acquires */
}

static void copy_page(volatile uint32_t *to, const volatile uint32_t *from)
{
	for (uint32_t i = 0; i < PAGE_WORDS; i++)
		to[i] = from[i];
}

int main_brisc(void)
{
	const struct page_end e = { .who = "brisc", .cb = CB_IN, .producer = 1, .calls = PAGE_CALLS_DATA_MOVEMENT,
				    .pages = pipeline_tiles, .batch = 1, .stage = 0 };
	int rc = page_config_check(&cb_config[CB_IN * 4], (uintptr_t)fifo_in, sizeof fifo_in, 1, "brisc", CB_IN);
	return rc == MC_OK ? page_end_run(&e, cb_config) : rc;
}

int main_trisc0(void)
{
	const uint32_t tiles = pipeline_tiles;

	tt_push(TT_SEMINIT(SEM_SRCA, SRCA_SLOTS, 0));
	tt_push(TT_SEMINIT(SEM_DST, DST_SLOTS, 0));
	tt_sync();
	__asm__ volatile("fence" ::: "memory");   /* release: pairs with the fence of wait_sems_ready */
	sems_ready = SEMS_READY;
	cb_interface_setup_unpacker(cb_config, 1u << CB_IN);
	for (uint32_t seq = 0; seq < tiles; seq++) {
		volatile uint32_t *slot = srca_slot[seq % SRCA_SLOTS];
		cb_wait_front_unpacker(CB_IN, 1);
		sem_wait_push(SEM_SRCA, TT_SEMWAIT_WHILE_MAX);
		sem_waits_done();
		copy_page(slot, (const volatile uint32_t *)(uintptr_t)get_read_ptr_unpacker(CB_IN));
		cb_pop_front_unpacker(CB_IN, 1);
		int rc = page_check(slot, PAGE_WORDS, seq, 0, "trisc0", CB_IN);
		if (rc != MC_OK)
			return rc;
		tt_push(TT_SEMPOST(SEM_SRCA));
	}
	tt_sync();   /* the last tiles_acked has reached the stream */
	return page_counters_check("trisc0", CB_IN, tiles);
}

int main_trisc1(void)
{
	const uint32_t tiles = pipeline_tiles;

	wait_sems_ready();
	for (uint32_t seq = 0; seq < tiles; seq++) {
		sem_wait_push(SEM_SRCA, TT_SEMWAIT_WHILE_ZERO);
		sem_wait_push(SEM_DST, TT_SEMWAIT_WHILE_MAX);
		sem_waits_done();
		page_forward(dst_slot[seq % DST_SLOTS], srca_slot[seq % SRCA_SLOTS], PAGE_WORDS, seq, 1);
		tt_push(TT_SEMGET(SEM_SRCA));
		tt_push(TT_SEMPOST(SEM_DST));
	}
	tt_sync();
	return MC_OK;
}

int main_trisc2(void)
{
	const uint32_t tiles = pipeline_tiles;

	wait_sems_ready();
	cb_interface_setup_packer(cb_config, 1u << CB_OUT);
	for (uint32_t seq = 0; seq < tiles; seq++) {
		sem_wait_push(SEM_DST, TT_SEMWAIT_WHILE_ZERO);
		sem_waits_done();
		cb_reserve_back_packer(CB_OUT, 1);
		copy_page((volatile uint32_t *)(uintptr_t)get_write_ptr_packer(CB_OUT), dst_slot[seq % DST_SLOTS]);
		cb_push_back_packer(CB_OUT, 1);
		tt_push(TT_SEMGET(SEM_DST));
	}
	tt_sync();
	return MC_OK;
}

int main_ncrisc(void)
{
	const uint32_t tiles = pipeline_tiles;
	uint32_t fold = PAGE_HASH_SEED;
	int rc = page_config_check(&cb_config[CB_OUT * 4], (uintptr_t)fifo_out, sizeof fifo_out, 1, "ncrisc", CB_OUT);

	if (rc != MC_OK)
		return rc;
	cb_interface_setup(cb_config, 1u << CB_OUT);
	for (uint32_t seq = 0; seq < tiles; seq++) {
		cb_wait_front(CB_OUT, 1);
		const volatile uint32_t *page = (const volatile uint32_t *)(uintptr_t)get_read_ptr(CB_OUT);
		rc = page_check(page, PAGE_WORDS, seq, 1, "ncrisc", CB_OUT);
		if (rc != MC_OK)
			return rc;
		fold = page_hash(fold, page[PAGE_WORDS - 1]);
		cb_pop_front(CB_OUT, 1);
	}
	rc = page_counters_check("ncrisc", CB_OUT, tiles);
	pipeline_result[0] = tiles;
	pipeline_result[1] = fold;
	if (rc == MC_OK)
		bare_printf("tensix_pipeline: %u tiles unpack -> math -> pack through Tensix semaphores: ok\n", tiles);
	return rc;
}
