/* Multi-core entry for bhemu bare-metal programs that run on several cores of one tile at once
 * (`bhemu run --cores ...`). Each core starts at its own _start_<core>, gets a stack at the top
 * of its private local data RAM, and calls main_<core>(); its return value is its exit status.
 *
 * .bss is in L1, shared by all cores: BRISC zeroes it, calls multicore_init() if the program
 * defines one, then publishes bare_multi_ready; the other cores wait for that word first.
 * These ELFs need local data RAM, so they do not run under qemu-riscv32. */

#include "multicore.h"

/* Stack tops (memory-map.md section 2): 8 KiB local RAM on BRISC/NCRISC, 4 KiB on the TRISCs,
 * minus 16 so that sp stays 16-byte aligned and inside the RAM (p100a: 0xFFB01FF0 / 0xFFB00FF0). */
#define SP_DM		(BARE_LDM_BASE + BARE_LDM_SIZE_DM - 16)
#define SP_TRISC	(BARE_LDM_BASE + BARE_LDM_SIZE_TRISC - 16)

	.section .text.start, "ax", @progbits

/* Register setup shared by every entry: gp (not relaxed against itself), sp, this core's
 * .ldm_bss (private per-core variables; the RAM is zeroed on release, but say so here too). */
.macro core_setup sp_top
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	li	sp, \sp_top
	la	t0, __ldm_bss_start
	la	t1, __ldm_bss_end
1:	bgeu	t0, t1, 2f
	sw	zero, 0(t0)
	addi	t0, t0, 4
	j	1b
2:
.endm

/* Non-BRISC cores: wait until BRISC has zeroed .bss and run multicore_init(). */
.macro wait_ready
	la	t0, bare_multi_ready
	li	t1, BARE_MULTI_READY_MAGIC
1:	fence			/* each poll sees fresh L1 (races.md 20); the last one is the acquire */
	lw	t2, 0(t0)
	bne	t2, t1, 1b
	fence	r, rw		/* acquire: pairs with BRISC's fence before it stores the flag */
.endm

/* Calls main_<core> (weak: a core without one exits with BARE_MULTI_NO_MAIN). */
.macro call_main name
	.weak	main_\name
	la	t0, main_\name
	li	a0, BARE_MULTI_NO_MAIN
	beqz	t0, 1f
	jalr	t0
1:	li	a7, 93		/* exit(a0) */
	ecall
2:	j	2b
.endm

	.globl _start
	.globl _start_brisc
	.type _start_brisc, @function
_start:			/* the ELF entry, for hosts that start BRISC only */
_start_brisc:
	core_setup SP_DM
	la	t0, __bss_start
	la	t1, __bss_end
1:	bgeu	t0, t1, 2f
	sw	zero, 0(t0)
	addi	t0, t0, 4
	j	1b
2:
	.weak	multicore_init
	la	t0, multicore_init
	beqz	t0, 3f
	jalr	t0
3:	fence	rw, w		/* release: .bss and init stores before the flag; pairs with wait_ready */
	la	t0, bare_multi_ready
	li	t1, BARE_MULTI_READY_MAGIC
	sw	t1, 0(t0)
	call_main brisc
	.size _start_brisc, . - _start_brisc

.macro other_entry name, sp_top
	.globl _start_\name
	.type _start_\name, @function
_start_\name:
	core_setup \sp_top
	wait_ready
	call_main \name
	.size _start_\name, . - _start_\name
.endm

	other_entry ncrisc, SP_DM
	other_entry trisc0, SP_TRISC
	other_entry trisc1, SP_TRISC
	other_entry trisc2, SP_TRISC

/* Set by BRISC once .bss is zero. In .data, so the loader writes its 0 with the program. */
	.section .data.bare_multi_ready, "aw", @progbits
	.balign 4
	.globl bare_multi_ready
	.type bare_multi_ready, @object
bare_multi_ready:
	.word 0
	.size bare_multi_ready, 4
