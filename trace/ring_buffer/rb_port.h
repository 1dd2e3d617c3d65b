/*
 * rb_port.h — what the ring buffer needs from its environment.
 *
 * trace/ring_buffer/ring_buffer.c and trace/ring_buffer/rb_read.c compile unchanged for the kernel
 * and for the host tests; everything arch- or OS-specific is one of these
 * inline functions, provided by a port header:
 *
 *   unsigned rb_port_cpu_id(void)       index of the running CPU (writer side),
 *                                       below RB_MAX_CPUS; stable between
 *                                       rb_port_preempt_disable() and
 *                                       rb_port_preempt_enable()
 *   uint64_t rb_port_clock(void)        per-CPU clock (any unit); the merged
 *                                       reader compares values across CPUs.  It
 *                                       need not be ordered with the code around
 *                                       it: a reading lower than the previous
 *                                       event's is taken as "no time passed"
 *                                       (writers check every delta)
 *   uintptr_t rb_port_preempt_disable(void)  stop migration (not interrupts);
 *                                       nests; returns a token for ..._enable
 *   void rb_port_preempt_enable(uintptr_t token)
 *   void rb_port_relax(void)            spin-wait hint (readers only)
 *   uint64_t rb_port_load64(const uint64_t *p)  a relaxed atomic load and
 *   void rb_port_store64(uint64_t *p, uint64_t v)  store, for the writers'
 *                                       fast path (the kernel's let the
 *                                       compiler fold an address offset:
 *                                       arch_load_relaxed64, ..._store_...)
 *   bool rb_port_cas64(uint64_t *p, uint64_t *expected, uint64_t desired)
 *                                       a relaxed strong compare-and-swap
 *                                       (__atomic_compare_exchange_n's
 *                                       contract), for the same fast path
 *   bool rb_port_local_cas64(uint64_t *p, uint64_t *expected, uint64_t desired)
 *                                       rb_port_cas64, indivisible only against
 *                                       the running CPU and its interrupts
 *   void rb_port_local_sub64_release(uint64_t *p, uint64_t v)
 *                                       *p -= v, a RELEASE, on the same terms:
 *                                       for the words only the owner CPU's
 *                                       writers write (the tail word; the
 *                                       gate, when split: DESIGN, "Local
 *                                       atomics"); the
 *                                       kernel's are arch_local_* (x86-64:
 *                                       no LOCK prefix), the host's the
 *                                       __atomic builtins unless a bench
 *                                       build asks for the arch's
 *   bool rb_port_or_load64_seq_cst(uint64_t *v, const uint64_t *p)
 *                                       *v |= __atomic_load_n(p, __ATOMIC_SEQ_CST),
 *                                       true if *v is 0 then
 *                                       (arch_or_load64_seq_cst: one OR from
 *                                       memory on x86-64)
 *   uint64_t rb_port_sub_load64(uint64_t v, const uint64_t *p)
 *   bool rb_port_ne_load64(uint64_t v, const uint64_t *p)
 *                                       v - *p and *p != v, *p a relaxed
 *                                       atomic load (arch_sub_load64,
 *                                       arch_ne_load64: one SUB / CMP from
 *                                       memory on x86-64)
 *   RB_PORT_LOCAL_GATE                  1: the gate's "inside" and the
 *                                       recording switch are two words, so
 *                                       that the writers' E step is a local
 *                                       sub (worth it where local RMWs are
 *                                       cheaper: ARCH_LOCAL_RMW); 0: one word,
 *                                       one atomic add at A learns both
 *   RB_PORT_ADDR_INDEX_DISP             1: a load or store takes base +
 *                                       index + displacement (x86-64), and
 *                                       the fast path addresses level 0's
 *                                       time stamp slots as lts + a byte
 *                                       index; 0: base + index or base +
 *                                       displacement (arm64), and it adds
 *                                       the index to the buffer's address
 *                                       (one shifted add) and reaches the
 *                                       other slot by flipping bit 3 of the
 *                                       sum (ARCH_ADDR_INDEX_DISP)
 *   RB_PORT_WIDE_IMM                    1: the fast path's tail step
 *                                       (T_GEN_BIT + T_NEV_ONE) is a
 *                                       constant (x86-64: one movabs); 0: it
 *                                       is loaded with the tail from the word
 *                                       beside it (rb_cpu.tail_step), by
 *                                       rb_port_load_pair64 (ARCH_WIDE_IMM)
 *   uint64_t rb_port_load_pair64(const uint64_t *p, uint64_t *second)
 *                                       p[0] and *second = p[1], each a
 *                                       relaxed atomic load (arm64 one LDP;
 *                                       used where RB_PORT_WIDE_IMM is 0)
 *   bool rb_port_above_bits(uint64_t v, unsigned bits)
 *                                       v >= 2^bits (bits a constant), in the
 *                                       form the CPU tests cheapest: the
 *                                       kernel's arch_above_bits (x86-64 a
 *                                       compare with an immediate, arm64 a
 *                                       compare with the shifted value; the
 *                                       compiler turns each form into the
 *                                       other's worse one)
 *   void rb_port_race(void)             a point inside one of the windows where
 *                                       the reader and a writer race for a slot
 *                                       word (between loading it and the CAS
 *                                       that decides, and R2's slot_c check):
 *                                       nothing in the kernel; the host torture
 *                                       stretches the window now and then, so
 *                                       that the races DESIGN argues happen
 *                                       under test, not once in a million pages
 *
 * and three macros for the calls the writers' inline fast path makes when it
 * leaves for the general path (rarely), so that a port can make them cost
 * the writer's common path nothing -- the kernel's calls through thunks
 * that preserve every register (arch/hooks.h, ARCH_CALL_PRESERVING):
 *
 *   RB_PORT_COLD(type, fn, args...)    fn(args...), its result as `type`
 *                                       (two words at most)
 *   RB_PORT_COLD_VOID(fn, args...)      fn(args...), no result
 *   RB_PORT_COLD_THUNK(fn);             at file scope after fn's definition:
 *                                       whatever the two above need for fn
 *
 * The kernel's two calls also hold preemption off for their length, so a
 * writer running where it cannot be preempted (trampoline text, a tracer
 * callback's fast path) need not raise the count for the general path's
 * sake: the general path runs in ordinary text.
 *
 * The kernel port is trace/ring_buffer/rb_port_kernel.h.  A build defines RB_PORT_HEADER
 * to use another one (the host tests use tests/host/rb_port_host.h).
 *
 * Atomics are the compiler's __atomic builtins on naturally aligned 32- and
 * 64-bit words: lock-free on both arches, and on one CPU they are
 * indivisible with respect to interrupts (and signals on the host), which is
 * what nesting writers rely on.
 */
#ifndef TRACE_RB_PORT_H
#define TRACE_RB_PORT_H

#ifdef RB_PORT_HEADER
#include RB_PORT_HEADER
#else
#include "trace/ring_buffer/rb_port_kernel.h"
#endif

#endif
