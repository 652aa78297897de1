/* bench_launch: booting a P150 with the reference firmware and launching programs on it, each
 * against host threads doing the same in the same run.
 *
 *  - boot_p150: seconds from releasing BRISC to the last DONE (issue bar: under 2 s); reference:
 *    700 host threads started and each heard from once (what "a chip's worth of threads coming
 *    up" costs natively).
 *  - booted_rss: resident memory of the booted chip (bar: under 1 GiB); no reference.
 *  - launch_empty: slow-dispatch launches per second of an empty kernel on all 700 cores
 *    (bh_program_launch); reference: the same handshake done natively by 700 threads, 140
 *    "BRISCs" that wait for a go word, release their four "subordinates" and wait for them, then
 *    report done to the host, all through futexes.
 *  - launch_empty_fast: the same through the fast-dispatch command queue (bh_cq_launch) on the
 *    138 worker tiles (the other two are the prefetch and dispatch cores); same reference.
 * The launches (bhemu's and the reference's) are timed in --repeat equal parts: each launch row
 * is the median rate of its parts, with the spread in the notes and the JSON. */
#include <inttypes.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "benchlib.h"
#include "sync/park.h"   /* bh_park_fence_stats: heavy fences and membarriers per launch */

#define TILES 140u
#define SUBS 4u
#define MAX_ROWS 8
#define MAX_REPEAT 50

struct options {
	struct benchlib_common c;   /* --json, --quick, --check-bars, --repeat (parts of the launches) */
	unsigned launches;          /* per part */
	const char *firmware;
};

/* ---- Native reference: the launch handshake on host threads ----------------------------------- */

static long futex(_Atomic uint32_t *w, int op, uint32_t v)
{
	return syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, v, NULL, NULL, 0);
}

/* Waits until *w != old. */
static uint32_t wait_change(_Atomic uint32_t *w, uint32_t old)
{
	uint32_t v;
	while ((v = atomic_load_explicit(w, memory_order_acquire)) == old)
		futex(w, FUTEX_WAIT, old);
	return v;
}

static void store_wake(_Atomic uint32_t *w, uint32_t v)
{
	atomic_store_explicit(w, v, memory_order_release);
	futex(w, FUTEX_WAKE, 1);
}

struct native_tile {
	_Atomic uint32_t go;              /* launch generation, written by the host */
	_Atomic uint32_t sub_go[SUBS];    /* generation, written by the BRISC */
	_Atomic uint32_t sub_done;        /* count, by the subordinates */
};

struct native {
	struct native_tile tiles[TILES];
	_Atomic uint32_t done;            /* tiles done, all launches */
	_Atomic uint32_t started;
	unsigned launches;
};

struct native_arg {
	struct native *n;
	unsigned tile, sub;               /* sub == SUBS: the BRISC */
};

static void *native_core(void *p)
{
	struct native_arg *a = p;
	struct native_tile *t = &a->n->tiles[a->tile];
	atomic_fetch_add(&a->n->started, 1);
	futex(&a->n->started, FUTEX_WAKE, 1);
	uint32_t gen = 0, seen_done = 0;
	for (unsigned l = 0; l < a->n->launches; l++) {
		if (a->sub < SUBS) {
			gen = wait_change(&t->sub_go[a->sub], gen);
			atomic_fetch_add_explicit(&t->sub_done, 1, memory_order_acq_rel);
			futex(&t->sub_done, FUTEX_WAKE, 1);
			continue;
		}
		gen = wait_change(&t->go, gen);
		for (unsigned s = 0; s < SUBS; s++)
			store_wake(&t->sub_go[s], gen);
		uint32_t want = seen_done + SUBS, v;
		while ((v = atomic_load_explicit(&t->sub_done, memory_order_acquire)) != want)
			futex(&t->sub_done, FUTEX_WAIT, v);
		seen_done = want;
		atomic_fetch_add_explicit(&a->n->done, 1, memory_order_acq_rel);
		futex(&a->n->done, FUTEX_WAKE, 1);
	}
	return NULL;
}

/* Launches per second of each of `parts` parts of `launches` launches into rates, the seconds
 * until every thread had started in *start_s and the process's CPU milliseconds per launch in
 * *cpu_ms; false when out of memory. */
static bool native_launches(unsigned launches, int parts, double *rates, double *start_s, double *cpu_ms)
{
	struct native *n = calloc(1, sizeof *n);
	struct native_arg *args = calloc(TILES * (SUBS + 1), sizeof *args);
	pthread_t *th = calloc(TILES * (SUBS + 1), sizeof *th);
	if (!n || !args || !th) {
		free(n);
		free(args);
		free(th);
		return false;
	}
	n->launches = launches * (unsigned)parts;
	unsigned nth = 0;
	double t0 = benchlib_now();
	for (unsigned t = 0; t < TILES; t++)
		for (unsigned s = 0; s <= SUBS; s++) {
			args[nth] = (struct native_arg){ n, t, s };
			pthread_create(&th[nth], NULL, native_core, &args[nth]);
			nth++;
		}
	uint32_t v;
	while ((v = atomic_load(&n->started)) != nth)
		futex(&n->started, FUTEX_WAIT, v);
	*start_s = benchlib_now() - t0;
	double cpu0 = benchlib_process_cpu();
	for (int part = 0; part < parts; part++) {
		t0 = benchlib_now();
		for (unsigned l = part * launches + 1; l <= (part + 1) * launches; l++) {
			for (unsigned t = 0; t < TILES; t++)
				store_wake(&n->tiles[t].go, l);
			uint32_t want = l * TILES;
			while ((v = atomic_load_explicit(&n->done, memory_order_acquire)) != want)
				futex(&n->done, FUTEX_WAIT, v);
		}
		rates[part] = launches / (benchlib_now() - t0);
	}
	*cpu_ms = (benchlib_process_cpu() - cpu0) * 1e3 / (launches * (unsigned)parts);
	for (unsigned i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	free(n);
	free(args);
	free(th);
	return true;
}

/* ---- bhemu ------------------------------------------------------------------------------------- */

static double rss_mib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %lf kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib < 0 ? -1 : kib / 1024.0;
}

/* Launches through the command queue: the first uploads the kernels, the others are timed, in
 * opt->c.repeat parts (rates). */
/* What the parks of a launch cost in heavy fences (sync/park.h), for the notes. */
static char fence_slow[160], fence_fast[160];

/* Counters of parking (sync/park.h) at the start of the timed launches. */
struct park_counts {
	uint64_t calls, membarriers, sleeps, futex_wakes, yields;
	double cpu;   /* the process's CPU seconds (only the measured mode's threads run) */
};

static void park_counts(struct park_counts *p)
{
	bh_park_fence_stats(&p->calls, &p->membarriers);
	bh_park_sleep_stats(&p->sleeps, &p->futex_wakes);
	p->yields = bh_park_yield_stats();
	p->cpu = benchlib_process_cpu();
}

static void fence_note(char note[160], const struct park_counts *p0, unsigned launches)
{
	struct park_counts p;
	park_counts(&p);
	snprintf(note, 160, "; per launch %.1f ms of CPU, %.0f sleeps, %.0f futex wakes, %.0f yields, %.1f fenced parks, "
		 "%.1f membarriers", (p.cpu - p0->cpu) * 1e3 / launches, (double)(p.sleeps - p0->sleeps) / launches, (double)(p.futex_wakes - p0->futex_wakes) / launches,
		 (double)(p.yields - p0->yields) / launches, (double)(p.calls - p0->calls) / launches,
		 (double)(p.membarriers - p0->membarriers) / launches);
}

static void bench_fast(const struct options *opt, struct bh_device *dev, struct benchlib_row *fast, double *rates)
{
	static const uint32_t ret = 0x00008067u;
	struct bh_cq *cq = NULL;
	struct bh_program *p = NULL;
	struct bh_core_range r[4];
	char err[1024];
	unsigned nr = bh_device_worker_ranges(dev, r);
	if (bh_cq_open(dev, &(struct bh_cq_config){ .timeout_s = 30 }, &cq, err, sizeof err) != BH_OK) {
		benchlib_row_fail(fast, "bh_cq_open: %s", err);
		return;
	}
	int rc = bh_program_create(dev, &p);
	for (unsigned k = 0; k < 5 && rc == BH_OK; k++)
		if (bh_program_add_kernel_code(p, (enum bh_core_id)k, &ret, 1, r, nr) < 0)
			rc = BH_ERR_ARG;
	if (rc == BH_OK)
		rc = bh_cq_launch(cq, p, NULL);
	struct park_counts p0 = { 0 };
	for (int part = 0; part < opt->c.repeat && rc == BH_OK; part++) {
		rc = bh_cq_finish(cq);
		if (part == 0)
			park_counts(&p0);
		double t0 = benchlib_now();
		for (unsigned l = 0; l < opt->launches && rc == BH_OK; l++)
			rc = bh_cq_launch(cq, p, NULL);
		if (rc == BH_OK)
			rc = bh_cq_finish(cq);
		rates[part] = opt->launches / (benchlib_now() - t0);
	}
	if (rc != BH_OK)
		benchlib_row_fail(fast, "%.400s%.400s", bh_cq_error(cq), p ? bh_program_error(p) : "");
	else
		fence_note(fence_fast, &p0, opt->launches * opt->c.repeat);
	bh_program_destroy(p);
	bh_cq_close(cq);
}

/* rates and fast_rates: of each part of the launches. */
static void bench_bhemu(const struct options *opt, enum bh_tile_threads threads, struct benchlib_row *boot,
			struct benchlib_row *rss, struct benchlib_row *launch, struct benchlib_row *fast, double *rates,
			double *fast_rates)
{
	static const uint32_t ret = 0x00008067u;
	struct bh_device *dev = NULL;
	struct bh_program *p = NULL;
	struct bh_profile prof;
	struct bh_boot_result res = { 0 };
	char err[1024];
	if (bh_profile_derive(opt->firmware, bh_profile_default(), &prof, err, sizeof err) != BH_OK) {
		benchlib_row_fail(boot, "%s", err);
		return;
	}
	if (bh_device_open(&(struct bh_device_config){ .board = BH_BOARD_P150, .tile_threads = threads }, &dev) != BH_OK) {
		benchlib_row_fail(boot, "cannot open a P150 device");
		return;
	}
	int rc = bh_boot(dev, &prof, opt->firmware, &(struct bh_boot_options){ .timeout_s = 30 }, &res);
	if (rc != BH_OK) {
		benchlib_row_fail(boot, "boot: %s", res.message);
		goto out;
	}
	boot->bhemu = res.seconds;
	rss->bhemu = rss_mib();
	struct bh_core_range all[2];
	unsigned nall = bh_device_all_tiles(dev, all);
	if (bh_program_create(dev, &p) != BH_OK)
		goto out;
	for (unsigned k = 0; k < 5; k++)
		if (bh_program_add_kernel_code(p, (enum bh_core_id)k, &ret, 1, all, nall) < 0) {
			benchlib_row_fail(launch, "%s", bh_program_error(p));
			goto out;
		}
	/* The first launch uploads the kernels; the rest reuse them, as repeated launches do. */
	struct park_counts p0 = { 0 };
	for (int part = -1; part < opt->c.repeat; part++) {
		unsigned count = part < 0 ? 1 : opt->launches;
		if (part == 0)
			park_counts(&p0);
		double t0 = benchlib_now();
		for (unsigned l = 0; l < count; l++) {
			rc = bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = 30 }, NULL);
			if (rc != BH_OK) {
				benchlib_row_fail(launch, "launch %u of part %d: %.400s", l, part, bh_program_error(p));
				goto out;
			}
		}
		if (part >= 0)
			rates[part] = count / (benchlib_now() - t0);
	}
	fence_note(fence_slow, &p0, opt->launches * opt->c.repeat);
	bh_program_destroy(p);
	p = NULL;
	bench_fast(opt, dev, fast, fast_rates);
out:
	free(res.report);
	bh_program_destroy(p);
	bh_device_close(dev);
}

/* A launch row from the rates of its parts and the reference's; bhemu's value stays unmeasured when
 * the row failed or a part has no rate (negative: bhemu stopped before it, e.g. the boot failed). */
static void launch_row_rates(struct benchlib_row *r, double *rates, const struct benchlib_stats *ref,
			     double ref_cpu_ms, const struct options *opt, const char *fences)
{
	r->ref = ref->median;
	for (int i = 0; i < opt->c.repeat; i++)
		if (rates[i] < 0)
			return;
	if (r->failed)
		return;
	struct benchlib_stats b = benchlib_stats_of(rates, opt->c.repeat);
	r->bhemu = b.median;
	snprintf(r->diag, sizeof r->diag, "%d parts of %u launches: %.1f-%.1f launch/s (quartiles %.1f-%.1f); "
		 "reference %.1f-%.1f, %.1f ms of CPU per launch%s", b.n, opt->launches, b.min, b.max, b.q1, b.q3,
		 ref->min, ref->max, ref_cpu_ms, fences);
	benchlib_stats_json(r->extra, sizeof r->extra, "bhemu", &b, 1);
	benchlib_stats_json(r->extra, sizeof r->extra, "native", ref, 1);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_launch [--quick] [--launches N] [--repeat N] [--firmware DIR] [--check-bars] [--json FILE|-]\n"
		"Boots a P150 with the reference firmware and measures boot time, resident memory and the\n"
		"slow- and fast-dispatch launch rates of an empty kernel on every core, against host threads doing\n"
		"the same handshake. --quick: 100 launches (default 1000), timed in --repeat N parts (default\n"
		"5, --quick 3): each launch row is the median part's rate. --check-bars: exit 1 when a bar\n"
		"is missed. exit status: 0 measured, 1 a measurement failed (or a bar, with --check-bars),\n"
		"2 bad usage.\n");
}

int main(int argc, char **argv)
{
	benchlib_set_program("bench_launch");
	struct options opt = { .firmware = BENCH_LAUNCH_FIRMWARE };
	long launches = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return BENCHLIB_EXIT_OK;
		} else if (benchlib_common_option(argc, argv, &i, &opt.c, MAX_REPEAT)) {
			continue;
		} else if (!strcmp(a, "--launches")) {
			launches = (long)benchlib_option_ulong(argc, argv, &i, 1, 10000000);
		} else if (!strcmp(a, "--firmware")) {
			opt.firmware = benchlib_option_value(argc, argv, &i);
		} else {
			fprintf(stderr, "bench_launch: unknown argument %s (see --help)\n", a);
			return BENCHLIB_EXIT_USAGE;
		}
	}
	if (opt.c.repeat <= 0)
		opt.c.repeat = opt.c.quick ? 3 : 5;
	launches = launches > 0 ? launches : opt.c.quick ? 100 : 1000;
	opt.launches = launches >= opt.c.repeat ? (unsigned)(launches / opt.c.repeat) : 1;
	FILE *out = opt.c.json_path && !strcmp(opt.c.json_path, "-") ? stderr : stdout;
	struct benchlib_row rows[MAX_ROWS];
	struct benchlib_host_load load;
	int n = 0;
	struct benchlib_row *boot = benchlib_row_new(rows, &n, "boot_p150", "s");
	struct benchlib_row *rss = benchlib_row_new(rows, &n, "booted_rss", "MiB");
	struct benchlib_row *launch = benchlib_row_new(rows, &n, "launch_empty", "launch/s");
	snprintf(boot->name, sizeof boot->name, "boot P150 (140 tiles)");
	boot->ref_what = "700 host threads up";
	boot->bar_kind = BENCHLIB_BAR_VALUE_MAX;
	boot->bar = 2.0;
	snprintf(rss->name, sizeof rss->name, "resident memory, booted P150");
	rss->no_ratio = true;
	rss->bar_kind = BENCHLIB_BAR_VALUE_MAX;
	rss->bar = 1024;
	snprintf(launch->name, sizeof launch->name, "slow-dispatch launches, 700 cores");
	launch->ref_what = "same handshake, 700 host threads";
	struct benchlib_row *fast = benchlib_row_new(rows, &n, "launch_empty_fast", "launch/s");
	snprintf(fast->name, sizeof fast->name, "fast-dispatch launches, 690 cores");
	fast->ref_what = "same handshake, 700 host threads";
	/* The same with each tile's cores sharing one host thread (bh_device_config.tile_threads). */
	struct benchlib_row *launch1 = benchlib_row_new(rows, &n, "launch_empty_one_thread", "launch/s");
	snprintf(launch1->name, sizeof launch1->name, "slow-dispatch launches, 1 thread/tile");
	launch1->ref_what = launch->ref_what;
	struct benchlib_row *fast1 = benchlib_row_new(rows, &n, "launch_empty_fast_one_thread", "launch/s");
	snprintf(fast1->name, sizeof fast1->name, "fast-dispatch launches, 1 thread/tile");
	fast1->ref_what = fast->ref_what;

	benchlib_host_begin(&load);
	double rates[MAX_REPEAT], fast_rates[MAX_REPEAT], native_rates[MAX_REPEAT];
	double rates1[MAX_REPEAT], fast_rates1[MAX_REPEAT];
	for (int i = 0; i < MAX_REPEAT; i++)
		rates[i] = fast_rates[i] = rates1[i] = fast_rates1[i] = -1;   /* not measured */
	fprintf(out, "running boot and %d x %u launches on bhemu ...\n", opt.c.repeat, opt.launches);
	fflush(out);
	bench_bhemu(&opt, BH_TILE_THREADS_PER_CORE, boot, rss, launch, fast, rates, fast_rates);
	char notes[2][160];   /* the per-launch park counts of this mode (the next run overwrites them) */
	memcpy(notes[0], fence_slow, sizeof notes[0]);
	memcpy(notes[1], fence_fast, sizeof notes[1]);
	fprintf(out, "running boot and %d x %u launches on bhemu, one host thread per tile ...\n", opt.c.repeat,
		opt.launches);
	fflush(out);
	struct benchlib_row boot1 = { 0 }, rss1 = { 0 };   /* not reported */
	bench_bhemu(&opt, BH_TILE_THREADS_ONE, &boot1, &rss1, launch1, fast1, rates1, fast_rates1);
	if (boot1.failed)
		benchlib_row_fail(launch1, "%s", boot1.error);
	fprintf(out, "running the native reference, %d x %u launches ...\n", opt.c.repeat, opt.launches);
	fflush(out);
	double native_cpu_ms = 0;
	if (native_launches(opt.launches, opt.c.repeat, native_rates, &boot->ref, &native_cpu_ms)) {
		struct benchlib_stats ref = benchlib_stats_of(native_rates, opt.c.repeat);
		launch_row_rates(launch, rates, &ref, native_cpu_ms, &opt, notes[0]);
		launch_row_rates(fast, fast_rates, &ref, native_cpu_ms, &opt, notes[1]);
		launch_row_rates(launch1, rates1, &ref, native_cpu_ms, &opt, fence_slow);
		launch_row_rates(fast1, fast_rates1, &ref, native_cpu_ms, &opt, fence_fast);
	} else {
		benchlib_row_fail(launch, "native reference: out of memory");
		benchlib_row_fail(fast, "native reference: out of memory");
	}

	char host_line[64], head[96];
	snprintf(host_line, sizeof host_line, "host: %ld CPUs", sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(head, sizeof head, "  \"launches\": %u,\n  \"launches_per_part\": %u,\n  \"host_cpus\": %ld,\n",
		 opt.launches * (unsigned)opt.c.repeat, opt.launches, sysconf(_SC_NPROCESSORS_ONLN));
	struct benchlib_end e = { .host_line = host_line, .ref_head = "native", .with_ref_is = true,
				  .json_path = opt.c.json_path, .quick = opt.c.quick, .check_bars = opt.c.check_bars,
				  .repeat = opt.c.repeat, .json_head = head };
	return benchlib_end_run(out, &e, &load, rows, n);
}
