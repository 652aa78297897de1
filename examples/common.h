/* What the example host programs share: opening and booting a board with the reference firmware,
 * kernel paths, a tiny option parser for the board, and wall time. */
#ifndef BHEMU_EXAMPLES_COMMON_H
#define BHEMU_EXAMPLES_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include "bhemu/bhemu.h"

/* Opens the board named like `bhemu run --board` ("p150", "p100", "grid:CxR") and boots every
 * tile with the reference firmware of this build. Prints what went wrong and returns NULL. */
struct bh_device *example_boot(const char *board, double *boot_seconds);
/* BHEMU_KERNEL_DIR/name.elf into buf. */
const char *example_kernel(char *buf, size_t len, const char *name);
double example_now(void);

#endif
