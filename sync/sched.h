/* Deterministic scheduling (--sched serial): exactly one actor runs at a time. Every actor (the
 * host driver, each RISC-V core, Tensix thread, fast-dispatch model and the NoC) keeps its own OS
 * thread but runs only while it holds the device's one token, and hands it on at scheduling
 * points: a device access, a store to a watched word, the end of a quantum of instructions, a
 * park. Which actor runs next is a seeded strategy's choice (uniform random, or PCT), so
 * everything observable is a function of the program, its inputs, the seed and the strategy.
 *
 * Time is virtual in this mode: a clock that advances by one nanosecond per retired instruction
 * of the running core (and a fixed step for other actors), and jumps to the earliest timed wait
 * when nothing can run. Parking is "not runnable until woken": bh_park_sleep and bh_park_wake
 * (sync/park.h) come here for a waiter that belongs to an actor. With nothing runnable, nothing
 * timed and only the host waiting, the device is deadlocked, exactly.
 *
 * The rules for the code of an actor's thread:
 *   - it waits for its turn (bh_sched_enter) before it touches the device, and gives the token
 *     away (bh_sched_leave, bh_sched_exit) before it blocks on anything but a park;
 *   - it never holds a lock across a scheduling point or a park;
 *   - whoever makes an actor runnable other than by a wake of its waiter (a reset release)
 *     calls bh_sched_ready while it holds the token.
 * bh_sched_dissolve ends the mode (device close): every wait returns and parks are futex sleeps
 * again. */
#ifndef BH_SYNC_SCHED_H
#define BH_SYNC_SCHED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct bh_sched;
struct bh_actor;

enum bh_sched_strategy_kind {
	BH_SCHED_RANDOM = 0,   /* at each point, a uniformly random runnable actor */
	BH_SCHED_PCT,          /* PCT: random priorities, depth - 1 priority-change points */
};

struct bh_sched_stats {
	uint64_t points;       /* scheduling points */
	uint64_t switches;     /* points where another actor took the token */
	uint64_t vt_ns;        /* virtual time now */
	unsigned actors;
};

/* The calling thread becomes the host actor (id 0) and holds the token. depth: PCT's d (bugs of
 * depth up to d are found with probability >= 1/(n k^(d-1))); steps: its estimate k of the
 * number of scheduling points of a run, over which the change points are spread. switch_every
 * (random): a point hands the token to a uniformly random runnable actor (the holder included)
 * with probability 1/switch_every, else the holder goes on; 1: a uniform choice at every point. */
struct bh_sched *bh_sched_create(enum bh_sched_strategy_kind strategy, uint64_t seed, unsigned depth, uint64_t steps,
				 unsigned switch_every);
void bh_sched_destroy(struct bh_sched *s);
/* End serial scheduling: every actor runs freely from now on (threaded). Idempotent. */
void bh_sched_dissolve(struct bh_sched *s);
bool bh_sched_dissolved(const struct bh_sched *s);

/* A new actor, called by the token holder (so ids follow a deterministic order). runnable: it
 * may be given the token at once (its thread calls bh_sched_enter first); else it is off until
 * bh_sched_ready. wake_word: the actor's waiter word (bh_park_wake bumps it). NULL on failure
 * (out of memory): the caller fails as for a thread it cannot create. */
struct bh_actor *bh_sched_actor_add(struct bh_sched *s, const char *name, bool runnable);
/* A core: its retired-instruction counter, which advances virtual time while it holds the token. */
void bh_sched_actor_instret(struct bh_actor *a, const uint64_t *instret);
struct bh_actor *bh_sched_host(struct bh_sched *s);

/* The calling thread is actor a: wait for the token. */
void bh_sched_enter(struct bh_actor *a);
/* Actor a (the caller, holding the token) goes off: not runnable until bh_sched_ready. */
void bh_sched_leave(struct bh_actor *a);
/* Actor a's thread ends: it never runs again. */
void bh_sched_exit(struct bh_actor *a);
/* Make an off or parked actor runnable (caller holds the token, or the mode is dissolved). */
void bh_sched_ready(struct bh_actor *a);
/* Whether a is runnable or holds the token (its thread must then come to bh_sched_enter). */
bool bh_sched_wanted(struct bh_actor *a);

/* The actor of the calling thread, NULL when it is none (threaded mode, monitor threads). */
extern __thread struct bh_actor *bh_sched_self;

/* A scheduling point of the calling thread (no-op outside serial mode). */
void bh_sched_point_slow(void);
static inline void bh_sched_point(void)
{
	if (__builtin_expect(bh_sched_self != NULL, 0))
		bh_sched_point_slow();
}
/* This thread runs an actor of the serial mode: its device accesses are scheduling points. */
static inline bool bh_sched_active(void)
{
	return __builtin_expect(bh_sched_self != NULL, 0);
}

/* Park actor a on word (its waiter's wake_seq) read as seq: not runnable until the word moves
 * (bh_sched_wake) or, timeout_ns > 0, virtual time passes now + timeout_ns. Returns false when
 * the mode is dissolved (the caller sleeps as in threaded mode). */
bool bh_sched_park(struct bh_actor *a, _Atomic uint32_t *word, uint32_t seq, uint64_t timeout_ns);
/* Actor a's waiter word moved: runnable again if it was parked on it. */
void bh_sched_wake(struct bh_actor *a);
/* Sleep for ns of virtual time (a provocation delay, a host poll): a timed park nobody wakes. */
void bh_sched_sleep(uint64_t ns);

/* The host actor waits: parked until woken (bh_sched_wake on bh_sched_host), a deadlock, or
 * vt_timeout_ns of virtual time (0: none) passes. The host waits in virtual time only: anything
 * it observes is then part of the schedule, and replays. */
void bh_sched_host_wait(struct bh_sched *s, uint64_t vt_timeout_ns);

/* The calling thread is an actor of a serial device that is not dissolved. */
bool bh_sched_serial_now(void);
/* Virtual time of the calling actor's device in ns (with the running core's instructions so far). */
uint64_t bh_sched_now_ns(void);
/* No actor but the host can run or has a timed wait, and the host waits: every actor waits on
 * another. Sticky until bh_sched_host_acted. */
bool bh_sched_deadlocked(struct bh_sched *s);
void bh_sched_host_acted(struct bh_sched *s);
/* A description of every actor's state (for deadlock reports). */
void bh_sched_describe(struct bh_sched *s, char *buf, size_t len);
void bh_sched_stats(struct bh_sched *s, struct bh_sched_stats *out);
enum bh_sched_strategy_kind bh_sched_strategy(const struct bh_sched *s);

#endif
