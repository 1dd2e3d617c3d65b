/*
 * shim_graph.h — the kernel around trace/tracers/function_graph_output.c, for the host.
 *
 * Force-included (-include) before anything else when building
 * test_graph_output: it stands in for boot/cpu.h and boot/sched.h (which
 * need an arch) by defining their include guards and the little of them
 * that trace/trace.h uses, and keeps trace/core/fgraph.h (the recording side,
 * arch hooks included) out the same way: trace/tracers/function_graph.h only names its
 * types.  Everything else function_graph_output.c calls is
 * declared by the real headers and defined in shim_graph.c:
 *   kprintf/ksnprintf  kprintf appends to shim_out (the test reads it)
 *   ksym_lookup        a small table (shim_syms)
 *   clock_cycles_to_ns identity: cycles are nanoseconds
 *   trace_comm         a small table
 *   fsig_port_*        trace/btf/fsig.c's environment (it is built with
 *                      FSIG_HOST): addresses from the symbol table
 *   trace_iter_peek/skip, trace_opts, ncpus
 */
#ifndef TESTS_HOST_SHIM_GRAPH_H
#define TESTS_HOST_SHIM_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- boot/cpu.h and boot/sched.h, replaced ---- */
#define BOOT_CPU_H
#define BOOT_SCHED_H
#define TRACE_FGRAPH_H
#define MAX_CPUS 16

#define THREAD_ENTRY_TYPE 1u             /* boot/sched.h */
#define THREAD_RET_TYPE 10u              /* boot/sched.h */

struct thread {
	unsigned tid;
	unsigned preempt_count;
	uint64_t entry_pid;             /* boot/sched.h: tid << 32 | THREAD_ENTRY_TYPE */
	uint64_t ret_pid;               /* boot/sched.h: tid << 32 | THREAD_RET_TYPE */
};

struct cpu {
	struct thread *current, *idle;
	unsigned irq_depth;
	union {                         /* boot/cpu.h: the guard word */
		uint32_t trace_guard;
		struct {
			uint8_t trace_recursion, ftrace_dead;
			uint8_t need_resched;   /* 0 or CPU_NEED_RESCHED */
			uint8_t trace_guard_zero;
		};
	};
	unsigned trace_ctx;             /* boot/cpu.h: TRACE_CTX_HARDIRQ in an interrupt */
};
#define TRACE_CTX_HARDIRQ (0x08u << 16)  /* boot/cpu.h */
#define CPU_NEED_RESCHED  0x04u          /* boot/cpu.h */

extern struct cpu shim_cpu;
extern unsigned ncpus;

static inline struct cpu *arch_this_cpu(void) { return &shim_cpu; }
static inline bool arch_irqs_enabled(void) { return true; }
static inline uint32_t arch_irqs_disabled_or(unsigned shift, uint32_t k) { (void)shift; return k; }
static inline uint64_t arch_min15_or(uint64_t w, unsigned shift, uint32_t v)
{
	return w | (uint64_t)(v > 15 ? 15 : v) << shift;
}
static inline uint32_t arch_load_relaxed8(const uint8_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline uint32_t arch_load_pair32(const uint32_t *p, uint32_t *second)
{
	*second = p[1];
	return p[0];
}
static inline uintptr_t arch_cpu_word(struct cpu *c, size_t off)
{
	return *(const uintptr_t *)(const void *)((const char *)c + off);
}
static inline uint32_t arch_cpu_pair32(struct cpu *c, size_t off, uint32_t *second)
{
	return arch_load_pair32((const uint32_t *)(const void *)((const char *)c + off), second);
}

/* ---- What the test controls and reads ---- */
extern char shim_out[1 << 16];          /* everything kprintf wrote, NUL-terminated */
extern size_t shim_out_len;
void shim_out_reset(void);

/* Signatures: none until shim_load_sigs() loads shim_btf_path (the BTF
 * of graph_sample.c) through trace/btf/fsig.c; btf_unload() drops them. */
extern const char *shim_btf_path;
void shim_load_sigs(void);

#endif
