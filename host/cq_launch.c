/* Program launch through the command queue (fast-dispatch.md 7): one program lowered to the
 * dispatch commands that write what slow dispatch writes over the host API (launch.md 9-11),
 * with launch messages in DEV mode, then the go signal and the wait for one completion per tile
 * on stream 48. Kernel binaries and CB configs travel only to tiles that do not hold them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/tile.h"
#include "host/cq.h"
#include "host/device.h"
#include "host/trace.h"
#include "host/profile.h"
#include "host/program.h"

#define LAUNCH_NOC 1u      /* brisc_noc_id of the launch messages (blackhole-py) */

struct cq_lower {
	struct bh_cq *cq;
	struct bh_prog_launch *L;
	unsigned *tiles;         /* active tiles in tile order */
	unsigned n;
	uint8_t *cmd;            /* cq->rec + 16: commands are built in place */
};

static uint32_t tile_xy(struct bh_cq *cq, unsigned t)
{
	return cq->dev->tiles[t]->y << 6 | cq->dev->tiles[t]->x;
}

static int push(struct cq_lower *lw, uint32_t len)
{
	return bh_cq_push_dispatch(lw->cq, lw->cmd, len, true);
}

/* WRITE_PACKED of `size` bytes to addr on each of tiles[0..n), data from fill(t, dst) (stride:
 * one block per tile), split into commands of at most 118 sub-commands that fit one record. */
static int packed(struct cq_lower *lw, unsigned type, uint32_t addr, uint32_t size, const unsigned *tiles, unsigned n,
		  void (*fill)(struct cq_lower *, unsigned, uint8_t *))
{
	uint32_t block = (size + 15) & ~15u;
	uint32_t per = (BH_CQ_MAX_INLINE - 16 - 4 * BH_CQ_PACKED_MAX_UNICAST) / block;
	per = per < BH_CQ_PACKED_MAX_UNICAST ? per : BH_CQ_PACKED_MAX_UNICAST;
	if (!per)
		return bh_cq_fail(lw->cq, BH_ERR_ARG, "%u bytes per tile do not fit one WRITE_PACKED record", size);
	for (unsigned i = 0; i < n; i += per) {
		unsigned c = n - i < per ? n - i : per;
		uint32_t data = 16 + ((4 * c + 15) & ~15u);
		uint8_t *h = lw->cmd;
		memset(h, 0, data + (size_t)c * block);
		h[0] = BH_CQD_WRITE_PACKED;
		bh_cq_put(h, BH_CQF_D_WRITE_PACKED_flags, type << BH_CQ_PACKED_TYPE_SHIFT);
		bh_cq_put(h, BH_CQF_D_WRITE_PACKED_count, c);
		bh_cq_put(h, BH_CQF_D_WRITE_PACKED_size, size);
		bh_cq_put(h, BH_CQF_D_WRITE_PACKED_addr, addr);
		for (unsigned k = 0; k < c; k++) {
			bh_cq_put(h + 16 + 4 * k, BH_CQF_S_PACKED_UNICAST_noc_xy, tile_xy(lw->cq, tiles[i + k]));
			fill(lw, tiles[i + k], h + data + k * block);
		}
		int rc = push(lw, data + c * block);
		if (rc != BH_OK)
			return rc;
	}
	return BH_OK;
}

static void fill_args(struct cq_lower *lw, unsigned t, uint8_t *dst)
{
	bh_prog_build_args(lw->L, t);
	memcpy(dst, lw->L->args, bh_prog_args_size(lw->L));
}

static void fill_msg(struct cq_lower *lw, unsigned t, uint8_t *dst)
{
	bh_prog_build_msg(lw->L, t, bh_prog_cb_mask(lw->L, t), LAUNCH_NOC, BH_DISPATCH_MODE_DEV, dst);
}

/* Rectangles covering exactly the marked tiles (logical grid), as NoC1 multicast encodings
 * (NoC1 names the corners the other way round, noc.md 8). Returns how many. */
static unsigned rects(struct bh_cq *cq, bool *set, uint32_t *enc, uint32_t *count, unsigned max)
{
	const struct bh_topology *tp = &cq->dev->chip.topo;
	unsigned n = 0;
	for (unsigned t = 0; t < tp->ntiles && n < max; t++) {
		if (!set[t])
			continue;
		unsigned x0 = t % tp->cols, y0 = t / tp->cols, x1 = x0, y1 = y0;
		while (x1 + 1 < tp->cols && y0 * tp->cols + x1 + 1 < tp->ntiles && set[y0 * tp->cols + x1 + 1])
			x1++;
		for (bool grow = true; grow && y1 + 1 < tp->rows;) {
			for (unsigned x = x0; x <= x1 && grow; x++) {
				unsigned k = (y1 + 1) * tp->cols + x;
				grow = k < tp->ntiles && set[k];
			}
			y1 += grow;
		}
		for (unsigned y = y0; y <= y1; y++)
			for (unsigned x = x0; x <= x1; x++)
				set[y * tp->cols + x] = false;
		enc[n] = tp->col_x[x0] | tp->row_y[y0] << 6 | tp->col_x[x1] << 12 | (uint32_t)tp->row_y[y1] << 18;
		count[n++] = (x1 - x0 + 1) * (y1 - y0 + 1);
	}
	return n;
}

/* WRITE_PACKED_LARGE of one payload to every marked tile by multicast rectangles. */
static int large_mcast(struct cq_lower *lw, unsigned type, uint32_t addr, const uint8_t *data, uint32_t len, bool *set)
{
	struct bh_cq *cq = lw->cq;
	enum { MAXR = 256 };
	uint32_t enc[MAXR], cnt[MAXR];
	unsigned nr = rects(cq, set, enc, cnt, MAXR);
	uint32_t padded = (len + 15) & ~15u;
	if (len > 0x10000 || padded + 16 + 12 > BH_CQ_MAX_INLINE)
		return bh_cq_fail(cq, BH_ERR_ARG, "a %u-byte payload does not fit a WRITE_PACKED_LARGE sub-command", len);
	unsigned per = (BH_CQ_MAX_INLINE - 16 - 12 * BH_CQ_PACKED_LARGE_MAX) / padded;
	per = per < BH_CQ_PACKED_LARGE_MAX ? per : BH_CQ_PACKED_LARGE_MAX;
	per = per ? per : 1;
	for (unsigned i = 0; i < nr; i += per) {
		unsigned c = nr - i < per ? nr - i : per;
		uint32_t off = 16 + ((12 * c + 15) & ~15u);
		uint8_t *h = lw->cmd;
		memset(h, 0, off);
		h[0] = BH_CQD_WRITE_PACKED_LARGE;
		bh_cq_put(h, BH_CQF_D_WRITE_PACKED_LARGE_type, type);
		bh_cq_put(h, BH_CQF_D_WRITE_PACKED_LARGE_count, c);
		bh_cq_put(h, BH_CQF_D_WRITE_PACKED_LARGE_alignment, 16);
		for (unsigned k = 0; k < c; k++) {
			uint8_t *s = h + 16 + 12 * k;
			bh_cq_put(s, BH_CQF_S_PACKED_LARGE_noc_xy_addr, enc[i + k]);
			bh_cq_put(s, BH_CQF_S_PACKED_LARGE_addr, addr);
			bh_cq_put(s, BH_CQF_S_PACKED_LARGE_length_minus1, len - 1);
			bh_cq_put(s, BH_CQF_S_PACKED_LARGE_num_mcast_dests, cnt[i + k] > 255 ? 255 : cnt[i + k]);
			memcpy(h + off, data, len);
			memset(h + off + len, 0, padded - len);
			off += padded;
		}
		int rc = push(lw, off);
		if (rc != BH_OK)
			return rc;
	}
	return BH_OK;
}

static int go_noc_data(struct cq_lower *lw)
{
	uint8_t *h = lw->cmd;
	memset(h, 0, 16);
	h[0] = BH_CQD_SET_GO_SIGNAL_NOC_DATA;
	bh_cq_put(h, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words, lw->n);
	for (unsigned i = 0; i < lw->n; i++) {
		uint32_t w = tile_xy(lw->cq, lw->tiles[i]);
		memcpy(h + 16 + 4 * i, &w, 4);
	}
	return push(lw, 16 + 4 * lw->n);
}

static int wait_stream(struct cq_lower *lw, uint32_t count)
{
	uint8_t *h = lw->cmd;
	memset(h, 0, 16);
	h[0] = BH_CQD_WAIT;
	bh_cq_put(h, BH_CQF_D_WAIT_flags, BH_CQ_WAIT_STREAM | BH_CQ_WAIT_CLEAR_STREAM);
	bh_cq_put(h, BH_CQF_D_WAIT_stream, BH_CQ_STREAM_FIRST);
	bh_cq_put(h, BH_CQF_D_WAIT_count, count);
	return push(lw, 16);
}

static int send_go(struct cq_lower *lw)
{
	struct bh_tile *dt = lw->cq->dev->tiles[lw->cq->dp_tile];
	uint8_t *h = lw->cmd;
	memset(h, 0, 16);
	h[0] = BH_CQD_SEND_GO_SIGNAL;
	bh_cq_put(h, BH_CQF_D_SEND_GO_SIGNAL_go_signal, (uint32_t)BH_CQ_RUN_MSG_GO << 24 | dt->y << 16 | dt->x << 8);
	bh_cq_put(h, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, BH_CQ_GO_NO_MCAST);
	bh_cq_put(h, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns, lw->n);
	bh_cq_put(h, BH_CQF_D_SEND_GO_SIGNAL_wait_stream, BH_CQ_STREAM_FIRST);
	return push(lw, 16);
}

/* CB configs + kernel images: one WRITE_PACKED_LARGE per distinct blob, to the tiles lacking it. */
static int upload_blobs(struct cq_lower *lw, const bool *upload, struct bh_launch_stats *st)
{
	struct bh_cq *cq = lw->cq;
	struct bh_prog_launch *L = lw->L;
	uint32_t size = bh_prog_blob_size(L);
	unsigned nt = cq->dev->ntiles;
	bool *left = calloc(nt, sizeof *left), *same = calloc(nt, sizeof *same);
	uint8_t *ref = malloc(size + 4);
	int rc = left && same && ref ? BH_OK : bh_cq_fail(cq, BH_ERR_SYS, "out of memory");
	for (unsigned t = 0; t < nt && rc == BH_OK; t++)
		left[t] = upload[t];
	for (unsigned t = 0; t < nt && rc == BH_OK; t++) {
		if (!left[t])
			continue;
		uint32_t mask;
		bh_prog_build_blob(L, t, &mask);
		memcpy(ref, L->blob, size);
		memset(same, 0, nt * sizeof *same);
		for (unsigned u = t; u < nt; u++) {
			if (!left[u])
				continue;
			bh_prog_build_blob(L, u, &mask);
			if (u == t || !memcmp(ref, L->blob, size)) {
				same[u] = true;
				left[u] = false;
				bh_prog_set_cb_pages(L, u, mask);
				bh_prog_mark_resident(L, u);
				st->tiles_uploaded++;
			}
		}
		if (size)
			rc = large_mcast(lw, BH_CQ_LARGE_TYPE_PROGRAM_BINARIES, L->kcb + bh_prog_args_size(L), ref, size, same);
	}
	free(left);
	free(same);
	free(ref);
	return rc;
}

static int cq_lower(struct cq_lower *lw, struct bh_launch_stats *st)
{
	struct bh_cq *cq = lw->cq;
	struct bh_prog_launch *L = lw->L;
	const struct bh_profile *prof = L->prof;
	unsigned nt = cq->dev->ntiles;
	bool *set = calloc(nt, sizeof *set), *upload = calloc(nt, sizeof *upload);
	unsigned *group = malloc(nt * sizeof *group);
	int rc = set && upload && group ? BH_OK : bh_cq_fail(cq, BH_ERR_SYS, "out of memory");
	bool any_upload = false;
	for (unsigned i = 0; i < lw->n && rc == BH_OK; i++)
		any_upload |= upload[lw->tiles[i]] = bh_prog_upload_needed(L, lw->tiles[i]);
	/* New CB configs and symbols take effect on the host at once: let earlier launches finish. */
	if (rc == BH_OK && any_upload)
		rc = bh_cq_finish(cq);
	if (rc == BH_OK)
		rc = go_noc_data(lw);
	if (rc == BH_OK) {
		static const uint8_t zero[4];
		for (unsigned i = 0; i < lw->n; i++)
			set[lw->tiles[i]] = true;
		rc = large_mcast(lw, BH_CQ_LARGE_TYPE_CBS_SEMS_CRTAS, bh_profile_mbox(prof, prof->go_message_index), zero, 4,
				 set);
	}
	if (rc == BH_OK && bh_prog_args_size(L))
		rc = packed(lw, BH_CQ_PACKED_TYPE_RTA, L->kcb, bh_prog_args_size(L), lw->tiles, lw->n, fill_args);
	/* Launch messages go to each tile's next launch[] slot; tiles are grouped by slot. */
	for (unsigned slot = 0; slot < prof->launch_count && rc == BH_OK; slot++) {
		unsigned ng = 0;
		for (unsigned i = 0; i < lw->n; i++)
			if (cq->launch_wr[lw->tiles[i]] == slot)
				group[ng++] = lw->tiles[i];
		if (ng)
			rc = packed(lw, BH_CQ_PACKED_TYPE_LAUNCH, bh_profile_mbox(prof, prof->launch_base) +
				    slot * prof->launch_entry_size, prof->launch_entry_size, group, ng, fill_msg);
	}
	if (rc == BH_OK && any_upload)
		rc = upload_blobs(lw, upload, st);
	if (rc == BH_OK)
		rc = wait_stream(lw, 0);
	if (rc == BH_OK)
		rc = send_go(lw);
	if (rc == BH_OK)
		rc = wait_stream(lw, lw->n);
	for (unsigned i = 0; i < lw->n && rc == BH_OK; i++)
		cq->launch_wr[lw->tiles[i]] = (uint8_t)((cq->launch_wr[lw->tiles[i]] + 1) % prof->launch_count);
	free(set);
	free(upload);
	free(group);
	return rc;
}

int bh_cq_launch(struct bh_cq *cq, struct bh_program *p, struct bh_launch_stats *st)
{
	struct bh_launch_stats dummy;
	if (!cq || !p)
		return BH_ERR_ARG;
	if (cq->failed)
		return cq->fail_rc;
	cq->err[0] = 0;
	st = st ? st : &dummy;
	memset(st, 0, sizeof *st);
	struct bh_prog_launch L;
	int rc = bh_prog_launch_begin(p, &L, st);
	if (rc == BH_OK && bh_prog_device(p) != cq->dev)
		rc = bh_prog_fail(p, BH_ERR_ARG, "the program belongs to another device than the command queue");
	struct cq_lower lw = { .cq = cq, .L = &L, .cmd = cq->rec + 16 };
	lw.tiles = rc == BH_OK ? malloc(cq->dev->ntiles * sizeof *lw.tiles) : NULL;
	if (rc == BH_OK && !lw.tiles)
		rc = BH_ERR_SYS;
	for (unsigned t = 0; t < cq->dev->ntiles && rc == BH_OK; t++) {
		if (!L.active[t])
			continue;
		if (!cq->worker[t]) {
			char msg[200];
			snprintf(msg, sizeof msg, "tile %u (%u,%u) is the %s core of the open command queue: programs run on "
				 "the other tiles (bh_device_worker_ranges)", t, cq->dev->tiles[t]->x, cq->dev->tiles[t]->y,
				 t == cq->pf_tile ? "prefetch" : "dispatch");
			rc = bh_prog_fail(p, BH_ERR_ARG, msg);
		}
		lw.tiles[lw.n++] = t;
	}
	uint64_t bytes0 = cq->bytes;
	if (rc == BH_OK)
		rc = cq_lower(&lw, st);
	for (unsigned k = 0; rc == BH_OK && k < lw.n; k++)
		bh_trace_launch(cq->dev, lw.tiles[k], "launch (command queue)");
	st->tiles = lw.n;
	st->bytes_written = cq->bytes - bytes0;
	free(lw.tiles);
	bh_prog_launch_end(&L);
	return rc;
}
