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

#include "arch_defs.h"       /* from arch/<arch>/: inline primitives below, ARCH_NAME */

/* ---- Inline primitives (arch_defs.h must define these) ----------------------
 *
 * struct cpu *arch_this_cpu(void);        this CPU's per-CPU area (TPIDR_EL1 / GS)
 * void arch_set_this_cpu(struct cpu *c);   once per CPU during bring-up
 * unsigned long arch_irq_save(void);       disable interrupts, return old state
 * void arch_irq_restore(unsigned long f);  restore state from arch_irq_save
 * void arch_irq_enable(void);
 * void arch_irq_disable(void);
 * bool arch_irqs_enabled(void);
 * void arch_cpu_relax(void);               spin-loop hint (pause / yield)
 * uint64_t arch_counter(void);             monotonic counter, same rate and
 *                                          (near enough) same origin on all CPUs
 * uintptr_t arch_frame_address(void);      caller-visible frame pointer
 * ARCH_NAME                                "x86_64" or "arm64"
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

/* ---- Test support (used by tests/guest only) -------------------------------- */

/*
 * Load every FP/SIMD register with values derived from `seed`, spin for
 * `spins` iterations with interrupts enabled (long enough to be preempted),
 * then check every register.  Returns the number of registers that changed.
 */
unsigned arch_test_fpu_churn(uint64_t seed, unsigned long spins);

/* ---- Upcalls: generic functions the arch code calls --------------------------
 *
 * void kernel_main(struct boot_info *bi);     boot CPU, once (boot/main.c)
 * void secondary_main(void);                  each secondary CPU (boot/smp.c)
 * void irq_enter(void);  void irq_exit(void); around every interrupt dispatch;
 *                                             irq_exit may switch threads
 *                                             (preemption) when it leaves the
 *                                             outermost level (boot/irq.c)
 * void timer_interrupt(void);                 periodic tick (boot/irq.c)
 * void ipi_interrupt(void);                   the IPI arrived (boot/smp.c)
 * void console_rx(char c);                    a received byte (boot/console.c)
 * void fault_handle(struct fault_info *fi, struct trap_frame *tf);
 *                                             a synchronous exception that the
 *                                             arch cannot handle itself
 *                                             (boot/fault.c); returns only if
 *                                             the frame was redirected
 */

#endif
