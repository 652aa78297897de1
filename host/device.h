/* Internal view of a device: tiles, per-core symbol tables, completion notification. */
#ifndef BH_HOST_DEVICE_H
#define BH_HOST_DEVICE_H

#include <pthread.h>
#include <stdbool.h>

#include "bhemu/bhemu.h"
#include "fabric/chip.h"
#include "tile/tile.h"
#include "host/elf.h"

/* The public core ids are the device's core kinds: the API passes them through unchanged. */
_Static_assert(BH_CORE_BRISC == (int)BH_BRISC && BH_CORE_NCRISC == (int)BH_NCRISC && BH_CORE_TRISC0 == (int)BH_TRISC0 &&
	       BH_CORE_TRISC1 == (int)BH_TRISC1 && BH_CORE_TRISC2 == (int)BH_TRISC2 && BH_CORES_PER_TILE == 5,
	       "enum bh_core_id and enum bh_core_kind must agree");

struct bh_kernel_image;

/* The kernel image last placed for a core (host/program.c), for symbols in reports. */
struct bh_kernel_sym {
	struct bh_kernel_image *img;     /* a reference, or NULL */
	uint32_t addr;                   /* L1 address it was placed at */
};

struct bh_device {
	/* Topology, DRAM, host memory (fabric/chip.h). chip.tiles is the tiles array below. */
	struct bh_chip chip;
	unsigned ntiles;                 /* chip.topo.ntiles once open */
	struct bh_trace *trace;          /* the timeline trace being recorded (host/trace.c), or NULL */
	struct bh_tile **tiles;          /* index = row-major logical position */
	/* Symbols for reports, per tile and core: the ELFs last loaded for that core (owned). */
	struct bh_elf **elf;             /* ntiles * BH_CORES_PER_TILE, NULL where nothing loaded */
	/* Core state changes (exit, fault, limit, reset) are announced on cond under lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool shutdown;                   /* read by core threads under tile->lock */
	/* Deadlock monitor (sync/deadlock.h): a thread that looks every deadlock_ms / 4. */
	_Atomic uint64_t host_epoch;     /* bumped by every host write or start */
	pthread_t monitor;
	pthread_cond_t monitor_cond;     /* wakes the monitor for shutdown */
	bool monitor_started;
	bool monitor_stop;               /* under lock */
	bool deadlocked;                 /* under lock; sticky until the host acts again */
	int deadlock_ms;
	struct bh_waiter **waiters;      /* what the monitor watches (sync/deadlock.h) */
	unsigned nwaiters;
	/* What bh_boot left: the profile programs lay out their launches with (host/program.c). */
	bool booted;
	struct bh_profile boot_profile;
	unsigned boot_dram_banks, boot_l1_banks;
	/* Per tile: the program blob (CB configs + kernel images) in its kernel-config area, 0 = none;
	 * per tile and core: the kernel placed there. A leaf lock: fault formatting takes it under a
	 * tile's lock. */
	pthread_mutex_t ksym_lock;
	uint64_t *kcb_resident;
	struct bh_kernel_sym *ksym;      /* ntiles * BH_CORES_PER_TILE */
	/* The open fast-dispatch command queue (host/cq.c), or NULL; closed with the device. */
	struct bh_cq *cq;
	_Atomic uint64_t next_blob_id;   /* program blob ids (host/program.c), from 1 */
};

/* The provocation of bh_device_open's config and the environment (host/provoke.c); needs the
 * topology. BH_OK, BH_ERR_ARG (a malformed environment variable, named on stderr), BH_ERR_SYS. */
int bh_device_provoke_init(struct bh_device *dev, const struct bh_device_config *cfg);

/* Any host write or start: the device is not deadlocked while the host acts. */
void bh_device_host_acted(struct bh_device *dev);

static inline struct bh_elf **bh_device_elf_slot(struct bh_device *dev, unsigned tile, unsigned core)
{
	return &dev->elf[tile * BH_CORES_PER_TILE + core];
}

/* Called by a core thread (without locks) after its state changed. */
void bh_device_notify(struct bh_device *dev);
/* Serial scheduling is on (and not yet dissolved by close). */
bool bh_device_serial(const struct bh_device *dev);

/* " <symbol+0x10>" for addr as seen by that core: the kernel placed there first, else its firmware
 * ELF; "" when neither names it. */
void bh_device_symbolize(struct bh_device *dev, unsigned tile, unsigned core, uint32_t addr, char *out, size_t n);
/* head, then the lines of bh_device_report about the tiles marked in stuck (malloc'd, or NULL). */
char *bh_device_report_tiles(struct bh_device *dev, const bool *stuck, const char *head);
/* Human-readable fault report for a faulted core (symbolised with the loaded ELFs). */
void bh_fault_format(struct bh_device *dev, const struct bh_core *core, char *out, size_t outlen);
/* The same for fault f of core `core` (enum bh_core_kind) of tile `tile`: also a finding's report. */
void bh_fault_format_at(struct bh_device *dev, unsigned tile, unsigned core, const struct bh_fault *f, char *out,
			size_t outlen);
/* "put in reset by brisc: SOFT_RESET_0 = ... stored at pc ... after N instructions", for a core a
 * core of its tile put in reset (core->reset_by). Caller holds the tile lock. */
void bh_core_reset_format(struct bh_device *dev, const struct bh_core *core, char *out, size_t outlen);

#endif
