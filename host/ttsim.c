/* libbhemu_ttsim.so: the libttsim ABI over a bhemu device (include/bhemu/ttsim.h).
 *
 * The host's view of the chip is decoded by the PCIe endpoint (fabric/pcie.h); this file serves
 * what it decodes to: TLB windows and tile accesses reach Tensix L1 and registers, DRAM banks or
 * the host's own memory (DMA callbacks) by translated NoC coordinates, BAR2 runs the DMA read
 * channel. One mutex serialises the host calls; the cores run on their own threads throughout.
 *
 * BHEMU_TTSIM_CHIPS=N presents N chips as PCI devices 0..N-1 of bus 0, each a bhemu device of its
 * own with its BARs at device 0's addresses plus N x 64 GiB (as ttsim's multi-chip builds place
 * them), so a host physical address names its chip; tt-umd drives such a library chip by chip
 * through the BDF, or, finding tt-umd's multi-device symbols, by selecting a chip before its calls.
 * The chips share the DMA callbacks (each has its own outbound iATU) and are not linked: their
 * Ethernet tiles' L1 is served, every link down, and the Ethernet switch symbols refuse links. */
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhemu/ttsim.h"
#include "fabric/arc.h"
#include "fabric/copy.h"
#include "fabric/noc.h"
#include "fabric/pcie.h"
#include "host/cq.h"
#include "host/device.h"
#include "host/profile.h"

#define TTSIM_API __attribute__((visibility("default")))

/* Host physical addresses of the BARs (the simulator's choice; a host reads them from config
 * space): BAR0 at 4 GiB, BAR2 at 4.5 GiB, BAR4 at 32 GiB, as ttsim places them. */
#define TTSIM_BAR0 0x100000000ull
#define TTSIM_BAR2 0x120000000ull
#define TTSIM_BAR4 0x800000000ull
#define TTSIM_CHIP_STRIDE 0x1000000000ull   /* chip d's BARs: chip 0's + d x 64 GiB */
#define TTSIM_MAX_CHIPS 32u                 /* the device field of a BDF: 5 bits */
#define TTSIM_DMA_CHUNK 4096u
/* Board names and the board type word of the ARC telemetry's board id: tt-umd takes the board
 * from its bits 31:4 (0x40, 0x41, 0x42 are P150s, 0x43 a P100; which P150 letter is which UPI is
 * not documented: bhemu takes them in order). A test grid reports a P150. */
static const struct {
	const char *name;
	enum bh_board board;
	uint32_t board_id_hi;
} ttsim_boards[] = {
	{ "p150", BH_BOARD_P150, 0x400 }, { "p150a", BH_BOARD_P150, 0x400 }, { "p150b", BH_BOARD_P150, 0x410 },
	{ "p150c", BH_BOARD_P150, 0x420 }, { "p100", BH_BOARD_P100, 0x430 }, { "p100a", BH_BOARD_P100, 0x430 },
};
#define TTSIM_GRID_BOARD_ID_HI 0x400u

/* One chip: PCI device `index`. */
struct ttsim_chip {
	unsigned index;
	struct bh_device *dev;
	struct bh_pcie pcie;
	struct bh_arc arc;
	bool *reported;      /* faulted cores already reported (ntiles * 5 flags) */
	uint64_t observer;
	struct bh_cq_model *cq;   /* bhemu_ttsim_cq_start's models, NULL: none */
	bool cq_reported;
	bool created;             /* libttsim_create_device_by_id handed out its handle */
};

static struct {
	pthread_mutex_t lock;
	/* Leaf locks taken by core threads too: the outbound iATUs (written under both), messages. */
	pthread_mutex_t iatu_lock, err_lock;
	bool running;
	unsigned nchips;
	unsigned selected;        /* libttsim_select_device_by_id: config device 0 and tile accesses */
	uint32_t board_id_hi;
	struct ttsim_chip chip[TTSIM_MAX_CHIPS];
	void (*dma_rd)(uint64_t paddr, void *dst, uint32_t size);
	void (*dma_wr)(uint64_t paddr, const void *src, uint32_t size);
	uint64_t ticks;
	/* Reports: NULL = none. */
	FILE *report;
	bool report_close;
	_Atomic unsigned stops;   /* bumped by the observer when a core stops */
	unsigned stops_seen;
	char last_error[512];
	unsigned errors;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .iatu_lock = PTHREAD_MUTEX_INITIALIZER,
	.err_lock = PTHREAD_MUTEX_INITIALIZER };

/* A misuse: one line on stderr, kept for bhemu_ttsim_last_error. Any thread. */
__attribute__((cold, format(printf, 1, 2)))
static void ttsim_error(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&g.err_lock);
	int n = snprintf(g.last_error, sizeof g.last_error, "bhemu-ttsim: ");
	va_start(ap, fmt);
	vsnprintf(g.last_error + n, sizeof g.last_error - (size_t)n, fmt, ap);
	va_end(ap);
	g.errors++;
	fprintf(stderr, "%s\n", g.last_error);
	pthread_mutex_unlock(&g.err_lock);
}

static bool ttsim_running(const char *fn)
{
	if (!g.running)
		ttsim_error("%s: the simulator is not running (call libttsim_init first)", fn);
	return g.running;
}

static bool ttsim_board(struct bh_device_config *cfg)
{
	const char *b = getenv("BHEMU_TTSIM_BOARD");
	unsigned c, r;
	char tail;
	cfg->board = BH_BOARD_P150;
	g.board_id_hi = ttsim_boards[0].board_id_hi;
	if (!b || !*b)
		return true;
	if (sscanf(b, "grid:%ux%u%c", &c, &r, &tail) == 2) {
		cfg->board = BH_BOARD_GRID;
		cfg->grid_cols = c;
		cfg->grid_rows = r;
		g.board_id_hi = TTSIM_GRID_BOARD_ID_HI;
		return true;
	}
	for (unsigned i = 0; i < sizeof ttsim_boards / sizeof ttsim_boards[0]; i++)
		if (!strcmp(b, ttsim_boards[i].name)) {
			cfg->board = ttsim_boards[i].board;
			g.board_id_hi = ttsim_boards[i].board_id_hi;
			return true;
		}
	ttsim_error("libttsim_init: BHEMU_TTSIM_BOARD is p150 (p150a, p150b, p150c), p100 (p100a) or grid:CxR, "
		    "not '%s'", b);
	return false;
}

static bool ttsim_chips(void)
{
	const char *s = getenv("BHEMU_TTSIM_CHIPS");
	char *end;
	g.nchips = 1;
	if (!s || !*s)
		return true;
	unsigned long n = strtoul(s, &end, 10);
	if (*end || n < 1 || n > TTSIM_MAX_CHIPS || *s == '-' || *s == '+') {
		ttsim_error("libttsim_init: BHEMU_TTSIM_CHIPS is a number of chips from 1 to %u, not '%s'",
			    TTSIM_MAX_CHIPS, s);
		return false;
	}
	g.nchips = (unsigned)n;
	return true;
}

static bool ttsim_report_open(void)
{
	const char *r = getenv("BHEMU_TTSIM_REPORT");
	g.report = stderr;
	g.report_close = false;
	if (!r || !*r || !strcmp(r, "stderr"))
		return true;
	if (!strcmp(r, "none")) {
		g.report = NULL;
		return true;
	}
	g.report = fopen(r, "a");
	if (!g.report) {
		ttsim_error("libttsim_init: BHEMU_TTSIM_REPORT: cannot open '%s' for appending", r);
		return false;
	}
	g.report_close = true;
	return true;
}

/* Core threads: a core stopped (exited, faulted, limit, reset). The next host call looks. */
static void ttsim_observe(void *arg, const struct bh_core_event *ev)
{
	if (ev->kind == BH_CORE_EVENT_STOPPED)
		atomic_fetch_add_explicit(&g.stops, 1, memory_order_release);
}

/* "chip D: " in messages when there are several chips, else "". */
static const char *ttsim_chip_tag(const struct ttsim_chip *c, char *buf, size_t len)
{
	if (g.nchips == 1)
		return "";
	snprintf(buf, len, "chip %u: ", c->index);
	return buf;
}

/* Report a failure of the fast-dispatch models once, and every core that faulted (or hit its limit,
 * or was stopped by a check) since it was last reported: once per stop (host calls, under g.lock). */
static void ttsim_report_faults(void)
{
	unsigned s = atomic_load_explicit(&g.stops, memory_order_acquire);
	if (!g.report)
		return;
	char tag[16], err[1024];
	for (unsigned d = 0; d < g.nchips; d++) {
		struct ttsim_chip *c = &g.chip[d];
		if (c->cq && !c->cq_reported && bh_cq_model_error(c->cq, err, sizeof err)) {
			fprintf(g.report, "bhemu-ttsim: %sfast dispatch stopped: %s\n", ttsim_chip_tag(c, tag, sizeof tag), err);
			fflush(g.report);
			c->cq_reported = true;
		}
	}
	if (s == g.stops_seen)
		return;
	g.stops_seen = s;
	struct bh_core_result *r = malloc(sizeof *r);
	for (unsigned d = 0; r && d < g.nchips; d++) {
		struct ttsim_chip *c = &g.chip[d];
		for (unsigned t = 0; t < c->dev->ntiles; t++)
			for (unsigned k = 0; k < BH_CORES_PER_TILE; k++) {
				bool *done = &c->reported[t * BH_CORES_PER_TILE + k];
				bh_core_result(c->dev, t, (enum bh_core_id)k, r);
				bool stopped = r->status == BH_RUN_FAULTED || r->status == BH_RUN_LIMIT;
				if (stopped && !*done) {
					fprintf(g.report, "bhemu-ttsim: %s%s\n", ttsim_chip_tag(c, tag, sizeof tag), r->report);
					fflush(g.report);
				}
				*done = stopped;
			}
	}
	free(r);
}

/* At exit: the check findings of the run (those that did not stop a core too, BHEMU_CHECK_MODE=log). */
static void ttsim_report_findings(const struct ttsim_chip *c)
{
	size_t cap = 1u << 20;
	char *buf = g.report ? malloc(cap) : NULL, tag[16];
	int n = buf ? bh_device_findings(c->dev, buf, cap) : 0;
	if (n > 0)
		fprintf(g.report, "bhemu-ttsim: %s%d check finding%s:\n%s", ttsim_chip_tag(c, tag, sizeof tag), n,
			n == 1 ? "" : "s", buf);
	free(buf);
}

/* len bytes of host memory at NoC address addr (the PCIe tile's host window, bit 60 set):
 * through the outbound iATU to the DMA callbacks. what names the requester for messages. */
static bool ttsim_host_window(struct ttsim_chip *c, const char *what, uint64_t addr, void *buf, uint32_t len,
			      bool write)
{
	char err[256], tag[16];
	uint64_t host;
	pthread_mutex_lock(&g.iatu_lock);
	bool ok = bh_pcie_host_addr(&c->pcie, addr, len, &host, err, sizeof err);
	pthread_mutex_unlock(&g.iatu_lock);
	if (!ok) {
		ttsim_error("%s%s: %s", ttsim_chip_tag(c, tag, sizeof tag), what, err);
		return false;
	}
	if (write ? !g.dma_wr : !g.dma_rd) {
		ttsim_error("%s: host memory 0x%llx + %u bytes through the PCIe tile, but no DMA callbacks were "
			    "installed (libttsim_set_pci_dma_mem_callbacks before libttsim_init)", what,
			    (unsigned long long)host, len);
		return false;
	}
	if (write)
		g.dma_wr(host, buf, len);
	else
		g.dma_rd(host, buf, len);
	return true;
}

/* Device-issued accesses to the host window (core or NoC threads, while host calls may be waiting
 * for those threads: not under g.lock). A refusal faults the initiating core. */
static bool ttsim_host_io(void *arg, uint64_t addr, void *buf, uint32_t len, bool write)
{
	return ttsim_host_window(arg, write ? "device write" : "device read", addr, buf, len, write);
}

/* Opens chip d (under g.lock, before g.running). False: a message was printed, nothing is left. */
static bool ttsim_chip_open(unsigned d, const struct bh_device_config *base)
{
	struct ttsim_chip *c = &g.chip[d];
	struct bh_device_config cfg = *base;
	uint64_t off = (uint64_t)d * TTSIM_CHIP_STRIDE;
	memset(c, 0, sizeof *c);
	c->index = d;
	cfg.host_io_arg = c;
	pthread_mutex_lock(&g.iatu_lock);
	bh_pcie_init(&c->pcie, TTSIM_BAR0 + off, TTSIM_BAR2 + off, TTSIM_BAR4 + off);
	pthread_mutex_unlock(&g.iatu_lock);
	int rc = bh_device_open(&cfg, &c->dev);
	if (rc != BH_OK) {
		ttsim_error("libttsim_init: cannot open chip %u (error %d; the reason is on stderr above)", d, rc);
		c->dev = NULL;
		return false;
	}
	c->reported = calloc(c->dev->ntiles * BH_CORES_PER_TILE, sizeof *c->reported);
	if (!c->reported || bh_device_observe(c->dev, ttsim_observe, NULL, &c->observer) != BH_OK) {
		ttsim_error("libttsim_init: out of memory");
		free(c->reported);
		bh_device_close(c->dev);
		c->dev = NULL;
		return false;
	}
	bh_arc_init(&c->arc, g.board_id_hi, &c->dev->chip.topo);
	bh_eth_set_ids(&c->dev->chip, g.board_id_hi, 1, 0, 1);   /* ARC's BOARD_ID_LOW and ASIC_ID */
	return true;
}

static void ttsim_chip_close(struct ttsim_chip *c, bool report)
{
	if (!c->dev)
		return;
	if (c->cq) {
		bh_cq_model_stop(c->cq);
		free(c->cq);
		c->cq = NULL;
	}
	if (report)
		ttsim_report_findings(c);
	bh_device_unobserve(c->dev, c->observer);
	bh_device_close(c->dev);
	c->dev = NULL;
	free(c->reported);
	c->reported = NULL;
}

TTSIM_API void libttsim_init(void)
{
	pthread_mutex_lock(&g.lock);
	if (g.running) {
		ttsim_error("libttsim_init: the simulator is already running (one libttsim_init per libttsim_exit)");
		goto out;
	}
	pthread_mutex_lock(&g.err_lock);
	g.last_error[0] = 0;
	pthread_mutex_unlock(&g.err_lock);
	struct bh_device_config cfg = { .host_io = ttsim_host_io };
	if (!ttsim_board(&cfg) || !ttsim_chips() || !ttsim_report_open())
		goto out;
	for (unsigned d = 0; d < g.nchips; d++)
		if (!ttsim_chip_open(d, &cfg)) {
			while (d--)
				ttsim_chip_close(&g.chip[d], false);
			goto fail;
		}
	g.ticks = 0;
	g.selected = 0;
	g.stops_seen = atomic_load(&g.stops);
	g.running = true;
	goto out;
fail:
	if (g.report_close)
		fclose(g.report);
	g.report = NULL;
out:
	pthread_mutex_unlock(&g.lock);
}

TTSIM_API void libttsim_exit(void)
{
	pthread_mutex_lock(&g.lock);
	if (ttsim_running("libttsim_exit")) {
		ttsim_report_faults();
		for (unsigned d = 0; d < g.nchips; d++)
			ttsim_chip_close(&g.chip[d], true);
		if (g.report_close)
			fclose(g.report);
		g.report = NULL;
		g.running = false;
	}
	pthread_mutex_unlock(&g.lock);
}

TTSIM_API void libttsim_set_pci_dma_mem_callbacks(void (*rd)(uint64_t, void *, uint32_t),
						  void (*wr)(uint64_t, const void *, uint32_t))
{
	pthread_mutex_lock(&g.lock);
	if (g.running)
		ttsim_error("libttsim_set_pci_dma_mem_callbacks: install the callbacks before libttsim_init");
	else {
		g.dma_rd = rd;
		g.dma_wr = wr;
	}
	pthread_mutex_unlock(&g.lock);
}

/* Bus and function must be 0; devices 0..nchips-1 are the chips. Returns the device, -1 on misuse. */
static int ttsim_bdf(const char *fn, uint32_t bdf, uint32_t off)
{
	if (bdf >> 8 || bdf & 7) {
		ttsim_error("%s: bus_device_function 0x%x: bus and function must be 0", fn, bdf);
		return -1;
	}
	if (off & 3) {
		ttsim_error("%s: offset 0x%x is not 4-byte aligned", fn, off);
		return -1;
	}
	return bdf >> 3 ? (int)(bdf >> 3) : (int)g.selected;   /* device 0: the selected chip */
}

TTSIM_API uint32_t libttsim_pci_config_rd32(uint32_t bdf, uint32_t off)
{
	uint32_t val = 0xFFFFFFFFu;
	char err[256];
	pthread_mutex_lock(&g.lock);
	int d = ttsim_running("libttsim_pci_config_rd32") ? ttsim_bdf("libttsim_pci_config_rd32", bdf, off) : -1;
	if (d >= 0 && (unsigned)d < g.nchips && !bh_pcie_config_read(&g.chip[d].pcie, off, &val, err, sizeof err)) {
		ttsim_error("libttsim_pci_config_rd32: %s", err);
		val = 0xFFFFFFFFu;
	}
	pthread_mutex_unlock(&g.lock);
	return val;           /* devices past the last chip: all-ones, "no device" */
}

TTSIM_API void libttsim_pci_config_wr32(uint32_t bdf, uint32_t off, uint32_t data)
{
	char err[256];
	pthread_mutex_lock(&g.lock);
	int d = ttsim_running("libttsim_pci_config_wr32") ? ttsim_bdf("libttsim_pci_config_wr32", bdf, off) : -1;
	if (d >= 0 && (unsigned)d >= g.nchips)
		ttsim_error("libttsim_pci_config_wr32: device %d does not exist (devices 0-%u)", d, g.nchips - 1);
	else if (d >= 0 && !bh_pcie_config_write(&g.chip[d].pcie, off, data, err, sizeof err))
		ttsim_error("libttsim_pci_config_wr32: %s", err);
	pthread_mutex_unlock(&g.lock);
}

/* A host access of len bytes at NoC-local addr of the endpoint at translated (x, y): the
 * request a TLB window or a tile access makes. what names the path for messages. */
static bool ttsim_noc(struct ttsim_chip *c, const char *what, unsigned x, unsigned y, uint64_t addr, void *buf,
		      uint32_t len, bool write)
{
	struct bh_device *dev = c->dev;
	struct bh_endpoint ep = bh_topology_at(&dev->chip.topo, x, y);
	switch (ep.kind) {
	case BH_EP_TENSIX:
		if (addr < BH_L1_SIZE && len <= BH_L1_SIZE - addr) {
			if (write)
				bh_l1_write(dev, ep.index, (uint32_t)addr, buf, len);
			else
				bh_l1_read(dev, ep.index, (uint32_t)addr, buf, len);
			return true;
		}
		if (addr >= BH_NOC_MMIO_BASE && addr + len <= 1ull << 32) {
			if ((addr | len) & 3) {
				ttsim_error("%s: tile (%u,%u) register 0x%llx, %u bytes: registers take 4-byte words at aligned addresses",
					    what, x, y, (unsigned long long)addr, len);
				return false;
			}
			for (uint32_t i = 0; i < len; i += 4) {
				uint32_t v;
				memcpy(&v, (uint8_t *)buf + i, 4);
				int rc = write ? bh_reg_write(dev, ep.index, (uint32_t)addr + i, v)
					       : bh_reg_read(dev, ep.index, (uint32_t)addr + i, &v);
				if (rc != BH_OK) {
					ttsim_error("%s: tile (%u,%u) register 0x%llx: the tile refuses a host %s there", what,
						    x, y, (unsigned long long)addr + i, write ? "write" : "read");
					return false;
				}
				if (!write)
					memcpy((uint8_t *)buf + i, &v, 4);
			}
			return true;
		}
		ttsim_error("%s: tile (%u,%u) address 0x%llx + %u bytes: neither L1 (0-0x%x) nor registers (from 0x%x)",
			    what, x, y, (unsigned long long)addr, len, BH_L1_SIZE - 1, BH_NOC_MMIO_BASE);
		return false;
	case BH_EP_DRAM: {
		int rc = write ? bh_dram_write(dev, ep.index, addr, buf, len) : bh_dram_read(dev, ep.index, addr, buf, len);
		if (rc != BH_OK)
			ttsim_error("%s: DRAM bank %u at (%u,%u): 0x%llx + %u bytes leaves its 0x%llx usable bytes", what,
				    ep.index, x, y, (unsigned long long)addr, len, (unsigned long long)BH_DRAM_BANK_USABLE);
		return rc == BH_OK;
	}
	case BH_EP_ETH: {
		uint8_t *p = addr < BH_ETH_L1_SIZE ? bh_eth_l1_ptr(&dev->chip, ep.index, addr, len) : NULL;
		if (p) {    /* relaxed atomic copies against the cores' NoC ones, as the host's DRAM copies */
			if (write) {
				bh_copy_relaxed(p, buf, len);
				bh_device_host_acted(dev);
			} else
				bh_copy_relaxed(buf, p, len);
			return true;
		}
		ttsim_error("%s: Ethernet tile (%u,%u) (channel %u) address 0x%llx + %u bytes: only its L1 (0-0x%x) is "
			    "modelled, not its registers or ERISC cores", what, x, y, dev->chip.topo.eth_chan[ep.index],
			    (unsigned long long)addr, len, BH_ETH_L1_SIZE - 1);
		return false;
	}
	case BH_EP_PCIE:
		if (!(addr & BH_NOC_PCIE_BIT)) {
			ttsim_error("%s: PCIe tile (%u,%u) address 0x%llx: not in the host window (bit 60 clear)", what, x,
				    y, (unsigned long long)addr);
			return false;
		}
		return ttsim_host_window(c, what, addr, buf, len, write);
	default:
		if (x == BH_ARC_X && y == BH_ARC_Y) {
			char err[256];
			bool ok = write ? bh_arc_write(&c->arc, addr, buf, len, err, sizeof err)
					: bh_arc_read(&c->arc, addr, buf, len, err, sizeof err);
			if (!ok)
				ttsim_error("%s: %s", what, err);
			return ok;
		}
		ttsim_error("%s: no endpoint at NoC (%u,%u) (translated coordinates: Tensix, DRAM, Ethernet, the "
			    "PCIe tile and ARC are modelled; harvested tiles are absent)", what, x, y);
		return false;
	}
}

/* A write through TLB `index`: unicast, or to every Tensix tile of the multicast rectangle. */
static bool ttsim_tlb_write(struct ttsim_chip *c, const struct bh_pcie_target *t, const void *src, uint32_t len)
{
	char what[64], tag[16];
	snprintf(what, sizeof what, "%sTLB %u", ttsim_chip_tag(c, tag, sizeof tag), t->index);
	if (!t->tlb.mcast)
		return ttsim_noc(c, what, t->tlb.x_end, t->tlb.y_end, t->addr, (void *)src, len, true);
	const struct bh_topology *topo = &c->dev->chip.topo;
	unsigned x0 = t->tlb.x_start, y0 = t->tlb.y_start, x1 = t->tlb.x_end, y1 = t->tlb.y_end, n = 0;
	if (x0 > x1 || y0 > y1) {
		ttsim_error("%s: multicast from (%u,%u) to (%u,%u): the start is past the end", what, x0, y0, x1, y1);
		return false;
	}
	for (unsigned y = y0; y <= y1; y++)
		for (unsigned x = x0; x <= x1; x++)
			if (bh_topology_at(topo, x, y).kind == BH_EP_TENSIX) {
				if (!ttsim_noc(c, what, x, y, t->addr, (void *)src, len, true))
					return false;
				n++;
			}
	if (!n)
		ttsim_error("%s: multicast rectangle (%u,%u)-(%u,%u) holds no Tensix tile", what, x0, y0, x1, y1);
	return n > 0;
}

/* The PCIe tile's NIU registers the host reads through BAR0: NOC_NODE_ID and NIU_CFG_0 (bit 14:
 * coordinate translation on, as bhemu always works in translated coordinates). */
static bool ttsim_niu_read(unsigned noc, uint32_t off, uint32_t *val)
{
	switch (off) {
	case 0x44: *val = BH_PCIE_X | BH_PCIE_Y << 6; return true;
	case 0x100: *val = 1u << 14; return true;
	default:
		ttsim_error("BAR0 PCIe NIU (NoC%u) register 0x%x: only NOC_NODE_ID (0x44) and NIU_CFG_0 (0x100) are "
			    "modelled", noc, off);
		return false;
	}
}

/* The DMA read channel's doorbell: size bytes from host address SAR to the device at BAR0 offset
 * DAR (through that TLB window), in chunks through the read callback; SIZE reads 0 when done. */
static void ttsim_dma_read_channel(struct ttsim_chip *c)
{
	uint32_t *r = c->pcie.dma_rd;
	uint32_t size = r[(BH_DMA_RD_SIZE - BH_BAR2_DMA_RD_BASE) / 4];
	uint32_t dar = r[(BH_DMA_RD_DAR_LO - BH_BAR2_DMA_RD_BASE) / 4];
	uint64_t sar = (uint64_t)r[(BH_DMA_RD_SAR_HI - BH_BAR2_DMA_RD_BASE) / 4] << 32 |
		       r[(BH_DMA_RD_SAR_LO - BH_BAR2_DMA_RD_BASE) / 4];
	uint8_t buf[TTSIM_DMA_CHUNK];
	char err[256];
	if (!g.dma_rd) {
		ttsim_error("DMA read channel: doorbell rung but no DMA callbacks were installed "
			    "(libttsim_set_pci_dma_mem_callbacks before libttsim_init)");
		return;
	}
	if (!size || (size & 3) || (dar & 3) || r[(BH_DMA_RD_DAR_HI - BH_BAR2_DMA_RD_BASE) / 4]) {
		ttsim_error("DMA read channel: size %u, device address 0x%x: a transfer is a non-zero multiple of 4 "
			    "bytes to an aligned BAR0 offset", size, dar);
		return;
	}
	for (uint32_t off = 0; off < size;) {
		uint32_t n = size - off < TTSIM_DMA_CHUNK ? size - off : TTSIM_DMA_CHUNK;
		struct bh_pcie_target t;
		if (!bh_pcie_decode(&c->pcie, TTSIM_BAR0 + c->index * TTSIM_CHIP_STRIDE + dar + off, n, &t, err,
				    sizeof err) ||
		    t.kind != BH_PCIE_TLB_WINDOW) {
			ttsim_error("DMA read channel: device address 0x%x: %s", dar + off,
				    t.kind == BH_PCIE_NONE ? err : "not a TLB window");
			return;
		}
		g.dma_rd(sar + off, buf, n);
		if (!ttsim_tlb_write(c, &t, buf, n))
			return;
		off += n;
	}
	r[(BH_DMA_RD_SIZE - BH_BAR2_DMA_RD_BASE) / 4] = 0;
}

/* What every BAR access checks first: the simulator runs, there is a buffer, a BAR of a chip maps
 * paddr. Returns that chip, NULL on misuse. */
static struct ttsim_chip *ttsim_bar_target(const char *fn, uint64_t paddr, const void *buf, uint32_t size,
					   struct bh_pcie_target *t)
{
	char err[256], tag[16];
	if (!ttsim_running(fn))
		return NULL;
	if (!buf) {
		ttsim_error("%s: NULL buffer", fn);
		return NULL;
	}
	uint64_t d = paddr / TTSIM_CHIP_STRIDE;
	if (d >= g.nchips) {
		ttsim_error("%s: 0x%llx + %u bytes: no BAR maps it (chip %llu's window; there %s %u chip%s)", fn,
			    (unsigned long long)paddr, size, (unsigned long long)d, g.nchips == 1 ? "is" : "are",
			    g.nchips, g.nchips == 1 ? "" : "s");
		return NULL;
	}
	struct ttsim_chip *c = &g.chip[d];
	if (!bh_pcie_decode(&c->pcie, paddr, size, t, err, sizeof err)) {
		ttsim_error("%s: %s%s", fn, ttsim_chip_tag(c, tag, sizeof tag), err);
		return NULL;
	}
	return c;
}

TTSIM_API void libttsim_pci_mem_rd_bytes(uint64_t paddr, void *dst, uint32_t size)
{
	struct bh_pcie_target t;
	char err[256];
	bool ok = false;
	pthread_mutex_lock(&g.lock);
	struct ttsim_chip *c = ttsim_bar_target("libttsim_pci_mem_rd_bytes", paddr, dst, size, &t);
	if (!c)
		goto out;
	uint32_t v = 0;
	switch (t.kind) {
	case BH_PCIE_TLB_WINDOW:
		if (t.tlb.mcast) {
			ttsim_error("libttsim_pci_mem_rd_bytes: TLB %u is a multicast window: it cannot be read", t.index);
			break;
		}
		char what[48], tag[16];
		snprintf(what, sizeof what, "%sTLB %u", ttsim_chip_tag(c, tag, sizeof tag), t.index);
		ok = ttsim_noc(c, what, t.tlb.x_end, t.tlb.y_end, t.addr, dst, size, false);
		break;
	case BH_PCIE_TLB_CFG:
		v = c->pcie.tlb_cfg[t.index];
		ok = true;
		break;
	case BH_PCIE_NIU:
		ok = ttsim_niu_read(t.index, t.off, &v);
		break;
	case BH_PCIE_DMA:
		v = c->pcie.dma_rd[(t.off - BH_BAR2_DMA_RD_BASE) / 4];
		ok = true;
		break;
	case BH_PCIE_IATU:
		ok = bh_pcie_iatu_read(&c->pcie, t.off, &v, err, sizeof err);
		if (!ok)
			ttsim_error("libttsim_pci_mem_rd_bytes: BAR2 %s", err);
		break;
	default:
		break;
	}
	if (ok && t.kind != BH_PCIE_TLB_WINDOW)
		memcpy(dst, &v, 4);
	ttsim_report_faults();
out:
	if (!ok && dst)
		memset(dst, 0xFF, size);
	pthread_mutex_unlock(&g.lock);
}

TTSIM_API void libttsim_pci_mem_wr_bytes(uint64_t paddr, const void *src, uint32_t size)
{
	struct bh_pcie_target t;
	char err[256];
	uint32_t v = 0;
	pthread_mutex_lock(&g.lock);
	struct ttsim_chip *c = ttsim_bar_target("libttsim_pci_mem_wr_bytes", paddr, src, size, &t);
	if (!c)
		goto out;
	if (t.kind != BH_PCIE_TLB_WINDOW)
		memcpy(&v, src, 4);
	switch (t.kind) {
	case BH_PCIE_TLB_WINDOW:
		ttsim_tlb_write(c, &t, src, size);
		break;
	case BH_PCIE_TLB_CFG:
		c->pcie.tlb_cfg[t.index] = v;   /* checked when the window is used */
		break;
	case BH_PCIE_NIU:
		ttsim_error("libttsim_pci_mem_wr_bytes: BAR0 PCIe NIU (NoC%u) register 0x%x: read-only here", t.index,
			    t.off);
		break;
	case BH_PCIE_DMA:
		c->pcie.dma_rd[(t.off - BH_BAR2_DMA_RD_BASE) / 4] = v;
		if (t.off == BH_DMA_RD_DOORBELL)
			ttsim_dma_read_channel(c);
		break;
	case BH_PCIE_IATU:
		pthread_mutex_lock(&g.iatu_lock);
		bool ok = bh_pcie_iatu_write(&c->pcie, t.off, v, err, sizeof err);
		pthread_mutex_unlock(&g.iatu_lock);
		if (!ok)
			ttsim_error("libttsim_pci_mem_wr_bytes: BAR2 %s", err);
		break;
	default:
		break;
	}
	ttsim_report_faults();
out:
	pthread_mutex_unlock(&g.lock);
}

TTSIM_API void libttsim_tile_rd_bytes(uint32_t x, uint32_t y, uint64_t addr, void *dst, uint32_t size)
{
	pthread_mutex_lock(&g.lock);
	bool ok = false;
	if (!dst)
		ttsim_error("libttsim_tile_rd_bytes: NULL destination");
	else if (ttsim_running("libttsim_tile_rd_bytes"))
		ok = ttsim_noc(&g.chip[g.selected], "libttsim_tile_rd_bytes", x, y, addr, dst, size, false);
	if (!ok && dst)
		memset(dst, 0xFF, size);
	pthread_mutex_unlock(&g.lock);
}

TTSIM_API void libttsim_tile_wr_bytes(uint32_t x, uint32_t y, uint64_t addr, const void *src, uint32_t size)
{
	pthread_mutex_lock(&g.lock);
	if (!src)
		ttsim_error("libttsim_tile_wr_bytes: NULL source");
	else if (ttsim_running("libttsim_tile_wr_bytes"))
		ttsim_noc(&g.chip[g.selected], "libttsim_tile_wr_bytes", x, y, addr, (void *)src, size, true);
	pthread_mutex_unlock(&g.lock);
}

/* Virtual time only: the cores are free-running threads that never wait for the host's clock.
 * The caller gives up its CPU once so that core threads get to run on a busy host; nothing
 * spins or sleeps. */
TTSIM_API void libttsim_clock(uint32_t n)
{
	pthread_mutex_lock(&g.lock);
	if (ttsim_running("libttsim_clock")) {
		g.ticks += n;
		ttsim_report_faults();
	}
	pthread_mutex_unlock(&g.lock);
	sched_yield();
}

/* tt-umd's multi-device symbols (tt_sim_communicator.cpp): finding create and select, it resolves
 * all of them, shares one dlopen among its chips, calls libttsim_init once, then
 * create_device_by_id(chip_id, chip_x, chip_y) per chip, and select_device_by_id before each of a
 * chip's calls. bhemu's chips are those BHEMU_TTSIM_CHIPS presents; the handle is the chip. */
TTSIM_API void *libttsim_create_device_by_id(uint32_t chip_id, int chip_x, int chip_y)
{
	void *h = NULL;
	(void)chip_x;
	(void)chip_y;    /* a place in a mesh: meaningful only with Ethernet links */
	pthread_mutex_lock(&g.lock);
	if (!ttsim_running("libttsim_create_device_by_id"))
		goto out;
	if (chip_id >= g.nchips) {
		ttsim_error("libttsim_create_device_by_id: chip %u does not exist (BHEMU_TTSIM_CHIPS presents %u "
			    "chip%s, 0-%u)", chip_id, g.nchips, g.nchips == 1 ? "" : "s", g.nchips - 1);
		goto out;
	}
	g.chip[chip_id].created = true;
	h = &g.chip[chip_id];
out:
	pthread_mutex_unlock(&g.lock);
	return h;
}

TTSIM_API void libttsim_select_device_by_id(uint32_t chip_id)
{
	pthread_mutex_lock(&g.lock);
	if (ttsim_running("libttsim_select_device_by_id")) {
		if (chip_id < g.nchips)
			g.selected = chip_id;
		else
			ttsim_error("libttsim_select_device_by_id: chip %u does not exist (chips 0-%u); chip %u stays "
				    "selected", chip_id, g.nchips - 1, g.selected);
	}
	pthread_mutex_unlock(&g.lock);
}

/* The cores of every chip run on their own threads: clocking all chips is clocking one. */
TTSIM_API void libttsim_clock_all_devices(uint32_t n)
{
	libttsim_clock(n);
}

/* The chip behind a handle of libttsim_create_device_by_id, NULL (with a message) if it is none. */
static struct ttsim_chip *ttsim_handle(const char *fn, void *dev)
{
	for (unsigned d = 0; d < g.nchips; d++)
		if (dev == &g.chip[d] && g.chip[d].created)
			return &g.chip[d];
	ttsim_error("%s: %p is not a handle of libttsim_create_device_by_id", fn, dev);
	return NULL;
}

/* The Ethernet switch: bhemu's chips are not linked (no Ethernet link is modelled), so the switch
 * routes nothing. Resetting and draining it succeed; wiring a link is refused by name, and the
 * channel stays down (ETH_LIVE_STATUS, its port status). */
static void ttsim_switch_refuse(const char *fn, void *dev, uint32_t tile_id)
{
	pthread_mutex_lock(&g.lock);
	struct ttsim_chip *c = ttsim_running(fn) ? ttsim_handle(fn, dev) : NULL;
	if (c)
		ttsim_error("%s: chip %u Ethernet channel %u: chips are not linked (bhemu models no Ethernet links); "
			    "the channel stays down", fn, c->index, tile_id);
	pthread_mutex_unlock(&g.lock);
}

TTSIM_API void libttsim_switch_reset(void)
{
	pthread_mutex_lock(&g.lock);
	ttsim_running("libttsim_switch_reset");
	pthread_mutex_unlock(&g.lock);
}

TTSIM_API void libttsim_switch_drain(void)
{
	pthread_mutex_lock(&g.lock);
	ttsim_running("libttsim_switch_drain");
	pthread_mutex_unlock(&g.lock);
}

TTSIM_API void libttsim_switch_register(void *dev, uint32_t tile_id, uint64_t mac)
{
	(void)mac;
	ttsim_switch_refuse("libttsim_switch_register", dev, tile_id);
}

TTSIM_API void libttsim_configure_eth_link_virtual(void *dev, uint32_t tile_id, uint64_t local_mac)
{
	(void)local_mac;
	ttsim_switch_refuse("libttsim_configure_eth_link_virtual", dev, tile_id);
}

TTSIM_API void libttsim_switch_register_peer(void *dev, uint32_t tile_id, void *peer_dev, uint32_t peer_tile_id)
{
	(void)peer_dev;
	(void)peer_tile_id;
	ttsim_switch_refuse("libttsim_switch_register_peer", dev, tile_id);
}

TTSIM_API int bhemu_ttsim_cq_start(unsigned chip, uint32_t host_offset, uint32_t issue_size, uint32_t completion_size)
{
	int rc = -1;
	pthread_mutex_lock(&g.lock);
	if (!ttsim_running("bhemu_ttsim_cq_start"))
		goto out;
	if (chip >= g.nchips) {
		ttsim_error("bhemu_ttsim_cq_start: chip %u does not exist (chips 0-%u)", chip, g.nchips - 1);
		goto out;
	}
	struct ttsim_chip *c = &g.chip[chip];
	struct bh_device *dev = c->dev;
	const struct bh_topology *topo = &dev->chip.topo;
	if (c->cq) {
		ttsim_error("bhemu_ttsim_cq_start: chip %u already runs the fast-dispatch models", chip);
		goto out;
	}
	if (!topo->dispatch_x) {
		ttsim_error("bhemu_ttsim_cq_start: this board has no fast-dispatch tiles (a grid needs two rows)");
		goto out;
	}
	if (issue_size % BH_CQ_PAGE || completion_size % BH_CQ_PAGE || issue_size < 2 * BH_CQ_PAGE ||
	    completion_size < BH_CQ_PAGE || host_offset % BH_CQ_PCIE_ALIGN ||
	    (uint64_t)host_offset + BH_CQ_HOST_ISSUE_BASE + issue_size + completion_size > 1ull << 32) {
		ttsim_error("bhemu_ttsim_cq_start: host offset 0x%x, issue ring %u and completion ring %u bytes: the offset "
			    "64-byte aligned, the rings multiples of 4096 (issue at least 8192), all below 4 GiB",
			    host_offset, issue_size, completion_size);
		goto out;
	}
	const struct bh_profile *prof = bh_profile_default();
	unsigned pf = topo->map[topo->dispatch_y[0]][topo->dispatch_x].index;
	unsigned dp = topo->map[topo->dispatch_y[1]][topo->dispatch_x].index;
	struct bh_cq_model *m = calloc(1, sizeof *m);
	if (!m) {
		ttsim_error("bhemu_ttsim_cq_start: out of memory");
		goto out;
	}
	bh_cq_model_setup(m, dev, prof, pf, dp, host_offset, issue_size, completion_size, prof->num_dram_banks,
			  prof->num_l1_banks, 0);
	if (bh_cq_hold_tile(dev, pf) != BH_OK || bh_cq_hold_tile(dev, dp) != BH_OK) {
		ttsim_error("bhemu_ttsim_cq_start: the fast-dispatch tiles' cores did not stop when held in reset");
		free(m);
		goto out;
	}
	bh_cq_model_l1_init(dev, m, pf, dp);
	if (bh_cq_model_start(m) != 0) {
		ttsim_error("bhemu_ttsim_cq_start: cannot start the prefetch and dispatch threads");
		free(m);
		goto out;
	}
	c->cq = m;
	c->cq_reported = false;
	rc = 0;
out:
	pthread_mutex_unlock(&g.lock);
	return rc;
}

TTSIM_API unsigned bhemu_ttsim_last_error(char *buf, size_t len)
{
	pthread_mutex_lock(&g.err_lock);
	if (buf && len)
		snprintf(buf, len, "%s", g.last_error);
	unsigned n = g.errors;
	pthread_mutex_unlock(&g.err_lock);
	return n;
}

TTSIM_API uint64_t bhemu_ttsim_ticks(void)
{
	pthread_mutex_lock(&g.lock);
	uint64_t t = g.ticks;
	pthread_mutex_unlock(&g.lock);
	return t;
}
