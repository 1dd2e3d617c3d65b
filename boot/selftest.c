/*
 * selftest.c — run TEST_CASEs and print KTAP.
 *
 * Cases run one after another in the calling thread.  test_fail() may be
 * called from any thread or CPU while a case runs; the verdict is read after
 * the case returns (cases join the threads they start).
 */
#include <stdarg.h>
#include <string.h>

#include "boot/console.h"
#include "boot/test.h"

extern const struct test_case __testcases_start[], __testcases_end[];

static unsigned case_failures;      /* atomic: failures in the running case */
static const char *case_skip;

void test_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("    # %s:%d: %s\n", file, line, msg);
	__atomic_fetch_add(&case_failures, 1, __ATOMIC_RELAXED);
}

void test_skip(const char *reason)
{
	case_skip = reason;
}

/* Is `t`'s suite named in the comma-separated spec (or is spec "all")? */
static bool selected(const char *spec, const struct test_case *t)
{
	const char *suite = t->suite;
	if (strcmp(spec, "all") == 0)
		return !(t->flags & TEST_MANUAL);
	size_t n = strlen(suite);
	for (const char *p = spec; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, suite, n) == 0)
			return true;
		p += len + (end ? 1 : 0);
	}
	return false;
}

/* First case of each suite, in link order; returns the number of suites. */
static unsigned list_suites(const char *spec, const struct test_case **first, unsigned max)
{
	unsigned n = 0;
	for (const struct test_case *t = __testcases_start; t < __testcases_end; t++) {
		bool seen = false;
		for (unsigned i = 0; i < n; i++)
			seen |= strcmp(first[i]->suite, t->suite) == 0;
		if (!seen && selected(spec, t) && n < max)
			first[n++] = t;
	}
	return n;
}

/* A file's place in link order: the index of its first case.  The linker
 * keeps each object's .testcases together, so the cases of one file are
 * contiguous and this orders files as the Makefile lists them. */
static unsigned file_rank(const struct test_case *t)
{
	const struct test_case *u = __testcases_start;
	while (u < t && u->file != t->file && strcmp(u->file, t->file) != 0)
		u++;
	return (unsigned)(u - __testcases_start);
}

/* Does a run before b?  File by file in link order, then by source line. */
static bool runs_before(const struct test_case *a, const struct test_case *b)
{
	unsigned ra = file_rank(a), rb = file_rank(b);
	return ra != rb ? ra < rb : a->line < b->line;
}

/* The case of `suite` that follows `prev` (NULL: the first). */
static const struct test_case *next_case(const char *suite, const struct test_case *prev)
{
	const struct test_case *best = NULL;
	for (const struct test_case *t = __testcases_start; t < __testcases_end; t++) {
		if (strcmp(t->suite, suite) != 0 || (prev && !runs_before(prev, t)))
			continue;
		if (!best || runs_before(t, best))
			best = t;
	}
	return best;
}

static bool run_suite(unsigned index, const char *suite, bool slow)
{
	unsigned ncase = 0, i = 0, pass = 0, fail = 0, skip = 0;
	for (const struct test_case *t = __testcases_start; t < __testcases_end; t++)
		ncase += strcmp(t->suite, suite) == 0;
	kprintf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n", suite, ncase);
	for (const struct test_case *t = next_case(suite, NULL); t; t = next_case(suite, t)) {
		i++;
		case_failures = 0;
		case_skip = NULL;
		if ((t->flags & TEST_SLOW) && !slow)
			case_skip = "slow (bt.test_slow)";
		else
			t->fn();
		if (case_skip && !case_failures) {
			kprintf("    ok %u %s # SKIP %s\n", i, t->name, case_skip);
			skip++;
		} else if (__atomic_load_n(&case_failures, __ATOMIC_RELAXED)) {
			kprintf("    not ok %u %s\n", i, t->name);
			fail++;
		} else {
			kprintf("    ok %u %s\n", i, t->name);
			pass++;
		}
	}
	/* Two cases of one file on one line would hide one of them: the suite
	 * fails rather than pass on fewer cases than it has. */
	bool lost = i != ncase;
	if (lost)
		kprintf("    # %s: %u of its %u cases ran\n", suite, i, ncase);
	kprintf("    # %s: pass:%u fail:%u skip:%u total:%u\n", suite, pass, fail, skip, ncase);
	kprintf("%s %u %s\n", fail || lost ? "not ok" : "ok", index, suite);
	return fail == 0 && !lost;
}

/* Names in spec that are no suite's (spec[0, len) each), reported; 0 for "all". */
static unsigned unknown_suites(const char *spec)
{
	unsigned unknown = 0;
	if (strcmp(spec, "all") == 0)
		return 0;
	for (const char *p = spec; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool found = false;
		for (const struct test_case *t = __testcases_start; t < __testcases_end && !found; t++)
			found = strlen(t->suite) == len && strncmp(t->suite, p, len) == 0;
		if (!found) {
			kprintf("# no test suite matches \"%.*s\"\n", (int)len, p);
			unknown++;
		}
		p += len + (end ? 1 : 0);
	}
	return unknown;
}

int test_run(const char *spec, bool slow)
{
	const struct test_case *first[64];
	if (unknown_suites(spec))
		return 1;                  /* nothing runs: the spec is not what was meant */
	unsigned n = list_suites(spec, first, 64), failed = 0;
	kprintf("KTAP version 1\n1..%u\n", n);
	if (n == 0)
		kprintf("# no test suite matches \"%s\"\n", spec);
	for (unsigned i = 0; i < n; i++)
		failed += !run_suite(i + 1, first[i]->suite, slow);
	return n == 0 ? 1 : (int)failed;
}
