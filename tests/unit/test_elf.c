/* ELF reader (host/elf.c) and loader (host/loader.c): what is accepted, what is refused and why, and
 * where each segment lands. ELFs are built in memory by a small writer below and saved to /tmp. */
#include <criterion/criterion.h>

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "fabric/hw.h"
#include "fabric/tile.h"
#include "host/device.h"
#include "host/elf.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif
#define PT_RISCV_ATTRIBUTES_ 0x70000003u
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------------------------------
 * A minimal RV32 ELF writer. Layout: header, program headers, segment bytes, .symtab, .strtab,
 * .shstrtab, section headers (last, so cutting the file anywhere cuts the section table). The
 * host is little-endian, so structures are copied as they are.
 */

struct tseg {
	uint32_t type;          /* 0 means PT_LOAD */
	uint32_t vaddr, filesz, memsz, flags;
	const void *data;       /* filesz bytes; NULL: a byte pattern */
};

struct tsym {
	const char *name;
	uint32_t value, size;
	unsigned char type, bind;
	uint16_t shndx;         /* 0 means section 1 (.text) */
	bool undef;             /* SHN_UNDEF */
};

struct telf {
	unsigned char cls, data; /* 0: ELFCLASS32, ELFDATA2LSB */
	uint16_t machine, type;  /* 0: EM_RISCV, ET_EXEC */
	uint32_t entry;
	bool no_sections;        /* no section headers at all (e_shoff 0) */
	unsigned nseg;
	struct tseg seg[8];
	unsigned nsym;
	struct tsym sym[16];
};

/* Where the writer put things, for tests that corrupt them. */
struct tlayout {
	size_t size;
	size_t seg_off[8];
	size_t symtab_off, strtab_off, shoff;
};

static size_t align4(size_t x)
{
	return (x + 3) & ~(size_t)3;
}

static uint8_t *telf_build(const struct telf *t, struct tlayout *lay)
{
	uint8_t *img = calloc(1, 1 << 16);
	cr_assert_not_null(img);
	size_t off = sizeof(Elf32_Ehdr) + t->nseg * sizeof(Elf32_Phdr);
	struct tlayout l = { 0 };

	for (unsigned i = 0; i < t->nseg; i++) {
		const struct tseg *s = &t->seg[i];
		off = align4(off);
		l.seg_off[i] = off;
		for (uint32_t k = 0; k < s->filesz; k++)
			img[off + k] = s->data ? ((const uint8_t *)s->data)[k] : (uint8_t)(0x11 * (i + 1) + k);
		Elf32_Phdr ph = {
			.p_type = s->type ? s->type : PT_LOAD,
			.p_offset = (Elf32_Off)off,
			.p_vaddr = s->vaddr,
			.p_paddr = s->vaddr,
			.p_filesz = s->filesz,
			.p_memsz = s->memsz,
			.p_flags = s->flags ? s->flags : PF_R,
			.p_align = 4,
		};
		memcpy(img + sizeof(Elf32_Ehdr) + i * sizeof(Elf32_Phdr), &ph, sizeof(ph));
		off += s->filesz;
	}

	Elf32_Ehdr eh = {
		.e_type = t->type ? t->type : ET_EXEC,
		.e_machine = t->machine ? t->machine : EM_RISCV,
		.e_version = EV_CURRENT,
		.e_entry = t->entry,
		.e_phoff = t->nseg ? sizeof(Elf32_Ehdr) : 0,
		.e_ehsize = sizeof(Elf32_Ehdr),
		.e_phentsize = sizeof(Elf32_Phdr),
		.e_phnum = (Elf32_Half)t->nseg,
	};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = t->cls ? t->cls : ELFCLASS32;
	eh.e_ident[EI_DATA] = t->data ? t->data : ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;

	if (!t->no_sections) {
		/* .strtab */
		off = align4(off);
		l.strtab_off = off;
		size_t strsz = 1;
		uint32_t name_off[16];
		for (unsigned i = 0; i < t->nsym; i++) {
			name_off[i] = (uint32_t)strsz;
			size_t n = strlen(t->sym[i].name) + 1;
			memcpy(img + off + strsz, t->sym[i].name, n);
			strsz += n;
		}
		off += strsz;
		/* .symtab: entry 0 is the null symbol */
		off = align4(off);
		l.symtab_off = off;
		for (unsigned i = 0; i < t->nsym; i++) {
			const struct tsym *s = &t->sym[i];
			Elf32_Sym sym = {
				.st_name = name_off[i],
				.st_value = s->value,
				.st_size = s->size,
				.st_info = ELF32_ST_INFO(s->bind ? s->bind : STB_GLOBAL, s->type),
				.st_shndx = s->undef ? SHN_UNDEF : s->shndx ? s->shndx : 1,
			};
			memcpy(img + off + (i + 1) * sizeof(Elf32_Sym), &sym, sizeof(sym));
		}
		size_t symsz = (t->nsym + 1) * sizeof(Elf32_Sym);
		off += symsz;
		/* .shstrtab */
		static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
		size_t shstr_off = off;
		memcpy(img + off, shstr, sizeof(shstr));
		off += sizeof(shstr);
		/* section headers: null, .text, .symtab, .strtab, .shstrtab */
		off = align4(off);
		l.shoff = off;
		Elf32_Shdr sh[5] = {
			[1] = { .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				.sh_addr = t->nseg ? t->seg[0].vaddr : 0, .sh_offset = (Elf32_Off)l.seg_off[0],
				.sh_size = t->nseg ? t->seg[0].filesz : 0, .sh_addralign = 4 },
			[2] = { .sh_name = 7, .sh_type = SHT_SYMTAB, .sh_offset = (Elf32_Off)l.symtab_off,
				.sh_size = (Elf32_Word)symsz, .sh_link = 3, .sh_info = 1, .sh_addralign = 4,
				.sh_entsize = sizeof(Elf32_Sym) },
			[3] = { .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = (Elf32_Off)l.strtab_off,
				.sh_size = (Elf32_Word)strsz, .sh_addralign = 1 },
			[4] = { .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = (Elf32_Off)shstr_off,
				.sh_size = sizeof(shstr), .sh_addralign = 1 },
		};
		memcpy(img + off, sh, sizeof(sh));
		off += sizeof(sh);
		eh.e_shoff = (Elf32_Off)l.shoff;
		eh.e_shentsize = sizeof(Elf32_Shdr);
		eh.e_shnum = 5;
		eh.e_shstrndx = 4;
	}
	memcpy(img, &eh, sizeof(eh));
	l.size = off;
	cr_assert_lt(l.size, (size_t)1 << 16);
	if (lay)
		*lay = l;
	return img;
}

static void put16(uint8_t *img, size_t off, uint16_t v)
{
	memcpy(img + off, &v, sizeof(v));
}

static void put32(uint8_t *img, size_t off, uint32_t v)
{
	memcpy(img + off, &v, sizeof(v));
}

#define EH(field) offsetof(Elf32_Ehdr, field)
#define PH(i, field) (sizeof(Elf32_Ehdr) + (i) * sizeof(Elf32_Phdr) + offsetof(Elf32_Phdr, field))

struct tfile {
	char path[64];
};

static void tfile_write(struct tfile *f, const void *img, size_t size)
{
	strcpy(f->path, "/tmp/bhemu-test-elf-XXXXXX");
	int fd = mkstemp(f->path);
	cr_assert_geq(fd, 0, "mkstemp failed");
	cr_assert_eq(write(fd, img, size), (ssize_t)size);
	close(fd);
}

/* Opens the image through a file; the file is removed at once. A refusal must name the file;
 * `what` names the case in failure messages. */
static struct bh_elf *open_image(const char *what, const void *img, size_t size, char *err, size_t errlen)
{
	struct tfile f;
	tfile_write(&f, img, size);
	struct bh_elf *e = bh_elf_open(f.path, err, errlen);
	if (!e && err && errlen > strlen(f.path))
		cr_assert(strncmp(err, f.path, strlen(f.path)) == 0, "%s: message does not name the file: %s", what,
			  err);
	unlink(f.path);
	return e;
}

/* The image must be refused with a one-line message containing needle; the test goes on. */
static void expect_reject(const char *what, const void *img, size_t size, const char *needle)
{
	char err[512] = "";
	struct bh_elf *e = open_image(what, img, size, err, sizeof(err));
	cr_expect_null(e, "%s: accepted an ELF that should fail with \"%s\"", what, needle);
	if (e) {
		bh_elf_close(e);
		return;
	}
	cr_expect(strchr(err, '\n') == NULL, "%s: message is not one line: %s", what, err);
	cr_expect(strstr(err, needle), "%s: expected \"%s\" in: %s", what, needle, err);
}

/* The reference image: code at 0x1000, data at 0x2000 (with .bss), listed out of address order,
 * plus a RISC-V attributes header and an empty PT_LOAD that must both be skipped. */
static const uint8_t ref_code[0x40] = { 0x13, 0x00, 0x00, 0x00, 0x6f, 0x00, 0x00, 0x00 };
static const uint8_t ref_data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

static struct telf ref_elf(void)
{
	struct telf t = {
		.entry = 0x1000,
		.nseg = 4,
		.seg = {
			{ .vaddr = 0x2000, .filesz = 8, .memsz = 0x20, .flags = PF_R | PF_W, .data = ref_data },
			{ .type = PT_RISCV_ATTRIBUTES_, .vaddr = 0, .filesz = 4, .memsz = 0 },
			{ .vaddr = 0x1000, .filesz = 0x40, .memsz = 0x40, .flags = PF_R | PF_X, .data = ref_code },
			{ .vaddr = 0x5000, .filesz = 0, .memsz = 0 },
		},
		.nsym = 12,
		.sym = {
			{ .name = "main", .value = 0x1000, .size = 0x20, .type = STT_FUNC },
			{ .name = "_start", .value = 0x1000, .type = STT_NOTYPE },
			{ .name = "$x", .value = 0x1000, .type = STT_NOTYPE, .bind = STB_LOCAL },
			{ .name = "helper", .value = 0x1020, .type = STT_FUNC },
			{ .name = "loop", .value = 0x1030, .type = STT_NOTYPE, .bind = STB_LOCAL },
			{ .name = "counter", .value = 0x2000, .size = 4, .type = STT_OBJECT },
			{ .name = "ext", .value = 0, .type = STT_FUNC, .undef = true },
			{ .name = "", .value = 0x1010, .type = STT_FUNC },
			{ .name = ".text", .value = 0x1000, .type = STT_SECTION, .bind = STB_LOCAL },
			{ .name = "main.c", .value = 0, .type = STT_FILE, .bind = STB_LOCAL, .shndx = SHN_ABS },
			{ .name = "__stack_top", .value = 0xffb01ff0, .type = STT_NOTYPE, .shndx = SHN_ABS },
			{ .name = "tls_thing", .value = 0x2004, .type = STT_TLS },
		},
	};
	return t;
}

static uint8_t *ref_image(struct tlayout *lay)
{
	struct telf t = ref_elf();
	return telf_build(&t, lay);
}


/* Builds t and opens it; the image must be accepted. */
static struct bh_elf *open_telf(const char *what, const struct telf *t)
{
	struct tlayout lay;
	uint8_t *img = telf_build(t, &lay);
	char err[256];
	struct bh_elf *e = open_image(what, img, lay.size, err, sizeof(err));
	free(img);
	cr_assert_not_null(e, "%s: %s", what, err);
	return e;
}

/* ---------------------------------------------------------------------------------------------
 * Accepted images
 */

static struct bh_elf *open_ref(const char *what)
{
	struct telf t = ref_elf();
	return open_telf(what, &t);
}

Test(elf, valid_rv32_executable_gives_entry_and_load_segments_sorted_by_address)
{
	struct tlayout lay;
	uint8_t *img = ref_image(&lay);
	char err[256] = "unchanged";
	struct bh_elf *e = open_image("reference image", img, lay.size, err, sizeof(err));
	cr_assert_not_null(e, "%s", err);
	cr_assert_str_empty(err);
	cr_assert_eq(e->entry, 0x1000);
	cr_assert_eq(e->nseg, 2, "attributes and empty PT_LOAD must be skipped, got %u", e->nseg);
	cr_assert_eq(e->seg[0].vaddr, 0x1000);
	cr_assert_eq(e->seg[0].filesz, 0x40);
	cr_assert_eq(e->seg[0].memsz, 0x40);
	cr_assert_eq(e->seg[0].flags, PF_R | PF_X);
	cr_assert_arr_eq(e->seg[0].data, ref_code, sizeof(ref_code));
	cr_assert_eq(e->seg[1].vaddr, 0x2000);
	cr_assert_eq(e->seg[1].filesz, 8);
	cr_assert_eq(e->seg[1].memsz, 0x20);
	cr_assert_arr_eq(e->seg[1].data, ref_data, sizeof(ref_data));
	cr_assert(strncmp(e->path, "/tmp/bhemu-test-elf-", 20) == 0, "path %s", e->path);
	bh_elf_close(e);
	free(img);
}

Test(elf, symbol_table_keeps_named_functions_objects_and_labels_sorted_by_address)
{
	struct bh_elf *e = open_ref("reference image");
	/* main, _start, helper, loop, counter, __stack_top; not $x, ext, "", .text, main.c, tls_thing */
	cr_assert_eq(e->nsym, 6, "got %u symbols", e->nsym);
	static const char *const order[] = { "main", "_start", "helper", "loop", "counter", "__stack_top" };
	for (unsigned i = 0; i < 6; i++)
		cr_assert_str_eq(e->sym[i].name, order[i], "symbol %u", i);
	for (unsigned i = 1; i < e->nsym; i++)
		cr_assert_leq(e->sym[i - 1].addr, e->sym[i].addr);
	cr_assert_eq(e->sym[0].type, STT_FUNC);
	cr_assert_eq(e->sym[0].size, 0x20);
	cr_assert_eq(e->sym[4].type, STT_OBJECT);
	bh_elf_close(e);
}

/* bh_elf_symbol_at(addr) must give name + off, or no symbol when name is NULL. */
struct symbol_at_case {
	uint32_t addr;
	const char *name;
	uint32_t off;
};

static void expect_symbols_at(const char *table, const struct bh_elf *e, const struct symbol_at_case *c, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		uint32_t got = 0xdead;
		const struct bh_elf_symbol *s = bh_elf_symbol_at(e, c[k].addr, &got);
		if (!c[k].name) {
			cr_expect_null(s, "%s[%zu]: 0x%x: expected no symbol, got %s", table, k, c[k].addr,
				       s ? s->name : "");
			continue;
		}
		cr_expect_not_null(s, "%s[%zu]: 0x%x: expected %s+0x%x, got nothing", table, k, c[k].addr, c[k].name,
				   c[k].off);
		if (s) {
			cr_expect_str_eq(s->name, c[k].name, "%s[%zu]: 0x%x: %s, expected %s", table, k, c[k].addr,
					 s->name, c[k].name);
			cr_expect_eq(got, c[k].off, "%s[%zu]: 0x%x: %s+0x%x, expected +0x%x", table, k, c[k].addr,
				     s->name, got, c[k].off);
		}
	}
}

#define EXPECT_SYMBOLS_AT(e, table) expect_symbols_at(#table, e, table, N(table))

static const struct symbol_at_case ref_symbols_at[] = {
	/* the containing symbol and the offset into it */
	{ 0x1000, "main", 0 },             /* FUNC preferred over the NOTYPE _start */
	{ 0x1004, "main", 4 },
	{ 0x101c, "main", 0x1c },
	{ 0x2002, "counter", 2 },
	/* else the nearest label in the same segment */
	{ 0x1024, "helper", 4 },           /* past main's 0x20 bytes, helper has no size */
	{ 0x1034, "loop", 4 },
	{ 0x103c, "loop", 0xc },
	{ 0x2010, NULL, 0 },               /* only an OBJECT precedes, and it ends at 0x2004 */
	{ 0x0fff, NULL, 0 },               /* before every segment */
	{ 0x1040, NULL, 0 },               /* in no segment: labels of 0x1000.. do not reach */
	{ 0x3000, NULL, 0 },
};

Test(elf, symbol_at_names_the_containing_symbol_or_nearest_label_and_offset)
{
	struct bh_elf *e = open_ref("reference image");
	EXPECT_SYMBOLS_AT(e, ref_symbols_at);
	cr_assert_not_null(bh_elf_symbol_at(e, 0x1004, NULL), "the offset pointer is optional");
	cr_assert_null(bh_elf_symbol_at(NULL, 0x1000, NULL));
	bh_elf_close(e);
}

/* An absolute symbol (a linker-script constant such as __stack_size = 0x10000) is a number, not a
 * place: code at its value is named after the nearest function or label, never after it. */
Test(elf, symbol_at_ignores_absolute_symbols)
{
	static const struct telf t = {
		.nseg = 1,
		.seg = { { .vaddr = 0x10000, .filesz = 0x40, .memsz = 0x40 } },
		.nsym = 3,
		.sym = {
			{ .name = "__stack_size", .value = 0x10000, .type = STT_NOTYPE, .shndx = SHN_ABS },
			{ .name = "__abs_object", .value = 0x10010, .size = 0x10, .type = STT_OBJECT, .shndx = SHN_ABS },
			{ .name = "start", .value = 0x10020, .type = STT_FUNC },
		},
	};
	static const struct symbol_at_case abs_symbols_at[] = {
		{ 0x10008, NULL, 0 }, { 0x10014, NULL, 0 }, { 0x10028, "start", 8 },
	};
	struct bh_elf *e = open_telf("absolute symbols", &t);
	EXPECT_SYMBOLS_AT(e, abs_symbols_at);
	uint32_t addr = 0;
	cr_assert_eq(bh_elf_symbol_lookup(e, "__stack_size", &addr), 0, "lookups by name still find it");
	cr_assert_eq(addr, 0x10000);
	bh_elf_close(e);
}

Test(elf, symbol_at_prefers_the_function_among_symbols_at_one_address)
{
	static const struct telf t = {
		.nseg = 2,
		.seg = { { .vaddr = 0x1000, .filesz = 0x20, .memsz = 0x20 },
			 { .vaddr = 0x2000, .filesz = 0x20, .memsz = 0x20 } },
		.nsym = 5,
		.sym = {
			/* Names sort before the function's, so only the type can make it win. */
			{ .name = "a_label", .value = 0x1000, .type = STT_NOTYPE },
			{ .name = "b_func", .value = 0x1000, .type = STT_FUNC },
			{ .name = "a_sized_label", .value = 0x2000, .size = 8, .type = STT_NOTYPE },
			{ .name = "a_sized_object", .value = 0x2000, .size = 8, .type = STT_OBJECT },
			{ .name = "b_sized_func", .value = 0x2000, .size = 8, .type = STT_FUNC },
		},
	};
	static const struct symbol_at_case func_symbols_at[] = {
		{ 0x1010, "b_func", 0x10 }, { 0x2004, "b_sized_func", 4 }, { 0x2010, "b_sized_func", 0x10 },
	};
	struct bh_elf *e = open_telf("symbols sharing an address", &t);
	EXPECT_SYMBOLS_AT(e, func_symbols_at);
	bh_elf_close(e);
}

/* Lookups by exact name; a failed one (found = false) must not write the address. */
static const struct {
	const char *name;
	bool found;
	uint32_t addr;
} ref_lookups[] = {
	{ "main", true, 0x1000 }, { "loop", true, 0x1030 }, { "__stack_top", true, 0xffb01ff0 },
	{ "mai", false, 0 }, { "main2", false, 0 }, { "ext", false, 0 }, { "$x", false, 0 }, { ".text", false, 0 },
};

Test(elf, symbol_lookup_finds_exact_names_only)
{
	struct bh_elf *e = open_ref("reference image");
	for (size_t k = 0; k < N(ref_lookups); k++) {
		uint32_t addr = 0x1234;
		int rc = bh_elf_symbol_lookup(e, ref_lookups[k].name, &addr);
		uint32_t want = ref_lookups[k].found ? ref_lookups[k].addr : 0x1234;
		cr_expect_eq(rc, ref_lookups[k].found ? 0 : -1, "ref_lookups[%zu]: \"%s\": returned %d", k,
			     ref_lookups[k].name, rc);
		cr_expect_eq(addr, want, "ref_lookups[%zu]: \"%s\": address 0x%x, expected 0x%x%s", k,
			     ref_lookups[k].name, addr, want,
			     ref_lookups[k].found ? "" : " (a failed lookup must not write it)");
	}
	bh_elf_close(e);
}

Test(elf, image_without_sections_loads_with_no_symbols)
{
	struct telf t = ref_elf();
	t.no_sections = true;
	struct bh_elf *e = open_telf("reference image without sections", &t);
	cr_assert_eq(e->nsym, 0);
	cr_assert_eq(e->nseg, 2);
	cr_assert_null(bh_elf_symbol_at(e, 0x1000, NULL));
	cr_assert_eq(bh_elf_symbol_lookup(e, "main", NULL), -1);
	bh_elf_close(e);
}

Test(elf, adjacent_segments_do_not_overlap)
{
	static const struct telf t = {
		.nseg = 2,
		.seg = { { .vaddr = 0x1000, .filesz = 0x10, .memsz = 0x40 },
			 { .vaddr = 0x1040, .filesz = 4, .memsz = 4 } },
	};
	bh_elf_close(open_telf("adjacent segments", &t));
}

Test(elf, segment_ending_at_4_gib_is_accepted)
{
	static const struct telf t = { .nseg = 1, .seg = { { .vaddr = 0xfffff000, .filesz = 0, .memsz = 0x1000 } } };
	struct bh_elf *e = open_telf("segment ending at 4 GiB", &t);
	cr_assert_eq(e->seg[0].data, NULL);
	bh_elf_close(e);
}

/* ---------------------------------------------------------------------------------------------
 * Refused images: each names the file and the problem on one line
 */

Test(elf_reject, nonexistent_file)
{
	char err[256];
	cr_assert_null(bh_elf_open("/tmp/bhemu-test-elf-does-not-exist", err, sizeof(err)));
	cr_assert(strstr(err, "/tmp/bhemu-test-elf-does-not-exist: cannot open"), "%s", err);
}

Test(elf_reject, directory)
{
	char err[256];
	cr_assert_null(bh_elf_open("/tmp", err, sizeof(err)));
	cr_assert(strstr(err, "not a regular file"), "%s", err);
}

/* A FIFO with no writer: opening it for reading would block forever. */
Test(elf_reject, fifo_is_refused_without_blocking, .timeout = 10)
{
	char path[64], err[256];
	snprintf(path, sizeof path, "/tmp/bhemu-test-elf-fifo-%d", (int)getpid());
	unlink(path);
	cr_assert_eq(mkfifo(path, 0600), 0);
	struct bh_elf *e = bh_elf_open(path, err, sizeof(err));
	unlink(path);
	cr_assert_null(e);
	cr_assert(strstr(err, ": not a regular file (FIFO)"), "%s", err);
	cr_assert(strncmp(err, path, strlen(path)) == 0, "message does not name the file: %s", err);
}

/* Files that are no ELF at all. */
static const struct {
	const char *name;
	const char *bytes;
	size_t size;
	const char *needle;
} raw_rejects[] = {
#define RAW(name, text, needle) { name, text, sizeof(text) - 1, needle }
	RAW("empty file", "", "not an ELF file (empty file)"),
	RAW("three bytes of magic", "\177EL", "not an ELF file"),
	RAW("text file", "#!/bin/sh\necho this is not an ELF file\n", "not an ELF file"),
#undef RAW
};

Test(elf_reject, files_that_are_not_elf)
{
	for (size_t k = 0; k < N(raw_rejects); k++)
		expect_reject(raw_rejects[k].name, raw_rejects[k].bytes, raw_rejects[k].size, raw_rejects[k].needle);
}

/* The reference image with one field (or two) overwritten. A patch lands at an offset from the
 * start of the file, of the symbol table or of the section headers, wherever the writer put them;
 * a value `from_end` is the file size minus the value. */
enum patch_base { AT_FILE, AT_SYMTAB, AT_SHDRS };

struct patch {
	uint8_t base, width;            /* width 0: no patch */
	bool from_end;
	size_t off;
	uint32_t value;
};

#define P8(off, v) { AT_FILE, 1, false, off, v }
#define P16(off, v) { AT_FILE, 2, false, off, v }
#define P32(off, v) { AT_FILE, 4, false, off, v }
#define P32_FROM_END(off, back) { AT_FILE, 4, true, off, back }
#define P32_SYM(i, field, v) { AT_SYMTAB, 4, false, (i) * sizeof(Elf32_Sym) + offsetof(Elf32_Sym, field), v }
#define P32_SH(i, field, v) { AT_SHDRS, 4, false, (i) * sizeof(Elf32_Shdr) + offsetof(Elf32_Shdr, field), v }

static const struct {
	const char *name;
	struct patch patch[2];
	const char *needle;
} patched_rejects[] = {
	/* Blackhole's baby cores have no C extension: the RVC header flag is refused at load. */
	{ "EF_RISCV_RVC | EF_RISCV_FLOAT_ABI_DOUBLE", { P32(EH(e_flags), 0x1 | 0x4) }, "EF_RISCV_RVC" },
	{ "ELFCLASS64", { P8(EI_CLASS, ELFCLASS64) }, "not 32-bit (ELFCLASS64)" },
	{ "class 7", { P8(EI_CLASS, 7) }, "not 32-bit" },
	{ "big-endian", { P8(EI_DATA, ELFDATA2MSB) }, "not little-endian" },
	{ "x86-64 machine", { P16(EH(e_machine), EM_X86_64) }, "not RISC-V (e_machine 62" },
	{ "relocatable object", { P16(EH(e_type), ET_REL) }, "not an executable (e_type 1, ET_REL" },
	{ "shared object", { P16(EH(e_type), ET_DYN) }, "not an executable (e_type 3, ET_DYN" },
	{ "program headers past 4 GiB", { P32(EH(e_phoff), 0xfffffff0) }, "truncated" },
	{ "program headers at the end of the file", { P32_FROM_END(EH(e_phoff), 0) }, "truncated" },
	{ "huge program header count", { P16(EH(e_phnum), 0xfffe), P32(EH(e_phoff), 0xfffff000) }, "truncated" },
	{ "program header entry size 56", { P16(EH(e_phentsize), 56) },
	  "bad program header entry size 56 (expected 32)" },
	{ "program header entry size 0xffff", { P16(EH(e_phentsize), 0xffff) }, "bad program header entry size" },
	{ "section headers past the end", { P32(EH(e_shoff), 0xffffffe0) }, "truncated: section headers" },
	{ "section header entry size 64", { P16(EH(e_shentsize), 64) }, "bad section header entry size 64" },
	/* wraps in 32 bits, not in 64 */
	{ "segment data offset 0xfffffff0", { P32(PH(2, p_offset), 0xfffffff0) }, "truncated: program header 2 data" },
	{ "segment data running past the end", { P32_FROM_END(PH(2, p_offset), 0x3f) }, "is past the end of the file" },
	{ "file size larger than memory size", { P32(PH(0, p_memsz), 4) },
	  "program header 0: file size 0x8 exceeds memory size 0x4" },
	{ "symbol name outside the string table", { P32_SYM(3, st_name, 0x7fff0000) }, "outside the string table" },
	{ "symbol table past the end", { P32_SH(2, sh_size, 0x100000) }, "truncated: symbol table" },
};

Test(elf_reject, damaged_header_fields)
{
	struct tlayout lay;
	uint8_t *ref = ref_image(&lay), *img = malloc(lay.size);
	const size_t base[] = { [AT_FILE] = 0, [AT_SYMTAB] = lay.symtab_off, [AT_SHDRS] = lay.shoff };
	for (size_t k = 0; k < N(patched_rejects); k++) {
		memcpy(img, ref, lay.size);
		const struct patch *patch = patched_rejects[k].patch;
		for (const struct patch *p = patch; p < patch + N(patched_rejects[k].patch) && p->width; p++) {
			uint32_t v = p->from_end ? (uint32_t)lay.size - p->value : p->value;
			size_t at = base[p->base] + p->off;
			if (p->width == 1)
				img[at] = (uint8_t)v;
			else if (p->width == 2)
				put16(img, at, (uint16_t)v);
			else
				put32(img, at, v);
		}
		expect_reject(patched_rejects[k].name, img, lay.size, patched_rejects[k].needle);
	}
	free(img);
	free(ref);
}

/* Images the writer builds from a description that the rules refuse. */
static const struct {
	const char *name;
	struct telf t;
	const char *needle;
} built_rejects[] = {
	{ "segment wrapping past 4 GiB", { .nseg = 1, .seg = { { .vaddr = 0xfffffff0, .filesz = 0, .memsz = 0x20 } } },
	  "wraps past 0xffffffff" },
	{ "overlapping segments",
	  { .nseg = 3,
	    .seg = { { .vaddr = 0x3000, .filesz = 4, .memsz = 4 },
		     { .vaddr = 0x1030, .filesz = 8, .memsz = 0x20 },
		     { .vaddr = 0x1000, .filesz = 0x10, .memsz = 0x40 } } },
	  "[0x00001000,0x00001040) and [0x00001030,0x00001050) overlap" },
	{ "overlap through .bss only",
	  { .nseg = 2,
	    .seg = { { .vaddr = 0x1000, .filesz = 0, .memsz = 0x1001 },
		     { .vaddr = 0x2000, .filesz = 4, .memsz = 4 } } },
	  "overlap" },
	{ "only a RISC-V attributes header", { .nseg = 1, .seg = { { .type = PT_RISCV_ATTRIBUTES_, .filesz = 4 } } },
	  "no PT_LOAD segment" },
	{ "only an empty PT_LOAD", { .nseg = 1, .seg = { { .vaddr = 0x1000, .filesz = 0, .memsz = 0 } } },
	  "no PT_LOAD segment" },
	{ "no program headers", { .nseg = 0 }, "no PT_LOAD segment" },
};

Test(elf_reject, images_breaking_the_segment_rules)
{
	for (size_t k = 0; k < N(built_rejects); k++) {
		struct tlayout lay;
		uint8_t *img = telf_build(&built_rejects[k].t, &lay);
		expect_reject(built_rejects[k].name, img, lay.size, built_rejects[k].needle);
		free(img);
	}
}

Test(elf_reject, truncated_anywhere)
{
	struct tlayout lay;
	uint8_t *img = ref_image(&lay);
	size_t cuts[] = { 1, 3, 4, 15, 16, 30, 51, 52, 53, 100, 180, lay.seg_off[2] + 3,
			  lay.symtab_off + 5, lay.shoff, lay.shoff + 39, lay.size - 1 };
	for (unsigned i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		char what[48];
		snprintf(what, sizeof what, "cut to %zu bytes", cuts[i]);
		expect_reject(what, img, cuts[i], cuts[i] < SELFMAG ? "not an ELF file" : "truncated");
	}
	free(img);
}

Test(elf_reject, program_headers_cut_off)
{
	struct telf t = ref_elf();
	t.no_sections = true;
	struct tlayout lay;
	uint8_t *img = telf_build(&t, &lay);
	expect_reject("cut in the program headers", img, sizeof(Elf32_Ehdr) + 10, "truncated: 4 program headers");
	expect_reject("cut 1 byte short of the program headers", img, sizeof(Elf32_Ehdr) + 4 * sizeof(Elf32_Phdr) - 1,
		      "program headers [0x34,0xb4) end past");
	free(img);
}

Test(elf_reject, message_is_cut_to_the_buffer_and_optional)
{
	struct tlayout lay;
	uint8_t *img = ref_image(&lay);
	put16(img, EH(e_machine), EM_X86_64);
	char err[8];
	memset(err, 'x', sizeof(err));
	cr_assert_null(open_image("x86-64 machine", img, lay.size, err, sizeof(err)));
	cr_assert_eq(strlen(err), sizeof(err) - 1);
	cr_assert_null(open_image("x86-64 machine", img, lay.size, NULL, 0));
	cr_assert_null(open_image("x86-64 machine", img, lay.size, err, 0));
	cr_assert_null(bh_elf_open(NULL, err, sizeof(err)));
	free(img);
}

/* Random byte damage to the header tables must give an ELF or a message, never a crash (ASan). */
Test(elf_reject, damaged_images_never_crash)
{
	struct tlayout lay;
	uint8_t *ref = ref_image(&lay);
	uint8_t *img = malloc(lay.size);
	uint32_t rng = 12345;
	struct tfile f;
	for (unsigned iter = 0; iter < 400; iter++) {
		memcpy(img, ref, lay.size);
		for (unsigned k = 0; k < 4; k++) {
			rng = rng * 1103515245u + 12345u;
			/* Half the hits in the ELF and program headers, half in the symbol/section area. */
			size_t at = (rng >> 16) & 1 ? (rng >> 17) % (sizeof(Elf32_Ehdr) + 4 * sizeof(Elf32_Phdr))
						   : lay.symtab_off + (rng >> 17) % (lay.size - lay.symtab_off);
			rng = rng * 1103515245u + 12345u;
			img[at] = (uint8_t)(rng >> 16);
		}
		rng = rng * 1103515245u + 12345u;
		size_t size = (rng >> 16) % 8 == 0 ? (rng >> 8) % lay.size : lay.size;
		tfile_write(&f, img, size);
		char err[256] = "";
		struct bh_elf *e = bh_elf_open(f.path, err, sizeof(err));
		unlink(f.path);
		if (e) {
			uint32_t off;
			bh_elf_symbol_at(e, 0x1004, &off);
			bh_elf_symbol_lookup(e, "main", &off);
			bh_elf_close(e);
		} else {
			cr_assert_neq(err[0], '\0', "iteration %u: refused without a message", iter);
		}
	}
	free(img);
	free(ref);
}

/* ---------------------------------------------------------------------------------------------
 * Loader: where the segments of an accepted image land
 */

static struct bh_device *dev;

static void dev_open(void)
{
	struct bh_device_config cfg = { .num_tiles = 2 };
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
}

static void dev_close(void)
{
	bh_device_close(dev);
	dev = NULL;
}

/* Writes the ELF to a temporary file and loads it; f keeps the path for message checks. */
static int load(const struct telf *t, struct tfile *f, unsigned tile, enum bh_core_id core,
		const struct bh_load_options *opt, uint32_t *entry, char *err, size_t errlen)
{
	struct tlayout lay;
	uint8_t *img = telf_build(t, &lay);
	tfile_write(f, img, lay.size);
	free(img);
	int rc = bh_load_elf(dev, tile, core, f->path, opt, entry, err, errlen);
	unlink(f->path);
	return rc;
}

/* load() that must succeed, clearing the message. */
static void load_ok(const struct telf *t, unsigned tile, enum bh_core_id core, const struct bh_load_options *opt,
		    uint32_t *entry)
{
	struct tfile f;
	char err[256] = "unchanged";
	cr_assert_eq(load(t, &f, tile, core, opt, entry, err, sizeof(err)), BH_OK, "%s", err);
	cr_assert_str_empty(err);
}

static void l1_fill(unsigned tile, uint32_t addr, uint8_t byte, size_t len)
{
	uint8_t buf[256];
	cr_assert_leq(len, sizeof(buf));
	memset(buf, byte, len);
	cr_assert_eq(bh_l1_write(dev, tile, addr, buf, len), BH_OK);
}

static void expect_l1(unsigned tile, uint32_t addr, const void *want, size_t len)
{
	uint8_t got[256];
	cr_assert_leq(len, sizeof(got));
	cr_assert_eq(bh_l1_read(dev, tile, addr, got, len), BH_OK);
	cr_assert_arr_eq(got, want, len, "L1 tile %u at 0x%x", tile, addr);
}

static void expect_l1_bytes(unsigned tile, uint32_t addr, uint8_t byte, size_t len)
{
	uint8_t want[256];
	memset(want, byte, len);
	expect_l1(tile, addr, want, len);
}

static void expect_ldm(unsigned tile, enum bh_core_kind k, uint32_t off, const void *want, size_t len)
{
	uint8_t got[256];
	cr_assert_leq(len, sizeof(got));
	bh_tile_ldm_read(dev->tiles[tile], k, off, got, (uint32_t)len);
	cr_assert_arr_eq(got, want, len, "local RAM of core %d, tile %u, offset 0x%x", (int)k, tile, off);
}

static const uint8_t zero256[256];

TestSuite(loader, .init = dev_open, .fini = dev_close);

Test(loader, l1_segment_gets_file_bytes_then_zeros_up_to_memsz)
{
	l1_fill(1, 0x1000, 0xaa, 0x80);
	l1_fill(1, 0x2000, 0xaa, 0x40);
	struct telf t = ref_elf();
	uint32_t entry = 0;
	load_ok(&t, 1, BH_CORE_BRISC, NULL, &entry);
	cr_assert_eq(entry, 0x1000);
	expect_l1(1, 0x1000, ref_code, sizeof(ref_code));
	expect_l1_bytes(1, 0x1040, 0xaa, 0x40);          /* past memsz: untouched */
	expect_l1(1, 0x2000, ref_data, sizeof(ref_data));
	expect_l1_bytes(1, 0x2008, 0x00, 0x18);          /* .bss zeroed */
	expect_l1_bytes(1, 0x2020, 0xaa, 0x20);
	expect_l1_bytes(0, 0x1000, 0x00, 0x40);          /* other tile untouched */
}

Test(loader, symbols_are_kept_for_fault_reports_of_that_core)
{
	struct telf t = ref_elf();
	load_ok(&t, 1, BH_CORE_NCRISC, NULL, NULL);
	struct bh_elf *e = *bh_device_elf_slot(dev, 1, BH_CORE_NCRISC);
	cr_assert_not_null(e);
	uint32_t off;
	const struct bh_elf_symbol *s = bh_elf_symbol_at(e, 0x1034, &off);
	cr_assert_not_null(s);
	cr_assert_str_eq(s->name, "loop");
	cr_assert_null(*bh_device_elf_slot(dev, 1, BH_CORE_BRISC));
	cr_assert_null(*bh_device_elf_slot(dev, 0, BH_CORE_NCRISC));

	/* Loading again replaces (and frees) the previous table. */
	t.sym[0].name = "main_v2";
	load_ok(&t, 1, BH_CORE_NCRISC, NULL, NULL);
	e = *bh_device_elf_slot(dev, 1, BH_CORE_NCRISC);
	cr_assert_eq(bh_elf_symbol_lookup(e, "main_v2", NULL), 0);
	cr_assert_eq(bh_elf_symbol_lookup(e, "main", NULL), -1);
}

static struct telf ldm_elf(uint32_t vaddr, uint32_t filesz, uint32_t memsz)
{
	static const uint8_t data[8] = { 0x68, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef };
	struct telf t = {
		.entry = 0x3840,
		.nseg = 2,
		.seg = { { .vaddr = 0x3840, .filesz = 8, .memsz = 8, .flags = PF_R | PF_X, .data = ref_code },
			 { .vaddr = vaddr, .filesz = filesz, .memsz = memsz, .flags = PF_R | PF_W, .data = data } },
	};
	return t;
}

Test(loader, local_ram_segment_goes_to_the_cores_own_ram)
{
	static const uint8_t bytes[8] = { 0x68, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef };
	uint8_t junk[0x20];
	memset(junk, 0x55, sizeof(junk));
	bh_tile_ldm_write(dev->tiles[0], BH_BRISC, 0x100, junk, sizeof(junk));
	bh_tile_ldm_write(dev->tiles[0], BH_NCRISC, 0x100, junk, sizeof(junk));

	struct telf t = ldm_elf(BH_LDM_BASE + 0x100, 8, 0x20);
	load_ok(&t, 0, BH_CORE_BRISC, NULL, NULL);
	expect_ldm(0, BH_BRISC, 0x100, bytes, 8);
	expect_ldm(0, BH_BRISC, 0x108, zero256, 0x18);
	expect_ldm(0, BH_NCRISC, 0x100, junk, sizeof(junk));   /* another core's RAM is not touched */
}

/* Where each core may load a local-RAM segment (segment 1 of ldm_elf, at tile 0), with or without a
 * redirect into L1: the status, and for a refusal the message, which names the file; a refusal
 * leaves the core's symbols as they were. */
static const struct {
	const char *name;
	enum bh_core_id core;
	uint32_t vaddr, filesz, memsz, redirect;      /* redirect 0: none */
	int rc;
	const char *needle;
} load_cases[] = {
	/* the upper 4 KiB of local RAM exists for brisc and ncrisc, not for the triscs */
	{ "brisc, upper 4 KiB of local RAM", BH_CORE_BRISC, 0xFFB01000, 4, 16, 0, BH_OK, NULL },
	{ "ncrisc, upper 4 KiB of local RAM", BH_CORE_NCRISC, 0xFFB01000, 4, 16, 0, BH_OK, NULL },
	{ "trisc0, upper 4 KiB of local RAM", BH_CORE_TRISC0, 0xFFB01000, 4, 16, 0, BH_ERR_ELF,
	  "segment 1 [0xffb01000,0xffb01010) is outside L1 and the local RAM of trisc0 (0xffb00000..0xffb00fff)" },
	/* the last byte of a trisc's 4 KiB is fine, one more is not */
	{ "trisc2, last word of local RAM", BH_CORE_TRISC2, 0xFFB00FFC, 4, 4, 0, BH_OK, NULL },
	{ "trisc2, one byte past local RAM", BH_CORE_TRISC2, 0xFFB00FFC, 4, 5, 0, BH_ERR_ELF, NULL },
	/* a redirected local-RAM image must fit in L1 */
	{ "redirect 4 bytes before the end of L1", BH_CORE_BRISC, BH_LDM_BASE, 8, 8, BH_L1_SIZE - 4, BH_ERR_ELF,
	  "does not fit in L1" },
	{ "redirect 8 bytes before the end of L1", BH_CORE_BRISC, BH_LDM_BASE, 8, 8, BH_L1_SIZE - 8, BH_OK, NULL },
	/* outside all memory of the core */
	{ "segment at 0x40000000", BH_CORE_BRISC, 0x40000000, 4, 4, 0, BH_ERR_ELF,
	  "segment 1 [0x40000000,0x40000004) is outside L1 and the local RAM of brisc (0xffb00000..0xffb01fff)" },
	{ "segment running off the end of L1", BH_CORE_BRISC, BH_L1_SIZE - 4, 4, 8, 0, BH_ERR_ELF, "is outside L1" },
	/* the loader only knows the core's own view, not the slow local-RAM window */
	{ "segment in the slow local-RAM window", BH_CORE_BRISC, BH_LDM_SLOW_BASE, 4, 4, 0, BH_ERR_ELF, NULL },
};

Test(loader, local_ram_segments_load_only_where_the_core_can_reach)
{
	for (size_t k = 0; k < N(load_cases); k++) {
		const char *name = load_cases[k].name;
		struct telf t = ldm_elf(load_cases[k].vaddr, load_cases[k].filesz, load_cases[k].memsz);
		struct bh_load_options opt = { .ldm_redirect = load_cases[k].redirect };
		struct tfile f;
		char err[256] = "";
		struct bh_elf *before = *bh_device_elf_slot(dev, 0, load_cases[k].core);
		int rc = load(&t, &f, 0, load_cases[k].core, load_cases[k].redirect ? &opt : NULL, NULL, err,
			      sizeof(err));
		cr_expect_eq(rc, load_cases[k].rc, "%s: status %d, expected %d: %s", name, rc, load_cases[k].rc, err);
		if (rc == BH_OK || load_cases[k].rc == BH_OK)
			continue;
		cr_expect(strstr(err, f.path), "%s: message does not name the file: %s", name, err);
		if (load_cases[k].needle)
			cr_expect(strstr(err, load_cases[k].needle), "%s: expected \"%s\" in: %s", name,
				  load_cases[k].needle, err);
		cr_expect_eq(*bh_device_elf_slot(dev, 0, load_cases[k].core), before, "%s: symbols replaced", name);
	}
}

Test(loader, upper_4_kib_of_local_ram_holds_a_brisc_segment)
{
	static const uint8_t bytes[4] = { 0x68, 0, 0, 0 };
	struct telf t = ldm_elf(0xFFB01000, 4, 16);
	load_ok(&t, 0, BH_CORE_BRISC, NULL, NULL);
	expect_ldm(0, BH_BRISC, 0x1000, bytes, 4);
}

Test(loader, redirected_local_ram_image_lands_in_l1_scratch_without_bss)
{
	static const uint8_t bytes[4] = { 0x68, 0, 0, 0 };
	l1_fill(0, 0x82B0, 0xaa, 0x40);
	struct telf t = ldm_elf(BH_LDM_BASE + 0x10, 4, 0x828);
	struct bh_load_options opt = { .ldm_redirect = 0x82B0 };
	load_ok(&t, 0, BH_CORE_BRISC, &opt, NULL);
	expect_l1_bytes(0, 0x82B0, 0xaa, 0x10);
	expect_l1(0, 0x82C0, bytes, 4);
	expect_l1_bytes(0, 0x82C4, 0xaa, 0x2c);     /* .bss is the firmware's job */
	expect_ldm(0, BH_BRISC, 0x10, zero256, 8);  /* local RAM itself untouched */

	/* L1 segments are unaffected by the redirect. */
	expect_l1(0, 0x3840, ref_code, 8);
}

/* All or nothing: segment 0 is valid, but a refused segment 1 means nothing is written. */
Test(loader, refused_load_writes_nothing_and_keeps_entry)
{
	l1_fill(0, 0x3840, 0xaa, 8);
	struct telf t = ldm_elf(0x40000000, 4, 4);
	struct tfile f;
	char err[256];
	uint32_t entry = 0x1234;
	cr_assert_eq(load(&t, &f, 0, BH_CORE_BRISC, NULL, &entry, err, sizeof(err)), BH_ERR_ELF);
	expect_l1_bytes(0, 0x3840, 0xaa, 8);
	cr_assert_eq(entry, 0x1234);
	cr_assert_null(*bh_device_elf_slot(dev, 0, BH_CORE_BRISC));
}

Test(loader, a_failed_load_keeps_the_previous_symbols)
{
	struct telf good = ref_elf();
	struct telf bad = ldm_elf(0x40000000, 4, 4);
	struct tfile f;
	char err[256];
	load_ok(&good, 0, BH_CORE_TRISC1, NULL, NULL);
	struct bh_elf *before = *bh_device_elf_slot(dev, 0, BH_CORE_TRISC1);
	cr_assert_eq(load(&bad, &f, 0, BH_CORE_TRISC1, NULL, NULL, err, sizeof(err)), BH_ERR_ELF);
	cr_assert_eq(*bh_device_elf_slot(dev, 0, BH_CORE_TRISC1), before);
}

Test(loader, bad_elf_is_reported_with_its_path)
{
	struct tfile f;
	tfile_write(&f, "not an elf", 10);
	char err[256];
	cr_assert_eq(bh_load_elf(dev, 0, BH_CORE_BRISC, f.path, NULL, NULL, err, sizeof(err)), BH_ERR_ELF);
	unlink(f.path);
	cr_assert(strstr(err, f.path) && strstr(err, "not an ELF file"), "%s", err);
	cr_assert_eq(bh_load_elf(dev, 0, BH_CORE_BRISC, "/tmp/bhemu-test-elf-does-not-exist", NULL, NULL,
				 NULL, 0), BH_ERR_ELF);
}

Test(loader, bad_tile_or_core_is_an_argument_error)
{
	struct telf t = ref_elf();
	struct tfile f;
	char err[256];
	cr_assert_eq(load(&t, &f, 2, BH_CORE_BRISC, NULL, NULL, err, sizeof(err)), BH_ERR_ARG);
	cr_assert(strstr(err, "tile 2"), "%s", err);
	cr_assert_eq(load(&t, &f, 0, (enum bh_core_id)5, NULL, NULL, err, sizeof(err)), BH_ERR_ARG);
	cr_assert(strstr(err, "core 5"), "%s", err);
	cr_assert_eq(load(&t, &f, 0, (enum bh_core_id)-1, NULL, NULL, NULL, 0), BH_ERR_ARG);
	cr_assert_eq(bh_load_elf(dev, 0, BH_CORE_BRISC, NULL, NULL, NULL, err, sizeof(err)), BH_ERR_ARG);
	cr_assert_eq(bh_load_elf(NULL, 0, BH_CORE_BRISC, "x", NULL, NULL, err, sizeof(err)), BH_ERR_ARG);
}
