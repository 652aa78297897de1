/* The ARC tile as host software sees it at bring-up (tt-umd's Blackhole ARC messenger and
 * telemetry reader): its CSM with the telemetry table and the message queues, and the reset
 * unit's scratch registers that point at them. The ARC firmware itself is not run: the state a
 * booted ARC leaves is set up at init, and queued messages are answered when the host rings the
 * ARC_MISC_CNTL doorbell. Plain data behind the caller's lock (host/ttsim.c). */
#ifndef BH_FABRIC_ARC_H
#define BH_FABRIC_ARC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NoC-local addresses at the ARC tile. */
#define BH_ARC_CSM_BASE        0x10000000u
#define BH_ARC_CSM_SIZE        0x80000u
#define BH_ARC_RESET_UNIT      0x80030000u
#define BH_ARC_RESET_SCRATCH   0x60u      /* scratch[0..7], reset-unit offsets */
#define BH_ARC_MISC_CNTL       0x100u     /* bit 16: the host's message doorbell (IRQ0) */
#define BH_ARC_SCRATCH_RAM     0x400u     /* scratch_ram[0..15] */
#define BH_ARC_MISC_IRQ0       (1u << 16)

struct bh_arc {
	uint8_t csm[BH_ARC_CSM_SIZE];
	uint32_t scratch[8], misc_cntl, scratch_ram[16];
	unsigned messages;                 /* answered so far */
};

struct bh_topology;

/* A booted ARC's state: boot status ready, telemetry table (board id, AICLK, ...), message
 * queues; board_id_hi is the board type word (tt-umd reads the board from bits 31:4: 0x40-0x42
 * P150, 0x43 P100), the harvesting tags describe topo. */
void bh_arc_init(struct bh_arc *a, uint32_t board_id_hi, const struct bh_topology *topo);
/* len bytes at NoC-local addr: the CSM (any length) or a reset-unit register (4 bytes). False:
 * nothing modelled there, or a message the queues cannot answer (err says which). */
bool bh_arc_read(struct bh_arc *a, uint64_t addr, void *buf, uint32_t len, char *err, size_t errlen);
bool bh_arc_write(struct bh_arc *a, uint64_t addr, const void *buf, uint32_t len, char *err, size_t errlen);

/* Telemetry tags (tt-umd's Blackhole telemetry), for tests. */
enum bh_arc_tag {
	BH_TAG_BOARD_ID_HIGH = 1,
	BH_TAG_BOARD_ID_LOW = 2,
	BH_TAG_ASIC_ID = 3,
	BH_TAG_HARVESTING_STATE = 4,
	BH_TAG_AICLK = 14,
	BH_TAG_AXICLK = 15,
	BH_TAG_ARCCLK = 16,
	BH_TAG_ETH_LIVE_STATUS = 21,
	BH_TAG_GDDR_STATUS = 22,
	BH_TAG_FLASH_BUNDLE_VERSION = 28,
	BH_TAG_TIMER_HEARTBEAT = 32,
	BH_TAG_ENABLED_TENSIX_COL = 34,
	BH_TAG_ENABLED_ETH = 35,
	BH_TAG_ENABLED_GDDR = 36,
	BH_TAG_PCIE_USAGE = 38,
	BH_TAG_ASIC_LOCATION = 52,
};

#endif
