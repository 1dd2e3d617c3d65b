/*
 * rb_check.h — the self-checking events of the ring-buffer tortures, shared
 * by the host torture (tests/host/rb_torture.c) and the in-guest one
 * (tests/guest/test_ring_buffer.c): a header naming the writer and its
 * sequence number, a payload from a xorshift stream, and a checksum over
 * both, so a reader can tell an intact event from a torn or foreign one.
 */
#ifndef TESTS_RB_CHECK_H
#define TESTS_RB_CHECK_H

#include <stdbool.h>
#include <stdint.h>

struct hdr {
	uint32_t wid;            /* writer: cpu * levels + nesting depth */
	uint32_t len;            /* payload bytes, this header included */
	uint64_t seq;            /* per-writer, strictly increasing */
	uint64_t sum;            /* checksum(): everything but this field */
};

static inline uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static inline uint64_t checksum(const uint8_t *p, uint32_t len, const struct hdr *h)
{
	uint64_t s = 1469598103934665603ull ^ h->wid ^ (uint64_t)h->len << 32 ^ h->seq * 31;
	for (uint32_t i = sizeof(*h); i < len; i++)
		s = (s ^ p[i]) * 1099511628211ull;
	return s;
}

/* A page from rb_read_page (with `lost` its count of events lost before
 * it) says what Linux's page says: RB_MISSED_EVENTS exactly when events
 * were lost, and when RB_MISSED_STORED is set too, that count stored right
 * after the data.  Needs trace/ring_buffer/ring_buffer.h. */
static inline bool page_lost_consistent(const struct rb_page *pg, uint64_t lost)
{
	uint32_t end = (uint32_t)(pg->commit & RB_COMMIT_MASK);
	if (!(pg->commit & RB_MISSED_EVENTS))
		return lost == 0 && !(pg->commit & RB_MISSED_STORED);
	if (lost == 0)
		return false;
	if (!(pg->commit & RB_MISSED_STORED))
		return end + 8u > RB_DATA_SIZE;     /* no room for it (as Linux) */
	uint64_t stored;
	__builtin_memcpy(&stored, pg->data + end, 8);
	return stored == lost;
}

#endif
