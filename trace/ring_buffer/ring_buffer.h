/*
 * ring_buffer.h — the lockless per-CPU trace ring buffer.
 *
 * One buffer per CPU, made of 4096-byte sub-buffer pages in Linux's ring-buffer
 * page layout (so pages go straight into a trace.dat).  Writers on a CPU
 * reserve space, fill it and commit; writers in interrupt (and NMI-like)
 * context nest on top of the writer they interrupted, like a stack, and no
 * writer ever takes a lock or waits.  One reader per CPU buffer at a time
 * consumes events by swapping whole pages out of the ring, so writers on that
 * CPU keep going meanwhile.  See trace/DESIGN.md for the protocol.
 *
 * Rules of use:
 *   - rb_reserve() must be paired with rb_commit() (rb_reserve_nopreempt()
 *     with rb_commit_nopreempt()) on the same CPU, in the same context,
 *     before that context returns; nothing may sleep between.
 *     Reservations nest like a stack (the innermost is committed first).
 *   - Writers: any context, including interrupt and NMI-like handlers.
 *   - Readers (rb_consume*, rb_peek, rb_read_page, iterators): thread context,
 *     one at a time per CPU buffer (a second one gets -RB_EBUSY).
 *   - rb_resize()/rb_reset(): only with recording off for the CPUs concerned,
 *     no writer inside and no reader active (-RB_EBUSY otherwise).
 * Every function returning int returns 0 (or a count) on success and a
 * negative RB_E* code on failure; rb_strerror() names it.  A failing call
 * changes no state, except that a write rejected because the buffer is full
 * is counted as dropped (that is the point of counting).
 */
#ifndef TRACE_RING_BUFFER_H
#define TRACE_RING_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Page and event layout (Linux's ring buffer, little-endian) ----------
 *
 * page:  u64 time_stamp   time of the first event's delta base
 *        u64 commit       bytes of data; bit 31 RB_MISSED_EVENTS, bit 30
 *                         RB_MISSED_STORED (in pages handed to readers; a
 *                         page in the ring keeps writer bookkeeping there)
 *        u8  data[4080]   events, 4-byte aligned
 * event: u32 header = type_len (bits 0..4) | time_delta << 5 (bits 5..31)
 *        type_len 1..28: payload of type_len*4 bytes follows
 *        type_len 0:     u32 array[0] = payload bytes + 4, then the payload
 *        type_len 29:    padding; delta 0 = rest of the page, otherwise
 *                        array[0] = bytes after the header
 *        type_len 30:    time extend: delta = array[0] << 27 | time_delta
 *        type_len 31:    absolute time stamp, same split (59 bits; the top 5
 *                        bits come from the running time stamp)
 */
#define RB_PAGE_SIZE        4096u
#define RB_PAGE_HDR_SIZE    16u
#define RB_DATA_SIZE        (RB_PAGE_SIZE - RB_PAGE_HDR_SIZE)   /* 4080 */
#define RB_MAX_PAYLOAD      (RB_DATA_SIZE - 8u)                 /* 4072 */

#define RB_TYPE_DATA_MAX    28u
#define RB_TYPE_PADDING     29u
#define RB_TYPE_TIME_EXTEND 30u
#define RB_TYPE_TIME_STAMP  31u
#define RB_MAX_SIZE         265200000u   /* data bytes per CPU: 65000 pages */
#define RB_TS_SHIFT         27u
#define RB_DELTA_MAX        ((1u << RB_TS_SHIFT) - 1u)
#define RB_TS_BITS          59u

#define RB_MISSED_EVENTS    (1ull << 31)
#define RB_MISSED_STORED    (1ull << 30)
#define RB_COMMIT_MASK      ((1ull << 27) - 1u)

struct rb_page {
	uint64_t time_stamp;
	uint64_t commit;
	uint8_t data[RB_DATA_SIZE];
};

/* ---- Error codes (returned negated) --------------------------------------- */
enum {
	RB_EINVAL = 1,   /* bad argument (size 0, unknown flag, bad CPU, ...) */
	RB_E2BIG,        /* event larger than a page can hold, or size too large */
	RB_EBUSY,        /* recording on / writer inside / another reader active */
	RB_ENOMEM,       /* the allocator failed */
	RB_EOFF,         /* recording is off: nothing written, nothing counted */
	RB_EDROPPED,     /* no room: the event was dropped and counted */
	RB_EAGAIN,       /* no event to read now */
	RB_ECORRUPT,     /* impossible state seen: recording disabled on that CPU */
	RB_NERR
};
const char *rb_strerror(int err);      /* accepts err or -err */

/* ---- Creation --------------------------------------------------------------
 *
 * Pages come from the allocator: alloc(ctx, size, align) returns memory
 * aligned to `align` or NULL.  A CPU buffer's pages are one block of whole
 * pages (align RB_PAGE_SIZE; up to RB_MAX_SIZE / RB_DATA_SIZE + 1 of them,
 * about 266 MB), its arrays a few more.  It is called only from rb_create()
 * and rb_resize(), never while writing.
 */
struct rb_allocator {
	void *(*alloc)(void *ctx, size_t size, size_t align);
	void (*free)(void *ctx, void *p);
	void *ctx;
};

#define RB_FL_OVERWRITE  1u     /* flight recorder: drop the oldest page when full */
#define RB_ALL_CPUS      (-1)
#define RB_MAX_CPUS      16u    /* = MAX_CPUS: struct rb_iter is sized by it */
#define RB_MIN_PAGES     2u

struct rb_buffer;

/*
 * Create a buffer for `ncpus` CPUs (1..RB_MAX_CPUS) with `size` bytes of
 * event data per CPU (Linux's trace_buf_size: rounded up to whole 4080-byte
 * pages, at least RB_MIN_PAGES).  Recording starts on.
 * Returns -RB_EINVAL for size 0 or a bad CPU count or flag, -RB_E2BIG for a
 * size beyond 65000 pages, -RB_ENOMEM.
 */
int rb_create(struct rb_buffer **out, unsigned ncpus, size_t size, unsigned flags,
	      const struct rb_allocator *a);
void rb_destroy(struct rb_buffer *b);    /* recording off, no writer, no reader */

unsigned rb_ncpus(const struct rb_buffer *b);
size_t rb_size(const struct rb_buffer *b, unsigned cpu);   /* data bytes per CPU */

/* Resize one CPU's buffer or all (RB_ALL_CPUS), keeping the events, as
 * Linux's ring_buffer_resize does: growing keeps them all; shrinking keeps
 * the newest ring pages that fit (and the reader's page), the oldest pages'
 * events counted as overrun and reported lost to the reader; the counters
 * stay.  -RB_EBUSY while recording is on for a CPU concerned, a writer is
 * inside or a reader is active; -RB_EINVAL for size 0; -RB_E2BIG beyond
 * RB_MAX_SIZE; -RB_ENOMEM; nothing changes on error.  A CPU buffer broken
 * by an impossible state is emptied and mended instead (rb_reset). */
int rb_resize(struct rb_buffer *b, int cpu, size_t size);
/* Empty one CPU's buffer or all, and zero its counters (same rules). */
int rb_reset(struct rb_buffer *b, int cpu);

/* Overwrite (true) or producer/consumer (false); may change at any time. */
void rb_set_overwrite(struct rb_buffer *b, bool on);
bool rb_overwrite(const struct rb_buffer *b);

/* ---- Recording on/off ------------------------------------------------------
 * Counters, like Linux: each _off needs one _on.  The buffer-wide switch is
 * tracing_on; the per-CPU one stops a single CPU.  Writes while off return
 * -RB_EOFF and are not counted as lost.  Callable from any context. */
void rb_record_off(struct rb_buffer *b);
void rb_record_on(struct rb_buffer *b);
void rb_record_cpu_off(struct rb_buffer *b, unsigned cpu);
void rb_record_cpu_on(struct rb_buffer *b, unsigned cpu);
bool rb_record_is_on(const struct rb_buffer *b, unsigned cpu);

/* ---- Writing -------------------------------------------------------------- */
struct rb_cpu;
struct rb_resv {
	struct rb_cpu *cb;     /* the CPU buffer reserved on */
	void *data;            /* payload: `len` bytes, 4-byte aligned */
	uintptr_t preempt;     /* port token, given back by rb_commit() */
	uint64_t tail;         /* internal: the tail word the fast path left, or 0 */
	uint64_t commit;       /* internal: the commit word that publishes it */
	uint64_t one;          /* internal: 1, what A added to the gate (rb_gate_one) */
};

/*
 * Reserve `len` payload bytes (0..RB_MAX_PAYLOAD) on the current CPU's buffer.
 * On 0, fill r->data and call rb_commit(r).  Errors: -RB_E2BIG (too large,
 * not counted), -RB_EOFF, -RB_EDROPPED (counted), -RB_ECORRUPT, -RB_EINVAL
 * (no buffer for this CPU); then r->data is NULL.
 * Callable from any context; disables preemption until rb_commit().
 */
static inline int rb_reserve(struct rb_buffer *b, uint32_t len, struct rb_resv *r);
/* Dropping the last preemption count, rb_commit() takes a preemption that
 * became due meanwhile (in thread context, interrupts on, outside tracer
 * callbacks), as preempt_enable() does. */
static inline void rb_commit(struct rb_resv *r);
/* The same for a caller that runs with preemption disabled (or in interrupt
 * context) from before rb_reserve_nopreempt() until after
 * rb_commit_nopreempt(), as the function tracer does: they leave the
 * preemption count alone. */
static inline int rb_reserve_nopreempt(struct rb_buffer *b, uint32_t len, struct rb_resv *r);
static inline void rb_commit_nopreempt(struct rb_resv *r);
/* rb_reserve_nopreempt() for a caller that already knows the CPU it runs on
 * (cpu < RB_MAX_CPUS, the id the port would give); commit with
 * rb_commit_nopreempt(). */
static inline int rb_reserve_on(struct rb_buffer *b, unsigned cpu, uint32_t len,
				struct rb_resv *r);
/* CPU cpu's buffer in b, as a handle a writer may keep (cpu < RB_MAX_CPUS;
 * for a CPU b has no buffer for, a stand-in that refuses every write with
 * -RB_EINVAL).  Valid as long as b. */
struct rb_cpu *rb_cpu_buffer(struct rb_buffer *b, unsigned cpu);
/* rb_reserve_on() by handle: the same, one load less. */
static inline int rb_reserve_cb(struct rb_cpu *cb, uint32_t len, struct rb_resv *r);
/*
 * rb_reserve_cb() in two halves, for a caller that writes the common case
 * and the rest apart (so that the compiler does not join them, paying a
 * test and registers on the common path for it):
 *   rb_reserve_fast(): true, the event reserved by the fast path: fill
 *     r->data, then rb_commit_fast(r).  False: the reservation is begun
 *     (*g says how); rb_reserve_rest(len, *g, r) must follow, on the same
 *     CPU in the same context, with r as rb_reserve_fast() left it (or
 *     zeroed but for r->cb, when a tail call carried only cb and *g), and
 *     is rb_reserve_cb() from there on (0 or an error; commit with
 *     rb_commit_nopreempt()).
 */
static inline bool rb_reserve_fast(struct rb_cpu *cb, uint32_t len, struct rb_resv *r,
				   uint64_t *g);
/* rb_reserve_fast() for a writer that has just read the port's clock
 * itself (a function_graph entry or exit, whose event carries that time as
 * well): ts must be a reading of this CPU's clock taken before the call
 * (so no later writer reads an earlier time).  When the fast path takes
 * the event, its time is ts; it refuses whatever rb_reserve_fast() refuses
 * (another writer inside, a last event from a nested writer, an empty or
 * full page, a delta needing a time extend) and a ts before the last
 * event's time: then this returns false and rb_reserve_rest() reads the
 * clock itself.  (A ts from the future would let later events' times, and
 * the next page's time stamp, come out before it.) */
static inline bool rb_reserve_fast_at(struct rb_cpu *cb, uint32_t len, uint64_t ts,
				      struct rb_resv *r, uint64_t *g);
static inline int rb_reserve_rest(uint32_t len, uint64_t g, struct rb_resv *r);
static inline void rb_commit_fast(const struct rb_resv *r);
/* rb_reserve() and rb_commit() are inline (trace/ring_buffer/rb_write.h, at the end of
 * this header): the common case costs a few dozen instructions in the
 * caller.  reserve + copy + commit: */
int rb_write(struct rb_buffer *b, const void *data, uint32_t len);

/* ---- Reading ---------------------------------------------------------------
 * An event seen by a reader.  `data` points into a page the reader owns and
 * stays valid until the next read call on that CPU buffer, or a resize or
 * reset of it (which move or clear the pages): whoever resizes while a
 * reader may hold an event keeps the two apart.  `lost` is the
 * number of events lost (overwritten or dropped) just before this one on its
 * CPU.  `len` is the payload length rounded up to 4. */
struct rb_event {
	uint64_t ts;
	const void *data;
	uint32_t len;
	unsigned cpu;
	uint64_t lost;
};

/* Consume the next event of one CPU.  0, -RB_EAGAIN (nothing now), -RB_EBUSY. */
int rb_consume(struct rb_buffer *b, unsigned cpu, struct rb_event *ev);
/* Look at it without consuming (the reader may still swap pages). */
int rb_peek(struct rb_buffer *b, unsigned cpu, struct rb_event *ev);
/* Consume the oldest next event over all CPUs (timestamp order). */
int rb_consume_merged(struct rb_buffer *b, struct rb_event *ev);

/*
 * Consume the unread committed events of the next page of `cpu` as one page
 * in trace.dat form into `dst` (RB_PAGE_SIZE bytes): time_stamp, commit =
 * data bytes | RB_MISSED_EVENTS if events were lost before it
 * | RB_MISSED_STORED with the count stored as a u64 right after the data when
 * it fits.  Returns the data bytes copied (0 if nothing to read), or -err.
 * `events` and `lost` (either may be NULL) receive the number of events in
 * it and the number lost before it (the count, also when the page had no
 * room to store it).
 */
int rb_read_page(struct rb_buffer *b, unsigned cpu, void *dst, unsigned *events,
		 uint64_t *lost);

/* ---- Non-consuming iteration ----------------------------------------------
 * rb_iter_start() stops recording on the CPUs concerned (one CPU or
 * RB_ALL_CPUS), waits briefly for writers inside to leave (-RB_EBUSY if they
 * do not) and holds their reader side until rb_iter_end(), which restarts
 * recording.  With RB_ALL_CPUS, events come merged in timestamp order. */
struct rb_cursor {
	uint64_t cnt;          /* page count of the page being read */
	uint64_t head;         /* next page count to take */
	uint64_t ts;           /* running time stamp at `off` */
	uint64_t cbase;        /* lost count C(head-1) known to this cursor */
	uint64_t pending;      /* lost events to report with the next event */
	uint32_t pidx;         /* page being read (owned by the reader if consuming) */
	uint32_t off;          /* next byte in its data */
	bool valid;            /* pidx holds page `cnt` */
	bool started;          /* ts loaded from the page header */
};

struct rb_iter {
	struct rb_buffer *b;
	int cpu;                              /* one CPU or RB_ALL_CPUS */
	struct rb_cursor cur[RB_MAX_CPUS];
	bool have[RB_MAX_CPUS];               /* ev[i] holds cpu i's next event */
	struct rb_event ev[RB_MAX_CPUS];
};
int rb_iter_start(struct rb_iter *it, struct rb_buffer *b, int cpu);
int rb_iter_next(struct rb_iter *it, struct rb_event *ev);   /* 0 or -RB_EAGAIN at the end */
void rb_iter_end(struct rb_iter *it);
/* The event of `cpu` that rb_iter_next() would return next for that CPU,
 * left in place (0 or -RB_EAGAIN); rb_iter_drop_cpu() then skips it.  The
 * CPU must be one the iterator covers. */
int rb_iter_peek_cpu(struct rb_iter *it, unsigned cpu, struct rb_event *ev);
void rb_iter_drop_cpu(struct rb_iter *it, unsigned cpu);
/* Dumps (trace/dump.c).  rb_iter_read_page(): the iterator's next page of
 * `cpu` in rb_read_page()'s form, without consuming; *lost gets the events
 * lost just before it (also stored in the page when it fits).  Use either
 * this or rb_iter_next() on one iterator, not both.
 * rb_iter_start_force(): all CPUs, for the panic path (other CPUs stopped,
 * maybe mid-write): recording off, never waits, takes the reader side
 * whether or not it is held; events a writer never committed are not seen.
 * It has no rb_iter_end(): recording stays off. */
int rb_iter_read_page(struct rb_iter *it, unsigned cpu, void *dst, unsigned *events,
		      uint64_t *lost);
void rb_iter_start_force(struct rb_iter *it, struct rb_buffer *b);

/* ---- Counters ---------------------------------------------------------- */
struct rb_stats {
	uint64_t overrun;        /* events overwritten (overwrite mode) */
	uint64_t dropped;        /* events dropped: full, commit lag, nesting too deep */
	uint64_t read;           /* events consumed */
	uint64_t lost_reported;  /* sum of rb_event.lost handed to the consuming reader */
	uint64_t pending_drops;  /* drops not yet followed by a page (reported later) */
	uint64_t unplaced;       /* drops beyond the tail word's count: reported at
				    the next page too */
	uint32_t pages;          /* ring pages (plus one reader page) */
};
int rb_stats(const struct rb_buffer *b, unsigned cpu, struct rb_stats *s);

/* ---- Encoding helpers (tests, exporters) ---------------------------------- */

/* Bytes an event with `len` payload bytes occupies (header included). */
uint32_t rb_event_size(uint32_t len);
/* Write a data event header at p; returns where the payload goes. */
void *rb_put_data(void *p, uint32_t delta, uint32_t len);
void *rb_put_time_extend(void *p, uint64_t delta);      /* 8 bytes */
void *rb_put_time_stamp(void *p, uint64_t ts);          /* 8 bytes, absolute */
void *rb_put_padding(void *p, uint32_t size, uint32_t delta);   /* size >= 4, multiple of 4 */

struct rb_decoded {
	unsigned type_len;       /* 0..31 as stored */
	uint32_t delta;          /* the 27-bit field */
	uint64_t value;          /* time extend / stamp: the full value */
	uint32_t size;           /* bytes this item takes (0: rest of the page) */
	uint32_t len;            /* data events: payload bytes */
	const void *data;        /* data events: payload */
	bool is_data;
};
/* Decode the item at p with `avail` bytes left; -RB_EINVAL if malformed. */
int rb_decode(const void *p, uint32_t avail, struct rb_decoded *d);
/* Apply an item to a running time stamp (what a reader does). */
uint64_t rb_ts_apply(uint64_t ts, const struct rb_decoded *d);

/* The writer fast path and the private state it reads.  Not API. */
#include "trace/ring_buffer/rb_internal.h"

#endif
