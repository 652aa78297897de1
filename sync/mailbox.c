/* RISC-V mailboxes (sync.md section 7, tt-isa-documentation Mailboxes.md). The write rule is
 * the ISA's functional model: a write waits while its mailbox holds 4 words or while the four
 * mailboxes of the writing core hold 4 words together. Silicon lets excess writes sit in shared
 * buffers of the memory subsystem before it stalls the writer, so a core may run a little
 * further there; the model stalls the writer at once (never later than silicon).
 *
 * Blocking follows sync/park.h: register on a waitq under the lock, return bh_access_block();
 * wakers change state under the lock and wake after unlocking. */
#include <string.h>

#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/mailbox.h"

#define QUERY_BIT 0x4u   /* read with address bit 2 set: "has data", no pop */

static const char *const mb_name[BH_MAILBOX_CORES] = { "brisc", "trisc0", "trisc1", "trisc2" };

/* Mailbox index of a core: B 0, T0 1, T1 2, T2 3 (the address table keeps NCRISC out). */
static unsigned mb_index(unsigned kind)
{
	return kind == BH_BRISC ? 0 : kind - BH_TRISC0 + 1;
}

/* Reader `to` polls "has data" of mailbox from -> to at page `from`, + 4 (the conventional word). */
static void mb_query_changed(struct bh_tile *t, unsigned from)
{
	bh_tile_mmio_written(t, BH_MAILBOX_BASE + from * BH_MAILBOX_PAGE + QUERY_BIT);
}

uint32_t bh_mailbox_watch(unsigned who, uint32_t addr)
{
	return addr & QUERY_BIT ? (addr & ~(BH_MAILBOX_PAGE - 1)) | QUERY_BIT : BH_WATCH_NONE;
}

void bh_mailbox_init(struct bh_mailboxes *m)
{
	memset(m, 0, sizeof *m);
	pthread_mutex_init(&m->lock, NULL);
}

void bh_mailbox_destroy(struct bh_mailboxes *m)
{
	pthread_mutex_destroy(&m->lock);
}

/* Read by core c of page i: pop (or query) mailbox i -> c. */
bool bh_mailbox_read(struct bh_access *a, uint32_t *val)
{
	struct bh_tile *t = a->tile;
	struct bh_mailboxes *m = a->dev;
	unsigned from = a->off / BH_MAILBOX_PAGE, to = mb_index(a->who);
	struct bh_mailbox *b = &m->box[from][to];
	pthread_mutex_lock(&m->lock);
	if (a->off & QUERY_BIT) {
		*val = b->count != 0;
		pthread_mutex_unlock(&m->lock);
		return true;
	}
	if (!b->count) {
		bh_waitq_add(&m->readers[from][to], a->who);
		pthread_mutex_unlock(&m->lock);
		return bh_access_block(a, "mailbox %s→%s read: empty", mb_name[from], mb_name[to]);
	}
	*val = b->slot[b->head];
	b->head = (b->head + 1) % BH_MAILBOX_DEPTH;
	b->count--;
	m->held_by_writer[from]--;
	pthread_mutex_unlock(&m->lock);
	bh_waitq_wake(t, &m->writers[from]);
	mb_query_changed(t, from);
	return true;
}

/* Write by core c to page i: push into mailbox c -> i. */
bool bh_mailbox_write(struct bh_access *a, uint32_t val)
{
	struct bh_tile *t = a->tile;
	struct bh_mailboxes *m = a->dev;
	unsigned from = mb_index(a->who), to = a->off / BH_MAILBOX_PAGE;
	struct bh_mailbox *b = &m->box[from][to];
	pthread_mutex_lock(&m->lock);
	if (b->count == BH_MAILBOX_DEPTH || m->held_by_writer[from] == BH_MAILBOX_WRITER_LIMIT) {
		bool full = b->count == BH_MAILBOX_DEPTH;
		bh_waitq_add(&m->writers[from], a->who);
		pthread_mutex_unlock(&m->lock);
		if (full)
			return bh_access_block(a, "mailbox %s→%s write: full (%u words)", mb_name[from], mb_name[to],
					       BH_MAILBOX_DEPTH);
		return bh_access_block(a, "mailbox %s→%s write: %s's mailboxes hold %u words together (limit)",
				       mb_name[from], mb_name[to], mb_name[from], BH_MAILBOX_WRITER_LIMIT);
	}
	b->slot[(b->head + b->count) % BH_MAILBOX_DEPTH] = val;
	b->count++;
	m->held_by_writer[from]++;
	pthread_mutex_unlock(&m->lock);
	bh_waitq_wake(t, &m->readers[from][to]);
	mb_query_changed(t, from);
	return true;
}

void bh_mailbox_reset_enter(struct bh_tile *t, enum bh_core_kind k)
{
	if (k == BH_NCRISC)
		return;
	struct bh_mailboxes *m = &t->mbox;
	unsigned from = mb_index(k);
	pthread_mutex_lock(&m->lock);
	for (unsigned to = 0; to < BH_MAILBOX_CORES; to++)
		m->box[from][to].head = m->box[from][to].count = 0;
	m->held_by_writer[from] = 0;
	pthread_mutex_unlock(&m->lock);
	/* Only the core itself can wait for room in what it writes; wake it anyway (it is leaving
	 * the interpreter) so that no registration outlives the reset. Readers stay parked: the
	 * words they wait for are gone. Pollers of "has data" see the change. */
	bh_waitq_wake(t, &m->writers[from]);
	mb_query_changed(t, from);
}
