/* Fault reports a firmware author can act on: tile, core, pc with symbol+offset, the
 * instruction, the address and the region or register it falls in, and what was expected.
 * Findings of the detectors (fabric/check.h) read the same, headed by their check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/rv32_insns.h"
#include "host/device.h"

void bh_fault_format_at(struct bh_device *dev, unsigned tile, unsigned core, const struct bh_fault *f, char *out,
			size_t n)
{
	const struct bh_tile *t = dev->tiles[tile];
	char sym[160], dis[160], where[320] = "", head[96], other[288] = "";
	bh_device_symbolize(dev, tile, core, f->pc, sym, sizeof sym);
	rv32_disasm(f->insn, f->pc, dis, sizeof dis);
	if (f->has_addr) {
		char asym[160] = "";
		if (f->addr < 0x180000)
			bh_device_symbolize(dev, tile, core, f->addr, asym, sizeof asym);
		if (f->size)
			snprintf(where, sizeof where, "\n  access: %u-byte %s 0x%08x%s%s%s", f->size,
				 f->is_store ? "store to" : "load from", f->addr, asym, f->region[0] ? " in " : "",
				 f->region);
		else
			snprintf(where, sizeof where, "\n  address: 0x%08x%s%s%s", f->addr, asym,
				 f->region[0] ? " in " : "", f->region);
	}
	if (f->kind == BH_FAULT_CHECK) {
		snprintf(head, sizeof head, "check %s:", bh_check_name((enum bh_check)f->check));
		if (f->other[0])
			snprintf(other, sizeof other, "\n  other: %s", f->other);
	} else {
		snprintf(head, sizeof head, "fault: %s", bh_fault_kind_name(f->kind));
	}
	snprintf(out, n,
		 "%s on tile %u (%u,%u) core %s\n"
		 "  pc 0x%08x%s: %08x  %s%s%s\n"
		 "  why: %s",
		 head, tile, t->x, t->y, bh_core_kind_name((enum bh_core_kind)core), f->pc, sym, f->insn, dis, where,
		 other, f->detail);
}

void bh_fault_format(struct bh_device *dev, const struct bh_core *c, char *out, size_t n)
{
	bh_fault_format_at(dev, c->tile->index, c->kind, &c->fault, out, n);
}

int bh_device_findings(struct bh_device *dev, char *buf, size_t len)
{
	if (!dev || (!buf && len))
		return BH_ERR_ARG;
	struct bh_finding *log;
	unsigned kept, n = bh_checks_copy(&dev->chip.checks, &log, &kept);
	size_t used = 0;
	if (len)
		buf[0] = 0;
	for (unsigned k = 0; k < kept && used + 1 < len; k++) {
		char one[1536];
		bh_fault_format_at(dev, log[k].tile, log[k].core, &log[k].fault, one, sizeof one);
		int w = snprintf(buf + used, len - used, "%s\n", one);
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = 0;   /* only whole reports */
			break;
		}
		used += (size_t)w;
	}
	free(log);
	return (int)n;
}
