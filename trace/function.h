/*
 * function.h — the `function` tracer (trace/function.c): one event (ip,
 * parent ip) per call, printed in Linux's `function` format.
 *
 * Its ops is exported for the tests and benchmarks that register it
 * beside other ops; the tracer itself is started with tracer_set().
 */
#ifndef TRACE_FUNCTION_H
#define TRACE_FUNCTION_H

struct ftrace_ops;

/* FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NOFP; follows set_ftrace_filter
 * (trace/global_ops.h). */
extern struct ftrace_ops function_ops;

#endif
