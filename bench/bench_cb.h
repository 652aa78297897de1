/* CB throughput measurements shared by bench_sync and bench_tensix: a multi-core guest moving
 * pages through circular buffers (tests/guest/mc/), against native_cb_chain (sync_native.h)
 * doing the same with host threads, runs interleaved so that both see the same machine load. */
#ifndef BENCH_CB_H
#define BENCH_CB_H

#include <stdint.h>

#include "bench_guest.h"
#include "benchlib.h"
#include "sync_native.h"

#define BENCH_CB_PAGE_SIZE 64          /* bytes per CB page in every measurement (the guests' default) */
#define BENCH_CB_PINGPONG_BAR 0.25     /* the ping-pong must reach this fraction of the native rate */
#define BENCH_CB_MAX_REPEAT 20

/* Best of `repeat` (1..BENCH_CB_MAX_REPEAT) runs of elf on cores 0..ncores-1 (patched by patch
 * with ctx) and of native_cb_chain over cbs, both moving `pages` pages: pages/s into r, with each
 * run and the per-core instructions and parks per page in the diagnostics and JSON. */
void bench_cb_measure(struct benchlib_row *r, int repeat, const char *elf, unsigned ncores, guest_patch_fn patch,
		      void *ctx, const struct native_cb *cbs, uint32_t pages);

/* cb_pingpong.c (elf): BRISC -> NCRISC, `pages` pages through a cb_pages-page CB; names r and
 * sets its bar (BENCH_CB_PINGPONG_BAR of the native rate). */
void bench_cb_pingpong(struct benchlib_row *r, int repeat, const char *elf, uint32_t pages, uint32_t cb_pages);

#endif
