/* bh_load_elf: places an ELF's PT_LOAD segments in a tile's L1 or in one core's local data RAM,
 * the way the host driver does before releasing the core from reset (launch.md section 1). */
#include <stdarg.h>
#include <stdio.h>

#include "host/device.h"
#include "host/elf.h"
#include "host/kernel.h"

enum load_dest {
	LOAD_L1,            /* L1 address == vaddr; file bytes then zeros up to memsz */
	LOAD_LDM,           /* the core's local RAM at vaddr - BH_LDM_BASE; zeros up to memsz */
	LOAD_L1_REDIRECT,   /* local-RAM image staged in L1; file bytes only, firmware zeroes .bss */
};

enum load_verdict {
	LOAD_OK,
	LOAD_OUTSIDE,       /* neither in L1 nor in this core's local-RAM window */
	LOAD_REDIRECT_OUTSIDE_L1,
};

__attribute__((format(printf, 3, 4), cold, noinline))
static void load_msg(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Where segment s goes for a core of this kind; *addr is an L1 address or a local-RAM offset. */
static enum load_verdict load_place(const struct bh_elf_segment *s, enum bh_core_kind kind, uint32_t redirect,
				    enum load_dest *dest, uint32_t *addr)
{
	uint64_t end = (uint64_t)s->vaddr + s->memsz;
	if (end <= BH_L1_SIZE) {
		*dest = LOAD_L1;
		*addr = s->vaddr;
		return LOAD_OK;
	}
	if (s->vaddr < BH_LDM_BASE || end > (uint64_t)BH_LDM_BASE + bh_ldm_size(kind))
		return LOAD_OUTSIDE;
	uint32_t off = s->vaddr - BH_LDM_BASE;
	if (redirect == 0) {
		*dest = LOAD_LDM;
		*addr = off;
		return LOAD_OK;
	}
	if ((uint64_t)redirect + off + s->filesz > BH_L1_SIZE)
		return LOAD_REDIRECT_OUTSIDE_L1;
	*dest = LOAD_L1_REDIRECT;
	*addr = redirect + off;
	return LOAD_OK;
}

static int load_check(const struct bh_elf *elf, enum bh_core_kind kind, uint32_t redirect, char *err, size_t errlen)
{
	for (unsigned i = 0; i < elf->nseg; i++) {
		const struct bh_elf_segment *s = &elf->seg[i];
		unsigned long long end = (unsigned long long)s->vaddr + s->memsz;
		enum load_dest dest;
		uint32_t addr;
		switch (load_place(s, kind, redirect, &dest, &addr)) {
		case LOAD_OK:
			break;
		case LOAD_OUTSIDE:
			load_msg(err, errlen,
				 "%s: segment %u [0x%08x,0x%08llx) is outside L1 and the local RAM of %s (0x%08x..0x%08x)",
				 elf->path, i, s->vaddr, end, bh_core_name((enum bh_core_id)kind),
				 BH_LDM_BASE, BH_LDM_BASE + bh_ldm_size(kind) - 1);
			return -1;
		case LOAD_REDIRECT_OUTSIDE_L1: {
			unsigned long long to = (unsigned long long)redirect + (s->vaddr - BH_LDM_BASE);
			load_msg(err, errlen,
				 "%s: segment %u [0x%08x,0x%08llx) redirected to L1 [0x%llx,0x%llx) does not fit in L1 (0x0..0x%x)",
				 elf->path, i, s->vaddr, end, to, to + s->filesz, BH_L1_SIZE - 1);
			return -1;
		}
		}
	}
	return 0;
}

static void load_write(struct bh_tile *tile, enum bh_core_kind kind, enum load_dest dest, uint32_t addr,
		       const void *src, uint32_t len)
{
	if (dest == LOAD_LDM)
		bh_tile_ldm_write(tile, kind, addr, src, len);
	else
		bh_tile_l1_write(tile, addr, src, len);
}

static void load_segment(struct bh_tile *tile, enum bh_core_kind kind, enum load_dest dest, uint32_t addr,
			 const struct bh_elf_segment *s)
{
	static const uint8_t zeros[4096];

	if (s->filesz)
		load_write(tile, kind, dest, addr, s->data, s->filesz);
	if (dest == LOAD_L1_REDIRECT)
		return;
	for (uint32_t done = s->filesz; done < s->memsz;) {
		uint32_t n = s->memsz - done < sizeof(zeros) ? s->memsz - done : (uint32_t)sizeof(zeros);
		load_write(tile, kind, dest, addr + done, zeros, n);
		done += n;
	}
}

int bh_load_elf(struct bh_device *dev, unsigned tile, enum bh_core_id core, const char *path,
		const struct bh_load_options *opt, uint32_t *entry, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!dev || !path) {
		load_msg(err, errlen, "bh_load_elf: %s is NULL", dev ? "path" : "device");
		return BH_ERR_ARG;
	}
	if (tile >= dev->ntiles) {
		load_msg(err, errlen, "%s: tile %u does not exist (the device has %u)", path, tile, dev->ntiles);
		return BH_ERR_ARG;
	}
	if ((unsigned)core >= BH_CORES_PER_TILE) {
		load_msg(err, errlen, "%s: core %d is not a core id (0 brisc .. 4 trisc2)", path, (int)core);
		return BH_ERR_ARG;
	}
	enum bh_core_kind kind = (enum bh_core_kind)core;
	uint32_t redirect = opt ? opt->ldm_redirect : 0;

	struct bh_elf *elf = bh_elf_open(path, err, errlen);
	if (!elf)
		return BH_ERR_ELF;
	/* All or nothing: every segment is placed before the first byte is written. */
	if (load_check(elf, kind, redirect, err, errlen) != 0) {
		bh_elf_close(elf);
		return BH_ERR_ELF;
	}

	struct bh_tile *t = dev->tiles[tile];
	for (unsigned i = 0; i < elf->nseg; i++) {
		enum load_dest dest = LOAD_L1;
		uint32_t addr = 0;
		load_place(&elf->seg[i], kind, redirect, &dest, &addr);
		load_segment(t, kind, dest, addr, &elf->seg[i]);
	}

	if (entry)
		*entry = elf->entry;
	/* Fault reports read the slot under the tile lock (core_result_locked), so swap it there. */
	pthread_mutex_lock(&t->lock);
	struct bh_elf **slot = bh_device_elf_slot(dev, tile, core);
	struct bh_elf *old = *slot;
	*slot = elf;
	pthread_mutex_unlock(&t->lock);
	bh_elf_close(old);
	return BH_OK;
}

int bh_core_symbol_lookup(struct bh_device *dev, unsigned tile, enum bh_core_id core, const char *name,
			  uint32_t *addr)
{
	if (!dev || !name || !addr || tile >= dev->ntiles || (unsigned)core >= BH_CORES_PER_TILE)
		return BH_ERR_ARG;
	/* bh_load_elf swaps the slot under the tile lock; hold it so the ELF cannot be freed under us. */
	struct bh_tile *t = dev->tiles[tile];
	pthread_mutex_lock(&t->lock);
	const struct bh_elf *elf = *bh_device_elf_slot(dev, tile, core);
	int rc = elf && bh_elf_symbol_lookup(elf, name, addr) == 0 ? BH_OK : BH_ERR_ARG;
	pthread_mutex_unlock(&t->lock);
	return rc;
}

static void symbol_format(const struct bh_elf_symbol *s, uint32_t off, char *out, size_t n)
{
	if (!s)
		snprintf(out, n, "%s", "");
	else if (off)
		snprintf(out, n, " <%s+0x%x>", s->name, off);
	else
		snprintf(out, n, " <%s>", s->name);
}

/* Callers hold the tile's lock (the firmware ELF slot is swapped under it); the kernel table has
 * its own leaf lock. A kernel's symbols are at link addresses: shift by where it was placed. */
void bh_device_symbolize(struct bh_device *dev, unsigned tile, unsigned core, uint32_t addr, char *out, size_t n)
{
	uint32_t off = 0;
	const struct bh_elf_symbol *s = NULL;
	out[0] = 0;
	if (tile >= dev->ntiles || core >= BH_CORES_PER_TILE)
		return;
	pthread_mutex_lock(&dev->ksym_lock);
	const struct bh_kernel_sym *ks = &dev->ksym[tile * BH_CORES_PER_TILE + core];
	if (ks->img && addr - ks->addr < ks->img->size) {
		s = ks->img->elf ? bh_elf_symbol_at(ks->img->elf, addr - ks->addr + BH_KERNEL_LINK_BASE, &off) : NULL;
		if (s)
			symbol_format(s, off, out, n);
		else
			snprintf(out, n, " <kernel %s+0x%x>", ks->img->path, addr - ks->addr);
		pthread_mutex_unlock(&dev->ksym_lock);
		return;
	}
	pthread_mutex_unlock(&dev->ksym_lock);
	const struct bh_elf *elf = *bh_device_elf_slot(dev, tile, core);
	s = elf ? bh_elf_symbol_at(elf, addr, &off) : NULL;
	symbol_format(s, off, out, n);
}
