/*
 * smp.c — secondary CPU bring-up, IPIs, cross-CPU calls.
 *
 * Bring-up is sequential: the boot CPU starts CPU i and waits (bounded) for
 * it to set cpus[i].online before starting the next, so ncpus only grows and
 * is stable once smp_boot() returns.
 */
#include <malloc.h>
#include <stdlib.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/irq.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/stack.h"

#define CPU_START_TIMEOUT_NS 2000000000ull

/* Each CPU starts in its task context as the tracer sees it (boot/cpu.h:
 * trace_ctx), before its first interrupt or traced call. */
struct cpu cpus[MAX_CPUS] = { [0 ... MAX_CPUS - 1] = { .trace_ctx = TRACE_CTX_TASK } };
unsigned ncpus = 1;

static void cpu_online(struct cpu *c)
{
	/* RELEASE: the CPU's own set-up is visible to whoever sees it online. */
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
}

void secondary_main(void)
{
	struct cpu *c = this_cpu();
	sched_init_cpu();
	arch_cpu_irq_init(HZ);
	cpu_online(c);
	sched_idle_loop();
}

void smp_boot(const struct boot_info *bi)
{
	cpu_online(&cpus[0]);
	for (unsigned i = 1; i < bi->ncpus; i++) {
		struct cpu *c = &cpus[i];
		c->self = c;
		c->id = i;
		c->hwid = bi->hwid[i];
		char *stack = stack_alloc("boot/idle");
		if (!stack || !stack_exception(i))
			panic("smp: no stack slot left for CPU %u", i);
		ncpus = i + 1;        /* cpus[i] exists from now on */
		if (arch_cpu_start(c, stack + STACK_SIZE) != 0)
			panic("smp: firmware refused to start CPU %u (hwid 0x%llx)", i,
			      (unsigned long long)c->hwid);
		uint64_t deadline = clock_ns() + CPU_START_TIMEOUT_NS;
		while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE)) {
			if (clock_ns() > deadline)
				panic("smp: CPU %u (hwid 0x%llx) did not come online", i,
				      (unsigned long long)c->hwid);
			arch_cpu_relax();
		}
	}
	kprintf("baretrace: %u CPUs online\n", ncpus);
}

void smp_send(unsigned cpu, unsigned bits)
{
	__atomic_fetch_or(&cpus[cpu].ipi_pending, bits, __ATOMIC_RELEASE);
	arch_send_ipi(cpu);
}

/* The one cross-CPU call in flight; call_lock serialises callers. */
static spinlock_t call_lock = SPINLOCK_INIT;
static void (*call_fn)(void *);
static void *call_arg;
static unsigned call_left;             /* atomic: CPUs yet to finish */

void smp_call_all(void (*fn)(void *), void *arg)
{
	if (!arch_irqs_enabled() || in_interrupt())
		panic("smp_call_all from interrupt context or with interrupts off");
	preempt_disable();
	/* Spin with interrupts on so calls from other CPUs still reach us. */
	spin_lock(&call_lock);
	call_fn = fn;
	call_arg = arg;
	unsigned me = cpu_id();
	__atomic_store_n(&call_left, ncpus - 1, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < ncpus; i++)
		if (i != me)
			smp_send(i, IPI_CALL);
	unsigned long f = arch_irq_save();
	fn(arg);
	arch_irq_restore(f);
	while (__atomic_load_n(&call_left, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	spin_unlock(&call_lock);
	preempt_enable();
}

static void sync_nothing(void *unused) { }

void smp_sync_all(void)
{
	smp_call_all(sync_nothing, NULL);
}

void smp_stop_others(void)
{
	for (unsigned i = 0; i < ncpus; i++)
		if (i != cpu_id() && cpus[i].online)
			smp_send(i, IPI_STOP);
	clock_delay_ns(10000000);         /* let them take it; don't wait for ever */
}

void ipi_interrupt(void)
{
	struct cpu *c = this_cpu();
	/* ACQUIRE pairs with smp_send's RELEASE: call_fn/arg are visible. */
	unsigned bits = __atomic_exchange_n(&c->ipi_pending, 0, __ATOMIC_ACQUIRE);
	c->ipis++;
	if (bits & IPI_STOP)
		arch_halt();
	if (bits & IPI_CALL) {
		call_fn(call_arg);
		/* RELEASE: fn's effects are visible when the caller sees 0. */
		__atomic_fetch_sub(&call_left, 1, __ATOMIC_RELEASE);
	}
	if (bits & IPI_RESCHED)
		__atomic_store_n(&c->need_resched, CPU_NEED_RESCHED, __ATOMIC_RELAXED);
}
