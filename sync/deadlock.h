/* Deadlock detection: the device is deadlocked when every running core is parked without a
 * timeout (on watched words or a blocked device access), every Tensix thread with work is held
 * at its Wait Gate, and nothing moved for a while: no core was woken (their wake_seq words are
 * unchanged), no Tensix thread executed or woke, and the host did nothing. Checked by the
 * device's monitor thread (host/device.c); the report itself is written by host/report.c. */
#ifndef BH_SYNC_DEADLOCK_H
#define BH_SYNC_DEADLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct bh_tile;

struct bh_deadlock_snap {
	unsigned ntiles;
	uint32_t *seq;          /* wake_seq of every core at the last look */
	uint32_t *tt_seq;       /* progress of every Tensix thread at the last look */
	uint64_t host_epoch;
	unsigned quiet;         /* consecutive looks with everything parked and nothing moving */
};

int bh_deadlock_snap_init(struct bh_deadlock_snap *s, unsigned ntiles);
void bh_deadlock_snap_free(struct bh_deadlock_snap *s);
/* One look. Returns true once `needed` consecutive looks found every running core parked with
 * no timeout and no wake-up or host activity in between. Returns false when no core runs. */
bool bh_deadlock_look(struct bh_deadlock_snap *s, struct bh_tile **tiles, uint64_t host_epoch, unsigned needed);

#endif
