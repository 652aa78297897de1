/* The prefetcher (PREFETCH_HD, fast-dispatch.md 3 and 4.1): takes record sizes from prefetch_q,
 * NoC-reads the records from the issue ring in host memory into cmddat_q, and relays what its
 * commands ask for into the dispatcher's CB, page by page against the dispatcher's credits.
 * EXEC_BUF switches the command source to pages of a DRAM buffer until its EXEC_BUF_END. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/cq_model.h"
#include "fabric/chip.h"
#include "fabric/tile.h"
#include "sync/park.h"

#define PF_NOC 0u
#define PCIE_MID (1u << 28)   /* ADDR_MID bit 28 = NoC address bit 60 */

/* EXEC_BUF: prefetch commands read from an interleaved DRAM buffer of pages into cmddat_q,
 * which then holds bytes [fetch_ring_off, fetch_ring_off + fetch_len) of the buffer. */
struct exec_buf {
	bool active, ended;
	uint32_t base, page_size, pages;
	uint32_t next_page;       /* next page to read */
};

struct pf {
	struct bh_cq_model *m;
	unsigned q_idx;
	uint32_t pcie_rd;         /* NoC-local read position in the issue ring */
	uint32_t fetch_ring_off;  /* offset of cmddat_q[0] in the issue ring (or the exec buffer) */
	uint32_t fetch_len;
	struct exec_buf eb;
	/* Downstream (dispatch CB): free-running byte offset written so far, pages acquired
	 * (credits taken) and released (handed to the dispatcher), both free-running. */
	uint64_t ds_off;
	uint64_t unit_start;      /* where the relay unit being written began (a page boundary) */
	uint32_t acquired, released;
	uint32_t sync_count;      /* STALLs so far: DOWNSTREAM_SYNC must reach it */
	/* The command being executed, for reports. */
	const char *cmd;
	uint32_t cmd_off;         /* offset in cmddat_q */
	struct bh_fault f;
	uint32_t *snap;           /* cq-record-changed: the record as announced (cmddat_q's size), or NULL */
};

static const char *pf_ring(const struct pf *p)
{
	return p->eb.active ? "exec buffer" : "issue ring";
}

static bool pf_fail(struct pf *p, int field, const char *fmt, const char *why)
{
	return bh_cqm_fail(p->m, BH_CQ_PREFETCH, p->cmd, pf_ring(p), p->fetch_ring_off + p->cmd_off, field, fmt, why);
}

static bool pf_noc_fail(struct pf *p, int field)
{
	return bh_cqm_fail(p->m, BH_CQ_PREFETCH, p->cmd, pf_ring(p), p->fetch_ring_off + p->cmd_off, field,
			   "NoC request refused: %s: %s", p->f.region, p->f.detail);
}

static uint32_t sem_addr(const struct pf *p, unsigned id)
{
	return p->m->sem_base + 16 * id;
}

/* ---- Downstream: the dispatch CB ------------------------------------------------------------- */

struct credit_wait {
	struct pf *p;
	uint32_t need;
};

static bool credits_ready(void *arg)
{
	struct credit_wait *w = arg;
	return bh_cq_wrap_ge(bh_cqm_l1_ld(w->p->m, BH_CQ_PREFETCH, sem_addr(w->p, BH_CQ_SEM_DOWNSTREAM_CB)), w->need);
}

/* Acquire credits for every page up to byte ds_off + len (CBWriter::acquire_pages). */
static bool pf_acquire(struct pf *p, uint32_t len)
{
	uint32_t upto = (uint32_t)((p->ds_off + len + BH_CQ_PAGE - 1) / BH_CQ_PAGE);
	if (bh_cq_wrap_ge(p->acquired, upto))
		return true;
	struct credit_wait w = { p, upto };
	uint32_t a = sem_addr(p, BH_CQ_SEM_DOWNSTREAM_CB);
	struct bh_cqm_block b = { BH_CQW_CREDITS, a, upto, 0 };
	char what[160];
	snprintf(what, sizeof what, "dispatch-CB credits: MY_DOWNSTREAM_CB_SEM (L1 0x%x) >= %u pages", a, upto);
	if (!bh_cqm_wait(p->m, BH_CQ_PREFETCH, &a, 1, credits_ready, &w, what, &b))
		return false;
	p->acquired = upto;
	return true;
}

/* NoC-write len bytes of local L1 at src into the dispatch CB, wrapping at its end. */
static bool pf_write_downstream(struct pf *p, uint32_t src, uint32_t len)
{
	struct bh_cq_model *m = p->m;
	if (!pf_acquire(p, len))
		return false;
	while (len) {
		uint32_t pos = (uint32_t)(p->ds_off % BH_CQ_DISPATCH_CB_SIZE);
		uint32_t n = BH_CQ_DISPATCH_CB_SIZE - pos < len ? BH_CQ_DISPATCH_CB_SIZE - pos : len;
		if (!bh_cqm_noc_write(m, BH_CQ_PREFETCH, PF_NOC, src, bh_cqm_xy(m, BH_CQ_DISPATCH), 0,
				      BH_CQ_DISPATCH_CB + pos, n, false, &p->f))
			return pf_noc_fail(p, BH_CQF_COUNT);
		p->ds_off += n;
		src += n;
		len -= n;
	}
	return true;
}

/* Hand written pages to the dispatcher (NoC increment of its MY_DISPATCH_CB_SEM). flush: round
 * up to a page first (the unit ends here); otherwise a partial last page stays held. */
static bool pf_release(struct pf *p, bool flush)
{
	struct bh_cq_model *m = p->m;
	if (flush && p->ds_off > p->unit_start) {
		/* The exact end, before the round-up: the dispatcher checks commands to the byte. */
		uint32_t h = atomic_load_explicit(&m->unit_head, memory_order_relaxed);
		atomic_store_explicit(&m->unit_end[h % BH_CQ_UNIT_RING], p->ds_off, memory_order_relaxed);
		atomic_store_explicit(&m->unit_head, h + 1, memory_order_release);   /* pairs with dp_find_unit */
		/* The credit increment below must not be seen before the unit (pairs with dp_avail). */
		atomic_thread_fence(memory_order_release);
		p->ds_off = p->unit_start = (p->ds_off + BH_CQ_PAGE - 1) / BH_CQ_PAGE * BH_CQ_PAGE;
		/* A unit that ends on a page already released moves no credit: wake the dispatcher. */
		bh_park_wake(&m->chip->cq_waiter[BH_CQ_DISPATCH]);
	}
	uint32_t done = (uint32_t)(p->ds_off / BH_CQ_PAGE), n = done - p->released;
	if (!n)
		return true;
	if (!bh_cqm_noc_inc(m, BH_CQ_PREFETCH, PF_NOC, bh_cqm_xy(m, BH_CQ_DISPATCH),
			    m->sem_base + 16 * BH_CQ_SEM_DISPATCH_CB, n, &p->f))
		return pf_noc_fail(p, BH_CQF_COUNT);
	p->released = done;
	return true;
}

/* ---- Commands ----------------------------------------------------------------------------------- */

/* RELAY_INLINE(_NOFLUSH), EXEC_BUF_END's layout: the inner bytes go downstream. */
static bool pf_relay_inline(struct pf *p, const uint8_t *hdr, uint32_t stride, bool flush)
{
	if (bh_cq_get(hdr, BH_CQF_P_RELAY_INLINE_dispatcher_type) != 0)
		return pf_fail(p, BH_CQF_P_RELAY_INLINE_dispatcher_type, "%s",
			       "1 (dispatch_s buffer): dispatch_s is not modelled (DISTRIBUTED_DISPATCHER is 0)");
	uint32_t len = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_INLINE_length);
	if (len == 0)
		return pf_fail(p, BH_CQF_P_RELAY_INLINE_length, "%s",
			       "0: truncated command: the relay carries no dispatch command (not even its id byte)");
	if (len > stride - 16) {
		char why[128];
		snprintf(why, sizeof why, "%u inner bytes do not fit the command's stride %u (16-byte header)", len, stride);
		return pf_fail(p, BH_CQF_P_RELAY_INLINE_length, "%s", why);
	}
	return pf_write_downstream(p, BH_CQ_CMDDAT_Q + p->cmd_off + 16, len) && pf_release(p, flush);
}

/* Bytes from a NoC source (hi, mid, lo) through scratch_db to the dispatch CB. */
static bool pf_relay_from(struct pf *p, uint32_t hi, uint32_t mid, uint32_t lo, uint32_t len, int field)
{
	while (len) {
		uint32_t skew = lo & 63, n = BH_CQ_SCRATCH_SIZE - 64 < len ? BH_CQ_SCRATCH_SIZE - 64 : len;
		if (!bh_cqm_noc_read(p->m, BH_CQ_PREFETCH, PF_NOC, hi, mid, lo, BH_CQ_SCRATCH_DB + skew, n, &p->f))
			return pf_noc_fail(p, field);
		if (!pf_write_downstream(p, BH_CQ_SCRATCH_DB + skew, n) || !pf_release(p, false))
			return false;
		lo += n;
		len -= n;
	}
	return true;
}

static bool pf_relay_paged(struct pf *p, const uint8_t *hdr)
{
	uint32_t flags = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_PAGED_is_dram_and_length_adjust);
	uint32_t start = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_PAGED_start_page);
	uint32_t base = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_PAGED_base_addr);
	uint32_t ps = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_PAGED_page_size);
	uint32_t pages = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_PAGED_pages);
	uint32_t adjust = flags & 0x7FFF;
	bool dram = flags & BH_CQ_PAGED_IS_DRAM;
	if (ps == 0 || (pages && adjust >= ps))
		return pf_fail(p, ps ? BH_CQF_P_RELAY_PAGED_is_dram_and_length_adjust : BH_CQF_P_RELAY_PAGED_page_size,
			       "%s", "the page size must be non-zero and the length adjustment smaller than a page");
	for (uint32_t k = 0; k < pages; k++) {
		uint32_t hi, lo;
		if (!bh_cqm_bank_page(p->m, PF_NOC, dram, base, ps, start + k, &hi, &lo))
			return pf_fail(p, BH_CQF_P_RELAY_PAGED_is_dram_and_length_adjust, "%s", "no banks of that kind");
		if (!pf_relay_from(p, hi, 0, lo, k + 1 == pages ? ps - adjust : ps, BH_CQF_P_RELAY_PAGED_base_addr))
			return false;
	}
	return pf_release(p, true);
}

static bool pf_relay_paged_packed(struct pf *p, const uint8_t *hdr, uint32_t stride)
{
	uint32_t count = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_PAGED_PACKED_count);
	uint32_t total = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_PAGED_PACKED_total_length), sum = 0;
	if (count == 0 || count > BH_CQ_PAGED_PACKED_MAX)
		return pf_fail(p, BH_CQF_P_RELAY_PAGED_PACKED_count, "%s", "between 1 and 35 sub-commands");
	if (16 + 12 * count > stride)
		return pf_fail(p, BH_CQF_P_RELAY_PAGED_PACKED_stride, "%s", "the sub-commands run past the stride");
	for (uint32_t i = 0; i < count; i++) {
		uint8_t s[12];
		bh_tile_l1_read(p->m->tile[BH_CQ_PREFETCH], BH_CQ_CMDDAT_Q + p->cmd_off + 16 + 12 * i, s, sizeof s);
		uint32_t start = (uint32_t)bh_cq_get(s, BH_CQF_S_PAGED_PACKED_start_page);
		uint32_t lg = (uint32_t)bh_cq_get(s, BH_CQF_S_PAGED_PACKED_log_page_size);
		uint32_t base = (uint32_t)bh_cq_get(s, BH_CQF_S_PAGED_PACKED_base_addr);
		uint32_t len = (uint32_t)bh_cq_get(s, BH_CQF_S_PAGED_PACKED_length);
		if (lg < 4 || lg > 16)
			return pf_fail(p, BH_CQF_S_PAGED_PACKED_log_page_size, "%s", "page sizes are 16 B .. 64 KiB");
		uint32_t ps = 1u << lg;
		for (uint32_t page = start; len; page++) {
			uint32_t hi, lo, n = len < ps ? len : ps;
			if (!bh_cqm_bank_page(p->m, PF_NOC, true, base, ps, page, &hi, &lo))
				return pf_fail(p, BH_CQF_S_PAGED_PACKED_base_addr, "%s", "no DRAM banks");
			if (!pf_relay_from(p, hi, 0, lo, n, BH_CQF_S_PAGED_PACKED_base_addr))
				return false;
			len -= n;
			sum += n;
		}
	}
	if (sum != total)
		return pf_fail(p, BH_CQF_P_RELAY_PAGED_PACKED_total_length, "%s",
			       "differs from the sum of the sub-commands' lengths");
	return pf_release(p, true);
}

static bool pf_relay_linear(struct pf *p, const uint8_t *hdr, bool h)
{
	uint64_t addr = bh_cq_get(hdr, h ? BH_CQF_P_RELAY_LINEAR_H_addr : BH_CQF_P_RELAY_LINEAR_addr);
	uint64_t len = bh_cq_get(hdr, h ? BH_CQF_P_RELAY_LINEAR_H_length : BH_CQF_P_RELAY_LINEAR_length);
	uint32_t xy = (uint32_t)bh_cq_get(hdr, h ? BH_CQF_P_RELAY_LINEAR_H_noc_xy_addr : BH_CQF_P_RELAY_LINEAR_noc_xy_addr);
	if (len >> 32)
		return pf_fail(p, h ? BH_CQF_P_RELAY_LINEAR_H_length : BH_CQF_P_RELAY_LINEAR_length, "%s",
			       "4 GiB or more is not modelled");
	return pf_relay_from(p, xy, (uint32_t)(addr >> 32), (uint32_t)addr, (uint32_t)len,
			     h ? BH_CQF_P_RELAY_LINEAR_H_addr : BH_CQF_P_RELAY_LINEAR_addr) && pf_release(p, true);
}

static bool sync_ready(void *arg)
{
	struct pf *p = arg;
	return bh_cq_wrap_ge(bh_cqm_l1_ld(p->m, BH_CQ_PREFETCH, sem_addr(p, BH_CQ_SEM_DOWNSTREAM_SYNC)), p->sync_count);
}

static bool pf_stall(struct pf *p)
{
	uint32_t a = sem_addr(p, BH_CQ_SEM_DOWNSTREAM_SYNC);
	char what[128];
	p->sync_count++;
	struct bh_cqm_block b = { BH_CQW_STALL, a, p->sync_count, 0 };
	snprintf(what, sizeof what, "DOWNSTREAM_SYNC_SEM (L1 0x%x) >= %u (a dispatcher WAIT with NOTIFY_PREFETCH)", a,
		 p->sync_count);
	return bh_cqm_wait(p->m, BH_CQ_PREFETCH, &a, 1, sync_ready, p, what, &b);
}

/* ---- EXEC_BUF: commands from a DRAM buffer -------------------------------------------------- */

/* cmddat_q holds at least n bytes from cmd_off on. In an exec buffer, move what is left of the
 * window to the front of cmddat_q (so that it ends 64-byte aligned, as DRAM reads need) and read
 * as many further pages as fit. */
static bool pf_have(struct pf *p, uint32_t n)
{
	struct exec_buf *e = &p->eb;
	if (p->fetch_len - p->cmd_off >= n || !e->active || e->next_page == e->pages)
		return p->fetch_len - p->cmd_off >= n;
	struct bh_cq_model *m = p->m;
	struct bh_tile *t = m->tile[BH_CQ_PREFETCH];
	uint32_t keep = p->fetch_len - p->cmd_off, to = (BH_CQ_PCIE_ALIGN - keep % BH_CQ_PCIE_ALIGN) % BH_CQ_PCIE_ALIGN;
	if (to != p->cmd_off) {
		uint8_t buf[1024];
		for (uint32_t k = 0; k < keep; k += sizeof buf) {   /* forward: the window only moves down */
			uint32_t c = keep - k < sizeof buf ? keep - k : (uint32_t)sizeof buf;
			bh_tile_l1_read(t, BH_CQ_CMDDAT_Q + p->cmd_off + k, buf, c);
			bh_tile_l1_write(t, BH_CQ_CMDDAT_Q + to + k, buf, c);
		}
		p->fetch_ring_off += p->cmd_off - to;
		p->cmd_off = to;
		p->fetch_len = to + keep;
	}
	while (e->next_page < e->pages && p->fetch_len + e->page_size <= BH_CQ_CMDDAT_SIZE) {
		uint32_t hi, lo;
		bh_cqm_bank_page(m, PF_NOC, true, e->base, e->page_size, e->next_page, &hi, &lo);
		if (!bh_cqm_noc_read(m, BH_CQ_PREFETCH, PF_NOC, hi, 0, lo, BH_CQ_CMDDAT_Q + p->fetch_len, e->page_size,
				     &p->f))
			return pf_noc_fail(p, BH_CQF_P_EXEC_BUF_base_addr);
		p->fetch_len += e->page_size;
		e->next_page++;
	}
	return p->fetch_len - p->cmd_off >= n;
}

static bool pf_command(struct pf *p, uint32_t *stride, bool *done);

/* Runs the buffer's commands up to its EXEC_BUF_END, then goes back to the issue ring. The
 * buffer reuses cmddat_q, so EXEC_BUF must be the last command of its fetch record. */
static bool pf_exec_buf(struct pf *p, const uint8_t *hdr, uint32_t stride, bool *done)
{
	uint32_t lg = (uint32_t)bh_cq_get(hdr, BH_CQF_P_EXEC_BUF_log_page_size);
	uint32_t pages = (uint32_t)bh_cq_get(hdr, BH_CQF_P_EXEC_BUF_pages);
	if (p->eb.active)
		return pf_fail(p, -1, "%s", "EXEC_BUF inside an exec buffer: they do not nest");
	if (p->cmd_off + stride != p->fetch_len)
		return pf_fail(p, -1, "%s", "must be the last command of its fetch record (the exec buffer reuses cmddat_q)");
	if (lg < 6 || lg > 16)
		return pf_fail(p, BH_CQF_P_EXEC_BUF_log_page_size, "%s", "pages of 64 B .. 64 KiB (DRAM reads: 64-byte units)");
	if (pages == 0)
		return pf_fail(p, BH_CQF_P_EXEC_BUF_pages, "%s", "0");
	if (!p->m->num_dram_banks)
		return pf_fail(p, BH_CQF_P_EXEC_BUF_base_addr, "%s", "no DRAM banks");
	uint32_t cmd_off = p->cmd_off, fetch_len = p->fetch_len, ring_off = p->fetch_ring_off;
	p->eb = (struct exec_buf){ .active = true, .base = (uint32_t)bh_cq_get(hdr, BH_CQF_P_EXEC_BUF_base_addr),
				   .page_size = 1u << lg, .pages = pages };
	p->fetch_ring_off = 0;
	p->fetch_len = p->cmd_off = 0;
	while (!p->eb.ended && !*done) {
		uint32_t s = 0;
		if (!pf_command(p, &s, done))
			return false;
		p->cmd_off += s;
	}
	p->eb.active = false;
	p->cmd = bh_cq_prefetch_cmds[BH_CQP_EXEC_BUF].name;
	p->cmd_off = cmd_off;
	p->fetch_len = fetch_len;
	p->fetch_ring_off = ring_off;
	return true;
}

/* One command at cmd_off; *stride = bytes to the next. Returns false to stop (done or failed). */
static bool pf_command(struct pf *p, uint32_t *stride, bool *done)
{
	uint8_t hdr[32];
	char why[160];
	p->cmd = NULL;
	if (!pf_have(p, 16))
		return pf_fail(p, -1, "%s", p->eb.active ? "the exec buffer ends without EXEC_BUF_END"
							 : "a command header runs past the end of the fetched record");
	pf_have(p, 32);   /* a 32-byte header where there is one */
	uint32_t left = p->fetch_len - p->cmd_off;
	bh_tile_l1_read(p->m->tile[BH_CQ_PREFETCH], BH_CQ_CMDDAT_Q + p->cmd_off, hdr, left < 32 ? 16 : 32);
	const struct bh_cq_cmd *c = bh_cq_cmd_find(BH_CQ_FMT_PREFETCH, hdr[0]);
	if (!c) {
		snprintf(why, sizeof why, "unknown prefetch command id %u (byte 0)", hdr[0]);
		return pf_fail(p, -1, "%s", why);
	}
	p->cmd = c->name;
	bh_cqm_at(p->m, BH_CQ_PREFETCH, c->name, pf_ring(p), p->fetch_ring_off + p->cmd_off);
	if (c->size > left) {
		snprintf(why, sizeof why, "truncated command: %s needs its %u-byte header, the %s has %u bytes left", c->name,
			 c->size, p->eb.active ? "exec buffer" : "fetched record", left);
		return pf_fail(p, -1, "%s", why);
	}
	/* Commands without a stride field take CQ_PREFETCH_CMD_BARE_MIN_SIZE: the PCIe alignment. */
	*stride = (c->size + BH_CQ_PCIE_ALIGN - 1) & ~(BH_CQ_PCIE_ALIGN - 1);
	switch (hdr[0]) {
	case BH_CQP_RELAY_INLINE:
	case BH_CQP_RELAY_INLINE_NOFLUSH:
	case BH_CQP_EXEC_BUF_END:
	case BH_CQP_DEBUG:
		*stride = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_INLINE_stride);
		break;
	case BH_CQP_RELAY_PAGED_PACKED:
		*stride = (uint32_t)bh_cq_get(hdr, BH_CQF_P_RELAY_PAGED_PACKED_stride);
		break;
	default:
		break;
	}
	if (*stride > left && *stride % 16 == 0 && pf_have(p, *stride))
		left = p->fetch_len - p->cmd_off;
	int sfield = hdr[0] == BH_CQP_RELAY_PAGED_PACKED ? BH_CQF_P_RELAY_PAGED_PACKED_stride
			     : hdr[0] == BH_CQP_DEBUG ? BH_CQF_P_DEBUG_stride : BH_CQF_P_RELAY_INLINE_stride;
	if (*stride < c->size || *stride % 16 || *stride > left) {
		snprintf(why, sizeof why, "%u: must be a multiple of 16, at least the %u-byte header and within the %u "
			 "bytes left of the %s", *stride, c->size, left, p->eb.active ? "exec buffer (or cmddat_q)"
										  : "fetched record");
		return pf_fail(p, sfield, "%s", why);
	}
	atomic_fetch_add_explicit(&p->m->cmd_count[BH_CQ_PREFETCH][hdr[0]], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->m->commands[BH_CQ_PREFETCH], 1, memory_order_relaxed);
	switch (hdr[0]) {
	case BH_CQP_RELAY_INLINE:
		return pf_relay_inline(p, hdr, *stride, true);
	case BH_CQP_RELAY_INLINE_NOFLUSH:
		return pf_relay_inline(p, hdr, *stride, false);
	case BH_CQP_RELAY_PAGED:
		return pf_relay_paged(p, hdr);
	case BH_CQP_RELAY_PAGED_PACKED:
		return pf_relay_paged_packed(p, hdr, *stride);
	case BH_CQP_RELAY_LINEAR:
		return pf_relay_linear(p, hdr, false);
	case BH_CQP_RELAY_LINEAR_H:
		return pf_relay_linear(p, hdr, true);
	case BH_CQP_STALL:
		return pf_stall(p);
	case BH_CQP_DEBUG:
		if (bh_cq_get(hdr, BH_CQF_P_DEBUG_size) > *stride - 16)
			return pf_fail(p, BH_CQF_P_DEBUG_size, "%s", "larger than the stride leaves after the header");
		return true;
	case BH_CQP_TERMINATE:
		*done = true;
		return pf_release(p, true);
	case BH_CQP_EXEC_BUF:
		return pf_exec_buf(p, hdr, *stride, done);
	case BH_CQP_EXEC_BUF_END:
		if (!p->eb.active)
			return pf_fail(p, -1, "%s", "outside an exec buffer (EXEC_BUF)");
		p->eb.ended = true;
		return pf_relay_inline(p, hdr, *stride, true);
	default:   /* the ring-buffer commands */
		return pf_fail(p, -1, "%s", "not modelled yet (the prefetcher's ring buffer)");
	}
}

struct slot_wait {
	struct pf *p;
	uint16_t v;
};

static bool slot_ready(void *arg)
{
	struct slot_wait *w = arg;
	struct bh_tile *t = w->p->m->tile[BH_CQ_PREFETCH];
	w->v = __atomic_load_n((uint16_t *)(t->l1 + BH_CQ_PREFETCH_Q + 2 * w->p->q_idx), __ATOMIC_ACQUIRE);
	return w->v != 0;
}

/* cq-record-changed (races.md #28): the record's bytes in host memory as the prefetcher found
 * them when prefetch_q announced it, to compare with what the fetch brought. */
static bool pf_record_snapshot(struct pf *p, uint32_t len)
{
	struct bh_cq_model *m = p->m;
	if (!bh_checks_on(&m->chip->checks, BH_CHECK_CQ_RECORD_CHANGED) || !p->snap)
		return false;
	/* Host memory its owner serves (the libttsim ABI's DMA callbacks): one more read of it. */
	if (m->chip->host_io)
		return m->chip->host_io(m->chip->host_io_arg, 1ull << 60 | p->pcie_rd, p->snap, len, false);
	const uint8_t *src = bh_host_mem_ptr(m->chip, 1ull << 60 | p->pcie_rd, len);
	if (!src)
		return false;   /* the fetch reports it */
	for (uint32_t k = 0; k < len; k += 4)
		p->snap[k / 4] = __atomic_load_n((const uint32_t *)(src + k), __ATOMIC_RELAXED);
	return true;
}

static bool pf_record_unchanged(struct pf *p, uint16_t slot_val, uint32_t len)
{
	struct bh_cq_model *m = p->m;
	const uint8_t *got = m->tile[BH_CQ_PREFETCH]->l1 + BH_CQ_CMDDAT_Q;
	uint32_t k = 0, now = 0;
	for (; k < len; k += 4) {
		now = __atomic_load_n((const uint32_t *)(got + k), __ATOMIC_RELAXED);
		if (now != p->snap[k / 4])
			break;
	}
	if (k == len)
		return true;
	struct bh_fault f;
	char other[96];
	snprintf(other, sizeof other, "the host, writing the issue ring after announcing the record in prefetch_q[%u]",
		 p->q_idx);
	bh_check_fill(&f, BH_CHECK_CQ_RECORD_CHANGED, p->pcie_rd + k, "issue ring (host memory)", other,
		      "the %u-byte record at issue ring offset 0x%x, announced by prefetch_q[%u] = 0x%04x, changed before the "
		      "prefetcher fetched it: word at record offset 0x%x was 0x%08x when announced, 0x%08x when fetched "
		      "(write a record only where the prefetcher has fetched: track PCIE_RD_PTR at 0x%x)",
		      len, p->fetch_ring_off, p->q_idx, slot_val, k, p->snap[k / 4], now, BH_CQ_PCIE_RD_PTR);
	f.has_addr = true;
	struct bh_tile *t = m->tile[BH_CQ_PREFETCH];
	if (!bh_check_found(&m->chip->checks, t->index, BH_BRISC, &f))
		return true;   /* logged: the fetched bytes run */
	return bh_cqm_fail(m, BH_CQ_PREFETCH, NULL, "issue ring", p->fetch_ring_off, -1, "check %s: %s (other: %s)",
			   bh_check_name(BH_CHECK_CQ_RECORD_CHANGED), f.detail, f.other);
}

/* cq-slot-overwritten (races.md #29): prefetch_q[q_idx] held `seen` when the prefetcher took its
 * record, and `now` when it came to free the slot: the host wrote it while it was non-zero, and
 * the record it announced is lost (silicon zeroes the slot all the same). */
static bool pf_slot_overwritten(struct pf *p, uint16_t seen, uint16_t now)
{
	struct bh_cq_model *m = p->m;
	struct bh_tile *t = m->tile[BH_CQ_PREFETCH];
	uint32_t slot = BH_CQ_PREFETCH_Q + 2 * p->q_idx;
	__atomic_store_n((uint16_t *)(t->l1 + slot), 0, __ATOMIC_RELEASE);
	if (!bh_checks_on(&m->chip->checks, BH_CHECK_CQ_SLOT_OVERWRITTEN))
		return true;
	struct bh_fault f;
	bh_check_fill(&f, BH_CHECK_CQ_SLOT_OVERWRITTEN, slot, "prefetch_q", "the host, writing prefetch_q",
		      "prefetch_q[%u] (L1 0x%x) was written while non-zero: it announced 0x%04x, the prefetcher fetched that "
		      "record, and before it freed the slot it held 0x%04x, a record that is now lost (write a slot only "
		      "once it reads 0)", p->q_idx, slot, seen, now);
	f.has_addr = true;
	if (!bh_check_found(&m->chip->checks, t->index, BH_BRISC, &f))
		return true;
	return bh_cqm_fail(m, BH_CQ_PREFETCH, NULL, "", 0, -1, "check %s: %s (other: %s)",
			   bh_check_name(BH_CHECK_CQ_SLOT_OVERWRITTEN), f.detail, f.other);
}

/* fetch_q_get_cmds: the next non-zero prefetch_q slot, its record into cmddat_q. */
static bool pf_fetch(struct pf *p)
{
	struct bh_cq_model *m = p->m;
	struct bh_tile *t = m->tile[BH_CQ_PREFETCH];
	struct slot_wait w = { p, 0 };
	uint32_t slot = BH_CQ_PREFETCH_Q + 2 * p->q_idx, word = slot & ~3u;
	char what[128];
	snprintf(what, sizeof what, "prefetch_q[%u] (L1 0x%x) != 0: a record from the host", p->q_idx, slot);
	bh_cqm_at(m, BH_CQ_PREFETCH, NULL, NULL, 0);
	if (!bh_cqm_wait(m, BH_CQ_PREFETCH, &word, 1, slot_ready, &w, what, NULL))
		return false;
	uint32_t len = (w.v & 0x7FFFu) * 16u;
	p->cmd = NULL;
	p->cmd_off = 0;
	p->fetch_ring_off = p->pcie_rd - m->issue_base;
	if (w.v & 0x8000u || len > BH_CQ_CMDDAT_SIZE || len > m->issue_size) {
		char why[160];
		snprintf(why, sizeof why, "prefetch_q[%u] = 0x%04x: %s", p->q_idx, w.v,
			 w.v & 0x8000u ? "the exec-buf stall flag (bit 15) is not modelled"
				       : "the record is larger than cmddat_q (256 KiB) or the issue ring");
		return bh_cqm_fail(m, BH_CQ_PREFETCH, NULL, "", 0, -1, "%s", why);
	}
	if (p->pcie_rd + len > m->issue_base + m->issue_size)
		p->pcie_rd = m->issue_base;
	p->fetch_ring_off = p->pcie_rd - m->issue_base;
	p->fetch_len = len;
	bool snap = pf_record_snapshot(p, len);
	/* A slow prefetcher: the slot announced a record the host may overwrite if it does not
	 * track the read pointer (races.md 28). */
	bh_cqm_provoke(m, BH_CQ_PREFETCH, BH_PROVOKE_PREFETCH_SLOW, BH_PROVOKE_FETCH_MAX_NS);
	if (!bh_cqm_noc_read(m, BH_CQ_PREFETCH, PF_NOC, bh_cqm_pcie_xy(), PCIE_MID, p->pcie_rd, BH_CQ_CMDDAT_Q, len,
			     &p->f))
		return pf_noc_fail(p, -1);
	if (snap && !pf_record_unchanged(p, w.v, len))
		return false;
	/* The record is in cmddat_q: free the slot and the ring bytes (host reads both). */
	uint16_t was = w.v;
	if (!__atomic_compare_exchange_n((uint16_t *)(t->l1 + slot), &was, 0, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
	    !pf_slot_overwritten(p, w.v, was))
		return false;
	bh_tile_l1_written(t, slot, 2);
	p->q_idx = (p->q_idx + 1) % BH_CQ_PREFETCH_Q_ENTRIES;
	p->pcie_rd += len;
	bh_cqm_l1_st(m, BH_CQ_PREFETCH, BH_CQ_PREFETCH_Q_RD_PTR, BH_CQ_PREFETCH_Q + 2 * p->q_idx);
	__atomic_store_n((uint32_t *)(t->l1 + BH_CQ_PCIE_RD_PTR), p->pcie_rd, __ATOMIC_RELEASE);
	bh_tile_l1_written(t, BH_CQ_PCIE_RD_PTR, 4);
	bh_cqm_host_wake(m);
	return true;
}

void bh_cq_prefetch_run(struct bh_cq_model *m)
{
	struct pf p = { .m = m, .pcie_rd = bh_cqm_l1_ld(m, BH_CQ_PREFETCH, BH_CQ_PCIE_RD_PTR) };
	bool done = false;
	if (bh_checks_on(&m->chip->checks, BH_CHECK_CQ_RECORD_CHANGED))
		p.snap = malloc(BH_CQ_CMDDAT_SIZE);   /* NULL: the check is skipped */
	while (!done && pf_fetch(&p)) {
		uint32_t stride = 0;
		for (p.cmd_off = 0; p.cmd_off < p.fetch_len && !done; p.cmd_off += stride)
			if (!pf_command(&p, &stride, &done))
				goto out;
	}
out:
	free(p.snap);
}
