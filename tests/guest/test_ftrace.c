/*
 * test_ftrace.c — the ops core of the dynamic tracer, modelled on Linux's
 * startup self-tests, with exact counts (suite `ftrace`): the records,
 * what one ops and several overlapping ones count, the recursion guard
 * (own trampoline, the list function, the NOFP tracers), an ops the full
 * trampoline pool leaves to the list caller, SAVE_REGS, a direct
 * trampoline, bad input that changes nothing, and the enabled_functions
 * and available_filter_functions listings.  Suite `ftrace_refuse` (run
 * only when named: it kills tracing) corrupts a site and sees it refused.
 *
 * The rest of suite `ftrace` (its cases run after these, file by file in
 * link order): the registers a callback sees and uses, test_ftrace_regs.c;
 * live switching under fire, test_ftrace_live.c; trampoline reclamation and
 * updates by a thread that migrates, test_ftrace_recl.c.  struct counter,
 * ft_leaf and the events counted in the trace buffer: ftrace_harness.h.
 *
 * The ft_* functions are this file's traced targets (built with patchable
 * entries like all test code); noinline and an empty asm keep every call a
 * real call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/tests.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "patch/patch.h"
#include "tests/guest/ftrace_harness.h"
#include "tests/guest/listing.h"
#include "trace/core/ftrace.h"
#include "trace/core/ftrace_internal.h"
#include "trace/tracers/function_graph.h"
#include "trace/core/records.h"
#include "trace/tracers/function.h"
#include "trace/global_ops.h"
#include "trace/trace.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int ft_a(int x) { KEEP(); return x + 1; }
T int ft_b(int x) { KEEP(); return x + 2; }
T int ft_c(int x) { KEEP(); return x + 3; }
T int ft_target(int x) { KEEP(); return x - 1; }
/* A static sharing its name with ftrace_harness.c's (another prototype). */
static T noipa int ft_twin(int x) { KEEP(); return x + 100; }
T long ft_args3(long a, long b, long c) { KEEP(); return a * 100 + b * 10 + c; }
T int ft_direct_target(int x) { KEEP(); return x * 3; }
T void ft_caller(int n) { for (int i = 0; i < n; i++) ft_target(i); }

static const char *sym(uintptr_t a)
{
	const char *s = ksym_lookup(a, NULL, NULL);
	return s ? s : "?";
}

TEST_CASE(ftrace, records_sorted_and_compact)
{
	EXPECT_EQ(sizeof(struct ftrace_rec), 8);
	ASSERT_TRUE(ftrace_nrecs > 50);
	for (unsigned i = 1; i < ftrace_nrecs; i++)
		if (ftrace_recs[i].off <= ftrace_recs[i - 1].off) {
			test_fail(__FILE__, __LINE__, "records %u/%u out of order", i - 1, i);
			break;
		}
	struct ftrace_rec *r = rec_find((uintptr_t)ft_target);
	ASSERT_TRUE(r != NULL);
	EXPECT_STREQ(rec_name(r), "ft_target");
	EXPECT_EQ(r->flags, 0);
	EXPECT_TRUE(rec_find((uintptr_t)ft_target + 4) == NULL);
}

TEST_CASE(ftrace, one_function_exact_count)
{
	static struct counter c;
	counter_init(&c, "ft_target");
	ASSERT_EQ(register_ftrace_function(&c.ops), 0);
	struct ftrace_rec *r = rec_find((uintptr_t)ft_target);
	EXPECT_EQ(r->flags & FREC_REF_MASK, 1);
	EXPECT_TRUE(r->flags & FREC_ENABLED);
	ft_caller(100);
	ft_a(1);
	EXPECT_EQ(c.hits, 100);
	EXPECT_EQ(c.last_ip, (uintptr_t)ft_target);
	EXPECT_STREQ(sym(c.last_parent), "ft_caller");
	EXPECT_EQ(c.bad, 0);
	ASSERT_EQ(unregister_ftrace_function(&c.ops), 0);
	EXPECT_EQ(r->flags, 0);
	ft_caller(10);
	EXPECT_EQ(c.hits, 100);
}

TEST_CASE(ftrace, three_ops_overlap_plus_runtime_ops)
{
	static struct counter a, b, c;
	counter_init(&a, "ft_a ft_b");
	counter_init(&b, "ft_b ft_c");
	counter_init(&c, "ft_[abc]");
	ASSERT_EQ(ftrace_set_notrace(&c.ops, "ft_c", true), 0);
	struct counter *d = malloc(sizeof(*d));
	ASSERT_TRUE(d != NULL);
	counter_init(d, "ft_a");
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	ASSERT_EQ(register_ftrace_function(&b.ops), 0);
	ASSERT_EQ(register_ftrace_function(&c.ops), 0);
	ASSERT_EQ(register_ftrace_function(&d->ops), 0);
	EXPECT_EQ(rec_find((uintptr_t)ft_a)->flags & FREC_REF_MASK, 3);   /* a, c, d */
	EXPECT_EQ(rec_find((uintptr_t)ft_b)->flags & FREC_REF_MASK, 3);   /* a, b, c */
	EXPECT_EQ(rec_find((uintptr_t)ft_c)->flags & FREC_REF_MASK, 1);   /* b */
	EXPECT_TRUE(rec_find((uintptr_t)ft_c)->flags & FREC_TRAMP_EN);
	ft_a(0);
	ft_b(0); ft_b(0);
	ft_c(0); ft_c(0); ft_c(0);
	EXPECT_EQ(a.hits, 1 + 2);
	EXPECT_EQ(b.hits, 2 + 3);
	EXPECT_EQ(c.hits, 1 + 2);
	EXPECT_EQ(d->hits, 1);
	/* '!' removes while registered: a now traces ft_a only. */
	ASSERT_EQ(ftrace_set_filter(&a.ops, "!ft_b", false), 0);
	ft_a(0);
	ft_b(0);
	EXPECT_EQ(a.hits, 3 + 1);
	EXPECT_EQ(b.hits, 5 + 1);
	EXPECT_EQ(c.hits, 3 + 2);
	EXPECT_EQ(d->hits, 2);
	ASSERT_EQ(unregister_ftrace_function(&d->ops), 0);
	free(d);
	ASSERT_EQ(unregister_ftrace_function(&a.ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&b.ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&c.ops), 0);
	ft_a(0); ft_b(0); ft_c(0);
	EXPECT_EQ(a.hits + b.hits + c.hits, 4 + 6 + 5);
	EXPECT_EQ(a.bad + b.bad + c.bad, 0);
	for (const void *f = (const void *)ft_a; f; f = f == (void *)ft_a ? (void *)ft_b :
			f == (void *)ft_b ? (void *)ft_c : NULL)
		EXPECT_EQ(rec_find((uintptr_t)f)->flags, 0);
}

static struct counter rec_c;
static void recursing_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
			 struct ftrace_regs *fregs)
{
	__atomic_fetch_add(&rec_c.hits, 1, __ATOMIC_RELAXED);
	ft_leaf((int)rec_c.hits);       /* traced: must not come back here */
}

TEST_CASE(ftrace, recursion_is_not_traced)
{
	memset(&rec_c, 0, sizeof(rec_c));
	rec_c.ops.func = recursing_cb;
	ASSERT_EQ(ftrace_set_filter(&rec_c.ops, "ft_target ft_leaf", true), 0);
	ASSERT_EQ(register_ftrace_function(&rec_c.ops), 0);
	ft_caller(10);
	EXPECT_EQ(rec_c.hits, 10);
	for (int i = 0; i < 5; i++)
		ft_leaf(i);
	EXPECT_EQ(rec_c.hits, 15);
	ASSERT_EQ(unregister_ftrace_function(&rec_c.ops), 0);
}

/* The same through the list function: a second ops on ft_target only puts
 * it on the list caller, ft_leaf stays on rec_c's own trampoline.  The list
 * must still take the callbacks' recursion bit for rec_c. */
static void empty_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *fregs) { }

TEST_CASE(ftrace, recursion_is_not_traced_from_the_list)
{
	static struct ftrace_ops other = { .func = empty_cb };
	memset(&rec_c, 0, sizeof(rec_c));
	rec_c.ops.func = recursing_cb;
	ASSERT_EQ(ftrace_set_filter(&rec_c.ops, "ft_target ft_leaf", true), 0);
	ASSERT_EQ(ftrace_set_filter(&other, "ft_target", true), 0);
	ASSERT_EQ(register_ftrace_function(&rec_c.ops), 0);
	ASSERT_EQ(register_ftrace_function(&other), 0);
	ft_caller(10);
	EXPECT_EQ(rec_c.hits, 10);
	EXPECT_EQ(unregister_ftrace_function(&other), 0);
	ASSERT_EQ(unregister_ftrace_function(&rec_c.ops), 0);
}

/*
 * Calls made by callbacks reached through the list function, when the
 * nested call's site is the list too: first with plain callbacks only (the
 * list's plain run), then with the function tracer, which guards itself,
 * on the same functions (the general walk).  Each callback sees exactly
 * the calls made from outside the tracer.
 */
TEST_CASE(ftrace, list_nested_calls_are_not_traced)
{
	static struct counter other;
	memset(&rec_c, 0, sizeof(rec_c));
	rec_c.ops.func = recursing_cb;
	counter_init(&other, "ft_target ft_leaf");
	ASSERT_EQ(ftrace_set_filter(&rec_c.ops, "ft_target ft_leaf", true), 0);
	ASSERT_EQ(register_ftrace_function(&rec_c.ops), 0);
	ASSERT_EQ(register_ftrace_function(&other.ops), 0);
	EXPECT_EQ(rec_find((uintptr_t)ft_leaf)->flags & (FREC_TRAMP_EN | FREC_REF_MASK), 2);
	ft_caller(10);
	for (int i = 0; i < 5; i++)
		ft_leaf(i);
	EXPECT_EQ(rec_c.hits, 15);
	EXPECT_EQ(other.hits, 10);
	EXPECT_EQ(other.leaf_hits, 5);

	thread_migrate(current_thread(), 0);
	ASSERT_EQ(trace_filter_set(false, "ft_target ft_leaf", true), 0);
	rb_record_off(trace_buffer);
	ASSERT_EQ(rb_reset(trace_buffer, RB_ALL_CPUS), 0);
	rb_record_on(trace_buffer);
	ASSERT_EQ(register_ftrace_function(&function_ops), 0);
	ft_caller(10);
	for (int i = 0; i < 5; i++)
		ft_leaf(i);
	ASSERT_EQ(unregister_ftrace_function(&function_ops), 0);
	EXPECT_EQ(fn_events((uintptr_t)ft_target), 10);
	EXPECT_EQ(fn_events((uintptr_t)ft_leaf), 5);
	EXPECT_EQ(rec_c.hits, 30);
	EXPECT_EQ(other.hits, 20);
	EXPECT_EQ(other.leaf_hits, 10);
	EXPECT_EQ(other.bad, 0);
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);
	ASSERT_EQ(unregister_ftrace_function(&other.ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&rec_c.ops), 0);
}

/*
 * An ops that finds the trampoline pool full is served by the list caller
 * (CALL_OPS where sites carry a data word: the word names the ops).  Its
 * calls are counted exactly, and once it leaves, the site's data word is
 * ftrace_list_ops again, never a pointer to an ops that may be freed.  A
 * SAVE_REGS one is served by the regs list caller, which calls the ops'
 * regs_call (its entry) with the frame; a plain one's regs_call, reached
 * only through an old call, hides the frame, and a SAVE_REGS one's call,
 * reached only through an old word, calls it not at all.
 */
TEST_CASE(ftrace, pool_full_ops_uses_the_list_caller)
{
	struct ftrace_ops *fill;
	unsigned n;
	pool_fill("ft_b", &fill, &n);
	ASSERT_TRUE(fill != NULL);

	static struct counter c;
	counter_init(&c, "ft_target");
	ASSERT_EQ(register_ftrace_function(&c.ops), 0);
	EXPECT_EQ(c.ops.tramp, 0);
	struct ftrace_rec *r = rec_find((uintptr_t)ft_target);
	EXPECT_EQ(r->flags & (FREC_TRAMP_EN | FREC_CALL_OPS_EN | FREC_REF_MASK),
		  (ARCH_SITE_HAS_DATA ? FREC_CALL_OPS_EN : 0) | 1);
	EXPECT_EQ(arch_site_data((uintptr_t)ft_target),
		  ARCH_SITE_HAS_DATA ? (uintptr_t)&c.ops : 0);
	ft_caller(7);
	EXPECT_EQ(c.hits, 7);
	EXPECT_EQ(c.frames, 0);
	/* A CPU still running the site's old call into the regs list caller
	 * (it was a SAVE_REGS list site): the plain ops is called once, and
	 * without the frame (its regs_call is the regs list function). */
	EXPECT_EQ(arch_test_regs_list_old_site(2, (uintptr_t)ft_target), 1);
	EXPECT_EQ(c.hits, 8);
	EXPECT_EQ(c.frames, 0);
	EXPECT_EQ(c.last_ip, (uintptr_t)ft_target);
	EXPECT_EQ(c.bad, 0);
	ASSERT_EQ(unregister_ftrace_function(&c.ops), 0);
	EXPECT_EQ(r->flags, 0);
	EXPECT_EQ(arch_site_data((uintptr_t)ft_target),
		  ARCH_SITE_HAS_DATA ? (uintptr_t)&ftrace_list_ops : 0);
	ft_caller(3);
	EXPECT_EQ(c.hits, 8);

	counter_init(&c, "ft_target");
	c.ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	ASSERT_EQ(register_ftrace_function(&c.ops), 0);
	EXPECT_EQ(c.ops.tramp, 0);
	EXPECT_EQ(r->flags & (FREC_TRAMP_EN | FREC_CALL_OPS_EN | FREC_REGS_EN | FREC_REF_MASK),
		  (ARCH_SITE_HAS_DATA ? FREC_CALL_OPS_EN : 0) | FREC_REGS_EN | 1);
	EXPECT_EQ(arch_site_data((uintptr_t)ft_target),
		  ARCH_SITE_HAS_DATA ? (uintptr_t)&c.ops : 0);
	ft_caller(5);
	EXPECT_EQ(c.hits, 5);
	EXPECT_EQ(c.frames, 5);
	EXPECT_EQ(c.bad, 0);
	/* A CPU whose fetch of the site's call is already the plain list
	 * caller's (the update moving the site to a plain state) while its
	 * load of the word is not: the SAVE_REGS ops is not called without
	 * its frame (its call is the plain list function, which walks the
	 * function's ops and calls none that saves registers). */
	EXPECT_EQ(arch_test_list_old_site(2, (uintptr_t)ft_target), 1);
	EXPECT_EQ(c.hits, 5);
	EXPECT_EQ(c.frames, 5);
	ASSERT_EQ(unregister_ftrace_function(&c.ops), 0);
	EXPECT_EQ(r->flags, 0);
	pool_release(fill, n);
	EXPECT_EQ(rec_find((uintptr_t)ft_b)->flags, 0);
}

static long seen_args[3];
static bool seen_regs, seen_noregs_null;
static void regs_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		    struct ftrace_regs *fregs)
{
	for (int i = 0; i < 3; i++)
		seen_args[i] = (long)ftrace_regs_get_argument(fregs, i);
	seen_regs = ftrace_get_regs(fregs) != NULL;
}

static void noregs_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		      struct ftrace_regs *fregs)
{
	seen_noregs_null = ftrace_get_regs(fregs) == NULL;
}

TEST_CASE(ftrace, save_regs_sees_arguments)
{
	static struct ftrace_ops regs_ops = { .func = regs_cb, .flags = FTRACE_OPS_FL_SAVE_REGS };
	static struct ftrace_ops plain_ops = { .func = noregs_cb };
	ASSERT_EQ(ftrace_set_filter(&regs_ops, "ft_args3", true), 0);
	ASSERT_EQ(ftrace_set_filter(&plain_ops, "ft_args3", true), 0);
	ASSERT_EQ(register_ftrace_function(&regs_ops), 0);
	EXPECT_TRUE(rec_find((uintptr_t)ft_args3)->flags & FREC_REGS_EN);
	EXPECT_EQ(ft_args3(1, 2, 3), 123);
	EXPECT_EQ(seen_args[0], 1);
	EXPECT_EQ(seen_args[1], 2);
	EXPECT_EQ(seen_args[2], 3);
	EXPECT_TRUE(seen_regs);
	ASSERT_EQ(unregister_ftrace_function(&regs_ops), 0);
	ASSERT_EQ(register_ftrace_function(&plain_ops), 0);
	EXPECT_EQ(ft_args3(4, 5, 6), 456);
	EXPECT_TRUE(seen_noregs_null);
	ASSERT_EQ(unregister_ftrace_function(&plain_ops), 0);
}

/*
 * The function tracer and function_graph only test the callbacks'
 * recursion bit (FTRACE_HOT_NOFP: nothing they call is traced).  A traced
 * function called from another ops' callback finds the bit held and is not
 * recorded, even when the tracer is the function's only ops, so that its
 * own trampoline (not the list function) calls it.  rec_c's callback calls
 * ft_leaf on each of ten ft_target calls; five direct calls are recorded.
 */
TEST_CASE(ftrace, nofp_tracers_skip_calls_made_by_callbacks)
{
	memset(&rec_c, 0, sizeof(rec_c));
	rec_c.ops.func = recursing_cb;
	ASSERT_EQ(ftrace_set_filter(&rec_c.ops, "ft_target", true), 0);
	ASSERT_EQ(register_ftrace_function(&rec_c.ops), 0);
	thread_migrate(current_thread(), 0);
	/* EXPECT only from here: every path ends in the cleanup below. */
	EXPECT_EQ(trace_filter_set(false, "ft_leaf", true), 0);
	const char *tracers[] = { "function", "function_graph" };
	const uint16_t types[] = { TRACE_FN, TRACE_GRAPH_ENT };
	for (int k = 0; k < 2; k++) {
		EXPECT_EQ(tracer_set(tracers[k]), 0);     /* clears the buffer */
		EXPECT_EQ(rec_find((uintptr_t)ft_leaf)->flags & (FREC_TRAMP_EN | FREC_REF_MASK),
			  FREC_TRAMP_EN | 1);
		ft_caller(10);
		for (int i = 0; i < 5; i++)
			ft_leaf(i);
		EXPECT_EQ(events_of(types[k], (uintptr_t)ft_leaf), 5);
		if (k == 1)
			EXPECT_EQ(events_of(TRACE_GRAPH_RET, (uintptr_t)ft_leaf), 5);
		EXPECT_EQ(tracer_set("nop"), 0);
	}
	EXPECT_EQ(rec_c.hits, 20u);
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);
	EXPECT_EQ(unregister_ftrace_function(&rec_c.ops), 0);
}

TEST_CASE(ftrace, direct_trampoline)
{
	static struct ftrace_ops d = { 0 };
	ASSERT_EQ(ftrace_set_filter(&d, "ft_direct_target", true), 0);
	uint64_t before = arch_test_direct_hits;
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
	EXPECT_TRUE(rec_find((uintptr_t)ft_direct_target)->flags & FREC_DIRECT_EN);
	for (int i = 0; i < 7; i++)
		EXPECT_EQ(ft_direct_target(i), 3 * i);
	EXPECT_EQ(arch_test_direct_hits - before, 7);
	/* A second direct trampoline on the same function is refused. */
	static struct ftrace_ops d2 = { 0 };
	ASSERT_EQ(ftrace_set_filter(&d2, "ft_direct_target", true), 0);
	EXPECT_EQ(register_ftrace_direct(&d2, (uintptr_t)arch_test_direct_tramp_body), -EBUSY);
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	ft_direct_target(1);
	EXPECT_EQ(arch_test_direct_hits - before, 7);
	/* One that calls the function's body and changes the result. */
	ASSERT_EQ(register_ftrace_direct(&d2, (uintptr_t)arch_test_direct_tramp_body), 0);
	EXPECT_EQ(ft_direct_target(5), 15 + 1000);
	ASSERT_EQ(unregister_ftrace_direct(&d2), 0);
	EXPECT_EQ(ft_direct_target(5), 15);
}

TEST_CASE(ftrace, bad_input_changes_nothing)
{
	static struct counter c;
	counter_init(&c, "ft_target");
	ASSERT_EQ(register_ftrace_function(&c.ops), 0);
	struct ftrace_hash *before = c.ops.filter_hash;
	EXPECT_EQ(ftrace_set_filter(&c.ops, "ft_[abc", false), -EINVAL);
	EXPECT_EQ(ftrace_set_filter(&c.ops, "no_such_function_xyz", true), -EINVAL);
	EXPECT_EQ(ftrace_set_filter(&c.ops, "ft_a no_such_function_xyz", true), -EINVAL);
	EXPECT_EQ(ftrace_set_notrace(&c.ops, "ft_target\\", true), -EINVAL);
	EXPECT_TRUE(c.ops.filter_hash == before);
	EXPECT_EQ(register_ftrace_function(&c.ops), -EBUSY);
	ft_caller(3);
	ft_a(0);
	EXPECT_EQ(c.hits, 3);
	ASSERT_EQ(unregister_ftrace_function(&c.ops), 0);
	EXPECT_EQ(unregister_ftrace_function(&c.ops), -EINVAL);
	static struct ftrace_ops nofunc = { 0 };
	EXPECT_EQ(register_ftrace_function(&nofunc), -EINVAL);
}

/* Two functions named ft_twin (this file's and ftrace_harness.c's): the
 * name selects both, an index of available_filter_functions (from 1) one,
 * `!N` takes one out; an index past the last line, or 0, is refused with
 * the reason and changes nothing. */
static unsigned twin_hits(struct counter *c, const char *filter, bool reset)
{
	if (ftrace_set_filter(&c->ops, filter, reset) != 0 ||
	    register_ftrace_function(&c->ops) != 0)
		return ~0u;
	c->hits = 0;
	ft_twin(1);
	ft_twin_harness(2, 3);
	unsigned hits = (unsigned)c->hits;
	unregister_ftrace_function(&c->ops);
	return hits;
}

TEST_CASE(ftrace, filter_by_index)
{
	unsigned idx[2], n = 0;
	for (unsigned i = 0; i < ftrace_nrecs; i++)
		if (strcmp(rec_name(&ftrace_recs[i]), "ft_twin") == 0 && n++ < 2)
			idx[n - 1] = i;
	ASSERT_EQ(n, 2);
	static struct counter c;
	char num[32];
	counter_init(&c, NULL);
	EXPECT_EQ(twin_hits(&c, "ft_twin", true), 2);
	for (unsigned k = 0; k < 2; k++) {
		counter_init(&c, NULL);
		ksnprintf(num, sizeof(num), "%u", idx[k] + 1);
		EXPECT_EQ(twin_hits(&c, num, true), 1);
		EXPECT_EQ(c.last_ip, rec_ip(&ftrace_recs[idx[k]]));
	}
	counter_init(&c, NULL);
	ASSERT_EQ(ftrace_set_filter(&c.ops, "ft_twin", true), 0);
	ksnprintf(num, sizeof(num), "!%u", idx[0] + 1);
	EXPECT_EQ(twin_hits(&c, num, false), 1);
	EXPECT_EQ(c.last_ip, rec_ip(&ftrace_recs[idx[1]]));
	const struct ftrace_hash *before = c.ops.filter_hash;
	ksnprintf(num, sizeof(num), "%u", ftrace_nrecs + 1);
	EXPECT_EQ(ftrace_set_filter(&c.ops, num, true), -EINVAL);
	char want[96];
	ksnprintf(want, sizeof(want), "no line %u in available_filter_functions (it has %u, from 1)",
		  ftrace_nrecs + 1, ftrace_nrecs);
	EXPECT_STREQ(ftrace_filter_error, want);
	EXPECT_EQ(ftrace_set_filter(&c.ops, "0", true), -EINVAL);
	EXPECT_EQ(ftrace_set_filter(&c.ops, "99999999999999999999999", true), -EINVAL);
	EXPECT_EQ(ftrace_set_filter(&c.ops, "ft_a 0", true), -EINVAL);
	EXPECT_TRUE(c.ops.filter_hash == before);
}

/* patch/ refuses a batch and writes nothing; what follows is the caller's:
 * tracing stays alive (patch/ knows nothing of the tracer). */
TEST_CASE(ftrace, patch_refusal_writes_nothing)
{
	uintptr_t lo = (uintptr_t)ft_b, hi = (uintptr_t)ft_c;
	if (lo > hi) {
		uintptr_t t = lo;
		lo = hi;
		hi = t;
	}
	uint8_t before_lo[ARCH_SITE_SIZE], before_hi[ARCH_SITE_SIZE];
	memcpy(before_lo, (const void *)lo, ARCH_SITE_SIZE);
	memcpy(before_hi, (const void *)hi, ARCH_SITE_SIZE);
	struct patch_site s[2] = {
		{ .func = hi, .new_target = (uintptr_t)ft_a },
		{ .func = lo, .new_target = (uintptr_t)ft_a },
	};
	unsigned bad = 99;
	mutex_lock(&ftrace_mutex);
	EXPECT_EQ(patch_apply(s, 2, &bad), -EINVAL);     /* not sorted */
	EXPECT_EQ(bad, 1);
	struct patch_site w = { .func = lo, .old_target = (uintptr_t)ft_a };
	EXPECT_EQ(patch_apply(&w, 1, &bad), -EILSEQ);     /* not what it holds */
	EXPECT_EQ(bad, 0);
	mutex_unlock(&ftrace_mutex);
	EXPECT_EQ(memcmp(before_lo, (const void *)lo, ARCH_SITE_SIZE), 0);
	EXPECT_EQ(memcmp(before_hi, (const void *)hi, ARCH_SITE_SIZE), 0);
	EXPECT_TRUE(!ftrace_is_dead());
	EXPECT_EQ(ft_b(1) + ft_c(1), 7);
}

/* The start of an enabled_functions line: name, count and flag columns
 * (R, Linux's I, D, O, Linux's M), as Linux's layout has them. */
static void enabled_prefix(char *buf, size_t size, const char *name, unsigned refs, bool regs,
			   bool direct, bool call_ops)
{
	ksnprintf(buf, size, "%s (%u)%s  %s%s   ", name, refs, regs ? " R" : "  ",
		  direct ? " D" : "  ", call_ops ? " O" : "  ");
}

TEST_CASE(ftrace, listings)
{
	static struct listing cap;
	memset(&cap, 0, sizeof(cap));
	ftrace_list_available(listing_line, &cap);
	EXPECT_EQ(cap.lines, ftrace_nrecs);
	/* One ops, not guarding itself: its own trampoline, which calls the
	 * assist wrapper (Linux's x86-64: "tramp: ADDR (func) ->what it calls"). */
	static struct counter c;
	counter_init(&c, "ft_target ft_a");
	ASSERT_EQ(register_ftrace_function(&c.ops), 0);
	memset(&cap, 0, sizeof(cap));
	ftrace_list_enabled(listing_line, &cap);
	char want[512], line[256], pre[96], sym[96], call[96], list_sym[96];
	ksym_format(sym, sizeof(sym), (uintptr_t)count_cb);
	ksym_format(call, sizeof(call), (uintptr_t)c.ops.call);
	const char *first = (uintptr_t)ft_target < (uintptr_t)ft_a ? "ft_target" : "ft_a";
	const char *second = first[3] == 't' ? "ft_a" : "ft_target";
	enabled_prefix(pre, sizeof(pre), first, 1, false, false, false);
	int len = ksnprintf(want, sizeof(want), "%s\ttramp: 0x%lx (%s) ->%s\n", pre,
			    (unsigned long)c.ops.tramp, sym, call);
	enabled_prefix(pre, sizeof(pre), second, 1, false, false, false);
	ksnprintf(want + len, sizeof(want) - (size_t)len, "%s\ttramp: 0x%lx (%s) ->%s\n", pre,
		  (unsigned long)c.ops.tramp, sym, call);
	EXPECT_TRUE(c.ops.tramp != 0);
	const char *assist = ksym_lookup((uintptr_t)c.ops.call, NULL, NULL);
	EXPECT_STREQ(assist ? assist : "?", "ftrace_ops_assist_func");
	EXPECT_STREQ(cap.text, want);
	/* Two ops on ft_target: the list caller, which calls the list function. */
	static struct counter c2;
	counter_init(&c2, "ft_target");
	ASSERT_EQ(register_ftrace_function(&c2.ops), 0);
	ksym_format(list_sym, sizeof(list_sym), (uintptr_t)ftrace_ops_list_func);
	memset(&cap, 0, sizeof(cap));
	ftrace_list_enabled(listing_line, &cap);
	enabled_prefix(pre, sizeof(pre), "ft_target", 2, false, false, false);
	ksnprintf(line, sizeof(line), "%s ->%s\n", pre, list_sym);
	EXPECT_TRUE(strstr(cap.text, line) != NULL);
	ASSERT_EQ(unregister_ftrace_function(&c2.ops), 0);
	ASSERT_EQ(unregister_ftrace_function(&c.ops), 0);
	/* A SAVE_REGS ops: the R flag and its own (regs) trampoline. */
	static struct ftrace_ops r = { .func = regs_cb, .flags = FTRACE_OPS_FL_SAVE_REGS };
	ASSERT_EQ(ftrace_set_filter(&r, "ft_args3", true), 0);
	ASSERT_EQ(register_ftrace_function(&r), 0);
	ksym_format(sym, sizeof(sym), (uintptr_t)regs_cb);
	enabled_prefix(pre, sizeof(pre), "ft_args3", 1, true, false, false);
	ksnprintf(want, sizeof(want), "%s\ttramp: 0x%lx (%s) ->%s\n", pre, (unsigned long)r.tramp,
		  sym, call);
	memset(&cap, 0, sizeof(cap));
	ftrace_list_enabled(listing_line, &cap);
	EXPECT_STREQ(cap.text, want);
	ASSERT_EQ(unregister_ftrace_function(&r), 0);
	/* A direct trampoline: D and where it goes. */
	static struct ftrace_ops d = { 0 };
	ASSERT_EQ(ftrace_set_filter(&d, "ft_direct_target", true), 0);
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
	ksym_format(sym, sizeof(sym), (uintptr_t)arch_test_direct_tramp);
	enabled_prefix(pre, sizeof(pre), "ft_direct_target", 1, false, true, false);
	ksnprintf(want, sizeof(want), "%s\n\tdirect-->%s\n", pre, sym);
	memset(&cap, 0, sizeof(cap));
	ftrace_list_enabled(listing_line, &cap);
	EXPECT_STREQ(cap.text, want);
	ASSERT_EQ(unregister_ftrace_direct(&d), 0);
	memset(&cap, 0, sizeof(cap));
	ftrace_list_enabled(listing_line, &cap);
	EXPECT_EQ(cap.lines, 0);
}

/*
 * One ops with no trampoline (the pool is full): the list caller serves it.
 * Where sites carry a data word that is CALL_OPS: the O flag, " ->" the
 * ops' entry (the caller calls it straight: a plain ops' call, a SAVE_REGS
 * one's regs_call) and "\tops: OPS (callback)" (Linux's %pS of an ops: it
 * has no symbol, so hex).  Elsewhere the list caller runs the list
 * function for it.
 */
TEST_CASE(ftrace, listings_call_ops)
{
	struct ftrace_ops *fill;
	unsigned n;
	pool_fill("ft_b", &fill, &n);
	ASSERT_TRUE(fill != NULL);
	static struct counter c;
	counter_init(&c, "ft_target");
	/* EXPECT only from here: the pool is emptied below on every path. */
	EXPECT_EQ(register_ftrace_function(&c.ops), 0);
	EXPECT_EQ(c.ops.tramp, 0);
	static struct listing cap;
	memset(&cap, 0, sizeof(cap));
	ftrace_list_enabled(listing_line, &cap);
	char want[320], pre[96], sym[96], call[96], ops[64];
	enabled_prefix(pre, sizeof(pre), "ft_target", 1, false, false, ARCH_SITE_HAS_DATA);
	if (ARCH_SITE_HAS_DATA) {
		ksym_format(sym, sizeof(sym), (uintptr_t)count_cb);
		ksym_format(call, sizeof(call), (uintptr_t)c.ops.call);
		ksym_format(ops, sizeof(ops), (uintptr_t)&c.ops);
		ksnprintf(want, sizeof(want), "%s ->%s\tops: %s (%s)\n", pre, call, ops, sym);
	} else {
		ksym_format(call, sizeof(call), (uintptr_t)ftrace_ops_list_func);
		ksnprintf(want, sizeof(want), "%s ->%s\n", pre, call);
	}
	const char *at = strstr(cap.text, "ft_target (");
	EXPECT_TRUE(at != NULL && strncmp(at, want, strlen(want)) == 0);
	if (!at || strncmp(at, want, strlen(want)) != 0)
		kprintf("    # want: %s    # got:  %s\n", want, at ? at : "(no ft_target line)\n");
	EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
	/* A SAVE_REGS one: R, and " ->" its entry, which the regs list caller
	 * calls straight (its regs_call; its call is the plain list function). */
	counter_init(&c, "ft_target");
	c.ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	EXPECT_EQ(register_ftrace_function(&c.ops), 0);
	EXPECT_EQ(c.ops.tramp, 0);
	memset(&cap, 0, sizeof(cap));
	ftrace_list_enabled(listing_line, &cap);
	enabled_prefix(pre, sizeof(pre), "ft_target", 1, true, false, ARCH_SITE_HAS_DATA);
	if (ARCH_SITE_HAS_DATA) {
		const char *entry = ksym_lookup((uintptr_t)ftrace_ops_entry(&c.ops), NULL, NULL);
		EXPECT_STREQ(entry ? entry : "?", "ftrace_ops_assist_func");
		ksym_format(call, sizeof(call), (uintptr_t)ftrace_ops_entry(&c.ops));
		ksnprintf(want, sizeof(want), "%s ->%s\tops: %s (%s)\n", pre, call, ops, sym);
	} else {
		ksym_format(call, sizeof(call), (uintptr_t)ftrace_ops_list_regs_func);
		ksnprintf(want, sizeof(want), "%s ->%s\n", pre, call);
	}
	at = strstr(cap.text, "ft_target (");
	EXPECT_TRUE(at != NULL && strncmp(at, want, strlen(want)) == 0);
	if (!at || strncmp(at, want, strlen(want)) != 0)
		kprintf("    # want: %s    # got:  %s\n", want, at ? at : "(no ft_target line)\n");
	EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
	pool_release(fill, n);
	memset(&cap, 0, sizeof(cap));
	ftrace_list_enabled(listing_line, &cap);
	EXPECT_EQ(cap.lines, 0);
}

/*
 * A site whose bytes are not what the records say is refused: nothing of the
 * batch is written, the error is named, tracing is disabled for good.  Run
 * only when named (bt.test=ftrace_refuse), since it kills tracing.  The
 * corrupted site (ft_refuse_target, the name tests/run.py looks for) must
 * lie above the good one: the update scans in address order, and with the
 * corrupted site first, an update that wrote each site as it checked it
 * would stop before the good one and pass "nothing written" too.  Hence
 * ft_refuse_other is defined first, and the case checks the order.
 */
T int ft_refuse_other(int x) { KEEP(); return x + 12; }
T int ft_refuse_target(int x) { KEEP(); return x + 11; }
T int ft_refuse_live(int x) { KEEP(); return x + 13; }

static void call_refuse_live(void *arg)
{
	(void)arg;
	ft_refuse_live(0);
}

TEST_FIXTURE(ftrace_refuse, corrupt_site_is_refused)
{
	uint8_t bad[ARCH_SITE_SIZE], before_other[ARCH_SITE_SIZE], after[ARCH_SITE_SIZE];
	uintptr_t f = (uintptr_t)ft_refuse_target;
	ASSERT_TRUE((uintptr_t)ft_refuse_other < f);      /* see above */
	/* An ops attached before the kill, on a good site. */
	static struct counter live;
	counter_init(&live, "ft_refuse_live");
	ASSERT_EQ(register_ftrace_function(&live.ops), 0);
	smp_call_all(call_refuse_live, NULL);
	EXPECT_EQ(live.hits, ncpus);
	/* Make the site look enabled (a call to the list caller) behind the
	 * records' back — what a stray write into text would do. */
	ASSERT_EQ(arch_site_encode(f, (uintptr_t)arch_ftrace_list_caller, bad), 0);
	arch_text_poke((void *)f, bad, ARCH_SITE_SIZE);
	patch_sync_cores();
	memcpy(before_other, (void *)ft_refuse_other, ARCH_SITE_SIZE);
	static struct counter c;
	counter_init(&c, "ft_refuse_target ft_refuse_other");
	EXPECT_EQ(register_ftrace_function(&c.ops), -EILSEQ);
	EXPECT_TRUE(ftrace_is_dead());
	EXPECT_TRUE(rec_find(f)->flags & FREC_DISABLED);
	/* Nothing of the batch was written: the other site is still disabled. */
	EXPECT_EQ(memcmp((void *)ft_refuse_other, before_other, ARCH_SITE_SIZE), 0);
	memcpy(after, (void *)f, ARCH_SITE_SIZE);
	EXPECT_EQ(memcmp(after, bad, ARCH_SITE_SIZE), 0);
	EXPECT_EQ(ft_refuse_other(1), 13);
	EXPECT_EQ(c.hits, 0);
	/* Dead means dead: nothing registers any more. */
	static struct counter d;
	counter_init(&d, NULL);
	EXPECT_EQ(register_ftrace_function(&d.ops), -ENODEV);
	/* Dead on every CPU: the ops attached before runs no more, though its
	 * site still calls its trampoline. */
	smp_call_all(call_refuse_live, NULL);
	EXPECT_EQ(live.hits, ncpus);
}
