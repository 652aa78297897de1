/* What the prefetch and dispatch models share: threads, failure reports, parking, NoC requests
 * through their tiles' NIUs. */
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cores/cq_model.h"
#include "fabric/chip.h"
#include "fabric/niu.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "fabric/wallclock.h"
#include "sync/sched.h"
#include "sync/park.h"
#include "sync/watch.h"

static const char *const role_name[2] = { "prefetch", "dispatch" };

/* What the model's waiter shows the deadlock monitor (sync/deadlock.h). */
static void cqm_set_park(struct bh_cq_model *m, enum bh_cq_role r, enum bh_park_state s)
{
	atomic_store_explicit(&m->chip->cq_waiter[r].park_state, s, memory_order_release);
	struct bh_hooks *h = &m->chip->hooks;
	if (!bh_hooks_want(h, BH_EVENT_ACTOR) || !m->tile[r])
		return;
	/* The timeline trace's track of this model (host/trace.c). */
	char what[sizeof m->waiting[0] + 16];
	pthread_mutex_lock(&m->lock);
	if (s == BH_PARK_NONE)
		snprintf(what, sizeof what, "running");
	else if (s == BH_PARK_IDLE)
		snprintf(what, sizeof what, "idle");
	else
		snprintf(what, sizeof what, "parked: %s", s == BH_PARK_TIMED ? "delay" : m->waiting[r][0] ? m->waiting[r] : "?");
	pthread_mutex_unlock(&m->lock);
	bh_hooks_emit_actor(h, m->tile[r]->index, r == BH_CQ_PREFETCH ? BH_ACTOR_CQ_PREFETCH : BH_ACTOR_CQ_DISPATCH, what);
}

void bh_cqm_provoke(struct bh_cq_model *m, enum bh_cq_role r, uint32_t kind, uint64_t max_ns)
{
	struct bh_provoke *p = &m->chip->provoke;
	if (bh_provoke_on(p, kind))
		bh_cqm_sleep(m, r, bh_provoke_cq_delay(p, bh_provoke_chip_actor(m->chip->topo.ntiles, BH_PROVOKE_CQ_ACTOR + r),
						       kind, max_ns));
}

static void *cqm_prefetch_main(void *arg)
{
	struct bh_cq_model *m = arg;
	struct bh_actor *act = m->chip->cq_waiter[BH_CQ_PREFETCH].actor;
	if (act)
		bh_sched_enter(act);
	cqm_set_park(m, BH_CQ_PREFETCH, BH_PARK_NONE);
	bh_cqm_provoke(m, BH_CQ_PREFETCH, BH_PROVOKE_CQ_SLOW, BH_PROVOKE_CQ_START_MAX_NS);
	bh_cq_prefetch_run(m);
	bh_watch_unregister(m->tile[BH_CQ_PREFETCH], BH_WATCH_SLOT_CQ(BH_CQ_PREFETCH));   /* kept since its last wait */
	cqm_set_park(m, BH_CQ_PREFETCH, BH_PARK_IDLE);
	atomic_fetch_or_explicit(&m->exited, 1u << BH_CQ_PREFETCH, memory_order_release);
	bh_cqm_host_wake(m);
	if (act)
		bh_sched_exit(act);
	return NULL;
}

static void *cqm_dispatch_main(void *arg)
{
	struct bh_cq_model *m = arg;
	struct bh_actor *act = m->chip->cq_waiter[BH_CQ_DISPATCH].actor;
	if (act)
		bh_sched_enter(act);
	cqm_set_park(m, BH_CQ_DISPATCH, BH_PARK_NONE);
	bh_cqm_provoke(m, BH_CQ_DISPATCH, BH_PROVOKE_CQ_SLOW, BH_PROVOKE_CQ_START_MAX_NS);
	bh_cq_dispatch_run(m);
	bh_watch_unregister(m->tile[BH_CQ_DISPATCH], BH_WATCH_SLOT_CQ(BH_CQ_DISPATCH));   /* kept since its last wait */
	cqm_set_park(m, BH_CQ_DISPATCH, BH_PARK_IDLE);
	atomic_fetch_or_explicit(&m->exited, 1u << BH_CQ_DISPATCH, memory_order_release);
	bh_cqm_host_wake(m);
	if (act)
		bh_sched_exit(act);
	return NULL;
}

int bh_cq_model_start(struct bh_cq_model *m)
{
	void *(*main_fn[2])(void *) = { cqm_prefetch_main, cqm_dispatch_main };
	pthread_mutex_init(&m->lock, NULL);
	for (unsigned r = 0; r < 2; r++) {
		/* Serial scheduling: an actor per queue (the waiter outlives it; only the token
		 * holder runs, so nothing reads it meanwhile). Threaded: never written. */
		if (m->chip->sched &&
		    !(m->chip->cq_waiter[r].actor = bh_sched_actor_add(m->chip->sched, r ? "cq dispatch" : "cq prefetch", true))) {
			bh_cq_model_stop(m);
			return -1;
		}
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 512 * 1024);
		int rc = pthread_create(&m->thread[r], &attr, main_fn[r], m);
		pthread_attr_destroy(&attr);
		if (rc != 0) {
			bh_cq_model_stop(m);
			return -1;
		}
		m->started[r] = true;
	}
	return 0;
}

void bh_cq_model_stop(struct bh_cq_model *m)
{
	atomic_store_explicit(&m->stop, 1, memory_order_seq_cst);
	for (unsigned r = 0; r < 2; r++)
		if (m->tile[r])
			bh_park_wake(&m->chip->cq_waiter[r]);
	for (unsigned r = 0; r < 2; r++)
		if (m->started[r]) {
			pthread_join(m->thread[r], NULL);
			m->started[r] = false;
		}
	pthread_mutex_destroy(&m->lock);
}

bool bh_cq_model_error(struct bh_cq_model *m, char *buf, size_t n)
{
	pthread_mutex_lock(&m->lock);
	bool failed = m->failed;
	snprintf(buf, n, "%s", failed ? m->error : "");
	pthread_mutex_unlock(&m->lock);
	return failed;
}

void bh_cq_model_describe(struct bh_cq_model *m, char *buf, size_t n)
{
	pthread_mutex_lock(&m->lock);
	snprintf(buf, n, "prefetch core: %s; dispatch core: %s", m->waiting[0][0] ? m->waiting[0] : "running",
		 m->waiting[1][0] ? m->waiting[1] : "running");
	pthread_mutex_unlock(&m->lock);
}

bool bh_cqm_fail(struct bh_cq_model *m, enum bh_cq_role r, const char *cmd, const char *ring, uint64_t off,
		 int field, const char *fmt, ...)
{
	char why[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&m->lock);
	if (!m->failed) {
		m->failed = true;
		size_t len = (size_t)snprintf(m->error, sizeof m->error, "%s core (%u,%u): ", role_name[r], m->tile[r]->x,
					      m->tile[r]->y);
		if (ring && *ring)
			len += (size_t)snprintf(m->error + len, sizeof m->error - len, "%s at %s offset 0x%llx: ",
						cmd ? cmd : "command", ring, (unsigned long long)off);
		if (field >= 0 && field < BH_CQF_COUNT && len < sizeof m->error)
			len += (size_t)snprintf(m->error + len, sizeof m->error - len, "field %s (byte %u, %u bytes): ",
						bh_cq_fields[field].name, bh_cq_fields[field].off, bh_cq_fields[field].size);
		if (len < sizeof m->error)
			snprintf(m->error + len, sizeof m->error - len, "%s", why);
	}
	pthread_mutex_unlock(&m->lock);
	atomic_store_explicit(&m->stop, 1, memory_order_seq_cst);
	for (unsigned k = 0; k < 2; k++)
		bh_park_wake(&m->chip->cq_waiter[k]);
	bh_cqm_host_wake(m);
	return false;
}

bool bh_cqm_stopping(struct bh_cq_model *m)
{
	return atomic_load_explicit(&m->stop, memory_order_acquire) != 0;
}

void bh_cqm_host_wake(struct bh_cq_model *m)
{
	atomic_fetch_add_explicit(&m->host_seq, 1, memory_order_seq_cst);
	if (m->chip->sched)
		bh_sched_wake(bh_sched_host(m->chip->sched));   /* serial: the host waits in the scheduler */
	if (atomic_load_explicit(&m->host_waiting, memory_order_seq_cst))
		syscall(SYS_futex, (uint32_t *)&m->host_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void cqm_set_waiting(struct bh_cq_model *m, enum bh_cq_role r, const char *what)
{
	pthread_mutex_lock(&m->lock);
	snprintf(m->waiting[r], sizeof m->waiting[r], "%s", what ? what : "");
	if (!what)
		m->blocked[r].kind = BH_CQW_NONE;
	pthread_mutex_unlock(&m->lock);
}

/* Under m->lock: both models are parked on waits only the other can end, and neither wait has
 * been satisfied meanwhile (the words are moved only by the other model, which is parked). */
static bool cqm_deadlocked(struct bh_cq_model *m)
{
	const struct bh_cqm_block *p = &m->blocked[BH_CQ_PREFETCH], *d = &m->blocked[BH_CQ_DISPATCH];
	if ((p->kind != BH_CQW_CREDITS && p->kind != BH_CQW_STALL) || d->kind != BH_CQW_DATA)
		return false;
	if (bh_cq_wrap_ge(bh_cqm_l1_ld(m, BH_CQ_PREFETCH, p->addr), p->target) ||
	    bh_cq_wrap_ge(bh_cqm_l1_ld(m, BH_CQ_DISPATCH, d->addr), d->target))
		return false;
	return atomic_load_explicit(&m->unit_head, memory_order_acquire) == d->unit_head;
}

/* Record what role r is parked on; true (report written) when that closes a deadlock. */
static bool cqm_block(struct bh_cq_model *m, enum bh_cq_role r, const struct bh_cqm_block *b, char *rep, size_t n)
{
	pthread_mutex_lock(&m->lock);
	m->blocked[r] = *b;
	bool dead = cqm_deadlocked(m);
	if (dead)
		snprintf(rep, n, "deadlock between the prefetch and dispatch cores: prefetch core: %s; dispatch core: %s; "
			 "each waits for the other (%s)", m->waiting[BH_CQ_PREFETCH], m->waiting[BH_CQ_DISPATCH],
			 m->blocked[BH_CQ_PREFETCH].kind == BH_CQW_STALL
				 ? "a STALL needs an earlier dispatcher WAIT with NOTIFY_PREFETCH, and none is left to run"
				 : "the dispatcher returns dispatch-CB pages only after the command that holds them, and "
				   "that command needs more than the 512 KiB dispatch CB holds at once");
	pthread_mutex_unlock(&m->lock);
	return dead;
}

/* The parking order of sync/watch.h: read wake_seq, register, heavy fence, re-check, sleep.
 * until (may be NULL): the wait is for the counter register addr[0] to reach a count
 * (bh_watch_until), published before each re-check and cleared when the wait ends. */
static bool cqm_wait_loop(struct bh_cq_model *m, enum bh_cq_role r, const uint32_t *addr, unsigned n,
			  const struct bh_cqm_until *until, bool (*ready)(void *), void *arg, const char *what,
			  const struct bh_cqm_block *block)
{
	struct bh_tile *t = m->tile[r];
	struct bh_waiter *w = &m->chip->cq_waiter[r];
	uint8_t size[BH_WATCH_MAX];
	bool described = false;
	uint64_t unfenced_ns = 0;
	for (unsigned k = 0; k < n && k < BH_WATCH_MAX; k++)
		size[k] = 4;
	for (;;) {
		if (ready(arg))
			break;
		if (bh_cqm_stopping(m))
			return false;
		if (!described) {
			char desc[sizeof m->waiting[0]];
			const struct bh_cqm_at *at = &m->at[r];
			if (at->ring)
				snprintf(desc, sizeof desc, "%s at %s offset 0x%llx waits for %s", at->cmd ? at->cmd : "next command",
					 at->ring, (unsigned long long)at->off, what);
			else
				snprintf(desc, sizeof desc, "waits for %s", what);
			cqm_set_waiting(m, r, desc);
			described = true;
		}
		uint32_t seq = bh_park_seq(w);
		bool fenced = bh_watch_arm(t, BH_WATCH_SLOT_CQ(r), w, addr, size, n);   /* sync/watch.h */
		if (until)
			bh_watch_until(t, BH_WATCH_SLOT_CQ(r), addr[0], until->target, until->bits);
		struct bh_cqm_block b = block ? *block : (struct bh_cqm_block){ 0 };
		b.unit_head = atomic_load_explicit(&m->unit_head, memory_order_acquire);
		if (!ready(arg) && !bh_cqm_stopping(m)) {
			char rep[sizeof m->error];
			if (block && cqm_block(m, r, &b, rep, sizeof rep)) {
				bh_watch_unregister(t, BH_WATCH_SLOT_CQ(r));
				/* Named after the prefetcher whichever model sees it last: the same report every time. */
				return bh_cqm_fail(m, BH_CQ_PREFETCH, NULL, "", 0, -1, "%s", rep);
			}
			cqm_set_park(m, r, BH_PARK_WATCH);
			bh_noc_engine_nudge(m->chip->noc);   /* what it waits for may be in flight */
			bh_park_sleep(w, seq, bh_park_fenced_timeout(fenced, 0, &unfenced_ns));
			cqm_set_park(m, r, BH_PARK_NONE);
			bh_park_unfenced_woken(w, seq, &unfenced_ns);
		}
		bh_watch_release(t, BH_WATCH_SLOT_CQ(r), w);
	}
	if (described)
		cqm_set_waiting(m, r, NULL);
	return true;
}

static bool cqm_wait(struct bh_cq_model *m, enum bh_cq_role r, const uint32_t *addr, unsigned n,
		     const struct bh_cqm_until *until, bool (*ready)(void *), void *arg, const char *what,
		     const struct bh_cqm_block *block)
{
	bool ok = cqm_wait_loop(m, r, addr, n, until, ready, arg, what, block);
	if (until)
		bh_watch_until_clear(m->tile[r], BH_WATCH_SLOT_CQ(r));   /* it would hold back the next wait */
	return ok;
}

bool bh_cqm_wait(struct bh_cq_model *m, enum bh_cq_role r, const uint32_t *addr, unsigned n,
		 bool (*ready)(void *), void *arg, const char *what, const struct bh_cqm_block *block)
{
	return cqm_wait(m, r, addr, n, NULL, ready, arg, what, block);
}

bool bh_cqm_wait_count(struct bh_cq_model *m, enum bh_cq_role r, uint32_t addr, const struct bh_cqm_until *until,
		       bool (*ready)(void *), void *arg, const char *what)
{
	return cqm_wait(m, r, &addr, 1, until, ready, arg, what, NULL);
}

/* A CQ tile's own code and state: L1 from 0 to the end of its rings and buffers, SOFT_RESET_0. */
static bool cqm_overlaps(uint64_t lo, uint64_t len, uint64_t a, uint64_t b)
{
	return lo < b && lo + len > a;
}

bool bh_cqm_dest_allowed(struct bh_cq_model *m, unsigned noc, uint32_t hi, uint32_t mid, uint32_t lo, uint64_t len,
			 bool mcast, char *why, size_t n)
{
	static const uint32_t state_end[2] = { BH_CQ_SCRATCH_DB + BH_CQ_SCRATCH_SIZE, BH_CQ_DISPATCH_S_END };
	if (mid != 0 || len == 0)
		return true;   /* not an L1 or register address: the NoC model judges it */
	for (unsigned r = 0; r < 2; r++) {
		const struct bh_tile *t = m->tile[r];
		if (!bh_noc_write_reaches(m->tile[BH_CQ_DISPATCH], noc, hi, mcast, t))
			continue;
		char region[192];
		if (cqm_overlaps(lo, len, 0, state_end[r]))
			snprintf(region, sizeof region, "code and state (L1 below 0x%x: firmware, mailboxes, the CQ rings, "
				 "credits and buffers)", state_end[r]);
		else if (cqm_overlaps(lo, len, BH_SOFT_RESET_0, BH_SOFT_RESET_0 + 4))
			snprintf(region, sizeof region, "SOFT_RESET_0 (0x%x: it would release the firmware cores under the "
				 "running model)", BH_SOFT_RESET_0);
		else
			continue;
		snprintf(why, n, "%llu bytes at 0x%x%s reach the %s core (%u,%u)'s own %s", (unsigned long long)len, lo,
			 mcast ? " (multicast)" : "", role_name[r], t->x, t->y, region);
		return false;
	}
	return true;
}

void bh_cqm_sleep(struct bh_cq_model *m, enum bh_cq_role r, uint64_t ns)
{
	struct bh_waiter *w = &m->chip->cq_waiter[r];
	uint64_t t0 = bh_time_ns();
	/* Wakes (a relay unit published, say) do not shorten the delay; a stop does. */
	for (uint64_t slept = 0; slept < ns && !bh_cqm_stopping(m);) {
		uint32_t seq = bh_park_seq(w);
		cqm_set_park(m, r, BH_PARK_TIMED);
		bh_park_sleep(w, seq, ns - slept);
		cqm_set_park(m, r, BH_PARK_NONE);
		slept = bh_time_ns() - t0;
	}
}

/* ---- NoC ------------------------------------------------------------------------------------- */

static bool cqm_issue(struct bh_cq_model *m, enum bh_cq_role r, unsigned noc, unsigned buf, const uint32_t *regs,
		      struct bh_fault *f)
{
	struct bh_tile *t = m->tile[r];
	struct bh_niu *n = &t->niu[noc];
	static const unsigned offs[] = {
		BH_NIU_TARG_ADDR_LO, BH_NIU_TARG_ADDR_MID, BH_NIU_TARG_ADDR_HI, BH_NIU_RET_ADDR_LO, BH_NIU_RET_ADDR_MID,
		BH_NIU_RET_ADDR_HI, BH_NIU_PACKET_TAG, BH_NIU_CTRL, BH_NIU_AT_LEN_BE, BH_NIU_AT_LEN_BE_1, BH_NIU_AT_DATA,
		BH_NIU_BRCST_EXCLUDE,
	};
	for (unsigned k = 0; k < sizeof offs / sizeof offs[0]; k++)
		bh_niu_cmdbuf_set(n, buf, offs[k], regs[k]);
	struct bh_noc_txn txn;
	memset(f, 0, sizeof *f);
	if (!bh_noc_issue(t, noc, buf, &txn, f))
		return false;
	bh_noc_trace_issue(&txn);
	return bh_noc_complete(&txn, f);
}

enum { R_TLO, R_TMID, R_THI, R_RLO, R_RMID, R_RHI, R_TAG, R_CTRL, R_LEN, R_LEN1, R_DATA, R_EXCL, R_N };
enum { CQ_BUF_WR = 0, CQ_BUF_RD = 1, CQ_BUF_AT = 3 };

uint32_t bh_cqm_xy(struct bh_cq_model *m, enum bh_cq_role r)
{
	return m->tile[r]->y << 6 | m->tile[r]->x;
}

uint32_t bh_cqm_pcie_xy(void)
{
	return BH_PCIE_Y << 6 | BH_PCIE_X;
}

bool bh_cqm_noc_write(struct bh_cq_model *m, enum bh_cq_role r, unsigned noc, uint32_t src, uint32_t hi,
		      uint32_t mid, uint32_t lo, uint32_t len, bool mcast, struct bh_fault *f)
{
	while (len) {
		uint32_t n = len > BH_NOC_PACKET_MAX ? BH_NOC_PACKET_MAX : len;
		uint32_t regs[R_N] = { 0 };
		regs[R_TLO] = src;
		regs[R_THI] = bh_cqm_xy(m, r);
		regs[R_RLO] = lo;
		regs[R_RMID] = mid;
		regs[R_RHI] = hi;
		regs[R_CTRL] = BH_NOC_CTRL_WR | BH_NOC_CTRL_RESP_MARKED | BH_NOC_CTRL_VC_STATIC |
			       (mcast ? BH_NOC_CTRL_BRCST_PACKET : 0);
		regs[R_LEN] = n;
		if (!cqm_issue(m, r, noc, CQ_BUF_WR, regs, f))
			return false;
		src += n;
		lo += n;
		len -= n;
	}
	return true;
}

bool bh_cqm_noc_read(struct bh_cq_model *m, enum bh_cq_role r, unsigned noc, uint32_t hi, uint32_t mid, uint32_t lo,
		     uint32_t dst, uint32_t len, struct bh_fault *f)
{
	while (len) {
		uint32_t n = len > BH_NOC_PACKET_MAX ? BH_NOC_PACKET_MAX : len;
		uint32_t regs[R_N] = { 0 };
		regs[R_TLO] = lo;
		regs[R_TMID] = mid;
		regs[R_THI] = hi;
		regs[R_RLO] = dst;
		regs[R_RHI] = bh_cqm_xy(m, r);
		regs[R_CTRL] = BH_NOC_CTRL_RD | BH_NOC_CTRL_RESP_MARKED | BH_NOC_CTRL_VC_STATIC;
		regs[R_LEN] = n;
		if (!cqm_issue(m, r, noc, CQ_BUF_RD, regs, f))
			return false;
		dst += n;
		lo += n;
		len -= n;
	}
	return true;
}

bool bh_cqm_noc_inc(struct bh_cq_model *m, enum bh_cq_role r, unsigned noc, uint32_t hi, uint32_t lo, uint32_t inc,
		    struct bh_fault *f)
{
	uint32_t regs[R_N] = { 0 };
	regs[R_TLO] = lo;
	regs[R_THI] = hi;
	regs[R_CTRL] = BH_NOC_CTRL_AT | BH_NOC_CTRL_VC_STATIC;
	regs[R_LEN] = 1u << 12 | 31u << 2 | (lo >> 2 & 3);   /* INCR_GET, 32-bit wrap, word in the 16-B block */
	regs[R_DATA] = inc;
	return cqm_issue(m, r, noc, CQ_BUF_AT, regs, f);
}

bool bh_cqm_bank_page(struct bh_cq_model *m, unsigned noc, bool dram, uint32_t base, uint32_t page_size,
		      uint32_t page, uint32_t *hi, uint32_t *lo)
{
	unsigned nb = dram ? m->num_dram_banks : m->num_l1_banks;
	if (!nb)
		return false;
	uint32_t align = dram ? 64 : 16, bank = page % nb;
	uint32_t step = (page_size + align - 1) & ~(align - 1);
	*lo = base + (page / nb) * step;
	if (dram) {
		*hi = m->chip->topo.dram_xy[noc][bank];
	} else {
		unsigned x, y;
		bh_topology_tile_xy(&m->chip->topo, bank, &x, &y);
		*hi = y << 6 | x;
	}
	return true;
}

uint32_t bh_cqm_l1_ld(struct bh_cq_model *m, enum bh_cq_role r, uint32_t addr)
{
	return bh_mem_ld(m->tile[r]->l1 + addr, 4);
}

void bh_cqm_l1_st(struct bh_cq_model *m, enum bh_cq_role r, uint32_t addr, uint32_t v)
{
	bh_mem_st(m->tile[r]->l1 + addr, 4, v);
	bh_tile_l1_written(m->tile[r], addr, 4);
}
