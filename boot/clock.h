/*
 * clock.h — the monotonic clock in nanoseconds.
 *
 * clock_ns() converts arch_counter() with a multiplier fixed at boot from
 * arch_counter_hz(); it is callable from any context and never traced.
 */
#ifndef BOOT_CLOCK_H
#define BOOT_CLOCK_H

#include <stdint.h>

void clock_init(void);
uint64_t clock_ns(void);
uint64_t clock_cycles_to_ns(uint64_t cycles);
void clock_delay_ns(uint64_t ns);     /* busy wait */

#endif
