/* A fault record: what a firmware author needs to act on a bad access or instruction. Filled by
 * the device or core that detected it; the host adds tile, core and symbols when reporting. */
#ifndef BH_FABRIC_FAULT_H
#define BH_FABRIC_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum bh_fault_kind {
	BH_FAULT_NONE = 0,
	BH_FAULT_ILLEGAL_INSN,     /* undecodable, or not implemented by Blackhole (LR/SC, fence.i, ...) */
	BH_FAULT_UNMAPPED,         /* address decodes to nothing */
	BH_FAULT_MISALIGNED,       /* data access or jump target not naturally aligned */
	BH_FAULT_ACCESS,           /* mapped, but not this way: no rights, read-only, wrong width */
	BH_FAULT_FETCH,            /* pc outside L1 */
	BH_FAULT_NOT_MODELLED,     /* documented hardware that bhemu does not model yet */
	BH_FAULT_CSR,              /* unknown CSR or write to a read-only CSR */
	BH_FAULT_ECALL,            /* ecall that is not a supported host call */
	BH_FAULT_EBREAK,
	BH_FAULT_BAD_VALUE,        /* a register written with a value the hardware does not allow */
	BH_FAULT_PROTOCOL,         /* a legal access that breaks a firmware protocol (CB counters) */
	BH_FAULT_CHECK,            /* a detector found a synchronisation bug (fabric/check.h) */
};

struct bh_fault {
	enum bh_fault_kind kind;
	uint32_t pc;
	uint32_t insn;
	bool has_addr;
	bool is_store;
	unsigned size;       /* access width in bytes, 0 if not a data access */
	uint32_t addr;
	char region[96];     /* region or register the address falls in */
	char detail[512];    /* what was wrong and what was expected (a Tensix fault quotes its cause) */
	/* BH_FAULT_CHECK: which check (enum bh_check), and the other party of the race when there
	 * is one (another core, a Tensix thread, a NoC transaction), else "". */
	uint8_t check;
	char other[256];
};

/* An empty fault, as all-zero bytes would read, without writing its ~600 bytes of text: for
 * the hot paths that hand a fault to an access only in case it fails. */
static inline void bh_fault_clear(struct bh_fault *f)
{
	f->kind = BH_FAULT_NONE;
	f->pc = f->insn = f->addr = 0;
	f->has_addr = f->is_store = false;
	f->size = 0;
	f->check = 0;
	f->region[0] = f->detail[0] = f->other[0] = 0;
}

/* A message into err (errlen bytes; nothing when err is NULL). Returns false so that a decoder
 * can `return bh_errf(...)`. */
__attribute__((cold, format(printf, 3, 4)))
bool bh_errf(char *err, size_t errlen, const char *fmt, ...);

/* Fill f (kind, address, region name, message). Returns false so that a device handler can
 * `return bh_fault_fill(...)`. region may be NULL. */
__attribute__((cold, format(printf, 5, 6)))
bool bh_fault_fill(struct bh_fault *f, enum bh_fault_kind kind, uint32_t addr, const char *region,
		   const char *fmt, ...);
const char *bh_fault_kind_name(enum bh_fault_kind kind);

#endif
