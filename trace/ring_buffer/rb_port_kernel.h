/*
 * rb_port_kernel.h — the ring buffer's port to baretrace (see trace/ring_buffer/rb_port.h).
 *
 * Everything here is always_inline: the tracer must not reach a patchable
 * site.  That is why preemption is held off by touching the current thread's
 * preempt_count directly instead of calling preempt_disable(), which lives in
 * a traced file (boot/sched.c).  Dropping the count to 0 takes a pending
 * preemption through preempt_check_resched() (notrace), as Linux's
 * preempt_enable() does; that calls schedule(), which is traced, so it does
 * nothing inside a tracer callback (a recursion bit held).  Tracer callbacks
 * use the _nopreempt / _on variants, which never reschedule.
 */
#ifndef TRACE_RB_PORT_KERNEL_H
#define TRACE_RB_PORT_KERNEL_H

#include <stdint.h>

#include "arch/hooks.h"
#include "boot/cpu.h"
#include "boot/sched.h"
#include "trace/core/recursion.h"

#define RB_PORT_INLINE static inline __attribute__((always_inline))

/* rb_port_cpu_id() must stay below RB_MAX_CPUS; cpu->id < MAX_CPUS. */
_Static_assert(MAX_CPUS <= RB_MAX_CPUS, "a CPU id would index past rb_buffer.cpu[]");

RB_PORT_INLINE unsigned rb_port_cpu_id(void) { return arch_this_cpu()->id; }
/* Unordered: an interrupt is precise, so a nested writer never sees a clock
 * read of ours that "ran ahead" of it; within one writer a reading that runs
 * ahead of the previous event's can only be lower, and both paths check the
 * delta for that (DESIGN, B). */
RB_PORT_INLINE uint64_t rb_port_clock(void) { return arch_counter_relaxed(); }
RB_PORT_INLINE void rb_port_relax(void) { arch_cpu_relax(); }
RB_PORT_INLINE void rb_port_race(void) {}
RB_PORT_INLINE uint64_t rb_port_load64(const uint64_t *p) { return arch_load_relaxed64(p); }
RB_PORT_INLINE void rb_port_store64(uint64_t *p, uint64_t v) { arch_store_relaxed64(p, v); }
RB_PORT_INLINE uint64_t rb_port_load_pair64(const uint64_t *p, uint64_t *second)
{
	return arch_load_pair64(p, second);
}
RB_PORT_INLINE bool rb_port_cas64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return arch_cas_relaxed64(p, expected, desired);
}

/* The time stamp slots' address form (arch/hooks.h). */
#define RB_PORT_ADDR_INDEX_DISP ARCH_ADDR_INDEX_DISP
/* How the tail's step is had (arch/hooks.h, ARCH_WIDE_IMM). */
#define RB_PORT_WIDE_IMM ARCH_WIDE_IMM

/* Split the gate where local RMWs are cheaper (arch/local.h). */
#define RB_PORT_LOCAL_GATE ARCH_LOCAL_RMW

/* Words only this CPU writes (arch/hooks.h: arch_local_*). */
RB_PORT_INLINE bool rb_port_local_cas64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return arch_local_cas64(p, expected, desired);
}
RB_PORT_INLINE void rb_port_local_sub64_release(uint64_t *p, uint64_t v)
{
	arch_local_sub64_release(p, v);
}

RB_PORT_INLINE bool rb_port_above_bits(uint64_t v, unsigned bits)
{
	return arch_above_bits(v, bits);
}

RB_PORT_INLINE uint64_t rb_port_sub_load64(uint64_t v, const uint64_t *p)
{
	return arch_sub_load64(v, p);
}
RB_PORT_INLINE bool rb_port_ne_load64(uint64_t v, const uint64_t *p)
{
	return arch_ne_load64(v, p);
}
RB_PORT_INLINE bool rb_port_or_load64_seq_cst(uint64_t *v, const uint64_t *p)
{
	return arch_or_load64_seq_cst(v, p);
}

/* The token is the thread whose count was raised (0 before the scheduler runs). */
RB_PORT_INLINE uintptr_t rb_port_preempt_disable(void)
{
	struct thread *t = current_thread();      /* migration-safe read */
	if (t)
		t->preempt_count++;     /* owner field; an interrupt's own ++/-- is balanced */
	/* Keep the CPU id read (and the reservation) after the increment. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return (uintptr_t)t;
}

RB_PORT_INLINE void rb_port_preempt_enable(uintptr_t token)
{
	/* Keep the whole reservation before the decrement. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	struct thread *t = (struct thread *)token;
	/* A tick that found the count up left its preemption pending: take it
	 * now, as preempt_enable() would (a writer that is almost always
	 * inside a reservation would otherwise never be preempted).  The
	 * flag may be another CPU's if we migrated after the decrement:
	 * preempt_check_resched() looks again at its own. */
	if (t && --t->preempt_count == 0 &&
	    __builtin_expect(__atomic_load_n(&arch_this_cpu()->need_resched, __ATOMIC_RELAXED), 0))
		preempt_check_resched();
}

/* The general paths through register-preserving thunks: a tracer callback
 * whose fast path calls nothing else is then a leaf on its common path.
 * Each holds preemption off while it runs (rb_port.h), as every call out
 * of trampoline text does (trace/core/recursion.h, FTRACE_CALL_COLD): a tracer
 * callback there is never preempted and leaves the count alone on its
 * fast path, but the general path and its thunk are ordinary text. */
#define RB_PORT_COLD_THUNK(fn) ARCH_PRESERVING_THUNK(fn)
#define RB_PORT_COLD(type, fn, ...) FTRACE_CALL_COLD(type, fn, __VA_ARGS__)
#define RB_PORT_COLD_VOID(fn, ...) FTRACE_CALL_COLD_VOID(fn, __VA_ARGS__)

#endif
