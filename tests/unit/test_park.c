/* Spin-wait parking (issue: waiting costs nothing): a core polling without progress parks its
 * thread until a word it reads is written; loops that make progress never park; wall-clock
 * polls sleep with timeouts and still end on time. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <time.h>
#include <stdlib.h>

#include <pthread.h>
#include <sched.h>

#include "host/device.h"
#include "sync/park.h"
#include "testlib.h"

#define CODE 0x1000u
#define FLAG 0x8000u
#define WALL_CLOCK_0 0xFFB121F0u
#define WALL_CLOCK_1_AT 0xFFB121F8u

static uint64_t parks(struct bh_device *dev, enum bh_core_id core)
{
	return atomic_load(&dev->tiles[0]->core[core]->waiter.parks);
}

/* loop: [fence;] lw a0, FLAG; beqz a0, loop; exit(a0) */
static void emit_poll_flag(struct prog *p, bool with_fence)
{
	if (!with_fence)
		emit(p, INSN_L0_CACHE_OFF);   /* polls without fence are then correct */
	emit_li(p, A1, FLAG);
	int32_t loop = prog_here(p);
	if (with_fence)
		emit(p, INSN_FENCE);
	emit(p, lw(A0, 0, A1));
	emit_branch(p, BEQ, A0, X0, loop);
	emit_exit(p);
}

/* Start the program on `core`, let it poll for 300 ms, measure the process CPU time it used,
 * then write the flag from the host and expect the exit. */
static void poll_parks_and_wakes(enum bh_core_id core, bool with_fence)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_poll_flag(&p, with_fence);
	prog_put(dev, 0, CODE, &p);
	cr_assert_eq(bh_core_start(dev, 0, core, CODE), BH_OK);
	sleep_ms(100);                          /* detection happens within microseconds */
	double wall;
	double used = cpu_used_while_sleeping(300, &wall);
	cr_expect_lt(used, 0.1 * wall, "a parked poll loop used %.1f ms of CPU in %.0f ms", used * 1e3, wall * 1e3);
	cr_expect_gt(parks(dev, core), 0, "the poll loop never parked");
	uint32_t v = 7;
	cr_assert_eq(bh_l1_write(dev, 0, FLAG, &v, 4), BH_OK);
	expect_exit(dev, 0, core, 7);
	bh_device_close(dev);
}

Test(park, l1_poll_loop_parks_and_host_write_wakes_it)
{
	poll_parks_and_wakes(BH_CORE_BRISC, false);
}

Test(park, fenced_poll_loop_parks_and_host_write_wakes_it)
{
	poll_parks_and_wakes(BH_CORE_TRISC1, true);
}

Test(park, store_by_another_core_wakes_a_parked_poller)
{
	struct bh_device *dev = t_open();
	struct prog poll = { 0 }, writer = { 0 };
	emit_poll_flag(&poll, true);
	prog_put(dev, 0, CODE, &poll);
	/* The writer burns ~1M instructions of its own work, then stores 42 to the flag. */
	emit_li(&writer, A2, 1000000);
	int32_t delay = prog_here(&writer);
	emit(&writer, addi(A2, A2, -1));
	emit_branch(&writer, BNE, A2, X0, delay);
	emit_store_word(&writer, FLAG, 42);
	emit_exit_with(&writer, 0);
	prog_put(dev, 0, 0x2000, &writer);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_NCRISC, CODE), BH_OK);
	wait_parked(dev, 0, BH_CORE_NCRISC);   /* a state, not a time: a loaded host may take long */
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x2000), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 0);
	expect_exit(dev, 0, BH_CORE_NCRISC, 42);
	bh_device_close(dev);
}

#define RDPTR 0x8010u

/* loop: fence; sw zero, RDPTR; lw a0, FLAG; beqz a0, loop; exit(a0): the wait for GO of tt-metal's
 * BRISC firmware, which keeps resetting launch_msg_rd_ptr to 0 while the go signal says so. */
static void emit_poll_storing_zero(struct prog *p)
{
	emit_li(p, A1, FLAG);
	emit_li(p, A3, RDPTR);
	int32_t loop = prog_here(p);
	emit(p, INSN_FENCE);
	emit(p, sw(X0, 0, A3));
	emit(p, lw(A0, 0, A1));
	emit_branch(p, BEQ, A0, X0, loop);
	emit_exit(p);
}

/* Wait (10 s at most: a hang, not a timing) until the core parked more than `than` times. */
static uint64_t wait_parks(struct bh_device *dev, enum bh_core_id core, uint64_t than)
{
	for (int k = 0; k < 10000 && parks(dev, core) <= than; k++)
		sleep_ms(1);
	return parks(dev, core);
}

/* Its store changes nothing, so the loop is a poll: it parks. When the host changes the stored
 * word, the core wakes, stores 0 again and parks again; the flag ends it. */
Test(park, poll_loop_storing_what_its_word_holds_parks_and_restores_a_changed_word)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_poll_storing_zero(&p);
	prog_put(dev, 0, CODE, &p);
	uint32_t v = 0;
	cr_assert_eq(bh_l1_write(dev, 0, RDPTR, &v, 4), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, CODE), BH_OK);
	uint64_t n = wait_parks(dev, BH_CORE_BRISC, 0);
	cr_assert_gt(n, 0, "the loop never parked");
	v = 5;
	cr_assert_eq(bh_l1_write(dev, 0, RDPTR, &v, 4), BH_OK);
	for (int k = 0; k < 10000 && v != 0; k++) {
		sleep_ms(1);
		cr_assert_eq(bh_l1_read(dev, 0, RDPTR, &v, 4), BH_OK);
	}
	cr_assert_eq(v, 0, "the woken loop did not store 0 over the host's 5");
	cr_assert_gt(wait_parks(dev, BH_CORE_BRISC, n), n, "the loop did not park again");
	v = 7;
	cr_assert_eq(bh_l1_write(dev, 0, FLAG, &v, 4), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 7);
	bh_device_close(dev);
}

static uint32_t wake_seq(struct bh_device *dev, enum bh_core_id core)
{
	return atomic_load(&dev->tiles[0]->core[core]->waiter.wake_seq);
}

/* A parked poller waits for its word to change (sync/watch.h: bh_watch_expect): writes that leave
 * the word as the core saw it (the whole word, a byte of it, a range around it) do not wake it (its
 * wake_seq stays: the writer wakes synchronously, so this is no timing), and the write that changes
 * it does. */
Test(park, writes_leaving_the_polled_word_as_it_was_do_not_wake_the_core_and_a_change_does)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_poll_flag(&p, true);
	prog_put(dev, 0, CODE, &p);
	uint32_t zero = 0, around[4] = { 0x11111111u, 0, 0x22222222u, 0x33333333u };
	uint8_t byte = 0;
	cr_assert_eq(bh_l1_write(dev, 0, FLAG, &zero, 4), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, CODE), BH_OK);
	cr_assert_gt(wait_parks(dev, BH_CORE_BRISC, 0), 0, "the loop never parked");
	uint32_t seq = wake_seq(dev, BH_CORE_BRISC);
	cr_assert_eq(bh_l1_write(dev, 0, FLAG, &zero, 4), BH_OK);
	cr_expect_eq(wake_seq(dev, BH_CORE_BRISC), seq, "rewriting the 0 it polls woke the core");
	cr_assert_eq(bh_l1_write(dev, 0, FLAG + 2, &byte, 1), BH_OK);
	cr_expect_eq(wake_seq(dev, BH_CORE_BRISC), seq, "rewriting a byte of it woke the core");
	cr_assert_eq(bh_l1_write(dev, 0, FLAG - 4, around, sizeof around), BH_OK);
	cr_expect_eq(wake_seq(dev, BH_CORE_BRISC), seq, "changing only its neighbours woke the core");
	uint32_t v = 7;
	cr_assert_eq(bh_l1_write(dev, 0, FLAG, &v, 4), BH_OK);
	cr_expect_neq(wake_seq(dev, BH_CORE_BRISC), seq, "changing the polled word did not wake the core");
	expect_exit(dev, 0, BH_CORE_BRISC, 7);
	bh_device_close(dev);
}

#define ACK 0x8020u
#define FLAG2 0x9000u   /* another page */
#define ACK2 0x9020u

/* loop: fence; lw a2, flag; beq a2, last, loop; last = a2; sw a2, ack (a1: flag, a3: ack). */
static void emit_wait_change_ack(struct prog *p, uint32_t flag, uint32_t ack, unsigned last)
{
	emit_li(p, A1, flag);
	emit_li(p, A3, ack);
	int32_t loop = prog_here(p);
	emit(p, INSN_FENCE);
	emit(p, lw(A2, 0, A1));
	emit_branch(p, BEQ, A2, last, loop);
	emit(p, addi(last, A2, 0));
	emit(p, sw(A2, 0, A3));
}

/* Write value to flag, then wait (10 s at most: a hang) until the core copied it to ack. */
static void handshake(struct bh_device *dev, uint32_t flag, uint32_t ack, uint32_t value)
{
	uint32_t seen = 0;
	cr_assert_eq(bh_l1_write(dev, 0, flag, &value, 4), BH_OK);
	for (int ms = 0; ms < 10000 && seen != value; ms++) {
		cr_assert_eq(bh_l1_read(dev, 0, ack, &seen, 4), BH_OK);
		if (seen != value)
			sleep_ms(1);
	}
	cr_assert_eq(seen, value, "writing %u to 0x%x did not wake the parked core", value, flag);
}

/* A core that alternates between two waits (as a BRISC waits for GO, then for its subordinates,
 * at every launch) keeps watching the words of both: each wait's first park needs a heavy
 * fence, the later ones none, and every write still wakes the core. The loop waits for FLAG to
 * change and copies it to ACK, then does the same with FLAG2 and ACK2, and ends at 5. */
Test(park, alternating_waits_fence_only_at_their_first_park_and_every_write_wakes_the_core)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit(&p, addi(A4, X0, 5));
	emit(&p, addi(A0, X0, 0));
	emit(&p, addi(A6, X0, 0));
	int32_t top = prog_here(&p);
	emit_wait_change_ack(&p, FLAG, ACK, A0);
	emit_wait_change_ack(&p, FLAG2, ACK2, A6);
	emit_branch(&p, BNE, A6, A4, top);
	emit_exit(&p);
	prog_put(dev, 0, CODE, &p);
	bool membarrier = bh_park_heavy_fence();
	uint64_t calls0 = 0, mb0 = 0, calls1, mb1, n = 0;
	bh_park_fence_stats(&calls0, &mb0);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, CODE), BH_OK);
	for (uint32_t k = 1; k <= 5; k++) {
		n = wait_parks(dev, BH_CORE_BRISC, n);
		cr_assert_gt(n, 0, "the core did not park before write %u of FLAG", k);
		handshake(dev, FLAG, ACK, k);
		n = wait_parks(dev, BH_CORE_BRISC, n);
		handshake(dev, FLAG2, ACK2, k);
		bh_park_fence_stats(&calls1, &mb1);
		if (k == 1 && membarrier)
			cr_assert_gt(calls1, calls0, "the first parks did not fence");
		if (k == 1)
			calls0 = calls1;
	}
	expect_exit(dev, 0, BH_CORE_BRISC, 5);
	cr_expect_eq(calls1, calls0, "%llu heavy fences in %llu parks after the first of each wait",
		     (unsigned long long)(calls1 - calls0), (unsigned long long)n);
	bh_device_close(dev);
}

/* A bounded poll (timeout counter in a register) makes progress every iteration: it must never
 * park, and must run out exactly as the program says. */
Test(park, poll_with_a_register_counter_does_not_park)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, A1, FLAG);
	emit_li(&p, A2, 2000000);
	int32_t loop = prog_here(&p);
	emit(&p, INSN_FENCE);
	emit(&p, lw(A0, 0, A1));
	int32_t at_branch = prog_here(&p);
	emit(&p, 0);                             /* patched: bne a0, zero, done */
	emit(&p, addi(A2, A2, -1));
	emit_branch(&p, BNE, A2, X0, loop);
	emit_exit_with(&p, 3);                   /* timed out */
	int32_t done = prog_here(&p);
	emit_exit_with(&p, 9);
	p.w[at_branch / 4] = enc_b(done - at_branch, X0, A0, BNE);
	cr_assert_eq(run_to_exit(dev, BH_CORE_BRISC, CODE, &p), 3);
	cr_expect_eq(parks(dev, BH_CORE_BRISC), 0);
	bh_device_close(dev);
}

/* Busy-wait on the wall clock for 20 ms (1.35 GHz ticks), as TRISC firmware does at boot:
 * the loop must end no earlier than the deadline, and spend it asleep: it parks with a timeout
 * (doubling up to 1 ms), and each wake runs the loop only until the poll detector has it again
 * (about 80 instructions here; 400 allowed), where a spinning loop would retire millions. Counted
 * in instructions and parks, not in host time, so a loaded host cannot fail it. */
Test(park, wall_clock_wait_sleeps_and_ends_on_time)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	const uint32_t ticks = 27000000;         /* 20 ms */
	emit_li(&p, A1, WALL_CLOCK_0);
	emit(&p, lw(A2, 0, A1));                 /* start (low word) */
	emit_li(&p, A3, ticks);
	int32_t loop = prog_here(&p);
	emit(&p, lw(A4, 0, A1));
	emit(&p, sub(A5, A4, A2));
	emit_branch(&p, BLTU, A5, A3, loop);
	emit_exit_with(&p, 1);
	prog_put(dev, 0, CODE, &p);
	double w0 = wall_seconds();
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC0, CODE), BH_OK);
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC0, 60000, r), BH_OK, "trisc0 did not stop");
	double wall = wall_seconds() - w0;
	cr_assert_eq(r->status, BH_RUN_EXITED, "trisc0: status %d\n%s", r->status, r->report);
	cr_expect_geq(wall, 0.020, "the wait ended after %.1f ms, before its 20 ms deadline", wall * 1e3);
	uint64_t n = parks(dev, BH_CORE_TRISC0);
	cr_expect_gt(n, 0, "the wall-clock poll never parked");
	cr_expect_leq(r->instructions, 400 * n + 400, "%llu instructions over %llu parks: the wait spun",
		      (unsigned long long)r->instructions, (unsigned long long)n);
	free(r);
	bh_device_close(dev);
}

/* A chip full of idle cores: 8 tiles x 5 cores, all polling L1 words nobody writes. */
Test(park, forty_polling_cores_use_almost_no_cpu)
{
	struct bh_device_config cfg = { .num_tiles = 8 };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	struct prog p = { 0 };
	emit_poll_flag(&p, true);
	for (unsigned t = 0; t < 8; t++) {
		prog_put(dev, t, CODE, &p);
		for (unsigned c = 0; c < 5; c++) {
			bh_core_enable_host_calls(dev, t, (enum bh_core_id)c, true);
			cr_assert_eq(bh_core_start(dev, t, (enum bh_core_id)c, CODE), BH_OK);
		}
	}
	sleep_ms(200);
	double wall;
	double used = cpu_used_while_sleeping(400, &wall);
	/* Without membarrier (the unfenced reruns) each parked core still wakes every 64 ms to look
	 * for a lost wake-up: a few per second, which under TSan cost more than 5 %. */
	double budget = getenv("BHEMU_MEMBARRIER") ? 0.15 : 0.05;
	cr_expect_lt(used, budget * wall, "40 parked cores used %.1f ms of CPU in %.0f ms", used * 1e3, wall * 1e3);
	uint32_t v = 5;
	for (unsigned t = 0; t < 8; t++)
		cr_assert_eq(bh_l1_write(dev, t, FLAG, &v, 4), BH_OK);
	for (unsigned t = 0; t < 8; t++)
		for (unsigned c = 0; c < 5; c++)
			expect_exit(dev, t, (enum bh_core_id)c, 5);
	bh_device_close(dev);
}

/* 65 core threads parked at once (a thread per core, whatever BHEMU_TILE_THREADS says: fibers
 * sleep on their group's futex): the process's futex hash grew to BH_PARK_HASH_PER_THREAD
 * buckets per thread for 128 threads when the 64th started (sync/park.h), and every parked core
 * is still woken by its word's write. */
Test(park, sixty_five_parked_core_threads_grow_the_futex_hash)
{
	if (bh_park_futex_hash_slots() < 0)
		cr_skip_test("the kernel has no process-private futex hash (PR_FUTEX_HASH, Linux 6.16)");
	enum { TILES = 13 };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&(struct bh_device_config){ .num_tiles = TILES, .tile_threads = BH_TILE_THREADS_PER_CORE },
				    &dev), BH_OK);
	struct prog p = { 0 };
	emit_poll_flag(&p, true);
	for (unsigned t = 0; t < TILES; t++) {
		prog_put(dev, t, CODE, &p);
		for (unsigned c = 0; c < 5; c++) {
			bh_core_enable_host_calls(dev, t, (enum bh_core_id)c, true);
			cr_assert_eq(bh_core_start(dev, t, (enum bh_core_id)c, CODE), BH_OK);
		}
	}
	for (unsigned t = 0; t < TILES; t++)   /* each thread counted itself before it first ran */
		for (unsigned c = 0; c < 5; c++)
			for (int ms = 0; !atomic_load(&dev->tiles[t]->core[c]->waiter.parks); ms++) {
				cr_assert_lt(ms, 60000, "core %u of tile %u never parked", c, t);
				sleep_ms(1);
			}
	int slots = bh_park_futex_hash_slots();
	cr_expect_geq(slots, (int)(2 * 64 * BH_PARK_HASH_PER_THREAD), "futex hash of %d buckets", slots);
	uint32_t v = 9;
	for (unsigned t = 0; t < TILES; t++)
		cr_assert_eq(bh_l1_write(dev, t, FLAG, &v, 4), BH_OK);
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned c = 0; c < 5; c++)
			expect_exit(dev, t, (enum bh_core_id)c, 9);
	bh_device_close(dev);
}

/* Heavy fences are combined (sync/park.c): 32 threads fencing at once all return and each call
 * is counted (a lost turn in the combining would hang here; under TSan its locking is checked).
 * The ordering itself is what every parking test above relies on: a lost wake-up hangs them. */
static _Atomic unsigned fence_go;

static void *fence_worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&fence_go))
		sched_yield();
	for (int k = 0; k < 500; k++)
		bh_park_heavy_fence();
	return NULL;
}

Test(park, concurrent_heavy_fences_share_membarriers)
{
	enum { THREADS = 32 };
	pthread_t th[THREADS];
	uint64_t calls0, mb0, calls1, mb1;
	if (!bh_park_heavy_fence())
		cr_skip_test("the kernel refuses membarrier: fences are local");
	bh_park_fence_stats(&calls0, &mb0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int k = 0; k < THREADS; k++)
		cr_assert_eq(pthread_create(&th[k], NULL, fence_worker, NULL), 0);
	atomic_store(&fence_go, 1);
	for (int k = 0; k < THREADS; k++)
		pthread_join(th[k], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	bh_park_fence_stats(&calls1, &mb1);
	cr_expect_eq(calls1 - calls0, THREADS * 500u);
	/* How many are shared depends on how the threads overlap, which the host decides; but
	 * membarriers are BH_PARK_FENCE_GAP_NS apart (the first may follow an earlier one's gap). */
	uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	cr_expect_leq(mb1 - mb0, calls1 - calls0);
	cr_expect_leq(mb1 - mb0, ns / BH_PARK_FENCE_GAP_NS + 1, "%llu membarriers in %llu ns",
		      (unsigned long long)(mb1 - mb0), (unsigned long long)ns);
	cr_log_info("%llu membarriers for %llu fences", (unsigned long long)(mb1 - mb0),
		    (unsigned long long)(calls1 - calls0));
}

/* One host write that spans pages wakes the cores watching any of them and refreshes decoded
 * code on every page it touches, not only on the page where it starts. The watched word (or the
 * rewritten code) sits on the last page of the write. */
static void spanning_host_write_wakes(uint32_t start, uint32_t len)
{
	struct bh_device *dev = t_open();
	uint32_t flag = (start + len - 8) & ~3u;
	start_parked_poller(dev, BH_CORE_BRISC, CODE, flag);
	uint8_t *b = calloc(1, len);
	b[flag - start] = 9;
	cr_assert_eq(bh_l1_write(dev, 0, start, b, len), BH_OK);
	free(b);
	expect_exit(dev, 0, BH_CORE_BRISC, 9);
	bh_device_close(dev);
}

Test(park, host_write_spanning_two_pages_wakes_a_poller_on_the_second)
{
	spanning_host_write_wakes(FLAG - 8, 16);
}

Test(park, host_write_spanning_five_pages_wakes_a_poller_on_the_last)
{
	spanning_host_write_wakes(FLAG - 0x3008, 0x3010);
}

/* Code on the second page of a spanning write: the core ran it once (decoded), parks, and the
 * write that wakes it (its flag on the first page) also rewrites that code, which must run anew. */
Test(park, host_write_spanning_pages_refreshes_decoded_code_on_every_page)
{
	struct bh_device *dev = t_open();
	const uint32_t fn = FLAG + 0x1000, flag = fn - 8;
	struct prog f = { 0 };
	emit(&f, addi(A0, X0, 11));
	emit(&f, INSN_RET);
	prog_put(dev, 0, fn, &f);
	struct prog p = { 0 };
	emit_call(&p, CODE, fn);            /* decodes fn's page */
	emit(&p, addi(S0, A0, 0));
	emit_wait_nonzero(&p, flag, T1);
	emit_call(&p, CODE, fn);
	emit(&p, add(A0, A0, S0));          /* 11 + the rewritten function's result */
	emit_exit(&p);
	prog_put(dev, 0, CODE, &p);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, CODE), BH_OK);
	wait_parked(dev, 0, BH_CORE_BRISC);
	uint32_t w[4] = { 1, 0, addi(A0, X0, 22), INSN_RET };
	cr_assert_eq(bh_l1_write(dev, 0, flag, w, sizeof w), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 33);
	bh_device_close(dev);
}

/* Without membarrier (forced here as BHEMU_MEMBARRIER=off does) a writer's store and its check
 * for watchers may reorder, so a wake-up can be lost; parked pollers then sleep at most
 * BH_PARK_UNFENCED_SLEEP_NS before they look again. The lost wake-up is made certain here: the
 * flag is stored into L1 behind the device's back, with no wake at all. */
Test(park, without_membarrier_a_lost_wake_up_costs_one_bounded_sleep)
{
	bh_park_set_unfenced(true);
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_poll_flag(&p, false);
	prog_put(dev, 0, CODE, &p);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, CODE), BH_OK);
	wait_parked(dev, 0, BH_CORE_BRISC);
	__atomic_store_n((uint32_t *)(dev->tiles[0]->l1 + FLAG), 5u, __ATOMIC_RELAXED);
	expect_exit(dev, 0, BH_CORE_BRISC, 5);
	bh_device_close(dev);
	bh_park_set_unfenced(false);
}

/* A poll on a tile control register parks, and a write to that register wakes it: which
 * registers can be watched, and that their writes announce themselves, come from the address
 * decode table (fabric/mmio.c). */
Test(park, poll_on_a_tile_control_register_parks_and_its_write_wakes_it)
{
	const uint32_t trisc0_reset_pc = 0xFFB12228u;
	struct bh_device *dev = t_open();
	start_parked_poller(dev, BH_CORE_NCRISC, CODE, trisc0_reset_pc);
	cr_assert_eq(bh_reg_write(dev, 0, trisc0_reset_pc, 0x6040), BH_OK);
	expect_exit(dev, 0, BH_CORE_NCRISC, 0x6040);
	bh_device_close(dev);
}
