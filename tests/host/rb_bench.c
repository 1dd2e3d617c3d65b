/*
 * rb_bench.c — the ring buffer's cost on real hardware: the host CPU, the
 * ring buffer built for the host (rb_port_host.h), as `make bench` reports
 * it (tools/bench_rbhost.py).  Built twice (tests/host/Makefile):
 * rb_bench_atomic with the __atomic builtins everywhere, rb_bench_local
 * with the arch's CPU-local RMWs (RB_LOCAL_HEADER, x86-64: no LOCK prefix),
 * as the kernel has them.
 *
 *   rb_bench cycles [--events=N] [--rounds=N]
 *       one writer pinned to one CPU (sched_setaffinity), writing the
 *       function tracer's event (24 bytes) through the CPU's handle
 *       (rb_reserve_cb / rb_commit_nopreempt, the tracers' way) into an
 *       overwriting buffer; per round, time stamp counter cycles (rdtsc;
 *       CLOCK_MONOTONIC ns where there is none) over N events / N.
 *       Prints "rb_event_host_cycles MEDIAN MIN MAX" over the rounds.
 *   rb_bench scaling [--events=N] [--rounds=N]
 *       events per second of one such writer alone, then of two started
 *       together, pinned to two different CPUs, each writing its own CPU's
 *       buffer.  A writer's rate is its events over its own thread CPU time
 *       (CLOCK_THREAD_CPUTIME_ID), so that other processes on a loaded
 *       machine do not count; what the two cost each other while they run
 *       together (shared lines, the memory system) does.  Prints
 *       "rb_host_scaling_2cpu MEDIAN MIN MAX", the ratio two/one per round,
 *       and a comment line with the same by wall clock (the slower of the
 *       two ends it), which only an idle machine makes meaningful.
 *
 * The ring buffer's clock is the time stamp counter here too, as in the
 * kernel (x86-64: rdtsc), not CLOCK_MONOTONIC: a system call's worth of
 * clock would hide what is measured.  Exit status 0, or 1 with a message
 * (bad argument, fewer than two CPUs allowed for scaling, rb_create failed).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rb_host.h"

#define MAX_ROUNDS 101

static uint64_t ns_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time stamp counter where the compiler offers one, else nanoseconds. */
static uint64_t cycles_now(void)
{
#ifdef __x86_64__
	return __builtin_ia32_rdtsc();
#else
	return ns_now();
#endif
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void print_median(const char *name, double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf("%s %.3f %.3f %.3f\n", name, v[n / 2], v[0], v[n - 1]);
}

/* The n-th CPU (from 0) this process may run on, or -1. */
static int allowed_cpu(unsigned n)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && n-- == 0)
			return c;
	return -1;
}

static int pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static struct rb_buffer *B;
static uint64_t nevents = 1000000;

/* N events of the function tracer's size on this thread's CPU buffer. */
static __attribute__((noinline)) void write_events(struct rb_cpu *cb, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		struct rb_resv r;
		if (rb_reserve_cb(cb, 24, &r) == 0) {
			uint64_t *p = r.data;
			p[0] = i;
			p[1] = i ^ 0x5a5a;
			p[2] = 7;
			rb_commit_nopreempt(&r);
		}
	}
}

struct writer {
	unsigned cpu;          /* the simulated CPU: its buffer */
	int host_cpu;          /* where it runs */
	pthread_barrier_t *start;
	uint64_t ns;           /* elapsed, wall clock */
	uint64_t cpu_ns;       /* elapsed, this thread's CPU time */
};

static uint64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	rb_host_cpu = w->cpu;
	if (pin(w->host_cpu))
		perror("rb_bench: sched_setaffinity");
	struct rb_cpu *cb = rb_cpu_buffer(B, w->cpu);
	write_events(cb, nevents / 16);            /* warm up: pages, caches */
	pthread_barrier_wait(w->start);
	uint64_t t0 = ns_now(), c0 = thread_ns();
	write_events(cb, nevents);
	w->cpu_ns = thread_ns() - c0;
	w->ns = ns_now() - t0;
	return NULL;
}

/* Events per second of `n` writers (1 or 2) at once: by their CPU time
 * (returned) and by wall clock (*wall). */
static double throughput(unsigned n, const int *host_cpus, double *wall)
{
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, n);
	struct writer w[2];
	pthread_t th[2];
	for (unsigned i = 0; i < n; i++) {
		w[i] = (struct writer){ .cpu = i, .host_cpu = host_cpus[i], .start = &start };
		if (pthread_create(&th[i], NULL, writer_main, &w[i])) {
			fprintf(stderr, "rb_bench: pthread_create failed\n");
			exit(1);
		}
	}
	uint64_t slowest = 1;
	double rate = 0;
	for (unsigned i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		if (w[i].ns > slowest)
			slowest = w[i].ns;
		rate += (double)nevents * 1e9 / (double)(w[i].cpu_ns ? w[i].cpu_ns : 1);
	}
	pthread_barrier_destroy(&start);
	*wall = (double)n * (double)nevents * 1e9 / (double)slowest;
	return rate;
}

static uint64_t arg_num(const char *a, const char *name, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v = strtoull(a + strlen(name), &end, 10);
	if (*end || v < lo || v > hi) {
		fprintf(stderr, "rb_bench: %s wants a number in %llu..%llu\n", name,
			(unsigned long long)lo, (unsigned long long)hi);
		exit(1);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned rounds = 7;
	const char *mode = argc > 1 ? argv[1] : "";
	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "--events=", 9))
			nevents = arg_num(argv[i], "--events=", 1000, 1000000000);
		else if (!strncmp(argv[i], "--rounds=", 9))
			rounds = (unsigned)arg_num(argv[i], "--rounds=", 1, MAX_ROUNDS);
		else {
			fprintf(stderr, "rb_bench: unknown argument '%s'\n", argv[i]);
			return 1;
		}
	}
	bool scaling = !strcmp(mode, "scaling");
	if (!scaling && strcmp(mode, "cycles")) {
		fprintf(stderr, "usage: rb_bench cycles|scaling [--events=N] [--rounds=N]\n");
		return 1;
	}
	int cpus[2] = { allowed_cpu(0), allowed_cpu(1) };
	if (cpus[0] < 0 || (scaling && cpus[1] < 0)) {
		fprintf(stderr, "rb_bench: %s needs %d CPUs to run on\n", mode, scaling ? 2 : 1);
		return 1;
	}
	rb_host_set_clock(cycles_now);
	int err = rb_create(&B, 2, 64 * RB_DATA_SIZE, RB_FL_OVERWRITE, &rb_host_allocator);
	if (err) {
		fprintf(stderr, "rb_bench: rb_create: %s\n", rb_strerror(err));
		return 1;
	}
	double v[MAX_ROUNDS], vw[MAX_ROUNDS];
	if (scaling) {
		for (unsigned r = 0; r < rounds; r++) {
			double w1, w2;
			double one = throughput(1, cpus, &w1);
			v[r] = throughput(2, cpus, &w2) / one;
			vw[r] = w2 / w1;
		}
		printf("# wall clock: ");
		print_median("rb_host_scaling_2cpu", vw, rounds);
		print_median("rb_host_scaling_2cpu", v, rounds);
	} else {
		rb_host_cpu = 0;
		if (pin(cpus[0]))
			perror("rb_bench: sched_setaffinity");
		struct rb_cpu *cb = rb_cpu_buffer(B, 0);
		write_events(cb, nevents / 16);
		for (unsigned r = 0; r < rounds; r++) {
			uint64_t t0 = cycles_now();
			write_events(cb, nevents);
			v[r] = (double)(cycles_now() - t0) / (double)nevents;
		}
		print_median("rb_event_host_cycles", v, rounds);
	}
	return 0;
}
