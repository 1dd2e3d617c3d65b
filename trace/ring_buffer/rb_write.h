/*
 * rb_write.h — the writer's fast path: rb_reserve() and rb_commit(), inline.
 *
 * Every writer compiles the common case into itself: the outermost writer on
 * its CPU (level 0), recording on, the event fitting in the tail page with a
 * delta of at most 27 bits, no interruption between B and C, and a commit that
 * stays in its page.  Anything else goes to the general code in ring_buffer.c
 * (rb_reserve_slow, rb_end_slow), entered with the A step already done,
 * through the port's cold calls (rb_port.h) so that they cost the common
 * path no saved register.  The
 * contract is the one in ring_buffer.h; the points A..E are argued in
 * trace/ring_buffer/DESIGN.md ("Writers"), and the fast path takes exactly the same steps
 * as the general one, only fewer of the branches.
 *
 * Private to the ring buffer: only ring_buffer.h includes it (through
 * rb_internal.h).  Callers use the API in ring_buffer.h and never touch the
 * state it reads.
 */
#ifndef TRACE_RB_WRITE_H
#define TRACE_RB_WRITE_H

#define RB_INLINE static inline __attribute__((always_inline))

/* ring_buffer.c: the general paths.  rb_reserve_slow() continues a
 * reservation after its A step (level `lvl`, recording switch `off` as read
 * there): it returns the payload address, or NULL and the error after doing
 * its E step.  (Two registers back, so the caller's rb_resv never has to
 * live in memory.)  rb_end_slow() is E for any writer. */
struct rb_slow {
	void *data;
	intptr_t err;
};
struct rb_slow rb_reserve_slow(struct rb_cpu *cb, uint32_t len, uint32_t lvl, uint32_t off);
void rb_end_slow(struct rb_cpu *cb);
/* E after the fast path published and left but found the tail moved. */
void rb_end_again(struct rb_cpu *cb);

/*
 * A: enter.  *g = G_INSIDE the writers inside before us (our level) |
 * G_OFF the recording switch as we saw it; true if both are 0.  A
 * quiescer's "off" comes before our look at it (we see it) or after our add
 * (it sees us inside).  ACQUIRE: a quiescer that turned recording back on
 * is done with the buffer before we touch it.  one: 1 (rb_gate_one).
 */
RB_INLINE bool rb_gate_enter_by(struct rb_cpu *cb, uint64_t *g, uint64_t one)
{
#if RB_PORT_LOCAL_GATE
	/* Two words: SEQ_CST both, as the quiescer's add to off and its
	 * load of the gate (DESIGN, "Local atomics"); the load is the ACQUIRE. */
	*g = __atomic_fetch_add(&cb->gate, one, __ATOMIC_SEQ_CST);
	return rb_port_or_load64_seq_cst(g, &cb->off);
#else
	/* One word: its own modification order orders us and the quiescer. */
	*g = __atomic_fetch_add(&cb->gate, one, __ATOMIC_ACQUIRE);
	return *g == 0;
#endif
}

RB_INLINE bool rb_gate_enter(struct rb_cpu *cb, uint64_t *g)
{
	return rb_gate_enter_by(cb, g, 1u);
}

/* E: leave.  RELEASE: our event is written before a quiescer sees the gate
 * without us.  Two words: only this CPU writes the gate, a CPU-local sub. */
RB_INLINE void rb_gate_leave(struct rb_cpu *cb)
{
#if RB_PORT_LOCAL_GATE
	rb_port_local_sub64_release(&cb->gate, 1u);
#else
	__atomic_fetch_sub(&cb->gate, 1u, __ATOMIC_RELEASE);
#endif
}

/*
 * The fast path's 1 for A and E: the same register both times, which the
 * compiler is not to make again from the constant (arm64: one `mov` fewer,
 * as E clears the bit it added instead of adding -1).
 */
RB_INLINE uint64_t rb_gate_one(void)
{
	uint64_t one = 1;
#if !RB_PORT_LOCAL_GATE
	__asm__("" : "+r"(one));
#endif
	return one;
}

/* E for a writer that is inside alone (G_INSIDE 1: the fast path's
 * outermost writer, its nested ones gone), `one` what its A added.  One
 * word: the bit cleared (LDCLR with A's register; a quiescer's off, in the
 * high half, is left as it is), which is the sub of 1 when inside is 1. */
RB_INLINE void rb_gate_leave_alone(struct rb_cpu *cb, uint64_t one)
{
#if RB_PORT_LOCAL_GATE
	rb_port_local_sub64_release(&cb->gate, one);
#else
	__atomic_fetch_and(&cb->gate, ~one, __ATOMIC_RELEASE);
#endif
}

static inline void rb_put32(void *p, uint32_t v) { __builtin_memcpy(p, &v, 4); }

/* Bytes an event with `len` payload bytes takes (rb_event_size, inline). */
RB_INLINE uint32_t rb_ev_size(uint32_t len)
{
	uint32_t a = len ? (len + 3u) & ~3u : 4u;
	return a <= RB_TYPE_DATA_MAX * 4u ? 4u + a : 8u + a;
}

/* Inline twin of rb_put_data(); also zeroes the bytes that round the payload
 * up to 4, so stale data never reaches a reader. */
RB_INLINE void *rb_put_data_fast(uint8_t *p, uint32_t delta, uint32_t len)
{
	uint32_t a = len ? (len + 3u) & ~3u : 4u;
	if (a <= RB_TYPE_DATA_MAX * 4u) {
		rb_put32(p, a / 4u | delta << 5);
		p += 4;
	} else {
		rb_put32(p, delta << 5);
		rb_put32(p + 4, a + 4u);
		p += 8;
	}
	if (len & 3u || !len)
		rb_put32(p + a - 4u, 0);
	/* The header's stores before the payload's (a compiler barrier):
	 * then arm64's write-back store of the payload's first word may
	 * move the event's address on, where GCC otherwise interleaved the
	 * header's store and kept a copy of the address for it. */
	__asm__("" ::: "memory");
	return p;
}

/*
 * B..D for the outermost writer, when nothing unusual happens: returns the
 * payload address, with the tail word C installed in r->tail and the commit
 * word that publishes it in r->commit; or NULL to send the writer to the
 * general path (which starts over from B).  given: the event's time is
 * `given_ts`, a reading the writer took before A (rb_reserve_fast_at),
 * instead of the clock read after the snapshot.
 */
RB_INLINE void *rb_claim_fast(struct rb_cpu *cb, uint32_t len, struct rb_resv *r, bool given,
			      uint64_t given_ts)
{
	uint32_t esz = rb_ev_size(len);
	/* B: snapshot.  The page has events (so a previous time), is not full,
	 * ours fits, and the last event is from level 0 (so its time is in
	 * lts[gen]): off <= RB_DATA_SIZE - esz with full and lvl clear, and
	 * then off > 0 (T_FRESH, the one tail with off 0, has lvl 7). */
#if RB_PORT_WIDE_IMM
	uint64_t step = T_GEN_BIT + T_NEV_ONE;
	uint64_t t = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
#else
	/* The step from beside the tail (rb_cpu.tail_step): one load pair,
	 * where the constant would take two instructions. */
	_Static_assert(offsetof(struct rb_cpu, tail_step) == offsetof(struct rb_cpu, tail) + 8 &&
			       offsetof(struct rb_cpu, tail) % 16 == 0,
		       "a load pair");
	uint64_t step;
	uint64_t t = rb_port_load_pair64(&cb->tail, &step);
#endif
	if ((t & T_ROOM_MASK) > (uint64_t)(RB_DATA_SIZE - esz))
		return NULL;
	/* The clock after the snapshot (DESIGN: time stamps follow buffer
	 * order), or the writer's earlier reading, which the same checks keep
	 * in order (DESIGN, "A time given by the writer").  A delta that needs
	 * a time extend, or a clock that went back, is for the general path
	 * (which reads the clock again). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uint64_t ts = given ? given_ts : rb_port_clock();
	/* Level 0's slot gen is lts[RB_LTS(0, gen)] = lts[gen], gb bytes into
	 * lts: t >> 60 is 8 * gen, as dp (bits 41..62) never reaches bit 60
	 * (T_DP_MAX).  A byte offset, in the address form the CPU takes
	 * (RB_PORT_ADDR_INDEX_DISP): x86-64 addresses the load and the store
	 * below as lts + index (no scaled index to keep apart); arm64 adds it
	 * to cb in one shifted add and finds the other slot by flipping bit 3
	 * of that sum (cb and lts are 16-aligned), lts's offset the
	 * displacement of both. */
	_Static_assert(_Alignof(struct rb_cpu) % 16 == 0 && offsetof(struct rb_cpu, lts) % 16 == 0,
		       "bit 3 of cb + gb is gen's");
	uintptr_t gb = (uintptr_t)(t >> T_GEN8_SHIFT);
#if RB_PORT_ADDR_INDEX_DISP
	uint64_t *slot = (uint64_t *)((uint8_t *)cb->lts + gb);
	uint64_t *other = (uint64_t *)((uint8_t *)cb->lts + (gb ^ sizeof(uint64_t)));
#else
	uintptr_t at = (uintptr_t)cb + gb;
	uint64_t *slot = (uint64_t *)(at + offsetof(struct rb_cpu, lts));
	uint64_t *other = (uint64_t *)((at ^ sizeof(uint64_t)) + offsetof(struct rb_cpu, lts));
#endif
	uint64_t delta = rb_port_sub_load64(ts, slot);
	if (rb_port_above_bits(delta, RB_TS_SHIFT))      /* > RB_DELTA_MAX */
		return NULL;
	/* C: the new tail says level 0 (as t does), one more event, esz more
	 * bytes and the other generation.  One add: off + esz stays below
	 * 4096 and nev + 1 below 512 (checked above: off + esz <= 4080, and a
	 * page holds at most 510 events), so no field carries into the next,
	 * and adding bit 63 flips it.  Our time goes to the slot nt points
	 * at, level 0's other one, lts[1 - gen] (other, above). */
	uint64_t nt = t + step + esz;
	rb_port_store64(other, ts);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* After a successful CAS t is still the snapshot: tp is the same
	 * value, but in the register the snapshot was loaded into, so that
	 * x86-64 (whose CAS leaves t in rax) shifts one copy in place for the
	 * page and takes the offset from the other, with no move. */
	uint64_t tp = t;
	if (!rb_port_local_cas64(&cb->tail, &t, nt))
		return NULL;
	/* D.  nt counts our event (nev >= 1), so it is never 0: rb_commit
	 * tells the fast path by that without testing it here.
	 * The commit word for E is made now, from the copy of pstart that an
	 * in-ring page keeps in its header's commit field (rb_move writes
	 * both before the CAS that enters the page; readers copy pages out
	 * and never write the ring's).  A page's copy is written only by a
	 * writer entering it, and the page of t is never the one entered
	 * next (that is a spare or the oldest page, N >= 2); entering it
	 * again needs the commit word a lap further, and that word is frozen
	 * from our A to our E (DESIGN, B' 1).  So from our B to our E
	 * nothing writes it: it is what rb_publish(nt) would read at E, and
	 * a relaxed load has no write to race with. */
	if (nt == 0)
		__builtin_unreachable();
	struct rb_page *pg = rb_pg(cb, T_PIDX(tp));
	r->tail = nt;
	/* Offsets as the low 16 bits (T_ROOM): full and lvl are 0 in t and
	 * nt here, so they are T_OFF; an add of a zero-extended halfword is
	 * one instruction (arm64 `add x, x, w, uxth`, x86-64 `movzwl`), a
	 * 12-bit mask is two.  The copy's low 12 bits are 0: + is |. */
	r->commit = rb_port_load64(&pg->commit) + T_ROOM(nt);
	uint8_t *p = (uint8_t *)pg + T_ROOM(t);
	return rb_put_data_fast(p + offsetof(struct rb_page, data), (uint32_t)delta, len);
}

/*
 * E after the fast path, whose writer entered at level 0 (gate word 0 at
 * A), left tail word nt at C and made its commit word c at D.  Writers
 * nested in it have all left by now (they nest like a stack), so it is
 * inside alone: it publishes.  Up to nt is complete -- every reservation
 * before ours was closed when we entered at level 0 -- and nested ones
 * after nt are caught by the re-check, as in rb_end_outer().  (A
 * quiescer's "off" meanwhile does not stop a publish: DESIGN, E.)
 */
RB_INLINE void rb_end_fast(struct rb_cpu *cb, uint64_t nt, uint64_t c, uint64_t one)
{
	/* RELEASE: the events up to nt (and the movers' bookkeeping before
	 * them) happen before a reader's ACQUIRE load that sees c. */
	__atomic_store_n(&cb->commit, c, __ATOMIC_RELEASE);
	/* RELEASE: our event is written before a quiescer sees 0. */
	rb_gate_leave_alone(cb, one);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(rb_port_ne_load64(nt, &cb->tail), 0))
		RB_PORT_COLD_VOID(rb_end_again, cb);
}

/*
 * E for any writer: when inside alone and recording on, the fast path's
 * E with the tail as it is now (everything up to it is complete: we are the
 * only writer inside); otherwise the general path.
 */
RB_INLINE void rb_end(struct rb_cpu *cb)
{
	if (__atomic_load_n(&cb->gate, __ATOMIC_RELAXED) != 1) {
		RB_PORT_COLD_VOID(rb_end_slow, cb);
		return;
	}
	uint64_t w = __atomic_load_n(&cb->tail, __ATOMIC_RELAXED);
	rb_end_fast(cb, w, rb_commit_word(cb, w), rb_gate_one());
}

/* See ring_buffer.h for the contract of rb_reserve_fast, rb_reserve_fast_at,
 * rb_reserve_rest and rb_commit_fast.  rb_reserve_fast_ts is the first two,
 * told apart by `given` (a constant at every call). */
RB_INLINE bool rb_reserve_fast_ts(struct rb_cpu *cb, uint32_t len, struct rb_resv *r, uint64_t *g,
				  bool given, uint64_t ts)
{
	r->cb = cb;
	r->data = NULL;
	r->preempt = 0;
	r->tail = 0;
	r->commit = 0;
	*g = 0;
	if (len > RB_MAX_PAYLOAD)    /* before A: rb_reserve_rest() says so */
		return false;
	r->one = rb_gate_one();
	/* A (rb_gate_enter) */
	if (!__builtin_expect(rb_gate_enter_by(cb, g, r->one), 1))
		return false;
	/* Entered at level 0: the gate word is 0.  Said again as a constant
	 * for rb_reserve_fast's callers, so that none keeps a register for it
	 * past B (x86-64's function tracer: no push and pop of rbx).  Not for
	 * rb_reserve_fast_at's (function_graph), where GCC then moved a
	 * register more (docs/PERFORMANCE.md, Issue 23). */
	if (!given)
		*g = 0;
	return (r->data = rb_claim_fast(cb, len, r, given, ts)) != NULL;
}

RB_INLINE bool rb_reserve_fast(struct rb_cpu *cb, uint32_t len, struct rb_resv *r, uint64_t *g)
{
	return rb_reserve_fast_ts(cb, len, r, g, false, 0);
}

RB_INLINE bool rb_reserve_fast_at(struct rb_cpu *cb, uint32_t len, uint64_t ts, struct rb_resv *r,
				  uint64_t *g)
{
	return rb_reserve_fast_ts(cb, len, r, g, true, ts);
}

RB_INLINE int rb_reserve_rest(uint32_t len, uint64_t g, struct rb_resv *r)
{
	if (len > RB_MAX_PAYLOAD) {
		r->cb = NULL;        /* for a caller that looks after an error */
		return -RB_E2BIG;
	}
	struct rb_slow s = RB_PORT_COLD(struct rb_slow, rb_reserve_slow, r->cb, len, G_INSIDE(g),
					 G_OFF(g));
	r->data = s.data;
	return (int)s.err;
}

RB_INLINE void rb_commit_fast(const struct rb_resv *r)
{
	rb_end_fast(r->cb, r->tail, r->commit, r->one);
}

RB_INLINE int rb_reserve_cb(struct rb_cpu *cb, uint32_t len, struct rb_resv *r)
{
	uint64_t g;
	if (rb_reserve_fast(cb, len, r, &g))
		return 0;
	return rb_reserve_rest(len, g, r);
}

RB_INLINE int rb_reserve_on(struct rb_buffer *b, unsigned cpu, uint32_t len, struct rb_resv *r)
{
	/* CPU ids are below RB_MAX_CPUS; CPUs without a buffer have a
	 * stand-in that is always off (rb_reserve_slow says -RB_EINVAL). */
	return rb_reserve_cb(b->cpu[cpu], len, r);
}

RB_INLINE int rb_reserve_nopreempt(struct rb_buffer *b, uint32_t len, struct rb_resv *r)
{
	return rb_reserve_on(b, rb_port_cpu_id(), len, r);
}

RB_INLINE void rb_commit_nopreempt(struct rb_resv *r)
{
	if (__builtin_expect(r->tail != 0, 1))     /* never 0: it counts our event */
		rb_end_fast(r->cb, r->tail, r->commit, r->one);
	else
		rb_end(r->cb);
}

RB_INLINE int rb_reserve(struct rb_buffer *b, uint32_t len, struct rb_resv *r)
{
	uintptr_t tok = rb_port_preempt_disable();
	int err = rb_reserve_nopreempt(b, len, r);
	if (err)
		rb_port_preempt_enable(tok);
	r->preempt = tok;
	return err;
}

RB_INLINE void rb_commit(struct rb_resv *r)
{
	rb_commit_nopreempt(r);
	rb_port_preempt_enable(r->preempt);
}

#endif
