/*
 * x86.h — private to arch/x86_64: constants, register access, and the
 * interfaces between the files of this directory.
 *
 * Constants are usable from assembly (__ASSEMBLY__); the rest is C.
 * Nothing outside arch/x86_64 includes this header.
 */
#ifndef ARCH_X86_64_X86_H
#define ARCH_X86_64_X86_H

/* ---- GDT selectors (cpu.c builds the table) ---- */
#define GDT_KCODE       0x08          /* 64-bit ring-0 code */
#define GDT_KDATA       0x10          /* flat data */
#define GDT_KCODE32     0x18          /* 32-bit code (unused after boot) */
#define GDT_TSS0        0x20          /* TSS of CPU i at GDT_TSS0 + 16 * i */

/* ---- Interrupt vectors ---- */
#define VEC_PIC_BASE    0x20          /* 8259s remapped here, then masked */
#define VEC_UART        0x30          /* COM1 via the IOAPIC, CPU 0 only */
#define VEC_TIMER       0x40          /* LAPIC timer, every CPU */
#define VEC_IPI         0x41          /* the one IPI */
#define VEC_SPURIOUS    0xFF          /* LAPIC spurious vector (no EOI) */

#define VECTOR_STUB_SIZE 16            /* vectors.S: stub v at vector_stubs + 16 * v */

/* ---- Control registers and MSRs ---- */
#define CR0_PE          (1 << 0)
#define CR0_MP          (1 << 1)
#define CR0_EM          (1 << 2)
#define CR0_TS          (1 << 3)
#define CR0_NE          (1 << 5)
#define CR0_WP          (1 << 16)
#define CR0_NW          (1 << 29)
#define CR0_CD          (1 << 30)
#define CR0_PG          (1 << 31)
#define CR4_PAE         (1 << 5)
#define CR4_OSFXSR      (1 << 9)
#define CR4_OSXMMEXCPT  (1 << 10)
#define MSR_EFER        0xC0000080
#define EFER_LME        (1 << 8)
#define EFER_NXE        (1 << 11)
#define MSR_GS_BASE     0xC0000101
#define MSR_APIC_BASE   0x1B

/* CR0 for every CPU once in long mode: FPU native (MP, NE, no EM/TS),
 * supervisor writes honour read-only pages (WP), caches on. */
#define CR0_LONG        (CR0_PE | CR0_MP | CR0_NE | CR0_WP | CR0_PG)
#define CR4_LONG        (CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT)

/* ---- Memory layout ---- */
#define X86_MAX_CPUS    16            /* == MAX_CPUS (boot_info.h), for assembly */
#define PAGE_SIZE       4096
#define TRAMP_BASE      0x8000        /* real-mode SMP trampoline (SIPI vector 0x08) */
#define BP_STACK_SIZE   (16 * 1024)   /* per-CPU breakpoint (IST2) stack: patch.c */
#define POKE_VA         0xFFFFFFFFFFE00000 /* text-poke alias slots, one page per CPU */

/* ---- struct x86_cpu offsets used by entry.S ---- */
#define XC_CPU          0
#define XC_STACK_TOP    8

#ifndef __ASSEMBLY__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/boot_info.h"

struct cpu;
struct trap_frame;

/* 64-bit TSS (hardware layout). */
struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

/*
 * Arch-private per-CPU data (struct cpu's `arch` points here).  cpu and
 * stack_top are written by the starting CPU before the SIPI and read by the
 * new CPU in ap_entry64 (entry.S, offsets XC_*); the rest is owner-only.
 */
struct x86_cpu {
	struct cpu *cpu;
	void *stack_top;
	uint32_t apic_id;
	struct tss tss;
	uint8_t bp_stack[BP_STACK_SIZE] __attribute__((aligned(16)));
	unsigned bp_depth;                    /* #BP handlers running on bp_stack */
};

extern struct x86_cpu x86_cpus[MAX_CPUS];

/* ---- Port I/O, MSRs, control registers, CPUID ---- */
static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}
static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}
static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}
static inline uint64_t read_cr3(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}
static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}
static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}
static inline uint64_t rdtsc_raw(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* ---- Between the files of arch/x86_64 ---- */

/* boot.c: x86_boot_main is called by entry.S; never returns. */
void x86_boot_main(uint32_t start_info_pa);

/* uart.c */
void uart_init(void);
void uart_rx_enable(void);
void uart_interrupt(void);

/* cpu.c: the IDT (once), then per-CPU descriptor tables, FPU and GS base. */
void idt_init(void);
void cpu_local_init(struct x86_cpu *xc, struct cpu *c);

/* trap.c: called by vectors.S with the frame on the interrupted stack. */
void x86_trap(struct trap_frame *tf);
extern const uint8_t vector_stubs[];          /* vectors.S: 256 stubs */

/* acpi.c: parse RSDP -> XSDT/RSDT -> MADT, FADT (before mmu_init). */
#define ACPI_MAX_OVERRIDES 16
struct acpi_info {
	unsigned ncpus;                       /* enabled CPUs, capped at MAX_CPUS */
	uint32_t apic_id[MAX_CPUS];           /* MADT order */
	uint64_t lapic_addr;
	uint64_t ioapic_addr;                 /* first IOAPIC */
	uint32_t ioapic_gsi_base;
	unsigned noverrides;
	struct { uint8_t irq; uint32_t gsi; uint16_t flags; } ovr[ACPI_MAX_OVERRIDES];
	uint16_t pm_timer_port;               /* 0 if none */
	bool pm_timer_32bit;
	bool has_8259;                        /* MADT PCAT_COMPAT */
};
extern struct acpi_info acpi;
void acpi_init(uint64_t rsdp_pa);

/* mmu.c */
struct ram_range { uint64_t start, end; };
void mmu_init(const struct ram_range *ram, unsigned nram);
void mmu_map_mmio(uint64_t pa, uint64_t size);
uintptr_t mmu_seal(void);                     /* end of boot allocations; no more maps */
extern uint64_t kernel_cr3;
uint64_t *mmu_poke_pte(unsigned cpu, uintptr_t *va);  /* CPU cpu's alias slot */
uint64_t mmu_poke_leaf(uint64_t pa);          /* RW+NX leaf for page pa */

/* text_poke.c: keep this CPU's alias mapped across arch_text_poke calls
 * between begin and end (patch.c's batches); end unmaps it and serialises. */
void x86_poke_batch_begin(void);
void x86_poke_batch_end(void);
void x86_serialize(void);                     /* serialising instruction, this CPU */
void x86_poke_touch(uintptr_t addr);          /* no-op atomic store to a text byte */
uint8_t *x86_poke_page(uintptr_t page);       /* batch, irqs off: alias of a text page */

/* patch.c: the #BP handler's claim on the int3s of in-flight sites (and,
 * under TCG, on stale fetches of them); true if tf now resumes where the
 * site's current state says. */
bool x86_bp_inflight(struct trap_frame *tf);
unsigned long x86_bp_emulated(void);         /* int3s emulated so far */
unsigned long x86_bp_stale(void);            /* stale int3 fetches retried (TCG) */

/* tsc.c */
void tsc_calibrate(void);
void tsc_delay_us(uint64_t us);

/* lapic.c */
void lapic_init(void);                        /* boot CPU: mode, MMIO, own id */
void lapic_set_mode(void);                    /* this CPU: xAPIC or x2APIC, enabled */
void lapic_cpu_enable(void);                  /* this CPU: mode, software enable, LVTs */
void lapic_timer_calibrate(void);
uint64_t lapic_timer_hz(void);
bool lapic_is_x2apic(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
void lapic_send(uint32_t apic_id, uint32_t icr_low);
#define ICR_FIXED       0x00000
#define ICR_INIT        0x00500
#define ICR_STARTUP     0x00600
#define ICR_ASSERT      0x04000

/* ioapic.c */
void pic_disable(void);
void ioapic_init(void);
void ioapic_route_isa(unsigned irq, unsigned vector, uint32_t apic_id);

/* smp.c */
void smp_copy_trampoline(void);
void ap_main(struct x86_cpu *xc);

/*
 * A boot step failed before kernel_main: print why and power off with
 * PANIC_EXIT_STATUS.  (Not panic(): the generic panic path needs the clock,
 * which kernel_main starts.)  Needs the GS base (kprintf).
 */
__attribute__((noreturn, format(printf, 1, 2))) void boot_fail(const char *fmt, ...);

#endif /* __ASSEMBLY__ */
#endif
