/*
 * bench.h — in-guest benchmarks, registered like test cases.
 *
 *   BENCH_CASE(name) { ... return bench_report(...) ... }
 *
 * `bt.bench=all` (or a comma list of names) runs them on CPU 0 after boot and
 * powers off.  Each case measures its figure itself — typically with
 * bench_measure(), which runs a loop BENCH_ROUNDS times with interrupts off
 * and returns the median, min and max — and prints it with bench_print() as
 *   bench: NAME value=V min=M max=X unit=U
 * which tools/bench.py turns into the table and JSON lines.  A figure whose
 * feature is not built prints value=na.  Benchmarks report; they assert
 * nothing.
 */
#ifndef BOOT_BENCH_H
#define BOOT_BENCH_H

#include <stdint.h>

struct bench_case {
	const char *name;
	void (*fn)(void);
};

#define BENCH_CASE(name)                                                         \
	static void bench_##name(void);                                            \
	static const struct bench_case __bc_##name                                 \
		__attribute__((used, section(".benchcases"), aligned(8))) = {      \
		#name, bench_##name };                                              \
	static void bench_##name(void)

#define BENCH_ROUNDS 5

struct bench_result {
	uint64_t median, min, max;     /* in the unit of the figure */
};

/* Run body(arg) BENCH_ROUNDS times with interrupts off; each round's cost is
 * elapsed clock nanoseconds (= guest instructions under -icount shift=0). */
struct bench_result bench_measure(void (*body)(void *), void *arg);
/* Median/min/max of `n` samples (sorted in place). */
struct bench_result bench_summarise(uint64_t *samples, unsigned n);

/* value/min/max are scaled by 1/div with 2 decimals (div 1 = integers). */
void bench_print(const char *name, struct bench_result r, uint64_t div, const char *unit);
void bench_print_na(const char *name, const char *unit, const char *why);

int bench_run(const char *spec);

#endif
