/* C = A x B for BF16 matrices over the whole grid of a board through fast dispatch (issue 17's
 * example), checked element by element against the host.
 *
 * A is M x K, B is K x N, C is M x N, in 32x32 tiles (sizes given in tiles), each matrix an
 * interleaved DRAM buffer of one tile (2 KiB, four 16x16 faces) per page. The worker tiles form
 * a rectangle of R rows x Q columns; worker (q, r) computes the output block of rows r*MB.. and
 * columns q*NB.. (MB = ceil(M / R), NB = ceil(N / Q) tiles; the last blocks may be smaller and
 * workers without a block are left out). For every K step, the first worker of each row reads
 * its rows' A tiles from DRAM and multicasts them along the row (NCRISC, k_mm_in0), the first of
 * each column does the same with B down the column (BRISC, k_mm_in1_writer), with the
 * ready/valid semaphore handshake of tt-metal's multicast matmul; the three TRISCs (k_matmul)
 * accumulate each output tile over K in Dst (FP32, HiFi4) and pack it to BF16; BRISC writes it.
 *
 * Exactness: the elements are multiples of 1/16 in (-8, 8) (at most 8 significant bits, so BF16
 * and every fidelity phase's slices hold them), every product is a multiple of 2^-8 below 64, and
 * with K <= 32 tiles every partial sum is below 2^16 and exact in FP32, so whatever the order of
 * accumulation the Dst holds the exact sum. The only rounding is the packer's, to BF16 to nearest
 * with ties away from zero: the host model is that rounding of the exact sum. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define TILE_BYTES	2048u
#define TILE_DATUMS	1024u
#define CB_A		0u		/* compile-time arguments of the kernels */
#define CB_B		1u
#define CB_C		16u
#define C_PAGES		4u
#define A_BASE		0x00100000u	/* DRAM bank offsets */
#define B_BASE		0x04000000u
#define C_BASE		0x08000000u
#define MAX_K		32u
#define MAX_MN		512u

/* Runtime arguments of k_mm_in0 and k_mm_in1_writer (examples/kernels/k_mm_input.c). */
enum {
	ARG_BASE, ARG_FIRST, ARG_TILE_STRIDE, ARG_STEP_STRIDE, ARG_TILES, ARG_STEPS, ARG_SENDER, ARG_SENDER_X,
	ARG_SENDER_Y, ARG_MC_X0, ARG_MC_Y0, ARG_MC_X1, ARG_MC_Y1, ARG_RECEIVERS, ARG_READY_SEM, ARG_VALID_SEM,
	ARG_OUT_BASE, ARG_OUT_FIRST, ARG_OUT_ROWS, ARG_OUT_COLS, ARG_OUT_ROW_STRIDE, ARG_COUNT
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: matmul [options]\n"
		"Boots a board with the reference firmware and computes C = A x B for BF16 matrices on\n"
		"every worker tile: A multicast along the rows of tiles, B down the columns, the\n"
		"product on the Tensix coprocessor (FP32 Dst, HiFi4), C written back to DRAM; then\n"
		"checks every element of C against the host.\n"
		"  -b, --board BOARD        p150 (default), p100 or grid:CxR\n"
		"  -m, --m TILES            rows of A and C in 32x32 tiles (default 20)\n"
		"  -n, --n TILES            columns of B and C in tiles (default 26)\n"
		"  -k, --k TILES            columns of A, rows of B in tiles, at most %u (default 8)\n"
		"  -l, --launches N         launches, each on new matrices (default 1)\n"
		"  -t, --timeout SECONDS    limit for each launch (default 120)\n"
		"  -d, --dispatch fast|slow fast: through the command queue (the two fast-dispatch\n"
		"                           tiles then compute nothing); slow: host writes and slow\n"
		"                           dispatch (default fast)\n"
		"      --corrupt ROW,COL    upload A with element (ROW, COL) changed, the host keeping\n"
		"                           the true one: the check must report row ROW of C\n"
		"  -j, --json               also print the summary as one JSON object\n"
		"  -q, --quiet              no progress lines\n"
		"exit status: 0 output exact; 1 host failure; 2 bad usage; 3 a core faulted;\n"
		"  4 wrong output (first mismatch on stderr); 5 deadlock; 6 timeout.\n", MAX_K);
}

/* Element (r, c) of a 32x32 tile: four 16x16 faces, row-major within each. */
static unsigned tile_index(unsigned r, unsigned c)
{
	return ((r / 16) * 2 + c / 16) * 256 + (r % 16) * 16 + c % 16;
}

/* Element (r, c) of a rows x cols-tile matrix stored as tile pages, tile (r/32, c/32) at page
 * (r/32) * cols + c/32. */
static size_t elem(unsigned cols, unsigned r, unsigned c)
{
	return ((size_t)(r / 32) * cols + c / 32) * TILE_DATUMS + tile_index(r % 32, c % 32);
}

/* A random element: a multiple of 1/16 in (-8, 8), as BF16. */
static uint16_t random_elem(uint32_t *seed)
{
	int n = (int)(example_xorshift(seed) % 255u) - 127;
	return (uint16_t)(example_f32_bits((float)n / 16) >> 16);
}

static double value(uint16_t b)
{
	return example_f32((uint32_t)b << 16);
}

struct grid {
	unsigned x0, y0, cols, rows;	/* the rectangle of workers used (logical) */
	unsigned mb, nb;		/* block size in tiles */
};

/* The largest rectangle among the ranges, cut to the blocks C needs. */
static struct grid pick_grid(const struct bh_core_range *r, unsigned n, unsigned mt, unsigned nt)
{
	unsigned best = 0;
	for (unsigned i = 1; i < n; i++)
		if ((r[i].x1 - r[i].x0 + 1) * (r[i].y1 - r[i].y0 + 1) > (r[best].x1 - r[best].x0 + 1) * (r[best].y1 - r[best].y0 + 1))
			best = i;
	struct grid g = { .x0 = r[best].x0, .y0 = r[best].y0 };
	unsigned q = r[best].x1 - r[best].x0 + 1, rows = r[best].y1 - r[best].y0 + 1;
	g.nb = (nt + q - 1) / q;
	g.mb = (mt + rows - 1) / rows;
	g.cols = (nt + g.nb - 1) / g.nb;
	g.rows = (mt + g.mb - 1) / g.mb;
	return g;
}

/* The multicast rectangle (translated coordinates) from worker (qa, ra) to (qb, rb) and how many
 * tiles other than the sender it reaches. Every Tensix tile in it must be one of those workers
 * (a multicast writes every Tensix tile of its rectangle): -1 otherwise. */
static int mcast_rect(struct bh_device *dev, const struct grid *g, unsigned qa, unsigned ra, unsigned qb, unsigned rb,
		      uint32_t rect[4])
{
	unsigned cols, rows, xa, ya, xb, yb;
	bh_device_grid_size(dev, &cols, &rows);
	bh_device_tile_xy(dev, (g->y0 + ra) * cols + g->x0 + qa, &xa, &ya);
	bh_device_tile_xy(dev, (g->y0 + rb) * cols + g->x0 + qb, &xb, &yb);
	rect[0] = xa < xb ? xa : xb;
	rect[1] = ya < yb ? ya : yb;
	rect[2] = xa < xb ? xb : xa;
	rect[3] = ya < yb ? yb : ya;
	int reached = 0;
	for (unsigned t = 0; t < bh_device_num_tiles(dev); t++) {
		unsigned x, y;
		bh_device_tile_xy(dev, t, &x, &y);
		if (x < rect[0] || x > rect[2] || y < rect[1] || y > rect[3])
			continue;
		unsigned q = t % cols - g->x0, r = t / cols - g->y0;   /* wraps when left of or above the grid */
		if (q < qa || q > qb || r < ra || r > rb)
			return -1;
		reached++;
	}
	return reached - 1;
}

struct opts {
	const char *board;
	unsigned mt, nt, kt, launches;
	double timeout;
	bool fast, json, quiet, corrupt;
	unsigned corrupt_row, corrupt_col;
};

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "board", required_argument, NULL, 'b' }, { "m", required_argument, NULL, 'm' },
		{ "n", required_argument, NULL, 'n' }, { "k", required_argument, NULL, 'k' },
		{ "launches", required_argument, NULL, 'l' }, { "timeout", required_argument, NULL, 't' },
		{ "dispatch", required_argument, NULL, 'd' }, { "corrupt", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' }, { "quiet", no_argument, NULL, 'q' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct opts){ .board = "p150", .mt = 20, .nt = 26, .kt = 8, .launches = 1, .timeout = 120, .fast = true };
	int opt;
	while ((opt = getopt_long(argc, argv, "b:m:n:k:l:t:d:jqh", lopts, NULL)) != -1) {
		char *end = NULL;
		switch (opt) {
		case 'b': o->board = optarg; break;
		case 'm': o->mt = (unsigned)strtoul(optarg, &end, 0); break;
		case 'n': o->nt = (unsigned)strtoul(optarg, &end, 0); break;
		case 'k': o->kt = (unsigned)strtoul(optarg, &end, 0); break;
		case 'l': o->launches = (unsigned)strtoul(optarg, &end, 0); break;
		case 't': o->timeout = strtod(optarg, &end); break;
		case 'd':
			if (strcmp(optarg, "fast") && strcmp(optarg, "slow")) {
				fprintf(stderr, "matmul: --dispatch is fast or slow, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			o->fast = !strcmp(optarg, "fast");
			break;
		case 'c': {
			char tail;
			if (sscanf(optarg, "%u,%u%c", &o->corrupt_row, &o->corrupt_col, &tail) != 2) {
				fprintf(stderr, "matmul: --corrupt takes ROW,COL, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			o->corrupt = true;
			break;
		}
		case 'j': o->json = true; break;
		case 'q': o->quiet = true; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return EXIT_USAGE;
		}
		if (end && (*end || end == optarg)) {
			fprintf(stderr, "matmul: bad number '%s'\n", optarg);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || !o->mt || !o->nt || !o->kt || o->mt > MAX_MN || o->nt > MAX_MN || o->kt > MAX_K ||
	    !o->launches || !(o->timeout > 0)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (o->corrupt && (o->corrupt_row >= 32 * o->mt || o->corrupt_col >= 32 * o->kt)) {
		fprintf(stderr, "matmul: --corrupt %u,%u is outside A (%u x %u)\n", o->corrupt_row, o->corrupt_col,
			32 * o->mt, 32 * o->kt);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* The program: CBs, semaphores, the five kernels and every worker's runtime arguments. */
static int build_program(struct bh_device *dev, const struct opts *o, const struct grid *g, struct bh_program *p)
{
	const struct bh_core_range used = { g->x0, g->y0, g->x0 + g->cols - 1, g->y0 + g->rows - 1 };
	const uint32_t ct_in0[] = { CB_A, 0, CB_C }, ct_in1[] = { CB_B, 1, CB_C }, ct_mm[] = { CB_A, CB_B, CB_C };
	char path[512], name[32];
	int kin0 = bh_program_add_kernel(p, BH_CORE_NCRISC, example_kernel(path, sizeof path, "k_mm_in0"), &used, 1, ct_in0, 3);
	int kin1 = kin0 < 0 ? kin0 : bh_program_add_kernel(p, BH_CORE_BRISC, example_kernel(path, sizeof path, "k_mm_in1_writer"),
							   &used, 1, ct_in1, 3);
	int kmm[3], rc = kin1;
	for (unsigned k = 0; k < 3 && rc >= 0; k++) {
		snprintf(name, sizeof name, "k_matmul_trisc%u", k);
		rc = kmm[k] = bh_program_add_kernel(p, (enum bh_core_id)(BH_CORE_TRISC0 + k),
						    example_kernel(path, sizeof path, name), &used, 1, ct_mm, 3);
	}
	struct bh_cb_config cba = { .index = CB_A, .page_size = TILE_BYTES, .num_pages = g->mb * o->kt };
	struct bh_cb_config cbb = { .index = CB_B, .page_size = TILE_BYTES, .num_pages = g->nb * o->kt };
	struct bh_cb_config cbc = { .index = CB_C, .page_size = TILE_BYTES, .num_pages = C_PAGES };
	if (rc < 0 || bh_program_add_cb(p, &cba, &used, 1) != BH_OK || bh_program_add_cb(p, &cbb, &used, 1) != BH_OK ||
	    bh_program_add_cb(p, &cbc, &used, 1) != BH_OK) {
		fprintf(stderr, "matmul: %s\n", bh_program_error(p));
		return rc == BH_ERR_ELF ? EXIT_USAGE : EXIT_HOST;
	}
	int sem[4];
	for (unsigned s = 0; s < 4; s++)
		if ((sem[s] = bh_program_add_semaphore(p, &used, 1, 0)) < 0) {
			fprintf(stderr, "matmul: %s\n", bh_program_error(p));
			return EXIT_HOST;
		}
	unsigned cols, rows;
	bh_device_grid_size(dev, &cols, &rows);
	for (unsigned r = 0; r < g->rows; r++)
		for (unsigned q = 0; q < g->cols; q++) {
			unsigned t = (g->y0 + r) * cols + g->x0 + q;
			uint32_t brows = o->mt - r * g->mb < g->mb ? o->mt - r * g->mb : g->mb;
			uint32_t bcols = o->nt - q * g->nb < g->nb ? o->nt - q * g->nb : g->nb;
			unsigned ax, ay, bx, by;   /* the senders: first worker of the row, of the column */
			bh_device_tile_xy(dev, (g->y0 + r) * cols + g->x0, &ax, &ay);
			bh_device_tile_xy(dev, g->y0 * cols + g->x0 + q, &bx, &by);
			uint32_t a[ARG_COUNT] = {
				[ARG_BASE] = A_BASE, [ARG_FIRST] = r * g->mb * o->kt, [ARG_TILE_STRIDE] = o->kt,
				[ARG_STEP_STRIDE] = 1, [ARG_TILES] = brows, [ARG_STEPS] = o->kt, [ARG_SENDER] = q == 0,
				[ARG_SENDER_X] = ax, [ARG_SENDER_Y] = ay, [ARG_READY_SEM] = (uint32_t)sem[0],
				[ARG_VALID_SEM] = (uint32_t)sem[1],
			};
			uint32_t b[ARG_COUNT] = {
				[ARG_BASE] = B_BASE, [ARG_FIRST] = q * g->nb, [ARG_TILE_STRIDE] = 1, [ARG_STEP_STRIDE] = o->nt,
				[ARG_TILES] = bcols, [ARG_STEPS] = o->kt, [ARG_SENDER] = r == 0, [ARG_SENDER_X] = bx,
				[ARG_SENDER_Y] = by, [ARG_READY_SEM] = (uint32_t)sem[2], [ARG_VALID_SEM] = (uint32_t)sem[3],
				[ARG_OUT_BASE] = C_BASE, [ARG_OUT_FIRST] = r * g->mb * o->nt + q * g->nb, [ARG_OUT_ROWS] = brows,
				[ARG_OUT_COLS] = bcols, [ARG_OUT_ROW_STRIDE] = o->nt,
			};
			uint32_t mm[3] = { brows, bcols, o->kt };
			int na = mcast_rect(dev, g, 0, r, g->cols - 1, r, &a[ARG_MC_X0]);
			int nb = mcast_rect(dev, g, q, 0, q, g->rows - 1, &b[ARG_MC_X0]);
			if (na < 0 || nb < 0) {
				fprintf(stderr, "matmul: the multicast rectangle of worker (%u, %u) covers a tile outside the "
					"grid of workers\n", q, r);
				return EXIT_HOST;
			}
			a[ARG_RECEIVERS] = (uint32_t)na;
			b[ARG_RECEIVERS] = (uint32_t)nb;
			if (bh_program_set_runtime_args(p, kin0, t, a, ARG_COUNT) || bh_program_set_runtime_args(p, kin1, t, b, ARG_COUNT) ||
			    bh_program_set_runtime_args(p, kmm[0], t, mm, 3) || bh_program_set_runtime_args(p, kmm[1], t, mm, 3) ||
			    bh_program_set_runtime_args(p, kmm[2], t, mm, 3)) {
				fprintf(stderr, "matmul: %s\n", bh_program_error(p));
				return EXIT_HOST;
			}
		}
	return EXIT_OK;
}

/* The values of a rows x cols-element matrix stored as tile pages, row-major. */
static float *untilize(const uint16_t *t, unsigned rows, unsigned cols)
{
	float *v = malloc((size_t)rows * cols * sizeof *v);
	for (unsigned i = 0; v && i < rows; i++)
		for (unsigned j = 0; j < cols; j++)
			v[(size_t)i * cols + j] = (float)value(t[elem(cols / 32, i, j)]);
	return v;
}

/* C = A B: the exact sum of each row-column product (exact in float: multiples of 2^-8 below
 * 2^16), rounded to BF16 (ties away). Returns false when out of memory. */
static bool host_matmul(const struct opts *o, const uint16_t *a, const uint16_t *b, uint16_t *c)
{
	unsigned m = 32 * o->mt, n = 32 * o->nt, k = 32 * o->kt;
	float *av = untilize(a, m, k), *bv = untilize(b, k, n), *row = malloc(n * sizeof *row);
	bool ok = av && bv && row;
	for (unsigned i = 0; ok && i < m; i++) {
		memset(row, 0, n * sizeof *row);
		for (unsigned x = 0; x < k; x++) {
			const float f = av[(size_t)i * k + x], *brow = &bv[(size_t)x * n];
			for (unsigned j = 0; j < n; j++)
				row[j] += f * brow[j];
		}
		for (unsigned j = 0; j < n; j++)
			c[elem(o->nt, i, j)] = example_bf16_round_away(row[j]);
	}
	free(av);
	free(bv);
	free(row);
	return ok;
}

static int put(struct bh_device *dev, struct bh_cq *cq, unsigned ndram, uint32_t base, const void *data, size_t bytes)
{
	return cq ? bh_cq_write_buffer(cq, true, base, TILE_BYTES, 0, data, bytes)
		  : bh_interleaved_write_banks(dev, true, ndram, base, TILE_BYTES, 0, data, bytes);
}

int main(int argc, char **argv)
{
	struct opts o;
	int status = parse(argc, argv, &o);
	if (status != EXIT_OK)
		return status < 0 ? EXIT_OK : status;
	double boot_s = 0, t_start = example_now();
	struct bh_device *dev = example_boot(o.board, &boot_s);
	if (!dev)
		return EXIT_HOST;
	unsigned ndram = 0;
	bh_device_boot_banks(dev, &ndram, NULL);
	struct bh_cq *cq = NULL;
	char err[1024];
	if (o.fast && bh_cq_open(dev, &(struct bh_cq_config){ .timeout_s = o.timeout }, &cq, err, sizeof err) != BH_OK) {
		fprintf(stderr, "matmul: cannot open the command queue: %s\n", err);
		bh_device_close(dev);
		return EXIT_HOST;
	}
	struct bh_core_range all[4];
	unsigned nall = o.fast ? bh_device_worker_ranges(dev, all) : bh_device_all_tiles(dev, all);
	if (nall == 0) {
		fprintf(stderr, "matmul: board %s has no worker tiles for fast dispatch (use a larger grid or --dispatch "
			"slow)\n", o.board);
		bh_cq_close(cq);
		bh_device_close(dev);
		return EXIT_USAGE;
	}
	struct grid g = pick_grid(all, nall, o.mt, o.nt);
	printf("matmul: %s booted (%u tiles) in %.3f s; C (%u x %u) = A (%u x %u) x B (%u x %u) in BF16, %u x %u tiles "
	       "of 32x32; %s dispatch on %u x %u workers, blocks of %u x %u tiles, K in %u steps\n",
	       bh_board_name(bh_device_board(dev)), bh_device_num_tiles(dev), boot_s, 32 * o.mt, 32 * o.nt, 32 * o.mt,
	       32 * o.kt, 32 * o.kt, 32 * o.nt, o.mt, o.nt, o.fast ? "fast" : "slow", g.cols, g.rows, g.mb, g.nb, o.kt);
	fflush(stdout);

	struct bh_program *p = NULL;
	if (bh_program_create(dev, &p) != BH_OK)
		status = EXIT_HOST;
	if (status == EXIT_OK)
		status = build_program(dev, &o, &g, p);
	size_t na = (size_t)o.mt * o.kt * TILE_DATUMS, nb = (size_t)o.kt * o.nt * TILE_DATUMS, nc = (size_t)o.mt * o.nt * TILE_DATUMS;
	uint16_t *a = malloc(na * 2), *b = malloc(nb * 2), *c = malloc(nc * 2), *want = malloc(nc * 2);
	if (!a || !b || !c || !want)
		status = EXIT_HOST;
	uint32_t seed = 0x2545F491u;
	double run_s = 0, check_s = 0;
	for (unsigned l = 0; l < o.launches && status == EXIT_OK; l++) {
		for (size_t i = 0; i < na; i++)
			a[i] = random_elem(&seed);
		for (size_t i = 0; i < nb; i++)
			b[i] = random_elem(&seed);
		double t0 = example_now();
		if (!host_matmul(&o, a, b, want)) {
			status = EXIT_HOST;
			break;
		}
		check_s += example_now() - t0;
		if (o.corrupt) {   /* A on the device differs from the host's in one element */
			size_t e = elem(o.kt, o.corrupt_row, o.corrupt_col);
			a[e] = (uint16_t)(example_f32_bits((float)(value(a[e]) + 1.0)) >> 16);
		}
		memset(c, 0, nc * 2);
		if (put(dev, cq, ndram, A_BASE, a, na * 2) != BH_OK || put(dev, cq, ndram, B_BASE, b, nb * 2) != BH_OK ||
		    put(dev, cq, ndram, C_BASE, c, nc * 2) != BH_OK) {
			fprintf(stderr, "matmul: the matrices do not fit the DRAM banks\n");
			status = EXIT_USAGE;
			break;
		}
		if (!o.quiet)
			fprintf(stderr, "matmul: launch %u/%u: A and B in DRAM, running on %u tiles\n", l + 1, o.launches,
				g.cols * g.rows);
		struct bh_launch_stats st;
		t0 = example_now();
		int rc = o.fast ? bh_cq_launch(cq, p, &st)
				: bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = o.timeout }, &st);
		if (o.fast && rc == BH_OK)
			rc = bh_cq_finish(cq);
		if (rc != BH_OK) {
			fprintf(stderr, "matmul: launch %u failed:\n%s%s\n", l + 1, bh_program_error(p), o.fast ? bh_cq_error(cq) : "");
			status = example_exit_status(rc == BH_ERR_CQ ? BH_ERR_FAULT : rc);
			break;
		}
		run_s += example_now() - t0;
		if (o.fast ? bh_cq_read_buffer(cq, true, C_BASE, TILE_BYTES, 0, c, nc * 2) != BH_OK
			   : bh_interleaved_read_banks(dev, true, ndram, C_BASE, TILE_BYTES, 0, c, nc * 2) != BH_OK) {
			fprintf(stderr, "matmul: reading C failed: %s\n", o.fast ? bh_cq_error(cq) : "");
			status = EXIT_HOST;
			break;
		}
		if (!o.quiet)
			fprintf(stderr, "matmul: launch %u/%u: done in %.3f s, checking %zu elements\n", l + 1, o.launches,
				example_now() - t0, nc);
		unsigned wrong = 0;
		for (unsigned i = 0; i < 32 * o.mt; i++)
			for (unsigned j = 0; j < 32 * o.nt; j++) {
				size_t e = elem(o.nt, i, j);
				if (c[e] == want[e])
					continue;
				if (!wrong++)
					fprintf(stderr, "matmul: launch %u: wrong output: C[%u][%u] (tile (%u, %u), on worker (%u, %u)) "
						"is %g (0x%04x), expected %g (0x%04x)\n", l + 1, i, j, i / 32, j / 32,
						j / 32 / g.nb, i / 32 / g.mb, value(c[e]), c[e], value(want[e]), want[e]);
			}
		if (wrong) {
			fprintf(stderr, "matmul: launch %u: %u of %zu elements wrong\n", l + 1, wrong, nc);
			status = EXIT_WRONG;
		}
	}
	if (status == EXIT_OK) {
		double macs = (double)o.mt * o.nt * o.kt * 32768.0 * o.launches, wall = example_now() - t_start;
		printf("matmul: OK, every element of C exact\n"
		       "  workers %u (%u x %u), launches %u, %.3g multiply-adds in %.3f s of launches: %.1f MMAC/s\n"
		       "  host model %.3f s; boot %.3f s; wall time %.3f s\n",
		       g.cols * g.rows, g.cols, g.rows, o.launches, macs, run_s, macs / run_s / 1e6, check_s, boot_s, wall);
		if (o.json)
			printf("{\"board\": \"%s\", \"m\": %u, \"n\": %u, \"k\": %u, \"workers\": %u, \"launches\": %u, "
			       "\"launch_seconds\": %.6f, \"mmac_per_s\": %.3f, \"boot_seconds\": %.6f, \"wall_seconds\": %.6f}\n",
			       bh_board_name(bh_device_board(dev)), o.mt, o.nt, o.kt, g.cols * g.rows, o.launches, run_s,
			       macs / run_s / 1e6, boot_s, wall);
	}
	free(a);
	free(b);
	free(c);
	free(want);
	bh_program_destroy(p);
	bh_cq_close(cq);
	bh_device_close(dev);
	return status;
}
