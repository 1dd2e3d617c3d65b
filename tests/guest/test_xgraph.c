/*
 * test_xgraph.c — function_graph on the XRay sleds (INSTR=xray only:
 * mk/xray.mk links this file; suite `xgraph`).
 *
 * The tail-call matrix of issue 20 through the real entry, exit and tail
 * sleds and the trace stack: traced->traced, traced->notrace,
 * notrace->traced, a chain of three tail calls, recursion through tail
 * calls.  tests/checks/checks_xray.py disassembles these functions from
 * the kernel and checks that each tail call is a jump (the function ends
 * in a branch to its callee, no call of it).  Cases:
 *   tail_call_matrix        the graph of one run, exact (marks included);
 *   same_call_site_loop     a loop calling a traced function that
 *                           tail-calls an untraced one, from one call
 *                           site: flat calls, each ended late (the jump
 *                           after the tail sled names the untraced one);
 *   switched_under_fire     the sleds of all xg_* switched on and off 40
 *                           times (register / unregister of a graph user)
 *                           while three other CPUs run the matrix: after
 *                           each switch this CPU's run is the exact graph
 *                           again, no caller ever gets a wrong value, no
 *                           exit is handed another call's data words, and
 *                           at the end no entry is left on any stack.
 */
#include <string.h>

#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "lib/compiler.h"
#include "lib/noipa.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_frame.h"
#include "trace/core/fgraph_inline.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

static volatile int mx_sink;

T int xg_leaf(int x) { mx_sink = x; return x + 1; }
T int xg_tt(int x) { return xg_leaf(x + 3); }                   /* traced -> traced */
notrace T int xg_nleaf(int x) { mx_sink = x; return x + 2; }
T int xg_tn(int x) { return xg_nleaf(x + 3); }                  /* traced -> notrace */
notrace T int xg_nt(int x) { return xg_leaf(x + 5); }           /* notrace -> traced */
T int xg_c3(int x) { mx_sink = x; return x * 2; }
T int xg_c2(int x) { return xg_c3(x + 1); }                     /* a chain of three */
T int xg_c1(int x) { return xg_c2(x + 1); }
T int xg_rb(int n, int acc);
T int xg_ra(int n, int acc) { if (!n) return acc; return xg_rb(n, acc + n); }
T int xg_rb(int n, int acc) { mx_sink = n; return xg_ra(n - 1, acc); }   /* recursion */

/* A loop calling xg_tn from one call site (the same sp and return address
 * each time), then xg_tt: n is the caller's, so the loop stays one loop
 * (not unrolled into several call sites). */
T int xg_loop(int n)
{
	int s = 0;
#pragma clang loop unroll(disable)
	for (int i = 0; i < n; i++)
		s += xg_tn(i);
	KEEP();                   /* may read xlog_thread: its store stays before the call */
	return s + xg_tt(s);
}

/* Its graph for n = 3: xg_tn's jump names xg_nleaf, so the next xg_tn is
 * no tail callee of the last; each is popped late at the next one's entry
 * (the last at xg_tt's, from another call site), flat; xg_tt -> xg_leaf
 * nests as in the matrix. */
static const char LOOP[] =
	"E:xg_loop:0 E:xg_tn:1 X:xg_tn:1:0:late E:xg_tn:1 X:xg_tn:1:0:late "
	"E:xg_tn:1 X:xg_tn:1:0:late E:xg_tt:1 E:xg_leaf:2 X:xg_leaf:2:22 X:xg_tt:1:22 "
	"X:xg_loop:0:40";

/* The matrix once, every value checked: how many were wrong. */
static T int matrix_run(int x)
{
	int wrong = 0;
	wrong += xg_tt(x) != x + 4;
	wrong += xg_tn(x) != x + 5;
	wrong += xg_nt(x) != x + 6;
	wrong += xg_c1(x) != (x + 2) * 2;
	wrong += xg_ra(2, x) != x + 3;
	KEEP();
	return wrong;
}

/* The graph of matrix_run(1) on the trace stack: xg_tn's end is not seen
 * (its notrace callee returns straight to matrix_run), so the next entry at
 * its sp, xg_nt's jump into xg_leaf with another return address, pops it
 * late and without a value. */
static const char MATRIX[] =
	"E:xg_tt:0 E:xg_leaf:1 X:xg_leaf:1:5 X:xg_tt:0:5 "
	"E:xg_tn:0 X:xg_tn:0:0:late "
	"E:xg_leaf:0 X:xg_leaf:0:7 "
	"E:xg_c1:0 E:xg_c2:1 E:xg_c3:2 X:xg_c3:2:6 X:xg_c2:1:6 X:xg_c1:0:6 "
	"E:xg_ra:0 E:xg_rb:1 E:xg_ra:2 E:xg_rb:3 E:xg_ra:4 X:xg_ra:4:4 X:xg_rb:3:4 "
	"X:xg_ra:2:4 X:xg_rb:1:4 X:xg_ra:0:4";

/* ---- the recording user: this thread's events as text, and for every
 * thread the data words each exit is handed ---- */

static char xlog[1024];
static size_t xlog_n;
static struct thread *xlog_thread;
static unsigned long mx_mispaired;      /* atomic */

static void xlog_add(const char *fmt, const char *name, unsigned depth, long ret, const char *mark)
{
	if (xlog_n < sizeof(xlog) - 80)
		xlog_n += ksnprintf(xlog + xlog_n, sizeof(xlog) - xlog_n, fmt, xlog_n ? " " : "",
				    name ? name : "?", depth, ret, mark);
}

static bool mx_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	data[0] = e->func ^ 0x5a5a;
	data[1] = e->depth;
	if (e->cpu->current == xlog_thread)
		xlog_add("%sE:%s:%u", ksym_lookup(e->func, NULL, NULL), e->depth, 0, "");
	return true;
}

static void mx_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	if (data[0] != (r->func ^ 0x5a5a) || data[1] != r->depth)
		__atomic_fetch_add(&mx_mispaired, 1, __ATOMIC_RELAXED);
	if (r->cpu->current == xlog_thread)
		xlog_add("%sX:%s:%u:%ld%s", ksym_lookup(r->func, NULL, NULL), r->depth,
			 (long)r->retval,
			 r->mark == FGRAPH_RET_LATE ? ":late" : r->mark == FGRAPH_RET_GONE ? ":gone" : "");
}

static struct fgraph_ops mx_user = { .entryfunc = mx_entry, .retfunc = mx_exit, .idx = -1 };

static void xlog_reset(void)
{
	xlog_n = 0;
	xlog[0] = '\0';
	xlog_thread = current_thread();
}

/* fn(x) with the recording user registered on xg_* and this thread's
 * events in xlog: fn's value, and in *depth this thread's trace-stack
 * depth after it (the user still registered); -1000 if the user could
 * not register. */
static int recorded(int (*fn)(int), int x, unsigned *depth)
{
	mx_mispaired = 0;
	*depth = ~0u;
	if (ftrace_set_filter(&mx_user.ops, "xg_*", true) || register_fgraph(&mx_user))
		return -1000;
	xlog_reset();
	int r = fn(x);
	xlog_thread = NULL;
	*depth = current_thread()->ret_stack->depth;
	unregister_fgraph(&mx_user);
	return r;
}

TEST_CASE(xgraph, tail_call_matrix)
{
	unsigned depth;
	EXPECT_EQ(recorded(matrix_run, 1, &depth), 0);
	EXPECT_EQ(depth, 0);
	EXPECT_EQ(mx_mispaired, 0);
	EXPECT_STREQ(xlog, MATRIX);
}

/* The demo's vfs_stat case: a traced function tail-calling an untraced
 * one, called again and again from one call site. */
TEST_CASE(xgraph, same_call_site_loop)
{
	unsigned depth;
	EXPECT_EQ(recorded(xg_loop, 3, &depth), 40);
	EXPECT_EQ(depth, 0);
	EXPECT_EQ(mx_mispaired, 0);
	EXPECT_STREQ(xlog, LOOP);
}

/* ---- under fire ---- */

static unsigned long mx_stop, mx_calls, mx_wrong, mx_left;    /* atomic */

static int matrix_caller(void *arg)
{
	unsigned long calls = 0, wrong = 0;
	int x = (int)(uintptr_t)arg;
	while (!__atomic_load_n(&mx_stop, __ATOMIC_ACQUIRE)) {
		wrong += matrix_run(x);
		calls++;
	}
	/* Stopped with the user on: one call at the matrix's level pops what
	 * the switches left here (frames gone, or late). */
	wrong += xg_leaf(x) != x + 1;
	__atomic_fetch_add(&mx_left, current_thread()->ret_stack->depth, __ATOMIC_RELAXED);
	__atomic_fetch_add(&mx_calls, calls, __ATOMIC_RELAXED);
	__atomic_fetch_add(&mx_wrong, wrong, __ATOMIC_RELAXED);
	return 0;
}

TEST_CASE(xgraph, switched_under_fire)
{
	struct thread *t[MAX_CPUS];
	unsigned n = 0, rounds_wrong = 0;
	char first_bad[sizeof(xlog)] = "";
	mx_stop = mx_calls = mx_wrong = mx_left = mx_mispaired = 0;
	ASSERT_EQ(ftrace_set_filter(&mx_user.ops, "xg_*", true), 0);
	thread_migrate(current_thread(), 0);
	for (unsigned c = 1; c < ncpus && c < 4; c++)
		t[n++] = thread_create("matrix_caller", matrix_caller, (void *)(uintptr_t)(c * 10), (int)c);
	for (unsigned round = 0; round < 40; round++) {
		ASSERT_EQ(register_fgraph(&mx_user), 0);
		xlog_reset();
		rounds_wrong += matrix_run(1);
		xlog_thread = NULL;
		if (strcmp(xlog, MATRIX) && !first_bad[0])
			memcpy(first_bad, xlog, sizeof(xlog));
		rounds_wrong += strcmp(xlog, MATRIX) != 0;
		ASSERT_EQ(unregister_fgraph(&mx_user), 0);
	}
	ASSERT_EQ(register_fgraph(&mx_user), 0);
	__atomic_store_n(&mx_stop, 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	unregister_fgraph(&mx_user);
	thread_migrate(current_thread(), -1);
	kprintf("    # %lu matrix runs on %u other CPUs while 40 switches\n", mx_calls, n);
	if (first_bad[0])
		kprintf("    # got:  %s\n    # want: %s\n", first_bad, MATRIX);
	EXPECT_EQ(rounds_wrong, 0);
	EXPECT_EQ(mx_wrong, 0);
	EXPECT_EQ(mx_mispaired, 0);
	EXPECT_EQ(mx_left, 0);
	EXPECT_EQ(current_thread()->ret_stack->depth, 0);
	EXPECT_TRUE(n == 0 || mx_calls > 0);
}
