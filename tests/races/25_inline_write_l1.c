/* races.md #25: BRISC signals a flag word in another tile's L1 with a raw inline NoC write (the
 * data travels in the request). On Blackhole inline writes to L1 are broken (noc.md): bhemu faults
 * the request. The fix is the library's noc_inline_dw_write, which stages the word in L1 and
 * sends an ordinary 4-byte write when the target is L1 (inline stays for MMIO targets). */
#include "multicore.h"
#include "noc.h"

static volatile uint32_t flag __attribute__((aligned(16)));

int main_brisc(void)
{
	noc_init_brisc();
	uint64_t dst = get_noc_addr(my_x(), my_y(), (uint32_t)(uintptr_t)&flag);
#ifdef RACE_FIXED
	noc_inline_dw_write(dst, 7);
#else
	noc_inline_dw_write_mmio(dst, 7, false);
#endif
	noc_async_write_barrier();
	return flag == 7 ? 0 : 1;
}
