/* Entry of every reference firmware image (launch.md 2-4). The linker script of each image
 * (fw.ld.in) places this at the image's text base and defines the symbols used here:
 * __fw_scratch (where the host staged the 0xFFB00000 PT_LOAD), __ldm_data_start/_end,
 * __ldm_bss_start/_end, __stack_top and __global_pointer$. */

	.section .text.start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.option push
	.option norelax
	lui	gp, %hi(__global_pointer$)
	addi	gp, gp, %lo(__global_pointer$)
	.option pop
	lui	sp, %hi(__stack_top)
	addi	sp, sp, %lo(__stack_top)

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

	/* .data: the host wrote the file bytes at the scratch area, not into local RAM. */
	lui	t0, %hi(__fw_scratch)
	addi	t0, t0, %lo(__fw_scratch)
	lui	t1, %hi(__ldm_data_start)
	addi	t1, t1, %lo(__ldm_data_start)
	lui	t2, %hi(__ldm_data_end)
	addi	t2, t2, %lo(__ldm_data_end)
1:	bgeu	t1, t2, 2f
	lw	t3, 0(t0)
	sw	t3, 0(t1)
	addi	t0, t0, 4
	addi	t1, t1, 4
	j	1b
2:
	/* .bss: leaving reset zeroes local RAM, but the firmware does not rely on it. */
	lui	t1, %hi(__ldm_bss_start)
	addi	t1, t1, %lo(__ldm_bss_start)
	lui	t2, %hi(__ldm_bss_end)
	addi	t2, t2, %lo(__ldm_bss_end)
3:	bgeu	t1, t2, 4f
	sw	zero, 0(t1)
	addi	t1, t1, 4
	j	3b
4:
	call	main
5:	j	5b		/* main never returns */
	.size	_start, . - _start
