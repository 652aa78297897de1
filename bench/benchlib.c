/* benchlib: what the benchmark harnesses share (benchlib.h). */
#define _GNU_SOURCE
#include "benchlib.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *program = "bench";

void benchlib_set_program(const char *name)
{
	program = name;
}

const char *benchlib_program_name(void)
{
	return program;
}

/* ---- Time ------------------------------------------------------------------------------------ */

double benchlib_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double benchlib_process_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void benchlib_spin_for(double seconds)
{
	double end = benchlib_now() + seconds;

	while (benchlib_now() < end)
		benchlib_cpu_relax();
}

/* ---- Repeats: median and spread ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of n sorted values, interpolating between neighbours. */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int lo = (int)pos;

	return lo + 1 < n ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

struct benchlib_stats benchlib_stats_of(double *v, int n)
{
	struct benchlib_stats s = { .n = n };

	if (n < 1)
		return s;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = quantile(v, n, 0.5);
	s.q1 = quantile(v, n, 0.25);
	s.q3 = quantile(v, n, 0.75);
	return s;
}

int benchlib_median_index(const double *v, int n)
{
	for (int i = 0; i < n; i++) {
		int below = 0, same_before = 0;
		for (int j = 0; j < n; j++) {
			below += v[j] < v[i];
			same_before += j < i && v[j] == v[i];
		}
		if (below + same_before == (n - 1) / 2)   /* its rank, ties in index order */
			return i;
	}
	return 0;
}

void benchlib_stats_json(char *buf, size_t size, const char *prefix, const struct benchlib_stats *s, double scale)
{
	benchlib_appendf(buf, size,
		", \"%s_median\": %.6g, \"%s_min\": %.6g, \"%s_max\": %.6g, \"%s_q1\": %.6g, \"%s_q3\": %.6g"
		", \"%s_runs\": %d", prefix, s->median * scale, prefix, s->min * scale, prefix, s->max * scale, prefix,
		s->q1 * scale, prefix, s->q3 * scale, prefix, s->n);
}

/* ---- Host CPUs ------------------------------------------------------------------------------- */

static cpu_set_t initial_mask;
static int initial_count = -1;

int benchlib_affinity_cpus(int *cpus, int max)
{
	if (initial_count < 0) {
		CPU_ZERO(&initial_mask);
		if (sched_getaffinity(0, sizeof initial_mask, &initial_mask) != 0)
			CPU_SET(0, &initial_mask);
		initial_count = CPU_COUNT(&initial_mask);
	}
	for (int c = 0, k = 0; c < CPU_SETSIZE && cpus != NULL && k < max; c++)
		if (CPU_ISSET(c, &initial_mask))
			cpus[k++] = c;
	return initial_count;
}

bool benchlib_confine(int n, char *err, size_t errlen)
{
	int total = benchlib_affinity_cpus(NULL, 0);
	cpu_set_t set;
	bool ok = true;

	CPU_ZERO(&set);
	for (int c = 0, k = 0; c < CPU_SETSIZE && k < (n > 0 && n < total ? n : total); c++)
		if (CPU_ISSET(c, &initial_mask)) {
			CPU_SET(c, &set);
			k++;
		}
	/* Every thread there is now; threads created later inherit their creator's mask. */
	DIR *d = opendir("/proc/self/task");
	if (d == NULL) {
		benchlib_set_err(err, errlen, "cannot list /proc/self/task: %s", strerror(errno));
		return false;
	}
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		pid_t tid = (pid_t)atoi(e->d_name);
		/* A thread may have exited since the listing: not an error. */
		if (tid > 0 && sched_setaffinity(tid, sizeof set, &set) != 0 && errno != ESRCH && ok) {
			benchlib_set_err(err, errlen, "sched_setaffinity(%d): %s", (int)tid, strerror(errno));
			ok = false;
		}
	}
	closedir(d);
	return ok;
}

/* ---- Text ------------------------------------------------------------------------------------ */

void benchlib_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void benchlib_appendf(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

void benchlib_format_value(char *buf, size_t len, double v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else if (v >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

/* ---- Command line ---------------------------------------------------------------------------- */

const char *benchlib_option_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: %s needs a value (see --help)\n", program, argv[*i]);
		exit(BENCHLIB_EXIT_USAGE);
	}
	return argv[++*i];
}

unsigned long benchlib_option_ulong(int argc, char **argv, int *i, unsigned long min, unsigned long max)
{
	const char *opt = argv[*i], *v = benchlib_option_value(argc, argv, i);
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (*end != '\0' || v[0] == '-' || v[0] == '\0' || n < min || n > max) {
		fprintf(stderr, "%s: %s wants %lu..%lu, not '%s'\n", program, opt, min, max, v);
		exit(BENCHLIB_EXIT_USAGE);
	}
	return n;
}

/* "a, b, c" */
static void join_names(char *buf, size_t len, const struct benchlib_name_bit *names, size_t count)
{
	buf[0] = '\0';
	for (size_t k = 0; k < count; k++)
		benchlib_appendf(buf, len, "%s%s", k ? ", " : "", names[k].name);
}

unsigned benchlib_parse_only(const char *list, const struct benchlib_name_bit *names, size_t count)
{
	char buf[128], all[256];
	unsigned mask = 0;

	join_names(all, sizeof all, names, count);
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		size_t k = 0;
		while (k < count && strcmp(tok, names[k].name) != 0)
			k++;
		if (k == count) {
			fprintf(stderr, "%s: --only: unknown measurement '%s' (%s)\n", program, tok, all);
			exit(BENCHLIB_EXIT_USAGE);
		}
		mask |= names[k].bit;
	}
	if (mask == 0) {
		fprintf(stderr, "%s: --only needs a list of %s\n", program, all);
		exit(BENCHLIB_EXIT_USAGE);
	}
	return mask;
}

/* ---- Result rows ----------------------------------------------------------------------------- */

struct benchlib_row *benchlib_row_new(struct benchlib_row *rows, int *n, const char *key, const char *unit)
{
	struct benchlib_row *r = &rows[(*n)++];

	memset(r, 0, sizeof *r);
	r->key = key;
	r->unit = unit;
	r->bhemu = r->ref = -1;
	return r;
}

void benchlib_row_fail(struct benchlib_row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)   /* keep the first reason */
		return;
	r->failed = true;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
}

bool benchlib_row_has_ratio(const struct benchlib_row *r)
{
	return !r->failed && !r->no_ratio && r->bhemu > 0 && r->ref > 0;
}

int benchlib_row_bar_met(const struct benchlib_row *r)
{
	if (r->failed || r->bhemu < 0)
		return -1;
	switch (r->bar_kind) {
	case BENCHLIB_BAR_RATIO_MIN:
		return benchlib_row_has_ratio(r) ? r->bhemu / r->ref >= r->bar : -1;
	case BENCHLIB_BAR_VALUE_MAX:
		return r->bhemu < r->bar;
	case BENCHLIB_BAR_NONE:
		break;
	}
	return -1;
}

void benchlib_row_cells(const struct benchlib_row *r, char *bhemu, char *ref, char *ratio, char *bar)
{
	int met = benchlib_row_bar_met(r);
	const char *verdict = met == 1 ? "met" : met == 0 ? "MISSED" : "-";

	benchlib_format_value(bhemu, 32, r->failed ? -1 : r->bhemu);
	benchlib_format_value(ref, 32, r->failed ? -1 : r->ref);
	if (benchlib_row_has_ratio(r))
		snprintf(ratio, 32, "%.3f", r->bhemu / r->ref);
	else
		snprintf(ratio, 32, "-");
	if (r->bar_kind == BENCHLIB_BAR_RATIO_MIN)
		snprintf(bar, 64, "ratio >= %.2f: %s", r->bar, verdict);
	else if (r->bar_kind == BENCHLIB_BAR_VALUE_MAX)
		snprintf(bar, 64, "< %g %s: %s", r->bar, r->unit, verdict);
	else
		snprintf(bar, 64, "-");
}

void benchlib_print_row_notes(FILE *f, const struct benchlib_row *rows, int n)
{
	for (int i = 0; i < n; i++)
		if (rows[i].diag[0] != '\0' && !rows[i].failed)
			fprintf(f, "  %s: %s\n", rows[i].name, rows[i].diag);
	for (int i = 0; i < n; i++)
		if (rows[i].failed)
			fprintf(f, "FAILED %s: %s\n", rows[i].name, rows[i].error);
}

int benchlib_rows_count(const struct benchlib_row *rows, int n, int *missed)
{
	int failed = 0;

	*missed = 0;
	for (int i = 0; i < n; i++) {
		failed += rows[i].failed;
		*missed += benchlib_row_bar_met(&rows[i]) == 0;
	}
	return failed;
}

/* ---- The host's load ------------------------------------------------------------------------- */

static bool host_sample(struct benchlib_host_sample *h)
{
	unsigned long long v[8] = { 0 };   /* user nice system idle iowait irq softirq steal */
	FILE *f = fopen("/proc/stat", "r");

	h->wall = benchlib_now();
	h->own_cpu = benchlib_process_cpu();
	if (f == NULL)
		return false;
	int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		       &v[6], &v[7]);
	fclose(f);
	double tick = (double)sysconf(_SC_CLK_TCK);
	h->busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / tick;
	h->steal = (double)v[7] / tick;
	return n == 8;
}

void benchlib_host_begin(struct benchlib_host_load *h)
{
	h->have_stat = host_sample(&h->start);
}

void benchlib_host_end(struct benchlib_host_load *h)
{
	h->have_stat = h->have_stat && host_sample(&h->end);
	h->have_stat = h->have_stat && h->end.wall - h->start.wall >= 1.0;
}

double benchlib_host_others(const struct benchlib_host_load *h)
{
	double wall = h->end.wall - h->start.wall;
	double own = h->end.own_cpu - h->start.own_cpu;
	double others = (h->end.busy - h->start.busy - own) / wall;
	return others > 0 ? others : 0;
}

double benchlib_host_steal(const struct benchlib_host_load *h)
{
	return (h->end.steal - h->start.steal) / (h->end.wall - h->start.wall);
}

void benchlib_print_host_load(FILE *f, const struct benchlib_host_load *h)
{
	if (h->have_stat) {
		double others = benchlib_host_others(h), steal = benchlib_host_steal(h);
		fprintf(f, "; during the run other processes used %.2f CPUs and steal took %.2f on average%s", others,
			steal, others + steal > 0.1 ? " (numbers are noisy: both sides lose CPU time)" : "");
	}
	fputc('\n', f);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

void benchlib_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void benchlib_json_string_or_null(FILE *f, const char *s)
{
	if (s != NULL)
		benchlib_json_string(f, s);
	else
		fputs("null", f);
}

void benchlib_json_number(FILE *f, bool present, double value)
{
	if (present)
		fprintf(f, "%.6g", value);
	else
		fputs("null", f);
}

void benchlib_json_fixed(FILE *f, bool present, double value)
{
	if (present)
		fprintf(f, "%.6f", value);
	else
		fputs("null", f);
}

FILE *benchlib_json_open(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (f == NULL)
		fprintf(stderr, "%s: cannot write %s: %s\n", program, path, strerror(errno));
	return f;
}

bool benchlib_json_close(FILE *f)
{
	if (f == stdout)
		return fflush(f) == 0;
	return fclose(f) == 0;
}

void benchlib_json_host_load(FILE *f, const struct benchlib_host_load *h)
{
	fputs("\"host_other_processes_cpus\": ", f);
	benchlib_json_number(f, h->have_stat, h->have_stat ? benchlib_host_others(h) : 0);
	fputs(",\n  \"host_steal_cpus\": ", f);
	benchlib_json_number(f, h->have_stat, h->have_stat ? benchlib_host_steal(h) : 0);
}

void benchlib_json_rows(FILE *f, const struct benchlib_row *rows, int n, const char *ref_key, bool with_ref_is)
{
	fputs("  \"measurements\": [", f);
	for (int i = 0; i < n; i++) {
		const struct benchlib_row *r = &rows[i];
		bool ok = !r->failed, ratio = benchlib_row_has_ratio(r);
		int met = benchlib_row_bar_met(r);
		fputs(i == 0 ? "\n    {" : ",\n    {", f);
		fputs("\"key\": ", f);
		benchlib_json_string(f, r->key);
		fputs(", \"name\": ", f);
		benchlib_json_string(f, r->name);
		fputs(", \"unit\": ", f);
		benchlib_json_string(f, r->unit);
		fputs(", \"bhemu\": ", f);
		benchlib_json_number(f, ok && r->bhemu >= 0, r->bhemu);
		fprintf(f, ", \"%s\": ", ref_key);
		benchlib_json_number(f, ok && r->ref >= 0, r->ref);
		if (with_ref_is) {
			fputs(", \"reference_is\": ", f);
			benchlib_json_string_or_null(f, r->ref_what);
		}
		fputs(", \"ratio\": ", f);
		benchlib_json_number(f, ratio, ratio ? r->bhemu / r->ref : 0);
		fputs(", \"bar\": ", f);
		if (r->bar_kind == BENCHLIB_BAR_NONE)
			fputs("null", f);
		else
			fprintf(f, "{\"%s\": %g, \"met\": %s}",
				r->bar_kind == BENCHLIB_BAR_RATIO_MIN ? "min_ratio" : "max_value", r->bar,
				met == 1 ? "true" : met == 0 ? "false" : "null");
		if (ok)
			fputs(r->extra, f);
		fputs(", \"status\": ", f);
		benchlib_json_string(f, ok ? "ok" : "FAILED");
		fputs(", \"error\": ", f);
		if (ok)
			fputs("null", f);
		else
			benchlib_json_string(f, r->error);
		fputc('}', f);
	}
	fputs("\n  ]", f);
}

void benchlib_print_table(FILE *f, const struct benchlib_row *rows, int n, const char *ref_head, bool with_ref_is)
{
	fprintf(f, "%-34s %-8s %10s %10s %8s  ", "measurement", "unit", "bhemu", ref_head, "ratio");
	if (with_ref_is)
		fprintf(f, "%-34s ", "reference is");
	fprintf(f, "bar\n");
	for (int i = 0; i < n; i++) {
		const struct benchlib_row *r = &rows[i];
		char b[32], h[32], ratio[32], bar[64];
		benchlib_row_cells(r, b, h, ratio, bar);
		fprintf(f, "%-34s %-8s %10s %10s %8s  ", r->name, r->unit, b, h, ratio);
		if (with_ref_is)
			fprintf(f, "%-34s ", r->ref_what != NULL ? r->ref_what : "-");
		fprintf(f, "%s%s\n", bar, r->failed ? "  FAILED" : "");
	}
	benchlib_print_row_notes(f, rows, n);
}

bool benchlib_json_write(const char *path, bool quick, int repeat, const char *head, const struct benchlib_host_load *load,
			 const struct benchlib_row *rows, int n, const char *ref_key, bool with_ref_is, const char *tail,
			 int failed)
{
	FILE *f = benchlib_json_open(path);

	if (f == NULL)
		return false;
	fprintf(f, "{\n  \"quick\": %s,\n  \"repeat\": %d,\n%s  ", quick ? "true" : "false", repeat, head);
	benchlib_json_host_load(f, load);
	fputs(",\n", f);
	benchlib_json_rows(f, rows, n, ref_key, with_ref_is);
	fprintf(f, "%s,\n  \"failed\": %d\n}\n", tail, failed);
	return benchlib_json_close(f);
}

bool benchlib_common_option(int argc, char **argv, int *i, struct benchlib_common *c, int max_repeat)
{
	const char *a = argv[*i];
	if (strcmp(a, "--quick") == 0)
		c->quick = true;
	else if (strcmp(a, "--check-bars") == 0)
		c->check_bars = true;
	else if (max_repeat && strcmp(a, "--repeat") == 0)
		c->repeat = (int)benchlib_option_ulong(argc, argv, i, 1, (unsigned long)max_repeat);
	else if (strcmp(a, "--json") == 0)
		c->json_path = benchlib_option_value(argc, argv, i);
	else
		return false;
	return true;
}

int benchlib_end_run(FILE *out, const struct benchlib_end *e, struct benchlib_host_load *load,
		     const struct benchlib_row *rows, int n)
{
	int missed, failed = benchlib_rows_count(rows, n, &missed);
	benchlib_host_end(load);
	fputs(e->host_line, out);
	benchlib_print_host_load(out, load);
	benchlib_print_table(out, rows, n, e->ref_head, e->with_ref_is);
	if (e->after_table)
		fputs(e->after_table, out);
	if (e->json_path && !benchlib_json_write(e->json_path, e->quick, e->repeat, e->json_head ? e->json_head : "",
						 load, rows, n, e->ref_head, e->with_ref_is,
						 e->json_tail ? e->json_tail : "", failed))
		failed++;
	if (failed)
		return BENCHLIB_EXIT_FAILED;
	return e->check_bars && missed ? BENCHLIB_EXIT_FAILED : BENCHLIB_EXIT_OK;
}
