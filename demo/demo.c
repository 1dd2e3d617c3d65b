/*
 * demo.c — the default workload: a small in-memory file system looked up by
 * several threads on several CPUs, plus accounting work in the timer
 * interrupt.  It is built with patchable entries like any kernel code and is
 * shaped to exercise a tracer: call chains more than six deep, recursion,
 * tail calls (`return f(x);` compiled to a jump), functions taking and
 * returning ints, pointers, enums and strings, and negative error codes.
 *
 * The file system itself is demo/vfs.c.  The result is deterministic: demo_main() checks its totals against the
 * values computed from the tree and returns 0 only if they match.
 */
#include <errno.h>
#include <stdint.h>

#include "boot/console.h"
#include "boot/irq.h"
#include "boot/main.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "demo/vfs.h"

#define NOINLINE __attribute__((noinline))
#define WORKERS 4
#define ROUNDS 50

struct worker {
	int id;
	long found_bytes;
	int errors, mismatches;
	enum file_kind last_kind;
};

NOINLINE int worker_main(void *arg)
{
	struct worker *w = arg;
	for (int r = 0; r < ROUNDS; r++) {
		for (unsigned p = 0; p < 8; p++) {
			int rc = vfs_stat(vfs_paths[(p + w->id) % 8]);
			if (rc != vfs_expect[(p + w->id) % 8])
				w->mismatches++;
			if (rc < 0)
				w->errors++;
			else
				w->found_bytes += rc;
		}
		if (r % 10 == 0)
			thread_yield();
	}
	w->last_kind = vfs_root.child[w->id % 2]->kind;
	return w->mismatches ? -EIO : 0;
}

/* Interrupt work: every timer tick on every CPU during the run.  The
 * count is this run's: demo_main zeroes it before the hook is set. */
static unsigned long irq_lookups;          /* atomic */
NOINLINE void demo_tick(void)
{
	if (vfs_stat("/etc/hosts") == 187)
		__atomic_fetch_add(&irq_lookups, 1, __ATOMIC_RELAXED);
}

int demo_main(void)
{
	struct worker w[WORKERS];
	struct thread *t[WORKERS];
	/* No tick is in demo_tick now (the last run's smp_sync_all). */
	__atomic_store_n(&irq_lookups, 0, __ATOMIC_RELAXED);
	timer_hook_set(demo_tick);
	for (int i = 0; i < WORKERS; i++) {
		w[i] = (struct worker){ .id = i };
		t[i] = thread_create("demo-worker", worker_main, &w[i], i % (int)ncpus);
	}
	int failed = 0;
	long bytes = 0;
	for (int i = 0; i < WORKERS; i++) {
		failed |= thread_join(t[i]) != 0;
		bytes += w[i].found_bytes;
	}
	timer_hook_set(NULL);
	/* A tick that read the hook before it was cleared may still be in
	 * demo_tick on another CPU: smp_sync_all returns once every CPU has
	 * left its interrupt handler, so the count below has every lookup a
	 * tracer saw; and a tick after it reads NULL (smp_send's RELEASE
	 * pairs with the IPI handler's ACQUIRE, ordering our store before
	 * its later ticks). */
	smp_sync_all();
	long per_pass = 0;
	for (int p = 0; p < 8; p++)
		per_pass += vfs_expect[p] > 0 ? vfs_expect[p] : 0;
	long want = per_pass * ROUNDS * WORKERS;
	kprintf("demo: %d workers x %d rounds of 8 lookups: %ld bytes found (expected %ld), "
		"tree holds %ld bytes in a %s, %lu lookups from the timer interrupt\n",
		WORKERS, ROUNDS, bytes, want, tree_bytes(&vfs_root), kind_name(vfs_root.kind),
		__atomic_load_n(&irq_lookups, __ATOMIC_RELAXED));
	return failed || bytes != want || tree_bytes(&vfs_root) != 5557 ? 1 : 0;
}
