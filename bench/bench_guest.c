/* Running multi-core guest programs for bench_sync and bench_tensix (bench_guest.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Internal view of a device, read-only here: how often each core parked and whether it is
 * parked now (bh_core.waiter: parks, park_state). The public API has no statistics yet. */
#include "host/device.h"
#include "bench_guest.h"
#include "benchlib.h"

/* ---- Internal statistics of a core ------------------------------------------------------------ */

uint64_t guest_core_parks(struct bh_device *dev, unsigned tile, unsigned core)
{
	return atomic_load_explicit(&dev->tiles[tile]->core[core]->waiter.parks, memory_order_relaxed);
}

bool guest_core_parked(struct bh_device *dev, unsigned tile, unsigned core)
{
	return atomic_load_explicit(&dev->tiles[tile]->core[core]->waiter.park_state, memory_order_acquire) == BH_PARK_WATCH;
}

/* ---- Guest output ---------------------------------------------------------------------------- */

bool guest_capture_begin(struct guest_capture *c)
{
	fflush(stdout);
	c->file = tmpfile();
	c->saved_fd = -1;
	if (c->file == NULL)
		return false;
	c->saved_fd = dup(STDOUT_FILENO);
	if (c->saved_fd < 0 || dup2(fileno(c->file), STDOUT_FILENO) < 0) {
		if (c->saved_fd >= 0)
			close(c->saved_fd);
		fclose(c->file);
		c->file = NULL;
		return false;
	}
	return true;
}

void guest_capture_end(struct guest_capture *c, char *last, size_t len)
{
	char line[512];

	last[0] = '\0';
	if (c->file == NULL)
		return;
	fflush(stdout);
	dup2(c->saved_fd, STDOUT_FILENO);
	close(c->saved_fd);
	rewind(c->file);
	while (fgets(line, sizeof line, c->file) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		size_t n = strlen(line);
		if (n == 0)
			continue;
		n = n < len - 1 ? n : len - 1;
		memcpy(last, line, n);
		last[n] = '\0';
	}
	fclose(c->file);
	c->file = NULL;
}

/* ---- Running a multi-core guest -------------------------------------------------------------- */

bool guest_symbol(struct bh_device *dev, unsigned tile, enum bh_core_id core, const char *elf, const char *name,
		  uint32_t *addr, char *err, size_t errlen)
{
	if (bh_core_symbol_lookup(dev, tile, core, name, addr) == BH_OK)
		return true;
	snprintf(err, errlen, "%s has no symbol %s", elf, name);
	return false;
}

void guest_l1_put32(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t v)
{
	bh_l1_write(dev, tile, addr, &v, sizeof v);   /* little-endian host, like the guest */
}

uint32_t guest_l1_get32(struct bh_device *dev, unsigned tile, uint32_t addr)
{
	uint32_t v = 0;

	bh_l1_read(dev, tile, addr, &v, sizeof v);
	return v;
}

void guest_print_device_report(struct bh_device *dev)
{
	size_t len = 64 * 1024;
	char *buf = malloc(len);

	if (buf != NULL && bh_device_report(dev, buf, len) == BH_OK)
		fprintf(stderr, "%s", buf);
	free(buf);
}

/* Waits until cores 0..ncores-1 of tile 0 have all exited; false (err set) at the first fault,
 * limit or non-zero exit, at a deadlock, or after timeout_s. */
static bool wait_cores(struct bh_device *dev, unsigned ntiles, unsigned ncores, double timeout_s,
		       struct bh_core_result *res, char *err, size_t errlen)
{
	double deadline = benchlib_now() + timeout_s;

	for (;;) {
		int running = -1, running_tile = -1;
		for (unsigned t = 0; t < ntiles; t++)
			for (unsigned k = 0; k < ncores; k++) {
				const char *name = bh_core_name((enum bh_core_id)k);
				struct bh_core_result *r = &res[t == 0 ? k : GUEST_MAX_CORES];
				bh_core_result(dev, t, (enum bh_core_id)k, r);
				if (r->status == BH_RUN_FAULTED) {
					fprintf(stderr, "%s: %s\n", benchlib_program_name(), r->report);
					snprintf(err, errlen, "tile %u %s faulted (report on stderr)", t, name);
					return false;
				}
				if (r->status == BH_RUN_LIMIT) {
					snprintf(err, errlen, "tile %u %s hit an instruction limit", t, name);
					return false;
				}
				if (r->status == BH_RUN_EXITED && r->exit_status != 0) {
					snprintf(err, errlen, "tile %u %s exited with status %d", t, name, r->exit_status);
					return false;
				}
				if (r->status == BH_RUN_RUNNING && running < 0)
					running = (int)k, running_tile = (int)t;
			}
		if (running < 0)
			return true;
		if (benchlib_now() > deadline) {
			snprintf(err, errlen, "still running after %.0f s (device report on stderr)", timeout_s);
			guest_print_device_report(dev);
			return false;
		}
		int rc = bh_core_wait(dev, (unsigned)running_tile, (enum bh_core_id)running, 50, &res[GUEST_MAX_CORES]);
		if (rc == BH_ERR_DEADLOCK) {
			snprintf(err, errlen, "deadlock: every running core waits (device report on stderr)");
			guest_print_device_report(dev);
			return false;
		}
	}
}

bool guest_run(const char *elf, unsigned ncores, guest_patch_fn patch, void *ctx, struct guest_run *out, char *err,
	       size_t errlen)
{
	return guest_run_tiles(elf, 1, ncores, patch, ctx, out, err, errlen);
}

bool guest_run_tiles(const char *elf, unsigned ntiles, unsigned ncores, guest_patch_fn patch, void *ctx,
		     struct guest_run *out, char *err, size_t errlen)
{
	return guest_run_cfg(&(struct bh_device_config){ .num_tiles = ntiles }, elf, ncores, patch, ctx, out, err, errlen);
}

bool guest_run_cfg(const struct bh_device_config *cfg, const char *elf, unsigned ncores, guest_patch_fn patch, void *ctx,
		   struct guest_run *out, char *err, size_t errlen)
{
	unsigned ntiles = cfg && cfg->num_tiles ? cfg->num_tiles : 1;
	struct bh_device *dev;
	struct bh_core_result res[GUEST_MAX_CORES + 1];
	uint32_t entry[GUEST_MAX_CORES];
	char msg[512], sym[32];
	bool ok = false;

	if (elf[0] == '\0') {
		snprintf(err, errlen, "no guest ELF in this build (needs riscv64-unknown-elf-gcc)");
		return false;
	}
	if (bh_device_open(cfg, &dev) != BH_OK) {
		snprintf(err, errlen, "cannot open a device of %u tiles", ntiles);
		return false;
	}
	for (unsigned t = 0; t < ntiles; t++)
		for (unsigned k = 0; k < ncores; k++) {
			enum bh_core_id core = (enum bh_core_id)k;
			if (bh_load_elf(dev, t, core, elf, NULL, &entry[k], msg, sizeof msg) != BH_OK) {
				snprintf(err, errlen, "%s", msg);
				goto out;
			}
			snprintf(sym, sizeof sym, "_start_%s", bh_core_name(core));
			if (!guest_symbol(dev, t, core, elf, sym, &entry[k], err, errlen))
				goto out;
			bh_core_enable_host_calls(dev, t, core, true);
		}
	if (!patch(dev, elf, ctx, err, errlen))
		goto out;

	struct guest_capture cap;
	char last[256];
	if (!guest_capture_begin(&cap)) {
		snprintf(err, errlen, "cannot redirect the guest's output: %s", strerror(errno));
		goto out;
	}
	double t0 = benchlib_now();
	for (unsigned t = 0; t < ntiles; t++)
		for (unsigned k = 0; k < ncores; k++)
			bh_core_start(dev, t, (enum bh_core_id)k, entry[k]);
	ok = wait_cores(dev, ntiles, ncores, GUEST_TIMEOUT_S, res, err, errlen);
	out->seconds = benchlib_now() - t0;
	guest_capture_end(&cap, last, sizeof last);
	if (!ok && last[0] != '\0')
		benchlib_appendf(err, errlen, "; guest said: %s", last);
	for (unsigned k = 0; k < ncores; k++) {
		out->instructions[k] = res[k].instructions;
		out->parks[k] = guest_core_parks(dev, 0, k);
	}
	bh_device_tensix_stats(dev, &out->tensix);
out:
	bh_device_close(dev);
	return ok;
}
