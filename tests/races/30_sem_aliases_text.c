/* Race #30 (races.md): a semaphore id the host never set up aliases kernel text. Tile 0's
 * kernel-config image holds the semaphores, then the kernel text, as a host lays it out; the host
 * made room for the two ids it knew of, but the kernels use id 2, which lands on the first word of
 * the text tile 0 runs. Tile 1's noc_semaphore_inc on it is caught by atomic-into-code (a default
 * check) at tile 1's NoC command.
 *   bhemu run --board grid:2x1 --grid --cores brisc 30_sem_aliases_text.elf
 * RACE_FIXED: every id the kernels use has its slot, outside the text. */
#include "../guest/grid/grid_test.h"

static const char prog[] = "sem_aliases_text";

#ifdef RACE_FIXED
#define SEM_SLOTS 3
#else
#define SEM_SLOTS 2      /* the host set up ids 0 and 1 only */
#endif
#define SEM_DATA_READY 2 /* the id both kernels use */
#define SEM_GO 2         /* GRID_SEM: tile 0 ran its kernel once, tile 1 may signal */

#define RV_LI_A0(v) (0x00000513u | (uint32_t)(v) << 20)   /* addi a0, zero, v */
#define RV_RET 0x00008067u
#define RV_NOP 0x00000013u

/* The kernel-config image: one 16-byte slot per semaphore id, then the kernel text. */
static struct {
	uint32_t sem[SEM_SLOTS][4];
	uint32_t text[4];
} kcb __attribute__((aligned(16))) = { .text = { RV_LI_A0(1), RV_RET, RV_NOP, RV_NOP } };

static uint32_t get_semaphore(uint32_t id)
{
	return (uint32_t)(uintptr_t)&kcb.sem[0][0] + 16u * id;
}

static uint32_t run_kernel(void)
{
	return ((uint32_t(*)(void))(uintptr_t)kcb.text)();
}

static int run(uint32_t proc, const struct grid_self *self)
{
	(void)proc;
	if (self->index == 1) {
		noc_semaphore_wait(GRID_SEM(SEM_GO), 1);
		noc_semaphore_inc(grid_tile_addr(0, get_semaphore(SEM_DATA_READY)), 1);
		noc_async_atomic_barrier();
		return GRID_OK;
	}
	if (run_kernel() != 1)
		return GRID_ERR_DATA;
	noc_semaphore_inc(grid_tile_addr(1, GRID_SEM_ADDR(SEM_GO)), 1);
	noc_async_atomic_barrier();
	noc_semaphore_wait((volatile uint32_t *)(uintptr_t)get_semaphore(SEM_DATA_READY), 1);
	if (run_kernel() != 1) {
		bare_printf("%s: the kernel text changed under the semaphore\n", prog);
		return GRID_ERR_DATA;
	}
	return GRID_OK;
}

int main_brisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_BRISC, &self, prog, run);
}
