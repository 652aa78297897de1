/* Bare-metal entry for bhemu test and benchmark programs.
 * The same ELF runs on bhemu and under qemu-riscv32 (Linux user mode), so the only
 * host interface is the Linux ecall convention: a7=93 exit, a7=64 write. */

	.section .text.start, "ax", @progbits
	.globl _start
	.type _start, @function
_start:
	/* gp must not be relaxed against itself. */
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	/* qemu-riscv32 hands us its own Linux stack; both hosts use ours instead. */
	la	sp, __stack_top

	/* Zero .bss (word aligned by bare.ld). bhemu's L1 may hold stale data. */
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 2f
	sw	zero, 0(t0)
	addi	t0, t0, 4
	j	1b
2:
	li	a0, 0		/* argc */
	li	a1, 0		/* argv */
	call	main

	li	a7, 93		/* exit(main's return value) */
	ecall
3:	j	3b
	.size _start, . - _start
