/* Zeroed memory straight from the kernel for the large per-tile structures (a core's page tables,
 * the Tensix data plane, local RAM): a page nobody writes costs no host memory and no page fault,
 * and a P150 opens 140 tiles whose state is mostly never used. Page-aligned. */
#ifndef BH_FABRIC_PAGES_H
#define BH_FABRIC_PAGES_H

#include <stddef.h>
#include <sys/mman.h>

/* LeakSanitizer does not scan mappings of our own: pointers kept only in these pages (a tile's
 * L1, its stream registers) would look leaked while the device is open. */
#if defined(__SANITIZE_ADDRESS__)
#define BH_PAGES_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BH_PAGES_LSAN 1
#endif
#endif
#ifdef BH_PAGES_LSAN
#include <sanitizer/lsan_interface.h>
#endif

/* NULL when out of memory. */
static inline void *bh_pages_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef BH_PAGES_LSAN
	__lsan_register_root_region(p, size);
#endif
	return p;
}

static inline void bh_pages_free(void *p, size_t size)
{
	if (!p)
		return;
#ifdef BH_PAGES_LSAN
	__lsan_unregister_root_region(p, size);
#endif
	munmap(p, size);
}

#endif
