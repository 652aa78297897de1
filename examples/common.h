/* What the example host programs share: opening and booting a board with the reference firmware,
 * kernel paths, a tiny option parser for the board, and wall time. */
#ifndef BHEMU_EXAMPLES_COMMON_H
#define BHEMU_EXAMPLES_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bhemu/bhemu.h"

/* Opens the board named like `bhemu run --board` ("p150", "p100", "grid:CxR") and boots every
 * tile with the reference firmware of this build. Prints what went wrong and returns NULL. */
struct bh_device *example_boot(const char *board, double *boot_seconds);
/* BHEMU_KERNEL_DIR/name.elf into buf. */
const char *example_kernel(char *buf, size_t len, const char *name);
double example_now(void);

/* The float of FP32 bits b, and back. A BF16 number is the top half of an FP32 one. */
float example_f32(uint32_t b);
uint32_t example_f32_bits(float f);
/* The BF16 nearest to v (a value exact in double, within BF16's normal range), ties away from zero:
 * the rounding of the SFPU's SFP_STOCH_RND to BF16 and of the packer from an FP32 Dst. 0 gives +0. */
uint16_t example_bf16_round_away(double v);

#endif
