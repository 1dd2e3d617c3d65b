/*
 * local.h — CPU-local atomics: the generic defaults (see arch/hooks.h).
 *
 * An arch whose plain RMW instructions are cheaper than its atomic ones and
 * still indivisible against its own interrupts defines its forms first
 * (x86-64: arch/x86_64/local.h, without LOCK) and names each one as a macro
 * of itself; anything not defined by then is the __atomic builtin here.
 * arm64 keeps the builtins: its single-instruction atomics (LDADD, CAS) do
 * not cost what x86's locked ones do, and a plain load/store pair would not
 * be indivisible against an interrupt.
 *
 * Self-contained: the ring buffer's host build includes it too
 * (tests/host/rb_port_host.h), where the builtins are what ThreadSanitizer
 * understands.
 */
#ifndef ARCH_LOCAL_H
#define ARCH_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

/* 1 where the arch's local RMWs are cheaper than its atomic ones (a
 * layout choice for their users: rb_port_kernel.h). */
#ifndef ARCH_LOCAL_RMW
#define ARCH_LOCAL_RMW 0
#endif

#ifndef arch_local_sub64_release
static inline __attribute__((always_inline)) void arch_local_sub64_release(uint64_t *p, uint64_t v)
{
	__atomic_fetch_sub(p, v, __ATOMIC_RELEASE);
}
#endif

#ifndef arch_local_cas64
static inline __attribute__((always_inline)) bool arch_local_cas64(uint64_t *p, uint64_t *expected,
								  uint64_t desired)
{
	return __atomic_compare_exchange_n(p, expected, desired, false, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED);
}
#endif

/* Not a CPU-local op, but as small and as optional: *v |= *p, *p read by
 * a SEQ_CST load; true if *v is 0 then (x86-64: one OR from memory). */
#ifndef arch_or_load64_seq_cst
static inline __attribute__((always_inline)) bool arch_or_load64_seq_cst(uint64_t *v,
									const uint64_t *p)
{
	*v |= __atomic_load_n(p, __ATOMIC_SEQ_CST);
	return *v == 0;
}
#endif

#endif
