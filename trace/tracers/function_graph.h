/*
 * function_graph.h — the function_graph tracer's events, options and printer.
 *
 * Events (Linux's funcgraph_entry / funcgraph_exit, common header first):
 *   entry: the function, its depth, and — with funcgraph-args on — the raw
 *          argument registers of the call (ARCH_FTRACE_NARGS words), and for
 *          a function whose signature needs them the words passed on the
 *          stack or by reference (trace/btf/fsig.h), in the same event, so
 *          nothing can separate them from their entry; with
 *          funcgraph-args-string on too, and a function with `char *`
 *          parameters, the strings as they were at the call follow the
 *          words (strs bytes, trace/btf/fsig.h's records): a variable-length
 *          event, printed the same wherever it is decoded;
 *   exit:  the function, the raw return register, depth, overrun (shadow
 *          stack overflows seen by this context, bits 0-29), call and
 *          return times (buffer clock cycles, like the events' timestamps);
 *          overrun's bits 30 and 31 are the trace stack's marks
 *          (FGRAPH_RET_GONE, FGRAPH_RET_LATE: trace/core/fgraph_frame.h), 0 on
 *          the return-hook backend: an exit so marked has no return value
 *          (retval 0) and its closing brace's comment names the function
 *          followed by "(late)" or "(gone)" (function_graph_output.c).
 * Depth counts hooked frames below the call in its context: a function
 * called from an interrupt handler continues the interrupted thread's depth
 * (as in Linux, where interrupts share the task's return stack).
 */
#ifndef TRACE_GRAPH_H
#define TRACE_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/core/fgraph.h"
#include "trace/core/fgraph_frame.h"
#include "trace/trace.h"

struct fgraph_ent_entry {      /* TRACE_GRAPH_ENT */
	struct trace_entry ent;
	uint64_t func;
	uint32_t depth;
	uint16_t nargs;            /* argument words that follow (0: funcgraph-args off) */
	uint16_t strs;             /* then bytes of captured strings (fsig.h), 0: none */
	uint64_t args[];
};
_Static_assert(sizeof(struct fgraph_ent_entry) == 24, "funcgraph_entry is 24 bytes + args");

struct fgraph_ret_entry {      /* TRACE_GRAPH_RET */
	struct trace_entry ent;
	uint64_t func;
	uint64_t retval;           /* raw return register */
	uint32_t depth;
	uint32_t overrun;          /* bits 0-29; 30, 31: FGRAPH_RET_GONE, _LATE */
	uint64_t calltime;         /* buffer clock cycles */
	uint64_t rettime;
};
_Static_assert(sizeof(struct fgraph_ret_entry) == 48, "funcgraph_exit is 48 bytes");

extern struct fgraph_ops graph_fgraph_ops;     /* the tracer's graph user */
extern unsigned max_graph_depth;               /* 0: no limit; set it with: */
void graph_set_max_depth(unsigned depth);

/* set_graph_function (is_notrace false) / set_graph_notrace (true): rules of
 * ftrace_set_filter; -EINVAL (reason in ftrace_filter_error) changes
 * nothing.  Thread context. */
int graph_set_hash(bool is_notrace, const char *patterns, bool reset);
const struct ftrace_hash *graph_hash(bool is_notrace);

/* Printer (trace/tracers/function_graph_output.c): one event of the function_graph tracer,
 * with the iterator to look ahead on the event's CPU (leaf collapse). */
bool graph_print(struct trace_iter *ti);
void graph_print_header(void);

#endif
