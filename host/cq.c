/* Fast dispatch, host side (fast-dispatch.md 2, 3, 6, 8): the host-memory rings, prefetch_q,
 * the completion reader, events, buffers, and opening/closing the queue. */
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fabric/tile.h"
#include "host/cq.h"
#include "host/device.h"
#include "host/profile.h"

#define CQ_DEFAULT_ISSUE      (64u << 20)
#define CQ_DEFAULT_COMPLETION (32u << 20)
#define CQ_DEFAULT_TIMEOUT_S  10.0
#define CQ_WAIT_SLICE_NS      20000000L   /* host futex waits; checks for faults in between */
#define CQ_SAVED_KCB          256u        /* firmware bytes at kernel_config_base the models overwrite */
#define RUN_MSG_INIT          0x40u
#define RUN_MSG_GO            0x80u
#define RUN_MSG_RESET_READ_PTR 0xC0u

static double cq_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bh_cq_fail(struct bh_cq *cq, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cq->err, sizeof cq->err, fmt, ap);
	va_end(ap);
	return rc;
}

/* The queue cannot go on: every later call returns rc. */
static int cq_stop(struct bh_cq *cq, int rc)
{
	cq->failed = true;
	cq->fail_rc = rc;
	return rc;
}

const char *bh_cq_error(const struct bh_cq *cq)
{
	return cq ? cq->err : "";
}

uint32_t bh_cq_last_event(const struct bh_cq *cq)
{
	return cq ? cq->last_event : 0;
}

unsigned bh_device_worker_ranges(const struct bh_device *dev, struct bh_core_range r[4])
{
	const struct bh_topology *t = &dev->chip.topo;
	unsigned full = t->ntiles / t->cols, n = 0;
	if (!t->dispatch_x || full < 2)
		return bh_device_all_tiles(dev, r);
	if (t->cols > 1)
		r[n++] = (struct bh_core_range){ 0, 0, t->cols - 2, full - 1 };
	if (full > 2)
		r[n++] = (struct bh_core_range){ t->cols - 1, 2, t->cols - 1, full - 1 };
	if (t->ntiles % t->cols)
		r[n++] = (struct bh_core_range){ 0, full, t->ntiles % t->cols - 1, full };
	return n;
}

/* ---- Waiting for the models ----------------------------------------------------------------------- */

static uint8_t cq_go_signal(struct bh_cq *cq, unsigned t)
{
	const struct bh_profile *prof = &cq->dev->boot_profile;
	uint8_t sig = 0xFF;
	bh_l1_read(cq->dev, t, bh_profile_mbox(prof, prof->go_messages_base) + 3, &sig, 1);
	return sig;
}

/* Workers whose go signal is not DONE, with what they and the two models wait on. */
static int cq_report_stuck(struct bh_cq *cq, int rc, const char *why)
{
	char models[512];
	bh_cq_model_describe(&cq->m, models, sizeof models);
	bool *stuck = calloc(cq->dev->ntiles, sizeof *stuck);
	unsigned n = 0;
	for (unsigned t = 0; stuck && t < cq->dev->ntiles; t++)
		if (cq->worker[t] && cq_go_signal(cq, t) != 0)
			stuck[t] = true, n++;
	char head[1024];
	snprintf(head, sizeof head, "command queue: %s; %s; %u worker tiles not done\n", why, models, n);
	char *rep = stuck ? bh_device_report_tiles(cq->dev, stuck, head) : NULL;
	snprintf(cq->err, sizeof cq->err, "%s", rep ? rep : head);
	free(rep);
	free(stuck);
	return cq_stop(cq, rc);
}

static bool cq_worker_fault(struct bh_cq *cq)
{
	struct bh_core_result r;
	for (unsigned t = 0; t < cq->dev->ntiles; t++) {
		if (!cq->worker[t])
			continue;
		for (unsigned k = 0; k < 5; k++) {
			bh_core_result(cq->dev, t, (enum bh_core_id)k, &r);
			if (r.status == BH_RUN_FAULTED || r.status == BH_RUN_LIMIT) {
				snprintf(cq->err, sizeof cq->err, "command queue: a core of worker tile %u stopped:\n%s", t,
					 r.status == BH_RUN_FAULTED ? r.report : "instruction limit reached");
				return true;
			}
		}
	}
	return false;
}

/* Sleep until ready() holds, the models fail, a worker faults, the device deadlocks while the
 * dispatcher waits for workers, or the timeout passes. */
static int cq_wait(struct bh_cq *cq, bool (*ready)(struct bh_cq *, void *), void *arg, const char *what)
{
	struct bh_cq_model *m = &cq->m;
	double t0 = cq_now(), next_check = t0 + 0.05;
	for (;;) {
		uint32_t seq = atomic_load_explicit(&m->host_seq, memory_order_seq_cst);
		if (ready(cq, arg))
			return BH_OK;
		char buf[sizeof m->error];
		/* exited first: a model that failed has recorded its report before it exits. */
		bool exited = atomic_load_explicit(&m->exited, memory_order_acquire);
		if (bh_cq_model_error(m, buf, sizeof buf)) {
			snprintf(cq->err, sizeof cq->err, "%s", buf);
			return cq_stop(cq, BH_ERR_CQ);
		}
		if (exited)
			return cq_stop(cq, bh_cq_fail(cq, BH_ERR_CQ, "command queue: %s, but the prefetch or dispatch core "
						      "has terminated (TERMINATE was enqueued)", what));
		double now = cq_now();
		if (now - t0 > cq->timeout_s) {
			char why[256];
			snprintf(why, sizeof why, "timeout after %.3f s waiting for %s", now - t0, what);
			return cq_report_stuck(cq, BH_ERR_TIMEOUT, why);
		}
		if (now >= next_check) {
			next_check = now + 0.05;
			if (cq_worker_fault(cq))
				return cq_stop(cq, BH_ERR_FAULT);
			char models[512];
			bh_cq_model_describe(m, models, sizeof models);
			if (bh_device_deadlocked(cq->dev) && strstr(models, "worker completions"))
				return cq_report_stuck(cq, BH_ERR_DEADLOCK, "deadlock: every worker core waits, the dispatcher "
						       "waits for their completions");
		}
		if (bh_device_serial(cq->dev)) {
			bh_device_pause(cq->dev, CQ_WAIT_SLICE_NS);   /* woken early by the models (bh_cqm_host_wake) */
			continue;
		}
		struct timespec ts = { 0, CQ_WAIT_SLICE_NS };
		atomic_store_explicit(&m->host_waiting, 1, memory_order_seq_cst);
		syscall(SYS_futex, (uint32_t *)&m->host_seq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
		atomic_store_explicit(&m->host_waiting, 0, memory_order_relaxed);
	}
}

/* ---- Issue ring and prefetch_q ----------------------------------------------------------------- */

/* Relaxed stores: the prefetcher's NoC reads the same bytes with relaxed loads. */
static void cq_host_put(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	for (; len >= 8; len -= 8, dst += 8, src += 8) {
		uint64_t v;
		memcpy(&v, src, 8);
		__atomic_store_n((uint64_t *)dst, v, __ATOMIC_RELAXED);
	}
	for (; len; len--)
		__atomic_store_n(dst++, *src++, __ATOMIC_RELAXED);
}

static void cq_host_get(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	for (; len; len--)
		*dst++ = __atomic_load_n(src++, __ATOMIC_RELAXED);
}

static uint32_t cq_host_ld32(struct bh_cq *cq, uint32_t off)
{
	return __atomic_load_n((uint32_t *)(cq->host + off), __ATOMIC_ACQUIRE);
}

static void cq_host_st32(struct bh_cq *cq, uint32_t off, uint32_t v)
{
	__atomic_store_n((uint32_t *)(cq->host + off), v, __ATOMIC_RELEASE);
}

struct issue_space {
	uint32_t pos, len;
};

/* The record fits at pos without touching bytes the prefetcher has not fetched: those are
 * [R, W) of the ring, cyclically (R = its read pointer at 0x196C4, W = ours; R == W: none). */
static bool issue_space_ready(struct bh_cq *cq, void *arg)
{
	struct issue_space *s = arg;
	uint32_t size = cq->m.issue_size;
	uint32_t r = bh_mem_ld(cq->dev->tiles[cq->pf_tile]->l1 + BH_CQ_PCIE_RD_PTR, 4) - cq->m.issue_base;
	uint32_t w = cq->issue_wr;
	r = r >= size ? 0 : r;
	w = w >= size ? 0 : w;
	if (r == w)
		return true;
	/* Not past r, and not up to r exactly either: W == R means "all fetched". */
	if ((s->pos + s->len) % size == r)
		return false;
	if (r < w)
		return s->pos >= w || s->pos + s->len < r;
	return s->pos >= w && s->pos + s->len < r;
}

static uint32_t cq_completion_avail(struct bh_cq *cq);
static int cq_consume_next(struct bh_cq *cq);

/* While the host waits to enqueue, it keeps reading completions: the dispatcher may be waiting
 * for completion-ring space, the prefetcher for it, and the issue ring for the prefetcher. */
struct push_wait {
	bool (*ready)(struct bh_cq *, void *);
	void *arg;
};

static bool push_progress(struct bh_cq *cq, void *arg)
{
	struct push_wait *w = arg;
	return w->ready(cq, w->arg) || (cq->pend_n && cq_completion_avail(cq));
}

static int cq_wait_draining(struct bh_cq *cq, bool (*ready)(struct bh_cq *, void *), void *arg, const char *what)
{
	struct push_wait w = { ready, arg };
	for (;;) {
		int rc = cq_wait(cq, push_progress, &w, what);
		if (rc != BH_OK || ready(cq, arg))
			return rc;
		if ((rc = cq_consume_next(cq)) != BH_OK)
			return rc;
	}
}

static bool slot_free(struct bh_cq *cq, void *arg)
{
	(void)arg;
	uint8_t *l1 = cq->dev->tiles[cq->pf_tile]->l1;
	return __atomic_load_n((uint16_t *)(l1 + BH_CQ_PREFETCH_Q + 2 * cq->q_idx), __ATOMIC_ACQUIRE) == 0;
}

int bh_cq_push(struct bh_cq *cq, const uint8_t *rec, uint32_t len)
{
	if (cq->failed)
		return cq->fail_rc;
	if (len == 0 || len % 16 || len > BH_CQ_CMDDAT_SIZE || len >= cq->m.issue_size)
		return bh_cq_fail(cq, BH_ERR_ARG, "a fetch record of %u bytes: a multiple of 16 up to 256 KiB (cmddat_q) "
				  "and less than the issue ring (%u)", len, cq->m.issue_size);
	struct issue_space s = { cq->issue_wr, len };
	if (s.pos + len > cq->m.issue_size)
		s.pos = 0;   /* the prefetcher wraps the same way */
	int rc = cq_wait_draining(cq, issue_space_ready, &s, "space in the issue ring (the prefetcher's read pointer)");
	if (rc == BH_OK)
		rc = cq_wait_draining(cq, slot_free, NULL, "a free prefetch_q slot");
	if (rc != BH_OK)
		return rc;
	cq_host_put(cq->host + BH_CQ_HOST_ISSUE_BASE + s.pos, rec, len);
	struct bh_tile *pt = cq->dev->tiles[cq->pf_tile];
	uint32_t slot = BH_CQ_PREFETCH_Q + 2 * cq->q_idx;
	/* Release: the prefetcher's acquire of the slot sees the record (races.md 29). */
	__atomic_store_n((uint16_t *)(pt->l1 + slot), (uint16_t)(len >> 4), __ATOMIC_RELEASE);
	bh_tile_l1_written(pt, slot, 2);
	bh_device_host_acted(cq->dev);
	cq->q_idx = (cq->q_idx + 1) % BH_CQ_PREFETCH_Q_ENTRIES;
	cq->issue_wr = s.pos + len;
	cq_host_st32(cq, BH_CQ_HOST_ISSUE_WR, cq->m.issue_base + cq->issue_wr);
	cq->records++;
	cq->bytes += len;
	return BH_OK;
}

/* [RELAY_INLINE(_NOFLUSH) length stride][cmd][zero pad to 64] */
static uint32_t cq_wrap_inline(uint8_t *rec, const uint8_t *cmd, uint32_t len, bool flush)
{
	uint32_t stride = (16 + len + BH_CQ_PCIE_ALIGN - 1) & ~(BH_CQ_PCIE_ALIGN - 1);
	memset(rec, 0, 16);
	rec[0] = flush ? BH_CQP_RELAY_INLINE : BH_CQP_RELAY_INLINE_NOFLUSH;
	bh_cq_put(rec, BH_CQF_P_RELAY_INLINE_length, len);
	bh_cq_put(rec, BH_CQF_P_RELAY_INLINE_stride, stride);
	if (cmd != rec + 16)
		memmove(rec + 16, cmd, len);
	memset(rec + 16 + len, 0, stride - 16 - len);
	return stride;
}

int bh_cq_push_dispatch(struct bh_cq *cq, const uint8_t *cmd, uint32_t len, bool flush)
{
	if (len > BH_CQ_MAX_INLINE)
		return bh_cq_fail(cq, BH_ERR_ARG, "a dispatch command of %u bytes: one RELAY_INLINE carries at most %u",
				  len, BH_CQ_MAX_INLINE);
	return bh_cq_push(cq, cq->rec, cq_wrap_inline(cq->rec, cmd, len, flush));
}

int bh_cq_enqueue_record(struct bh_cq *cq, const void *rec, size_t len)
{
	if (!cq || !rec)
		return BH_ERR_ARG;
	cq->err[0] = 0;
	return bh_cq_push(cq, rec, (uint32_t)(len > UINT32_MAX ? 0 : len));
}

int bh_cq_enqueue_dispatch(struct bh_cq *cq, const void *cmd, size_t len)
{
	if (!cq || !cmd || len > BH_CQ_MAX_INLINE)
		return BH_ERR_ARG;
	cq->err[0] = 0;
	return bh_cq_push_dispatch(cq, cmd, (uint32_t)len, true);
}

/* ---- Completion ring ----------------------------------------------------------------------------- */

static uint32_t cq_completion_avail(struct bh_cq *cq)
{
	uint32_t wr = cq_host_ld32(cq, BH_CQ_HOST_COMPLETION_WR);
	uint32_t w_off = ((wr & 0x7FFFFFFFu) << 4) - cq->m.completion_base;
	if (wr >> 31 == cq->c_toggle)
		return w_off - cq->c_off;
	return cq->m.completion_size - cq->c_off + w_off;
}

static bool completion_ready(struct bh_cq *cq, void *arg)
{
	(void)arg;
	return cq_completion_avail(cq) != 0;
}

/* Hand consumed pages back: rd to dispatcher L1 0x196E0 and host memory +0xC0 (8). */
static void cq_completion_publish(struct bh_cq *cq)
{
	uint32_t off = cq->c_off / BH_CQ_PAGE * BH_CQ_PAGE;
	uint32_t rd = ((cq->m.completion_base + off) >> 4) | cq->c_toggle << 31;
	if (rd == cq->c_rd)
		return;
	cq->c_rd = rd;
	struct bh_tile *dt = cq->dev->tiles[cq->dp_tile];
	__atomic_store_n((uint32_t *)(dt->l1 + BH_CQ_COMPLETION_RD_PTR), rd, __ATOMIC_RELEASE);
	bh_tile_l1_written(dt, BH_CQ_COMPLETION_RD_PTR, 4);
	cq_host_st32(cq, BH_CQ_HOST_COMPLETION_RD, rd);
}

static void cq_completion_advance(struct bh_cq *cq, uint32_t n)
{
	cq->c_off += n;
	if (cq->c_off >= cq->m.completion_size) {
		cq->c_off -= cq->m.completion_size;
		cq->c_toggle ^= 1;
	}
}

static int cq_completion_read(struct bh_cq *cq, uint8_t *dst, uint32_t n)
{
	uint32_t ring = cq->m.completion_base - cq->m.host_base;
	while (n) {
		int rc = cq_wait(cq, completion_ready, NULL, "a completion (COMPLETION_Q_WR at host memory +0x80)");
		if (rc != BH_OK)
			return rc;
		uint32_t k = cq_completion_avail(cq), to_end = cq->m.completion_size - cq->c_off;
		k = k < n ? k : n;
		k = k < to_end ? k : to_end;
		if (dst) {
			cq_host_get(dst, cq->host + ring + cq->c_off, k);
			dst += k;
		}
		cq_completion_advance(cq, k);
		n -= k;
		cq_completion_publish(cq);
	}
	return BH_OK;
}

static int cq_pending_push(struct bh_cq *cq, struct cq_pending p)
{
	if (cq->pend_n == cq->pend_cap) {
		unsigned cap = cq->pend_cap ? 2 * cq->pend_cap : 64;
		struct cq_pending *np = malloc(cap * sizeof *np);
		if (!np)
			return bh_cq_fail(cq, BH_ERR_SYS, "out of memory");
		for (unsigned i = 0; i < cq->pend_n; i++)
			np[i] = cq->pend[(cq->pend_head + i) % cq->pend_cap];
		free(cq->pend);
		cq->pend = np;
		cq->pend_cap = cap;
		cq->pend_head = 0;
	}
	cq->pend[(cq->pend_head + cq->pend_n++) % cq->pend_cap] = p;
	return BH_OK;
}

/* The next completion entry: the echoed WRITE_LINEAR_H_HOST header, then the event id or the
 * read data; the reader then skips to the next page (fast-dispatch.md 8). */
static int cq_consume_next(struct bh_cq *cq)
{
	struct cq_pending p = cq->pend[cq->pend_head];
	uint32_t at = cq->c_off;
	uint8_t h[16], ev[16];
	int rc = cq_completion_read(cq, h, 16);
	if (rc != BH_OK)
		return rc;
	uint64_t len = bh_cq_get(h, BH_CQF_D_WRITE_LINEAR_H_HOST_length);
	uint64_t want = p.is_event ? 32 : 16 + (uint64_t)p.len;
	if (h[0] != BH_CQD_WRITE_LINEAR_H_HOST || bh_cq_get(h, BH_CQF_D_WRITE_LINEAR_H_HOST_is_event) != p.is_event ||
	    len != want) {
		char got[256];
		bh_cq_format(BH_CQ_FMT_DISPATCH, h[0], h, got, sizeof got);
		return cq_stop(cq, bh_cq_fail(cq, BH_ERR_CQ, "completion ring offset 0x%x: expected %s of %llu bytes, found "
					      "%s", at, p.is_event ? "an event" : "read data", (unsigned long long)want, got));
	}
	rc = p.is_event ? cq_completion_read(cq, ev, 16) : cq_completion_read(cq, p.dst, p.len);
	if (rc != BH_OK)
		return rc;
	if (p.is_event) {
		uint32_t id = (uint32_t)ev[0] | (uint32_t)ev[1] << 8 | (uint32_t)ev[2] << 16 | (uint32_t)ev[3] << 24;
		if (id != p.event)
			return cq_stop(cq, bh_cq_fail(cq, BH_ERR_CQ, "completion ring offset 0x%x: event %u arrived, %u "
						      "expected", at, id, p.event));
		cq->last_event = id;
	}
	uint32_t pad = (BH_CQ_PAGE - cq->c_off % BH_CQ_PAGE) % BH_CQ_PAGE;
	cq_completion_advance(cq, pad);
	cq_completion_publish(cq);
	cq->pend_head = (cq->pend_head + 1) % cq->pend_cap;
	cq->pend_n--;
	return BH_OK;
}

/* ---- Events and finish ----------------------------------------------------------------------- */

int bh_cq_record_event(struct bh_cq *cq, uint32_t *event)
{
	if (!cq)
		return BH_ERR_ARG;
	if (cq->failed)
		return cq->fail_rc;
	uint8_t cmd[32] = { BH_CQD_WRITE_LINEAR_H_HOST };
	uint32_t id = cq->next_event + 1;
	bh_cq_put(cmd, BH_CQF_D_WRITE_LINEAR_H_HOST_is_event, 1);
	bh_cq_put(cmd, BH_CQF_D_WRITE_LINEAR_H_HOST_length, sizeof cmd);
	memcpy(cmd + 16, &id, 4);
	int rc = cq_pending_push(cq, (struct cq_pending){ .is_event = true, .event = id });
	if (rc == BH_OK)
		rc = bh_cq_push_dispatch(cq, cmd, sizeof cmd, true);
	if (rc != BH_OK)
		return rc;
	cq->next_event = id;
	if (event)
		*event = id;
	return BH_OK;
}

int bh_cq_wait_event(struct bh_cq *cq, uint32_t event)
{
	if (!cq)
		return BH_ERR_ARG;
	if (event > cq->next_event)
		return bh_cq_fail(cq, BH_ERR_ARG, "event %u has not been recorded (last: %u)", event, cq->next_event);
	while (cq->last_event < event) {
		if (cq->failed)
			return cq->fail_rc;
		int rc = cq_consume_next(cq);
		if (rc != BH_OK)
			return rc;
	}
	return BH_OK;
}

int bh_cq_finish(struct bh_cq *cq)
{
	uint32_t ev;
	int rc = bh_cq_record_event(cq, &ev);
	return rc == BH_OK ? bh_cq_wait_event(cq, ev) : rc;
}

/* ---- Buffers --------------------------------------------------------------------------------- */

static int cq_buffer_check(struct bh_cq *cq, bool dram, uint32_t base, uint32_t ps, const void *p, unsigned *nb)
{
	if (!cq)
		return BH_ERR_ARG;
	if (cq->failed)
		return cq->fail_rc;
	if (!p || ps == 0 || ps % 16 || base % 16)
		return bh_cq_fail(cq, BH_ERR_ARG, "buffer at 0x%x, pages of %u bytes: the page size must be a non-zero "
				  "multiple of 16 and the base 16-byte aligned", base, ps);
	*nb = dram ? cq->m.num_dram_banks : cq->m.num_l1_banks;
	return *nb ? BH_OK : bh_cq_fail(cq, BH_ERR_ARG, "no %s banks", dram ? "DRAM" : "L1");
}

/* A page number in the command's field: whole rounds over the banks move into the base. */
static void cq_page_split(bool dram, unsigned nb, uint32_t ps, uint32_t page, uint32_t limit, uint32_t *base,
			  uint32_t *start)
{
	uint32_t align = dram ? 64 : 16, step = (ps + align - 1) & ~(align - 1);
	uint32_t rounds = page / nb;
	if (page < limit) {
		*start = page;
		return;
	}
	*base += rounds * step;
	*start = page % nb;
}

int bh_cq_write_buffer(struct bh_cq *cq, bool dram, uint32_t base, uint32_t ps, uint32_t first, const void *src,
		       size_t len)
{
	unsigned nb;
	int rc = cq_buffer_check(cq, dram, base, ps, src, &nb);
	if (rc != BH_OK)
		return rc;
	if (ps > BH_CQ_MAX_INLINE - 32)
		return bh_cq_fail(cq, BH_ERR_ARG, "pages of %u bytes do not fit one record (at most %u)", ps,
				  BH_CQ_MAX_INLINE - 32);
	const uint8_t *s = src;
	uint32_t per = (BH_CQ_MAX_INLINE - 32) / ps, page = first;
	uint8_t *cmd = cq->rec + 16;
	while (len >= ps) {
		uint32_t n = len / ps < per ? (uint32_t)(len / ps) : per, b = base, start;
		cq_page_split(dram, nb, ps, page, 0x10000, &b, &start);
		memset(cmd, 0, 16);
		cmd[0] = BH_CQD_WRITE_PAGED;
		bh_cq_put(cmd, BH_CQF_D_WRITE_PAGED_is_dram, dram);
		bh_cq_put(cmd, BH_CQF_D_WRITE_PAGED_start_page, start);
		bh_cq_put(cmd, BH_CQF_D_WRITE_PAGED_base_addr, b);
		bh_cq_put(cmd, BH_CQF_D_WRITE_PAGED_page_size, ps);
		bh_cq_put(cmd, BH_CQF_D_WRITE_PAGED_pages, n);
		memcpy(cmd + 16, s, (size_t)n * ps);
		if ((rc = bh_cq_push_dispatch(cq, cmd, 16 + n * ps, true)) != BH_OK)
			return rc;
		s += (size_t)n * ps;
		len -= (size_t)n * ps;
		page += n;
	}
	if (len) {
		/* A partial last page: exactly its bytes, by WRITE_LINEAR to where the page lives. */
		uint32_t hi, lo;
		bh_cqm_bank_page(&cq->m, 1, dram, base, ps, page, &hi, &lo);
		memset(cmd, 0, 32);
		cmd[0] = BH_CQD_WRITE_LINEAR;
		bh_cq_put(cmd, BH_CQF_D_WRITE_LINEAR_noc_xy_addr, hi);
		bh_cq_put(cmd, BH_CQF_D_WRITE_LINEAR_addr, lo);
		bh_cq_put(cmd, BH_CQF_D_WRITE_LINEAR_length, len);
		memcpy(cmd + 32, s, len);
		rc = bh_cq_push_dispatch(cq, cmd, 32 + (uint32_t)len, true);
	}
	return rc;
}

int bh_cq_read_buffer(struct bh_cq *cq, bool dram, uint32_t base, uint32_t ps, uint32_t first, void *dst,
		      size_t len)
{
	unsigned nb;
	int rc = cq_buffer_check(cq, dram, base, ps, dst, &nb);
	if (rc != BH_OK)
		return rc;
	if (dram && base % 64)
		return bh_cq_fail(cq, BH_ERR_ARG, "DRAM reads need a 64-byte aligned base (noc.md 7), not 0x%x", base);
	uint8_t *d = dst;
	/* Chunks small enough for RELAY_PAGED's 15-bit length adjustment and 8-bit start page. */
	uint32_t page = first, per = (16u << 20) / ps ? (16u << 20) / ps : 1;
	while (len) {
		uint32_t pages = (uint32_t)((len + ps - 1) / ps), n;
		pages = pages < per ? pages : per;
		n = (uint64_t)pages * ps > len ? (uint32_t)len : pages * ps;
		uint32_t adjust = pages * ps - n, b = base, start;
		if (adjust > 0x7FFF)
			return bh_cq_fail(cq, BH_ERR_ARG, "a partial last page %u bytes short: RELAY_PAGED adjusts by at most "
					  "32767", adjust);
		cq_page_split(dram, nb, ps, page, 0x100, &b, &start);
		/* As tt-metal lowers a read: the dispatcher waits until every earlier command and the
		 * workers are done (WAIT on the completion stream) and releases the prefetcher's STALL;
		 * only then does the prefetcher read the pages (fast-dispatch.md 4). */
		uint8_t *r = cq->rec;
		memset(r, 0, 256);
		uint8_t *w = r + 16;
		w[0] = BH_CQD_WAIT;
		bh_cq_put(w, BH_CQF_D_WAIT_flags, BH_CQ_WAIT_BARRIER | BH_CQ_WAIT_NOTIFY_PREFETCH | BH_CQ_WAIT_STREAM);
		bh_cq_put(w, BH_CQF_D_WAIT_stream, BH_CQ_STREAM_FIRST);
		cq_wrap_inline(r, w, 16, true);
		r[64] = BH_CQP_STALL;
		uint8_t *h = r + 128 + 16;
		h[0] = BH_CQD_WRITE_LINEAR_H_HOST;
		bh_cq_put(h, BH_CQF_D_WRITE_LINEAR_H_HOST_length, 16 + (uint64_t)n);
		cq_wrap_inline(r + 128, h, 16, false);
		uint8_t *pg = r + 192;
		pg[0] = BH_CQP_RELAY_PAGED;
		bh_cq_put(pg, BH_CQF_P_RELAY_PAGED_start_page, start);
		bh_cq_put(pg, BH_CQF_P_RELAY_PAGED_is_dram_and_length_adjust, (dram ? BH_CQ_PAGED_IS_DRAM : 0) | adjust);
		bh_cq_put(pg, BH_CQF_P_RELAY_PAGED_base_addr, b);
		bh_cq_put(pg, BH_CQF_P_RELAY_PAGED_page_size, ps);
		bh_cq_put(pg, BH_CQF_P_RELAY_PAGED_pages, pages);
		rc = cq_pending_push(cq, (struct cq_pending){ .dst = d, .len = n });
		if (rc == BH_OK)
			rc = bh_cq_push(cq, r, 256);
		while (rc == BH_OK && cq->pend_n)
			rc = cq_consume_next(cq);
		if (rc != BH_OK)
			return rc;
		d += n;
		len -= n;
		page += pages;
	}
	return BH_OK;
}

int bh_cq_state(struct bh_cq *cq, struct bh_cq_state *st)
{
	if (!cq || !st)
		return BH_ERR_ARG;
	memset(st, 0, sizeof *st);
	st->prefetch_tile = cq->pf_tile;
	st->dispatch_tile = cq->dp_tile;
	st->workers = cq->nworkers;
	st->issue_base = cq->m.issue_base;
	st->issue_size = cq->m.issue_size;
	st->completion_base = cq->m.completion_base;
	st->completion_size = cq->m.completion_size;
	st->issue_wr = cq->issue_wr;
	st->prefetch_q_idx = cq->q_idx;
	st->completion_rd = cq->c_rd;
	st->records = cq->records;
	st->bytes = cq->bytes;
	st->prefetch_commands = atomic_load_explicit(&cq->m.commands[BH_CQ_PREFETCH], memory_order_relaxed);
	st->dispatch_commands = atomic_load_explicit(&cq->m.commands[BH_CQ_DISPATCH], memory_order_relaxed);
	for (unsigned i = 0; i < 32; i++)
		st->dispatch_by_id[i] = atomic_load_explicit(&cq->m.cmd_count[BH_CQ_DISPATCH][i], memory_order_relaxed);
	return BH_OK;
}

/* ---- Open and close ---------------------------------------------------------------------------- */

/* Hold every core of tile t and wait until none runs (the models take over its BRISC's parking
 * slot and its L1). */
int bh_cq_hold_tile(struct bh_device *dev, unsigned t)
{
	struct bh_core_result r;
	if (bh_reg_write(dev, t, BH_SOFT_RESET_0, BH_SOFT_RESET_INIT) != BH_OK)
		return BH_ERR_ARG;
	for (unsigned k = 0; k < 5; k++)
		if (bh_core_wait(dev, t, (enum bh_core_id)k, 2000, &r) != BH_OK || r.status == BH_RUN_RUNNING)
			return BH_ERR_TIMEOUT;
	return BH_OK;
}

static void cq_l1_put32(struct bh_device *dev, unsigned t, uint32_t addr, uint32_t v)
{
	bh_l1_write(dev, t, addr, &v, 4);
}

void bh_cq_model_l1_init(struct bh_device *dev, const struct bh_cq_model *m, unsigned pf, unsigned dp)
{
	static const uint8_t zeros[0xC00];
	bh_l1_write(dev, pf, BH_CQ_PREFETCH_Q, zeros, 2 * BH_CQ_PREFETCH_Q_ENTRIES);
	cq_l1_put32(dev, pf, BH_CQ_PREFETCH_Q_RD_PTR, BH_CQ_PREFETCH_Q + 2 * BH_CQ_PREFETCH_Q_ENTRIES);
	cq_l1_put32(dev, pf, BH_CQ_PCIE_RD_PTR, m->issue_base);
	for (unsigned id = 0; id < 4; id++) {
		cq_l1_put32(dev, pf, m->sem_base + 16 * id, id == BH_CQ_SEM_DOWNSTREAM_CB ? BH_CQ_DISPATCH_CB_PAGES : 0);
		cq_l1_put32(dev, dp, m->sem_base + 16 * id, 0);
	}
	bh_l1_write(dev, dp, BH_CQ_DISPATCH_S_SYNC, zeros, 16 * BH_CQ_MAX_WORKER_SEMS);
	cq_l1_put32(dev, dp, BH_CQ_COMPLETION_WR_PTR, m->completion_base >> 4);
	cq_l1_put32(dev, dp, BH_CQ_COMPLETION_RD_PTR, m->completion_base >> 4);
}

/* fast-dispatch.md 6: the L1 state, then the host-memory pointers. */
static void cq_init_state(struct bh_cq *cq)
{
	struct bh_cq_model *m = &cq->m;
	bh_cq_model_l1_init(cq->dev, m, cq->pf_tile, cq->dp_tile);
	uint32_t c0 = m->completion_base >> 4;
	cq_host_st32(cq, BH_CQ_HOST_ISSUE_RD, m->issue_base);
	cq_host_st32(cq, BH_CQ_HOST_ISSUE_WR, m->issue_base);
	cq_host_st32(cq, BH_CQ_HOST_COMPLETION_WR, c0);
	cq_host_st32(cq, BH_CQ_HOST_COMPLETION_RD, c0);
	cq->c_rd = c0;
}

/* Launch-ring reset (RESET_READ_PTR, launch.md 5): every worker sets launch_msg_rd_ptr = 0 and
 * answers on stream 48; also the readiness check of races.md 4. */
static int cq_reset_workers(struct bh_cq *cq)
{
	uint8_t *cmd = cq->rec + 16;
	uint32_t n = 0;
	memset(cmd, 0, 16 + 4 * BH_CQ_GO_NOC_DATA_MAX);
	for (unsigned t = 0; t < cq->dev->ntiles; t++)
		if (cq->worker[t]) {
			struct bh_tile *tl = cq->dev->tiles[t];
			uint32_t w = tl->y << 6 | tl->x;
			memcpy(cmd + 16 + 4 * n++, &w, 4);
		}
	cmd[0] = BH_CQD_SET_GO_SIGNAL_NOC_DATA;
	bh_cq_put(cmd, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words, n);
	int rc = bh_cq_push_dispatch(cq, cmd, 16 + 4 * n, true);
	struct bh_tile *dt = cq->dev->tiles[cq->dp_tile];
	uint32_t go = RUN_MSG_RESET_READ_PTR << 24 | dt->y << 16 | dt->x << 8;
	uint8_t w0[16] = { BH_CQD_WAIT }, g[16] = { BH_CQD_SEND_GO_SIGNAL }, w1[16] = { BH_CQD_WAIT };
	bh_cq_put(w0, BH_CQF_D_WAIT_flags, BH_CQ_WAIT_STREAM | BH_CQ_WAIT_CLEAR_STREAM);
	bh_cq_put(w0, BH_CQF_D_WAIT_stream, BH_CQ_STREAM_FIRST);
	memcpy(w1, w0, 16);
	bh_cq_put(w1, BH_CQF_D_WAIT_count, n);
	bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_go_signal, go);
	bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, BH_CQ_GO_NO_MCAST);
	bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns, n);
	bh_cq_put(g, BH_CQF_D_SEND_GO_SIGNAL_wait_stream, BH_CQ_STREAM_FIRST);
	if (rc == BH_OK)
		rc = bh_cq_push_dispatch(cq, w0, 16, true);
	if (rc == BH_OK)
		rc = bh_cq_push_dispatch(cq, g, 16, true);
	if (rc == BH_OK)
		rc = bh_cq_push_dispatch(cq, w1, 16, true);
	if (rc == BH_OK)
		rc = bh_cq_finish(cq);
	memset(cq->launch_wr, 0, cq->dev->ntiles);
	return rc;
}

static void cq_free(struct bh_cq *cq)
{
	free(cq->pend);
	free(cq->launch_wr);
	free(cq->worker);
	free(cq->rec);
	free(cq);
}

void bh_cq_model_setup(struct bh_cq_model *m, struct bh_device *dev, const struct bh_profile *prof, unsigned pf,
		       unsigned dp, uint32_t host_base, uint32_t issue_size, uint32_t completion_size,
		       unsigned num_dram_banks, unsigned num_l1_banks, uint32_t go_mcast_grid)
{
	m->chip = &dev->chip;
	m->tile[BH_CQ_PREFETCH] = dev->tiles[pf];
	m->tile[BH_CQ_DISPATCH] = dev->tiles[dp];
	m->host_base = host_base;
	m->issue_base = host_base + BH_CQ_HOST_ISSUE_BASE;
	m->issue_size = issue_size;
	m->completion_base = m->issue_base + issue_size;
	m->completion_size = completion_size;
	m->sem_base = prof->kernel_config_base + 16;
	m->go_addr = bh_profile_mbox(prof, prof->go_messages_base);
	m->go_mcast_grid = go_mcast_grid;
	m->go_count = prof->go_messages_count;
	m->num_dram_banks = num_dram_banks;
	m->num_l1_banks = num_l1_banks;
}

int bh_cq_open(struct bh_device *dev, const struct bh_cq_config *cfg, struct bh_cq **out, char *err, size_t errlen)
{
	static const struct bh_cq_config defaults = { 0 };
	char dummy[8];
	if (!err)
		err = dummy, errlen = sizeof dummy;
	if (!dev || !out)
		return snprintf(err, errlen, "no device or no result pointer"), BH_ERR_ARG;
	cfg = cfg ? cfg : &defaults;
	const struct bh_topology *topo = &dev->chip.topo;
	if (!dev->booted)
		return snprintf(err, errlen, "the device has not been booted (bh_boot)"), BH_ERR_ARG;
	if (dev->cq)
		return snprintf(err, errlen, "a command queue is already open on this device"), BH_ERR_ARG;
	if (!topo->dispatch_x)
		return snprintf(err, errlen, "this board has no fast-dispatch tiles (a grid needs two rows)"), BH_ERR_ARG;
	uint32_t isz = cfg->issue_size ? cfg->issue_size : CQ_DEFAULT_ISSUE;
	uint32_t csz = cfg->completion_size ? cfg->completion_size : CQ_DEFAULT_COMPLETION;
	void *host;
	uint64_t hsize, hbase;
	bh_host_mem(dev, &host, &hsize, &hbase);
	if (isz % BH_CQ_PAGE || csz % BH_CQ_PAGE || isz < 2 * BH_CQ_PAGE || csz < BH_CQ_PAGE ||
	    BH_CQ_HOST_ISSUE_BASE + (uint64_t)isz + csz > hsize)
		return snprintf(err, errlen, "issue ring %u and completion ring %u bytes: multiples of 4096 (issue at least "
				"8192) that fit the %llu bytes of host memory after 0x100", isz, csz,
				(unsigned long long)hsize), BH_ERR_ARG;
	struct bh_cq *cq = calloc(1, sizeof *cq);
	if (!cq)
		return BH_ERR_SYS;
	cq->dev = dev;
	cq->host = host;
	cq->timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : CQ_DEFAULT_TIMEOUT_S;
	cq->pf_tile = topo->map[topo->dispatch_y[0]][topo->dispatch_x].index;
	cq->dp_tile = topo->map[topo->dispatch_y[1]][topo->dispatch_x].index;
	cq->launch_wr = calloc(dev->ntiles, 1);
	cq->worker = calloc(dev->ntiles, sizeof *cq->worker);
	cq->rec = malloc(BH_CQ_CMDDAT_SIZE + 64);
	if (!cq->launch_wr || !cq->worker || !cq->rec) {
		cq_free(cq);
		return BH_ERR_SYS;
	}
	for (unsigned t = 0; t < dev->ntiles; t++)
		if ((cq->worker[t] = t != cq->pf_tile && t != cq->dp_tile))
			cq->nworkers++;
	const struct bh_profile *prof = &dev->boot_profile;
	struct bh_cq_model *m = &cq->m;
	bh_cq_model_setup(m, dev, prof, cq->pf_tile, cq->dp_tile, (uint32_t)hbase, isz, csz, dev->boot_dram_banks,
			  dev->boot_l1_banks, cfg->go_mcast_grid);
	int rc = BH_OK;
	for (unsigned r = 0; r < 2 && rc == BH_OK; r++)
		rc = bh_cq_hold_tile(dev, r ? cq->dp_tile : cq->pf_tile);
	if (rc != BH_OK) {
		snprintf(err, errlen, "the fast-dispatch tiles' cores did not stop when held in reset");
		cq_free(cq);
		return rc;
	}
	for (unsigned r = 0; r < 2; r++)
		bh_l1_read(dev, r ? cq->dp_tile : cq->pf_tile, prof->kernel_config_base, cq->saved_kcb[r], CQ_SAVED_KCB);
	cq_init_state(cq);
	if (bh_cq_model_start(m) != 0) {
		snprintf(err, errlen, "cannot start the prefetch and dispatch threads");
		cq_free(cq);
		return BH_ERR_SYS;
	}
	dev->cq = cq;
	rc = cq_reset_workers(cq);
	if (rc != BH_OK) {
		snprintf(err, errlen, "%s", cq->err);
		bh_cq_close(cq);
		return rc;
	}
	*out = cq;
	return BH_OK;
}

/* The tiles' firmware starts over from L1[0] (launch.md 1 steps 4, 7, 8). */
static void cq_reboot_tile(struct bh_cq *cq, enum bh_cq_role r)
{
	const struct bh_profile *prof = &cq->dev->boot_profile;
	unsigned t = r == BH_CQ_PREFETCH ? cq->pf_tile : cq->dp_tile;
	bh_l1_write(cq->dev, t, prof->kernel_config_base, cq->saved_kcb[r], CQ_SAVED_KCB);
	cq_l1_put32(cq->dev, t, bh_profile_mbox(prof, prof->go_messages_base), RUN_MSG_INIT << 24);
	bh_reg_write(cq->dev, t, BH_SOFT_RESET_0, BH_SOFT_RESET_INIT & ~(1u << bh_soft_reset_bit(BH_BRISC)));
	/* Until its go signal is DONE; not past a deadlock (a faulted firmware): nothing moves then. */
	for (double until = cq_now() + 2.0; cq_go_signal(cq, t) != 0 && cq_now() < until && !bh_device_deadlocked(cq->dev);)
		bh_device_pause(cq->dev, 200000);
}

static bool models_exited(struct bh_cq *cq, void *arg)
{
	(void)arg;
	return atomic_load_explicit(&cq->m.exited, memory_order_acquire) == 3u;
}

void bh_cq_close(struct bh_cq *cq)
{
	if (!cq)
		return;
	if (!cq->failed && bh_cq_finish(cq) == BH_OK) {
		uint8_t term[16] = { BH_CQD_TERMINATE }, pterm[64] = { BH_CQP_TERMINATE };
		if (bh_cq_push_dispatch(cq, term, 16, true) == BH_OK && bh_cq_push(cq, pterm, 64) == BH_OK) {
			double t0 = cq_now();
			while (!models_exited(cq, NULL) && cq_now() - t0 < cq->timeout_s) {
				bh_device_pause(cq->dev, 200000);
			}
		}
	}
	bh_cq_model_stop(&cq->m);
	cq_reboot_tile(cq, BH_CQ_PREFETCH);
	cq_reboot_tile(cq, BH_CQ_DISPATCH);
	cq->dev->cq = NULL;
	cq_free(cq);
}
