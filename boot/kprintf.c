/*
 * kprintf.c — the kernel's formatter.
 *
 * kvsnprintf() understands %d %i %u %x %X %o %p %s %c %% with the flags
 * '-', '0', '+', ' ', '#', a width and a precision (both may be '*') and the
 * length modifiers hh h l ll z t j.  No floating point (the kernel is built
 * without FP registers), no allocation, no locks: safe from any context.
 * kprintf() formats into a stack buffer and writes it with console_write(),
 * so one call is one uninterrupted piece of output.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/console.h"
#include "lib/outbuf.h"

static void pad(struct outbuf *o, char c, int n)
{
	while (n-- > 0)
		outbuf_putc(o, c);
}

struct spec {
	bool left, zero, plus, space, alt;
	int width, prec;       /* prec < 0: none */
};

static void put_str(struct outbuf *o, const char *s, const struct spec *sp)
{
	size_t n = 0;
	if (!s)
		s = "(null)";
	while (s[n] && (sp->prec < 0 || n < (size_t)sp->prec))
		n++;
	if (!sp->left)
		pad(o, ' ', sp->width - (int)n);
	for (size_t i = 0; i < n; i++)
		outbuf_putc(o, s[i]);
	if (sp->left)
		pad(o, ' ', sp->width - (int)n);
}

static void put_num(struct outbuf *o, uint64_t v, bool neg, unsigned base, bool upper,
		    const struct spec *sp)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	int prec = sp->prec < 0 ? 1 : sp->prec;
	int zeros = prec > n ? prec - n : 0;
	const char *prefix = "";
	if (neg)
		prefix = "-";
	else if (sp->plus && base == 10)
		prefix = "+";
	else if (sp->space && base == 10)
		prefix = " ";
	else if (sp->alt && base == 16)
		prefix = upper ? "0X" : "0x";
	else if (sp->alt && base == 8 && zeros == 0 && tmp[n - 1] != '0')
		prefix = "0";
	int plen = (int)__builtin_strlen(prefix);
	int body = plen + zeros + n;
	if (sp->zero && !sp->left && sp->prec < 0 && sp->width > body) {
		zeros += sp->width - body;
		body = sp->width;
	}
	if (!sp->left)
		pad(o, ' ', sp->width - body);
	for (int i = 0; i < plen; i++)
		outbuf_putc(o, prefix[i]);
	pad(o, '0', zeros);
	while (n)
		outbuf_putc(o, tmp[--n]);
	if (sp->left)
		pad(o, ' ', sp->width - body);
}

/* Parse flags, width and precision at *f; returns the spec. */
static struct spec parse_spec(const char **f, va_list *ap)
{
	struct spec sp = { .prec = -1 };
	for (;; (*f)++) {
		switch (**f) {
		case '-': sp.left = true; continue;
		case '0': sp.zero = true; continue;
		case '+': sp.plus = true; continue;
		case ' ': sp.space = true; continue;
		case '#': sp.alt = true; continue;
		}
		break;
	}
	if (**f == '*') {
		sp.width = va_arg(*ap, int);
		if (sp.width < 0) {
			sp.left = true;
			sp.width = -sp.width;
		}
		(*f)++;
	} else {
		while (**f >= '0' && **f <= '9')
			sp.width = sp.width * 10 + *(*f)++ - '0';
	}
	if (**f == '.') {
		(*f)++;
		sp.prec = 0;
		if (**f == '*') {
			sp.prec = va_arg(*ap, int);
			(*f)++;
		} else {
			while (**f >= '0' && **f <= '9')
				sp.prec = sp.prec * 10 + *(*f)++ - '0';
		}
	}
	return sp;
}

/* Length modifier: returns the argument size in bytes (1, 2, 4 or 8). */
static int parse_length(const char **f)
{
	int size = 4;
	switch (**f) {
	case 'h':
		size = 2;
		if (*++*f == 'h') {
			size = 1;
			(*f)++;
		}
		break;
	case 'l':
		size = 8;
		if (*++*f == 'l')
			(*f)++;
		break;
	case 'z': case 't': case 'j':
		size = 8;
		(*f)++;
		break;
	}
	return size;
}

static uint64_t fetch_unsigned(va_list *ap, int size)
{
	uint64_t v = size == 8 ? va_arg(*ap, uint64_t) : va_arg(*ap, unsigned);
	if (size == 2)
		v = (uint16_t)v;
	else if (size == 1)
		v = (uint8_t)v;
	return v;
}

static int64_t fetch_signed(va_list *ap, int size)
{
	int64_t v = size == 8 ? va_arg(*ap, int64_t) : va_arg(*ap, int);
	if (size == 2)
		v = (int16_t)v;
	else if (size == 1)
		v = (int8_t)v;
	return v;
}

int kvsnprintf(char *buf, size_t size, const char *f, va_list ap0)
{
	struct outbuf o = { buf, size, 0 };
	va_list ap;
	va_copy(ap, ap0);
	for (; *f; f++) {
		if (*f != '%') {
			outbuf_putc(&o, *f);
			continue;
		}
		f++;
		struct spec sp = parse_spec(&f, &ap);
		int size_arg = parse_length(&f);
		switch (*f) {
		case 'd': case 'i': {
			int64_t v = fetch_signed(&ap, size_arg);
			put_num(&o, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10, false, &sp);
			break;
		}
		case 'u': put_num(&o, fetch_unsigned(&ap, size_arg), false, 10, false, &sp); break;
		case 'x': put_num(&o, fetch_unsigned(&ap, size_arg), false, 16, false, &sp); break;
		case 'X': put_num(&o, fetch_unsigned(&ap, size_arg), false, 16, true, &sp); break;
		case 'o': put_num(&o, fetch_unsigned(&ap, size_arg), false, 8, false, &sp); break;
		case 'p':
			sp.alt = true;
			put_num(&o, (uintptr_t)va_arg(ap, void *), false, 16, false, &sp);
			break;
		case 's': put_str(&o, va_arg(ap, const char *), &sp); break;
		case 'c': {
			char c[2] = { (char)va_arg(ap, int), 0 };
			put_str(&o, c, &sp);
			break;
		}
		case '%': outbuf_putc(&o, '%'); break;
		case '\0': f--; break;
		default: outbuf_putc(&o, '%'); outbuf_putc(&o, *f); break;
		}
	}
	va_end(ap);
	return (int)outbuf_end(&o);
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int kvprintf(const char *fmt, va_list ap)
{
	char buf[512];
	int n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	console_write(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvprintf(fmt, ap);
	va_end(ap);
	return n;
}
