/* Kernel images (firmware/kernel/ABI.md): a kernel ELF read once into an image at its link base
 * plus the relocations that move it, placed at any 16-byte-aligned L1 address per launch. */
#ifndef BH_HOST_KERNEL_H
#define BH_HOST_KERNEL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "host/elf.h"

#define BH_KERNEL_LINK_BASE	0x01000000u
#define BH_KERNEL_MAX_CT_ARGS	64u

/* One relocation of the image, resolved to what it refers to at link time. */
struct bh_kernel_reloc {
	uint32_t off;          /* byte offset of the patched word in the image */
	uint32_t type;         /* R_RISCV_* */
	uint32_t target;       /* S + A at link time (PCREL_LO12: the address of its auipc) */
	uint32_t place;        /* link-time address of the patched word (its VMA) */
	uint32_t moves;        /* 1 when the patched word's own address moves with the image */
};

struct bh_kernel_image {
	atomic_int refs;
	char *path;            /* "<code>" for raw images */
	unsigned proc;         /* enum bh_core_id it was linked for */
	uint8_t *bytes;        /* size bytes as linked at BH_KERNEL_LINK_BASE */
	uint32_t size;         /* multiple of 4 */
	struct bh_kernel_reloc *rel;
	unsigned nrel;
	uint32_t ct_args[BH_KERNEL_MAX_CT_ARGS];
	unsigned n_ct_args;
	struct bh_elf *elf;    /* symbols for reports (NULL for raw code) */
	uint64_t hash;         /* of bytes and relocations: equal images launch without re-upload */
};

/* Reads a kernel ELF. On error returns NULL with a message naming the file and the problem. */
struct bh_kernel_image *bh_kernel_load(const char *path, char *err, size_t errlen);
/* A raw position-independent image (no relocations, no symbols). */
struct bh_kernel_image *bh_kernel_from_code(unsigned proc, const uint32_t *code, size_t words);
struct bh_kernel_image *bh_kernel_ref(struct bh_kernel_image *k);
void bh_kernel_unref(struct bh_kernel_image *k);

/* Writes the image as placed at L1 address addr into out (k->size bytes). Returns 0, or -1 with
 * a message when a relocated field does not fit (a branch out of range). */
int bh_kernel_place(const struct bh_kernel_image *k, uint32_t addr, uint8_t *out, char *err, size_t errlen);

#endif
