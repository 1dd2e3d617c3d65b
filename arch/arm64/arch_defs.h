/*
 * arch_defs.h — arm64 inline primitives required by arch/hooks.h.
 *
 * Included from arch/hooks.h and lib/spinlock.h, so it must not include
 * boot/cpu.h (struct cpu is only forward-declared).  Everything here is
 * static inline always_inline: it is used from the tracer and from code that
 * must never reach a patchable site.
 *
 * The per-CPU pointer lives in TPIDR_EL1.  The interrupt flag is PSTATE.I
 * (DAIF bit 7); FIQs are never used.  The counter is the EL1 virtual counter
 * CNTVCT_EL0 (same rate on every CPU, CNTVOFF = 0).
 */
#ifndef ARM64_ARCH_DEFS_H
#define ARM64_ARCH_DEFS_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"

#define ARCH_NAME "arm64"

struct cpu;

/*
 * The registers saved on exception entry (vectors.S).  Opaque to generic
 * code, which uses arch_frame_pc/fp/redirect and arch_dump_frame.
 */
struct trap_frame {
	uint64_t x[31];            /* x0..x30 */
	uint64_t sp;               /* interrupted SP; exception return loads SP from here */
	uint64_t elr;              /* interrupted PC */
	uint64_t spsr;             /* interrupted PSTATE */
	uint64_t esr;              /* syndrome (meaningful for synchronous exceptions) */
	uint64_t far;              /* fault address (meaningful for aborts) */
	uint64_t fpcr, fpsr;
	uint64_t frame_record[2];  /* {x29, elr}: links the frame-pointer chain through the trap */
	uint64_t q[32][2];         /* q0..q31 as {low, high} 64-bit halves */
} __attribute__((aligned(16)));

_Static_assert(__builtin_offsetof(struct trap_frame, x[29]) == TF_X29, "TF_X29");
_Static_assert(__builtin_offsetof(struct trap_frame, x[30]) == TF_X30, "TF_X30");
_Static_assert(__builtin_offsetof(struct trap_frame, sp) == TF_SP, "TF_SP");
_Static_assert(__builtin_offsetof(struct trap_frame, elr) == TF_ELR, "TF_ELR");
_Static_assert(__builtin_offsetof(struct trap_frame, spsr) == TF_SPSR, "TF_SPSR");
_Static_assert(__builtin_offsetof(struct trap_frame, esr) == TF_ESR, "TF_ESR");
_Static_assert(__builtin_offsetof(struct trap_frame, far) == TF_FAR, "TF_FAR");
_Static_assert(__builtin_offsetof(struct trap_frame, fpcr) == TF_FPCR, "TF_FPCR");
_Static_assert(__builtin_offsetof(struct trap_frame, fpsr) == TF_FPSR, "TF_FPSR");
_Static_assert(__builtin_offsetof(struct trap_frame, frame_record) == TF_FREC, "TF_FREC");
_Static_assert(__builtin_offsetof(struct trap_frame, q) == TF_Q0, "TF_Q0");
_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "TF_SIZE");
_Static_assert(TF_SIZE % 16 == 0 && TF_Q0 % 16 == 0, "trap frame alignment");

#define ARM64_INLINE static inline __attribute__((always_inline))

/* ---- Tracing (arch/hooks.h "Tracing"; patch.c, tramp.c, ftrace_tramp.S) ----
 *
 * Site: `mov x9, x30; bl <target>` at the function, an 8-byte literal (the
 * site's data word: an ops pointer) just before it.  ARCH_TRAMP_SIZE is a
 * pool slot; the regs template is the larger one (tramp.c checks).
 */
#define ARCH_SITE_SIZE      8
#define ARCH_SITE_HAS_DATA  1
#define ARCH_INSN_ALIGN     4       /* every instruction, so every call target */
#define ARCH_FTRACE_NARGS   8
#define ARCH_ADDR_INDEX_DISP 0      /* [base, index] or [base, #disp]: arch/hooks.h */
#define ARCH_WIDE_IMM       0       /* MOV and MOVKs: arch/hooks.h */
#define ARCH_PAIR_COPY      1       /* LDP, STP: arch/hooks.h */
/* The calling convention's facts trace/btf/fsig.c maps arguments by (struct
 * fsig_abi: { integer regs, FP regs, big aggregates by reference, 16-byte
 * values at even registers, a split aggregate ends register use }). */
#define ARCH_FSIG_ABI       { ARCH_FTRACE_NARGS, 8, true, true, true }     /* AAPCS64 */
#define ARCH_CALL_PUSH      0       /* bl leaves the return address in x30 */
#define ARCH_TRAMP_SIZE     512
/* Registers at the traced function's entry.  Layout: frame.h PT_*. */
struct pt_regs {
	uint64_t regs[31];         /* x0..x30; x9 holds the parent too (the site's scratch) */
	uint64_t sp;
	uint64_t pc;               /* the function; a SAVE_REGS callback may redirect */
	uint64_t pstate;           /* NZCV | EL1h */
};

/*
 * What a trampoline passes to callbacks.  Layout: frame.h FR_*.  Every
 * trampoline fills r.regs[0..8] and r.regs[29..30], and q unless it is a
 * NOFP one; the regs variant fills all of r (r.sp and r.pc included) and
 * sets regs = &r.  SP at entry and the function come from the frame's
 * shape (the accessors below).  On the way back the trampoline reloads
 * x0-x8, x29, x30 and (but in a NOFP one) v0-v7 from here (and x10-x28 and
 * the PC from r in the regs variant), so what callbacks write is what the
 * function sees; r.sp and r.pstate are for reading only.
 */
struct ftrace_regs {
	struct pt_regs r;
	uint64_t q[8][2];          /* v0..v7 as {low, high} halves */
	struct pt_regs *regs;      /* &r when all registers were saved, else NULL */
	uint64_t direct;           /* regs list caller only: 0, or the direct
				      trampoline to enter on the way out
				      (ftrace_regs_set_direct) */
} __attribute__((aligned(16)));

_Static_assert(__builtin_offsetof(struct pt_regs, regs[8]) == PT_X8, "PT_X8");
_Static_assert(__builtin_offsetof(struct pt_regs, regs[10]) == PT_X10, "PT_X10");
_Static_assert(__builtin_offsetof(struct pt_regs, regs[28]) == PT_X28, "PT_X28");
_Static_assert(__builtin_offsetof(struct pt_regs, regs[29]) == PT_X29, "PT_X29");
_Static_assert(__builtin_offsetof(struct pt_regs, regs[30]) == PT_X30, "PT_X30");
_Static_assert(__builtin_offsetof(struct pt_regs, sp) == PT_SP, "PT_SP");
_Static_assert(__builtin_offsetof(struct pt_regs, pc) == PT_PC, "PT_PC");
_Static_assert(__builtin_offsetof(struct pt_regs, pstate) == PT_PSTATE, "PT_PSTATE");
_Static_assert(sizeof(struct pt_regs) == PT_SIZE, "PT_SIZE");
_Static_assert(__builtin_offsetof(struct ftrace_regs, r) == FR_PT, "FR_PT");
_Static_assert(__builtin_offsetof(struct ftrace_regs, q) == FR_Q0, "FR_Q0");
_Static_assert(__builtin_offsetof(struct ftrace_regs, regs) == FR_REGS, "FR_REGS");
_Static_assert(__builtin_offsetof(struct ftrace_regs, direct) == FR_DIRECT, "FR_DIRECT");
_Static_assert(sizeof(struct ftrace_regs) == FR_SIZE, "FR_SIZE");
_Static_assert(FR_Q0 % 16 == 0 && FT_FRAME % 16 == 0, "tracing frame alignment");
_Static_assert(FT_FRAME - FT_FREGS == FR_SIZE && FT_FREGS == 16,
	       "fregs ends the frame, right above the trampoline's record");

/* The accessors of trace/core/ftrace.h; valid only during the callback. */
ARM64_INLINE uintptr_t ftrace_regs_get_argument(const struct ftrace_regs *f, unsigned n)
{
	return n < ARCH_FTRACE_NARGS ? f->r.regs[n] : 0;
}
/* SP at entry and the function come from the frame's shape (frame.h), so
 * the plain trampolines need not store them; the regs variant also stores
 * them in r (sp, pc), for ftrace_get_regs() users. */
ARM64_INLINE uintptr_t ftrace_regs_get_stack_pointer(const struct ftrace_regs *f)
{
	return (uintptr_t)f + FR_SIZE;
}
/* Its inverse, during the callback (trace/core/ftrace.h). */
ARM64_INLINE struct ftrace_regs *ftrace_regs_of_stack_pointer(uintptr_t sp)
{
	return (struct ftrace_regs *)(sp - FR_SIZE);
}
ARM64_INLINE uintptr_t ftrace_regs_get_frame_pointer(const struct ftrace_regs *f)
{
	return f->r.regs[29];
}
ARM64_INLINE uintptr_t ftrace_regs_get_return_address(const struct ftrace_regs *f)
{
	return f->r.regs[30];
}
ARM64_INLINE uintptr_t ftrace_regs_get_instruction_pointer(const struct ftrace_regs *f)
{
	return ((const uintptr_t *)f)[-1] - 8;     /* the trampoline record's func + 8 */
}
ARM64_INLINE uintptr_t ftrace_regs_get_return_value(const struct ftrace_regs *f)
{
	return f->r.regs[0];
}
ARM64_INLINE struct pt_regs *ftrace_get_regs(const struct ftrace_regs *f)
{
	return f->regs;
}
/* The regs list function (ftrace_ops_list_regs_func), for a site with a
 * direct trampoline and callbacks: enter `addr` on the way out, as the site
 * would have called it (DIRECT.md's state: x9 the parent, x30 where the
 * function goes on).  Only the regs list caller reads the field (it clears
 * it on entry); a write from any other caller is dead. */
ARM64_INLINE void ftrace_regs_set_direct(struct ftrace_regs *f, uintptr_t addr)
{
	f->direct = addr;
}

/* The list function's: what ftrace_get_regs() answers for the next
 * callback (the frame itself stays where the trampoline put it). */
ARM64_INLINE void ftrace_regs_set_regs(struct ftrace_regs *f, struct pt_regs *r)
{
	f->regs = r;
}

/* fgraph: the trampoline reloads x30 from the parent slot on its way back
 * into the function, so writing it redirects the function's return. */
ARM64_INLINE uintptr_t *ftrace_regs_return_slot(struct ftrace_regs *f)
{
	return (uintptr_t *)&f->r.regs[30];
}

/* What arch_fgraph_return_hook (fgraph.S) saves; offsets FGR_* there.  It
 * sits right below the SP the function was entered with (= the SP at its
 * return), so that SP is the struct's end.  Results come back in x0-x1 at
 * most (AAPCS64: a composite over 16 bytes is returned through x8's
 * memory) and v0-v3 (HFAs, 128 bits each). */
struct fgraph_ret_regs {
	uint64_t x[2];             /* x0-x1: integer / aggregate return registers */
	uint64_t q[4][2];          /* v0-v3: floating-point / HFA return registers */
};
_Static_assert(sizeof(struct fgraph_ret_regs) == 80, "FGR_SIZE");

ARM64_INLINE uint64_t fgraph_ret_regs_value(const struct fgraph_ret_regs *r)
{
	return r->x[0];
}

ARM64_INLINE uintptr_t fgraph_ret_regs_sp(const struct fgraph_ret_regs *r)
{
	return (uintptr_t)(r + 1);
}

/* The struct the return hook saved for a function entered at sp
 * (fgraph_ret_regs_sp's inverse): it ends there. */
ARM64_INLINE struct fgraph_ret_regs *fgraph_ret_regs_of_sp(uintptr_t sp)
{
	return (struct fgraph_ret_regs *)sp - 1;
}

/* An XRay exit sled's handler (__fexit__, ftrace_tramp.S) passes the
 * return value first (x0, fgraph_solo_return_t): no load for it; the
 * struct fgraph_ret_regs it saved for a function whose SP is sp ends at sp,
 * as the return hook's. */
ARM64_INLINE uint64_t fgraph_fexit_value(uint64_t x0)
{
	return x0;
}
ARM64_INLINE struct fgraph_ret_regs *fgraph_fexit_regs(uint64_t x0, uintptr_t sp)
{
	(void)x0;
	return fgraph_ret_regs_of_sp(sp);
}

#define ARM64_DAIF_I (1ul << 7)    /* PSTATE.I: IRQs masked */

ARM64_INLINE struct cpu *arch_this_cpu(void)
{
	struct cpu *c;
	/* volatile: a thread may migrate at any call, so the value must be
	 * re-read every time; a plain asm with a "memory" clobber is still
	 * hoisted out of loops by GCC. */
	__asm__ volatile("mrs %0, tpidr_el1" : "=r"(c) :: "memory");
	return c;
}

/* Not volatile: the caller cannot migrate, so one read serves. */
ARM64_INLINE struct cpu *arch_cpu_pinned(void)
{
	struct cpu *c;
	__asm__("mrs %0, tpidr_el1" : "=r"(c));
	return c;
}

ARM64_INLINE uintptr_t arch_cpu_word(struct cpu *c, size_t off)
{
	return *(const uintptr_t *)((const char *)c + off);
}

ARM64_INLINE uint32_t arch_cpu_u32(struct cpu *c, size_t off)
{
	return *(const uint32_t *)((const char *)c + off);
}

ARM64_INLINE uint32_t arch_load_pair32(const uint32_t *p, uint32_t *second);
/* Under clang the LDP at [c, #off] written out, c a register operand and
 * off an immediate: clang's LDP memory operand ("Q") is a bare base
 * register, an ADD before each pair (a 64-bit relaxed load instead
 * costs a LSR, as clang does not fold the shift into TST and ORR).  The
 * asm reads memory it names no operand for, so it clobbers "memory"
 * (volatile: one load each call, as arch_load_pair32).  GCC keeps
 * arch_load_pair32 ("Ump": an LDP at an offset). */
ARM64_INLINE uint32_t arch_cpu_pair32(struct cpu *c, size_t off, uint32_t *second)
{
#ifdef __clang__
	uint32_t a, b;
	__asm__ volatile("ldp %w0, %w1, [%2, %3]" : "=r"(a), "=r"(b) : "r"(c), "i"(off) : "memory");
	*second = b;
	return a;
#else
	return arch_load_pair32((const uint32_t *)((const char *)c + off), second);
#endif
}

/* TPIDRRO_EL0 holds the running thread (nothing runs at EL0 here). */
ARM64_INLINE struct thread *arch_current(void)
{
	struct thread *t;
	__asm__ volatile("mrs %0, tpidrro_el0" : "=r"(t) :: "memory");
	return t;
}
void arch_set_current(struct cpu *c, struct thread *t);

ARM64_INLINE void arch_set_this_cpu(struct cpu *c)
{
	__asm__ volatile("msr tpidr_el1, %0" :: "r"(c) : "memory");
	/* No thread yet (arch_current reads NULL until sched_init_cpu). */
	__asm__ volatile("msr tpidrro_el0, xzr" ::: "memory");
}

ARM64_INLINE unsigned long arch_irq_save(void)
{
	unsigned long f;
	__asm__ volatile("mrs %0, daif\n\tmsr daifset, #2" : "=r"(f) :: "memory");
	return f;
}

ARM64_INLINE void arch_irq_restore(unsigned long f)
{
	__asm__ volatile("msr daif, %0" :: "r"(f) : "memory");
}

ARM64_INLINE void arch_irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" ::: "memory");
}

ARM64_INLINE void arch_irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
}

ARM64_INLINE bool arch_irqs_enabled(void)
{
	unsigned long f;
	__asm__ volatile("mrs %0, daif" : "=r"(f) :: "memory");
	return !(f & ARM64_DAIF_I);
}

/* DAIF.I (bit 7) is 1 when interrupts are masked: taken out as 0/1 by
 * one UBFX in the asm (GCC, seeing the shifts, makes two of it), the shift
 * folded into an OR. */
ARM64_INLINE uint32_t arch_irqs_disabled_or(unsigned shift, uint32_t k)
{
	uint32_t i;
	_Static_assert(ARM64_DAIF_I == 1u << 7, "DAIF.I");
	__asm__ volatile("mrs %x0, daif\n\tubfx %w0, %w0, #7, #1" : "=r"(i) :: "memory");
	return i << shift | k;
}

/* v above 15 made all ones (CSINV) and its low 4 bits inserted (BFI):
 * three instructions, where GCC's select wants the 15 in a register and
 * an OR to join (cmp, mov, csel, orr). */
ARM64_INLINE uint64_t arch_min15_or(uint64_t w, unsigned shift, uint32_t v)
{
	__asm__("cmp %w1, #15\n\tcsinv %w1, %w1, wzr, ls\n\tbfi %x0, %x1, %2, #4"
		: "+r"(w), "+r"(v)
		: "i"(shift)
		: "cc");
	return w;
}

ARM64_INLINE void arch_cpu_relax(void)
{
	/* yield also ends the translation block under multi-threaded TCG, so a
	 * spinning vCPU lets the lock holder's vCPU thread run. */
	__asm__ volatile("yield" ::: "memory");
}

ARM64_INLINE uint64_t arch_counter(void)
{
	uint64_t v;
	/* isb: the counter read is not speculated ahead of earlier instructions. */
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

ARM64_INLINE uint64_t arch_counter_relaxed(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

/* Relaxed atomic loads through an "m" operand, which allows [base, #imm]
 * under GCC (GCC's atomic builtins take [base] only).  An aligned LDRB/LDR
 * is single-copy atomic (Arm ARM B2.2.1): that is all relaxed asks, and
 * the asm is volatile, so each call is one load, as an atomic load is.
 * Clang is the other way round: its "m" is a bare base register (an ADD
 * before every load at an offset), its atomic builtins take [base, #imm];
 * so under clang these are the builtins (the same LDRB/LDR/STR). */
#ifdef __clang__
#define ARM64_LOAD_RELAXED(name, ret, type, insn)                              \
	ARM64_INLINE ret name(const type *p)                                    \
	{                                                                       \
		return __atomic_load_n(p, __ATOMIC_RELAXED);                    \
	}
#else
#define ARM64_LOAD_RELAXED(name, ret, type, insn)                              \
	ARM64_INLINE ret name(const type *p)                                    \
	{                                                                       \
		ret v;                                                          \
		__asm__ volatile(insn : "=r"(v) : "m"(*p));                     \
		return v;                                                       \
	}
#endif
/* The byte comes back zero-extended in a whole register (as LDRB leaves
 * it), so a test of it needs no mask. */
ARM64_LOAD_RELAXED(arch_load_relaxed8, uint32_t, uint8_t, "ldrb %w0, %1")
ARM64_LOAD_RELAXED(arch_load_relaxed32, uint32_t, uint32_t, "ldr %w0, %1")
/* The memory operand of an LDP: GCC's "Ump" (any address LDP takes,
 * base and scaled offset); clang has no such constraint, and its "Q" (a
 * base register, no offset) is the nearest it accepts. */
#ifdef __clang__
#define ARM64_LDP_MEM "Q"
#else
#define ARM64_LDP_MEM "Ump"
#endif
/* p[0] and p[1] (arch/hooks.h): one LDP, each word single-copy atomic as
 * an aligned LDR's. */
ARM64_INLINE uint32_t arch_load_pair32(const uint32_t *p, uint32_t *second)
{
	uint32_t a, b;
	__asm__ volatile("ldp %w0, %w1, %2" : "=r"(a), "=r"(b) : ARM64_LDP_MEM(*(const uint64_t *)p));
	*second = b;
	return a;
}
/* p[0] and p[1] (arch/hooks.h): one LDP, each word single-copy atomic as
 * an aligned LDR's. */
ARM64_INLINE uint64_t arch_load_pair64(const uint64_t *p, uint64_t *second)
{
	uint64_t a, b;
	__asm__ volatile("ldp %x0, %x1, %2" : "=r"(a), "=r"(b) : ARM64_LDP_MEM(*(const __int128 *)p));
	*second = b;
	return a;
}
/* v >= 2^bits (arch/hooks.h): `cmp xzr, v, lsr #bits` and a branch (a
 * compare with 2^bits - 1 would need the constant in a register first). */
ARM64_INLINE bool arch_above_bits(uint64_t v, unsigned bits)
{
	return (v >> bits) != 0;
}

ARM64_LOAD_RELAXED(arch_load_relaxed64, uint64_t, uint64_t, "ldr %x0, %1")
ARM64_INLINE void arch_store_relaxed64(uint64_t *p, uint64_t v)
{
#ifdef __clang__
	__atomic_store_n(p, v, __ATOMIC_RELAXED);      /* [base, #imm]: above */
#else
	__asm__ volatile("str %x1, %0" : "=m"(*p) : "r"(v));
#endif
}
/* v - *p and *p != v (arch/hooks.h): the load above, then the sub / cmp
 * (no arm64 ALU instruction takes a memory operand). */
ARM64_INLINE uint64_t arch_sub_load64(uint64_t v, const uint64_t *p)
{
	return v - arch_load_relaxed64(p);
}
ARM64_INLINE bool arch_ne_load64(uint64_t v, const uint64_t *p)
{
	return arch_load_relaxed64(p) != v;
}

/* CAS takes a bare base register whatever the compiler does: the builtin. */
ARM64_INLINE bool arch_cas_relaxed64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return __atomic_compare_exchange_n(p, expected, desired, false, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
}

ARM64_INLINE uintptr_t arch_frame_address(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

/*
 * Register-preserving calls (arch/hooks.h: ARCH_PRESERVING_THUNK,
 * ARCH_CALL_PRESERVING).  The thunk saves x2-x15 and x18, the registers a C
 * call may change that are not fn's return (x0, x1); fn keeps x19-x28 as
 * any C function does.  It gives the caller's x30 back too, which the call
 * site hands over in x17 (`mov x17, x30; bl`): x16/x17 are the call site's
 * only clobbers, so a caller whose other calls are all such thunks or tail
 * calls stays a leaf that never saves x30 (no `str x30` / `ldr x30` on its
 * hot path).  (A linker veneer on the bl would take x16 only; the image is
 * far below the bl's 128 MB anyway.)  The backtrace: the thunk's frame is
 * a real one (x29 and the bl's x30 first, with CFI), so a backtrace from
 * inside fn walks through it into the caller; from there on, the call
 * site's CFI says the caller's x30 is in x17 (`.cfi_register 30, 17`) and
 * the thunk's CFI where it saved x17, so the walk goes on to the caller's
 * caller (gdb's arm64 unwinder takes a frame's pc from the x30 unwound
 * into it, not from the CFI's return column).  That is true in a caller
 * that never saves x30, whose x30 is its return address all along: the
 * callbacks this is for (FTRACE_HOT_NOFP, which call out only through
 * thunks and tail calls).  A caller that saved x30 and has since called
 * something else may show a wrong frame above it in such a backtrace
 * (execution is the same either way; tell the CFI apart by caller would
 * cost a copy of x30 on every path: __builtin_return_address kept one).
 */
#define ARCH_PRESERVING_THUNK(fn) \
	ARM64_THUNK_(fn, #fn "_preserving", ".text." #fn "_preserving", "144", "", "")
/*
 * The FP-saving thunk fn_fpsaving (arch/hooks.h, CALL_FPSAVING_VOID): the
 * same, keeping q0-q7 too (the FP/SIMD argument registers, all the FP/SIMD
 * state live at a function's entry, which an FTRACE_HOT_NOFP trampoline
 * leaves as they are), in trampoline text (.text.tramp: never preempted
 * there, as the callbacks that call it).  The file that defines fn
 * instantiates it.
 */
#define ARCH_FPSAVING_THUNK(fn) \
	ARM64_THUNK_(fn, #fn "_fpsaving", ".text.tramp", "272", ARM64_Q_ARGS_(stp), \
		     ARM64_Q_ARGS_(ldp))
#define ARM64_Q_ARGS_(op)                                                               \
	"	" #op " q0, q1, [sp, #144]\n"                                             \
	"	" #op " q2, q3, [sp, #176]\n"                                             \
	"	" #op " q4, q5, [sp, #208]\n"                                             \
	"	" #op " q6, q7, [sp, #240]\n"
/* Both thunks: name (a string) in section, calling fn, with a frame of
 * `frame` bytes (a string), x2-x15, the caller's x30 (x17) and x18 at its
 * 144 first, then what
 * fpsave stores before the call and fpload loads back after it. */
#define ARM64_THUNK_(fn, name, section, frame, fpsave, fpload)                           \
	__asm__(".pushsection " section ", \"ax\", %progbits\n"                          \
		".globl " name "\n"                                                      \
		".type " name ", %function\n"                                            \
		".p2align 2\n"                                                           \
		name ":\n"                                                               \
		"	.cfi_startproc\n"                                                 \
		"	stp x29, x30, [sp, #-" frame "]!\n"                               \
		"	.cfi_def_cfa_offset " frame "\n"                                  \
		"	.cfi_offset 29, -" frame "\n"                                     \
		"	.cfi_offset 30, 8 - " frame "\n"                                  \
		"	mov x29, sp\n"                                                    \
		"	.cfi_def_cfa_register 29\n"                                       \
		"	stp x2, x3, [sp, #16]\n"                                          \
		"	stp x4, x5, [sp, #32]\n"                                          \
		"	stp x6, x7, [sp, #48]\n"                                          \
		"	stp x8, x9, [sp, #64]\n"                                          \
		"	stp x10, x11, [sp, #80]\n"                                        \
		"	stp x12, x13, [sp, #96]\n"                                        \
		"	stp x14, x15, [sp, #112]\n"                                       \
		"	stp x17, x18, [sp, #128]\n"                                       \
		"	.cfi_offset 17, 128 - " frame "\n"                                \
		fpsave                                                                   \
		"	bl " #fn "\n"                                                     \
		fpload                                                                   \
		"	ldp x2, x3, [sp, #16]\n"                                          \
		"	ldp x4, x5, [sp, #32]\n"                                          \
		"	ldp x6, x7, [sp, #48]\n"                                          \
		"	ldp x8, x9, [sp, #64]\n"                                          \
		"	ldp x10, x11, [sp, #80]\n"                                        \
		"	ldp x12, x13, [sp, #96]\n"                                        \
		"	ldp x14, x15, [sp, #112]\n"                                       \
		"	ldp x30, x18, [sp, #128]\n"                                       \
		"	ldp x29, x17, [sp], #" frame "\n"                                 \
		"	.cfi_def_cfa sp, 0\n"                                             \
		"	.cfi_restore 29\n"                                                \
		"	.cfi_restore 30\n"                                                \
		"	.cfi_restore 17\n"                                                \
		"	ret x17\n"                                                        \
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
	uintptr_t acp_v4_ = (uintptr_t)(a4);                                                  \
	register uintptr_t acp_x0_ __asm__("x0") = acp_v0_;                                   \
	register uintptr_t acp_x1_ __asm__("x1") = acp_v1_;                                   \
	register uintptr_t acp_x2_ __asm__("x2") = acp_v2_;                                   \
	register uintptr_t acp_x3_ __asm__("x3") = acp_v3_;                                   \
	register uintptr_t acp_x4_ __asm__("x4") = acp_v4_;                                   \
	__asm__ volatile("mov x17, x30\n\t"                                                   \
			 ".cfi_remember_state\n\t"                                          \
			 ".cfi_register 30, 17\n\t"                                          \
			 "bl " thunk "\n\t"                                                   \
			 ".cfi_restore_state"                                                 \
			 : "+r"(acp_x0_), "+r"(acp_x1_)                                       \
			 : "r"(acp_x2_), "r"(acp_x3_), "r"(acp_x4_)                           \
			 : "x16", "x17", "cc", "memory");                                     \
	(struct arch_words2){ acp_x0_, acp_x1_ };                                             \
})

#endif
