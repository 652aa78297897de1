#include <stdlib.h>

#include "fabric/tile.h"
#include "sync/deadlock.h"

int bh_deadlock_snap_init(struct bh_deadlock_snap *s, unsigned ntiles)
{
	s->ntiles = ntiles;
	s->seq = calloc((size_t)ntiles * BH_CORES_PER_TILE, sizeof *s->seq);
	s->tt_seq = calloc((size_t)ntiles * BH_TT_THREADS, sizeof *s->tt_seq);
	s->host_epoch = 0;
	s->quiet = 0;
	if (s->seq && s->tt_seq)
		return 0;
	bh_deadlock_snap_free(s);
	return -1;
}

void bh_deadlock_snap_free(struct bh_deadlock_snap *s)
{
	free(s->seq);
	free(s->tt_seq);
	s->seq = NULL;
	s->tt_seq = NULL;
}

bool bh_deadlock_look(struct bh_deadlock_snap *s, struct bh_tile **tiles, uint64_t host_epoch, unsigned needed)
{
	bool all_parked = true, moved = host_epoch != s->host_epoch;
	unsigned running = 0;
	s->host_epoch = host_epoch;
	for (unsigned t = 0; t < s->ntiles; t++) {
		struct bh_tile *tile = tiles[t];
		pthread_mutex_lock(&tile->lock);
		for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
			struct bh_core *c = &tile->core[k];
			uint32_t *seq = &s->seq[t * BH_CORES_PER_TILE + k];
			uint32_t now = atomic_load_explicit(&c->waiter.wake_seq, memory_order_acquire);
			if (now != *seq)
				moved = true;
			*seq = now;
			bool runs = (c->state == BH_CORE_RUNNING && !c->held) || (c->restart && !c->held);
			if (!runs)
				continue;
			running++;
			uint32_t ps = atomic_load_explicit(&c->waiter.park_state, memory_order_acquire);
			if (ps != BH_PARK_WATCH && ps != BH_PARK_BLOCKED)
				all_parked = false;
		}
		pthread_mutex_unlock(&tile->lock);
		/* Tensix threads with work count as running; held at the gate counts as parked. A
		 * faulted one is stopped (its pusher faulted). Started threads only: the flag is set
		 * once, under the coprocessor's lock. */
		pthread_mutex_lock(&tile->tensix.lock);
		for (unsigned i = 0; i < BH_TT_THREADS; i++) {
			struct bh_tt_thread *th = &tile->tensix.th[i];
			uint32_t *seq = &s->tt_seq[t * BH_TT_THREADS + i];
			uint32_t now = atomic_load_explicit(&th->progress, memory_order_relaxed);
			if (now != *seq)
				moved = true;
			*seq = now;
			if (!th->started || th->faulted || bh_pcbuf_tensix_thread_idle(tile, i))
				continue;
			running++;
			if (atomic_load_explicit(&th->park, memory_order_acquire) != BH_TT_GATE)
				all_parked = false;
		}
		pthread_mutex_unlock(&tile->tensix.lock);
	}
	if (!running || !all_parked || moved) {
		s->quiet = 0;
		return false;
	}
	return ++s->quiet >= needed;
}
