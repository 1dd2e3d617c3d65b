/*
 * newlib_glue.c — the process calls and locks newlib expects (files:
 * lib/fs.c; time: lib/timekeeping.c).
 *
 * Locks: newlib is built with retargetable locking.  Every lock here is a
 * recursive spinlock that keeps interrupts disabled while held, so interrupt
 * handlers may printf and malloc (the holder cannot be interrupted on its own
 * CPU) and the holder is never preempted.  The owner is the holding thread.
 * The one lock held across a sleep is stdin's, in _read() (lib/fs.c): the
 * reader sleeps with interrupts off in its own context, which is legal
 * (each thread keeps its own interrupt state); other readers of stdin wait
 * for it with their own interrupt state, so they can be preempted meanwhile
 * (lock_try).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/lock.h>
#include <sys/stat.h>

#include "arch/hooks.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/panic.h"

/* ---- the process ---- */

/* The kernel and its APP are one process, pid 1 (0 and -1 name it too). */
int _getpid(void) { return 1; }

/* Signal 0 checks the pid; any other ends the run as a failed APP would
 * (status 1: abort() reaches here with SIGABRT when no handler is set). */
int _kill(int pid, int sig)
{
	if (sig < 0 || sig >= NSIG) {
		errno = EINVAL;
		return -1;
	}
	if (pid != 1 && pid != 0 && pid != -1) {
		errno = ESRCH;
		return -1;
	}
	if (sig == 0)
		return 0;
	kprintf("baretrace: killed by signal %d\n", sig);
	arch_poweroff(1);
}

/* exit() ends here: the run's status is the program's. */
void _exit(int status)
{
	arch_poweroff(status);
}

/* There is no other process and no shell: fork, exec and wait fail, and
 * system() says there is no command processor (newlib's own would call
 * fork and answer 1 to system(NULL)). */
int _fork(void) { errno = ENOSYS; return -1; }
int _execve(const char *path, char *const argv[], char *const envp[])
{
	errno = ENOSYS;
	return -1;
}
int _wait(int *status) { errno = ECHILD; return -1; }

int system(const char *command)
{
	if (!command)
		return 0;
	errno = ENOSYS;
	return -1;
}

/* Some newlib targets (x86_64-elf) call the plain names. */
int getpid(void) __attribute__((alias("_getpid")));
int kill(int pid, int sig) __attribute__((alias("_kill")));
int fork(void) __attribute__((alias("_fork")));
int execve(const char *path, char *const argv[], char *const envp[]) __attribute__((alias("_execve")));
int wait(int *status) __attribute__((alias("_wait")));

/* ---- locks ---- */

struct __lock {
	spinlock_t sl;
	void *owner;            /* holding thread, NULL if free; sl */
	unsigned depth;         /* recursion depth; holder only */
	unsigned long flags;    /* interrupt state to restore at the outermost release */
};

struct __lock __lock___sinit_recursive_mutex, __lock___sfp_recursive_mutex,
	__lock___atexit_recursive_mutex, __lock___at_quick_exit_mutex,
	__lock___malloc_recursive_mutex, __lock___env_recursive_mutex,
	__lock___tz_mutex, __lock___dd_hash_mutex, __lock___arc4random_mutex;

/* Take l if it is free or already ours; false if another thread holds it. */
static bool lock_try(struct __lock *l, bool spin)
{
	unsigned long f = arch_irq_save();
	void *me = this_cpu()->current;
	/* Only this thread can have stored owner == me, so a relaxed read is exact. */
	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) {
		l->depth++;
		return true;
	}
	/* Wait with the caller's interrupt state, not with interrupts off: the
	 * holder may be a thread asleep in _read() whose wake-up needs this CPU
	 * to schedule (a thread waiting here is preemptible).  The caller's
	 * thread cannot change while it waits, so `me` stays right. */
	while (!spin_trylock(&l->sl)) {
		arch_irq_restore(f);
		if (!spin)
			return false;
		arch_cpu_relax();
		f = arch_irq_save();
	}
	__atomic_store_n(&l->owner, me, __ATOMIC_RELAXED);
	l->depth = 1;
	l->flags = f;
	return true;
}

static void lock_give(struct __lock *l)
{
	if (--l->depth)
		return;           /* still held: interrupts stay off */
	unsigned long f = l->flags;
	__atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
	spin_unlock(&l->sl);
	arch_irq_restore(f);
}

/*
 * A lock newlib creates (a FILE's, and the one full stdio's __sbprintf sets
 * up on its stack for each printf to an unbuffered stream) comes from the
 * heap.  newlib cannot be told that failed: with the heap used up it would
 * take a NULL lock.  Such a lock is lock_spare instead, shared by all of
 * them: coarser (every lock is recursive, and newlib never waits for
 * another lock while it holds a FILE's), never freed.
 */
static struct __lock lock_spare;

void __retarget_lock_init(_LOCK_T *lp)
{
	struct __lock *l = calloc(1, sizeof(struct __lock));
	*lp = l ? l : &lock_spare;
}
void __retarget_lock_init_recursive(_LOCK_T *lp) { __retarget_lock_init(lp); }
void __retarget_lock_close(_LOCK_T l) { if (l != &lock_spare) free(l); }
void __retarget_lock_close_recursive(_LOCK_T l) { __retarget_lock_close(l); }
void __retarget_lock_acquire(_LOCK_T l) { lock_try(l, true); }
void __retarget_lock_acquire_recursive(_LOCK_T l) { lock_try(l, true); }
int __retarget_lock_try_acquire(_LOCK_T l) { return lock_try(l, false); }
int __retarget_lock_try_acquire_recursive(_LOCK_T l) { return lock_try(l, false); }
void __retarget_lock_release(_LOCK_T l) { lock_give(l); }
void __retarget_lock_release_recursive(_LOCK_T l) { lock_give(l); }
