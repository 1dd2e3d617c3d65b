/*
 * ftrace.h — the dynamic tracing core: ops, filters, registration.
 *
 * An ops is a callback plus flags plus two hashes of functions: `filter`
 * (empty = every function) and `notrace` (wins over filter).  Registering,
 * unregistering or changing a registered ops' hashes recomputes the wanted
 * state of every affected record and patches all changed sites in one batch.
 *
 * Callback contract:
 *   void cb(uintptr_t ip, uintptr_t parent_ip, struct ftrace_ops *op,
 *           struct ftrace_regs *fregs)
 * ip is the traced function's address, parent_ip the address it returns to.
 * Runs in the traced function's context (task or interrupt) with preemption
 * disabled, on the function's stack; it must not sleep.  Unless the ops sets
 * FTRACE_OPS_FL_RECURSION, calls it makes to traced functions are not traced
 * (recursion guard per context: task, interrupt, nested interrupt).
 *
 * ftrace_regs accessors (arch_defs.h), valid during the callback:
 *   ftrace_regs_get_argument(f, n)        n < ARCH_FTRACE_NARGS (6 x86-64, 8 arm64)
 *   ftrace_regs_get_stack_pointer(f)      SP at the function's entry
 *   ftrace_regs_of_stack_pointer(sp)      f again from that SP (the callback's f)
 *   ftrace_regs_get_frame_pointer(f)      the caller's frame pointer
 *   ftrace_regs_get_return_address(f)     = parent_ip
 *   ftrace_regs_get_instruction_pointer(f)= ip
 *   ftrace_regs_get_return_value(f)       (meaningful at a function's exit only)
 *   ftrace_get_regs(f)                    struct pt_regs * for SAVE_REGS ops, else NULL
 * and, for the regs list caller's list function only (the caller reads it):
 *   ftrace_regs_set_direct(f, addr)       enter direct trampoline addr on the way out
 *
 * Locking: all control functions take ftrace_mutex (boot/sched.h's sleeping
 * mutex: the update waits for other CPUs, IPI rounds and grace periods, and
 * may sleep while it does); thread context only, never from a callback or
 * an interrupt.  The update panics if it runs without it (ftrace_update).
 */
#ifndef TRACE_FTRACE_H
#define TRACE_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/hooks.h"

struct ftrace_ops;
struct ftrace_hash;
struct ftrace_regs;            /* arch_defs.h */

typedef void (*ftrace_func_t)(uintptr_t ip, uintptr_t parent_ip, struct ftrace_ops *op,
			      struct ftrace_regs *fregs);

/*
 * Callbacks of FTRACE_OPS_FL_RECURSION ops are called straight from the
 * trampoline and must disable preemption themselves; until they have, an
 * interrupt must not preempt them (a preempted thread would keep a return
 * address into a trampoline that may be freed).  Placing them in trampoline
 * text with FTRACE_HOT achieves that: irq_exit() never preempts a thread
 * whose PC is there.  register_ftrace_function() refuses such an ops whose
 * callback is elsewhere.
 */
#define FTRACE_HOT __attribute__((section(".text.tramp"), noinline))

/*
 * An FTRACE_HOT callback that, with everything it calls, never touches an
 * FP/SIMD register and never calls a traced function (its file is built
 * with -mgeneral-regs-only and without patchable entries, and
 * tools/check-nofp.py walks the linked kernel's calls from every function in
 * this section and fails the build on an FP/SIMD instruction, an indirect
 * call or a function with a site).  Its ops may set FTRACE_OPS_FL_NOFP: the
 * trampoline then leaves the FP/SIMD argument registers alone instead of
 * saving and restoring them.  And since nothing it calls can enter the
 * tracer again, it tests its context's recursion bit without taking it
 * (ftrace_recursion_free_on, trace/core/recursion.h).
 */
#define FTRACE_HOT_NOFP __attribute__((section(".text.tramp.nofp"), noinline FTRACE_NOFP_NOFRAME))
/* And without a frame pointer of its own (x86-64: push, mov and pop of rbp
 * and one more free register on every call; -3 instructions on the function
 * tracer, -6 on function_graph): a backtrace taken inside one goes on from
 * its caller.  GCC only: clang has no per-function switch; mk/clang.mk builds
 * the leaf functions of the callbacks' files without one instead. */
#ifdef __clang__
#define FTRACE_NOFP_NOFRAME
#else
#define FTRACE_NOFP_NOFRAME , optimize("omit-frame-pointer")
#endif

enum {
	FTRACE_OPS_FL_SAVE_REGS = 1u << 0,   /* callback needs ftrace_get_regs() */
	FTRACE_OPS_FL_RECURSION = 1u << 1,   /* callback guards recursion itself (FTRACE_HOT) */
	FTRACE_OPS_FL_NOFP      = 1u << 2,   /* RECURSION, and the callback is FTRACE_HOT_NOFP */
	/* NOFP, and the callback reads neither op nor fregs nor the
	 * function's arguments: its own trampoline (ARCH_TRAMP_NOARGS) builds
	 * no ftrace_regs and passes only ip and parent_ip (op and fregs are
	 * undefined: the function's own argument registers), leaving the
	 * argument registers as they are (a list caller still passes its op
	 * and fregs).  Refused (-EINVAL) without NOFP or with SAVE_REGS. */
	FTRACE_OPS_FL_NOARGS    = 1u << 3,
	/* NOFP, and of fregs the callback reads only the argument registers
	 * (ftrace_regs_get_argument), the stack pointer at entry and the
	 * return slot (ftrace_regs_get_stack_pointer, _of_stack_pointer,
	 * _return_slot), which it may write: its own trampoline
	 * (ARCH_TRAMP_ARGS_ONLY) stores only those (a list caller still
	 * passes a whole ftrace_regs).  Refused (-EINVAL) without NOFP, or
	 * with SAVE_REGS or NOARGS. */
	FTRACE_OPS_FL_ARGS_ONLY = 1u << 4,
	FTRACE_OPS_FL_ENABLED   = 1u << 8,   /* core: registered */
	FTRACE_OPS_FL_DIRECT    = 1u << 9,   /* core: a direct trampoline */
	FTRACE_OPS_FL_GRAPH     = 1u << 10,  /* a function-graph user (trace/core/fgraph.c) */
};

struct ftrace_ops {
	/* What the two list callers call through this ops when it is a
	 * site's data word (arm64: loaded at offsets 0 and 8).  The ops'
	 * entry (func itself, or the core's recursion-guarding wrapper:
	 * ftrace_ops_entry) for the caller its CALL_OPS site calls in its
	 * steady state -- call for a plain ops, regs_call for one with
	 * SAVE_REGS -- and the other caller's list function for the other:
	 * ftrace_ops_list_regs_func / ftrace_ops_list_func.  A CPU whose
	 * fetch of a site's call and load of its word straddle an update may
	 * meet the word with the other caller; the list function then walks the function's ops, shows
	 * the frame to SAVE_REGS ops only and calls no SAVE_REGS ops without
	 * one (ftrace_list_ops has the two list functions).  Written by the
	 * core under ftrace_mutex.  An ops placed in a data word without being
	 * registered (tests) sets both.  call must stay first. */
	ftrace_func_t call;
	ftrace_func_t regs_call;
	ftrace_func_t func;          /* the user's callback; set before registering */
	unsigned flags;              /* FTRACE_OPS_FL_*; user bits set before registering */
	void *private;               /* for the user */
	/* Core-private, under ftrace_mutex unless said otherwise. */
	struct ftrace_hash *filter_hash;   /* read lock-free by the list function */
	struct ftrace_hash *notrace_hash;
	struct ftrace_ops *next;     /* registered list, read lock-free */
	uintptr_t tramp;             /* this ops' trampoline in the pool, or 0 */
	uintptr_t direct;            /* direct ops: the code sites call */
	struct ftrace_hash *applied_filter_hash;   /* hashes of the last completed update */
	struct ftrace_hash *applied_notrace_hash;
	bool applied;                /* registered at the last completed update */
	unsigned graph_mask;         /* FTRACE_OPS_FL_GRAPH: the user's bit (fgraph.c) */
};
/* arm64's list callers load call and regs_call at fixed offsets (frame.h
 * OPS_CALL, OPS_REGS_CALL). */
_Static_assert(offsetof(struct ftrace_ops, call) == 0 &&
	       offsetof(struct ftrace_ops, regs_call) == sizeof(ftrace_func_t),
	       "struct ftrace_ops: call, then regs_call, first");

/* What the ops' own trampoline calls: its entry, the one of call and
 * regs_call that is not a list function. */
static inline ftrace_func_t ftrace_ops_entry(const struct ftrace_ops *op)
{
	return (op->flags & FTRACE_OPS_FL_SAVE_REGS) ? op->regs_call : op->call;
}

/*
 * 0 or -errno.  -ENOMEM changes nothing: after a failed register the ops
 * is not registered.  Unregistering does not fail for lack of memory (the
 * update has a reserve, trace/core/update.c); should it fail otherwise, the ops
 * is still registered, its callback still called (unless tracing was
 * killed), the ops must not be freed, and the unregister may be retried.
 * The same holds for the direct pair below.
 */
int register_ftrace_function(struct ftrace_ops *ops);
int unregister_ftrace_function(struct ftrace_ops *ops);

/*
 * Filters from glob patterns: `patterns` is a space-separated list; a
 * pattern starting with '!' removes the functions it matches; a pattern of
 * decimal digits N is line N of available_filter_functions (from 1, as
 * Linux's index), one function even where two share a name.  reset=true
 * starts from an empty hash (">" in tracefs), false adds (">>").  The whole
 * list is checked first: an invalid glob, a pattern that matches no
 * function, or an index past the last line fails with -EINVAL (the reason
 * in ftrace_filter_error) and changes nothing.  Works on registered
 * ops (the sites are patched at once).
 */
int ftrace_set_filter(struct ftrace_ops *ops, const char *patterns, bool reset);
int ftrace_set_notrace(struct ftrace_ops *ops, const char *patterns, bool reset);
int ftrace_set_filter_ip(struct ftrace_ops *ops, uintptr_t ip, bool remove, bool reset);
/*
 * The same patterns as the filter (is_notrace: the notrace hash) of n
 * distinct ops at once, 1 <= n <= 4: all of them change, or (-EINVAL,
 * -ENOMEM, ...) none does.  Registered ones are moved by one update.  For
 * a filter several tracers share (tracefs's set_ftrace_filter).
 */
int ftrace_set_filter_ops(struct ftrace_ops *const *ops, unsigned n, bool is_notrace,
			  const char *patterns, bool reset);

/*
 * Direct trampolines: make the sites of the functions in ops' filter call
 * `addr` with nothing in between.  The code at addr follows the site's
 * calling convention (arch/<arch>/DIRECT.md) and may call the function's
 * body.  The functions it takes are those of its filter less its notrace
 * (the filter must not be empty: -EINVAL).  One direct trampoline per
 * function: -EBUSY if another registered direct ops takes one of them.
 * Every function it takes must be able to call addr (in reach of the
 * site's call, and aligned as an instruction): -ERANGE otherwise.  Either
 * refusal names the first such function in record order
 * (ftrace_filter_error, and on the console) and changes nothing; an ops
 * already registered gets -EBUSY with nothing named.  A filter or notrace
 * change of a
 * registered direct ops (ftrace_set_filter and the others above) is
 * judged the same way, with the new hashes; for several ops at once, the
 * direct ops of the call must not take a function of each other's either.
 * A function that also
 * has callback ops calls the regs list caller, which calls them and then
 * enters addr in the same state as the site would have: the direct
 * trampoline runs on every call either way.
 */
int register_ftrace_direct(struct ftrace_ops *ops, uintptr_t addr);
int unregister_ftrace_direct(struct ftrace_ops *ops);

/* The list callers' functions: call every registered ops whose hashes
 * match ip.  ftrace_ops_list_func is the plain list caller's
 * (arch_ftrace_list_caller; fregs without registers), and
 * ftrace_ops_list_regs_func the regs list caller's
 * (arch_ftrace_regs_list_caller; fregs with the site's full frame, which
 * only SAVE_REGS ops see, and the direct trampoline to enter after the
 * callbacks).  On arm64 the callers reach them through ftrace_list_ops,
 * the data word of list sites (call and regs_call), on x86-64 directly. */
void ftrace_ops_list_func(uintptr_t ip, uintptr_t parent_ip, struct ftrace_ops *op,
			  struct ftrace_regs *fregs);
void ftrace_ops_list_regs_func(uintptr_t ip, uintptr_t parent_ip, struct ftrace_ops *op,
			       struct ftrace_regs *fregs);
extern struct ftrace_ops ftrace_list_ops;   /* per-site data word for list sites */

/* tracefs listings, one line per call of out():
 * available_filter_functions (every record's name; line N, from 1, is the
 * function a filter's index N selects), available_filter_functions_addrs
 * (Linux 6.5's: "address name", the same lines: two functions of one name
 * told apart by address) and enabled_functions
 * (Linux's layout: name, reference count, R/D/O flags, then the trampoline
 * and the callback it reaches, or "->" the shared caller). */
void ftrace_list_available(void (*out)(void *ctx, const char *line), void *ctx);
void ftrace_list_available_addrs(void (*out)(void *ctx, const char *line), void *ctx);
void ftrace_list_enabled(void (*out)(void *ctx, const char *line), void *ctx);

/* Reclaim the trampolines freed so far (filled with traps, free for reuse)
 * once no CPU can be inside them: a grace period, under the ftrace lock.
 * Thread context.  Updates reclaim as they go; tests call it to see it. */
void ftrace_reclaim_trampolines(void);


/*
 * The calling thread is not traced until ftrace_thread_notrace_end(): its
 * task context holds the recursion bits (callbacks' and the list
 * function's) as if it were inside a callback, so every tracer, graph
 * user, profiler and fprobe skips its calls.  Interrupts it takes are
 * traced as before (theirs are other bits).  The bits follow the thread:
 * a switch puts them into the CPU's recursion word (boot/sched.c
 * schedule()), so a traced call pays nothing for this.  A direct
 * trampoline is no callback and still runs.  Thread context, not from a
 * callback; the pair does not nest.  What trace_pipe's reader uses: its
 * printing never feeds the buffer it drains (trace/DESIGN.md).
 */
void ftrace_thread_notrace_begin(void);
void ftrace_thread_notrace_end(void);

/* Stop all tracing for good after an impossible state; says why. */
void ftrace_kill(const char *why);
extern bool ftrace_dead;
static inline __attribute__((always_inline)) bool ftrace_is_dead(void)
{
	/* inline: on every call's path (arch_load_relaxed8: a relaxed load) */
	return arch_load_relaxed8((const uint8_t *)&ftrace_dead) != 0;
}

#endif
