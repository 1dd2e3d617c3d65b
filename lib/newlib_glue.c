/*
 * newlib_glue.c — the system calls and locks newlib expects.
 *
 * Files: 0 is the console input, 1 and 2 its output; nothing else exists.
 * Locks: newlib is built with retargetable locking.  Every lock here is a
 * recursive spinlock that keeps interrupts disabled while held, so interrupt
 * handlers may printf and malloc (the holder cannot be interrupted on its own
 * CPU) and the holder is never preempted.  The owner is the holding thread.
 * The one lock held across a sleep is stdin's, in _read(): the reader sleeps
 * with interrupts off in its own context, which is legal (each thread keeps
 * its own interrupt state); other readers of stdin wait for it with their
 * own interrupt state, so they can be preempted meanwhile (lock_try).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/lock.h>
#include <sys/stat.h>

#include "arch/hooks.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/panic.h"

/* ---- system calls ---- */

int _write(int fd, const char *buf, int n)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	console_write(buf, (size_t)n);
	return n;
}

/* Line-at-a-time console input with echo, as a terminal would give it. */
int _read(int fd, char *buf, int n)
{
	if (fd != 0) {
		errno = EBADF;
		return -1;
	}
	int got = 0;
	while (got < n) {
		char c = (char)console_getc();
		if (c == '\r')
			c = '\n';
		console_write(&c, 1);
		buf[got++] = c;
		if (c == '\n')
			break;
	}
	return got;
}

int _close(int fd) { errno = EBADF; return -1; }
int _lseek(int fd, int off, int whence) { errno = ESPIPE; return -1; }
int _isatty(int fd) { return fd >= 0 && fd <= 2; }
int _getpid(void) { return 1; }
int _kill(int pid, int sig) { errno = EINVAL; return -1; }

int _fstat(int fd, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFCHR;
	return 0;
}

void _exit(int status)
{
	arch_poweroff(status);
}

/* Some newlib targets (x86_64-elf) call the plain names. */
int write(int fd, const char *buf, int n) __attribute__((alias("_write")));
int read(int fd, char *buf, int n) __attribute__((alias("_read")));
int close(int fd) __attribute__((alias("_close")));
int lseek(int fd, int off, int whence) __attribute__((alias("_lseek")));
int isatty(int fd) __attribute__((alias("_isatty")));
int fstat(int fd, struct stat *st) __attribute__((alias("_fstat")));
int getpid(void) __attribute__((alias("_getpid")));
int kill(int pid, int sig) __attribute__((alias("_kill")));

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
