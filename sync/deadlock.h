/* Deadlock detection over waiters (sync/park.h): the device is deadlocked when at least one actor
 * is active (park state not BH_PARK_IDLE), every active one is parked without a timeout (on
 * watched words, a blocked device access or a Tensix Wait Gate), and nothing moved for a while:
 * no waiter was woken or made progress (wake_seq and progress unchanged) and the host did
 * nothing. Actors are whatever the owner lists: cores, Tensix threads, fast-dispatch models.
 * Checked by the device's monitor thread (host/device.c); the report itself is written by
 * host/report.c. */
#ifndef BH_SYNC_DEADLOCK_H
#define BH_SYNC_DEADLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct bh_waiter;

struct bh_deadlock_snap {
	unsigned n;
	struct bh_waiter *const *w;   /* the watched actors (the caller's array, n entries) */
	uint64_t *seen;               /* wake_seq and progress of each at the last look */
	uint64_t host_epoch;
	unsigned quiet;               /* consecutive looks with every active actor parked, nothing moving */
};

/* Watch the n waiters of w (the array must outlive the snapshot). 0, or -1 out of memory. */
int bh_deadlock_snap_init(struct bh_deadlock_snap *s, struct bh_waiter *const *w, unsigned n);
void bh_deadlock_snap_free(struct bh_deadlock_snap *s);
/* One look. Returns true once `needed` consecutive looks found every active actor parked with no
 * timeout and no wake-up, progress or host activity in between. False while no actor is active. */
bool bh_deadlock_look(struct bh_deadlock_snap *s, uint64_t host_epoch, unsigned needed);

#endif
