/* Every instruction the baby RISC-V cores decode: RV32I, M, Zicsr, Zba, Zbb, Zbkb brev8, Zaamo,
 * plus encodings that exist in RISC-V but not on Blackhole (they decode to a named fault).
 * One table for decode (mask/match), the interpreter (one handler per name), disassembly
 * (format) and statistics. Order matters only where masks overlap: more specific first.
 *
 * X(name, mnemonic, mask, match, format) */
#ifndef BH_CORES_RV32_INSNS_H
#define BH_CORES_RV32_INSNS_H

#include <stddef.h>
#include <stdint.h>

#define RV32_INSNS(X) \
	/* RV32I */ \
	X(lui,     "lui",     0x0000007f, 0x00000037, U) \
	X(auipc,   "auipc",   0x0000007f, 0x00000017, U) \
	X(jal,     "jal",     0x0000007f, 0x0000006f, J) \
	X(jalr,    "jalr",    0x0000707f, 0x00000067, I) \
	X(beq,     "beq",     0x0000707f, 0x00000063, B) \
	X(bne,     "bne",     0x0000707f, 0x00001063, B) \
	X(blt,     "blt",     0x0000707f, 0x00004063, B) \
	X(bge,     "bge",     0x0000707f, 0x00005063, B) \
	X(bltu,    "bltu",    0x0000707f, 0x00006063, B) \
	X(bgeu,    "bgeu",    0x0000707f, 0x00007063, B) \
	X(lb,      "lb",      0x0000707f, 0x00000003, L) \
	X(lh,      "lh",      0x0000707f, 0x00001003, L) \
	X(lw,      "lw",      0x0000707f, 0x00002003, L) \
	X(lbu,     "lbu",     0x0000707f, 0x00004003, L) \
	X(lhu,     "lhu",     0x0000707f, 0x00005003, L) \
	X(sb,      "sb",      0x0000707f, 0x00000023, S) \
	X(sh,      "sh",      0x0000707f, 0x00001023, S) \
	X(sw,      "sw",      0x0000707f, 0x00002023, S) \
	X(addi,    "addi",    0x0000707f, 0x00000013, I) \
	X(slti,    "slti",    0x0000707f, 0x00002013, I) \
	X(sltiu,   "sltiu",   0x0000707f, 0x00003013, I) \
	X(xori,    "xori",    0x0000707f, 0x00004013, I) \
	X(ori,     "ori",     0x0000707f, 0x00006013, I) \
	X(andi,    "andi",    0x0000707f, 0x00007013, I) \
	X(slli,    "slli",    0xfe00707f, 0x00001013, SH) \
	X(srli,    "srli",    0xfe00707f, 0x00005013, SH) \
	X(srai,    "srai",    0xfe00707f, 0x40005013, SH) \
	X(add,     "add",     0xfe00707f, 0x00000033, R) \
	X(sub,     "sub",     0xfe00707f, 0x40000033, R) \
	X(sll,     "sll",     0xfe00707f, 0x00001033, R) \
	X(slt,     "slt",     0xfe00707f, 0x00002033, R) \
	X(sltu,    "sltu",    0xfe00707f, 0x00003033, R) \
	X(xor,     "xor",     0xfe00707f, 0x00004033, R) \
	X(srl,     "srl",     0xfe00707f, 0x00005033, R) \
	X(sra,     "sra",     0xfe00707f, 0x40005033, R) \
	X(or,      "or",      0xfe00707f, 0x00006033, R) \
	X(and,     "and",     0xfe00707f, 0x00007033, R) \
	X(fence,   "fence",   0x0000707f, 0x0000000f, NONE) \
	X(ecall,   "ecall",   0xffffffff, 0x00000073, NONE) \
	X(ebreak,  "ebreak",  0xffffffff, 0x00100073, NONE) \
	/* M */ \
	X(mul,     "mul",     0xfe00707f, 0x02000033, R) \
	X(mulh,    "mulh",    0xfe00707f, 0x02001033, R) \
	X(mulhsu,  "mulhsu",  0xfe00707f, 0x02002033, R) \
	X(mulhu,   "mulhu",   0xfe00707f, 0x02003033, R) \
	X(div,     "div",     0xfe00707f, 0x02004033, R) \
	X(divu,    "divu",    0xfe00707f, 0x02005033, R) \
	X(rem,     "rem",     0xfe00707f, 0x02006033, R) \
	X(remu,    "remu",    0xfe00707f, 0x02007033, R) \
	/* Zicsr */ \
	X(csrrw,   "csrrw",   0x0000707f, 0x00001073, CSR) \
	X(csrrs,   "csrrs",   0x0000707f, 0x00002073, CSR) \
	X(csrrc,   "csrrc",   0x0000707f, 0x00003073, CSR) \
	X(csrrwi,  "csrrwi",  0x0000707f, 0x00005073, CSRI) \
	X(csrrsi,  "csrrsi",  0x0000707f, 0x00006073, CSRI) \
	X(csrrci,  "csrrci",  0x0000707f, 0x00007073, CSRI) \
	/* Zba */ \
	X(sh1add,  "sh1add",  0xfe00707f, 0x20002033, R) \
	X(sh2add,  "sh2add",  0xfe00707f, 0x20004033, R) \
	X(sh3add,  "sh3add",  0xfe00707f, 0x20006033, R) \
	/* Zbb (RV32 encodings) */ \
	X(andn,    "andn",    0xfe00707f, 0x40007033, R) \
	X(orn,     "orn",     0xfe00707f, 0x40006033, R) \
	X(xnor,    "xnor",    0xfe00707f, 0x40004033, R) \
	X(clz,     "clz",     0xfff0707f, 0x60001013, R1) \
	X(ctz,     "ctz",     0xfff0707f, 0x60101013, R1) \
	X(cpop,    "cpop",    0xfff0707f, 0x60201013, R1) \
	X(sext_b,  "sext.b",  0xfff0707f, 0x60401013, R1) \
	X(sext_h,  "sext.h",  0xfff0707f, 0x60501013, R1) \
	X(max,     "max",     0xfe00707f, 0x0a006033, R) \
	X(maxu,    "maxu",    0xfe00707f, 0x0a007033, R) \
	X(min,     "min",     0xfe00707f, 0x0a004033, R) \
	X(minu,    "minu",    0xfe00707f, 0x0a005033, R) \
	X(zext_h,  "zext.h",  0xfff0707f, 0x08004033, R1) \
	X(rol,     "rol",     0xfe00707f, 0x60001033, R) \
	X(ror,     "ror",     0xfe00707f, 0x60005033, R) \
	X(rori,    "rori",    0xfe00707f, 0x60005013, SH) \
	X(orc_b,   "orc.b",   0xfff0707f, 0x28705013, R1) \
	X(rev8,    "rev8",    0xfff0707f, 0x69805013, R1) \
	/* Zbkb subset present on Blackhole: pack (zext.h is pack with rs2 = x0) and brev8 */ \
	X(pack,    "pack",    0xfe00707f, 0x08004033, R) \
	X(brev8,   "brev8",   0xfff0707f, 0x68705013, R1) \
	/* Zaamo: word AMOs on L1 (aq/rl ignored) */ \
	X(amoadd,  "amoadd.w",  0xf800707f, 0x0000202f, AMO) \
	X(amoswap, "amoswap.w", 0xf800707f, 0x0800202f, AMO) \
	X(amoxor,  "amoxor.w",  0xf800707f, 0x2000202f, AMO) \
	X(amoor,   "amoor.w",   0xf800707f, 0x4000202f, AMO) \
	X(amoand,  "amoand.w",  0xf800707f, 0x6000202f, AMO) \
	X(amomin,  "amomin.w",  0xf800707f, 0x8000202f, AMO) \
	X(amomax,  "amomax.w",  0xf800707f, 0xa000202f, AMO) \
	X(amominu, "amominu.w", 0xf800707f, 0xc000202f, AMO) \
	X(amomaxu, "amomaxu.w", 0xf800707f, 0xe000202f, AMO)

/* Standard encodings that Blackhole does not implement: decoding them is a fault naming why.
 * X(name, mnemonic, mask, match, reason) */
#define RV32_UNSUPPORTED(X) \
	X(lr_w,    "lr.w",    0xf9f0707f, 0x1000202f, "LR/SC do not exist on Blackhole (only Zaamo AMOs)") \
	X(sc_w,    "sc.w",    0xf800707f, 0x1800202f, "LR/SC do not exist on Blackhole (only Zaamo AMOs)") \
	X(fence_i, "fence.i", 0x0000707f, 0x0000100f, "fence.i does not flush the I-cache on Blackhole; write Tensix config 185 (RISCV_IC_INVALIDATE)") \
	X(wfi,     "wfi",     0xffffffff, 0x10500073, "wfi is not modelled (no interrupts are used by tt-metal)") \
	X(mret,    "mret",    0xffffffff, 0x30200073, "mret is not modelled (no traps or interrupts)")

/* Instruction formats: operand layout for decode and disassembly. */
enum rv_format { RV_FMT_R, RV_FMT_R1, RV_FMT_I, RV_FMT_L, RV_FMT_S, RV_FMT_B, RV_FMT_U, RV_FMT_J,
		 RV_FMT_SH, RV_FMT_CSR, RV_FMT_CSRI, RV_FMT_AMO, RV_FMT_NONE };

enum rv_op {
#define RV_X_ENUM(name, mn, mask, match, fmt) RV_OP_##name,
	RV32_INSNS(RV_X_ENUM)
#undef RV_X_ENUM
	RV_OP_NUM_REAL,
	/* Pseudo-ops of the decoded-instruction cache. */
	RV_OP_unsupported = RV_OP_NUM_REAL,  /* imm = index into the unsupported table, rs2.. = word */
	RV_OP_illegal,                       /* imm = instruction word */
	RV_OP_ttinsn,                        /* imm = instruction word (low bits != 11) */
	RV_OP_decode,                        /* not decoded yet */
	RV_OP_page_end,                      /* sentinel after the last slot of a page */
	RV_OP_NUM,
};

/* A pre-decoded instruction. rd = 0 is mapped to 32 (a write sink) so handlers never test x0.
 * For loads/stores/branches/jumps imm is the sign-extended offset; for AUIPC the final value. */
struct rv_insn {
	const void *h;      /* handler of the threaded interpreter */
	uint8_t rd, rs1, rs2;
	uint8_t op;         /* enum rv_op */
	int32_t imm;
};

struct rv_opinfo {
	const char *mnemonic;
	uint32_t mask, match;
	enum rv_format fmt;
};
extern const struct rv_opinfo rv_opinfo[RV_OP_NUM_REAL];

/* Decode one word into *insn (all fields except h). pc is the word's address. */
void rv32_decode(uint32_t word, uint32_t pc, struct rv_insn *insn);
/* Human-readable disassembly of word at pc, for reports and traces. */
void rv32_disasm(uint32_t word, uint32_t pc, char *out, size_t outlen);
const char *rv32_unsupported_reason(uint32_t word);
/* ABI name of integer register r ("zero", "ra", "sp", ...). */
const char *rv32_reg_name(unsigned r);

#endif
