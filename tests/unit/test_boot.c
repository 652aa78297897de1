/* Firmware profiles and the host boot sequence (reference/launch.md section 1). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/device.h"
#include "host/profile.h"
#include "sync/streams.h"
#include "testlib.h"

#define REF_FW BHEMU_BINARY_DIR "/firmware/ref"

static bool ref_firmware_present(void)
{
	return access(REF_FW "/brisc.elf", R_OK) == 0;
}

/* ---------------------------------------------------------------------------------------------
 * A minimal RV32 executable: one L1 text segment, optionally a 4-byte local-RAM .data segment,
 * and a symbol table of absolute symbols.
 */

struct sym { const char *name; uint32_t value; };

static void put16(uint8_t *b, uint16_t v) { memcpy(b, &v, 2); }
static void put32(uint8_t *b, uint32_t v) { memcpy(b, &v, 4); }

static void write_elf(const char *path, uint32_t entry, const uint32_t *code, unsigned ncode, bool ldm,
		      const struct sym *syms, unsigned nsyms)
{
	static uint8_t f[16384];
	memset(f, 0, sizeof f);
	unsigned nph = ldm ? 2 : 1, off = 52 + 32 * nph;
	unsigned text_off = off, text_len = ncode * 4;
	memcpy(f + off, code, text_len);
	off += text_len;
	unsigned ldm_off = off;
	if (ldm) {
		put32(f + off, 0x68);
		off += 4;
	}
	/* .strtab */
	unsigned str_off = off, str_len = 1;
	f[off] = 0;
	uint32_t name_at[64];
	for (unsigned i = 0; i < nsyms; i++) {
		name_at[i] = str_len;
		strcpy((char *)f + str_off + str_len, syms[i].name);
		str_len += (unsigned)strlen(syms[i].name) + 1;
	}
	off = (str_off + str_len + 3) & ~3u;
	/* .symtab: null symbol, then absolute global symbols */
	unsigned sym_off = off, sym_len = 16 * (nsyms + 1);
	for (unsigned i = 0; i < nsyms; i++) {
		uint8_t *s = f + sym_off + 16 * (i + 1);
		put32(s, name_at[i]);
		put32(s + 4, syms[i].value);
		s[12] = 0x10;            /* STB_GLOBAL, STT_NOTYPE */
		put16(s + 14, 0xFFF1);   /* SHN_ABS */
	}
	off += sym_len;
	static const char shstr[] = "\0.symtab\0.strtab\0.shstrtab";
	unsigned shstr_off = off;
	memcpy(f + off, shstr, sizeof shstr);
	off = (off + sizeof shstr + 3) & ~3u;
	unsigned sh_off = off;
	uint8_t *sh = f + sh_off + 40;   /* [1] .symtab */
	put32(sh, 1); put32(sh + 4, 2); put32(sh + 16, sym_off); put32(sh + 20, sym_len);
	put32(sh + 24, 2); put32(sh + 28, 1); put32(sh + 32, 4); put32(sh + 36, 16);
	sh += 40;                        /* [2] .strtab */
	put32(sh, 9); put32(sh + 4, 3); put32(sh + 16, str_off); put32(sh + 20, str_len); put32(sh + 32, 1);
	sh += 40;                        /* [3] .shstrtab */
	put32(sh, 17); put32(sh + 4, 3); put32(sh + 16, shstr_off); put32(sh + 20, sizeof shstr); put32(sh + 32, 1);
	off = sh_off + 4 * 40;
	/* ELF header */
	memcpy(f, "\x7f" "ELF\x01\x01\x01", 7);
	put16(f + 16, 2); put16(f + 18, 243); put32(f + 20, 1); put32(f + 24, entry); put32(f + 28, 52);
	put32(f + 32, sh_off); put16(f + 40, 52); put16(f + 42, 32); put16(f + 44, (uint16_t)nph);
	put16(f + 46, 40); put16(f + 48, 4); put16(f + 50, 3);
	uint8_t *ph = f + 52;
	put32(ph, 1); put32(ph + 4, text_off); put32(ph + 8, entry); put32(ph + 12, entry);
	put32(ph + 16, text_len); put32(ph + 20, text_len); put32(ph + 24, 5); put32(ph + 28, 4);
	if (ldm) {
		ph += 32;
		put32(ph, 1); put32(ph + 4, ldm_off); put32(ph + 8, LDM); put32(ph + 12, LDM);
		put32(ph + 16, 4); put32(ph + 20, 0x828); put32(ph + 24, 6); put32(ph + 28, 4);
	}
	FILE *out = fopen(path, "wb");
	cr_assert(out, "cannot create %s", path);
	fwrite(f, 1, off, out);
	fclose(out);
}

/* The symbols a firmware build exports so that the whole p100a profile can be derived. */
static unsigned p100a_exports(const struct bh_profile *p, unsigned core, struct sym *s)
{
	unsigned n = 0;
	s[n++] = (struct sym){ "_start", p->fw_base[core] };
	s[n++] = (struct sym){ "__fw_export_ldm_scratch", p->ldm_scratch[core] };
	if (core != BH_CORE_BRISC)
		return n;
	s[n++] = (struct sym){ "mailboxes", p->mailbox_base };
	s[n++] = (struct sym){ "go_messages", p->mailbox_base + p->go_messages_base };
#define EXPORT(m, kind, alias) \
	if (strcmp(#m, "mailbox_base")) \
		s[n++] = (struct sym){ "__fw_export_" #m, (kind) == BH_PF_MBOX ? p->mailbox_base + p->m : p->m };
	BH_PROFILE_FIELDS(EXPORT)
#undef EXPORT
	return n;
}

enum fw_kind { FW_GOOD, FW_STUCK, FW_FAULT };

/* Five ELFs in a fresh directory. FW_GOOD: BRISC signals DONE and then waits for GO;
 * FW_STUCK: BRISC spins forever on a flag that nobody sets; FW_FAULT: BRISC spins likewise and
 * releases no one, BRISC's load from an unmapped address faults. exports: the p100a symbols. */
static void make_firmware(char *dir, enum fw_kind kind, bool exports)
{
	strcpy(dir, "/tmp/bhemu-boot-XXXXXX");
	cr_assert(mkdtemp(dir));
	const struct bh_profile *p = bh_profile_default();
	uint32_t go = p->mailbox_base + p->go_messages_base;
	for (unsigned k = 0; k < 5; k++) {
		uint32_t code[8];
		unsigned n = 0;
		code[n++] = INSN_L0_CACHE_OFF;   /* as firmware does at entry: its polls have no fence */
		if (k == BH_CORE_BRISC && kind == FW_GOOD) {
			code[n++] = store(W_B, X0, (int32_t)go + 3, X0);   /* go_messages[0].signal = DONE */
			code[n++] = lw(T0, (int32_t)go, X0);               /* wait for GO */
			code[n++] = enc_b(-4, X0, T0, BEQ);
		} else if (k == BH_CORE_BRISC && kind == FW_FAULT) {
			code[n++] = lui(T0, 0x80000);                      /* lw t0, 0(0x80000000): unmapped */
			code[n++] = lw(T0, 0, T0);
		} else if (k == BH_CORE_BRISC) {
			code[n++] = lw(T0, 0x100, X0);                     /* spin on a flag */
			code[n++] = enc_b(-4, X0, T0, BEQ);
		} else {
			code[n++] = INSN_SELF_LOOP;
		}
		struct sym s[64];
		unsigned ns = exports ? p100a_exports(p, k, s) : 0;
		char path[256];
		snprintf(path, sizeof path, "%s/%s", dir, bh_profile_fw_file[k]);
		write_elf(path, p->fw_base[k], code, n, k <= BH_CORE_NCRISC, s, ns);
	}
}

static void remove_firmware(const char *dir)
{
	char path[256];
	for (unsigned k = 0; k < 5; k++) {
		snprintf(path, sizeof path, "%s/%s", dir, bh_profile_fw_file[k]);
		unlink(path);
	}
	rmdir(dir);
}

/* ---------------------------------------------------------------------------------------------
 * Profiles.
 */

Test(profile, p100a_table_holds_the_reference_values)
{
	const struct bh_profile *p = bh_profile_find("p100a");
	cr_assert(p && p == bh_profile_default());
	static const uint32_t fw[5] = { 0x3840, 0x5440, 0x5A40, 0x6040, 0x6640 };
	static const uint32_t scratch[5] = { 0x82B0, 0xA2B0, 0xC2B0, 0xD2B0, 0xE2B0 };
	for (unsigned k = 0; k < 5; k++) {
		cr_expect_eq(p->fw_base[k], fw[k]);
		cr_expect_eq(p->ldm_scratch[k], scratch[k]);
	}
	cr_expect_eq(bh_profile_mbox(p, p->subordinate_sync), 0x68);
	cr_expect_eq(bh_profile_mbox(p, p->launch_msg_rd_ptr), 0x6C);
	cr_expect_eq(bh_profile_mbox(p, p->launch_base), 0x70);
	cr_expect_eq(p->launch_entry_size, 96);
	cr_expect_eq(p->launch_count, 8);
	cr_expect_eq(bh_profile_mbox(p, p->go_messages_base), 0x370);
	cr_expect_eq(p->go_messages_count, 9);
	cr_expect_eq(bh_profile_mbox(p, p->go_message_index), 0x3A0);
	cr_expect_eq(bh_profile_mbox(p, p->core_info_logical_x), 0x9A0);
	cr_expect_eq(bh_profile_mbox(p, p->core_info_logical_y), 0x9A1);
	cr_expect_eq(p->kernel_config_base, 0x82B0);
	cr_expect_eq(p->bank_scratch, 0x112B0);
	cr_expect_eq(p->num_dram_banks, 7);
	cr_expect_eq(p->num_l1_banks, 110);
	cr_expect_eq(p->logical_col_map, 0x11AB0);
	cr_expect_eq(p->logical_row_map, 0x11AC4);
	cr_expect_eq(p->num_cbs, 32);
	cr_expect_eq(p->first_cb_stream, 8);
	cr_expect_eq(p->dispatch_xy[BH_BOARD_P150][0], 16);
	cr_expect_eq(p->dispatch_xy[BH_BOARD_P100][1], 3);
	cr_expect_null(bh_profile_find("no-such-build"));
}

Test(profile, derived_from_exporting_elfs_without_base_equals_p100a)
{
	char dir[64], err[512];
	make_firmware(dir, FW_GOOD, true);
	struct bh_profile d;
	int rc = bh_profile_derive(dir, NULL, &d, err, sizeof err);
	cr_assert_eq(rc, BH_OK, "%s", err);
	struct bh_profile want = *bh_profile_default();
	memset(want.prefetch_xy, 0, sizeof want.prefetch_xy);   /* board data is not in ELFs */
	memset(want.dispatch_xy, 0, sizeof want.dispatch_xy);
	strcpy(want.name, "derived");
	cr_expect_eq(memcmp(&d, &want, sizeof d), 0);
	remove_firmware(dir);
}

Test(profile, derived_over_p100a_base_from_plain_elfs_equals_p100a)
{
	char dir[64], err[512];
	make_firmware(dir, FW_GOOD, false);
	struct bh_profile d;
	cr_assert_eq(bh_profile_derive(dir, bh_profile_default(), &d, err, sizeof err), BH_OK, "%s", err);
	cr_expect_eq(memcmp(&d, bh_profile_default(), sizeof d), 0);
	remove_firmware(dir);
}

Test(profile, field_neither_derived_nor_given_is_named)
{
	char dir[64], err[512];
	make_firmware(dir, FW_GOOD, false);
	struct bh_profile d;
	cr_expect_eq(bh_profile_derive(dir, NULL, &d, err, sizeof err), BH_ERR_ARG);
	assert_has(err, "ldm_scratch[brisc]");
	remove_firmware(dir);
}

Test(profile, missing_firmware_file_is_named)
{
	char dir[64], err[512], path[256];
	make_firmware(dir, FW_GOOD, false);
	snprintf(path, sizeof path, "%s/trisc1.elf", dir);
	unlink(path);
	struct bh_profile d;
	cr_expect_eq(bh_profile_derive(dir, bh_profile_default(), &d, err, sizeof err), BH_ERR_ELF);
	assert_has(err, "trisc1.elf");
	remove_firmware(dir);
}

static void swap_files(const char *dir, const char *a, const char *b)
{
	char pa[256], pb[256], tmp[256];
	snprintf(pa, sizeof pa, "%s/%s", dir, a);
	snprintf(pb, sizeof pb, "%s/%s", dir, b);
	snprintf(tmp, sizeof tmp, "%s/swap", dir);
	cr_assert_eq(rename(pa, tmp), 0);
	cr_assert_eq(rename(pb, pa), 0);
	cr_assert_eq(rename(tmp, pb), 0);
}

/* brisc.elf and ncrisc.elf exchanged: a load error naming both files and cores, not a boot that
 * deadlocks later. Over the p100a base the entry is recognised as the other core's base. */
Test(profile, firmware_swapped_between_cores_is_named)
{
	char dir[64], err[512];
	make_firmware(dir, FW_GOOD, false);
	swap_files(dir, "brisc.elf", "ncrisc.elf");
	struct bh_profile d;
	cr_expect_eq(bh_profile_derive(dir, bh_profile_default(), &d, err, sizeof err), BH_ERR_ELF);
	assert_has(err, "brisc.elf: entry 0x5440 is the firmware base of ncrisc");
	assert_has(err, "built for ncrisc, not brisc");
	remove_firmware(dir);
}

/* Without a base profile only the ELFs' own layout can tell: firmware regions go up L1 in the
 * order brisc, ncrisc, trisc0, trisc1, trisc2. */
Test(profile, firmware_out_of_core_order_is_named_without_base)
{
	char dir[64], err[512];
	make_firmware(dir, FW_GOOD, true);
	swap_files(dir, "trisc1.elf", "trisc2.elf");
	struct bh_profile d;
	cr_expect_eq(bh_profile_derive(dir, NULL, &d, err, sizeof err), BH_ERR_ELF);
	assert_has(err, "trisc1.elf");
	assert_has(err, "trisc2.elf");
	assert_has(err, "swapped");
	remove_firmware(dir);
}

/* A FIFO in place of a firmware ELF is refused at once (opening it would wait for a writer). */
Test(profile, fifo_in_place_of_a_firmware_elf_is_refused, .timeout = 20)
{
	char dir[64], err[512], path[256];
	make_firmware(dir, FW_GOOD, false);
	snprintf(path, sizeof path, "%s/trisc0.elf", dir);
	unlink(path);
	cr_assert_eq(mkfifo(path, 0600), 0);
	struct bh_profile d;
	cr_expect_eq(bh_profile_derive(dir, bh_profile_default(), &d, err, sizeof err), BH_ERR_ELF);
	assert_has(err, "trisc0.elf: not a regular file (FIFO)");
	remove_firmware(dir);
}

Test(profile, reference_firmware_derives_p100a)
{
	if (!ref_firmware_present())
		cr_skip_test("reference firmware not built (%s)", REF_FW);
	char err[512];
	struct bh_profile d;
	cr_assert_eq(bh_profile_derive(REF_FW, bh_profile_default(), &d, err, sizeof err), BH_OK, "%s", err);
	cr_expect_eq(memcmp(&d, bh_profile_default(), sizeof d), 0, "the reference firmware disagrees with p100a");
}

/* ---------------------------------------------------------------------------------------------
 * Boot.
 */

static struct bh_device *open_grid(unsigned cols, unsigned rows)
{
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .grid_cols = cols, .grid_rows = rows };
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	return dev;
}

Test(boot, small_grid_boots_and_host_writes_follow_the_profile)
{
	char dir[64];
	make_firmware(dir, FW_GOOD, false);
	struct bh_device *dev = open_grid(3, 2);
	struct bh_boot_result res;
	int rc = bh_boot(dev, bh_profile_default(), dir, &(struct bh_boot_options){ .timeout_s = 5 }, &res);
	cr_assert_eq(rc, BH_OK, "%s\n%s", res.message, res.report ? res.report : "");
	cr_expect_eq(res.tiles, 6);
	cr_expect_eq(res.done, 6);
	assert_has(res.message, "bank");   /* 110 L1 banks clamped to the 6 tiles */
	cr_expect_eq(res.num_l1_banks, 6);
	uint32_t w;
	bh_l1_read(dev, 4, 0, &w, 4);
	cr_expect_eq(w, 0x0410306Fu, "L1[0] = jal x0, 0x3840");
	uint8_t xy[2];
	bh_l1_read(dev, 4, 0x9A0, xy, 2);
	cr_expect(xy[0] == 1 && xy[1] == 1, "core_info logical x/y of tile 4 = (1,1), got (%u,%u)", xy[0], xy[1]);
	bh_l1_read(dev, 0, 0x82B0, &w, 4);
	cr_expect_eq(w, 0x68, "BRISC .data staged at the LDM scratch");
	/* The blob keeps the firmware's layout (7 DRAM, 110 L1 banks); the 6 L1 banks that exist fill
	 * the first entries of each L1 row, the rest are zero. */
	unsigned d = res.num_dram_banks, l = res.num_l1_banks, fd = 7, fl = 110;
	int n = bh_bank_tables(dev, NULL, 0, d, l);
	uint8_t *want = malloc((size_t)n), *got = calloc(1, 8 * (fd + fl)), zero[8 * (7 + 110)] = { 0 };
	bh_bank_tables(dev, want, (size_t)n, d, l);
	bh_l1_read(dev, 5, 0x112B0, got, 8 * (fd + fl));
	for (unsigned noc = 0; noc < 2; noc++) {
		cr_expect_eq(memcmp(got + 2 * noc * fd, want + 2 * noc * d, 2 * d), 0, "DRAM xy row of NoC %u", noc);
		cr_expect_eq(memcmp(got + 4 * fd + 2 * noc * fl, want + 4 * d + 2 * noc * l, 2 * l), 0, "L1 xy row %u", noc);
		cr_expect_eq(memcmp(got + 4 * fd + 2 * noc * fl + 2 * l, zero, 2 * (fl - l)), 0, "missing L1 banks zero");
	}
	cr_expect_eq(memcmp(got + 4 * fd + 4 * fl, zero, 4 * (fd + fl)), 0, "bank offsets all zero");
	free(want);
	free(got);
	free(res.report);
	bh_device_close(dev);
	remove_firmware(dir);
}

Test(boot, firmware_that_never_signals_done_reports_the_stuck_tiles)
{
	char dir[64];
	make_firmware(dir, FW_STUCK, false);
	struct bh_device *dev = open_grid(2, 1);
	struct bh_boot_result res;
	/* Every core ends up parked on a word nobody writes: the deadlock detector ends the boot
	 * once all of them park, however long a loaded host takes to get there; the timeout only
	 * catches a hang. */
	int rc = bh_boot(dev, bh_profile_default(), dir, &(struct bh_boot_options){ .timeout_s = 60 }, &res);
	cr_expect_eq(rc, BH_ERR_DEADLOCK, "rc %d", rc);
	cr_expect_eq(res.done, 0);
	cr_assert(res.report);
	assert_has(res.report, "stuck tile 0");
	assert_has(res.report, "stuck tile 1");
	assert_has(res.report, "signal = 0x40");
	assert_has(res.report, "tile 1 ");
	assert_has(res.report, "L1 0x00000100");   /* the word BRISC polls */
	free(res.report);
	bh_device_close(dev);
	remove_firmware(dir);
}

/* A faulting firmware core: the report gives its whole fault (pc, symbol, instruction, access,
 * why), not just "stopped by a fault". */
Test(boot, faulting_firmware_core_is_reported_with_its_fault)
{
	char dir[64];
	make_firmware(dir, FW_FAULT, false);
	struct bh_device *dev = open_grid(1, 1);
	struct bh_boot_result res;
	int rc = bh_boot(dev, bh_profile_default(), dir, &(struct bh_boot_options){ .timeout_s = 5 }, &res);
	cr_expect_neq(rc, BH_OK);
	cr_expect(res.faulted);
	cr_assert(res.report);
	assert_has(res.report, "tile 0 (1,2) brisc : stopped by a fault:\n");
	assert_has(res.report, "    fault: unmapped address on tile 0 (1,2) core brisc");
	assert_has(res.report, "lw t0,0(t0)");
	assert_has(res.report, "4-byte load from 0x80000000");
	assert_has(res.report, "      why: ");
	free(res.report);
	bh_device_close(dev);
	remove_firmware(dir);
}

Test(boot, missing_firmware_file_is_a_clear_error)
{
	char dir[64], path[256];
	make_firmware(dir, FW_GOOD, false);
	snprintf(path, sizeof path, "%s/ncrisc.elf", dir);
	unlink(path);
	struct bh_device *dev = open_grid(1, 1);
	struct bh_boot_result res;
	cr_expect_eq(bh_boot(dev, bh_profile_default(), dir, NULL, &res), BH_ERR_ELF);
	assert_has(res.message, "ncrisc.elf");
	free(res.report);
	bh_device_close(dev);
	remove_firmware(dir);
}

static void boot_reference(const struct bh_device_config *cfg, unsigned tiles)
{
	if (!ref_firmware_present())
		cr_skip_test("reference firmware not built (%s)", REF_FW);
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(cfg, &dev), BH_OK);
	struct bh_boot_result res;
	int rc = bh_boot(dev, bh_profile_default(), REF_FW, &(struct bh_boot_options){ .timeout_s = 60 }, &res);
	cr_expect_eq(rc, BH_OK, "%s\n%.4000s", res.message, res.report ? res.report : "");
	cr_expect_eq(res.done, tiles);
	free(res.report);
	bh_device_close(dev);
}

Test(boot, reference_firmware_boots_a_small_grid)
{
	boot_reference(&(struct bh_device_config){ .board = BH_BOARD_GRID, .grid_cols = 2, .grid_rows = 2 }, 4);
}

Test(boot, reference_firmware_boots_p150)
{
	boot_reference(&(struct bh_device_config){ .board = BH_BOARD_P150 }, 140);
}

Test(boot, reference_firmware_boots_p100)
{
	boot_reference(&(struct bh_device_config){ .board = BH_BOARD_P100 }, 120);
}

/* The profile's first_cb_stream places CB n's counters on stream first_cb_stream + n for the
 * CB checks and reports of every tile; a layout past the 64 streams is refused naming it. */
Test(boot, profile_places_the_cbs_on_its_first_stream)
{
	char dir[64], buf[160];
	make_firmware(dir, FW_GOOD, false);
	struct bh_device *dev = open_grid(2, 1);
	struct bh_profile prof = *bh_profile_default();
	prof.first_cb_stream = 16;
	struct bh_boot_result res;
	int rc = bh_boot(dev, &prof, dir, &(struct bh_boot_options){ .timeout_s = 5 }, &res);
	cr_assert_eq(rc, BH_OK, "%s\n%s", res.message, res.report ? res.report : "");
	free(res.report);
	for (unsigned t = 0; t < 2; t++) {
		cr_expect_str_eq(bh_stream_describe(dev->tiles[t], 0xFFB40000u + 16 * 0x1000u + 10 * 4, buf, sizeof buf),
				 "stream 16 reg 10 (CB0 tiles_received)");
		cr_expect_str_eq(bh_stream_describe(dev->tiles[t], 0xFFB40000u + 8 * 0x1000u + 8 * 4, buf, sizeof buf),
				 "stream 8 reg 8 (REMOTE_DEST_BUF_START)", "stream 8 is no CB under this profile: %s", buf);
	}
	prof.first_cb_stream = 40;   /* 40 + 32 CBs > 64 streams */
	cr_expect_eq(bh_boot(dev, &prof, dir, &(struct bh_boot_options){ .timeout_s = 5 }, &res), BH_ERR_ARG);
	assert_has(res.message, "places 32 CBs from stream 40");
	free(res.report);
	bh_device_close(dev);
	remove_firmware(dir);
}
