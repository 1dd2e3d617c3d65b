/*
 * fgraph_inline.h — fgraph's shadow stacks and its single-user entry and
 * return, for fgraph.c and for a graph user that wants its callbacks
 * inlined into its own site callback and return handler (the
 * function_graph tracer, trace/tracers/function_graph.c).
 *
 * Use: FGRAPH_DEFINE_ENTRY(name, entry) defines `name`, an ftrace callback
 * doing what fgraph.c's own fgraph_ops_func does — push a frame, call the
 * user's entry callback, hook the return — with `entry` called directly
 * (an always-inline function: the compiler folds it in).  Put it in the
 * user's fgraph_ops.ops.func before register_fgraph; `entry` must do what
 * the user's entryfunc does (a site shared with other graph users goes
 * through the list function and calls entryfunc), and must not read the
 * return address from e->fregs (it is the return hook already, put back if
 * `entry` refuses the call; e->parent has the original).
 * FGRAPH_DEFINE_RETURN(name, exitfn) is the same for the return: `name`
 * does what fgraph_return does for a frame that one user alone took — call
 * its exit callback, pop the frame — with `exitfn` (always-inline, doing
 * what the user's retfunc does) called directly; put it in the user's
 * fgraph_ops.ret_handler; FGRAPH_DEFINE_RETURN_NOFP also makes the whole C
 * half of the return hook for its user alone, for fgraph_ops.solo_return.
 * The _NOFP variants are the same as
 * FTRACE_HOT_NOFP code (trace/core/ftrace.h): for callbacks that touch no
 * FP/SIMD register and call no traced function, which tools/check-nofp.py
 * proves at build time; they only test the recursion bit.
 *
 * Nothing else here is an interface: frame layout and stacks belong to
 * fgraph.c.
 */
#ifndef TRACE_FGRAPH_INLINE_H
#define TRACE_FGRAPH_INLINE_H

#include "boot/cpu.h"
#include "boot/sched.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_frame.h"
#include "trace/core/recursion.h"
#include "trace/core/tstack.h"

#define FGRAPH_INLINE static inline __attribute__((always_inline))

/* In fgraph.c, out of line (rare): CPU c's interrupt stack; counting a call
 * that found no room on st for the users in mask.  Called through
 * register-preserving thunks (arch/hooks.h), so that the callbacks' common
 * path keeps no value in a callee-saved register for them. */
struct fgraph_stack *fgraph_irq_stack(struct cpu *c);
void fgraph_count_overrun(struct fgraph_stack *st, unsigned mask);

FGRAPH_INLINE struct fgraph_stack *fgraph_thread_stack(struct cpu *c)
{
	return c->current ? c->current->ret_stack : NULL;   /* NULL: a CPU coming up */
}

/* c->current as the CPU's word (x86-64 GS-relative: c need not be kept). */
FGRAPH_INLINE struct thread *fgraph_cpu_current(struct cpu *c)
{
	return (struct thread *)arch_cpu_word(c, __builtin_offsetof(struct cpu, current));
}

/* The trace stack's way to the running thread's stack on CPU c, for the
 * sleds' single-user paths: the CPU's own copy (boot/cpu.h, ret_stack:
 * one load, x86-64 GS-relative, no thread pointer and no test of it), NULL
 * as fgraph_thread_stack's.  Not preempted (FTRACE_HOT), so c stays ours. */
FGRAPH_INLINE struct fgraph_stack *fgraph_cpu_stack(struct cpu *c)
{
	return (struct fgraph_stack *)arch_cpu_word(c, __builtin_offsetof(struct cpu, ret_stack));
}

/* The stack of the running context on CPU c, whose current thread is t
 * (NULL: a CPU coming up), and the interrupted thread's when that is a
 * different one (for depth and task_state).  So a context with a stack
 * is in an interrupt exactly when *outer is set. */
FGRAPH_INLINE struct fgraph_stack *fgraph_context_stack_of(struct cpu *c, struct thread *t,
							   struct fgraph_stack **outer)
{
	struct fgraph_stack *ts = t ? t->ret_stack : NULL;
	if (__builtin_expect(c->irq_depth != 0, 0)) {
		*outer = ts;
		return ts ? CALL_PRESERVING(struct fgraph_stack *, fgraph_irq_stack, c) : NULL;
	}
	*outer = NULL;
	return ts;
}

FGRAPH_INLINE struct fgraph_stack *fgraph_context_stack(struct cpu *c, struct fgraph_stack **outer)
{
	return fgraph_context_stack_of(c, c->current, outer);
}

/* A: reserve `size` words; B's first half: the header, and `last` for the
 * last word (size, or a single-user frame's FR_TAG).  Returns the frame,
 * or NULL (overrun counted) when the stack is full; *below: the frames
 * under it on st. */
FGRAPH_INLINE uint64_t *fgraph_frame_push(struct fgraph_stack *st, unsigned size, uint64_t last,
					  unsigned mask,
					  uintptr_t ip, uintptr_t parent,
					  struct ftrace_regs *fregs, bool at_base, unsigned *below)
{
	unsigned base = st->top, depth = st->depth;      /* one load pair */
	if (__builtin_expect(base + size > FGRAPH_STACK_WORDS, 0)) {
		FTRACE_CALL_COLD_VOID(fgraph_count_overrun, st, mask);
		return NULL;
	}
	*below = depth;                  /* kept: the fence below would reload it */
	st->top = base + size;                                   /* A */
	st->depth = depth + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* at: st + base words through an empty asm, w's offset added after
	 * it, else GCC indexes st by base + 8 (w's place), which arm64
	 * zero-extends, adds and shifts apart (at_base: the return hooks'
	 * inlined entries; the generic entry's and the trace stack's
	 * registers come out better on x86-64 without it). */
	uintptr_t at = (uintptr_t)st + (uintptr_t)base * sizeof(uint64_t);
	if (at_base)
		__asm__("" : "+r"(at));
	uint64_t *f = (uint64_t *)(at + __builtin_offsetof(struct fgraph_stack, w));  /* B */
	f[FR_RET] = parent;
	f[FR_FUNC] = ip;
	f[FR_SP] = ftrace_regs_get_stack_pointer(fregs);
	f[size - 1] = last;              /* before the clock: not kept across it */
	/* Unordered, as the ring buffer's own read (trace/DESIGN.md, "The
	 * call's time"): reading early only lengthens the call. */
	f[FR_TIME] = arch_counter_relaxed();
	return f;
}

/* Undo fgraph_frame_push (no user took the call): nested pushes since are
 * all popped by now. */
FGRAPH_INLINE void fgraph_frame_drop(struct fgraph_stack *st, uint64_t *f)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	st->depth--;
	st->top = (unsigned)(f - st->w);
}

/* preempt: the traced code's preemption count; below: the frames under f
 * on its stack (fgraph_frame_push). */
FGRAPH_INLINE void fgraph_ent_init(struct fgraph_ent *e, struct cpu *c, uintptr_t ip,
				   uintptr_t parent, struct ftrace_regs *fregs, const uint64_t *f,
				   unsigned below, struct fgraph_stack *outer, unsigned preempt)
{
	e->cpu = c;
	e->preempt = preempt;
	e->in_irq = outer != NULL;             /* fgraph_context_stack_of */
	e->func = ip;
	e->parent = parent;
	e->depth = below + (outer ? outer->depth : 0);
	e->calltime = f[FR_TIME];
	e->fregs = fregs;
}

/* The byte offset of slot i's state word in a struct fgraph_stack
 * (fgraph_ops.state_off). */
FGRAPH_INLINE uint64_t fgraph_state_off(unsigned i)
{
	return __builtin_offsetof(struct fgraph_stack, state) + sizeof(uint32_t) * i;
}

/* The slot whose state word is at off (fgraph_state_off's inverse). */
FGRAPH_INLINE unsigned fgraph_state_slot(uint64_t off)
{
	return (unsigned)((off - fgraph_state_off(0)) / sizeof(uint32_t));
}

/* e's state words for the user whose state_off is off: this context's
 * and, in an interrupt, the thread's (register_fgraph zeroed both for the
 * slot's registration). */
FGRAPH_INLINE void fgraph_ent_state(struct fgraph_ent *e, uint64_t off, struct fgraph_stack *st,
				    struct fgraph_stack *outer)
{
	e->state = (uint32_t *)((char *)st + off);
	e->task_state = __builtin_expect(outer != NULL, 0) ? (uint32_t *)((char *)outer + off)
							   : e->state;
}

/* Take back the call whose frame (FR_MIN words, fgraph_enter_one's) is
 * the top one on st, after C: the return address put back, the frame
 * dropped.  Nested pushes since are all popped by now. */
FGRAPH_INLINE void fgraph_enter_refuse(struct fgraph_stack *st)
{
	uint64_t *f = &st->w[st->top - FR_MIN];
	if (!FGRAPH_TSTACK)
		*ftrace_regs_return_slot(ftrace_regs_of_stack_pointer(f[FR_SP])) = f[FR_RET];
	fgraph_frame_drop(st, f);
}

/* C: the function returns into the hook.  After B's writes: a nested
 * context reads the frame only from the hook, once the function returns. */
FGRAPH_INLINE void fgraph_redirect(struct ftrace_regs *fregs)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	*ftrace_regs_return_slot(fregs) = (uintptr_t)arch_fgraph_return_hook;
}

/*
 * Under INSTR=xray, whether the trace stack's rules would pop nothing at
 * an entry at sp, pushed at interrupt level `level`, on st (tstack.c
 * pop_gone): st is empty, or its top frame is not a trace-stack entry, or
 * one of a lower level, or of this level above sp (a caller's, still
 * running).  Otherwise (a frame of a deeper level, or one at or below sp:
 * its function has left) the rules must run first.
 */
FGRAPH_INLINE bool fgraph_ts_top_clear(const struct fgraph_stack *st, uintptr_t sp, unsigned level)
{
	unsigned top = st->top;
	if (top == 0)
		return true;
	const uint64_t *end = &st->w[top];
	unsigned size = (unsigned)end[-1];
	if (__builtin_expect(size < FR_MIN || size > top, 0))
		return false;              /* not a frame: the rules' checks say so */
	const uint64_t *f = end - size;
	uint64_t users = f[FR_USERS];
	unsigned at = (unsigned)((users >> FR_TS_LEVEL_SHIFT) & FR_TS_LEVEL_MASK);
	level &= FR_TS_LEVEL_MASK;
	return !(users & FR_TS_ENTRY) || at < level || (at == level && f[FR_SP] > sp);
}

/*
 * The site callback of one graph user (op is its ops): one user, so the
 * frame has one block at a fixed place.  g is registered, or being
 * unregistered (its sites are still being moved away; unregister_fgraph
 * clears the slot only after that), and g->idx, g->gen were written
 * before its sites could reach it.  entry: the user's entry callback
 * (NULL: g->entryfunc).  c: this CPU (FTRACE_HOT: not preempted here, so
 * c stays this CPU: function.c), whose irq_depth is known to be 0 (!irq)
 * or not (irq): each context is an instance of its own, so the common
 * one has no test for the other left (FGRAPH_DEFINE_ENTRY).  nofp: the
 * count is not raised either (fgraph.h).
 */
FGRAPH_INLINE void fgraph_enter_one(struct cpu *c, uintptr_t ip, uintptr_t parent,
				    struct ftrace_ops *op, struct ftrace_regs *fregs,
				    fgraph_entry_t entry, bool nofp, bool irq)
{
	/* A NOFP entry (both backends) reads the thread only for the event
	 * (below): its stack is the CPU's word (boot/cpu.h, ret_stack: set
	 * before current, so that a function traced between the two pushes
	 * and pops on the same stack), NULL while there is no thread.  x86-64:
	 * no register keeps the thread across the push (graph_call -2). */
	bool cpu_stack = nofp;
	struct thread *t = cpu_stack ? NULL : fgraph_cpu_current(c);
	if (!cpu_stack && __builtin_expect(!t, 0))
		return;                    /* a CPU still booting */
	/* The traced code's count: nofp leaves it alone, so it is read where
	 * the entry wants it (below), not kept from here. */
	unsigned depth = nofp ? 0 : t->preempt_count;
	if (!nofp)
		ftrace_preempt_disable_at(t, depth);
	/* nofp: FTRACE_HOT_NOFP code, which only tests the bit (ftrace.h),
	 * and the dead byte with it (one AND: ftrace_callback_free_on). */
	uint32_t ctx;
	unsigned bit = nofp ? 0 : ftrace_recursion_take_on(c, 0);
	if (nofp ? !ftrace_callback_free_on(c, &ctx) : !bit || ftrace_is_dead_on(c))
		goto out;
	/* An _NOFP inlined entry refuses the calls of a user being
	 * unregistered itself (FGRAPH_DEFINE_ENTRY_NOFP). */
	if (!(nofp && entry) && !(op->flags & FTRACE_OPS_FL_ENABLED))
		goto out;
	struct fgraph_ops *g = (struct fgraph_ops *)((char *)op -
						     __builtin_offsetof(struct fgraph_ops, ops));
	/* As fgraph_context_stack_of, with irq_depth known. */
	struct fgraph_stack *outer = NULL, *st = cpu_stack ? fgraph_cpu_stack(c) : t->ret_stack;
	if (irq) {
		outer = st;
		st = outer ? CALL_PRESERVING(struct fgraph_stack *, fgraph_irq_stack, c) : NULL;
	}
	if (__builtin_expect(!st, 0))
		goto out;                  /* a CPU still booting */
	/* The trace stack's frame (no return hook: the exit sled pops) is
	 * pushed here as a hooked one when the top holds nothing its rules
	 * would pop first; else they push it, asking the user through its
	 * entryfunc: held (the bit taken, the count raised) or, from NOFP code,
	 * through tstack_entry's FP-saving thunk, which takes both itself. */
	unsigned level = irq ? c->irq_depth : 0;
	if (FGRAPH_TSTACK &&
	    !fgraph_ts_top_clear(st, ftrace_regs_get_stack_pointer(fregs), level)) {
		if (nofp)
			CALL_FPSAVING_VOID(tstack_entry, ip, parent,
					   ftrace_regs_get_stack_pointer(fregs), fregs, 1u << g->idx);
		else
			tstack_entry_held(c, ip, parent, ftrace_regs_get_stack_pointer(fregs),
					  fregs, 1u << g->idx);
		goto out;
	}
	/* Loaded before the push's fence (and the tag with it: one load
	 * pair), so that op need not live across it; the slot's bit, for a
	 * full stack only, from it too (no second value across the push).
	 * The trace stack's entry keeps op for ts_users and gen after the
	 * push anyway: there the slot's index (x86-64's figures: the offset
	 * cost 4 more a call). */
	unsigned i = FGRAPH_TSTACK ? (unsigned)g->idx : 0;
	uint64_t state_off = FGRAPH_TSTACK ? fgraph_state_off(i) : g->state_off;
	unsigned below;
	/* A single-user frame: its last word, the user's tag, says whose it
	 * is (with return hooks the users word and the block's serial are not
	 * written: the hook reads neither of a tagged frame; on the trace
	 * stack both are written below too). */
	uint64_t *f = fgraph_frame_push(st, FR_MIN, g->frame_tag,
					1u << (FGRAPH_TSTACK ? i : fgraph_state_slot(state_off)),
					ip, parent, fregs, entry && !FGRAPH_TSTACK,
					&below);
	if (!f)
		goto out;
	uint64_t *blk = &f[FR_HEADER];
	if (FGRAPH_TSTACK) {
		/* The trace stack's exit (ftrace_sled_exit) reads the tag, the
		 * users word's trace-stack bits; its rules (tstack.c) the users
		 * word, with those bits, and the block's serial.  Taken and asked, before the
		 * callback says so; a frame the callback refuses is dropped (so i
		 * need not live across it). */
		_Static_assert(__builtin_offsetof(struct fgraph_ops, gen) ==
			       __builtin_offsetof(struct fgraph_ops, ts_users) + 8 &&
			       FR_HEADER + FB_GEN == FR_USERS + 1, "one load pair, one store pair");
		/* Both loaded before either store (which the compiler must
		 * otherwise take for one that may change g).  ts_users is the
		 * word at level 0: an interrupt's adds its level. */
		uint64_t users = g->ts_users, gen = g->gen;
		f[FR_USERS] = irq ? users | fr_ts_entry_bits(level) : users;
		blk[FB_GEN] = gen;
	}
	struct fgraph_ent e;
	fgraph_ent_init(&e, c, ip, parent, fregs, f, below, outer,
			nofp ? (cpu_stack ? fgraph_cpu_current(c) : t)->preempt_count : depth);
	fgraph_ent_state(&e, state_off, st, outer);
	if (nofp)
		e.cx = ctx;              /* for an _NOFP inlined entry's header */
	if (!entry) {
		/* g->entryfunc, any user's: it may read the return address
		 * from fregs, so C comes after it. */
		if (g->entryfunc(&e, g, &blk[FB_DATA])) {
			if (!FGRAPH_TSTACK)
				fgraph_redirect(fregs);      /* C */
		} else {
			fgraph_frame_drop(st, f);
		}
		goto out;
	}
	/* An inlined entry (FGRAPH_DEFINE_ENTRY's contract: it reads no
	 * return address from fregs): C before it, taken back if it refuses
	 * the call.  The frame is read only by the hook, which the function
	 * cannot reach before we return.  So fregs, st and f need not live
	 * across the callback: a refusal finds them again (in thread context
	 * the stack is the thread's own; nested pushes since are all popped,
	 * so ours is the top frame; fregs is where its entry SP says). */
	if (!FGRAPH_TSTACK)
		fgraph_redirect(fregs);                      /* C */
	if (!entry(&e, g, &blk[FB_DATA]))
		/* This CPU's thread again rather than t kept (FTRACE_HOT). */
		fgraph_enter_refuse(irq ? st : arch_this_cpu()->current->ret_stack);
out:
	if (bit)
		ftrace_recursion_exit_on(c, bit);
	if (!nofp)
		ftrace_preempt_enable_at(t, depth);
}

/*
 * For an _NOFP inlined entry (FGRAPH_DEFINE_ENTRY_NOFP) that, in thread
 * context, hands the call on to a function of its own, tail-called so
 * that nothing the site callback holds lives across it (the entry then
 * returns true): there, on CPU c, the call's fgraph_ent for user g found
 * again from the thread's top frame, which is the call's (nested pushes
 * since are all popped).  Returns the user's data words; *stp: the stack,
 * for fgraph_enter_refuse if that function refuses the call.
 */
FGRAPH_INLINE uint64_t *fgraph_ent_of_top(struct fgraph_ent *e, struct cpu *c,
					  struct fgraph_ops *g, struct fgraph_stack **stp)
{
	struct thread *t = c->current;
	struct fgraph_stack *st = t->ret_stack;
	uint64_t *f = &st->w[st->top - FR_MIN];
	fgraph_ent_init(e, c, f[FR_FUNC], f[FR_RET], ftrace_regs_of_stack_pointer(f[FR_SP]), f,
			st->depth - 1, NULL, t->preempt_count);
	fgraph_ent_state(e, g->state_off, st, NULL);
	*stp = st;
	return &f[FR_HEADER + FB_DATA];
}

/* ---- the return (fgraph.c's fgraph_return finds the frame first) ---- */

/* Where the top frame on st starts if it is a single-user frame (FR_MIN
 * words; st->top >= FR_MIN): every word of it from one pointer, st plus
 * top words, made in one add.  (An index top - FR_MIN in 32 bits makes
 * GCC keep a second pointer, for its wrap-around; &st->w[top] makes it
 * fold w's offset into the sum, two more instructions, unless the sum is
 * opaque to it.) */
FGRAPH_INLINE uint64_t *fgraph_top_min(struct fgraph_stack *st)
{
	char *end = (char *)st + (uintptr_t)st->top * 8;
	__asm__("" : "+r"(end));
	return (uint64_t *)(end + __builtin_offsetof(struct fgraph_stack, w)) - FR_MIN;
}

/* What an exit callback is told about the frame at f; raised: 1 if the
 * return path raised the running thread's preemption count for the
 * callback, else 0 (the traced code's count is the thread's less that);
 * cx: with raised 0, the guard pair's OR as the path loaded it
 * (ftrace_callback_free_on), else unread; t: c's current thread, as the
 * path loaded it for the stack (kept, not loaded again after the barriers
 * in between). */
FGRAPH_INLINE void fgraph_ret_init(struct fgraph_ret *r, struct cpu *c, struct thread *t,
				   const uint64_t *f, struct fgraph_stack *st,
				   struct fgraph_stack *outer, uint64_t retval, unsigned raised,
				   uint32_t cx)
{
	r->cpu = c;
	r->thread = t;
	r->raised = raised;
	if (!raised)
		r->cx = cx;
	r->preempt = t->preempt_count - raised;
	r->func = f[FR_FUNC];
	r->parent = f[FR_RET];
	r->retval = retval;
	r->mark = 0;
	r->calltime = f[FR_TIME];
	r->rettime = arch_counter();     /* ordered: after calltime (DESIGN) */
	r->frame = f;
	r->stack = st;
	r->outer = outer;
	r->overrun = fgraph_ret_overrun(r);
	r->depth = fgraph_ret_depth(r);
	r->state = NULL;
}

/* r->preempt, read from the running thread where it is used: an exit
 * inlined into its return path that reads it after its ring-buffer
 * reservation keeps no count live across it (the header reads the thread
 * there anyway). */
FGRAPH_INLINE unsigned fgraph_ret_preempt(const struct fgraph_ret *r)
{
	return r->thread->preempt_count - r->raised;
}

/* r->state for g, the user whose exit callback r is for (the word of g's
 * slot on r's stack, which is what r->state points at), computed where it
 * is read: an exit inlined into its return path that reads it on a rare
 * path only loads g->idx there.  (r->stack is const for the exit's reads
 * of the frame; the state words are the user's to write.) */
FGRAPH_INLINE uint32_t *fgraph_ret_state(const struct fgraph_ret *r, const struct fgraph_ops *g)
{
	/* A relaxed load, which GCC does not move out of its branch (a plain
	 * one it hoists onto the common path). */
	unsigned idx = arch_load_relaxed32((const uint32_t *)&g->idx);
	return (uint32_t *)&r->stack->state[idx];
}

/* c->trace_guard | c->trace_ctx for the exit's event header
 * (trace_entry_word_ctx): as the NOFP return path loaded it, else loaded
 * now. */
FGRAPH_INLINE uint32_t fgraph_ret_cx(const struct fgraph_ret *r)
{
	if (!r->raised)
		return r->cx;
	uint32_t ctx, guard = arch_load_pair32(&r->cpu->trace_guard, &ctx);
	return guard | ctx;
}

/* E: release the frame at base, the top one (D is done: nested pushes
 * since are all popped). */
FGRAPH_INLINE void fgraph_frame_release(struct fgraph_stack *st, unsigned base)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	st->depth--;
	st->top = base;                                              /* E */
}

/* E for the return hook: the release, then undo the return path's raise of
 * the preemption count (raised: there was one), and give the address the
 * function returns to. */
FGRAPH_INLINE uintptr_t fgraph_frame_pop(struct cpu *c, struct fgraph_stack *st, unsigned base,
					 bool raised)
{
	uintptr_t ret = st->w[base + FR_RET];
	fgraph_frame_release(st, base);
	if (raised)
		ftrace_preempt_enable_on(c->current);
	return ret;
}

/* The same for the top frame f on st when it is a single-user frame
 * (FR_MIN words): its return address read through f, and top lowered by
 * the frame's size in place, so that neither its index nor its base lives
 * until here (x86-64: a SUB from memory). */
FGRAPH_INLINE uintptr_t fgraph_frame_pop_min(struct cpu *c, struct fgraph_stack *st,
					     const uint64_t *f, bool raised)
{
	uintptr_t ret = f[FR_RET];
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	st->depth--;
	st->top -= FR_MIN;                                           /* E */
	if (raised)
		ftrace_preempt_enable_on(c->current);
	return ret;
}

/*
 * D and E for a frame that user g alone took, g still being the
 * registration that took it (fgraph_return checked its serial): its exit
 * callback `exitfn`, then the pop.  c: this CPU; retval: the function's
 * return value (fgraph_ret_regs_value); the frame is f, at base
 * on st (min: a single-user frame of FR_MIN words, popped by its size,
 * and base is not read), in trampoline text (not preempted); raises the
 * preemption count for exitfn unless nofp (fgraph.h).
 */
FGRAPH_INLINE uintptr_t fgraph_return_one_on(struct cpu *c, struct thread *t, uint64_t retval,
					     struct fgraph_stack *st, struct fgraph_stack *outer,
					     uint64_t *f, unsigned base, struct fgraph_ops *g,
					     fgraph_ret_t exitfn, bool nofp, bool min)
{
	if (!nofp)
		ftrace_preempt_disable_on(c->current);
	unsigned bit = nofp ? 0 : ftrace_recursion_take_on(c, 0);
	uint32_t ctx;
	/* nofp: the bit free and tracing alive in one test. */
	if (nofp ? ftrace_callback_free_on(c, &ctx) : bit && !ftrace_is_dead_on(c)) {
#ifdef __clang__
		/* The guard pair's OR made here, where the pair dies: clang kept
		 * both words to the header (x86-64: one callee-saved register
		 * more).  GCC makes it here already (arm64 +1 with the asm). */
		if (nofp)
			__asm__("" : "+r"(ctx));
#endif
		struct fgraph_ret r;
		fgraph_ret_init(&r, c, t, f, st, outer, retval, !nofp,
				nofp ? ctx : 0);
		r.state = &st->state[g->idx];
		exitfn(&r, g, &f[FR_HEADER + FB_DATA]);               /* D */
	}
	if (bit)
		ftrace_recursion_exit_on(c, bit);
	if (min)
		return fgraph_frame_pop_min(c, st, f, !nofp);
	return fgraph_frame_pop(c, st, base, !nofp);
}

/* The same, called from fgraph_return as g's ret_handler.  (The CPU is read
 * again rather than passed: one instruction, and it keeps the arguments in
 * registers on both arches.) */
FGRAPH_INLINE uintptr_t fgraph_return_one(struct fgraph_ret_regs *rr, struct fgraph_stack *st,
					  struct fgraph_stack *outer, unsigned base,
					  struct fgraph_ops *g, fgraph_ret_t exitfn, bool nofp)
{
	/* FTRACE_HOT: not preempted, so this CPU stays ours. */
	struct cpu *c = arch_this_cpu();
	return fgraph_return_one_on(c, c->current, fgraph_ret_regs_value(rr), st, outer,
				    &st->w[base], base, g, exitfn, nofp, false);
}

/* fgraph_return (trace/core/fgraph_hooks.h) through its FP-saving thunk
 * (arch/ARCH/fgraph.S): it stores the FP/SIMD return registers into rr,
 * where any user's exit may read them, and puts them back after.  The one
 * way from FTRACE_HOT_NOFP code into the general return. */
uintptr_t fgraph_return_fpsaving(struct fgraph_ret_regs *rr);

/*
 * The return hook's whole C half for user g alone (FGRAPH_DEFINE_RETURN_NOFP,
 * fgraph_ops.solo_return): what fgraph_return and g's ret_handler do, in
 * one function.  The hook calls it only while g is the one registered user
 * (fgraph.c, users_changed; unregister_fgraph's grace period waits for a
 * hook that read the pointer before it changed), so the top frame carrying
 * g's tag, entered at our SP, is all it needs to know that g alone took
 * the call.  Anything else (another user's frame, a frame below ours left
 * by a longjmp, a corrupt stack) goes to fgraph_return, through its
 * FP-saving thunk: the hook saved no FP/SIMD register.  c: this CPU
 * (FTRACE_HOT_NOFP: not preempted), whose irq_depth is known to be 0
 * (!irq) or not (irq): each context is an instance of its own, as at
 * entry (FGRAPH_DEFINE_RETURN_NOFP).  retval and sp as the hook passes them
 * (fgraph_solo_return_t): the hook's struct fgraph_ret_regs is found from
 * sp on the rare paths only.
 */
FGRAPH_INLINE uintptr_t fgraph_return_solo(struct cpu *c, uint64_t retval, uintptr_t sp,
					   struct fgraph_ops *g, fgraph_ret_t exitfn, bool irq)
{
	/* current is set: a frame was pushed (fgraph_enter_one).  c from
	 * arch_cpu_pinned: x86-64 reads its words GS-relative, no register
	 * holds it. */
	struct thread *t = (struct thread *)arch_cpu_word(c, offsetof(struct cpu, current));
	struct fgraph_stack *outer = NULL, *st = t->ret_stack;
	if (irq) {
		outer = st;                  /* as fgraph_context_stack says */
		st = outer ? CALL_PRESERVING(struct fgraph_stack *, fgraph_irq_stack, c) : NULL;
	}
	if (__builtin_expect(!st || st->top < FR_MIN, 0))
		return fgraph_return_fpsaving(fgraph_ret_regs_of_sp(sp));
	uint64_t *f = fgraph_top_min(st);
	if (__builtin_expect(f[FR_MIN - 1] != g->frame_tag || f[FR_SP] != sp, 0))
		return fgraph_return_fpsaving(fgraph_ret_regs_of_sp(sp));
	return fgraph_return_one_on(c, t, retval, st, outer, f, 0, g, exitfn, true, true);
}

/* ftrace_sled_exit (fgraph.h) through its FP-saving thunk (arch/ARCH/
 * fgraph.S): it stores the FP/SIMD return registers into rr, where any
 * user's exit may read them, and puts them back after.  The one way from
 * FTRACE_HOT_NOFP code into the trace stack's general exit. */
uintptr_t ftrace_sled_exit_fpsaving(struct fgraph_ret_regs *rr, uintptr_t at, uintptr_t sp);

/*
 * Whether the frame f, the top of its stack, is what an exit sled hands to
 * g's ret_handler (ftrace_sled_exit; at as it says, sp the function's): it
 * ends in g's tag (a one-block frame that this registration alone took),
 * it is the running entry of the sled's function at sp, pushed at interrupt level `level`, neither complete
 * nor on top of a tail caller (the users word's high half exactly
 * fr_ts_entry_bits(level)'s, FR_TS_TAILED clear).  Then the trace stack's
 * rules would pop just that frame, with its exit and no mark.
 */
FGRAPH_INLINE bool fgraph_sled_frame_is(const uint64_t *f, const struct fgraph_ops *g,
					uintptr_t at, uintptr_t sp, unsigned level)
{
	/* The frame's three words in one test (`&`, not `&&`: the words are
	 * all there; arm64 chains the compares with CCMP), the function's
	 * against the sled's word (one load and the compare), then the users
	 * word's high half (a 32-bit compare with a constant, which the chain
	 * would widen). */
	return __builtin_expect((f[FR_MIN - 1] == g->frame_tag) & (f[FR_SP] == sp) &
				(f[FR_FUNC] == arch_sled_exit_func(at)), 1) &&
	       __builtin_expect(f[FR_USERS] >> 32 == (FR_TS_ENTRY >> 32 | level), 1);
}

/*
 * The exit sled's whole C half for user g alone (FGRAPH_DEFINE_RETURN_NOFP
 * under FGRAPH_TSTACK, fgraph_ops.solo_return): what ftrace_sled_exit and
 * g's ret_handler do, in one function.  The exit sled's handler calls it
 * only while g is the one registered user (fgraph.c, users_changed;
 * unregister_fgraph's grace period waits for a handler that read the
 * pointer before it changed), so the top frame being g's
 * (fgraph_sled_frame_is) is all it needs.  Anything else (a frame of
 * another user or of the rules, a tail caller's, a CPU coming up) goes to
 * ftrace_sled_exit through its FP-saving thunk: the handler saved no
 * FP/SIMD register.  c: this CPU (FTRACE_HOT_NOFP: not preempted), whose
 * irq_depth is known to be 0 (!irq) or not (irq), as at the return hook.
 * x0, at, sp as the handler passes them (fgraph_solo_return_t): arm64's
 * x0 is the return value, its struct fgraph_ret_regs found from sp on
 * the rare path only.
 */
FGRAPH_INLINE uintptr_t fgraph_sled_exit_solo(struct cpu *c, uint64_t x0,
					      uintptr_t at, uintptr_t sp, struct fgraph_ops *g,
					      fgraph_ret_t exitfn, bool irq)
{
	/* NULL: a CPU coming up (ftrace_sled_exit ignores it), or no stack. */
	struct fgraph_stack *outer = NULL, *st = fgraph_cpu_stack(c);
	if (irq) {
		outer = st;                  /* as fgraph_context_stack says */
		st = outer ? CALL_PRESERVING(struct fgraph_stack *, fgraph_irq_stack, c) : NULL;
	}
	/* top is 0 or at least FR_MIN (no frame is shorter): a test of 0
	 * (arm64 one CBZ, where `< FR_MIN` was a CMP and a branch).  Were it
	 * ever 1 .. FR_MIN - 1, f would reach into the stack's header, inside
	 * the struct (fgraph_frame.h: 8 words before w), and the words
	 * compared below send any such frame to ftrace_sled_exit. */
	_Static_assert(__builtin_offsetof(struct fgraph_stack, w) >= (FR_MIN - 1) * 8,
		       "f stays inside the stack");
	if (__builtin_expect(!st || st->top == 0, 0))
		return 0;                    /* no frame: the rules would do nothing */
	uint64_t *f = fgraph_top_min(st);
	if (fgraph_sled_frame_is(f, g, at, sp, irq ? c->irq_depth : 0))
		return fgraph_return_one_on(c, (struct thread *)arch_cpu_word(c,
							offsetof(struct cpu, current)),
					    fgraph_fexit_value(x0), st, outer, f, 0, g,
					    exitfn, true, true);
	return ftrace_sled_exit_fpsaving(fgraph_fexit_regs(x0, sp), at, sp);
}

#define FGRAPH_DEFINE_RETURN(name, exitfn)                                           \
	static FTRACE_HOT uintptr_t name(struct fgraph_ret_regs *rr, struct fgraph_stack *st, \
					 struct fgraph_stack *outer, unsigned base,     \
					 struct fgraph_ops *g)                          \
	{                                                                            \
		return fgraph_return_one(rr, st, outer, base, g, exitfn, false);        \
	}

/* name, the ret_handler, and name_solo, the solo_return (which tail-calls
 * name_solo_irq in interrupt context), of `user` (a struct fgraph_ops
 * declared before): its fgraph_ops.ret_handler and .solo_return, the
 * return hook's (fgraph_return_solo) or under FGRAPH_TSTACK the exit
 * sled's (fgraph_sled_exit_solo). */
#define FGRAPH_DEFINE_RETURN_NOFP(name, exitfn, user)                                \
	static FTRACE_HOT_NOFP uintptr_t name(struct fgraph_ret_regs *rr,               \
					      struct fgraph_stack *st,                  \
					      struct fgraph_stack *outer, unsigned base, \
					      struct fgraph_ops *g)                     \
	{                                                                            \
		return fgraph_return_one(rr, st, outer, base, g, exitfn, true);         \
	}                                                                            \
	FGRAPH_DEFINE_SOLO(name, exitfn, user)

#ifdef BT_INSTR_XRAY
#define FGRAPH_DEFINE_SOLO(name, exitfn, user)                                       \
	static FTRACE_HOT_NOFP uintptr_t name##_solo_irq(uint64_t x0,                \
							 uintptr_t at, uintptr_t sp) \
	{                                                                            \
		return fgraph_sled_exit_solo(arch_this_cpu(), x0, at, sp, &(user),   \
					     exitfn, true);                          \
	}                                                                            \
	static FTRACE_HOT_NOFP uintptr_t name##_solo(uint64_t x0,                    \
						     uintptr_t at, uintptr_t sp)     \
	{                                                                            \
		struct cpu *c = arch_this_cpu();                                     \
		if (__builtin_expect(c->irq_depth != 0, 0))                          \
			return name##_solo_irq(x0, at, sp);                          \
		return fgraph_sled_exit_solo(c, x0, at, sp, &(user), exitfn, false); \
	}
#else
#define FGRAPH_DEFINE_SOLO(name, exitfn, user)                                       \
	static FTRACE_HOT_NOFP uintptr_t name##_solo_irq(uint64_t retval, uintptr_t sp)  \
	{                                                                            \
		return fgraph_return_solo(arch_this_cpu(), retval, sp, &(user), exitfn, true); \
	}                                                                            \
	static FTRACE_HOT_NOFP uintptr_t name##_solo(uint64_t retval, uintptr_t sp)      \
	{                                                                            \
		struct cpu *c = arch_cpu_pinned();                                   \
		if (__builtin_expect(arch_cpu_u32(c, offsetof(struct cpu, irq_depth)) != 0, 0)) \
			return name##_solo_irq(retval, sp);                           \
		return fgraph_return_solo(c, retval, sp, &(user), exitfn, false);     \
	}
#endif

/* This CPU for an entry site callback (FTRACE_HOT: not preempted), and its
 * irq_depth.  nofp: the _NOFP entry reads the CPU's words through
 * arch_cpu_word / arch_cpu_u32 (x86-64 GS-relative, so that no register
 * holds c and the arguments stay where they came: -2 / -3 a call); the
 * general entry's recursion bit wants c in a register anyway (x86-64
 * under INSTR=xray: +1 with the pinned pointer). */
FGRAPH_INLINE struct cpu *fgraph_entry_cpu(bool nofp)
{
	return nofp ? arch_cpu_pinned() : arch_this_cpu();
}

FGRAPH_INLINE uint32_t fgraph_entry_irq_depth(struct cpu *c, bool nofp)
{
	return nofp ? arch_cpu_u32(c, __builtin_offsetof(struct cpu, irq_depth)) : c->irq_depth;
}

/* name, and name_irq for interrupt context, which name tail-calls. */
#define FGRAPH_DEFINE_ENTRY_AS(attr, name, entry, nofp)                              \
	static attr void name##_irq(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op, \
				    struct ftrace_regs *fregs)                          \
	{                                                                            \
		fgraph_enter_one(arch_this_cpu(), ip, parent, op, fregs, entry, nofp, true); \
	}                                                                            \
	static attr void name(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,   \
			      struct ftrace_regs *fregs)                                \
	{                                                                            \
		struct cpu *c = fgraph_entry_cpu(nofp);                              \
		if (__builtin_expect(fgraph_entry_irq_depth(c, nofp) != 0, 0))       \
			name##_irq(ip, parent, op, fregs);                           \
		else                                                                 \
			fgraph_enter_one(c, ip, parent, op, fregs, entry, nofp, false); \
	}

#define FGRAPH_DEFINE_ENTRY(name, entry) FGRAPH_DEFINE_ENTRY_AS(FTRACE_HOT, name, entry, false)

/* The same as FTRACE_HOT_NOFP (trace/core/ftrace.h): for an entry callback that
 * touches no FP/SIMD register and calls no traced function, whose user sets
 * FTRACE_OPS_FL_NOFP in ops.flags; tools/check-nofp.py proves it at build
 * time.  The callback does not test the ops' FTRACE_OPS_FL_ENABLED: `entry`
 * must refuse (return false) the calls that reach it from the moment its
 * user starts to unregister (function_graph.c: FILTER_OFF, a bit of a word
 * it tests anyway). */
#define FGRAPH_DEFINE_ENTRY_NOFP(name, entry)                                        \
	FGRAPH_DEFINE_ENTRY_AS(FTRACE_HOT_NOFP, name, entry, true)

#endif
