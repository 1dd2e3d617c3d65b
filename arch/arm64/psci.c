/*
 * psci.c — the PSCI conduit.
 *
 * SMC Calling Convention: function id in w0, arguments in x1..x3, result in
 * x0; x4..x17 may be clobbered by SMCCC v1.0 firmware, so they are listed as
 * clobbers.  Callable from any context; the firmware serialises itself.
 */
#include "psci.h"
#include "platform.h"

#define PSCI_CLOBBERS "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", \
	"x13", "x14", "x15", "x16", "x17", "memory"

int64_t psci_call(uint32_t fn, uint64_t a1, uint64_t a2, uint64_t a3)
{
	register uint64_t x0 __asm__("x0") = fn;
	register uint64_t x1 __asm__("x1") = a1;
	register uint64_t x2 __asm__("x2") = a2;
	register uint64_t x3 __asm__("x3") = a3;

	switch (platform.psci) {
	case PSCI_HVC:
		__asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) :: PSCI_CLOBBERS);
		break;
	case PSCI_SMC:
		__asm__ volatile("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) :: PSCI_CLOBBERS);
		break;
	default:
		return PSCI_NOT_SUPPORTED;
	}
	return (int32_t)x0;
}

const char *psci_strerror(int64_t rc)
{
	switch (rc) {
	case PSCI_SUCCESS:            return "success";
	case PSCI_NOT_SUPPORTED:      return "not supported";
	case PSCI_INVALID_PARAMETERS: return "invalid parameters";
	case PSCI_DENIED:             return "denied";
	case PSCI_ALREADY_ON:         return "already on";
	case PSCI_ON_PENDING:         return "on pending";
	case PSCI_INTERNAL_FAILURE:   return "internal failure";
	case PSCI_INVALID_ADDRESS:    return "invalid address";
	default:                      return "unknown error";
	}
}
