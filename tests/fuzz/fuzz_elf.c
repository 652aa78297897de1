/* Fuzz target: bytes as an ELF file through the reader (host/elf.c) and the loader
 * (host/loader.c) into tile 0 of a one-tile device, for each of the five cores, and symbolization
 * of the entry and of every segment start (what fault reports do with the symbol table). */
#include "tests/fuzz/fuzz_input.h"   /* first: it needs _GNU_SOURCE for memfd_create */

#include <stdint.h>
#include <stdlib.h>

#include "bhemu/bhemu.h"
#include "host/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	const char *path = fuzz_input_path(data, size);
	struct bh_device *dev = fuzz_device();
	if (!path)
		return 0;
	struct bh_elf *e = bh_elf_open(path, err, sizeof err);
	if (!e)
		return 0;   /* the loader would refuse it with the same message */
	uint32_t off;
	bh_elf_symbol_at(e, e->entry, &off);
	for (unsigned i = 0; i < e->nseg; i++)
		bh_elf_symbol_at(e, e->seg[i].vaddr, &off);
	bh_elf_symbol_lookup(e, "_start", &off);
	bh_elf_close(e);
	/* The loader, for every core kind: local-RAM windows and their sizes differ; with and
	 * without staging local-RAM images in L1 (as boot does). */
	for (unsigned k = 0; k < 5; k++) {
		uint32_t entry;
		struct bh_load_options opt = { .ldm_redirect = k == 0 ? 0 : 0x82B0 };
		if (bh_load_elf(dev, 0, (enum bh_core_id)k, path, k & 1 ? &opt : NULL, &entry, err, sizeof err) == BH_OK)
			bh_core_symbol_lookup(dev, 0, (enum bh_core_id)k, "_start", &entry);
	}
	return 0;
}
