/* Fault reports a firmware author can act on: tile, core, pc with symbol+offset, the
 * instruction, the address and the region or register it falls in, and what was expected. */
#include <stdio.h>
#include <string.h>

#include "cores/rv32_insns.h"
#include "host/device.h"

void bh_fault_format(struct bh_device *dev, const struct bh_core *c, char *out, size_t n)
{
	const struct bh_fault *f = &c->fault;
	const struct bh_tile *t = c->tile;
	char sym[160], dis[160], where[320] = "";
	bh_device_symbolize(dev, t->index, c->kind, f->pc, sym, sizeof sym);
	rv32_disasm(f->insn, f->pc, dis, sizeof dis);
	if (f->has_addr) {
		char asym[160] = "";
		if (f->addr < 0x180000)
			bh_device_symbolize(dev, t->index, c->kind, f->addr, asym, sizeof asym);
		if (f->size)
			snprintf(where, sizeof where, "\n  access: %u-byte %s 0x%08x%s%s%s", f->size,
				 f->is_store ? "store to" : "load from", f->addr, asym, f->region[0] ? " in " : "",
				 f->region);
		else
			snprintf(where, sizeof where, "\n  address: 0x%08x%s%s%s", f->addr, asym,
				 f->region[0] ? " in " : "", f->region);
	}
	snprintf(out, n,
		 "fault: %s on tile %u (%u,%u) core %s\n"
		 "  pc 0x%08x%s: %08x  %s%s\n"
		 "  why: %s",
		 bh_fault_kind_name(f->kind), t->index, t->x, t->y, bh_core_kind_name(c->kind),
		 f->pc, sym, f->insn, dis, where, f->detail);
}
