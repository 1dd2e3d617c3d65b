/*
 * test_graph_args.c — suite `graph_args`: funcgraph-args without
 * funcgraph-args-string, where the entry decides by fsig_filter
 * (trace/btf/fsig.h) alone whether a call has words beyond its argument
 * registers (the golden graph runs with funcgraph-args-string on, which
 * sends every call to the full capture).  Written once for both backends.
 *
 *   stack_words_without_strings   a call with eleven arguments (x86-64
 *        passes the seventh on, arm64 the ninth on, on the stack) records
 *        all eleven words, exactly; a call with two records the argument
 *        registers (ARCH_FTRACE_NARGS words), no strings either way;
 *   filter_exact_for_the_image    every function of the image's sites
 *        (__sites: the patchable entries; under INSTR=xray the sites the
 *        build records there) has a byte of its own in fsig_filter, set
 *        exactly when its capture has stack or by-reference words (so a
 *        plain call never looks one up, whatever the link puts where); the
 *        two targets' bytes, by their addresses, on both backends.
 *
 * The ga_* functions are the targets (this file is traced).
 */
#include <string.h>

#include "arch/hooks.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "trace/btf/fsig.h"
#include "trace/core/ftrace.h"
#include "trace/global_ops.h"
#include "trace/options.h"
#include "trace/ring_buffer/ring_buffer.h"
#include "trace/trace.h"
#include "trace/tracers/function_graph.h"

extern const uintptr_t __sites_start[], __sites_end[];   /* the image's sites (records.c) */

static volatile long ga_sink;

__attribute__((noinline)) noipa int ga_eleven(int a, int b, int c, int d, int e, int f, int g,
					       int h, int i, int j, const char *k)
{
	ga_sink = (long)k;
	return a - b + c - d + e - f + g - h + i - j;
}
__attribute__((noinline)) noipa int ga_two(int a, int b)
{
	ga_sink = a;
	return a + b;
}

static void ga_restore(void)
{
	tracer_set("nop");
	trace_opt_set("nofuncgraph-args");
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);
}

TEST_CASE(graph_args, stack_words_without_strings)
{
	static const char eleven[] = "eleven";
	ASSERT_TRUE(fsig_loaded());
	const struct fsig_capture *cap = fsig_capture_find((uintptr_t)ga_eleven);
	ASSERT_TRUE(cap && cap->nstack > 0);
	thread_migrate(current_thread(), 0);
	tracer_set("nop");
	ASSERT_EQ(trace_filter_set(false, "ga_eleven ga_two", true), 0);
	ASSERT_EQ(trace_opt_set("funcgraph-args"), 0);
	ASSERT_EQ(trace_opt_set("nofuncgraph-args-string"), 0);
	rb_record_off(trace_buffer);
	ASSERT_EQ(rb_reset(trace_buffer, RB_ALL_CPUS), 0);
	rb_record_on(trace_buffer);
	ASSERT_EQ(tracer_set("function_graph"), 0);
	for (int n = 0; n < 3; n++) {
		EXPECT_EQ(ga_eleven(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, eleven), -5);
		EXPECT_EQ(ga_two(20, 22), 42);
	}
	rb_record_off(trace_buffer);
	unsigned elevens = 0, twos = 0, bad = 0;
	struct rb_iter it;
	struct rb_event ev;
	ASSERT_EQ(rb_iter_start(&it, trace_buffer, RB_ALL_CPUS), 0);
	while (rb_iter_next(&it, &ev) == 0) {
		const struct fgraph_ent_entry *e = ev.data;
		if (e->ent.type != TRACE_GRAPH_ENT)
			continue;
		bad += e->strs != 0;
		if (e->func == (uintptr_t)ga_eleven) {
			elevens++;
			bad += e->nargs != 11 || ev.len != sizeof(*e) + 11 * 8;
			for (unsigned i = 0; i < 10 && i < e->nargs; i++)
				bad += (int)e->args[i] != (int)i + 1;
			bad += e->nargs == 11 && e->args[10] != (uintptr_t)eleven;
		} else if (e->func == (uintptr_t)ga_two) {
			twos++;
			bad += e->nargs != ARCH_FTRACE_NARGS ||
			       (int)e->args[0] != 20 || (int)e->args[1] != 22;
		} else {
			bad++;
		}
	}
	rb_iter_end(&it);
	rb_record_on(trace_buffer);
	EXPECT_EQ(elevens, 3);
	EXPECT_EQ(twos, 3);
	EXPECT_EQ(bad, 0);
	ga_restore();
}

TEST_CASE(graph_args, filter_exact_for_the_image)
{
	static uint8_t seen[FSIG_FILTER_SLOTS / 8];
	ASSERT_TRUE(fsig_loaded());
	memset(seen, 0, sizeof(seen));
	unsigned n = (unsigned)(__sites_end - __sites_start), shared = 0, wrong = 0;
	for (unsigned i = 0; i < n; i++) {
		uintptr_t ip = arch_site_func(__sites_start[i]);
		unsigned s = fsig_filter_slot(ip);
		shared += (seen[s / 8] >> (s % 8)) & 1;
		seen[s / 8] |= (uint8_t)(1u << (s % 8));
		const struct fsig_capture *c = fsig_capture_find(ip);
		bool want = c && (c->nstack || c->nref);
		wrong += (__atomic_load_n(&fsig_filter[s], __ATOMIC_RELAXED) != 0) != want;
	}
	EXPECT_EQ(shared, 0);
	EXPECT_EQ(wrong, 0);
	/* The two targets by their own addresses (INSTR=xray's sites are
	 * its sleds). */
	EXPECT_TRUE(fsig_filter[fsig_filter_slot((uintptr_t)ga_eleven)] != 0);
	EXPECT_TRUE(fsig_filter[fsig_filter_slot((uintptr_t)ga_two)] == 0);
}
