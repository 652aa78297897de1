/* bench_cores: how fast bhemu runs single-core RV32 programs, measured against qemu-riscv32.
 *
 * For each benchmark ELF it runs `bhemu run --stats ELF` and `qemu-riscv32 -cpu CPU ELF` as
 * subprocesses, keeps the best wall time of --repeat runs, takes the instruction count from
 * bhemu's stats line, checks that both exit 0 with the same stdout, and prints a table (and
 * optionally JSON). It drives the bhemu CLI like a user would and does not link the emulator. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchlib.h"

extern char **environ;

#ifndef BENCH_DEFAULT_BHEMU
#define BENCH_DEFAULT_BHEMU "bhemu"
#endif
#ifndef BENCH_DEFAULT_ELFS
#define BENCH_DEFAULT_ELFS ""
#endif
#ifndef BENCH_DEFAULT_QEMU_CPU
#define BENCH_DEFAULT_QEMU_CPU "rv32,c=false,zba=true,zbb=true"
#endif

#define MAX_EXTRA_ARGS 16

/* Output and timing of one subprocess run. */
struct run_result {
	char *out;		/* stdout, NUL-terminated */
	size_t out_len;
	char *err;		/* stderr, NUL-terminated */
	size_t err_len;
	int wait_status;	/* from waitpid */
	double seconds;		/* wall time, spawn to reap */
};

/* Everything measured for one program; a negative time means "not measured". */
struct bench_program {
	const char *elf;
	char name[128];
	uint64_t instructions;
	double bhemu_seconds;
	double bhemu_internal_seconds;	/* seconds= of bhemu's own stats line */
	double qemu_seconds;
	bool failed;
	char error[512];
};

struct bench_options {
	const char *bhemu;
	const char *qemu;	/* NULL: no qemu comparison */
	const char *qemu_cpu;
	const char *json_path;
	int repeat;
	const char *bhemu_args[MAX_EXTRA_ARGS];
	int n_bhemu_args;
};

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [options] [PROGRAM.elf ...]\n"
		"\n"
		"Runs each RV32 benchmark ELF on bhemu (`bhemu run --stats ELF`) and on qemu-riscv32,\n"
		"checks both exit 0 with identical stdout, and prints instructions (from bhemu's stats\n"
		"line), best wall time of each, MIPS (the same instruction count over each wall time)\n"
		"and the speed ratio bhemu/qemu (>1: bhemu is faster), then the geometric mean ratio.\n"
		"Without PROGRAM arguments it runs the benchmark ELFs of the build:\n"
		"  %s\n"
		"\n"
		"options:\n"
		"  --bhemu PATH       bhemu binary (default %s)\n"
		"  --bhemu-arg ARG    one extra argument for `bhemu run` (repeatable), e.g.\n"
		"                     --bhemu-arg --core --bhemu-arg ncrisc\n"
		"  --qemu PATH        qemu-riscv32 binary (default: qemu-riscv32 from PATH; if none is\n"
		"                     found, only bhemu is measured)\n"
		"  --no-qemu          measure bhemu only\n"
		"  --qemu-cpu CPU     qemu -cpu value (default %s)\n"
		"  --repeat N         runs per program and emulator, the best time counts (default 1)\n"
		"  --json FILE        also write the results as JSON to FILE (- for stdout)\n"
		"  --help             this text\n"
		"\n"
		"exit status: 0 all programs ran and matched, 1 a program failed on either emulator or\n"
		"their outputs differ, 2 bad usage.\n",
		argv0, BENCH_DEFAULT_ELFS[0] ? BENCH_DEFAULT_ELFS : "(none configured)",
		BENCH_DEFAULT_BHEMU, BENCH_DEFAULT_QEMU_CPU);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (p == NULL) {
		fprintf(stderr, "bench_cores: out of memory\n");
		exit(BENCHLIB_EXIT_USAGE);
	}
	return p;
}

static void run_result_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* Appends what fd has to *buf; returns false at EOF. */
static bool drain_fd(int fd, char **buf, size_t *len, size_t *cap)
{
	if (*cap - *len < 4096) {
		*cap = *cap * 2 + 8192;
		*buf = xrealloc(*buf, *cap);
	}
	ssize_t n = read(fd, *buf + *len, *cap - *len - 1);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	*len += (size_t)n;
	return true;
}

/* Runs argv with stdout and stderr captured; returns errno-style error or 0. */
static int run_captured(char *const argv[], struct run_result *r)
{
	int out_pipe[2], err_pipe[2];
	posix_spawn_file_actions_t actions;
	size_t out_cap = 0, err_cap = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe2(out_pipe, O_CLOEXEC) != 0)
		return errno;
	if (pipe2(err_pipe, O_CLOEXEC) != 0) {
		int e = errno;
		close(out_pipe[0]);
		close(out_pipe[1]);
		return e;
	}
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);

	double start = benchlib_now();
	int rc = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(out_pipe[1]);
	close(err_pipe[1]);
	if (rc != 0) {
		close(out_pipe[0]);
		close(err_pipe[0]);
		return rc;
	}

	/* Read both pipes until EOF so neither child stream can fill up and block it. */
	struct pollfd fds[2] = { { .fd = out_pipe[0], .events = POLLIN },
				 { .fd = err_pipe[0], .events = POLLIN } };
	int open_fds = 2;
	while (open_fds > 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || fds[i].revents == 0)
				continue;
			bool more = i == 0 ? drain_fd(fds[i].fd, &r->out, &r->out_len, &out_cap)
					   : drain_fd(fds[i].fd, &r->err, &r->err_len, &err_cap);
			if (!more) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			}
		}
	}
	while (waitpid(pid, &r->wait_status, 0) < 0 && errno == EINTR)
		;
	r->seconds = benchlib_now() - start;
	if (r->out == NULL)
		r->out = xrealloc(NULL, 1);
	if (r->err == NULL)
		r->err = xrealloc(NULL, 1);
	r->out[r->out_len] = '\0';
	r->err[r->err_len] = '\0';
	return 0;
}

static void describe_status(int wait_status, char *buf, size_t size)
{
	if (WIFEXITED(wait_status))
		snprintf(buf, size, "exit status %d", WEXITSTATUS(wait_status));
	else if (WIFSIGNALED(wait_status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(wait_status));
	else
		snprintf(buf, size, "wait status 0x%x", wait_status);
}

static void fail(struct bench_program *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)	/* keep the first reason */
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(p->error, sizeof(p->error), fmt, ap);
	va_end(ap);
}

/* The last "stats: instructions=N seconds=S mips=M" line of bhemu's stderr. */
static bool parse_stats(const char *err, uint64_t *instructions, double *seconds)
{
	bool found = false;

	for (const char *line = err; line != NULL && *line != '\0';) {
		uint64_t n;
		double s, m;
		if (sscanf(line, "stats: instructions=%" SCNu64 " seconds=%lf mips=%lf", &n, &s, &m) == 3) {
			*instructions = n;
			*seconds = s;
			found = true;
		}
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
	return found;
}

/* The last stderr line that is not the stats line: usually what went wrong. Edits err. */
static const char *last_error_line(char *err)
{
	const char *last = "";

	for (char *line = strtok(err, "\n"); line != NULL; line = strtok(NULL, "\n"))
		if (strncmp(line, "stats:", 6) != 0)
			last = line;
	return last;
}

/* Runs argv `repeat` times; keeps the first run's output in *first and the best time.
 * Returns false (with p marked failed) when a run cannot start, fails or is inconsistent. */
static bool run_repeated(struct bench_program *p, const char *who, char *const argv[], int repeat,
			 struct run_result *first, double *best)
{
	*best = -1;
	for (int i = 0; i < repeat; i++) {
		struct run_result r;
		int rc = run_captured(argv, &r);
		if (rc != 0) {
			fail(p, "%s: cannot run %s: %s", who, argv[0], strerror(rc));
			return false;
		}
		if (!WIFEXITED(r.wait_status) || WEXITSTATUS(r.wait_status) != 0) {
			char status[64];
			describe_status(r.wait_status, status, sizeof(status));
			const char *why = last_error_line(r.err);
			fail(p, "%s: %s%s%s", who, status, why[0] != '\0' ? ": " : "", why);
			run_result_free(&r);
			return false;
		}
		if (*best < 0 || r.seconds < *best)
			*best = r.seconds;
		if (i == 0) {
			*first = r;
			continue;
		}
		bool same = r.out_len == first->out_len && memcmp(r.out, first->out, r.out_len) == 0;
		run_result_free(&r);
		if (!same) {
			fail(p, "%s: stdout differs between repeated runs", who);
			return false;
		}
	}
	return true;
}

static void program_name(struct bench_program *p)
{
	const char *base = strrchr(p->elf, '/');
	base = base != NULL ? base + 1 : p->elf;
	snprintf(p->name, sizeof(p->name), "%s", base);
	size_t n = strlen(p->name);
	if (n > 4 && strcmp(p->name + n - 4, ".elf") == 0)
		p->name[n - 4] = '\0';
}

/* Prints where two outputs first differ, to stderr. */
static void report_output_difference(const struct bench_program *p, const struct run_result *b,
				     const struct run_result *q)
{
	size_t i = 0;

	while (i < b->out_len && i < q->out_len && b->out[i] == q->out[i])
		i++;
	fprintf(stderr, "%s: stdout differs at byte %zu (bhemu %zu bytes, qemu %zu bytes)\n",
		p->name, i, b->out_len, q->out_len);
	fprintf(stderr, "  bhemu: %.*s\n", (int)(b->out_len - i < 200 ? b->out_len - i : 200),
		b->out + i);
	fprintf(stderr, "  qemu:  %.*s\n", (int)(q->out_len - i < 200 ? q->out_len - i : 200),
		q->out + i);
}

static void bench_program_run(struct bench_program *p, const struct bench_options *opt)
{
	struct run_result bhemu_out = { 0 }, qemu_out = { 0 };
	const char *argv[MAX_EXTRA_ARGS + 8];
	int n = 0;

	p->bhemu_seconds = p->bhemu_internal_seconds = p->qemu_seconds = -1;
	argv[n++] = opt->bhemu;
	argv[n++] = "run";
	argv[n++] = "--stats";
	for (int i = 0; i < opt->n_bhemu_args; i++)
		argv[n++] = opt->bhemu_args[i];
	argv[n++] = p->elf;
	argv[n] = NULL;
	if (!run_repeated(p, "bhemu", (char *const *)argv, opt->repeat, &bhemu_out, &p->bhemu_seconds))
		goto out;
	if (!parse_stats(bhemu_out.err, &p->instructions, &p->bhemu_internal_seconds)) {
		fail(p, "bhemu: no 'stats: instructions=N seconds=S mips=M' line on stderr");
		goto out;
	}
	if (opt->qemu == NULL)
		goto out;

	n = 0;
	argv[n++] = opt->qemu;
	argv[n++] = "-cpu";
	argv[n++] = opt->qemu_cpu;
	argv[n++] = p->elf;
	argv[n] = NULL;
	if (!run_repeated(p, "qemu", (char *const *)argv, opt->repeat, &qemu_out, &p->qemu_seconds))
		goto out;
	if (bhemu_out.out_len != qemu_out.out_len ||
	    memcmp(bhemu_out.out, qemu_out.out, bhemu_out.out_len) != 0) {
		report_output_difference(p, &bhemu_out, &qemu_out);
		fail(p, "stdout of bhemu and qemu differ");
	}
out:
	run_result_free(&bhemu_out);
	run_result_free(&qemu_out);
}

static double mips(uint64_t instructions, double seconds)
{
	return seconds > 0 ? (double)instructions / seconds / 1e6 : 0;
}

static bool has_ratio(const struct bench_program *p)
{
	return !p->failed && p->bhemu_seconds > 0 && p->qemu_seconds > 0;
}

/* bhemu speed over qemu speed for the same instructions: >1 means bhemu is faster. */
static double speed_ratio(const struct bench_program *p)
{
	return p->qemu_seconds / p->bhemu_seconds;
}

/* Geometric mean of the speed ratios; 0 when there is none. */
static double geomean_ratio(const struct bench_program *progs, int n)
{
	double log_sum = 0;
	int count = 0;

	for (int i = 0; i < n; i++) {
		if (has_ratio(&progs[i])) {
			log_sum += log(speed_ratio(&progs[i]));
			count++;
		}
	}
	return count > 0 ? exp(log_sum / count) : 0;
}

static void print_table(const struct bench_program *progs, int n, const struct bench_options *opt)
{
	printf("%-20s %13s %8s %10s %8s %10s %10s  %s\n", "program", "instructions", "bhemu s",
	       "bhemu MIPS", "qemu s", "qemu MIPS", "bhemu/qemu", "status");
	for (int i = 0; i < n; i++) {
		const struct bench_program *p = &progs[i];
		char cells[4][32];
		const char *dash = "-";
		bool have_b = p->bhemu_seconds > 0 && p->instructions > 0;
		bool have_q = have_b && p->qemu_seconds > 0;

		snprintf(cells[0], 32, "%.3f", p->bhemu_seconds);
		snprintf(cells[1], 32, "%.1f", mips(p->instructions, p->bhemu_seconds));
		snprintf(cells[2], 32, "%.3f", p->qemu_seconds);
		snprintf(cells[3], 32, "%.1f", mips(p->instructions, p->qemu_seconds));
		char ratio[32];
		snprintf(ratio, sizeof(ratio), "%.3f", has_ratio(p) ? speed_ratio(p) : 0);
		char instr[32];
		snprintf(instr, sizeof(instr), "%" PRIu64, p->instructions);
		printf("%-20s %13s %8s %10s %8s %10s %10s  %s\n", p->name, have_b ? instr : dash,
		       have_b ? cells[0] : dash, have_b ? cells[1] : dash, have_q ? cells[2] : dash,
		       have_q ? cells[3] : dash, has_ratio(p) ? ratio : dash,
		       p->failed ? "FAILED" : "ok");
	}
	double g = geomean_ratio(progs, n);
	if (opt->qemu == NULL)
		printf("qemu-riscv32 not available: bhemu only, no ratio\n");
	else if (g > 0)
		printf("geometric mean speed bhemu/qemu: %.3f\n", g);
	else
		printf("geometric mean speed bhemu/qemu: - (no program measured on both)\n");
	for (int i = 0; i < n; i++)
		if (progs[i].failed)
			printf("FAILED %s: %s\n", progs[i].name, progs[i].error);
}

static bool write_json(const char *path, const struct bench_program *progs, int n,
		       const struct bench_options *opt)
{
	FILE *f = benchlib_json_open(path);
	int failed = 0;

	if (f == NULL)
		return false;
	fputs("{\n  \"bhemu\": ", f);
	benchlib_json_string(f, opt->bhemu);
	fputs(",\n  \"qemu\": ", f);
	benchlib_json_string_or_null(f, opt->qemu);
	fputs(",\n  \"qemu_cpu\": ", f);
	benchlib_json_string(f, opt->qemu_cpu);
	fprintf(f, ",\n  \"repeat\": %d,\n  \"programs\": [", opt->repeat);
	for (int i = 0; i < n; i++) {
		const struct bench_program *p = &progs[i];
		bool have_b = p->bhemu_seconds > 0 && p->instructions > 0;
		bool have_q = have_b && p->qemu_seconds > 0;

		failed += p->failed;
		fputs(i == 0 ? "\n    {" : ",\n    {", f);
		fputs("\"name\": ", f);
		benchlib_json_string(f, p->name);
		fputs(", \"elf\": ", f);
		benchlib_json_string(f, p->elf);
		fputs(", \"instructions\": ", f);
		if (have_b)
			fprintf(f, "%" PRIu64, p->instructions);
		else
			fputs("null", f);
		fputs(", \"bhemu_seconds\": ", f);
		benchlib_json_fixed(f, have_b, p->bhemu_seconds);
		fputs(", \"bhemu_mips\": ", f);
		benchlib_json_fixed(f, have_b, mips(p->instructions, p->bhemu_seconds));
		fputs(", \"bhemu_internal_seconds\": ", f);
		benchlib_json_fixed(f, have_b, p->bhemu_internal_seconds);
		fputs(", \"qemu_seconds\": ", f);
		benchlib_json_fixed(f, have_q, p->qemu_seconds);
		fputs(", \"qemu_mips\": ", f);
		benchlib_json_fixed(f, have_q, mips(p->instructions, p->qemu_seconds));
		fputs(", \"speed_ratio\": ", f);
		benchlib_json_fixed(f, has_ratio(p), has_ratio(p) ? speed_ratio(p) : 0);
		fputs(", \"status\": ", f);
		benchlib_json_string(f, p->failed ? "FAILED" : "ok");
		fputs(", \"error\": ", f);
		if (p->failed)
			benchlib_json_string(f, p->error);
		else
			fputs("null", f);
		fputc('}', f);
	}
	double g = geomean_ratio(progs, n);
	fputs("\n  ],\n  \"geomean_speed_ratio\": ", f);
	benchlib_json_fixed(f, g > 0, g);
	fprintf(f, ",\n  \"failed\": %d\n}\n", failed);
	return benchlib_json_close(f);
}

/* qemu-riscv32 from PATH, or NULL. The result is malloc'd. */
static char *find_on_path(const char *name)
{
	const char *path = getenv("PATH");

	if (path == NULL)
		return NULL;
	while (*path != '\0') {
		const char *end = strchr(path, ':');
		size_t len = end != NULL ? (size_t)(end - path) : strlen(path);
		char *candidate = xrealloc(NULL, len + strlen(name) + 2);
		snprintf(candidate, len + strlen(name) + 2, "%.*s/%s", (int)len, len ? path : ".", name);
		if (access(candidate, X_OK) == 0)
			return candidate;
		free(candidate);
		path += len;
		if (*path == ':')
			path++;
	}
	return NULL;
}

/* Splits the colon-separated default list into progs; returns the count. */
static int default_programs(struct bench_program **progs)
{
	static char list[] = BENCH_DEFAULT_ELFS;
	int n = 0;

	for (char *save = NULL, *tok = strtok_r(list, ":", &save); tok != NULL;
	     tok = strtok_r(NULL, ":", &save)) {
		*progs = xrealloc(*progs, sizeof(**progs) * (size_t)(n + 1));
		memset(&(*progs)[n], 0, sizeof(**progs));
		(*progs)[n++].elf = tok;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct bench_options opt = { .bhemu = BENCH_DEFAULT_BHEMU,
				     .qemu_cpu = BENCH_DEFAULT_QEMU_CPU,
				     .repeat = 1 };
	struct bench_program *progs = NULL;
	const char *qemu_arg = NULL;
	bool no_qemu = false;
	int n = 0;

	benchlib_set_program("bench_cores");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout, argv[0]);
			return BENCHLIB_EXIT_OK;
		} else if (strcmp(a, "--bhemu") == 0) {
			opt.bhemu = benchlib_option_value(argc, argv, &i);
		} else if (strcmp(a, "--bhemu-arg") == 0) {
			if (opt.n_bhemu_args == MAX_EXTRA_ARGS) {
				fprintf(stderr, "bench_cores: at most %d --bhemu-arg\n", MAX_EXTRA_ARGS);
				return BENCHLIB_EXIT_USAGE;
			}
			opt.bhemu_args[opt.n_bhemu_args++] = benchlib_option_value(argc, argv, &i);
		} else if (strcmp(a, "--qemu") == 0) {
			qemu_arg = benchlib_option_value(argc, argv, &i);
		} else if (strcmp(a, "--no-qemu") == 0) {
			no_qemu = true;
		} else if (strcmp(a, "--qemu-cpu") == 0) {
			opt.qemu_cpu = benchlib_option_value(argc, argv, &i);
		} else if (strcmp(a, "--repeat") == 0) {
			opt.repeat = (int)benchlib_option_ulong(argc, argv, &i, 1, 1000);
		} else if (strcmp(a, "--json") == 0) {
			opt.json_path = benchlib_option_value(argc, argv, &i);
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "bench_cores: unknown option %s (see --help)\n", a);
			return BENCHLIB_EXIT_USAGE;
		} else {
			progs = xrealloc(progs, sizeof(*progs) * (size_t)(n + 1));
			memset(&progs[n], 0, sizeof(*progs));
			progs[n++].elf = a;
		}
	}
	if (n == 0)
		n = default_programs(&progs);
	if (n == 0) {
		fprintf(stderr, "bench_cores: no programs given and none configured in this build\n");
		return BENCHLIB_EXIT_USAGE;
	}
	/* A bare name is looked up on PATH, like the shell would; posix_spawn does not. */
	char *bhemu_found = NULL;
	if (strchr(opt.bhemu, '/') == NULL && (bhemu_found = find_on_path(opt.bhemu)) != NULL)
		opt.bhemu = bhemu_found;
	char *qemu_found = NULL;
	if (!no_qemu) {
		bool qemu_explicit = qemu_arg != NULL;
		if (!qemu_explicit)
			qemu_arg = "qemu-riscv32";
		if (strchr(qemu_arg, '/') == NULL)
			qemu_found = find_on_path(qemu_arg);
		opt.qemu = qemu_found != NULL ? qemu_found : qemu_arg;
		if (access(opt.qemu, X_OK) != 0) {
			if (qemu_explicit) {
				fprintf(stderr, "bench_cores: --qemu %s is not an executable\n", qemu_arg);
				return BENCHLIB_EXIT_USAGE;
			}
			fprintf(stderr, "bench_cores: qemu-riscv32 not found on PATH: measuring bhemu only\n");
			opt.qemu = NULL;
		}
	}
	bool json_to_stdout = opt.json_path != NULL && strcmp(opt.json_path, "-") == 0;
	FILE *progress = json_to_stdout ? stderr : stdout;

	int failed = 0;
	for (int i = 0; i < n; i++) {
		program_name(&progs[i]);
		fprintf(progress, "running %s ...\n", progs[i].name);
		fflush(progress);
		bench_program_run(&progs[i], &opt);
		failed += progs[i].failed;
	}
	if (json_to_stdout) {
		/* Keep stdout pure JSON; the table goes to stderr. */
		fflush(stdout);
		int saved = dup(STDOUT_FILENO);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		print_table(progs, n, &opt);
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
	} else {
		print_table(progs, n, &opt);
	}
	if (opt.json_path != NULL && !write_json(opt.json_path, progs, n, &opt))
		failed++;
	free(progs);
	free(bhemu_found);
	free(qemu_found);
	return failed ? BENCHLIB_EXIT_FAILED : BENCHLIB_EXIT_OK;
}
