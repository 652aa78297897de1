/* RV32I/M integer edge cases: every register-register op and a set of immediate ops over
 * all pattern pairs (printed), plus random pairs (digest), division by zero and overflow,
 * shift amounts of 31 and above, sign extension of loads, branches, jal/jalr link values. */
#include "guest_test.h"

#define ALU_EXIT_STATUS 7
#define ALU_RANDOM_PAIRS 2000

/* Register-register ops: one function each, the instruction written out so the compiler
 * cannot fold or reorder the C semantics (division by zero is undefined in C). */
#define ALU_RR_OPS(X)                                                                        \
	X(add) X(sub) X(sll) X(slt) X(sltu) X(xor) X(srl) X(sra) X(or) X(and)                \
	X(mul) X(mulh) X(mulhsu) X(mulhu) X(div) X(divu) X(rem) X(remu)

#define ALU_RR_FUNCTION(op)                                                                  \
	static uint32_t alu_##op(uint32_t a, uint32_t b)                                     \
	{                                                                                    \
		uint32_t r;                                                                  \
		__asm__ volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));                \
		return r;                                                                    \
	}
ALU_RR_OPS(ALU_RR_FUNCTION)

struct alu_binary_op {
	const char *name;
	uint32_t (*fn)(uint32_t a, uint32_t b);
};

#define ALU_RR_ENTRY(op) { #op, alu_##op },
static const struct alu_binary_op alu_rr_ops[] = { ALU_RR_OPS(ALU_RR_ENTRY) };

/* Register-immediate ops: (mnemonic, immediate, name suffix). */
#define ALU_RI_OPS(X)                                                                        \
	X(addi, -2048, m2048) X(addi, -1, m1) X(addi, 0, 0) X(addi, 1, 1) X(addi, 2047, 2047)  \
	X(slti, -2048, m2048) X(slti, -1, m1) X(slti, 0, 0) X(slti, 1, 1) X(slti, 2047, 2047)  \
	X(sltiu, -2048, m2048) X(sltiu, -1, m1) X(sltiu, 0, 0) X(sltiu, 1, 1)                 \
	X(sltiu, 2047, 2047) X(xori, -1, m1) X(xori, 0x555, 555) X(xori, -2048, m2048)         \
	X(ori, -1, m1) X(ori, 0x7ff, 7ff) X(ori, -2048, m2048) X(andi, -1, m1)                \
	X(andi, 0x7ff, 7ff) X(andi, -2048, m2048) X(andi, 0, 0) X(slli, 0, 0) X(slli, 1, 1)    \
	X(slli, 31, 31) X(srli, 0, 0) X(srli, 1, 1) X(srli, 31, 31) X(srai, 0, 0)             \
	X(srai, 1, 1) X(srai, 31, 31)

#define ALU_RI_FUNCTION(op, imm, tag)                                                        \
	static uint32_t alu_##op##_##tag(uint32_t a)                                         \
	{                                                                                    \
		uint32_t r;                                                                  \
		__asm__ volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "i"(imm));              \
		return r;                                                                    \
	}
ALU_RI_OPS(ALU_RI_FUNCTION)

struct alu_unary_op {
	const char *name;
	uint32_t (*fn)(uint32_t a);
};

#define ALU_RI_ENTRY(op, imm, tag) { #op " " #imm, alu_##op##_##tag },
static const struct alu_unary_op alu_ri_ops[] = { ALU_RI_OPS(ALU_RI_ENTRY) };

/* Branches: 1 when taken. */
#define ALU_BRANCH_OPS(X) X(beq) X(bne) X(blt) X(bge) X(bltu) X(bgeu)
#define ALU_BRANCH_FUNCTION(op)                                                              \
	static uint32_t alu_##op(uint32_t a, uint32_t b)                                     \
	{                                                                                    \
		uint32_t r;                                                                  \
		__asm__ volatile(#op " %1, %2, 1f\n\t"                                        \
				 "li %0, 0\n\t"                                               \
				 "j 2f\n"                                                     \
				 "1:\tli %0, 1\n"                                             \
				 "2:"                                                         \
				 : "=&r"(r)                                                   \
				 : "r"(a), "r"(b));                                           \
		return r;                                                                    \
	}
ALU_BRANCH_OPS(ALU_BRANCH_FUNCTION)
#define ALU_BRANCH_ENTRY(op) { #op, alu_##op },
static const struct alu_binary_op alu_branch_ops[] = { ALU_BRANCH_OPS(ALU_BRANCH_ENTRY) };

static void alu_test_register_ops(void)
{
	uint32_t row[TEST_N_PATTERNS];

	for (size_t op = 0; op < sizeof(alu_rr_ops) / sizeof(alu_rr_ops[0]); op++) {
		const struct alu_binary_op *o = &alu_rr_ops[op];
		for (int i = 0; i < TEST_N_PATTERNS; i++) {
			for (int j = 0; j < TEST_N_PATTERNS; j++)
				row[j] = o->fn(test_patterns[i], test_patterns[j]);
			test_row_a(o->name, test_patterns[i], row, TEST_N_PATTERNS);
		}
		uint32_t seed = 0x1234567u + (uint32_t)op, h = BARE_FNV_INIT;
		for (int k = 0; k < ALU_RANDOM_PAIRS; k++) {
			uint32_t a = test_rand(&seed), b = test_rand(&seed);
			/* Small divisors and shift amounts happen too. */
			if (k & 1)
				b >>= (a & 31);
			h = bare_fnv1a_u32(h, o->fn(a, b));
		}
		bare_printf("%s random pairs digest = %08x\n", o->name, h);
		test_mix(h);
	}
}

static void alu_test_immediate_ops(void)
{
	uint32_t row[TEST_N_PATTERNS];

	for (size_t op = 0; op < sizeof(alu_ri_ops) / sizeof(alu_ri_ops[0]); op++) {
		for (int i = 0; i < TEST_N_PATTERNS; i++)
			row[i] = alu_ri_ops[op].fn(test_patterns[i]);
		test_row(alu_ri_ops[op].name, row, TEST_N_PATTERNS);
	}
}

/* One row per branch: for each a, a bit mask of the b patterns for which it is taken. */
static void alu_test_branches(void)
{
	uint32_t row[TEST_N_PATTERNS];

	for (size_t op = 0; op < sizeof(alu_branch_ops) / sizeof(alu_branch_ops[0]); op++) {
		for (int i = 0; i < TEST_N_PATTERNS; i++) {
			row[i] = 0;
			for (int j = 0; j < TEST_N_PATTERNS; j++)
				row[i] |= alu_branch_ops[op].fn(test_patterns[i], test_patterns[j]) << j;
		}
		test_row(alu_branch_ops[op].name, row, TEST_N_PATTERNS);
	}
}

/* The results the M extension defines instead of trapping. */
static void alu_test_division_specials(void)
{
	static const uint32_t dividends[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678 };

	for (size_t i = 0; i < sizeof(dividends) / sizeof(dividends[0]); i++) {
		uint32_t x = dividends[i];
		bare_printf("x=%08x: div x/0=%08x divu x/0=%08x rem x%%0=%08x remu x%%0=%08x\n", x,
			    alu_div(x, 0), alu_divu(x, 0), alu_rem(x, 0), alu_remu(x, 0));
		test_mix(alu_div(x, 0) ^ alu_divu(x, 0) ^ alu_rem(x, 0) ^ alu_remu(x, 0));
	}
	test_value("div 80000000/ffffffff", alu_div(0x80000000, 0xffffffff));
	test_value("rem 80000000%ffffffff", alu_rem(0x80000000, 0xffffffff));
	test_value("divu 80000000/ffffffff", alu_divu(0x80000000, 0xffffffff));
	test_value("remu 80000000%ffffffff", alu_remu(0x80000000, 0xffffffff));
	test_value("div -7/2", alu_div((uint32_t)-7, 2));
	test_value("rem -7%2", alu_rem((uint32_t)-7, 2));
	test_value("div 7/-2", alu_div(7, (uint32_t)-2));
	test_value("rem 7%-2", alu_rem(7, (uint32_t)-2));
	test_value("mulh 80000000*80000000", alu_mulh(0x80000000, 0x80000000));
	test_value("mulhsu ffffffff*ffffffff", alu_mulhsu(0xffffffff, 0xffffffff));
	test_value("mulhu ffffffff*ffffffff", alu_mulhu(0xffffffff, 0xffffffff));
	test_value("sll 1<<32", alu_sll(1, 32));
	test_value("sll 1<<33", alu_sll(1, 33));
	test_value("sra 80000000>>63", alu_sra(0x80000000, 63));
	test_value("srl 80000000>>-1", alu_srl(0x80000000, 0xffffffff));
}

static void alu_test_loads(void)
{
	static const uint8_t bytes[8] __attribute__((aligned(8))) = { 0x00, 0x7f, 0x80, 0xff,
								      0x01, 0xfe, 0x7f, 0x80 };
	for (int off = 0; off < 8; off++) {
		uint32_t lb, lbu;
		__asm__ volatile("lb %0, 0(%2)\n\tlbu %1, 0(%2)" : "=&r"(lb), "=&r"(lbu)
				 : "r"(bytes + off) : "memory");
		bare_printf("load byte %d: lb=%08x lbu=%08x\n", off, lb, lbu);
		test_mix(lb);
		test_mix(lbu);
	}
	for (int off = 0; off < 8; off += 2) {
		uint32_t lh, lhu;
		__asm__ volatile("lh %0, 0(%2)\n\tlhu %1, 0(%2)" : "=&r"(lh), "=&r"(lhu)
				 : "r"(bytes + off) : "memory");
		bare_printf("load half %d: lh=%08x lhu=%08x\n", off, lh, lhu);
		test_mix(lh);
		test_mix(lhu);
	}
	for (int off = 0; off < 8; off += 4) {
		uint32_t lw;
		/* Negative offset from the next word: the address arithmetic wraps the same way. */
		__asm__ volatile("lw %0, -4(%1)" : "=r"(lw) : "r"(bytes + off + 4) : "memory");
		bare_printf("load word %d: lw=%08x\n", off, lw);
		test_mix(lw);
	}
}

static void alu_test_upper_and_jumps(void)
{
	uint32_t r, base, link;

	__asm__ volatile("lui %0, 0x80000" : "=r"(r));
	test_value("lui 0x80000", r);
	__asm__ volatile("lui %0, 0xfffff" : "=r"(r));
	test_value("lui 0xfffff", r);
	__asm__ volatile("lui %0, 0x12345\n\taddi %0, %0, -1" : "=r"(r));
	test_value("lui 0x12345 + addi -1", r);
	__asm__ volatile("1: auipc %0, 0x1\n\tlla %1, 1b" : "=&r"(r), "=&r"(base));
	test_value("auipc 0x1 - pc", r - base);
	__asm__ volatile("1: auipc %0, 0xfffff\n\tlla %1, 1b" : "=&r"(r), "=&r"(base));
	test_value("auipc 0xfffff - pc", r - base);

	__asm__ volatile("jal %0, 1f\n1:\tlla %1, 1b" : "=&r"(link), "=&r"(base));
	test_value("jal link - next pc", link - base);
	/* jalr clears bit 0 of the target and may use a negative offset. */
	__asm__ volatile("lla %1, 1f + 5\n\t"
			 "jalr %0, -4(%1)\n"
			 "1:\tlla %1, 1b"
			 : "=&r"(link), "=&r"(base));
	test_value("jalr odd target link - next pc", link - base);
	/* rd == rs1: the target comes from the old value. */
	__asm__ volatile("lla %0, 1f\n\t"
			 "jalr %0, 0(%0)\n"
			 "1:\tlla %1, 1b"
			 : "=&r"(link), "=&r"(base));
	test_value("jalr rd==rs1 link - next pc", link - base);

	__asm__ volatile("addi x0, x0, 123\n\tmv %0, x0" : "=r"(r));
	test_value("x0 after addi x0", r);
	__asm__ volatile("lui x0, 0x12345\n\tadd %0, x0, x0" : "=r"(r));
	test_value("x0 after lui x0", r);
}

int main(void)
{
	alu_test_register_ops();
	alu_test_immediate_ops();
	alu_test_branches();
	alu_test_division_specials();
	alu_test_loads();
	alu_test_upper_and_jumps();
	return test_finish("alu", ALU_EXIT_STATUS);
}
