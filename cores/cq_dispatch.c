/* The dispatcher (DISPATCH_HD, fast-dispatch.md 4.2, 5, 7, 8): reads commands from its CB as the
 * prefetcher's credits arrive, executes them with NoC writes to workers, DRAM and host memory,
 * counts worker completions in stream 48, writes host completions into the completion ring and
 * returns CB pages to the prefetcher a block at a time. */
#include <stdio.h>
#include <string.h>

#include "cores/cq_model.h"
#include "fabric/chip.h"
#include "fabric/noc.h"
#include "fabric/tile.h"
#include "fabric/wallclock.h"
#include "sync/streams.h"
#include "sync/watch.h"

#define DP_NOC 1u                 /* downstream (workers, DRAM, PCIe) */
#define DP_UP_NOC 0u              /* upstream: credits to the prefetcher */
#define BLOCK_BYTES (BH_CQ_DISPATCH_CB_SIZE / BH_CQ_DISPATCH_CB_BLOCKS)
#define STREAM_MASK 0x1FFFFu

struct dp {
	struct bh_cq_model *m;
	uint64_t cmd_off;             /* free-running CB offset of the command being executed */
	uint64_t unit_end;            /* end of the relay unit it came in, 0 = not yet known */
	uint32_t unit_tail;
	uint32_t released_blocks;     /* free-running */
	uint32_t write_offset[BH_CQ_WRITE_OFFSETS];
	uint32_t go_words[BH_CQ_GO_NOC_DATA_MAX];
	unsigned n_go;
	unsigned num_worker_sems;
	uint32_t cq_wr;               /* completion write pointer: 16-B units | toggle << 31 */
	const char *cmd;
	struct bh_fault f;
	char why[200];
};

static bool dp_fail(struct dp *d, int field, const char *why)
{
	return bh_cqm_fail(d->m, BH_CQ_DISPATCH, d->cmd, "dispatch CB",
			   d->cmd_off % BH_CQ_DISPATCH_CB_SIZE, field, "%s", why);
}

static bool dp_noc_fail(struct dp *d, int field)
{
	return bh_cqm_fail(d->m, BH_CQ_DISPATCH, d->cmd, "dispatch CB", d->cmd_off % BH_CQ_DISPATCH_CB_SIZE, field,
			   "NoC request refused: %s: %s", d->f.region, d->f.detail);
}

/* ---- Reading the CB ----------------------------------------------------------------------------- */

struct data_wait {
	struct dp *d;
	uint64_t end;
	bool past_unit;
};

static uint64_t dp_avail(struct dp *d)
{
	uint64_t v = (uint64_t)bh_cqm_l1_ld(d->m, BH_CQ_DISPATCH, d->m->sem_base + 16 * BH_CQ_SEM_DISPATCH_CB) * BH_CQ_PAGE;
	/* Pages seen here come after any unit end published before them (pairs with pf_release). */
	atomic_thread_fence(memory_order_acquire);
	return v;
}

/* The end of the relay unit the current command started in, once the prefetcher published it. */
static void dp_find_unit(struct dp *d)
{
	struct bh_cq_model *m = d->m;
	uint32_t head = atomic_load_explicit(&m->unit_head, memory_order_acquire);   /* pairs with pf_release */
	while (!d->unit_end && d->unit_tail != head) {
		uint64_t e = atomic_load_explicit(&m->unit_end[d->unit_tail % BH_CQ_UNIT_RING], memory_order_relaxed);
		if (e > d->cmd_off)
			d->unit_end = e;
		else
			d->unit_tail++;
	}
}

static bool data_ready(void *arg)
{
	struct data_wait *w = arg;
	bool here = dp_avail(w->d) >= w->end;
	dp_find_unit(w->d);
	if (w->d->unit_end && w->end > w->d->unit_end) {
		w->past_unit = true;
		return true;
	}
	return here;
}

/* "truncated command: WRITE_LINEAR needs 32 bytes, its relay carried 16 (...)" */
static bool dp_truncated(struct dp *d, uint64_t end, int field)
{
	snprintf(d->why, sizeof d->why, "truncated command: %s needs %llu bytes, but its relay carried %llu (the "
		 "command runs past what was relayed)", d->cmd ? d->cmd : "the command",
		 (unsigned long long)(end - d->cmd_off), (unsigned long long)(d->unit_end - d->cmd_off));
	return dp_fail(d, field, d->why);
}

/* Wait until the CB holds every byte before `end` (free-running offset), all of them relayed
 * for the command at cmd_off (to the byte: the end of its relay unit, once known). */
static bool dp_need(struct dp *d, uint64_t end, int field)
{
	struct data_wait w = { d, end, false };
	uint32_t a = d->m->sem_base + 16 * BH_CQ_SEM_DISPATCH_CB;
	uint32_t pages = (uint32_t)((end + BH_CQ_PAGE - 1) / BH_CQ_PAGE);
	struct bh_cqm_block b = { BH_CQW_DATA, a, pages, 0 };
	char what[160];
	snprintf(what, sizeof what, "dispatch-CB data: MY_DISPATCH_CB_SEM (L1 0x%x) >= %u pages", a, pages);
	if (!bh_cqm_wait(d->m, BH_CQ_DISPATCH, &a, 1, data_ready, &w, what, &b))
		return false;
	return w.past_unit ? dp_truncated(d, end, field) : true;
}

static bool dp_copy(struct dp *d, uint64_t off, void *dst, uint32_t n, int field)
{
	if (!dp_need(d, off + n, field))
		return false;
	uint8_t *o = dst;
	while (n) {
		uint32_t pos = (uint32_t)(off % BH_CQ_DISPATCH_CB_SIZE), k = BH_CQ_DISPATCH_CB_SIZE - pos;
		k = k < n ? k : n;
		bh_tile_l1_read(d->m->tile[BH_CQ_DISPATCH], BH_CQ_DISPATCH_CB + pos, o, k);
		o += k;
		off += k;
		n -= k;
	}
	return true;
}

/* Return every whole block below `off` to the prefetcher (NoC increment of its credits). */
static bool dp_release(struct dp *d, uint64_t off)
{
	struct bh_cq_model *m = d->m;
	uint32_t blocks = (uint32_t)(off / BLOCK_BYTES);
	while (d->released_blocks != blocks) {
		if (!bh_cqm_noc_inc(m, BH_CQ_DISPATCH, DP_UP_NOC, bh_cqm_xy(m, BH_CQ_PREFETCH),
				    m->sem_base + 16 * BH_CQ_SEM_DOWNSTREAM_CB, BH_CQ_DISPATCH_CB_PAGES / BH_CQ_DISPATCH_CB_BLOCKS,
				    &d->f))
			return dp_noc_fail(d, -1);
		d->released_blocks++;
	}
	return true;
}

/* The next piece of [off, off + len) that sits contiguously in L1: at most to the end of the ring
 * and of what arrived, at least one page or the rest. */
static bool dp_chunk(struct dp *d, uint64_t off, uint32_t len, uint32_t *src, uint32_t *n, int field)
{
	uint32_t to_page = BH_CQ_PAGE - (uint32_t)(off % BH_CQ_PAGE);
	if (!dp_need(d, off + (len < to_page ? len : to_page), field))
		return false;
	uint64_t avail = dp_avail(d) - off;
	dp_find_unit(d);
	uint32_t pos = (uint32_t)(off % BH_CQ_DISPATCH_CB_SIZE), k = BH_CQ_DISPATCH_CB_SIZE - pos;
	k = k < len ? k : len;
	*n = avail < k ? (uint32_t)avail : k;
	/* Pages past the unit's end may hold the next unit: the command must not run into them. */
	if (d->unit_end && off + *n > d->unit_end)
		return dp_truncated(d, off + len, field);
	*src = BH_CQ_DISPATCH_CB + pos;
	return true;
}

/* NoC-write len bytes starting at CB offset off to (hi, mid, lo), chunk by chunk. stream: the
 * data is read once, in order, so blocks behind it go back to the prefetcher as it goes (long
 * relays need that: they can be larger than the CB). */
static bool dp_write_out(struct dp *d, uint64_t off, uint32_t len, uint32_t hi, uint32_t mid, uint32_t lo, bool mcast,
			 bool stream, int field)
{
	while (len) {
		uint32_t src, n;
		if (!dp_chunk(d, off, len, &src, &n, field))
			return false;
		if (!bh_cqm_noc_write(d->m, BH_CQ_DISPATCH, DP_NOC, src, hi, mid, lo, n, mcast, &d->f))
			return dp_noc_fail(d, field);
		off += n;
		lo += n;
		len -= n;
		if (stream && !dp_release(d, off))
			return false;
	}
	return true;
}

/* ---- Checks made before a command writes anything ---------------------------------------------- */

/* The command's len bytes were relayed, as far as the end of its relay unit is known yet. */
static bool dp_check_relayed(struct dp *d, uint64_t len, int field)
{
	dp_find_unit(d);
	return d->unit_end && d->cmd_off + len > d->unit_end ? dp_truncated(d, d->cmd_off + len, field) : true;
}

/* A command that is not streamed holds all its bytes in the dispatch CB at once: pages come back
 * to the prefetcher only after it, so they must fit what the CB can hold from its block on. */
static bool dp_check_fits_cb(struct dp *d, uint64_t len, int field)
{
	uint64_t room = BH_CQ_DISPATCH_CB_SIZE - d->cmd_off % BLOCK_BYTES;
	if (len <= room)
		return true;
	snprintf(d->why, sizeof d->why, "%s needs its %llu bytes in the dispatch CB at once (it is not streamed), but the "
		 "512 KiB CB holds at most %llu from this command's block on: it would wait for itself forever",
		 d->cmd, (unsigned long long)len, (unsigned long long)room);
	return dp_fail(d, field, d->why);
}

static bool dp_check_dest(struct dp *d, uint32_t hi, uint32_t mid, uint32_t lo, uint64_t len, bool mcast, int field)
{
	char why[sizeof d->why - 64];
	if (bh_cqm_dest_allowed(d->m, DP_NOC, hi, mid, lo, len, mcast, why, sizeof why))
		return true;
	snprintf(d->why, sizeof d->why, "%s: the CQ cores' own code and state are not a destination", why);
	return dp_fail(d, field, d->why);
}

/* ---- Commands ----------------------------------------------------------------------------------- */

static uint32_t get32(const uint8_t *h, enum bh_cq_field_id f)
{
	return (uint32_t)bh_cq_get(h, f);
}

static bool dp_write_linear(struct dp *d, const uint8_t *h, uint64_t *len)
{
	uint32_t idx = get32(h, BH_CQF_D_WRITE_LINEAR_write_offset_index);
	uint64_t addr = bh_cq_get(h, BH_CQF_D_WRITE_LINEAR_addr), n = bh_cq_get(h, BH_CQF_D_WRITE_LINEAR_length);
	bool mcast = get32(h, BH_CQF_D_WRITE_LINEAR_num_mcast_dests) != 0;
	if (idx >= BH_CQ_WRITE_OFFSETS)
		return dp_fail(d, BH_CQF_D_WRITE_LINEAR_write_offset_index, "at most 4 write offsets (SET_WRITE_OFFSET)");
	if (n >> 32)
		return dp_fail(d, BH_CQF_D_WRITE_LINEAR_length, "4 GiB or more is not modelled");
	addr += d->write_offset[idx];
	*len = 32 + n;
	if (!dp_check_relayed(d, *len, BH_CQF_D_WRITE_LINEAR_length) ||
	    !dp_check_dest(d, get32(h, BH_CQF_D_WRITE_LINEAR_noc_xy_addr), (uint32_t)(addr >> 32), (uint32_t)addr, n, mcast,
			   BH_CQF_D_WRITE_LINEAR_addr))
		return false;
	return dp_write_out(d, d->cmd_off + 32, (uint32_t)n, get32(h, BH_CQF_D_WRITE_LINEAR_noc_xy_addr),
			    (uint32_t)(addr >> 32), (uint32_t)addr, mcast, true, BH_CQF_D_WRITE_LINEAR_addr);
}

/* ---- Completion ring (process_write_host_h) ---- */

struct cq_space {
	struct dp *d;
	uint32_t units;
	bool passed;              /* cq-completion-rd: the host's read pointer passed the write pointer */
	uint32_t rd;
};

static bool completion_space(void *arg)
{
	struct cq_space *s = arg;
	struct bh_cq_model *m = s->d->m;
	uint32_t rd = bh_cqm_l1_ld(m, BH_CQ_DISPATCH, BH_CQ_COMPLETION_RD_PTR), wr = s->d->cq_wr;
	uint32_t r16 = rd & 0x7FFFFFFFu, w16 = wr & 0x7FFFFFFFu, size16 = m->completion_size >> 4;
	/* Same toggle: the host reads behind the dispatcher (r <= w); toggles differ: the dispatcher
	 * wrapped, the host has not (r >= w). Anything else: the host read what was never written. */
	s->rd = rd;
	s->passed = (rd ^ wr) >> 31 ? r16 < w16 : r16 > w16;
	if (s->passed && bh_checks_on(&m->chip->checks, BH_CHECK_CQ_COMPLETION_RD))
		return true;   /* reported by the waiter */
	uint32_t free16 = (rd ^ wr) >> 31 ? r16 - w16 : size16 - (w16 - r16);
	return free16 >= s->units;
}

/* cq-completion-rd (races.md #31). */
static bool dp_completion_rd_passed(struct dp *d, uint32_t rd)
{
	struct bh_cq_model *m = d->m;
	struct bh_fault f;
	bh_check_fill(&f, BH_CHECK_CQ_COMPLETION_RD, BH_CQ_COMPLETION_RD_PTR, "COMPLETION_Q_RD (dispatch core L1)",
		      "the host, writing its completion read pointer",
		      "the host's completion read pointer 0x%08x (16-byte unit 0x%x, toggle %u) is past the dispatcher's write "
		      "pointer 0x%08x (unit 0x%x, toggle %u): it consumed completion data never written (compare pointer "
		      "and toggle; advance by the pages read)", rd, rd & 0x7FFFFFFFu, rd >> 31, d->cq_wr,
		      d->cq_wr & 0x7FFFFFFFu, d->cq_wr >> 31);
	f.has_addr = true;
	struct bh_tile *t = m->tile[BH_CQ_DISPATCH];
	if (!bh_check_found(&m->chip->checks, t->index, BH_BRISC, &f))
		return true;
	return bh_cqm_fail(m, BH_CQ_DISPATCH, NULL, "", 0, -1, "check %s: %s (other: %s)",
			   bh_check_name(BH_CHECK_CQ_COMPLETION_RD), f.detail, f.other);
}

static bool dp_completion_push(struct dp *d, uint32_t src, uint32_t n)
{
	struct bh_cq_model *m = d->m;
	uint32_t pages = (n + BH_CQ_PAGE - 1) / BH_CQ_PAGE;
	struct cq_space s = { d, pages * (BH_CQ_PAGE >> 4), false, 0 };
	uint32_t a = BH_CQ_COMPLETION_RD_PTR;
	if (!bh_cqm_wait(m, BH_CQ_DISPATCH, &a, 1, completion_space, &s,
			 "completion-ring space: the host's read pointer (L1 0x196e0)", NULL))
		return false;
	if (s.passed && bh_checks_on(&m->chip->checks, BH_CHECK_CQ_COMPLETION_RD) && !dp_completion_rd_passed(d, s.rd))
		return false;
	uint32_t addr = (d->cq_wr & 0x7FFFFFFFu) << 4, end = m->completion_base + m->completion_size;
	uint32_t first = end - addr < n ? end - addr : n;
	const uint32_t mid = 1u << 28;
	if (!bh_cqm_noc_write(m, BH_CQ_DISPATCH, DP_NOC, src, bh_cqm_pcie_xy(), mid, addr, first, false, &d->f) ||
	    (n > first && !bh_cqm_noc_write(m, BH_CQ_DISPATCH, DP_NOC, src + first, bh_cqm_pcie_xy(), mid,
					    m->completion_base, n - first, false, &d->f)))
		return dp_noc_fail(d, BH_CQF_D_WRITE_LINEAR_H_HOST_length);
	uint32_t w16 = (d->cq_wr & 0x7FFFFFFFu) + s.units, toggle = d->cq_wr >> 31;
	if (w16 >= end >> 4) {
		w16 -= m->completion_size >> 4;
		toggle ^= 1;
	}
	d->cq_wr = w16 | toggle << 31;
	bh_cqm_l1_st(m, BH_CQ_DISPATCH, BH_CQ_COMPLETION_WR_PTR, d->cq_wr);
	if (!bh_cqm_noc_write(m, BH_CQ_DISPATCH, DP_NOC, BH_CQ_COMPLETION_WR_PTR, bh_cqm_pcie_xy(), mid,
			      m->host_base + BH_CQ_HOST_COMPLETION_WR, 4, false, &d->f))
		return dp_noc_fail(d, -1);
	bh_cqm_host_wake(m);
	return true;
}

static bool dp_write_host(struct dp *d, const uint8_t *h, uint64_t *len)
{
	uint64_t n = bh_cq_get(h, BH_CQF_D_WRITE_LINEAR_H_HOST_length);
	if (n < 16 || n >> 32)
		return dp_fail(d, BH_CQF_D_WRITE_LINEAR_H_HOST_length, "must count the 16-byte header and stay below 4 GiB");
	*len = n;
	if (!dp_check_relayed(d, n, BH_CQF_D_WRITE_LINEAR_H_HOST_length))
		return false;
	/* The header goes too: the host parses it. Chunks are whole pages but the last. */
	for (uint64_t off = d->cmd_off; n;) {
		uint32_t src, k;
		if (!dp_chunk(d, off, (uint32_t)n, &src, &k, BH_CQF_D_WRITE_LINEAR_H_HOST_length))
			return false;
		if (k > d->m->completion_size)
			k = d->m->completion_size;
		if (k < n && k % BH_CQ_PAGE)
			k -= k % BH_CQ_PAGE;
		if (!dp_completion_push(d, src, k))
			return false;
		off += k;
		n -= k;
		if (!dp_release(d, off))
			return false;
	}
	return true;
}

static bool dp_write_paged(struct dp *d, const uint8_t *h, uint64_t *len)
{
	bool dram = get32(h, BH_CQF_D_WRITE_PAGED_is_dram);
	uint32_t start = get32(h, BH_CQF_D_WRITE_PAGED_start_page), base = get32(h, BH_CQF_D_WRITE_PAGED_base_addr);
	uint32_t ps = get32(h, BH_CQF_D_WRITE_PAGED_page_size), pages = get32(h, BH_CQF_D_WRITE_PAGED_pages);
	if (!ps)
		return dp_fail(d, BH_CQF_D_WRITE_PAGED_page_size, "0");
	*len = 16 + (uint64_t)ps * pages;
	if (!dp_check_relayed(d, *len, BH_CQF_D_WRITE_PAGED_pages))
		return false;
	for (uint32_t k = 0, hi, lo; k < pages; k++)
		if (!bh_cqm_bank_page(d->m, DP_NOC, dram, base, ps, start + k, &hi, &lo))
			return dp_fail(d, BH_CQF_D_WRITE_PAGED_is_dram, "no banks of that kind");
		else if (!dp_check_dest(d, hi, 0, lo, ps, false, BH_CQF_D_WRITE_PAGED_base_addr))
			return false;
	uint64_t off = d->cmd_off + 16;
	for (uint32_t k = 0; k < pages; k++, off += ps) {
		uint32_t hi, lo;
		bh_cqm_bank_page(d->m, DP_NOC, dram, base, ps, start + k, &hi, &lo);
		if (!dp_write_out(d, off, ps, hi, 0, lo, false, true, BH_CQF_D_WRITE_PAGED_base_addr))
			return false;
	}
	return true;
}

static bool dp_write_packed(struct dp *d, const uint8_t *h, uint64_t *len)
{
	uint32_t flags = get32(h, BH_CQF_D_WRITE_PACKED_flags), count = get32(h, BH_CQF_D_WRITE_PACKED_count);
	uint32_t idx = get32(h, BH_CQF_D_WRITE_PACKED_write_offset_index), size = get32(h, BH_CQF_D_WRITE_PACKED_size);
	bool mcast = flags & BH_CQ_PACKED_MCAST, stride = !(flags & BH_CQ_PACKED_NO_STRIDE);
	unsigned sub = mcast ? 8 : 4;
	if (count == 0 || count > BH_CQ_PACKED_MAX_UNICAST) {
		snprintf(d->why, sizeof d->why, "%u sub-commands: between 1 and %u (PACKED_WRITE_MAX_UNICAST_SUB_CMDS)",
			 count, BH_CQ_PACKED_MAX_UNICAST);
		return dp_fail(d, BH_CQF_D_WRITE_PACKED_count, d->why);
	}
	if (idx >= BH_CQ_WRITE_OFFSETS)
		return dp_fail(d, BH_CQF_D_WRITE_PACKED_write_offset_index, "at most 4 write offsets");
	if (size == 0)
		return dp_fail(d, BH_CQF_D_WRITE_PACKED_size, "0 bytes");
	uint32_t data = 16 + ((count * sub + 15) & ~15u), block = (size + 15) & ~15u;
	uint32_t addr = get32(h, BH_CQF_D_WRITE_PACKED_addr) + d->write_offset[idx];
	*len = data + (uint64_t)block * (stride ? count : 1);
	uint8_t subs[BH_CQ_PACKED_MAX_UNICAST * 8];
	if (!dp_check_fits_cb(d, *len, BH_CQF_D_WRITE_PACKED_size) ||
	    !dp_check_relayed(d, *len, BH_CQF_D_WRITE_PACKED_size) ||
	    !dp_copy(d, d->cmd_off + 16, subs, count * sub, BH_CQF_D_WRITE_PACKED_count) ||
	    !dp_need(d, d->cmd_off + *len, BH_CQF_D_WRITE_PACKED_size))
		return false;
	for (uint32_t i = 0; i < count; i++)
		if (!dp_check_dest(d, (uint32_t)bh_cq_get(subs + sub * i, mcast ? BH_CQF_S_PACKED_MCAST_noc_xy
										: BH_CQF_S_PACKED_UNICAST_noc_xy),
				   0, addr, size, mcast, BH_CQF_D_WRITE_PACKED_addr))
			return false;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t xy = (uint32_t)bh_cq_get(subs + sub * i, mcast ? BH_CQF_S_PACKED_MCAST_noc_xy : BH_CQF_S_PACKED_UNICAST_noc_xy);
		uint64_t src = d->cmd_off + data + (stride ? (uint64_t)block * i : 0);
		if (!dp_write_out(d, src, size, xy, 0, addr, mcast, false, BH_CQF_D_WRITE_PACKED_addr))
			return false;
	}
	return true;
}

static bool dp_write_packed_large(struct dp *d, const uint8_t *h, uint64_t *len)
{
	uint32_t count = get32(h, BH_CQF_D_WRITE_PACKED_LARGE_count), align = get32(h, BH_CQF_D_WRITE_PACKED_LARGE_alignment);
	uint32_t idx = get32(h, BH_CQF_D_WRITE_PACKED_LARGE_write_offset_index);
	if (count == 0 || count > BH_CQ_PACKED_LARGE_MAX)
		return dp_fail(d, BH_CQF_D_WRITE_PACKED_LARGE_count, "between 1 and 35 sub-commands");
	if (align < 16 || (align & (align - 1)) || align > BH_CQ_PAGE)
		return dp_fail(d, BH_CQF_D_WRITE_PACKED_LARGE_alignment, "a power of two from 16 to 4096");
	if (idx >= BH_CQ_WRITE_OFFSETS)
		return dp_fail(d, BH_CQF_D_WRITE_PACKED_LARGE_write_offset_index, "at most 4 write offsets");
	uint8_t subs[BH_CQ_PACKED_LARGE_MAX * 12];
	uint64_t first = 16 + ((count * 12 + 15) & ~15u), total = first;
	if (!dp_check_relayed(d, first, BH_CQF_D_WRITE_PACKED_LARGE_count) ||
	    !dp_copy(d, d->cmd_off + 16, subs, count * 12, BH_CQF_D_WRITE_PACKED_LARGE_count))
		return false;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *s = subs + 12 * i;
		uint32_t n = (uint32_t)bh_cq_get(s, BH_CQF_S_PACKED_LARGE_length_minus1) + 1;
		if (!dp_check_dest(d, (uint32_t)bh_cq_get(s, BH_CQF_S_PACKED_LARGE_noc_xy_addr), 0,
				   (uint32_t)bh_cq_get(s, BH_CQF_S_PACKED_LARGE_addr) + d->write_offset[idx], n,
				   bh_cq_get(s, BH_CQF_S_PACKED_LARGE_num_mcast_dests) != 0, BH_CQF_S_PACKED_LARGE_addr))
			return false;
		total += (n + align - 1) & ~(uint64_t)(align - 1);
	}
	*len = total;
	if (!dp_check_fits_cb(d, total, BH_CQF_D_WRITE_PACKED_LARGE_count) ||
	    !dp_check_relayed(d, total, BH_CQF_D_WRITE_PACKED_LARGE_count) ||
	    !dp_need(d, d->cmd_off + total, BH_CQF_D_WRITE_PACKED_LARGE_count))
		return false;
	uint64_t off = d->cmd_off + first;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *s = subs + 12 * i;
		uint32_t n = (uint32_t)bh_cq_get(s, BH_CQF_S_PACKED_LARGE_length_minus1) + 1;
		bool mcast = bh_cq_get(s, BH_CQF_S_PACKED_LARGE_num_mcast_dests) != 0;
		if (!dp_write_out(d, off, n, (uint32_t)bh_cq_get(s, BH_CQF_S_PACKED_LARGE_noc_xy_addr), 0,
				  (uint32_t)bh_cq_get(s, BH_CQF_S_PACKED_LARGE_addr) + d->write_offset[idx], mcast,
				  false, BH_CQF_S_PACKED_LARGE_addr))
			return false;
		off += (n + align - 1) & ~(uint64_t)(align - 1);
	}
	*len = off - d->cmd_off;
	return true;
}

/* ---- WAIT and the go signal ---- */

struct stream_wait {
	struct dp *d;
	unsigned stream;
	uint32_t count;
};

static bool stream_ready(void *arg)
{
	struct stream_wait *w = arg;
	uint32_t v = bh_stream_read(w->d->m->tile[BH_CQ_DISPATCH], w->stream, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE);
	return bh_watch_counter_reached(v, w->count, 17);   /* stream_wrap_ge on 17 bits */
}

static bool dp_wait_stream(struct dp *d, unsigned stream, uint32_t count)
{
	struct stream_wait w = { d, stream, count & STREAM_MASK };
	uint32_t a = BH_STREAM_ADDR(stream, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE);
	char what[128];
	snprintf(what, sizeof what, "worker completions: stream %u reg 297 >= %u", stream, count);
	/* Each worker's completion increments the counter: wake at the count, not at each. */
	const struct bh_cqm_until until = { count & STREAM_MASK, 17 };
	return bh_cqm_wait_count(d->m, BH_CQ_DISPATCH, a, &until, stream_ready, &w, what);
}

static void dp_clear_stream(struct dp *d, unsigned stream)
{
	struct bh_tile *t = d->m->tile[BH_CQ_DISPATCH];
	uint32_t v = bh_stream_read(t, stream, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE);
	bh_stream_write(t, stream, BH_STREAM_REG_REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE, (uint32_t)-v << 6);
}

struct mem_wait {
	struct dp *d;
	uint32_t addr, count;
};

static bool mem_ready(void *arg)
{
	struct mem_wait *w = arg;
	return bh_cq_wrap_ge(bh_cqm_l1_ld(w->d->m, BH_CQ_DISPATCH, w->addr), w->count);
}

static bool dp_wait(struct dp *d, const uint8_t *h)
{
	uint32_t flags = get32(h, BH_CQF_D_WAIT_flags), stream = get32(h, BH_CQF_D_WAIT_stream);
	uint32_t addr = get32(h, BH_CQF_D_WAIT_addr), count = get32(h, BH_CQF_D_WAIT_count);
	struct bh_cq_model *m = d->m;
	if (flags & ~0x1Fu)
		return dp_fail(d, BH_CQF_D_WAIT_flags, "unknown flag bits (0x01 barrier .. 0x10 clear stream)");
	if ((flags & (BH_CQ_WAIT_STREAM | BH_CQ_WAIT_CLEAR_STREAM)) && stream >= BH_STREAM_COUNT)
		return dp_fail(d, BH_CQF_D_WAIT_stream, "a tile has streams 0..63");
	if ((flags & BH_CQ_WAIT_MEMORY) && (addr % 4 || addr > 0x180000u - 4))
		return dp_fail(d, BH_CQF_D_WAIT_addr, "must be a 4-byte aligned L1 word of the dispatch core");
	/* BARRIER: every NoC write of this model completed when it was issued (synchronous NoC). */
	if (flags & BH_CQ_WAIT_MEMORY) {
		struct mem_wait w = { d, addr, count };
		char what[96];
		snprintf(what, sizeof what, "WAIT_MEMORY: L1 0x%x >= %u (wrapping compare)", addr, count);
		if (!bh_cqm_wait(m, BH_CQ_DISPATCH, &addr, 1, mem_ready, &w, what, NULL))
			return false;
	}
	if ((flags & BH_CQ_WAIT_STREAM) && !dp_wait_stream(d, stream, count))
		return false;
	if (flags & BH_CQ_WAIT_CLEAR_STREAM)
		dp_clear_stream(d, stream);
	/* Last, not in flag-bit order: the prefetcher's STALL must not end before the waits did
	 * (process_wait notifies after them; fast-dispatch.md 4.2 lists the flags by bit). */
	if ((flags & BH_CQ_WAIT_NOTIFY_PREFETCH) &&
	    !bh_cqm_noc_inc(m, BH_CQ_DISPATCH, DP_UP_NOC, bh_cqm_xy(m, BH_CQ_PREFETCH),
			    m->sem_base + 16 * BH_CQ_SEM_DOWNSTREAM_SYNC, 1, &d->f))
		return dp_noc_fail(d, BH_CQF_D_WAIT_flags);
	return true;
}

/* cb-reset-window at a fast-dispatch launch (races.md #5): a worker's kernels start on the CB
 * counters it holds when its GO arrives; each worker the go signal is about to reach is judged as
 * slow dispatch judges its tiles at GO. The other signals (RESET_READ_PTR, ...) start nothing. */
static void dp_cb_launch_check(struct dp *d, uint32_t go, bool mcast, uint32_t first, uint32_t n)
{
	struct bh_cq_model *m = d->m;
	struct bh_chip *c = m->chip;
	if (go >> 24 != BH_CQ_RUN_MSG_GO || !bh_checks_on(&c->checks, BH_CHECK_CB_RESET_WINDOW))
		return;
	bool hit[c->topo.ntiles];
	memset(hit, 0, sizeof hit);
	for (uint32_t i = 0; i < n; i++) {
		struct bh_tile *t = bh_noc_unicast_tile(c, d->go_words[first + i]);
		if (t)
			hit[t->index] = true;
	}
	for (unsigned k = 0; k < c->topo.ntiles; k++) {
		struct bh_tile *t = c->tiles[k];
		if (t != m->tile[BH_CQ_PREFETCH] && t != m->tile[BH_CQ_DISPATCH] &&
		    (hit[k] || (mcast && bh_noc_write_reaches(m->tile[BH_CQ_DISPATCH], DP_NOC, m->go_mcast_grid, true, t))))
			bh_stream_cb_launch_check(t, true);
	}
}

static bool dp_send_go(struct dp *d, const uint8_t *h)
{
	struct bh_cq_model *m = d->m;
	uint32_t go = get32(h, BH_CQF_D_SEND_GO_SIGNAL_go_signal), stream = get32(h, BH_CQF_D_SEND_GO_SIGNAL_wait_stream);
	uint32_t n = get32(h, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns);
	uint32_t first = get32(h, BH_CQF_D_SEND_GO_SIGNAL_noc_data_start_index);
	if (stream >= BH_STREAM_COUNT)
		return dp_fail(d, BH_CQF_D_SEND_GO_SIGNAL_wait_stream, "a tile has streams 0..63");
	uint32_t mcast_off = get32(h, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset);
	if (mcast_off != BH_CQ_GO_NO_MCAST && !m->go_mcast_grid)
		return dp_fail(d, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset,
			       "no worker multicast grid was configured (bh_cq_config.go_mcast_grid: the reference's "
			       "WORKER_MCAST_GRID is unverified); use 0xff or configure one");
	if (mcast_off != BH_CQ_GO_NO_MCAST && mcast_off >= m->go_count) {
		snprintf(d->why, sizeof d->why, "workers have go_messages[0..%u] (launch.md 6)", m->go_count - 1);
		return dp_fail(d, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, d->why);
	}
	if (first + n > d->n_go) {
		snprintf(d->why, sizeof d->why, "%u unicasts from index %u, but SET_GO_SIGNAL_NOC_DATA stored %u words",
			 n, first, d->n_go);
		return dp_fail(d, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns, d->why);
	}
	if (mcast_off != BH_CQ_GO_NO_MCAST &&
	    !dp_check_dest(d, m->go_mcast_grid, 0, m->go_addr + 4 * mcast_off, 4, true,
			   BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!dp_check_dest(d, d->go_words[first + i], 0, m->go_addr, 4, false,
				   BH_CQF_D_SEND_GO_SIGNAL_noc_data_start_index))
			return false;
	if (!dp_wait_stream(d, stream, get32(h, BH_CQF_D_SEND_GO_SIGNAL_wait_count)))
		return false;
	dp_cb_launch_check(d, go, mcast_off != BH_CQ_GO_NO_MCAST, first, n);
	bh_cqm_l1_st(m, BH_CQ_DISPATCH, BH_CQ_DISPATCH_SCRATCH, go);
	/* fast-dispatch.md 4: the multicast to the worker grid first, then the unicast list. L1 to
	 * L1 writes keep the low 4 address bits, so the word is staged at the same offset. */
	if (mcast_off != BH_CQ_GO_NO_MCAST) {
		uint32_t dst = m->go_addr + 4 * mcast_off, src = BH_CQ_DISPATCH_SCRATCH + 16 + (dst & 15);
		bh_cqm_l1_st(m, BH_CQ_DISPATCH, src, go);
		if (!bh_cqm_noc_write(m, BH_CQ_DISPATCH, DP_NOC, src, m->go_mcast_grid, 0, dst, 4, true, &d->f))
			return dp_noc_fail(d, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset);
	}
	for (uint32_t i = 0; i < n; i++)
		if (!bh_cqm_noc_write(m, BH_CQ_DISPATCH, DP_NOC, BH_CQ_DISPATCH_SCRATCH, d->go_words[first + i], 0,
				      m->go_addr, 4, false, &d->f))
			return dp_noc_fail(d, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words);
	return true;
}

static bool dp_timestamp(struct dp *d, const uint8_t *h)
{
	uint64_t addr = bh_cq_get(h, BH_CQF_D_TIMESTAMP_addr), now = bh_wallclock_ticks();
	uint32_t src = BH_CQ_DISPATCH_SCRATCH + 16 + ((uint32_t)addr & 15);
	if ((addr & 15) > 8)
		return dp_fail(d, BH_CQF_D_TIMESTAMP_addr, "the 8-byte stamp must not cross a 16-byte boundary");
	if (!dp_check_dest(d, get32(h, BH_CQF_D_TIMESTAMP_noc_xy), (uint32_t)(addr >> 32), (uint32_t)addr, 8, false,
			   BH_CQF_D_TIMESTAMP_addr))
		return false;
	bh_cqm_l1_st(d->m, BH_CQ_DISPATCH, src, (uint32_t)now);
	bh_cqm_l1_st(d->m, BH_CQ_DISPATCH, src + 4, (uint32_t)(now >> 32));
	if (!bh_cqm_noc_write(d->m, BH_CQ_DISPATCH, DP_NOC, src, get32(h, BH_CQF_D_TIMESTAMP_noc_xy),
			      (uint32_t)(addr >> 32), (uint32_t)addr, 8, false, &d->f))
		return dp_noc_fail(d, BH_CQF_D_TIMESTAMP_addr);
	return true;
}

/* n little-endian words following the header (SET_WRITE_OFFSET, SET_GO_SIGNAL_NOC_DATA). */
static bool dp_words(struct dp *d, uint32_t *out, uint32_t n, int field)
{
	uint8_t w[4 * BH_CQ_GO_NOC_DATA_MAX];
	if (!dp_copy(d, d->cmd_off + 16, w, 4 * n, field))
		return false;
	for (uint32_t i = 0; i < n; i++)
		out[i] = (uint32_t)w[4 * i] | (uint32_t)w[4 * i + 1] << 8 | (uint32_t)w[4 * i + 2] << 16 |
			 (uint32_t)w[4 * i + 3] << 24;
	return true;
}

/* Executes the command at cmd_off (header in h); *len = its bytes. */
static bool dp_command(struct dp *d, const uint8_t *h, uint64_t *len, bool *done)
{
	struct bh_cq_model *m = d->m;
	*len = bh_cq_dispatch_cmds[h[0]].size;
	switch (h[0]) {
	case BH_CQD_WRITE_LINEAR:
	case BH_CQD_WRITE_LINEAR_H:
		return dp_write_linear(d, h, len);
	case BH_CQD_WRITE_LINEAR_H_HOST:
		return dp_write_host(d, h, len);
	case BH_CQD_WRITE_PAGED:
		return dp_write_paged(d, h, len);
	case BH_CQD_WRITE_PACKED:
		return dp_write_packed(d, h, len);
	case BH_CQD_WRITE_PACKED_LARGE:
		return dp_write_packed_large(d, h, len);
	case BH_CQD_WAIT:
		return dp_wait(d, h);
	case BH_CQD_SINK:
		return true;   /* discards: a test command */
	case BH_CQD_DEBUG:
		if (get32(h, BH_CQF_D_DEBUG_size) > get32(h, BH_CQF_D_DEBUG_stride) ||
		    get32(h, BH_CQF_D_DEBUG_stride) < 16 || get32(h, BH_CQF_D_DEBUG_stride) > BH_CQ_DISPATCH_CB_SIZE / 2)
			return dp_fail(d, BH_CQF_D_DEBUG_size, "size must fit the stride (16 bytes .. half the CB)");
		*len = get32(h, BH_CQF_D_DEBUG_stride);
		return true;
	case BH_CQD_DELAY:
		bh_cqm_sleep(m, BH_CQ_DISPATCH, (uint64_t)get32(h, BH_CQF_D_DELAY_delay) * 1000000000ull / BH_AICLK_HZ);
		return true;
	case BH_CQD_SET_WRITE_OFFSET: {
		uint32_t n = get32(h, BH_CQF_D_SET_WRITE_OFFSET_offset_count);
		if (n > BH_CQ_WRITE_OFFSETS)
			return dp_fail(d, BH_CQF_D_SET_WRITE_OFFSET_offset_count, "at most 4 offsets");
		*len = 16 + 4 * n;
		return dp_words(d, d->write_offset, n, BH_CQF_D_SET_WRITE_OFFSET_offset_count);
	}
	case BH_CQD_TERMINATE:
		*done = true;
		return true;
	case BH_CQD_SEND_GO_SIGNAL:
		return dp_send_go(d, h);
	case BH_CQD_NOTIFY_SUBORDINATE_GO_SIGNAL: {
		uint32_t mask = get32(h, BH_CQF_D_NOTIFY_SUBORDINATE_GO_SIGNAL_index_bitmask);
		if (mask >> BH_CQ_MAX_WORKER_SEMS)
			return dp_fail(d, BH_CQF_D_NOTIFY_SUBORDINATE_GO_SIGNAL_index_bitmask, "dispatch_s has 8 sync words");
		for (unsigned i = 0; i < BH_CQ_MAX_WORKER_SEMS; i++)
			if (mask >> i & 1) {
				uint32_t a = BH_CQ_DISPATCH_S_SYNC + 16 * i;
				bh_cqm_l1_st(m, BH_CQ_DISPATCH, a, bh_cqm_l1_ld(m, BH_CQ_DISPATCH, a) + 1);
			}
		return true;
	}
	case BH_CQD_SET_NUM_WORKER_SEMS: {
		uint32_t n = get32(h, BH_CQF_D_SET_NUM_WORKER_SEMS_num_worker_sems);
		if (n == 0 || n > BH_CQ_MAX_WORKER_SEMS)
			return dp_fail(d, BH_CQF_D_SET_NUM_WORKER_SEMS_num_worker_sems, "between 1 and 8 (MAX_NUM_WORKER_SEMS)");
		d->num_worker_sems = n;
		return true;
	}
	case BH_CQD_SET_GO_SIGNAL_NOC_DATA: {
		uint32_t n = get32(h, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words);
		if (n > BH_CQ_GO_NOC_DATA_MAX)
			return dp_fail(d, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words, "at most 256 words");
		d->n_go = n;
		*len = 16 + 4 * n;
		return dp_words(d, d->go_words, n, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words);
	}
	case BH_CQD_TIMESTAMP:
		return dp_timestamp(d, h);
	default:   /* EXEC_BUF_END */
		return dp_fail(d, -1, "not a command of the HD dispatcher (its prefetcher ends exec buffers itself)");
	}
}

void bh_cq_dispatch_run(struct bh_cq_model *m)
{
	struct dp d = { .m = m, .num_worker_sems = 1 };
	d.cq_wr = bh_cqm_l1_ld(m, BH_CQ_DISPATCH, BH_CQ_COMPLETION_WR_PTR);
	/* reset_worker_completion_stream_counts: streams 48..55 to 0. */
	for (unsigned s = 0; s < BH_CQ_MAX_WORKER_SEMS; s++)
		dp_clear_stream(&d, BH_CQ_STREAM_FIRST + s);
	for (bool done = false; !done;) {
		uint8_t h[32];
		uint64_t len = 0;
		d.cmd = NULL;
		d.unit_end = 0;
		bh_cqm_at(m, BH_CQ_DISPATCH, NULL, "dispatch CB", d.cmd_off % BH_CQ_DISPATCH_CB_SIZE);
		if (!dp_copy(&d, d.cmd_off, h, 1, -1))
			return;
		const struct bh_cq_cmd *c = bh_cq_cmd_find(BH_CQ_FMT_DISPATCH, h[0]);
		if (!c) {
			snprintf(d.why, sizeof d.why, "unknown dispatch command id %u (byte 0)", h[0]);
			dp_fail(&d, -1, d.why);
			return;
		}
		d.cmd = c->name;
		bh_cqm_at(m, BH_CQ_DISPATCH, c->name, "dispatch CB", d.cmd_off % BH_CQ_DISPATCH_CB_SIZE);
		memset(h, 0, sizeof h);
		if (!dp_copy(&d, d.cmd_off, h, c->size, -1))
			return;
		atomic_fetch_add_explicit(&m->cmd_count[BH_CQ_DISPATCH][h[0]], 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&m->commands[BH_CQ_DISPATCH], 1, memory_order_relaxed);
		if (!dp_command(&d, h, &len, &done))
			return;
		/* The whole command must have been relayed (also one whose data it did not read). */
		if (!dp_need(&d, d.cmd_off + len, -1))
			return;
		d.cmd_off = (d.cmd_off + len + BH_CQ_PAGE - 1) / BH_CQ_PAGE * BH_CQ_PAGE;
		if (!dp_release(&d, d.cmd_off))
			return;
	}
}
