/*
 * direct_harness.c — the helpers of the direct trampoline suites
 * (direct_harness.h): a counting callback ops, enabled_functions captured
 * as one string, a direct trampoline's line in it, and checked calls.
 * Test context only (thread, no lock held); dcount_cb runs in any context
 * its function is called in and only adds with atomics.
 */
#include <string.h>

#include "boot/console.h"
#include "boot/ksyms.h"
#include "tests/guest/direct_harness.h"
#include "trace/core/ftrace.h"

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

void dcount_init(struct dcount *c, const char *name, uintptr_t func, unsigned flags)
{
	memset(c, 0, sizeof(*c));
	c->ops.func = dcount_cb;
	c->ops.flags = flags;
	c->func = func;
	ftrace_set_filter(&c->ops, name, true);
}

/* With callbacks the site calls the regs list caller, which the line names
 * by its list function. */
const char *direct_line(char *buf, size_t size, const char *name, unsigned count, bool regs,
			void (*direct)(void))
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

unsigned wrong_calls(int (*f)(int), int n, int mul, int add)
{
	unsigned wrong = 0;
	for (int i = 0; i < n; i++)
		wrong += f(i) != mul * i + add;
	return wrong;
}
