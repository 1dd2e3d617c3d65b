/*
 * irq_probe.c — see irq_probe.h.  Built with patchable entries (a test
 * source): irq_probe_work and irq_probe_spin are traced functions.
 */
#include "tests/guest/irq_probe.h"

#include <stdint.h>

#include "boot/clock.h"
#include "boot/cpu.h"
#include "boot/irq.h"
#include "boot/smp.h"
#include "lib/noipa.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

static volatile int sink, hit, spinning;
static struct thread *probe_thread;

T int irq_probe_work(int x) { sink = x; return x + 100; }

/* The timer hook: acts only once irq_probe_spin is running (a tick between
 * setting the hook and the call would otherwise call at depth 0). */
static void probe(void)
{
	if (spinning && this_cpu()->current == probe_thread && !hit) {
		irq_probe_work(1);
		hit = 1;
	}
}

T int irq_probe_spin(void)
{
	uint64_t end = clock_ns() + 2000000000ull;
	spinning = 1;
	while (!hit && clock_ns() < end)
		KEEP();
	spinning = 0;
	return hit;
}

int irq_probe_run(struct thread *t)
{
	hit = spinning = 0;
	probe_thread = t;
	timer_hook_set(probe);
	int r = irq_probe_spin();
	timer_hook_set(NULL);
	smp_sync_all();               /* no CPU is left in probe() */
	return r;
}
