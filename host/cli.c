/* bhemu command-line interface. */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bhemu/bhemu.h"

/* Exit statuses (documented in --help and the README). */
enum {
	EXIT_USAGE = 2,    /* bad command line, or the ELF was rejected */
	EXIT_FAULT = 3,    /* the guest faulted: report on stderr */
	EXIT_LIMIT = 4,    /* --max-instructions reached */
	EXIT_HOST = 1,     /* host failure (out of memory, threads) */
	EXIT_DEADLOCK = 5, /* every running core waits and nothing can wake one: report on stderr */
	EXIT_TIMEOUT = 6,  /* --timeout passed (a livelock, or just slow): report on stderr */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bhemu run [options] PROGRAM.elf\n"
		"       bhemu --help | --version\n"
		"\n"
		"Runs a bare-metal RV32 program on one core of an emulated Blackhole Tensix tile\n"
		"(tile 0), or on several cores of it at once (--cores). Host calls use the RISC-V\n"
		"Linux numbers, so the same ELF runs under qemu-riscv32: ecall a7=93 exits with\n"
		"status a0; a7=64 writes a2 bytes at a1 to fd a0 (1 stdout, 2 stderr). Any other\n"
		"ecall is a fault.\n"
		"\n"
		"options of run:\n"
		"  -c, --core NAME             brisc (default), ncrisc, trisc0, trisc1 or trisc2;\n"
		"                              starts at the ELF entry\n"
		"  -C, --cores LIST            run several cores of the tile, e.g. brisc,ncrisc,trisc0;\n"
		"                              the ELF is loaded once and each core starts at the\n"
		"                              symbol _start_<core> if the ELF has it, else at the\n"
		"                              ELF entry. Ends when every listed core has exited, or\n"
		"                              at the first fault or instruction limit of any core.\n"
		"                              Not with --core\n"
		"  -n, --max-instructions N    stop after N instructions (exit status 4); with\n"
		"                              --cores the limit is per core\n"
		"  -s, --stats                 print 'stats: instructions=N seconds=S mips=M' to stderr;\n"
		"                              with --cores also one 'stats: core=NAME ...' line per core\n"
		"  -t, --timeout SECONDS       watchdog: stop after SECONDS of wall time and report where\n"
		"                              every core is and what it waits on (exit status 6)\n"
		"  -h, --help                  this text\n"
		"\n"
		"exit status: the program's own exit status (low 8 bits) when it exits; with\n"
		"  --cores the first listed core's, unless another core exited non-zero: then\n"
		"  the first such core's (named on stderr);\n"
		"  1 host failure; 2 bad usage or ELF rejected; 3 the program faulted (report on\n"
		"  stderr: tile, core, pc, symbol, instruction, address, region, why);\n"
		"  4 --max-instructions reached; 5 deadlock: every running core polls or waits\n"
		"  with nothing left to wake it (report on stderr: per core the loop, the words it\n"
		"  waits on by name and value, or the blocked device access); 6 --timeout reached.\n"
		"  Waiting cores park their threads (no host CPU); with --max-instructions they\n"
		"  do not, so deadlocks are then found only by --timeout.\n");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end)
		return -1;
	*out = v;
	return 0;
}

#define RUN_MAX_CORES 5

/* What `bhemu run` was asked to do. */
struct run_plan {
	unsigned ncores;
	enum bh_core_id cores[RUN_MAX_CORES];   /* in command-line order */
	bool multi;                             /* --cores: per-core entries, per-core reporting */
	uint64_t max;                           /* per core; 0 = no limit */
	double timeout;                         /* seconds; 0 = none */
	bool stats;
	const char *path;
};

static int core_from_name(const char *name, enum bh_core_id *out)
{
	int core = bh_core_parse(name);
	if (core < 0) {
		fprintf(stderr, "bhemu run: unknown core '%s' (brisc, ncrisc, trisc0, trisc1, trisc2)\n", name);
		return -1;
	}
	*out = (enum bh_core_id)core;
	return 0;
}

/* "brisc,ncrisc,trisc0" -> plan->cores; every core at most once. */
static int parse_core_list(const char *list, struct run_plan *plan)
{
	char buf[128];
	if (strlen(list) >= sizeof buf) {
		fprintf(stderr, "bhemu run: --cores list too long: '%s'\n", list);
		return -1;
	}
	strcpy(buf, list);
	plan->ncores = 0;
	char *save = NULL;
	for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		enum bh_core_id core;
		if (core_from_name(name, &core) != 0)
			return -1;
		for (unsigned k = 0; k < plan->ncores; k++) {
			if (plan->cores[k] == core) {
				fprintf(stderr, "bhemu run: --cores lists %s twice\n", name);
				return -1;
			}
		}
		plan->cores[plan->ncores++] = core;
	}
	if (plan->ncores == 0 || list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,")) {
		fprintf(stderr, "bhemu run: --cores needs a comma-separated list of cores, not '%s'\n", list);
		return -1;
	}
	return 0;
}

/* Loads the ELF for every core of the plan and finds each core's entry. Loading the same L1
 * bytes once per core is harmless before any core starts, and gives each core the symbol
 * table its fault reports need. */
static int run_load(struct bh_device *dev, const struct run_plan *plan, uint32_t entry[])
{
	char err[512];
	for (unsigned k = 0; k < plan->ncores; k++) {
		enum bh_core_id core = plan->cores[k];
		if (bh_load_elf(dev, 0, core, plan->path, NULL, &entry[k], err, sizeof err) != BH_OK) {
			fprintf(stderr, "bhemu: %s\n", err);
			return -1;
		}
		if (plan->multi) {
			char sym[32];
			snprintf(sym, sizeof sym, "_start_%s", bh_core_name(core));
			bh_core_symbol_lookup(dev, 0, core, sym, &entry[k]);   /* absent: keep the ELF entry */
		}
	}
	return 0;
}

static bool core_stopped_run(enum bh_run_status st)
{
	return st == BH_RUN_FAULTED || st == BH_RUN_LIMIT;
}

/* Waits until every core has left BH_RUN_RUNNING or one of them faulted or hit its limit.
 * bh_core_wait watches one core, so a fault elsewhere is seen within RUN_POLL_MS. Returns
 * BH_OK, or the error that ended bh_core_wait (the cores still running then stay so). */
#define RUN_POLL_MS 20
static int run_wait(struct bh_device *dev, const struct run_plan *plan, struct bh_core_result res[])
{
	double deadline = plan->timeout > 0 ? now_s() + plan->timeout : 0;
	for (;;) {
		int running = -1;
		for (unsigned k = 0; k < plan->ncores; k++) {
			bh_core_result(dev, 0, plan->cores[k], &res[k]);
			if (core_stopped_run(res[k].status))
				return BH_OK;
			if (res[k].status == BH_RUN_RUNNING && running < 0)
				running = (int)k;
		}
		if (running < 0)
			return BH_OK;
		int ms = plan->ncores == 1 ? -1 : RUN_POLL_MS;
		if (deadline > 0) {
			double left = deadline - now_s();
			if (left <= 0)
				return BH_ERR_TIMEOUT;
			if (ms < 0 || left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		int rc = bh_core_wait(dev, 0, plan->cores[running], ms, &res[running]);
		if (rc != BH_OK && rc != BH_ERR_TIMEOUT) {
			for (unsigned k = 0; k < plan->ncores; k++)
				bh_core_result(dev, 0, plan->cores[k], &res[k]);
			return rc;
		}
	}
}

static const char *run_status_name(enum bh_run_status st)
{
	switch (st) {
	case BH_RUN_IN_RESET: return "in reset";
	case BH_RUN_RUNNING: return "running";
	case BH_RUN_EXITED: return "exited";
	case BH_RUN_FAULTED: return "faulted";
	case BH_RUN_LIMIT: return "stopped at its instruction limit";
	}
	return "in an unknown state";
}

/* After a fault, a limit or a failed wait: where every core was, to tell a victim from a cause. */
static void run_report_others(const struct run_plan *plan, const struct bh_core_result res[])
{
	fprintf(stderr, "bhemu: at that point:");
	for (unsigned k = 0; k < plan->ncores; k++) {
		fprintf(stderr, "%s %s %s", k ? "," : "", bh_core_name(plan->cores[k]), run_status_name(res[k].status));
		if (res[k].status == BH_RUN_EXITED)
			fprintf(stderr, " (%d)", res[k].exit_status & 0xff);
		if (res[k].status != BH_RUN_RUNNING)   /* a running core's count is not current */
			fprintf(stderr, " after %" PRIu64 " instructions", res[k].instructions);
	}
	fprintf(stderr, "\n");
}

/* Waiting ended (wait_rc, e.g. the device deadlocked) before every core stopped: the status of
 * the first core that exited non-zero, since that is what the program reported, else 1. */
static int run_status_unfinished(const struct run_plan *plan, const struct bh_core_result res[], int wait_rc)
{
	fprintf(stderr, "bhemu: waiting for the cores failed (error %d) while some still ran\n", wait_rc);
	run_report_others(plan, res);
	for (unsigned k = 0; k < plan->ncores; k++) {
		if (res[k].status == BH_RUN_EXITED && (res[k].exit_status & 0xff) != 0) {
			fprintf(stderr, "bhemu: %s exited with status %d\n", bh_core_name(plan->cores[k]),
				res[k].exit_status & 0xff);
			return res[k].exit_status & 0xff;
		}
	}
	return EXIT_HOST;
}

/* The exit status of the run (see usage()); reports faults and limits on stderr. wait_rc is what
 * run_wait returned. */
static int run_status(const struct run_plan *plan, const struct bh_core_result res[], int wait_rc)
{
	int rc = -1;
	for (unsigned k = 0; k < plan->ncores; k++) {
		if (res[k].status == BH_RUN_FAULTED) {
			fprintf(stderr, "bhemu: %s\n", res[k].report);
			rc = EXIT_FAULT;
		}
	}
	for (unsigned k = 0; k < plan->ncores && rc < 0; k++) {
		if (res[k].status == BH_RUN_LIMIT) {
			if (plan->multi)
				fprintf(stderr, "bhemu: %s stopped after %" PRIu64 " instructions (--max-instructions %" PRIu64 ")\n",
					bh_core_name(plan->cores[k]), res[k].instructions, plan->max);
			else
				fprintf(stderr, "bhemu: stopped after %" PRIu64 " instructions (--max-instructions %" PRIu64 ")\n",
					res[k].instructions, plan->max);
			rc = EXIT_LIMIT;
		}
	}
	if (rc >= 0) {
		if (plan->multi && plan->ncores > 1)
			run_report_others(plan, res);
		return rc;
	}
	for (unsigned k = 0; k < plan->ncores; k++) {
		if (res[k].status != BH_RUN_EXITED)
			return run_status_unfinished(plan, res, wait_rc);
	}
	/* Every core exited: the first core's status, unless it is 0 and another core's is not. */
	unsigned chosen = 0;
	for (unsigned k = 1; k < plan->ncores && (res[0].exit_status & 0xff) == 0; k++) {
		if ((res[k].exit_status & 0xff) != 0) {
			chosen = k;
			break;
		}
	}
	for (unsigned k = 0; k < plan->ncores && plan->ncores > 1; k++) {
		if ((res[k].exit_status & 0xff) != 0)
			fprintf(stderr, "bhemu: %s exited with status %d%s\n", bh_core_name(plan->cores[k]),
				res[k].exit_status & 0xff, k == chosen ? "" : " (not the status of the run)");
	}
	return res[chosen].exit_status & 0xff;
}

/* Deadlock or watchdog: the device-wide picture of who waits on what. */
static int run_report_stuck(struct bh_device *dev, const struct run_plan *plan, int wait_rc, double secs)
{
	size_t len = 64 * 1024;
	char *buf = malloc(len);
	if (wait_rc == BH_ERR_DEADLOCK)
		fprintf(stderr, "bhemu: deadlock after %.3f s: every running core waits and nothing can wake one\n", secs);
	else
		fprintf(stderr, "bhemu: timeout: still running after %.3f s (--timeout %g)\n", secs, plan->timeout);
	if (buf && bh_device_report(dev, buf, len) == BH_OK)
		fputs(buf, stderr);
	free(buf);
	return wait_rc == BH_ERR_DEADLOCK ? EXIT_DEADLOCK : EXIT_TIMEOUT;
}

static void run_stats(const struct run_plan *plan, const struct bh_core_result res[], double secs)
{
	uint64_t total = 0;
	for (unsigned k = 0; k < plan->ncores; k++) {
		total += res[k].instructions;
		if (plan->multi)
			fprintf(stderr, "stats: core=%s instructions=%" PRIu64 " seconds=%.6f mips=%.2f\n",
				bh_core_name(plan->cores[k]), res[k].instructions, secs,
				secs > 0 ? (double)res[k].instructions / secs / 1e6 : 0.0);
	}
	fprintf(stderr, "stats: instructions=%" PRIu64 " seconds=%.6f mips=%.2f\n", total, secs,
		secs > 0 ? (double)total / secs / 1e6 : 0.0);
}

static int run_plan_execute(const struct run_plan *plan)
{
	struct bh_device *dev;
	if (bh_device_open(NULL, &dev) != BH_OK) {
		fprintf(stderr, "bhemu: cannot create the device (out of memory or threads)\n");
		return EXIT_HOST;
	}
	uint32_t entry[RUN_MAX_CORES];
	if (run_load(dev, plan, entry) != 0) {
		bh_device_close(dev);
		return EXIT_USAGE;
	}
	struct bh_core_result *res = calloc(plan->ncores, sizeof *res);
	if (!res) {
		bh_device_close(dev);
		return EXIT_HOST;
	}
	for (unsigned k = 0; k < plan->ncores; k++) {
		bh_core_enable_host_calls(dev, 0, plan->cores[k], true);
		bh_core_set_max_instructions(dev, 0, plan->cores[k], plan->max);
	}

	double t0 = now_s();
	for (unsigned k = 0; k < plan->ncores; k++)
		bh_core_start(dev, 0, plan->cores[k], entry[k]);
	int wait_rc = run_wait(dev, plan, res);
	double secs = now_s() - t0;
	fflush(stdout);

	int rc;
	if (wait_rc == BH_ERR_DEADLOCK || wait_rc == BH_ERR_TIMEOUT)
		rc = run_report_stuck(dev, plan, wait_rc, secs);
	else
		rc = run_status(plan, res, wait_rc);
	if (plan->stats)
		run_stats(plan, res, secs);
	free(res);
	bh_device_close(dev);   /* stops the cores still running after a fault or limit */
	return rc;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "core", required_argument, NULL, 'c' },
		{ "cores", required_argument, NULL, 'C' },
		{ "max-instructions", required_argument, NULL, 'n' },
		{ "stats", no_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_plan plan = { .ncores = 1, .cores = { BH_CORE_BRISC } };
	bool have_core = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+c:C:n:st:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (core_from_name(optarg, &plan.cores[0]) != 0)
				return EXIT_USAGE;
			have_core = true;
			break;
		case 'C':
			if (parse_core_list(optarg, &plan) != 0)
				return EXIT_USAGE;
			plan.multi = true;
			break;
		case 'n':
			if (parse_u64(optarg, &plan.max) || plan.max == 0) {
				fprintf(stderr, "bhemu run: --max-instructions needs a positive integer, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's': plan.stats = true; break;
		case 't': {
			char *end;
			plan.timeout = strtod(optarg, &end);
			if (*end || !(plan.timeout > 0) || plan.timeout > 1e7) {
				fprintf(stderr, "bhemu run: --timeout needs a positive number of seconds, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (have_core && plan.multi) {
		fprintf(stderr, "bhemu run: --core and --cores are mutually exclusive\n");
		return EXIT_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bhemu run: expected exactly one PROGRAM.elf\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	plan.path = argv[optind];
	return run_plan_execute(&plan);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("bhemu 0.1.0\n");
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "run")) {
		argv[1] = "bhemu run";   /* getopt's messages name the command */
		return cmd_run(argc - 1, argv + 1);
	}
	if (argc < 2)
		fprintf(stderr, "bhemu: missing command\n");
	else
		fprintf(stderr, "bhemu: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
