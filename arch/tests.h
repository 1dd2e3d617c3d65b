/*
 * arch/tests.h — what an architecture gives the tests, and nothing else
 * calls: test support defined in arch/<arch>/tests/ (built as arch code:
 * no patchable entries, NOFP_CFLAGS), used by tests/guest, tests/bench and
 * the arch's own suite (arch/<arch>/tests/ftrace_selftest.c).  The hooks
 * generic code runs on are in arch/hooks.h; no file outside the tests
 * includes this one.
 */
#ifndef ARCH_TESTS_H
#define ARCH_TESTS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Two direct trampolines (arch/<arch>/tests/direct_test.S; what a direct
 * trampoline sees: arch/<arch>/DIRECT.md).  arch_test_direct_tramp counts
 * its calls in arch_test_direct_hits (atomic) and returns into the
 * function; arch_test_direct_tramp_body calls the function's body itself
 * and returns its (integer) result + 1000 to the function's caller.
 */
extern uint64_t arch_test_direct_hits;
void arch_test_direct_tramp(void);
void arch_test_direct_tramp_body(void);

/*
 * The site the generic cases of suite arch_ftrace drive
 * (tests/guest/test_arch_ftrace.c): arch_test_site3(a, b, c) returns
 * a * 100 + b * 10 + c and starts with a site as the arch's compiler leaves
 * one, not in the record table.  arch_test_call_site3(a, b, c) calls it and
 * returns its result; before the call it stores the stack pointer (as at
 * the call instruction) and its frame pointer in arch_test_caller[0] and
 * [1]; arch_test_site3 returns to arch_test_call_site3_ret.
 */
long arch_test_site3(long a, long b, long c);
long arch_test_call_site3(long a, long b, long c);
extern const char arch_test_call_site3_ret[];
extern uintptr_t arch_test_caller[2];

/*
 * Load every FP/SIMD register with values derived from `seed`, spin for
 * `spins` iterations with interrupts enabled (long enough to be preempted),
 * then check every register.  Returns the number of registers that changed.
 */
unsigned arch_test_fpu_churn(uint64_t seed, unsigned long spins);

/*
 * The address of an unconditional jump (not a call) to `target` among the
 * instructions of [start, start + len) — a compiled tail call — or 0.
 * x86-64 looks for jmp rel32 / rel8 at every byte offset, arm64 for `b` at
 * every word.
 */
uintptr_t arch_test_find_jump(uintptr_t start, size_t len, uintptr_t target);

/*
 * Overwrite every general register a C call may change (arm64 x0-x18,
 * x86-64 rax, rcx, rdx, rsi, rdi, r8-r11) with garbage: what a callee of a
 * register-preserving thunk may do, and the thunk must hide.
 */
void arch_test_trash_caller_saved(void);

/*
 * Load every register a register-preserving thunk must keep (arm64 x2-x15
 * and x18, x86-64 rcx, rsi, rdi, r8-r11) with a distinct value, call
 * `thunk` (made by ARCH_PRESERVING_THUNK), and return a mask of those that
 * changed: bit n for register n (arm64 xn; x86-64 by its encoding: rcx 1,
 * rsi 6, rdi 7, r8-r11 8-11).  arm64 also hands the thunk an x30 in x17
 * (ARCH_CALL_THUNK) and sets bit 30 if x30 does not come back as that.
 * 0: the thunk kept them all.
 */
uint64_t arch_test_preserving_call(void (*thunk)(void));

/*
 * Call func(arg) the way func's site would if it still called
 * arch_ftrace_regs_list_caller, whatever it holds now: what a CPU that
 * fetched the site's old call does while the update moves it on.  func
 * returns to arch_test_regs_list_old_site_ret (the parent its callbacks
 * see), which returns func's result.  func must be a traced function of
 * one integer argument (arm64: its data word is then read as the site's).
 */
long arch_test_regs_list_old_site(long arg, uintptr_t func);
extern const char arch_test_regs_list_old_site_ret[];
/* The same with arch_ftrace_list_caller, the plain one. */
long arch_test_list_old_site(long arg, uintptr_t func);
extern const char arch_test_list_old_site_ret[];

/*
 * Suite arch_ftrace's cases that patch patchable-entry sites (hand-made as
 * the compiler leaves them, or the compiled ones) begin with this.  Under
 * INSTR=xray no function has such a site (arch_site_init refuses their
 * bytes: EILSEQ), so those cases are skipped, saying why; the sleds'
 * encoding, patching and switching under fire are suite xray's
 * (tests/guest/test_xray.c).  The text-poking cases run in both builds.
 */
#define ARCH_FTRACE_XRAY_SKIP "INSTR=xray has no patchable-entry site: the sleds are suite xray's"
#ifdef BT_INSTR_XRAY
#define ARCH_FTRACE_FENTRY_SITES() TEST_SKIP(ARCH_FTRACE_XRAY_SKIP)
#else
#define ARCH_FTRACE_FENTRY_SITES() do { } while (0)
#endif

#endif
