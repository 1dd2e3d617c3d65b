/*
 * test_ftrace_regs.c — the traced call's registers, as a callback sees and
 * uses them (suite `ftrace`), on every path a site can take: an ops' own
 * trampoline (plain, SAVE_REGS) and the list caller (plain, regs).  FP/SIMD
 * arguments and results survive callbacks that use those registers
 * themselves; the ftrace_regs accessors give exact arguments, stack and
 * frame pointers, return address and ip; and an FTRACE_OPS_FL_NOFP ops
 * (the function tracer's) gets a trampoline that saves no FP/SIMD state,
 * refused to a callback that might touch it.  The ops core's cases are
 * test_ftrace.c's; fn_events: ftrace_harness.h.
 *
 * The ft_* functions are this file's traced targets; noinline and an empty
 * asm keep every call a real call.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "boot/sched.h"
#include "boot/test.h"
#include "patch/patch.h"
#include "tests/guest/ftrace_harness.h"
#include "trace/ftrace.h"
#include "trace/records.h"
#include "trace/function.h"
#include "trace/global_ops.h"
#include "trace/trace.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T double ft_fp(double a, double b, int k) { KEEP(); return a * b + k; }

/* ---- the paths a site can take to its callbacks ---- */

/* A callback's ops and how often it ran (first in each probe below). */
struct path_ops {
	struct ftrace_ops ops;
	unsigned long hits;
};

/* Which of three ops (0 and 1 plain, 2 SAVE_REGS) are on the function, and
 * the record state that gives: an ops' own trampoline (plain, SAVE_REGS),
 * the list caller and the regs list caller. */
static const struct call_path {
	int ops[2];
	uint32_t flags;
	const char *what;
} call_paths[] = {
	{ { 0, -1 }, FREC_TRAMP_EN | 1, "own trampoline" },
	{ { 2, -1 }, FREC_TRAMP_EN | FREC_REGS_EN | 1, "own SAVE_REGS trampoline" },
	{ { 0, 1 }, 2, "list caller" },
	{ { 0, 2 }, FREC_REGS_EN | 2, "regs list caller" },
};
#define NPATHS (sizeof(call_paths) / sizeof(call_paths[0]))

/* all[0..2] zeroed, calling cb on the function `name`, all[2] SAVE_REGS. */
static void paths_init(struct path_ops *const all[3], ftrace_func_t cb, const char *name)
{
	for (int i = 0; i < 3; i++) {
		memset(&all[i]->ops, 0, sizeof(all[i]->ops));
		all[i]->hits = 0;
		all[i]->ops.func = cb;
		ASSERT_EQ(ftrace_set_filter(&all[i]->ops, name, true), 0);
	}
	all[2]->ops.flags = FTRACE_OPS_FL_SAVE_REGS;
}

/* Path p on func: its ops registered (the record's state checked), run()
 * makes `calls` calls, its ops unregistered; each of all[] ran exactly
 * `calls` times if on the path, else never.  *on_out: the mask of the
 * ops on it (0 if one could not be registered). */
static void path_run(struct path_ops *const all[3], const struct call_path *p, uintptr_t func,
		     void (*run)(const struct call_path *p), unsigned long calls, unsigned *on_out)
{
	unsigned long before[3];
	unsigned on = 0;
	*on_out = 0;
	for (int i = 0; i < 3; i++)
		before[i] = all[i]->hits;
	for (int k = 0; k < 2 && p->ops[k] >= 0; k++) {
		ASSERT_EQ(register_ftrace_function(&all[p->ops[k]]->ops), 0);
		on |= 1u << p->ops[k];
	}
	EXPECT_EQ(rec_find(func)->flags & (FREC_TRAMP_EN | FREC_REGS_EN | FREC_REF_MASK), p->flags);
	run(p);
	for (int k = 0; k < 2 && p->ops[k] >= 0; k++)
		EXPECT_EQ(unregister_ftrace_function(&all[p->ops[k]]->ops), 0);
	for (int i = 0; i < 3; i++) {
		unsigned long n = all[i]->hits - before[i], want = (on >> i) & 1 ? calls : 0;
		if (n != want)
			test_fail(__FILE__, __LINE__, "%s: ops %d called %lu times, want %lu",
				  p->what, i, n, want);
	}
	EXPECT_EQ(rec_find(func)->flags, 0);
	*on_out = on;
}

/*
 * FP/SIMD arguments and the result of a traced `double f(double, double)`
 * survive callbacks that use those registers themselves, on every path a
 * site can take: an ops' own trampoline (plain, and SAVE_REGS), the list
 * caller (two plain ops) and its regs variant (plain + SAVE_REGS).  Each
 * callback's calls are counted exactly.
 */
T double ft_dd(double a, double b) { KEEP(); return a * b - a / b; }

/* Takes junk in the first four FP/SIMD argument registers (xmm0-3, v0-3). */
T double fp_junk(double a, double b, double c, double d) { KEEP(); return a * b + c * d; }

static volatile double fp_sink;

static void fp_clobber_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
			  struct ftrace_regs *fregs)
{
	struct path_ops *c = (struct path_ops *)op;
	double x = 1.5;
	for (int i = 0; i < 8; i++)
		x = x * 3.25 - 0.5;
	fp_sink = fp_junk(x, -x, 1e300, -7.25e-300);
	__atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
}

static const double fp_a = 2.5, fp_b = -4.0;

/* Five calls of ft_dd, each result exact. */
static void fp_run(const struct call_path *p)
{
	const double want = fp_a * fp_b - fp_a / fp_b;   /* computed here, untraced */
	unsigned bad = 0;
	for (int i = 0; i < 5; i++)
		bad += ft_dd(fp_a, fp_b) != want;
	if (bad)
		test_fail(__FILE__, __LINE__, "%s: %u of 5 results wrong", p->what, bad);
}

TEST_CASE(ftrace, fp_arguments_survive_callbacks)
{
	static struct path_ops plain, plain2, regs;
	struct path_ops *const all[3] = { &plain, &plain2, &regs };
	paths_init(all, fp_clobber_cb, "ft_dd");
	unsigned on;
	for (unsigned p = 0; p < NPATHS; p++)
		path_run(all, &call_paths[p], (uintptr_t)ft_dd, fp_run, 5, &on);
	EXPECT_TRUE(ft_dd(fp_a, fp_b) == fp_a * fp_b - fp_a / fp_b);
}

/*
 * The ftrace_regs accessors give exact values on every path: arguments 0 ..
 * ARCH_FTRACE_NARGS - 1 (the argument registers; 0 beyond), the stack
 * pointer at the function's entry (the compiler's CFA less what the call
 * pushed, ARCH_CALL_PUSH), the caller's frame pointer, the return address
 * and the instruction pointer, each against what the traced function and
 * its caller see themselves.  (The return-value accessor means something
 * only at a function's exit, where this core passes no ftrace_regs:
 * fgraph's exit has fgraph_ret_regs, whose value the fprobe suite checks.)
 */
static struct {
	uintptr_t ret, caller_fp, cfa, callers_fp;
} acc_seen;

T long ft_args8(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7)
{
	acc_seen.ret = (uintptr_t)__builtin_return_address(0);
	acc_seen.caller_fp = *(const uintptr_t *)__builtin_frame_address(0);
	/* The CFA (the stack pointer before the call) is just above the frame
	 * record {caller's fp, return address}: this function keeps nothing
	 * else on its stack, under either compiler.  Not __builtin_dwarf_cfa():
	 * clang 14 on arm64 returns the frame record's address from it. */
	acc_seen.cfa = (uintptr_t)__builtin_frame_address(0) + 2 * sizeof(uintptr_t);
	KEEP();
	return a0 + 2 * a1 + 3 * a2 + 4 * a3 + 5 * a4 + 6 * a5 + 7 * a6 + 8 * a7;
}

#define ACC_ARG(i) (0x1000l + 0x111l * (i))

/* Not a tail call (KEEP after it): ft_args8's caller is this function. */
T long ft_args8_caller(void)
{
	acc_seen.callers_fp = (uintptr_t)__builtin_frame_address(0);
	long r = ft_args8(ACC_ARG(0), ACC_ARG(1), ACC_ARG(2), ACC_ARG(3), ACC_ARG(4), ACC_ARG(5),
			  ACC_ARG(6), ACC_ARG(7));
	KEEP();
	return r;
}

struct acc_probe {
	struct path_ops po;          /* first: the callback's op is &po.ops */
	uintptr_t ip, parent, arg[ARCH_FTRACE_NARGS + 1], sp, fp, ret, pc;
	bool regs;
};

static void acc_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		   struct ftrace_regs *f)
{
	struct acc_probe *p = (struct acc_probe *)op;
	p->po.hits++;
	p->ip = ip;
	p->parent = parent;
	for (unsigned i = 0; i <= ARCH_FTRACE_NARGS; i++)
		p->arg[i] = ftrace_regs_get_argument(f, i);
	p->sp = ftrace_regs_get_stack_pointer(f);
	p->fp = ftrace_regs_get_frame_pointer(f);
	p->ret = ftrace_regs_get_return_address(f);
	p->pc = ftrace_regs_get_instruction_pointer(f);
	p->regs = ftrace_get_regs(f) != NULL;
}

/* What p saw of the last call, against the function's own view. */
static void acc_check(const struct acc_probe *p, const char *what)
{
	unsigned bad_args = 0;
	for (unsigned i = 0; i < ARCH_FTRACE_NARGS; i++)
		bad_args += p->arg[i] != (uintptr_t)ACC_ARG(i);
	if (bad_args || p->arg[ARCH_FTRACE_NARGS] != 0)
		test_fail(__FILE__, __LINE__, "%s: %u of %u arguments wrong, one past the last %lx",
			  what, bad_args, ARCH_FTRACE_NARGS, (unsigned long)p->arg[ARCH_FTRACE_NARGS]);
	if (p->ip != (uintptr_t)ft_args8 || p->pc != p->ip)
		test_fail(__FILE__, __LINE__, "%s: ip %lx, accessor %lx, function %lx", what,
			  (unsigned long)p->ip, (unsigned long)p->pc, (unsigned long)ft_args8);
	if (p->parent != acc_seen.ret || p->ret != acc_seen.ret)
		test_fail(__FILE__, __LINE__, "%s: parent %lx, accessor %lx, function's %lx", what,
			  (unsigned long)p->parent, (unsigned long)p->ret, (unsigned long)acc_seen.ret);
	if (p->fp != acc_seen.caller_fp || p->fp != acc_seen.callers_fp)
		test_fail(__FILE__, __LINE__, "%s: frame pointer %lx, saved %lx, caller's %lx", what,
			  (unsigned long)p->fp, (unsigned long)acc_seen.caller_fp,
			  (unsigned long)acc_seen.callers_fp);
	if (p->sp != acc_seen.cfa - ARCH_CALL_PUSH)
		test_fail(__FILE__, __LINE__, "%s: stack pointer %lx, entry's %lx", what,
			  (unsigned long)p->sp, (unsigned long)(acc_seen.cfa - ARCH_CALL_PUSH));
	if (p->regs != ((p->po.ops.flags & FTRACE_OPS_FL_SAVE_REGS) != 0))
		test_fail(__FILE__, __LINE__, "%s: ftrace_get_regs %s", what,
			  p->regs ? "not NULL" : "NULL");
}

/* One call of ft_args8 through its caller, the result exact. */
static void acc_run(const struct call_path *p)
{
	long want = 0;
	for (int i = 0; i < 8; i++)
		want += (i + 1) * ACC_ARG(i);
	EXPECT_EQ(ft_args8_caller(), want);
}

TEST_CASE(ftrace, regs_accessors_exact)
{
	static struct acc_probe plain, plain2, regs;
	struct acc_probe *const probe[3] = { &plain, &plain2, &regs };
	struct path_ops *const all[3] = { &plain.po, &plain2.po, &regs.po };
	paths_init(all, acc_cb, "ft_args8");
	for (unsigned p = 0; p < NPATHS; p++) {
		unsigned on;
		path_run(all, &call_paths[p], (uintptr_t)ft_args8, acc_run, 1, &on);
		for (int i = 0; i < 3; i++)
			if ((on >> i) & 1)
				acc_check(probe[i], call_paths[p].what);
	}
}

/*
 * The function tracer's ops is FTRACE_OPS_FL_NOFP: on a function of its own
 * the site calls a trampoline that leaves the FP/SIMD registers alone (its
 * callback never touches them: tools/check-nofp.py proves it at build time),
 * and the function still gets its FP arguments.  NOFP is refused for a
 * callback outside FTRACE_HOT_NOFP or one that does not guard recursion.
 */
TEST_CASE(ftrace, nofp_ops)
{
	double want = ft_fp(2.5, 4.0, 3);
	thread_migrate(current_thread(), 0);
	ASSERT_EQ(trace_filter_set(false, "ft_fp", true), 0);
	rb_record_off(trace_buffer);
	ASSERT_EQ(rb_reset(trace_buffer, RB_ALL_CPUS), 0);
	rb_record_on(trace_buffer);
	ASSERT_EQ(register_ftrace_function(&function_ops), 0);
	struct ftrace_rec *r = rec_find((uintptr_t)ft_fp);
	ASSERT_TRUE(r != NULL);
	EXPECT_TRUE((r->flags & FREC_TRAMP_EN) && function_ops.tramp != 0);   /* its own */
	/* ... built from the NOFP template, which is not the ARGS one. */
	static uint8_t nofp[ARCH_TRAMP_SIZE], args[ARCH_TRAMP_SIZE];
	int nlen = arch_tramp_build(nofp, function_ops.tramp, &function_ops,
				    (void *)function_ops.call, ARCH_TRAMP_NOFP);
	int alen = arch_tramp_build(args, function_ops.tramp, &function_ops,
				    (void *)function_ops.call, ARCH_TRAMP_ARGS);
	ASSERT_TRUE(nlen > 0 && alen > 0);
	EXPECT_TRUE(nlen != alen || memcmp(nofp, args, (size_t)nlen) != 0);
	EXPECT_EQ(memcmp((const void *)function_ops.tramp, nofp, (size_t)nlen), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(ft_fp(2.5, 4.0, 3) == want);
	ASSERT_EQ(unregister_ftrace_function(&function_ops), 0);
	EXPECT_EQ(fn_events((uintptr_t)ft_fp), 3);
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);

	static struct ftrace_ops not_hot = { .func = fp_clobber_cb, .flags = FTRACE_OPS_FL_NOFP };
	static struct ftrace_ops not_nofp = { .func = ftrace_ops_list_func,   /* FTRACE_HOT only */
					      .flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NOFP };
	EXPECT_EQ(register_ftrace_function(&not_hot), -EINVAL);
	EXPECT_EQ(register_ftrace_function(&not_nofp), -EINVAL);
	EXPECT_TRUE(!(not_hot.flags & FTRACE_OPS_FL_ENABLED));
	EXPECT_TRUE(!(not_nofp.flags & FTRACE_OPS_FL_ENABLED));
	EXPECT_EQ(not_nofp.tramp, 0);
}
