/*
 * rb_internal.h — the ring buffer's private state, shared by ring_buffer.c
 * (writers), rb_setup.c, rb_read.c (readers) and the inline writer fast path
 * (rb_write.h).  ring_buffer.h includes it for that fast path only; nothing
 * outside trace/rb_* and ring_buffer.c may touch what it defines.
 *
 * Vocabulary (trace/DESIGN.md has the whole story):
 *   page count   every time the writer enters a page it gets the next count
 *                (0, 1, 2, ...); "page c" is the page entered as count c
 *   slot         the ring has N slots; page c lives in slot c % N until the
 *                reader swaps it out or the writer overwrites it
 *   pidx         index of a physical page in cpu->pages[0..N] (N+1 pages: the
 *                ring's N plus the one the reader holds)
 */
#ifndef TRACE_RB_INTERNAL_H
#define TRACE_RB_INTERNAL_H

#include "trace/ring_buffer/ring_buffer.h"
#include "trace/ring_buffer/rb_port.h"

#define RB_MAX_NEST   8u        /* writer levels per CPU (task, irq, nmi, ...) */
#define RB_MAX_PAGES  65000u    /* pidx is 16 bits */
_Static_assert(RB_MAX_SIZE == (uint64_t)RB_MAX_PAGES * RB_DATA_SIZE, "RB_MAX_SIZE");
#define RB_TRIES      64u       /* bound on a writer's retries (each one = it was interrupted) */
#define RB_CACHELINE  64u

/* ---- The tail word: where the next reservation goes ------------------------
 * Written only by writers on the CPU (CAS, so nested writers and the writer
 * they interrupted agree on who got which bytes; a CPU-local one, as no other
 * CPU writes it but a quiescer, with every writer out).
 *   off   0..11   bytes reserved in the tail page's data
 *   full  12      no further reservation fits: the next one must move
 *   lvl  13..15   level of the writer of the last reserved event...
 *   nev  16..24   events reserved in the tail page (at most 4080/8 = 510)
 *   pidx 25..40   the tail page
 *   dp   41..62   events dropped since the tail page filled up (saturates at
 *                 T_DP_MAX: bits 60..62 stay 0)
 *   gen  63       ...and which of its two time stamp slots holds its time
 * The fast path (rb_write.h) wants the last event from level 0, an event
 * already in the page (so a previous time) and room: off, full and lvl are
 * adjacent so that is one compare of t & T_ROOM_MASK, because the only tail
 * with off 0 -- a cleared buffer's, T_FRESH -- has lvl 7.  gen on top makes
 * t >> 63 its lts index, and lets one add (+ T_GEN_BIT) flip it.
 */
#define T_OFF(t)   ((uint32_t)((t) & 0xfffu))
#define T_FULL(t)  ((uint32_t)(((t) >> 12) & 1u))
#define T_LVL(t)   ((uint32_t)(((t) >> 13) & 7u))
#define T_NEV(t)   ((uint32_t)(((t) >> 16) & 0x1ffu))
#define T_PIDX(t)  ((uint32_t)(((t) >> 25) & 0xffffu))
#define T_DP(t)    ((uint32_t)(((t) >> 41) & T_DP_MAX))
#define T_GEN(t)   ((uint32_t)((t) >> 63))
/* dp saturates below bit 60, so that t >> T_GEN8_SHIFT is 8 * gen (the
 * fast path's byte offset into lts); bits 60..62 are always 0. */
#define T_DP_MAX   ((1u << 19) - 1u)
#define T_GEN8_SHIFT 60
_Static_assert(((uint64_t)T_DP_MAX << 41) < (1ull << T_GEN8_SHIFT) && T_GEN8_SHIFT + 3 == 63,
	       "t >> T_GEN8_SHIFT is 8 * gen");
#define T_MAKE(off, nev, full, lvl, gen, pidx, dp)                                  \
	((uint64_t)(off) | (uint64_t)(full) << 12 | (uint64_t)(lvl) << 13 |          \
	 (uint64_t)(nev) << 16 | (uint64_t)(pidx) << 25 | (uint64_t)(dp) << 41 |    \
	 (uint64_t)(gen) << 63)
#define T_FULL_BIT  (1ull << 12)
#define T_ROOM_MASK 0xffffull               /* off | full | lvl */
#define T_ROOM(t)  ((uint32_t)(uint16_t)(t))  /* off | full | lvl: T_OFF(t) when full and lvl are 0 */
#define T_NEV_ONE   (1ull << 16)
#define T_DP_ONE    (1ull << 41)
#define T_GEN_BIT   (1ull << 63)
/* A cleared buffer: page 0 entered as count 0 and empty.  off 0 means "no
 * previous event" (the general path gives the first event delta 0 and the
 * page its time stamp); lvl says nothing then, and 7 keeps the fast path's
 * one compare from taking it.  Every other tail has off > 0 or full set:
 * a move puts its event first in the new page. */
#define T_FRESH     T_MAKE(0, 0, 0, RB_MAX_NEST - 1u, 0, 0, 0)

/* Index into `lts` of level lvl's slot gen; the tail points at T_LTS(t). */
#define RB_LTS(lvl, gen) ((lvl) * 2u + (gen))
#define T_LTS(t)   RB_LTS(T_LVL(t), T_GEN(t))

/* ---- A slot word: which page a ring slot holds -----------------------------
 * CAS'd by the writer (overwrite) and by the reader (swap).
 *   pidx  0..15   the page
 *   r     16      1: put there by the reader (page seq-N was consumed), or at
 *                 init; 0: the writer overwrote page seq-N to get it
 *   seq   17..63  the count the page has (or will get when the writer enters)
 */
#define S_PIDX(s)  ((uint32_t)((s) & 0xffffu))
#define S_R(s)     ((uint32_t)(((s) >> 16) & 1u))
#define S_SEQ(s)   ((s) >> 17)
#define S_MAKE(seq, r, pidx) ((uint64_t)(seq) << 17 | (uint64_t)(r) << 16 | (uint64_t)(pidx))

/* ---- The gate and off words: who is inside, and whether recording is on --
 *   inside  0..31   open reservations (writers between A and E) = the level of
 *                   the next writer to enter; changed only by this CPU's
 *                   writers, read by quiescers
 *   off    32..63   recording off when non-zero: per-CPU and buffer-wide switch
 *                   counts (changed from any CPU), + RB_OFF_BROKEN per impossible
 *                   state seen
 * Where they live is the port's choice (RB_PORT_LOCAL_GATE, rb_port.h;
 * DESIGN, "Local atomics"):
 *   0  one word, `gate`: a writer's A step learns both with one atomic add,
 *      and a quiescer's "off" and the writers' entries are ordered by that
 *      word's own modification order;
 *   1  inside in `gate`, written by this CPU alone (A: an atomic add, E: a
 *      CPU-local sub), off in `off` (atomic RMWs from any CPU; bits 0..31
 *      always 0).  A writer adds to the gate then loads off, a quiescer adds
 *      to off then loads the gate, all SEQ_CST: one of them sees the other.
 * Either way a writer carries g = G_INSIDE | G_OFF as it saw them at A (its
 * level and the switch), and g == 0 says "outermost, recording on".
 * RB_OFF_WORD(cb) is the word that holds off.
 */
#if RB_PORT_LOCAL_GATE
#define RB_OFF_WORD(cb) (&(cb)->off)
#else
#define RB_OFF_WORD(cb) (&(cb)->gate)
#endif
#define G_INSIDE(g)   ((uint32_t)(g))
#define G_OFF(g)      ((uint32_t)((g) >> 32))
#define G_OFF_ONE     (1ull << 32)
#define RB_OFF_BROKEN (1u << 24)                /* in G_OFF units */
/* In G_OFF units, below RB_OFF_BROKEN: a quiescer owns the buffer (a resize
 * moving its pages, a reset clearing them).  Off below it is recording off
 * with the buffer as it is: the outermost writer inside still publishes
 * what is reserved.  At or above it (owned, broken, or the stand-in of a
 * CPU without a buffer) a writer touches nothing but the gate. */
#define RB_OFF_QUIESCE (1u << 20)
#define G_OWNED(g)    (G_OFF(g) >= RB_OFF_QUIESCE)

/* ---- The commit word: everything before it is complete ----------------------
 * Written (release) only by the outermost committer on the CPU; read by the
 * reader.   off 0..11 in the data of page count `cnt` (12..63).
 */
#define C_OFF(c)   ((uint32_t)((c) & 0xfffu))
#define C_CNT(c)   ((c) >> 12)
#define C_MAKE(cnt, off) ((uint64_t)(cnt) << 12 | (uint64_t)(off))

/* Per physical page bookkeeping that is not part of the Linux page. */
struct rb_meta {
	uint64_t drops_before;   /* events dropped just before this page: set by the
				    writer that moved in, after the move */
	uint32_t real_end;       /* data bytes of events (the page's commit): set */
	uint32_t entries;        /*   with entries by the writer that moved the tail
				    out, after the move; readers read them once
				    the commit word is past the page */
};

struct rb_cpu {
	/* ---- writer side: touched by this CPU's writers ----
	 * The fast path's words share the first cache line: the gate
	 * (first: its atomic add needs no address arithmetic), off, the tail,
	 * and level 0's time stamps. */
	uint64_t gate;                          /* atomic, see G_*: writers inside (and
						   recording off: RB_PORT_LOCAL_GATE 0) */
	uint64_t off;                           /* atomic, see G_*: recording off
						   (RB_PORT_LOCAL_GATE 1; else unused) */
	uint64_t tail;                          /* this CPU's writers only (local
						   CAS), see T_* */
	uint64_t tail_step;                     /* T_GEN_BIT + T_NEV_ONE, what C adds
						   to the tail besides the event's size:
						   beside it, so that the fast path loads
						   both at once (arm64: one LDP, not a
						   MOV and a MOVK of the constant) */
	uint64_t lts[RB_MAX_NEST * 2]           /* atomic: per level, time of its last
						   event, double-buffered: [RB_LTS(lvl, gen)]
						   (the fast path finds level 0's other
						   slot by flipping bit 3 of its byte
						   offset) */
		__attribute__((aligned(16)));

	/* ---- shared with the reader ---- */
	uint64_t commit __attribute__((aligned(RB_CACHELINE)));   /* atomic, see C_* */
	uint64_t overrun;                       /* atomic counters, writers add */
	uint64_t dropped;
	uint64_t unplaced;                      /* drops beyond the tail word's dp: the
						   next move takes them (exchange) */
	uint64_t *slot;                         /* [N] atomic, see S_* */
	uint64_t *slot_c;                       /* [N] atomic: C(page that left the slot
						   when the writer entered it), see DESIGN */
	uint64_t *pstart;                       /* [N+1] atomic: C_MAKE(count of the
						   page's current life, 0), the commit
						   word at its start: set by whoever
						   moves the tail in, before the move is
						   visible (same value from any writer
						   that tries); rb_move copies it into
						   the page's header `commit` field, where
						   the fast path reads it */
	struct rb_meta *meta;                   /* [N+1] */
	struct rb_page **pages;                 /* [N+1] */
	uint32_t n;                             /* ring slots N; changes only in resize */
	struct rb_buffer *owner;                /* written once: the buffer this is part
						   of (for the general path, which writers
						   holding only this reach) */

	/* ---- reader side ---- */
	uint32_t reader __attribute__((aligned(RB_CACHELINE)));   /* atomic: reader lock */
	struct rb_cursor rd;                    /* the consuming reader; reader lock */
	uint64_t read;                          /* atomic: events consumed */
	uint64_t lost_reported;                 /* atomic */
};

struct rb_buffer {
	struct rb_cpu *cpu[RB_MAX_CPUS];        /* written once; CPUs ncpus.. (and
						   any not created yet) point at
						   `absent`.  First: a writer's
						   lookup is one indexed load */
	uint32_t record_off;                    /* atomic counter: tracing_on (also
						   counted in every CPU's gate word) */
	uint32_t overwrite;                     /* atomic bool */
	unsigned ncpus;                         /* written once */
	struct rb_allocator a;                  /* written once */
	struct rb_cpu absent;                   /* a stand-in with recording off for
						   good, so a writer needs no checks.
						   Shared by every CPU without a buffer:
						   with RB_PORT_LOCAL_GATE its gate takes
						   local subs from several CPUs and may
						   drift; nothing reads it, and its off
						   keeps writers out whatever it says */
};


static inline struct rb_page *rb_pg(const struct rb_cpu *cb, uint32_t pidx)
{
	return cb->pages[pidx];
}

/* Reader side lock (readers never wait on writers; only on other readers). */
static inline bool rb_reader_trylock(struct rb_cpu *cb)
{
	uint32_t z = 0;
	/* ACQUIRE: the previous reader's cursor updates happen before ours. */
	return __atomic_compare_exchange_n(&cb->reader, &z, 1u, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}
static inline void rb_reader_unlock(struct rb_cpu *cb)
{
	/* RELEASE: our cursor updates happen before the next reader's. */
	__atomic_store_n(&cb->reader, 0u, __ATOMIC_RELEASE);
}

/* rb_read.c */
void rb_cursor_init(struct rb_cursor *c, uint32_t spare_pidx);
/* Committed bytes of c's page as commit word cm shows them. */
uint32_t rb_readable(const struct rb_cpu *cb, const struct rb_cursor *c, uint64_t cm);
/* c to the oldest surviving page at or after c->head (swap: the consuming
 * reader's); the events lost before it added to c->pending. */
int rb_next_page(struct rb_cpu *cb, struct rb_cursor *c, bool swap);
/*
 * E's publish: make everything up to tail word w visible.  The commit word
 * is all there is to write: pages the commit has left have their ends in
 * meta (real_end, final before the move's writer left), and the page it is
 * in ends at its offset.  Only the outermost writer or a quiescer, so calls
 * never overlap (DESIGN, point E).
 */
static inline __attribute__((always_inline)) uint64_t rb_commit_word(const struct rb_cpu *cb,
									uint64_t w)
{
	return __atomic_load_n(&cb->pstart[T_PIDX(w)], __ATOMIC_RELAXED) | T_OFF(w);
}
static inline __attribute__((always_inline)) void rb_publish(struct rb_cpu *cb, uint64_t w)
{
	uint64_t c = rb_commit_word(cb, w);
	/* RELEASE: the events up to w and the movers' bookkeeping (meta,
	 * pstart, slot_c, page time stamps) happen before a reader's ACQUIRE
	 * load that sees this commit. */
	__atomic_store_n(&cb->commit, c, __ATOMIC_RELEASE);
}

/* rb_setup.c: recording off + no writer inside + the reader lock + everything
 * reserved published */
int rb_quiesce(struct rb_buffer *b, unsigned cpu);
/* An owner (rb_own) gives cb up: its mark off, then a publish if no writer
 * is inside (rb_setup.c). */
void rb_let_go(struct rb_cpu *cb);

#include "trace/ring_buffer/rb_write.h"

#endif
