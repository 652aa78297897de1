/* The PCIe endpoint as the host sees it: configuration space, BAR decode, TLBs, outbound iATU
 * (fabric/pcie.h). */
#include <stdio.h>
#include <string.h>

#include "fabric/fault.h"
#include "fabric/pcie.h"

static const uint64_t bar_size[3] = { BH_BAR0_SIZE, BH_BAR2_SIZE, BH_BAR4_SIZE };

void bh_pcie_init(struct bh_pcie *p, uint64_t bar0, uint64_t bar2, uint64_t bar4)
{
	const uint64_t base[3] = { bar0, bar2, bar4 };
	memset(p, 0, sizeof *p);
	for (unsigned b = 0; b < 3; b++) {
		p->bar[2 * b] = (uint32_t)base[b] | BH_BAR_MEM64;
		p->bar[2 * b + 1] = (uint32_t)(base[b] >> 32);
	}
	p->intr = 0xFFu;          /* interrupt line 0xFF, no INTx pin */
}

static uint64_t bar_base(const struct bh_pcie *p, unsigned b)
{
	return ((uint64_t)p->bar[2 * b + 1] << 32 | p->bar[2 * b]) & ~15ull;
}

/* Configuration space header type 0: the words a host reads and which of their bits it may
 * write. A BAR's writable bits are its address bits above the size: writing all-ones and reading
 * back gives the size (the sizing protocol). */
bool bh_pcie_config_read(const struct bh_pcie *p, uint32_t off, uint32_t *val, char *err, size_t errlen)
{
	switch (off) {
	case 0x00: *val = BH_PCI_VENDOR_ID | BH_PCI_DEVICE_ID << 16; return true;
	case 0x04: *val = p->command; return true;
	case 0x08: *val = BH_PCI_CLASS_REV; return true;
	case 0x0C: *val = p->cache_hdr; return true;
	case 0x10: case 0x14: case 0x18: case 0x1C: case 0x20: case 0x24:
		*val = p->bar[(off - 0x10) / 4];
		return true;
	case 0x28: case 0x2C: case 0x30: case 0x34: case 0x38:
		*val = 0;         /* no CIS, subsystem ids, expansion ROM or capabilities */
		return true;
	case 0x3C: *val = p->intr; return true;
	default:
		return bh_errf(err, errlen, "config space offset 0x%x: not modelled (the header is 0x00-0x3c)", off);
	}
}

bool bh_pcie_config_write(struct bh_pcie *p, uint32_t off, uint32_t val, char *err, size_t errlen)
{
	uint32_t *reg, mask;
	switch (off) {
	case 0x04: reg = &p->command; mask = 0xFFFFu; break;
	case 0x0C: reg = &p->cache_hdr; mask = 0xFFFFu; break;
	case 0x10: case 0x14: case 0x18: case 0x1C: case 0x20: case 0x24: {
		unsigned w = (off - 0x10) / 4;
		uint64_t m = ~(bar_size[w / 2] - 1);
		reg = &p->bar[w];
		mask = w & 1 ? (uint32_t)(m >> 32) : (uint32_t)m & ~15u;
		break;
	}
	case 0x30: return true;   /* no expansion ROM: writes ignored */
	case 0x3C: reg = &p->intr; mask = 0xFFu; break;
	default:
		return bh_errf(err, errlen, "config space write at offset 0x%x: read-only or not modelled", off);
	}
	*reg = (*reg & ~mask) | (val & mask);
	return true;
}

/* TLB configuration fields, as bit positions in the 96-bit value of words 0..2 (tt-umd's
 * tlb_offsets for Blackhole; pcie-and-tt-kmd.md). */
struct tlb_layout {
	uint8_t addr_bits, x_end, y_end, x_start, y_start, noc, mcast, ordering, linked, static_vc, end;
};
static const struct tlb_layout tlb_2m = { 43, 43, 49, 55, 61, 67, 69, 70, 72, 73, 76 };
static const struct tlb_layout tlb_4g = { 32, 32, 38, 44, 50, 56, 58, 59, 61, 62, 65 };

static uint64_t bits(const uint32_t w[3], unsigned lo, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned b = lo + i;
		v |= (uint64_t)(w[b / 32] >> (b % 32) & 1u) << i;
	}
	return v;
}

static void set_bits(uint32_t w[3], unsigned lo, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned b = lo + i;
		w[b / 32] = (w[b / 32] & ~(1u << (b % 32))) | (uint32_t)(v >> i & 1u) << (b % 32);
	}
}

static const struct tlb_layout *tlb_layout_of(unsigned index)
{
	return index < BH_TLB_2M_COUNT ? &tlb_2m : &tlb_4g;
}

bool bh_pcie_tlb(const struct bh_pcie *p, unsigned index, struct bh_tlb *out, char *err, size_t errlen)
{
	const struct tlb_layout *l = tlb_layout_of(index);
	const uint32_t *w = &p->tlb_cfg[3 * index];
	unsigned shift = index < BH_TLB_2M_COUNT ? BH_TLB_2M_SHIFT : BH_TLB_4G_SHIFT;
	memset(out, 0, sizeof *out);
	out->addr = bits(w, 0, l->addr_bits) << shift;
	out->x_end = (uint8_t)bits(w, l->x_end, 6);
	out->y_end = (uint8_t)bits(w, l->y_end, 6);
	out->x_start = (uint8_t)bits(w, l->x_start, 6);
	out->y_start = (uint8_t)bits(w, l->y_start, 6);
	out->noc = (uint8_t)bits(w, l->noc, 1);
	out->mcast = bits(w, l->mcast, 1);
	out->ordering = (uint8_t)bits(w, l->ordering, 2);
	out->linked = bits(w, l->linked, 1);
	out->static_vc = bits(w, l->static_vc, 1);
	uint64_t rest = bits(w, l->end, 96 - l->end) | bits(w, l->noc + 1, 1) << 63;
	if (rest)
		return bh_errf(err, errlen, "TLB %u: reserved configuration bits set (words 0x%08x 0x%08x 0x%08x)", index,
				w[0], w[1], w[2]);
	if (out->ordering == 3)
		return bh_errf(err, errlen, "TLB %u: ordering mode 3 is reserved", index);
	return true;
}

void bh_pcie_tlb_encode(unsigned index, const struct bh_tlb *t, uint32_t w[3])
{
	const struct tlb_layout *l = tlb_layout_of(index);
	unsigned shift = index < BH_TLB_2M_COUNT ? BH_TLB_2M_SHIFT : BH_TLB_4G_SHIFT;
	w[0] = w[1] = w[2] = 0;
	set_bits(w, 0, l->addr_bits, t->addr >> shift);
	set_bits(w, l->x_end, 6, t->x_end);
	set_bits(w, l->y_end, 6, t->y_end);
	set_bits(w, l->x_start, 6, t->x_start);
	set_bits(w, l->y_start, 6, t->y_start);
	set_bits(w, l->noc, 1, t->noc);
	set_bits(w, l->mcast, 1, t->mcast);
	set_bits(w, l->ordering, 2, t->ordering);
	set_bits(w, l->linked, 1, t->linked);
	set_bits(w, l->static_vc, 1, t->static_vc);
}

/* The host view's decode table: per BAR, the ranges of its offsets and what serves them. */
struct bar_range {
	uint8_t bar;
	uint8_t kind;             /* enum bh_pcie_kind */
	uint8_t reg;              /* registers: one aligned 32-bit word per access */
	uint64_t base, size;
	const char *name;
};

static const struct bar_range bar_map[] = {
	{ 0, BH_PCIE_TLB_WINDOW, 0, 0, (uint64_t)BH_TLB_2M_COUNT << BH_TLB_2M_SHIFT, "2 MiB TLB windows" },
	{ 0, BH_PCIE_TLB_CFG, 1, BH_TLB_CFG_BASE, BH_TLB_COUNT * BH_TLB_CFG_BYTES, "TLB configuration" },
	{ 0, BH_PCIE_NIU, 1, BH_BAR0_NIU0_BASE, BH_BAR0_NIU_SIZE, "PCIe NIU (NoC0)" },
	{ 0, BH_PCIE_NIU, 1, BH_BAR0_NIU1_BASE, BH_BAR0_NIU_SIZE, "PCIe NIU (NoC1)" },
	{ 2, BH_PCIE_DMA, 1, BH_BAR2_DMA_RD_BASE, BH_BAR2_DMA_RD_SIZE, "DMA read channel 0" },
	{ 2, BH_PCIE_IATU, 1, BH_BAR2_IATU_BASE, BH_BAR2_IATU_SIZE, "iATU" },
	{ 4, BH_PCIE_TLB_WINDOW, 0, 0, (uint64_t)BH_TLB_4G_COUNT << BH_TLB_4G_SHIFT, "4 GiB TLB windows" },
};

bool bh_pcie_decode(const struct bh_pcie *p, uint64_t paddr, uint32_t len, struct bh_pcie_target *t, char *err,
		    size_t errlen)
{
	memset(t, 0, sizeof *t);
	if (len == 0)
		return bh_errf(err, errlen, "access of 0 bytes at 0x%llx", (unsigned long long)paddr);
	int bar = -1;
	for (unsigned b = 0; b < 3 && bar < 0; b++)
		if (paddr - bar_base(p, b) < bar_size[b])
			bar = (int)b;
	if (bar < 0)
		return bh_errf(err, errlen, "address 0x%llx is in no BAR (BAR0 0x%llx, BAR2 0x%llx, BAR4 0x%llx)",
				(unsigned long long)paddr, (unsigned long long)bar_base(p, 0),
				(unsigned long long)bar_base(p, 1), (unsigned long long)bar_base(p, 2));
	uint64_t off = paddr - bar_base(p, (unsigned)bar);
	t->bar = 2u * (unsigned)bar;
	for (size_t i = 0; i < sizeof bar_map / sizeof bar_map[0]; i++) {
		const struct bar_range *r = &bar_map[i];
		if (r->bar != t->bar || off - r->base >= r->size)
			continue;
		uint64_t in = off - r->base;
		if (len > r->size - in)
			return bh_errf(err, errlen, "BAR%u offset 0x%llx + %u bytes runs past the end of the %s", t->bar,
					(unsigned long long)off, len, r->name);
		if (r->reg && (len != 4 || (in & 3)))
			return bh_errf(err, errlen, "BAR%u offset 0x%llx (%s): %u bytes; registers take 4-byte accesses "
					"at 4-byte aligned offsets", t->bar, (unsigned long long)off, r->name, len);
		t->kind = (enum bh_pcie_kind)r->kind;
		t->off = (uint32_t)in;
		switch (t->kind) {
		case BH_PCIE_TLB_WINDOW: {
			unsigned shift = t->bar == 0 ? BH_TLB_2M_SHIFT : BH_TLB_4G_SHIFT;
			uint64_t in_win = in & ((1ull << shift) - 1);
			t->index = (unsigned)(in >> shift) + (t->bar == 0 ? 0 : BH_TLB_2M_COUNT);
			if (in_win + len > 1ull << shift)
				return bh_errf(err, errlen, "TLB %u: offset 0x%llx + %u bytes crosses the end of its window",
						t->index, (unsigned long long)in_win, len);
			if (!bh_pcie_tlb(p, t->index, &t->tlb, err, errlen))
				return false;
			t->addr = t->tlb.addr + in_win;
			return true;
		}
		case BH_PCIE_TLB_CFG:
			t->index = (unsigned)(in / 4);
			return true;
		case BH_PCIE_NIU:
			t->index = r->base == BH_BAR0_NIU1_BASE;
			return true;
		case BH_PCIE_DMA:
			t->off = (uint32_t)off;
			return true;
		default:
			return true;
		}
	}
	return bh_errf(err, errlen, "BAR%u offset 0x%llx: nothing is mapped there", t->bar, (unsigned long long)off);
}

/* The iATU block interleaves outbound (even 0x100 slots) and inbound (odd) regions; inbound
 * translation is not modelled. */
static uint32_t *iatu_reg(struct bh_pcie *p, uint32_t off)
{
	unsigned slot = off / 0x100, reg = off % 0x100;
	if (slot & 1 || slot / 2 >= BH_IATU_REGIONS)
		return NULL;
	struct bh_iatu_region *r = &p->iatu_out[slot / 2];
	switch (reg) {
	case 0x00: return &r->ctrl1;
	case 0x04: return &r->ctrl2;
	case 0x08: return &r->base_lo;
	case 0x0C: return &r->base_hi;
	case 0x10: return &r->limit_lo;
	case 0x14: return &r->target_lo;
	case 0x18: return &r->target_hi;
	case 0x1C: return &r->ctrl3;
	case 0x20: return &r->limit_hi;
	default: return NULL;
	}
}

bool bh_pcie_iatu_read(const struct bh_pcie *p, uint32_t off, uint32_t *val, char *err, size_t errlen)
{
	const uint32_t *r = iatu_reg((struct bh_pcie *)p, off);
	if (!r)
		return bh_errf(err, errlen, "iATU offset 0x%x: not an outbound region register (inbound regions are "
				"not modelled)", off);
	*val = *r;
	return true;
}

bool bh_pcie_iatu_write(struct bh_pcie *p, uint32_t off, uint32_t val, char *err, size_t errlen)
{
	uint32_t *r = iatu_reg(p, off);
	if (!r)
		return bh_errf(err, errlen, "iATU offset 0x%x: not an outbound region register (inbound regions are "
				"not modelled)", off);
	*r = val;
	return true;
}

bool bh_pcie_host_addr(const struct bh_pcie *p, uint64_t addr, uint32_t len, uint64_t *host, char *err,
		       size_t errlen)
{
	const uint64_t win = 1ull << BH_PCIE_HOST_WINDOW_SHIFT;
	uint64_t off = addr & (win - 1), w = addr >> BH_PCIE_HOST_WINDOW_SHIFT;
	if (w >= 8)
		return bh_errf(err, errlen, "host access 0x%llx: window %llu of the PCIe tile does not exist",
				(unsigned long long)addr, (unsigned long long)w);
	if (len > win - off)
		return bh_errf(err, errlen, "host access 0x%llx + %u bytes crosses a 2^58 window",
				(unsigned long long)addr, len);
	*host = off;
	if (w < 4)
		return true;
	bool hit = false;
	for (unsigned i = 0; i < BH_IATU_REGIONS; i++) {
		const struct bh_iatu_region *r = &p->iatu_out[i];
		if (!(r->ctrl2 & BH_IATU_ENABLE))
			continue;
		uint64_t base = (uint64_t)r->base_hi << 32 | r->base_lo;
		uint64_t limit = (uint64_t)r->limit_hi << 32 | r->limit_lo;
		if (off < base || off + len - 1 > limit)
			continue;
		if (hit)
			return bh_errf(err, errlen, "host access 0x%llx matches two enabled outbound iATU regions",
					(unsigned long long)addr);
		*host = ((uint64_t)r->target_hi << 32 | r->target_lo) + (off - base);
		hit = true;
	}
	return true;
}
