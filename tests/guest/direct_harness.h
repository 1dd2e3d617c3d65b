/*
 * direct_harness.h — what the direct trampoline suites share
 * (direct_harness.c): test_direct.c (suite `direct`: what a direct
 * trampoline does, alone or with callbacks or a graph user) and
 * test_direct_rules.c (suite `direct_rules`: one per function, reach, the
 * refusals and their messages).
 *
 * The trampolines are the arch's arch_test_direct_tramp (counts in
 * arch_test_direct_hits, goes on into the function) and
 * arch_test_direct_tramp_body (calls the body, adds 1000 to its result),
 * so a direct call shows in a count or in the return value, exactly.
 */
#ifndef TESTS_GUEST_DIRECT_HARNESS_H
#define TESTS_GUEST_DIRECT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/guest/listing.h"
#include "trace/core/ftrace.h"

/* A callback ops counting the calls of one function; `bad` counts calls
 * whose ip or parent were not the call's, or (SAVE_REGS) without registers.
 * dcount_init zeroes it and filters it on `name` (func: its address). */
struct dcount {
	struct ftrace_ops ops;
	uintptr_t func;                /* the function it is attached to */
	unsigned long hits, bad;       /* atomic */
	long last_arg;                 /* argument 0 of the last call */
};

void dcount_init(struct dcount *c, const char *name, uintptr_t func, unsigned flags);

/* struct listing, enabled_listing: listing.h */

/* The enabled_functions line of `name` with the direct trampoline `direct`
 * (into buf, returned): alone ("(1) D"), or with callbacks (count: all of
 * them, regs: one saves registers). */
const char *direct_line(char *buf, size_t size, const char *name, unsigned count, bool regs,
			void (*direct)(void));

/* Call f(0..n-1); the number of results other than mul * i + add. */
unsigned wrong_calls(int (*f)(int), int n, int mul, int add);

#endif
