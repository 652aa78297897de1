/* Assembler macros (include from .S files) shared by the start-up code of the reference firmware
 * (ref/crt0.S) and of kernels (kernel/kcrt0.S): both place .data and .bss in local RAM themselves,
 * since the host only loads L1. */
#ifndef BHEMU_FW_REF_LDM_INIT_H
#define BHEMU_FW_REF_LDM_INIT_H

/* reg = address of sym, absolute (lui/addi): it stays put when the host moves a kernel image. */
.macro la_abs reg, sym
	lui	\reg, %hi(\sym)
	addi	\reg, \reg, %lo(\sym)
.endm

/* t0 = the load image of .data. Copies it to [data_start, data_end), then zeroes
 * [bss_start, bss_end); both ranges word-aligned. Clobbers t0-t3. */
.macro ldm_init data_start, data_end, bss_start, bss_end
	la_abs	t1, \data_start
	la_abs	t2, \data_end
1:	bgeu	t1, t2, 2f
	lw	t3, 0(t0)
	sw	t3, 0(t1)
	addi	t0, t0, 4
	addi	t1, t1, 4
	j	1b
2:
	la_abs	t1, \bss_start
	la_abs	t2, \bss_end
3:	bgeu	t1, t2, 4f
	sw	zero, 0(t1)
	addi	t1, t1, 4
	j	3b
4:
.endm

#endif
