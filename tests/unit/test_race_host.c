/* Race catalogue items of the fast-dispatch host protocol (reference/races.md section 4), as a
 * host program that writes the rings itself through the raw host-memory and L1 calls would make
 * them, each with its fixed twin. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cores/cq_cmds.h"
#include "cores/cq_model.h"
#include "testlib.h"

#define SEEDS 10

/* A booted 3x2 grid with a command queue, the prefetcher slow to fetch (prefetch-slow) under
 * `seed`; checks in stop mode. */
static struct bh_device *boot_slow_prefetch(uint64_t seed, struct bh_cq **cq)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 3, .grid_rows = 2, .seed = seed,
					.provoke = BH_PROVOKE_PREFETCH_SLOW };
	struct bh_device *dev;
	struct bh_boot_result res;
	char dir[512], err[512] = "";
	snprintf(dir, sizeof dir, "%s/firmware/ref", BHEMU_BINARY_DIR);
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	int rc = bh_boot(dev, bh_profile_default(), dir, &(struct bh_boot_options){ .timeout_s = 10 }, &res);
	cr_assert_eq(rc, BH_OK, "%s\n%s", res.message, res.report ? res.report : "");
	free(res.report);
	rc = bh_cq_open(dev, &(struct bh_cq_config){ .timeout_s = 10 }, cq, err, sizeof err);
	cr_assert_eq(rc, BH_OK, "bh_cq_open: %d: %s", rc, err);
	return dev;
}

/* A 64-byte prefetch DEBUG record (a no-op) carrying key. */
static void debug_record(uint8_t rec[64], uint16_t key)
{
	memset(rec, 0, 64);
	rec[0] = BH_CQP_DEBUG;
	bh_cq_put(rec, BH_CQF_P_DEBUG_key, key);
	bh_cq_put(rec, BH_CQF_P_DEBUG_stride, 64);
}

/* Rewrites the 64-byte record at issue-ring offset off through the raw host-memory pointer. */
static void rewrite_record(struct bh_device *dev, const struct bh_cq_state *st, uint32_t off, uint16_t key)
{
	void *mem;
	uint64_t size, base;
	uint8_t rec[64];
	cr_assert_eq(bh_host_mem(dev, &mem, &size, &base), BH_OK);
	debug_record(rec, key);
	uint8_t *at = (uint8_t *)mem + (st->issue_base - (uint32_t)base) + off;
	for (unsigned k = 0; k < sizeof rec; k += 4) {
		uint32_t w;
		memcpy(&w, rec + k, 4);
		__atomic_store_n((uint32_t *)(at + k), w, __ATOMIC_RELEASE);
	}
}

/* A booted device with the slow prefetcher, the queue's state before anything was enqueued
 * (*st), and one 64-byte debug record (rec) announced through the library. */
static struct bh_device *boot_and_announce(uint64_t seed, struct bh_cq **cq, struct bh_cq_state *st, uint8_t rec[64])
{
	struct bh_device *dev = boot_slow_prefetch(seed, cq);
	cr_assert_eq(bh_cq_state(*cq, st), BH_OK);
	debug_record(rec, 1);
	cr_assert_eq(bh_cq_enqueue_record(*cq, rec, 64), BH_OK);
	return dev;
}

/* #28: the host announces a record in prefetch_q (here through the library, which wrote it
 * correctly), then rewrites it in the issue ring at once, before the slow prefetcher fetched it.
 * cq-record-changed stops the queue naming the record, the slot and the changed word. */
Test(race_28, record_rewritten_after_its_announcement_is_reported)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct bh_cq *cq;
		struct bh_cq_state st;
		uint8_t rec[64];
		struct bh_device *dev = boot_and_announce(seed, &cq, &st, rec);
		/* The bug: a while later (the host did other work), the record is rewritten in place; the
		 * prefetcher has seen the slot by then, but may not have fetched the record yet. */
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 }, NULL);
		rewrite_record(dev, &st, st.issue_wr, 2);
		int rc = bh_cq_finish(cq);
		char want[256];
		snprintf(want, sizeof want, "the 64-byte record at issue ring offset 0x%x, announced by prefetch_q[%u] = "
			 "0x0004, changed before the prefetcher fetched it: word at record offset 0x0 was 0x0001000a when "
			 "announced, 0x0002000a when fetched", st.issue_wr, st.prefetch_q_idx);
		if (rc == BH_ERR_CQ) {
			assert_has(bh_cq_error(cq), "check cq-record-changed: ");
			assert_has(bh_cq_error(cq), want);
			assert_has(bh_cq_error(cq), "(other: the host, writing the issue ring after announcing the record");
			cr_expect_eq(bh_device_findings(dev, NULL, 0), 1);
			printf("race #28 cq_record_changed: caught at seed %llu of %u\n", (unsigned long long)seed, SEEDS);
			bh_cq_close(cq);
			bh_device_close(dev);
			return;
		}
		cr_assert_eq(rc, BH_OK, "seed %llu: %d: %s", (unsigned long long)seed, rc, bh_cq_error(cq));
		bh_cq_close(cq);
		bh_device_close(dev);
	}
	cr_assert_fail("the rewritten record was not caught within %u seeds", SEEDS);
}

/* The twin rewrites the record's bytes only after the prefetcher fetched them: PCIE_RD_PTR (the
 * prefetcher's read position, in its L1) has passed the record. */
Test(race_28, fixed_host_rewrites_only_what_the_prefetcher_fetched)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct bh_cq *cq;
		struct bh_cq_state st;
		uint8_t rec[64];
		struct bh_device *dev = boot_and_announce(seed, &cq, &st, rec);
		uint32_t rd = 0, end = st.issue_base + st.issue_wr + sizeof rec;
		for (unsigned k = 0; k < 10000 && rd < end; k++) {
			cr_assert_eq(bh_l1_read(dev, st.prefetch_tile, BH_CQ_PCIE_RD_PTR, &rd, 4), BH_OK);
			if (rd < end)
				sleep_ms(1);
		}
		cr_assert_geq(rd, end, "the prefetcher never fetched the record");
		rewrite_record(dev, &st, st.issue_wr, 2);
		int rc = bh_cq_finish(cq);
		cr_assert_eq(rc, BH_OK, "seed %llu: %d: %s", (unsigned long long)seed, rc, bh_cq_error(cq));
		cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
		bh_cq_close(cq);
		bh_device_close(dev);
	}
}

/* #29: a host announces its record in the prefetch_q slot it believes is next, but that slot
 * still holds the record the library announced there a moment ago (an index one behind). The
 * prefetcher frees the slot after fetching the first record and so loses the second:
 * cq-slot-overwritten names the slot and both values. */
Test(race_29, slot_written_while_non_zero_is_reported)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct bh_cq *cq;
		struct bh_cq_state st;
		uint8_t rec[64];
		struct bh_device *dev = boot_and_announce(seed, &cq, &st, rec);
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 }, NULL);
		uint16_t v = 0x0008;   /* a 128-byte record, announced in the slot the library just used */
		cr_assert_eq(bh_l1_write(dev, st.prefetch_tile, BH_CQ_PREFETCH_Q + 2 * st.prefetch_q_idx, &v, 2), BH_OK);
		int rc = bh_cq_finish(cq);
		if (rc == BH_ERR_CQ && strstr(bh_cq_error(cq), "check cq-slot-overwritten: ")) {
			char want[200];
			snprintf(want, sizeof want, "prefetch_q[%u] (L1 0x%x) was written while non-zero: it announced 0x0004, "
				 "the prefetcher fetched that record, and before it freed the slot it held 0x0008",
				 st.prefetch_q_idx, BH_CQ_PREFETCH_Q + 2 * st.prefetch_q_idx);
			assert_has(bh_cq_error(cq), want);
			printf("race #29 cq_slot_overwritten: caught at seed %llu of %u\n", (unsigned long long)seed, SEEDS);
			bh_cq_close(cq);
			bh_device_close(dev);
			return;
		}
		/* Not caught: the slot was written before the prefetcher looked (its first record lost,
		 * the second fetched as 128 bytes of the ring), or after it freed it. */
		bh_cq_close(cq);
		bh_device_close(dev);
	}
	cr_assert_fail("the slot written while non-zero was not caught within %u seeds", SEEDS);
}

/* The twin writes its slot only once it reads 0, as the library does: two records through the
 * library, no finding. */
Test(race_29, fixed_host_writes_a_slot_only_once_it_reads_zero)
{
	struct bh_cq *cq;
	struct bh_device *dev = boot_slow_prefetch(1, &cq);
	uint8_t rec[64];
	for (uint16_t k = 1; k <= 4; k++) {
		debug_record(rec, k);
		cr_assert_eq(bh_cq_enqueue_record(cq, rec, sizeof rec), BH_OK);
	}
	int rc = bh_cq_finish(cq);
	cr_assert_eq(rc, BH_OK, "%d: %s", rc, bh_cq_error(cq));
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_cq_close(cq);
	bh_device_close(dev);
}

/* #31: the host moves its completion read pointer past what the dispatcher wrote (it advanced
 * by a page it never read) and writes it back to the dispatcher. At the next completion the
 * dispatcher's space check finds the read pointer ahead of its write pointer:
 * cq-completion-rd names both. */
static uint32_t completion_ptr(struct bh_device *dev, const struct bh_cq_state *st, uint32_t addr)
{
	uint32_t v = 0;
	cr_assert_eq(bh_l1_read(dev, st->dispatch_tile, addr, &v, 4), BH_OK);
	return v;
}

Test(race_31, completion_read_pointer_past_the_write_pointer_is_reported)
{
	struct bh_cq *cq;
	struct bh_device *dev = boot_slow_prefetch(1, &cq);
	struct bh_cq_state st;
	cr_assert_eq(bh_cq_finish(cq), BH_OK, "%s", bh_cq_error(cq));
	cr_assert_eq(bh_cq_state(cq, &st), BH_OK);
	uint32_t wr = completion_ptr(dev, &st, BH_CQ_COMPLETION_WR_PTR);
	uint32_t bad = wr + (4096 >> 4);   /* one page further, same toggle */
	cr_assert_eq(bh_l1_write(dev, st.dispatch_tile, BH_CQ_COMPLETION_RD_PTR, &bad, 4), BH_OK);
	cr_expect_eq(bh_cq_finish(cq), BH_ERR_CQ);
	char want[256];
	snprintf(want, sizeof want, "check cq-completion-rd: the host's completion read pointer 0x%08x (16-byte unit 0x%x, "
		 "toggle 0) is past the dispatcher's write pointer 0x%08x (unit 0x%x, toggle 0)", bad, bad, wr, wr);
	assert_has(bh_cq_error(cq), want);
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 1);
	bh_cq_close(cq);
	bh_device_close(dev);
}

/* The twin writes back the pointer it really read up to (here: where it is). */
Test(race_31, fixed_host_read_pointer_stays_behind_the_write_pointer)
{
	struct bh_cq *cq;
	struct bh_device *dev = boot_slow_prefetch(1, &cq);
	struct bh_cq_state st;
	cr_assert_eq(bh_cq_finish(cq), BH_OK, "%s", bh_cq_error(cq));
	cr_assert_eq(bh_cq_state(cq, &st), BH_OK);
	uint32_t rd = completion_ptr(dev, &st, BH_CQ_COMPLETION_RD_PTR);
	cr_assert_eq(bh_l1_write(dev, st.dispatch_tile, BH_CQ_COMPLETION_RD_PTR, &rd, 4), BH_OK);
	cr_expect_eq(bh_cq_finish(cq), BH_OK, "%s", bh_cq_error(cq));
	cr_expect_eq(bh_device_findings(dev, NULL, 0), 0);
	bh_cq_close(cq);
	bh_device_close(dev);
}
