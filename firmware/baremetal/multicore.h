/* Multi-core bare-metal programs: one ELF, several cores of a tile (`bhemu run --cores ...`).
 *
 * Built with bhemu_guest_executable(... MULTICORE): crt0_multi.S gives every core its own entry
 * _start_<core>, a stack in its own local data RAM and a call to main_<core>() (define the ones
 * you run; the return value is that core's exit status). Everything else follows bare.h.
 *
 * Memory: .text/.data/.bss are in L1 and shared by every core, so a plain global is seen by all
 * of them; a variable marked BARE_LDM lives in each core's private local data RAM instead (same
 * address, one copy per core, zero at entry). Stacks are private too.
 *
 * Start-up: BRISC zeroes .bss, runs multicore_init() if the program defines one, and then
 * releases the other cores, so BRISC must be one of the cores run. */
#ifndef BHEMU_MULTICORE_H
#define BHEMU_MULTICORE_H

#define BARE_LDM_BASE		0xFFB00000
#define BARE_LDM_SIZE_DM	0x2000	/* BRISC, NCRISC */
#define BARE_LDM_SIZE_TRISC	0x1000	/* TRISC0..2 */

/* bare_multi_ready holds this once BRISC has zeroed .bss (not 1: stale L1 rarely matches). */
#define BARE_MULTI_READY_MAGIC	0x600DB55
/* Exit status of a core started without a main_<core> in the program. */
#define BARE_MULTI_NO_MAIN	127

#ifndef __ASSEMBLER__
#include <stdint.h>

#include "bare.h"

/* Per-core private storage (local data RAM, zeroed at entry); see bare_multi.ld. */
#define BARE_LDM __attribute__((section(".ldm_bss")))

extern volatile uint32_t bare_multi_ready;

/* Optional, run by BRISC before any other core starts (e.g. to zero CB counters). */
void multicore_init(void);

int main_brisc(void);
int main_ncrisc(void);
int main_trisc0(void);
int main_trisc1(void);
int main_trisc2(void);
#endif

#endif
