/*
 * console.c — the serial console: locked output, interrupt-fed input.
 *
 * Output: console_write() holds console_lock (interrupts off) for the whole
 * buffer, so one kprintf never interleaves with another CPU's.  Once a panic
 * is in progress the lock is ignored: the other CPUs are being stopped and
 * one of them may have died holding it.
 *
 * Input: console_rx() runs in the UART interrupt on CPU 0 and is the only
 * producer of rx_buf; readers consume under rx_lock.  Bytes that arrive
 * while the buffer is full are counted in rx_dropped.
 */
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/panic.h"
#include "boot/sched.h"

static spinlock_t console_lock = SPINLOCK_INIT;
static struct {                       /* console_lock */
	void (*fn)(void *ctx, const char *s, size_t n);
	void *ctx;
	struct thread *thread;
} tap;

void console_tap(void (*fn)(void *ctx, const char *s, size_t n), void *ctx)
{
	unsigned long f = spin_lock_irqsave(&console_lock);
	tap.fn = fn;
	tap.ctx = ctx;
	tap.thread = fn ? current_thread() : NULL;
	spin_unlock_irqrestore(&console_lock, f);
}

void console_write(const char *s, size_t n)
{
	bool locked = !panic_in_progress();
	unsigned long f = 0;
	if (locked)
		f = spin_lock_irqsave(&console_lock);
	if (tap.fn && tap.thread == current_thread() && locked)
		tap.fn(tap.ctx, s, n);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			arch_console_putc('\r');
		arch_console_putc(s[i]);
	}
	if (locked)
		spin_unlock_irqrestore(&console_lock, f);
}

#define RX_SIZE 4096
static char rx_buf[RX_SIZE];
static unsigned rx_head, rx_tail;      /* rx_lock; head == tail: empty */
static unsigned long rx_dropped;
static spinlock_t rx_lock = SPINLOCK_INIT;
static struct waitq rx_wq = WAITQ_INIT;

void console_rx(char c)
{
	spin_lock(&rx_lock);               /* interrupt context: already off */
	if (rx_head - rx_tail < RX_SIZE)
		rx_buf[rx_head++ % RX_SIZE] = c;
	else
		rx_dropped++;
	spin_unlock(&rx_lock);
	waitq_wake_all(&rx_wq);
}

int console_trygetc(void)
{
	int c = -1;
	unsigned long f = spin_lock_irqsave(&rx_lock);
	if (rx_tail != rx_head)
		c = (unsigned char)rx_buf[rx_tail++ % RX_SIZE];
	spin_unlock_irqrestore(&rx_lock, f);
	return c;
}

static bool rx_ready(void *unused)
{
	return __atomic_load_n(&rx_head, __ATOMIC_ACQUIRE) != rx_tail;
}

int console_getc(void)
{
	for (;;) {
		int c = console_trygetc();
		if (c >= 0)
			return c;
		waitq_wait(&rx_wq, rx_ready, NULL);
	}
}
