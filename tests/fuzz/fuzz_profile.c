/* Fuzz target: bytes as a firmware set for profile derivation (host/profile.c). The first byte
 * chooses the base profile (bit 0 clear: p100a, set: none, so every field must come from the ELFs);
 * the rest is split into the five firmware ELFs (brisc, ncrisc, trisc0, trisc1, trisc2) at each
 * "\177ELF" magic, so that a seed is a flag byte and the five images one after the other. Missing
 * images are empty files. They are written into one scratch directory made at start-up. */
#include "tests/fuzz/fuzz_input.h"   /* first: it needs _GNU_SOURCE */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bhemu/bhemu.h"
#include "host/profile.h"

static char fuzz_dir[64];

static void fuzz_cleanup(void)
{
	char path[128];
	for (unsigned k = 0; k < 5; k++) {
		snprintf(path, sizeof path, "%s/%s", fuzz_dir, bh_profile_fw_file[k]);
		unlink(path);
	}
	rmdir(fuzz_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	strcpy(fuzz_dir, "/tmp/bhemu-fuzz-profile-XXXXXX");
	if (!mkdtemp(fuzz_dir))
		abort();
	atexit(fuzz_cleanup);
	return 0;
}

/* Where the next image starts: the next "\177ELF" after the current one's own magic. */
static size_t next_image(const uint8_t *data, size_t size, size_t from)
{
	for (size_t i = from + 1; i + 4 <= size; i++)
		if (!memcmp(data + i, "\177ELF", 4))
			return i;
	return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128], err[1024];
	if (!fuzz_dir[0])
		LLVMFuzzerInitialize(NULL, NULL);
	if (size == 0)
		return 0;
	bool no_base = data[0] & 1;
	size_t at = 1;
	for (unsigned k = 0; k < 5; k++) {
		size_t end = at < size ? next_image(data, size, at) : size;
		snprintf(path, sizeof path, "%s/%s", fuzz_dir, bh_profile_fw_file[k]);
		FILE *f = fopen(path, "wb");
		if (!f)
			return 0;
		size_t n = end - at;
		bool ok = n == 0 || fwrite(data + at, 1, n, f) == n;
		if (fclose(f) != 0 || !ok)
			return 0;
		at = end;
	}
	struct bh_profile prof;
	if (bh_profile_derive(fuzz_dir, no_base ? NULL : bh_profile_default(), &prof, err, sizeof err) == BH_OK) {
		char text[8192];
		bh_profile_format(&prof, text, sizeof text);
	}
	return 0;
}
