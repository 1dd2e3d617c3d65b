/*
 * console.h — kernel output and input on the serial console.
 *
 * kprintf() is the kernel's own formatter (no newlib, no FP, no allocation),
 * safe from threads and interrupt handlers; each call's output is written
 * under the console lock so lines from different CPUs do not interleave.
 * During a panic the lock is bypassed.  "\n" is sent as "\r\n".
 *
 * Input: the UART interrupt hands bytes to console_rx(); threads read them
 * with console_getc() (blocking) or console_trygetc().
 */
#ifndef BOOT_CONSOLE_H
#define BOOT_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

__attribute__((format(printf, 1, 2))) int kprintf(const char *fmt, ...);
int kvprintf(const char *fmt, va_list ap);
/* Format into buf (always NUL-terminated if size > 0); returns the full length. */
__attribute__((format(printf, 3, 4))) int ksnprintf(char *buf, size_t size, const char *fmt, ...);
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

void console_write(const char *s, size_t n);

/* Tests only: while set, fn(ctx, s, n) is also handed every write the
 * calling thread makes (as given: "\n" not yet "\r\n"), under the console
 * lock; console_tap(NULL, NULL) ends it.  One tap at a time. */
void console_tap(void (*fn)(void *ctx, const char *s, size_t n), void *ctx);
void console_rx(char c);
int console_getc(void);        /* blocks (sleeps) until a byte arrives; thread context */
int console_trygetc(void);     /* -1 if nothing is waiting */

#endif
