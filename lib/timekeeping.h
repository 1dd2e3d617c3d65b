/*
 * timekeeping.h — the wall clock behind newlib's and POSIX's time calls
 * (lib/timekeeping.c: gettimeofday/time, clock_gettime/clock_getres/
 * clock_settime, times/clock, nanosleep/usleep/sleep).
 *
 * The wall clock is the machine's real-time clock read once at boot
 * (arch_rtc_seconds: to the second) carried forward by the monotonic
 * clock (boot/clock.h); without an RTC it counts from 0 at boot, and the
 * boot says so.  clock_settime(CLOCK_REALTIME) moves it; CLOCK_MONOTONIC
 * is clock_ns(), nanoseconds since boot, never set.
 */
#ifndef LIB_TIMEKEEPING_H
#define LIB_TIMEKEEPING_H

#include <stdint.h>

/* Boot CPU, once, in kernel_main after clock_init(). */
void timekeeping_init(void);

/* Nanoseconds since 1970-01-01 00:00 UTC; any context. */
int64_t wallclock_ns(void);

#endif
