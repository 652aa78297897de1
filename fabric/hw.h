/* Blackhole Tensix tile: silicon constants shared by every module (memory-map.md).
 * Only hardware facts live here; firmware L1 layouts belong to host/ profiles. */
#ifndef BH_FABRIC_HW_H
#define BH_FABRIC_HW_H

#define BH_L1_SIZE          (1536u * 1024u)      /* 1.5 MiB, shared by the tile's five cores */
#define BH_L1_PAGE_SHIFT    12u                  /* granule of the decoded-code bookkeeping */
#define BH_L1_PAGES         (BH_L1_SIZE >> BH_L1_PAGE_SHIFT)

#define BH_LDM_BASE         0xFFB00000u          /* fast window: the issuing core's own local RAM */
#define BH_LDM_SIZE_DM      8192u                /* BRISC, NCRISC */
#define BH_LDM_SIZE_TRISC   4096u                /* TRISC0..2 */
#define BH_LDM_SLOW_BASE    0xFFB14000u          /* slow-path windows, 8 KiB slot per core */

#define BH_TILE_CTRL_BASE   0xFFB12000u
#define BH_SOFT_RESET_0     0xFFB121B0u
#define BH_SOFT_RESET_INIT  0x00047800u          /* all five RISC-V cores held */

/* The Tensix coprocessor's RISC-V windows (cores/tensix.c serves them). */
#define BH_TT_GPR_BASE      0xFFE00000u
#define BH_TT_PUSH_BASE     0xFFE40000u          /* thread 0 / own thread; thread i at + i * stride */
#define BH_TT_PUSH_STRIDE   0x10000u
#define BH_TT_PUSH_SPAN     (3 * BH_TT_PUSH_STRIDE)  /* the three threads' windows */
#define BH_TT_MOP_CFG_BASE  0xFFB80000u
#define BH_TT_DST_BASE      0xFFBD8000u          /* Dst as RISC-V memory (TRISCs) */

#define BH_TENSIX_CFG_BASE  0xFFEF0000u
#define BH_CFG_WORDS        224u                 /* Config words per state (CFG_STATE_SIZE 56 x 4) */
/* GLOBAL_CFGREG_BASE_ADDR32 (Blackhole cfg_defines.h): Config words from here on are one value
 * for both states; a write to either reaches both (BackendConfiguration.md). */
#define BH_CFG_GLOBAL_BASE  180u
#define BH_CFG_SCRATCH0     209u                 /* SCRATCH_SEC0..2_val: 209, 210, 211 (global) */
#define BH_CFG_IC_INVALIDATE 185u               /* RISCV_IC_INVALIDATE_InvalidateAll, 5-bit core mask */
#define BH_CFG_PRNG_SEED    186u                 /* PRNG_SEED_Seed_Val: a write reseeds the PRNGs */

/* tt-metal processor index; also the index of a core within its tile. */
enum bh_core_kind {
	BH_BRISC = 0,
	BH_NCRISC = 1,
	BH_TRISC0 = 2,
	BH_TRISC1 = 3,
	BH_TRISC2 = 4,
	BH_CORES_PER_TILE = 5,
};

/* SOFT_RESET_0 bit that holds each core (memory-map.md 4.1). */
static inline unsigned bh_soft_reset_bit(enum bh_core_kind k)
{
	static const unsigned char bit[BH_CORES_PER_TILE] = { 11, 18, 12, 13, 14 };
	return bit[k];
}

/* RISCV_IC_INVALIDATE mask bit of each core (memory-map.md 8): B 1, T0 2, T1 4, T2 8, NC 0x10. */
static inline unsigned bh_ic_invalidate_bit(enum bh_core_kind k)
{
	static const unsigned char bit[BH_CORES_PER_TILE] = { 0, 4, 1, 2, 3 };
	return bit[k];
}

/* DISABLE_RESET bit that keeps core k's local RAM across reset: T0 0, T1 2, T2 4, B 6, NC 8. */
static inline unsigned bh_disable_reset_ldm_bit(enum bh_core_kind k)
{
	static const unsigned char idx[BH_CORES_PER_TILE] = { 3, 4, 0, 1, 2 };
	return 2u * idx[k];
}

/* Cycles the local RAM zeroing after a release from reset may take (memory-map.md 2). */
#define BH_LDM_ZEROING_CYCLES 2048u

static inline unsigned bh_ldm_size(enum bh_core_kind k)
{
	return (k == BH_BRISC || k == BH_NCRISC) ? BH_LDM_SIZE_DM : BH_LDM_SIZE_TRISC;
}

static inline const char *bh_core_kind_name(enum bh_core_kind k)
{
	static const char *const names[BH_CORES_PER_TILE] = { "brisc", "ncrisc", "trisc0", "trisc1", "trisc2" };
	return (unsigned)k < BH_CORES_PER_TILE ? names[k] : "?";
}

#endif
