/*
 * global_ops.h — set_ftrace_filter / set_ftrace_notrace: the one filter
 * the function tracer, function_graph and the function profiler share
 * (Linux's global ops), and the boot options that take globs.
 *
 * An ops follows the filter by saying so where it is defined:
 *
 *   GLOBAL_OPS(function, &function_ops);
 *
 * which puts its address in the .global_ops section (linker/ARCH.ld);
 * trace_filter_set() changes every such ops at once, all or none (at
 * most four: ftrace_set_filter_ops' bound).
 */
#ifndef TRACE_GLOBAL_OPS_H
#define TRACE_GLOBAL_OPS_H

#include <stdbool.h>

struct ftrace_ops;
struct ftrace_hash;

#define GLOBAL_OPS(name, opsp)                                                    \
	static struct ftrace_ops *const __global_ops_##name                      \
		__attribute__((used, section(".global_ops"), aligned(8))) = (opsp)

/*
 * Set the filter (is_notrace false) or the notrace set (true) of every
 * global ops: rules of ftrace_set_filter; -EINVAL (reason in
 * ftrace_filter_error) or -ENOMEM changes nothing.  Thread context.
 * trace_filter_hash() is the set as it stands (the ops' own, all alike).
 */
int trace_filter_set(bool is_notrace, const char *patterns, bool reset);
const struct ftrace_hash *trace_filter_hash(bool is_notrace);
/* Apply ftrace_filter= / ftrace_notrace= (trace_init, once). */
void trace_filter_boot(void);

/*
 * Boot options that take globs (ftrace_filter=, ftrace_notrace=,
 * ftrace_graph_filter=, ftrace_graph_notrace=), Linux's rule: each
 * comma/space-separated pattern on its own.  trace_boot_globs_check(), when
 * the option is parsed, reports each malformed pattern with lib/glob's
 * reason ("OPT: invalid pattern 'P': WHY, ignored") and returns how many are
 * well formed.  trace_boot_globs_apply() applies the well-formed ones in
 * order through set() (the first that applies replaces, the rest add),
 * reports each one set() refuses ("OPT: no function matches 'P', ignored")
 * and goes on; when none applies to a filter it says the filter stays empty.
 * Boot CPU or thread context; set() is trace_filter_set or graph_set_hash.
 */
unsigned trace_boot_globs_check(const char *opt, const char *v);
void trace_boot_globs_apply(const char *opt, const char *v, bool is_notrace,
			    int (*set)(bool is_notrace, const char *patterns, bool reset));

/*
 * For the filter files (set_ftrace_filter/notrace here, set_graph_function/
 * notrace in trace/graph.c): trace_filter_print() prints the functions of
 * `h` by name, in address order, or `empty` (nothing when NULL) for an
 * empty set; trace_filter_result() says a write's error in tracefs terms
 * (-EINVAL with ftrace_filter_error's reason) and returns it.  Thread
 * context.
 */
#define TRACE_FILTER_ALL "#### all functions enabled ####"    /* Linux's words */
#define TRACE_FILTER_NONE "#### no functions disabled ####"
void trace_filter_print(const struct ftrace_hash *h, const char *empty);
int trace_filter_result(int err);

#endif
