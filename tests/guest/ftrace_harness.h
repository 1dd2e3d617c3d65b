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
 * pool filled up (the core's and fixtures/gdb_states.c's).  Each file's other
 * ft_* functions are its own.
 */
#ifndef TESTS_GUEST_FTRACE_HARNESS_H
#define TESTS_GUEST_FTRACE_HARNESS_H

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
