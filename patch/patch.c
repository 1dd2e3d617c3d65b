/*
 * patch.c — validate a batch of site changes, publish it for exception
 * handlers, and hand it to the arch protocol.
 *
 * Validation first, side effects after: every site is read back and
 * compared with the encoding of its old state (patch_check, one pass)
 * before anything is written.
 *
 * In-flight publication (for the x86-64 int3 handler, any CPU, any
 * context):  A  the batch array is complete;  B  inflight/inflight_n are
 * stored with RELEASE;  C  arch_patch_sites() runs, and a CPU trapping on a
 * site reads inflight with ACQUIRE, so it sees a complete array;  D
 * inflight_n is cleared;  E  patch_sync_cores(): every CPU has taken an
 * exception return since D, so no handler still walks the array when the
 * caller frees it.  QEMU's multi-threaded TCG can keep a translation of a
 * site's old bytes past C; each arch protocol drops such translations
 * itself (arm64 patch.c step F; x86-64 patch.c says why it needs none).
 */
#include <errno.h>
#include <string.h>

#include "boot/console.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "patch/patch.h"
#include "trace/ftrace.h"

static struct patch_site *inflight;  /* atomic; see B, D */
static unsigned inflight_n;          /* atomic */
static struct patch_stats stats;     /* ftrace lock */

void patch_sync_cores(void)
{
	/* Each other CPU runs the IPI handler and returns from the exception:
	 * a context synchronisation event on arm64, serialising (iret) on
	 * x86-64.  This CPU synchronises by the call itself. */
	smp_sync_all();
	stats.syncs++;
}

const struct patch_site *patch_find_inflight(uintptr_t func)
{
	unsigned n = __atomic_load_n(&inflight_n, __ATOMIC_ACQUIRE);
	const struct patch_site *v = __atomic_load_n(&inflight, __ATOMIC_ACQUIRE);
	unsigned lo = 0, hi = n;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (v[mid].func == func)
			return &v[mid];
		if (v[mid].func < func)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The batch, validated: publish it (B), write it (C), withdraw it (D, E).  On one CPU from start to end, preemption disabled: the
 * ftrace lock is a sleeping mutex, and a caller preempted between two
 * steps (each sync enables preemption again on its way out) could be moved
 * by the load balancer, while the arch protocol keeps per-CPU state across
 * its steps (x86-64's batch keeps this CPU's text alias mapped,
 * text_poke.c, and panics when a step runs elsewhere). */
static void apply(struct patch_site *sites, unsigned n)
{
	if (!n)
		return;
	preempt_disable();
	/* B: publish (the array is complete: A). */
	__atomic_store_n(&inflight, sites, __ATOMIC_RELEASE);
	__atomic_store_n(&inflight_n, n, __ATOMIC_RELEASE);
	arch_patch_sites(sites, n);                           /* C */
	__atomic_store_n(&inflight_n, 0, __ATOMIC_RELEASE);   /* D */
	patch_sync_cores();                                   /* E */
	stats.batches++;
	stats.sites += n;
	preempt_enable();
}

/*
 * Validation of a batch made elsewhere, one pass before anything is
 * written: sorted by func (-EINVAL), and every site placed where a site can
 * be, holding old_target's encoding, in reach of new_target, and (when its
 * data word changes) holding old_data (-EILSEQ); *bad = the index.  One
 * read and compare per site (arch/hooks.h, the site encodings).
 */
static int patch_check(const struct patch_site *sites, unsigned n, unsigned *bad)
{
	uintptr_t prev = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct patch_site *s = &sites[i];
		if (s->func <= prev) {
			*bad = i;
			return -EINVAL;
		}
		prev = s->func;
		if (!arch_site_placed(s->func) || !arch_site_holds(s->func, s->old_target) ||
		    !arch_site_reaches(s->func, s->new_target) ||
		    (s->old_data != s->new_data && arch_site_data(s->func) != s->old_data)) {
			*bad = i;
			return -EILSEQ;
		}
	}
	return 0;
}

int patch_apply(struct patch_site *sites, unsigned n, unsigned *bad)
{
	int err = patch_check(sites, n, bad);
	if (err == -EINVAL) {
		ftrace_kill("patch batch not sorted by address");
		return err;
	}
	if (err) {
		stats.refused++;
		return -EILSEQ;
	}
	apply(sites, n);
	return 0;
}

void patch_apply_checked(struct patch_site *sites, unsigned n)
{
	apply(sites, n);
}

void patch_note_refused(void)
{
	stats.refused++;
}

void patch_get_stats(struct patch_stats *out)
{
	*out = stats;
}
