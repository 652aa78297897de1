/* Helpers shared by the unit tests: encoders for RV32 instructions and a one-core runner. */
#ifndef BH_TESTS_TESTLIB_H
#define BH_TESTS_TESTLIB_H

#include <stdint.h>

#include "bhemu/bhemu.h"

/* Instruction encoders (RISC-V unprivileged spec formats). */
uint32_t enc_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc);
uint32_t enc_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc);
uint32_t enc_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t opc);
uint32_t enc_b(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3);
uint32_t enc_u(uint32_t imm20, uint32_t rd, uint32_t opc);
uint32_t enc_j(int32_t imm, uint32_t rd);
/* li rd, value as lui+addi (2 words). */
void enc_li(uint32_t *out, uint32_t rd, uint32_t value);

#define OP_IMM 0x13
#define OP_REG 0x33
#define OP_LOAD 0x03
#define OP_STORE 0x23
#define OP_SYSTEM 0x73
/* ecall with a7 = 93 (exit), the end of every snippet. */
#define INSN_ECALL 0x00000073u

/* A device of one tile with host calls enabled on `core`. */
struct bh_device *t_open(void);
/* Write words at addr, start `core` there, wait (5 s) and return the result. */
void t_run(struct bh_device *dev, enum bh_core_id core, uint32_t addr, const uint32_t *words, unsigned n,
	   struct bh_core_result *res);
/* Run a snippet on BRISC at 0x1000 that ends in exit(a0); returns a0 (the exit status). The
 * snippet must not clobber a7 (preset to 93). */
uint32_t t_exec(const uint32_t *words, unsigned n);

#endif
