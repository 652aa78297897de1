/* Race #6 (races.md): stale I-cache after new kernel text is loaded. Tile 0 is a worker that runs
 * whatever sits in its kernel slot; tile 1 is the dispatcher that loads the next kernel's text
 * there over the NoC while the worker waits. The worker then calls the new kernel without the
 * I-cache invalidate (Tensix config 185): silicon may run ~20 stale instructions of the old
 * kernel. Caught by --check code-written at the worker's fetch of a rewritten word.
 *   bhemu run --board grid:2x1 --grid --cores brisc --check code-written 06_stale_icache.elf
 * RACE_FIXED: the worker invalidates its I-cache before it calls the new kernel. */
#include "../guest/grid/grid_test.h"

static const char prog[] = "stale_icache";

#define SEM_READY 2      /* worker -> dispatcher: the old kernel is done, load the next one */
#define SEM_LOADED 3     /* dispatcher -> worker: the next kernel is in the slot */

#define RV_LI_A0(v) (0x00000513u | (uint32_t)(v) << 20)   /* addi a0, zero, v */
#define RV_RET 0x00008067u
#define RV_NOP 0x00000013u

/* The kernel slot (text loaded at run time) and the text of the next kernel, as a dispatcher
 * keeps it: 16 bytes each, the NoC's write granule. */
static uint32_t kernel_slot[4] __attribute__((aligned(16))) = { RV_LI_A0(1), RV_RET, RV_NOP, RV_NOP };
static const uint32_t next_kernel[4] __attribute__((aligned(16))) = { RV_LI_A0(2), RV_RET, RV_NOP, RV_NOP };

#define TENSIX_CFG_IC_INVALIDATE ((volatile uint32_t *)0xFFEF02E4u)   /* config 185: B 1, T0-T2 2/4/8, NC 0x10 */

static uint32_t run_kernel(void)
{
	return ((uint32_t(*)(void))(uintptr_t)kernel_slot)();
}

static int worker(const struct grid_self *self)
{
	(void)self;
	if (run_kernel() != 1)
		return GRID_ERR_DATA;
	noc_semaphore_inc(grid_tile_addr(1, GRID_SEM_ADDR(SEM_READY)), 1);
	noc_async_atomic_barrier();
	noc_semaphore_wait(GRID_SEM(SEM_LOADED), 1);
#ifdef RACE_FIXED
	*TENSIX_CFG_IC_INVALIDATE = 1;   /* BRISC's I-cache, as the firmware does before each launch */
#endif
	uint32_t r = run_kernel();
	if (r != 2) {
		bare_printf("%s: the new kernel returned %u\n", prog, r);
		return GRID_ERR_DATA;
	}
	return GRID_OK;
}

static int dispatcher(const struct grid_self *self)
{
	(void)self;
	noc_semaphore_wait(GRID_SEM(SEM_READY), 1);
	noc_async_write((uint32_t)(uintptr_t)next_kernel, grid_tile_addr(0, (uint32_t)(uintptr_t)kernel_slot),
			sizeof next_kernel);
	noc_async_write_barrier();
	noc_semaphore_inc(grid_tile_addr(0, GRID_SEM_ADDR(SEM_LOADED)), 1);
	noc_async_atomic_barrier();
	return GRID_OK;
}

static int run(uint32_t proc, const struct grid_self *self)
{
	(void)proc;
	return self->index == 0 ? worker(self) : dispatcher(self);
}

int main_brisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_BRISC, &self, prog, run);
}
