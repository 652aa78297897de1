/* bhemu hunt: runs a program with seed after seed (`bhemu run --seed K`, K = first, first + 1,
 * ...) in J worker processes, shows progress, stops at the first failing seed (or goes on with
 * --keep-going) and prints its report, its seed and the command that reruns it; at the end a table
 * of outcomes by class, also as JSON.
 *
 * Each seed is a separate `bhemu run` process (this executable, /proc/self/exe), so a crash, a
 * hang or a leak of one run cannot touch the others, and the command printed for a failure is
 * exactly the one that ran. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/hunt.h"

extern char **environ;

/* Outcome classes, by the run's exit status (the README's table) confirmed by what it printed: a
 * program may exit with 3 itself, which is not a fault. */
enum hunt_class {
	HC_PASSED,
	HC_PROGRAM,       /* the program's own non-zero status: its check of its results failed */
	HC_FAULT,
	HC_FINDING,       /* a detector (--check) stopped it */
	HC_DEADLOCK,
	HC_TIMEOUT,
	HC_LIMIT,         /* --max-instructions */
	HC_RESET,         /* a core put cores in reset */
	HC_HOST,          /* host failure (status 1) */
	HC_CRASH,         /* the run died of a signal */
	HC_COUNT
};

static const struct {
	const char *name, *json;
	int status;           /* the run's exit status for this class (-1: any / none) */
	const char *says;     /* what the run prints for it */
} classes[HC_COUNT] = {
	[HC_PASSED] = { "passed", "passed", 0, NULL },
	[HC_PROGRAM] = { "program check failed", "program_failed", -1, NULL },
	[HC_FAULT] = { "fault", "fault", 3, "fault: " },
	[HC_FINDING] = { "detector finding", "finding", 8, ": check " },
	[HC_DEADLOCK] = { "deadlock", "deadlock", 5, "deadlock" },
	[HC_TIMEOUT] = { "timeout", "timeout", 6, "timeout" },
	[HC_LIMIT] = { "instruction limit", "instruction_limit", 4, "stopped after" },
	[HC_RESET] = { "put in reset", "reset", 7, "put in reset" },
	[HC_HOST] = { "host failure", "host_failure", 1, NULL },
	[HC_CRASH] = { "crashed (signal)", "crashed", -1, NULL },
};

#define OUT_CAP (256u * 1024u)

struct worker {
	pid_t pid;            /* 0: free */
	int fd;
	uint64_t seed;
	char *out;
	size_t len;
	bool cut;
};

struct hunt {
	const char *self, *elf, *json;
	char **run_args;      /* the run options, as given (and --provoke all / --timeout 60 added) */
	int nrun;
	char **trace_args;    /* --trace FILE and its companions: only for the replay of a failure */
	int ntrace;
	uint64_t first, seeds;   /* seeds == 0: no bound (--time) */
	double time_limit;
	unsigned jobs;
	bool keep_going, quiet;
	const char *sched;    /* the run's --sched: "threaded" or "serial" */
	char **cmd;           /* `-- COMMAND ARGS...`: a program on the library, seeded by BHEMU_SEED */
	int ncmd;
	/* results */
	uint64_t count[HC_COUNT], first_seed[HC_COUNT], done, next;
	bool have[HC_COUNT];
	int fail_status;      /* exit status of the first failing seed's run; 0 when none */
	uint64_t fail_seed;
	enum hunt_class fail_class;
	char *fail_out;
	bool usage_failed;
};

static double hunt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bhemu hunt [--seeds N | --time SECONDS] [--jobs J] [--first-seed S] [--keep-going]\n"
		"                  [--json FILE] [--quiet] [run options] PROGRAM.elf\n"
		"       bhemu hunt [hunt options] -- COMMAND [ARGS...]\n"
		"\n"
		"Runs `bhemu run --seed K [run options] PROGRAM.elf` for K = S, S+1, ... in J worker\n"
		"processes and stops at the first seed whose run fails, printing its report, its seed\n"
		"and the command that reruns it; then a table of outcomes by class (passed, program check\n"
		"failed, fault, detector finding, deadlock, timeout, instruction limit, put in reset, host\n"
		"failure, crashed). The seed drives the run's provocation plan and NoC latencies: without\n"
		"--provoke among the run options, hunt adds --provoke all; without --timeout, --timeout 60.\n"
		"\n"
		"  --seeds N          seeds to run (default 100; with --time, at most N)\n"
		"  --time SECONDS     run seeds until this much time has passed\n"
		"  --jobs J           worker processes (default: the number of CPUs)\n"
		"  --first-seed S     the first seed (default 1)\n"
		"  --keep-going       do not stop at a failure: run every seed, report the first of each class\n"
		"  --json FILE        also write the outcome as JSON (- for stdout)\n"
		"  --quiet            no progress line\n"
		"  --trace FILE       not for every seed: the first failing seed is run once more with\n"
		"                     --trace FILE (and --trace-events, --trace-limit if given), its timeline\n"
		"  --sched MODE, --strategy S, --pct-depth D  run options: with --sched serial a seed\n"
		"                     chooses the whole interleaving too, so its rerun replays the run exactly;\n"
		"                     threaded (default) replays the provocation plan and NoC latencies, and\n"
		"                     the host interleaves the threads\n"
		"\n"
		"With -- COMMAND, hunt runs a program of yours on the library instead, once per seed with\n"
		"BHEMU_SEED=K in its environment (and BHEMU_TRACE for --trace's replay); the other\n"
		"settings come from your environment (BHEMU_SCHED=serial, BHEMU_PROVOKE, ...), and its\n"
		"exit status is its own: 0 passed, else failed.\n"
		"\n"
		"Exit status: 0 every seed passed; else the exit status of the first failing seed's run\n"
		"(as for bhemu run: 3 fault, 5 deadlock, 6 timeout, 8 detector finding, the program's own\n"
		"status, ...); 2 bad usage or a run refused its options or ELF; 1 host failure.\n");
}

/* Shell-quoted arg (for the replay command line). */
static void put_quoted(FILE *f, const char *s)
{
	bool plain = *s != 0;
	for (const char *p = s; *p && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *p) != NULL;
	if (plain) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	fputc('\'', f);
}

/* The library's environment variables a command's run depends on (host/device.c, host/provoke.c),
 * named in its replay line when set. */
static const char *const cmd_env[] = { "BHEMU_SCHED", "BHEMU_STRATEGY", "BHEMU_PROVOKE", "BHEMU_PROVOKE_RATE",
				       "BHEMU_NOC", "BHEMU_NOC_LATENCY", "BHEMU_CHECKS", "BHEMU_CHECK_MODE",
				       "BHEMU_TENSIX" };

static void put_replay(FILE *f, const struct hunt *h, uint64_t seed)
{
	if (h->cmd) {
		fprintf(f, "BHEMU_SEED=%" PRIu64, seed);
		for (size_t k = 0; k < sizeof cmd_env / sizeof cmd_env[0]; k++) {
			const char *v = getenv(cmd_env[k]);
			if (v) {
				fprintf(f, " %s=", cmd_env[k]);
				put_quoted(f, v);
			}
		}
		for (int k = 0; k < h->ncmd; k++) {
			fputc(' ', f);
			put_quoted(f, h->cmd[k]);
		}
		return;
	}
	fprintf(f, "bhemu run --seed %" PRIu64, seed);
	for (int k = 0; k < h->nrun; k++) {
		fputc(' ', f);
		put_quoted(f, h->run_args[k]);
	}
	for (int k = 0; k < h->ntrace; k++) {
		fputc(' ', f);
		put_quoted(f, h->trace_args[k]);
	}
	fputc(' ', f);
	put_quoted(f, h->elf);
}

static enum hunt_class classify(const struct hunt *h, int wstatus, const char *out, int *status)
{
	if (WIFSIGNALED(wstatus)) {
		*status = 128 + WTERMSIG(wstatus);
		return HC_CRASH;
	}
	*status = WEXITSTATUS(wstatus);
	if (*status == 0)
		return HC_PASSED;
	if (h->cmd)
		return HC_PROGRAM;   /* a program on the library: its statuses are its own */
	for (unsigned c = HC_FAULT; c < HC_CRASH; c++)
		if (classes[c].status == *status && (!classes[c].says || strstr(out, classes[c].says)))
			return (enum hunt_class)c;
	return HC_PROGRAM;
}

/* environ with BHEMU_SEED=seed (and, traced, the trace's variables) for a command on the library;
 * NULL when out of memory. The strings live in bufs. */
static char **cmd_environ(const struct hunt *h, uint64_t seed, bool traced, char bufs[3][512])
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "BHEMU_SEED=", 11) && strncmp(environ[i], "BHEMU_TRACE=", 12) &&
		    strncmp(environ[i], "BHEMU_TRACE_EVENTS=", 19))
			env[k++] = environ[i];
	snprintf(bufs[0], 512, "BHEMU_SEED=%" PRIu64, seed);
	env[k++] = bufs[0];
	for (int i = 0; traced && i < h->ntrace; i++) {
		const char *a = h->trace_args[i], *v = NULL;
		bool file = !strcmp(a, "--trace");
		if ((file || !strcmp(a, "--trace-events")) && i + 1 < h->ntrace)
			v = h->trace_args[++i];
		else if (!strncmp(a, "--trace-events=", 15))
			v = a + 15;
		if (v) {
			snprintf(bufs[1 + !file], 512, "%s=%s", file ? "BHEMU_TRACE" : "BHEMU_TRACE_EVENTS", v);
			env[k++] = bufs[1 + !file];
		}
	}
	env[k] = NULL;
	return env;
}

static int spawn(struct hunt *h, struct worker *w, uint64_t seed, bool traced)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	char seedbuf[32];
	snprintf(seedbuf, sizeof seedbuf, "%" PRIu64, seed);
	char **argv = calloc((size_t)h->nrun + (size_t)h->ntrace + 6, sizeof *argv);
	if (!argv) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	int n = 0;
	argv[n++] = (char *)"bhemu";
	argv[n++] = (char *)"run";
	argv[n++] = (char *)"--seed";
	argv[n++] = seedbuf;
	for (int k = 0; k < h->nrun; k++)
		argv[n++] = h->run_args[k];
	for (int k = 0; traced && k < h->ntrace; k++)
		argv[n++] = h->trace_args[k];
	argv[n++] = (char *)h->elf;
	argv[n] = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	pid_t pid;
	int rc;
	if (h->cmd) {
		char bufs[3][512], **env = cmd_environ(h, seed, traced, bufs);
		rc = env ? posix_spawnp(&pid, h->cmd[0], &fa, NULL, h->cmd, env) : ENOMEM;
		free(env);
	} else {
		rc = posix_spawn(&pid, h->self, &fa, NULL, argv, environ);
	}
	posix_spawn_file_actions_destroy(&fa);
	free(argv);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		errno = rc;
		return -1;
	}
	*w = (struct worker){ .pid = pid, .fd = fds[0], .seed = seed, .out = w->out, .len = 0, .cut = false };
	return 0;
}

/* Reads what worker w printed; false at its end (EOF). */
static bool drain(struct worker *w)
{
	char buf[8192];
	ssize_t n = read(w->fd, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	size_t room = OUT_CAP - 1 - w->len, take = (size_t)n < room ? (size_t)n : room;
	memcpy(w->out + w->len, buf, take);
	w->len += take;
	w->out[w->len] = 0;
	w->cut |= take < (size_t)n;
	return true;
}

static void progress(const struct hunt *h, double t0, bool final)
{
	if (h->quiet)
		return;
	uint64_t failed = h->done - h->count[HC_PASSED];
	double dt = hunt_now() - t0;
	bool tty = isatty(STDERR_FILENO);
	char total[32] = "";
	if (h->seeds)
		snprintf(total, sizeof total, " of %" PRIu64, h->seeds);
	fprintf(stderr, "%shunt: %" PRIu64 "%s seeds, %" PRIu64 " failed, %.1f seeds/s%s", tty ? "\r" : "", h->done,
		total, failed, dt > 0 ? (double)h->done / dt : 0.0, tty && !final ? "" : "\n");
}

/* One finished run of worker w. */
static void finished(struct hunt *h, struct worker *w, int wstatus)
{
	int status;
	enum hunt_class c = classify(h, wstatus, w->out, &status);
	h->done++;
	h->count[c]++;
	if (!h->have[c] || w->seed < h->first_seed[c]) {
		h->have[c] = true;
		h->first_seed[c] = w->seed;
	}
	/* The run refused its options ("bhemu run: ...") or its ELF (a message naming the file):
	 * every seed would. */
	if (status == 2 && c == HC_PROGRAM && (strstr(w->out, "bhemu run: ") || strstr(w->out, h->elf)))
		h->usage_failed = true;
	if (c != HC_PASSED && (!h->fail_status || w->seed < h->fail_seed)) {
		h->fail_status = status;
		h->fail_seed = w->seed;
		h->fail_class = c;
		free(h->fail_out);
		h->fail_out = strdup(w->out);
	}
}

static void put_json(FILE *f, const struct hunt *h, double secs)
{
	fprintf(f, "{\"program\": \"");
	for (const char *p = h->elf; *p; p++)
		fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
	fprintf(f, "\", \"first_seed\": %" PRIu64 ", \"seeds_run\": %" PRIu64 ", \"seconds\": %.3f, \"seeds_per_s\": %.3f, "
		"\"jobs\": %u, \"sched\": \"%s\", \"outcomes\": {", h->first, h->done, secs,
		secs > 0 ? (double)h->done / secs : 0.0, h->jobs, h->sched ? h->sched : "threaded");
	for (unsigned c = 0; c < HC_COUNT; c++)
		fprintf(f, "%s\"%s\": %" PRIu64, c ? ", " : "", classes[c].json, h->count[c]);
	fprintf(f, "}, \"first_failure\": ");
	if (!h->fail_status) {
		fprintf(f, "null}\n");
		return;
	}
	fprintf(f, "{\"seed\": %" PRIu64 ", \"class\": \"%s\", \"status\": %d, \"replay\": \"", h->fail_seed,
		classes[h->fail_class].json, h->fail_status);
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	if (m) {
		put_replay(m, h, h->fail_seed);
		fclose(m);
		for (const char *p = line; p && *p; p++)
			fprintf(f, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
		free(line);
	}
	fprintf(f, "\"}}\n");
}

/* The failing seed once more, with the trace options: its timeline. */
static void replay_traced(struct hunt *h)
{
	struct worker w = { .out = malloc(OUT_CAP) };
	fflush(stdout);
	if (w.out)
		w.out[0] = 0;
	if (!w.out || spawn(h, &w, h->fail_seed, true) != 0) {
		free(w.out);
		fprintf(stderr, "bhemu hunt: cannot start the traced replay: %s\n", strerror(errno));
		return;
	}
	while (drain(&w))
		;
	close(w.fd);
	int ws = 0;
	while (waitpid(w.pid, &ws, 0) < 0 && errno == EINTR)
		;
	int status = 0;
	enum hunt_class c = classify(h, ws, w.out, &status);
	printf("hunt: replayed seed %" PRIu64 " with %s %s: %s (exit status %d)%s\n", h->fail_seed, h->trace_args[0],
	       h->trace_args[1], classes[c].name, status,
	       c == h->fail_class && status == h->fail_status ? ", as in the hunt" : " (the threaded mode may not repeat it)");
	free(w.out);
}

static int hunt_execute(struct hunt *h)
{
	struct worker *w = calloc(h->jobs, sizeof *w);
	struct pollfd *pfd = calloc(h->jobs, sizeof *pfd);
	bool ok = w && pfd;
	for (unsigned k = 0; ok && k < h->jobs; k++)
		ok = (w[k].out = malloc(OUT_CAP)) != NULL;
	if (!ok) {
		fprintf(stderr, "bhemu hunt: out of memory\n");
		if (w)
			for (unsigned k = 0; k < h->jobs; k++)
				free(w[k].out);
		free(w);
		free(pfd);
		return 1;
	}
	double t0 = hunt_now(), last_progress = 0;
	h->next = h->first;
	unsigned running = 0;
	bool stop = false, host_error = false;
	for (;;) {
		/* Start seeds in free slots. */
		for (unsigned k = 0; k < h->jobs && !stop; k++) {
			if (w[k].pid)
				continue;
			if (h->seeds && h->next - h->first >= h->seeds)
				break;
			if (h->time_limit > 0 && hunt_now() - t0 >= h->time_limit)
				break;
			if (spawn(h, &w[k], h->next, false) != 0) {
				fprintf(stderr, "bhemu hunt: cannot start %s: %s\n", h->self, strerror(errno));
				stop = host_error = true;
				break;
			}
			h->next++;
			running++;
		}
		if (!running)
			break;
		unsigned n = 0;
		for (unsigned k = 0; k < h->jobs; k++)
			if (w[k].pid)
				pfd[n++] = (struct pollfd){ .fd = w[k].fd, .events = POLLIN };
		if (poll(pfd, n, 250) < 0 && errno != EINTR)
			break;
		for (unsigned k = 0, i = 0; k < h->jobs; k++) {
			if (!w[k].pid)
				continue;
			struct pollfd *p = &pfd[i++];
			if (!(p->revents & (POLLIN | POLLHUP | POLLERR)) || drain(&w[k]))
				continue;
			int ws = 0;
			while (waitpid(w[k].pid, &ws, 0) < 0 && errno == EINTR)
				;
			close(w[k].fd);
			w[k].pid = 0;
			running--;
			finished(h, &w[k], ws);
			if (h->usage_failed || (h->fail_status && !h->keep_going))
				stop = true;
		}
		if (stop) {
			/* The other runs are of later seeds: the first failure stands. */
			for (unsigned k = 0; k < h->jobs; k++)
				if (w[k].pid) {
					kill(w[k].pid, SIGKILL);
					while (waitpid(w[k].pid, NULL, 0) < 0 && errno == EINTR)
						;
					close(w[k].fd);
					w[k].pid = 0;
				}
			break;
		}
		if (hunt_now() - last_progress >= (isatty(STDERR_FILENO) ? 0.25 : 5.0)) {
			last_progress = hunt_now();
			progress(h, t0, false);
		}
	}
	double secs = hunt_now() - t0;
	progress(h, t0, true);
	for (unsigned k = 0; k < h->jobs; k++)
		free(w[k].out);
	free(w);
	free(pfd);
	if (host_error)
		return 1;
	if (h->usage_failed) {
		fprintf(stderr, "bhemu hunt: the run refused its options or program:\n%s", h->fail_out ? h->fail_out : "");
		return 2;
	}

	if (h->fail_status) {
		printf("hunt: seed %" PRIu64 " failed: %s (exit status %d). Its output:\n%s", h->fail_seed,
		       classes[h->fail_class].name, h->fail_status, h->fail_out ? h->fail_out : "");
		if (h->fail_out && *h->fail_out && h->fail_out[strlen(h->fail_out) - 1] != '\n')
			putchar('\n');
		printf("hunt: rerun it with: ");
		put_replay(stdout, h, h->fail_seed);
		putchar('\n');
		if (h->ntrace)
			replay_traced(h);
	}
	printf("hunt: %" PRIu64 " seeds from %" PRIu64 " in %.2f s (%.1f seeds/s, %u jobs)\n", h->done, h->first, secs,
	       secs > 0 ? (double)h->done / secs : 0.0, h->jobs);
	printf("  %-22s %8s  %s\n", "outcome", "seeds", "first seed");
	for (unsigned c = 0; c < HC_COUNT; c++)
		if (h->count[c])
			printf("  %-22s %8" PRIu64 "  %" PRIu64 "\n", classes[c].name, h->count[c], h->first_seed[c]);
	if (h->json) {
		FILE *f = strcmp(h->json, "-") ? fopen(h->json, "w") : stdout;
		if (!f) {
			fprintf(stderr, "bhemu hunt: cannot write %s: %s\n", h->json, strerror(errno));
			return 1;
		}
		put_json(f, h, secs);
		if (f != stdout && fclose(f) != 0)
			return 1;
	}
	fflush(stdout);
	return h->fail_status;
}

/* A whole number in [min, max] for option opt; false (with a message) when it is not. */
static bool hunt_number(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 0);
	if (!*arg || *end || errno || arg[0] == '-' || v < min || v > max) {
		fprintf(stderr, "bhemu hunt: %s needs a whole number from %" PRIu64 " to %" PRIu64 ", not '%s'\n", opt, min,
			max, arg);
		return false;
	}
	*out = v;
	return true;
}

int bh_cli_hunt(int argc, char **argv)
{
	struct hunt h = { .self = "/proc/self/exe", .first = 1, .jobs = (unsigned)sysconf(_SC_NPROCESSORS_ONLN) };
	bool have_seeds = false, have_provoke = false, have_timeout = false;
	char **run = calloc((size_t)argc + 4, sizeof *run), **trace = calloc((size_t)argc + 2, sizeof *trace);
	if (!run || !trace) {
		free(run);
		free(trace);
		return 1;
	}
	int nrun = 0, ntrace = 0, rc = 2;
	/* Options of hunt, taken out; everything else goes to run as given (it checks them). The
	 * last argument is the program. */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = strchr(a, '=');
		size_t nlen = eq && a[0] == '-' && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
		const char *val = eq && nlen < strlen(a) ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
		bool inline_val = eq && nlen < strlen(a);
#define IS(name) (nlen == strlen(name) && !strncmp(a, name, nlen))
		uint64_t v;
		if (!strcmp(a, "--")) {   /* a program on the library: the rest is its command line */
			h.cmd = argv + i + 1;
			h.ncmd = argc - i - 1;
			break;
		}
		if (IS("--help") || IS("-h")) {
			usage(stdout);
			rc = 0;
			goto out;
		} else if (IS("--keep-going")) {
			h.keep_going = true;
			continue;
		} else if (IS("--quiet")) {
			h.quiet = true;
			continue;
		} else if (IS("--seeds") || IS("--time") || IS("--jobs") || IS("--first-seed") || IS("--json")) {
			if (!val) {
				fprintf(stderr, "bhemu hunt: %.*s needs a value\n", (int)nlen, a);
				goto out;
			}
			if (!inline_val)
				i++;
			if (IS("--seeds")) {
				if (!hunt_number("--seeds", val, 1, UINT64_MAX / 2, &h.seeds))
					goto out;
				have_seeds = true;
			} else if (IS("--jobs")) {
				if (!hunt_number("--jobs", val, 1, 1024, &v))
					goto out;
				h.jobs = (unsigned)v;
			} else if (IS("--first-seed")) {
				if (!hunt_number("--first-seed", val, 1, UINT64_MAX / 2, &h.first))
					goto out;
			} else if (IS("--json")) {
				h.json = val;
			} else {
				char *end;
				h.time_limit = strtod(val, &end);
				if (!*val || *end || !(h.time_limit > 0 && h.time_limit <= 1e7)) {
					fprintf(stderr, "bhemu hunt: --time needs a positive number of seconds, not '%s'\n", val);
					goto out;
				}
			}
			continue;
		}
		if (IS("--trace") || IS("--trace-events") || IS("--trace-limit")) {
			if (!val) {
				fprintf(stderr, "bhemu hunt: %.*s needs a value\n", (int)nlen, a);
				goto out;
			}
			/* --trace first: the replay's message names its file. */
			if (IS("--trace")) {
				memmove(trace + 2, trace, (size_t)ntrace * sizeof *trace);
				trace[0] = (char *)"--trace";
				trace[1] = (char *)val;
				ntrace += 2;
			} else {
				trace[ntrace++] = argv[i];
				if (!inline_val)
					trace[ntrace++] = (char *)val;
			}
			if (!inline_val)
				i++;
			continue;
		}
		if (IS("--seed")) {
			fprintf(stderr, "bhemu hunt: --seed is hunt's to choose (--first-seed S starts from S)\n");
			goto out;
		}
		have_provoke |= IS("--provoke");
		if (IS("--sched") && val)   /* a run option: hunt only names it in its JSON */
			h.sched = !strcmp(val, "serial") ? "serial" : "threaded";
		have_timeout |= IS("--timeout");
#undef IS
		run[nrun++] = argv[i];
	}
	if (h.cmd) {
		if (!h.ncmd || nrun) {
			fprintf(stderr, "bhemu hunt: -- COMMAND takes a command and no run options (%s): a program on the "
					"library reads them from the environment (BHEMU_SCHED, BHEMU_PROVOKE, ...)\n",
				nrun ? run[0] : "no command");
			goto out;
		}
		for (int k = 0; k < ntrace; k++)
			if (!strcmp(trace[k], "--trace-limit")) {
				fprintf(stderr, "bhemu hunt: --trace-limit is a run option; a command's trace is BHEMU_TRACE's\n");
				goto out;
			}
		h.elf = h.cmd[0];
	} else if (nrun == 0 || run[nrun - 1][0] == '-') {
		fprintf(stderr, "bhemu hunt: expected a PROGRAM.elf last\n");
		usage(stderr);
		goto out;
	} else {
		h.elf = run[--nrun];
	}
	if (!have_provoke && !h.cmd) {
		run[nrun++] = (char *)"--provoke";
		run[nrun++] = (char *)"all";
	}
	if (!have_timeout && !h.cmd) {
		run[nrun++] = (char *)"--timeout";
		run[nrun++] = (char *)"60";
	}
	h.run_args = run;
	h.nrun = nrun;
	if (ntrace && strcmp(trace[0], "--trace")) {
		fprintf(stderr, "bhemu hunt: --trace-events and --trace-limit go with --trace FILE\n");
		goto out;
	}
	h.trace_args = trace;
	h.ntrace = ntrace;
	if (!have_seeds && h.time_limit == 0)
		h.seeds = 100;
	if (h.seeds && h.jobs > h.seeds)
		h.jobs = (unsigned)h.seeds;
	rc = hunt_execute(&h);
out:
	free(h.fail_out);
	free(run);
	free(trace);
	return rc;
}
