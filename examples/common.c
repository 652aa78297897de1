/* Helpers of the example host programs (common.h). */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double example_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int example_exit_status(int rc)
{
	switch (rc) {
	case BH_ERR_FAULT: return EXIT_FAULT;
	case BH_ERR_DEADLOCK: return EXIT_DEADLOCK;
	case BH_ERR_TIMEOUT: return EXIT_TIMEOUT;
	case BH_ERR_SYS: return EXIT_HOST;
	default: return EXIT_USAGE;
	}
}

uint32_t example_xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

const char *example_kernel(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s.elf", BHEMU_KERNEL_DIR, name);
	return buf;
}

static int example_board(const char *s, struct bh_device_config *cfg)
{
	unsigned c, r;
	char end;
	memset(cfg, 0, sizeof *cfg);
	if (sscanf(s, "grid:%ux%u%c", &c, &r, &end) == 2) {
		cfg->board = BH_BOARD_GRID;
		cfg->grid_cols = c;
		cfg->grid_rows = r;
		return c >= 1 && c <= 14 && r >= 1 && r <= 10 ? 0 : -1;
	}
	return bh_board_parse(s, &cfg->board);
}

struct bh_device *example_boot(const char *board, double *boot_seconds)
{
	struct bh_device_config cfg;
	struct bh_device *dev;
	struct bh_profile prof;
	char err[1024];
	if (example_board(board, &cfg) != 0) {
		fprintf(stderr, "unknown board '%s' (p150, p100 or grid:CxR)\n", board);
		return NULL;
	}
	if (bh_profile_derive(BHEMU_REF_FIRMWARE_DIR, bh_profile_default(), &prof, err, sizeof err) != BH_OK) {
		fprintf(stderr, "reference firmware: %s\n", err);
		return NULL;
	}
	if (bh_device_open(&cfg, &dev) != BH_OK) {
		fprintf(stderr, "cannot create the device (out of memory or threads)\n");
		return NULL;
	}
	struct bh_boot_result res;
	int rc = bh_boot(dev, &prof, BHEMU_REF_FIRMWARE_DIR, &(struct bh_boot_options){ .timeout_s = 10 }, &res);
	if (rc != BH_OK) {
		fprintf(stderr, "boot failed: %s%s", res.message, res.report ? res.report : "");
		free(res.report);
		bh_device_close(dev);
		return NULL;
	}
	free(res.report);
	if (boot_seconds)
		*boot_seconds = res.seconds;
	return dev;
}

float example_f32(uint32_t b)
{
	float f;
	memcpy(&f, &b, 4);
	return f;
}

uint32_t example_f32_bits(float f)
{
	uint32_t b;
	memcpy(&b, &f, 4);
	return b;
}

uint16_t example_bf16_round_away(double v)
{
	if (v == 0)
		return 0;
	double ulp = ldexp(1, ilogb(v) - 7);
	return (uint16_t)(example_f32_bits((float)copysign(floor(fabs(v) / ulp + 0.5) * ulp, v)) >> 16);
}
