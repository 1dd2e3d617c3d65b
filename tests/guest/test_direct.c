/*
 * test_direct.c — what a direct trampoline (arch/<arch>/DIRECT.md) does:
 * alone, sharing a function with callback ops or a graph user, under the
 * recursion guard, and while ops come and go under fire (suite `direct`);
 * listed for the gdb checks (suite `direct_gdb`, run only when named:
 * stops for tests/checks/gdb_checks.py with a direct trampoline and an ops on one
 * function, and a SAVE_REGS ops on its own trampoline); and the per-site data word's check (suites
 * `ftrace_refuse_data*`, which kill tracing, so they run only when named).
 * One direct trampoline per function, reach and the refusals are
 * test_direct_rules.c's.
 *
 * A function with a direct trampoline and callbacks calls the regs list
 * caller, which calls the callbacks and then enters the direct trampoline
 * as the site would have; with a graph user as well, its shadow frame is
 * pushed first and the direct trampoline returns through the return hook.
 * The trampolines and the helpers: direct_harness.h.
 *
 * The dt_* functions are this file's traced targets; noinline and an empty
 * asm keep every call a real call.
 */
#include <errno.h>
#include <string.h>

#include "arch/tests.h"
#include "boot/clock.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "patch/patch.h"
#include "tests/guest/direct_harness.h"
#include "trace/core/fgraph.h"
#include "trace/core/ftrace.h"
#include "trace/core/records.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int dt_one(int x) { KEEP(); return x * 3; }
T int dt_two(int x) { KEEP(); return x * 5 + 1; }
T int dt_rec(int x) { KEEP(); return x + 4; }
T int dt_fire(int x) { KEEP(); return x * 7; }
T int dt_lit(int x) { KEEP(); return x + 11; }
T int dt_lit_other(int x) { KEEP(); return x + 12; }
T int dt_graph(int x) { KEEP(); return x * 11; }
T int dt_gdb(int x) { KEEP(); return x + 31; }
T int dt_gdb_alone(int x) { KEEP(); return x + 32; }
T int dt_gdb_regs(int x) { KEEP(); return x + 33; }

/*
 * One step of a case: enabled_functions is the one line of `name` with the
 * direct trampoline `direct` (direct_line: count, regs), and five calls of
 * f return mul * i + add.  Failures are reported at the caller's line.
 */
static void expect_direct_step(int line, const char *name, unsigned count, bool regs,
			       void (*direct)(void), int (*f)(int), int mul, int add)
{
	static struct listing l;
	char want[256];
	direct_line(want, sizeof(want), name, count, regs, direct);
	if (strcmp(enabled_listing(&l), want))
		test_fail(__FILE__, line, "enabled_functions\n#   got:  %s\n#   want: %s", l.text,
			  want);
	unsigned wrong = wrong_calls(f, 5, mul, add);
	if (wrong)
		test_fail(__FILE__, line, "%u of 5 calls of %s did not return %d * i + %d", wrong,
			  name, mul, add);
}
#define EXPECT_DIRECT_STEP(...) expect_direct_step(__LINE__, __VA_ARGS__)


TEST_CASE(direct, direct_and_one_ops)
{
	static struct ftrace_ops d;
	static struct dcount a;
	static struct listing l;
	struct ftrace_rec *r = rec_find((uintptr_t)dt_one);
	ASSERT_TRUE(r != NULL);
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "dt_one", true), 0);
	dcount_init(&a, "dt_one", (uintptr_t)dt_one, 0);
	uint64_t h0 = arch_test_direct_hits;

	/* Direct alone: the site calls it. */
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
	EXPECT_DIRECT_STEP("dt_one", 1, false, arch_test_direct_tramp, dt_one, 3, 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 5);

	/* An ops joins: both run on every call. */
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	EXPECT_EQ(r->flags & (FREC_REF_MASK | FREC_DIRECT_EN | FREC_TRAMP_EN | FREC_CALL_OPS_EN |
			      FREC_REGS_EN),
		  2 | FREC_DIRECT_EN);
	EXPECT_DIRECT_STEP("dt_one", 2, false, arch_test_direct_tramp, dt_one, 3, 0);
	EXPECT_EQ(a.hits, 5);
	EXPECT_EQ(a.last_arg, 4);
	EXPECT_EQ(a.bad, 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 10);

	/* The ops leaves: direct alone again, the ops silent. */
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	EXPECT_DIRECT_STEP("dt_one", 1, false, arch_test_direct_tramp, dt_one, 3, 0);
	EXPECT_EQ(a.hits, 5);
	EXPECT_EQ(arch_test_direct_hits - h0, 15);

	/* Then nothing. */
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	EXPECT_EQ(wrong_calls(dt_one, 5, 3, 0), 0);
	EXPECT_EQ(arch_test_direct_hits - h0, 15);
	EXPECT_EQ(a.hits, 5);
	EXPECT_EQ(r->flags, 0);
	EXPECT_STREQ(enabled_listing(&l), "");
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
	EXPECT_STREQ(enabled_listing(&l), want);
	EXPECT_EQ(wrong_calls(dt_two, 5, 5, 1), 0);
	EXPECT_EQ(a.hits, 5);
	EXPECT_EQ(b.hits, 5);

	/* The direct trampoline that calls the body joins: its + 1000 on
	 * every call, and both ops still called. */
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp_body), 0);
	EXPECT_DIRECT_STEP("dt_two", 3, true, arch_test_direct_tramp_body, dt_two, 5, 1001);
	EXPECT_EQ(a.hits, 10);
	EXPECT_EQ(b.hits, 10);
	EXPECT_EQ(b.last_arg, 4);

	/* The SAVE_REGS ops leaves: direct and one ops. */
	ASSERT_EQ(unregister_ftrace_function(&b.ops), 0);
	EXPECT_DIRECT_STEP("dt_two", 2, false, arch_test_direct_tramp_body, dt_two, 5, 1001);
	EXPECT_EQ(a.hits, 15);
	EXPECT_EQ(b.hits, 10);

	/* The other one: direct alone, both silent. */
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	EXPECT_DIRECT_STEP("dt_two", 1, false, arch_test_direct_tramp_body, dt_two, 5, 1001);
	EXPECT_EQ(a.hits, 15);
	EXPECT_EQ(b.hits, 10);

	/* An ops with its own trampoline joins the direct one, then the
	 * direct one leaves first: the ops' trampoline again. */
	ASSERT_EQ(register_ftrace_function(&b.ops), 0);
	EXPECT_EQ(wrong_calls(dt_two, 5, 5, 1001), 0);
	EXPECT_EQ(b.hits, 15);
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	ksym_format(sym, sizeof(sym), (uintptr_t)b.ops.func);
	ksym_format(caller, sizeof(caller), (uintptr_t)ftrace_ops_entry(&b.ops)); /* the assist function */
	ksnprintf(want, sizeof(want), "dt_two (1) R         \ttramp: 0x%lx (%s) ->%s\n",
		  (unsigned long)b.ops.tramp, sym, caller);
	EXPECT_STREQ(enabled_listing(&l), want);
	EXPECT_EQ(wrong_calls(dt_two, 5, 5, 1), 0);
	EXPECT_EQ(b.hits, 20);
	ASSERT_EQ(unregister_ftrace_function(&b.ops), 0);
	EXPECT_EQ(wrong_calls(dt_two, 5, 5, 1), 0);
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

/* ---- with a graph user ---- */

/*
 * A graph user on the function of a direct trampoline: the site calls the
 * regs list caller, the user's entry pushes a shadow frame and hooks the
 * return, then the direct trampoline is entered with the hook as the
 * parent (DIRECT.md), and the return comes through the hook.  The user
 * records the test thread's entries and exits of dt_graph.
 */
/* graph_thread is atomic: the compiler sees that dt_graph touches no
 * memory and would drop a plain store made just before calling it. */
static struct thread *graph_thread;
static unsigned graph_entries, graph_exits, graph_bad;
static long graph_ret[8];

static bool graph_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	if (this_cpu()->current != __atomic_load_n(&graph_thread, __ATOMIC_RELAXED))
		return false;
	if (e->func != (uintptr_t)dt_graph || e->depth != 0)
		graph_bad++;
	data[0] = e->parent ^ 0x5a5a;
	graph_entries++;
	return true;
}

static void graph_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	if (r->func != (uintptr_t)dt_graph || r->depth != 0 || data[0] != (r->parent ^ 0x5a5a))
		graph_bad++;
	if (graph_exits < 8)
		graph_ret[graph_exits] = (long)(int)r->retval;
	graph_exits++;
}

/* Five calls; the user saw each enter and return (with the result
 * mul * i + add) at depth 0, or (hooked false) none; the shadow stack is
 * as deep as before. */
static void expect_graph(int line, bool hooked, int mul, int add)
{
	struct fgraph_stats st0, st1;
	fgraph_stats(&st0);
	graph_entries = graph_exits = graph_bad = 0;
	__atomic_store_n(&graph_thread, current_thread(), __ATOMIC_RELAXED);
	unsigned wrong = wrong_calls(dt_graph, 5, mul, add);
	__atomic_store_n(&graph_thread, NULL, __ATOMIC_RELAXED);
	fgraph_stats(&st1);
	unsigned n = hooked ? 5 : 0, ret_wrong = 0;
	for (unsigned i = 0; i < n && i < graph_exits; i++)
		ret_wrong += graph_ret[i] != mul * (long)i + add;
	if (wrong || graph_entries != n || graph_exits != n || graph_bad || ret_wrong ||
	    st1.depth != st0.depth)
		test_fail(__FILE__, line, "results wrong %u, entries %u, exits %u (want %u), "
			  "bad %u, return values wrong %u, shadow depth %u -> %u", wrong,
			  graph_entries, graph_exits, n, graph_bad, ret_wrong, st0.depth, st1.depth);
}
#define EXPECT_GRAPH(...) expect_graph(__LINE__, __VA_ARGS__)

static void direct_and_graph(void (*tramp)(void), bool direct_first)
{
	static struct ftrace_ops d;
	static struct fgraph_ops g = { .entryfunc = graph_entry, .retfunc = graph_exit, .idx = -1 };
	static struct listing l;
	char want[256], sym[96], call[96];
	bool body = tramp == arch_test_direct_tramp_body;
	int add = body ? 1000 : 0;
	unsigned counted = body ? 0 : 5;
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "dt_graph", true), 0);
	ASSERT_EQ(ftrace_set_filter(&g.ops, "dt_graph", true), 0);
	ASSERT_EQ(register_fgraph(&g), 0);
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)tramp), 0);
	uint64_t h0 = arch_test_direct_hits;
	EXPECT_DIRECT_STEP("dt_graph", 2, false, tramp, dt_graph, 11, add);
	EXPECT_GRAPH(true, 11, add);
	EXPECT_EQ(arch_test_direct_hits - h0, 2 * counted);
	if (direct_first) {
		/* The graph user alone, on its own trampoline. */
		ASSERT_EQ(unregister_ftrace_direct(&d), 0);
		ksym_format(sym, sizeof(sym), (uintptr_t)g.ops.func);
		ksym_format(call, sizeof(call), (uintptr_t)g.ops.call);
		ksnprintf(want, sizeof(want), "dt_graph (1)           \ttramp: 0x%lx (%s) ->%s\n",
			  (unsigned long)g.ops.tramp, sym, call);
		EXPECT_STREQ(enabled_listing(&l), want);
		EXPECT_GRAPH(true, 11, 0);
		ASSERT_EQ(unregister_fgraph(&g), 0);
	} else {
		/* The direct trampoline alone. */
		ASSERT_EQ(unregister_fgraph(&g), 0);
		EXPECT_DIRECT_STEP("dt_graph", 1, false, tramp, dt_graph, 11, add);
		EXPECT_GRAPH(false, 11, add);
		ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	}
	EXPECT_EQ(arch_test_direct_hits - h0, (direct_first ? 2 : 4) * counted);
	EXPECT_STREQ(enabled_listing(&l), "");
	EXPECT_GRAPH(false, 11, 0);
	EXPECT_EQ(rec_find((uintptr_t)dt_graph)->flags, 0);
}

TEST_CASE(direct, counting_direct_and_graph_user)
{
	direct_and_graph(arch_test_direct_tramp, true);
	direct_and_graph(arch_test_direct_tramp, false);
}

TEST_CASE(direct, body_direct_and_graph_user)
{
	direct_and_graph(arch_test_direct_tramp_body, true);
	direct_and_graph(arch_test_direct_tramp_body, false);
}

/* ---- for the gdb checks ---- */

/* tests/gdb/direct.gdb breaks here and runs bt-enabled (tests/checks/gdb_checks.py
 * compares it with the listing printed just before). */
T void direct_gdb_stop(void)
{
	KEEP();
}

/* A direct trampoline on dt_gdb and dt_gdb_alone, a callback ops on
 * dt_gdb too, and a SAVE_REGS ops alone on dt_gdb_regs (its own
 * trampoline, which calls its entry: its regs_call, not its call);
 * enabled_functions printed between "==== enabled_functions" and
 * "==== end", then the stop. */
TEST_FIXTURE(direct_gdb, direct_and_ops_listed)
{
	static struct ftrace_ops d;
	static struct dcount a, r;
	static struct listing l;
	char one[256], two[256], three[256], sym[96], entry[96];
	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "dt_gdb dt_gdb_alone", true), 0);
	dcount_init(&a, "dt_gdb", (uintptr_t)dt_gdb, 0);
	dcount_init(&r, "dt_gdb_regs", (uintptr_t)dt_gdb_regs, FTRACE_OPS_FL_SAVE_REGS);
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	ASSERT_EQ(register_ftrace_function(&r.ops), 0);
	EXPECT_TRUE(r.ops.tramp != 0);
	enabled_listing(&l);
	EXPECT_EQ(l.lines, 3);
	EXPECT_TRUE(strstr(l.text, direct_line(one, sizeof(one), "dt_gdb", 2, false,
					       arch_test_direct_tramp)) != NULL);
	EXPECT_TRUE(strstr(l.text, direct_line(two, sizeof(two), "dt_gdb_alone", 1, false,
					       arch_test_direct_tramp)) != NULL);
	ksym_format(sym, sizeof(sym), (uintptr_t)r.ops.func);
	ksym_format(entry, sizeof(entry), (uintptr_t)ftrace_ops_entry(&r.ops));
	ksnprintf(three, sizeof(three), "dt_gdb_regs (1) R         \ttramp: 0x%lx (%s) ->%s\n",
		  (unsigned long)r.ops.tramp, sym, entry);
	EXPECT_TRUE(strstr(l.text, three) != NULL);
	kprintf("==== enabled_functions\n%s==== end\n", l.text);
	direct_gdb_stop();
	EXPECT_EQ(dt_gdb(1) + dt_gdb_alone(1) + dt_gdb_regs(1), 99);
	EXPECT_EQ(a.hits, 1);
	EXPECT_EQ(r.hits, 1);
	ASSERT_EQ(unregister_ftrace_function(&r.ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
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
 * (bt.test=ftrace_refuse_data / ftrace_refuse_data_shared; tests/run.py
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

TEST_FIXTURE(ftrace_refuse_data, corrupt_data_word_is_refused)
{
	corrupt_data_word(false);
}

TEST_FIXTURE(ftrace_refuse_data_shared, corrupt_data_word_is_refused)
{
	corrupt_data_word(true);
}
