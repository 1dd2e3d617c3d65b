/*
 * recursion.h — the tracers' recursion guard, preemption count and
 * dead flag, inline for the callbacks' fast paths.
 *
 * The recursion guard: one bit per context level on the running CPU
 * (task, interrupt, nested interrupt), in two sets: callbacks', and the
 * list function's (which calls callbacks that guard themselves).  It is read and written only with
 * preemption disabled, so the CPU cannot change under it, and an interrupt
 * that nests uses the next bit: irq_enter/irq_exit keep the current
 * context's bit in cpu.trace_ctx, so taking it is two loads.
 * ftrace_recursion_take_on(c, shift) returns the bit taken (shift 0: the
 * callbacks' set, FTRACE_RECURSION_LIST_SHIFT: the list function's), or 0
 * if this context is already inside the tracer.  An FTRACE_HOT_NOFP
 * callback calls no traced function (proven at build time), so it cannot
 * enter the tracer again by itself: ftrace_recursion_free_on(c) tests the
 * callbacks' bit without taking it, and the callback runs only when no
 * other callback of this context is inside (which is all the bit is for).
 */
#ifndef TRACE_RECURSION_H
#define TRACE_RECURSION_H

#include <stdbool.h>
#include <stddef.h>

#include "boot/cpu.h"
#include "boot/sched.h"

#ifndef FTRACE_INLINE
#define FTRACE_INLINE static inline __attribute__((always_inline))
#endif

/* Preemption off without calling traced code (see trace/ring_buffer/rb_port_kernel.h),
 * on the running thread t the caller has read.  Only for FTRACE_HOT code:
 * a thread is never preempted there, so t stays this CPU's current. */
FTRACE_INLINE void ftrace_preempt_disable_on(struct thread *t)
{
	t->preempt_count++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

FTRACE_INLINE void ftrace_preempt_enable_on(struct thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->preempt_count--;
}

/* The same for a caller that has read the running thread t and its count
 * (depth): raise it to depth + 1, and later put back exactly depth.  Exact,
 * because everything in between that touches the count (interrupt
 * handlers, nested callbacks) leaves it as it found it, and nothing
 * preempts us meanwhile.  (A callback that leaked a count would have it
 * undone here rather than left behind; callbacks are ours and balanced.)
 * Neither takes a pending preemption (we may be on a trampoline's frame):
 * the next tick outside the tracer does. */
FTRACE_INLINE void ftrace_preempt_disable_at(struct thread *t, unsigned depth)
{
	t->preempt_count = depth + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

FTRACE_INLINE void ftrace_preempt_enable_at(struct thread *t, unsigned depth)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->preempt_count = depth;
}

/*
 * A call from trampoline text, running without the count raised (it is
 * never preempted there), out to ordinary text: a register-preserving
 * thunk (arch/hooks.h) and what it calls.  A thread preempted out there
 * would keep a trampoline's return address on its stack, so the count is
 * raised at the call site, before the PC leaves, and put back after it
 * returns; never a reschedule on the way back (we may be on a
 * trampoline's frame; a caller that may reschedule holds its own count).
 * The running thread may be NULL (a CPU coming up).  FTRACE_CALL_COLD is
 * CALL_PRESERVING so held, FTRACE_CALL_COLD_VOID CALL_PRESERVING_VOID.
 */
FTRACE_INLINE struct thread *ftrace_cold_begin(void)
{
	struct thread *t = arch_current();
	if (t)
		t->preempt_count++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return t;
}

FTRACE_INLINE void ftrace_cold_end(struct thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (t)
		t->preempt_count--;
}

#define FTRACE_CALL_COLD(type, fn, ...) __extension__({                                  \
	struct thread *ftrace_cold_t_ = ftrace_cold_begin();                              \
	type ftrace_cold_v_ = CALL_PRESERVING(type, fn, __VA_ARGS__);                     \
	ftrace_cold_end(ftrace_cold_t_);                                                  \
	ftrace_cold_v_;                                                                   \
})
#define FTRACE_CALL_COLD_VOID(fn, ...) do {                                               \
	struct thread *ftrace_cold_t_ = ftrace_cold_begin();                              \
	CALL_PRESERVING_VOID(fn, __VA_ARGS__);                                            \
	ftrace_cold_end(ftrace_cold_t_);                                                  \
} while (0)

/* ftrace_is_dead() for the callbacks, on CPU c (this one): a byte at an
 * offset from the CPU pointer they hold anyway, where the global flag
 * would cost its address.  ftrace_kill() sets both. */
FTRACE_INLINE bool ftrace_is_dead_on(struct cpu *c)
{
	return arch_load_relaxed8(&c->ftrace_dead) != 0;
}

#define FTRACE_RECURSION_LIST_SHIFT 3   /* the list function's bits: 3..5 */

/* On CPU c, this one (preemption off or FTRACE_HOT). */
FTRACE_INLINE unsigned ftrace_recursion_take_on(struct cpu *c, unsigned shift)
{
	unsigned bit = (c->trace_ctx & TRACE_CTX_BITS) << shift;   /* this context's (boot/irq.c) */
	unsigned held = c->trace_recursion;
	if (held & bit)
		return 0;
	c->trace_recursion = held | bit;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return bit;
}

/* Is the callbacks' bit of this context free?  Only for FTRACE_HOT_NOFP
 * code (see above); c is this CPU, preemption off or FTRACE_HOT. */
FTRACE_INLINE bool ftrace_recursion_free_on(struct cpu *c)
{
	return !(c->trace_recursion & c->trace_ctx);    /* a byte: ctx's bits 0..7 count */
}

/* The same and tracing alive (!ftrace_is_dead_on(c)), in one test: the
 * guard word holds the recursion bits and the dead byte, trace_ctx this
 * context's bit and the dead byte's lowest (boot/cpu.h), so the AND of the
 * two words -- adjacent: one load pair on arm64 -- is 0 exactly when both
 * hold.  *ctx: trace_ctx as loaded, for trace_entry_word_ctx.  ftrace_kill() writes the byte 1, the owner only ever writes the
 * recursion byte, so neither write can undo the other's. */
FTRACE_INLINE bool ftrace_callback_free_on(struct cpu *c, uint32_t *ctx)
{
	_Static_assert(offsetof(struct cpu, ftrace_dead) == offsetof(struct cpu, trace_guard) + 1 &&
			       TRACE_CTX_DEAD == 1u << 8,
		       "the dead byte is the guard's second (little-endian both arches)");
	_Static_assert(offsetof(struct cpu, trace_ctx) == offsetof(struct cpu, trace_guard) + 4,
		       "one load pair");
	_Static_assert(offsetof(struct cpu, trace_guard) % 8 == 0, "the pair aligned");
	return !(arch_load_pair32(&c->trace_guard, ctx) & *ctx);
}

FTRACE_INLINE void ftrace_recursion_exit_on(struct cpu *c, unsigned bit)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->trace_recursion &= ~bit;
}

/* The same for the bit ftrace_recursion_take_on(c, shift) took in this
 * context, found again instead of kept (the context's bit is the same
 * until it ends: interrupts restore trace_ctx). */
FTRACE_INLINE void ftrace_recursion_exit_ctx(struct cpu *c, unsigned shift)
{
	ftrace_recursion_exit_on(c, (c->trace_ctx & TRACE_CTX_BITS) << shift);
}

#endif
