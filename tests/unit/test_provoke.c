/* Provocation (sync/provoke.h): one seed drives every random choice; each actor's stream is a
 * function of (seed, actor); delays happen at exactly the sync points and are drawn from the
 * seed; cores released together start in seed-dependent orders; correct programs stay correct
 * with every perturbation on; the CLI prints the seed, takes --seed and refuses bad names. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sync/provoke.h"
#include "sync/streams.h"
#include "testlib.h"
#include "tensix_testlib.h"

/* ---- The random streams ------------------------------------------------------------------------ */

#define DRAWS 64

static void draws(uint64_t seed, uint64_t actor, uint64_t *out)
{
	struct bh_rng r;
	bh_rng_seed(&r, seed, actor);
	for (unsigned k = 0; k < DRAWS; k++)
		out[k] = bh_rng_next(&r);
}

Test(provoke, same_seed_and_actor_draw_the_same_sequence)
{
	uint64_t a[DRAWS], b[DRAWS];
	for (uint64_t actor = 0; actor < 20; actor++) {
		draws(1234, actor, a);
		draws(1234, actor, b);
		cr_assert_arr_eq(a, b, sizeof a, "actor %llu: two streams of seed 1234 differ", (unsigned long long)actor);
	}
}

/* Streams that differ in seed or actor share no draw among their first 64 (64-bit values: a
 * shared one would mean the streams are the same, shifted). */
static unsigned shared_draws(const uint64_t *a, const uint64_t *b)
{
	unsigned n = 0;
	for (unsigned i = 0; i < DRAWS; i++)
		for (unsigned j = 0; j < DRAWS; j++)
			n += a[i] == b[j];
	return n;
}

Test(provoke, different_seeds_or_actors_draw_unrelated_sequences)
{
	static const uint64_t seeds[] = { 1, 2, 3, 1234, 1235, 0x8000000000000000ull };
	uint64_t a[DRAWS], b[DRAWS];
	for (unsigned s = 0; s < N(seeds); s++)
		for (unsigned t = 0; t < N(seeds); t++)
			for (uint64_t actor = 0; actor < 9; actor++) {
				if (s == t)
					continue;
				draws(seeds[s], actor, a);
				draws(seeds[t], actor, b);
				cr_assert_eq(shared_draws(a, b), 0, "seeds %llu and %llu, actor %llu", (unsigned long long)seeds[s],
					     (unsigned long long)seeds[t], (unsigned long long)actor);
				draws(seeds[s], actor + 1, b);
				cr_assert_eq(shared_draws(a, b), 0, "seed %llu, actors %llu and %llu", (unsigned long long)seeds[s],
					     (unsigned long long)actor, (unsigned long long)actor + 1);
			}
}

Test(provoke, below_stays_in_range_and_reaches_both_ends)
{
	struct bh_rng r;
	bh_rng_seed(&r, 99, 0);
	bool low = false, high = false;
	for (unsigned k = 0; k < 10000; k++) {
		uint64_t v = bh_rng_below(&r, 10);
		cr_assert_lt(v, 10);
		low |= v == 0;
		high |= v == 9;
	}
	cr_assert(low && high);
}

Test(provoke, names_parse_into_the_mask_and_back)
{
	uint32_t m = 0;
	char err[256], buf[128];
	cr_assert_eq(bh_provoke_parse("delay,coalesce", &m, err, sizeof err), 0);
	cr_assert_eq(m, BH_PROVOKE_DELAY | BH_PROVOKE_COALESCE);
	cr_assert_eq(bh_provoke_parse("all", &m, err, sizeof err), 0);
	cr_assert_eq(m, BH_PROVOKE_ALL);
	bh_provoke_format(m, buf, sizeof buf);
	cr_assert_str_eq(buf, "delay,skew,cq-slow,prefetch-slow,coalesce");
	cr_assert_eq(bh_provoke_parse("all,reorder", &m, err, sizeof err), 0);   /* all: every kind but reorder */
	cr_assert_eq(m, BH_PROVOKE_ALL | BH_PROVOKE_REORDER);
	bh_provoke_format(BH_PROVOKE_REORDER, buf, sizeof buf);
	cr_assert_str_eq(buf, "reorder");
	cr_assert_eq(bh_provoke_parse("stale-icache,skew", &m, err, sizeof err), 0);   /* not in all either */
	cr_assert_eq(m, BH_PROVOKE_STALE_ICACHE | BH_PROVOKE_SKEW);
	cr_assert_eq(m & BH_PROVOKE_ALL, BH_PROVOKE_SKEW);
	bh_provoke_format(m, buf, sizeof buf);
	cr_assert_str_eq(buf, "skew,stale-icache");
	cr_assert_eq(bh_provoke_parse("none", &m, err, sizeof err), 0);
	cr_assert_eq(m, BH_PROVOKE_NONE);
	cr_assert_eq(bh_provoke_parse("skew,bogus", &m, err, sizeof err), -1);
	cr_assert(strstr(err, "'bogus' is not a provocation"), "%s", err);
	cr_assert_eq(bh_provoke_parse("", &m, err, sizeof err), -1);
	cr_assert_eq(bh_provoke_parse("delay,", &m, err, sizeof err), -1);
	cr_assert_eq(bh_provoke_parse("none,delay", &m, err, sizeof err), -1);
	cr_assert(strstr(err, "'none' cannot be combined"), "%s", err);
}

/* ---- Delays at sync points --------------------------------------------------------------------- */

#define STREAM_REG BH_STREAM_ADDR(0, BH_STREAM_REG_REMOTE_SRC)   /* a plain read-write register */
#define CODE 0x1000u
#define STREAM_STORES 5u
#define STREAM_LOADS 3u
#define CTRL_LOADS 2u
#define SYNC_ACCESSES (STREAM_STORES + STREAM_LOADS + CTRL_LOADS)

static struct bh_device *open_provoked(uint32_t mask, double rate, uint64_t seed)
{
	struct bh_device_config cfg = { .provoke = mask, .provoke_rate = rate, .seed = seed };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	for (int c = 0; c < 5; c++)
		bh_core_enable_host_calls(dev, 0, (enum bh_core_id)c, true);
	return dev;
}

/* Five stores and three loads of a stream register, two loads of SOFT_RESET_0 (tile control),
 * and L1 and local-RAM traffic around them, which are no sync points. */
static void emit_sync_program(struct prog *p)
{
	emit_li(p, A1, STREAM_REG);
	emit_li(p, A4, SOFT_RESET_0);
	emit_li(p, A6, LDM);
	for (unsigned k = 0; k < STREAM_STORES; k++) {
		emit(p, addi(A2, X0, (int32_t)k));
		emit(p, sw(A2, 0, A1));
		emit(p, sw(A2, 0x100, X0));
		emit(p, sw(A2, 0, A6));
	}
	for (unsigned k = 0; k < STREAM_LOADS; k++)
		emit(p, lw(A3, 0, A1));
	for (unsigned k = 0; k < CTRL_LOADS; k++)
		emit(p, lw(A5, 0, A4));
	emit(p, lw(A5, 0x100, X0));
	emit_exit_with(p, 0);
}

static void run_sync_program(uint32_t mask, double rate, uint64_t seed, struct bh_provoke_stats *st)
{
	struct bh_device *dev = open_provoked(mask, rate, seed);
	struct prog p = { 0 };
	emit_sync_program(&p);
	cr_assert_eq(run_to_exit(dev, BH_CORE_BRISC, CODE, &p), 0);
	cr_assert_eq(bh_device_seed(dev), seed);
	bh_device_provoke_stats(dev, st);
	bh_device_close(dev);
}

Test(provoke, rate_one_delays_every_sync_access_and_nothing_else)
{
	struct bh_provoke_stats st;
	run_sync_program(BH_PROVOKE_DELAY, 1.0, 77, &st);
	cr_assert_eq(st.sync_points, SYNC_ACCESSES);
	cr_assert_eq(st.delays, SYNC_ACCESSES);
	cr_assert_geq(st.delay_ns, SYNC_ACCESSES * 1000ull);
	cr_assert_leq(st.delay_ns, SYNC_ACCESSES * BH_PROVOKE_DELAY_MAX_NS);
	cr_assert_eq(st.coalesced, 0);
	cr_assert_eq(st.skews, 0);
}

/* REORDER (races.md #21) at rate 1: every store of the stream register waits in BRISC's store
 * queue and nothing else does; a load of another register does not wait for them, a load of the
 * same register does, and the last store lands when the core exits. */
Test(provoke, reorder_holds_stream_register_stores_until_read_back_or_exit)
{
	struct bh_device *dev = open_provoked(BH_PROVOKE_REORDER, 1.0, 5);
	const uint32_t size_reg = BH_STREAM_ADDR(3, BH_STREAM_REG_REMOTE_DEST_BUF_SIZE);
	const uint32_t avail_reg = BH_STREAM_ADDR(3, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE);
	struct prog p = { 0 };
	emit_li(&p, A1, size_reg);
	emit_li(&p, A2, avail_reg);
	emit(&p, addi(A3, X0, 7));
	emit(&p, sw(A3, 0, A1));          /* reg 10 = 7, which also sets reg 297 */
	emit(&p, lw(A4, 0, A2));          /* reg 297: overtakes the store */
	emit(&p, sw(A4, 0x100, X0));
	emit(&p, lw(A5, 0, A1));          /* reg 10: waits for it */
	emit(&p, lw(A4, 0, A2));          /* reg 297 after the read-back */
	emit(&p, sw(A5, 0x104, X0));
	emit(&p, sw(A4, 0x108, X0));
	emit(&p, addi(A3, X0, 9));
	emit(&p, sw(A3, 0, A1));          /* reg 10 = 9: still held when the core exits */
	emit_exit_with(&p, 0);
	cr_assert_eq(run_to_exit(dev, BH_CORE_BRISC, CODE, &p), 0);
	uint32_t got[3], v = 0;
	cr_assert_eq(bh_l1_read(dev, 0, 0x100, got, sizeof got), BH_OK);
	cr_expect_eq(got[0], 0u, "the load of reg 297 saw the store before it");
	cr_expect_eq(got[1], 7u, "the read-back of reg 10");
	cr_expect_eq(got[2], 7u, "reg 297 after the read-back");
	cr_assert_eq(bh_reg_read(dev, 0, avail_reg, &v), BH_OK);
	cr_expect_eq(v, 9u, "the store held at exit landed");
	struct bh_provoke_stats st;
	bh_device_provoke_stats(dev, &st);
	cr_expect_eq(st.reordered, 2u);
	cr_expect_eq(st.sync_points, 0u);
	bh_device_close(dev);
}

Test(provoke, rate_zero_delays_nothing)
{
	struct bh_provoke_stats st;
	run_sync_program(BH_PROVOKE_DELAY | BH_PROVOKE_COALESCE, -1, 77, &st);
	cr_assert_eq(st.sync_points, SYNC_ACCESSES);
	cr_assert_eq(st.delays, 0);
	cr_assert_eq(st.coalesced, 0);
	cr_assert_eq(st.delay_ns, 0);
}

Test(provoke, coalesce_delays_reads_of_counters_only)
{
	struct bh_provoke_stats st;
	run_sync_program(BH_PROVOKE_COALESCE, 1.0, 5, &st);
	cr_assert_eq(st.sync_points, SYNC_ACCESSES);
	cr_assert_eq(st.delays, 0);
	cr_assert_eq(st.coalesced, STREAM_LOADS, "stream-register loads are counter reads, stores and tile control not");
	cr_assert_geq(st.delay_ns, STREAM_LOADS * BH_PROVOKE_COALESCE_MIN_NS);
}

Test(provoke, without_provocation_no_sync_point_is_seen)
{
	struct bh_provoke_stats st;
	run_sync_program(BH_PROVOKE_NONE, 1.0, 77, &st);
	cr_assert_eq(st.sync_points, 0);
	cr_assert_eq(st.delays, 0);
}

/* A Tensix thread is an actor of its own: its semaphore instructions are sync points (the pushes
 * that bring them are not: the instruction push is no sync register). */
Test(provoke, tensix_semaphore_instructions_are_delayed_on_the_threads_own_stream)
{
	struct bh_device *dev = open_provoked(BH_PROVOKE_DELAY, 1.0, 8);
	struct prog p = { 0 };
	emit_push(&p, SEMINIT(1u << 3, 15, 0));
	for (unsigned k = 0; k < 4; k++)
		emit_push(&p, SEMPOST(1u << 3));
	for (unsigned k = 0; k < 2; k++)
		emit_push(&p, SEMGET(1u << 3));
	emit_exit_with(&p, 0);
	cr_assert_eq(run_core(dev, BH_CORE_TRISC0, &p), 0);
	wait_thread_idle(tile0(dev), 0);
	wait_sem(dev, 3, 2);
	struct bh_provoke_stats st;
	bh_device_provoke_stats(dev, &st);
	cr_assert_eq(st.sync_points, 7);
	cr_assert_eq(st.delays, 7);
	bh_device_close(dev);
}

/* The delays a core draws are a function of the seed: the same seed gives the same total, other
 * seeds other totals (with half the accesses delayed, by 1..200 us each). */
Test(provoke, delays_drawn_are_the_seeds_plan)
{
	struct bh_provoke_stats a, b, c;
	run_sync_program(BH_PROVOKE_DELAY, 0.5, 1001, &a);
	run_sync_program(BH_PROVOKE_DELAY, 0.5, 1001, &b);
	run_sync_program(BH_PROVOKE_DELAY, 0.5, 1002, &c);
	cr_assert_eq(a.delays, b.delays);
	cr_assert_eq(a.delay_ns, b.delay_ns);
	cr_assert(a.delays > 0 && a.delays < SYNC_ACCESSES, "seed 1001 delays %llu of %u accesses",
		  (unsigned long long)a.delays, SYNC_ACCESSES);
	cr_assert_neq(a.delay_ns, c.delay_ns);
}

/* ---- Start skew -------------------------------------------------------------------------------- */

#define TICKET 0x20000u        /* next ticket */
#define TICKETS 0x20010u       /* ticket of core k at + 4k */
static const uint32_t reset_pc[5] = { 0x0, 0x12000, 0x6000, 0xA000, 0xE000 };

/* Every core takes a ticket (amoadd) as its first act; the holder of ticket 0 started first. */
static void put_ticket_programs(struct bh_device *dev)
{
	for (unsigned k = 0; k < 5; k++) {
		struct prog p = { 0 };
		emit_li(&p, A1, TICKET);
		emit(&p, addi(A2, X0, 1));
		emit(&p, amo(0, A3, A2, A1, 0));   /* amoadd.w a3, a2, (a1) */
		emit_li(&p, A4, TICKETS + 4 * k);
		emit(&p, sw(A3, 0, A4));
		emit_exit_with(&p, 0);
		prog_put(dev, 0, reset_pc[k], &p);
	}
}

/* All five cores released by one SOFT_RESET_0 write; which one took ticket 0, and the skews. */
static unsigned first_of_five(uint64_t seed, struct bh_provoke_stats *st)
{
	struct bh_device *dev = open_provoked(BH_PROVOKE_SKEW, 0, seed);
	put_ticket_programs(dev);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, 0), BH_OK);
	unsigned first = 5;
	for (unsigned k = 0; k < 5; k++) {
		expect_exit(dev, 0, all_cores[k], 0);
		if (l1_get(dev, TICKETS + 4 * k) == 0)
			first = k;
	}
	cr_assert_eq(l1_get(dev, TICKET), 5);
	cr_assert_lt(first, 5);
	bh_device_provoke_stats(dev, st);
	bh_device_close(dev);
	return first;
}

Test(provoke, cores_released_together_start_in_seed_dependent_orders, .timeout = 120)
{
	unsigned seen = 0;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct bh_provoke_stats st;
		seen |= 1u << first_of_five(seed, &st);
		cr_assert_eq(st.skews, 5, "seed %llu: every released core is skewed", (unsigned long long)seed);
	}
	cr_assert(__builtin_popcount(seen) >= 2, "over 12 seeds only %s ever started first",
		  core_names[__builtin_ctz(seen)]);
}

Test(provoke, the_skew_plan_repeats_with_the_seed, .timeout = 60)
{
	struct bh_provoke_stats a, b, c;
	first_of_five(31, &a);
	first_of_five(31, &b);
	first_of_five(32, &c);
	cr_assert_eq(a.skew_ns, b.skew_ns, "the same seed draws the same skews");
	cr_assert_neq(a.skew_ns, c.skew_ns);
}

/* ---- Whole programs and the CLI ---------------------------------------------------------------- */

/* Runs `bhemu ARGS` (stderr into the output); returns its exit status and what it printed. */
static int bhemu_cli(char *out, size_t n, const char *args)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "'%s/bhemu' %s 2>&1", BHEMU_BINARY_DIR, args);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	size_t len = fread(out, 1, n - 1, f);
	out[len] = 0;
	int st = pclose(f);
	cr_assert(WIFEXITED(st), "%s did not exit", cmd);
	return WEXITSTATUS(st);
}

static void cli_ok(const char *args, const char *expect)
{
	char out[8192];
	int st = bhemu_cli(out, sizeof out, args);
	cr_assert_eq(st, 0, "bhemu %s: status %d\n%s", args, st, out);
	assert_has(out, expect);
}

/* Seeds each whole program runs under (fewer under ThreadSanitizer, many times slower). */
#if defined(__SANITIZE_THREAD__)
#define PROGRAM_SEEDS 2u
#else
#define PROGRAM_SEEDS 3u
#endif

#define CB_ELF "guest/mc_cb_pingpong_provoke.elf"
#define CHAIN_ELF "guest/mc_cb_chain5_provoke.elf"
#define RING_ELF "guest/grid_token_ring.elf"

Test(provoke, cb_stress_programs_pass_with_every_provocation_on, .timeout = 300)
{
	tl_skip_unless_built(CB_ELF);
	tl_skip_unless_built(CHAIN_ELF);
	for (unsigned seed = 1; seed <= PROGRAM_SEEDS; seed++) {
		char args[512];
		snprintf(args, sizeof args, "run --cores brisc,ncrisc --provoke all,reorder --provoke-rate 0.2 --seed %u %s/"
			 CB_ELF,
			 seed, BHEMU_BINARY_DIR);
		cli_ok(args, ": ok");
		snprintf(args, sizeof args, "run --cores brisc,ncrisc,trisc0,trisc1,trisc2 --provoke all,reorder --provoke-rate 0.2 "
			 "--seed %u %s/" CHAIN_ELF, seed, BHEMU_BINARY_DIR);
		cli_ok(args, ": ok");
	}
}

Test(provoke, grid_program_passes_with_every_provocation_on, .timeout = 300)
{
	tl_skip_unless_built(RING_ELF);
	for (unsigned seed = 1; seed <= PROGRAM_SEEDS; seed++) {
		char args[512];
		snprintf(args, sizeof args, "run --board grid:3x2 --grid --cores brisc,ncrisc --provoke all,reorder "
			 "--provoke-rate 0.2 --seed %u --timeout 200 %s/" RING_ELF, seed, BHEMU_BINARY_DIR);
		cli_ok(args, "ncrisc/NoC1: 10 laps of 6 tiles: ok");
	}
}

Test(provoke, cli_prints_the_seed_it_was_given, .timeout = 60)
{
	tl_skip_unless_built(CB_ELF);
	char args[512];
	snprintf(args, sizeof args, "run --cores brisc,ncrisc --provoke delay,skew --seed 0x1234 %s/" CB_ELF,
		 BHEMU_BINARY_DIR);
	cli_ok(args, "bhemu: seed 4660 (rerun with --seed 4660; provoke delay,skew)\n");
}

Test(provoke, cli_prints_a_seed_drawn_from_the_clock, .timeout = 60)
{
	tl_skip_unless_built(CB_ELF);
	char args[512], out[8192];
	snprintf(args, sizeof args, "run --cores brisc,ncrisc --provoke coalesce %s/" CB_ELF, BHEMU_BINARY_DIR);
	cr_assert_eq(bhemu_cli(out, sizeof out, args), 0, "%s", out);
	unsigned long long a = 0, b = 0;
	const char *line = strstr(out, "bhemu: seed ");
	cr_assert_not_null(line, "%s", out);
	cr_assert_eq(sscanf(line, "bhemu: seed %llu (rerun with --seed %llu;", &a, &b), 2, "%s", line);
	cr_assert(a != 0 && a == b, "%s", line);
}

Test(provoke, cli_without_provocation_prints_no_seed, .timeout = 60)
{
	tl_skip_unless_built(CB_ELF);
	char args[512], out[8192];
	snprintf(args, sizeof args, "run --cores brisc,ncrisc --provoke none --seed 5 %s/" CB_ELF, BHEMU_BINARY_DIR);
	cr_assert_eq(bhemu_cli(out, sizeof out, args), 0, "%s", out);
	cr_assert_null(strstr(out, "seed"), "%s", out);
}

struct bad_cli {
	const char *args, *message;
};

Test(provoke, cli_refuses_bad_values_with_status_2)
{
	static const struct bad_cli bad[] = {
		{ "run --provoke delay,jitter x.elf", "bhemu run: --provoke 'jitter' is not a provocation" },
		{ "run --provoke '' x.elf", "bhemu run: --provoke '' is not a provocation" },
		{ "boot --provoke none,all", "bhemu boot: --provoke 'none' cannot be combined" },
		{ "smoke --provoke-rate 1.5", "bhemu smoke: --provoke-rate needs a probability from 0 to 1" },
		{ "run --provoke-rate 0.1x x.elf", "bhemu run: --provoke-rate needs a probability from 0 to 1 (a plain decimal), not '0.1x'" },
		{ "run --seed 0 x.elf", "bhemu run: --seed needs a whole number from 1 to 18446744073709551615, not '0'" },
		{ "smoke --seed 18446744073709551616", "bhemu smoke: --seed needs a whole number" },
		{ "run --seed x.elf", "bhemu run: --seed needs a whole number from 1 to 18446744073709551615, not 'x.elf'" },
	};
	for (unsigned k = 0; k < N(bad); k++) {
		char out[4096];
		int st = bhemu_cli(out, sizeof out, bad[k].args);
		cr_assert_eq(st, 2, "bhemu %s: status %d\n%s", bad[k].args, st, out);
		cr_assert(strstr(out, bad[k].message), "bhemu %s:\n%s\nwants: %s", bad[k].args, out, bad[k].message);
	}
}

Test(provoke, malformed_environment_is_refused_by_name)
{
	char out[4096];
	cr_assert_eq(setenv("BHEMU_PROVOKE", "delay,often", 1), 0);
	int st = bhemu_cli(out, sizeof out, "run x.elf");
	cr_assert_eq(st, 2, "status %d\n%s", st, out);
	assert_has(out, "bhemu: BHEMU_PROVOKE: 'often' is not a provocation");
	cr_assert_eq(setenv("BHEMU_PROVOKE", "delay", 1), 0);
	cr_assert_eq(setenv("BHEMU_SEED", "12ab", 1), 0);
	st = bhemu_cli(out, sizeof out, "run x.elf");
	cr_assert_eq(st, 2, "status %d\n%s", st, out);
	assert_has(out, "bhemu: BHEMU_SEED needs a whole number from 1 to 2^64-1, not '12ab'");
	unsetenv("BHEMU_PROVOKE");
	unsetenv("BHEMU_SEED");
}

/* ---- l0-cache: the L0 data cache model (races.md #20, riscv-cores.md 4) ---- */

#define L0_WORD 0x30000u   /* a word of L1 and its 16-byte line */
enum { S2 = 18, S3 = 19, S4 = 20 };   /* kept across the NoC request's helpers (t0-t2) */
#define L0_OLD 0x11u
#define L0_NEW 0x22u

/* L0_WORD holds L0_OLD and NOC_SRC L0_NEW; BRISC loads L0_WORD into s2, NoC-writes NOC_SRC's 16
 * bytes over its line and waits for the acknowledgement; t0 = L0_WORD after. */
static void emit_l0_load_then_overwrite(struct bh_device *dev, struct prog *p)
{
	uint32_t line[4] = { L0_OLD, 0, 0, 0 }, src[4] = { L0_NEW, 0, 0, 0 };
	cr_assert_eq(bh_l1_write(dev, 0, L0_WORD, line, sizeof line), BH_OK);
	cr_assert_eq(bh_l1_write(dev, 0, NOC_SRC, src, sizeof src), BH_OK);
	emit_li(p, T0, L0_WORD);
	emit(p, lw(S2, 0, T0));
	emit_program_noc_write(p, BH_CORE_BRISC, CTRL_WRITE_NONPOSTED, TILE0_XY, L0_WORD, 16);
	emit_issue(p, BH_CORE_BRISC);
	emit_wait_one(p, NOC0_WR_ACKS);
	emit_li(p, T0, L0_WORD);
}

/* BRISC, with cfg0 |= cfg0_set, loads L0_WORD, has its line overwritten by the NoC (which does not
 * touch the core's L0), loads again, runs `then` (0: nothing; t0 holds L0_WORD) and loads a third
 * time. Returns the three loads, one per byte. */
static uint32_t l0_three_loads(struct bh_device *dev, uint32_t cfg0_set, uint32_t then)
{
	struct prog p = { 0 };
	emit_li(&p, T1, cfg0_set);
	emit(&p, enc_i(0x7C0, T1, F3_CSRRS, X0, OP_SYSTEM));   /* csrrs x0, cfg0, t1 */
	emit_l0_load_then_overwrite(dev, &p);
	emit(&p, lw(S3, 0, T0));
	if (then)
		emit(&p, then);
	emit(&p, lw(S4, 0, T0));
	emit(&p, enc_i(8, S3, 1, S3, OP_IMM));    /* slli s3, s3, 8 */
	emit(&p, enc_i(16, S4, 1, S4, OP_IMM));   /* slli s4, s4, 16 */
	emit(&p, or(A0, S2, S3));
	emit(&p, or(A0, A0, S4));
	emit_exit(&p);
	return run_core(dev, BH_CORE_BRISC, &p);
}

#define L0_LOADS(a, b, c) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16)
#define CFG0_NO_RANDOM_FLUSH (1u << 24)

/* The second load hits the line the first filled and returns the old word; a fence, an AMO, the
 * core's own store into the line (which drops it) or a cfg0 write make the third read L1. Without
 * the model, or with the cache off (cfg0 bit 3), every load reads L1. */
Test(provoke, l0_cache_answers_loads_from_the_line_until_a_fence_amo_own_store_or_cfg0_write)
{
	const struct {
		uint32_t mask, cfg0, then, want;
		const char *what;
	} c[] = {
		{ 0, 0, 0, L0_LOADS(L0_OLD, L0_NEW, L0_NEW), "no model" },
		{ BH_PROVOKE_L0_CACHE, CFG0_NO_RANDOM_FLUSH, 0, L0_LOADS(L0_OLD, L0_OLD, L0_OLD), "stale" },
		{ BH_PROVOKE_L0_CACHE, CFG0_NO_RANDOM_FLUSH, INSN_FENCE, L0_LOADS(L0_OLD, L0_OLD, L0_NEW), "fence" },
		{ BH_PROVOKE_L0_CACHE, CFG0_NO_RANDOM_FLUSH, amo(0, X0, X0, T0, 0), L0_LOADS(L0_OLD, L0_OLD, L0_NEW),
		  "amoadd.w x0, x0, (t0)" },
		{ BH_PROVOKE_L0_CACHE, CFG0_NO_RANDOM_FLUSH, sw(X0, 8, T0), L0_LOADS(L0_OLD, L0_OLD, L0_NEW),
		  "own store into the line" },
		{ BH_PROVOKE_L0_CACHE, CFG0_NO_RANDOM_FLUSH, INSN_L0_CACHE_OFF, L0_LOADS(L0_OLD, L0_OLD, L0_NEW),
		  "cfg0 write" },
		{ BH_PROVOKE_L0_CACHE, CFG0_NO_RANDOM_FLUSH | 8u, 0, L0_LOADS(L0_OLD, L0_NEW, L0_NEW), "cache off" },
	};
	for (unsigned k = 0; k < sizeof c / sizeof c[0]; k++) {
		uint32_t then = c[k].then, want = c[k].want;
		struct bh_device *dev = open_provoked(c[k].mask, 0, 1);
		uint32_t got = l0_three_loads(dev, c[k].cfg0, then);
		cr_expect_eq(got, want, "%s: loads 0x%06x, want 0x%06x", c[k].what, got, want);
		struct bh_provoke_stats ps;
		bh_device_provoke_stats(dev, &ps);
		cr_expect_eq(ps.l0_stale != 0, c[k].mask != 0 && !(c[k].cfg0 & 8u), "%s: l0_stale %llu", c[k].what,
			     (unsigned long long)ps.l0_stale);
		bh_device_close(dev);
	}
}

/* Unless cfg0 bit 24 is set, the cache is flushed at random, at least every 250 loads: a poll
 * without fence sees the new word within 251 loads of it, not at once. */
Test(provoke, l0_cache_random_flush_ends_a_stale_poll_within_250_loads)
{
	struct bh_device *dev = open_provoked(BH_PROVOKE_L0_CACHE, 0, 7);
	struct prog p = { 0 };
	emit_l0_load_then_overwrite(dev, &p);
	emit_li(&p, T2, L0_NEW);
	emit(&p, addi(A0, X0, 0));
	int32_t loop = prog_here(&p);
	emit(&p, addi(A0, A0, 1));
	emit(&p, lw(T1, 0, T0));
	emit_branch(&p, BNE, T1, T2, loop);
	emit_exit(&p);
	uint32_t loads = run_core(dev, BH_CORE_BRISC, &p);
	cr_expect(loads >= 1 && loads <= 251, "%u loads", loads);
	bh_device_close(dev);
}

