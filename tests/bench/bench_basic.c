/*
 * bench_basic.c — figures that need no tracer: boot time and the demo's
 * work per lookup (built with and without patchable entries, tools/bench.py
 * divides the two for site_disabled_ratio).
 */
#include "boot/bench.h"
#include "boot/clock.h"
#include "boot/main.h"
#include "demo/vfs.h"

#define LOOKUPS 2000

static void lookups(void *arg)
{
	*(long *)arg += demo_lookups(LOOKUPS);
}

/* Guest instructions (ns under icount) per 1000 demo lookups. */
BENCH_CASE(demo_work)
{
	long sink = 0;
	struct bench_result r = bench_measure(lookups, &sink);
	r.median = r.median * 1000 / LOOKUPS;
	r.min = r.min * 1000 / LOOKUPS;
	r.max = r.max * 1000 / LOOKUPS;
	bench_print("demo_work_per_1k_lookups", r, 1, "insns");
}

/* Guest time from reset to here (the workload would start now). */
BENCH_CASE(boot_ms)
{
	uint64_t ns = clock_ns();
	struct bench_result r = { ns / 1000, ns / 1000, ns / 1000 };
	bench_print("boot_ms", r, 1000, "ms");
}
