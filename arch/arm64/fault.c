/*
 * fault.c — synchronous exceptions and trap-frame helpers.
 *
 * arm64_sync_handler() is called by vectors.S for every synchronous
 * exception taken at EL1.  It resolves what it can itself (the semihosting
 * probe in power.c), otherwise decodes ESR_EL1 into a struct fault_info and
 * calls fault_handle(); if that returns, the frame was redirected and the
 * exception return resumes wherever the frame now says.  IRQs stay masked
 * throughout; irq_enter() is not called for synchronous faults.
 *
 * arm64_bad_exception() handles the vectors that must never fire (SP_EL0
 * forms, lower ELs, FIQ, SError).
 *
 * arm64_overflow_handler() is called, on the CPU's exception stack, for an
 * exception whose trap frame would have gone into a stack's guard
 * (vectors.S): a kernel stack overflow, reported by fault_handle().
 */
#include "boot/console.h"
#include "boot/fault.h"
#include "boot/panic.h"
#include "boot/stack.h"
#include "boot/cpu.h"
#include "insn.h"
#include "power.h"
#include "sysreg.h"

void arm64_sync_handler(struct trap_frame *tf);
void arm64_bad_exception(struct trap_frame *tf, unsigned vector);
void arm64_overflow_handler(struct trap_frame *tf, unsigned vector);

/* Abort fault status codes (ISS.xFSC), grouped for a readable name. */
enum abort_class {
	AB_ADDR_SIZE, AB_TRANSLATION, AB_ACCESS_FLAG, AB_PERMISSION,
	AB_EXTERNAL, AB_ALIGNMENT, AB_TLB_CONFLICT, AB_OTHER, AB_NCLASS
};

static const char *const abort_names[2][AB_NCLASS] = {
	{ "data abort: address size fault", "data abort: translation fault",
	  "data abort: access flag fault", "data abort: permission fault",
	  "data abort: external abort", "data abort: alignment fault",
	  "data abort: TLB conflict", "data abort" },
	{ "instruction abort: address size fault", "instruction abort: translation fault",
	  "instruction abort: access flag fault", "instruction abort: permission fault",
	  "instruction abort: external abort", "instruction abort: alignment fault",
	  "instruction abort: TLB conflict", "instruction abort" },
};

#define FSC_ALIGNMENT 0x21

static enum abort_class abort_class(uint32_t fsc)
{
	if (fsc == FSC_ALIGNMENT)
		return AB_ALIGNMENT;
	if (fsc == 0x30)
		return AB_TLB_CONFLICT;
	switch (fsc & 0x3c) {
	case 0x00: return AB_ADDR_SIZE;
	case 0x04: return AB_TRANSLATION;
	case 0x08: return AB_ACCESS_FLAG;
	case 0x0c: return AB_PERMISSION;
	case 0x10: case 0x14: case 0x18: case 0x1c: return AB_EXTERNAL;
	default:   return AB_OTHER;
	}
}

/* ESR names for the exceptions that are not aborts. */
static void decode_other(uint32_t ec, struct fault_info *fi)
{
	fi->kind = FAULT_OTHER;
	switch (ec) {
	case EC_UNKNOWN:   fi->kind = FAULT_UNDEF; fi->what = "undefined instruction"; break;
	case EC_BRK64:     fi->kind = FAULT_UNDEF; fi->what = "brk instruction"; break;
	case EC_SYSREG:    fi->kind = FAULT_UNDEF; fi->what = "trapped system register access"; break;
	case EC_SVC64:     fi->kind = FAULT_UNDEF; fi->what = "svc instruction"; break;
	case EC_ILLEGAL:   fi->kind = FAULT_UNDEF; fi->what = "illegal execution state"; break;
	case EC_HVC64:     fi->what = "hvc trapped"; break;
	case EC_SMC64:     fi->what = "smc trapped"; break;
	case EC_WFX:       fi->what = "wfi/wfe trapped"; break;
	case EC_FP_ACCESS: fi->what = "FP/SIMD access trapped"; break;
	case EC_FP_EXC64:  fi->what = "floating-point exception"; break;
	case EC_PC_ALIGN:  fi->what = "PC alignment fault"; break;
	case EC_SP_ALIGN:  fi->what = "SP alignment fault"; break;
	case EC_SERROR:    fi->what = "SError"; break;
	case EC_BKPT_CUR: case EC_BKPT_LOW:   fi->what = "hardware breakpoint"; break;
	case EC_STEP_CUR: case EC_STEP_LOW:   fi->what = "software step"; break;
	case EC_WATCH_CUR: case EC_WATCH_LOW: fi->what = "watchpoint"; break;
	default:           fi->what = "unexpected synchronous exception"; break;
	}
}

static void decode(const struct trap_frame *tf, struct fault_info *fi)
{
	uint32_t esr = (uint32_t)tf->esr, ec = esr >> ESR_EC_SHIFT, fsc = esr & ESR_ISS_FSC;
	int far_valid = !(esr & ESR_ISS_FNV);

	fi->pc = tf->elr;
	fi->addr = tf->elr;
	fi->code = tf->esr;
	switch (ec) {
	case EC_DABT_CUR: case EC_DABT_LOW:
		fi->addr = far_valid ? tf->far : 0;
		fi->what = abort_names[0][abort_class(fsc)];
		if (fsc == FSC_ALIGNMENT)
			fi->kind = FAULT_OTHER;
		else
			fi->kind = (esr & ESR_ISS_WNR) ? FAULT_WRITE : FAULT_READ;
		break;
	case EC_IABT_CUR: case EC_IABT_LOW:
		fi->addr = far_valid ? tf->far : tf->elr;
		fi->what = abort_names[1][abort_class(fsc)];
		fi->kind = FAULT_EXEC;
		break;
	default:
		decode_other(ec, fi);
		if (ec == EC_BRK64 && (esr & 0xffff) == BRK_TRAMP_POISON)
			fi->what = "trampoline trap fill executed (freed or unused pool slot)";
		break;
	}
}

void arm64_sync_handler(struct trap_frame *tf)
{
	uint32_t ec = (uint32_t)tf->esr >> ESR_EC_SHIFT;

	/* Semihosting is off: the probe in power.c reports failure. */
	if (ec == EC_UNKNOWN && tf->elr == (uintptr_t)arm64_semihost_trap) {
		tf->x[0] = (uint64_t)-1;
		tf->elr += 4;
		return;
	}

	struct fault_info fi;
	decode(tf, &fi);
	fault_handle(&fi, tf);
}

/* vectors.S numbers its 16 entries 0..15 in table order. */
void arm64_bad_exception(struct trap_frame *tf, unsigned vector)
{
	static const char *const names[16] = {
		"sync exception with SP_EL0", "IRQ with SP_EL0", "FIQ with SP_EL0", "SError with SP_EL0",
		"sync exception", "IRQ", "FIQ", "SError",
		"sync exception from EL0", "IRQ from EL0", "FIQ from EL0", "SError from EL0",
		"sync exception from AArch32", "IRQ from AArch32", "FIQ from AArch32",
		"SError from AArch32",
	};
	struct fault_info fi = {
		.kind = FAULT_OTHER,
		.what = vector < 16 ? names[vector] : "bad vector",
		.pc = tf->elr,
		.addr = tf->far,
		.code = tf->esr,
	};
	fault_handle(&fi, tf);
}

/*
 * The fault address of the report: an abort's own address when it is in
 * the guard (the access that overflowed), else where the entry would have
 * stored the frame (an interrupt, or an abort elsewhere, taken with the
 * stack too full for its frame).  Only vectors.S's check sends an SP
 * outside every stack here (bit STACK_SHIFT clear but no guard): no code
 * runs on such a stack, so that is a broken invariant.
 */
void arm64_overflow_handler(struct trap_frame *tf, unsigned vector)
{
	struct fault_info fi;
	uintptr_t frame = tf->sp - TF_SIZE;
	if (vector == 4) {
		decode(tf, &fi);
	} else {
		fi = (struct fault_info){ .kind = FAULT_OTHER, .what = vector == 5 ? "IRQ" :
					  "unexpected exception", .pc = tf->elr };
		fi.code = vector;
	}
	if (!(vector == 4 && stack_guard_hit(fi.addr))) {
		fi.addr = frame;
		fi.kind = FAULT_WRITE;        /* the frame's store */
	}
	if (!stack_guard_hit(fi.addr))
		panic("exception (vector %u) taken with SP %016lx outside every stack",
		      vector, (unsigned long)tf->sp);
	fault_handle(&fi, tf);            /* a guard hit: never returns */
	panic("stack overflow report returned");
}

/* ---- Trap-frame hooks (arch/hooks.h) ------------------------------------- */

uintptr_t arch_frame_pc(const struct trap_frame *tf)
{
	return tf->elr;
}

uintptr_t arch_frame_fp(const struct trap_frame *tf)
{
	return tf->x[29];
}

void arch_frame_redirect(struct trap_frame *tf, void (*fn)(void))
{
	/* AAPCS64 has no red zone: nothing live is below the faulting SP.  The
	 * 256-byte margin is the contract's; the new SP may fall inside this
	 * trap frame, which is dead once the exception return has read it.
	 * x30 = the faulting PC, so a backtrace from fn shows where it came
	 * from; x29 keeps the faulting code's chain; SPSR (and so the IRQ
	 * mask) is untouched. */
	tf->sp = (tf->sp - 256) & ~15ull;
	tf->x[30] = tf->elr;
	tf->elr = (uintptr_t)fn;
}

void arch_dump_frame(const struct trap_frame *tf)
{
	for (unsigned i = 0; i < 30; i += 3)
		kprintf(" x%-2u %016lx  x%-2u %016lx  x%-2u %016lx\n", i, tf->x[i], i + 1,
			tf->x[i + 1], i + 2, tf->x[i + 2]);
	kprintf(" x30 %016lx  sp  %016lx  pc  %016lx\n", tf->x[30], tf->sp, tf->elr);
	kprintf(" pstate %08lx  esr %08lx  far %016lx  fpcr %08lx  fpsr %08lx\n",
		tf->spsr, tf->esr, tf->far, tf->fpcr, tf->fpsr);
	for (unsigned i = 0; i < 32; i += 2)
		kprintf(" q%-2u %016lx%016lx  q%-2u %016lx%016lx\n", i, tf->q[i][1], tf->q[i][0],
			i + 1, tf->q[i + 1][1], tf->q[i + 1][0]);
}
