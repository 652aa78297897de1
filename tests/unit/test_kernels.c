/* Kernels built by bhemu_kernel() (examples/kernels/), launched by the program API on the reference
 * firmware: what the kernel ABI hands each processor (firmware/kernel/ABI.md 4), relocation at
 * different placements, and the checks of kernel ELFs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "firmware/ref/p100a.h"
#include "testlib.h"

enum { OUT_PROCESSOR, OUT_CT_COUNT, OUT_CT_ARG0, OUT_RTA1 = OUT_CT_ARG0 + 4, OUT_RTA2, OUT_CRTA0, OUT_CRTA1,
       OUT_SEM0_ADDR, OUT_SEM0_VALUE, OUT_LOGICAL_X, OUT_LOGICAL_Y, OUT_CB0_FIFO_SIZE, OUT_CB0_NUM_PAGES,
       OUT_CB0_PAGE_SIZE, OUT_DATA_SEED, OUT_RODATA, OUT_FN_TABLE, OUT_WORDS };

#define OUT_BASE	0x60000u
#define OUT_STRIDE	0x100u
#define CB0_PAGES	3u
#define CB0_PAGE_SIZE	256u

static const char *const proc_name[5] = { "brisc", "ncrisc", "trisc0", "trisc1", "trisc2" };

static const char *kernel_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/kernels/%s.elf", BHEMU_BINARY_DIR, name);
	return buf;
}

static void skip_unless_built(void)
{
	tl_skip_unless_built("kernels/k_args_brisc.elf");
}


/* k_args on all five processors of a 2x1 grid; extra_rta pads BRISC's runtime args so the kernel
 * images land elsewhere in the kernel-config area. */
static struct bh_program *args_program(struct bh_device *dev, unsigned extra_rta, int kid[5])
{
	static const uint32_t ct[3] = { 11, 22, 33 };
	struct bh_core_range both = { 0, 0, 1, 0 };
	struct bh_program *p;
	char path[512], name[64];
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	for (unsigned k = 0; k < 5; k++) {
		snprintf(name, sizeof name, "k_args_%s", proc_name[k]);
		kid[k] = bh_program_add_kernel(p, (enum bh_core_id)k, kernel_path(path, sizeof path, name), &both, 1, ct, 3);
		cr_assert(kid[k] >= 0, "%s", bh_program_error(p));
		for (unsigned t = 0; t < 2; t++) {
			uint32_t a[64] = { OUT_BASE + k * OUT_STRIDE, 1000 * t + k, 2000 * t + k };
			cr_assert_eq(bh_program_set_runtime_args(p, kid[k], t, a, k == 0 ? 3 + extra_rta : 3), BH_OK);
		}
		uint32_t c[2] = { 0xAA00 + k, 0xBB00 + k };
		cr_assert_eq(bh_program_set_common_runtime_args(p, kid[k], c, 2), BH_OK);
	}
	struct bh_cb_config cb = { .index = 0, .page_size = CB0_PAGE_SIZE, .num_pages = CB0_PAGES };
	cr_assert_eq(bh_program_add_cb(p, &cb, &both, 1), BH_OK, "%s", bh_program_error(p));
	cr_assert_eq(bh_program_add_semaphore(p, &both, 1, 0x5E3A), 0);
	return p;
}

static void check_args_out(struct bh_device *dev, struct bh_program *p)
{
	for (unsigned t = 0; t < 2; t++)
		for (unsigned k = 0; k < 5; k++) {
			uint32_t o[OUT_WORDS], sem = 0;
			cr_assert_eq(bh_l1_read(dev, t, OUT_BASE + k * OUT_STRIDE, o, sizeof o), BH_OK);
			cr_assert_eq(bh_program_semaphore_address(p, 0, t, &sem), BH_OK);
			const char *n = proc_name[k];
			cr_expect_eq(o[OUT_PROCESSOR], k, "tile %u %s", t, n);
			cr_expect_eq(o[OUT_CT_COUNT], 3, "%s", n);
			cr_expect(o[OUT_CT_ARG0] == 11 && o[OUT_CT_ARG0 + 1] == 22 && o[OUT_CT_ARG0 + 2] == 33 &&
				  o[OUT_CT_ARG0 + 3] == 0, "%s: compile-time args", n);
			cr_expect_eq(o[OUT_RTA1], 1000 * t + k, "tile %u %s: rta[1]", t, n);
			cr_expect_eq(o[OUT_RTA2], 2000 * t + k, "tile %u %s: rta[2]", t, n);
			cr_expect_eq(o[OUT_CRTA0], 0xAA00 + k, "%s: crta[0]", n);
			cr_expect_eq(o[OUT_CRTA1], 0xBB00 + k, "%s: crta[1]", n);
			cr_expect_eq(o[OUT_SEM0_ADDR], sem, "%s: get_semaphore(0)", n);
			cr_expect_eq(o[OUT_SEM0_VALUE], 0x5E3A, "%s: semaphore 0 value", n);
			cr_expect_eq(o[OUT_LOGICAL_X], t, "%s: my_logical_x_", n);
			cr_expect_eq(o[OUT_LOGICAL_Y], 0, "%s: my_logical_y_", n);
			/* sync.md 3.2: bytes on BRISC/NCRISC, 16-byte units on TRISC0/TRISC2, nothing on TRISC1. */
			if (k <= BH_CORE_NCRISC) {
				cr_expect_eq(o[OUT_CB0_FIFO_SIZE], CB0_PAGES * CB0_PAGE_SIZE, "%s", n);
				cr_expect_eq(o[OUT_CB0_NUM_PAGES], CB0_PAGES, "%s", n);
				cr_expect_eq(o[OUT_CB0_PAGE_SIZE], CB0_PAGE_SIZE, "%s", n);
			} else if (k == BH_CORE_TRISC0 || k == BH_CORE_TRISC2) {
				cr_expect_eq(o[OUT_CB0_FIFO_SIZE], CB0_PAGES * CB0_PAGE_SIZE / 16, "%s", n);
				cr_expect_eq(o[OUT_CB0_PAGE_SIZE], CB0_PAGE_SIZE / 16, "%s", n);
				if (k == BH_CORE_TRISC2)
					cr_expect_eq(o[OUT_CB0_NUM_PAGES], CB0_PAGES, "%s", n);
			} else {
				cr_expect_eq(o[OUT_CB0_FIFO_SIZE], 0, "trisc1 sets up no CB");
			}
			cr_expect_eq(o[OUT_DATA_SEED], 0x5EED0001u + k, "tile %u %s: .data copied for this launch", t, n);
			cr_expect_eq(o[OUT_RODATA], 0xC0DE0000u + k, "tile %u %s: relocated .rodata pointer", t, n);
			cr_expect_eq(o[OUT_FN_TABLE], 0xF00D0000u + k, "tile %u %s: relocated function table", t, n);
		}
}

Test(kernels, every_processor_gets_its_args_cbs_semaphores_and_a_relocated_image)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 1);
	int kid[5];
	struct bh_program *p = args_program(dev, 0, kid);
	for (unsigned run = 0; run < 2; run++) {
		uint8_t zero[5 * OUT_STRIDE] = { 0 };
		for (unsigned t = 0; t < 2; t++)
			cr_assert_eq(bh_l1_write(dev, t, OUT_BASE, zero, sizeof zero), BH_OK);
		tl_launch_ok(p, NULL);
		check_args_out(dev, p);
	}
	bh_program_destroy(p);
	bh_device_close(dev);
}

Test(kernels, the_same_kernels_run_at_another_placement)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 1);
	int kid_a[5], kid_b[5];
	struct bh_program *a = args_program(dev, 0, kid_a), *b = args_program(dev, 61, kid_b);
	tl_launch_ok(a, NULL);
	check_args_out(dev, a);
	uint32_t text_a = 0, text_b = 0;
	bh_l1_read(dev, 0, MBOX_LAUNCH + 0x2C, &text_a, 4);
	uint8_t zero[5 * OUT_STRIDE] = { 0 };
	for (unsigned t = 0; t < 2; t++)
		bh_l1_write(dev, t, OUT_BASE, zero, sizeof zero);
	tl_launch_ok(b, NULL);
	bh_l1_read(dev, 0, MBOX_LAUNCH + 0x2C, &text_b, 4);
	cr_expect_neq(text_a, text_b, "61 more runtime args move the images (0x%x)", text_a);
	check_args_out(dev, b);
	bh_program_destroy(a);
	bh_program_destroy(b);
	bh_device_close(dev);
}

Test(kernels, a_kernel_for_another_processor_or_other_compile_args_is_refused)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(1, 1);
	struct bh_program *p;
	struct bh_core_range one = { 0, 0, 0, 0 };
	char path[512];
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	cr_expect_eq(bh_program_add_kernel(p, BH_CORE_BRISC, kernel_path(path, sizeof path, "k_reader"), &one, 1,
					   NULL, 0), BH_ERR_ELF);
	cr_expect(strstr(bh_program_error(p), "built for ncrisc, not brisc"), "%s", bh_program_error(p));
	const uint32_t wrong[2] = { 1024, 0 };
	cr_expect_eq(bh_program_add_kernel(p, BH_CORE_NCRISC, path, &one, 1, wrong, 2), BH_ERR_ELF);
	cr_expect(strstr(bh_program_error(p), "compile-time argument 0 is 2048"), "%s", bh_program_error(p));
	cr_expect_eq(bh_program_add_kernel(p, BH_CORE_NCRISC, path, &one, 1, wrong, 1), BH_ERR_ELF);
	cr_expect(strstr(bh_program_error(p), "built with 2 compile-time arguments, 1 given"), "%s", bh_program_error(p));
	const uint32_t right[2] = { 2048, 0 };
	cr_expect_geq(bh_program_add_kernel(p, BH_CORE_NCRISC, path, &one, 1, right, 2), 0, "%s", bh_program_error(p));
	bh_program_destroy(p);
	bh_device_close(dev);
}

/* Found by fuzz_reloc: a PT_LOAD with file bytes but no memory size (which the ELF reader leaves
 * alone) whose data runs past the end of the file. The kernel loader copied it from beyond the file
 * image; it is refused naming the segment. Any device will do: nothing is launched. */
Test(kernels, a_segment_with_data_past_the_end_of_the_file_is_refused)
{
	struct bh_device *dev = t_open();
	struct bh_program *p;
	struct bh_core_range one = { 0, 0, 0, 0 };
	const char *path = BHEMU_SOURCE_DIR "/tests/fuzz/corpus/reloc/defect-kernel-segment-data-past-end-of-file.elf";
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	cr_expect_eq(bh_program_add_kernel(p, BH_CORE_BRISC, path, &one, 1, NULL, 0), BH_ERR_ELF);
	cr_expect(strstr(bh_program_error(p), "segment 2: file size 0x1c00 exceeds memory size 0x0"), "%s",
		  bh_program_error(p));
	bh_program_destroy(p);
	bh_device_close(dev);
}

/* A producer that pushes more pages than the CB holds without reserving: the CB protocol check of
 * the stream registers stops it, naming the kernel's function. */
Test(kernels, pushing_past_the_cb_without_reserving_faults_in_the_kernel)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(1, 1);
	struct bh_program *p;
	struct bh_core_range one = { 0, 0, 0, 0 };
	char path[512];
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	int k = bh_program_add_kernel(p, BH_CORE_BRISC, kernel_path(path, sizeof path, "k_cb_push_nowait"), &one, 1,
				      NULL, 0);
	cr_assert(k >= 0, "%s", bh_program_error(p));
	struct bh_cb_config cb = { .index = 5, .page_size = 64, .num_pages = 2 };
	cr_assert_eq(bh_program_add_cb(p, &cb, &one, 1), BH_OK);
	uint32_t a[2] = { 5, 3 };
	cr_assert_eq(bh_program_set_runtime_args(p, k, 0, a, 2), BH_OK);
	int rc = bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = 10 }, NULL);
	cr_expect_eq(rc, BH_ERR_FAULT);
	const char *e = bh_program_error(p);
	cr_expect(strstr(e, "CB5"), "%s", e);
	cr_expect(strstr(e, "kernel_main") || strstr(e, "cb_push_back"), "the kernel's symbol:\n%s", e);
	bh_program_destroy(p);
	bh_device_close(dev);
}

/* The compute-side CB calls through the Tensix threads: BRISC fills CB 0 for TRISC0, which frees
 * pages with cb_pop_front_unpacker (STOREREG to reg 8); TRISC2 fills CB 16 with
 * cb_push_back_packer (STOREREG to reg 10) for NCRISC. Two-page CBs and many pages: every page
 * waits for a counter published by a Tensix thread, and the CB protocol checks see each one. */
Test(kernels, compute_cb_calls_publish_their_counters_through_the_tensix_threads)
{
	skip_unless_built();
	struct bh_device *dev = tl_boot_ref_grid(2, 1);
	struct bh_program *p;
	struct bh_core_range both = { 0, 0, 1, 0 };
	const uint32_t pages = 200, seed = 0x1000, sum_out = 0x70000, check_out = 0x70010;
	char path[512];
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	int kf = bh_program_add_kernel(p, BH_CORE_BRISC, kernel_path(path, sizeof path, "k_cb_fill"), &both, 1, NULL, 0);
	int ku = bh_program_add_kernel(p, BH_CORE_TRISC0, kernel_path(path, sizeof path, "k_unpack_sum"), &both, 1, NULL, 0);
	int kp = bh_program_add_kernel(p, BH_CORE_TRISC2, kernel_path(path, sizeof path, "k_pack_fill"), &both, 1, NULL, 0);
	int kc = bh_program_add_kernel(p, BH_CORE_NCRISC, kernel_path(path, sizeof path, "k_cb_check"), &both, 1, NULL, 0);
	cr_assert(kf >= 0 && ku >= 0 && kp >= 0 && kc >= 0, "%s", bh_program_error(p));
	struct bh_cb_config in = { .index = 0, .page_size = 256, .num_pages = 2 };
	struct bh_cb_config out = { .index = 16, .page_size = 128, .num_pages = 2 };
	cr_assert_eq(bh_program_add_cb(p, &in, &both, 1), BH_OK);
	cr_assert_eq(bh_program_add_cb(p, &out, &both, 1), BH_OK);
	for (unsigned t = 0; t < 2; t++) {
		uint32_t a_fill[3] = { 0, pages, seed + t }, a_sum[3] = { 0, pages, sum_out };
		uint32_t a_pack[3] = { 16, pages, 7 * seed + t }, a_check[4] = { 16, pages, 7 * seed + t, check_out };
		cr_assert_eq(bh_program_set_runtime_args(p, kf, t, a_fill, 3), BH_OK);
		cr_assert_eq(bh_program_set_runtime_args(p, ku, t, a_sum, 3), BH_OK);
		cr_assert_eq(bh_program_set_runtime_args(p, kp, t, a_pack, 3), BH_OK);
		cr_assert_eq(bh_program_set_runtime_args(p, kc, t, a_check, 4), BH_OK);
	}
	for (unsigned run = 0; run < 2; run++) {
		uint32_t zero[8] = { 0 };
		for (unsigned t = 0; t < 2; t++)
			bh_l1_write(dev, t, sum_out, zero, sizeof zero);
		tl_launch_ok(p, NULL);
		for (unsigned t = 0; t < 2; t++) {
			uint32_t s[2], c[2], want = 0;
			bh_l1_read(dev, t, sum_out, s, 8);
			bh_l1_read(dev, t, check_out, c, 8);
			for (uint32_t pg = 0; pg < pages; pg++)
				for (uint32_t i = 0; i < 64; i++)
					want += seed + t + 1000 * pg + i;
			cr_expect_eq(s[1], pages, "run %u tile %u: TRISC0 consumed every page", run, t);
			cr_expect_eq(s[0], want, "run %u tile %u: TRISC0 read every word as BRISC wrote it", run, t);
			cr_expect_eq(c[1], pages, "run %u tile %u: NCRISC consumed every page", run, t);
			cr_expect_eq(c[0], 0, "run %u tile %u: words NCRISC found wrong", run, t);
		}
	}
	bh_program_destroy(p);
	bh_device_close(dev);
}

/* A compute kernel on the three TRISCs with real CBs (firmware/compute/compute_kernel.h):
 * k_reader (NCRISC) feeds BF16 tiles from DRAM into a 3-page CB 0, k_tile_swap copies each pair
 * through Dst into CB 16 in swapped order, addressing the pair's second tile by index from
 * TRISC0's read pointer (across the CB's end for every other pair), and k_writer (BRISC) writes
 * CB 16 to DRAM. Output page 2q must be input page 2q + 1 and vice versa, bit for bit. */
Test(kernels, a_compute_kernel_addresses_tiles_from_the_cb_read_pointer_across_the_wrap)
{
	tl_skip_unless_built("kernels/k_tile_swap_trisc1.elf");
	enum { PAIRS = 7, PAGE = 2048, SRC = 0x100000, DST = 0x800000 };
	struct bh_device *dev = tl_boot_ref_grid(1, 1);
	struct bh_program *p;
	struct bh_core_range one = { 0, 0, 0, 0 };
	char path[512], name[64];
	unsigned ndram = 0;
	bh_device_boot_banks(dev, &ndram, NULL);
	cr_assert_eq(bh_program_create(dev, &p), BH_OK);
	const uint32_t ct_reader[2] = { PAGE, 0 }, ct_writer[2] = { PAGE, 16 }, ct_swap[2] = { 0, 16 };
	int kr = bh_program_add_kernel(p, BH_CORE_NCRISC, kernel_path(path, sizeof path, "k_reader"), &one, 1, ct_reader, 2);
	int kw = bh_program_add_kernel(p, BH_CORE_BRISC, kernel_path(path, sizeof path, "k_writer"), &one, 1, ct_writer, 2);
	cr_assert(kr >= 0 && kw >= 0, "%s", bh_program_error(p));
	uint32_t r[3] = { SRC, 0, 2 * PAIRS }, w[3] = { DST, 0, 2 * PAIRS }, s[1] = { PAIRS };
	cr_assert_eq(bh_program_set_runtime_args(p, kr, 0, r, 3), BH_OK);
	cr_assert_eq(bh_program_set_runtime_args(p, kw, 0, w, 3), BH_OK);
	for (unsigned k = 0; k < 3; k++) {
		snprintf(name, sizeof name, "k_tile_swap_trisc%u", k);
		int ks = bh_program_add_kernel(p, (enum bh_core_id)(BH_CORE_TRISC0 + k), kernel_path(path, sizeof path, name),
					       &one, 1, ct_swap, 2);
		cr_assert(ks >= 0, "%s", bh_program_error(p));
		cr_assert_eq(bh_program_set_runtime_args(p, ks, 0, s, 1), BH_OK);
	}
	struct bh_cb_config in = { .index = 0, .page_size = PAGE, .num_pages = 3 };
	struct bh_cb_config out = { .index = 16, .page_size = PAGE, .num_pages = 2 };
	cr_assert_eq(bh_program_add_cb(p, &in, &one, 1), BH_OK);
	cr_assert_eq(bh_program_add_cb(p, &out, &one, 1), BH_OK);
	static uint16_t src[2 * PAIRS][PAGE / 2], dst[2 * PAIRS][PAGE / 2];
	for (unsigned pg = 0; pg < 2 * PAIRS; pg++)
		for (unsigned i = 0; i < PAGE / 2; i++)   /* normal BF16 numbers, distinct per page */
			src[pg][i] = (uint16_t)((i & 1) << 15 | (120 + pg) << 7 | (i * 5 + pg) % 128);
	cr_assert_eq(bh_interleaved_write_banks(dev, true, ndram, SRC, PAGE, 0, src, sizeof src), BH_OK);
	memset(dst, 0, sizeof dst);
	cr_assert_eq(bh_interleaved_write_banks(dev, true, ndram, DST, PAGE, 0, dst, sizeof dst), BH_OK);
	tl_launch_ok(p, NULL);
	cr_assert_eq(bh_interleaved_read_banks(dev, true, ndram, DST, PAGE, 0, dst, sizeof dst), BH_OK);
	for (unsigned pg = 0; pg < 2 * PAIRS; pg++)
		cr_expect_eq(memcmp(dst[pg], src[pg ^ 1], PAGE), 0, "output page %u is input page %u", pg, pg ^ 1);
	bh_program_destroy(p);
	bh_device_close(dev);
}
