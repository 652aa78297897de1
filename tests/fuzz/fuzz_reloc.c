/* Fuzz target: bytes as a kernel ELF (firmware/kernel/ABI.md) through bh_kernel_load and
 * bh_program_add_kernel, then relocated (bh_kernel_place) to where program layouts put kernels:
 * the link address itself, the p100a kernel-config area, and the top of L1 (branches out of range). */
#include "tests/fuzz/fuzz_input.h"   /* first: it needs _GNU_SOURCE for memfd_create */

#include <stdint.h>
#include <stdlib.h>

#include "bhemu/bhemu.h"
#include "host/kernel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t places[] = { BH_KERNEL_LINK_BASE, 0x82B0 + 0x400, 0x10000, 0x17F000 };
	char err[512];
	const char *path = fuzz_input_path(data, size);
	struct bh_device *dev = fuzz_device();
	if (!path)
		return 0;
	struct bh_kernel_image *k = bh_kernel_load(path, err, sizeof err);
	if (!k)
		return 0;
	uint8_t *out = malloc(k->size ? k->size : 1);
	for (size_t i = 0; out && i < sizeof places / sizeof places[0]; i++)
		bh_kernel_place(k, places[i], out, err, sizeof err);
	free(out);
	struct bh_program *prog;
	if (bh_program_create(dev, &prog) == BH_OK) {
		struct bh_core_range all = { 0, 0, 0, 0 };
		bh_program_add_kernel(prog, (enum bh_core_id)k->proc, path, &all, 1, k->ct_args, k->n_ct_args);
		bh_program_destroy(prog);
	}
	bh_kernel_unref(k);
	return 0;
}
