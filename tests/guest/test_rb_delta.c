/*
 * test_rb_delta.c — the ring buffer's 27-bit delta through the writers'
 * fast path with the kernel's port (suite rb_delta): an event written more
 * than 2^27 clock cycles after the one before it on its CPU must not take
 * the fast path's plain header (whose delta field would drop the high
 * bits) but a time extend, so its time comes back whole.  The check
 * (rb_write.h, rb_port_above_bits: arch_above_bits) is written per arch,
 * and the host tests run it in the host port's form only: this is the
 * kernel's.  Waits 2^27 cycles plus a little: ~2.1 s on arm64's 62.5 MHz
 * counter, ~0.05 s on x86-64's TSC.  Also the port's loads folded into a
 * subtraction and a compare (rb_port_sub_load64, rb_port_ne_load64: on
 * x86-64 a SUB / CMP from memory in asm), exact: a wrong one would only
 * send every event to the general path, which no other test sees.  And
 * the level a fast-path writer's event takes when that writer goes on to
 * the general path after A (rb_reserve_fast_ts's gate word, 0 there):
 * level 0, so that the next writers take the fast path again.
 */
#include "boot/cpu.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "trace/ring_buffer/ring_buffer.h"
#include "trace/trace.h"

static uint64_t written_ts(struct rb_buffer *b, uint32_t tag, uint64_t *ts)
{
	struct rb_event ev;
	int err = rb_consume(b, 0, &ev);
	if (err)
		return (uint64_t)err;
	uint32_t v;
	__builtin_memcpy(&v, ev.data, 4);
	*ts = ev.ts;
	return v == tag ? 0 : 1;
}

TEST_CASE(rb_delta, delta_past_27_bits_gets_a_time_extend)
{
	struct rb_buffer *b;
	thread_migrate(current_thread(), 0);
	ASSERT_EQ(rb_create(&b, ncpus, 4 * RB_DATA_SIZE, 0, &rb_kernel_allocator), 0);
	uint32_t one = 1, two = 2, three = 3;
	/* The first event of a page has delta 0: write it, then one close
	 * after (the fast path's plain header), then one past 2^27 cycles. */
	EXPECT_EQ(rb_write(b, &one, 4), 0);
	EXPECT_EQ(rb_write(b, &two, 4), 0);
	uint64_t t0 = arch_counter();
	while (arch_counter() - t0 < (UINT64_C(1) << RB_TS_SHIFT) + (UINT64_C(1) << 20))
		arch_cpu_relax();
	uint64_t t1 = arch_counter();
	EXPECT_EQ(rb_write(b, &three, 4), 0);
	uint64_t t2 = arch_counter();
	uint64_t ts1 = 0, ts2 = 0, ts3 = 0;
	EXPECT_EQ(written_ts(b, one, &ts1), 0);
	EXPECT_EQ(written_ts(b, two, &ts2), 0);
	EXPECT_EQ(written_ts(b, three, &ts3), 0);
	/* Each time is the clock's when its event was written (the buffer's
	 * reading is unordered: a margin below t1 for one that ran ahead). */
	EXPECT_TRUE(ts2 >= ts1 && ts2 <= t0);
	EXPECT_TRUE(ts3 + (UINT64_C(1) << 20) >= t1 && ts3 <= t2);
	EXPECT_TRUE(ts3 - ts2 > (UINT64_C(1) << RB_TS_SHIFT));
	rb_destroy(b);
	thread_migrate(current_thread(), -1);
}

TEST_CASE(rb_delta, port_sub_and_compare_from_memory)
{
	static uint64_t w[2];
	__atomic_store_n(&w[0], 3, __ATOMIC_RELAXED);
	__atomic_store_n(&w[1], UINT64_C(0x8000000000000001), __ATOMIC_RELAXED);
	EXPECT_EQ(rb_port_sub_load64(10, &w[0]), 7);
	EXPECT_EQ(rb_port_sub_load64(1, &w[0]), UINT64_MAX - 1);      /* wraps as unsigned */
	EXPECT_EQ(rb_port_sub_load64(UINT64_C(0x8000000000000003), &w[1]), 2);
	EXPECT_TRUE(!rb_port_ne_load64(3, &w[0]));
	EXPECT_TRUE(rb_port_ne_load64(4, &w[0]));
	EXPECT_TRUE(rb_port_ne_load64(UINT64_C(0x0000000000000001), &w[1]));  /* all 64 bits */
	EXPECT_TRUE(!rb_port_ne_load64(UINT64_C(0x8000000000000001), &w[1]));
}

/*
 * A page's first event goes to the general path (delta 0: the fast path
 * refuses an empty page) from rb_reserve_fast, after its writer entered at
 * level 0 (A: gate word 0): the event is level 0's, so the next
 * rb_reserve_fast takes the fast path and rb_reserve_fast_at's given time
 * is the event's exactly.  A gate word said to be nested after A (*g = 1)
 * puts the first event at level 1: both later writers refused, the given
 * time replaced by a clock reading.  Preemption off: one CPU's buffer.
 */
TEST_CASE(rb_delta, fast_path_writer_stays_at_level_0)
{
	struct rb_buffer *b;
	thread_migrate(current_thread(), 0);
	ASSERT_EQ(rb_create(&b, ncpus, 4 * RB_DATA_SIZE, 0, &rb_kernel_allocator), 0);
	struct rb_cpu *cb = rb_cpu_buffer(b, 0);
	bool fast[3];
	int err[3];
	uint64_t given = 0;
	uintptr_t tok = rb_port_preempt_disable();
	for (uint32_t i = 0; i < 3; i++) {
		struct rb_resv r;
		uint64_t g;
		if (i == 2)
			given = rb_port_clock();
		fast[i] = i == 2 ? rb_reserve_fast_at(cb, 4, given, &r, &g) : rb_reserve_fast(cb, 4, &r, &g);
		err[i] = fast[i] ? 0 : rb_reserve_rest(4, g, &r);
		if (err[i])
			continue;
		uint32_t tag = i + 1;
		__builtin_memcpy(r.data, &tag, 4);
		if (fast[i])
			rb_commit_fast(&r);
		else
			rb_commit_nopreempt(&r);
	}
	rb_port_preempt_enable(tok);
	EXPECT_TRUE(!fast[0]);
	EXPECT_TRUE(fast[1]);
	EXPECT_TRUE(fast[2]);
	EXPECT_EQ(err[0], 0);
	EXPECT_EQ(err[1], 0);
	EXPECT_EQ(err[2], 0);
	uint64_t ts[3] = { 0, 0, 0 };
	for (uint32_t i = 0; i < 3; i++)
		EXPECT_EQ(written_ts(b, i + 1, &ts[i]), 0);
	EXPECT_EQ(ts[2], given);
	EXPECT_TRUE(ts[0] <= ts[1] && ts[1] <= ts[2]);
	rb_destroy(b);
	thread_migrate(current_thread(), -1);
}
