#include <time.h>

#include "fabric/wallclock.h"
#include "sync/sched.h"

uint64_t bh_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t bh_time_ns(void)
{
	return bh_sched_self ? bh_sched_now_ns() : bh_monotonic_ns();
}

static uint64_t epoch_ns(void)
{
	static uint64_t epoch;
	uint64_t e = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
	if (!e) {
		uint64_t zero = 0, now = bh_monotonic_ns();
		if (!__atomic_compare_exchange_n(&epoch, &zero, now, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return zero;
		return now;
	}
	return e;
}

/* Ticks since the first call in this process: monotonic and shared by every tile. */
uint64_t bh_wallclock_ticks(void)
{
	/* The epoch first: on the first call it is set to "now", which must not be after the
	 * host time subtracted from (C leaves the operand order of '-' unspecified). */
	uint64_t ns;
	if (bh_sched_self) {
		ns = bh_sched_now_ns();   /* serial scheduling: virtual time from the device's start */
	} else {
		uint64_t epoch = epoch_ns();
		ns = bh_monotonic_ns() - epoch;
	}
	/* 1.35 ticks per ns, exact in integers: ns * 27 / 20 (overflows only after ~21 years). */
	return ns / 20 * 27 + ns % 20 * 27 / 20;
}
