/*
 * ftrace.c — building trampolines from the templates in ftrace_tramp.S
 * (arch_tramp_build, arch_tramp_poison; arch/hooks.h), and the layout pins
 * shared with that file.
 *
 * A template is a complete trampoline with two movabs immediates left 0:
 * the ops pointer (loaded into rdx, the callback's third argument) and the
 * callback (called through rax).  It has no rip-relative operand and no
 * branch leaving it, so a copy runs the same at any address: `exec` is not
 * needed for relocation.  Templates live in .rodata and never run in place.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "arch/hooks.h"
#include "arch/x86_64/x86.h"
#include "boot/panic.h"

_Static_assert(offsetof(struct pt_regs, r15) == PT_R15, "PT_R15");
_Static_assert(offsetof(struct pt_regs, r14) == PT_R14, "PT_R14");
_Static_assert(offsetof(struct pt_regs, r13) == PT_R13, "PT_R13");
_Static_assert(offsetof(struct pt_regs, r12) == PT_R12, "PT_R12");
_Static_assert(offsetof(struct pt_regs, rbp) == PT_RBP, "PT_RBP");
_Static_assert(offsetof(struct pt_regs, rbx) == PT_RBX, "PT_RBX");
_Static_assert(offsetof(struct pt_regs, r11) == PT_R11, "PT_R11");
_Static_assert(offsetof(struct pt_regs, r10) == PT_R10, "PT_R10");
_Static_assert(offsetof(struct pt_regs, r9) == PT_R9, "PT_R9");
_Static_assert(offsetof(struct pt_regs, r8) == PT_R8, "PT_R8");
_Static_assert(offsetof(struct pt_regs, rax) == PT_RAX, "PT_RAX");
_Static_assert(offsetof(struct pt_regs, rcx) == PT_RCX, "PT_RCX");
_Static_assert(offsetof(struct pt_regs, rdx) == PT_RDX, "PT_RDX");
_Static_assert(offsetof(struct pt_regs, rsi) == PT_RSI, "PT_RSI");
_Static_assert(offsetof(struct pt_regs, rdi) == PT_RDI, "PT_RDI");
_Static_assert(offsetof(struct pt_regs, rip) == PT_RIP, "PT_RIP");
_Static_assert(offsetof(struct pt_regs, cs) == PT_CS, "PT_CS");
_Static_assert(offsetof(struct pt_regs, rflags) == PT_RFLAGS, "PT_RFLAGS");
_Static_assert(offsetof(struct pt_regs, rsp) == PT_RSP, "PT_RSP");
_Static_assert(offsetof(struct pt_regs, ss) == PT_SS, "PT_SS");
_Static_assert(sizeof(struct pt_regs) == PT_SIZE && PT_SIZE % 16 == 0, "PT_SIZE");

_Static_assert(offsetof(struct ftrace_regs, xmm) == FR_XMM, "FR_XMM");
_Static_assert(offsetof(struct ftrace_regs, args[0]) == FR_RDI, "FR_RDI");
_Static_assert(offsetof(struct ftrace_regs, args[1]) == FR_RSI, "FR_RSI");
_Static_assert(offsetof(struct ftrace_regs, args[2]) == FR_RDX, "FR_RDX");
_Static_assert(offsetof(struct ftrace_regs, args[3]) == FR_RCX, "FR_RCX");
_Static_assert(offsetof(struct ftrace_regs, args[4]) == FR_R8, "FR_R8");
_Static_assert(offsetof(struct ftrace_regs, args[5]) == FR_R9, "FR_R9");
_Static_assert(offsetof(struct ftrace_regs, rax) == FR_RAX, "FR_RAX");
_Static_assert(offsetof(struct ftrace_regs, r10) == FR_R10, "FR_R10");
_Static_assert(offsetof(struct ftrace_regs, regs) == FR_REGS, "FR_REGS");
_Static_assert(offsetof(struct ftrace_regs, direct) == FR_DIRECT, "FR_DIRECT");
_Static_assert(offsetof(struct ftrace_regs, tramp_fp) == FR_TRAMP_FP, "FR_TRAMP_FP");
_Static_assert(offsetof(struct ftrace_regs, fn_ret) == FR_FN_RET, "FR_FN_RET");
_Static_assert(offsetof(struct ftrace_regs, fp) == FR_FP, "FR_FP");
_Static_assert(offsetof(struct ftrace_regs, parent) == FR_PARENT, "FR_PARENT");
_Static_assert(sizeof(struct ftrace_regs) == FR_SIZE, "FR_SIZE");
/* The base is 16-aligned iff the site's return slot (fp) is. */
_Static_assert(FR_FP % 16 == 0 && FR_XMM % 16 == 0, "ftrace_regs alignment");
_Static_assert(X86_TRAMP_POOL_SIZE % ARCH_TRAMP_SIZE == 0 &&
	       X86_TRAMP_POOL_SIZE % PAGE_SIZE == 0, "pool of whole slots and pages");

/* ftrace_tramp.S: by enum arch_tramp_kind. */
struct x86_tramp_template {
	const uint8_t *start;
	size_t len;
	/* Offsets of the 8-byte immediates of `movabs $ops, %rdx` (0: none,
	 * the NOARGS template) and `movabs $call, %rax`, or of the rel32 of a
	 * `call call` (the NOARGS and ARGS_ONLY templates: call_imm follows
	 * an E8 byte). */
	size_t ops_imm, call_imm;
};
extern const struct x86_tramp_template x86_tramp_templates[5];   /* by enum arch_tramp_kind */

/* movabs $imm64, %rdx / %rax: REX.W, B8 + register. */
static bool is_movabs(const uint8_t *imm, uint8_t reg)
{
	return imm[-2] == 0x48 && imm[-1] == 0xB8 + reg;
}

int arch_tramp_build(void *buf, uintptr_t exec, void *ops, void *call, enum arch_tramp_kind kind)
{
	_Static_assert(ARCH_TRAMP_ARGS == 0 && ARCH_TRAMP_REGS == 1 && ARCH_TRAMP_NOFP == 2 &&
		       ARCH_TRAMP_NOARGS == 3 && ARCH_TRAMP_ARGS_ONLY == 4,
		       "x86_tramp_templates' order (ftrace_tramp.S)");
	if ((unsigned)kind > ARCH_TRAMP_ARGS_ONLY)
		return -EINVAL;
	const struct x86_tramp_template *t = &x86_tramp_templates[kind];
	if (t->len > ARCH_TRAMP_SIZE)
		return -ENOSPC;
	bool direct = t->start[t->call_imm - 1] == 0xE8;
	if ((t->ops_imm && !is_movabs(t->start + t->ops_imm, 2)) ||
	    (!direct && (!t->ops_imm || !is_movabs(t->start + t->call_imm, 0))))
		panic("arch_tramp_build: template immediates are not where ftrace_tramp.S says");
	uint64_t o = (uintptr_t)ops, c = (uintptr_t)call;
	memcpy(buf, t->start, t->len);
	if (t->ops_imm)
		memcpy((uint8_t *)buf + t->ops_imm, &o, sizeof(o));
	if (!direct) {
		memcpy((uint8_t *)buf + t->call_imm, &c, sizeof(c));
		return (int)t->len;
	}
	/* call rel32: from the end of the call (the immediate's end). */
	int64_t rel = (int64_t)(c - (exec + t->call_imm + 4));
	if (rel != (int32_t)rel)
		return -ERANGE;
	int32_t r32 = (int32_t)rel;
	memcpy((uint8_t *)buf + t->call_imm, &r32, sizeof(r32));
	return (int)t->len;
}

/* int3: a jump into a freed slot traps at once (#BP, not in flight: fatal). */
void arch_tramp_poison(void *buf, size_t n)
{
	memset(buf, 0xCC, n);
}
