/*
 * trap.c — what happens after vectors.S has built a trap frame.
 *
 * x86_trap(tf) dispatches on tf->vector:
 *   exceptions 0-31   -> struct fault_info -> fault_handle(); a double fault
 *                        (IST stack) is a kernel stack overflow if CR2 is in
 *                        a stack's guard (reported by fault_handle), else
 *                        (frame unreliable) panics at once; a
 *                        breakpoint at an in-flight patch site is emulated
 *                        (patch.c) instead;
 *   VEC_TIMER, VEC_IPI, VEC_UART
 *                     -> irq_enter(); handler; EOI; irq_exit()  (EOI first:
 *                        irq_exit may switch threads for a long time);
 *   VEC_SPURIOUS      -> nothing (the LAPIC wants no EOI for it);
 *   8259 vectors      -> counted and ignored (masked PIC's spurious IRQ 7/15);
 *   anything else     -> panic: nothing else is ever routed.
 * Synchronous faults never call irq_enter().
 *
 * Also the frame hooks of arch/hooks.h: arch_dump_frame, arch_frame_pc/fp,
 * arch_frame_redirect.
 */
#include <stddef.h>
#include <string.h>

#include "arch/x86_64/x86.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/fault.h"
#include "boot/irq.h"
#include "boot/ksyms.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/stack.h"
#include "patch/tramp.h"

_Static_assert(offsetof(struct trap_frame, link_rbp) == TF_LINK_RBP, "TF_LINK_RBP");
_Static_assert(offsetof(struct trap_frame, link_rip) == TF_LINK_RIP, "TF_LINK_RIP");
_Static_assert(offsetof(struct trap_frame, fx) == TF_FX, "TF_FX");
_Static_assert(offsetof(struct trap_frame, r15) == TF_R15, "TF_R15");
_Static_assert(offsetof(struct trap_frame, rbp) == TF_RBP, "TF_RBP");
_Static_assert(offsetof(struct trap_frame, rax) == TF_RAX, "TF_RAX");
_Static_assert(offsetof(struct trap_frame, vector) == TF_VECTOR, "TF_VECTOR");
_Static_assert(offsetof(struct trap_frame, error) == TF_ERROR, "TF_ERROR");
_Static_assert(offsetof(struct trap_frame, rip) == TF_RIP, "TF_RIP");
_Static_assert(offsetof(struct trap_frame, cs) == TF_CS, "TF_CS");
_Static_assert(offsetof(struct trap_frame, rflags) == TF_RFLAGS, "TF_RFLAGS");
_Static_assert(offsetof(struct trap_frame, rsp) == TF_RSP, "TF_RSP");
_Static_assert(offsetof(struct trap_frame, ss) == TF_SS, "TF_SS");
_Static_assert(sizeof(struct trap_frame) == TF_SIZE && TF_SIZE % 16 == 0, "TF_SIZE");

static const char *const exc_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow", "bound range",
	"invalid opcode", "device not available", "double fault",
	"coprocessor segment overrun", "invalid TSS", "segment not present",
	"stack fault", "general protection", "page fault", "reserved 15",
	"x87 floating point", "alignment check", "machine check",
	"SIMD floating point", "virtualization", "control protection",
	"reserved 22", "reserved 23", "reserved 24", "reserved 25", "reserved 26",
	"reserved 27", "hypervisor injection", "VMM communication", "security",
	"reserved 31",
};

#define PF_PRESENT (1u << 0)
#define PF_WRITE   (1u << 1)
#define PF_FETCH   (1u << 4)

static unsigned long pic_spurious;    /* racy count, diagnostics only */

/*
 * #BP, on its IST stack (cpu.c).  The live-patching protocol claims the
 * int3s of in-flight sites first (patch.c); any other int3 is a fault at
 * rip - 1 (int3 is a trap: rip is past the 1-byte instruction).  A #BP
 * taken while this handler runs would have reused the IST stack and
 * overwritten the outer frame: nothing to return to, so panic.
 */
static void breakpoint(struct fault_info *fi, struct trap_frame *tf)
{
	struct x86_cpu *xc = this_cpu()->arch;
	if (xc->bp_depth++ != 0)
		panic("breakpoint inside the breakpoint handler at rip %016lx",
		      (unsigned long)tf->rip);
	if (!x86_bp_inflight(tf)) {
		fi->kind = FAULT_UNDEF;
		fi->pc = tf->rip - 1;
		/* The pool's only int3s are its trap fill (tramp.c): templates
		 * hold none. */
		if (fi->pc >= (uintptr_t)__tramp_pool_start && fi->pc < (uintptr_t)__tramp_pool_end)
			fi->what = "trampoline trap fill executed (freed or unused pool slot)";
		fault_handle(fi, tf);
	}
	xc->bp_depth--;
}

static void exception(struct trap_frame *tf)
{
	unsigned v = (unsigned)tf->vector;
	struct fault_info fi = {
		.kind = FAULT_OTHER, .what = exc_names[v], .pc = tf->rip, .addr = 0,
		.code = tf->error,
	};

	switch (v) {
	case 14:
		fi.addr = read_cr2();
		fi.kind = (tf->error & PF_FETCH) ? FAULT_EXEC :
			  (tf->error & PF_WRITE) ? FAULT_WRITE : FAULT_READ;
		break;
	case 6:
		fi.kind = FAULT_UNDEF;
		break;
	case 3:
		breakpoint(&fi, tf);
		return;
	case 8:
		/* An exception could not be delivered.  A kernel stack
		 * overflow ends here: the #PF of an access to a stack's
		 * guard (boot/stack.h) pushes its own frame into the guard
		 * again.  CR2 then holds an address in the guard, and
		 * fault_handle reports the overflow from this IST stack
		 * (the thread's stack is full, its frames intact). */
		fi.addr = read_cr2();
		if (stack_guard_hit(fi.addr)) {
			fi.kind = FAULT_WRITE;    /* the frame push */
			break;
		}
		/* Anything else: the interrupted state is not trustworthy;
		 * report and stop. */
		kprintf("\ndouble fault on CPU %u at rip %016lx rsp %016lx\n", cpu_id(),
			(unsigned long)tf->rip, (unsigned long)tf->rsp);
		arch_dump_frame(tf);
		panic("double fault");
	default:
		break;
	}
	fault_handle(&fi, tf);
}

static void interrupt(void (*handler)(void), struct trap_frame *tf)
{
	irq_enter(tf);
	handler();
	lapic_eoi();
	irq_exit();
}

void x86_trap(struct trap_frame *tf)
{
	unsigned v = (unsigned)tf->vector;

	if (v < 32) {
		exception(tf);
		return;
	}
	switch (v) {
	case VEC_TIMER:
		interrupt(timer_interrupt, tf);
		return;
	case VEC_IPI:
		interrupt(ipi_interrupt, tf);
		return;
	case VEC_UART:
		interrupt(uart_interrupt, tf);
		return;
	case VEC_SPURIOUS:
		return;
	}
	if (v >= VEC_PIC_BASE && v < VEC_PIC_BASE + 16) {
		pic_spurious++;
		return;
	}
	panic("unexpected interrupt vector %u on CPU %u (rip %016lx)", v, cpu_id(),
	      (unsigned long)tf->rip);
}

/* ---- frame hooks (arch/hooks.h) ---- */

uintptr_t arch_frame_pc(const struct trap_frame *tf)
{
	return tf->rip;
}

/*
 * The frame record to start a backtrace from.  Normally rbp; but a fault
 * between a function's `push %rbp` and its `mov %rsp,%rbp` (GCC schedules
 * early stores in between) leaves rbp at the caller's record, and the
 * caller would vanish from the trace.  There the record {saved rbp, return
 * address} is at rsp, so use that.  The prologue is recognised from the
 * function's first bytes: an optional 5-byte entry site (NOP or call), then
 * push %rbp (55), and mov %rsp,%rbp (48 89 e5) within the next few bytes.
 * A function that has pushed no record at all — a leaf (sites from
 * -fpatchable-function-entry leave leaves frameless), or a fault before
 * its push — has its return address at rsp: record_at_entry.
 */
#define PROLOGUE_SCAN 24

/*
 * The return address at rsp is trusted only when it is certain: rsp inside
 * the current thread's own stack, and the 5 bytes before the address a
 * `call rel32` to this very function (an indirect call cannot be told, and
 * then the immediate caller is missing, as frame-pointer unwinding goes).
 * The backtrace then starts from a record made here, {rbp, return
 * address}: one per CPU, for that CPU's fault report.
 */
static uintptr_t entry_record[MAX_CPUS][2];

static uintptr_t record_at_entry(const struct trap_frame *tf, uintptr_t fn)
{
	struct thread *t = this_cpu()->current;
	uintptr_t sp = tf->rsp, lo = t ? (uintptr_t)t->stack : 0, off, size;
	if (!lo || (sp & 7) || sp < lo || sp + 8 > lo + t->stack_size)
		return tf->rbp;
	uintptr_t ret = *(const uintptr_t *)sp;
	if (!ksym_lookup(ret - 5, &off, &size) || off + 5 > size)
		return tf->rbp;                /* not 5 bytes of one function */
	const uint8_t *call = (const uint8_t *)(ret - 5);
	int32_t rel;
	memcpy(&rel, call + 1, sizeof(rel));
	if (call[0] != 0xE8 || ret + (intptr_t)rel != fn)
		return tf->rbp;
	uintptr_t *rec = entry_record[cpu_id()];
	rec[0] = tf->rbp;
	rec[1] = ret;
	return (uintptr_t)rec;
}

uintptr_t arch_frame_fp(const struct trap_frame *tf)
{
	uintptr_t off, size;
	if (!ksym_lookup(tf->rip, &off, &size))
		return tf->rbp;
	const uint8_t *fn = (const uint8_t *)(tf->rip - off);
	static const uint8_t nop5[5] = { 0x0F, 0x1F, 0x44, 0x00, 0x00 };
	uintptr_t push = 0;
	if (size > 5 && (memcmp(fn, nop5, 5) == 0 || fn[0] == 0xE8))
		push = 5;
	if (push >= size || fn[push] != 0x55 || off <= push)
		return record_at_entry(tf, (uintptr_t)fn);
	for (uintptr_t i = push + 1; i + 3 <= size && i <= push + PROLOGUE_SCAN; i++)
		if (fn[i] == 0x48 && fn[i + 1] == 0x89 && fn[i + 2] == 0xE5)
			return off <= i ? tf->rsp : tf->rbp;
	return tf->rbp;
}

/*
 * Resume at fn on the interrupted stack, 256 bytes below the faulting rsp
 * (clear of anything the faulting code may still have live there), through
 * x86_redirect_thunk so fn gets a return address (the faulting pc) and
 * rsp % 16 == 8 at entry.  rflags keeps IF; DF is cleared for the ABI.
 */
extern const char x86_redirect_thunk[];

void arch_frame_redirect(struct trap_frame *tf, void (*fn)(void))
{
	tf->rax = (uint64_t)(uintptr_t)fn;
	tf->rbx = tf->rip;
	tf->rip = (uint64_t)(uintptr_t)x86_redirect_thunk;
	tf->rsp = (tf->rsp - 256) & ~15ull;
	tf->rflags &= ~(1ull << 10);
}

void arch_dump_frame(const struct trap_frame *tf)
{
	const uint16_t *fx16 = (const uint16_t *)tf->fx;
	const uint32_t *fx32 = (const uint32_t *)tf->fx;
	const uint64_t *xmm = (const uint64_t *)(tf->fx + 160);

	kprintf("  rip %016lx  cs %04lx  rflags %016lx  vector %lu  error %lx\n",
		(unsigned long)tf->rip, (unsigned long)tf->cs, (unsigned long)tf->rflags,
		(unsigned long)tf->vector, (unsigned long)tf->error);
	kprintf("  rsp %016lx  ss %04lx  cr2 %016lx  cr3 %016lx\n",
		(unsigned long)tf->rsp, (unsigned long)tf->ss, (unsigned long)read_cr2(),
		(unsigned long)read_cr3());
	kprintf("  rax %016lx  rbx %016lx  rcx %016lx\n", (unsigned long)tf->rax,
		(unsigned long)tf->rbx, (unsigned long)tf->rcx);
	kprintf("  rdx %016lx  rsi %016lx  rdi %016lx\n", (unsigned long)tf->rdx,
		(unsigned long)tf->rsi, (unsigned long)tf->rdi);
	kprintf("  rbp %016lx  r8  %016lx  r9  %016lx\n", (unsigned long)tf->rbp,
		(unsigned long)tf->r8, (unsigned long)tf->r9);
	kprintf("  r10 %016lx  r11 %016lx  r12 %016lx\n", (unsigned long)tf->r10,
		(unsigned long)tf->r11, (unsigned long)tf->r12);
	kprintf("  r13 %016lx  r14 %016lx  r15 %016lx\n", (unsigned long)tf->r13,
		(unsigned long)tf->r14, (unsigned long)tf->r15);
	kprintf("  fcw %04x  fsw %04x  mxcsr %08x\n", fx16[0], fx16[1], fx32[6]);
	for (unsigned i = 0; i < 16; i += 2)
		kprintf("  xmm%-2u %016lx%016lx  xmm%-2u %016lx%016lx\n", i,
			(unsigned long)xmm[2 * i + 1], (unsigned long)xmm[2 * i], i + 1,
			(unsigned long)xmm[2 * i + 3], (unsigned long)xmm[2 * i + 2]);
}
