/*
 * ring_buffer.c — the writer side of the per-CPU ring buffer: the general
 * paths behind the inline fast path in rb_write.h (rb_reserve / rb_commit),
 * and the error names.
 *
 * The interleaving points of a write are labelled A..E here and in
 * rb_write.h, and argued one by one in trace/ring_buffer/DESIGN.md ("Writers").  In short:
 *   A  enter: one atomic add on the gate word gives our nesting level, and
 *      a load of the off word whether recording is on;
 *   B  snapshot the tail word, read the clock, size the event; if it does not
 *      fit, B' pick the next page (and overwrite the oldest if allowed);
 *   C  claim: one CAS on the tail word; failure means a nested writer got in
 *      first, so start over from B;
 *   D  fill: headers (and, for a move, the bookkeeping of both pages);
 *   E  commit: the outermost writer publishes everything reserved so far.
 * Only this CPU's writers touch the tail word, the gate word and `lts` (so
 * their RMWs on them are CPU-local ones: DESIGN, "Local atomics");
 * the reader on another CPU meets the writers only at the slot words
 * (CAS) and the commit word (release/acquire).
 */
#include "trace/ring_buffer/rb_internal.h"

#define RB_RETRY 1      /* internal: start over from B */

_Static_assert(RB_MAX_PAGES == 65000u && RB_MAX_PAYLOAD == 4072u && RB_DATA_SIZE == 4080u,
	       "rb_strerror's RB_E2BIG text names these");

const char *rb_strerror(int err)
{
	static const char *const msg[RB_NERR] = {
		[0] = "success",
		[RB_EINVAL] = "invalid argument (size 0, bad CPU or flag)",
		[RB_E2BIG] = ("too large: an event must fit in one page (4072 bytes of payload), "
			      "a CPU's buffer in 65000 pages (265200000 bytes)"),
		[RB_EBUSY] = "busy: recording is on, a writer is inside or a reader is active",
		[RB_ENOMEM] = "out of memory",
		[RB_EOFF] = "recording is off",
		[RB_EDROPPED] = "no room: event dropped (counted)",
		[RB_EAGAIN] = "no event to read",
		[RB_ECORRUPT] = "ring buffer state corrupt: recording disabled on that CPU",
	};
	if (err < 0)
		err = -err;
	return err < (int)RB_NERR ? msg[err] : "unknown ring buffer error";
}

/* ---- Failure paths ---------------------------------------------------------- */

/* An impossible state: stop this CPU's buffer for good (until reset), say so. */
static int rb_corrupt(struct rb_cpu *cb)
{
	__atomic_fetch_add(RB_OFF_WORD(cb), (uint64_t)RB_OFF_BROKEN << 32, __ATOMIC_RELAXED);
	return -RB_ECORRUPT;
}

/*
 * The event does not fit and no page can be entered: mark the tail page full
 * (no later, smaller event may land before the drop) and count the drop in
 * the tail word, so the writer that next moves the tail records it as "lost
 * just before" the new page.  A CAS failure means a nested writer changed the
 * tail: start over, there may be room now.
 */
static int rb_drop(struct rb_cpu *cb, uint64_t t)
{
	uint64_t nt = t | T_FULL_BIT;
	bool placed = T_DP(t) < T_DP_MAX;
	if (placed)
		nt += T_DP_ONE;
	if (!rb_port_local_cas64(&cb->tail, &t, nt))
		return RB_RETRY;
	__atomic_fetch_add(&cb->dropped, 1u, __ATOMIC_RELAXED);
	if (!placed)
		__atomic_fetch_add(&cb->unplaced, 1u, __ATOMIC_RELAXED);
	return -RB_EDROPPED;
}

/* Too deep (RB_MAX_NEST) or interrupted RB_TRIES times: drop, count, and try
 * to place the count at the next page boundary. */
__attribute__((noinline)) static int rb_drop_unplaced(struct rb_cpu *cb)
{
	__atomic_fetch_add(&cb->dropped, 1u, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < RB_TRIES; i++) {
		uint64_t t = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
		if (T_DP(t) == T_DP_MAX)
			break;
		if (rb_port_local_cas64(&cb->tail, &t, t + T_DP_ONE))
			return -RB_EDROPPED;
	}
	__atomic_fetch_add(&cb->unplaced, 1u, __ATOMIC_RELAXED);
	return -RB_EDROPPED;
}

/* ---- B': entering the next page ---------------------------------------------- */

/*
 * Page n-N is unread and we may overwrite it.  Record C(n-N), the number of
 * events lost in overwritten pages up to and including it, for a reader that
 * will skip it (slot_c, DESIGN "Lost events"), then take the slot with one
 * CAS against the reader's swap.  On return *w holds the slot as it now is.
 */
static int rb_take_oldest(struct rb_cpu *cb, uint32_t s, uint64_t n, uint64_t *w)
{
	uint32_t nslots = cb->n;
	const struct rb_meta *om = &cb->meta[S_PIDX(*w)];
	uint64_t e = om->entries;          /* final: the commit is past page n-N */
	uint64_t lost = e + om->drops_before;
	/* C(n-N-1), recorded when page n-1 was entered. */
	uint64_t cprev = __atomic_load_n(&cb->slot_c[(n - 1) % nslots], __ATOMIC_RELAXED);
	/* Page n-N's counts only if the slot still holds it after we read
	 * them.  A writer nested in us since rb_move loaded *w may have made
	 * this same move: the physical page is then page n, its meta already
	 * page n's (drops_before at once, entries once it moved on), and
	 * that writer stored the right C(n-N) before its CAS.  Counts read
	 * before the check are page n-N's (the meta of a page changes only
	 * through this CPU's writers, which interrupt us, so program order is
	 * enough), even if we are interrupted between the check and the
	 * store: we store what a nested mover does.  The reader's swap may
	 * still come after the check: our CAS fails and we put C(n-N-1) back. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&cb->slot[s], __ATOMIC_RELAXED) == *w)
		__atomic_store_n(&cb->slot_c[s], cprev + lost, __ATOMIC_RELAXED);
	rb_port_race();
	/* RELEASE: slot_c before a reader sees "overwritten" (it then reads
	 * slot_c).  ACQUIRE on failure: the reader's swap published its last
	 * reads of the spare page we are about to write. */
	if (__atomic_compare_exchange_n(&cb->slot[s], w, S_MAKE(n, 0, S_PIDX(*w)), false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		*w = S_MAKE(n, 0, S_PIDX(*w));
		__atomic_fetch_add(&cb->overrun, e, __ATOMIC_RELAXED);
		return 0;
	}
	if (S_SEQ(*w) != n)
		return rb_corrupt(cb);
	if (S_R(*w))     /* the reader took page n-N after all: nothing lost there */
		__atomic_store_n(&cb->slot_c[s], cprev, __ATOMIC_RELAXED);
	return 0;        /* (R=0: a writer nested in us overwrote it first) */
}

/*
 * The event does not fit in the tail page (or the page is marked full):
 * move the tail to page n = c+1 with our event first in it.  Everything we
 * write before the C step is either a CAS or a value any writer trying the
 * same move would write too, because a writer we interrupted may resume
 * here after we (nested) already moved and filled the page.
 */
__attribute__((noinline)) static int rb_move(struct rb_buffer *b, struct rb_cpu *cb, uint64_t t, uint64_t ts,
		   uint32_t len, uint32_t lvl, struct rb_resv *r)
{
	uint32_t nslots = cb->n, cur = T_PIDX(t);
	uint64_t n = C_CNT(__atomic_load_n(&cb->pstart[cur], __ATOMIC_RELAXED)) + 1;
	uint32_t s = (uint32_t)(n % nslots);

	/* B': page n-N must be fully committed before its slot is reused.  The
	 * commit word is ours (this CPU writes it), so RELAXED. */
	uint64_t cm = __atomic_load_n(&cb->commit, __ATOMIC_RELAXED);
	if (n - C_CNT(cm) >= nslots)
		return rb_drop(cb, t);
	/* ACQUIRE: pairs with the reader's swap; its reads of the spare page
	 * happen before our writes to it. */
	uint64_t w = __atomic_load_n(&cb->slot[s], __ATOMIC_ACQUIRE);
	rb_port_race();
	if (S_SEQ(w) != n) {
		if (S_SEQ(w) != n - nslots)
			return rb_corrupt(cb);
		if (!__atomic_load_n(&b->overwrite, __ATOMIC_RELAXED))
			return rb_drop(cb, t);
		int rc = rb_take_oldest(cb, s, n, &w);
		if (rc)
			return rc;
	} else if (S_R(w)) {
		/* The reader consumed page n-N: C(n-N) = C(n-N-1). */
		__atomic_store_n(&cb->slot_c[s],
				 __atomic_load_n(&cb->slot_c[(n - 1) % nslots], __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	}
	uint32_t np = S_PIDX(w);
	struct rb_page *pg = rb_pg(cb, np);
	__atomic_store_n(&cb->pstart[np], C_MAKE(n, 0), __ATOMIC_RELAXED);
	__atomic_store_n(&pg->commit, C_MAKE(n, 0), __ATOMIC_RELAXED);    /* its copy */

	uint32_t g = T_GEN(t) ^ 1u;
	__atomic_store_n(&cb->lts[RB_LTS(lvl, g)], ts, __ATOMIC_RELAXED);
	/* Our time stamp and page count before the CAS that points at them. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* C */
	uint64_t nt = T_MAKE(rb_ev_size(len), 1, 0, lvl, g, np, 0);
	if (!rb_port_local_cas64(&cb->tail, &t, nt))
		return RB_RETRY;

	/* D: we own the move.  Nested writers may already reserve after us in
	 * page np, but nobody else writes these fields, and no commit can be
	 * published before ours (we are inside). */
	struct rb_meta *om = &cb->meta[cur];
	om->real_end = T_OFF(t);
	om->entries = T_NEV(t);
	if (T_OFF(t) < RB_DATA_SIZE)
		rb_put_padding(rb_pg(cb, cur)->data + T_OFF(t), RB_DATA_SIZE - T_OFF(t), 0);
	/* The drops the tail word counted, and those beyond its count
	 * (rb_drop, rb_drop_unplaced): all are before our event but for one
	 * that a writer nested in us dropped since our C step (DESIGN, "Lost
	 * events"). */
	cb->meta[np].drops_before = T_DP(t) + __atomic_exchange_n(&cb->unplaced, 0, __ATOMIC_RELAXED);
	pg->time_stamp = ts;
	r->data = rb_put_data_fast(pg->data, 0, len);
	return 0;
}

/* ---- B..D ------------------------------------------------------------------ */

static int rb_claim(struct rb_buffer *b, struct rb_cpu *cb, uint32_t len, uint32_t lvl,
		    struct rb_resv *r)
{
	uint32_t esz = rb_ev_size(len);
	for (unsigned i = 0; i < RB_TRIES; i++) {
		/* B */
		uint64_t t = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
		/* The clock after the snapshot: if the C step succeeds, every
		 * event before ours was claimed before this point (DESIGN). */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		uint64_t ts = rb_port_clock();
		uint32_t off = T_OFF(t);
		uint64_t delta = 0;
		if (off) {
			uint64_t prev = __atomic_load_n(&cb->lts[T_LTS(t)], __ATOMIC_RELAXED);
			delta = ts > prev ? ts - prev : 0;
		}
		uint32_t need = esz + (delta > RB_DELTA_MAX ? 8u : 0u);
		int rc;
		if (T_FULL(t) || off + need > RB_DATA_SIZE) {
			rc = rb_move(b, cb, t, ts, len, lvl, r);
		} else {
			/* The slot of our level that the tail does not point at. */
			uint32_t g = T_GEN(t) ^ 1u;
			__atomic_store_n(&cb->lts[RB_LTS(lvl, g)], ts, __ATOMIC_RELAXED);
			__atomic_signal_fence(__ATOMIC_SEQ_CST);   /* lts before the CAS */
			uint64_t nt = T_MAKE(off + need, T_NEV(t) + 1u, 0, lvl, g, T_PIDX(t),
					     T_DP(t));
			/* C */
			if (!rb_port_local_cas64(&cb->tail, &t, nt))
				continue;
			/* D */
			struct rb_page *pg = rb_pg(cb, T_PIDX(t));
			uint8_t *p = pg->data + off;
			if (off == 0)
				pg->time_stamp = ts;
			if (need > esz) {
				p = rb_put_time_extend(p, delta);
				delta = 0;
			}
			r->data = rb_put_data_fast(p, (uint32_t)delta, len);
			return 0;
		}
		if (rc != RB_RETRY)
			return rc;
	}
	return rb_drop_unplaced(cb);
}

/* ---- E: commit --------------------------------------------------------------- */

/*
 * Leave after finding the buffer owned (a quiescer, or broken); true if it
 * still is.  The owner publishes what we leave when it sees us out, or, if
 * it gave up waiting, when it lets go and finds us out; if it let go before
 * it could see us out, we see that here and enter again (DESIGN, point E:
 * "a quiescer that gives up").  One word: our RMW and the owner's are
 * ordered in that word, and ours returns the switch as it left it; two
 * words: a full fence between our leave and our load, as between the
 * owner's let-go and its load of the gate.
 */
static bool rb_gate_leave_owned(struct rb_cpu *cb)
{
#if RB_PORT_LOCAL_GATE
	rb_gate_leave(cb);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return G_OWNED(__atomic_load_n(&cb->off, __ATOMIC_SEQ_CST));
#else
	return G_OWNED(__atomic_sub_fetch(&cb->gate, 1u, __ATOMIC_SEQ_CST));
#endif
}

/* Enter again (A) to publish more; false if the buffer is owned (we left).
 * Recording off alone does not stop a publish: nobody moves the buffer
 * then, and what is reserved is complete (we are the outermost writer). */
static bool rb_end_reenter(struct rb_cpu *cb)
{
	for (unsigned i = 0; i < RB_TRIES; i++) {
		/* ACQUIRE (A): a quiescer that owned the buffer and let go is
		 * done with it before we touch it. */
		uint64_t g;
		rb_gate_enter(cb, &g);
		if (!G_OWNED(g))
			return true;
		if (rb_gate_leave_owned(cb))
			return false;
	}
	return false;
}

/*
 * E, the outermost writer's loop: publish, leave, and if the tail moved
 * meanwhile (a writer reserved while we were inside and left its event to
 * us), enter again and publish again.  Entering again is an A step: if a
 * quiescer owns the buffer now, leave the rest to it.
 */
static void rb_end_outer(struct rb_cpu *cb)
{
	for (unsigned i = 0; i < RB_TRIES; i++) {
		uint64_t w = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
		rb_publish(cb, w);
		/* RELEASE: our event is written before a quiescer sees 0. */
		rb_gate_leave(cb);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(&cb->tail, __ATOMIC_RELAXED) == w)
			return;
		if (!rb_end_reenter(cb))
			return;
	}
	/* Interrupted RB_TRIES times in a row: the next outermost commit (or a
	 * quiescer) publishes. */
	rb_gate_leave(cb);
}

void rb_end_slow(struct rb_cpu *cb)
{
	/* E: are we the only open reservation?  Writers we interrupted are
	 * below us and still open; ones that interrupted us are finished.  If
	 * not, the outermost writer publishes our event. */
	if (G_INSIDE(__atomic_load_n(&cb->gate, __ATOMIC_RELAXED)) != 1) {
		/* RELEASE: our event is written before a quiescer sees 0. */
		rb_gate_leave(cb);
		return;
	}
	rb_end_outer(cb);
}
RB_PORT_COLD_THUNK(rb_end_slow);

void rb_end_again(struct rb_cpu *cb)
{
	if (rb_end_reenter(cb))
		rb_end_outer(cb);
}
RB_PORT_COLD_THUNK(rb_end_again);

/* ---- After A: the general reservation ------------------------------------------ */

/*
 * A writer that met recording off at A reserves nothing.  If the buffer is
 * owned (a quiescer at work) it touches nothing but the gate.  If not, and
 * it is the outermost writer, writers nested in it since recording came
 * back on left their events to it: it publishes them before it leaves, as
 * the E step does (the common case, nothing nested, only compares).
 */
static void rb_leave_off(struct rb_cpu *cb, uint32_t lvl, uint32_t off)
{
	if (off >= RB_OFF_QUIESCE) {
		if (!rb_gate_leave_owned(cb) && lvl == 0)
			rb_end_again(cb);     /* the owner let go before it saw us out */
		return;
	}
	if (lvl) {
		rb_gate_leave(cb);    /* the writer below us publishes */
		return;
	}
	uint64_t w = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
	if (__atomic_load_n(&cb->commit, __ATOMIC_RELAXED) != rb_commit_word(cb, w))
		rb_publish(cb, w);
	rb_gate_leave(cb);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&cb->tail, __ATOMIC_RELAXED) != w)
		rb_end_again(cb);
}

struct rb_slow rb_reserve_slow(struct rb_cpu *cb, uint32_t len, uint32_t lvl, uint32_t off)
{
	struct rb_buffer *b = cb->owner;
	struct rb_resv r;
	if (off) {
		rb_leave_off(cb, lvl, off);
		int err = cb == &b->absent ? -RB_EINVAL :     /* no buffer for this CPU */
			  off >= RB_OFF_BROKEN ? -RB_ECORRUPT : -RB_EOFF;
		return (struct rb_slow){ NULL, err };
	}
	int err;
	if (lvl >= RB_MAX_NEST)
		err = rb_drop_unplaced(cb);
	else if ((err = rb_claim(b, cb, len, lvl, &r)) == 0)
		return (struct rb_slow){ r.data, 0 };
	rb_end_slow(cb);     /* nested writers may have left their events for us to publish */
	return (struct rb_slow){ NULL, err };
}
RB_PORT_COLD_THUNK(rb_reserve_slow);

int rb_write(struct rb_buffer *b, const void *data, uint32_t len)
{
	struct rb_resv r;
	int err = rb_reserve(b, len, &r);
	if (err)
		return err;
	uint8_t *d = r.data;
	const uint8_t *s = data;
	for (uint32_t i = 0; i < len; i++) {
		/* Keep the compiler from turning this into a libc memcpy call
		 * (FP/SIMD registers, and not notrace). */
		__asm__("" : "+r"(i));
		d[i] = s[i];
	}
	rb_commit(&r);
	return 0;
}
