/*
 * fgraph.S — the function-graph return hook (arch/hooks.h).
 *
 * Reached by the traced function's `ret` (its return slot was replaced at
 * entry), so rsp = the SP it was entered with + 8, 16-byte aligned (a call
 * leaves rsp = 8 mod 16 at an entry), and the return value is live in rax,
 * rdx, xmm0 and xmm1.  Everything else caller-saved is dead after a return;
 * callee-saved registers are kept by the C half.  That is
 * fgraph_hook_return (trace/core/fgraph_hooks.h), the one user's
 * FTRACE_HOT_NOFP solo_return, which touches no FP/SIMD register (anything
 * but its own frame it hands to fgraph_return_fpsaving, below): then rax
 * and rdx are all the hook saves, and it is called with the return value
 * (rax) in rdi and the entry SP in rsi (fgraph_solo_return_t).  Without
 * one (NULL) xmm0-1 are saved too and fgraph_return is called.
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
 * (boot/irq.c), and its C halves are there too (FTRACE_HOT); so is
 * unregister_fgraph's grace period's reach: a user whose solo_return the
 * hook loaded stays registered until the hook is done.
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
	movq	fgraph_hook_return(%rip), %rcx  /* once: it may change meanwhile */
	testq	%rcx, %rcx
	jz	2f
	movq	%rax, %rdi
	leaq	8(%rbp), %rsi                   /* the entry SP: the return slot */
	call	*%rcx                           /* the one user's solo_return(rax, sp) */
1:	movq	%rax, 8(%rbp)                   /* the return slot: where to go */
	movq	FGR_RAX(%rsp), %rax
	movq	FGR_RDX(%rsp), %rdx
	leave
	ret
2:	movq	%rsp, %rdi                      /* fgraph_return(rr) */
	movups	%xmm0, FGR_XMM0(%rsp)           /* any user's exit may read them */
	movups	%xmm1, FGR_XMM1(%rsp)
	call	fgraph_return
	movups	FGR_XMM0(%rsp), %xmm0
	movups	FGR_XMM1(%rsp), %xmm1
	jmp	1b
	.size return_to_handler, . - return_to_handler

/* An FP-saving thunk (trace/core/fgraph_inline.h) of `target`: called (or
 * tail-called) with rdi = a struct fgraph_ret_regs (the return hook's, or
 * the exit sled handler's: __fexit__, ftrace_tramp.S) and xmm0-xmm1 as the
 * function returned them, it stores those there (exit callbacks may read
 * them), calls target with rdi and whatever the other argument registers
 * hold, which may reach any user's code, and puts them back.  xmm2-xmm7
 * are dead after a return; they are kept too, so that
 * tools/check-nofp.py's one rule for FP-saving thunks (every FP/SIMD
 * argument register stored) holds here.  Entered as a function is (rsp 8
 * mod 16); returns target's rax. */
.macro RR_FPSAVING name, target
	.globl	\name
	.type	\name, @function
	.balign	16
\name:
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rdi
	subq	$(8 + 96), %rsp
	movups	%xmm0, FGR_XMM0(%rdi)
	movups	%xmm1, FGR_XMM1(%rdi)
	.irp n, 2, 3, 4, 5, 6, 7
	movups	%xmm\n, (\n - 2) * 16(%rsp)
	.endr
	call	\target
	movq	-8(%rbp), %rdi
	movups	FGR_XMM0(%rdi), %xmm0
	movups	FGR_XMM1(%rdi), %xmm1
	.irp n, 2, 3, 4, 5, 6, 7
	movups	(\n - 2) * 16(%rsp), %xmm\n
	.endr
	leave
	ret
	.size	\name, . - \name
.endm

	/* fgraph_return's: the one way from a solo_return into the general
	 * return (fgraph_return_solo). */
	RR_FPSAVING fgraph_return_fpsaving, fgraph_return
#ifdef BT_INSTR_XRAY
	/* ftrace_sled_exit's (rsi the sled, rdx the function's sp): the one
	 * way from the exit sled's solo_return into the trace stack's general
	 * exit (fgraph_sled_exit_solo). */
	RR_FPSAVING ftrace_sled_exit_fpsaving, ftrace_sled_exit
#endif

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
