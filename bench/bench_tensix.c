/* bench_tensix: how fast bhemu's Tensix coprocessor threads run control-plane instructions and
 * hand work to each other, each against host threads doing the same in the same run.
 *
 * Runs bench/guest/tensix_bench.c in-process (a fresh device per run, bench_guest.h):
 *   1. ADDDMAREG streams pushed one store at a time by 1, 2 and 3 TRISCs at once, timed until
 *      every thread drained them: instructions/s per thread, against producer/consumer pairs of
 *      host threads joined by a ring of the FIFO's depth (tensix_native.h).
 *   2. The same streams expanded from MOPs (10000 per push): the executor alone, against host
 *      threads expanding and decoding the same words.
 *   3. SEMPOST/SEMWAIT ping-pong between Tensix threads 0 and 1 (played from MOPs and REPLAY):
 *      ns per hand-off, against two host threads handing a token through POSIX semaphores.
 *   4. bench_sync's CB ping-pong through a 1-page CB (cb_pingpong.c, bench_cb.h) with its native
 *      reference, for the cost of a hand-off between RISC-V cores next to the Tensix one. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "bench_cb.h"
#include "bench_guest.h"
#include "benchlib.h"
#include "guest/tensix_bench.h"
#include "tensix_native.h"

#ifndef BENCH_TENSIX_ELF
#define BENCH_TENSIX_ELF ""
#endif
#ifndef BENCH_SYNC_PINGPONG_ELF
#define BENCH_SYNC_PINGPONG_ELF ""
#endif
#ifndef BENCH_COMPUTE_ELF
#define BENCH_COMPUTE_ELF ""
#endif

_Static_assert(sizeof(struct tensix_bench_params) == 7 * 4, "tensix_bench_params: 32-bit words only");

#define MAX_ROWS 24
#define MAX_REPEAT BENCH_CB_MAX_REPEAT
#define TRISCS 3

/* Which measurements run (--only). */
enum {
	M_PUSHED = 1 << 0,
	M_MOP = 1 << 1,
	M_HANDOFF = 1 << 2,
	M_CB = 1 << 3,
	M_ELTWISE = 1 << 4,
	M_MATMUL = 1 << 5,
	M_EXP = 1 << 6,
	M_ADD1 = 1 << 7,
	M_ADD1_GRID = 1 << 8,
	M_DATA = M_ELTWISE | M_MATMUL,
	M_SFPU = M_EXP | M_ADD1 | M_ADD1_GRID,
	M_ALL = (1 << 9) - 1,
};

struct options {
	struct benchlib_common c;   /* --json, --quick, --check-bars, --repeat */
	uint32_t pushed;          /* instructions per thread, pushed one by one */
	uint32_t mop;             /* instructions per thread, from MOPs */
	uint32_t rounds;          /* ping-pong rounds (two hand-offs each) */
	uint32_t pages;           /* CB ping-pong pages */
	uint32_t tiles;           /* data-plane tiles per run */
	unsigned only;
	const char *tensix_elf;
	const char *pingpong_elf;
	const char *compute_elf;
};

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [options]\n"
		"\n"
		"Measures bhemu's Tensix threads, each against a native reference of host threads\n"
		"measured in the same run, and prints a table (and optionally JSON):\n"
		"  pushed     ADDDMAREG instructions/s per Tensix thread, pushed one store at a time\n"
		"             by 1, 2 and 3 TRISCs at once and drained (tensix_sync), vs. producer/\n"
		"             consumer host threads joined by a %u-word ring\n"
		"  mop        the same instructions expanded from MOPs (%u per push) vs. host threads\n"
		"             expanding and decoding the same words\n"
		"  handoff    ns per SEMPOST -> SEMWAIT hand-off between Tensix threads 0 and 1 vs. two\n"
		"             host threads handing a token through POSIX semaphores (futex)\n"
		"  cb         bench_sync's CB ping-pong BRISC -> NCRISC through a 1-page CB vs. its SPSC\n"
		"             ring of host threads (a RISC-V core hand-off, for comparison)\n"
		"  data       32x32 BF16 tiles/s through the data plane: unpack -> ELWADD -> pack and a\n"
		"             32x32x32 matmul (HiFi4, FP32 Dst), by the compute library's kernel on the\n"
		"             three TRISCs, vs. one host thread doing the same arithmetic in C\n"
		"  sfpu       the same for the vector unit: exp over Dst, add1 (x + 1) per tile and\n"
		"             add1 on 140 Tensix tiles at once (aggregate tiles/s)\n"
		"Each figure is the best of --repeat runs, bhemu and native interleaved; a bhemu run's\n"
		"time includes starting the cores (well under 1%% of it at the default counts).\n"
		"\n"
		"options:\n"
		"  --quick           a few seconds: smaller counts, one run each\n"
		"  --repeat N        runs per measurement, best counts (default 3)\n"
		"  --pushed N        instructions per thread, pushed (default 1000000)\n"
		"  --mop N           instructions per thread, from MOPs (default 20000000; a multiple\n"
		"                    of %u)\n"
		"  --rounds N        ping-pong rounds (default 100000; a multiple of %u)\n"
		"  --pages N         CB ping-pong pages (default 100000)\n"
		"  --tiles N         data-plane tiles per run (default 20000)\n"
		"  --only LIST       comma-separated subset of pushed,mop,handoff,cb,data,sfpu (or of\n"
		"                    data's eltwise,matmul and sfpu's exp,add1,add1-grid)\n"
		"  --check-bars      exit 1 when a bar is missed (default: only reported)\n"
		"  --tensix-elf F, --pingpong-elf F\n"
		"                    guest programs (defaults: those of this build)\n"
		"  --json FILE       also write the results as JSON to FILE (- for stdout; the table\n"
		"                    then goes to stderr)\n"
		"  --help            this text\n"
		"\n"
		"exit status: 0 every measurement ran and every guest and native run checked its\n"
		"result; 1 one failed (or, with --check-bars, missed its bar); 2 bad usage.\n",
		argv0, 32u, TENSIX_BENCH_MOP_INSNS, TENSIX_BENCH_MOP_INSNS, TENSIX_BENCH_MOP_INSNS);
}

/* ---- One measurement: the guest and its native reference, interleaved ------------------------- */

static bool tensix_patch(struct bh_device *dev, const char *elf, void *ctx, char *err, size_t errlen)
{
	const struct tensix_bench_params *p = ctx;
	uint32_t addr;

	if (!guest_symbol(dev, 0, BH_CORE_BRISC, elf, TENSIX_BENCH_PARAMS_SYMBOL, &addr, err, errlen))
		return false;
	bh_l1_write(dev, 0, addr, p, sizeof *p);   /* little-endian host, like the guest */
	return true;
}

struct native_case {
	enum tensix_bench_mode mode;
	unsigned threads;
	uint32_t count;
	enum bh_tile_threads tile_threads;   /* bhemu's run (bh_device_config.tile_threads) */
};

static double native_run(const struct native_case *c, char *err, size_t errlen)
{
	switch (c->mode) {
	case TENSIX_BENCH_PUSHED:
		return native_insn_ring(c->threads, c->count, err, errlen);
	case TENSIX_BENCH_MOP:
		return native_insn_loop(c->threads, c->count, TENSIX_BENCH_MOP_OUTER, TENSIX_BENCH_MOP_INNER, err, errlen);
	default:
		return native_sem_pingpong(c->count, err, errlen);
	}
}

struct best {
	struct guest_run guest;   /* the fastest bhemu run */
	double native_s;
	double bhemu_runs[MAX_REPEAT], native_runs[MAX_REPEAT];
	int runs;
};

/* Best of opt->c.repeat runs of the guest with the case's parameters and of its native reference.
 * False (the row failed) if any run failed. */
static bool measure(struct benchlib_row *r, const struct options *opt, const struct native_case *c, struct best *b)
{
	struct tensix_bench_params p = { .mode = c->mode, .count = c->count,
					 .threads = c->mode == TENSIX_BENCH_HANDOFF ? 3u : (1u << c->threads) - 1 };
	char err[512];

	b->guest.seconds = -1;
	b->native_s = -1;
	for (b->runs = 0; b->runs < opt->c.repeat; b->runs++) {
		struct guest_run g;
		struct bh_device_config cfg = { .num_tiles = 1, .tile_threads = c->tile_threads };
		if (!guest_run_cfg(&cfg, opt->tensix_elf, GUEST_MAX_CORES, tensix_patch, &p, &g, err, sizeof err)) {
			benchlib_row_fail(r, "bhemu: %s", err);
			return false;
		}
		double s = native_run(c, err, sizeof err);
		if (s < 0) {
			benchlib_row_fail(r, "native: %s", err);
			return false;
		}
		if (b->guest.seconds < 0 || g.seconds < b->guest.seconds)
			b->guest = g;
		if (b->native_s < 0 || s < b->native_s)
			b->native_s = s;
		b->bhemu_runs[b->runs] = g.seconds;
		b->native_runs[b->runs] = s;
	}
	return true;
}

/* Every run's value into the diagnostics and the JSON: a rate (scale / seconds), or with `per`
 * a time (seconds x scale). */
static void describe_runs(struct benchlib_row *r, const struct best *b, double scale, bool per, const char *fmt)
{
	static const char *const keys[] = { "bhemu_runs", "native_runs" };
	for (int k = 0; k < 2; k++) {
		const double *v = k ? b->native_runs : b->bhemu_runs;
		benchlib_appendf(r->extra, sizeof r->extra, ", \"%s\": [", keys[k]);
		for (int i = 0; i < b->runs; i++)
			benchlib_appendf(r->extra, sizeof r->extra, "%s%.6g", i ? ", " : "", per ? v[i] * scale : scale / v[i]);
		benchlib_appendf(r->extra, sizeof r->extra, "]");
		if (b->runs < 2)
			continue;
		benchlib_appendf(r->diag, sizeof r->diag, "%s", k ? ", native:" : "; every run, bhemu:");
		for (int i = 0; i < b->runs; i++)
			benchlib_appendf(r->diag, sizeof r->diag, fmt, per ? v[i] * scale : scale / v[i]);
	}
}

/* RISC-V instructions of each working TRISC per Tensix instruction (the cost of pushing). */
static void describe_triscs(struct benchlib_row *r, const struct guest_run *g, unsigned threads, double per)
{
	benchlib_appendf(r->diag, sizeof r->diag, "RISC-V instructions per Tensix instruction:");
	for (unsigned i = 0; i < threads; i++)
		benchlib_appendf(r->diag, sizeof r->diag, "%s trisc%u %.3g", i ? "," : "", i,
				 (double)g->instructions[BH_CORE_TRISC0 + i] / per);
}

/* ---- 1, 2. Instruction streams ---------------------------------------------------------------- */

static void bench_stream(struct benchlib_row *r, const struct options *opt, enum tensix_bench_mode mode, unsigned threads)
{
	bool pushed = mode == TENSIX_BENCH_PUSHED;
	struct native_case c = { mode, threads, pushed ? opt->pushed : opt->mop, BH_TILE_THREADS_PER_CORE };
	struct best b;

	snprintf(r->name, sizeof r->name, "tensix insns %s, %u thread%s", pushed ? "pushed" : "from MOPs", threads,
		 threads > 1 ? "s" : "");
	r->ref_what = pushed ? "producer/consumer host threads, 32-word ring" : "host threads expanding and decoding";
	if (!measure(r, opt, &c, &b))
		return;
	r->bhemu = c.count / b.guest.seconds;
	r->ref = c.count / b.native_s;
	describe_triscs(r, &b.guest, threads, c.count);
	describe_runs(r, &b, c.count, false, " %.3g");
	benchlib_appendf(r->extra, sizeof r->extra, ", \"threads\": %u, \"instructions_per_thread\": %" PRIu32, threads,
		c.count);
}

/* ---- 3. Semaphore hand-off -------------------------------------------------------------------- */

static void bench_handoff(struct benchlib_row *r, const struct options *opt, enum bh_tile_threads threads)
{
	struct native_case c = { TENSIX_BENCH_HANDOFF, 2, opt->rounds, threads };
	double handoffs = 2.0 * opt->rounds;
	struct best b;

	snprintf(r->name, sizeof r->name, "SEMPOST/SEMWAIT hand-off T0<->T1%s",
		 threads == BH_TILE_THREADS_ONE ? ", 1 thread/tile" : "");
	r->ref_what = "two host threads, POSIX semaphores";
	if (!measure(r, opt, &c, &b))
		return;
	r->bhemu = b.guest.seconds / handoffs * 1e9;
	r->ref = b.native_s / handoffs * 1e9;
	snprintf(r->diag, sizeof r->diag, "%" PRIu32 " rounds of SEMWAIT, SEMGET, SEMPOST per thread, played by MOP/REPLAY",
		 opt->rounds);
	describe_runs(r, &b, 1e9 / handoffs, true, " %.0f");
	benchlib_appendf(r->extra, sizeof r->extra, ", \"rounds\": %" PRIu32 ", \"handoffs\": %.0f", opt->rounds,
		handoffs);
}

/* ---- 4. CB ping-pong -------------------------------------------------------------------------- */

static void bench_cb(struct benchlib_row *r, const struct options *opt)
{
	bench_cb_pingpong(r, opt->c.repeat, opt->pingpong_elf, opt->pages, 1);
	r->ref_what = "SPSC ring between two host threads";
	if (r->bhemu > 0 && r->ref > 0)
		benchlib_appendf(r->diag, sizeof r->diag, "; per page (a hand-off each way): bhemu %.0f ns, native %.0f ns",
				 1e9 / r->bhemu, 1e9 / r->ref);
}

/* ---- 5. Data plane: tiles through the compute library's kernel --------------------------------- */

/* compute_kernels.c's operations: 0 add_tiles, 4 matmul HiFi4, 6 + UNARY_* an SFPU operation. */
#define DATA_ELTWISE 0u
#define DATA_MATMUL 4u
#define DATA_ADD1 6u        /* 6 + UNARY_ADD, with the scalar 1.0 */
#define DATA_EXP 14u        /* 6 + UNARY_EXP */

struct data_case {
	uint32_t op, tiles, ntiles;   /* ntiles: Tensix tiles running the kernel, each over `tiles` */
};

/* The kernel's operation and tile count, and eight tiles of BF16 inputs (compute_kernels.c). */
static bool data_patch(struct bh_device *dev, const char *elf, void *ctx, char *err, size_t errlen)
{
	const struct data_case *c = ctx;
	static uint16_t in[8 * 1024];
	uint32_t op, tiles, param, in0, in1;
	for (unsigned k = 0; k < 8 * 1024; k++)
		in[k] = (uint16_t)(0x3F80 + k % 128) | (uint16_t)(k % 3 ? 0 : 0x8000);
	if (!guest_symbol(dev, 0, BH_CORE_BRISC, elf, "compute_op", &op, err, errlen) ||
	    !guest_symbol(dev, 0, BH_CORE_BRISC, elf, "compute_tiles", &tiles, err, errlen) ||
	    !guest_symbol(dev, 0, BH_CORE_BRISC, elf, "compute_param", &param, err, errlen) ||
	    !guest_symbol(dev, 0, BH_CORE_BRISC, elf, "tiles_in0", &in0, err, errlen) ||
	    !guest_symbol(dev, 0, BH_CORE_BRISC, elf, "tiles_in1", &in1, err, errlen))
		return false;
	for (unsigned t = 0; t < bh_device_num_tiles(dev); t++) {
		guest_l1_put32(dev, t, op, c->op);
		guest_l1_put32(dev, t, tiles, c->tiles);
		guest_l1_put32(dev, t, param, 0x3F800000u);   /* add1: + 1.0 */
		bh_l1_write(dev, t, in0, in, sizeof in);
		bh_l1_write(dev, t, in1, in, sizeof in);
	}
	return true;
}

/* The host reference: the same arithmetic on one thread, BF16 in and out (rounding to nearest,
 * ties away), over the same eight input tiles. Returns seconds. */
static volatile uint32_t data_sink;

static float bf16_to_f(uint16_t h)
{
	uint32_t b = (uint32_t)h << 16;
	float f;
	memcpy(&f, &b, 4);
	return f;
}

static uint16_t f_to_bf16(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	return (uint16_t)(((b & 0x7FFFFFFFu) + 0x8000u) >> 16 | (b >> 16 & 0x8000u));
}

static double native_data(uint32_t op, uint32_t tiles)
{
	static uint16_t in[8][1024], out[8][1024];
	for (unsigned k = 0; k < 8 * 1024; k++)
		in[k / 1024][k % 1024] = (uint16_t)(0x3F80 + k % 128) | (uint16_t)(k % 3 ? 0 : 0x8000);
	double t0 = benchlib_now();
	for (uint32_t t = 0; t < tiles; t++) {
		const uint16_t *a = in[t % 8], *b = in[t % 8];
		uint16_t *c = out[t % 8];
		if (op == DATA_ELTWISE) {
			for (unsigned k = 0; k < 1024; k++)
				c[k] = f_to_bf16(bf16_to_f(a[k]) + bf16_to_f(b[k]));
		} else if (op == DATA_ADD1) {
			for (unsigned k = 0; k < 1024; k++)
				c[k] = f_to_bf16(bf16_to_f(a[k]) + 1.0f);
		} else if (op == DATA_EXP) {
			for (unsigned k = 0; k < 1024; k++)
				c[k] = f_to_bf16(expf(bf16_to_f(a[k])));
		} else {
			for (unsigned r = 0; r < 32; r++)
				for (unsigned col = 0; col < 32; col++) {
					float acc = 0;
					for (unsigned k = 0; k < 32; k++)
						acc += bf16_to_f(a[r * 32 + k]) * bf16_to_f(b[k * 32 + col]);
					c[r * 32 + col] = f_to_bf16(acc);
				}
		}
		data_sink += c[t % 1024];
	}
	return benchlib_now() - t0;
}

static void bench_data(struct benchlib_row *r, const struct options *opt, uint32_t op, uint32_t ntiles,
		       enum bh_tile_threads threads)
{
	struct data_case c = { op, op == DATA_MATMUL || op == DATA_EXP ? opt->tiles / 4 : opt->tiles, ntiles };
	char err[512];
	double best = -1, best_native = -1;
	struct bh_tensix_stats ts = { 0 };
	if (ntiles > 1)
		c.tiles = c.tiles / 8 ? c.tiles / 8 : 1;
	snprintf(r->name, sizeof r->name, "%s%s%s", op == DATA_MATMUL ? "matmul 32x32x32 HiFi4 tiles"
						       : op == DATA_ADD1 ? "add1 (unpack->SFPU +1->pack) tiles"
						       : op == DATA_EXP ? "exp over Dst (SFPU) tiles" : "unpack->ELWADD->pack tiles",
		 ntiles > 1 ? ", all tiles" : "", threads == BH_TILE_THREADS_ONE ? ", 1 thread/tile" : "");
	r->ref_what = "one host thread, the same BF16 arithmetic in C";
	if (c.tiles == 0) {
		benchlib_row_fail(r, "no tiles");
		return;
	}
	for (int k = 0; k < opt->c.repeat; k++) {
		struct guest_run g;
		struct bh_device_config cfg = { .num_tiles = ntiles, .tile_threads = threads };
		if (!guest_run_cfg(&cfg, opt->compute_elf, GUEST_MAX_CORES, data_patch, &c, &g, err, sizeof err)) {
			benchlib_row_fail(r, "bhemu: %s", err);
			return;
		}
		double s = native_data(op, c.tiles);
		if (best < 0 || g.seconds < best) {
			best = g.seconds;
			ts = g.tensix;
		}
		if (best_native < 0 || s < best_native)
			best_native = s;
	}
	r->bhemu = (double)c.tiles * ntiles / best;
	r->ref = c.tiles / best_native;
	r->bar_kind = BENCHLIB_BAR_RATIO_MIN;
	r->bar = 0.2;   /* issues 17 and 18: per tile, at least 20% of the host reference's rate */
	snprintf(r->diag, sizeof r->diag, "%" PRIu32 " tiles per run on each of %" PRIu32 " Tensix tiles (3 TRISCs each), "
		 "%s, best of %d", c.tiles, ntiles, threads == BH_TILE_THREADS_ONE ? "one host thread per tile (fibers)"
		 : "a host thread per core and executor", opt->c.repeat);
	double per = (double)c.tiles * ntiles;
	benchlib_appendf(r->diag, sizeof r->diag, "; per tile: %.0f Tensix words, %.0f%% by the TRISCs (%s), %.1f hand-overs "
			 "to the executors", (double)(ts.by_trisc + ts.by_executor) / per,
			 ts.by_trisc + ts.by_executor ? 100.0 * (double)ts.by_trisc / (double)(ts.by_trisc + ts.by_executor) : 0.0,
			 ts.deferred ? "deferred" : "threaded", (double)ts.handovers / per);
	benchlib_appendf(r->extra, sizeof r->extra, ", \"tiles\": %" PRIu32 ", \"tensix_tiles\": %" PRIu32
			 ", \"tile_threads\": \"%s\"", c.tiles, ntiles, threads == BH_TILE_THREADS_ONE ? "one" : "per-core");
}

/* ---- Command line ----------------------------------------------------------------------------- */

static unsigned parse_only(const char *list)
{
	static const struct benchlib_name_bit names[] = {
		{ "pushed", M_PUSHED }, { "mop", M_MOP }, { "handoff", M_HANDOFF }, { "cb", M_CB }, { "data", M_DATA }, { "sfpu", M_SFPU },
		{ "eltwise", M_ELTWISE }, { "matmul", M_MATMUL }, { "exp", M_EXP }, { "add1", M_ADD1 },
		{ "add1-grid", M_ADD1_GRID },
	};

	return benchlib_parse_only(list, names, sizeof names / sizeof names[0]);
}

/* The options that take a value: counts (each a multiple of `multiple`) and guest programs. */
struct value_option {
	const char *name;
	uint32_t *count;
	uint32_t multiple;
	const char **path;
};

/* argv[*i] if it is one of opts (its value taken, *i advanced); false if it is none of them. */
static bool value_option(int argc, char **argv, int *i, const struct value_option *opts, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct value_option *o = &opts[k];
		if (strcmp(argv[*i], o->name) != 0)
			continue;
		if (o->path != NULL) {
			*o->path = benchlib_option_value(argc, argv, i);
			return true;
		}
		*o->count = (uint32_t)benchlib_option_ulong(argc, argv, i, 1, 1000000000);
		if (*o->count % o->multiple) {
			fprintf(stderr, "bench_tensix: %s wants a multiple of %" PRIu32 ", not %" PRIu32 "\n", o->name,
				o->multiple, *o->count);
			exit(BENCHLIB_EXIT_USAGE);
		}
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	benchlib_set_program("bench_tensix");
	struct options opt = { .c.repeat = -1, .only = M_ALL, .tensix_elf = BENCH_TENSIX_ELF,
			       .pingpong_elf = BENCH_SYNC_PINGPONG_ELF, .compute_elf = BENCH_COMPUTE_ELF };
	uint32_t pushed = 0, mop = 0, rounds = 0, pages = 0, tiles = 0;
	const struct value_option values[] = {
		{ "--pushed", &pushed, 1, NULL },
		{ "--mop", &mop, TENSIX_BENCH_MOP_INSNS, NULL },
		{ "--rounds", &rounds, TENSIX_BENCH_MOP_INSNS, NULL },
		{ "--pages", &pages, 1, NULL },
		{ "--tiles", &tiles, 1, NULL },
		{ "--tensix-elf", NULL, 1, &opt.tensix_elf },
		{ "--pingpong-elf", NULL, 1, &opt.pingpong_elf },
	};

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout, argv[0]);
			return BENCHLIB_EXIT_OK;
		}
		if (benchlib_common_option(argc, argv, &i, &opt.c, MAX_REPEAT) ||
		    value_option(argc, argv, &i, values, sizeof values / sizeof values[0]))
			continue;
		if (strcmp(argv[i], "--only") != 0) {
			fprintf(stderr, "bench_tensix: unknown argument %s (see --help)\n", argv[i]);
			return BENCHLIB_EXIT_USAGE;
		}
		opt.only = parse_only(benchlib_option_value(argc, argv, &i));
	}
	if (opt.c.repeat < 0)
		opt.c.repeat = opt.c.quick ? 1 : 3;
	opt.pushed = pushed ? pushed : opt.c.quick ? 50000 : 1000000;
	opt.mop = mop ? mop : opt.c.quick ? 1000000 : 20000000;
	opt.rounds = rounds ? rounds : opt.c.quick ? 10000 : 100000;
	opt.pages = pages ? pages : opt.c.quick ? 10000 : 100000;
	opt.tiles = tiles ? tiles : opt.c.quick ? 500 : 20000;

	bool json_to_stdout = opt.c.json_path != NULL && strcmp(opt.c.json_path, "-") == 0;
	FILE *out = json_to_stdout ? stderr : stdout;
	struct benchlib_row rows[MAX_ROWS];
	struct benchlib_host_load load;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = 0;

	benchlib_host_begin(&load);
#define PROGRESS(...) (fprintf(out, "running " __VA_ARGS__), fputs(" ...\n", out), fflush(out))
	static const char *const pushed_keys[] = { "tensix_pushed_1", "tensix_pushed_2", "tensix_pushed_3" };
	static const char *const mop_keys[] = { "tensix_mop_1", "tensix_mop_2", "tensix_mop_3" };
	for (unsigned t = 1; t <= TRISCS && (opt.only & M_PUSHED); t++) {
		PROGRESS("%" PRIu32 " pushed instructions on each of %u Tensix threads", opt.pushed, t);
		bench_stream(benchlib_row_new(rows, &n, pushed_keys[t - 1], "insns/s/thread"), &opt, TENSIX_BENCH_PUSHED, t);
	}
	for (unsigned t = 1; t <= TRISCS && (opt.only & M_MOP); t++) {
		PROGRESS("%" PRIu32 " MOP-expanded instructions on each of %u Tensix threads", opt.mop, t);
		bench_stream(benchlib_row_new(rows, &n, mop_keys[t - 1], "insns/s/thread"), &opt, TENSIX_BENCH_MOP, t);
	}
	if (opt.only & M_HANDOFF) {
		PROGRESS("%" PRIu32 " semaphore ping-pong rounds between Tensix threads 0 and 1", opt.rounds);
		bench_handoff(benchlib_row_new(rows, &n, "tensix_sem_handoff", "ns"), &opt, BH_TILE_THREADS_PER_CORE);
		bench_handoff(benchlib_row_new(rows, &n, "tensix_sem_handoff_one_thread", "ns"), &opt, BH_TILE_THREADS_ONE);
	}
	if (opt.only & M_CB) {
		PROGRESS("cb pingpong, 1-page CB, %" PRIu32 " pages", opt.pages);
		bench_cb(benchlib_row_new(rows, &n, "cb_pingpong_1", "pages/s"), &opt);
	}
	/* The data-plane rows, with each tile's actors on their own host threads and then sharing
	 * one (bh_device_config.tile_threads). */
	static const struct {
		unsigned mask;
		const char *key[2], *what;
		uint32_t op, ntiles, div;
	} data_rows[] = {
		{ M_ELTWISE, { "tensix_eltwise_tiles", "tensix_eltwise_tiles_one_thread" }, "unpack -> ELWADD -> pack", DATA_ELTWISE, 1, 1 },
		{ M_MATMUL, { "tensix_matmul_tiles", "tensix_matmul_tiles_one_thread" }, "32x32x32 matmul HiFi4", DATA_MATMUL, 1, 4 },
		{ M_EXP, { "sfpu_exp_tiles", "sfpu_exp_tiles_one_thread" }, "exp over Dst (SFPU)", DATA_EXP, 1, 4 },
		{ M_ADD1, { "sfpu_add1_tiles", "sfpu_add1_tiles_one_thread" }, "add1 (SFPU)", DATA_ADD1, 1, 1 },
		{ M_ADD1_GRID, { "sfpu_add1_140_tiles", "sfpu_add1_140_tiles_one_thread" }, "add1 (SFPU) on each of 140 Tensix tiles",
		  DATA_ADD1, 140, 8 },
	};
	for (unsigned one = 0; one < 2; one++)
		for (size_t k = 0; k < sizeof data_rows / sizeof data_rows[0]; k++) {
			if (!(opt.only & data_rows[k].mask))
				continue;
			PROGRESS("%" PRIu32 " tiles %s, %s", opt.tiles / data_rows[k].div, data_rows[k].what,
				 one ? "one host thread per tile" : "a host thread per core");
			bench_data(benchlib_row_new(rows, &n, data_rows[k].key[one], "tiles/s"), &opt, data_rows[k].op,
				   data_rows[k].ntiles, one ? BH_TILE_THREADS_ONE : BH_TILE_THREADS_PER_CORE);
		}
#undef PROGRESS

	char host_line[64], head[64];
	snprintf(host_line, sizeof host_line, "host: %ld CPUs", cpus);
	snprintf(head, sizeof head, "  \"host_cpus\": %ld,\n", cpus);
	struct benchlib_end e = { .host_line = host_line, .ref_head = "native", .with_ref_is = true,
				  .json_path = opt.c.json_path, .quick = opt.c.quick, .check_bars = opt.c.check_bars,
				  .repeat = opt.c.repeat, .json_head = head, .json_tail = "" };
	return benchlib_end_run(out, &e, &load, rows, n);
}
