/*
 * text_poke.c — writing kernel text through a temporary writable alias
 * (arch_text_poke, arch/hooks.h).  Text stays RX in the identity map.
 *
 * Each CPU owns one alias slot (mmu.c: POKE_VA + cpu * 4 KiB).  With
 * interrupts off, the text page holding the destination is mapped RW+NX
 * into this CPU's slot (page-table entry + invlpg, only if that page is not
 * already the one mapped there), the bytes are copied through the alias,
 * and outside a batch the slot is cleared and invlpg'd again at once.
 *
 * Batches: between x86_poke_batch_begin() and x86_poke_batch_end() the
 * batch CPU's slot stays mapped from one call to the next, and patch.c
 * writes whole pages of sites through x86_poke_page(), so patching
 * thousands of sites maps each page once.  Callers hold the ftrace lock
 * with preemption disabled, so a batch runs on one CPU.  (If it migrated
 * anyway, the first CPU's slot would stay mapped until its next poke: a
 * stale writable alias, never a wrong write, since every CPU keys its slot
 * by the page it itself mapped last.)  Other CPUs' pokes (x86_poke_touch
 * from the #BP handler) unmap at once, batch or not.
 *
 * Visibility: the SDM requires the modifying CPU to execute a serialising
 * instruction before it runs the new code (self-modifying code); other
 * CPUs need their own (cross-modifying code) — patch_sync_cores(), the
 * caller's job.  Outside a batch every call serialises this CPU; in a batch,
 * patch.c does it once per step.
 */
#include <string.h>

#include "arch/x86_64/x86.h"
#include "boot/cpu.h"
#include "boot/panic.h"

extern char _text_start[], _etext[];

struct poke_slot {
	uint64_t *pte;           /* this CPU's alias entry (mmu.c), set on first use */
	uintptr_t va;
	uintptr_t page;          /* text page mapped there now, or 0 */
};

/* slots[c]: CPU c only, interrupts off.  batch_cpu: the CPU whose slot
 * stays mapped between calls (-1: none); written by the poking thread
 * (callers serialise), compared with cpu_id() by anyone. */
static struct poke_slot slots[MAX_CPUS];
static int batch_cpu = -1;

static bool in_batch(void)
{
	return __atomic_load_n(&batch_cpu, __ATOMIC_RELAXED) == (int)cpu_id();
}

static void invlpg(uintptr_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static void slot_map(struct poke_slot *s, uintptr_t page)
{
	if (s->page == page)
		return;
	*s->pte = mmu_poke_leaf(page);
	invlpg(s->va);
	s->page = page;
}

static void slot_unmap(struct poke_slot *s)
{
	if (!s->page)
		return;
	*s->pte = 0;
	invlpg(s->va);
	s->page = 0;
}

/*
 * iretq to the next instruction: serialising (SDM "Serializing
 * Instructions"), unprivileged-safe and, unlike cpuid, never a VM exit.
 */
void x86_serialize(void)
{
	uint64_t tmp;
	__asm__ volatile("mov %%ss, %0\n\t"
			 "pushq %0\n\t"
			 "leaq 8(%%rsp), %0\n\t"
			 "pushq %0\n\t"
			 "pushfq\n\t"
			 "mov %%cs, %0\n\t"
			 "pushq %0\n\t"
			 "leaq 1f(%%rip), %0\n\t"
			 "pushq %0\n\t"
			 "iretq\n"
			 "1:"
			 : "=&r"(tmp) : : "memory", "cc");
}

void arch_text_poke(void *dst, const void *src, size_t len)
{
	uintptr_t d = (uintptr_t)dst;
	const uint8_t *from = src;

	if (d < (uintptr_t)_text_start || d > (uintptr_t)_etext ||
	    len > (uintptr_t)_etext - d)
		panic("arch_text_poke(%lx, %zu): not kernel text", (unsigned long)d, len);

	unsigned long flags = arch_irq_save();
	struct poke_slot *s = &slots[cpu_id()];
	if (!s->pte)
		s->pte = mmu_poke_pte(cpu_id(), &s->va);
	while (len) {
		uintptr_t page = d & ~(uintptr_t)(PAGE_SIZE - 1);
		size_t n = PAGE_SIZE - (d - page);
		if (n > len)
			n = len;
		slot_map(s, page);
		memcpy((void *)(s->va + (d - page)), from, n);
		d += n;
		from += n;
		len -= n;
	}
	if (!in_batch()) {
		slot_unmap(s);
		x86_serialize();
	}
	arch_irq_restore(flags);
}

/*
 * A write that changes nothing: an atomic `or $0` on the byte at addr,
 * through the alias.  Safe against a concurrent arch_text_poke of the same
 * byte (the value is never changed), so callable from the #BP handler; its
 * only effect is that of a store to the code — an emulator that keeps
 * translated code drops its translations of that byte (patch.c).  Any
 * context; interrupts are off while the alias is in use.
 */
void x86_poke_touch(uintptr_t addr)
{
	uintptr_t page = addr & ~(uintptr_t)(PAGE_SIZE - 1);
	unsigned long flags = arch_irq_save();
	struct poke_slot *s = &slots[cpu_id()];
	if (!s->pte)
		s->pte = mmu_poke_pte(cpu_id(), &s->va);
	slot_map(s, page);
	__asm__ volatile("lock orb $0, (%0)" : : "r"(s->va + (addr - page)) : "memory", "cc");
	if (!in_batch())
		slot_unmap(s);
	arch_irq_restore(flags);
}

/*
 * In a batch, with interrupts off: map the text page at `page` into this
 * CPU's slot (if it is not the one there) and return its writable alias,
 * valid until interrupts are enabled again.  patch.c writes a page's sites
 * through it directly: one call per page instead of one arch_text_poke per
 * byte.
 */
uint8_t *x86_poke_page(uintptr_t page)
{
	if (!in_batch() || arch_irqs_enabled() || (page & (PAGE_SIZE - 1)) ||
	    page < (uintptr_t)_text_start || page >= (uintptr_t)_etext)
		panic("x86_poke_page(%lx): not a text page, or not in a batch with "
		      "interrupts off", (unsigned long)page);
	struct poke_slot *s = &slots[cpu_id()];
	if (!s->pte)
		s->pte = mmu_poke_pte(cpu_id(), &s->va);
	slot_map(s, page);
	return (uint8_t *)s->va;
}

void x86_poke_batch_begin(void)
{
	__atomic_store_n(&batch_cpu, (int)cpu_id(), __ATOMIC_RELAXED);
}

void x86_poke_batch_end(void)
{
	unsigned long flags = arch_irq_save();
	__atomic_store_n(&batch_cpu, -1, __ATOMIC_RELAXED);
	slot_unmap(&slots[cpu_id()]);
	x86_serialize();
	arch_irq_restore(flags);
}
