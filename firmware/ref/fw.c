/* The kernel-facing globals of the reference firmware (fw_abi.h, firmware/kernel/ABI.md 4), shared
 * by all five images: each core has its own copy in its local RAM. */
#include "fw.h"

#include "multicore.h"

/* BARE_LDM: the section fw.ld.in keeps, like the CB and NoC state. */
BARE_LDM uint32_t *rta_l1_base;
BARE_LDM uint32_t *crta_l1_base;
BARE_LDM uint32_t sem_l1_base[3];
BARE_LDM uint8_t my_logical_x_, my_logical_y_;
BARE_LDM uint8_t my_relative_x_, my_relative_y_;

void fw_read_position(void)
{
	my_logical_x_ = REG8(MBOX_LOGICAL_X);
	my_logical_y_ = REG8(MBOX_LOGICAL_Y);
}

/* launch.md 3-5: what every core computes from the launch message before its kernel runs. */
void fw_launch_globals(uint32_t proc, struct launch_msg volatile *l)
{
	uint32_t kcb = l->kernel_config_base[0];

	for (uint32_t k = 0; k < 3; k++)
		sem_l1_base[k] = l->kernel_config_base[k] + l->sem_offset[k];
	rta_l1_base = (uint32_t *)(uintptr_t)(kcb + l->rta_offset[proc].rta);
	crta_l1_base = (uint32_t *)(uintptr_t)(kcb + l->rta_offset[proc].crta);
	my_relative_x_ = (uint8_t)(my_logical_x_ - l->sub_device_origin_x);
	my_relative_y_ = (uint8_t)(my_logical_y_ - l->sub_device_origin_y);
}
