/* libbhemu_ttsim.so driven the way tt-umd's simulator path drives libttsim (include/bhemu/ttsim.h):
 * dlopen the library, resolve the symbols, probe config space and size the BARs, program TLBs in
 * the Blackhole layout and reach every tile's L1 through them, DRAM through a 4 GiB window, load
 * the reference firmware through the TLB windows and run the boot handshake, launch built kernels
 * by slow dispatch as tt-metal does (kernel-config area, launch message, GO, DONE), start a
 * bare-metal program with a soft-reset pulse and poll its result with libttsim_clock(1) after every read,
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
#include "cores/cq_cmds.h"
#include "cores/cq_model.h"
#include "host/elf.h"
#include "host/kernel.h"
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
	int (*cq_start)(unsigned, uint32_t, uint32_t, uint32_t);
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
	sim.cq_start = (int (*)(unsigned, uint32_t, uint32_t, uint32_t))sym("bhemu_ttsim_cq_start");
}

static uint64_t bar_of(unsigned dev, unsigned lo)
{
	return ((uint64_t)sim.cfg_rd(dev << 3, lo + 4) << 32 | sim.cfg_rd(dev << 3, lo)) & ~15ull;
}

static uint64_t bar(unsigned lo)
{
	return bar_of(0, lo);
}

/* Every later access goes to PCI device (chip) dev: its BARs, as its config space gives them. */
static void sim_select(unsigned dev)
{
	sim.bar0 = bar_of(dev, 0x10);
	sim.bar2 = bar_of(dev, 0x18);
	sim.bar4 = bar_of(dev, 0x20);
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
	cr_assert_eq(bh_soc_descriptor(BH_BOARD_GRID, NULL, 0), BH_ERR_ARG);
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

/* The reference firmware's PT_LOAD segments through 2 MiB TLB 2 aimed at (x1, y1), multicast from
 * (x0, y0) unless the rectangle is one tile: L1 ones in place, the local-RAM one staged at the
 * profile's ldm_scratch (the firmware copies it in). */
static void load_fw(unsigned x0, unsigned y0, unsigned x1, unsigned y1, const struct bh_profile *p, unsigned core)
{
	char path[512], err[256];
	bool mcast = x0 != x1 || y0 != y1;
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
			tlb2m(2, x1, y1, (at + o) & ~(MB2 - 1), mcast, x0, y0);
			sim.mem_wr(sim.bar0 + 2ull * MB2 + ((at + o) & (MB2 - 1)), img + o, len);
		}
		free(img);
	}
	bh_elf_close(e);
}

/* The bank tables the firmware copies at boot (noc.md 9), for the profile's bank counts: DRAM bank
 * b at port 0 of tt-umd's translated Blackhole DRAM coordinates (x 17 for banks 0-3, 18 for 4-7,
 * y 12 + 3 (b % 4)), L1 bank b on worker b, every offset 0. */
static void bank_tables(const struct bh_profile *p, const unsigned *xs, const unsigned *ys, unsigned n,
			uint8_t *out, uint32_t *len)
{
	unsigned nd = p->num_dram_banks, nl = p->num_l1_banks;
	uint16_t *xy = (uint16_t *)out;
	*len = 8 * nd + 8 * nl;
	memset(out, 0, *len);
	for (unsigned noc = 0; noc < 2; noc++) {
		for (unsigned b = 0; b < nd; b++)
			xy[noc * nd + b] = (uint16_t)((12 + 3 * (b % 4)) << 6 | (b < 4 ? 17 : 18));
		for (unsigned b = 0; b < nl && b < n; b++)
			xy[2 * nd + noc * nl + b] = (uint16_t)(ys[b] << 6 | xs[b]);
	}
}

/* Workers as tt-metal addresses them: translated coordinates of logical worker k (column k % cols,
 * row k / cols), their bounding rectangle, and whether writes common to all of them go by one
 * multicast over that rectangle (which the NoC delivers to its Tensix tiles only) or one by one. */
struct workers {
	unsigned n, cols, x[140], y[140], x0, y0, x1, y1;
	bool mcast;
};

static void workers_set(struct workers *w, unsigned n, unsigned cols, bool mcast)
{
	w->n = n;
	w->cols = cols;
	w->mcast = mcast;
	w->x0 = w->y0 = 255;
	w->x1 = w->y1 = 0;
	for (unsigned k = 0; k < n; k++) {
		w->x0 = w->x[k] < w->x0 ? w->x[k] : w->x0;
		w->y0 = w->y[k] < w->y0 ? w->y[k] : w->y0;
		w->x1 = w->x[k] > w->x1 ? w->x[k] : w->x1;
		w->y1 = w->y[k] > w->y1 ? w->y[k] : w->y1;
	}
}

/* The same bytes to addr of every worker: one multicast through TLB 9, or a unicast each. */
static void workers_wr(const struct workers *w, uint32_t addr, const void *src, uint32_t n)
{
	if (!w->mcast) {
		for (unsigned k = 0; k < w->n; k++)
			noc_wr(1, w->x[k], w->y[k], addr, src, n);
		return;
	}
	tlb2m(9, w->x1, w->y1, addr & ~(MB2 - 1), true, w->x0, w->y0);
	sim.mem_wr(sim.bar0 + 9ull * MB2 + (addr & (MB2 - 1)), src, n);
}

/* Boot the reference firmware on the workers as the host does it, through TLB windows only: hold
 * every core, load the images, the jal at L1[0], RUN_MSG_INIT, the bank tables, each worker's
 * logical position, release BRISC, wait for DONE. */
static void boot_workers(const struct bh_profile *p, const struct workers *w)
{
	uint32_t jal0 = enc_j((int32_t)p->fw_base[0], X0), tlen, init = 0x40u << 24;   /* RUN_MSG_INIT */
	static uint8_t tables[4096];
	bank_tables(p, w->x, w->y, w->n, tables, &tlen);
	for (unsigned k = 0; k < w->n; k++)
		wr32(w->x[k], w->y[k], SOFT_RESET_0, 0x47800u);
	for (unsigned c = 0; w->mcast && c < 5; c++)
		load_fw(w->x0, w->y0, w->x1, w->y1, p, c);
	for (unsigned k = 0; k < w->n; k++)
		for (unsigned c = 0; !w->mcast && c < 5; c++)
			load_fw(w->x[k], w->y[k], w->x[k], w->y[k], p, c);
	workers_wr(w, 0, &jal0, 4);
	workers_wr(w, p->mailbox_base + p->go_messages_base, &init, 4);
	workers_wr(w, p->bank_scratch, tables, tlen);
	for (unsigned k = 0; k < w->n; k++) {
		uint8_t lxy[2] = { (uint8_t)(k % w->cols), (uint8_t)(k / w->cols) };
		noc_wr(1, w->x[k], w->y[k], p->mailbox_base + p->core_info_logical_x, &lxy[0], 1);
		noc_wr(1, w->x[k], w->y[k], p->mailbox_base + p->core_info_logical_y, &lxy[1], 1);
	}
	for (unsigned k = 0; k < w->n; k++)
		wr32(w->x[k], w->y[k], SOFT_RESET_0, 0x47000u);
	for (unsigned k = 0; k < w->n; k++)
		cr_assert(poll32(w->x[k], w->y[k], p->mailbox_base + p->go_messages_base, 0xFF000000u, 0),
			  "(%u,%u) go signal 0x%x", w->x[k], w->y[k],
			  rd32(w->x[k], w->y[k], p->mailbox_base + p->go_messages_base));
}

/* The workers of a cols x rows grid board ((1,2) up), row by row, booted. */
static void boot_grid(const struct bh_profile *p, struct workers *w, unsigned cols, unsigned rows, bool mcast)
{
	for (unsigned k = 0; k < cols * rows; k++) {
		w->x[k] = 1 + k % cols;
		w->y[k] = 2 + k / cols;
	}
	workers_set(w, cols * rows, cols, mcast);
	boot_workers(p, w);
}

static void boot_ref_fw(const struct bh_profile *p)
{
	static struct workers w;
	boot_grid(p, &w, 2, 2, false);
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

static void launch_marker_kernels(const struct bh_profile *p, uint32_t base);

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
	for (uint32_t launch = 1; launch <= 3; launch++)
		launch_marker_kernels(p, launch * 1000);
	char msg[512] = "";
	cr_expect_eq(errors(msg, sizeof msg), 0u, "%s", msg);
	sim_stop();
}

/* One slow-dispatch launch on the 2x2 grid's workers: each runs `*0x30000 = base + x * 10 + y`. */
static void launch_marker_kernels(const struct bh_profile *p, uint32_t base)
{
	const uint32_t text = 0x400, marker = 0x30000, go = p->mailbox_base + p->go_messages_base;
	{
		for (unsigned y = 2; y <= 3; y++)
			for (unsigned x = 1; x <= 2; x++) {
				/* kernel_main: *marker = value; return */
				uint32_t k[8], n = 0, value = base + x * 10 + y;
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
				cr_expect(poll32(x, y, go, 0xFF000000u, 0), "launch %u: (%u,%u) go signal 0x%x", base, x, y,
					  rd32(x, y, go));
				cr_expect_eq(rd32(x, y, marker), base + x * 10 + y, "launch %u: (%u,%u) ran the kernel", base,
					     x, y);
			}
	}
}

/* BHEMU_TTSIM_CHIPS=2: the reference firmware boots on each chip through that chip's TLB windows,
 * and launches on one chip run there only. */
Test(ttsim, reference_firmware_boots_and_launches_on_each_of_two_chips, .timeout = 120)
{
	if (access(REF_FW "/brisc.elf", R_OK) != 0)
		cr_skip_test("reference firmware not built (%s)", REF_FW);
	const struct bh_profile *p = bh_profile_default();
	setenv("BHEMU_TTSIM_CHIPS", "2", 1);
	sim_start("grid:2x2");
	for (unsigned d = 0; d < 2; d++) {
		sim_select(d);
		boot_ref_fw(p);
	}
	for (uint32_t launch = 1; launch <= 2; launch++)
		for (unsigned d = 0; d < 2; d++) {
			sim_select(d);
			launch_marker_kernels(p, launch * 1000 + d * 100);
			if (d == 1) {
				sim_select(0);   /* chip 0 kept its own launch's values */
				cr_expect_eq(rd32(2, 3, 0x30000), launch * 1000 + 23);
			}
		}
	char msg[512] = "";
	cr_expect_eq(errors(msg, sizeof msg), 0u, "%s", msg);
	sim_stop();
}

/* A fresh report file named in BHEMU_TTSIM_REPORT (for the library's next libttsim_init). */
static void report_file(char *path)
{
	strcpy(path, "/tmp/bhemu-ttsim-report-XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	close(fd);
	setenv("BHEMU_TTSIM_REPORT", path, 1);
}

/* The report file's text once it holds want, clocking the library (its host calls write the
 * reports); what it holds after 30 s otherwise. */
static const char *report_wait(const char *path, const char *want)
{
	static char text[16384];
	double t0 = now_s();
	text[0] = 0;
	while (!strstr(text, want) && now_s() - t0 < 30.0) {
		sim.clock(1);
		FILE *f = fopen(path, "r");
		size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
		text[got] = 0;
		if (f)
			fclose(f);
	}
	return text;
}

static void report_done(const char *path)
{
	unlink(path);
	unsetenv("BHEMU_TTSIM_REPORT");
}

/* ---- tt-metal programs by slow dispatch, through the ABI only --------------------------------
 * What tt-metal's host does for a program without a command queue (launch.md 9-11, firmware/kernel/
 * ABI.md 5): lay out the kernel-config area (runtime args and common runtime args of each
 * processor, semaphores, local CB configs, kernel images, each 16-byte aligned), write it into
 * every worker's L1 through TLB windows, RESET_READ_PTR_FROM_HOST until the firmware has zeroed
 * launch_msg_rd_ptr, the launch message in launch[0], GO, and poll every go signal for DONE with
 * libttsim_clock(1) after each read. Kernels are the ones bhemu_kernel() built; their images are
 * relocated for their slot here, as tt-metal links its kernels for theirs. */
#define KERNELS BHEMU_BINARY_DIR "/kernels"
#define CB_ADDR 0x20000u
#define OUT_ADDR 0x30000u

struct tt_prog {
	const char *elf[5];                     /* kernel of each processor, NULL: none */
	uint32_t crta[5][2];
	unsigned ncrta[5], nrta[5];
	void (*rta)(unsigned k, unsigned proc, uint32_t out[8]);   /* worker k's runtime args */
	uint32_t cb0[4];                        /* CB 0: address, bytes, pages, page size (bytes 0: none) */
	uint32_t sem0;                          /* semaphore 0's initial value */
	/* Layout, offsets from kernel_config_base. */
	uint32_t rta_off[5], crta_off[5], sem_off, cb_off, remote_cb_off, text_off[5], size;
	uint8_t blob[0x9000];                   /* [cb_off, size): CB configs and images */
};

static uint32_t align16(uint32_t v)
{
	return (v + 15u) & ~15u;
}

static void tt_layout(struct tt_prog *g, const struct bh_profile *p)
{
	struct bh_kernel_image *img[5] = { 0 };
	uint32_t at = 0;
	char err[512];
	for (unsigned c = 0; c < 5; c++) {
		g->rta_off[c] = at;
		at = align16(at + 4 * g->nrta[c]);
		g->crta_off[c] = at;
		at = align16(at + 4 * g->ncrta[c]);
	}
	g->sem_off = at;
	at += 16;
	g->cb_off = at;
	at += g->cb0[1] ? 16 : 0;
	g->remote_cb_off = at;
	for (unsigned c = 0; c < 5; c++) {
		g->text_off[c] = at;
		if (!g->elf[c])
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/%s.elf", KERNELS, g->elf[c]);
		img[c] = bh_kernel_load(path, err, sizeof err);
		cr_assert_not_null(img[c], "%s", err);
		at = align16(at + img[c]->size);
	}
	g->size = at;
	cr_assert_leq(g->size - g->cb_off, sizeof g->blob);
	memset(g->blob, 0, sizeof g->blob);
	if (g->cb0[1])
		memcpy(g->blob, g->cb0, 16);
	for (unsigned c = 0; c < 5; c++)
		if (img[c]) {
			uint8_t *slot = g->blob + g->text_off[c] - g->cb_off;
			uint32_t at_l1 = p->kernel_config_base + g->text_off[c];
			cr_assert_eq(bh_kernel_place(img[c], at_l1, slot, err, sizeof err), 0, "%s", err);
			bh_kernel_unref(img[c]);
		}
}

static void put16(uint8_t *m, unsigned off, uint32_t v)
{
	m[off] = (uint8_t)v;
	m[off + 1] = (uint8_t)(v >> 8);
}

/* launch_msg_t of the profile (host/profile.h LM_*): HOST mode, no remote CBs. */
static void tt_launch_msg(const struct tt_prog *g, const struct bh_profile *p, uint32_t id, uint8_t *m)
{
	uint32_t enables = 0, cb_mask = g->cb0[1] ? 1 : 0;
	memset(m, 0, LM_SIZE);
	for (unsigned c = 0; c < 3; c++)
		memcpy(m + LM_KCB + 4 * c, &p->kernel_config_base, 4);
	put16(m, LM_SEM_OFF, g->sem_off);
	put16(m, LM_LOCAL_CB_OFF, g->cb_off);
	put16(m, LM_REMOTE_CB_OFF, g->remote_cb_off);
	for (unsigned c = 0; c < 5; c++) {
		put16(m, LM_RTA_OFF + 4 * c, g->rta_off[c]);
		put16(m, LM_RTA_OFF + 4 * c + 2, g->crta_off[c]);
		memcpy(m + LM_TEXT_OFF + 4 * c, &g->text_off[c], 4);
		enables |= g->elf[c] ? 1u << c : 0;
	}
	m[LM_MODE] = 1;                 /* DISPATCH_MODE_HOST */
	memcpy(m + LM_LOCAL_CB_MASK, &cb_mask, 4);
	m[LM_MIN_REMOTE_CB] = 32;       /* no remote CBs */
	memcpy(m + LM_HOST_ID, &id, 4);
	memcpy(m + LM_ENABLES, &enables, 4);
}

/* Writes the program into every worker and sends GO with message m (built by tt_launch_msg, or
 * broken by a misuse test); returns without waiting. Every worker gets RESET_READ_PTR_FROM_HOST
 * (with multicast: one for all), and once each firmware has zeroed launch_msg_rd_ptr, its launch
 * message and GO (with multicast: one each for all). Until GO, every BRISC keeps storing 0 to the
 * pointer, which already holds 0: a silent store, so it parks meanwhile. */
static void tt_send(const struct tt_prog *g, const struct bh_profile *p, const struct workers *w, const uint8_t *m)
{
	const uint32_t kcb = p->kernel_config_base, go = p->mailbox_base + p->go_messages_base;
	const uint32_t rd_ptr = p->mailbox_base + p->launch_msg_rd_ptr;
	for (unsigned k = 0; k < w->n; k++) {
		uint8_t args[0x400] = { 0 };
		cr_assert_leq(g->cb_off, sizeof args);
		for (unsigned c = 0; c < 5; c++) {
			uint32_t r[8] = { 0 };
			if (!g->elf[c])
				continue;
			g->rta(k, c, r);
			memcpy(args + g->rta_off[c], r, 4 * g->nrta[c]);
			memcpy(args + g->crta_off[c], g->crta[c], 4 * g->ncrta[c]);
		}
		memcpy(args + g->sem_off, &g->sem0, 4);
		noc_wr(1, w->x[k], w->y[k], kcb, args, g->cb_off);
	}
	uint32_t zero = 0, reset = 0xE0u << 24, gosig = 0x80u << 24;   /* RESET_READ_PTR_FROM_HOST, GO */
	workers_wr(w, kcb + g->cb_off, g->blob, g->size - g->cb_off);
	workers_wr(w, p->mailbox_base + p->go_message_index, &zero, 4);
	if (w->mcast) {
		workers_wr(w, go, &reset, 4);
		for (unsigned k = 0; k < w->n; k++)
			cr_assert(poll32(w->x[k], w->y[k], rd_ptr, 0xFFFFFFFFu, 0),
				  "(%u,%u): the firmware did not reset launch_msg_rd_ptr", w->x[k], w->y[k]);
		workers_wr(w, p->mailbox_base + p->launch_base, m, LM_SIZE);
		workers_wr(w, go, &gosig, 4);
		return;
	}
	for (unsigned k = 0; k < w->n; k++) {
		wr32(w->x[k], w->y[k], go, reset);
		cr_assert(poll32(w->x[k], w->y[k], rd_ptr, 0xFFFFFFFFu, 0),
			  "(%u,%u): the firmware did not reset launch_msg_rd_ptr", w->x[k], w->y[k]);
		noc_wr(1, w->x[k], w->y[k], p->mailbox_base + p->launch_base, m, LM_SIZE);
		wr32(w->x[k], w->y[k], go, gosig);
	}
}

/* Launch g on every worker and wait for DONE on each. */
static void tt_launch(const struct tt_prog *g, const struct bh_profile *p, const struct workers *w, uint32_t id)
{
	uint8_t m[LM_SIZE];
	tt_launch_msg(g, p, id, m);
	tt_send(g, p, w, m);
	for (unsigned k = 0; k < w->n; k++) {
		uint32_t go = p->mailbox_base + p->go_messages_base;
		cr_assert(poll32(w->x[k], w->y[k], go, 0xFF000000u, 0), "launch %u: (%u,%u) go signal 0x%x", id,
			  w->x[k], w->y[k], rd32(w->x[k], w->y[k], go));
	}
}

/* k_args_brisc and k_args_ncrisc (examples/kernels/k_args.c): what the kernel ABI handed them. */
enum { A_PROC, A_CT_COUNT, A_CT0, A_RTA1 = A_CT0 + 4, A_RTA2, A_CRTA0, A_CRTA1, A_SEM_ADDR, A_SEM_VALUE, A_LX, A_LY,
       A_CB_BYTES, A_CB_PAGES, A_CB_PAGE_SIZE, A_DATA_SEED, A_RODATA, A_FN_TABLE, A_WORDS };

static void args_rta(unsigned k, unsigned c, uint32_t *r)
{
	r[0] = OUT_ADDR + 0x100 * c;
	r[1] = 0x10000u * k + 0x100 + c;
	r[2] = 0x20000u * k + 0x200 + c;
}

static void args_check(const struct tt_prog *g, const struct bh_profile *p, const struct workers *w)
{
	for (unsigned k = 0; k < w->n; k++)
		for (unsigned c = 0; c < 2; c++) {
			uint32_t o[A_WORDS];
			noc_rd(5, w->x[k], w->y[k], OUT_ADDR + 0x100 * c, o, sizeof o);
			const uint32_t want[A_WORDS] = { c, 3, 11, 22, 33, 0, 0x10000u * k + 0x100 + c,
				0x20000u * k + 0x200 + c, g->crta[c][0], g->crta[c][1],
				p->kernel_config_base + g->sem_off,
				g->sem0, k % w->cols, k / w->cols, g->cb0[1], g->cb0[2], g->cb0[3], 0x5EED0001u + c,
				0xC0DE0000u + c, 0xF00D0000u + c };
			for (unsigned i = 0; i < A_WORDS; i++)
				cr_expect_eq(o[i], want[i], "(%u,%u) %s word %u: 0x%x, want 0x%x", w->x[k], w->y[k],
					     c ? "ncrisc" : "brisc", i, o[i], want[i]);
		}
}

/* k_cb_fill (BRISC) pushes 6 pages into CB 0 (4 pages of 64 bytes), k_cb_check (NCRISC) pops and
 * checks them: word i of page p is seed + 1000 p + i. */
#define CB_PAGES_PUSHED 6u

static uint32_t cb_seed(unsigned k)
{
	return 0x01000000u * (k + 1) + 7;
}

static void cb_rta(unsigned k, unsigned c, uint32_t *r)
{
	r[0] = 0;
	r[1] = CB_PAGES_PUSHED;
	r[2] = cb_seed(k);
	r[3] = OUT_ADDR;    /* k_cb_check only */
	(void)c;
}

static void cb_check(const struct workers *w)
{
	for (unsigned k = 0; k < w->n; k++) {
		uint32_t out[2], ring[64];
		noc_rd(5, w->x[k], w->y[k], OUT_ADDR, out, sizeof out);
		cr_expect(out[0] == 0 && out[1] == CB_PAGES_PUSHED, "(%u,%u): %u wrong words in %u pages", w->x[k],
			  w->y[k], out[0], out[1]);
		/* The ring holds the last four pages pushed, page p in slot p % 4. */
		noc_rd(5, w->x[k], w->y[k], CB_ADDR, ring, sizeof ring);
		for (unsigned pg = CB_PAGES_PUSHED - 4; pg < CB_PAGES_PUSHED; pg++)
			for (unsigned i = 0; i < 16; i++)
				cr_expect_eq(ring[16 * (pg % 4) + i], cb_seed(k) + 1000 * pg + i,
					     "(%u,%u) page %u word %u", w->x[k], w->y[k], pg, i);
	}
}

/* k_loopback (BRISC): worker k copies pages 2k, 2k+1 of an interleaved DRAM buffer (256-byte pages
 * over the profile's DRAM banks) to the same pages of another, through L1 0x40000. */
#define DRAM_SRC 0x100000u
#define DRAM_DST 0x200000u
#define DRAM_PAGE 256u

static void loop_rta(unsigned k, unsigned c, uint32_t *r)
{
	const uint32_t v[6] = { DRAM_SRC, DRAM_DST, DRAM_PAGE, 2 * k, 2, 0x40000 };
	memcpy(r, v, sizeof v);
	(void)c;
}

/* Page pg of the buffer at base through 4 GiB TLB 1 aimed at its bank (the bank tables' place). */
static void dram_page(const struct bh_profile *p, uint32_t base, unsigned pg, void *buf, bool write)
{
	unsigned b = pg % p->num_dram_banks;
	tlb4g(1, b < 4 ? 17 : 18, 12 + 3 * (b % 4), 0);
	uint64_t at = sim.bar4 + (1ull << 32) + base + (pg / p->num_dram_banks) * DRAM_PAGE;
	if (write)
		sim.mem_wr(at, buf, DRAM_PAGE);
	else
		sim.mem_rd(at, buf, DRAM_PAGE);
}

static void slow_dispatch_programs(const char *board, unsigned cols, unsigned rows, bool mcast)
{
	if (access(KERNELS "/k_args_brisc.elf", R_OK) != 0)
		cr_skip_test("kernels not built (%s)", KERNELS);
	const struct bh_profile *p = bh_profile_default();
	static struct workers w;
	sim_start(board);
	if (cols) {
		boot_grid(p, &w, cols, rows, mcast);
	} else {
		unsigned n = soc_workers(w.x, w.y);
		workers_set(&w, n, 14, mcast);
		boot_workers(p, &w);
	}
	static struct tt_prog args = { .elf = { "k_args_brisc", "k_args_ncrisc" }, .nrta = { 3, 3 }, .ncrta = { 2, 2 },
		.crta = { { 0xC0000000u, 0xC1000000u }, { 0xC0000001u, 0xC1000001u } }, .rta = args_rta,
		.cb0 = { CB_ADDR, 4 * 64, 4, 64 }, .sem0 = 0x5E3A };
	static struct tt_prog cb = { .elf = { "k_cb_fill", "k_cb_check" }, .nrta = { 3, 4 }, .rta = cb_rta,
		.cb0 = { CB_ADDR, 4 * 64, 4, 64 } };
	static struct tt_prog loop = { .elf = { "k_loopback" }, .nrta = { 6 }, .rta = loop_rta };
	tt_layout(&args, p);
	tt_layout(&cb, p);
	tt_layout(&loop, p);
	/* Twice each: the second launch runs on firmware that has run kernels before. */
	for (uint32_t run = 0; run < 2; run++) {
		uint8_t zero[0x200] = { 0 };
		workers_wr(&w, OUT_ADDR, zero, sizeof zero);
			tt_launch(&args, p, &w, 1 + 3 * run);
			args_check(&args, p, &w);
		tt_launch(&cb, p, &w, 2 + 3 * run);
		cb_check(&w);
	}
	uint8_t page[DRAM_PAGE], back[DRAM_PAGE];
	for (unsigned pg = 0; pg < 2 * w.n; pg++) {
		for (unsigned i = 0; i < DRAM_PAGE; i++)
			page[i] = (uint8_t)(pg * 7 + i * 3 + 1);
		dram_page(p, DRAM_SRC, pg, page, true);
	}
	tt_launch(&loop, p, &w, 3);
	for (unsigned pg = 0; pg < 2 * w.n; pg++) {
		for (unsigned i = 0; i < DRAM_PAGE; i++)
			page[i] = (uint8_t)(pg * 7 + i * 3 + 1);
		dram_page(p, DRAM_DST, pg, back, false);
		cr_expect_arr_eq(back, page, DRAM_PAGE, "DRAM page %u copied by worker %u", pg, pg / 2);
	}
	char msg[512] = "";
	cr_expect_eq(errors(msg, sizeof msg), 0u, "%s", msg);
	sim_stop();
}

/* Built kernels with runtime args, common runtime args, a semaphore, a CB between BRISC and NCRISC,
 * and DRAM, on every worker of a P150; what is common to all workers multicast, as tt-metal's
 * dispatch does. */
Test(ttsim, slow_dispatch_runs_built_kernels_on_every_p150_worker, .timeout = 300)
{
	slow_dispatch_programs("p150", 0, 0, true);
}

/* The same with every write unicast, on a small grid. */
Test(ttsim, slow_dispatch_runs_built_kernels_written_tile_by_tile, .timeout = 120)
{
	slow_dispatch_programs("grid:3x2", 3, 2, false);
}

/* Bad launch message fields written through the ABI: the firmware runs what they say, the core
 * that goes astray faults, its report names it and why, and the chip keeps serving. Worker 0 gets
 * a BRISC kernel text offset past L1, worker 1 an NCRISC one where no kernel was written (zero
 * words); worker 2 then runs a good launch. */
Test(ttsim, bad_launch_message_fields_fault_the_core_with_a_report, .timeout = 120)
{
	if (access(KERNELS "/k_args_brisc.elf", R_OK) != 0)
		cr_skip_test("kernels not built (%s)", KERNELS);
	const struct bh_profile *p = bh_profile_default();
	char report[64];
	report_file(report);
	sim_start("grid:3x1");
	static struct workers all, one;
	boot_grid(p, &all, 3, 1, false);
	static struct tt_prog args = { .elf = { "k_args_brisc", "k_args_ncrisc" }, .nrta = { 3, 3 }, .ncrta = { 2, 2 },
		.rta = args_rta, .cb0 = { CB_ADDR, 4 * 64, 4, 64 }, .sem0 = 1 };
	tt_layout(&args, p);
	const uint32_t go = p->mailbox_base + p->go_messages_base, past_l1 = L1_SIZE + 0x1000;
	uint8_t m[LM_SIZE];
	uint32_t off = past_l1 - p->kernel_config_base, nowhere = align16(args.size + 0x400);
	char want[160];

	one = all;
	workers_set(&one, 1, 3, false);
	tt_launch_msg(&args, p, 1, m);
	memcpy(m + LM_TEXT_OFF, &off, 4);
	tt_send(&args, p, &one, m);
	snprintf(want, sizeof want, "  why: jump to 0x%08x: instructions can only be fetched from L1 [0x0, 0x180000)\n",
		 past_l1);
	const char *text = report_wait(report, want);
	cr_expect(strstr(text, "bhemu-ttsim: fault: instruction fetch outside L1 on tile 0 (1,2) core brisc\n") &&
		  strstr(text, want), "report file: '%s'", text);
	cr_expect_eq(rd32(1, 2, go) >> 24, 0x80u, "(1,2) never reports DONE");

	one.x[0] = 2;
	tt_launch_msg(&args, p, 2, m);
	memcpy(m + LM_TEXT_OFF + 4, &nowhere, 4);
	tt_send(&args, p, &one, m);
	snprintf(want, sizeof want, "bhemu-ttsim: fault: illegal instruction on tile 1 (2,2) core ncrisc\n"
		 "  pc 0x%08x: 00000000", p->kernel_config_base + nowhere);
	text = report_wait(report, want);
	cr_expect(strstr(text, want), "report file: '%s'", text);
	cr_expect_eq(rd32(2, 2, go) >> 24, 0x80u, "(2,2) never reports DONE");

	one.x[0] = 3;
	uint8_t zero[0x200] = { 0 };
	noc_wr(1, 3, 2, OUT_ADDR, zero, sizeof zero);
	tt_launch(&args, p, &one, 3);
	uint32_t lx = 0;
	noc_rd(5, 3, 2, OUT_ADDR + 4 * A_RTA1, &lx, 4);
	cr_expect_eq(lx, 0x100u, "(3,2) ran its kernel");
	cr_expect_eq(errors(NULL, 0), 0u, "no ABI misuse in any of it");
	sim_stop();
	report_done(report);
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

/* Poll host memory at a (clock(1) after each look, 30 s at most: a hang) until it holds want. */
static void host_wait(uint8_t *got, uint64_t a, const uint8_t *want, uint32_t n)
{
	double t0 = now_s();
	do {
		host_copy(got, a, n);
		sim.clock(1);
	} while (memcmp(got, want, n) && now_s() - t0 < 30.0);
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
	host_wait(got, 0x42000, out, sizeof out);
	cr_expect_arr_eq(got, out, sizeof out, "the core's write reached host memory through the iATU");
	cr_expect_eq(errors(NULL, 0), 0u);
	sim_stop();
}

/* Without callbacks, a core's request to host memory is refused: a message, and the core faults. */
Test(ttsim, core_request_to_host_memory_without_callbacks_is_refused)
{
	char report[64];
	report_file(report);
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
	const char *text = report_wait(report, "refused by the host");
	cr_expect(strstr(text, "bhemu-ttsim: ") && strstr(text, "brisc") &&
		  strstr(text, "NoC0 write of 64 bytes to host memory 0x1000000000002000: refused by the host"),
		  "report file: '%s'", text);
	sim_stop();
	report_done(report);
}

/* A Tensix instruction BRISC pushed faults in its thread while BRISC goes on pushing: the report
 * file names that instruction, why and the pc of its push, not a later push into the stopped
 * thread. */
Test(ttsim, tensix_fault_report_names_the_faulting_instruction_not_a_later_push)
{
	char report[64];
	report_file(report);
	sim_start("grid:1x1");
	struct prog p = { 0 };
	emit_li(&p, T0, 0xFFE40000u);             /* BRISC's push window of Tensix thread 0 */
	emit_li(&p, T1, 0xA0000001u);             /* ATGETM 1: mutex 1 does not exist */
	uint32_t pc = 0x8000 + (uint32_t)prog_here(&p);
	emit(&p, sw(T1, 0, T0));
	emit_li(&p, T1, 0x02000000u);             /* NOP */
	int32_t loop = prog_here(&p);
	emit(&p, sw(T1, 0, T0));
	emit_j(&p, loop);
	run_at_0x8000(&p);
	const char *text = report_wait(report, "mutex 1 does not exist");
	char at[32];
	snprintf(at, sizeof at, "pc 0x%08x", pc);
	cr_expect(strstr(text, "brisc") && strstr(text, at) &&
		  strstr(text, "Tensix thread 0, instruction 0xa0000001 ATGETM") &&
		  !strstr(text, "stopped at an earlier fault"), "report file: '%s'", text);
	sim_stop();
	report_done(report);
}

/* BHEMU_TTSIM_CHIPS=3: PCI devices 0-2 are chips, device 3 is absent; chip d's BARs sit at chip
 * 0's plus d x 64 GiB (ttsim's multi-chip layout); each chip has its own tiles, TLBs and iATU, and a
 * core's request to host memory goes through its own chip's iATU to the shared callbacks. */
Test(ttsim, several_chips_are_pci_devices_with_their_own_bars_tiles_and_iatu, .timeout = 120)
{
	setenv("BHEMU_TTSIM_CHIPS", "3", 1);
	sim_load("grid:2x1");
	sim.set_dma(dma_rd, dma_wr);
	sim.init();
	const uint64_t stride = 64ull << 30;
	for (unsigned d = 0; d < 3; d++) {
		cr_expect_eq(sim.cfg_rd(d << 3, 0), 0xB1401E52u, "device %u", d);
		cr_expect_eq(bar_of(d, 0x10), 0x100000000ull + d * stride, "device %u BAR0", d);
		cr_expect_eq(bar_of(d, 0x18), 0x120000000ull + d * stride, "device %u BAR2", d);
		cr_expect_eq(bar_of(d, 0x20), 0x800000000ull + d * stride, "device %u BAR4", d);
	}
	cr_expect_eq(sim.cfg_rd(3 << 3, 0), 0xFFFFFFFFu, "device 3: no device");
	cr_expect_eq(errors(NULL, 0), 0u);
	/* The same tile and address on each chip holds its own value; TLB 3 of each chip aims at a
	 * tile of its own choosing. */
	for (unsigned d = 0; d < 3; d++) {
		sim_select(d);
		wr32(1, 2, 0x30000, 0x1000 + d);
		tlb2m(3, 1 + d % 2, 2, 0, false, 0, 0);
	}
	for (unsigned d = 0; d < 3; d++) {
		sim_select(d);
		cr_expect_eq(rd32(1, 2, 0x30000), 0x1000 + d, "chip %u", d);
		uint32_t v = 0x2000 + d, back = 0;
		sim.mem_wr(sim.bar0 + 3 * MB2 + 0x30010, &v, 4);
		noc_rd(1, 1 + d % 2, 2, 0x30010, &back, 4);
		cr_expect_eq(back, v, "chip %u: TLB 3 kept its own target", d);
	}
	/* Chip 0's iATU maps the host window to host 0x40000, chip 1's to 0x80000: chip 1's core
	 * writes reach 0x80000 + 0x2000. */
	sim_select(0);
	iatu_region0();
	sim_select(1);
	iatu_region0();
	bar2_wr(0x1000 + 0x14, 0x80000);
	uint8_t out[64], got[64];
	for (unsigned i = 0; i < 64; i++)
		out[i] = (uint8_t)(0x5A ^ i);
	const uint32_t wr[][2] = { { N_CTRL, CTRL_WRITE_POSTED }, { N_TARG_LO, 0x20000 }, { N_TARG_MID, 0 },
		{ N_TARG_HI, TILE0_XY }, { N_RET_LO, 0x2000 }, { N_RET_MID, 1u << 28 }, { N_RET_HI, 19u | 24u << 6 },
		{ N_LEN, 64 }, { N_CMD_CTRL, 1 } };
	struct prog p = { 0 };
	for (unsigned k = 0; k < N(wr); k++)
		emit_store_word(&p, CMDBUF0(0) + wr[k][0], wr[k][1]);
	noc_wr(1, 1, 2, 0x20000, out, sizeof out);
	run_at_0x8000(&p);
	host_wait(got, 0x82000, out, sizeof out);
	cr_expect_arr_eq(got, out, sizeof out, "chip 1's write reached host memory through chip 1's iATU");
	host_copy(got, 0x42000, sizeof got);
	for (unsigned i = 0; i < 64; i++)
		cr_expect_eq(got[i], 0, "host 0x%x (chip 0's window) untouched", 0x42000 + i);
	/* Past the last chip. */
	uint32_t v;
	MISUSE(sim.mem_rd(0x100000000ull + 3 * stride, &v, 4), "bhemu-ttsim: libttsim_pci_mem_rd_bytes: 0x3100000000 "
	       "+ 4 bytes: no BAR maps it (chip 3's window; there are 3 chips)");
	MISUSE(sim.cfg_wr(3 << 3, 0x10, 0), "bhemu-ttsim: libttsim_pci_config_wr32: device 3 does not exist (devices 0-2)");
	sim_stop();
	/* Bad chip counts: a message, no simulator. */
	static const char *bad[] = { "0", "33", "two", "-1", "2x" };
	for (unsigned k = 0; k < N(bad); k++) {
		char want[160];
		snprintf(want, sizeof want, "bhemu-ttsim: libttsim_init: BHEMU_TTSIM_CHIPS is a number of chips from 1 "
			 "to 32, not '%s'", bad[k]);
		setenv("BHEMU_TTSIM_CHIPS", bad[k], 1);
		sim_load("grid:1x1");
		MISUSE(sim.init(), want);
		MISUSE(sim.cfg_rd(0, 0), "bhemu-ttsim: libttsim_pci_config_rd32: the simulator is not running");
		dlclose(sim.h);
	}
}

/* ---- Fast dispatch by bhemu's models through the ABI ---------------------------------------------
 * The client's sysmem is host_mem from 0x40000 (iATU region 0: host-window offsets 0..256 KiB);
 * the CQ's host memory at host-window offset 0: the four pointers, the issue ring at +0x100 and
 * the completion ring after it. */
#define CQ_HOST 0x40000u
#define CQ_ISSUE 8192u
#define CQ_COMPLETION 4096u

static void host_put(uint64_t a, const void *src, uint32_t n)
{
	pthread_mutex_lock(&host_lock);
	memcpy(host_mem + a, src, n);
	pthread_mutex_unlock(&host_lock);
}

static void host_put32(uint64_t a, uint32_t v)
{
	host_put(a, &v, 4);
}

/* The ring pointers in the client's memory (fast-dispatch.md 6), then the models started on
 * them; returns the completion ring's first pointer value (16-byte units). */
static uint32_t cq_start_client(void)
{
	const uint32_t c0 = (0x100 + CQ_ISSUE) >> 4;
	host_put32(CQ_HOST + 0x00, 0x100);
	host_put32(CQ_HOST + 0x40, 0x100);
	host_put32(CQ_HOST + 0x80, c0);
	host_put32(CQ_HOST + 0xC0, c0);
	cr_assert_eq(sim.cq_start(0, 0, CQ_ISSUE, CQ_COMPLETION), 0);
	return c0;
}

/* One dispatch command wrapped in RELAY_INLINE, written at issue-ring offset *wr and announced in
 * prefetch_q slot *q of the prefetch tile (x, y) through a TLB, as tt-metal's host does. */
static void cq_record(unsigned x, unsigned y, uint32_t *wr, unsigned *q, const uint8_t *cmd, uint32_t len)
{
	uint8_t rec[256] = { BH_CQP_RELAY_INLINE };
	uint32_t stride = (16 + len + 63) & ~63u;
	cr_assert_leq(stride, sizeof rec);
	bh_cq_put(rec, BH_CQF_P_RELAY_INLINE_length, len);
	bh_cq_put(rec, BH_CQF_P_RELAY_INLINE_stride, stride);
	memcpy(rec + 16, cmd, len);
	host_put(CQ_HOST + 0x100 + *wr, rec, stride);
	*wr += stride;
	host_put32(CQ_HOST + 0x40, 0x100 + *wr);   /* issue write pointer */
	uint16_t slot = (uint16_t)(stride >> 4);
	noc_wr(6, x, y, 0x19840 + 2 * *q, &slot, 2);
	++*q;
}

/* An event (WRITE_LINEAR_H_HOST echoing its header and `id` into the completion ring) in ev;
 * recorded, then the completion write pointer is polled (clocking the chip, as tt-umd's poll
 * loops do) until it moves off *cwr, which it is set to; false after 30 s (a hang). */
static bool cq_event(uint8_t ev[32], uint32_t id, uint32_t *wr, unsigned *q, uint32_t *cwr)
{
	memset(ev, 0, 32);
	ev[0] = BH_CQD_WRITE_LINEAR_H_HOST;
	bh_cq_put(ev, BH_CQF_D_WRITE_LINEAR_H_HOST_is_event, 1);
	bh_cq_put(ev, BH_CQF_D_WRITE_LINEAR_H_HOST_length, 32);
	memcpy(ev + 16, &id, 4);
	cq_record(2, 2, wr, q, ev, 32);
	uint32_t before = *cwr;
	double t0 = now_s();
	while (*cwr == before && now_s() - t0 < 30.0) {
		host_copy(cwr, CQ_HOST + 0x80, 4);
		sim.clock(1);
	}
	return *cwr != before;
}

Test(ttsim, fast_dispatch_models_run_commands_from_client_memory, .timeout = 120)
{
	sim_start_dma("grid:2x2");   /* fast-dispatch tiles: prefetch (2,2), dispatch (2,3) */
	const uint32_t c0 = cq_start_client();
	unsigned reads0 = dma_reads;
	uint32_t wr = 0;
	unsigned q = 0;
	/* WRITE_LINEAR: 64 bytes to worker (1,2) L1 0x30000. */
	uint8_t cmd[32 + 64] = { BH_CQD_WRITE_LINEAR };
	bh_cq_put(cmd, BH_CQF_D_WRITE_LINEAR_noc_xy_addr, TILE0_XY);
	bh_cq_put(cmd, BH_CQF_D_WRITE_LINEAR_addr, 0x30000);
	bh_cq_put(cmd, BH_CQF_D_WRITE_LINEAR_length, 64);
	for (unsigned i = 0; i < 64; i++)
		cmd[32 + i] = (uint8_t)(0xC3 ^ (i * 7));
	cq_record(2, 2, &wr, &q, cmd, sizeof cmd);
	/* An event: WRITE_LINEAR_H_HOST echoes its header and the id into the completion ring. */
	/* The completion write pointer moves past the entry; the entry is the echo. */
	uint8_t ev[32];
	uint32_t cwr = c0;
	cr_assert(cq_event(ev, 0x5EED, &wr, &q, &cwr), "the dispatcher never moved the completion write pointer");
	uint8_t got[32];
	host_copy(got, CQ_HOST + 0x100 + CQ_ISSUE, sizeof got);
	cr_expect_arr_eq(got, ev, sizeof ev, "the completion entry echoes the event command");
	uint8_t l1[64];
	noc_rd(1, 1, 2, 0x30000, l1, sizeof l1);
	cr_expect_arr_eq(l1, cmd + 32, 64, "WRITE_LINEAR's payload landed in the worker's L1");
	cr_expect_geq(dma_reads - reads0, 2u, "the prefetcher fetched both records through the DMA read callback");
	uint32_t pcie_rd;
	noc_rd(1, 2, 2, 0x196C4, &pcie_rd, 4);
	cr_expect_eq(pcie_rd, 0x100 + wr, "the prefetcher's issue read pointer passed both records");
	char msg[512] = "";
	cr_expect_eq(errors(msg, sizeof msg), 0u, "%s", msg);
	MISUSE(sim.cq_start(0, 0, CQ_ISSUE, CQ_COMPLETION), "bhemu-ttsim: bhemu_ttsim_cq_start: chip 0 already runs");
	MISUSE(sim.cq_start(1, 0, CQ_ISSUE, CQ_COMPLETION), "bhemu-ttsim: bhemu_ttsim_cq_start: chip 1 does not exist");
	sim_stop();
	/* Bad sizes, and a board without fast-dispatch tiles. */
	sim_start_dma("grid:2x2");
	MISUSE(sim.cq_start(0, 0, 1000, CQ_COMPLETION), "bhemu-ttsim: bhemu_ttsim_cq_start: host offset 0x0, issue ring 1000");
	MISUSE(sim.cq_start(0, 8, CQ_ISSUE, CQ_COMPLETION), "bhemu-ttsim: bhemu_ttsim_cq_start: host offset 0x8");
	sim_stop();
	sim_start_dma("grid:2x1");
	MISUSE(sim.cq_start(0, 0, CQ_ISSUE, CQ_COMPLETION), "bhemu-ttsim: bhemu_ttsim_cq_start: this board has no fast-dispatch");
	sim_stop();
}

/* A malformed command stops the models; the report names it at the next host calls. */
Test(ttsim, fast_dispatch_models_report_a_malformed_command, .timeout = 120)
{
	char report[64];
	report_file(report);
	sim_start_dma("grid:2x2");
	cq_start_client();
	uint32_t wr = 0;
	unsigned q = 0;
	uint8_t bad[16] = { 0x7F };   /* no dispatch command has id 0x7f */
	cq_record(2, 2, &wr, &q, bad, sizeof bad);
	const char *text = report_wait(report, "fast dispatch stopped");
	cr_expect(strstr(text, "bhemu-ttsim: fast dispatch stopped: ") && strstr(text, "dispatch"), "report: '%s'", text);
	sim_stop();
	report_done(report);
}

/* A dispatch command of at most 240 bytes, as cq_record wants it (zeroed header, id in byte 0). */
struct cq_cmd {
	uint8_t b[240];
	uint32_t len;
};

static void cq_linear(struct cq_cmd *c, unsigned x, unsigned y, uint32_t addr, const void *data, uint32_t n)
{
	cr_assert_leq(32 + n, sizeof c->b);
	memset(c->b, 0, sizeof c->b);
	c->b[0] = BH_CQD_WRITE_LINEAR;
	bh_cq_put(c->b, BH_CQF_D_WRITE_LINEAR_noc_xy_addr, y << 6 | x);
	bh_cq_put(c->b, BH_CQF_D_WRITE_LINEAR_addr, addr);
	bh_cq_put(c->b, BH_CQF_D_WRITE_LINEAR_length, n);
	memcpy(c->b + 32, data, n);
	c->len = 32 + n;
}

static void cq_wait_stream(struct cq_cmd *c, uint32_t count)
{
	memset(c->b, 0, sizeof c->b);
	c->b[0] = BH_CQD_WAIT;
	bh_cq_put(c->b, BH_CQF_D_WAIT_flags, BH_CQ_WAIT_STREAM | BH_CQ_WAIT_CLEAR_STREAM);
	bh_cq_put(c->b, BH_CQF_D_WAIT_stream, BH_CQ_STREAM_FIRST);
	bh_cq_put(c->b, BH_CQF_D_WAIT_count, count);
	c->len = 16;
}

/* Fast dispatch of a program as tt-metal's host lowers one (fast-dispatch.md 7), every record
 * written into the client's issue ring and fetched through the DMA callbacks: the kernel text and
 * a launch message in DEV mode for each worker, the go signal's NoC data, a wait for the stream
 * to be clear, SEND_GO_SIGNAL naming the dispatch core, the wait for one completion per worker
 * on stream 48, and an event the client waits for in its completion ring. The reference firmware
 * was booted through the TLB windows first; three launches in a row use launch[0], [1], [2]. */
Test(ttsim, fast_dispatch_launches_a_kernel_through_the_client_command_queue, .timeout = 120)
{
	if (access(REF_FW "/brisc.elf", R_OK) != 0)
		cr_skip_test("reference firmware not built (%s)", REF_FW);
	const struct bh_profile *p = bh_profile_default();
	static const unsigned wx[2] = { 1, 1 }, wy[2] = { 2, 3 };   /* (2,2), (2,3): prefetch, dispatch */
	const uint32_t text = 0x400, marker = 0x30000;
	sim_start_dma("grid:2x2");
	static struct workers w;
	boot_grid(p, &w, 1, 2, false);
	const uint32_t c0 = cq_start_client();
	uint32_t wr = 0, cwr = c0;
	unsigned q = 0;
	struct cq_cmd c;
	for (uint32_t launch = 0; launch < 3; launch++) {
		const uint32_t base = (launch + 1) * 1000;
		for (unsigned k = 0; k < 2; k++) {
			uint32_t kt[8], n = 0, value = base + wx[k] * 10 + wy[k];
			enc_li(kt + n, T0, marker);   /* kernel_main: *marker = value; return */
			n += 2;
			enc_li(kt + n, T1, value);
			n += 2;
			kt[n++] = enc_s(0, T1, T0, 2, 0x23);
			kt[n++] = enc_i(0, RA, 0, X0, 0x67);
			cq_linear(&c, wx[k], wy[k], p->kernel_config_base + text, kt, 4 * n);
			cq_record(2, 2, &wr, &q, c.b, c.len);
			static const uint32_t zero;
			cq_linear(&c, wx[k], wy[k], p->mailbox_base + p->go_message_index, &zero, 4);
			cq_record(2, 2, &wr, &q, c.b, c.len);
			uint8_t m[LM_SIZE] = { 0 };
			for (unsigned i = 0; i < 3; i++)
				memcpy(m + LM_KCB + 4 * i, &p->kernel_config_base, 4);
			memcpy(m + LM_TEXT_OFF, &text, 4);
			m[LM_MODE] = 0;                /* DISPATCH_MODE_DEV: completion to the dispatcher */
			m[LM_MIN_REMOTE_CB] = 32;
			uint32_t enables = 1;          /* BRISC */
			memcpy(m + LM_ENABLES, &enables, 4);
			cq_linear(&c, wx[k], wy[k], p->mailbox_base + p->launch_base + launch % p->launch_count *
				  p->launch_entry_size, m, sizeof m);
			cq_record(2, 2, &wr, &q, c.b, c.len);
		}
		memset(c.b, 0, sizeof c.b);
		c.b[0] = BH_CQD_SET_GO_SIGNAL_NOC_DATA;
		bh_cq_put(c.b, BH_CQF_D_SET_GO_SIGNAL_NOC_DATA_num_words, 2);
		for (unsigned k = 0; k < 2; k++) {
			uint32_t xy = wy[k] << 6 | wx[k];
			memcpy(c.b + 16 + 4 * k, &xy, 4);
		}
		cq_record(2, 2, &wr, &q, c.b, 24);
		cq_wait_stream(&c, 0);
		cq_record(2, 2, &wr, &q, c.b, c.len);
		memset(c.b, 0, sizeof c.b);
		c.b[0] = BH_CQD_SEND_GO_SIGNAL;   /* GO, and the dispatch core (2,3) to notify */
		bh_cq_put(c.b, BH_CQF_D_SEND_GO_SIGNAL_go_signal, 0x80u << 24 | 3u << 16 | 2u << 8);
		bh_cq_put(c.b, BH_CQF_D_SEND_GO_SIGNAL_multicast_go_offset, BH_CQ_GO_NO_MCAST);
		bh_cq_put(c.b, BH_CQF_D_SEND_GO_SIGNAL_num_unicast_txns, 2);
		bh_cq_put(c.b, BH_CQF_D_SEND_GO_SIGNAL_wait_stream, BH_CQ_STREAM_FIRST);
		cq_record(2, 2, &wr, &q, c.b, 16);
		cq_wait_stream(&c, 2);
		cq_record(2, 2, &wr, &q, c.b, c.len);
		/* The event arrives only after the dispatcher counted both completions. */
		uint8_t ev[32];
		uint32_t before = cwr;
		cr_assert(cq_event(ev, launch, &wr, &q, &cwr), "launch %u: no event in the completion ring", launch);
		uint8_t got[32];
		host_copy(got, CQ_HOST + ((uint64_t)(before & 0x7FFFFFFFu) << 4), sizeof got);
		cr_expect_arr_eq(got, ev, sizeof ev, "launch %u: the completion entry echoes the event", launch);
		/* The event took a whole completion page: hand it back (the read pointer, toggle bit 31,
		 * in host memory +0xC0 and in the dispatcher's L1 0x196E0), or the next event waits. */
		host_put32(CQ_HOST + 0xC0, cwr);
		wr32(2, 3, BH_CQ_COMPLETION_RD_PTR, cwr);
		for (unsigned k = 0; k < 2; k++)
			cr_expect_eq(rd32(wx[k], wy[k], marker), base + wx[k] * 10 + wy[k], "launch %u: (%u,%u) ran the kernel",
				     launch, wx[k], wy[k]);
	}
	char msg[512] = "";
	cr_expect_eq(errors(msg, sizeof msg), 0u, "%s", msg);
	sim_stop();
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
	cr_expect_eq(telemetry(35), 0x3EDFu, "Ethernet channels present but 5 and 8 (tt-umd's mask 0x120)");
	cr_expect_eq(telemetry(21), 0u, "ETH_LIVE_STATUS: no link up, no heartbeat");
	cr_expect_eq(telemetry(38), 1u, "PCIE_USAGE: PCIe 0 the endpoint (tt-umd's P150 check: mask 0x2)");
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

/* ------------------------------------------------------------------------------ Ethernet tiles */

#define ETH_BOOT_RESULTS 0x7CC00u
#define ETH_CHIP_INFO 0x7CFC0u
#define ETH_L1 0x80000u

/* A line of the soc descriptor for board, starting at key (up to the next newline after it). */
static const char *soc_line(enum bh_board b, const char *key, char *out, size_t n)
{
	static char yaml[16384];
	int len = bh_soc_descriptor(b, yaml, sizeof yaml);
	cr_assert(len > 0 && (size_t)len < sizeof yaml);
	const char *p = strstr(yaml, key);
	cr_assert_not_null(p, "%s in the descriptor", key);
	p = strchr(p, '\n') + 1;
	size_t k = strcspn(p, "\n");
	snprintf(out, n, "%.*s", (int)k, p);
	return out;
}

/* tt-umd's Blackhole channel order (ETH_CORES_NOC0) and its simulator path's harvesting (0x120). */
static const unsigned eth_noc0_x[14] = { 1, 16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10 };
#define UMD_ETH_HARVEST 0x120u

Test(ttsim, soc_descriptor_lists_ethernet_as_tt_umd_does)
{
	char line[256];
	cr_expect_str_eq(soc_line(BH_BOARD_P150, "eth:", line, sizeof line),
			 "  [ 1-1, 16-1, 2-1, 15-1, 3-1, 14-1, 4-1, 13-1, 5-1, 12-1, 6-1, 11-1, 7-1, 10-1, ]");
	cr_expect_str_eq(soc_line(BH_BOARD_P100, "eth:", line, sizeof line), "  [ ]", "a P100 has no Ethernet");
	cr_expect_str_eq(soc_line(BH_BOARD_P150, "eth_l1_size:", line, sizeof line), "  262144");
}

/* Every Ethernet tile of a P150 through TLB windows: tt-umd removes channels 5 and 8 from the
 * descriptor's 14 and numbers the rest from translated (20, 25); each reads as a link that never
 * came up and keeps what the host writes anywhere in its 512 KiB of L1. The ones past the twelfth,
 * registers and ERISC code are refused by name. */
Test(ttsim, ethernet_tiles_hold_l1_and_report_every_link_down, .timeout = 60)
{
	sim_start("p150");
	uint32_t enabled = telemetry(35);
	cr_expect_eq(~enabled & 0x3FFFu, UMD_ETH_HARVEST, "ENABLED_ETH matches tt-umd's harvesting");
	cr_expect_eq(telemetry(21) >> 16, 0u, "ETH_LIVE_STATUS: no link up");
	unsigned k = 0;
	for (unsigned c = 0; c < 14; c++) {
		if (UMD_ETH_HARVEST >> c & 1)
			continue;
		unsigned x = 20 + k, y = 25;
		cr_expect(enabled >> c & 1, "channel %u enabled", c);
		cr_expect_eq(rd32(x, y, ETH_BOOT_RESULTS), 0xC0DEB000u, "(%u,%u) postcode: init failed", x, y);
		cr_expect_eq(rd32(x, y, ETH_BOOT_RESULTS + 4), 2u, "(%u,%u) port_status PORT_DOWN", x, y);
		cr_expect_eq(rd32(x, y, ETH_BOOT_RESULTS + 8), 9u, "(%u,%u) LINK_TRAIN_TIMEOUT_LINK_UP", x, y);
		cr_expect_eq(rd32(x, y, ETH_BOOT_RESULTS + 0x70), 0u, "(%u,%u) no heartbeat", x, y);
		uint32_t info = rd32(x, y, ETH_CHIP_INFO);
		cr_expect_eq(info >> 16 & 0xFF, c, "(%u,%u) eth_id is channel %u (NoC0 (%u,1))", x, y, c, eth_noc0_x[c]);
		cr_expect_eq(info >> 24, k, "(%u,%u) logical_eth_id", x, y);
		cr_expect_eq(rd32(x, y, ETH_CHIP_INFO + 4), telemetry(1), "board id high as ARC's");
		cr_expect_eq(rd32(x, y, 0x7CFE4), 0u, "no remote chip");
		/* L1: the start, a window boundary of no importance, the last 64 bytes. */
		static const uint32_t at[] = { 0, 0x3F000, ETH_L1 - 64 };
		for (unsigned i = 0; i < 3; i++) {
			uint8_t buf[64], back[64];
			for (unsigned b = 0; b < sizeof buf; b++)
				buf[b] = (uint8_t)(c * 29 + i * 7 + b);
			noc_wr(k % 8, x, y, at[i], buf, sizeof buf);
			memset(back, 0, sizeof back);
			noc_rd(100 + k, x, y, at[i], back, sizeof back);
			cr_expect_arr_eq(back, buf, sizeof buf, "(%u,%u) L1 0x%x through TLBs", x, y, at[i]);
			memset(back, 0, sizeof back);
			sim.tile_rd(x, y, at[i], back, sizeof back);
			cr_expect_arr_eq(back, buf, sizeof buf, "(%u,%u) L1 0x%x through tile_rd", x, y, at[i]);
		}
		k++;
	}
	cr_expect_eq(k, 12u);
	cr_expect_eq(errors(NULL, 0), 0u);
	uint32_t v;
	MISUSE(noc_rd(5, 32, 25, 0, &v, 4), "bhemu-ttsim: TLB 5: no endpoint at NoC (32,25)");
	MISUSE(noc_rd(5, 20, 25, ETH_L1, &v, 4), "bhemu-ttsim: TLB 5: Ethernet tile (20,25) (channel 0) address 0x80000 "
	       "+ 4 bytes: only its L1 (0-0x7ffff) is modelled, not its registers or ERISC cores");
	MISUSE(wr32(31, 25, SOFT_RESET_0, 0), "bhemu-ttsim: TLB 7: Ethernet tile (31,25) (channel 13) address 0xffb121b0");
	/* A multicast rectangle over the Ethernet row writes no Ethernet tile (they take no multicast). */
	uint32_t before = rd32(20, 25, 0x100);
	tlb2m(9, 31, 25, 0, true, 1, 2);
	v = 0x77;
	sim.mem_wr(sim.bar0 + 9ull * MB2 + 0x100, &v, 4);
	cr_expect_eq(rd32(20, 25, 0x100), before);
	cr_expect_eq(rd32(1, 2, 0x100), 0x77u);
	sim_stop();
}

/* tt-umd's harvesting masks from ARC telemetry (blackhole_tt_device.cpp get_chip_info): Tensix
 * columns from ENABLED_TENSIX_COL (bit i: column at NoC x HARVESTING_NOC_LOCATIONS[i], re-sorted
 * into x order), DRAM from ENABLED_GDDR, Ethernet from ENABLED_ETH, the board from board id high. */
static uint32_t umd_tensix_harvest(uint32_t enabled)
{
	static const unsigned loc[14] = { 1, 16, 2, 15, 3, 14, 4, 13, 5, 12, 6, 11, 7, 10 };
	static const unsigned sorted[14] = { 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16 };
	uint32_t h = ~enabled & 0x3FFF, m = 0;
	for (unsigned i = 0; i < 14; i++)
		if (h >> i & 1)
			for (unsigned j = 0; j < 14; j++)
				if (sorted[j] == loc[i])
					m |= 1u << j;
	return m;
}

struct board_case {
	const char *name;
	uint32_t upi;                  /* board id bits 63:36, tt-umd's board_upi_map */
	uint32_t tensix, dram, eth;    /* tt-umd's harvesting masks */
	enum bh_board soc;
	unsigned workers, banks;
};

static void board_check(const struct board_case *bc)
{
	sim_start(bc->name);
	cr_expect_eq(telemetry(1) >> 4, bc->upi, "%s: board UPI 0x%x", bc->name, telemetry(1) >> 4);
	cr_expect_eq(umd_tensix_harvest(telemetry(34)), bc->tensix, "%s: Tensix harvesting", bc->name);
	cr_expect_eq(~telemetry(36) & 0xFF, bc->dram, "%s: DRAM harvesting", bc->name);
	cr_expect_eq(~telemetry(35) & 0x3FFF, bc->eth, "%s: Ethernet harvesting", bc->name);
	cr_expect_eq(telemetry(22), 0x55555555u >> (32 - 2 * bc->banks), "%s: GDDR trained", bc->name);
	/* The descriptor's workers are exactly the grid's Tensix tiles. */
	unsigned xs[140], ys[140], n = 0, x, y;
	static char yaml[16384];
	cr_assert(bh_soc_descriptor(bc->soc, yaml, sizeof yaml) > 0);
	const char *p = strstr(yaml, "functional_workers:"), *end = strstr(p, "]");
	int used;
	for (p = strchr(p, '[') + 1; p < end && n < 140 && sscanf(p, " %u-%u,%n", &x, &y, &used) == 2; p += used) {
		xs[n] = x;
		ys[n++] = y;
	}
	cr_expect_eq(n, bc->workers, "%s: %u workers in the descriptor", bc->name, n);
	for (unsigned k = 0; k < n; k++) {
		uint32_t v = 0xB0A4D000u + k;
		noc_wr(k % 16, xs[k], ys[k], 0x20000, &v, 4);
		cr_expect_eq(rd32(xs[k], ys[k], 0x20000), v, "%s: (%u,%u)", bc->name, xs[k], ys[k]);
	}
	unsigned listed = 0;
	for (p = strstr(yaml, "dram:"), end = strstr(p, "  ]"); (p = strstr(p + 1, "    [")) && p < end;)
		listed++;
	cr_expect_eq(listed, bc->banks, "%s: %u DRAM banks in the descriptor", bc->name, listed);
	/* The last bank's port 0 answers; the position after it is absent. */
	uint32_t v = 0xD7A30000u + bc->banks;
	unsigned last = bc->banks - 1;
	tlb4g(1, last < 4 ? 17 : 18, 12 + 3 * (last % 4), 0);
	sim.mem_wr(sim.bar4 + (1ull << 32) + 0x40, &v, 4);
	uint32_t w = 0;
	sim.mem_rd(sim.bar4 + (1ull << 32) + 0x40, &w, 4);
	cr_expect_eq(w, v);
	cr_expect_eq(errors(NULL, 0), 0u, "%s: no misuse so far", bc->name);
	if (bc->banks < 8)
		MISUSE(sim.tile_rd(18, 21, 0, &w, 4), "bhemu-ttsim: libttsim_tile_rd_bytes: no endpoint at NoC (18,21)");
	if (bc->workers < 140) {
		MISUSE(sim.tile_rd(15, 2, 0, &w, 4), "bhemu-ttsim: libttsim_tile_rd_bytes: no endpoint at NoC (15,2)");
		MISUSE(sim.tile_rd(16, 11, 0, &w, 4), "bhemu-ttsim: libttsim_tile_rd_bytes: no endpoint at NoC (16,11)");
	}
	if (bc->eth == 0x3FFF)
		MISUSE(sim.tile_rd(20, 25, 0, &w, 4), "bhemu-ttsim: libttsim_tile_rd_bytes: no endpoint at NoC (20,25)");
	sim_stop();
}

/* tt-umd: a P150 has 0 Tensix columns harvested before firmware 19.5 (bhemu reports 18.5), none of
 * its DRAM banks and Ethernet channels 5 and 8; a P100 two Tensix columns, one bank, all 14
 * channels. */
static const struct board_case p150 = { "p150", 0x40, 0, 0, 0x120, BH_BOARD_P150, 140, 8 };

Test(ttsim, board_p150_harvesting_grid_and_descriptor_agree, .timeout = 60) { board_check(&p150); }
Test(ttsim, board_p150a_is_upi_0x40, .timeout = 60)
{
	struct board_case b = p150;
	b.name = "p150a";
	board_check(&b);
}
Test(ttsim, board_p150b_is_upi_0x41, .timeout = 60)
{
	struct board_case b = p150;
	b.name = "p150b";
	b.upi = 0x41;
	board_check(&b);
}
Test(ttsim, board_p150c_is_upi_0x42, .timeout = 60)
{
	struct board_case b = p150;
	b.name = "p150c";
	b.upi = 0x42;
	board_check(&b);
}
Test(ttsim, board_p100_harvesting_grid_and_descriptor_agree, .timeout = 60)
{
	board_check(&(struct board_case){ "p100", 0x43, 0x3000, 0x80, 0x3FFF, BH_BOARD_P100, 120, 7 });
	sim_start("p100a");
	cr_expect_eq(telemetry(1) >> 4, 0x43u, "p100a is the P100");
	sim_stop();
}
Test(ttsim, unknown_board_is_refused_by_name)
{
	sim_load("p200");
	MISUSE(sim.init(), "bhemu-ttsim: libttsim_init: BHEMU_TTSIM_BOARD is p150 (p150a, p150b, p150c), p100 (p100a) "
	       "or grid:CxR, not 'p200'");
	dlclose(sim.h);
}

/* -------------------------------------------------------------------------- multi-device symbols */

/* tt-umd's multichip mode (tt_sim_communicator.cpp): finding create and select it resolves every
 * one of these and fails if one is missing. */
static struct {
	void *(*create)(uint32_t, int, int);
	void (*select)(uint32_t);
	void (*clock_all)(uint32_t);
	void (*sw_reset)(void);
	void (*sw_register)(void *, uint32_t, uint64_t);
	void (*sw_drain)(void);
	void (*link_virtual)(void *, uint32_t, uint64_t);
	void (*sw_peer)(void *, uint32_t, void *, uint32_t);
	uint64_t (*ticks)(void);
} mc;

static void mc_load(const char *board, const char *chips)
{
	setenv("BHEMU_TTSIM_CHIPS", chips, 1);
	sim_load(board);
	mc.create = (void *(*)(uint32_t, int, int))sym("libttsim_create_device_by_id");
	mc.select = (void (*)(uint32_t))sym("libttsim_select_device_by_id");
	mc.clock_all = (void (*)(uint32_t))sym("libttsim_clock_all_devices");
	mc.sw_reset = (void (*)(void))sym("libttsim_switch_reset");
	mc.sw_register = (void (*)(void *, uint32_t, uint64_t))sym("libttsim_switch_register");
	mc.sw_drain = (void (*)(void))sym("libttsim_switch_drain");
	mc.link_virtual = (void (*)(void *, uint32_t, uint64_t))sym("libttsim_configure_eth_link_virtual");
	mc.sw_peer = (void (*)(void *, uint32_t, void *, uint32_t))sym("libttsim_switch_register_peer");
	mc.ticks = (uint64_t (*)(void))sym("bhemu_ttsim_ticks");
}

Test(ttsim, multi_device_symbols_select_chips_and_refuse_links, .timeout = 60)
{
	mc_load("p150", "2");
	MISUSE(cr_expect_null(mc.create(0, 0, 0)), "bhemu-ttsim: libttsim_create_device_by_id: the simulator is not running");
	sim.init();
	/* tt-umd's order: init once, create each chip, select before each of its calls. */
	void *h0 = mc.create(0, 0, 0), *h1 = mc.create(1, 1, 0);
	cr_assert(h0 && h1 && h0 != h1);
	cr_expect_eq(mc.create(1, 1, 0), h1, "the same chip, the same handle");
	MISUSE(cr_expect_null(mc.create(2, 2, 0)), "bhemu-ttsim: libttsim_create_device_by_id: chip 2 does not exist "
	       "(BHEMU_TTSIM_CHIPS presents 2 chips, 0-1)");
	unsigned seen = errors(NULL, 0);
	mc.sw_reset();
	cr_expect_eq(errors(NULL, 0), seen, "resetting the (empty) switch is no misuse");
	/* Config device 0 is the selected chip: its BARs are its own. */
	uint64_t bar0_1 = bar_of(1, 0x10);
	mc.select(1);
	cr_expect_eq(bar(0x10), bar0_1, "device 0 after selecting chip 1");
	sim_select(0);
	uint32_t v = 0xC1C1u, w = 0;
	noc_wr(4, 1, 2, 0x30000, &v, 4);           /* chip 1 by its BARs */
	sim.tile_rd(1, 2, 0x30000, &w, 4);         /* chip 1: selected */
	cr_expect_eq(w, v);
	v = 0xC0C0u;
	sim.tile_wr(20, 25, 0x1000, &v, 4);        /* chip 1's first Ethernet tile */
	mc.select(0);
	cr_expect_eq(bar(0x10), 0x100000000ull, "device 0 is chip 0 again");
	w = 0;
	sim.tile_rd(1, 2, 0x30000, &w, 4);
	cr_expect_eq(w, 0u, "chip 0's L1 is its own");
	sim.tile_rd(20, 25, 0x1000, &w, 4);
	cr_expect_eq(w, 0u, "chip 0's Ethernet L1 is its own");
	MISUSE(mc.select(2), "bhemu-ttsim: libttsim_select_device_by_id: chip 2 does not exist (chips 0-1); chip 0 stays "
	       "selected");
	/* Links: refused by name, the port stays down. */
	MISUSE(mc.link_virtual(h0, 0, 0x021E52000000ull), "bhemu-ttsim: libttsim_configure_eth_link_virtual: chip 0 "
	       "Ethernet channel 0: chips are not linked (bhemu models no Ethernet links); the channel stays down");
	MISUSE(mc.sw_register(h1, 1, 0x021E52000101ull), "bhemu-ttsim: libttsim_switch_register: chip 1 Ethernet "
	       "channel 1: chips are not linked");
	MISUSE(mc.sw_peer(h0, 0, h1, 1), "bhemu-ttsim: libttsim_switch_register_peer: chip 0 Ethernet channel 0: chips "
	       "are not linked");
	char msg[512];
	MISUSE(mc.sw_peer(&v, 0, h1, 1), "bhemu-ttsim: libttsim_switch_register_peer: ");
	errors(msg, sizeof msg);
	cr_expect(strstr(msg, " is not a handle of libttsim_create_device_by_id"), "'%s'", msg);
	unsigned before = errors(NULL, 0);
	mc.sw_drain();
	cr_expect_eq(errors(NULL, 0), before, "draining the switch is no misuse");
	mc.select(1);
	w = 0;
	sim.tile_rd(20, 25, 0x7CC04, &w, 4);
	cr_expect_eq(w, 2u, "chip 1 channel 0: PORT_DOWN");
	cr_expect_eq(telemetry(21), 0u, "chip 1 (sim.bar0) ETH_LIVE_STATUS: nothing up");
	uint64_t t0 = mc.ticks();
	mc.clock_all(5);
	cr_expect_eq(mc.ticks(), t0 + 5);
	sim_stop();
	unsetenv("BHEMU_TTSIM_CHIPS");
}
