/* Kernel images (firmware/kernel/ABI.md sections 2-3). A kernel is linked once at
 * BH_KERNEL_LINK_BASE with its relocations kept (--emit-relocs); each launch places it at
 * kcb + kernel_text_offset[p], which differs between programs, so the host moves it the way
 * tt-metal's loader does: what points into the image moves with it, everything else (local RAM,
 * firmware, registers) stays where it is. */
#include "host/kernel.h"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_MAX_IMAGE	0x100000u	/* nothing larger fits the kernel-config area anyway */

static int kfail(char *err, size_t n, const char *path, const char *fmt, ...)
{
	va_list ap;
	int used = snprintf(err, n, "%s: ", path);
	va_start(ap, fmt);
	if (used >= 0 && (size_t)used < n)
		vsnprintf(err + used, n - (size_t)used, fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t kernel_hash(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001B3ull;
	return h;
}

static void kernel_rehash(struct bh_kernel_image *k)
{
	uint64_t h = kernel_hash(0xCBF29CE484222325ull, &k->proc, sizeof k->proc);
	h = kernel_hash(h, k->bytes, k->size);
	k->hash = kernel_hash(h, k->rel, k->nrel * sizeof *k->rel);
}

struct bh_kernel_image *bh_kernel_ref(struct bh_kernel_image *k)
{
	if (k)
		atomic_fetch_add_explicit(&k->refs, 1, memory_order_relaxed);
	return k;
}

void bh_kernel_unref(struct bh_kernel_image *k)
{
	if (!k || atomic_fetch_sub_explicit(&k->refs, 1, memory_order_acq_rel) != 1)
		return;
	bh_elf_close(k->elf);
	free(k->rel);
	free(k->bytes);
	free(k->path);
	free(k);
}

static struct bh_kernel_image *kernel_new(const char *path)
{
	struct bh_kernel_image *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	atomic_init(&k->refs, 1);
	k->path = strdup(path);
	if (!k->path) {
		free(k);
		return NULL;
	}
	return k;
}

struct bh_kernel_image *bh_kernel_from_code(unsigned proc, const uint32_t *code, size_t words)
{
	if (!code || words == 0 || words > KERNEL_MAX_IMAGE / 4)
		return NULL;
	struct bh_kernel_image *k = kernel_new("<code>");
	if (!k)
		return NULL;
	k->proc = proc;
	k->size = (uint32_t)(words * 4);
	k->bytes = malloc(k->size);
	if (!k->bytes) {
		bh_kernel_unref(k);
		return NULL;
	}
	memcpy(k->bytes, code, k->size);
	kernel_rehash(k);
	return k;
}

/* ---- Reading the ELF --------------------------------------------------------------------------- */

struct kload {
	struct bh_kernel_image *k;
	Elf *lib;
	const char *path;
	char *err;
	size_t errlen;
	GElf_Phdr *ph;         /* PT_LOADs with file bytes */
	size_t nph;
};

/* Image offset of file offset fo, and whether that byte's address moves with the image; false
 * when the byte is in no loaded segment. */
static bool kload_file_to_image(const struct kload *l, uint64_t fo, uint32_t *off, uint32_t *moves)
{
	for (size_t i = 0; i < l->nph; i++) {
		const GElf_Phdr *p = &l->ph[i];
		if (fo >= p->p_offset && fo < p->p_offset + p->p_filesz) {
			*off = (uint32_t)(p->p_paddr - BH_KERNEL_LINK_BASE + (fo - p->p_offset));
			*moves = p->p_vaddr == p->p_paddr;
			return true;
		}
	}
	return false;
}

static int kload_segments(struct kload *l)
{
	size_t phnum;
	if (elf_getphdrnum(l->lib, &phnum) != 0)
		return kfail(l->err, l->errlen, l->path, "bad program headers: %s", elf_errmsg(-1));
	l->ph = calloc(phnum ? phnum : 1, sizeof *l->ph);
	if (!l->ph)
		return kfail(l->err, l->errlen, l->path, "out of memory");
	uint64_t end = 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(l->lib, (int)i, &ph))
			return kfail(l->err, l->errlen, l->path, "program header %zu: %s", i, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		/* The ELF reader checks the file bytes of segments with a memory size (inside the file, no
		 * more than the memory size); these are copied too, so the same rule holds here. */
		if (ph.p_filesz > ph.p_memsz)
			return kfail(l->err, l->errlen, l->path, "segment %zu: file size 0x%llx exceeds memory size 0x%llx", i,
				     (unsigned long long)ph.p_filesz, (unsigned long long)ph.p_memsz);
		if (ph.p_paddr < BH_KERNEL_LINK_BASE || ph.p_paddr + ph.p_filesz > BH_KERNEL_LINK_BASE + KERNEL_MAX_IMAGE)
			return kfail(l->err, l->errlen, l->path, "segment %zu loads at 0x%llx, outside the kernel image "
				     "[0x%08x, +0x%x): not linked by bhemu_kernel() (firmware/kernel/ABI.md)", i,
				     (unsigned long long)ph.p_paddr, BH_KERNEL_LINK_BASE, KERNEL_MAX_IMAGE);
		l->ph[l->nph++] = ph;
		if (ph.p_paddr + ph.p_filesz - BH_KERNEL_LINK_BASE > end)
			end = ph.p_paddr + ph.p_filesz - BH_KERNEL_LINK_BASE;
	}
	if (end == 0)
		return kfail(l->err, l->errlen, l->path, "no loadable bytes");
	struct bh_kernel_image *k = l->k;
	k->size = (uint32_t)((end + 3) & ~3ull);
	k->bytes = calloc(1, k->size);
	if (!k->bytes)
		return kfail(l->err, l->errlen, l->path, "out of memory");
	for (size_t i = 0; i < l->nph; i++)
		memcpy(k->bytes + (l->ph[i].p_paddr - BH_KERNEL_LINK_BASE), k->elf->image + l->ph[i].p_offset,
		       l->ph[i].p_filesz);
	return 0;
}

static bool kload_supported(uint32_t type)
{
	switch (type) {
	case R_RISCV_NONE: case R_RISCV_32: case R_RISCV_BRANCH: case R_RISCV_JAL: case R_RISCV_CALL:
	case R_RISCV_CALL_PLT: case R_RISCV_PCREL_HI20: case R_RISCV_PCREL_LO12_I: case R_RISCV_PCREL_LO12_S:
	case R_RISCV_HI20: case R_RISCV_LO12_I: case R_RISCV_LO12_S: case R_RISCV_ALIGN: case R_RISCV_RELAX:
		return true;
	default:
		return false;
	}
}

/* One .rela section whose target section is loaded. */
static int kload_rela(struct kload *l, Elf_Scn *scn, const GElf_Shdr *rsh, const GElf_Shdr *tsh, const char *tname)
{
	Elf_Scn *symscn = elf_getscn(l->lib, rsh->sh_link);
	Elf_Data *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!syms || !d)
		return kfail(l->err, l->errlen, l->path, "relocations of %s: no symbol table", tname);
	size_t n = rsh->sh_entsize ? rsh->sh_size / rsh->sh_entsize : 0;
	struct bh_kernel_image *k = l->k;
	struct bh_kernel_reloc *rel = realloc(k->rel, (k->nrel + n) * sizeof *rel);
	if (!rel && n)
		return kfail(l->err, l->errlen, l->path, "out of memory");
	k->rel = rel;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		if (!gelf_getrela(d, (int)i, &r))
			return kfail(l->err, l->errlen, l->path, "relocation %zu of %s: %s", i, tname, elf_errmsg(-1));
		uint32_t type = (uint32_t)GELF_R_TYPE(r.r_info);
		if (type == R_RISCV_NONE || type == R_RISCV_ALIGN || type == R_RISCV_RELAX)
			continue;
		if (!kload_supported(type))
			return kfail(l->err, l->errlen, l->path, "unsupported relocation type %u at %s+0x%llx "
				     "(firmware/kernel/ABI.md section 3 lists what kernels may use)", type, tname,
				     (unsigned long long)(r.r_offset - tsh->sh_addr));
		if (!gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s))
			return kfail(l->err, l->errlen, l->path, "relocation %zu of %s: bad symbol index", i, tname);
		uint32_t off, moves;
		uint32_t width = type == R_RISCV_CALL || type == R_RISCV_CALL_PLT ? 8 : 4;
		if (r.r_offset < tsh->sh_addr || r.r_offset + width > tsh->sh_addr + tsh->sh_size ||
		    !kload_file_to_image(l, tsh->sh_offset + (r.r_offset - tsh->sh_addr), &off, &moves) ||
		    off + width > k->size)
			return kfail(l->err, l->errlen, l->path, "relocation at 0x%llx is outside %s or its image",
				     (unsigned long long)r.r_offset, tname);
		k->rel[k->nrel++] = (struct bh_kernel_reloc){
			.off = off, .type = type, .target = (uint32_t)(s.st_value + (uint64_t)r.r_addend),
			.place = (uint32_t)r.r_offset, .moves = moves,
		};
	}
	return 0;
}

static int kload_sections(struct kload *l)
{
	size_t shstrndx;
	bool have_ct = false, have_proc = false;
	if (elf_getshdrstrndx(l->lib, &shstrndx) != 0)
		return kfail(l->err, l->errlen, l->path, "no section names: %s", elf_errmsg(-1));
	for (Elf_Scn *scn = elf_nextscn(l->lib, NULL); scn; scn = elf_nextscn(l->lib, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return kfail(l->err, l->errlen, l->path, "bad section header: %s", elf_errmsg(-1));
		const char *name = elf_strptr(l->lib, shstrndx, sh.sh_name);
		name = name ? name : "?";
		if (sh.sh_type == SHT_REL)
			return kfail(l->err, l->errlen, l->path, "section %s: REL relocations (RISC-V uses RELA)", name);
		if (sh.sh_type == SHT_RELA) {
			GElf_Shdr tsh;
			Elf_Scn *t = elf_getscn(l->lib, sh.sh_info);
			if (!t || !gelf_getshdr(t, &tsh))
				return kfail(l->err, l->errlen, l->path, "section %s relocates no section", name);
			const char *tname = elf_strptr(l->lib, shstrndx, tsh.sh_name);
			if ((tsh.sh_flags & SHF_ALLOC) && tsh.sh_type != SHT_NOBITS &&
			    kload_rela(l, scn, &sh, &tsh, tname ? tname : "?") != 0)
				return -1;
		} else if (!strcmp(name, ".bhemu.ct_args")) {
			Elf_Data *d = elf_getdata(scn, NULL);
			const uint8_t *b = d ? d->d_buf : NULL;
			uint32_t cnt = 0;
			if (!b || d->d_size < 4 || (memcpy(&cnt, b, 4), cnt > BH_KERNEL_MAX_CT_ARGS) ||
			    d->d_size < 4 + 4 * (size_t)cnt)
				return kfail(l->err, l->errlen, l->path, "malformed .bhemu.ct_args section");
			l->k->n_ct_args = cnt;
			memcpy(l->k->ct_args, b + 4, 4 * (size_t)cnt);
			have_ct = true;
		} else if (sh.sh_type == SHT_SYMTAB) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t i = 0; d && i < n && !have_proc; i++) {
				GElf_Sym s;
				const char *sn;
				if (gelf_getsym(d, (int)i, &s) && (sn = elf_strptr(l->lib, sh.sh_link, s.st_name)) &&
				    !strcmp(sn, "__kernel_processor")) {
					l->k->proc = (unsigned)s.st_value;
					have_proc = true;
				}
			}
		}
	}
	if (!have_proc || l->k->proc > 4)
		return kfail(l->err, l->errlen, l->path, "not a bhemu kernel: no valid __kernel_processor symbol "
			     "(build kernels with bhemu_kernel(), firmware/kernel/ABI.md)");
	if (!have_ct)
		return kfail(l->err, l->errlen, l->path, "not a bhemu kernel: no .bhemu.ct_args section");
	return 0;
}

struct bh_kernel_image *bh_kernel_load(const char *path, char *err, size_t errlen)
{
	struct bh_kernel_image *k = kernel_new(path);
	struct kload l = { .k = k, .path = path, .err = err, .errlen = errlen };
	if (!k) {
		kfail(err, errlen, path, "out of memory");
		return NULL;
	}
	k->elf = bh_elf_open(path, err, errlen);
	int rc = k->elf ? 0 : -1;
	if (rc == 0 && k->elf->entry != BH_KERNEL_LINK_BASE)
		rc = kfail(err, errlen, path, "entry 0x%08x is not the kernel link base 0x%08x: not linked by "
			   "bhemu_kernel() (firmware/kernel/ABI.md)", k->elf->entry, BH_KERNEL_LINK_BASE);
	if (rc == 0) {
		elf_version(EV_CURRENT);
		l.lib = elf_memory((char *)k->elf->image, k->elf->image_size);
		if (!l.lib)
			rc = kfail(err, errlen, path, "libelf: %s", elf_errmsg(-1));
	}
	if (rc == 0)
		rc = kload_segments(&l);
	if (rc == 0)
		rc = kload_sections(&l);
	if (l.lib)
		elf_end(l.lib);
	free(l.ph);
	if (rc != 0) {
		bh_kernel_unref(k);
		return NULL;
	}
	kernel_rehash(k);
	return k;
}

/* ---- Placing ------------------------------------------------------------------------------------ */

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t enc_hi20(uint32_t insn, uint32_t v)
{
	return (insn & 0xFFFu) | ((v + 0x800u) & 0xFFFFF000u);
}

static uint32_t enc_lo12_i(uint32_t insn, uint32_t v)
{
	return (insn & 0x000FFFFFu) | (v & 0xFFFu) << 20;
}

static uint32_t enc_lo12_s(uint32_t insn, uint32_t v)
{
	return (insn & 0x01FFF07Fu) | (v & 0xFE0u) << 20 | (v & 0x1Fu) << 7;
}

static uint32_t enc_branch(uint32_t insn, uint32_t v)
{
	return (insn & 0x01FFF07Fu) | (v & 0x1000u) << 19 | (v & 0x7E0u) << 20 | (v & 0x1Eu) << 7 | (v & 0x800u) >> 4;
}

static uint32_t enc_jal(uint32_t insn, uint32_t v)
{
	return (insn & 0xFFFu) | (v & 0x100000u) << 11 | (v & 0x7FEu) << 20 | (v & 0x800u) << 9 | (v & 0xFF000u);
}

static bool fits_signed(uint32_t v, unsigned bits)
{
	int32_t s = (int32_t)v;
	return s >= -(1 << (bits - 1)) && s < (1 << (bits - 1));
}

int bh_kernel_place(const struct bh_kernel_image *k, uint32_t addr, uint8_t *out, char *err, size_t errlen)
{
	const uint32_t delta = addr - BH_KERNEL_LINK_BASE;
	memcpy(out, k->bytes, k->size);
	for (unsigned i = 0; i < k->nrel; i++) {
		const struct bh_kernel_reloc *r = &k->rel[i];
		uint32_t t = r->target - BH_KERNEL_LINK_BASE < k->size ? r->target + delta : r->target;
		uint32_t p = r->moves ? r->place + delta : r->place;
		uint8_t *w = out + r->off;
		uint32_t insn = get32(w), v = t - p;
		switch (r->type) {
		case R_RISCV_32:
			put32(w, t);
			break;
		case R_RISCV_HI20:
			put32(w, enc_hi20(insn, t));
			break;
		case R_RISCV_LO12_I:
			put32(w, enc_lo12_i(insn, t));
			break;
		case R_RISCV_LO12_S:
			put32(w, enc_lo12_s(insn, t));
			break;
		case R_RISCV_PCREL_HI20:
			put32(w, enc_hi20(insn, v));
			break;
		case R_RISCV_PCREL_LO12_I:
		case R_RISCV_PCREL_LO12_S: {
			/* The offset is the one of the auipc this pairs with (target = its address). */
			const struct bh_kernel_reloc *hi = NULL;
			for (unsigned j = 0; j < k->nrel && !hi; j++)
				if (k->rel[j].type == R_RISCV_PCREL_HI20 && k->rel[j].place == r->target)
					hi = &k->rel[j];
			if (!hi)
				return kfail(err, errlen, k->path, "PCREL_LO12 at 0x%08x has no PCREL_HI20 at 0x%08x",
					     r->place, r->target);
			uint32_t ht = hi->target - BH_KERNEL_LINK_BASE < k->size ? hi->target + delta : hi->target;
			uint32_t hv = ht - (hi->moves ? hi->place + delta : hi->place);
			put32(w, r->type == R_RISCV_PCREL_LO12_I ? enc_lo12_i(insn, hv) : enc_lo12_s(insn, hv));
			break;
		}
		case R_RISCV_CALL:
		case R_RISCV_CALL_PLT:
			put32(w, enc_hi20(insn, v));
			put32(w + 4, enc_lo12_i(get32(w + 4), v));
			break;
		case R_RISCV_BRANCH:
			if (!fits_signed(v, 13))
				return kfail(err, errlen, k->path, "branch at 0x%08x to 0x%08x is out of range once placed "
					     "at 0x%08x", r->place, r->target, addr);
			put32(w, enc_branch(insn, v));
			break;
		case R_RISCV_JAL:
			if (!fits_signed(v, 21))
				return kfail(err, errlen, k->path, "jal at 0x%08x to 0x%08x is out of range once placed "
					     "at 0x%08x", r->place, r->target, addr);
			put32(w, enc_jal(insn, v));
			break;
		}
	}
	return 0;
}
