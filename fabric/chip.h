/* The chip as the NoC sees it: the topology, every Tensix tile, the DRAM banks and the host
 * memory behind the PCIe tile. Owned by the device (host/device.c); fabric modules reach other
 * tiles and memories through it (tile->chip). */
#ifndef BH_FABRIC_CHIP_H
#define BH_FABRIC_CHIP_H

#include <stdint.h>

#include "fabric/check.h"
#include "fabric/topology.h"
#include "sync/hooks.h"
#include "sync/park.h"
#include "sync/provoke.h"

struct bh_core;
struct bh_fault;
struct bh_noc_engine;
struct bh_tile;

struct bh_chip {
	struct bh_topology topo;
	struct bh_tile **tiles;          /* topo.ntiles, index = row-major logical position; the
					  * device's array (dev->tiles), filled before any core runs */
	/* DRAM banks: 4 GiB each, mapped lazily (untouched DRAM costs no host memory). */
	uint8_t *dram[BH_DRAM_BANKS_MAX];
	/* L1 of the enabled Ethernet tiles, topo.neth x BH_ETH_L1_SIZE, mapped lazily like DRAM; the
	 * base firmware's results written at init (bh_chip_memories_init). */
	uint8_t *eth_l1;
	/* Host memory reachable through the PCIe tile: NoC-local addresses [host_base, +size) with
	 * bit 60 set map to host_mem (a pinned-like buffer owned by the library). */
	uint8_t *host_mem;
	uint64_t host_mem_size;
	uint64_t host_base;              /* 0x40000000 as in tt-metal's fixed CQ layout */
	/* Or host memory the owner serves (bh_device_config.host_io, set before any core runs): NoC
	 * requests to the PCIe tile with bit 60 set call it on the thread that moves the data, with
	 * the NoC address; false refuses the request (a fault of the initiator). */
	bool (*host_io)(void *arg, uint64_t addr, void *buf, uint32_t len, bool write);
	void *host_io_arg;
	struct bh_hooks hooks;           /* observers of the cores (sync/hooks.h) */
	_Atomic uint64_t trace_seq;      /* ids of traced NoC transactions */
	/* Upward signal to whoever owns the chip (host/device.c sets it before any core runs): the
	 * run state of a core or Tensix thread changed, waiters for core states look again. */
	void (*state_changed)(void *owner);
	void *owner;
	/* Upward signals to the cores, registered by cores/ when a tile is assembled (before any
	 * thread runs): host or NoC writes replaced decoded code of one L1 page (cores/core.c; see
	 * fabric/tile.h); state a Tensix Wait Gate reads changed (cores/tensix.c; sync/tensix_sem.h). */
	void (*code_written)(struct bh_tile *tile, struct bh_core *writer, uint32_t addr, uint32_t len);
	void (*gate_wake)(struct bh_tile *tile, unsigned sems_changed);
	/* A fault found after its core moved on: a NoC destination refused a transaction of the
	 * asynchronous NoC, or a CB read judged at the CB's first push (sync/streams.c, cb-ownership).
	 * The fault becomes core `who` of tile's (cores/core.c). */
	void (*noc_fault)(struct bh_tile *tile, unsigned who, const struct bh_fault *f);
	/* The pc of the device access core `who` of tile is making (for faults found later). */
	uint32_t (*access_pc)(struct bh_tile *tile, unsigned who);
	/* Where core `who` of tile is now, as its PC_SNAPSHOT register shows it: for any thread (a
	 * finding blamed on a core that is not the one acting, e.g. the victim of a host write). */
	uint32_t (*core_pc)(struct bh_tile *tile, unsigned who);
	/* The asynchronous NoC (fabric/noc_engine.c), or NULL: transactions complete at CMD_CTRL. */
	struct bh_noc_engine *noc;
	/* Serial scheduling (sync/sched.h): every actor of the chip runs only with its token; NULL:
	 * threaded. Set before any actor's thread starts. */
	struct bh_sched *sched;
	/* A TRISC executes its own Tensix instructions while the executor is idle
	 * (bh_device_config.tensix, cores/tensix.c). Set before any actor's thread starts. */
	bool tensix_deferred;
	/* Each worker tile's cores and Tensix executors share one host thread as fibers
	 * (bh_device_config.tile_threads, sync/fiber.h). Set before any tile is created. */
	bool tile_fibers;
	/* The silicon bugs modelled (bh_device_config.hw_bugs). Set before any actor's thread starts. */
	uint32_t hw_bugs;
	/* Where the fast-dispatch models park (cores/cq_model.c), by role. They live as long as the
	 * chip, not the queue: a waker that found a model's watch may still wake it after the model
	 * unregistered and its queue was freed. */
	struct bh_waiter cq_waiter[2];
	/* The detectors this chip runs and their findings (fabric/check.h). */
	struct bh_checks checks;
	/* Seeded perturbations (sync/provoke.h), set up before any actor runs. */
	struct bh_provoke provoke;
};

static inline void bh_chip_state_changed(const struct bh_chip *chip)
{
	if (chip->state_changed)
		chip->state_changed(chip->owner);
}

/* Create the DRAM and host memory mappings for chip->topo (fabric/dram.c): host_mem_size 0 means
 * 256 MiB. Returns 0, or -1 with a message in err (nothing stays mapped). */
int bh_chip_memories_init(struct bh_chip *chip, uint64_t host_mem_size, char *err, size_t errlen);
/* Unmaps whatever is mapped; safe on a zeroed or half-initialised chip. */
void bh_chip_memories_destroy(struct bh_chip *chip);
/* Pointer to len bytes of DRAM bank b at offset, or NULL if the bank is absent or the range
 * leaves the usable 0xFF000000 bytes. Guest and host accesses race like any shared memory: the
 * NoC model decides the access width and atomicity. */
uint8_t *bh_dram_ptr(struct bh_chip *chip, unsigned bank, uint64_t offset, uint64_t len);
/* What the Ethernet base firmware leaves in L1 on a card without links (tt-umd blackhole_eth.hpp):
 * eth_status_t at 0x7CC00 (postcode INIT_FAIL, port_status PORT_DOWN, train_status
 * LINK_TRAIN_TIMEOUT_LINK_UP, heartbeat 0: the base firmware does not run here), the local
 * chip_info_t at 0x7CFC0 (eth_id = channel, logical_eth_id = k; the board and ASIC ids are the
 * owner's, bh_eth_set_ids) and the remote one at 0x7CFE0 zero (no partner). */
#define BH_ETH_BOOT_RESULTS 0x7CC00u
#define BH_ETH_POSTCODE_FAIL 0xC0DEB000u
#define BH_ETH_PORT_DOWN 2u
#define BH_ETH_TRAIN_TIMEOUT_LINK_UP 9u
#define BH_ETH_CHIP_INFO 0x7CFC0u
#define BH_ETH_REMOTE_CHIP_INFO 0x7CFE0u
/* Write the board and ASIC ids into every Ethernet tile's local chip_info (before any core runs). */
void bh_eth_set_ids(struct bh_chip *chip, uint32_t board_hi, uint32_t board_lo, uint32_t asic_hi, uint32_t asic_lo);
/* Pointer to len bytes of enabled Ethernet tile k's L1 at addr, or NULL if the range leaves it. */
uint8_t *bh_eth_l1_ptr(struct bh_chip *chip, unsigned k, uint64_t addr, uint64_t len);
/* Pointer to len bytes of host memory at NoC-local address addr: bit 60 must be set, and
 * addr without it must fall in [host_base, host_base + host_mem_size). NULL otherwise. */
uint8_t *bh_host_mem_ptr(struct bh_chip *chip, uint64_t addr, uint64_t len);

#endif
