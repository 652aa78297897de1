/* Zeroed memory straight from the kernel for the large per-tile structures (a core's page tables,
 * the Tensix data plane, local RAM): a page nobody writes costs no host memory and no page fault,
 * and a P150 opens 140 tiles whose state is mostly never used. Page-aligned. */
#ifndef BH_FABRIC_PAGES_H
#define BH_FABRIC_PAGES_H

#include <stddef.h>
#include <sys/mman.h>

/* NULL when out of memory. */
static inline void *bh_pages_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static inline void bh_pages_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

#endif
