/* Guest side of the random differential test: runs the rvgen-generated rvgen_body() and
 * prints every register and a hash of the scratch memory it worked on. */
#include "bare.h"

void rvgen_body(void);
extern uint32_t rvgen_regs[32];
extern uint8_t rvgen_scratch[];
extern const uint32_t rvgen_scratch_bytes;

int main(void)
{
	rvgen_body();

	uint32_t digest = BARE_FNV_INIT;
	for (int r = 0; r < 32; r += 4) {
		bare_printf("x%d..x%d: %08x %08x %08x %08x\n", r, r + 3, rvgen_regs[r], rvgen_regs[r + 1],
			    rvgen_regs[r + 2], rvgen_regs[r + 3]);
		for (int i = 0; i < 4; i++)
			digest = bare_fnv1a_u32(digest, rvgen_regs[r + i]);
	}
	uint32_t scratch = bare_fnv1a(BARE_FNV_INIT, rvgen_scratch, rvgen_scratch_bytes);
	digest = bare_fnv1a_u32(digest, scratch);
	bare_printf("scratch hash %08x\ndigest %08x\n", scratch, digest);
	return 0;
}
