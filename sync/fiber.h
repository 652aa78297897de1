/* Fiber groups: several actors (a tile's five cores and three Tensix executors) on one host thread,
 * for hosts with fewer CPUs than busy actors (bh_device_config.tile_threads). Each actor keeps its
 * own stack and its own code; only where it would sleep changes. bh_park_sleep of an actor in a
 * group (sync/park.h) switches to another actor of the group that can run instead of entering the
 * kernel, and the group's thread sleeps on one futex word only when none can. A hand-over between
 * two actors of a tile is then a user-level context switch, not a futex wake-up and a kernel
 * context switch on each side.
 *
 * What stays the same: the parking protocol (a waiter reads wake_seq before it checks, sleeps
 * only while it has that value; every waker bumps it), so no wake-up is lost, whoever wakes: an
 * actor of the same group, of another group, or a host thread. Deadlock detection reads the same
 * waiter fields. What changes: the actors of a group never run at the same time, so their races
 * are the interleavings of switches at parks and at the cores' periodic event checks
 * (bh_fiber_point), not those of parallel threads. Serial scheduling (sync/sched.h) has its own
 * scheduler and is not combined with fibers.
 *
 * A fiber never switches while it holds a lock: it switches only in bh_park_sleep (whose callers
 * hold none), bh_fiber_point and bh_fiber_yield (called where no lock is held). */
#ifndef BH_SYNC_FIBER_H
#define BH_SYNC_FIBER_H

#include <stdbool.h>
#include <stdint.h>

struct bh_fiber;
struct bh_fiber_group;
struct bh_waiter;

/* The fiber running on this host thread, NULL on an ordinary thread. */
extern __thread struct bh_fiber *bh_fiber_self;

/* A group; its host thread starts with its first fiber. name: for the thread's name (at most 15
 * characters are kept). NULL: no memory. */
struct bh_fiber_group *bh_fiber_group_create(const char *name);
/* Once every fiber of the group was joined: stops the thread and frees the group. */
void bh_fiber_group_destroy(struct bh_fiber_group *g);

/* Add fn(arg) to the group as a fiber whose sleeps are those of waiter w (w->fiber is set here,
 * before it runs). stack: bytes of stack. NULL: no memory (nothing was added). Any thread may
 * add fibers at any time before bh_fiber_group_destroy. */
struct bh_fiber *bh_fiber_start(struct bh_fiber_group *g, struct bh_waiter *w, void *(*fn)(void *), void *arg,
				size_t stack);
/* Wait until fn of f has returned, then free f. From a thread that is not a fiber of f's group. */
void bh_fiber_join(struct bh_fiber *f);

/* bh_park_sleep for a fiber (sync/park.c): other fibers run until w's wake_seq moves off seq or
 * timeout_ns passes (0: no timeout). */
void bh_fiber_park(struct bh_waiter *w, uint32_t seq, uint64_t timeout_ns);
/* A delay of ns for the calling fiber (provocation): the group's other fibers run meanwhile. */
void bh_fiber_sleep(uint64_t ns);
/* bh_park_wake's part for a waiter of a fiber: its group's thread, if asleep, wakes. */
void bh_fiber_wake(struct bh_fiber *f);
/* Let another fiber of the group that can run do so now; the caller stays runnable. No-op on
 * an ordinary thread. */
void bh_fiber_yield(void);
/* A preemption point (the cores' periodic event check): bh_fiber_yield every few calls, so that a
 * core that computes or polls without parking cannot keep the other actors of its tile off the
 * thread for long. */
void bh_fiber_point(void);

/* Switches between fibers so far (all groups), for benches and tests. */
uint64_t bh_fiber_switches(void);

#endif
