/* Entry of every kernel built by bhemu_kernel() (ABI.md 4). kernel.ld places this first in .text,
 * so the firmware's call to kcb + kernel_text_offset[p] lands on _start. The firmware passes
 * a0-a3 (rta, crta, sem, launch message); only a3 is kept, the rest is in firmware globals.
 *
 * .data and .bss live in the kernel part of local RAM (ABI.md 1), which the previous kernel on
 * this core used too, so both are set up on every launch. Local-RAM addresses are absolute
 * (lui/addi: the host does not move them); the load image of .data is inside the kernel image
 * (lla: pc-relative, moves with the kernel). */

#include "ldm_init.h"

	.option norelax

	.section .text.start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	addi	sp, sp, -16
	sw	ra, 12(sp)

	lla	t0, __kernel_data_lma
	ldm_init __kernel_data_start, __kernel_data_end, __kernel_bss_start, __kernel_bss_end

	lui	t0, %hi(kernel_launch_msg)
	sw	a3, %lo(kernel_launch_msg)(t0)

	call	kernel_main

	li	a0, 0
	lw	ra, 12(sp)
	addi	sp, sp, 16
	ret
	.size	_start, . - _start

	/* The launch message being run (kernel.h); stored above, after the .bss clear. */
	.section .bss.kernel_launch_msg, "aw", @nobits
	.balign	4
	.globl	kernel_launch_msg
	.type	kernel_launch_msg, @object
kernel_launch_msg:
	.zero	4
	.size	kernel_launch_msg, 4
