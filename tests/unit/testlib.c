#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/device.h"
#include "testlib.h"

/* ---------------------------------------------------------------------------------------------
 * Encoders.
 */

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
	out[0] = lui(rd, hi);
	out[1] = addi(rd, rd, (int32_t)(lo << 20) >> 20);
}

uint32_t r_op(uint32_t f7, uint32_t f3, unsigned rd, unsigned rs1, unsigned rs2)
{
	return enc_r(f7, rs2, rs1, f3, rd, OP_REG);
}

uint32_t i_op(uint32_t f3, unsigned rd, unsigned rs1, int32_t imm)
{
	return enc_i(imm, rs1, f3, rd, OP_IMM);
}

uint32_t addi(unsigned rd, unsigned rs1, int32_t imm) { return i_op(0, rd, rs1, imm); }
uint32_t add(unsigned rd, unsigned rs1, unsigned rs2) { return r_op(0x00, 0, rd, rs1, rs2); }
uint32_t sub(unsigned rd, unsigned rs1, unsigned rs2) { return r_op(0x20, 0, rd, rs1, rs2); }
uint32_t sltu(unsigned rd, unsigned rs1, unsigned rs2) { return r_op(0x00, 3, rd, rs1, rs2); }
uint32_t or(unsigned rd, unsigned rs1, unsigned rs2) { return r_op(0x00, 6, rd, rs1, rs2); }
uint32_t mul(unsigned rd, unsigned rs1, unsigned rs2) { return r_op(0x01, 0, rd, rs1, rs2); }
uint32_t lui(unsigned rd, uint32_t imm20) { return enc_u(imm20, rd, OP_LUI); }
uint32_t auipc(unsigned rd, uint32_t imm20) { return enc_u(imm20, rd, OP_AUIPC); }
uint32_t jal(unsigned rd, int32_t off) { return enc_j(off, rd); }
uint32_t jalr(unsigned rd, unsigned rs1, int32_t off) { return enc_i(off, rs1, 0, rd, OP_JALR); }

uint32_t load(uint32_t width, unsigned rd, int32_t off, unsigned rs1)
{
	return enc_i(off, rs1, width, rd, OP_LOAD);
}

uint32_t store(uint32_t width, unsigned rs2, int32_t off, unsigned rs1)
{
	return enc_s(off, rs2, rs1, width, OP_STORE);
}

uint32_t lw(unsigned rd, int32_t off, unsigned rs1) { return load(W_W, rd, off, rs1); }
uint32_t sw(unsigned rs2, int32_t off, unsigned rs1) { return store(W_W, rs2, off, rs1); }

uint32_t csr_op(uint32_t f3, unsigned rd, uint32_t csr, unsigned rs1_or_uimm)
{
	return enc_i((int32_t)csr, rs1_or_uimm, f3, rd, OP_SYSTEM);
}

uint32_t csrr(unsigned rd, uint32_t csr) { return csr_op(F3_CSRRS, rd, csr, X0); }
uint32_t csrw(uint32_t csr, unsigned rs1) { return csr_op(F3_CSRRW, X0, csr, rs1); }

uint32_t amo(uint32_t f5, unsigned rd, unsigned rs2, unsigned rs1, unsigned aqrl)
{
	return enc_r(f5 << 2 | aqrl, rs2, rs1, 2, rd, OP_AMO);
}

/* ---------------------------------------------------------------------------------------------
 * Program builder.
 */

void emit(struct prog *p, uint32_t word)
{
	cr_assert_lt(p->n, N(p->w), "program too long");
	p->w[p->n++] = word;
}

void emit_li(struct prog *p, unsigned rd, uint32_t value)
{
	uint32_t two[2];
	enc_li(two, rd, value);
	emit(p, two[0]);
	emit(p, two[1]);
}

void emit_exit(struct prog *p)
{
	emit_li(p, A7, 93);
	emit(p, INSN_ECALL);
}

void emit_exit_with(struct prog *p, uint32_t status)
{
	emit_li(p, A0, status);
	emit_exit(p);
}

void emit_store_word(struct prog *p, uint32_t addr, uint32_t value)
{
	emit_li(p, T0, addr);
	emit_li(p, T1, value);
	emit(p, sw(T1, 0, T0));
}

int32_t prog_here(const struct prog *p)
{
	return (int32_t)(p->n * 4);
}

void emit_branch(struct prog *p, uint32_t f3, unsigned rs1, unsigned rs2, int32_t label)
{
	emit(p, enc_b(label - prog_here(p), rs2, rs1, f3));
}

void emit_j(struct prog *p, int32_t label)
{
	emit(p, jal(X0, label - prog_here(p)));
}

void emit_call(struct prog *p, uint32_t base, uint32_t target)
{
	emit(p, jal(RA, (int32_t)(target - (base + (uint32_t)prog_here(p)))));
}

void emit_wait_nonzero(struct prog *p, uint32_t addr, unsigned scratch)
{
	emit_li(p, scratch, addr);
	int32_t loop = prog_here(p);
	emit(p, INSN_FENCE);   /* a fresh L1 read each poll, as firmware polls (poll-no-fence) */
	emit(p, lw(T2, 0, scratch));
	emit_branch(p, BEQ, T2, X0, loop);
}

void emit_load_word(struct prog *p, unsigned rd, uint32_t addr)
{
	emit_li(p, T0, addr);
	emit(p, lw(rd, 0, T0));
}

void emit_pack(struct prog *p, unsigned reg)
{
	emit(p, enc_i(8, A0, 1, A0, OP_IMM));   /* slli a0, a0, 8 */
	emit(p, or(A0, A0, reg));
}

void emit_push_count(struct prog *p, uint32_t fifo, uint32_t n, uint32_t progress)
{
	emit_li(p, S0, fifo);
	emit_li(p, S1, progress);
	emit_li(p, A0, 0);
	emit_li(p, A1, n);
	int32_t loop = prog_here(p);
	emit(p, addi(A0, A0, 1));
	emit(p, sw(A0, 0, S0));
	emit(p, sw(A0, 0, S1));
	emit_branch(p, BNE, A0, A1, loop);
	emit_exit_with(p, 0);
}

void emit_pop_expect_count(struct prog *p, uint32_t fifo, uint32_t n)
{
	emit_li(p, S0, fifo);
	emit_li(p, A0, 0);
	emit_li(p, A1, n);
	emit_li(p, A2, 0);
	int32_t loop = prog_here(p);
	emit(p, addi(A0, A0, 1));
	emit(p, lw(T0, 0, S0));
	emit_branch(p, BEQ, T0, A0, prog_here(p) + 8);
	emit(p, addi(A2, A2, 1));
	emit_branch(p, BNE, A0, A1, loop);
	emit(p, addi(A0, A2, 0));
	emit_exit(p);
}

void emit_push_round_robin(struct prog *p, const uint32_t fifo[3], uint32_t n)
{
	emit_li(p, A3, fifo[0]);
	emit_li(p, A4, fifo[1]);
	emit_li(p, A5, fifo[2]);
	emit_li(p, A6, 1u << 24);
	emit_li(p, A7, 2u << 24);
	emit_li(p, A0, 0);
	emit_li(p, A1, n);
	int32_t loop = prog_here(p);
	emit(p, sw(A0, 0, A3));
	emit(p, add(T0, A0, A6));
	emit(p, sw(T0, 0, A4));
	emit(p, add(T1, A0, A7));
	emit(p, sw(T1, 0, A5));
	emit(p, addi(A0, A0, 1));
	emit_branch(p, BNE, A0, A1, loop);
	emit_exit_with(p, 0);
}

void emit_pop_sequence(struct prog *p, uint32_t fifo, uint32_t tag, uint32_t n)
{
	emit_li(p, S0, fifo);
	emit_li(p, A0, tag);                    /* expected word */
	emit_li(p, A3, n);                      /* words left */
	emit_li(p, A2, 0);                      /* mismatches */
	int32_t loop = prog_here(p);
	emit(p, lw(T0, 0, S0));
	emit_branch(p, BEQ, T0, A0, prog_here(p) + 12);
	emit(p, addi(A2, A2, 1));
	emit(p, addi(A0, T0, 0));               /* resynchronise on what arrived */
	emit(p, addi(A0, A0, 1));
	emit(p, addi(A3, A3, -1));
	emit_branch(p, BNE, A3, X0, loop);
	emit(p, addi(A0, A2, 0));
	emit_exit(p);
}

/* ---------------------------------------------------------------------------------------------
 * Device, memory and runs.
 */

const char *const core_names[5] = { "brisc", "ncrisc", "trisc0", "trisc1", "trisc2" };

const enum bh_core_id all_cores[5] = {
	BH_CORE_BRISC, BH_CORE_NCRISC, BH_CORE_TRISC0, BH_CORE_TRISC1, BH_CORE_TRISC2,
};

void load_multicore_elf(struct bh_device *dev, const char *elf, const enum bh_core_id *cores, unsigned n,
			uint32_t *entry)
{
	char path[512], err[512], sym[32];
	snprintf(path, sizeof path, "%s/%s", BHEMU_BINARY_DIR, elf);
	for (unsigned k = 0; k < n; k++) {
		cr_assert_eq(bh_load_elf(dev, 0, cores[k], path, NULL, &entry[k], err, sizeof err), BH_OK, "%s", err);
		snprintf(sym, sizeof sym, "_start_%s", core_names[cores[k]]);
		cr_assert_eq(bh_core_symbol_lookup(dev, 0, cores[k], sym, &entry[k]), BH_OK, "no %s", sym);
	}
}

uint32_t reset_bit(enum bh_core_id c)
{
	static const unsigned bit[] = { 11, 18, 12, 13, 14 };
	return 1u << bit[c];
}

struct bh_device *t_open(void)
{
	return t_open_checks(0, BH_CHECK_STOP);
}

struct bh_device *t_open_checks(uint32_t checks, enum bh_check_mode mode)
{
	return t_open_cfg(&(struct bh_device_config){ .num_tiles = 1, .checks = checks, .check_mode = mode });
}

struct bh_device *t_open_cfg(const struct bh_device_config *cfg)
{
	struct bh_device *dev;
	cr_assert_eq(bh_device_open(cfg, &dev), BH_OK);
	for (unsigned t = 0; t < bh_device_num_tiles(dev); t++)
		for (int c = 0; c < 5; c++)
			bh_core_enable_host_calls(dev, t, (enum bh_core_id)c, true);
	return dev;
}

struct bh_core_result *result_new(void)
{
	struct bh_core_result *r = calloc(1, sizeof *r);
	cr_assert_not_null(r);
	return r;
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

void l1_put(struct bh_device *dev, uint32_t addr, const uint32_t *words, unsigned n)
{
	cr_assert_eq(bh_l1_write(dev, 0, addr, words, n * 4u), BH_OK);
}

uint32_t l1_get(struct bh_device *dev, uint32_t addr)
{
	uint32_t v;
	cr_assert_eq(bh_l1_read(dev, 0, addr, &v, 4), BH_OK);
	return v;
}

void prog_put(struct bh_device *dev, unsigned tile, uint32_t addr, const struct prog *p)
{
	cr_assert_eq(bh_l1_write(dev, tile, addr, p->w, p->n * 4u), BH_OK);
}

void put_exit(struct bh_device *dev, uint32_t addr, uint32_t status)
{
	struct prog p = { 0 };
	emit_exit_with(&p, status);
	prog_put(dev, 0, addr, &p);
}

void t_run(struct bh_device *dev, enum bh_core_id core, uint32_t addr, const uint32_t *words, unsigned n,
	   struct bh_core_result *res)
{
	l1_put(dev, addr, words, n);
	cr_assert_eq(bh_core_start(dev, 0, core, addr), BH_OK);
	cr_assert_eq(bh_core_wait(dev, 0, core, T_STOP_MS, res), BH_OK, "core did not stop within %d ms", T_STOP_MS);
}

void run_prog(struct bh_device *dev, enum bh_core_id core, uint32_t addr, const struct prog *p,
	      struct bh_core_result *res)
{
	t_run(dev, core, addr, p->w, p->n, res);
}

uint32_t run_to_exit(struct bh_device *dev, enum bh_core_id core, uint32_t addr, const struct prog *p)
{
	struct bh_core_result res;
	run_prog(dev, core, addr, p, &res);
	cr_assert_eq(res.status, BH_RUN_EXITED, "%s did not exit: status %d\n%s", core_names[core], res.status,
		     res.report);
	return (uint32_t)res.exit_status;
}

void expect_exit(struct bh_device *dev, unsigned tile, enum bh_core_id core, uint32_t status)
{
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, tile, core, T_STOP_MS, r), BH_OK, "tile %u %s did not stop", tile,
		     core_names[core]);
	cr_assert_eq(r->status, BH_RUN_EXITED, "tile %u %s: status %d\n%s", tile, core_names[core], r->status,
		     r->report);
	cr_expect_eq((uint32_t)r->exit_status, status, "tile %u %s exited with 0x%x, expected 0x%x", tile,
		     core_names[core], (uint32_t)r->exit_status, status);
	free(r);
}

void expect_sequence_exit(struct bh_device *dev, enum bh_core_id core)
{
	struct bh_core_result *r = result_new();
	cr_assert_eq(bh_core_wait(dev, 0, core, 200000, r), BH_OK, "%s did not finish", core_names[core]);
	cr_expect_eq(r->status, BH_RUN_EXITED, "%s: status %d\n%s", core_names[core], r->status, r->report);
	cr_expect_eq(r->exit_status, 0, "%s saw %d words out of sequence", core_names[core], r->exit_status);
	free(r);
}

enum bh_run_status core_status(struct bh_device *dev, unsigned tile, enum bh_core_id core)
{
	struct bh_core_result *r = result_new();
	bh_core_result(dev, tile, core, r);
	enum bh_run_status s = r->status;
	free(r);
	return s;
}

void set_l1(struct bh_device *dev, uint32_t addr, uint32_t value)
{
	l1_put(dev, addr, &value, 1);
}

void wait_l1(struct bh_device *dev, uint32_t addr, uint32_t value)
{
	for (int ms = 0; ms < T_STOP_MS; ms++) {
		if (l1_get(dev, addr) == value)
			return;
		sleep_ms(1);
	}
	cr_assert(false, "L1[0x%x] = 0x%x, expected 0x%x within %d ms", addr, l1_get(dev, addr), value, T_STOP_MS);
}

/* ---------------------------------------------------------------------------------------------
 * Several cores of tile 0 at once.
 */

#define PC_SNAPSHOT 0xFFB13138u   /* + 4 * core, in id order */

const uint32_t core_code_at[5] = { 0x1000, 0x2000, 0x3000, 0x4000, 0x5000 };

void start_core(struct bh_device *dev, enum bh_core_id core, const struct prog *p)
{
	prog_put(dev, 0, core_code_at[core], p);
	cr_assert_eq(bh_core_start(dev, 0, core, core_code_at[core]), BH_OK);
}

uint32_t run_core(struct bh_device *dev, enum bh_core_id core, const struct prog *p)
{
	return run_to_exit(dev, core, core_code_at[core], p);
}

void run_store_word(struct bh_device *dev, enum bh_core_id core, uint32_t addr, uint32_t value)
{
	struct prog p = { 0 };
	emit_store_word(&p, addr, value);
	emit_exit_with(&p, 0);
	cr_expect_eq(run_core(dev, core, &p), 0);
}

void expect_access_faults(struct bh_device *dev, enum bh_core_id core, bool store, uint32_t addr, const char *kind,
			  const char *phrase)
{
	struct bh_core_result *r = result_new();
	struct prog p = { 0 };
	emit_li(&p, S0, addr);
	uint32_t pc = core_code_at[core] + (uint32_t)prog_here(&p);
	emit(&p, store ? sw(X0, 0, S0) : lw(A0, 0, S0));
	emit_exit_with(&p, 0);
	run_prog(dev, core, core_code_at[core], &p, r);
	expect_fault(r, core, pc, kind, phrase);
	free(r);
}

/* The wait text is read only after the core published `sleeping` (a seq_cst store that follows
 * writing the text), and callers wait only where nothing can wake the core meanwhile. */
void start_parked_poller(struct bh_device *dev, enum bh_core_id core, uint32_t code, uint32_t addr)
{
	struct prog p = { 0 };
	emit_wait_nonzero(&p, addr, T1);
	emit(&p, addi(A0, T2, 0));
	emit_exit(&p);
	prog_put(dev, 0, code, &p);
	cr_assert_eq(bh_core_start(dev, 0, core, code), BH_OK);
	wait_parked(dev, 0, core);
}

void wait_parked(struct bh_device *dev, unsigned tile, enum bh_core_id core)
{
	struct bh_core *c = dev->tiles[tile]->core[core];
	for (int ms = 0; ms < T_STOP_MS && !atomic_load(&c->waiter.parks); ms++)
		sleep_ms(1);
	cr_assert_gt(atomic_load(&c->waiter.parks), 0, "tile %u %s never parked within %d ms", tile, core_names[core], T_STOP_MS);
}

void wait_blocked(struct bh_device *dev, enum bh_core_id core, const char *what)
{
	struct bh_core *c = dev->tiles[0]->core[core];
	char seen[sizeof c->wait_what] = "";
	for (int ms = 0; ms < T_STOP_MS; ms++) {
		if (atomic_load_explicit(&c->waiter.sleeping, memory_order_seq_cst)) {
			memcpy(seen, c->wait_what, sizeof seen);
			seen[sizeof seen - 1] = 0;
			if (strstr(seen, what))
				return;
		}
		sleep_ms(1);
	}
	cr_assert(false, "%s did not block on \"%s\" within %d ms (last: \"%s\")", core_names[core], what, T_STOP_MS, seen);
}

uint32_t pc_snapshot(struct bh_device *dev, enum bh_core_id core)
{
	uint32_t v = 0;
	cr_assert_eq(bh_reg_read(dev, 0, PC_SNAPSHOT + 4u * (unsigned)core, &v), BH_OK);
	return v;
}

void expect_stays_parked(struct bh_device *dev, enum bh_core_id core)
{
	uint32_t pc = pc_snapshot(dev, core);
	sleep_ms(100);
	cr_expect_eq(pc_snapshot(dev, core), pc, "%s moved while blocked", core_names[core]);
	cr_expect_eq(core_status(dev, 0, core), BH_RUN_RUNNING);
}

/* ---------------------------------------------------------------------------------------------
 * Host CPU time.
 */

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cpu_seconds(void)
{
	return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

double wall_seconds(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double cpu_used_while_sleeping(long ms, double *wall)
{
	double best = -1, best_wall = 0;
	for (int k = 0; k < 3; k++) {
		double c0 = cpu_seconds(), w0 = wall_seconds();
		sleep_ms(ms);
		double used = cpu_seconds() - c0, w = wall_seconds() - w0;
		if (best < 0 || used / w < best / best_wall)
			best = used, best_wall = w;
	}
	if (wall)
		*wall = best_wall;
	return best;
}

/* ---------------------------------------------------------------------------------------------
 * Report checks.
 */

void assert_has(const char *text, const char *needle)
{
	cr_assert(strstr(text, needle), "lacks \"%s\":\n%s", needle, text);
}

void wait_report_has(struct bh_device *dev, const char *needle)
{
	static char rep[16384];
	for (int ms = 0; ms < T_STOP_MS; ms++) {
		bh_device_report(dev, rep, sizeof rep);
		if (strstr(rep, needle))
			return;
		sleep_ms(1);
	}
	cr_assert_fail("report lacks \"%s\":\n%s", needle, rep);
}

const char *wait_deadlock_report(struct bh_device *dev)
{
	static char rep[16384];
	for (int ms = 0; ms < T_STOP_MS && !bh_device_deadlocked(dev); ms++)
		sleep_ms(1);
	cr_assert(bh_device_deadlocked(dev), "no deadlock within %d ms", T_STOP_MS);
	bh_device_report(dev, rep, sizeof rep);
	return rep;
}

void expect_in_report(const struct bh_core_result *res, const char *what)
{
	cr_expect(strstr(res->report, what) != NULL, "report lacks \"%s\":\n%s", what, res->report);
}

void expect_fault(const struct bh_core_result *res, enum bh_core_id core, uint32_t pc, const char *kind,
		  const char *phrase)
{
	char buf[96];
	cr_assert_eq(res->status, BH_RUN_FAULTED, "expected a fault (%s at pc 0x%08x), status %d, exit %d", phrase, pc,
		     res->status, res->exit_status);
	snprintf(buf, sizeof buf, "fault: %s on tile", kind);
	expect_in_report(res, buf);
	snprintf(buf, sizeof buf, "core %s\n", core_names[core]);
	expect_in_report(res, buf);
	snprintf(buf, sizeof buf, "pc 0x%08x", pc);
	expect_in_report(res, buf);
	expect_in_report(res, phrase);
}

void tl_skip_unless_built(const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", BHEMU_BINARY_DIR, rel);
	if (access(path, R_OK) != 0)
		cr_skip_test("%s not built; needs riscv64-unknown-elf-gcc", path);
}

struct bh_device *tl_boot_ref_grid(unsigned cols, unsigned rows)
{
	return tl_boot_ref_grid_cfg(&(struct bh_device_config){ .board = BH_BOARD_GRID, .grid_cols = cols, .grid_rows = rows });
}

struct bh_device *tl_boot_ref_grid_cfg(const struct bh_device_config *cfg)
{
	struct bh_device *dev;
	struct bh_boot_result res;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/firmware/ref", BHEMU_BINARY_DIR);
	cr_assert_eq(bh_device_open(cfg, &dev), BH_OK);
	int rc = bh_boot(dev, bh_profile_default(), dir, &(struct bh_boot_options){ .timeout_s = 10 }, &res);
	cr_assert_eq(rc, BH_OK, "%s\n%s", res.message, res.report ? res.report : "");
	free(res.report);
	return dev;
}

void tl_launch_ok(struct bh_program *p, struct bh_launch_stats *st)
{
	int rc = bh_program_launch(p, &(struct bh_launch_options){ .timeout_s = 20 }, st);
	cr_assert_eq(rc, BH_OK, "launch: %d\n%s", rc, bh_program_error(p));
}

/* ---------------------------------------------------------------------------------------------
 * Checks (fabric/check.h).
 */

/* The core stopped by check `name` at pc, the report headed as a check's and holding `other`
 * (unless NULL) and `why`; then the result is freed and the device closed. */
void expect_check(struct bh_device *dev, struct bh_core_result *res, enum bh_core_id core, const char *name,
		  uint32_t pc, const char *other, const char *why)
{
	char head[128], at[32];
	snprintf(head, sizeof head, "check %s: on tile 0 (1,2) core %s\n", name, core_names[core]);
	snprintf(at, sizeof at, "  pc 0x%08x", pc);
	cr_assert_eq(res->status, BH_RUN_FAULTED, "status %d, report:\n%s", res->status, res->report);
	cr_expect(!strncmp(res->report, head, strlen(head)), "report does not start with '%s':\n%s", head, res->report);
	assert_has(res->report, at);
	if (other)
		assert_has(res->report, other);
	assert_has(res->report, why);
	free(res);
	bh_device_close(dev);
}

/* Run p on core (its code at core_code_at[core]) and return its result (heap; free it). */
struct bh_core_result *run_checked(struct bh_device *dev, enum bh_core_id core, const struct prog *p)
{
	struct bh_core_result *res = result_new();
	run_prog(dev, core, core_code_at[core], p, res);
	return res;
}

/* li t0, addr; li t1, v; sw t1, 0(t0): returns the store's pc for a program of `core`. */
uint32_t emit_store_pc(struct prog *p, enum bh_core_id core, uint32_t addr, uint32_t v)
{
	emit_li(p, T0, addr);
	emit_li(p, T1, v);
	uint32_t pc = core_code_at[core] + (uint32_t)prog_here(p);
	emit(p, sw(T1, 0, T0));
	return pc;
}

uint32_t emit_program_noc_write(struct prog *p, enum bh_core_id core, uint32_t ctrl, uint32_t hi, uint32_t dst,
				uint32_t len)
{
	const uint32_t regs[][2] = {
		{ N_TARG_LO, NOC_SRC }, { N_TARG_MID, 0 }, { N_TARG_HI, TILE0_XY }, { N_RET_LO, dst }, { N_RET_MID, 0 },
		{ N_LEN, len },
	};
	uint32_t first = emit_store_pc(p, core, CMDBUF0(0) + N_CTRL, ctrl);
	for (unsigned k = 0; k < N(regs); k++)
		emit_store_word(p, CMDBUF0(0) + regs[k][0], regs[k][1]);
	emit_store_word(p, CMDBUF0(0) + N_RET_HI, hi);
	return first;
}

/* NOC_CMD_CTRL = 1 on command buffer 0; returns the store's pc for `core`. */
uint32_t emit_issue(struct prog *p, enum bh_core_id core)
{
	return emit_store_pc(p, core, CMDBUF0(0) + N_CMD_CTRL, 1);
}

void emit_wait_one(struct prog *p, uint32_t addr)
{
	emit_li(p, T0, addr);
	emit_li(p, T2, 1);
	int32_t loop = prog_here(p);
	emit(p, lw(T1, 0, T0));
	emit_branch(p, BNE, T1, T2, loop);
}

/* ---- The CLI ---- */

extern char **environ;

#define CLI BHEMU_BINARY_DIR "/bhemu"

static void slurp(int fd, char *buf, size_t n)
{
	size_t len = 0;
	ssize_t k;
	lseek(fd, 0, SEEK_SET);
	while (len < n - 1 && (k = read(fd, buf + len, n - 1 - len)) > 0)
		len += (size_t)k;
	buf[len] = 0;
}

struct cli_out *test_cli(const char *const *args)
{
	cr_assert_eq(access(CLI, X_OK), 0, "%s is not built", CLI);
	const char *argv[32] = { CLI };
	unsigned n = 1;
	while (args[n - 1]) {
		cr_assert_lt(n, 31u);
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	char out_path[] = "/tmp/bhemu-cli-out-XXXXXX", err_path[] = "/tmp/bhemu-cli-err-XXXXXX";
	int fo = mkstemp(out_path), fe = mkstemp(err_path);
	cr_assert(fo >= 0 && fe >= 0);
	unlink(out_path);
	unlink(err_path);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fo, 1);
	posix_spawn_file_actions_adddup2(&fa, fe, 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	pid_t pid;
	int rc = posix_spawn(&pid, CLI, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert_eq(rc, 0, "posix_spawn: %s", strerror(rc));
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0)
		cr_assert_eq(errno, EINTR);
	struct cli_out *o = calloc(1, sizeof *o);
	cr_assert_not_null(o);
	o->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	slurp(fo, o->out, sizeof o->out);
	slurp(fe, o->err, sizeof o->err);
	close(fo);
	close(fe);
	return o;
}


void expect_status(const struct cli_out *o, int status)
{
	cr_expect_eq(o->status, status, "exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s", o->status, status,
		     o->out, o->err);
}

void expect_shared_initiator(struct bh_device *dev, struct bh_core_result *res, uint32_t pc, uint32_t first,
			     const char *reg, uint32_t other_pc)
{
	char other[160], why[200];
	snprintf(other, sizeof other, "  other: ncrisc, which wrote %s of this command buffer at pc 0x%08x\n", reg, other_pc);
	snprintf(why, sizeof why, "  why: issue (CMD_CTRL) of NoC0 command buffer 0 by brisc, whose transaction (begun at "
		 "pc 0x%08x) another core wrote into (one owner per command buffer)", first);
	expect_check(dev, res, BH_CORE_BRISC, "noc-shared-initiator", pc, other, why);
}

void expect_shared_after_ncrisc_write(struct bh_device *dev, uint32_t first, uint32_t ret_lo)
{
	struct prog n = { 0 }, i = { 0 };
	uint32_t other = emit_store_pc(&n, BH_CORE_NCRISC, CMDBUF0(0) + N_RET_LO, ret_lo);
	emit_exit_with(&n, 0);
	cr_expect_eq(run_core(dev, BH_CORE_NCRISC, &n), 0);
	uint32_t pc = emit_issue(&i, BH_CORE_BRISC);
	emit_exit_with(&i, 0);
	expect_shared_initiator(dev, run_checked(dev, BH_CORE_BRISC, &i), pc, first, "NOC_RET_ADDR_LO", other);
}
