/*
 * stack.c — the stack area's slots (stack.h).
 *
 * used[] is a bitmap of slots, claimed and released with atomic
 * read-modify-writes, so stack_alloc works in any context and before the
 * heap or the per-CPU area exist.  use[i] is written by the slot's
 * claimant after it won the bit, and read only by the overflow report.
 */
#include "boot/cpu.h"
#include "boot/stack.h"

char stack_area[STACK_SLOTS][STACK_SLOT_SIZE]
	__attribute__((aligned(STACK_SLOT_SIZE), section(".bss.stack_area")));

_Static_assert(STACK_SLOTS % 64 == 0, "whole bitmap words");
_Static_assert(STACK_SLOT_BOOT0 == 0 && STACK_SLOT_EXC0 == 1, "initial used[] bits");

static uint64_t used[STACK_SLOTS / 64] = { 3 };   /* slots 0 and 1: CPU 0's */
static const char *use[STACK_SLOTS] = { "boot/idle", "exception" };
static void *exc_stack[MAX_CPUS] = { stack_area[STACK_SLOT_EXC0] + STACK_SIZE };

void *stack_alloc(const char *what)
{
	for (unsigned w = 0; w < STACK_SLOTS / 64; w++) {
		uint64_t v = __atomic_load_n(&used[w], __ATOMIC_RELAXED);
		while (~v) {
			unsigned b = (unsigned)__builtin_ctzll(~v);
			/* RELAXED: the slot's memory is not shared with the
			 * freer (stack_free's caller has stopped using it). */
			if (__atomic_compare_exchange_n(&used[w], &v, v | 1ull << b, false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
				unsigned i = w * 64 + b;
				use[i] = what;
				return stack_area[i] + STACK_SIZE;
			}
		}
	}
	return 0;
}

void stack_free(void *stack)
{
	uintptr_t off = (uintptr_t)stack - (uintptr_t)stack_area;
	unsigned i = (unsigned)(off / STACK_SLOT_SIZE);
	if (off >= sizeof(stack_area) || off % STACK_SLOT_SIZE != STACK_SIZE || i <= STACK_SLOT_EXC0)
		return;                       /* not one of stack_alloc's: ignore */
	use[i] = 0;
	__atomic_fetch_and(&used[i / 64], ~(1ull << (i % 64)), __ATOMIC_RELEASE);
}

void *stack_exception(unsigned cpu)
{
	if (cpu >= MAX_CPUS)
		return 0;
	if (!exc_stack[cpu])
		exc_stack[cpu] = stack_alloc("exception");
	return exc_stack[cpu];
}

bool stack_find(uintptr_t addr, struct stack_span *s)
{
	uintptr_t off = addr - (uintptr_t)stack_area;
	if (off >= sizeof(stack_area))
		return false;
	unsigned i = (unsigned)(off / STACK_SLOT_SIZE);
	s->guard_lo = (uintptr_t)stack_area[i];
	s->lo = s->guard_lo + STACK_SIZE;
	s->hi = s->guard_lo + STACK_SLOT_SIZE;
	s->in_guard = addr < s->lo;
	s->use = use[i];
	return true;
}

bool stack_guard_hit(uintptr_t addr)
{
	struct stack_span s;
	return stack_find(addr, &s) && s.in_guard;
}
