/*
 * ftrace_tramp.S — what an enabled site calls: the trampoline templates
 * (copied into the pool by arch_tramp_build), the static list callers, and
 * the pool itself.
 *
 * Entry convention (every trampoline here): the site's `call` left
 *     [rsp] = func + 5,  [rsp + 8] = parent's return address,
 * with all argument state live: rdi, rsi, rdx, rcx, r8, r9, rax (al: vector
 * registers of a varargs call), r10 (static chain), xmm0-7.  Everything
 * else caller-saved is dead at a function's entry; callee-saved registers
 * are preserved by the callback itself.
 *
 * Each trampoline but the NOARGS and ARGS_ONLY ones builds struct ftrace_regs (arch_defs.h, FR_*) on the
 * stack — with struct pt_regs below it for the regs variants — calls
 *     call(func, parent, ops, fregs)
 * restores the argument state and returns into func + 5 with the stack as
 * the function's entry had it.  Per call, the plain variant costs 6
 * instructions to build the frame records, 17 stores, 7 to load the
 * callback's arguments and call it, 16 loads and 3 to return.
 *
 * Rules: the templates are position independent (no rip-relative operand,
 * no rel32 out of the template) and are never executed in place — they live
 * in .rodata; their two movabs immediates are patched by ftrace.c at the
 * offsets exported in x86_tramp_templates.  The static callers are in
 * .text.tramp, inside [__tramp_text_start, __tramp_text_end): a thread is
 * never preempted with its pc in there or in the pool (boot/irq.c), which
 * is what lets patch/tramp.c reclaim pool slots after a quiescent state.
 */
#include "arch_defs.h"
#include "x86.h"

/*
 * The two frame records.  The slot holding func + 5 becomes the caller's
 * rbp, with func + 5 copied one word down: rbp then points at
 * {&fp, func + 5} (trampoline) -> {caller rbp, parent} (the function).
 * Leaves rsp = the ftrace_regs base minus \below, rbp = &fregs->tramp_fp.
 */
.macro TRAMP_ENTER below
	pushq	(%rsp)                  /* fn_ret := func + 5 (read before the push) */
	movq	%rbp, 8(%rsp)           /* fp := caller's rbp */
	leaq	8(%rsp), %rbp
	pushq	%rbp                    /* tramp_fp := &fp */
	movq	%rsp, %rbp
	subq	$(FR_TRAMP_FP + \below), %rsp
.endm

/* Undo TRAMP_ENTER and return into func + 5 (or wherever fn_ret was
 * redirected); `ret $8` drops the word that held the caller's rbp. */
.macro TRAMP_LEAVE
	leaq	8(%rbp), %rsp
	movq	8(%rsp), %rbp
	ret	$8
.endm

/* Argument state to/from struct ftrace_regs at \b(%rsp). */
.macro SAVE_ARGS b, fp=1
	movq	%rdi, \b+FR_RDI(%rsp)
	movq	%rsi, \b+FR_RSI(%rsp)
	movq	%rdx, \b+FR_RDX(%rsp)
	movq	%rcx, \b+FR_RCX(%rsp)
	movq	%r8, \b+FR_R8(%rsp)
	movq	%r9, \b+FR_R9(%rsp)
	movq	%rax, \b+FR_RAX(%rsp)
	movq	%r10, \b+FR_R10(%rsp)
	.if \fp
	movups	%xmm0, \b+FR_XMM+0x00(%rsp)
	movups	%xmm1, \b+FR_XMM+0x10(%rsp)
	movups	%xmm2, \b+FR_XMM+0x20(%rsp)
	movups	%xmm3, \b+FR_XMM+0x30(%rsp)
	movups	%xmm4, \b+FR_XMM+0x40(%rsp)
	movups	%xmm5, \b+FR_XMM+0x50(%rsp)
	movups	%xmm6, \b+FR_XMM+0x60(%rsp)
	movups	%xmm7, \b+FR_XMM+0x70(%rsp)
	.endif
.endm

.macro RESTORE_XMM b
	movups	\b+FR_XMM+0x00(%rsp), %xmm0
	movups	\b+FR_XMM+0x10(%rsp), %xmm1
	movups	\b+FR_XMM+0x20(%rsp), %xmm2
	movups	\b+FR_XMM+0x30(%rsp), %xmm3
	movups	\b+FR_XMM+0x40(%rsp), %xmm4
	movups	\b+FR_XMM+0x50(%rsp), %xmm5
	movups	\b+FR_XMM+0x60(%rsp), %xmm6
	movups	\b+FR_XMM+0x70(%rsp), %xmm7
.endm

/* rdi = func, rsi = parent: the callback's first two arguments. */
.macro LOAD_IP_PARENT
	movq	FR_FN_RET-FR_TRAMP_FP(%rbp), %rdi
	subq	$ARCH_SITE_SIZE, %rdi
	movq	FR_PARENT-FR_TRAMP_FP(%rbp), %rsi
.endm

/*
 * The call itself.  tmpl=1: movabs immediates that ftrace.c patches (ops,
 * then the callback), each followed by a label \name\()_ops / _call at the
 * end of its 8-byte immediate.  tmpl=0: ops = NULL, and \func, the static
 * caller's list function (ftrace_ops_list_func, or the regs caller's
 * ftrace_ops_list_regs_func).
 */
.macro TRAMP_CALL name, tmpl, func
	.if \tmpl
	movabsq	$0, %rdx
\name\()_ops:
	movabsq	$0, %rax
\name\()_call:
	call	*%rax
	.else
	xorl	%edx, %edx
	call	\func
	.endif
.endm

/* Plain variant: argument state only, fregs->regs = NULL.  \func: the
 * static caller's list function (TRAMP_CALL). */
.macro FTRACE_CALLER name, tmpl, fp=1, func
\name:
	TRAMP_ENTER 0
	SAVE_ARGS 0, \fp
	movq	$0, FR_REGS(%rsp)
	LOAD_IP_PARENT
	movq	%rsp, %rcx
	TRAMP_CALL \name, \tmpl, \func
	movq	FR_RDI(%rsp), %rdi
	movq	FR_RSI(%rsp), %rsi
	movq	FR_RDX(%rsp), %rdx
	movq	FR_RCX(%rsp), %rcx
	movq	FR_R8(%rsp), %r8
	movq	FR_R9(%rsp), %r9
	movq	FR_RAX(%rsp), %rax
	movq	FR_R10(%rsp), %r10
	.if \fp
	RESTORE_XMM 0
	.endif
	TRAMP_LEAVE
\name\()_end:
.endm

/*
 * SAVE_REGS variant: struct pt_regs at rsp, ftrace_regs at rsp + PT_SIZE.
 * GPRs come back from pt_regs (a callback may change them); a changed
 * pt_regs rip replaces fn_ret, so the trampoline returns there with the
 * function's entry stack instead of into func + 5.
 *
 * The static one (tmpl=0) also serves sites with a direct trampoline and
 * callbacks: fregs->direct starts 0, and when the list function names a
 * direct trampoline there (ftrace_regs_set_direct) the way out enters it
 * instead of returning into the function, in the state the site's own
 * call would have left (DIRECT.md): [rsp] = fn_ret (func + 5, or the rip a
 * callback set), the parent above, every register as returning into the
 * function but r11 and the flags, which are dead at an entry.
 */
.macro FTRACE_REGS_CALLER name, tmpl, func
\name:
	TRAMP_ENTER PT_SIZE
	SAVE_ARGS PT_SIZE
	movq	%r15, PT_R15(%rsp)
	movq	%r14, PT_R14(%rsp)
	movq	%r13, PT_R13(%rsp)
	movq	%r12, PT_R12(%rsp)
	movq	%rbx, PT_RBX(%rsp)
	movq	%r11, PT_R11(%rsp)
	movq	%r10, PT_R10(%rsp)
	movq	%r9, PT_R9(%rsp)
	movq	%r8, PT_R8(%rsp)
	movq	%rax, PT_RAX(%rsp)
	movq	%rcx, PT_RCX(%rsp)
	movq	%rdx, PT_RDX(%rsp)
	movq	%rsi, PT_RSI(%rsp)
	movq	%rdi, PT_RDI(%rsp)
	movq	FR_FP-FR_TRAMP_FP(%rbp), %rax
	movq	%rax, PT_RBP(%rsp)
	leaq	FR_PARENT-FR_TRAMP_FP(%rbp), %rax
	movq	%rax, PT_RSP(%rsp)
	pushfq
	popq	PT_RFLAGS(%rsp)
	movq	%cs, %rax
	movq	%rax, PT_CS(%rsp)
	movq	%ss, %rax
	movq	%rax, PT_SS(%rsp)
	movq	%rsp, PT_SIZE+FR_REGS(%rsp)
	.if !\tmpl
	movq	$0, PT_SIZE+FR_DIRECT(%rsp)
	.endif
	LOAD_IP_PARENT
	movq	%rdi, PT_RIP(%rsp)
	leaq	PT_SIZE(%rsp), %rcx
	TRAMP_CALL \name, \tmpl, \func
	movq	PT_RIP(%rsp), %rax
	movq	FR_FN_RET-FR_TRAMP_FP(%rbp), %rcx
	subq	$ARCH_SITE_SIZE, %rcx
	cmpq	%rax, %rcx
	je	1f
	movq	%rax, FR_FN_RET-FR_TRAMP_FP(%rbp)
1:
	movq	PT_R15(%rsp), %r15
	movq	PT_R14(%rsp), %r14
	movq	PT_R13(%rsp), %r13
	movq	PT_R12(%rsp), %r12
	movq	PT_RBX(%rsp), %rbx
	movq	PT_R11(%rsp), %r11
	movq	PT_R10(%rsp), %r10
	movq	PT_R9(%rsp), %r9
	movq	PT_R8(%rsp), %r8
	movq	PT_RAX(%rsp), %rax
	movq	PT_RCX(%rsp), %rcx
	movq	PT_RDX(%rsp), %rdx
	movq	PT_RSI(%rsp), %rsi
	movq	PT_RDI(%rsp), %rdi
	RESTORE_XMM PT_SIZE
	.if !\tmpl
	movq	PT_SIZE+FR_DIRECT(%rsp), %r11
	testq	%r11, %r11
	jnz	2f
	.endif
	TRAMP_LEAVE
	.if !\tmpl
	/* TRAMP_LEAVE without its ret: fn_ret moves up onto the word that
	 * held the caller's rbp (a pop to (%rsp) addresses the slot above
	 * the popped one), leaving {fn_ret, parent} at rsp as the site's
	 * call would have. */
2:	leaq	8(%rbp), %rsp
	movq	8(%rsp), %rbp
	popq	(%rsp)
	jmp	*%r11
	.endif
\name\()_end:
.endm

/*
 * NOARGS variant (FTRACE_OPS_FL_NOARGS): the callback reads neither op nor
 * fregs nor the FP/SIMD registers, so no struct ftrace_regs and no frame
 * records are made and only the function and the parent are passed (rdx
 * and rcx keep the function's own arguments): the argument state is pushed
 * around the call and popped back (eight pushes keep the call 16-byte
 * aligned: the site's call left rsp 16-aligned).  The call is a `call
 * rel32` that arch_tramp_build points at the callback (the pool is inside
 * the image: in reach).  rbp stays the caller's, so a backtrace from the
 * callback goes from the trampoline on into the traced function's
 * caller's caller.  Per call: 12 instructions in, 9 out.
 */
.macro FTRACE_NOARGS_CALLER name
\name:
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	pushq	%r10
	movq	64(%rsp), %rdi          /* func + 5 */
	subq	$ARCH_SITE_SIZE, %rdi
	movq	72(%rsp), %rsi          /* the parent */
	.byte	0xe8                    /* call rel32 (arch_tramp_build) */
	.long	0
\name\()_call:
	popq	%r10
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	ret
\name\()_end:
.endm

/*
 * ARGS_ONLY variant (FTRACE_OPS_FL_ARGS_ONLY: function_graph's): fregs is
 * where the other variants put it (its parent slot is the return address's
 * own, at the function's entry SP), but only its argument words are
 * stored, pushed in place; the rest of struct ftrace_regs is not built
 * (below the pushes it is the callback's own stack).  No frame records,
 * as in the NOARGS variant.  The gap of 32 bytes between the return
 * address and the pushes keeps FR_R10 in place and the call 16-byte
 * aligned.  The call is a `call rel32` that arch_tramp_build points at the
 * callback, as in the NOARGS variant (the pool is in the image).  Per call:
 * 15 instructions in, 10 out.
 */
#define AO_GAP (FR_PARENT - FR_R10 - 16)      /* fregs' words between fn_ret and r10 */
.macro FTRACE_ARGS_ONLY_CALLER name
\name:
	subq	$AO_GAP, %rsp
	pushq	%r10
	pushq	%rax
	pushq	%r9
	pushq	%r8
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi                    /* rsp = &fregs->rdi */
	movq	FR_PARENT-FR_RDI-8(%rsp), %rdi     /* func + 5 */
	subq	$ARCH_SITE_SIZE, %rdi
	movq	FR_PARENT-FR_RDI(%rsp), %rsi       /* the parent */
	leaq	-FR_RDI(%rsp), %rcx                /* fregs */
	movabsq	$0, %rdx
\name\()_ops:
	.byte	0xe8                    /* call rel32 (arch_tramp_build) */
	.long	0
\name\()_call:
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%r8
	popq	%r9
	popq	%rax
	popq	%r10
	addq	$AO_GAP, %rsp
	ret
\name\()_end:
.endm

/* ---- Templates: copied, never executed here ---- */
	.section .rodata.ftrace_tmpl, "a"
	.balign 16
	FTRACE_CALLER x86_ftrace_tmpl, 1
	.balign 16
	FTRACE_REGS_CALLER x86_ftrace_regs_tmpl, 1
	.balign 16
	FTRACE_CALLER x86_ftrace_nofp_tmpl, 1, 0
	.balign 16
	FTRACE_NOARGS_CALLER x86_ftrace_noargs_tmpl
	.balign 16
	FTRACE_ARGS_ONLY_CALLER x86_ftrace_args_only_tmpl

/* struct x86_tramp_template (ftrace.c): start, length, ops and call
 * immediate offsets, indexed by enum arch_tramp_kind: [0] plain,
 * [1] SAVE_REGS, [2] no FP/SIMD save, [3] no ftrace_regs (no ops
 * immediate: 0; its call a `call rel32`, the offset the rel32's), [4] its
 * argument words only (its call a `call rel32` too). */
	.section .rodata, "a"
	.balign 8
	.globl x86_tramp_templates
x86_tramp_templates:
	.quad	x86_ftrace_tmpl
	.quad	x86_ftrace_tmpl_end - x86_ftrace_tmpl
	.quad	x86_ftrace_tmpl_ops - 8 - x86_ftrace_tmpl
	.quad	x86_ftrace_tmpl_call - 8 - x86_ftrace_tmpl
	.quad	x86_ftrace_regs_tmpl
	.quad	x86_ftrace_regs_tmpl_end - x86_ftrace_regs_tmpl
	.quad	x86_ftrace_regs_tmpl_ops - 8 - x86_ftrace_regs_tmpl
	.quad	x86_ftrace_regs_tmpl_call - 8 - x86_ftrace_regs_tmpl
	.quad	x86_ftrace_nofp_tmpl
	.quad	x86_ftrace_nofp_tmpl_end - x86_ftrace_nofp_tmpl
	.quad	x86_ftrace_nofp_tmpl_ops - 8 - x86_ftrace_nofp_tmpl
	.quad	x86_ftrace_nofp_tmpl_call - 8 - x86_ftrace_nofp_tmpl
	.quad	x86_ftrace_noargs_tmpl
	.quad	x86_ftrace_noargs_tmpl_end - x86_ftrace_noargs_tmpl
	.quad	0                       /* no ops */
	.quad	x86_ftrace_noargs_tmpl_call - 4 - x86_ftrace_noargs_tmpl   /* a rel32 */
	.quad	x86_ftrace_args_only_tmpl
	.quad	x86_ftrace_args_only_tmpl_end - x86_ftrace_args_only_tmpl
	.quad	x86_ftrace_args_only_tmpl_ops - 8 - x86_ftrace_args_only_tmpl
	.quad	x86_ftrace_args_only_tmpl_call - 4 - x86_ftrace_args_only_tmpl   /* a rel32 */

/* ---- Static list callers (arch/hooks.h) ---- */
	.section .text.tramp, "ax"
	.balign 16
	.globl arch_ftrace_list_caller
	.type arch_ftrace_list_caller, @function
	FTRACE_CALLER arch_ftrace_list_caller, 0, 1, ftrace_ops_list_func
	.size arch_ftrace_list_caller, . - arch_ftrace_list_caller

	.balign 16
	.globl arch_ftrace_regs_list_caller
	.type arch_ftrace_regs_list_caller, @function
	FTRACE_REGS_CALLER arch_ftrace_regs_list_caller, 0, ftrace_ops_list_regs_func
	.size arch_ftrace_regs_list_caller, . - arch_ftrace_regs_list_caller

/* What an enabled XRay tail sled calls (INSTR=xray; patch.c): the trace
 * stack's tail (trace/core/tstack.h) through ftrace_sled_tail
 * (trace/core/fgraph.c), with the sled (the return address - 5) and the
 * function's stack pointer (the address of its return address: above
 * ours).  Every caller-saved register comes back as it was: a tail call's
 * arguments and target.  No graph user (fgraph_ts_active 0): a compare
 * and the return, nothing else.  rsp at the sled is 8 mod 16 (a
 * function's entry rsp), so 0 mod 16 here. */
#define SLED_SAVE (9 * 8 + 8 * 16 + 8)
/* One register to (save=1) or from (0) the handler's frame at off. */
.macro SLED_MOV save, op, reg, off
	.if \save
	\op	\reg, \off(%rsp)
	.else
	\op	\off(%rsp), \reg
	.endif
.endm
/* A sled handler's start: with no graph user (fgraph_ts_active 0), the
 * return; else `save` bytes of stack taken. */
.macro SLED_ENTER save
	cmpb	$0, fgraph_ts_active(%rip)
	jne	1f
	ret
1:	subq	$\save, %rsp
.endm
/* The handler's first two arguments, once what they held is saved: the
 * sled (the return address - 5) and the function's sp (the address of
 * its return address, above ours). */
.macro SLED_ARGS save
	movq	\save(%rsp), %rdi
	subq	$5, %rdi
	leaq	\save+8(%rsp), %rsi
.endm
/* Every caller-saved register a tail sled may have live. */
.macro SLED_REGS save
	SLED_MOV \save, movq, %rax, 0x00
	SLED_MOV \save, movq, %rcx, 0x08
	SLED_MOV \save, movq, %rdx, 0x10
	SLED_MOV \save, movq, %rsi, 0x18
	SLED_MOV \save, movq, %rdi, 0x20
	SLED_MOV \save, movq, %r8, 0x28
	SLED_MOV \save, movq, %r9, 0x30
	SLED_MOV \save, movq, %r10, 0x38
	SLED_MOV \save, movq, %r11, 0x40
	SLED_MOV \save, movups, %xmm0, 0x48
	SLED_MOV \save, movups, %xmm1, 0x58
	SLED_MOV \save, movups, %xmm2, 0x68
	SLED_MOV \save, movups, %xmm3, 0x78
	SLED_MOV \save, movups, %xmm4, 0x88
	SLED_MOV \save, movups, %xmm5, 0x98
	SLED_MOV \save, movups, %xmm6, 0xa8
	SLED_MOV \save, movups, %xmm7, 0xb8
.endm

	.section .text.tramp, "ax"
	.globl	__ftail__
	.type	__ftail__, @function
	.balign	16
__ftail__:
	SLED_ENTER SLED_SAVE
	SLED_REGS 1
	SLED_ARGS SLED_SAVE
	call	ftrace_sled_tail
	SLED_REGS 0
	addq	$SLED_SAVE, %rsp
	ret
	.size	__ftail__, . - __ftail__

/* What an enabled XRay exit sled calls: the trace stack's exit through
 * fgraph_ts_exit (trace/core/fgraph.h), called with ftrace_sled_exit's
 * arguments (rr, at, sp; at: its own return address, site.h
 * ARCH_SLED_EXIT_AT).  The sled's call returns to the `ret` at +5
 * (patch.c), so what is live is what the return hook keeps (fgraph.S):
 * the return value, rax, rdx, xmm0 and xmm1, here the first 48 bytes of
 * struct fgraph_ret_regs (rr, arch_defs.h; its fp and hook words, which
 * only the return hook's own path reads, are not written) for the exit
 * callbacks to read.  The other caller-saved registers are dead after a
 * return, the callee-saved ones kept by C.  rsp is 0 mod 16 here and at
 * the call (64 bytes of rr).  Its first instruction jumps through
 * x86_fexit_to (site.h, arch_fexit_set): with no graph user to
 * __fexit_off, the return; else to __fexit_on, the call through
 * fgraph_ts_exit, which is
 * never NULL here (site.h, ARCH_FEXIT_NEVER_NULL: read once, by the call;
 * whichever value it reads is a handler that does the exit).  The one
 * user's solo_return (FTRACE_HOT_NOFP) gets rax and rdx saved in rr and
 * nothing else, as at the return hook;
 * otherwise fgraph_ts_exit is __fexit_fp, below, which saves xmm0-1 in rr
 * too and finishes the exit itself.  Either returns to the parent itself,
 * past the sled's `ret` at +5 (its own return address dropped), which is
 * what that `ret` does. */
#define EXIT_RR 64
/* The exit's end, rsp at rr + off: rax and rdx back from rr, to the parent. */
.macro FEXIT_LEAVE off
	movq	\off(%rsp), %rax
	movq	\off + 8(%rsp), %rdx
	addq	$\off + EXIT_RR + 8, %rsp       /* and the return into the sled */
	ret
.endm
	.globl	__fexit__
	.type	__fexit__, @function
	.balign	16
__fexit__:
	jmp	*x86_fexit_to(%rip)             /* __fexit_on or __fexit_off */
	.globl	__fexit_off
__fexit_off:
	ret
	.globl	__fexit_on
__fexit_on:
	subq	$EXIT_RR, %rsp
	movq	%rax, 0x00(%rsp)
	movq	%rdx, 0x08(%rsp)
	movq	EXIT_RR(%rsp), %rsi              /* at: the sled + 5 (ARCH_SLED_EXIT_AT) */
	leaq	EXIT_RR + 8(%rsp), %rdx          /* the function's sp */
	movq	%rsp, %rdi                       /* rr */
	call	*fgraph_ts_exit(%rip)           /* once; never NULL (site.h) */
	FEXIT_LEAVE 0
	.size	__fexit__, . - __fexit__

/* fgraph_ts_exit without a solo_return: called by __fexit__ with rr built
 * (at rsp + 8, below its return address into __fexit__, which is not
 * used) and ftrace_sled_exit's arguments, it keeps xmm0-1 in rr (any
 * user's exit may read them), calls ftrace_sled_exit (rsp 0 mod 16 at the
 * call), and ends the exit as __fexit__ would. */
	.globl	__fexit_fp
	.type	__fexit_fp, @function
	.balign	16
__fexit_fp:
	subq	$8, %rsp
	movups	%xmm0, 0x10 + 0x10(%rsp)
	movups	%xmm1, 0x10 + 0x20(%rsp)
	call	ftrace_sled_exit
	movups	0x10 + 0x10(%rsp), %xmm0
	movups	0x10 + 0x20(%rsp), %xmm1
	FEXIT_LEAVE 0x10
	.size	__fexit_fp, . - __fexit_fp

/* Where __fexit__ goes (site.h, arch_fexit_set): __fexit_off until a
 * graph user registers. */
	.section .data, "aw"
	.balign	8
	.globl	x86_fexit_to
x86_fexit_to:
	.quad	__fexit_off

/* ---- The pool: int3 until a slot is written (patch/tramp.c) ---- */
	.section .tramp_pool, "ax", @progbits
	.balign PAGE_SIZE
	.fill X86_TRAMP_POOL_SIZE, 1, 0xcc

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
