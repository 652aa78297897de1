#include <stdatomic.h>
#include <stdlib.h>

#include "sync/deadlock.h"
#include "sync/park.h"

int bh_deadlock_snap_init(struct bh_deadlock_snap *s, struct bh_waiter *const *w, unsigned n)
{
	s->n = n;
	s->w = w;
	s->seen = calloc(n ? n : 1, sizeof *s->seen);
	s->host_epoch = 0;
	s->quiet = 0;
	return s->seen ? 0 : -1;
}

void bh_deadlock_snap_free(struct bh_deadlock_snap *s)
{
	free(s->seen);
	s->seen = NULL;
}

bool bh_deadlock_look(struct bh_deadlock_snap *s, uint64_t host_epoch, unsigned needed)
{
	bool all_parked = true, moved = host_epoch != s->host_epoch;
	unsigned active = 0;
	s->host_epoch = host_epoch;
	for (unsigned k = 0; k < s->n; k++) {
		struct bh_waiter *w = s->w[k];
		/* The state first (acquire, pairs with the owner's release), then the counters: an
		 * actor that parks after this look moved its counters or shows parked next time. */
		uint32_t ps = atomic_load_explicit(&w->park_state, memory_order_acquire);
		uint64_t now = (uint64_t)atomic_load_explicit(&w->wake_seq, memory_order_acquire) << 32 |
			       atomic_load_explicit(&w->progress, memory_order_relaxed);
		moved |= now != s->seen[k];
		s->seen[k] = now;
		if (ps == BH_PARK_IDLE)
			continue;
		active++;
		if (ps != BH_PARK_WATCH && ps != BH_PARK_BLOCKED && ps != BH_PARK_GATE)
			all_parked = false;
		/* Woken since it went to sleep (or not asleep on the current value yet): it runs as soon
		 * as the host gives it a CPU, which on a loaded host may take longer than the monitor's
		 * patience. */
		else if (atomic_load_explicit(&w->sleep_seq, memory_order_acquire) != (uint32_t)(now >> 32))
			all_parked = false;
	}
	if (!active || !all_parked || moved) {
		s->quiet = 0;
		return false;
	}
	return ++s->quiet >= needed;
}
