/* Replays fuzz inputs through a harness's LLVMFuzzerTestOneInput without libFuzzer, so every build
 * (Release, ASan+UBSan, TSan) runs the kept corpus: `fuzz_replay_TARGET DIR|FILE ...`.
 * Directories are read in name order; an argument that names no input, or a directory without one,
 * is an error (a replay that replays nothing proves nothing). A crash, sanitizer report or leak
 * ends the process as it would under the fuzzer. Exit: 0 all replayed, 1 an input could not be
 * read, 2 usage. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fuzz replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *grown = realloc(buf, cap * 2);
			if (!grown) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = grown;
			cap *= 2;
		}
	}
	int err = ferror(f);
	fclose(f);
	if (!buf || err) {
		fprintf(stderr, "fuzz replay: %s: %s\n", path, buf ? "read error" : "out of memory");
		free(buf);
		return -1;
	}
	/* An exact-size copy, so ASan sees reads past the input's end as the fuzzer would. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays every regular file directly in DIR, in name order; returns how many, or -1. */
static long replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "fuzz replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t count = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (count == cap) {
			cap = cap ? cap * 2 : 64;
			char **grown = realloc(names, cap * sizeof *names);
			if (!grown)
				break;
			names = grown;
		}
		names[count] = strdup(e->d_name);
		if (names[count])
			count++;
	}
	closedir(d);
	qsort(names, count, sizeof *names, by_name);
	long done = 0;
	for (size_t i = 0; i < count; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) != 0)
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE ...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	long total = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "fuzz replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		long n = S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : (replay_file(argv[i]) == 0 ? 1 : -1);
		if (n < 0)
			return 1;
		if (n == 0) {
			fprintf(stderr, "fuzz replay: %s holds no input\n", argv[i]);
			return 1;
		}
		total += n;
	}
	printf("fuzz replay: %ld inputs replayed, none crashed\n", total);
	return 0;
}
