/*
 * uart.c — PL011 driver: polled output, interrupt-driven input.
 *
 * arch_console_putc() may run on any CPU at once, from any context,
 * including panic with other CPUs stopped; it takes no lock (boot/console.c
 * serialises whole lines).  Only CPU 0 takes the RX interrupt, so
 * uart_rx_drain() has a single caller at a time.
 */
#include "uart.h"
#include "boot/console.h"
#include "io.h"

/* PL011 registers and bits. */
#define UARTDR     0x00
#define UARTFR     0x18
#define UARTLCR_H  0x2c
#define UARTCR     0x30
#define UARTIFLS   0x34
#define UARTIMSC   0x38
#define UARTICR    0x44

#define FR_RXFE    (1u << 4)
#define FR_TXFF    (1u << 5)
#define LCR_FEN    (1u << 4)
#define LCR_WLEN8  (3u << 5)
#define CR_UARTEN  (1u << 0)
#define CR_TXE     (1u << 8)
#define CR_RXE     (1u << 9)
#define INT_RX     (1u << 4)
#define INT_RT     (1u << 6)
#define INT_ALL    0x7ffu

/* QEMU virt's PL011; replaced by the DTB's value in uart_init(). */
static uintptr_t uart_base = 0x09000000;

void uart_init(uintptr_t base)
{
	uart_base = base;
	/* Baud-rate divisors are left as firmware set them (QEMU ignores them). */
	mmio_write32(uart_base + UARTCR, 0);
	mmio_write32(uart_base + UARTIMSC, 0);
	mmio_write32(uart_base + UARTICR, INT_ALL);
	mmio_write32(uart_base + UARTLCR_H, LCR_WLEN8 | LCR_FEN);
	mmio_write32(uart_base + UARTIFLS, 0);        /* RX interrupt at 1/8 full */
	mmio_write32(uart_base + UARTCR, CR_UARTEN | CR_TXE | CR_RXE);
}

void arch_console_putc(char c)
{
	while (mmio_read32(uart_base + UARTFR) & FR_TXFF)
		__asm__ volatile("yield");
	mmio_write32(uart_base + UARTDR, (uint8_t)c);
}

void uart_puts(const char *s)
{
	while (*s)
		arch_console_putc(*s++);
}

void uart_rx_irq_enable(void)
{
	mmio_write32(uart_base + UARTICR, INT_RX | INT_RT);
	mmio_write32(uart_base + UARTIMSC, INT_RX | INT_RT);
}

void uart_rx_drain(void)
{
	/* Clear first, then empty the FIFO: a byte that arrives after the last
	 * empty check raises RX again.  (Clearing after the loop could wipe the
	 * interrupt of a byte that came in between, which then sat unread.) */
	mmio_write32(uart_base + UARTICR, INT_RX | INT_RT);
	while (!(mmio_read32(uart_base + UARTFR) & FR_RXFE))
		console_rx((char)(mmio_read32(uart_base + UARTDR) & 0xff));
}
