/*
 * uart.c — the 16550 UART at COM1 (I/O port 0x3F8): polled output,
 * interrupt-driven input.
 *
 * uart_init() once on the boot CPU before the first output (115200 8N1,
 * FIFOs on, receive interrupt still off).  uart_rx_enable() when the IOAPIC
 * routes IRQ 4 to CPU 0 (arch_cpu_irq_init on CPU 0).  uart_interrupt() runs
 * in that interrupt and hands every byte waiting in the FIFO to console_rx().
 *
 * arch_console_putc() takes no lock: serialisation of whole messages is the
 * console's job (boot/console.c), and panic output must get through even if
 * another CPU stopped while holding the console lock.
 */
#include "arch/x86_64/x86.h"
#include "boot/console.h"

#define COM1      0x3F8
#define RBR       0        /* receive buffer (DLAB=0, read) */
#define THR       0        /* transmit holding (DLAB=0, write) */
#define IER       1        /* interrupt enable (DLAB=0) */
#define DLL       0        /* divisor low (DLAB=1) */
#define DLM       1        /* divisor high (DLAB=1) */
#define FCR       2        /* FIFO control (write) */
#define LCR       3
#define MCR       4
#define LSR       5

#define IER_RX    0x01     /* received data available */
#define LCR_8N1   0x03
#define LCR_DLAB  0x80
#define FCR_INIT  0xC7     /* enable, clear RX and TX, 14-byte trigger */
#define MCR_INIT  0x0B     /* DTR, RTS, OUT2 (OUT2 gates the IRQ line on PCs) */
#define LSR_DR    0x01     /* data ready */
#define LSR_THRE  0x20     /* transmit holding register empty */

/* A real 16550 at 115200 baud drains a byte in ~87 us; this bound only
 * matters if the UART vanished, and then dropping output beats hanging. */
#define TX_SPIN_LIMIT 1000000

void uart_init(void)
{
	outb(COM1 + IER, 0);
	outb(COM1 + LCR, LCR_DLAB);
	outb(COM1 + DLL, 1);                /* 115200 baud */
	outb(COM1 + DLM, 0);
	outb(COM1 + LCR, LCR_8N1);
	outb(COM1 + FCR, FCR_INIT);
	outb(COM1 + MCR, MCR_INIT);
	(void)inb(COM1 + RBR);              /* drop anything stale */
}

void uart_rx_enable(void)
{
	outb(COM1 + IER, IER_RX);
}

void arch_console_putc(char c)
{
	for (unsigned i = 0; i < TX_SPIN_LIMIT && !(inb(COM1 + LSR) & LSR_THRE); i++)
		__asm__ volatile("pause");
	outb(COM1 + THR, (uint8_t)c);
}

void uart_interrupt(void)
{
	while (inb(COM1 + LSR) & LSR_DR)
		console_rx((char)inb(COM1 + RBR));
}
