/* Detectors of synchronisation bugs (races.md), the mechanism they share: which checks a chip
 * runs and what a finding does. A finding is a fault of a check (BH_FAULT_CHECK, its id in
 * bh_fault.check): in stop mode the finder reports it as the fault of the core it blames (that
 * core stops, BH_RUN_FAULTED); in log mode it is recorded once per (check, pc, tile, core) and
 * the run goes on. Both modes record it for bh_device_findings (host/fault.c formats it).
 *
 * A detector, on its (slow) path:
 *
 *     if (bh_check_on(chip, BH_CHECK_X)) {
 *             struct bh_fault f;
 *             bh_check_fill(&f, BH_CHECK_X, addr, region, other, "why ...");
 *             f.pc = ...; f.insn = ...;
 *             if (bh_check_found(chip, tile, core, &f))
 *                     ... stop: hand f to the core as its fault ...
 *     }
 *
 * Device handlers reached by a core's access use bh_check_access() instead. */
#ifndef BH_FABRIC_CHECK_H
#define BH_FABRIC_CHECK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bhemu/bhemu.h"
#include "fabric/code.h"
#include "fabric/fault.h"
#include "fabric/inflight.h"

struct bh_access;
struct bh_chip;

/* One recorded finding: the fault of the check and whom it blames. */
struct bh_finding {
	unsigned tile;
	unsigned core;             /* enum bh_core_kind */
	uint64_t time_ns;          /* bh_monotonic_ns when it was found (first time, in log mode) */
	struct bh_fault fault;
};

#define BH_FINDINGS_KEPT 1024u

struct bh_checks {
	/* Set by the device before any core runs, constant afterwards: read without a lock. */
	uint32_t enabled;          /* bit = enum bh_check */
	bool log_only;             /* BH_CHECK_LOG */
	/* The findings (under lock). count goes on past BH_FINDINGS_KEPT; the first ones are kept. */
	pthread_mutex_t lock;
	struct bh_finding *log;
	unsigned count, cap;
};

/* The chip's checks from the public configuration (checks, mode); destroy frees the log. */
void bh_checks_init(struct bh_checks *ch, uint32_t checks, enum bh_check_mode mode);
void bh_checks_destroy(struct bh_checks *ch);

static inline bool bh_checks_on(const struct bh_checks *ch, enum bh_check id)
{
	return ch->enabled >> id & 1;
}

/* Fill f as the finding of check id: address and region as for a fault (region may be NULL),
 * the other party (another core, a Tensix thread, a NoC transaction; NULL when none) and why.
 * pc and insn are the caller's. */
__attribute__((cold, format(printf, 6, 7)))
void bh_check_fill(struct bh_fault *f, enum bh_check id, uint32_t addr, const char *region, const char *other,
		   const char *fmt, ...);
/* Record finding f, blamed on core `core` of tile `tile`. Returns true in stop mode (the caller
 * stops that core with f as its fault), false in log mode (recorded unless the same check at the
 * same pc of the same core was recorded before; the run goes on). */
__attribute__((cold))
bool bh_check_found(struct bh_checks *ch, unsigned tile, unsigned core, const struct bh_fault *f);
/* In a device's handler of a core's store: a finding of check id at that store (the core's pc,
 * the address and region). Returns false with a->fault filled in stop mode (the handler returns
 * false: the core faults), true in log mode (the handler carries on) and for the host's accesses,
 * which no check judges. */
__attribute__((cold, format(printf, 4, 5)))
bool bh_check_access(struct bh_access *a, enum bh_check id, const char *other, const char *fmt, ...);
/* Checks that judge a core's L1 loads: while one is on, the cores run an interpreter variant whose
 * L1 loads look at their page's byte in tile->code_pages (cores/rv32_run.inc; the default
 * variant and compiled code do not), and a load from a page with any of BH_PAGE_LOAD_FLAGS calls
 * bh_check_l1_load. A check that wants loads adds its bit here, its page bit to the flags and its
 * look to bh_check_l1_load. */
#define BH_CHECKS_LOADS (BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT_LOAD) | BH_CHECK_BIT(BH_CHECK_CB_OWNERSHIP))
#define BH_PAGE_LOAD_FLAGS (BH_PAGE_INFLIGHT | BH_PAGE_CB)
/* A core (`who`) loads size bytes of L1 at addr, at pc, from a flagged page: every check that
 * judges loads looks. False: *f holds a finding that stops the core (stop mode). */
__attribute__((cold))
bool bh_check_l1_load(struct bh_tile *t, unsigned who, uint32_t addr, unsigned size, uint32_t pc, struct bh_fault *f);
/* Copy of the findings so far (at most BH_FINDINGS_KEPT) into a malloc'd array (*out, NULL when
 * none or out of memory); returns how many there were in all. */
unsigned bh_checks_copy(struct bh_checks *ch, struct bh_finding **out, unsigned *kept);

#endif
