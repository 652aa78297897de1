/* Provocation (sync/provoke.h): per-actor random streams and the perturbations drawn from them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sync/sched.h"
#include "sync/fiber.h"
#include "sync/provoke.h"

/* ---- Random streams ---------------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void bh_rng_seed(struct bh_rng *r, uint64_t seed, uint64_t actor)
{
	/* Mix the seed first, then the actor, so that (seed, actor) and (seed + 1, actor - 1) and
	 * the like start from unrelated points of the splitmix sequence. */
	uint64_t x = seed;
	x = splitmix64(&x) ^ actor * 0xd1342543de82ef95ull;
	for (unsigned k = 0; k < 4; k++)
		r->s[k] = splitmix64(&x);
	if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
		r->s[0] = 1;   /* xoshiro's one forbidden state */
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t bh_rng_next(struct bh_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* ---- Configuration ----------------------------------------------------------------------------- */

int bh_provoke_init(struct bh_provoke *p, uint32_t mask, double rate, uint64_t seed, unsigned nactors)
{
	memset(p, 0, sizeof *p);
	p->seed = seed;
	p->mask = mask & (BH_PROVOKE_ALL | BH_PROVOKE_REORDER | BH_PROVOKE_STALE_ICACHE | BH_PROVOKE_L0_CACHE);
	if (!(rate > 0))
		rate = 0;
	p->chance = rate >= 1 ? 1ull << 32 : (uint64_t)(rate * 4294967296.0);
	if (!p->mask)
		return 0;
	p->stream = aligned_alloc(64, (size_t)nactors * sizeof *p->stream);
	if (!p->stream)
		return -1;
	p->nactors = nactors;
	for (unsigned a = 0; a < nactors; a++)
		bh_rng_seed(&p->stream[a].rng, seed, a);
	p->mmio = (p->mask & (BH_PROVOKE_DELAY | BH_PROVOKE_COALESCE)) != 0;
	return 0;
}

void bh_provoke_destroy(struct bh_provoke *p)
{
	free(p->stream);
	p->stream = NULL;
	p->mask = 0;
	p->mmio = false;
}

void bh_provoke_sleep(uint64_t ns)
{
	if (bh_sched_self) {
		bh_sched_sleep(ns);   /* serial scheduling: a delay in virtual time, others run meanwhile */
		return;
	}
	if (bh_fiber_self) {
		bh_fiber_sleep(ns);   /* a fiber: the tile's other actors run meanwhile */
		return;
	}
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void provoke_count(struct bh_provoke *p, enum bh_provoke_stat n, enum bh_provoke_stat ns, uint64_t slept)
{
	atomic_fetch_add_explicit(&p->stats[n], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->stats[ns], slept, memory_order_relaxed);
}

/* One chance draw; a duration in [min, max] only when it hits (the plan stays a function of the
 * seed and the sync points passed). */
static bool provoke_draw(struct bh_provoke *p, struct bh_rng *r, uint64_t min, uint64_t max, uint64_t *ns)
{
	if ((bh_rng_next(r) >> 32) >= p->chance)
		return false;
	*ns = min + bh_rng_below(r, max - min + 1);
	return true;
}

/* ---- Perturbations ----------------------------------------------------------------------------- */

/* Coalesced increments (races.md 11, 12): on silicon two NoC writes that each bump a stream
 * counter (or two SEMPOSTs) can land a few cycles apart, and a poller whose loads fall before
 * and after both sees the counter jump by two: one visible step. In the emulator every increment
 * is applied by its writer on its own, so a poller that reads often sees every value. Delaying
 * the poller's read is the faithful way to get the jump: nothing changes about the increments
 * (each is still applied whole and in order, as the hardware applies them), only the poller is
 * slow, which the hardware allows at any time. A `==` wait then misses its value exactly as it
 * does on silicon. */
void bh_provoke_sync_point(struct bh_provoke *p, unsigned actor, unsigned sync, bool store)
{
	if (sync == BH_SYNC_NONE || actor >= p->nactors)
		return;
	struct bh_rng *r = &p->stream[actor].rng;
	uint64_t ns;
	atomic_fetch_add_explicit(&p->stats[BH_PSTAT_SYNC_POINTS], 1, memory_order_relaxed);
	if ((p->mask & BH_PROVOKE_DELAY) && provoke_draw(p, r, 1000, BH_PROVOKE_DELAY_MAX_NS, &ns)) {
		bh_provoke_sleep(ns);
		provoke_count(p, BH_PSTAT_DELAYS, BH_PSTAT_DELAY_NS, ns);
	}
	if ((p->mask & BH_PROVOKE_COALESCE) && sync == BH_SYNC_COUNTER && !store &&
	    provoke_draw(p, r, BH_PROVOKE_COALESCE_MIN_NS, BH_PROVOKE_COALESCE_MAX_NS, &ns)) {
		bh_provoke_sleep(ns);
		provoke_count(p, BH_PSTAT_COALESCED, BH_PSTAT_DELAY_NS, ns);
	}
}

void bh_provoke_skew(struct bh_provoke *p, unsigned actor)
{
	if (!(p->mask & BH_PROVOKE_SKEW) || actor >= p->nactors)
		return;
	uint64_t ns = bh_rng_below(&p->stream[actor].rng, BH_PROVOKE_SKEW_MAX_NS + 1);
	bh_provoke_sleep(ns);
	provoke_count(p, BH_PSTAT_SKEWS, BH_PSTAT_SKEW_NS, ns);
}

uint64_t bh_provoke_cq_delay(struct bh_provoke *p, unsigned actor, uint32_t kind, uint64_t max_ns)
{
	if (!(p->mask & kind) || actor >= p->nactors)
		return 0;
	uint64_t ns = bh_rng_below(&p->stream[actor].rng, max_ns + 1);
	provoke_count(p, BH_PSTAT_CQ_DELAYS, BH_PSTAT_CQ_DELAY_NS, ns);
	return ns;
}

bool bh_provoke_reorder(struct bh_provoke *p, unsigned actor)
{
	if (!(p->mask & BH_PROVOKE_REORDER) || actor >= p->nactors ||
	    (bh_rng_next(&p->stream[actor].rng) >> 32) >= p->chance)
		return false;
	atomic_fetch_add_explicit(&p->stats[BH_PSTAT_REORDERED], 1, memory_order_relaxed);
	return true;
}

/* ---- Names ------------------------------------------------------------------------------------- */

static const struct {
	const char *name;
	uint32_t bit;
} provoke_names[] = {
	{ "delay", BH_PROVOKE_DELAY },
	{ "skew", BH_PROVOKE_SKEW },
	{ "cq-slow", BH_PROVOKE_CQ_SLOW },
	{ "prefetch-slow", BH_PROVOKE_PREFETCH_SLOW },
	{ "coalesce", BH_PROVOKE_COALESCE },
	{ "reorder", BH_PROVOKE_REORDER },
	{ "stale-icache", BH_PROVOKE_STALE_ICACHE },
	{ "l0-cache", BH_PROVOKE_L0_CACHE },
};
#define PROVOKE_NNAMES (sizeof provoke_names / sizeof provoke_names[0])

int bh_provoke_parse(const char *list, uint32_t *mask, char *err, size_t errlen)
{
	uint32_t m = 0;
	bool none = false;
	const char *s = list ? list : "";
	for (;;) {
		size_t len = strcspn(s, ",");
		uint32_t bit = 0;
		if (len == 3 && !strncmp(s, "all", 3))
			bit = BH_PROVOKE_ALL;
		else if (len == 4 && !strncmp(s, "none", 4))
			none = true;
		for (unsigned k = 0; k < PROVOKE_NNAMES && !bit; k++)
			if (strlen(provoke_names[k].name) == len && !strncmp(s, provoke_names[k].name, len))
				bit = provoke_names[k].bit;
		if (!bit && !(len == 4 && !strncmp(s, "none", 4))) {
			snprintf(err, errlen, "'%.*s' is not a provocation (delay, skew, cq-slow, prefetch-slow, coalesce, "
				 "reorder, stale-icache, l0-cache, all or none, comma separated)", (int)len, s);
			return -1;
		}
		m |= bit;
		if (!s[len])
			break;
		s += len + 1;
	}
	if (none && m) {
		snprintf(err, errlen, "'none' cannot be combined with other provocations in '%s'", list);
		return -1;
	}
	*mask = none ? BH_PROVOKE_NONE : m;
	return 0;
}

void bh_provoke_format(uint32_t mask, char *buf, size_t n)
{
	size_t used = 0;
	if (n)
		buf[0] = 0;
	for (unsigned k = 0; k < PROVOKE_NNAMES; k++)
		if (mask & provoke_names[k].bit && used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? "," : "", provoke_names[k].name);
	if (!used && n)
		snprintf(buf, n, "none");
}
