/*
 * irq_probe.h — a traced call made by an interrupt, for the tests of calls in
 * interrupt context (fgraph/interrupt_inside, graph/irqs_option_and_preempt_count).
 *
 * irq_probe_run(t): the calling thread, t, spins in irq_probe_spin (traced)
 * until the timer interrupt on its CPU has called irq_probe_work(1) (traced)
 * once while it was in there, or 2 s pass; then no CPU is left in the timer
 * hook.  Returns 1 if the interrupt made the call, 0 if not.  Pin the thread
 * first if the test reads one CPU's events.
 */
#ifndef TESTS_GUEST_IRQ_PROBE_H
#define TESTS_GUEST_IRQ_PROBE_H

struct thread;

int irq_probe_work(int x);               /* returns x + 100 */
int irq_probe_spin(void);
int irq_probe_run(struct thread *t);

#endif
