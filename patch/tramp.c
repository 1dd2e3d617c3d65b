/*
 * tramp.c — slots in the executable trampoline pool.
 *
 * A slot is FREE, USED or RETIRED.  tramp_free() retires a slot and records
 * a snapshot of every CPU's quiescent-state count.  A retired slot becomes
 * free once every other CPU's count has moved past its snapshot: then no CPU
 * can still be executing in it (the caller itself is not in one).  Before reuse it is filled with trap instructions, so a late execution
 * of a freed trampoline faults loudly instead of running stale code.
 * Nothing here allocates: tramp_free() runs on paths that must not fail
 * (unregistering, undoing a failed registration).
 */
#include <string.h>

#include "boot/clock.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "patch/patch.h"
#include "patch/tramp.h"

#define MAX_SLOTS 1024

enum { SLOT_FREE, SLOT_USED, SLOT_RETIRED };

static unsigned char slot_state[MAX_SLOTS];       /* ftrace lock */
/* Per-CPU quiescent counts at retirement, cut to 32 bits: a count that
 * moved by a multiple of 2^32 reads as not moved, which only waits longer. */
static uint32_t retire_snap[MAX_SLOTS][MAX_CPUS];  /* ftrace lock */
static struct tramp_stats stats;

static unsigned nslots(void)
{
	unsigned n = (unsigned)((__tramp_pool_end - __tramp_pool_start) / ARCH_TRAMP_SIZE);
	return n < MAX_SLOTS ? n : MAX_SLOTS;
}

static uintptr_t slot_addr(unsigned i)
{
	return (uintptr_t)__tramp_pool_start + (uintptr_t)i * ARCH_TRAMP_SIZE;
}

/* Has every CPU passed a quiescent state since `snap` was taken?  An idle
 * CPU passes one each time its idle loop turns (every tick at least). */
static bool grace_over(const uint32_t *snap)
{
	for (unsigned c = 0; c < ncpus; c++)
		/* ACQUIRE pairs with tramp_quiescent's RELEASE. */
		if ((uint32_t)__atomic_load_n(&cpus[c].qs_count, __ATOMIC_ACQUIRE) == snap[c] &&
		    c != cpu_id())
			return false;
	return true;
}

static void snapshot(uint32_t *snap)
{
	for (unsigned c = 0; c < ncpus; c++)
		snap[c] = (uint32_t)__atomic_load_n(&cpus[c].qs_count, __ATOMIC_ACQUIRE);
}

static void reclaim(void)
{
	static uint8_t traps[ARCH_TRAMP_SIZE];
	static bool traps_ready;
	if (!traps_ready) {
		arch_tramp_poison(traps, sizeof(traps));
		traps_ready = true;
	}
	bool poked = false;
	for (unsigned i = 0; i < nslots(); i++) {
		if (slot_state[i] != SLOT_RETIRED || !grace_over(retire_snap[i]))
			continue;
		arch_text_poke((void *)slot_addr(i), traps, ARCH_TRAMP_SIZE);
		slot_state[i] = SLOT_FREE;
		stats.retired--;
		stats.used--;
		stats.reclaimed++;
		poked = true;
	}
	if (poked)
		patch_sync_cores();
}

uintptr_t tramp_alloc(void)
{
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < nslots(); i++)
			if (slot_state[i] == SLOT_FREE) {
				slot_state[i] = SLOT_USED;
				stats.used++;
				return slot_addr(i);
			}
		reclaim();
	}
	return 0;
}

void tramp_write(uintptr_t slot, const void *code, size_t len)
{
	arch_text_poke((void *)slot, code, len);
	patch_sync_cores();
}

void tramp_free(uintptr_t slot)
{
	unsigned i = (unsigned)((slot - (uintptr_t)__tramp_pool_start) / ARCH_TRAMP_SIZE);
	if (i >= nslots() || slot_addr(i) != slot || slot_state[i] != SLOT_USED)
		panic("tramp_free(%lx): not an allocated trampoline", (unsigned long)slot);
	snapshot(retire_snap[i]);
	slot_state[i] = SLOT_RETIRED;
	stats.retired++;
}

void tramp_grace_period(void)
{
	uint32_t snap[MAX_CPUS];
	snapshot(snap);
	/* Ask every other CPU to schedule (a quiescent state even when it
	 * picks the same thread), then wait, yielding this CPU, and ask again
	 * now and then.  Bounded: a CPU that never schedules (a thread spinning
	 * with preemption off) is a bug elsewhere; report it rather than hang. */
	uint64_t now = clock_ns(), deadline = now + 5000000000ull, kick = 0;
	while (!grace_over(snap)) {
		if (now >= kick) {
			for (unsigned c = 0; c < ncpus; c++)
				if (c != cpu_id())
					smp_send(c, IPI_RESCHED);
			kick = now + 1000000;
		}
		thread_yield();
		arch_cpu_relax();
		now = clock_ns();
		if (now > deadline)
			panic("tramp_grace_period: a CPU passed no quiescent state in 5 s");
	}
}

void tramp_synchronize(void)
{
	tramp_grace_period();
	reclaim();
}

void tramp_get_stats(struct tramp_stats *out)
{
	*out = stats;
	out->slots = nslots();
}
