/* What slow dispatch (host/program.c) and fast dispatch (host/cq_launch.c) share: a program laid
 * out and relocated for one launch, and the per-tile bytes of launch.md 9-10 built from it. */
#ifndef BH_HOST_PROGRAM_H
#define BH_HOST_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "bhemu/bhemu.h"

struct bh_prog_launch {
	struct bh_program *p;
	const struct bh_profile *prof;
	uint32_t kcb;
	uint8_t *blob;          /* [blob_off, size) of the layout: CB configs and images */
	uint8_t *args;          /* [0, blob_off): per-tile runtime args and semaphores */
	uint8_t **placed;       /* per kernel: the image at its slot */
	bool *active, *done;    /* per tile: runs a kernel / finished */
	unsigned nactive;
	struct bh_launch_stats *st;
};

enum { BH_DISPATCH_MODE_DEV = 0, BH_DISPATCH_MODE_HOST = 1 };

/* Lay the program out and relocate its kernels (errors in bh_program_error). Call _end after
 * either result. */
int bh_prog_launch_begin(struct bh_program *p, struct bh_prog_launch *L, struct bh_launch_stats *st);
void bh_prog_launch_end(struct bh_prog_launch *L);
bool bh_prog_tile_active(const struct bh_program *p, unsigned t);
/* Tile t's runtime args and semaphores into L->args (bh_prog_args_size bytes at kcb). */
void bh_prog_build_args(struct bh_prog_launch *L, unsigned t);
/* Tile t's CB configs and kernel images into L->blob (bh_prog_blob_size bytes at kcb + args). */
void bh_prog_build_blob(struct bh_prog_launch *L, unsigned t, uint32_t *cb_mask);
/* Tile t's launch message (profile's launch_entry_size, 96 B on p100a). */
void bh_prog_build_msg(struct bh_prog_launch *L, unsigned t, uint32_t cb_mask, unsigned noc, unsigned mode,
		       uint8_t *msg);
uint32_t bh_prog_args_size(const struct bh_prog_launch *L);
uint32_t bh_prog_blob_size(const struct bh_prog_launch *L);
/* Tile t does not hold this program's blob yet. */
bool bh_prog_upload_needed(struct bh_prog_launch *L, unsigned t);
/* Tile t now holds it: symbols for reports follow. */
void bh_prog_mark_resident(struct bh_prog_launch *L, unsigned t);
/* CB page counts for the protocol checks, from the blob in L->blob. */
void bh_prog_set_cb_pages(struct bh_prog_launch *L, unsigned t, uint32_t cb_mask);
/* local_cb_mask of tile t (what bh_prog_build_blob also returns, without building the blob). */
uint32_t bh_prog_cb_mask(const struct bh_prog_launch *L, unsigned t);
struct bh_device *bh_prog_device(const struct bh_program *p);
int bh_prog_fail(struct bh_program *p, int rc, const char *msg);

#endif
