/*
 * bench.c — the in-guest benchmark runner and its measuring helpers.
 */
#include <string.h>

#include "arch/hooks.h"
#include "boot/bench.h"
#include "boot/clock.h"
#include "boot/console.h"

extern const struct bench_case __benchcases_start[], __benchcases_end[];

struct bench_result bench_summarise(uint64_t *s, unsigned n)
{
	for (unsigned i = 1; i < n; i++)           /* insertion sort: n is tiny */
		for (unsigned j = i; j && s[j - 1] > s[j]; j--) {
			uint64_t t = s[j];
			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	return (struct bench_result){ s[n / 2], s[0], s[n - 1] };
}

struct bench_result bench_measure(void (*body)(void *), void *arg)
{
	uint64_t s[BENCH_ROUNDS];
	for (unsigned r = 0; r < BENCH_ROUNDS; r++) {
		unsigned long f = arch_irq_save();
		uint64_t t0 = clock_ns();
		body(arg);
		s[r] = clock_ns() - t0;
		arch_irq_restore(f);
	}
	return bench_summarise(s, BENCH_ROUNDS);
}

static void print_scaled(const char *key, uint64_t v, uint64_t div)
{
	if (div == 1)
		kprintf(" %s=%llu", key, (unsigned long long)v);
	else
		kprintf(" %s=%llu.%02llu", key, (unsigned long long)(v / div),
			(unsigned long long)((v % div) * 100 / div));
}

void bench_print(const char *name, struct bench_result r, uint64_t div, const char *unit)
{
	kprintf("bench: %s", name);
	print_scaled("value", r.median, div);
	print_scaled("min", r.min, div);
	print_scaled("max", r.max, div);
	kprintf(" unit=%s\n", unit);
}

void bench_print_na(const char *name, const char *unit, const char *why)
{
	kprintf("bench: %s value=na unit=%s why=\"%s\"\n", name, unit, why);
}

/* Is the name spec[0, len) that of a case (or "all")? */
static bool names_a_case(const char *name, size_t len)
{
	if (len == 3 && strncmp(name, "all", 3) == 0)
		return true;
	for (const struct bench_case *b = __benchcases_start; b < __benchcases_end; b++)
		if (strlen(b->name) == len && strncmp(b->name, name, len) == 0)
			return true;
	return false;
}

static int selected(const char *spec, const char *name)
{
	if (strcmp(spec, "all") == 0)
		return 1;
	size_t n = strlen(name);
	for (const char *p = spec; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0)
			return 1;
		p += len + (end ? 1 : 0);
	}
	return 0;
}

/* Every name in spec is checked first: one that names no case is
 * reported and nothing runs (status 1), as is a spec naming none. */
int bench_run(const char *spec)
{
	int ran = 0, unknown = 0;
	kprintf("bench: start arch=%s counter_hz=%llu\n", ARCH_NAME,
		(unsigned long long)arch_counter_hz());
	for (const char *p = spec; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (!names_a_case(p, len)) {
			kprintf("bench: no benchmark matches '%.*s'\n", (int)len, p);
			unknown++;
		}
		p += len + (end ? 1 : 0);
	}
	if (unknown) {
		kprintf("bench: done 0 (%d name(s) matched nothing)\n", unknown);
		return 1;
	}
	for (const struct bench_case *b = __benchcases_start; b < __benchcases_end; b++)
		if (selected(spec, b->name)) {
			b->fn();
			ran++;
		}
	kprintf("bench: done %d\n", ran);
	return ran ? 0 : 1;
}
