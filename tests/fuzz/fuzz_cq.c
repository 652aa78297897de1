/* Fuzz harness for fast dispatch (host/cq.c, cores/cq_*.c): the input is a command stream fed
 * through the public queue API on a freshly booted 3x2 grid (tiles 2 and 5 are the prefetch and
 * dispatch cores, the other four are workers). Every input must end in completion or in a named
 * error (BH_ERR_CQ with a report naming a core, a timeout, a fault, a deadlock) within the
 * queue's 0.3 s timeout per wait; a crash, hang, leak, or a read that misses the write just
 * before it (issue 12 defect 2) is a finding.
 *
 * The input is a sequence of steps, each starting with a selector byte s:
 *   s % 4 == 0  a dispatch command: id = next byte % 20, length = next 2 bytes (LE) % 2048; the
 *               command's bytes after the id come from the input (zero where it ends), so fields,
 *               sub-commands and payload are the input's, and a length below the header is a
 *               truncated command; bh_cq_enqueue_dispatch.
 *   s % 4 == 1  a fetch record of prefetch commands: 16 * (1 + next byte % 32) bytes from the input,
 *               byte 0 taken % 16 (the command id); bh_cq_enqueue_record.
 *   s % 4 == 2  bh_cq_finish.
 *   s % 4 == 3  a buffer write, then at once a read of the same pages: 1 + next byte % 8 pages of 64
 *               bytes (DRAM when bit 7 of s is set, else L1 banks at 0x100000), data from the input;
 *               the read must return what was written.
 * At most 24 steps run; then a finish and the queue's close. The device is booted anew for every
 * input, so no input sees what an earlier one left behind. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/bhemu.h"
#include "cores/cq_cmds.h"
#include "host/cq.h"

#define MAX_STEPS 24
#define MAX_DISPATCH 2048u
#define STREAM_TIMEOUT_S 0.3   /* per wait of the fuzzed stream */
#define BUF_BASE 0x100000u   /* above every CQ structure (L1 banks include the CQ tiles) */

struct input {
	const uint8_t *p;
	size_t left;
};

static unsigned take(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* n bytes from the input into dst, zero once it ends. */
static void take_bytes(struct input *in, uint8_t *dst, size_t n)
{
	size_t k = n < in->left ? n : in->left;
	memcpy(dst, in->p, k);
	memset(dst + k, 0, n - k);
	in->p += k;
	in->left -= k;
}

static struct bh_device *boot_grid(void)
{
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 3, .grid_rows = 2 };
	struct bh_device *dev = NULL;
	struct bh_boot_result res = { 0 };
	if (bh_device_open(&cfg, &dev) != BH_OK) {
		fprintf(stderr, "fuzz_cq: cannot open a 3x2 grid\n");
		abort();
	}
	/* The build's reference firmware (targets guest_ref_brisc .. guest_ref_trisc2), or FUZZ_CQ_FIRMWARE. */
	const char *fw = getenv("FUZZ_CQ_FIRMWARE") ? getenv("FUZZ_CQ_FIRMWARE") : BHEMU_BINARY_DIR "/firmware/ref";
	int rc = bh_boot(dev, bh_profile_default(), fw, &(struct bh_boot_options){ .timeout_s = 10 }, &res);
	if (rc != BH_OK) {
		fprintf(stderr, "fuzz_cq: boot with the firmware in %s failed (%d): %s\n(build the targets guest_ref_brisc, "
			"guest_ref_ncrisc, guest_ref_trisc0..2 of this build, or point FUZZ_CQ_FIRMWARE at a directory of "
			"them)\n", fw, rc, res.message);
		abort();
	}
	free(res.report);
	return dev;
}

/* Step s % 4 == 3: write then read back at once, without a finish in between. */
static int buffer_round_trip(struct bh_cq *cq, struct input *in, unsigned s)
{
	enum { PS = 64 };
	uint8_t src[8 * PS], back[8 * PS];
	bool dram = s & 0x80;
	size_t len = (size_t)(1 + take(in) % 8) * PS;
	take_bytes(in, src, len);
	int rc = bh_cq_write_buffer(cq, dram, BUF_BASE, PS, 0, src, len);
	if (rc == BH_OK)
		rc = bh_cq_read_buffer(cq, dram, BUF_BASE, PS, 0, back, len);
	if (rc == BH_OK && memcmp(src, back, len)) {
		fprintf(stderr, "fuzz_cq: a %s read right after a write returned other bytes\n", dram ? "DRAM" : "L1");
		abort();
	}
	return rc;
}

static int run_step(struct bh_cq *cq, struct input *in)
{
	static uint8_t cmd[MAX_DISPATCH];
	unsigned s = take(in);
	switch (s % 4) {
	case 0: {
		cmd[0] = (uint8_t)(take(in) % 20);
		uint32_t len = (take(in) | take(in) << 8) % MAX_DISPATCH;
		if (len > 1)
			take_bytes(in, cmd + 1, len - 1);
		return bh_cq_enqueue_dispatch(cq, cmd, len);
	}
	case 1: {
		uint32_t len = 16 * (1 + take(in) % 32);
		take_bytes(in, cmd, len);
		cmd[0] %= 16;
		return bh_cq_enqueue_record(cq, cmd, len);
	}
	case 2:
		return bh_cq_finish(cq);
	default:
		return buffer_round_trip(cq, in, s);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool named_error(int rc)
{
	return rc == BH_OK || rc == BH_ERR_CQ || rc == BH_ERR_TIMEOUT || rc == BH_ERR_FAULT || rc == BH_ERR_DEADLOCK ||
	       rc == BH_ERR_ARG;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct bh_device *dev = boot_grid();
	struct bh_cq *cq = NULL;
	char err[512];
	/* Open (its worker reset is known good) with a timeout a loaded machine cannot reach, then
	 * bound the fuzzed stream's waits. */
	struct bh_cq_config cfg = { .issue_size = 1u << 20, .completion_size = 64u << 10, .timeout_s = 10 };
	int rc = bh_cq_open(dev, &cfg, &cq, err, sizeof err);
	if (rc != BH_OK) {
		fprintf(stderr, "fuzz_cq: bh_cq_open on a fresh device: %d %s\n", rc, err);
		abort();
	}
	cq->timeout_s = STREAM_TIMEOUT_S;
	for (unsigned k = 0; k < MAX_STEPS && in.left && rc == BH_OK; k++)
		rc = run_step(cq, &in);
	if (rc == BH_OK)
		rc = bh_cq_finish(cq);
	const char *e = bh_cq_error(cq);
	if (!named_error(rc) || (rc != BH_OK && rc != BH_ERR_ARG && !*e)) {
		fprintf(stderr, "fuzz_cq: the stream ended with %d and no report\n", rc);
		abort();
	}
	if (getenv("FUZZ_CQ_VERBOSE"))   /* each input's outcome, for looking at a corpus */
		fprintf(stderr, "fuzz_cq: %zu bytes: rc %d %s\n", size, rc, e);
	bh_cq_close(cq);
	bh_device_close(dev);
	return 0;
}
