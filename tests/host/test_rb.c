/*
 * test_rb.c — cmocka unit tests of the ring buffer on the host: encoding
 * round trips (checked against trace-cmd's own page parser, libtraceevent's
 * kbuffer, when it is installed), exact loss accounting in both modes, the
 * reader's page swap, nesting, resize, iterators and bad inputs.
 *
 * Single-threaded and deterministic: a fake clock drives time stamps.  The
 * concurrent cases are in rb_torture.c.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rb_host.h"
#include "tests/rb_check.h"

static uint64_t fake_now;
static uint64_t fake_step = 10;
static uint64_t fake_clock(void)
{
	uint64_t t = fake_now;
	fake_now += fake_step;
	return t;
}

static struct rb_buffer *mk(unsigned ncpus, size_t size, unsigned flags)
{
	struct rb_buffer *b = NULL;
	assert_int_equal(rb_create(&b, ncpus, size, flags, &rb_host_allocator), 0);
	return b;
}

static int setup(void **state)
{
	(void)state;
	fake_now = 1000;
	fake_step = 10;
	rb_host_set_clock(fake_clock);
	rb_host_cpu = 0;
	return 0;
}

/* An event carrying (seq, len) and a recognisable body. */
static int put(struct rb_buffer *b, uint32_t seq, uint32_t len)
{
	uint8_t buf[RB_MAX_PAYLOAD];
	assert_true(len >= 8 && len <= sizeof(buf));
	memcpy(buf, &seq, 4);
	memcpy(buf + 4, &len, 4);
	for (uint32_t i = 8; i < len; i++)
		buf[i] = (uint8_t)(seq * 7 + i);
	return rb_write(b, buf, len);
}

/* rb_reserve() that must succeed.  (The fast path is inline, so the compiler
 * sees r->data == NULL on the error path; cmocka's assert does not return.) */
static void must_reserve(struct rb_buffer *b, uint32_t len, struct rb_resv *r)
{
	int err = rb_reserve(b, len, r);
	assert_int_equal(err, 0);
	if (err)
		abort();
}

static void check_body(const struct rb_event *ev, uint32_t *seq)
{
	uint32_t len;
	const uint8_t *p = ev->data;
	memcpy(seq, p, 4);
	memcpy(&len, p + 4, 4);
	assert_int_equal(ev->len, (len + 3) & ~3u);
	for (uint32_t i = 8; i < len; i++)
		assert_int_equal(p[i], (uint8_t)(*seq * 7 + i));
}

/* Consume n events of CPU 0: sequence numbers 0..n-1 at times want[]. */
static void consume_times(struct rb_buffer *b, const uint64_t *want, uint32_t n)
{
	struct rb_event ev;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t seq;
		assert_int_equal(rb_consume(b, 0, &ev), 0);
		check_body(&ev, &seq);
		assert_int_equal(seq, i);
		assert_int_equal(ev.ts, want[i]);
	}
}

/* ---- libtraceevent's kbuffer, if installed (trace-cmd reads pages with it) ---- */

struct kbuffer;
static struct {
	bool ok;
	struct kbuffer *(*alloc)(int lsize, int endian);
	void (*free)(struct kbuffer *);
	int (*load)(struct kbuffer *, void *);
	void *(*read)(struct kbuffer *, unsigned long long *);
	void *(*next)(struct kbuffer *, unsigned long long *);
	int (*size)(struct kbuffer *);
	int (*missed)(struct kbuffer *);
} kb;

static void kb_open(void)
{
	void *h = dlopen("libtraceevent.so.1", RTLD_NOW);
	if (!h)
		return;
	kb.alloc = (void *)dlsym(h, "kbuffer_alloc");
	kb.free = (void *)dlsym(h, "kbuffer_free");
	kb.load = (void *)dlsym(h, "kbuffer_load_subbuffer");
	kb.read = (void *)dlsym(h, "kbuffer_read_event");
	kb.next = (void *)dlsym(h, "kbuffer_next_event");
	kb.size = (void *)dlsym(h, "kbuffer_event_size");
	kb.missed = (void *)dlsym(h, "kbuffer_missed_events");
	kb.ok = kb.alloc && kb.free && kb.load && kb.read && kb.next && kb.size && kb.missed;
}

/* Compare kbuffer's view of a page with rb_decode's.  Returns data events. */
static unsigned kb_check_page(void *page)
{
	struct rb_page *pg = page;
	unsigned n = 0;
	uint64_t ts = pg->time_stamp;
	uint32_t end = (uint32_t)(pg->commit & RB_COMMIT_MASK);
	struct kbuffer *k = kb.ok ? kb.alloc(1 /* 8-byte long */, 1 /* little */) : NULL;
	unsigned long long kts = 0;
	void *kd = NULL;
	if (k) {
		assert_int_equal(kb.load(k, page), 0);
		kd = kb.read(k, &kts);
	}
	for (uint32_t off = 0; off < end;) {
		struct rb_decoded d;
		assert_int_equal(rb_decode(pg->data + off, end - off, &d), 0);
		if (d.size == 0)
			break;
		ts = rb_ts_apply(ts, &d);
		off += d.size;
		if (!d.is_data)
			continue;
		n++;
		if (k) {
			assert_non_null(kd);
			assert_ptr_equal(kd, d.data);
			assert_int_equal(kts, ts);
			assert_int_equal(kb.size(k), d.len);
			kd = kb.next(k, &kts);
		}
	}
	if (k) {
		assert_null(kd);
		kb.free(k);
	}
	return n;
}

/* ---- Encoding ---------------------------------------------------------------- */

static void test_event_roundtrip(void **state)
{
	(void)state;
	uint8_t buf[RB_PAGE_SIZE];
	for (uint32_t len = 0; len <= RB_MAX_PAYLOAD; len += (len < 130 ? 1 : 97)) {
		memset(buf, 0xa5, sizeof(buf));
		uint8_t *p = rb_put_data(buf, 12345, len);
		uint32_t a = len ? (len + 3) & ~3u : 4;
		assert_int_equal(p - buf, a <= 112 ? 4 : 8);
		assert_int_equal(rb_event_size(len), (uint32_t)(p - buf) + a);
		struct rb_decoded d;
		assert_int_equal(rb_decode(buf, rb_event_size(len), &d), 0);
		assert_true(d.is_data);
		assert_int_equal(d.delta, 12345);
		assert_int_equal(d.len, a);
		assert_int_equal(d.size, rb_event_size(len));
		assert_ptr_equal(d.data, p);
		assert_int_equal(d.type_len, a <= 112 ? a / 4 : 0);
		/* one byte short of the event is malformed */
		assert_int_not_equal(rb_decode(buf, rb_event_size(len) - 4, &d), 0);
	}
	assert_int_equal(rb_event_size(RB_MAX_PAYLOAD), RB_DATA_SIZE);
}

static void test_time_items_roundtrip(void **state)
{
	(void)state;
	const uint64_t deltas[] = { 0, 1, RB_DELTA_MAX, RB_DELTA_MAX + 1ull, 1ull << 40,
				    (1ull << RB_TS_BITS) - 1 };
	uint8_t buf[8];
	struct rb_decoded d;
	for (unsigned i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++) {
		assert_ptr_equal(rb_put_time_extend(buf, deltas[i]), buf + 8);
		assert_int_equal(rb_decode(buf, 8, &d), 0);
		assert_int_equal(d.type_len, RB_TYPE_TIME_EXTEND);
		assert_false(d.is_data);
		assert_int_equal(d.value, deltas[i]);
		assert_int_equal(rb_ts_apply(1000, &d), 1000 + deltas[i]);

		rb_put_time_stamp(buf, deltas[i]);
		assert_int_equal(rb_decode(buf, 8, &d), 0);
		assert_int_equal(d.type_len, RB_TYPE_TIME_STAMP);
		assert_int_equal(d.value, deltas[i]);
		/* absolute: replaces the low 59 bits, keeps the top 5 */
		assert_int_equal(rb_ts_apply(0xf800000000000123ull, &d), 0xf800000000000000ull | deltas[i]);
	}
	/* split: 27 bits in the header, the rest in array[0] */
	rb_put_time_extend(buf, (5ull << RB_TS_SHIFT) | 7);
	uint32_t w[2];
	memcpy(w, buf, 8);
	assert_int_equal(w[0], RB_TYPE_TIME_EXTEND | 7u << 5);
	assert_int_equal(w[1], 5);
	assert_int_not_equal(rb_decode(buf, 4, &d), 0);
}

static void test_padding_roundtrip(void **state)
{
	(void)state;
	uint8_t buf[256];
	struct rb_decoded d;
	/* header-only padding: "rest of the page" */
	assert_ptr_equal(rb_put_padding(buf, 4, 0), buf + 4);
	assert_int_equal(rb_decode(buf, 4, &d), 0);
	assert_int_equal(d.type_len, RB_TYPE_PADDING);
	assert_int_equal(d.size, 0);
	/* padding with a length (a discarded event keeps its delta) */
	for (uint32_t size = 8; size <= 200; size += 4) {
		assert_ptr_equal(rb_put_padding(buf, size, 3), buf + size);
		assert_int_equal(rb_decode(buf, size, &d), 0);
		assert_int_equal(d.size, size);
		assert_false(d.is_data);
		assert_int_equal(rb_ts_apply(10, &d), 13);
		assert_int_not_equal(rb_decode(buf, size - 4, &d), 0);
	}
}

/* A hand-built page with every kind of item, read by rb_decode and kbuffer. */
static void test_page_layout_kbuffer(void **state)
{
	(void)state;
	static struct rb_page pg;
	uint8_t *p = pg.data;
	memset(&pg, 0, sizeof(pg));
	pg.time_stamp = 1000000;
	p = rb_put_data(p, 0, 16);
	memset(p, 1, 16);
	p += 16;
	p = rb_put_time_extend(p, 5ull << 30);
	p = rb_put_data(p, 0, 200);
	memset(p, 2, 200);
	p += 200;
	p = rb_put_padding(p, 24, 9);
	p = rb_put_data(p, 77, 4);
	memset(p, 3, 4);
	p += 4;
	pg.commit = (uint64_t)(p - pg.data);
	rb_put_padding(p, RB_DATA_SIZE - (uint32_t)(p - pg.data), 0);
	assert_int_equal(kb_check_page(&pg), 3);
	if (!kb.ok)
		print_message("# libtraceevent not found: checked with rb_decode only\n");
	assert_int_equal(offsetof(struct rb_page, commit), 8);
	assert_int_equal(offsetof(struct rb_page, data), 16);
	assert_int_equal(sizeof(struct rb_page), RB_PAGE_SIZE);
}

/* ---- Writing and reading ----------------------------------------------------- */

static void test_write_read(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 8 * RB_DATA_SIZE, 0);
	struct rb_event ev;
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	for (uint32_t i = 0; i < 300; i++)
		assert_int_equal(put(b, i, 8 + i % 150), 0);
	uint64_t ts = 0;
	for (uint32_t i = 0; i < 300; i++) {
		uint32_t seq;
		assert_int_equal(rb_peek(b, 0, &ev), 0);
		check_body(&ev, &seq);
		assert_int_equal(seq, i);
		assert_int_equal(rb_consume(b, 0, &ev), 0);
		check_body(&ev, &seq);
		assert_int_equal(seq, i);
		assert_int_equal(ev.lost, 0);
		assert_int_equal(ev.ts, 1000 + 10 * i);   /* one clock read per write */
		assert_true(ev.ts > ts);
		ts = ev.ts;
	}
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	struct rb_stats s;
	assert_int_equal(rb_stats(b, 0, &s), 0);
	assert_int_equal(s.read, 300);
	assert_int_equal(s.overrun + s.dropped, 0);
	rb_destroy(b);
}

/* Deltas that need a time extend, at and across page starts. */
static void test_time_extend_in_buffer(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 4 * RB_DATA_SIZE, 0);
	const uint64_t gaps[] = { 1, RB_DELTA_MAX, RB_DELTA_MAX + 1ull, 1ull << 33, 3, 1ull << 45 };
	uint64_t want[60];
	for (uint32_t i = 0; i < 60; i++) {
		fake_step = 0;
		want[i] = fake_now;
		assert_int_equal(put(b, i, 40 + (i % 3) * 60), 0);
		fake_now += gaps[i % 6];
	}
	consume_times(b, want, 60);
	rb_destroy(b);
}

/* Consume from the page the writer is still filling, then let the writer
 * go on in it and beyond: the reader holds that page, the writer never waits. */
static void test_reader_swap_tail_page(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 2 * RB_DATA_SIZE, 0);   /* 2 ring pages + 1 reader page */
	struct rb_event ev;
	uint32_t seq, next = 0, w = 0;
	for (; w < 3; w++)
		assert_int_equal(put(b, w, 64), 0);
	for (; next < 3; next++) {
		assert_int_equal(rb_consume(b, 0, &ev), 0);   /* reader now owns page 0 */
		check_body(&ev, &seq);
		assert_int_equal(seq, next);
	}
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	/* producer/consumer: the reader's page plus 2 ring pages of room */
	uint32_t per_page = RB_DATA_SIZE / rb_event_size(64);
	while (put(b, w, 64) == 0)
		w++;
	assert_int_equal(w, 3 * per_page);
	assert_int_equal(put(b, w, 64), -RB_EDROPPED);
	for (; next < w; next++) {
		assert_int_equal(rb_consume(b, 0, &ev), 0);
		check_body(&ev, &seq);
		assert_int_equal(seq, next);
		assert_int_equal(ev.lost, 0);
	}
	/* The two drops are reported before the first event of the next page. */
	w += 2;
	for (uint32_t i = 0; i < 5; i++, w++)
		assert_int_equal(put(b, w, 64), 0);
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	check_body(&ev, &seq);
	assert_int_equal(seq, next + 2);
	assert_int_equal(ev.lost, 2);
	struct rb_stats s;
	rb_stats(b, 0, &s);
	assert_int_equal(s.dropped, 2);
	assert_int_equal(s.lost_reported, 2);
	rb_destroy(b);
}

/* Overwrite mode, reader asleep: exactly the oldest whole pages are lost, and
 * the count arrives with the first surviving event -- also when lapped many
 * times. */
static void test_overwrite_loss_exact(void **state)
{
	(void)state;
	const uint32_t writes[] = { 100, 700, 5000 };
	for (unsigned k = 0; k < 3; k++) {
		struct rb_buffer *b = mk(1, 3 * RB_DATA_SIZE, RB_FL_OVERWRITE);
		for (uint32_t i = 0; i < writes[k]; i++)
			assert_int_equal(put(b, i, 8 + (i * 13) % 100), 0);
		struct rb_event ev;
		uint32_t seq, expect = 0, nread = 0;
		uint64_t lost = 0;
		while (rb_consume(b, 0, &ev) == 0) {
			check_body(&ev, &seq);
			assert_int_equal(seq, expect + ev.lost);
			lost += ev.lost;
			expect = seq + 1;
			nread++;
		}
		assert_int_equal(expect, writes[k]);
		assert_int_equal(nread + lost, writes[k]);
		struct rb_stats s;
		rb_stats(b, 0, &s);
		assert_int_equal(s.overrun, lost);
		assert_int_equal(s.dropped, 0);
		assert_int_equal(s.lost_reported, lost);
		if (k > 0)
			assert_true(lost > 0);
		rb_destroy(b);
	}
}

/* Consume up to max events on CPU 0, checking that each event's sequence
 * number is the previous one's + 1 + its lost count; returns events read
 * and adds the lost ones to *lost.  *expect: the next sequence number. */
static uint32_t read_checked(struct rb_buffer *b, uint32_t max, uint32_t *expect, uint64_t *lost)
{
	struct rb_event ev;
	uint32_t seq, n = 0;
	while (n < max && rb_consume(b, 0, &ev) == 0) {
		check_body(&ev, &seq);
		assert_int_equal(seq, *expect + ev.lost);
		*lost += ev.lost;
		*expect = seq + 1;
		n++;
	}
	return n;
}

/* Everything left on CPU 0, checked. */
static uint32_t drain_checked(struct rb_buffer *b, uint32_t *expect, uint64_t *lost)
{
	return read_checked(b, UINT32_MAX, expect, lost);
}

/* The end of an overwrite-mode case: drain what is left, then every event
 * written was read or counted lost, and the counters agree; destroys b. */
static void drain_and_account(struct rb_buffer *b, uint32_t w, uint32_t nread, uint32_t expect,
			      uint64_t lost)
{
	struct rb_stats s;
	nread += drain_checked(b, &expect, &lost);
	assert_int_equal(expect, w);
	rb_stats(b, 0, &s);
	assert_true(lost > 0);
	assert_int_equal(nread + lost, w);
	assert_int_equal(s.overrun, lost);
	assert_int_equal(s.lost_reported, lost);
	rb_destroy(b);
}


/*
 * A writer interrupted in B' right after loading the slot word of page n-N
 * (rb_port_race: the hook plays the interrupt), while nested writers drop
 * an event (nesting too deep) and then make the same move themselves: page
 * n-N's physical page becomes page n, with a drop before it.  The resumed
 * writer must not record that page's new bookkeeping as page n-N's in C
 * (slot_c): the reader that skips pages 0 and 1 is told exactly their
 * events, and the drop with the page after it; in a second round the
 * writer laps on first, so page 3 and the drop before it are lost as well
 * (C counts a lost page's drops too).
 */
static struct rb_buffer *race_b;
static bool race_armed;
static uint32_t race_seq;

static void fill_seq(struct rb_resv *r, uint32_t seq, uint32_t len)
{
	memcpy(r->data, &seq, 4);
	memcpy((uint8_t *)r->data + 4, &len, 4);
	for (uint32_t i = 8; i < len; i++)
		((uint8_t *)r->data)[i] = (uint8_t)(seq * 7 + i);
}

static void race_nested_writers(void)
{
	if (!race_armed)
		return;
	race_armed = false;
	struct rb_resv r[8];
	for (unsigned i = 0; i < 7; i++) {          /* levels 1..7, in page 2 */
		must_reserve(race_b, 8, &r[i]);
		fill_seq(&r[i], race_seq++, 8);
	}
	assert_int_equal(rb_reserve(race_b, 8, &r[7]), -RB_EDROPPED);   /* level 8 */
	race_seq++;
	for (unsigned i = 7; i-- > 0;)
		rb_commit(&r[i]);
	assert_int_equal(put(race_b, race_seq++, 3000), 0);   /* moves to page 3 */
}

static void interrupted_move(unsigned round)
{
	struct rb_buffer *b = race_b = mk(1, 3 * RB_DATA_SIZE, RB_FL_OVERWRITE);
	uint32_t per_page = RB_DATA_SIZE / rb_event_size(100);      /* 39 */
	uint32_t w = 0;
	for (; w < 2 * per_page + 30; w++)                          /* pages 0, 1, most of 2 */
		assert_int_equal(put(b, w, 100), 0);
	race_seq = w;
	race_armed = true;
	rb_host_race_hook = race_nested_writers;
	struct rb_resv r;
	must_reserve(b, 2000, &r);       /* does not fit in page 2: moves, interrupted */
	rb_host_race_hook = NULL;
	assert_false(race_armed);
	fill_seq(&r, race_seq++, 2000);
	rb_commit(&r);
	struct rb_stats s;
	rb_stats(b, 0, &s);
	assert_int_equal(s.overrun, 2 * per_page);
	assert_int_equal(s.dropped, 1);
	if (round == 1)       /* page 3, the drop before it, overwritten too */
		for (uint32_t i = 0; i < 4 * per_page; i++)
			assert_int_equal(put(b, race_seq++, 100), 0);
	uint32_t expect = 0, nread;
	uint64_t lost = 0;
	nread = drain_checked(b, &expect, &lost);
	assert_int_equal(expect, race_seq);
	rb_stats(b, 0, &s);
	assert_int_equal(s.dropped, 1);
	assert_true(round == 0 || s.overrun > 2 * per_page + 1);
	assert_int_equal(lost, s.overrun + s.dropped);
	assert_int_equal(nread + lost, race_seq);
	rb_destroy(b);
}

static void test_overwrite_interrupted_move(void **state)
{
	(void)state;
	for (unsigned round = 0; round < 2; round++)
		interrupted_move(round);
}

/*
 * The reader and the writer race for one slot word, each inside the
 * other's window (rb_port_race; the hook plays the other CPU):
 *   - the writer has recorded C(n-N) and is about to overwrite page n-N
 *     when the reader swaps that page out: the writer's CAS fails, C(n-N)
 *     goes back to C(n-N-1), the writer takes the reader's spare;
 *   - the reader has found page h and is about to swap it out when the
 *     writer overwrites it: the reader's CAS fails, it skips the page and
 *     is told its events.
 * Then the writer laps the ring a few times with the reader asleep; every
 * event read says exactly how many were lost before it.
 */
static unsigned race_calls, race_at;
static void (*race_act)(void);

static void race_count(void)
{
	if (++race_calls != race_at)
		return;
	race_act();
}

static void race_reader_takes(void)
{
	struct rb_event ev;
	uint32_t seq;
	assert_int_equal(rb_consume(race_b, 0, &ev), 0);   /* swaps page 0 out */
	check_body(&ev, &seq);
	assert_int_equal(seq, 0);
	assert_int_equal(ev.lost, 0);
}

static void race_writer_overwrites(void)
{
	assert_int_equal(put(race_b, race_seq++, 100), 0);  /* page 3, over page 0 */
}

static void test_reader_writer_race(void **state)
{
	(void)state;
	uint32_t per_page = RB_DATA_SIZE / rb_event_size(100);      /* 39 */
	for (unsigned reader_wins = 0; reader_wins < 2; reader_wins++) {
		struct rb_buffer *b = race_b = mk(1, 3 * RB_DATA_SIZE, RB_FL_OVERWRITE);
		uint32_t w = 0, expect = 0, nread = 0;
		uint64_t lost = 0;
		for (; w < 3 * per_page; w++)                       /* pages 0..2, full */
			assert_int_equal(put(b, w, 100), 0);
		race_calls = 0;
		rb_host_race_hook = race_count;
		if (reader_wins) {
			/* The writer's move to page 3: its second point is between
			 * storing C(0) and the CAS that overwrites page 0. */
			race_at = 2;
			race_act = race_reader_takes;
			assert_int_equal(put(b, w++, 100), 0);
			expect = 1;
			nread = 1;
		} else {
			/* The reader's first point is just before its swap of page 0. */
			race_at = 1;
			race_act = race_writer_overwrites;
			race_seq = w;
			struct rb_event ev;
			uint32_t seq;
			assert_int_equal(rb_consume(b, 0, &ev), 0);
			check_body(&ev, &seq);
			assert_int_equal(seq, per_page);            /* page 1's first */
			assert_int_equal(ev.lost, per_page);
			w = race_seq;
			expect = seq + 1;
			nread = 1;
			lost = ev.lost;
		}
		rb_host_race_hook = NULL;
		assert_true(race_calls >= race_at);
		struct rb_stats s;
		rb_stats(b, 0, &s);
		assert_int_equal(s.overrun, reader_wins ? 0 : per_page);
		for (uint32_t i = 0; i < 10 * per_page; i++, w++)  /* laps, reader asleep */
			assert_int_equal(put(b, w, 8 + (i * 13) % 150), 0);
		drain_and_account(b, w, nread, expect, lost);
	}
}

/* Overwrite mode with a reader that reads now and then: pages the reader
 * swapped out come back as spares, others are overwritten, and every event
 * read says exactly how many were lost before it. */
static void test_overwrite_loss_interleaved(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 3 * RB_DATA_SIZE, RB_FL_OVERWRITE);
	uint32_t expect = 0, w = 0, nread = 0;
	uint64_t lost = 0;
	for (unsigned round = 0; round < 60; round++) {
		for (unsigned i = 0; i < 20 + round % 9 * 25; i++, w++)
			assert_int_equal(put(b, w, 8 + (w * 29) % 180), 0);
		nread += read_checked(b, 10 + round % 5 * 30, &expect, &lost);
	}
	drain_and_account(b, w, nread, expect, lost);
}

/* Producer/consumer: new events are dropped, counted, and reported where
 * they were lost -- including a reader that reads in between. */
static void test_pc_drop_exact(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 3 * RB_DATA_SIZE, 0);
	uint32_t expect = 0, w = 0, nread = 0, attempts = 0;
	uint64_t lost = 0, dropped = 0;
	for (unsigned round = 0; round < 40; round++) {
		for (unsigned i = 0; i < 150; i++, attempts++) {
			int r = put(b, w, 8 + (w * 29) % 180);
			w++;
			assert_true(r == 0 || r == -RB_EDROPPED);
			dropped += r != 0;
		}
		nread += read_checked(b, 60 + round % 7 * 30, &expect, &lost);
	}
	nread += drain_checked(b, &expect, &lost);
	struct rb_stats s;
	rb_stats(b, 0, &s);
	assert_true(dropped > 0);
	assert_int_equal(s.dropped, dropped);
	assert_int_equal(s.overrun, 0);
	assert_int_equal(nread + dropped, attempts);
	/* drops after the last page stay pending until a page follows */
	assert_int_equal(lost + s.pending_drops, dropped);
	assert_int_equal(expect + s.pending_drops, w);
	rb_destroy(b);
}

/* More drops at one page boundary than the tail word's count holds
 * (T_DP_MAX, 524,287: dp stays below bit 60): the rest go through `unplaced`, and the reader is told them
 * all with the first event after the gap, by event and by page. */
static void test_drops_beyond_tail_count(void **state)
{
	(void)state;
	for (unsigned how = 0; how < 2; how++) {
		struct rb_buffer *b = mk(1, 2 * RB_DATA_SIZE, 0);
		uint32_t w = 0;
		while (put(b, w, 8) == 0)
			w++;
		const uint64_t drops = 5000000;          /* the failed put above is one */
		for (uint64_t i = 1; i < drops; i++)
			assert_int_equal(put(b, w + 1, 8), -RB_EDROPPED);
		struct rb_stats s;
		rb_stats(b, 0, &s);
		assert_int_equal(s.dropped, drops);
		assert_int_equal(s.pending_drops + s.unplaced, drops);
		assert_int_equal(s.pending_drops, (1u << 19) - 1u);
		/* Read all but the last page's events, so a page is free. */
		struct rb_event ev;
		uint32_t seq;
		for (uint32_t i = 0; i < w; i++) {
			assert_int_equal(rb_consume(b, 0, &ev), 0);
			check_body(&ev, &seq);
			assert_int_equal(seq, i);
			assert_int_equal(ev.lost, 0);
		}
		assert_int_equal(put(b, 77, 8), 0);       /* into a new page */
		rb_stats(b, 0, &s);
		assert_int_equal(s.pending_drops + s.unplaced, 0);
		if (how == 0) {
			assert_int_equal(rb_consume(b, 0, &ev), 0);
			check_body(&ev, &seq);
			assert_int_equal(seq, 77);
			assert_int_equal(ev.lost, drops);
		} else {
			static struct rb_page out;
			unsigned nev;
			uint64_t lost;
			assert_int_equal(rb_read_page(b, 0, &out, &nev, &lost), rb_event_size(8));
			assert_int_equal(nev, 1);
			assert_int_equal(lost, drops);
			uint64_t stored;
			assert_true(out.commit & RB_MISSED_STORED);
			memcpy(&stored, out.data + (out.commit & RB_COMMIT_MASK), 8);
			assert_int_equal(stored, drops);
		}
		rb_stats(b, 0, &s);
		assert_int_equal(s.lost_reported, drops);
		rb_destroy(b);
	}
}

/* Commits become visible in order: a nested writer's event stays invisible
 * until the writer it interrupted commits, and timestamps follow position. */
static void test_nested_commit_order(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 4 * RB_DATA_SIZE, 0);
	struct rb_resv outer, inner;
	struct rb_event ev;
	uint32_t seq;
	must_reserve(b, 16, &outer);
	memset(outer.data, 0, 16);
	assert_int_equal(put(b, 1, 16), 0);     /* "interrupt" writes and commits */
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	must_reserve(b, 24, &inner);   /* two levels deep */
	assert_int_equal(put(b, 3, 16), 0);
	memset(inner.data, 0, 24);
	((uint32_t *)inner.data)[0] = 2;
	((uint32_t *)inner.data)[1] = 8;
	rb_commit(&inner);
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	rb_commit(&outer);
	uint64_t ts = 0;
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(rb_consume(b, 0, &ev), 0);
		memcpy(&seq, ev.data, 4);
		assert_int_equal(seq, i);
		assert_true(ev.ts > ts);
		ts = ev.ts;
	}
	/* nested writers filling whole pages while the outer one is open */
	must_reserve(b, 16, &outer);
	memset(outer.data, 0, 16);
	((uint32_t *)outer.data)[0] = 100;
	uint32_t n = 0;
	while (put(b, 101 + n, 120) == 0)
		n++;
	/* the commit is a lap behind: the writer must not wrap onto it */
	assert_true(n > 2 * RB_DATA_SIZE / 128);
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	rb_commit(&outer);
	for (uint32_t i = 0; i <= n; i++) {
		assert_int_equal(rb_consume(b, 0, &ev), 0);
		memcpy(&seq, ev.data, 4);
		assert_int_equal(seq, 100 + i);
	}
	rb_destroy(b);
}

/* The variant for callers holding preemption off: same stream, same errors. */
static void test_nopreempt_variant(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(2, 4 * RB_DATA_SIZE, 0);
	struct rb_resv r;
	struct rb_event ev;
	uint32_t seq;
	assert_int_equal(put(b, 0, 8), 0);
	int err = rb_reserve_nopreempt(b, 8, &r);
	assert_int_equal(err, 0);
	if (err)
		abort();
	assert_int_equal(put(b, 2, 12), 0);      /* nested in it */
	memcpy(r.data, &(uint32_t){ 1 }, 4);
	memcpy((uint8_t *)r.data + 4, &(uint32_t){ 8 }, 4);
	rb_commit_nopreempt(&r);
	for (uint32_t i = 0; i < 3; i++) {
		assert_int_equal(rb_consume(b, 0, &ev), 0);
		check_body(&ev, &seq);
		assert_int_equal(seq, i);
	}
	rb_record_off(b);
	assert_int_equal(rb_reserve_nopreempt(b, 8, &r), -RB_EOFF);
	assert_null(r.data);
	rb_record_on(b);
	rb_host_cpu = 5;                           /* no buffer for this CPU */
	assert_int_equal(rb_reserve_nopreempt(b, 8, &r), -RB_EINVAL);
	rb_host_cpu = 0;
	assert_int_equal(rb_reserve_nopreempt(b, RB_MAX_PAYLOAD + 1, &r), -RB_E2BIG);
	rb_destroy(b);
}

static void test_nesting_limit(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 4 * RB_DATA_SIZE, 0);
	struct rb_resv r[9];
	for (unsigned i = 0; i < 8; i++) {
		must_reserve(b, 8, &r[i]);
		memset(r[i].data, 0, 8);
	}
	assert_int_equal(rb_reserve(b, 8, &r[8]), -RB_EDROPPED);
	for (unsigned i = 8; i-- > 0;)
		rb_commit(&r[i]);
	struct rb_stats s;
	rb_stats(b, 0, &s);
	assert_int_equal(s.dropped, 1);
	rb_destroy(b);
}

/*
 * White box: the inline fast path publishes exactly what the general E step
 * would.  After every outermost commit the commit word is rb_publish() of
 * the tail, and the tail page's header keeps the copy of its pstart that
 * the fast path reads -- across moves, overwrites, reader swaps and a
 * reset.  A cleared buffer's first event takes the general path (T_FRESH)
 * and starts the page.
 */
static void check_published(struct rb_buffer *b)
{
	struct rb_cpu *cb = b->cpu[0];
	uint64_t t = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
	assert_int_equal(G_INSIDE(__atomic_load_n(&cb->gate, __ATOMIC_RELAXED)), 0);
	assert_int_equal(__atomic_load_n(&cb->commit, __ATOMIC_RELAXED), rb_commit_word(cb, t));
	assert_int_equal(rb_pg(cb, T_PIDX(t))->commit, cb->pstart[T_PIDX(t)]);
}

static void test_fast_path_publishes(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 3 * RB_DATA_SIZE, RB_FL_OVERWRITE);
	struct rb_event ev;
	for (int round = 0; round < 2; round++) {
		struct rb_resv r;
		uint64_t first = fake_now;
		must_reserve(b, 24, &r);
		assert_int_equal(r.tail, 0);         /* T_FRESH: the general path */
		memset(r.data, 0, 24);
		rb_commit(&r);
		check_published(b);
		assert_int_equal(rb_pg(b->cpu[0], 0)->time_stamp, first);
		unsigned fast = 0, slow = 0;
		for (uint32_t i = 1; i < 2000; i++) {
			must_reserve(b, 8 + (i % 5) * 12, &r);
			fast += r.tail != 0;
			slow += r.tail == 0;
			memset(r.data, 0, 8 + (i % 5) * 12);
			rb_commit(&r);
			check_published(b);
			if (i % 97 == 0)           /* a reader swapping pages out */
				while (rb_consume(b, 0, &ev) == 0 && i % 3)
					;
		}
		assert_true(fast > 1500);
		assert_true(slow > 10);            /* the moves */
		rb_record_off(b);
		assert_int_equal(rb_reset(b, 0), 0);
		rb_record_on(b);
	}
	rb_destroy(b);
}

/*
 * rb_reserve_fast_at: a time the writer read is the event's time when it
 * keeps the buffer's times in order; an older one than the last event's,
 * or one an interrupt's event came after, goes to rb_reserve_rest, which
 * reads the clock itself.  Read back: exactly those times, in order.
 */
static bool put_at(struct rb_buffer *b, uint32_t seq, uint64_t ts)
{
	struct rb_resv r;
	uint64_t g;
	bool fast = rb_reserve_fast_at(rb_cpu_buffer(b, 0), 8, ts, &r, &g);
	if (!fast)
		assert_int_equal(rb_reserve_rest(8, g, &r), 0);
	memcpy(r.data, &seq, 4);
	memcpy((uint8_t *)r.data + 4, &(uint32_t){ 8 }, 4);
	if (fast)
		rb_commit_fast(&r);
	else
		rb_commit_nopreempt(&r);
	return fast;
}

static void test_given_time(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 4 * RB_DATA_SIZE, 0);
	fake_step = 0;
	fake_now = 1000;
	assert_int_equal(put(b, 0, 8), 0);              /* 1000: starts the page */
	assert_true(put_at(b, 1, 1500));                /* later: taken */
	assert_true(put_at(b, 2, 1500));                /* the same time: taken */
	fake_now = 2000;
	assert_false(put_at(b, 3, 1400));               /* older: the clock's 2000 */
	fake_now = 3000;
	assert_int_equal(put(b, 4, 8), 0);   /* an interrupt before our A, at 3000 ... */
	fake_now = 3100;
	assert_false(put_at(b, 5, 2500));               /* ... after our 2500: 3100 */
	assert_false(put_at(b, 6, 3100 + (1ull << RB_TS_SHIFT)));   /* needs an extend */
	/* Inside another writer (an interrupt after its A): the general path. */
	struct rb_resv outer;
	fake_now = 4000;
	must_reserve(b, 8, &outer);
	memcpy(outer.data, &(uint32_t){ 7 }, 4);
	memcpy((uint8_t *)outer.data + 4, &(uint32_t){ 8 }, 4);
	fake_now = 4100;
	assert_false(put_at(b, 8, 4200));               /* nested: the clock's 4100 */
	rb_commit(&outer);
	fake_now = 4400;
	assert_false(put_at(b, 9, 4300));   /* the last event is level 1's: 4400 */
	const uint64_t want[] = { 1000, 1500, 1500, 2000, 3000, 3100, 3100, 4000, 4100, 4400 };
	consume_times(b, want, 10);
	struct rb_event ev;
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	/* A cleared buffer has no previous time: the general path starts the page. */
	rb_record_off(b);
	assert_int_equal(rb_reset(b, 0), 0);
	rb_record_on(b);
	fake_now = 5100;
	assert_false(put_at(b, 0, 5000));
	consume_times(b, (const uint64_t[]){ 5100 }, 1);
	rb_destroy(b);
}

/* Pages for trace.dat: whole pages, missed-event flags, kbuffer agrees. */
static void test_read_page(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 3 * RB_DATA_SIZE, 0);
	static struct rb_page out;
	unsigned nev, total = 0;
	uint32_t w = 0;
	while (put(b, w, 8 + w % 200) == 0)
		w++;
	assert_int_equal(put(b, w + 1, 8), -RB_EDROPPED);    /* 2 drops so far */
	int n;
	while ((n = rb_read_page(b, 0, &out, &nev, NULL)) > 0) {
		assert_int_equal(out.commit & (RB_MISSED_EVENTS | RB_MISSED_STORED), 0);
		assert_int_equal(out.commit & RB_COMMIT_MASK, n);
		assert_int_equal(kb_check_page(&out), nev);
		total += nev;
	}
	assert_int_equal(n, 0);
	assert_int_equal(total, w);
	fake_now += 1ull << 35;    /* a long pause: the next page starts a new base */
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(put(b, w + 2 + i, 40), 0);
	uint64_t lost;
	assert_int_equal(rb_read_page(b, 0, &out, &nev, &lost), 10 * rb_event_size(40));
	assert_int_equal(lost, 2);
	if (kb.ok)
		print_message("# pages cross-checked with libtraceevent's kbuffer\n");
	assert_int_equal(nev, 10);
	assert_true(out.commit & RB_MISSED_EVENTS);
	assert_true(out.commit & RB_MISSED_STORED);
	uint64_t missed;
	memcpy(&missed, out.data + (out.commit & RB_COMMIT_MASK), 8);
	assert_int_equal(missed, 2);
	if (kb.ok) {
		struct kbuffer *k = kb.alloc(1, 1);
		kb.load(k, &out);
		assert_int_equal(kb.missed(k), 2);
		kb.free(k);
	}
	assert_int_equal(kb_check_page(&out), 10);
	/* a partly consumed page comes out as the rest, with the right base */
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(put(b, 100 + i, 40), 0);
	struct rb_event ev;
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	uint64_t second_ts = ev.ts + 10;
	assert_int_equal(rb_read_page(b, 0, &out, &nev, &lost), 5 * rb_event_size(40));
	assert_int_equal(lost, 0);
	assert_int_equal(out.commit & (RB_MISSED_EVENTS | RB_MISSED_STORED), 0);
	struct rb_decoded d;
	assert_int_equal(rb_decode(out.data, 4096, &d), 0);
	assert_int_equal(rb_ts_apply(out.time_stamp, &d), second_ts);
	assert_int_equal(kb_check_page(&out), 5);
	rb_destroy(b);
}

/* ---- Control ------------------------------------------------------------------- */

static void test_bad_inputs(void **state)
{
	(void)state;
	struct rb_buffer *b = NULL;
	assert_int_equal(rb_create(&b, 1, 0, 0, &rb_host_allocator), -RB_EINVAL);
	assert_int_equal(rb_create(&b, 0, 4096, 0, &rb_host_allocator), -RB_EINVAL);
	assert_int_equal(rb_create(&b, RB_MAX_CPUS + 1, 4096, 0, &rb_host_allocator), -RB_EINVAL);
	assert_int_equal(rb_create(&b, 1, 4096, 0x80, &rb_host_allocator), -RB_EINVAL);
	assert_int_equal(rb_create(&b, 1, (size_t)RB_DATA_SIZE * 70000, 0, &rb_host_allocator),
			 -RB_E2BIG);
	assert_null(b);
	b = mk(2, 4 * RB_DATA_SIZE, 0);
	assert_int_equal(put(b, 0, 8), 0);
	struct rb_stats s0, s1;
	rb_stats(b, 0, &s0);
	uint8_t big[RB_MAX_PAYLOAD + 1] = { 0 };
	struct rb_resv r;
	assert_int_equal(rb_reserve(b, RB_MAX_PAYLOAD + 1, &r), -RB_E2BIG);
	assert_int_equal(rb_write(b, big, 100000), -RB_E2BIG);
	assert_int_equal(rb_write(b, big, RB_MAX_PAYLOAD), 0);   /* the largest fits */
	rb_host_cpu = 5;
	assert_int_equal(put(b, 1, 8), -RB_EINVAL);
	rb_host_cpu = 0;
	rb_stats(b, 0, &s1);
	assert_memory_equal(&s0, &s1, sizeof(s0));
	assert_int_equal(rb_stats(b, 2, &s1), -RB_EINVAL);
	struct rb_event ev;
	assert_int_equal(rb_consume(b, 7, &ev), -RB_EINVAL);
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	assert_int_equal(ev.len, RB_MAX_PAYLOAD);
	/* messages: every code has its own */
	for (int e = 0; e < RB_NERR; e++)
		for (int f = e + 1; f < RB_NERR; f++)
			assert_string_not_equal(rb_strerror(-e), rb_strerror(-f));
	assert_non_null(strstr(rb_strerror(-RB_E2BIG), "page"));
	assert_non_null(rb_strerror(-1000));
	rb_destroy(b);
}

static void test_record_switches(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(2, 4 * RB_DATA_SIZE, 0);
	assert_true(rb_record_is_on(b, 0));
	rb_record_off(b);
	rb_record_off(b);
	assert_int_equal(put(b, 0, 8), -RB_EOFF);
	rb_record_on(b);
	assert_false(rb_record_is_on(b, 0));
	rb_record_on(b);
	assert_int_equal(put(b, 1, 8), 0);
	rb_record_cpu_off(b, 0);
	assert_false(rb_record_is_on(b, 0));
	assert_true(rb_record_is_on(b, 1));
	assert_int_equal(put(b, 2, 8), -RB_EOFF);
	rb_host_cpu = 1;
	assert_int_equal(put(b, 3, 8), 0);
	rb_host_cpu = 0;
	rb_record_cpu_on(b, 0);
	assert_int_equal(put(b, 4, 8), 0);
	struct rb_stats s;
	rb_stats(b, 0, &s);
	assert_int_equal(s.dropped + s.overrun, 0);   /* off is not loss */
	struct rb_event ev;
	uint32_t seq;
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	check_body(&ev, &seq);
	assert_int_equal(seq, 1);
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	check_body(&ev, &seq);
	assert_int_equal(seq, 4);
	rb_destroy(b);
}

static void test_resize(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(2, 4 * RB_DATA_SIZE, 0);
	assert_int_equal(rb_size(b, 0), 4 * RB_DATA_SIZE);
	assert_int_equal(rb_size(b, 1), 4 * RB_DATA_SIZE);
	assert_int_equal(put(b, 7, 8), 0);
	/* while recording: refused, nothing changes */
	assert_int_equal(rb_resize(b, 0, 10 * RB_DATA_SIZE), -RB_EBUSY);
	assert_int_equal(rb_resize(b, RB_ALL_CPUS, 10 * RB_DATA_SIZE), -RB_EBUSY);
	assert_int_equal(rb_size(b, 0), 4 * RB_DATA_SIZE);
	rb_record_off(b);
	assert_int_equal(rb_resize(b, 0, 0), -RB_EINVAL);
	assert_int_equal(rb_resize(b, 5, 4096), -RB_EINVAL);
	assert_int_equal(rb_size(b, 0), 4 * RB_DATA_SIZE);
	struct rb_event ev;
	assert_int_equal(rb_peek(b, 0, &ev), 0);    /* still there */
	/* more pages than a page index holds: refused */
	assert_int_equal(rb_resize(b, 0, (size_t)RB_DATA_SIZE * 70000), -RB_E2BIG);
	assert_int_equal(rb_size(b, 0), 4 * RB_DATA_SIZE);
	/* a writer still inside (recording off since it reserved): refused
	 * after a bounded wait */
	rb_record_on(b);
	struct rb_resv open;
	must_reserve(b, 8, &open);
	rb_record_off(b);
	assert_int_equal(rb_resize(b, 0, 10 * RB_DATA_SIZE), -RB_EBUSY);
	assert_int_equal(rb_reset(b, 0), -RB_EBUSY);
	assert_int_equal(rb_size(b, 0), 4 * RB_DATA_SIZE);
	rb_commit(&open);
	uint32_t seq;
	assert_int_equal(rb_peek(b, 0, &ev), 0);
	check_body(&ev, &seq);
	assert_int_equal(seq, 7);
	/* a reader active: refused */
	struct rb_iter it;
	rb_record_on(b);
	assert_int_equal(rb_iter_start(&it, b, 0), 0);
	rb_record_off(b);
	assert_int_equal(rb_resize(b, 0, 10 * RB_DATA_SIZE), -RB_EBUSY);
	rb_iter_end(&it);
	/* recording off on that CPU only is enough */
	rb_record_on(b);
	rb_record_cpu_off(b, 1);
	assert_int_equal(rb_resize(b, 0, 10 * RB_DATA_SIZE), -RB_EBUSY);
	assert_int_equal(rb_resize(b, 1, 10 * RB_DATA_SIZE + 1), 0);
	assert_int_equal(rb_size(b, 1), 11 * RB_DATA_SIZE);
	assert_int_equal(rb_size(b, 0), 4 * RB_DATA_SIZE);
	rb_record_cpu_on(b, 1);
	rb_record_off(b);
	assert_int_equal(rb_resize(b, RB_ALL_CPUS, 1), 0);   /* rounds up to the minimum */
	assert_int_equal(rb_size(b, 0), RB_MIN_PAGES * RB_DATA_SIZE);
	assert_int_equal(rb_consume(b, 0, &ev), 0);   /* contents kept: both events */
	check_body(&ev, &seq);
	assert_int_equal(seq, 7);
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	rb_record_on(b);
	for (uint32_t i = 0; i < 1000; i++)
		assert_true(put(b, i, 40) == 0 || i > 100);
	rb_destroy(b);
}

/*
 * Resize keeps the events (Linux's ring_buffer_resize): on both CPUs of a
 * buffer, in both modes, with the reader before, inside and at the end of
 * its page (the tail page), the buffer grown and shrunk.  Every event read
 * has its own body and the time it was written at (the tail page goes on
 * after the resize with its deltas from the last event); a grow loses
 * nothing; a shrink loses only the oldest pages, counted as overrun and
 * reported as lost before the first page kept; at the end
 * written = read + overrun + dropped and reported = overrun + dropped
 * - pending - unplaced on each CPU, and the counters from before are kept.
 */
#define RSZ_MAX 600u
static uint64_t rsz_ts[2][RSZ_MAX];

static uint32_t rsz_len(uint32_t seq)
{
	return 8u + (seq * 37u) % 300u;
}

/* Write seq lo..hi-1 on `cpu`; returns the events that went in. */
static uint32_t rsz_write(struct rb_buffer *b, unsigned cpu, uint32_t lo, uint32_t hi)
{
	uint32_t in = 0;
	rb_host_cpu = cpu;
	for (uint32_t i = lo; i < hi; i++) {
		fake_now += i % 97 == 20 ? 1ull << 28 : 10u;   /* a time extend now and then */
		rsz_ts[cpu][i] = fake_now;      /* the clock stands still (fake_step 0) */
		int rc = put(b, i, rsz_len(i));
		assert_true(rc == 0 || rc == -RB_EDROPPED);
		in += rc == 0;
	}
	rb_host_cpu = 0;
	return in;
}

/* Consume up to max events of `cpu`, each checked (body, time, sequence
 * number = the last + 1 + its lost count); *seen: seq -> read. */
static uint32_t rsz_read(struct rb_buffer *b, unsigned cpu, uint32_t max, uint32_t *expect,
			 uint64_t *lost, bool *seen)
{
	struct rb_event ev;
	uint32_t seq, n = 0;
	while (n < max && rb_consume(b, cpu, &ev) == 0) {
		check_body(&ev, &seq);
		assert_true(seq < RSZ_MAX);
		assert_int_equal(seq, *expect + ev.lost);
		assert_int_equal(ev.ts, rsz_ts[cpu][seq]);
		*lost += ev.lost;
		*expect = seq + 1;
		seen[seq] = true;
		n++;
	}
	return n;
}

static void resize_case(unsigned flags, uint32_t nwrite, uint32_t nread, uint32_t pages)
{
	struct rb_buffer *b = mk(2, 4 * RB_DATA_SIZE, flags);
	uint32_t in[2], got[2], expect[2] = { 0, 0 };
	uint64_t lost[2] = { 0, 0 };
	bool seen[2][RSZ_MAX], unread[2][RSZ_MAX];
	struct rb_stats s0[2], s;
	struct rb_iter it;
	struct rb_event ev;
	memset(seen, 0, sizeof(seen));
	memset(unread, 0, sizeof(unread));
	for (unsigned c = 0; c < 2; c++) {
		in[c] = rsz_write(b, c, 0, nwrite - c * 3);
		got[c] = rsz_read(b, c, nread, &expect[c], &lost[c], seen[c]);
		rb_stats(b, c, &s0[c]);
	}
	/* What is unread before the resize. */
	assert_int_equal(rb_iter_start(&it, b, RB_ALL_CPUS), 0);
	uint32_t nunread[2] = { 0, 0 };
	while (rb_iter_next(&it, &ev) == 0) {
		uint32_t seq;
		check_body(&ev, &seq);
		unread[ev.cpu][seq] = true;
		nunread[ev.cpu]++;
	}
	rb_iter_end(&it);
	rb_record_off(b);
	assert_int_equal(rb_resize(b, RB_ALL_CPUS, pages * RB_DATA_SIZE), 0);
	rb_record_on(b);
	for (unsigned c = 0; c < 2; c++) {
		rb_stats(b, c, &s);
		assert_int_equal(s.pages, pages);
		assert_true(s.dropped == s0[c].dropped && s.read == s0[c].read &&
			    s.lost_reported == s0[c].lost_reported &&
			    s.pending_drops == s0[c].pending_drops && s.unplaced == s0[c].unplaced);
		uint64_t gone = s.overrun - s0[c].overrun;
		if (pages >= 4)
			assert_int_equal(gone, 0);
		/* The events the resize dropped are the oldest unread ones. */
		uint32_t kept = 0;
		assert_int_equal(rb_iter_start(&it, b, (int)c), 0);
		while (rb_iter_next(&it, &ev) == 0) {
			uint32_t seq;
			check_body(&ev, &seq);
			assert_true(unread[c][seq]);
			kept++;
		}
		rb_iter_end(&it);
		assert_int_equal(kept + gone, nunread[c]);
		/* In overwrite mode the writes after the resize would overwrite
		 * what it kept: read that first. */
		if (flags & RB_FL_OVERWRITE)
			got[c] += rsz_read(b, c, UINT32_MAX, &expect[c], &lost[c], seen[c]);
		uint32_t unseen = 0;
		for (uint32_t i = 0; i < nwrite - c * 3; i++)
			if (unread[c][i] && !seen[c][i])
				unseen++;
		in[c] += rsz_write(b, c, nwrite - c * 3, nwrite - c * 3 + 150);
		got[c] += rsz_read(b, c, UINT32_MAX, &expect[c], &lost[c], seen[c]);
		rb_stats(b, c, &s);
		assert_int_equal(got[c] + s.overrun + s.dropped, nwrite - c * 3 + 150);
		assert_int_equal(got[c], s.read);
		assert_int_equal(in[c], got[c] + s.overrun);
		assert_int_equal(s.lost_reported, lost[c]);
		assert_int_equal(lost[c], s.overrun + s.dropped - s.pending_drops - s.unplaced);
		/* Read before, or kept and read after, or counted gone. */
		if (!(flags & RB_FL_OVERWRITE))     /* producer/consumer: none overwritten */
			for (uint32_t i = unseen = 0; i < nwrite - c * 3; i++)
				unseen += unread[c][i] && !seen[c][i];
		assert_int_equal(unseen, gone);
	}
	rb_destroy(b);
}

static void test_resize_keeps_events(void **state)
{
	(void)state;
	/* 4 pages hold about 4080 * 4 / 160 = 100 events of rsz_len's sizes. */
	static const uint32_t nwrite[] = { 30, 95, 140, 300 }, nread[] = { 0, 7, 40, 400 };
	static const uint32_t pages[] = { 2, 3, 4, 9 };
	for (unsigned f = 0; f < 2; f++)
		for (unsigned w = 0; w < 4; w++)
			for (unsigned r = 0; r < 4; r++)
				for (unsigned p = 0; p < 4; p++) {
					fake_now = 1000;
					fake_step = 0;
					resize_case(f ? RB_FL_OVERWRITE : 0, nwrite[w], nread[r],
						    pages[p]);
				}
}

/*
 * Resizes among random writes, consuming reads and page reads on one CPU,
 * both modes: every event read is the next one written or comes after
 * exactly its lost count, with its own body and time, and at the end
 * written = read + overrun + dropped and the losses reported add up.
 */
static void test_resize_random(void **state)
{
	(void)state;
	static uint8_t page[RB_PAGE_SIZE];
	fake_step = 0;
	for (unsigned f = 0; f < 2; f++) {
		struct rb_buffer *b = mk(1, 3 * RB_DATA_SIZE, f ? RB_FL_OVERWRITE : 0);
		uint64_t rng = 99 + f, lost = 0;
		uint32_t w = 0, got = 0, expect = 0, resizes = 0;
		for (unsigned step = 0; step < 20000 && w < RSZ_MAX * 100; step++) {
			unsigned op = (unsigned)(xorshift(&rng) % 16);
			if ((step / 500) & 1 && op < 15)     /* now and then the writer runs ahead */
				op = 0;
			if (op < 9) {                        /* a write */
				fake_now += 10;
				uint32_t len = 8u + (uint32_t)(xorshift(&rng) % 200);
				int rc = put(b, w, len);
				assert_true(rc == 0 || rc == -RB_EDROPPED);
				rsz_ts[0][w % RSZ_MAX] = fake_now;
				w++;
			} else if (op < 13) {                /* a consuming read */
				struct rb_event ev;
				uint32_t seq;
				if (rb_consume(b, 0, &ev) == 0) {
					check_body(&ev, &seq);
					assert_int_equal(seq, expect + ev.lost);
					assert_int_equal(ev.ts, rsz_ts[0][seq % RSZ_MAX]);
					lost += ev.lost;
					expect = seq + 1;
					got++;
				}
			} else if (op < 14) {                /* a page */
				unsigned nev;
				uint64_t l;
				int n = rb_read_page(b, 0, page, &nev, &l);
				assert_true(n >= 0);
				if (n > 0) {
					const struct rb_page *pg = (const void *)page;
					uint64_t ts = pg->time_stamp;
					bool first = true;
					for (uint32_t off = 0; off < (uint32_t)n;) {
						struct rb_decoded d;
						assert_int_equal(rb_decode(pg->data + off, (uint32_t)n - off, &d), 0);
						ts = rb_ts_apply(ts, &d);
						off += d.size;
						if (!d.is_data)
							continue;
						struct rb_event ev = { .ts = ts, .data = d.data, .len = d.len };
						uint32_t seq;
						check_body(&ev, &seq);
						assert_int_equal(seq, expect + (first ? l : 0));
						assert_int_equal(ts, rsz_ts[0][seq % RSZ_MAX]);
						expect = seq + 1;
						first = false;
						got++;
					}
					lost += l;
				}
			} else {                             /* a resize */
				size_t pages = 2 + xorshift(&rng) % 5;
				rb_record_off(b);
				assert_int_equal(rb_resize(b, 0, pages * RB_DATA_SIZE), 0);
				rb_record_on(b);
				resizes++;
			}
		}
		struct rb_event ev;
		uint32_t seq;
		while (rb_consume(b, 0, &ev) == 0) {
			check_body(&ev, &seq);
			assert_int_equal(seq, expect + ev.lost);
			lost += ev.lost;
			expect = seq + 1;
			got++;
		}
		struct rb_stats s;
		rb_stats(b, 0, &s);
		assert_int_equal(got + s.overrun + s.dropped, w);
		assert_int_equal(s.read, got);
		assert_int_equal(s.lost_reported, lost);
		assert_int_equal(lost, s.overrun + s.dropped - s.pending_drops - s.unplaced);
		printf("# %s: %u written, %u read, %llu overrun, %llu dropped, %u resizes\n",
		       f ? "overwrite" : "producer/consumer", w, got, (unsigned long long)s.overrun,
		       (unsigned long long)s.dropped, resizes);
		assert_true(resizes > 500 && s.overrun > 0 && (f || s.dropped > 0));
		rb_destroy(b);
	}
}

/*
 * A resize (or reset) that fails because another CPU has a writer inside
 * still publishes, as a quiescer must, what the writers of the CPUs it
 * found quiet left to it (a writer whose E step met recording off leaves
 * the events nested in it to the quiescer, DESIGN point E); otherwise they
 * would wait for that CPU's next commit, which may never come.
 */
static void test_failed_resize_publishes(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(2, 4 * RB_DATA_SIZE, 0);
	struct rb_cpu *cb = b->cpu[0];
	struct rb_event ev;
	struct rb_resv open;
	uint32_t seq;
	assert_int_equal(put(b, 1, 8), 0);
	uint64_t cm = __atomic_load_n(&cb->commit, __ATOMIC_RELAXED);
	assert_int_equal(put(b, 2, 8), 0);
	/* White box: event 2 left unpublished, as such a writer leaves it. */
	__atomic_store_n(&cb->commit, cm, __ATOMIC_RELAXED);
	rb_host_cpu = 1;
	must_reserve(b, 8, &open);                   /* CPU 1: a writer inside */
	rb_host_cpu = 0;
	rb_record_off(b);
	assert_int_equal(rb_resize(b, RB_ALL_CPUS, 8 * RB_DATA_SIZE), -RB_EBUSY);
	rb_record_on(b);
	assert_int_equal(rb_size(b, 0), 4 * RB_DATA_SIZE);
	for (uint32_t want = 1; want <= 2; want++) {
		assert_int_equal(rb_consume(b, 0, &ev), 0);
		check_body(&ev, &seq);
		assert_int_equal(seq, want);
	}
	rb_host_cpu = 1;
	rb_commit(&open);
	rb_host_cpu = 0;
	rb_destroy(b);
}

/* Consume CPU 0's events with sequence numbers first..last, in order,
 * each whole. */
static void consume_seqs(struct rb_buffer *b, uint32_t first, uint32_t last)
{
	struct rb_event ev;
	uint32_t seq;
	for (uint32_t want = first; want <= last; want++) {
		assert_int_equal(rb_consume(b, 0, &ev), 0);
		check_body(&ev, &seq);
		assert_int_equal(seq, want);
	}
}

/*
 * A writer that enters while recording is off reserves nothing, but it is
 * inside: writers nested in it after recording came back on are not the
 * outermost and leave their publish to it.  It publishes before it leaves
 * (DESIGN, point E), or their events would wait for the CPU's next commit,
 * which may never come (seen in the 4-CPU tortures, host and guest: one
 * event written, neither read nor lost).
 */
static void test_off_writer_publishes_nested(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 4 * RB_DATA_SIZE, 0);
	struct rb_cpu *cb = b->cpu[0];
	struct rb_resv outer;
	struct rb_event ev;
	uint64_t g;
	assert_int_equal(put(b, 1, 8), 0);
	rb_record_off(b);
	assert_false(rb_reserve_fast(cb, 8, &outer, &g));       /* A: off, inside */
	rb_record_on(b);
	assert_int_equal(put(b, 2, 8), 0);                       /* nested: level 1 */
	consume_seqs(b, 1, 1);
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);    /* left to the outer writer */
	assert_int_equal(rb_reserve_rest(8, g, &outer), -RB_EOFF);
	consume_seqs(b, 2, 2);
	assert_int_equal(G_INSIDE(__atomic_load_n(&cb->gate, __ATOMIC_RELAXED)), 0);
	rb_destroy(b);
}

/*
 * Events 0, 1 (an outer writer on the fast path) and 2 (a writer nested in
 * it, level 1, which leaves its publish to the outer one), then the outer
 * writer's E as far as its leave (rb_end_fast): event 1 published, event 2
 * not, the tail moved past the outer writer's.
 */
static void outer_left_with_nested(struct rb_buffer *b, struct rb_resv *outer)
{
	struct rb_cpu *cb = b->cpu[0];
	uint32_t seq = 1, len = 8;
	assert_int_equal(put(b, 0, 8), 0);        /* so that the outer writer takes the fast path */
	must_reserve(b, 8, outer);
	assert_true(outer->tail != 0);
	memcpy(outer->data, &seq, 4);
	memcpy((uint8_t *)outer->data + 4, &len, 4);
	assert_int_equal(put(b, 2, 8), 0);
	__atomic_store_n(&cb->commit, outer->commit, __ATOMIC_RELEASE);
	rb_gate_leave(cb);
}

/*
 * The same, with a quiescer owning the buffer (its mark, RB_OFF_QUIESCE):
 * the outer writer published its own event and left, found the tail moved
 * by a writer nested in it, and entering again found the buffer owned, so
 * it left the rest to the owner.  An owner that gave up waiting for the
 * CPU's writers (a resize that returns -RB_EBUSY) publishes that rest when
 * it lets go and finds them out (white box: the mark and rb_let_go).
 */
static void test_owner_publishes_what_writers_left(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 4 * RB_DATA_SIZE, 0);
	struct rb_cpu *cb = b->cpu[0];
	struct rb_resv outer;
	struct rb_event ev;
	outer_left_with_nested(b, &outer);
	rb_record_off(b);
	__atomic_fetch_add(RB_OFF_WORD(cb), (uint64_t)RB_OFF_QUIESCE << 32, __ATOMIC_SEQ_CST);
	rb_end_again(cb);                 /* the tail moved: enter again, find it owned */
	assert_int_equal(G_INSIDE(__atomic_load_n(&cb->gate, __ATOMIC_RELAXED)), 0);
	consume_seqs(b, 0, 1);
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	rb_let_go(cb);
	rb_record_on(b);
	consume_seqs(b, 2, 2);
	rb_port_preempt_enable(outer.preempt);      /* what rb_commit would end with */
	rb_destroy(b);
}

/*
 * E's entering again (the outer writer published its own event and left,
 * then found the tail moved by a writer nested in it) meets recording off
 * with nobody owning the buffer: it publishes all the same (recording off
 * freezes the tail and moves nothing; only an owner stops it).
 */
static void test_reentry_publishes_under_recording_off(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 4 * RB_DATA_SIZE, 0);
	struct rb_cpu *cb = b->cpu[0];
	struct rb_resv outer;
	outer_left_with_nested(b, &outer);
	rb_record_off(b);
	rb_end_again(cb);
	rb_port_preempt_enable(outer.preempt);
	consume_seqs(b, 0, 2);
	assert_int_equal(G_INSIDE(__atomic_load_n(&cb->gate, __ATOMIC_RELAXED)), 0);
	rb_record_on(b);
	rb_destroy(b);
}

/*
 * Two owners of one CPU: the reader lock decides, and the one that loses
 * writes nothing while the other works.  White box: owner 1 holds the mark
 * and the lock with the commit word as its move or clear left it so far;
 * owner 2's reset comes back -RB_EBUSY, its let-go sees owner 1's mark and
 * does not publish.  Owner 1's let-go then publishes.
 */
static void test_second_owner_writes_nothing(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 4 * RB_DATA_SIZE, 0);
	struct rb_cpu *cb = b->cpu[0];
	assert_int_equal(put(b, 1, 8), 0);
	assert_int_equal(put(b, 2, 8), 0);
	rb_record_off(b);
	uint64_t off = __atomic_load_n(RB_OFF_WORD(cb), __ATOMIC_RELAXED);
	uint64_t cm = __atomic_load_n(&cb->commit, __ATOMIC_RELAXED);
	__atomic_fetch_add(RB_OFF_WORD(cb), (uint64_t)RB_OFF_QUIESCE << 32, __ATOMIC_SEQ_CST);
	assert_true(rb_reader_trylock(cb));                       /* owner 1 */
	__atomic_store_n(&cb->commit, C_MAKE(0, 0), __ATOMIC_RELAXED);   /* mid-work */
	assert_int_equal(rb_reset(b, 0), -RB_EBUSY);              /* owner 2 */
	assert_int_equal(__atomic_load_n(&cb->commit, __ATOMIC_RELAXED), C_MAKE(0, 0));
	__atomic_store_n(&cb->commit, cm, __ATOMIC_RELAXED);      /* owner 1's work done */
	rb_let_go(cb);
	rb_reader_unlock(cb);
	assert_int_equal(__atomic_load_n(RB_OFF_WORD(cb), __ATOMIC_RELAXED), off);
	rb_record_on(b);
	consume_seqs(b, 1, 2);
	rb_destroy(b);
}

/*
 * The panic path (rb_iter_start_force: other CPUs stopped anywhere) owes
 * a CPU's publish only where no writer is inside and no resize or reset
 * owns the buffer: one stopped mid-move may have left the commit word
 * half-made, and writing it would point readers past what they can read.
 */
static void test_forced_iterator_publishes_unless_owned(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(2, 4 * RB_DATA_SIZE, 0);
	struct rb_iter it;
	for (unsigned cpu = 0; cpu < 2; cpu++) {
		rb_host_cpu = cpu;
		assert_int_equal(put(b, 1, 8), 0);
		__atomic_store_n(&b->cpu[cpu]->commit, C_MAKE(0, 0), __ATOMIC_RELAXED);  /* left */
	}
	rb_host_cpu = 0;
	struct rb_cpu *owned = b->cpu[1];
	__atomic_fetch_add(RB_OFF_WORD(owned), (uint64_t)RB_OFF_QUIESCE << 32, __ATOMIC_SEQ_CST);
	rb_iter_start_force(&it, b);
	assert_int_equal(__atomic_load_n(&b->cpu[0]->commit, __ATOMIC_RELAXED),
			 rb_commit_word(b->cpu[0], b->cpu[0]->tail));
	assert_int_equal(__atomic_load_n(&owned->commit, __ATOMIC_RELAXED), C_MAKE(0, 0));
	rb_destroy(b);
}

/* An allocator that fails its allocation number `fail_at` (counting from 0)
 * and hands out memory full of garbage, so that a cleanup reading a pointer
 * it never wrote frees garbage (ASan reports it). */
static unsigned fa_count, fa_fail_at, fa_live;

static void *failing_alloc(void *ctx, size_t size, size_t align)
{
	if (fa_count++ == fa_fail_at)
		return NULL;
	void *p = rb_host_allocator.alloc(ctx, size, align);
	if (p) {
		memset(p, 0xa5, size);
		fa_live++;
	}
	return p;
}

static void failing_free(void *ctx, void *p)
{
	if (p)
		fa_live--;
	rb_host_allocator.free(ctx, p);
}

static const struct rb_allocator failing = { failing_alloc, failing_free, NULL };

/* Every allocation of rb_create, then of rb_resize, failed in turn:
 * -RB_ENOMEM, nothing left allocated by the failed call, and a failed
 * resize keeps the size and the events. */
static void test_alloc_failure(void **state)
{
	(void)state;
	unsigned k;
	for (k = 0;; k++) {
		struct rb_buffer *b = NULL;
		fa_count = fa_live = 0;
		fa_fail_at = k;
		int err = rb_create(&b, 2, 4 * RB_DATA_SIZE, 0, &failing);
		if (err == 0) {
			assert_true(k == fa_count);      /* ran out of allocations to fail */
			rb_destroy(b);
			assert_int_equal(fa_live, 0);
			break;
		}
		assert_int_equal(err, -RB_ENOMEM);
		assert_true(b == NULL);
		assert_int_equal(fa_live, 0);
	}
	assert_true(k > 10);                      /* page blocks, per-CPU arrays, the buffer */
	fa_count = fa_live = 0;
	fa_fail_at = ~0u;
	struct rb_buffer *b = NULL;
	assert_int_equal(rb_create(&b, 2, 4 * RB_DATA_SIZE, 0, &failing), 0);
	assert_int_equal(put(b, 7, 8), 0);
	rb_record_off(b);
	unsigned live = fa_live;
	for (k = 0;; k++) {
		fa_count = 0;
		fa_fail_at = k;
		int err = rb_resize(b, RB_ALL_CPUS, 10 * RB_DATA_SIZE);
		if (err == 0)
			break;
		assert_int_equal(err, -RB_ENOMEM);
		assert_int_equal(fa_live, live);
		assert_int_equal(rb_size(b, 0), 4 * RB_DATA_SIZE);
		assert_int_equal(rb_size(b, 1), 4 * RB_DATA_SIZE);
		struct rb_event ev;
		assert_int_equal(rb_peek(b, 0, &ev), 0);
	}
	assert_true(k > 10);
	assert_int_equal(rb_size(b, 0), 10 * RB_DATA_SIZE);
	rb_destroy(b);
	assert_int_equal(fa_live, 0);
}

/*
 * A reset (and a resize) leaves none of a CPU's counters behind: drops,
 * events read, lost counts reported, drops pending and unplaced, an
 * impossible state seen; the other CPU keeps its own.
 */
static void reset_counters(void)
{
	struct rb_buffer *b = mk(2, 3 * RB_DATA_SIZE, 0);
	struct rb_cpu *cb = b->cpu[0];
	struct rb_event ev;
	struct rb_stats s, s1;
	uint32_t w = 0, seq;
	rb_host_cpu = 1;
	assert_int_equal(put(b, 1000, 8), 0);
	rb_host_cpu = 0;
	while (put(b, w, 100) == 0)                  /* pages 0..2 full: dropped */
		w++;
	assert_int_equal(put(b, w, 100), -RB_EDROPPED);
	for (uint32_t i = 0; i < 2 * RB_DATA_SIZE / rb_event_size(100); i++)
		assert_int_equal(rb_consume(b, 0, &ev), 0);
	for (uint32_t i = 0; i < 3; i++)             /* a page after the drops */
		assert_int_equal(put(b, w + 2 + i, 100), 0);
	while (rb_consume(b, 0, &ev) == 0)
		;
	while (put(b, 7, 100) == 0)                  /* drops pending again */
		;
	__atomic_store_n(&cb->unplaced, 5, __ATOMIC_RELAXED);   /* white box */
	rb_stats(b, 0, &s);
	assert_true(s.dropped > 2 && s.read > 0 && s.lost_reported == 2);
	assert_true(s.pending_drops > 0 && s.unplaced == 5);
	/* An impossible slot word at the next move: the CPU stops, broken. */
	uint64_t t = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
	uint64_t n = C_CNT(cb->pstart[T_PIDX(t)]) + 1;
	uint64_t sw = cb->slot[n % cb->n];
	cb->slot[n % cb->n] = S_MAKE(n + 5, 1, S_PIDX(sw));
	while (rb_consume(b, 0, &ev) == 0)           /* room, so the writer moves */
		;
	assert_int_equal(put(b, 8, 100), -RB_ECORRUPT);
	assert_false(rb_record_is_on(b, 0));
	rb_stats(b, 1, &s1);
	rb_record_cpu_off(b, 0);
	assert_int_equal(rb_reset(b, 0), 0);
	rb_record_cpu_on(b, 0);
	assert_true(rb_record_is_on(b, 0));
	rb_stats(b, 0, &s);
	assert_int_equal(s.overrun + s.dropped + s.read + s.lost_reported + s.pending_drops +
			 s.unplaced, 0);
	rb_stats(b, 1, &s);
	assert_true(s.read == s1.read && s.dropped == s1.dropped && s.overrun == s1.overrun);
	assert_int_equal(s1.dropped + s1.overrun, 0);
	assert_int_equal(rb_consume(b, 1, &ev), 0);    /* CPU 1's event is still there */
	check_body(&ev, &seq);
	assert_int_equal(seq, 1000);
	assert_int_equal(put(b, 9, 100), 0);
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	check_body(&ev, &seq);
	assert_int_equal(seq, 9);
	assert_int_equal(ev.lost, 0);
	/* A resize keeps the counters (and the events). */
	while (put(b, 10, 100) == 0)
		;
	rb_stats(b, 0, &s1);
	rb_record_off(b);
	assert_int_equal(rb_resize(b, 0, 4 * RB_DATA_SIZE), 0);
	rb_record_on(b);
	rb_stats(b, 0, &s);
	assert_true(s.dropped == s1.dropped && s.read == s1.read && s.overrun == s1.overrun &&
		    s.pending_drops == s1.pending_drops && s.unplaced == s1.unplaced &&
		    s.lost_reported == s1.lost_reported && s.dropped > 0);
	assert_int_equal(s.pages, 4);
	/* A broken CPU buffer is emptied by a resize, as by a reset. */
	rb_record_cpu_off(b, 0);
	assert_int_equal(rb_reset(b, 0), 0);
	rb_record_cpu_on(b, 0);
	assert_int_equal(put(b, 11, 100), 0);
	t = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
	n = C_CNT(cb->pstart[T_PIDX(t)]) + 1;
	sw = cb->slot[n % cb->n];
	cb->slot[n % cb->n] = S_MAKE(n + 5, 1, S_PIDX(sw));
	while (put(b, 12, 100) == 0)
		;
	assert_false(rb_record_is_on(b, 0));
	rb_record_off(b);
	assert_int_equal(rb_resize(b, 0, 3 * RB_DATA_SIZE), 0);
	rb_record_on(b);
	assert_true(rb_record_is_on(b, 0));
	rb_stats(b, 0, &s);
	assert_int_equal(s.overrun + s.dropped + s.read + s.lost_reported + s.pending_drops +
			 s.unplaced, 0);
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	rb_destroy(b);
}

static void test_reset(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(1, 2 * RB_DATA_SIZE, RB_FL_OVERWRITE);
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(put(b, i, 40), 0);
	struct rb_event ev;
	uint32_t seq, oldest;
	struct rb_stats s0, s1;
	assert_int_equal(rb_peek(b, 0, &ev), 0);
	check_body(&ev, &oldest);
	rb_stats(b, 0, &s0);
	assert_int_equal(rb_reset(b, 0), -RB_EBUSY);
	assert_int_equal(rb_peek(b, 0, &ev), 0);       /* refused: nothing changed */
	check_body(&ev, &seq);
	assert_int_equal(seq, oldest);
	rb_stats(b, 0, &s1);
	assert_int_equal(s1.overrun, s0.overrun);
	assert_int_equal(s1.read, s0.read);
	assert_int_equal(s1.pages, s0.pages);
	assert_true(s0.overrun > 0);
	rb_record_off(b);
	assert_int_equal(rb_reset(b, 0), 0);
	rb_record_on(b);
	struct rb_stats s;
	rb_stats(b, 0, &s);
	assert_int_equal(s.overrun, 0);
	assert_int_equal(rb_consume(b, 0, &ev), -RB_EAGAIN);
	assert_int_equal(put(b, 5, 40), 0);
	assert_int_equal(rb_consume(b, 0, &ev), 0);
	check_body(&ev, &seq);
	assert_int_equal(seq, 5);
	assert_int_equal(ev.lost, 0);
	rb_destroy(b);
	reset_counters();
}

/* Non-consuming iteration, merged over CPUs, and the merged consumer. */
static void test_iterators(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(3, 4 * RB_DATA_SIZE, 0);
	uint32_t n = 0;
	for (uint32_t i = 0; i < 600; i++) {
		rb_host_cpu = (i * 7) % 3;
		assert_int_equal(put(b, i, 8 + (i % 5) * 20), 0);
		n++;
	}
	rb_host_cpu = 0;
	struct rb_event ev;
	assert_int_equal(rb_consume(b, 1, &ev), 0);    /* the iterator starts after it */
	uint32_t first;
	memcpy(&first, ev.data, 4);
	for (unsigned pass = 0; pass < 2; pass++) {
		struct rb_iter it;
		assert_int_equal(rb_iter_start(&it, b, RB_ALL_CPUS), 0);
		assert_int_equal(put(b, 9999, 8), -RB_EOFF);   /* paused while iterating */
		/* One reader per CPU buffer: every other reader is refused. */
		static struct rb_page pg;
		struct rb_iter it2;
		assert_int_equal(rb_consume(b, 0, &ev), -RB_EBUSY);
		assert_int_equal(rb_consume_merged(b, &ev), -RB_EBUSY);
		assert_int_equal(rb_read_page(b, 2, &pg, NULL, NULL), -RB_EBUSY);
		assert_int_equal(rb_iter_start(&it2, b, 1), -RB_EBUSY);
		assert_int_equal(rb_iter_start(&it2, b, RB_ALL_CPUS), -RB_EBUSY);
		uint32_t seen = 0, seq, last = 0;
		while (rb_iter_next(&it, &ev) == 0) {
			check_body(&ev, &seq);
			assert_int_equal(ev.cpu, (seq * 7) % 3);
			if (seen)
				assert_true(seq > last);    /* timestamps follow write order */
			last = seq;
			seen++;
		}
		rb_iter_end(&it);
		assert_int_equal(seen, n - 1);
	}
	/* one CPU only */
	struct rb_iter it;
	assert_int_equal(rb_iter_start(&it, b, 2), 0);
	/* refused at CPU 2 after taking CPUs 0 and 1: it gives them back */
	struct rb_iter it2;
	assert_int_equal(rb_iter_start(&it2, b, RB_ALL_CPUS), -RB_EBUSY);
	assert_true(rb_record_is_on(b, 0) && rb_record_is_on(b, 1));
	assert_false(rb_record_is_on(b, 2));
	assert_int_equal(rb_iter_start(&it2, b, 1), 0);
	rb_iter_end(&it2);
	uint32_t seen = 0;
	while (rb_iter_next(&it, &ev) == 0) {
		assert_int_equal(ev.cpu, 2);
		seen++;
	}
	rb_iter_end(&it);
	assert_int_equal(seen, 200);
	assert_int_equal(rb_iter_start(&it, b, 3), -RB_EINVAL);
	/* the merged consumer sees everything once, in order */
	uint32_t seq, expect = 0;
	while (rb_consume_merged(b, &ev) == 0) {
		check_body(&ev, &seq);
		if (seq == first)
			continue;
		if (expect == first)
			expect++;
		assert_int_equal(seq, expect);
		expect++;
	}
	assert_int_equal(expect, n);
	rb_destroy(b);
}

/*
 * Merged order with equal time stamps and time extends: groups of events at
 * one time on three CPUs, written highest CPU first, two per CPU, and gaps
 * that need a time extend between groups (also across page starts).  Both
 * the merged iterator and the merged consumer give (time, CPU) order, the
 * lower CPU first on equal times (as Linux's merged iterator does), and each
 * CPU's events in the order written.
 */
static void test_merged_order_ties(void **state)
{
	(void)state;
	struct rb_buffer *b = mk(3, 8 * RB_DATA_SIZE, 0);
	const uint64_t gaps[] = { 2, 1, RB_DELTA_MAX + 1ull, 1ull << 40, 5 };
	enum { GROUPS = 150 };
	fake_step = 0;
	uint32_t seq = 0;
	for (uint32_t g = 0; g < GROUPS; g++) {
		for (unsigned k = 0; k < 6; k++) {       /* cpu 2, 2, 1, 1, 0, 0 */
			rb_host_cpu = 2 - k / 2;
			assert_int_equal(put(b, seq++, 8 + (g * 7 + k) % 60), 0);
		}
		fake_now += gaps[g % 5];
	}
	rb_host_cpu = 0;
	/* Expected: group by group, cpu 0's two, cpu 1's two, cpu 2's two. */
	for (unsigned pass = 0; pass < 2; pass++) {
		struct rb_iter it;
		struct rb_event ev;
		uint64_t last_ts = 0;
		uint32_t n = 0, got;
		if (pass == 0)
			assert_int_equal(rb_iter_start(&it, b, RB_ALL_CPUS), 0);
		while ((pass == 0 ? rb_iter_next(&it, &ev) : rb_consume_merged(b, &ev)) == 0) {
			uint32_t g = n / 6, k = n % 6;
			uint32_t want = g * 6 + (2 - k / 2) * 2 + k % 2;
			check_body(&ev, &got);
			assert_int_equal(got, want);
			assert_int_equal(ev.cpu, k / 2);
			assert_true(ev.ts >= last_ts);
			last_ts = ev.ts;
			n++;
		}
		if (pass == 0)
			rb_iter_end(&it);
		assert_int_equal(n, GROUPS * 6);
	}
	rb_destroy(b);
}

int main(void)
{
	kb_open();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_event_roundtrip, setup),
		cmocka_unit_test_setup(test_time_items_roundtrip, setup),
		cmocka_unit_test_setup(test_padding_roundtrip, setup),
		cmocka_unit_test_setup(test_page_layout_kbuffer, setup),
		cmocka_unit_test_setup(test_write_read, setup),
		cmocka_unit_test_setup(test_time_extend_in_buffer, setup),
		cmocka_unit_test_setup(test_reader_swap_tail_page, setup),
		cmocka_unit_test_setup(test_overwrite_loss_exact, setup),
		cmocka_unit_test_setup(test_overwrite_interrupted_move, setup),
		cmocka_unit_test_setup(test_reader_writer_race, setup),
		cmocka_unit_test_setup(test_overwrite_loss_interleaved, setup),
		cmocka_unit_test_setup(test_pc_drop_exact, setup),
		cmocka_unit_test_setup(test_drops_beyond_tail_count, setup),
		cmocka_unit_test_setup(test_nested_commit_order, setup),
		cmocka_unit_test_setup(test_nopreempt_variant, setup),
		cmocka_unit_test_setup(test_nesting_limit, setup),
		cmocka_unit_test_setup(test_fast_path_publishes, setup),
		cmocka_unit_test_setup(test_given_time, setup),
		cmocka_unit_test_setup(test_read_page, setup),
		cmocka_unit_test_setup(test_bad_inputs, setup),
		cmocka_unit_test_setup(test_record_switches, setup),
		cmocka_unit_test_setup(test_resize, setup),
		cmocka_unit_test_setup(test_resize_keeps_events, setup),
		cmocka_unit_test_setup(test_resize_random, setup),
		cmocka_unit_test_setup(test_failed_resize_publishes, setup),
		cmocka_unit_test_setup(test_off_writer_publishes_nested, setup),
		cmocka_unit_test_setup(test_owner_publishes_what_writers_left, setup),
		cmocka_unit_test_setup(test_reentry_publishes_under_recording_off, setup),
		cmocka_unit_test_setup(test_second_owner_writes_nothing, setup),
		cmocka_unit_test_setup(test_forced_iterator_publishes_unless_owned, setup),
		cmocka_unit_test_setup(test_alloc_failure, setup),
		cmocka_unit_test_setup(test_reset, setup),
		cmocka_unit_test_setup(test_iterators, setup),
		cmocka_unit_test_setup(test_merged_order_ties, setup),
	};
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("ring_buffer", tests, NULL, NULL);
}
