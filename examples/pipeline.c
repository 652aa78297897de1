/* The reader -> CB -> compute -> CB -> writer pipeline on every tile of a board (issue 5's example
 * and the demo's main job), its compute stage on the Tensix coprocessor.
 *
 * An input buffer of tiles x pages pages is interleaved over the DRAM banks the firmware knows; a
 * page is one 32x32 tile of BF16 numbers (2 KiB). On every tile NCRISC (k_reader) reads its share
 * page by page into CB 0; the three TRISCs run the compute kernel k_mul_add (unpack, math with
 * two SFPU operations, pack through the Tensix data plane) that turns each datum x into
 * x * A + B in CB 16; BRISC (k_writer) writes the pages to an output buffer interleaved the same
 * way. The host then checks every datum, bit for bit, against its own model of that arithmetic:
 * each SFPU operation computes in FP32 and rounds to BF16, to nearest with ties away from zero
 * (the inputs keep both FP32 results exact, so only the BF16 rounding matters). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define PAGE_SIZE	2048u		/* one BF16 tile: compile-time argument 0 of k_reader and k_writer */
#define PAGE_DATUMS	(PAGE_SIZE / 2)
#define CB_IN		0u
#define CB_OUT		16u
#define CB_PAGES	16u
#define SRC_BASE	0x00100000u	/* DRAM bank offsets (the first 64 B hold the barrier word) */
#define DST_BASE	0x08000000u
#define MUL_A		-1.3125f	/* exact in BF16 */
#define ADD_B		0.40625f

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pipeline [options]\n"
		"Boots a board with the reference firmware and runs a reader (NCRISC) -> CB -> compute\n"
		"(TRISC0-2 on the Tensix coprocessor: x * -1.3125 + 0.40625 on BF16 tiles) -> CB ->\n"
		"writer (BRISC) pipeline over interleaved DRAM buffers on every tile, then checks every\n"
		"output datum against the host's model of the same BF16 arithmetic.\n"
		"  -b, --board BOARD        p150 (default), p100 or grid:CxR\n"
		"  -p, --pages N            pages (one 32x32 BF16 tile, 2 KiB) per tile and launch\n"
		"                           (default 64)\n"
		"  -l, --launches N         launches, each on new input (default 2)\n"
		"  -t, --timeout SECONDS    limit for each launch (default 60)\n"
		"  -d, --dispatch fast|slow fast: buffers and launches through the command queue (the\n"
		"                           two fast-dispatch tiles then run no kernel); slow: host\n"
		"                           writes and slow dispatch on every tile (default fast)\n"
		"  -j, --json               also print the summary as one JSON object\n"
		"  -q, --quiet              no progress line\n"
		"exit status: 0 output exact; 1 host failure; 2 bad usage; 3 a core faulted;\n"
		"  4 wrong output (first mismatch on stderr); 5 deadlock; 6 timeout.\n");
}

struct progress {
	bool on;
	unsigned launch, launches;
	double last;
};

static void on_progress(void *arg, unsigned done, unsigned total)
{
	struct progress *p = arg;
	double now = example_now();
	if (!p->on || (now - p->last < 0.25 && done != total))
		return;
	p->last = now;
	fprintf(stderr, "\rpipeline: launch %u/%u: %u/%u tiles done ", p->launch, p->launches, done, total);
	if (done == total)
		fputc('\n', stderr);
}

/* A random BF16 number: either sign, every mantissa bit, magnitude in [2^-6, 2^7). */
static uint16_t random_bf16(uint32_t *seed)
{
	uint32_t r = example_xorshift(seed);
	return (uint16_t)((r & 0x8000u) | (121u + (r >> 16) % 13u) << 7 | (r & 0x7Fu));
}

/* The kernel's arithmetic on one datum: x * A in FP32 (exact: two 8-bit significands), rounded to
 * BF16; + B in FP32 (exact: the operands' bits span fewer than 24 places), rounded to BF16. */
static uint16_t mul_add_model(uint16_t x)
{
	uint16_t p = example_bf16_round_away((double)example_f32((uint32_t)x << 16) * MUL_A);
	return example_bf16_round_away((double)example_f32((uint32_t)p << 16) + ADD_B);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' }, { "pages", required_argument, NULL, 'p' },
		{ "launches", required_argument, NULL, 'l' }, { "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' }, { "quiet", no_argument, NULL, 'q' },
		{ "dispatch", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *board = "p150";
	unsigned pages = 64, launches = 2;
	bool fast = true;
	double timeout = 60;
	bool json = false;
	struct progress prog_state = { .on = true };
	int opt;
	while ((opt = getopt_long(argc, argv, "b:p:l:t:d:jqh", opts, NULL)) != -1) {
		char *end = NULL;
		switch (opt) {
		case 'b': board = optarg; break;
		case 'p': pages = (unsigned)strtoul(optarg, &end, 0); break;
		case 'l': launches = (unsigned)strtoul(optarg, &end, 0); break;
		case 'd':
			if (strcmp(optarg, "fast") && strcmp(optarg, "slow")) {
				fprintf(stderr, "pipeline: --dispatch is fast or slow, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			fast = !strcmp(optarg, "fast");
			break;
		case 't': timeout = strtod(optarg, &end); break;
		case 'j': json = true; break;
		case 'q': prog_state.on = false; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
		if (end && (*end || end == optarg)) {
			fprintf(stderr, "pipeline: bad number '%s'\n", optarg);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || pages == 0 || pages > 4096 || launches == 0 || !(timeout > 0)) {
		usage(stderr);
		return EXIT_USAGE;
	}

	double boot_s = 0, t_start = example_now();
	struct bh_device *dev = example_boot(board, &boot_s);
	if (!dev)
		return EXIT_HOST;
	unsigned ntiles = bh_device_num_tiles(dev), ndram = 0;
	bh_device_boot_banks(dev, &ndram, NULL);
	struct bh_cq *cq = NULL;
	char err[1024];
	if (fast && bh_cq_open(dev, &(struct bh_cq_config){ .timeout_s = timeout }, &cq, err, sizeof err) != BH_OK) {
		fprintf(stderr, "pipeline: cannot open the command queue: %s\n", err);
		bh_device_close(dev);
		return EXIT_HOST;
	}
	/* The tiles that run the pipeline, and each one's share of the buffers. */
	struct bh_core_range all[4];
	unsigned nall = fast ? bh_device_worker_ranges(dev, all) : bh_device_all_tiles(dev, all), cols, rows;
	int *share = malloc(ntiles * sizeof *share);
	unsigned tiles = 0;
	bh_device_grid_size(dev, &cols, &rows);
	for (unsigned t = 0; t < ntiles; t++)
		share[t] = -1;
	for (unsigned i = 0; i < nall; i++)
		for (unsigned y = all[i].y0; y <= all[i].y1; y++)
			for (unsigned x = all[i].x0; x <= all[i].x1; x++)
				share[y * cols + x] = 0;
	for (unsigned t = 0; t < ntiles; t++)
		if (share[t] == 0)
			share[t] = (int)tiles++;
	printf("pipeline: %s booted (%u tiles, %u cores) in %.3f s; %u pages of %u B per tile, %u DRAM banks; %s "
	       "dispatch on %u tiles\n", bh_board_name(bh_device_board(dev)), ntiles, 5 * ntiles, boot_s, pages, PAGE_SIZE,
	       ndram, fast ? "fast" : "slow", tiles);
	fflush(stdout);

	struct bh_program *p = NULL;
	char path[512];
	const uint32_t ct_reader[] = { PAGE_SIZE, CB_IN }, ct_compute[] = { CB_IN, CB_OUT },
		       ct_writer[] = { PAGE_SIZE, CB_OUT }, common[] = { example_f32_bits(MUL_A), example_f32_bits(ADD_B) };
	int status = bh_program_create(dev, &p) == BH_OK ? EXIT_OK : EXIT_HOST;
	int kr = -1, kc[3] = { -1, -1, -1 }, kw = -1;
	if (status == EXIT_OK) {
		int rc = kr = bh_program_add_kernel(p, BH_CORE_NCRISC, example_kernel(path, sizeof path, "k_reader"), all,
						    nall, ct_reader, 2);
		for (unsigned k = 0; k < 3 && rc >= 0; k++) {
			char name[32];
			snprintf(name, sizeof name, "k_mul_add_trisc%u", k);
			rc = kc[k] = bh_program_add_kernel(p, (enum bh_core_id)(BH_CORE_TRISC0 + k),
							   example_kernel(path, sizeof path, name), all, nall, ct_compute, 2);
			if (rc >= 0)
				rc = bh_program_set_common_runtime_args(p, kc[k], common, 2);
		}
		if (rc >= 0)
			rc = kw = bh_program_add_kernel(p, BH_CORE_BRISC, example_kernel(path, sizeof path, "k_writer"), all,
							nall, ct_writer, 2);
		struct bh_cb_config in = { .index = CB_IN, .page_size = PAGE_SIZE, .num_pages = CB_PAGES };
		struct bh_cb_config out = { .index = CB_OUT, .page_size = PAGE_SIZE, .num_pages = CB_PAGES };
		if (rc < 0 || bh_program_add_cb(p, &in, all, nall) != BH_OK || bh_program_add_cb(p, &out, all, nall) != BH_OK) {
			fprintf(stderr, "pipeline: %s\n", bh_program_error(p));
			status = rc == BH_ERR_ELF ? EXIT_USAGE : EXIT_HOST;
		}
	}
	for (unsigned t = 0; t < ntiles && status == EXIT_OK; t++) {
		if (share[t] < 0)
			continue;
		uint32_t first = (uint32_t)share[t] * pages;
		uint32_t r[3] = { SRC_BASE, first, pages }, c[1] = { pages }, w[3] = { DST_BASE, first, pages };
		if (bh_program_set_runtime_args(p, kr, t, r, 3) || bh_program_set_runtime_args(p, kc[0], t, c, 1) ||
		    bh_program_set_runtime_args(p, kc[1], t, c, 1) || bh_program_set_runtime_args(p, kc[2], t, c, 1) ||
		    bh_program_set_runtime_args(p, kw, t, w, 3)) {
			fprintf(stderr, "pipeline: %s\n", bh_program_error(p));
			status = EXIT_HOST;
		}
	}

	size_t datums = (size_t)tiles * pages * PAGE_DATUMS;
	uint16_t *in = malloc(datums * 2), *out = malloc(datums * 2);
	if (!in || !out)
		status = EXIT_HOST;
	uint32_t seed = 0x12345678u;
	double run_s = 0;
	uint64_t insns0 = 0;
	for (unsigned t = 0; t < ntiles; t++)
		for (unsigned k = 0; k < 5; k++)
			insns0 += bh_core_instructions(dev, t, (enum bh_core_id)k);
	prog_state.launches = launches;
	for (unsigned l = 0; l < launches && status == EXIT_OK; l++) {
		for (size_t i = 0; i < datums; i++)
			in[i] = random_bf16(&seed);
		memset(out, 0, datums * 2);
		if (fast ? bh_cq_write_buffer(cq, true, SRC_BASE, PAGE_SIZE, 0, in, datums * 2) != BH_OK ||
			   bh_cq_write_buffer(cq, true, DST_BASE, PAGE_SIZE, 0, out, datums * 2) != BH_OK
			 : bh_interleaved_write_banks(dev, true, ndram, SRC_BASE, PAGE_SIZE, 0, in, datums * 2) != BH_OK ||
			   bh_interleaved_write_banks(dev, true, ndram, DST_BASE, PAGE_SIZE, 0, out, datums * 2) != BH_OK) {
			fprintf(stderr, "pipeline: buffers do not fit the DRAM banks\n");
			status = EXIT_USAGE;
			break;
		}
		prog_state.launch = l + 1;
		struct bh_launch_options lo = { .timeout_s = timeout, .progress = on_progress, .progress_arg = &prog_state };
		struct bh_launch_stats st;
		double t0 = example_now();
		int rc = fast ? bh_cq_launch(cq, p, &st) : bh_program_launch(p, &lo, &st);
		if (fast && rc == BH_OK)
			rc = bh_cq_finish(cq);
		if (rc != BH_OK) {
			fprintf(stderr, "\npipeline: launch %u failed:\n%s%s\n", l + 1, bh_program_error(p),
				fast ? bh_cq_error(cq) : "");
			status = example_exit_status(rc == BH_ERR_CQ ? BH_ERR_FAULT : rc);
			break;
		}
		run_s += fast ? example_now() - t0 : st.seconds;
		if (fast ? bh_cq_read_buffer(cq, true, DST_BASE, PAGE_SIZE, 0, out, datums * 2) != BH_OK
			 : bh_interleaved_read_banks(dev, true, ndram, DST_BASE, PAGE_SIZE, 0, out, datums * 2) != BH_OK) {
			fprintf(stderr, "pipeline: reading the output failed: %s\n", fast ? bh_cq_error(cq) : "");
			status = EXIT_HOST;
			break;
		}
		for (size_t i = 0; i < datums && status == EXIT_OK; i++) {
			uint32_t page = (uint32_t)(i / PAGE_DATUMS), tile = page / pages, local = page % pages;
			uint16_t want = mul_add_model(in[i]);
			if (out[i] != want) {
				fprintf(stderr, "pipeline: launch %u: wrong output: tile %u, page %u of its share (buffer page "
					"%u), datum %zu: x = %g (0x%04x): 0x%04x (%g), expected 0x%04x (%g)\n", l + 1, tile,
					local, page, i % PAGE_DATUMS, example_f32((uint32_t)in[i] << 16), in[i], out[i],
					example_f32((uint32_t)out[i] << 16), want, example_f32((uint32_t)want << 16));
				status = EXIT_WRONG;
			}
		}
	}
	if (status == EXIT_OK) {
		uint64_t insns = 0;
		for (unsigned t = 0; t < ntiles; t++)
			for (unsigned k = 0; k < 5; k++)
				insns += bh_core_instructions(dev, t, (enum bh_core_id)k);
		insns -= insns0;
		uint64_t moved = (uint64_t)tiles * pages * launches;
		double wall = example_now() - t_start;
		printf("pipeline: OK, every datum exact\n"
		       "  tiles %u (%u cores), launches %u, pages moved %" PRIu64 " in + %" PRIu64 " out (%.1f MiB each way)\n"
		       "  guest instructions %" PRIu64 " in %.3f s of launches: %.0f MIPS, %.1f MiB/s through the pipeline\n"
		       "  %.2f launches/s; boot %.3f s; wall time %.3f s\n",
		       tiles, 5 * tiles, launches, moved, moved, (double)moved * PAGE_SIZE / 1048576.0, insns, run_s,
		       (double)insns / run_s / 1e6, (double)moved * PAGE_SIZE / 1048576.0 / run_s, launches / run_s, boot_s,
		       wall);
		if (json)
			printf("{\"board\": \"%s\", \"tiles\": %u, \"launches\": %u, \"pages\": %" PRIu64 ", \"page_size\": %u, "
			       "\"instructions\": %" PRIu64 ", \"launch_seconds\": %.6f, \"mips\": %.1f, \"launches_per_s\": %.3f, "
			       "\"boot_seconds\": %.6f, \"wall_seconds\": %.6f}\n", bh_board_name(bh_device_board(dev)), tiles,
			       launches, moved, PAGE_SIZE, insns, run_s, (double)insns / run_s / 1e6, launches / run_s, boot_s,
			       wall);
	}
	free(in);
	free(out);
	free(share);
	bh_program_destroy(p);
	bh_cq_close(cq);
	bh_device_close(dev);
	return status;
}
