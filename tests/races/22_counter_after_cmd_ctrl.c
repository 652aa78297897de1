/* races.md #22: an NIU counter read right after the CMD_CTRL store that issued a request. Run with
 *   bhemu run --board grid:2x1 --grid --cores brisc,ncrisc --noc-latency 1000000:2000000 \
 *     22_counter_after_cmd_ctrl.elf
 * Tile 0 sends blocks to tile 1 and, after each, reads NIU_MST_NONPOSTED_WR_REQ_SENT to count
 * what has left. The counters move when the initiator accepts the request, after the store, so
 * the count read right away is short and the program says so (GRID_ERR_COUNTERS). Fixed
 * (-DRACE_FIXED): read CMD_CTRL back until it is 0 (the request accepted) first. */
#include "grid_test.h"

#define BLOCKS 8
#define WORDS 16
#define BYTES (WORDS * 4u)

static const char prog[] = "22_counter_after_cmd_ctrl";

static uint32_t block[WORDS] __attribute__((aligned(16)));

static int sender(const struct grid_self *self)
{
	uint32_t sent0 = noc_status_read(noc_index, NIU_MST_NONPOSTED_WR_REQ_SENT);
	for (uint32_t b = 0; b < BLOCKS; b++) {
		grid_block_fill(block, WORDS, b, 0x2222u);
		noc_async_write((uint32_t)(uintptr_t)block, grid_tile_addr(1, GRID_DATA_BASE + b * BYTES), BYTES);
#ifdef RACE_FIXED
		noc_cmd_buf_wait_ready(noc_index, NOC_BUF_WR);
#endif
		uint32_t sent = noc_status_read(noc_index, NIU_MST_NONPOSTED_WR_REQ_SENT) - sent0;
		if (sent != b + 1) {
			bare_printf("%s: tile %u: NIU_MST_NONPOSTED_WR_REQ_SENT counts %u writes after block %u, "
				    "expected %u\n", prog, self->index, sent, b, b + 1);
			noc_async_write_barrier();
			return GRID_ERR_COUNTERS;
		}
		noc_async_write_barrier();
	}
	return GRID_OK;
}

static int run(uint32_t proc, const struct grid_self *self)
{
	(void)proc;
	return self->index == 0 ? sender(self) : GRID_OK;
}

int main_brisc(void)
{
	struct grid_self self;
	return grid_main(NOC_PROC_BRISC, &self, prog, run);
}

int main_ncrisc(void)
{
	return GRID_OK;
}
