/* bhemu: multi-threaded emulator of Tenstorrent Blackhole chips — public C API.
 *
 * A device is a set of Tensix tiles; every baby RISC-V core of every tile runs on its own OS
 * thread. Cores start held in reset (SOFT_RESET_0 = 0x47800) and use no CPU until released.
 * All functions are thread-safe unless stated otherwise. */
#ifndef BHEMU_BHEMU_H
#define BHEMU_BHEMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bh_device;

/* Cores of a tile, numbered like tt-metal's processor index. */
enum bh_core_id {
	BH_CORE_BRISC = 0,
	BH_CORE_NCRISC = 1,
	BH_CORE_TRISC0 = 2,
	BH_CORE_TRISC1 = 3,
	BH_CORE_TRISC2 = 4,
};

/* Return codes of the API (negative = error). */
enum bh_err {
	BH_OK = 0,
	BH_ERR_ARG = -1,      /* bad argument (tile, core, address range) */
	BH_ERR_ELF = -2,      /* ELF rejected: message says why */
	BH_ERR_SYS = -3,      /* host resource failure (memory, threads) */
	BH_ERR_TIMEOUT = -4,
	BH_ERR_DEADLOCK = -5, /* every running core waits and nothing can wake one */
};

struct bh_device_config {
	unsigned num_tiles;   /* 0 means 1 */
	/* A deadlock is declared after this long with every running core parked without a timeout
	 * and nothing moving: 0 = default (400 ms), negative = never. */
	int deadlock_ms;
};

/* Where a core is. */
enum bh_run_status {
	BH_RUN_IN_RESET = 0,
	BH_RUN_RUNNING,
	BH_RUN_EXITED,        /* guest called exit (host calls enabled) */
	BH_RUN_FAULTED,       /* report holds the fault report */
	BH_RUN_LIMIT,         /* instruction limit reached */
};

struct bh_core_result {
	enum bh_run_status status;
	int exit_status;
	uint64_t instructions;  /* retired since the core last left reset */
	char report[1536];      /* fault report (tile, core, pc, symbol, insn, address, region, why) */
};

int bh_device_open(const struct bh_device_config *cfg, struct bh_device **out);
/* Stops every core and joins every thread. */
void bh_device_close(struct bh_device *dev);
unsigned bh_device_num_tiles(const struct bh_device *dev);

/* Load an ELF's PT_LOAD segments for one core: L1 addresses go to L1, the 0xFFB00000 local-RAM
 * window goes to that core's local RAM, or, when ldm_redirect is non-zero, to L1 at
 * ldm_redirect + (addr - 0xFFB00000) (how tt-metal stages .data for the firmware's copy loop).
 * The symbol table is kept for fault reports. On error returns BH_ERR_ELF and writes a message
 * naming the file and the problem into err. */
struct bh_load_options {
	uint32_t ldm_redirect;
};
int bh_load_elf(struct bh_device *dev, unsigned tile, enum bh_core_id core, const char *path,
		const struct bh_load_options *opt, uint32_t *entry, char *err, size_t errlen);
/* Address of a symbol in the ELF last loaded for this core by bh_load_elf (e.g. a per-core entry
 * "_start_ncrisc", or a parameter word the host patches with bh_l1_write). Returns BH_OK, or
 * BH_ERR_ARG when the tile or core does not exist, nothing was loaded for it, or the symbol is absent. */
int bh_core_symbol_lookup(struct bh_device *dev, unsigned tile, enum bh_core_id core, const char *name,
			  uint32_t *addr);

/* Host calls (ecall, Linux convention: a7 = 93 exit, a7 = 64 write to fd 1/2). Off by default:
 * firmware never uses ecall, so it faults. */
void bh_core_enable_host_calls(struct bh_device *dev, unsigned tile, enum bh_core_id core, bool on);
/* Stop the core with BH_RUN_LIMIT after this many instructions (0 = no limit). */
void bh_core_set_max_instructions(struct bh_device *dev, unsigned tile, enum bh_core_id core, uint64_t n);
/* Release the core from reset with its first instruction at pc (instead of its reset pc). */
int bh_core_start(struct bh_device *dev, unsigned tile, enum bh_core_id core, uint32_t pc);
/* Wait until the core leaves BH_RUN_RUNNING or timeout_ms passes (negative: forever).
 * Returns BH_ERR_DEADLOCK when the device deadlocks meanwhile (bh_device_report says how). */
int bh_core_wait(struct bh_device *dev, unsigned tile, enum bh_core_id core, int timeout_ms,
		 struct bh_core_result *res);
void bh_core_result(struct bh_device *dev, unsigned tile, enum bh_core_id core, struct bh_core_result *res);

/* What every core that ever ran is doing: running (near which pc), exited, faulted, or parked
 * and on what (words by name and value, blocked device accesses, the loop it polls in).
 * Always NUL-terminated; cut at len. */
int bh_device_report(struct bh_device *dev, char *buf, size_t len);
/* True once the deadlock monitor found every running core waiting with nothing to wake one. */
bool bh_device_deadlocked(struct bh_device *dev);

/* Host access to a tile, as the host driver does over PCIe. */
int bh_l1_write(struct bh_device *dev, unsigned tile, uint32_t addr, const void *src, size_t len);
int bh_l1_read(struct bh_device *dev, unsigned tile, uint32_t addr, void *dst, size_t len);
/* 32-bit tile register access from the host (e.g. SOFT_RESET_0 at 0xFFB121B0). */
int bh_reg_write(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t val);
int bh_reg_read(struct bh_device *dev, unsigned tile, uint32_t addr, uint32_t *val);

const char *bh_core_name(enum bh_core_id core);
/* Parses "brisc", "ncrisc", "trisc0".."trisc2"; returns -1 if unknown. */
int bh_core_parse(const char *name);

#ifdef __cplusplus
}
#endif
#endif
