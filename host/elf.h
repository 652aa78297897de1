/* ELF images for the baby RISC-V cores, read with libelf: validated program headers and the
 * symbol table (kept for fault reports). */
#ifndef BH_HOST_ELF_H
#define BH_HOST_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bh_elf_segment {
	uint32_t vaddr;
	uint32_t filesz;
	uint32_t memsz;
	uint32_t flags;          /* PF_R/PF_W/PF_X */
	const uint8_t *data;     /* filesz bytes inside the image */
};

struct bh_elf_symbol {
	uint32_t addr;
	uint32_t size;
	const char *name;
	unsigned char type;      /* STT_FUNC, STT_OBJECT, STT_NOTYPE */
	bool abs;                /* SHN_ABS: a value, found by name but never used to name an address */
};

struct bh_elf {
	char *path;
	uint32_t entry;
	unsigned nseg;                   /* PT_LOAD segments only, sorted by vaddr */
	struct bh_elf_segment *seg;
	unsigned nsym;                   /* sorted by addr */
	struct bh_elf_symbol *sym;
	/* private: file contents and string storage */
	uint8_t *image;
	size_t image_size;
	char *strings;
};

/* Reads and validates path. On failure returns NULL and writes a one-line message that names the
 * file and the problem (not ELF, not ELF32, not little-endian, not RISC-V, not an executable,
 * truncated, bad program header, overlapping segments, ...) into err. */
struct bh_elf *bh_elf_open(const char *path, char *err, size_t errlen);
void bh_elf_close(struct bh_elf *elf);

/* Symbol containing addr, else the nearest preceding FUNC/NOTYPE symbol in the same segment;
 * NULL if none. Absolute symbols are never used. */
const struct bh_elf_symbol *bh_elf_symbol_at(const struct bh_elf *elf, uint32_t addr, uint32_t *offset);
/* Address of a named symbol; returns 0 on success, -1 when absent. */
int bh_elf_symbol_lookup(const struct bh_elf *elf, const char *name, uint32_t *addr);

#endif
