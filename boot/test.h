/*
 * test.h — in-guest test cases, registered through the .testcases section.
 *
 *   TEST_CASE(suite, name) { ... EXPECT_EQ(a, b); ASSERT_TRUE(x); ... }
 *
 * The kernel command line `bt.test=SUITE[,SUITE...]` (or `bt.test=all`) runs
 * the named suites in thread context on CPU 0 after boot, prints KTAP
 * (version 1, one subtest per suite) on the console and powers off with
 * status 0 if everything passed, 1 otherwise.  Suites run in link order; a
 * suite may span files: its cases run file by file in link order, each
 * file's in source order.  A case fails if any EXPECT/ASSERT
 * failed; ASSERT_* also returns from the case at once.  TEST_SKIP(reason)
 * marks the case skipped.  Failure messages are printed as KTAP diagnostics
 * ("# file:line: ...").  A crash or hang is graded by the host harness.
 */
#ifndef BOOT_TEST_H
#define BOOT_TEST_H

#include <stdbool.h>
#include <stdint.h>

struct test_case {
	const char *suite;
	const char *name;
	void (*fn)(void);
	unsigned flags;           /* TEST_SLOW, TEST_MANUAL */
	const char *file;         /* with line: the order cases of a suite run in */
	unsigned line;
};

#define TEST_SLOW   1u        /* runs only with bt.test_slow */
#define TEST_MANUAL 2u        /* runs only when its suite is named, never with "all" */

#define TEST_CASE_FLAGS(suite, name, flags)                                        \
	static void test_##suite##_##name(void);                                    \
	static const struct test_case __tc_##suite##_##name                         \
		__attribute__((used, section(".testcases"), aligned(8))) = {        \
		#suite, #name, test_##suite##_##name, flags, __FILE__, __LINE__ };             \
	static void test_##suite##_##name(void)
#define TEST_CASE(suite, name) TEST_CASE_FLAGS(suite, name, 0)
/*
 * A fixture: a case that does not judge itself — it crashes, stops for gdb
 * or prints what the host compares — so it runs only when its suite is
 * named (TEST_MANUAL), and the host check that boots it gives the verdict
 * (tests/run.py and its checks_*.py).  Whole files of them live in
 * tests/guest/fixtures/; a fixture that shares a suite file's helpers stays
 * there, under this name.
 */
#define TEST_FIXTURE(suite, name) TEST_CASE_FLAGS(suite, name, TEST_MANUAL)

/* Record a failure of the running case (thread-safe; printed as a diagnostic). */
__attribute__((format(printf, 3, 4)))
void test_fail(const char *file, int line, const char *fmt, ...);
void test_skip(const char *reason);

#define EXPECT_TRUE(c) \
	((c) ? (void)0 : test_fail(__FILE__, __LINE__, "expected %s", #c))
#define EXPECT_EQ(a, b) do {                                                    \
	long long _a = (long long)(a), _b = (long long)(b);                        \
	if (_a != _b)                                                               \
		test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b); \
} while (0)
#define EXPECT_NE(a, b) do {                                                    \
	long long _a = (long long)(a), _b = (long long)(b);                        \
	if (_a == _b)                                                               \
		test_fail(__FILE__, __LINE__, "%s != %s: both %lld", #a, #b, _a);   \
} while (0)
#define EXPECT_STREQ(a, b) do {                                                 \
	const char *_a = (a), *_b = (b);                                            \
	if (!_a || !_b || __builtin_strcmp(_a, _b) != 0)                            \
		test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,  \
			  _a ? _a : "(null)", _b ? _b : "(null)");                   \
} while (0)
#define ASSERT_TRUE(c) do { if (!(c)) { test_fail(__FILE__, __LINE__, "expected %s", #c); return; } } while (0)
#define ASSERT_EQ(a, b) do {                                                    \
	long long _a = (long long)(a), _b = (long long)(b);                        \
	if (_a != _b) {                                                             \
		test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b); \
		return;                                                             \
	}                                                                           \
} while (0)
#define TEST_SKIP(reason) do { test_skip(reason); return; } while (0)

/* Run the suites named in `spec` ("all" or a comma list); returns failures. */
int test_run(const char *spec, bool slow);

#endif
