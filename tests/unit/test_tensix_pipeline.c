/* The three TRISCs as unpack, math and pack, handing tiles to each other through their Tensix
 * threads (tests/guest/mc/tensix_pipeline.c): BRISC fills CB0, TRISC0 unpacks into SrcA slots and
 * frees CB0 pages by STOREREG, TRISC1 transforms SrcA into Dst slots, TRISC2 packs into CB16 and
 * publishes by STOREREG, NCRISC checks every page. Slots change hands by SEMPOST/SEMGET/SEMWAIT
 * pushed as Tensix instructions. The host computes the checksum every page must fold into.
 *
 * Tiles: 50000 (a few seconds in Release), 20000 under the sanitizers; the environment variable
 * BHEMU_TENSIX_PIPELINE_TILES overrides both (the BHEMU_SOAK build adds an entry with 2 million). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

#include "cores/tensix.h"
#include "host/device.h"
#include "sync/pcbuf.h"
#include "sync/tensix_sem.h"
#include "tests/guest/mc/cb_page_words.h"
#include "testlib.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEFAULT_TILES 20000u
#else
#define DEFAULT_TILES 50000u
#endif

#define ELF "guest/mc_tensix_pipeline.elf"
#define PAGE_WORDS 16u            /* tensix_pipeline.c: 64-byte pages */
#define MATH_STAGES 1u            /* TRISC1 forwards each page one stage on */
#define SEM_MATH_PACK 1u
#define SEM_UNPACK_TO_DEST 2u

static uint32_t tiles_to_run(void)
{
	const char *env = getenv("BHEMU_TENSIX_PIPELINE_TILES");
	if (env == NULL || *env == '\0')
		return DEFAULT_TILES;
	char *end;
	unsigned long v = strtoul(env, &end, 10);
	cr_assert(*end == '\0' && v > 0 && v <= 100000000ul, "BHEMU_TENSIX_PIPELINE_TILES=%s: want 1..100000000", env);
	return (uint32_t)v;
}

static uint32_t symbol(struct bh_device *dev, const char *name)
{
	uint32_t addr = 0;
	cr_assert_eq(bh_core_symbol_lookup(dev, 0, BH_CORE_BRISC, name, &addr), BH_OK, "%s has no symbol %s", ELF, name);
	return addr;
}

/* Every core must exit 0; otherwise the test stops with its report and the device's. */
static void expect_all_exit_0(struct bh_device *dev, uint32_t tiles)
{
	struct bh_core_result *r = result_new();
	/* Generous: about 30 us per tile in Release, a hundred times that under TSan on a busy host. */
	uint64_t ms = 60000 + (uint64_t)tiles * 10;
	int timeout_ms = ms > 3600000 ? 3600000 : (int)ms;
	for (unsigned k = 0; k < 5; k++) {
		int rc = bh_core_wait(dev, 0, all_cores[k], timeout_ms, r);
		if (rc != BH_OK || r->status != BH_RUN_EXITED || r->exit_status != 0) {
			static char report[1 << 16];
			bh_device_report(dev, report, sizeof report);
			cr_assert_fail("%s: wait %d, status %d, exit %d\n%s\n%s", core_names[k], rc, r->status,
				       r->exit_status, r->report, report);
		}
	}
	free(r);
}

Test(tensix_pipeline, unpack_math_pack_hand_every_tile_on_by_semaphores_and_publish_cbs_by_storereg)
{
	tl_skip_unless_built(ELF);
	const uint32_t tiles = tiles_to_run();
	uint32_t entry[5];
	struct bh_device *dev = t_open();
	load_multicore_elf(dev, ELF, all_cores, 5, entry);
	cr_assert_eq(bh_l1_write(dev, 0, symbol(dev, "pipeline_tiles"), &tiles, 4), BH_OK);

	double t0 = wall_seconds();
	for (unsigned k = 0; k < 5; k++)
		cr_assert_eq(bh_core_start(dev, 0, all_cores[k], entry[k]), BH_OK);
	expect_all_exit_0(dev, tiles);
	double s = wall_seconds() - t0;

	uint32_t result[2], want = PAGE_HASH_SEED;
	cr_assert_eq(bh_l1_read(dev, 0, symbol(dev, "pipeline_result"), result, sizeof result), BH_OK);
	for (uint32_t seq = 0; seq < tiles; seq++)
		want = page_hash(want, page_checksum(seq, MATH_STAGES, PAGE_WORDS));
	cr_expect_eq(result[0], tiles, "NCRISC checked %u tiles of %u", result[0], tiles);
	cr_expect_eq(result[1], want, "checksum fold 0x%08x, host computed 0x%08x", result[1], want);

	struct bh_tile *t = dev->tiles[0];
	cr_expect_eq(bh_sem_value(t, SEM_UNPACK_TO_DEST), 0, "every SrcA slot posted by unpack was taken by math");
	cr_expect_eq(bh_sem_value(t, SEM_MATH_PACK), 0, "every Dst slot posted by math was taken by pack");
	for (unsigned i = 0; i < BH_TT_THREADS; i++)
		cr_expect(bh_pcbuf_tensix_thread_idle(t, i), "Tensix thread %u did not drain", i);
	cr_log_info("%u tiles in %.2f s: %.0f tiles/s", tiles, s, tiles / s);
	bh_device_close(dev);
}
