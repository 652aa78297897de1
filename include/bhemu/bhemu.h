/* bhemu: multi-threaded emulator of Tenstorrent Blackhole chips — public C API.
 *
 * A device is a set of Tensix tiles; every baby RISC-V core of every tile runs on its own OS
 * thread. Cores start held in reset (SOFT_RESET_0 = 0x47800) and use no CPU until released; a
 * core's thread is created at its first release (with serial scheduling, at open).
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
	BH_CORE_NONE = 5,      /* in observer events: not a core (the host, a fast-dispatch model, the NoC) */
	/* In BH_EVENT_ACTOR events: the other actors of a tile, each a track of its own. */
	BH_ACTOR_TENSIX0 = 6,  /* Tensix threads 0..2 (BH_ACTOR_TENSIX0 + thread) */
	BH_ACTOR_CQ_PREFETCH = 9,
	BH_ACTOR_CQ_DISPATCH = 10,
	BH_ACTOR_COUNT = 11,
};

/* Return codes of the API (negative = error). */
enum bh_err {
	BH_OK = 0,
	BH_ERR_ARG = -1,      /* bad argument (tile, core, address range) */
	BH_ERR_ELF = -2,      /* ELF rejected: message says why */
	BH_ERR_SYS = -3,      /* host resource failure (memory, threads) */
	BH_ERR_TIMEOUT = -4,
	BH_ERR_DEADLOCK = -5, /* every running core waits and nothing can wake one */
	BH_ERR_FAULT = -6,    /* a core faulted or hit its instruction limit (the report says where) */
	BH_ERR_CQ = -7,       /* the command queue stopped on a malformed command (bh_cq_error says which) */
};

enum bh_board {
	BH_BOARD_GRID = 0,    /* test grid: grid_cols x grid_rows (or num_tiles in a row) */
	BH_BOARD_P150 = 1,    /* 140 Tensix tiles (columns 1-7, 10-16 x rows 2-11), 8 DRAM banks, 12 Ethernet */
	BH_BOARD_P100 = 2,    /* 120 Tensix tiles (columns 1-7, 10-14), 7 DRAM banks, no Ethernet */
};

/* NULL or {.num_tiles = n} opens a BH_BOARD_GRID of n tiles in rows of 14 (n <= 140). */
struct bh_device_config {
	enum bh_board board;
	unsigned num_tiles;   /* BH_BOARD_GRID: tiles in rows of 14 (0 means 1); with grid_cols, how many
			       * positions of the grid to fill row-major (0 = all) */
	unsigned grid_cols, grid_rows;   /* BH_BOARD_GRID: 1..14 x 1..10 (rows 0 means 1) */
	uint32_t harvest_cols;   /* bit k: logical Tensix column k disabled */
	uint8_t harvest_dram;    /* bit b: DRAM bank b disabled */
	uint64_t host_mem_size;  /* host memory reachable through the PCIe tile; 0 = 256 MiB */
	/* Or host memory the caller serves (libbhemu_ttsim.so: the host's DMA callbacks): NoC requests
	 * to the PCIe tile with bit 60 set call host_io(host_io_arg, NoC address, buf, len, write) on
	 * the thread that moves the data (a core's, or the NoC's); false refuses the request and the
	 * initiating core faults. NULL: the library's buffer (bh_host_mem). */
	bool (*host_io)(void *arg, uint64_t addr, void *buf, uint32_t len, bool write);
	void *host_io_arg;
	/* A deadlock is declared after this long with every running core parked without a timeout
	 * and nothing moving: 0 = default (400 ms), negative = never. */
	int deadlock_ms;
	/* The block compiler of the RISC-V cores (x86-64 hosts): hot loops run as native code with
	 * the same results, faults and instruction counts as the interpreter. */
	enum bh_jit {
		BH_JIT_DEFAULT = 0,   /* the BHEMU_JIT environment variable (0/off, 1/on, eager), else on */
		BH_JIT_OFF,           /* interpret everything */
		BH_JIT_ON,            /* compile the code the periodic checks find hot */
		BH_JIT_EAGER,         /* compile at every jump through lookup (tests) */
	} jit;
	/* The NoC. Asynchronous: a request is in flight from its NOC_CMD_CTRL store until each of
	 * its phases runs at a time drawn from the latency model (CMD_CTRL busy until accepted,
	 * data landing at each destination at its own time, counters moving as on silicon), so a
	 * missing barrier or a source reused too early shows. Synchronous: every request completes
	 * inside its CMD_CTRL store (fastest; such bugs stay hidden). */
	enum bh_noc_mode {
		BH_NOC_DEFAULT = 0,   /* the BHEMU_NOC environment variable (sync / async), else async */
		BH_NOC_SYNC,
		BH_NOC_ASYNC,
	} noc;
	/* Asynchronous NoC latency: "zero", "silicon", "slow" or "MIN:MAX" in ns; NULL: the
	 * BHEMU_NOC_LATENCY environment variable, else "silicon". A bad value fails the open with
	 * BH_ERR_ARG (message on stderr). */
	const char *noc_latency;
	uint64_t noc_seed;       /* seed of the latency jitter; 0: drawn from the run's seed (seed below) */
	/* Synchronisation-bug detectors (enum bh_check below): bit (1u << BH_CHECK_x) turns check x on.
	 * 0 = BH_CHECKS_DEFAULT; with BH_CHECKS_EXACT set, exactly the listed bits (so
	 * BH_CHECKS_EXACT alone turns every check off). */
	uint32_t checks;
	/* What a finding does: BH_CHECK_STOP stops the core like a fault (BH_RUN_FAULTED, report
	 * starting "check <name>:"); BH_CHECK_LOG records it once per (check, pc, tile, core) for
	 * bh_device_findings and the run goes on. */
	enum bh_check_mode {
		BH_CHECK_STOP = 0,
		BH_CHECK_LOG,
	} check_mode;
	/* Provocation (races.md): seeded perturbations that make latent synchronisation bugs show.
	 * seed drives every random choice of the run; 0 = the BHEMU_SEED environment variable, else
	 * one from the clock (bh_device_seed says which). provoke is a mask of BH_PROVOKE_*; 0 = the
	 * BHEMU_PROVOKE environment variable (a list as bh_provoke_parse reads it), else none;
	 * BH_PROVOKE_NONE = none whatever the environment says. provoke_rate is the chance per sync
	 * point of DELAY and COALESCE, 0 to 1; 0 = BHEMU_PROVOKE_RATE, else 0.05; negative = 0. A
	 * malformed environment variable makes bh_device_open fail with BH_ERR_ARG (message on
	 * stderr naming it). */
	uint64_t seed;
	uint32_t provoke;
	double provoke_rate;
	/* Scheduling. Threaded: every core, Tensix thread, fast-dispatch model and the NoC run on
	 * their own threads at once, interleaved by the host (fastest). Serial: they still have their
	 * own threads, but exactly one runs at a time, handing a token on at scheduling points (device
	 * accesses, stores to watched words, the end of a quantum of instructions, parks) to the actor
	 * the strategy draws from the run's seed; time is virtual (a nanosecond per instruction), and
	 * a deadlock is exact (nothing can run, nothing waits on time, nothing is in flight). A
	 * serial run is a function of the program, its inputs, the seed and the strategy: the same
	 * seed replays it bit for bit. The thread that opens a serial device must be the one that
	 * drives it (it is the host actor). */
	enum bh_sched_mode {
		BH_SCHED_DEFAULT = 0,   /* the BHEMU_SCHED environment variable (threaded / serial), else threaded */
		BH_SCHED_THREADED,
		BH_SCHED_SERIAL,
	} sched;
	enum bh_sched_strategy {
		BH_STRATEGY_DEFAULT = 0,  /* BHEMU_STRATEGY (random / pct), else random */
		BH_STRATEGY_RANDOM,       /* a random runnable actor at random points (switch_every below) */
		BH_STRATEGY_PCT,          /* probabilistic concurrency testing: random priorities, pct_depth - 1 change points */
	} strategy;
	unsigned pct_depth;   /* PCT's depth d, 1..64; 0 = 3 */
	/* Random strategy: a scheduling point hands the token to a uniformly random runnable actor
	 * (the holder included) with probability 1/switch_every, else the holder goes on (every
	 * interleaving stays reachable; fewer hand-overs run faster). 1 = a uniform choice at every
	 * point; 0 = 64. */
	unsigned switch_every;
	uint64_t pct_steps;   /* PCT's estimate of the scheduling points of a run; 0 = 100000 */
	/* Who executes the Tensix instructions a TRISC pushes. Deferred: they wait in the thread's
	 * instruction FIFO while the TRISC runs on, and the TRISC's own host thread executes them
	 * after its next device access (so that access still sees them pending), before it parks,
	 * at the end of a quantum and when it stops; an instruction that would wait (Wait Gate,
	 * ATGETM, SrcA/SrcB ownership), a MOP, a REPLAY and STOREREG/LOADREG go to the thread's
	 * executor, which keeps the FIFO until it is empty. No host-thread hand-over per
	 * instruction. Threaded: the executor thread executes every instruction as soon as it can.
	 * Serial scheduling and the delay/coalesce provocations always use threaded. */
	enum bh_tensix_mode {
		BH_TENSIX_DEFAULT = 0,   /* the BHEMU_TENSIX environment variable (deferred / threaded), else deferred */
		BH_TENSIX_DEFERRED,
		BH_TENSIX_THREADED,
	} tensix;
	/* Documented silicon bugs to model (BH_HW_BUG_*); 0 = none: where a program meets one, the
	 * emulator faults naming it instead. */
	uint32_t hw_bugs;
	/* Host threads of a worker tile. Per core: each RISC-V core and each Tensix executor runs
	 * on its own host thread, so the actors of a tile race in parallel, as on silicon. One: the
	 * five cores and three executors of a tile share one host thread as fibers that switch where
	 * one would park (and every 4096 instructions of a core), for hosts with fewer CPUs than
	 * busy actors: a hand-over inside a tile costs a user-level switch instead of a futex
	 * wake-up, but the tile's actors interleave instead of running at once (tiles still run in
	 * parallel). Serial scheduling uses per-core. */
	enum bh_tile_threads {
		BH_TILE_THREADS_DEFAULT = 0,   /* the BHEMU_TILE_THREADS environment variable (per-core / one), else per-core */
		BH_TILE_THREADS_PER_CORE,
		BH_TILE_THREADS_ONE,
	} tile_threads;
};

/* Bits of bh_device_config.hw_bugs. */
/* The packer's L1 accumulation of IEEE FP16 (A-exponent) data: Blackhole writes the all-ones NaN
 * 0x7FFF / 0xFFFF for some sums (modelled: a sum outside FP16's normal range, and a cancelling
 * sum of two values of exponent 30 or more). */
#define BH_HW_BUG_PACK_L1ACC_FP16 (1u << 0)

/* Serial scheduling of an open device: false when it is threaded. Otherwise the scheduling points
 * so far, how many of them handed the token to another actor, and the virtual time in ns. */
/* The host waits ns for the device to move: a sleep, or under serial scheduling ns of virtual
 * time in which the actors run (a host that polls device memory must wait with this there, or
 * nothing else runs). */
void bh_device_pause(struct bh_device *dev, uint64_t ns);
/* "threaded", "serial random" or "serial pct". */
const char *bh_device_sched(const struct bh_device *dev);
bool bh_device_serial_stats(struct bh_device *dev, uint64_t *points, uint64_t *switches, uint64_t *vt_ns);
/* The Tensix instructions (FIFO words: a MOP or a REPLAY counts once) of every tile so far: how
 * many the pushing TRISCs executed themselves (deferred mode) and how many the threads'
 * executors did, and how often an executor took a FIFO over from its TRISC. deferred: the mode
 * of the device (bh_device_config.tensix). */
struct bh_tensix_stats {
	bool deferred;
	uint64_t by_trisc, by_executor, handovers;
};
void bh_device_tensix_stats(struct bh_device *dev, struct bh_tensix_stats *out);

/* Bits of bh_device_config.provoke. */
#define BH_PROVOKE_DELAY         (1u << 0)  /* a core sleeps 1..200 us before a sync-register access */
#define BH_PROVOKE_SKEW          (1u << 1)  /* a released core sleeps 0..500 us before its first instruction */
#define BH_PROVOKE_CQ_SLOW       (1u << 2)  /* the fast-dispatch cores start 0..20 ms late */
#define BH_PROVOKE_PREFETCH_SLOW (1u << 3)  /* the prefetcher sleeps 0..1 ms before every fetch */
#define BH_PROVOKE_COALESCE      (1u << 4)  /* a counter read is late: several increments seen as one step */
/* A core's store to a stream register waits in its store queue while its later loads of other
 * registers and L1 go ahead (riscv-cores.md 4, races.md #21); it lands at the core's next access to
 * the same register, its next other device store, when it parks or stops, or within 4096
 * instructions. Not part of "all": it changes what a program may observe, not only when. */
#define BH_PROVOKE_REORDER       (1u << 5)
/* A core keeps its decoded instructions when their L1 words are written (by anyone, itself
 * included) until its I-cache is invalidated (Tensix config 185, or release from reset): it runs
 * the old instructions, as silicon's I-cache serves them (races.md #6; silicon holds some 20,
 * bhemu every one decoded). Words it never decoded come from L1. Not part of "all": it changes
 * what a program may observe. */
#define BH_PROVOKE_STALE_ICACHE  (1u << 6)
/* Each core's L0 data cache (4 x 16 B in front of L1, not coherent) is modelled while cfg0 turns it
 * on: loads are answered from it, so a poll without fence may read a stale line until a random
 * flush, or forever with cfg0 bit 24 (races.md #20). The cores then run the interpreter that looks
 * at loads, without the block compiler. Not part of "all". */
#define BH_PROVOKE_L0_CACHE      (1u << 7)
#define BH_PROVOKE_ALL           0x1fu      /* the timing provocations: every kind but REORDER */
#define BH_PROVOKE_NONE          (1u << 31)

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
	char report[1536];      /* fault report (tile, core, pc, symbol, insn, address, region, why); with
				 * BH_RUN_IN_RESET and reset_by >= 0, which store put it there */
	/* BH_RUN_IN_RESET: the core of the tile whose SOFT_RESET_0 store put this core in reset
	 * (enum bh_core_id), or -1 (held since the device opened, or by the host); the pc of that
	 * store, the instructions its core had retired before it and the value it stored. */
	int reset_by;
	uint32_t reset_pc;
	uint64_t reset_instructions;
	uint32_t reset_value;
};

/* Asynchronous NoC: deliver everything in flight now, in issue order, as if every latency had
 * passed (the host's "NoC flush" before it inspects memory that in-flight requests may still
 * write). No effect with the synchronous NoC. Returns the number of transactions that were in
 * flight. */
unsigned long bh_device_noc_flush(struct bh_device *dev);
/* Whether spec is a NoC latency bh_device_open accepts (bh_device_config.noc_latency): BH_OK, or
 * BH_ERR_ARG with the reason in err. */
int bh_noc_latency_check(const char *spec, char *err, size_t errlen);

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
/* Release the core from reset with its first instruction at pc (instead of its reset pc): its
 * SOFT_RESET_0 bit is asserted, then cleared. The pc is for this release only: a reset that
 * comes before the core's thread picked the release up ends it too, and the next release starts
 * the core at its reset pc. */
int bh_core_start(struct bh_device *dev, unsigned tile, enum bh_core_id core, uint32_t pc);
/* Wait until the core leaves BH_RUN_RUNNING or timeout_ms passes (negative: forever; under
 * serial scheduling virtual time, so that what the caller sees after it replays).
 * Returns BH_ERR_DEADLOCK when the device deadlocks meanwhile (bh_device_report says how). */
int bh_core_wait(struct bh_device *dev, unsigned tile, enum bh_core_id core, int timeout_ms,
		 struct bh_core_result *res);
void bh_core_result(struct bh_device *dev, unsigned tile, enum bh_core_id core, struct bh_core_result *res);
/* Instructions the core retired since it last left reset, also while it runs (may lag a running
 * core by a few thousand instructions). 0 for a core that does not exist. */
uint64_t bh_core_instructions(struct bh_device *dev, unsigned tile, enum bh_core_id core);

/* Block-compiler statistics of one core since the device was opened: regions of guest code
 * compiled, and times its code arena filled up and was emptied. Zero for a core that does not
 * exist or never compiled. */
/* regions: compiled regions this core entered into its pages (flushes: times its arena filled);
 * shared: how many of those it took from the process-wide cache of translations (byte-identical
 * code at the same address, compiled once by another core or an earlier launch). */
struct bh_jit_stats {
	uint64_t regions, flushes, shared;
	uint64_t chained;   /* jumps from compiled code straight into compiled code of its page */
};
void bh_core_jit_stats(struct bh_device *dev, unsigned tile, enum bh_core_id core, struct bh_jit_stats *out);

/* Provocation of an open device: its seed (as chosen, or drawn when the config said 0), the
 * kinds on (BH_PROVOKE_*, 0 when none), and what it did so far. */
uint64_t bh_device_seed(const struct bh_device *dev);
uint32_t bh_device_provoke(const struct bh_device *dev);
struct bh_provoke_stats {
	uint64_t sync_points;   /* core accesses to sync registers seen with DELAY or COALESCE on */
	uint64_t delays, delay_ns;
	uint64_t coalesced;     /* counter reads delayed */
	uint64_t skews, skew_ns;   /* core starts skewed, and the skews drawn, summed */
	uint64_t cq_delays, cq_delay_ns;
	uint64_t reordered;     /* stream-register stores held in a store queue (REORDER) */
	uint64_t stale_kept;    /* writes into a core's decoded code it kept running (STALE_ICACHE) */
	uint64_t l0_stale;      /* loads answered from an L0 line older than L1 (L0_CACHE) */
};
void bh_device_provoke_stats(struct bh_device *dev, struct bh_provoke_stats *out);
/* A comma-separated list of delay, skew, cq-slow, prefetch-slow, coalesce, reorder, stale-icache, l0-cache, all, none into a mask
 * ("none" alone: BH_PROVOKE_NONE). Returns 0, or -1 with a message naming the bad item in err. */
int bh_provoke_parse(const char *list, uint32_t *mask, char *err, size_t errlen);
/* The mask as such a list ("none" when no kind is on). */
void bh_provoke_format(uint32_t mask, char *buf, size_t n);

/* Observers: a callback on every core's own thread when it leaves reset (RUNNING), parks in a
 * poll loop or a blocked device access (PARKED), wakes from that (WOKEN) and stops (exited,
 * faulted, instruction limit or put in reset: STOPPED). Attach and detach while cores run; a
 * detached observer costs the cores one relaxed load per event. The callback must be thread-safe
 * (700 threads call it), quick, and must not call back into the device. When bh_device_unobserve
 * returns, the callback runs nowhere and is never called again. */
enum bh_core_event_kind {
	BH_CORE_EVENT_RUNNING,
	BH_CORE_EVENT_PARKED,
	BH_CORE_EVENT_WOKEN,
	BH_CORE_EVENT_STOPPED,
	/* Only to observers that ask for them (bh_device_observe_kinds); on whichever thread acts: */
	BH_EVENT_NOC_ISSUE,         /* a NoC request issued by `core` of `tile` (BH_CORE_NONE: the host or a
				     * fast-dispatch model): id, peer_tile (its first receiver), addr, size */
	BH_EVENT_NOC_LAND,          /* its data landed at receiver `tile` (write, atomic) or at the initiator
				     * (read: `tile`): id, peer_tile (the initiator), addr, size */
	BH_EVENT_CB,                /* a circular buffer's counters moved: addr = CB index, value[0] pages
				     * received, [1] acked (16-bit), [2] pages held */
	BH_EVENT_LAUNCH,            /* the host launched a program on `tile` (what: "launch"), or a go signal
				     * reached it (what: "go") */
	BH_EVENT_FINDING,           /* a detector finding or a fault stopped (or was logged for) a core:
				     * what = the report */
	BH_EVENT_ACTOR,             /* a Tensix thread or fast-dispatch model (`core`: BH_ACTOR_*) of `tile`
				     * runs (what: "running") or waits (what: "parked: " and on what, or
				     * "idle"), on its own thread */
	BH_EVENT_KIND_COUNT,
};
#define BH_CORE_EVENTS_CORE ((1u << BH_EVENT_NOC_ISSUE) - 1)   /* the four core events */
#define BH_EVENTS_ALL ((1u << BH_EVENT_KIND_COUNT) - 1)
struct bh_core_event {
	enum bh_core_event_kind kind;
	unsigned tile;
	enum bh_core_id core;
	uint32_t pc;                /* where it starts, parks, wakes or stopped */
	uint64_t instructions;      /* retired since it left reset (at the last event check while running) */
	const char *what;           /* PARKED: what it waits on ("poll", "timed poll", "device access");
				     * FINDING: the report; LAUNCH: "launch" or "go"; else NULL. Valid
				     * during the call only */
	uint64_t id;                /* NOC_*: the transaction (unique per device) */
	unsigned peer_tile;
	uint32_t addr, size;        /* PARKED: the first word polled (0: none) */
	uint32_t value[3];
	uint64_t time_ns;           /* CLOCK_MONOTONIC ns the values were read at (CB), else 0 (now) */
};
typedef void (*bh_core_observer)(void *arg, const struct bh_core_event *ev);
/* Returns BH_OK and an id for bh_device_unobserve, or BH_ERR_ARG (no function) / BH_ERR_SYS.
 * bh_device_observe asks for the four core events; _kinds for any set (1 << kind each). */
int bh_device_observe(struct bh_device *dev, bh_core_observer fn, void *arg, uint64_t *id);
int bh_device_observe_kinds(struct bh_device *dev, uint32_t kinds, bh_core_observer fn, void *arg, uint64_t *id);
/* Returns BH_OK, or BH_ERR_ARG when id is not attached. Not from an observer callback. */
int bh_device_unobserve(struct bh_device *dev, uint64_t id);

/* Timeline trace (host/trace.c): a Chrome trace-event JSON file (Perfetto, chrome://tracing) with
 * a process per tile and a track per core showing running / parked (on what) / stopped, the
 * NoC's transactions as flows from initiator to receiver, CB counters as counter tracks,
 * launches and go signals, and findings and faults with their reports. Events go to a ring of
 * the last `max_events` (0: 1,000,000) and are written at bh_device_trace_stop (or close).
 * Times are host time since the trace started. kinds: 1 << enum bh_core_event_kind (0: all);
 * tiles: only tiles [tile_first, tile_last] (both 0: all). Returns BH_OK, BH_ERR_ARG (no path,
 * a trace already on) or BH_ERR_SYS (the file cannot be created; nothing is traced). */
struct bh_trace_config {
	const char *path;
	uint32_t kinds;
	unsigned tile_first, tile_last;
	uint64_t max_events;
};
int bh_device_trace_start(struct bh_device *dev, const struct bh_trace_config *cfg);
/* Detach and write the file. Returns BH_OK, BH_ERR_ARG (no trace on), BH_ERR_SYS (write failed). */
int bh_device_trace_stop(struct bh_device *dev);
/* A comma-separated list of core, noc, cb, launch, finding, all into kinds. 0, or -1 with a
 * message naming the bad item in err. */
int bh_trace_kinds_parse(const char *list, uint32_t *kinds, char *err, size_t errlen);

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

/* Where things are on the NoC. Coordinates are translated ("virtual") NoC coordinates, the ones
 * firmware, kernels and bank tables use on both NoCs (noc.md 2). Tile index k is the row-major
 * logical position: column k mod cols, row k div cols of the (harvested) worker grid. */
enum bh_board bh_device_board(const struct bh_device *dev);
const char *bh_board_name(enum bh_board board);              /* "grid", "p150", "p100" */
int bh_board_parse(const char *name, enum bh_board *out);     /* 0, or -1 if unknown */
int bh_device_tile_xy(const struct bh_device *dev, unsigned tile, unsigned *x, unsigned *y);
/* Logical worker grid: tiles are (x, y) with x < cols, y < rows, index y * cols + x (a grid board
 * filled partly by num_tiles has fewer tiles in its last row). */
void bh_device_grid_size(const struct bh_device *dev, unsigned *cols, unsigned *rows);
/* Index of the Tensix tile at (x, y), or -1 when no tile is there. */
int bh_device_tile_at(const struct bh_device *dev, unsigned x, unsigned y);
/* The soc descriptor tt-umd reads beside a simulator library (soc_descriptor.yaml next to
 * libbhemu_ttsim.so) for board: written into buf (cut at len, NUL-terminated when len > 0);
 * returns its full length, or BH_ERR_ARG for BH_BOARD_GRID. BH_BOARD_P150 and BH_BOARD_P100 list
 * the Tensix columns and DRAM banks the board has (tt-umd's simulator path applies no Tensix or
 * DRAM harvesting to the file) and Ethernet as tt-umd's Blackhole descriptor does: the 14
 * channels on a P150 (tt-umd's simulator path harvests 5 and 8, as the P150 has them), none on a
 * P100 (all harvested). */
int bh_soc_descriptor(enum bh_board board, char *buf, size_t len);
/* The PCIe endpoint that carries host-memory requests: (19, 24). */
int bh_pcie_xy(const struct bh_device *dev, unsigned *x, unsigned *y);

/* DRAM: bh_dram_num_banks() banks with dense logical ids, 0xFF000000 usable bytes each (the first
 * 64 B hold firmware's DRAM barrier word). Backed lazily: untouched DRAM costs no host memory.
 * bank_xy gives the port firmware addresses on that NoC (0 or 1). Out of range: BH_ERR_ARG. */
unsigned bh_dram_num_banks(const struct bh_device *dev);
int bh_dram_bank_xy(const struct bh_device *dev, unsigned noc, unsigned bank, unsigned *x, unsigned *y);
int bh_dram_write(struct bh_device *dev, unsigned bank, uint64_t offset, const void *src, size_t len);
int bh_dram_read(struct bh_device *dev, unsigned bank, uint64_t offset, void *dst, size_t len);

/* Host memory the device reaches through the PCIe tile (like a pinned buffer): the host uses *ptr
 * directly; device code addresses byte i as NoC-local noc_base + i, noc_base =
 * (1 << 60) | 0x40000000, at the PCIe tile (bh_pcie_xy). */
int bh_host_mem(struct bh_device *dev, void **ptr, uint64_t *size, uint64_t *noc_base);

/* Interleaved buffers (noc.md 10). L1 banks are the Tensix tiles in tile-index order (L1 bank k
 * = tile k, so bank order runs along a row first); DRAM banks are the DRAM banks in id order.
 * Every bank offset is 0. Page p of a buffer at base with page size ps over N banks lives in
 * bank p mod N at base + (p div N) * align(ps), align = 64 for DRAM, 16 for L1. */
unsigned bh_num_l1_banks(const struct bh_device *dev);
int bh_l1_bank_xy(const struct bh_device *dev, unsigned noc, unsigned bank, unsigned *x, unsigned *y);
/* Write/read len bytes as consecutive pages first_page, first_page + 1, ... (the last page may
 * be partial) over all banks of the kind. BH_ERR_ARG, with nothing written, if any page would
 * leave its bank (L1 size or DRAM usable size) or page_size is 0. */
int bh_interleaved_write(struct bh_device *dev, bool dram, uint32_t base, uint32_t page_size, uint32_t first_page,
			 const void *src, size_t len);
int bh_interleaved_read(struct bh_device *dev, bool dram, uint32_t base, uint32_t page_size, uint32_t first_page,
			void *dst, size_t len);
/* The bank-table blob firmware copies from MEM_BANK_TO_NOC_SCRATCH (noc.md 9) for its compile-time
 * NUM_DRAM_BANKS = num_dram and NUM_L1_BANKS = num_l1 (the first banks in the orders above), all
 * little-endian: uint16 dram_xy[2][D] at 0, uint16 l1_xy[2][L] at 4D, int32 dram_offset[D] at
 * 4D + 4L, int32 l1_offset[L] at 8D + 4L; xy entries are (y << 6) | x. Returns the blob size
 * 8D + 8L (writing it when out is non-NULL and len is large enough), or BH_ERR_ARG when the
 * device has fewer banks or len is too small. */
int bh_bank_tables(const struct bh_device *dev, uint8_t *out, size_t len, unsigned num_dram, unsigned num_l1);

/* ---------------------------------------------------------------------------------------------
 * Firmware profiles and boot (host/profile.c, host/boot.c).
 *
 * Everything a firmware build places in L1 (reference/README.md rule (a)): the emulator core never
 * uses these; only the host layer (boot, dispatch) does. Addresses are L1 byte addresses;
 * mailbox fields are offsets from mailbox_base. */
#define BH_PROFILE_UNSET 0xFFFFFFFFu   /* a field neither derived nor given */
#define BH_PROFILE_BOARDS 3            /* indexed by enum bh_board */

struct bh_profile {
	char name[32];
	uint32_t fw_base[5];              /* firmware text base (= _start = ELF entry), per bh_core_id */
	uint32_t ldm_scratch[5];          /* where the host stages the 0xFFB00000 PT_LOAD, per core */
	uint32_t mailbox_base;
	uint32_t subordinate_sync;        /* offsets from mailbox_base from here ... */
	uint32_t launch_msg_rd_ptr;
	uint32_t launch_base;
	uint32_t launch_entry_size;
	uint32_t launch_count;
	uint32_t go_messages_base;
	uint32_t go_messages_count;
	uint32_t go_message_index;
	uint32_t core_info_logical_x;
	uint32_t core_info_logical_y;     /* ... to here */
	uint32_t kernel_config_base;
	uint32_t bank_scratch;            /* MEM_BANK_TO_NOC_SCRATCH */
	uint32_t num_dram_banks;          /* the firmware's compile-time NUM_DRAM_BANKS */
	uint32_t num_l1_banks;            /* NUM_L1_BANKS */
	uint32_t logical_col_map;         /* logical-to-virtual column map (uint8_t[20]) */
	uint32_t logical_row_map;         /* row map (uint8_t[12]) */
	uint32_t num_cbs;
	uint32_t first_cb_stream;         /* CB n uses stream first_cb_stream + n */
	/* Fast-dispatch cores (virtual NoC x, y) per enum bh_board; 0,0 where the board has none. */
	uint8_t prefetch_xy[BH_PROFILE_BOARDS][2];
	uint8_t dispatch_xy[BH_PROFILE_BOARDS][2];
};

/* The shipped profile of that name ("p100a"), or NULL. bh_profile_default() is "p100a". */
const struct bh_profile *bh_profile_find(const char *name);
const struct bh_profile *bh_profile_default(void);
/* Names of the shipped profiles, NULL-terminated. */
const char *const *bh_profile_names(void);
/* Derives a profile from the five firmware ELFs fw_dir/{brisc,ncrisc,trisc0,trisc1,trisc2}.elf:
 * ELF entries give the firmware bases; symbols (mailboxes, go_messages, launch, go_message_index,
 * subordinate_sync, launch_msg_rd_ptr, __fw_export_<field>) override base's values. base may be
 * NULL; then every field must come from the ELFs. On error returns BH_ERR_ELF (unreadable ELF,
 * inconsistent values) or BH_ERR_ARG (a required field neither derived nor given) with a message
 * naming the file or the field. */
int bh_profile_derive(const char *fw_dir, const struct bh_profile *base, struct bh_profile *out, char *err,
		      size_t errlen);
/* Writes the profile as "field = value" lines (used by `bhemu boot --show-profile` and tests). */
int bh_profile_format(const struct bh_profile *p, char *buf, size_t len);

struct bh_boot_options {
	double timeout_s;                 /* 0 = 2 s (the host driver's limit) */
	bool set_reset_pcs;               /* also write NCRISC/TRISC reset PCs (BRISC firmware does) */
};

struct bh_boot_result {
	unsigned tiles;                   /* worker tiles booted */
	unsigned done;                    /* tiles whose go_messages[0] reached DONE */
	double seconds;                   /* from the release of BRISC to the last DONE */
	unsigned num_dram_banks, num_l1_banks;   /* bank-table sizes written (after clamping) */
	bool faulted;                     /* a core faulted or hit its limit during boot */
	char message[1024];               /* errors, and notes such as bank-table clamping */
	char *report;                     /* on timeout/deadlock: the stuck tiles' cores (free()) */
};

/* Boots every Tensix tile as the host driver does (launch.md section 1): hold all cores, load the
 * five ELFs from fw_dir, L1[0] = jal to the BRISC base, go_messages[0] = INIT, bank tables and
 * core_info, release BRISC, wait for DONE. Returns BH_OK when every tile is DONE; BH_ERR_ELF or
 * BH_ERR_ARG (message says which file or field); BH_ERR_TIMEOUT or BH_ERR_DEADLOCK with the
 * stuck tiles described in res->report. */
int bh_boot(struct bh_device *dev, const struct bh_profile *prof, const char *fw_dir,
	    const struct bh_boot_options *opt, struct bh_boot_result *res);

/* Registers the firmware protocol of profile prof with every tile, as bh_boot does before it
 * releases BRISC: where the CB counters live (CB layout), the launch slots launch-slot-busy
 * guards and the CB reset byte (subordinate_sync.trisc0) cb-reset-window watches. For programs
 * that follow the profile's mailbox layout without booting its firmware (`bhemu run --profile`).
 * Call it before any core runs. BH_ERR_ARG when the CB layout does not fit in the 64 streams. */
int bh_device_use_profile(struct bh_device *dev, const struct bh_profile *prof);

/* ---------------------------------------------------------------------------------------------
 * Programs and slow dispatch (host/program.c; firmware/kernel/ABI.md is the kernel contract).
 *
 * A program is what one launch runs on a booted device: kernels (one ELF per processor) on sets of
 * tiles, circular buffers, semaphores and runtime arguments. Tiles are named by logical (x, y)
 * coordinates of the worker grid (tile index y * cols + x, see bh_device_tile_xy). A program
 * belongs to one device and needs the device booted by bh_boot (it uses that boot's profile).
 * Functions on one program are not thread-safe with each other; different programs are. */
struct bh_program;

/* Logical tiles x0..x1 x y0..y1, inclusive. */
struct bh_core_range {
	unsigned x0, y0, x1, y1;
};

enum { BH_PROGRAM_MAX_SEMAPHORES = 16, BH_PROGRAM_MAX_ARGS = 256 };

/* Every tile of the device as ranges (the full rows, then a partial last row on a grid board
 * filled by tile count); returns how many (1 or 2). */
unsigned bh_device_all_tiles(const struct bh_device *dev, struct bh_core_range r[2]);

int bh_program_create(struct bh_device *dev, struct bh_program **out);
void bh_program_destroy(struct bh_program *prog);
/* The message of the last failed call (names the kernel, file, tile, field, ...); "" if none. The
 * launch report on timeout also goes here. Valid until the next call on this program. */
const char *bh_program_error(const struct bh_program *prog);

/* A kernel ELF built by bhemu_kernel() for processor proc, on every tile of the ranges. A tile
 * runs at most one kernel per processor. compile_args (NULL = do not check) must equal the
 * compile-time arguments the ELF was built with. Returns the kernel id (>= 0) or an error:
 * BH_ERR_ELF (unreadable, not a kernel, built for another processor, unsupported relocation,
 * compile-time arguments differ), BH_ERR_ARG (tiles outside the grid, processor already taken). */
int bh_program_add_kernel(struct bh_program *prog, enum bh_core_id proc, const char *elf_path,
			  const struct bh_core_range *ranges, unsigned nranges, const uint32_t *compile_args,
			  unsigned num_compile_args);
/* A position-independent raw code image (RV32 words, run in place; e.g. a single `ret`). */
int bh_program_add_kernel_code(struct bh_program *prog, enum bh_core_id proc, const uint32_t *code, size_t words,
			       const struct bh_core_range *ranges, unsigned nranges);

/* Circular buffer `index` on the ranges: num_pages pages of page_size bytes (a multiple of 16)
 * in L1 at address (16-aligned), or allocated by the program when address is 0. The index must be
 * below the profile's CB count; a tile holds each index once; buffers must not overlap each other,
 * the firmware's area or the kernel-config area. BH_ERR_ARG otherwise (bh_program_error says
 * which). */
struct bh_cb_config {
	unsigned index;
	uint32_t page_size;
	uint32_t num_pages;
	uint32_t address;
};
int bh_program_add_cb(struct bh_program *prog, const struct bh_cb_config *cb, const struct bh_core_range *ranges,
		      unsigned nranges);
/* L1 address of CB index on a tile (BH_ERR_ARG when that tile has no such CB). */
int bh_program_cb_address(const struct bh_program *prog, unsigned index, unsigned tile, uint32_t *addr);
/* A semaphore (16-byte slot in the kernel-config area, kernels: get_semaphore(id)) on the ranges,
 * set to initial at every launch. Returns its id (0..15) or BH_ERR_ARG. */
int bh_program_add_semaphore(struct bh_program *prog, const struct bh_core_range *ranges, unsigned nranges,
			     uint32_t initial);
/* L1 address of semaphore id on a tile once the program has been launched or laid out. */
int bh_program_semaphore_address(const struct bh_program *prog, unsigned id, unsigned tile, uint32_t *addr);

/* Runtime arguments of a kernel on one tile (get_arg_val) and common to all its tiles
 * (get_common_arg_val); at most BH_PROGRAM_MAX_ARGS each. Kept until set again. */
int bh_program_set_runtime_args(struct bh_program *prog, int kernel, unsigned tile, const uint32_t *args,
				unsigned n);
int bh_program_set_common_runtime_args(struct bh_program *prog, int kernel, const uint32_t *args, unsigned n);

struct bh_launch_options {
	double timeout_s;              /* 0 = 10 s */
	unsigned noc;                  /* brisc_noc_id: the NoC BRISC uses (NCRISC the other) */
	/* Called about every 50 ms while waiting (progress): tiles done so far of total. */
	void (*progress)(void *arg, unsigned done, unsigned total);
	void *progress_arg;
};
struct bh_launch_stats {
	unsigned tiles;                /* tiles the program ran on */
	double seconds;                /* host writes to last DONE */
	uint64_t bytes_written;        /* kernel-config bytes the host wrote */
	unsigned tiles_uploaded;       /* tiles whose CB configs and kernel images were (re)written */
};
/* Slow dispatch (launch.md 11): for every tile of the program, write runtime args, semaphores,
 * (when changed) CB configs and kernel images, the launch message in HOST mode, then GO; waits
 * until every tile's go signal is DONE again. BH_ERR_TIMEOUT / BH_ERR_DEADLOCK (report naming the
 * stuck tiles and where their cores are in bh_program_error), BH_ERR_FAULT when a core faulted
 * (its fault report likewise), BH_ERR_ARG when the program does not fit (message). */
int bh_program_launch(struct bh_program *prog, const struct bh_launch_options *opt, struct bh_launch_stats *st);

/* Interleaved buffers as booted firmware sees them: over its first num_banks banks (a p100a
 * firmware knows 7 DRAM banks even on a P150). num_banks 0 = every bank (bh_interleaved_write). */
int bh_interleaved_write_banks(struct bh_device *dev, bool dram, unsigned num_banks, uint32_t base,
			       uint32_t page_size, uint32_t first_page, const void *src, size_t len);
int bh_interleaved_read_banks(struct bh_device *dev, bool dram, unsigned num_banks, uint32_t base,
			      uint32_t page_size, uint32_t first_page, void *dst, size_t len);
/* Bank counts the booted firmware copied (bh_boot_result.num_dram_banks / num_l1_banks), or
 * BH_ERR_ARG before a successful boot. */
int bh_device_boot_banks(const struct bh_device *dev, unsigned *num_dram, unsigned *num_l1);

/* ---------------------------------------------------------------------------------------------
 * Fast dispatch (host/cq*.c, cores/cq_*.c; reference/fast-dispatch.md): tt-metal's command queue.
 *
 * bh_cq_open turns the board's two fast-dispatch tiles (P150 (16,2)/(16,3), P100 (14,2)/(14,3);
 * on a test grid the last column of rows 0 and 1) into the prefetch and dispatch cores: native
 * models on their own threads, fed from an issue ring in host memory through prefetch_q, with a
 * completion ring back. Those two tiles are then no worker tiles: programs must not use them
 * (bh_device_worker_ranges lists the others). Calls on one queue are not thread-safe with each
 * other. Enqueue calls return once the commands are in the issue ring; errors of the device
 * (malformed command, faulting or stuck kernel) are reported by the next call that waits
 * (bh_cq_wait_event, bh_cq_finish, bh_cq_read_buffer) and stop the queue: every later call
 * returns the same error. */
struct bh_cq;

struct bh_cq_config {
	uint32_t issue_size;           /* issue-ring bytes, a multiple of 4096; 0 = 64 MiB */
	uint32_t completion_size;      /* completion-ring bytes, a multiple of 4096; 0 = 32 MiB */
	double timeout_s;              /* longest wait for the device; 0 = 10 s */
	/* The dispatcher's WORKER_MCAST_GRID: the NoC rectangle (x0 | y0 << 6 | x1 << 12 | y1 << 18, as
	 * WRITE_LINEAR's multicast noc_xy_addr) a SEND_GO_SIGNAL whose multicast_go_offset is not 0xFF
	 * writes the go word to, at go_messages[offset]. tt-metal compiles it into the dispatcher; the
	 * reference's value is unverified, so it is the host's to give. 0 = none: such a command is
	 * an error naming the field. */
	uint32_t go_mcast_grid;
};

/* Needs a booted device (bh_boot) whose board has fast-dispatch tiles and at most one queue.
 * Holds both tiles' cores in reset, sets up their L1 and the host-memory rings, starts the
 * models and resets every worker's launch-message ring through the queue (RESET_READ_PTR: each
 * worker answers on stream 48). BH_ERR_ARG (message in err) when that is not possible. */
int bh_cq_open(struct bh_device *dev, const struct bh_cq_config *cfg, struct bh_cq **out, char *err, size_t errlen);
/* Finishes what is queued (unless the queue stopped), terminates both models, boots the two
 * tiles' firmware again (they become worker tiles) and frees the queue. NULL is a no-op. */
void bh_cq_close(struct bh_cq *cq);
/* The report of the last failed call; "" if none. */
const char *bh_cq_error(const struct bh_cq *cq);

/* Enqueue one launch of a program (fast-dispatch.md 7): go-signal NoC data, go_message_index,
 * runtime args and semaphores, launch messages in DEV mode, CB configs and kernel images where
 * a tile does not hold them yet, then wait-and-clear stream 48, the go signal and the wait for
 * one completion per tile. Errors of the program itself: BH_ERR_ARG/BH_ERR_ELF with the message
 * in bh_program_error. st (may be NULL): tiles, bytes enqueued, tiles_uploaded. */
int bh_cq_launch(struct bh_cq *cq, struct bh_program *prog, struct bh_launch_stats *st);
/* Interleaved buffers through the queue (WRITE_PAGED; RELAY_PAGED into WRITE_LINEAR_H_HOST),
 * over the booted firmware's banks. page_size a multiple of 16, base 16-byte aligned (64 for
 * DRAM reads). Reading waits for the data. */
int bh_cq_write_buffer(struct bh_cq *cq, bool dram, uint32_t base, uint32_t page_size, uint32_t first_page,
		       const void *src, size_t len);
int bh_cq_read_buffer(struct bh_cq *cq, bool dram, uint32_t base, uint32_t page_size, uint32_t first_page,
		      void *dst, size_t len);
/* Events: ids count up from 1 in enqueue order; an event completes when the dispatcher reached
 * it (everything enqueued before it finished). */
int bh_cq_record_event(struct bh_cq *cq, uint32_t *event);
int bh_cq_wait_event(struct bh_cq *cq, uint32_t event);
/* Highest event id completed so far (0: none). */
uint32_t bh_cq_last_event(const struct bh_cq *cq);
/* Everything enqueued so far has completed. */
int bh_cq_finish(struct bh_cq *cq);

/* Raw access for tests and tools: one fetch record of prefetch commands (len a multiple of 16,
 * at most 256 KiB), or one dispatch command wrapped in RELAY_INLINE. */
int bh_cq_enqueue_record(struct bh_cq *cq, const void *rec, size_t len);
int bh_cq_enqueue_dispatch(struct bh_cq *cq, const void *cmd, size_t len);

struct bh_cq_state {
	unsigned prefetch_tile, dispatch_tile;   /* tile indices */
	unsigned workers;                        /* tiles launches may use */
	uint32_t issue_base, issue_size;         /* NoC-local issue ring */
	uint32_t completion_base, completion_size;
	uint32_t issue_wr;                       /* host's next write offset in the issue ring */
	uint32_t prefetch_q_idx;                 /* host's next prefetch_q slot */
	uint32_t completion_rd;                  /* host's read pointer as written back (16-B units | toggle << 31) */
	uint64_t records, bytes;                 /* fetch records and bytes enqueued */
	uint64_t prefetch_commands, dispatch_commands;   /* executed by the models */
	uint64_t dispatch_by_id[32];             /* dispatch commands executed, by command id */
};
int bh_cq_state(struct bh_cq *cq, struct bh_cq_state *st);

/* Every tile except the fast-dispatch tiles (all tiles when the board has none); returns how many
 * ranges (at most 4). */
unsigned bh_device_worker_ranges(const struct bh_device *dev, struct bh_core_range r[4]);

const char *bh_core_name(enum bh_core_id core);
/* Parses "brisc", "ncrisc", "trisc0".."trisc2"; returns -1 if unknown. */
int bh_core_parse(const char *name);

/* ---------------------------------------------------------------------------------------------
 * Detectors of synchronisation bugs (races.md): each check has a short name and one line of
 * description; bh_device_config.checks selects them, check_mode says whether a finding stops the
 * core or is logged. A finding names the check, tile, core, pc and symbol, the other party when
 * there is one, and why.
 */
enum bh_check {
	BH_CHECK_SEM_REINIT = 0,        /* sem-reinit */
	BH_CHECK_SEM_OVERFLOW,          /* sem-overflow */
	BH_CHECK_SEM_UNDERFLOW,         /* sem-underflow */
	BH_CHECK_MOPCFG_BUSY,           /* mopcfg-busy */
	BH_CHECK_LOST_TARGET,           /* lost-target */
	BH_CHECK_NOC_BUSY_REPROGRAM,    /* noc-busy-reprogram */
	BH_CHECK_NOC_SHARED_INITIATOR,  /* noc-shared-initiator */
	BH_CHECK_NOC_TRID_OVERFLOW,     /* noc-trid-overflow */
	BH_CHECK_NOC_INFLIGHT,          /* noc-inflight */
	BH_CHECK_NOC_INFLIGHT_LOAD,     /* noc-inflight-load (opt-in) */
	BH_CHECK_CODE_WRITTEN,          /* code-written */
	BH_CHECK_ATOMIC_INTO_CODE,      /* atomic-into-code */
	BH_CHECK_LDM_ZEROING,           /* ldm-zeroing */
	BH_CHECK_LAUNCH_SLOT_BUSY,      /* launch-slot-busy */
	BH_CHECK_CFG_HAZARD,            /* cfg-hazard */
	BH_CHECK_TTSYNC_LOAD,           /* ttsync-load */
	BH_CHECK_BRISC_PUSH,            /* brisc-push */
	BH_CHECK_POLL_NO_FENCE,         /* poll-no-fence */
	BH_CHECK_CB_POP_UNWAITED,       /* cb-pop-unwaited */
	BH_CHECK_CB_OWNERSHIP,          /* cb-ownership (opt-in) */
	BH_CHECK_NOC_MCAST_ORDER,       /* noc-mcast-order */
	BH_CHECK_CQ_RECORD_CHANGED,     /* cq-record-changed */
	BH_CHECK_CQ_SLOT_OVERWRITTEN,   /* cq-slot-overwritten */
	BH_CHECK_CQ_COMPLETION_RD,      /* cq-completion-rd */
	BH_CHECK_SFPU_ERRATUM,          /* sfpu-erratum */
	BH_CHECK_CB_RESET_WINDOW,       /* cb-reset-window */
	BH_CHECK_CB_PUBLISH_EARLY,      /* cb-publish-early */
	BH_CHECK_COUNT
};
#define BH_CHECK_BIT(c) (1u << (c))
#define BH_CHECKS_EXACT (1u << 31)
#define BH_CHECKS_ALL (BH_CHECK_BIT(BH_CHECK_COUNT) - 1u)
/* The costly checks, on only when asked for (they add work to a hot path): noc-inflight-load
 * (every L1 load of a core looks at its page: the cores run an interpreter that checks loads,
 * without the block compiler), code-written (every store into a page executed since an I-cache
 * invalidate goes to the slow path) and cb-ownership (every store into a CB's L1 pages does, and
 * loads are checked as for noc-inflight-load). */
#define BH_CHECKS_OPT_IN                                                                                      \
	(BH_CHECK_BIT(BH_CHECK_NOC_INFLIGHT_LOAD) | BH_CHECK_BIT(BH_CHECK_CODE_WRITTEN) |                    \
	 BH_CHECK_BIT(BH_CHECK_CB_OWNERSHIP))
/* The cheap checks (they run on slow paths only): every check that is not opt-in. */
#define BH_CHECKS_DEFAULT (BH_CHECKS_ALL & ~BH_CHECKS_OPT_IN)

/* "sem-reinit" -> BH_CHECK_SEM_REINIT; -1 if no check has that name. */
int bh_check_parse(const char *name);
/* A list of checks as --check takes it: comma-separated names, "all", "default", "none", and
 * "-NAME" (also "-all", "-default") to leave one out; a list that starts with a removal starts
 * from the default set, any other from none. On success *mask = BH_CHECKS_EXACT | the checks
 * (ready for bh_device_config.checks) and 0 is returned; else BH_ERR_ARG with err naming the
 * item that is wrong. bh_device_open reads the environment variable BHEMU_CHECKS this way when
 * the config's checks are 0, and BHEMU_CHECK_MODE (stop or log) when its check_mode is
 * BH_CHECK_STOP; a malformed one fails bh_device_open with BH_ERR_ARG naming the variable. */
int bh_check_list_parse(const char *list, uint32_t *mask, char *err, size_t errlen);
/* The check's name and its one-line description; NULL when check >= BH_CHECK_COUNT. */
const char *bh_check_name(enum bh_check check);
const char *bh_check_description(enum bh_check check);
/* The findings recorded so far (both modes: a stopping finding is recorded too), each as a report
 * like a fault's ("check sem-reinit: on tile 0 (1,2) core trisc0\n  pc ...\n  why: ...") ending in
 * a newline, into buf (may be NULL with len 0). Returns how many there are (also those that did not
 * fit or beyond the kept 1024), or BH_ERR_ARG. */
int bh_device_findings(struct bh_device *dev, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
