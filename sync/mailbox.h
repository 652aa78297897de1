/* RISC-V mailboxes (sync.md section 7): sixteen FIFOs between BRISC, TRISC0, TRISC1 and TRISC2
 * (NCRISC has none). Page i of 0xFFEC0000 (0x1000 each, i = B, T0, T1, T2) means, for core c:
 * write = push into mailbox c -> i; read = pop mailbox i -> c (parks while empty); read with
 * address bit 2 set = 1/0 "mailbox i -> c has data", without popping. */
#ifndef BH_SYNC_MAILBOX_H
#define BH_SYNC_MAILBOX_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabric/hw.h"
#include "sync/park.h"

struct bh_access;
struct bh_tile;

#define BH_MAILBOX_BASE 0xFFEC0000u
#define BH_MAILBOX_PAGE 0x1000u
#define BH_MAILBOX_CORES 4      /* mailbox index: B 0, T0 1, T1 2, T2 3 */
#define BH_MAILBOX_DEPTH 4      /* words per mailbox */
#define BH_MAILBOX_WRITER_LIMIT 4  /* words across the four mailboxes one core writes */

struct bh_mailbox {
	uint32_t slot[BH_MAILBOX_DEPTH];
	unsigned head, count;
};

/* One lock for the sixteen: the writer limit spans four mailboxes. Everything below lock is
 * written and read under it. */
struct bh_mailboxes {
	pthread_mutex_t lock;
	struct bh_mailbox box[BH_MAILBOX_CORES][BH_MAILBOX_CORES];   /* [from][to] */
	unsigned held_by_writer[BH_MAILBOX_CORES];                  /* sum of box[from][*].count */
	struct bh_waitq readers[BH_MAILBOX_CORES][BH_MAILBOX_CORES]; /* [from][to]: `to` waits, empty */
	struct bh_waitq writers[BH_MAILBOX_CORES];                   /* [from]: `from` waits, full */
};

void bh_mailbox_init(struct bh_mailboxes *m);
void bh_mailbox_destroy(struct bh_mailboxes *m);

/* MMIO handlers of 0xFFEC0000..0xFFEC3FFF (BRISC and TRISCs; the address table keeps NCRISC,
 * the host and the NoC out). */
bool bh_mailbox_read(struct bh_access *a, uint32_t *val);
bool bh_mailbox_write(struct bh_access *a, uint32_t val);
/* "Has data" queries (address bit 2) can be watched: a change is announced at +4 of the page
 * whoever reads. Pops cannot. */
uint32_t bh_mailbox_watch(unsigned who, uint32_t addr);

/* Core k entered reset (called by bh_tile_soft_reset_write under tile->lock): the four
 * mailboxes it writes are emptied. */
void bh_mailbox_reset_enter(struct bh_tile *tile, enum bh_core_kind k);

#endif
