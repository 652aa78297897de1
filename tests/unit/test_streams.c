/* NoC overlay stream registers (reference/sync.md sections 1-2): the six modelled registers
 * with exact values (17- and 24-bit masking, reg 10 loading reg 297, reg 270 accumulating
 * value >> 6 modulo 2^17, the negative "clear" write), the faults of everything else, access
 * from every core kind and from the host, register names in reports, the CB protocol checks
 * (legal and wrapping sequences pass; a pop beyond what was received and an overfilling push
 * stop the core with a report naming it, its pc and the CB), and exact totals when many cores
 * and host threads update one completion counter at once. Meant to be clean under TSan. */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/bhemu.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "host/device.h"
#include "sync/streams.h"
#include "testlib.h"

#define REG_REMOTE_SRC 4u
#define REG_ACKED 8u          /* REMOTE_DEST_BUF_START */
#define REG_RECEIVED 10u      /* REMOTE_DEST_BUF_SIZE */
#define REG_SYNC 31u          /* PHASE_AUTO_CFG_PTR */
#define REG_AVAIL_UPDATE 270u
#define REG_AVAIL 297u

#define SADDR(s, r) BH_STREAM_ADDR(s, r)
#define CB_STREAM(cb) (8u + (cb))     /* p100a layout, the default */
#define PLAIN_STREAM 2u               /* no CB, no dispatch role */
#define AT 0x1000u                    /* where single-core programs go */

static struct bh_tile *tile0(struct bh_device *dev)
{
	return dev->tiles[0];
}

static uint32_t host_rd(struct bh_device *dev, unsigned s, unsigned r)
{
	return bh_stream_read(tile0(dev), s, r);
}

static void host_wr(struct bh_device *dev, unsigned s, unsigned r, uint32_t v)
{
	cr_assert(bh_stream_write(tile0(dev), s, r, v), "host write of 0x%x to stream %u reg %u faulted", v, s, r);
}

/* A host access expected to fault; returns the fault. */
static struct bh_fault host_fault(struct bh_device *dev, bool store, unsigned s, unsigned r, uint32_t v)
{
	struct bh_fault f = { 0 };
	cr_assert(!bh_stream_access(tile0(dev), BH_REQ_HOST, s, r, store, &v, &f),
		      "host %s of stream %u reg %u did not fault", store ? "write" : "read", s, r);
	return f;
}

/* li t0, addr; li t1, value; sw t1, 0(t0). Returns the byte offset of the sw. */
static int32_t emit_sw_to(struct prog *p, uint32_t addr, uint32_t value)
{
	emit_li(p, T0, addr);
	emit_li(p, T1, value);
	int32_t at = prog_here(p);
	emit(p, sw(T1, 0, T0));
	return at;
}

/* lw a0, addr. */
static void emit_lw_from(struct prog *p, uint32_t addr)
{
	emit_li(p, T0, addr);
	emit(p, lw(A0, 0, T0));
}

/* The data-movement cores' cb_push_back / cb_pop_front: reg <- reg + n (read-modify-write). */
static void emit_rmw_add(struct prog *p, uint32_t addr, int32_t n)
{
	emit_li(p, T0, addr);
	emit(p, lw(T1, 0, T0));
	emit(p, addi(T1, T1, n));
	emit(p, sw(T1, 0, T0));
}

/* `core` stores value to stream s reg r, loads it back and exits with it. */
static uint32_t core_store_load(struct bh_device *dev, enum bh_core_id core, unsigned s, unsigned r, uint32_t value)
{
	struct prog p = { 0 };
	emit_sw_to(&p, SADDR(s, r), value);
	emit_lw_from(&p, SADDR(s, r));
	emit_exit(&p);
	return run_to_exit(dev, core, AT, &p);
}

/* Run p on core at AT and expect a fault of `kind` at AT + at whose report holds phrase. */
static struct bh_core_result *run_expect_fault(struct bh_device *dev, enum bh_core_id core, const struct prog *p,
					       int32_t at, const char *kind, const char *phrase)
{
	struct bh_core_result *res = result_new();
	run_prog(dev, core, AT, p, res);
	expect_fault(res, core, AT + (uint32_t)at, kind, phrase);
	return res;
}

/* ------------------------------------------------------------------------------- registers */

Test(stream_regs, reg4_remote_src_keeps_the_low_24_bits)
{
	struct bh_device *dev = t_open();
	cr_expect_eq(core_store_load(dev, BH_CORE_BRISC, PLAIN_STREAM, REG_REMOTE_SRC, 0xFFFFFFFFu), 0x00FFFFFFu);
	cr_expect_eq(core_store_load(dev, BH_CORE_BRISC, PLAIN_STREAM, REG_REMOTE_SRC, 0x12345678u), 0x00345678u);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_REMOTE_SRC), 0x00345678u);
	bh_device_close(dev);
}

Test(stream_regs, reg8_is_masked_to_17_bits_and_leaves_reg10_and_reg297_alone)
{
	struct bh_device *dev = t_open();
	cr_expect_eq(core_store_load(dev, BH_CORE_NCRISC, PLAIN_STREAM, REG_ACKED, 0xFFFFFFFFu), 0x1FFFFu);
	cr_expect_eq(core_store_load(dev, BH_CORE_NCRISC, PLAIN_STREAM, REG_ACKED, 0x00054321u), 0x14321u);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_RECEIVED), 0u);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_AVAIL), 0u);
	bh_device_close(dev);
}

Test(stream_regs, reg10_write_is_masked_to_17_bits_and_loads_reg297_with_the_same_value)
{
	struct bh_device *dev = t_open();
	cr_expect_eq(core_store_load(dev, BH_CORE_BRISC, PLAIN_STREAM, REG_RECEIVED, 0xFFFFABCDu), 0x1ABCDu);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_AVAIL), 0x1ABCDu);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_ACKED), 0u);
	cr_expect_eq(core_store_load(dev, BH_CORE_BRISC, PLAIN_STREAM, REG_RECEIVED, 0x00020005u), 0x5u);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_AVAIL), 0x5u);
	bh_device_close(dev);
}

Test(stream_regs, reg10_write_replaces_what_reg270_accumulated_in_reg297)
{
	struct bh_device *dev = t_open();
	host_wr(dev, PLAIN_STREAM, REG_AVAIL_UPDATE, 40u << 6);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_AVAIL), 40u);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_RECEIVED), 0u, "reg 270 must not touch reg 10");
	host_wr(dev, PLAIN_STREAM, REG_RECEIVED, 7);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_AVAIL), 7u);
	host_wr(dev, PLAIN_STREAM, REG_AVAIL_UPDATE, 2u << 6);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_AVAIL), 9u);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_RECEIVED), 7u);
	bh_device_close(dev);
}

Test(stream_regs, reg31_sync_register_is_a_plain_17_bit_cell)
{
	struct bh_device *dev = t_open();
	cr_expect_eq(core_store_load(dev, BH_CORE_BRISC, 0, REG_SYNC, 0xFFFFFFFFu), 0x1FFFFu);
	cr_expect_eq(core_store_load(dev, BH_CORE_BRISC, 0, REG_SYNC, 0x0003A5A5u), 0x1A5A5u);
	cr_expect_eq(core_store_load(dev, BH_CORE_TRISC1, 0, REG_SYNC, 0x1234u), 0x1234u);
	bh_device_close(dev);
}

/* Wormhole AsGeneralUse.md: CURR_PHASE_BASE (reg 28) is added to a CURR_PHASE (reg 29) write
 * and subtracted from a read, both 20 bits: with base 100 a written 7 reads 7; moving the base
 * to 4 makes it read 103; with base 5, a written 0xFFFFE wraps and still reads 0xFFFFE. */
Test(stream_regs, reg28_phase_base_is_added_to_reg29_writes_and_subtracted_from_reads)
{
	struct bh_device *dev = t_open();
	cr_expect_eq(core_store_load(dev, BH_CORE_BRISC, PLAIN_STREAM, 28, 0xFFFFFFFFu), 0xFFFFFu);
	host_wr(dev, PLAIN_STREAM, 28, 100);
	cr_expect_eq(core_store_load(dev, BH_CORE_TRISC0, PLAIN_STREAM, 29, 7), 7u);
	host_wr(dev, PLAIN_STREAM, 28, 4);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, 29), 103u);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, 28), 4u);
	host_wr(dev, PLAIN_STREAM, 28, 5);
	cr_expect_eq(core_store_load(dev, BH_CORE_NCRISC, PLAIN_STREAM, 29, 0xFFFFE), 0xFFFFEu);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM + 1, 29), 0u, "another stream's phase is untouched");
	bh_device_close(dev);
}

Test(stream_regs, reg270_write_adds_value_shifted_right_by_6_to_reg297)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_sw_to(&p, SADDR(48, REG_AVAIL_UPDATE), 5u << 6);
	emit_sw_to(&p, SADDR(48, REG_AVAIL_UPDATE), 7u << 6);
	emit_sw_to(&p, SADDR(48, REG_AVAIL_UPDATE), 0x40);      /* fast dispatch's completion write */
	emit_lw_from(&p, SADDR(48, REG_AVAIL));
	emit_exit(&p);
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, AT, &p), 13u);
	cr_expect_eq(host_rd(dev, 48, REG_RECEIVED), 0u);
	cr_expect_eq(host_rd(dev, 49, REG_AVAIL), 0u, "other streams are untouched");
	bh_device_close(dev);
}

Test(stream_regs, reg270_negative_clear_write_subtracts_modulo_2_pow_17)
{
	struct bh_device *dev = t_open();
	host_wr(dev, 49, REG_AVAIL_UPDATE, 12u << 6);
	host_wr(dev, 49, REG_AVAIL_UPDATE, (uint32_t)(-12) << 6);   /* dispatcher's CLEAR_STREAM */
	cr_expect_eq(host_rd(dev, 49, REG_AVAIL), 0u);
	host_wr(dev, 49, REG_AVAIL_UPDATE, (uint32_t)(-1) << 6);
	cr_expect_eq(host_rd(dev, 49, REG_AVAIL), 0x1FFFFu);
	host_wr(dev, 49, REG_AVAIL_UPDATE, (uint32_t)(-0x1FFFF) << 6);
	cr_expect_eq(host_rd(dev, 49, REG_AVAIL), 0u);
	bh_device_close(dev);
}

Test(stream_regs, reg270_accumulation_wraps_at_2_pow_17)
{
	struct bh_device *dev = t_open();
	host_wr(dev, 50, REG_RECEIVED, 0x1FFFE);
	host_wr(dev, 50, REG_AVAIL_UPDATE, 3u << 6);
	cr_expect_eq(host_rd(dev, 50, REG_AVAIL), 1u);
	/* The largest increment, 2^26 - 1, is -1 modulo 2^17 (logical shift, not arithmetic). */
	host_wr(dev, 50, REG_AVAIL_UPDATE, 0xFFFFFFC0u);
	cr_expect_eq(host_rd(dev, 50, REG_AVAIL), 0u);
	host_wr(dev, 50, REG_AVAIL_UPDATE, 0x80000000u);                 /* 2^25: a multiple of 2^17 */
	cr_expect_eq(host_rd(dev, 50, REG_AVAIL), 0u);
	host_wr(dev, 50, REG_AVAIL_UPDATE, (0x20000u + 9u) << 6);        /* 2^17 + 9 */
	cr_expect_eq(host_rd(dev, 50, REG_AVAIL), 9u);
	cr_expect_eq(host_rd(dev, 50, REG_RECEIVED), 0x1FFFEu);
	bh_device_close(dev);
}

Test(stream_regs, reg270_with_nonzero_low_6_bits_faults_naming_the_register_and_changes_nothing)
{
	struct bh_device *dev = t_open();
	host_wr(dev, 48, REG_AVAIL_UPDATE, 3u << 6);
	struct prog p = { 0 };
	int32_t at = emit_sw_to(&p, SADDR(48, REG_AVAIL_UPDATE), (1u << 6) | 5u);
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_expect_fault(dev, BH_CORE_NCRISC, &p, at, "not modelled",
						      "multicast sub-counter 5");
	expect_in_report(res, "REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE");
	expect_in_report(res, "stream 48 reg 270 (dispatch completion counter 0");
	expect_in_report(res, "0xffb70438");
	cr_expect_eq(host_rd(dev, 48, REG_AVAIL), 3u);
	struct bh_fault f = host_fault(dev, true, 48, REG_AVAIL_UPDATE, 0x3F);
	cr_expect_eq(f.kind, BH_FAULT_NOT_MODELLED);
	cr_expect_eq(host_rd(dev, 48, REG_AVAIL), 3u);
	free(res);
	bh_device_close(dev);
}

Test(stream_regs, reg270_is_write_only)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, T0, SADDR(48, REG_AVAIL_UPDATE));
	int32_t at = prog_here(&p);
	emit(&p, lw(A0, 0, T0));
	emit_exit(&p);
	struct bh_core_result *res = run_expect_fault(dev, BH_CORE_BRISC, &p, at, "access not allowed", "write-only");
	expect_in_report(res, "REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE (reg 270)");
	free(res);
	bh_device_close(dev);
}

Test(stream_regs, reg297_is_read_only)
{
	struct bh_device *dev = t_open();
	host_wr(dev, 51, REG_AVAIL_UPDATE, 4u << 6);
	struct prog p = { 0 };
	int32_t at = emit_sw_to(&p, SADDR(51, REG_AVAIL), 99);
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_expect_fault(dev, BH_CORE_TRISC0, &p, at, "access not allowed", "read-only");
	expect_in_report(res, "REMOTE_DEST_BUF_SPACE_AVAILABLE (reg 297)");
	expect_in_report(res, "stream 51 reg 297 (dispatch completion counter 3, REMOTE_DEST_BUF_SPACE_AVAILABLE)");
	cr_expect_eq(host_rd(dev, 51, REG_AVAIL), 4u);
	cr_expect_eq(host_fault(dev, true, 51, REG_AVAIL, 1).kind, BH_FAULT_ACCESS);
	free(res);
	bh_device_close(dev);
}

Test(stream_regs, unmodelled_registers_fault_naming_stream_register_and_address)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, T0, SADDR(5, 0));
	int32_t at = prog_here(&p);
	emit(&p, lw(A0, 0, T0));
	emit_exit(&p);
	struct bh_core_result *res = run_expect_fault(dev, BH_CORE_BRISC, &p, at, "not modelled",
						      "in stream 5 register 0 (0xffb45000)");
	expect_in_report(res, "register 0 is not modelled: bhemu models stream registers 4, 8, 10, 28, 29, 31, 270, 297 only");
	free(res);

	static const struct { unsigned s, r; const char *name; } cases[] = {
		{ 63, 1023, "stream 63 register 1023 (0xffb7fffc)" },
		{ 8, 9, "stream 8 register 9 (0xffb48024)" },
		{ 8, 11, "stream 8 register 11 (0xffb4802c)" },
		{ 48, 269, "stream 48 register 269 (0xffb70434)" },
		{ 48, 298, "stream 48 register 298 (0xffb704a8)" },
		{ 0, 30, "stream 0 register 30 (0xffb40078)" },
	};
	for (unsigned k = 0; k < N(cases); k++)
		for (int store = 0; store < 2; store++) {
			struct bh_fault f = host_fault(dev, store, cases[k].s, cases[k].r, 1);
			cr_expect_eq(f.kind, BH_FAULT_NOT_MODELLED, "%s", cases[k].name);
			cr_expect_str_eq(f.region, cases[k].name);
			cr_expect(strstr(f.detail, "is not modelled") != NULL, "detail: %s", f.detail);
		}
	bh_device_close(dev);
}

Test(stream_regs, byte_and_halfword_accesses_are_refused)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_li(&p, T0, SADDR(PLAIN_STREAM, REG_REMOTE_SRC));
	int32_t at = prog_here(&p);
	emit(&p, store(W_H, T0, 0, T0));
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_expect_fault(dev, BH_CORE_BRISC, &p, at, "access not allowed",
						      "32-bit accesses only");
	free(res);
	cr_expect_eq(host_rd(dev, PLAIN_STREAM, REG_REMOTE_SRC), 0u);
	bh_device_close(dev);
}

/* -------------------------------------------------------------------------------- requesters */

Test(stream_access, every_core_kind_reads_and_writes_stream_registers)
{
	struct bh_device *dev = t_open();
	for (unsigned c = 0; c < 5; c++) {
		struct prog p = { 0 };
		emit_sw_to(&p, SADDR(16 + c, REG_REMOTE_SRC), 0xC0DE00u | c);
		emit_sw_to(&p, SADDR(48, REG_AVAIL_UPDATE), 1u << 6);
		emit_lw_from(&p, SADDR(48, REG_AVAIL));
		emit(&p, addi(A1, A0, 0));
		emit_lw_from(&p, SADDR(16 + c, REG_REMOTE_SRC));
		emit(&p, add(A0, A0, A1));
		emit_exit(&p);
		uint32_t got = run_to_exit(dev, all_cores[c], AT, &p);
		cr_expect_eq(got, (0xC0DE00u | c) + c + 1, "%s: 0x%x", core_names[c], got);
	}
	for (unsigned c = 0; c < 5; c++)
		cr_expect_eq(host_rd(dev, 16 + c, REG_REMOTE_SRC), 0xC0DE00u | c);
	cr_expect_eq(host_rd(dev, 48, REG_AVAIL), 5u);
	bh_device_close(dev);
}

/* Core loads and stores of stream registers take the device lane (cores/core.c) where the decode
 * would admit them: each gets the decode's verdict word for word (the value a load returns, the
 * fault a refused access raises, at its pc), whatever its width, alignment, register or core. */
Test(stream_access, core_accesses_get_the_decodes_verdict_word_for_word)
{
	static const struct { enum bh_core_id core; bool store; uint32_t width, addr; } cases[] = {
		{ BH_CORE_TRISC0, false, W_W, SADDR(CB_STREAM(3), REG_RECEIVED) },
		{ BH_CORE_NCRISC, false, W_W, SADDR(CB_STREAM(3), REG_ACKED) },
		{ BH_CORE_BRISC, false, W_W, SADDR(48, REG_AVAIL) },
		{ BH_CORE_TRISC1, false, W_W, SADDR(PLAIN_STREAM, REG_SYNC) },
		{ BH_CORE_BRISC, false, W_W, SADDR(48, REG_AVAIL_UPDATE) },   /* write-only */
		{ BH_CORE_TRISC2, false, W_W, SADDR(8, 9) },                  /* not modelled */
		{ BH_CORE_BRISC, false, W_H, SADDR(CB_STREAM(3), REG_RECEIVED) },
		{ BH_CORE_NCRISC, false, W_B, SADDR(CB_STREAM(3), REG_ACKED) + 1 },
		{ BH_CORE_TRISC0, false, W_W, SADDR(CB_STREAM(3), REG_RECEIVED) + 2 },   /* misaligned */
		{ BH_CORE_TRISC0, true, W_W, SADDR(51, REG_AVAIL) },          /* read-only */
		{ BH_CORE_BRISC, true, W_W, SADDR(8, 11) },                   /* not modelled */
		{ BH_CORE_TRISC2, true, W_H, SADDR(CB_STREAM(3), REG_RECEIVED) },
		{ BH_CORE_NCRISC, true, W_B, SADDR(CB_STREAM(3), REG_ACKED) + 3 },
		{ BH_CORE_TRISC1, true, W_W, SADDR(CB_STREAM(3), REG_ACKED) + 2 },       /* misaligned */
	};
	static const unsigned bytes[] = { [W_B] = 1, [W_H] = 2, [W_W] = 4 };
	for (size_t k = 0; k < N(cases); k++) {
		struct bh_device *dev = t_open();
		host_wr(dev, CB_STREAM(3), REG_RECEIVED, 0x15);
		host_wr(dev, CB_STREAM(3), REG_ACKED, 0x11);
		host_wr(dev, 48, REG_AVAIL_UPDATE, 7u << 6);
		host_wr(dev, PLAIN_STREAM, REG_SYNC, 0x1234);
		enum bh_core_id core = cases[k].core;
		uint32_t v = 0x21;
		char wait[128];
		struct bh_fault f = { 0 };
		int want = bh_mmio_access(tile0(dev), (unsigned)core, cases[k].addr, bytes[cases[k].width], cases[k].store,
					  &v, &f, wait, sizeof wait);
		bh_device_close(dev);
		dev = t_open();
		host_wr(dev, CB_STREAM(3), REG_RECEIVED, 0x15);
		host_wr(dev, CB_STREAM(3), REG_ACKED, 0x11);
		host_wr(dev, 48, REG_AVAIL_UPDATE, 7u << 6);
		host_wr(dev, PLAIN_STREAM, REG_SYNC, 0x1234);
		struct prog p = { 0 };
		emit_li(&p, T0, cases[k].addr);
		emit_li(&p, T1, 0x21);
		int32_t at = prog_here(&p);
		emit(&p, cases[k].store ? store(cases[k].width, T1, 0, T0) : load(cases[k].width, A0, 0, T0));
		if (cases[k].store)
			emit_li(&p, A0, 0);
		emit_exit(&p);
		struct bh_core_result *r = result_new();
		run_prog(dev, core, AT, &p, r);
		if (want == BH_ACC_OK) {
			cr_expect_eq(r->status, BH_RUN_EXITED, "case %zu: %s", k, r->report);
			cr_expect_eq((uint32_t)r->exit_status, cases[k].store ? 0 : v, "case %zu: 0x%x, the decode 0x%x", k,
				     (uint32_t)r->exit_status, v);
		} else {
			cr_assert_eq(want, BH_ACC_FAULT, "case %zu", k);
			expect_fault(r, core, AT + (uint32_t)at, bh_fault_kind_name(f.kind), f.detail);
		}
		free(r);
		bh_device_close(dev);
	}
}

Test(stream_access, host_register_access_goes_through_the_same_handlers)
{
	struct bh_device *dev = t_open();
	uint32_t v = 0;
	cr_assert_eq(bh_reg_write(dev, 0, SADDR(60, REG_RECEIVED), 0xFFFFFFFFu), BH_OK);
	cr_assert_eq(bh_reg_read(dev, 0, SADDR(60, REG_AVAIL), &v), BH_OK);
	cr_expect_eq(v, 0x1FFFFu);
	cr_expect_eq(bh_reg_write(dev, 0, SADDR(60, REG_AVAIL), 1), BH_ERR_ARG, "reg 297 is read-only for the host too");
	cr_expect_eq(bh_reg_read(dev, 0, SADDR(60, REG_AVAIL_UPDATE), &v), BH_ERR_ARG);
	cr_expect_eq(bh_reg_read(dev, 0, SADDR(60, 1), &v), BH_ERR_ARG);
	/* What the host wrote, a core reads, and the other way round. */
	host_wr(dev, 61, REG_REMOTE_SRC, 0xABCDEF);
	struct prog p = { 0 };
	emit_lw_from(&p, SADDR(61, REG_REMOTE_SRC));
	emit(&p, addi(A1, A0, 1));
	emit_li(&p, T0, SADDR(61, REG_SYNC));
	emit(&p, sw(A1, 0, T0));
	emit_exit(&p);
	cr_expect_eq(run_to_exit(dev, BH_CORE_TRISC2, AT, &p), 0xABCDEFu);
	cr_expect_eq(host_rd(dev, 61, REG_SYNC), 0xABCDF0u & 0x1FFFF);
	struct bh_fault f = host_fault(dev, false, 64, 0, 0);
	cr_expect_eq(f.kind, BH_FAULT_UNMAPPED);
	f = host_fault(dev, false, 0, 1024, 0);
	cr_expect_eq(f.kind, BH_FAULT_UNMAPPED);
	bh_device_close(dev);
}

Test(stream_access, describe_names_cb_counters_and_dispatch_counters)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	char buf[128];
	cr_expect_str_eq(bh_stream_describe(t, SADDR(8, 10), buf, sizeof buf), "stream 8 reg 10 (CB0 tiles_received)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(9, 8), buf, sizeof buf), "stream 9 reg 8 (CB1 tiles_acked)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(39, 10), buf, sizeof buf), "stream 39 reg 10 (CB31 tiles_received)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(8, 4), buf, sizeof buf), "stream 8 reg 4 (CB0, REMOTE_SRC)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(40, 10), buf, sizeof buf), "stream 40 reg 10 (REMOTE_DEST_BUF_SIZE)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(7, 8), buf, sizeof buf), "stream 7 reg 8 (REMOTE_DEST_BUF_START)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(48, 270), buf, sizeof buf),
			 "stream 48 reg 270 (dispatch completion counter 0, REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(55, 297), buf, sizeof buf),
			 "stream 55 reg 297 (dispatch completion counter 7, REMOTE_DEST_BUF_SPACE_AVAILABLE)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(56, 297), buf, sizeof buf),
			 "stream 56 reg 297 (REMOTE_DEST_BUF_SPACE_AVAILABLE)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(3, 5), buf, sizeof buf), "stream 3 reg 5 (not modelled)");
	cr_expect_str_eq(bh_stream_describe(t, 0xFFB80000u, buf, sizeof buf), "0xffb80000 (not a stream register)");
	/* Newer tt-metal: CB k on stream k, 64 CBs; 48..55 keep their dispatch role for 270/297. */
	cr_assert(bh_stream_set_cb_layout(t, 0, 64));
	cr_expect_str_eq(bh_stream_describe(t, SADDR(8, 10), buf, sizeof buf), "stream 8 reg 10 (CB8 tiles_received)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(0, 8), buf, sizeof buf), "stream 0 reg 8 (CB0 tiles_acked)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(50, 10), buf, sizeof buf), "stream 50 reg 10 (CB50 tiles_received)");
	cr_expect_str_eq(bh_stream_describe(t, SADDR(50, 270), buf, sizeof buf),
			 "stream 50 reg 270 (dispatch completion counter 2, REMOTE_DEST_BUF_SPACE_AVAILABLE_UPDATE)");
	bh_device_close(dev);
}

Test(stream_access, cb_layout_and_page_counts_are_range_checked)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	cr_expect(!bh_stream_set_cb_layout(t, 8, 57));
	cr_expect(!bh_stream_set_cb_layout(t, 64, 0));
	cr_expect(bh_stream_set_cb_layout(t, 8, 56));
	cr_expect(bh_stream_set_cb_pages(t, 63, 65535));
	cr_expect(!bh_stream_set_cb_pages(t, 64, 4));
	cr_expect(!bh_stream_set_cb_pages(t, 0, 65536));
	bh_device_close(dev);
}

/* ----------------------------------------------------------------------------- CB protocol */

/* A data-movement producer and consumer on CB 0 (4 pages): push 2, pop 1, push 3 (full),
 * pop 4, push 4, pop 4: all legal. Exits with received << 16 | acked. */
Test(cb_protocol, legal_push_pop_sequence_on_data_movement_cores_passes)
{
	struct bh_device *dev = t_open();
	cr_assert(bh_stream_set_cb_pages(tile0(dev), 0, 4));
	static const int32_t steps[] = { +2, -1, +3, -4, +4, -4 };
	struct prog p = { 0 };
	for (unsigned k = 0; k < N(steps); k++)
		emit_rmw_add(&p, SADDR(CB_STREAM(0), steps[k] > 0 ? REG_RECEIVED : REG_ACKED),
			     steps[k] > 0 ? steps[k] : -steps[k]);
	emit_lw_from(&p, SADDR(CB_STREAM(0), REG_RECEIVED));
	emit(&p, i_op(1, A0, A0, 16));                 /* slli a0, a0, 16 */
	emit(&p, addi(A1, A0, 0));
	emit_lw_from(&p, SADDR(CB_STREAM(0), REG_ACKED));
	emit(&p, or(A0, A0, A1));
	emit_exit(&p);
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, AT, &p), 9u << 16 | 9u);
	bh_device_close(dev);
}

/* Counters are 17-bit registers used as 16-bit counts: a DM core's read-modify-write crosses
 * 0xFFFF into 0x10000+, a TRISC's 16-bit STOREREG value wraps to 0x0000+; both are legal. */
Test(cb_protocol, counters_wrapping_around_16_bits_pass)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	/* Bring CB 3 to received = acked = 0xFFFE with the page count still unknown. */
	host_wr(dev, CB_STREAM(3), REG_RECEIVED, 0xFFFE);
	host_wr(dev, CB_STREAM(3), REG_ACKED, 0xFFFE);
	cr_assert(bh_stream_set_cb_pages(t, 3, 4));

	struct prog p = { 0 };
	emit_rmw_add(&p, SADDR(CB_STREAM(3), REG_RECEIVED), 3);   /* 0x10001 */
	emit_rmw_add(&p, SADDR(CB_STREAM(3), REG_RECEIVED), 1);   /* 0x10002: full */
	emit_rmw_add(&p, SADDR(CB_STREAM(3), REG_ACKED), 4);      /* 0x10002 */
	emit_exit_with(&p, 0);
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, AT, &p), 0u);
	cr_expect_eq(host_rd(dev, CB_STREAM(3), REG_RECEIVED), 0x10002u);
	cr_expect_eq(host_rd(dev, CB_STREAM(3), REG_ACKED), 0x10002u);

	/* Compute cores publish 16-bit shadows: CB 4 from 0xFFFD to 0x0001 in 16 bits. */
	host_wr(dev, CB_STREAM(4), REG_RECEIVED, 0xFFFD);
	host_wr(dev, CB_STREAM(4), REG_ACKED, 0xFFFD);
	cr_assert(bh_stream_set_cb_pages(t, 4, 4));
	struct prog push = { 0 };
	emit_sw_to(&push, SADDR(CB_STREAM(4), REG_RECEIVED), 0xFFFF);   /* +2 */
	emit_sw_to(&push, SADDR(CB_STREAM(4), REG_RECEIVED), 0x0001);   /* +2: full */
	emit_exit_with(&push, 0);
	cr_expect_eq(run_to_exit(dev, BH_CORE_TRISC2, AT, &push), 0u);
	struct prog pop = { 0 };
	emit_load_word(&pop, T2, SADDR(CB_STREAM(4), REG_RECEIVED));   /* the consumer's wait saw 4 pages */
	emit_sw_to(&pop, SADDR(CB_STREAM(4), REG_ACKED), 0x0000 + 0xFFFF);   /* +2 (0xFFFF) */
	emit_sw_to(&pop, SADDR(CB_STREAM(4), REG_ACKED), 0x0001);            /* +2 */
	emit_exit_with(&pop, 0);
	cr_expect_eq(run_to_exit(dev, BH_CORE_TRISC0, AT, &pop), 0u);
	cr_expect_eq(host_rd(dev, CB_STREAM(4), REG_ACKED), 1u);

	/* Mixed widths: a DM producer at 0x1FFFF pushing 1 writes 0 (a counter reset, allowed),
	 * and a TRISC consumer compares 16-bit: 0xFFFF acked against 17-bit received 0x1FFFF. */
	host_wr(dev, CB_STREAM(5), REG_RECEIVED, 0x1FFFF);
	host_wr(dev, CB_STREAM(5), REG_ACKED, 0xFFFE);
	cr_assert(bh_stream_set_cb_pages(t, 5, 2));
	cr_expect(bh_stream_write(t, CB_STREAM(5), REG_ACKED, 0xFFFF));   /* pop 1 of 1 */
	bh_device_close(dev);
}

Test(cb_protocol, pop_beyond_received_faults_naming_core_pc_and_cb)
{
	struct bh_device *dev = t_open();
	cr_assert(bh_stream_set_cb_pages(tile0(dev), 0, 8));
	struct prog p = { 0 };
	emit_sw_to(&p, SADDR(CB_STREAM(0), REG_RECEIVED), 2);
	int32_t at = emit_sw_to(&p, SADDR(CB_STREAM(0), REG_ACKED), 3);
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_expect_fault(dev, BH_CORE_NCRISC, &p, at, "CB protocol violation",
						      "pop of 3 pages from CB 0 but only 2 were received");
	expect_in_report(res, "stream 8 reg 8 (CB0 tiles_acked)");
	expect_in_report(res, "0xffb48020");
	expect_in_report(res, "the CB has 8 pages");
	expect_in_report(res, "ncrisc wrote tiles_acked 0x0 -> 0x3");
	cr_expect_eq(host_rd(dev, CB_STREAM(0), REG_ACKED), 0u, "a faulting pop changes nothing");
	free(res);
	bh_device_close(dev);
}

Test(cb_protocol, pop_beyond_received_with_unknown_page_count_says_so)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_sw_to(&p, SADDR(CB_STREAM(31), REG_RECEIVED), 1);
	int32_t at = emit_sw_to(&p, SADDR(CB_STREAM(31), REG_ACKED), 2);
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_expect_fault(dev, BH_CORE_TRISC0, &p, at, "CB protocol violation",
						      "pop of 2 pages from CB 31 but only 1 was received");
	expect_in_report(res, "page count unknown");
	expect_in_report(res, "stream 39 reg 8 (CB31 tiles_acked)");
	free(res);
	bh_device_close(dev);
}

Test(cb_protocol, push_that_overfills_the_cb_faults_naming_core_pc_and_cb)
{
	struct bh_device *dev = t_open();
	cr_assert(bh_stream_set_cb_pages(tile0(dev), 16, 4));
	struct prog p = { 0 };
	emit_sw_to(&p, SADDR(CB_STREAM(16), REG_RECEIVED), 3);
	int32_t at = emit_sw_to(&p, SADDR(CB_STREAM(16), REG_RECEIVED), 5);
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_expect_fault(
		dev, BH_CORE_TRISC2, &p, at, "CB protocol violation",
		"push of 2 pages into CB 16 overfills it: received-acked would be 5, the CB has 4 pages");
	expect_in_report(res, "stream 24 reg 10 (CB16 tiles_received)");
	expect_in_report(res, "0xffb58028");
	expect_in_report(res, "trisc2 wrote tiles_received 0x3 -> 0x5");
	cr_expect_eq(host_rd(dev, CB_STREAM(16), REG_RECEIVED), 3u, "a faulting push changes nothing");
	cr_expect_eq(host_rd(dev, CB_STREAM(16), REG_AVAIL), 3u);
	free(res);
	bh_device_close(dev);
}

Test(cb_protocol, push_after_pops_may_fill_the_cb_again_but_not_beyond)
{
	struct bh_device *dev = t_open();
	cr_assert(bh_stream_set_cb_pages(tile0(dev), 1, 2));
	struct prog p = { 0 };
	emit_rmw_add(&p, SADDR(CB_STREAM(1), REG_RECEIVED), 2);   /* full */
	emit_rmw_add(&p, SADDR(CB_STREAM(1), REG_ACKED), 1);
	emit_rmw_add(&p, SADDR(CB_STREAM(1), REG_RECEIVED), 1);   /* full again */
	emit_li(&p, T0, SADDR(CB_STREAM(1), REG_RECEIVED));
	emit(&p, lw(T1, 0, T0));
	emit(&p, addi(T1, T1, 1));
	int32_t at = prog_here(&p);
	emit(&p, sw(T1, 0, T0));                                  /* one too many */
	emit_exit_with(&p, 0);
	struct bh_core_result *res = run_expect_fault(
		dev, BH_CORE_BRISC, &p, at, "CB protocol violation",
		"push of 1 page into CB 1 overfills it: received-acked would be 3, the CB has 2 pages");
	free(res);
	bh_device_close(dev);
}

/* received - acked moving backwards by one is a "push" of 65535 pages: never legal. */
Test(cb_protocol, push_that_moves_received_backwards_is_flagged)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	cr_assert(bh_stream_set_cb_pages(t, 2, 4));
	host_wr(dev, CB_STREAM(2), REG_RECEIVED, 2);
	struct bh_fault f = host_fault(dev, true, CB_STREAM(2), REG_RECEIVED, 1);
	cr_expect_eq(f.kind, BH_FAULT_PROTOCOL);
	cr_expect(strstr(f.detail, "push of 65535 pages into CB 2") != NULL, "%s", f.detail);
	cr_expect(strstr(f.detail, "host wrote tiles_received 0x2 -> 0x1") != NULL, "%s", f.detail);
	cr_expect_eq(host_rd(dev, CB_STREAM(2), REG_RECEIVED), 2u);
	bh_device_close(dev);
}

/* TRISC0 zeroes reg 10 then reg 8 of every CB after a run: never a protocol step. */
Test(cb_protocol, counter_resets_to_zero_are_never_flagged)
{
	struct bh_device *dev = t_open();
	cr_assert(bh_stream_set_cb_pages(tile0(dev), 0, 4));
	host_wr(dev, CB_STREAM(0), REG_RECEIVED, 3);
	host_wr(dev, CB_STREAM(0), REG_ACKED, 1);
	struct prog p = { 0 };
	emit_sw_to(&p, SADDR(CB_STREAM(0), REG_RECEIVED), 0);   /* received - acked = 0xFFFF for a moment */
	emit_sw_to(&p, SADDR(CB_STREAM(0), REG_ACKED), 0);
	emit_exit_with(&p, 7);
	cr_expect_eq(run_to_exit(dev, BH_CORE_TRISC0, AT, &p), 7u);
	/* Acked first: a "pop" of 0xFFFF pages, still a reset. */
	host_wr(dev, CB_STREAM(0), REG_RECEIVED, 3);
	host_wr(dev, CB_STREAM(0), REG_ACKED, 1);
	host_wr(dev, CB_STREAM(0), REG_ACKED, 0);
	host_wr(dev, CB_STREAM(0), REG_RECEIVED, 0);
	cr_expect_eq(host_rd(dev, CB_STREAM(0), REG_AVAIL), 0u);
	bh_device_close(dev);
}

Test(cb_protocol, unknown_page_count_skips_the_overfill_check)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_rmw_add(&p, SADDR(CB_STREAM(7), REG_RECEIVED), 1000);
	emit_rmw_add(&p, SADDR(CB_STREAM(7), REG_RECEIVED), 2000);
	emit_rmw_add(&p, SADDR(CB_STREAM(7), REG_ACKED), 1500);
	emit_rmw_add(&p, SADDR(CB_STREAM(7), REG_ACKED), 1500);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_to_exit(dev, BH_CORE_BRISC, AT, &p), 0u);
	cr_expect_eq(host_rd(dev, CB_STREAM(7), REG_RECEIVED), 3000u);
	/* Setting a page count back to 0 makes it unknown again. */
	cr_assert(bh_stream_set_cb_pages(tile0(dev), 7, 4));
	cr_expect(!bh_stream_write(tile0(dev), CB_STREAM(7), REG_RECEIVED, 3005));
	cr_assert(bh_stream_set_cb_pages(tile0(dev), 7, 0));
	cr_expect(bh_stream_write(tile0(dev), CB_STREAM(7), REG_RECEIVED, 3005));
	bh_device_close(dev);
}

Test(cb_protocol, checks_can_be_switched_off_per_tile)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	cr_assert(bh_stream_set_cb_pages(t, 0, 2));
	bh_stream_set_checks(t, false);
	host_wr(dev, CB_STREAM(0), REG_RECEIVED, 5);     /* overfill */
	host_wr(dev, CB_STREAM(0), REG_ACKED, 9);        /* pop beyond received */
	cr_expect_eq(core_store_load(dev, BH_CORE_BRISC, CB_STREAM(0), REG_ACKED, 12), 12u);
	host_wr(dev, CB_STREAM(0), REG_RECEIVED, 0);
	host_wr(dev, CB_STREAM(0), REG_ACKED, 0);
	bh_stream_set_checks(t, true);
	cr_expect_eq(host_fault(dev, true, CB_STREAM(0), REG_ACKED, 1).kind, BH_FAULT_PROTOCOL);
	cr_expect_eq(host_fault(dev, true, CB_STREAM(0), REG_RECEIVED, 3).kind, BH_FAULT_PROTOCOL);
	bh_device_close(dev);
}

Test(cb_protocol, streams_outside_the_cb_layout_are_not_checked)
{
	struct bh_device *dev = t_open();
	struct bh_tile *t = tile0(dev);
	/* p100a: CBs on 8..39. Streams 7 and 40 are plain. */
	host_wr(dev, 7, REG_ACKED, 5);
	host_wr(dev, 40, REG_ACKED, 5);
	/* Newer layout: CB k on stream k, so stream 40 is CB 40 and checked. */
	cr_assert(bh_stream_set_cb_layout(t, 0, 64));
	host_wr(dev, 40, REG_ACKED, 0);
	struct bh_fault f = host_fault(dev, true, 40, REG_ACKED, 1);
	cr_expect_eq(f.kind, BH_FAULT_PROTOCOL);
	cr_expect(strstr(f.detail, "pop of 1 page from CB 40 but only 0 were received") != NULL, "%s", f.detail);
	cr_expect_str_eq(f.region, "stream 40 reg 8 (CB40 tiles_acked)");
	bh_device_close(dev);
}

/* ----------------------------------------------------------------------------- concurrency */

static void start_at(struct bh_device *dev, enum bh_core_id core, uint32_t at, const struct prog *p)
{
	prog_put(dev, 0, at, p);
	cr_assert_eq(bh_core_start(dev, 0, core, at), BH_OK);
}

static void wait_exit(struct bh_device *dev, enum bh_core_id core, uint32_t status)
{
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, core, 120000, r), BH_OK, "%s did not stop", core_names[core]);
	cr_assert_eq(r->status, BH_RUN_EXITED, "%s: status %d\n%s", core_names[core], r->status, r->report);
	cr_expect_eq((uint32_t)r->exit_status, status);
	free(r);
}

/* for (n = count; n; n--) *addr = value; exit(0) */
static void emit_store_loop(struct prog *p, uint32_t addr, uint32_t value, uint32_t count)
{
	emit_li(p, T0, addr);
	emit_li(p, T1, value);
	emit_li(p, A1, count);
	int32_t loop = prog_here(p);
	emit(p, sw(T1, 0, T0));
	emit(p, addi(A1, A1, -1));
	emit_branch(p, BNE, A1, X0, loop);
	emit_exit_with(p, 0);
}

Test(stream_concurrency, five_cores_incrementing_one_completion_counter_give_the_exact_total)
{
	enum { K = 20000 };
	struct bh_device *dev = t_open();
	for (unsigned c = 0; c < 5; c++) {
		struct prog p = { 0 };
		emit_store_loop(&p, SADDR(48, REG_AVAIL_UPDATE), 1u << 6, K);
		start_at(dev, all_cores[c], 0x1000 + 0x400 * c, &p);
	}
	for (unsigned c = 0; c < 5; c++)
		wait_exit(dev, all_cores[c], 0);
	cr_expect_eq(host_rd(dev, 48, REG_AVAIL), 5u * K);
	bh_device_close(dev);
}

struct host_adder {
	struct bh_tile *tile;
	unsigned stream, count;
	uint32_t value;
};

static void *host_adder_run(void *arg)
{
	struct host_adder *h = arg;
	for (unsigned k = 0; k < h->count; k++)
		if (!bh_stream_write(h->tile, h->stream, REG_AVAIL_UPDATE, h->value))
			return (void *)1;
	return NULL;
}

/* Increments and "clear" decrements from cores and host (NoC-side) threads, and a reg 10 load
 * of a fixed value racing with them on another stream that nobody increments. */
Test(stream_concurrency, cores_and_host_threads_mixing_increments_and_decrements_give_the_exact_total)
{
	enum { K = 10000 };
	struct bh_device *dev = t_open();
	static const uint32_t adds[5] = { 3u << 6, 3u << 6, 3u << 6, (uint32_t)-1 << 6, (uint32_t)-1 << 6 };
	for (unsigned c = 0; c < 5; c++) {
		struct prog p = { 0 };
		emit_store_loop(&p, SADDR(55, REG_AVAIL_UPDATE), adds[c], K);
		start_at(dev, all_cores[c], 0x1000 + 0x400 * c, &p);
	}
	struct host_adder h[2] = {
		{ tile0(dev), 55, K, 2u << 6 },
		{ tile0(dev), 55, K, (uint32_t)-2 << 6 },
	};
	pthread_t th[2];
	for (unsigned k = 0; k < 2; k++)
		cr_assert_eq(pthread_create(&th[k], NULL, host_adder_run, &h[k]), 0);
	for (unsigned k = 0; k < 2; k++) {
		void *ret;
		pthread_join(th[k], &ret);
		cr_expect_null(ret, "host thread %u: a reg 270 write faulted", k);
	}
	for (unsigned c = 0; c < 5; c++)
		wait_exit(dev, all_cores[c], 0);
	cr_expect_eq(host_rd(dev, 55, REG_AVAIL), (9u * K - 2u * K) & 0x1FFFF);
	cr_expect_eq(host_rd(dev, 55, REG_RECEIVED), 0u);
	bh_device_close(dev);
}

/* A reg 10 write racing with reg 270 increments: the increments that land after the load are
 * all kept (none lost between the reg 10 and the reg 297 half of the write). */
Test(stream_concurrency, reg10_load_racing_with_reg270_increments_loses_none_of_the_later_ones)
{
	enum { K = 20000 };
	struct bh_device *dev = t_open();
	/* BRISC: reg 10 <- 0x100 (297 = 0x100), then signals; NCRISC, TRISC0..2: wait for the
	 * signal, then add 1 K times each. */
	struct prog b = { 0 };
	emit_sw_to(&b, SADDR(52, REG_RECEIVED), 0x100);
	emit_store_word(&b, 0x8000, 1);
	emit_exit_with(&b, 0);
	for (unsigned c = 1; c < 5; c++) {
		struct prog p = { 0 };
		emit_wait_nonzero(&p, 0x8000, A2);
		emit_store_loop(&p, SADDR(52, REG_AVAIL_UPDATE), 1u << 6, K);
		start_at(dev, all_cores[c], 0x1000 + 0x400 * c, &p);
	}
	start_at(dev, BH_CORE_BRISC, 0x1000, &b);
	for (unsigned c = 0; c < 5; c++)
		wait_exit(dev, all_cores[c], 0);
	cr_expect_eq(host_rd(dev, 52, REG_AVAIL), 0x100u + 4u * K);
	cr_expect_eq(host_rd(dev, 52, REG_RECEIVED), 0x100u);
	bh_device_close(dev);
}

/* cb_reserve_back / cb_push_back on BRISC and cb_wait_front / cb_pop_front on NCRISC move
 * 10000 pages through a 4-page CB with the checks on: no false positive, exact counts. */
Test(stream_concurrency, producer_and_consumer_cores_stream_pages_through_a_checked_cb)
{
	enum { PAGES = 10000, CB_PAGES = 4 };
	struct bh_device *dev = t_open();
	cr_assert(bh_stream_set_cb_pages(tile0(dev), 0, CB_PAGES));
	uint32_t rcv = SADDR(CB_STREAM(0), REG_RECEIVED), ack = SADDR(CB_STREAM(0), REG_ACKED);

	struct prog prod = { 0 };
	emit_li(&prod, S0, rcv);
	emit_li(&prod, S1, ack);
	emit_li(&prod, A1, PAGES);
	emit_li(&prod, A2, CB_PAGES);
	int32_t loop = prog_here(&prod);
	emit(&prod, lw(T1, 0, S0));                      /* received */
	int32_t full = prog_here(&prod);
	emit(&prod, lw(T2, 0, S1));                      /* acked */
	emit(&prod, sub(A3, T1, T2));
	emit(&prod, i_op(1, A3, A3, 16));                /* (u16)(received - acked) */
	emit(&prod, i_op(5, A3, A3, 16));
	emit_branch(&prod, BGEU, A3, A2, full);          /* no free page yet */
	emit(&prod, addi(T1, T1, 1));
	emit(&prod, sw(T1, 0, S0));                      /* push 1 */
	emit(&prod, addi(A1, A1, -1));
	emit_branch(&prod, BNE, A1, X0, loop);
	emit_exit_with(&prod, 0);

	struct prog cons = { 0 };
	emit_li(&cons, S0, rcv);
	emit_li(&cons, S1, ack);
	emit_li(&cons, A1, PAGES);
	loop = prog_here(&cons);
	emit(&cons, lw(T2, 0, S1));                      /* acked */
	int32_t empty = prog_here(&cons);
	emit(&cons, lw(T1, 0, S0));                      /* received */
	emit(&cons, sub(A3, T1, T2));
	emit(&cons, i_op(1, A3, A3, 16));
	emit(&cons, i_op(5, A3, A3, 16));
	emit_branch(&cons, BEQ, A3, X0, empty);          /* nothing received yet */
	emit(&cons, addi(T2, T2, 1));
	emit(&cons, sw(T2, 0, S1));                      /* pop 1 */
	emit(&cons, addi(A1, A1, -1));
	emit_branch(&cons, BNE, A1, X0, loop);
	emit_exit_with(&cons, 0);

	start_at(dev, BH_CORE_NCRISC, 0x2000, &cons);
	start_at(dev, BH_CORE_BRISC, 0x1000, &prod);
	wait_exit(dev, BH_CORE_BRISC, 0);
	wait_exit(dev, BH_CORE_NCRISC, 0);
	cr_expect_eq(host_rd(dev, CB_STREAM(0), REG_RECEIVED), (uint32_t)PAGES);
	cr_expect_eq(host_rd(dev, CB_STREAM(0), REG_ACKED), (uint32_t)PAGES);
	bh_device_close(dev);
}
