/* The tile assembly (tile/tile.h): creating and linking a tile's devices, cores and coprocessor,
 * shutting them down, and the core lifecycle that SOFT_RESET_0 drives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/chip.h"
#include "fabric/code.h"
#include "fabric/pages.h"
#include "fabric/wallclock.h"
#include "sync/fiber.h"
#include "sync/sched.h"
#include "sync/mailbox.h"
#include "sync/park.h"
#include "sync/pcbuf.h"
#include "tile/tile.h"

/* The page index of the worker table, built once for every tile. */
static uint8_t worker_index[BH_MMIO_INDEX_PAGES];
static pthread_once_t worker_index_once = PTHREAD_ONCE_INIT;

static void worker_index_build(void)
{
	bh_mmio_index_build(bh_worker_regions, bh_worker_nregions, worker_index);
}

struct bh_tile *bh_worker_tile_create(struct bh_chip *chip, unsigned index)
{
	struct bh_worker_tile *w = bh_pages_alloc(sizeof *w);   /* zeroed: the inits below rely on it */
	if (!w)
		return NULL;
	struct bh_tile *t = &w->dev;
	if (bh_tile_init(t, chip, index) != 0) {
		bh_pages_free(w, sizeof *w);
		return NULL;
	}
	if (chip->tile_fibers) {
		char name[16];
		snprintf(name, sizeof name, "bhemu tile %u", index);
		if (!(t->fibers = bh_fiber_group_create(name))) {
			bh_tile_destroy(t);
			bh_pages_free(w, sizeof *w);
			return NULL;
		}
	}
	t->regions = bh_worker_regions;
	t->nregions = bh_worker_nregions;
	pthread_once(&worker_index_once, worker_index_build);
	t->region_index = worker_index;
	bh_niu_lane_init(t);
	t->tensix = &w->tensix;
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
		t->core[k] = &w->core[k];
		t->waiter[k] = &w->core[k].waiter;
	}
	bh_tensix_init(&w->tensix, t);
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		bh_core_init(&w->core[k], t, (enum bh_core_kind)k);
	return t;
}

void bh_worker_tile_waiters(struct bh_tile *t, struct bh_waiter **out)
{
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		out[k] = t->waiter[k];
	for (unsigned i = 0; i < BH_TT_THREADS; i++)
		out[BH_CORES_PER_TILE + i] = &t->tensix->th[i].waiter;
}

void bh_worker_tile_shutdown(struct bh_tile *t)
{
	pthread_mutex_lock(&t->lock);
	t->shutdown = true;
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
		struct bh_core *c = t->core[k];
		atomic_fetch_or_explicit(&c->events, BH_EV_STOP, memory_order_release);
		bh_park_wake(&c->waiter);
		pthread_cond_signal(&c->cond);
	}
	pthread_mutex_unlock(&t->lock);
}

void bh_worker_tile_join(struct bh_tile *t)
{
	struct bh_worker_tile *w = (struct bh_worker_tile *)t;
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		if (w->core[k].thread_started) {
			if (w->core[k].fiber)
				bh_fiber_join(w->core[k].fiber);
			else
				pthread_join(w->core[k].thread, NULL);
			w->core[k].thread_started = false;
		}
}

void bh_worker_tile_free(struct bh_tile *t)
{
	if (!t)
		return;
	struct bh_worker_tile *w = (struct bh_worker_tile *)t;
	bh_worker_tile_join(t);
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		bh_core_destroy(&w->core[k]);
	bh_tensix_destroy(&w->tensix);
	bh_fiber_group_destroy(t->fibers);
	bh_tile_destroy(t);
	bh_pages_free(w, sizeof *w);
}

/* Reset edges of the sync devices a core takes part in (memory-map.md 4.1): entering reset
 * empties the mailboxes it writes and abandons a parked PCBuf pop; a TRISC entering reset empties
 * its Tensix thread's FIFO and abandons its work; a TRISC leaving reset empties its PCBuf. Caller holds tile->lock; the devices take only their own locks. */
static void tile_sync_reset_edge(struct bh_tile *t, enum bh_core_kind k, bool entering)
{
	if (entering)
		bh_mailbox_reset_enter(t, k);
	bh_pcbuf_reset_edge(t, k, entering);
	bh_tensix_reset_edge(t, k, entering);
}

/* Core k entered reset by who's store: who, where and after how many of its instructions (the
 * writer's pc and instret are current: the interpreter stores them before any device access, and
 * this runs on the writer's own thread). */
static void tile_record_reset_cause(struct bh_tile *t, struct bh_core *c, uint32_t value, unsigned who)
{
	c->reset_by = who < BH_CORES_PER_TILE ? who : BH_REQ_HOST;
	c->reset_value = value;
	c->reset_by_pc = who < BH_CORES_PER_TILE ? t->core[who]->pc : 0;
	c->reset_by_instret = who < BH_CORES_PER_TILE ? t->core[who]->instret : 0;
}

/* The first release of a core starts its thread (under t->lock: the thread waits for it). A
 * host that cannot create one leaves the core faulted, named, instead of running. */
static bool tile_core_thread(struct bh_tile *t, struct bh_core *c)
{
	if (c->thread_started || bh_core_thread_start(c) == 0)
		return true;
	bh_fault_fill(&c->fault, BH_FAULT_NOT_MODELLED, c->pc, "core",
		      "host failure: cannot create the thread of tile %u %s at its release", t->index,
		      bh_core_kind_name(c->kind));
	c->restart = false;
	c->state = BH_CORE_FAULTED;
	atomic_store_explicit(&c->waiter.park_state, BH_PARK_IDLE, memory_order_release);
	return false;
}

void bh_tile_soft_reset_write(struct bh_tile *t, uint32_t value, unsigned who)
{
	bool failed = false;
	pthread_mutex_lock(&t->lock);
	uint32_t old = atomic_load_explicit(&t->soft_reset, memory_order_relaxed);
	atomic_store_explicit(&t->soft_reset, value, memory_order_release);
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
		struct bh_core *c = t->core[k];
		unsigned bit = bh_soft_reset_bit((enum bh_core_kind)k);
		bool was = old >> bit & 1, now = value >> bit & 1;
		c->held = now;
		if (now && !was) {
			/* Entering reset abandons whatever the core was doing, parked or not. A release
			 * its thread had not yet picked up is over too: the core started and is held
			 * again, so the next release starts it at its reset pc, not at a host start's. */
			c->restart = false;
			c->start_pc_valid = false;
			tile_record_reset_cause(t, c, value, who);
			atomic_store_explicit(&c->waiter.park_state, BH_PARK_IDLE, memory_order_release);
			atomic_fetch_or_explicit(&c->events, BH_EV_STOP, memory_order_release);
			bh_park_wake(&c->waiter);
			tile_sync_reset_edge(t, (enum bh_core_kind)k, true);
		} else if (!now && was) {
			tile_sync_reset_edge(t, (enum bh_core_kind)k, false);
			c->restart = true;
			/* Active from the release on, before its thread runs (deadlock monitor). */
			atomic_store_explicit(&c->waiter.park_state, BH_PARK_NONE, memory_order_release);
			atomic_fetch_or_explicit(&c->events, BH_EV_STOP, memory_order_release);
			bh_park_wake(&c->waiter);
			pthread_cond_signal(&c->cond);
			if (c->waiter.actor)
				bh_sched_ready(c->waiter.actor);   /* serial: runnable from the release on */
			bh_code_invalidated(t, 1u << k);   /* leaving reset invalidates the I-cache */
			/* ldm-zeroing: the window of the local RAM zeroing starts now; it lasts 2048 cycles
			 * (hardware) and until the core's thread has zeroed the RAM (bhemu). */
			if (bh_checks_on(&t->chip->checks, BH_CHECK_LDM_ZEROING) &&
			    !(t->disable_reset >> bh_disable_reset_ldm_bit((enum bh_core_kind)k) & 1)) {
				atomic_store_explicit(&t->ldm_zeroed[k], false, memory_order_relaxed);
				atomic_store_explicit(&t->ldm_zeroing_from[k], bh_wallclock_ticks() | 1, memory_order_release);
			}
			failed |= !tile_core_thread(t, c);
		}
	}
	pthread_mutex_unlock(&t->lock);
	if (failed)
		bh_chip_state_changed(t->chip);
}

