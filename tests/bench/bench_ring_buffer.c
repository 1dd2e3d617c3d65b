/*
 * bench_ring_buffer.c — ring-buffer figures (issue 3).
 *
 *   rb_event        guest instructions per reserve + 24-byte fill +
 *                         commit on one CPU (run under -icount shift=0:
 *                         ICOUNT=1, one CPU)
 *   rb_event_nopreempt  the same with rb_reserve_nopreempt/rb_commit_nopreempt
 *                         (a caller that holds preemption off, as the
 *                         function tracer does)
 *   rb_event_handle     the same by the CPU's buffer handle (rb_cpu_buffer,
 *                         rb_reserve_cb), as the tracers write: what one
 *                         event costs them
 *   rb_events_per_s_cpus1  events per second, writers on 1 CPU   (multi-threaded
 *   rb_events_per_s_cpus2  events per second, writers on 2 CPUs   TCG, wall time)
 *   rb_scaling_2cpu       the second over the first (2.00 = linear)
 *   rb_scaling_2cpu_baseline  the same for an empty loop: what TCG on this
 *                         host gives at best
 *   clock_scaling_2cpu    the same for arch_counter() reads alone: every event
 *                         reads the clock, and under multi-threaded TCG the
 *                         emulated counter does not scale (QEMU 7.2: ~10% on
 *                         x86-64, ~30% on arm64 here), which bounds the above
 *
 * Needs trace/ring_buffer/ring_buffer.c, rb_setup.c, rb_read.c, rb_event.c in the kernel.
 */
#include <stdlib.h>

#include "boot/bench.h"
#include "boot/clock.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "trace/ring_buffer/ring_buffer.h"
#include "trace/trace.h"

#define EVENTS_PER_ROUND 1000
#define THROUGHPUT_NS    300000000ull


static struct rb_buffer *brb;

/* How an event is written: the generic API, without the preemption count,
 * or by the CPU's handle (the tracers' way). */
enum how { GENERIC, NOPREEMPT, HANDLE };

/* The event a function tracer writes: ip, parent ip, and a word of flags.
 * Inline, with `how` a constant: each loop below is its own straight code. */
static inline __attribute__((always_inline)) void one_event(uint64_t i, enum how how,
							    struct rb_cpu *cb)
{
	struct rb_resv r;
	int err = how == GENERIC ? rb_reserve(brb, 24, &r) :
		  how == NOPREEMPT ? rb_reserve_nopreempt(brb, 24, &r) : rb_reserve_cb(cb, 24, &r);
	if (err == 0) {
		uint64_t *p = r.data;
		p[0] = i;
		p[1] = i ^ 0x5a5a;
		p[2] = 7;
		if (how == GENERIC)
			rb_commit(&r);
		else
			rb_commit_nopreempt(&r);
	}
}

static void events(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < EVENTS_PER_ROUND; i++)
		one_event(i, GENERIC, NULL);
}

static void events_nopreempt(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < EVENTS_PER_ROUND; i++)
		one_event(i, NOPREEMPT, NULL);
}

static void events_handle(void *arg)
{
	struct rb_cpu *cb = rb_cpu_buffer(brb, cpu_id());    /* preemption is off */
	for (uint64_t i = 0; i < EVENTS_PER_ROUND; i++)
		one_event(i, HANDLE, cb);
}

static void empty(void *arg)
{
	for (uint64_t i = 0; i < EVENTS_PER_ROUND; i++)
		__asm__ volatile("" : : "r"(i), "r"(arg) : "memory");
}

BENCH_CASE(rb_event_cost)
{
	if (rb_create(&brb, ncpus, 64 * RB_DATA_SIZE, RB_FL_OVERWRITE, &rb_kernel_allocator)) {
		bench_print_na("rb_event", "insns", "rb_create failed");
		return;
	}
	preempt_disable();
	events(0);                          /* warm the pages */
	struct bench_result r = bench_measure(events, 0);
	struct bench_result n = bench_measure(events_nopreempt, 0);
	struct bench_result h = bench_measure(events_handle, 0);
	struct bench_result e = bench_measure(empty, 0);
	preempt_enable();
	/* One baseline for all four, so min <= median <= max still holds. */
	r.median -= e.median;
	r.min -= e.median;
	r.max -= e.median;
	n.median -= e.median;
	n.min -= e.median;
	n.max -= e.median;
	h.median -= e.median;
	h.min -= e.median;
	h.max -= e.median;
	bench_print("rb_event", r, EVENTS_PER_ROUND, "insns");
	bench_print("rb_event_nopreempt", n, EVENTS_PER_ROUND, "insns");
	bench_print("rb_event_handle", h, EVENTS_PER_ROUND, "insns");
	rb_record_off(brb);
	rb_destroy(brb);
}

static volatile bool tp_go, tp_stop;
static uint64_t tp_count[MAX_CPUS];

static int tp_baseline;            /* 1: empty loop, 2: clock reads only */

static int tp_writer(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	uint64_t n = 0;
	while (!tp_go)
		;
	preempt_disable();
	while (!tp_stop) {
		for (unsigned k = 0; k < 64; k++) {
			if (tp_baseline == 2)
				__asm__ volatile("" : : "r"(arch_counter()) : "memory");
			else if (tp_baseline)
				__asm__ volatile("" : : "r"(n + k) : "memory");
			else
				one_event(n + k, GENERIC, NULL);
		}
		n += 64;
	}
	preempt_enable();
	tp_count[cpu] = n;
	return 0;
}

static uint64_t throughput(unsigned writers)
{
	struct thread *t[MAX_CPUS];
	tp_go = tp_stop = false;
	for (unsigned i = 0; i < writers; i++) {
		tp_count[i + 1] = 0;
		t[i] = thread_create("rb-bench", tp_writer, (void *)(uintptr_t)(i + 1), (int)(i + 1));
	}
	tp_go = true;
	uint64_t t0 = clock_ns();
	thread_sleep_ns(THROUGHPUT_NS);
	tp_stop = true;
	uint64_t ns = clock_ns() - t0, total = 0;
	for (unsigned i = 0; i < writers; i++) {
		thread_join(t[i]);
		total += tp_count[i + 1];
	}
	return total * 1000000000ull / ns;
}

BENCH_CASE(rb_throughput)
{
	if (ncpus < 3) {
		bench_print_na("rb_events_per_s_cpus2", "events_per_s", "needs 3 CPUs (writers on 1 and 2)");
		return;
	}
	if (rb_create(&brb, ncpus, 64 * RB_DATA_SIZE, RB_FL_OVERWRITE, &rb_kernel_allocator)) {
		bench_print_na("rb_events_per_s_cpus1", "events_per_s", "rb_create failed");
		return;
	}
	/* Rounds alternate 1 and 2 writers so drift in host load hits both. */
	uint64_t one[BENCH_ROUNDS], two[BENCH_ROUNDS], sc[BENCH_ROUNDS];
	for (int r = 0; r < BENCH_ROUNDS; r++) {
		one[r] = throughput(1);
		two[r] = throughput(2);
		sc[r] = two[r] * 100 / one[r];
	}
	tp_baseline = 1;
	uint64_t b1 = throughput(1), b2 = throughput(2);
	tp_baseline = 2;
	uint64_t c1 = throughput(1), c2 = throughput(2);
	tp_baseline = 0;
	struct bench_result cs = { c2 * 100 / c1, c2 * 100 / c1, c2 * 100 / c1 };
	struct bench_result bs = { b2 * 100 / b1, b2 * 100 / b1, b2 * 100 / b1 };
	bench_print("rb_events_per_s_cpus1", bench_summarise(one, BENCH_ROUNDS), 1, "events_per_s");
	bench_print("rb_events_per_s_cpus2", bench_summarise(two, BENCH_ROUNDS), 1, "events_per_s");
	bench_print("rb_scaling_2cpu", bench_summarise(sc, BENCH_ROUNDS), 100, "ratio");
	bench_print("rb_scaling_2cpu_empty_loop", bs, 100, "ratio");
	bench_print("clock_scaling_2cpu", cs, 100, "ratio");
	rb_record_off(brb);
	rb_destroy(brb);
}
