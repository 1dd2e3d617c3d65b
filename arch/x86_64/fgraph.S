/*
 * fgraph.S — the function-graph return hook (arch/hooks.h).
 *
 * Reached by the traced function's `ret` (its return slot was replaced at
 * entry), so rsp = the SP it was entered with + 8, 16-byte aligned (a call
 * leaves rsp = 8 mod 16 at an entry; FRAME is a multiple of 16, so the
 * call below is aligned too), and the return value is live in rax,
 * rdx, xmm0 and xmm1.  Everything else caller-saved is dead after a return;
 * callee-saved registers are kept by fgraph_return (C).  r11 carries the
 * original return address to the final jump: it is caller-saved, so no
 * caller expects it kept across the call it is returning from.
 *
 * In .text.tramp: a thread interrupted in here is never preempted
 * (boot/irq.c), and fgraph_return is there too (FTRACE_HOT).
 */
#define FGR_RAX   0
#define FGR_RDX   8
#define FGR_SP    16
#define FGR_FP    24
#define FGR_XMM0  32
#define FGR_XMM1  48
#define FGR_SIZE  64
#define FRAME     (FGR_SIZE + 16)         /* + frame record {rbp, hook}: stays 16-aligned */

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
	subq	$FRAME, %rsp
	movq	%rax, FGR_RAX(%rsp)
	movq	%rdx, FGR_RDX(%rsp)
	leaq	FRAME-8(%rsp), %rax             /* the entry SP: where the slot was */
	movq	%rax, FGR_SP(%rsp)
	movq	%rbp, FGR_FP(%rsp)
	movups	%xmm0, FGR_XMM0(%rsp)
	movups	%xmm1, FGR_XMM1(%rsp)
	/* A frame record, so a backtrace from an exit callback walks on into
	 * the caller (the hook address resolves through the shadow stack). */
	movq	%rbp, FGR_SIZE(%rsp)
	leaq	arch_fgraph_return_hook(%rip), %rax
	movq	%rax, FGR_SIZE+8(%rsp)
	leaq	FGR_SIZE(%rsp), %rbp
	movq	%rsp, %rdi
	call	fgraph_return
	movq	%rax, %r11
	movq	FGR_FP(%rsp), %rbp
	movq	FGR_RAX(%rsp), %rax
	movq	FGR_RDX(%rsp), %rdx
	movups	FGR_XMM0(%rsp), %xmm0
	movups	FGR_XMM1(%rsp), %xmm1
	addq	$FRAME, %rsp
	jmp	*%r11
	.size return_to_handler, . - return_to_handler
