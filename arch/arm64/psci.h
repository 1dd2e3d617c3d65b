/*
 * psci.h — calls into the PSCI firmware (QEMU's built-in one on virt).
 *
 * The conduit (hvc or smc) comes from the DTB's /psci method, recorded in
 * platform.psci.  Function ids are the SMC64 ones where a 64-bit form exists.
 */
#ifndef ARM64_PSCI_H
#define ARM64_PSCI_H

#include <stdint.h>

#define PSCI_VERSION        0x84000000u
#define PSCI_SYSTEM_OFF     0x84000008u
#define PSCI_CPU_ON_64      0xc4000003u

/* Return codes (int32 in x0). */
#define PSCI_SUCCESS             0
#define PSCI_NOT_SUPPORTED      -1
#define PSCI_INVALID_PARAMETERS -2
#define PSCI_DENIED             -3
#define PSCI_ALREADY_ON         -4
#define PSCI_ON_PENDING         -5
#define PSCI_INTERNAL_FAILURE   -6
#define PSCI_INVALID_ADDRESS    -9

/* Make the call with the DTB's conduit; PSCI_NOT_SUPPORTED if there is none. */
int64_t psci_call(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3);

/* Readable name of a PSCI return code. */
const char *psci_strerror(int64_t rc);

#endif
