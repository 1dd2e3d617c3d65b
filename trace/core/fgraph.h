/*
 * fgraph.h — function-graph users' API: entry and exit callbacks for
 * traced functions, through shadow return stacks shared by several users.
 *
 * A user (struct fgraph_ops) is an ftrace ops (its filter and notrace
 * hashes choose the functions) plus an entry and an exit callback.  On a
 * hooked function's entry, the core pushes a frame on the shadow stack of
 * the running context, calls the entry callback of every user attached to
 * the function, and — if at least one returned true — replaces the
 * function's return address with arch_fgraph_return_hook.  When the
 * function returns, the hook pops the frame, calls the exit callbacks of
 * the users that accepted the call, and returns to the original address.
 *
 * Shadow stacks: one per thread (idle threads included: they are per CPU),
 * one per CPU for interrupt context.  A frame is pushed and popped by its
 * own context only; interrupts nest above it (LIFO), so the only
 * interleavings are nested pushes between our reserve and our pop — see
 * fgraph.c.  A full stack counts an overrun and the call is not hooked.
 *
 * Callback contract: called with preemption disabled (the core raised the
 * running thread's count by exactly one) and this context's recursion bit
 * held (calls they make to traced functions are not traced) -- except the
 * _NOFP instances of fgraph_inline.h, which only found the bit free and
 * leave the count alone: their callbacks call no traced function
 * (tools/check-nofp.py) and run in trampoline text, never preempted (their
 * calls out of it raise the count: FTRACE_CALL_COLD); must not sleep.
 * fgraph_ent.preempt and fgraph_ret.preempt are the traced code's count
 * either way.
 * `data` is FGRAPH_DATA_WORDS words private to the user for this call:
 * written at entry, handed back at exit.  Exit callbacks run only for users
 * still registered (a user unregistered while its frames are on stacks
 * never hears of them: those functions just return).
 *
 * Registration: thread context; at most FGRAPH_MAX_USERS users at once.
 * ops.func is left NULL (the core fills it in), or set to a callback made
 * with FGRAPH_DEFINE_ENTRY (trace/core/fgraph_inline.h) that calls the user's
 * entry callback directly; likewise ret_handler (FGRAPH_DEFINE_RETURN) for
 * the exit callback, and solo_return (FGRAPH_DEFINE_RETURN_NOFP) for the
 * return hook's whole C half while the user is the only one.
 */
#ifndef TRACE_FGRAPH_H
#define TRACE_FGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/core/fgraph_frame.h"
#include "trace/core/ftrace.h"


struct fgraph_stack;

struct cpu;

struct fgraph_ent {
	uintptr_t func;
	uintptr_t parent;                /* the original return address */
	unsigned depth;                  /* hooked frames below, continuing the
					  * interrupted thread's in an interrupt */
	uint64_t calltime;               /* buffer clock (arch_counter) */
	struct ftrace_regs *fregs;       /* argument state */
	uint32_t *state;                 /* the user's word for this context (0 at start) */
	const uint32_t *task_state;      /* in an interrupt: the thread's word (read only);
					  * else = state */
	struct cpu *cpu;                 /* the CPU running the callback (preemption is off) */
	unsigned preempt;                /* the traced code's preemption count */
	bool in_irq;                     /* the call is in an interrupt handler */
	uint32_t cx;                     /* an _NOFP inlined entry's only
					  * (FGRAPH_DEFINE_ENTRY_NOFP): this CPU's
					  * trace_guard | trace_ctx as its guard test
					  * loaded them, for trace_entry_word_ctx */
};

struct fgraph_ret {
	uintptr_t func;
	uintptr_t parent;                /* the original return address */
	unsigned depth;
	uint64_t retval;                 /* raw return register (0 with a mark) */
	unsigned mark;                   /* 0, or FGRAPH_RET_LATE / _GONE (fgraph_frame.h):
					  * the trace stack's exits only (trace/core/tstack.h) */
	uint64_t calltime, rettime;
	uint64_t overrun;                /* calls this context could not hook so far
					  * (at most FGRAPH_OVERRUN_MAX) */
	uint32_t *state;
	struct cpu *cpu;                 /* the CPU running the callback (preemption is off) */
	struct thread *thread;           /* its current thread (cpu->current) */
	unsigned preempt;                /* the traced code's preemption count */
	unsigned raised;                 /* 1: the core raised the running thread's
					  * count for the callback, else 0 (preempt is the
					  * count less raised: fgraph_inline.h's
					  * fgraph_ret_preempt reads it so) */
	uint32_t cx;                     /* raised 0: the guard pair's OR
					  * (fgraph_ret_cx) */
	/* Where func, calltime, depth and overrun come from, for the readers
	 * below: the same values, read where they are used.  An exit inlined
	 * into its return path (FGRAPH_DEFINE_RETURN) that reads them after its
	 * ring-buffer reservation keeps two pointers live across it instead of
	 * four values (the compiler drops the fields no one reads). */
	const uint64_t *frame;
	const struct fgraph_stack *stack, *outer;
};

/* r->func, r->calltime, r->depth and r->overrun, read from the frame and
 * its stacks (valid while the exit callback runs). */
static inline uintptr_t fgraph_ret_func(const struct fgraph_ret *r)
{
	return r->frame[FR_FUNC];
}

static inline uint64_t fgraph_ret_calltime(const struct fgraph_ret *r)
{
	return r->frame[FR_TIME];
}

static inline unsigned fgraph_ret_depth(const struct fgraph_ret *r)
{
	return r->stack->depth - 1 + (r->outer ? r->outer->depth : 0);
}

static inline uint64_t fgraph_ret_overrun(const struct fgraph_ret *r)
{
	return r->stack->overrun;
}

struct fgraph_ops;
typedef bool (*fgraph_entry_t)(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data);
typedef void (*fgraph_ret_t)(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data);
/* A whole return path, made with FGRAPH_DEFINE_RETURN (trace/core/fgraph_inline.h). */
typedef uintptr_t (*fgraph_return_t)(struct fgraph_ret_regs *rr, struct fgraph_stack *st,
				     struct fgraph_stack *outer, unsigned base, struct fgraph_ops *g);
/* The return hook's whole C half for one user, made with
 * FGRAPH_DEFINE_RETURN_NOFP (trace/core/fgraph_inline.h); under the trace
 * stack (FGRAPH_TSTACK, below) the exit sled's, with ftrace_sled_exit's
 * arguments. */
#ifdef BT_INSTR_XRAY
/* x0: what the handler has at hand for the return registers, arch_defs.h:
 * the return value (fgraph_fexit_value) and the handler's struct
 * fgraph_ret_regs (fgraph_fexit_regs) come from it and sp (arm64: the
 * value itself, no load; x86-64: the struct); at and sp as
 * ftrace_sled_exit's. */
typedef uintptr_t (*fgraph_solo_return_t)(uint64_t x0, uintptr_t at, uintptr_t sp);
#else
/* retval: the function's return value (x0 / rax); sp: the SP it was
 * entered with, where the hook's struct fgraph_ret_regs ends
 * (fgraph_ret_regs_of_sp, arch_defs.h): in registers, so that the common
 * path neither loads the one nor computes the other from the struct. */
typedef uintptr_t (*fgraph_solo_return_t)(uint64_t retval, uintptr_t sp);
#endif

struct fgraph_ops {
	struct ftrace_ops ops;           /* filter/notrace: ftrace_set_filter(&g->ops, ...);
					  * func: see Registration above */
	fgraph_entry_t entryfunc;
	fgraph_ret_t retfunc;            /* may be NULL */
	fgraph_return_t ret_handler;     /* NULL (the core fills it in at each
					  * registration: retfunc's or, without one,
					  * only the pop), or made with
					  * FGRAPH_DEFINE_RETURN: the return of a call
					  * this user alone took, with retfunc's work
					  * called directly (then retfunc is needed) */
	fgraph_solo_return_t solo_return;  /* NULL, or made with FGRAPH_DEFINE_RETURN_NOFP
					  * (FTRACE_HOT_NOFP, else register_fgraph
					  * refuses the user): while this user is the
					  * only one registered, the return hook (the
					  * exit sled's handler under FGRAPH_TSTACK)
					  * calls it and saves no FP/SIMD register for it */
	void *private;
	int idx;                         /* core: slot while registered, else -1 */
	uint64_t ts_users;               /* core: the users word of this user's single-user
					  * trace-stack frames pushed in thread context
					  * (fgraph_enter_one; fgraph_frame.h), kept just
					  * before gen: the frame has the two words in that
					  * order, so one load pair and one store pair */
	uint64_t gen;                    /* core: this registration's serial (never reused):
					  * a frame's exits go to the user only if it matches */
	uint64_t frame_tag;              /* core: FR_TAG(gen), the last word of this
					  * user's single-user frames (fgraph_frame.h) */
	uint64_t state_off;              /* core: the byte offset of slot idx's state
					  * word in a struct fgraph_stack, kept just after
					  * frame_tag: the single-user entry (return hooks)
					  * loads the two as a pair and the word at
					  * st + state_off */
	uint64_t nmissed;                /* core (atomic): calls of this user that a full
					  * shadow stack left unhooked; zeroed at register */
};

/* The backend's graph: return hooks (the default: the entry rewrites the
 * return address), or the trace stack (INSTR=xray: entry sleds push, exit
 * and tail sleds complete and pop, trace/core/tstack.h; no return address is
 * ever written).  Both give every graph user the same callbacks. */
#ifdef BT_INSTR_XRAY
#define FGRAPH_TSTACK 1
#else
#define FGRAPH_TSTACK 0
#endif

/* Nonzero while a graph user is registered: the XRay exit and tail sleds'
 * handlers (arch/ARCH/ftrace_tramp.S) return at once without one.  Written
 * under the fgraph mutex, read lock-free. */
extern unsigned char fgraph_ts_active;

/* What the XRay exit and tail sleds' handlers call (arch/ARCH/ftrace_tramp.S,
 * which keep every register the sled may have live): sled, the sled's
 * address (an exit or tail sled that boot initialised: its function from
 * arch_sled_func), for an exit sled at, what the handler finds at no
 * cost (site.h arch_sled_exit_func: arm64 the function itself, x86-64 the
 * sled + ARCH_SLED_EXIT_AT); sp, the function's stack pointer as its first instruction
 * saw it; x0, the return registers as the exit sled found them, as the
 * handler passes them (fgraph_solo_return_t; struct fgraph_ret_regs:
 * fgraph_fexit_regs(x0, sp), arch_defs.h; the return value:
 * fgraph_ret_regs_value; what the exit callbacks read, as at a return
 * hook); ftrace_sled_exit_fpsaving passes the struct itself, which
 * fgraph_fexit_regs gives back as it is or finds from sp again.
 * Any context.  ftrace_sled_exit's value is no one's (the handler drops
 * it): it lets its common path be a tail call. */
uintptr_t ftrace_sled_exit(uint64_t x0, uintptr_t at, uintptr_t sp);
/* What the exit sled's handler calls (arch/ARCH/ftrace_tramp.S, __fexit__),
 * with fgraph_solo_return_t's arguments: NULL while no graph user is registered
 * (it returns at once; where the handler learns that otherwise, site.h
 * ARCH_FEXIT_NEVER_NULL and arch_fexit_set, __fexit_fp, so that any value it reads
 * is one to call); while exactly one is and it brings a solo_return,
 * that, for which the handler saves no FP/SIMD register (fgraph_inline.h,
 * fgraph_sled_exit_solo: anything else goes to ftrace_sled_exit_fpsaving);
 * otherwise __fexit_fp, the handler's own way into ftrace_sled_exit, which
 * keeps the FP/SIMD return registers in rr.  Written under the fgraph
 * mutex (users_changed), read once an exit, lock-free. */
extern fgraph_solo_return_t fgraph_ts_exit;
void ftrace_sled_tail(uintptr_t sled, uintptr_t sp);

/* 0, -EINVAL (no entryfunc, a ret_handler of the user's own without a
 * retfunc, or a solo_return outside FTRACE_HOT_NOFP text), -EBUSY
 * (already registered, or all slots taken), or the ftrace error (then
 * nothing changed).  unregister_fgraph: 0, -EINVAL (not registered),
 * or the ftrace error; as with unregister_ftrace_function it does not fail
 * for lack of memory, and after a failure while tracing lives the user is
 * still registered and called (after tracing was killed it is gone). */
int register_fgraph(struct fgraph_ops *g);
int unregister_fgraph(struct fgraph_ops *g);

/* The core's own entry points (the return hook, the list functions):
 * trace/core/fgraph_hooks.h; the shadow stacks' allocation, set-up and
 * unwinding help: trace/boot.h. */

struct fgraph_stats {
	uint64_t overrun;                /* calls not hooked: a stack was full */
	unsigned depth;                  /* frames on the caller's thread stack now */
};
void fgraph_stats(struct fgraph_stats *out);

#endif
