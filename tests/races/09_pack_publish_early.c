/* Race #9 (races.md), the Tensix side: a CB page published before the packer finished writing it,
 * freed before the unpacker finished reading it, packed into while the consumer holds it, or
 * unpacked before the producer pushed it. A copy pipeline through the compute library:
 *   NCRISC fills CB 0 with BF16 tiles; TRISC0 unpacks each (UNPACR) and pops it; TRISC1 moves it
 *   into Dst; TRISC2 packs it into CB 1 (PACR) and pushes it; BRISC checks every datum of CB 1.
 * Publishing right (cb.h): the Tensix thread stores the new count with STOREREG behind a STALLWAIT
 * that holds the scalar unit until the packer (C3) or the unpackers (C1, C2) are done. The bugs,
 * one chosen at build time:
 *   RACE_PUSH_PLAIN (default) TRISC2 pushes with a plain store of its own (cb_push_back_packer_nocp):
 *                           the PACRs it queued may still be packing the page (cb-publish-early);
 *   RACE_STOREREG_NO_STALL  TRISC2 publishes through STOREREG but without the STALLWAIT;
 *   RACE_POP_EARLY          TRISC0 pops with a plain store (cb_pop_front_unpacker_nocp) while its
 *                           UNPACRs may still be reading the page;
 *   RACE_PACK_UNRESERVED    TRISC2 packs without cb_reserve_back: with a slow consumer (here BRISC
 *                           waits until every tile is packed) the third tile goes into page 0,
 *                           which BRISC still holds (cb-ownership, opt-in);
 *   RACE_UNPACK_UNWAITED    TRISC0 unpacks without cb_wait_front: with a slow producer (NCRISC
 *                           waits until TRISC0 unpacked once) the first UNPACR reads a page
 *                           nobody pushed (cb-ownership).
 * RACE_FIXED makes the tt-llk calls (with RACE_POP_EARLY: a TTSync, then the plain store: the
 * thread is idle, so the store comes after the UNPACRs).
 *   bhemu run --cores brisc,ncrisc,trisc0,trisc1,trisc2 [--check default,cb-ownership] 09_pack_publish_early.elf
 * Exit 0 on every core when the copy is exact; BRISC exits 9 at the first wrong datum. */
#include "compute_cb.h"
#include "multicore.h"

#define PAGE 2048u
#define CB_IN 0u
#define CB_OUT 1u
#define CB_PAGES 2u
#define TILES 4u

COMPUTE_DEFINE_STATE;

static uint8_t cb_mem[2][CB_PAGES * PAGE] __attribute__((aligned(64)));
static volatile uint32_t cb_config[2 * 4] __attribute__((aligned(16)));

void multicore_init(void)
{
	for (unsigned c = 0; c < 2; c++)
		cb_config_set(cb_config, c, cb_mem[c], CB_PAGES, PAGE);
	cb_counters_reset(3);
}

/* Datum k of tile t: normal BF16 numbers in [1, 4), exact through SrcA, Dst and the packer. */
static uint16_t datum(uint32_t t, uint32_t k)
{
	return (uint16_t)(0x3F80u + ((k * 5 + t * 11) & 0xFFu));
}

#if defined(RACE_PACK_UNRESERVED) && !defined(RACE_FIXED)
static volatile uint32_t packed_all;      /* the slow consumer's cue */
#elif defined(RACE_UNPACK_UNWAITED) && !defined(RACE_FIXED)
static volatile uint32_t unpacked_once;   /* the slow producer's cue */
#endif

int main_ncrisc(void)
{
#if defined(RACE_UNPACK_UNWAITED) && !defined(RACE_FIXED)
	while (!unpacked_once)   /* a slow producer */
		__asm__ volatile("fence" ::: "memory");
#endif
	cb_interface_setup(cb_config, 1u << CB_IN);
	for (uint32_t t = 0; t < TILES; t++) {
		cb_reserve_back(CB_IN, 1);
		volatile uint16_t *p = (volatile uint16_t *)(uintptr_t)get_write_ptr(CB_IN);
		for (uint32_t k = 0; k < PAGE / 2; k++)
			p[k] = datum(t, k);
		cb_push_back(CB_IN, 1);
	}
	return 0;
}

int main_brisc(void)
{
#if defined(RACE_PACK_UNRESERVED) && !defined(RACE_FIXED)
	while (!packed_all)   /* a slow consumer */
		__asm__ volatile("fence" ::: "memory");
#endif
	cb_interface_setup(cb_config, 1u << CB_OUT);
	for (uint32_t t = 0; t < TILES; t++) {
		cb_wait_front(CB_OUT, 1);
		const volatile uint16_t *p = (const volatile uint16_t *)(uintptr_t)get_read_ptr(CB_OUT);
		for (uint32_t k = 0; k < PAGE / 2; k++)
			if (p[k] != datum(t, k)) {
				bare_printf("pack_publish_early: tile %u datum %u: 0x%04x, expected 0x%04x\n", t, k, p[k],
					    datum(t, k));
				return 9;
			}
		cb_pop_front(CB_OUT, 1);
	}
	bare_printf("pack_publish_early: %u tiles copied exactly\n", TILES);
	return 0;
}

#if defined(RACE_FIXED) && defined(RACE_POP_EARLY)
/* The other right way to pop: after a TTSync the thread is idle, every UNPACR done. */
static void pop_after_ttsync(uint32_t cb, uint32_t n)
{
	tt_sync();
	cb_pop_front_unpacker_nocp(cb, n);
}
#elif defined(RACE_FIXED)
#elif defined(RACE_STOREREG_NO_STALL)
/* cb_push_back_packer without its STALLWAIT: STOREREG right behind the PACRs. */
static void push_back_no_stall(uint32_t cb, uint32_t n)
{
	struct cb_interface *ci = &cb_interface[cb];
	CB_COMPILER_BARRIER();
	ci->fifo_wr_ptr = cb_ptr_advance(ci, ci->fifo_wr_ptr, n);
	ci->tiles_received = (uint16_t)(ci->tiles_received + n);
	CB_PUBLISH_THROUGH_TENSIX(cb, CB_REG_TILES_RECEIVED, CB_GPR_TILES_RECEIVED, ci->tiles_received, "");
}
#elif defined(RACE_PACK_UNRESERVED)
static void no_reserve(uint32_t cb, uint32_t n)
{
	(void)cb, (void)n;
}
#elif defined(RACE_UNPACK_UNWAITED)
static void no_wait(uint32_t cb, uint32_t n)
{
	static uint32_t waits;
	(void)cb, (void)n;
	if (waits++ == 1) {   /* the first tile's UNPACR has gone out */
		tt_sync();
		unpacked_once = 1;
	}
}
#endif

static const struct compute_cb_calls calls = {
#if defined(RACE_FIXED)
	cb_wait_front_unpacker,
#if defined(RACE_POP_EARLY)
	pop_after_ttsync,
#else
	cb_pop_front_unpacker,
#endif
	cb_reserve_back_packer, cb_push_back_packer,
#elif defined(RACE_STOREREG_NO_STALL)
	cb_wait_front_unpacker, cb_pop_front_unpacker, cb_reserve_back_packer, push_back_no_stall,
#elif defined(RACE_POP_EARLY)
	cb_wait_front_unpacker, cb_pop_front_unpacker_nocp, cb_reserve_back_packer, cb_push_back_packer,
#elif defined(RACE_PACK_UNRESERVED)
	cb_wait_front_unpacker, cb_pop_front_unpacker, no_reserve, cb_push_back_packer,
#elif defined(RACE_UNPACK_UNWAITED)
	no_wait, cb_pop_front_unpacker, cb_reserve_back_packer, cb_push_back_packer,
#else
	cb_wait_front_unpacker, cb_pop_front_unpacker, cb_reserve_back_packer, cb_push_back_packer_nocp,
#endif
};

static void copy(unsigned idst)
{
	copy_tile(CB_IN, 0, idst);
}

static int compute(enum compute_thread role)
{
	compute_unary_cb_begin(role, cb_config, CB_IN, CB_OUT);
	for (uint32_t t = 0; t < TILES; t++)
		compute_unary_cb_tile(CB_IN, CB_OUT, copy, &calls);
	compute_end();
#if defined(RACE_PACK_UNRESERVED) && !defined(RACE_FIXED)
	if (role == COMPUTE_PACK)
		packed_all = 1;
#endif
	return 0;
}

int main_trisc0(void) { return compute(COMPUTE_UNPACK); }
int main_trisc1(void) { return compute(COMPUTE_MATH); }
int main_trisc2(void) { return compute(COMPUTE_PACK); }
