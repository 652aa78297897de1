/* The tile as each core and the host see it (memory-map.md sections 1-5, 8): L1 of every width
 * from every core kind, the private local-RAM fast window and the shared slow-path windows, the
 * faults of the address decode (misaligned, unmapped, no rights, read-only, wrong width, not
 * modelled), the wall clock and its latch, TDMA CLK_GATE_EN, SOFT_RESET_0 and the reset pcs,
 * the pc snapshots and host register access. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/bhemu.h"
#include "testlib.h"

#define WALL_CLOCK_0 0xFFB121F0u
#define WALL_CLOCK_1 0xFFB121F4u
#define WALL_CLOCK_1_AT 0xFFB121F8u
#define TRISC0_RESET_PC 0xFFB12228u
#define TRISC1_RESET_PC 0xFFB1222Cu
#define TRISC2_RESET_PC 0xFFB12230u
#define TRISC_RESET_PC_OVERRIDE 0xFFB12234u
#define NCRISC_RESET_PC 0xFFB12238u
#define NCRISC_RESET_PC_OVERRIDE 0xFFB1223Cu
#define CLK_GATE_EN 0xFFB11024u
#define PC_SNAPSHOT 0xFFB13138u          /* + 4 * slot, slots B, NC, T0, T1, T2 */
#define LDM_SLOW 0xFFB14000u             /* + 0x2000 * slot, slots B, NC, T0, T1, T2 */
#define TENSIX_CFG 0xFFEF0000u

/* Slow-path slot and pc-snapshot slot: B, NC, T0, T1, T2 = the core id order. */
static uint32_t slow_window(enum bh_core_id c)
{
	return LDM_SLOW + 0x2000u * (uint32_t)c;
}

static void run_exits(struct bh_device *dev, enum bh_core_id core, uint32_t at, const struct prog *p,
		      uint32_t status)
{
	uint32_t got = run_to_exit(dev, core, at, p);
	cr_assert_eq(got, status, "%s: exit status 0x%x, expected 0x%x", bh_core_name(core), got, status);
}

/* Runs p on core at 0x1000 of a fresh device, expects a fault and returns the report. */
static char *run_faults(enum bh_core_id core, const struct prog *p)
{
	struct bh_device *dev = t_open();
	struct bh_core_result *r = result_new();
	run_prog(dev, core, 0x1000, p, r);
	cr_assert_eq(r->status, BH_RUN_FAULTED, "%s: expected a fault, got status %d (exit %d)", bh_core_name(core),
		     r->status, r->exit_status);
	char *report = strdup(r->report);
	free(r);
	bh_device_close(dev);
	return report;
}

/* One access of `width` at addr (value 0x5A for stores), then exit(0). */
static void access_prog(struct prog *p, bool is_store, unsigned width, uint32_t addr)
{
	emit_li(p, T0, addr);
	emit_li(p, T1, 0x5A);
	if (is_store)
		emit(p, store(width, T1, 0, T0));
	else
		emit(p, load(width, A0, 0, T0));
	emit_exit_with(p, 0);
}

static char *access_faults(enum bh_core_id core, bool is_store, unsigned width, uint32_t addr)
{
	struct prog p = { 0 };
	access_prog(&p, is_store, width, addr);
	return run_faults(core, &p);
}

static void access_works(enum bh_core_id core, bool is_store, unsigned width, uint32_t addr)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	access_prog(&p, is_store, width, addr);
	run_exits(dev, core, 0x1000, &p, 0);
	bh_device_close(dev);
}

static char *hex_addr(uint32_t a)
{
	static char buf[4][16];
	static unsigned k;
	char *s = buf[k++ % 4];
	snprintf(s, sizeof buf[0], "0x%08x", a);
	return s;
}

/* ---------------------------------------------------------------------------------------- L1 */

/* Loads of every width and signedness and stores of every width, from each core kind. */
static void l1_all_widths(enum bh_core_id core)
{
	struct bh_device *dev = t_open();
	const uint32_t d = 0x30000 + 0x100u * core;
	static const uint8_t init[8] = { 0x80, 0x7f, 0xfe, 0x01, 0x34, 0x82, 0x78, 0x56 };
	cr_assert_eq(bh_l1_write(dev, 0, d, init, sizeof init), BH_OK);

	struct prog p = { 0 };
	emit_li(&p, A1, d);
	emit(&p, load(W_B, T1, 0, A1));  emit(&p, sw(T1, 0x20, A1));
	emit(&p, load(W_BU, T1, 0, A1)); emit(&p, sw(T1, 0x24, A1));
	emit(&p, load(W_H, T1, 4, A1));  emit(&p, sw(T1, 0x28, A1));
	emit(&p, load(W_HU, T1, 4, A1)); emit(&p, sw(T1, 0x2c, A1));
	emit(&p, load(W_W, T1, 0, A1));  emit(&p, sw(T1, 0x30, A1));
	emit(&p, load(W_B, T1, 3, A1));  emit(&p, sw(T1, 0x34, A1));
	emit(&p, load(W_H, T1, 6, A1));  emit(&p, sw(T1, 0x38, A1));
	emit_li(&p, T1, 0x1A5);
	emit(&p, store(W_B, T1, 0x40, A1));
	emit(&p, store(W_B, T1, 0x43, A1));
	emit_li(&p, T1, 0x1BEEF);
	emit(&p, store(W_H, T1, 0x46, A1));
	emit_li(&p, T1, 0x12345678);
	emit(&p, sw(T1, 0x48, A1));
	emit_exit_with(&p, 0);
	run_exits(dev, core, 0x1000, &p, 0);

	uint32_t got[7];
	cr_assert_eq(bh_l1_read(dev, 0, d + 0x20, got, sizeof got), BH_OK);
	const uint32_t want[7] = { 0xffffff80, 0x80, 0xffff8234, 0x8234, 0x01fe7f80, 0x01, 0x5678 };
	for (int k = 0; k < 7; k++)
		cr_expect_eq(got[k], want[k], "%s: load %d gave 0x%08x, expected 0x%08x", bh_core_name(core), k,
			     got[k], want[k]);
	uint8_t st[12];
	cr_assert_eq(bh_l1_read(dev, 0, d + 0x40, st, sizeof st), BH_OK);
	const uint8_t want_st[12] = { 0xa5, 0, 0, 0xa5, 0, 0, 0xef, 0xbe, 0x78, 0x56, 0x34, 0x12 };
	cr_expect_arr_eq(st, want_st, sizeof st, "%s: stores landed wrong", bh_core_name(core));
	bh_device_close(dev);
}

Test(tile_l1, brisc_loads_and_stores_every_width) { l1_all_widths(BH_CORE_BRISC); }
Test(tile_l1, ncrisc_loads_and_stores_every_width) { l1_all_widths(BH_CORE_NCRISC); }
Test(tile_l1, trisc0_loads_and_stores_every_width) { l1_all_widths(BH_CORE_TRISC0); }
Test(tile_l1, trisc1_loads_and_stores_every_width) { l1_all_widths(BH_CORE_TRISC1); }
Test(tile_l1, trisc2_loads_and_stores_every_width) { l1_all_widths(BH_CORE_TRISC2); }

Test(tile_l1, last_word_of_l1_is_accessible)
{
	access_works(BH_CORE_BRISC, true, W_W, 0x17FFFC);
	access_works(BH_CORE_TRISC2, false, W_B, 0x17FFFF);
}

Test(tile_l1, store_by_one_core_is_seen_by_host_and_other_cores)
{
	struct bh_device *dev = t_open();
	struct prog w = { 0 }, r = { 0 };
	emit_store_word(&w, 0x40000, 0xC0FFEE);
	emit_exit_with(&w, 0);
	run_exits(dev, BH_CORE_TRISC1, 0x1000, &w, 0);
	emit_li(&r, T0, 0x40000);
	emit(&r, lw(A0, 0, T0));
	emit(&r, addi(A0, A0, 0));
	emit_exit(&r);
	uint32_t v = 0;
	cr_assert_eq(bh_l1_read(dev, 0, 0x40000, &v, 4), BH_OK);
	cr_assert_eq(v, 0xC0FFEE);
	/* exit status is the low byte on the CLI, but the API returns the whole a0 */
	run_exits(dev, BH_CORE_NCRISC, 0x2000, &r, 0xC0FFEE);
	bh_device_close(dev);
}

/* --------------------------------------------------------------------------- local data RAM */

/* BRISC and TRISC0 both write 0xFFB00000; each reads back its own value through the fast window
 * and the other's through the slow-path window. */
Test(tile_ldm, fast_window_is_private_and_slow_window_reaches_the_other_core)
{
	struct bh_device *dev = t_open();
	const uint32_t flag = 0x20000, res = 0x20100;
	struct prog b = { 0 }, t = { 0 };

	emit_store_word(&b, LDM, 0x11111111);
	emit_li(&b, A1, res);
	emit_li(&b, T1, 1);
	emit(&b, sw(T1, 0, A1));                     /* res[0] = 1: BRISC has written its LDM */
	emit_wait_nonzero(&b, flag, A2);             /* until TRISC0 is done */
	emit(&b, lw(T1, 0, T0));
	emit(&b, sw(T1, 0x10, A1));                  /* res[4] = own fast window */
	emit_li(&b, T0, slow_window(BH_CORE_TRISC0));
	emit(&b, lw(T1, 0, T0));
	emit(&b, sw(T1, 0x14, A1));                  /* res[5] = TRISC0 through its slow slot */
	emit_exit_with(&b, 0);

	emit_wait_nonzero(&t, res, A2);
	emit_store_word(&t, LDM, 0x22222222);
	emit_li(&t, A1, res);
	emit(&t, lw(T1, 0, T0));
	emit(&t, sw(T1, 0x20, A1));                  /* res[8] = own fast window */
	emit_li(&t, T0, slow_window(BH_CORE_BRISC));
	emit(&t, lw(T1, 0, T0));
	emit(&t, sw(T1, 0x24, A1));                  /* res[9] = BRISC through its slow slot */
	emit_store_word(&t, flag, 1);
	emit_exit_with(&t, 0);

	prog_put(dev, 0, 0x1000, &b);
	prog_put(dev, 0, 0x3000, &t);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x1000), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC0, 0x3000), BH_OK);
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_BRISC, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_EXITED, "%s", r->report);
	cr_assert_eq(bh_core_wait(dev, 0, BH_CORE_TRISC0, T_STOP_MS, r), BH_OK);
	cr_assert_eq(r->status, BH_RUN_EXITED, "%s", r->report);

	uint32_t v[10];
	cr_assert_eq(bh_l1_read(dev, 0, res, v, sizeof v), BH_OK);
	cr_expect_eq(v[4], 0x11111111, "BRISC fast window read 0x%08x", v[4]);
	cr_expect_eq(v[5], 0x22222222, "BRISC read of TRISC0's slow slot gave 0x%08x", v[5]);
	cr_expect_eq(v[8], 0x22222222, "TRISC0 fast window read 0x%08x", v[8]);
	cr_expect_eq(v[9], 0x11111111, "TRISC0 read of BRISC's slow slot gave 0x%08x", v[9]);

	/* The host sees the same RAMs through the slow windows. */
	uint32_t h = 0;
	cr_assert_eq(bh_reg_read(dev, 0, slow_window(BH_CORE_BRISC), &h), BH_OK);
	cr_expect_eq(h, 0x11111111);
	cr_assert_eq(bh_reg_read(dev, 0, slow_window(BH_CORE_TRISC0), &h), BH_OK);
	cr_expect_eq(h, 0x22222222);
	free(r);
	bh_device_close(dev);
}

/* Every slow-path slot leads to its own core's RAM, in the order B, NC, T0, T1, T2. */
Test(tile_ldm, slow_window_slots_are_in_order_brisc_ncrisc_trisc0_trisc1_trisc2)
{
	struct bh_device *dev = t_open();
	for (unsigned c = 0; c < 5; c++) {
		struct prog p = { 0 };
		emit_store_word(&p, LDM + 0x40, 0xA0 + c);
		emit_exit_with(&p, 0);
		run_exits(dev, all_cores[c], 0x1000 + 0x100 * c, &p, 0);
	}
	for (unsigned c = 0; c < 5; c++) {
		uint32_t v = 0;
		cr_assert_eq(bh_reg_read(dev, 0, slow_window(all_cores[c]) + 0x40, &v), BH_OK);
		cr_expect_eq(v, 0xA0 + c, "slot %u (%s) holds 0x%x", c, bh_core_name(all_cores[c]), v);
	}
	bh_device_close(dev);
}

/* A store through another core's slow slot lands in that core's fast window. */
Test(tile_ldm, store_through_slow_window_is_seen_in_owner_fast_window)
{
	struct bh_device *dev = t_open();
	const uint32_t flag = 0x20000;
	struct prog owner = { 0 }, writer = { 0 };

	/* NCRISC: clear its LDM word, announce it runs, wait for the writer, exit with the word. */
	emit_store_word(&owner, flag + 4, 1);
	emit_wait_nonzero(&owner, flag, A2);
	emit_li(&owner, T0, LDM + 0x1ff0);              /* upper 4 KiB: NCRISC has 8 KiB */
	emit(&owner, lw(A0, 0, T0));
	emit_exit(&owner);

	emit_wait_nonzero(&writer, flag + 4, A2);
	emit_li(&writer, T0, slow_window(BH_CORE_NCRISC) + 0x1ff0);
	emit_li(&writer, T1, 0x5EED);
	emit(&writer, store(W_H, T1, 0, T0));
	emit_li(&writer, T1, 0x77);
	emit(&writer, store(W_B, T1, 2, T0));
	emit_store_word(&writer, flag, 1);
	emit_exit_with(&writer, 0);

	prog_put(dev, 0, 0x1000, &owner);
	prog_put(dev, 0, 0x2000, &writer);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_NCRISC, 0x1000), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_TRISC2, 0x2000), BH_OK);
	expect_exit(dev, 0, BH_CORE_NCRISC, 0x775EED);
	bh_device_close(dev);
}

Test(tile_ldm, trisc_has_4_kib_so_0xffb01000_faults_on_trisc)
{
	const enum bh_core_id triscs[] = { BH_CORE_TRISC0, BH_CORE_TRISC1, BH_CORE_TRISC2 };
	for (unsigned k = 0; k < 3; k++) {
		char *rep = access_faults(triscs[k], false, W_W, LDM + 0x1000);
		assert_has(rep, "access not allowed");
		assert_has(rep, "0xffb01000");
		assert_has(rep, "local data RAM");
		free(rep);
		rep = access_faults(triscs[k], true, W_B, LDM + 0x1FFF);
		assert_has(rep, "0xffb01fff");
		free(rep);
	}
	/* The last word of TRISC local RAM is fine. */
	access_works(BH_CORE_TRISC0, true, W_W, LDM + 0xFFC);
}

Test(tile_ldm, upper_4_kib_works_on_brisc_and_ncrisc)
{
	access_works(BH_CORE_BRISC, false, W_W, LDM + 0x1000);
	access_works(BH_CORE_BRISC, true, W_B, LDM + 0x1FFF);
	access_works(BH_CORE_NCRISC, false, W_H, LDM + 0x1FFE);
	access_works(BH_CORE_NCRISC, true, W_W, LDM + 0x1000);
}

Test(tile_ldm, past_8_kib_of_local_ram_faults)
{
	char *rep = access_faults(BH_CORE_BRISC, false, W_W, LDM + 0x2000);
	assert_has(rep, "0xffb02000");
	free(rep);
}

Test(tile_ldm, trisc_slow_slot_upper_half_faults)
{
	struct bh_device *dev = t_open();
	uint32_t v;
	cr_expect_neq(bh_reg_read(dev, 0, slow_window(BH_CORE_TRISC1) + 0x1000, &v), BH_OK);
	bh_device_close(dev);
	char *rep = access_faults(BH_CORE_BRISC, false, W_W, slow_window(BH_CORE_TRISC1) + 0x1000);
	assert_has(rep, "0xffb1b000");
	free(rep);
}

/* ------------------------------------------------------------------------------------ faults */

Test(tile_faults, misaligned_l1_loads_and_stores_fault_as_misaligned)
{
	struct { bool store; unsigned width; uint32_t addr; } cases[] = {
		{ false, W_W, 0x20001 }, { false, W_W, 0x20002 }, { false, W_H, 0x20003 }, { false, W_HU, 0x20001 },
		{ true, W_W, 0x20003 }, { true, W_H, 0x20001 },
	};
	for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char *rep = access_faults(BH_CORE_BRISC, cases[k].store, cases[k].width, cases[k].addr);
		assert_has(rep, "misaligned access");
		assert_has(rep, hex_addr(cases[k].addr));
		assert_has(rep, cases[k].store ? "store to" : "load from");
		assert_has(rep, "in L1");
		free(rep);
	}
}

Test(tile_faults, misaligned_mmio_and_local_ram_accesses_fault_as_misaligned)
{
	const uint32_t addrs[] = { SOFT_RESET_0 + 2, LDM + 1, slow_window(BH_CORE_NCRISC) + 2, TENSIX_CFG + 1 };
	for (unsigned k = 0; k < sizeof addrs / sizeof addrs[0]; k++) {
		char *rep = access_faults(BH_CORE_TRISC0, false, W_W, addrs[k]);
		assert_has(rep, "misaligned access");
		assert_has(rep, hex_addr(addrs[k]));
		free(rep);
		rep = access_faults(BH_CORE_BRISC, true, W_H, addrs[k] | 1);
		assert_has(rep, "misaligned access");
		free(rep);
	}
}

Test(tile_faults, unmapped_addresses_fault_with_the_address)
{
	const uint32_t addrs[] = { 0x00180000, 0x80000000, 0xFFB10000, 0xFFF00000 };
	for (unsigned k = 0; k < sizeof addrs / sizeof addrs[0]; k++) {
		char *rep = access_faults(BH_CORE_NCRISC, false, W_W, addrs[k]);
		assert_has(rep, "unmapped address");
		assert_has(rep, hex_addr(addrs[k]));
		assert_has(rep, "core ncrisc");
		free(rep);
		rep = access_faults(BH_CORE_TRISC1, true, W_B, addrs[k]);
		assert_has(rep, "unmapped address");
		assert_has(rep, "store to");
		free(rep);
	}
}

Test(tile_faults, ncrisc_has_no_rights_to_tensix_config)
{
	char *rep = access_faults(BH_CORE_NCRISC, false, W_W, TENSIX_CFG);
	assert_has(rep, "access not allowed");
	assert_has(rep, "0xffef0000");
	assert_has(rep, "Tensix backend configuration");
	free(rep);
	rep = access_faults(BH_CORE_NCRISC, true, W_W, TENSIX_CFG + 185 * 4);
	assert_has(rep, "access not allowed");
	free(rep);
	/* BRISC and the TRISCs do reach it. */
	access_works(BH_CORE_BRISC, true, W_W, TENSIX_CFG + 4);
	access_works(BH_CORE_TRISC2, false, W_W, TENSIX_CFG + 4);
}

Test(tile_faults, ncrisc_has_no_rights_to_tdma_registers)
{
	char *rep = access_faults(BH_CORE_NCRISC, true, W_W, CLK_GATE_EN);
	assert_has(rep, "access not allowed");
	free(rep);
}

Test(tile_faults, store_to_read_only_register_faults)
{
	char *rep = access_faults(BH_CORE_BRISC, true, W_W, WALL_CLOCK_0);
	assert_has(rep, "access not allowed");
	assert_has(rep, "WALL_CLOCK_0");
	assert_has(rep, "read-only");
	free(rep);
	rep = access_faults(BH_CORE_TRISC0, true, W_W, PC_SNAPSHOT);
	assert_has(rep, "access not allowed");
	assert_has(rep, "0xffb13138");
	assert_has(rep, "pc snapshot");
	free(rep);
	rep = access_faults(BH_CORE_NCRISC, true, W_W, WALL_CLOCK_1_AT);
	assert_has(rep, "read-only");
	free(rep);
}

Test(tile_faults, byte_and_halfword_access_to_32_bit_register_window_faults)
{
	char *rep = access_faults(BH_CORE_BRISC, false, W_B, SOFT_RESET_0);
	assert_has(rep, "access not allowed");
	assert_has(rep, "1-byte");
	assert_has(rep, "32-bit");
	free(rep);
	rep = access_faults(BH_CORE_BRISC, true, W_H, SOFT_RESET_0);
	assert_has(rep, "2-byte");
	free(rep);
	rep = access_faults(BH_CORE_TRISC0, true, W_B, CLK_GATE_EN);
	assert_has(rep, "1-byte");
	free(rep);
}

/* The rights of memory-map.md section 1 for the windows only some cores reach. */
Test(tile_faults, windows_outside_a_core_kind_rights_fault_as_not_allowed)
{
	const struct { enum bh_core_id core; bool store; uint32_t addr; } cases[] = {
		{ BH_CORE_NCRISC, true, 0xFFEC0000 },   /* mailboxes: B and T only */
		{ BH_CORE_NCRISC, false, 0xFFE00000 },  /* GPRs */
		{ BH_CORE_NCRISC, false, 0xFFE80000 },  /* PCBuf / semaphores */
		{ BH_CORE_TRISC0, true, 0xFFE90000 },   /* BRISC side of PCBuf 1 */
		{ BH_CORE_TRISC1, true, 0xFFEA0000 },   /* BRISC side of PCBuf 2 */
		{ BH_CORE_TRISC2, true, 0xFFE50000 },   /* push to thread 1: BRISC only */
		{ BH_CORE_BRISC, true, 0xFFB80000 },    /* MOP config: TRISCs only */
		{ BH_CORE_TRISC0, false, 0xFFB80000 },  /* MOP config is write-only */
		{ BH_CORE_BRISC, false, 0xFFE40000 },   /* instruction push is write-only */
		{ BH_CORE_BRISC, false, 0xFFBD8000 },   /* Dst: TRISCs only */
	};
	for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char *rep = access_faults(cases[k].core, cases[k].store, W_W, cases[k].addr);
		assert_has(rep, "access not allowed");
		assert_has(rep, hex_addr(cases[k].addr));
		free(rep);
	}
}

Test(tile_faults, tensix_config_past_index_223_faults)
{
	char *rep = access_faults(BH_CORE_TRISC0, false, W_W, TENSIX_CFG + 224 * 4);
	assert_has(rep, "0xffef0380");
	assert_has(rep, "Tensix backend configuration");
	free(rep);
	access_works(BH_CORE_TRISC0, false, W_W, TENSIX_CFG + 223 * 4);
}

/* Tile control: a register that exists but is not modelled names itself; a hole names its offset. */
Test(tile_faults, tile_control_offsets_without_a_model_fault_by_name)
{
	char *rep = access_faults(BH_CORE_BRISC, false, W_W, 0xFFB12080);
	assert_has(rep, "not modelled");
	assert_has(rep, "RISC_DBG_CNTL_0");
	free(rep);
	rep = access_faults(BH_CORE_BRISC, true, W_W, 0xFFB12300);
	assert_has(rep, "0xffb12300");
	assert_has(rep, "offset 0x300");
	free(rep);
}

static void not_modelled(enum bh_core_id core, bool store, uint32_t addr, const char *name)
{
	char *rep = access_faults(core, store, W_W, addr);
	assert_has(rep, "not modelled");
	assert_has(rep, name);
	assert_has(rep, hex_addr(addr));
	free(rep);
}

Test(tile_faults, unmodelled_windows_fault_as_not_modelled_with_their_name)
{
	not_modelled(BH_CORE_BRISC, false, 0xFFB20300, "NoC0 NIU");
	not_modelled(BH_CORE_NCRISC, true, 0xFFB30064, "NoC1 NIU");
	not_modelled(BH_CORE_BRISC, false, 0xFFB40000, "stream");
	not_modelled(BH_CORE_TRISC0, false, 0xFFE8000C, "PCBuf");
	not_modelled(BH_CORE_TRISC1, true, 0xFFB13000, "PIC");
}

/* A fault stops only the faulting core, and its pc is the faulting instruction. */
Test(tile_faults, fault_report_has_tile_core_pc_and_instruction)
{
	struct prog p = { 0 };
	emit_li(&p, T0, 0x80000000);               /* 0x1000, 0x1004 */
	emit(&p, lw(A0, 8, T0));                   /* 0x1008 */
	emit_exit_with(&p, 0);
	char *rep = run_faults(BH_CORE_TRISC1, &p);
	assert_has(rep, "tile 0 (1,2)");
	assert_has(rep, "core trisc1");
	assert_has(rep, "pc 0x00001008");
	assert_has(rep, "lw a0,8(t0)");
	assert_has(rep, "0x80000008");
	assert_has(rep, "4-byte load");
	free(rep);
}

/* --------------------------------------------------------------------------------- wall clock */

static uint64_t host_wall_clock(struct bh_device *dev)
{
	uint32_t lo = 0, hi = 0;
	cr_assert_eq(bh_reg_read(dev, 0, WALL_CLOCK_0, &lo), BH_OK);
	cr_assert_eq(bh_reg_read(dev, 0, WALL_CLOCK_1_AT, &hi), BH_OK);
	return (uint64_t)hi << 32 | lo;
}

Test(tile_wall_clock, advances_between_host_reads)
{
	struct bh_device *dev = t_open();
	/* The clock runs at 1.35 GHz of host time: the ticks between the two reads lie between the
	 * host time that surely passed between them and the host time around both. */
	double t0 = wall_seconds();
	uint64_t a = host_wall_clock(dev);
	double t1 = wall_seconds();
	sleep_ms(20);
	double t2 = wall_seconds();
	uint64_t b = host_wall_clock(dev);
	double t3 = wall_seconds();
	double lo = (t2 - t1) * 1.35e9 - 2, hi = (t3 - t0) * 1.35e9 + 2;
	cr_expect((double)(b - a) >= lo && (double)(b - a) <= hi, "%llu ticks between reads, expected %.0f..%.0f",
		  (unsigned long long)(b - a), lo, hi);
	bh_device_close(dev);
}

/* A core reads WALL_CLOCK_0 twice around a busy loop: the values differ (TRISC firmware waits
 * for the clock to pass a target at boot). */
Test(tile_wall_clock, advances_between_core_reads)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, T0, WALL_CLOCK_0);
	emit(&p, lw(A1, 0, T0));
	emit_li(&p, T1, 200000);
	int32_t loop = prog_here(&p);
	emit(&p, addi(T1, T1, -1));
	emit_branch(&p, BNE, T1, X0, loop);
	emit(&p, lw(A2, 0, T0));
	emit(&p, sub(A0, A2, A1));
	emit_exit(&p);
	uint32_t d = run_to_exit(dev, BH_CORE_TRISC0, 0x1000, &p);
	cr_expect_neq(d, 0, "two reads of WALL_CLOCK_0 200k instructions apart are equal");
	cr_expect_lt(d, 0x80000000u, "the clock went backwards");
	bh_device_close(dev);
}

/* WALL_CLOCK_1_AT holds the high word as it was at the last read of WALL_CLOCK_0, while
 * WALL_CLOCK_1 is live. The high word first changes ~3.2 s after the clock starts. */
Test(tile_wall_clock, reading_low_word_latches_high_word, .timeout = 30)
{
	struct bh_device *dev = t_open();
	uint32_t lo, hi_live = 0, hi_at = 0;
	cr_assert_eq(bh_reg_read(dev, 0, WALL_CLOCK_0, &lo), BH_OK);
	cr_assert_eq(bh_reg_read(dev, 0, WALL_CLOCK_1_AT, &hi_at), BH_OK);
	uint32_t latched = hi_at;
	for (int k = 0; k < 1000 && hi_live == latched; k++) {
		sleep_ms(10);
		cr_assert_eq(bh_reg_read(dev, 0, WALL_CLOCK_1, &hi_live), BH_OK);
	}
	cr_assert_neq(hi_live, latched, "the high word did not change in 10 s");
	cr_assert_eq(bh_reg_read(dev, 0, WALL_CLOCK_1_AT, &hi_at), BH_OK);
	cr_expect_eq(hi_at, latched, "WALL_CLOCK_1_AT changed without a read of WALL_CLOCK_0");
	cr_assert_eq(bh_reg_read(dev, 0, WALL_CLOCK_0, &lo), BH_OK);
	cr_assert_eq(bh_reg_read(dev, 0, WALL_CLOCK_1_AT, &hi_at), BH_OK);
	cr_expect_geq(hi_at, hi_live, "reading WALL_CLOCK_0 did not latch the high word");
	bh_device_close(dev);
}

Test(tile_wall_clock, is_read_only_from_the_host)
{
	struct bh_device *dev = t_open();
	cr_expect_eq(bh_reg_write(dev, 0, WALL_CLOCK_0, 0), BH_ERR_ARG);
	cr_expect_eq(bh_reg_write(dev, 0, WALL_CLOCK_1, 0), BH_ERR_ARG);
	cr_expect_eq(bh_reg_write(dev, 0, WALL_CLOCK_1_AT, 0), BH_ERR_ARG);
	bh_device_close(dev);
}

/* ----------------------------------------------------------------------------- TDMA-RISC */

static void clk_gate_prog(struct prog *p, uint32_t value)
{
	emit_store_word(p, CLK_GATE_EN, value);
	emit_exit_with(p, 0);
}

Test(tile_tdma, clk_gate_en_accepts_0x3f)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	clk_gate_prog(&p, 0x3F);
	run_exits(dev, BH_CORE_BRISC, 0x1000, &p, 0);
	run_exits(dev, BH_CORE_TRISC1, 0x2000, &p, 0);
	bh_device_close(dev);
}

Test(tile_tdma, clk_gate_en_faults_on_other_values)
{
	const uint32_t bad[] = { 0, 0x3E, 0x7F, 0xFFFFFFFF };
	for (unsigned k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		struct prog p = { 0 };
		clk_gate_prog(&p, bad[k]);
		char *rep = run_faults(BH_CORE_BRISC, &p);
		assert_has(rep, "bad register value");
		assert_has(rep, "CLK_GATE_EN");
		assert_has(rep, "0xffb11024");
		free(rep);
	}
}

Test(tile_tdma, other_tdma_registers_are_not_modelled_and_host_has_no_access)
{
	not_modelled(BH_CORE_BRISC, true, 0xFFB11000, "TDMA");
	struct bh_device *dev = t_open();
	cr_expect_eq(bh_reg_write(dev, 0, CLK_GATE_EN, 0x3F), BH_ERR_ARG);
	bh_device_close(dev);
}

/* ------------------------------------------------------------------- SOFT_RESET_0, reset pcs */

static void host_release(struct bh_device *dev, uint32_t bits)
{
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v & ~bits), BH_OK);
}

static void host_hold(struct bh_device *dev, uint32_t bits)
{
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, SOFT_RESET_0, v | bits), BH_OK);
}

Test(tile_reset, soft_reset_0_reads_0x47800_at_power_on_and_every_core_is_held)
{
	struct bh_device *dev = t_open();
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_expect_eq(v, 0x47800u, "SOFT_RESET_0 = 0x%x", v);
	struct bh_core_result *r = result_new();
	for (unsigned c = 0; c < 5; c++) {
		bh_core_result(dev, 0, all_cores[c], r);
		cr_expect_eq(r->status, BH_RUN_IN_RESET, "%s not held", bh_core_name(all_cores[c]));
	}
	free(r);
	bh_device_close(dev);
}

Test(tile_reset, brisc_starts_at_0_when_released_by_the_host)
{
	struct bh_device *dev = t_open();
	put_exit(dev, 0x0, 0xB0);
	host_release(dev, reset_bit(BH_CORE_BRISC));
	expect_exit(dev, 0, BH_CORE_BRISC, 0xB0);
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_expect_eq(v, 0x47000u);
	bh_device_close(dev);
}

/* Default reset pc of each TRISC, with a decoy at the override address that must not run. */
Test(tile_reset, triscs_start_at_their_default_pcs_without_override)
{
	struct bh_device *dev = t_open();
	put_exit(dev, 0x6000, 0x60);
	put_exit(dev, 0xA000, 0xA0);
	put_exit(dev, 0xE000, 0xE0);
	put_exit(dev, 0x20000, 0xBAD);
	cr_assert_eq(bh_reg_write(dev, 0, TRISC0_RESET_PC, 0x20000), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, TRISC1_RESET_PC, 0x20000), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, TRISC2_RESET_PC, 0x20000), BH_OK);
	host_release(dev, reset_bit(BH_CORE_TRISC0) | reset_bit(BH_CORE_TRISC1) | reset_bit(BH_CORE_TRISC2));
	expect_exit(dev, 0, BH_CORE_TRISC0, 0x60);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0xA0);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0xE0);
	bh_device_close(dev);
}

Test(tile_reset, trisc0_starts_at_trisc0_reset_pc_when_override_bit_0_is_set)
{
	struct bh_device *dev = t_open();
	put_exit(dev, 0x6000, 0x60);
	put_exit(dev, 0xA000, 0xA0);
	put_exit(dev, 0x7000, 0x70);
	cr_assert_eq(bh_reg_write(dev, 0, TRISC0_RESET_PC, 0x7000), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, TRISC1_RESET_PC, 0x7000), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, TRISC_RESET_PC_OVERRIDE, 1), BH_OK);
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, TRISC0_RESET_PC, &v), BH_OK);
	cr_expect_eq(v, 0x7000u);
	cr_assert_eq(bh_reg_read(dev, 0, TRISC_RESET_PC_OVERRIDE, &v), BH_OK);
	cr_expect_eq(v, 1u);
	host_release(dev, reset_bit(BH_CORE_TRISC0) | reset_bit(BH_CORE_TRISC1));
	expect_exit(dev, 0, BH_CORE_TRISC0, 0x70);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0xA0);   /* bit 1 clear: TRISC1 keeps its default */
	bh_device_close(dev);
}

Test(tile_reset, ncrisc_starts_at_0x12000_or_ncrisc_reset_pc_with_override)
{
	struct bh_device *dev = t_open();
	put_exit(dev, 0x12000, 0x12);
	put_exit(dev, 0x15000, 0x15);
	cr_assert_eq(bh_reg_write(dev, 0, NCRISC_RESET_PC, 0x15000), BH_OK);
	host_release(dev, reset_bit(BH_CORE_NCRISC));
	expect_exit(dev, 0, BH_CORE_NCRISC, 0x12);

	host_hold(dev, reset_bit(BH_CORE_NCRISC));
	cr_assert_eq(bh_reg_write(dev, 0, NCRISC_RESET_PC_OVERRIDE, 1), BH_OK);
	host_release(dev, reset_bit(BH_CORE_NCRISC));
	expect_exit(dev, 0, BH_CORE_NCRISC, 0x15);
	bh_device_close(dev);
}

/* BRISC firmware boot: BRISC writes the TRISC and NCRISC reset pcs and overrides, then clears
 * SOFT_RESET_0 and the other four cores start where it said. */
Test(tile_reset, brisc_releases_the_other_cores_through_soft_reset_0)
{
	struct bh_device *dev = t_open();
	put_exit(dev, 0x6000, 0xBAD);
	put_exit(dev, 0xA000, 0xBAD);
	put_exit(dev, 0xE000, 0xBAD);
	put_exit(dev, 0x12000, 0xBAD);
	put_exit(dev, 0x8000, 0x80);
	put_exit(dev, 0x9000, 0x90);
	put_exit(dev, 0xB000, 0xB0);
	put_exit(dev, 0x14000, 0x14);

	struct prog p = { 0 };
	emit_li(&p, T0, 0xFFB12000);
	emit_li(&p, T1, 0x8000);
	emit(&p, sw(T1, 0x228, T0));
	emit_li(&p, T1, 0x9000);
	emit(&p, sw(T1, 0x22C, T0));
	emit_li(&p, T1, 0xB000);
	emit(&p, sw(T1, 0x230, T0));
	emit_li(&p, T1, 7);
	emit(&p, sw(T1, 0x234, T0));
	emit_li(&p, T1, 0x14000);
	emit(&p, sw(T1, 0x238, T0));
	emit_li(&p, T1, 1);
	emit(&p, sw(T1, 0x23C, T0));
	emit(&p, lw(A0, 0x1B0, T0));              /* exit status: SOFT_RESET_0 as BRISC sees it */
	emit(&p, sw(X0, 0x1B0, T0));              /* release everything */
	emit_exit(&p);
	prog_put(dev, 0, 0x1000, &p);
	cr_assert_eq(bh_core_start(dev, 0, BH_CORE_BRISC, 0x1000), BH_OK);
	expect_exit(dev, 0, BH_CORE_BRISC, 0x47000);
	expect_exit(dev, 0, BH_CORE_TRISC0, 0x80);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0x90);
	expect_exit(dev, 0, BH_CORE_TRISC2, 0xB0);
	expect_exit(dev, 0, BH_CORE_NCRISC, 0x14);
	uint32_t v = 1;
	cr_assert_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &v), BH_OK);
	cr_expect_eq(v, 0u);
	bh_device_close(dev);
}

/* BRISC asserting its own reset bit stops itself. */
Test(tile_reset, brisc_setting_its_own_reset_bit_stops_it)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_store_word(&p, SOFT_RESET_0, 0x47800);
	int32_t loop = prog_here(&p);
	emit_j(&p, loop);
	struct bh_core_result *r = result_new();
	run_prog(dev, BH_CORE_BRISC, 0x1000, &p, r);
	cr_expect_eq(r->status, BH_RUN_IN_RESET, "status %d\n%s", r->status, r->report);
	free(r);
	bh_device_close(dev);
}

/* Leaving reset zeroes the core's local RAM; a core still held keeps its RAM. */
Test(tile_reset, local_ram_is_zeroed_on_release)
{
	struct bh_device *dev = t_open();
	cr_assert_eq(bh_reg_write(dev, 0, slow_window(BH_CORE_TRISC0), 0xDEADBEEF), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, slow_window(BH_CORE_TRISC0) + 0xFFC, 0xDEADBEEF), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, slow_window(BH_CORE_TRISC1), 0xFEEDFACE), BH_OK);

	/* TRISC0 exits with LDM[0] | LDM[0xFFC], then leaves 0x1234 in LDM[0]. */
	struct prog p = { 0 };
	emit_li(&p, T0, LDM + 0xFFC);
	emit(&p, lw(A0, 0, T0));
	emit_li(&p, T0, LDM);
	emit(&p, lw(T1, 0, T0));
	emit(&p, or(A0, A0, T1));
	emit_li(&p, T1, 0x1234);
	emit(&p, sw(T1, 0, T0));
	emit_exit(&p);
	prog_put(dev, 0, 0x6000, &p);
	host_release(dev, reset_bit(BH_CORE_TRISC0));
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);

	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, slow_window(BH_CORE_TRISC1), &v), BH_OK);
	cr_expect_eq(v, 0xFEEDFACEu, "the local RAM of a held core changed");
	/* An exited core keeps its RAM until it leaves reset again. */
	cr_assert_eq(bh_reg_read(dev, 0, slow_window(BH_CORE_TRISC0), &v), BH_OK);
	cr_expect_eq(v, 0x1234u);
	host_hold(dev, reset_bit(BH_CORE_TRISC0));
	cr_assert_eq(bh_reg_read(dev, 0, slow_window(BH_CORE_TRISC0), &v), BH_OK);
	cr_expect_eq(v, 0x1234u, "entering reset must not clear the local RAM");
	host_release(dev, reset_bit(BH_CORE_TRISC0));
	expect_exit(dev, 0, BH_CORE_TRISC0, 0);
	bh_device_close(dev);
}

/* DISABLE_RESET bit 2k keeps core k's local RAM across reset (k: T0 0, T1 1, T2 2, B 3, NC 4). */
Test(tile_reset, disable_reset_keeps_local_ram)
{
	struct bh_device *dev = t_open();
	cr_assert_eq(bh_reg_write(dev, 0, 0xFFB12224, 1u << 0 | 1u << 8), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, slow_window(BH_CORE_TRISC0), 0xABCD), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, slow_window(BH_CORE_NCRISC) + 0x1000, 0xDCBA), BH_OK);
	cr_assert_eq(bh_reg_write(dev, 0, slow_window(BH_CORE_TRISC1), 0x5555), BH_OK);
	struct prog p = { 0 };
	emit_li(&p, T0, LDM);
	emit(&p, lw(A0, 0, T0));
	emit_exit(&p);
	struct prog q = { 0 };
	emit_li(&q, T0, LDM + 0x1000);
	emit(&q, lw(A0, 0, T0));
	emit_exit(&q);
	prog_put(dev, 0, 0x6000, &p);
	prog_put(dev, 0, 0xA000, &p);
	prog_put(dev, 0, 0x12000, &q);
	host_release(dev, reset_bit(BH_CORE_TRISC0) | reset_bit(BH_CORE_TRISC1) | reset_bit(BH_CORE_NCRISC));
	expect_exit(dev, 0, BH_CORE_TRISC0, 0xABCD);
	expect_exit(dev, 0, BH_CORE_NCRISC, 0xDCBA);
	expect_exit(dev, 0, BH_CORE_TRISC1, 0);
	bh_device_close(dev);
}

/* --------------------------------------------------------------------------- pc snapshots */

/* Each core spins at its own address; the snapshot registers show them in the order B, NC,
 * T0, T1, T2 (NCRISC second). */
Test(tile_pc_snapshot, each_register_shows_its_core_pc)
{
	struct bh_device *dev = t_open();
	uint32_t v = 1;
	for (unsigned c = 0; c < 5; c++) {
		cr_assert_eq(bh_reg_read(dev, 0, PC_SNAPSHOT + 4 * c, &v), BH_OK);
		cr_expect_eq(v, 0u, "held %s has pc snapshot 0x%x", bh_core_name(all_cores[c]), v);
	}
	const uint32_t loop_at[5] = { 0x1000, 0x2004, 0x3008, 0x400C, 0x5010 };
	for (unsigned c = 0; c < 5; c++) {
		const uint32_t w = INSN_SELF_LOOP;
		cr_assert_eq(bh_l1_write(dev, 0, loop_at[c], &w, 4), BH_OK);
		cr_assert_eq(bh_core_start(dev, 0, all_cores[c], loop_at[c]), BH_OK);
	}
	for (unsigned c = 0; c < 5; c++) {
		for (int k = 0; k < 500; k++) {
			cr_assert_eq(bh_reg_read(dev, 0, PC_SNAPSHOT + 4 * c, &v), BH_OK);
			if (v == loop_at[c])
				break;
			sleep_ms(2);
		}
		cr_expect_eq(v, loop_at[c], "%s snapshot 0x%x, expected 0x%x", bh_core_name(all_cores[c]), v,
			     loop_at[c]);
	}
	host_hold(dev, 0x47800);
	bh_device_close(dev);
}

/* A core can read the snapshots too, and a faulted core's snapshot is its faulting pc. */
Test(tile_pc_snapshot, readable_by_cores_and_shows_faulting_pc)
{
	struct bh_device *dev = t_open();
	struct prog f = { 0 };
	emit(&f, 0);                             /* all-zero word: illegal instruction at 0x2000 */
	struct bh_core_result *r = result_new();
	run_prog(dev, BH_CORE_TRISC2, 0x2000, &f, r);
	cr_assert_eq(r->status, BH_RUN_FAULTED);

	struct prog p = { 0 };
	emit_li(&p, T0, PC_SNAPSHOT + 16);
	emit(&p, lw(A0, 0, T0));
	emit_exit(&p);
	run_exits(dev, BH_CORE_NCRISC, 0x1000, &p, 0x2000);
	free(r);
	bh_device_close(dev);
}

/* --------------------------------------------------------------------- host register access */

Test(tile_host, reg_access_errors_for_bad_addresses)
{
	struct bh_device *dev = t_open();
	uint32_t v = 0;
	cr_expect_eq(bh_reg_read(dev, 0, 0x1000, &v), BH_ERR_ARG, "an L1 address is not a register");
	cr_expect_eq(bh_reg_write(dev, 0, 0x0, 1), BH_ERR_ARG);
	cr_expect_eq(bh_reg_read(dev, 0, 0x80000000, &v), BH_ERR_ARG, "unmapped");
	cr_expect_eq(bh_reg_write(dev, 0, 0xFFFFFFFC, 1), BH_ERR_ARG, "unmapped");
	cr_expect_eq(bh_reg_read(dev, 0, SOFT_RESET_0 + 2, &v), BH_ERR_ARG, "misaligned");
	cr_expect_eq(bh_reg_read(dev, 1, SOFT_RESET_0, &v), BH_ERR_ARG, "no tile 1");
	cr_expect_eq(bh_reg_read(NULL, 0, SOFT_RESET_0, &v), BH_ERR_ARG, "no device");
	cr_expect_eq(bh_reg_write(dev, 0, PC_SNAPSHOT, 0), BH_ERR_ARG, "read-only");
	cr_expect_eq(bh_reg_read(dev, 0, LDM, &v), BH_ERR_ARG, "the fast window belongs to the cores");
	cr_expect_eq(bh_reg_read(dev, 0, 0xFFB20300, &v), BH_ERR_ARG, "not modelled");
	cr_expect_eq(bh_reg_read(dev, 0, 0xFFB12300, &v), BH_ERR_ARG, "no register there");
	cr_expect_eq(bh_reg_read(dev, 0, 0xFFEC0000, &v), BH_ERR_ARG, "mailboxes: cores only");
	/* and the ones that work */
	cr_expect_eq(bh_reg_write(dev, 0, TENSIX_CFG + 3 * 4, 0x12345), BH_OK);
	cr_expect_eq(bh_reg_read(dev, 0, TENSIX_CFG + 3 * 4, &v), BH_OK);
	cr_expect_eq(v, 0x12345u);
	cr_expect_eq(bh_reg_read(dev, 0, 0xFFB12068, &v), BH_OK);
	bh_device_close(dev);
}

Test(tile_host, l1_access_errors_for_bad_ranges)
{
	struct bh_device *dev = t_open();
	uint8_t buf[8] = { 0 };
	cr_expect_eq(bh_l1_write(dev, 0, 0x17FFF8, buf, 8), BH_OK);
	cr_expect_eq(bh_l1_write(dev, 0, 0x17FFFC, buf, 8), BH_ERR_ARG);
	cr_expect_eq(bh_l1_read(dev, 0, 0x180000, buf, 1), BH_ERR_ARG);
	cr_expect_eq(bh_l1_read(dev, 0, 0xFFFFFFFF, buf, 2), BH_ERR_ARG);
	cr_expect_eq(bh_l1_read(dev, 1, 0, buf, 1), BH_ERR_ARG);
	bh_device_close(dev);
}

/* The Tensix configuration written by a core is what the host reads, and 16-bit accesses
 * reach the halves of a word. */
Test(tile_host, tensix_config_is_shared_by_cores_and_host)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, T0, TENSIX_CFG + 10 * 4);
	emit_li(&p, T1, 0xBEEF);
	emit(&p, store(W_H, T1, 2, T0));
	emit_li(&p, T1, 0x1234);
	emit(&p, store(W_H, T1, 0, T0));
	emit_exit_with(&p, 0);
	run_exits(dev, BH_CORE_TRISC0, 0x1000, &p, 0);
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, TENSIX_CFG + 10 * 4, &v), BH_OK);
	cr_expect_eq(v, 0xBEEF1234u, "0x%08x", v);
	bh_device_close(dev);
}

/* ------------------------------------------------------------ the decode mechanism */

#include "fabric/mmio.h"
#include "fabric/tile.h"

struct fake_dev {
	const char *name;
	uint32_t last_off, last_val;
	unsigned last_who;
};
static struct fake_dev fake_a = { .name = "a" }, fake_b = { .name = "b" };
static void *fake_tile_seen;

static void *st_fake_a(struct bh_tile *t) { (void)t; return &fake_a; }
static void *st_fake_b(struct bh_tile *t) { (void)t; return &fake_b; }

static bool fake_write(struct bh_access *a, uint32_t val)
{
	if (a->dev == a->tile) {
		fake_tile_seen = a->dev;
		return true;
	}
	struct fake_dev *d = a->dev;
	d->last_off = a->off;
	d->last_val = val;
	d->last_who = a->who;
	return true;
}

Test(tile_decode, each_region_handler_gets_its_own_device_state_or_the_tile)
{
	static const struct bh_region table[] = {
		{ .base = 0xFFB20000u, .size = 0x100, .name = "fake a", .read_mask = 0, .write_mask = BH_REQ_BIT(BH_REQ_HOST),
		  .widths = 16, .write = fake_write, .state = st_fake_a },
		{ .base = 0xFFB20100u, .size = 0x100, .name = "fake b", .read_mask = 0, .write_mask = BH_REQ_BIT(BH_REQ_HOST),
		  .widths = 16, .write = fake_write, .state = st_fake_b },
		{ .base = 0xFFB20200u, .size = 0x100, .name = "fake tile", .read_mask = 0, .write_mask = BH_REQ_BIT(BH_REQ_HOST),
		  .widths = 16, .write = fake_write },
	};
	static struct bh_tile tile;   /* only the decode links: no device behind these regions */
	tile.regions = table;
	tile.nregions = 3;
	struct bh_fault f;
	uint32_t v = 0x11;
	cr_assert_eq(bh_mmio_access(&tile, BH_REQ_HOST, 0xFFB20008u, 4, true, &v, &f, NULL, 0), BH_ACC_OK);
	v = 0x22;
	cr_assert_eq(bh_mmio_access(&tile, BH_REQ_HOST, 0xFFB20140u, 4, true, &v, &f, NULL, 0), BH_ACC_OK);
	v = 0x33;
	cr_assert_eq(bh_mmio_access(&tile, BH_REQ_HOST, 0xFFB20200u, 4, true, &v, &f, NULL, 0), BH_ACC_OK);
	cr_expect_eq(fake_a.last_off, 0x08);
	cr_expect_eq(fake_a.last_val, 0x11);
	cr_expect_eq(fake_a.last_who, BH_REQ_HOST);
	cr_expect_eq(fake_b.last_off, 0x40);
	cr_expect_eq(fake_b.last_val, 0x22);
	cr_expect_eq(fake_tile_seen, &tile, "a region without state serves the tile itself");
	/* The table is the tile's: outside it the same address is unmapped, the rights are its own. */
	cr_expect_eq(bh_mmio_access(&tile, BH_REQ_HOST, 0xFFB20300u, 4, true, &v, &f, NULL, 0), BH_ACC_FAULT);
	cr_expect_eq(f.kind, BH_FAULT_UNMAPPED);
	cr_expect_eq(bh_mmio_access(&tile, BH_REQ_HOST, 0xFFB20000u, 4, false, &v, &f, NULL, 0), BH_ACC_FAULT);
	cr_expect_eq(f.kind, BH_FAULT_ACCESS);
	cr_expect_eq(bh_mmio_region(&tile, 0xFFB201FCu), &table[1]);
}

/* The page index (bh_mmio_index_build) finds what the scan of the table finds, at every word of
 * the indexed range, pages shared by several regions (PIC and pc snapshots) and holes included. */
extern const struct bh_region bh_worker_regions[];
extern const unsigned bh_worker_nregions;

Test(tile_decode, the_page_index_finds_the_region_the_scan_finds_everywhere)
{
	static uint8_t index[BH_MMIO_INDEX_PAGES];
	static struct bh_tile scan, indexed;
	bh_mmio_index_build(bh_worker_regions, bh_worker_nregions, index);
	scan.regions = indexed.regions = bh_worker_regions;
	scan.nregions = indexed.nregions = bh_worker_nregions;
	indexed.region_index = index;
	unsigned found = 0, shared = 0;
	for (uint64_t a = BH_MMIO_INDEX_BASE; a <= 0xFFFFFFFCu; a += 4) {
		const struct bh_region *want = bh_mmio_region(&scan, (uint32_t)a);
		cr_assert_eq(bh_mmio_region(&indexed, (uint32_t)a), want, "0x%08x", (unsigned)a);
		found += want != NULL;
	}
	for (uint32_t p = 0; p < BH_MMIO_INDEX_PAGES; p++)
		shared += index[p] == BH_MMIO_INDEX_MANY;
	cr_expect_gt(found, 0);
	cr_expect_eq(shared, 1, "only the page of the PIC and the pc snapshots holds two regions");
	cr_expect_eq(index[(0xFFB20000u - BH_MMIO_INDEX_BASE) >> 12], 8, "NoC0 NIU is region 7 of the table");
}
