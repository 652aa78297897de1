/* Token ring: a token goes round all tiles of the grid, several laps, passed with
 * noc_semaphore_inc. Run with
 *   bhemu run --grid --cores brisc,ncrisc token_ring.elf
 * Two rings run at once: BRISC passes its token on NoC0 in tile order (0, 1, ..., N-1, 0, ...),
 * NCRISC passes its own on NoC1 the other way round. With the token goes a hop count: the holder
 * checks it, adds one and stores it in the next tile (noc_semaphore_set_remote, then
 * noc_async_write_barrier) before it increments the next tile's token semaphore, so a tile that
 * sees the token must see the count of the hop that brought it. Every tile checks its token
 * count lap by lap; tile 0 checks that the count came back as laps * N. */
#include "grid_test.h"

#ifndef TOKEN_LAPS
#define TOKEN_LAPS 10
#endif

static const char prog[] = "token_ring";

/* Per ring: the token semaphore, the hop count the previous holder stored, and the local word
 * the next hop's count is sent from. */
struct ring {
	const char *name;
	int step;                /* +1 or -1 around the tile order */
	uint32_t token, hops, stage;   /* semaphore indices (GRID_SEM) */
};

static const struct ring rings[2] = {
	{ "brisc/NoC0", +1, 2, 3, 4 },
	{ "ncrisc/NoC1", -1, 5, 6, 7 },
};

/* Stores hops in the next tile, then hands it the token. */
static void ring_pass(const struct ring *r, uint32_t next, uint32_t hops)
{
	*GRID_SEM(r->stage) = hops;
	noc_semaphore_set_remote(GRID_SEM_ADDR(r->stage), grid_tile_addr(next, GRID_SEM_ADDR(r->hops)));
	noc_async_write_barrier();
	noc_semaphore_inc(grid_tile_addr(next, GRID_SEM_ADDR(r->token)), 1);
	noc_async_atomic_barrier();
}

/* Waits for the token's arrival number `arrival` and checks the hop count it brought. */
static int ring_receive(const struct ring *r, const struct grid_self *self, uint32_t arrival, uint32_t *hops)
{
	noc_semaphore_wait(GRID_SEM(r->token), arrival);
	uint32_t n = self->ntiles;
	/* Hops from tile 0 to this tile along the ring, plus the full laps before. */
	uint32_t dist = r->step > 0 ? self->index : (n - self->index) % n;
	uint32_t want = (arrival - (self->index == 0 ? 0 : 1)) * n + dist;
	*hops = *GRID_SEM(r->hops);
	if (*hops != want) {
		bare_printf("%s: %s: tile %u: arrival %u brought hop count %u, expected %u\n", prog, r->name, self->index,
			    arrival, *hops, want);
		return GRID_ERR_COUNT;
	}
	return GRID_OK;
}

static int ring_run(const struct ring *r, const struct grid_self *self)
{
	uint32_t n = self->ntiles;
	uint32_t next = (self->index + n + (uint32_t)r->step) % n;
	uint32_t hops = 0;
	int rc;

	for (uint32_t lap = 1; lap <= TOKEN_LAPS; lap++) {
		/* Tile 0 holds the token at the start; on later laps it waits for it to come back. */
		uint32_t arrival = self->index == 0 ? lap - 1 : lap;
		if (arrival > 0 && (rc = ring_receive(r, self, arrival, &hops)) != GRID_OK)
			return rc;
		ring_pass(r, next, hops + 1);
	}
	if (self->index == 0) {
		if ((rc = ring_receive(r, self, TOKEN_LAPS, &hops)) != GRID_OK)
			return rc;
		if (hops != TOKEN_LAPS * n) {
			bare_printf("%s: %s: %u hops after %u laps, expected %u\n", prog, r->name, hops, TOKEN_LAPS,
				    TOKEN_LAPS * n);
			return GRID_ERR_COUNT;
		}
	}
	uint32_t tokens = *GRID_SEM(r->token);
	if (tokens != TOKEN_LAPS) {
		bare_printf("%s: %s: tile %u saw the token %u times, expected %u\n", prog, r->name, self->index, tokens,
			    TOKEN_LAPS);
		return GRID_ERR_COUNT;
	}
	return grid_counters_check(prog, self);
}

int main_brisc(void)
{
	struct grid_self self;
	int rc = grid_start(NOC_PROC_BRISC, &self, prog);
	if (rc == GRID_OK)
		rc = ring_run(&rings[0], &self);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: %s: %u laps of %u tiles: ok\n", prog, rings[0].name, TOKEN_LAPS, self.ntiles);
	return rc;
}

int main_ncrisc(void)
{
	struct grid_self self;
	int rc = grid_start(NOC_PROC_NCRISC, &self, prog);
	if (rc == GRID_OK)
		rc = ring_run(&rings[1], &self);
	if (rc == GRID_OK && self.index == 0)
		bare_printf("%s: %s: %u laps of %u tiles: ok\n", prog, rings[1].name, TOKEN_LAPS, self.ntiles);
	return rc;
}
