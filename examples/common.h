/* What the example host programs share: opening and booting a board with the reference firmware,
 * kernel paths, a tiny option parser for the board, and wall time. */
#ifndef BHEMU_EXAMPLES_COMMON_H
#define BHEMU_EXAMPLES_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bhemu/bhemu.h"

/* Exit statuses of the examples: 0 output exact; 1 host failure; 2 bad usage; 3 a core faulted;
 * 4 wrong output; 5 deadlock; 6 timeout. */
enum { EXIT_OK = 0, EXIT_HOST = 1, EXIT_USAGE = 2, EXIT_FAULT = 3, EXIT_WRONG = 4, EXIT_DEADLOCK = 5,
       EXIT_TIMEOUT = 6 };
/* The exit status for a failed launch's BH_ERR_* code. */
int example_exit_status(int rc);
/* xorshift32: the next pseudo-random number of state s (not 0). */
uint32_t example_xorshift(uint32_t *s);

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
