/* The per-core CB interface table of cb.h. Separate from cb.c because a kernel links the
 * functions but shares the table with the firmware it runs under (firmware/kernel/ABI.md 2, 4). */
#include "cb.h"

#include "multicore.h"

/* Per core: each core's local data RAM holds its own copy. */
BARE_LDM struct cb_interface cb_interface[CB_NUM];
