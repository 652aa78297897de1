/* ELF images for the baby RISC-V cores. The file is read whole; its identity and every range the
 * headers name are checked against the bytes actually present before libelf walks the program
 * headers and the symbol table, so any defect becomes a one-line message, never a crash. */
#include "host/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#define ELF_EF_RISCV_RVC 0x1u   /* e_flags: the code may contain compressed instructions */

/* Larger than any firmware or kernel ELF with full debug info; stops /dev-like surprises. */
#define ELF_MAX_FILE_SIZE (1ull << 30)

/* Everything a parse step needs to read the image and to report. */
struct elf_ctx {
	struct bh_elf *e;
	const char *path;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3), cold, noinline))
static int elf_fail(const struct elf_ctx *c, const char *fmt, ...)
{
	if (!c->err || c->errlen == 0)
		return -1;
	int n = snprintf(c->err, c->errlen, "%s: ", c->path);
	if (n < 0) {
		c->err[0] = '\0';
		return -1;
	}
	if ((size_t)n < c->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* elf_version() writes a libelf global: once per process, not once per open (open may race). */
static pthread_once_t elf_lib_once = PTHREAD_ONCE_INIT;
static bool elf_lib_ok;

static void elf_lib_init(void)
{
	elf_lib_ok = elf_version(EV_CURRENT) != EV_NONE;
}

static uint32_t elf_le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t elf_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define EHDR16(img, field) elf_le16((img) + offsetof(Elf32_Ehdr, field))
#define EHDR32(img, field) elf_le32((img) + offsetof(Elf32_Ehdr, field))

static const char *elf_file_type_name(mode_t mode)
{
	return S_ISDIR(mode) ? "directory" : S_ISFIFO(mode) ? "FIFO" : S_ISCHR(mode) ? "character device"
	       : S_ISBLK(mode) ? "block device" : S_ISSOCK(mode) ? "socket" : "not a file";
}

static int elf_read_file(struct elf_ctx *c)
{
	/* Non-blocking: opening a FIFO without a writer would otherwise wait forever. Regular files
	 * ignore the flag, and nothing else is read. */
	int fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return elf_fail(c, "cannot open: %s", strerror(errno));

	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return elf_fail(c, "cannot stat: %s", strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return elf_fail(c, "not a regular file (%s)", elf_file_type_name(st.st_mode));
	}
	if ((unsigned long long)st.st_size > ELF_MAX_FILE_SIZE) {
		close(fd);
		return elf_fail(c, "too large for an ELF image (%lld bytes)", (long long)st.st_size);
	}

	size_t size = (size_t)st.st_size;
	uint8_t *buf = NULL;
	if (size != 0) {
		buf = malloc(size);
		if (!buf) {
			close(fd);
			return elf_fail(c, "out of memory reading %zu bytes", size);
		}
	}
	size_t got = 0;
	while (got < size) {
		ssize_t r = read(fd, buf + got, size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return elf_fail(c, "read error: %s", strerror(e));
		}
		if (r == 0)
			break;   /* shrank while being read: validate what is there */
		got += (size_t)r;
	}
	close(fd);
	c->e->image = buf;
	c->e->image_size = got;
	return 0;
}

static const char *elf_type_name(uint32_t type)
{
	switch (type) {
	case ET_NONE: return "ET_NONE";
	case ET_REL: return "ET_REL, an object file; link it first";
	case ET_DYN: return "ET_DYN, a shared object or PIE; link with -static -no-pie";
	case ET_CORE: return "ET_CORE, a core dump";
	default: return "unknown type";
	}
}

/* e_ident, the fixed header fields, and that the header tables lie inside the file. Done on the
 * raw bytes so that each defect gets its own message (libelf folds them into one error). */
static int elf_check_header(struct elf_ctx *c)
{
	const uint8_t *img = c->e->image;
	size_t size = c->e->image_size;

	if (size == 0)
		return elf_fail(c, "not an ELF file (empty file)");
	if (size < SELFMAG || memcmp(img, ELFMAG, SELFMAG) != 0)
		return elf_fail(c, "not an ELF file (no \\177ELF magic)");
	if (size < EI_NIDENT)
		return elf_fail(c, "truncated: %zu bytes, the ELF identification needs %d", size, EI_NIDENT);
	if (img[EI_CLASS] == ELFCLASS64)
		return elf_fail(c, "not 32-bit (ELFCLASS64); the baby RISC-V cores are RV32");
	if (img[EI_CLASS] != ELFCLASS32)
		return elf_fail(c, "not 32-bit (bad ELF class %u)", img[EI_CLASS]);
	if (img[EI_DATA] == ELFDATA2MSB)
		return elf_fail(c, "not little-endian (ELFDATA2MSB)");
	if (img[EI_DATA] != ELFDATA2LSB)
		return elf_fail(c, "not little-endian (bad data encoding %u)", img[EI_DATA]);
	if (img[EI_VERSION] != EV_CURRENT)
		return elf_fail(c, "unsupported ELF version %u", img[EI_VERSION]);
	if (size < sizeof(Elf32_Ehdr))
		return elf_fail(c, "truncated: %zu bytes, the ELF header needs %zu", size, sizeof(Elf32_Ehdr));

	uint32_t machine = EHDR16(img, e_machine);
	if (machine != EM_RISCV)
		return elf_fail(c, "not RISC-V (e_machine %u, expected %u)", machine, EM_RISCV);
	uint32_t type = EHDR16(img, e_type);
	if (type != ET_EXEC)
		return elf_fail(c, "not an executable (e_type %u, %s)", type, elf_type_name(type));
	uint32_t flags = EHDR32(img, e_flags);
	if (flags & ELF_EF_RISCV_RVC)
		return elf_fail(c, "built for compressed instructions (e_flags 0x%x has EF_RISCV_RVC); the baby "
				"RISC-V cores have no C extension: build with -march=rv32im... without 'c'", flags);

	/* Section headers (only the symbol table is used, but a cut-off table means a cut-off file). */
	uint64_t shoff = EHDR32(img, e_shoff);
	uint32_t shnum = EHDR16(img, e_shnum);
	if (shoff != 0) {
		uint32_t shentsize = EHDR16(img, e_shentsize);
		if (shentsize != sizeof(Elf32_Shdr))
			return elf_fail(c, "bad section header entry size %u (expected %zu)",
					shentsize, sizeof(Elf32_Shdr));
		/* e_shnum 0: the real count is in section 0's sh_size, so section 0 must be there. */
		uint64_t n = shnum ? shnum : 1;
		if (shoff + n * sizeof(Elf32_Shdr) > size)
			return elf_fail(c, "truncated: section headers [0x%llx,0x%llx) end past the end of the file (%zu bytes)",
					(unsigned long long)shoff,
					(unsigned long long)(shoff + n * sizeof(Elf32_Shdr)), size);
		if (shnum == 0) {
			n = elf_le32(img + shoff + offsetof(Elf32_Shdr, sh_size));
			if (shoff + n * sizeof(Elf32_Shdr) > size)
				return elf_fail(c, "truncated: %llu section headers at 0x%llx end past the end of the file (%zu bytes)",
						(unsigned long long)n, (unsigned long long)shoff, size);
		}
	}

	/* Program headers. e_phnum PN_XNUM: the real count is in section 0's sh_info. */
	uint64_t phoff = EHDR32(img, e_phoff);
	uint64_t phnum = EHDR16(img, e_phnum);
	if (phnum == PN_XNUM) {
		if (shoff == 0)
			return elf_fail(c, "e_phnum is PN_XNUM but there is no section 0 holding the count");
		phnum = elf_le32(img + shoff + offsetof(Elf32_Shdr, sh_info));
	}
	if (phnum == 0)
		return elf_fail(c, "no PT_LOAD segment (no program headers)");
	uint32_t phentsize = EHDR16(img, e_phentsize);
	if (phentsize != sizeof(Elf32_Phdr))
		return elf_fail(c, "bad program header entry size %u (expected %zu)", phentsize, sizeof(Elf32_Phdr));
	if (phoff + phnum * sizeof(Elf32_Phdr) > size)
		return elf_fail(c, "truncated: %llu program headers [0x%llx,0x%llx) end past the end of the file (%zu bytes)",
				(unsigned long long)phnum, (unsigned long long)phoff,
				(unsigned long long)(phoff + phnum * sizeof(Elf32_Phdr)), size);
	return 0;
}

static int elf_segment_cmp(const void *a, const void *b)
{
	const struct bh_elf_segment *x = a, *y = b;
	return (x->vaddr > y->vaddr) - (x->vaddr < y->vaddr);
}

static int elf_parse_segments(struct elf_ctx *c, Elf *lib)
{
	struct bh_elf *e = c->e;
	size_t phnum;
	if (elf_getphdrnum(lib, &phnum) != 0)
		return elf_fail(c, "bad program headers: %s", elf_errmsg(-1));
	if (phnum == 0)
		return elf_fail(c, "no PT_LOAD segment (no program headers)");

	e->seg = calloc(phnum, sizeof(*e->seg));
	if (!e->seg)
		return elf_fail(c, "out of memory");

	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(lib, (int)i, &ph))
			return elf_fail(c, "program header %zu: %s", i, elf_errmsg(-1));
		/* PT_RISCV_ATTRIBUTES, PT_NOTE, PT_GNU_STACK, ...: nothing to place in memory. */
		if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		if (ph.p_filesz > ph.p_memsz)
			return elf_fail(c, "program header %zu: file size 0x%llx exceeds memory size 0x%llx", i,
					(unsigned long long)ph.p_filesz, (unsigned long long)ph.p_memsz);
		if (ph.p_filesz != 0 && ph.p_offset + ph.p_filesz > e->image_size)
			return elf_fail(c, "truncated: program header %zu data [0x%llx,0x%llx) is past the end of the file (%zu bytes)",
					i, (unsigned long long)ph.p_offset,
					(unsigned long long)(ph.p_offset + ph.p_filesz), e->image_size);
		if (ph.p_vaddr + ph.p_memsz > (1ull << 32))
			return elf_fail(c, "program header %zu: [0x%llx, +0x%llx) wraps past 0xffffffff", i,
					(unsigned long long)ph.p_vaddr, (unsigned long long)ph.p_memsz);
		e->seg[e->nseg++] = (struct bh_elf_segment){
			.vaddr = (uint32_t)ph.p_vaddr,
			.filesz = (uint32_t)ph.p_filesz,
			.memsz = (uint32_t)ph.p_memsz,
			.flags = (uint32_t)ph.p_flags,
			.data = ph.p_filesz ? e->image + ph.p_offset : NULL,
		};
	}
	if (e->nseg == 0)
		return elf_fail(c, "no PT_LOAD segment with a non-zero memory size");

	qsort(e->seg, e->nseg, sizeof(*e->seg), elf_segment_cmp);
	for (unsigned i = 1; i < e->nseg; i++) {
		const struct bh_elf_segment *p = &e->seg[i - 1], *s = &e->seg[i];
		if ((uint64_t)p->vaddr + p->memsz > s->vaddr)
			return elf_fail(c, "PT_LOAD segments [0x%08x,0x%08llx) and [0x%08x,0x%08llx) overlap",
					p->vaddr, (unsigned long long)p->vaddr + p->memsz,
					s->vaddr, (unsigned long long)s->vaddr + s->memsz);
	}
	return 0;
}

/* Symbols worth showing in a report: named code and data addresses. Mapping symbols ("$x", "$d",
 * "$xrv32i2p1...") mark instruction/data runs, not places a reader knows by name. */
static bool elf_symbol_wanted(const GElf_Sym *sym, const char *name)
{
	unsigned type = GELF_ST_TYPE(sym->st_info);
	if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
		return false;
	return sym->st_shndx != SHN_UNDEF && name[0] != '\0' && name[0] != '$';
}

/* Equal addresses: functions first, then objects, then plain labels, so lookups by address find the
 * function; names break the remaining ties so the order does not depend on qsort. */
static int elf_symbol_rank(unsigned char type)
{
	return type == STT_FUNC ? 0 : type == STT_OBJECT ? 1 : 2;
}

static int elf_symbol_cmp(const void *a, const void *b)
{
	const struct bh_elf_symbol *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	int rx = elf_symbol_rank(x->type), ry = elf_symbol_rank(y->type);
	if (rx != ry)
		return rx - ry;
	return strcmp(x->name, y->name);
}

/* A section's bytes must be inside the file (SHT_NOBITS has none). */
static bool elf_section_in_file(const struct bh_elf *e, const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_NOBITS || sh->sh_offset + sh->sh_size <= e->image_size;
}

static int elf_read_symtab(struct elf_ctx *c, Elf *lib, Elf_Scn *scn, const GElf_Shdr *sh, size_t shnum)
{
	struct bh_elf *e = c->e;
	if (!elf_section_in_file(e, sh))
		return elf_fail(c, "truncated: symbol table [0x%llx,0x%llx) is past the end of the file (%zu bytes)",
				(unsigned long long)sh->sh_offset,
				(unsigned long long)(sh->sh_offset + sh->sh_size), e->image_size);
	if (sh->sh_entsize != sizeof(Elf32_Sym))
		return elf_fail(c, "bad symbol table entry size %llu (expected %zu)",
				(unsigned long long)sh->sh_entsize, sizeof(Elf32_Sym));
	size_t strndx = sh->sh_link;
	GElf_Shdr strsh;
	Elf_Scn *strscn = (strndx != 0 && strndx < shnum) ? elf_getscn(lib, strndx) : NULL;
	if (!strscn || !gelf_getshdr(strscn, &strsh) || strsh.sh_type != SHT_STRTAB)
		return elf_fail(c, "symbol table names section %zu, which is not a string table", strndx);
	if (!elf_section_in_file(e, &strsh))
		return elf_fail(c, "truncated: symbol string table [0x%llx,0x%llx) is past the end of the file (%zu bytes)",
				(unsigned long long)strsh.sh_offset,
				(unsigned long long)(strsh.sh_offset + strsh.sh_size), e->image_size);
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data)
		return elf_fail(c, "cannot read the symbol table: %s", elf_errmsg(-1));

	/* Pass 1 counts and sizes the names; pass 2 copies them into one block. */
	size_t count = sh->sh_size / sizeof(Elf32_Sym);
	size_t nkeep = 0, nbytes = 0;
	for (size_t i = 1; i < count; i++) {
		GElf_Sym sym;
		const char *name;
		if (!gelf_getsym(data, (int)i, &sym))
			return elf_fail(c, "symbol %zu: %s", i, elf_errmsg(-1));
		name = elf_strptr(lib, strndx, sym.st_name);
		if (!name)
			return elf_fail(c, "symbol %zu: name offset 0x%llx is outside the string table", i,
					(unsigned long long)sym.st_name);
		if (!elf_symbol_wanted(&sym, name))
			continue;
		nkeep++;
		nbytes += strlen(name) + 1;
	}
	if (nkeep == 0)
		return 0;

	e->sym = malloc(nkeep * sizeof(*e->sym));
	e->strings = malloc(nbytes);
	if (!e->sym || !e->strings)
		return elf_fail(c, "out of memory for %zu symbols", nkeep);
	char *out = e->strings;
	for (size_t i = 1; i < count && e->nsym < nkeep; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			return elf_fail(c, "symbol %zu: %s", i, elf_errmsg(-1));
		const char *name = elf_strptr(lib, strndx, sym.st_name);
		if (!name || !elf_symbol_wanted(&sym, name))
			continue;
		size_t len = strlen(name) + 1;
		memcpy(out, name, len);
		e->sym[e->nsym++] = (struct bh_elf_symbol){
			.addr = (uint32_t)sym.st_value,
			.size = (uint32_t)sym.st_size,
			.name = out,
			.type = (unsigned char)GELF_ST_TYPE(sym.st_info),
			.abs = sym.st_shndx == SHN_ABS,
		};
		out += len;
	}
	qsort(e->sym, e->nsym, sizeof(*e->sym), elf_symbol_cmp);
	return 0;
}

static int elf_parse_symbols(struct elf_ctx *c, Elf *lib)
{
	size_t shnum;
	if (elf_getshdrnum(lib, &shnum) != 0)
		return elf_fail(c, "bad section headers: %s", elf_errmsg(-1));
	for (Elf_Scn *scn = elf_nextscn(lib, NULL); scn; scn = elf_nextscn(lib, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return elf_fail(c, "bad section header %zu: %s", elf_ndxscn(scn), elf_errmsg(-1));
		if (sh.sh_type == SHT_SYMTAB)
			return elf_read_symtab(c, lib, scn, &sh, shnum);
	}
	return 0;   /* stripped: reports show bare addresses */
}

static int elf_parse(struct elf_ctx *c)
{
	pthread_once(&elf_lib_once, elf_lib_init);
	if (!elf_lib_ok)
		return elf_fail(c, "libelf does not support ELF version %d", EV_CURRENT);

	Elf *lib = elf_memory((char *)c->e->image, c->e->image_size);
	if (!lib)
		return elf_fail(c, "libelf cannot read it: %s", elf_errmsg(-1));
	int rc = -1;
	GElf_Ehdr eh;
	if (elf_kind(lib) != ELF_K_ELF || !gelf_getehdr(lib, &eh)) {
		elf_fail(c, "libelf cannot read it: %s", elf_errmsg(-1));
		goto out;
	}
	c->e->entry = (uint32_t)eh.e_entry;
	if (elf_parse_segments(c, lib) == 0 && elf_parse_symbols(c, lib) == 0)
		rc = 0;
out:
	elf_end(lib);
	return rc;
}

struct bh_elf *bh_elf_open(const char *path, char *err, size_t errlen)
{
	struct elf_ctx c = { .path = path ? path : "(null)", .err = err, .errlen = errlen };
	if (err && errlen)
		err[0] = '\0';
	if (!path) {
		elf_fail(&c, "no file name given");
		return NULL;
	}
	c.e = calloc(1, sizeof(*c.e));
	if (!c.e) {
		elf_fail(&c, "out of memory");
		return NULL;
	}
	c.e->path = strdup(path);
	if (!c.e->path) {
		elf_fail(&c, "out of memory");
		goto fail;
	}
	if (elf_read_file(&c) != 0 || elf_check_header(&c) != 0 || elf_parse(&c) != 0)
		goto fail;
	return c.e;
fail:
	bh_elf_close(c.e);
	return NULL;
}

void bh_elf_close(struct bh_elf *elf)
{
	if (!elf)
		return;
	free(elf->path);
	free(elf->seg);
	free(elf->sym);
	free(elf->strings);
	free(elf->image);
	free(elf);
}

static const struct bh_elf_segment *elf_segment_of(const struct bh_elf *elf, uint32_t addr)
{
	for (unsigned i = 0; i < elf->nseg; i++) {
		const struct bh_elf_segment *s = &elf->seg[i];
		if (addr >= s->vaddr && addr - s->vaddr < s->memsz)
			return s;
	}
	return NULL;
}

/* Linear scans: called for fault reports only, and symbol tables of baby-core ELFs are small. Ties
 * at one address keep the first symbol in sort order, i.e. the function. */
const struct bh_elf_symbol *bh_elf_symbol_at(const struct bh_elf *elf, uint32_t addr, uint32_t *offset)
{
	if (!elf)
		return NULL;
	const struct bh_elf_symbol *best = NULL;

	/* The closest symbol whose extent covers addr. */
	for (unsigned i = 0; i < elf->nsym && elf->sym[i].addr <= addr; i++) {
		const struct bh_elf_symbol *s = &elf->sym[i];
		if (s->abs)
			continue;   /* a constant (e.g. __stack_size), not a place in the image */
		if (s->size != 0 && addr - s->addr < s->size && (!best || s->addr > best->addr))
			best = s;
	}
	/* Else the nearest label before it in the same segment (hand-written assembly has no sizes). */
	const struct bh_elf_segment *seg = best ? NULL : elf_segment_of(elf, addr);
	for (unsigned i = 0; seg && i < elf->nsym && elf->sym[i].addr <= addr; i++) {
		const struct bh_elf_symbol *s = &elf->sym[i];
		if (s->abs || s->addr < seg->vaddr || (s->type != STT_FUNC && s->type != STT_NOTYPE))
			continue;
		if (!best || s->addr > best->addr)
			best = s;
	}
	if (best && offset)
		*offset = addr - best->addr;
	return best;
}

int bh_elf_symbol_lookup(const struct bh_elf *elf, const char *name, uint32_t *addr)
{
	if (!elf || !name)
		return -1;
	for (unsigned i = 0; i < elf->nsym; i++) {
		if (strcmp(elf->sym[i].name, name) == 0) {
			if (addr)
				*addr = elf->sym[i].addr;
			return 0;
		}
	}
	return -1;
}
