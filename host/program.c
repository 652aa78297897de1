/* Programs and slow dispatch (launch.md 9-11, firmware/kernel/ABI.md): lay out the kernel-config
 * area, write it over the host API, set every tile's go signal and wait for DONE.
 *
 * One layout serves every tile of a program (as tt-metal's does): runtime args of processors 0-4,
 * semaphores, CB config slots, then the kernel images, each 16-byte aligned. Images are placed
 * (relocated) once per launch and kernel, and written to a tile only when the tile's resident
 * blob (CB configs + images) is not already this program's current one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/hw.h"
#include "host/device.h"
#include "host/trace.h"
#include "host/kernel.h"
#include "host/profile.h"
#include "host/program.h"
#include "sync/streams.h"

#define PROG_NPROC		5u
#define PROG_ERR_LEN		2048u
#define PROG_POLL_NS		20000L		/* between polls of the go signals */
#define PROG_CHECK_EVERY	64u		/* polls between looks for faults and deadlock */
#define PROG_PROGRESS_S		0.05
#define PROG_DEFAULT_TIMEOUT_S	10.0
#define PROG_KCB_DEFAULT_SIZE	0x9000u		/* kernel-config area when the profile bounds none */
#define PROG_L1_ALIGN		16u

enum { RUN_MSG_DONE = 0x00, RUN_MSG_GO = 0x80, RUN_MSG_RESET_READ_PTR_FROM_HOST = 0xE0 };
enum { NO_REMOTE_CBS = 32 };
#define INSN_RET 0x00008067u

struct prog_kernel {
	struct bh_kernel_image *img;
	unsigned proc;
	uint32_t common[BH_PROGRAM_MAX_ARGS];
	unsigned ncommon;
};

struct prog_cb {
	struct bh_cb_config cfg;
	bool *tiles;
};

struct prog_sem {
	uint32_t init;
	bool *tiles;
};

/* Per tile: which kernel runs on each processor, its runtime args. */
struct prog_tile {
	int kernel[PROG_NPROC];                 /* -1: none */
	uint32_t *rta[PROG_NPROC];
	unsigned nrta[PROG_NPROC];
};

/* The kernel-config layout of the current program version (offsets from kcb). */
struct prog_layout {
	bool valid;
	uint32_t rta[PROG_NPROC], crta[PROG_NPROC], sem, local_cb, remote_cb, text[PROG_NPROC];
	uint32_t blob_off, size;                /* [blob_off, size): CB configs and images */
	uint32_t max_cb;                        /* CB slots written (highest index + 1) */
};

struct bh_program {
	struct bh_device *dev;
	unsigned ntiles;
	struct prog_tile *tiles;
	struct prog_kernel *kernels;
	unsigned nkernels;
	struct prog_cb *cbs;
	unsigned ncbs;
	struct prog_sem sems[BH_PROGRAM_MAX_SEMAPHORES];
	unsigned nsems;
	uint32_t alloc_next;                    /* next free L1 byte for allocated CBs */
	uint64_t blob_id;                       /* changes whenever kernels or CBs change */
	struct prog_layout lay;
	char *err;
};


static int prog_fail(struct bh_program *p, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, PROG_ERR_LEN, fmt, ap);
	va_end(ap);
	return rc;
}

static void prog_changed(struct bh_program *p)
{
	/* Per device: a run's launch messages do not depend on what else the process did. */
	p->blob_id = atomic_fetch_add(&p->dev->next_blob_id, 1) + 1;
	p->lay.valid = false;
}

static double prog_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bh_program_create(struct bh_device *dev, struct bh_program **out)
{
	if (!dev || !out)
		return BH_ERR_ARG;
	struct bh_program *p = calloc(1, sizeof *p);
	if (!p)
		return BH_ERR_SYS;
	p->dev = dev;
	p->ntiles = dev->ntiles;
	p->tiles = calloc(p->ntiles, sizeof *p->tiles);
	p->err = calloc(1, PROG_ERR_LEN);
	if (!p->tiles || !p->err) {
		bh_program_destroy(p);
		return BH_ERR_SYS;
	}
	for (unsigned t = 0; t < p->ntiles; t++)
		for (unsigned k = 0; k < PROG_NPROC; k++)
			p->tiles[t].kernel[k] = -1;
	prog_changed(p);
	*out = p;
	return BH_OK;
}

void bh_program_destroy(struct bh_program *p)
{
	if (!p)
		return;
	for (unsigned t = 0; p->tiles && t < p->ntiles; t++)
		for (unsigned k = 0; k < PROG_NPROC; k++)
			free(p->tiles[t].rta[k]);
	for (unsigned i = 0; i < p->nkernels; i++)
		bh_kernel_unref(p->kernels[i].img);
	for (unsigned i = 0; i < p->ncbs; i++)
		free(p->cbs[i].tiles);
	for (unsigned i = 0; i < p->nsems; i++)
		free(p->sems[i].tiles);
	free(p->kernels);
	free(p->cbs);
	free(p->tiles);
	free(p->err);
	free(p);
}

const char *bh_program_error(const struct bh_program *p)
{
	return p && p->err ? p->err : "";
}

/* ---- Tile sets ---------------------------------------------------------------------------------- */

/* Marks the tiles of the ranges in set (ntiles bools); a range off the grid is an error. */
static int prog_ranges(struct bh_program *p, const struct bh_core_range *r, unsigned n, bool *set)
{
	const struct bh_topology *topo = &p->dev->chip.topo;
	if (!r || n == 0)
		return prog_fail(p, BH_ERR_ARG, "no core ranges given");
	for (unsigned i = 0; i < n; i++) {
		if (r[i].x0 > r[i].x1 || r[i].y0 > r[i].y1 || r[i].x1 >= topo->cols || r[i].y1 >= topo->rows)
			return prog_fail(p, BH_ERR_ARG, "core range (%u,%u)-(%u,%u) is not inside the %ux%u worker grid",
					 r[i].x0, r[i].y0, r[i].x1, r[i].y1, topo->cols, topo->rows);
		for (unsigned y = r[i].y0; y <= r[i].y1; y++)
			for (unsigned x = r[i].x0; x <= r[i].x1; x++) {
				unsigned t = y * topo->cols + x;
				if (t >= p->ntiles)
					return prog_fail(p, BH_ERR_ARG, "logical tile (%u,%u) does not exist on this "
							 "device (%u tiles)", x, y, p->ntiles);
				set[t] = true;
			}
	}
	return BH_OK;
}

/* ---- Kernels ------------------------------------------------------------------------------------ */

static int prog_add_image(struct bh_program *p, unsigned proc, struct bh_kernel_image *img,
			  const struct bh_core_range *ranges, unsigned nranges)
{
	bool *set = calloc(p->ntiles, sizeof *set);
	struct prog_kernel *ks = realloc(p->kernels, (p->nkernels + 1) * sizeof *ks);
	int rc = set && ks ? BH_OK : prog_fail(p, BH_ERR_SYS, "out of memory");
	if (ks)
		p->kernels = ks;
	if (rc == BH_OK)
		rc = prog_ranges(p, ranges, nranges, set);
	for (unsigned t = 0; t < p->ntiles && rc == BH_OK; t++)
		if (set[t] && p->tiles[t].kernel[proc] >= 0)
			rc = prog_fail(p, BH_ERR_ARG, "%s: tile %u already runs kernel %d (%s) on %s", img->path, t,
				       p->tiles[t].kernel[proc], p->kernels[p->tiles[t].kernel[proc]].img->path,
				       bh_core_name((enum bh_core_id)proc));
	if (rc != BH_OK) {
		free(set);
		bh_kernel_unref(img);
		return rc;
	}
	int id = (int)p->nkernels++;
	p->kernels[id] = (struct prog_kernel){ .img = img, .proc = proc };
	for (unsigned t = 0; t < p->ntiles; t++)
		if (set[t])
			p->tiles[t].kernel[proc] = id;
	free(set);
	prog_changed(p);
	return id;
}

int bh_program_add_kernel(struct bh_program *p, enum bh_core_id proc, const char *path,
			  const struct bh_core_range *ranges, unsigned nranges, const uint32_t *ct, unsigned nct)
{
	if (!p)
		return BH_ERR_ARG;
	if ((unsigned)proc >= PROG_NPROC || !path)
		return prog_fail(p, BH_ERR_ARG, "bad processor %d or no kernel path", (int)proc);
	struct bh_kernel_image *img = bh_kernel_load(path, p->err, PROG_ERR_LEN);
	if (!img)
		return BH_ERR_ELF;
	if (img->proc != (unsigned)proc) {
		int rc = prog_fail(p, BH_ERR_ELF, "%s: kernel was built for %s, not %s (its firmware symbols and local "
				   "RAM are those of %s)", path, bh_core_name((enum bh_core_id)img->proc),
				   bh_core_name(proc), bh_core_name((enum bh_core_id)img->proc));
		bh_kernel_unref(img);
		return rc;
	}
	if (ct) {
		int rc = BH_OK;
		if (nct != img->n_ct_args)
			rc = prog_fail(p, BH_ERR_ELF, "%s: built with %u compile-time arguments, %u given", path,
				       img->n_ct_args, nct);
		for (unsigned i = 0; i < nct && rc == BH_OK; i++)
			if (ct[i] != img->ct_args[i])
				rc = prog_fail(p, BH_ERR_ELF, "%s: compile-time argument %u is %u (0x%x) in the ELF, %u "
					       "(0x%x) given", path, i, img->ct_args[i], img->ct_args[i], ct[i], ct[i]);
		if (rc != BH_OK) {
			bh_kernel_unref(img);
			return rc;
		}
	}
	return prog_add_image(p, (unsigned)proc, img, ranges, nranges);
}

int bh_program_add_kernel_code(struct bh_program *p, enum bh_core_id proc, const uint32_t *code, size_t words,
			       const struct bh_core_range *ranges, unsigned nranges)
{
	if (!p)
		return BH_ERR_ARG;
	if ((unsigned)proc >= PROG_NPROC)
		return prog_fail(p, BH_ERR_ARG, "bad processor %d", (int)proc);
	struct bh_kernel_image *img = bh_kernel_from_code((unsigned)proc, code, words);
	if (!img)
		return prog_fail(p, BH_ERR_ARG, "no code, or more than 1 MiB of it");
	return prog_add_image(p, (unsigned)proc, img, ranges, nranges);
}

static struct prog_kernel *prog_kernel(struct bh_program *p, int id)
{
	if (id < 0 || (unsigned)id >= p->nkernels) {
		prog_fail(p, BH_ERR_ARG, "no kernel %d in this program", id);
		return NULL;
	}
	return &p->kernels[id];
}

int bh_program_set_runtime_args(struct bh_program *p, int kernel, unsigned tile, const uint32_t *args, unsigned n)
{
	if (!p)
		return BH_ERR_ARG;
	struct prog_kernel *k = prog_kernel(p, kernel);
	if (!k)
		return BH_ERR_ARG;
	if (tile >= p->ntiles || p->tiles[tile].kernel[k->proc] != kernel)
		return prog_fail(p, BH_ERR_ARG, "kernel %d (%s) does not run on tile %u", kernel, k->img->path, tile);
	if (n > BH_PROGRAM_MAX_ARGS || (n && !args))
		return prog_fail(p, BH_ERR_ARG, "%u runtime args for kernel %d: at most %u", n, kernel,
				 BH_PROGRAM_MAX_ARGS);
	struct prog_tile *pt = &p->tiles[tile];
	uint32_t *a = n ? realloc(pt->rta[k->proc], n * sizeof *a) : NULL;
	if (n && !a)
		return prog_fail(p, BH_ERR_SYS, "out of memory");
	if (n)
		memcpy(a, args, n * sizeof *a);
	else
		free(pt->rta[k->proc]);
	pt->rta[k->proc] = a;
	if (n > pt->nrta[k->proc] || n == 0)
		p->lay.valid = false;
	pt->nrta[k->proc] = n;
	return BH_OK;
}

int bh_program_set_common_runtime_args(struct bh_program *p, int kernel, const uint32_t *args, unsigned n)
{
	if (!p)
		return BH_ERR_ARG;
	struct prog_kernel *k = prog_kernel(p, kernel);
	if (!k)
		return BH_ERR_ARG;
	if (n > BH_PROGRAM_MAX_ARGS || (n && !args))
		return prog_fail(p, BH_ERR_ARG, "%u common runtime args for kernel %d: at most %u", n, kernel,
				 BH_PROGRAM_MAX_ARGS);
	if (n != k->ncommon)
		p->lay.valid = false;
	memcpy(k->common, args, n * sizeof *args);
	k->ncommon = n;
	return BH_OK;
}

/* ---- L1 areas the firmware profile owns --------------------------------------------------------- */

static const struct bh_profile *prog_profile(struct bh_program *p)
{
	if (!p->dev->booted) {
		prog_fail(p, BH_ERR_ARG, "the device has not been booted (bh_boot): programs need a firmware profile");
		return NULL;
	}
	return &p->dev->boot_profile;
}

/* Size of the kernel-config area: up to the firmware's next L1 area (p100a: the bank tables). */
static uint32_t prog_kcb_size(const struct bh_profile *prof)
{
	uint32_t kcb = prof->kernel_config_base, size = PROG_KCB_DEFAULT_SIZE;
	const uint32_t next[] = { prof->bank_scratch, prof->logical_col_map, prof->logical_row_map };
	for (unsigned i = 0; i < sizeof next / sizeof next[0]; i++)
		if (next[i] != BH_PROFILE_UNSET && next[i] > kcb && next[i] - kcb < size)
			size = next[i] - kcb;
	return size;
}

/* First L1 byte no firmware area uses: above the kernel-config area, bank tables and maps. */
static uint32_t prog_l1_free_base(const struct bh_device *dev, const struct bh_profile *prof)
{
	uint32_t end = prof->kernel_config_base + prog_kcb_size(prof);
	uint32_t areas[][2] = {
		{ prof->bank_scratch, 8u * (dev->boot_dram_banks + dev->boot_l1_banks) },
		{ prof->logical_col_map, 20 }, { prof->logical_row_map, 12 },
	};
	for (unsigned i = 0; i < sizeof areas / sizeof areas[0]; i++)
		if (areas[i][0] != BH_PROFILE_UNSET && areas[i][0] + areas[i][1] > end)
			end = areas[i][0] + areas[i][1];
	return (end + 0xFFFu) & ~0xFFFu;
}

/* ---- Circular buffers and semaphores ------------------------------------------------------------ */

static bool prog_overlap(uint32_t a, uint32_t an, uint32_t b, uint32_t bn)
{
	return a < b + bn && b < a + an;
}

int bh_program_add_cb(struct bh_program *p, const struct bh_cb_config *cb, const struct bh_core_range *ranges,
		      unsigned nranges)
{
	if (!p)
		return BH_ERR_ARG;
	const struct bh_profile *prof = prog_profile(p);
	if (!prof)
		return BH_ERR_ARG;
	if (!cb)
		return prog_fail(p, BH_ERR_ARG, "no CB config");
	uint64_t bytes = (uint64_t)cb->page_size * cb->num_pages;
	if (cb->index >= prof->num_cbs)
		return prog_fail(p, BH_ERR_ARG, "CB %u: the firmware (profile %s) has CBs 0..%u", cb->index, prof->name,
				 prof->num_cbs - 1);
	if (cb->page_size == 0 || cb->page_size % PROG_L1_ALIGN || cb->num_pages == 0 || cb->num_pages > 0xFFFF)
		return prog_fail(p, BH_ERR_ARG, "CB %u: page size %u must be a non-zero multiple of 16 and the page "
				 "count %u between 1 and 65535 (the CB counters are 16-bit)", cb->index, cb->page_size,
				 cb->num_pages);
	uint32_t base = prog_l1_free_base(p->dev, prof);
	if (!p->alloc_next)
		p->alloc_next = base;
	struct prog_cb n = { .cfg = *cb };
	if (!n.cfg.address)
		n.cfg.address = p->alloc_next;
	if (n.cfg.address % PROG_L1_ALIGN)
		return prog_fail(p, BH_ERR_ARG, "CB %u: address 0x%x is not 16-byte aligned", cb->index, n.cfg.address);
	if (n.cfg.address < base || bytes > BH_L1_SIZE - n.cfg.address)
		return prog_fail(p, BH_ERR_ARG, "CB %u: [0x%x, 0x%llx) is outside the L1 programs may use [0x%x, "
				 "0x%x) (below is the firmware's and the kernel-config area)", cb->index, n.cfg.address,
				 (unsigned long long)(n.cfg.address + bytes), base, BH_L1_SIZE);
	n.tiles = calloc(p->ntiles, sizeof *n.tiles);
	struct prog_cb *cbs = realloc(p->cbs, (p->ncbs + 1) * sizeof *cbs);
	if (cbs)
		p->cbs = cbs;
	int rc = n.tiles && cbs ? prog_ranges(p, ranges, nranges, n.tiles) : prog_fail(p, BH_ERR_SYS, "out of memory");
	for (unsigned i = 0; i < p->ncbs && rc == BH_OK; i++)
		for (unsigned t = 0; t < p->ntiles && rc == BH_OK; t++) {
			const struct bh_cb_config *o = &p->cbs[i].cfg;
			if (!n.tiles[t] || !p->cbs[i].tiles[t])
				continue;
			if (o->index == cb->index)
				rc = prog_fail(p, BH_ERR_ARG, "CB %u is configured twice on tile %u", cb->index, t);
			else if (prog_overlap(o->address, o->page_size * o->num_pages, n.cfg.address, (uint32_t)bytes))
				rc = prog_fail(p, BH_ERR_ARG, "CB %u [0x%x, +0x%x) overlaps CB %u [0x%x, +0x%x) on tile %u",
					       cb->index, n.cfg.address, (uint32_t)bytes, o->index, o->address,
					       o->page_size * o->num_pages, t);
		}
	if (rc != BH_OK) {
		free(n.tiles);
		return rc;
	}
	if (!cb->address)
		p->alloc_next = (uint32_t)((n.cfg.address + bytes + PROG_L1_ALIGN - 1) & ~(uint64_t)(PROG_L1_ALIGN - 1));
	p->cbs[p->ncbs++] = n;
	prog_changed(p);
	return BH_OK;
}

int bh_program_cb_address(const struct bh_program *p, unsigned index, unsigned tile, uint32_t *addr)
{
	if (!p || !addr || tile >= p->ntiles)
		return BH_ERR_ARG;
	for (unsigned i = 0; i < p->ncbs; i++)
		if (p->cbs[i].cfg.index == index && p->cbs[i].tiles[tile]) {
			*addr = p->cbs[i].cfg.address;
			return BH_OK;
		}
	return BH_ERR_ARG;
}

int bh_program_add_semaphore(struct bh_program *p, const struct bh_core_range *ranges, unsigned nranges,
			     uint32_t initial)
{
	if (!p)
		return BH_ERR_ARG;
	if (p->nsems == BH_PROGRAM_MAX_SEMAPHORES)
		return prog_fail(p, BH_ERR_ARG, "at most %u semaphores per program", BH_PROGRAM_MAX_SEMAPHORES);
	bool *set = calloc(p->ntiles, sizeof *set);
	int rc = set ? prog_ranges(p, ranges, nranges, set) : prog_fail(p, BH_ERR_SYS, "out of memory");
	if (rc != BH_OK) {
		free(set);
		return rc;
	}
	p->sems[p->nsems] = (struct prog_sem){ .init = initial, .tiles = set };
	p->lay.valid = false;
	return (int)p->nsems++;
}

/* ---- Layout ------------------------------------------------------------------------------------- */

static uint32_t prog_align(uint32_t v)
{
	return (v + PROG_L1_ALIGN - 1) & ~(PROG_L1_ALIGN - 1);
}

/* Bytes of processor proc's image slot: its largest kernel, or the `ret` stub TRISCs without a
 * kernel run (enables bit 2 starts all three). */
static uint32_t prog_text_size(const struct bh_program *p, unsigned proc)
{
	uint32_t size = proc >= BH_CORE_TRISC0 ? 4 : 0;
	for (unsigned i = 0; i < p->nkernels; i++)
		if (p->kernels[i].proc == proc && p->kernels[i].img->size > size)
			size = p->kernels[i].img->size;
	return size;
}

static int prog_layout(struct bh_program *p, const struct bh_profile *prof)
{
	struct prog_layout *l = &p->lay;
	if (l->valid)
		return BH_OK;
	uint32_t at = 0;
	for (unsigned k = 0; k < PROG_NPROC; k++) {
		unsigned nrta = 0, ncrta = 0;
		for (unsigned t = 0; t < p->ntiles; t++)
			nrta = p->tiles[t].nrta[k] > nrta ? p->tiles[t].nrta[k] : nrta;
		for (unsigned i = 0; i < p->nkernels; i++)
			if (p->kernels[i].proc == k && p->kernels[i].ncommon > ncrta)
				ncrta = p->kernels[i].ncommon;
		l->rta[k] = at;
		at = prog_align(at + 4 * nrta);
		l->crta[k] = at;
		at = prog_align(at + 4 * ncrta);
	}
	l->sem = at;
	at += 16 * p->nsems;
	l->max_cb = 0;
	for (unsigned i = 0; i < p->ncbs; i++)
		if (p->cbs[i].cfg.index + 1 > l->max_cb)
			l->max_cb = p->cbs[i].cfg.index + 1;
	l->blob_off = l->local_cb = at;
	at += 16 * l->max_cb;
	l->remote_cb = at;
	for (unsigned k = 0; k < PROG_NPROC; k++) {
		l->text[k] = at;
		at = prog_align(at + prog_text_size(p, k));
	}
	l->size = at;
	uint32_t limit = prog_kcb_size(prof);
	if (at > limit)
		return prog_fail(p, BH_ERR_ARG, "the program needs 0x%x bytes of kernel-config area; profile %s has 0x%x "
				 "at 0x%x (runtime args 0x%x, semaphores 0x%x, CB configs 0x%x, kernels 0x%x)", at,
				 prof->name, limit, prof->kernel_config_base, l->sem, 16 * p->nsems, 16 * l->max_cb,
				 at - l->remote_cb);
	if (l->remote_cb > 0xFFFF)
		return prog_fail(p, BH_ERR_ARG, "runtime args and CB configs take 0x%x bytes: the launch message's "
				 "16-bit offsets reach 0xffff", l->remote_cb);
	l->valid = true;
	return BH_OK;
}

int bh_program_semaphore_address(const struct bh_program *p, unsigned id, unsigned tile, uint32_t *addr)
{
	if (!p || !addr || id >= p->nsems || tile >= p->ntiles || !p->sems[id].tiles[tile] || !p->lay.valid ||
	    !p->dev->booted)
		return BH_ERR_ARG;
	*addr = p->dev->boot_profile.kernel_config_base + p->lay.sem + 16 * id;
	return BH_OK;
}

/* ---- Launch ------------------------------------------------------------------------------------- */

bool bh_prog_tile_active(const struct bh_program *p, unsigned t)
{
	for (unsigned k = 0; k < PROG_NPROC; k++)
		if (p->tiles[t].kernel[k] >= 0)
			return true;
	return false;
}

static void put_u16(uint8_t *b, uint32_t off, uint32_t v)
{
	b[off] = (uint8_t)v;
	b[off + 1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *b, uint32_t off, uint32_t v)
{
	put_u16(b, off, v & 0xFFFF);
	put_u16(b, off + 2, v >> 16);
}

/* Relocates every kernel once for this layout (the slot is the same on every tile). */
static int launch_place(struct bh_prog_launch *L)
{
	struct bh_program *p = L->p;
	L->placed = calloc(p->nkernels ? p->nkernels : 1, sizeof *L->placed);
	if (!L->placed)
		return prog_fail(p, BH_ERR_SYS, "out of memory");
	for (unsigned i = 0; i < p->nkernels; i++) {
		const struct prog_kernel *k = &p->kernels[i];
		L->placed[i] = malloc(k->img->size);
		if (!L->placed[i])
			return prog_fail(p, BH_ERR_SYS, "out of memory");
		if (bh_kernel_place(k->img, L->kcb + p->lay.text[k->proc], L->placed[i], p->err, PROG_ERR_LEN) != 0)
			return BH_ERR_ELF;
	}
	return BH_OK;
}

/* Tile t's CB configs and images into L->blob (zeroed slots where the tile has none). */
void bh_prog_build_blob(struct bh_prog_launch *L, unsigned t, uint32_t *cb_mask)
{
	const struct bh_program *p = L->p;
	const struct prog_layout *l = &p->lay;
	memset(L->blob, 0, l->size - l->blob_off);
	*cb_mask = 0;
	for (unsigned i = 0; i < p->ncbs; i++) {
		const struct bh_cb_config *c = &p->cbs[i].cfg;
		if (!p->cbs[i].tiles[t])
			continue;
		uint32_t o = l->local_cb + 16 * c->index - l->blob_off;
		put_u32(L->blob, o, c->address);
		put_u32(L->blob, o + 4, c->page_size * c->num_pages);
		put_u32(L->blob, o + 8, c->num_pages);
		put_u32(L->blob, o + 12, c->page_size);
		*cb_mask |= 1u << c->index;
	}
	for (unsigned k = 0; k < PROG_NPROC; k++) {
		int id = p->tiles[t].kernel[k];
		uint8_t *dst = L->blob + l->text[k] - l->blob_off;
		if (id >= 0)
			memcpy(dst, L->placed[id], p->kernels[id].img->size);
		else if (k >= BH_CORE_TRISC0)
			put_u32(dst, 0, INSN_RET);
	}
}

void bh_prog_build_args(struct bh_prog_launch *L, unsigned t)
{
	const struct bh_program *p = L->p;
	const struct prog_layout *l = &p->lay;
	memset(L->args, 0, l->blob_off);
	for (unsigned k = 0; k < PROG_NPROC; k++) {
		int id = p->tiles[t].kernel[k];
		if (id < 0)
			continue;
		for (unsigned i = 0; i < p->tiles[t].nrta[k]; i++)
			put_u32(L->args, l->rta[k] + 4 * i, p->tiles[t].rta[k][i]);
		for (unsigned i = 0; i < p->kernels[id].ncommon; i++)
			put_u32(L->args, l->crta[k] + 4 * i, p->kernels[id].common[i]);
	}
	for (unsigned s = 0; s < p->nsems; s++)
		if (p->sems[s].tiles[t])
			put_u32(L->args, l->sem + 16 * s, p->sems[s].init);
}

void bh_prog_build_msg(struct bh_prog_launch *L, unsigned t, uint32_t cb_mask, unsigned noc, unsigned mode,
		       uint8_t *m)
{
	const struct bh_program *p = L->p;
	const struct prog_layout *l = &p->lay;
	uint32_t enables = 0;
	memset(m, 0, LM_SIZE);
	for (unsigned k = 0; k < 3; k++)
		put_u32(m, LM_KCB + 4 * k, L->kcb);
	put_u16(m, LM_SEM_OFF, l->sem);
	put_u16(m, LM_LOCAL_CB_OFF, l->local_cb);
	put_u16(m, LM_REMOTE_CB_OFF, l->remote_cb);
	for (unsigned k = 0; k < PROG_NPROC; k++) {
		put_u16(m, LM_RTA_OFF + 4 * k, l->rta[k]);
		put_u16(m, LM_RTA_OFF + 4 * k + 2, l->crta[k]);
		put_u32(m, LM_TEXT_OFF + 4 * k, l->text[k]);
		if (p->tiles[t].kernel[k] >= 0)
			enables |= 1u << k;
	}
	if (enables & 0x1Cu)
		enables |= 1u << BH_CORE_TRISC0;	/* bit 2 starts all three TRISCs */
	m[LM_MODE] = (uint8_t)mode;
	put_u32(m, LM_LOCAL_CB_MASK, cb_mask);
	m[LM_BRISC_NOC_ID] = (uint8_t)noc;
	m[LM_MIN_REMOTE_CB] = NO_REMOTE_CBS;
	put_u32(m, LM_HOST_ID, (uint32_t)p->blob_id);
	put_u32(m, LM_ENABLES, enables);
}

static uint8_t go_signal(struct bh_device *dev, const struct bh_profile *prof, unsigned t)
{
	uint8_t sig = 0xFF;
	bh_l1_read(dev, t, bh_profile_mbox(prof, prof->go_messages_base) + 3, &sig, 1);
	return sig;
}

static void set_go(struct bh_device *dev, const struct bh_profile *prof, unsigned t, uint8_t signal)
{
	uint32_t w = (uint32_t)signal << 24;
	bh_l1_write(dev, t, bh_profile_mbox(prof, prof->go_messages_base), &w, 4);
}

bool bh_prog_upload_needed(struct bh_prog_launch *L, unsigned t)
{
	struct bh_device *dev = L->p->dev;
	pthread_mutex_lock(&dev->ksym_lock);
	bool upload = dev->kcb_resident[t] != L->p->blob_id;
	pthread_mutex_unlock(&dev->ksym_lock);
	return upload;
}

void bh_prog_mark_resident(struct bh_prog_launch *L, unsigned t)
{
	struct bh_program *p = L->p;
	struct bh_device *dev = p->dev;
	pthread_mutex_lock(&dev->ksym_lock);
	dev->kcb_resident[t] = p->blob_id;
	for (unsigned k = 0; k < PROG_NPROC; k++) {
		struct bh_kernel_sym *ks = &dev->ksym[t * BH_CORES_PER_TILE + k];
		int id = p->tiles[t].kernel[k];
		bh_kernel_unref(ks->img);
		ks->img = id >= 0 ? bh_kernel_ref(p->kernels[id].img) : NULL;
		ks->addr = L->kcb + p->lay.text[k];
	}
	pthread_mutex_unlock(&dev->ksym_lock);
}

/* Word k of CB cb's slot in tile t's config block (L->blob holds tile t's blob). */
static uint32_t prog_cb_word(const struct bh_prog_launch *L, unsigned cb, unsigned k)
{
	const struct prog_layout *l = &L->p->lay;
	const uint8_t *w = L->blob + l->local_cb + 16 * cb + 4 * k - l->blob_off;
	return w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
}

/* The CB checks learn each CB's FIFO and page count from its config (sync.md 3.1: start, size,
 * pages, page size); L->blob holds tile t's blob. */
void bh_prog_set_cb_pages(struct bh_prog_launch *L, unsigned t, uint32_t cb_mask)
{
	for (unsigned cb = 0; cb < L->prof->num_cbs && cb < 32; cb++) {
		struct bh_tile *tile = L->p->dev->tiles[t];
		if (!(cb_mask & (1u << cb)) ||
		    !bh_stream_set_cb_config(tile, cb, prog_cb_word(L, cb, 0), prog_cb_word(L, cb, 2), prog_cb_word(L, cb, 3)))
			bh_stream_set_cb_pages(tile, cb, 0);
	}
}

uint32_t bh_prog_args_size(const struct bh_prog_launch *L)
{
	return L->p->lay.blob_off;
}

uint32_t bh_prog_blob_size(const struct bh_prog_launch *L)
{
	return L->p->lay.size - L->p->lay.blob_off;
}

/* Writes everything tile t needs: its kernel-config area (the firmware is idle and does not read
 * it), then RESET_READ_PTR_FROM_HOST and the launch message; the caller then sets GO. */
static int launch_write_tile(struct bh_prog_launch *L, unsigned t, unsigned noc)
{
	struct bh_program *p = L->p;
	struct bh_device *dev = p->dev;
	const struct bh_profile *prof = L->prof;
	const struct prog_layout *l = &p->lay;
	uint8_t sig = go_signal(dev, prof, t);
	if (sig != RUN_MSG_DONE)
		return prog_fail(p, BH_ERR_ARG, "tile %u is not idle: go signal 0x%02x (a launch still running, or the "
				 "firmware never finished booting)", t, sig);
	/* The kernels start on the counters as they are now: reset after the last run (cb-reset-window). */
	bh_stream_cb_launch_check(dev->tiles[t], false);
	uint32_t cb_mask;
	bh_prog_build_args(L, t);
	bh_l1_write(dev, t, L->kcb, L->args, l->blob_off);
	L->st->bytes_written += l->blob_off;
	bool upload = bh_prog_upload_needed(L, t);
	bh_prog_build_blob(L, t, &cb_mask);
	if (upload) {
		bh_l1_write(dev, t, L->kcb + l->blob_off, L->blob, l->size - l->blob_off);
		L->st->bytes_written += l->size - l->blob_off;
		L->st->tiles_uploaded++;
		bh_prog_mark_resident(L, t);
	}
	bh_prog_set_cb_pages(L, t, cb_mask);
	/* RESET_READ_PTR_FROM_HOST comes last: until GO its BRISC keeps storing rd = 0. After
	 * fast-dispatch launches the ring's read pointer may be elsewhere; the firmware resets it on
	 * 0xE0 (launch.md 5.1) and slow dispatch always uses launch[0]. An idle BRISC never moves
	 * it, so when it already reads 0 the reset (and the BRISC's wake-up for it) is skipped. */
	uint32_t zero = 0, rd = 0;
	uint32_t rd_addr = bh_profile_mbox(prof, prof->launch_msg_rd_ptr);
	bh_l1_write(dev, t, bh_profile_mbox(prof, prof->go_message_index), &zero, 4);
	if (bh_l1_read(dev, t, rd_addr, &rd, 4) == BH_OK && rd != 0)
		set_go(dev, prof, t, RUN_MSG_RESET_READ_PTR_FROM_HOST);
	double until = prog_now() + 1.0;
	while (bh_l1_read(dev, t, rd_addr, &rd, 4) == BH_OK && rd != 0) {
		if (prog_now() > until)
			return prog_fail(p, BH_ERR_TIMEOUT, "tile %u: the firmware did not reset launch_msg_rd_ptr (%u) "
					 "on RESET_READ_PTR_FROM_HOST", t, rd);
		bh_device_pause(dev, PROG_POLL_NS);
	}

	uint8_t msg[LM_SIZE];
	bh_prog_build_msg(L, t, cb_mask, noc, BH_DISPATCH_MODE_HOST, msg);
	bh_l1_write(dev, t, bh_profile_mbox(prof, prof->launch_base), msg, sizeof msg);
	L->st->bytes_written += sizeof msg;
	return BH_OK;
}

static bool tile_faulted(struct bh_device *dev, unsigned t, char *report, size_t n)
{
	struct bh_core_result r;
	for (unsigned k = 0; k < PROG_NPROC; k++) {
		bh_core_result(dev, t, (enum bh_core_id)k, &r);
		if (r.status == BH_RUN_FAULTED || r.status == BH_RUN_LIMIT) {
			snprintf(report, n, "%s", r.status == BH_RUN_FAULTED ? r.report : "instruction limit reached");
			return true;
		}
	}
	return false;
}

/* Stuck tiles: their go signal and subordinate_sync, then what the device report says of them. */
static void launch_report(struct bh_prog_launch *L, const char *why, double secs)
{
	struct bh_program *p = L->p;
	size_t cap = 1u << 16, used = 0;
	char *head = malloc(cap);
	if (!head)
		return;
	unsigned left = 0;
	for (unsigned t = 0; t < p->ntiles; t++)
		left += L->active[t] && !L->done[t];
	used += (size_t)snprintf(head, cap, "launch: %u of %u tiles did not finish: %s after %.3f s\n", left,
				 L->nactive, why, secs);
	for (unsigned t = 0; t < p->ntiles && used < cap; t++) {
		if (!L->active[t] || L->done[t])
			continue;
		uint32_t sync = 0;
		unsigned x = 0, y = 0;
		bh_l1_read(p->dev, t, bh_profile_mbox(L->prof, L->prof->subordinate_sync), &sync, 4);
		bh_device_tile_xy(p->dev, t, &x, &y);
		used += (size_t)snprintf(head + used, cap - used, "stuck tile %u (%u,%u): go signal 0x%02x, "
					 "subordinate_sync 0x%08x\n", t, x, y, go_signal(p->dev, L->prof, t), sync);
	}
	bool *stuck = calloc(p->ntiles, sizeof *stuck);
	for (unsigned t = 0; stuck && t < p->ntiles; t++)
		stuck[t] = L->active[t] && !L->done[t];
	char *rep = stuck ? bh_device_report_tiles(p->dev, stuck, head) : NULL;
	/* The report may be longer than the error buffer; it never shrinks below PROG_ERR_LEN, which
	 * later messages rely on. */
	size_t need = rep ? strlen(rep) + 1 : 0;
	char *e = need > PROG_ERR_LEN ? realloc(p->err, need) : p->err;
	if (rep && e) {
		p->err = e;
		memcpy(p->err, rep, need);
	} else {
		snprintf(p->err, PROG_ERR_LEN, "%s", head);
	}
	free(rep);
	free(stuck);
	free(head);
}

static int launch_wait(struct bh_prog_launch *L, const struct bh_launch_options *opt, double t0)
{
	struct bh_program *p = L->p;
	double timeout = opt->timeout_s > 0 ? opt->timeout_s : PROG_DEFAULT_TIMEOUT_S, next_progress = t0;
	unsigned ndone = 0;
	for (unsigned poll = 0;; poll++) {
		for (unsigned t = 0; t < p->ntiles; t++) {
			if (!L->active[t] || L->done[t])
				continue;
			uint8_t sig = go_signal(p->dev, L->prof, t);
			if (sig == RUN_MSG_DONE) {
				L->done[t] = true;
				ndone++;
			} else if (sig != RUN_MSG_GO) {
				return prog_fail(p, BH_ERR_FAULT, "tile %u: go signal 0x%02x while running (only GO 0x80 "
						 "and DONE 0x00 are expected; launch.md 11)", t, sig);
			}
		}
		double now = prog_now();
		L->st->seconds = now - t0;
		if (opt->progress && (now >= next_progress || ndone == L->nactive)) {
			opt->progress(opt->progress_arg, ndone, L->nactive);
			next_progress = now + PROG_PROGRESS_S;
		}
		if (ndone == L->nactive)
			return BH_OK;
		if (now - t0 > timeout) {
			launch_report(L, "timeout", now - t0);
			return BH_ERR_TIMEOUT;
		}
		if (poll % PROG_CHECK_EVERY == 0) {
			char rep[1536];
			for (unsigned t = 0; t < p->ntiles; t++)
				if (L->active[t] && !L->done[t] && tile_faulted(p->dev, t, rep, sizeof rep))
					return prog_fail(p, BH_ERR_FAULT, "launch: a core of tile %u stopped:\n%s", t, rep);
			if (bh_device_deadlocked(p->dev)) {
				launch_report(L, "deadlock (every running core waits)", now - t0);
				return BH_ERR_DEADLOCK;
			}
		}
		bh_device_pause(p->dev, PROG_POLL_NS);
	}
}

int bh_program_launch(struct bh_program *p, const struct bh_launch_options *opt, struct bh_launch_stats *st)
{
	static const struct bh_launch_options defaults = { 0 };
	struct bh_launch_stats dummy;
	if (!p)
		return BH_ERR_ARG;
	opt = opt ? opt : &defaults;
	st = st ? st : &dummy;
	memset(st, 0, sizeof *st);
	p->err[0] = 0;
	const struct bh_profile *prof = prog_profile(p);
	if (!prof)
		return BH_ERR_ARG;
	if (opt->noc > 1)
		return prog_fail(p, BH_ERR_ARG, "NoC %u: Blackhole has NoC 0 and 1", opt->noc);
	if (p->dev->cq)
		return prog_fail(p, BH_ERR_ARG, "a command queue is open on this device: launch through it "
				 "(bh_cq_launch) or close it (bh_cq_close) first");
	struct bh_prog_launch L;
	int rc = bh_prog_launch_begin(p, &L, st);
	double t0 = prog_now();
	/* Each tile goes as soon as its own writes are done (the store fence of launch.md 11 is per
	 * tile): between RESET_READ_PTR_FROM_HOST and GO its BRISC keeps storing rd = 0, so the
	 * window stays short. */
	for (unsigned t = 0; t < p->ntiles && rc == BH_OK; t++) {
		if (!L.active[t])
			continue;
		rc = launch_write_tile(&L, t, opt->noc);
		atomic_thread_fence(memory_order_seq_cst);
		if (rc == BH_OK) {
			bh_trace_launch(p->dev, t, "go");
			set_go(p->dev, prof, t, RUN_MSG_GO);
		}
	}
	if (rc == BH_OK) {
		st->tiles = L.nactive;
		rc = launch_wait(&L, opt, t0);
	}
	bh_prog_launch_end(&L);
	return rc;
}

int bh_prog_launch_begin(struct bh_program *p, struct bh_prog_launch *L, struct bh_launch_stats *st)
{
	memset(L, 0, sizeof *L);
	const struct bh_profile *prof = prog_profile(p);
	if (!prof)
		return BH_ERR_ARG;
	int rc = prog_layout(p, prof);
	if (rc != BH_OK)
		return rc;
	*L = (struct bh_prog_launch){ .p = p, .prof = prof, .kcb = prof->kernel_config_base, .st = st };
	L->blob = malloc(p->lay.size - p->lay.blob_off + 4);
	L->args = malloc(p->lay.blob_off + 4);
	L->active = calloc(p->ntiles, sizeof *L->active);
	L->done = calloc(p->ntiles, sizeof *L->done);
	rc = L->blob && L->args && L->active && L->done ? launch_place(L) : prog_fail(p, BH_ERR_SYS, "out of memory");
	for (unsigned t = 0; t < p->ntiles && rc == BH_OK; t++)
		if ((L->active[t] = bh_prog_tile_active(p, t)))
			L->nactive++;
	if (rc == BH_OK && L->nactive == 0)
		rc = prog_fail(p, BH_ERR_ARG, "the program has no kernel on any tile");
	return rc;
}

void bh_prog_launch_end(struct bh_prog_launch *L)
{
	for (unsigned i = 0; L->placed && i < L->p->nkernels; i++)
		free(L->placed[i]);
	free(L->placed);
	free(L->blob);
	free(L->args);
	free(L->active);
	free(L->done);
}

struct bh_device *bh_prog_device(const struct bh_program *p)
{
	return p->dev;
}

uint32_t bh_prog_cb_mask(const struct bh_prog_launch *L, unsigned t)
{
	uint32_t mask = 0;
	for (unsigned i = 0; i < L->p->ncbs; i++)
		if (L->p->cbs[i].tiles[t])
			mask |= 1u << L->p->cbs[i].cfg.index;
	return mask;
}

int bh_prog_fail(struct bh_program *p, int rc, const char *msg)
{
	return prog_fail(p, rc, "%s", msg);
}
