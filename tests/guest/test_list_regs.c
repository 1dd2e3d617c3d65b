/*
 * test_list_regs.c — the regs list caller's own list function (suite
 * `list_regs`).
 *
 * A function whose ops are all plain callbacks has a plain run in the list
 * table, and its site calls the plain list caller.  But a CPU may still
 * execute the site's old call into the regs list caller after the update
 * made the run plain (the site was moving off a SAVE_REGS state).  The
 * regs list caller then brings a full frame, and Linux promises NULL from
 * ftrace_get_regs() to every ops that did not ask for registers.  The
 * window is reproduced exactly with arch_test_regs_list_old_site, which
 * calls the function as such an old site would: every callback must run
 * once, with the call's ip and parent, and see registers only if it asked
 * for them.
 *
 * lr_target is the traced function; noinline and an empty asm keep every
 * call a real call.
 */
#include <string.h>

#include "arch/tests.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/test.h"
#include "tests/guest/listing.h"
#include "trace/core/ftrace.h"
#include "trace/core/ftrace_internal.h"
#include "trace/core/listvec.h"
#include "trace/core/records.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T long lr_target(long x) { KEEP(); return x * 3 + 1; }

/* What one ops saw of the calls since lr_reset.  Only this test's thread
 * calls lr_target. */
struct lr_ops {
	struct ftrace_ops ops;
	unsigned long hits;
	unsigned long with_regs;     /* calls where ftrace_get_regs() was not NULL */
	unsigned long bad;           /* ip or parent not those of fregs */
	uintptr_t ip, parent;        /* of the last call */
	long arg;                    /* its argument 0 */
};

static void lr_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		  struct ftrace_regs *fregs)
{
	struct lr_ops *o = (struct lr_ops *)op;
	o->hits++;
	if (ftrace_get_regs(fregs))
		o->with_regs++;
	if (ftrace_regs_get_instruction_pointer(fregs) != ip ||
	    ftrace_regs_get_return_address(fregs) != parent)
		o->bad++;
	o->ip = ip;
	o->parent = parent;
	o->arg = (long)ftrace_regs_get_argument(fregs, 0);
}

static void lr_init(struct lr_ops *o, unsigned flags)
{
	memset(o, 0, sizeof(*o));
	o->ops.func = lr_cb;
	o->ops.flags = flags;
	EXPECT_EQ(ftrace_set_filter(&o->ops, "lr_target", true), 0);
}

static void lr_reset(struct lr_ops *const *o, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		o[i]->hits = o[i]->with_regs = o[i]->bad = 0;
		o[i]->ip = o[i]->parent = 0;
		o[i]->arg = 0;
	}
}

/* Each of o[] saw exactly one call of lr_target(arg) returning to parent,
 * with registers iff it asked for them. */
static void expect_one_call(struct lr_ops *const *o, unsigned n, long arg, uintptr_t parent)
{
	for (unsigned i = 0; i < n; i++) {
		bool regs = o[i]->ops.flags & FTRACE_OPS_FL_SAVE_REGS;
		EXPECT_EQ(o[i]->hits, 1);
		EXPECT_EQ(o[i]->with_regs, regs ? 1 : 0);
		EXPECT_EQ(o[i]->bad, 0);
		EXPECT_EQ(o[i]->ip, (uintptr_t)lr_target);
		EXPECT_EQ(o[i]->arg, arg);
		if (parent)
			EXPECT_EQ(o[i]->parent, parent);
	}
}

/* Does enabled_functions list lr_target with `count` ops, R as `regs`,
 * calling `fn` (what its list caller calls)? */
static void expect_listed(unsigned count, bool regs, ftrace_func_t fn)
{
	static struct listing l;
	char want[160], sym[96];
	enabled_listing(&l);
	ksym_format(sym, sizeof(sym), (uintptr_t)fn);
	/* Linux's layout (enabled_functions.c): flags R, D, O, then " ->". */
	ksnprintf(want, sizeof(want), "lr_target (%u)%s  %s%s    ->%s\n", count,
		  regs ? " R" : "  ", "  ", "  ", sym);
	const char *at = strstr(l.text, "lr_target (");
	EXPECT_TRUE(at != NULL && strncmp(at, want, strlen(want)) == 0);
	if (!at || strncmp(at, want, strlen(want)) != 0)
		kprintf("    # want: %s    # got:  %s\n", want, at ? at : "(no lr_target line)");
}

/* Is lr_target's run in the published list table plain? */
static bool run_is_plain(void)
{
	const struct listvec *v = ftrace_list_table_get();
	const struct listvec_entry *e = v ? listvec_find(v, (uintptr_t)lr_target) : NULL;
	return e && e->plain;
}

TEST_CASE(list_regs, plain_run_through_the_regs_caller_hides_regs)
{
	static struct lr_ops a, b;
	struct lr_ops *const all[] = { &a, &b };
	const uintptr_t ret = (uintptr_t)arch_test_regs_list_old_site_ret;
	lr_init(&a, 0);
	lr_init(&b, 0);
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	ASSERT_EQ(register_ftrace_function(&b.ops), 0);
	/* The state the window leaves: two plain ops, a plain run, the site
	 * on the plain list caller. */
	struct ftrace_rec *r = rec_find((uintptr_t)lr_target);
	EXPECT_EQ(r->flags & (FREC_REF_MASK | FREC_REGS_EN | FREC_TRAMP_EN | FREC_CALL_OPS_EN |
			      FREC_DIRECT_EN | FREC_ENABLED),
		  FREC_ENABLED | 2);
	EXPECT_TRUE(run_is_plain());
	expect_listed(2, false, ftrace_ops_list_func);

	lr_reset(all, 2);
	EXPECT_EQ(lr_target(4), 13);
	expect_one_call(all, 2, 4, 0);

	/* The old site's call: the regs list caller, a full frame. */
	lr_reset(all, 2);
	EXPECT_EQ(arch_test_regs_list_old_site(7, (uintptr_t)lr_target), 22);
	expect_one_call(all, 2, 7, ret);

	EXPECT_EQ(unregister_ftrace_function(&b.ops), 0);
	EXPECT_EQ(unregister_ftrace_function(&a.ops), 0);
	EXPECT_EQ(r->flags, 0);
}

TEST_CASE(list_regs, mixed_run_shows_regs_to_save_regs_ops_only)
{
	static struct lr_ops a, b, c;
	struct lr_ops *const all[] = { &a, &b, &c };
	const uintptr_t ret = (uintptr_t)arch_test_regs_list_old_site_ret;
	lr_init(&a, 0);
	lr_init(&b, 0);
	lr_init(&c, FTRACE_OPS_FL_SAVE_REGS);
	ASSERT_EQ(register_ftrace_function(&a.ops), 0);
	ASSERT_EQ(register_ftrace_function(&c.ops), 0);
	ASSERT_EQ(register_ftrace_function(&b.ops), 0);
	struct ftrace_rec *r = rec_find((uintptr_t)lr_target);
	EXPECT_EQ(r->flags & (FREC_REF_MASK | FREC_REGS_EN | FREC_TRAMP_EN | FREC_CALL_OPS_EN |
			      FREC_DIRECT_EN | FREC_ENABLED),
		  FREC_ENABLED | FREC_REGS_EN | 3);
	EXPECT_TRUE(!run_is_plain());
	expect_listed(3, true, ftrace_ops_list_regs_func);

	/* The site's own call, then the shim's: the same caller either way. */
	lr_reset(all, 3);
	EXPECT_EQ(lr_target(5), 16);
	expect_one_call(all, 3, 5, 0);
	lr_reset(all, 3);
	EXPECT_EQ(arch_test_regs_list_old_site(8, (uintptr_t)lr_target), 25);
	expect_one_call(all, 3, 8, ret);

	/* The SAVE_REGS ops leaves: its run turns plain, and the old site's
	 * call still finds the frame hidden. */
	EXPECT_EQ(unregister_ftrace_function(&c.ops), 0);
	EXPECT_TRUE(run_is_plain());
	lr_reset(all, 2);
	c.hits = 0;
	EXPECT_EQ(arch_test_regs_list_old_site(9, (uintptr_t)lr_target), 28);
	expect_one_call(all, 2, 9, ret);
	EXPECT_EQ(c.hits, 0);

	EXPECT_EQ(unregister_ftrace_function(&b.ops), 0);
	EXPECT_EQ(unregister_ftrace_function(&a.ops), 0);
	EXPECT_EQ(r->flags, 0);
}
