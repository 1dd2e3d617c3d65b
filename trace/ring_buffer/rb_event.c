/*
 * rb_event.c — encoding and decoding of ring-buffer events (the Linux layout
 * described in ring_buffer.h).  Pure functions on bytes: no shared state, any
 * context.  Writers use the inline forms in the hot path; these are the
 * reference versions, used by readers, exporters and tests.  Like all of
 * trace/, built without patchable entries.
 */
#include "trace/ring_buffer/ring_buffer.h"

static inline void put32(void *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }
static inline uint32_t get32(const void *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}

static inline uint32_t hdr(unsigned type_len, uint32_t delta)
{
	return (uint32_t)type_len | delta << 5;
}

uint32_t rb_event_size(uint32_t len)
{
	uint32_t a = (len + 3u) & ~3u;
	if (a == 0)
		a = 4;                  /* Linux stores an empty payload as 4 bytes */
	return a <= RB_TYPE_DATA_MAX * 4u ? 4u + a : 8u + a;
}

void *rb_put_data(void *p, uint32_t delta, uint32_t len)
{
	uint8_t *q = p;
	uint32_t a = (len + 3u) & ~3u;
	if (a == 0)
		a = 4;
	if (a <= RB_TYPE_DATA_MAX * 4u) {
		put32(q, hdr(a / 4u, delta));
		return q + 4;
	}
	put32(q, hdr(0, delta));
	put32(q + 4, a + 4u);   /* array[0] counts itself */
	return q + 8;
}

void *rb_put_time_extend(void *p, uint64_t delta)
{
	uint8_t *q = p;
	put32(q, hdr(RB_TYPE_TIME_EXTEND, (uint32_t)(delta & RB_DELTA_MAX)));
	put32(q + 4, (uint32_t)(delta >> RB_TS_SHIFT));
	return q + 8;
}

void *rb_put_time_stamp(void *p, uint64_t ts)
{
	uint8_t *q = p;
	put32(q, hdr(RB_TYPE_TIME_STAMP, (uint32_t)(ts & RB_DELTA_MAX)));
	put32(q + 4, (uint32_t)(ts >> RB_TS_SHIFT));
	return q + 8;
}

void *rb_put_padding(void *p, uint32_t size, uint32_t delta)
{
	uint8_t *q = p;
	put32(q, hdr(RB_TYPE_PADDING, delta));
	if (size >= 8)
		put32(q + 4, size - 4u);
	return q + size;
}

/*
 * A padding item with delta 0 is "the rest of the page" (size 0 here); one
 * with a delta (a discarded event) says its own length.  Data events must
 * fit in `avail`.
 */
int rb_decode(const void *p, uint32_t avail, struct rb_decoded *d)
{
	const uint8_t *q = p;
	if (avail < 4)
		return -RB_EINVAL;
	uint32_t h = get32(q);
	*d = (struct rb_decoded){ .type_len = h & 31u, .delta = h >> 5 };
	switch (d->type_len) {
	case RB_TYPE_PADDING:
		if (d->delta == 0) {
			d->size = 0;
			return 0;
		}
		if (avail < 8)
			return -RB_EINVAL;
		d->size = get32(q + 4) + 4u;
		return d->size < 8 || d->size > avail || (d->size & 3u) ? -RB_EINVAL : 0;
	case RB_TYPE_TIME_EXTEND:
	case RB_TYPE_TIME_STAMP:
		if (avail < 8)
			return -RB_EINVAL;
		d->size = 8;
		d->value = (uint64_t)get32(q + 4) << RB_TS_SHIFT | d->delta;
		return 0;
	case 0:
		if (avail < 8)
			return -RB_EINVAL;
		d->len = get32(q + 4);
		if (d->len < 4 || (d->len & 3u))
			return -RB_EINVAL;
		d->len -= 4u;
		d->size = 8u + d->len;
		d->data = q + 8;
		break;
	default:
		d->len = d->type_len * 4u;
		d->size = 4u + d->len;
		d->data = q + 4;
		break;
	}
	d->is_data = true;
	return d->size > avail ? -RB_EINVAL : 0;
}

uint64_t rb_ts_apply(uint64_t ts, const struct rb_decoded *d)
{
	const uint64_t top = ~((1ull << RB_TS_BITS) - 1u);
	switch (d->type_len) {
	case RB_TYPE_TIME_EXTEND:
		return ts + d->value;
	case RB_TYPE_TIME_STAMP:
		return (ts & top) | d->value;
	default:
		return ts + d->delta;     /* data, and padding as trace-cmd reads it */
	}
}
