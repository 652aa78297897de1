/* The PCIe endpoint as the host sees it (pcie-and-tt-kmd.md, pcie-dma-and-sysmem.md, tt-umd's
 * Blackhole layout): configuration space, the BAR windows and the TLBs behind BAR0/BAR4 that aim
 * a window at a NoC endpoint, the outbound iATU that maps device-issued host addresses and the
 * host-to-device DMA read channel. Only decode lives here: who serves an access (L1, registers,
 * DRAM, the host's memory through callbacks) is the host side's business (host/ttsim.c).
 *
 * Every address fact of the host view is in one table (bh_pcie_decode); the state is plain data
 * behind the caller's lock (the libttsim ABI serialises host calls). */
#ifndef BH_FABRIC_PCIE_H
#define BH_FABRIC_PCIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BH_PCI_VENDOR_ID      0x1E52u
#define BH_PCI_DEVICE_ID      0xB140u     /* Blackhole */
#define BH_PCI_CLASS_REV      0x12000001u /* processing accelerator, revision 1 */

/* BAR sizes; 64-bit non-prefetchable memory BARs 0, 2 and 4 (BARs 1, 3, 5 hold their high halves). */
#define BH_BAR0_SIZE          (512ull << 20)
#define BH_BAR2_SIZE          (1ull << 20)
#define BH_BAR4_SIZE          (32ull << 30)
#define BH_BAR_MEM64          0x4u        /* type bits of a 64-bit memory BAR */

/* TLBs: 202 windows of 2 MiB from BAR0 offset 0, 8 windows of 4 GiB from BAR4 offset 0; their
 * configurations are three 32-bit words each from BAR0 0x1FC00000, 2 MiB ones first. */
#define BH_TLB_2M_COUNT       202u
#define BH_TLB_2M_SHIFT       21u
#define BH_TLB_4G_COUNT       8u
#define BH_TLB_4G_SHIFT       32u
#define BH_TLB_COUNT          (BH_TLB_2M_COUNT + BH_TLB_4G_COUNT)
#define BH_TLB_CFG_BASE       0x1FC00000u
#define BH_TLB_CFG_BYTES      12u
/* The NIU configuration of the PCIe tile on NoC0 and NoC1, seen through BAR0. */
#define BH_BAR0_NIU0_BASE     0x1FD04000u
#define BH_BAR0_NIU1_BASE     0x1FD14000u
#define BH_BAR0_NIU_SIZE      0x2000u
/* BAR2: the DMA controller (read channel 0) and the iATU, 16 outbound + 16 inbound regions of
 * 0x100 bytes interleaved (outbound region r at 0x200 * r). */
#define BH_BAR2_DMA_RD_BASE   0x100u
#define BH_BAR2_DMA_RD_SIZE   0xACu
#define BH_BAR2_IATU_BASE     0x1000u
#define BH_BAR2_IATU_SIZE     0x2000u
#define BH_IATU_REGIONS       16u
#define BH_IATU_ENABLE        (1u << 31)  /* region_ctrl_2 */
/* Device-issued host addresses (NoC-local addresses at the PCIe tile): eight 2^58-byte windows by
 * bits 63:58; 0-3 go to the host untranslated, 4-7 (bit 60 set, where tt-metal puts host memory)
 * through the outbound iATU, identity where no enabled region matches. */
#define BH_PCIE_HOST_WINDOW_SHIFT 58u

/* One TLB's configuration, decoded. Coordinates are translated NoC coordinates. */
struct bh_tlb {
	uint64_t addr;            /* NoC-local address of the window's first byte */
	uint8_t x_end, y_end;     /* the target (unicast) or the rectangle's far corner */
	uint8_t x_start, y_start; /* multicast: the rectangle's near corner */
	uint8_t noc;              /* 0 or 1 */
	uint8_t ordering;         /* 0 default, 1 strict, 2 posted (3 reserved) */
	bool mcast, linked, static_vc;
};

struct bh_iatu_region {
	uint32_t ctrl1, ctrl2, base_lo, base_hi, limit_lo, target_lo, target_hi, ctrl3, limit_hi;
};

struct bh_pcie {
	/* Configuration space: command/status, cache line/latency/header, BARs (0..5), interrupt. */
	uint32_t command, cache_hdr, bar[6], intr;
	uint32_t tlb_cfg[BH_TLB_COUNT * 3];
	struct bh_iatu_region iatu_out[BH_IATU_REGIONS];
	/* The DMA read channel (host -> device): words at BH_BAR2_DMA_RD_BASE + 4 * i. */
	uint32_t dma_rd[BH_BAR2_DMA_RD_SIZE / 4];
};

/* The DMA read channel's registers (BAR2 offsets). */
#define BH_DMA_RD_ENABLE      0x100u
#define BH_DMA_RD_DOORBELL    0x104u
#define BH_DMA_RD_SIZE        0x11Cu      /* bytes; reads 0 when the transfer is done */
#define BH_DMA_RD_SAR_LO      0x120u      /* host source */
#define BH_DMA_RD_SAR_HI      0x124u
#define BH_DMA_RD_DAR_LO      0x128u      /* device destination: a BAR0 offset (a TLB window) */
#define BH_DMA_RD_DAR_HI      0x12Cu

/* Reset state: BARs at bar0/bar2/bar4 (the host's physical addresses of the windows). */
void bh_pcie_init(struct bh_pcie *p, uint64_t bar0, uint64_t bar2, uint64_t bar4);

/* Configuration space, 32-bit aligned words. False: no register there (err says so). */
bool bh_pcie_config_read(const struct bh_pcie *p, uint32_t off, uint32_t *val, char *err, size_t errlen);
bool bh_pcie_config_write(struct bh_pcie *p, uint32_t off, uint32_t val, char *err, size_t errlen);

/* What a host physical address reaches. */
enum bh_pcie_kind {
	BH_PCIE_NONE = 0,         /* nothing: err says why */
	BH_PCIE_TLB_WINDOW,       /* through TLB `index`; tlb decoded, addr = NoC-local address */
	BH_PCIE_TLB_CFG,          /* a TLB configuration word: index = word */
	BH_PCIE_NIU,              /* the PCIe tile's NIU registers: index = NoC, off = register */
	BH_PCIE_DMA,              /* a DMA read-channel register: off = BAR2 offset */
	BH_PCIE_IATU,             /* an iATU register: off = offset in the iATU block */
};

struct bh_pcie_target {
	enum bh_pcie_kind kind;
	unsigned bar;
	unsigned index;
	uint32_t off;
	uint64_t addr;
	struct bh_tlb tlb;
};

/* Decode an access of len bytes at host physical address paddr (it must stay inside what it
 * reaches: a TLB window, one register). False: kind NONE and the reason in err. */
bool bh_pcie_decode(const struct bh_pcie *p, uint64_t paddr, uint32_t len, struct bh_pcie_target *t, char *err,
		    size_t errlen);
/* TLB `index`'s configuration. False: reserved bits or ordering 3 (err says which). */
bool bh_pcie_tlb(const struct bh_pcie *p, unsigned index, struct bh_tlb *out, char *err, size_t errlen);
/* The configuration words for tlb (what a host driver writes), for tests and tools. */
void bh_pcie_tlb_encode(unsigned index, const struct bh_tlb *tlb, uint32_t w[3]);

/* iATU register at offset off of the iATU block. False: not a register (err). */
bool bh_pcie_iatu_read(const struct bh_pcie *p, uint32_t off, uint32_t *val, char *err, size_t errlen);
bool bh_pcie_iatu_write(struct bh_pcie *p, uint32_t off, uint32_t val, char *err, size_t errlen);
/* The host address a device-issued access of len bytes at NoC address addr (bit 60 set) reaches:
 * the 2^58 window offset, through the outbound iATU for windows 4-7. False: err. */
bool bh_pcie_host_addr(const struct bh_pcie *p, uint64_t addr, uint32_t len, uint64_t *host, char *err,
		       size_t errlen);

#endif
