/*
 * profile.h — the function profiler: per function and per CPU, how many
 * times it was called and how long the calls took (Linux's
 * function_profile_enabled and trace_stat/functionN).
 *
 * A function-graph user (trace/fgraph.h) whose exit callback adds the
 * call's duration (rettime - calltime, converted to ns) to the calling
 * CPU's table.  Times include the time spent in children (Linux's default,
 * graph-time on).  Which functions: the profiler's own ops filter
 * (profile_set_filter / profile_set_notrace; empty = every traced
 * function); set_ftrace_filter drives it as in Linux (its ops is a
 * GLOBAL_OPS, trace/global_ops.h).
 *
 * Tables: one fixed-size open-addressing hash per CPU, allocated by the
 * first profile_enable() (sized from the record table, so a full table
 * is an anomaly; its hits are counted in profile_dropped()).  A CPU's table
 * is written only by that CPU, in the exit callback, with interrupts off;
 * readers (lookup, print) may run on any CPU at any time and see all
 * counters of one function as of the same call.
 *
 * Control functions: thread context, not from a callback.
 */
#ifndef TRACE_PROFILE_H
#define TRACE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ftrace_ops;

/* 0; -EBUSY if already on; -ENOMEM; or register_fgraph's error.  Zeroes
 * every counter when it starts; a failed enable changes nothing (the
 * counters of the last run stay), except that per-CPU tables allocated
 * before the failure are kept for the next enable. */
int profile_enable(void);
/* Stop counting; the counters stay readable until the next enable/reset. */
void profile_disable(void);
bool profile_enabled(void);
/* Zero every counter (while enabled too: calls in flight are not counted). */
void profile_reset(void);

/* The profiler's filter / notrace: rules of ftrace_set_filter (-EINVAL,
 * reason in ftrace_filter_error, changes nothing). */
int profile_set_filter(const char *patterns, bool reset);
int profile_set_notrace(const char *patterns, bool reset);

struct profile_rec {
	uintptr_t func;
	uint64_t hits;
	uint64_t total_ns;          /* children included */
	uint64_t min_ns, max_ns;
	unsigned __int128 s2;       /* sum of the squared durations, ns^2 (Linux's
				     * time_squared, there 64 bits: a call of 4.3 s
				     * alone wraps them) */
};

/* The stats of `func` on `cpu`: 0, -ENOENT (never hit), -EINVAL (no such CPU). */
int profile_lookup(unsigned cpu, uintptr_t func, struct profile_rec *out);
/* Up to `max` functions hit on `cpu`, sorted by total time, highest first
 * (ties: more hits first, then lower address).  Returns how many were
 * stored, or -EINVAL / -ENOMEM.  Thread context (allocates). */
int profile_sorted(unsigned cpu, struct profile_rec *out, unsigned max);
/* Count one call of `func` that took `ns` on the calling CPU, as the exit
 * callback does (for tests: durations a run cannot choose).  0, or
 * -ENOENT before the first profile_enable() (no table).  Thread context,
 * pinned to a CPU. */
int profile_count_call(uintptr_t func, uint64_t ns);
/* Hits on `cpu` lost because its table was full. */
uint64_t profile_dropped(unsigned cpu);

/*
 * trace_stat/functionN: Linux's header, then one line per function hit on
 * `cpu`, by total time (profile_sorted's order):
 *   "  %-30.30s  %10llu    " name, hits; then total, average and s^2
 * (Linux's columns), then min, max and the standard deviation (ours, after
 * Linux's so that a reader of Linux's columns is not disturbed), each as
 * the graph tracer's microseconds (at most 7 digits, " us ", padded to 8),
 * all but the last followed by 4 spaces.  s^2 is Linux's sample variance
 * (n*sum(x^2) - sum(x)^2) / (n*(n-1)) in ns^2 divided by 1000 and printed
 * as microseconds, i.e. in us^2; the standard deviation is the floor of
 * that variance's square root in ns, printed as microseconds; both 0 for a
 * single hit.
 * profile_show() hands each line (with its '\n') to out(); profile_print()
 * writes them to the console.  -EINVAL if no such CPU, -ENOMEM.
 */
#define PROFILE_COLS     6
#define PROFILE_LINE_MAX 224      /* a line with every column at 20 digits */
int profile_show(unsigned cpu, void (*out)(void *ctx, const char *line), void *ctx);
int profile_print(unsigned cpu);
/* One line of that table for r (for tests and callers with their own records). */
void profile_format(char *buf, size_t size, const struct profile_rec *r);

#endif
