/*
 * test_fgraph_solo.c — the single-user return (trace/core/fgraph.c,
 * fgraph_return and hand_on): while exactly one graph user is registered,
 * a frame whose last word is that registration's tag (FR_TAG: its serial
 * and the single-user frame's size) goes straight to its return path.
 * Users come and go while calls are open, and every exit still goes to
 * exactly the users that took the call and are still registered (suite
 * fgraph_solo).
 *
 * fs_outer is the traced target; the function it calls (fs_during, not
 * traced) changes the users while fs_outer's frame is on the stack.
 */
#include <string.h>

#include "boot/sched.h"
#include "boot/test.h"
#include "lib/compiler.h"
#include "lib/noipa.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_frame.h"
#include "trace/core/ftrace.h"
#include "trace/core/records.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

struct solo_user {
	struct fgraph_ops g;
	bool take;                     /* what its entry callback answers */
	bool count;                    /* count its open calls in the state word */
	uint32_t seen;                 /* the state word at its last entry */
	unsigned long entries, exits;
};

static struct thread *solo_thread;     /* whose calls count */

static bool su_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	struct solo_user *u = (struct solo_user *)g;
	if (this_cpu()->current != solo_thread)
		return false;
	u->entries++;
	u->seen = *e->state;
	if (u->count && u->take)
		++*e->state;
	return u->take;
}

static void su_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	struct solo_user *u = (struct solo_user *)g;
	if (this_cpu()->current != solo_thread)
		return;
	u->exits++;
	if (u->count)
		--*r->state;
}

static void (*during)(void);           /* what fs_outer does inside */

T notrace void fs_during(void) { during(); }
T int fs_outer(int x) { fs_during(); KEEP(); return x + 1; }

static struct solo_user a, b;

static void su_init(struct solo_user *u, bool take)
{
	memset(u, 0, sizeof(*u));
	u->g.entryfunc = su_entry;
	u->g.retfunc = su_exit;
	u->g.idx = -1;
	u->take = take;
}

static void unregister_b(void) { EXPECT_EQ(unregister_fgraph(&b.g), 0); }
static void register_b(void) { EXPECT_EQ(register_fgraph(&b.g), 0); }
/* a goes, b comes (in a's slot: the only one free below it). */
static void a_gives_way_to_b(void)
{
	EXPECT_EQ(unregister_fgraph(&a.g), 0);
	EXPECT_EQ(register_fgraph(&b.g), 0);
}
/* a goes and comes back: the same ops, a new registration. */
static void a_again(void)
{
	EXPECT_EQ(unregister_fgraph(&a.g), 0);
	EXPECT_EQ(register_fgraph(&a.g), 0);
}
static void nothing(void) { }

/* Register a then b on fs_outer (a in the lower slot, so its block comes
 * first in a frame both are asked in). */
static bool both(bool a_takes, bool b_takes)
{
	su_init(&a, a_takes);
	su_init(&b, b_takes);
	EXPECT_EQ(ftrace_set_filter(&a.g.ops, "fs_outer", true), 0);
	EXPECT_EQ(ftrace_set_filter(&b.g.ops, "fs_outer", true), 0);
	EXPECT_EQ(register_fgraph(&a.g), 0);
	EXPECT_EQ(register_fgraph(&b.g), 0);
	return a.g.idx >= 0 && b.g.idx > a.g.idx;
}

/* a (taking the call or not) and b (taking it) on fs_outer; b unregisters
 * while fs_outer(x) is open: a hears an exit only if it took the call. */
static void b_leaves_inside(bool a_takes, int x)
{
	ASSERT_TRUE(both(a_takes, true));
	during = unregister_b;
	EXPECT_EQ(fs_outer(x), x + 1);
	EXPECT_EQ(unregister_fgraph(&a.g), 0);
	EXPECT_EQ(a.entries, 1);
	EXPECT_EQ(a.exits, a_takes ? 1 : 0);
	EXPECT_EQ(b.entries, 1);
	EXPECT_EQ(b.exits, 0);
}

TEST_CASE(fgraph_solo, users_change_while_calls_are_open)
{
	solo_thread = current_thread();
	/* One user: the solo return hears its exit. */
	su_init(&a, true);
	ASSERT_EQ(ftrace_set_filter(&a.g.ops, "fs_outer", true), 0);
	ASSERT_EQ(register_fgraph(&a.g), 0);
	during = nothing;
	EXPECT_EQ(fs_outer(1), 2);
	/* A second user comes while a's call is open: a still hears it
	 * (the users' return), b, never asked, does not. */
	su_init(&b, true);
	EXPECT_EQ(ftrace_set_filter(&b.g.ops, "fs_outer", true), 0);
	during = register_b;
	EXPECT_EQ(fs_outer(2), 3);
	EXPECT_EQ(unregister_fgraph(&b.g), 0);
	EXPECT_EQ(unregister_fgraph(&a.g), 0);
	EXPECT_EQ(a.entries, 2);
	EXPECT_EQ(a.exits, 2);
	EXPECT_EQ(b.entries, 0);
	EXPECT_EQ(b.exits, 0);

	/* Both take the call; b goes away while it is open: a alone is left
	 * registered, the frame's first block is a's, and the solo return
	 * gives a its exit, b none. */
	b_leaves_inside(true, 3);
	/* a refuses, b takes; b goes away while the call is open: a is the
	 * one user now and its block comes first, but it refused the call:
	 * no exit for anyone. */
	b_leaves_inside(false, 4);
	solo_thread = NULL;
}

/* A single-user frame whose registration is gone by its return, with one
 * user registered again: the solo return takes a frame only by its tag, so
 * neither another user in the same slot nor the same ops registered anew
 * hears of it. */
/* a (registered) and b (not yet), both taking calls of fs_outer. */
static bool a_then_b_later(bool count)
{
	su_init(&a, true);
	su_init(&b, true);
	a.count = b.count = count;
	EXPECT_EQ(ftrace_set_filter(&a.g.ops, "fs_outer", true), 0);
	EXPECT_EQ(ftrace_set_filter(&b.g.ops, "fs_outer", true), 0);
	return register_fgraph(&a.g) == 0;
}

/* a takes fs_outer(x), change() makes b the one user while the call is
 * open (in a's slot or not: same_slot): nobody hears its exit; then b's
 * own call, its frame, its exit.  b is left unregistered. */
static void a_left_open_for_b(void (*change)(void), int x, bool same_slot)
{
	ASSERT_TRUE(a_then_b_later(false));
	int slot = a.g.idx;
	during = change;
	EXPECT_EQ(fs_outer(x), x + 1);
	EXPECT_EQ(b.g.idx == slot, same_slot);
	EXPECT_EQ(a.entries, 1);
	EXPECT_EQ(a.exits, 0);
	EXPECT_EQ(b.entries, 0);
	EXPECT_EQ(b.exits, 0);
	during = nothing;
	EXPECT_EQ(fs_outer(x + 1), x + 2);
	EXPECT_EQ(b.entries, 1);
	EXPECT_EQ(b.exits, 1);
	EXPECT_EQ(unregister_fgraph(&b.g), 0);
}

TEST_CASE(fgraph_solo, single_user_frame_outlives_its_registration)
{
	solo_thread = current_thread();
	a_left_open_for_b(a_gives_way_to_b, 5, true);

	su_init(&a, true);
	ASSERT_EQ(ftrace_set_filter(&a.g.ops, "fs_outer", true), 0);
	ASSERT_EQ(register_fgraph(&a.g), 0);
	during = a_again;
	EXPECT_EQ(fs_outer(7), 8);
	EXPECT_EQ(a.entries, 1);
	EXPECT_EQ(a.exits, 0);
	during = nothing;
	EXPECT_EQ(fs_outer(8), 9);
	EXPECT_EQ(a.entries, 2);
	EXPECT_EQ(a.exits, 1);
	EXPECT_EQ(unregister_fgraph(&a.g), 0);
	solo_thread = NULL;
}

/* A user that leaves with a call open leaves its count in the slot's state
 * word; the next registration of the slot finds the word 0 again. */
TEST_CASE(fgraph_solo, state_word_starts_at_zero)
{
	solo_thread = current_thread();
	ASSERT_TRUE(a_then_b_later(true));
	during = nothing;
	EXPECT_EQ(fs_outer(1), 2);           /* opened and closed: 0 */
	during = a_gives_way_to_b;           /* a's second call stays open */
	EXPECT_EQ(fs_outer(2), 3);
	EXPECT_EQ(a.entries, 2);
	EXPECT_EQ(a.seen, 0);
	EXPECT_EQ(a.exits, 1);
	during = nothing;
	EXPECT_EQ(fs_outer(3), 4);
	EXPECT_EQ(b.entries, 1);
	EXPECT_EQ(b.seen, 0);
	EXPECT_EQ(b.exits, 1);
	EXPECT_EQ(fs_outer(4), 5);           /* b's own count came back to 0 */
	EXPECT_EQ(b.seen, 0);
	EXPECT_EQ(unregister_fgraph(&b.g), 0);
	solo_thread = NULL;
}

/* b comes, then a goes, while a's single-user frame is open: b is the one
 * user by a's return, in another slot, and the frame is one block long;
 * only a's tag says it is a's, so b hears no exit of a call it never saw
 * (INSTR=xray: the exit sled's single-user path, ftrace_sled_exit, takes a
 * frame only by that tag too). */
static void b_comes_a_goes(void)
{
	EXPECT_EQ(register_fgraph(&b.g), 0);
	EXPECT_EQ(unregister_fgraph(&a.g), 0);
}

TEST_CASE(fgraph_solo, other_users_frame_left_open)
{
	solo_thread = current_thread();
	a_left_open_for_b(b_comes_a_goes, 9, false);
	solo_thread = NULL;
}

/*
 * INSTR=xray: an exit sled of another function (fs_other) at the stack
 * pointer of the open single-user frame (fs_outer's), as when fs_other's
 * entry was not pushed (refused, or its sleds switched on after it was
 * entered) and it runs where fs_outer's frame was: ftrace_sled_exit's
 * single-user path must not take the frame (its function differs), and
 * the pairing rules pop nothing of fs_outer's, which ends at its own exit.
 */
T int fs_other(int x) { KEEP(); return x + 2; }

static void other_exit_at_outer_sp(void)
{
	struct fgraph_stack *st = current_thread()->ret_stack;
	const struct ftrace_rec *r = rec_find((uintptr_t)fs_other);
	uintptr_t sled = 0;
	unsigned first, end;
	ASSERT_TRUE(st && st->top >= FR_MIN && r);
	unsigned top = st->top;
	const uint64_t *f = &st->w[top - FR_MIN];
	ASSERT_EQ(f[FR_FUNC], (uintptr_t)fs_outer);
	rec_sleds(r, &first, &end);
	for (unsigned k = first; k < end && !sled; k++)
		if (ftrace_sleds[k].kind == ARCH_SLED_EXIT)
			sled = sled_ip(&ftrace_sleds[k]);
	ASSERT_TRUE(sled != 0);
	struct fgraph_ret_regs rr;
	memset(&rr, 0, sizeof(rr));
	preempt_disable();
	ftrace_sled_exit((uintptr_t)&rr, arch_sled_exit_at(sled), (uintptr_t)f[FR_SP]);
	preempt_enable();
	EXPECT_EQ(a.exits, 0);
	EXPECT_EQ(st->top, top);
}

TEST_CASE(fgraph_solo, sled_exit_of_another_function)
{
	if (!FGRAPH_TSTACK)
		TEST_SKIP("no exit sleds (the default backend)");
	EXPECT_EQ(fs_other(1), 3);
	solo_thread = current_thread();
	su_init(&a, true);
	ASSERT_EQ(ftrace_set_filter(&a.g.ops, "fs_outer", true), 0);
	ASSERT_EQ(register_fgraph(&a.g), 0);
	during = other_exit_at_outer_sp;
	EXPECT_EQ(fs_outer(4), 5);
	EXPECT_EQ(unregister_fgraph(&a.g), 0);
	EXPECT_EQ(a.entries, 1);
	EXPECT_EQ(a.exits, 1);
	solo_thread = NULL;
}
