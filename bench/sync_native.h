/* Native references of bench_sync: the synchronisation the guest programs do, done by host
 * threads as fast as the host allows. bhemu is measured against these in the same run.
 *
 * Every reference follows its guest program step for step (bench_sync.c names them): the same
 * counters and 16-bit arithmetic, the same page contents and checks, the same wait order. What
 * differs is only what the host does better: waits spin with a pause, then yield the CPU. */
#ifndef BENCH_SYNC_NATIVE_H
#define BENCH_SYNC_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Value the host writes to a wake flag to make its waiters exit (sync_wake.c's WAKE_EXIT). */
#define NATIVE_WAKE_EXIT 0xFFFFFFFFu

/* One circular buffer: depth in pages, page size in bytes (a multiple of 16, at least 16). */
struct native_cb {
	uint32_t pages;
	uint32_t page_size;
};

/* Moves `pages` pages through nstages threads joined by nstages - 1 rings (cbs[i] links stage i
 * to stage i + 1): stage 0 makes each page (tests/guest/mc/cb_page.h format), every middle stage
 * checks it, forwards it transformed and frees it, the last stage checks it. nstages 2 is
 * cb_pingpong.c, 5 is cb_chain5.c. Returns the seconds from the start signal to the last
 * stage's last page, or a negative value with err set (a thread failed or a page was wrong). */
double native_cb_chain(unsigned nstages, const struct native_cb *cbs, uint32_t pages, char *err, size_t errlen);

/* Flag ping-pong between this thread and a waiter thread that blocks in futex_wait on the flag
 * (sync_wake.c's loop, with a futex instead of bhemu's parking). Round r: wait until the waiter
 * sleeps, spin settle_s more, then time "write flag = r, wake" until the waiter's answer r is
 * seen. rtt_s[0..rounds) gets the times of the rounds after `warmup` untimed ones. */
int native_wake_rtt(unsigned rounds, unsigned warmup, double settle_s, double *rtt_s, char *err, size_t errlen);

/* ngroups flags with per_group threads blocked on each (a device's tiles and cores, parked on
 * one flag per tile): CPU use of the process over idle_s seconds of wall time, then the time
 * from the first "flag = exit, wake" until every thread has said it left its wait. */
struct native_idle {
	double cpu_percent;     /* of one host CPU */
	double settle_s;        /* start until every thread slept */
	double wake_all_s;
};
int native_idle_run(unsigned ngroups, unsigned per_group, double idle_s, struct native_idle *out, char *err,
		    size_t errlen);

#endif
