/* Counter waits (sync/watch.h, bh_watch_until): a waiter parked on a completion counter (stream
 * register 297, incremented through register 270 as workers report done to a dispatcher) with a
 * target is woken once, by the update that leaves the counter at its target, not by each
 * increment on the way; the compare wraps on 17 bits; a write whose value the writer does not
 * know still wakes it; a cleared or unregistered target holds nothing back; and with threads
 * incrementing while the waiter parks again and again, no wake-up is lost. States, not timing. */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>

#include "fabric/tile.h"
#include "host/device.h"
#include "sync/park.h"
#include "sync/streams.h"
#include "sync/watch.h"
#include "testlib.h"

#define STREAM 2u                               /* no CB, no dispatch role */
#define SLOT BH_WATCH_SLOT_CQ(1)                /* where the dispatcher model watches */
#define BITS 17u
#define COUNTER BH_STREAM_ADDR(STREAM, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE)

static void bump(struct bh_tile *t, uint32_t n)
{
	cr_assert(bh_stream_write(t, STREAM, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE, n << 6));
}

static uint32_t count(struct bh_tile *t)
{
	return bh_stream_read(t, STREAM, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE);
}

/* What the dispatcher does before it re-checks: watch the counter, then publish its target. */
static bool watch(struct bh_tile *t, struct bh_waiter *w, uint32_t target)
{
	uint32_t a = COUNTER;
	uint8_t size = 4;
	bool fenced = bh_watch_arm(t, SLOT, w, &a, &size, 1);
	bh_watch_until(t, SLOT, a, target, BITS);
	return fenced;
}

static uint32_t wakes(struct bh_waiter *w)
{
	return atomic_load(&w->wake_seq);
}

Test(watch_count, waiter_is_woken_once_at_its_target_not_per_increment)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = dev->tiles[0];
	struct bh_waiter w = { 0 };
	cr_assert_eq(count(t), 0);
	watch(t, &w, 5);
	for (unsigned k = 1; k <= 4; k++) {
		bump(t, 1);
		cr_expect_eq(wakes(&w), 0, "increment to %u of 5 woke the waiter", k);
	}
	bump(t, 1);
	cr_expect_eq(count(t), 5);
	cr_expect_eq(wakes(&w), 1, "the increment that reached the target must wake it, once");
	bump(t, 2);   /* past the target: still reached */
	cr_expect_eq(wakes(&w), 2);
	bh_watch_unregister(t, SLOT);
	bh_device_close(dev);
}

Test(watch_count, a_jump_over_the_target_wakes_and_the_compare_wraps_on_17_bits)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = dev->tiles[0];
	struct bh_waiter w = { 0 };
	bump(t, 0x1FFFE);
	cr_assert_eq(count(t), 0x1FFFE);
	watch(t, &w, 1);   /* two increments away, across the wrap */
	bump(t, 1);
	cr_expect_eq(wakes(&w), 0, "0x1ffff is short of 1 on 17 bits");
	bump(t, 1);
	cr_expect_eq(count(t), 0);
	cr_expect_eq(wakes(&w), 0, "0 is short of 1 on 17 bits");
	bump(t, 3);   /* from 0 to 3, over 1 */
	cr_expect_eq(wakes(&w), 1);
	/* A target far behind the counter (more than half the range) is not reached: the counter
	 * wrapped and is short of it again, as stream_wrap_ge says. */
	watch(t, &w, 3 + 0x10001);
	bump(t, 1);
	cr_expect_eq(wakes(&w), 1, "4 is 0xffff short of 0x10004 on 17 bits");
	bh_watch_unregister(t, SLOT);
	bh_device_close(dev);
}

Test(watch_count, a_write_of_unknown_value_a_cleared_target_and_a_new_wait_all_wake)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = dev->tiles[0];
	struct bh_waiter w = { 0 };
	watch(t, &w, 100);
	bh_tile_mmio_written(t, COUNTER);   /* a writer that does not say what it left there */
	cr_expect_eq(wakes(&w), 1);
	/* The received register loads 297 as well: that write knows no counter value either. */
	cr_assert(bh_stream_write(t, STREAM, BH_STREAM_REG_CB_RECEIVED, 7));
	cr_expect_eq(count(t), 7);
	cr_expect_eq(wakes(&w), 2);
	bump(t, 1);
	cr_expect_eq(wakes(&w), 2, "8 is short of 100");
	bh_watch_until_clear(t, SLOT);
	bump(t, 1);
	cr_expect_eq(wakes(&w), 3, "without a target every increment wakes");
	/* Unregistering drops the target: the slot's next wait (no target) is not held back by it. */
	watch(t, &w, 100);
	bh_watch_unregister(t, SLOT);
	uint32_t a = COUNTER;
	uint8_t size = 4;
	bh_watch_arm(t, SLOT, &w, &a, &size, 1);
	bump(t, 1);
	cr_expect_eq(wakes(&w), 4, "a stale target held back a wait that has none");
	bh_watch_unregister(t, SLOT);
	bh_device_close(dev);
}

/* ---- Racing increments: the waiter parks for successive targets while workers increment. ---- */

#define WORKERS 4u
#define PER_WORKER 3000u
#define STEP 7u   /* the waiter's targets: 7, 14, ... (not a multiple of what one worker adds) */

struct race {
	struct bh_tile *t;
	_Atomic unsigned go;
};

static void *race_worker(void *arg)
{
	struct race *r = arg;
	while (!atomic_load(&r->go))
		sched_yield();
	for (unsigned k = 0; k < PER_WORKER; k++)
		bump(r->t, 1);
	return NULL;
}

Test(watch_count, racing_increments_never_lose_the_wake_up_at_the_target)
{
	struct bh_device *dev = t_open();
	struct race r = { .t = dev->tiles[0] };
	struct bh_waiter w = { 0 };
	pthread_t th[WORKERS];
	for (unsigned k = 0; k < WORKERS; k++)
		cr_assert_eq(pthread_create(&th[k], NULL, race_worker, &r), 0);
	atomic_store(&r.go, 1);
	const uint32_t total = WORKERS * PER_WORKER;
	for (uint32_t target = STEP; target <= total; target += STEP) {
		uint64_t unfenced_ns = 0;
		for (;;) {
			uint32_t seq = bh_park_seq(&w);
			bool fenced = watch(r.t, &w, target);
			if (bh_watch_counter_reached(count(r.t), target, BITS))
				break;
			/* Fenced: no timeout worth the name, so a sleep that ends unwoken short of the
			 * target is a lost wake-up (60 s only keeps a failure from hanging the suite). */
			uint64_t ns = bh_park_fenced_timeout(fenced, 60000000000ull, &unfenced_ns);
			bh_park_sleep(&w, seq, ns);
			if (fenced && bh_park_seq(&w) == seq)
				cr_assert(bh_watch_counter_reached(count(r.t), target, BITS),
					  "lost wake-up: slept out its timeout at %u short of %u", count(r.t), target);
		}
	}
	for (unsigned k = 0; k < WORKERS; k++)
		pthread_join(th[k], NULL);
	cr_expect_eq(count(r.t), total & 0x1FFFF);
	bh_watch_unregister(r.t, SLOT);
	bh_device_close(dev);
}

/* Register watches are found through a per-tile mask of the watched registers: when one waiter
 * stops watching its register, another's register stays in the mask (its writes still wake it),
 * and writes to the register nobody watches any more wake nobody. */
Test(watch_count, a_register_watch_outlives_another_slots_unregistering)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = dev->tiles[0];
	struct bh_waiter a = { 0 }, b = { 0 };
	uint32_t ra = COUNTER, rb = BH_STREAM_ADDR(STREAM + 1, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE);
	uint8_t size = 4;
	bh_watch_arm(t, SLOT, &a, &ra, &size, 1);
	bh_watch_arm(t, BH_WATCH_SLOT_CQ(0), &b, &rb, &size, 1);
	bh_watch_unregister(t, SLOT);
	bh_tile_mmio_written(t, rb);
	cr_expect_eq(wakes(&b), 1, "a write to the register still watched did not wake its waiter");
	bh_tile_mmio_written(t, ra);
	cr_expect_eq(wakes(&a), 0, "a write to a register no longer watched woke its former waiter");
	cr_expect_eq(wakes(&b), 1, "a write to another register woke the waiter");
	bh_watch_unregister(t, BH_WATCH_SLOT_CQ(0));
	bh_tile_mmio_written(t, rb);
	cr_expect_eq(wakes(&b), 1, "a write after the last unregistering woke the waiter");
	bh_device_close(dev);
}
