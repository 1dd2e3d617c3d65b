/*
 * uart.h — the PL011 serial console.
 *
 * Output is polled (arch_console_putc in hooks.h), usable from the first
 * instruction of C on: before the DTB is parsed it assumes QEMU virt's
 * 0x09000000.  Input is interrupt-driven once uart_rx_irq_enable() ran.
 */
#ifndef ARM64_UART_H
#define ARM64_UART_H

#include <stdint.h>

/* Boot CPU, once, after fdt_parse(): take the DTB's base, set 8N1 + FIFOs. */
void uart_init(uintptr_t base);

/* Unmask the RX and RX-timeout interrupts in the UART (GIC side: irq.c). */
void uart_rx_irq_enable(void);

/* From the UART interrupt: hand every byte waiting to console_rx(). */
void uart_rx_drain(void);

/* Write a NUL-terminated string, polled, no newline translation. */
void uart_puts(const char *s);

#endif
