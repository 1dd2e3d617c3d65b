/*
 * insn.h — the few A64 instruction encodings the site and trampoline code
 * writes or checks (Arm ARM C6, "A64 base instructions").
 *
 * BL: 100101 imm26, target = its own address + SignExtend(imm26:'00'), so
 * a site reaches [pc - 128 MiB, pc + 128 MiB - 4].  B is the same with
 * opcode 000101.  BRK carries a 16-bit immediate that ESR_EL1.ISS reports.
 */
#ifndef ARM64_INSN_H
#define ARM64_INSN_H

#define INSN_NOP          0xd503201fu
#define INSN_MOV_X9_X30   0xaa1e03e9u        /* orr x9, xzr, x30 */
#define INSN_BL           0x94000000u
#define INSN_B            0x14000000u
#define INSN_BRK          0xd4200000u        /* | imm16 << 5 */
#define INSN_IMM26_MASK   0x03ffffffu
#define INSN_MOV_X30_X9   0xaa0903feu        /* orr x30, xzr, x9 */
#define INSN_RET          0xd65f03c0u
#define INSN_BR_X9        0xd61f0120u

/* Where the site's data word lies from the function (an 8-aligned
 * literal): before it with patchable entries, inside the entry sled with
 * XRay (patch.c draws both).  The list callers load it from x30 (func + 8)
 * + ARM64_SITE_DATA_OFF - 8. */
#ifdef BT_INSTR_XRAY
#define ARM64_SITE_DATA_OFF 16
#else
#define ARM64_SITE_DATA_OFF (-8)
#endif

/* brk immediate of the trampoline poison (pool fill and freed slots):
 * fault.c names it, so a late call into a freed trampoline says so. */
#define BRK_TRAMP_POISON  0x7ad
#define INSN_TRAMP_POISON (INSN_BRK | BRK_TRAMP_POISON << 5)

#ifndef __ASSEMBLY__
/* B/BL reach: a signed 26-bit word offset (site.h encodes it). */
#define BRANCH_RANGE      (128l << 20)
#endif

#endif
