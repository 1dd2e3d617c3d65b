/*
 * fgraph.c — shadow return stacks and the function-graph users on them.
 *
 * A frame, in words of its context's stack (struct fgraph_stack):
 *
 *   base+0  ret        the function's original return address
 *   base+1  func
 *   base+2  sp         SP at its entry: the hook checks it matches at return
 *   base+3  calltime
 *   base+4  users      bits 0-15: users whose entry callback took the call;
 *                      16-31: users asked (their data words are in the frame)
 *   base+5  gens       the users' generations when it was pushed (16 bits
 *   base+6             each: slots 0-3, then 4-7)
 *   base+7  data       FGRAPH_DATA_WORDS per user in the entry mask, in bit order
 *   top-1   size       words in the frame, so the hook finds base from top
 *
 * Interleavings.  Only the owning context pushes and pops a stack; what can
 * happen in the middle is a nested context on the same stack — a nested
 * interrupt on the per-CPU interrupt stack — which pushes and pops above
 * `top` and leaves it as it found it before we run again.  So:
 *   push  A: reserve (top += size), B: fill the frame, C: redirect the
 *         return address.  A nested push after A lands above our frame;
 *         before C the function still returns normally.
 *   pop   D: read the frame and run the exit callbacks, E: release
 *         (top = base).  A nested push between D and E lands above the
 *         frame, so what D reads stays intact.
 * Compiler barriers order the steps against a nested context on this CPU;
 * no other CPU reads a stack (a migrated thread takes its stack along, and
 * the switch orders everything before the thread runs elsewhere).
 *
 * Which stack: the running thread's, or this CPU's interrupt stack when
 * irq_depth > 0.  A function returns at the irq_depth it was entered with
 * (interrupt entry and exit code is notrace and changes irq_depth outside
 * any traced function), so entry and hook pick the same stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/cpu.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "patch/tramp.h"
#include "trace/fgraph.h"
#include "trace/ftrace_internal.h"

#define FR_RET      0
#define FR_FUNC     1
#define FR_SP       2
#define FR_TIME     3
#define FR_USERS    4
#define FR_GENS     5       /* and 6 */
#define FR_HEADER   7

struct fgraph_stack {
	unsigned top;                      /* words in use */
	unsigned depth;                    /* frames */
	uint64_t overrun;                  /* calls not hooked: no room */
	uint32_t state[FGRAPH_MAX_USERS];  /* per user, this context (fgraph_ent.state) */
	uint16_t state_gen[FGRAPH_MAX_USERS];  /* the user generation state[] belongs to */
	uint64_t w[FGRAPH_STACK_WORDS];
};

/*
 * Slots.  A slot's generation (16 bits, in user_gens) changes whenever its
 * user registers or unregisters; a frame remembers the generations it was
 * pushed under, so a later user of the slot never gets an earlier one's
 * exits (65536 register/unregister cycles of one slot while a frame waits
 * would wrap it), and a stack's state word for the slot is reset when its
 * generation is not the current one (a user that went away with calls
 * open never took back what they added).  A slot whose ops could not be
 * unregistered (tracing was dying) stays out of use: dead_slots.
 */
static struct fgraph_ops *users[FGRAPH_MAX_USERS];   /* fgraph_mutex; read lock-free */
static uint64_t user_gens[2];                         /* 16 bits per slot; fgraph_mutex */
static unsigned dead_slots;                           /* fgraph_mutex */
static struct mutex fgraph_mutex = MUTEX_INIT;
static struct fgraph_stack *irq_stacks[MAX_CPUS];     /* written once at boot */
static uint64_t total_overrun;                        /* atomic */

struct fgraph_stack *fgraph_stack_alloc(void)
{
	return calloc(1, sizeof(struct fgraph_stack));
}

void fgraph_stack_free(struct fgraph_stack *st)
{
	free(st);
}

#define FGRAPH_INLINE static inline __attribute__((always_inline))

FGRAPH_INLINE struct fgraph_stack *thread_stack(struct cpu *c)
{
	return c->current ? c->current->ret_stack : NULL;   /* NULL: a CPU coming up */
}

/* The stack of the running context, and the interrupted thread's when
 * that is a different one (for depth and task_state). */
FGRAPH_INLINE struct fgraph_stack *context_stack(struct cpu *c, struct fgraph_stack **outer)
{
	if (c->irq_depth) {
		*outer = thread_stack(c);
		return *outer ? irq_stacks[c->id] : NULL;
	}
	*outer = NULL;
	return thread_stack(c);
}

/* Bits set in an 8-bit user mask (no libgcc call: arm64 without FP/SIMD
 * has no population-count instruction). */
FGRAPH_INLINE unsigned popcount8(unsigned m)
{
	m = m - ((m >> 1) & 0x55);
	m = (m & 0x33) + ((m >> 2) & 0x33);
	return (m + (m >> 4)) & 0x0f;
}

FGRAPH_INLINE unsigned gen_of(const uint64_t *gens, unsigned i)
{
	return (unsigned)(gens[i / 4] >> (16 * (i % 4))) & 0xffff;
}

/*
 * Entry, for the users in `mask` (preemption off, recursion bit held).
 * A: reserve, B: fill and ask the users, C: redirect the return.
 */
FGRAPH_INLINE void fgraph_enter(uintptr_t ip, uintptr_t parent, struct ftrace_regs *fregs,
				unsigned mask)
{
	struct cpu *c = arch_this_cpu();
	struct fgraph_stack *outer, *st = context_stack(c, &outer);
	if (!st)
		return;                    /* a CPU still booting */
	unsigned size = FR_HEADER + FGRAPH_DATA_WORDS * popcount8(mask) + 1;
	unsigned base = st->top;
	if (base + size > FGRAPH_STACK_WORDS) {
		st->overrun++;
		__atomic_fetch_add(&total_overrun, 1, __ATOMIC_RELAXED);
		for (unsigned m = mask; m; m &= m - 1) {
			struct fgraph_ops *g = __atomic_load_n(&users[__builtin_ctz(m)],
							       __ATOMIC_ACQUIRE);
			if (g)
				__atomic_fetch_add(&g->nmissed, 1, __ATOMIC_RELAXED);
		}
		return;
	}
	st->top = base + size;                                   /* A */
	st->depth++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint64_t *f = &st->w[base];                              /* B */
	f[FR_RET] = parent;
	f[FR_FUNC] = ip;
	f[FR_SP] = ftrace_regs_get_stack_pointer(fregs);
	f[FR_TIME] = arch_counter();
	f[FR_GENS] = __atomic_load_n(&user_gens[0], __ATOMIC_ACQUIRE);
	f[FR_GENS + 1] = __atomic_load_n(&user_gens[1], __ATOMIC_ACQUIRE);
	f[size - 1] = size;
	struct fgraph_ent e = {
		.func = ip, .parent = parent, .calltime = f[FR_TIME], .fregs = fregs,
		.depth = st->depth - 1 + (outer ? outer->depth : 0),
	};
	unsigned taken = 0;
	uint32_t none = 0;                 /* the thread's state under an older user */
	uint64_t *data = &f[FR_HEADER];    /* each user in the mask, in bit order */
	for (unsigned m = mask; m; m &= m - 1, data += FGRAPH_DATA_WORDS) {
		unsigned i = (unsigned)__builtin_ctz(m);
		/* ACQUIRE: a user published by register is seen complete. */
		struct fgraph_ops *g = __atomic_load_n(&users[i], __ATOMIC_ACQUIRE);
		if (!g)
			continue;
		unsigned gen = gen_of(&f[FR_GENS], i);
		if (st->state_gen[i] != gen) {
			st->state[i] = 0;
			st->state_gen[i] = (uint16_t)gen;
		}
		e.state = &st->state[i];
		e.task_state = !outer ? e.state :
			       outer->state_gen[i] == gen ? &outer->state[i] : &none;
		if (g->entryfunc(&e, g, data))
			taken |= 1u << i;
	}
	f[FR_USERS] = taken | (uint64_t)mask << 16;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!taken) {
		st->depth--;
		st->top = base;           /* nested pushes are all popped by now */
		return;
	}
	*ftrace_regs_return_slot(fregs) = (uintptr_t)arch_fgraph_return_hook;   /* C */
}

/* The callback of a graph user's ops when it is the only one on a site. */
static FTRACE_HOT void fgraph_ops_func(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	uintptr_t tok = ftrace_preempt_disable();
	unsigned bit = ftrace_recursion_enter();
	if (bit && !ftrace_is_dead() && (op->flags & FTRACE_OPS_FL_ENABLED))
		fgraph_enter(ip, parent, fregs, op->graph_mask);
	ftrace_recursion_exit(bit);
	ftrace_preempt_enable(tok);
}

FTRACE_HOT void fgraph_list_enter(uintptr_t ip, uintptr_t parent, struct ftrace_regs *fregs,
				  unsigned mask)
{
	fgraph_enter(ip, parent, fregs, mask);
}

/* D: the exit callbacks of the users that took the call and are still the
 * ones registered (same generation as at entry). */
FGRAPH_INLINE void call_exits(struct fgraph_stack *st, struct fgraph_stack *outer,
			      uint64_t *f, const struct fgraph_ret_regs *rr)
{
	unsigned taken = (unsigned)f[FR_USERS] & 0xffff, entry = (unsigned)f[FR_USERS] >> 16;
	uint64_t gens[2] = { __atomic_load_n(&user_gens[0], __ATOMIC_ACQUIRE),
			     __atomic_load_n(&user_gens[1], __ATOMIC_ACQUIRE) };
	struct fgraph_ret r = {
		.func = f[FR_FUNC], .parent = f[FR_RET], .retval = fgraph_ret_regs_value(rr),
		.calltime = f[FR_TIME],
		.rettime = arch_counter(), .overrun = st->overrun,
		.depth = st->depth - 1 + (outer ? outer->depth : 0),
	};
	uint64_t *data = &f[FR_HEADER];    /* as at entry: each user of the entry mask */
	for (unsigned m = entry; m; m &= m - 1, data += FGRAPH_DATA_WORDS) {
		unsigned i = (unsigned)__builtin_ctz(m);
		if (!(taken & (1u << i)))
			continue;
		struct fgraph_ops *g = __atomic_load_n(&users[i], __ATOMIC_ACQUIRE);
		if (!g || !g->retfunc || gen_of(gens, i) != gen_of(&f[FR_GENS], i))
			continue;
		r.state = &st->state[i];
		g->retfunc(&r, g, data);
	}
}

/* The top frame's base, or panic: the hook runs only over a frame. */
static FTRACE_HOT unsigned top_frame(struct fgraph_stack *st)
{
	if (!st || st->top == 0)
		panic("fgraph: return hook reached with an empty shadow stack");
	unsigned size = (unsigned)st->w[st->top - 1];
	if (size < FR_HEADER + 1 || size > st->top)
		panic("fgraph: corrupt shadow frame (size %u, top %u)", size, st->top);
	return st->top - size;
}

/*
 * The frame for the function returning now is the top one, whose entry SP
 * is ours.  Frames above it with a lower entry SP belong to calls that will
 * never return — a longjmp (fault_catch) left them — and are dropped
 * without exits.  Any other mismatch is a broken invariant: tracing stops
 * (the frame's return address is still the best place to go).
 */
FGRAPH_INLINE unsigned frame_of(struct fgraph_stack *st, uintptr_t sp)
{
	unsigned base = top_frame(st);
	while (st->w[base + FR_SP] < sp && base > 0) {
		st->top = base;
		st->depth--;
		base = top_frame(st);
	}
	if (st->w[base + FR_SP] != sp)
		ftrace_kill("fgraph: a return does not match its shadow frame");
	return base;
}

FTRACE_HOT uintptr_t fgraph_return(struct fgraph_ret_regs *rr)
{
	uintptr_t tok = ftrace_preempt_disable();
	struct cpu *c = arch_this_cpu();
	struct fgraph_stack *outer, *st = context_stack(c, &outer);
	unsigned base = frame_of(st, fgraph_ret_regs_sp(rr));
	uint64_t *f = &st->w[base];
	unsigned bit = ftrace_recursion_enter();
	if (bit && !ftrace_is_dead())
		call_exits(st, outer, f, rr);                /* D */
	ftrace_recursion_exit(bit);
	uintptr_t ret = f[FR_RET];
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	st->depth--;
	st->top = base;                                              /* E */
	ftrace_preempt_enable(tok);
	return ret;
}

/* ---- registration ---- */

static int slot_of(const struct fgraph_ops *g)
{
	for (int i = 0; i < FGRAPH_MAX_USERS; i++)
		if (users[i] == g && !(dead_slots & (1u << i)))
			return i;
	return -1;
}

static void bump_gen(int i)
{
	uint64_t *w = &user_gens[i / 4], sh = 16 * (i % 4);
	uint64_t b = ((*w >> sh) + 1) & 0xffff;
	__atomic_store_n(w, (*w & ~(0xffffull << sh)) | b << sh, __ATOMIC_RELEASE);
}

int register_fgraph(struct fgraph_ops *g)
{
	mutex_lock(&fgraph_mutex);
	int idx = slot_of(g) >= 0 ? -2 : slot_of(NULL);
	if (idx < 0) {
		mutex_unlock(&fgraph_mutex);
		return -EBUSY;
	}
	g->ops.func = fgraph_ops_func;
	g->ops.flags |= FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_GRAPH;
	g->ops.graph_mask = 1u << idx;
	g->nmissed = 0;
	bump_gen(idx);               /* frames of an earlier user of the slot are not ours */
	/* RELEASE: entries that see the user see it complete. */
	__atomic_store_n(&users[idx], g, __ATOMIC_RELEASE);
	int err = register_ftrace_function(&g->ops);
	if (err) {
		/* No site reaches it: nothing can hold the pointer. */
		__atomic_store_n(&users[idx], NULL, __ATOMIC_RELEASE);
		idx = -1;
	}
	g->idx = idx;
	mutex_unlock(&fgraph_mutex);
	return err;
}

int unregister_fgraph(struct fgraph_ops *g)
{
	mutex_lock(&fgraph_mutex);
	int idx = slot_of(g);
	if (idx < 0) {
		mutex_unlock(&fgraph_mutex);
		return -EINVAL;
	}
	/* Sites stop reaching the user (after a grace period: done inside),
	 * then its frames still on stacks stop calling it: once the slot is
	 * cleared and a grace period has passed, no CPU is inside its exit
	 * callback (fgraph_return runs with preemption disabled). */
	int err = unregister_ftrace_function(&g->ops);
	__atomic_store_n(&users[idx], NULL, __ATOMIC_RELEASE);
	bump_gen(idx);
	tramp_synchronize();
	if (err)
		dead_slots |= 1u << idx;    /* its sites may still pass its bit */
	else
		g->idx = -1;
	mutex_unlock(&fgraph_mutex);
	return err;
}

/* ---- stacks, unwinding, statistics ---- */

void fgraph_init_cpu(unsigned cpu)
{
	if (!irq_stacks[cpu] && !(irq_stacks[cpu] = fgraph_stack_alloc()))
		panic("fgraph: no memory for CPU %u's interrupt shadow stack", cpu);
}

/*
 * Frames are visited from the innermost outwards: the interrupt stack's
 * (when in an interrupt), then the thread's.  The frame a record belongs
 * to is the next one, from the cursor on, whose entry SP lies above the
 * record: a function's frame record is below the SP it was entered with,
 * and the entry SPs of the functions it called are at or below the record.
 */
uintptr_t fgraph_ret_addr(uintptr_t ret, uintptr_t record, unsigned *cursor)
{
	if (ret != (uintptr_t)arch_fgraph_return_hook)
		return ret;
	unsigned long flags = arch_irq_save();       /* current stays ours meanwhile */
	struct cpu *c = arch_this_cpu();
	struct fgraph_stack *stacks[2] = { c->irq_depth ? irq_stacks[c->id] : NULL,
					   c->current ? c->current->ret_stack : NULL };
	arch_irq_restore(flags);
	unsigned n = 0;
	for (int k = 0; k < 2; k++) {
		struct fgraph_stack *st = stacks[k];
		for (unsigned top = st ? st->top : 0; top;) {
			unsigned size = (unsigned)st->w[top - 1];
			if (size < FR_HEADER + 1 || size > top)
				break;
			top -= size;
			if (n++ >= *cursor && st->w[top + FR_SP] > record) {
				*cursor = n;
				ret = st->w[top + FR_RET];
				/* A tail call saved the hook itself: the caller's
				 * frame, next out, has the real address. */
				if (ret != (uintptr_t)arch_fgraph_return_hook)
					return ret;
			}
		}
	}
	return ret;
}

void fgraph_stats(struct fgraph_stats *out)
{
	out->overrun = __atomic_load_n(&total_overrun, __ATOMIC_RELAXED);
	preempt_disable();
	struct fgraph_stack *st = this_cpu()->current->ret_stack;
	out->depth = st ? st->depth : 0;
	preempt_enable();
}
