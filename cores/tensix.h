/* The Tensix coprocessor control plane of one tile (tensix.md): three Tensix threads, each fed by
 * its TRISC (or BRISC) through an instruction FIFO, drained by its own executor OS thread through
 * the MOP expander, the replay expander and the Wait Gate into the sync, scalar and configuration
 * units. Executor threads are created on the first push to a thread (a chip that never pushes
 * has none) and sleep on a condition variable while idle or held at the gate.
 *
 * Units complete an instruction before the next one of the thread reaches the gate (as in
 * ttsim): a thread has nothing "in a unit" when its gate looks, so the STALLWAIT conditions on
 * unit occupancy (C0-C4, C9-C12) hold at once; what really blocks is SEMWAIT, STREAMWAIT (on
 * stream registers), STALLWAIT C5-C8 and the units' own waits on SrcA/SrcB ownership (struct
 * tt_dp), ATGETM and a full FIFO. Idle tracking (sync/pcbuf.h tensix_busy/
 * mop_busy) counts an instruction from its push until it and everything it expanded into have
 * executed; that backs PCBuf +4/+8 and the BRISC PCBuf barrier.
 *
 * Locking: tx->lock guards the FIFOs, mutex ownership, reports' view (wait_what, cur) and the
 * pending faults; order is tile->lock, then tx->lock. Executor-private state has no lock. */
#ifndef BH_CORES_TENSIX_H
#define BH_CORES_TENSIX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cores/tensix_insns.h"
#include "fabric/check.h"
#include "fabric/fault.h"
#include "fabric/hw.h"
#include "fabric/lock.h"
#include "fabric/mmio.h"
#include "fabric/tile.h"
#include "sync/park.h"

struct bh_access;
struct bh_core;
struct bh_tile;

#define BH_TT_THREADS 3
#define BH_TT_FIFO_SLOTS 32
#define BH_TT_FIFO_ACCEPT 28        /* a push is accepted while the FIFO holds at most 28 */
/* A core stalled on a full FIFO is woken once the executor has taken it down to this many words,
 * or when the executor stops (parks) with room: the push takes as before, but the pusher sleeps
 * and wakes once per batch of words instead of once per word. Four: a batch of 25 words per wake
 * (16 gave 13 and, on the compute kernels' pipelines, a third more futex calls), and still some
 * words for the executor while the pusher gets back to work. */
#define BH_TT_FIFO_REFILL 4
#define BH_TT_GPRS 64
#define BH_TT_MOP_CFG_WORDS 9
#define BH_TT_REPLAY_SLOTS 32
#define BH_TT_THREAD_CFG 68         /* ThreadConfig entries (16-bit) per thread */
#define BH_TT_MUTEXES 5             /* indices 0, 2, 3, 4 exist; 1 does not */
#define BH_TT_CFG_WORDS BH_CFG_WORDS /* Config words per state (bank) */

/* ThreadConfig entries STREAMWAIT reads (Blackhole cfg_defines.h, THREAD section). */
#define TT_TCFG_STREAMWAIT_PHASE_HI 57u      /* STREAMWAIT_PHASE_HI_Val, 10 bits */
#define TT_TCFG_STREAMWAIT_NUM_MSGS_HI 58u   /* STREAMWAIT_NUM_MSGS_HI_Val, 7 bits */
#define TT_TCFG_STREAM_ID_SYNC 59u           /* STREAM_ID_SYNC_SEC0..3_BankSel at 59..62, 6 bits */

/* ---------------------------------------------------------------------------------------------
 * The opcode table (cores/tensix_insns.h) as data.
 */

enum tt_unit { TT_U_FRONT, TT_U_NOP, TT_U_SYNC, TT_U_WAIT, TT_U_MISC, TT_U_UNPACK, TT_U_PACK, TT_U_MOVER,
	       TT_U_SCALAR, TT_U_MATRIX, TT_U_CONFIG, TT_U_VECTOR };
enum tt_plane { TT_P_CTRL, TT_P_DATA };
enum tt_exec { TT_E_Y, TT_E_B, TT_E_N };

enum tt_opcode {
#define TT_X_OP(name, op, unit, plane, ex, layout, fields) TT_OP_##name = op,
#define TT_X_NOF(n, h, l)
	TT_INSNS(TT_X_OP, TT_X_NOF)
#undef TT_X_OP
#undef TT_X_NOF
};

struct tt_field {
	const char *name;
	uint8_t hi, lo;
};

struct tt_opinfo {
	const char *name;            /* NULL: no Blackhole instruction has this opcode */
	enum tt_unit unit;
	enum tt_plane plane;
	enum tt_exec exec;
	bool fields_known;
	uint32_t field_mask;         /* operand bits named by the fields */
	const struct tt_field *fields;
};

static inline unsigned tt_opcode_of(uint32_t w) { return w >> 24; }
/* The unit (BH_TT_OPEN_*, fabric/mmio.h) whose L1 pages word w touches, for cb-publish-early:
 * PACR the packer's, UNPACR its unpacker's (bit 23); 0 for any other word. */
static inline unsigned tt_open_unit(uint32_t w)
{
	return tt_opcode_of(w) == TT_OP_PACR ? BH_TT_OPEN_PACK
	       : tt_opcode_of(w) == TT_OP_UNPACR ? (w >> 23 & 1 ? BH_TT_OPEN_UNPACK1 : BH_TT_OPEN_UNPACK0) : 0;
}
static inline uint32_t tt_bits(uint32_t w, unsigned hi, unsigned lo)
{
	return (w >> lo) & (uint32_t)((2ull << (hi - lo)) - 1);
}
/* The opcode table (cores/tensix_decode.c): an instruction's entry, NULL for an opcode Blackhole
 * lacks. Inline: every word looks itself up a few times on its way. */
extern const struct tt_opinfo tt_ops[256];
static inline const struct tt_opinfo *tt_opinfo(unsigned opcode)
{
	return opcode < 256 && tt_ops[opcode].name ? &tt_ops[opcode] : NULL;
}
/* tt_decode_check's verdict on a word it rejects: false, with why filled. */
bool tt_decode_reject(uint32_t word, char *why, size_t n);
/* Whether the word is a Blackhole instruction with no reserved bit set; else why not (returns
 * false with why filled). */
static inline bool tt_decode_check(uint32_t word, char *why, size_t n)
{
	const struct tt_opinfo *oi = tt_opinfo(tt_opcode_of(word));
	if (oi && !(oi->fields_known && (word & 0xFFFFFFu & ~oi->field_mask)))
		return true;
	return tt_decode_reject(word, why, n);
}
/* Why an instruction with exec N is not executed, for its fault ("... is not modelled yet"). */
void tt_not_modelled_why(const struct tt_opinfo *oi, char *why, size_t n);
/* The instruction-type bits of tt_cfg_qstatus / tt_cfg_bstatus (Blackhole CSRs.md) that the
 * instruction sets while it is queued or executing. */
enum {
	TT_ST_REPLAY = 1u << 0,    /* REPLAY that plays (Exec set or Load clear) */
	TT_ST_MOP = 1u << 1,       /* MOP (not MOP_CFG) */
	TT_ST_SCALAR = 1u << 2,
	TT_ST_MOVER = 1u << 3,
	TT_ST_UNPACK = 1u << 4,
	TT_ST_PACK = 1u << 5,
	TT_ST_CONFIG = 1u << 6,
	TT_ST_SYNC = 1u << 7,
	TT_ST_B0 = 1u << 8,        /* misc, mover, scalar, packer or unpacker (block class B0) */
	TT_ST_VECTOR = 1u << 9,
	TT_ST_MATRIX = 1u << 10,
};
uint32_t tt_status_type_bits(uint32_t word);
/* "SEMINIT sem_sel=0x2 init_value=0x0 max_value=0x1" (or "opcode 0x00 (unknown) 0x..."). */
void tt_disasm(uint32_t word, char *buf, size_t n);

/* ---------------------------------------------------------------------------------------------
 * Expanders (tensix.md 3): pure functions, tested on their own.
 */

/* Receives each instruction an expander emits; returns false to abandon the expansion. */
typedef bool (*tt_emit_fn)(void *ctx, uint32_t word);
/* Expands MOP word `mop` with MopCfg[9] and the thread's MaskHi (from MOP_CFG), in order,
 * including the template-1 OuterCount quirk. Returns false if emit abandoned it. */
bool tt_mop_expand(const uint32_t cfg[BH_TT_MOP_CFG_WORDS], uint32_t mop, uint32_t mask_hi, tt_emit_fn emit,
		   void *ctx);

/* ---------------------------------------------------------------------------------------------
 * State.
 */

/* One FIFO word and who pushed it, from where (for fault reports). */
struct tt_entry {
	uint32_t word;
	uint32_t pc;              /* pc of the pushing store or .ttinsn */
	uint8_t pusher;           /* enum bh_core_kind */
	bool after_mop;           /* BRISC's pushes enter after the MOP expander */
	/* Words of it (after the expanders) that already executed: a TRISC executing it deferred
	 * handed the rest to the executor at a word that would have waited (cores/tensix.c). */
	uint32_t resume;
};

#define TT_STAGE_GATE (1ull << 32)   /* struct bh_tt_thread.stage */
#define TT_STAGE_UNIT (1ull << 33)

/* The Wait Gate's latched wait (sync.md 8, STREAMWAIT.md), executor-private. */
enum tt_wait_kind { TT_WAIT_STALL, TT_WAIT_SEM, TT_WAIT_STREAM };
struct tt_latch {
	bool active;
	uint8_t kind;             /* enum tt_wait_kind */
	uint32_t block;           /* block mask B0..B8 */
	uint32_t cond;            /* STALLWAIT condition mask; SEMWAIT cond (1 zero, 2 max);
				   * STREAMWAIT condition index (0 phase, 1 messages received) */
	uint32_t sem_mask;
	uint32_t stream_select;   /* STREAMWAIT: ThreadConfig STREAM_ID_SYNC_SEC slot */
	uint32_t target;          /* STREAMWAIT: TargetValue */
	uint32_t word;
};

/* The data plane's register files and the units' counters (SrcASrcB.md, Dst.md, RWCs.md,
 * ADCs.md; cores/tensix_data.c). SrcA/SrcB bank ownership (AllowedClient) and the bank each
 * client works on are what STALLWAIT C5-C8 and the units' own waits read: changed under
 * tx->lock (and every parked executor woken after), read with acquire so that the cells the
 * previous owner wrote are visible. Cells are relaxed atomics: the units of different threads
 * run on different OS threads, and a kernel that skips a wait races on them as on silicon
 * (wrong data, never undefined behaviour of the emulator). */
enum tt_src_client { TT_SRC_MATRIX_UNIT, TT_SRC_UNPACKERS };
#define TT_SRC_ROWS 64
/* ImpliedSrcAFmt/ImpliedSrcBFmt after SETDVALID, which leaves them unpredictable on Blackhole
 * (SETDVALID.md): a matrix-unit instruction that would read it faults. */
#define TT_IMPLIED_UNPREDICTABLE 0x10u
#define TT_DST_ROWS 1024
struct tt_sfpu;
struct tt_dp {
	struct tt_sfpu *sfpu;                             /* the vector unit (cores/tensix_sfpu.c) */
	_Atomic uint8_t srca_client[2], srcb_client[2];   /* enum tt_src_client, per bank */
	_Atomic uint8_t unpacker_bank[2];                 /* Unpackers[0].SrcBank (SrcA), [1] (SrcB) */
	_Atomic uint8_t matrix_srca_bank, matrix_srcb_bank;
	/* Blackhole's ImpliedSrcAFmt/ImpliedSrcBFmt per bank: the data format a bank was handed to the
	 * matrix unit in (UNPACR_NOP's SETDVALID form, UNPACR's FlipSrc), TT_IMPLIED_UNPREDICTABLE
	 * (SETDVALID) or 0 (reset, CLEARDVALID's Reset). Written under tx->lock, relaxed, before the
	 * hand-over's release store of the bank's client; read relaxed by the matrix unit after its
	 * acquire of that client (or, MOVD2A/MOVD2B, without waiting for the bank, as on silicon). */
	_Atomic uint8_t implied_srca[2], implied_srcb[2];
	_Atomic uint8_t src_waiters;                      /* bit t: thread t waits on ownership */
	_Atomic uint8_t src_wait_mask[BH_TT_THREADS];     /* ... for these conditions (tt_dp_wait_src's mask) */
	_Atomic int16_t src_wait_blocker[BH_TT_THREADS];  /* ... held by this one when it parked (src_blocker) */
	_Atomic uint32_t srca[2][TT_SRC_ROWS][16], srcb[2][TT_SRC_ROWS][16];   /* 19-bit cells */
	_Atomic uint16_t dst[TT_DST_ROWS][16];            /* DstBits */
	_Atomic uint16_t dst_undef[TT_DST_ROWS];          /* ZEROACC's Undefined: bit c for column c */
	/* Bit r % 64 of word r / 64: row r may hold a defined element (set as its dst_undef leaves
	 * 0xFFFF, cleared by ZEROACC), so that ZEROACC visits only the rows written since. */
	_Atomic uint64_t dst_dirty[TT_DST_ROWS / 64];
	/* One instruction at a time per unit, whichever thread issued it. */
	struct bh_lock fpu_lock, unpack_lock, pack_lock;   /* fabric/lock.h */
	/* Unpackers[u].SrcRow[thread]: each only by its thread's instructions. */
	uint8_t unpacker_src_row[2][BH_TT_THREADS];
	/* ADCs[thread].Unpackers[0..1] and .Packers (index 2), Channel[0..1], X Y Z W and their _Cr
	 * copies: under adc_lock (any thread's may be named by the units and the ADC instructions). */
	struct bh_lock adc_lock;   /* fabric/lock.h: two short sections per UNPACR/PACR */
	uint32_t adc[BH_TT_THREADS][3][2][4], adc_cr[BH_TT_THREADS][3][2][4];
	/* Under pack_lock: Blackhole's one packer (PACR.md): its output streams
	 * (Packers/OutputAddressGenerator.md), byte addresses, and whether the next PACR starts fresh
	 * ones; the tile position of edge masking (Y, 8 bits, advanced per enabled Dst read interface,
	 * and Z, the xy plane), restarting with fresh streams. */
	struct tt_pack_stream {
		uint32_t data, exp;
		bool fresh;
		unsigned tpg_y, tpg_z;
	} pack;
};

/* RWCs[thread] (RWCs.md): each thread's own, executor-private. */
struct tt_rwc {
	uint16_t dst, dst_cr;
	uint8_t srca, srca_cr, srcb, srcb_cr;
	uint8_t fidelity;
};

/* Where an instruction entering the replay expander or the gate came from, for its faults. */
enum tt_origin { TT_FROM_PUSH, TT_FROM_MOP, TT_FROM_REPLAY };

struct bh_tensix;

/* What a parked executor waits for: the values its last check saw, formatted only when a report,
 * a deadlock verdict or the timeline trace asks (tt_wait_text), not at every park. */
enum tt_wait_desc_kind { TT_WD_NONE, TT_WD_TEXT, TT_WD_SEM, TT_WD_STREAM, TT_WD_SRC };
struct tt_wait_desc {
	uint8_t kind;         /* enum tt_wait_desc_kind */
	int blocker;          /* SEM: bh_sem_wait_blocker; SRC: the ownership condition (tensix_data.c) */
	uint32_t cond;        /* SEM, STREAM: the latch's condition */
	uint32_t stream, value, target;   /* STREAM */
	const char *who;      /* SRC: the waiting instruction's name, NULL: STALLWAIT */
};

struct bh_tt_thread {
	struct bh_tensix *tx;
	unsigned id;
	pthread_t thread;
	struct bh_fiber *fiber;   /* instead of thread, in a tile whose actors are fibers */
	bool started;             /* under tx->lock */
	/* The executor parks here (sync/park.h): idle, held at the gate, faulted. park_state is
	 * BH_PARK_IDLE while it has no work (or stopped by a fault), BH_PARK_GATE at the gate,
	 * BH_PARK_NONE while it runs; progress moves per instruction and wake. */
	struct bh_waiter waiter;

	/* Under tx->lock. */
	struct tt_entry fifo[BH_TT_FIFO_SLOTS];
	unsigned head, count;
	_Atomic uint32_t epoch;   /* bumped (under lock) when T_i enters reset or at shutdown: in-flight
				   * work is abandoned; the executor compares it with run_epoch */
	bool faulted;             /* stopped by a fault until T_i enters reset; set with tile->lock held
				   * too, together with the pushing core's fault (tt_deliver_fault) */
	bool in_flight;           /* cur is being processed (by the executor or, deferred, the TRISC) */
	/* Deferred execution (bh_chip.tensix_deferred): the pushers (the TRISC, BRISC) execute
	 * the FIFO themselves while the executor sleeps; false while the executor owns the FIFO (a
	 * word a pusher could not execute), until the executor has emptied it. */
	bool deferred;
	struct tt_entry cur;      /* FIFO word being processed (for reports and faults) */
	uint32_t cur_word;        /* instruction at the gate or executing (after expansion) */
	char wait_what[192];      /* what the parked executor waits for, when wait_desc.kind is TT_WD_TEXT */
	struct tt_wait_desc wait_desc;   /* ... kept as what its last check saw (tt_wait_text) */
	uint8_t wait_sems;        /* semaphores (bit k) whose change may release the parked executor (under tx->lock) */
	uint8_t wait_sem_cond;    /* ... its SEMWAIT condition and what held it when it parked (bh_sem_wait_blocker: */
	int wait_sem_blocker;     /* a change that leaves that as it is does not wake it), under tx->lock */
	struct bh_fault fault;    /* the thread's fault, valid while faulted */
	struct bh_waitq push_waiters;   /* cores stalled on the full FIFO */

	/* Where the instruction after the expanders is, for tt_cfg_qstatus/bstatus: the word in bits
	 * 31:0 with TT_STAGE_GATE (held at or passing the Wait Gate) or TT_STAGE_UNIT (executing);
	 * 0 between instructions. `replaying`: a REPLAY is emitting. Written relaxed by the
	 * executor, read by CSR reads under tx->lock (a live snapshot, like the hardware's). */
	_Atomic uint64_t stage;
	_Atomic bool replaying;
	/* The semaphores (bit k) of the thread's latched SEMWAIT and its word, 0 when none: written
	 * relaxed by the executor (and cleared by T_i's reset), read by other threads' SEMINIT for
	 * sem-reinit (fabric/check.h). */
	_Atomic uint32_t latched_sems, latched_word;

	/* Statistics (bh_device_tensix_stats): words executed by the TRISC and by the executor,
	 * hand-overs from the TRISC to the executor. Relaxed. */
	_Atomic uint64_t by_trisc, by_executor, handovers;

	/* Executor-private (of whichever thread holds in_flight). */
	unsigned run_epoch;       /* epoch of the FIFO word being processed */
	bool on_trisc;            /* a pusher's thread executes cur: a wait gives it back (tt_wait_locked) */
	bool gave_back;           /* ... and one did */
	uint32_t done, skip;      /* words of cur executed so far; of those, still to pass over (resume) */
	unsigned tt_open;         /* units (BH_TT_OPEN_*) with a PACR/UNPACR that no STALLWAIT holding
				   * the scalar unit has waited for since (cb-publish-early) */
	uint32_t mask_hi;
	uint32_t replay[BH_TT_REPLAY_SLOTS];
	uint32_t replay_recorded; /* bit k: slot k holds a recorded instruction (the rest never did) */
	uint8_t origin;           /* enum tt_origin of the instruction being processed (for faults) */
	uint8_t origin_slot;      /* its replay slot, with TT_FROM_REPLAY */
	unsigned rec_left, rec_pos;
	bool rec_exec;
	struct tt_latch latch;
	int sem_blocker;          /* bh_sem_wait_blocker at the latch's last check (sem_wait_holds) */
	/* cfg-hazard (races.md #14): the WRCFG just before the instruction at the gate (word 0:
	 * none) and the GPRs (bit g) whose RDCFG result has not arrived by the model's rule (no
	 * STALLWAIT with C12 since), with the instruction that last left each kind of hazard. */
	struct tt_hazard {
		uint32_t word;            /* the WRCFG or RDCFG */
		uint32_t pc;              /* its push */
		uint8_t pusher;
		uint8_t bank;
	} hz_wrcfg, hz_rdcfg;
	uint64_t hz_rdcfg_gprs;
	struct tt_rwc rwc;

	/* Shared with RISC-V MMIO and the other threads (relaxed: units are in order per thread;
	 * the RISC-V side orders with STALLWAIT / TTSync as firmware does). */
	_Atomic uint32_t gpr[BH_TT_GPRS];
	_Atomic uint32_t mop_cfg[BH_TT_MOP_CFG_WORDS];
	_Atomic uint32_t thread_cfg[BH_TT_THREAD_CFG];
};

struct bh_tensix {
	struct bh_tile *tile;
	struct bh_lock lock;   /* fabric/lock.h: a few short sections per word */
	bool shutdown;                        /* under lock */
	struct tt_dp *dp;                     /* data plane (allocated at init) */
	int8_t mutex_owner[BH_TT_MUTEXES];    /* -1 free, else thread; under lock */
	uint8_t mutex_waiting[BH_TT_MUTEXES]; /* bit t: thread t waits in ATGETM; under lock */
	struct bh_fault pending[BH_CORES_PER_TILE];   /* fault to hand to core k (under lock) */
	struct bh_tt_thread th[BH_TT_THREADS];
};

/* tx: zeroed memory. */
void bh_tensix_init(struct bh_tensix *tx, struct bh_tile *tile);
/* Stops and joins the executor threads. */
void bh_tensix_destroy(struct bh_tensix *tx);
/* SOFT_RESET_0 edge of core k (under tile->lock). T_i entering reset empties thread i's FIFO,
 * abandons its expansion and wait, clears its fault; any core entering reset drops a Tensix
 * fault not yet handed to it. */
void bh_tensix_reset_edge(struct bh_tile *tile, enum bh_core_kind k, bool entering);
/* Called when the core stops, by rv32_run and again by the core's thread under tile->lock (which
 * closes the race with an exit): true (core->fault filled) if a Tensix instruction it pushed
 * faulted while it ran. */
/* A fault that another unit found for core `who` after the core moved on (a NoC destination
 * refused a request of the asynchronous NoC): the running core stops with it at its next event
 * check, as with a Tensix fault; one that exited or hit its limit becomes FAULTED. */
void bh_core_async_fault(struct bh_tile *t, unsigned who, const struct bh_fault *f);
bool bh_tensix_take_fault(struct bh_core *core);
/* Deferred execution (bh_chip.tensix_deferred): the pushing core's own thread executes the
 * words waiting in a Tensix thread's FIFO it pushed into while the executor was idle (a TRISC:
 * its own thread; BRISC: any of the three), in order; a word it cannot execute (or one that
 * would wait) and everything after it go to the executor. Called with no lock held: after the
 * core's device accesses, before it parks, at the end of a quantum and when it stops (rv32_run).
 * True when it executed any. */
bool bh_tensix_drain(struct bh_core *core);
/* TT_ST_* bits of the instructions that TRISC `thread` pushed and that are still queued in
 * Tensix thread `thread`'s frontend (FIFO, expanders, Wait Gate), plus with `backend` those
 * executing in a unit: tt_cfg_qstatus / tt_cfg_bstatus (Blackhole CSRs.md). BRISC's pushes do
 * not count (the CSRs count what RISCV T_i pushed). Live. */
uint32_t bh_tensix_status_types(struct bh_tile *tile, unsigned thread, bool backend);
/* INSTRN_BUF_STATUS (tile control 0x0A8, tensix.md 2): bit i "thread i's FIFO is not full" (a
 * push would be accepted: it holds at most BH_TT_FIFO_ACCEPT), bit 4 + i "thread i's FIFO is
 * empty"; other bits 0. The model's one FIFO per thread is the one before the replay expander. */
uint32_t bh_tensix_instrn_buf_status(struct bh_tile *tile);
/* Report lines of the tile's busy, parked or faulted Tensix threads ("  tile ..." lines). */
void bh_tensix_report(struct bh_tile *tile, void (*put)(void *o, const char *line), void *o);

/* Executor internals shared by cores/tensix.c and cores/tensix_exec.c. */
enum tt_result { TT_OK, TT_FAULT, TT_ABORT };
/* Pass one instruction (after the MOP expander) through the replay expander and the gate. */
enum tt_result tt_replay_in(struct bh_tt_thread *th, uint32_t word);
/* Fill th->fault for the instruction at the gate (cold); returns TT_FAULT. */
__attribute__((format(printf, 4, 5)))
enum tt_result tt_fault(struct bh_tt_thread *th, enum bh_fault_kind kind, uint32_t word, const char *fmt, ...);
/* A finding of check id (fabric/check.h) on the instruction at the gate, blamed on the core that
 * pushed it, like a fault: TT_FAULT in stop mode (th->fault filled), TT_OK when logged. The
 * caller has checked that the check is on. */
__attribute__((cold, format(printf, 5, 6)))
enum tt_result tt_check(struct bh_tt_thread *th, enum bh_check id, uint32_t word, const char *other, const char *fmt,
			...);
/* Publish the latched wait's semaphores (latched_sems) after the latch changed. */
void tt_publish_latch(struct bh_tt_thread *th);
/* True when the executor must drop what it is doing (reset of T_i, shutdown). */
bool tt_abandoned(struct bh_tt_thread *th);
/* Park the executor until woken (tx->lock held); what = text for reports, or NULL when the
 * caller's check filled th->wait_desc (unread, and may be unset, when a TRISC runs the word: it
 * gives the word back instead). */
void tt_wait_locked(struct bh_tt_thread *th, const char *what);
/* What the parked executor waits for, as reports and the timeline trace say it ("" when not
 * parked at a wait); tx->lock held. */
void tt_wait_text(const struct bh_tt_thread *th, char *buf, size_t n);

/* Data plane (cores/tensix_data.c). */
bool tt_dp_init(struct bh_tensix *tx);
void tt_dp_destroy(struct bh_tensix *tx);
/* Execute a data-plane instruction (exec Y) of th. */
enum tt_result tt_dp_execute(struct bh_tt_thread *th, const struct tt_opinfo *oi, uint32_t w);
/* STALLWAIT C5-C8: does one of the selected Src ownership conditions still hold? describe: keep
 * which in th->wait_desc. */
bool tt_dp_stall_holds(struct bh_tt_thread *th, uint32_t cond, bool describe);
/* The text of a TT_WD_SRC description (tt_wait_text). */
void tt_dp_src_text(const struct tt_wait_desc *d, char *buf, size_t n);
#define TT_DP_STALL_SRC_CONDS 0x1E0u
/* th waits (on) or no longer waits (off) on SrcA/SrcB ownership conditions `mask` (tt_dp_wait_src's
 * bits; tx->lock held): ownership changes wake only such waiters, and only once none of their
 * conditions holds. */
void tt_dp_src_waiter(struct bh_tt_thread *th, bool on, unsigned mask);

/* ---------------------------------------------------------------------------------------------
 * Tensix backend configuration (cores/tensix_cfg.c), stored in the tile (fabric/tile.h).
 */

/* Configuration writes from any path (MMIO, WRCFG, RMWCIB), with their side effects (index 185
 * invalidates I-caches). rmw: the bits in mask take val's. */
void bh_tensix_cfg_store(struct bh_tile *tile, unsigned bank, unsigned idx, uint32_t val);
void bh_tensix_cfg_rmw(struct bh_tile *tile, unsigned bank, unsigned idx, uint32_t mask, uint32_t val);
/* The cell of Config[bank][idx]: a global word has one cell for both banks. */
static inline _Atomic uint32_t *bh_tensix_cfg_cell(struct bh_tile *tile, unsigned bank, unsigned idx)
{
	return &tile->tensix_cfg[idx >= BH_CFG_GLOBAL_BASE ? 0 : bank][idx];
}
/* Replace *old with val if the word still holds *old (side effects on success); else *old gets
 * the current value. For read-modify-writes that are not a mask (CFGSHIFTMASK). */
bool bh_tensix_cfg_cmpxchg(struct bh_tile *tile, unsigned bank, unsigned idx, uint32_t *old, uint32_t val);

/* The coprocessor's register windows. State: the tile's struct bh_tensix (GPRs, MOP config,
 * instruction push) or the tile itself (configuration). */
bool bh_tensix_cfg_read(struct bh_access *a, uint32_t *val);
bool bh_tensix_cfg_write(struct bh_access *a, uint32_t val);
bool bh_tensix_gpr_read(struct bh_access *a, uint32_t *val);
bool bh_tensix_gpr_write(struct bh_access *a, uint32_t val);
bool bh_tensix_mop_cfg_write(struct bh_access *a, uint32_t val);
bool bh_tensix_push_write(struct bh_access *a, uint32_t val);
/* The RISC-V window onto Dst (0xFFBD8000), in the view RISC_DEST_ACCESS_CTRL chooses. */
bool bh_tensix_dst_read(struct bh_access *a, uint32_t *val);
bool bh_tensix_dst_write(struct bh_access *a, uint32_t val);

#endif
