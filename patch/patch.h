/*
 * patch.h — batched, SMP-safe rewriting of patchable sites.
 *
 * patch_apply(sites, n): every site in the batch is first read back and
 * compared with the encoding of its old state (patch_apply's check, patch.c); if any
 * differs nothing is written and the error names the site; the caller
 * decides what follows (the ftrace update disables tracing: patch/ knows
 * nothing of the tracer).  Otherwise arch_patch_sites() rewrites
 * them all with the ISA's protocol, using patch_sync_cores() once per step
 * for the whole batch.
 *
 * Thread context, interrupts enabled; callers hold ftrace_mutex (a sleeping
 * mutex: one batch at a time).  The batch runs with preemption disabled, on one CPU.
 * What another CPU's exception handler needs to find a site mid-update is
 * the arch protocol's (x86-64's #BP handler finds its batch there).
 */
#ifndef PATCH_PATCH_H
#define PATCH_PATCH_H

#include <stddef.h>
#include <stdint.h>

/* One site's change.  The data word is checked and written only when it
 * changes (old_data != new_data): equal values mean "leave it as it is",
 * whatever it holds (nothing reads it in either state; ftrace.c data_of). */
struct patch_site {
	uintptr_t func;                    /* the function whose site changes */
	uintptr_t old_target, new_target;  /* what the site calls; 0 = disabled */
	uintptr_t old_data, new_data;      /* per-site data word (arm64 literal) */
	unsigned kind;                     /* ARCH_SLED_*: ENTRY (0) for a function's
					      site; an XRay exit or tail sled
					      has func = the sled's address */
};

/* 0, or with *bad set to the index of the first offending site and nothing
 * written: -EILSEQ, its bytes (or its data word) were not what old_* says,
 * or new_target does not encode there; -EINVAL, the batch is not sorted by
 * func (a bug of the caller's, not a site). */
int patch_apply(struct patch_site *sites, unsigned n, unsigned *bad);

/*
 * patch_apply() without its validation pass, for a caller that validates
 * while it builds the batch (the ftrace update: it computes each site's
 * old and new target in one pass over the records, and checks the site
 * there, which costs a fraction of a second pass).  The caller must have
 * made, before calling, every check patch_apply() makes, or ones
 * equivalent: sorted by func, arch_site_holds(func, old_target) and
 * arch_site_reaches(func, new_target) (arch/hooks.h; the ftrace update
 * checks a target's reach once for the whole record table, since reach is
 * an interval and records are sorted, in text and aligned from boot), and
 * the data word equal to old_data when it changes.  (The ftrace update
 * checks more: every site it changes holds the data word its record's
 * state says, whether the word changes or not.)  A caller that finds a site refused
 * does not call it: it kills tracing.
 */
void patch_apply_checked(struct patch_site *sites, unsigned n);


/* Make every other CPU execute a context-synchronising event (an IPI's
 * exception return) and wait until all have. */
void patch_sync_cores(void);

#endif
