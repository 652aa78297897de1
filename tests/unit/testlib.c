#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

uint32_t enc_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc)
{
	return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}

uint32_t enc_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc)
{
	return ((uint32_t)imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}

uint32_t enc_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t opc)
{
	uint32_t u = (uint32_t)imm;
	return (u >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 0x1f) << 7 | opc;
}

uint32_t enc_b(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3)
{
	uint32_t u = (uint32_t)imm;
	return (u >> 12 & 1) << 31 | (u >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
	       (u >> 1 & 0xf) << 8 | (u >> 11 & 1) << 7 | 0x63;
}

uint32_t enc_u(uint32_t imm20, uint32_t rd, uint32_t opc)
{
	return imm20 << 12 | rd << 7 | opc;
}

uint32_t enc_j(int32_t imm, uint32_t rd)
{
	uint32_t u = (uint32_t)imm;
	return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 | (u >> 12 & 0xff) << 12 |
	       rd << 7 | 0x6f;
}

void enc_li(uint32_t *out, uint32_t rd, uint32_t value)
{
	uint32_t lo = value & 0xfff, hi = value >> 12;
	if (lo & 0x800)
		hi = (hi + 1) & 0xfffff;
	out[0] = enc_u(hi, rd, 0x37);
	out[1] = enc_i((int32_t)(lo << 20) >> 20, rd, 0, rd, OP_IMM);
}

struct bh_device *t_open(void)
{
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(NULL, &dev), BH_OK);
	for (int c = 0; c < 5; c++)
		bh_core_enable_host_calls(dev, 0, (enum bh_core_id)c, true);
	return dev;
}

void t_run(struct bh_device *dev, enum bh_core_id core, uint32_t addr, const uint32_t *words, unsigned n,
	   struct bh_core_result *res)
{
	cr_assert_eq(bh_l1_write(dev, 0, addr, words, n * 4u), BH_OK);
	cr_assert_eq(bh_core_start(dev, 0, core, addr), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 0, core, 5000, res), BH_OK, "core did not stop within 5 s");
}

uint32_t t_exec(const uint32_t *words, unsigned n)
{
	struct bh_device *dev = t_open();
	uint32_t *code = calloc(n + 3, sizeof *code);
	cr_assert_not_null(code);
	enc_li(code, 17, 93);                        /* a7 = 93: exit */
	memcpy(code + 2, words, n * sizeof *words);
	code[n + 2] = INSN_ECALL;
	struct bh_core_result *res = malloc(sizeof *res);
	t_run(dev, BH_CORE_BRISC, 0x1000, code, n + 3, res);
	cr_assert_eq(res->status, BH_RUN_EXITED, "snippet did not exit: status %d\n%s", res->status, res->report);
	uint32_t v = (uint32_t)res->exit_status;
	free(res);
	free(code);
	bh_device_close(dev);
	return v;
}
