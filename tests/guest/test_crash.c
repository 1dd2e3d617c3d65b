/*
 * test_crash.c — deliberate fatal faults, run only when named
 * (bt.test=crash_write, bt.test=crash_panic): the harness checks the report
 * (exception, registers, symbolized backtrace) and the exit status.
 */
#include "boot/main.h"
#include "boot/panic.h"
#include "boot/test.h"

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
