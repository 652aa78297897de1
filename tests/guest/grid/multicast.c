/* Multicast writes on both NoCs (noc.md 8). Run with
 *   bhemu run --grid --cores brisc,ncrisc multicast.elf
 * Four multicasts, each a checksummed block and a flag word (noc_async_write_multicast, then
 * noc_semaphore_set_multicast) into its own area of every receiver:
 *   area 0: tile 0's BRISC on NoC0 to the whole grid
 *   area 1: tile 0's NCRISC on NoC1 to the whole grid
 *   area 2: the last tile's BRISC on NoC0 to a sub-rectangle (logical columns 1..3, rows 1..2)
 *   area 3: the last tile's NCRISC on NoC1 to the same sub-rectangle
 * Rectangles are given start <= end in translated coordinates; on NoC1 get_noc_multicast_addr
 * exchanges the corners, as NoC1 kernels do. The sender is not a receiver. num_dests counts the
 * receivers, so noc_async_write_barrier() waits for exactly their acks. After a grid barrier
 * every tile checks all four areas: the block and flag where it was a receiver, zeros elsewhere. */
#include "grid_test.h"

#define MC_WORDS 64
#define MC_BYTES (MC_WORDS * 4u)
#define MC_AREAS 4
#define MC_AREA(a) (GRID_DATA_BASE + (a) * MC_BYTES)
#define MC_FLAG(a) (10 + (a))            /* GRID_SEM index */
#define MC_SALT 0x3C3Cu

static const char prog[] = "multicast";

static uint32_t mc_block[2][MC_WORDS] __attribute__((aligned(16)));

/* A rectangle of the run's tiles in logical (column, row) terms. */
struct mc_rect {
	uint32_t c0, r0, c1, r1;
};

static uint32_t grid_cols(const struct grid_self *self)
{
	uint32_t y0 = bare_grid()->tile_xy[0] >> 6, cols = 0;
	while (cols < self->ntiles && (bare_grid()->tile_xy[cols] >> 6) == y0)
		cols++;
	return cols;
}

/* The rectangle of area a, and who sends into it. */
static void mc_area(uint32_t a, const struct grid_self *self, struct mc_rect *rect, uint32_t *sender)
{
	uint32_t cols = grid_cols(self), rows = self->ntiles / cols;
	if (a < 2) {
		*rect = (struct mc_rect){ 0, 0, cols - 1, rows - 1 };
		*sender = 0;
	} else {
		uint32_t c0 = cols > 1 ? 1 : 0, r0 = rows > 1 ? 1 : 0;
		*rect = (struct mc_rect){ c0, r0, c0 + 2 < cols ? c0 + 2 : cols - 1, r0 + 1 < rows ? r0 + 1 : rows - 1 };
		*sender = self->ntiles - 1;
	}
}

static bool mc_in(const struct mc_rect *r, uint32_t k, uint32_t cols)
{
	uint32_t c = k % cols, row = k / cols;
	return c >= r->c0 && c <= r->c1 && row >= r->r0 && row <= r->r1;
}

static int mc_send(uint32_t proc, const struct grid_self *self)
{
	uint32_t cols = grid_cols(self);
	for (uint32_t a = proc; a < MC_AREAS; a += 2) {
		struct mc_rect r;
		uint32_t sender;
		mc_area(a, self, &r, &sender);
		if (sender != self->index)
			continue;
		uint32_t dests = 0;
		for (uint32_t k = 0; k < self->ntiles; k++)
			dests += mc_in(&r, k, cols) && k != self->index;
		if (dests == 0)
			continue;
		uint32_t first = bare_grid()->tile_xy[r.r0 * cols + r.c0], last = bare_grid()->tile_xy[r.r1 * cols + r.c1];
		volatile uint32_t *block = mc_block[proc];
		grid_block_fill(block, MC_WORDS, a, MC_SALT);
		noc_async_write_multicast((uint32_t)(uintptr_t)block,
					  get_noc_multicast_addr(first & NOC_COORD_MASK, first >> 6, last & NOC_COORD_MASK,
								 last >> 6, MC_AREA(a)),
					  MC_BYTES, dests);
		noc_async_write_barrier();
		*GRID_SEM(MC_FLAG(a)) = a + 1;
		noc_semaphore_set_multicast(GRID_SEM_ADDR(MC_FLAG(a)),
					    get_noc_multicast_addr(first & NOC_COORD_MASK, first >> 6, last & NOC_COORD_MASK,
								   last >> 6, GRID_SEM_ADDR(MC_FLAG(a))),
					    dests);
		noc_async_write_barrier();
		*GRID_SEM(MC_FLAG(a)) = 0;   /* the sender is no receiver: its own flag stays 0 */
	}
	return grid_counters_check(prog, self);
}

static int mc_check(const struct grid_self *self)
{
	uint32_t cols = grid_cols(self);
	for (uint32_t a = 0; a < MC_AREAS; a++) {
		struct mc_rect r;
		uint32_t sender;
		mc_area(a, self, &r, &sender);
		const volatile uint32_t *area = (const volatile uint32_t *)(uintptr_t)MC_AREA(a);
		uint32_t flag = *GRID_SEM(MC_FLAG(a));
		if (mc_in(&r, self->index, cols) && self->index != sender) {
			int rc = grid_block_check(area, MC_WORDS, a, MC_SALT, prog, self);
			if (rc != GRID_OK)
				return rc;
			if (flag != a + 1) {
				bare_printf("%s: tile %u: flag of area %u = %u, expected %u\n", prog, self->index, a, flag, a + 1);
				return GRID_ERR_COUNT;
			}
			continue;
		}
		for (uint32_t i = 0; i < MC_WORDS; i++) {
			if (area[i] != 0 || flag != 0) {
				bare_printf("%s: tile %u (column %u, row %u) is outside area %u's rectangle (columns %u..%u, rows "
					    "%u..%u) or its sender, but received word %u = 0x%08x, flag %u\n", prog,
					    self->index, self->index % cols, self->index / cols, a, r.c0, r.c1, r.r0, r.r1, i,
					    area[i], flag);
				return GRID_ERR_DATA;
			}
		}
	}
	return GRID_OK;
}

int main_brisc(void)
{
	struct grid_self self;
	int rc = grid_start(NOC_PROC_BRISC, &self, prog);
	if (rc != GRID_OK)
		return rc;
	rc = mc_send(NOC_PROC_BRISC, &self);
	noc_semaphore_wait_min(GRID_SEM(4), 1);   /* NCRISC's multicasts are acknowledged */
	grid_barrier(&self, 1);
	if (rc == GRID_OK)
		rc = mc_check(&self);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: %u tiles, grid-wide and sub-rectangle multicasts on NoC0 and NoC1: ok\n", prog, self.ntiles);
	return rc;
}

int main_ncrisc(void)
{
	struct grid_self self;
	int rc = grid_start(NOC_PROC_NCRISC, &self, prog);
	if (rc != GRID_OK)
		return rc;
	rc = mc_send(NOC_PROC_NCRISC, &self);
	noc_fence();
	*GRID_SEM(4) = 1;
	return rc;
}
