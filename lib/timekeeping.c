/*
 * timekeeping.c — the time calls newlib and POSIX programs make
 * (lib/timekeeping.h for the clocks behind them).
 *
 * CLOCKS_PER_SEC is newlib's per arch (arm64 100, x86-64 1000): times()
 * and clock() count in it.  No per-thread CPU time is kept, so times()
 * reports the time since the workload (the APP) started as its user time
 * and 0 system time; clock() is their sum.
 */
/* The POSIX options the APP is built with (Makefile, LIBC_CPPFLAGS):
 * newlib's <time.h> declares the clock_* calls only under them. */
#ifndef _POSIX_TIMERS
#define _POSIX_TIMERS 200809L
#define _POSIX_MONOTONIC_CLOCK 200809L
#endif
#include <errno.h>
#include <stddef.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#include "arch/hooks.h"
#include "boot/clock.h"
#include "boot/console.h"
#include "boot/main.h"
#include "boot/sched.h"
#include "lib/timekeeping.h"

#define NS 1000000000LL

/* Wall clock minus clock_ns(): set by timekeeping_init (boot CPU, before
 * other CPUs run) and clock_settime; read anywhere (relaxed: one word). */
static int64_t wall_offset_ns;

void timekeeping_init(void)
{
	int64_t rtc = arch_rtc_seconds();
	if (rtc < 0) {
		kprintf("time: no real-time clock: the wall clock counts from 0 at boot\n");
		rtc = 0;
	}
	__atomic_store_n(&wall_offset_ns, rtc * NS - (int64_t)clock_ns(), __ATOMIC_RELAXED);
}

int64_t wallclock_ns(void)
{
	return __atomic_load_n(&wall_offset_ns, __ATOMIC_RELAXED) + (int64_t)clock_ns();
}

static void to_timespec(int64_t ns, struct timespec *ts)
{
	ts->tv_sec = ns / NS;
	ts->tv_nsec = ns % NS;
}

int _gettimeofday(struct timeval *tv, void *tz)
{
	int64_t ns = wallclock_ns();
	if (tv) {
		tv->tv_sec = ns / NS;
		tv->tv_usec = ns % NS / 1000;
	}
	if (tz) {                         /* struct timezone: UTC, no DST */
		((int *)tz)[0] = 0;
		((int *)tz)[1] = 0;
	}
	return 0;
}
int gettimeofday(struct timeval *tv, void *tz) __attribute__((alias("_gettimeofday")));

/* CLOCK_REALTIME and CLOCK_MONOTONIC; any other clock is EINVAL. */
int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (id == CLOCK_REALTIME)
		to_timespec(wallclock_ns(), ts);
	else if (id == CLOCK_MONOTONIC)
		to_timespec((int64_t)clock_ns(), ts);
	else {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* One tick of the counter behind both clocks, rounded up to a nanosecond. */
int clock_getres(clockid_t id, struct timespec *res)
{
	if (id != CLOCK_REALTIME && id != CLOCK_MONOTONIC) {
		errno = EINVAL;
		return -1;
	}
	if (res) {
		uint64_t hz = arch_counter_hz();
		to_timespec(hz >= (uint64_t)NS ? 1 : (int64_t)((NS + hz - 1) / hz), res);
	}
	return 0;
}

/* Only CLOCK_REALTIME can be set (EINVAL otherwise, or for a bad tv_nsec). */
int clock_settime(clockid_t id, const struct timespec *ts)
{
	if (id != CLOCK_REALTIME || ts->tv_nsec < 0 || ts->tv_nsec >= NS || ts->tv_sec < 0) {
		errno = EINVAL;
		return -1;
	}
	int64_t ns = (int64_t)ts->tv_sec * NS + ts->tv_nsec;
	__atomic_store_n(&wall_offset_ns, ns - (int64_t)clock_ns(), __ATOMIC_RELAXED);
	return 0;
}

static clock_t ticks(uint64_t ns) { return (clock_t)(ns / (NS / CLOCKS_PER_SEC)); }

/* Ticks since boot; user time: since the workload started (see above). */
clock_t _times(struct tms *t)
{
	uint64_t now = clock_ns();
	if (t) {
		t->tms_utime = workload_start_ns ? ticks(now - workload_start_ns) : 0;
		t->tms_stime = t->tms_cutime = t->tms_cstime = 0;
	}
	return ticks(now);
}
clock_t times(struct tms *t) __attribute__((alias("_times")));

/* Sleeps the calling thread (thread context, preemption enabled); never
 * interrupted, so *rem is always 0. */
int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= NS) {
		errno = EINVAL;
		return -1;
	}
	thread_sleep_ns((uint64_t)req->tv_sec * NS + (uint64_t)req->tv_nsec);
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return 0;
}

int usleep(useconds_t us)
{
	thread_sleep_ns((uint64_t)us * 1000);
	return 0;
}

unsigned sleep(unsigned s)
{
	thread_sleep_ns((uint64_t)s * NS);
	return 0;
}
