/* k_args_<proc>: writes what the kernel ABI hands it (firmware/kernel/ABI.md 4) to L1 for the host
 * to check, plus three proofs that the host placed the image right.
 *
 * rta[0] = L1 address OUT; rta[1], rta[2], crta[0], crta[1]: any values, echoed. Built with
 * COMPILE_ARGS 11 22 33. OUT receives the u32 words of enum k_args_out. */
#include "kernel.h"

enum k_args_out {
	OUT_PROCESSOR,		/* 0-4 */
	OUT_CT_COUNT,
	OUT_CT_ARG0,		/* 4 words: ct args 0..3, 0 where absent */
	OUT_RTA1 = OUT_CT_ARG0 + 4,
	OUT_RTA2,
	OUT_CRTA0,
	OUT_CRTA1,
	OUT_SEM0_ADDR,		/* get_semaphore(0) */
	OUT_SEM0_VALUE,
	OUT_LOGICAL_X,
	OUT_LOGICAL_Y,
	OUT_CB0_FIFO_SIZE,	/* cb_interface[0] as the firmware set it up for this processor */
	OUT_CB0_NUM_PAGES,
	OUT_CB0_PAGE_SIZE,
	OUT_DATA_SEED,		/* 0x5EED0001 + processor: .data was copied again for this launch */
	OUT_RODATA,		/* 0xC0DE0000 + processor: read through a relocated pointer */
	OUT_FN_TABLE,		/* 0xF00D0000 + processor: called through a relocated function table */
	OUT_WORDS
};

/* .data: the load image holds 0x5EED0000 + p. A kernel that ran before on this core left it
 * incremented in local RAM, so only a fresh copy per launch reads 0x5EED0001 + p. */
static volatile uint32_t k_args_seed = 0x5EED0000u + KERNEL_PROCESSOR;

/* .rodata, and a pointer to it in .data: the host relocates the load image of .data (R_RISCV_32
 * in .rela.data) as well as the code. */
static const uint32_t k_args_table[3] = { 0xBAD00000u, 0xC0DE0000u + KERNEL_PROCESSOR, 0xBAD00002u };
static const uint32_t *volatile k_args_table_entry = &k_args_table[1];

static uint32_t k_args_wrong(void)
{
	return 0xBAD00003u;
}

static uint32_t k_args_right(void)
{
	return 0xF00D0000u + KERNEL_PROCESSOR;
}

/* Code addresses in .rodata (R_RISCV_32); the volatile index keeps the call indirect. */
static uint32_t (*const k_args_fns[2])(void) = { k_args_wrong, k_args_right };
static volatile uint32_t k_args_fn_index = 1;

void kernel_main(void)
{
	volatile uint32_t *out = (volatile uint32_t *)(uintptr_t)get_arg_val(0);
	const struct cb_interface *cb0 = get_local_cb_interface(0);

	out[OUT_PROCESSOR] = KERNEL_PROCESSOR;
	out[OUT_CT_COUNT] = KERNEL_NUM_COMPILE_TIME_ARGS;
	for (uint32_t i = 0; i < 4; i++) {
#ifdef KERNEL_COMPILE_TIME_ARGS
		out[OUT_CT_ARG0 + i] = i < KERNEL_NUM_COMPILE_TIME_ARGS ? get_compile_time_arg_val(i) : 0;
#else
		out[OUT_CT_ARG0 + i] = 0;
#endif
	}
	out[OUT_RTA1] = get_arg_val(1);
	out[OUT_RTA2] = get_arg_val(2);
	out[OUT_CRTA0] = get_common_arg_val(0);
	out[OUT_CRTA1] = get_common_arg_val(1);
	out[OUT_SEM0_ADDR] = get_semaphore(0);
	out[OUT_SEM0_VALUE] = *(volatile uint32_t *)(uintptr_t)get_semaphore(0);
	out[OUT_LOGICAL_X] = my_logical_x_;
	out[OUT_LOGICAL_Y] = my_logical_y_;
	out[OUT_CB0_FIFO_SIZE] = cb0->fifo_size;
	out[OUT_CB0_NUM_PAGES] = cb0->fifo_num_pages;
	out[OUT_CB0_PAGE_SIZE] = cb0->fifo_page_size;
	k_args_seed = k_args_seed + 1;
	out[OUT_DATA_SEED] = k_args_seed;
	out[OUT_RODATA] = *k_args_table_entry;
	out[OUT_FN_TABLE] = k_args_fns[k_args_fn_index]();
}
