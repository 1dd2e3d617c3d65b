/*
 * list_test.S — an old site's call into a list caller, for
 * tests/guest/test_list_regs.c (declared in arch/tests.h).
 *
 * arch_test_regs_list_old_site(arg, func) calls func(arg) as func's site
 * would have if it still held `mov x9, x30; bl arch_ftrace_regs_list_caller`
 * (arch/hooks.h draws the site): x9 = the parent, x30 = func + 8, where
 * that bl would have returned.  The caller reads the data word at
 * func - 8 and goes on into func's body at func + 8, which returns to the
 * parent: arch_test_regs_list_old_site_ret, in here, so the parent a
 * callback sees is known exactly.  Whatever func's site holds now is
 * skipped, which is what a CPU that fetched the site's old BL does.
 * arch_test_list_old_site is the same with arch_ftrace_list_caller.
 */
.macro old_site name, caller
	.text
	.globl	\name, \name\()_ret
	.type	\name, %function
	.balign	8
\name:
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	adr	x9, \name\()_ret                 // the parent func returns to
	add	x30, x1, #8                      // func + 8, as the site's bl left it
	b	\caller                          // x0: func's argument
\name\()_ret:
	ldp	x29, x30, [sp], #16
	ret
	.size	\name, . - \name
.endm

	old_site arch_test_regs_list_old_site, arch_ftrace_regs_list_caller
	old_site arch_test_list_old_site, arch_ftrace_list_caller

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
