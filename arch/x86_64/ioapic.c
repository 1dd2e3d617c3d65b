/*
 * ioapic.c — the IOAPIC (device interrupts) and the legacy 8259 pair (off).
 *
 * Interface: pic_disable() and ioapic_init() once on the boot CPU after
 * mmu_init() (boot.c); ioapic_route_isa() from arch_cpu_irq_init on CPU 0.
 * Only the first IOAPIC of the MADT is used; on q35 it serves GSIs 0-23.
 *
 * ISA IRQs are edge-triggered, active high, unless a MADT interrupt source
 * override says otherwise (it may also move the IRQ to another GSI).
 */
#include "arch/x86_64/x86.h"
#include "boot/console.h"
#include "boot/panic.h"

#define IOREGSEL       0x00           /* byte offsets in the window */
#define IOWIN          0x10
#define IOAPIC_VER     0x01
#define IOAPIC_REDTBL  0x10           /* entry n: 0x10 + 2n (low), +1 (high) */

#define RTE_MASKED     (1u << 16)
#define RTE_LEVEL      (1u << 15)
#define RTE_ACTIVE_LOW (1u << 13)

/* MADT override flags (MPS INTI flags) */
#define OVR_POL_MASK   0x3
#define OVR_POL_LOW    0x3
#define OVR_TRIG_MASK  0xC
#define OVR_TRIG_LEVEL 0xC

static volatile uint32_t *ioapic;     /* written once */
static unsigned nr_pins;              /* written once */

static uint32_t ioapic_read(unsigned reg)
{
	ioapic[IOREGSEL / 4] = reg;
	return ioapic[IOWIN / 4];
}

static void ioapic_write(unsigned reg, uint32_t v)
{
	ioapic[IOREGSEL / 4] = reg;
	ioapic[IOWIN / 4] = v;
}

/* Remap the 8259s away from the exception vectors, then mask every line:
 * if one still raises a spurious IRQ 7/15 it lands on a known vector. */
void pic_disable(void)
{
	outb(0x20, 0x11);                 /* ICW1: init, ICW4 follows */
	outb(0xA0, 0x11);
	outb(0x21, VEC_PIC_BASE);         /* ICW2: vector bases */
	outb(0xA1, VEC_PIC_BASE + 8);
	outb(0x21, 0x04);                 /* ICW3: slave on IRQ 2 */
	outb(0xA1, 0x02);
	outb(0x21, 0x01);                 /* ICW4: 8086 mode */
	outb(0xA1, 0x01);
	outb(0x21, 0xFF);                 /* mask all */
	outb(0xA1, 0xFF);
}

void ioapic_init(void)
{
	mmu_map_mmio(acpi.ioapic_addr, PAGE_SIZE);
	ioapic = (volatile uint32_t *)(uintptr_t)acpi.ioapic_addr;
	nr_pins = ((ioapic_read(IOAPIC_VER) >> 16) & 0xFF) + 1;
	for (unsigned i = 0; i < nr_pins; i++) {
		ioapic_write(IOAPIC_REDTBL + 2 * i, RTE_MASKED);
		ioapic_write(IOAPIC_REDTBL + 2 * i + 1, 0);
	}
}

void ioapic_route_isa(unsigned irq, unsigned vector, uint32_t apic_id)
{
	uint32_t gsi = irq, low = vector;
	for (unsigned i = 0; i < acpi.noverrides; i++) {
		if (acpi.ovr[i].irq != irq)
			continue;
		gsi = acpi.ovr[i].gsi;
		if ((acpi.ovr[i].flags & OVR_POL_MASK) == OVR_POL_LOW)
			low |= RTE_ACTIVE_LOW;
		if ((acpi.ovr[i].flags & OVR_TRIG_MASK) == OVR_TRIG_LEVEL)
			low |= RTE_LEVEL;
	}
	if (gsi < acpi.ioapic_gsi_base || gsi - acpi.ioapic_gsi_base >= nr_pins)
		panic("IOAPIC: ISA IRQ %u is GSI %u, not on the IOAPIC (GSIs %u-%u)", irq, gsi,
		      acpi.ioapic_gsi_base, acpi.ioapic_gsi_base + nr_pins - 1);
	if (apic_id > 0xFF)
		panic("IOAPIC: cannot deliver to APIC id %u in physical mode", apic_id);
	unsigned pin = gsi - acpi.ioapic_gsi_base;
	ioapic_write(IOAPIC_REDTBL + 2 * pin + 1, apic_id << 24);
	ioapic_write(IOAPIC_REDTBL + 2 * pin, low);       /* fixed, physical, unmasked */
}
