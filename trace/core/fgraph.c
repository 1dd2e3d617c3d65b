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
 *                      16-31: users asked (each has a block below);
 *                      32 and up: the trace stack's (trace/core/tstack.h)
 *   base+5  blocks     one per user in the entry mask, in bit order:
 *                        +0 gen    the user's fgraph_ops.gen when pushed
 *                        +1 data   FGRAPH_DATA_WORDS, the user's per-call words
 *   top-1   size       words in the frame, so the hook finds base from top;
 *                      in a single-user frame (fgraph_enter_one) with its
 *                      user's serial in bits 32-63: FR_TAG, fgraph_frame.h
 *                      (then the users word and the block's gen are not
 *                      written: the tag stands for both)
 *
 * (The FR_ and FB_ macros are in fgraph_frame.h.)  Words 0 and 2 and the
 * size word are read by tools/gdb/baretrace.py too.
 *
 * Two entry paths push the same frames: fgraph_enter_one (fgraph_inline.h)
 * for a site whose only ops is one graph user — the common case: its
 * trampoline calls fgraph_ops_func, or the user's own instance, directly,
 * and the frame size, block and state word are known without a loop — and
 * fgraph_list_enter for a site with several users, which the list
 * function passes as a mask.  The return path has the same split:
 * fgraph_return finds the frame and hands a frame that one user took to
 * that user's ret_handler — fgraph_inline.h's fgraph_return_one, calling
 * its retfunc through the pointer (return_one) or, for a user made with
 * FGRAPH_DEFINE_RETURN, with its exit callback folded in — and a frame
 * several users asked to return_several.  The trace stack (trace/core/tstack.h)
 * pushes with the list path's frame_enter and pops with return_several's
 * frame_exits: the same frames, users and callbacks, no return address.
 *
 * Interleavings.  Only the owning context pushes and pops a stack (but for
 * ts_drop_left, when no context can touch one: see there); what can
 * happen in the middle is a nested context on the same stack — a nested
 * interrupt on the per-CPU interrupt stack — which pushes and pops above
 * `top` and leaves it as it found it before we run again.  So:
 *   push  A: reserve (top += size), B: fill the frame and ask the users,
 *         C: redirect the return address.  A nested push after A lands
 *         above our frame; before C the function still returns normally.
 *         (An inlined entry callback's instance does C before asking it and
 *         undoes it on a refusal: the slot is read only when the function
 *         returns, after the callback.)
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

#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "lib/noipa.h"
#include "lib/spinlock.h"
#include "patch/tramp.h"
#include "trace/boot.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_hooks.h"
#include "trace/core/fgraph_inline.h"
#include "trace/core/records.h"
#include "trace/core/recursion.h"
#include "trace/core/tstack.h"

/*
 * Slots.  Every registration takes a fresh 64-bit serial (fgraph_ops.gen,
 * never reused); a frame remembers, per user, the serial it was pushed
 * under (a single-user frame: its low 32 bits, in its tag), so a later
 * user of the slot — or the same ops registered again — never gets an
 * earlier registration's exits, and every stack's state word for the slot
 * is reset at registration (state_reset: a user that went away with calls
 * open never took back what they added).  A slot whose ops
 * could not be unregistered (tracing was dying) stays out of use:
 * dead_slots.
 */
static struct fgraph_ops *users[FGRAPH_MAX_USERS];   /* fgraph_mutex; read lock-free */
/* The single-user return (fgraph_return, hand_on): the one registered user
 * while there is exactly one, else solo_none, whose serial and tag no
 * frame holds (serials start at 1 and never reach it; a tag's size half is
 * FR_MIN) and whose ret_handler, for a corrupt frame that matched its tag
 * anyway, takes the checked path.  fgraph_mutex; read lock-free. */
static uintptr_t return_none(struct fgraph_ret_regs *rr, struct fgraph_stack *st,
			     struct fgraph_stack *outer, unsigned base, struct fgraph_ops *g);
static struct fgraph_ops solo_none = { .gen = UINT64_MAX, .frame_tag = UINT64_MAX,
				       .ret_handler = return_none };
static struct fgraph_ops *solo = &solo_none;
static uint64_t last_gen;                             /* fgraph_mutex */
static unsigned dead_slots;                           /* fgraph_mutex */
static struct mutex fgraph_mutex = MUTEX_INIT;
static struct fgraph_stack *irq_stacks[MAX_CPUS];     /* written once at boot */
static uint64_t total_overrun;                        /* atomic */
/* Every shadow stack, threads' and interrupts', so that register_fgraph
 * can zero its slot's state word on each: a list through next/prev, from
 * stacks.next (stacks is the list's head, not a stack in use). */
static struct fgraph_stack stacks_head = { .next = &stacks_head, .prev = &stacks_head };
static spinlock_t stacks_lock = SPINLOCK_INIT;

struct fgraph_stack *fgraph_stack_alloc(void)
{
	struct fgraph_stack *st = calloc(1, sizeof(struct fgraph_stack));
	if (st) {
		unsigned long flags = spin_lock_irqsave(&stacks_lock);
		st->next = stacks_head.next;
		st->prev = &stacks_head;
		st->next->prev = st;
		stacks_head.next = st;
		spin_unlock_irqrestore(&stacks_lock, flags);
	}
	return st;
}

void fgraph_stack_free(struct fgraph_stack *st)
{
	if (!st)
		return;
	unsigned long flags = spin_lock_irqsave(&stacks_lock);
	st->prev->next = st->next;
	st->next->prev = st->prev;
	spin_unlock_irqrestore(&stacks_lock, flags);
	free(st);
}

static bool is_irq_stack(const struct fgraph_stack *st)
{
	for (unsigned i = 0; i < MAX_CPUS; i++)
		if (irq_stacks[i] == st)
			return true;
	return false;
}

/* The trace stack (INSTR=xray) after its last user left: the sleds'
 * handlers stopped calling in (fgraph_ts_active 0) and, after the grace
 * period, none is still running, so no context touches a thread's stack
 * until a user registers (fgraph_mutex held by the caller).  The entries
 * left on them would wait for that user, however long; they are released
 * now, to no user (the slots are empty).  An exit sled of such an entry
 * that runs later finds no entry of its own and pops nothing.  The
 * interrupt stacks are left alone: each interrupt's end empties its level
 * (tstack_irq_exit).  Returns how many were released. */
static unsigned ts_drop_left(void)
{
	unsigned n = 0;
	unsigned long flags = spin_lock_irqsave(&stacks_lock);
	for (struct fgraph_stack *st = stacks_head.next; st != &stacks_head; st = st->next)
		if (!is_irq_stack(st))
			n += tstack_drop(st);
	spin_unlock_irqrestore(&stacks_lock, flags);
	return n;
}

/* Slot idx's state word on every stack: 0.  No callback of the slot runs
 * (fgraph_mutex held, the slot free: its last user's unregister waited a
 * grace period), so no one else writes them; the new user's entries read
 * them only after its sites are patched, which orders these stores. */
static void state_reset(unsigned idx)
{
	unsigned long flags = spin_lock_irqsave(&stacks_lock);
	for (struct fgraph_stack *st = stacks_head.next; st != &stacks_head; st = st->next)
		st->state[idx] = 0;
	spin_unlock_irqrestore(&stacks_lock, flags);
}

/* No room for a frame: the call is not hooked; counted per context (up to
 * FGRAPH_OVERRUN_MAX, so that an exit event's count never reaches the
 * marks' bits), in total and per user asked. */
FTRACE_HOT void fgraph_count_overrun(struct fgraph_stack *st, unsigned mask)
{
	if (st->overrun < FGRAPH_OVERRUN_MAX)
		st->overrun++;
	__atomic_fetch_add(&total_overrun, 1, __ATOMIC_RELAXED);
	for (unsigned m = mask; m; m &= m - 1) {
		struct fgraph_ops *g = __atomic_load_n(&users[__builtin_ctz(m)], __ATOMIC_ACQUIRE);
		if (g)
			__atomic_fetch_add(&g->nmissed, 1, __ATOMIC_RELAXED);
	}
}
ARCH_PRESERVING_THUNK(fgraph_count_overrun);

/* The interrupt stack of CPU c (fgraph_inline.h's context_stack: out of
 * line, interrupts are the rare case). */
FTRACE_HOT struct fgraph_stack *fgraph_irq_stack(struct cpu *c)
{
	return irq_stacks[c->id];
}
ARCH_PRESERVING_THUNK(fgraph_irq_stack);

/* The callback of a graph user's ops that did not bring its own: a site
 * whose only ops is this user (fgraph_inline.h). */
FGRAPH_DEFINE_ENTRY(fgraph_ops_func, NULL)

/*
 * Push a frame for ip on st (entry SP sp) and ask the graph users in mask:
 * the frame if one took the call, else NULL (dropped, or no room: counted).
 * preempt: the traced code's preemption count.  A user whose slot is empty
 * now (unregistering) keeps its block, with gen 0 (no registration's).
 */
static FTRACE_HOT uint64_t *frame_enter(struct cpu *c, struct fgraph_stack *st,
					struct fgraph_stack *outer, uintptr_t ip, uintptr_t parent,
					uintptr_t sp, struct ftrace_regs *fregs, unsigned mask,
					unsigned preempt)
{
	unsigned n = 0;
	for (unsigned m = mask; m; m &= m - 1)
		n++;
	unsigned below;
	uint64_t *f = fgraph_frame_push(st, FR_WORDS(n), FR_WORDS(n), mask, ip, parent, fregs,
					false, &below);
	if (!f)
		return NULL;
	f[FR_SP] = sp;                   /* the trace stack's may differ from fregs' */
	struct fgraph_ent e;
	fgraph_ent_init(&e, c, ip, parent, fregs, f, below, outer, preempt);
	unsigned taken = 0;
	uint64_t *blk = &f[FR_HEADER];
	for (unsigned m = mask; m; m &= m - 1, blk += FB_WORDS) {
		unsigned i = (unsigned)__builtin_ctz(m);
		/* ACQUIRE: a user published by register is seen complete
		 * (its gen included). */
		struct fgraph_ops *g = __atomic_load_n(&users[i], __ATOMIC_ACQUIRE);
		blk[FB_GEN] = g ? g->gen : 0;
		if (!g)
			continue;
		fgraph_ent_state(&e, fgraph_state_off(i), st, outer);
		if (g->entryfunc(&e, g, &blk[FB_DATA]))
			taken |= 1u << i;
		else
			blk[FB_GEN] = 0;     /* no registration's */
	}
	f[FR_USERS] = taken | mask << 16;
	if (taken)
		return f;
	fgraph_frame_drop(st, f);
	return NULL;
}

/* Called by the list functions (ftrace.c) for the graph users in `mask` attached to
 * ip (recursion bit held, preemption off: the list function raised the
 * count by one, as fgraph.h promises the callbacks). */
FTRACE_HOT void fgraph_list_enter(uintptr_t ip, uintptr_t parent, struct ftrace_regs *fregs,
				  unsigned mask)
{
	struct cpu *c = arch_this_cpu();          /* preemption is off */
	if (FGRAPH_TSTACK) {
		tstack_entry_held(c, ip, parent, ftrace_regs_get_stack_pointer(fregs), fregs, mask);
		return;
	}
	struct fgraph_stack *outer, *st = fgraph_context_stack(c, &outer);
	if (st && frame_enter(c, st, outer, ip, parent, ftrace_regs_get_stack_pointer(fregs),
			      fregs, mask, c->current->preempt_count - 1))
		fgraph_redirect(fregs);                      /* C */
}

/* The hook found no frame on st (NULL: no stack): it runs only over one. */
static FTRACE_HOT noipa unsigned bad_top(const struct fgraph_stack *st)
{
	if (!st || st->top == 0)
		panic("fgraph: return hook reached with an empty shadow stack");
	panic("fgraph: corrupt shadow frame (size %u, top %u)", (unsigned)st->w[st->top - 1],
	      st->top);
}

/* Whether st's top frame is sound: then *base is its base. */
FGRAPH_INLINE bool top_frame_ok(const struct fgraph_stack *st, unsigned *base)
{
	if (__builtin_expect(!st || st->top == 0, 0))
		return false;
	/* Word addresses from a pointer, not from 32-bit indexes, whose
	 * wrap-around the compiler would have to keep at each use. */
	const uint64_t *end = &st->w[st->top];
	unsigned size = (unsigned)end[-1];
	*base = st->top - size;
	return __builtin_expect(size >= FR_MIN && size <= st->top, 1);
}

/* The top frame's base, or panic. */
FGRAPH_INLINE unsigned top_frame(struct fgraph_stack *st)
{
	unsigned base;
	return top_frame_ok(st, &base) ? base : bad_top(st);
}

/*
 * Frames above the one returning now with a lower entry SP belong to calls
 * that will never return — a longjmp (fault_catch) left them — and are
 * dropped without exits.  Any other mismatch is a broken invariant:
 * tracing stops (the frame's return address is still the best place to go).
 */
static FTRACE_HOT __attribute__((noinline)) unsigned frame_of_slow(struct fgraph_stack *st,
								   unsigned base, uintptr_t sp)
{
	while (st->w[base + FR_SP] < sp && base > 0) {
		st->top = base;
		st->depth--;
		base = top_frame(st);
	}
	if (st->w[base + FR_SP] != sp)
		ftrace_kill("fgraph: a return does not match its shadow frame");
	return base;
}

/* D: the exit callbacks of the frame at base, each user's that took the
 * call (recursion bit held, the preemption count raised by one, tracing
 * alive). */
static FTRACE_HOT void frame_exits(struct cpu *c, struct fgraph_stack *st, struct fgraph_stack *outer,
				   unsigned base, uint64_t retval, unsigned mark)
{
	uint64_t *f = &st->w[base];
	unsigned word = (unsigned)f[FR_USERS], taken = word & 0xffff, asked = word >> 16;
	struct fgraph_ret r;
	fgraph_ret_init(&r, c, c->current, f, st, outer, retval, 1, 0);
	r.mark = mark;
	const uint64_t *blk = &f[FR_HEADER];    /* as at entry: each user asked */
	for (unsigned m = asked; m; m &= m - 1, blk += FB_WORDS) {
		unsigned i = (unsigned)__builtin_ctz(m);
		/* ACQUIRE: pairs with register's RELEASE (g->gen complete). */
		struct fgraph_ops *g = __atomic_load_n(&users[i], __ATOMIC_ACQUIRE);
		if (!(taken & (1u << i)) || !g || g->gen != blk[FB_GEN] || !g->retfunc)
			continue;
		r.state = &st->state[i];
		g->retfunc(&r, g, (uint64_t *)&blk[FB_DATA]);        /* D */
	}
}

/* fgraph_return for a frame that several users asked: each one's exit
 * that took the call, in turn. */
static FTRACE_HOT __attribute__((noinline)) uintptr_t
return_several(struct fgraph_ret_regs *rr, struct cpu *c, struct fgraph_stack *st,
	       struct fgraph_stack *outer, unsigned base)
{
	struct thread *t = c->current;
	ftrace_preempt_disable_on(t);          /* for the callbacks (fgraph.h) */
	unsigned bit = ftrace_recursion_take_on(c, 0);
	if (bit && !ftrace_is_dead_on(c))
		frame_exits(c, st, outer, base, fgraph_ret_regs_value(rr), 0);
	if (bit)
		ftrace_recursion_exit_on(c, bit);
	return fgraph_frame_pop(c, st, base, true);
}

/* The ret_handler of a user that brings none (register_fgraph puts it
 * there): its retfunc, called through the pointer.  fgraph_return checked
 * that g, the frame's one user, is the registration in its slot. */
static FTRACE_HOT uintptr_t return_one(struct fgraph_ret_regs *rr, struct fgraph_stack *st,
				       struct fgraph_stack *outer, unsigned base, struct fgraph_ops *g)
{
	return fgraph_return_one(rr, st, outer, base, g, g->retfunc, false);
}

/* The ret_handler of a user without a retfunc (register_fgraph puts it
 * there, so that the return path never tests retfunc): only the pop. */
static FTRACE_HOT uintptr_t return_pop(struct fgraph_ret_regs *rr, struct fgraph_stack *st,
				       struct fgraph_stack *outer, unsigned base, struct fgraph_ops *g)
{
	return fgraph_frame_pop(arch_this_cpu(), st, base, false);
}

/* The registered user whose serial's low 32 bits are tag's high half (a
 * tagged frame's: FR_TAG), or NULL. */
static FTRACE_HOT struct fgraph_ops *user_of_tag(uint64_t tag)
{
	for (unsigned i = 0; i < FGRAPH_MAX_USERS; i++) {
		/* ACQUIRE: pairs with register's RELEASE (g complete). */
		struct fgraph_ops *g = __atomic_load_n(&users[i], __ATOMIC_ACQUIRE);
		if (g && g->frame_tag == tag)
			return g;
	}
	return NULL;
}

/*
 * After the frame is found, with more than one user registered (or the
 * frame not the one user's): a tagged frame's tag, or else its users word,
 * says who took the call.  One user (a hooked frame always has a taker,
 * so then it took it): its ret_handler.  Several: return_several.  Either
 * way only a user whose slot still holds the registration that took the
 * call hears of it (same serial).  A user without retfunc has return_pop
 * for ret_handler (register_fgraph), so that is not tested here.
 */
static FTRACE_HOT __attribute__((noinline)) uintptr_t
hand_on_users(struct fgraph_ret_regs *rr, struct cpu *c, struct fgraph_stack *st,
	      struct fgraph_stack *outer, unsigned base)
{
	const uint64_t *f = &st->w[base];            /* as fgraph_return's */
	uint64_t last = st->w[st->top - 1];          /* base's frame is the top one */
	if (last >> 32) {
		struct fgraph_ops *g = user_of_tag(last);
		return g ? g->ret_handler(rr, st, outer, base, g) : fgraph_frame_pop(c, st, base, false);
	}
	unsigned asked = (unsigned)f[FR_USERS] >> 16;
	if (__builtin_expect(asked & (asked - 1), 0))
		return return_several(rr, c, st, outer, base);
	/* ACQUIRE: pairs with register's RELEASE (g complete, gen and
	 * ret_handler included). */
	struct fgraph_ops *g = __atomic_load_n(&users[__builtin_ctz(asked)], __ATOMIC_ACQUIRE);
	if (!g || g->gen != f[FR_HEADER + FB_GEN])
		return fgraph_frame_pop(c, st, base, false);
	return g->ret_handler(rr, st, outer, base, g);      /* return_pop if no retfunc */
}

/*
 * Hand the frame at base, the top one, on.  The common case, one user
 * registered (solo) whose tag is the frame's last word: that user alone
 * took the call (fgraph_enter_one), so its exit is the only one to run:
 * its ret_handler at once, without the users word, the slot lookup or the
 * owner check.  A registration changing meanwhile is seen either way:
 * solo is published (RELEASE) after users[] and cleared before the
 * unregistering user's grace period, as its slot is.
 */
FGRAPH_INLINE uintptr_t hand_on(struct fgraph_ret_regs *rr, struct cpu *c, struct fgraph_stack *st,
				struct fgraph_stack *outer, unsigned base)
{
	/* ACQUIRE: pairs with users_changed's RELEASE (g complete). */
	struct fgraph_ops *g = __atomic_load_n(&solo, __ATOMIC_ACQUIRE);
	if (__builtin_expect(g->frame_tag == st->w[st->top - 1], 1))
		return g->ret_handler(rr, st, outer, base, g);
	return hand_on_users(rr, c, st, outer, base);
}

/* fgraph_return when the top frame is not the returning function's. */
static FTRACE_HOT __attribute__((noinline)) uintptr_t
return_unwound(struct fgraph_ret_regs *rr, struct cpu *c, struct fgraph_stack *st,
	       struct fgraph_stack *outer, unsigned base)
{
	/* frame_of_slow may kill tracing (ordinary text: held off meanwhile). */
	struct thread *t = ftrace_cold_begin();
	base = frame_of_slow(st, base, fgraph_ret_regs_sp(rr));
	ftrace_cold_end(t);
	return hand_on(rr, c, st, outer, base);
}

/* fgraph_return when the top frame is not the one user's, entered at the
 * returning function's SP: found from its size word, then handed on. */
static FTRACE_HOT __attribute__((noinline)) uintptr_t
return_checked(struct fgraph_ret_regs *rr, struct cpu *c, struct fgraph_stack *st,
	       struct fgraph_stack *outer)
{
	unsigned base;
	if (__builtin_expect(!top_frame_ok(st, &base), 0))
		return bad_top(st);
	if (__builtin_expect(st->w[base + FR_SP] != fgraph_ret_regs_sp(rr), 0))
		return return_unwound(rr, c, st, outer, base);
	return hand_on(rr, c, st, outer, base);
}

static FTRACE_HOT uintptr_t return_none(struct fgraph_ret_regs *rr, struct fgraph_stack *st,
					struct fgraph_stack *outer, unsigned base, struct fgraph_ops *g)
{
	return return_checked(rr, arch_this_cpu(), st, outer);
}

/*
 * The return hook's C half: find the frame (the top one, whose entry SP is
 * ours), then hand it on.  The common case first: the one user's frame
 * (its tag in the last word, so its size is FR_MIN) entered at our SP,
 * straight to its ret_handler; anything else through return_checked.
 * Every path out of here is a tail call or noreturn, so this saves no
 * registers: the stack of the context is read here rather than through
 * fgraph_context_stack's out-of-line call.  The preemption count is left
 * alone: FTRACE_HOT (the hook too) is never preempted, and the ways out
 * raise it where they call out (fgraph.h).
 */
FTRACE_HOT uintptr_t fgraph_return(struct fgraph_ret_regs *rr)
{
	/* FTRACE_HOT: not preempted here, so c stays this CPU. */
	struct cpu *c = arch_this_cpu();
	struct thread *t = c->current;
	struct fgraph_stack *outer = NULL, *st = t->ret_stack;
	if (__builtin_expect(c->irq_depth != 0, 0)) {
		outer = st;                  /* as fgraph_context_stack says */
		st = outer ? irq_stacks[c->id] : NULL;
	}
	if (__builtin_expect(!st || st->top < FR_MIN, 0))
		return bad_top(st);          /* a tail call: the common path keeps no frame */
	unsigned base = st->top - FR_MIN;
	const uint64_t *f = &st->w[base];
	/* ACQUIRE: pairs with users_changed's RELEASE (g complete). */
	struct fgraph_ops *g = __atomic_load_n(&solo, __ATOMIC_ACQUIRE);
	if (__builtin_expect(f[FR_MIN - 1] == g->frame_tag && f[FR_SP] == fgraph_ret_regs_sp(rr), 1))
		return g->ret_handler(rr, st, outer, base, g);
	return return_checked(rr, c, st, outer);
}

/* ---- the trace stack's hooks (trace/core/tstack.h) ---- */

uint64_t *fgraph_ts_push(const struct tstack_ctx *x, uintptr_t func, uintptr_t parent,
			 uintptr_t sp, struct ftrace_regs *fregs, unsigned mask)
{
	/* The tstack_ call raised the count by one (fgraph.h). */
	uint64_t *f = frame_enter(x->cpu, x->st, x->outer, func, parent, sp, fregs, mask,
				  x->cpu->current->preempt_count - 1);
	/* A one-block frame (its user took the call) carries that user's tag,
	 * as the single-user push's frames do: what the exit's single-user
	 * path (ftrace_sled_exit) compares. */
	uint64_t *last = &x->st->w[x->st->top - 1];
	if (f && *last == FR_MIN)
		*last = FR_TAG(f[FR_HEADER + FB_GEN]);
	return f;
}

void fgraph_ts_pop(const struct tstack_ctx *x, unsigned base, uint64_t retval, unsigned mark)
{
	/* The tstack_ call raised the count by one, as for the push. */
	frame_exits(x->cpu, x->st, x->outer, base, retval, mark);
	fgraph_frame_release(x->st, base);
}

/* The context running on CPU c (preemption off). */
FGRAPH_INLINE void ts_context(struct tstack_ctx *x, struct cpu *c)
{
	x->st = fgraph_context_stack(c, &x->outer);
	x->level = c->irq_depth;
	x->cpu = c;
}

/*
 * Begin a tstack_ call: preemption off, this context's recursion bit, its
 * stacks; false (with nothing held) when the call is to be ignored: inside
 * the tracer already, tracing dead, or a CPU coming up.  FTRACE_HOT: not
 * preempted before the count is raised, so c stays this CPU.
 */
static FTRACE_HOT bool ts_begin(struct tstack_ctx *x, unsigned *bit)
{
	struct cpu *c = arch_this_cpu();
	struct thread *t = c->current;
	if (!t)
		return false;
	ftrace_preempt_disable_on(t);
	*bit = ftrace_recursion_take_on(c, 0);
	ts_context(x, c);
	if (*bit && x->st && !ftrace_is_dead_on(c))
		return true;
	if (*bit)
		ftrace_recursion_exit_on(c, *bit);
	ftrace_preempt_enable_on(t);
	return false;
}

static FTRACE_HOT void ts_end(const struct tstack_ctx *x, unsigned bit)
{
	ftrace_recursion_exit_on(x->cpu, bit);
	ftrace_preempt_enable_on(x->cpu->current);
}

FTRACE_HOT void tstack_entry(uintptr_t func, uintptr_t parent, uintptr_t sp,
			     struct ftrace_regs *fregs, unsigned mask)
{
	struct tstack_ctx x;
	unsigned bit;
	if (!ts_begin(&x, &bit))
		return;
	tstack_entry_on(&x, func, parent, sp, fregs, mask);
	ts_end(&x, bit);
}
/* How FTRACE_HOT_NOFP code reaches it (CALL_FPSAVING_VOID: fgraph_enter_one). */
ARCH_FPSAVING_THUNK(tstack_entry);

FTRACE_HOT void tstack_entry_held(struct cpu *c, uintptr_t func, uintptr_t parent, uintptr_t sp,
				  struct ftrace_regs *fregs, unsigned mask)
{
	struct tstack_ctx x;
	ts_context(&x, c);
	if (x.st && c->current && !ftrace_is_dead_on(c))
		tstack_entry_on(&x, func, parent, sp, fregs, mask);
}

FTRACE_HOT void tstack_tail(uintptr_t func, uintptr_t sp, uintptr_t target)
{
	struct tstack_ctx x;
	unsigned bit;
	if (!ts_begin(&x, &bit))
		return;
	tstack_tail_on(&x, func, sp, target);
	ts_end(&x, bit);
}

FTRACE_HOT void tstack_exit(uintptr_t func, uintptr_t sp, uint64_t retval)
{
	struct tstack_ctx x;
	unsigned bit;
	if (!ts_begin(&x, &bit))
		return;
	tstack_exit_on(&x, func, sp, retval);
	ts_end(&x, bit);
}

/* ftrace_sled_exit's way to the rules: a function of its own, tail-called,
 * so that the single-user path keeps no frame. */
static FTRACE_HOT __attribute__((noinline)) uintptr_t
sled_exit_rules(const struct fgraph_ret_regs *rr, uintptr_t at, uintptr_t sp)
{
	tstack_exit(arch_sled_exit_func(at), sp, fgraph_ret_regs_value(rr));
	uintptr_t none = 0;
	__asm__("" : "+r"(none));        /* not known to be 0: the caller tail-calls */
	return none;
}

/*
 * The exit sled (fgraph.h).  The common case is the return hook's hand_on
 * for the trace stack: the top frame of this context's stack is the one
 * registered user's (solo: its tag, so a one-block frame that this
 * registration took, and no other user is registered) and the running
 * entry of the sled's function at sp (fgraph_sled_frame_is; levels stay
 * below FR_TS_LEVEL_MASK).  Then tstack_exit would pop just that frame (pop_gone
 * finds the top at sp and of this level; no complete entry at sp lies
 * below), with the exit callbacks and no mark: its user's ret_handler does
 * it (the exit callback with rr's return value, then the release), as for
 * a hooked frame, with its own recursion test and preemption count; a
 * tail call, so that this path keeps no frame (the value is the
 * handler's, which __fexit__ drops).  Anything else: tstack_exit, through
 * tail calls too.  FTRACE_HOT: not preempted, so c stays this CPU.
 */
FGRAPH_INLINE uintptr_t sled_exit_on(struct fgraph_ret_regs *rr, uintptr_t at, uintptr_t sp,
				     struct fgraph_stack *st, struct fgraph_stack *outer,
				     unsigned level)
{
	if (__builtin_expect(!st || st->top < FR_MIN, 0))
		return 0;                    /* no frame: the rules would do nothing */
	unsigned base = st->top - FR_MIN;
	/* ACQUIRE: pairs with users_changed's RELEASE (g complete). */
	struct fgraph_ops *g = __atomic_load_n(&solo, __ATOMIC_ACQUIRE);
	if (fgraph_sled_frame_is(&st->w[base], g, at, sp, level))
		return g->ret_handler(rr, st, outer, base, g);
	return sled_exit_rules(rr, at, sp);
}

/* ftrace_sled_exit in an interrupt (irq_depth, this CPU's, not 0). */
static FTRACE_HOT __attribute__((noinline)) uintptr_t
sled_exit_irq(struct fgraph_ret_regs *rr, uintptr_t at, uintptr_t sp, struct cpu *c,
	      struct fgraph_stack *outer)
{
	/* as fgraph_context_stack says */
	return sled_exit_on(rr, at, sp, outer ? irq_stacks[c->id] : NULL, outer, c->irq_depth);
}

FTRACE_HOT uintptr_t ftrace_sled_exit(uint64_t x0, uintptr_t at, uintptr_t sp)
{
	struct fgraph_ret_regs *rr = fgraph_fexit_regs(x0, sp);
	struct cpu *c = arch_this_cpu();
	struct thread *t = c->current;
	if (__builtin_expect(!t, 0))
		return 0;                    /* a CPU coming up: ts_begin ignores it */
	if (__builtin_expect(c->irq_depth != 0, 0))
		return sled_exit_irq(rr, at, sp, c, t->ret_stack);
	return sled_exit_on(rr, at, sp, t->ret_stack, NULL, 0);
}

FTRACE_HOT void ftrace_sled_tail(uintptr_t sled, uintptr_t sp)
{
	tstack_tail(arch_sled_func(sled), sp, arch_sled_tail_target(sled));
}

/* The interrupt running on this CPU ends (irq_exit, irq_depth not yet
 * lowered): its entries left on the interrupt stack are popped. */
FTRACE_HOT void tstack_irq_exit(void)
{
	struct tstack_ctx x;
	unsigned bit;
	if (!ts_begin(&x, &bit))
		return;
	if (x.level)
		tstack_level_end_on(&x);
	ts_end(&x, bit);
}

/* ---- registration ---- */

static int slot_of(const struct fgraph_ops *g)
{
	for (int i = 0; i < FGRAPH_MAX_USERS; i++)
		if (users[i] == g && !(dead_slots & (1u << i)))
			return i;
	return -1;
}

/* A ret_handler the core chose at an earlier registration (chosen again:
 * retfunc may have changed since). */
static bool core_ret_handler(fgraph_return_t h)
{
	return !h || h == return_one || h == return_pop;
}

unsigned char fgraph_ts_active;

/* What the return hook calls (fgraph_hooks.h): the one registered user's
 * solo_return, or NULL.  fgraph_mutex; read lock-free by the hook. */
fgraph_solo_return_t fgraph_hook_return;

#if FGRAPH_TSTACK
/* The exit sled handler's own way into ftrace_sled_exit (arch/ARCH/
 * ftrace_tramp.S): what fgraph_ts_exit holds when no solo_return is, and
 * with no graph user where the handler learns that otherwise than by the
 * pointer (site.h, ARCH_FEXIT_NEVER_NULL and arch_fexit_set). */
uintptr_t __fexit_fp(uint64_t x0, uintptr_t at, uintptr_t sp);
#define FEXIT_GENERAL __fexit_fp
#define FEXIT_NONE (ARCH_FEXIT_NEVER_NULL ? __fexit_fp : NULL)
#else
#define FEXIT_GENERAL NULL
#define FEXIT_NONE NULL
#endif
fgraph_solo_return_t fgraph_ts_exit = FEXIT_NONE;

/*
 * After a change of users[] (fgraph_mutex held), what the hot paths read
 * of it.  solo: the one user, or solo_none; the RELEASE store publishes it
 * complete (hand_on's ACQUIRE).  fgraph_ts_active: whether a slot holds a
 * user.  Off, the sleds' handlers stop calling in: entries a user left on
 * threads' stacks are released by unregister_fgraph (ts_drop_left); while
 * users remain, a departed user's entries are popped (to no user) by the
 * next sleds below them, as any entry whose frame is gone.
 */
static void users_changed(void)
{
	struct fgraph_ops *one = NULL;
	unsigned n = 0;
	for (int i = 0; i < FGRAPH_MAX_USERS; i++)
		if (users[i]) {
			one = users[i];
			n++;
		}
	__atomic_store_n(&solo, n == 1 ? one : &solo_none, __ATOMIC_RELEASE);
	/* The hook's: a solo_return reads only its own user and the frame,
	 * complete before its sites were patched.  A hook that read the old
	 * pointer still runs it: when the user was the one, its frames are
	 * still its own (a user that left is waited for: unregister_fgraph's
	 * grace period, the hook being trampoline text). */
	__atomic_store_n(&fgraph_hook_return,
			 n == 1 ? one->solo_return : NULL,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&fgraph_ts_exit,
			 !n ? FEXIT_NONE : n == 1 && one->solo_return ? one->solo_return : FEXIT_GENERAL,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&fgraph_ts_active, n != 0, __ATOMIC_RELAXED);
	if (FGRAPH_TSTACK)
		arch_fexit_set(n != 0, (uintptr_t)fgraph_ts_exit);
}

int register_fgraph(struct fgraph_ops *g)
{
	/* A user's own return path stands for its retfunc (fgraph.h). */
	if (!g->entryfunc || (!core_ret_handler(g->ret_handler) && !g->retfunc) ||
	    (g->solo_return && !text_is_nofp((uintptr_t)g->solo_return)))
		return -EINVAL;
	mutex_lock(&fgraph_mutex);
	int idx = slot_of(g) >= 0 ? -2 : slot_of(NULL);
	if (idx < 0) {
		mutex_unlock(&fgraph_mutex);
		return -EBUSY;
	}
	/* What a failed registration puts back: the user sees it as it was. */
	const struct fgraph_ops was = *g;
	if (!g->ops.func)
		g->ops.func = fgraph_ops_func;   /* else the user's FGRAPH_DEFINE_ENTRY */
	if (core_ret_handler(g->ret_handler))   /* else the user's FGRAPH_DEFINE_RETURN */
		g->ret_handler = g->retfunc ? return_one : return_pop;
	g->ops.flags |= FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_GRAPH;
	g->ops.graph_mask = 1u << idx;
	g->nmissed = 0;
	/* Before the user is reachable (published below, sites patched
	 * after): fgraph_ops_func reads idx and gen without a fence, the
	 * site's patching orders them (as it does the ops itself). */
	g->idx = idx;
	g->ts_users = (1u << idx) * 0x10001u | fr_ts_entry_bits(0);
	g->gen = ++last_gen;         /* frames of earlier registrations are not ours */
	g->frame_tag = FR_TAG(g->gen);
	g->state_off = fgraph_state_off((unsigned)idx);
	/* An earlier user of the slot may have left calls open, its counts
	 * in the state words with them. */
	state_reset((unsigned)idx);
	/* RELEASE: entries and exits that see the user see it complete. */
	__atomic_store_n(&users[idx], g, __ATOMIC_RELEASE);
	users_changed();
	int err = register_ftrace_function(&g->ops);
	if (err) {
		/* No site reaches it: nothing can hold the pointer. */
		__atomic_store_n(&users[idx], NULL, __ATOMIC_RELEASE);
		users_changed();
		g->ops.func = was.ops.func;
		g->ops.flags = was.ops.flags;
		g->ops.graph_mask = was.ops.graph_mask;
		g->ret_handler = was.ret_handler;
		g->nmissed = was.nmissed;
		g->idx = -1;
	}
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
	if (err && !ftrace_is_dead()) {
		/* Still registered, sites and all (unregister_ftrace_function
		 * changed nothing): so is the user. */
		mutex_unlock(&fgraph_mutex);
		return err;
	}
	__atomic_store_n(&users[idx], NULL, __ATOMIC_RELEASE);
	users_changed();
	tramp_grace_period();
	if (FGRAPH_TSTACK && !fgraph_ts_active)
		ts_drop_left();
	if (err)
		dead_slots |= 1u << idx;    /* tracing died: its sites may still pass its bit */
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
	struct fgraph_stack *outer, *st = fgraph_context_stack(arch_this_cpu(), &outer);
	struct fgraph_stack *stacks[2] = { st, outer };      /* innermost first */
	arch_irq_restore(flags);
	unsigned n = 0;
	for (int k = 0; k < 2; k++) {
		struct fgraph_stack *st = stacks[k];
		for (unsigned top = st ? st->top : 0; top;) {
			unsigned size = (unsigned)st->w[top - 1];
			if (size < FR_MIN || size > top)
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
	struct fgraph_stack *st = fgraph_thread_stack(this_cpu());
	out->depth = st ? st->depth : 0;
	preempt_enable();
}
