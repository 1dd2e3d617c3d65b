/*
 * rb_port_host.h — the ring buffer's port to a Linux host (tests only).
 *
 * A thread plays one CPU: it sets rb_host_cpu (below RB_MAX_CPUS) once and
 * keeps it, so "preemption" never moves it and the port's preempt calls do
 * nothing.
 * Signal handlers run on the thread they interrupt, so they nest on top of
 * it exactly like interrupt handlers on a CPU.  The clock is
 * CLOCK_MONOTONIC in nanoseconds unless a test installs its own with
 * rb_host_set_clock() (deterministic deltas, time extends).
 */
#ifndef TESTS_HOST_RB_PORT_HOST_H
#define TESTS_HOST_RB_PORT_HOST_H

#include <sched.h>
#include <stdint.h>
#include <stdbool.h>
#include <time.h>

extern __thread unsigned rb_host_cpu;
extern uint64_t (*volatile rb_host_clock)(void);   /* NULL: CLOCK_MONOTONIC */

static inline void rb_host_set_clock(uint64_t (*fn)(void)) { rb_host_clock = fn; }

static inline unsigned rb_port_cpu_id(void) { return rb_host_cpu; }

static inline uint64_t rb_port_clock(void)
{
	uint64_t (*fn)(void) = rb_host_clock;
	if (fn)
		return fn();
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);     /* async-signal-safe */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uintptr_t rb_port_preempt_disable(void) { return 0; }
static inline void rb_port_preempt_enable(uintptr_t token) { (void)token; }
static inline void rb_port_relax(void) { sched_yield(); }
static inline uint64_t rb_port_load64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void rb_port_store64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
static inline uint64_t rb_port_sub_load64(uint64_t v, const uint64_t *p)
{
	return v - __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline bool rb_port_ne_load64(uint64_t v, const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED) != v;
}
static inline bool rb_port_cas64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return __atomic_compare_exchange_n(p, expected, desired, false, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
}

/* The CPU-local RMWs (rb_port.h): the __atomic builtins of arch/local.h,
 * which ThreadSanitizer understands; a build that defines RB_LOCAL_HEADER
 * (the host benchmark's local variant: "arch/x86_64/local.h") gets the
 * arch's own instead.  A thread's signal handlers play its interrupts, and
 * one instruction is indivisible against them too. */
#ifdef RB_LOCAL_HEADER
#include RB_LOCAL_HEADER
#endif
#include "arch/local.h"
/* The tests check the split gate (x86-64's); rb_bench_atomic builds the
 * one-word gate with the builtins, the protocol before local RMWs. */
#ifndef RB_PORT_LOCAL_GATE
#define RB_PORT_LOCAL_GATE 1
#endif
static inline bool rb_port_local_cas64(uint64_t *p, uint64_t *expected, uint64_t desired)
{
	return arch_local_cas64(p, expected, desired);
}
static inline void rb_port_local_sub64_release(uint64_t *p, uint64_t v)
{
	arch_local_sub64_release(p, v);
}

#define RB_PORT_ADDR_INDEX_DISP 1         /* the host is x86-64 */
#define RB_PORT_WIDE_IMM 1

static inline bool rb_port_above_bits(uint64_t v, unsigned bits)
{
	return v > (UINT64_C(1) << bits) - 1;     /* the host is x86-64: arch_above_bits' form */
}

static inline bool rb_port_or_load64_seq_cst(uint64_t *v, const uint64_t *p)
{
	return arch_or_load64_seq_cst(v, p);
}

/* rb_port_race: with rb_host_race set (the torture), about one point in 32
 * on each thread spins for a few microseconds, stretching a reader/writer
 * race window across many of the other side's steps.  Signal handlers
 * (writers) run it too: it only spins, and the counter is the thread's own.
 * A unit test may instead set rb_host_race_hook to act at these points
 * itself, as an interrupt (a nested writer) or the reader would. */
extern int rb_host_race;                    /* set before the threads start */
extern void (*rb_host_race_hook)(void);
static inline void rb_port_race(void)
{
	static __thread uint32_t x = 1;
	if (rb_host_race_hook)
		rb_host_race_hook();
	if (!rb_host_race)
		return;
	x = x * 1103515245u + 12345u;
	if ((x >> 16) % 32 == 0)
		for (volatile unsigned i = 0; i < 4000u + (x >> 18); i++)
			;
}

/* Cold calls are plain calls here. */
#define RB_PORT_COLD_THUNK(fn) _Static_assert(1, #fn)
#define RB_PORT_COLD(type, fn, ...) fn(__VA_ARGS__)
#define RB_PORT_COLD_VOID(fn, ...) fn(__VA_ARGS__)

#endif
