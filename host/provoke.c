/* A device's provocation (sync/provoke.h): the configuration resolved against the environment
 * (BHEMU_PROVOKE, BHEMU_PROVOKE_RATE, BHEMU_SEED), the seed, and the public accessors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/device.h"

#define PROVOKE_RATE_DEFAULT 0.05

_Static_assert(sizeof(struct bh_provoke_stats) == BH_PSTAT_COUNT * sizeof(uint64_t),
	       "bh_provoke_stats lists the statistics of enum bh_provoke_stat in order");

/* A seed nobody chose: the clock and the process, through one splitmix round (never 0). */
static uint64_t provoke_clock_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct bh_rng r;
	bh_rng_seed(&r, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, (uint64_t)getpid());
	uint64_t s = bh_rng_next(&r) >> 1;   /* fits an int64 too: easy to retype anywhere */
	return s ? s : 1;
}

/* An environment value read whole by strtoull/strtod (no sign, nothing after it). */
static bool provoke_env_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (!*s || *s == '-' || *s == '+' || *end || errno)
		return false;
	*out = v;
	return true;
}

static bool provoke_env_rate(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || !(v >= 0 && v <= 1))
		return false;
	*out = v;
	return true;
}

int bh_device_provoke_init(struct bh_device *dev, const struct bh_device_config *cfg)
{
	uint32_t mask = cfg ? cfg->provoke : 0;
	double rate = cfg ? cfg->provoke_rate : 0;
	uint64_t seed = cfg ? cfg->seed : 0;
	const char *e;
	char err[256];
	if (!mask && (e = getenv("BHEMU_PROVOKE")) && bh_provoke_parse(e, &mask, err, sizeof err) != 0) {
		fprintf(stderr, "bhemu: BHEMU_PROVOKE: %s\n", err);
		return BH_ERR_ARG;
	}
	if (rate == 0 && (e = getenv("BHEMU_PROVOKE_RATE")) && !provoke_env_rate(e, &rate)) {
		fprintf(stderr, "bhemu: BHEMU_PROVOKE_RATE needs a number from 0 to 1, not '%s'\n", e);
		return BH_ERR_ARG;
	} else if (rate == 0 && e) {
		rate = -1;   /* an explicit 0: never, not the default */
	}
	if (!seed && (e = getenv("BHEMU_SEED")) && (!provoke_env_u64(e, &seed) || !seed)) {
		fprintf(stderr, "bhemu: BHEMU_SEED needs a whole number from 1 to 2^64-1, not '%s'\n", e);
		return BH_ERR_ARG;
	}
	if (rate == 0)
		rate = PROVOKE_RATE_DEFAULT;
	if (!seed)
		seed = provoke_clock_seed();
	if (mask & BH_PROVOKE_NONE)
		mask = 0;
	if (bh_provoke_init(&dev->chip.provoke, mask, rate, seed, bh_provoke_actors(dev->chip.topo.ntiles)) != 0)
		return BH_ERR_SYS;
	return BH_OK;
}

uint64_t bh_device_seed(const struct bh_device *dev)
{
	return dev->chip.provoke.seed;
}

uint32_t bh_device_provoke(const struct bh_device *dev)
{
	return dev->chip.provoke.mask;
}

void bh_device_provoke_stats(struct bh_device *dev, struct bh_provoke_stats *out)
{
	uint64_t v[BH_PSTAT_COUNT];
	for (unsigned k = 0; k < BH_PSTAT_COUNT; k++)
		v[k] = atomic_load_explicit(&dev->chip.provoke.stats[k], memory_order_relaxed);
	memcpy(out, v, sizeof v);
}
