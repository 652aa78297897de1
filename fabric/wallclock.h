/* The tile wall clock: 64-bit, one tick per AICLK cycle at a nominal 1.35 GHz, derived from the
 * host's monotonic clock so that it advances even while cores are parked (memory-map.md 4.3). */
#ifndef BH_FABRIC_WALLCLOCK_H
#define BH_FABRIC_WALLCLOCK_H

#include <stdint.h>

#define BH_AICLK_HZ 1350000000ull

uint64_t bh_wallclock_ticks(void);
/* The host's monotonic clock in ns (timeouts, delays, NoC due times). */
uint64_t bh_monotonic_ns(void);
/* The model's time in ns: the host's monotonic clock, or under serial scheduling the device's
 * virtual time (sync/sched.h) when the caller is one of its actors. Due times, timed waits and
 * timestamps of events use this. */
uint64_t bh_time_ns(void);

#endif
