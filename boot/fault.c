/*
 * fault.c — reporting synchronous exceptions, and fault_catch().
 *
 * fault_catch() arms a jmp_buf in the calling thread.  A fault raised by that
 * thread (not by an interrupt handler running on top of it) is copied out,
 * the exception returns into catch_resume() on the faulting stack, and
 * catch_resume() longjmps back into fault_catch().  Everything else is fatal.
 *
 * A fault address in a stack's guard (boot/stack.h) is a kernel stack
 * overflow: always fatal (there is no room to resume on), and reported as
 * such, with the stack's bounds, its owner and the context.  The arch has
 * already moved to a stack with room (x86-64: the double fault's IST stack;
 * arm64: the CPU's exception stack, arch/arm64/vectors.S).
 */
#include <setjmp.h>

#include "boot/console.h"
#include "boot/fault.h"
#include "boot/ksyms.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/stack.h"

static const char *const kind_names[] = {
	[FAULT_READ] = "read", [FAULT_WRITE] = "write", [FAULT_EXEC] = "exec",
	[FAULT_UNDEF] = "undefined instruction", [FAULT_OTHER] = "other",
};

static void catch_resume(void)
{
	longjmp(*current_thread()->fault_jmp, 1);
}

/* "stack overflow: ..." lines for a fault in the guard of stack s. */
static void report_overflow(const struct fault_info *fi, const struct stack_span *s,
			    const struct thread *t)
{
	kprintf("  stack overflow: thread %s (tid %u) on CPU %u, in %s context\n"
		"  %s stack [%016lx-%016lx)  guard [%016lx-%016lx)  caught as: %s\n",
		t ? t->name : "?", t ? t->tid : 0, cpu_id(),
		in_interrupt() ? "interrupt" : "thread", s->use ? s->use : "free",
		(unsigned long)s->lo, (unsigned long)s->hi, (unsigned long)s->guard_lo,
		(unsigned long)s->lo, fi->what);
}

void fault_handle(struct fault_info *fi, struct trap_frame *tf)
{
	struct thread *t = this_cpu()->current;
	struct stack_span s;
	bool overflow = stack_find(fi->addr, &s) && s.in_guard;
	if (t && t->fault_jmp && !overflow && !in_interrupt() && !panic_in_progress()) {
		*t->fault_out = *fi;
		arch_frame_redirect(tf, catch_resume);
		return;
	}
	if (!panic_claim())
		arch_halt();
	char where[96];
	ksym_format(where, sizeof(where), fi->pc);
	kprintf("\nFATAL EXCEPTION on CPU %u: %s (%s) at %s\n"
		"  pc %016lx  address %016lx  code %llx  thread %s\n",
		cpu_id(), overflow ? "kernel stack overflow" : fi->what, kind_names[fi->kind],
		where, (unsigned long)fi->pc, (unsigned long)fi->addr,
		(unsigned long long)fi->code, t ? t->name : "?");
	if (overflow)
		report_overflow(fi, &s, t);
	arch_dump_frame(tf);
	kprintf("Backtrace:\n");
	backtrace_print(arch_frame_pc(tf), arch_frame_fp(tf));
	panic_finish();
}

int fault_catch(void (*fn)(void *), void *arg, struct fault_info *out)
{
	struct thread *t = current_thread();
	jmp_buf jb;
	if (t->fault_jmp)
		panic("fault_catch nested in %s", t->name);
	t->fault_out = out;
	if (setjmp(jb)) {
		t->fault_jmp = NULL;
		return 1;
	}
	/* The jmp_buf must be complete before a fault can use it. */
	__atomic_store_n(&t->fault_jmp, &jb, __ATOMIC_RELEASE);
	fn(arg);
	t->fault_jmp = NULL;
	return 0;
}
