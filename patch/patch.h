/*
 * patch.h — batched, SMP-safe rewriting of patchable sites.
 *
 * patch_apply(sites, n): every site in the batch is first read back and
 * compared with the encoding of its old state; if any differs nothing is
 * written, the error names the site, and tracing is disabled (ftrace_kill).
 * Otherwise arch_patch_sites() rewrites them all with the ISA's protocol,
 * using patch_sync_cores() once per step for the whole batch.
 *
 * Thread context, interrupts enabled; callers hold the ftrace lock (one
 * batch at a time).  While a batch is in flight, patch_find_inflight() lets
 * an exception handler on any CPU find a site's entry (x86-64 int3).
 */
#ifndef PATCH_PATCH_H
#define PATCH_PATCH_H

#include <stddef.h>
#include <stdint.h>

struct patch_site {
	uintptr_t func;                    /* the function whose site changes */
	uintptr_t old_target, new_target;  /* what the site calls; 0 = disabled */
	uintptr_t old_data, new_data;      /* per-site data word (arm64 literal) */
};

/* 0, or -EILSEQ with *bad set to the index of the first site whose bytes
 * were not what old_* says (nothing written). */
int patch_apply(struct patch_site *sites, unsigned n, unsigned *bad);

/* The in-flight entry for func, or NULL (any context; lock-free). */
const struct patch_site *patch_find_inflight(uintptr_t func);

/* Make every other CPU execute a context-synchronising event (an IPI's
 * exception return) and wait until all have. */
void patch_sync_cores(void);

/* Counters, for enabled_functions and the benchmarks. */
struct patch_stats {
	unsigned long batches, sites, syncs, refused;
};
void patch_get_stats(struct patch_stats *out);

#endif
