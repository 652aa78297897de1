/* benchlib: what the benchmark harnesses (bench_cores, bench_sync, bench_noc) share: timing,
 * option parsing, result rows with their table cells and JSON, the host's load from /proc/stat
 * and JSON writing. Messages name the program set by benchlib_set_program(). */
#ifndef BENCHLIB_H
#define BENCHLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses of every harness. */
#define BENCHLIB_EXIT_OK 0
#define BENCHLIB_EXIT_FAILED 1
#define BENCHLIB_EXIT_USAGE 2

/* The name that prefixes this library's messages ("bench_sync: ..."). */
void benchlib_set_program(const char *name);
const char *benchlib_program_name(void);

/* ---- Time ---- */

/* Wall clock (monotonic) and this process's CPU time (every thread), in seconds. */
double benchlib_now(void);
double benchlib_process_cpu(void);
/* Busy-waits (no syscall) for `seconds`. */
void benchlib_spin_for(double seconds);

/* A pause in a spin loop. */
static inline void benchlib_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/* ---- Repeats: median and spread ---- */

/* Of n values (n >= 1; the array is sorted in place): the median (mean of the middle two when n is
 * even), the extremes and the quartiles (linear interpolation between the sorted values). */
struct benchlib_stats {
	int n;
	double median, min, max, q1, q3;
};
struct benchlib_stats benchlib_stats_of(double *v, int n);
/* Of n values (n >= 1, left as they are): the index of the median one (the lower of the middle two
 * when n is even). For paired measurements: the run whose ratio is the median, so that a row's
 * two values and its ratio come from one run. */
int benchlib_median_index(const double *v, int n);
/* Appends `, "<prefix>_median": m, "<prefix>_min": a, "<prefix>_max": b, "<prefix>_q1": ..,
 * "<prefix>_q3": .., "<prefix>_runs": n` (each number scaled by `scale`) to a row's extra JSON. */
void benchlib_stats_json(char *buf, size_t size, const char *prefix, const struct benchlib_stats *s, double scale);

/* ---- Host CPUs ---- */

/* The CPUs this process may run on when it started (its affinity mask), in order: the count, and
 * the first max of their numbers in cpus (NULL: only the count). */
int benchlib_affinity_cpus(int *cpus, int max);
/* Confines every thread of the process (and so every thread they create later) to the first n
 * CPUs of the mask benchlib_affinity_cpus() saw first; n = 0 restores that whole mask. False
 * (err set) when a thread could not be moved. */
bool benchlib_confine(int n, char *err, size_t errlen);

/* ---- Text ---- */

/* snprintf into err. */
void benchlib_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends to a fixed buffer; does nothing once it is full. */
void benchlib_appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A number with enough digits for its size; "-" when negative (not measured). */
void benchlib_format_value(char *buf, size_t len, double v);

/* ---- Command line (bad usage exits BENCHLIB_EXIT_USAGE with a message) ---- */

/* The value after argv[*i] (advances *i). */
const char *benchlib_option_value(int argc, char **argv, int *i);
/* The value after argv[*i] as a decimal in min..max (min >= 1). */
unsigned long benchlib_option_ulong(int argc, char **argv, int *i, unsigned long min, unsigned long max);

/* The options every harness has: --quick, --check-bars, --repeat N (1..max_repeat; not when
 * max_repeat is 0), --json FILE. */
struct benchlib_common {
	const char *json_path;
	bool quick;
	bool check_bars;
	int repeat;
};
/* True when argv[*i] was one of them (*i then advanced). */
bool benchlib_common_option(int argc, char **argv, int *i, struct benchlib_common *c, int max_repeat);

struct benchlib_name_bit {
	const char *name;
	unsigned bit;
};
/* --only LIST: the OR of the bits of the comma-separated names. */
unsigned benchlib_parse_only(const char *list, const struct benchlib_name_bit *names, size_t count);

/* ---- Result rows: one line of the table, one object of the JSON "measurements" array ---- */

enum benchlib_bar_kind {
	BENCHLIB_BAR_NONE,
	BENCHLIB_BAR_RATIO_MIN,   /* bhemu / reference >= bar */
	BENCHLIB_BAR_VALUE_MAX,   /* bhemu < bar */
};

struct benchlib_row {
	const char *key;          /* JSON name */
	char name[64];            /* table label */
	const char *unit;
	double bhemu, ref;        /* < 0: not measured */
	const char *ref_what;     /* what the reference is, one phrase (NULL: not said) */
	bool no_ratio;            /* bhemu / reference means nothing here (CPU % near zero) */
	enum benchlib_bar_kind bar_kind;
	double bar;
	char diag[512];           /* diagnostics: one line under the table */
	char extra[2048];         /* more JSON members: `, "name": value` ... */
	bool failed;
	char error[512];
};

/* rows[(*n)++], cleared, with nothing measured yet. */
struct benchlib_row *benchlib_row_new(struct benchlib_row *rows, int *n, const char *key, const char *unit);
/* Marks the row failed; the first reason is kept. */
void benchlib_row_fail(struct benchlib_row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool benchlib_row_has_ratio(const struct benchlib_row *r);
/* 1 met, 0 missed, -1 no bar or not measured. */
int benchlib_row_bar_met(const struct benchlib_row *r);
/* The table's cells: value, reference, ratio and bar (buffers of 32, 32, 32 and 64 bytes). */
void benchlib_row_cells(const struct benchlib_row *r, char *bhemu, char *ref, char *ratio, char *bar);
/* Under the table: each row's diagnostics, then each failure. */
void benchlib_print_row_notes(FILE *f, const struct benchlib_row *rows, int n);
/* The table: a header naming the reference column ref_head, one line per row (with the
 * "reference is" column when with_ref_is), then benchlib_print_row_notes. */
void benchlib_print_table(FILE *f, const struct benchlib_row *rows, int n, const char *ref_head, bool with_ref_is);
/* Rows failed; *missed gets the bars missed. */
int benchlib_rows_count(const struct benchlib_row *rows, int n, int *missed);

/* ---- The host's load ----
 * Other processes (and, in a VM, the hypervisor's other guests: steal time) take CPU time from
 * both sides of a comparison, not equally. */

struct benchlib_host_sample {
	double wall, own_cpu;
	double busy, steal;       /* all CPUs, seconds: /proc/stat, busy without steal */
};

struct benchlib_host_load {
	struct benchlib_host_sample start, end;
	bool have_stat;
};

void benchlib_host_begin(struct benchlib_host_load *h);
/* /proc/stat counts in ticks: a run under a second says nothing (have_stat false). */
void benchlib_host_end(struct benchlib_host_load *h);
/* CPUs' worth of time other processes used, and that was stolen, on average over the run. */
double benchlib_host_others(const struct benchlib_host_load *h);
double benchlib_host_steal(const struct benchlib_host_load *h);
/* "; during the run ... on average" when measured, then the newline. */
void benchlib_print_host_load(FILE *f, const struct benchlib_host_load *h);

/* ---- JSON ---- */

void benchlib_json_string(FILE *f, const char *s);
/* A string, or null when s is NULL. */
void benchlib_json_string_or_null(FILE *f, const char *s);
/* A number (%.6g, or %.6f for the fixed form), or null when not present. */
void benchlib_json_number(FILE *f, bool present, double value);
void benchlib_json_fixed(FILE *f, bool present, double value);
/* path, or stdout for "-"; NULL (and a message) when it cannot be written. */
FILE *benchlib_json_open(const char *path);
/* Flushes stdout or closes a file: false on a write error. */
bool benchlib_json_close(FILE *f);
/* `"host_other_processes_cpus": N,\n  "host_steal_cpus": N` (null when not measured). */
void benchlib_json_host_load(FILE *f, const struct benchlib_host_load *h);
/* `  "measurements": [...]` up to its `]`: the rows, the reference under ref_key, and its
 * "reference_is" when with_ref_is. */
void benchlib_json_rows(FILE *f, const struct benchlib_row *rows, int n, const char *ref_key, bool with_ref_is);
/* The whole document every harness writes to path ("-" = stdout):
 * {"quick": q, "repeat": r, <head: more `"name": value,\n` members, may be "">
 *  host load, the measurements (benchlib_json_rows), <tail: `,\n  "name": value` members or "">,
 *  "failed": failed}. False when it cannot be written. */
bool benchlib_json_write(const char *path, bool quick, int repeat, const char *head, const struct benchlib_host_load *load,
			 const struct benchlib_row *rows, int n, const char *ref_key, bool with_ref_is, const char *tail,
			 int failed);

/* ---- The end of a run ---- */

struct benchlib_end {
	const char *host_line;     /* "host: ..." without the load and newline */
	const char *ref_head;      /* table and JSON name of the reference */
	bool with_ref_is;
	const char *after_table;   /* a line after the table (with its newline), or NULL */
	const char *json_path;     /* NULL: no JSON */
	bool quick, check_bars;
	int repeat;
	const char *json_head, *json_tail;   /* as benchlib_json_write */
};
/* Ends the host sample, prints the host line with its load, the table and after_table, writes the
 * JSON and returns the exit status: failed rows (or a JSON write error) 1, bars missed with
 * check_bars 1, else 0. */
int benchlib_end_run(FILE *out, const struct benchlib_end *e, struct benchlib_host_load *load,
		     const struct benchlib_row *rows, int n);

#endif
