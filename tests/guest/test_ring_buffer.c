/*
 * test_ring_buffer.c — the ring buffer on real CPUs (suite ring_buffer).
 *
 * The torture cases run a writer thread pinned to every CPU while that CPU's
 * timer interrupt, raised to RB_TEST_HZ, writes events of its own through
 * timer_hook (nested inside the thread's reservations now and then, which
 * the thread holds open on purpose); the test thread on CPU 0 consumes.  Every
 * event carries (writer id, sequence number, checksum).  At the end, with
 * everything drained, the same invariants as the host torture hold, per CPU:
 * events intact, each writer's sequence numbers strictly increasing, time
 * stamps never going back, and written == read + overrun + dropped.  The
 * reader also resizes one CPU's buffer or all now and then (2 to 8 pages:
 * grows and shrinks with events in, recording off around it as tracefs
 * does; writes refused meanwhile are not written).
 *
 * Needs: trace/ring_buffer/ring_buffer.c, rb_setup.c, rb_read.c, rb_event.c in the
 * kernel (notrace, no FP), timer_hook, arch_timer_set_hz, smp_call_all.
 */
#include <stdlib.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/irq.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "trace/ring_buffer/ring_buffer.h"
#include "trace/trace.h"
#include "tests/rb_check.h"

#define RB_TEST_HZ    10000u
#define RB_TEST_NS    1500000000ull    /* guest time per torture case */
#define KINDS         2u               /* writer id = cpu * KINDS + kind */



/* Per writer: only its CPU (its thread, or its timer interrupt) touches it
 * while running; the test reads it after the join. */
static struct writer {
	uint64_t seq, attempts, ok, dropped, off, other, rng;
} W[MAX_CPUS][KINDS];

static struct rb_buffer *rb;
static volatile bool rb_stop;
static volatile unsigned holding[MAX_CPUS];   /* thread holds a reservation open */
static uint64_t inside[MAX_CPUS];             /* ticks that wrote inside one */

static void write_one(unsigned cpu, unsigned kind, uint64_t hold_ns)
{
	struct writer *w = &W[cpu][kind];
	struct hdr h = { cpu * KINDS + kind, 24 + (uint32_t)(xorshift(&w->rng) % 184), w->seq++, 0 };
	struct rb_resv r;
	w->attempts++;
	int err = rb_reserve(rb, h.len, &r);
	if (err) {
		if (err == -RB_EDROPPED)
			w->dropped++;
		else if (err == -RB_EOFF)
			w->off++;       /* a resize: not written */
		else
			w->other++;
		return;
	}
	uint8_t *p = r.data;
	for (uint32_t i = sizeof(h); i < h.len; i++)
		p[i] = (uint8_t)(h.seq + i);
	h.sum = checksum(p, h.len, &h);
	__builtin_memcpy(p, &h, sizeof(h));
	if (hold_ns) {
		holding[cpu] = 1;
		clock_delay_ns(hold_ns);     /* the tick lands inside */
		holding[cpu] = 0;
	}
	rb_commit(&r);
	w->ok++;
}

static void tick_writer(void)
{
	unsigned cpu = cpu_id();
	if (holding[cpu])
		inside[cpu]++;
	write_one(cpu, 1, 0);
}

static int thread_writer(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	W[cpu][0].rng = 0x1234567ull * (cpu + 1);
	W[cpu][1].rng = 0x7654321ull * (cpu + 1);
	while (!rb_stop) {
		/* Preemption is off only inside a reservation, so a tick may
		 * also land between two writes: both kinds of nesting happen. */
		write_one(cpu, 0, (W[cpu][0].seq & 31) == 0 ? 150000 : 0);
	}
	return 0;
}

static void set_hz(void *arg) { arch_timer_set_hz(*(unsigned *)arg); }

/* ---- Reader ---------------------------------------------------------------------- */

static struct {
	uint64_t last_seq[MAX_CPUS * KINDS], nread[MAX_CPUS * KINDS];
	bool seen[MAX_CPUS * KINDS];
	uint64_t last_ts[MAX_CPUS], read[MAX_CPUS], lost[MAX_CPUS];
	uint64_t bad, bad_order, bad_ts, errors;
	uint64_t grows, shrinks, resize_busy, resize_errors;
} R;

/* Resize one CPU's buffer or all to 2..8 pages, recording off meanwhile
 * (the reader's thread: no event it holds lives across it). */
static void resize_some(uint64_t *rng)
{
	unsigned pick = (unsigned)(xorshift(rng) % (ncpus + 1));
	int cpu = pick == ncpus ? RB_ALL_CPUS : (int)pick;
	size_t pages = 2 + xorshift(rng) % 7;
	size_t before = rb_size(rb, cpu == RB_ALL_CPUS ? 0 : (unsigned)cpu) / RB_DATA_SIZE;
	if (cpu == RB_ALL_CPUS)
		rb_record_off(rb);
	else
		rb_record_cpu_off(rb, (unsigned)cpu);
	int err = rb_resize(rb, cpu, pages * RB_DATA_SIZE);
	if (cpu == RB_ALL_CPUS)
		rb_record_on(rb);
	else
		rb_record_cpu_on(rb, (unsigned)cpu);
	if (err == -RB_EBUSY)
		R.resize_busy++;        /* a writer stayed inside (a vCPU the host stopped) */
	else if (err)
		R.resize_errors++;
	else if (pages > before)
		R.grows++;
	else if (pages < before)
		R.shrinks++;
}

static void check_event(unsigned cpu, uint64_t ts, const void *data, uint32_t len)
{
	struct hdr h;
	if (len < sizeof(h)) {
		R.bad++;
		return;
	}
	__builtin_memcpy(&h, data, sizeof(h));
	if (h.wid / KINDS != cpu || h.len > len || h.len < sizeof(h) ||
	    checksum(data, h.len, &h) != h.sum) {
		R.bad++;
		return;
	}
	if (R.seen[h.wid] && h.seq <= R.last_seq[h.wid])
		R.bad_order++;
	R.seen[h.wid] = true;
	R.last_seq[h.wid] = h.seq;
	R.nread[h.wid]++;
	if (ts < R.last_ts[cpu])
		R.bad_ts++;
	R.last_ts[cpu] = ts;
	R.read[cpu]++;
}

static struct rb_page page_buf;

static int read_some(unsigned cpu, unsigned how)
{
	struct rb_event ev;
	if (how == 0) {
		unsigned nev;
		uint64_t lost;
		int n = rb_read_page(rb, cpu, &page_buf, &nev, &lost);
		if (n <= 0)
			return n ? n : -RB_EAGAIN;
		uint32_t end = (uint32_t)(page_buf.commit & RB_COMMIT_MASK);
		if (!page_lost_consistent(&page_buf, lost))
			R.errors++;
		R.lost[cpu] += lost;
		uint64_t ts = page_buf.time_stamp;
		for (uint32_t off = 0; off < end;) {
			struct rb_decoded d;
			if (rb_decode(page_buf.data + off, end - off, &d) || !d.size) {
				R.errors++;
				break;
			}
			ts = rb_ts_apply(ts, &d);
			off += d.size;
			if (d.is_data)
				check_event(cpu, ts, d.data, d.len);
		}
		return 0;
	}
	int err = how == 1 ? rb_consume_merged(rb, &ev) : rb_consume(rb, cpu, &ev);
	if (!err) {
		check_event(ev.cpu, ev.ts, ev.data, ev.len);
		R.lost[ev.cpu] += ev.lost;
	}
	return err;
}

static unsigned read_pass(uint64_t *rng)
{
	unsigned got = 0;
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		unsigned how = (unsigned)(xorshift(rng) % 8);
		for (unsigned k = 0; k < 64; k++) {
			int err = read_some(cpu, how);
			if (err == -RB_EAGAIN)
				break;
			if (err) {
				R.errors++;
				break;
			}
			got++;
		}
	}
	return got;
}

/* Ticks at the default HZ in RB_TEST_NS, three times over (TCG delivers
 * well under RB_TEST_HZ, but several times HZ). */
#define TICK_WRITES_MIN (3 * (uint64_t)HZ * RB_TEST_NS / 1000000000u)

/* Has every CPU's timer written enough, once inside a reservation?  Read
 * while the writers run: relaxed loads of counters only they write. */
static bool covered(void)
{
	for (unsigned c = 0; c < ncpus; c++)
		if (__atomic_load_n(&W[c][1].attempts, __ATOMIC_RELAXED) <= TICK_WRITES_MIN ||
		    __atomic_load_n(&inside[c], __ATOMIC_RELAXED) == 0)
			return false;
	return true;
}

static void torture(bool overwrite)
{
	__builtin_memset(W, 0, sizeof(W));
	__builtin_memset(&R, 0, sizeof(R));
	__builtin_memset(inside, 0, sizeof(inside));
	ASSERT_EQ(rb_create(&rb, ncpus, 3 * RB_DATA_SIZE, overwrite ? RB_FL_OVERWRITE : 0,
			    &rb_kernel_allocator), 0);
	rb_stop = false;
	struct thread *t[MAX_CPUS];
	for (unsigned i = 0; i < ncpus; i++) {
		t[i] = thread_create("rb-writer", thread_writer, (void *)(uintptr_t)i, (int)i);
		ASSERT_TRUE(t[i] != NULL);
	}
	unsigned hz = RB_TEST_HZ;
	timer_hook_set(tick_writer);
	smp_call_all(set_hz, &hz);

	/* RB_TEST_NS at least, then on until every CPU's raised timer has
	 * written TICK_WRITES_MIN events and one inside a reservation (a
	 * loaded host gives the guest fewer ticks per guest second: the
	 * coverage is the point, not the rate), at most 20 times as long. */
	uint64_t rng = 42, start = clock_ns(), end = start + RB_TEST_NS;
	while (clock_ns() < end || (!covered() && clock_ns() < start + 20 * RB_TEST_NS)) {
		read_pass(&rng);
		if (xorshift(&rng) % 8 == 0)
			resize_some(&rng);
		if (xorshift(&rng) % 16 == 0)
			thread_sleep_ns(xorshift(&rng) % 3000000);   /* fall behind */
	}
	rb_stop = true;
	for (unsigned i = 0; i < ncpus; i++)
		thread_join(t[i]);
	timer_hook_set(NULL);
	hz = HZ;
	smp_call_all(set_hz, &hz);
	unsigned idle = 0;
	while (idle < 2)
		idle = read_pass(&rng) ? 0 : idle + 1;

	EXPECT_EQ(R.bad, 0);
	EXPECT_EQ(R.errors, 0);
	EXPECT_EQ(R.bad_order, 0);
	EXPECT_EQ(R.bad_ts, 0);
	EXPECT_EQ(R.resize_errors, 0);
	EXPECT_TRUE(R.grows > 0 && R.shrinks > 0);
	kprintf("    # resized %llu times larger, %llu smaller (%llu busy)\n",
		(unsigned long long)R.grows, (unsigned long long)R.shrinks,
		(unsigned long long)R.resize_busy);
	for (unsigned c = 0; c < ncpus; c++) {
		struct rb_stats s;
		rb_stats(rb, c, &s);
		uint64_t written = 0, unread = 0, dropped = 0;
		for (unsigned k = 0; k < KINDS; k++) {
			written += W[c][k].attempts - W[c][k].off;
			dropped += W[c][k].dropped;
			unread += W[c][k].ok - R.nread[c * KINDS + k];
			EXPECT_EQ(W[c][k].other, 0);
		}
		EXPECT_EQ(written, R.read[c] + s.overrun + s.dropped);
		EXPECT_EQ(s.read, R.read[c]);
		EXPECT_EQ(dropped, s.dropped);
		EXPECT_EQ(unread, s.overrun);
		EXPECT_EQ(s.lost_reported, s.overrun + s.dropped - s.pending_drops - s.unplaced);
		EXPECT_EQ(R.lost[c], s.lost_reported);
		EXPECT_TRUE(R.read[c] > 0);
		/* The buffer filled (the reader falls behind on purpose). */
		EXPECT_TRUE(overwrite ? s.overrun > 0 : s.dropped > 0);
		/* The raised timer ran (covered(), above). */
		EXPECT_TRUE(W[c][1].attempts > TICK_WRITES_MIN);
		EXPECT_TRUE(inside[c] > 0);           /* an interrupt inside a reservation */
		kprintf("    # cpu%u: written %llu read %llu overrun %llu dropped %llu, "
			"tick writes %llu (%llu inside a reservation)\n", c,
			(unsigned long long)written, (unsigned long long)R.read[c],
			(unsigned long long)s.overrun, (unsigned long long)s.dropped,
			(unsigned long long)W[c][1].attempts, (unsigned long long)inside[c]);
	}
	rb_record_off(rb);
	rb_destroy(rb);
	rb = 0;
}

TEST_CASE(ring_buffer, write_read_one_cpu)
{
	ASSERT_EQ(rb_create(&rb, ncpus, 4 * RB_DATA_SIZE, 0, &rb_kernel_allocator), 0);
	preempt_disable();
	unsigned cpu = cpu_id();
	for (uint32_t i = 0; i < 100; i++)
		EXPECT_EQ(rb_write(rb, &i, sizeof(i)), 0);
	preempt_enable();
	struct rb_event ev;
	uint64_t ts = 0;
	for (uint32_t i = 0; i < 100; i++) {
		ASSERT_EQ(rb_consume(rb, cpu, &ev), 0);
		EXPECT_EQ(*(const uint32_t *)ev.data, i);
		EXPECT_TRUE(ev.ts >= ts);
		ts = ev.ts;
	}
	EXPECT_EQ(rb_consume(rb, cpu, &ev), -RB_EAGAIN);
	rb_record_off(rb);
	rb_destroy(rb);
	rb = 0;
}

TEST_CASE(ring_buffer, bad_input_changes_nothing)
{
	struct rb_buffer *b = 0;
	EXPECT_EQ(rb_create(&b, ncpus, 0, 0, &rb_kernel_allocator), -RB_EINVAL);
	ASSERT_EQ(rb_create(&b, ncpus, 4 * RB_DATA_SIZE, 0, &rb_kernel_allocator), 0);
	struct rb_resv r;
	uint32_t v = 0x5eed;
	preempt_disable();
	unsigned cpu = cpu_id();
	EXPECT_EQ(rb_write(b, &v, sizeof(v)), 0);
	preempt_enable();
	EXPECT_EQ(rb_reserve(b, RB_MAX_PAYLOAD + 1, &r), -RB_E2BIG);
	EXPECT_EQ(rb_resize(b, RB_ALL_CPUS, 8 * RB_DATA_SIZE), -RB_EBUSY);
	EXPECT_EQ(rb_size(b, 0), 4 * RB_DATA_SIZE);
	rb_record_off(b);
	EXPECT_EQ(rb_resize(b, RB_ALL_CPUS, 0), -RB_EINVAL);
	EXPECT_EQ(rb_resize(b, RB_ALL_CPUS, (size_t)RB_DATA_SIZE * 70000), -RB_E2BIG);
	for (unsigned c = 0; c < ncpus; c++)
		EXPECT_EQ(rb_size(b, c), 4 * RB_DATA_SIZE);
	struct rb_event ev;                   /* refused: the event is still there */
	ASSERT_EQ(rb_peek(b, cpu, &ev), 0);
	EXPECT_EQ(*(const uint32_t *)ev.data, 0x5eed);
	EXPECT_EQ(rb_resize(b, RB_ALL_CPUS, 8 * RB_DATA_SIZE), 0);
	EXPECT_EQ(rb_size(b, ncpus - 1), 8 * RB_DATA_SIZE);
	EXPECT_STREQ(rb_strerror(-RB_E2BIG),
		     "too large: an event must fit in one page (4072 bytes of payload), "
		     "a CPU's buffer in 65000 pages (265200000 bytes)");
	rb_destroy(b);
}

TEST_CASE_FLAGS(ring_buffer, torture_overwrite, TEST_SLOW)
{
	torture(true);
}

TEST_CASE_FLAGS(ring_buffer, torture_producer_consumer, TEST_SLOW)
{
	torture(false);
}
