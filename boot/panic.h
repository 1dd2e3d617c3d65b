/*
 * panic.h — broken invariants end here.
 *
 * panic() prints "PANIC on CPU n: <message>", a symbolized backtrace of the
 * caller, stops the other CPUs and powers off with PANIC_EXIT_STATUS.  Only
 * the first CPU to panic reports; others that panic meanwhile halt.
 * panic_hook, if set, runs after the report (ftrace_dump_on_oops uses it).
 *
 * warn() reports something wrong that the kernel survives: warn_hook, if
 * set, runs first (traceoff_on_warning: tracing off, so the trace up to the
 * warning is kept), then "WARNING: CPU n: <message>" and a backtrace; the
 * caller goes on.  Any context.
 */
#ifndef BOOT_PANIC_H
#define BOOT_PANIC_H

#include <stdbool.h>
#include <stdint.h>

#define PANIC_EXIT_STATUS 3

__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);
/* Like panic() but the report is already printed (fault path). */
__attribute__((noreturn)) void panic_finish(void);
bool panic_in_progress(void);
/* Claim the panic (first caller wins); false if another CPU already panics. */
bool panic_claim(void);
/* Print a backtrace starting from frame pointer fp (0 = the caller's). */
void backtrace_print(uintptr_t pc, uintptr_t fp);
/* The return addresses of the frame-record chain from fp (0: the caller's
 * frame) into out[max], returns hooked by the graph tracer resolved to
 * their real targets.  Returns how many. */
int backtrace_save(uintptr_t fp, uintptr_t *out, int max);
extern void (*panic_hook)(void);
__attribute__((format(printf, 1, 2))) void warn(const char *fmt, ...);
extern void (*warn_hook)(void);

#endif
