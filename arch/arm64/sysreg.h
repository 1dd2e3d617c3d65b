/*
 * sysreg.h — arm64 system-register access and the bit values baretrace uses.
 *
 * Constants are plain integer expressions so that assembly files can use them
 * too; the accessors are C only.  Only the bits the kernel actually sets or
 * tests are named; see the Arm ARM for the rest.
 */
#ifndef ARM64_SYSREG_H
#define ARM64_SYSREG_H

/* SCTLR_EL1 */
#define SCTLR_M        (1 << 0)     /* stage-1 MMU */
#define SCTLR_C        (1 << 2)     /* data cacheability */
#define SCTLR_SA       (1 << 3)     /* SP alignment check at EL1 */
#define SCTLR_SA0      (1 << 4)
#define SCTLR_I        (1 << 12)    /* instruction cacheability */
#define SCTLR_WXN      (1 << 19)    /* writable implies execute-never */
/* Bits that are RES1 in Armv8.0 (11, 20, 22, 23, 28, 29). */
#define SCTLR_RES1     ((1 << 11) | (1 << 20) | (1 << 22) | (1 << 23) | (1 << 28) | (1 << 29))

/* CPACR_EL1: FPEN = 0b11, no FP/SIMD traps at EL1/EL0. */
#define CPACR_FPEN     (3 << 20)

/* SPSR value for entering EL1h with D, A, I, F masked. */
#define SPSR_EL1H_MASKED 0x3c5

/* HCR_EL2.RW: EL1 is AArch64.  CNTHCTL_EL2: EL1PCTEN | EL1PCEN. */
#define HCR_RW         (1 << 31)
#define CNTHCTL_EL1_ACCESS 3
/* CPTR_EL2 with its RES1 bits (13:12, 9:0) and TFP (bit 10) clear. */
#define CPTR_EL2_NOTRAP 0x33ff

/* ESR_ELx exception classes (bits 31:26) that fault.c tells apart. */
#define EC_UNKNOWN     0x00
#define EC_WFX         0x01
#define EC_FP_ACCESS   0x07
#define EC_ILLEGAL     0x0e
#define EC_SVC64       0x15
#define EC_HVC64       0x16
#define EC_SMC64       0x17
#define EC_SYSREG      0x18
#define EC_IABT_LOW    0x20
#define EC_IABT_CUR    0x21
#define EC_PC_ALIGN    0x22
#define EC_DABT_LOW    0x24
#define EC_DABT_CUR    0x25
#define EC_SP_ALIGN    0x26
#define EC_FP_EXC64    0x2c
#define EC_SERROR      0x2f
#define EC_BKPT_LOW    0x30
#define EC_BKPT_CUR    0x31
#define EC_STEP_LOW    0x32
#define EC_STEP_CUR    0x33
#define EC_WATCH_LOW   0x34
#define EC_WATCH_CUR   0x35
#define EC_BRK64       0x3c

#define ESR_EC_SHIFT   26
#define ESR_ISS_WNR    (1 << 6)     /* data abort: write */
#define ESR_ISS_FNV    (1 << 10)    /* abort: FAR not valid */
#define ESR_ISS_FSC    0x3f         /* abort: fault status code */

#ifndef __ASSEMBLY__
#include <stdint.h>

#define read_sysreg(reg) ({                                              \
	uint64_t __v;                                                    \
	__asm__ volatile("mrs %0, " #reg : "=r"(__v) :: "memory");       \
	__v; })

#define write_sysreg(reg, val) do {                                      \
	uint64_t __v = (uint64_t)(val);                                  \
	__asm__ volatile("msr " #reg ", %0" :: "r"(__v) : "memory");     \
} while (0)

static inline __attribute__((always_inline)) void isb(void)
{
	__asm__ volatile("isb" ::: "memory");
}

/* Let SErrors (asynchronous aborts) be reported: they go to the bad-vector
 * path (fault.c).  Once per CPU, after the MMU and vectors are up. */
static inline __attribute__((always_inline)) void serror_unmask(void)
{
	__asm__ volatile("msr daifclr, #4" ::: "memory");
}

/* MPIDR_EL1 affinity fields Aff3 (39:32) and Aff2..Aff0 (23:0): the hwid. */
#define MPIDR_AFF_MASK 0xff00ffffffull

static inline __attribute__((always_inline)) uint64_t this_mpidr(void)
{
	return read_sysreg(mpidr_el1) & MPIDR_AFF_MASK;
}
#endif

#endif
