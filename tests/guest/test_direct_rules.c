/*
 * test_direct_rules.c — the rules every change of what direct ops take
 * must keep (trace/core/direct.c direct_check; suite `direct_rules`): one
 * direct trampoline per function, each in reach of its site.  A
 * registration or a filter or notrace change that would break one is
 * refused (-EBUSY, -ERANGE; -EINVAL for an empty filter) with the first
 * function in record order named in ftrace_filter_error, -ERANGE before
 * -EBUSY within a function, and nothing changed: hashes, sites, records,
 * enabled_functions, which trampoline each call runs.
 *
 * The trampolines and the helpers: direct_harness.h.  An address a site
 * cannot reach is made per arch by reach_edge (arch_site_reaches: a bound
 * of the site's call); one registered there is never called, only patched
 * in and out.
 *
 * The dt_* functions are this file's traced targets; noinline and an empty
 * asm keep every call a real call.
 */
#include <errno.h>
#include <string.h>

#include "arch/tests.h"
#include "boot/console.h"
#include "boot/test.h"
#include "tests/guest/direct_harness.h"
#include "trace/core/ftrace.h"
#include "trace/core/ftrace_internal.h"
#include "trace/core/records.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int dt_reach(int x) { KEEP(); return x + 9; }
T int dt_reach2(int x) { KEEP(); return x + 10; }
T int dt_own_a(int x) { KEEP(); return x + 21; }
T int dt_own_b(int x) { KEEP(); return x + 22; }
T int dt_own_c(int x) { KEEP(); return x + 23; }
T int dt_own_d(int x) { KEEP(); return x + 24; }
/* A name longer than a refusal used to keep (its first 40 characters). */
#define DT_LONG dt_a_traced_function_whose_name_runs_on_well_past_forty_characters
#define DT_LONG_NAME "dt_a_traced_function_whose_name_runs_on_well_past_forty_characters"
T int DT_LONG(int x) { KEEP(); return x + 25; }

/* ---- what a refusal leaves as it was ---- */

/* This file's functions: a refusal leaves the site bytes and record flags
 * of each as they were, and enabled_functions. */
static const struct rule_func {
	const char *name;
	int (*f)(int);
} rule_funcs[] = {
	{ "dt_reach", dt_reach }, { "dt_reach2", dt_reach2 }, { "dt_own_a", dt_own_a },
	{ "dt_own_b", dt_own_b }, { "dt_own_c", dt_own_c }, { "dt_own_d", dt_own_d },
	{ DT_LONG_NAME, DT_LONG },
};
#define NRULE_FUNCS (sizeof(rule_funcs) / sizeof(rule_funcs[0]))

struct dsnap {
	uint8_t site[NRULE_FUNCS][ARCH_SITE_SIZE];
	uint32_t flags[NRULE_FUNCS];
	struct listing l;
	uint64_t hits;                /* arch_test_direct_hits */
};

static void snap_take(struct dsnap *s)
{
	for (unsigned i = 0; i < NRULE_FUNCS; i++) {
		memcpy(s->site[i], (void *)rule_funcs[i].f, ARCH_SITE_SIZE);
		s->flags[i] = rec_find((uintptr_t)rule_funcs[i].f)->flags;
	}
	enabled_listing(&s->l);
	s->hits = arch_test_direct_hits;
}

static void expect_unchanged(int line, const struct dsnap *s)
{
	static struct listing now;
	for (unsigned i = 0; i < NRULE_FUNCS; i++) {
		uint32_t flags = rec_find((uintptr_t)rule_funcs[i].f)->flags;
		if (memcmp(s->site[i], (void *)rule_funcs[i].f, ARCH_SITE_SIZE))
			test_fail(__FILE__, line, "the site of %s changed", rule_funcs[i].name);
		if (flags != s->flags[i])
			test_fail(__FILE__, line, "the record of %s: flags %x, were %x",
				  rule_funcs[i].name, flags, s->flags[i]);
	}
	if (strcmp(enabled_listing(&now), s->l.text))
		test_fail(__FILE__, line, "enabled_functions\n#   now:    %s\n#   before: %s",
			  now.text, s->l.text);
	if (ftrace_is_dead())
		test_fail(__FILE__, line, "tracing was killed");
}
#define EXPECT_UNCHANGED(s) expect_unchanged(__LINE__, s)

/* The change is refused with err, naming the site of `name`. */
#define EXPECT_REFUSED(call, err, name) do {                                       \
		ftrace_filter_error[0] = '\0';                                      \
		EXPECT_EQ((call), (err));                                           \
		EXPECT_TRUE(strstr(ftrace_filter_error, "the site of " name " at ") != NULL); \
	} while (0)

/* ---- one direct trampoline per function ---- */

/* The two direct ops every case starts from, d[0..n) zeroed first: d[0]
 * with the counting trampoline on `first` less `first_notrace` (NULL:
 * none), d[1] with the body one on dt_own_b.  0 or the first error. */
static int own_register(struct ftrace_ops *d, unsigned n, const char *first,
			const char *first_notrace)
{
	memset(d, 0, n * sizeof(*d));
	int err = ftrace_set_filter(&d[0], first, true);
	if (!err && first_notrace)
		err = ftrace_set_notrace(&d[0], first_notrace, true);
	if (!err)
		err = ftrace_set_filter(&d[1], "dt_own_b", true);
	if (!err)
		err = register_ftrace_direct(&d[0], (uintptr_t)arch_test_direct_tramp);
	if (!err)
		err = register_ftrace_direct(&d[1], (uintptr_t)arch_test_direct_tramp_body);
	return err;
}

/* Unregister d[0..n): every function of the file is left with nothing. */
static void own_unregister(struct ftrace_ops *d, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(unregister_ftrace_direct(&d[i]), 0);
	for (unsigned i = 0; i < NRULE_FUNCS; i++)
		EXPECT_EQ(rec_find((uintptr_t)rule_funcs[i].f)->flags, 0);
}

/*
 * Two registered direct ops, the counting one on dt_own_a, the body one on
 * dt_own_b: moving or widening the second's filter onto dt_own_a, or
 * registering a third that takes dt_own_b, is refused (-EBUSY, the
 * function named) and changes nothing: the hashes, the sites, the records,
 * enabled_functions, and which trampoline each call runs.
 */
TEST_CASE(direct_rules, second_direct_on_a_function_refused)
{
	static struct ftrace_ops d[3];
	static struct dsnap before;
	ASSERT_EQ(own_register(d, 3, "dt_own_a", NULL), 0);
	ASSERT_EQ(ftrace_set_filter(&d[2], "dt_own_c dt_own_b", true), 0);
	const struct ftrace_hash *filter = d[1].filter_hash, *notrace = d[1].notrace_hash;
	snap_take(&before);
	uint64_t h0 = arch_test_direct_hits;

	EXPECT_REFUSED(ftrace_set_filter(&d[1], "dt_own_a", true), -EBUSY, "dt_own_a");
	EXPECT_REFUSED(ftrace_set_filter(&d[1], "dt_own_a", false), -EBUSY, "dt_own_a");
	EXPECT_REFUSED(ftrace_set_filter(&d[1], "dt_own_[ad]", false), -EBUSY, "dt_own_a");
	EXPECT_REFUSED(ftrace_set_filter_ip(&d[1], (uintptr_t)dt_own_a, false, false), -EBUSY,
		       "dt_own_a");
	EXPECT_REFUSED(register_ftrace_direct(&d[2], (uintptr_t)arch_test_direct_tramp), -EBUSY,
		       "dt_own_b");
	EXPECT_EQ(d[2].flags & (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_DIRECT), 0);
	/* An empty filter would take every function. */
	ftrace_filter_error[0] = '\0';
	EXPECT_EQ(ftrace_set_filter(&d[1], "", true), -EINVAL);
	EXPECT_TRUE(strstr(ftrace_filter_error, "empty filter") != NULL);

	EXPECT_TRUE(d[1].filter_hash == filter && d[1].notrace_hash == notrace);
	EXPECT_UNCHANGED(&before);
	EXPECT_EQ(wrong_calls(dt_own_a, 4, 1, 21), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 4);
	EXPECT_EQ(wrong_calls(dt_own_b, 4, 1, 1022), 0);
	EXPECT_EQ(wrong_calls(dt_own_c, 4, 1, 23), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 4);
	own_unregister(d, 2);
}

/*
 * Which functions a direct ops takes is its filter less its notrace, on
 * both sides of the check: a function in another's filter and notrace is
 * free, one in our own notrace is not wanted.  What notrace frees can be
 * taken back only while nobody else took it.
 */
TEST_CASE(direct_rules, notrace_decides_what_a_direct_takes)
{
	static struct ftrace_ops d[3];
	static struct dsnap before;
	static struct listing l;
	char line[256];
	/* d[0]: dt_own_a only (dt_own_c filtered, then excluded). */
	ASSERT_EQ(own_register(d, 3, "dt_own_a dt_own_c", "dt_own_c"), 0);

	/* Accepted: d[1] widens onto dt_own_c, which d[0] does not take. */
	EXPECT_EQ(ftrace_set_filter(&d[1], "dt_own_c", false), 0);
	uint64_t h0 = arch_test_direct_hits;
	EXPECT_EQ(wrong_calls(dt_own_c, 4, 1, 1023), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 0);
	EXPECT_EQ(wrong_calls(dt_own_a, 4, 1, 21), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 4);
	enabled_listing(&l);
	EXPECT_EQ(l.lines, 3);
	EXPECT_TRUE(strstr(l.text, direct_line(line, sizeof(line), "dt_own_c", 1, false,
					       arch_test_direct_tramp_body)) != NULL);

	/* Accepted: d[2] takes dt_own_d; dt_own_b is d[1]'s, but d[2]'s
	 * notrace leaves it out. */
	ASSERT_EQ(ftrace_set_filter(&d[2], "dt_own_b dt_own_d", true), 0);
	ASSERT_EQ(ftrace_set_notrace(&d[2], "dt_own_b", true), 0);
	EXPECT_EQ(register_ftrace_direct(&d[2], (uintptr_t)arch_test_direct_tramp), 0);
	EXPECT_EQ(wrong_calls(dt_own_d, 4, 1, 24), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 8);
	EXPECT_EQ(wrong_calls(dt_own_b, 4, 1, 1022), 0);

	/* Refused: a notrace change that would make d[0] take dt_own_c
	 * again (d[1]'s now), or d[2] take dt_own_b (d[1]'s). */
	const struct ftrace_hash *n0 = d[0].notrace_hash, *n2 = d[2].notrace_hash;
	snap_take(&before);
	EXPECT_REFUSED(ftrace_set_notrace(&d[0], "!dt_own_c", false), -EBUSY, "dt_own_c");
	EXPECT_REFUSED(ftrace_set_notrace(&d[2], "dt_own_a", true), -EBUSY, "dt_own_b");
	EXPECT_TRUE(d[0].notrace_hash == n0 && d[2].notrace_hash == n2);
	EXPECT_UNCHANGED(&before);
	EXPECT_EQ(wrong_calls(dt_own_c, 4, 1, 1023), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 8);
	own_unregister(d, 3);
}

/*
 * One filter change for several ops (ftrace_set_filter_ops): the direct
 * ops of the call are judged against each other's new hashes too.  Two of
 * them onto one function is refused, whether they widen or move; a direct
 * ops and a callback ops onto one function is fine.
 */
TEST_CASE(direct_rules, several_ops_at_once)
{
	static struct ftrace_ops d[2];
	static struct dcount c;
	static struct dsnap before;
	static struct listing l;
	char line[256];
	ASSERT_EQ(own_register(d, 2, "dt_own_a", NULL), 0);
	/* On dt_own_d, then dt_own_c too, which is the one called. */
	dcount_init(&c, "dt_own_d", (uintptr_t)dt_own_c, 0);
	ASSERT_EQ(register_ftrace_function(&c.ops), 0);
	const struct ftrace_hash *f0 = d[0].filter_hash, *f1 = d[1].filter_hash, *fc = c.ops.filter_hash;
	snap_take(&before);
	struct ftrace_ops *both[2] = { &d[0], &d[1] };
	EXPECT_REFUSED(ftrace_set_filter_ops(both, 2, false, "dt_own_c", false), -EBUSY,
		       "dt_own_c");
	EXPECT_REFUSED(ftrace_set_filter_ops(both, 2, false, "dt_own_c", true), -EBUSY,
		       "dt_own_c");
	EXPECT_TRUE(d[0].filter_hash == f0 && d[1].filter_hash == f1);
	EXPECT_UNCHANGED(&before);

	struct ftrace_ops *mixed[2] = { &c.ops, &d[0] };
	EXPECT_EQ(ftrace_set_filter_ops(mixed, 2, false, "dt_own_c", false), 0);
	EXPECT_TRUE(c.ops.filter_hash != fc && d[0].filter_hash != f0);
	uint64_t h0 = arch_test_direct_hits;
	EXPECT_EQ(wrong_calls(dt_own_c, 4, 1, 23), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 4);
	EXPECT_EQ(c.hits, 4);
	EXPECT_EQ(c.bad, 0);
	EXPECT_TRUE(strstr(enabled_listing(&l), direct_line(line, sizeof(line), "dt_own_c", 2, false,
						    arch_test_direct_tramp)) != NULL);
	EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
	own_unregister(d, 2);
}

/* ---- reach ---- */

/*
 * dt_reach and dt_reach2 in record (address) order, lo the lower, and two
 * addresses only one of them reaches: `above`, the highest hi's site
 * reaches, and `below`, the lowest lo's reaches (16-aligned, found by
 * halving steps: reach is an interval around each site, and the other
 * function is at least 16 bytes further away, on the far side).  A direct
 * ops registered at either is never called, only patched in and out:
 * nothing calls the function it is on while it is there.
 */
struct pair {
	uintptr_t lo, hi, above, below;
	const char *lo_name, *hi_name;
	int (*lo_f)(int), (*hi_f)(int);
	int lo_add, hi_add;                    /* lo_f(x) == x + lo_add */
};

static uintptr_t reach_edge(uintptr_t func, bool up)
{
	uintptr_t edge = func & ~(uintptr_t)15;
	for (uintptr_t step = 1ul << 40; step >= 16; step >>= 1)
		if (arch_site_reaches(func, up ? edge + step : edge - step))
			edge = up ? edge + step : edge - step;
	return edge;
}

/* false if the two are too close for the edges to tell them apart. */
static bool pair_init(struct pair *p)
{
	bool swap = (uintptr_t)dt_reach > (uintptr_t)dt_reach2;
	p->lo_f = swap ? dt_reach2 : dt_reach;
	p->hi_f = swap ? dt_reach : dt_reach2;
	p->lo_name = swap ? "dt_reach2" : "dt_reach";
	p->hi_name = swap ? "dt_reach" : "dt_reach2";
	p->lo_add = swap ? 10 : 9;
	p->hi_add = swap ? 9 : 10;
	p->lo = (uintptr_t)p->lo_f;
	p->hi = (uintptr_t)p->hi_f;
	p->above = reach_edge(p->hi, true);
	p->below = reach_edge(p->lo, false);
	return arch_site_reaches(p->hi, p->above) && !arch_site_reaches(p->lo, p->above) &&
	       arch_site_reaches(p->lo, p->below) && !arch_site_reaches(p->hi, p->below);
}

/*
 * A direct address a site cannot call is refused by register_ftrace_direct
 * (-ERANGE) with nothing changed: the site's bytes, the record, the
 * listing, a callback already attached; tracing goes on.  Also by a filter
 * change of a registered direct ops that would take a function out of the
 * address's reach.
 */
TEST_CASE(direct_rules, unreachable_address_refused)
{
	static struct ftrace_ops d;
	static struct dcount a;
	static struct listing before, after;
	uint8_t site[ARCH_SITE_SIZE];
	uintptr_t f = (uintptr_t)dt_reach;
	struct ftrace_rec *r = rec_find(f);
	ASSERT_TRUE(r != NULL);
	dcount_init(&a, "dt_reach", f, 0);
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	memcpy(site, (void *)f, sizeof(site));
	uint32_t flags = r->flags;
	enabled_listing(&before);
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "dt_reach", true), 0);
	/* Beyond any call's reach (arm64 +-128 MiB, x86-64 +-2 GiB); and an
	 * address no instruction can start at, where there is such a thing. */
	uintptr_t bad[3] = { f + (3ul << 30), (uintptr_t)0xffff800000000000ull,
			     (uintptr_t)arch_test_direct_tramp + ARCH_INSN_ALIGN / 2 };
	unsigned nbad = ARCH_INSN_ALIGN > 1 ? 3 : 2;
	for (unsigned i = 0; i < nbad; i++) {
		ftrace_filter_error[0] = '\0';
		EXPECT_EQ(register_ftrace_direct(&d, bad[i]), -ERANGE);
		/* Refused by the registration itself, which names the site. */
		EXPECT_TRUE(strstr(ftrace_filter_error, "the site of dt_reach at") != NULL);
		EXPECT_EQ(d.flags & (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_DIRECT), 0);
		EXPECT_EQ(memcmp((void *)f, site, sizeof(site)), 0);
		EXPECT_EQ(r->flags, flags);
		EXPECT_STREQ(enabled_listing(&after), before.text);
		EXPECT_TRUE(!ftrace_is_dead());
	}
	EXPECT_EQ(wrong_calls(dt_reach, 3, 1, 9), 0);
	EXPECT_EQ(a.hits, 3);
	/* Tracing is alive: a good address registers and runs. */
	uint64_t h0 = arch_test_direct_hits;
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
	EXPECT_EQ(wrong_calls(dt_reach, 3, 1, 9), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 3);
	EXPECT_EQ(a.hits, 6);
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	EXPECT_EQ(r->flags, 0);
}

/* A registered direct ops on hi at `above`: a filter change onto lo is
 * refused (-ERANGE, lo named), its hashes and lo's site as they were. */
TEST_CASE(direct_rules, filter_change_out_of_reach_refused)
{
	static struct ftrace_ops d;
	struct pair p;
	uint8_t site[ARCH_SITE_SIZE];
	char both[64], named[64];
	ASSERT_TRUE(pair_init(&p));
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, p.hi_name, true), 0);
	memcpy(site, (void *)p.lo, sizeof(site));
	ASSERT_EQ(register_ftrace_direct(&d, p.above), 0);
	struct ftrace_hash *filter = d.filter_hash;
	ksnprintf(both, sizeof(both), "%s %s", p.hi_name, p.lo_name);
	ksnprintf(named, sizeof(named), "the site of %s at", p.lo_name);
	ftrace_filter_error[0] = '\0';
	EXPECT_EQ(ftrace_set_filter(&d, both, true), -ERANGE);
	EXPECT_TRUE(strstr(ftrace_filter_error, named) != NULL);
	ftrace_filter_error[0] = '\0';
	EXPECT_EQ(ftrace_set_filter(&d, p.lo_name, false), -ERANGE);
	EXPECT_TRUE(strstr(ftrace_filter_error, named) != NULL);
	EXPECT_TRUE(d.filter_hash == filter);
	EXPECT_EQ(memcmp((void *)p.lo, site, sizeof(site)), 0);
	EXPECT_EQ(rec_find(p.lo)->flags, 0);
	EXPECT_TRUE(rec_find(p.hi)->flags & FREC_DIRECT_EN);
	EXPECT_TRUE(!ftrace_is_dead());
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	EXPECT_EQ(rec_find(p.hi)->flags, 0);
}

/* ---- which refusal, in which words ---- */

/* ftrace_filter_error as direct_check words each refusal (trace/core/direct.c
 * direct_refuse), into buf: the direct address `addr` cannot be called
 * from the site of `name` at ip; or that site is taken by `other`. */
static const char *range_text(char *buf, size_t size, uintptr_t addr, const char *name,
			      uintptr_t ip)
{
	ksnprintf(buf, size, "direct trampoline %lx cannot be called from the site of %s at %lx "
		  "(out of reach, or misaligned)", (unsigned long)addr, name, (unsigned long)ip);
	return buf;
}

static const char *busy_text(char *buf, size_t size, uintptr_t addr, const char *name,
			     uintptr_t ip, uintptr_t other)
{
	ksnprintf(buf, size, "direct trampoline %lx refused: the site of %s at %lx is taken by %lx",
		  (unsigned long)addr, name, (unsigned long)ip, (unsigned long)other);
	return buf;
}

/* The change is refused with err, and ftrace_filter_error is exactly want. */
#define EXPECT_REFUSED_AS(call, err, want) do {                                    \
		ftrace_filter_error[0] = '\0';                                      \
		EXPECT_EQ((call), (err));                                           \
		EXPECT_STREQ(ftrace_filter_error, (want));                          \
	} while (0)

/* The trampolines as addresses: T0 counts, T1 adds 1000 to the result. */
static const uintptr_t T0 = (uintptr_t)arch_test_direct_tramp;
static const uintptr_t T1 = (uintptr_t)arch_test_direct_tramp_body;

/* d, zeroed, filtered on `name` and registered at addr; 0 or the first
 * error. */
static int pair_direct(struct ftrace_ops *d, const char *name, uintptr_t addr)
{
	memset(d, 0, sizeof(*d));
	int err = ftrace_set_filter(d, name, true);
	return err ? err : register_ftrace_direct(d, addr);
}

/* The start of the one-function cases: the pair, d[0] (T0) holding lo,
 * d[1] holding hi at `above` (hi_above) or at T1, d[2] zeroed, and the
 * snapshot `before`.  0 or the first error. */
static int pair_hold(struct pair *p, struct ftrace_ops *d, bool hi_above, struct dsnap *before)
{
	if (!pair_init(p))
		return -EINVAL;
	memset(&d[2], 0, sizeof(d[2]));
	int err = pair_direct(&d[0], p->lo_name, T0);
	if (!err)
		err = pair_direct(&d[1], p->hi_name, hi_above ? p->above : T1);
	if (!err)
		snap_take(before);
	return err;
}

/*
 * After refusals: nothing changed since `before`, and four calls of lo and
 * (call_hi: it is not under `above` or `below`) of hi return their own
 * results, hi's + hi_extra (1000 under T1); T0 holds one of them and
 * counted 4.  Failures are reported at the caller's line.
 */
static void expect_pair_unchanged(int line, const struct pair *p, const struct dsnap *before,
				  bool call_hi, int hi_extra)
{
	expect_unchanged(line, before);
	unsigned wrong = wrong_calls(p->lo_f, 4, 1, p->lo_add);
	if (call_hi)
		wrong += wrong_calls(p->hi_f, 4, 1, p->hi_add + hi_extra);
	uint64_t hits = arch_test_direct_hits - before->hits;
	if (wrong || hits != 4)
		test_fail(__FILE__, line, "%u wrong results, T0 counted %llu calls of 4", wrong,
			  (unsigned long long)hits);
}
#define EXPECT_PAIR_UNCHANGED(...) expect_pair_unchanged(__LINE__, __VA_ARGS__)

/*
 * Refusals on two functions: the first in record order is named, whichever
 * refusal it is.  d[0] (T0) holds one of lo and hi; d[1] would take both
 * at an address only one of them reaches.  The one d[0] holds is -EBUSY,
 * the one out of reach -ERANGE: lo taken and `below` (hi out of reach)
 * names lo -EBUSY; hi taken and `above` (lo out of reach) names lo
 * -ERANGE.  Nothing changes: d[1] unregistered with its hashes, the sites,
 * the records, enabled_functions, and the calls.
 */
TEST_CASE(direct_rules, first_function_in_record_order_named)
{
	static struct ftrace_ops d[2];
	static struct dsnap before;
	struct pair p;
	char both[64], want[160];
	ASSERT_TRUE(pair_init(&p));
	ksnprintf(both, sizeof(both), "%s %s", p.hi_name, p.lo_name);
	for (int lo_taken = 1; lo_taken >= 0; lo_taken--) {
		ASSERT_EQ(pair_direct(&d[0], lo_taken ? p.lo_name : p.hi_name, T0), 0);
		memset(&d[1], 0, sizeof(d[1]));
		ASSERT_EQ(ftrace_set_filter(&d[1], both, true), 0);
		const struct ftrace_hash *filter = d[1].filter_hash;
		snap_take(&before);
		if (lo_taken)
			EXPECT_REFUSED_AS(register_ftrace_direct(&d[1], p.below), -EBUSY,
					  busy_text(want, sizeof(want), p.below, p.lo_name, p.lo, T0));
		else
			EXPECT_REFUSED_AS(register_ftrace_direct(&d[1], p.above), -ERANGE,
					  range_text(want, sizeof(want), p.above, p.lo_name, p.lo));
		EXPECT_EQ(d[1].flags & (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_DIRECT), 0);
		EXPECT_TRUE(d[1].filter_hash == filter && d[1].notrace_hash == NULL);
		EXPECT_PAIR_UNCHANGED(&p, &before, true, 0);
		own_unregister(d, 1);
	}
}

/*
 * Both refusals on one function: -ERANGE wins, the address out of reach
 * named rather than the trampoline that holds the function.  d[0] (T0)
 * holds lo, d[1] is at `above` on hi; lo is out of `above`'s reach.
 * Refused -ERANGE: registering d[2] at `above` on lo; d[1]'s filter
 * widened onto lo (lo held by d[0], outside the change); the same change
 * made with d[0] in it (ftrace_set_filter_ops: d[0] judged first, so lo
 * is taken within the change when d[1]'s turn comes).  Nothing changes:
 * the hashes, the sites, the records, enabled_functions, the calls of lo
 * (hi, under `above`, is not called).
 */
TEST_CASE(direct_rules, out_of_reach_wins_on_one_function)
{
	static struct ftrace_ops d[3];
	static struct dsnap before;
	struct pair p;
	char want[160];
	ASSERT_EQ(pair_hold(&p, d, true, &before), 0);
	ASSERT_EQ(ftrace_set_filter(&d[2], p.lo_name, true), 0);
	const struct ftrace_hash *f0 = d[0].filter_hash, *f1 = d[1].filter_hash, *f2 = d[2].filter_hash;
	range_text(want, sizeof(want), p.above, p.lo_name, p.lo);

	EXPECT_REFUSED_AS(register_ftrace_direct(&d[2], p.above), -ERANGE, want);
	EXPECT_EQ(d[2].flags & (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_DIRECT), 0);
	EXPECT_REFUSED_AS(ftrace_set_filter(&d[1], p.lo_name, false), -ERANGE, want);
	struct ftrace_ops *both[2] = { &d[0], &d[1] };
	EXPECT_REFUSED_AS(ftrace_set_filter_ops(both, 2, false, p.lo_name, false), -ERANGE,
			  want);

	EXPECT_TRUE(d[0].filter_hash == f0 && d[1].filter_hash == f1 && d[2].filter_hash == f2);
	EXPECT_PAIR_UNCHANGED(&p, &before, false, 0);
	own_unregister(d, 2);
}

/*
 * -EBUSY names the trampoline that holds the function: d[0] (T0) holds
 * lo, d[1] (T1) holds hi.  d[2] onto hi at T0 is taken by T1, onto lo at
 * T1 taken by T0 (a registration: the holder outside the change); d[0]
 * and d[1] both onto lo in one change (ftrace_set_filter_ops, d[0] judged
 * first): d[1]'s T1 taken by T0.  Nothing changes, and each call runs its
 * own trampoline: lo counted by T0, hi's result + 1000 by T1.
 */
TEST_CASE(direct_rules, taken_by_names_the_holder)
{
	static struct ftrace_ops d[3];
	static struct dsnap before;
	struct pair p;
	char want[160];
	ASSERT_EQ(pair_hold(&p, d, false, &before), 0);
	const struct ftrace_hash *f0 = d[0].filter_hash, *f1 = d[1].filter_hash;

	ASSERT_EQ(ftrace_set_filter(&d[2], p.hi_name, true), 0);
	EXPECT_REFUSED_AS(register_ftrace_direct(&d[2], T0), -EBUSY,
			  busy_text(want, sizeof(want), T0, p.hi_name, p.hi, T1));
	ASSERT_EQ(ftrace_set_filter(&d[2], p.lo_name, true), 0);
	EXPECT_REFUSED_AS(register_ftrace_direct(&d[2], T1), -EBUSY,
			  busy_text(want, sizeof(want), T1, p.lo_name, p.lo, T0));
	EXPECT_EQ(d[2].flags & (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_DIRECT), 0);
	struct ftrace_ops *both[2] = { &d[0], &d[1] };
	EXPECT_REFUSED_AS(ftrace_set_filter_ops(both, 2, false, p.lo_name, false), -EBUSY,
			  busy_text(want, sizeof(want), T1, p.lo_name, p.lo, T0));

	EXPECT_TRUE(d[0].filter_hash == f0 && d[1].filter_hash == f1);
	EXPECT_PAIR_UNCHANGED(&p, &before, true, 1000);
	own_unregister(d, 2);
}

/*
 * A refusal names the function in full, however long its name, with the
 * words after it: -EBUSY (taken by T0) and -ERANGE (an address 3 GiB
 * away), each as direct_refuse words it, and nothing changes.
 */
TEST_CASE(direct_rules, long_function_name_in_full)
{
	static struct ftrace_ops d[2];
	static struct dsnap before;
	char want[FTRACE_ERROR_SIZE];
	uintptr_t f = (uintptr_t)DT_LONG, far = f + (3ul << 30);
	ASSERT_EQ(pair_direct(&d[0], DT_LONG_NAME, T0), 0);
	memset(&d[1], 0, sizeof(d[1]));
	ASSERT_EQ(ftrace_set_filter(&d[1], DT_LONG_NAME, true), 0);
	snap_take(&before);
	EXPECT_REFUSED_AS(register_ftrace_direct(&d[1], T1), -EBUSY,
			  busy_text(want, sizeof(want), T1, DT_LONG_NAME, f, T0));
	EXPECT_REFUSED_AS(register_ftrace_direct(&d[1], far), -ERANGE,
			  range_text(want, sizeof(want), far, DT_LONG_NAME, f));
	EXPECT_TRUE(strlen(want) > 128);        /* more than the old buffer held */
	EXPECT_EQ(d[1].flags & (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_DIRECT), 0);
	EXPECT_UNCHANGED(&before);
	EXPECT_EQ(wrong_calls(DT_LONG, 4, 1, 25), 0);
	EXPECT_EQ(arch_test_direct_hits - before.hits, 4);
	own_unregister(d, 1);
}
