/*
 * bench_ftrace.c — per-call tracing costs, ring-buffer cost per event,
 * patching cost per site, record size.
 *
 * Per-call figures: LOOP calls of bench_fn() timed with nothing attached
 * (the baseline, in the same boot) and with the mechanism attached; the
 * figure is (traced - baseline) / LOOP in guest instructions (clock ns under
 * -icount shift=0).  Rounds: BENCH_ROUNDS each, median/min/max of the
 * differences.
 */
#include <stdlib.h>

#include "arch/tests.h"
#include "boot/bench.h"
#include "boot/clock.h"
#include "trace/fgraph.h"
#include "trace/ftrace.h"
#include "trace/options.h"
#include "trace/records.h"
#include "trace/function.h"
#include "trace/global_ops.h"
#include "trace/trace.h"

#define LOOP 20000

__attribute__((noinline)) int bench_fn(int x)
{
	__asm__ volatile("");
	return x + 1;
}

static void call_loop(void *arg)
{
	int acc = 0;
	for (int i = 0; i < LOOP; i++)
		acc = bench_fn(acc);
	*(volatile int *)arg = acc;
}

/* A function with a char * parameter, for the cost of capturing a string
 * (funcgraph-args-string): a 10-byte path, as the demo's. */
__attribute__((noinline)) int bench_str_fn(const char *s)
{
	__asm__ volatile("");
	return s[0];
}

static void str_loop(void *arg)
{
	int acc = 0;
	for (int i = 0; i < LOOP; i++)
		acc += bench_str_fn("/etc/hosts");
	*(volatile int *)arg = acc;
}

static void (*loop_fn)(void *) = call_loop;     /* what per_call times */

/* Added instructions per call of bench_fn (loop_fn's function) relative to
 * the untraced loop. */
static void per_call(const char *name, int (*attach)(void), void (*detach)(void))
{
	int sink;
	uint64_t base[BENCH_ROUNDS], traced[BENCH_ROUNDS], diff[BENCH_ROUNDS];
	for (int r = 0; r < BENCH_ROUNDS; r++) {
		base[r] = bench_measure(loop_fn, &sink).min;
		if (attach() != 0) {
			detach();          /* what did attach stays out of later figures */
			bench_print_na(name, "insns", "attach failed");
			return;
		}
		traced[r] = bench_measure(loop_fn, &sink).min;
		detach();
		diff[r] = traced[r] > base[r] ? (traced[r] - base[r]) * 100 / LOOP : 0;
	}
	bench_print(name, bench_summarise(diff, BENCH_ROUNDS), 100, "insns");
}

static void empty_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		     struct ftrace_regs *fregs) { }

static struct ftrace_ops ops[3] = { { .func = empty_cb }, { .func = empty_cb },
				    { .func = empty_cb } };
static struct ftrace_ops regs_ops = { .func = empty_cb, .flags = FTRACE_OPS_FL_SAVE_REGS };
static struct ftrace_ops direct_ops;
static int nops;

static int attach_n(void)
{
	for (int i = 0; i < nops; i++)
		if (ftrace_set_filter(&ops[i], "bench_fn", true) || register_ftrace_function(&ops[i]))
			return -1;
	return 0;
}

static void detach_n(void)
{
	for (int i = 0; i < nops; i++)
		unregister_ftrace_function(&ops[i]);
}

static int attach_regs(void)
{
	if (ftrace_set_filter(&regs_ops, "bench_fn", true))
		return -1;
	return register_ftrace_function(&regs_ops);
}

static void detach_regs(void) { unregister_ftrace_function(&regs_ops); }

/* The regs list caller: the SAVE_REGS ops and nops plain ones on bench_fn. */
static int attach_regs_list(void)
{
	return attach_n() ? -1 : attach_regs();
}

static void detach_regs_list(void)
{
	detach_regs();
	detach_n();
}

static int attach_direct(void)
{
	if (ftrace_set_filter(&direct_ops, "bench_fn", true))
		return -1;
	return register_ftrace_direct(&direct_ops, (uintptr_t)arch_test_direct_tramp);
}

static void detach_direct(void) { unregister_ftrace_direct(&direct_ops); }

static int attach_function_tracer(void)
{
	if (trace_filter_set(false, "bench_fn", true))
		return -1;
	return register_ftrace_function(&function_ops);
}

static void detach_function_tracer(void)
{
	unregister_ftrace_function(&function_ops);
	trace_filter_set(false, "", true);
}

/* The function_graph tracer on bench_fn: entry and exit events (and the
 * argument words when funcgraph-args is on). */
static int attach_graph(void)
{
	if (trace_filter_set(false, "bench_fn", true))
		return -1;
	return tracer_set("function_graph");
}

static void detach_graph(void)
{
	tracer_set("nop");
	trace_filter_set(false, "", true);
}

static int attach_graph_args(void)
{
	trace_opt_set("funcgraph-args");
	trace_opt_set("funcgraph-retval");
	return attach_graph();
}

static void detach_graph_args(void)
{
	detach_graph();
	trace_opt_set("nofuncgraph-args");
	trace_opt_set("nofuncgraph-retval");
}

/* funcgraph-args, -retval and -args-string on bench_str_fn: its string
 * copied into the entry event at each call. */
static int attach_graph_args_string(void)
{
	trace_opt_set("funcgraph-args");
	trace_opt_set("funcgraph-retval");
	trace_opt_set("funcgraph-args-string");
	if (trace_filter_set(false, "bench_str_fn", true))
		return -1;
	return tracer_set("function_graph");
}

static void detach_graph_args_string(void)
{
	detach_graph_args();
	trace_opt_set("nofuncgraph-args-string");
}

/* A graph user that does nothing but take the call: the fgraph core's own
 * cost (trampoline, shadow frame, return hook). */
static bool empty_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	return true;
}

static void empty_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data) { }

static struct fgraph_ops empty_graph = { .entryfunc = empty_entry, .retfunc = empty_exit,
					 .idx = -1 };

static int attach_fgraph_empty(void)
{
	if (ftrace_set_filter(&empty_graph.ops, "bench_fn", true))
		return -1;
	return register_fgraph(&empty_graph);
}

static void detach_fgraph_empty(void) { unregister_fgraph(&empty_graph); }

BENCH_CASE(ftrace_calls)
{
	per_call("function_tracer_call", attach_function_tracer, detach_function_tracer);
	nops = 1;
	per_call("ops_single_call", attach_n, detach_n);
	nops = 3;
	per_call("ops_list_call", attach_n, detach_n);
	per_call("ops_regs_call", attach_regs, detach_regs);
	nops = 2;
	per_call("ops_regs_list_call", attach_regs_list, detach_regs_list);
	per_call("direct_call", attach_direct, detach_direct);
	per_call("fgraph_empty_call", attach_fgraph_empty, detach_fgraph_empty);
	per_call("graph_call", attach_graph, detach_graph);
	per_call("graph_args_retval_call", attach_graph_args, detach_graph_args);
	loop_fn = str_loop;
	per_call("graph_args_string_call", attach_graph_args_string, detach_graph_args_string);
	loop_fn = call_loop;
}

/* ---- patching: enable then disable every site of N generated functions ---- */

extern int bench_funcs_count __attribute__((weak));

static void patch_figure(const char *name, const char *glob, unsigned n)
{
	static struct ftrace_ops p = { .func = empty_cb };
	uint64_t s[BENCH_ROUNDS];
	if (ftrace_set_filter(&p, glob, true)) {
		bench_print_na(name, "ns", "filter failed");
		return;
	}
	for (int r = 0; r < BENCH_ROUNDS; r++) {
		uint64_t t0 = clock_ns();
		register_ftrace_function(&p);
		unregister_ftrace_function(&p);
		s[r] = (clock_ns() - t0) * 100 / n;
	}
	bench_print(name, bench_summarise(s, BENCH_ROUNDS), 100, "ns");
}

BENCH_CASE(patch_sites)
{
	if (!&bench_funcs_count) {
		bench_print_na("patch_site_ns_1k", "ns", "kernel built without BENCH_FUNCS=1");
		bench_print_na("patch_site_ns_10k", "ns", "kernel built without BENCH_FUNCS=1");
		bench_print_na("patch_site_ns_50k", "ns", "kernel built without BENCH_FUNCS=1");
	} else {
		patch_figure("patch_site_ns_1k", "bf_00*", 1000);
		patch_figure("patch_site_ns_10k", "bf_0*", 10000);
		patch_figure("patch_site_ns_50k", "bf_*", 50000);
	}
	/* The record table and (INSTR=xray) the exit and tail sleds' table,
	 * per function: 8 bytes a record, 8 more for each of its sleds. */
	uint64_t x100 = records_bytes_per_site_x100();
	struct bench_result r = { x100, x100, x100 };
	bench_print("record_bytes_per_site", r, 100, "bytes");
}

