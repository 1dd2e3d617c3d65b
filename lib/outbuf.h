/*
 * outbuf.h — text built into a caller's buffer with snprintf's contract.
 *
 * Bytes past the buffer are counted but not stored, so `len` is the length
 * the whole text would have; outbuf_end() terminates what fits (the last
 * byte of the buffer is the NUL when the text was cut) and returns that
 * length.  A zero-sized buffer stores nothing.  Used by ksnprintf
 * (boot/kprintf.c) and the argument printer (trace/btf/fsig.c).
 */
#ifndef LIB_OUTBUF_H
#define LIB_OUTBUF_H

#include <stddef.h>

struct outbuf {
	char *buf;
	size_t size, len;      /* len counts every byte, even past size */
};

static inline void outbuf_putc(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static inline void outbuf_puts(struct outbuf *o, const char *s)
{
	while (*s)
		outbuf_putc(o, *s++);
}

static inline size_t outbuf_end(struct outbuf *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len;
}

#endif
