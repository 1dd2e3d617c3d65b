/*
 * cpu.c — per-CPU processor state: GDT/TSS, IDT, FPU/SSE, GS base.
 *
 * Interface (x86.h):
 *   idt_init()              once, on the boot CPU, before any cpu_local_init();
 *   cpu_local_init(xc, c)   on every CPU, by that CPU, interrupts off: loads
 *                           the shared GDT and IDT, its own TSS (with the
 *                           double-fault and breakpoint IST stacks; the
 *                           double-fault one is the CPU's exception stack
 *                           from the stack area, boot/stack.h, guarded, so
 *                           a kernel stack overflow is reported there),
 *                           initialises the FPU and points GS at c
 *                           (arch_this_cpu).
 *
 * The GDT (entry.S) is shared; TSS descriptor i belongs to CPU i and is
 * written only by cpu_local_init on CPU i (ltr then sets its busy bit, which
 * is why the GDT lives in writable .data).  The IDT is written once, before
 * any CPU loads it, and read-only afterwards.
 */
#include <stddef.h>
#include <string.h>

#include "arch/x86_64/x86.h"
#include "boot/cpu.h"
#include "boot/stack.h"

_Static_assert(MAX_CPUS == X86_MAX_CPUS, "x86.h X86_MAX_CPUS must match MAX_CPUS");
_Static_assert(offsetof(struct cpu, self) == 0, "arch_this_cpu reads %gs:0");
_Static_assert(offsetof(struct x86_cpu, cpu) == XC_CPU, "entry.S XC_CPU");
_Static_assert(offsetof(struct x86_cpu, stack_top) == XC_STACK_TOP, "entry.S XC_STACK_TOP");
_Static_assert(sizeof(struct tss) == 104, "64-bit TSS is 104 bytes");

struct x86_cpu x86_cpus[MAX_CPUS];

struct idt_gate {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;           /* bits 0-2: IST index, 0 = current stack */
	uint8_t type;          /* 0x8E: present, DPL 0, 64-bit interrupt gate */
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t reserved;
};
_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate is 16 bytes");

static struct idt_gate idt[256] __attribute__((aligned(16)));
extern uint64_t gdt[];                        /* entry.S */

struct __attribute__((packed)) desc_ptr {
	uint16_t limit;
	uint64_t base;
};

#define IST_DOUBLE_FAULT 1
#define IST_BREAKPOINT   2            /* #BP: patch.c writes below the interrupted rsp */

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++) {
		uint64_t a = (uint64_t)(uintptr_t)(vector_stubs + v * VECTOR_STUB_SIZE);
		idt[v] = (struct idt_gate){
			.off_lo = (uint16_t)a, .sel = GDT_KCODE,
			.ist = v == 8 ? IST_DOUBLE_FAULT : v == 3 ? IST_BREAKPOINT : 0,
			.type = 0x8E,
			.off_mid = (uint16_t)(a >> 16), .off_hi = (uint32_t)(a >> 32),
		};
	}
}

/* 16-byte available-64-bit-TSS descriptor for `t` at GDT_TSS0 + 16 * id. */
static void set_tss_desc(unsigned id, const struct tss *t)
{
	uint64_t base = (uint64_t)(uintptr_t)t, limit = sizeof(*t) - 1;
	uint64_t *d = &gdt[GDT_TSS0 / 8 + 2 * id];
	d[0] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) | (0x89ull << 40) |
	       (((limit >> 16) & 0xF) << 48) | (((base >> 24) & 0xFF) << 56);
	d[1] = base >> 32;
}

/*
 * x87 and SSE: CR0/CR4 already have MP|NE, !EM|!TS, OSFXSR|OSXMMEXCPT
 * (entry.S / trampoline.S).  fninit gives the default control word; MXCSR's
 * reset value (all exceptions masked, round to nearest) is loaded explicitly.
 */
static void fpu_init(void)
{
	uint32_t mxcsr = 0x1F80;
	__asm__ volatile("clts; fninit; ldmxcsr %0" : : "m"(mxcsr));
}

void cpu_local_init(struct x86_cpu *xc, struct cpu *c)
{
	unsigned id = (unsigned)(xc - x86_cpus);
	struct desc_ptr gdtr = { (uint16_t)(GDT_TSS0 + 16 * MAX_CPUS - 1), (uint64_t)(uintptr_t)gdt };
	struct desc_ptr idtr = { sizeof(idt) - 1, (uint64_t)(uintptr_t)idt };

	xc->cpu = c;
	c->arch = xc;
	memset(&xc->tss, 0, sizeof(xc->tss));
	char *df_stack = stack_exception(id);   /* smp_boot took it for CPUs > 0 */
	if (!df_stack)
		boot_fail("x86: no exception stack for CPU %u", id);
	xc->tss.ist[IST_DOUBLE_FAULT - 1] = (uint64_t)(uintptr_t)(df_stack + STACK_SIZE);
	xc->tss.ist[IST_BREAKPOINT - 1] = (uint64_t)(uintptr_t)(xc->bp_stack + BP_STACK_SIZE);
	xc->tss.iomap_base = sizeof(xc->tss);          /* no I/O bitmap */
	set_tss_desc(id, &xc->tss);

	__asm__ volatile("lgdt %0" : : "m"(gdtr));
	__asm__ volatile("lidt %0" : : "m"(idtr));
	__asm__ volatile("ltr %w0" : : "r"((uint16_t)(GDT_TSS0 + 16 * id)));
	fpu_init();
	arch_set_this_cpu(c);
}
