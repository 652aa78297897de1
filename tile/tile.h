/* The tile assembly: a Tensix tile as a whole, its devices (struct bh_tile, fabric/tile.h), five
 * baby RISC-V cores (cores/core.h) and the Tensix coprocessor (cores/tensix.h), and its address
 * decode table (tile/decode.c). This layer sits above cores/: it is the one place that knows
 * both the devices and the cores, creates them, links them (tile->core, tile->tensix,
 * tile->waiter, tile->regions) and drives core lifecycle through the tile's control registers. */
#ifndef BH_TILE_TILE_H
#define BH_TILE_TILE_H

#include <stdint.h>

#include "cores/core.h"
#include "cores/tensix.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"

struct bh_chip;

struct bh_worker_tile {
	struct bh_tile dev;                       /* the devices; a tile's struct bh_tile * */
	struct bh_core core[BH_CORES_PER_TILE];   /* indexed by enum bh_core_kind */
	struct bh_tensix tensix;
};

/* Allocate and assemble tile `index` of chip (chip->topo built): devices, cores (held in reset,
 * no thread yet) and coprocessor, linked. NULL when out of memory. */
struct bh_tile *bh_worker_tile_create(struct bh_chip *chip, unsigned index);
/* Device closing: every core thread of the tile leaves, whatever it is doing. */
void bh_worker_tile_shutdown(struct bh_tile *tile);
/* Join the tile's core threads (after bh_worker_tile_shutdown). */
void bh_worker_tile_join(struct bh_tile *tile);
/* Join (if not done yet), then free everything. */
void bh_worker_tile_free(struct bh_tile *tile);

/* The tile's actors for the deadlock monitor (sync/deadlock.h): its five cores, then its three
 * Tensix threads. Fills out[BH_TILE_WAITERS]. */
#define BH_TILE_WAITERS (BH_CORES_PER_TILE + BH_TT_THREADS)
void bh_worker_tile_waiters(struct bh_tile *tile, struct bh_waiter **out);

/* Write SOFT_RESET_0: holds or releases cores. `who` is the writer (enum bh_core_kind of a core of
 * this tile, on that core's own thread, or BH_REQ_HOST): each core it puts in reset records it.
 * Caller must not hold tile->lock. */
void bh_tile_soft_reset_write(struct bh_tile *tile, uint32_t value, unsigned who);

/* The decode table of a Tensix tile (tile/decode.c). */
extern const struct bh_region bh_worker_regions[];
extern const unsigned bh_worker_nregions;

/* Device modules of the tile itself (tile/tile_ctrl.c): tile control and debug registers, the
 * TDMA-RISC window, the pc snapshots. Their state is the tile. */
bool bh_tile_ctrl_read(struct bh_access *a, uint32_t *val);
bool bh_tile_ctrl_write(struct bh_access *a, uint32_t val);
uint32_t bh_tile_ctrl_watch(unsigned who, uint32_t addr);
bool bh_tdma_read(struct bh_access *a, uint32_t *val);
bool bh_tdma_write(struct bh_access *a, uint32_t val);
bool bh_pc_snapshot_read(struct bh_access *a, uint32_t *val);

#endif
