/* k_empty_<proc>: does nothing. The smallest kernel of each processor: launch overhead, and the
 * image the host must place and relocate with no .data and an empty .bss. */
#include "kernel.h"

void kernel_main(void)
{
}
