/*
 * test_direct.c — direct trampolines (arch/<arch>/DIRECT.md) sharing a
 * function with callback ops, the reach of a direct address, and the
 * per-site data word's check (suite `direct`; suite `ftrace_refuse_data`
 * kills tracing, so it runs only when named).
 *
 * A function with a direct trampoline and callbacks calls the regs list
 * caller, which calls the callbacks and then enters the direct trampoline
 * as the site would have.  The trampolines are arch_test_direct_tramp
 * (counts in arch_test_direct_hits, goes on into the function) and
 * arch_test_direct_tramp_body (calls the body, adds 1000 to its result),
 * so a direct call shows in a count or in the return value, exactly.
 *
 * The dt_* functions are this file's traced targets; noinline and an empty
 * asm keep every call a real call.
 */
#include <errno.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "patch/patch.h"
#include "trace/ftrace.h"
#include "trace/ftrace_internal.h"
#include "trace/records.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int dt_one(int x) { KEEP(); return x * 3; }
T int dt_two(int x) { KEEP(); return x * 5 + 1; }
T int dt_rec(int x) { KEEP(); return x + 4; }
T int dt_fire(int x) { KEEP(); return x * 7; }
T int dt_reach(int x) { KEEP(); return x + 9; }
T int dt_reach2(int x) { KEEP(); return x + 10; }
T int dt_lit(int x) { KEEP(); return x + 11; }
T int dt_lit_other(int x) { KEEP(); return x + 12; }

/* A callback ops counting the calls of one function; `bad` counts calls
 * whose ip or parent were not the call's, or (SAVE_REGS) without registers. */
struct dcount {
	struct ftrace_ops ops;
	uintptr_t func;                /* the function it is attached to */
	unsigned long hits, bad;       /* atomic */
	long last_arg;                 /* argument 0 of the last call */
};

static void dcount_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		      struct ftrace_regs *fregs)
{
	struct dcount *c = (struct dcount *)op;
	__atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
	c->last_arg = (long)ftrace_regs_get_argument(fregs, 0);
	bool regs_ok = !(op->flags & FTRACE_OPS_FL_SAVE_REGS) || ftrace_get_regs(fregs);
	if (ip != c->func || ftrace_regs_get_instruction_pointer(fregs) != ip ||
	    ftrace_regs_get_return_address(fregs) != parent || !regs_ok)
		__atomic_fetch_add(&c->bad, 1, __ATOMIC_RELAXED);
}

static void dcount_init(struct dcount *c, const char *name, uintptr_t func, unsigned flags)
{
	memset(c, 0, sizeof(*c));
	c->ops.func = dcount_cb;
	c->ops.flags = flags;
	c->func = func;
	ftrace_set_filter(&c->ops, name, true);
}

/* enabled_functions as one string. */
struct listing {
	char text[1024];
	size_t len;
	unsigned lines;
};

static void listing_line(void *ctx, const char *line)
{
	struct listing *l = ctx;
	int n = ksnprintf(l->text + l->len, sizeof(l->text) - l->len, "%s\n", line);
	if (n > 0 && l->len + (size_t)n < sizeof(l->text))
		l->len += (size_t)n;
	l->lines++;
}

static const char *enabled(struct listing *l)
{
	memset(l, 0, sizeof(*l));
	ftrace_list_enabled(listing_line, l);
	return l->text;
}

/* The enabled_functions line of `name` with a direct trampoline: alone
 * ("(1) D"), or with callbacks (the count of all, R if one saves
 * registers, and what the regs list caller the site calls calls: its list
 * function). */
static const char *direct_line(char *buf, size_t size, const char *name, unsigned count,
			       bool regs, void (*direct)(void))
{
	char caller[96], d[96];
	ksym_format(caller, sizeof(caller), (uintptr_t)ftrace_ops_list_regs_func);
	ksym_format(d, sizeof(d), (uintptr_t)direct);
	if (count == 1)
		ksnprintf(buf, size, "%s (1)     D     \n\tdirect-->%s\n", name, d);
	else
		ksnprintf(buf, size, "%s (%u)%s   D      ->%s\n\tdirect-->%s\n", name, count,
			  regs ? " R" : "  ", caller, d);
	return buf;
}

/* Call f(0..n-1); the number of results other than mul * i + add. */
static unsigned calls(int (*f)(int), int n, int mul, int add)
{
	unsigned wrong = 0;
	for (int i = 0; i < n; i++)
		wrong += f(i) != mul * i + add;
	return wrong;
}

TEST_CASE(direct, direct_and_one_ops)
{
	static struct ftrace_ops d;
	static struct dcount a;
	static struct listing l;
	char want[256];
	struct ftrace_rec *r = rec_find((uintptr_t)dt_one);
	ASSERT_TRUE(r != NULL);
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "dt_one", true), 0);
	dcount_init(&a, "dt_one", (uintptr_t)dt_one, 0);
	uint64_t h0 = arch_test_direct_hits;

	/* Direct alone: the site calls it. */
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
	EXPECT_EQ(calls(dt_one, 5, 3, 0), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 5);
	EXPECT_STREQ(enabled(&l), direct_line(want, sizeof(want), "dt_one", 1, false,
					      arch_test_direct_tramp));

	/* An ops joins: both run on every call. */
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	EXPECT_EQ(r->flags & (FREC_REF_MASK | FREC_DIRECT_EN | FREC_TRAMP_EN | FREC_CALL_OPS_EN |
			      FREC_REGS_EN),
		  2 | FREC_DIRECT_EN);
	EXPECT_EQ(calls(dt_one, 5, 3, 0), 0);
	EXPECT_EQ(a.hits, 5);
	EXPECT_EQ(a.last_arg, 4);
	EXPECT_EQ(a.bad, 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 10);
	EXPECT_STREQ(enabled(&l), direct_line(want, sizeof(want), "dt_one", 2, false,
					      arch_test_direct_tramp));

	/* The ops leaves: direct alone again, the ops silent. */
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	EXPECT_EQ(calls(dt_one, 5, 3, 0), 0);
	EXPECT_EQ(a.hits, 5);
	EXPECT_EQ(arch_test_direct_hits - h0, 15);
	EXPECT_STREQ(enabled(&l), direct_line(want, sizeof(want), "dt_one", 1, false,
					      arch_test_direct_tramp));

	/* Then nothing. */
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	EXPECT_EQ(calls(dt_one, 5, 3, 0), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 15);
	EXPECT_EQ(a.hits, 5);
	EXPECT_EQ(r->flags, 0);
	EXPECT_STREQ(enabled(&l), "");
}

TEST_CASE(direct, direct_body_and_two_ops)
{
	static struct ftrace_ops d;
	static struct dcount a, b;
	static struct listing l;
	char want[256], sym[96], caller[96];
	struct ftrace_rec *r = rec_find((uintptr_t)dt_two);
	ASSERT_TRUE(r != NULL);
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "dt_two", true), 0);
	dcount_init(&a, "dt_two", (uintptr_t)dt_two, 0);
	dcount_init(&b, "dt_two", (uintptr_t)dt_two, FTRACE_OPS_FL_SAVE_REGS);

	/* Two ops first (one saving registers): the regs list caller, which
	 * calls its own list function. */
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	ASSERT_EQ(register_ftrace_function(&b.ops), 0);
	ksym_format(caller, sizeof(caller), (uintptr_t)ftrace_ops_list_regs_func);
	ksnprintf(want, sizeof(want), "dt_two (2) R          ->%s\n", caller);
	EXPECT_STREQ(enabled(&l), want);
	EXPECT_EQ(calls(dt_two, 5, 5, 1), 0);
	EXPECT_EQ(a.hits, 5);
	EXPECT_EQ(b.hits, 5);

	/* The direct trampoline that calls the body joins: its + 1000 on
	 * every call, and both ops still called. */
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp_body), 0);
	EXPECT_STREQ(enabled(&l), direct_line(want, sizeof(want), "dt_two", 3, true,
					      arch_test_direct_tramp_body));
	EXPECT_EQ(calls(dt_two, 5, 5, 1001), 0);
	EXPECT_EQ(a.hits, 10);
	EXPECT_EQ(b.hits, 10);
	EXPECT_EQ(b.last_arg, 4);

	/* The SAVE_REGS ops leaves: direct and one ops. */
	ASSERT_EQ(unregister_ftrace_function(&b.ops), 0);
	EXPECT_STREQ(enabled(&l), direct_line(want, sizeof(want), "dt_two", 2, false,
					      arch_test_direct_tramp_body));
	EXPECT_EQ(calls(dt_two, 5, 5, 1001), 0);
	EXPECT_EQ(a.hits, 15);
	EXPECT_EQ(b.hits, 10);

	/* The other one: direct alone, both silent. */
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	EXPECT_STREQ(enabled(&l), direct_line(want, sizeof(want), "dt_two", 1, false,
					      arch_test_direct_tramp_body));
	EXPECT_EQ(calls(dt_two, 5, 5, 1001), 0);
	EXPECT_EQ(a.hits, 15);
	EXPECT_EQ(b.hits, 10);

	/* An ops with its own trampoline joins the direct one, then the
	 * direct one leaves first: the ops' trampoline again. */
	ASSERT_EQ(register_ftrace_function(&b.ops), 0);
	EXPECT_EQ(calls(dt_two, 5, 5, 1001), 0);
	EXPECT_EQ(b.hits, 15);
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	ksym_format(sym, sizeof(sym), (uintptr_t)dcount_cb);
	ksym_format(caller, sizeof(caller), (uintptr_t)b.ops.call);   /* the assist function */
	ksnprintf(want, sizeof(want), "dt_two (1) R         \ttramp: 0x%lx (%s) ->%s\n",
		  (unsigned long)b.ops.tramp, sym, caller);
	EXPECT_STREQ(enabled(&l), want);
	EXPECT_EQ(calls(dt_two, 5, 5, 1), 0);
	EXPECT_EQ(b.hits, 20);
	ASSERT_EQ(unregister_ftrace_function(&b.ops), 0);
	EXPECT_EQ(calls(dt_two, 5, 5, 1), 0);
	EXPECT_EQ(a.hits + b.hits, 35);
	EXPECT_EQ(a.bad + b.bad, 0);
	EXPECT_EQ(r->flags, 0);
}

/*
 * A callback that calls its own function: the nested call finds the
 * callbacks' recursion bit held and calls no callback, but the direct
 * trampoline is not a callback: it runs on the nested call too, as it would
 * from a site that calls it alone.
 */
static void nest_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		    struct ftrace_regs *fregs)
{
	struct dcount *c = (struct dcount *)op;
	__atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
	c->last_arg = dt_rec(100);           /* the nested call's result */
}

TEST_CASE(direct, direct_runs_under_the_recursion_guard)
{
	static struct ftrace_ops d;
	static struct dcount a;
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "dt_rec", true), 0);
	dcount_init(&a, "dt_rec", (uintptr_t)dt_rec, 0);
	a.ops.func = nest_cb;
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp_body), 0);
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	EXPECT_EQ(dt_rec(1), 1005);
	EXPECT_EQ(a.last_arg, 1104);
	EXPECT_EQ(a.hits, 1);               /* not for the nested call */
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	EXPECT_EQ(dt_rec(1), 5);
}

/* ---- reach ---- */

/*
 * A direct address a site cannot call is refused by register_ftrace_direct
 * (-ERANGE) with nothing changed: the site's bytes, the record, the
 * listing, a callback already attached; tracing goes on.  Also by a filter
 * change of a registered direct ops that would take a function out of the
 * address's reach.
 */
TEST_CASE(direct, unreachable_address_refused)
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
	enabled(&before);
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
		EXPECT_STREQ(enabled(&after), before.text);
		EXPECT_TRUE(!ftrace_is_dead());
	}
	EXPECT_EQ(calls(dt_reach, 3, 1, 9), 0);
	EXPECT_EQ(a.hits, 3);
	/* Tracing is alive: a good address registers and runs. */
	uint64_t h0 = arch_test_direct_hits;
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
	EXPECT_EQ(calls(dt_reach, 3, 1, 9), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 3);
	EXPECT_EQ(a.hits, 6);
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	EXPECT_EQ(r->flags, 0);
}

TEST_CASE(direct, filter_change_out_of_reach_refused)
{
	/* hi: the higher of two functions, lo the lower; `edge` the highest
	 * address (16-aligned) hi's site reaches, which lo's cannot (reach
	 * is an interval around each site, and lo is at least 16 bytes
	 * lower).  The direct ops is registered on hi with it: never called
	 * (nothing calls hi here), only patched in and out. */
	uintptr_t hi = (uintptr_t)dt_reach, lo = (uintptr_t)dt_reach2;
	const char *hi_name = "dt_reach", *lo_name = "dt_reach2";
	if (hi < lo) {
		uintptr_t t = hi;
		hi = lo;
		lo = t;
		hi_name = "dt_reach2";
		lo_name = "dt_reach";
	}
	uintptr_t edge = hi & ~(uintptr_t)15;
	for (uintptr_t step = 1ul << 40; step >= 16; step >>= 1)
		if (arch_site_reaches(hi, edge + step))
			edge += step;
	ASSERT_TRUE(arch_site_reaches(hi, edge) && !arch_site_reaches(lo, edge));
	static struct ftrace_ops d;
	uint8_t site[ARCH_SITE_SIZE];
	char both[64];
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, hi_name, true), 0);
	memcpy(site, (void *)lo, sizeof(site));
	ASSERT_EQ(register_ftrace_direct(&d, edge), 0);
	struct ftrace_hash *filter = d.filter;
	ksnprintf(both, sizeof(both), "%s %s", hi_name, lo_name);
	char named[64];
	ksnprintf(named, sizeof(named), "the site of %s at", lo_name);
	ftrace_filter_error[0] = '\0';
	EXPECT_EQ(ftrace_set_filter(&d, both, true), -ERANGE);
	EXPECT_TRUE(strstr(ftrace_filter_error, named) != NULL);
	ftrace_filter_error[0] = '\0';
	EXPECT_EQ(ftrace_set_filter(&d, lo_name, false), -ERANGE);
	EXPECT_TRUE(strstr(ftrace_filter_error, named) != NULL);
	EXPECT_TRUE(d.filter == filter);
	EXPECT_EQ(memcmp((void *)lo, site, sizeof(site)), 0);
	EXPECT_EQ(rec_find(lo)->flags, 0);
	EXPECT_TRUE(rec_find(hi)->flags & FREC_DIRECT_EN);
	EXPECT_TRUE(!ftrace_is_dead());
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	EXPECT_EQ(rec_find(hi)->flags, 0);
}

/* ---- switching under fire ---- */

enum { RUN, QUIT };
static int fire_phase;                         /* atomic */
static int fire_add;                           /* atomic: what the direct adds */
static unsigned long fire_calls, fire_wrong;   /* atomic */

static int fire_thread(void *arg)
{
	(void)arg;
	for (int i = 0; __atomic_load_n(&fire_phase, __ATOMIC_RELAXED) != QUIT; i = (i + 1) & 0xffff) {
		int add = __atomic_load_n(&fire_add, __ATOMIC_RELAXED);
		if (dt_fire(i) != 7 * i + add)
			__atomic_fetch_add(&fire_wrong, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&fire_calls, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/*
 * Other CPUs call dt_fire in a loop and check every result.  With the
 * body-calling direct trampoline registered throughout, ops come and go
 * (direct alone -> one ops -> two, one saving registers -> alone): every
 * call, mid-update or not, runs the direct trampoline exactly once (+1000).
 * Then with the counting one, the direct trampoline comes and goes under an
 * ops (ops alone <-> direct and ops) and alone (nothing <-> direct): every
 * call returns the function's own result.
 */
TEST_CASE(direct, switching_under_fire)
{
	static struct ftrace_ops d;
	static struct dcount a, b;
	unsigned n = ncpus - 1, rounds = 30;
	struct thread *t[MAX_CPUS];
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "dt_fire", true), 0);
	dcount_init(&a, "dt_fire", (uintptr_t)dt_fire, 0);
	dcount_init(&b, "dt_fire", (uintptr_t)dt_fire, FTRACE_OPS_FL_SAVE_REGS);
	fire_calls = fire_wrong = 0;
	fire_add = 1000;
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp_body), 0);
	fire_phase = RUN;
	for (unsigned i = 0; i < n; i++)
		t[i] = thread_create("dfire", fire_thread, NULL, (int)(i + 1));
	for (unsigned k = 0; k < rounds; k++) {
		EXPECT_EQ(register_ftrace_function(&a.ops), 0);
		clock_delay_ns(50000);
		EXPECT_EQ(register_ftrace_function(&b.ops), 0);
		clock_delay_ns(50000);
		EXPECT_EQ(unregister_ftrace_function(&a.ops), 0);
		clock_delay_ns(50000);
		EXPECT_EQ(unregister_ftrace_function(&b.ops), 0);
		clock_delay_ns(50000);
	}
	unsigned long first = fire_calls, wrong = fire_wrong;
	/* Stop the callers before the body trampoline goes (their results
	 * would change with it). */
	__atomic_store_n(&fire_phase, QUIT, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	EXPECT_EQ(unregister_ftrace_direct(&d), 0);
	EXPECT_EQ(wrong, 0);
	EXPECT_TRUE(first > 0);

	fire_add = 0;
	fire_phase = RUN;
	uint64_t h0 = arch_test_direct_hits;
	for (unsigned i = 0; i < n; i++)
		t[i] = thread_create("dfire", fire_thread, NULL, (int)(i + 1));
	for (unsigned k = 0; k < rounds; k++) {
		EXPECT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
		clock_delay_ns(50000);
		EXPECT_EQ(register_ftrace_function(&a.ops), 0);
		clock_delay_ns(50000);
		EXPECT_EQ(unregister_ftrace_direct(&d), 0);
		clock_delay_ns(50000);
		EXPECT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
		clock_delay_ns(50000);
		EXPECT_EQ(unregister_ftrace_function(&a.ops), 0);
		clock_delay_ns(50000);
		EXPECT_EQ(unregister_ftrace_direct(&d), 0);
	}
	__atomic_store_n(&fire_phase, QUIT, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	EXPECT_EQ(fire_wrong, 0);
	EXPECT_TRUE(fire_calls > first);
	EXPECT_TRUE(arch_test_direct_hits > h0);
	EXPECT_TRUE(a.hits > 0 && b.hits > 0);
	EXPECT_EQ(a.bad + b.bad, 0);
	EXPECT_EQ(rec_find((uintptr_t)dt_fire)->flags, 0);
}

/* ---- the data word ---- */

/*
 * A site whose data word (arm64: the literal before the function) is not
 * what its record's state says is refused like altered instruction bytes:
 * nothing of the batch written (the word and the instruction stay as they
 * are, the other site of the batch untouched), the record DISABLED,
 * -EILSEQ, tracing killed with the reason.  Both ways the update judges a
 * site: the shortcut (dt_lit had nothing attached) and the general path
 * (`shared`: an ops with its own trampoline was attached first).  Each
 * kills tracing, so each is a suite that runs only when named
 * (bt.test=ftrace_refuse_data / ftrace_refuse_data_shared; tools/test.py
 * checks the reason printed).
 */
static void corrupt_data_word(bool shared)
{
	if (!ARCH_SITE_HAS_DATA)
		TEST_SKIP("no per-site data word on this arch");
	static struct dcount c, first;
	uintptr_t f = (uintptr_t)dt_lit;
	uint8_t site[ARCH_SITE_SIZE], other[ARCH_SITE_SIZE];
	if (shared) {
		dcount_init(&first, "dt_lit", f, 0);
		ASSERT_EQ(register_ftrace_function(&first.ops), 0);
		EXPECT_EQ(dt_lit(1), 12);
		EXPECT_EQ(first.hits, 1);
	}
	uint32_t flags = rec_find(f)->flags;
	uintptr_t other_word = arch_site_data((uintptr_t)dt_lit_other);
	/* A stray write: the word names an ops the site's state does not. */
	uint64_t stray = (uint64_t)(uintptr_t)&c.ops;
	ASSERT_TRUE(arch_site_data(f) != stray);
	arch_text_poke((void *)(f - sizeof(stray)), &stray, sizeof(stray));
	patch_sync_cores();
	ASSERT_EQ(arch_site_data(f), stray);
	memcpy(site, (void *)f, sizeof(site));
	memcpy(other, (void *)dt_lit_other, sizeof(other));
	dcount_init(&c, "dt_lit dt_lit_other", f, 0);
	EXPECT_EQ(register_ftrace_function(&c.ops), -EILSEQ);
	EXPECT_TRUE(ftrace_is_dead());
	EXPECT_EQ(rec_find(f)->flags, flags | FREC_DISABLED);
	EXPECT_EQ(arch_site_data(f), stray);
	EXPECT_EQ(memcmp((void *)f, site, sizeof(site)), 0);
	EXPECT_EQ(memcmp((void *)dt_lit_other, other, sizeof(other)), 0);
	EXPECT_EQ(arch_site_data((uintptr_t)dt_lit_other), other_word);
	EXPECT_EQ(rec_find((uintptr_t)dt_lit_other)->flags, 0);
	EXPECT_EQ(dt_lit(1) + dt_lit_other(1), 25);
	EXPECT_EQ(c.hits, 0);
	EXPECT_EQ(first.hits, shared ? 1 : 0);    /* dead: no callback runs */
}

TEST_CASE_FLAGS(ftrace_refuse_data, corrupt_data_word_is_refused, TEST_MANUAL)
{
	corrupt_data_word(false);
}

TEST_CASE_FLAGS(ftrace_refuse_data_shared, corrupt_data_word_is_refused, TEST_MANUAL)
{
	corrupt_data_word(true);
}
