/*
 * patch.c — validate a batch of site changes and hand it to the arch
 * protocol.
 *
 * Validation first, side effects after: every site is read back and
 * compared with the encoding of its old state (patch_check, one pass)
 * before anything is written.
 *
 * The arch protocol does the rest, including whatever an exception
 * handler on another CPU needs to find a site mid-update (x86-64 publishes
 * its batch for its #BP handler; arm64's changes need no handler).  QEMU's
 * multi-threaded TCG can keep a translation of a site's old bytes past the
 * write; each arch protocol drops such translations itself (arm64 patch.c
 * step F; x86-64 patch.c says why it needs none).
 */
#include <errno.h>
#include <string.h>

#include "boot/console.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "patch/patch.h"

void patch_sync_cores(void)
{
	/* Each other CPU runs the IPI handler and returns from the exception:
	 * a context synchronisation event on arm64, serialising (iret) on
	 * x86-64.  This CPU synchronises by the call itself. */
	smp_sync_all();
}

/* The batch, validated, written by the arch protocol.  On one CPU from
 * start to end, preemption disabled: the ftrace lock is a sleeping mutex,
 * and a caller preempted between two steps (each sync enables preemption
 * again on its way out) could be moved by the load balancer, while the
 * arch protocol keeps per-CPU state across its steps (x86-64's batch keeps
 * this CPU's text alias mapped, text_poke.c, and panics when a step runs
 * elsewhere). */
static void apply(struct patch_site *sites, unsigned n)
{
	if (!n)
		return;
	preempt_disable();
	arch_patch_sites(sites, n);
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
		if (s->kind != ARCH_SLED_ENTRY) {
			if (!arch_sled_placed(s->func) || !arch_sled_holds(s->func, s->old_target, s->kind) ||
			    !arch_site_reaches(s->func, s->new_target) || s->old_data != s->new_data) {
				*bad = i;
				return -EILSEQ;
			}
		} else if (!arch_site_placed(s->func) || !arch_site_holds(s->func, s->old_target) ||
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
	if (!err)
		apply(sites, n);
	return err;
}

void patch_apply_checked(struct patch_site *sites, unsigned n)
{
	apply(sites, n);
}

