/* libbhemu_ttsim.so driven the way tt-umd's simulator path drives libttsim (include/bhemu/ttsim.h):
 * dlopen the library, resolve the symbols, probe config space and size the BARs, program TLBs in
 * the Blackhole layout and reach every tile's L1 through them, DRAM through a 4 GiB window, load
 * the reference firmware through the TLB windows and run the boot handshake, start a bare-metal
 * program with a soft-reset pulse and poll its result with libttsim_clock(1) after every read,
 * move data through the DMA read channel and the PCIe tile's host window (DMA callbacks); and
 * every misuse, which must print a message and leave the process alive.
 *
 * TLB configurations are encoded here from tt-umd's Blackhole bit positions, independently of
 * the library's decoder. Each test runs in its own process (the library is a singleton). */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "host/elf.h"
#include "host/profile.h"
#include "testlib.h"

#define REF_FW BHEMU_BINARY_DIR "/firmware/ref"
#define SOFT_RESET_0 0xFFB121B0u
#define L1_SIZE (1536u * 1024u)
#define MB2 (2u << 20)

static struct {
	void *h;
	void (*init)(void);
	void (*exit)(void);
	void (*set_dma)(void (*)(uint64_t, void *, uint32_t), void (*)(uint64_t, const void *, uint32_t));
	uint32_t (*cfg_rd)(uint32_t, uint32_t);
	void (*cfg_wr)(uint32_t, uint32_t, uint32_t);
	void (*mem_rd)(uint64_t, void *, uint32_t);
	void (*mem_wr)(uint64_t, const void *, uint32_t);
	void (*tile_rd)(uint32_t, uint32_t, uint64_t, void *, uint32_t);
	void (*tile_wr)(uint32_t, uint32_t, uint64_t, const void *, uint32_t);
	void (*clock)(uint32_t);
	unsigned (*last_error)(char *, size_t);
	uint64_t bar0, bar2, bar4;
} sim;

static void *sym(const char *name)
{
	void *p = dlsym(sim.h, name);
	cr_assert_not_null(p, "symbol %s: %s", name, dlerror());
	return p;
}

/* Load and resolve like tt-umd's TTSimCommunicator (every required symbol must be there). */
static void sim_load(const char *board)
{
	setenv("BHEMU_TTSIM_BOARD", board, 1);
	sim.h = dlopen(BHEMU_TTSIM_LIB, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(sim.h, "dlopen %s: %s", BHEMU_TTSIM_LIB, dlerror());
	sim.init = (void (*)(void))sym("libttsim_init");
	sim.exit = (void (*)(void))sym("libttsim_exit");
	sim.set_dma = (void (*)(void (*)(uint64_t, void *, uint32_t), void (*)(uint64_t, const void *, uint32_t)))
		sym("libttsim_set_pci_dma_mem_callbacks");
	sim.cfg_rd = (uint32_t (*)(uint32_t, uint32_t))sym("libttsim_pci_config_rd32");
	sim.cfg_wr = (void (*)(uint32_t, uint32_t, uint32_t))sym("libttsim_pci_config_wr32");
	sim.mem_rd = (void (*)(uint64_t, void *, uint32_t))sym("libttsim_pci_mem_rd_bytes");
	sim.mem_wr = (void (*)(uint64_t, const void *, uint32_t))sym("libttsim_pci_mem_wr_bytes");
	sim.tile_rd = (void (*)(uint32_t, uint32_t, uint64_t, void *, uint32_t))sym("libttsim_tile_rd_bytes");
	sim.tile_wr = (void (*)(uint32_t, uint32_t, uint64_t, const void *, uint32_t))sym("libttsim_tile_wr_bytes");
	sim.clock = (void (*)(uint32_t))sym("libttsim_clock");
	sim.last_error = (unsigned (*)(char *, size_t))sym("bhemu_ttsim_last_error");
}

static uint64_t bar(unsigned lo)
{
	return ((uint64_t)sim.cfg_rd(0, lo + 4) << 32 | sim.cfg_rd(0, lo)) & ~15ull;
}

static void sim_start(const char *board)
{
	sim_load(board);
	sim.init();
	cr_assert_eq(sim.cfg_rd(0, 0) & 0xFFFF, 0x1E52u);
	sim.bar0 = bar(0x10);
	sim.bar2 = bar(0x18);
	sim.bar4 = bar(0x20);
}

static void sim_stop(void)
{
	sim.exit();
	dlclose(sim.h);
}

static unsigned errors(char *msg, size_t n)
{
	return sim.last_error(msg, n);
}

/* TLB configuration words (tt-umd's Blackhole tlb_offsets): 2 MiB TLB i at BAR0 0x1FC00000 + 12 i,
 * local offset in 2 MiB units at bit 0, x_end 43, y_end 49, x_start 55, y_start 61, mcast 69,
 * ordering 70; 4 GiB TLB j (index 202 + j): offset in 4 GiB units at 0, x_end 32, y_end 38,
 * ordering 59. */
static void tlb2m(unsigned i, unsigned x, unsigned y, uint64_t addr, bool mcast, unsigned x0, unsigned y0)
{
	uint64_t lo = addr >> 21;
	uint32_t w[3];
	w[0] = (uint32_t)lo;
	w[1] = (uint32_t)(lo >> 32 & 0x7FF) | x << 11 | y << 17 | x0 << 23 | (y0 & 7u) << 29;
	w[2] = y0 >> 3 | (mcast ? 1u << 5 : 0) | 1u << 6;   /* strict ordering */
	for (unsigned k = 0; k < 3; k++)
		sim.mem_wr(sim.bar0 + 0x1FC00000u + 12 * i + 4 * k, &w[k], 4);
}

static void tlb4g(unsigned j, unsigned x, unsigned y, uint64_t addr)
{
	uint32_t w[3] = { (uint32_t)(addr >> 32), x | y << 6, 0 };
	for (unsigned k = 0; k < 3; k++)
		sim.mem_wr(sim.bar0 + 0x1FC00000u + 12 * (202 + j) + 4 * k, &w[k], 4);
}

/* Through 2 MiB TLB i aimed at (x, y), the window that holds addr. */
static void noc_wr(unsigned i, unsigned x, unsigned y, uint32_t addr, const void *src, uint32_t n)
{
	tlb2m(i, x, y, addr & ~(MB2 - 1), false, 0, 0);
	sim.mem_wr(sim.bar0 + (uint64_t)i * MB2 + (addr & (MB2 - 1)), src, n);
}

static void noc_rd(unsigned i, unsigned x, unsigned y, uint32_t addr, void *dst, uint32_t n)
{
	tlb2m(i, x, y, addr & ~(MB2 - 1), false, 0, 0);
	sim.mem_rd(sim.bar0 + (uint64_t)i * MB2 + (addr & (MB2 - 1)), dst, n);
}

static void wr32(unsigned x, unsigned y, uint32_t addr, uint32_t v)
{
	noc_wr(7, x, y, addr, &v, 4);
}

static uint32_t rd32(unsigned x, unsigned y, uint32_t addr)
{
	uint32_t v;
	noc_rd(7, x, y, addr, &v, 4);
	sim.clock(1);    /* tt-umd's after_read() */
	return v;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Poll a word through the TLB path until (v & mask) == want; false after 30 s (a hang, not a
 * speed claim). */
static bool poll32(unsigned x, unsigned y, uint32_t addr, uint32_t mask, uint32_t want)
{
	double t0 = now_s();
	while (now_s() - t0 < 30.0)
		if ((rd32(x, y, addr) & mask) == want)
			return true;
	return false;
}

/* The functional workers of the soc descriptor `bhemu soc-descriptor --board p150` writes (NoC0
 * coordinates, which are the translated ones of an unharvested chip's Tensix tiles). */
static unsigned soc_workers(unsigned *xs, unsigned *ys)
{
	static char yaml[16384];
	int len = bh_soc_descriptor(BH_BOARD_P150, yaml, sizeof yaml);
	cr_assert(len > 0 && (size_t)len < sizeof yaml);
	cr_assert_eq(bh_soc_descriptor(BH_BOARD_P100, NULL, 0), BH_ERR_ARG);
	const char *p = strstr(yaml, "functional_workers:"), *end = p ? strstr(p, "]") : NULL;
	cr_assert(p && end);
	unsigned n = 0, x, y;
	int used;
	for (p = strchr(p, '[') + 1; p < end && n < 140; p += used)
		if (sscanf(p, " %u-%u,%n", &x, &y, &used) == 2) {
			xs[n] = x;
			ys[n++] = y;
		} else
			break;
	return n;
}

Test(ttsim, config_space_ids_bars_and_sizing)
{
	sim_start("grid:2x1");
	cr_expect_eq(sim.cfg_rd(0, 0x00), 0xB1401E52u);
	cr_expect_eq(sim.cfg_rd(0, 0x08) >> 8, 0x120000u);   /* processing accelerator */
	cr_expect_eq(sim.cfg_rd(0, 0x10) & 15u, 4u);         /* 64-bit memory BAR */
	cr_expect_eq(sim.bar0, 0x100000000ull);
	cr_expect_eq(sim.bar2, 0x120000000ull);
	cr_expect_eq(sim.bar4, 0x800000000ull);
	/* Sizing: all-ones in, size mask out, then restore. */
	static const struct { uint32_t off; uint64_t size; } bars[] = {
		{ 0x10, 512ull << 20 }, { 0x18, 1ull << 20 }, { 0x20, 32ull << 30 } };
	for (unsigned b = 0; b < 3; b++) {
		uint32_t lo = sim.cfg_rd(0, bars[b].off), hi = sim.cfg_rd(0, bars[b].off + 4);
		sim.cfg_wr(0, bars[b].off, 0xFFFFFFFFu);
		sim.cfg_wr(0, bars[b].off + 4, 0xFFFFFFFFu);
		uint64_t m = (uint64_t)sim.cfg_rd(0, bars[b].off + 4) << 32 | (sim.cfg_rd(0, bars[b].off) & ~15u);
		cr_expect_eq(~m + 1, bars[b].size, "BAR at 0x%x sizes to 0x%llx", bars[b].off, (unsigned long long)(~m + 1));
		cr_expect_eq(sim.cfg_rd(0, bars[b].off) & 15u, 4u);
		sim.cfg_wr(0, bars[b].off, lo);
		sim.cfg_wr(0, bars[b].off + 4, hi);
	}
	cr_expect_eq(bar(0x10), 0x100000000ull);
	/* Enumeration stops at device 1: all-ones, and that is not a misuse. */
	cr_expect_eq(sim.cfg_rd(1 << 3, 0), 0xFFFFFFFFu);
	cr_expect_eq(errors(NULL, 0), 0u);
	/* The PCIe NIU through BAR0: coordinate translation on, node id (19, 24). */
	uint32_t v;
	sim.mem_rd(sim.bar0 + 0x1FD04000u + 0x100, &v, 4);
	cr_expect_eq(v & (1u << 14), 1u << 14);
	sim.mem_rd(sim.bar0 + 0x1FD04000u + 0x44, &v, 4);
	cr_expect_eq(v, 19u | 24u << 6);
	sim_stop();
}

Test(ttsim, tlb_windows_reach_l1_of_every_p150_tile_and_dram, .timeout = 120)
{
	sim_start("p150");
	uint8_t buf[256], back[256];
	unsigned xs[140], ys[140], n = soc_workers(xs, ys);
	cr_assert_eq(n, 140u, "the P150 descriptor lists %u workers", n);
	for (unsigned k = 0; k < n; k++) {
		unsigned x = xs[k], y = ys[k];
		for (unsigned i = 0; i < sizeof buf; i++)
			buf[i] = (uint8_t)(x * 31 + y * 7 + i);
		noc_wr(k % 16, x, y, 0x50000, buf, sizeof buf);          /* write via one TLB */
		memset(back, 0, sizeof back);
		noc_rd(100 + k % 50, x, y, 0x50000, back, sizeof back);  /* read via another */
		cr_assert_arr_eq(back, buf, sizeof buf, "L1 of (%u,%u) through TLBs", x, y);
		memset(back, 0, sizeof back);
		sim.tile_rd(x, y, 0x50000, back, sizeof back);
		cr_assert_arr_eq(back, buf, sizeof buf, "L1 of (%u,%u) through tile_rd", x, y);
	}
	/* The last byte of L1 through a window whose local offset is not 0. */
	uint32_t v = 0xA5A5F00Du, w = 0;
	noc_wr(3, 16, 11, L1_SIZE - 4, &v, 4);
	sim.tile_rd(16, 11, L1_SIZE - 4, &w, 4);
	cr_expect_eq(w, v);
	/* DRAM bank 0 (translated (17, 12)) above 2 GiB, through a 4 GiB window of BAR4. */
	tlb4g(0, 17, 12, 0);
	uint64_t off = (3ull << 30) + 0x1230;
	memset(buf, 0x3C, sizeof buf);
	sim.mem_wr(sim.bar4 + off, buf, sizeof buf);
	memset(back, 0, sizeof back);
	sim.tile_rd(17, 12, off, back, sizeof back);
	cr_expect_arr_eq(back, buf, sizeof buf);
	memset(back, 0, sizeof back);
	tlb4g(7, 17, 13, 0);    /* another port of the same bank */
	sim.mem_rd(sim.bar4 + (7ull << 32) + off, back, sizeof back);
	cr_expect_arr_eq(back, buf, sizeof buf);
	cr_expect_eq(errors(NULL, 0), 0u);
	sim_stop();
}

Test(ttsim, multicast_window_writes_every_tile_of_its_rectangle)
{
	sim_start("grid:4x3");
	uint32_t v = 0x5EED0001u;
	tlb2m(9, 3, 3, 0, true, 2, 2);      /* (2,2)-(3,3): four tiles */
	sim.mem_wr(sim.bar0 + 9ull * MB2 + 0x4000, &v, 4);
	for (unsigned y = 2; y <= 4; y++)
		for (unsigned x = 1; x <= 4; x++) {
			uint32_t got = 0;
			sim.tile_rd(x, y, 0x4000, &got, 4);
			bool in = x >= 2 && x <= 3 && y <= 3;
			cr_expect_eq(got, in ? v : 0u, "(%u,%u) holds 0x%x", x, y, got);
		}
	cr_expect_eq(errors(NULL, 0), 0u);
	sim_stop();
}

/* A bare-metal program started the way the host starts firmware: hold, load through the TLB,
 * jal at L1[0], release BRISC by SOFT_RESET_0 through a register window, poll with clock(1). */
Test(ttsim, soft_reset_pulse_runs_a_program_on_every_tile)
{
	sim_start("grid:3x2");
	uint32_t code[16];
	unsigned n = 0;
	/* t0 = *(0x30000) (the host's seed), store seed * 3 + 1 to 0x30004, spin. */
	enc_li(&code[n], T0, 0x30000);
	n += 2;
	code[n++] = lw(T1, 0, T0);
	code[n++] = add(T2, T1, T1);
	code[n++] = add(T2, T2, T1);
	code[n++] = addi(T2, T2, 1);
	code[n++] = sw(T2, 4, T0);
	code[n++] = INSN_SELF_LOOP;
	uint32_t jal0 = enc_j(0x20000, X0);
	for (unsigned y = 2; y <= 3; y++)
		for (unsigned x = 1; x <= 3; x++) {
			wr32(x, y, SOFT_RESET_0, 0x47800u);
			noc_wr(1, x, y, 0x20000, code, n * 4);
			noc_wr(1, x, y, 0, &jal0, 4);
			wr32(x, y, 0x30000, x * 100 + y);
			wr32(x, y, SOFT_RESET_0, 0x47000u);     /* release BRISC */
		}
	for (unsigned y = 2; y <= 3; y++)
		for (unsigned x = 1; x <= 3; x++) {
			uint32_t want = (x * 100 + y) * 3 + 1;
			cr_expect(poll32(x, y, 0x30004, 0xFFFFFFFFu, want), "(%u,%u) computed 0x%x", x, y,
				  rd32(x, y, 0x30004));
			cr_expect_eq(rd32(x, y, SOFT_RESET_0), 0x47000u);
		}
	cr_expect_eq(errors(NULL, 0), 0u);
	sim_stop();
}

/* The reference firmware's PT_LOAD segments through the TLB path: L1 ones in place, the
 * local-RAM one staged at the profile's ldm_scratch (the firmware copies it in). */
static void load_fw(unsigned x, unsigned y, const struct bh_profile *p, unsigned core)
{
	char path[512], err[256];
	snprintf(path, sizeof path, "%s/%s", REF_FW, bh_profile_fw_file[core]);
	struct bh_elf *e = bh_elf_open(path, err, sizeof err);
	cr_assert_not_null(e, "%s", err);
	for (unsigned s = 0; s < e->nseg; s++) {
		const struct bh_elf_segment *g = &e->seg[s];
		uint32_t at = g->vaddr >= 0xFFB00000u ? p->ldm_scratch[core] + (g->vaddr - 0xFFB00000u) : g->vaddr;
		uint8_t *img = calloc(1, g->memsz + 1);
		if (g->filesz)
			memcpy(img, g->data, g->filesz);
		for (uint32_t o = 0; o < g->memsz; o += 65536) {
			uint32_t len = g->memsz - o < 65536 ? g->memsz - o : 65536;
			noc_wr(2, x, y, at + o, img + o, len);
		}
		free(img);
	}
	bh_elf_close(e);
}

/* Load the reference firmware on the four tiles of a 2x2 grid through the TLB path and run the
 * boot handshake; every tile's go signal must reach DONE. */
static void boot_ref_fw(const struct bh_profile *p)
{
	uint32_t jal0 = enc_j((int32_t)p->fw_base[0], X0);
	for (unsigned y = 2; y <= 3; y++)
		for (unsigned x = 1; x <= 2; x++) {
			wr32(x, y, SOFT_RESET_0, 0x47800u);
			for (unsigned k = 0; k < 5; k++)
				load_fw(x, y, p, k);
			noc_wr(1, x, y, 0, &jal0, 4);
			wr32(x, y, p->mailbox_base + p->go_messages_base, 0x40u << 24);   /* RUN_MSG_INIT */
			uint8_t lxy[2] = { (uint8_t)(x - 1), (uint8_t)(y - 2) };
			noc_wr(1, x, y, p->mailbox_base + p->core_info_logical_x, &lxy[0], 1);
			noc_wr(1, x, y, p->mailbox_base + p->core_info_logical_y, &lxy[1], 1);
		}
	for (unsigned y = 2; y <= 3; y++)
		for (unsigned x = 1; x <= 2; x++)
			wr32(x, y, SOFT_RESET_0, 0x47000u);
	for (unsigned y = 2; y <= 3; y++)
		for (unsigned x = 1; x <= 2; x++)
			cr_expect(poll32(x, y, p->mailbox_base + p->go_messages_base, 0xFF000000u, 0),
				  "(%u,%u) go signal 0x%x", x, y, rd32(x, y, p->mailbox_base + p->go_messages_base));
}

Test(ttsim, reference_firmware_boots_through_tlb_windows, .timeout = 120)
{
	if (access(REF_FW "/brisc.elf", R_OK) != 0)
		cr_skip_test("reference firmware not built (%s)", REF_FW);
	sim_start("grid:2x2");
	boot_ref_fw(bh_profile_default());
	cr_expect_eq(errors(NULL, 0), 0u);
	sim_stop();
}

/* Slow dispatch as tt-metal's host does it, through the TLB windows only (launch.md): the
 * kernel's text at kernel_config_base + its offset, RESET_READ_PTR_FROM_HOST until the firmware
 * zeroes launch_msg_rd_ptr, the launch message in launch[0] (mode HOST, BRISC enabled), GO, and
 * DONE when the firmware has run the kernel. Three launches in a row, each tile its own value. */
Test(ttsim, slow_dispatch_launches_a_kernel_through_tlb_windows, .timeout = 120)
{
	if (access(REF_FW "/brisc.elf", R_OK) != 0)
		cr_skip_test("reference firmware not built (%s)", REF_FW);
	const struct bh_profile *p = bh_profile_default();
	sim_start("grid:2x2");
	boot_ref_fw(p);
	const uint32_t text = 0x400, marker = 0x30000, go = p->mailbox_base + p->go_messages_base;
	for (uint32_t launch = 1; launch <= 3; launch++) {
		for (unsigned y = 2; y <= 3; y++)
			for (unsigned x = 1; x <= 2; x++) {
				/* kernel_main: *marker = value; return */
				uint32_t k[8], n = 0, value = launch * 1000 + x * 10 + y;
				enc_li(k + n, T0, marker);
				n += 2;
				enc_li(k + n, T1, value);
				n += 2;
				k[n++] = enc_s(0, T1, T0, 2, 0x23);
				k[n++] = enc_i(0, RA, 0, X0, 0x67);
				noc_wr(1, x, y, p->kernel_config_base + text, k, 4 * n);
				wr32(x, y, p->mailbox_base + p->go_message_index, 0);
				wr32(x, y, go, 0xE0u << 24);   /* RESET_READ_PTR_FROM_HOST */
				cr_assert(poll32(x, y, p->mailbox_base + p->launch_msg_rd_ptr, 0xFFFFFFFFu, 0),
					  "(%u,%u) the firmware did not reset launch_msg_rd_ptr", x, y);
				uint8_t m[LM_SIZE] = { 0 };
				for (unsigned c = 0; c < 3; c++)
					memcpy(m + LM_KCB + 4 * c, &p->kernel_config_base, 4);
				memcpy(m + LM_TEXT_OFF, &text, 4);
				m[LM_MODE] = 1;                /* DISPATCH_MODE_HOST */
				m[LM_MIN_REMOTE_CB] = 32;      /* no remote CBs */
				uint32_t enables = 1;          /* BRISC */
				memcpy(m + LM_ENABLES, &enables, 4);
				noc_wr(1, x, y, p->mailbox_base + p->launch_base, m, sizeof m);
				wr32(x, y, go, 0x80u << 24);   /* GO */
			}
		for (unsigned y = 2; y <= 3; y++)
			for (unsigned x = 1; x <= 2; x++) {
				cr_expect(poll32(x, y, go, 0xFF000000u, 0), "launch %u: (%u,%u) go signal 0x%x", launch, x, y,
					  rd32(x, y, go));
				cr_expect_eq(rd32(x, y, marker), launch * 1000 + x * 10 + y, "launch %u: (%u,%u) ran the kernel",
					     launch, x, y);
			}
	}
	char msg[512] = "";
	cr_expect_eq(errors(msg, sizeof msg), 0u, "%s", msg);
	sim_stop();
}

/* Host memory of the test: what the DMA callbacks serve (core threads call them too). */
static uint8_t host_mem[1 << 20];
static unsigned dma_reads, dma_writes;
static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;

static void dma_rd(uint64_t a, void *dst, uint32_t n)
{
	cr_assert_leq(a + n, sizeof host_mem, "DMA read at 0x%llx", (unsigned long long)a);
	pthread_mutex_lock(&host_lock);
	memcpy(dst, host_mem + a, n);
	dma_reads++;
	pthread_mutex_unlock(&host_lock);
}

static void dma_wr(uint64_t a, const void *src, uint32_t n)
{
	cr_assert_leq(a + n, sizeof host_mem, "DMA write at 0x%llx", (unsigned long long)a);
	pthread_mutex_lock(&host_lock);
	memcpy(host_mem + a, src, n);
	dma_writes++;
	pthread_mutex_unlock(&host_lock);
}

static void host_copy(void *dst, uint64_t a, uint32_t n)
{
	pthread_mutex_lock(&host_lock);
	memcpy(dst, host_mem + a, n);
	pthread_mutex_unlock(&host_lock);
}

/* Outbound iATU region 0 as tt-umd programs it: NoC host-window offsets 0..256 KiB -> host 0x40000. */
static void iatu_region0(void);

static void bar2_wr(uint32_t off, uint32_t v)
{
	sim.mem_wr(sim.bar2 + off, &v, 4);
}

static uint32_t bar2_rd(uint32_t off)
{
	uint32_t v;
	sim.mem_rd(sim.bar2 + off, &v, 4);
	return v;
}

static void iatu_region0(void)
{
	bar2_wr(0x1000 + 0x04, 0);
	bar2_wr(0x1000 + 0x00, 0);
	bar2_wr(0x1000 + 0x08, 0);
	bar2_wr(0x1000 + 0x0C, 0);
	bar2_wr(0x1000 + 0x10, 0x3FFFF);
	bar2_wr(0x1000 + 0x14, 0x40000);
	bar2_wr(0x1000 + 0x18, 0);
	bar2_wr(0x1000 + 0x04, 1u << 31);
}

/* A started simulator with the DMA callbacks installed and iATU region 0 programmed. */
static void sim_start_dma(const char *board)
{
	sim_load(board);
	sim.set_dma(dma_rd, dma_wr);
	sim.init();
	sim.bar0 = bar(0x10);
	sim.bar2 = bar(0x18);
	iatu_region0();
}

Test(ttsim, dma_read_channel_and_host_window_use_the_callbacks)
{
	sim_start_dma("grid:2x1");
	cr_expect_eq(bar2_rd(0x1000 + 0x14), 0x40000u);
	/* Host -> device: 8 KiB from host 0x1000 into L1 of (1,2) at 0x60000 through TLB 4. */
	for (unsigned i = 0; i < 8192; i++)
		host_mem[0x1000 + i] = (uint8_t)(i * 13 + 1);
	tlb2m(4, 1, 2, 0, false, 0, 0);
	bar2_wr(0x11C, 8192);
	bar2_wr(0x120, 0x1000);
	bar2_wr(0x124, 0);
	bar2_wr(0x128, 4 * MB2 + 0x60000);
	bar2_wr(0x12C, 0);
	bar2_wr(0x100, 1);
	bar2_wr(0x104, 1);
	cr_expect_eq(bar2_rd(0x11C), 0u, "transfer size reads 0 when done");
	uint8_t back[8192];
	sim.tile_rd(1, 2, 0x60000, back, sizeof back);
	cr_expect_arr_eq(back, host_mem + 0x1000, sizeof back);
	cr_expect_geq(dma_reads, 2u);
	/* The PCIe tile's host window (bit 60: window 4, through the iATU). */
	uint32_t v = 0xC0FFEE11u, w = 0;
	sim.tile_wr(19, 24, (1ull << 60) | 0x100, &v, 4);
	cr_expect_eq(dma_writes, 1u);
	host_copy(&w, 0x40100, 4);
	cr_expect_eq(w, v);
	w = 0;
	tlb2m(5, 19, 24, (1ull << 60), false, 0, 0);
	sim.mem_rd(sim.bar0 + 5ull * MB2 + 0x100, &w, 4);
	cr_expect_eq(w, v);
	cr_expect_eq(errors(NULL, 0), 0u);
	sim_stop();
}

/* One misuse: the call returns, the error count grows by one and the message starts as given. */
#define MISUSE(call, prefix) do { \
		char msg_[512]; \
		unsigned before_ = errors(NULL, 0); \
		call; \
		cr_expect_eq(errors(msg_, sizeof msg_), before_ + 1, "%s", #call); \
		cr_expect(!strncmp(msg_, prefix, strlen(prefix)), "%s: '%s'", #call, msg_); \
	} while (0)

Test(ttsim, misuse_prints_a_message_and_returns)
{
	sim_load("grid:2x1");
	uint32_t v = 0;
	uint8_t b[8];
	MISUSE(sim.cfg_rd(0, 0), "bhemu-ttsim: libttsim_pci_config_rd32: the simulator is not running");
	MISUSE(sim.mem_rd(0x100000000ull, &v, 4), "bhemu-ttsim: libttsim_pci_mem_rd_bytes: the simulator is not");
	cr_expect_eq(v, 0xFFFFFFFFu, "a failed read returns all-ones");
	MISUSE(sim.clock(1), "bhemu-ttsim: libttsim_clock: the simulator is not running");
	MISUSE(sim.exit(), "bhemu-ttsim: libttsim_exit: the simulator is not running");
	sim.init();
	sim.bar0 = bar(0x10);
	sim.bar2 = bar(0x18);
	MISUSE(sim.init(), "bhemu-ttsim: libttsim_init: the simulator is already running");
	MISUSE(sim.set_dma(dma_rd, dma_wr), "bhemu-ttsim: libttsim_set_pci_dma_mem_callbacks: install the callbacks "
	       "before libttsim_init");
	MISUSE(sim.cfg_rd(0, 2), "bhemu-ttsim: libttsim_pci_config_rd32: offset 0x2 is not 4-byte aligned");
	MISUSE(sim.cfg_wr(0, 0x11, 0), "bhemu-ttsim: libttsim_pci_config_wr32: offset 0x11 is not 4-byte aligned");
	MISUSE(sim.cfg_rd(1u << 8, 0), "bhemu-ttsim: libttsim_pci_config_rd32: bus_device_function 0x100");
	MISUSE(sim.cfg_rd(0, 0x100), "bhemu-ttsim: libttsim_pci_config_rd32: config space offset 0x100");
	MISUSE(sim.mem_rd(0x10, &v, 4), "bhemu-ttsim: libttsim_pci_mem_rd_bytes: address 0x10 is in no BAR");
	MISUSE(sim.mem_rd(sim.bar0 + 0x1A000000u, &v, 4), "bhemu-ttsim: libttsim_pci_mem_rd_bytes: BAR0 offset "
	       "0x1a000000: nothing is mapped there");
	MISUSE(sim.mem_wr(sim.bar0 + 0x1FC00002u, &v, 4), "bhemu-ttsim: libttsim_pci_mem_wr_bytes: BAR0 offset "
	       "0x1fc00002 (TLB configuration): 4 bytes; registers take 4-byte accesses at 4-byte aligned offsets");
	MISUSE(sim.mem_rd(sim.bar0 + MB2 - 4, b, 8), "bhemu-ttsim: libttsim_pci_mem_rd_bytes: TLB 0: offset 0x1ffffc");
	/* TLB 0 still aims at (0,0): nothing is there. */
	MISUSE(sim.mem_rd(sim.bar0, &v, 4), "bhemu-ttsim: TLB 0: no endpoint at NoC (0,0)");
	tlb2m(1, 1, 2, 0, false, 0, 0);
	MISUSE(sim.mem_rd(sim.bar0 + MB2 + L1_SIZE, &v, 4), "bhemu-ttsim: TLB 1: tile (1,2) address 0x180000");
	tlb2m(1, 1, 2, 0xFFA00000u, false, 0, 0);
	MISUSE(sim.mem_rd(sim.bar0 + MB2 + 0x1121B2, &v, 4), "bhemu-ttsim: TLB 1: tile (1,2) register 0xffb121b2, 4 bytes: "
	       "registers take 4-byte words at aligned addresses");
	tlb2m(2, 2, 2, 0, true, 1, 2);
	MISUSE(sim.mem_rd(sim.bar0 + 2 * MB2, &v, 4), "bhemu-ttsim: libttsim_pci_mem_rd_bytes: TLB 2 is a multicast");
	uint32_t bad = 1u << 20;   /* word 2 bit 20: reserved */
	sim.mem_wr(sim.bar0 + 0x1FC00000u + 12 * 3 + 8, &bad, 4);
	MISUSE(sim.mem_rd(sim.bar0 + 3 * MB2, &v, 4), "bhemu-ttsim: libttsim_pci_mem_rd_bytes: TLB 3: reserved "
	       "configuration bits");
	uint32_t one = 1, size = 64;
	sim.mem_wr(sim.bar2 + 0x11C, &size, 4);
	MISUSE(sim.mem_wr(sim.bar2 + 0x104, &one, 4), "bhemu-ttsim: DMA read channel: doorbell rung but no DMA "
	       "callbacks were installed");
	MISUSE(sim.tile_wr(19, 24, 1ull << 60, &v, 4), "bhemu-ttsim: libttsim_tile_wr_bytes: host memory 0x0 + 4 bytes "
	       "through the PCIe tile, but no DMA callbacks");
	MISUSE(sim.tile_rd(30, 30, 0, &v, 4), "bhemu-ttsim: libttsim_tile_rd_bytes: no endpoint at NoC (30,30)");
	MISUSE(sim.tile_rd(1, 2, 0, NULL, 4), "bhemu-ttsim: libttsim_tile_rd_bytes: NULL destination");
	/* Still alive and serving. */
	v = 0x600D;
	sim.tile_wr(1, 2, 0x100, &v, 4);
	v = 0;
	sim.tile_rd(1, 2, 0x100, &v, 4);
	cr_expect_eq(v, 0x600Du);
	sim.exit();
	/* Init again after exit is allowed. */
	sim.init();
	cr_expect_eq(sim.cfg_rd(0, 0), 0xB1401E52u);
	sim_stop();
}

Test(ttsim, clock_counts_ticks_and_returns)
{
	sim_start("grid:1x1");
	uint64_t (*ticks)(void) = (uint64_t (*)(void))sym("bhemu_ttsim_ticks");
	for (unsigned i = 0; i < 1000; i++)
		sim.clock(1);
	sim.clock(1000000);
	cr_expect_eq(ticks(), 1001000u);
	sim_stop();
}

/* Run p, then a self-loop, on BRISC of (1,2): held, loaded at 0x8000 through a TLB, jal at L1[0],
 * released. */
static void run_at_0x8000(struct prog *p)
{
	emit(p, INSN_SELF_LOOP);
	uint32_t jal0 = enc_j(0x8000, X0);
	wr32(1, 2, SOFT_RESET_0, 0x47800u);
	noc_wr(1, 1, 2, 0x8000, p->w, p->n * 4);
	noc_wr(1, 1, 2, 0, &jal0, 4);
	wr32(1, 2, SOFT_RESET_0, 0x47000u);
}

/* What fast dispatch does with host memory: a core writes to and reads from the PCIe tile's host
 * window (NoC address bit 60) with NoC requests; the data goes through the outbound iATU to the
 * DMA callbacks, on the core's (or the NoC's) thread. */
Test(ttsim, core_noc_requests_to_host_memory_reach_the_callbacks)
{
	sim_start_dma("grid:2x1");
	uint8_t out[64], in[64], got[64];
	for (unsigned i = 0; i < 64; i++) {
		out[i] = (uint8_t)(0xA0 + i);
		in[i] = (uint8_t)(0x11 * i + 5);
	}
	pthread_mutex_lock(&host_lock);
	memcpy(host_mem + 0x43000, in, sizeof in);
	pthread_mutex_unlock(&host_lock);
	const uint32_t pcie_xy = 19u | 24u << 6, bit60 = 1u << 28;
	struct prog p = { 0 };
	/* A posted write of 64 bytes from L1 0x20000 to host window 0x2000 (buffer 0), then a read
	 * of 64 bytes from host window 0x3000 into L1 0x40000 (buffer 1). */
	const uint32_t wr[][2] = { { N_CTRL, CTRL_WRITE_POSTED }, { N_TARG_LO, 0x20000 }, { N_TARG_MID, 0 },
		{ N_TARG_HI, TILE0_XY }, { N_RET_LO, 0x2000 }, { N_RET_MID, bit60 }, { N_RET_HI, pcie_xy },
		{ N_LEN, 64 }, { N_CMD_CTRL, 1 } };
	const uint32_t rd[][2] = { { N_CTRL, 0x2090u }, { N_TARG_LO, 0x3000 }, { N_TARG_MID, bit60 },
		{ N_TARG_HI, pcie_xy }, { N_RET_LO, 0x40000 }, { N_RET_MID, 0 }, { N_RET_HI, TILE0_XY },
		{ N_LEN, 64 }, { N_CMD_CTRL, 1 } };
	for (unsigned k = 0; k < N(wr); k++)
		emit_store_word(&p, CMDBUF0(0) + wr[k][0], wr[k][1]);
	for (unsigned k = 0; k < N(rd); k++)
		emit_store_word(&p, CMDBUF0(1) + rd[k][0], rd[k][1]);
	noc_wr(1, 1, 2, 0x20000, out, sizeof out);
	run_at_0x8000(&p);
	cr_expect(poll32(1, 2, 0x40000 + 60, 0xFFFFFFFFu, (uint32_t)in[60] | in[61] << 8 | in[62] << 16 |
			 (uint32_t)in[63] << 24), "the read from host memory landed in L1");
	noc_rd(1, 1, 2, 0x40000, got, sizeof got);
	cr_expect_arr_eq(got, in, sizeof in);
	double t0 = now_s();
	do {
		host_copy(got, 0x42000, sizeof got);
		sim.clock(1);
	} while (memcmp(got, out, sizeof out) && now_s() - t0 < 30.0);
	cr_expect_arr_eq(got, out, sizeof out, "the core's write reached host memory through the iATU");
	cr_expect_eq(errors(NULL, 0), 0u);
	sim_stop();
}

/* Without callbacks, a core's request to host memory is refused: a message, and the core faults. */
Test(ttsim, core_request_to_host_memory_without_callbacks_is_refused)
{
	char report[] = "/tmp/bhemu-ttsim-report-XXXXXX";
	int fd = mkstemp(report);
	cr_assert(fd >= 0);
	close(fd);
	setenv("BHEMU_TTSIM_REPORT", report, 1);
	sim_start("grid:1x1");
	struct prog p = { 0 };
	const uint32_t wr[][2] = { { N_CTRL, CTRL_WRITE_POSTED }, { N_TARG_LO, 0x20000 }, { N_TARG_MID, 0 },
		{ N_TARG_HI, TILE0_XY }, { N_RET_LO, 0x2000 }, { N_RET_MID, 1u << 28 }, { N_RET_HI, 19u | 24u << 6 },
		{ N_LEN, 64 }, { N_CMD_CTRL, 1 } };
	for (unsigned k = 0; k < N(wr); k++)
		emit_store_word(&p, CMDBUF0(0) + wr[k][0], wr[k][1]);
	run_at_0x8000(&p);
	char msg[512];
	double t0 = now_s();
	while (errors(msg, sizeof msg) == 0 && now_s() - t0 < 30.0)
		sim.clock(1);
	cr_expect(!strncmp(msg, "bhemu-ttsim: device write: host memory 0x2000 + 64 bytes through the PCIe tile, "
			   "but no DMA callbacks", 96), "'%s'", msg);
	/* The core's fault report goes to BHEMU_TTSIM_REPORT at the next host calls. */
	static char text[8192];
	size_t got = 0;
	t0 = now_s();
	while (!strstr(text, "refused by the host") && now_s() - t0 < 30.0) {
		sim.clock(1);
		FILE *f = fopen(report, "r");
		got = f ? fread(text, 1, sizeof text - 1, f) : 0;
		text[got] = 0;
		if (f)
			fclose(f);
	}
	cr_expect(strstr(text, "bhemu-ttsim: ") && strstr(text, "brisc") &&
		  strstr(text, "NoC0 write of 64 bytes to host memory 0x1000000000002000: refused by the host"),
		  "report file: '%s'", text);
	sim_stop();
	unlink(report);
	unsetenv("BHEMU_TTSIM_REPORT");
}

/* ARC as tt-umd reads it at bring-up, through a TLB at (8,0): boot status, the telemetry table
 * behind scratch_ram[13] / [12], and a message through queue 0 answered at the doorbell. */
static uint32_t arc_rd(uint32_t addr)
{
	uint32_t v = 0;
	noc_rd(11, 8, 0, addr, &v, 4);
	return v;
}

static void arc_wr(uint32_t addr, uint32_t v)
{
	noc_wr(11, 8, 0, addr, &v, 4);
}

/* Telemetry value of tag, or 0xDEAD if the table has no such tag. */
static uint32_t telemetry(uint16_t tag)
{
	uint32_t table = arc_rd(0x80030400u + 4 * 13), values = arc_rd(0x80030400u + 4 * 12);
	uint32_t n = arc_rd(table + 4);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t e = arc_rd(table + 8 + 4 * i);
		if ((e & 0xFFFF) == tag)
			return arc_rd(values + 4 * (e >> 16));
	}
	return 0xDEAD;
}

/* Queue 0: request slot at wr_ptr, bump wr_ptr, ring ARC_MISC_CNTL bit 16; the response. */
static uint32_t arc_message(uint32_t code)
{
	uint32_t qcb = arc_rd(0x80030400u + 4 * 11);
	uint32_t q = arc_rd(qcb), entries = arc_rd(qcb + 4) & 0xFF;
	uint32_t wr = arc_rd(q), res = arc_rd(q + 0x14);
	arc_wr(q + 32 + (wr % entries) * 32, code);
	arc_wr(q, (wr + 1) % (2 * entries));
	arc_wr(0x80030100u, 1u << 16);
	cr_expect_eq(arc_rd(q + 0x14), (res + 1) % (2 * entries), "the response pointer moved");
	return arc_rd(q + 32 + entries * 32 + (res % entries) * 32);
}

Test(ttsim, arc_answers_what_bring_up_reads)
{
	sim_start("p150");
	cr_expect_eq(arc_rd(0x80030400u + 4 * 2), 0x5u, "boot status: started, takes messages");
	cr_expect_eq(telemetry(1), 0x400u, "board id high: P150");
	cr_expect_eq(telemetry(14), 1000u, "AICLK");
	cr_expect_eq(telemetry(22), 0x5555u, "GDDR: 8 channels trained");
	cr_expect_eq(telemetry(34), 0x3FFFu, "14 Tensix columns enabled");
	cr_expect_eq(telemetry(35), 0u, "no Ethernet enabled");
	cr_expect_eq(telemetry(28), 0x12050000u, "flash bundle 18.5");
	cr_expect_eq(arc_message(0x57) & 0xFF, 0u, "GET_HARVESTING: nothing harvested");
	cr_expect_eq(arc_message(0x58), 1u, "DRAM trained");
	cr_expect_eq(errors(NULL, 0), 0u);
	MISUSE(cr_expect_eq(arc_message(0x42) & 0xFF, 0xFFu), "bhemu-ttsim: TLB 11: ARC message 0x42 (queue 0) is not "
	       "modelled");
	uint32_t v;
	MISUSE(noc_rd(11, 8, 0, 0x80040000u, &v, 4), "bhemu-ttsim: TLB 11: ARC 0x80040000 + 4 bytes: only the CSM");
	sim_stop();
}
