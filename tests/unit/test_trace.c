/* The timeline trace (host/trace.c): files that parse as JSON and say what happened, in order.
 *
 * The programs are the race catalogue's #10 pair (tests/races/10_write_source_reused.c): on a
 * 2x1 grid, BRISC of tile 0 fills CB pages and writes them over the NoC to tile 1, NCRISC
 * produces them; the twin waits for the writes to be flushed, the buggy one reuses a page too
 * early (noc-inflight). With 20 us NoC latencies every transaction spends at least 15 us in
 * flight in host time (a barrier runs what is due within 5 us: fabric/noc_engine.c), which the
 * trace must show. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "host/device.h"
#include "sync/streams.h"
#include "json_lite.h"
#include "testlib.h"

#define ELF_FIXED BHEMU_BINARY_DIR "/guest/race_10_write_source_reused_fixed.elf"
#define ELF_BUGGY BHEMU_BINARY_DIR "/guest/race_10_write_source_reused.elf"

static char *trace_path(void)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/bhemu-trace-%d.json", (int)getpid());
	return path;
}

/* The trace file as a JSON tree; its traceEvents array in *events. */
static void load_trace_clock(const char *path, struct jl *doc, const struct jl **events, const char *clock)
{
	size_t len = 0, at = 0;
	char *text = jl_read_file(path, &len);
	cr_assert_not_null(text, "no trace file %s", path);
	bool ok = jl_parse(text, len, doc, &at);
	cr_assert(ok, "the trace is not JSON: stopped at offset %zu: ...%.60s", at, text + (at > 30 ? at - 30 : 0));
	free(text);
	*events = jl_get(doc, "traceEvents");
	cr_assert(*events && (*events)->type == JL_ARRAY, "no traceEvents array");
	cr_expect_str_eq(jl_str(jl_get(doc, "otherData"), "clock"), clock);
}

static void load_trace(const char *path, struct jl *doc, const struct jl **events)
{
	load_trace_clock(path, doc, events, "host");
}

static bool is(const struct jl *e, const char *ph, const char *cat)
{
	const char *p = jl_str(e, "ph"), *c = jl_str(e, "cat");
	return p && !strcmp(p, ph) && (!cat || (c && !strcmp(c, cat)));
}

static void skip_unless_built(void)
{
	if (access(ELF_FIXED, R_OK) || access(ELF_BUGGY, R_OK))
		cr_skip_test("the race programs were not built (%s)", ELF_FIXED);
}

Test(trace, a_run_traces_every_core_from_running_to_its_exit_and_every_transaction_issue_to_landing, .timeout = 120)
{
	skip_unless_built();
	const char *path = trace_path();
	struct cli_out *o = test_cli((const char *const[]){ "run", "--board", "grid:2x1", "--grid", "--cores",
							     "brisc,ncrisc", "--noc-latency", "20000:20000", "--seed", "3",
							     "--trace", path, ELF_FIXED, NULL });
	expect_status(o, 0);
	free(o);
	struct jl doc;
	const struct jl *ev;
	load_trace(path, &doc, &ev);
	unlink(path);

	/* Cores: per (tile, core), slices in time order without overlap, the first "running", and
	 * the track ends with the instant "exited 0". */
	for (unsigned tile = 0; tile < 2; tile++)
		for (unsigned core = 0; core < 2; core++) {
			double end = -1, first = -1, exit_ts = -1;
			unsigned slices = 0;
			const char *first_name = NULL;
			for (unsigned k = 0; k < ev->n; k++) {
				const struct jl *e = &ev->item[k];
				if (jl_num(e, "pid", -1) != tile || jl_num(e, "tid", -1) != core || !jl_get(e, "cat") ||
				    strcmp(jl_str(e, "cat"), "core"))
					continue;
				double ts = jl_num(e, "ts", -1);
				if (is(e, "X", NULL)) {
					cr_expect_geq(ts + 1e-9, end, "tile %u core %u: slices overlap at %f", tile, core, ts);
					end = ts + jl_num(e, "dur", -1);
					if (first < 0 || ts < first) {
						first = ts;
						first_name = jl_str(e, "name");
					}
					slices++;
				} else if (is(e, "i", NULL)) {
					cr_expect_str_eq(jl_str(e, "name"), "exited 0", "tile %u core %u", tile, core);
					exit_ts = ts;
				}
			}
			cr_expect_gt(slices, 0u, "tile %u core %u has no slices", tile, core);
			cr_expect_str_eq(first_name ? first_name : "", "running");
			cr_expect_geq(exit_ts + 1e-9, end, "tile %u core %u: the exit comes last", tile, core);
		}

	/* NoC: every issue has its landing, at least 15 us later, the arrow joining them; writes go
	 * from tile 0 to tile 1. */
	unsigned issues = 0, landings = 0;
	for (unsigned k = 0; k < ev->n; k++) {
		const struct jl *s = &ev->item[k];
		if (!is(s, "s", "noc"))
			continue;
		issues++;
		double id = jl_num(s, "id", -1);
		bool landed = false;
		for (unsigned j = 0; j < ev->n && !landed; j++) {
			const struct jl *f = &ev->item[j];
			if (is(f, "f", "noc") && jl_num(f, "id", -2) == id) {
				landed = true;
				cr_expect_geq(jl_num(f, "ts", 0) - jl_num(s, "ts", 0), 15.0, "transaction %.0f landed too early", id);
				cr_expect_eq(jl_num(s, "pid", -1), 0);
				cr_expect_eq(jl_num(f, "pid", -1), 1);
			}
		}
		cr_expect(landed, "transaction %.0f never landed", id);
	}
	for (unsigned k = 0; k < ev->n; k++)
		if (is(&ev->item[k], "X", "noc") && strstr(jl_str(&ev->item[k], "name"), " from tile ")) {
			landings++;
			cr_expect_geq(jl_num(jl_get(&ev->item[k], "args"), "latency_us", 0), 15.0);
		}
	cr_expect_gt(issues, 0u);
	cr_expect_eq(landings, issues);

	/* CB 0 of tile 0, in time order: received never goes back, held = received - acked. */
	struct sample {
		double ts, rcv, ack, held;
	} *cbs = calloc(ev->n, sizeof *cbs);
	unsigned cb = 0;
	for (unsigned k = 0; k < ev->n; k++) {
		const struct jl *e = &ev->item[k];
		if (!is(e, "C", "cb") || jl_num(e, "pid", -1) != 0 || strcmp(jl_str(e, "name"), "cb 0"))
			continue;
		const struct jl *a = jl_get(e, "args");
		cbs[cb++] = (struct sample){ jl_num(e, "ts", -1), jl_num(a, "received", -1), jl_num(a, "acked", -1),
					     jl_num(a, "held", -1) };
	}
	for (unsigned k = 1; k < cb; k++)   /* insertion sort by time: the file is in recording order */
		for (unsigned j = k; j > 0 && cbs[j].ts < cbs[j - 1].ts; j--) {
			struct sample t = cbs[j];
			cbs[j] = cbs[j - 1];
			cbs[j - 1] = t;
		}
	for (unsigned k = 0; k < cb; k++) {
		cr_expect_eq(cbs[k].held, cbs[k].rcv - cbs[k].ack);
		if (k)
			cr_expect_geq(cbs[k].rcv, cbs[k - 1].rcv, "received went back at %f", cbs[k].ts);
	}
	free(cbs);
	cr_expect_gt(cb, 2u, "CB 0 of tile 0 moved");
	jl_free(&doc);
}

Test(trace, a_finding_is_an_instant_on_the_core_it_blames_with_its_report, .timeout = 120)
{
	skip_unless_built();
	const char *path = trace_path();
	struct cli_out *o = test_cli((const char *const[]){ "run", "--board", "grid:2x1", "--grid", "--cores",
							     "brisc,ncrisc", "--noc-latency", "slow", "--seed", "1",
							     "--trace", path, ELF_BUGGY, NULL });
	expect_status(o, 8);
	free(o);
	struct jl doc;
	const struct jl *ev;
	load_trace(path, &doc, &ev);
	unlink(path);
	unsigned found = 0, stopped = 0;
	for (unsigned k = 0; k < ev->n; k++) {
		const struct jl *e = &ev->item[k];
		if (is(e, "i", "finding")) {
			found++;
			cr_expect_str_eq(jl_str(e, "name"), "check noc-inflight");
			const char *report = jl_str(jl_get(e, "args"), "report");
			cr_expect(report && strstr(report, "check noc-inflight: on tile 0 (1,2) core ncrisc\n"), "%s",
				  report ? report : "(none)");
			cr_expect_eq(jl_num(e, "pid", -1), 0);
			cr_expect_eq(jl_num(e, "tid", -1), BH_CORE_NCRISC);
		}
		if (is(e, "i", "core") && jl_num(e, "tid", -1) == BH_CORE_NCRISC && jl_num(e, "pid", -1) == 0) {
			stopped++;
			cr_expect(strstr(jl_str(e, "name"), "faulted: ") == jl_str(e, "name"), "%s", jl_str(e, "name"));
		}
	}
	cr_expect_eq(found, 1u);
	cr_expect_eq(stopped, 1u);
	jl_free(&doc);
}

/* The library: one kind, one tile, a ring of a few events. */
static void observe_count(void *arg, const struct bh_core_event *ev)
{
	(void)ev;
	__atomic_fetch_add((unsigned *)arg, 1, __ATOMIC_RELAXED);
}

Test(trace, the_library_filters_by_kind_and_tile_and_keeps_the_last_events)
{
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = 2, .grid_rows = 1 };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	const char *path = trace_path();
	struct bh_trace_config tc = { .path = path, .kinds = 1u << BH_EVENT_CB, .tile_first = 1, .tile_last = 1,
				      .max_events = 3 };
	cr_assert_eq(bh_device_trace_start(dev, &tc), BH_OK);
	cr_expect_eq(bh_device_trace_start(dev, &tc), BH_ERR_ARG, "one trace at a time");
	unsigned seen = 0;
	uint64_t id;
	cr_assert_eq(bh_device_observe_kinds(dev, 1u << BH_EVENT_CB, observe_count, &seen, &id), BH_OK);
	/* Five pushes on CB 0 (laid out on stream 0: its tiles_received) of each tile, from the host. */
	for (unsigned t = 0; t < 2; t++)
		cr_assert(bh_stream_set_cb_layout(dev->tiles[t], 0, 1));
	for (unsigned t = 0; t < 2; t++)
		for (uint32_t v = 1; v <= 5; v++)
			cr_assert_eq(bh_reg_write(dev, t, 0xFFB40000u + 10 * 4, v), BH_OK);
	cr_assert_eq(bh_device_unobserve(dev, id), BH_OK);
	cr_expect_eq(seen, 10u, "an observer of CB events sees every push");
	cr_assert_eq(bh_device_trace_stop(dev), BH_OK);
	cr_expect_eq(bh_device_trace_stop(dev), BH_ERR_ARG);
	struct jl doc;
	const struct jl *ev;
	load_trace(path, &doc, &ev);
	unlink(path);
	cr_expect_eq(jl_num(jl_get(&doc, "otherData"), "events", -1), 3);
	cr_expect_eq(jl_num(jl_get(&doc, "otherData"), "dropped", -1), 2);
	double want = 3;
	for (unsigned k = 0; k < ev->n; k++) {
		const struct jl *e = &ev->item[k];
		if (is(e, "M", NULL))
			continue;
		cr_expect(is(e, "C", "cb"), "only CB events: %s", jl_str(e, "ph"));
		cr_expect_eq(jl_num(e, "pid", -1), 1, "only tile 1");
		cr_expect_eq(jl_num(jl_get(e, "args"), "received", -1), want++, "the last three pushes, in order");
	}
	cr_expect_eq(want, 6);
	jl_free(&doc);
	bh_device_close(dev);
}

Test(trace, bad_trace_options_are_refused_by_name)
{
	struct cli_out *o = test_cli((const char *const[]){ "run", "--trace-events", "noc,bogus", ELF_FIXED, NULL });
	expect_status(o, 2);
	cr_expect(strstr(o->err, "'bogus' is not a trace event kind"), "%s", o->err);
	free(o);
	o = test_cli((const char *const[]){ "run", "--trace-limit", "0", ELF_FIXED, NULL });
	expect_status(o, 2);
	free(o);
	skip_unless_built();
	o = test_cli((const char *const[]){ "run", "--board", "grid:2x1", "--grid", "--cores", "brisc,ncrisc",
					    "--trace", "/nonexistent-dir/t.json", ELF_FIXED, NULL });
	expect_status(o, 1);
	cr_expect(strstr(o->err, "trace: cannot create /nonexistent-dir/t.json"), "%s", o->err);
	free(o);
	char err[128];
	uint32_t kinds = 0;
	cr_expect_eq(bh_trace_kinds_parse("core,noc", &kinds, err, sizeof err), 0);
	cr_expect_eq(kinds, BH_CORE_EVENTS_CORE | 1u << BH_EVENT_ACTOR | 1u << BH_EVENT_NOC_ISSUE | 1u << BH_EVENT_NOC_LAND);
	cr_expect_eq(bh_trace_kinds_parse("", &kinds, err, sizeof err), -1);
}

/* Serial scheduling: the trace is in virtual time, and the same seed writes the same bytes. */
Test(trace, a_serial_run_traces_in_virtual_time_and_its_seed_rewrites_the_same_file, .timeout = 120)
{
	skip_unless_built();
	char path2[80];
	const char *path = trace_path();
	snprintf(path2, sizeof path2, "%s.2", path);
	const char *files[2] = { path, path2 };
	for (unsigned k = 0; k < 2; k++) {
		struct cli_out *o = test_cli((const char *const[]){ "run", "--sched", "serial", "--seed", "3", "--board",
								     "grid:2x1", "--grid", "--cores", "brisc,ncrisc",
								     "--noc-latency", "20000:20000", "--trace", files[k],
								     ELF_FIXED, NULL });
		expect_status(o, 0);
		free(o);
	}
	size_t n1 = 0, n2 = 0;
	char *a = jl_read_file(path, &n1), *b = jl_read_file(path2, &n2);
	cr_assert(a && b);
	cr_expect(n1 == n2 && !memcmp(a, b, n1), "seed 3 traced differently twice (%zu and %zu bytes)", n1, n2);
	free(a);
	free(b);
	struct jl doc;
	const struct jl *ev;
	load_trace_clock(path, &doc, &ev, "virtual");
	unlink(path);
	unlink(path2);
	/* Each core runs first and exits last; every transaction lands at least 15 us of virtual
	 * time after its issue (20 us of latency, a barrier looking 5 us ahead). */
	unsigned issues = 0;
	for (unsigned k = 0; k < ev->n; k++) {
		const struct jl *s = &ev->item[k];
		if (!is(s, "s", "noc"))
			continue;
		issues++;
		for (unsigned j = 0; j < ev->n; j++) {
			const struct jl *f = &ev->item[j];
			if (is(f, "f", "noc") && jl_num(f, "id", -2) == jl_num(s, "id", -1))
				cr_expect_geq(jl_num(f, "ts", 0) - jl_num(s, "ts", 0), 15.0);
		}
	}
	cr_expect_gt(issues, 0u);
	for (unsigned core = 0; core < 2; core++) {
		const char *first = NULL, *last = NULL;
		double first_ts = 1e300, last_ts = -1;
		for (unsigned k = 0; k < ev->n; k++) {
			const struct jl *e = &ev->item[k];
			if (jl_num(e, "pid", -1) != 0 || jl_num(e, "tid", -1) != core || !jl_str(e, "cat") ||
			    strcmp(jl_str(e, "cat"), "core"))
				continue;
			double ts = jl_num(e, "ts", -1);
			if (is(e, "X", NULL) && ts < first_ts) {
				first_ts = ts;
				first = jl_str(e, "name");
			}
			if (is(e, "i", NULL) && ts > last_ts) {
				last_ts = ts;
				last = jl_str(e, "name");
			}
		}
		cr_expect_str_eq(first ? first : "", "running", "core %u", core);
		cr_expect_str_eq(last ? last : "", "exited 0", "core %u", core);
	}
	jl_free(&doc);
}

/* Tensix threads and the fast-dispatch models have tracks of their own: fast-dispatch launches
 * on a booted 2x2 chip (the reference firmware's TRISCs push Tensix instructions at boot). */
Test(trace, tensix_threads_and_fast_dispatch_models_run_and_park_on_tracks_of_their_own, .timeout = 120)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
	const char *path = trace_path();
	struct cli_out *o = test_cli((const char *const[]){ "smoke", "--board", "grid:2x2", "--launches", "3",
							     "--dispatch", "fast", "--trace-events", "core", "--trace",
							     path, NULL });
	expect_status(o, 0);
	free(o);
	struct jl doc;
	const struct jl *ev;
	load_trace(path, &doc, &ev);
	unlink(path);
	unsigned named[BH_ACTOR_COUNT] = { 0 }, running[BH_ACTOR_COUNT] = { 0 }, parked[BH_ACTOR_COUNT] = { 0 };
	for (unsigned k = 0; k < ev->n; k++) {
		const struct jl *e = &ev->item[k];
		double tid = jl_num(e, "tid", -1);
		if (tid < BH_ACTOR_TENSIX0 || tid >= BH_ACTOR_COUNT)
			continue;
		unsigned t = (unsigned)tid;
		const char *name = jl_str(e, "name");
		if (is(e, "M", NULL)) {
			const char *want[] = { "tensix 0", "tensix 1", "tensix 2", "prefetch", "dispatch" };
			cr_expect_str_eq(jl_str(jl_get(e, "args"), "name"), want[t - BH_ACTOR_TENSIX0]);
			named[t]++;
		} else if (is(e, "X", "core") && name) {
			running[t] += !strcmp(name, "running");
			parked[t] += !strncmp(name, "parked: ", 8) || !strcmp(name, "idle");
		}
	}
	/* The prefetch and dispatch cores are in the last column: tiles 1 and 3. */
	cr_expect_eq(named[BH_ACTOR_CQ_PREFETCH], 1u);
	cr_expect_eq(named[BH_ACTOR_CQ_DISPATCH], 1u);
	unsigned tensix = 0;
	for (unsigned t = BH_ACTOR_TENSIX0; t < BH_ACTOR_COUNT; t++) {
		if (t < BH_ACTOR_CQ_PREFETCH && !named[t])
			continue;   /* which Tensix threads the firmware pushes to is the firmware's business */
		tensix += t < BH_ACTOR_CQ_PREFETCH;
		cr_expect_gt(running[t], 0u, "track %u never ran", t);
		cr_expect_gt(parked[t], 0u, "track %u never waited", t);
	}
	cr_expect_gt(tensix, 0u, "no Tensix thread has a track");
	jl_free(&doc);
}
