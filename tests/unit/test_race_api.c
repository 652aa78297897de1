/* races.md #32, as a host program would make it: the host polls a word the device writes into
 * L1 through the call for tile registers (on hardware: a TLB window mapped to registers instead
 * of L1, so the poll reads a register and never sees the flag). The library keeps L1 and
 * register access apart: each call is range-checked, so the mistake is refused at its first use
 * instead of hanging the host; the fixed twin polls with bh_l1_read. */
#include <criterion/criterion.h>

#include "fabric/hw.h"
#include "testlib.h"

#define DONE_AT 0x20000u
#define DONE_MAGIC 0x600Du
/* SOFT_RESET_0, a tile register (memory-map.md). */
#define SOFT_RESET_0 0xFFB121B0u

/* BRISC writes the done word and exits; the host waits for its exit first, so the word is there
 * whichever way the host then reads it. */
static struct bh_device *device_done(void)
{
	struct bh_device *dev = t_open();
	struct prog p = { 0 };
	emit_store_word(&p, DONE_AT, DONE_MAGIC);
	emit_exit_with(&p, 0);
	cr_assert_eq(run_core(dev, BH_CORE_BRISC, &p), 0);
	return dev;
}

Test(race_32, host_polling_l1_through_the_register_call_is_refused_at_once)
{
	struct bh_device *dev = device_done();
	uint32_t v = 0x12345678u;
	cr_expect_eq(bh_reg_read(dev, 0, DONE_AT, &v), BH_ERR_ARG, "an L1 address is not a register");
	cr_expect_eq(v, 0x12345678u, "a refused read returns nothing");
	cr_expect_eq(bh_reg_write(dev, 0, DONE_AT, 0), BH_ERR_ARG);
	cr_expect_eq(l1_get(dev, DONE_AT), DONE_MAGIC, "the refused write changed nothing");
	/* The other way round: L1 calls stop at the end of L1. */
	cr_expect_eq(bh_l1_read(dev, 0, SOFT_RESET_0, &v, 4), BH_ERR_ARG, "a register is not L1");
	cr_expect_eq(bh_l1_read(dev, 0, BH_L1_SIZE - 2, &v, 4), BH_ERR_ARG, "a read across the end of L1");
	cr_expect_eq(bh_l1_write(dev, 0, SOFT_RESET_0, &v, 4), BH_ERR_ARG);
	bh_device_close(dev);
}

Test(race_32, fixed_host_polls_l1_with_the_l1_call_and_registers_with_the_register_call)
{
	struct bh_device *dev = device_done();
	uint32_t v = 0, reset = 0;
	cr_expect_eq(bh_l1_read(dev, 0, DONE_AT, &v, 4), BH_OK);
	cr_expect_eq(v, DONE_MAGIC);
	cr_expect_eq(bh_reg_read(dev, 0, SOFT_RESET_0, &reset), BH_OK);
	cr_expect_eq(reset & 0x47000u, 0x47000u, "NCRISC and the TRISCs, never released, are in reset: 0x%08x", reset);
	bh_device_close(dev);
}
