/* Disassembly for fault reports and traces, from the same table as decode. */
#include <stdio.h>

#include "cores/rv32_insns.h"

static const char *const rv_abi[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

const char *rv32_reg_name(unsigned r)
{
	return rv_abi[r & 31];
}

void rv32_disasm(uint32_t w, uint32_t pc, char *out, size_t n)
{
	struct rv_insn d;
	rv32_decode(w, pc, &d);
	if (d.op == RV_OP_ttinsn) {
		uint32_t t = w >> 2 | w << 30;
		snprintf(out, n, ".ttinsn 0x%08x (Tensix opcode 0x%02x)", t, t >> 24);
		return;
	}
	if (d.op == RV_OP_unsupported || d.op == RV_OP_illegal) {
		const char *why = rv32_unsupported_reason(w);
		snprintf(out, n, "%s", why ? why : "(illegal instruction)");
		return;
	}
	const struct rv_opinfo *o = &rv_opinfo[d.op];
	const char *rd = rv_abi[d.rd & 31], *rs1 = rv_abi[d.rs1], *rs2 = rv_abi[d.rs2];
	switch (o->fmt) {
	case RV_FMT_R: snprintf(out, n, "%s %s,%s,%s", o->mnemonic, rd, rs1, rs2); break;
	case RV_FMT_R1: snprintf(out, n, "%s %s,%s", o->mnemonic, rd, rs1); break;
	case RV_FMT_I: snprintf(out, n, "%s %s,%s,%d", o->mnemonic, rd, rs1, d.imm); break;
	case RV_FMT_SH: snprintf(out, n, "%s %s,%s,%d", o->mnemonic, rd, rs1, d.imm); break;
	case RV_FMT_L: snprintf(out, n, "%s %s,%d(%s)", o->mnemonic, rd, d.imm, rs1); break;
	case RV_FMT_S: snprintf(out, n, "%s %s,%d(%s)", o->mnemonic, rs2, d.imm, rs1); break;
	case RV_FMT_B: snprintf(out, n, "%s %s,%s,0x%x", o->mnemonic, rs1, rs2, pc + (uint32_t)d.imm); break;
	case RV_FMT_J: snprintf(out, n, "%s %s,0x%x", o->mnemonic, rd, pc + (uint32_t)d.imm); break;
	case RV_FMT_U:
		snprintf(out, n, "%s %s,0x%x", o->mnemonic, rd, (d.op == RV_OP_auipc ? (uint32_t)d.imm - pc : (uint32_t)d.imm) >> 12);
		break;
	case RV_FMT_CSR: snprintf(out, n, "%s %s,0x%x,%s", o->mnemonic, rd, (unsigned)d.imm, rs1); break;
	case RV_FMT_CSRI: snprintf(out, n, "%s %s,0x%x,%u", o->mnemonic, rd, (unsigned)d.imm, d.rs1); break;
	case RV_FMT_AMO: snprintf(out, n, "%s %s,%s,(%s)", o->mnemonic, rd, rs2, rs1); break;
	case RV_FMT_NONE: snprintf(out, n, "%s", o->mnemonic); break;
	}
}
