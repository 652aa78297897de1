/* Shared by the fuzz harnesses: the libFuzzer entry points, an input as a file the library can open
 * by path, and the device the harnesses load into. */
#ifndef BH_TESTS_FUZZ_INPUT_H
#define BH_TESTS_FUZZ_INPUT_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bhemu/bhemu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* One memory-backed file per process, rewritten with each input; its /proc/self/fd path is a
 * regular file to the ELF reader. NULL if the file cannot be written. */
static inline const char *fuzz_input_path(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("bhemu-fuzz-input", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return NULL;
	return path;
}

/* The one-tile device the ELF and kernel harnesses load into, opened on first use and kept
 * (still reachable at exit, so not a leak). */
static inline struct bh_device *fuzz_device(void)
{
	static struct bh_device *dev;
	if (!dev && bh_device_open(NULL, &dev) != BH_OK)
		abort();
	return dev;
}

#endif
