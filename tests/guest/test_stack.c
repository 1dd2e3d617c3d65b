/*
 * test_stack.c — kernel stack overflows, deliberate and fatal, run only when
 * named (bt.test=crash_stack, bt.test=crash_stack_irq).  tools/checks_stack.py
 * boots them and checks the report against what they print first.
 *
 * crash_stack: a thread recurses until its stack overflows.  Its stack is
 *   the slot right above a slot the test holds (stack_alloc hands out the
 *   lowest free slot), filled with a canary; a panic hook, run after the
 *   report, checks that the canary below the guard is intact and prints the
 *   verdict before the trace dump.
 * crash_stack_irq: the timer interrupt recurses on CPU 0 while CPU 0 is idle:
 *   an overflow in interrupt context, on the boot/idle stack (slot 0).
 *
 * The recursive functions are traced (a test source) and named stk_* for a
 * boot-time ftrace_filter.
 */
#include <string.h>

#include "boot/console.h"
#include "boot/irq.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/stack.h"
#include "boot/test.h"

#define CANARY 0x5a

__attribute__((noinline)) long stk_down(long n)
{
	volatile char pad[200];
	pad[0] = (char)n;
	if (n == 0)
		return pad[0];
	return stk_down(n - 1) + pad[0];
}

static unsigned char *canary;          /* the held slot's stack, STACK_SIZE bytes */
static void (*next_hook)(void);

static void check_canary(void)
{
	size_t bad = 0;
	for (size_t i = 0; i < STACK_SIZE; i++)
		bad += canary[i] != CANARY;
	kprintf("crash_stack: canary below the guard: %lu of %d bytes changed\n",
		(unsigned long)bad, STACK_SIZE);
	if (next_hook)
		next_hook();
}

static int overflow_thread(void *arg)
{
	struct thread *t = current_thread();
	kprintf("crash_stack: thread %s (tid %u) stack [%016lx-%016lx)\n", t->name, t->tid,
		(unsigned long)t->stack, (unsigned long)t->stack + STACK_SIZE);
	return (int)stk_down(1000000);
}

TEST_CASE_FLAGS(crash_stack, thread_stack_overflow, TEST_MANUAL)
{
	canary = stack_alloc("canary");
	ASSERT_TRUE(canary != NULL);
	memset(canary, CANARY, STACK_SIZE);
	struct thread *t = thread_create("stk-deep", overflow_thread, NULL, 1 % (int)ncpus);
	ASSERT_TRUE(t != NULL);
	/* The canary is right below the thread's guard. */
	ASSERT_TRUE((char *)t->stack == (char *)canary + STACK_SLOT_SIZE);
	next_hook = panic_hook;
	panic_hook = check_canary;
	thread_join(t);
	test_fail(__FILE__, __LINE__, "survived a stack overflow");
}

/* ---- in interrupt context, on CPU 0's boot/idle stack ---- */

static volatile int armed;

__attribute__((noinline)) long stk_irq_down(long n)
{
	volatile char pad[200];
	pad[0] = (char)n;
	if (n == 0)
		return pad[0];
	return stk_irq_down(n - 1) + pad[0];
}

static void recurse_in_irq(void)
{
	if (armed && cpu_id() == 0 && current_thread() == this_cpu()->idle) {
		armed = 0;
		kprintf("crash_stack_irq: recursing in the timer interrupt on %s, stack [%016lx-%016lx)\n",
			current_thread()->name, (unsigned long)stack_area[STACK_SLOT_BOOT0] + STACK_SIZE,
			(unsigned long)stack_area[STACK_SLOT_BOOT0] + STACK_SLOT_SIZE);
		stk_irq_down(1000000);
	}
}

TEST_CASE_FLAGS(crash_stack_irq, irq_stack_overflow, TEST_MANUAL)
{
	thread_migrate(current_thread(), 0);
	armed = 1;
	timer_hook_set(recurse_in_irq);
	for (int i = 0; i < 200; i++)           /* CPU 0 idles while this sleeps */
		thread_sleep_ns(10000000);
	timer_hook_set(NULL);
	test_fail(__FILE__, __LINE__, "survived a stack overflow in an interrupt");
}
