/* Spin-wait detection: firmware waits by polling. A core that runs the same short loop with the
 * same registers and the same loaded values, and no stores but silent ones (an L1 store of the
 * value its word already holds, e.g. tt-metal's BRISC resetting launch_msg_rd_ptr to 0 while it
 * waits for GO), can only leave it when one of those words changes: such a core parks until a
 * watched word is written (sync/watch.h). A silently stored word is watched too: when somebody
 * else changes it, the loop's next store is not silent any more and the core must run it.
 *
 * The fast interpreter never pays for this: suspicion comes from events it already handles out
 * of line (a fence, a register-window load, the periodic check landing on the same loop head
 * twice). Then the core runs a few iterations in the monitor variant of the interpreter, which
 * logs loads and silent stores and gives up at the first other store, AMO, CSR access or host call. */
#ifndef BH_CORES_SPIN_H
#define BH_CORES_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#include "sync/watch.h"

struct bh_core;

struct bh_spin_load {
	uint32_t addr;
	uint8_t size;
	uint8_t timed;    /* wall-clock register: value advances on its own */
	uint8_t stored;   /* an L1 word the loop stores `value` to, which it already held */
	uint32_t value;
};

struct bh_spin {
	/* Monitoring state (owner thread). */
	uint32_t head;                  /* loop head: target of the backward jump */
	uint32_t branch_pc;             /* the backward jump */
	unsigned iters, stable;
	unsigned n, prev_n;             /* loads logged this / last iteration */
	bool overflow;
	uint32_t timed_rd;              /* registers written by wall-clock loads this iteration */
	bool fenced;                    /* a fence ran this iteration (monitor variant) */
	struct bh_spin_load cur[BH_WATCH_MAX], prev[BH_WATCH_MAX];
	uint32_t regs[32];              /* registers at the last backward jump */
	uint64_t started;               /* instret when monitoring began */
	/* Throttling of suspicion (owner thread). */
	uint64_t next_allowed;          /* no new monitoring before this instret */
	uint64_t backoff;
	uint32_t last_check_pc;
	uint64_t timed_ns;              /* next timed sleep */
	uint64_t unfenced_ns;           /* next bounded sleep without membarrier (sync/park.h) */
	/* The wait being decided on: the same loop head with the same watched values is the same
	 * wait; it yields the host CPU for a short while before it really parks. */
	uint32_t wait_head;
	uint32_t wait_hash;
	uint64_t wait_start_ns;
	/* What the core is parked on, for deadlock reports: written by the owner before it parks
	 * (release via park_state), read by the monitor thread after an acquire of park_state. */
	struct bh_spin_load watched[BH_WATCH_MAX];
	unsigned nwatched;
	uint32_t park_pc, park_branch;
	uint32_t branch_word;           /* the loop's backward jump and its source registers' values */
	uint32_t branch_rs1, branch_rs2;
	/* lost-target (races.md #11), owner thread: the last == wait decided on, by loop head and
	 * branch, polled word and target, with the value it held then. */
	bool lt_valid;
	uint32_t lt_head, lt_branch, lt_addr, lt_target, lt_value;
};

enum bh_spin_verdict { BH_SPIN_CONTINUE, BH_SPIN_ABORT, BH_SPIN_PARK };

/* Called by the fast interpreter at a suspicious event; true: switch to the monitor variant. */
static inline bool bh_spin_suspect(const struct bh_spin *s, uint64_t instret)
{
	return instret >= s->next_allowed;
}
void bh_spin_begin(struct bh_core *c);
/* Monitor variant: a load of `size` bytes at addr gave value into register rd. false: give up. */
bool bh_spin_note_load(struct bh_core *c, uint32_t addr, unsigned size, uint32_t value, unsigned rd);
/* Monitor variant: an aligned L1 store of `size` bytes of value at addr. true: the word already
 * holds value and nothing but the parking watches the page, so the store may be skipped (it would
 * change nothing) and monitoring goes on; false: give up (the store runs in the fast variant). */
bool bh_spin_note_store(struct bh_core *c, uint32_t addr, unsigned size, uint32_t value);
/* Monitor variant: a taken jump from pc to target <= pc. */
enum bh_spin_verdict bh_spin_backjump(struct bh_core *c, uint32_t pc, uint32_t target);
/* Monitoring ended without a park: back off before suspecting again. */
void bh_spin_abort(struct bh_core *c);
/* Park on the logged loads. Returns BH_SPIN_PARKED when the core goes on (it was woken, or the
 * wait is young and it only yielded), BH_SPIN_LEAVE when it must leave the interpreter (reset),
 * BH_SPIN_FINDING when a check found the loop wrong and the core must stop (c->fault holds the
 * finding): poll-no-fence (races.md #20), judged when the wait is no longer young, before the
 * core sleeps: a loop polling an L1 word, with the core's L0 data cache on (cfg0 bit 3 clear, no
 * pmacfg bit 0) and no fence in its last iteration. */
enum bh_spin_park_result { BH_SPIN_PARKED, BH_SPIN_LEAVE, BH_SPIN_FINDING };
enum bh_spin_park_result bh_spin_park(struct bh_core *c);
/* Before parking, with the lost-target check on: the loop is `bne value, target, head` on one
 * polled word, and since the last time this wait was decided on the word moved from one side of
 * the target to the other without stopping on it (a counter that skipped the value an ==
 * wait needs). Returns true when the core must stop (c->fault holds the finding), false when
 * there is no finding or it was logged. */
bool bh_spin_lost_target(struct bh_core *c);

#endif
