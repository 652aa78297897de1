/* Device-wide reports: what every core and Tensix thread is doing, and what parked ones wait on,
 * by name and value ("stream 8 reg 10 (CB0 tiles_received) = 3"). Used for deadlock and timeout reports. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/rv32_insns.h"
#include "fabric/mmio.h"
#include "host/device.h"
#include "sync/streams.h"

struct out {
	char *buf;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	if (o->used >= o->len)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used = o->used + (size_t)n < o->len ? o->used + (size_t)n : o->len - 1;
}

/* Name of a watched word: L1 with its symbol, else as the address decode table names it. */
static void name_word(struct bh_device *dev, struct bh_tile *t, unsigned core, uint32_t addr, char *b, size_t n)
{
	char s[128];
	if (addr < BH_L1_SIZE) {
		bh_device_symbolize(dev, t->index, core, addr, s, sizeof s);
		snprintf(b, n, "L1 0x%08x%s", addr, s);
	} else {
		bh_mmio_describe(t, addr, b, n);
	}
}

/* A multi-line report as continuation lines of a core's line: each line indented by four. */
static void put_indented(struct out *o, const char *text)
{
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);
		put(o, "    %.*s\n", len, line);
		line += len + (nl != NULL);
	}
}

static void report_core(struct bh_device *dev, struct bh_tile *t, struct bh_core *c, struct out *o)
{
	char s[128], dis[128], nm[160], fault[1536] = "";
	put(o, "  tile %u (%u,%u) %-6s: ", t->index, t->x, t->y, bh_core_kind_name(c->kind));
	pthread_mutex_lock(&t->lock);
	enum bh_core_state st = c->state;
	bool starting = c->restart && !c->held;
	int exit_status = c->stopped_exit_status;
	if (st == BH_CORE_FAULTED && !starting)
		bh_fault_format(dev, c, fault, sizeof fault);   /* the fault stays until the core restarts */
	else if (st == BH_CORE_IN_RESET && !starting && c->reset_by < BH_CORES_PER_TILE)
		bh_core_reset_format(dev, c, fault, sizeof fault);
	pthread_mutex_unlock(&t->lock);
	if (starting) {
		put(o, "released, not yet scheduled\n");
		return;
	}
	switch (st) {
	case BH_CORE_IN_RESET:
		put(o, fault[0] ? "held in reset, %s\n" : "held in reset\n", fault);
		return;
	case BH_CORE_EXITED: put(o, "exited with status %d\n", exit_status); return;
	case BH_CORE_FAULTED:
		put(o, "stopped by a fault:\n");
		put_indented(o, fault);
		return;
	case BH_CORE_LIMIT: put(o, "stopped at its instruction limit\n"); return;
	default: break;
	}
	uint32_t ps = atomic_load_explicit(&c->waiter.park_state, memory_order_acquire);  /* pairs with the owner's release */
	uint32_t pc = atomic_load_explicit(&c->pc_snapshot, memory_order_relaxed);
	if (ps == BH_PARK_NONE || ps == BH_PARK_IDLE) {   /* IDLE: entering reset, not yet stopped */
		bh_device_symbolize(dev, t->index, c->kind, pc, s, sizeof s);
		put(o, "running, near pc 0x%08x%s\n", pc, s);
		return;
	}
	if (ps == BH_PARK_BLOCKED) {
		bh_device_symbolize(dev, t->index, c->kind, pc, s, sizeof s);
		put(o, "blocked at pc 0x%08x%s: %s\n", pc, s, c->wait_what);
		return;
	}
	/* The wait as the core recorded it when it parked, copied under the tile lock it writes it
	 * under (it may wake and park elsewhere meanwhile: then this is its newer wait). */
	struct bh_spin spin_copy;
	pthread_mutex_lock(&t->lock);
	memcpy(spin_copy.watched, c->spin.watched, sizeof spin_copy.watched);
	spin_copy.nwatched = c->spin.nwatched;
	spin_copy.park_pc = c->spin.park_pc;
	spin_copy.park_branch = c->spin.park_branch;
	spin_copy.branch_word = c->spin.branch_word;
	spin_copy.branch_rs1 = c->spin.branch_rs1;
	spin_copy.branch_rs2 = c->spin.branch_rs2;
	pthread_mutex_unlock(&t->lock);
	const struct bh_spin *sp = &spin_copy;
	bh_device_symbolize(dev, t->index, c->kind, sp->park_pc, s, sizeof s);
	rv32_disasm(sp->branch_word, sp->park_branch, dis, sizeof dis);
	put(o, "polling in the loop at 0x%08x%s..0x%08x (%s with %s = 0x%x, %s = 0x%x)%s\n", sp->park_pc, s,
	    sp->park_branch, dis, rv32_reg_name(sp->branch_word >> 15), sp->branch_rs1,
	    rv32_reg_name(sp->branch_word >> 20), sp->branch_rs2,
	    ps == BH_PARK_TIMED ? ", sleeping on the wall clock" : "");
	for (unsigned k = 0; k < sp->nwatched; k++) {
		const struct bh_spin_load *w = &sp->watched[k];
		if (w->timed) {
			put(o, "      reads the wall clock (0x%08x)\n", w->addr);
			continue;
		}
		name_word(dev, t, c->kind, w->addr, nm, sizeof nm);
		if (w->stored)
			put(o, "      keeps storing %u (0x%x, %u bytes) to %s, which holds it\n", w->value, w->value, w->size,
			    nm);
		else
			put(o, "      waits on %s = %u (0x%x, %u bytes)\n", nm, w->value, w->value, w->size);
	}
}

static void put_line(void *o, const char *line)
{
	put(o, "%s", line);
}

int bh_device_report(struct bh_device *dev, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	if (!dev || !buf || !len)
		return BH_ERR_ARG;
	buf[0] = 0;
	for (unsigned t = 0; t < dev->ntiles; t++) {
		for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
			struct bh_tile *tile = dev->tiles[t];
			struct bh_core *c = tile->core[k];
			pthread_mutex_lock(&tile->lock);
			bool idle = c->state == BH_CORE_IN_RESET && !(c->restart && !c->held) && !c->ever_ran;
			pthread_mutex_unlock(&tile->lock);
			if (!idle)   /* cores never started are left out: a chip has hundreds */
				report_core(dev, tile, c, &o);
		}
		bh_tensix_report(dev->tiles[t], put_line, &o);   /* busy, held or faulted Tensix threads */
	}
	return BH_OK;
}

char *bh_device_report_tiles(struct bh_device *dev, const bool *stuck, const char *head)
{
	size_t cap = 2u << 20, used = strlen(head);
	char *full = malloc(cap), *out = malloc(cap);
	if (!full || !out || used >= cap) {
		free(full);
		free(out);
		return NULL;
	}
	memcpy(out, head, used + 1);
	bh_device_report(dev, full, cap);
	bool keep = true;
	for (char *line = full; *line;) {
		char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
		unsigned t;
		if (sscanf(line, "  tile %u ", &t) == 1)
			keep = t < dev->ntiles && stuck[t];
		else if (strncmp(line, "    ", 4) != 0)
			keep = true;   /* not a continuation of a tile's line */
		if (keep && used + len < cap) {
			memcpy(out + used, line, len);
			used += len;
			out[used] = 0;
		}
		line += len;
	}
	free(full);
	return out;
}
