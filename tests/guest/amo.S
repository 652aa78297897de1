/* AMO*.W wrappers for amo.c. Blackhole has Zaamo (the AMOs) but no LR/SC; GCC 12 knows no
 * "zaamo", so only these functions are assembled with the A extension.
 *
 *   uint32_t amo_<op>(uint32_t *addr, uint32_t value)   returns the old memory value
 */
	.option arch, +a
	.text

#define AMO_FUNCTION(name, insn)	\
	.globl name;			\
	.type name, @function;		\
	.balign 4;			\
name:					\
	insn a0, a1, (a0);		\
	ret;				\
	.size name, . - name

AMO_FUNCTION(amo_swap, amoswap.w)
AMO_FUNCTION(amo_add, amoadd.w)
AMO_FUNCTION(amo_xor, amoxor.w)
AMO_FUNCTION(amo_and, amoand.w)
AMO_FUNCTION(amo_or, amoor.w)
AMO_FUNCTION(amo_min, amomin.w)
AMO_FUNCTION(amo_max, amomax.w)
AMO_FUNCTION(amo_minu, amominu.w)
AMO_FUNCTION(amo_maxu, amomaxu.w)

/* Ordering bits are accepted and (on Blackhole) ignored. */
AMO_FUNCTION(amo_add_aq, amoadd.w.aq)
AMO_FUNCTION(amo_add_rl, amoadd.w.rl)
AMO_FUNCTION(amo_add_aqrl, amoadd.w.aqrl)
AMO_FUNCTION(amo_swap_aqrl, amoswap.w.aqrl)

/* Register corner cases. */

/* uint32_t amo_add_distinct(uint32_t *addr, uint32_t value): rd, rs1, rs2 all different */
	.globl amo_add_distinct
	.type amo_add_distinct, @function
amo_add_distinct:
	amoadd.w a2, a1, (a0)
	mv	a0, a2
	ret
	.size amo_add_distinct, . - amo_add_distinct

/* uint32_t amo_swap_rd_is_rs2(uint32_t *addr, uint32_t value): the stored value is the one
 * rs2 held before the instruction wrote rd */
	.globl amo_swap_rd_is_rs2
	.type amo_swap_rd_is_rs2, @function
amo_swap_rd_is_rs2:
	amoswap.w a1, a1, (a0)
	mv	a0, a1
	ret
	.size amo_swap_rd_is_rs2, . - amo_swap_rd_is_rs2

/* void amo_add_discard(uint32_t *addr, uint32_t value): rd = x0, memory still updated */
	.globl amo_add_discard
	.type amo_add_discard, @function
amo_add_discard:
	amoadd.w zero, a1, (a0)
	ret
	.size amo_add_discard, . - amo_add_discard
