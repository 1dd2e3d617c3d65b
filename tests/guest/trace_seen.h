/*
 * trace_seen.h — what an ftrace callback was handed, recorded for a test to
 * check: the arguments of the call, the ftrace_regs accessors' view, and
 * the frame-pointer chain above the callback (callback -> trampoline ->
 * traced function -> its caller).  Used by the shared cases of suite
 * arch_ftrace (tests/guest/test_arch_ftrace.c) and arm64's own
 * (arch/arm64/tests/ftrace_selftest.c).  One CPU at a time: plain stores.
 */
#ifndef TESTS_GUEST_TRACE_SEEN_H
#define TESTS_GUEST_TRACE_SEEN_H

#include <stdint.h>

#include "arch/hooks.h"
#include "trace/core/ftrace.h"

struct trace_seen {
	unsigned long hits;
	uintptr_t ip, parent, sp, fp, ret, pc;
	uintptr_t arg[ARCH_FTRACE_NARGS];
	struct ftrace_ops *op;
	struct pt_regs *regs;          /* ftrace_get_regs(): NULL without SAVE_REGS */
	/* Up the frame-pointer chain from the callback: each record's return
	 * address, and the frame pointer saved in the third record. */
	uintptr_t chain[3], chain_fp2;
};

/* Record one call in *s; inlined, so that the chain starts at the frame of
 * the callback that calls it. */
static inline __attribute__((always_inline)) void
trace_seen_record(struct trace_seen *s, uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		  struct ftrace_regs *f)
{
	s->hits++;
	s->ip = ip;
	s->parent = parent;
	s->op = op;
	s->sp = ftrace_regs_get_stack_pointer(f);
	s->fp = ftrace_regs_get_frame_pointer(f);
	s->ret = ftrace_regs_get_return_address(f);
	s->pc = ftrace_regs_get_instruction_pointer(f);
	for (unsigned i = 0; i < ARCH_FTRACE_NARGS; i++)
		s->arg[i] = ftrace_regs_get_argument(f, i);
	s->regs = ftrace_get_regs(f);
	const uintptr_t *fp = __builtin_frame_address(0);
	for (unsigned i = 0; i < 3 && fp; i++) {
		s->chain[i] = fp[1];
		if (i == 2)
			s->chain_fp2 = fp[0];
		fp = (const uintptr_t *)fp[0];
	}
}

#endif
