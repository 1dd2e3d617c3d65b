/*
 * fgraph.S — the function-graph return hook (arch/hooks.h).
 *
 * Reached by the traced function's `ret` (its return slot was replaced at
 * entry), so rsp = the SP it was entered with + 8, 16-byte aligned (a call
 * leaves rsp = 8 mod 16 at an entry), and the return value is live in rax,
 * rdx, xmm0 and xmm1.  Everything else caller-saved is dead after a return;
 * callee-saved registers are kept by fgraph_return (C).
 *
 * Frame: the hook's address goes back into the function's return slot
 * (dead since its `ret`: the slot's address is the entry SP), rbp below
 * it, which makes {rbp, hook} a frame record so a backtrace from an exit
 * callback walks on into the caller (the hook address resolves through the
 * shadow stack); the return registers below that.  Together they are
 * struct fgraph_ret_regs, 64 bytes: the call below is 16-byte aligned.
 * The original return address is written into the slot and `ret` goes
 * there (the rsp the caller expects: entry SP + 8).
 *
 * In .text.tramp: a thread interrupted in here is never preempted
 * (boot/irq.c), and fgraph_return is there too (FTRACE_HOT).
 */
#define FGR_RAX   0
#define FGR_RDX   8
#define FGR_XMM0  16
#define FGR_XMM1  32
#define FGR_FP    48                      /* then the hook word: the record */
#define FGR_REGS  FGR_FP                  /* bytes below the record */

	.section .text.tramp, "ax"
	.balign 16
	/* Debuggers name a frame by its return address minus one: this
	 * never-executed byte puts that inside a function of its own
	 * (return_to_handler, Linux's name), not in whatever precedes it. */
	.globl return_to_handler, arch_fgraph_return_hook
	.type return_to_handler, @function
return_to_handler:
	int3
arch_fgraph_return_hook:
	pushq	$arch_fgraph_return_hook        /* the kernel is below 2 GiB */
	pushq	%rbp
	movq	%rsp, %rbp
	subq	$FGR_REGS, %rsp
	movq	%rax, FGR_RAX(%rsp)
	movq	%rdx, FGR_RDX(%rsp)
	movups	%xmm0, FGR_XMM0(%rsp)
	movups	%xmm1, FGR_XMM1(%rsp)
	movq	%rsp, %rdi
	call	fgraph_return
	movq	%rax, 8(%rbp)                   /* the return slot: where to go */
	movq	FGR_RAX(%rsp), %rax
	movq	FGR_RDX(%rsp), %rdx
	movups	FGR_XMM0(%rsp), %xmm0
	movups	FGR_XMM1(%rsp), %xmm1
	leave
	ret
	.size return_to_handler, . - return_to_handler

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
