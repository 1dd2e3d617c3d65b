/*
 * fgraph_hooks.h — where the tracing core enters the function-graph core
 * (trace/core/fgraph.c): the return hook's call and the list functions' call.
 * Graph users never call these; their API is trace/core/fgraph.h.  The shadow
 * stacks' allocation and set-up, and the unwinders' help, are boot/'s
 * (trace/boot.h).
 */
#ifndef TRACE_FGRAPH_HOOKS_H
#define TRACE_FGRAPH_HOOKS_H

#include <stdint.h>

#include "trace/core/fgraph.h"

struct fgraph_ret_regs;
struct ftrace_regs;

/* Called by the return hook (arch/hooks.h, arch_fgraph_return_hook) with
 * the traced function's return registers; returns where to go (the
 * original return address).  Any context, preemption as the traced
 * function left it. */
uintptr_t fgraph_return(struct fgraph_ret_regs *r);
/* What the return hook calls instead, with the same contract (but for its
 * arguments: the return value and the entry SP, fgraph.h): while one
 * user is registered, its solo_return (FTRACE_HOT_NOFP, fgraph.h), for
 * which the hook saves no FP/SIMD register (fgraph_return_solo goes
 * anywhere else through fgraph_return_fpsaving, fgraph_inline.h); NULL
 * otherwise (the hook saves them and calls fgraph_return).  Under
 * FGRAPH_TSTACK there is no return hook: the pointer is kept all the same
 * (the exit sled's handler reads fgraph_ts_exit, fgraph.h). */
extern fgraph_solo_return_t fgraph_hook_return;
/* Called by the list functions (ftrace.c) for the graph users in `mask`
 * (bit N: slot N) attached to ip, with the recursion bit held and
 * preemption off. */
void fgraph_list_enter(uintptr_t ip, uintptr_t parent, struct ftrace_regs *fregs, unsigned mask);

#endif
