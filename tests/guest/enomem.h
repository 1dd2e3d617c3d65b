/*
 * enomem.h — what the enomem suite's cases (test_enomem.c) use of its
 * harness (enomem_harness.c): the traced functions, the probes attached to
 * them, and sweep(), which runs an operation with each of its allocations
 * failing in turn and checks the state (see enomem_harness.c).
 */
#ifndef TESTS_GUEST_ENOMEM_H
#define TESTS_GUEST_ENOMEM_H

#include <stddef.h>
#include <stdint.h>

#include "tests/guest/listing.h"
#include "trace/core/fgraph.h"
#include "trace/core/fprobe.h"
#include "trace/core/ftrace.h"

/* The traced functions (en_d: direct trampolines only). */
#define NFUNCS 4
int en_a(int x);
int en_b(int x);
int en_c(int x);
int en_d(int x);
extern int (*const funcs[NFUNCS])(int);

/* The probes: ftrace ops counting hits per function, a direct ops, a graph
 * user and an fprobe; probes_init() puts them back to unregistered, with
 * their filters. */
struct counter {
	struct ftrace_ops ops;
	unsigned long hits[NFUNCS];      /* atomic */
};
#define NCTR 3
extern struct counter ctr[NCTR];     /* ctr[2] asks for SAVE_REGS */
extern struct ftrace_ops direct_ops;
extern struct fgraph_ops gu;
extern struct fprobe fp;
void probes_init(void);

/* Listings are captured with tests/guest/listing.h. */

/* Run `run` clean, `undo` it, then again with each allocation failing in
 * turn; returns the clean run's allocations, or 0 after a finding (already
 * reported). */
typedef int (*op_fn)(void);
unsigned sweep(const char *what, op_fn run, op_fn undo);

#endif
