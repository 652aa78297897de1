/* Timeline trace (bhemu.h, bh_device_trace_start): an observer of every event kind that keeps the
 * last N events in a ring, and writes them as Chrome trace-event JSON when the trace stops.
 *
 * Recording: whichever thread acts calls the observer (sync/hooks.h); it claims a slot with one
 * atomic add and fills it, taking no lock. A slot is a fixed record; the one text that can be
 * long (a stopped core's fault) is a copy owned by the slot. Writing happens after the observer
 * is detached (no callback runs any more), so the ring is read by one thread.
 *
 * The file: a process per tile ("tile 3 (2,2)"), a thread per core (tid = enum bh_core_id) and
 * one more (tid 5, "NoC / host") for what lands on the tile and what the host or a fast-dispatch
 * model does there; then, once they act, one per Tensix thread and fast-dispatch model (tid =
 * BH_ACTOR_*: running, idle, parked on what). A core's track is a row of complete ("X") slices: running, parked (on what),
 * ended by an instant saying how it stopped. A NoC transaction is a zero-length slice where it
 * issued and one where it landed, joined by a flow arrow; a CB's counters are a counter track;
 * launches and go signals are instants; findings (from the checks' log) are instants on the
 * core they blame with their report. Times are microseconds since the start, of host time, or of
 * virtual time under serial scheduling (otherData.clock says which). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/check.h"
#include "fabric/wallclock.h"
#include "host/device.h"
#include "host/trace.h"

#define TRACE_DEFAULT_EVENTS 1000000u
#define TRACE_TID_NONE 5u          /* the tile's "NoC / host" track */
#define TEXT_INLINE 24u

struct trace_rec {
	uint64_t t;                /* ns since the trace started */
	uint64_t id, instructions;
	uint32_t pc, addr, size, value[3];
	uint16_t tile, peer;
	uint8_t kind, core;
	char what[TEXT_INLINE];    /* short texts (park kinds, NoC operations) */
	_Atomic(char *) text;      /* a long one (a stop's fault), owned */
};

struct bh_trace {
	struct bh_device *dev;
	FILE *f;
	char *path;
	uint32_t kinds;
	unsigned tile_first, tile_last;
	uint64_t cap;
	_Atomic uint64_t next;
	struct trace_rec *ring;
	uint64_t start_ns;
	uint64_t hook;
};

static bool in_range(const struct bh_trace *tr, unsigned tile)
{
	return tile >= tr->tile_first && tile <= tr->tile_last;
}

static void trace_event(void *arg, const struct bh_core_event *ev)
{
	struct bh_trace *tr = arg;
	bool noc = ev->kind == BH_EVENT_NOC_ISSUE || ev->kind == BH_EVENT_NOC_LAND;
	if (!in_range(tr, ev->tile) && !(noc && in_range(tr, ev->peer_tile)))
		return;
	uint64_t now = bh_time_ns();
	struct trace_rec *r = &tr->ring[atomic_fetch_add_explicit(&tr->next, 1, memory_order_relaxed) % tr->cap];
	free(atomic_exchange_explicit(&r->text, NULL, memory_order_relaxed));   /* the slot's previous event */
	uint64_t at = ev->time_ns ? ev->time_ns : now;
	r->t = at > tr->start_ns ? at - tr->start_ns : 0;
	r->kind = (uint8_t)ev->kind;
	r->tile = (uint16_t)ev->tile;
	r->core = (uint8_t)ev->core;
	r->peer = (uint16_t)ev->peer_tile;
	r->pc = ev->pc;
	r->addr = ev->addr;
	r->size = ev->size;
	memcpy(r->value, ev->value, sizeof r->value);
	r->id = ev->id;
	r->instructions = ev->instructions;
	r->what[0] = 0;
	if (ev->what) {
		snprintf(r->what, sizeof r->what, "%s", ev->what);
		if (strlen(ev->what) >= sizeof r->what)
			atomic_store_explicit(&r->text, strdup(ev->what), memory_order_relaxed);
	}
}

int bh_trace_kinds_parse(const char *list, uint32_t *kinds, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		uint32_t bits;
	} names[] = {
		{ "core", BH_CORE_EVENTS_CORE | 1u << BH_EVENT_ACTOR },
		{ "noc", 1u << BH_EVENT_NOC_ISSUE | 1u << BH_EVENT_NOC_LAND },
		{ "cb", 1u << BH_EVENT_CB },
		{ "launch", 1u << BH_EVENT_LAUNCH },
		{ "finding", 1u << BH_EVENT_FINDING },
		{ "all", BH_EVENTS_ALL },
	};
	char buf[256];
	uint32_t m = 0;
	if (!list || !kinds) {
		snprintf(err, errlen, "no list of trace events");
		return -1;
	}
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t k = 0;
		while (k < sizeof names / sizeof names[0] && strcmp(tok, names[k].name))
			k++;
		if (k == sizeof names / sizeof names[0]) {
			snprintf(err, errlen, "'%s' is not a trace event kind (core, noc, cb, launch, finding, all)", tok);
			return -1;
		}
		m |= names[k].bits;
	}
	if (!m) {
		snprintf(err, errlen, "an empty list of trace events");
		return -1;
	}
	*kinds = m;
	return 0;
}

int bh_device_trace_start(struct bh_device *dev, const struct bh_trace_config *cfg)
{
	if (!dev || !cfg || !cfg->path || !*cfg->path || dev->trace || (cfg->kinds & ~(uint32_t)BH_EVENTS_ALL) ||
	    cfg->tile_first > cfg->tile_last)
		return BH_ERR_ARG;
	struct bh_trace *tr = calloc(1, sizeof *tr);
	if (!tr)
		return BH_ERR_SYS;
	tr->dev = dev;
	tr->kinds = cfg->kinds ? cfg->kinds : BH_EVENTS_ALL;
	tr->tile_first = cfg->tile_first;
	tr->tile_last = cfg->tile_first || cfg->tile_last ? cfg->tile_last : ~0u;
	tr->cap = cfg->max_events ? cfg->max_events : TRACE_DEFAULT_EVENTS;
	tr->path = strdup(cfg->path);
	tr->ring = tr->cap <= SIZE_MAX / sizeof *tr->ring ? calloc(tr->cap, sizeof *tr->ring) : NULL;
	/* The file now, so that a path that cannot be written fails here, not after the run. */
	tr->f = tr->path && tr->ring ? fopen(tr->path, "w") : NULL;
	if (!tr->f) {
		if (tr->path && tr->ring)
			fprintf(stderr, "bhemu: trace: cannot create %s: %s\n", tr->path, strerror(errno));
		free(tr->ring);
		free(tr->path);
		free(tr);
		return BH_ERR_SYS;
	}
	tr->start_ns = bh_time_ns();
	/* Findings come from the checks' log at the end: the observer needs the other kinds. */
	uint32_t hooked = tr->kinds & ~(1u << BH_EVENT_FINDING);
	if (hooked && bh_device_observe_kinds(dev, hooked, trace_event, tr, &tr->hook) != BH_OK) {
		fclose(tr->f);
		remove(tr->path);
		free(tr->ring);
		free(tr->path);
		free(tr);
		return BH_ERR_SYS;
	}
	dev->trace = tr;
	return BH_OK;
}

/* ------------------------------------------------------------------------------------ writing */

/* s as the contents of a JSON string. */
static void put_json_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

static const char *rec_text(struct trace_rec *r)
{
	char *t = atomic_load_explicit(&r->text, memory_order_relaxed);
	return t ? t : r->what;
}

/* Tracks: the five cores, "NoC / host", then the Tensix threads and fast-dispatch models. */
static unsigned rec_tid(const struct trace_rec *r)
{
	return r->core < BH_ACTOR_COUNT ? r->core : TRACE_TID_NONE;
}

static const char *const track_names[BH_ACTOR_COUNT] = {
	"brisc", "ncrisc", "trisc0", "trisc1", "trisc2", "NoC / host", "tensix 0", "tensix 1", "tensix 2",
	"prefetch", "dispatch",
};

static void put_ts(FILE *f, uint64_t ns)
{
	fprintf(f, "%llu.%03llu", (unsigned long long)(ns / 1000), (unsigned long long)(ns % 1000));
}

/* One event line: its common head; the caller adds the rest and the closing brace. */
static void put_head(FILE *f, bool *first, const char *ph, const char *cat, unsigned pid, unsigned tid, uint64_t ns)
{
	fprintf(f, "%s\n{\"ph\":\"%s\",\"cat\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":", *first ? "" : ",", ph, cat, pid, tid);
	put_ts(f, ns);
	*first = false;
}

/* A core's open slice. */
struct track {
	bool open;
	uint64_t since;
	char name[64];
};

static void track_close(FILE *f, bool *first, struct track *k, unsigned pid, unsigned tid, uint64_t ns)
{
	if (!k->open)
		return;
	put_head(f, first, "X", "core", pid, tid, k->since);
	fprintf(f, ",\"dur\":");
	put_ts(f, ns - k->since);
	fputs(",\"name\":\"", f);
	put_json_text(f, k->name);
	fputs("\"}", f);
	k->open = false;
}

static void track_open(struct track *k, uint64_t ns, const char *name)
{
	k->open = true;
	k->since = ns;
	snprintf(k->name, sizeof k->name, "%s", name);
}

/* Issue times by transaction id, for the latency of each landing: open addressing. */
struct issued {
	uint64_t id, t;
};

static struct issued *issued_slot(struct issued *tab, uint64_t mask, uint64_t id)
{
	uint64_t h = id * 0x9E3779B97F4A7C15ull;
	for (uint64_t k = h & mask;; k = (k + 1) & mask)
		if (tab[k].id == id || tab[k].id == 0)
			return &tab[k];
}

static void put_core_event(FILE *f, bool *first, struct trace_rec *r, struct track *k)
{
	unsigned pid = r->tile, tid = rec_tid(r);
	char name[64];
	switch (r->kind) {
	case BH_CORE_EVENT_RUNNING:
	case BH_CORE_EVENT_WOKEN:
		track_close(f, first, k, pid, tid, r->t);
		track_open(k, r->t, "running");
		break;
	case BH_CORE_EVENT_PARKED:
		track_close(f, first, k, pid, tid, r->t);
		if (r->addr)
			snprintf(name, sizeof name, "parked: %s 0x%08x", r->what[0] ? r->what : "?", r->addr);
		else
			snprintf(name, sizeof name, "parked: %s", r->what[0] ? r->what : "?");
		track_open(k, r->t, name);
		break;
	case BH_EVENT_ACTOR:   /* what: "running", "parked: ...", "idle" */
		track_close(f, first, k, pid, tid, r->t);
		track_open(k, r->t, rec_text(r));
		break;
	default:   /* STOPPED */
		track_close(f, first, k, pid, tid, r->t);
		put_head(f, first, "i", "core", pid, tid, r->t);
		fputs(",\"s\":\"t\",\"name\":\"", f);
		put_json_text(f, rec_text(r));
		fprintf(f, "\",\"args\":{\"pc\":\"0x%08x\",\"instructions\":%llu}}", r->pc,
			(unsigned long long)r->instructions);
		break;
	}
}

static void put_noc_event(FILE *f, bool *first, struct trace_rec *r, struct issued *tab, uint64_t mask)
{
	unsigned pid = r->tile, tid = rec_tid(r);
	bool issue = r->kind == BH_EVENT_NOC_ISSUE;
	put_head(f, first, "X", "noc", pid, tid, r->t);
	fputs(",\"dur\":0.001,\"name\":\"", f);   /* 1 ns: a slice the arrow binds to */
	put_json_text(f, r->what);
	fprintf(f, " %s tile %u\",\"args\":{\"id\":%llu,\"addr\":\"0x%08x\",\"bytes\":%u", issue ? "to" : "from",
		r->peer, (unsigned long long)r->id, r->addr, r->size);
	struct issued *at = tab ? issued_slot(tab, mask, r->id) : NULL;
	if (issue) {
		fprintf(f, ",\"pc\":\"0x%08x\"}}", r->pc);
		if (at && !at->id)
			*at = (struct issued){ r->id, r->t };
	} else if (at && at->id) {
		fputs(",\"latency_us\":", f);
		put_ts(f, r->t - at->t);
		fputs("}}", f);
	} else {
		fputs("}}", f);
	}
	/* The arrow: from the issuing slice to each landing. */
	put_head(f, first, issue ? "s" : "f", "noc", pid, tid, r->t);
	fprintf(f, ",\"id\":%llu,\"name\":\"noc\"%s}", (unsigned long long)r->id, issue ? "" : ",\"bp\":\"e\"");
}

static void put_findings(FILE *f, bool *first, struct bh_trace *tr)
{
	struct bh_finding *log;
	unsigned kept;
	bh_checks_copy(&tr->dev->chip.checks, &log, &kept);
	for (unsigned k = 0; k < kept; k++) {
		if (log[k].time_ns < tr->start_ns || !in_range(tr, log[k].tile))
			continue;
		char report[1536];
		bh_fault_format_at(tr->dev, log[k].tile, log[k].core, &log[k].fault, report, sizeof report);
		put_head(f, first, "i", "finding", log[k].tile, log[k].core < BH_CORES_PER_TILE ? log[k].core : TRACE_TID_NONE,
			 log[k].time_ns - tr->start_ns);
		fprintf(f, ",\"s\":\"t\",\"name\":\"check %s\",\"args\":{\"report\":\"", bh_check_name(log[k].fault.check));
		put_json_text(f, report);
		fputs("\"}}", f);
	}
	free(log);
}

static void put_names(FILE *f, bool *first, struct bh_trace *tr, const bool *seen_tile, const uint16_t *seen_tid)
{
	for (unsigned t = 0; t < tr->dev->ntiles; t++) {
		if (!seen_tile[t])
			continue;
		unsigned x = 0, y = 0;
		bh_device_tile_xy(tr->dev, t, &x, &y);
		fprintf(f, "%s\n{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":\"tile %u (%u,%u)\"}}",
			*first ? "" : ",", t, t, x, y);
		*first = false;
		fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%u}}", t, t);
		for (unsigned c = 0; c < BH_ACTOR_COUNT; c++)
			if (c <= TRACE_TID_NONE || seen_tid[t] >> c & 1)
				fprintf(f, ",\n{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}",
					t, c, track_names[c]);
	}
}

static int trace_write(struct bh_trace *tr)
{
	FILE *f = tr->f;
	uint64_t next = atomic_load_explicit(&tr->next, memory_order_acquire);
	uint64_t n = next < tr->cap ? next : tr->cap, from = next - n;
	unsigned ntiles = tr->dev->ntiles;
	struct track *tracks = calloc((size_t)ntiles * BH_ACTOR_COUNT, sizeof *tracks);
	uint16_t *seen_tid = calloc(ntiles, sizeof *seen_tid);   /* tracks with events, per tile */
	bool *seen = calloc(ntiles ? ntiles : 1, sizeof *seen);
	uint64_t mask = 1;
	while (mask < 2 * n + 2)
		mask <<= 1;
	struct issued *tab = calloc(mask, sizeof *tab);
	mask--;
	if (!tracks || !seen || !seen_tid) {
		free(seen_tid);
		free(tracks);
		free(seen);
		free(tab);
		return BH_ERR_SYS;
	}
	bool first = true;
	uint64_t end = 0;
	/* Serial scheduling stamps events with the device's virtual time (sync/sched.h). */
	fputs(tr->dev->chip.sched ? "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"virtual\",\"time\":"
	      "\"microseconds of virtual time (one ns per retired instruction, serial scheduling) since the trace started\","
	      : "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"host\",\"time\":\"microseconds of host time since "
	      "the trace started\",", f);
	fprintf(f, "\"events\":%llu,\"dropped\":%llu},\n\"traceEvents\":[", (unsigned long long)n,
		(unsigned long long)(next - n));
	for (uint64_t k = from; k < next; k++) {
		struct trace_rec *r = &tr->ring[k % tr->cap];
		if (r->tile >= ntiles)
			continue;
		seen[r->tile] = true;
		if (r->t > end)
			end = r->t;
		switch (r->kind) {
		case BH_CORE_EVENT_RUNNING:
		case BH_CORE_EVENT_PARKED:
		case BH_CORE_EVENT_WOKEN:
		case BH_CORE_EVENT_STOPPED:
		case BH_EVENT_ACTOR:
			if (r->core < BH_ACTOR_COUNT && r->core != TRACE_TID_NONE) {
				seen_tid[r->tile] |= (uint16_t)(1u << r->core);
				put_core_event(f, &first, r, &tracks[r->tile * BH_ACTOR_COUNT + r->core]);
			}
			break;
		case BH_EVENT_NOC_ISSUE:
		case BH_EVENT_NOC_LAND:
			put_noc_event(f, &first, r, tab, mask);
			break;
		case BH_EVENT_CB:
			put_head(f, &first, "C", "cb", r->tile, TRACE_TID_NONE, r->t);
			fprintf(f, ",\"name\":\"cb %u\",\"args\":{\"received\":%u,\"acked\":%u,\"held\":%u}}", r->addr,
				r->value[0], r->value[1], r->value[2]);
			break;
		case BH_EVENT_LAUNCH:
			put_head(f, &first, "i", "launch", r->tile, TRACE_TID_NONE, r->t);
			fputs(",\"s\":\"p\",\"name\":\"", f);
			put_json_text(f, r->what);
			fputs("\"}", f);
			break;
		default:
			break;
		}
	}
	/* Slices still open end with the trace. */
	for (unsigned t = 0; t < ntiles; t++)
		for (unsigned c = 0; c < BH_ACTOR_COUNT; c++)
			track_close(f, &first, &tracks[t * BH_ACTOR_COUNT + c], t, c, end);
	if (tr->kinds >> BH_EVENT_FINDING & 1)
		put_findings(f, &first, tr);
	put_names(f, &first, tr, seen, seen_tid);
	fputs("\n]}\n", f);
	free(seen_tid);
	free(tracks);
	free(seen);
	free(tab);
	return ferror(f) ? BH_ERR_SYS : BH_OK;
}

int bh_device_trace_stop(struct bh_device *dev)
{
	if (!dev || !dev->trace)
		return BH_ERR_ARG;
	struct bh_trace *tr = dev->trace;
	if (tr->hook)
		bh_device_unobserve(dev, tr->hook);   /* no callback runs any more */
	int rc = trace_write(tr);
	if (fclose(tr->f) != 0)
		rc = BH_ERR_SYS;
	if (rc != BH_OK)
		fprintf(stderr, "bhemu: trace: writing %s failed\n", tr->path);
	for (uint64_t k = 0; k < tr->cap; k++)
		free(atomic_load_explicit(&tr->ring[k].text, memory_order_relaxed));
	free(tr->ring);
	free(tr->path);
	free(tr);
	dev->trace = NULL;
	return rc;
}

void bh_trace_launch(struct bh_device *dev, unsigned tile, const char *what)
{
	struct bh_hooks *h = &dev->chip.hooks;
	if (!bh_hooks_want(h, BH_EVENT_LAUNCH))
		return;
	struct bh_core_event ev = { .kind = BH_EVENT_LAUNCH, .tile = tile, .core = BH_CORE_NONE, .what = what };
	bh_hooks_emit_any(h, &ev);
}
