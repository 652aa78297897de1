/* Running multi-core guest programs in-process for the harnesses that link the emulator
 * (bench_sync, bench_tensix): a fresh one-tile device per run, the guest's parameters patched
 * by symbol, every core started at its _start_<core>, the guest's output kept off the table,
 * and the cores' parking statistics read from the internal device headers. */
#ifndef BENCH_GUEST_H
#define BENCH_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bhemu/bhemu.h"

#define GUEST_MAX_CORES 5
#define GUEST_TIMEOUT_S 300.0

/* ---- Internal statistics of a core ---- */

/* How often the core parked since the device opened. */
uint64_t guest_core_parks(struct bh_device *dev, unsigned tile, unsigned core);
/* True while the core sleeps in a poll-loop park on watched words (no timeout). */
bool guest_core_parked(struct bh_device *dev, unsigned tile, unsigned core);

/* ---- Guest output ----
 * Guests print through the write host call to fd 1. While they run, fd 1 goes to a temporary
 * file, so that the table (or JSON on stdout) stays clean; the last line says what went wrong. */

struct guest_capture {
	FILE *file;
	int saved_fd;
};

bool guest_capture_begin(struct guest_capture *c);
/* Restores fd 1 and keeps the guest's last non-empty line in last. */
void guest_capture_end(struct guest_capture *c, char *last, size_t len);

/* ---- Running a guest ---- */

/* *addr = the symbol's address in the ELF loaded for core of tile; false (err set) without it. */
bool guest_symbol(struct bh_device *dev, unsigned tile, enum bh_core_id core, const char *elf, const char *name,
		  uint32_t *addr, char *err, size_t errlen);
void guest_l1_put32(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t v);
uint32_t guest_l1_get32(struct bh_device *dev, unsigned tile, uint32_t addr);
/* Prints the device's who-waits-on-what report to stderr (after a deadlock or a timeout). */
void guest_print_device_report(struct bh_device *dev);

/* Writes a guest's parameters between loading and starting (L1 words found by symbol). */
typedef bool (*guest_patch_fn)(struct bh_device *dev, const char *elf, void *ctx, char *err, size_t errlen);

struct guest_run {
	double seconds;                 /* first start to last exit */
	uint64_t instructions[GUEST_MAX_CORES];
	uint64_t parks[GUEST_MAX_CORES];
	struct bh_tensix_stats tensix;  /* every tile's Tensix words, by whom, hand-overs */
};

/* Loads elf for cores 0..ncores-1 of a fresh one-tile device, patches it, starts every core at
 * its _start_<core> (BRISC first: it releases the others) and waits until all have exited 0.
 * False (err set) at a fault, a limit, a non-zero exit, a deadlock or after GUEST_TIMEOUT_S. */
bool guest_run(const char *elf, unsigned ncores, guest_patch_fn patch, void *ctx, struct guest_run *out, char *err,
	       size_t errlen);
/* The same on every tile of a fresh device of ntiles tiles (rows of 14); instructions and parks
 * are tile 0's; patch writes every tile. */
bool guest_run_tiles(const char *elf, unsigned ntiles, unsigned ncores, guest_patch_fn patch, void *ctx,
		     struct guest_run *out, char *err, size_t errlen);
/* The same on a device opened with cfg (NULL: one tile, the defaults; cfg->num_tiles tiles of a
 * grid), e.g. serial scheduling. */
bool guest_run_cfg(const struct bh_device_config *cfg, const char *elf, unsigned ncores, guest_patch_fn patch, void *ctx,
		   struct guest_run *out, char *err, size_t errlen);

#endif
