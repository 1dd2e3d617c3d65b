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

#include "trace/rb_port.h"
#include "trace/ring_buffer.h"

#define RB_MAX_NEST   8u        /* writer levels per CPU (task, irq, nmi, ...) */
#define RB_MAX_PAGES  65000u    /* pidx is 16 bits */
#define RB_TRIES      64u       /* bound on a writer's retries (each one = it was interrupted) */
#define RB_CACHELINE  64u

/* ---- The tail word: where the next reservation goes ------------------------
 * Written only by writers on the CPU (CAS, so nested writers and the writer
 * they interrupted agree on who got which bytes).
 *   off   0..11   bytes reserved in the tail page's data
 *   full  12      no further reservation fits: the next one must move
 *   nev  13..21   events reserved in the tail page (at most 4080/8 = 510)
 *   gen  22       which of its two time stamp slots holds its time...
 *   lvl  23..25   ...of the writer of the last reserved event (its level);
 *                 bits 22..25 are the index lvl*2+gen into `lts`
 *   pidx 26..41   the tail page
 *   dp   42..63   events dropped since the tail page filled up (saturates)
 * off and full are adjacent so that "fits in this page" is one compare of
 * t & T_ROOM_MASK (see rb_write.h).
 */
#define T_OFF(t)   ((uint32_t)((t) & 0xfffu))
#define T_FULL(t)  ((uint32_t)(((t) >> 12) & 1u))
#define T_NEV(t)   ((uint32_t)(((t) >> 13) & 0x1ffu))
#define T_GEN(t)   ((uint32_t)(((t) >> 22) & 1u))
#define T_LVL(t)   ((uint32_t)(((t) >> 23) & 7u))
#define T_LTS(t)   ((uint32_t)(((t) >> 22) & 0xfu))     /* lts index */
#define T_PIDX(t)  ((uint32_t)(((t) >> 26) & 0xffffu))
#define T_DP(t)    ((uint32_t)((t) >> 42))
#define T_DP_MAX   ((1u << 22) - 1u)
#define T_MAKE(off, nev, full, lvl, gen, pidx, dp)                                  \
	((uint64_t)(off) | (uint64_t)(full) << 12 | (uint64_t)(nev) << 13 |          \
	 (uint64_t)(gen) << 22 | (uint64_t)(lvl) << 23 | (uint64_t)(pidx) << 26 |   \
	 (uint64_t)(dp) << 42)
#define T_FULL_BIT  (1ull << 12)
#define T_ROOM_MASK 0x1fffull               /* off | full */
#define T_NEV_ONE   (1ull << 13)
#define T_GEN_BIT   (1ull << 22)
#define T_LVL_MASK  (7ull << 23)
#define T_LTS_MASK  (0xfull << 22)
#define T_DP_ONE    (1ull << 42)
#define RB_LTS(lvl, gen) ((lvl) * 2u + (gen))

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

/* ---- The commit word: everything before it is complete ----------------------
 * Written (release) only by the outermost committer on the CPU; read by the
 * reader.   off 0..11 in the data of page count `cnt` (12..63).
 */
#define C_OFF(c)   ((uint32_t)((c) & 0xfffu))
#define C_CNT(c)   ((c) >> 12)
#define C_MAKE(cnt, off) ((uint64_t)(cnt) << 12 | (uint64_t)(off))

/* Per physical page bookkeeping that is not part of the Linux page. */
struct rb_meta {
	uint64_t cnt;            /* count of this life: set by whoever moves the tail
				    in, before the move is visible (same value from
				    any writer that tries) */
	uint64_t drops_before;   /* events dropped just before this page: set by the
				    writer that moved in, after the move */
	uint32_t real_end;       /* data bytes of events: set by the writer that */
	uint32_t entries;        /*   moved the tail out, after the move; with */
	uint32_t next;           /*   entries and next (pidx of the next page) */
};

struct rb_cpu {
	/* ---- writer side: touched by this CPU's writers ---- */
	uint64_t tail;                          /* atomic, see T_* */
	uint32_t committing;                    /* atomic: open reservations = level
						   of the next writer; read by quiescers */
	uint32_t cpidx;                         /* committer's page; outermost committer */
	uint64_t lts[RB_MAX_NEST * 2];          /* atomic: per level, time of its last
						   event, double-buffered: [RB_LTS(lvl, gen)] */
	uint32_t unpublished;                   /* atomic: a nested writer left its event
						   for the outermost one to publish */
	uint32_t off;                           /* atomic: recording off on this CPU when
						   non-zero: per-CPU + buffer-wide switch
						   counts, + RB_OFF_BROKEN per impossible
						   state seen; the writer's only check */
	uint64_t ccnt;                          /* C_MAKE(count of cpidx, 0); outermost
						   committer */

	/* ---- shared with the reader ---- */
	uint64_t commit __attribute__((aligned(RB_CACHELINE)));   /* atomic, see C_* */
	uint64_t overrun;                       /* atomic counters, writers add */
	uint64_t dropped;
	uint64_t unplaced;
	uint64_t *slot;                         /* [N] atomic, see S_* */
	uint64_t *slot_c;                       /* [N] atomic: C(page that left the slot
						   when the writer entered it), see DESIGN */
	struct rb_meta *meta;                   /* [N+1] */
	struct rb_page **pages;                 /* [N+1] */
	uint32_t n;                             /* ring slots N; changes only in resize */

	/* ---- reader side ---- */
	uint32_t reader __attribute__((aligned(RB_CACHELINE)));   /* atomic: reader lock */
	struct rb_cursor rd;                    /* the consuming reader; reader lock */
	uint64_t read;                          /* atomic: events consumed */
	uint64_t lost_reported;                 /* atomic */
};

#define RB_OFF_BROKEN (1u << 24)

struct rb_buffer {
	uint32_t record_off;                    /* atomic counter: tracing_on (also
						   counted in every cpu->off) */
	uint32_t overwrite;                     /* atomic bool */
	unsigned ncpus;                         /* written once */
	struct rb_allocator a;                  /* written once */
	struct rb_cpu *cpu[RB_MAX_CPUS];        /* written once */
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
/* rb_setup.c */
int rb_quiesce(struct rb_buffer *b, unsigned cpu);     /* recording off + no writer inside */

#include "trace/rb_write.h"

#endif
