/*
 * test_profile.c — the function profiler: exact hit counts per function
 * and per CPU from threads pinned to CPUs 0 and 1; min <= avg <= max;
 * callers' times include their callees'; a long spin outweighs a short
 * one (ordering only, never an absolute time); trace_stat's order and
 * exact text; enable twice, disable keeps the numbers, reset zeroes them.
 *
 * The profw_* functions are the profiled targets (this file is built with
 * patchable entries); the profiler's filter is "profw_*".
 */
#include <errno.h>
#include <string.h>

#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/compiler.h"
#include "lib/noipa.h"
#include "trace/tracers/profile.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

static volatile long sink;

static inline __attribute__((always_inline)) long spin(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++) {
		s += i;
		KEEP();
	}
	return s;
}

T int profw_leaf(int x) { sink = x; KEEP(); return x + 1; }
T int profw_callee(int x) { sink = x; KEEP(); return x * 2; }
T int profw_caller(int x)
{
	int r = 0;
	for (int i = 0; i < 3; i++)
		r += profw_callee(x + i);
	KEEP();
	return r;
}
T long profw_short(void) { long r = spin(10); KEEP(); return r; }
T long profw_long(void) { long r = spin(200000); KEEP(); return r; }
T int profw_a_function_with_a_long_name_beyond_thirty(void) { KEEP(); return 0; }

/* What a workload thread calls, and how often. */
struct work {
	int leaf, caller, shorts, longs;
};

static const struct work on_cpu0 = { 5, 10, 4, 4 };
static const struct work on_cpu1 = { 7, 2, 0, 0 };

static int work_thread(void *arg)
{
	const struct work *w = arg;
	for (int i = 0; i < w->leaf; i++)
		profw_leaf(i);
	for (int i = 0; i < w->caller; i++)
		profw_caller(i);
	for (int i = 0; i < w->shorts; i++)
		profw_short();
	for (int i = 0; i < w->longs; i++)
		profw_long();
	return (int)cpu_id();
}

/* Profile both workloads at once, CPU 0 and CPU 1; false if it could not. */
static bool run_workloads(void)
{
	if (profile_set_filter("profw_*", true) || profile_set_notrace("", true) ||
	    profile_enable())
		return false;
	struct thread *t0 = thread_create("profw-0", work_thread, (void *)&on_cpu0, 0);
	struct thread *t1 = thread_create("profw-1", work_thread, (void *)&on_cpu1, 1);
	int c0 = t0 ? thread_join(t0) : -1, c1 = t1 ? thread_join(t1) : -1;
	profile_disable();
	return c0 == 0 && c1 == 1;
}

static uint64_t hits(unsigned cpu, void *fn)
{
	struct profile_rec r;
	return profile_lookup(cpu, (uintptr_t)fn, &r) ? 0 : r.hits;
}

static void expect_sane(const char *file, int line, unsigned cpu, void *fn)
{
	struct profile_rec r;
	if (profile_lookup(cpu, (uintptr_t)fn, &r)) {
		test_fail(file, line, "no stats for %p on CPU %u", fn, cpu);
		return;
	}
	uint64_t avg = r.total_ns / r.hits;
	if (r.func != (uintptr_t)fn || r.min_ns > avg || avg > r.max_ns ||
	    r.max_ns > r.total_ns || r.s2 < (unsigned __int128)r.min_ns * r.min_ns ||
	    /* Two calls are exactly min and max. */
	    (r.hits == 2 && (r.min_ns + r.max_ns != r.total_ns ||
			     r.s2 != (unsigned __int128)r.min_ns * r.min_ns +
				     (unsigned __int128)r.max_ns * r.max_ns)))
		test_fail(file, line, "cpu %u %p: hits %llu total %llu min %llu max %llu", cpu, fn,
			  (unsigned long long)r.hits, (unsigned long long)r.total_ns,
			  (unsigned long long)r.min_ns, (unsigned long long)r.max_ns);
}
#define EXPECT_SANE(cpu, fn) expect_sane(__FILE__, __LINE__, cpu, (void *)(fn))

TEST_CASE(profile, hits_per_cpu)
{
	if (ncpus < 2)
		TEST_SKIP("needs two CPUs");
	ASSERT_TRUE(run_workloads());
	EXPECT_EQ(hits(0, profw_leaf), 5);
	EXPECT_EQ(hits(0, profw_caller), 10);
	EXPECT_EQ(hits(0, profw_callee), 30);
	EXPECT_EQ(hits(0, profw_short), 4);
	EXPECT_EQ(hits(0, profw_long), 4);
	EXPECT_EQ(hits(1, profw_leaf), 7);
	EXPECT_EQ(hits(1, profw_caller), 2);
	EXPECT_EQ(hits(1, profw_callee), 6);
	EXPECT_EQ(hits(1, profw_caller), 2);    /* expect_sane's two-call case */
	struct profile_rec r;
	EXPECT_EQ(profile_lookup(1, (uintptr_t)profw_long, &r), -ENOENT);
	EXPECT_EQ(profile_lookup(ncpus, (uintptr_t)profw_leaf, &r), -EINVAL);
	EXPECT_EQ(profile_dropped(0), 0);
	EXPECT_EQ(profile_dropped(1), 0);
	void *fns[] = { profw_leaf, profw_caller, profw_callee, profw_short, profw_long };
	for (unsigned i = 0; i < 5; i++)
		EXPECT_SANE(0, fns[i]);
	for (unsigned i = 0; i < 3; i++)
		EXPECT_SANE(1, fns[i]);
}

/* Graph time: each caller call contains its three callee calls. */
TEST_CASE(profile, children_included)
{
	if (ncpus < 2)
		TEST_SKIP("needs two CPUs");
	ASSERT_TRUE(run_workloads());
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		struct profile_rec caller, callee;
		ASSERT_EQ(profile_lookup(cpu, (uintptr_t)profw_caller, &caller), 0);
		ASSERT_EQ(profile_lookup(cpu, (uintptr_t)profw_callee, &callee), 0);
		EXPECT_TRUE(caller.total_ns >= callee.total_ns);
		EXPECT_TRUE(caller.min_ns >= 3 * callee.min_ns);
	}
	/* 20,000 times the work: ordering only. */
	struct profile_rec s, l;
	ASSERT_EQ(profile_lookup(0, (uintptr_t)profw_short, &s), 0);
	ASSERT_EQ(profile_lookup(0, (uintptr_t)profw_long, &l), 0);
	EXPECT_TRUE(l.total_ns > s.total_ns);
	EXPECT_TRUE(l.total_ns / l.hits > s.total_ns / s.hits);
	EXPECT_TRUE(l.max_ns > s.min_ns);
}

/* ---- trace_stat/functionN ---- */

#define SHOW_MAX 16
struct capture {
	unsigned n;
	char line[SHOW_MAX][PROFILE_LINE_MAX];
};

static void capture_line(void *ctx, const char *line)
{
	struct capture *c = ctx;
	if (c->n < SHOW_MAX)
		strncpy(c->line[c->n], line, sizeof(c->line[0]) - 1);
	c->n++;
}

static const char *index_name(const struct profile_rec *v, int n, void *fn, int *at)
{
	for (*at = 0; *at < n; (*at)++)
		if (v[*at].func == (uintptr_t)fn)
			return ksym_lookup(v[*at].func, NULL, NULL);
	return NULL;
}

TEST_CASE(profile, sorted_by_total)
{
	if (ncpus < 2)
		TEST_SKIP("needs two CPUs");
	ASSERT_TRUE(run_workloads());
	struct profile_rec v[SHOW_MAX];
	int n = profile_sorted(0, v, SHOW_MAX);
	ASSERT_EQ(n, 5);
	for (int i = 1; i < n; i++)
		EXPECT_TRUE(v[i - 1].total_ns >= v[i].total_ns);
	int at_long, at_short;
	EXPECT_STREQ(index_name(v, n, profw_long, &at_long), "profw_long");
	EXPECT_STREQ(index_name(v, n, profw_short, &at_short), "profw_short");
	EXPECT_TRUE(at_long < at_short);
	EXPECT_EQ(at_long, 0);                  /* 4 x 200,000 iterations */
	struct profile_rec two[2];
	EXPECT_EQ(profile_sorted(1, two, 2), 2);  /* cut to max */
	EXPECT_EQ(profile_sorted(ncpus, v, SHOW_MAX), -EINVAL);

	/* The shown table: Linux's header, then the same order, same lines. */
	static struct capture c;
	memset(&c, 0, sizeof(c));
	ASSERT_EQ(profile_show(0, capture_line, &c), 0);
	ASSERT_EQ(c.n, 2 + 5);
	EXPECT_STREQ(c.line[0], "  Function                               Hit    Time"
				"            Avg             s^2             Min"
				"             Max             Stddev\n");
	EXPECT_STREQ(c.line[1], "  --------                               ---    ----"
				"            ---             ---             ---"
				"             ---             ------\n");
	for (int i = 0; i < n; i++) {
		char want[PROFILE_LINE_MAX];
		profile_format(want, sizeof(want), &v[i]);
		EXPECT_STREQ(c.line[2 + i], want);
	}
	EXPECT_EQ(profile_show(ncpus, capture_line, &c), -EINVAL);
	EXPECT_EQ(profile_print(ncpus), -EINVAL);
}

/* The line layout, on numbers chosen by hand. */
TEST_CASE(profile, line_format)
{
	char buf[PROFILE_LINE_MAX];
	/* Calls of 1, 2, 3 and 6 us: s^2 = (4*50e6 - 12000^2) / (4*3) / 1000;
	 * min 1 us, max 6 us; stddev: floor(sqrt(4666666 ns^2)) = 2160 ns. */
	struct profile_rec r = { (uintptr_t)profw_leaf, 4, 12000, 1000, 6000, 50000000 };
	profile_format(buf, sizeof(buf), &r);
	EXPECT_STREQ(buf, "  profw_leaf                               4    12.000 us   "
			  "    3.000 us        4.666 us        1.000 us        6.000 us    "
			  "    2.160 us    \n");
	/* A name cut at 30; 8 digits of microseconds leave no fraction; one
	 * hit has no deviation. */
	r = (struct profile_rec){ (uintptr_t)profw_a_function_with_a_long_name_beyond_thirty, 1,
				  12345678901ull, 12345678901ull, 12345678901ull,
				  0 };
	profile_format(buf, sizeof(buf), &r);
	EXPECT_STREQ(buf, "  profw_a_function_with_a_long_n           1    12345678 us "
			  "    12345678 us     0.000 us        12345678 us     12345678 us "
			  "    0.000 us    \n");
	/* Two calls of 1 s and 3 s: n*sum(x^2) = 2e19 needs more than 64 bits;
	 * s^2 = 2e18 ns^2 / 1000 (13 digits of "us", no padding left),
	 * stddev floor(sqrt(2e18)) = 1414213562 ns. */
	r = (struct profile_rec){ (uintptr_t)profw_leaf, 2, 4000000000ull, 1000000000ull,
				  3000000000ull, 10000000000000000000ull };
	profile_format(buf, sizeof(buf), &r);
	EXPECT_STREQ(buf, "  profw_leaf                               2    4000000 us  "
			  "    2000000 us      2000000000000 us     1000000 us      3000000 us  "
			  "    1414213 us  \n");
	/* 2^32 calls, 2^62 ns in all, sum of squares 2^100 ns^2: n*sum(x^2)
	 * passes 128 bits; s^2 = (2^100 - 2^124/2^32) / (2^32 - 1) ns^2 =
	 * 293994983743197020175, whose root is 17146281921 ns. */
	r = (struct profile_rec){ (uintptr_t)profw_leaf, 1ull << 32, 1ull << 62, 0, 1ull << 62,
				  (unsigned __int128)1 << 100 };
	profile_format(buf, sizeof(buf), &r);
	EXPECT_STREQ(buf, "  profw_leaf                      4294967296    4611686018427387 us "
			  "    1073741 us      293994983743197 us     0.000 us        "
			  "4611686018427387 us     17146281 us \n");
	/* 6 digits leave one fraction digit. */
	r = (struct profile_rec){ (uintptr_t)profw_leaf, 12345, 123456789, 0, 0, 0 };
	profile_format(buf, sizeof(buf), &r);
	EXPECT_STREQ(buf, "  profw_leaf                           12345    123456.7 us "
			  "    10.000 us       0.000 us        0.000 us        0.000 us    "
			  "    0.000 us    \n");
}

/* The counters' arithmetic on durations chosen by hand (counted as the
 * exit callback counts them): calls of 5 s, 1 s and 3 s square to 35e18
 * ns^2, past 64 bits (a call of 4.3 s alone does); s^2 = (3*35e18 -
 * 9e9^2) / 6 = 4e18 ns^2, stddev 2e9 ns. */
TEST_CASE(profile, counted_exactly)
{
	ASSERT_EQ(profile_set_filter("profw_leaf", true), 0);
	thread_migrate(current_thread(), 0);
	ASSERT_EQ(profile_enable(), 0);          /* the tables exist from here */
	profile_disable();
	profile_reset();
	ASSERT_EQ(profile_count_call((uintptr_t)profw_callee, 5000000000ull), 0);
	ASSERT_EQ(profile_count_call((uintptr_t)profw_callee, 1000000000ull), 0);
	ASSERT_EQ(profile_count_call((uintptr_t)profw_callee, 3000000000ull), 0);
	ASSERT_EQ(profile_count_call((uintptr_t)profw_leaf, 70000), 0);
	thread_migrate(current_thread(), -1);
	struct profile_rec r;
	ASSERT_EQ(profile_lookup(0, (uintptr_t)profw_callee, &r), 0);
	EXPECT_EQ(r.hits, 3);
	EXPECT_EQ(r.total_ns, 9000000000ull);
	EXPECT_EQ(r.min_ns, 1000000000ull);
	EXPECT_EQ(r.max_ns, 5000000000ull);
	EXPECT_TRUE(r.s2 == (unsigned __int128)35000000000ull * 1000000000ull);
	char buf[PROFILE_LINE_MAX];
	profile_format(buf, sizeof(buf), &r);
	EXPECT_STREQ(buf, "  profw_callee                             3    9000000 us  "
			  "    3000000 us      4000000000000 us     1000000 us      5000000 us  "
			  "    2000000 us  \n");
	ASSERT_EQ(profile_lookup(0, (uintptr_t)profw_leaf, &r), 0);
	EXPECT_EQ(r.hits, 1);
	EXPECT_TRUE(r.total_ns == 70000 && r.min_ns == 70000 && r.max_ns == 70000 &&
		    r.s2 == 4900000000ull);
	profile_format(buf, sizeof(buf), &r);
	EXPECT_STREQ(buf, "  profw_leaf                               1    70.000 us   "
			  "    70.000 us       0.000 us        70.000 us       70.000 us   "
			  "    0.000 us    \n");
	EXPECT_EQ(profile_dropped(0), 0);
	profile_reset();
	EXPECT_EQ(hits(0, profw_callee), 0);
}

/* ---- control ---- */

TEST_CASE(profile, enable_disable_reset)
{
	ASSERT_EQ(profile_set_filter("profw_leaf", true), 0);
	thread_migrate(current_thread(), 0);
	ASSERT_EQ(profile_enable(), 0);
	EXPECT_TRUE(profile_enabled());
	EXPECT_EQ(profile_enable(), -EBUSY);
	for (int i = 0; i < 3; i++)
		profw_leaf(i);
	profile_disable();
	EXPECT_TRUE(!profile_enabled());
	EXPECT_EQ(hits(0, profw_leaf), 3);      /* kept */
	profw_leaf(9);
	EXPECT_EQ(hits(0, profw_leaf), 3);      /* not counting */
	profile_reset();
	EXPECT_EQ(hits(0, profw_leaf), 0);

	/* Enabling starts from zero; a reset while on zeroes, counting goes on. */
	ASSERT_EQ(profile_enable(), 0);
	profw_leaf(1);
	profw_leaf(2);
	EXPECT_EQ(hits(0, profw_leaf), 2);
	profile_reset();
	EXPECT_EQ(hits(0, profw_leaf), 0);
	profw_leaf(3);
	EXPECT_EQ(hits(0, profw_leaf), 1);
	profile_disable();
	ASSERT_EQ(profile_enable(), 0);
	EXPECT_EQ(hits(0, profw_leaf), 0);
	profile_disable();

	/* A bad filter changes nothing. */
	EXPECT_EQ(profile_set_filter("profw_no_such_function", true), -EINVAL);
	EXPECT_EQ(profile_set_filter("profw_[", true), -EINVAL);
	ASSERT_EQ(profile_enable(), 0);
	profw_leaf(4);
	profw_callee(4);
	profile_disable();
	thread_migrate(current_thread(), -1);
	EXPECT_EQ(hits(0, profw_leaf), 1);
	EXPECT_EQ(hits(0, profw_callee), 0);
}

/* Every traced function at once (an empty filter, as function_profile_enabled
 * with set_ftrace_filter empty): the workload's counts stay exact and the
 * kernel's own functions are counted too. */
TEST_CASE(profile, all_functions)
{
	if (ncpus < 2)
		TEST_SKIP("needs two CPUs");
	ASSERT_EQ(profile_set_filter("", true), 0);
	ASSERT_EQ(profile_enable(), 0);
	struct thread *t0 = thread_create("profw-0", work_thread, (void *)&on_cpu0, 0);
	struct thread *t1 = thread_create("profw-1", work_thread, (void *)&on_cpu1, 1);
	ASSERT_TRUE(t0 && t1);
	EXPECT_EQ(thread_join(t0), 0);
	EXPECT_EQ(thread_join(t1), 1);
	profile_disable();
	EXPECT_EQ(hits(0, profw_callee), 30);
	EXPECT_EQ(hits(1, profw_callee), 6);
	EXPECT_EQ(hits(1, profw_leaf), 7);
	/* The thread bodies were entered through the profiled work_thread. */
	EXPECT_EQ(hits(0, work_thread) + hits(1, work_thread), 2);
	struct profile_rec v[SHOW_MAX];
	EXPECT_TRUE(profile_sorted(0, v, SHOW_MAX) > 5);
	EXPECT_EQ(profile_dropped(0) + profile_dropped(1), 0);
}
