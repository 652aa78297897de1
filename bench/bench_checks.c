/* bench_checks: what the detectors cost. Runs examples/pipeline (reader -> CB -> compute -> CB ->
 * writer on every worker tile of a P150, fast dispatch) with the checks off (BHEMU_CHECKS=none),
 * with the default checks and with every check (the opt-in ones too), alternating the three in
 * each repeat, and compares the pipeline's throughput (pages per second of launches, the median
 * of the repeats) with the default and with every check against the checks off, all in the same
 * run. Bar (issue 14): the default checks within 1.25x of none, i.e. a ratio of at least 0.8.
 * A fourth run records a timeline trace of every event kind (BHEMU_TRACE) with the default checks:
 * its throughput against the same checks untraced is the cost of tracing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchlib.h"

#ifndef BENCH_PIPELINE
#define BENCH_PIPELINE "examples/example_pipeline"
#endif

#define MAX_REPEAT 50

/* The runs of each repeat: the checks, and whether a timeline trace of every event kind is
 * recorded (BHEMU_TRACE, to a temporary file). */
static const struct {
	const char *checks;
	bool trace;
} sets[] = { { "none", false }, { "default", false }, { "all", false }, { "default", true } };
enum { SET_NONE, SET_DEFAULT, SET_ALL, SET_TRACE, NSETS };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_checks [--quick] [--repeat N] [--launches N] [--pages N] [--board BOARD]\n"
		"                    [--pipeline PATH] [--check-bars] [--json FILE]\n"
		"Runs examples/pipeline with the checks off, the default checks, every check, and the default\n"
		"checks with a timeline trace of every event (BHEMU_TRACE), alternating, and compares\n"
		"throughput (pages per second of launches, median of the repeats) against the checks off\n"
		"(the trace: against the default checks untraced). Bar: the default checks keep at least 0.8\n"
		"of it (within 1.25x).\n"
		"  --quick          1 repeat of 2 launches (default: 3 repeats of 4 launches)\n"
		"  --repeat N       repeats of the three runs (1-%d)\n"
		"  --launches N     launches per pipeline run\n"
		"  --pages N        pages per tile and launch (default 64)\n"
		"  --board BOARD    p150 (default), p100 or grid:CxR\n"
		"  --pipeline PATH  the pipeline example (default: this build's)\n"
		"  --check-bars     exit 1 when a bar is missed\n"
		"  --json FILE      also write the results as JSON (- for stdout)\n"
		"Exit status: 0 measured, 1 a run failed (or a bar missed with --check-bars), 2 bad usage.\n",
		MAX_REPEAT);
}

/* One pipeline run with BHEMU_CHECKS=set: pages per second of launches (< 0 on failure, with why). */
static double run_pipeline(const char *pipeline, const char *board, unsigned launches, unsigned pages, int set,
			   char *why, size_t whylen)
{
	char cmd[1024], line[1024], trace[64] = "";
	if (sets[set].trace)
		snprintf(trace, sizeof trace, "BHEMU_TRACE=/tmp/bench_checks-%d.json ", (int)getpid());
	snprintf(cmd, sizeof cmd, "%sBHEMU_CHECKS=%s '%s' --quiet --json --board '%s' --launches %u --pages %u 2>&1", trace,
		 sets[set].checks, pipeline, board, launches, pages);
	FILE *p = popen(cmd, "r");
	if (!p) {
		benchlib_set_err(why, whylen, "cannot run %s: %s", pipeline, strerror(errno));
		return -1;
	}
	double pages_moved = -1, seconds = -1;
	char last[1024] = "";
	while (fgets(line, sizeof line, p)) {
		const char *pg = strstr(line, "\"pages\": "), *ls = strstr(line, "\"launch_seconds\": ");
		if (line[0] == '{' && pg && ls) {
			pages_moved = strtod(pg + 9, NULL);
			seconds = strtod(ls + 18, NULL);
		} else {
			snprintf(last, sizeof last, "%s", line);
		}
	}
	int st = pclose(p);
	if (sets[set].trace)
		unlink(trace + strlen("BHEMU_TRACE="));
	if (st != 0 || pages_moved <= 0 || seconds <= 0) {
		last[strcspn(last, "\n")] = 0;
		benchlib_set_err(why, whylen, "pipeline with checks %s%s: exit status %d: %s", sets[set].checks,
				 sets[set].trace ? ", traced" : "", WIFEXITED(st) ? WEXITSTATUS(st) : -1, last);
		return -1;
	}
	return pages_moved / seconds;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	benchlib_set_program("bench_checks");
	struct benchlib_common c = { .repeat = 0 };
	const char *pipeline = BENCH_PIPELINE, *board = "p150";
	unsigned long launches = 0, pages = 64;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return BENCHLIB_EXIT_OK;
		} else if (benchlib_common_option(argc, argv, &i, &c, MAX_REPEAT)) {
			continue;
		} else if (!strcmp(a, "--launches")) {
			launches = benchlib_option_ulong(argc, argv, &i, 1, 1000);
		} else if (!strcmp(a, "--pages")) {
			pages = benchlib_option_ulong(argc, argv, &i, 1, 4096);
		} else if (!strcmp(a, "--board")) {
			board = benchlib_option_value(argc, argv, &i);
		} else if (!strcmp(a, "--pipeline")) {
			pipeline = benchlib_option_value(argc, argv, &i);
		} else {
			fprintf(stderr, "bench_checks: unknown argument %s (see --help)\n", a);
			return BENCHLIB_EXIT_USAGE;
		}
	}
	int repeat = c.repeat > 0 ? c.repeat : c.quick ? 1 : 3;
	if (!launches)
		launches = c.quick ? 2 : 4;
	FILE *out = c.json_path && !strcmp(c.json_path, "-") ? stderr : stdout;

	struct benchlib_row rows[3];
	struct benchlib_host_load load;
	int n = 0;
	struct benchlib_row *def = benchlib_row_new(rows, &n, "pipeline_default_checks", "pages/s");
	struct benchlib_row *all = benchlib_row_new(rows, &n, "pipeline_all_checks", "pages/s");
	snprintf(def->name, sizeof def->name, "pipeline, default checks");
	struct benchlib_row *tr = benchlib_row_new(rows, &n, "pipeline_traced", "pages/s");
	snprintf(all->name, sizeof all->name, "pipeline, every check (opt-in too)");
	snprintf(tr->name, sizeof tr->name, "pipeline, default checks, traced");
	def->ref_what = all->ref_what = "the same pipeline, checks off";
	tr->ref_what = "default checks, not traced";
	def->bar_kind = BENCHLIB_BAR_RATIO_MIN;
	def->bar = 0.8;

	double v[NSETS][MAX_REPEAT];
	char why[1200] = "";
	bool failed = false;
	benchlib_host_begin(&load);
	for (int r = 0; r < repeat && !failed; r++) {
		fprintf(out, "repeat %d of %d: pipeline on %s, %lu launches of %lu pages per tile, checks none/default/all, "
			"default traced ...\n",
			r + 1, repeat, board, launches, pages);
		fflush(out);
		for (int s = 0; s < NSETS && !failed; s++) {
			v[s][r] = run_pipeline(pipeline, board, (unsigned)launches, (unsigned)pages, s, why, sizeof why);
			failed = v[s][r] < 0;
		}
	}
	if (failed) {
		benchlib_row_fail(def, "%s", why);
		benchlib_row_fail(all, "%s", why);
		benchlib_row_fail(tr, "%s", why);
	} else {
		def->ref = all->ref = median(v[SET_NONE], repeat);
		def->bhemu = median(v[SET_DEFAULT], repeat);
		all->bhemu = median(v[SET_ALL], repeat);
		tr->ref = def->bhemu;
		tr->bhemu = median(v[SET_TRACE], repeat);
		snprintf(tr->diag, sizeof tr->diag, "every event kind recorded (BHEMU_TRACE): %.0f pages/s vs %.0f untraced",
			 tr->bhemu, tr->ref);
		snprintf(def->diag, sizeof def->diag, "%.0f pages/s vs %.0f with the checks off (medians of %d runs each, alternating)",
			 def->bhemu, def->ref, repeat);
	}

	char host_line[64], head[256];
	snprintf(host_line, sizeof host_line, "host: %ld CPUs", sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(head, sizeof head, "  \"board\": \"%s\",\n  \"launches\": %lu,\n  \"pages_per_tile\": %lu,\n", board,
		 launches, pages);
	struct benchlib_end e = { .host_line = host_line, .ref_head = "checks off", .with_ref_is = true,
				  .json_path = c.json_path, .quick = c.quick, .check_bars = c.check_bars,
				  .repeat = repeat, .json_head = head };
	return benchlib_end_run(out, &e, &load, rows, n);
}
