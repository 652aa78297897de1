/* Tensix semaphores (sync.md section 5): eight {Value, Max} pairs of 4 bits per tile, shared by
 * the three Tensix threads. The instruction forms (SEMINIT, SEMPOST, SEMGET; SEMWAIT waits
 * through gate_waiters) are used by the coprocessor (cores/tensix_exec.c); the TRISCs reach them at 0xFFE80020 + 4k through the
 * PCBuf window (sync/pcbuf.c dispatches there). */
#ifndef BH_SYNC_TENSIX_SEM_H
#define BH_SYNC_TENSIX_SEM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sync/park.h"

struct bh_access;
struct bh_tile;

#define BH_SEM_COUNT 8
#define BH_SEM_MMIO_BASE 0xFFE80020u   /* semaphore k at + 4k (TRISC view) */
#define BH_SEM_FIELD_MAX 15u           /* Value and Max are 4-bit fields */

struct bh_sems {
	/* Byte k is semaphore k: Value in bits 3:0, Max in bits 7:4. One word, so that an
	 * instruction selecting several semaphores changes them at once. Written by compare-and-
	 * swap (seq_cst: a SEMWAIT waiter registers on `waiters`, then re-reads), read seq_cst.
	 * Reset value 0/0 for all eight: unverified (sync.md 5; firmware SEMINITs what it uses). */
	_Atomic uint64_t state;
	/* Cores waiting for a semaphore to change. Woken on every change. */
	struct bh_waitq waiters;
	/* Tensix threads held at their Wait Gate by SEMWAIT (bh_tensix_gate_wake below). */
	_Atomic uint32_t gate_waiters;
};

/* Tensix threads held at their Wait Gate (cores/tensix_exec.c) wait on state kept in sync/
 * (semaphores, stream registers). Each such state has a gate_waiters count, incremented seq_cst
 * by a thread before it re-reads the state and parks; after a change, the changer calls
 * bh_tensix_gate_wake(), which calls the chip's gate_wake callback (cores/tensix.c) if the count
 * is non-zero. sems_changed: bit k = Tensix semaphore k changed, so only threads waiting on one
 * of them need to look again; BH_GATE_WAKE_ALL for other state (stream registers). */
#define BH_GATE_WAKE_ALL (~0u)
void bh_tensix_gate_wake(struct bh_tile *tile, _Atomic uint32_t *gate_waiters, unsigned sems_changed);

/* SEMINIT: for each semaphore k selected by mask (bit k), Value = value and Max = max. The
 * instruction fields are 4 bits wide; larger arguments are a caller bug (asserted). Each
 * operation returns the state word it applied to (what the checks of fabric/check.h read). */
uint64_t bh_sem_init(struct bh_tile *tile, unsigned mask, unsigned max, unsigned value);
/* SEMPOST: Value += 1 where Value < 15 (Max is ignored: only SEMWAIT reads it). */
uint64_t bh_sem_post(struct bh_tile *tile, unsigned mask);
/* SEMGET: Value -= 1 where Value > 0. */
uint64_t bh_sem_get(struct bh_tile *tile, unsigned mask);
/* Fields of semaphore k in a state word. */
static inline unsigned bh_sem_state_value(uint64_t s, unsigned k) { return (unsigned)(s >> (8 * k)) & 0xfu; }
static inline unsigned bh_sem_state_max(uint64_t s, unsigned k) { return (unsigned)(s >> (8 * k + 4)) & 0xfu; }
/* SEMWAIT's condition on state word s (SEMWAIT.md): -1 when no semaphore of mask holds the wait
 * (cond bit 0: its value is 0; bit 1: its value is at or above its max), else what holds it, the
 * first such semaphore k with its value and max (k | value << 4 | max << 8): a change of the
 * state that leaves this the same leaves the wait and its description as they were. */
static inline int bh_sem_wait_blocker(uint64_t s, unsigned mask, unsigned cond)
{
	for (unsigned k = 0; k < BH_SEM_COUNT; k++) {
		unsigned v = bh_sem_state_value(s, k), m = bh_sem_state_max(s, k);
		if ((mask >> k & 1) && (((cond & 1) && v == 0) || ((cond & 2) && v >= m)))
			return (int)(k | v << 4 | m << 8);
	}
	return -1;
}
/* The first semaphore selected by mask that a SEMPOST takes past its Max (Value >= Max in the
 * state it applied to), or that a SEMGET finds at 0; -1 if none (sem-overflow, sem-underflow). */
int bh_sem_post_past_max(uint64_t old, unsigned mask);
int bh_sem_get_at_zero(uint64_t old, unsigned mask);
unsigned bh_sem_value(struct bh_tile *tile, unsigned k);
unsigned bh_sem_max(struct bh_tile *tile, unsigned k);

/* TRISC access to semaphore k (0..7) at 0xFFE80020 + 4k. Read: Value. Write: bit 0 set acts as
 * SEMGET, clear as SEMPOST; the other bits are ignored, as the ISA describes. */
bool bh_sem_mmio_read(struct bh_access *a, unsigned k, uint32_t *val);
bool bh_sem_mmio_write(struct bh_access *a, unsigned k, uint32_t val);

#endif
