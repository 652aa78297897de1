/* rvgen: writes a random but valid RV32IM + Zba/Zbb (+ AMO*.W) instruction sequence as an
 * assembly file, for differential testing of bhemu against qemu-riscv32.
 *
 * The generated rvgen_body() sets all registers except sp to seed-chosen values, runs a
 * straight-line sequence with forward branches and jumps, and stores every register into
 * rvgen_regs[]. sp (x2) is reserved as the base of the scratch buffer rvgen_scratch, the only
 * memory the sequence touches (aligned offsets only). rvgen_main.c calls it and prints the
 * registers and a hash of the scratch buffer. The same seed always gives the same file.
 *
 * --loops wraps runs of 3..16 items in counted loops (2..12 iterations, the counter in a word
 * past rvgen_regs that the items never touch, loaded into t0 around the back edge): forward
 * targets stay inside their loop (a target past its end goes to the loop's decrement) and
 * targets outside loops stop at the next loop's start, which sets the counter. Without
 * --loops the program of a seed is what it always was. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RVGEN_SCRATCH_BYTES 1024	/* sp points at its middle: offsets -512 .. 511 */
#define RVGEN_MAX_SKIP 8		/* forward branches and jumps skip 1..8 items */

/* One generator state: the PRNG and the output. */
struct rvgen {
	uint64_t rng;
	FILE *out;
	int count;	/* items in the body; each item has the label .Lrg_<index> */
	bool amo;
	bool loops;
	int *loop_end;	/* --loops: at a loop's first item, the index after its last; else 0 */
	int *loop_iter;	/* at a loop's first item, its iterations */
	int *in_loop;	/* per item: the first item of its loop, or -1 */
};

static uint64_t rvgen_next(struct rvgen *g)
{
	/* splitmix64: good enough, and fixed so a seed reproduces everywhere. */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rvgen_below(struct rvgen *g, uint32_t n)
{
	return (uint32_t)(rvgen_next(g) % n);
}

static void emit(struct rvgen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputc('\t', g->out);
	vfprintf(g->out, fmt, ap);
	fputc('\n', g->out);
	va_end(ap);
}

/* A 32-bit value, biased towards the ones implementations get wrong. */
static uint32_t rvgen_value(struct rvgen *g)
{
	static const uint32_t edges[] = { 0, 1, 2, 31, 32, 33, 63, 0x7f, 0x80, 0xff, 0x7fff, 0x8000,
					  0xffff, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe,
					  0xffffffff, 0xffffff80, 0xffff8000 };
	switch (rvgen_below(g, 4)) {
	case 0:
		return edges[rvgen_below(g, sizeof(edges) / sizeof(edges[0]))];
	case 1: {
		uint32_t shift = rvgen_below(g, 32);
		return (uint32_t)rvgen_next(g) >> shift;	/* small magnitudes */
	}
	default:
		return (uint32_t)rvgen_next(g);
	}
}

/* A signed 12-bit immediate. */
static int rvgen_imm12(struct rvgen *g)
{
	static const int edges[] = { 0, 1, -1, 2, 31, 2047, -2048, 0x7ff, -0x7ff, 0x555 };
	if (rvgen_below(g, 3) == 0)
		return edges[rvgen_below(g, sizeof(edges) / sizeof(edges[0]))];
	return (int)rvgen_below(g, 4096) - 2048;
}

static int rvgen_shamt(struct rvgen *g)
{
	static const int edges[] = { 0, 1, 7, 8, 15, 16, 31 };
	if (rvgen_below(g, 2) == 0)
		return edges[rvgen_below(g, sizeof(edges) / sizeof(edges[0]))];
	return (int)rvgen_below(g, 32);
}

/* Destination: any register but sp; x0 now and then (the write must vanish). */
static int rvgen_rd(struct rvgen *g)
{
	if (rvgen_below(g, 40) == 0)
		return 0;
	int r = 1 + (int)rvgen_below(g, 30);	/* 1, 3 .. 31 */
	return r >= 2 ? r + 1 : r;
}

/* A register that may be written and then used as an address or jump base: not x0, not sp. */
static int rvgen_temp(struct rvgen *g)
{
	int r;
	while ((r = rvgen_rd(g)) == 0)
		;
	return r;
}

/* Sources: any register, x0 and sp (the scratch address) included. */
static int rvgen_rs(struct rvgen *g)
{
	return (int)rvgen_below(g, 32);
}

/* Label index of a forward target 1..RVGEN_MAX_SKIP items ahead (count = the end label). */
static int rvgen_forward(struct rvgen *g, int index)
{
	int target = index + 1 + (int)rvgen_below(g, RVGEN_MAX_SKIP);
	return target > g->count ? g->count : target;
}

/* The label a forward jump of item index to item target lands on (--loops: kept inside the item's
 * loop, or before the next loop's counter set-up). */
static void rvgen_target(const struct rvgen *g, int index, int target, char *buf, size_t n)
{
	if (g->loops && g->in_loop[index] >= 0) {
		int first = g->in_loop[index];
		if (target >= g->loop_end[first]) {
			snprintf(buf, n, ".Llend_%d", first);
			return;
		}
	} else if (g->loops) {
		for (int k = index + 1; k < target; k++)
			if (g->loop_end[k]) {
				target = k;
				break;
			}
	}
	snprintf(buf, n, ".Lrg_%d", target);
}

/* A scratch offset from sp for an access of width bytes, aligned to width, from a raw draw. */
static int rvgen_offset(uint32_t raw, int width)
{
	int half = RVGEN_SCRATCH_BYTES / 2;
	return (int)(raw % (RVGEN_SCRATCH_BYTES / (uint32_t)width)) * width - half;
}

static const char *const rvgen_rr_ops[] = {
	"add",	  "sub",    "sll",    "slt",	"sltu",	  "xor",    "srl",  "sra",  "or",
	"and",	  "mul",    "mulh",   "mulhsu", "mulhu",  "div",    "divu", "rem",  "remu",
	"sh1add", "sh2add", "sh3add", "andn",	"orn",	  "xnor",   "max",  "maxu", "min",
	"minu",	  "rol",    "ror",
};
static const char *const rvgen_ri_ops[] = { "addi", "slti", "sltiu", "xori", "ori", "andi" };
static const char *const rvgen_shift_ops[] = { "slli", "srli", "srai", "rori" };
static const char *const rvgen_unary_ops[] = { "clz",	 "ctz",	   "cpop", "sext.b",
					       "sext.h", "zext.h", "orc.b", "rev8" };
static const char *const rvgen_loads[] = { "lb", "lbu", "lh", "lhu", "lw" };
static const int rvgen_load_width[] = { 1, 1, 2, 2, 4 };
static const char *const rvgen_stores[] = { "sb", "sh", "sw" };
static const int rvgen_store_width[] = { 1, 2, 4 };
static const char *const rvgen_branches[] = { "beq", "bne", "blt", "bge", "bltu", "bgeu" };
static const char *const rvgen_amos[] = { "amoswap.w", "amoadd.w", "amoxor.w",
					  "amoand.w",  "amoor.w",  "amomin.w",
					  "amomax.w",  "amominu.w", "amomaxu.w" };
#define N_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* The random choices of one item, drawn in a fixed order: C leaves the evaluation order of
 * function arguments open, so no expression may contain two draws (or a seed would give
 * different programs with different compilers). */
struct rvgen_draw {
	uint32_t kind;		/* which group, 0..99 */
	uint32_t pick;		/* which op of the group's table */
	uint32_t choice;	/* small independent choices, bit by bit */
	int rd, rs1, rs2, temp;
	int imm12, shamt;
	uint32_t value;
	uint32_t offset;	/* raw; see rvgen_offset() */
	uint32_t offset2;
	int forward;
};

static void rvgen_draw(struct rvgen *g, int index, struct rvgen_draw *d)
{
	d->kind = rvgen_below(g, 100);
	d->pick = (uint32_t)rvgen_next(g);
	d->choice = (uint32_t)rvgen_next(g);
	d->rd = rvgen_rd(g);
	d->rs1 = rvgen_rs(g);
	d->rs2 = rvgen_rs(g);
	d->temp = rvgen_temp(g);
	d->imm12 = rvgen_imm12(g);
	d->shamt = rvgen_shamt(g);
	d->value = rvgen_value(g);
	d->offset = (uint32_t)rvgen_next(g);
	d->offset2 = (uint32_t)rvgen_next(g);
	d->forward = rvgen_forward(g, index);
}

/* One item of the body: usually one instruction, sometimes a short group. */
#define RVGEN_LOOP_COUNTER (RVGEN_SCRATCH_BYTES / 2 + 128)	/* sp offset: past rvgen_regs */

static void rvgen_item(struct rvgen *g, int index)
{
	struct rvgen_draw d;
	char to[32];

	rvgen_draw(g, index, &d);
	fprintf(g->out, ".Lrg_%d:\n", index);
	if (g->loops && g->loop_end[index]) {
		emit(g, "li t0, %d", g->loop_iter[index]);
		emit(g, "sw t0, %d(sp)", RVGEN_LOOP_COUNTER);
		fprintf(g->out, ".Llbody_%d:\n", index);
	}
	rvgen_target(g, index, d.forward, to, sizeof to);
	if (d.kind < 35) {
		emit(g, "%s x%d, x%d, x%d", rvgen_rr_ops[d.pick % N_OF(rvgen_rr_ops)], d.rd, d.rs1,
		     d.rs2);
	} else if (d.kind < 50) {
		emit(g, "%s x%d, x%d, %d", rvgen_ri_ops[d.pick % N_OF(rvgen_ri_ops)], d.rd, d.rs1,
		     d.imm12);
	} else if (d.kind < 57) {
		emit(g, "%s x%d, x%d, %d", rvgen_shift_ops[d.pick % N_OF(rvgen_shift_ops)], d.rd,
		     d.rs1, d.shamt);
	} else if (d.kind < 63) {
		emit(g, "%s x%d, x%d", rvgen_unary_ops[d.pick % N_OF(rvgen_unary_ops)], d.rd, d.rs1);
	} else if (d.kind < 66) {
		emit(g, "%s x%d, 0x%x", (d.choice & 1) ? "lui" : "auipc", d.rd, d.value >> 12);
	} else if (d.kind < 74) {
		uint32_t op = d.pick % N_OF(rvgen_loads);
		emit(g, "%s x%d, %d(sp)", rvgen_loads[op], d.rd,
		     rvgen_offset(d.offset, rvgen_load_width[op]));
	} else if (d.kind < 81) {
		uint32_t op = d.pick % N_OF(rvgen_stores);
		emit(g, "%s x%d, %d(sp)", rvgen_stores[op], d.rs1,
		     rvgen_offset(d.offset, rvgen_store_width[op]));
	} else if (d.kind < 84) {
		/* Another base register: base = sp + a, then a word access at b, a + b in range. */
		int a = rvgen_offset(d.offset, 4), b = 4 * ((int)(d.offset2 % 64) - 32);
		if (a + b < -RVGEN_SCRATCH_BYTES / 2 || a + b > RVGEN_SCRATCH_BYTES / 2 - 4)
			b = 0;
		emit(g, "addi x%d, sp, %d", d.temp, a);
		if (d.choice & 1)
			emit(g, "lw x%d, %d(x%d)", d.rd, b, d.temp);
		else
			emit(g, "sw x%d, %d(x%d)", d.rs1, b, d.temp);
	} else if (d.kind < 92) {
		emit(g, "%s x%d, x%d, %s", rvgen_branches[d.pick % N_OF(rvgen_branches)], d.rs1, d.rs2, to);
	} else if (d.kind < 95) {
		emit(g, "jal x%d, %s", d.rd, to);
	} else if (d.kind < 97) {
		/* pc-relative indirect jump; an odd low offset checks that jalr clears bit 0 */
		fprintf(g->out, ".Lpc_%d:\n", index);
		emit(g, "auipc x%d, %%pcrel_hi(%s)", d.temp, to);
		emit(g, "addi x%d, x%d, %%pcrel_lo(.Lpc_%d)", d.temp, d.temp, index);
		emit(g, "jalr x%d, %d(x%d)", d.rd, (int)(d.choice & 1), d.temp);
	} else if (g->amo) {
		emit(g, "addi x%d, sp, %d", d.temp, rvgen_offset(d.offset, 4));
		emit(g, "%s x%d, x%d, (x%d)", rvgen_amos[d.pick % N_OF(rvgen_amos)], d.rd, d.rs2,
		     d.temp);
	} else {
		emit(g, "xor x%d, x%d, x%d", d.rd, d.rs1, d.rs2);
	}
	if (g->loops && g->in_loop[index] >= 0 && g->loop_end[g->in_loop[index]] == index + 1) {
		int first = g->in_loop[index];
		fprintf(g->out, ".Llend_%d:\n", first);
		emit(g, "lw t0, %d(sp)", RVGEN_LOOP_COUNTER);
		emit(g, "addi t0, t0, -1");
		emit(g, "sw t0, %d(sp)", RVGEN_LOOP_COUNTER);
		emit(g, "bnez t0, .Llbody_%d", first);
	}
}

/* --loops: the loops, drawn from their own generator so that the items' draws are those of the
 * seed without loops. */
static void rvgen_plan_loops(struct rvgen *g, uint64_t seed)
{
	struct rvgen p = { .rng = seed ^ 0x6c6f6f7073ull };
	for (int i = 0; i < g->count; i++)
		g->in_loop[i] = -1;
	for (int i = 0; i < g->count;) {
		int len = 3 + (int)rvgen_below(&p, 14);
		if (rvgen_below(&p, 3) == 0 || i + len > g->count) {
			i++;
			continue;
		}
		g->loop_end[i] = i + len;
		g->loop_iter[i] = 2 + (int)rvgen_below(&p, 11);
		for (int k = i; k < i + len; k++)
			g->in_loop[k] = i;
		i += len;
	}
}

/* Registers saved across the body: ra, sp, gp, tp and the callee-saved s0..s11. */
static const char *const rvgen_saved_regs[] = { "ra", "sp", "gp", "tp", "s0",  "s1",
						"s2", "s3", "s4", "s5", "s6",  "s7",
						"s8", "s9", "s10", "s11" };

static void rvgen_file(struct rvgen *g, uint64_t seed)
{
	int half = RVGEN_SCRATCH_BYTES / 2;

	fprintf(g->out,
		"/* Generated by rvgen --seed %" PRIu64 " --count %d%s: do not edit. */\n"
		"\t.option norelax\t/* gp is a random register here */\n"
		"%s"
		"\t.text\n"
		"\t.globl rvgen_body\n"
		"\t.type rvgen_body, @function\n"
		"rvgen_body:\n",
		seed, g->count, g->amo ? (g->loops ? " --loops" : "") : (g->loops ? " --no-amo --loops" : " --no-amo"),
		g->amo ? "\t.option arch, +a\n" : "");
	emit(g, "lla t0, rvgen_saved");
	for (uint32_t i = 0; i < N_OF(rvgen_saved_regs); i++)
		emit(g, "sw %s, %u(t0)", rvgen_saved_regs[i], 4 * i);
	emit(g, "lla sp, rvgen_scratch + %d", half);
	for (int r = 1; r < 32; r++)
		if (r != 2)
			emit(g, "li x%d, 0x%08x", r, rvgen_value(g));

	for (int i = 0; i < g->count; i++)
		rvgen_item(g, i);
	fprintf(g->out, ".Lrg_%d:\n", g->count);

	/* rvgen_regs follows the scratch buffer, so sp still reaches it. */
	for (int r = 0; r < 32; r++)
		emit(g, "sw x%d, %d(sp)", r, half + 4 * r);
	emit(g, "lla t0, rvgen_saved");
	for (int i = (int)N_OF(rvgen_saved_regs) - 1; i >= 0; i--)
		emit(g, "lw %s, %d(t0)", rvgen_saved_regs[i], 4 * i);
	emit(g, "ret");
	emit(g, ".size rvgen_body, . - rvgen_body");

	fprintf(g->out, "\n\t.data\n\t.balign 16\n\t.globl rvgen_scratch\nrvgen_scratch:\n");
	for (int i = 0; i < RVGEN_SCRATCH_BYTES / 4; i++)
		emit(g, ".word 0x%08x", rvgen_value(g));
	fprintf(g->out, "\t.globl rvgen_regs\nrvgen_regs:\n\t.space 128\n");
	if (g->loops)
		fprintf(g->out, "rvgen_loop_counter:\n\t.space 4\n");   /* sp + RVGEN_LOOP_COUNTER */
	fprintf(g->out, "\t.globl rvgen_scratch_bytes\nrvgen_scratch_bytes:\n\t.word %d\n",
		RVGEN_SCRATCH_BYTES);
	fprintf(g->out, "rvgen_saved:\n\t.space %u\n", 4 * N_OF(rvgen_saved_regs));
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rvgen [--seed S] [--count N] [--no-amo] [--loops] [-o FILE.S]\n"
		"Writes a random RV32IM+Zba+Zbb(+AMO) test body (rvgen_body) as assembly;\n"
		"link it with rvgen_main.c and the bare runtime. Defaults: seed 1, count 1000,\n"
		"AMO*.W included, no loops (--loops: runs of items in counted loops), output on\n"
		"stdout. Exit status 0, or 2 for bad usage.\n");
}

int main(int argc, char **argv)
{
	struct rvgen g = { .count = 1000, .amo = true, .out = stdout };
	uint64_t seed = 1;
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		char *end = NULL;
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			seed = strtoull(argv[++i], &end, 0);
		} else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
			long n = strtol(argv[++i], &end, 0);
			if (n < 1 || n > 1000000) {
				fprintf(stderr, "rvgen: --count wants 1..1000000\n");
				return 2;
			}
			g.count = (int)n;
		} else if (strcmp(argv[i], "--no-amo") == 0) {
			g.amo = false;
		} else if (strcmp(argv[i], "--loops") == 0) {
			g.loops = true;
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			path = argv[++i];
		} else if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
		if (end != NULL && *end != '\0') {
			fprintf(stderr, "rvgen: bad number '%s'\n", argv[i]);
			return 2;
		}
	}
	if (path != NULL && (g.out = fopen(path, "w")) == NULL) {
		perror(path);
		return 2;
	}
	g.rng = seed;
	if (g.loops) {
		g.loop_end = calloc((size_t)g.count, sizeof *g.loop_end);
		g.loop_iter = calloc((size_t)g.count, sizeof *g.loop_iter);
		g.in_loop = calloc((size_t)g.count, sizeof *g.in_loop);
		if (!g.loop_end || !g.loop_iter || !g.in_loop) {
			fprintf(stderr, "rvgen: out of memory\n");
			return 2;
		}
		rvgen_plan_loops(&g, seed);
	}
	rvgen_file(&g, seed);
	free(g.loop_end);
	free(g.loop_iter);
	free(g.in_loop);
	if (fclose(g.out) != 0) {
		perror(path != NULL ? path : "stdout");
		return 2;
	}
	return 0;
}
