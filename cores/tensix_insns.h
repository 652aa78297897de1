/* The Blackhole Tensix instruction set as one table (tensix.md 8 and 10; opcode numbers and
 * operand bit ranges as facts from ttsim's tensix_isa.json, MOP/REPLAY/STALLWAIT ranges from the
 * reference). Decode, reserved-bit checks, disassembly, the Wait Gate's unit classes, the
 * executor's "is this modelled" answer and the tests all read it.
 *
 *   X(NAME, opcode, unit, plane, exec, layout, fields)
 *     unit    Wait Gate class (enum tt_unit): FRONT (MOP/REPLAY expanders, never reaches the
 *             gate), NOP, SYNC, WAIT (STALLWAIT/SEMWAIT/STREAMWAIT), MISC, UNPACK, PACK, MOVER,
 *             SCALAR, MATRIX, CONFIG, VECTOR
 *     plane   CTRL (control plane) or DATA (data plane, tensix.md 10)
 *     exec    Y executed by bhemu; B accepted as a state-free no-op because real firmware pushes
 *             it at boot (tensix.md 9); N decodes, but executing it is a "not modelled" fault
 *     layout  FIELDS: the named fields below are every operand bit (any other bit set is a
 *             fault); UNKNOWN: no public field list (no reserved-bit check)
 *     fields  F(name, hi, lo) ...
 *
 * Scalar-unit layouts from tt-isa-documentation (Wormhole pages, which Blackhole keeps):
 * ADDDMAREG.md, SUBDMAREG.md, MULDMAREG.md, BITWOPDMAREG.md, SHIFTDMAREG.md, CMPDMAREG.md
 * (mode at 20:18; SHIFTDMAREG's immediate form has 5 bits, so its bit 11 is reserved: checked
 * at execution), SETDMAREG_Special.md (the special form renames bits 23:8: checked at
 * execution). STREAMWAIT from Blackhole STREAMWAIT.md. LOADREG mirrors STOREREG (assumption). */
#ifndef BH_CORES_TENSIX_INSNS_H
#define BH_CORES_TENSIX_INSNS_H

#define TT_INSNS(X, F) \
	X(MOP, 0x01, FRONT, CTRL, Y, FIELDS, F(template, 23, 23) F(count1, 22, 16) F(mask_lo, 15, 0)) \
	X(NOP, 0x02, NOP, CTRL, Y, FIELDS, ) \
	X(MOP_CFG, 0x03, FRONT, CTRL, Y, FIELDS, F(mask_hi, 15, 0)) \
	X(REPLAY, 0x04, FRONT, CTRL, Y, FIELDS, F(load, 0, 0) F(exec, 1, 1) F(len, 13, 4) F(start, 23, 14)) \
	X(RESOURCEDECL, 0x05, FRONT, CTRL, N, UNKNOWN, ) \
	X(MOVD2A, 0x08, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(instr_mod, 13, 12) F(addr_mode, 16, 14) F(src, 22, 17) F(dest_32b_lo, 23, 23)) \
	X(MOVDBGA2D, 0x09, MATRIX, DATA, N, UNKNOWN, ) \
	X(MOVD2B, 0x0A, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(instr_mod, 13, 12) F(addr_mode, 16, 14) F(src, 22, 17) F(dest_32b_lo, 23, 23)) \
	X(MOVB2A, 0x0B, MATRIX, DATA, Y, FIELDS, F(srcb, 5, 0) F(instr_mod, 13, 12) F(addr_mode, 16, 14) F(srca, 22, 17)) \
	X(MOVDBGB2D, 0x0C, MATRIX, DATA, N, UNKNOWN, ) \
	X(ZEROACC, 0x10, MATRIX, DATA, Y, FIELDS, F(where, 9, 0) F(addr_mode, 16, 14) F(clear_zero_flags, 17, 17) F(use_32_bit_mode, 18, 18) F(clear_mode, 20, 19)) \
	X(ZEROSRC, 0x11, MATRIX, DATA, Y, FIELDS, F(src_mask, 1, 0) F(bank_mask, 2, 2) F(write_mode, 3, 3) F(zero_val, 4, 4)) \
	X(MOVA2D, 0x12, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(instr_mod, 13, 12) F(addr_mode, 16, 14) F(src, 22, 17) F(dest_32b_lo, 23, 23)) \
	X(MOVB2D, 0x13, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(movb2d_instr_mod, 13, 11) F(addr_mode, 16, 14) F(src, 22, 17) F(dest_32b_lo, 23, 23)) \
	X(TRNSPSRCA, 0x14, MATRIX, DATA, N, UNKNOWN, ) \
	X(RAREB, 0x15, MATRIX, DATA, N, UNKNOWN, ) \
	X(TRNSPSRCB, 0x16, MATRIX, DATA, Y, FIELDS, ) \
	X(SHIFTXA, 0x17, MATRIX, DATA, N, UNKNOWN, ) \
	X(SHIFTXB, 0x18, MATRIX, DATA, N, UNKNOWN, ) \
	X(SETASHRMH0, 0x1A, MATRIX, DATA, N, UNKNOWN, ) \
	X(SETASHRMH1, 0x1B, MATRIX, DATA, N, UNKNOWN, ) \
	X(SETASHRMV, 0x1C, MATRIX, DATA, N, UNKNOWN, ) \
	X(SETPKEDGOF, 0x1D, PACK, DATA, N, UNKNOWN, ) \
	X(SETASHRMH, 0x1E, MATRIX, DATA, N, UNKNOWN, ) \
	X(CLREXPHIST, 0x21, MATRIX, DATA, N, UNKNOWN, ) \
	X(CONV3S1, 0x22, MATRIX, DATA, N, UNKNOWN, ) \
	X(CONV3S2, 0x23, MATRIX, DATA, N, UNKNOWN, ) \
	X(MPOOL3S1, 0x24, MATRIX, DATA, N, UNKNOWN, ) \
	X(APOOL3S1, 0x25, MATRIX, DATA, N, UNKNOWN, ) \
	X(MVMUL, 0x26, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(addr_mode, 16, 14) F(instr_mod19, 19, 19) F(clear_dvalid, 23, 22)) \
	X(ELWMUL, 0x27, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(addr_mode, 16, 14) F(instr_mod19, 20, 19) F(dest_accum_en, 21, 21) F(clear_dvalid, 23, 22)) \
	X(ELWADD, 0x28, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(addr_mode, 16, 14) F(instr_mod19, 20, 19) F(dest_accum_en, 21, 21) F(clear_dvalid, 23, 22)) \
	X(DOTPV, 0x29, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(addr_mode, 16, 14) F(instr_mod19, 20, 19) F(dest_accum_en, 21, 21) F(clear_dvalid, 23, 22)) \
	X(ELWSUB, 0x30, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(addr_mode, 16, 14) F(instr_mod19, 20, 19) F(dest_accum_en, 21, 21) F(clear_dvalid, 23, 22)) \
	X(MPOOL3S2, 0x31, MATRIX, DATA, N, UNKNOWN, ) \
	X(APOOL3S2, 0x32, MATRIX, DATA, N, UNKNOWN, ) \
	X(GMPOOL, 0x33, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(max_pool_index_en, 14, 14) F(pool_addr_mode, 17, 15) F(instr_mod19, 19, 19) F(clear_dvalid, 23, 22)) \
	X(GAPOOL, 0x34, MATRIX, DATA, Y, FIELDS, F(dst, 9, 0) F(max_pool_index_en, 14, 14) F(pool_addr_mode, 17, 15) F(instr_mod19, 19, 19) F(clear_dvalid, 23, 22)) \
	X(GATESRCRST, 0x35, MATRIX, DATA, Y, FIELDS, F(reset_srca_gate_control, 0, 0) F(reset_srcb_gate_control, 1, 1)) \
	X(CLEARDVALID, 0x36, MATRIX, DATA, Y, FIELDS, F(reset, 1, 0) F(cleardvalid, 23, 22)) \
	X(SETRWC, 0x37, MATRIX, DATA, Y, FIELDS, F(bit_mask, 3, 0) F(rwc_a, 9, 6) F(rwc_b, 13, 10) F(rwc_d, 17, 14) F(rwc_cr, 21, 18) F(clear_ab_vld, 23, 22)) \
	X(INCRWC, 0x38, MATRIX, DATA, Y, FIELDS, F(rwc_a, 9, 6) F(rwc_b, 13, 10) F(rwc_d, 17, 14) F(rwc_cr, 20, 18)) \
	X(SETIBRWC, 0x39, MATRIX, DATA, N, UNKNOWN, ) \
	X(MFCONV3S1, 0x3A, MATRIX, DATA, N, UNKNOWN, ) \
	X(XMOV, 0x40, MOVER, DATA, N, UNKNOWN, ) \
	X(PACR, 0x41, PACK, DATA, Y, FIELDS, F(last, 0, 0) F(flush, 1, 1) F(ctxt_ctrl, 3, 2) F(concat, 4, 4) F(ovrd_thread_id, 7, 7) F(read_intf_sel, 11, 8) F(zero_write, 12, 12) F(addr_cnt_context, 14, 13) F(addr_mode, 16, 15) F(dst_access_mode, 17, 17) F(row_pad_zero, 20, 18) F(cfg_context, 22, 21)) \
	X(UNPACR, 0x42, UNPACK, DATA, Y, FIELDS, F(last, 0, 0) F(search_cache_flush, 1, 1) F(row_search, 2, 2) F(auto_inc_context_id, 3, 3) F(zero_write2, 4, 4) F(srcb_bcast, 5, 5) F(set_dat_valid, 6, 6) F(ovrd_thread_id, 7, 7) F(addr_cnt_context_id, 9, 8) F(cfg_context_id, 12, 10) F(cfg_context_cnt_inc, 13, 13) F(addr_mode, 22, 15) F(unpack_block_selection, 23, 23)) \
	X(UNPACR_NOP, 0x43, UNPACK, DATA, Y, FIELDS, F(unpack_pop, 1, 0) F(src_clr_val_ctrl, 3, 2) F(bank_clr_ctrl, 4, 4) F(stall_clr_cntrl, 5, 5) F(clr_to1_fmt_ctrl, 7, 6) F(set_dvalid, 8, 8) F(msg_clr_cnt, 14, 12) F(stream_id, 21, 16) F(unpacker_select, 23, 23)) \
	X(RSTDMA, 0x44, MISC, CTRL, N, UNKNOWN, ) \
	X(SETDMAREG, 0x45, SCALAR, CTRL, Y, FIELDS, F(half_reg, 6, 0) F(special, 7, 7) F(value, 23, 8)) \
	X(FLUSHDMA, 0x46, SCALAR, CTRL, Y, UNKNOWN, ) \
	X(REG2FLOP, 0x48, SCALAR, CTRL, N, FIELDS, F(reg_index, 5, 0) F(flop_index, 12, 6) F(context_id_2, 17, 16) F(byte_offset, 19, 18) F(target_sel, 21, 20) F(size_sel, 23, 22)) \
	X(LOADIND, 0x49, SCALAR, CTRL, N, UNKNOWN, ) \
	X(PACR_SETREG, 0x4A, PACK, CTRL, N, UNKNOWN, ) \
	X(TBUFCMD, 0x4B, MISC, CTRL, N, UNKNOWN, ) \
	X(SETADC, 0x50, MISC, DATA, Y, FIELDS, F(value, 17, 0) F(dimension_index, 19, 18) F(channel_index, 20, 20) F(cnt_set_mask, 23, 21)) \
	X(SETADCXY, 0x51, MISC, DATA, Y, FIELDS, F(bit_mask, 3, 0) F(ch0_x, 8, 6) F(ch0_y, 11, 9) F(ch1_x, 14, 12) F(ch1_y, 17, 15) F(cnt_set_mask, 23, 21)) \
	X(INCADCXY, 0x52, MISC, DATA, Y, FIELDS, F(ch0_x, 8, 6) F(ch0_y, 11, 9) F(ch1_x, 14, 12) F(ch1_y, 17, 15) F(cnt_set_mask, 23, 21)) \
	X(ADDRCRXY, 0x53, MISC, DATA, Y, FIELDS, F(bit_mask, 3, 0) F(ch0_x, 8, 6) F(ch0_y, 11, 9) F(ch1_x, 14, 12) F(ch1_y, 17, 15) F(cnt_set_mask, 23, 21)) \
	X(SETADCZW, 0x54, MISC, DATA, Y, FIELDS, F(bit_mask, 3, 0) F(ch0_x, 8, 6) F(ch0_y, 11, 9) F(ch1_x, 14, 12) F(ch1_y, 17, 15) F(cnt_set_mask, 23, 21)) \
	X(INCADCZW, 0x55, MISC, DATA, Y, FIELDS, F(ch0_x, 8, 6) F(ch0_y, 11, 9) F(ch1_x, 14, 12) F(ch1_y, 17, 15) F(cnt_set_mask, 23, 21)) \
	X(ADDRCRZW, 0x56, MISC, DATA, Y, FIELDS, F(bit_mask, 3, 0) F(ch0_x, 8, 6) F(ch0_y, 11, 9) F(ch1_x, 14, 12) F(ch1_y, 17, 15) F(cnt_set_mask, 23, 21)) \
	X(SETDVALID, 0x57, MISC, DATA, Y, FIELDS, F(setvalid, 1, 0)) \
	X(ADDDMAREG, 0x58, SCALAR, CTRL, Y, FIELDS, F(left_reg, 5, 0) F(right, 11, 6) F(result_reg, 17, 12) F(right_is_imm, 23, 23)) \
	X(SUBDMAREG, 0x59, SCALAR, CTRL, Y, FIELDS, F(left_reg, 5, 0) F(right, 11, 6) F(result_reg, 17, 12) F(right_is_imm, 23, 23)) \
	X(MULDMAREG, 0x5A, SCALAR, CTRL, Y, FIELDS, F(left_reg, 5, 0) F(right, 11, 6) F(result_reg, 17, 12) F(right_is_imm, 23, 23)) \
	X(BITWOPDMAREG, 0x5B, SCALAR, CTRL, Y, FIELDS, F(left_reg, 5, 0) F(right, 11, 6) F(result_reg, 17, 12) F(mode, 20, 18) F(right_is_imm, 23, 23)) \
	X(SHIFTDMAREG, 0x5C, SCALAR, CTRL, Y, FIELDS, F(left_reg, 5, 0) F(right, 11, 6) F(result_reg, 17, 12) F(mode, 20, 18) F(right_is_imm, 23, 23)) \
	X(CMPDMAREG, 0x5D, SCALAR, CTRL, Y, FIELDS, F(left_reg, 5, 0) F(right, 11, 6) F(result_reg, 17, 12) F(mode, 20, 18) F(right_is_imm, 23, 23)) \
	X(SETADCXX, 0x5E, MISC, DATA, Y, FIELDS, F(x_start, 9, 0) F(x_end2, 19, 10) F(cnt_set_mask, 23, 21)) \
	X(DMANOP, 0x60, SCALAR, CTRL, Y, FIELDS, ) \
	X(ATINCGET, 0x61, SCALAR, CTRL, N, UNKNOWN, ) \
	X(ATINCGETPTR, 0x62, SCALAR, CTRL, N, UNKNOWN, ) \
	X(ATSWAP, 0x63, SCALAR, CTRL, N, UNKNOWN, ) \
	X(ATCAS, 0x64, SCALAR, CTRL, N, UNKNOWN, ) \
	X(STOREIND, 0x66, SCALAR, CTRL, N, UNKNOWN, ) \
	X(STOREREG, 0x67, SCALAR, CTRL, Y, FIELDS, F(reg_addr, 17, 0) F(data_reg, 23, 18)) \
	X(LOADREG, 0x68, SCALAR, CTRL, Y, FIELDS, F(reg_addr, 17, 0) F(data_reg, 23, 18)) \
	X(SFPLOAD, 0x70, VECTOR, DATA, Y, FIELDS, F(dest_reg_addr, 9, 0) F(sfpu_addr_mode, 15, 13) F(instr_mod0, 19, 16) F(lreg_ind, 23, 20)) \
	X(SFPLOADI, 0x71, VECTOR, DATA, Y, FIELDS, F(imm16, 15, 0) F(instr_mod0, 19, 16) F(lreg_ind, 23, 20)) \
	X(SFPSTORE, 0x72, VECTOR, DATA, Y, FIELDS, F(dest_reg_addr, 9, 0) F(sfpu_addr_mode, 15, 13) F(instr_mod0, 19, 16) F(lreg_ind, 23, 20)) \
	X(SFPLUT, 0x73, VECTOR, DATA, Y, FIELDS, F(instr_mod0, 19, 16) F(lreg_ind, 23, 20)) \
	X(SFPMULI, 0x74, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(imm16_math, 23, 8)) \
	X(SFPADDI, 0x75, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(imm16_math, 23, 8)) \
	X(SFPDIVP2, 0x76, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 23, 12)) \
	X(SFPEXEXP, 0x77, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFPEXMAN, 0x78, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFPIADD, 0x79, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 23, 12)) \
	X(SFPSHFT, 0x7A, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 23, 12)) \
	X(SFPSETCC, 0x7B, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 12, 12)) \
	X(SFPMOV, 0x7C, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFPABS, 0x7D, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFPAND, 0x7E, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 15, 12)) \
	X(SFPOR, 0x7F, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 15, 12)) \
	X(SFPNOT, 0x80, VECTOR, DATA, Y, FIELDS, F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFPLZ, 0x81, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFPSETEXP, 0x82, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 19, 12)) \
	X(SFPSETMAN, 0x83, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 23, 12)) \
	X(SFPMAD, 0x84, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_src_c, 11, 8) F(lreg_src_b, 15, 12) F(lreg_src_a, 19, 16)) \
	X(SFPADD, 0x85, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_src_c, 11, 8) F(lreg_src_b, 15, 12) F(lreg_src_a, 19, 16)) \
	X(SFPMUL, 0x86, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_src_c, 11, 8) F(lreg_src_b, 15, 12) F(lreg_src_a, 19, 16)) \
	X(SFPPUSHC, 0x87, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4)) \
	X(SFPPOPC, 0x88, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4)) \
	X(SFPSETSGN, 0x89, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 12, 12)) \
	X(SFPENCC, 0x8A, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(imm12_math, 13, 12)) \
	X(SFPCOMPC, 0x8B, VECTOR, DATA, Y, FIELDS, F(lreg_dest, 7, 4)) \
	X(SFPTRANSP, 0x8C, VECTOR, DATA, Y, FIELDS, F(lreg_dest, 7, 4)) \
	X(SFPXOR, 0x8D, VECTOR, DATA, Y, FIELDS, F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFP_STOCH_RND, 0x8E, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_src_c, 11, 8) F(lreg_src_b, 15, 12) F(imm8_math, 20, 16) F(rnd_mode, 22, 21)) \
	X(SFPNOP, 0x8F, VECTOR, DATA, Y, FIELDS, ) \
	X(SFPCAST, 0x90, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_src_c, 11, 8)) \
	X(SFPCONFIG, 0x91, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(config_dest, 7, 4) F(imm16_math, 23, 8)) \
	X(SFPSWAP, 0x92, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_src_c, 11, 8)) \
	X(SFPLOADMACRO, 0x93, VECTOR, DATA, Y, FIELDS, F(dest_reg_addr, 9, 0) F(sfpu_addr_mode, 15, 13) F(instr_mod0, 19, 16) F(lreg_ind, 23, 20)) \
	X(SFPSHFT2, 0x94, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_src_c, 11, 8) F(imm12_math, 23, 12)) \
	X(SFPLUTFP32, 0x95, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4)) \
	X(SFPLE, 0x96, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFPGT, 0x97, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8)) \
	X(SFPMUL24, 0x98, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_src_c, 11, 8) F(lreg_src_b, 15, 12) F(lreg_src_a, 19, 16)) \
	X(SFPARECIP, 0x99, VECTOR, DATA, Y, FIELDS, F(instr_mod1, 3, 0) F(lreg_dest, 7, 4) F(lreg_c, 11, 8) F(imm12_math, 15, 12)) \
	X(ATGETM, 0xA0, SYNC, CTRL, Y, FIELDS, F(mutex_index, 15, 0)) \
	X(ATRELM, 0xA1, SYNC, CTRL, Y, FIELDS, F(mutex_index, 15, 0)) \
	X(STALLWAIT, 0xA2, WAIT, CTRL, Y, FIELDS, F(wait_res, 12, 0) F(stall_res, 23, 15)) \
	X(SEMINIT, 0xA3, SYNC, CTRL, Y, FIELDS, F(sem_sel, 9, 2) F(init_value, 19, 16) F(max_value, 23, 20)) \
	X(SEMPOST, 0xA4, SYNC, CTRL, Y, FIELDS, F(sem_sel, 9, 2)) \
	X(SEMGET, 0xA5, SYNC, CTRL, Y, FIELDS, F(sem_sel, 9, 2)) \
	X(SEMWAIT, 0xA6, WAIT, CTRL, Y, FIELDS, F(wait_sem_cond, 1, 0) F(sem_sel, 9, 2) F(stall_res, 23, 15)) \
	X(STREAMWAIT, 0xA7, WAIT, CTRL, Y, FIELDS, F(stream_select, 1, 0) F(condition_index, 3, 3) F(target_value_lo, 13, 4) F(block_mask, 23, 15)) \
	X(WRCFG, 0xB0, CONFIG, CTRL, Y, FIELDS, F(cfg_reg, 10, 0) F(wr128b, 15, 15) F(gpr_address, 21, 16)) \
	X(RDCFG, 0xB1, CONFIG, CTRL, Y, FIELDS, F(cfg_reg, 10, 0) F(gpr_address, 21, 16)) \
	X(SETC16, 0xB2, CONFIG, CTRL, Y, FIELDS, F(setc16_value, 15, 0) F(setc16_reg, 23, 16)) \
	X(RMWCIB0, 0xB3, CONFIG, CTRL, Y, FIELDS, F(cfg_reg_addr, 7, 0) F(data, 15, 8) F(mask, 23, 16)) \
	X(RMWCIB1, 0xB4, CONFIG, CTRL, Y, FIELDS, F(cfg_reg_addr, 7, 0) F(data, 15, 8) F(mask, 23, 16)) \
	X(RMWCIB2, 0xB5, CONFIG, CTRL, Y, FIELDS, F(cfg_reg_addr, 7, 0) F(data, 15, 8) F(mask, 23, 16)) \
	X(RMWCIB3, 0xB6, CONFIG, CTRL, Y, FIELDS, F(cfg_reg_addr, 7, 0) F(data, 15, 8) F(mask, 23, 16)) \
	X(STREAMWRCFG, 0xB7, CONFIG, CTRL, N, UNKNOWN, ) \
	X(CFGSHIFTMASK, 0xB8, CONFIG, CTRL, Y, FIELDS, F(cfg_index, 7, 0) F(scratch_index, 9, 8) F(rotate_amt, 14, 10) F(mask_width, 19, 15) F(alu_mode, 22, 20) F(mask_mode, 23, 23))


#endif
