/* bench_noc: how fast bhemu moves data over the NoC, and how the instruction rate of a whole chip
 * scales over the host's CPUs, each against a reference measured in the same run.
 *
 * Every measurement runs the guest bench/guest/noc_bench.c on BRISC of a fresh P150 device
 * (140 tiles, 8 DRAM banks) through the library API; the host fills the guest's parameter block
 * (noc_bench.h), checks the data afterwards, and times the guest's loop with the guest's own
 * wall clock (rdcycle, 1.35 GHz ticks taken from host time) around the timed loop:
 *   1. NoC write L1 -> L1: tile 0 writes batches of 8 x 16 KiB, non-posted, to tile 139's L1,
 *      noc_async_write_barrier() after each batch: bytes/s, against host memcpy of the same
 *      16 KiB blocks in batches of 8 into a separate destination.
 *   2. NoC read DRAM -> L1: tile 0 reads batches of 8 x 16 KiB from DRAM bank 0 into its L1,
 *      noc_async_read_barrier() after each batch: bytes/s, against the same memcpy.
 *   3. NoC atomics: noc_semaphore_inc (INCR_GET, AT_LEN_BE 0x107C, non-posted) on a word of tile
 *      139 and noc_async_atomic_barrier(), one at a time: atomics/s, against one host thread
 *      doing __atomic_fetch_add on one word (uncontended; the old value is used).
 *   4. Aggregate instruction rate: the compute loop on BRISC of every tile at once, total
 *      instructions / wall time from the first start to the last exit, against (host CPUs x the
 *      rate of the same program on one BRISC) from this run. That reference assumes every CPU
 *      is free; next to it, the speed-up (all tiles / one BRISC) is set against the speed-up of
 *      the same loop compiled for the host on as many host threads (noc_native.c), measured
 *      between the bhemu runs: what the machine gave a perfectly scaling program meanwhile.
 * The NoC model is synchronous: a transaction completes inside the CMD_CTRL store of the issuing
 * core, so these numbers are the cost of that store and of the copy it does. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchlib.h"
#include "bhemu/bhemu.h"
#include "fabric/wallclock.h"   /* BH_AICLK_HZ: rdcycle ticks per second */
#include "guest/noc_bench.h"
#include "noc_native.h"

#ifndef BENCH_NOC_ELF
#define BENCH_NOC_ELF ""
#endif

#define BLOCK 16384u              /* bytes per NoC request and per memcpy: one NoC packet */
#define BATCH 8u                  /* requests between barriers; 128 KiB areas */
#define TILE_A 0u                 /* the issuing tile: (1,2) on a P150 */
#define DRAM_BANK 0u
#define DRAM_OFFSET 0x1000000u    /* away from the DRAM barrier word at 0 */
#define WRITE_BAR 0.30            /* NoC L1 -> L1 writes >= this fraction of host memcpy */
#define AGGREGATE_BAR 0.80        /* aggregate >= this fraction of host CPUs x one core */
#define GUEST_TIMEOUT_MS 300000

_Static_assert(sizeof(struct noc_bench_params) == 13 * 4, "noc_bench_params: 32-bit words only");
_Static_assert(BATCH * BLOCK <= NOC_BENCH_AREA_SIZE, "a batch must fit the guest's L1 areas");

/* Which measurements run (--only). */
enum {
	M_WRITE = 1 << 0,
	M_READ = 1 << 1,
	M_ATOMIC = 1 << 2,
	M_COMPUTE = 1 << 3,
	M_SYNC = 1 << 4,          /* the write and atomic measurements again on the synchronous NoC */
	M_ALL = (1 << 5) - 1,
};

struct options {
	struct benchlib_common c;   /* --json, --quick, --check-bars, --repeat (runs per NoC measurement) */
	const char *elf;
	int compute_repeat;       /* runs of the one-BRISC and the all-tiles compute */
	uint64_t write_bytes;     /* per timed write run */
	uint64_t read_bytes;      /* per timed read run */
	uint32_t atomics;
	uint32_t rounds;          /* compute rounds of each core in the aggregate run */
	uint32_t single_rounds;   /* compute rounds of the one-core run */
	unsigned tiles;           /* tiles of the aggregate run */
	long host_cpus;           /* for the aggregate's reference */
	unsigned only;
};

#define MAX_ROWS 8
#define MAX_REPEAT 20

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [options]\n"
		"\n"
		"Measures bhemu's NoC and its instruction rate over a whole chip, each against a\n"
		"reference measured in the same run, and prints a table (and optionally JSON):\n"
		"  noc write       tile 0 writes 8 x 16 KiB non-posted to tile 139's L1, write barrier\n"
		"                  per batch: bytes/s vs. host memcpy of the same blocks (bar: >= %.0f%%)\n"
		"  noc dram read   tile 0 reads 8 x 16 KiB from DRAM bank 0 into L1, read barrier per\n"
		"                  batch: bytes/s vs. the same host memcpy\n"
		"  noc atomic      noc_semaphore_inc on a word of tile 139 + atomic barrier, one at a\n"
		"                  time: atomics/s vs. one host thread's __atomic_fetch_add on one word\n"
		"  compute         one BRISC, then BRISC of every tile at once, running the same loop:\n"
		"                  MIPS; the aggregate vs. host CPUs x the one-BRISC rate (bar: >= %.0f%%)\n"
		"  speed-up        all tiles' rate / one BRISC's, vs. the same loop compiled for the host\n"
		"                  on as many host threads / one thread: the machine's own scaling now\n"
		"All on a P150 (140 tiles). NoC rates are timed by the guest's wall clock around its\n"
		"loop; each is the best of --repeat runs, interleaved with its reference's runs.\n"
		"\n"
		"options:\n"
		"  --quick             a few seconds: smaller loops, one run each\n"
		"  --repeat N          runs per measurement, best counts (default 3; compute 2)\n"
		"  --write-mib N       MiB written per write run (default 4096)\n"
		"  --read-mib N        MiB read per read run (default 4096)\n"
		"  --atomics N         atomics per atomic run (default 500000)\n"
		"  --rounds N          compute rounds per core in the aggregate run (default 20000;\n"
		"                      about 1300 instructions each)\n"
		"  --single-rounds N   compute rounds of the one-BRISC run (default 10 x --rounds)\n"
		"  --tiles N           tiles of the aggregate run (default 140: all)\n"
		"  --host-cpus N       CPUs of the aggregate's reference (default: sysconf, online CPUs)\n"
		"  --only LIST         comma-separated subset of write,read,atomic,compute,\n"
		"                      sync (write and atomic again on the synchronous NoC)\n"
		"  --check-bars        exit 1 when a bar is missed (default: only reported)\n"
		"  --elf FILE          the guest program (default: this build's noc_bench.elf)\n"
		"  --json FILE         also write the results as JSON to FILE (- for stdout; the\n"
		"                      table then goes to stderr)\n"
		"  --help              this text\n"
		"\n"
		"exit status: 0 every measurement ran and its data checked out; 1 one failed (or,\n"
		"with --check-bars, missed its bar); 2 bad usage.\n",
		argv0, WRITE_BAR * 100, AGGREGATE_BAR * 100);
}

/* ---- The guest ------------------------------------------------------------------------------- */

/* A fresh P150 with the guest loaded into BRISC of tiles [0, ntiles): its entry and parameter
 * block (the same addresses on every tile: one ELF). */
struct guest {
	struct bh_device *dev;
	unsigned ntiles;
	uint32_t entry, params;
};

/* The NoC of the devices the measurements open: the asynchronous one first, then the same
 * NoC measurements again with the synchronous one, in the same run. */
static enum bh_noc_mode noc_mode = BH_NOC_ASYNC;

static bool guest_open(struct guest *g, const char *elf, unsigned ntiles, char *err, size_t errlen)
{
	struct bh_device_config cfg = { .board = BH_BOARD_P150, .noc = noc_mode };
	char msg[512];

	memset(g, 0, sizeof *g);
	if (elf[0] == '\0') {
		snprintf(err, errlen, "no guest ELF in this build (needs riscv64-unknown-elf-gcc)");
		return false;
	}
	if (bh_device_open(&cfg, &g->dev) != BH_OK) {
		snprintf(err, errlen, "cannot open a P150 device");
		return false;
	}
	if (ntiles > bh_device_num_tiles(g->dev)) {
		snprintf(err, errlen, "%u tiles asked for, the P150 has %u", ntiles, bh_device_num_tiles(g->dev));
		return false;
	}
	for (unsigned t = 0; t < ntiles; t++) {
		uint32_t e;
		if (bh_load_elf(g->dev, t, BH_CORE_BRISC, elf, NULL, &e, msg, sizeof msg) != BH_OK) {
			snprintf(err, errlen, "%s", msg);
			return false;
		}
		bh_core_enable_host_calls(g->dev, t, BH_CORE_BRISC, true);
		g->ntiles++;
	}
	if (bh_core_symbol_lookup(g->dev, 0, BH_CORE_BRISC, "_start_brisc", &g->entry) != BH_OK ||
	    bh_core_symbol_lookup(g->dev, 0, BH_CORE_BRISC, NOC_BENCH_PARAMS_SYMBOL, &g->params) != BH_OK) {
		snprintf(err, errlen, "%s has no _start_brisc or no %s", elf, NOC_BENCH_PARAMS_SYMBOL);
		return false;
	}
	return true;
}

static void guest_close(struct guest *g)
{
	if (g->dev != NULL)
		bh_device_close(g->dev);
	g->dev = NULL;
}

static void guest_set_params(struct guest *g, unsigned tile, const struct noc_bench_params *p)
{
	bh_l1_write(g->dev, tile, g->params, p, sizeof *p);   /* little-endian host, like the guest */
}

/* Waits for BRISC of `tile` to exit 0, then reads its results; false (err set) otherwise. */
static bool guest_finish(struct guest *g, unsigned tile, struct noc_bench_params *out, uint64_t *instructions,
			 char *err, size_t errlen)
{
	struct bh_core_result res;
	unsigned x = 0, y = 0;
	int rc = bh_core_wait(g->dev, tile, BH_CORE_BRISC, GUEST_TIMEOUT_MS, &res);

	bh_device_tile_xy(g->dev, tile, &x, &y);
	if (rc == BH_ERR_DEADLOCK || rc == BH_ERR_TIMEOUT) {
		snprintf(err, errlen, "tile %u (%u,%u) brisc: %s", tile, x, y,
			 rc == BH_ERR_DEADLOCK ? "deadlock" : "still running after the timeout");
		return false;
	}
	if (res.status == BH_RUN_FAULTED) {
		fprintf(stderr, "bench_noc: %s\n", res.report);
		snprintf(err, errlen, "tile %u (%u,%u) brisc faulted (report on stderr)", tile, x, y);
		return false;
	}
	if (res.status != BH_RUN_EXITED || res.exit_status != 0) {
		snprintf(err, errlen, "tile %u (%u,%u) brisc %s %d", tile, x, y,
			 res.status == BH_RUN_EXITED ? "exited with status" : "stopped in state", res.status == BH_RUN_EXITED
			 ? res.exit_status : (int)res.status);
		return false;
	}
	bh_l1_read(g->dev, tile, g->params, out, sizeof *out);
	if (out->done != NOC_BENCH_DONE) {
		snprintf(err, errlen, "tile %u brisc exited 0 without writing its results", tile);
		return false;
	}
	if (instructions != NULL)
		*instructions = res.instructions;
	return true;
}

static double guest_seconds(const struct noc_bench_params *p)
{
	return (double)((uint64_t)p->ticks_hi << 32 | p->ticks_lo) / (double)BH_AICLK_HZ;
}

static uint64_t guest_instret(const struct noc_bench_params *p)
{
	return (uint64_t)p->instret_hi << 32 | p->instret_lo;
}

/* One run of a NoC mode on tile TILE_A of g: the timed loop's seconds and instructions. */
static bool guest_run_one(struct guest *g, const struct noc_bench_params *in, struct noc_bench_params *out,
			  char *err, size_t errlen)
{
	guest_set_params(g, TILE_A, in);
	if (bh_core_start(g->dev, TILE_A, BH_CORE_BRISC, g->entry) != BH_OK) {
		snprintf(err, errlen, "cannot start brisc");
		return false;
	}
	return guest_finish(g, TILE_A, out, NULL, err, errlen);
}

/* ---- Data the transfers move ----------------------------------------------------------------- */

static void fill_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
	uint32_t x = seed | 1;

	for (size_t i = 0; i + 4 <= len; i += 4) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		memcpy(buf + i, &x, 4);
	}
}

/* First differing byte, or -1. */
static long first_difference(const uint8_t *a, const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

/* ---- 1, 2. NoC bandwidth ----------------------------------------------------------------------- */

static uint32_t batches_for(uint64_t bytes)
{
	uint64_t n = bytes / ((uint64_t)BATCH * BLOCK);
	return n > 0 ? (uint32_t)n : 1;
}

/* One bhemu transfer run on a fresh device: sets the data up, runs, checks it. */
static bool transfer_run(const struct options *opt, bool read, uint32_t iterations, struct noc_bench_params *out,
			 double *host_s, char *err, size_t errlen)
{
	const size_t area = (size_t)BATCH * BLOCK;
	uint8_t *pattern = malloc(area), *seen = malloc(area);
	struct guest g = { 0 };
	unsigned tile_b, x, y;
	bool ok = false;

	if (pattern == NULL || seen == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!guest_open(&g, opt->elf, 1, err, errlen))
		goto out;
	/* Tile B is the farthest tile, (16,11); the synchronous NoC does not care, a reader does. */
	tile_b = bh_device_num_tiles(g.dev) - 1;
	struct noc_bench_params in = {
		.iterations = iterations, .batch = BATCH, .block = BLOCK,
	};
	fill_pattern(pattern, area, read ? 0xD7A4u : 0x11A1u);
	if (read) {
		bh_dram_bank_xy(g.dev, 0, DRAM_BANK, &x, &y);
		in.mode = NOC_BENCH_DRAM_READ;
		in.src = DRAM_OFFSET;
		in.dst = NOC_BENCH_DST_L1;
		bh_dram_write(g.dev, DRAM_BANK, DRAM_OFFSET, pattern, area);
	} else {
		bh_device_tile_xy(g.dev, tile_b, &x, &y);
		in.mode = NOC_BENCH_WRITE;
		in.src = NOC_BENCH_SRC_L1;
		in.dst = NOC_BENCH_DST_L1;
		bh_l1_write(g.dev, TILE_A, NOC_BENCH_SRC_L1, pattern, area);
	}
	in.peer_xy = (y << 6) | x;
	double t0 = benchlib_now();
	if (!guest_run_one(&g, &in, out, err, errlen))
		goto out;
	*host_s = benchlib_now() - t0;
	bh_l1_read(g.dev, read ? TILE_A : tile_b, NOC_BENCH_DST_L1, seen, area);
	long d = first_difference(seen, pattern, area);
	if (d >= 0) {
		snprintf(err, errlen, "%s byte %ld differs from the source", read ? "L1 after the reads:" :
			 "tile B's L1 after the writes:", d);
		goto out;
	}
	ok = true;
out:
	guest_close(&g);
	free(pattern);
	free(seen);
	return ok;
}

static void bench_transfer(struct benchlib_row *r, const struct options *opt, bool read)
{
	uint32_t iterations = batches_for(read ? opt->read_bytes : opt->write_bytes);
	double bytes = (double)iterations * BATCH * BLOCK, best_s = -1, best_host_s = 0, ref_best = -1;
	uint64_t best_insns = 0;
	char err[512];

	snprintf(r->name, sizeof r->name, "NoC %s, %u x %u KiB", read ? "read DRAM->L1" : "write L1->L1", BATCH,
		 BLOCK / 1024);
	r->ref_what = "host memcpy, same blocks";
	if (!read) {
		r->bar_kind = BENCHLIB_BAR_RATIO_MIN;
		r->bar = WRITE_BAR;
	}
	for (int i = 0; i < opt->c.repeat; i++) {
		struct noc_bench_params out;
		double host_s;
		if (!transfer_run(opt, read, iterations, &out, &host_s, err, sizeof err)) {
			benchlib_row_fail(r, "bhemu: %s", err);
			return;
		}
		if (best_s < 0 || guest_seconds(&out) < best_s) {
			best_s = guest_seconds(&out);
			best_host_s = host_s;
			best_insns = guest_instret(&out);
		}
		double ref = native_memcpy(iterations, BATCH, BLOCK, err, sizeof err);
		if (ref < 0) {
			benchlib_row_fail(r, "reference: %s", err);
			return;
		}
		if (ref > ref_best)
			ref_best = ref;
	}
	r->bhemu = bytes / best_s / 1e9;
	r->ref = ref_best / 1e9;
	double per_req = (double)best_insns / ((double)iterations * BATCH);
	snprintf(r->diag, sizeof r->diag,
		 "%.0f MiB per run (%u batches); %.1f guest instructions per request; best run %.3f s in the "
		 "guest loop, %.3f s host start-to-exit; reference %.3f s", bytes / (1 << 20), iterations, per_req,
		 best_s, best_host_s, bytes / ref_best);
	benchlib_appendf(r->extra, sizeof r->extra,
		", \"bytes_per_run\": %.0f, \"block\": %u, \"batch\": %u, \"bhemu_bytes_per_s\": %.0f"
		", \"reference_bytes_per_s\": %.0f, \"guest_instructions_per_request\": %.2f"
		", \"bhemu_loop_seconds\": %.6f, \"bhemu_host_seconds\": %.6f",
		bytes, BLOCK, BATCH, bytes / best_s, ref_best, per_req, best_s, best_host_s);
}

/* ---- 3. Atomics -------------------------------------------------------------------------------- */

static bool atomic_run(const struct options *opt, struct noc_bench_params *out, char *err, size_t errlen)
{
	struct guest g;
	unsigned tile_b, x, y;
	uint32_t word = 0;
	bool ok = false;

	if (!guest_open(&g, opt->elf, 1, err, errlen))
		goto out;
	tile_b = bh_device_num_tiles(g.dev) - 1;
	bh_device_tile_xy(g.dev, tile_b, &x, &y);
	struct noc_bench_params in = {
		.mode = NOC_BENCH_ATOMIC, .iterations = opt->atomics, .peer_xy = (y << 6) | x,
		.dst = NOC_BENCH_SEM_L1,
	};
	bh_l1_write(g.dev, tile_b, NOC_BENCH_SEM_L1, &word, sizeof word);
	if (!guest_run_one(&g, &in, out, err, errlen))
		goto out;
	/* One warm-up atomic, then `atomics`: the word counts them all, the last returned the one before. */
	bh_l1_read(g.dev, tile_b, NOC_BENCH_SEM_L1, &word, sizeof word);
	if (word != opt->atomics + 1 || out->result != opt->atomics) {
		snprintf(err, errlen, "the word on tile B holds %u and the last atomic returned %u (expected %u, %u)",
			 word, out->result, opt->atomics + 1, opt->atomics);
		goto out;
	}
	ok = true;
out:
	guest_close(&g);
	return ok;
}

static void bench_atomic(struct benchlib_row *r, const struct options *opt)
{
	double best_s = -1, ref_best = -1;
	uint64_t best_insns = 0;
	char err[512];

	snprintf(r->name, sizeof r->name, "NoC atomic inc + barrier");
	r->ref_what = "1 host thread __atomic_fetch_add";
	for (int i = 0; i < opt->c.repeat; i++) {
		struct noc_bench_params out;
		if (!atomic_run(opt, &out, err, sizeof err)) {
			benchlib_row_fail(r, "bhemu: %s", err);
			return;
		}
		if (best_s < 0 || guest_seconds(&out) < best_s) {
			best_s = guest_seconds(&out);
			best_insns = guest_instret(&out);
		}
		double ref = native_fetch_add(opt->atomics, err, sizeof err);
		if (ref < 0) {
			benchlib_row_fail(r, "reference: %s", err);
			return;
		}
		if (ref > ref_best)
			ref_best = ref;
	}
	r->bhemu = opt->atomics / best_s / 1e6;
	r->ref = ref_best / 1e6;
	double per_op = (double)best_insns / opt->atomics;
	snprintf(r->diag, sizeof r->diag,
		 "%u atomics per run; %.1f guest instructions per atomic (issue + barrier), %.0f ns each; reference: "
		 "one thread, seq_cst, uncontended, %.1f ns each", opt->atomics, per_op, best_s / opt->atomics * 1e9,
		 1e9 / ref_best);
	benchlib_appendf(r->extra, sizeof r->extra,
		", \"atomics_per_run\": %u, \"bhemu_atomics_per_s\": %.0f, \"reference_ops_per_s\": %.0f"
		", \"guest_instructions_per_atomic\": %.2f, \"reference_what\": \"one host thread, "
		"__atomic_fetch_add seq_cst on one word, old value used; no contention\"",
		opt->atomics, opt->atomics / best_s, ref_best, per_op);
}

/* ---- 4. Aggregate instruction rate --------------------------------------------------------------- */

struct compute_run {
	double wall_s, cpu_s, start_s, load_s;
	uint64_t instructions;            /* every core, start to exit (crt0 and table set-up included) */
	double slowest_s, fastest_s;      /* the guests' own loop times */
};

/* The compute loop on BRISC of tiles [0, ntiles) of a fresh P150, all started together. */
static bool compute_run(const struct options *opt, unsigned ntiles, uint32_t rounds, struct compute_run *o,
			char *err, size_t errlen)
{
	struct noc_bench_params in = { .mode = NOC_BENCH_COMPUTE, .iterations = rounds }, out;
	uint32_t table[NOC_BENCH_TABLE_WORDS], expect = noc_bench_compute(table, rounds);
	struct guest g;
	bool ok = false;

	memset(o, 0, sizeof *o);
	double t = benchlib_now();
	if (!guest_open(&g, opt->elf, ntiles, err, errlen))
		goto out;
	for (unsigned k = 0; k < ntiles; k++)
		guest_set_params(&g, k, &in);
	o->load_s = benchlib_now() - t;

	double c0 = benchlib_process_cpu(), t0 = benchlib_now();
	for (unsigned k = 0; k < ntiles; k++)
		bh_core_start(g.dev, k, BH_CORE_BRISC, g.entry);
	o->start_s = benchlib_now() - t0;
	for (unsigned k = 0; k < ntiles; k++) {
		uint64_t insns = 0;
		if (!guest_finish(&g, k, &out, &insns, err, errlen))
			goto out;
		if (out.result != expect) {
			snprintf(err, errlen, "tile %u: digest %08x, expected %08x", k, out.result, expect);
			goto out;
		}
		o->instructions += insns;
		double s = guest_seconds(&out);
		if (k == 0 || s > o->slowest_s)
			o->slowest_s = s;
		if (k == 0 || s < o->fastest_s)
			o->fastest_s = s;
	}
	o->wall_s = benchlib_now() - t0;
	o->cpu_s = benchlib_process_cpu() - c0;
	ok = true;
out:
	guest_close(&g);
	return ok;
}

static unsigned affinity_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	return (unsigned)CPU_COUNT(&set);
}

/* The same loop on host threads: rounds for one thread to take about target_s, from a short
 * calibration. 0 with err set if a run failed. */
static uint32_t native_rounds_for(double target_s, char *err, size_t errlen)
{
	uint32_t rounds = 1000;
	double cpu_s;

	for (;;) {
		double s = native_compute_threads(1, rounds, &cpu_s, err, errlen);
		if (s < 0)
			return 0;
		if (s >= 0.05 || rounds >= UINT32_MAX / 4) {
			double r = rounds * target_s / (s > 0 ? s : 1e-9);
			return r < 1 ? 1 : r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
		}
		rounds *= 4;
	}
}

/* The host's own scaling of the loop, measured next to bhemu's: one thread, then as many
 * threads as bhemu has cores. Rounds per second of the best run of each. */
struct native_scaling {
	uint32_t single_rounds, rounds;     /* per thread; rounds: of the next run */
	uint32_t best_rounds;               /* per thread in the best all-threads run */
	double single_rate, rate;           /* rounds/s, best */
	double single_cpus, cpus;           /* CPUs busy on average in those runs */
};

static bool native_scaling_run(struct native_scaling *n, unsigned nthreads, char *err, size_t errlen)
{
	double cpu_s, s = native_compute_threads(1, n->single_rounds, &cpu_s, err, errlen);

	if (s < 0)
		return false;
	if (n->single_rounds / s > n->single_rate) {
		n->single_rate = n->single_rounds / s;
		n->single_cpus = cpu_s / s;
	}
	s = native_compute_threads(nthreads, n->rounds, &cpu_s, err, errlen);
	if (s < 0)
		return false;
	if ((double)nthreads * n->rounds / s > n->rate) {
		n->rate = (double)nthreads * n->rounds / s;
		n->cpus = cpu_s / s;
		n->best_rounds = n->rounds;
	}
	return true;
}

static void bench_compute(struct benchlib_row *single, struct benchlib_row *agg, struct benchlib_row *scaling, const struct options *opt)
{
	struct compute_run s_best = { .wall_s = -1 }, a_best = { .wall_s = -1 };
	struct native_scaling nat = { 0 };
	char err[512];

	snprintf(single->name, sizeof single->name, "compute, 1 BRISC");
	snprintf(agg->name, sizeof agg->name, "compute, %u BRISCs at once", opt->tiles);
	snprintf(scaling->name, sizeof scaling->name, "speed-up %u cores vs 1", opt->tiles);
	agg->ref_what = "host CPUs x 1-BRISC rate";
	agg->bar_kind = BENCHLIB_BAR_RATIO_MIN;
	agg->bar = AGGREGATE_BAR;
	scaling->ref_what = "same loop, host threads";

	/* Native runs: about 0.5 s on one thread (a tenth with --quick); on all threads about as long
	 * as bhemu's all-tiles run before it (1-5 s on free CPUs), so that both see the same load. */
	double target = opt->c.quick ? 0.05 : 0.5;
	nat.single_rounds = native_rounds_for(target, err, sizeof err);
	if (nat.single_rounds == 0)
		benchlib_row_fail(scaling, "native: %s", err);
	for (int i = 0; i < opt->compute_repeat; i++) {
		struct compute_run s, a;
		if (!compute_run(opt, 1, opt->single_rounds, &s, err, sizeof err)) {
			benchlib_row_fail(single, "bhemu: %s", err);
			benchlib_row_fail(agg, "bhemu, 1 BRISC: %s", err);
			benchlib_row_fail(scaling, "bhemu, 1 BRISC: %s", err);
			return;
		}
		if (s_best.wall_s < 0 || s.instructions / s.wall_s > s_best.instructions / s_best.wall_s)
			s_best = s;
		if (!compute_run(opt, opt->tiles, opt->rounds, &a, err, sizeof err)) {
			benchlib_row_fail(agg, "bhemu: %s", err);
			benchlib_row_fail(scaling, "bhemu: %s", err);
			break;
		}
		if (a_best.wall_s < 0 || a.instructions / a.wall_s > a_best.instructions / a_best.wall_s)
			a_best = a;
		if (scaling->failed)
			continue;
		double span = opt->c.quick ? 0.1 : a.wall_s < 1 ? 1 : a.wall_s > 5 ? 5 : a.wall_s;
		double r = nat.single_rounds / target * span * (double)opt->host_cpus / opt->tiles;
		nat.rounds = r < 1 ? 1 : r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
		if (!native_scaling_run(&nat, opt->tiles, err, sizeof err))
			benchlib_row_fail(scaling, "native: %s", err);
	}
	double s_mips = s_best.instructions / s_best.wall_s / 1e6;
	single->bhemu = s_mips;
	snprintf(single->diag, sizeof single->diag,
		 "%u rounds, %.0f M instructions in %.3f s, %.2f CPUs busy on average", opt->single_rounds,
		 s_best.instructions / 1e6, s_best.wall_s, s_best.cpu_s / s_best.wall_s);
	benchlib_appendf(single->extra, sizeof single->extra,
		", \"rounds\": %u, \"instructions\": %" PRIu64 ", \"seconds\": %.6f, \"cpu_seconds\": %.6f"
		", \"mips_per_cpu_second\": %.3f", opt->single_rounds, s_best.instructions, s_best.wall_s,
		s_best.cpu_s, s_best.instructions / s_best.cpu_s / 1e6);
	if (agg->failed)
		return;

	double a_mips = a_best.instructions / a_best.wall_s / 1e6;
	unsigned aff = affinity_cpus();
	agg->bhemu = a_mips;
	agg->ref = (double)opt->host_cpus * s_mips;
	/* Per CPU-second: separates emulator overhead (contention, caches) from CPU time the run
	 * did not get (other processes, the scheduler). */
	double a_eff = a_best.instructions / a_best.cpu_s / 1e6, s_eff = s_best.instructions / s_best.cpu_s / 1e6;
	snprintf(agg->diag, sizeof agg->diag,
		 "%u rounds per core, %.0f M instructions in %.3f s (starting the cores took %.3f s; guest loops "
		 "%.2f-%.2f s); %.2f CPUs busy on average; per CPU-second %.1f MIPS vs. %.1f on one core (%.2f); "
		 "reference %ld CPUs x %.1f MIPS%s",
		 opt->rounds, a_best.instructions / 1e6, a_best.wall_s, a_best.start_s, a_best.fastest_s,
		 a_best.slowest_s, a_best.cpu_s / a_best.wall_s, a_eff, s_eff, a_eff / s_eff, opt->host_cpus, s_mips,
		 aff != 0 && (long)aff != opt->host_cpus ? " (this process may run on fewer: see affinity)" : "");
	benchlib_appendf(agg->extra, sizeof agg->extra,
		", \"tiles\": %u, \"rounds_per_core\": %u, \"instructions\": %" PRIu64 ", \"seconds\": %.6f"
		", \"cpu_seconds\": %.6f, \"start_seconds\": %.6f, \"load_seconds\": %.6f"
		", \"guest_loop_seconds_min\": %.6f, \"guest_loop_seconds_max\": %.6f, \"single_mips\": %.3f"
		", \"host_cpus\": %ld, \"affinity_cpus\": %u, \"mips_per_cpu_second\": %.3f"
		", \"single_mips_per_cpu_second\": %.3f",
		opt->tiles, opt->rounds, a_best.instructions, a_best.wall_s, a_best.cpu_s, a_best.start_s,
		a_best.load_s, a_best.fastest_s, a_best.slowest_s, s_mips, opt->host_cpus, aff, a_eff, s_eff);
	if (scaling->failed)
		return;

	/* The bar's reference assumes every CPU is free; this one measures what the machine gave
	 * the same loop on as many host threads, in the same minutes. */
	scaling->bhemu = a_mips / s_mips;
	scaling->ref = nat.rate / nat.single_rate;
	snprintf(scaling->diag, sizeof scaling->diag,
		 "bhemu %.2f CPUs busy with %u cores vs. %.2f with one; host threads %.2f CPUs busy with %u threads "
		 "(%u rounds each) vs. %.2f with one (%u rounds), %.1f M rounds/s on one",
		 a_best.cpu_s / a_best.wall_s, opt->tiles, s_best.cpu_s / s_best.wall_s, nat.cpus, opt->tiles,
		 nat.best_rounds, nat.single_cpus, nat.single_rounds, nat.single_rate / 1e6);
	benchlib_appendf(scaling->extra, sizeof scaling->extra,
		", \"threads\": %u, \"native_rounds_per_thread\": %u, \"native_single_rounds\": %u"
		", \"native_rounds_per_s\": %.0f, \"native_single_rounds_per_s\": %.0f, \"native_cpus_busy\": %.3f"
		", \"native_single_cpus_busy\": %.3f, \"bhemu_cpus_busy\": %.3f, \"bhemu_single_cpus_busy\": %.3f",
		opt->tiles, nat.best_rounds, nat.single_rounds, nat.rate, nat.single_rate, nat.cpus, nat.single_cpus,
		a_best.cpu_s / a_best.wall_s, s_best.cpu_s / s_best.wall_s);
}

/* ---- Output ------------------------------------------------------------------------------------ */

/* ---- Command line ------------------------------------------------------------------------------ */

static unsigned parse_only(const char *list)
{
	static const struct benchlib_name_bit names[] = {
		{ "write", M_WRITE }, { "read", M_READ }, { "atomic", M_ATOMIC }, { "compute", M_COMPUTE }, { "sync", M_SYNC },
	};

	return benchlib_parse_only(list, names, sizeof names / sizeof names[0]);
}

int main(int argc, char **argv)
{
	benchlib_set_program("bench_noc");
	struct options opt = { .c.repeat = -1, .only = M_ALL, .elf = BENCH_NOC_ELF };
	long write_mib = -1, read_mib = -1, atomics = -1, rounds = -1, single_rounds = -1, tiles = -1, cpus = -1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout, argv[0]);
			return BENCHLIB_EXIT_OK;
		} else if (benchlib_common_option(argc, argv, &i, &opt.c, MAX_REPEAT)) {
			continue;
		} else if (strcmp(a, "--write-mib") == 0) {
			write_mib = (long)benchlib_option_ulong(argc, argv, &i, 1, 1 << 20);
		} else if (strcmp(a, "--read-mib") == 0) {
			read_mib = (long)benchlib_option_ulong(argc, argv, &i, 1, 1 << 20);
		} else if (strcmp(a, "--atomics") == 0) {
			atomics = (long)benchlib_option_ulong(argc, argv, &i, 1, 1000000000);
		} else if (strcmp(a, "--rounds") == 0) {
			rounds = (long)benchlib_option_ulong(argc, argv, &i, 1, 100000000);
		} else if (strcmp(a, "--single-rounds") == 0) {
			single_rounds = (long)benchlib_option_ulong(argc, argv, &i, 1, 1000000000);
		} else if (strcmp(a, "--tiles") == 0) {
			tiles = (long)benchlib_option_ulong(argc, argv, &i, 1, 140);
		} else if (strcmp(a, "--host-cpus") == 0) {
			cpus = (long)benchlib_option_ulong(argc, argv, &i, 1, 4096);
		} else if (strcmp(a, "--only") == 0) {
			opt.only = parse_only(benchlib_option_value(argc, argv, &i));
		} else if (strcmp(a, "--elf") == 0) {
			opt.elf = benchlib_option_value(argc, argv, &i);
		} else {
			fprintf(stderr, "bench_noc: unknown argument %s (see --help)\n", a);
			return BENCHLIB_EXIT_USAGE;
		}
	}
	/* Defaults: about a minute on two host CPUs; --quick: a few seconds. */
	opt.compute_repeat = opt.c.repeat > 0 ? opt.c.repeat : opt.c.quick ? 1 : 2;
	if (opt.c.repeat < 0)
		opt.c.repeat = opt.c.quick ? 1 : 3;
	opt.write_bytes = (uint64_t)(write_mib > 0 ? write_mib : opt.c.quick ? 256 : 4096) << 20;
	opt.read_bytes = (uint64_t)(read_mib > 0 ? read_mib : opt.c.quick ? 256 : 4096) << 20;
	opt.atomics = (uint32_t)(atomics > 0 ? atomics : opt.c.quick ? 50000 : 500000);
	opt.rounds = (uint32_t)(rounds > 0 ? rounds : opt.c.quick ? 1000 : 20000);
	opt.single_rounds = (uint32_t)(single_rounds > 0 ? single_rounds : 10 * opt.rounds);
	opt.tiles = (unsigned)(tiles > 0 ? tiles : 140);
	opt.host_cpus = cpus > 0 ? cpus : sysconf(_SC_NPROCESSORS_ONLN);

	bool json_to_stdout = opt.c.json_path != NULL && strcmp(opt.c.json_path, "-") == 0;
	FILE *out = json_to_stdout ? stderr : stdout;
	struct benchlib_row rows[MAX_ROWS];
	struct benchlib_host_load load;
	long cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned affinity = affinity_cpus();
	int n = 0;

	benchlib_host_begin(&load);
#define PROGRESS(...) (fprintf(out, "running " __VA_ARGS__), fputs(" ...\n", out), fflush(out))
	if (opt.only & M_WRITE) {
		PROGRESS("NoC writes L1 -> L1, %" PRIu64 " MiB x %d", opt.write_bytes >> 20, opt.c.repeat);
		bench_transfer(benchlib_row_new(rows, &n, "noc_write_l1_l1", "GB/s"), &opt, false);
	}
	if (opt.only & M_READ) {
		PROGRESS("NoC reads DRAM -> L1, %" PRIu64 " MiB x %d", opt.read_bytes >> 20, opt.c.repeat);
		bench_transfer(benchlib_row_new(rows, &n, "noc_read_dram_l1", "GB/s"), &opt, true);
	}
	if (opt.only & M_ATOMIC) {
		PROGRESS("NoC atomics, %u x %d", opt.atomics, opt.c.repeat);
		bench_atomic(benchlib_row_new(rows, &n, "noc_atomic_inc", "Mops/s"), &opt);
	}
	/* The synchronous NoC next to it: what the asynchronous one costs (no bar: it is the
	 * comparison, not the target). */
	noc_mode = BH_NOC_SYNC;
	struct benchlib_row *sync_rows[2] = { NULL, NULL };
	if ((opt.only & (M_WRITE | M_SYNC)) == (M_WRITE | M_SYNC)) {
		PROGRESS("NoC writes L1 -> L1 on the synchronous NoC, %" PRIu64 " MiB x %d", opt.write_bytes >> 20, opt.c.repeat);
		bench_transfer(sync_rows[0] = benchlib_row_new(rows, &n, "noc_write_l1_l1_sync", "GB/s"), &opt, false);
	}
	if ((opt.only & (M_ATOMIC | M_SYNC)) == (M_ATOMIC | M_SYNC)) {
		PROGRESS("NoC atomics on the synchronous NoC, %u x %d", opt.atomics, opt.c.repeat);
		bench_atomic(sync_rows[1] = benchlib_row_new(rows, &n, "noc_atomic_inc_sync", "Mops/s"), &opt);
	}
	for (unsigned k = 0; k < 2; k++)
		if (sync_rows[k]) {
			sync_rows[k]->bar_kind = BENCHLIB_BAR_NONE;
			strncat(sync_rows[k]->name, ", sync", sizeof sync_rows[k]->name - strlen(sync_rows[k]->name) - 1);
		}
	noc_mode = BH_NOC_ASYNC;
	if (opt.only & M_COMPUTE) {
		PROGRESS("compute on 1 and %u BRISCs, %u and %u rounds per core, x %d", opt.tiles, opt.single_rounds,
			 opt.rounds, opt.compute_repeat);
		struct benchlib_row *single = benchlib_row_new(rows, &n, "compute_single", "MIPS");
		struct benchlib_row *agg = benchlib_row_new(rows, &n, "compute_aggregate", "MIPS");
		bench_compute(single, agg, benchlib_row_new(rows, &n, "compute_speedup", "x"), &opt);
	}
#undef PROGRESS

	/* The machine the numbers come from: other processes (and, in a VM, steal time) take CPU time
	 * from the emulator and from the references, not equally. */
	char host_line[128], head[160];
	snprintf(host_line, sizeof host_line, "host: %ld CPUs online (sysconf), %u in this process's affinity mask",
		 cpus_online, affinity);
	snprintf(head, sizeof head, "  \"compute_repeat\": %d,\n  \"host_cpus\": %ld,\n  \"host_affinity_cpus\": %u,\n",
		 opt.compute_repeat, cpus_online, affinity);
	struct benchlib_end e = { .host_line = host_line, .ref_head = "reference", .with_ref_is = true,
				  .json_path = opt.c.json_path, .quick = opt.c.quick, .check_bars = opt.c.check_bars,
				  .repeat = opt.c.repeat, .json_head = head };
	return benchlib_end_run(out, &e, &load, rows, n);
}
