/*
 * test_arch_ftrace.c — the cases of suite arch_ftrace that both arches
 * share, written once over one harness: an ops trampoline hands its
 * callback the function's arguments, parent, stack and frame-pointer chain;
 * the two test direct trampolines (arch/<arch>/DIRECT.md) run and leave.
 * The suite's other cases, the ones that depend on an encoding or a
 * register file, are the arch's own (arch/<arch>/tests/ftrace_selftest.c);
 * this file's run after them (link order).
 *
 * Each arch supplies only the assembly (arch/tests.h): a function with a
 * hand-made site as its compiler leaves one, which the record table does not
 * know, and a caller that records its stack and frame pointers at the call.
 * The harness drives that site with patch_apply() (as the ftrace update does,
 * preemption off) and takes its trampolines from the pool (tramp_alloc()).
 * Thread context, one case at a time, like every suite.
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "arch/tests.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "patch/patch.h"
#include "patch/tramp.h"
#include "trace/core/ftrace.h"
#include "tests/guest/trace_seen.h"

/* ---- the site: arch_test_site3, state kept here ---- */

/* The data word a site holds (where it has one), for ops `p`. */
#define SITE_DATA(p) (ARCH_SITE_HAS_DATA ? (uintptr_t)(p) : 0)

static struct {
	uintptr_t target, data;        /* what the site holds now */
	bool ready;
} site3;

/* Initialise the site once per boot (disabled, the list ops as data, as
 * boot does); false and a failure if that did not work. */
static bool site3_ready(void)
{
	if (!site3.ready) {
		int err = arch_site_init((uintptr_t)arch_test_site3, (uintptr_t)&ftrace_list_ops);
		if (err) {
			test_fail(__FILE__, __LINE__, "arch_site_init(arch_test_site3) = %d", err);
			return false;
		}
		site3.data = SITE_DATA(&ftrace_list_ops);
		site3.ready = true;
	}
	return true;
}

/* Move the site to call `target` (0: disabled) with data word for `op`:
 * patch_apply()'s result. */
static int site3_set(uintptr_t target, struct ftrace_ops *op)
{
	struct patch_site s = { (uintptr_t)arch_test_site3, site3.target, target,
				site3.data, SITE_DATA(op) };
	unsigned bad;
	preempt_disable();                 /* as under the ftrace lock */
	int err = patch_apply(&s, 1, &bad);
	preempt_enable();
	if (!err) {
		site3.target = target;
		site3.data = SITE_DATA(op);
	}
	return err;
}

/* The site's bytes (and data word) are target's encoding. */
static bool site3_is(uintptr_t target)
{
	uint8_t want[ARCH_SITE_SIZE];
	uintptr_t f = (uintptr_t)arch_test_site3;
	return arch_site_encode(f, target, want) == 0 &&
	       memcmp((const void *)f, want, ARCH_SITE_SIZE) == 0 &&
	       arch_site_data(f) == site3.data;
}

/* An ops trampoline for `op` from the pool, or 0. */
static uintptr_t tramp_for(struct ftrace_ops *op)
{
	static uint8_t buf[ARCH_TRAMP_SIZE];
	uintptr_t slot = tramp_alloc();
	if (!slot)
		return 0;
	int len = arch_tramp_build(buf, slot, op, (void *)op->call, ARCH_TRAMP_ARGS);
	if (len <= 0 || len > ARCH_TRAMP_SIZE) {
		tramp_free(slot);
		return 0;
	}
	tramp_write(slot, buf, (size_t)len);
	return slot;
}

/* ---- a recording callback ---- */

static struct trace_seen seen;

static void record_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		      struct ftrace_regs *f)
{
	trace_seen_record(&seen, ip, parent, op, f);
}

static struct ftrace_ops rec_ops = { .call = record_cb, .regs_call = record_cb, .func = record_cb };

/* ---- cases ---- */

TEST_CASE(arch_ftrace, trampoline_sees_arguments)
{
	ARCH_FTRACE_FENTRY_SITES();
	uintptr_t f = (uintptr_t)arch_test_site3, ret = (uintptr_t)arch_test_call_site3_ret;
	ASSERT_TRUE(site3_ready());
	uintptr_t slot = tramp_for(&rec_ops);
	ASSERT_TRUE(slot != 0);
	memset(&seen, 0, sizeof(seen));
	ASSERT_EQ(site3_set(slot, &rec_ops), 0);
	EXPECT_TRUE(site3_is(slot));

	EXPECT_EQ(arch_test_call_site3(1, 2, 3), 123);
	EXPECT_EQ(seen.hits, 1);
	EXPECT_EQ(seen.ip, f);
	EXPECT_EQ(seen.pc, f);
	EXPECT_EQ(seen.parent, ret);
	EXPECT_EQ(seen.ret, ret);
	EXPECT_TRUE(ksym_lookup(seen.parent, &(uintptr_t){ 0 }, &(uintptr_t){ 0 }) != NULL);
	EXPECT_EQ(seen.op, &rec_ops);
	EXPECT_EQ(seen.arg[0], 1);
	EXPECT_EQ(seen.arg[1], 2);
	EXPECT_EQ(seen.arg[2], 3);
	/* The stack pointer at the function's entry: the caller's at the call,
	 * less what the call pushed; the frame pointer the caller's. */
	EXPECT_EQ(seen.sp, arch_test_caller[0] - ARCH_CALL_PUSH);
	EXPECT_EQ(seen.fp, arch_test_caller[1]);
	EXPECT_TRUE(seen.regs == NULL);
	/* callback -> trampoline -> traced function -> its caller */
	EXPECT_TRUE(seen.chain[0] > slot && seen.chain[0] < slot + ARCH_TRAMP_SIZE);
	EXPECT_EQ(seen.chain[1], f + ARCH_SITE_SIZE);
	EXPECT_EQ(seen.chain[2], ret);
	EXPECT_EQ(seen.chain_fp2, arch_test_caller[1]);

	/* Back to disabled: silence. */
	ASSERT_EQ(site3_set(0, &rec_ops), 0);
	EXPECT_TRUE(site3_is(0));
	EXPECT_EQ(arch_test_call_site3(4, 5, 6), 456);
	EXPECT_EQ(seen.hits, 1);
	tramp_free(slot);
}

/* The test direct trampolines of arch/<arch>/DIRECT.md: the first counts
 * and goes on into the function, the second runs the body itself. */
TEST_CASE(arch_ftrace, direct_trampolines)
{
	ARCH_FTRACE_FENTRY_SITES();
	ASSERT_TRUE(site3_ready());
	uint64_t before = __atomic_load_n(&arch_test_direct_hits, __ATOMIC_RELAXED);
	ASSERT_EQ(site3_set((uintptr_t)arch_test_direct_tramp, NULL), 0);
	EXPECT_EQ(arch_test_call_site3(1, 2, 3), 123);
	EXPECT_EQ(arch_test_call_site3(4, 5, 6), 456);
	EXPECT_EQ(arch_test_direct_hits - before, 2);
	ASSERT_EQ(site3_set((uintptr_t)arch_test_direct_tramp_body, NULL), 0);
	EXPECT_EQ(arch_test_call_site3(1, 2, 3), 1123);
	EXPECT_EQ(arch_test_site3(0, 0, 7), 1007);
	ASSERT_EQ(site3_set(0, NULL), 0);
	EXPECT_EQ(arch_test_call_site3(1, 2, 3), 123);
	EXPECT_EQ(arch_test_direct_hits - before, 2);
}
