/* The mechanism of a tile's address decode: a table of regions above L1 (memory-map.md section
 * 1), each with the requesters allowed to read and write it, the device module that serves it
 * and where that module's state is. The table itself belongs to the tile assembly
 * (tile/decode.c), which links it to each tile (tile->regions); every core kind, the host and
 * the NoC go through bh_mmio_access(). */
#ifndef BH_FABRIC_MMIO_H
#define BH_FABRIC_MMIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/fault.h"
#include "fabric/hw.h"

struct bh_tile;
struct bh_region;

/* Requesters: core kinds 0..4, and the host/NoC side. */
#define BH_REQ_HOST 5
#define BH_REQ_BIT(r) (1u << (r))

struct bh_access {
	void *dev;                 /* the serving device's state (the region's state(tile)) */
	struct bh_tile *tile;      /* the tile around it: watch announcements, waiter sets */
	unsigned who;              /* enum bh_core_kind or BH_REQ_HOST */
	uint32_t addr;
	uint32_t off;              /* addr - region base */
	unsigned size;             /* 1, 2 or 4 */
	const struct bh_region *region;
	struct bh_fault *fault;
	/* A device that must make the requester wait (PCBuf pop on empty, ...) registers it on its
	 * bh_waitq, re-checks, and returns bh_access_block(): the core parks and retries the
	 * instruction when woken. Host requests cannot wait (wait_what == NULL): they fail. */
	bool blocked;
	char *wait_what;
	unsigned wait_len;
	/* 0, or an access a Tensix thread makes (STOREREG, LOADREG): BH_TT_ACC and the thread's
	 * units with instructions no STALLWAIT has yet ordered before it (BH_TT_OPEN_*). */
	uint8_t tensix;
};

/* bh_access.tensix, and the units of a Tensix thread whose instructions a later access of the
 * thread (or of its TRISC) is not ordered after, for cb-publish-early (races.md #9). The unit
 * bits are STALLWAIT's conditions C1..C3 for them (sync.md 8): a STALLWAIT on C_k that holds
 * the scalar unit orders what follows after unit k's instructions. */
#define BH_TT_ACC 0x01u
#define BH_TT_OPEN_UNPACK0 0x02u    /* C1: an instruction in unpacker 0 */
#define BH_TT_OPEN_UNPACK1 0x04u    /* C2: unpacker 1 */
#define BH_TT_OPEN_PACK 0x08u       /* C3: the packer */
#define BH_TT_OPEN_UNPACK (BH_TT_OPEN_UNPACK0 | BH_TT_OPEN_UNPACK1)

enum bh_acc {
	BH_ACC_FAULT = 0,
	BH_ACC_OK = 1,
	BH_ACC_BLOCKED = 2,
};

/* Mark the access as blocked and say on what (for deadlock reports). Returns false. */
__attribute__((format(printf, 2, 3)))
bool bh_access_block(struct bh_access *a, const char *fmt, ...);

typedef bool (*bh_dev_read_fn)(struct bh_access *a, uint32_t *val);
typedef bool (*bh_dev_write_fn)(struct bh_access *a, uint32_t val);

/* Parked poll loops (cores/spin.c) watch words whose reads have no side effects and whose
 * writers announce changes (bh_tile_mmio_written, sync/watch.h). A region's watch function
 * says, for a read of addr by requester `who`, at which address a change of that word is
 * announced; BH_WATCH_TIMED for the wall clock, which nobody announces (the poller sleeps with
 * a timeout instead); BH_WATCH_NONE where a parked core could not be woken. No function: the
 * region cannot be watched. */
#define BH_WATCH_NONE 0u
#define BH_WATCH_TIMED 1u
typedef uint32_t (*bh_dev_watch_fn)(unsigned who, uint32_t addr);
/* Name of the word at addr for reports ("stream 8 reg 10 (CB0 tiles_received)"). */
typedef const char *(*bh_dev_describe_fn)(struct bh_tile *t, uint32_t addr, char *buf, size_t n);

/* The state of the device that serves a region, in one tile (as the opaque pointer of a QEMU or
 * TinyEMU memory region). */
typedef void *(*bh_dev_state_fn)(struct bh_tile *t);

struct bh_region {
	uint32_t base, size;
	const char *name;
	uint8_t read_mask, write_mask;   /* BH_REQ_BIT of allowed requesters */
	uint8_t widths;                  /* allowed access sizes: bit 1/2/4 */
	bh_dev_read_fn read;             /* NULL: the device is not modelled yet */
	bh_dev_write_fn write;
	bh_dev_state_fn state;           /* handlers' a->dev; NULL: the tile */
	const char *missing;             /* why it is not modelled, when read/write are NULL */
	bh_dev_watch_fn watch;           /* NULL: not watchable */
	bh_dev_describe_fn describe;     /* NULL: "<region name> 0x<addr>" */
	uint8_t sync;                    /* enum bh_sync_point (sync/provoke.h): provocation delays here */
};

/* Read or write `size` bytes at addr above L1 (or misaligned in L1) for requester `who`.
 * BH_ACC_FAULT: *fault says why. BH_ACC_BLOCKED: the device registered the requesting core as a
 * waiter and wrote what it waits for into wait_what (NULL for the host: never blocks). */
enum bh_acc bh_mmio_access(struct bh_tile *tile, unsigned who, uint32_t addr, unsigned size, bool store,
			   uint32_t *val, struct bh_fault *fault, char *wait_what, unsigned wait_len);
/* The same for a 4-byte access of a Tensix thread (STOREREG, LOADREG) as TRISC `who`, with
 * bh_access.tensix = BH_TT_ACC | open (never blocks). */
enum bh_acc bh_mmio_access_tensix(struct bh_tile *tile, unsigned who, uint32_t addr, bool store, uint32_t *val,
				  struct bh_fault *fault, unsigned open);
const struct bh_region *bh_mmio_region(const struct bh_tile *tile, uint32_t addr);
/* What bh_mmio_access returns for an access its handler served (ok) or refused: a blocked one
 * stays blocked, a fault gets the access's address, direction and size. For device lanes that
 * call a handler without the general decode (fabric/niu.h). */
enum bh_acc bh_access_result(struct bh_access *a, bool ok, bool store);
/* A page index of a region table, so that a lookup costs one load instead of a scan: per 4 KiB
 * page from BH_MMIO_INDEX_BASE to the top of the address space, 0 when no region touches the
 * page, k + 1 when region k is the only one, BH_MMIO_INDEX_MANY when several share it (those
 * pages are scanned). Built once per table (tile->region_index); a tile without one scans. */
#define BH_MMIO_INDEX_BASE 0xFFB00000u
#define BH_MMIO_INDEX_PAGES ((uint32_t)(0x100000000ull - BH_MMIO_INDEX_BASE) >> 12)
#define BH_MMIO_INDEX_MANY 0xFFu
void bh_mmio_index_build(const struct bh_region *regions, unsigned n, uint8_t index[BH_MMIO_INDEX_PAGES]);
const char *bh_requester_name(unsigned who);
/* The table's watch function for addr (L1: addr itself), or BH_WATCH_NONE. */
uint32_t bh_mmio_watch(const struct bh_tile *tile, unsigned who, uint32_t addr);
/* A register's name from its region (L1 and unmapped addresses get a plain name). */
const char *bh_mmio_describe(struct bh_tile *t, uint32_t addr, char *buf, size_t n);
/* Watch functions of the windows whose words are announced where they are read. */
uint32_t bh_watch_same(unsigned who, uint32_t addr);

#endif
