/* bench_ttsim: what a host pays per call through the libttsim ABI of libbhemu_ttsim.so (what
 * tt-metal / tt-umd go through), next to the same operation through bhemu's own API on a device
 * of the same board in the same process.
 *
 *  - reg_read: 4-byte register reads per second (SOFT_RESET_0 of a tile) through a 2 MiB TLB
 *    window (libttsim_pci_mem_rd_bytes); reference: bh_reg_read.
 *  - l1_write: MB/s of 1 MiB writes into a tile's L1 through a 2 MiB TLB window; reference:
 *    bh_l1_write.
 *  - clock: libttsim_clock(1) calls per second with every BRISC of the P150 released into a poll
 *    loop (parked: the idle state of booted firmware); reference: sched_yield() calls per second
 *    (the one system call clock makes). The process's CPU time over the wall time of the loop is
 *    in the notes: about 1.0 means only the caller's thread burnt CPU. */
#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "benchlib.h"

#define MAX_ROWS 4
#define SOFT_RESET_0 0xFFB121B0u
#define MB2 (2u << 20)
#define TLB_CFG 0x1FC00000u

struct options {
	struct benchlib_common c;
	const char *lib;
};

static struct {
	void (*init)(void), (*exit)(void);
	uint32_t (*cfg_rd)(uint32_t, uint32_t);
	void (*mem_rd)(uint64_t, void *, uint32_t);
	void (*mem_wr)(uint64_t, const void *, uint32_t);
	void (*clock)(uint32_t);
	uint64_t bar0;
} sim;

static bool sim_open(const char *path, char *err, size_t errlen)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		benchlib_set_err(err, errlen, "dlopen %s: %s", path, dlerror());
		return false;
	}
	sim.init = (void (*)(void))dlsym(h, "libttsim_init");
	sim.exit = (void (*)(void))dlsym(h, "libttsim_exit");
	sim.cfg_rd = (uint32_t (*)(uint32_t, uint32_t))dlsym(h, "libttsim_pci_config_rd32");
	sim.mem_rd = (void (*)(uint64_t, void *, uint32_t))dlsym(h, "libttsim_pci_mem_rd_bytes");
	sim.mem_wr = (void (*)(uint64_t, const void *, uint32_t))dlsym(h, "libttsim_pci_mem_wr_bytes");
	sim.clock = (void (*)(uint32_t))dlsym(h, "libttsim_clock");
	if (!sim.init || !sim.exit || !sim.cfg_rd || !sim.mem_rd || !sim.mem_wr || !sim.clock) {
		benchlib_set_err(err, errlen, "%s lacks a libttsim symbol", path);
		return false;
	}
	setenv("BHEMU_TTSIM_BOARD", "p150", 1);
	sim.init();
	sim.bar0 = ((uint64_t)sim.cfg_rd(0, 0x14) << 32 | sim.cfg_rd(0, 0x10)) & ~15ull;
	return true;
}

/* 2 MiB TLB i aimed at unicast (x, y), window base addr (tt-umd's Blackhole layout). */
static void tlb(unsigned i, unsigned x, unsigned y, uint32_t addr)
{
	uint32_t w[3] = { addr >> 21, x << 11 | y << 17, 0 };
	for (unsigned k = 0; k < 3; k++)
		sim.mem_wr(sim.bar0 + TLB_CFG + 12 * i + 4 * k, &w[k], 4);
}

static void measure_reg_read(struct bh_device *dev, double secs, struct benchlib_row *r)
{
	uint32_t v = 0;
	uint64_t n = 0;
	tlb(0, 1, 2, SOFT_RESET_0 & ~(MB2 - 1));
	uint64_t at = sim.bar0 + (SOFT_RESET_0 & (MB2 - 1));
	double t0 = benchlib_now(), t;
	do {
		for (unsigned k = 0; k < 1024; k++)
			sim.mem_rd(at, &v, 4);
		n += 1024;
	} while ((t = benchlib_now() - t0) < secs);
	r->bhemu = (double)n / t;
	if (v != 0x47800u)
		benchlib_row_fail(r, "SOFT_RESET_0 read 0x%x through the TLB, not 0x47800", v);
	n = 0;
	t0 = benchlib_now();
	do {
		for (unsigned k = 0; k < 1024; k++)
			bh_reg_read(dev, 0, SOFT_RESET_0, &v);
		n += 1024;
	} while ((t = benchlib_now() - t0) < secs);
	r->ref = (double)n / t;
}

static void measure_l1_write(struct bh_device *dev, double secs, struct benchlib_row *r)
{
	const uint32_t len = 1u << 20;
	uint8_t *buf = calloc(1, len);
	uint64_t n = 0;
	if (!buf) {
		benchlib_row_fail(r, "out of memory");
		return;
	}
	tlb(1, 2, 2, 0);
	double t0 = benchlib_now(), t;
	do {
		buf[n & 1023]++;
		sim.mem_wr(sim.bar0 + MB2, buf, len);
		n++;
	} while ((t = benchlib_now() - t0) < secs);
	r->bhemu = (double)n * len / t / 1e6;
	n = 0;
	t0 = benchlib_now();
	do {
		buf[n & 1023]++;
		bh_l1_write(dev, 1, 0, buf, len);
		n++;
	} while ((t = benchlib_now() - t0) < secs);
	r->ref = (double)n * len / t / 1e6;
	free(buf);
}

/* Every BRISC of the P150 spins on an L1 word the host never sets (parked by the emulator). */
static void park_all(void)
{
	/* 0x10000: li t0, 0x30000; loop: fence; lw t1, 0(t0); beqz t1, loop; then spin. */
	const uint32_t code[] = { 0x000302b7u, 0x0ff0000fu, 0x0002a303u, 0xfe030ce3u, 0x0000006fu };
	const uint32_t jal0 = 0x0001006fu;   /* jal x0, 0x10000 from address 0 */
	const unsigned xs[14] = { 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16 };
	uint32_t hold = 0x47800u, go = 0x47000u, zero = 0;
	for (unsigned y = 2; y <= 11; y++)
		for (unsigned c = 0; c < 14; c++) {
			tlb(2, xs[c], y, 0);
			tlb(3, xs[c], y, SOFT_RESET_0 & ~(MB2 - 1));
			sim.mem_wr(sim.bar0 + 3 * MB2 + (SOFT_RESET_0 & (MB2 - 1)), &hold, 4);
			sim.mem_wr(sim.bar0 + 2 * MB2 + 0x10000, code, sizeof code);
			sim.mem_wr(sim.bar0 + 2 * MB2 + 0x30000, &zero, 4);
			sim.mem_wr(sim.bar0 + 2 * MB2, &jal0, 4);
			sim.mem_wr(sim.bar0 + 3 * MB2 + (SOFT_RESET_0 & (MB2 - 1)), &go, 4);
		}
}

static void measure_clock(double secs, struct benchlib_row *r)
{
	park_all();
	/* Let the 140 cores reach their poll loops and park (sleeping, so they get the CPUs; while
	 * they run, each clock's yield hands the CPU to them). */
	struct timespec settle = { 1, 0 };
	nanosleep(&settle, NULL);
	uint64_t n = 0;
	double t0 = benchlib_now(), c0 = benchlib_process_cpu(), t;
	do {
		for (unsigned k = 0; k < 1024; k++)
			sim.clock(1);
		n += 1024;
	} while ((t = benchlib_now() - t0) < secs);
	double cpu = benchlib_process_cpu() - c0;
	r->bhemu = (double)n / t;
	snprintf(r->diag, sizeof r->diag, "clock(1) with 140 BRISCs parked: process CPU %.2f s over %.2f s wall "
		 "(%.2f CPUs; 1.0 = the caller only)", cpu, t, cpu / t);
	snprintf(r->extra, sizeof r->extra, ", \"process_cpus\": %.3f", cpu / t);
	n = 0;
	t0 = benchlib_now();
	do {
		for (unsigned k = 0; k < 1024; k++)
			sched_yield();
		n += 1024;
	} while ((t = benchlib_now() - t0) < secs);
	r->ref = (double)n / t;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_ttsim [--quick] [--json FILE] [--lib PATH]\n"
		   "Host-side cost of the libttsim ABI of libbhemu_ttsim.so against bhemu's own API, same run.\n");
}

int main(int argc, char **argv)
{
	benchlib_set_program("bench_ttsim");
	struct options opt = { .lib = BENCH_TTSIM_LIB };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return BENCHLIB_EXIT_OK;
		} else if (benchlib_common_option(argc, argv, &i, &opt.c, 0)) {
			continue;
		} else if (!strcmp(argv[i], "--lib")) {
			opt.lib = benchlib_option_value(argc, argv, &i);
		} else {
			fprintf(stderr, "bench_ttsim: unknown argument %s (see --help)\n", argv[i]);
			return BENCHLIB_EXIT_USAGE;
		}
	}
	FILE *out = opt.c.json_path && !strcmp(opt.c.json_path, "-") ? stderr : stdout;
	double secs = opt.c.quick ? 0.3 : 2.0;
	struct benchlib_row rows[MAX_ROWS];
	struct benchlib_host_load load;
	int n = 0;
	struct benchlib_row *rd = benchlib_row_new(rows, &n, "reg_read", "read/s");
	struct benchlib_row *wr = benchlib_row_new(rows, &n, "l1_write", "MB/s");
	struct benchlib_row *ck = benchlib_row_new(rows, &n, "clock", "call/s");
	snprintf(rd->name, sizeof rd->name, "4-byte register reads, TLB");
	rd->ref_what = "bh_reg_read";
	snprintf(wr->name, sizeof wr->name, "L1 writes of 1 MiB, 2 MiB TLB");
	wr->ref_what = "bh_l1_write";
	snprintf(ck->name, sizeof ck->name, "libttsim_clock(1), idle P150");
	ck->ref_what = "sched_yield()";
	benchlib_host_begin(&load);
	char err[512];
	struct bh_device *dev = NULL;
	struct bh_device_config cfg = { .board = BH_BOARD_P150 };
	if (!sim_open(opt.lib, err, sizeof err)) {
		for (int k = 0; k < n; k++)
			benchlib_row_fail(&rows[k], "%s", err);
	} else if (bh_device_open(&cfg, &dev) != BH_OK) {
		for (int k = 0; k < n; k++)
			benchlib_row_fail(&rows[k], "bh_device_open failed");
	} else {
		measure_reg_read(dev, secs, rd);
		measure_l1_write(dev, secs, wr);
		bh_device_close(dev);
		measure_clock(secs, ck);
		sim.exit();
	}
	char host_line[64];
	snprintf(host_line, sizeof host_line, "host: %ld CPUs", sysconf(_SC_NPROCESSORS_ONLN));
	struct benchlib_end e = { .host_line = host_line, .ref_head = "bhemu API", .with_ref_is = true,
				  .json_path = opt.c.json_path, .quick = opt.c.quick, .check_bars = opt.c.check_bars,
				  .repeat = 1, .json_head = "" };
	return benchlib_end_run(out, &e, &load, rows, n);
}
