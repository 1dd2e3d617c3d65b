/*
 * test_mem.c — W^X and the heap: text and rodata are not writable, heap and
 * stacks are not executable (faults caught with fault_catch), and newlib's
 * printf/malloc work concurrently from every CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "boot/fault.h"
#include "boot/main.h"
#include "boot/sched.h"
#include "boot/test.h"

static void write_byte(void *p)
{
	*(volatile char *)p = 0;
}

static void call_at(void *p)
{
	((void (*)(void))p)();
}

static const char rodata_probe[16] = "read only";

static void expect_fault(void (*fn)(void *), void *arg, enum fault_kind kind,
			 uintptr_t addr, const char *what)
{
	struct fault_info fi = { 0 };
	int faulted = fault_catch(fn, arg, &fi);
	if (!faulted) {
		test_fail(__FILE__, __LINE__, "%s did not fault", what);
		return;
	}
	if (fi.kind != kind || fi.addr != addr)
		test_fail(__FILE__, __LINE__, "%s: fault kind %d at %lx, expected %d at %lx",
			  what, fi.kind, (unsigned long)fi.addr, kind, (unsigned long)addr);
}

TEST_CASE(mem, text_write_faults)
{
	uintptr_t target = (uintptr_t)kernel_main + 8;
	unsigned char before = *(volatile unsigned char *)target;
	expect_fault(write_byte, (void *)target, FAULT_WRITE, target, "write to text");
	EXPECT_EQ(*(volatile unsigned char *)target, before);
}

TEST_CASE(mem, rodata_write_faults)
{
	expect_fault(write_byte, (void *)rodata_probe, FAULT_WRITE, (uintptr_t)rodata_probe,
		     "write to rodata");
	EXPECT_STREQ(rodata_probe, "read only");
}

TEST_CASE(mem, heap_exec_faults)
{
	/* Fill with anything: the fetch itself must fault, before decoding. */
	unsigned char *code = malloc(64);
	ASSERT_TRUE(code != NULL);
	memset(code, 0, 64);
	expect_fault(call_at, code, FAULT_EXEC, (uintptr_t)code, "jump into the heap");
	free(code);
}

TEST_CASE(mem, stack_exec_faults)
{
	unsigned char code[64] __attribute__((aligned(16)));
	memset(code, 0, sizeof(code));
	expect_fault(call_at, code, FAULT_EXEC, (uintptr_t)code, "jump into the stack");
}

TEST_CASE(mem, null_page_faults)
{
	struct fault_info fi = { 0 };
	EXPECT_EQ(fault_catch(write_byte, (void *)8, &fi), 1);
	EXPECT_EQ(fi.addr, 8);
}

#define MT_ROUNDS 200
static unsigned mt_errors;               /* atomic */

static int malloc_printf_worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	for (int r = 0; r < MT_ROUNDS; r++) {
		size_t n = 16 + (size_t)((r * 37 + id * 11) % 500);
		char *p = malloc(n);
		char line[64];
		if (!p) {
			__atomic_fetch_add(&mt_errors, 1, __ATOMIC_RELAXED);
			continue;
		}
		memset(p, id, n);
		snprintf(line, sizeof(line), "w%d r%d n%u", id, r, (unsigned)n);
		char want[64];
		ksnprintf(want, sizeof(want), "w%d r%d n%u", id, r, (unsigned)n);
		if (strcmp(line, want) != 0)
			__atomic_fetch_add(&mt_errors, 1, __ATOMIC_RELAXED);
		if (r % 50 == 0)
			printf("    # mt worker %d round %d on cpu %u\n", id, r, cpu_id());
		for (size_t i = 0; i < n; i++)
			if (p[i] != (char)id) {
				__atomic_fetch_add(&mt_errors, 1, __ATOMIC_RELAXED);
				break;
			}
		free(p);
	}
	fflush(stdout);
	return 0;
}

TEST_CASE(mem, malloc_printf_concurrent)
{
	struct thread *t[MAX_CPUS * 2];
	unsigned n = ncpus * 2;
	mt_errors = 0;
	for (unsigned i = 0; i < n; i++) {
		t[i] = thread_create("mt", malloc_printf_worker, (void *)(intptr_t)(i + 1),
				     (int)(i % ncpus));
		ASSERT_TRUE(t[i] != NULL);
	}
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(thread_join(t[i]), 0);
	EXPECT_EQ(mt_errors, 0);
}
