/* Fuzzes the RV32 decoder and disassembler (cores/rv32_decode.c, cores/rv32_disasm.c) and,
 * optionally, the interpreter and block compiler on short random code.
 *
 * Input: a control byte, a 4-byte pc, then 32-bit words (little-endian).
 *  - Every word is decoded at pc + 4k and disassembled into buffers of several sizes. The decode
 *    must match its table entry (mask/match) with registers in range, and the disassembly must be
 *    a NUL-terminated, non-empty string within the buffer; otherwise the harness aborts.
 *  - Control bit 0: the words also run as code on TRISC0 of a fresh one-tile device (so .ttinsn
 *    pushes too) at 0x10000, with an instruction limit; bits 2:1 pick the block compiler (off,
 *    on, eager). Faults, limits and deadlocks are outcomes; a crash, or a core that neither
 *    stops nor deadlocks within 5 s, is a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/bhemu.h"
#include "cores/rv32_insns.h"

#define MAX_WORDS 256
#define CODE_AT 0x10000u
#define CORE_LIMIT 20000u
#define WAIT_MS 5000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t word_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

__attribute__((noreturn)) static void broken(const char *what, uint32_t w, uint32_t pc)
{
	fprintf(stderr, "fuzz_rv32_decode: word 0x%08x at pc 0x%08x: %s\n", w, pc, what);
	abort();
}

static void check_decode(uint32_t w, uint32_t pc)
{
	struct rv_insn d;
	memset(&d, 0xA5, sizeof d);
	rv32_decode(w, pc, &d);
	if (d.op >= RV_OP_decode)
		broken("decoded to a pseudo-op of the cache", w, pc);
	if (d.op < RV_OP_NUM_REAL) {
		const struct rv_opinfo *oi = &rv_opinfo[d.op];
		if ((w & oi->mask) != oi->match)
			broken("decoded to an entry whose mask/match it does not satisfy", w, pc);
		if (d.rd > 32 || d.rs1 > 31 || d.rs2 > 31)
			broken("register index out of range", w, pc);
	} else if ((d.op == RV_OP_ttinsn) != ((w & 3) != 3)) {
		broken(".ttinsn decided by something other than the low two bits", w, pc);
	}
	if (d.op == RV_OP_unsupported && !rv32_unsupported_reason(w))
		broken("unsupported without a reason", w, pc);

	static const size_t sizes[] = { 1, 2, 7, 16, 40, 128 };
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		char buf[129];
		memset(buf, 'Z', sizeof buf);
		rv32_disasm(w, pc, buf, sizes[k]);
		if (buf[sizes[k]] != 'Z')
			broken("disassembly wrote past its buffer", w, pc);
		if (!memchr(buf, 0, sizes[k]))
			broken("disassembly not NUL-terminated", w, pc);
		if (sizes[k] > 1 && buf[0] == 0)
			broken("empty disassembly", w, pc);
	}
}

static void run_words(const uint32_t *words, size_t n, unsigned ctl)
{
	static const enum bh_jit jit[4] = { BH_JIT_OFF, BH_JIT_ON, BH_JIT_EAGER, BH_JIT_OFF };
	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .num_tiles = 1, .deadlock_ms = 20,
					.jit = jit[ctl >> 1 & 3] };
	struct bh_device *dev;
	if (bh_device_open(&cfg, &dev) != BH_OK)
		return;
	struct bh_core_result res;
	if (bh_l1_write(dev, 0, CODE_AT, words, 4 * n) == BH_OK) {
		bh_core_set_max_instructions(dev, 0, BH_CORE_TRISC0, CORE_LIMIT);
		if (bh_core_start(dev, 0, BH_CORE_TRISC0, CODE_AT) == BH_OK &&
		    bh_core_wait(dev, 0, BH_CORE_TRISC0, WAIT_MS, &res) == BH_ERR_TIMEOUT) {
			static char report[8192];
			bh_device_report(dev, report, sizeof report);
			fprintf(stderr, "fuzz_rv32_decode: trisc0 still running after %d ms\n%s", WAIT_MS, report);
			abort();
		}
	}
	bh_device_close(dev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	unsigned ctl = data[0];
	uint32_t pc = word_at(data + 1) & ~3u;
	uint32_t words[MAX_WORDS];
	size_t n = 0;
	for (size_t i = 5; i + 4 <= size && n < MAX_WORDS; i += 4, n++) {
		words[n] = word_at(data + i);
		check_decode(words[n], pc + 4 * (uint32_t)n);
	}
	if ((ctl & 1) && n)
		run_words(words, n, ctl);
	return 0;
}
