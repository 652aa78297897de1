/* CSRs of the baby RISC-V cores (riscv-cores.md section 3). One table: number, name, access,
 * and where the value lives. Unknown CSRs and writes to read-only ones fault. */
#include <stdio.h>

#include "cores/core.h"
#include "cores/tensix.h"
#include "fabric/wallclock.h"

enum csr_kind { CSR_CFG0, CSR_PMACFG, CSR_SCRATCH, CSR_CONST, CSR_CYCLE, CSR_INSTRET, CSR_QSTATUS,
		CSR_SSTATUS, CSR_INTP_PC };

struct csr_def {
	uint16_t num;
	uint8_t kind;
	uint8_t ro;        /* writes fault */
	uint8_t high;      /* upper half of a 64-bit counter */
	uint8_t index;     /* element of an array CSR */
	uint32_t value;    /* CSR_CONST */
	const char *name;
};

static const struct csr_def csr_defs[] = {
	{ 0x7C0, CSR_CFG0, 0, 0, 0, 0, "cfg0" },
	{ 0x7C1, CSR_PMACFG, 0, 0, 0, 0, "pmacfg0" },
	{ 0x7C2, CSR_PMACFG, 0, 0, 1, 0, "pmacfg1" },
	{ 0x7C3, CSR_SCRATCH, 0, 0, 0, 0, "scratch0" },
	{ 0x7C4, CSR_SCRATCH, 0, 0, 1, 0, "scratch1" },
	{ 0x7C5, CSR_SCRATCH, 0, 0, 2, 0, "scratch2" },
	{ 0x7C6, CSR_SCRATCH, 0, 0, 3, 0, "scratch3" },
	{ 0x300, CSR_CONST, 1, 0, 0, 0x80006600, "mstatus" },
	{ 0x301, CSR_CONST, 1, 0, 0, 0x40201123, "misa" },
	{ 0xF14, CSR_CONST, 1, 0, 0, 0, "mhartid" },
	/* Counters; the user-level names are read/write aliases on this hardware (non-conformant). */
	{ 0xB00, CSR_CYCLE, 0, 0, 0, 0, "mcycle" },
	{ 0xB80, CSR_CYCLE, 0, 1, 0, 0, "mcycleh" },
	{ 0xB02, CSR_INSTRET, 0, 0, 0, 0, "minstret" },
	{ 0xB82, CSR_INSTRET, 0, 1, 0, 0, "minstreth" },
	{ 0xC00, CSR_CYCLE, 0, 0, 0, 0, "cycle" },
	{ 0xC80, CSR_CYCLE, 0, 1, 0, 0, "cycleh" },
	{ 0xC02, CSR_INSTRET, 0, 0, 0, 0, "instret" },
	{ 0xC82, CSR_INSTRET, 0, 1, 0, 0, "instreth" },
	/* Tensix queue / backend status: live (csr_qstatus_read). */
	{ 0xBC0, CSR_QSTATUS, 1, 0, 0, 0, "tt_cfg_qstatus" },
	{ 0xBC1, CSR_QSTATUS, 1, 0, 1, 0, "tt_cfg_bstatus" },
	{ 0xBC2, CSR_SSTATUS, 0, 0, 0, 0, "tt_cfg_sstatus0" },
	{ 0xBC3, CSR_SSTATUS, 0, 0, 1, 0, "tt_cfg_sstatus1" },
	{ 0xBC4, CSR_SSTATUS, 0, 0, 2, 0, "tt_cfg_sstatus2" },
	{ 0xBC5, CSR_SSTATUS, 0, 0, 3, 0, "tt_cfg_sstatus3" },
	{ 0xBC6, CSR_SSTATUS, 0, 0, 4, 0, "tt_cfg_sstatus4" },
	{ 0xBC7, CSR_SSTATUS, 0, 0, 5, 0, "tt_cfg_sstatus5" },
	{ 0xBC8, CSR_SSTATUS, 0, 0, 6, 0, "tt_cfg_sstatus6" },
	{ 0xBC9, CSR_SSTATUS, 0, 0, 7, 0, "tt_cfg_sstatus7" },
	{ 0xBCA, CSR_INTP_PC, 0, 0, 0, 0, "intp_restore_pc" },
};

static const struct csr_def *csr_find(uint32_t num)
{
	for (size_t k = 0; k < sizeof csr_defs / sizeof csr_defs[0]; k++)
		if (csr_defs[k].num == num)
			return &csr_defs[k];
	return NULL;
}

static bool csr_unknown(struct bh_core *c, uint32_t num, bool write)
{
	return bh_fault_set(c, BH_FAULT_CSR, 0, NULL, "%s of unknown CSR 0x%03x (Blackhole implements cfg0 0x7C0, "
			    "pmacfg/scratch 0x7C1-0x7C6, mstatus, misa, mhartid, the counters and 0xBC0-0xBCA)",
			    write ? "write" : "read", num);
}

static bool csr_sstatus_check(struct bh_core *c, const struct csr_def *d)
{
	if (c->kind == BH_BRISC || c->kind == BH_NCRISC)
		return true;
	return bh_fault_set(c, BH_FAULT_NOT_MODELLED, 0, NULL,
			    "%s on a TRISC reports Tensix stream status, which is not modelled yet", d->name);
}

#define CFG0_DIS_TT_STATUS_REG (1u << 29)   /* freezes the tt_cfg_*status* CSRs */

/* tt_cfg_qstatus / tt_cfg_bstatus (Blackhole CSRs.md): 11-bit masks of instruction types
 * (TT_ST_*) pushed by RISCV T_i and still in Tensix thread i's frontend (bstatus: or executing
 * in a unit). A TRISC sees its own thread's mask at bits 10:0; B and NC see the OR there too.
 * The OR over the threads follows at 23:13 (qstatus) or 21:11 (bstatus). qstatus bits 11 and
 * 24 (sfpu_cc: some Vector Unit lane enabled) read 0: lane enables are data-plane state that
 * bhemu does not keep. */
static bool csr_qstatus_read(struct bh_core *c, const struct csr_def *d, uint32_t *val)
{
	if (c->cfg0 & CFG0_DIS_TT_STATUS_REG)
		return bh_fault_set(c, BH_FAULT_NOT_MODELLED, 0, NULL,
				    "%s read with cfg0.DisTTStatusReg (bit 29) set: the frozen status value is not modelled",
				    d->name);
	bool backend = d->index == 1;
	uint32_t m[BH_TT_THREADS], any = 0;
	for (unsigned i = 0; i < BH_TT_THREADS; i++)
		any |= m[i] = bh_tensix_status_types(c->tile, i, backend);
	uint32_t own = c->kind >= BH_TRISC0 ? m[c->kind - BH_TRISC0] : any;
	*val = own | any << (backend ? 11 : 13);
	return true;
}

bool rv32_csr_read(struct bh_core *c, uint32_t num, uint32_t *val)
{
	const struct csr_def *d = csr_find(num);
	uint64_t v64;
	if (!d)
		return csr_unknown(c, num, false);
	switch (d->kind) {
	case CSR_CFG0: *val = c->cfg0; return true;
	case CSR_PMACFG: *val = c->pmacfg[d->index]; return true;
	case CSR_SCRATCH: *val = c->csr_scratch[d->index]; return true;
	case CSR_CONST: *val = d->value; return true;
	case CSR_QSTATUS: return csr_qstatus_read(c, d, val);
	case CSR_INTP_PC: *val = c->intp_restore_pc; return true;
	case CSR_SSTATUS:
		if (!csr_sstatus_check(c, d))
			return false;
		*val = c->sstatus[d->index];
		return true;
	case CSR_CYCLE: v64 = bh_wallclock_ticks() + c->cycle_offset; break;
	default: v64 = c->instret + c->instret_offset; break;
	}
	*val = d->high ? (uint32_t)(v64 >> 32) : (uint32_t)v64;
	return true;
}

bool rv32_csr_write(struct bh_core *c, uint32_t num, uint32_t val)
{
	const struct csr_def *d = csr_find(num);
	if (!d)
		return csr_unknown(c, num, true);
	if (d->ro)
		return bh_fault_set(c, BH_FAULT_CSR, 0, NULL, "write of 0x%08x to read-only CSR %s (0x%03x)", val,
				    d->name, num);
	switch (d->kind) {
	case CSR_CFG0:
		c->cfg0 = val;
		if (c->l0_model)
			bh_l0_flush(c);   /* the cache turned on or off: it starts empty */
		return true;
	case CSR_PMACFG: c->pmacfg[d->index] = val; return true;
	case CSR_SCRATCH: c->csr_scratch[d->index] = val; return true;
	case CSR_INTP_PC: c->intp_restore_pc = val; return true;
	case CSR_SSTATUS:
		if (!csr_sstatus_check(c, d))
			return false;
		c->sstatus[d->index] = val;
		return true;
	default: break;
	}
	/* Counter writes set one half of the 64-bit value; keep it as an offset from the source. */
	uint64_t base = d->kind == CSR_CYCLE ? bh_wallclock_ticks() : c->instret;
	uint64_t *off = d->kind == CSR_CYCLE ? &c->cycle_offset : &c->instret_offset;
	uint64_t cur = base + *off;
	uint64_t nv = d->high ? (cur & 0xffffffffull) | (uint64_t)val << 32 : (cur & ~0xffffffffull) | val;
	/* The write replaces the writing instruction's own increment, and c->instret does not count
	 * that instruction yet: the next instruction must read nv (RISC-V Zicsr). */
	*off = nv - (d->kind == CSR_INSTRET ? base + 1 : base);
	return true;
}
