/*
 * fault.h — synchronous exceptions the arch cannot resolve, and catching them.
 *
 * The arch exception code fills a struct fault_info and calls fault_handle().
 * Normally that prints the fault, the registers and a symbolized backtrace and
 * panics.  A thread may instead run code under fault_catch(): a fault raised by
 * that thread while it runs is reported back to it and execution continues
 * after the fault_catch() call (used by tests that probe W^X).
 *
 * A fault whose address is in a stack's guard (boot/stack.h) is a kernel
 * stack overflow: reported as such (the stack, its owner, the context) and
 * never caught.  The arch sets addr to the guard address the overflow hit
 * (x86-64: CR2 at the double fault; arm64: the abort's address, or where
 * the trap frame would have gone).
 */
#ifndef BOOT_FAULT_H
#define BOOT_FAULT_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;

enum fault_kind {
	FAULT_READ,       /* data abort / #PF on a load */
	FAULT_WRITE,      /* data abort / #PF on a store */
	FAULT_EXEC,       /* instruction fetch from a non-executable page */
	FAULT_UNDEF,      /* undefined / invalid instruction, trap instruction */
	FAULT_OTHER,      /* anything else (alignment, GP, ...) */
};

struct fault_info {
	enum fault_kind kind;
	const char *what;         /* arch's name for it, e.g. "page fault", "data abort" */
	uintptr_t pc;             /* faulting instruction */
	uintptr_t addr;           /* faulting data address (fetch address for EXEC) */
	uint64_t code;            /* arch syndrome / error code, printed raw */
};

void fault_handle(struct fault_info *fi, struct trap_frame *tf);

/*
 * Run fn(arg) in the calling thread; if it faults, stop it there, store what
 * happened in *out and return 1.  Returns 0 if fn returned normally.
 * The thread is pinned to its CPU meanwhile; do not nest.
 */
int fault_catch(void (*fn)(void *), void *arg, struct fault_info *out);

#endif
