/*
 * list_test.S — an old site's call into a list caller, for
 * tests/guest/test_list_regs.c (declared in arch/tests.h).
 *
 * arch_test_regs_list_old_site(arg, func) calls func(arg) as func's site
 * would have if it still held `call arch_ftrace_regs_list_caller`
 * (arch/hooks.h draws the site): func + 5, where that call would have
 * returned, on top of the parent's return address, as after `call func`.
 * The caller goes on into func's body at func + 5, which returns to the
 * parent: arch_test_regs_list_old_site_ret, in here, so the parent a
 * callback sees is known exactly.  Whatever func's site holds now is
 * skipped, which is what a CPU that fetched the site's old call does.
 * arch_test_list_old_site is the same with arch_ftrace_list_caller.
 */
#include "arch_defs.h"

.macro old_site name, caller
	.text
	.balign 16
	.globl \name, \name\()_ret
	.type \name, @function
\name:
	pushq	%rbp                    /* rsp = 0 mod 16: func is entered at 8 */
	movq	%rsp, %rbp
	leaq	\name\()_ret(%rip), %rax
	pushq	%rax                    /* the parent, as `call func` pushes it */
	leaq	ARCH_SITE_SIZE(%rsi), %rax
	pushq	%rax                    /* func + 5, as func's site pushes it */
	jmp	\caller                 /* rdi: func's argument */
\name\()_ret:
	popq	%rbp
	ret
	.size \name, . - \name
.endm

	old_site arch_test_regs_list_old_site, arch_ftrace_regs_list_caller
	old_site arch_test_list_old_site, arch_ftrace_list_caller

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
