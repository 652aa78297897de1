/* DRAM -> L1 -> DRAM loopback: on every tile BRISC (k_loopback) reads its share of an interleaved
 * DRAM buffer page by page into an L1 buffer and writes each page to a second interleaved buffer;
 * the host checks the copy byte for byte. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define SRC_BASE	0x00200000u
#define DST_BASE	0x04000000u

static void usage(FILE *f)
{
	fprintf(f,
		"usage: loopback [--board p150|p100|grid:CxR] [--pages N] [--page-size BYTES]\n"
		"Copies N pages per tile (default 16 of 2048 B) DRAM -> L1 -> DRAM on every tile and checks\n"
		"the copy. exit status: 0 exact; 1 host failure; 2 bad usage; 3 launch failed; 4 wrong data.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "board", required_argument, NULL, 'b' }, { "pages", required_argument, NULL, 'p' },
		{ "page-size", required_argument, NULL, 's' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *board = "p150";
	unsigned pages = 16, page_size = 2048;
	int opt;
	while ((opt = getopt_long(argc, argv, "b:p:s:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b': board = optarg; break;
		case 'p': pages = (unsigned)strtoul(optarg, NULL, 0); break;
		case 's': page_size = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc || pages == 0 || page_size == 0 || page_size % 16 || page_size > 65536) {
		usage(stderr);
		return EXIT_USAGE;
	}
	struct bh_device *dev = example_boot(board, NULL);
	if (!dev)
		return EXIT_HOST;
	unsigned tiles = bh_device_num_tiles(dev), ndram = 0;
	bh_device_boot_banks(dev, &ndram, NULL);
	struct bh_program *p = NULL;
	struct bh_core_range all[2];
	unsigned nall = bh_device_all_tiles(dev, all);
	char path[512];
	int status = bh_program_create(dev, &p) == BH_OK ? EXIT_OK : EXIT_HOST;
	int k = status ? -1 : bh_program_add_kernel(p, BH_CORE_BRISC, example_kernel(path, sizeof path, "k_loopback"),
						    all, nall, NULL, 0);
	/* The L1 buffer is a one-page CB: the program allocates it above the firmware's areas. */
	struct bh_cb_config buf = { .index = 0, .page_size = page_size, .num_pages = 1 };
	uint32_t l1 = 0;
	if (k < 0 || bh_program_add_cb(p, &buf, all, nall) != BH_OK || bh_program_cb_address(p, 0, 0, &l1) != BH_OK) {
		fprintf(stderr, "loopback: %s\n", p ? bh_program_error(p) : "out of memory");
		status = EXIT_USAGE;
	}
	for (unsigned t = 0; t < tiles && status == EXIT_OK; t++) {
		uint32_t a[6] = { SRC_BASE, DST_BASE, page_size, t * pages, pages, l1 };
		if (bh_program_set_runtime_args(p, k, t, a, 6) != BH_OK)
			status = EXIT_HOST;
	}
	size_t len = (size_t)tiles * pages * page_size;
	uint8_t *src = malloc(len), *dst = calloc(1, len);
	if (!src || !dst)
		status = EXIT_HOST;
	for (size_t i = 0; status == EXIT_OK && i < len; i++)
		src[i] = (uint8_t)(i * 131u + (i >> 9));
	if (status == EXIT_OK && (bh_interleaved_write_banks(dev, true, ndram, SRC_BASE, page_size, 0, src, len) ||
				  bh_interleaved_write_banks(dev, true, ndram, DST_BASE, page_size, 0, dst, len))) {
		fprintf(stderr, "loopback: the buffers do not fit the DRAM banks\n");
		status = EXIT_USAGE;
	}
	double t0 = example_now();
	if (status == EXIT_OK && bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = 60 }, NULL) != BH_OK) {
		fprintf(stderr, "loopback: %s\n", bh_program_error(p));
		status = EXIT_FAULT;
	}
	double secs = example_now() - t0;
	if (status == EXIT_OK) {
		bh_interleaved_read_banks(dev, true, ndram, DST_BASE, page_size, 0, dst, len);
		for (size_t i = 0; i < len && status == EXIT_OK; i++)
			if (dst[i] != src[i]) {
				fprintf(stderr, "loopback: byte %zu (page %zu) is 0x%02x, expected 0x%02x\n", i, i / page_size,
					dst[i], src[i]);
				status = EXIT_WRONG;
			}
	}
	if (status == EXIT_OK)
		printf("loopback: %u tiles copied %zu bytes DRAM -> L1 -> DRAM in %.3f s, exact\n", tiles, len, secs);
	free(src);
	free(dst);
	bh_program_destroy(p);
	bh_device_close(dev);
	return status;
}
