/* bench_sync: how fast bhemu's cores synchronise, measured against what the host itself can do.
 *
 * Runs multi-core guest programs in-process through the library API (a fresh device per run,
 * bench_guest.h) and, in the same run, a native reference of each: host threads doing the same
 * synchronisation (sync_native.h). Measurements:
 *   1. CB ping-pong BRISC -> NCRISC (tests/guest/mc/cb_pingpong.c) through a 1-, 2- and 16-page
 *      CB: pages/s, against a single-producer/single-consumer ring between two host threads
 *      (bench_cb.h, shared with bench_tensix).
 *   2. CB chain through all five cores (tests/guest/mc/cb_chain5.c): pages/s, against a chain of
 *      five host threads and four rings of the same depths.
 *   3. Wake-up round trip (bench/guest/sync_wake.c): the host writes an L1 flag that a parked
 *      core polls, the core answers in another L1 word, which the host polls. Median and p99,
 *      against two host threads where the waiting one blocks in futex_wait.
 *   4. Idle device: 140 tiles, all 700 cores parked on a flag nobody writes: process CPU over
 *      2 s, then the time to wake them all and see them exit; against 700 host threads blocked
 *      in futex_wait.
 * The cost of a store on the interpreter's hot path is bench_cores' subject; this only says so. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "bench_cb.h"
#include "bench_guest.h"
#include "benchlib.h"
#include "sync_native.h"

#ifndef BENCH_SYNC_PINGPONG_ELF
#define BENCH_SYNC_PINGPONG_ELF ""
#endif
#ifndef BENCH_SYNC_CHAIN_ELF
#define BENCH_SYNC_CHAIN_ELF ""
#endif
#ifndef BENCH_SYNC_WAKE_ELF
#define BENCH_SYNC_WAKE_ELF ""
#endif
#ifndef BENCH_SYNC_ONE_CORE_ELF
#define BENCH_SYNC_ONE_CORE_ELF ""
#endif

#define NCORES GUEST_MAX_CORES
#define IDLE_CPU_BAR 5.0          /* an idle device must use less than this % of one host CPU */
#define WAKE_EXIT 0xFFFFFFFFu     /* sync_wake.c: the flag value that makes its cores exit */

/* Which measurements run (--only). */
enum {
	M_PINGPONG = 1 << 0,
	M_CHAIN = 1 << 1,
	M_WAKE = 1 << 2,
	M_IDLE = 1 << 3,
	M_SERIAL = 1 << 4,
	M_ALL = (1 << 5) - 1,
};

struct options {
	struct benchlib_common c;   /* --json, --quick, --check-bars, --repeat */
	uint32_t pingpong_pages;
	uint32_t chain_pages;
	unsigned rounds;
	unsigned warmup;
	double settle_s;          /* extra wait once a waiter is seen parked, before the flag write */
	unsigned tiles;
	double idle_s;
	unsigned only;
	const char *pingpong_elf;
	const char *chain_elf;
	const char *wake_elf;
	const char *one_core_elf;
};

#define MAX_ROWS 16
#define SERIAL_BAR 0.25   /* serial >= 0.25 x threaded instructions/s on a single-tile CB program */
#define MAX_REPEAT BENCH_CB_MAX_REPEAT

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [options]\n"
		"\n"
		"Measures bhemu's synchronisation paths, each against a native reference of host\n"
		"threads measured in the same run, and prints a table (and optionally JSON):\n"
		"  cb pingpong   pages/s through a CB from BRISC to NCRISC (cb_pingpong, 64-byte\n"
		"                pages, CB of 1, 2 and 16 pages) vs. an SPSC ring between two host\n"
		"                threads with the same counters, pages and checks (bar: >= %.0f%%)\n"
		"  cb chain5     pages/s through BRISC -> NCRISC -> TRISC0 -> TRISC1 -> TRISC2\n"
		"                (cb_chain5) vs. five host threads joined by four rings\n"
		"  wake-up       round trip host write of an L1 flag -> parked core answers in L1,\n"
		"                median and p99, vs. a host thread blocked in futex_wait\n"
		"  idle          CPU of a device whose every core is parked (bar: < %.0f%% of one\n"
		"                CPU), and the time to wake them all until they exit, vs. as many\n"
		"                host threads blocked in futex_wait\n"
		"  serial        --sched serial against the threaded mode, alternating in the same run:\n"
		"                aggregate instructions/s of cb chain5 on a full tile (bar: >= %.2f) and\n"
		"                of one core (a sieve), and whole runs/s (open, load, run, close) of a\n"
		"                small chain: the seeds/s of a hunt\n"
		"Throughputs are the best of --repeat runs; each run's time includes starting the\n"
		"cores (well under 1%% of it at the default page counts).\n"
		"\n"
		"options:\n"
		"  --quick             a few seconds: fewer pages and rounds, 0.5 s idle, one run each\n"
		"  --repeat N          runs per throughput measurement, best counts (default 3)\n"
		"  --pages N           pages per ping-pong run (default 200000)\n"
		"  --chain-pages N     pages per chain run (default 20000)\n"
		"  --rounds N          wake-up round trips (default 2000)\n"
		"  --tiles N           tiles of the idle device (default 140, 5 cores each)\n"
		"  --idle-seconds S    wall time the idle CPU is measured over (default 2)\n"
		"  --only LIST         comma-separated subset of pingpong,chain,wake,idle,serial\n"
		"  --check-bars        exit 1 when a bar is missed (default: only reported)\n"
		"  --pingpong-elf F, --chain-elf F, --wake-elf F\n"
		"                      guest programs (defaults: those of this build)\n"
		"  --json FILE         also write the results as JSON to FILE (- for stdout; the\n"
		"                      table then goes to stderr)\n"
		"  --help              this text\n"
		"\n"
		"exit status: 0 every measurement ran and every guest and native run checked its\n"
		"pages; 1 one failed (or, with --check-bars, missed its bar); 2 bad usage.\n",
		argv0, BENCH_CB_PINGPONG_BAR * 100, IDLE_CPU_BAR, SERIAL_BAR);
}

/* ---- 2. CB chain through five cores ---------------------------------------------------------- */

struct chain_params {
	uint32_t pages;
	struct native_cb cbs[NCORES - 1];   /* read from the ELF: the native rings get the same depths */
};

/* cb_chain5.c: chain_pages; the CB depths stay the program's (read back for the reference). */
static bool chain_patch(struct bh_device *dev, const char *elf, void *ctx, char *err, size_t errlen)
{
	struct chain_params *p = ctx;
	uint32_t pages_addr, cfg_addr;

	if (!guest_symbol(dev, 0, BH_CORE_BRISC, elf, "chain_pages", &pages_addr, err, errlen) ||
	    !guest_symbol(dev, 0, BH_CORE_BRISC, elf, "chain_cb_config", &cfg_addr, err, errlen))
		return false;
	guest_l1_put32(dev, 0, pages_addr, p->pages);
	for (unsigned i = 0; i < NCORES - 1; i++) {
		p->cbs[i].pages = guest_l1_get32(dev, 0, cfg_addr + 16 * i + 8);
		p->cbs[i].page_size = guest_l1_get32(dev, 0, cfg_addr + 16 * i + 12);
	}
	return true;
}

static void bench_chain(struct benchlib_row *r, const struct options *opt)
{
	struct chain_params p = { .pages = opt->chain_pages };

	/* Each bhemu run comes before its native one, so the depths are read before they are used. */
	snprintf(r->name, sizeof r->name, "cb chain5, 5 cores");
	bench_cb_measure(r, opt->c.repeat, opt->chain_elf, NCORES, chain_patch, &p, p.cbs, p.pages);
	if (r->failed)
		return;
	snprintf(r->name, sizeof r->name, "cb chain5, CBs %u/%u/%u/%u", p.cbs[0].pages, p.cbs[1].pages,
		 p.cbs[2].pages, p.cbs[3].pages);
	benchlib_appendf(r->extra, sizeof r->extra, ", \"cb_pages\": [%u, %u, %u, %u]", p.cbs[0].pages, p.cbs[1].pages,
		p.cbs[2].pages, p.cbs[3].pages);
}

/* ---- Serial scheduling against threaded (after 2: it runs cb chain5 too) -------------------------------------------------- */

/* One run on a device opened with cfg: aggregate instructions per second of its cores (first
 * start to last exit), and *wall_s the whole run's wall time (open to close). -1 on failure. */
static double sched_run(const struct bh_device_config *cfg, const char *elf, unsigned ncores, guest_patch_fn patch,
			void *ctx, double *wall_s, char *err, size_t errlen)
{
	struct guest_run g;
	double t0 = benchlib_now();
	if (!guest_run_cfg(cfg, elf, ncores, patch, ctx, &g, err, errlen))
		return -1;
	*wall_s = benchlib_now() - t0;
	uint64_t n = 0;
	for (unsigned k = 0; k < ncores; k++)
		n += g.instructions[k];
	return g.seconds > 0 ? (double)n / g.seconds : -1;
}

/* A single-core program (exits through the host call) on BRISC: instructions per second. */
static double one_core_run(const struct bh_device_config *cfg, const char *elf, char *err, size_t errlen)
{
	struct bh_device *dev;
	struct bh_core_result res;
	uint32_t entry;
	if (!elf[0]) {
		snprintf(err, errlen, "no guest ELF in this build (needs riscv64-unknown-elf-gcc)");
		return -1;
	}
	if (bh_device_open(cfg, &dev) != BH_OK) {
		snprintf(err, errlen, "cannot open a device");
		return -1;
	}
	double rate = -1;
	if (bh_load_elf(dev, 0, BH_CORE_BRISC, elf, NULL, &entry, err, errlen) == BH_OK) {
		bh_core_enable_host_calls(dev, 0, BH_CORE_BRISC, true);
		struct guest_capture cap;
		char last[256];
		bool captured = guest_capture_begin(&cap);
		double t0 = benchlib_now();
		bh_core_start(dev, 0, BH_CORE_BRISC, entry);
		int rc = bh_core_wait(dev, 0, BH_CORE_BRISC, (int)(GUEST_TIMEOUT_S * 1000), &res);
		double s = benchlib_now() - t0;
		if (captured)
			guest_capture_end(&cap, last, sizeof last);
		if (rc == BH_OK && res.status == BH_RUN_EXITED && res.exit_status == 0)
			rate = (double)res.instructions / s;
		else
			snprintf(err, errlen, "%s: status %d, exit %d (rc %d)", elf, (int)res.status, res.exit_status, rc);
	}
	bh_device_close(dev);
	return rate;
}

static void sched_row(struct benchlib_row *r, const char *name, const char *unit_ref)
{
	snprintf(r->name, sizeof r->name, "%s", name);
	r->ref_what = unit_ref;
}

static void bench_serial(struct benchlib_row *tile, struct benchlib_row *one, struct benchlib_row *seeds,
			 const struct options *opt)
{
	struct chain_params p = { .pages = opt->chain_pages }, small = { .pages = 200 };
	char err[512];
	double best_s = -1, best_t = -1, one_s = -1, one_t = -1, seeds_s = -1, seeds_t = -1;
	sched_row(tile, "serial/threaded, cb chain5 insns/s", "threaded mode, same program");
	sched_row(one, "serial/threaded, one core insns/s", "threaded mode, same program");
	sched_row(seeds, "serial/threaded, small-run seeds/s", "threaded mode, same program");
	tile->bar_kind = BENCHLIB_BAR_RATIO_MIN;
	tile->bar = SERIAL_BAR;
	for (int k = 0; k < opt->c.repeat; k++) {
		struct bh_device_config ser = { .sched = BH_SCHED_SERIAL, .seed = (uint64_t)k + 1 };
		struct bh_device_config thr = { .sched = BH_SCHED_THREADED, .seed = (uint64_t)k + 1 };
		double w, rs = sched_run(&ser, opt->chain_elf, NCORES, chain_patch, &p, &w, err, sizeof err);
		double rt = rs < 0 ? -1 : sched_run(&thr, opt->chain_elf, NCORES, chain_patch, &p, &w, err, sizeof err);
		if (rs < 0 || rt < 0) {
			benchlib_row_fail(tile, "%s", err);
			break;
		}
		best_s = rs > best_s ? rs : best_s;
		best_t = rt > best_t ? rt : best_t;
		double os = one_core_run(&ser, opt->one_core_elf, err, sizeof err);
		double ot = os < 0 ? -1 : one_core_run(&thr, opt->one_core_elf, err, sizeof err);
		if (os < 0 || ot < 0) {
			benchlib_row_fail(one, "%s", err);
		} else {
			one_s = os > one_s ? os : one_s;
			one_t = ot > one_t ? ot : one_t;
		}
		/* Whole small runs back to back, 20 of each: what bounds a hunt's seeds/s. */
		double ws = 0, wt = 0;
		for (unsigned i = 0; i < 20 && !seeds->failed; i++) {
			double a, b;
			ser.seed = thr.seed = i + 1;
			if (sched_run(&ser, opt->chain_elf, NCORES, chain_patch, &small, &a, err, sizeof err) < 0 ||
			    sched_run(&thr, opt->chain_elf, NCORES, chain_patch, &small, &b, err, sizeof err) < 0)
				benchlib_row_fail(seeds, "%s", err);
			ws += a;
			wt += b;
		}
		if (!seeds->failed) {
			seeds_s = 20 / ws > seeds_s ? 20 / ws : seeds_s;
			seeds_t = 20 / wt > seeds_t ? 20 / wt : seeds_t;
		}
	}
	tile->bhemu = best_s;
	tile->ref = best_t;
	tile->unit = "insns/s";
	one->bhemu = one_s;
	one->ref = one_t;
	one->unit = "insns/s";
	seeds->bhemu = seeds_s;
	seeds->ref = seeds_t;
	seeds->unit = "runs/s";
	benchlib_appendf(tile->diag, sizeof tile->diag, "serial %.1f M insns/s, threaded %.1f M insns/s (5 cores)",
			 best_s / 1e6, best_t / 1e6);
}

/* ---- 3. Wake-up latency ---------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_sorted(const double *v, unsigned n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double p99_sorted(const double *v, unsigned n)
{
	unsigned k = (unsigned)ceil(0.99 * n);
	return v[k > 0 ? k - 1 : 0];
}

/* The bhemu side: BRISC runs sync_wake.c; round r writes wake_flag = r once BRISC is parked
 * again, then polls wake_ack until it reads r. */
static bool wake_bhemu(const struct options *opt, double *rtt, unsigned *unparked, uint64_t *parks, char *err,
		       size_t errlen)
{
	struct bh_device_config cfg = { .num_tiles = 1, .deadlock_ms = -1 };
	struct bh_device *dev;
	struct bh_core_result res;
	uint32_t entry, flag, ack;
	char msg[512];
	bool ok = false;

	if (opt->wake_elf[0] == '\0') {
		snprintf(err, errlen, "no guest ELF in this build (needs riscv64-unknown-elf-gcc)");
		return false;
	}
	if (bh_device_open(&cfg, &dev) != BH_OK) {
		snprintf(err, errlen, "cannot open a device");
		return false;
	}
	if (bh_load_elf(dev, 0, BH_CORE_BRISC, opt->wake_elf, NULL, &entry, msg, sizeof msg) != BH_OK) {
		snprintf(err, errlen, "%s", msg);
		goto out;
	}
	if (!guest_symbol(dev, 0, BH_CORE_BRISC, opt->wake_elf, "_start_brisc", &entry, err, errlen) ||
	    !guest_symbol(dev, 0, BH_CORE_BRISC, opt->wake_elf, "wake_flag", &flag, err, errlen) ||
	    !guest_symbol(dev, 0, BH_CORE_BRISC, opt->wake_elf, "wake_ack", &ack, err, errlen))
		goto out;
	bh_core_enable_host_calls(dev, 0, BH_CORE_BRISC, true);
	bh_core_start(dev, 0, BH_CORE_BRISC, entry);

	*unparked = 0;
	uint64_t parks0 = guest_core_parks(dev, 0, BH_CORE_BRISC);
	for (uint32_t r = 1; r <= opt->warmup + opt->rounds; r++) {
		/* The answer to round r - 1 came from a running core: wait until it parks again. */
		double deadline = benchlib_now() + 0.1;
		while (!guest_core_parked(dev, 0, BH_CORE_BRISC)) {
			if (benchlib_now() > deadline) {
				++*unparked;
				break;
			}
		}
		benchlib_spin_for(opt->settle_s);
		double t0 = benchlib_now();
		guest_l1_put32(dev, 0, flag, r);
		while (guest_l1_get32(dev, 0, ack) != r) {
			if (benchlib_now() > t0 + 1.0) {
				bh_core_result(dev, 0, BH_CORE_BRISC, &res);
				if (res.status == BH_RUN_FAULTED)
					fprintf(stderr, "bench_sync: %s\n", res.report);
				snprintf(err, errlen, "no answer to round %u within 1 s%s", r,
					 res.status == BH_RUN_FAULTED ? ": brisc faulted (report on stderr)" : "");
				goto out;
			}
		}
		double t1 = benchlib_now();
		if (r > opt->warmup)
			rtt[r - opt->warmup - 1] = t1 - t0;
	}
	*parks = guest_core_parks(dev, 0, BH_CORE_BRISC) - parks0;
	guest_l1_put32(dev, 0, flag, WAKE_EXIT);
	if (bh_core_wait(dev, 0, BH_CORE_BRISC, 5000, &res) != BH_OK || res.status != BH_RUN_EXITED ||
	    res.exit_status != 0) {
		snprintf(err, errlen, "brisc did not exit 0 after the last round");
		goto out;
	}
	ok = true;
out:
	bh_device_close(dev);
	return ok;
}

static void bench_wake(struct benchlib_row *med, struct benchlib_row *p99, const struct options *opt)
{
	unsigned n = opt->rounds, unparked = 0;
	double *b = calloc(n, sizeof *b), *h = calloc(n, sizeof *h);
	uint64_t parks = 0;
	char err[512];

	snprintf(med->name, sizeof med->name, "wake-up round trip, median");
	snprintf(p99->name, sizeof p99->name, "wake-up round trip, p99");
	if (b == NULL || h == NULL) {
		benchlib_row_fail(med, "out of memory");
		goto out;
	}
	if (!wake_bhemu(opt, b, &unparked, &parks, err, sizeof err))
		benchlib_row_fail(med, "bhemu: %s", err);
	if (native_wake_rtt(n, opt->warmup, opt->settle_s, h, err, sizeof err) != 0)
		benchlib_row_fail(med, "native: %s", err);
	if (med->failed) {
		benchlib_row_fail(p99, "%s", med->error);
		goto out;
	}
	qsort(b, n, sizeof *b, cmp_double);
	qsort(h, n, sizeof *h, cmp_double);
	med->bhemu = median_sorted(b, n) * 1e6;
	med->ref = median_sorted(h, n) * 1e6;
	p99->bhemu = p99_sorted(b, n) * 1e6;
	p99->ref = p99_sorted(h, n) * 1e6;
	snprintf(med->diag, sizeof med->diag,
		 "%u rounds after %u warm-up, each written %.0f us after the waiter parked; brisc parked %" PRIu64
		 " times (%u rounds it was not parked)",
		 n, opt->warmup, opt->settle_s * 1e6, parks, unparked);
	for (int i = 0; i < 2; i++) {
		struct benchlib_row *r = i ? p99 : med;
		benchlib_appendf(r->extra, sizeof r->extra,
			", \"rounds\": %u, \"warmup\": %u, \"settle_us\": %.1f, \"bhemu_parks\": %" PRIu64
			", \"bhemu_rounds_not_parked\": %u, \"bhemu_min_us\": %.3f, \"native_min_us\": %.3f",
			n, opt->warmup, opt->settle_s * 1e6, parks, unparked, b[0] * 1e6, h[0] * 1e6);
	}
out:
	free(b);
	free(h);
}

/* ---- 4. Idle device -------------------------------------------------------------------------- */

static void sleep_for(double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

struct idle_bhemu {
	double open_s, load_s, settle_s, cpu_percent, wake_all_s, close_s;
	uint64_t idle_parks;       /* parks during the idle window: each is a wake-up that re-parked */
};

static bool idle_bhemu_run(const struct options *opt, struct idle_bhemu *o, char *err, size_t errlen)
{
	/* No deadlock monitor: every core parked with nothing to wake it is the point here. */
	struct bh_device_config cfg = { .num_tiles = opt->tiles, .deadlock_ms = -1 };
	struct bh_device *dev;
	uint32_t entry[NCORES], flag = 0;
	char msg[512], sym[32];
	bool ok = false;

	if (opt->wake_elf[0] == '\0') {
		snprintf(err, errlen, "no guest ELF in this build (needs riscv64-unknown-elf-gcc)");
		return false;
	}
	double t = benchlib_now();
	if (bh_device_open(&cfg, &dev) != BH_OK) {
		snprintf(err, errlen, "cannot open a device of %u tiles", opt->tiles);
		return false;
	}
	o->open_s = benchlib_now() - t;
	t = benchlib_now();
	for (unsigned tile = 0; tile < opt->tiles; tile++) {
		for (unsigned k = 0; k < NCORES; k++) {
			enum bh_core_id core = (enum bh_core_id)k;
			uint32_t e;
			if (bh_load_elf(dev, tile, core, opt->wake_elf, NULL, &e, msg, sizeof msg) != BH_OK) {
				snprintf(err, errlen, "%s", msg);
				goto out;
			}
			bh_core_enable_host_calls(dev, tile, core, true);
			if (tile > 0)
				continue;
			snprintf(sym, sizeof sym, "_start_%s", bh_core_name(core));
			if (!guest_symbol(dev, 0, core, opt->wake_elf, sym, &entry[k], err, errlen))
				goto out;
		}
	}
	if (!guest_symbol(dev, 0, BH_CORE_BRISC, opt->wake_elf, "wake_flag", &flag, err, errlen))
		goto out;
	o->load_s = benchlib_now() - t;

	t = benchlib_now();
	for (unsigned tile = 0; tile < opt->tiles; tile++)
		for (unsigned k = 0; k < NCORES; k++)
			bh_core_start(dev, tile, (enum bh_core_id)k, entry[k]);
	unsigned parked = 0, total = opt->tiles * NCORES;
	while (parked < total) {
		if (benchlib_now() > t + 20) {
			snprintf(err, errlen, "only %u of %u cores parked within 20 s", parked, total);
			goto out;
		}
		sleep_for(0.001);
		parked = 0;
		for (unsigned tile = 0; tile < opt->tiles; tile++)
			for (unsigned k = 0; k < NCORES; k++)
				parked += guest_core_parked(dev, tile, k);
	}
	o->settle_s = benchlib_now() - t;
	sleep_for(0.01);   /* the last ones marked themselves parked just before their futex wait */

	uint64_t parks0 = 0, parks1 = 0;
	for (unsigned tile = 0; tile < opt->tiles; tile++)
		for (unsigned k = 0; k < NCORES; k++)
			parks0 += guest_core_parks(dev, tile, k);
	double c0 = benchlib_process_cpu(), w0 = benchlib_now();
	sleep_for(opt->idle_s);
	double c1 = benchlib_process_cpu(), w1 = benchlib_now();
	o->cpu_percent = (c1 - c0) / (w1 - w0) * 100;
	for (unsigned tile = 0; tile < opt->tiles; tile++)
		for (unsigned k = 0; k < NCORES; k++)
			parks1 += guest_core_parks(dev, tile, k);
	o->idle_parks = parks1 - parks0;

	struct guest_capture cap;
	char last[256];
	if (!guest_capture_begin(&cap)) {
		snprintf(err, errlen, "cannot redirect the guest's output: %s", strerror(errno));
		goto out;
	}
	t = benchlib_now();
	for (unsigned tile = 0; tile < opt->tiles; tile++)
		guest_l1_put32(dev, tile, flag, WAKE_EXIT);
	ok = true;
	for (unsigned tile = 0; tile < opt->tiles && ok; tile++) {
		for (unsigned k = 0; k < NCORES && ok; k++) {
			struct bh_core_result res;
			int rc = bh_core_wait(dev, tile, (enum bh_core_id)k, 10000, &res);
			if (rc != BH_OK || res.status != BH_RUN_EXITED || res.exit_status != 0) {
				snprintf(err, errlen, "tile %u %s did not exit 0 within 10 s of the wake-up", tile,
					 bh_core_name((enum bh_core_id)k));
				ok = false;
			}
		}
	}
	o->wake_all_s = benchlib_now() - t;
	guest_capture_end(&cap, last, sizeof last);
out:
	t = benchlib_now();
	bh_device_close(dev);
	o->close_s = benchlib_now() - t;
	return ok;
}

static void bench_idle(struct benchlib_row *cpu, struct benchlib_row *wake, const struct options *opt)
{
	struct idle_bhemu b = { 0 };
	struct native_idle h = { 0 };
	unsigned cores = opt->tiles * NCORES;
	char err[512];

	snprintf(cpu->name, sizeof cpu->name, "idle %u parked cores, CPU", cores);
	snprintf(wake->name, sizeof wake->name, "wake %u parked cores, all exit", cores);
	cpu->no_ratio = true;
	cpu->bar_kind = BENCHLIB_BAR_VALUE_MAX;
	cpu->bar = IDLE_CPU_BAR;
	if (!idle_bhemu_run(opt, &b, err, sizeof err)) {
		benchlib_row_fail(cpu, "bhemu: %s", err);
		benchlib_row_fail(wake, "bhemu: %s", err);
		return;
	}
	if (native_idle_run(opt->tiles, NCORES, opt->idle_s, &h, err, sizeof err) != 0) {
		benchlib_row_fail(cpu, "native: %s", err);
		benchlib_row_fail(wake, "native: %s", err);
		return;
	}
	cpu->bhemu = b.cpu_percent;
	cpu->ref = h.cpu_percent;
	wake->bhemu = b.wake_all_s * 1e3;
	wake->ref = h.wake_all_s * 1e3;
	snprintf(cpu->diag, sizeof cpu->diag,
		 "%u tiles over %.1f s; device open %.2f s, ELF loads %.2f s, all parked %.2f s after the "
		 "starts (native threads asleep after %.2f s), wake-ups while idle %" PRIu64 ", close %.2f s",
		 opt->tiles, opt->idle_s, b.open_s, b.load_s, b.settle_s, h.settle_s, b.idle_parks, b.close_s);
	for (int i = 0; i < 2; i++) {
		struct benchlib_row *r = i ? wake : cpu;
		benchlib_appendf(r->extra, sizeof r->extra,
			", \"tiles\": %u, \"cores\": %u, \"idle_seconds\": %.3f, \"bhemu_open_seconds\": %.3f"
			", \"bhemu_load_seconds\": %.3f, \"bhemu_settle_seconds\": %.3f, \"native_settle_seconds\": %.3f"
			", \"bhemu_wakeups_while_idle\": %" PRIu64 ", \"bhemu_close_seconds\": %.3f",
			opt->tiles, cores, opt->idle_s, b.open_s, b.load_s, b.settle_s, h.settle_s, b.idle_parks,
			b.close_s);
	}
}

/* ---- Output ---------------------------------------------------------------------------------- */

/* The machine the numbers come from. Other processes take CPU time from both sides, not
 * equally: bhemu's parking reacts to a partner that is not running. */
struct host_info {
	long cpus;
	struct benchlib_host_load load;
};

/* ---- Command line ---------------------------------------------------------------------------- */

static unsigned parse_only(const char *list)
{
	static const struct benchlib_name_bit names[] = {
		{ "pingpong", M_PINGPONG }, { "chain", M_CHAIN }, { "wake", M_WAKE }, { "idle", M_IDLE },
		{ "serial", M_SERIAL },
	};

	return benchlib_parse_only(list, names, sizeof names / sizeof names[0]);
}

int main(int argc, char **argv)
{
	benchlib_set_program("bench_sync");
	struct options opt = {
		.c.repeat = -1, .settle_s = 20e-6, .warmup = 50, .only = M_ALL,
		.pingpong_elf = BENCH_SYNC_PINGPONG_ELF, .chain_elf = BENCH_SYNC_CHAIN_ELF,
		.wake_elf = BENCH_SYNC_WAKE_ELF, .one_core_elf = BENCH_SYNC_ONE_CORE_ELF,
	};
	long pages = -1, chain_pages = -1, rounds = -1, tiles = -1;
	double idle_s = -1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout, argv[0]);
			return BENCHLIB_EXIT_OK;
		} else if (benchlib_common_option(argc, argv, &i, &opt.c, MAX_REPEAT)) {
			continue;
		} else if (strcmp(a, "--pages") == 0) {
			pages = (long)benchlib_option_ulong(argc, argv, &i, 1, 100000000);
		} else if (strcmp(a, "--chain-pages") == 0) {
			chain_pages = (long)benchlib_option_ulong(argc, argv, &i, 1, 100000000);
		} else if (strcmp(a, "--rounds") == 0) {
			rounds = (long)benchlib_option_ulong(argc, argv, &i, 1, 10000000);
		} else if (strcmp(a, "--tiles") == 0) {
			tiles = (long)benchlib_option_ulong(argc, argv, &i, 1, 1024);
		} else if (strcmp(a, "--idle-seconds") == 0) {
			const char *v = benchlib_option_value(argc, argv, &i);
			char *end;
			idle_s = strtod(v, &end);
			if (*end != '\0' || !(idle_s >= 0.01 && idle_s <= 3600)) {
				fprintf(stderr, "bench_sync: --idle-seconds wants 0.01..3600, not '%s'\n", v);
				return BENCHLIB_EXIT_USAGE;
			}
		} else if (strcmp(a, "--only") == 0) {
			opt.only = parse_only(benchlib_option_value(argc, argv, &i));
		} else if (strcmp(a, "--pingpong-elf") == 0) {
			opt.pingpong_elf = benchlib_option_value(argc, argv, &i);
		} else if (strcmp(a, "--chain-elf") == 0) {
			opt.chain_elf = benchlib_option_value(argc, argv, &i);
		} else if (strcmp(a, "--wake-elf") == 0) {
			opt.wake_elf = benchlib_option_value(argc, argv, &i);
		} else {
			fprintf(stderr, "bench_sync: unknown argument %s (see --help)\n", a);
			return BENCHLIB_EXIT_USAGE;
		}
	}
	/* Defaults: about 30 s on two host CPUs; --quick: a few seconds. */
	if (opt.c.repeat < 0)
		opt.c.repeat = opt.c.quick ? 1 : 3;
	opt.pingpong_pages = (uint32_t)(pages > 0 ? pages : opt.c.quick ? 20000 : 200000);
	opt.chain_pages = (uint32_t)(chain_pages > 0 ? chain_pages : opt.c.quick ? 2000 : 20000);
	opt.rounds = (unsigned)(rounds > 0 ? rounds : opt.c.quick ? 200 : 2000);
	opt.warmup = opt.c.quick ? 10 : opt.warmup;
	opt.tiles = (unsigned)(tiles > 0 ? tiles : 140);
	opt.idle_s = idle_s > 0 ? idle_s : opt.c.quick ? 0.5 : 2.0;

	bool json_to_stdout = opt.c.json_path != NULL && strcmp(opt.c.json_path, "-") == 0;
	FILE *out = json_to_stdout ? stderr : stdout;
	struct benchlib_row rows[MAX_ROWS];
	struct host_info host = { .cpus = sysconf(_SC_NPROCESSORS_ONLN) };
	int n = 0;

	benchlib_host_begin(&host.load);
#define PROGRESS(...) (fprintf(out, "running " __VA_ARGS__), fputs(" ...\n", out), fflush(out))
	if (opt.only & M_PINGPONG) {
		static const uint32_t depths[] = { 1, 2, 16 };
		static const char *const keys[] = { "cb_pingpong_1", "cb_pingpong_2", "cb_pingpong_16" };
		for (int i = 0; i < 3; i++) {
			PROGRESS("cb pingpong, %u-page CB, %" PRIu32 " pages", depths[i], opt.pingpong_pages);
			bench_cb_pingpong(benchlib_row_new(rows, &n, keys[i], "pages/s"), opt.c.repeat, opt.pingpong_elf,
				  opt.pingpong_pages, depths[i]);
		}
	}
	if (opt.only & M_CHAIN) {
		PROGRESS("cb chain5, %" PRIu32 " pages", opt.chain_pages);
		bench_chain(benchlib_row_new(rows, &n, "cb_chain5", "pages/s"), &opt);
	}
	if (opt.only & M_WAKE) {
		PROGRESS("wake-up round trips, %u rounds", opt.rounds);
		struct benchlib_row *med = benchlib_row_new(rows, &n, "wake_rtt_median", "us");
		bench_wake(med, benchlib_row_new(rows, &n, "wake_rtt_p99", "us"), &opt);
	}
	if (opt.only & M_IDLE) {
		PROGRESS("idle device, %u tiles, %.1f s", opt.tiles, opt.idle_s);
		struct benchlib_row *cpu = benchlib_row_new(rows, &n, "idle_cpu", "%");
		bench_idle(cpu, benchlib_row_new(rows, &n, "wake_all", "ms"), &opt);
	}
	if (opt.only & M_SERIAL) {
		PROGRESS("serial against threaded scheduling, cb chain5 and one core");
		struct benchlib_row *tile = benchlib_row_new(rows, &n, "serial_tile_insns", "insns/s");
		struct benchlib_row *one = benchlib_row_new(rows, &n, "serial_one_core_insns", "insns/s");
		bench_serial(tile, one, benchlib_row_new(rows, &n, "serial_seeds", "runs/s"), &opt);
	}
#undef PROGRESS

	char host_line[64], head[64], after[128];
	snprintf(host_line, sizeof host_line, "host: %ld CPUs", host.cpus);
	snprintf(head, sizeof head, "  \"host_cpus\": %ld,\n", host.cpus);
	snprintf(after, sizeof after, "%-34s see bench_cores (`make bench`) and cores/HOTPATH.md\n", "store hot-path cost");
	struct benchlib_end e = { .host_line = host_line, .ref_head = "native", .after_table = after,
				  .json_path = opt.c.json_path, .quick = opt.c.quick, .check_bars = opt.c.check_bars,
				  .repeat = opt.c.repeat, .json_head = head,
				  .json_tail = ",\n  \"store_hot_path\": \"see bench_cores and cores/HOTPATH.md\"" };
	return benchlib_end_run(out, &e, &host.load, rows, n);
}
