/* The public API: a device of tiles, each core on its own thread, host access and host calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cores/rv32_jit.h"
#include "cores/tensix.h"
#include "fabric/mmio.h"
#include "fabric/noc.h"
#include "fabric/wallclock.h"
#include "host/device.h"
#include "host/trace.h"
#include "host/kernel.h"
#include "sync/deadlock.h"
#include "sync/park.h"
#include "sync/provoke.h"
#include "sync/sched.h"
#include "sync/streams.h"

#define DEADLOCK_MS_DEFAULT 400
#define DEADLOCK_LOOKS 4

/* The deadlock monitor: looks every deadlock_ms / DEADLOCK_LOOKS; after DEADLOCK_LOOKS quiet
 * looks in a row the device is deadlocked, and whoever waits in bh_core_wait() is told. */
static void *device_monitor(void *arg)
{
	struct bh_device *dev = arg;
	struct bh_deadlock_snap snap;
	if (bh_deadlock_snap_init(&snap, dev->waiters, dev->nwaiters) != 0)
		return NULL;
	long step_ns = (long)dev->deadlock_ms * 1000000L / DEADLOCK_LOOKS;
	pthread_mutex_lock(&dev->lock);
	while (!dev->monitor_stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += step_ns;
		while (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&dev->monitor_cond, &dev->lock, &ts);
		if (dev->monitor_stop)
			break;
		pthread_mutex_unlock(&dev->lock);
		bool dead = bh_deadlock_look(&snap, atomic_load_explicit(&dev->host_epoch, memory_order_acquire),
					     DEADLOCK_LOOKS);
		pthread_mutex_lock(&dev->lock);
		if (dead && !dev->deadlocked) {
			dev->deadlocked = true;
			pthread_cond_broadcast(&dev->cond);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	bh_deadlock_snap_free(&snap);
	return NULL;
}

void bh_device_host_acted(struct bh_device *dev)
{
	atomic_fetch_add_explicit(&dev->host_epoch, 1, memory_order_release);
	if (dev->chip.sched)
		bh_sched_host_acted(dev->chip.sched);
	pthread_mutex_lock(&dev->lock);
	dev->deadlocked = false;
	pthread_mutex_unlock(&dev->lock);
}

bool bh_device_deadlocked(struct bh_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	bool d = dev->deadlocked;
	pthread_mutex_unlock(&dev->lock);
	return d || (dev->chip.sched && bh_sched_deadlocked(dev->chip.sched));
}

bool bh_device_serial(const struct bh_device *dev)
{
	return dev->chip.sched && !bh_sched_dissolved(dev->chip.sched);
}

void bh_device_pause(struct bh_device *dev, uint64_t ns)
{
	if (bh_device_serial(dev)) {
		bh_sched_host_wait(dev->chip.sched, ns);   /* virtual time: the actors run meanwhile */
		return;
	}
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
}

const char *bh_device_sched(const struct bh_device *dev)
{
	if (!dev->chip.sched)
		return "threaded";
	return bh_sched_strategy(dev->chip.sched) == BH_SCHED_PCT ? "serial pct" : "serial random";
}

bool bh_device_serial_stats(struct bh_device *dev, uint64_t *points, uint64_t *switches, uint64_t *vt_ns)
{
	if (!dev || !dev->chip.sched)
		return false;
	struct bh_sched_stats st;
	bh_sched_stats(dev->chip.sched, &st);
	*points = st.points;
	*switches = st.switches;
	*vt_ns = st.vt_ns;
	return true;
}

void bh_device_tensix_stats(struct bh_device *dev, struct bh_tensix_stats *out)
{
	memset(out, 0, sizeof *out);
	out->deferred = dev->chip.tensix_deferred;
	for (unsigned k = 0; k < dev->ntiles; k++) {
		struct bh_tensix *tx = dev->tiles[k]->tensix;
		for (unsigned i = 0; tx && i < BH_TT_THREADS; i++) {
			out->by_trisc += atomic_load_explicit(&tx->th[i].by_trisc, memory_order_relaxed);
			out->by_executor += atomic_load_explicit(&tx->th[i].by_executor, memory_order_relaxed);
			out->handovers += atomic_load_explicit(&tx->th[i].handovers, memory_order_relaxed);
		}
	}
}

/* bh_device_config's sched and strategy, or the environment's. */
/* A two-valued mode left at its default (0) in the configuration: the environment variable's
 * value, `first` (-> 1) or `second` (-> 2), or 0 when unset. -1: any other value (reported). */
static int env_mode(const char *var, const char *first, const char *second)
{
	const char *e = getenv(var);
	if (!e || !*e)
		return 0;
	if (!strcmp(e, first) || !strcmp(e, second))
		return strcmp(e, first) ? 2 : 1;
	fprintf(stderr, "bhemu: %s is %s or %s, not '%s'\n", var, first, second, e);
	return -1;
}

static int device_sched_init(struct bh_device *dev, const struct bh_device_config *cfg)
{
	enum bh_sched_mode mode = cfg ? cfg->sched : BH_SCHED_DEFAULT;
	enum bh_sched_strategy strat = cfg ? cfg->strategy : BH_STRATEGY_DEFAULT;
	enum bh_tensix_mode tmode = cfg ? cfg->tensix : BH_TENSIX_DEFAULT;
	enum bh_tile_threads threads = cfg ? cfg->tile_threads : BH_TILE_THREADS_DEFAULT;
	/* The enums' values 1 and 2 are the two names, in this order. */
	_Static_assert(BH_SCHED_THREADED == 1 && BH_SCHED_SERIAL == 2 && BH_STRATEGY_RANDOM == 1 && BH_STRATEGY_PCT == 2 &&
		       BH_TENSIX_DEFERRED == 1 && BH_TENSIX_THREADED == 2 && BH_TILE_THREADS_PER_CORE == 1 &&
		       BH_TILE_THREADS_ONE == 2, "env_mode's numbering");
	int m = mode == BH_SCHED_DEFAULT ? env_mode("BHEMU_SCHED", "threaded", "serial") : 0;
	int st = strat == BH_STRATEGY_DEFAULT ? env_mode("BHEMU_STRATEGY", "random", "pct") : 0;
	int tm = tmode == BH_TENSIX_DEFAULT ? env_mode("BHEMU_TENSIX", "deferred", "threaded") : 0;
	int th = threads == BH_TILE_THREADS_DEFAULT ? env_mode("BHEMU_TILE_THREADS", "per-core", "one") : 0;
	if (m < 0 || st < 0 || tm < 0 || th < 0)
		return BH_ERR_ARG;
	mode = m ? (enum bh_sched_mode)m : mode;
	strat = st ? (enum bh_sched_strategy)st : strat;
	tmode = tm ? (enum bh_tensix_mode)tm : tmode;
	threads = th ? (enum bh_tile_threads)th : threads;
	unsigned depth = cfg && cfg->pct_depth ? cfg->pct_depth : 3;
	if (depth > 64) {
		fprintf(stderr, "bhemu: device configuration: PCT depth %u: at most 64\n", depth);
		return BH_ERR_ARG;
	}
	/* Deferred execution would hide the Tensix threads from the serial scheduler (each of their
	 * instructions is a scheduling point) and from the delays provocation gives them. */
	dev->chip.tensix_deferred = tmode != BH_TENSIX_THREADED && mode != BH_SCHED_SERIAL && !dev->chip.provoke.mmio;
	dev->chip.hw_bugs = cfg ? cfg->hw_bugs : 0;
	if (threads > BH_TILE_THREADS_ONE) {
		fprintf(stderr, "bhemu: device configuration: tile_threads %u is not a bh_tile_threads value\n", (unsigned)threads);
		return BH_ERR_ARG;
	}
	dev->chip.tile_fibers = threads == BH_TILE_THREADS_ONE && mode != BH_SCHED_SERIAL;
	if (mode != BH_SCHED_SERIAL)
		return BH_OK;
	uint64_t steps = cfg && cfg->pct_steps ? cfg->pct_steps : 100000;
	dev->chip.sched = bh_sched_create(strat == BH_STRATEGY_PCT ? BH_SCHED_PCT : BH_SCHED_RANDOM,
					  dev->chip.provoke.seed, depth, steps, cfg && cfg->switch_every ? cfg->switch_every : 64);
	return dev->chip.sched ? BH_OK : BH_ERR_SYS;
}

#define GRID_ROW_MAX 14   /* {.num_tiles = n}: rows of up to 14 tiles, */
#define GRID_ROWS_MAX 10  /* at most 10 rows */

/* The public config as a topology: NULL or {.num_tiles = n} is a test grid of n tiles in rows
 * of 14 (the layout every test before board support assumed: tile k in row-major order). */
static void device_topology_config(const struct bh_device_config *cfg, struct bh_topology_config *tc)
{
	memset(tc, 0, sizeof *tc);
	if (!cfg) {
		tc->cols = tc->rows = 1;
		return;
	}
	tc->board = cfg->board;
	tc->harvest_cols = cfg->harvest_cols;
	tc->harvest_dram = cfg->harvest_dram;
	if (cfg->board != BH_BOARD_GRID)
		return;
	if (cfg->grid_cols) {
		tc->cols = cfg->grid_cols;
		tc->rows = cfg->grid_rows ? cfg->grid_rows : 1;
		tc->ntiles = cfg->num_tiles;
		return;
	}
	unsigned n = cfg->num_tiles ? cfg->num_tiles : 1;
	tc->cols = n < GRID_ROW_MAX ? n : GRID_ROW_MAX;
	tc->rows = (n + GRID_ROW_MAX - 1) / GRID_ROW_MAX;
	tc->ntiles = n;
}

/* Topology and memories; the only failures a caller can act on, so they say why on stderr. */
static int device_chip_init(struct bh_device *dev, const struct bh_device_config *cfg)
{
	struct bh_topology_config tc;
	char err[160];
	device_topology_config(cfg, &tc);
	if (tc.board == BH_BOARD_GRID && cfg && !cfg->grid_cols && cfg->num_tiles > GRID_ROW_MAX * GRID_ROWS_MAX) {
		fprintf(stderr, "bhemu: device configuration: %u tiles: a test grid holds at most 140 (rows of 14)\n",
			cfg->num_tiles);
		return BH_ERR_ARG;
	}
	if (bh_topology_init(&dev->chip.topo, &tc, err, sizeof err) != 0) {
		fprintf(stderr, "bhemu: device configuration: %s\n", err);
		return BH_ERR_ARG;
	}
	if (bh_chip_memories_init(&dev->chip, cfg ? cfg->host_mem_size : 0, err, sizeof err) != 0) {
		fprintf(stderr, "bhemu: %s\n", err);
		return BH_ERR_SYS;
	}
	dev->chip.host_io = cfg ? cfg->host_io : NULL;
	dev->chip.host_io_arg = cfg ? cfg->host_io_arg : NULL;
	return BH_OK;
}

/* The asynchronous NoC, if asked for (after the tiles exist, before any core runs). */
static int device_noc_init(struct bh_device *dev, const struct bh_device_config *cfg)
{
	enum bh_noc_mode mode = cfg ? cfg->noc : BH_NOC_DEFAULT;
	const char *env = getenv("BHEMU_NOC");
	if (mode == BH_NOC_DEFAULT && env && *env) {
		if (!strcmp(env, "sync"))
			mode = BH_NOC_SYNC;
		else if (!strcmp(env, "async"))
			mode = BH_NOC_ASYNC;
		else {
			fprintf(stderr, "bhemu: BHEMU_NOC=%s: give sync or async\n", env);
			return BH_ERR_ARG;
		}
	}
	if (mode == BH_NOC_SYNC)
		return BH_OK;
	const char *spec = cfg && cfg->noc_latency ? cfg->noc_latency : getenv("BHEMU_NOC_LATENCY");
	struct bh_noc_latency lat;
	char err[200];
	if (!bh_noc_latency_parse(spec && *spec ? spec : "silicon", &lat, err, sizeof err)) {
		fprintf(stderr, "bhemu: %s%s\n", cfg && cfg->noc_latency ? "" : "BHEMU_NOC_LATENCY: ", err);
		return BH_ERR_ARG;
	}
	/* The jitter comes from the run's seed (bh_device_seed) unless noc_seed fixes it. */
	uint64_t seed = cfg && cfg->noc_seed ? cfg->noc_seed : 0;
	if (!seed) {
		struct bh_rng r;
		bh_rng_seed(&r, dev->chip.provoke.seed, bh_provoke_chip_actor(dev->chip.topo.ntiles, BH_PROVOKE_NOC_ACTOR));
		seed = bh_rng_next(&r);
	}
	dev->chip.noc = bh_noc_engine_create(&dev->chip, &lat, seed);
	return dev->chip.noc ? BH_OK : BH_ERR_SYS;
}

int bh_noc_latency_check(const char *spec, char *err, size_t errlen)
{
	struct bh_noc_latency lat;
	return bh_noc_latency_parse(spec, &lat, err, errlen) ? BH_OK : BH_ERR_ARG;
}

unsigned long bh_device_noc_flush(struct bh_device *dev)
{
	if (!dev->chip.noc)
		return 0;
	unsigned long n = (unsigned long)bh_noc_engine_inflight(dev->chip.noc);
	bh_noc_engine_flush(dev->chip.noc);
	return n;
}

static void device_state_changed(void *owner)
{
	bh_device_notify(owner);
}

/* BHEMU_CHECKS and BHEMU_CHECK_MODE where the config leaves checks and mode at their defaults. */
static int device_checks_env(uint32_t *checks, enum bh_check_mode *mode)
{
	const char *e;
	char err[600];
	if (!*checks && (e = getenv("BHEMU_CHECKS")) && bh_check_list_parse(e, checks, err, sizeof err) != 0) {
		fprintf(stderr, "bhemu: BHEMU_CHECKS %s\n", err);
		return BH_ERR_ARG;
	}
	if (*mode == BH_CHECK_STOP && (e = getenv("BHEMU_CHECK_MODE"))) {
		if (!strcmp(e, "log"))
			*mode = BH_CHECK_LOG;
		else if (strcmp(e, "stop")) {
			fprintf(stderr, "bhemu: BHEMU_CHECK_MODE is stop or log, not '%s'\n", e);
			return BH_ERR_ARG;
		}
	}
	return BH_OK;
}

/* BHEMU_TRACE=FILE (and BHEMU_TRACE_EVENTS=LIST): a trace from open to close, for programs on
 * the library that do not start one themselves. */
static int trace_from_env(struct bh_device *dev)
{
	const char *path = getenv("BHEMU_TRACE"), *ev = getenv("BHEMU_TRACE_EVENTS");
	if (!path || !*path)
		return BH_OK;
	struct bh_trace_config tc = { .path = path };
	char err[128];
	if (ev && bh_trace_kinds_parse(ev, &tc.kinds, err, sizeof err) != 0) {
		fprintf(stderr, "bhemu: BHEMU_TRACE_EVENTS: %s\n", err);
		return BH_ERR_ARG;
	}
	return bh_device_trace_start(dev, &tc);
}

int bh_device_open(const struct bh_device_config *cfg, struct bh_device **out)
{
	uint32_t checks = cfg ? cfg->checks : 0;
	enum bh_check_mode check_mode = cfg ? cfg->check_mode : BH_CHECK_STOP;
	*out = NULL;
	if (device_checks_env(&checks, &check_mode) != BH_OK)
		return BH_ERR_ARG;
	struct bh_device *dev = calloc(1, sizeof *dev);
	int rc = BH_ERR_SYS;
	if (!dev)
		return BH_ERR_SYS;
	pthread_mutex_init(&dev->lock, NULL);
	pthread_cond_init(&dev->cond, NULL);
	pthread_cond_init(&dev->monitor_cond, NULL);
	pthread_mutex_init(&dev->ksym_lock, NULL);
	dev->deadlock_ms = cfg && cfg->deadlock_ms ? cfg->deadlock_ms : DEADLOCK_MS_DEFAULT;
	bh_hooks_init(&dev->chip.hooks);
	bh_checks_init(&dev->chip.checks, checks, check_mode);
	dev->chip.state_changed = device_state_changed;
	dev->chip.owner = dev;
	rc = device_chip_init(dev, cfg);
	if (rc == BH_OK)
		rc = bh_device_provoke_init(dev, cfg);
	if (rc == BH_OK)
		rc = device_sched_init(dev, cfg);   /* before any actor's thread */
	if (rc != BH_OK)
		goto fail;
	rc = BH_ERR_SYS;
	unsigned n = dev->chip.topo.ntiles;
	dev->tiles = calloc(n, sizeof *dev->tiles);
	dev->elf = calloc((size_t)n * BH_CORES_PER_TILE, sizeof *dev->elf);
	dev->ksym = calloc((size_t)n * BH_CORES_PER_TILE, sizeof *dev->ksym);
	dev->kcb_resident = calloc(n, sizeof *dev->kcb_resident);
	if (!dev->tiles || !dev->elf || !dev->ksym || !dev->kcb_resident)
		goto fail;
	dev->chip.tiles = dev->tiles;
	for (unsigned k = 0; k < n; k++) {
		dev->tiles[k] = bh_worker_tile_create(&dev->chip, k);
		if (!dev->tiles[k])
			goto fail;
		dev->ntiles = k + 1;
	}
	rc = device_noc_init(dev, cfg);
	if (rc != BH_OK)
		goto fail;
	rc = BH_ERR_SYS;
	enum rv_jit_mode jit = rv32_jit_default_mode();
	if (cfg && cfg->jit == BH_JIT_OFF)
		jit = RV_JIT_OFF;
	else if (cfg && cfg->jit == BH_JIT_ON)
		jit = RV_JIT_SAMPLED;
	else if (cfg && cfg->jit == BH_JIT_EAGER)
		jit = RV_JIT_EAGER;
	if (!rv32_jit_supported())
		jit = RV_JIT_OFF;
	for (unsigned k = 0; k < n; k++)
		for (unsigned c = 0; c < BH_CORES_PER_TILE; c++) {
			struct bh_core *core = dev->tiles[k]->core[c];
			core->jit_mode = (uint8_t)jit;   /* before its thread exists */
			if (dev->chip.sched) {
				char name[40];
				snprintf(name, sizeof name, "tile %u %s", k, bh_core_kind_name((enum bh_core_kind)c));
				if (!(core->waiter.actor = bh_sched_actor_add(dev->chip.sched, name, false)))
					goto fail;
				bh_sched_actor_instret(core->waiter.actor, &core->instret);
			}
			/* Threaded, a core's thread starts at its first release (tile/tile.c): a chip whose
			 * program runs on a few cores does not create 700 threads. Serial scheduling
			 * registers every actor's thread up front. */
			if (dev->chip.sched && bh_core_thread_start(core) != 0)
				goto fail;
		}
	/* Every actor the deadlock monitor watches: each tile's cores and Tensix threads, then the
	 * fast-dispatch models (idle while no queue is open). */
	dev->waiters = calloc((size_t)n * BH_TILE_WAITERS + 3, sizeof *dev->waiters);
	if (!dev->waiters)
		goto fail;
	for (unsigned k = 0; k < n; k++)
		bh_worker_tile_waiters(dev->tiles[k], dev->waiters + (size_t)k * BH_TILE_WAITERS);
	dev->nwaiters = n * BH_TILE_WAITERS;
	for (unsigned r = 0; r < 2; r++) {
		atomic_store_explicit(&dev->chip.cq_waiter[r].park_state, BH_PARK_IDLE, memory_order_relaxed);
		dev->waiters[dev->nwaiters++] = &dev->chip.cq_waiter[r];
	}
	if (dev->chip.noc)   /* transactions in flight: not a deadlock */
		dev->waiters[dev->nwaiters++] = bh_noc_engine_waiter(dev->chip.noc);
	if (dev->deadlock_ms > 0 && !dev->chip.sched) {   /* serial: the scheduler knows exactly */
		if (pthread_create(&dev->monitor, NULL, device_monitor, dev) != 0)
			goto fail;
		dev->monitor_started = true;
	}
	if ((rc = trace_from_env(dev)) != BH_OK)
		goto fail;
	*out = dev;
	return BH_OK;
fail:
	bh_device_close(dev);
	return rc;
}

void bh_device_close(struct bh_device *dev)
{
	if (!dev)
		return;
	/* Serial scheduling ends here: closing (stopping models, joining threads) runs threaded. */
	bh_sched_dissolve(dev->chip.sched);
	bh_cq_close(dev->cq);
	if (dev->monitor_started) {
		pthread_mutex_lock(&dev->lock);
		dev->monitor_stop = true;
		pthread_cond_signal(&dev->monitor_cond);
		pthread_mutex_unlock(&dev->lock);
		pthread_join(dev->monitor, NULL);
	}
	for (unsigned k = 0; k < dev->ntiles; k++)
		bh_worker_tile_shutdown(dev->tiles[k]);
	for (unsigned k = 0; k < dev->ntiles; k++)
		bh_worker_tile_join(dev->tiles[k]);
	bh_noc_engine_destroy(dev->chip.noc);   /* no core issues anymore; nothing lands after this */
	if (dev->trace)
		bh_device_trace_stop(dev);
	dev->chip.noc = NULL;
	for (unsigned k = 0; k < dev->ntiles; k++)
		bh_worker_tile_free(dev->tiles[k]);
	if (dev->elf)
		for (unsigned k = 0; k < dev->ntiles * BH_CORES_PER_TILE; k++)
			bh_elf_close(dev->elf[k]);
	free(dev->elf);
	free(dev->waiters);
	if (dev->ksym)
		for (unsigned k = 0; k < dev->ntiles * BH_CORES_PER_TILE; k++)
			bh_kernel_unref(dev->ksym[k].img);
	free(dev->ksym);
	free(dev->kcb_resident);
	free(dev->tiles);
	bh_chip_memories_destroy(&dev->chip);
	bh_sched_destroy(dev->chip.sched);
	bh_provoke_destroy(&dev->chip.provoke);
	bh_hooks_destroy(&dev->chip.hooks);
	bh_checks_destroy(&dev->chip.checks);
	pthread_cond_destroy(&dev->monitor_cond);
	pthread_cond_destroy(&dev->cond);
	pthread_mutex_destroy(&dev->lock);
	pthread_mutex_destroy(&dev->ksym_lock);
	free(dev);
}

int bh_device_observe_kinds(struct bh_device *dev, uint32_t kinds, bh_core_observer fn, void *arg, uint64_t *id)
{
	if (!dev || !fn || !id || !kinds || (kinds & ~(uint32_t)BH_EVENTS_ALL))
		return BH_ERR_ARG;
	return bh_hooks_attach(&dev->chip.hooks, kinds, fn, arg, id) == 0 ? BH_OK : BH_ERR_SYS;
}

int bh_device_observe(struct bh_device *dev, bh_core_observer fn, void *arg, uint64_t *id)
{
	return bh_device_observe_kinds(dev, BH_CORE_EVENTS_CORE, fn, arg, id);
}

int bh_device_unobserve(struct bh_device *dev, uint64_t id)
{
	if (!dev)
		return BH_ERR_ARG;
	return bh_hooks_detach(&dev->chip.hooks, id) == 0 ? BH_OK : BH_ERR_ARG;
}

unsigned bh_device_num_tiles(const struct bh_device *dev)
{
	return dev->ntiles;
}

void bh_device_notify(struct bh_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	pthread_cond_broadcast(&dev->cond);
	pthread_mutex_unlock(&dev->lock);
	if (dev->chip.sched)
		bh_sched_wake(bh_sched_host(dev->chip.sched));   /* serial: the host waits in the scheduler */
}

static struct bh_core *dev_core(struct bh_device *dev, unsigned tile, enum bh_core_id core)
{
	if (!dev || tile >= dev->ntiles || (unsigned)core >= BH_CORES_PER_TILE)
		return NULL;
	return dev->tiles[tile]->core[core];
}

const char *bh_core_name(enum bh_core_id core)
{
	return bh_core_kind_name((enum bh_core_kind)core);
}

int bh_core_parse(const char *name)
{
	for (int k = 0; k < BH_CORES_PER_TILE; k++)
		if (strcmp(name, bh_core_kind_name((enum bh_core_kind)k)) == 0)
			return k;
	return -1;
}

/* Host calls with the RISC-V Linux numbers, so that the same ELF runs under qemu-riscv32, and
 * bhemu's own: cb_config (MULTICORE programs' CB set-up, firmware/dataflow/cb_state.c). */
enum { HOSTCALL_WRITE = 64, HOSTCALL_EXIT = 93, HOSTCALL_CB_CONFIG = 0xCB0 };

/* The write host call: src is inside L1 or local RAM. Its 4 KiB buffer lives in this frame only,
 * not in host_call's: a core thread that exits never reaches that deep into its stack (a page it
 * never touched before costs a page fault in the middle of the exit, for every core). */
__attribute__((noinline))
static uint32_t host_call_write(int fd, const uint8_t *src, uint32_t len)
{
	char buf[4096];
	uint32_t done = 0;
	while (done < len) {
		uint32_t n = len - done < sizeof buf ? len - done : (uint32_t)sizeof buf;
		for (uint32_t k = 0; k < n; k++)
			buf[k] = (char)__atomic_load_n(src + done + k, __ATOMIC_RELAXED);
		fflush(fd == 1 ? stdout : stderr);
		ssize_t w = write(fd, buf, n);
		if (w <= 0 && errno != EINTR)
			break;
		if (w > 0)
			done += (uint32_t)w;
	}
	return done;
}

/* cb_config(a0 = config block, a1 = mask): the guest set up the CBs of mask from a config
 * block in L1 or its local RAM (sync.md 3.1: start, size, pages, page size per CB index). The
 * CB checks learn each one as a launch's config teaches them (bh_prog_set_cb_pages). */
static int host_call_cb_config(struct bh_core *c, uint32_t cfg, uint32_t mask)
{
	const uint8_t *base;
	uint32_t span = mask ? 16u * (32u - (uint32_t)__builtin_clz(mask)) : 0;
	if (cfg < BH_L1_SIZE && span <= BH_L1_SIZE - cfg)
		base = c->l1 + cfg;
	else if (cfg - BH_LDM_BASE < c->ldm_size && span <= c->ldm_size - (cfg - BH_LDM_BASE))
		base = c->ldm + (cfg - BH_LDM_BASE);
	else {
		bh_fault_set(c, BH_FAULT_ECALL, cfg, NULL,
			     "cb_config host call: config block [0x%08x, +%u) is not inside L1 or this core's local RAM",
			     cfg, span);
		c->fault.has_addr = true;
		return -1;
	}
	for (unsigned cb = 0; cb < 32; cb++) {
		if (!(mask >> cb & 1))
			continue;
		uint32_t w[4];
		for (unsigned k = 0; k < 4; k++)
			w[k] = __atomic_load_n((const uint32_t *)(base + 16 * cb + 4 * k), __ATOMIC_RELAXED);
		/* start, size, pages, page size */
		if (w[1] != w[2] * w[3] || !bh_stream_set_cb_config(c->tile, cb, w[0], w[2], w[3])) {
			bh_fault_set(c, BH_FAULT_ECALL, cfg + 16 * cb, NULL,
				     "cb_config host call: CB%u config (start 0x%x, size %u, %u pages of %u bytes) is unusable: "
				     "size must be pages * page size, 1..65535 pages, the FIFO inside L1", cb, w[0], w[1], w[2],
				     w[3]);
			c->fault.has_addr = true;
			return -1;
		}
	}
	return 0;
}

static int host_call(struct bh_core *c, void *opaque, int *exit_status)
{
	uint32_t nr = c->x[17], a0 = c->x[10], a1 = c->x[11], a2 = c->x[12];
	(void)opaque;
	if (nr == HOSTCALL_EXIT) {
		*exit_status = (int)a0;
		return 1;
	}
	if (nr == HOSTCALL_CB_CONFIG)
		return host_call_cb_config(c, a0, a1);
	if (nr != HOSTCALL_WRITE) {
		bh_fault_set(c, BH_FAULT_ECALL, 0, NULL,
			     "ecall a7=%u is not a host call (supported: 64 write, 93 exit, 0xcb0 cb_config)", nr);
		return -1;
	}
	if (a0 != 1 && a0 != 2) {
		bh_fault_set(c, BH_FAULT_ECALL, 0, NULL, "write host call to fd %u (only 1 stdout and 2 stderr exist)", a0);
		return -1;
	}
	const uint8_t *src;
	if (a1 < BH_L1_SIZE && a2 <= BH_L1_SIZE - a1)
		src = c->l1 + a1;
	else if (a1 - BH_LDM_BASE < c->ldm_size && a2 <= c->ldm_size - (a1 - BH_LDM_BASE))
		src = c->ldm + (a1 - BH_LDM_BASE);
	else {
		bh_fault_set(c, BH_FAULT_ECALL, a1, NULL,
			     "write host call: buffer [0x%08x, +%u) is not inside L1 or this core's local RAM", a1, a2);
		c->fault.has_addr = true;
		return -1;
	}
	c->x[10] = host_call_write((int)a0, src, a2);
	return 0;
}

void bh_core_enable_host_calls(struct bh_device *dev, unsigned tile, enum bh_core_id core, bool on)
{
	struct bh_core *c = dev_core(dev, tile, core);
	if (!c)
		return;
	pthread_mutex_lock(&c->tile->lock);
	c->ecall = on ? host_call : NULL;   /* read by the core thread after it leaves reset (lock) */
	pthread_mutex_unlock(&c->tile->lock);
}

void bh_core_set_max_instructions(struct bh_device *dev, unsigned tile, enum bh_core_id core, uint64_t n)
{
	struct bh_core *c = dev_core(dev, tile, core);
	if (!c)
		return;
	pthread_mutex_lock(&c->tile->lock);
	c->max_instructions = n;
	pthread_mutex_unlock(&c->tile->lock);
}

int bh_core_start(struct bh_device *dev, unsigned tile, enum bh_core_id core, uint32_t pc)
{
	struct bh_core *c = dev_core(dev, tile, core);
	if (!c)
		return BH_ERR_ARG;
	struct bh_tile *t = c->tile;
	bh_device_host_acted(dev);
	/* Assert then release that core's reset bit: a running core restarts at pc. The pc is set
	 * while the core is held (entering reset drops one an earlier release left unused). */
	unsigned bit = 1u << bh_soft_reset_bit((enum bh_core_kind)core);
	uint32_t v = atomic_load_explicit(&t->soft_reset, memory_order_relaxed);
	bh_tile_soft_reset_write(t, v | bit, BH_REQ_HOST);
	pthread_mutex_lock(&t->lock);
	c->start_pc = pc;
	c->start_pc_valid = true;
	pthread_mutex_unlock(&t->lock);
	bh_tile_soft_reset_write(t, v & ~bit, BH_REQ_HOST);
	return BH_OK;
}

/* "put in reset by brisc: SOFT_RESET_0 = 0x00047800 (holds brisc, ncrisc, ...) stored at pc
 * 0x00001010 <main+0x10> after 5 instructions". Caller holds the tile lock. */
void bh_core_reset_format(struct bh_device *dev, const struct bh_core *c, char *out, size_t n)
{
	char sym[160], held[64] = "";
	size_t used = 0;
	bh_device_symbolize(dev, c->tile->index, c->reset_by, c->reset_by_pc, sym, sizeof sym);
	for (unsigned k = 0; k < BH_CORES_PER_TILE; k++)
		if (c->reset_value >> bh_soft_reset_bit((enum bh_core_kind)k) & 1)
			used += (size_t)snprintf(held + used, sizeof held - used, "%s%s", used ? ", " : "",
						 bh_core_kind_name((enum bh_core_kind)k));
	snprintf(out, n, "put in reset by %s: SOFT_RESET_0 = 0x%08x (holds %s) stored at pc 0x%08x%s after %llu "
		 "instructions", bh_core_kind_name((enum bh_core_kind)c->reset_by), c->reset_value, used ? held : "no core",
		 c->reset_by_pc, sym, (unsigned long long)c->reset_by_instret);
}

static void core_result_locked(struct bh_device *dev, struct bh_core *c, struct bh_core_result *res)
{
	static const enum bh_run_status map[] = {
		[BH_CORE_IN_RESET] = BH_RUN_IN_RESET, [BH_CORE_RUNNING] = BH_RUN_RUNNING,
		[BH_CORE_EXITED] = BH_RUN_EXITED, [BH_CORE_FAULTED] = BH_RUN_FAULTED, [BH_CORE_LIMIT] = BH_RUN_LIMIT,
	};
	/* A released core that has not been picked up by its thread yet counts as running. */
	res->status = c->restart && !c->held ? BH_RUN_RUNNING : map[c->state];
	/* The running core writes exit_status/instret without the lock; their stopped_ copies are
	 * taken under the lock when it stops. */
	res->exit_status = res->status == BH_RUN_EXITED ? c->stopped_exit_status : 0;
	res->instructions = c->stopped_instret;
	res->report[0] = 0;
	if (res->status == BH_RUN_FAULTED)
		bh_fault_format(dev, c, res->report, sizeof res->report);
	bool by_core = res->status == BH_RUN_IN_RESET && c->reset_by < BH_CORES_PER_TILE;
	res->reset_by = by_core ? (int)c->reset_by : -1;
	res->reset_pc = by_core ? c->reset_by_pc : 0;
	res->reset_instructions = by_core ? c->reset_by_instret : 0;
	res->reset_value = by_core ? c->reset_value : 0;
	if (by_core)
		bh_core_reset_format(dev, c, res->report, sizeof res->report);
}

void bh_core_result(struct bh_device *dev, unsigned tile, enum bh_core_id core, struct bh_core_result *res)
{
	struct bh_core *c = dev_core(dev, tile, core);
	if (!c)
		return;
	pthread_mutex_lock(&c->tile->lock);
	core_result_locked(dev, c, res);
	pthread_mutex_unlock(&c->tile->lock);
}

int bh_core_wait(struct bh_device *dev, unsigned tile, enum bh_core_id core, int timeout_ms,
		 struct bh_core_result *res)
{
	struct bh_core *c = dev_core(dev, tile, core);
	struct timespec deadline;
	int rc = BH_OK;
	if (!c)
		return BH_ERR_ARG;
	clock_gettime(CLOCK_REALTIME, &deadline);
	uint64_t vt_deadline = timeout_ms >= 0 && bh_device_serial(dev) ? bh_sched_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
	if (timeout_ms >= 0) {
		deadline.tv_sec += timeout_ms / 1000;
		deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
	}
	/* Lock order: dev->lock, then tile->lock. State changes are announced under dev->lock
	 * after the tile lock is released, so checking under dev->lock loses no wake-up. */
	pthread_mutex_lock(&dev->lock);
	for (;;) {
		pthread_mutex_lock(&c->tile->lock);
		core_result_locked(dev, c, res);
		pthread_mutex_unlock(&c->tile->lock);
		if (res->status != BH_RUN_RUNNING)
			break;
		if (dev->deadlocked || (dev->chip.sched && bh_sched_deadlocked(dev->chip.sched))) {
			rc = BH_ERR_DEADLOCK;
			break;
		}
		if (bh_device_serial(dev)) {
			/* Serial: the host is an actor; it gives the token away until a state change, a
			 * deadlock or the timeout, in virtual time (what it sees then replays). */
			uint64_t now = bh_sched_now_ns();
			if (timeout_ms >= 0 && now >= vt_deadline) {
				rc = BH_ERR_TIMEOUT;
				break;
			}
			pthread_mutex_unlock(&dev->lock);
			bh_sched_host_wait(dev->chip.sched, timeout_ms < 0 ? 0 : vt_deadline - now);
			pthread_mutex_lock(&dev->lock);
			continue;
		}
		if (timeout_ms < 0)
			pthread_cond_wait(&dev->cond, &dev->lock);
		else if (pthread_cond_timedwait(&dev->cond, &dev->lock, &deadline) == ETIMEDOUT) {
			rc = BH_ERR_TIMEOUT;
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return rc;
}

int bh_l1_write(struct bh_device *dev, unsigned tile, uint32_t addr, const void *src, size_t len)
{
	if (!dev || tile >= dev->ntiles || addr > BH_L1_SIZE || len > BH_L1_SIZE - addr)
		return BH_ERR_ARG;
	bh_tile_l1_write(dev->tiles[tile], addr, src, (uint32_t)len);
	bh_device_host_acted(dev);
	return BH_OK;
}

int bh_l1_read(struct bh_device *dev, unsigned tile, uint32_t addr, void *dst, size_t len)
{
	if (!dev || tile >= dev->ntiles || addr > BH_L1_SIZE || len > BH_L1_SIZE - addr)
		return BH_ERR_ARG;
	bh_tile_l1_read(dev->tiles[tile], addr, dst, (uint32_t)len);
	return BH_OK;
}

static int host_reg_access(struct bh_device *dev, unsigned tile, uint32_t addr, bool store, uint32_t *val)
{
	struct bh_fault f;
	if (!dev || tile >= dev->ntiles || addr < BH_L1_SIZE)
		return BH_ERR_ARG;
	memset(&f, 0, sizeof f);
	if (store)
		bh_device_host_acted(dev);
	return bh_mmio_access(dev->tiles[tile], BH_REQ_HOST, addr, 4, store, val, &f, NULL, 0) == BH_ACC_OK
		       ? BH_OK : BH_ERR_ARG;
}

int bh_reg_write(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t val)
{
	return host_reg_access(dev, tile, addr, true, &val);
}

int bh_reg_read(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t *val)
{
	return host_reg_access(dev, tile, addr, false, val);
}

void bh_core_jit_stats(struct bh_device *dev, unsigned tile, enum bh_core_id core, struct bh_jit_stats *out)
{
	struct bh_core *c = dev_core(dev, tile, core);
	out->regions = c ? atomic_load_explicit(&c->jit_regions, memory_order_relaxed) : 0;
	out->flushes = c ? atomic_load_explicit(&c->jit_flushes, memory_order_relaxed) : 0;
	out->shared = c ? atomic_load_explicit(&c->jit_shared, memory_order_relaxed) : 0;
	out->chained = c ? atomic_load_explicit(&c->jit_chained, memory_order_relaxed) : 0;
}

uint64_t bh_core_instructions(struct bh_device *dev, unsigned tile, enum bh_core_id core)
{
	struct bh_core *c = dev_core(dev, tile, core);
	return c ? atomic_load_explicit(&c->instret_snapshot, memory_order_relaxed) : 0;
}
