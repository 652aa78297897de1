/* Boot every Tensix tile with the firmware of a profile, as the host driver does (launch.md
 * section 1): the only place that writes a firmware's L1 layout into a tile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/hw.h"
#include "fabric/tile.h"
#include "host/device.h"
#include "host/profile.h"
#include "sync/streams.h"

#define BOOT_RESET_ALL 0x47800u      /* SOFT_RESET_0: all five cores held */
#define BOOT_RESET_BRISC 0x47000u    /* release BRISC only; its firmware releases the others */
#define BOOT_RUN_MSG_INIT 0x40u
#define BOOT_SYNC_INIT_REGISTERS 0x03u   /* TRISC0 byte while it zeroes the CB counters */
#define REG_TRISC0_RESET_PC 0xFFB12228u  /* TRISC1/2 follow at +4, +8 */
#define REG_NCRISC_RESET_PC 0xFFB12238u
#define BOOT_POLL_NS 200000L
#define BOOT_CHECK_EVERY 50              /* polls between looks for faults and deadlock */

static double boot_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* jal x0, target, from address 0 (launch.md 1.3). */
static uint32_t boot_jal(uint32_t b)
{
	return 0x6Fu | (b & 0x7FEu) << 20 | (b & 0x800u) << 9 | (b & 0xFF000u);
}

static int boot_note(struct bh_boot_result *res, int rc, const char *fmt, const char *a, unsigned u)
{
	size_t used = strlen(res->message);
	snprintf(res->message + used, sizeof res->message - used, fmt, a, u);
	return rc;
}

/* Bank tables, logical-to-virtual maps and core_info, identical for every tile but the position. */
struct boot_tables {
	uint8_t *banks;
	int banks_len;
	uint8_t col_map[20], row_map[12];
};

static int boot_tables_build(struct bh_device *dev, const struct bh_profile *p, struct boot_tables *bt,
			     struct bh_boot_result *res)
{
	unsigned d = p->num_dram_banks, l = p->num_l1_banks;
	unsigned have_d = bh_dram_num_banks(dev), have_l = bh_num_l1_banks(dev);
	char msg[256];
	if (d > have_d || l > have_l) {
		snprintf(msg, sizeof msg, "note: profile %s expects %u DRAM / %u L1 banks, the board has %u / %u: "
			 "bank tables hold the first %u / %u, the rest stay zero\n", p->name, d, l, have_d, have_l,
			 d < have_d ? d : have_d, l < have_l ? l : have_l);
		boot_note(res, 0, "%s", msg, 0);
		d = d < have_d ? d : have_d;
		l = l < have_l ? l : have_l;
	}
	res->num_dram_banks = d;
	res->num_l1_banks = l;
	/* The firmware reads the blob laid out for its compile-time counts (noc.md 9), so a board with
	 * fewer banks gets that layout with the missing entries zero, not a shorter blob. */
	int len = bh_bank_tables(dev, NULL, 0, d, l);
	uint8_t *small = len >= 0 ? malloc((size_t)len + 1) : NULL;
	unsigned fd = p->num_dram_banks, fl = p->num_l1_banks;
	bt->banks_len = (int)(8 * fd + 8 * fl);
	bt->banks = calloc(1, (size_t)bt->banks_len + 1);
	if (len < 0)
		return BH_ERR_ARG;
	if (!small || !bt->banks || bh_bank_tables(dev, small, (size_t)len, d, l) < 0) {
		free(small);
		return BH_ERR_SYS;
	}
	for (unsigned noc = 0; noc < 2; noc++) {
		memcpy(bt->banks + 2 * noc * fd, small + 2 * noc * d, 2 * d);
		memcpy(bt->banks + 4 * fd + 2 * noc * fl, small + 4 * d + 2 * noc * l, 2 * l);
	}
	memcpy(bt->banks + 4 * fd + 4 * fl, small + 4 * d + 4 * l, 4 * d);
	memcpy(bt->banks + 8 * fd + 4 * fl, small + 8 * d + 4 * l, 4 * l);
	free(small);
	const struct bh_topology *topo = &dev->chip.topo;
	memset(bt->col_map, 0, sizeof bt->col_map);
	memset(bt->row_map, 0, sizeof bt->row_map);
	for (unsigned c = 0; c < topo->cols && c < sizeof bt->col_map; c++)
		bt->col_map[c] = topo->col_x[c];
	for (unsigned r = 0; r < topo->rows && r < sizeof bt->row_map; r++)
		bt->row_map[r] = topo->row_y[r];
	return BH_OK;
}

/* Steps 1-6 of launch.md section 1 on one tile. */
static int boot_prepare_tile(struct bh_device *dev, unsigned t, const struct bh_profile *p, const char *fw_dir,
			     const struct boot_tables *bt, const struct bh_boot_options *opt, struct bh_boot_result *res)
{
	int rc = bh_reg_write(dev, t, BH_SOFT_RESET_0, BOOT_RESET_ALL);
	for (unsigned k = 0; k < 5 && rc == BH_OK; k++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", fw_dir, bh_profile_fw_file[k]);
		struct bh_load_options lo = { .ldm_redirect = p->ldm_scratch[k] };
		uint32_t entry;
		char err[512];
		rc = bh_load_elf(dev, t, (enum bh_core_id)k, path, &lo, &entry, err, sizeof err);
		if (rc != BH_OK)
			snprintf(res->message, sizeof res->message, "%s", err);
		if (rc == BH_OK && entry != p->fw_base[k]) {
			snprintf(res->message, sizeof res->message, "%.512s: entry 0x%x is not fw_base[%s] 0x%x of profile %s: "
				 "firmware and profile do not match", path, entry, bh_core_name((enum bh_core_id)k),
				 p->fw_base[k], p->name);
			rc = BH_ERR_ELF;
		}
	}
	if (rc != BH_OK)
		return rc;
	uint32_t jal = boot_jal(p->fw_base[BH_CORE_BRISC]);
	uint32_t go = BOOT_RUN_MSG_INIT << 24;
	rc = bh_l1_write(dev, t, 0, &jal, 4);
	if (rc == BH_OK)
		rc = bh_l1_write(dev, t, bh_profile_mbox(p, p->go_messages_base), &go, 4);
	if (rc == BH_OK && opt->set_reset_pcs) {
		rc = bh_reg_write(dev, t, REG_NCRISC_RESET_PC, p->fw_base[BH_CORE_NCRISC]);
		for (unsigned i = 0; i < 3 && rc == BH_OK; i++)
			rc = bh_reg_write(dev, t, REG_TRISC0_RESET_PC + 4 * i, p->fw_base[BH_CORE_TRISC0 + i]);
	}
	if (rc == BH_OK)
		rc = bh_l1_write(dev, t, p->bank_scratch, bt->banks, (size_t)bt->banks_len);
	if (rc == BH_OK)
		rc = bh_l1_write(dev, t, p->logical_col_map, bt->col_map, sizeof bt->col_map);
	if (rc == BH_OK)
		rc = bh_l1_write(dev, t, p->logical_row_map, bt->row_map, sizeof bt->row_map);
	const struct bh_topology *topo = &dev->chip.topo;
	uint8_t lx = (uint8_t)(t % topo->cols), ly = (uint8_t)(t / topo->cols);
	if (rc == BH_OK)
		rc = bh_l1_write(dev, t, bh_profile_mbox(p, p->core_info_logical_x), &lx, 1);
	if (rc == BH_OK)
		rc = bh_l1_write(dev, t, bh_profile_mbox(p, p->core_info_logical_y), &ly, 1);
	if (rc != BH_OK && !res->message[0])
		snprintf(res->message, sizeof res->message, "tile %u: host write failed (profile %s places something "
			 "outside L1?)", t, p->name);
	return rc;
}

/* Boot complete on a tile: go_messages[0].signal DONE and the subordinates idle (T0 may already
 * be zeroing the CB counters). */
static bool boot_tile_done(struct bh_device *dev, unsigned t, const struct bh_profile *p, uint32_t *go, uint32_t *sync)
{
	bh_l1_read(dev, t, bh_profile_mbox(p, p->go_messages_base), go, 4);
	bh_l1_read(dev, t, bh_profile_mbox(p, p->subordinate_sync), sync, 4);
	uint8_t t0 = (uint8_t)(*sync >> 8);
	return (*go >> 24) == 0 && (*sync & 0xFFFF00FFu) == 0 && (t0 == 0 || t0 == BOOT_SYNC_INIT_REGISTERS);
}

static bool boot_tile_faulted(struct bh_device *dev, unsigned t)
{
	struct bh_core_result r;
	for (unsigned k = 0; k < 5; k++) {
		bh_core_result(dev, t, (enum bh_core_id)k, &r);
		if (r.status == BH_RUN_FAULTED || r.status == BH_RUN_LIMIT)
			return true;
	}
	return false;
}

/* The stuck tiles' mailbox words, then the device report's lines about those tiles. */
static void boot_report_stuck(struct bh_device *dev, const struct bh_profile *p, const bool *done, unsigned n,
			      struct bh_boot_result *res)
{
	size_t cap = 1u << 16, used = 0;
	char *head = malloc(cap);
	bool *stuck = calloc(n, sizeof *stuck);
	for (unsigned t = 0; head && stuck && t < n && used < cap; t++) {
		if (done[t])
			continue;
		uint32_t go = 0, sync = 0;
		unsigned x = 0, y = 0;
		stuck[t] = true;
		boot_tile_done(dev, t, p, &go, &sync);
		bh_device_tile_xy(dev, t, &x, &y);
		used += (size_t)snprintf(head + used, cap - used, "stuck tile %u (%u,%u): go_messages[0].signal = 0x%02x, "
					 "subordinate_sync = 0x%08x\n", t, x, y, go >> 24, sync);
	}
	if (head && stuck)
		res->report = bh_device_report_tiles(dev, stuck, head);
	free(head);
	free(stuck);
}

static int boot_wait(struct bh_device *dev, const struct bh_profile *p, double timeout, bool *done,
		     struct bh_boot_result *res, double t0)
{
	unsigned n = res->tiles;
	for (unsigned poll = 0;; poll++) {
		for (unsigned t = 0; t < n; t++) {
			uint32_t go, sync;
			if (!done[t] && boot_tile_done(dev, t, p, &go, &sync)) {
				done[t] = true;
				res->done++;
			}
		}
		res->seconds = boot_now() - t0;
		if (res->done == n)
			return BH_OK;
		int rc = BH_OK;
		if (res->seconds > timeout)
			rc = BH_ERR_TIMEOUT;
		else if (poll % BOOT_CHECK_EVERY == 0) {
			if (bh_device_deadlocked(dev))
				rc = BH_ERR_DEADLOCK;
			for (unsigned t = 0; t < n && rc == BH_OK; t++)
				if (!done[t] && boot_tile_faulted(dev, t)) {
					res->faulted = true;
					rc = BH_ERR_ELF;
				}
		}
		if (rc != BH_OK) {
			snprintf(res->message + strlen(res->message), sizeof res->message - strlen(res->message),
				 "boot: %u of %u tiles reached DONE; %s after %.3f s\n", res->done, n,
				 rc == BH_ERR_TIMEOUT ? "timeout" : rc == BH_ERR_DEADLOCK ?
				 "deadlock (every running core waits)" : "a core faulted", res->seconds);
			boot_report_stuck(dev, p, done, n, res);
			return rc;
		}
		bh_device_pause(dev, BOOT_POLL_NS);
	}
}

int bh_device_use_profile(struct bh_device *dev, const struct bh_profile *prof)
{
	if (!dev || !prof || prof->first_cb_stream >= BH_STREAM_COUNT ||
	    prof->num_cbs > BH_STREAM_COUNT - prof->first_cb_stream)
		return BH_ERR_ARG;
	/* The launch slots BRISC owns until it is done with them (launch-slot-busy). */
	const struct bh_launch_guard guard = {
		.base = bh_profile_mbox(prof, prof->launch_base), .size = prof->launch_entry_size,
		.count = prof->launch_count, .enables = LM_ENABLES, .mode = LM_MODE,
		.go_base = bh_profile_mbox(prof, prof->go_messages_base), .go_index = bh_profile_mbox(prof, prof->go_message_index),
	};
	/* subordinate_sync.trisc0 (byte 1, launch.md 6): BRISC's request to TRISC0 to zero the CB
	 * counters, which only TRISC0 may touch until it answers DONE (cb-reset-window). */
	uint32_t cb_reset = bh_profile_mbox(prof, prof->subordinate_sync) + 1;
	for (unsigned t = 0; t < bh_device_num_tiles(dev); t++) {
		/* The profile places the CBs' counters (CB n on stream first_cb_stream + n): the CB
		 * protocol checks and reports follow it from the first instruction on. */
		bh_stream_set_cb_layout(dev->tiles[t], prof->first_cb_stream, prof->num_cbs);
		bh_tile_guard_launch_slots(dev->tiles[t], &guard);
		bh_stream_set_cb_reset_flag(dev->tiles[t], cb_reset);
	}
	return BH_OK;
}

int bh_boot(struct bh_device *dev, const struct bh_profile *prof, const char *fw_dir,
	    const struct bh_boot_options *opt, struct bh_boot_result *res)
{
	static const struct bh_boot_options defaults = { 0 };
	if (!res)
		return BH_ERR_ARG;
	memset(res, 0, sizeof *res);
	if (!dev || !prof || !fw_dir) {
		snprintf(res->message, sizeof res->message, "boot: no device, profile or firmware directory");
		return BH_ERR_ARG;
	}
	if (!opt)
		opt = &defaults;
	pthread_mutex_lock(&dev->ksym_lock);
	dev->booted = false;
	pthread_mutex_unlock(&dev->ksym_lock);
	double timeout = opt->timeout_s > 0 ? opt->timeout_s : 2.0;
	res->tiles = bh_device_num_tiles(dev);
	struct boot_tables bt = { 0 };
	bool *done = calloc(res->tiles, sizeof *done);
	int rc = done ? boot_tables_build(dev, prof, &bt, res) : BH_ERR_SYS;
	for (unsigned t = 0; t < res->tiles && rc == BH_OK; t++)
		rc = boot_prepare_tile(dev, t, prof, fw_dir, &bt, opt, res);
	if (rc == BH_OK && bh_device_use_profile(dev, prof) != BH_OK) {
		snprintf(res->message, sizeof res->message, "boot: profile %s places %u CBs from stream %u, "
			 "past the %u stream registers", prof->name, prof->num_cbs, prof->first_cb_stream, BH_STREAM_COUNT);
		rc = BH_ERR_ARG;
	}
	if (rc == BH_OK) {
		/* Read back (flushes posted writes on hardware), then release every BRISC. */
		uint32_t v;
		for (unsigned t = 0; t < res->tiles; t++)
			bh_l1_read(dev, t, 0, &v, 4);
		double t0 = boot_now();
		for (unsigned t = 0; t < res->tiles && rc == BH_OK; t++)
			rc = bh_reg_write(dev, t, BH_SOFT_RESET_0, BOOT_RESET_BRISC);
		if (rc == BH_OK)
			rc = boot_wait(dev, prof, timeout, done, res, t0);
	}
	if (rc == BH_OK) {
		/* Programs lay their launches out for this profile; nothing of an older program is resident. */
		pthread_mutex_lock(&dev->ksym_lock);
		dev->boot_profile = *prof;
		dev->boot_dram_banks = res->num_dram_banks;
		dev->boot_l1_banks = res->num_l1_banks;
		memset(dev->kcb_resident, 0, dev->ntiles * sizeof *dev->kcb_resident);
		dev->booted = true;
		pthread_mutex_unlock(&dev->ksym_lock);
	}
	free(bt.banks);
	free(done);
	return rc;
}
