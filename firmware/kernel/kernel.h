/* The kernel API of bhemu's reference firmware, with tt-metal's names: what a kernel built with
 * bhemu_kernel() (cmake/BhemuGuest.cmake) includes. firmware/kernel/ABI.md is the contract.
 *
 * A kernel defines kernel_main(). kcrt0.S runs it once per launch with .data and .bss fresh. It
 * finds its runtime arguments, semaphores and circular buffers through the firmware's globals
 * (fw_abi.h), which the firmware set for this launch; the CB and NoC calls of cb.h and noc.h
 * work on the firmware's cb_interface table and NoC state, shared by name. Which CB flavour the
 * firmware set up depends on the processor (ABI.md 4): bytes on BRISC/NCRISC, the unpacker side
 * on TRISC0, the packer side on TRISC2, nothing on TRISC1 (see kernel_cb_setup_data_movement).
 * The NoC calls are for BRISC and NCRISC, whose firmware ran noc_init for this launch.
 *
 * Defined by bhemu_kernel(): KERNEL_PROCESSOR (0 BRISC, 1 NCRISC, 2-4 TRISC0-2) and, when the
 * kernel has compile-time arguments, KERNEL_COMPILE_TIME_ARGS (the values, comma-separated). */
#ifndef BHEMU_KERNEL_KERNEL_H
#define BHEMU_KERNEL_KERNEL_H

#include <stdint.h>

#include "fw_abi.h"

#include "cb.h"
#include "noc.h"

#ifndef KERNEL_PROCESSOR
#error "KERNEL_PROCESSOR is undefined: build kernels with bhemu_kernel()"
#endif

void kernel_main(void);

/* The launch message being run (a3 at entry, kept by kcrt0.S). */
extern struct launch_msg volatile *kernel_launch_msg;

/* Runtime argument i of this processor, and common runtime argument i (the same for every core
 * the kernel runs on). */
static inline uint32_t get_arg_val(uint32_t i)
{
	return rta_l1_base[i];
}

static inline uint32_t get_common_arg_val(uint32_t i)
{
	return crta_l1_base[i];
}

/* L1 address of semaphore id (16 bytes apart). */
static inline uint32_t get_semaphore(uint32_t id)
{
	return sem_l1_base[0] + 16u * id;
}

/* Compile-time arguments: constants the compiler folds when i is one. */
#ifdef KERNEL_COMPILE_TIME_ARGS
static const uint32_t kernel_compile_time_args[] __attribute__((unused)) = { KERNEL_COMPILE_TIME_ARGS };
#define KERNEL_NUM_COMPILE_TIME_ARGS (sizeof(kernel_compile_time_args) / sizeof(kernel_compile_time_args[0]))
#define get_compile_time_arg_val(i) (kernel_compile_time_args[(i)])
#else
#define KERNEL_NUM_COMPILE_TIME_ARGS 0u
#define get_compile_time_arg_val(i) (kernel_has_no_compile_time_args[(i)])	/* undeclared: an error */
#endif

/* Sets up this core's cb_interface in bytes (the BRISC/NCRISC flavour of cb.h) for every CB of
 * the launch, so a TRISC without a coprocessor can move pages with cb_reserve_back, cb_push_back,
 * cb_wait_front and cb_pop_front. On TRISC0/TRISC2 it replaces what the firmware set up. */
static inline void kernel_cb_setup_data_movement(void)
{
	cb_interface_setup(launch_local_cb_config(kernel_launch_msg), kernel_launch_msg->local_cb_mask);
}

#endif
