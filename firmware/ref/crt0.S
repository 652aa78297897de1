/* Entry of every reference firmware image (launch.md 2-4). The linker script of each image
 * (fw.ld.in) places this at the image's text base and defines the symbols used here:
 * __fw_scratch (where the host staged the 0xFFB00000 PT_LOAD), __ldm_data_start/_end,
 * __ldm_bss_start/_end, __stack_top and __global_pointer$. */

#include "ldm_init.h"

	.section .text.start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.option push
	.option norelax
	lui	gp, %hi(__global_pointer$)
	addi	gp, gp, %lo(__global_pointer$)
	.option pop
	la_abs	sp, __stack_top

	/* cfg0 prologue of the p100a firmware (riscv-cores.md 3): L0 data cache off (bit 3),
	 * no .ttinsn fusion (bit 18), branch predictor briefly off around the change. */
	csrsi	0x7C0, 2
	fence
	lui	t0, %hi(1 << 18)
	csrs	0x7C0, t0
	csrci	0x7C0, 2
	fence
	fence
	csrsi	0x7C0, 8

	/* .data: the host wrote the file bytes at the scratch area, not into local RAM. .bss:
	 * leaving reset zeroes local RAM, but the firmware does not rely on it. */
	la_abs	t0, __fw_scratch
	ldm_init __ldm_data_start, __ldm_data_end, __ldm_bss_start, __ldm_bss_end
	call	main
5:	j	5b		/* main never returns */
	.size	_start, . - _start
