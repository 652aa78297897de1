/* CB throughput measurements shared by bench_sync and bench_tensix (bench_cb.h). */
#include <inttypes.h>
#include <stdio.h>

#include "bench_cb.h"

struct pingpong_params {
	uint32_t pages, cb_pages, page_size;
};

/* cb_pingpong.c: pingpong_pages and the CB0 slot of pingpong_cb_config (start kept). */
static bool pingpong_patch(struct bh_device *dev, const char *elf, void *ctx, char *err, size_t errlen)
{
	const struct pingpong_params *p = ctx;
	uint32_t pages_addr, cfg_addr;

	if (!guest_symbol(dev, 0, BH_CORE_BRISC, elf, "pingpong_pages", &pages_addr, err, errlen) ||
	    !guest_symbol(dev, 0, BH_CORE_BRISC, elf, "pingpong_cb_config", &cfg_addr, err, errlen))
		return false;
	guest_l1_put32(dev, 0, pages_addr, p->pages);
	guest_l1_put32(dev, 0, cfg_addr + 4, p->cb_pages * p->page_size);
	guest_l1_put32(dev, 0, cfg_addr + 8, p->cb_pages);
	guest_l1_put32(dev, 0, cfg_addr + 12, p->page_size);
	return true;
}

/* Per-core instructions and parks per page of the best bhemu run, for the diagnostics. */
static void describe_guest_run(struct benchlib_row *r, const struct guest_run *g, unsigned ncores, uint32_t pages)
{
	benchlib_appendf(r->extra, sizeof r->extra, ", \"bhemu_per_core\": {");
	for (unsigned k = 0; k < ncores; k++) {
		const char *name = bh_core_name((enum bh_core_id)k);
		double insns = (double)g->instructions[k] / pages, parks = (double)g->parks[k] / pages;
		benchlib_appendf(r->diag, sizeof r->diag, "%s%s %.0f insns %.2f parks", k ? ", " : "", name, insns, parks);
		benchlib_appendf(r->extra, sizeof r->extra, "%s\"%s\": {\"instructions_per_page\": %.2f, \"parks_per_page\": %.4f}",
			k ? ", " : "", name, insns, parks);
	}
	benchlib_appendf(r->diag, sizeof r->diag, " per page");
	benchlib_appendf(r->extra, sizeof r->extra, "}");
}

void bench_cb_measure(struct benchlib_row *r, int repeat, const char *elf, unsigned ncores, guest_patch_fn patch,
		      void *ctx, const struct native_cb *cbs, uint32_t pages)
{
	struct guest_run best = { .seconds = -1 };
	double native_best = -1, bhemu_rates[BENCH_CB_MAX_REPEAT], native_rates[BENCH_CB_MAX_REPEAT], bhemu_parks[BENCH_CB_MAX_REPEAT];
	int runs = 0;
	char err[512];

	for (; runs < repeat; runs++) {
		struct guest_run g;
		if (!guest_run(elf, ncores, patch, ctx, &g, err, sizeof err)) {
			benchlib_row_fail(r, "bhemu: %s", err);
			break;
		}
		if (best.seconds < 0 || g.seconds < best.seconds)
			best = g;
		double s = native_cb_chain(ncores, cbs, pages, err, sizeof err);
		if (s < 0) {
			benchlib_row_fail(r, "native: %s", err);
			break;
		}
		if (native_best < 0 || s < native_best)
			native_best = s;
		bhemu_rates[runs] = pages / g.seconds;
		native_rates[runs] = pages / s;
		bhemu_parks[runs] = 0;
		for (unsigned k = 0; k < ncores; k++)
			bhemu_parks[runs] += (double)g.parks[k] / pages;
	}
	if (best.seconds > 0) {
		r->bhemu = pages / best.seconds;
		describe_guest_run(r, &best, ncores, pages);
	}
	if (native_best > 0)
		r->ref = pages / native_best;
	benchlib_appendf(r->extra, sizeof r->extra, ", \"pages\": %" PRIu32 ", \"page_size\": %d", pages, BENCH_CB_PAGE_SIZE);
	/* Every run, not just the best: the spread says how much parking and machine load varied. */
	static const char *const run_keys[] = { "bhemu_runs_pages_per_s", "bhemu_runs_parks_per_page",
						"native_runs_pages_per_s" };
	const double *run_values[] = { bhemu_rates, bhemu_parks, native_rates };
	for (int k = 0; k < 3; k++) {
		benchlib_appendf(r->extra, sizeof r->extra, ", \"%s\": [", run_keys[k]);
		for (int i = 0; i < runs; i++)
			benchlib_appendf(r->extra, sizeof r->extra, k == 1 ? "%s%.4f" : "%s%.0f", i ? ", " : "", run_values[k][i]);
		benchlib_appendf(r->extra, sizeof r->extra, "]");
	}
	if (runs > 1) {
		benchlib_appendf(r->diag, sizeof r->diag, "; every run, bhemu pages/s (parks/page, all cores):");
		for (int i = 0; i < runs; i++)
			benchlib_appendf(r->diag, sizeof r->diag, " %.0f (%.2f)", bhemu_rates[i], bhemu_parks[i]);
		benchlib_appendf(r->diag, sizeof r->diag, ", native:");
		for (int i = 0; i < runs; i++)
			benchlib_appendf(r->diag, sizeof r->diag, " %.0f", native_rates[i]);
	}
}

void bench_cb_pingpong(struct benchlib_row *r, int repeat, const char *elf, uint32_t pages, uint32_t cb_pages)
{
	struct pingpong_params p = { pages, cb_pages, BENCH_CB_PAGE_SIZE };
	struct native_cb cb = { cb_pages, BENCH_CB_PAGE_SIZE };

	snprintf(r->name, sizeof r->name, "cb pingpong, %u-page CB", cb_pages);
	r->bar_kind = BENCHLIB_BAR_RATIO_MIN;
	r->bar = BENCH_CB_PINGPONG_BAR;
	bench_cb_measure(r, repeat, elf, 2, pingpong_patch, &p, &cb, p.pages);
	benchlib_appendf(r->extra, sizeof r->extra, ", \"cb_pages\": %u", cb_pages);
}

