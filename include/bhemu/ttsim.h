/* libbhemu_ttsim.so: bhemu as the simulator library tt-metal / tt-umd load (TT_METAL_SIMULATOR),
 * through the flat C ABI of Tenstorrent's ttsim (docs/libttsim_api.md of tenstorrent/ttsim).
 *
 * The library is a process-wide singleton presenting one Blackhole chip as PCI device 0 (bus 0,
 * function 0), or with BHEMU_TTSIM_CHIPS=N, N chips as devices 0..N-1: each a device of its own
 * (tiles, TLBs, iATU, ARC), its BARs at device 0's addresses plus N x 64 GiB as ttsim's multi-chip
 * builds place them, so a BAR address names its chip (tt-umd then addresses each chip by its BDF).
 * The chips share the DMA callbacks and have no Ethernet links (their Ethernet tiles' L1 is there,
 * every link down). Calling rules:
 *   - libttsim_set_pci_dma_mem_callbacks, if used, before libttsim_init;
 *   - libttsim_init once; again only after libttsim_exit;
 *   - every other function between libttsim_init and libttsim_exit.
 * Host calls are serialised by one mutex inside the library (callers on several threads are
 * safe); the chip's cores keep running on their own threads between and during host calls.
 *
 * Misuse (a call before init, a second init, an unaligned config access, an address no BAR maps,
 * a TLB aimed at no endpoint, a DMA without callbacks, ...) never terminates the process, unlike
 * ttsim: the call prints one line "bhemu-ttsim: ..." on stderr, keeps it for
 * bhemu_ttsim_last_error, does nothing else, and a read returns all-ones bytes.
 *
 * libttsim_clock(n) adds n to a virtual tick count and yields the calling thread's CPU once: the
 * cores do not wait for it (they are free-running threads), so a host poll loop that calls it
 * after every read stays cheap and lets core threads run on a busy host. It never spins or
 * sleeps.
 *
 * Environment (read by libttsim_init; the bhemu_device_open variables BHEMU_CHECKS,
 * BHEMU_CHECK_MODE, BHEMU_JIT, BHEMU_NOC, BHEMU_NOC_LATENCY, BHEMU_SEED, BHEMU_PROVOKE,
 * BHEMU_PROVOKE_RATE apply as well):
 *   BHEMU_TTSIM_BOARD   p150 (default; p150a, p150b, p150c), p100 (p100a) or grid:CxR
 *   BHEMU_TTSIM_CHIPS   how many chips (PCI devices), 1 (default) to 32, each of that board
 *   BHEMU_TTSIM_REPORT  where fault and check reports go: stderr (default), none, or a file
 *                       (appended). A stopped core's report is written when the next host call
 *                       sees it; every check finding at libttsim_exit.
 */
#ifndef BHEMU_TTSIM_H
#define BHEMU_TTSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void libttsim_init(void);
void libttsim_exit(void);
/* DMA callbacks: the device reads / writes size bytes of host memory at paddr (after the outbound
 * iATU). Unlike ttsim, which calls them only inside its own calls, bhemu calls them on the thread
 * that moves the data: the host call's (the BAR2 DMA doorbell, a host access to the PCIe tile's
 * host window) or, for NoC requests of the cores (fast dispatch's command queues), a core's or
 * the NoC's thread, concurrently with host calls and each other. They must be thread-safe and
 * must not call back into the library. */
void libttsim_set_pci_dma_mem_callbacks(void (*pci_dma_mem_rd)(uint64_t paddr, void *dst, uint32_t size),
					void (*pci_dma_mem_wr)(uint64_t paddr, const void *src, uint32_t size));
/* Configuration space of bus_device_function ((bus << 8) | (device << 3) | function), offset
 * 4-byte aligned. Devices past the last chip read all-ones (no device). */
uint32_t libttsim_pci_config_rd32(uint32_t bus_device_function, uint32_t offset);
void libttsim_pci_config_wr32(uint32_t bus_device_function, uint32_t offset, uint32_t data);
/* BAR accesses at host physical addresses (a BAR's base, as read from config space, plus offset). */
void libttsim_pci_mem_rd_bytes(uint64_t paddr, void *dst, uint32_t size);
void libttsim_pci_mem_wr_bytes(uint64_t paddr, const void *src, uint32_t size);
/* Direct access to the endpoint at translated NoC coordinates (x, y) of the selected chip (chip 0
 * unless libttsim_select_device_by_id): Tensix L1 and registers, DRAM banks, Ethernet L1, the ARC
 * tile (8, 0), the PCIe tile's host window. (ttsim rejects these on
 * Blackhole; bhemu serves them.) */
void libttsim_tile_rd_bytes(uint32_t x, uint32_t y, uint64_t addr, void *dst, uint32_t size);
void libttsim_tile_wr_bytes(uint32_t x, uint32_t y, uint64_t addr, const void *src, uint32_t size);
void libttsim_clock(uint32_t n_clocks);

/* tt-umd's multi-device symbols (its tt_sim_communicator: resolved together; when create and
 * select exist it shares one dlopen among its chips and uses all of them). The chips are those
 * BHEMU_TTSIM_CHIPS presents. libttsim_create_device_by_id returns chip chip_id's handle (chip_x,
 * chip_y ignored: without Ethernet links a chip has no place in a mesh), NULL with a message for
 * a chip that does not exist. libttsim_select_device_by_id picks the chip that config-space
 * device 0 and libttsim_tile_rd/wr_bytes reach (chip 0 after init; device d > 0 stays chip d,
 * BAR addresses name their chip anyway). libttsim_clock_all_devices is libttsim_clock. */
void *libttsim_create_device_by_id(uint32_t chip_id, int chip_x, int chip_y);
void libttsim_select_device_by_id(uint32_t chip_id);
void libttsim_clock_all_devices(uint32_t n_clocks);
/* The Ethernet switch between chips. bhemu models no Ethernet links: reset and drain do nothing
 * (nothing is routed), registering an endpoint, a virtual link or a peer is refused with a message
 * "... chips are not linked ..." and the channel stays down. */
void libttsim_switch_reset(void);
void libttsim_switch_drain(void);
void libttsim_switch_register(void *dev, uint32_t tile_id, uint64_t mac);
void libttsim_configure_eth_link_virtual(void *dev, uint32_t tile_id, uint64_t local_mac);
void libttsim_switch_register_peer(void *dev, uint32_t tile_id, void *peer_dev, uint32_t peer_tile_id);

/* bhemu extension: the last misuse message ("bhemu-ttsim: ..."), copied NUL-terminated into buf
 * (cut at len); "" when nothing went wrong since libttsim_init. Returns how many misuses the
 * library has seen since it was loaded. */
unsigned bhemu_ttsim_last_error(char *buf, size_t len);
/* bhemu extension: the tick count libttsim_clock has advanced since libttsim_init. */
uint64_t bhemu_ttsim_ticks(void);
/* bhemu extension: fast dispatch by bhemu's own prefetch and dispatch models (cores/cq_*.c: the
 * command set, L1 layout and protocol of tt-metal's CQ kernels, fast-dispatch.md) instead of
 * tt-metal's CQ kernels, on chip `chip`'s fast-dispatch tiles, whose cores the library holds in
 * reset. The command queue's host memory is the client's: host-window offset host_offset (NoC
 * address bit 60 | host_offset at the PCIe tile, through the outbound iATU to the DMA callbacks)
 * holds the issue read / write pointers (+0x00, +0x40) and the completion write / read pointers
 * (+0x80, +0xC0), the issue ring from +0x100 (issue_size bytes) and the completion ring after it
 * (completion_size bytes); the client initialises the four pointers as fast-dispatch.md 6 says,
 * writes records into the issue ring and their sizes into prefetch_q (prefetch tile L1 0x19840,
 * through a TLB window), and reads completions from its memory. The library writes the tiles' L1
 * state (prefetch_q zeroed, read pointers, credits) for the reference firmware's profile and
 * starts the models; they stop at libttsim_exit. A malformed command stops them with a report
 * (BHEMU_TTSIM_REPORT) at the next host call. Returns 0, or -1 with a message. */
int bhemu_ttsim_cq_start(unsigned chip, uint32_t host_offset, uint32_t issue_size, uint32_t completion_size);

#ifdef __cplusplus
}
#endif

#endif
