/* The slow paths of struct bh_lock (fabric/lock.h). */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fabric/lock.h"

static void lock_futex(struct bh_lock *l, int op, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)&l->word, op, val, NULL, NULL, 0);
}

void bh_lock_wait(struct bh_lock *l)
{
	/* Mark it contended; whoever held it wakes one sleeper when it releases. A sleeper that wakes
	 * marks it contended again when it takes it: another may still sleep. */
	uint32_t was = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
	while (was != 0) {
		lock_futex(l, FUTEX_WAIT_PRIVATE, 2);   /* returns at once when the word is no longer 2 */
		was = atomic_exchange_explicit(&l->word, 2, memory_order_acquire);
	}
}

void bh_lock_wake(struct bh_lock *l)
{
	atomic_store_explicit(&l->word, 0, memory_order_release);
	lock_futex(l, FUTEX_WAKE_PRIVATE, 1);
}
