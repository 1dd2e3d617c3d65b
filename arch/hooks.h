/*
 * arch/hooks.h — the one contract between generic code and an architecture.
 *
 * Generic code (boot/, lib/, trace/, patch/) calls only what is declared here;
 * each arch defines every hook in arch/<arch>/.  Cheap primitives (per-CPU
 * pointer, interrupt flag, counter) are static inline in arch/<arch>/arch_defs.h,
 * which this header includes; everything else is an ordinary function.
 *
 * Every hook is notrace: the tracer calls many of them, and arch/ is built
 * without patchable entries.
 *
 * Calls the other way, arch -> generic, are listed at the end ("Upcalls").
 */
#ifndef ARCH_HOOKS_H
#define ARCH_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu;
struct trap_frame;           /* arch-defined: the registers saved on exception entry */
struct boot_info;

/* Two words a register-preserving call gives back (ARCH_CALL_PRESERVING). */
struct arch_words2 {
	uintptr_t w0, w1;
};

#include "arch_defs.h"       /* from arch/<arch>/: inline primitives below, ARCH_NAME */
#include "arch/local.h"      /* the arch_local_* it did not define */

/*
 * The typed forms of ARCH_CALL_PRESERVING, which generic code uses:
 * CALL_PRESERVING(type, fn, args...) is fn(args...) (one to five word-sized
 * arguments) through fn's thunk, as `type` (what fn returns: at most two
 * words, in its return registers); CALL_PRESERVING_VOID(fn, args...) for a
 * fn that returns nothing.  Both are checked at build time against fn's
 * prototype: a wrong argument list or result type does not compile.
 */
#define CALL_PRESERVING(type, fn, ...) __extension__({                                   \
	_Static_assert(__builtin_types_compatible_p(__typeof__(fn(__VA_ARGS__)), type),     \
		       #fn ": the type or the arguments differ from its prototype");         \
	_Static_assert(sizeof(type) <= sizeof(struct arch_words2),                          \
		       #fn ": returns more than two words");                                \
	union { struct arch_words2 w; type v; } cp_u_ = {                                   \
		.w = CALL_PRESERVING_ARGS_(fn, CALL_PRESERVING_PAD_(__VA_ARGS__)) };          \
	cp_u_.v;                                                                             \
})
#define CALL_PRESERVING_VOID(fn, ...) __extension__({                                    \
	_Static_assert(__builtin_types_compatible_p(__typeof__(fn(__VA_ARGS__)), void),     \
		       #fn ": the arguments differ from its prototype, or it returns a value"); \
	(void)CALL_PRESERVING_ARGS_(fn, CALL_PRESERVING_PAD_(__VA_ARGS__));                  \
})

/* CALL_FPSAVING_VOID(fn, args...): fn(args...) through its FP-saving thunk
 * fn_fpsaving (ARCH_FPSAVING_THUNK(fn) at file scope defines it, in
 * trampoline text), which keeps what fn_preserving keeps and the FP/SIMD argument
 * registers too (arm64 q0-q7, x86-64 xmm0-xmm7): the one way out of
 * FTRACE_HOT_NOFP code into code that may touch them, at a function's
 * entry, where those are all the FP/SIMD state that is live.
 * tools/check-nofp.py stops at such a thunk (and checks it saves them). */
#define CALL_FPSAVING_VOID(fn, ...) __extension__({                                      \
	_Static_assert(__builtin_types_compatible_p(__typeof__(fn(__VA_ARGS__)), void),     \
		       #fn ": the arguments differ from its prototype, or it returns a value"); \
	(void)CALL_THUNK_ARGS_(#fn "_fpsaving", CALL_PRESERVING_PAD_(__VA_ARGS__));          \
})
/* The arguments padded to five (a macro argument is expanded before it is
 * passed on, so ARCH_CALL_PRESERVING sees five). */
#define CALL_PRESERVING_PAD_(...) CALL_PRESERVING_TAKE5_(__VA_ARGS__, 0, 0, 0, 0, 0)
#define CALL_PRESERVING_TAKE5_(a, b, c, d, e, ...) a, b, c, d, e
#define CALL_PRESERVING_ARGS_(fn, ...) ARCH_CALL_PRESERVING(fn, __VA_ARGS__)
#define CALL_THUNK_ARGS_(thunk, ...) ARCH_CALL_THUNK(thunk, __VA_ARGS__)

/* ---- Inline primitives (arch_defs.h must define these) ----------------------
 *
 * struct cpu *arch_this_cpu(void);        this CPU's per-CPU area (TPIDR_EL1 / GS)
 * struct cpu *arch_cpu_pinned(void);       the same, for code that cannot
 *                                          migrate until it returns (FTRACE_HOT,
 *                                          or preemption or interrupts off), as
 *                                          a handle for arch_cpu_word and
 *                                          arch_cpu_pair32: the compiler may
 *                                          read it once, or (x86-64) not at all
 * uintptr_t arch_cpu_word(struct cpu *c, size_t off);  the pointer-sized
 *                                          word at byte offset off (a constant)
 *                                          of c (from arch_cpu_pinned), one load
 *                                          (x86-64: GS-relative, so no register
 *                                          holds c); a word only this CPU writes
 * uint32_t arch_cpu_u32(struct cpu *c, size_t off);  the same for a 32-bit
 *                                          word (4-aligned)
 * uint32_t arch_cpu_pair32(struct cpu *c, size_t off, uint32_t *second);
 *                                          arch_load_pair32 of the words at
 *                                          offset off (8-aligned) of c
 * void arch_set_this_cpu(struct cpu *c);   once per CPU during bring-up
 * struct thread *arch_current(void);       the running thread (this CPU's
 *                                          `current`) in one instruction, so
 *                                          migration cannot split the read
 * void arch_set_current(struct cpu *c, struct thread *t);  c->current = t,
 *                                          also for arch_current; c is this
 *                                          CPU, interrupts off
 * unsigned long arch_irq_save(void);       disable interrupts, return old state
 * void arch_irq_restore(unsigned long f);  restore state from arch_irq_save
 * void arch_irq_enable(void);
 * void arch_irq_disable(void);
 * bool arch_irqs_enabled(void);
 * uint32_t arch_irqs_disabled_or(unsigned shift, uint32_t k);  k | 1 << shift
 *                                          if interrupts are off, else k (both
 *                                          constants, shift 0..31, k without
 *                                          that bit: the flag read, put in place
 *                                          and joined to k in the fewest
 *                                          instructions each arch has)
 * uint64_t arch_min15_or(uint64_t w, unsigned shift, uint32_t v);
 *                                          w | min(v, 15) << shift (shift a
 *                                          constant, w's bits shift..shift+3
 *                                          0: the trace_entry count's clamp)
 * void arch_cpu_relax(void);               spin-loop hint (pause / yield)
 * uint64_t arch_counter(void);             monotonic counter, same rate and
 *                                          (near enough) same origin on all CPUs;
 *                                          ordered after earlier instructions
 * uint64_t arch_counter_relaxed(void);     the same counter, not ordered: on an
 *                                          out-of-order core it may run ahead of
 *                                          earlier instructions, so two reads in
 *                                          program order may even decrease; for
 *                                          callers that check (the ring buffer)
 * bool arch_above_bits(uint64_t v, unsigned bits);  v >= 2^bits (bits a
 *                                          constant), in the form this CPU
 *                                          tests cheapest (the ring buffer's
 *                                          delta check, once per event)
 * ARCH_ADDR_INDEX_DISP                     1 if one load or store takes
 *                                          base + index + displacement (x86-64),
 *                                          0 if base + index or base +
 *                                          displacement (arm64): the form of an
 *                                          address the compiler should be given
 *                                          (the ring buffer's time stamp slots)
 * ARCH_PAIR_COPY                           1 if one instruction loads or
 *                                          stores two words at base + a
 *                                          multiple of 8 (arm64: LDP, STP,
 *                                          unaligned allowed: SCTLR_EL1.A
 *                                          clear), 0 if not (x86-64): whether
 *                                          a copy of words should be written
 *                                          in pairs from the destination's own
 *                                          base (the graph's argument words)
 * ARCH_WIDE_IMM                            1 if one instruction loads any
 *                                          64-bit constant (x86-64: movabs), 0
 *                                          if it takes one per halfword (arm64:
 *                                          MOV and MOVKs), where a word loaded
 *                                          beside one the code loads anyway is
 *                                          cheaper (the ring buffer's tail step)
 * uint64_t arch_load_pair64(const uint64_t *p, uint64_t *second);  p[0],
 *                                          *second = p[1] (p 16-aligned), each
 *                                          loaded as by arch_load_relaxed64
 *                                          (arm64: one LDP)
 * uintptr_t arch_frame_address(void);      caller-visible frame pointer
 * uint32_t arch_load_relaxed8(const uint8_t *p);  __atomic_load_n(p,
 * uint32_t arch_load_relaxed32(const uint32_t *p);  __ATOMIC_RELAXED), but
 * uint64_t arch_load_relaxed64(const uint64_t *p);  the compiler may address
 *                                          p as base + offset (GCC 12 on arm64
 *                                          puts an atomic's address in a bare
 *                                          register: one `add` each on the
 *                                          tracers' hot paths)
 * uint32_t arch_load_pair32(const uint32_t *p, uint32_t *second);  p 8-byte
 *                                          aligned: returns p[0], loaded as by
 *                                          arch_load_relaxed32, and puts p[1],
 *                                          a word only this CPU writes, in
 *                                          *second; one load pair where the
 *                                          ISA has one (the callbacks' guard
 *                                          and context, recursion.h)
 * void arch_store_relaxed64(uint64_t *p, uint64_t v);  the same for
 *                                          __atomic_store_n(p, v, __ATOMIC_RELAXED)
 * uint64_t arch_sub_load64(uint64_t v, const uint64_t *p);  v - *p, and
 * bool arch_ne_load64(uint64_t v, const uint64_t *p);  *p != v, *p loaded
 *                                          as by arch_load_relaxed64 (x86-64:
 *                                          one SUB / CMP from memory, which GCC
 *                                          does not make of an atomic load:
 *                                          the ring buffer's delta and re-check)
 * bool arch_cas_relaxed64(uint64_t *p, uint64_t *expected, uint64_t desired);
 *                                          __atomic_compare_exchange_n(p,
 *                                          expected, desired, false, relaxed,
 *                                          relaxed), p addressed as base +
 *                                          offset where the ISA allows it
 *                                          (GCC 12 on x86-64 puts the
 *                                          builtin's address in a register of
 *                                          its own: a `lea` and a register on
 *                                          the ring buffer's fast path)
 * bool arch_local_cas64(uint64_t *p, uint64_t *expected, uint64_t desired);
 *                                          arch_cas_relaxed64, indivisible only
 *                                          against the running CPU and its
 *                                          interrupts: for a word that no other
 *                                          CPU writes (it may read it)
 * void arch_local_sub64_release(uint64_t *p, uint64_t v);  *p -= v, a
 *                                          RELEASE, on the same terms (Linux's
 *                                          local_t).  Optional: arch/local.h
 *                                          gives the __atomic builtins; x86-64
 *                                          drops LOCK (arch/x86_64/local.h)
 * ARCH_LOCAL_RMW                           1 if those are cheaper than the
 *                                          atomic ones (x86-64), else 0
 * bool arch_or_load64_seq_cst(uint64_t *v, const uint64_t *p);  *v |= *p,
 *                                          *p a SEQ_CST load; true if *v is 0
 *                                          (arch/local.h; x86-64: one OR from
 *                                          memory)
 * ARCH_NAME                                "x86_64" or "arm64"
 *
 * Register-preserving calls, for a rarely taken call on a hot path (Linux's
 * thunks do the same for preempt_schedule): with an ordinary call there, the
 * compiler keeps every value live across it in a callee-saved register,
 * which the whole function then saves and restores on every run.
 * ARCH_PRESERVING_THUNK(fn)                at file scope: defines the thunk
 *                                          fn_preserving, which calls fn and
 *                                          gives every register but fn's two
 *                                          return registers back as it found
 *                                          them.  fn: NOFP code, at most five
 *                                          word-sized arguments, a return of at
 *                                          most two words
 * ARCH_FPSAVING_THUNK(fn)                 the same thunk, named fn_fpsaving,
 *                                          keeping the FP/SIMD argument
 *                                          registers too, in trampoline text
 *                                          (CALL_FPSAVING_VOID, above)
 * ARCH_CALL_PRESERVING(fn, a0, a1, a2, a3, a4)  an expression: calls the thunk
 *                                          with five word arguments (unused
 *                                          ones any value) and yields fn's two
 *                                          return registers as struct
 *                                          arch_words2.  A compiler barrier, as
 *                                          a call is; changes no other register.
 *                                          Generic code uses the typed
 *                                          CALL_PRESERVING (below)
 */

/* ---- Boot ------------------------------------------------------------------
 *
 * The arch entry code runs on the boot CPU, sets up its stack, clears .bss,
 * turns on the MMU (W^X: see linker/<arch>.ld symbols), installs exception
 * vectors, enables FP/SIMD, initialises the polled console and the interrupt
 * controller's global part, sets arch_this_cpu() to &cpus[0], fills a
 * struct boot_info (boot/boot_info.h) from firmware data (DTB / hvm_start_info
 * + ACPI), and calls kernel_main(bi) with interrupts disabled.
 */

/* Counter frequency in Hz, known after arch entry (x86-64 calibrates the TSC). */
uint64_t arch_counter_hz(void);

/*
 * Per-CPU interrupt set-up, called by generic code on every CPU (boot CPU from
 * kernel_main, others from secondary_main) with interrupts disabled: enable the
 * local interrupt controller, unmask the IPI, start the periodic timer at
 * `hz` interrupts per second.  On the boot CPU it also routes and unmasks the
 * console's receive interrupt.
 */
void arch_cpu_irq_init(unsigned hz);

/*
 * Change this CPU's periodic timer rate (tests raise it).  Callable with
 * interrupts on or off; takes effect by the next tick.
 */
void arch_timer_set_hz(unsigned hz);

/*
 * Start secondary CPU `c` (c->hwid is the APIC id / MPIDR from boot_info),
 * running on `stack_top`.  The new CPU does its arch init (MMU with the boot
 * CPU's tables, vectors, FP/SIMD), sets arch_this_cpu() to c, and calls
 * secondary_main() with interrupts disabled.  Returns 0 once the start request
 * is issued (the caller waits for c to report itself online), or -1 if the
 * firmware refused it.
 */
int arch_cpu_start(struct cpu *c, void *stack_top);

/* ---- Interrupts between CPUs ------------------------------------------------ */

/* Send the (single) IPI to CPU index `cpu`; it calls ipi_interrupt() there.
 * Callable from any context. */
void arch_send_ipi(unsigned cpu);

/*
 * Idle wait: called with interrupts disabled; returns once an interrupt has
 * been taken, with interrupts enabled (x86-64: sti; hlt — arm64: wfi, then
 * unmask).  The gap between the caller's last check and the wait must not
 * lose a wake-up: an interrupt pending at the time of the call ends the wait.
 */
void arch_idle_wait(void);

/* ---- Real-time clock ----------------------------------------------------------- */

/*
 * Seconds since 1970-01-01 00:00 UTC from the machine's real-time clock
 * (arm64: the PL031 the device tree names; x86-64: the CMOS RTC), to the
 * second; -1 if there is none or it reads as nonsense.  Thread context,
 * callers serialise (lib/time.c reads it once); x86-64 may wait out an
 * update of the chip (under 2 ms).
 */
int64_t arch_rtc_seconds(void);

/* ---- Console (polled output, interrupt-driven input) ------------------------ */

/* Write one byte, waiting for the UART; callable from any context, including
 * panic with other CPUs stopped.  No newline translation. */
void arch_console_putc(char c);

/* ---- Threads ---------------------------------------------------------------- */

/*
 * Switch stacks: save callee-saved registers (and the callee-saved FP/SIMD
 * state: d8-d15 + FPCR on arm64, MXCSR + x87 control word on x86-64) on the
 * current stack, store the stack pointer in *save_sp, load new_sp, restore, and
 * return on the new stack.  Called with interrupts disabled.
 */
void arch_switch(void **save_sp, void *new_sp);

/*
 * Build an initial stack at `top` such that arch_switch() to the returned
 * stack pointer starts `entry()` with interrupts disabled and an outermost
 * frame (frame pointer 0, so backtraces stop).  entry must not return.
 */
void *arch_stack_init(void *top, void (*entry)(void));

/* ---- Faults and power ------------------------------------------------------- */

/* Print every register of a trap frame on the console (kprintf). */
void arch_dump_frame(const struct trap_frame *tf);

/* Program counter and frame pointer saved in a trap frame. */
uintptr_t arch_frame_pc(const struct trap_frame *tf);
uintptr_t arch_frame_fp(const struct trap_frame *tf);

/*
 * Make the exception return resume at fn() instead of the faulting
 * instruction, on the same stack (below anything live, ABI-aligned), with the
 * interrupt state the faulting code had.  fn must not return.
 */
void arch_frame_redirect(struct trap_frame *tf, void (*fn)(void));

/* Leave QEMU with exit status `status` (0 = success); never returns. */
__attribute__((noreturn)) void arch_poweroff(int status);

/* Stop this CPU for good: interrupts off, wait forever. */
__attribute__((noreturn)) void arch_halt(void);

/* ---- Tracing: sites, text patching, trampolines (patch/, trace/) -----------
 *
 * A site is what the compiler leaves at an instrumented function's entry
 * (DESIGN.md §3).  Every site is in one of two states, and the patch engine
 * moves it between them; its encoding (ARCH_SITE_SIZE bytes at
 * arch_site_addr(func)):
 *
 *   x86-64 (site = func, 5 bytes)
 *     compiled              90 90 90 90 90        nop x 5 (GCC)
 *                           0f 1f 44 00 08        nopl 0x8(%rax,%rax,1) (clang)
 *     disabled              0f 1f 44 00 00        nopl 0x0(%rax,%rax,1)
 *     enabled               e8 <rel32>            call target
 *   arm64 (site = func, 8 bytes; per-site literal at func - 8, 8-aligned)
 *     compiled              d503201f d503201f     nop; nop     (literal: 2 nops)
 *     disabled              aa1e03e9 d503201f     mov x9, x30; nop
 *     enabled               aa1e03e9 94xxxxxx     mov x9, x30; bl target
 *   On arm64 the literal holds the site's data word (an ops pointer, see
 *   struct patch_site); only the second instruction and the literal ever
 *   change once the site is initialised, each by one aligned store.
 *
 * ARCH_SITE_SIZE, ARCH_SITE_HAS_DATA (1: a data word precedes each site,
 * else 0), ARCH_INSN_ALIGN (the alignment of every instruction, so of
 * every call target), ARCH_FTRACE_NARGS, ARCH_CALL_PUSH (bytes a call
 * instruction pushes: the SP at a function's entry is the caller's SP at
 * the call minus this, the compiler's CFA minus this), struct ftrace_regs,
 * struct pt_regs and the ftrace_regs accessors are in arch_defs.h (see
 * trace/core/ftrace.h for the accessor list; ftrace_regs_set_regs() and
 * ftrace_regs_set_direct() are the list function's: the first shows a regs
 * site's frame to SAVE_REGS ops only, the second sends the regs list caller
 * on into a direct trampoline).
 */

/* Function address for an entry of the compiler's site table (__sites_*):
 * x86-64 records the function, arm64 the first NOP before it. */
uintptr_t arch_site_func(uintptr_t recorded);

/*
 * Boot-time, single CPU, before any other patching: check that func's site
 * holds the compiled bytes and put it in the disabled state, with `data` as
 * its data word (where sites have one: an ops any list caller may call, see
 * data_of in trace/core/update.c).  0, or -EILSEQ (bytes not as compiled; the
 * site is left untouched).
 */
int arch_site_init(uintptr_t func, uintptr_t data);

/* Encode the site bytes for `target` (0 = disabled) into out[ARCH_SITE_SIZE].
 * -ERANGE if target is out of reach of the site's call. */
int arch_site_encode(uintptr_t func, uintptr_t target, uint8_t *out);

/* Per-site data word (arm64 literal) currently stored; x86-64 returns 0. */
uintptr_t arch_site_data(uintptr_t func);

/*
 * The site encodings, inline (arch/<arch>/site.h), for a caller that
 * checks its sites in its own pass (patch_apply_checked, patch/patch.h):
 *   bool arch_site_placed(func)            can func have a site (in text,
 *                                          aligned as the arch needs)?
 *   bool arch_site_reaches(func, target)   can the site's call reach target
 *                                          (always, for 0)?
 *   uint64_t arch_site_word(func, target)  the site's bytes for target, as
 *                                          one word
 *   uint64_t arch_site_read(func)          the site's bytes now, the same way
 *   uint64_t arch_site_read_data(func)     its data word now (arch_site_data,
 *                                          inline; 0 without data words)
 *   bool arch_site_holds(func, target)     target in reach and its encoding
 *                                          at the site
 */
/*
 * XRay sleds (INSTR=xray, mk/xray.mk; patch/DESIGN.md "XRay sleds"): the
 * entry sled is the function's site (the arch_site_* above, at func); exit
 * and tail sleds are sites of their own, at the sled's address, whose
 * enabled state calls __fexit__ / __ftail__.  Their encodings, inline in
 * site.h, take the kind:
 *   bool arch_sled_placed(addr)                    can a sled be there?
 *   uint64_t arch_sled_word(addr, target, kind)    as arch_site_word
 *   bool arch_sled_holds(addr, target, kind)       as arch_site_holds
 *   uintptr_t arch_sled_func(addr)                 an exit or tail sled's
 *                                                  function, from the 4 bytes
 *                                                  at addr + ARCH_SLED_FUNC_OFF
 *                                                  (arch_sled_init)
 *   uintptr_t arch_sled_exit_func(at)              the same from what __fexit__
 *                                                  hands on for its sled (at):
 *                                                  arm64 the function itself
 *                                                  (the word __fexit__ loads);
 *                                                  x86-64 addr + ARCH_SLED_EXIT_AT
 *                                                  (5: the call's return address)
 *   uintptr_t arch_sled_exit_at(addr)              that at for the exit sled at
 *                                                  addr
 *   void arch_fexit_set(on, exitfn)                after fgraph_ts_exit and
 *                                                  fgraph_ts_active are set
 *                                                  (fgraph.c, users_changed;
 *                                                  on: a graph user, exitfn:
 *                                                  fgraph_ts_exit's value):
 *                                                  what __fexit__ reads of its
 *                                                  own instead (x86-64: the
 *                                                  word it jumps through;
 *                                                  arm64: nothing, it reads
 *                                                  fgraph_ts_exit)
 *   uintptr_t arch_sled_tail_target(addr)          the target of the direct
 *                                                  jump after the tail sled
 *                                                  at addr (arm64 `b` at
 *                                                  +32, x86-64 `jmp rel32 /
 *                                                  rel8` at +11), 0 for an
 *                                                  indirect one
 * (kind ARCH_SLED_ENTRY: the same as the arch_site_* ones).
 */
enum arch_sled_kind { ARCH_SLED_ENTRY, ARCH_SLED_EXIT, ARCH_SLED_TAIL };
#include "site.h"

/*
 * Boot-time, single CPU, before any other patching: check that the exit or
 * tail sled at addr holds what the compiler leaves (and, for an exit, that
 * a return follows it) and put it in its disabled state, with func (its
 * function's address, 32 bits) in 4 bytes it never executes, where
 * arch_sled_func(addr) (site.h, inline) reads it and the handlers find it
 * from their return address.  0, or -EILSEQ (the sled is left untouched;
 * also for a function at or above 4 GiB, which the word cannot hold).
 * The entry sled is arch_site_init's.
 */
int arch_sled_init(uintptr_t addr, unsigned kind, uintptr_t func);

/* What an enabled exit / tail sled calls (arch/<arch>/ftrace_tramp.S, in
 * .text.tramp): they return to the sled with every register as it was. */
void __fexit__(void);
void __ftail__(void);

struct patch_site;             /* patch/patch.h */

/*
 * Rewrite a batch of sites, already validated by the caller (every site's
 * bytes and data equal the encoding of old_target/old_data), to
 * new_target/new_data, following the ISA's rules for modifying code other
 * CPUs may be executing:
 *   x86-64: int3 on every changed site, patch_sync_cores(), tail bytes,
 *           patch_sync_cores(), first bytes, patch_sync_cores(); a CPU that
 *           hits an int3 meanwhile finds its site in the batch, which the
 *           protocol publishes for its #BP handler (and withdraws with one
 *           more sync), and the handler emulates the site's NEW state.
 *   arm64:  literal (aligned 64-bit store) then instruction (aligned 32-bit
 *           store) for each site, D-cache clean + I-cache invalidate to PoU,
 *           dsb ish, then one patch_sync_cores() (context synchronisation on
 *           every CPU).
 * Thread context, interrupts enabled, patch lock held, sites sorted by func.
 * Only one sync round per step for the whole batch, never per site.
 */
void arch_patch_sites(struct patch_site *sites, unsigned n);

/*
 * Write `len` bytes of kernel text (or of the trampoline pool) at `dst`
 * through a temporary writable alias — never by making the text writable —
 * and make them visible to instruction fetch on this CPU (arm64: dc cvau /
 * ic ivau / dsb / isb).  Other CPUs need patch_sync_cores() afterwards.
 * Thread context; callers serialise.
 */
void arch_text_poke(void *dst, const void *src, size_t len);

/*
 * Trampolines.  The executable pool is [__tramp_pool_start, __tramp_pool_end)
 * in the image's text (within call/branch range of every site), written with
 * arch_text_poke().  Static trampoline code (list callers, return hooks) is
 * in section .text.tramp, [__tramp_text_start, __tramp_text_end); a thread is
 * never preempted while its interrupted PC is in either range.
 *
 * arch_tramp_build: emit into buf (which will be copied to `exec`) a
 * trampoline that, called from a site, builds a struct ftrace_regs (a full
 * struct pt_regs too for ARCH_TRAMP_REGS), calls
 *     call(func_ip, parent_ip, ops, fregs)
 * and returns to the traced function with every integer and FP/SIMD argument
 * register, the stack pointer and the return address as they were (a
 * SAVE_REGS callback may change the pt_regs' PC to redirect execution).
 * ARCH_TRAMP_NOFP is ARCH_TRAMP_ARGS without saving and restoring the FP/SIMD
 * argument registers: only for a callback that never touches them
 * (FTRACE_OPS_FL_NOFP).  ARCH_TRAMP_NOARGS builds no struct ftrace_regs at
 * all: it calls call(func_ip, parent_ip) directly (a call instruction that
 * must reach `call` from `exec`: -ERANGE if not), passing no ops and no
 * fregs (those argument registers hold the function's own arguments),
 * keeping the integer argument registers (and the stack pointer and
 * return address) around the call and leaving the FP/SIMD ones alone:
 * only for a callback that reads none of them (FTRACE_OPS_FL_NOARGS).  ARCH_TRAMP_ARGS_ONLY passes an
 * ftrace_regs of which only the integer argument registers, the stack
 * pointer at entry and the return slot are there (the rest is not built,
 * and may overlap the callback's own stack): those are loaded back and
 * the FP/SIMD registers left alone, for a callback that reads no more
 * (FTRACE_OPS_FL_ARGS_ONLY: function_graph's).  Returns the length, or
 * -ENOSPC if it would exceed ARCH_TRAMP_SIZE, -ERANGE (NOARGS) if `call`
 * is out of the direct call's reach.
 */
enum arch_tramp_kind { ARCH_TRAMP_ARGS, ARCH_TRAMP_REGS, ARCH_TRAMP_NOFP, ARCH_TRAMP_NOARGS,
		       ARCH_TRAMP_ARGS_ONLY };
int arch_tramp_build(void *buf, uintptr_t exec, void *ops, void *call, enum arch_tramp_kind kind);

/* Fill n bytes with trap instructions (x86-64 int3, arm64 brk). */
void arch_tramp_poison(void *buf, size_t n);

/* Static callers for sites with several ops: they call the list function
 * (trace/core/ftrace.h) as fn(ip, parent, op, fregs), op being NULL (x86-64) or
 * the site's data word (arm64).  The plain caller calls
 * ftrace_ops_list_func (arm64: op->call, which it is for &ftrace_list_ops);
 * the regs variant also fills a pt_regs and calls
 * ftrace_ops_list_regs_func (arm64: op->regs_call, which it is for
 * &ftrace_list_ops; a CALL_OPS site's one ops has its entry in the field
 * of the caller its site calls, the other caller's list function in the
 * other: trace/core/ftrace.h). */
void arch_ftrace_list_caller(void);
void arch_ftrace_regs_list_caller(void);

/*
 * Function-graph return hook (arch/<arch>/fgraph.S, in .text.tramp).  An
 * entry callback replaces the traced function's return address with it
 * (through ftrace_regs_return_slot(), arch_defs.h); the function then
 * returns into it with its return-value registers live.  It saves them in a
 * struct fgraph_ret_regs (arch_defs.h: the return registers) placed so that
 * its end is the SP the function was entered with, as
 * ftrace_regs_get_stack_pointer() gave it at entry (fgraph_ret_regs_sp()
 * computes it from the struct's address, fgraph_ret_regs_of_sp() the
 * struct from it), calls fgraph_hook_return(return value, entry SP) when
 * it is set (the one user's FTRACE_HOT_NOFP solo_return: then the FP/SIMD
 * return registers need no saving) or else fgraph_return(&regs)
 * (trace/core/fgraph_hooks.h), either of which returns the
 * original return address, restores the return-value registers and jumps
 * there.  Registers the caller may expect preserved across a call are never
 * changed.
 */
void arch_fgraph_return_hook(void);

/* ---- Upcalls: generic functions the arch code calls --------------------------
 *
 * void kernel_main(struct boot_info *bi);     boot CPU, once (boot/main.c)
 * void secondary_main(void);                  each secondary CPU (boot/smp.c)
 * void irq_enter(struct trap_frame *tf);      before every interrupt dispatch,
 *                                             with the interrupted state
 * void irq_exit(void);                        after it; irq_exit may switch
 *                                             threads (preemption) when it
 *                                             leaves the outermost level,
 *                                             unless the interrupted PC is in
 *                                             trampoline code (boot/irq.c)
 * void timer_interrupt(void);                 periodic tick (boot/irq.c)
 * void ipi_interrupt(void);                   the IPI arrived (boot/smp.c)
 * void console_rx(char c);                    a received byte (boot/console.c)
 * bool rec_sled_at(uintptr_t ip, unsigned *kind);  is ip an XRay exit or
 *                                             tail sled (its kind), any
 *                                             context, lock-free
 *                                             (trace/core/records.h)
 * void fault_handle(struct fault_info *fi, struct trap_frame *tf);
 *                                             a synchronous exception that the
 *                                             arch cannot handle itself
 *                                             (boot/fault.c); returns only if
 *                                             the frame was redirected
 */

#endif
