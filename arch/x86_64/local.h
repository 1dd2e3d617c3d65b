/*
 * local.h — x86-64 CPU-local atomics (see arch/hooks.h: arch_local_*).
 *
 * For a word that only the running CPU writes (its interrupts included),
 * while other CPUs may read it: an RMW instruction without the LOCK prefix
 * is still one instruction, so an interrupt comes before or after it, never
 * inside; without LOCK it neither locks the cache line nor drains the store
 * buffer, which on hardware saves the tens of cycles a locked RMW costs.
 * Its store is ordered like any x86 store (TSO: after every earlier load
 * and store), so it also serves where a RELEASE is asked for.  A word that
 * another CPU may write must not take these: the other CPU's write can fall
 * between this load and store and be lost.
 *
 * Self-contained (no kernel header), so the ring buffer's host build can
 * measure the same instructions (tests/host/rb_port_host.h).
 */
#ifndef ARCH_X86_64_LOCAL_H
#define ARCH_X86_64_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#define ARCH_LOCAL_RMW 1

/* *p -= v (a `sub` to memory); the "memory" clobber keeps every earlier
 * access before it for the compiler: a release. */
#define arch_local_sub64_release arch_local_sub64_release
static inline __attribute__((always_inline)) void arch_local_sub64_release(uint64_t *p, uint64_t v)
{
	__asm__ volatile("subq %1, %0" : "+m"(*p) : "er"(v) : "memory");
}

/* arch_cas_relaxed64 without LOCK: CMPXCHG to memory; *p addressed as base
 * + offset.  No "memory" clobber: relaxed (callers put their own fences). */
#define arch_local_cas64 arch_local_cas64
static inline __attribute__((always_inline)) bool arch_local_cas64(uint64_t *p, uint64_t *expected,
								  uint64_t desired)
{
	bool ok;
	__asm__ volatile("cmpxchgq %3, %1"
			 : "=@ccz"(ok), "+m"(*p), "+a"(*expected)
			 : "r"(desired));
	return ok;
}

/* *v |= *p, *p a SEQ_CST load, and whether *v is 0 now: an OR from memory
 * and its zero flag (x86's SEQ_CST load is a plain load, its RMWs carry
 * the fence), which GCC does not make of __atomic_load_n: two instructions
 * less on the ring buffer's A step. */
#define arch_or_load64_seq_cst arch_or_load64_seq_cst
static inline __attribute__((always_inline)) bool arch_or_load64_seq_cst(uint64_t *v,
									const uint64_t *p)
{
	bool z;
	__asm__ volatile("orq %2, %1" : "=@ccz"(z), "+r"(*v) : "m"(*p) : "memory");
	return z;
}

#endif
