/* Criterion-compatible test macros for the TSan preset only.
 *
 * Criterion's process isolation (BoxFort) cannot initialise its inheritable arena under
 * ThreadSanitizer ("Could not initialize inheritable arena"), so TSan builds compile the same
 * test sources against this header and runner.c instead: each test runs in a forked child with
 * its suite's .init/.fini and a timeout. Only the subset of the Criterion API the tests use. */
#ifndef BH_TSAN_CRITERION_H
#define BH_TSAN_CRITERION_H

/* Assertions without a message pass an empty format. */
#pragma GCC diagnostic ignored "-Wformat-zero-length"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bh_tr_opts {
	void (*init)(void);
	void (*fini)(void);
	double timeout;
	int disabled;
};

void bh_tr_register(const char *suite, const char *name, void (*fn)(void), struct bh_tr_opts o);
void bh_tr_register_suite(const char *suite, struct bh_tr_opts o);
void bh_tr_check(int ok, int fatal, const char *file, int line, const char *expr, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void bh_tr_skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define Test(suite, name, ...) \
	static void suite##_##name(void); \
	__attribute__((constructor)) static void bh_tr_reg_##suite##_##name(void) \
	{ bh_tr_register(#suite, #name, suite##_##name, (struct bh_tr_opts){ __VA_ARGS__ }); } \
	static void suite##_##name(void)

#define TestSuite(suite, ...) \
	__attribute__((constructor)) static void bh_tr_suite_##suite(void) \
	{ bh_tr_register_suite(#suite, (struct bh_tr_opts){ __VA_ARGS__ }); }

#define BH_TR_CHECK(fatal, cond, expr, ...) \
	bh_tr_check(!!(cond), fatal, __FILE__, __LINE__, expr, "" __VA_ARGS__)

#define cr_assert(c, ...) BH_TR_CHECK(1, c, #c, __VA_ARGS__)
#define cr_expect(c, ...) BH_TR_CHECK(0, c, #c, __VA_ARGS__)
#define cr_assert_fail(...) BH_TR_CHECK(1, 0, "failure", __VA_ARGS__)
#define cr_expect_fail(...) BH_TR_CHECK(0, 0, "failure", __VA_ARGS__)
#define cr_fatal(...) BH_TR_CHECK(1, 0, "fatal", __VA_ARGS__)
#define cr_assert_not(c, ...) BH_TR_CHECK(1, !(c), "!(" #c ")", __VA_ARGS__)
#define cr_expect_not(c, ...) BH_TR_CHECK(0, !(c), "!(" #c ")", __VA_ARGS__)
#define cr_assert_eq(a, b, ...) BH_TR_CHECK(1, (a) == (b), #a " == " #b, __VA_ARGS__)
#define cr_expect_eq(a, b, ...) BH_TR_CHECK(0, (a) == (b), #a " == " #b, __VA_ARGS__)
#define cr_assert_neq(a, b, ...) BH_TR_CHECK(1, (a) != (b), #a " != " #b, __VA_ARGS__)
#define cr_expect_neq(a, b, ...) BH_TR_CHECK(0, (a) != (b), #a " != " #b, __VA_ARGS__)
#define cr_assert_lt(a, b, ...) BH_TR_CHECK(1, (a) < (b), #a " < " #b, __VA_ARGS__)
#define cr_expect_lt(a, b, ...) BH_TR_CHECK(0, (a) < (b), #a " < " #b, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) BH_TR_CHECK(1, (a) <= (b), #a " <= " #b, __VA_ARGS__)
#define cr_expect_leq(a, b, ...) BH_TR_CHECK(0, (a) <= (b), #a " <= " #b, __VA_ARGS__)
#define cr_assert_gt(a, b, ...) BH_TR_CHECK(1, (a) > (b), #a " > " #b, __VA_ARGS__)
#define cr_expect_gt(a, b, ...) BH_TR_CHECK(0, (a) > (b), #a " > " #b, __VA_ARGS__)
#define cr_assert_geq(a, b, ...) BH_TR_CHECK(1, (a) >= (b), #a " >= " #b, __VA_ARGS__)
#define cr_expect_geq(a, b, ...) BH_TR_CHECK(0, (a) >= (b), #a " >= " #b, __VA_ARGS__)
#define cr_assert_null(p, ...) BH_TR_CHECK(1, (p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_expect_null(p, ...) BH_TR_CHECK(0, (p) == NULL, #p " == NULL", __VA_ARGS__)
#define cr_assert_not_null(p, ...) BH_TR_CHECK(1, (p) != NULL, #p " != NULL", __VA_ARGS__)
#define cr_expect_not_null(p, ...) BH_TR_CHECK(0, (p) != NULL, #p " != NULL", __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) BH_TR_CHECK(1, strcmp((a), (b)) == 0, #a " == " #b, __VA_ARGS__)
#define cr_expect_str_eq(a, b, ...) BH_TR_CHECK(0, strcmp((a), (b)) == 0, #a " == " #b, __VA_ARGS__)
#define cr_assert_str_empty(a, ...) BH_TR_CHECK(1, (a)[0] == 0, #a " is empty", __VA_ARGS__)
#define cr_expect_str_empty(a, ...) BH_TR_CHECK(0, (a)[0] == 0, #a " is empty", __VA_ARGS__)
#define cr_assert_arr_eq(a, b, n, ...) BH_TR_CHECK(1, memcmp((a), (b), (n)) == 0, #a " == " #b, __VA_ARGS__)
#define cr_expect_arr_eq(a, b, n, ...) BH_TR_CHECK(0, memcmp((a), (b), (n)) == 0, #a " == " #b, __VA_ARGS__)
#define cr_skip_test(...) bh_tr_skip("" __VA_ARGS__)
#define cr_log_info(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))

#endif
