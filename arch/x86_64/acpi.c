/*
 * acpi.c — the few ACPI facts the kernel needs: CPUs (MADT local APIC and
 * x2APIC entries), the IOAPIC and ISA interrupt source overrides (MADT), and
 * the PM timer port (FADT).
 *
 * acpi_init(rsdp) runs once on the boot CPU while the early page tables still
 * identity-map the low 4 GiB, and copies everything into `acpi` (x86.h); the
 * tables are not touched again, so they may lie anywhere in RAM.  rsdp is the
 * start_info's rsdp_paddr, or 0 to search the EBDA and the BIOS area.
 *
 * A missing or corrupt table we depend on (RSDP, RSDT/XSDT, MADT) stops the
 * boot with a message: guessing hardware layout is worse than not booting.
 */
#include <string.h>

#include "arch/x86_64/x86.h"
#include "boot/console.h"

struct acpi_info acpi;

#define EARLY_MAP_END (4ull << 30)   /* entry.S maps [0, 4 GiB) until mmu_init */

struct __attribute__((packed)) rsdp {
	char sig[8];
	uint8_t checksum;
	char oem[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;              /* revision >= 2 from here on */
	uint64_t xsdt;
	uint8_t ext_checksum;
	uint8_t reserved[3];
};

struct __attribute__((packed)) sdt_header {
	char sig[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem[6];
	char oem_table[8];
	uint32_t oem_revision;
	uint32_t creator;
	uint32_t creator_revision;
};
_Static_assert(sizeof(struct rsdp) == 36 && sizeof(struct sdt_header) == 36, "ACPI layouts");

/* MADT entry types */
#define MADT_LAPIC       0
#define MADT_IOAPIC      1
#define MADT_OVERRIDE    2
#define MADT_LAPIC_ADDR  5
#define MADT_X2APIC      9
#define MADT_ENABLED     1u          /* local APIC flags: usable now */
#define MADT_PCAT_COMPAT 1u          /* MADT flags: 8259 pair present */

/* FADT fields (byte offsets, ACPI 6.x) */
#define FADT_PM_TMR_BLK   76
#define FADT_PM_TMR_LEN   91
#define FADT_FLAGS        112
#define FADT_X_PM_TMR_BLK 208        /* generic address structure, 12 bytes */
#define FADT_TMR_VAL_EXT  (1u << 8)

__attribute__((noreturn)) static void acpi_fail(const char *what, uint64_t pa)
{
	boot_fail("ACPI: %s (at %#lx)", what, (unsigned long)pa);
}

static bool sum_ok(const void *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += ((const uint8_t *)p)[i];
	return s == 0;
}

/* A table at pa, checked: reachable, long enough, checksum right. */
static const struct sdt_header *table_at(uint64_t pa)
{
	if (pa == 0 || pa + sizeof(struct sdt_header) > EARLY_MAP_END)
		acpi_fail("table outside the low 4 GiB", pa);
	const struct sdt_header *h = (const struct sdt_header *)(uintptr_t)pa;
	if (h->length < sizeof(*h) || pa + h->length > EARLY_MAP_END)
		acpi_fail("table with a bad length", pa);
	if (!sum_ok(h, h->length))
		acpi_fail("table checksum wrong", pa);
	return h;
}

static const struct rsdp *rsdp_check(uint64_t pa)
{
	const struct rsdp *r = (const struct rsdp *)(uintptr_t)pa;
	if (memcmp(r->sig, "RSD PTR ", 8) != 0 || !sum_ok(r, 20))
		return NULL;
	if (r->revision >= 2 && !sum_ok(r, r->length < sizeof(*r) ? sizeof(*r) : r->length))
		return NULL;
	return r;
}

static const struct rsdp *rsdp_scan(uint64_t start, uint64_t end)
{
	for (uint64_t pa = start & ~15ull; pa + sizeof(struct rsdp) <= end; pa += 16) {
		const struct rsdp *r = rsdp_check(pa);
		if (r)
			return r;
	}
	return NULL;
}

static const struct rsdp *rsdp_find(uint64_t pa)
{
	if (pa) {
		const struct rsdp *r = rsdp_check(pa);
		if (!r)
			acpi_fail("start_info's RSDP is not valid", pa);
		return r;
	}
	uintptr_t bda_ebda = 0x40E;              /* BDA word: EBDA segment */
	__asm__("" : "+r"(bda_ebda));            /* an address, not a bounded object */
	uint64_t ebda = (uint64_t)*(const volatile uint16_t *)bda_ebda << 4;
	const struct rsdp *r = ebda ? rsdp_scan(ebda, ebda + 1024) : NULL;
	if (!r)
		r = rsdp_scan(0xE0000, 0x100000);
	if (!r)
		acpi_fail("no RSDP in the EBDA or the BIOS area", 0);
	return r;
}

/* Find table `sig` through the XSDT (64-bit entries) or RSDT (32-bit). */
static const struct sdt_header *find_table(const struct rsdp *r, const char *sig)
{
	bool x = r->revision >= 2 && r->xsdt;
	const struct sdt_header *root = table_at(x ? r->xsdt : r->rsdt);
	const uint8_t *e = (const uint8_t *)(root + 1);
	size_t n = (root->length - sizeof(*root)) / (x ? 8 : 4);
	for (size_t i = 0; i < n; i++) {
		uint64_t pa;
		if (x)
			memcpy(&pa, e + 8 * i, 8);
		else {
			uint32_t pa32;
			memcpy(&pa32, e + 4 * i, 4);
			pa = pa32;
		}
		const struct sdt_header *h = table_at(pa);
		if (memcmp(h->sig, sig, 4) == 0)
			return h;
	}
	return NULL;
}

static void add_cpu(uint32_t apic_id, uint32_t flags)
{
	if (!(flags & MADT_ENABLED))
		return;
	if (acpi.ncpus == MAX_CPUS) {
		kprintf("baretrace: ACPI: more than %u CPUs, APIC id %u ignored\n", MAX_CPUS,
			apic_id);
		return;
	}
	acpi.apic_id[acpi.ncpus++] = apic_id;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void parse_madt(const struct sdt_header *madt)
{
	const uint8_t *p = (const uint8_t *)madt, *end = p + madt->length;
	acpi.lapic_addr = rd32(p + 36);
	acpi.has_8259 = rd32(p + 40) & MADT_PCAT_COMPAT;
	for (p += 44; p + 2 <= end; p += p[1]) {
		if (p[1] < 2 || p + p[1] > end)
			acpi_fail("MADT entry with a bad length", (uintptr_t)p);
		switch (p[0]) {
		case MADT_LAPIC:
			add_cpu(p[3], rd32(p + 4));
			break;
		case MADT_X2APIC:
			add_cpu(rd32(p + 4), rd32(p + 8));
			break;
		case MADT_IOAPIC:
			if (!acpi.ioapic_addr) {
				acpi.ioapic_addr = rd32(p + 4);
				acpi.ioapic_gsi_base = rd32(p + 8);
			}
			break;
		case MADT_OVERRIDE:
			if (p[2] == 0 && acpi.noverrides < ACPI_MAX_OVERRIDES) {
				unsigned i = acpi.noverrides++;
				acpi.ovr[i].irq = p[3];
				acpi.ovr[i].gsi = rd32(p + 4);
				acpi.ovr[i].flags = (uint16_t)(p[8] | p[9] << 8);
			}
			break;
		case MADT_LAPIC_ADDR:
			memcpy(&acpi.lapic_addr, p + 4, 8);
			break;
		}
	}
	if (acpi.ncpus == 0)
		acpi_fail("MADT lists no enabled CPU", (uintptr_t)madt);
	if (!acpi.ioapic_addr)
		acpi_fail("MADT lists no IOAPIC", (uintptr_t)madt);
}

/* PM timer port: X_PM_TMR_BLK if it is a system-I/O address, else PM_TMR_BLK. */
static void parse_fadt(const struct sdt_header *fadt)
{
	const uint8_t *p = (const uint8_t *)fadt;
	uint64_t port = 0;
	if (fadt->length >= FADT_X_PM_TMR_BLK + 12 && p[FADT_X_PM_TMR_BLK] == 1)
		memcpy(&port, p + FADT_X_PM_TMR_BLK + 4, 8);
	if (!port && fadt->length >= FADT_PM_TMR_LEN + 1 && p[FADT_PM_TMR_LEN] == 4)
		port = rd32(p + FADT_PM_TMR_BLK);
	if (port > 0xFFFF)
		port = 0;
	acpi.pm_timer_port = (uint16_t)port;
	acpi.pm_timer_32bit = fadt->length >= FADT_FLAGS + 4 &&
			      (rd32(p + FADT_FLAGS) & FADT_TMR_VAL_EXT);
}

void acpi_init(uint64_t rsdp_pa)
{
	const struct rsdp *r = rsdp_find(rsdp_pa);
	const struct sdt_header *madt = find_table(r, "APIC");
	if (!madt)
		acpi_fail("no MADT", (uintptr_t)r);
	parse_madt(madt);
	const struct sdt_header *fadt = find_table(r, "FACP");
	if (fadt)
		parse_fadt(fadt);
}
