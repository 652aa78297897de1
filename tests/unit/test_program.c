/* Programs and slow dispatch (host/program.c) on the reference firmware: the kernel-config layout
 * the host writes (launch.md 9-11, sync.md 3.1), binary reuse, the errors a user can make, and
 * what a stuck or faulting kernel reports. Kernels here are raw RV32 code; test_kernels.c runs
 * kernels built by bhemu_kernel(). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "firmware/ref/p100a.h"
#include "testlib.h"

#define STREAM_REG_ADDR(s, r)	(0xFFB40000u + (s) * 0x1000u + (r) * 4u)

static void skip_unless_built(void)
{
	tl_skip_unless_built("firmware/ref/brisc.elf");
}

static uint32_t l1_word(struct bh_device *dev, unsigned tile, uint32_t addr)
{
	uint32_t v = 0;
	cr_assert_eq(bh_l1_read(dev, tile, addr, &v, 4), BH_OK);
	return v;
}

static uint16_t l1_half(struct bh_device *dev, unsigned tile, uint32_t addr)
{
	uint16_t v = 0;
	cr_assert_eq(bh_l1_read(dev, tile, addr, &v, 2), BH_OK);
	return v;
}

static const uint32_t ret_code[] = { INSN_RET };
static const struct bh_core_range whole_2x2 = { 0, 0, 1, 1 };


Test(program, launch_message_cb_block_args_and_semaphores_are_where_launch_md_puts_them)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 2);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	int kb = bh_program_add_kernel_code(p, BH_CORE_BRISC, ret_code, 1, &whole_2x2, 1);
	int kt = bh_program_add_kernel_code(p, BH_CORE_TRISC1, ret_code, 1, &(struct bh_core_range){ 1, 0, 1, 0 }, 1);
	cr_assert(kb >= 0 && kt >= 0, "%s", bh_program_error(p));
	struct bh_cb_config cb0 = { .index = 0, .page_size = 1024, .num_pages = 4 };
	struct bh_cb_config cb16 = { .index = 16, .page_size = 64, .num_pages = 2, .address = 0x100000 };
	cr_assert_eq(bh_program_add_cb(p, &cb0, &whole_2x2, 1), BH_OK, "%s", bh_program_error(p));
	cr_assert_eq(bh_program_add_cb(p, &cb16, &(struct bh_core_range){ 1, 0, 1, 0 }, 1), BH_OK, "%s",
		     bh_program_error(p));
	int sem = bh_program_add_semaphore(p, &whole_2x2, 1, 7);
	cr_assert_eq(sem, 0);
	for (unsigned t = 0; t < 4; t++) {
		uint32_t a[3] = { 100 + t, 200 + t, 300 + t };
		cr_assert_eq(bh_program_set_runtime_args(p, kb, t, a, 3), BH_OK);
	}
	uint32_t common[2] = { 0xC0FFEE, 0xBEEF };
	cr_assert_eq(bh_program_set_common_runtime_args(p, kb, common, 2), BH_OK);
	cr_assert_eq(bh_program_set_runtime_args(p, kt, 0, common, 1), BH_ERR_ARG, "kernel kt is not on tile 0");
	struct bh_launch_stats st;
	tl_launch_ok(p, &st);
	cr_expect_eq(st.tiles, 4);
	cr_expect_eq(st.tiles_uploaded, 4);

	uint32_t cb0_addr = 0;
	cr_assert_eq(bh_program_cb_address(p, 0, 3, &cb0_addr), BH_OK);
	cr_expect(cb0_addr >= 0x12000 && cb0_addr % 16 == 0, "CB0 allocated above the firmware areas: 0x%x", cb0_addr);
	for (unsigned t = 0; t < 4; t++) {
		const uint32_t L = MBOX_LAUNCH;
		uint32_t kcb = l1_word(dev, t, L + 0x00);
		cr_expect_eq(kcb, MEM_MAP_END, "tile %u: kernel_config_base[0]", t);
		cr_expect_eq(l1_word(dev, t, L + 0x04), MEM_MAP_END);
		uint32_t enables = l1_word(dev, t, L + 0x4C);
		cr_expect_eq(enables, t == 1 ? 0x0Du : 0x01u, "tile %u: enables 0x%x (bit 2 starts the TRISCs)", t,
			     enables);
		uint8_t mode = 0xFF;
		bh_l1_read(dev, t, L + 0x2A, &mode, 1);
		cr_expect_eq(mode, DISPATCH_MODE_HOST);
		cr_expect_eq(l1_word(dev, t, L + 0x40), t == 1 ? 0x10001u : 0x1u, "tile %u: local_cb_mask", t);
		uint16_t rta = l1_half(dev, t, L + 0x16), crta = l1_half(dev, t, L + 0x18);
		cr_expect_eq(l1_word(dev, t, kcb + rta + 0), 100 + t);
		cr_expect_eq(l1_word(dev, t, kcb + rta + 8), 300 + t);
		cr_expect_eq(l1_word(dev, t, kcb + crta + 0), 0xC0FFEE);
		cr_expect_eq(l1_word(dev, t, kcb + crta + 4), 0xBEEF);
		uint16_t sem_off = l1_half(dev, t, L + 0x0C);
		cr_expect_eq(l1_word(dev, t, kcb + sem_off), 7, "semaphore 0 initial value");
		uint32_t sa = 0;
		cr_assert_eq(bh_program_semaphore_address(p, 0, t, &sa), BH_OK);
		cr_expect_eq(sa, kcb + sem_off);
		uint16_t cbo = l1_half(dev, t, L + 0x12);
		cr_expect_eq(l1_word(dev, t, kcb + cbo + 0), cb0_addr, "CB0 fifo address");
		cr_expect_eq(l1_word(dev, t, kcb + cbo + 4), 4096, "CB0 fifo size");
		cr_expect_eq(l1_word(dev, t, kcb + cbo + 8), 4, "CB0 pages");
		cr_expect_eq(l1_word(dev, t, kcb + cbo + 12), 1024, "CB0 page size");
		if (t == 1) {
			cr_expect_eq(l1_word(dev, t, kcb + cbo + 16 * 16 + 0), 0x100000);
			cr_expect_eq(l1_word(dev, t, kcb + cbo + 16 * 16 + 8), 2);
		}
		uint32_t text0 = l1_word(dev, t, L + 0x2C);
		cr_expect_eq(text0 % 16, 0);
		cr_expect_eq(l1_word(dev, t, kcb + text0), INSN_RET, "BRISC kernel in place");
		uint8_t go = 0xFF;
		bh_l1_read(dev, t, MBOX_GO_MESSAGES + 3, &go, 1);
		cr_expect_eq(go, RUN_MSG_DONE);
	}
	bh_program_destroy(p);
	bh_device_close(dev);
}

Test(program, unchanged_binaries_are_not_uploaded_again_and_another_program_forces_it)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 1);
	struct bh_core_range both = { 0, 0, 1, 0 };
	struct bh_program *a, *b;
	cr_assert_eq(bh_program_create(dev, &a), BH_OK);
	cr_assert_eq(bh_program_create(dev, &b), BH_OK);
	int ka = bh_program_add_kernel_code(a, BH_CORE_NCRISC, ret_code, 1, &both, 1);
	cr_assert(ka >= 0);
	cr_assert(bh_program_add_kernel_code(b, BH_CORE_BRISC, ret_code, 1, &both, 1) >= 0);
	struct bh_launch_stats st;
	tl_launch_ok(a, &st);
	cr_expect_eq(st.tiles_uploaded, 2);
	for (unsigned i = 0; i < 3; i++) {
		uint32_t arg = i;
		cr_assert_eq(bh_program_set_runtime_args(a, ka, 1, &arg, 1), BH_OK);
		tl_launch_ok(a, &st);
		cr_expect_eq(st.tiles_uploaded, 0, "run %u: same kernels and CBs: nothing re-uploaded", i);
		uint32_t rta = l1_half(dev, 1, MBOX_LAUNCH + 0x16 + 4);
		cr_expect_eq(l1_word(dev, 1, MEM_MAP_END + rta), i, "runtime args are written every launch");
	}
	tl_launch_ok(b, &st);
	cr_expect_eq(st.tiles_uploaded, 2);
	tl_launch_ok(a, &st);
	cr_expect_eq(st.tiles_uploaded, 2, "program b overwrote the kernel-config area");
	struct bh_cb_config cb = { .index = 3, .page_size = 32, .num_pages = 2 };
	cr_assert_eq(bh_program_add_cb(a, &cb, &both, 1), BH_OK);
	tl_launch_ok(a, &st);
	cr_expect_eq(st.tiles_uploaded, 2, "a new CB changes the blob");
	bh_program_destroy(a);
	bh_program_destroy(b);
	bh_device_close(dev);
}

Test(program, bad_configurations_are_refused_with_a_message)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 1);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	struct bh_core_range both = { 0, 0, 1, 0 }, off_grid = { 0, 0, 2, 0 };
	cr_expect_eq(bh_program_add_kernel_code(p, BH_CORE_BRISC, ret_code, 1, &off_grid, 1), BH_ERR_ARG);
	cr_expect(strstr(bh_program_error(p), "not inside the 2x1 worker grid"), "%s", bh_program_error(p));
	cr_expect_eq(bh_program_add_kernel(p, BH_CORE_BRISC, "/nonexistent/k.elf", &both, 1, NULL, 0), BH_ERR_ELF);
	cr_expect(strstr(bh_program_error(p), "/nonexistent/k.elf"), "%s", bh_program_error(p));
	char fw[512];
	snprintf(fw, sizeof fw, "%s/firmware/ref/brisc.elf", BHEMU_BINARY_DIR);
	cr_expect_eq(bh_program_add_kernel(p, BH_CORE_BRISC, fw, &both, 1, NULL, 0), BH_ERR_ELF, "firmware is no kernel");
	cr_expect(strstr(bh_program_error(p), "not linked by bhemu_kernel()") ||
		  strstr(bh_program_error(p), "not a bhemu kernel"), "%s", bh_program_error(p));

	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, ret_code, 1, &both, 1) >= 0);
	cr_expect_eq(bh_program_add_kernel_code(p, BH_CORE_BRISC, ret_code, 1, &both, 1), BH_ERR_ARG);
	cr_expect(strstr(bh_program_error(p), "already runs kernel 0"), "%s", bh_program_error(p));

	struct { struct bh_cb_config cb; const char *why; } bad[] = {
		{ { .index = 32, .page_size = 16, .num_pages = 1 }, "CBs 0..31" },
		{ { .index = 1, .page_size = 24, .num_pages = 1 }, "multiple of 16" },
		{ { .index = 1, .page_size = 16, .num_pages = 0 }, "between 1 and 65535" },
		{ { .index = 1, .page_size = 16, .num_pages = 70000 }, "between 1 and 65535" },
		{ { .index = 1, .page_size = 16, .num_pages = 1, .address = 0x8300 }, "outside the L1 programs may use" },
		{ { .index = 1, .page_size = 0x1000, .num_pages = 2, .address = 0x17F000 }, "outside the L1" },
		{ { .index = 1, .page_size = 16, .num_pages = 1, .address = 0x100008 }, "not 16-byte aligned" },
	};
	for (unsigned i = 0; i < N(bad); i++) {
		cr_expect_eq(bh_program_add_cb(p, &bad[i].cb, &both, 1), BH_ERR_ARG, "case %u", i);
		cr_expect(strstr(bh_program_error(p), bad[i].why), "case %u: '%s' lacks '%s'", i, bh_program_error(p),
			  bad[i].why);
	}
	struct bh_cb_config a = { .index = 2, .page_size = 256, .num_pages = 4, .address = 0x40000 };
	struct bh_cb_config same = { .index = 2, .page_size = 16, .num_pages = 1, .address = 0x50000 };
	struct bh_cb_config over = { .index = 5, .page_size = 256, .num_pages = 1, .address = 0x40300 };
	cr_assert_eq(bh_program_add_cb(p, &a, &both, 1), BH_OK);
	cr_expect_eq(bh_program_add_cb(p, &same, &(struct bh_core_range){ 1, 0, 1, 0 }, 1), BH_ERR_ARG);
	cr_expect(strstr(bh_program_error(p), "CB 2 is configured twice on tile 1"), "%s", bh_program_error(p));
	cr_expect_eq(bh_program_add_cb(p, &over, &both, 1), BH_ERR_ARG);
	cr_expect(strstr(bh_program_error(p), "overlaps CB 2"), "%s", bh_program_error(p));
	uint32_t many[BH_PROGRAM_MAX_ARGS + 1] = { 0 };
	cr_expect_eq(bh_program_set_runtime_args(p, 0, 0, many, BH_PROGRAM_MAX_ARGS + 1), BH_ERR_ARG);
	cr_expect_eq(bh_program_set_runtime_args(p, 5, 0, many, 1), BH_ERR_ARG);
	cr_expect(strstr(bh_program_error(p), "no kernel 5"), "%s", bh_program_error(p));
	cr_expect_eq(bh_program_launch(p, &(struct bh_launch_options){ .noc = 2 }, NULL), BH_ERR_ARG);
	bh_program_destroy(p);
	bh_device_close(dev);
}

Test(program, launch_before_boot_is_refused)
{
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .num_tiles = 1 };
	struct bh_device *dev;
	struct bh_program *p;
	cr_assert_eq(bh_device_open(&cfg, &dev), BH_OK);
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, ret_code, 1, &(struct bh_core_range){ 0, 0, 0, 0 }, 1) >= 0);
	cr_expect_eq(bh_program_launch(p, NULL, NULL), BH_ERR_ARG);
	cr_expect(strstr(bh_program_error(p), "not been booted"), "%s", bh_program_error(p));
	bh_program_destroy(p);
	bh_device_close(dev);
}

/* NCRISC kernel: polls an L1 word that nobody writes (a0 = its runtime args). The deadlock
 * verdict ends the launch once it parks; the timeout only catches a hang. */
Test(program, a_kernel_that_never_returns_yields_a_report_naming_the_stuck_tile)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 1);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	const uint32_t spin[] = { lw(5, 0, 10), enc_b(-4, 0, 5, 0), INSN_RET };
	int k = bh_program_add_kernel_code(p, BH_CORE_NCRISC, spin, N(spin), &(struct bh_core_range){ 1, 0, 1, 0 }, 1);
	cr_assert(k >= 0);
	uint32_t zero = 0;
	cr_assert_eq(bh_program_set_runtime_args(p, k, 1, &zero, 1), BH_OK);
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, ret_code, 1, &(struct bh_core_range){ 0, 0, 1, 0 }, 1) >= 0);
	int rc = bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = 30 }, NULL);
	cr_expect_eq(rc, BH_ERR_DEADLOCK, "rc %d", rc);
	const char *e = bh_program_error(p);
	cr_expect(strstr(e, "1 of 2 tiles did not finish"), "%s", e);
	cr_expect(strstr(e, "stuck tile 1 (2,2)"), "%s", e);
	cr_expect(strstr(e, "tile 1 (2,2) ncrisc"), "the device report's line about NCRISC:\n%s", e);
	cr_expect(strstr(e, "<kernel <code>+0x4>") || strstr(e, "<kernel <code>+0x0>"), "kernel-relative pc:\n%s", e);
	cr_expect(!strstr(e, "tile 0 (1,2)"), "tile 0 finished: not in the report\n%s", e);
	bh_program_destroy(p);
	bh_device_close(dev);
}

Test(program, a_faulting_kernel_fails_the_launch_with_its_fault_report)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(1, 1);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	/* lw t0, 0(zero) + 0x200000 (unmapped: above the 1.5 MiB of L1) */
	uint32_t bad[4];
	enc_li(bad, 6, 0x200000);
	bad[2] = lw(5, 0, 6);
	bad[3] = INSN_RET;
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, bad, 4, &(struct bh_core_range){ 0, 0, 0, 0 }, 1) >= 0);
	int rc = bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = 5 }, NULL);
	cr_expect_eq(rc, BH_ERR_FAULT);
	const char *e = bh_program_error(p);
	cr_expect(strstr(e, "tile 0"), "%s", e);
	cr_expect(strstr(e, "core brisc"), "%s", e);
	cr_expect(strstr(e, "0x00200000"), "%s", e);
	cr_expect(strstr(e, "<kernel <code>+0x8>"), "%s", e);
	bh_program_destroy(p);
	bh_device_close(dev);
}

/* A producer that publishes more pages than the CB config says the CB holds (sync.md 2): the CB
 * protocol check knows the page count from the config block of the launch. */
Test(program, pushing_more_pages_than_the_cb_config_holds_is_caught)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(1, 1);
	struct bh_program *p;
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	uint32_t push[5];
	enc_li(push, 6, STREAM_REG_ADDR(CB_FIRST_STREAM + 0, CB_STREAM_REG_TILES_RECEIVED));
	push[2] = addi(5, 0, 5);
	push[3] = sw(5, 0, 6);
	push[4] = INSN_RET;
	cr_assert(bh_program_add_kernel_code(p, BH_CORE_BRISC, push, 5, &(struct bh_core_range){ 0, 0, 0, 0 }, 1) >= 0);
	struct bh_cb_config cb = { .index = 0, .page_size = 64, .num_pages = 4 };
	cr_assert_eq(bh_program_add_cb(p, &cb, &(struct bh_core_range){ 0, 0, 0, 0 }, 1), BH_OK);
	int rc = bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = 5 }, NULL);
	cr_expect_eq(rc, BH_ERR_FAULT);
	const char *e = bh_program_error(p);
	cr_expect(strstr(e, "CB0"), "%s", e);
	cr_expect(strstr(e, "4 pages") || strstr(e, "holds 4"), "%s", e);
	bh_program_destroy(p);
	bh_device_close(dev);
}

Test(program, hundreds_of_launches_on_every_tile_keep_working)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(4, 2);
	struct bh_program *p;
	struct bh_core_range all = { 0, 0, 3, 1 };
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	/* BRISC: rta[0] += 1 in place (a0 = its runtime args). */
	const uint32_t incr[] = { lw(5, 0, 10), addi(5, 5, 1), sw(5, 0, 10), INSN_RET };
	int k = bh_program_add_kernel_code(p, BH_CORE_BRISC, incr, N(incr), &all, 1);
	for (unsigned c = BH_CORE_NCRISC; c <= BH_CORE_TRISC2; c++)
		cr_assert(bh_program_add_kernel_code(p, (enum bh_core_id)c, ret_code, 1, &all, 1) >= 0);
	for (unsigned i = 0; i < 300; i++) {
		for (unsigned t = 0; t < 8; t++) {
			uint32_t v = i * 8 + t;
			cr_assert_eq(bh_program_set_runtime_args(p, k, t, &v, 1), BH_OK);
		}
		struct bh_launch_stats st;
		tl_launch_ok(p, &st);
		cr_assert_eq(st.tiles_uploaded, i == 0 ? 8u : 0u);
		uint16_t rta = l1_half(dev, 5, MBOX_LAUNCH + 0x16);
		cr_assert_eq(l1_word(dev, 5, MEM_MAP_END + rta), i * 8 + 5 + 1, "launch %u: the kernel ran once", i);
	}
	bh_program_destroy(p);
	bh_device_close(dev);
}
