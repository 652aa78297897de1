/* bhemu command-line interface. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "firmware/baremetal/grid.h"
#include "host/hunt.h"

/* Exit statuses (documented in --help and the README). */
enum {
	EXIT_USAGE = 2,    /* bad command line, or the ELF was rejected */
	EXIT_FAULT = 3,    /* the guest faulted: report on stderr */
	EXIT_LIMIT = 4,    /* --max-instructions reached */
	EXIT_HOST = 1,     /* host failure (out of memory, threads) */
	EXIT_DEADLOCK = 5, /* every running core waits and nothing can wake one: report on stderr */
	EXIT_TIMEOUT = 6,  /* --timeout passed (a livelock, or just slow): report on stderr */
	EXIT_RESET = 7,    /* the run ended with cores a core put in reset (SOFT_RESET_0): who and where on stderr */
	EXIT_CHECK = 8,    /* a check (--check) stopped a core: its finding on stderr */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bhemu run [options] PROGRAM.elf\n"
		"       bhemu boot [options]\n"
		"       bhemu smoke [options]\n"
		"       bhemu hunt [options] [run options] PROGRAM.elf   (bhemu hunt --help)\n"
		"       bhemu soc-descriptor [--board p150|p100]   (soc_descriptor.yaml for libbhemu_ttsim.so)\n"
		"       bhemu --help | --version\n"
		"\n"
		"Runs a bare-metal RV32 program on one core of an emulated Blackhole Tensix tile\n"
		"(tile 0), on several cores of it at once (--cores), or on every tile of the chip\n"
		"(--grid). Host calls use the RISC-V Linux numbers, so the same ELF runs under\n"
		"qemu-riscv32: ecall a7=93 exits with status a0; a7=64 writes a2 bytes at a1 to fd\n"
		"a0 (1 stdout, 2 stderr). Any other ecall is a fault.\n"
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
		"  -b, --board BOARD           the chip: p150 (default: 140 Tensix tiles, 8 DRAM\n"
		"                              banks), p100 (120 tiles, 7 banks) or grid:CxR (the\n"
		"                              first C columns and R rows of the P150 grid, C 1..14,\n"
		"                              R 1..10, 8 banks). Tile 0 is at NoC (1,2)\n"
		"  -g, --grid                  load the ELF into every Tensix tile of the board and\n"
		"                              start the --core or --cores cores on every tile; the\n"
		"                              run ends as with --cores, over all tiles. Tiles find\n"
		"                              their position in NOC_ID_LOGICAL\n"
		"  -n, --max-instructions N    stop after N instructions (exit status 4); with\n"
		"                              --cores or --grid the limit is per core\n"
		"  -s, --stats                 print 'stats: instructions=N seconds=S mips=M' to stderr;\n"
		"                              with --cores also one 'stats: core=NAME ...' line per core\n"
		"                              (with --grid summed over the tiles)\n"
		"  -t, --timeout SECONDS       watchdog over the whole command: stop after SECONDS of\n"
		"                              wall time (loading included) and report where every\n"
		"                              core is and what it waits on (exit status 6)\n"
		"  -p, --profile NAME          the program follows the mailbox layout of firmware\n"
		"                              profile NAME (p100a) without booting its firmware:\n"
		"                              its CB layout, launch slots (launch-slot-busy) and\n"
		"                              CB reset byte subordinate_sync.trisc0\n"
		"                              (cb-reset-window) are registered with every tile, as\n"
		"                              boot does. Without it neither check has anything to\n"
		"                              watch\n"
		"  -j, --jit MODE              on (default, or the BHEMU_JIT environment variable):\n"
		"                              hot loops are compiled to native code (x86-64 hosts);\n"
		"                              off: interpret everything; eager: compile at every\n"
		"                              jump (for testing the compiler). Results, faults and\n"
		"                              instruction counts are the same in every mode; with\n"
		"                              --max-instructions the exact interpreter runs instead.\n"
		"                              --stats adds 'stats: jit_regions=N jit_flushes=F\n"
		"                              jit_shared=S jit_chained=C' (S of the N from the\n"
		"                              shared cache; C jumps from compiled code straight\n"
		"                              into compiled code)\n"
		"                              (with Tensix instructions 'stats: tensix=MODE words=N\n"
		"                              by_trisc=N by_executor=N handovers=N')\n"
		"                              (and with --provoke 'stats: provoke sync_points=N\n"
		"                              delays=N coalesced=N skews=N reordered=N\n"
		"                              stale_kept=N l0_stale=N delay_seconds=S')\n"
		"      --noc MODE              async (default, or the BHEMU_NOC environment variable):\n"
		"                              a NoC request is in flight from its NOC_CMD_CTRL store\n"
		"                              until it lands, so a missing barrier shows; sync: every\n"
		"                              request completes inside its CMD_CTRL store (fastest)\n"
		"      --noc-latency SPEC      asynchronous NoC timing: silicon (default, or\n"
		"                              BHEMU_NOC_LATENCY), zero, slow, or MIN:MAX in ns\n"
		"      --check LIST            the detectors of synchronisation bugs to run\n"
		"                              (comma-separated): check names, all, default (the\n"
		"                              cheap ones, also without --check), none, and -NAME\n"
		"                              to leave one out; a list starting with -NAME starts\n"
		"                              from the default set, any other from none\n"
		"      --check-mode stop|log   stop (default): a finding stops the core it blames,\n"
		"                              like a fault (exit status 8); log: each finding is\n"
		"                              printed once per check, pc, tile and core at the\n"
		"                              end, and the run goes on\n"
		"      --list-checks           list every check with what it catches, and exit\n"
		"      --hw-bug NAME           model a documented silicon bug instead of faulting\n"
		"                              where a program meets it: pack-l1acc-fp16 (the\n"
		"                              packer's FP16 L1 accumulation writes NaN 0x7FFF)\n"
		"  -h, --help                  this text\n"
		"\n"
		"provocation (run, boot and smoke): seeded perturbations that make latent\n"
		"synchronisation bugs show; the seed drives every random choice, and a run with any\n"
		"provocation on prints 'bhemu: seed N (rerun with --seed N; ...)' on stderr first.\n"
		"  --provoke LIST              comma-separated: delay (a core sleeps 1-200 us before\n"
		"                              an access to a sync register: stream registers, NIU,\n"
		"                              tile control, PCBufs, semaphores, mailboxes), skew (a\n"
		"                              released core sleeps 0-500 us before its first\n"
		"                              instruction), cq-slow (the fast-dispatch cores start\n"
		"                              0-20 ms late), prefetch-slow (0-1 ms before each\n"
		"                              fetch), coalesce (a counter read is 20-300 us late, so\n"
		"                              increments land between polls), reorder (a core's\n"
		"                              store to a stream register waits in its store queue\n"
		"                              while its loads of other addresses go ahead),\n"
		"                              stale-icache (a core runs the instructions it decoded\n"
		"                              until its I-cache invalidate, however L1 changed),\n"
		"                              l0-cache (each core's L0 data cache in front of L1, not\n"
		"                              coherent: loads may read stale lines until a fence),\n"
		"                              all (all but reorder, stale-icache and l0-cache), or\n"
		"                              none.\n"
		"                              Default: the BHEMU_PROVOKE environment variable, else\n"
		"                              none\n"
		"  --provoke-rate P            chance per sync point of delay, coalesce and reorder,\n"
		"                              0 to 1\n"
		"                              (default BHEMU_PROVOKE_RATE, else 0.05)\n"
		"  --seed N                    the seed, 1 to 2^64-1 (default BHEMU_SEED, else one\n"
		"                              from the clock)\n"
		"  --trace FILE                write a timeline of the run to FILE (Chrome trace\n"
		"                              JSON: open it in https://ui.perfetto.dev): every core\n"
		"                              running / parked / stopped, NoC transactions as arrows,\n"
		"                              CB counters, launches, findings (default BHEMU_TRACE)\n"
		"  --trace-events LIST         what it records: core, noc, cb, launch, finding, all\n"
		"                              (default all)\n"
		"  --trace-limit N             keep the last N events (default 1000000)\n"
		"  --sched MODE                threaded (default, or BHEMU_SCHED): every core runs\n"
		"                              on its own thread at once; serial: one actor (core,\n"
		"                              Tensix thread, dispatch model, NoC, host) runs at a\n"
		"                              time, chosen from the seed at each device access,\n"
		"                              watched store and quantum of 4096 instructions, with\n"
		"                              virtual time: the same seed replays the run exactly,\n"
		"                              and a deadlock is exact\n"
		"  --strategy S                serial mode's choice: random (default, or\n"
		"                              BHEMU_STRATEGY) or pct (random priorities changed at\n"
		"                              d - 1 random points)\n"
		"  --pct-depth D               pct's d, 1 to 64 (default 3)\n"
		"  --switch-every N            random: a point hands over to a random runnable actor\n"
		"                              with probability 1/N (default 64; 1: at every point)\n"
		"  --tensix MODE               who executes the Tensix instructions a TRISC pushes:\n"
		"                              deferred (default, or BHEMU_TENSIX): they wait in the\n"
		"                              thread's FIFO while the TRISC runs on, and the TRISC's\n"
		"                              own host thread executes them after its next device\n"
		"                              access, before it parks, every 4096 instructions and\n"
		"                              when it stops; what would wait (and MOPs) goes to the\n"
		"                              thread's executor. threaded: the executor executes\n"
		"                              every one at once (a host-thread hand-over each).\n"
		"                              --sched serial and --provoke delay/coalesce use threaded\n"
		"  --tile-threads MODE         host threads of a worker tile: per-core (default, or\n"
		"                              BHEMU_TILE_THREADS): each core and Tensix executor its\n"
		"                              own, racing in parallel; one: they share one thread as\n"
		"                              fibers switching where one would park (faster hand-overs\n"
		"                              on hosts with few CPUs; a tile's actors interleave)\n"
		"\n"
		"Before loading the ELF, run writes into low L1 of every tile it loads a block\n"
		"describing the run (0x1000: tile positions, bank counts, host memory) and the\n"
		"DRAM/L1 bank tables (0x2000), as firmware/baremetal/grid.h lays them out.\n"
		"\n"
		"exit status: the program's own exit status (low 8 bits) when it exits; with\n"
		"  --cores or --grid that of the first core, in tile order then listed order,\n"
		"  that exited non-zero (named on stderr with its tile), else 0;\n"
		"  1 host failure; 2 bad usage or ELF rejected; 3 the program faulted (report on\n"
		"  stderr: tile, core, pc, symbol, instruction, address, region, why);\n"
		"  4 --max-instructions reached; 5 deadlock: every running core polls or waits\n"
		"  with nothing left to wake it (report on stderr: per core the loop, the words it\n"
		"  waits on by name and value, or the blocked device access); 6 --timeout reached;\n"
		"  7 the run ended with cores that a core of their tile put in reset (SOFT_RESET_0)\n"
		"  and no core left running to release them (on stderr: which core put which cores\n"
		"  in reset, the value, pc and instruction count of the store);\n"
		"  8 a check stopped a core and no core faulted otherwise (the finding on stderr:\n"
		"  'check NAME: on tile ...', pc, symbol, the other party, why).\n"
		"  Waiting cores park their threads (no host CPU); with --max-instructions they\n"
		"  do not, so deadlocks are then found only by --timeout.\n"
		"\n"
		"bhemu boot boots every Tensix tile of the board with a firmware build, as the host\n"
		"driver does: all cores held, the five ELFs loaded (local-RAM images staged at the\n"
		"profile's scratch), L1[0] = jal to the BRISC firmware, go_messages[0] = INIT, bank\n"
		"tables, logical-to-virtual maps and core_info, then BRISC released on every tile;\n"
		"it waits until every tile reports DONE and prints how many did and how long it took.\n"
		"\n"
		"options of boot:\n"
		"  -f, --firmware DIR|builtin  directory with brisc.elf, ncrisc.elf, trisc0.elf,\n"
		"                              trisc1.elf, trisc2.elf; builtin (default) is the\n"
		"                              reference firmware of this build:\n"
		"                              " BHEMU_REF_FIRMWARE_DIR "\n"
		"  -b, --board BOARD           p150 (default), p100 or grid:CxR, as for run\n"
		"  -p, --profile NAME          base firmware profile (default p100a); values the ELFs\n"
		"                              carry (entries, mailboxes, go_messages,\n"
		"                              __fw_export_* symbols) override it\n"
		"  -P, --show-profile          print the profile used\n"
		"  -i, --idle SECONDS          after booting, keep the chip waiting that long and\n"
		"                              print the process CPU time used meanwhile\n"
		"      --jit MODE              on, off or eager, as for run\n"
		"      --noc MODE, --noc-latency SPEC   the NoC, as for run\n"
		"      --check LIST, --check-mode stop|log, --list-checks  as for run\n"
		"      --provoke, --provoke-rate, --seed  as for run\n"
		"      --trace FILE, --trace-events LIST, --trace-limit N  as for run\n"
		"  -t, --timeout SECONDS       boot timeout (default 2, the host driver's): report\n"
		"                              the stuck tiles and where their cores wait\n"
		"exit status of boot: 0 every tile reached DONE; 1 host failure; 2 bad usage, ELF\n"
		"  rejected, missing firmware file or profile field; 3 a core faulted during boot;\n"
		"  5 deadlock before every tile was DONE; 6 boot timeout (stuck tiles on stderr);\n"
		"  8 a check stopped a core.\n"
		"\n"
		"bhemu smoke boots like boot, then launches an empty kernel (a single ret) on all\n"
		"five processors of every worker tile --launches times and prints launches/s. Fast\n"
		"dispatch (the default) enqueues every launch through the command queue (prefetch\n"
		"and dispatch cores on the board's two fast-dispatch tiles, launch messages in DEV\n"
		"mode, completions on stream 48), finishes, and checks every go signal is DONE and\n"
		"every launch ring's read pointer advanced by the launch count; slow dispatch writes\n"
		"launch messages in HOST mode on every tile and waits for DONE after each launch\n"
		"(read pointer 0); both runs slow, then fast, on the same booted chip.\n"
		"\n"
		"options of smoke: --firmware, --board, --profile, --show-profile, --jit, --check,\n"
		"  --check-mode, --list-checks, --provoke, --provoke-rate, --seed, --trace,\n"
		"  --trace-events, --trace-limit as for boot, and\n"
		"  -n, --launches N            how many launches (default 100)\n"
		"  -d, --dispatch fast|slow|both  how to launch (default fast)\n"
		"  -j, --json                  also print the result as one JSON object\n"
		"  -t, --timeout SECONDS       boot timeout, and the limit for each launch (default 10)\n"
		"exit status of smoke: 0 every launch completed; 1 host failure; 2 bad usage or\n"
		"  firmware rejected; 3 a core faulted or a tile was left in a wrong state; 5\n"
		"  deadlock; 6 timeout (the stuck tiles and where their cores are on stderr); 8 a\n"
		"  check stopped a core.\n");
}

/* A usage error getopt or the caller has already described: point at --help, exit status 2. */
static int usage_error(const char *cmd)
{
	fprintf(stderr, "%s: usage: 'bhemu --help' lists every command and option\n", cmd);
	return EXIT_USAGE;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------------------------------------
 * Option values: one parser per kind, each naming the command and the option in its message.
 */

__attribute__((format(printf, 3, 4), cold))
static int opt_fail(const char *cmd, const char *opt, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: %s ", cmd, opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* A decimal or 0x-hexadecimal whole number, digits only (no sign, no spaces), no overflow. */
static int scan_unsigned(const char *s, uint64_t *out)
{
	int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
	const char *digits = base == 16 ? s + 2 : s;
	if (!*digits)
		return -1;
	for (const char *c = digits; *c; c++)
		if (base == 10 ? !(*c >= '0' && *c <= '9') : !((*c >= '0' && *c <= '9') || ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'f')))
			return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(digits, &end, base);
	if (errno == ERANGE || *end)
		return -1;
	*out = v;
	return 0;
}

/* A whole number in [min, max]. */
static int opt_unsigned(const char *cmd, const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	if (scan_unsigned(arg, &v) != 0 || v < min || v > max)
		return opt_fail(cmd, opt, "needs a whole number from %" PRIu64 " to %" PRIu64 ", not '%s'", min, max, arg);
	*out = v;
	return 0;
}

/* A plain decimal number (no sign, spaces, exponent, inf or nan); -1 when arg is not one. */
static double scan_decimal(const char *arg)
{
	bool digit = false, dot = false, ok = *arg != 0;
	for (const char *c = arg; *c && ok; c++) {
		if (*c >= '0' && *c <= '9')
			digit = true;
		else if (*c == '.' && !dot)
			dot = true;
		else
			ok = false;
	}
	return ok && digit ? strtod(arg, NULL) : -1;
}

/* Seconds: a plain decimal number, positive or (idle) zero. */
#define OPT_SECONDS_MAX 1e7
static int opt_seconds(const char *cmd, const char *opt, const char *arg, bool zero_ok, double *out)
{
	double v = scan_decimal(arg);
	if (!(v >= 0) || (!zero_ok && v == 0) || v > OPT_SECONDS_MAX)
		return opt_fail(cmd, opt, "needs a %snumber of seconds up to %.0f, not '%s'", zero_ok ? "" : "positive ",
				OPT_SECONDS_MAX, arg);
	*out = v;
	return 0;
}

struct opt_choice {
	const char *name;
	int value;
};

/* One of the names of a table ended by a NULL name. */
static int opt_choice(const char *cmd, const char *opt, const char *arg, const struct opt_choice *choices, int *out)
{
	for (const struct opt_choice *c = choices; c->name; c++)
		if (!strcmp(arg, c->name)) {
			*out = c->value;
			return 0;
		}
	char list[128];
	size_t used = 0;
	for (const struct opt_choice *c = choices; c->name && used < sizeof list; c++)
		used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
					 c == choices ? "" : c[1].name ? ", " : " or ", c->name);
	return opt_fail(cmd, opt, "is %s, not '%s'", list, arg);
}

/* Long-only options of every command that opens a device: the detectors. */
enum { OPT_CHECK = 0x100, OPT_CHECK_MODE, OPT_LIST_CHECKS, OPT_HW_BUG };
#define CHECK_OPTS \
	{ "check", required_argument, NULL, OPT_CHECK }, { "check-mode", required_argument, NULL, OPT_CHECK_MODE }, \
	{ "list-checks", no_argument, NULL, OPT_LIST_CHECKS }, { "hw-bug", required_argument, NULL, OPT_HW_BUG }

/* --check LIST -> cfg->checks (bh_check_list_parse). */
static int parse_checks(const char *cmd, const char *list, struct bh_device_config *cfg)
{
	char err[600];
	if (bh_check_list_parse(list, &cfg->checks, err, sizeof err) != 0)
		return opt_fail(cmd, "--check", "%s", err);
	return 0;
}

/* The options of CHECK_OPTS: 1 when opt was one of them (0 when not, -1 on a bad value). */
static int check_option(const char *cmd, int opt, const char *arg, struct bh_device_config *cfg)
{
	static const struct opt_choice modes[] = { { "stop", BH_CHECK_STOP }, { "log", BH_CHECK_LOG }, { NULL, 0 } };
	static const struct opt_choice bugs[] = { { "pack-l1acc-fp16", BH_HW_BUG_PACK_L1ACC_FP16 }, { NULL, 0 } };
	int mode = 0;
	switch (opt) {
	case OPT_CHECK: return parse_checks(cmd, arg, cfg) == 0 ? 1 : -1;
	case OPT_CHECK_MODE:
		if (opt_choice(cmd, "--check-mode", arg, modes, &mode) != 0)
			return -1;
		cfg->check_mode = (enum bh_check_mode)mode;
		return 1;
	case OPT_HW_BUG:
		if (opt_choice(cmd, "--hw-bug", arg, bugs, &mode) != 0)
			return -1;
		cfg->hw_bugs |= (uint32_t)mode;
		return 1;
	default: return 0;
	}
}

/* --list-checks: one line per check, its name, what it catches, whether it is on by default. */
static void list_checks(void)
{
	for (unsigned k = 0; k < BH_CHECK_COUNT; k++)
		printf("%-22s %s%s\n", bh_check_name((enum bh_check)k), bh_check_description((enum bh_check)k),
		       BH_CHECKS_DEFAULT >> k & 1 ? " (default)" : "");
}

/* Log mode: every finding of the run, each report's lines prefixed like a fault's. */
static void print_findings(struct bh_device *dev, enum bh_check_mode mode)
{
	int n = bh_device_findings(dev, NULL, 0);
	if (mode != BH_CHECK_LOG || n <= 0)
		return;
	size_t len = 1u << 20;
	char *buf = malloc(len);
	if (!buf)
		return;
	bh_device_findings(dev, buf, len);
	fprintf(stderr, "bhemu: %d finding%s (--check-mode log):\n", n, n == 1 ? "" : "s");
	for (char *line = buf; *line;) {
		char *nl = strchr(line, '\n');
		int l = nl ? (int)(nl - line) : (int)strlen(line);
		fprintf(stderr, "%s%.*s\n", strncmp(line, "check ", 6) ? "" : "bhemu: ", l, line);
		line += l + (nl != NULL);
	}
	free(buf);
}

/* A run that stopped on a fault: 8 when a check stopped it (stop mode records each finding). */
static int fault_exit_status(struct bh_device *dev, const struct bh_device_config *cfg)
{
	return cfg->check_mode == BH_CHECK_STOP && bh_device_findings(dev, NULL, 0) > 0 ? EXIT_CHECK : EXIT_FAULT;
}

/* ---------------------------------------------------------------------------------------------
 * Provocation options of every command that opens a device: --seed, --provoke, --provoke-rate.
 */

enum { OPT_SEED = 0x110, OPT_PROVOKE, OPT_PROVOKE_RATE, OPT_TRACE, OPT_TRACE_EVENTS, OPT_TRACE_LIMIT, OPT_SCHED,
       OPT_STRATEGY, OPT_PCT_DEPTH, OPT_SWITCH_EVERY, OPT_TENSIX, OPT_TILE_THREADS };
#define PROVOKE_OPTS \
	{ "seed", required_argument, NULL, OPT_SEED }, { "provoke", required_argument, NULL, OPT_PROVOKE }, \
	{ "provoke-rate", required_argument, NULL, OPT_PROVOKE_RATE }, { "trace", required_argument, NULL, OPT_TRACE }, \
	{ "trace-events", required_argument, NULL, OPT_TRACE_EVENTS }, \
	{ "trace-limit", required_argument, NULL, OPT_TRACE_LIMIT }, { "sched", required_argument, NULL, OPT_SCHED }, \
	{ "strategy", required_argument, NULL, OPT_STRATEGY }, { "pct-depth", required_argument, NULL, OPT_PCT_DEPTH }, \
	{ "switch-every", required_argument, NULL, OPT_SWITCH_EVERY }, { "tensix", required_argument, NULL, OPT_TENSIX }, \
	{ "tile-threads", required_argument, NULL, OPT_TILE_THREADS }
#define PROVOKE_CASES case OPT_SEED: case OPT_PROVOKE: case OPT_PROVOKE_RATE: case OPT_TRACE: \
	case OPT_TRACE_EVENTS: case OPT_TRACE_LIMIT: case OPT_SCHED: case OPT_STRATEGY: case OPT_PCT_DEPTH: \
	case OPT_SWITCH_EVERY: case OPT_TENSIX: case OPT_TILE_THREADS

/* --trace FILE, --trace-events LIST, --trace-limit N: the trace open_device starts (and
 * bh_device_close writes). */
static struct bh_trace_config cli_trace;

/* A probability: a plain decimal from 0 to 1. */
static int opt_rate(const char *cmd, const char *opt, const char *arg, double *out)
{
	double v = scan_decimal(arg);
	if (!(v >= 0 && v <= 1))
		return opt_fail(cmd, opt, "needs a probability from 0 to 1 (a plain decimal), not '%s'", arg);
	*out = v;
	return 0;
}

/* One of PROVOKE_OPTS into cfg: 0, or -1 after a message. */
static int parse_provoke_opt(const char *cmd, int opt, const char *arg, struct bh_device_config *cfg)
{
	char err[256];
	double rate = 0;
	switch (opt) {
	case OPT_SEED:
		return opt_unsigned(cmd, "--seed", arg, 1, UINT64_MAX, &cfg->seed);
	case OPT_PROVOKE:
		if (bh_provoke_parse(arg, &cfg->provoke, err, sizeof err) != 0)
			return opt_fail(cmd, "--provoke", "%s", err);
		return 0;
	case OPT_TRACE:
		cli_trace.path = arg;
		return 0;
	case OPT_TRACE_EVENTS:
		if (bh_trace_kinds_parse(arg, &cli_trace.kinds, err, sizeof err) != 0)
			return opt_fail(cmd, "--trace-events", "%s", err);
		return 0;
	case OPT_TRACE_LIMIT:
		return opt_unsigned(cmd, "--trace-limit", arg, 1, 100000000, &cli_trace.max_events);
	case OPT_SCHED: {
		static const struct opt_choice modes[] = {
			{ "threaded", BH_SCHED_THREADED }, { "serial", BH_SCHED_SERIAL }, { NULL, 0 },
		};
		int mode = 0;
		if (opt_choice(cmd, "--sched", arg, modes, &mode) != 0)
			return -1;
		cfg->sched = (enum bh_sched_mode)mode;
		return 0;
	}
	case OPT_STRATEGY: {
		static const struct opt_choice strategies[] = {
			{ "random", BH_STRATEGY_RANDOM }, { "pct", BH_STRATEGY_PCT }, { NULL, 0 },
		};
		int s = 0;
		if (opt_choice(cmd, "--strategy", arg, strategies, &s) != 0)
			return -1;
		cfg->strategy = (enum bh_sched_strategy)s;
		return 0;
	}
	case OPT_PCT_DEPTH: {
		uint64_t d = 0;
		if (opt_unsigned(cmd, "--pct-depth", arg, 1, 64, &d) != 0)
			return -1;
		cfg->pct_depth = (unsigned)d;
		return 0;
	}
	case OPT_TENSIX: {
		static const struct opt_choice modes[] = {
			{ "deferred", BH_TENSIX_DEFERRED }, { "threaded", BH_TENSIX_THREADED }, { NULL, 0 },
		};
		int mode = 0;
		if (opt_choice(cmd, "--tensix", arg, modes, &mode) != 0)
			return -1;
		cfg->tensix = (enum bh_tensix_mode)mode;
		return 0;
	}
	case OPT_TILE_THREADS: {
		static const struct opt_choice modes[] = {
			{ "per-core", BH_TILE_THREADS_PER_CORE }, { "one", BH_TILE_THREADS_ONE }, { NULL, 0 },
		};
		int mode = 0;
		if (opt_choice(cmd, "--tile-threads", arg, modes, &mode) != 0)
			return -1;
		cfg->tile_threads = (enum bh_tile_threads)mode;
		return 0;
	}
	case OPT_SWITCH_EVERY: {
		uint64_t v = 0;
		if (opt_unsigned(cmd, "--switch-every", arg, 1, 1000000, &v) != 0)
			return -1;
		cfg->switch_every = (unsigned)v;
		return 0;
	}
	default:
		if (opt_rate(cmd, "--provoke-rate", arg, &rate) != 0)
			return -1;
		cfg->provoke_rate = rate > 0 ? rate : -1;   /* the config's 0 means the default */
		return 0;
	}
}

/* Open the device of a command; with provocation on, say the seed that reruns it. 0 or an exit
 * status (a malformed BHEMU_PROVOKE, BHEMU_PROVOKE_RATE or BHEMU_SEED was named on stderr). */
static int open_device(const struct bh_device_config *cfg, struct bh_device **dev)
{
	int rc = bh_device_open(cfg, dev);
	if (rc == BH_ERR_ARG)
		return EXIT_USAGE;
	if (rc != BH_OK) {
		fprintf(stderr, "bhemu: cannot create the device (out of memory or threads)\n");
		return EXIT_HOST;
	}
	if (cli_trace.path && (rc = bh_device_trace_start(*dev, &cli_trace)) != BH_OK) {
		if (rc == BH_ERR_ARG)
			fprintf(stderr, "bhemu: --trace: a trace is already on (BHEMU_TRACE)\n");
		bh_device_close(*dev);
		*dev = NULL;
		return rc == BH_ERR_ARG ? EXIT_USAGE : EXIT_HOST;
	}
	uint32_t on = bh_device_provoke(*dev);
	uint64_t points, switches, vt;
	bool serial = bh_device_serial_stats(*dev, &points, &switches, &vt);
	if (on || serial) {
		char kinds[128] = "none";
		if (on)
			bh_provoke_format(on, kinds, sizeof kinds);
		uint64_t seed = bh_device_seed(*dev);
		fprintf(stderr, "bhemu: seed %" PRIu64 " (rerun with --seed %" PRIu64 "; provoke %s%s%s)\n", seed, seed, kinds,
			serial ? "; sched " : "", serial ? bh_device_sched(*dev) : "");
	}
	return 0;
}

/* --timeout bounds the whole command. Phases without a deadline of their own (reading the ELFs,
 * deriving the profile, loading) run under this watchdog: SIGALRM writes a prepared message and
 * exits with the timeout status. The phases that wait on cores disarm it and keep the deadline
 * themselves, so that they can report where every core is. */
static char watchdog_msg[256];
static size_t watchdog_len;

static void watchdog_expired(void)
{
	if (write(STDERR_FILENO, watchdog_msg, watchdog_len) < 0) {
		/* nothing more to say */
	}
	_exit(EXIT_TIMEOUT);
}

static void watchdog_signal(int sig)
{
	(void)sig;
	watchdog_expired();
}

static void watchdog_arm(const char *cmd, double seconds, const char *phase)
{
	int n = snprintf(watchdog_msg, sizeof watchdog_msg, "%s: timeout: --timeout %g reached %s\n", cmd, seconds, phase);
	watchdog_len = n < 0 ? 0 : (size_t)n < sizeof watchdog_msg ? (size_t)n : sizeof watchdog_msg - 1;
	struct sigaction sa = { .sa_handler = watchdog_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { .it_value = { (time_t)seconds, (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6) } };
	if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

static void watchdog_disarm(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
}

#define RUN_MAX_CORES 5
/* With --grid, how many cores are named one by one in a summary before "and N more". */
#define RUN_LIST_MAX 8

/* What `bhemu run` was asked to do. */
struct run_plan {
	unsigned ncores;
	enum bh_core_id cores[RUN_MAX_CORES];   /* in command-line order */
	bool multi;                             /* --cores: per-core entries, per-core reporting */
	bool grid;                              /* --grid: every tile, not just tile 0 */
	struct bh_device_config cfg;            /* --board */
	uint64_t max;                           /* per core; 0 = no limit */
	double timeout;                         /* seconds; 0 = none */
	bool stats;
	const struct bh_profile *profile;       /* --profile: its mailbox layout is registered */
	const char *path;
};

/* One run: the plan on a device. Core (tile t, plan core k) is slot t * ncores + k. */
struct run {
	const struct run_plan *plan;
	struct bh_device *dev;
	unsigned ntiles;                        /* tiles whose cores run */
	unsigned nslots;
	uint32_t entry[RUN_MAX_CORES];
	struct bh_core_result *res;             /* nslots */
	double t0;                              /* when the command started: --timeout counts from it */
};

static unsigned slot_tile(const struct run *r, unsigned s)
{
	return s / r->plan->ncores;
}

static enum bh_core_id slot_core(const struct run *r, unsigned s)
{
	return r->plan->cores[s % r->plan->ncores];
}

/* "ncrisc", or with --grid "tile 17 (4,3) ncrisc". */
static const char *slot_name(const struct run *r, unsigned s, char *buf, size_t len)
{
	if (!r->plan->grid)
		return bh_core_name(slot_core(r, s));
	unsigned x = 0, y = 0;
	bh_device_tile_xy(r->dev, slot_tile(r, s), &x, &y);
	snprintf(buf, len, "tile %u (%u,%u) %s", slot_tile(r, s), x, y, bh_core_name(slot_core(r, s)));
	return buf;
}

static const struct opt_choice core_choices[] = {
	{ "brisc", BH_CORE_BRISC }, { "ncrisc", BH_CORE_NCRISC }, { "trisc0", BH_CORE_TRISC0 },
	{ "trisc1", BH_CORE_TRISC1 }, { "trisc2", BH_CORE_TRISC2 }, { NULL, 0 },
};

static int core_from_name(const char *opt, const char *name, enum bh_core_id *out)
{
	int core = 0;
	if (opt_choice("bhemu run", opt, name, core_choices, &core) != 0)
		return -1;
	*out = (enum bh_core_id)core;
	return 0;
}

/* "brisc,ncrisc,trisc0" -> plan->cores; every core at most once. */
static int parse_core_list(const char *list, struct run_plan *plan)
{
	char buf[128];
	if (strlen(list) >= sizeof buf) {
		return opt_fail("bhemu run", "--cores", "list too long: '%s'", list);
	}
	strcpy(buf, list);
	plan->ncores = 0;
	char *save = NULL;
	for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		enum bh_core_id core;
		if (core_from_name("--cores", name, &core) != 0)
			return -1;
		for (unsigned k = 0; k < plan->ncores; k++)
			if (plan->cores[k] == core)
				return opt_fail("bhemu run", "--cores", "lists %s twice", name);
		plan->cores[plan->ncores++] = core;
	}
	if (plan->ncores == 0 || list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,"))
		return opt_fail("bhemu run", "--cores", "needs a comma-separated list of cores, not '%s'", list);
	return 0;
}

/* "p150", "p100" or "grid:CxR" -> cfg's board (the rest of cfg, e.g. --jit, is kept). */
static int parse_board(const char *cmd, const char *s, struct bh_device_config *cfg)
{
	if (strncmp(s, "grid:", 5) == 0) {
		char buf[32];
		const char *x = strchr(s + 5, 'x');
		uint64_t cols, rows;
		if (!x || (size_t)(x - (s + 5)) >= sizeof buf)
			return opt_fail(cmd, "--board", "grid:CxR needs 1 <= C <= 14 and 1 <= R <= 10, not '%s'", s);
		memcpy(buf, s + 5, (size_t)(x - (s + 5)));
		buf[x - (s + 5)] = 0;
		if (scan_unsigned(buf, &cols) != 0 || scan_unsigned(x + 1, &rows) != 0 || cols < 1 || cols > 14 ||
		    rows < 1 || rows > 10)
			return opt_fail(cmd, "--board", "grid:CxR needs 1 <= C <= 14 and 1 <= R <= 10, not '%s'", s);
		cfg->board = BH_BOARD_GRID;
		cfg->grid_cols = (unsigned)cols;
		cfg->grid_rows = (unsigned)rows;
		return 0;
	}
	enum bh_board board;
	if (bh_board_parse(s, &board) != 0 || board == BH_BOARD_GRID)
		return opt_fail(cmd, "--board", "is p150, p100 or grid:CxR, not '%s'", s);
	cfg->board = board;
	cfg->grid_cols = cfg->grid_rows = 0;
	return 0;
}

/* The run-information block and bank tables of firmware/baremetal/grid.h, into every tile of the
 * run. Written before the ELF, so that an ELF segment in low L1 wins over them. */
static int run_write_grid_info(struct run *r)
{
	struct bare_grid_info info;
	uint8_t tables[BARE_BANK_TABLES_END - BARE_BANK_TABLES_ADDR];
	unsigned ndram = bh_dram_num_banks(r->dev), nl1 = bh_num_l1_banks(r->dev);
	int tables_len = bh_bank_tables(r->dev, tables, sizeof tables, ndram, nl1);
	void *host_ptr;
	uint64_t host_size = 0, host_base = 0;
	unsigned x, y;

	if (tables_len < 0 || r->ntiles > BARE_GRID_MAX_TILES) {
		fprintf(stderr, "bhemu: %u tiles, %u DRAM and %u L1 banks do not fit the run-information block\n",
			r->ntiles, ndram, nl1);
		return -1;
	}
	memset(&info, 0, sizeof info);
	info.magic = BARE_GRID_MAGIC;
	info.num_tiles = r->ntiles;
	info.num_dram_banks = ndram;
	info.num_l1_banks = nl1;
	info.bank_tables = BARE_BANK_TABLES_ADDR;
	if (bh_pcie_xy(r->dev, &x, &y) == BH_OK)
		info.pcie_xy = (y << 6) | x;
	if (bh_host_mem(r->dev, &host_ptr, &host_size, &host_base) == BH_OK) {
		uint64_t local = host_base & ~(1ull << 60);
		info.host_mem_lo = (uint32_t)local;
		info.host_mem_hi = (uint32_t)(local >> 32);
		info.host_mem_size = host_size > UINT32_MAX ? UINT32_MAX : (uint32_t)host_size;
	}
	for (unsigned t = 0; t < r->ntiles; t++) {
		bh_device_tile_xy(r->dev, t, &x, &y);
		info.tile_xy[t] = (uint16_t)((y << 6) | x);
	}
	for (unsigned t = 0; t < r->ntiles; t++) {
		if (bh_l1_write(r->dev, t, BARE_GRID_INFO_ADDR, &info, sizeof info) != BH_OK ||
		    bh_l1_write(r->dev, t, BARE_BANK_TABLES_ADDR, tables, (size_t)tables_len) != BH_OK) {
			fprintf(stderr, "bhemu: cannot write the run-information block of tile %u\n", t);
			return -1;
		}
	}
	return 0;
}

/* Loads the ELF for every core of the plan on every tile of the run and finds each core's
 * entry. Loading the same L1 bytes once per core is harmless before any core starts, and gives
 * each core the symbol table its fault reports need. */
static int run_load(struct run *r)
{
	const struct run_plan *plan = r->plan;
	char err[512];
	for (unsigned t = 0; t < r->ntiles; t++) {
		for (unsigned k = 0; k < plan->ncores; k++) {
			enum bh_core_id core = plan->cores[k];
			uint32_t entry;
			if (bh_load_elf(r->dev, t, core, plan->path, NULL, &entry, err, sizeof err) != BH_OK) {
				fprintf(stderr, "bhemu: %s\n", err);
				return -1;
			}
			if (plan->multi) {
				char sym[32];
				snprintf(sym, sizeof sym, "_start_%s", bh_core_name(core));
				bh_core_symbol_lookup(r->dev, t, core, sym, &entry);   /* absent: keep the ELF entry */
			}
			if (t == 0)
				r->entry[k] = entry;
		}
	}
	return 0;
}

/* A core of the tile stored SOFT_RESET_0 and put this one in reset. While a core of the run still
 * runs, this one may be released again (races.md #1's fix: hold a core, load its new firmware,
 * release it), so only the end of the run makes it final. */
static bool reset_by_core(const struct bh_core_result *res)
{
	return res->status == BH_RUN_IN_RESET && res->reset_by >= 0;
}

/* A fault or the instruction limit ends the run at once. */
static bool core_ended_run(const struct bh_core_result *res)
{
	return res->status == BH_RUN_FAULTED || res->status == BH_RUN_LIMIT;
}

/* Waits until every core has left BH_RUN_RUNNING (exited, or held in reset by a core with no core
 * left to release it) or one of them faulted or hit its limit. bh_core_wait watches one core, so a
 * fault elsewhere is seen within RUN_POLL_MS. Returns BH_OK, or the error that ended bh_core_wait
 * (the cores still running then stay so). A core that has exited stays so: it is not asked again. */
#define RUN_POLL_MS 20
static int run_wait(struct run *r)
{
	const struct run_plan *plan = r->plan;
	double deadline = plan->timeout > 0 ? r->t0 + plan->timeout : 0;
	for (;;) {
		int running = -1;
		bool ended = false;
		/* Every core is asked, also after one that ended the run: what the report says of each
		 * is its state at that point. */
		for (unsigned s = 0; s < r->nslots; s++) {
			if (r->res[s].status == BH_RUN_EXITED)
				continue;
			bh_core_result(r->dev, slot_tile(r, s), slot_core(r, s), &r->res[s]);
			ended |= core_ended_run(&r->res[s]);
			if (r->res[s].status == BH_RUN_RUNNING && running < 0)
				running = (int)s;
		}
		if (ended)
			return BH_OK;
		if (running < 0)
			return BH_OK;
		int ms = r->nslots == 1 ? -1 : RUN_POLL_MS;
		if (deadline > 0) {
			double left = deadline - now_s();
			if (left <= 0)
				return BH_ERR_TIMEOUT;
			if (ms < 0 || left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		unsigned s = (unsigned)running;
		int rc = bh_core_wait(r->dev, slot_tile(r, s), slot_core(r, s), ms, &r->res[s]);
		if (rc != BH_OK && rc != BH_ERR_TIMEOUT) {
			bool stopped = false;
			for (unsigned k = 0; k < r->nslots; k++) {
				bh_core_result(r->dev, slot_tile(r, k), slot_core(r, k), &r->res[k]);
				stopped |= core_ended_run(&r->res[k]) || reset_by_core(&r->res[k]);
			}
			/* A core that faulted (or hit its limit) ended the run, or one is held in reset;
			 * the others waiting on it since is what follows (serial scheduling sees that
			 * deadlock at once). */
			return rc == BH_ERR_DEADLOCK && stopped ? BH_OK : rc;
		}
	}
}

static const char *run_status_name(enum bh_run_status st)
{
	switch (st) {
	case BH_RUN_IN_RESET: return "in reset";   /* never started, or put there by a core */
	case BH_RUN_RUNNING: return "running";
	case BH_RUN_EXITED: return "exited";
	case BH_RUN_FAULTED: return "faulted";
	case BH_RUN_LIMIT: return "stopped at its instruction limit";
	}
	return "in an unknown state";
}

static bool exited_nonzero(const struct bh_core_result *res)
{
	return res->status == BH_RUN_EXITED && (res->exit_status & 0xff) != 0;
}

/* A line of a report, built whole and written with one call: the cores still running print to
 * stdout meanwhile, and must not land in the middle of it. */
struct report_line {
	char buf[4096];
	size_t len;
};

__attribute__((format(printf, 2, 3)))
static void line_add(struct report_line *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len = l->len + (size_t)n < sizeof l->buf ? l->len + (size_t)n : sizeof l->buf - 1;
}

static void line_flush(struct report_line *l)
{
	fputs(l->buf, stderr);
	l->len = 0;
	l->buf[0] = 0;
}

/* One core of the "at that point" line. */
static void run_report_core(struct report_line *l, const struct run *r, unsigned s, bool first)
{
	char name[64];
	const struct bh_core_result *res = &r->res[s];
	line_add(l, "%s %s %s", first ? "" : ",", slot_name(r, s, name, sizeof name), run_status_name(res->status));
	if (res->status == BH_RUN_EXITED)
		line_add(l, " (%d)", res->exit_status & 0xff);
	if (res->status == BH_RUN_IN_RESET && !reset_by_core(res))
		line_add(l, " (not started)");
	else if (res->status != BH_RUN_RUNNING)   /* a running core's count is not current */
		line_add(l, " after %" PRIu64 " instructions", res->instructions);
}

/* After a fault, a limit or a failed wait: where every core was, to tell a victim from a cause.
 * With --grid: how many cores were in each state, then the ones that did not run or exit 0. */
static void run_report_others(const struct run *r)
{
	struct report_line l = { .len = 0 };
	line_add(&l, "bhemu: at that point:");
	if (!r->plan->grid) {
		for (unsigned s = 0; s < r->nslots; s++)
			run_report_core(&l, r, s, s == 0);
		line_add(&l, "\n");
		line_flush(&l);
		return;
	}
	unsigned count[BH_RUN_LIMIT + 1] = { 0 }, nonzero = 0;
	for (unsigned s = 0; s < r->nslots; s++) {
		count[r->res[s].status <= BH_RUN_LIMIT ? r->res[s].status : BH_RUN_IN_RESET]++;
		nonzero += exited_nonzero(&r->res[s]);
	}
	bool first = true;
	for (unsigned st = 0; st <= BH_RUN_LIMIT; st++) {
		if (count[st]) {
			line_add(&l, "%s %u %s", first ? "" : ",", count[st], run_status_name((enum bh_run_status)st));
			if (st == BH_RUN_EXITED && nonzero)
				line_add(&l, " (%u with a non-zero status)", nonzero);
			first = false;
		}
	}
	line_add(&l, " of %u cores on %u tiles\n", r->nslots, r->ntiles);
	line_flush(&l);
	unsigned listed = 0, more = 0;
	for (unsigned s = 0; s < r->nslots; s++) {
		const struct bh_core_result *res = &r->res[s];
		if (res->status == BH_RUN_RUNNING || (res->status == BH_RUN_EXITED && !exited_nonzero(res)))
			continue;
		if (listed == RUN_LIST_MAX) {
			more++;
			continue;
		}
		if (listed == 0)
			line_add(&l, "bhemu:");
		run_report_core(&l, r, s, listed == 0);
		listed++;
	}
	if (more)
		line_add(&l, ", and %u more", more);
	if (listed) {
		line_add(&l, "\n");
		line_flush(&l);
	}
}

/* Waiting ended (wait_rc, e.g. the device deadlocked) before every core stopped: the status of
 * the first core that exited non-zero, since that is what the program reported, else 1. */
static int run_status_unfinished(const struct run *r, int wait_rc)
{
	char name[64];
	fprintf(stderr, "bhemu: waiting for the cores failed (error %d) while some still ran\n", wait_rc);
	run_report_others(r);
	for (unsigned s = 0; s < r->nslots; s++) {
		if (exited_nonzero(&r->res[s])) {
			fprintf(stderr, "bhemu: %s exited with status %d\n", slot_name(r, s, name, sizeof name),
				r->res[s].exit_status & 0xff);
			return r->res[s].exit_status & 0xff;
		}
	}
	return EXIT_HOST;
}

/* Every faulted core's report (with --grid the first RUN_LIST_MAX, then how many more). */
static bool run_report_faults(const struct run *r)
{
	unsigned faults = 0;
	for (unsigned s = 0; s < r->nslots; s++) {
		if (r->res[s].status != BH_RUN_FAULTED)
			continue;
		if (!r->plan->grid || faults < RUN_LIST_MAX)
			fprintf(stderr, "bhemu: %s\n", r->res[s].report);
		faults++;
	}
	if (r->plan->grid && faults > RUN_LIST_MAX)
		fprintf(stderr, "bhemu: %u more cores faulted (reports not shown)\n", faults - RUN_LIST_MAX);
	return faults > 0;
}

/* Every faulted core was stopped by a check, none by a fault. */
static bool run_only_checks_stopped(const struct run *r)
{
	for (unsigned s = 0; s < r->nslots; s++)
		if (r->res[s].status == BH_RUN_FAULTED && strncmp(r->res[s].report, "check ", 6) != 0)
			return false;
	return true;
}

/* Every core of the run that a core's SOFT_RESET_0 store put in reset: "bhemu: brisc put in reset by
 * brisc: SOFT_RESET_0 = 0x00047800 (holds brisc, ...) stored at pc ... after N instructions". */
static bool run_report_resets(const struct run *r)
{
	char name[64];
	unsigned n = 0;
	for (unsigned s = 0; s < r->nslots; s++) {
		if (!reset_by_core(&r->res[s]))
			continue;
		if (!r->plan->grid || n < RUN_LIST_MAX)
			fprintf(stderr, "bhemu: %s %s\n", slot_name(r, s, name, sizeof name), r->res[s].report);
		n++;
	}
	if (r->plan->grid && n > RUN_LIST_MAX)
		fprintf(stderr, "bhemu: %u more cores were put in reset\n", n - RUN_LIST_MAX);
	return n > 0;
}

/* The exit status of the run (see usage()); reports faults, resets and limits on stderr. wait_rc is
 * what run_wait returned. */
static int run_status(const struct run *r, int wait_rc)
{
	const struct run_plan *plan = r->plan;
	char name[64];
	int rc = run_report_faults(r) ? EXIT_FAULT : -1;
	if (rc == EXIT_FAULT && run_only_checks_stopped(r))
		rc = EXIT_CHECK;
	if (run_report_resets(r) && rc < 0)
		rc = EXIT_RESET;
	for (unsigned s = 0; s < r->nslots && rc < 0; s++) {
		if (r->res[s].status == BH_RUN_LIMIT) {
			if (plan->multi || plan->grid)
				fprintf(stderr, "bhemu: %s stopped after %" PRIu64 " instructions (--max-instructions %" PRIu64 ")\n",
					slot_name(r, s, name, sizeof name), r->res[s].instructions, plan->max);
			else
				fprintf(stderr, "bhemu: stopped after %" PRIu64 " instructions (--max-instructions %" PRIu64 ")\n",
					r->res[s].instructions, plan->max);
			rc = EXIT_LIMIT;
		}
	}
	if (rc >= 0) {
		if (r->nslots > 1 && (plan->multi || plan->grid))
			run_report_others(r);
		return rc;
	}
	for (unsigned s = 0; s < r->nslots; s++) {
		if (r->res[s].status != BH_RUN_EXITED)
			return run_status_unfinished(r, wait_rc);
	}
	/* Every core exited: the first non-zero status in tile order, then listed order, else 0. */
	int chosen = -1;
	unsigned named = 0, more = 0;
	for (unsigned s = 0; s < r->nslots; s++) {
		if (!exited_nonzero(&r->res[s]))
			continue;
		if (chosen < 0)
			chosen = (int)s;
		if (r->nslots == 1)
			break;
		if (plan->grid && named == RUN_LIST_MAX) {
			more++;
			continue;
		}
		fprintf(stderr, "bhemu: %s exited with status %d%s\n", slot_name(r, s, name, sizeof name),
			r->res[s].exit_status & 0xff, (int)s == chosen ? "" : " (not the status of the run)");
		named++;
	}
	if (more)
		fprintf(stderr, "bhemu: %u more cores exited non-zero\n", more);
	return chosen < 0 ? 0 : r->res[chosen].exit_status & 0xff;
}

/* Deadlock or watchdog: the device-wide picture of who waits on what. */
static int run_report_stuck(const struct run *r, int wait_rc, double secs)
{
	size_t len = (r->plan->grid ? 1024 : 64) * 1024;
	char *buf = malloc(len);
	if (wait_rc == BH_ERR_DEADLOCK)
		fprintf(stderr, "bhemu: deadlock after %.3f s: every running core waits and nothing can wake one\n", secs);
	else
		fprintf(stderr, "bhemu: timeout: still running after %.3f s (--timeout %g)\n", secs, r->plan->timeout);
	if (buf && bh_device_report(r->dev, buf, len) == BH_OK)
		fputs(buf, stderr);
	free(buf);
	return wait_rc == BH_ERR_DEADLOCK ? EXIT_DEADLOCK : EXIT_TIMEOUT;
}

/* Totals, and with --cores one line per core (with --grid summed over the tiles). */
static void run_stats(const struct run *r, double secs)
{
	const struct run_plan *plan = r->plan;
	uint64_t total = 0;
	for (unsigned k = 0; k < plan->ncores; k++) {
		uint64_t n = 0;
		for (unsigned t = 0; t < r->ntiles; t++)
			n += r->res[t * plan->ncores + k].instructions;
		total += n;
		if (plan->multi)
			fprintf(stderr, "stats: core=%s instructions=%" PRIu64 " seconds=%.6f mips=%.2f\n",
				bh_core_name(plan->cores[k]), n, secs, secs > 0 ? (double)n / secs / 1e6 : 0.0);
	}
	fprintf(stderr, "stats: instructions=%" PRIu64 " seconds=%.6f mips=%.2f\n", total, secs,
		secs > 0 ? (double)total / secs / 1e6 : 0.0);
	struct bh_jit_stats js = { 0, 0, 0, 0 };
	for (unsigned sl = 0; sl < r->nslots; sl++) {
		struct bh_jit_stats one;
		bh_core_jit_stats(r->dev, slot_tile(r, sl), slot_core(r, sl), &one);
		js.regions += one.regions;
		js.flushes += one.flushes;
		js.shared += one.shared;
		js.chained += one.chained;
	}
	fprintf(stderr, "stats: jit_regions=%" PRIu64 " jit_flushes=%" PRIu64 " jit_shared=%" PRIu64 " jit_chained=%" PRIu64 "\n",
		js.regions, js.flushes, js.shared, js.chained);
	struct bh_tensix_stats ts;
	bh_device_tensix_stats(r->dev, &ts);
	if (ts.by_trisc + ts.by_executor)
		fprintf(stderr, "stats: tensix=%s words=%" PRIu64 " by_trisc=%" PRIu64 " by_executor=%" PRIu64
			" handovers=%" PRIu64 "\n", ts.deferred ? "deferred" : "threaded", ts.by_trisc + ts.by_executor,
			ts.by_trisc, ts.by_executor, ts.handovers);
	uint64_t points, switches, vt;
	if (bh_device_serial_stats(r->dev, &points, &switches, &vt)) {
		/* What a replay must reproduce: the schedule's length, the virtual time, and the L1 of
		 * every tile that ran (FNV-1a, 64 bits). */
		uint64_t h = 0xcbf29ce484222325ull;
		static uint8_t l1[65536];
		for (unsigned t = 0; t < r->ntiles; t++)
			for (uint32_t a = 0; bh_l1_read(r->dev, t, a, l1, sizeof l1) == BH_OK; a += sizeof l1)
				for (size_t k = 0; k < sizeof l1; k++)
					h = (h ^ l1[k]) * 0x100000001b3ull;
		fprintf(stderr, "stats: sched=serial points=%" PRIu64 " switches=%" PRIu64 " virtual_ns=%" PRIu64
			" l1_fnv=0x%016" PRIx64 "\n", points, switches, vt, h);
	}
	if (!bh_device_provoke(r->dev))
		return;
	struct bh_provoke_stats ps;
	bh_device_provoke_stats(r->dev, &ps);
	fprintf(stderr, "stats: provoke sync_points=%" PRIu64 " delays=%" PRIu64 " coalesced=%" PRIu64 " skews=%" PRIu64
		" reordered=%" PRIu64 " stale_kept=%" PRIu64 " l0_stale=%" PRIu64 " delay_seconds=%.6f\n", ps.sync_points,
		ps.delays, ps.coalesced, ps.skews, ps.reordered, ps.stale_kept, ps.l0_stale, (double)ps.delay_ns * 1e-9);
}

/* Opens the device, writes the run information, loads the ELF; 0 or an exit status. */
static int run_prepare(struct run *r)
{
	const struct run_plan *plan = r->plan;
	int rc = open_device(&plan->cfg, &r->dev);
	if (rc != 0)
		return rc;
	if (plan->profile && bh_device_use_profile(r->dev, plan->profile) != BH_OK) {
		fprintf(stderr, "bhemu run: profile %s does not fit this device\n", plan->profile->name);
		return EXIT_USAGE;
	}
	r->ntiles = plan->grid ? bh_device_num_tiles(r->dev) : 1;
	r->nslots = r->ntiles * plan->ncores;
	r->res = calloc(r->nslots, sizeof *r->res);
	if (!r->res)
		return EXIT_HOST;
	for (unsigned s = 0; s < r->nslots; s++)
		r->res[s].reset_by = -1;   /* not asked yet: in reset by nobody */
	if (run_write_grid_info(r) != 0)
		return EXIT_HOST;
	if (run_load(r) != 0)
		return EXIT_USAGE;
	for (unsigned s = 0; s < r->nslots; s++) {
		bh_core_enable_host_calls(r->dev, slot_tile(r, s), slot_core(r, s), true);
		bh_core_set_max_instructions(r->dev, slot_tile(r, s), slot_core(r, s), plan->max);
	}
	return 0;
}

static int run_plan_execute(const struct run_plan *plan, double t_cmd)
{
	struct run r = { .plan = plan, .t0 = t_cmd };
	int rc = run_prepare(&r);
	if (rc != 0) {
		watchdog_disarm();   /* the command failed in time: only closing the device is left */
		free(r.res);
		bh_device_close(r.dev);
		return rc;
	}

	watchdog_disarm();   /* from here run_wait keeps the deadline and reports where the cores are */
	double t0 = now_s();
	if (plan->timeout > 0 && t0 - t_cmd >= plan->timeout)
		watchdog_expired();
	for (unsigned s = 0; s < r.nslots; s++)
		bh_core_start(r.dev, slot_tile(&r, s), slot_core(&r, s), r.entry[s % plan->ncores]);
	int wait_rc = run_wait(&r);
	double secs = now_s() - t0;
	fflush(stdout);

	if (wait_rc == BH_ERR_DEADLOCK || wait_rc == BH_ERR_TIMEOUT)
		rc = run_report_stuck(&r, wait_rc, secs);
	else
		rc = run_status(&r, wait_rc);
	if (plan->stats)
		run_stats(&r, secs);
	print_findings(r.dev, plan->cfg.check_mode);
	free(r.res);
	bh_device_close(r.dev);   /* stops the cores still running after a fault or limit */
	return rc;
}

/* --jit on|off|eager, for every command that opens a device. */
static int parse_jit(const char *cmd, const char *arg, enum bh_jit *out)
{
	static const struct opt_choice modes[] = {
		{ "on", BH_JIT_ON }, { "off", BH_JIT_OFF }, { "eager", BH_JIT_EAGER }, { NULL, 0 },
	};
	int mode = 0;
	if (opt_choice(cmd, "--jit", arg, modes, &mode) != 0)
		return -1;
	*out = (enum bh_jit)mode;
	return 0;
}

/* --noc sync|async and --noc-latency SPEC, for every command that opens a device. */
static int parse_noc(const char *cmd, int opt, const char *arg, struct bh_device_config *cfg)
{
	static const struct opt_choice modes[] = { { "sync", BH_NOC_SYNC }, { "async", BH_NOC_ASYNC }, { NULL, 0 } };
	if (opt == 'N') {
		int mode = 0;
		if (opt_choice(cmd, "--noc", arg, modes, &mode) != 0)
			return -1;
		cfg->noc = (enum bh_noc_mode)mode;
		return 0;
	}
	char err[200];
	if (bh_noc_latency_check(arg, err, sizeof err) != BH_OK) {
		fprintf(stderr, "bhemu %s: --noc-latency: %s\n", cmd, err);
		return -1;
	}
	cfg->noc_latency = arg;
	return 0;
}

/* The shipped profile called name, or NULL with the known ones listed on stderr. */
static const struct bh_profile *profile_named(const char *cmd, const char *name)
{
	const struct bh_profile *p = bh_profile_find(name);
	if (!p) {
		fprintf(stderr, "%s: unknown profile '%s' (known:", cmd, name);
		for (const char *const *n = bh_profile_names(); *n; n++)
			fprintf(stderr, " %s", *n);
		fprintf(stderr, ")\n");
	}
	return p;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "core", required_argument, NULL, 'c' },
		{ "cores", required_argument, NULL, 'C' },
		{ "board", required_argument, NULL, 'b' },
		{ "grid", no_argument, NULL, 'g' },
		{ "max-instructions", required_argument, NULL, 'n' },
		{ "stats", no_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "jit", required_argument, NULL, 'j' },
		{ "noc", required_argument, NULL, 'N' },
		{ "noc-latency", required_argument, NULL, 'L' },
		{ "profile", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		CHECK_OPTS,
		PROVOKE_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct run_plan plan = { .ncores = 1, .cores = { BH_CORE_BRISC }, .cfg = { .board = BH_BOARD_P150 } };
	double t_cmd = now_s();
	bool have_core = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+c:C:b:gn:st:j:p:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (core_from_name("--core", optarg, &plan.cores[0]) != 0)
				return EXIT_USAGE;
			have_core = true;
			break;
		case 'C':
			if (parse_core_list(optarg, &plan) != 0)
				return EXIT_USAGE;
			plan.multi = true;
			break;
		case 'b':
			if (parse_board(argv[0], optarg, &plan.cfg) != 0)
				return EXIT_USAGE;
			break;
		case 'g': plan.grid = true; break;
		case 'n':
			if (opt_unsigned(argv[0], "--max-instructions", optarg, 1, UINT64_MAX, &plan.max) != 0)
				return EXIT_USAGE;
			break;
		case 's': plan.stats = true; break;
		case 'p':
			if (!(plan.profile = profile_named(argv[0], optarg)))
				return EXIT_USAGE;
			break;
		case 'j':
			if (parse_jit(argv[0], optarg, &plan.cfg.jit) != 0)
				return EXIT_USAGE;
			break;
		case 'N':
		case 'L':
			if (parse_noc(argv[0], opt, optarg, &plan.cfg) != 0)
				return EXIT_USAGE;
			break;
		case 't':
			if (opt_seconds(argv[0], "--timeout", optarg, false, &plan.timeout) != 0)
				return EXIT_USAGE;
			break;
		case 'h': usage(stdout); return 0;
		case OPT_LIST_CHECKS: list_checks(); return 0;
		PROVOKE_CASES:
			if (parse_provoke_opt(argv[0], opt, optarg, &plan.cfg) != 0)
				return EXIT_USAGE;
			break;
		default: {
			int c = check_option(argv[0], opt, optarg, &plan.cfg);
			if (c < 0)
				return EXIT_USAGE;
			if (c == 0)
				return usage_error(argv[0]);   /* getopt named the option */
		}
		}
	}
	if (have_core && plan.multi) {
		fprintf(stderr, "bhemu run: --core and --cores are mutually exclusive\n");
		return EXIT_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bhemu run: expected exactly one PROGRAM.elf, got %d arguments\n", argc - optind);
		return usage_error(argv[0]);
	}
	plan.path = argv[optind];
	if (plan.timeout > 0)
		watchdog_arm(argv[0], plan.timeout, "while loading");
	return run_plan_execute(&plan, t_cmd);
}

/* ---------------------------------------------------------------------------------------------
 * bhemu boot
 */

#ifndef BHEMU_REF_FIRMWARE_DIR
#define BHEMU_REF_FIRMWARE_DIR "firmware/ref"
#endif

static double cpu_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int boot_exit_status(struct bh_device *dev, const struct bh_device_config *cfg, int rc,
			    const struct bh_boot_result *res)
{
	switch (rc) {
	case BH_OK: return 0;
	case BH_ERR_TIMEOUT: return EXIT_TIMEOUT;
	case BH_ERR_DEADLOCK: return EXIT_DEADLOCK;
	case BH_ERR_SYS: return EXIT_HOST;
	default: return res->faulted ? fault_exit_status(dev, cfg) : EXIT_USAGE;
	}
}

static int boot_execute(const struct bh_device_config *cfg, const struct bh_profile *prof, const char *fw,
			double timeout, double idle)
{
	struct bh_device *dev;
	int open_rc = open_device(cfg, &dev);
	if (open_rc != 0)
		return open_rc;
	struct bh_boot_options opt = { .timeout_s = timeout, .set_reset_pcs = true };
	struct bh_boot_result res;
	int rc = bh_boot(dev, prof, fw, &opt, &res);
	if (res.message[0])
		fprintf(stderr, "%s%s", res.message, res.message[strlen(res.message) - 1] == '\n' ? "" : "\n");
	if (res.report)
		fputs(res.report, stderr);
	printf("boot: %u of %u tiles DONE in %.3f s (board %s, firmware %s, profile %s)\n", res.done, res.tiles,
	       res.seconds, bh_board_name(bh_device_board(dev)), fw, prof->name);
	fflush(stdout);
	if (rc == BH_OK && idle > 0) {
		double c0 = cpu_now_s(), w0 = now_s();
		struct timespec ts = { (time_t)idle, (long)((idle - (double)(time_t)idle) * 1e9) };
		while (nanosleep(&ts, &ts) != 0)
			;
		printf("idle: %.3f s waiting, process CPU %.3f s\n", now_s() - w0, cpu_now_s() - c0);
	}
	free(res.report);
	print_findings(dev, cfg->check_mode);
	int status = boot_exit_status(dev, cfg, rc, &res);
	bh_device_close(dev);
	return status;
}

/* Options shared by boot and smoke: which board, which firmware, which profile. */
struct boot_args {
	struct run_plan plan;
	const char *fw;
	struct bh_profile prof;
	double idle, timeout;
	bool show, json;
	const char *board_name;     /* as given */
	uint64_t launches;
	unsigned dispatch;          /* bit 0 slow, bit 1 fast */
};

enum { SMOKE_SLOW = 1, SMOKE_FAST = 2 };
#define BOOT_DEFAULT_TIMEOUT 2.0    /* bh_boot's own default, the host driver's */
#define SMOKE_DEFAULT_TIMEOUT 10.0

static int parse_boot_args(int argc, char **argv, bool smoke, struct boot_args *a)
{
	/* Options of both, then boot's own (--idle), then smoke's own. */
#define BOOT_COMMON_OPTS \
		{ "firmware", required_argument, NULL, 'f' }, { "board", required_argument, NULL, 'b' }, \
		{ "profile", required_argument, NULL, 'p' }, { "show-profile", no_argument, NULL, 'P' }, \
		{ "timeout", required_argument, NULL, 't' }, { "jit", required_argument, NULL, 'J' }, \
		{ "noc", required_argument, NULL, 'N' }, { "noc-latency", required_argument, NULL, 'L' }, \
		{ "help", no_argument, NULL, 'h' }, CHECK_OPTS, PROVOKE_OPTS
	static const struct option boot_opts[] = {
		BOOT_COMMON_OPTS, { "idle", required_argument, NULL, 'i' }, { NULL, 0, NULL, 0 },
	};
	static const struct option smoke_opts[] = {
		BOOT_COMMON_OPTS, { "launches", required_argument, NULL, 'n' }, { "json", no_argument, NULL, 'j' },
		{ "dispatch", required_argument, NULL, 'd' }, { NULL, 0, NULL, 0 },
	};
#undef BOOT_COMMON_OPTS
	static const struct opt_choice dispatch_choices[] = {
		{ "fast", SMOKE_FAST }, { "slow", SMOKE_SLOW }, { "both", SMOKE_SLOW | SMOKE_FAST }, { NULL, 0 },
	};
	const char *base_name = "p100a", *cmd = argv[0];
	int opt, dispatch = 0;

	*a = (struct boot_args){ .plan = { .cfg = { .board = BH_BOARD_P150 } }, .fw = "builtin", .board_name = "p150",
				 .launches = 100,
				 .dispatch = SMOKE_FAST };
	optind = 1;
	while ((opt = getopt_long(argc, argv, smoke ? "+f:b:p:Pn:jt:d:h" : "+f:b:p:Pi:t:h", smoke ? smoke_opts : boot_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'f': a->fw = optarg; break;
		case 'b':
			if (parse_board(cmd, optarg, &a->plan.cfg) != 0)
				return EXIT_USAGE;
			a->board_name = optarg;
			break;
		case 'p': base_name = optarg; break;
		case 'P': a->show = true; break;
		case 'J':
			if (parse_jit(cmd, optarg, &a->plan.cfg.jit) != 0)
				return EXIT_USAGE;
			break;
		case 'N':
		case 'L':
			if (parse_noc(cmd, opt, optarg, &a->plan.cfg) != 0)
				return EXIT_USAGE;
			break;
		case 'i':
			if (opt_seconds(cmd, "--idle", optarg, true, &a->idle) != 0)
				return EXIT_USAGE;
			break;
		case 'n':
			if (opt_unsigned(cmd, "--launches", optarg, 1, UINT32_MAX, &a->launches) != 0)
				return EXIT_USAGE;
			break;
		case 'j': a->json = true; break;
		case 't':
			if (opt_seconds(cmd, "--timeout", optarg, false, &a->timeout) != 0)
				return EXIT_USAGE;
			break;
		case 'd':
			if (opt_choice(cmd, "--dispatch", optarg, dispatch_choices, &dispatch) != 0)
				return EXIT_USAGE;
			a->dispatch = (unsigned)dispatch;
			break;
		case 'h': usage(stdout); return -1;
		case OPT_LIST_CHECKS: list_checks(); return -1;
		PROVOKE_CASES:
			if (parse_provoke_opt(cmd, opt, optarg, &a->plan.cfg) != 0)
				return EXIT_USAGE;
			break;
		default: {
			int c = check_option(cmd, opt, optarg, &a->plan.cfg);
			if (c < 0)
				return EXIT_USAGE;
			if (c == 0)
				return usage_error(cmd);   /* getopt named the option */
		}
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return EXIT_USAGE;
	}
	if (!strcmp(a->fw, "builtin"))
		a->fw = BHEMU_REF_FIRMWARE_DIR;
	const struct bh_profile *base = profile_named(argv[0], base_name);
	if (!base)
		return EXIT_USAGE;
	char err[1024];
	watchdog_arm(cmd, a->timeout > 0 ? a->timeout : smoke ? SMOKE_DEFAULT_TIMEOUT : BOOT_DEFAULT_TIMEOUT,
		     "while reading the firmware");
	int derived = bh_profile_derive(a->fw, base, &a->prof, err, sizeof err);
	watchdog_disarm();   /* bh_boot keeps the boot deadline, each launch its own */
	if (derived != BH_OK) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return EXIT_USAGE;
	}
	if (a->show) {
		char buf[8192];
		bh_profile_format(&a->prof, buf, sizeof buf);
		fputs(buf, stdout);
	}
	return 0;
}

static int cmd_boot(int argc, char **argv)
{
	struct boot_args a;
	int rc = parse_boot_args(argc, argv, false, &a);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	return boot_execute(&a.plan.cfg, &a.prof, a.fw, a.timeout, a.idle);
}

/* Exit status of a failed launch. */
static int launch_exit_status(int rc)
{
	switch (rc) {
	case BH_ERR_TIMEOUT: return EXIT_TIMEOUT;
	case BH_ERR_DEADLOCK: return EXIT_DEADLOCK;
	case BH_ERR_FAULT: return EXIT_FAULT;
	case BH_ERR_SYS: return EXIT_HOST;
	default: return EXIT_USAGE;
	}
}

/* bhemu smoke: boot, then launch an empty kernel (`ret`) on all five processors of every tile
 * --launches times by slow dispatch. After each launch every go signal must be DONE again and the
 * launch ring's read pointer where the protocol puts it (0 in HOST mode, launch.md 5.9). */
/* A tile's go signal and launch_msg_rd_ptr must be DONE and `rd` after a launch. The firmware
 * answers the dispatcher before it advances rd (launch.md 5.9): allow it a moment. */
static int smoke_check_tile(struct bh_device *dev, const struct boot_args *a, unsigned t, uint32_t rd_want,
			    uint64_t launch)
{
	uint32_t go = 0, rd = 0;
	for (int i = 0; i < 1000; i++) {
		bh_l1_read(dev, t, a->prof.mailbox_base + a->prof.go_messages_base, &go, 4);
		bh_l1_read(dev, t, a->prof.mailbox_base + a->prof.launch_msg_rd_ptr, &rd, 4);
		if (go >> 24 == 0 && rd == rd_want)
			return 0;
		bh_device_pause(dev, 100000);
	}
	fprintf(stderr, "bhemu smoke: launch %llu: tile %u has go signal 0x%02x and launch_msg_rd_ptr %u after DONE "
		"(expected 0x00 and %u)\n", (unsigned long long)launch, t, go >> 24, rd, rd_want);
	return EXIT_FAULT;
}

/* One smoke run by slow or fast dispatch on a booted device; prints launches/s. */
static int smoke_run(struct bh_device *dev, const struct boot_args *a, bool fast, double boot_s)
{
	static const uint32_t ret = 0x00008067u;
	struct bh_program *prog = NULL;
	struct bh_cq *cq = NULL;
	char err[1024];
	int status = 0, rc;
	if (fast && (rc = bh_cq_open(dev, &(struct bh_cq_config){ .timeout_s = a->timeout > 0 ? a->timeout : 10 }, &cq,
				     err, sizeof err)) != BH_OK) {
		fprintf(stderr, "bhemu smoke: cannot open the command queue: %s\n", err);
		return launch_exit_status(rc);
	}
	if (bh_program_create(dev, &prog) != BH_OK)
		status = EXIT_HOST;
	struct bh_core_range r[4];
	unsigned nr = fast ? bh_device_worker_ranges(dev, r) : bh_device_all_tiles(dev, r);
	bool *on = calloc(bh_device_num_tiles(dev), sizeof *on);
	unsigned tiles = 0, cols, rows;
	bh_device_grid_size(dev, &cols, &rows);
	for (unsigned i = 0; i < nr && on; i++)
		for (unsigned y = r[i].y0; y <= r[i].y1; y++)
			for (unsigned x = r[i].x0; x <= r[i].x1; x++)
				tiles += !on[y * cols + x], on[y * cols + x] = true;
	for (unsigned k = 0; k < 5 && status == 0; k++)
		if (bh_program_add_kernel_code(prog, (enum bh_core_id)k, &ret, 1, r, nr) < 0) {
			fprintf(stderr, "bhemu smoke: %s\n", bh_program_error(prog));
			status = EXIT_HOST;
		}
	double t0 = now_s(), last = t0;
	uint64_t done = 0;
	struct bh_launch_options lopt = { .timeout_s = a->timeout > 0 ? a->timeout : 10 };
	for (; done < a->launches && status == 0; done++) {
		rc = fast ? bh_cq_launch(cq, prog, NULL) : bh_program_launch(prog, &lopt, NULL);
		if (rc != BH_OK) {
			fprintf(stderr, "bhemu smoke: launch %llu failed:\n%s%s\n", (unsigned long long)done + 1,
				bh_program_error(prog), fast ? bh_cq_error(cq) : "");
			status = launch_exit_status(rc);
			break;
		}
		for (unsigned t = 0; !fast && t < bh_device_num_tiles(dev) && status == 0; t++)
			status = smoke_check_tile(dev, a, t, 0, done + 1);
		double now = now_s();
		if (now - last >= 1.0) {
			fprintf(stderr, "smoke: %llu/%llu launches\n", (unsigned long long)done + 1,
				(unsigned long long)a->launches);
			last = now;
		}
	}
	if (fast && status == 0 && (rc = bh_cq_finish(cq)) != BH_OK) {
		fprintf(stderr, "bhemu smoke: %s\n", bh_cq_error(cq));
		status = launch_exit_status(rc == BH_ERR_CQ ? BH_ERR_FAULT : rc);
	}
	double secs = now_s() - t0;
	for (unsigned t = 0; fast && on && t < bh_device_num_tiles(dev) && status == 0; t++)
		if (on[t])
			status = smoke_check_tile(dev, a, t, (uint32_t)(done % a->prof.launch_count), done);
	if (status == 0) {
		printf("smoke: %s dispatch: %llu launches of empty kernels on %u tiles (%u cores) in %.3f s: %.1f "
		       "launches/s\n", fast ? "fast" : "slow", (unsigned long long)done, tiles, 5 * tiles, secs,
		       (double)done / secs);
		uint64_t points, switches, vt;
		if (bh_device_serial_stats(dev, &points, &switches, &vt))
			printf("smoke: sched=serial points=%llu virtual_ns=%llu\n", (unsigned long long)points,
			       (unsigned long long)vt);
		if (a->json)
			printf("{\"dispatch\": \"%s\", \"launches\": %llu, \"tiles\": %u, \"cores\": %u, \"seconds\": %.6f, "
			       "\"launches_per_s\": %.2f, \"boot_s\": %.6f, \"board\": \"%s\"}\n", fast ? "fast" : "slow",
			       (unsigned long long)done, tiles, 5 * tiles, secs, (double)done / secs, boot_s,
			       bh_board_name(bh_device_board(dev)));
	}
	free(on);
	bh_program_destroy(prog);
	bh_cq_close(cq);
	return status;
}

/* bhemu smoke: boot, then launch an empty kernel (`ret`) on all five processors of every worker
 * tile --launches times, by slow and/or fast dispatch. */
static int smoke_execute(const struct boot_args *a)
{
	struct bh_device *dev;
	int open_rc = open_device(&a->plan.cfg, &dev);
	if (open_rc != 0)
		return open_rc;
	struct bh_core_range wr[4];
	if ((a->dispatch & SMOKE_FAST) && bh_device_worker_ranges(dev, wr) == 0) {
		fprintf(stderr, "bhemu smoke: board %s has no worker tiles: fast dispatch takes the last column of rows 0-1 "
			"for its prefetch and dispatch cores (use a larger grid or --dispatch slow)\n", a->board_name);
		bh_device_close(dev);
		return EXIT_USAGE;
	}
	struct bh_boot_options bopt = { .timeout_s = a->timeout, .set_reset_pcs = true };
	struct bh_boot_result res;
	int rc = bh_boot(dev, &a->prof, a->fw, &bopt, &res);
	if (res.message[0])
		fprintf(stderr, "%s%s", res.message, res.message[strlen(res.message) - 1] == '\n' ? "" : "\n");
	if (res.report)
		fputs(res.report, stderr);
	free(res.report);
	int status = rc == BH_OK ? 0 : boot_exit_status(dev, &a->plan.cfg, rc, &res);
	if (status == 0)
		printf("boot: %u of %u tiles DONE in %.3f s (board %s, firmware %s, profile %s)\n", res.done, res.tiles,
		       res.seconds, bh_board_name(bh_device_board(dev)), a->fw, a->prof.name);
	if (status == 0 && (a->dispatch & SMOKE_SLOW))
		status = smoke_run(dev, a, false, res.seconds);
	if (status == 0 && (a->dispatch & SMOKE_FAST))
		status = smoke_run(dev, a, true, res.seconds);
	print_findings(dev, a->plan.cfg.check_mode);
	if (status == EXIT_FAULT)
		status = fault_exit_status(dev, &a->plan.cfg);
	bh_device_close(dev);
	return status;
}

static int cmd_smoke(int argc, char **argv)
{
	struct boot_args a;
	int rc = parse_boot_args(argc, argv, true, &a);
	if (rc != 0)
		return rc < 0 ? 0 : rc;
	return smoke_execute(&a);
}

/* bhemu soc-descriptor [--board p150|p100]: the soc_descriptor.yaml tt-umd reads beside
 * libbhemu_ttsim.so, on stdout. */
static int cmd_soc_descriptor(int argc, char **argv)
{
	const char *board = "p150";
	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "--board") || !strcmp(argv[i], "-b")) && i + 1 < argc)
			board = argv[++i];
		else if (!strncmp(argv[i], "--board=", 8))
			board = argv[i] + 8;
		else {
			fprintf(stderr, "bhemu soc-descriptor: unknown argument '%s' (usage: bhemu soc-descriptor "
				"[--board p150|p100])\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	enum bh_board b;
	int n = bh_board_parse(board, &b) == 0 ? bh_soc_descriptor(b, NULL, 0) : BH_ERR_ARG;
	if (n < 0) {
		fprintf(stderr, "bhemu soc-descriptor: board '%s': p150 or p100\n", board);
		return EXIT_USAGE;
	}
	char *buf = malloc((size_t)n + 1);
	if (!buf)
		return EXIT_HOST;
	bh_soc_descriptor(b, buf, (size_t)n + 1);
	fputs(buf, stdout);
	free(buf);
	return 0;
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
	if (argc >= 2 && !strcmp(argv[1], "boot")) {
		argv[1] = "bhemu boot";
		return cmd_boot(argc - 1, argv + 1);
	}
	if (argc >= 2 && !strcmp(argv[1], "hunt")) {
		argv[1] = "bhemu hunt";
		return bh_cli_hunt(argc - 1, argv + 1);
	}
	if (argc >= 2 && !strcmp(argv[1], "smoke")) {
		argv[1] = "bhemu smoke";
		return cmd_smoke(argc - 1, argv + 1);
	}
	if (argc >= 2 && !strcmp(argv[1], "soc-descriptor"))
		return cmd_soc_descriptor(argc - 1, argv + 1);
	if (argc < 2)
		fprintf(stderr, "bhemu: missing command\n");
	else
		fprintf(stderr, "bhemu: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
