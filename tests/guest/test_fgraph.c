/*
 * test_fgraph.c — the function-graph core: exact entry/exit sequences for
 * tail calls, recursion, interrupts, migration, switching users on and off
 * while functions run, eight users at once, shadow-stack overflow, and
 * backtraces through hooked returns.
 *
 * The fg_* functions are the traced targets (this file is built with
 * patchable entries).  A recording user logs the calls the test thread makes
 * (interrupts taken on it included); each case compares the log with the
 * exact sequence the calls must produce.
 */
#include <errno.h>
#include <string.h>

#include "arch/tests.h"
#include "boot/clock.h"
#include "boot/fault.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/ksyms.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "lib/failalloc.h"
#include "tests/guest/irq_probe.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_inline.h"
#include "trace/global_ops.h"
#include "trace/trace.h"
#include "lib/compiler.h"
#include "lib/noipa.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

static volatile int sink;

T int fg_leaf(int x) { sink = x; return x + 1; }
T int fg_mid(int x) { int r = fg_leaf(x) * 2; KEEP(); return r; }
T int fg_tail_tt(int x) { return fg_leaf(x + 3); }               /* traced -> traced */
notrace T int fg_notrace_leaf(int x) { sink = x; return x + 2; }
T int fg_tail_tn(int x) { return fg_notrace_leaf(x + 3); }       /* traced -> notrace */
notrace T int fg_tail_nt(int x) { return fg_leaf(x + 5); }       /* notrace -> traced */
T int fg_rec(int n) { int r = n ? fg_rec(n - 1) + n : 0; KEEP(); return r; }
T double fg_fdiv(double a, double b) { KEEP(); return a / b; }

/* ---- the recording user ---- */

struct logent {
	char kind;                 /* 'E' or 'X' */
	uintptr_t func;
	unsigned depth;
	long ret;
	unsigned cpu;
};

#define LOG_MAX 1024
static struct logent log_[LOG_MAX];
static unsigned log_n;                 /* entries the test thread logged */
static struct thread *log_thread;      /* whose calls are logged */

static void log_add(char kind, uintptr_t func, unsigned depth, long ret)
{
	if (this_cpu()->current != log_thread || log_n >= LOG_MAX)
		return;
	log_[log_n++] = (struct logent){ kind, func, depth, ret, cpu_id() };
}

static bool rec_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	log_add('E', e->func, e->depth, 0);
	data[0] = e->func ^ 0x5a5a;
	data[1] = e->depth;
	return true;
}

static unsigned long data_bad;          /* atomic: exits whose data words changed */

static void rec_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	if (data[0] != (r->func ^ 0x5a5a) || data[1] != r->depth)
		__atomic_fetch_add(&data_bad, 1, __ATOMIC_RELAXED);
	log_add('X', r->func, r->depth, (long)r->retval);
}

static struct fgraph_ops rec = { .entryfunc = rec_entry, .retfunc = rec_exit, .idx = -1 };

static bool rec_start(const char *filter)
{
	log_n = 0;
	data_bad = 0;
	log_thread = current_thread();
	if (ftrace_set_filter(&rec.ops, filter, true))
		return false;
	return register_fgraph(&rec) == 0;
}

static void rec_stop(void)
{
	unregister_fgraph(&rec);
	log_thread = NULL;
}

/* Compare the log with "E:func:depth X:func:depth:ret ..." (names). */
static void expect_log(const char *file, int line, const char *want)
{
	char got[1024];
	size_t n = 0;
	got[0] = '\0';
	for (unsigned i = 0; i < log_n && n < sizeof(got) - 64; i++) {
		const char *name = ksym_lookup(log_[i].func, NULL, NULL);
		if (log_[i].kind == 'E')
			n += ksnprintf(got + n, sizeof(got) - n, "%sE:%s:%u", i ? " " : "",
				       name ? name : "?", log_[i].depth);
		else
			n += ksnprintf(got + n, sizeof(got) - n, "%sX:%s:%u:%ld", i ? " " : "",
				       name ? name : "?", log_[i].depth, log_[i].ret);
	}
	if (strcmp(got, want))
		test_fail(file, line, "graph\n#   got:  %s\n#   want: %s", got, want);
}
#define EXPECT_LOG(want) expect_log(__FILE__, __LINE__, want)

static size_t func_size(void *f)
{
	uintptr_t off, size;
	return ksym_lookup((uintptr_t)f, &off, &size) ? size : 0;
}

/* ---- cases ---- */

TEST_CASE(fgraph, tail_calls)
{
	/* The compiler really made them jumps. */
	EXPECT_TRUE(arch_test_find_jump((uintptr_t)fg_tail_tt, func_size(fg_tail_tt),
					(uintptr_t)fg_leaf) != 0);
	EXPECT_TRUE(arch_test_find_jump((uintptr_t)fg_tail_tn, func_size(fg_tail_tn),
					(uintptr_t)fg_notrace_leaf) != 0);
	EXPECT_TRUE(arch_test_find_jump((uintptr_t)fg_tail_nt, func_size(fg_tail_nt),
					(uintptr_t)fg_leaf) != 0);
	ASSERT_TRUE(rec_start("fg_*"));
	EXPECT_EQ(fg_tail_tt(1), 5);
	EXPECT_EQ(fg_tail_tn(1), 6);
	EXPECT_EQ(fg_tail_nt(1), 7);
	rec_stop();
	/* traced->traced: the callee's frame nests in the caller's and both
	 * return through the hook (the trace stack: both end at the callee's
	 * exit sled); traced->notrace: the caller's exit comes when the
	 * notrace callee returns (the trace stack never sees that return: the
	 * caller is popped late, without a value, by the next entry at its
	 * sp, whose parent is another); notrace->traced: only the callee. */
	if (FGRAPH_TSTACK)
		EXPECT_LOG("E:fg_tail_tt:0 E:fg_leaf:1 X:fg_leaf:1:5 X:fg_tail_tt:0:5 "
			   "E:fg_tail_tn:0 X:fg_tail_tn:0:0 "
			   "E:fg_leaf:0 X:fg_leaf:0:7");
	else
		EXPECT_LOG("E:fg_tail_tt:0 E:fg_leaf:1 X:fg_leaf:1:5 X:fg_tail_tt:0:5 "
			   "E:fg_tail_tn:0 X:fg_tail_tn:0:6 "
			   "E:fg_leaf:0 X:fg_leaf:0:7");
	EXPECT_EQ(data_bad, 0);
}

TEST_CASE(fgraph, recursion_100)
{
	ASSERT_TRUE(rec_start("fg_rec"));
	EXPECT_EQ(fg_rec(100), 5050);
	rec_stop();
	ASSERT_EQ(log_n, 202);
	for (unsigned i = 0; i <= 100; i++) {
		EXPECT_EQ(log_[i].kind, 'E');
		EXPECT_EQ(log_[i].depth, i);
		struct logent *x = &log_[201 - i];
		EXPECT_EQ(x->kind, 'X');
		EXPECT_EQ(x->depth, i);
		EXPECT_EQ(x->ret, (long)(100 - i) * (101 - i) / 2);
	}
	EXPECT_EQ(data_bad, 0);
}

/* An interrupt arriving inside a traced function: the handler's traced
 * calls nest one level deeper, on the per-CPU interrupt stack
 * (tests/guest/irq_probe.h). */
TEST_CASE(fgraph, interrupt_inside)
{
	ASSERT_TRUE(rec_start("irq_probe_spin irq_probe_work"));
	int hit = irq_probe_run(current_thread());
	rec_stop();
	ASSERT_EQ(hit, 1);
	EXPECT_LOG("E:irq_probe_spin:0 E:irq_probe_work:1 X:irq_probe_work:1:101 "
		   "X:irq_probe_spin:0:1");
}

/* Entered on one CPU, preempted by the timer and resumed on another,
 * returns there: the shadow stack travels with the thread.  The thread
 * never yields: it re-pins itself to `to` (the field only, as
 * thread_migrate does before it yields) and spins until the timer tick
 * sees it on the wrong CPU and the preemption at irq_exit moves it.
 * Returns the CPU it returned on, or -1 if it did not move within 5 s;
 * *switches the switches it went through while the frame was open. */
T int fg_migrate(int to, uint64_t *switches)
{
	struct thread *t = current_thread();
	unsigned from = cpu_id();
	uint64_t before = t->switches_in, end = clock_ns() + 5000000000ull;
	__atomic_store_n(&t->pinned, to, __ATOMIC_RELAXED);
	while (cpu_id() == from && clock_ns() < end)
		arch_cpu_relax();
	*switches = t->switches_in - before;
	KEEP();
	return cpu_id() == from ? -1 : (int)cpu_id();
}

TEST_CASE(fgraph, migrate_inside)
{
	if (ncpus < 2)
		TEST_SKIP("needs two CPUs");
	unsigned from = cpu_id(), to = (from + 1) % ncpus;
	thread_migrate(current_thread(), (int)from);       /* no balancer moves meanwhile */
	uint64_t switches = 0;
	ASSERT_TRUE(rec_start("fg_migrate"));
	int ran = fg_migrate((int)to, &switches);
	rec_stop();
	thread_migrate(current_thread(), (int)from);
	thread_migrate(current_thread(), -1);
	EXPECT_EQ(ran, to);
	EXPECT_TRUE(switches >= 1);                /* preempted with the frame open */
	char want[96];
	ksnprintf(want, sizeof(want), "E:fg_migrate:0 X:fg_migrate:0:%u", to);
	EXPECT_LOG(want);
	ASSERT_EQ(log_n, 2);
	EXPECT_EQ(log_[0].cpu, from);
	EXPECT_EQ(log_[1].cpu, to);
	EXPECT_EQ(data_bad, 0);
}

/* A thread inside fg_outer while a user is registered or unregistered. */
static volatile int go_start, go_inner, outer_in, outer_out;
static void wait_flag(volatile int *f);
T int fg_outer(int x)
{
	__atomic_store_n(&outer_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&go_inner, __ATOMIC_ACQUIRE))
		thread_yield();
	int r = fg_leaf(x) + 10;
	KEEP();
	return r;
}

static int outer_thread(void *arg)
{
	wait_flag(&go_start);          /* until the test knows this thread */
	int r = fg_outer(4);
	struct fgraph_stats st;
	fgraph_stats(&st);
	__atomic_store_n(&outer_out, 1, __ATOMIC_RELEASE);
	return r * 100 + (int)st.depth;        /* depth: frames left on its stack */
}

static void wait_flag(volatile int *f)
{
	uint64_t end = clock_ns() + 5000000000ull;
	while (!__atomic_load_n(f, __ATOMIC_ACQUIRE) && clock_ns() < end)
		thread_yield();
}

/* The fg-outer thread, logged, started once log_thread names it; back when
 * it is inside fg_outer (its return hooked if a user takes fg_outer). */
static struct thread *start_outer(void)
{
	go_start = 0;
	struct thread *t = thread_create("fg-outer", outer_thread, NULL, -1);
	if (!t)
		return NULL;
	log_thread = t;
	__atomic_store_n(&go_start, 1, __ATOMIC_RELEASE);
	wait_flag(&outer_in);
	return t;
}

TEST_CASE(fgraph, switched_on_midway)
{
	go_inner = outer_in = outer_out = 0;
	go_start = 1;
	struct thread *t = thread_create("fg-outer", outer_thread, NULL, -1);
	ASSERT_TRUE(t != NULL);
	wait_flag(&outer_in);
	/* Registered while fg_outer runs: its return was never hooked, so no
	 * exit may be paired with it; the call it makes now is traced. */
	log_n = 0;
	log_thread = t;
	ASSERT_EQ(ftrace_set_filter(&rec.ops, "fg_outer fg_leaf", true), 0);
	ASSERT_EQ(register_fgraph(&rec), 0);
	__atomic_store_n(&go_inner, 1, __ATOMIC_RELEASE);
	int code = thread_join(t);
	rec_stop();
	EXPECT_EQ(code, 1500);
	EXPECT_LOG("E:fg_leaf:0 X:fg_leaf:0:5");
}

TEST_CASE(fgraph, switched_off_with_frames)
{
	go_inner = outer_in = outer_out = 0;
	log_n = 0;
	ASSERT_EQ(ftrace_set_filter(&rec.ops, "fg_outer fg_leaf", true), 0);
	ASSERT_EQ(register_fgraph(&rec), 0);
	struct thread *t = start_outer();
	ASSERT_TRUE(t != NULL);
	/* fg_outer's return is hooked now; the user goes away before it
	 * returns: it returns normally and nobody hears of it. */
	EXPECT_EQ(unregister_fgraph(&rec), 0);
	__atomic_store_n(&go_inner, 1, __ATOMIC_RELEASE);
	int code = thread_join(t);
	log_thread = NULL;
	/* Right value, no frame left: the return hook popped its frame; the
	 * trace stack's entry (its exit sled went off with the user) was
	 * dropped when the last user left (fgraph.c, ts_drop_left). */
	EXPECT_EQ(code, 1500);
	EXPECT_LOG("E:fg_outer:0");
}

/* The same ops registered again (same slot) while a frame of its first
 * registration is open: the new registration hears of its own calls only,
 * never of the old frame's return, and its data words are its own. */
TEST_CASE(fgraph, slot_reused_with_frames)
{
	go_inner = outer_in = outer_out = 0;
	log_n = 0;
	data_bad = 0;
	ASSERT_EQ(ftrace_set_filter(&rec.ops, "fg_outer fg_leaf", true), 0);
	ASSERT_EQ(register_fgraph(&rec), 0);
	int slot = rec.idx;
	struct thread *t = start_outer();
	ASSERT_TRUE(t != NULL);
	EXPECT_EQ(unregister_fgraph(&rec), 0);
	ASSERT_EQ(register_fgraph(&rec), 0);
	EXPECT_EQ(rec.idx, slot);               /* the slot is reused */
	__atomic_store_n(&go_inner, 1, __ATOMIC_RELEASE);
	int code = thread_join(t);
	rec_stop();
	EXPECT_EQ(code, 1500);
	/* fg_leaf is called inside fg_outer: the return hook's frame of the
	 * first registration still counts in its depth; the trace stack
	 * dropped that entry when the (then last) user left, so it does not. */
	if (FGRAPH_TSTACK)
		EXPECT_LOG("E:fg_outer:0 E:fg_leaf:0 X:fg_leaf:0:5");
	else
		EXPECT_LOG("E:fg_outer:0 E:fg_leaf:1 X:fg_leaf:1:5");
	EXPECT_EQ(data_bad, 0);
}

/* Eight users at once, each with its own filter and per-call data; a
 * ninth is refused. */
struct counting_user {
	struct fgraph_ops g;
	unsigned long entries, exits, bad;
};

static bool cu_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	struct counting_user *u = (struct counting_user *)g;
	if (this_cpu()->current != log_thread)
		return false;
	u->entries++;
	data[0] = (uintptr_t)u;
	data[1] = e->func + e->depth;
	return true;
}

static void cu_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	struct counting_user *u = (struct counting_user *)g;
	u->exits++;
	if (data[0] != (uintptr_t)u || data[1] != r->func + r->depth)
		u->bad++;
}

TEST_CASE(fgraph, eight_users)
{
	static struct counting_user u[FGRAPH_MAX_USERS + 1];
	log_thread = current_thread();
	int i;
	for (i = 0; i <= FGRAPH_MAX_USERS; i++) {
		memset(&u[i], 0, sizeof(u[i]));
		u[i].g.entryfunc = cu_entry;
		u[i].g.retfunc = cu_exit;
		ASSERT_EQ(ftrace_set_filter(&u[i].g.ops, i % 2 ? "fg_leaf" : "fg_mid fg_leaf", true), 0);
	}
	for (i = 0; i < FGRAPH_MAX_USERS; i++)
		ASSERT_EQ(register_fgraph(&u[i].g), 0);
	EXPECT_EQ(register_fgraph(&u[FGRAPH_MAX_USERS].g), -EBUSY);
	/* No slot for function_graph either: the tracer that was running
	 * stays (a failed switch changes nothing). */
	ASSERT_EQ(trace_filter_set(false, "fg_leaf", true), 0);
	ASSERT_EQ(tracer_set("function"), 0);
	EXPECT_EQ(tracer_set("function_graph"), -EBUSY);
	EXPECT_STREQ(tracer_current()->name, "function");
	tracer_set("nop");
	trace_filter_set(false, "", true);
	int sum = 0;
	for (int k = 0; k < 10; k++)
		sum += fg_mid(k);
	for (i = 0; i < FGRAPH_MAX_USERS; i++)
		EXPECT_EQ(unregister_fgraph(&u[i].g), 0);
	log_thread = NULL;
	EXPECT_EQ(sum, 110);
	for (i = 0; i < FGRAPH_MAX_USERS; i++) {
		unsigned long want = i % 2 ? 10 : 20;   /* fg_leaf only, or both */
		EXPECT_EQ(u[i].entries, want);
		EXPECT_EQ(u[i].exits, want);
		EXPECT_EQ(u[i].bad, 0);
	}
	EXPECT_EQ(u[FGRAPH_MAX_USERS].entries, 0);
}

/* A user without retfunc: its calls are hooked and popped (the returns
 * are right, the stack is empty after), and registered again with one, it
 * hears the exits (the core chooses its return path at each
 * registration).  Bad users are refused and left unregistered. */
static uintptr_t own_return(struct fgraph_ret_regs *rr, struct fgraph_stack *st,
			    struct fgraph_stack *outer, unsigned base, struct fgraph_ops *g)
{
	return 0;                 /* never called: registration refuses it */
}

TEST_CASE(fgraph, no_retfunc)
{
	static struct counting_user u;
	memset(&u, 0, sizeof(u));
	u.g.entryfunc = cu_entry;
	u.g.idx = -1;
	log_thread = current_thread();
	ASSERT_EQ(ftrace_set_filter(&u.g.ops, "fg_mid fg_leaf", true), 0);
	ASSERT_EQ(register_fgraph(&u.g), 0);
	int r = fg_mid(4);
	struct fgraph_stats s;
	fgraph_stats(&s);
	EXPECT_EQ(unregister_fgraph(&u.g), 0);
	EXPECT_EQ(r, 10);
	EXPECT_EQ(s.depth, 0);
	EXPECT_EQ(u.entries, 2);
	EXPECT_EQ(u.exits, 0);
	u.g.retfunc = cu_exit;
	ASSERT_EQ(register_fgraph(&u.g), 0);
	r = fg_mid(5);
	EXPECT_EQ(unregister_fgraph(&u.g), 0);
	log_thread = NULL;
	EXPECT_EQ(r, 12);
	EXPECT_EQ(u.entries, 4);
	EXPECT_EQ(u.exits, 2);
	EXPECT_EQ(u.bad, 0);
	/* A return path of its own without retfunc; no entryfunc. */
	u.g.retfunc = NULL;
	u.g.ret_handler = own_return;
	EXPECT_EQ(register_fgraph(&u.g), -EINVAL);
	EXPECT_EQ(u.g.idx, -1);
	u.g.ret_handler = NULL;
	u.g.entryfunc = NULL;
	EXPECT_EQ(register_fgraph(&u.g), -EINVAL);
	EXPECT_EQ(u.g.idx, -1);
	EXPECT_EQ(unregister_fgraph(&u.g), -EINVAL);
}

/* A registration that fails for lack of memory leaves the user as it was:
 * its entry and return paths, flags, bit and missed count. */
TEST_CASE(fgraph, failed_register_changes_nothing)
{
	static struct counting_user u;
	memset(&u, 0, sizeof(u));
	u.g.entryfunc = cu_entry;
	u.g.retfunc = cu_exit;
	u.g.idx = -1;
	u.g.nmissed = 5;
	ASSERT_EQ(ftrace_set_filter(&u.g.ops, "fg_mid fg_leaf", true), 0);
	int err = 0;
	for (unsigned k = 0; k < 16 && err != -ENOMEM; k++) {
		struct failalloc_stats st;
		failalloc_start(k, 1);
		err = register_fgraph(&u.g);
		failalloc_stop(&st);
		if (err == 0)
			EXPECT_EQ(unregister_fgraph(&u.g), 0);
		u.g.nmissed = 5;          /* what a successful one reset */
	}
	ASSERT_EQ(err, -ENOMEM);
	EXPECT_EQ(u.g.idx, -1);
	EXPECT_TRUE(u.g.ops.func == NULL);
	EXPECT_TRUE(u.g.ret_handler == NULL);
	EXPECT_EQ(u.g.ops.flags, 0);
	EXPECT_EQ(u.g.ops.graph_mask, 0);
	EXPECT_EQ(u.g.nmissed, 5);
	/* And it registers and runs afterwards. */
	log_thread = current_thread();
	ASSERT_EQ(register_fgraph(&u.g), 0);
	EXPECT_EQ(fg_mid(4), 10);
	EXPECT_EQ(unregister_fgraph(&u.g), 0);
	log_thread = NULL;
	EXPECT_EQ(u.entries, 2);
	EXPECT_EQ(u.exits, 2);
	EXPECT_EQ(u.bad, 0);
}

/* A recursion deeper than the shadow stack: the calls that do not fit are
 * counted and not hooked; everything returns right.  The test thread's
 * stack starts empty and each of rec's frames is a one-user frame, so
 * exactly FGRAPH_STACK_WORDS / FR_WORDS(1) calls fit (fgraph_inline.h). */
TEST_CASE(fgraph, overflow)
{
	enum { CALLS = 301, FIT = FGRAPH_STACK_WORDS / FR_WORDS(1) };
	_Static_assert(FIT < CALLS, "fg_rec(300) must overflow the shadow stack");
	struct fgraph_stats before, after;
	fgraph_stats(&before);
	ASSERT_EQ(before.depth, 0);
	ASSERT_TRUE(rec_start("fg_rec"));
	EXPECT_EQ(fg_rec(CALLS - 1), 45150);
	uint64_t missed = __atomic_load_n(&rec.nmissed, __ATOMIC_RELAXED);
	rec_stop();
	fgraph_stats(&after);
	unsigned hooked = log_n / 2;
	EXPECT_EQ(hooked, FIT);
	EXPECT_EQ(log_n, 2 * FIT);
	EXPECT_EQ(missed, CALLS - FIT);
	EXPECT_EQ(after.overrun - before.overrun, CALLS - FIT);
	EXPECT_EQ(after.depth, before.depth);
	/* The outermost calls were hooked, the innermost were not. */
	EXPECT_EQ(log_[0].depth, 0);
	EXPECT_EQ(log_[hooked - 1].depth, hooked - 1);
	EXPECT_EQ(log_[log_n - 1].ret, 45150);
	EXPECT_EQ(data_bad, 0);
}

/* A backtrace inside hooked functions shows the real return addresses. */
static uintptr_t bt[16];
static int bt_n;
T int fg_bt_inner(int x) { bt_n = backtrace_save(0, bt, 16); KEEP(); return x + 1; }
T int fg_bt_outer(int x) { int r = fg_bt_inner(x) + 1; KEEP(); return r; }

static bool bt_has(void *fn)
{
	for (int i = 0; i < bt_n; i++) {
		uintptr_t off, size;
		const char *name = ksym_lookup(bt[i], &off, &size);
		if (name && bt[i] - off == (uintptr_t)fn)
			return true;
	}
	return false;
}

TEST_CASE(fgraph, backtrace_real_returns)
{
	ASSERT_TRUE(rec_start("fg_bt_*"));
	EXPECT_EQ(fg_bt_outer(1), 3);
	rec_stop();
	EXPECT_EQ(log_n, 4);
	for (int i = 0; i < bt_n; i++)
		EXPECT_NE(bt[i], (uintptr_t)arch_fgraph_return_hook);
	EXPECT_TRUE(bt_has(fg_bt_outer));                     /* inner's return */
	EXPECT_TRUE(bt_has(test_fgraph_backtrace_real_returns)); /* outer's return */
}

/* A hooked call abandoned by a longjmp (fault_catch): its frame is stale
 * when the caller returns; the caller's return drops it and pairs right. */
T void fg_faulter(void *p) { *(volatile int *)p = 1; KEEP(); }
T int fg_catcher(int x)
{
	struct fault_info fi;
	int r = fault_catch(fg_faulter, (void *)8, &fi) + x;
	KEEP();
	return r;
}

TEST_CASE(fgraph, longjmp_out_of_hooked_call)
{
	ASSERT_TRUE(rec_start("fg_catcher fg_faulter"));
	EXPECT_EQ(fg_catcher(10), 11);
	EXPECT_EQ(fg_mid(1), 4);                    /* graph still working */
	rec_stop();
	EXPECT_TRUE(!ftrace_is_dead());
	/* The trace stack ends the abandoned call with a gone exit (no
	 * value) when fg_catcher's exit finds it below its sp. */
	if (FGRAPH_TSTACK)
		EXPECT_LOG("E:fg_catcher:0 E:fg_faulter:1 X:fg_faulter:1:0 X:fg_catcher:0:11");
	else
		EXPECT_LOG("E:fg_catcher:0 E:fg_faulter:1 X:fg_catcher:0:11");
}

/* Floating-point arguments and return values survive entry and exit. */
TEST_CASE(fgraph, fp_return)
{
	ASSERT_TRUE(rec_start("fg_fdiv"));
	volatile double a = 7.0, b = 2.0;
	double r = fg_fdiv(a, b);
	rec_stop();
	EXPECT_TRUE(r == 3.5);
	EXPECT_EQ(log_n, 2);
}
