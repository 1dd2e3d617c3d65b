/*
 * gic.c — GICv3: distributor, redistributors, ICC system registers.
 *
 * Ownership: the distributor is set up once by the boot CPU (gic_init) and
 * afterwards only touched by gic_route_spi (one SPI, once).  Each CPU owns its
 * redistributor frame (gicr_rd[cpu_id()]), found by matching GICR_TYPER's
 * affinity with its own MPIDR, and touches it only with IRQs off.
 *
 * Register polling loops (RWP, ChildrenAsleep) are bounded and panic: a GIC
 * that never settles is a broken machine, not something to wait out.
 */
#include "gic.h"
#include "boot/cpu.h"
#include "boot/panic.h"
#include "io.h"
#include "platform.h"
#include "sysreg.h"

/* Distributor. */
#define GICD_CTLR        0x0000
#define GICD_TYPER       0x0004
#define GICD_IGROUPR     0x0080
#define GICD_ISENABLER   0x0100
#define GICD_ICENABLER   0x0180
#define GICD_ICPENDR     0x0280
#define GICD_ICACTIVER   0x0380
#define GICD_IPRIORITYR  0x0400
#define GICD_ICFGR       0x0c00
#define GICD_IGRPMODR    0x0d00
#define GICD_IROUTER     0x6000
#define GICD_PIDR2       0xffe8

/* GICD_CTLR: bit 0 EnableGrp0 (DS=1) / EnableGrp1 (non-secure view), bit 1
 * EnableGrp1 (DS=1) / EnableGrp1A (non-secure view), bit 4 ARE (ARE_NS). */
#define GICD_CTLR_GRP_BITS  0x3u
#define GICD_CTLR_ARE       (1u << 4)
#define GICD_CTLR_RWP       (1u << 31)

/* Redistributor: RD_base frame, then SGI_base frame 64 KiB above it. */
#define GICR_CTLR        0x0000
#define GICR_TYPER       0x0008
#define GICR_WAKER       0x0014
#define GICR_SGI_BASE    0x10000
#define GICR_IGROUPR0    (GICR_SGI_BASE + 0x0080)
#define GICR_ISENABLER0  (GICR_SGI_BASE + 0x0100)
#define GICR_ICENABLER0  (GICR_SGI_BASE + 0x0180)
#define GICR_ICPENDR0    (GICR_SGI_BASE + 0x0280)
#define GICR_ICACTIVER0  (GICR_SGI_BASE + 0x0380)
#define GICR_IPRIORITYR  (GICR_SGI_BASE + 0x0400)
#define GICR_ICFGR1      (GICR_SGI_BASE + 0x0c04)
#define GICR_IGRPMODR0   (GICR_SGI_BASE + 0x0d00)

#define GICR_CTLR_RWP          (1u << 3)
#define GICR_TYPER_VLPIS       (1ull << 1)
#define GICR_TYPER_LAST        (1ull << 4)
#define GICR_WAKER_SLEEP       (1u << 1)
#define GICR_WAKER_CHILDREN    (1u << 2)
#define GICR_FRAME_V3          0x20000ull     /* RD_base + SGI_base */
#define GICR_FRAME_V4          0x40000ull     /* + VLPI frames */

/* ICC_SRE_EL1: SRE | DFB | DIB. */
#define ICC_SRE_ALL            0x7u

#define GIC_PRIO               0xa0u          /* every interrupt */
#define GIC_PRIO4              0xa0a0a0a0u
#define GIC_PMR                0xf0u          /* let GIC_PRIO through */
#define POLL_LIMIT             10000000u

static uintptr_t gicd;
static uintptr_t gicr_rd[MAX_CPUS];           /* owner CPU */

static void wait_clear32(uintptr_t reg, uint32_t bit, const char *what)
{
	for (unsigned n = 0; mmio_read32(reg) & bit; n++)
		if (n == POLL_LIMIT)
			panic("gic: %s did not clear", what);
}

void gic_init(void)
{
	gicd = platform.gicd.base;
	uint32_t rev = (mmio_read32(gicd + GICD_PIDR2) >> 4) & 0xf;
	if (rev != 3 && rev != 4)
		panic("gic: distributor at %#lx is not GICv3/v4 (ArchRev %u)", gicd, rev);

	mmio_write32(gicd + GICD_CTLR, 0);
	wait_clear32(gicd + GICD_CTLR, GICD_CTLR_RWP, "GICD_CTLR.RWP");

	unsigned lines = 32 * ((mmio_read32(gicd + GICD_TYPER) & 0x1f) + 1);
	if (lines > GIC_SPURIOUS_FIRST)
		lines = GIC_SPURIOUS_FIRST;
	/* Every SPI: disabled, not pending/active, Group 1 (non-secure), level, one priority. */
	for (unsigned i = 32; i < lines; i += 32) {
		mmio_write32(gicd + GICD_ICENABLER + i / 8, ~0u);
		mmio_write32(gicd + GICD_ICPENDR + i / 8, ~0u);
		mmio_write32(gicd + GICD_ICACTIVER + i / 8, ~0u);
		mmio_write32(gicd + GICD_IGROUPR + i / 8, ~0u);
		mmio_write32(gicd + GICD_IGRPMODR + i / 8, 0);
	}
	for (unsigned i = 32; i < lines; i += 4)
		mmio_write32(gicd + GICD_IPRIORITYR + i, GIC_PRIO4);
	for (unsigned i = 32; i < lines; i += 16)
		mmio_write32(gicd + GICD_ICFGR + i / 4, 0);
	wait_clear32(gicd + GICD_CTLR, GICD_CTLR_RWP, "GICD_CTLR.RWP");

	/* Affinity routing first, then the groups (the spec wants two writes). */
	mmio_write32(gicd + GICD_CTLR, GICD_CTLR_ARE);
	wait_clear32(gicd + GICD_CTLR, GICD_CTLR_RWP, "GICD_CTLR.RWP");
	mmio_write32(gicd + GICD_CTLR, GICD_CTLR_ARE | GICD_CTLR_GRP_BITS);
	wait_clear32(gicd + GICD_CTLR, GICD_CTLR_RWP, "GICD_CTLR.RWP");
}

/* GICR_TYPER.Affinity (63:32) is Aff3.Aff2.Aff1.Aff0. */
static uint32_t typer_affinity(uint64_t mpidr)
{
	return (uint32_t)(((mpidr >> 32) & 0xff) << 24 | (mpidr & 0xffffff));
}

static uintptr_t find_redistributor(uint64_t mpidr)
{
	uint32_t want = typer_affinity(mpidr);

	for (unsigned r = 0; r < platform.ngicr; r++) {
		uintptr_t rd = platform.gicr[r].base, end = rd + platform.gicr[r].size;
		while (rd < end) {
			uint64_t typer = mmio_read64(rd + GICR_TYPER);
			if ((uint32_t)(typer >> 32) == want)
				return rd;
			if (typer & GICR_TYPER_LAST)
				break;
			rd += (typer & GICR_TYPER_VLPIS) ? GICR_FRAME_V4 : GICR_FRAME_V3;
		}
	}
	panic("gic: no redistributor for MPIDR %#lx", mpidr);
}

static void cpu_interface_init(void)
{
	write_sysreg(icc_sre_el1, read_sysreg(icc_sre_el1) | ICC_SRE_ALL);
	isb();
	if (!(read_sysreg(icc_sre_el1) & 1))
		panic("gic: ICC_SRE_EL1.SRE stuck at 0 (system registers disabled by a higher EL)");
	write_sysreg(icc_pmr_el1, GIC_PMR);
	write_sysreg(icc_bpr1_el1, 0);
	write_sysreg(icc_ctlr_el1, 0);          /* EOImode 0: EOIR drops and deactivates */
	write_sysreg(icc_igrpen1_el1, 1);
	isb();
}

void gic_cpu_init(void)
{
	uintptr_t rd = find_redistributor(this_mpidr());
	gicr_rd[cpu_id()] = rd;

	mmio_write32(rd + GICR_WAKER, mmio_read32(rd + GICR_WAKER) & ~GICR_WAKER_SLEEP);
	wait_clear32(rd + GICR_WAKER, GICR_WAKER_CHILDREN, "GICR_WAKER.ChildrenAsleep");

	/* SGIs and PPIs: disabled until asked for, Group 1, one priority, PPIs level. */
	mmio_write32(rd + GICR_ICENABLER0, ~0u);
	wait_clear32(rd + GICR_CTLR, GICR_CTLR_RWP, "GICR_CTLR.RWP");
	mmio_write32(rd + GICR_ICPENDR0, ~0u);
	mmio_write32(rd + GICR_ICACTIVER0, ~0u);
	mmio_write32(rd + GICR_IGROUPR0, ~0u);
	mmio_write32(rd + GICR_IGRPMODR0, 0);
	for (unsigned i = 0; i < 32; i += 4)
		mmio_write32(rd + GICR_IPRIORITYR + i, GIC_PRIO4);
	mmio_write32(rd + GICR_ICFGR1, 0);

	cpu_interface_init();
}

void gic_enable_private(unsigned intid)
{
	if (intid >= 32)
		panic("gic: %u is not an SGI/PPI", intid);
	mmio_write32(gicr_rd[cpu_id()] + GICR_ISENABLER0, 1u << intid);
}

void gic_route_spi(unsigned intid, uint64_t hwid)
{
	if (intid < 32 || intid >= GIC_SPURIOUS_FIRST)
		panic("gic: %u is not an SPI", intid);
	/* GICD_IROUTER: Aff3 (39:32), IRM (31) = 0: this one CPU, Aff2..Aff0 (23:0). */
	mmio_write64(gicd + GICD_IROUTER + 8 * intid, hwid & MPIDR_AFF_MASK);
	mmio_write32(gicd + GICD_ISENABLER + intid / 32 * 4, 1u << (intid % 32));
}

uint32_t gic_ack(void)
{
	return (uint32_t)read_sysreg(icc_iar1_el1);
}

void gic_eoi(uint32_t iar)
{
	write_sysreg(icc_eoir1_el1, iar);
}

void gic_send_sgi(unsigned sgi, uint64_t hwid)
{
	uint64_t aff0 = hwid & 0xff, aff1 = (hwid >> 8) & 0xff;
	uint64_t aff2 = (hwid >> 16) & 0xff, aff3 = (hwid >> 32) & 0xff;
	/* ICC_SGI1R_EL1: Aff3 55:48, RS 47:44, Aff2 39:32, INTID 27:24,
	 * Aff1 23:16, TargetList 15:0 (bit = Aff0 mod 16, RS = Aff0 / 16). */
	uint64_t v = aff3 << 48 | (aff0 >> 4) << 44 | aff2 << 32 | (uint64_t)(sgi & 0xf) << 24 |
		     aff1 << 16 | 1ull << (aff0 & 0xf);

	/* dsb: the sender's memory writes (the IPI mailbox) are visible before
	 * the SGI can be taken; the system-register write is not ordered by
	 * ordinary memory barriers. */
	__asm__ volatile("dsb ish" ::: "memory");
	write_sysreg(icc_sgi1r_el1, v);
	isb();
}
