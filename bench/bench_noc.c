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
 *   4. Aggregate instruction rate: the compute loop on BRISC of every tile at once, in the
 *      steady state: the cores compute until the host stops them, and the timed window opens
 *      only once every core has done a round (start-up stays outside it). Instructions in the
 *      window / its wall time, against (N x the rate of the same loop on one BRISC), and
 *      instructions per CPU-second against one BRISC's, for N = 1, 2, 4 ... all host CPUs: the
 *      whole process (every emulator thread, and the references) confined to the first N CPUs
 *      of its affinity mask. That reference assumes the N CPUs are free; next to it, the
 *      speed-up (all tiles / one BRISC) is set against the speed-up of the same loop compiled
 *      for the host on as many host threads (noc_native.c), measured between the bhemu runs:
 *      what the machine gave a perfectly scaling program meanwhile.
 * Each row is the median of its repeats (a compute row: the run whose ratio is the median, both
 * values from it: they were measured in the same minutes); the spread is in the notes and JSON.
 * The NoC model is synchronous: a transaction completes inside the CMD_CTRL store of the issuing
 * core, so these numbers are the cost of that store and of the copy it does. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stddef.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

_Static_assert(sizeof(struct noc_bench_params) == 16 * 4, "noc_bench_params: 32-bit words only");
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

#define MAX_POINTS 16

struct options {
	struct benchlib_common c;   /* --json, --quick, --check-bars, --repeat (runs per NoC measurement) */
	const char *elf;
	int compute_repeat;       /* runs of the one-BRISC and the all-tiles compute per point */
	uint64_t write_bytes;     /* per timed write run */
	uint64_t read_bytes;      /* per timed read run */
	uint32_t atomics;
	double window_s;          /* the timed window of each steady-state compute run */
	unsigned tiles;           /* tiles of the aggregate run */
	int points[MAX_POINTS];           /* host CPUs of each point of the compute sweep, ascending */
	int npoints;
	unsigned only;
};

#define MAX_ROWS (8 + MAX_POINTS)
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
		"  compute         one BRISC, then BRISC of every tile at once, running the same loop in\n"
		"                  the steady state (timed once every core runs): MIPS; the aggregate vs.\n"
		"                  CPUs x the one-BRISC rate (bar: >= %.0f%%), and instructions per\n"
		"                  CPU-second against one BRISC's; swept over host CPUs (the whole\n"
		"                  process confined to the first N CPUs of its affinity mask)\n"
		"  speed-up        all tiles' rate / one BRISC's, vs. the same loop compiled for the host\n"
		"                  on as many host threads / one thread: the machine's own scaling now\n"
		"All on a P150 (140 tiles). NoC rates are timed by the guest's wall clock around its\n"
		"loop; each row is the median of --repeat runs, interleaved with its reference's runs\n"
		"(compute: the run with the median ratio; the spread is in the notes and the JSON).\n"
		"\n"
		"options:\n"
		"  --quick             a few seconds: smaller loops, one run each\n"
		"  --repeat N          runs per measurement, the median counts (default 3)\n"
		"  --write-mib N       MiB written per write run (default 4096)\n"
		"  --read-mib N        MiB read per read run (default 4096)\n"
		"  --atomics N         atomics per atomic run (default 500000)\n"
		"  --window-ms N       timed window of each compute run (default 2000; --quick 200)\n"
		"  --tiles N           tiles of the aggregate run (default 140: all)\n"
		"  --cpus LIST         host CPUs of each point of the compute sweep, comma-separated\n"
		"                      (default 1, 2, 4, ... and all of the affinity mask; the last\n"
		"                      point gives the main rows)\n"
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
	double bytes = (double)iterations * BATCH * BLOCK, best_s = -1, best_host_s = 0;
	double rate[MAX_REPEAT], ref_rate[MAX_REPEAT];
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
		rate[i] = bytes / guest_seconds(&out);
		ref_rate[i] = native_memcpy(iterations, BATCH, BLOCK, err, sizeof err);
		if (ref_rate[i] < 0) {
			benchlib_row_fail(r, "reference: %s", err);
			return;
		}
	}
	struct benchlib_stats b = benchlib_stats_of(rate, opt->c.repeat), ref = benchlib_stats_of(ref_rate, opt->c.repeat);
	r->bhemu = b.median / 1e9;
	r->ref = ref.median / 1e9;
	double per_req = (double)best_insns / ((double)iterations * BATCH);
	snprintf(r->diag, sizeof r->diag,
		 "%.0f MiB per run (%u batches); %.1f guest instructions per request; %d runs: %.3f-%.3f GB/s, "
		 "reference %.3f-%.3f; best run %.3f s in the guest loop, %.3f s host start-to-exit",
		 bytes / (1 << 20), iterations, per_req, b.n, b.min / 1e9, b.max / 1e9, ref.min / 1e9, ref.max / 1e9,
		 best_s, best_host_s);
	benchlib_appendf(r->extra, sizeof r->extra,
		", \"bytes_per_run\": %.0f, \"block\": %u, \"batch\": %u, \"bhemu_bytes_per_s\": %.0f"
		", \"reference_bytes_per_s\": %.0f, \"guest_instructions_per_request\": %.2f"
		", \"bhemu_loop_seconds\": %.6f, \"bhemu_host_seconds\": %.6f",
		bytes, BLOCK, BATCH, b.median, ref.median, per_req, best_s, best_host_s);
	benchlib_stats_json(r->extra, sizeof r->extra, "bhemu", &b, 1e-9);
	benchlib_stats_json(r->extra, sizeof r->extra, "reference", &ref, 1e-9);
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
	double best_s = -1, rate[MAX_REPEAT], ref_rate[MAX_REPEAT];
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
		rate[i] = opt->atomics / guest_seconds(&out);
		ref_rate[i] = native_fetch_add(opt->atomics, err, sizeof err);
		if (ref_rate[i] < 0) {
			benchlib_row_fail(r, "reference: %s", err);
			return;
		}
	}
	struct benchlib_stats b = benchlib_stats_of(rate, opt->c.repeat), ref = benchlib_stats_of(ref_rate, opt->c.repeat);
	r->bhemu = b.median / 1e6;
	r->ref = ref.median / 1e6;
	double per_op = (double)best_insns / opt->atomics;
	snprintf(r->diag, sizeof r->diag,
		 "%u atomics per run; %.1f guest instructions per atomic (issue + barrier); %d runs: %.0f ns each "
		 "(%.0f-%.0f); reference: one thread, seq_cst, uncontended, %.1f ns each", opt->atomics, per_op, b.n,
		 1e9 / b.median, 1e9 / b.max, 1e9 / b.min, 1e9 / ref.median);
	benchlib_appendf(r->extra, sizeof r->extra,
		", \"atomics_per_run\": %u, \"bhemu_atomics_per_s\": %.0f, \"reference_ops_per_s\": %.0f"
		", \"guest_instructions_per_atomic\": %.2f, \"ns_per_atomic\": %.1f, \"reference_what\": \"one host "
		"thread, __atomic_fetch_add seq_cst on one word, old value used; no contention\"",
		opt->atomics, b.median, ref.median, per_op, 1e9 / b.median);
	benchlib_stats_json(r->extra, sizeof r->extra, "bhemu", &b, 1e-6);
	benchlib_stats_json(r->extra, sizeof r->extra, "reference", &ref, 1e-6);
}

/* ---- 4. Aggregate instruction rate: steady state, over host CPUs ------------------------------- */

/* One steady-state run: the cores compute until the host stops them; the timed window opens once
 * every core has done a round (start-up is outside it) and lasts opt->window_s. */
struct compute_run {
	double window_s;              /* host time from opening the timed phase to stopping it */
	double cpu_s;                 /* process CPU time over the same span */
	double start_s;               /* from the first bh_core_start until every core had done a round */
	uint64_t instructions;        /* every core, inside its timed window */
	double guest_min_s, guest_max_s;   /* the cores' own windows (rdcycle) */
};

static void sleep_for(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void phase_all(struct guest *g, uint32_t phase)
{
	for (unsigned k = 0; k < g->ntiles; k++)
		bh_l1_write(g->dev, k, g->params + offsetof(struct noc_bench_params, phase), &phase, sizeof phase);
}

static bool all_running(struct guest *g)
{
	for (unsigned k = 0; k < g->ntiles; k++) {
		uint32_t running = 0;
		bh_l1_read(g->dev, k, g->params + offsetof(struct noc_bench_params, running), &running, sizeof running);
		if (!running)
			return false;
	}
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Checks each core's digest against the host's for its round count: one pass of the loop up to
 * the most rounds. rounds and digests are per tile; false (err set) on the first mismatch. */
static bool check_digests(const uint32_t *rounds, const uint32_t *digests, unsigned n, char *err, size_t errlen)
{
	uint64_t *order = malloc(n * sizeof *order);   /* rounds << 32 | tile, sorted */
	uint32_t table[NOC_BENCH_TABLE_WORDS], done = 0;
	struct noc_bench_state s = noc_bench_compute_init(table);
	bool ok = true;

	if (order == NULL) {
		benchlib_set_err(err, errlen, "out of memory");
		return false;
	}
	for (unsigned k = 0; k < n; k++)
		order[k] = (uint64_t)rounds[k] << 32 | k;
	qsort(order, n, sizeof *order, cmp_u64);
	for (unsigned i = 0; i < n && ok; i++) {
		unsigned k = (unsigned)(order[i] & 0xFFFFFFFFu);
		for (; done < rounds[k]; done++)
			noc_bench_compute_round(table, &s);
		if (s.acc != digests[k]) {
			benchlib_set_err(err, errlen, "tile %u: digest %08x after %u rounds, expected %08x", k, digests[k],
					 rounds[k], s.acc);
			ok = false;
		}
	}
	free(order);
	return ok;
}

/* The compute loop on BRISC of tiles [0, ntiles) of a fresh P150, all started together, timed in
 * the steady state. */
static bool compute_run(const struct options *opt, unsigned ntiles, struct compute_run *o, char *err, size_t errlen)
{
	struct noc_bench_params in = { .mode = NOC_BENCH_COMPUTE, .iterations = 0 }, out;
	uint32_t *rounds = calloc(ntiles, sizeof *rounds), *digests = calloc(ntiles, sizeof *digests);
	struct guest g;
	bool ok = false;

	memset(o, 0, sizeof *o);
	if (rounds == NULL || digests == NULL) {
		snprintf(err, errlen, "out of memory");
		free(rounds);
		free(digests);
		return false;
	}
	if (!guest_open(&g, opt->elf, ntiles, err, errlen))
		goto out;
	for (unsigned k = 0; k < ntiles; k++)
		guest_set_params(&g, k, &in);

	double t0 = benchlib_now();
	for (unsigned k = 0; k < ntiles; k++)
		if (bh_core_start(g.dev, k, BH_CORE_BRISC, g.entry) != BH_OK) {
			snprintf(err, errlen, "cannot start brisc of tile %u", k);
			goto out;
		}
	/* Every core has done a round: polled every millisecond (the host sleeps in between). */
	while (!all_running(&g)) {
		if (benchlib_now() - t0 > GUEST_TIMEOUT_MS / 1000.0) {
			phase_all(&g, NOC_BENCH_PHASE_STOP);
			snprintf(err, errlen, "not every core ran a round within %d s", GUEST_TIMEOUT_MS / 1000);
			goto out;
		}
		sleep_for(0.001);
	}
	o->start_s = benchlib_now() - t0;
	double c0 = benchlib_process_cpu(), w0 = benchlib_now();
	phase_all(&g, NOC_BENCH_PHASE_TIMED);
	sleep_for(opt->window_s);
	phase_all(&g, NOC_BENCH_PHASE_STOP);
	o->window_s = benchlib_now() - w0;
	o->cpu_s = benchlib_process_cpu() - c0;
	for (unsigned k = 0; k < ntiles; k++) {
		if (!guest_finish(&g, k, &out, NULL, err, errlen))
			goto out;
		double s = guest_seconds(&out);
		if (guest_instret(&out) == 0) {
			snprintf(err, errlen, "tile %u ran no round inside the timed window", k);
			goto out;
		}
		o->instructions += guest_instret(&out);
		if (k == 0 || s > o->guest_max_s)
			o->guest_max_s = s;
		if (k == 0 || s < o->guest_min_s)
			o->guest_min_s = s;
		rounds[k] = out.rounds;
		digests[k] = out.result;
	}
	ok = check_digests(rounds, digests, ntiles, err, errlen);
out:
	guest_close(&g);
	free(rounds);
	free(digests);
	return ok;
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

/* One point of the sweep: the process confined to `cpus` host CPUs, each repeat a one-BRISC run,
 * an all-tiles run and the native loop on one and on as many threads, each value kept per repeat
 * (median and spread at the end). */
enum {
	V_SINGLE,          /* one BRISC, MIPS */
	V_AGG,             /* all tiles, MIPS */
	V_RATIO,           /* V_AGG / (cpus x V_SINGLE) */
	V_SINGLE_EFF,      /* one BRISC, MIPS per CPU-second */
	V_AGG_EFF,         /* all tiles, MIPS per CPU-second */
	V_EFF,             /* V_AGG_EFF / V_SINGLE_EFF */
	V_SPEEDUP,         /* V_AGG / V_SINGLE */
	V_NATIVE_SPEEDUP,  /* host threads: as many as tiles / one */
	V_SPEEDUP_RATIO,   /* V_SPEEDUP / V_NATIVE_SPEEDUP */
	V_AGG_BUSY,        /* CPUs busy on average in the all-tiles window */
	V_START,           /* seconds until every core had run a round */
	V_COUNT,
};

struct compute_point {
	int cpus;
	int runs;
	double v[V_COUNT][MAX_REPEAT];     /* per run */
	struct benchlib_stats s[V_COUNT];
	/* The runs whose ratio, efficiency and speed-up against the host threads' are the median: a
	 * row takes both its values from one run (they were measured in the same minutes). */
	int mid_ratio, mid_eff, mid_speedup;
	uint64_t agg_instructions;     /* of the last all-tiles run: for the diagnostics */
	double agg_window_s, guest_min_s, guest_max_s;
	char error[600];               /* set: the point failed */
};

static const char *const point_keys[V_COUNT] = {
	"single_mips", "aggregate_mips", "ratio", "single_mips_per_cpu_second", "mips_per_cpu_second",
	"efficiency_per_cpu_second", "speedup", "native_speedup", "speedup_vs_native", "cpus_busy", "start_seconds",
};

static void compute_point(const struct options *opt, struct compute_point *p, uint32_t native_single_rounds,
			  double native_target_s)
{
	char err[512];

	if (!benchlib_confine(p->cpus, err, sizeof err)) {
		snprintf(p->error, sizeof p->error, "confining to %d CPUs: %s", p->cpus, err);
		return;
	}
	for (int i = 0; i < opt->compute_repeat; i++) {
		struct compute_run s, a;
		double cpu_s;
		if (!compute_run(opt, 1, &s, err, sizeof err)) {
			snprintf(p->error, sizeof p->error, "bhemu, 1 BRISC: %s", err);
			return;
		}
		if (!compute_run(opt, opt->tiles, &a, err, sizeof err)) {
			snprintf(p->error, sizeof p->error, "bhemu, %u BRISCs: %s", opt->tiles, err);
			return;
		}
		double n1 = native_compute_threads(1, native_single_rounds, &cpu_s, err, sizeof err);
		double r = native_single_rounds / native_target_s * opt->window_s * p->cpus / opt->tiles;
		uint32_t rounds = r < 1 ? 1 : r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
		double nn = n1 < 0 ? -1 : native_compute_threads(opt->tiles, rounds, &cpu_s, err, sizeof err);
		if (nn < 0) {
			snprintf(p->error, sizeof p->error, "native: %s", err);
			return;
		}
		double *v[V_COUNT];
		for (int k = 0; k < V_COUNT; k++)
			v[k] = &p->v[k][i];
		*v[V_SINGLE] = s.instructions / s.window_s / 1e6;
		*v[V_AGG] = a.instructions / a.window_s / 1e6;
		*v[V_RATIO] = *v[V_AGG] / (p->cpus * *v[V_SINGLE]);
		*v[V_SINGLE_EFF] = s.instructions / s.cpu_s / 1e6;
		*v[V_AGG_EFF] = a.instructions / a.cpu_s / 1e6;
		*v[V_EFF] = *v[V_AGG_EFF] / *v[V_SINGLE_EFF];
		*v[V_SPEEDUP] = *v[V_AGG] / *v[V_SINGLE];
		*v[V_NATIVE_SPEEDUP] = ((double)opt->tiles * rounds / nn) / (native_single_rounds / n1);
		*v[V_SPEEDUP_RATIO] = *v[V_SPEEDUP] / *v[V_NATIVE_SPEEDUP];
		*v[V_AGG_BUSY] = a.cpu_s / a.window_s;
		*v[V_START] = a.start_s;
		p->agg_instructions = a.instructions;
		p->agg_window_s = a.window_s;
		p->guest_min_s = a.guest_min_s;
		p->guest_max_s = a.guest_max_s;
		p->runs = i + 1;
	}
	for (int k = 0; k < V_COUNT; k++) {
		double sorted[MAX_REPEAT];
		memcpy(sorted, p->v[k], (size_t)p->runs * sizeof sorted[0]);
		p->s[k] = benchlib_stats_of(sorted, p->runs);
	}
	p->mid_ratio = benchlib_median_index(p->v[V_RATIO], p->runs);
	p->mid_eff = benchlib_median_index(p->v[V_EFF], p->runs);
	p->mid_speedup = benchlib_median_index(p->v[V_SPEEDUP_RATIO], p->runs);
}

/* The sweep's JSON: `,\n  "compute_scaling": [{"cpus": n, "<key>": median, "<key>_min": ..}, ...]`. */
static char *scaling_json(const struct compute_point *pts, int npts)
{
	size_t size = 512 + (size_t)npts * 2048;
	char *buf = malloc(size);

	if (buf == NULL)
		return NULL;
	buf[0] = '\0';
	benchlib_appendf(buf, size, ",\n  \"compute_scaling\": [");
	for (int i = 0; i < npts; i++) {
		const struct compute_point *p = &pts[i];
		benchlib_appendf(buf, size, "%s\n    {\"cpus\": %d, \"runs\": %d", i ? "," : "", p->cpus, p->runs);
		/* Each value's median and extremes; the median ratio's run (its two rates) first. */
		if (!p->error[0])
			benchlib_appendf(buf, size, ", \"median_run\": {\"single_mips\": %.6g, \"aggregate_mips\": %.6g}",
					 p->v[V_SINGLE][p->mid_ratio], p->v[V_AGG][p->mid_ratio]);
		for (int k = 0; k < V_COUNT && !p->error[0]; k++)
			benchlib_appendf(buf, size, ", \"%s\": %.6g, \"%s_min\": %.6g, \"%s_max\": %.6g", point_keys[k],
					 p->s[k].median, point_keys[k], p->s[k].min, point_keys[k], p->s[k].max);
		benchlib_appendf(buf, size, ", \"error\": ");
		if (p->error[0])
			benchlib_appendf(buf, size, "\"%s\"}", "failed (see the table)");
		else
			benchlib_appendf(buf, size, "null}");
	}
	benchlib_appendf(buf, size, "\n  ]");
	return buf;
}

/* rows: single, aggregate, per CPU-second, speed-up (at the last point: every CPU), then one
 * aggregate row per other point. Returns the sweep's JSON (malloc'd) for the document's tail. */
static char *bench_compute(struct benchlib_row *rows, int *n, const struct options *opt)
{
	static char keys[MAX_POINTS][32];
	struct compute_point *pts = calloc((size_t)opt->npoints, sizeof *pts);
	struct benchlib_row *single = benchlib_row_new(rows, n, "compute_single", "MIPS");
	struct benchlib_row *agg = benchlib_row_new(rows, n, "compute_aggregate", "MIPS");
	struct benchlib_row *eff = benchlib_row_new(rows, n, "compute_per_cpu_second", "MIPS/CPU-s");
	struct benchlib_row *speedup = benchlib_row_new(rows, n, "compute_speedup", "x");
	char err[512];

	if (pts == NULL) {
		benchlib_row_fail(agg, "out of memory");
		return NULL;
	}
	/* Native runs: about 0.5 s on one thread (a tenth with --quick). */
	double target = opt->c.quick ? 0.05 : 0.5;
	uint32_t native_single = native_rounds_for(target, err, sizeof err);
	for (int i = 0; i < opt->npoints; i++) {
		pts[i].cpus = opt->points[i];
		if (native_single == 0)
			snprintf(pts[i].error, sizeof pts[i].error, "native: %s", err);
		else
			compute_point(opt, &pts[i], native_single, target);
	}
	if (!benchlib_confine(0, err, sizeof err))
		fprintf(stderr, "bench_noc: restoring the affinity mask: %s\n", err);

	const struct compute_point *all = &pts[opt->npoints - 1];
	snprintf(single->name, sizeof single->name, "compute, 1 BRISC, %d CPUs", all->cpus);
	snprintf(agg->name, sizeof agg->name, "compute, %u BRISCs, %d CPUs", opt->tiles, all->cpus);
	snprintf(eff->name, sizeof eff->name, "per CPU-s, %u BRISCs vs 1", opt->tiles);
	snprintf(speedup->name, sizeof speedup->name, "speed-up %u cores vs 1", opt->tiles);
	agg->ref_what = "CPUs x 1-BRISC rate";
	agg->bar_kind = BENCHLIB_BAR_RATIO_MIN;
	agg->bar = AGGREGATE_BAR;
	eff->ref_what = "1 BRISC per CPU-second";
	speedup->ref_what = "same loop, host threads";
	for (int i = 0; i < opt->npoints - 1; i++) {
		const struct compute_point *p = &pts[i];
		struct benchlib_row *r;
		snprintf(keys[i], sizeof keys[i], "compute_aggregate_cpus%d", p->cpus);
		r = benchlib_row_new(rows, n, keys[i], "MIPS");
		snprintf(r->name, sizeof r->name, "compute, %u BRISCs, %d CPU%s", opt->tiles, p->cpus,
			 p->cpus == 1 ? "" : "s");
		r->ref_what = "CPUs x 1-BRISC rate";
		if (p->error[0]) {
			benchlib_row_fail(r, "%s", p->error);
			continue;
		}
		r->bhemu = p->v[V_AGG][p->mid_ratio];
		r->ref = p->cpus * p->v[V_SINGLE][p->mid_ratio];
		snprintf(r->diag, sizeof r->diag, "%d runs: ratio %.3f (%.3f-%.3f); per CPU-second %.2f of one core's",
			 p->runs, p->s[V_RATIO].median, p->s[V_RATIO].min, p->s[V_RATIO].max, p->s[V_EFF].median);
		benchlib_stats_json(r->extra, sizeof r->extra, "ratio", &p->s[V_RATIO], 1);
	}
	if (all->error[0]) {
		benchlib_row_fail(single, "%s", all->error);
		benchlib_row_fail(agg, "%s", all->error);
		benchlib_row_fail(eff, "%s", all->error);
		benchlib_row_fail(speedup, "%s", all->error);
		char *json = scaling_json(pts, opt->npoints);
		free(pts);
		return json;
	}
	const struct benchlib_stats *s = all->s;
	single->bhemu = all->v[V_SINGLE][all->mid_ratio];
	snprintf(single->diag, sizeof single->diag, "%d runs of %.2f s each: %.1f-%.1f MIPS; %.1f MIPS per CPU-second",
		 all->runs, opt->window_s, s[V_SINGLE].min, s[V_SINGLE].max, s[V_SINGLE_EFF].median);
	benchlib_stats_json(single->extra, sizeof single->extra, "bhemu", &s[V_SINGLE], 1);
	benchlib_appendf(single->extra, sizeof single->extra, ", \"window_seconds\": %.3f, \"mips_per_cpu_second\": %.3f",
			 opt->window_s, s[V_SINGLE_EFF].median);

	agg->bhemu = all->v[V_AGG][all->mid_ratio];
	agg->ref = all->cpus * all->v[V_SINGLE][all->mid_ratio];
	snprintf(agg->diag, sizeof agg->diag,
		 "steady state: timed from the moment all %u cores ran (starting them took %.3f s, outside the "
		 "window) for %.2f s; %d runs: ratio %.3f (%.3f-%.3f); %.2f CPUs busy; last run %.0f M instructions "
		 "in %.3f s (the cores' own windows %.3f-%.3f s)", opt->tiles, s[V_START].median, opt->window_s,
		 all->runs, s[V_RATIO].median, s[V_RATIO].min, s[V_RATIO].max, s[V_AGG_BUSY].median,
		 all->agg_instructions / 1e6, all->agg_window_s, all->guest_min_s, all->guest_max_s);
	benchlib_appendf(agg->extra, sizeof agg->extra,
		", \"tiles\": %u, \"host_cpus\": %d, \"window_seconds\": %.3f, \"start_seconds\": %.6f"
		", \"single_mips\": %.3f, \"mips_per_cpu_second\": %.3f, \"single_mips_per_cpu_second\": %.3f"
		", \"cpus_busy\": %.3f", opt->tiles, all->cpus, opt->window_s, s[V_START].median, s[V_SINGLE].median,
		s[V_AGG_EFF].median, s[V_SINGLE_EFF].median, s[V_AGG_BUSY].median);
	benchlib_stats_json(agg->extra, sizeof agg->extra, "bhemu", &s[V_AGG], 1);
	benchlib_stats_json(agg->extra, sizeof agg->extra, "ratio", &s[V_RATIO], 1);

	/* Per CPU-second: separates emulator overhead (contention, caches, start-up) from CPU time
	 * the run did not get (other processes, the scheduler). */
	eff->bhemu = all->v[V_AGG_EFF][all->mid_eff];
	eff->ref = all->v[V_SINGLE_EFF][all->mid_eff];
	snprintf(eff->diag, sizeof eff->diag, "%d runs: %.3f (%.3f-%.3f) of one core's instructions per CPU-second",
		 all->runs, s[V_EFF].median, s[V_EFF].min, s[V_EFF].max);
	benchlib_stats_json(eff->extra, sizeof eff->extra, "efficiency", &s[V_EFF], 1);

	/* The bar's reference assumes every CPU is free; this one measures what the machine gave
	 * the same loop on as many host threads, in the same minutes. */
	speedup->bhemu = all->v[V_SPEEDUP][all->mid_speedup];
	speedup->ref = all->v[V_NATIVE_SPEEDUP][all->mid_speedup];
	snprintf(speedup->diag, sizeof speedup->diag,
		 "%d runs: bhemu %.2f-%.2f, %u host threads %.2f-%.2f (%u rounds each on one thread, %.2f s)",
		 all->runs, s[V_SPEEDUP].min, s[V_SPEEDUP].max, opt->tiles, s[V_NATIVE_SPEEDUP].min,
		 s[V_NATIVE_SPEEDUP].max, native_single, target);
	benchlib_appendf(speedup->extra, sizeof speedup->extra, ", \"threads\": %u", opt->tiles);
	char *json = scaling_json(pts, opt->npoints);
	free(pts);
	return json;
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

/* --cpus LIST, or 1, 2, 4, ... below the CPUs of the affinity mask, and all of them. */
static void parse_cpus(const char *list, struct options *opt)
{
	int all = benchlib_affinity_cpus(NULL, 0);
	char buf[256];

	opt->npoints = 0;
	if (list == NULL) {
		for (int c = 1; c < all && opt->npoints < MAX_POINTS - 1; c *= 2)
			opt->points[opt->npoints++] = c;
		opt->points[opt->npoints++] = all;
		return;
	}
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long c = strtol(tok, &end, 10);
		if (*end != '\0' || c < 1 || c > all || opt->npoints == MAX_POINTS ||
		    (opt->npoints > 0 && c <= opt->points[opt->npoints - 1])) {
			fprintf(stderr, "bench_noc: --cpus wants up to %d ascending counts in 1..%d (the affinity mask), "
				"not '%s'\n", MAX_POINTS, all, list);
			exit(BENCHLIB_EXIT_USAGE);
		}
		opt->points[opt->npoints++] = (int)c;
	}
	if (opt->npoints == 0) {
		fprintf(stderr, "bench_noc: --cpus needs a list\n");
		exit(BENCHLIB_EXIT_USAGE);
	}
}

int main(int argc, char **argv)
{
	benchlib_set_program("bench_noc");
	struct options opt = { .c.repeat = -1, .only = M_ALL, .elf = BENCH_NOC_ELF };
	long write_mib = -1, read_mib = -1, atomics = -1, window_ms = -1, tiles = -1;
	const char *cpus = NULL;

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
		} else if (strcmp(a, "--window-ms") == 0) {
			window_ms = (long)benchlib_option_ulong(argc, argv, &i, 1, 600000);
		} else if (strcmp(a, "--tiles") == 0) {
			tiles = (long)benchlib_option_ulong(argc, argv, &i, 1, 140);
		} else if (strcmp(a, "--cpus") == 0) {
			cpus = benchlib_option_value(argc, argv, &i);
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
	opt.compute_repeat = opt.c.repeat > 0 ? opt.c.repeat : opt.c.quick ? 1 : 3;
	if (opt.c.repeat < 0)
		opt.c.repeat = opt.c.quick ? 1 : 3;
	opt.write_bytes = (uint64_t)(write_mib > 0 ? write_mib : opt.c.quick ? 256 : 4096) << 20;
	opt.read_bytes = (uint64_t)(read_mib > 0 ? read_mib : opt.c.quick ? 256 : 4096) << 20;
	opt.atomics = (uint32_t)(atomics > 0 ? atomics : opt.c.quick ? 50000 : 500000);
	opt.window_s = (window_ms > 0 ? window_ms : opt.c.quick ? 200 : 2000) / 1000.0;
	opt.tiles = (unsigned)(tiles > 0 ? tiles : 140);
	parse_cpus(cpus, &opt);

	bool json_to_stdout = opt.c.json_path != NULL && strcmp(opt.c.json_path, "-") == 0;
	FILE *out = json_to_stdout ? stderr : stdout;
	struct benchlib_row rows[MAX_ROWS];
	struct benchlib_host_load load;
	char *tail = NULL;
	long cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned affinity = (unsigned)benchlib_affinity_cpus(NULL, 0);
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
		char list[128] = "";
		for (int i = 0; i < opt.npoints; i++)
			benchlib_appendf(list, sizeof list, "%s%d", i ? "," : "", opt.points[i]);
		PROGRESS("compute on 1 and %u BRISCs, steady state for %.2f s, on %s host CPUs, x %d", opt.tiles,
			 opt.window_s, list, opt.compute_repeat);
		tail = bench_compute(rows, &n, &opt);
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
				  .repeat = opt.c.repeat, .json_head = head, .json_tail = tail };
	int rc = benchlib_end_run(out, &e, &load, rows, n);
	free(tail);
	return rc;
}
