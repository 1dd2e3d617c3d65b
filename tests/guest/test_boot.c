/*
 * test_boot.c — the foundation on every CPU: CPUs online, IPIs, timer
 * interrupts, the symbol table, the command line.
 */
#include <string.h>

#include "arch/tests.h"
#include "boot/clock.h"
#include "boot/irq.h"
#include "boot/main.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "lib/compiler.h"
#include "lib/noipa.h"

TEST_CASE(boot, all_cpus_online)
{
	EXPECT_EQ(ncpus, boot_info.ncpus);
	EXPECT_TRUE(ncpus >= 2);
	for (unsigned i = 0; i < ncpus; i++) {
		EXPECT_TRUE(cpus[i].online);
		EXPECT_EQ(cpus[i].id, i);
		EXPECT_TRUE(cpus[i].self == &cpus[i]);
	}
}

static void count_call(void *arg)
{
	unsigned *hits = arg;
	__atomic_fetch_add(&hits[cpu_id()], 1, __ATOMIC_RELAXED);
}

TEST_CASE(boot, ipi_reaches_every_cpu)
{
	unsigned hits[MAX_CPUS] = { 0 };
	uint64_t before[MAX_CPUS];
	for (unsigned i = 0; i < ncpus; i++)
		before[i] = cpus[i].ipis;
	for (int round = 0; round < 100; round++)
		smp_call_all(count_call, hits);
	for (unsigned i = 0; i < ncpus; i++) {
		EXPECT_EQ(hits[i], 100);
		if (i != cpu_id())
			EXPECT_TRUE(cpus[i].ipis - before[i] >= 100);
	}
}

TEST_CASE(boot, timer_ticks_on_every_cpu)
{
	uint64_t before[MAX_CPUS];
	for (unsigned i = 0; i < ncpus; i++)
		before[i] = __atomic_load_n(&cpus[i].ticks, __ATOMIC_RELAXED);
	uint64_t t0 = clock_ns();
	thread_sleep_ns(200000000);          /* 200 ms = 20 ticks at 100 Hz */
	uint64_t slept = clock_ns() - t0;
	EXPECT_TRUE(slept >= 200000000);
	for (unsigned i = 0; i < ncpus; i++) {
		uint64_t n = __atomic_load_n(&cpus[i].ticks, __ATOMIC_RELAXED) - before[i];
		if (n < 5)
			test_fail(__FILE__, __LINE__, "CPU %u took %llu ticks in 200 ms", i,
				  (unsigned long long)n);
	}
}

TEST_CASE(boot, clock_is_monotonic_across_cpus)
{
	/* Each CPU reads the clock after the previous one; readings must not go back. */
	static uint64_t last;
	last = 0;
	unsigned bad = 0;
	for (int round = 0; round < 50; round++) {
		for (unsigned i = 0; i < ncpus; i++) {
			thread_migrate(current_thread(), (int)i);
			uint64_t now = clock_ns();
			bad += now < last;
			last = now;
		}
	}
	thread_migrate(current_thread(), 0);
	EXPECT_EQ(bad, 0);
}

__attribute__((noinline)) void fn_for_symbols(void);
__attribute__((noinline)) void fn_for_symbols(void) { __asm__ volatile(""); }

TEST_CASE(boot, symbols_round_trip)
{
	size_t n = ksym_count();
	EXPECT_TRUE(n > 100);
	unsigned bad = 0;
	for (size_t i = 0; i < n; i++) {
		uintptr_t a = ksym_addr_at(i), off = 1, size = 0, off2 = 1;
		const char *name = ksym_name_at(i);
		const char *hit = ksym_lookup(a, &off, &size);
		const char *last = size ? ksym_lookup(a + size - 1, &off2, NULL) : NULL;
		/* name -> address: exact, or another function of the same (static) name. */
		uintptr_t back = ksym_address(name), off3 = 1;
		const char *at_back = back ? ksym_lookup(back, &off3, NULL) : NULL;
		bool ok = (i == 0 || a >= ksym_addr_at(i - 1)) && hit && off == 0 &&
			  last == hit && off2 == size - 1 && at_back && off3 == 0 &&
			  (back == a || strcmp(at_back, name) == 0);
		if (!ok && bad++ < 5)
			test_fail(__FILE__, __LINE__, "symbol %s at %lx does not round-trip",
				  name, (unsigned long)a);
	}
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(ksym_address("kernel_main"), (uintptr_t)kernel_main);
	EXPECT_EQ(ksym_address("fn_for_symbols"), (uintptr_t)fn_for_symbols);
	uintptr_t off = 1;
	EXPECT_STREQ(ksym_lookup((uintptr_t)fn_for_symbols, &off, NULL), "fn_for_symbols");
	EXPECT_EQ(off, 0);
	EXPECT_STREQ(ksym_lookup((uintptr_t)thread_create + 4, &off, NULL), "thread_create");
	EXPECT_EQ(off, 4);
	EXPECT_EQ(ksym_address("no_such_function_anywhere"), 0);
	EXPECT_TRUE(ksym_lookup(0x10, NULL, NULL) == NULL);
}

/* The callee of the thunk below: it changes every register a C call may
 * change, and returns two words made from all five arguments. */
static notrace __attribute__((used)) noipa struct arch_words2
thunk_target(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, uintptr_t e)
{
	arch_test_trash_caller_saved();
	return (struct arch_words2){ a + 2 * b + 3 * c + 4 * d + 5 * e, a ^ b ^ c ^ d ^ e };
}
ARCH_PRESERVING_THUNK(thunk_target);
void thunk_target_preserving(void);

/* A register-preserving thunk: every register it must keep is unchanged
 * though its callee overwrote them all (the arch's helper loads each with
 * its own value and checks it after), and the five arguments and both
 * return words go through. */
TEST_CASE(boot, preserving_call_keeps_every_register)
{
	EXPECT_EQ(arch_test_preserving_call(thunk_target_preserving), 0);
	volatile uintptr_t one = 1;
	struct arch_words2 r = CALL_PRESERVING(struct arch_words2, thunk_target, one, 2, 3, 4, 5);
	EXPECT_EQ(r.w0, 1 + 2 * 2 + 3 * 3 + 4 * 4 + 5 * 5);
	EXPECT_EQ(r.w1, 1 ^ 2 ^ 3 ^ 4 ^ 5);
}
