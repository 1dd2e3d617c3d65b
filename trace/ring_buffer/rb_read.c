/*
 * rb_read.c — the reader side: the consuming reader (per CPU and merged), the
 * page reader for trace.dat, and non-consuming iterators.
 *
 * A cursor walks one CPU buffer page by page in count order.  The consuming
 * reader's cursor (cpu->rd) owns the page it reads: it got it from the ring by
 * a swap (one CAS on the slot word, giving its previous page back as the
 * slot's spare), so writers never wait for it and never write into it again,
 * except that the writer may still be filling it if it was the tail page --
 * the reader then reads only up to the commit word.  Iterator cursors read
 * pages in place and need the buffer quiescent (rb_iter_start).
 *
 * Points R1..R3 are argued in trace/ring_buffer/DESIGN.md ("Readers").
 */
#include "trace/ring_buffer/rb_internal.h"

void rb_cursor_init(struct rb_cursor *c, uint32_t spare_pidx)
{
	/* Field by field: a struct literal may become a libc memset call. */
	c->cnt = c->head = c->ts = c->cbase = c->pending = 0;
	c->pidx = spare_pidx;
	c->off = 0;
	c->valid = c->started = false;
}

/* Committed bytes of the cursor's page, seen through commit word cm. */
uint32_t rb_readable(const struct rb_cpu *cb, const struct rb_cursor *c, uint64_t cm)
{
	if (C_CNT(cm) == c->cnt)
		return C_OFF(cm);
	if (C_CNT(cm) < c->cnt)
		return 0;
	/* The commit has left the page: its end is final (written before the
	 * RELEASE of a commit word past it). */
	return cb->meta[c->pidx].real_end;
}

/*
 * C(h-1) for a reader that skipped overwritten pages up to h-1: the writer
 * recorded it in slot_c before the CAS that overwrote page h-1.  Valid only
 * while that slot still says "overwritten once" (seq h-1+N, by the writer).
 */
static bool rb_c_before(const struct rb_cpu *cb, uint64_t h, uint64_t *out)
{
	uint32_t nslots = cb->n, s = (uint32_t)((h - 1) % nslots);
	uint64_t want = S_MAKE(h - 1 + nslots, 0, 0) >> 16;     /* seq and R=0 */
	/* ACQUIRE: slot_c was stored before the writer's RELEASE CAS. */
	if (__atomic_load_n(&cb->slot[s], __ATOMIC_ACQUIRE) >> 16 != want)
		return false;
	*out = __atomic_load_n(&cb->slot_c[s], __ATOMIC_RELAXED);
	rb_port_race();
	return __atomic_load_n(&cb->slot[s], __ATOMIC_ACQUIRE) >> 16 == want;
}

/*
 * Move cursor c to the oldest surviving page at or after c->head.  With
 * `swap`, take it out of the ring and give c's page back as the slot's spare
 * (consuming reader; c's page must be finished and read).  Adds the events
 * lost before that page to c->pending.  -RB_EAGAIN if nothing is there yet.
 * Without `swap` it is also rb_resize's walk over a quiescent buffer.
 */
int rb_next_page(struct rb_cpu *cb, struct rb_cursor *c, bool swap)
{
	uint32_t nslots = cb->n;
	for (unsigned i = 0; i < 4 * RB_TRIES; i++) {
		/* R1: ACQUIRE pairs with the publisher's RELEASE: page h's mover
		 * bookkeeping (drops_before, time stamp) is visible. */
		uint64_t cm = __atomic_load_n(&cb->commit, __ATOMIC_ACQUIRE);
		uint64_t h = c->head, cbase = c->cbase;
		bool skipped = false;
		for (unsigned j = 0; j <= nslots + 1; j++) {
			if (C_CNT(cm) < h)
				return -RB_EAGAIN;
			uint64_t s = __atomic_load_n(&cb->slot[h % nslots], __ATOMIC_ACQUIRE);
			if (S_SEQ(s) == h) {
				if (skipped && !rb_c_before(cb, h, &cbase))
					break;       /* the writer lapped us again: rescan */
				rb_port_race();
				/* R2: the swap.  RELEASE: our reads of the page we
				 * give back come before the writer reuses it.
				 * ACQUIRE: its writes to the page we take. */
				if (swap && !__atomic_compare_exchange_n(
						    &cb->slot[h % nslots], &s,
						    S_MAKE(h + nslots, 1, c->pidx), false,
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
					break;       /* overwritten meanwhile: rescan */
				c->pending += cbase - c->cbase + cb->meta[S_PIDX(s)].drops_before;
				c->cbase = cbase;
				c->pidx = S_PIDX(s);
				c->cnt = h;
				c->head = h + 1;
				c->off = 0;
				c->valid = true;
				c->started = false;
				return 0;
			}
			if (S_SEQ(s) < h)
				return -RB_ECORRUPT;
			/* Page h was overwritten.  Overwrites go in count order,
			 * so every page up to seq-N went the same way. */
			uint64_t nh = S_SEQ(s) - nslots + 1;
			h = nh > h ? nh : h + 1;
			skipped = true;
		}
	}
	return -RB_EAGAIN;
}

/*
 * R3: the next data event in c's page, at most up to the commit.  Items that
 * are not events (time extends, padding) are consumed on the way; the event
 * itself only if `advance`.  -RB_EAGAIN if the page has no more committed
 * events now.
 */
static int rb_page_event(struct rb_cpu *cb, struct rb_cursor *c, uint64_t cm,
			 struct rb_event *ev, bool advance)
{
	const struct rb_page *pg = rb_pg(cb, c->pidx);
	uint32_t end = rb_readable(cb, c, cm);
	if (!c->started && end) {
		c->ts = pg->time_stamp;
		c->started = true;
	}
	while (c->off < end) {
		struct rb_decoded d;
		if (rb_decode(pg->data + c->off, end - c->off, &d)) {
			c->off = end;
			return -RB_ECORRUPT;
		}
		if (d.size == 0) {           /* padding to the end of the page */
			c->off = end;
			break;
		}
		uint64_t ts = rb_ts_apply(c->ts, &d);
		if (!d.is_data) {
			c->ts = ts;
			c->off += d.size;
			continue;
		}
		*ev = (struct rb_event){ .ts = ts, .data = d.data, .len = d.len,
					 .lost = c->pending };
		if (advance) {
			c->ts = ts;
			c->off += d.size;
			c->pending = 0;
		}
		return 0;
	}
	return -RB_EAGAIN;
}

/* The next event for cursor c, changing pages as needed. */
static int rb_cursor_next(struct rb_cpu *cb, struct rb_cursor *c, struct rb_event *ev,
			  bool advance, bool swap)
{
	for (unsigned i = 0; i < RB_TRIES; i++) {
		uint64_t cm = __atomic_load_n(&cb->commit, __ATOMIC_ACQUIRE);
		if (c->valid) {
			int r = rb_page_event(cb, c, cm, ev, advance);
			if (r != -RB_EAGAIN)
				return r;
			if (C_CNT(cm) <= c->cnt)
				return -RB_EAGAIN;   /* the writer may still add to it */
		}
		int r = rb_next_page(cb, c, swap);
		if (r)
			return r;
	}
	return -RB_EAGAIN;
}

/* ---- The consuming reader ----------------------------------------------------- */

static void rb_account(struct rb_cpu *cb, uint64_t events, uint64_t lost)
{
	/* Only the reader (lock held) writes these; atomics for rb_stats(). */
	__atomic_store_n(&cb->read, __atomic_load_n(&cb->read, __ATOMIC_RELAXED) + events,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&cb->lost_reported,
			 __atomic_load_n(&cb->lost_reported, __ATOMIC_RELAXED) + lost,
			 __ATOMIC_RELAXED);
}

static int rb_read_one(struct rb_buffer *b, unsigned cpu, struct rb_event *ev, bool advance)
{
	if (cpu >= b->ncpus)
		return -RB_EINVAL;
	struct rb_cpu *cb = b->cpu[cpu];
	if (!rb_reader_trylock(cb))
		return -RB_EBUSY;
	int err = rb_cursor_next(cb, &cb->rd, ev, advance, true);
	if (!err) {
		ev->cpu = cpu;
		if (advance)
			rb_account(cb, 1, ev->lost);
	}
	rb_reader_unlock(cb);
	return err;
}

int rb_consume(struct rb_buffer *b, unsigned cpu, struct rb_event *ev)
{
	return rb_read_one(b, cpu, ev, true);
}

int rb_peek(struct rb_buffer *b, unsigned cpu, struct rb_event *ev)
{
	return rb_read_one(b, cpu, ev, false);
}

/* Index of the earliest of the events present, or -1. */
static int rb_earliest(const struct rb_event *ev, const bool *have, unsigned lo, unsigned hi)
{
	int best = -1;
	for (unsigned i = lo; i < hi; i++)
		if (have[i] && (best < 0 || ev[i].ts < ev[best].ts))
			best = (int)i;
	return best;
}

int rb_consume_merged(struct rb_buffer *b, struct rb_event *ev)
{
	struct rb_event next[RB_MAX_CPUS];
	bool have[RB_MAX_CPUS];
	unsigned n = b->ncpus, locked;
	for (locked = 0; locked < n; locked++)
		if (!rb_reader_trylock(b->cpu[locked]))
			break;
	int err = locked < n ? -RB_EBUSY : 0;
	for (unsigned i = 0; !err && i < n; i++) {
		int r = rb_cursor_next(b->cpu[i], &b->cpu[i]->rd, &next[i], false, true);
		have[i] = r == 0;
		if (r && r != -RB_EAGAIN)
			err = r;
	}
	int best = err ? -1 : rb_earliest(next, have, 0, n);
	if (!err && best < 0)
		err = -RB_EAGAIN;
	if (!err) {
		struct rb_cpu *cb = b->cpu[best];
		err = rb_cursor_next(cb, &cb->rd, ev, true, true);    /* the same event */
		ev->cpu = (unsigned)best;
		if (!err)
			rb_account(cb, 1, ev->lost);
	}
	while (locked--)
		rb_reader_unlock(b->cpu[locked]);
	return err;
}

/* ---- Whole pages for trace.dat ------------------------------------------------- */

static void rb_copy(void *dst, const void *src, uint32_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	for (uint32_t i = 0; i < n; i += 4) {
		__asm__("" : "+r"(i));    /* no libc memcpy */
		__builtin_memcpy(d + i, s + i, 4);
	}
}

/*
 * The unread committed events of c's page (or, if it is read up, of the next
 * one) into dst in trace.dat form.  Returns the data bytes copied (0: nothing
 * to read now) or -err; *nev and *lost get the events copied and the events
 * lost just before them.  The caller owns c (reader lock, or an iterator).
 */
static int rb_cursor_page(struct rb_cpu *cb, struct rb_cursor *c, void *dst, bool swap,
			  unsigned *nev_out, uint64_t *lost_out)
{
	int err = 0;
	uint32_t end = 0;
	*nev_out = 0;
	*lost_out = 0;
	for (unsigned i = 0; i < RB_TRIES; i++) {
		uint64_t cm = __atomic_load_n(&cb->commit, __ATOMIC_ACQUIRE);
		if (c->valid) {
			end = rb_readable(cb, c, cm);
			if (c->off < end)
				break;
			if (C_CNT(cm) <= c->cnt)
				break;
		}
		if ((err = rb_next_page(cb, c, swap)))
			break;
	}
	if (err || !c->valid || c->off >= end)
		return err == -RB_EAGAIN ? 0 : err;
	const struct rb_page *pg = rb_pg(cb, c->pidx);
	struct rb_page *out = dst;
	if (!c->started) {
		c->ts = pg->time_stamp;
		c->started = true;
	}
	out->time_stamp = c->ts;    /* the first item's delta is relative to it */
	uint32_t n = end - c->off;
	unsigned nev = 0;
	rb_copy(out->data, pg->data + c->off, n);
	for (uint32_t o = c->off; o < end;) {       /* count, and keep c->ts exact */
		struct rb_decoded d;
		if (rb_decode(pg->data + o, end - o, &d) || d.size == 0)
			break;
		c->ts = rb_ts_apply(c->ts, &d);
		nev += d.is_data;
		o += d.size;
	}
	uint64_t commit = n;
	if (c->pending) {
		commit |= RB_MISSED_EVENTS;
		if (n + 8u <= RB_DATA_SIZE) {
			__builtin_memcpy(out->data + n, &c->pending, 8);
			commit |= RB_MISSED_STORED;
		}
	}
	out->commit = commit;
	c->off = end;
	*nev_out = nev;
	*lost_out = c->pending;
	c->pending = 0;
	return (int)n;
}

int rb_read_page(struct rb_buffer *b, unsigned cpu, void *dst, unsigned *events,
		 uint64_t *lost)
{
	if (cpu >= b->ncpus || !dst)
		return -RB_EINVAL;
	struct rb_cpu *cb = b->cpu[cpu];
	if (!rb_reader_trylock(cb))
		return -RB_EBUSY;
	unsigned nev;
	uint64_t l;
	int r = rb_cursor_page(cb, &cb->rd, dst, true, &nev, &l);
	if (r > 0)
		rb_account(cb, nev, l);
	rb_reader_unlock(cb);
	if (events)
		*events = r > 0 ? nev : 0;
	if (lost)
		*lost = r > 0 ? l : 0;
	return r;
}

/* ---- Non-consuming iterators ---------------------------------------------------- */

static void rb_iter_release(struct rb_iter *it, unsigned lo, unsigned hi)
{
	for (unsigned i = lo; i < hi; i++) {
		rb_reader_unlock(it->b->cpu[i]);
		rb_record_cpu_on(it->b, i);
	}
}

int rb_iter_start(struct rb_iter *it, struct rb_buffer *b, int cpu)
{
	unsigned lo = 0, hi = b->ncpus;
	if (cpu != RB_ALL_CPUS) {
		if (cpu < 0 || (unsigned)cpu >= b->ncpus)
			return -RB_EINVAL;
		lo = (unsigned)cpu;
		hi = lo + 1;
	}
	it->b = b;
	it->cpu = cpu;
	for (unsigned i = lo; i < hi; i++) {
		struct rb_cpu *cb = b->cpu[i];
		int err = rb_quiesce(b, i);       /* with the reader lock */
		if (err) {
			rb_iter_release(it, lo, i);
			return err;
		}
		it->cur[i] = cb->rd;        /* start where the consuming reader is */
		it->have[i] = false;
	}
	return 0;
}

int rb_iter_next(struct rb_iter *it, struct rb_event *ev)
{
	unsigned lo = it->cpu == RB_ALL_CPUS ? 0 : (unsigned)it->cpu;
	unsigned hi = it->cpu == RB_ALL_CPUS ? it->b->ncpus : lo + 1;
	for (unsigned i = lo; i < hi; i++) {
		if (it->have[i])
			continue;
		int r = rb_cursor_next(it->b->cpu[i], &it->cur[i], &it->ev[i], true, false);
		if (r && r != -RB_EAGAIN)
			return r;
		it->have[i] = r == 0;
		it->ev[i].cpu = i;
	}
	int best = rb_earliest(it->ev, it->have, lo, hi);
	if (best < 0)
		return -RB_EAGAIN;
	*ev = it->ev[best];
	it->have[best] = false;
	return 0;
}

int rb_iter_peek_cpu(struct rb_iter *it, unsigned cpu, struct rb_event *ev)
{
	if (!it->have[cpu]) {
		int r = rb_cursor_next(it->b->cpu[cpu], &it->cur[cpu], &it->ev[cpu], true, false);
		if (r)
			return r;
		it->have[cpu] = true;
		it->ev[cpu].cpu = cpu;
	}
	*ev = it->ev[cpu];
	return 0;
}

void rb_iter_drop_cpu(struct rb_iter *it, unsigned cpu)
{
	it->have[cpu] = false;
}

void rb_iter_end(struct rb_iter *it)
{
	unsigned lo = it->cpu == RB_ALL_CPUS ? 0 : (unsigned)it->cpu;
	unsigned hi = it->cpu == RB_ALL_CPUS ? it->b->ncpus : lo + 1;
	rb_iter_release(it, lo, hi);
}

/* ---- Iterators for dumps (trace/dump.c) ------------------------------------------ */

int rb_iter_read_page(struct rb_iter *it, unsigned cpu, void *dst, unsigned *events,
		      uint64_t *lost)
{
	unsigned lo = it->cpu == RB_ALL_CPUS ? 0 : (unsigned)it->cpu;
	unsigned hi = it->cpu == RB_ALL_CPUS ? it->b->ncpus : lo + 1;
	if (cpu < lo || cpu >= hi || !dst)
		return -RB_EINVAL;
	unsigned nev;
	uint64_t l;
	int r = rb_cursor_page(it->b->cpu[cpu], &it->cur[cpu], dst, false, &nev, &l);
	if (events)
		*events = r > 0 ? nev : 0;
	if (lost)
		*lost = r > 0 ? l : 0;
	return r;
}

void rb_iter_start_force(struct rb_iter *it, struct rb_buffer *b)
{
	it->b = b;
	it->cpu = RB_ALL_CPUS;
	for (unsigned i = 0; i < b->ncpus; i++) {
		struct rb_cpu *cb = b->cpu[i];
		rb_record_cpu_off(b, i);
		/* Nobody inside and no owner: publish what a writer may have
		 * left (a quiescer's E step).  Someone inside (stopped
		 * mid-write, or this CPU's own writer), or a resize or reset
		 * stopped mid-work (its mark, RB_OFF_QUIESCE): read up to the
		 * commit word only. */
		if (G_INSIDE(__atomic_load_n(&cb->gate, __ATOMIC_SEQ_CST)) == 0 &&
		    !G_OWNED(__atomic_load_n(RB_OFF_WORD(cb), __ATOMIC_SEQ_CST)))
			rb_publish(cb, __atomic_load_n(&cb->tail, __ATOMIC_RELAXED));
		(void)rb_reader_trylock(cb);   /* held or not: the holder is stopped */
		it->cur[i] = cb->rd;
		it->have[i] = false;
	}
}
