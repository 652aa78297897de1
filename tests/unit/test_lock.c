/* fabric/lock.h: the NoC's short-section mutex. Holders exclude each other, whether a taker finds
 * it free or sleeps on it; a sleeper wakes when the holder releases; a lock left alone is free
 * again with no sleeper marked. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "fabric/lock.h"

#define THREADS 4
#define ROUNDS 20000
#define HOLD_EVERY 1000   /* every so many rounds a holder sleeps inside: the others must wait */

struct shared {
	struct bh_lock lock;
	unsigned long count;          /* plain: only holders touch it */
	_Atomic int inside, most_inside;
};

static void *hammer(void *arg)
{
	struct shared *s = arg;
	for (unsigned k = 0; k < ROUNDS; k++) {
		bh_lock(&s->lock);
		int in = atomic_fetch_add(&s->inside, 1) + 1;
		int most = atomic_load(&s->most_inside);
		while (in > most && !atomic_compare_exchange_weak(&s->most_inside, &most, in))
			;
		unsigned long c = s->count;
		if (k % HOLD_EVERY == 0)
			nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
		s->count = c + 1;
		atomic_fetch_sub(&s->inside, 1);
		bh_unlock(&s->lock);
	}
	return NULL;
}

Test(lock, holders_exclude_each_other_and_every_increment_counts)
{
	struct shared s = { .count = 0 };
	bh_lock_init(&s.lock);
	pthread_t th[THREADS];
	for (unsigned k = 0; k < THREADS; k++)
		cr_assert_eq(pthread_create(&th[k], NULL, hammer, &s), 0);
	for (unsigned k = 0; k < THREADS; k++)
		pthread_join(th[k], NULL);
	cr_expect_eq(s.count, (unsigned long)THREADS * ROUNDS);
	cr_expect_eq(atomic_load(&s.most_inside), 1, "at most one holder at a time");
	cr_expect_eq(atomic_load(&s.lock.word), 0, "free at the end, no sleeper marked");
}

struct waiter {
	struct bh_lock *lock;
	_Atomic bool took;
};

static void *take(void *arg)
{
	struct waiter *w = arg;
	bh_lock(w->lock);
	atomic_store(&w->took, true);
	bh_unlock(w->lock);
	return NULL;
}

Test(lock, a_taker_of_a_held_lock_sleeps_marked_until_the_holder_releases, .timeout = 60)
{
	struct bh_lock l;
	bh_lock_init(&l);
	bh_lock(&l);
	cr_assert_eq(atomic_load(&l.word), 1, "held, nobody waiting");
	struct waiter w = { .lock = &l };
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, take, &w), 0);
	/* The taker marks the word contended before it sleeps (the .timeout catches a hang). */
	while (atomic_load(&l.word) != 2)
		sched_yield();
	cr_expect(!atomic_load(&w.took), "took a lock still held");
	bh_unlock(&l);
	pthread_join(th, NULL);
	cr_expect(atomic_load(&w.took));
	cr_expect_eq(atomic_load(&l.word), 0);
}
