/* Fault reports of ELF programs (tile, core, pc with symbol+offset, instruction, address and
 * region) and the command-line interface (exit statuses, messages, --stats). The ELFs are
 * written by a small RV32 ELF writer below. */
#include <criterion/criterion.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "host/device.h"
#include "testlib.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

extern char **environ;

/* ------------------------------------------------------------------------- RV32 ELF writer */

struct relf_seg {
	uint32_t vaddr;
	const uint32_t *words;
	unsigned n;
};

struct relf_sym {
	const char *name;
	uint32_t value, size;
	unsigned char type;      /* STT_FUNC, STT_OBJECT, STT_NOTYPE */
	unsigned seg;            /* index of the segment (= section) it belongs to */
};

struct relf {
	uint32_t entry;
	unsigned nseg, nsym;
	struct relf_seg seg[2];
	struct relf_sym sym[8];
};

/* Layout: header, program headers, segment bytes, .symtab, .strtab, .shstrtab, section headers.
 * Sections: 0 null, 1..nseg one PROGBITS per segment, then .symtab, .strtab, .shstrtab. */
static void relf_write(const char *path, const struct relf *e)
{
	static const char shstr[] = "\0.text\0.data\0.symtab\0.strtab\0.shstrtab";
	enum { SH_TEXT = 1, SH_DATA = 7, SH_SYMTAB = 13, SH_STRTAB = 21, SH_SHSTRTAB = 29 };
	uint8_t *img = calloc(1, 1 << 16);
	cr_assert_not_null(img);
	size_t off = sizeof(Elf32_Ehdr) + e->nseg * sizeof(Elf32_Phdr);
	size_t seg_off[2];
	for (unsigned i = 0; i < e->nseg; i++) {
		seg_off[i] = off;
		memcpy(img + off, e->seg[i].words, e->seg[i].n * 4u);
		off += e->seg[i].n * 4u;
	}
	/* strings */
	char strtab[512] = { 0 };
	size_t strsz = 1, name_off[8];
	for (unsigned i = 0; i < e->nsym; i++) {
		name_off[i] = strsz;
		strcpy(strtab + strsz, e->sym[i].name);
		strsz += strlen(e->sym[i].name) + 1;
	}
	/* symbols: null, then one global per entry */
	size_t symtab_off = off;
	Elf32_Sym *sy = (Elf32_Sym *)(img + off);
	memset(sy, 0, sizeof *sy);
	for (unsigned i = 0; i < e->nsym; i++) {
		Elf32_Sym *s = &sy[i + 1];
		s->st_name = (Elf32_Word)name_off[i];
		s->st_value = e->sym[i].value;
		s->st_size = e->sym[i].size;
		s->st_info = ELF32_ST_INFO(STB_GLOBAL, e->sym[i].type);
		s->st_shndx = (Elf32_Half)(1 + e->sym[i].seg);
	}
	off += (e->nsym + 1) * sizeof(Elf32_Sym);
	size_t strtab_off = off;
	memcpy(img + off, strtab, strsz);
	off += strsz;
	size_t shstr_off = off;
	memcpy(img + off, shstr, sizeof shstr);
	off = (off + sizeof shstr + 3) & ~(size_t)3;
	size_t shoff = off;
	unsigned nsh = 1 + e->nseg + 3;
	Elf32_Shdr *sh = (Elf32_Shdr *)(img + shoff);
	memset(sh, 0, nsh * sizeof *sh);
	for (unsigned i = 0; i < e->nseg; i++) {
		Elf32_Shdr *s = &sh[1 + i];
		s->sh_name = i == 0 ? SH_TEXT : SH_DATA;
		s->sh_type = SHT_PROGBITS;
		s->sh_flags = SHF_ALLOC | (i == 0 ? SHF_EXECINSTR : SHF_WRITE);
		s->sh_addr = e->seg[i].vaddr;
		s->sh_offset = (Elf32_Off)seg_off[i];
		s->sh_size = e->seg[i].n * 4u;
		s->sh_addralign = 4;
	}
	Elf32_Shdr *st = &sh[1 + e->nseg];
	st->sh_name = SH_SYMTAB;
	st->sh_type = SHT_SYMTAB;
	st->sh_offset = (Elf32_Off)symtab_off;
	st->sh_size = (e->nsym + 1) * sizeof(Elf32_Sym);
	st->sh_link = 2 + e->nseg;
	st->sh_info = 1;
	st->sh_entsize = sizeof(Elf32_Sym);
	st->sh_addralign = 4;
	Elf32_Shdr *ss = &sh[2 + e->nseg];
	ss->sh_name = SH_STRTAB;
	ss->sh_type = SHT_STRTAB;
	ss->sh_offset = (Elf32_Off)strtab_off;
	ss->sh_size = (Elf32_Word)strsz;
	ss->sh_addralign = 1;
	Elf32_Shdr *sn = &sh[3 + e->nseg];
	sn->sh_name = SH_SHSTRTAB;
	sn->sh_type = SHT_STRTAB;
	sn->sh_offset = (Elf32_Off)shstr_off;
	sn->sh_size = sizeof shstr;
	sn->sh_addralign = 1;
	off = shoff + nsh * sizeof *sh;

	Elf32_Ehdr *h = (Elf32_Ehdr *)img;
	memcpy(h->e_ident, ELFMAG, SELFMAG);
	h->e_ident[EI_CLASS] = ELFCLASS32;
	h->e_ident[EI_DATA] = ELFDATA2LSB;
	h->e_ident[EI_VERSION] = EV_CURRENT;
	h->e_type = ET_EXEC;
	h->e_machine = EM_RISCV;
	h->e_version = EV_CURRENT;
	h->e_entry = e->entry;
	h->e_phoff = sizeof(Elf32_Ehdr);
	h->e_shoff = (Elf32_Off)shoff;
	h->e_ehsize = sizeof(Elf32_Ehdr);
	h->e_phentsize = sizeof(Elf32_Phdr);
	h->e_phnum = (Elf32_Half)e->nseg;
	h->e_shentsize = sizeof(Elf32_Shdr);
	h->e_shnum = (Elf32_Half)nsh;
	h->e_shstrndx = (Elf32_Half)(3 + e->nseg);
	Elf32_Phdr *ph = (Elf32_Phdr *)(img + sizeof(Elf32_Ehdr));
	for (unsigned i = 0; i < e->nseg; i++) {
		ph[i].p_type = PT_LOAD;
		ph[i].p_offset = (Elf32_Off)seg_off[i];
		ph[i].p_vaddr = ph[i].p_paddr = e->seg[i].vaddr;
		ph[i].p_filesz = ph[i].p_memsz = e->seg[i].n * 4u;
		ph[i].p_flags = i == 0 ? PF_R | PF_X : PF_R | PF_W;
		ph[i].p_align = 4;
	}
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot create %s", path);
	cr_assert_eq(fwrite(img, 1, off, f), off);
	fclose(f);
	free(img);
}

/* A scratch directory per test, removed at the end. */
static char scratch[64];

static void scratch_init(void)
{
	strcpy(scratch, "/tmp/bhemu-report-XXXXXX");
	cr_assert_not_null(mkdtemp(scratch));
}

static void scratch_fini(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", scratch);
}

static const char *scratch_path(const char *name)
{
	static char buf[4][128];
	static unsigned k;
	char *p = buf[k++ % 4];
	snprintf(p, sizeof buf[0], "%s/%s", scratch, name);
	return p;
}

/* ------------------------------------------------------------------------ test programs */

/* _start calls bad_access, which loads from 0x180004 (just past L1) at bad_access+0x8.
 * Data segment: `counter` (object, 8 bytes) at 0x2000. */
#define TEXT 0x1000u
#define DATA 0x2000u

static void write_fault_elf(const char *path, uint32_t bad_addr)
{
	struct prog p = { 0 };
	emit_call(&p, TEXT, TEXT + 8);                      /* 0x1000 _start: jal ra, bad_access */
	emit(&p, INSN_SELF_LOOP);                           /* 0x1004 */
	emit(&p, addi(T1, X0, 1));                          /* 0x1008 bad_access */
	emit(&p, lui(T0, bad_addr >> 12));                  /* 0x100c */
	emit(&p, lw(A0, (int32_t)(bad_addr & 0xfff), T0));  /* 0x1010 */
	emit(&p, INSN_RET);                                 /* 0x1014 */
	static const uint32_t data[2] = { 0x11223344, 0x55667788 };
	struct relf e = {
		.entry = TEXT, .nseg = 2, .nsym = 3,
		.seg = { { TEXT, p.w, p.n }, { DATA, data, 2 } },
		.sym = {
			{ "_start", TEXT, 8, STT_FUNC, 0 },
			{ "bad_access", TEXT + 8, 16, STT_FUNC, 0 },
			{ "counter", DATA, 8, STT_OBJECT, 1 },
		},
	};
	relf_write(path, &e);
}

/* Exits with `status` after writing "hello from bhemu\n" to stdout. */
static void write_hello_elf(const char *path, uint32_t status)
{
	struct prog p = { 0 };
	emit_li(&p, A0, 1);
	emit_li(&p, A1, DATA);
	emit_li(&p, A2, 17);
	emit_li(&p, A7, 64);
	emit(&p, INSN_ECALL);
	emit_exit_with(&p, status);
	static const char msg[20] = "hello from bhemu\n";
	struct relf e = {
		.entry = TEXT, .nseg = 2, .nsym = 1,
		.seg = { { TEXT, p.w, p.n }, { DATA, (const uint32_t *)msg, 5 } },
		.sym = { { "main", TEXT, p.n * 4, STT_FUNC, 0 } },
	};
	relf_write(path, &e);
}

static void write_loop_elf(const char *path)
{
	static const uint32_t w[2] = { INSN_NOP, INSN_SELF_LOOP };   /* nop; spin */
	struct relf e = {
		.entry = TEXT, .nseg = 1, .nsym = 1,
		.seg = { { TEXT, w, 2 } },
		.sym = { { "spin", TEXT, 8, STT_FUNC, 0 } },
	};
	relf_write(path, &e);
}

/* For trisc0: a get (store of 1) of Tensix semaphore 5, which is at 0 (sem-underflow), at
 * sem_take+0xc; then exit(0). */
static void write_semget_elf(const char *path)
{
	struct prog p = { 0 };
	emit_li(&p, T0, 0xFFE80034u);   /* two words: lui, addi */
	emit(&p, addi(T1, X0, 1));
	emit(&p, sw(T1, 0, T0));        /* 0x100c */
	emit_exit_with(&p, 0);
	struct relf e = {
		.entry = TEXT, .nseg = 1, .nsym = 1,
		.seg = { { TEXT, p.w, p.n } },
		.sym = { { "sem_take", TEXT, p.n * 4, STT_FUNC, 0 } },
	};
	relf_write(path, &e);
}

/* ----------------------------------------------------------------------- fault reports */

/* Loads the ELF for `core` on a fresh device, runs it and expects a fault; the result is the
 * caller's to free. */
static struct bh_core_result *run_elf_to_fault(enum bh_core_id core, const char *path)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	char err[512];
	uint32_t entry = 0;
	cr_assert_eq(bh_load_elf(dev, 0, core, path, NULL, &entry, err, sizeof err), BH_OK, "%s", err);
	cr_assert_eq(entry, TEXT);
	cr_assert_eq(bh_core_start(dev, 0, core, entry), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 0, core, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_FAULTED, "status %d", r->status);
	bh_device_close(dev);
	return r;
}

Test(report, names_tile_core_pc_symbol_instruction_address_and_region, .init = scratch_init,
     .fini = scratch_fini)
{
	const char *elf = scratch_path("fault.elf");
	write_fault_elf(elf, 0x180004);
	struct bh_core_result *r = run_elf_to_fault(BH_CORE_TRISC1, elf);
	assert_has(r->report, "unmapped address");
	assert_has(r->report, "tile 0 (1,2)");
	assert_has(r->report, "core trisc1");
	assert_has(r->report, "pc 0x00001010");
	assert_has(r->report, "<bad_access+0x8>");
	assert_has(r->report, "lw a0,4(t0)");
	assert_has(r->report, "0x00180004");
	assert_has(r->report, "unmapped");
	assert_has(r->report, "4-byte load");
	free(r);
}

/* The device report (boot, smoke and program errors print it) gives a faulted core's whole fault
 * report, not just "stopped by a fault". */
Test(report, device_report_gives_the_fault_of_a_faulted_core, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("fault.elf");
	write_fault_elf(elf, 0x180004);
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	char err[512];
	uint32_t entry = 0;
	cr_assert_eq(bh_load_elf(dev, 0, BH_CORE_TRISC1, elf, NULL, &entry, err, sizeof err), BH_OK, "%s", err);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC1, entry), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC1, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_FAULTED, "status %d", r->status);
	static char buf[16384];
	cr_assert_eq(bh_device_report(dev, buf, sizeof buf), BH_OK);
	assert_has(buf, "  tile 0 (1,2) trisc1: stopped by a fault:\n");
	assert_has(buf, "    pc 0x00001010 <bad_access+0x8>: ");
	assert_has(buf, "lw a0,4(t0)");
	assert_has(buf, "4-byte load from 0x00180004");
	assert_has(buf, "    why: ");
	bh_device_close(dev);
	free(r);
}

/* A data address inside an object is named as object+offset, with its region. */
Test(report, names_the_data_symbol_of_the_address, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("misaligned.elf");
	write_fault_elf(elf, DATA + 5);
	struct bh_core_result *r = run_elf_to_fault(BH_CORE_BRISC, elf);
	assert_has(r->report, "misaligned access");
	assert_has(r->report, "core brisc");
	assert_has(r->report, "<bad_access+0x8>");
	assert_has(r->report, "0x00002005 <counter+0x5>");
	assert_has(r->report, "in L1");
	free(r);
}

/* A fault at the first instruction of a function shows the bare symbol. */
Test(report, fault_at_a_function_start_shows_the_bare_symbol, .init = scratch_init, .fini = scratch_fini)
{
	static const uint32_t w[3] = { INSN_NOP, 0x00100073, INSN_SELF_LOOP };   /* nop; ebreak */
	struct relf e = {
		.entry = TEXT, .nseg = 1, .nsym = 2,
		.seg = { { TEXT, w, 3 } },
		.sym = { { "_start", TEXT, 4, STT_FUNC, 0 }, { "boom", TEXT + 4, 8, STT_FUNC, 0 } },
	};
	const char *elf = scratch_path("ebreak.elf");
	relf_write(elf, &e);
	struct bh_core_result *r = run_elf_to_fault(BH_CORE_NCRISC, elf);
	assert_has(r->report, "ebreak");
	assert_has(r->report, "pc 0x00001004 <boom>:");
	free(r);
}

/* Symbols belong to the core the ELF was loaded for. */
Test(report, symbols_come_from_the_elf_loaded_for_that_core, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("fault.elf");
	write_fault_elf(elf, 0x180004);
	struct bh_device *dev = t_open();
	char err[256];
	cr_assert_eq(bh_load_elf(dev, 0, BH_CORE_BRISC, elf, NULL, NULL, err, sizeof err), BH_OK, "%s", err);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC0, TEXT), BH_OK);
	struct bh_core_result *r = calloc(1, sizeof *r);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC0, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_FAULTED);
	assert_has(r->report, "pc 0x00001010:");
	cr_expect_null(strstr(r->report, "bad_access"), "trisc0 has no ELF but got:\n%s", r->report);
	free(r);
	bh_device_close(dev);
}

/* A real compiler's ELF (the guest test programs, when the cross compiler was found): patch an
 * ebreak over main's first instruction and the report names <main>. */
Test(report, guest_elf_from_the_cross_compiler_names_main)
{
	glob_t g;
	if (glob(BHEMU_BINARY_DIR "/guest/*.elf", 0, NULL, &g) != 0 || g.gl_pathc == 0)
		cr_skip_test("no guest ELF in %s/guest (cross compiler missing or guest targets not built)",
			     BHEMU_BINARY_DIR);
	struct bh_device *dev = t_open();
	char err[512];
	uint32_t entry = 0, main_addr = 0;
	const char *elf = NULL;
	for (size_t k = 0; k < g.gl_pathc && !elf; k++) {
		if (bh_load_elf(dev, 0, BH_CORE_BRISC, g.gl_pathv[k], NULL, &entry, err, sizeof err) != BH_OK)
			continue;
		const struct bh_elf *e = *bh_device_elf_slot(dev, 0, BH_CORE_BRISC);
		if (bh_elf_symbol_lookup(e, "main", &main_addr) == 0)
			elf = g.gl_pathv[k];
	}
	if (!elf)
		cr_skip_test("no loadable guest ELF with a main symbol");
	const uint32_t ebreak = 0x00100073;
	cr_assert_eq(bh_l1_write(dev, 0, main_addr, &ebreak, 4), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, entry), BH_OK);
	struct bh_core_result *r = calloc(1, sizeof *r);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_FAULTED, "%s: status %d", elf, r->status);
	char want[64];
	snprintf(want, sizeof want, "pc 0x%08x <main>", main_addr);
	assert_has(r->report, want);
	assert_has(r->report, "ebreak");
	free(r);
	globfree(&g);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------------------------ CLI */

#define CLI_RUN(...) test_cli((const char *const[]){ __VA_ARGS__, NULL })

Test(cli, help_exits_0_with_usage_on_stdout)
{
	struct cli_out *o = CLI_RUN("--help");
	expect_status(o, 0);
	assert_has(o->out, "usage: bhemu run");
	assert_has(o->out, "--max-instructions");
	free(o);
	o = CLI_RUN("run", "--help");
	expect_status(o, 0);
	assert_has(o->out, "usage");
	free(o);
	o = CLI_RUN("--version");
	expect_status(o, 0);
	assert_has(o->out, "bhemu");
	free(o);
}

/* --list-checks: every check by name with its description, "(default)" after the ones on by
 * default, on stdout; status 0. */
Test(cli, list_checks_names_every_check)
{
	static const char *const cmds[] = { "run", "boot", "smoke" };
	for (unsigned c = 0; c < 3; c++) {
		struct cli_out *o = CLI_RUN(cmds[c], "--list-checks");
		expect_status(o, 0);
		for (unsigned k = 0; k < BH_CHECK_COUNT; k++) {
			char line[256];
			snprintf(line, sizeof line, "%-22s %s%s\n", bh_check_name((enum bh_check)k),
				 bh_check_description((enum bh_check)k), BH_CHECKS_DEFAULT >> k & 1 ? " (default)" : "");
			cr_expect(strstr(o->out, line) != NULL, "%s --list-checks lacks '%s':\n%s", cmds[c], line, o->out);
		}
		free(o);
	}
}

Test(cli, no_command_or_unknown_command_exits_2)
{
	struct cli_out *o = test_cli((const char *const[]){ NULL });
	expect_status(o, 2);
	assert_has(o->err, "missing command");
	free(o);
	o = CLI_RUN("frobnicate");
	expect_status(o, 2);
	assert_has(o->err, "unknown command 'frobnicate'");
	free(o);
}

Test(cli, unknown_option_exits_2_with_a_message, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("hello.elf");
	write_hello_elf(elf, 0);
	struct cli_out *o = CLI_RUN("run", "--frobnicate", elf);
	expect_status(o, 2);
	assert_has(o->err, "frobnicate");
	assert_has(o->err, "usage");
	free(o);
}

Test(cli, missing_elf_exits_2_with_a_message)
{
	struct cli_out *o = CLI_RUN("run");
	expect_status(o, 2);
	assert_has(o->err, "PROGRAM.elf");
	free(o);
	o = CLI_RUN("run", "--core", "ncrisc");
	expect_status(o, 2);
	free(o);
}

Test(cli, two_elfs_exit_2)
{
	struct cli_out *o = CLI_RUN("run", "a.elf", "b.elf");
	expect_status(o, 2);
	assert_has(o->err, "exactly one");
	free(o);
}

Test(cli, bad_core_exits_2_naming_the_cores, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("hello.elf");
	write_hello_elf(elf, 0);
	struct cli_out *o = CLI_RUN("run", "--core", "trisc3", elf);
	expect_status(o, 2);
	assert_has(o->err, "--core is brisc, ncrisc, trisc0, trisc1 or trisc2, not 'trisc3'");
	assert_has(o->err, "brisc");
	free(o);
}

Test(cli, non_numeric_max_instructions_exits_2, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("hello.elf");
	write_hello_elf(elf, 0);
	const char *bad[] = { "abc", "12x", "-5", "0", "" };
	for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		struct cli_out *o = CLI_RUN("run", "--max-instructions", bad[k], elf);
		expect_status(o, 2);
		assert_has(o->err, "--max-instructions needs a whole number from 1 to");
		free(o);
	}
}

Test(cli, nonexistent_file_exits_2_naming_it, .init = scratch_init, .fini = scratch_fini)
{
	const char *missing = scratch_path("no-such-program.elf");
	struct cli_out *o = CLI_RUN("run", missing);
	expect_status(o, 2);
	assert_has(o->err, "no-such-program.elf");
	free(o);
}

Test(cli, non_elf_file_exits_2_naming_it, .init = scratch_init, .fini = scratch_fini)
{
	const char *txt = scratch_path("notes.txt");
	FILE *f = fopen(txt, "w");
	cr_assert_not_null(f);
	fputs("this is not an ELF file, just some text that is long enough to hold a header\n", f);
	fclose(f);
	struct cli_out *o = CLI_RUN("run", txt);
	expect_status(o, 2);
	assert_has(o->err, "notes.txt");
	assert_has(o->err, "ELF");
	free(o);
	/* an empty file too */
	const char *empty = scratch_path("empty.elf");
	f = fopen(empty, "w");
	cr_assert_not_null(f);
	fclose(f);
	o = CLI_RUN("run", empty);
	expect_status(o, 2);
	assert_has(o->err, "empty.elf");
	free(o);
}

Test(cli, program_exit_status_and_output_pass_through, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("hello.elf");
	write_hello_elf(elf, 42);
	struct cli_out *o = CLI_RUN("run", elf);
	expect_status(o, 42);
	cr_expect_str_eq(o->out, "hello from bhemu\n");
	free(o);
	o = CLI_RUN("run", "-c", "trisc2", elf);
	expect_status(o, 42);
	free(o);
}

Test(cli, faulting_program_exits_3_with_the_report_on_stderr, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("fault.elf");
	write_fault_elf(elf, 0x180004);
	struct cli_out *o = CLI_RUN("run", "--core", "ncrisc", elf);
	expect_status(o, 3);
	assert_has(o->err, "fault: unmapped address on tile 0");
	assert_has(o->err, "core ncrisc");
	assert_has(o->err, "pc 0x00001010 <bad_access+0x8>");
	assert_has(o->err, "lw a0,4(t0)");
	assert_has(o->err, "0x00180004");
	cr_expect_str_empty(o->out);
	free(o);
}

Test(cli, max_instructions_on_an_infinite_loop_exits_4, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("loop.elf");
	write_loop_elf(elf);
	struct cli_out *o = CLI_RUN("run", "--max-instructions", "100000", elf);
	expect_status(o, 4);
	assert_has(o->err, "--max-instructions 100000");
	free(o);
	o = CLI_RUN("run", "-n", "0x1000", elf);
	expect_status(o, 4);
	free(o);
}

Test(cli, stats_prints_instructions_seconds_and_mips, .init = scratch_init, .fini = scratch_fini)
{
	const char *elf = scratch_path("loop.elf");
	write_loop_elf(elf);
	struct cli_out *o = CLI_RUN("run", "--stats", "--max-instructions", "2000000", elf);
	expect_status(o, 4);
	const char *line = strstr(o->err, "stats: ");
	cr_assert_not_null(line, "no stats line:\n%s", o->err);
	unsigned long long n = 0;
	double secs = -1, mips = -1;
	cr_assert_eq(sscanf(line, "stats: instructions=%llu seconds=%lf mips=%lf", &n, &secs, &mips), 3, "%s", line);
	cr_expect_geq(n, 2000000ull);
	cr_expect_gt(secs, 0.0);
	cr_expect_gt(mips, 0.0);
	free(o);

	/* An exiting program: the count is exact (li a0 (2) + li a7 (2) + ecall after the write). */
	const char *hello = scratch_path("hello.elf");
	write_hello_elf(hello, 0);
	o = CLI_RUN("run", "-s", hello);
	expect_status(o, 0);
	line = strstr(o->err, "stats: ");
	cr_assert_not_null(line, "no stats line:\n%s", o->err);
	cr_assert_eq(sscanf(line, "stats: instructions=%llu seconds=%lf mips=%lf", &n, &secs, &mips), 3, "%s", line);
	cr_expect_eq(n, 14ull, "hello: %llu instructions", n);
	free(o);
}

/* BRISC waits until NCRISC runs, holds it in reset for 100 ms of wall clock (five of the run's
 * polls), points its reset pc at exit(0) and releases it (races.md #1's fix), then exits 0:
 * NCRISC runs on, so the run is not over while it is held, and ends with both exited 0. */
Test(cli, a_core_held_in_reset_and_released_again_by_another_runs_on, .init = scratch_init, .fini = scratch_fini)
{
	enum { HOLD_TICKS = 135000000, FLAG = 0x20000 };   /* 100 ms at 1.35 GHz (WALL_CLOCK_0) */
	struct prog p = { 0 };
	emit_li(&p, T0, FLAG);
	int32_t wait = prog_here(&p);
	emit(&p, INSN_FENCE);                     /* each poll (poll-no-fence) */
	emit(&p, lw(T1, 0, T0));
	emit_branch(&p, BEQ, T1, X0, wait);       /* NCRISC is running */
	emit_li(&p, T0, SOFT_RESET_0);
	emit(&p, lw(T1, 0, T0));
	emit_li(&p, T2, 1u << 18);                /* NCRISC */
	emit(&p, r_op(0x00, 6, T1, T1, T2));      /* or */
	emit(&p, sw(T1, 0, T0));
	emit_li(&p, S0, 0xFFB121F0u);             /* WALL_CLOCK_0 */
	emit(&p, lw(S1, 0, S0));
	emit_li(&p, A3, HOLD_TICKS);
	int32_t hold = prog_here(&p);
	emit(&p, lw(T2, 0, S0));
	emit(&p, sub(T2, T2, S1));
	emit_branch(&p, BLTU, T2, A3, hold);
	uint32_t fix_at = (uint32_t)p.n;          /* li below: two words each */
	emit_li(&p, T0, 0xFFB12238u);             /* NCRISC_RESET_PC */
	emit_li(&p, T1, 0);                       /* patched: TEXT + 4 * exit_at */
	emit(&p, sw(T1, 0, T0));
	emit_li(&p, T1, 1);
	emit(&p, sw(T1, 4, T0));                  /* NCRISC_RESET_PC_OVERRIDE */
	emit_li(&p, T0, SOFT_RESET_0);
	emit(&p, lw(T1, 0, T0));
	emit_li(&p, T2, ~(1u << 18));
	emit(&p, r_op(0x00, 7, T1, T1, T2));      /* and */
	emit(&p, sw(T1, 0, T0));                  /* released */
	emit_exit_with(&p, 0);
	uint32_t ncrisc_at = (uint32_t)p.n;
	emit_li(&p, T0, FLAG);
	emit_li(&p, T1, 1);
	emit(&p, sw(T1, 0, T0));
	emit(&p, INSN_SELF_LOOP);                 /* NCRISC until it is held */
	uint32_t exit_at = (uint32_t)p.n;
	emit_exit_with(&p, 0);                    /* NCRISC after its release */
	struct prog fix = { 0 };
	emit_li(&fix, T1, TEXT + 4 * exit_at);
	p.w[fix_at + 2] = fix.w[0];
	p.w[fix_at + 3] = fix.w[1];
	struct relf e = {
		.entry = TEXT, .nseg = 1, .nsym = 2,
		.seg = { { TEXT, p.w, p.n } },
		.sym = { { "main", TEXT, ncrisc_at * 4, STT_FUNC, 0 },
			 { "_start_ncrisc", TEXT + ncrisc_at * 4, (p.n - ncrisc_at) * 4, STT_FUNC, 0 } },
	};
	const char *elf = scratch_path("hold.elf");
	relf_write(elf, &e);
	struct cli_out *o = CLI_RUN("run", "--board", "grid:1x1", "--cores", "brisc,ncrisc", elf);
	expect_status(o, 0);
	cr_expect(strstr(o->err, "put in reset") == NULL, "stderr:\n%s", o->err);
	free(o);
}

/* BRISC faults at its first load while NCRISC spins: the report's last line gives NCRISC as it was
 * when the fault ended the run (running), not as it was before anyone looked at it. */
Test(cli, a_fault_ending_the_run_reports_every_other_core_as_it_then_was, .init = scratch_init,
     .fini = scratch_fini)
{
	struct prog p = { 0 };
	emit(&p, lui(T0, 0x180));                 /* 0x180000: unmapped */
	emit(&p, lw(A0, 4, T0));
	emit(&p, INSN_SELF_LOOP);                 /* _start_ncrisc */
	struct relf e = {
		.entry = TEXT, .nseg = 1, .nsym = 2,
		.seg = { { TEXT, p.w, p.n } },
		.sym = { { "main", TEXT, 8, STT_FUNC, 0 }, { "_start_ncrisc", TEXT + 8, 4, STT_FUNC, 0 } },
	};
	const char *elf = scratch_path("fault2.elf");
	relf_write(elf, &e);
	for (unsigned k = 0; k < 10; k++) {   /* the old bug showed when the fault came first: about 1 in 15 */
		struct cli_out *o = CLI_RUN("run", "--board", "grid:1x1", "--cores", "brisc,ncrisc", elf);
		expect_status(o, 3);
		assert_has(o->err, "fault: unmapped address on tile 0 (1,2) core brisc");
		assert_has(o->err, "bhemu: at that point: brisc faulted after 1 instructions, ncrisc running");
		free(o);
	}
}

/* ------------------------------------------------------------ every option of every command */

/* Stores 0x47800 (every core in reset) to SOFT_RESET_0 at reset_store, then would loop forever. */
static void write_self_reset_elf(const char *path)
{
	struct prog p = { 0 };
	emit_li(&p, T0, SOFT_RESET_0);
	emit_li(&p, T1, 0x47800);
	emit(&p, sw(T1, 0, T0));                  /* reset_store */
	emit(&p, INSN_SELF_LOOP);
	struct relf e = {
		.entry = TEXT, .nseg = 1, .nsym = 2,
		.seg = { { TEXT, p.w, p.n } },
		.sym = { { "main", TEXT, (p.n - 2) * 4, STT_FUNC, 0 }, { "reset_store", TEXT + (p.n - 2) * 4, 4, STT_FUNC, 0 } },
	};
	relf_write(path, &e);
}

/* One command line and what it must do. In args, "@ELF" is a program that prints and exits 0,
 * "@RESET" one that puts its tile in reset, "@FIFO" a FIFO, "@LONG" a 400-digit number; fw: the
 * row boots firmware (skipped when the reference firmware is not built). */
struct cli_case {
	const char *args[14];
	int status;
	const char *err;           /* must appear on stderr (NULL: nothing to check) */
	bool fw;
};

#define GOOD(...) { { __VA_ARGS__ }, 0, NULL, false }
#define GOOD_FW(...) { { __VA_ARGS__ }, 0, NULL, true }
#define BAD(msg, ...) { { __VA_ARGS__ }, 2, msg, false }
#define MAXU64 "18446744073709551615"
#define GRID_RANGE "--board grid:CxR needs 1 <= C <= 14 and 1 <= R <= 10, not '"
#define MAX_INSNS "bhemu run: --max-instructions needs a whole number from 1 to " MAXU64 ", not '"
#define POSITIVE_SECONDS "needs a positive number of seconds up to 10000000, not '"

static const struct cli_case cli_cases[] = {
	/* run */
	GOOD("run", "--board", "grid:1x1", "@ELF"),
	GOOD("run", "--core", "ncrisc", "--board", "grid:1x1", "@ELF"),
	BAD("bhemu run: --core is brisc, ncrisc, trisc0, trisc1 or trisc2, not 'foo'", "run", "--core", "foo", "@ELF"),
	BAD("bhemu run: option '--core' requires an argument", "run", "--core"),
	GOOD("run", "--cores", "brisc,ncrisc", "--board", "grid:1x1", "@ELF"),
	BAD("bhemu run: --cores needs a comma-separated list of cores, not 'brisc,,ncrisc'", "run", "--cores", "brisc,,ncrisc", "@ELF"),
	BAD("bhemu run: --cores lists brisc twice", "run", "--cores", "brisc,brisc", "@ELF"),
	BAD("bhemu run: --cores is brisc, ncrisc, trisc0, trisc1 or trisc2, not 'x'", "run", "--cores", "brisc,x", "@ELF"),
	BAD("bhemu run: --cores list too long", "run", "--cores", "@LONG", "@ELF"),
	BAD("bhemu run: option '--cores' requires an argument", "run", "--cores"),
	BAD("bhemu run: --core and --cores are mutually exclusive", "run", "--core", "brisc", "--cores", "brisc", "@ELF"),
	/* Good boards, without opening a big chip (seconds under the sanitizers): the largest grids
	 * run, p100 is accepted and the command goes on to the firmware, which is missing. */
	GOOD("run", "--board", "grid:14x1", "@ELF"),
	GOOD("run", "--board", "grid:1x10", "@ELF"),
	BAD("bhemu boot: /nonexistent/brisc.elf: cannot open", "boot", "--board", "p100", "--firmware", "/nonexistent"),
	BAD("bhemu run: --board is p150, p100 or grid:CxR, not 'p200'", "run", "--board", "p200", "@ELF"),
	BAD("bhemu run: " GRID_RANGE "grid:0x0'", "run", "--board", "grid:0x0", "@ELF"),
	BAD("bhemu run: " GRID_RANGE "grid:15x1'", "run", "--board", "grid:15x1", "@ELF"),
	BAD("bhemu run: " GRID_RANGE "grid: 1x1'", "run", "--board", "grid: 1x1", "@ELF"),
	BAD("bhemu run: " GRID_RANGE "grid:4294967297x1'", "run", "--board", "grid:4294967297x1", "@ELF"),
	BAD("bhemu run: " GRID_RANGE "grid:1x18446744073709551617'", "run", "--board", "grid:1x18446744073709551617", "@ELF"),
	BAD("bhemu run: option '--board' requires an argument", "run", "--board"),
	GOOD("run", "--profile", "p100a", "--board", "grid:1x1", "@ELF"),
	BAD("bhemu run: unknown profile 'p999'", "run", "--profile", "p999", "@ELF"),
	BAD("bhemu run: option '--profile' requires an argument", "run", "--profile"),
	GOOD("run", "--grid", "--board", "grid:2x1", "@ELF"),
	GOOD("run", "--max-instructions", "1000", "--board", "grid:1x1", "@ELF"),
	GOOD("run", "--max-instructions", MAXU64, "--board", "grid:1x1", "@ELF"),
	GOOD("run", "--max-instructions", "0x100", "--board", "grid:1x1", "@ELF"),
	BAD(MAX_INSNS " -5'", "run", "--max-instructions", " -5", "@ELF"),
	BAD(MAX_INSNS "0'", "run", "--max-instructions", "0", "@ELF"),
	BAD(MAX_INSNS "+5'", "run", "--max-instructions", "+5", "@ELF"),
	BAD(MAX_INSNS "5k'", "run", "--max-instructions", "5k", "@ELF"),
	BAD(MAX_INSNS "18446744073709551616'", "run", "--max-instructions", "18446744073709551616", "@ELF"),
	BAD(MAX_INSNS "99999999999999999999999'", "run", "--max-instructions", "99999999999999999999999", "@ELF"),
	BAD("bhemu run: option '--max-instructions' requires an argument", "run", "--max-instructions"),
	GOOD("run", "--timeout", "30", "--board", "grid:1x1", "@ELF"),
	GOOD("run", "--timeout", "10000000", "--board", "grid:1x1", "@ELF"),
	BAD("bhemu run: --timeout " POSITIVE_SECONDS "-1'", "run", "--timeout", "-1", "@ELF"),
	BAD("bhemu run: --timeout " POSITIVE_SECONDS "0'", "run", "--timeout", "0", "@ELF"),
	BAD("bhemu run: --timeout " POSITIVE_SECONDS "nan'", "run", "--timeout", "nan", "@ELF"),
	BAD("bhemu run: --timeout " POSITIVE_SECONDS "inf'", "run", "--timeout", "inf", "@ELF"),
	BAD("bhemu run: --timeout " POSITIVE_SECONDS "1e3'", "run", "--timeout", "1e3", "@ELF"),
	BAD("bhemu run: --timeout " POSITIVE_SECONDS "10000001'", "run", "--timeout", "10000001", "@ELF"),
	BAD("bhemu run: --timeout " POSITIVE_SECONDS "1000", "run", "--timeout", "@LONG", "@ELF"),
	BAD("bhemu run: option '--timeout' requires an argument", "run", "--timeout"),
	GOOD("run", "--jit", "off", "--board", "grid:1x1", "@ELF"),
	GOOD("run", "--jit", "eager", "--board", "grid:1x1", "@ELF"),
	BAD("bhemu run: --jit is on, off or eager, not 'fast'", "run", "--jit", "fast", "@ELF"),
	BAD("bhemu run: option '--jit' requires an argument", "run", "--jit"),
	GOOD("run", "--stats", "--board", "grid:1x1", "@ELF"),
	BAD("bhemu run: unrecognized option '--dispatch'", "run", "--dispatch", "fast", "@ELF"),
	BAD("bhemu run: unrecognized option '--json'", "run", "--json", "@ELF"),
	BAD("bhemu run: expected exactly one PROGRAM.elf, got 0 arguments", "run", "--board", "grid:1x1"),
	BAD("not a regular file (FIFO)", "run", "--timeout", "2", "--board", "grid:1x1", "@FIFO"),
	/* The watchdog: a timeout shorter than opening and loading ends the command with status 6. */
	{ { "run", "--timeout", "0.000001", "--board", "grid:1x1", "@ELF" }, 6, "bhemu run: timeout: --timeout 1e-06 reached while loading", false },
	/* A core's SOFT_RESET_0 store ends the run, naming who reset whom and where. */
	{ { "run", "--board", "grid:1x1", "@RESET" }, 7,
	  "bhemu: brisc put in reset by brisc: SOFT_RESET_0 = 0x00047800 (holds brisc, ncrisc, trisc0, trisc1, trisc2) "
	  "stored at pc 0x00001010 <reset_store> after 4 instructions", false },

	/* Checks: lists, modes, and a run a check stops (status 8) or logs (the program's status). */
	GOOD("run", "--check", "all", "--board", "grid:1x1", "@ELF"),
	GOOD("run", "--check", "none", "--board", "grid:1x1", "@ELF"),
	GOOD("run", "--check", "-lost-target,sem-reinit", "--board", "grid:1x1", "@ELF"),
	GOOD("run", "--check", "default,-all,sem-overflow", "--board", "grid:1x1", "@ELF"),
	BAD("bhemu run: --check has no check 'foo' in 'sem-reinit,foo' (--list-checks lists them)", "run", "--check",
	    "sem-reinit,foo", "@ELF"),
	BAD("bhemu run: --check has no check '-none' in '-none'", "run", "--check", "-none", "@ELF"),
	BAD("bhemu run: --check needs a comma-separated list of checks, not 'all,'", "run", "--check", "all,", "@ELF"),
	BAD("bhemu run: --check needs a comma-separated list of checks, not ''", "run", "--check", "", "@ELF"),
	BAD("bhemu run: option '--check' requires an argument", "run", "--check"),
	GOOD("run", "--check-mode", "log", "--board", "grid:1x1", "@ELF"),
	BAD("bhemu run: --check-mode is stop or log, not 'halt'", "run", "--check-mode", "halt", "@ELF"),
	BAD("bhemu run: option '--check-mode' requires an argument", "run", "--check-mode"),
	{ { "run", "--core", "trisc0", "--board", "grid:1x1", "@SEMGET" }, 8,
	  "bhemu: check sem-underflow: on tile 0 (1,2) core trisc0\n"
	  "  pc 0x0000100c <sem_take+0xc>: 0062a023  sw t1,0(t0)\n"
	  "  access: 4-byte store to 0xffe80034 in PCBuf 0 / TTSync / Tensix semaphores\n"
	  "  why: semaphore get (store of 1) of Tensix semaphore 5 at 0 (max 0): nothing was posted to take\n", false },
	{ { "run", "--core", "trisc0", "--check-mode", "log", "--board", "grid:1x1", "@SEMGET" }, 0,
	  "bhemu: 1 finding (--check-mode log):\nbhemu: check sem-underflow: on tile 0 (1,2) core trisc0\n"
	  "  pc 0x0000100c <sem_take+0xc>", false },
	{ { "run", "--core", "trisc0", "--check", "-sem-underflow", "--board", "grid:1x1", "@SEMGET" }, 0, NULL, false },
	GOOD_FW("boot", "--check", "all", "--check-mode", "log", "--board", "grid:2x2"),
	BAD("bhemu boot: --check has no check 'x' in 'x' (--list-checks lists them)", "boot", "--check", "x"),
	BAD("bhemu smoke: --check-mode is stop or log, not ''", "smoke", "--check-mode", ""),

	/* boot */
	GOOD_FW("boot", "--board", "grid:2x2"),
	GOOD_FW("boot", "--firmware", "builtin", "--board", "grid:2x2"),
	BAD("/nonexistent/brisc.elf: cannot open", "boot", "--firmware", "/nonexistent"),
	BAD("bhemu boot: option '--firmware' requires an argument", "boot", "--firmware"),
	BAD("bhemu boot: " GRID_RANGE "grid:0x0'", "boot", "--board", "grid:0x0"),
	BAD("bhemu boot: " GRID_RANGE "grid:4294967297x1'", "boot", "--board", "grid:4294967297x1"),
	BAD("bhemu boot: --board is p150, p100 or grid:CxR, not 'x'", "boot", "--board", "x"),
	BAD("bhemu boot: option '--board' requires an argument", "boot", "--board"),
	GOOD_FW("boot", "--profile", "p100a", "--board", "grid:2x2"),
	BAD("bhemu boot: unknown profile 'p999'", "boot", "--profile", "p999"),
	BAD("bhemu boot: option '--profile' requires an argument", "boot", "--profile"),
	GOOD_FW("boot", "--show-profile", "--board", "grid:2x2"),
	GOOD_FW("boot", "--idle", "0", "--board", "grid:2x2"),
	GOOD_FW("boot", "--idle", "0.05", "--board", "grid:2x2"),
	BAD("bhemu boot: --idle needs a number of seconds up to 10000000, not '-1'", "boot", "--idle", "-1"),
	BAD("bhemu boot: --idle needs a number of seconds up to 10000000, not '99999999'", "boot", "--idle", "99999999"),
	BAD("bhemu boot: --idle needs a number of seconds up to 10000000, not 'soon'", "boot", "--idle", "soon"),
	BAD("bhemu boot: option '--idle' requires an argument", "boot", "--idle"),
	GOOD_FW("boot", "--timeout", "30", "--board", "grid:2x2"),
	BAD("bhemu boot: --timeout " POSITIVE_SECONDS "0'", "boot", "--timeout", "0"),
	BAD("bhemu boot: --timeout " POSITIVE_SECONDS "1000", "boot", "--timeout", "@LONG"),
	BAD("bhemu boot: option '--timeout' requires an argument", "boot", "--timeout"),
	GOOD_FW("boot", "--jit", "off", "--board", "grid:2x2"),
	BAD("bhemu boot: --jit is on, off or eager, not 'x'", "boot", "--jit", "x"),
	BAD("bhemu boot: option '--jit' requires an argument", "boot", "--jit"),
	BAD("bhemu boot: unrecognized option '--json'", "boot", "--json"),
	BAD("bhemu boot: unrecognized option '--launches'", "boot", "--launches", "5"),
	BAD("bhemu boot: unrecognized option '--dispatch'", "boot", "--dispatch", "fast"),
	BAD("bhemu boot: unexpected argument 'extra'", "boot", "extra"),

	/* smoke */
	GOOD_FW("smoke", "--board", "grid:2x3", "--launches", "2"),
	GOOD_FW("smoke", "--board", "grid:2x3", "--launches", "2", "--dispatch", "slow"),
	GOOD_FW("smoke", "--board", "grid:2x3", "--launches", "2", "--dispatch", "both", "--json"),
	GOOD_FW("smoke", "--board", "grid:1x2", "--launches", "2", "--dispatch", "slow"),
	{ { "smoke", "--board", "grid:1x2", "--launches", "2" }, 2, "bhemu smoke: board grid:1x2 has no worker tiles", true },
	BAD("bhemu smoke: --launches needs a whole number from 1 to 4294967295, not '0'", "smoke", "--launches", "0"),
	BAD("bhemu smoke: --launches needs a whole number from 1 to 4294967295, not '-1'", "smoke", "--launches", "-1"),
	BAD("bhemu smoke: --launches needs a whole number from 1 to 4294967295, not '4294967296'", "smoke", "--launches", "4294967296"),
	BAD("bhemu smoke: --launches needs a whole number from 1 to 4294967295, not '99999999999999999999999'", "smoke", "--launches", "99999999999999999999999"),
	BAD("bhemu smoke: option '--launches' requires an argument", "smoke", "--launches"),
	BAD("bhemu smoke: --dispatch is fast, slow or both, not 'fast2'", "smoke", "--dispatch", "fast2"),
	BAD("bhemu smoke: option '--dispatch' requires an argument", "smoke", "--dispatch"),
	BAD("bhemu smoke: --timeout " POSITIVE_SECONDS "-1'", "smoke", "--timeout", "-1"),
	BAD("bhemu smoke: option '--timeout' requires an argument", "smoke", "--timeout"),
	BAD("bhemu smoke: " GRID_RANGE "grid:1x11'", "smoke", "--board", "grid:1x11"),
	BAD("bhemu smoke: --jit is on, off or eager, not ''", "smoke", "--jit", ""),
	BAD("bhemu smoke: unknown profile 'p999'", "smoke", "--profile", "p999"),
	BAD("bhemu smoke: unrecognized option '--idle'", "smoke", "--idle", "3"),
	BAD("bhemu smoke: option '--firmware' requires an argument", "smoke", "--firmware"),
};

Test(cli, every_option_with_good_bad_overflowing_and_missing_values, .init = scratch_init, .fini = scratch_fini,
     .timeout = 600)
{
	const char *elf = scratch_path("hello.elf"), *reset = scratch_path("reset.elf"), *fifo = scratch_path("fifo.elf");
	const char *semget = scratch_path("semget.elf");
	char long_number[401];
	memset(long_number, '1', 400);
	memset(long_number + 1, '0', 399);
	long_number[400] = 0;
	write_hello_elf(elf, 0);
	write_self_reset_elf(reset);
	write_semget_elf(semget);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	bool have_fw = access(BHEMU_BINARY_DIR "/firmware/ref/brisc.elf", R_OK) == 0;
	for (size_t k = 0; k < sizeof cli_cases / sizeof cli_cases[0]; k++) {
		const struct cli_case *c = &cli_cases[k];
		if (c->fw && !have_fw)
			continue;
		const char *args[15] = { NULL };
		char line[512];
		size_t used = 0;
		for (unsigned i = 0; c->args[i]; i++) {
			const char *a = c->args[i];
			args[i] = !strcmp(a, "@ELF") ? elf : !strcmp(a, "@RESET") ? reset : !strcmp(a, "@FIFO") ? fifo
				  : !strcmp(a, "@SEMGET") ? semget : !strcmp(a, "@LONG") ? long_number : a;
			used += (size_t)snprintf(line + used, sizeof line - used, " %s", a);
		}
		struct cli_out *o = test_cli(args);
		cr_expect_eq(o->status, c->status, "bhemu%s: exit status %d, expected %d\nstderr:\n%s", line, o->status,
			     c->status, o->err);
		if (c->err)
			cr_expect(strstr(o->err, c->err) != NULL, "bhemu%s: expected on stderr \"%s\", got:\n%s", line, c->err,
				  o->err);
		if (c->status == 2)
			cr_expect(o->err[0] != 0, "bhemu%s: usage error without a message", line);
		free(o);
	}
}
