/*
 * ftrace_tramp.S — what an enabled site calls.
 *
 * Entry (the site ran `mov x9, x30; bl <here>`):
 *   x0-x7, v0-v7  the function's arguments; x8 its indirect-result pointer
 *   x9            the parent: where the function will return to
 *   x30           func + 8: where the function goes on
 *   x29, sp       the caller's frame pointer, the SP the function was entered with
 * x10-x18 are free (AAPCS64 temporaries and IP0/IP1, dead at an entry).
 *
 * Every variant but the NOARGS and ARGS_ONLY ones (at the end) builds struct ftrace_regs
 * (frame.h) on the stack, calls
 *     call(func, parent, op, fregs)
 * and returns into the function at func + 8 with x0-x8, v0-v7 (not in the
 * NOFP template, which leaves v0-v7 alone), x29 and x30 reloaded from fregs
 * (what a callback wrote is what the function sees; x30 = fregs' parent
 * slot) and SP as it was.  SP at entry and the function are not stored but
 * found from the frame's shape (frame.h).  The regs variants save every
 * general register into the pt_regs at the start of fregs, reload x10-x28
 * from it as well, and go on at its PC when a callback changed it
 * (returning to func + 8 otherwise).  Callbacks are C: they keep x19-x28 and
 * the low halves of v8-v15; v0-v7 (but in the NOFP template) and the
 * integer argument registers are saved here.
 *
 * Frame records (AAPCS64): {caller's x29, parent} inside fregs stands for the
 * traced function's own record, and {&that, func + 8} at the bottom of the
 * frame for the trampoline's, so a backtrace from a callback reads
 * callback -> trampoline -> traced function -> parent -> ...
 *
 * Five bodies from one macro:
 *   arch_ftrace_list_caller        op from the site's literal (x30 - 16),
 *   arch_ftrace_regs_list_caller   calls op->call / op->regs_call (CALL_OPS)
 *   arm64_tramp_tmpl[_regs|_nofp]  op and call from the two literals at the
 *                                  end; tramp.c copies them into pool slots.
 * The callers live in .text.tramp (a thread interrupted in here is not
 * preempted: boot/irq.c); the templates in .rodata, never executed in place,
 * position-independent (PC-relative literal loads, no other references).
 */
#include "frame.h"
#include "insn.h"

#define FR(off)  (FT_FREGS + (off))

.macro tramp_entry regs, fp=1
	sub	sp, sp, #FT_FRAME
	stp	x0, x1, [sp, #FR(PT_X0)]
	stp	x2, x3, [sp, #FR(PT_X0 + 16)]
	stp	x4, x5, [sp, #FR(PT_X0 + 32)]
	stp	x6, x7, [sp, #FR(PT_X0 + 48)]
	.if \regs
	stp	x8, x9, [sp, #FR(PT_X8)]
	stp	x10, x11, [sp, #FR(PT_X10)]
	stp	x12, x13, [sp, #FR(PT_X10 + 16)]
	stp	x14, x15, [sp, #FR(PT_X10 + 32)]
	stp	x16, x17, [sp, #FR(PT_X10 + 48)]
	stp	x18, x19, [sp, #FR(PT_X10 + 64)]
	stp	x20, x21, [sp, #FR(PT_X10 + 80)]
	stp	x22, x23, [sp, #FR(PT_X10 + 96)]
	stp	x24, x25, [sp, #FR(PT_X10 + 112)]
	stp	x26, x27, [sp, #FR(PT_X10 + 128)]
	str	x28, [sp, #FR(PT_X28)]
	mrs	x10, nzcv
	add	x10, x10, #5                    // | EL1h (NZCV is bits 31:28)
	str	x10, [sp, #FR(PT_PSTATE)]
	add	x10, sp, #FR(FR_PT)
	str	x10, [sp, #FR(FR_REGS)]         // regs = &r
	add	x10, sp, #FT_FRAME
	sub	x11, x30, #8
	stp	x10, x11, [sp, #FR(PT_SP)]      // sp at entry, pc
	.else
	str	x8, [sp, #FR(PT_X8)]
	str	xzr, [sp, #FR(FR_REGS)]         // regs = NULL
	.endif
	stp	x29, x9, [sp, #FR(PT_X29)]      // the traced function's frame record
	sub	x0, x30, #8                     // arg 0: the function
	.if \fp
	stp	q0, q1, [sp, #FR(FR_Q0)]
	stp	q2, q3, [sp, #FR(FR_Q0 + 32)]
	stp	q4, q5, [sp, #FR(FR_Q0 + 64)]
	stp	q6, q7, [sp, #FR(FR_Q0 + 96)]
	.endif
	add	x29, sp, #FR(PT_X29)
	stp	x29, x30, [sp]                  // the trampoline's record
	mov	x29, sp
	mov	x1, x9                          // arg 1: the parent
	add	x3, sp, #FT_FREGS               // arg 3: fregs
.endm

/* direct=1 (the regs list caller only): when the list function named a
 * direct trampoline in fregs->direct (ftrace_regs_set_direct: a site with a
 * direct trampoline and callbacks), enter it instead of the function, in
 * the state the site's own `bl` would have left (DIRECT.md): x9 = the
 * parent (the possibly changed x30), x30 = where the function goes on
 * (func + 8, or the PC a callback set), everything else as returning into
 * the function.  x16/x17 are dead at an entry (IP0/IP1). */
.macro tramp_exit regs, fp=1, direct=0
	.if \fp
	ldp	q0, q1, [sp, #FR(FR_Q0)]
	ldp	q2, q3, [sp, #FR(FR_Q0 + 32)]
	ldp	q4, q5, [sp, #FR(FR_Q0 + 64)]
	ldp	q6, q7, [sp, #FR(FR_Q0 + 96)]
	.endif
	ldr	x9, [sp, #8]                    // func + 8
	.if \regs
	ldr	x10, [sp, #FR(PT_PC)]
	sub	x11, x9, #8
	cmp	x10, x11
	csel	x9, x9, x10, eq                 // unchanged: func + 8, else the new PC
	ldp	x10, x11, [sp, #FR(PT_X10)]
	ldp	x12, x13, [sp, #FR(PT_X10 + 16)]
	ldp	x14, x15, [sp, #FR(PT_X10 + 32)]
	ldp	x16, x17, [sp, #FR(PT_X10 + 48)]
	ldp	x18, x19, [sp, #FR(PT_X10 + 64)]
	ldp	x20, x21, [sp, #FR(PT_X10 + 80)]
	ldp	x22, x23, [sp, #FR(PT_X10 + 96)]
	ldp	x24, x25, [sp, #FR(PT_X10 + 112)]
	ldp	x26, x27, [sp, #FR(PT_X10 + 128)]
	ldr	x28, [sp, #FR(PT_X28)]
	.endif
	ldp	x0, x1, [sp, #FR(PT_X0)]
	ldp	x2, x3, [sp, #FR(PT_X0 + 16)]
	ldp	x4, x5, [sp, #FR(PT_X0 + 32)]
	ldp	x6, x7, [sp, #FR(PT_X0 + 48)]
	ldr	x8, [sp, #FR(PT_X8)]
	.if \direct
	ldr	x16, [sp, #FR(FR_DIRECT)]
	.endif
	ldp	x29, x30, [sp, #FR(PT_X29)]     // x30 = the (possibly changed) parent
	add	sp, sp, #FT_FRAME
	.if \direct
	cbnz	x16, 1f
	.endif
	ret	x9                              // pairs with the site's bl
	.if \direct
1:	mov	x17, x30
	mov	x30, x9
	mov	x9, x17
	br	x16
	.endif
.endm

/* Static callers: op = the site's literal; the plain one calls op->call,
 * the regs one op->regs_call (frame.h OPS_*): the list function of each
 * (ftrace_list_ops: ftrace_ops_list_func, ftrace_ops_list_regs_func), or
 * a CALL_OPS site's one ops' entry through the caller that site calls
 * (trace/core/ftrace.h).  Being a field of the same ops, not a second ops in
 * the word, each caller reaches its own list function or an entry made
 * for it whichever data word value a CPU that fetched the site's BL
 * loads (trace/core/site_state.h data_of).  The regs one also serves sites with
 * a direct trampoline and callbacks: no direct trampoline unless the list
 * function names one. */
.macro list_caller name, regs
	.globl	\name
	.type	\name, %function
	.balign	16
\name:
	tramp_entry \regs
	.if \regs
	str	xzr, [sp, #FR(FR_DIRECT)]
	.endif
	ldur	x2, [x30, #(ARM64_SITE_DATA_OFF - 8)]  // arg 2: the site's literal (insn.h)
	.if \regs
	ldr	x16, [x2, #OPS_REGS_CALL]
	.else
	ldr	x16, [x2, #OPS_CALL]
	.endif
	blr	x16
	tramp_exit \regs, 1, \regs
	.size	\name, . - \name
.endm

/* A template's two literals, op and call, after its code, and its end. */
.macro tmpl_literals name
	.balign	8
\name\()_ops:
	.quad	0
\name\()_call:
	.quad	0
\name\()_end:
	.size	\name, . - \name
.endm

/* Templates: op and call are the two literals after the code.  fp=0: the
 * FP/SIMD argument registers are left where they are (for callbacks that
 * never touch them: FTRACE_OPS_FL_NOFP, checked at build time). */
.macro template name, regs, fp=1
	.globl	\name, \name\()_ops, \name\()_call, \name\()_end
	.type	\name, %function
	.balign	8
\name:
	tramp_entry \regs, \fp
	ldr	x2, \name\()_ops
	ldr	x16, \name\()_call
	blr	x16
	tramp_exit \regs, \fp
	tmpl_literals \name
.endm

	.section .text.tramp, "ax"
	list_caller arch_ftrace_list_caller, 0
	list_caller arch_ftrace_regs_list_caller, 1

/* What an enabled XRay tail sled calls (INSTR=xray; patch.c): the trace
 * stack's tail (trace/core/tstack.h) through ftrace_sled_tail
 * (trace/core/fgraph.c), with the sled (x30 - 8) and the function's stack
 * pointer (sp here: the sled runs after the epilogue).  Every
 * caller-saved register comes back as it was: a tail call's arguments
 * (x0-x8, q0-q7) and branch register, x9 (the parent, patch.c).  No graph
 * user (fgraph_ts_active 0): x16-x17 saved, a load and the return. */
#define SLED_SAVE (20 * 8 + 8 * 16)
/* The registers a sled may have live but x16-x17, x29-x30, stored
 * (pair=stp, one=str) or loaded (ldp, ldr) above the frame record. */
.macro sled_regs pair, one
	\pair	x0, x1, [sp, #16]
	\pair	x2, x3, [sp, #32]
	\pair	x4, x5, [sp, #48]
	\pair	x6, x7, [sp, #64]
	\pair	x8, x9, [sp, #80]
	\pair	x10, x11, [sp, #96]
	\pair	x12, x13, [sp, #112]
	\pair	x14, x15, [sp, #128]
	\one	x18, [sp, #144]
	\pair	q0, q1, [sp, #160]
	\pair	q2, q3, [sp, #192]
	\pair	q4, q5, [sp, #224]
	\pair	q6, q7, [sp, #256]
.endm
	.globl	__ftail__
	.type	__ftail__, %function
	.balign	16
__ftail__:
	.cfi_startproc
	/* For debuggers: this returns to x30 (the sled + 8), and the caller's
	 * x30 is the parent the sled keeps in x9 (saved below with x8). */
	.cfi_return_column 32
	.cfi_register 32, 30
	.cfi_register 30, 9
	stp	x16, x17, [sp, #-16]!
	.cfi_def_cfa_offset 16
	adrp	x16, fgraph_ts_active
	ldrb	w16, [x16, :lo12:fgraph_ts_active]
	cbnz	w16, 1f
	.cfi_remember_state
	ldp	x16, x17, [sp], #16
	.cfi_def_cfa_offset 0
	ret
	.cfi_restore_state
1:	sub	sp, sp, #SLED_SAVE
	.cfi_def_cfa_offset (SLED_SAVE + 16)
	stp	x29, x30, [sp, #0]
	.cfi_offset 29, -(SLED_SAVE + 16)
	.cfi_offset 32, -(SLED_SAVE + 8)
	mov	x29, sp
	sled_regs stp, str
	.cfi_offset 30, 88 - (SLED_SAVE + 16)
	sub	x0, x30, #8                      // the sled
	add	x1, sp, #(SLED_SAVE + 16)        // the function's sp
	bl	ftrace_sled_tail
	sled_regs ldp, ldr
	ldp	x29, x30, [sp, #0]
	add	sp, sp, #SLED_SAVE
	ldp	x16, x17, [sp], #16
	ret
	.cfi_endproc
	.size	__ftail__, . - __ftail__

/* What an enabled XRay exit sled calls: the trace stack's exit through
 * fgraph_ts_exit (trace/core/fgraph.h), called with fgraph_solo_return_t's
 * arguments (x0, at, sp; x0: the return value, left where it is, rr found
 * from sp, arch_defs.h fgraph_fexit_regs; at: the sled's function, site.h
 * arch_sled_exit_func).  The sled is followed by the `ret` (arch_sled_init
 * checks it), so what is live is what the return hook
 * keeps (fgraph.S): the return value, x0-x1 and q0-q3; and x9, the parent,
 * which the sled would move back into x30 after this returned to +8.
 * x2-x8, x10-x18 are dead after a return (AAPCS64), x19-x28 and the low
 * halves of v8-v15 kept by C.  Frame, from sp down: struct fgraph_ret_regs
 * (rr, 80 bytes, arch_defs.h), the frame record {x29, x9}: the function
 * has left (its frame is gone, x29 is the parent's), so the record names
 * the parent, and x30 is not needed again: this returns to the parent
 * itself, as the sled's `mov x30, x9`, `b`, `ret` would (x30 is left
 * pointing into the sled: no caller reads the link register after a call,
 * AAPCS64).  fgraph_ts_exit NULL (no graph user): a load, a test and that
 * return (x16 is dead at a return too).  The one user's solo_return
 * (FTRACE_HOT_NOFP) gets x0-x1 saved in rr and nothing else, as at the
 * return hook; otherwise fgraph_ts_exit is __fexit_fp, below, which saves
 * q0-q3 in rr too and finishes the exit itself. */
#define EXIT_FRAME (16 + 80)
/* The exit's end: x0-x1 back from rr, the frame gone, to the parent. */
.macro fexit_leave
	ldp	x0, x1, [sp, #16]
	ldp	x29, x9, [sp], #EXIT_FRAME
	.cfi_def_cfa_offset 0
	.cfi_restore 29
	.cfi_register 32, 9
	ret	x9
.endm
/* For debuggers (the return column 32, the pc): the handler returns to
 * the parent, x9, saved with x29 as the frame record at sp, the frame
 * EXIT_FRAME bytes (fexit_frame: from the record on). */
.macro fexit_frame
	.cfi_def_cfa_offset EXIT_FRAME
	.cfi_offset 29, -EXIT_FRAME
	.cfi_offset 32, 8 - EXIT_FRAME
.endm
	.globl	__fexit__
	.type	__fexit__, %function
	.balign	16
__fexit__:
	.cfi_startproc
	.cfi_return_column 32
	.cfi_register 32, 9
	adrp	x16, fgraph_ts_exit
	ldr	x16, [x16, :lo12:fgraph_ts_exit]
	cbnz	x16, 1f
	ret	x9
1:	stp	x29, x9, [sp, #-EXIT_FRAME]!
	fexit_frame
	mov	x29, sp
	stp	x0, x1, [sp, #16]                // rr: x[0], x[1]; x0 the retval
	ldr	w1, [x30, #8]                    // at: the function (sled + 16: site.h ARCH_SLED_FUNC_OFF)
	add	x2, sp, #EXIT_FRAME              // the function's sp
	blr	x16
	fexit_leave
	.cfi_endproc
	.size	__fexit__, . - __fexit__

/* fgraph_ts_exit without a solo_return: called by __fexit__ with its frame
 * built and ftrace_sled_exit's arguments, it keeps q0-q3 in rr (rr: sp +
 * 16, its q[] at +16; any user's exit may read them), calls
 * ftrace_sled_exit, and ends the exit as __fexit__ would (its own return
 * address into __fexit__ is not used). */
	.globl	__fexit_fp
	.type	__fexit_fp, %function
	.balign	16
__fexit_fp:
	.cfi_startproc
	.cfi_return_column 32
	fexit_frame                              // __fexit__'s, which this ends
	stp	q0, q1, [sp, #32]                // rr: q[0] .. q[3]
	stp	q2, q3, [sp, #64]
	bl	ftrace_sled_exit                 // x0 the return value, not read
	ldp	q0, q1, [sp, #32]
	ldp	q2, q3, [sp, #64]
	fexit_leave
	.cfi_endproc
	.size	__fexit_fp, . - __fexit_fp

	.section .rodata.ftrace_tmpl, "a"
	template arm64_tramp_tmpl, 0
	template arm64_tramp_tmpl_regs, 1
	template arm64_tramp_tmpl_nofp, 0, 0

/*
 * The NOARGS template (ARCH_TRAMP_NOARGS, for FTRACE_OPS_FL_NOARGS ops):
 * the callback reads neither op nor fregs nor the FP/SIMD registers, so no
 * struct ftrace_regs is built and only the function and the parent are
 * passed (x2 and x3 keep the function's own arguments): the integer
 * argument state (x0-x8) and the parent (x9) are stored around the call
 * and loaded back, with func + 8 (x30).  No frame record is made, as on
 * x86-64: x29 stays the traced function's caller's, so a backtrace from
 * the callback goes from the trampoline (its lr) on into that caller's
 * caller (the callback is frameless, FTRACE_HOT_NOFP).  The call is a `bl`
 * that arch_tramp_build points at the callback (the pool is inside the
 * image: in reach); the literals still hold ops and call, for a reader of
 * the slot.  Per call: 10 instructions in, 7 out.
 */
#define NA_FRAME 96
	.globl	arm64_tramp_tmpl_noargs, arm64_tramp_tmpl_noargs_ops
	.globl	arm64_tramp_tmpl_noargs_call, arm64_tramp_tmpl_noargs_end
	.globl	arm64_tramp_tmpl_noargs_bl
	.type	arm64_tramp_tmpl_noargs, %function
	.balign	8
arm64_tramp_tmpl_noargs:
	str	x30, [sp, #-NA_FRAME]!          // func + 8
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	stp	x8, x9, [sp, #80]
	sub	x0, x30, #8                     // arg 0: the function
	mov	x1, x9                          // arg 1: the parent
arm64_tramp_tmpl_noargs_bl:
	.inst	INSN_BL                         // bl call (arch_tramp_build)
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldp	x8, x30, [sp, #80]              // x30 = the parent
	ldr	x9, [sp], #NA_FRAME             // x9 = func + 8
	ret	x9                              // pairs with the site's bl
	tmpl_literals arm64_tramp_tmpl_noargs

/*
 * The ARGS_ONLY template (ARCH_TRAMP_ARGS_ONLY, for FTRACE_OPS_FL_ARGS_ONLY
 * ops: function_graph's): the frame has the shape of the others (fregs at
 * sp + FT_FREGS, ending at the function's entry SP), but of fregs only
 * x0-x7 and the parent slot (PT_X30, which a callback may rewrite: x30 is
 * loaded from it) are stored, x8 kept where pt_regs' sp would be, and the
 * one frame record is the trampoline's {caller's x29, func + 8}, as in the
 * NOARGS template.  The call is a `bl` that arch_tramp_build points at the
 * callback, as in the NOARGS template (the ops literal is loaded, the call
 * literal written for a reader of the slot).  Per call: 12 instructions
 * in, 7 out.
 */
	.globl	arm64_tramp_tmpl_args_only, arm64_tramp_tmpl_args_only_ops
	.globl	arm64_tramp_tmpl_args_only_call, arm64_tramp_tmpl_args_only_end
	.globl	arm64_tramp_tmpl_args_only_bl
	.type	arm64_tramp_tmpl_args_only, %function
	.balign	8
arm64_tramp_tmpl_args_only:
	stp	x29, x30, [sp, #-FT_FRAME]!     // the trampoline's record
	mov	x29, sp
	stp	x0, x1, [sp, #FR(PT_X0)]
	stp	x2, x3, [sp, #FR(PT_X0 + 16)]
	stp	x4, x5, [sp, #FR(PT_X0 + 32)]
	stp	x6, x7, [sp, #FR(PT_X0 + 48)]
	stp	x9, x8, [sp, #FR(PT_X30)]       // the parent slot; x8 in PT_SP's place
	sub	x0, x30, #8                     // arg 0: the function
	mov	x1, x9                          // arg 1: the parent
	ldr	x2, arm64_tramp_tmpl_args_only_ops
	add	x3, sp, #FT_FREGS               // arg 3: fregs
arm64_tramp_tmpl_args_only_bl:
	.inst	INSN_BL                         // bl call (arch_tramp_build)
	ldp	x0, x1, [sp, #FR(PT_X0)]
	ldp	x2, x3, [sp, #FR(PT_X0 + 16)]
	ldp	x4, x5, [sp, #FR(PT_X0 + 32)]
	ldp	x6, x7, [sp, #FR(PT_X0 + 48)]
	ldp	x30, x8, [sp, #FR(PT_X30)]      // x30 = the (possibly rewritten) parent
	ldp	x29, x9, [sp], #FT_FRAME        // x9 = func + 8
	ret	x9                              // pairs with the site's bl
	tmpl_literals arm64_tramp_tmpl_args_only

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
