/*
 * ftrace_harness.h — what the files of suite `ftrace` share
 * (ftrace_harness.c): test_ftrace.c (the ops core, and the manual suite
 * `ftrace_refuse`), test_ftrace_regs.c (the registers a callback sees and
 * uses), test_ftrace_live.c (live switching under fire) and
 * test_ftrace_recl.c (trampoline reclamation, updates by a thread that
 * migrates).  The traced target ft_leaf (the core's recursion cases and
 * the live migrant call it), a counting callback ops (the core's and
 * test_ftrace_recl.c's), and the function tracers' events counted in the
 * trace buffer (the core's and test_ftrace_regs.c's), and the trampoline
 * pool filled up (the core's and fixtures/gdb_states.c's); also the calls
 * made in each event-header state and their headers checked (suites
 * fn_entry and graph_exit).  Each file's other ft_* functions are its own.
 */
#ifndef TESTS_GUEST_FTRACE_HARNESS_H
#define TESTS_GUEST_FTRACE_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/core/ftrace.h"

int ft_leaf(int x);
long ft_twin_harness(long a, long b);     /* calls ftrace_harness.c's ft_twin */

/* A callback ops counting its calls.  count_cb counts calls of ft_leaf in
 * leaf_hits only, every other call in hits, and in bad those whose
 * ftrace_regs give another ip or return address than the callback's
 * arguments.  counter_init zeroes it and, for a non-NULL filter, sets the
 * ops' filter to it (its result unchecked: the test registers and counts). */
struct counter {
	struct ftrace_ops ops;
	unsigned long hits;            /* atomic */
	uintptr_t last_ip, last_parent;
	unsigned long bad;             /* atomic: calls that broke the test's rule */
	unsigned long leaf_hits;       /* atomic: calls of ft_leaf (not in hits) */
	unsigned long frames;          /* atomic: calls where ftrace_get_regs() was not NULL */
};

void count_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op, struct ftrace_regs *fregs);
void counter_init(struct counter *c, const char *filter);

/* Events of type `type` for func in trace_buffer (all CPUs): the function
 * tracer's (TRACE_FN, by ip) or function_graph's entries and exits (by
 * func).  fn_events(func) is events_of(TRACE_FN, func).  Read with the
 * buffer quiet (no tracer writing). */
unsigned events_of(uint16_t type, uintptr_t func);
unsigned fn_events(uintptr_t func);
/* The same, and the first `max` of those events' common headers copied to
 * out in buffer order (out may be NULL when max is 0). */
struct trace_entry;
unsigned events_headers(uint16_t type, uintptr_t func, struct trace_entry *out, unsigned max);

/* The calls of fn(1) whose event headers header_state_check knows, in
 * this order: 0 interrupts off, 1 and need-resched set on this CPU (put
 * back as it was after), 2 the preemption count raised by 3, 3 raised by
 * 17 (shown 15), 4 interrupts on (suites fn_entry and graph_exit). */
#define HEADER_STATES 5
void header_state_calls(void (*fn)(int));
/* fn(1) with interrupts off and this CPU's need_resched as nr (put back
 * as it was, or set if another CPU set it meanwhile). */
void call_irqs_off(void (*fn)(int), bool nr);
/* EXPECT that h, the header of call k of header_state_calls (a call in
 * the state of call k), is exactly what Linux's format says for it: pc0
 * the thread's count before the calls, pid its pid.  With interrupts on
 * (call 4) a tick may leave need-resched set: not compared there. */
struct trace_entry;
void header_state_check(const struct trace_entry *h, unsigned k, unsigned pc0, int pid);
/* EXPECT that q[0..m) is one header, of a call the timer interrupt made
 * while thread pid ran: hardirq and irqs-off (need-resched as the tick
 * left it). */
void header_hardirq_check(const struct trace_entry *q, unsigned m, int pid);

/* The end of a header case: the headers of type's events of leaf into
 * h and of the timer's irq_probe_work into q (at most max each; *m: q's
 * count), then the tracer nop, no filter, this thread free to migrate
 * again; returns h's count. */
unsigned headers_collect(uint16_t type, uintptr_t leaf, struct trace_entry *h,
			 struct trace_entry *q, unsigned max, unsigned *m);

/* The graph suites' whole-header check (graph_entry, graph_exit): with
 * function_graph on `leaf` (named `name`) and the timer's irq_probe_work,
 * header_state_calls(leaf) through the tracer's own site callback and
 * return, again with a second graph user on leaf (the several users'
 * entry and return), and one irq_probe_work in the tick; then every
 * header of `type` (TRACE_GRAPH_ENT or TRACE_GRAPH_RET) written for leaf
 * checked by header_state_check, and irq_probe_work's by
 * header_hardirq_check.  On CPU 0; leaves the tracer nop, no filter. */
void graph_headers_exact(uint16_t type, void (*leaf)(int), const char *name);

/* Take every slot of the trampoline pool with empty ops filtered on
 * `filter`, so that the next ops finds none: *fill_out holds the *n_out
 * registered ones (the one that found the pool empty is unregistered
 * again), or NULL if that failed (a failure is reported).  The ops share
 * the filter's functions: those become list sites of *n_out ops.
 * pool_release unregisters and frees them: call it with what pool_fill
 * gave, on every path. */
void pool_fill(const char *filter, struct ftrace_ops **fill_out, unsigned *n_out);
void pool_release(struct ftrace_ops *fill, unsigned n);

#endif
