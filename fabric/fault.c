#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fabric/fault.h"

bool bh_fault_fill(struct bh_fault *f, enum bh_fault_kind kind, uint32_t addr, const char *region,
		   const char *fmt, ...)
{
	va_list ap;
	f->kind = kind;
	f->addr = addr;
	f->has_addr = false;   /* set by the caller when this was a data access or a jump */
	f->is_store = false;
	f->size = 0;
	f->check = 0;
	f->other[0] = 0;
	snprintf(f->region, sizeof f->region, "%s", region ? region : "");
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof f->detail, fmt, ap);
	va_end(ap);
	return false;
}

bool bh_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

const char *bh_fault_kind_name(enum bh_fault_kind kind)
{
	static const char *const names[] = {
		[BH_FAULT_NONE] = "no fault",
		[BH_FAULT_ILLEGAL_INSN] = "illegal instruction",
		[BH_FAULT_UNMAPPED] = "unmapped address",
		[BH_FAULT_MISALIGNED] = "misaligned access",
		[BH_FAULT_ACCESS] = "access not allowed",
		[BH_FAULT_FETCH] = "instruction fetch outside L1",
		[BH_FAULT_NOT_MODELLED] = "not modelled",
		[BH_FAULT_CSR] = "CSR access",
		[BH_FAULT_ECALL] = "ecall",
		[BH_FAULT_EBREAK] = "ebreak",
		[BH_FAULT_BAD_VALUE] = "bad register value",
		[BH_FAULT_PROTOCOL] = "CB protocol violation",
		[BH_FAULT_CHECK] = "check",
	};
	return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "fault";
}
