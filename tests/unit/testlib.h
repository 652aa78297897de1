/* Helpers shared by the unit tests: RV32 instruction encoders, a program builder (with the
 * word-FIFO programs of the PCBuf and mailbox tests), a one-tile device and runners, several
 * cores at once, host CPU time, and fault-report checks.
 *
 * Programs are built as words: emit(&p, addi(A0, A0, 1)), with the operands of the encoders in
 * assembly order (lw(rd, off, rs1) is "lw rd, off(rs1)") and registers by ABI name. */
#ifndef BH_TESTS_TESTLIB_H
#define BH_TESTS_TESTLIB_H

#include <stdbool.h>
#include <stdint.h>

#include "bhemu/bhemu.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------------------------------
 * Encoders.
 */

/* Registers by ABI name. */
enum {
	X0 = 0, RA = 1, SP = 2, T0 = 5, T1 = 6, T2 = 7, S0 = 8, S1 = 9,
	A0 = 10, A1 = 11, A2 = 12, A3 = 13, A4 = 14, A5 = 15, A6 = 16, A7 = 17,
};

#define OP_LOAD 0x03
#define OP_IMM 0x13
#define OP_AUIPC 0x17
#define OP_STORE 0x23
#define OP_AMO 0x2f
#define OP_REG 0x33
#define OP_LUI 0x37
#define OP_JALR 0x67
#define OP_SYSTEM 0x73

/* funct3 of loads and stores, of branches, of the CSR instructions. */
enum { W_B = 0, W_H = 1, W_W = 2, W_BU = 4, W_HU = 5 };
enum { BEQ = 0, BNE = 1, BLT = 4, BGE = 5, BLTU = 6, BGEU = 7 };
enum { F3_CSRRW = 1, F3_CSRRS = 2, F3_CSRRC = 3, F3_CSRRWI = 5, F3_CSRRSI = 6, F3_CSRRCI = 7 };

#define INSN_NOP 0x00000013u         /* addi x0, x0, 0 */
#define INSN_FENCE 0x0ff0000fu       /* fence iorw, iorw */
#define INSN_ECALL 0x00000073u
#define INSN_RET 0x00008067u         /* jalr x0, 0(ra) */
#define INSN_SELF_LOOP 0x0000006fu   /* jal x0, 0 */
/* csrsi cfg0, 8: L0 data cache off (DisLowCash), as firmware does at entry, so that a poll loop
 * without fence is correct (poll-no-fence, races.md #20). */
#define INSN_L0_CACHE_OFF 0x7c046073u

/* The instruction formats of the RISC-V unprivileged spec, fields in encoding order. */
uint32_t enc_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc);
uint32_t enc_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc);
uint32_t enc_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t opc);
uint32_t enc_b(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3);
uint32_t enc_u(uint32_t imm20, uint32_t rd, uint32_t opc);
uint32_t enc_j(int32_t imm, uint32_t rd);
/* li rd, value as lui+addi (2 words). */
void enc_li(uint32_t *out, uint32_t rd, uint32_t value);

/* Single instructions, operands as written in assembly. */
uint32_t r_op(uint32_t f7, uint32_t f3, unsigned rd, unsigned rs1, unsigned rs2);   /* OP */
uint32_t i_op(uint32_t f3, unsigned rd, unsigned rs1, int32_t imm);                 /* OP-IMM */
uint32_t addi(unsigned rd, unsigned rs1, int32_t imm);
uint32_t add(unsigned rd, unsigned rs1, unsigned rs2);
uint32_t sub(unsigned rd, unsigned rs1, unsigned rs2);
uint32_t sltu(unsigned rd, unsigned rs1, unsigned rs2);
uint32_t or(unsigned rd, unsigned rs1, unsigned rs2);
uint32_t mul(unsigned rd, unsigned rs1, unsigned rs2);
uint32_t lui(unsigned rd, uint32_t imm20);
uint32_t auipc(unsigned rd, uint32_t imm20);
uint32_t jal(unsigned rd, int32_t off);
uint32_t jalr(unsigned rd, unsigned rs1, int32_t off);
/* width is one of W_B, W_H, W_W (and W_BU, W_HU for loads) */
uint32_t load(uint32_t width, unsigned rd, int32_t off, unsigned rs1);
uint32_t store(uint32_t width, unsigned rs2, int32_t off, unsigned rs1);
uint32_t lw(unsigned rd, int32_t off, unsigned rs1);
uint32_t sw(unsigned rs2, int32_t off, unsigned rs1);
/* f3 is one of F3_CSRR*; the rs1 field holds the 5-bit immediate of the *I forms. */
uint32_t csr_op(uint32_t f3, unsigned rd, uint32_t csr, unsigned rs1_or_uimm);
uint32_t csrr(unsigned rd, uint32_t csr);
uint32_t csrw(uint32_t csr, unsigned rs1);
/* amoXXX.w rd, rs2, (rs1); f5 selects the operation (0 amoadd, 1 amoswap, ...). */
uint32_t amo(uint32_t f5, unsigned rd, unsigned rs2, unsigned rs1, unsigned aqrl);

/* ---------------------------------------------------------------------------------------------
 * Program builder. Labels are byte offsets from the start of the program (prog_here).
 */

struct prog {
	unsigned n;
	uint32_t w[1024];
};

void emit(struct prog *p, uint32_t word);
void emit_li(struct prog *p, unsigned rd, uint32_t value);
/* exit(a0) through the host call: li a7, 93; ecall. */
void emit_exit(struct prog *p);
void emit_exit_with(struct prog *p, uint32_t status);
/* li t0, addr; li t1, value; sw t1, 0(t0). */
void emit_store_word(struct prog *p, uint32_t addr, uint32_t value);

int32_t prog_here(const struct prog *p);
/* f3 is one of BEQ..BGEU. */
void emit_branch(struct prog *p, uint32_t f3, unsigned rs1, unsigned rs2, int32_t label);
void emit_j(struct prog *p, int32_t label);
/* jal ra to an absolute address, given the address the program is placed at. */
void emit_call(struct prog *p, uint32_t base, uint32_t target);
/* Spin until the L1 word at addr is non-zero (clobbers t2 and the given scratch register). */
void emit_wait_nonzero(struct prog *p, uint32_t addr, unsigned scratch);
/* lw rd, addr (clobbers t0). */
void emit_load_word(struct prog *p, unsigned rd, uint32_t addr);
/* a0 = (a0 << 8) | reg: packs small results into the exit status. */
void emit_pack(struct prog *p, unsigned reg);

/* Word-FIFO programs (PCBufs, mailboxes): the FIFO is one address, a store pushes, a load pops. */
/* Push 1..n to fifo, storing the count pushed so far to the L1 word progress after each push;
 * exit(0). */
void emit_push_count(struct prog *p, uint32_t fifo, uint32_t n, uint32_t progress);
/* Pop n words from fifo, expecting 1..n; exit(number of mismatches). */
void emit_pop_expect_count(struct prog *p, uint32_t fifo, uint32_t n);
/* Push (i << 24) + k, k = 0..n-1, to fifo[i], round robin over the three; exit(0). */
void emit_push_round_robin(struct prog *p, const uint32_t fifo[3], uint32_t n);
/* Pop n words from fifo expecting tag + 0, 1, ...; a mismatch counts and resynchronises on
 * what arrived; exit(mismatches). Uses a0, a2, a3, s0, t0. */
void emit_pop_sequence(struct prog *p, uint32_t fifo, uint32_t tag, uint32_t n);

/* ---------------------------------------------------------------------------------------------
 * Device, memory and runs.
 */

#define SOFT_RESET_0 0xFFB121B0u
#define LDM 0xFFB00000u                  /* local data RAM: each core's private fast window */

/* Core names as fault reports spell them, and the cores in id order. */
extern const char *const core_names[5];
extern const enum bh_core_id all_cores[5];
/* Loads the multi-core ELF at BHEMU_BINARY_DIR/elf for cores[0..n) of tile 0 and sets entry[k]
 * to each one's _start_<core> (the test stops if either fails). */
void load_multicore_elf(struct bh_device *dev, const char *elf, const enum bh_core_id *cores, unsigned n,
			uint32_t *entry);
/* SOFT_RESET_0 bit of each core (memory-map.md 4.1). */
uint32_t reset_bit(enum bh_core_id c);

/* A device of one tile with host calls enabled on every core (the default checks, stop mode). */
struct bh_device *t_open(void);
/* The same with bh_device_config.checks and check_mode. Tests of what the model does with
 * misuse that a check reports (a semaphore posted past its max, ...) use T_CHECKS_OFF. */
struct bh_device *t_open_checks(uint32_t checks, enum bh_check_mode mode);
#define T_CHECKS_OFF BH_CHECKS_EXACT
/* How long a test waits for a core that must stop: generous, only to detect a hang (the suite runs
 * under TSan on a loaded 2-core machine, where a few million interpreted instructions can take
 * seconds). */
#define T_STOP_MS 60000
/* Any configuration, host calls enabled on every core of every tile. */
struct bh_device *t_open_cfg(const struct bh_device_config *cfg);
/* A zeroed result on the heap. */
struct bh_core_result *result_new(void);
void sleep_ms(long ms);

/* Host access to L1 of tile 0 (l1_put: n words). */
void l1_put(struct bh_device *dev, uint32_t addr, const uint32_t *words, unsigned n);
uint32_t l1_get(struct bh_device *dev, uint32_t addr);
void prog_put(struct bh_device *dev, unsigned tile, uint32_t addr, const struct prog *p);
/* exit(status) as a program at addr of tile 0. */
void put_exit(struct bh_device *dev, uint32_t addr, uint32_t status);

/* Write words at addr of tile 0, start `core` there, wait (5 s) and return the result. */
void t_run(struct bh_device *dev, enum bh_core_id core, uint32_t addr, const uint32_t *words, unsigned n,
	   struct bh_core_result *res);
void run_prog(struct bh_device *dev, enum bh_core_id core, uint32_t addr, const struct prog *p,
	      struct bh_core_result *res);
/* run_prog, expect the core to exit and return its exit status (a0). */
uint32_t run_to_exit(struct bh_device *dev, enum bh_core_id core, uint32_t addr, const struct prog *p);
/* Wait (10 s) for `core` of `tile` to stop and expect it to have exited with `status`. */
void expect_exit(struct bh_device *dev, unsigned tile, enum bh_core_id core, uint32_t status);
/* Wait (200 s) for a core of tile 0 running emit_pop_sequence: it must exit with 0 mismatches. */
void expect_sequence_exit(struct bh_device *dev, enum bh_core_id core);
/* Where `core` of `tile` is now (BH_RUN_*). */
enum bh_run_status core_status(struct bh_device *dev, unsigned tile, enum bh_core_id core);
/* Host write of one L1 word of tile 0; wait (5 s) until one reads `value`. */
void set_l1(struct bh_device *dev, uint32_t addr, uint32_t value);
void wait_l1(struct bh_device *dev, uint32_t addr, uint32_t value);

/* ---------------------------------------------------------------------------------------------
 * Several cores of tile 0 at once: each core's program at its own address.
 */

/* Code of each core, in id order: 0x1000 (brisc) .. 0x5000 (trisc2). */
extern const uint32_t core_code_at[5];
/* Put p at core_code_at[core] and start the core there. */
void start_core(struct bh_device *dev, enum bh_core_id core, const struct prog *p);
/* Run p on core from core_code_at[core]; expect an exit and return its status. */
uint32_t run_core(struct bh_device *dev, enum bh_core_id core, const struct prog *p);
/* Run "store value to addr; exit(0)" on core (e.g. a push into a FIFO that has room) and
 * expect that exit. */
void run_store_word(struct bh_device *dev, enum bh_core_id core, uint32_t addr, uint32_t value);
/* One load (or store of 0) at addr by core must fault with `kind` and `phrase` at its pc. */
void expect_access_faults(struct bh_device *dev, enum bh_core_id core, bool store, uint32_t addr, const char *kind,
			  const char *phrase);
/* Wait (5 s) until core sleeps in a blocked device access whose wait text contains `what`. */
void wait_blocked(struct bh_device *dev, enum bh_core_id core, const char *what);
/* The core's PC_SNAPSHOT register (memory-map.md): its pc as a debugger sees it. */
uint32_t pc_snapshot(struct bh_device *dev, enum bh_core_id core);
/* Put "wait until the word at addr is non-zero; exit(that value)" at `code` of tile 0, start
 * `core` there and wait until it has parked. */
void start_parked_poller(struct bh_device *dev, enum bh_core_id core, uint32_t code, uint32_t addr);
/* Wait (5 s) until `core` of `tile` has parked in a poll loop at least once (the test stops if
 * it never does). */
void wait_parked(struct bh_device *dev, unsigned tile, enum bh_core_id core);
/* A parked core makes no progress: over 100 ms its pc snapshot stays put and it still runs. */
void expect_stays_parked(struct bh_device *dev, enum bh_core_id core);

/* ---------------------------------------------------------------------------------------------
 * Host CPU time: parked and held cores must cost (almost) none.
 */

/* Process CPU time and monotonic wall time, in seconds. */
double cpu_seconds(void);
double wall_seconds(void);
/* Sleep ms and return the CPU seconds the whole process (every core thread) used meanwhile;
 * the wall seconds that passed go to *wall unless it is NULL. Three such windows in a row, the
 * one with the least CPU per wall second counts: on a loaded host the work a test waited to
 * settle can spill into the first, while cores that really burn CPU when idle do in all three. */
double cpu_used_while_sleeping(long ms, double *wall);

/* ---------------------------------------------------------------------------------------------
 * Report checks.
 */

/* text (a report, a program's output) contains needle; the test stops if not. */
void assert_has(const char *text, const char *needle);
/* Wait (5 s) until the device's report (bh_device_report) contains needle; the test stops if
 * it never does. */
void wait_report_has(struct bh_device *dev, const char *needle);
/* Wait (10 s) until the device is deadlocked (the test stops if not); returns its report (a
 * static buffer, overwritten by the next call). */
const char *wait_deadlock_report(struct bh_device *dev);
/* The fault report contains `what`; the test goes on if not. */
void expect_in_report(const struct bh_core_result *res, const char *what);
/* The core faulted at pc; the report names the fault kind, the core, the pc and the phrase. */
void expect_fault(const struct bh_core_result *res, enum bh_core_id core, uint32_t pc, const char *kind,
		  const char *phrase);

/* ---------------------------------------------------------------------------------------------
 * Booted devices and programs (reference firmware of this build, BHEMU_BINARY_DIR/firmware/ref).
 */

/* Skips the test unless BHEMU_BINARY_DIR/rel exists (built guest code needs the cross compiler). */
void tl_skip_unless_built(const char *rel);
/* A cols x rows grid booted with the reference firmware (asserts success). */
struct bh_device *tl_boot_ref_grid(unsigned cols, unsigned rows);
/* The same with more of the device's configuration (board and grid size come from cfg). */
struct bh_device *tl_boot_ref_grid_cfg(const struct bh_device_config *cfg);
/* Launches by slow dispatch and asserts success, printing the program's error otherwise. */
void tl_launch_ok(struct bh_program *p, struct bh_launch_stats *st);

/* ---------------------------------------------------------------------------------------------
 * Checks (fabric/check.h).
 */

/* The core stopped by check `name` at pc, the report headed as a check's and holding `other`
 * (unless NULL) and `why`; then the result is freed and the device closed. */
void expect_check(struct bh_device *dev, struct bh_core_result *res, enum bh_core_id core, const char *name,
		  uint32_t pc, const char *other, const char *why);
/* Run p on core (its code at core_code_at[core]) and return its result (heap; free it). */
struct bh_core_result *run_checked(struct bh_device *dev, enum bh_core_id core, const struct prog *p);
/* li t0, addr; li t1, v; sw t1, 0(t0): returns the store's pc for a program of `core`. */
uint32_t emit_store_pc(struct prog *p, enum bh_core_id core, uint32_t addr, uint32_t v);

/* NoC0 command buffers of tile 0 at (1,2) (noc.md). */
#define CMDBUF0(b) (0xFFB20000u + 0x800u * (b))   /* NoC0 command buffer b */
enum { N_TARG_LO = 0x00, N_TARG_MID = 0x04, N_TARG_HI = 0x08, N_RET_LO = 0x0C, N_RET_MID = 0x10, N_RET_HI = 0x14,
       N_CTRL = 0x1C, N_LEN = 0x20, N_CMD_CTRL = 0x40 };
#define CLEAR_OUTSTANDING_REQ_CNT 0xFFB20060u
#define CTRL_WRITE_POSTED 0x2082u
#define CTRL_WRITE_NONPOSTED 0x2092u
#define CTRL_MCAST_NONPOSTED 0x8132u   /* write, static VC 4, broadcast, path reserve, response */
#define TILE0_XY (2u << 6 | 1u)          /* (1,2) */
#define NOC_SRC 0x20000u
#define NOC_DST 0x30000u

/* Program a len-byte write from NOC_SRC of this tile to dst at `hi` (xy, or a rectangle) on NoC0
 * command buffer 0; returns the pc of its first store for a program of `core`. */
uint32_t emit_program_noc_write(struct prog *p, enum bh_core_id core, uint32_t ctrl, uint32_t hi, uint32_t dst,
				uint32_t len);
/* brisc stopped by noc-shared-initiator at its CMD_CTRL (pc) of NoC0 command buffer 0, its
 * transaction begun at `first`, naming ncrisc's write of register `reg` at other_pc; then as
 * expect_check. */
void expect_shared_initiator(struct bh_device *dev, struct bh_core_result *res, uint32_t pc, uint32_t first,
			     const char *reg, uint32_t other_pc);
/* ncrisc writes ret_lo to NOC_RET_ADDR_LO of NoC0 command buffer 0, then brisc issues on it: brisc
 * is stopped by noc-shared-initiator as expect_shared_initiator says (the device is closed). */
void expect_shared_after_ncrisc_write(struct bh_device *dev, uint32_t first, uint32_t ret_lo);
/* NOC_CMD_CTRL = 1 on command buffer 0; returns the store's pc for `core`. */
uint32_t emit_issue(struct prog *p, enum bh_core_id core);
#define NOC0_WR_ACKS 0xFFB20204u    /* NoC0 NIU_MST_WR_ACK_RECEIVED: the write barrier's counter */
#define NOC0_RD_RESPS 0xFFB20208u   /* NoC0 NIU_MST_RD_RESP_RECEIVED: the read barrier's */
/* Spin until the NIU counter register at addr reads 1 (a barrier on the first request; t0-t2). */
void emit_wait_one(struct prog *p, uint32_t addr);

/* ---- The CLI (build/bhemu) as a child process ---- */

struct cli_out {
	int status;          /* exit status, or 128 + signal */
	char out[16384];
	char err[16384];
};

/* Runs the CLI with args (NULL-terminated, without argv[0]), stdin from /dev/null; the caller
 * frees the result. */
struct cli_out *test_cli(const char *const *args);
/* Expects the exit status, printing both outputs when it differs. */
void expect_status(const struct cli_out *o, int status);

#endif
