/*
 * test_crash.c — deliberate fatal faults, run only when named
 * (bt.test=crash_write, bt.test=crash_panic, bt.test=crash_tramp): the
 * harness checks the report (exception, registers, symbolized backtrace)
 * and the exit status.
 */
#include "boot/console.h"
#include "boot/main.h"
#include "boot/panic.h"
#include "boot/test.h"
#include "patch/tramp.h"
#include "trace/ftrace.h"

__attribute__((noinline)) void crash_write_text(void)
{
	*(volatile char *)((uintptr_t)kernel_main + 4) = 0;
}

TEST_CASE_FLAGS(crash_write, write_to_text, TEST_MANUAL)
{
	crash_write_text();
	test_fail(__FILE__, __LINE__, "survived a write to kernel text");
}

TEST_CASE_FLAGS(crash_panic, panic, TEST_MANUAL)
{
	panic("deliberate panic, value %d", 42);
}

/*
 * A late entry into a freed trampoline: an ops' own trampoline is freed by
 * unregistering the ops, a grace period reclaims the slot (filled with the
 * arch's trap instructions), and then the slot is called.  The trap fires:
 * a fatal exception at the slot's address (x86-64 int3: "breakpoint";
 * arm64: "brk instruction"), which the harness checks.
 */
__attribute__((noinline)) int crash_tramp_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static void crash_tramp_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
			   struct ftrace_regs *fregs) { }

TEST_CASE_FLAGS(crash_tramp, call_freed_trampoline, TEST_MANUAL)
{
	static struct ftrace_ops ops = { .func = crash_tramp_cb };
	ASSERT_EQ(ftrace_set_filter(&ops, "crash_tramp_target", true), 0);
	ASSERT_EQ(register_ftrace_function(&ops), 0);
	uintptr_t slot = ops.tramp;
	ASSERT_TRUE(slot != 0);
	EXPECT_EQ(crash_tramp_target(1), 2);
	ASSERT_EQ(unregister_ftrace_function(&ops), 0);
	ftrace_reclaim_trampolines();
	kprintf("crash_tramp: calling the freed trampoline at 0x%lx\n", (unsigned long)slot);
	((void (*)(void))slot)();
	test_fail(__FILE__, __LINE__, "survived a call into a freed trampoline");
}
