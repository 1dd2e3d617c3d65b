/*
 * ftrace_filter.h — function sets built from patterns, for the tracers
 * that keep sets of their own beside their ops' filter (set_graph_function,
 * fprobes, set_ftrace_filter's commands), and the reason a set was
 * refused.  The ops' own filters are set through trace/ftrace.h
 * (ftrace_set_filter and friends), which use the same rules.
 *
 * ftrace_filter_error is written by every refusal with -EINVAL (and by a
 * direct ops' change refused with -ERANGE or -EBUSY).  The core writes it
 * under ftrace_mutex; fprobes and the filter commands hold the mutex
 * around their own build and read of it; the tracefs files read it after
 * their call returns (the shell makes one change at a time).
 */
#ifndef TRACE_FTRACE_FILTER_H
#define TRACE_FTRACE_FILTER_H

#include <stdbool.h>

struct ftrace_hash;
struct mutex;

/* The tracing core's lock (trace/ftrace.h, "Locking"). */
extern struct mutex ftrace_mutex;

/* Build a hash from patterns (the rules of ftrace_set_filter), starting
 * from a copy of `base` unless `reset`.  0 and *out (the caller frees it
 * with hash_free), -ENOMEM, or -EINVAL with the reason in
 * ftrace_filter_error (a bad glob, one that matches nothing, an index
 * past the records).  Thread context. */
int ftrace_build_hash(const struct ftrace_hash *base, const char *patterns, bool reset,
		      struct ftrace_hash **out);

/* Room for the longest refusal with a function named in full: ~100
 * bytes of words and three addresses, and a name of up to 150. */
#define FTRACE_ERROR_SIZE 256
extern char ftrace_filter_error[FTRACE_ERROR_SIZE];

#endif
