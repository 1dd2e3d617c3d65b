/*
 * tramp.c — per-ops trampolines from the templates in ftrace_tramp.S, and
 * the trap fill of the pool.
 *
 * A template is position-independent code followed by two 8-byte literals,
 * `ops` and `call`, that its PC-relative loads read; building one is a copy
 * plus two literal stores, valid at any 8-aligned address.  The NOARGS
 * and ARGS_ONLY templates call with a `bl` instead, pointed at `call`
 * here (their literals are written all the same).
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "insn.h"

extern const char arm64_tramp_tmpl[], arm64_tramp_tmpl_ops[], arm64_tramp_tmpl_call[],
	arm64_tramp_tmpl_end[];
extern const char arm64_tramp_tmpl_regs[], arm64_tramp_tmpl_regs_ops[],
	arm64_tramp_tmpl_regs_call[], arm64_tramp_tmpl_regs_end[];

struct tmpl {
	const char *start, *ops, *call, *end;
	const char *bl;     /* NULL, or a `bl` in the code to point at call */
};

static const struct tmpl tmpl_plain = {
	arm64_tramp_tmpl, arm64_tramp_tmpl_ops, arm64_tramp_tmpl_call, arm64_tramp_tmpl_end,
};
static const struct tmpl tmpl_regs = {
	arm64_tramp_tmpl_regs, arm64_tramp_tmpl_regs_ops, arm64_tramp_tmpl_regs_call,
	arm64_tramp_tmpl_regs_end,
};
extern const char arm64_tramp_tmpl_nofp[], arm64_tramp_tmpl_nofp_ops[],
	arm64_tramp_tmpl_nofp_call[], arm64_tramp_tmpl_nofp_end[];
static const struct tmpl tmpl_nofp = {
	arm64_tramp_tmpl_nofp, arm64_tramp_tmpl_nofp_ops, arm64_tramp_tmpl_nofp_call,
	arm64_tramp_tmpl_nofp_end,
};

extern const char arm64_tramp_tmpl_noargs[], arm64_tramp_tmpl_noargs_ops[],
	arm64_tramp_tmpl_noargs_call[], arm64_tramp_tmpl_noargs_end[], arm64_tramp_tmpl_noargs_bl[];
static const struct tmpl tmpl_noargs = {
	arm64_tramp_tmpl_noargs, arm64_tramp_tmpl_noargs_ops, arm64_tramp_tmpl_noargs_call,
	arm64_tramp_tmpl_noargs_end, arm64_tramp_tmpl_noargs_bl,
};

extern const char arm64_tramp_tmpl_args_only[], arm64_tramp_tmpl_args_only_ops[],
	arm64_tramp_tmpl_args_only_call[], arm64_tramp_tmpl_args_only_end[],
	arm64_tramp_tmpl_args_only_bl[];
static const struct tmpl tmpl_args_only = {
	arm64_tramp_tmpl_args_only, arm64_tramp_tmpl_args_only_ops,
	arm64_tramp_tmpl_args_only_call, arm64_tramp_tmpl_args_only_end,
	arm64_tramp_tmpl_args_only_bl,
};

int arch_tramp_build(void *buf, uintptr_t exec, void *ops, void *call, enum arch_tramp_kind kind)
{
	const struct tmpl *t = kind == ARCH_TRAMP_REGS ? &tmpl_regs :
			       kind == ARCH_TRAMP_NOFP ? &tmpl_nofp :
			       kind == ARCH_TRAMP_NOARGS ? &tmpl_noargs :
			       kind == ARCH_TRAMP_ARGS_ONLY ? &tmpl_args_only : &tmpl_plain;
	size_t len = (size_t)(t->end - t->start);
	uint64_t o = (uintptr_t)ops, c = (uintptr_t)call;

	if (len > ARCH_TRAMP_SIZE)
		return -ENOSPC;
	if (exec & 7)
		return -EINVAL;                   /* the literals must stay aligned */
	memcpy(buf, t->start, len);
	memcpy((char *)buf + (t->ops - t->start), &o, sizeof(o));
	memcpy((char *)buf + (t->call - t->start), &c, sizeof(c));
	if (t->bl) {
		/* The direct call: the pool and the callbacks are in the image,
		 * within a branch's reach of each other. */
		intptr_t off = (intptr_t)(c - (exec + (uintptr_t)(t->bl - t->start)));
		if ((c & 3) || off < -BRANCH_RANGE || off >= BRANCH_RANGE)
			return -ERANGE;
		uint32_t insn = INSN_BL | ((uint32_t)(off >> 2) & INSN_IMM26_MASK);
		memcpy((char *)buf + (t->bl - t->start), &insn, sizeof(insn));
	}
	return (int)len;
}

void arch_tramp_poison(void *buf, size_t n)
{
	const uint32_t trap = INSN_TRAMP_POISON;
	uint8_t *p = buf;
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(trap >> (8 * (i & 3)));
}
