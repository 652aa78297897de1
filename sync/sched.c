/* Deterministic scheduling: one token per device, handed from actor to actor (sync/sched.h).
 *
 * Every decision is made under s->lock by the token holder, from state that only token holders
 * change, so the sequence of decisions is a function of the seed. The token moves by a release
 * store of the next actor's turn word and a futex wake; the previous holder then sleeps on its
 * own turn word. An actor's thread never runs device code without the token, so the memory it
 * sees is what the actors before it left, in the order the strategy chose. */
#define _GNU_SOURCE 1
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fabric/wallclock.h"
#include "sync/hooks.h"
#include "sync/sched.h"

/* Virtual time: a retired instruction is a nanosecond (about Blackhole's 1.35 GHz, in round
 * numbers); a step of any other actor (a batch of NoC events, a command of a dispatch model, a
 * host step) is STEP_NS. */
#define NS_PER_INSN 1u
#define STEP_NS 10u

enum actor_state {
	A_OFF,        /* held in reset, not started, idle outside any wait */
	A_RUNNABLE,
	A_PARKED,     /* until its word moves */
	A_TIMED,      /* until its word moves or virtual time reaches deadline */
	A_DEAD,
};

static const char *const state_name[] = { "off", "runnable", "parked", "timed", "exited" };

struct bh_actor {
	struct bh_sched *s;
	unsigned id;
	char name[40];
	_Atomic uint32_t turn;         /* 1: it holds the token (futex word) */
	/* Under s->lock: */
	enum actor_state state;
	uint64_t deadline;             /* A_TIMED: virtual ns */
	_Atomic uint32_t *word;        /* parked on this word read as seq (NULL: any wake) */
	uint32_t seq;
	uint64_t prio;                 /* PCT */
	_Atomic uint32_t sleep_word;   /* bh_sched_sleep parks on it; nobody moves it */
	/* Owner thread: */
	const uint64_t *instret;
	uint64_t slice_start;
	bool pinned;                   /* its thread runs on s->cpu */
};

struct bh_sched {
	pthread_mutex_t lock;
	struct bh_actor **actors;
	struct bh_actor **scratch;     /* runnable candidates of one decision */
	unsigned n, cap;
	struct bh_actor *cur;
	struct bh_actor *host;
	_Atomic uint64_t vt;
	uint64_t rng;
	enum bh_sched_strategy_kind strategy;
	unsigned switch_every;         /* random: a point switches with probability 1/switch_every */
	bool drawn;                    /* random: drawn_r is this point's number, already drawn */
	uint64_t drawn_r;
	unsigned depth;
	uint64_t *change;              /* PCT: the points where the running actor's priority drops */
	unsigned nchange, next_change;
	uint64_t points, switches;
	bool deadlocked;
	_Atomic bool dissolved;
	/* Every actor's thread runs on this CPU (-1: anywhere): only one runs at a time anyway, and a
	 * hand-over between threads of one CPU is a context switch, not a cross-CPU wake-up. */
	int cpu;
	cpu_set_t host_cpus;           /* the host thread's affinity before, restored at destroy */
	bool host_pinned;
};

__thread struct bh_actor *bh_sched_self;

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, NULL, NULL, 0);
}


/* splitmix64, drawn only under s->lock. */
static uint64_t rng_next(uint64_t *st)
{
	uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static struct bh_actor *actor_new(struct bh_sched *s, const char *name, enum actor_state st)
{
	if (s->n == s->cap) {
		unsigned cap = s->cap ? s->cap * 2 : 64;
		struct bh_actor **a = realloc(s->actors, cap * sizeof *a), **sc;
		if (!a)
			return NULL;
		s->actors = a;
		if (!(sc = realloc(s->scratch, cap * sizeof *sc)))
			return NULL;
		s->scratch = sc;
		s->cap = cap;
	}
	struct bh_actor *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->s = s;
	a->id = s->n;
	snprintf(a->name, sizeof a->name, "%s", name);
	a->state = st;
	/* PCT: initial priorities above every change point's (depth - 1 .. 1). */
	a->prio = s->depth + (rng_next(&s->rng) >> 8);
	s->actors[s->n++] = a;
	return a;
}

struct bh_sched *bh_sched_create(enum bh_sched_strategy_kind strategy, uint64_t seed, unsigned depth, uint64_t steps,
				 unsigned switch_every)
{
	struct bh_sched *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->strategy = strategy;
	s->rng = seed ^ 0x5C4ED5C4ED5C4EDull;
	s->depth = depth ? depth : 3;
	s->switch_every = switch_every ? switch_every : 1;
	if (strategy == BH_SCHED_PCT && s->depth > 1) {
		s->nchange = s->depth - 1;
		s->change = calloc(s->nchange, sizeof *s->change);
		if (!s->change) {
			free(s);
			return NULL;
		}
		for (unsigned k = 0; k < s->nchange; k++)
			s->change[k] = 1 + rng_next(&s->rng) % (steps ? steps : 1);
		qsort(s->change, s->nchange, sizeof *s->change, cmp_u64);
	}
	s->host = actor_new(s, "host", A_RUNNABLE);
	if (!s->host) {
		bh_sched_destroy(s);
		return NULL;
	}
	s->cur = s->host;
	bh_sched_self = s->host;
	s->cpu = -1;
	const char *e = getenv("BHEMU_SCHED_PIN");
	if ((!e || strcmp(e, "0")) && (s->cpu = sched_getcpu()) >= 0 &&
	    pthread_getaffinity_np(pthread_self(), sizeof s->host_cpus, &s->host_cpus) == 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(s->cpu, &one);
		s->host_pinned = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
	}
	return s;
}

void bh_sched_destroy(struct bh_sched *s)
{
	if (!s)
		return;
	bh_sched_dissolve(s);
	if (bh_sched_self && bh_sched_self->s == s)
		bh_sched_self = NULL;
	if (s->host_pinned)
		pthread_setaffinity_np(pthread_self(), sizeof s->host_cpus, &s->host_cpus);
	for (unsigned k = 0; k < s->n; k++)
		free(s->actors[k]);
	free(s->actors);
	free(s->scratch);
	free(s->change);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* The mode ends (s->lock held): every actor's wait for its turn returns. */
static void release_all_locked(struct bh_sched *s)
{
	atomic_store_explicit(&s->dissolved, true, memory_order_seq_cst);
	for (unsigned k = 0; k < s->n; k++) {
		atomic_store_explicit(&s->actors[k]->turn, 1, memory_order_release);
		futex(&s->actors[k]->turn, FUTEX_WAKE_PRIVATE, INT_MAX);
	}
}

void bh_sched_dissolve(struct bh_sched *s)
{
	if (!s || bh_sched_dissolved(s))
		return;
	pthread_mutex_lock(&s->lock);
	release_all_locked(s);
	pthread_mutex_unlock(&s->lock);
}

bool bh_sched_dissolved(const struct bh_sched *s)
{
	return atomic_load_explicit(&s->dissolved, memory_order_acquire);
}

struct bh_actor *bh_sched_actor_add(struct bh_sched *s, const char *name, bool runnable)
{
	pthread_mutex_lock(&s->lock);
	struct bh_actor *a = actor_new(s, name, runnable ? A_RUNNABLE : A_OFF);
	pthread_mutex_unlock(&s->lock);
	return a;
}

void bh_sched_actor_instret(struct bh_actor *a, const uint64_t *instret)
{
	a->instret = instret;
}

struct bh_actor *bh_sched_host(struct bh_sched *s)
{
	return s->host;
}

/* The running actor's virtual time since it took the token. Owner thread. */
static uint64_t pending_ns(const struct bh_actor *a)
{
	if (!a->instret)
		return 0;
	uint64_t now = *a->instret;
	return now > a->slice_start ? (now - a->slice_start) * NS_PER_INSN : 0;
}

/* The holder a pays for what it ran since it took the token (or its last point). */
static void charge(struct bh_sched *s, struct bh_actor *a)
{
	if (s->cur != a) {
		fprintf(stderr, "bhemu: serial scheduler: %s acts while %s holds the token\n", a->name, s->cur->name);
		abort();
	}
	uint64_t d = a->instret ? pending_ns(a) : STEP_NS;
	atomic_store_explicit(&s->vt, atomic_load_explicit(&s->vt, memory_order_relaxed) + d, memory_order_relaxed);
	if (a->instret)
		a->slice_start = *a->instret;
	s->points++;
	/* PCT: at a change point the running actor drops below every other. */
	while (s->next_change < s->nchange && s->points >= s->change[s->next_change]) {
		a->prio = s->nchange - s->next_change;
		s->next_change++;
	}
}

static bool waiting(const struct bh_actor *a)
{
	return a->state == A_PARKED || a->state == A_TIMED;
}

/* The next holder, with s->lock held: whoever may run, by the strategy; when nobody may, virtual
 * time jumps to the earliest timed wait; when nothing waits on time either, every actor but the
 * host waits on another: a deadlock, and the host (waiting for the device) is told. */
static struct bh_actor *choose(struct bh_sched *s)
{
	struct bh_actor *host = s->host;
	for (;;) {
		uint64_t vt = atomic_load_explicit(&s->vt, memory_order_relaxed), tmin = UINT64_MAX;
		unsigned nr = 0;
		bool others = false;
		for (unsigned k = 0; k < s->n; k++) {
			struct bh_actor *a = s->actors[k];
			if (a->state == A_TIMED && a->deadline <= vt)
				a->state = A_RUNNABLE;
			if (a->state == A_RUNNABLE)
				s->scratch[nr++] = a;
			else if (a->state == A_TIMED && a->deadline < tmin)
				tmin = a->deadline;
			if (a != host && (a->state == A_RUNNABLE || a->state == A_TIMED))
				others = true;
		}
		if (!others && waiting(host)) {
			s->deadlocked = true;
			host->state = A_RUNNABLE;
			return host;
		}
		if (nr) {
			if (s->strategy == BH_SCHED_RANDOM) {
				/* Drawn already by a point that decided to switch (bh_sched_point_slow). */
				uint64_t r = s->drawn ? s->drawn_r : rng_next(&s->rng);
				bool drawn = s->drawn;
				s->drawn = false;
				/* The holder goes on with probability 1 - 1/switch_every at a point it
				 * could go on from: every point may switch, few do. */
				if (!drawn && s->cur->state == A_RUNNABLE && s->switch_every > 1 && (r >> 32) % s->switch_every)
					return s->cur;
				return s->scratch[(uint32_t)r % nr];
			}
			struct bh_actor *best = s->scratch[0];
			for (unsigned k = 1; k < nr; k++)
				if (s->scratch[k]->prio > best->prio)
					best = s->scratch[k];
			return best;
		}
		if (tmin == UINT64_MAX)
			return NULL;
		atomic_store_explicit(&s->vt, tmin, memory_order_relaxed);
	}
}


/* Hand the token to next (s->lock held). False when there is nobody: the mode ends. */
static bool grant(struct bh_sched *s, struct bh_actor *next)
{
	if (!next) {
		fprintf(stderr, "bhemu: serial scheduler: no actor can run and the host does not wait; scheduling "
			"is threaded from here on\n");
		release_all_locked(s);
		return false;
	}
	if (next != s->cur)
		s->switches++;
	s->cur = next;
	atomic_store_explicit(&next->turn, 1, memory_order_release);
	futex(&next->turn, FUTEX_WAKE_PRIVATE, 1);
	return true;
}

/* Sleep until a holds the token. Not an RCU reader meanwhile: the holder may detach hooks. */
static void wait_turn(struct bh_actor *a)
{
	bh_rcu_offline();
	while (!atomic_exchange_explicit(&a->turn, 0, memory_order_acquire)) {
		if (atomic_load_explicit(&a->s->dissolved, memory_order_acquire))
			break;
		futex(&a->turn, FUTEX_WAIT_PRIVATE, 0);
	}
	bh_rcu_online();
	if (a->instret)
		a->slice_start = *a->instret;
}

void bh_sched_enter(struct bh_actor *a)
{
	if (!a->pinned && a->s->cpu >= 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(a->s->cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof one, &one);
		a->pinned = true;
	}
	bh_sched_self = a;
	wait_turn(a);
}

/* a's state changed away from running (s->lock held, a charged): hand the token on and, unless
 * a itself is chosen, sleep until it comes back when `sleep`. */
static void switch_from(struct bh_sched *s, struct bh_actor *a, bool sleep)
{
	struct bh_actor *next = choose(s);
	if (next == a) {
		pthread_mutex_unlock(&s->lock);
		return;
	}
	bool ok = grant(s, next);
	pthread_mutex_unlock(&s->lock);
	if (ok && sleep)
		wait_turn(a);
}

void bh_sched_leave(struct bh_actor *a)
{
	struct bh_sched *s = a->s;
	if (bh_sched_dissolved(s))
		return;
	pthread_mutex_lock(&s->lock);
	charge(s, a);
	a->state = A_OFF;
	switch_from(s, a, false);
}

void bh_sched_exit(struct bh_actor *a)
{
	struct bh_sched *s = a->s;
	if (bh_sched_self == a)
		bh_sched_self = NULL;
	if (bh_sched_dissolved(s))
		return;
	pthread_mutex_lock(&s->lock);
	charge(s, a);
	a->state = A_DEAD;
	switch_from(s, a, false);
}

void bh_sched_ready(struct bh_actor *a)
{
	struct bh_sched *s = a->s;
	if (bh_sched_dissolved(s))
		return;
	pthread_mutex_lock(&s->lock);
	if (a->state != A_DEAD)
		a->state = A_RUNNABLE;
	pthread_mutex_unlock(&s->lock);
}

bool bh_sched_wanted(struct bh_actor *a)
{
	struct bh_sched *s = a->s;
	if (bh_sched_dissolved(s))
		return false;
	pthread_mutex_lock(&s->lock);
	bool w = a->state == A_RUNNABLE || s->cur == a;
	pthread_mutex_unlock(&s->lock);
	return w;
}

void bh_sched_point_slow(void)
{
	struct bh_actor *a = bh_sched_self;
	struct bh_sched *s = a->s;
	if (bh_sched_dissolved(s))
		return;
	pthread_mutex_lock(&s->lock);
	charge(s, a);
	if (s->strategy == BH_SCHED_RANDOM && s->switch_every > 1) {
		/* Most points go on: decided without looking at the other actors. */
		uint64_t r = rng_next(&s->rng);
		if ((r >> 32) % s->switch_every) {
			pthread_mutex_unlock(&s->lock);
			return;
		}
		s->drawn = true;
		s->drawn_r = r;
	}
	switch_from(s, a, true);
}

bool bh_sched_park(struct bh_actor *a, _Atomic uint32_t *word, uint32_t seq, uint64_t timeout_ns)
{
	struct bh_sched *s = a->s;
	if (bh_sched_dissolved(s))
		return false;
	pthread_mutex_lock(&s->lock);
	if (atomic_load_explicit(word, memory_order_acquire) != seq) {
		pthread_mutex_unlock(&s->lock);
		return true;
	}
	charge(s, a);
	a->state = timeout_ns ? A_TIMED : A_PARKED;
	a->deadline = atomic_load_explicit(&s->vt, memory_order_relaxed) + timeout_ns;
	a->word = word;
	a->seq = seq;
	switch_from(s, a, true);
	return true;
}

void bh_sched_wake(struct bh_actor *a)
{
	struct bh_sched *s = a->s;
	if (bh_sched_dissolved(s))
		return;
	pthread_mutex_lock(&s->lock);
	if (waiting(a) && (!a->word || atomic_load_explicit(a->word, memory_order_acquire) != a->seq))
		a->state = A_RUNNABLE;
	pthread_mutex_unlock(&s->lock);
}

void bh_sched_sleep(uint64_t ns)
{
	struct bh_actor *a = bh_sched_self;
	if (!a)
		return;
	bh_sched_park(a, &a->sleep_word, atomic_load_explicit(&a->sleep_word, memory_order_relaxed), ns ? ns : 1);
}

void bh_sched_host_wait(struct bh_sched *s, uint64_t vt_timeout_ns)
{
	struct bh_actor *a = s->host;
	if (bh_sched_dissolved(s))
		return;
	pthread_mutex_lock(&s->lock);
	charge(s, a);
	a->state = vt_timeout_ns ? A_TIMED : A_PARKED;
	a->deadline = atomic_load_explicit(&s->vt, memory_order_relaxed) + vt_timeout_ns;
	a->word = NULL;
	switch_from(s, a, true);
}

bool bh_sched_serial_now(void)
{
	return bh_sched_self && !bh_sched_dissolved(bh_sched_self->s);
}

uint64_t bh_sched_now_ns(void)
{
	struct bh_actor *a = bh_sched_self;
	if (!a)
		return bh_monotonic_ns();
	return atomic_load_explicit(&a->s->vt, memory_order_relaxed) + pending_ns(a);
}

bool bh_sched_deadlocked(struct bh_sched *s)
{
	pthread_mutex_lock(&s->lock);
	bool d = s->deadlocked;
	pthread_mutex_unlock(&s->lock);
	return d;
}

void bh_sched_host_acted(struct bh_sched *s)
{
	pthread_mutex_lock(&s->lock);
	s->deadlocked = false;
	pthread_mutex_unlock(&s->lock);
}

void bh_sched_describe(struct bh_sched *s, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	pthread_mutex_lock(&s->lock);
	for (unsigned k = 0; k < s->n && o + 1 < len; k++) {
		const struct bh_actor *a = s->actors[k];
		if (a->state == A_OFF || a->state == A_DEAD)
			continue;
		int w = snprintf(buf + o, len - o, "%s%s %s", o ? ", " : "", a->name, state_name[a->state]);
		if (w < 0)
			break;
		o += (size_t)w < len - o ? (size_t)w : len - o - 1;
	}
	pthread_mutex_unlock(&s->lock);
}

enum bh_sched_strategy_kind bh_sched_strategy(const struct bh_sched *s)
{
	return s->strategy;
}

void bh_sched_stats(struct bh_sched *s, struct bh_sched_stats *out)
{
	pthread_mutex_lock(&s->lock);
	out->points = s->points;
	out->switches = s->switches;
	out->vt_ns = atomic_load_explicit(&s->vt, memory_order_relaxed);
	out->actors = s->n;
	pthread_mutex_unlock(&s->lock);
}
