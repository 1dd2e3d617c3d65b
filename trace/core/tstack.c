/*
 * tstack.c — the trace stack's pairing rules (trace/core/tstack.h): which
 * entries a sled completes and pops, and with which mark.  Frames are
 * fgraph's (trace/core/fgraph_frame.h); pushing, the users' callbacks and
 * releasing are fgraph.c's (fgraph_ts_push, fgraph_ts_pop).  No arch, no
 * kernel: tests/host/test_tstack.c builds this file as it is.
 *
 * Interleavings: as fgraph.c's.  Only the owning context changes its stack;
 * a nested interrupt runs on another stack (the CPU's interrupt stack, at
 * a higher level) or pushes above ours and pops back to where it found it
 * before we run again, so every read of the top below sees our own.
 */
#include <stdbool.h>

#include "trace/core/fgraph_frame.h"
#include "trace/core/tstack.h"

/* Whether the top frame of x's stack is a trace-stack entry: then its
 * base and the interrupt level it was pushed at. */
static bool top_any_level(const struct tstack_ctx *x, unsigned *base, unsigned *level)
{
	const struct fgraph_stack *st = x->st;
	if (!st || st->top == 0)
		return false;
	unsigned size = (unsigned)st->w[st->top - 1];
	if (size < FR_MIN || size > st->top)
		return false;             /* not a frame: fgraph's own checks say so */
	*base = st->top - size;
	uint64_t users = st->w[*base + FR_USERS];
	*level = (unsigned)((users >> FR_TS_LEVEL_SHIFT) & FR_TS_LEVEL_MASK);
	return (users & FR_TS_ENTRY) != 0;
}

/* The top frame of x's stack, if the trace stack pushed it at x's level. */
static bool top_entry(const struct tstack_ctx *x, unsigned *base)
{
	unsigned level;
	return top_any_level(x, base, &level) && level == (x->level & FR_TS_LEVEL_MASK);
}

static bool complete(const struct tstack_ctx *x, unsigned base)
{
	return (x->st->w[base + FR_USERS] & FR_TS_COMPLETE) != 0;
}

/* Whether the complete entry at base, at the sp of a call of func from
 * parent, is that call's tail caller: a tail call keeps its caller's
 * return address, and the jump after the caller's tail sled, if direct,
 * names func.  An indirect jump (no target kept) can go anywhere: then
 * only the return address tells, and a call from the same call site reads
 * as a tail call (tstack.h). */
static bool tail_caller_of(const struct tstack_ctx *x, unsigned base, uintptr_t func,
			   uintptr_t parent)
{
	const uint64_t *f = &x->st->w[base];
	if (f[FR_RET] != parent)
		return false;
	if (!(f[FR_USERS] & FR_TS_TARGET))
		return true;
	int64_t delta = (int64_t)f[FR_USERS] >> FR_TS_TARGET_SHIFT;
	return f[FR_FUNC] + (uint64_t)delta == func;
}

/* Pop what a deeper interrupt left on top (irq_exit pops it, unless that
 * context could not enter the tracer then), then the entries whose frames
 * lie below sp; at an entry of func from parent (`entering`), an
 * incomplete one at sp too, and a complete one at sp that is not the
 * entering call's tail caller: that one tail-called something whose exit
 * was not seen and has returned (late).  Each pop shrinks the stack:
 * bounded. */
static void pop_gone(const struct tstack_ctx *x, uintptr_t sp, bool entering, uintptr_t func,
		     uintptr_t parent)
{
	unsigned base, level;
	while (top_any_level(x, &base, &level) && level > (x->level & FR_TS_LEVEL_MASK))
		fgraph_ts_pop(x, base, 0, complete(x, base) ? FGRAPH_RET_LATE : FGRAPH_RET_GONE);
	while (top_entry(x, &base)) {
		uintptr_t at = x->st->w[base + FR_SP];
		bool done = complete(x, base);
		if (at > sp ||
		    (at == sp && (!entering || (done && tail_caller_of(x, base, func, parent)))))
			return;
		fgraph_ts_pop(x, base, 0, done ? FGRAPH_RET_LATE : FGRAPH_RET_GONE);
	}
}

/* The top entry, if it is the running call of func at sp: then its base. */
static bool own_entry(const struct tstack_ctx *x, uintptr_t func, uintptr_t sp, unsigned *base)
{
	return top_entry(x, base) && x->st->w[*base + FR_SP] == sp &&
	       x->st->w[*base + FR_FUNC] == func && !complete(x, *base);
}

void tstack_entry_on(const struct tstack_ctx *x, uintptr_t func, uintptr_t parent, uintptr_t sp,
		     struct ftrace_regs *fregs, unsigned mask)
{
	unsigned base;
	pop_gone(x, sp, true, func, parent);
	/* What pop_gone leaves at sp is this call's tail caller (complete). */
	bool tailed = top_entry(x, &base) && x->st->w[base + FR_SP] == sp;
	uint64_t *f = fgraph_ts_push(x, func, parent, sp, fregs, mask);
	if (f)
		f[FR_USERS] |= fr_ts_entry_bits(x->level) | (tailed ? FR_TS_TAILED : 0);
}

void tstack_tail_on(const struct tstack_ctx *x, uintptr_t func, uintptr_t sp, uintptr_t target)
{
	unsigned base;
	pop_gone(x, sp, false, 0, 0);
	if (!own_entry(x, func, sp, &base))
		return;
	uint64_t bits = FR_TS_COMPLETE;
	int64_t delta = (int64_t)(target - func);
	if (target && delta >= -FR_TS_TARGET_REACH && delta < FR_TS_TARGET_REACH)
		bits |= FR_TS_TARGET | (uint64_t)delta << FR_TS_TARGET_SHIFT;
	x->st->w[base + FR_USERS] |= bits;
}

void tstack_exit_on(const struct tstack_ctx *x, uintptr_t func, uintptr_t sp, uint64_t retval)
{
	unsigned base;
	pop_gone(x, sp, false, 0, 0);
	if (!own_entry(x, func, sp, &base))
		return;                   /* not pushed: nothing here is this call's */
	x->st->w[base + FR_USERS] |= FR_TS_COMPLETE;
	/* This call, then the callers that tail-called into it (complete, at
	 * the same sp): their end is now, their return value this one's. */
	while (top_entry(x, &base) && x->st->w[base + FR_SP] == sp && complete(x, base))
		fgraph_ts_pop(x, base, retval, 0);
}

void tstack_level_end_on(const struct tstack_ctx *x)
{
	unsigned base;
	while (top_entry(x, &base))
		fgraph_ts_pop(x, base, 0, complete(x, base) ? FGRAPH_RET_LATE : FGRAPH_RET_GONE);
}

unsigned tstack_drop(struct fgraph_stack *st)
{
	const struct tstack_ctx x = { .st = st };
	unsigned base, level, n = 0;
	for (; top_any_level(&x, &base, &level); n++) {
		st->top = base;
		st->depth--;
	}
	return n;
}
