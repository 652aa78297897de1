/* bhemu command-line interface. */
#include <getopt.h>
#include <inttypes.h>
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
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bhemu run [options] PROGRAM.elf\n"
		"       bhemu --help | --version\n"
		"\n"
		"Runs a bare-metal RV32 program on one core of an emulated Blackhole Tensix tile\n"
		"(tile 0). Host calls use the RISC-V Linux numbers, so the same ELF runs under\n"
		"qemu-riscv32: ecall a7=93 exits with status a0; a7=64 writes a2 bytes at a1 to\n"
		"fd a0 (1 stdout, 2 stderr). Any other ecall is a fault.\n"
		"\n"
		"options of run:\n"
		"  -c, --core NAME             brisc (default), ncrisc, trisc0, trisc1 or trisc2\n"
		"  -n, --max-instructions N    stop after N instructions (exit status 4)\n"
		"  -s, --stats                 print 'stats: instructions=N seconds=S mips=M' to stderr\n"
		"  -h, --help                  this text\n"
		"\n"
		"exit status: the program's own exit status (low 8 bits) when it exits;\n"
		"  1 host failure; 2 bad usage or ELF rejected; 3 the program faulted (report on\n"
		"  stderr: tile, core, pc, symbol, instruction, address, region, why);\n"
		"  4 --max-instructions reached.\n");
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

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "core", required_argument, NULL, 'c' },
		{ "max-instructions", required_argument, NULL, 'n' },
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int core = BH_CORE_BRISC, opt;
	uint64_t max = 0;
	int stats = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+c:n:sh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			core = bh_core_parse(optarg);
			if (core < 0) {
				fprintf(stderr, "bhemu run: unknown core '%s' (brisc, ncrisc, trisc0, trisc1, trisc2)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			if (parse_u64(optarg, &max) || max == 0) {
				fprintf(stderr, "bhemu run: --max-instructions needs a positive integer, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's': stats = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "bhemu run: expected exactly one PROGRAM.elf\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *path = argv[optind];

	struct bh_device *dev;
	if (bh_device_open(NULL, &dev) != BH_OK) {
		fprintf(stderr, "bhemu: cannot create the device (out of memory or threads)\n");
		return EXIT_HOST;
	}
	char err[512];
	uint32_t entry;
	if (bh_load_elf(dev, 0, core, path, NULL, &entry, err, sizeof err) != BH_OK) {
		fprintf(stderr, "bhemu: %s\n", err);
		bh_device_close(dev);
		return EXIT_USAGE;
	}
	bh_core_enable_host_calls(dev, 0, core, true);
	bh_core_set_max_instructions(dev, 0, core, max);

	double t0 = now_s();
	bh_core_start(dev, 0, core, entry);
	struct bh_core_result *res = malloc(sizeof *res);
	if (!res) {
		bh_device_close(dev);
		return EXIT_HOST;
	}
	bh_core_wait(dev, 0, core, -1, res);
	double secs = now_s() - t0;
	fflush(stdout);

	int rc;
	switch (res->status) {
	case BH_RUN_EXITED: rc = res->exit_status & 0xff; break;
	case BH_RUN_FAULTED:
		fprintf(stderr, "bhemu: %s\n", res->report);
		rc = EXIT_FAULT;
		break;
	case BH_RUN_LIMIT:
		fprintf(stderr, "bhemu: stopped after %" PRIu64 " instructions (--max-instructions %" PRIu64 ")\n",
			res->instructions, max);
		rc = EXIT_LIMIT;
		break;
	default:
		fprintf(stderr, "bhemu: core stopped unexpectedly\n");
		rc = EXIT_HOST;
		break;
	}
	if (stats)
		fprintf(stderr, "stats: instructions=%" PRIu64 " seconds=%.6f mips=%.2f\n", res->instructions, secs,
			secs > 0 ? (double)res->instructions / secs / 1e6 : 0.0);
	free(res);
	bh_device_close(dev);
	return rc;
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
