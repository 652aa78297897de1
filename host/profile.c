/* Firmware profiles: the shipped table and derivation from firmware ELFs. */
#include "host/profile.h"

#include <stdio.h>
#include <string.h>

#include "fabric/hw.h"
#include "host/elf.h"

const char *const bh_profile_fw_file[5] = { "brisc.elf", "ncrisc.elf", "trisc0.elf", "trisc1.elf", "trisc2.elf" };

/* p100a: the blackhole-py firmware ELFs (reference/README.md (b), launch.md 6-8, memory-map.md 10).
 * Fast-dispatch cores from fast-dispatch.md section 1 (P100 / P150). */
static const struct bh_profile profile_p100a = {
	.name = "p100a",
	.fw_base = { 0x3840, 0x5440, 0x5A40, 0x6040, 0x6640 },
	.ldm_scratch = { 0x82B0, 0xA2B0, 0xC2B0, 0xD2B0, 0xE2B0 },
	.mailbox_base = 0x60,
	.subordinate_sync = 0x08,        /* 0x068 */
	.launch_msg_rd_ptr = 0x0C,       /* 0x06C */
	.launch_base = 0x10,             /* 0x070 */
	.launch_entry_size = 96,
	.launch_count = 8,
	.go_messages_base = 0x310,       /* 0x370 */
	.go_messages_count = 9,
	.go_message_index = 0x340,       /* 0x3A0 */
	.core_info_logical_x = 0x940,    /* 0x9A0 */
	.core_info_logical_y = 0x941,    /* 0x9A1 */
	.kernel_config_base = 0x82B0,
	.bank_scratch = 0x112B0,
	.num_dram_banks = 7,
	.num_l1_banks = 110,
	.logical_col_map = 0x11AB0,
	.logical_row_map = 0x11AC4,
	.num_cbs = 32,
	.first_cb_stream = 8,
	.prefetch_xy = { [BH_BOARD_P100] = { 14, 2 }, [BH_BOARD_P150] = { 16, 2 } },
	.dispatch_xy = { [BH_BOARD_P100] = { 14, 3 }, [BH_BOARD_P150] = { 16, 3 } },
};

static const struct bh_profile *const profiles[] = { &profile_p100a };
static const char *const profile_names[] = { "p100a", NULL };

const struct bh_profile *bh_profile_find(const char *name)
{
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (name && !strcmp(profiles[i]->name, name))
			return profiles[i];
	return NULL;
}

const struct bh_profile *bh_profile_default(void)
{
	return &profile_p100a;
}

const char *const *bh_profile_names(void)
{
	return profile_names;
}

int bh_profile_format(const struct bh_profile *p, char *buf, size_t len)
{
	size_t used = 0;
#define PUT(...) do { \
		int n_ = snprintf(buf + used, used < len ? len - used : 0, __VA_ARGS__); \
		if (n_ > 0) used += (size_t)n_; \
	} while (0)
	if (!buf || !len)
		return BH_ERR_ARG;
	buf[0] = 0;
	PUT("profile %s\n", p->name);
	for (unsigned k = 0; k < 5; k++)
		PUT("fw_base[%s] = 0x%x\nldm_scratch[%s] = 0x%x\n", bh_core_name((enum bh_core_id)k), p->fw_base[k],
		    bh_core_name((enum bh_core_id)k), p->ldm_scratch[k]);
#define FMT(m, kind, alias) \
	if ((kind) == BH_PF_MBOX) \
		PUT(#m " = 0x%x (L1 0x%x)\n", p->m, p->mailbox_base + p->m); \
	else \
		PUT(#m " = 0x%x\n", p->m);
	BH_PROFILE_FIELDS(FMT)
#undef FMT
	for (unsigned b = 0; b < BH_PROFILE_BOARDS; b++)
		if (p->dispatch_xy[b][0])
			PUT("%s: prefetch (%u,%u) dispatch (%u,%u)\n", bh_board_name((enum bh_board)b), p->prefetch_xy[b][0],
			    p->prefetch_xy[b][1], p->dispatch_xy[b][0], p->dispatch_xy[b][1]);
#undef PUT
	return used < len ? BH_OK : BH_ERR_ARG;
}

/* ---------------------------------------------------------------------------------------------
 * Derivation.
 */

struct derive {
	struct bh_elf *elf[5];
	char *err;
	size_t errlen;
};

/* The value of sym in any of the ELFs. 1 found, 0 absent, -1 two ELFs disagree (message set). */
static int derive_symbol(struct derive *d, const char *sym, bool l1_only, uint32_t *out)
{
	int found = 0;
	unsigned first = 0;
	for (unsigned k = 0; k < 5; k++) {
		uint32_t v;
		if (bh_elf_symbol_lookup(d->elf[k], sym, &v) != 0)
			continue;
		if (l1_only && v >= BH_L1_SIZE)
			continue;   /* e.g. a local-RAM variable of the same name */
		if (found && v != *out) {
			snprintf(d->err, d->errlen, "firmware profile: symbol %s is 0x%x in %s but 0x%x in %s", sym, *out,
				 d->elf[first]->path, v, d->elf[k]->path);
			return -1;
		}
		if (!found)
			first = k;
		*out = v;
		found = 1;
	}
	return found;
}

/* A scalar field from __fw_export_<name>, else from its alias. Absent: *val is left alone. */
static int derive_field(struct derive *d, const char *name, enum bh_profile_kind kind, const char *alias,
			uint32_t mailbox_base, uint32_t *val)
{
	char sym[96];
	uint32_t v;
	snprintf(sym, sizeof sym, "__fw_export_%s", name);
	int rc = derive_symbol(d, sym, false, &v);
	if (rc == 0 && alias)
		rc = derive_symbol(d, alias, kind != BH_PF_COUNT, &v);
	if (rc <= 0)
		return rc;
	if (kind == BH_PF_MBOX) {
		if (mailbox_base == BH_PROFILE_UNSET || v < mailbox_base) {
			snprintf(d->err, d->errlen, "firmware profile: %s at L1 0x%x is not inside mailboxes (base %s0x%x)",
				 name, v, mailbox_base == BH_PROFILE_UNSET ? "unknown, " : "", mailbox_base);
			return -1;
		}
		v -= mailbox_base;
	}
	*val = v;
	return 1;
}

static void derive_unset(struct bh_profile *p)
{
	memset(p, 0, sizeof *p);
	for (unsigned k = 0; k < 5; k++)
		p->fw_base[k] = p->ldm_scratch[k] = BH_PROFILE_UNSET;
#define UNSET(m, kind, alias) p->m = BH_PROFILE_UNSET;
	BH_PROFILE_FIELDS(UNSET)
#undef UNSET
}

/* Every field known, or an error naming the first that is not. */
static int derive_check_complete(const struct bh_profile *p, const char *fw_dir, char *err, size_t errlen)
{
	for (unsigned k = 0; k < 5; k++) {
		const char *what = p->fw_base[k] == BH_PROFILE_UNSET ? "fw_base" :
				   p->ldm_scratch[k] == BH_PROFILE_UNSET ? "ldm_scratch" : NULL;
		if (what) {
			snprintf(err, errlen, "firmware profile: %s[%s] is neither in %s/%s (symbol __fw_export_%s) nor "
				 "given by a base profile", what, bh_core_name((enum bh_core_id)k), fw_dir,
				 bh_profile_fw_file[k], what);
			return BH_ERR_ARG;
		}
	}
#define CHECK(m, kind, alias) \
	if (p->m == BH_PROFILE_UNSET) { \
		snprintf(err, errlen, "firmware profile: " #m " is neither in the ELFs of %s (symbol __fw_export_" #m \
			 "%s%s) nor given by a base profile", fw_dir, (alias) ? " or " : "", (alias) ? (const char *)(alias) : ""); \
		return BH_ERR_ARG; \
	}
	BH_PROFILE_FIELDS(CHECK)
#undef CHECK
	return BH_OK;
}

/* Each firmware ELF is for the core whose file name it has. Over a base profile, an entry at another
 * core's firmware base says whose it is; in any case the firmware regions go up L1 in core order
 * (brisc, ncrisc, trisc0, trisc1, trisc2, as every profile lays them out), so entries out of that
 * order mean images swapped between cores. Loading them anyway ends in a deadlock at boot. */
static int derive_check_cores(struct derive *d, const uint32_t base_fw[5], const char *base_name)
{
	for (unsigned k = 0; k < 5; k++) {
		const struct bh_elf *e = d->elf[k];
		for (unsigned j = 0; j < 5; j++) {
			if (j == k || base_fw[j] == BH_PROFILE_UNSET || e->entry != base_fw[j])
				continue;
			snprintf(d->err, d->errlen, "%s: entry 0x%x is the firmware base of %s in profile %s (%s's is "
				 "0x%x): the ELF is built for %s, not %s", e->path, e->entry, bh_core_name((enum bh_core_id)j),
				 base_name, bh_core_name((enum bh_core_id)k), base_fw[k], bh_core_name((enum bh_core_id)j),
				 bh_core_name((enum bh_core_id)k));
			return BH_ERR_ELF;
		}
	}
	for (unsigned k = 1; k < 5; k++) {
		const struct bh_elf *lo = d->elf[k - 1], *hi = d->elf[k];
		if (lo->entry < hi->entry)
			continue;
		snprintf(d->err, d->errlen, "firmware ELFs swapped between cores? %s (entry 0x%x) is not below %s (entry "
			 "0x%x): firmware regions go up L1 in the order brisc, ncrisc, trisc0, trisc1, trisc2",
			 lo->path, lo->entry, hi->path, hi->entry);
		return BH_ERR_ELF;
	}
	return BH_OK;
}

static int derive_from_elfs(struct derive *d, const char *fw_dir, struct bh_profile *p)
{
	uint32_t base_fw[5];
	memcpy(base_fw, p->fw_base, sizeof base_fw);
	if (derive_check_cores(d, base_fw, p->name[0] ? p->name : "(none)") != BH_OK)
		return BH_ERR_ELF;
	for (unsigned k = 0; k < 5; k++) {
		const struct bh_elf *e = d->elf[k];
		uint32_t start;
		if (bh_elf_symbol_lookup(e, "_start", &start) == 0 && start != e->entry) {
			snprintf(d->err, d->errlen, "%s: entry 0x%x differs from _start 0x%x", e->path, e->entry, start);
			return BH_ERR_ELF;
		}
		if (e->entry >= BH_L1_SIZE) {
			snprintf(d->err, d->errlen, "%s: entry 0x%x is not in L1: not a firmware image", e->path, e->entry);
			return BH_ERR_ELF;
		}
		p->fw_base[k] = e->entry;
		/* Per-core: only this core's ELF says where its local-RAM image is staged. */
		uint32_t v;
		if (bh_elf_symbol_lookup(e, "__fw_export_ldm_scratch", &v) == 0)
			p->ldm_scratch[k] = v;
	}
	/* mailbox_base first: the mailbox fields are offsets from it. */
	if (derive_field(d, "mailbox_base", BH_PF_ADDR, "mailboxes", 0, &p->mailbox_base) < 0)
		return BH_ERR_ELF;
#define DERIVE(m, kind, alias) \
	if (strcmp(#m, "mailbox_base") && derive_field(d, #m, kind, alias, p->mailbox_base, &p->m) < 0) \
		return BH_ERR_ELF;
	BH_PROFILE_FIELDS(DERIVE)
#undef DERIVE
	(void)fw_dir;
	return BH_OK;
}

int bh_profile_derive(const char *fw_dir, const struct bh_profile *base, struct bh_profile *out, char *err,
		      size_t errlen)
{
	char dummy[8];
	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof dummy;
	}
	err[0] = 0;
	if (!fw_dir || !out) {
		snprintf(err, errlen, "firmware profile: no firmware directory");
		return BH_ERR_ARG;
	}
	struct derive d = { .err = err, .errlen = errlen };
	int rc = BH_OK;
	for (unsigned k = 0; k < 5 && rc == BH_OK; k++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", fw_dir, bh_profile_fw_file[k]);
		d.elf[k] = bh_elf_open(path, err, errlen);
		if (!d.elf[k])
			rc = BH_ERR_ELF;
	}
	struct bh_profile p;
	if (base)
		p = *base;
	else
		derive_unset(&p);
	if (rc == BH_OK)
		rc = derive_from_elfs(&d, fw_dir, &p);
	if (rc == BH_OK)
		rc = derive_check_complete(&p, fw_dir, err, errlen);
	if (rc == BH_OK) {
		/* Named after what it came from; equal to base in every value when the ELFs agree. */
		snprintf(p.name, sizeof p.name, "%s", base ? base->name : "derived");
		*out = p;
	}
	for (unsigned k = 0; k < 5; k++)
		bh_elf_close(d.elf[k]);
	return rc;
}
