/*
 * arch_defs.h — x86-64 inline primitives and the trap frame (see arch/hooks.h).
 *
 * Included from arch/hooks.h and lib/spinlock.h, so it may not include
 * boot/cpu.h: struct cpu stays opaque here.  Everything is always_inline, so
 * callers in traced files never reach a patchable site through it.
 *
 * The trap frame layout is shared with vectors.S through the TF_* offsets
 * below; arch/x86_64/trap.c pins them with _Static_assert.  Likewise the
 * tracing layouts (struct pt_regs, struct ftrace_regs: PT_*, FR_*) with
 * ftrace_tramp.S, pinned in ftrace.c; and the ftrace_regs accessors of
 * trace/core/ftrace.h.
 */
#ifndef ARCH_X86_64_ARCH_DEFS_H
#define ARCH_X86_64_ARCH_DEFS_H

#define ARCH_NAME "x86_64"

/*
 * Trap frame, lowest address first.  The CPU pushes ss..rip (and an error
 * code for some exceptions) after aligning RSP down to 16; the vector stub
 * pushes a zero error code where the CPU does not, then the vector; the
 * common entry pushes the 15 GPRs, makes room for the FXSAVE area and a
 * frame record {saved rbp, rip} so that rbp-chain backtraces walk from the
 * handler into the interrupted code.  Total 704 bytes, a multiple of 16, so
 * the FXSAVE area at offset 16 is 16-byte aligned.
 */
#define TF_LINK_RBP   0
#define TF_LINK_RIP   8
#define TF_FX         16       /* 512-byte FXSAVE area */
#define TF_R15        528
#define TF_RBP        592
#define TF_RAX        640
#define TF_VECTOR     648
#define TF_ERROR      656
#define TF_RIP        664
#define TF_CS         672
#define TF_RFLAGS     680
#define TF_RSP        688
#define TF_SS         696
#define TF_SIZE       704

/* ---- Tracing (arch/hooks.h "Tracing"; ftrace_tramp.S, patch.c) ----
 *
 * A site is the 5 bytes at the function's address that
 * -fpatchable-function-entry=5 leaves (five NOPs, made one 5-byte NOP at
 * boot: patch.c); enabled, it is `call rel32`.  Trampoline slots in the pool are
 * ARCH_TRAMP_SIZE bytes (the regs template is the larger one: ftrace.c
 * checks both fit).
 */
#define ARCH_SITE_SIZE      5
#define ARCH_SITE_HAS_DATA  0       /* no per-site data word */
#define ARCH_INSN_ALIGN     1       /* every instruction, so every call target */
#define ARCH_FTRACE_NARGS   6
/* The calling convention's facts trace/btf/fsig.c maps arguments by (struct
 * fsig_abi: { integer regs, FP regs, big aggregates by reference, 16-byte
 * values at even registers, a split aggregate ends register use }). */
#define ARCH_FSIG_ABI       { ARCH_FTRACE_NARGS, 8, false, false, false }  /* SysV x86-64 */
#define ARCH_CALL_PUSH      8       /* a call pushes the return address */
#define ARCH_ADDR_INDEX_DISP 1      /* disp(base, index): arch/hooks.h */
#define ARCH_WIDE_IMM       1       /* movabs: arch/hooks.h */
#define ARCH_PAIR_COPY      0       /* no pair moves: arch/hooks.h */
#define ARCH_TRAMP_SIZE     512
#define X86_TRAMP_POOL_SIZE 0x10000    /* 64 KiB: 128 slots */

/*
 * struct pt_regs (SAVE_REGS callers only), lowest address first.  rip is
 * the traced function's address on entry to the callback; a callback that
 * changes it makes the trampoline return there instead of into the function
 * (with the function's entry stack: rsp = PT_RSP, the parent's return
 * address on top).  GPRs are restored from here, so changed argument
 * registers take effect too; rflags, cs and ss are informational.
 */
#define PT_R15        0
#define PT_R14        8
#define PT_R13        16
#define PT_R12        24
#define PT_RBP        32
#define PT_RBX        40
#define PT_R11        48
#define PT_R10        56
#define PT_R9         64
#define PT_R8         72
#define PT_RAX        80
#define PT_RCX        88
#define PT_RDX        96
#define PT_RSI        104
#define PT_RDI        112
#define PT_RIP        120
#define PT_CS         128
#define PT_RFLAGS     136
#define PT_RSP        144
#define PT_SS         152
#define PT_SIZE       160

/*
 * struct ftrace_regs: what a trampoline builds on the traced function's
 * stack before calling the callback, lowest address first.  The last four
 * words are not copies: they are the stack itself.  On entry to the
 * trampoline the stack holds {func+5, parent} (the site's call pushed
 * func+5); the trampoline copies func+5 one word down and stores the
 * caller's rbp in its place, so that the top of ftrace_regs reads
 *     tramp_fp = &fp, fn_ret = func+5    the trampoline's frame record
 *     fp = caller's rbp, parent          the function's own frame record
 * and an rbp-chain backtrace from the callback goes callback ->
 * trampoline -> func -> parent -> ...  &parent is the stack pointer at the
 * function's entry.  The trampoline returns with `ret $8` through fn_ret.
 * The base is 16-byte aligned when the function was entered with the
 * ABI's alignment (the callback is called with rsp = base).
 */
#define FR_XMM        0        /* xmm0-7, 16 bytes each */
#define FR_RDI        128      /* argument registers, in argument order */
#define FR_RSI        136
#define FR_RDX        144
#define FR_RCX        152
#define FR_R8         160
#define FR_R9         168
#define FR_RAX        176      /* vector-register count of a varargs call; return value */
#define FR_R10        184      /* static chain (GNU C nested functions) */
#define FR_REGS       192      /* struct pt_regs *, or 0 */
#define FR_DIRECT     200      /* regs list caller: a direct trampoline to enter, or 0 */
#define FR_TRAMP_FP   208
#define FR_FN_RET     216
#define FR_FP         224
#define FR_PARENT     232
#define FR_SIZE       240

#ifndef __ASSEMBLY__

#include <stdbool.h>
#include <stdint.h>

struct cpu;

struct trap_frame {
	uint64_t link_rbp, link_rip;               /* frame record for backtraces */
	uint8_t fx[512] __attribute__((aligned(16)));
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector;                           /* pushed by the stub */
	uint64_t error;                            /* CPU's error code, or 0 */
	uint64_t rip, cs, rflags, rsp, ss;         /* pushed by the CPU */
};

#define X86_RFLAGS_IF (1ul << 9)

#define ARCH_INLINE static inline __attribute__((always_inline))

/* Layouts shared with ftrace_tramp.S: ftrace.c pins every FR_* / PT_*. */
struct pt_regs {
	uint64_t r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8;
	uint64_t rax, rcx, rdx, rsi, rdi;
	uint64_t rip, cs, rflags, rsp, ss;
};

struct ftrace_regs {
	uint64_t xmm[8][2];                        /* xmm0-7 as the function got them */
	uint64_t args[ARCH_FTRACE_NARGS];          /* rdi, rsi, rdx, rcx, r8, r9 */
	uint64_t rax, r10;
	struct pt_regs *regs;                      /* SAVE_REGS trampolines only */
	uint64_t direct;                           /* regs list caller only: 0, or the
						      direct trampoline to enter on the
						      way out (ftrace_regs_set_direct) */
	uint64_t tramp_fp, fn_ret;                 /* trampoline's frame record */
	uint64_t fp, parent;                       /* the function's frame record */
};

/* The accessors of trace/core/ftrace.h; valid only during the callback. */
ARCH_INLINE uintptr_t ftrace_regs_get_argument(const struct ftrace_regs *f, unsigned n)
{
	return n < ARCH_FTRACE_NARGS ? f->args[n] : 0;
}
ARCH_INLINE uintptr_t ftrace_regs_get_stack_pointer(const struct ftrace_regs *f)
{
	return (uintptr_t)&f->parent;
}
/* Its inverse, during the callback (trace/core/ftrace.h). */
ARCH_INLINE struct ftrace_regs *ftrace_regs_of_stack_pointer(uintptr_t sp)
{
	return (struct ftrace_regs *)(sp - __builtin_offsetof(struct ftrace_regs, parent));
}
ARCH_INLINE uintptr_t ftrace_regs_get_frame_pointer(const struct ftrace_regs *f)
{
	return f->fp;
}
ARCH_INLINE uintptr_t ftrace_regs_get_return_address(const struct ftrace_regs *f)
{
	return f->parent;
}
ARCH_INLINE uintptr_t ftrace_regs_get_instruction_pointer(const struct ftrace_regs *f)
{
	return f->fn_ret - ARCH_SITE_SIZE;
}
ARCH_INLINE uintptr_t ftrace_regs_get_return_value(const struct ftrace_regs *f)
{
	return f->rax;
}
ARCH_INLINE struct pt_regs *ftrace_get_regs(const struct ftrace_regs *f)
{
	return f->regs;
}
/* The regs list function (ftrace_ops_list_regs_func), for a site with a
 * direct trampoline and callbacks: enter `addr` on the way out, as the site
 * would have called it (DIRECT.md's state: [rsp] = where the function goes
 * on, the parent above).  Only the regs list caller reads the field (it
 * clears it on entry); a write from any other caller is dead. */
ARCH_INLINE void ftrace_regs_set_direct(struct ftrace_regs *f, uintptr_t addr)
{
	f->direct = addr;
}

/* The list function's: what ftrace_get_regs() answers for the next
 * callback (the frame itself stays where the trampoline put it). */
ARCH_INLINE void ftrace_regs_set_regs(struct ftrace_regs *f, struct pt_regs *r)
{
	f->regs = r;
}

/* fgraph: the traced function's return address is its stack slot itself
 * (fregs overlays the function's entry stack): writing it redirects the
 * function's return. */
ARCH_INLINE uintptr_t *ftrace_regs_return_slot(struct ftrace_regs *f)
{
	return (uintptr_t *)&f->parent;
}

/* What arch_fgraph_return_hook (fgraph.S) saves; offsets FGR_* there.  It
 * ends with the hook's frame record, {rbp, hook}, whose second word is the
 * function's dead return slot: its address is the SP the function was
 * entered with. */
struct fgraph_ret_regs {
	uint64_t rax, rdx;         /* return value registers */
	uint64_t xmm0[2], xmm1[2]; /* floating-point return registers */
	uint64_t fp;               /* rbp after the return: the caller's */
	uint64_t hook;             /* arch_fgraph_return_hook, in the return slot */
};
_Static_assert(sizeof(struct fgraph_ret_regs) == 64, "FGR_SIZE");

ARCH_INLINE uint64_t fgraph_ret_regs_value(const struct fgraph_ret_regs *r)
{
	return r->rax;
}

ARCH_INLINE uintptr_t fgraph_ret_regs_sp(const struct fgraph_ret_regs *r)
{
	return (uintptr_t)&r->hook;
}

/* The struct the return hook saved for a function entered at sp
 * (fgraph_ret_regs_sp's inverse): its hook word is at sp. */
ARCH_INLINE struct fgraph_ret_regs *fgraph_ret_regs_of_sp(uintptr_t sp)
{
	return (struct fgraph_ret_regs *)(sp - __builtin_offsetof(struct fgraph_ret_regs, hook));
}

/* An XRay exit sled's handler (__fexit__, ftrace_tramp.S) passes the
 * struct fgraph_ret_regs it saved first (rdi, fgraph_solo_return_t): its
 * rsp, one MOV as the return value's would be. */
ARCH_INLINE uint64_t fgraph_fexit_value(uint64_t x0)
{
	return fgraph_ret_regs_value((const struct fgraph_ret_regs *)(uintptr_t)x0);
}
ARCH_INLINE struct fgraph_ret_regs *fgraph_fexit_regs(uint64_t x0, uintptr_t sp)
{
	(void)sp;
	return (struct fgraph_ret_regs *)(uintptr_t)x0;
}

/* struct cpu's first field is a self pointer (boot/cpu.h), so %gs:0 is it. */
ARCH_INLINE struct cpu *arch_this_cpu(void)
{
	struct cpu *c;
	/* volatile: the result changes when a thread migrates; never CSE it. */
	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/* Not volatile: the caller cannot migrate, and arch_cpu_word and
 * arch_cpu_pair32 do not use it (GS-relative loads), so it is dropped. */
ARCH_INLINE struct cpu *arch_cpu_pinned(void)
{
	struct cpu *c;
	__asm__("movq %%gs:0, %0" : "=r"(c));
	return c;
}

ARCH_INLINE uintptr_t arch_cpu_word(struct cpu *c, size_t off)
{
	uintptr_t v;
	(void)c;
	__asm__("movq %%gs:%c1, %0" : "=r"(v) : "i"(off));
	return v;
}

ARCH_INLINE uint32_t arch_cpu_u32(struct cpu *c, size_t off)
{
	uint32_t v;
	(void)c;
	__asm__("movl %%gs:%c1, %0" : "=r"(v) : "i"(off));
	return v;
}

/* Both words volatile: read where the caller reads them.  A plain second
 * one the compilers keep from a callback's first pair to its header (clang
 * in a callee-saved register, a push and a pop; GCC in a caller-saved one
 * across the graph entry's frame push, where it had no other: graph_call
 * +1) where a second GS-relative load costs one. */
ARCH_INLINE uint32_t arch_cpu_pair32(struct cpu *c, size_t off, uint32_t *second)
{
	uint32_t a, b;
	(void)c;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(b) : "i"(off + 4));
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(a) : "i"(off));
	*second = b;
	return a;
}

/* offsetof(struct cpu, current) (asserted in thread.c): one gs-relative
 * load reads it, and an instruction is never split by a migration. */
#define X86_CPU_CURRENT 32
ARCH_INLINE struct thread *arch_current(void)
{
	struct thread *t;
	__asm__ volatile("movq %%gs:%c1, %0" : "=r"(t) : "i"(X86_CPU_CURRENT) : "memory");
	return t;
}
void arch_set_current(struct cpu *c, struct thread *t);

/* GS base := c, and c->self := c.  Boot and bring-up only. */
ARCH_INLINE void arch_set_this_cpu(struct cpu *c)
{
	uint64_t v = (uint64_t)(uintptr_t)c;
	*(struct cpu **)c = c;
	__asm__ volatile("wrmsr" : : "c"(0xC0000101u), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32)) : "memory");
}

ARCH_INLINE unsigned long arch_irq_save(void)
{
	unsigned long f;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(f) : : "memory");
	return f;
}

ARCH_INLINE void arch_irq_restore(unsigned long f)
{
	if (f & X86_RFLAGS_IF)
		__asm__ volatile("sti" : : : "memory");
}

ARCH_INLINE void arch_irq_enable(void)
{
	__asm__ volatile("sti" : : : "memory");
}

ARCH_INLINE void arch_irq_disable(void)
{
	__asm__ volatile("cli" : : : "memory");
}

ARCH_INLINE bool arch_irqs_enabled(void)
{
	unsigned long f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	return (f & X86_RFLAGS_IF) != 0;
}

/* RFLAGS.IF (bit 9) is 1 when interrupts are on: moved into place, then
 * flipped and joined to k by one XOR (k has no bit there, so XOR is OR
 * for it): shl, and, xor. */
ARCH_INLINE uint32_t arch_irqs_disabled_or(unsigned shift, uint32_t k)
{
	unsigned long f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	_Static_assert(X86_RFLAGS_IF == 1u << 9, "RFLAGS.IF");
	uint32_t i = (uint32_t)f & X86_RFLAGS_IF;
	return (shift >= 9 ? i << (shift - 9) : i >> (9 - shift)) ^ (1u << shift | k);
}

/* v above 15 made 15 by a branch around a MOV: on the common path (a
 * count up to 15) a compare and a taken branch, where GCC's select takes
 * three (the 15 moved into a register, cmp, cmova). */
ARCH_INLINE uint64_t arch_min15_or(uint64_t w, unsigned shift, uint32_t v)
{
	uint64_t x = v;              /* widened where it is loaded (movl) */
	__asm__("cmpq $15, %0\n\tjbe 1f\n\tmovl $15, %k0\n1:" : "+r"(x) : : "cc");
	return w | x << shift;
}

ARCH_INLINE void arch_cpu_relax(void)
{
	__asm__ volatile("pause" : : : "memory");
}

/*
 * The TSC.  lfence keeps rdtsc from executing before earlier instructions
 * (rdtsc alone is not ordered).  Rate: arch_counter_hz(), calibrated at boot.
 */
ARCH_INLINE uint64_t arch_counter(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

ARCH_INLINE uint64_t arch_counter_relaxed(void)
{
	uint64_t v;
	/* rdtsc zero-extends into rax and rdx: two instructions join them. */
	__asm__ volatile("rdtsc\n\tshlq $32, %%rdx\n\torq %%rdx, %%rax" : "=a"(v) : : "rdx", "memory");
	return v;
}

/* GCC folds offsets into x86-64 atomic loads: the builtins as they are. */
ARCH_INLINE uint32_t arch_load_relaxed8(const uint8_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
ARCH_INLINE uint32_t arch_load_relaxed32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
/* p[0] and p[1] (arch/hooks.h): two loads (p[1] is this CPU's own word,
 * read plainly so that GCC may fold it into what uses it). */
ARCH_INLINE uint32_t arch_load_pair32(const uint32_t *p, uint32_t *second)
{
	*second = p[1];
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}
/* p[0] and p[1] (arch/hooks.h): two loads, the second plain, so that GCC
 * may fold it into what uses it. */
ARCH_INLINE uint64_t arch_load_pair64(const uint64_t *p, uint64_t *second)
{
	*second = p[1];
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}
/* v >= 2^bits (arch/hooks.h): a compare with the immediate 2^bits - 1 and a
 * branch (a shift would need a copy of v first: mov, shr, branch). */
ARCH_INLINE bool arch_above_bits(uint64_t v, unsigned bits)
{
	return v > (UINT64_C(1) << bits) - 1;
}

ARCH_INLINE uint64_t arch_load_relaxed64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
ARCH_INLINE void arch_store_relaxed64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
/* v - *p and *p != v (arch/hooks.h): one SUB / CMP from memory (an aligned
 * load is a relaxed atomic one), where GCC makes a MOV and the SUB / CMP
 * of __atomic_load_n. */
ARCH_INLINE uint64_t arch_sub_load64(uint64_t v, const uint64_t *p)
{
	__asm__("subq %1, %0" : "+r"(v) : "m"(*p) : "cc");
	return v;
}
ARCH_INLINE bool arch_ne_load64(uint64_t v, const uint64_t *p)
{
	bool ne;
	__asm__ volatile("cmpq %2, %1" : "=@ccne"(ne) : "r"(v), "m"(*p));
	return ne;
}
/* But not into CMPXCHG: written out, so that *p is base + offset.  LOCK
 * CMPXCHG is atomic and a full barrier, more than relaxed asks; no
 * "memory" clobber, as a relaxed CAS orders nothing else for the compiler
 * (callers put their own signal fences). */
ARCH_INLINE bool arch_cas_relaxed64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	bool ok;
	__asm__ volatile("lock cmpxchgq %3, %1"
			 : "=@ccz"(ok), "+m"(*p), "+a"(*expected)
			 : "r"(desired));
	return ok;
}

/* The CPU-local forms without LOCK (arch_local_*). */
#include "local.h"

ARCH_INLINE uintptr_t arch_frame_address(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

/*
 * Register-preserving calls (arch/hooks.h: ARCH_PRESERVING_THUNK,
 * ARCH_CALL_PRESERVING).  The thunk saves rdi, rsi, rcx and r8-r11, the
 * registers a C call may change that are not fn's return (rax, rdx); fn
 * keeps rbx, rbp and r12-r15 as any C function does.  It aligns the stack
 * for fn (the call site may be in a leaf, which keeps no alignment) and
 * keeps a frame (rbp, with CFI) a backtrace walks through.  The kernel is
 * built without a red zone, so a call from the middle of a function body
 * overwrites nothing; the call site names rsp as an operand so that the
 * compiler sets up the caller's frame first (as Linux's
 * ASM_CALL_CONSTRAINT does).
 */
#define ARCH_PRESERVING_THUNK(fn) \
	X86_THUNK_(fn, #fn "_preserving", ".text." #fn "_preserving", "0", "", "")
/*
 * The FP-saving thunk fn_fpsaving (arch/hooks.h, CALL_FPSAVING_VOID): the
 * same, keeping xmm0-xmm7 too (the FP/SIMD argument registers, all the
 * FP/SIMD state live at a function's entry, which an FTRACE_HOT_NOFP
 * trampoline leaves as they are), in trampoline text (.text.tramp: never
 * preempted there, as the callbacks that call it).  The file that defines
 * fn instantiates it.
 */
#define ARCH_FPSAVING_THUNK(fn) \
	X86_THUNK_(fn, #fn "_fpsaving", ".text.tramp", "128", X86_XMM_ARGS_(save), \
		   X86_XMM_ARGS_(load))
#define X86_XMM_save_(n) "	movaps %xmm" #n ", " #n "*16(%rsp)\n"
#define X86_XMM_load_(n) "	movaps " #n "*16(%rsp), %xmm" #n "\n"
#define X86_XMM_ARGS_(op)                                                               \
	X86_XMM_##op##_(0) X86_XMM_##op##_(1) X86_XMM_##op##_(2) X86_XMM_##op##_(3)      \
	X86_XMM_##op##_(4) X86_XMM_##op##_(5) X86_XMM_##op##_(6) X86_XMM_##op##_(7)
/* Both thunks: name (a string) in section, calling fn; `save` more bytes at
 * the aligned bottom of the frame, filled by fpsave before the call and
 * read back by fpload after it. */
#define X86_THUNK_(fn, name, section, save, fpsave, fpload)                              \
	__asm__(".pushsection " section ", \"ax\", @progbits\n"                          \
		".globl " name "\n"                                                      \
		".type " name ", @function\n"                                            \
		".p2align 4\n"                                                           \
		name ":\n"                                                               \
		"	.cfi_startproc\n"                                                 \
		"	push %rbp\n"                                                      \
		"	.cfi_def_cfa_offset 16\n"                                         \
		"	.cfi_offset %rbp, -16\n"                                          \
		"	mov %rsp, %rbp\n"                                                 \
		"	.cfi_def_cfa_register %rbp\n"                                     \
		"	and $-16, %rsp\n"                                                 \
		"	push %rdi\n"                                                      \
		"	push %rsi\n"                                                      \
		"	push %rcx\n"                                                      \
		"	push %r8\n"                                                       \
		"	push %r9\n"                                                       \
		"	push %r10\n"                                                      \
		"	push %r11\n"                                                      \
		"	sub $(8 + " save "), %rsp\n"                                      \
		fpsave                                                                   \
		"	call " #fn "\n"                                                   \
		fpload                                                                   \
		"	add $(8 + " save "), %rsp\n"                                      \
		"	pop %r11\n"                                                       \
		"	pop %r10\n"                                                       \
		"	pop %r9\n"                                                        \
		"	pop %r8\n"                                                        \
		"	pop %rcx\n"                                                       \
		"	pop %rsi\n"                                                       \
		"	pop %rdi\n"                                                       \
		"	leave\n"                                                          \
		"	.cfi_def_cfa %rsp, 8\n"                                           \
		"	ret\n"                                                            \
		"	.cfi_endproc\n"                                                   \
		".size " name ", . - " name "\n"                                         \
		".popsection\n")

#define ARCH_CALL_PRESERVING(fn, a0, a1, a2, a3, a4) \
	ARCH_CALL_THUNK(#fn "_preserving", a0, a1, a2, a3, a4)
/* The same call of any thunk that keeps those registers (thunk: its
 * symbol, a string), e.g. ARCH_CALL_FPSAVING's. */
#define ARCH_CALL_THUNK(thunk, a0, a1, a2, a3, a4) __extension__({                     \
	uintptr_t acp_v0_ = (uintptr_t)(a0), acp_v1_ = (uintptr_t)(a1);                      \
	uintptr_t acp_v2_ = (uintptr_t)(a2), acp_v3_ = (uintptr_t)(a3);                      \
	uintptr_t acp_v4_ = (uintptr_t)(a4), acp_r0_;                                         \
	register uintptr_t acp_r8_ __asm__("r8") = acp_v4_;                                   \
	register uintptr_t acp_sp_ __asm__("rsp");                                            \
	__asm__ volatile("call " thunk                                            \
			 : "=a"(acp_r0_), "+d"(acp_v2_), "+r"(acp_sp_)                        \
			 : "D"(acp_v0_), "S"(acp_v1_), "c"(acp_v3_), "r"(acp_r8_)             \
			 : "cc", "memory");                                                   \
	(struct arch_words2){ acp_r0_, acp_v2_ };                                             \
})

#endif /* __ASSEMBLY__ */
#endif
