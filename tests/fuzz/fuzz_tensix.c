/* Fuzzes the Tensix instruction path of one tile (tensix.md 2-5): whatever a guest pushes must end
 * in a clean run or a named fault, never a crash, hang or sanitizer report.
 *
 * The input is a list of 5-byte operations (a kind byte, a little-endian word) that become small
 * guest programs for BRISC and TRISC0-2 (stores and .ttinsn words, as firmware pushes):
 *   kind & 7  0 push the word into the core's thread (BRISC: window (kind >> 3) % 3)
 *             1 MopCfg[(kind >> 3) % 9] = word          2 push MOP with the word's operands
 *             3 push REPLAY with the word's operands   4 GPR[(kind >> 3) % 32 * 2] = word
 *             5 the word as .ttinsn (a push)            6 tensix_sync (PCBuf +4 barrier; TRISCs)
 *             7 later operations go to core (kind >> 3) % 4 (BRISC, TRISC0, TRISC1, TRISC2)
 *   With kind bit 7 set, the word's opcode byte picks one of the Blackhole opcodes (with bit 5,
 *   one bhemu executes), and with bit 6 its reserved operand bits are cleared (REPLAY's too),
 *   so most inputs reach the expanders and units instead of failing the decode at the push.
 * Each program ends with tensix_sync (TRISCs) and exit(0). The cores run one after the other on a
 * fresh one-tile device, each with an instruction limit; a deadlock (e.g. a SEMWAIT nobody
 * posts) ends the input. The device is opened per input: state left over from an earlier input
 * (semaphores, replay buffers, config) would make findings irreproducible (a recorded slot 0
 * hides defect 1). Measured: about 1000 inputs/s replayed in Release, about 60/s under
 * libFuzzer with ASan, where opening and closing the device (threads, L1) is most of the cost. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/bhemu.h"
#include "cores/tensix.h"

#define MAX_OPS 96
#define MAX_MOPS 8                    /* a template-1 MOP emits up to 32 639 instructions */
#define CODE_BASE 0x10000u
#define CODE_STRIDE 0x2000u           /* 2048 instructions per core: MAX_OPS * 6 + the tail fit */
#define CORE_LIMIT 200000u            /* RISC-V instructions per core */
#define WAIT_MS 5000                  /* a hang, not a slow input: the deadlock monitor ends waits */

enum { T0 = 5, T1 = 6, A0 = 10, A7 = 17 };

struct code {
	unsigned n;
	uint32_t w[CODE_STRIDE / 4];
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put(struct code *c, uint32_t w)
{
	if (c->n < sizeof c->w / sizeof c->w[0])
		c->w[c->n++] = w;
}

static void li(struct code *c, unsigned rd, uint32_t v)
{
	uint32_t hi = (v + 0x800u) & 0xFFFFF000u;
	put(c, hi | rd << 7 | 0x37);                              /* lui rd, hi */
	put(c, (v - hi) << 20 | rd << 15 | rd << 7 | 0x13);        /* addi rd, rd, lo */
}

static void store(struct code *c, uint32_t addr, uint32_t v)
{
	li(c, T0, addr);
	li(c, T1, v);
	put(c, T1 << 20 | T0 << 15 | 2u << 12 | 0x23);             /* sw t1, 0(t0) */
}

/* tensix_sync: store to PCBuf 0 + 4, then load it (waits until the thread is idle). */
static void tensix_sync(struct code *c)
{
	li(c, T0, 0xFFE80000u);
	put(c, T0 << 15 | 2u << 12 | 4u << 20 | 0x23);             /* sw x0, 4(t0) */
	put(c, 4u << 20 | T0 << 15 | 2u << 12 | A0 << 7 | 0x03);   /* lw a0, 4(t0) */
}

static void exit0(struct code *c)
{
	li(c, A0, 0);
	li(c, A7, 93);
	put(c, 0x00000073);                                        /* ecall */
}

/* Every opcode of the table, and those bhemu executes, for kind bits 7 and 5. */
static uint8_t opcodes[256], modelled[256];
static unsigned n_opcodes, n_modelled;

static void opcodes_init(void)
{
	if (n_opcodes)
		return;
	for (unsigned op = 0; op < 256; op++) {
		const struct tt_opinfo *oi = tt_opinfo(op);
		if (oi)
			opcodes[n_opcodes++] = (uint8_t)op;
		if (oi && oi->exec != TT_E_N)
			modelled[n_modelled++] = (uint8_t)op;
	}
}

/* The word's reserved operand bits cleared, where the table knows them. */
static uint32_t operands_only(uint32_t w)
{
	const struct tt_opinfo *oi = tt_opinfo(w >> 24);
	return oi && oi->fields_known ? (w & 0xFF000000u) | (w & oi->field_mask) : w;
}

static uint32_t shape(uint8_t kind, uint32_t w)
{
	if (kind & 0x80)
		w = (uint32_t)(kind & 0x20 ? modelled[(w >> 24) % n_modelled] : opcodes[(w >> 24) % n_opcodes]) << 24 |
		    (w & 0xFFFFFFu);
	return kind & 0x40 ? operands_only(w) : w;
}

static void build(const uint8_t *data, size_t size, struct code prog[4])
{
	static const uint32_t windows[3] = { 0xFFE40000u, 0xFFE50000u, 0xFFE60000u };
	unsigned core = 1, mops = 0, ops = 0;   /* core index: 0 BRISC, 1..3 TRISC0..2 */
	for (size_t i = 0; i + 5 <= size && ops < MAX_OPS; i += 5, ops++) {
		uint8_t k = data[i];
		uint32_t w = (uint32_t)data[i + 1] | (uint32_t)data[i + 2] << 8 | (uint32_t)data[i + 3] << 16 |
			     (uint32_t)data[i + 4] << 24;
		struct code *c = &prog[core];
		switch (k & 7) {
		case 0: store(c, core ? windows[0] : windows[(k >> 3) % 3], shape(k, w)); break;
		case 1: if (core) store(c, BH_TT_MOP_CFG_BASE + 4 * ((k >> 3) % 9), shape(k, w)); break;
		case 2: if (mops++ < MAX_MOPS) store(c, windows[0], 0x01000000u | (w & 0xFFFFFFu)); break;
		case 3: store(c, windows[0], shape(k & 0x40, 0x04000000u | (w & 0xFFFFFFu))); break;
		case 4: store(c, BH_TT_GPR_BASE + 8 * ((k >> 3) % 32), w); break;
		case 5: {
			uint32_t t = shape(k, w);
			if (t >> 30 == 3)   /* low bits 11 after the rotation: an RV32 instruction, push it instead */
				store(c, windows[0], t);
			else
				put(c, t << 2 | t >> 30);
			break;
		}
		case 6: if (core) tensix_sync(c); break;
		default: core = (k >> 3) % 4; break;
		}
	}
	for (unsigned p = 0; p < 4; p++) {
		if (p)
			tensix_sync(&prog[p]);
		exit0(&prog[p]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct code prog[4];
	static const enum bh_core_id order[4] = { BH_CORE_TRISC0, BH_CORE_TRISC1, BH_CORE_TRISC2, BH_CORE_BRISC };
	opcodes_init();
	memset(prog, 0, sizeof prog);
	build(data, size, prog);

	struct bh_device_config cfg = { .board = BH_BOARD_GRID, .num_tiles = 1, .deadlock_ms = 20, .jit = BH_JIT_OFF };
	struct bh_device *dev;
	if (bh_device_open(&cfg, &dev) != BH_OK)
		return 0;
	for (unsigned p = 0; p < 4; p++) {
		enum bh_core_id core = order[p];
		unsigned idx = core == BH_CORE_BRISC ? 0 : core - BH_CORE_TRISC0 + 1;
		uint32_t at = CODE_BASE + CODE_STRIDE * idx;
		if (bh_l1_write(dev, 0, at, prog[idx].w, 4 * prog[idx].n) != BH_OK)
			break;
		bh_core_enable_host_calls(dev, 0, core, true);
		bh_core_set_max_instructions(dev, 0, core, CORE_LIMIT);
		if (bh_core_start(dev, 0, core, at) != BH_OK)
			break;
		struct bh_core_result res;
		int rc = bh_core_wait(dev, 0, core, WAIT_MS, &res);
		if (rc == BH_ERR_TIMEOUT) {
			/* Bounded work that neither ends nor deadlocks: a hang, reported as a finding. */
			static char report[8192];
			bh_device_report(dev, report, sizeof report);
			fprintf(stderr, "fuzz_tensix: %s still running after %d ms\n%s", bh_core_name(core), WAIT_MS, report);
			abort();
		}
		if (rc == BH_ERR_DEADLOCK)
			break;   /* the cores after it would only wait on it */
	}
	bh_device_close(dev);
	return 0;
}
