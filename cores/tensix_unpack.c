/* Unpackers, packers and their ADCs (UNPACR_Regular.md, PACR.md, ADCs.md). */
#include "cores/tensix_dp.h"
#include "cores/tensix_fmt.h"

enum tt_result tt_dp_unpack(struct bh_tt_thread *th, uint32_t w)
{
	return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "%s is not modelled yet", tt_opinfo(tt_opcode_of(w))->name);
}

enum tt_result tt_dp_pack(struct bh_tt_thread *th, uint32_t w)
{
	return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "%s is not modelled yet", tt_opinfo(tt_opcode_of(w))->name);
}

enum tt_result tt_dp_adc(struct bh_tt_thread *th, uint32_t w)
{
	return tt_fault(th, BH_FAULT_NOT_MODELLED, w, "%s is not modelled yet", tt_opinfo(tt_opcode_of(w))->name);
}
