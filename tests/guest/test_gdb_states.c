/*
 * test_gdb_states.c — every kind of site state at once, for the gdb
 * checks (suite `gdb_states`, run only when named: it stops for
 * tools/gdb_checks.py, which compares tools/gdb/baretrace.py's bt-enabled
 * with the enabled_functions the guest prints, line for line, and each
 * line with the one that state must have).
 *
 * One traced function per state (trace/enabled_functions.c's branches):
 *   gs_tramp       a plain ops alone: its own trampoline
 *   gs_tramp_regs  a SAVE_REGS ops alone: its own trampoline, R
 *   gs_list        two plain ops: the list caller
 *   gs_list_regs   a plain and a SAVE_REGS ops: the regs list caller, R
 *   gs_direct      a direct trampoline alone
 *   gs_direct_ops  a direct trampoline and a plain ops: the regs list caller
 *   gs_pool        a plain ops the full pool left without a trampoline:
 *                  CALL_OPS where sites carry a data word, else the list caller
 *   gs_pool_regs   the same with SAVE_REGS: CALL_OPS R, else the regs list caller
 *   gs_fill        the ops that fill the pool (pool_fill): a list site
 * Then everything goes and every record is back to flags 0.
 *
 * The gs_* functions are this file's traced targets; noinline and an empty
 * asm keep every call a real call.
 */
#include <string.h>

#include "arch/tests.h"
#include "boot/console.h"
#include "boot/test.h"
#include "patch/patch.h"
#include "tests/guest/direct_harness.h"
#include "tests/guest/ftrace_harness.h"
#include "trace/ftrace.h"
#include "trace/records.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int gs_tramp(int x) { KEEP(); return x + 41; }
T int gs_tramp_regs(int x) { KEEP(); return x + 42; }
T int gs_list(int x) { KEEP(); return x + 43; }
T int gs_list_regs(int x) { KEEP(); return x + 44; }
T int gs_direct(int x) { KEEP(); return x + 45; }
T int gs_direct_ops(int x) { KEEP(); return x + 46; }
T int gs_pool(int x) { KEEP(); return x + 47; }
T int gs_pool_regs(int x) { KEEP(); return x + 48; }
T int gs_fill(int x) { KEEP(); return x + 49; }

/* tests/gdb/gdb_states.gdb breaks here and runs bt-enabled. */
T void gdb_states_stop(void)
{
	KEEP();
}

#define GS_FLAGS (FREC_REF_MASK | FREC_REGS_EN | FREC_TRAMP_EN | FREC_DIRECT_EN | FREC_CALL_OPS_EN)

/* The record of f has the state `want` (its GS_FLAGS bits). */
static void expect_state(int line, int (*f)(int), const char *name, uint32_t want)
{
	struct ftrace_rec *r = rec_find((uintptr_t)f);
	uint32_t got = r ? r->flags & GS_FLAGS : 0xffffffffu;
	if (got != want)
		test_fail(__FILE__, line, "%s: flags 0x%x, want 0x%x", name, got, want);
}
#define EXPECT_STATE(f, want) expect_state(__LINE__, f, #f, want)

enum { OPS_TRAMP, OPS_TRAMP_REGS, OPS_LIST_A, OPS_LIST_B, OPS_LREGS_PLAIN, OPS_LREGS_REGS,
       OPS_DIRECT_OPS, OPS_POOL, OPS_POOL_REGS, NOPS };

/* What each ops is attached to, and its flags. */
static const struct {
	const char *name;
	int (*f)(int);
	unsigned flags;
} gs_ops[NOPS] = {
	[OPS_TRAMP] = { "gs_tramp", gs_tramp, 0 },
	[OPS_TRAMP_REGS] = { "gs_tramp_regs", gs_tramp_regs, FTRACE_OPS_FL_SAVE_REGS },
	[OPS_LIST_A] = { "gs_list", gs_list, 0 },
	[OPS_LIST_B] = { "gs_list", gs_list, 0 },
	[OPS_LREGS_PLAIN] = { "gs_list_regs", gs_list_regs, 0 },
	[OPS_LREGS_REGS] = { "gs_list_regs", gs_list_regs, FTRACE_OPS_FL_SAVE_REGS },
	[OPS_DIRECT_OPS] = { "gs_direct_ops", gs_direct_ops, 0 },
	[OPS_POOL] = { "gs_pool", gs_pool, 0 },
	[OPS_POOL_REGS] = { "gs_pool_regs", gs_pool_regs, FTRACE_OPS_FL_SAVE_REGS },
};

/* Each function once; the sum of their results for x = 1. */
static int call_all(void)
{
	return gs_tramp(1) + gs_tramp_regs(1) + gs_list(1) + gs_list_regs(1) + gs_direct(1) +
	       gs_direct_ops(1) + gs_pool(1) + gs_pool_regs(1) + gs_fill(1);
}
#define CALL_ALL_SUM (41 + 42 + 43 + 44 + 45 + 46 + 47 + 48 + 49 + 9)

/* Every state registered, listed between "==== enabled_functions" and
 * "==== end", the stop; then each function called once (each ops called
 * once, the direct trampoline twice) and everything undone. */
TEST_CASE_FLAGS(gdb_states, every_state_listed, TEST_MANUAL)
{
	static struct dcount c[NOPS];
	static struct ftrace_ops d;
	static struct listing l;
	struct ftrace_ops *fill;
	unsigned nfill, o = 0;
	uint32_t call_ops = ARCH_SITE_HAS_DATA ? FREC_CALL_OPS_EN : 0;

	memset(&d, 0, sizeof(d));
	ASSERT_EQ(ftrace_set_filter(&d, "gs_direct gs_direct_ops", true), 0);
	ASSERT_EQ(register_ftrace_direct(&d, (uintptr_t)arch_test_direct_tramp), 0);
	for (unsigned i = 0; i < NOPS; i++)
		dcount_init(&c[i], gs_ops[i].name, (uintptr_t)gs_ops[i].f, gs_ops[i].flags);
	/* EXPECT only from here: everything registered is undone below on
	 * every path. */
	for (; o < OPS_POOL; o++)
		EXPECT_EQ(register_ftrace_function(&c[o].ops), 0);
	pool_fill("gs_fill", &fill, &nfill);
	EXPECT_TRUE(fill != NULL && nfill > 1);
	for (; fill && o < NOPS; o++)
		EXPECT_EQ(register_ftrace_function(&c[o].ops), 0);

	EXPECT_STATE(gs_tramp, 1 | FREC_TRAMP_EN);
	EXPECT_STATE(gs_tramp_regs, 1 | FREC_TRAMP_EN | FREC_REGS_EN);
	EXPECT_STATE(gs_list, 2);
	EXPECT_STATE(gs_list_regs, 2 | FREC_REGS_EN);
	EXPECT_STATE(gs_direct, 1 | FREC_DIRECT_EN);
	EXPECT_STATE(gs_direct_ops, 2 | FREC_DIRECT_EN);
	EXPECT_STATE(gs_pool, 1 | call_ops);
	EXPECT_STATE(gs_pool_regs, 1 | call_ops | FREC_REGS_EN);
	EXPECT_STATE(gs_fill, nfill);
	EXPECT_EQ(c[OPS_POOL].ops.tramp, 0);
	EXPECT_EQ(c[OPS_POOL_REGS].ops.tramp, 0);
	enabled_listing(&l);
	EXPECT_EQ(l.lines, 9);
	EXPECT_TRUE(l.len + 1 < sizeof(l.text));       /* not cut */
	/* Longer than one kprintf: written as it is. */
	kprintf("==== enabled_functions\n");
	console_write(l.text, l.len);
	kprintf("==== end\n");
	gdb_states_stop();

	uint64_t h0 = arch_test_direct_hits;
	EXPECT_EQ(call_all(), CALL_ALL_SUM);
	EXPECT_EQ(arch_test_direct_hits - h0, 2);
	for (unsigned i = 0; i < o; i++) {
		if (c[i].hits != 1 || c[i].bad)
			test_fail(__FILE__, __LINE__, "ops %u on %s: %lu calls, %lu bad (want 1, 0)",
				  i, gs_ops[i].name, c[i].hits, c[i].bad);
	}

	while (o--)
		EXPECT_EQ(unregister_ftrace_function(&c[o].ops), 0);
	if (fill)
		pool_release(fill, nfill);
	EXPECT_EQ(unregister_ftrace_direct(&d), 0);
	EXPECT_EQ(call_all(), CALL_ALL_SUM);
	EXPECT_EQ(arch_test_direct_hits - h0, 2);
	int (*const all[])(int) = { gs_tramp, gs_tramp_regs, gs_list, gs_list_regs, gs_direct,
				    gs_direct_ops, gs_pool, gs_pool_regs, gs_fill };
	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct ftrace_rec *r = rec_find((uintptr_t)all[i]);
		EXPECT_TRUE(r != NULL && r->flags == 0);
	}
	EXPECT_STREQ(enabled_listing(&l), "");
}
