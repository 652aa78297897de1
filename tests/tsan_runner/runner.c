/* Test runner behind criterion/criterion.h for TSan builds: forks one child per test, applies
 * the suite's and the test's .init/.fini/.timeout, and prints Criterion-style results. */
#include <signal.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include "criterion/criterion.h"

#define MAX_TESTS 1024
#define MAX_SUITES 128

struct bh_tr_test {
	const char *suite, *name;
	void (*fn)(void);
	struct bh_tr_opts o;
};

static struct bh_tr_test tests[MAX_TESTS];
static unsigned ntests;
static struct { const char *name; struct bh_tr_opts o; } suites[MAX_SUITES];
static unsigned nsuites;
static int child_failed;

void bh_tr_register(const char *suite, const char *name, void (*fn)(void), struct bh_tr_opts o)
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "tsan runner: more than %d tests\n", MAX_TESTS);
		exit(2);
	}
	tests[ntests++] = (struct bh_tr_test){ suite, name, fn, o };
}

void bh_tr_register_suite(const char *suite, struct bh_tr_opts o)
{
	if (nsuites == MAX_SUITES) {
		fprintf(stderr, "tsan runner: more than %d suites\n", MAX_SUITES);
		exit(2);
	}
	suites[nsuites].name = suite;
	suites[nsuites++].o = o;
}

void bh_tr_check(int ok, int fatal, const char *file, int line, const char *expr, const char *fmt, ...)
{
	va_list ap;
	if (ok)
		return;
	fprintf(stderr, "%s:%d: %s failed: %s: ", file, line, fatal ? "Assertion" : "Expectation", expr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	child_failed = 1;
	if (fatal)
		exit(1);
}

void bh_tr_skip(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "skipped: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(77);
}

static const struct bh_tr_opts *suite_opts(const char *suite)
{
	for (unsigned k = 0; k < nsuites; k++)
		if (strcmp(suites[k].name, suite) == 0)
			return &suites[k].o;
	return NULL;
}

static void run_child(const struct bh_tr_test *t, const struct bh_tr_opts *s)
{
	void (*init)(void) = t->o.init ? t->o.init : s ? s->init : NULL;
	void (*fini)(void) = t->o.fini ? t->o.fini : s ? s->fini : NULL;
	if (init)
		init();
	t->fn();
	if (fini)
		fini();
	exit(child_failed);
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	unsigned passed = 0, failed = 0, skipped = 0;
	/* Accepts Criterion's --filter SUITE/NAME-substring; other options (--jobs) are ignored. */
	for (int k = 1; k < argc; k++)
		if (strcmp(argv[k], "--filter") == 0 && k + 1 < argc)
			filter = argv[++k];
	for (unsigned k = 0; k < ntests; k++) {
		const struct bh_tr_test *t = &tests[k];
		const struct bh_tr_opts *s = suite_opts(t->suite);
		char full[256];
		snprintf(full, sizeof full, "%s::%s", t->suite, t->name);
		if ((filter && !strstr(full, filter)) || t->o.disabled || (s && s->disabled))
			continue;
		double timeout = t->o.timeout > 0 ? t->o.timeout : s && s->timeout > 0 ? s->timeout : 0;
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			/* TSan runs several times slower than a plain build: scale the timeout. */
			alarm(timeout > 0 ? (unsigned)(timeout * 10) : 900);
			run_child(t, s);
		}
		int ws;
		while (waitpid(pid, &ws, 0) < 0)
			;
		if (WIFEXITED(ws) && WEXITSTATUS(ws) == 77) {
			skipped++;
			printf("[SKIP] %s\n", full);
		} else if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) {
			passed++;
			printf("[PASS] %s\n", full);
		} else {
			failed++;
			if (WIFSIGNALED(ws))
				printf("[FAIL] %s: killed by signal %d%s\n", full, WTERMSIG(ws),
				       WTERMSIG(ws) == SIGALRM ? " (timeout)" : "");
			else
				printf("[FAIL] %s: exit status %d\n", full, WEXITSTATUS(ws));
		}
	}
	printf("[====] Synthesis: Tested: %u | Passing: %u | Failing: %u | Skipped: %u\n", passed + failed, passed,
	       failed, skipped);
	return failed ? 1 : 0;
}
