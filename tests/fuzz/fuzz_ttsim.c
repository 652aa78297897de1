/* Fuzz harness for the libttsim ABI (host/ttsim.c): what a host may do to the simulator library,
 * in any order and with any values. Every call must return (a misuse prints one "bhemu-ttsim:"
 * line and does nothing else); a crash, hang, leak or sanitizer report is a finding.
 *
 * The library is started on a 1x1 grid board (BHEMU_TTSIM_BOARD=grid:1x1, reports to none) for
 * every input and stopped after it, so no input sees what an earlier one left. The input is a
 * sequence of steps, each starting with a selector byte s:
 *   s % 8 == 0  config read: device/function byte, 16-bit offset (unaligned ones included)
 *   s % 8 == 1  config write: the same, then a 32-bit value (BAR sizing, command register, ...)
 *   s % 8 == 2  BAR read: BAR (byte % 3: 0, 2, 4, as config space places them; bit 7 of s: an
 *               absolute address instead), 32-bit offset (40-bit for BAR4), size 0..64
 *   s % 8 == 3  BAR write: the same, then the data
 *   s % 8 == 4  a TLB configuration: 16-bit index % 210 (2 MiB TLBs 0-201, 4 GiB ones 202-209),
 *               three 32-bit words, written where tt-umd writes them (BAR0 0x1FC00000 + 12 i)
 *   s % 8 == 5  tile access: x, y (bytes % 32), 40-bit address, size 0..64, read or write (bit 7 of s)
 *   s % 8 == 6  clock: a byte of ticks
 *   s % 8 == 7  by bits 3-5 of s: exit; init; bhemu_ttsim_cq_start (chip, offset, sizes from the
 *               input); select / create a device by id; clock_all_devices; the switch calls
 * At most 64 steps run; then the library is stopped if it runs. Calls after an exit and before the
 * next init are the misuse the ABI documents, and are part of the input space. */
#include "tests/fuzz/fuzz_input.h"   /* first: it sets _GNU_SOURCE */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/ttsim.h"

#define MAX_STEPS 64
#define MAX_SIZE 64u
#define HOST_MEM (256u << 10)

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t take_n(struct input *in, unsigned n)
{
	uint64_t v = 0;
	for (unsigned k = 0; k < n; k++) {
		uint64_t b = 0;
		if (in->left) {
			b = *in->p++;
			in->left--;
		}
		v |= b << (8 * k);
	}
	return v;
}

static unsigned take(struct input *in) { return (unsigned)take_n(in, 1); }

/* The device's view of host memory: a small buffer, out-of-range bytes read as all-ones. */
static uint8_t host_mem[HOST_MEM];

static void dma_rd(uint64_t paddr, void *dst, uint32_t size)
{
	uint8_t *d = dst;
	for (uint32_t k = 0; k < size; k++)
		d[k] = paddr + k < HOST_MEM ? __atomic_load_n(&host_mem[paddr + k], __ATOMIC_RELAXED) : 0xFF;
}

static void dma_wr(uint64_t paddr, const void *src, uint32_t size)
{
	const uint8_t *s = src;
	for (uint32_t k = 0; k < size; k++)
		if (paddr + k < HOST_MEM)
			__atomic_store_n(&host_mem[paddr + k], s[k], __ATOMIC_RELAXED);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("BHEMU_TTSIM_BOARD", "grid:1x1", 1);
	setenv("BHEMU_TTSIM_REPORT", "none", 1);
	libttsim_set_pci_dma_mem_callbacks(dma_rd, dma_wr);
	return 0;
}

/* BAR b's base as config space says now (64-bit BARs at 0x10, 0x18, 0x20). */
static uint64_t bar_base(unsigned b)
{
	uint32_t off = 0x10 + 4 * b;
	uint64_t lo = libttsim_pci_config_rd32(0, off), hi = libttsim_pci_config_rd32(0, off + 4);
	return (hi << 32 | lo) & ~0xFull;
}

static void step_lifecycle(struct input *in, unsigned op, bool *running)
{
	switch (op) {
	case 0:
		libttsim_exit();
		*running = false;
		break;
	case 1:
		libttsim_init();
		*running = true;
		break;
	case 2: {
		unsigned chip = take(in) % 3;
		uint32_t off = (uint32_t)take_n(in, 3), issue = (uint32_t)take_n(in, 3), compl = (uint32_t)take_n(in, 3);
		bhemu_ttsim_cq_start(chip, off, issue, compl);
		break;
	}
	case 3:
		libttsim_select_device_by_id(take(in) % 4);
		break;
	case 4:
		libttsim_create_device_by_id(take(in) % 4, (int)take(in), (int)take(in));
		break;
	case 5:
		libttsim_clock_all_devices(take(in));
		break;
	case 6:
		libttsim_switch_reset();
		libttsim_switch_drain();
		break;
	default:
		libttsim_switch_register(libttsim_create_device_by_id(0, 0, 0), take(in), take_n(in, 6));
		libttsim_configure_eth_link_virtual(NULL, take(in), take_n(in, 6));
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t buf[MAX_SIZE];
	bool running = true;
	memset(host_mem, 0, sizeof host_mem);
	libttsim_init();
	for (unsigned n = 0; n < MAX_STEPS && in.left; n++) {
		unsigned s = take(&in);
		switch (s % 8) {
		case 0:
			(void)libttsim_pci_config_rd32(take(&in), (uint32_t)take_n(&in, 2));
			break;
		case 1: {
			uint32_t bdf = take(&in), off = (uint32_t)take_n(&in, 2);
			libttsim_pci_config_wr32(bdf, off, (uint32_t)take_n(&in, 4));
			break;
		}
		case 2:
		case 3: {
			unsigned b = 2 * (take(&in) % 3);
			uint64_t off = take_n(&in, b == 4 ? 5 : 4);
			uint64_t addr = s & 0x80 ? off : bar_base(b) + off;
			uint32_t len = take(&in) % (MAX_SIZE + 1);
			if (s % 8 == 2) {
				libttsim_pci_mem_rd_bytes(addr, buf, len);
			} else {
				for (uint32_t k = 0; k < len; k++)
					buf[k] = (uint8_t)take(&in);
				libttsim_pci_mem_wr_bytes(addr, buf, len);
			}
			break;
		}
		case 4: {
			uint32_t i = (uint32_t)take_n(&in, 2) % 210, w[3];
			for (unsigned k = 0; k < 3; k++)
				w[k] = (uint32_t)take_n(&in, 4);
			for (unsigned k = 0; k < 3; k++)
				libttsim_pci_mem_wr_bytes(bar_base(0) + 0x1FC00000u + 12 * i + 4 * k, &w[k], 4);
			break;
		}
		case 5: {
			uint32_t x = take(&in) % 32, y = take(&in) % 32;
			uint64_t addr = take_n(&in, 5);
			uint32_t len = take(&in) % (MAX_SIZE + 1);
			if (s & 0x80) {
				for (uint32_t k = 0; k < len; k++)
					buf[k] = (uint8_t)take(&in);
				libttsim_tile_wr_bytes(x, y, addr, buf, len);
			} else {
				libttsim_tile_rd_bytes(x, y, addr, buf, len);
			}
			break;
		}
		case 6:
			libttsim_clock(take(&in));
			break;
		default:
			step_lifecycle(&in, s >> 3 & 7, &running);
			break;
		}
	}
	if (running)
		libttsim_exit();
	return 0;
}
