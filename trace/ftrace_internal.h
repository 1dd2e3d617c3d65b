/*
 * ftrace_internal.h — what the tracing core shares with its tracers.
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
#ifndef TRACE_FTRACE_INTERNAL_H
#define TRACE_FTRACE_INTERNAL_H

#include "boot/cpu.h"
#include "boot/sched.h"
#include "trace/hash.h"

extern struct mutex ftrace_mutex;

struct ftrace_ops;
struct ftrace_hash;
struct listvec;

/* ftrace.c: every ops whose sites may be live, in registration order
 * (lock-free readers: ACQUIRE loads of it and of each `next`). */
extern struct ftrace_ops *ftrace_ops_list;
/* ftrace.c: the list function's table (listvec.h) as published, or NULL;
 * publish a complete new one (RELEASE) and get the replaced one back, to
 * free after a grace period.  ftrace_mutex held. */
const struct listvec *ftrace_list_table_get(void);
struct listvec *ftrace_list_table_swap(struct listvec *v);

/* update.c.  Re-patch after `changed` was (un)registered or its hashes
 * changed (NULL: consider every record), and on success make every ops'
 * current hashes its applied ones (the replaced hashes are freed after a
 * grace period).  ftrace_mutex held.  0; -ENOMEM (nothing changed: the
 * caller puts its own state back); -EILSEQ, -EINVAL, -ENODEV (tracing
 * killed).  ftrace_update is the re-patch alone. */
int ftrace_update_commit(const struct ftrace_ops *changed);
int ftrace_update(const struct ftrace_ops *changed);
/* update.c: the block that lets an update taking an ops away (its
 * ENABLED bit cleared) go on without the heap: unregistering never fails
 * with -ENOMEM once this succeeded.  Boot, after records_init. */
int ftrace_update_reserve_init(void);
/* Build a hash from patterns (see ftrace_set_filter); on -EINVAL the reason
 * is in ftrace_filter_error (as is that of a direct ops' change refused
 * with -ERANGE or -EBUSY, direct.c direct_check). */
int ftrace_build_hash(const struct ftrace_hash *base, const char *patterns, bool reset,
		      struct ftrace_hash **out);
/* Room for the longest refusal with a function named in full: ~100
 * bytes of words and three addresses, and a name of up to 150. */
#define FTRACE_ERROR_SIZE 256
extern char ftrace_filter_error[FTRACE_ERROR_SIZE];

/* ftrace.c: register / unregister op with ftrace_mutex held (the public
 * calls take it; direct.c adds its checks around them). */
int ftrace_do_register(struct ftrace_ops *op);
int ftrace_do_unregister(struct ftrace_ops *op);

/* The most ops one ftrace_set_filter_ops call changes. */
#define FTRACE_SET_MAX_OPS 4

/*
 * A change of the functions direct ops take: ops[0..n) (distinct) with the
 * hashes each will have, and the direct address of each that is a direct
 * ops once the change is made (0 for the others: they take nothing here).
 * register_ftrace_direct: the one ops it registers, with its hashes and
 * address; set_hashes: every ops of the call, a registered direct ops with
 * its own address.
 */
struct direct_change {
	struct ftrace_ops *const *ops;
	unsigned n;
	const struct ftrace_hash *filter_hash[FTRACE_SET_MAX_OPS],
			 *notrace_hash[FTRACE_SET_MAX_OPS];
	uintptr_t addr[FTRACE_SET_MAX_OPS];
};

/* direct.c: may the change be made?  0, or -EBUSY / -ERANGE / -EINVAL
 * with the reason in ftrace_filter_error; reads only.  ftrace_mutex held. */
int direct_check(const struct direct_change *c);

#define FTRACE_INLINE static inline __attribute__((always_inline))

/* Does an ops with these hashes trace ip?  (An empty filter means every
 * function; notrace wins.) */
FTRACE_INLINE bool ftrace_ops_wants(const struct ftrace_hash *filter_hash,
				    const struct ftrace_hash *notrace_hash, uintptr_t ip)
{
	return (hash_empty(filter_hash) || hash_contains(filter_hash, ip)) &&
	       !hash_contains(notrace_hash, ip);
}

/* Preemption off without calling traced code (see trace/rb_port_kernel.h),
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
	unsigned bit = (c->trace_ctx + 1) << shift;   /* this context's (boot/irq.c) */
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
	return !(c->trace_recursion & (c->trace_ctx + 1));
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
	ftrace_recursion_exit_on(c, (c->trace_ctx + 1) << shift);
}

#endif
