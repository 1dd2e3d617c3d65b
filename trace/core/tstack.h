/*
 * tstack.h — the trace stack: function_graph without return hooks.
 *
 * The return-hook backend (trace/core/fgraph.c) learns that a function returns
 * by rewriting its return address.  The trace stack learns it from three
 * calls that compiler-emitted sites make instead (clang's XRay sleds under
 * INSTR=xray: an entry sled, an exit sled before every return, a tail sled
 * before every tail-call jump), and never writes a return address:
 *
 *   tstack_entry(func, parent, sp, fregs, mask)   entry sled: ask the graph
 *        users in mask (fgraph_ops slots, as the list function passes them)
 *        and, if one takes the call, push an entry: function, call time,
 *        sp, the users' blocks — the same frame as fgraph's, on the same
 *        per-thread / per-CPU-interrupt stacks (trace/core/fgraph_frame.h), with
 *        the entry event written by the users' entry callbacks;
 *   tstack_tail(func, sp, target)   tail sled: mark the top entry
 *        complete, if it is this call's (func and sp), and keep target: the
 *        function the jump after the sled names (0: an indirect jump);
 *   tstack_exit(func, sp, retval)   exit sled: mark the top entry complete
 *        if it is this call's, then pop every complete entry at this sp,
 *        innermost first, each with its exit callbacks and retval (a
 *        function that left by a tail call returns its callee's value).
 *
 * sp is the stack pointer as the function's first instruction saw it, which
 * is also what it is at its exit and tail sleds (x86-64: the address of the
 * return address; arm64: the caller's sp): the arch's trampoline reads it.
 * fregs: the function's argument registers (struct ftrace_regs, never
 * NULL), which the users' entry callbacks read (funcgraph-args).  mask:
 * bit i for fgraph user slot i (fgraph_ops.idx).
 *
 * Pairing is never assumed (sites are switched on and off while CPUs run
 * inside functions).  Every call first pops the entries of its context
 * that lie below sp (their frames are gone: nothing at a lower address is
 * live once a sled runs at sp), each with an exit marked FGRAPH_RET_LATE
 * (complete: it tail-called a function whose exit was not seen) or
 * FGRAPH_RET_GONE (not complete: longjmp'd out, or its sleds were turned
 * off while it ran) and no return value; an entry finds an incomplete one
 * at its own sp gone too (the call it stands for has left that frame).  An
 * exit or tail call whose entry is not the top one (it was never pushed:
 * enabled midway, refused, stack full) changes nothing else.  A complete
 * entry at sp stays while a deeper function runs: it is the caller of a
 * tail call whose callee is still running.  An entry at the sp of a
 * complete entry nests in it only if it can be its tail callee: its
 * return address is the complete one's and its function is the target
 * the complete one's tail jump named; otherwise the complete one is popped
 * late first (it tail-called an untraced function, which has returned).
 * What the sleds cannot tell apart: after an indirect tail jump (no
 * target) to an untraced function which returned, a call of a traced
 * function at the same sp from the same call site reads as a tail call of
 * the second; both are then popped at the second's exit, the first
 * unmarked.
 *
 * An interrupt's entries do not outlive it: stack pointers of two
 * interrupts are not comparable (each runs on whatever stack it found),
 * so irq_exit calls tstack_irq_exit (trace/boot.h), which pops the
 * entries the ending interrupt left on the CPU's interrupt stack, late or
 * gone as above; what a deeper interrupt left because it could not enter
 * the tracer at its end is popped, gone, by the next sled below it.
 *
 * Context: any (thread, interrupt, nested interrupt), from the sled's
 * trampoline with interrupts as the traced code had them.  Each call takes
 * its context's recursion bit (a call made from a graph callback is
 * ignored) and disables preemption for its duration; a dead tracer
 * ignores them.  Only the frames the trace stack pushed are touched: a
 * frame of the return-hook backend stops every search.
 */
#ifndef TRACE_TSTACK_H
#define TRACE_TSTACK_H

#include <stdint.h>

struct ftrace_regs;
struct fgraph_stack;
struct cpu;

void tstack_entry(uintptr_t func, uintptr_t parent, uintptr_t sp, struct ftrace_regs *fregs,
		  unsigned mask);
/* The same for a caller that holds this context's recursion bit with
 * preemption raised by one (an ftrace callback: fgraph's site callbacks
 * under INSTR=xray, fgraph_list_enter, and fgraph_enter_one when the top
 * of the stack is not clear for its own single-user push, call this where
 * the return-hook backend pushes and redirects); c: this CPU.  The
 * single-user paths (fgraph_enter_one's push, ftrace_sled_exit's pop:
 * trace/core/DESIGN.md "XRay sleds") do what these rules would in the
 * cases they take and leave every other case to them. */
void tstack_entry_held(struct cpu *c, uintptr_t func, uintptr_t parent, uintptr_t sp,
		       struct ftrace_regs *fregs, unsigned mask);
void tstack_tail(uintptr_t func, uintptr_t sp, uintptr_t target);
void tstack_exit(uintptr_t func, uintptr_t sp, uint64_t retval);

/* ---- the rules, apart from the kernel (trace/core/tstack.c; host-tested) ---- */

/* The context a call runs in: its stack, the interrupted thread's (NULL
 * in thread context), its interrupt nesting level (entries of another
 * level are never touched: a nested interrupt sees only its own). */
struct tstack_ctx {
	struct fgraph_stack *st, *outer;
	unsigned level;
	struct cpu *cpu;
};

void tstack_entry_on(const struct tstack_ctx *x, uintptr_t func, uintptr_t parent, uintptr_t sp,
		     struct ftrace_regs *fregs, unsigned mask);
void tstack_tail_on(const struct tstack_ctx *x, uintptr_t func, uintptr_t sp,
		    uintptr_t target);
void tstack_exit_on(const struct tstack_ctx *x, uintptr_t func, uintptr_t sp, uint64_t retval);
/* The interrupt at x's level ends: pop its entries left (late or gone). */
void tstack_level_end_on(const struct tstack_ctx *x);
/* Release the trace-stack entries on top of st, at any level, without
 * their exits (no user is left to hand them to); a return-hook frame stops
 * it.  Returns how many.  The caller makes sure no context touches st
 * meanwhile (fgraph.c: the last user gone, after a grace period). */
unsigned tstack_drop(struct fgraph_stack *st);

/* What the rules call (trace/core/fgraph.c; the host test has its own).
 * fgraph_ts_push: push a frame for func at sp on x->st and ask the users
 * in mask; the frame if one took the call, else NULL (nothing left on the
 * stack; a full stack is counted as an overrun).  fgraph_ts_pop: the
 * exit callbacks of the frame at base (the top one) with retval and mark,
 * then release it. */
uint64_t *fgraph_ts_push(const struct tstack_ctx *x, uintptr_t func, uintptr_t parent,
			 uintptr_t sp, struct ftrace_regs *fregs, unsigned mask);
void fgraph_ts_pop(const struct tstack_ctx *x, unsigned base, uint64_t retval, unsigned mark);

#endif
