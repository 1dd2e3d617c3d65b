/*
 * rb_setup.c — creating, sizing, resetting and switching ring buffers, and
 * reading their counters.
 *
 * Not on the tracing path.  Functions that change a CPU buffer's memory or
 * contents first make sure nothing else uses it: recording off for that CPU
 * (the caller's job, checked), no writer inside (waited for, briefly and with
 * a bound), no reader (its lock taken).  Validation and allocation come
 * before any change, so a failing call leaves everything as it was.
 */
#include "trace/ring_buffer/rb_internal.h"

#define RB_QUIESCE_SPINS 2000000u

static void rb_zero(void *p, size_t n)
{
	uint8_t *q = p;
	for (size_t i = 0; i < n; i++) {
		__asm__("" : "+r"(i));    /* no libc memset */
		q[i] = 0;
	}
}

/* Ring pages for `size` data bytes per CPU, or 0 if size is 0 / too large. */
static uint32_t rb_pages_for(size_t size, int *err)
{
	if (size == 0) {
		*err = -RB_EINVAL;
		return 0;
	}
	size_t n = (size + RB_DATA_SIZE - 1) / RB_DATA_SIZE;
	if (n > RB_MAX_PAGES) {
		*err = -RB_E2BIG;
		return 0;
	}
	return n < RB_MIN_PAGES ? RB_MIN_PAGES : (uint32_t)n;
}

/* The memory of one CPU buffer: N slots, N+1 pages.  The pages are one
 * block, pages[0] its start (pages[] never changes: slots and the reader
 * name pages by index): one allocation, however large the buffer (one per
 * page made a 64 MiB buffer take minutes, each one slower than the last). */
struct rb_mem {
	uint32_t n;
	uint64_t *slot, *slot_c, *pstart;
	struct rb_meta *meta;
	struct rb_page **pages;
};

static void rb_mem_free(const struct rb_allocator *a, struct rb_mem *m)
{
	if (m->pages && m->pages[0])
		a->free(a->ctx, m->pages[0]);
	void *parts[] = { m->pages, m->meta, m->pstart, m->slot_c, m->slot };
	for (unsigned i = 0; i < 5; i++)
		if (parts[i])
			a->free(a->ctx, parts[i]);
	rb_zero(m, sizeof(*m));
}

static int rb_mem_alloc(const struct rb_allocator *a, uint32_t n, struct rb_mem *m)
{
	rb_zero(m, sizeof(*m));
	m->n = n;
	m->slot = a->alloc(a->ctx, n * sizeof(uint64_t), 8);
	m->slot_c = a->alloc(a->ctx, n * sizeof(uint64_t), 8);
	m->pstart = a->alloc(a->ctx, (n + 1) * sizeof(uint64_t), 8);
	m->meta = a->alloc(a->ctx, (n + 1) * sizeof(struct rb_meta), 8);
	m->pages = a->alloc(a->ctx, (n + 1) * sizeof(struct rb_page *), 8);
	/* Zeroed before anything can fail: rb_mem_free frees pages[0] if it
	 * is not NULL (the allocator's memory is not zeroed). */
	if (m->pages)
		rb_zero(m->pages, (n + 1) * sizeof(struct rb_page *));
	if (!m->slot || !m->slot_c || !m->pstart || !m->meta || !m->pages) {
		rb_mem_free(a, m);
		return -RB_ENOMEM;
	}
	uint8_t *block = a->alloc(a->ctx, (size_t)(n + 1) * RB_PAGE_SIZE, RB_PAGE_SIZE);
	if (!block) {
		rb_mem_free(a, m);
		return -RB_ENOMEM;
	}
	for (uint32_t i = 0; i <= n; i++)
		m->pages[i] = (struct rb_page *)(block + (size_t)i * RB_PAGE_SIZE);
	return 0;
}

/*
 * Put a CPU buffer in its initial state: page 0 entered as count 0 and
 * empty; slot i holds page i for count i, as if the reader had put it there;
 * page N is the reader's.  Quiescent callers only.
 */
static void rb_cpu_clear(struct rb_cpu *cb)
{
	uint32_t n = cb->n;
	for (uint32_t i = 0; i < n; i++) {
		__atomic_store_n(&cb->slot[i], S_MAKE(i, 1, i), __ATOMIC_RELAXED);
		__atomic_store_n(&cb->slot_c[i], 0, __ATOMIC_RELAXED);
	}
	rb_zero(cb->meta, (n + 1) * sizeof(struct rb_meta));
	for (uint32_t i = 0; i <= n; i++) {
		__atomic_store_n(&cb->pstart[i], C_MAKE(0, 0), __ATOMIC_RELAXED);
		cb->pages[i]->time_stamp = 0;
		__atomic_store_n(&cb->pages[i]->commit, 0, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&cb->tail, T_FRESH, __ATOMIC_RELAXED);
	cb->tail_step = T_GEN_BIT + T_NEV_ONE;
	__atomic_store_n(&cb->commit, C_MAKE(0, 0), __ATOMIC_RELAXED);
	for (unsigned i = 0; i < RB_MAX_NEST * 2; i++)
		__atomic_store_n(&cb->lts[i], 0, __ATOMIC_RELAXED);
	/* mended: the impossible states seen are forgotten; switch counts, an
	 * owner's mark and writers inside (leaving after seeing it) stay */
	__atomic_fetch_and(RB_OFF_WORD(cb), ((uint64_t)(RB_OFF_BROKEN - 1u) << 32) | 0xffffffffu,
			   __ATOMIC_RELAXED);
	__atomic_store_n(&cb->overrun, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cb->dropped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cb->unplaced, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cb->read, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&cb->lost_reported, 0, __ATOMIC_RELAXED);
	rb_cursor_init(&cb->rd, n);
}

static void rb_cpu_use(struct rb_cpu *cb, struct rb_mem *m)
{
	cb->n = m->n;
	cb->slot = m->slot;
	cb->slot_c = m->slot_c;
	cb->pstart = m->pstart;
	cb->meta = m->meta;
	cb->pages = m->pages;
}

static struct rb_mem rb_cpu_mem(const struct rb_cpu *cb)
{
	return (struct rb_mem){ cb->n, cb->slot, cb->slot_c, cb->pstart, cb->meta, cb->pages };
}

void rb_destroy(struct rb_buffer *b)
{
	if (!b)
		return;
	for (unsigned i = 0; i < b->ncpus; i++) {
		struct rb_cpu *cb = b->cpu[i];
		if (cb == &b->absent)
			continue;            /* rb_create failed before it */
		struct rb_mem m = rb_cpu_mem(cb);
		rb_mem_free(&b->a, &m);
		b->a.free(b->a.ctx, cb);
	}
	b->a.free(b->a.ctx, b);
}

int rb_create(struct rb_buffer **out, unsigned ncpus, size_t size, unsigned flags,
	      const struct rb_allocator *a)
{
	int err = 0;
	uint32_t n = rb_pages_for(size, &err);
	if (!out || !a || !a->alloc || !a->free || ncpus == 0 || ncpus > RB_MAX_CPUS ||
	    (flags & ~RB_FL_OVERWRITE))
		return -RB_EINVAL;
	if (!n)
		return err;
	struct rb_buffer *b = a->alloc(a->ctx, sizeof(*b), RB_CACHELINE);
	if (!b)
		return -RB_ENOMEM;
	rb_zero(b, sizeof(*b));
	b->a = *a;
	b->ncpus = ncpus;
	b->overwrite = (flags & RB_FL_OVERWRITE) != 0;
	/* Writers on CPUs without a buffer find the stand-in, owned for good:
	 * they touch nothing but its gate. */
	*RB_OFF_WORD(&b->absent) = (uint64_t)RB_OFF_QUIESCE << 32;
	b->absent.owner = b;
	for (unsigned i = 0; i < RB_MAX_CPUS; i++)
		b->cpu[i] = &b->absent;
	for (unsigned i = 0; i < ncpus; i++) {
		struct rb_cpu *cb = a->alloc(a->ctx, sizeof(*cb), RB_CACHELINE);
		struct rb_mem m;
		if (!cb || rb_mem_alloc(a, n, &m)) {
			if (cb)
				a->free(a->ctx, cb);
			rb_destroy(b);
			return -RB_ENOMEM;
		}
		rb_zero(cb, sizeof(*cb));
		rb_cpu_use(cb, &m);
		rb_cpu_clear(cb);
		cb->owner = b;
		b->cpu[i] = cb;
	}
	*out = b;
	return 0;
}

unsigned rb_ncpus(const struct rb_buffer *b) { return b->ncpus; }

struct rb_cpu *rb_cpu_buffer(struct rb_buffer *b, unsigned cpu)
{
	return b->cpu[cpu];
}

size_t rb_size(const struct rb_buffer *b, unsigned cpu)
{
	return cpu < b->ncpus ? (size_t)b->cpu[cpu]->n * RB_DATA_SIZE : 0;
}

/* ---- Recording switches ------------------------------------------------------ */

/*
 * The buffer-wide switch is counted in every CPU's off word too, so a
 * writer learns both from its one load at A.
 */
void rb_record_off(struct rb_buffer *b)
{
	__atomic_fetch_add(&b->record_off, 1u, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < b->ncpus; i++)
		__atomic_fetch_add(RB_OFF_WORD(b->cpu[i]), G_OFF_ONE, __ATOMIC_SEQ_CST);
}

void rb_record_on(struct rb_buffer *b)
{
	__atomic_fetch_sub(&b->record_off, 1u, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < b->ncpus; i++)
		__atomic_fetch_sub(RB_OFF_WORD(b->cpu[i]), G_OFF_ONE, __ATOMIC_SEQ_CST);
}

void rb_record_cpu_off(struct rb_buffer *b, unsigned cpu)
{
	if (cpu < b->ncpus)
		__atomic_fetch_add(RB_OFF_WORD(b->cpu[cpu]), G_OFF_ONE, __ATOMIC_SEQ_CST);
}

void rb_record_cpu_on(struct rb_buffer *b, unsigned cpu)
{
	if (cpu < b->ncpus)
		__atomic_fetch_sub(RB_OFF_WORD(b->cpu[cpu]), G_OFF_ONE, __ATOMIC_SEQ_CST);
}

bool rb_record_is_on(const struct rb_buffer *b, unsigned cpu)
{
	return cpu < b->ncpus && !G_OFF(__atomic_load_n(RB_OFF_WORD(b->cpu[cpu]), __ATOMIC_SEQ_CST));
}

void rb_set_overwrite(struct rb_buffer *b, bool on)
{
	__atomic_store_n(&b->overwrite, (uint32_t)on, __ATOMIC_RELAXED);
}

bool rb_overwrite(const struct rb_buffer *b)
{
	return __atomic_load_n(&b->overwrite, __ATOMIC_RELAXED) != 0;
}

/* ---- Quiescence ---------------------------------------------------------------- */

/* Wait (bounded) until no writer is inside cpu's buffer.  Recording must be
 * off already: a writer whose add to the gate we did not see loads off after
 * it and sees recording off (A: SEQ_CST on both sides). */
static bool rb_writers_out(struct rb_cpu *cb)
{
	for (unsigned i = 0; i < RB_QUIESCE_SPINS; i++) {
		if (G_INSIDE(__atomic_load_n(&cb->gate, __ATOMIC_SEQ_CST)) == 0)
			return true;
		rb_port_relax();
	}
	return false;
}

/* Recording off for `cpu`, no writer inside, and the reader lock ours;
 * undone on -RB_EBUSY.  Then nothing is reserved until recording is back
 * on, and the quiescer publishes what writers left (DESIGN, point E), so
 * iterators see the buffer as it stays (an outermost writer that enters
 * meanwhile publishes the same commit word, or nothing).  The publish comes
 * after the lock: an owner (rb_own) moves or clears the buffer only while
 * it holds the lock. */
int rb_quiesce(struct rb_buffer *b, unsigned cpu)
{
	struct rb_cpu *cb = b->cpu[cpu];
	rb_record_cpu_off(b, cpu);
	if (rb_writers_out(cb) && rb_reader_trylock(cb)) {
		rb_publish(cb, __atomic_load_n(&cb->tail, __ATOMIC_RELAXED));
		return 0;
	}
	rb_record_cpu_on(b, cpu);
	return -RB_EBUSY;
}

/* Give up ownership of cb (the owned mark of rb_own), then, if no other
 * owner's mark is left and no writer is inside, publish.  A writer that
 * met the mark left what was reserved to the owners; if it left after the
 * last owner's look at the gate, either it sees the last mark gone and
 * publishes itself, or the last owner sees it out here (SEQ_CST on both
 * sides: rb_gate_leave_owned).  Another owner may still hold the reader
 * lock and be moving or clearing the buffer: its mark keeps us from
 * writing.  Recording is still off (the caller's), so the tail does not
 * move and a writer publishing too writes the same word.  A lock holder
 * lets go before it unlocks. */
void rb_let_go(struct rb_cpu *cb)
{
	uint64_t left = __atomic_sub_fetch(RB_OFF_WORD(cb), (uint64_t)RB_OFF_QUIESCE << 32,
					   __ATOMIC_SEQ_CST);
	if (!G_OWNED(left) && G_INSIDE(__atomic_load_n(&cb->gate, __ATOMIC_SEQ_CST)) == 0)
		rb_publish(cb, __atomic_load_n(&cb->tail, __ATOMIC_RELAXED));
}

static void rb_let_go_all(struct rb_buffer *b, unsigned lo, unsigned hi, bool unlock)
{
	for (unsigned i = lo; i < hi; i++) {
		rb_let_go(b->cpu[i]);
		if (unlock)
			rb_reader_unlock(b->cpu[i]);
	}
}

/* Own cpus [lo, hi) for a resize or reset: recording must be off (the
 * caller's); each CPU is marked owned (RB_OFF_QUIESCE: writers that enter
 * touch nothing but the gate), its writers out, its reader lock ours (two
 * owners of one CPU: the lock decides), and then what writers left
 * published.  On error nothing is held: each CPU marked is let go
 * (rb_let_go: published if its writers are out by then and no other owner
 * is at work). */
static int rb_own(struct rb_buffer *b, unsigned lo, unsigned hi)
{
	for (unsigned i = lo; i < hi; i++) {
		struct rb_cpu *cb = b->cpu[i];
		if (rb_record_is_on(b, i)) {
			rb_let_go_all(b, lo, i, true);
			return -RB_EBUSY;
		}
		__atomic_fetch_add(RB_OFF_WORD(cb), (uint64_t)RB_OFF_QUIESCE << 32, __ATOMIC_SEQ_CST);
		int err = 0;
		if (!rb_writers_out(cb) || !rb_reader_trylock(cb))
			err = -RB_EBUSY;
		else
			rb_publish(cb, __atomic_load_n(&cb->tail, __ATOMIC_RELAXED));
		if (err) {
			rb_let_go(cb);
			rb_let_go_all(b, lo, i, true);
			return err;
		}
	}
	return 0;
}

static int rb_cpu_range(const struct rb_buffer *b, int cpu, unsigned *lo, unsigned *hi)
{
	if (cpu == RB_ALL_CPUS) {
		*lo = 0;
		*hi = b->ncpus;
		return 0;
	}
	if (cpu < 0 || (unsigned)cpu >= b->ncpus)
		return -RB_EINVAL;
	*lo = (unsigned)cpu;
	*hi = *lo + 1;
	return 0;
}

/* ---- Resize: the events move into the new pages --------------------------------
 *
 * An owner (recording off on the CPU, the buffer marked owned, no writer
 * inside, the reader lock held), so nothing here races: writers that come
 * later see the mark at A and touch only the gate word; the reader,
 * iterators and other owners get -RB_EBUSY.  The new memory reaches
 * writers through the off word: the ACQUIRE of their A step's load pairs
 * with the RELEASE of the let-go (rb_let_go) and of the "recording on"
 * that end the quiescence, so a writer that enters after either reads the
 * new n, slots and pages (it reads none of them before A).  What is unread moves, oldest
 * first, as Linux's ring_buffer_resize keeps it:
 *   - the reader's page, if it holds unread bytes or is the tail page (the
 *     writer still fills it), stays the reader's, cursor and all;
 *   - the unread ring pages after it, in count order (rb_next_page's walk,
 *     which also says how many events were lost before each);
 *   - if there are more of them than the new ring has slots, the oldest go:
 *     their events count as overrun and are reported, with the losses before
 *     them, as lost just before the first page kept (its drops_before).
 * Pages keep their bytes and time stamps; they get new counts (the reader's
 * page base-1, ring page j base+j in slot j, where base is n if the reader
 * keeps its page, else 0), and the tail word keeps everything but its page
 * index, so the next event goes on where the last one ended, with its time
 * delta from the last event's time (lts is kept).  No page was ever
 * overwritten in the new ring, so every C is 0, and the losses before the
 * kept pages are in their drops_before (or in the reader's pending count).
 * Drops pending in the tail word and `unplaced` stay for the next page.
 */

static void rb_page_copy(struct rb_page *dst, const struct rb_page *src)
{
	uint64_t *d = (uint64_t *)dst;
	const uint64_t *s = (const uint64_t *)src;
	for (size_t i = 0; i < RB_PAGE_SIZE / 8; i++) {
		__asm__("" : "+r"(i));    /* no libc memcpy */
		d[i] = s[i];
	}
}

/* Physical page j of m becomes a copy of src entered as count cnt. */
static void rb_page_move(struct rb_mem *m, uint32_t j, const struct rb_page *src,
			 const struct rb_meta *meta, uint64_t cnt)
{
	rb_page_copy(m->pages[j], src);
	m->meta[j] = *meta;
	m->pstart[j] = C_MAKE(cnt, 0);
	m->pages[j]->commit = C_MAKE(cnt, 0);       /* the fast path's copy */
}

/* Unread ring pages after cursor c of a quiescent buffer, or -1 if the
 * walk finds an impossible state. */
static int rb_unread_pages(struct rb_cpu *cb, struct rb_cursor c)
{
	int k = 0, err;
	while (k <= (int)cb->n && (err = rb_next_page(cb, &c, false)) == 0)
		k++;
	return k <= (int)cb->n && err == -RB_EAGAIN ? k : -1;
}

/* New slots: slot j holds physical page j for count base + j (a page moved
 * there or a spare waiting for the writer, both as the reader leaves them). */
static void rb_mem_ring(struct rb_mem *m, uint64_t base)
{
	for (uint32_t j = 0; j < m->n; j++) {
		m->slot[j] = S_MAKE(base + j, 1, j);
		m->slot_c[j] = 0;
	}
	rb_zero(m->meta, (m->n + 1) * sizeof(struct rb_meta));
	for (uint32_t j = 0; j <= m->n; j++) {
		m->pstart[j] = C_MAKE(0, 0);
		m->pages[j]->time_stamp = 0;
		m->pages[j]->commit = 0;
	}
}

/* Give cb the memory m, its unread events moved in (see above).  A CPU
 * buffer found broken is cleared instead, as rb_reset would. */
static void rb_cpu_move(struct rb_cpu *cb, struct rb_mem *m)
{
	uint64_t t = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
	uint64_t cm = __atomic_load_n(&cb->commit, __ATOMIC_RELAXED);   /* = t (rb_own) */
	struct rb_mem old = rb_cpu_mem(cb);
	struct rb_cursor c = cb->rd;
	bool keep_rd = c.valid && (c.cnt == C_CNT(cm) || c.off < rb_readable(cb, &c, cm));
	int k = rb_unread_pages(cb, c);
	bool broken = G_OFF(__atomic_load_n(RB_OFF_WORD(cb), __ATOMIC_RELAXED)) >= RB_OFF_BROKEN;
	if (k < 0 || broken || (k == 0 && !keep_rd)) {
		rb_cpu_use(cb, m);
		rb_cpu_clear(cb);
		return;
	}
	uint32_t n = m->n, drop = (uint32_t)k > n ? (uint32_t)k - n : 0;
	uint64_t base = keep_rd ? n : 0;
	uint64_t prev = keep_rd ? c.pending : 0, carry = 0, overrun = 0;
	uint32_t tail_pidx = n, kept = 0;           /* n: the reader's page */
	rb_mem_ring(m, base);
	for (uint32_t i = 0; i < (uint32_t)k; i++) {
		(void)rb_next_page(cb, &c, false);   /* as in rb_unread_pages */
		uint64_t lost = c.pending - prev;
		const struct rb_meta *om = &old.meta[c.pidx];
		prev = c.pending;
		if (i < drop) {                      /* the oldest, beyond the new size */
			overrun += om->entries;
			carry += lost + om->entries;
			continue;
		}
		tail_pidx = kept;
		rb_page_move(m, kept, old.pages[c.pidx], om, base + kept);
		m->meta[kept++].drops_before = carry + lost;
		carry = 0;
	}
	struct rb_cursor rd = cb->rd;
	if (keep_rd) {
		rb_page_move(m, n, old.pages[rd.pidx], &old.meta[rd.pidx], base - 1);
		rd.pidx = n;
		rd.cnt = base - 1;
		rd.head = base;
		rd.cbase = 0;
	} else {
		rb_cursor_init(&rd, n);
	}
	uint64_t tail_cnt = base + kept - 1;
	rb_cpu_use(cb, m);
	cb->rd = rd;
	__atomic_store_n(&cb->tail, (t & ~((uint64_t)0xffffu << 25)) | (uint64_t)tail_pidx << 25,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&cb->commit, C_MAKE(tail_cnt, T_OFF(t)), __ATOMIC_RELAXED);
	__atomic_fetch_add(&cb->overrun, overrun, __ATOMIC_RELAXED);
}

int rb_resize(struct rb_buffer *b, int cpu, size_t size)
{
	unsigned lo, hi;
	int err = 0;
	uint32_t n = rb_pages_for(size, &err);
	if (rb_cpu_range(b, cpu, &lo, &hi))
		return -RB_EINVAL;
	if (!n)
		return err;
	/* Z1 (recording off) is the caller's; Z2: writers out, reader lock. */
	if ((err = rb_own(b, lo, hi)))
		return err;
	struct rb_mem m[RB_MAX_CPUS];
	for (unsigned i = lo; i < hi; i++) {
		if ((err = rb_mem_alloc(&b->a, n, &m[i]))) {
			while (i-- > lo)
				rb_mem_free(&b->a, &m[i]);
			goto out;
		}
	}
	for (unsigned i = lo; i < hi; i++) {
		struct rb_cpu *cb = b->cpu[i];
		struct rb_mem old = rb_cpu_mem(cb);
		rb_cpu_move(cb, &m[i]);             /* Z3 */
		rb_mem_free(&b->a, &old);           /* no writer holds it (Z2) */
	}
out:                                            /* Z4 (recording on) is the caller's */
	rb_let_go_all(b, lo, hi, true);
	return err;
}

int rb_reset(struct rb_buffer *b, int cpu)
{
	unsigned lo, hi;
	if (rb_cpu_range(b, cpu, &lo, &hi))
		return -RB_EINVAL;
	int err = rb_own(b, lo, hi);
	if (err)
		return err;
	for (unsigned i = lo; i < hi; i++)
		rb_cpu_clear(b->cpu[i]);
	rb_let_go_all(b, lo, hi, true);
	return 0;
}

int rb_stats(const struct rb_buffer *b, unsigned cpu, struct rb_stats *s)
{
	if (cpu >= b->ncpus)
		return -RB_EINVAL;
	const struct rb_cpu *cb = b->cpu[cpu];
	*s = (struct rb_stats){
		.overrun = __atomic_load_n(&cb->overrun, __ATOMIC_RELAXED),
		.dropped = __atomic_load_n(&cb->dropped, __ATOMIC_RELAXED),
		.read = __atomic_load_n(&cb->read, __ATOMIC_RELAXED),
		.lost_reported = __atomic_load_n(&cb->lost_reported, __ATOMIC_RELAXED),
		.pending_drops = T_DP(__atomic_load_n(&cb->tail, __ATOMIC_RELAXED)),
		.unplaced = __atomic_load_n(&cb->unplaced, __ATOMIC_RELAXED),
		.pages = cb->n,
	};
	return 0;
}
