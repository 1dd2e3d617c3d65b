/*
 * frame.h — arm64 stack layouts shared between C and assembly.
 *
 * Trap frame: what vectors.S pushes on the interrupted stack for every
 * exception (no separate IRQ stack: the generic scheduler may switch threads
 * from irq_exit(), so the frame must live on the interrupted thread's stack).
 * Switch frame: what arch_switch() (switch.S) pushes for a thread that gives
 * up its CPU; arch_stack_init() (thread.c) forges one.
 *
 * Rules: every offset used by assembly is defined here and pinned against
 * the C structs with _Static_assert (arch_defs.h, thread.c).  Both frames are
 * multiples of 16 bytes so that SP stays ABI-aligned.
 */
#ifndef ARM64_FRAME_H
#define ARM64_FRAME_H

/* ---- Trap frame (struct trap_frame in arch_defs.h) ------------------------ */
#define TF_X0      0        /* x0..x30, 8 bytes each */
#define TF_X29     232
#define TF_X30     240
#define TF_SP      248      /* SP at the moment of the exception (restored from here) */
#define TF_ELR     256      /* PC to return to */
#define TF_SPSR    264
#define TF_ESR     272
#define TF_FAR     280
#define TF_FPCR    288
#define TF_FPSR    296
#define TF_FREC    304      /* AAPCS64 frame record {x29, elr}; x29 points here in handlers */
#define TF_Q0      320      /* q0..q31, 16 bytes each, 16-aligned */
#define TF_SIZE    832

/* ---- Switch frame (arch_switch) ------------------------------------------- */
#define SW_X29     0        /* frame record {x29, x30} at the lowest address */
#define SW_X30     8
#define SW_X19     16       /* x19..x28 */
#define SW_D8      96       /* d8..d15 */
#define SW_FPCR    160
#define SW_SIZE    176

/* ---- Tracing frames (struct pt_regs / struct ftrace_regs, arch_defs.h) ----
 *
 * A trampoline builds, on the traced function's stack, just below the SP the
 * function was entered with:
 *   sp + 0                 its own frame record {&fregs.x29, func + 8}
 *   sp + FT_FREGS          struct ftrace_regs, which starts with a struct
 *                          pt_regs: every trampoline fills x0-x8, x29 and
 *                          x30; the regs variant fills all of it.
 * x29/x30 of the pt_regs are adjacent: they form the traced function's
 * frame record {caller's x29, parent}, so the frame-pointer chain reads
 * callback -> trampoline -> function -> parent.  The accessors take SP at
 * entry and the function from the frame itself, as every variant builds it
 * (arch_defs.h): the frame ends where the function's stack began, and the
 * trampoline's record, just below fregs, holds func + 8.
 */
#define PT_X0      0        /* x0..x30, 8 bytes each */
#define PT_X8      64
#define PT_X10     80
#define PT_X28     224
#define PT_X29     232
#define PT_X30     240      /* the return address (parent ip) at entry */
#define PT_SP      248      /* SP at the function's entry */
#define PT_PC      256      /* the traced function; regs variant: where to go on */
#define PT_PSTATE  264
#define PT_SIZE    272

#define FR_PT      0        /* struct pt_regs r */
#define FR_Q0      272      /* v0..v7, 16 bytes each, 16-aligned */
#define FR_REGS    400      /* struct pt_regs *: &r in the regs variant, else 0 */
#define FR_DIRECT  408      /* regs list caller: a direct trampoline to enter, or 0 */
#define FR_SIZE    416

#define FT_FREGS   16       /* struct ftrace_regs, above the trampoline's record */
#define FT_FRAME   (FT_FREGS + FR_SIZE)   /* 432: keeps SP 16-aligned */

/* struct ftrace_ops (trace/core/ftrace.h pins both): what the list callers load
 * from the ops in a site's data word. */
#define OPS_CALL       0    /* call: the plain list caller's */
#define OPS_REGS_CALL  8    /* regs_call: the regs list caller's */

#endif
