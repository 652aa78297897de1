/* What the reference firmware shares with the kernels it runs (firmware/kernel/ABI.md 4): the
 * globals it sets before every kernel call. Defined in fw.c, exported to kernels by name through
 * the PROVIDE script of bhemu_kernel(). The firmware also exports its cb_interface table (cb.h) on
 * every core and its NoC state (noc.h) on BRISC and NCRISC. */
#ifndef BHEMU_FW_REF_FW_ABI_H
#define BHEMU_FW_REF_FW_ABI_H

#include <stdint.h>

#include "p100a.h"

/* Runtime args and common runtime args of this processor: kcb + rta_offset[p].rta / .crta. */
extern uint32_t *rta_l1_base;
extern uint32_t *crta_l1_base;
/* kernel_config_base[k] + sem_offset[k] per core type; Tensix uses [0], semaphore id at + 16 * id. */
extern uint32_t sem_l1_base[3];
/* This tile's logical position (core_info, read at boot), and that minus the launch's
 * sub_device_origin_x/y. */
extern uint8_t my_logical_x_, my_logical_y_;
extern uint8_t my_relative_x_, my_relative_y_;

/* L1 address of a launch's local CB config block: 16 bytes per CB index (sync.md 3.1), one slot
 * for every index up to the highest bit of local_cb_mask. */
static inline const volatile uint32_t *launch_local_cb_config(const volatile struct launch_msg *l)
{
	return (const volatile uint32_t *)(uintptr_t)(l->kernel_config_base[0] + l->local_cb_offset);
}

#endif
