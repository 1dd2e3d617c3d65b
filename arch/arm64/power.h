/*
 * power.h — arm64 power helpers shared with the exception code.
 */
#ifndef ARM64_POWER_H
#define ARM64_POWER_H

/* Address of the semihosting trap instruction (power.c); fault.c skips it
 * when semihosting is disabled (it then raises an undefined instruction). */
extern const char arm64_semihost_trap[];

#endif
