/* Tensix semaphores (sync.md section 5). All eight live in one 64-bit word per tile, changed
 * by compare-and-swap: a masked operation is one atomic step, and reads take no lock. */
#include <assert.h>

#include "fabric/chip.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/tensix_sem.h"

void bh_tensix_gate_wake(struct bh_tile *t, _Atomic uint32_t *gate_waiters, unsigned sems_changed)
{
	/* seq_cst: pairs with the waiter's increment before its re-read (cores/tensix_exec.c). */
	if (atomic_load_explicit(gate_waiters, memory_order_seq_cst) && t->chip->gate_wake)
		t->chip->gate_wake(t, sems_changed);
}

#define SEM_VALUE(s, k) bh_sem_state_value(s, k)
#define SEM_MAX(s, k) bh_sem_state_max(s, k)

enum sem_op { SEM_OP_INIT, SEM_OP_POST, SEM_OP_GET };

static uint64_t sem_apply(uint64_t s, enum sem_op op, unsigned mask, unsigned max, unsigned value)
{
	for (unsigned k = 0; k < BH_SEM_COUNT; k++) {
		if (!(mask >> k & 1))
			continue;
		unsigned v = SEM_VALUE(s, k), m = SEM_MAX(s, k);
		switch (op) {
		case SEM_OP_INIT: v = value; m = max; break;
		case SEM_OP_POST: v += v < BH_SEM_FIELD_MAX; break;   /* saturates at 15; Max ignored */
		case SEM_OP_GET: v -= v > 0; break;                   /* floor 0 */
		}
		s = (s & ~(0xffull << (8 * k))) | (uint64_t)(m << 4 | v) << (8 * k);
	}
	return s;
}

static uint64_t sem_update(struct bh_tile *t, enum sem_op op, unsigned mask, unsigned max, unsigned value)
{
	struct bh_sems *sm = &t->sem;
	uint64_t old = atomic_load_explicit(&sm->state, memory_order_relaxed), new;
	do
		new = sem_apply(old, op, mask & 0xffu, max, value);
	while (new != old &&
	       !atomic_compare_exchange_weak_explicit(&sm->state, &old, new, memory_order_seq_cst,
						      memory_order_relaxed));
	if (new == old)
		return old;
	unsigned changed = 0;
	for (unsigned k = 0; k < BH_SEM_COUNT; k++)
		changed |= (unsigned)(((old ^ new) >> (8 * k) & 0xff) != 0) << k;
	/* Changed: wake SEMWAIT waiters (seq_cst CAS above pairs with their register-then-re-read)
	 * and cores parked polling one of the changed words. */
	bh_waitq_wake(t, &sm->waiters);
	bh_tensix_gate_wake(t, &sm->gate_waiters, changed);
	for (unsigned k = 0; k < BH_SEM_COUNT; k++)
		if (changed >> k & 1)
			bh_tile_mmio_written(t, BH_SEM_MMIO_BASE + 4 * k);
	return old;
}

uint64_t bh_sem_init(struct bh_tile *t, unsigned mask, unsigned max, unsigned value)
{
	assert(max <= BH_SEM_FIELD_MAX && value <= BH_SEM_FIELD_MAX);
	return sem_update(t, SEM_OP_INIT, mask, max, value);
}

uint64_t bh_sem_post(struct bh_tile *t, unsigned mask)
{
	return sem_update(t, SEM_OP_POST, mask, 0, 0);
}

uint64_t bh_sem_get(struct bh_tile *t, unsigned mask)
{
	return sem_update(t, SEM_OP_GET, mask, 0, 0);
}

int bh_sem_post_past_max(uint64_t old, unsigned mask)
{
	for (unsigned k = 0; k < BH_SEM_COUNT; k++)
		if ((mask >> k & 1) && SEM_VALUE(old, k) >= SEM_MAX(old, k))
			return (int)k;
	return -1;
}

int bh_sem_get_at_zero(uint64_t old, unsigned mask)
{
	for (unsigned k = 0; k < BH_SEM_COUNT; k++)
		if ((mask >> k & 1) && SEM_VALUE(old, k) == 0)
			return (int)k;
	return -1;
}

unsigned bh_sem_value(struct bh_tile *t, unsigned k)
{
	return SEM_VALUE(atomic_load_explicit(&t->sem.state, memory_order_seq_cst), k);
}

unsigned bh_sem_max(struct bh_tile *t, unsigned k)
{
	return SEM_MAX(atomic_load_explicit(&t->sem.state, memory_order_seq_cst), k);
}

bool bh_sem_mmio_read(struct bh_access *a, unsigned k, uint32_t *val)
{
	*val = bh_sem_value(a->tile, k);
	return true;
}

/* Bit 0 selects SEMGET (1) or SEMPOST (0), per the ISA; the other bits are ignored. ttsim
 * rejects values other than 0 and 1, but that is a simulator check: the reference does not say
 * silicon faults, and firmware only writes 0 and 1, so the model follows the ISA. */
bool bh_sem_mmio_write(struct bh_access *a, unsigned k, uint32_t val)
{
	struct bh_checks *ch = &a->tile->chip->checks;
	if (val & 1) {
		uint64_t old = bh_sem_get(a->tile, 1u << k);
		if (bh_checks_on(ch, BH_CHECK_SEM_UNDERFLOW) && bh_sem_get_at_zero(old, 1u << k) >= 0)
			return bh_check_access(a, BH_CHECK_SEM_UNDERFLOW, NULL,
					       "semaphore get (store of 1) of Tensix semaphore %u at 0 (max %u): nothing was "
					       "posted to take", k, SEM_MAX(old, k));
	} else {
		uint64_t old = bh_sem_post(a->tile, 1u << k);
		if (bh_checks_on(ch, BH_CHECK_SEM_OVERFLOW) && bh_sem_post_past_max(old, 1u << k) >= 0)
			return bh_check_access(a, BH_CHECK_SEM_OVERFLOW, NULL,
					       "semaphore post (store of 0) of Tensix semaphore %u past its max: value %u, max %u "
					       "(value becomes %u)", k, SEM_VALUE(old, k), SEM_MAX(old, k),
					       SEM_VALUE(old, k) + (SEM_VALUE(old, k) < BH_SEM_FIELD_MAX));
	}
	return true;
}
