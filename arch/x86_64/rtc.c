/*
 * rtc.c — the PC's CMOS real-time clock (MC146818, which QEMU's q35 has)
 * as seconds since the epoch (arch/hooks.h: arch_rtc_seconds).  QEMU sets
 * it to the host's time, UTC (-rtc base=utc, the default).
 *
 * Registers through index port 0x70 / data port 0x71: 0 seconds, 2 minutes,
 * 4 hours, 7 day of month, 8 month, 9 year in the century, 0x32 the century
 * (the one the ACPI FADT names on QEMU); status A bit 7 is set while the
 * chip updates the time; status B bit 2 means binary (else BCD) and bit 1
 * 24-hour mode (else bit 7 of the hour is PM).  A read that straddles an
 * update is caught by reading until two reads agree.
 */
#include "arch/x86_64/x86.h"
#include "arch/hooks.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA  0x71
enum { R_SEC = 0, R_MIN = 2, R_HOUR = 4, R_MDAY = 7, R_MON = 8, R_YEAR = 9,
       R_STATUS_A = 0x0a, R_STATUS_B = 0x0b, R_CENTURY = 0x32 };
#define STATUS_A_UIP    0x80
#define STATUS_B_24H    0x02
#define STATUS_B_BINARY 0x04
#define RTC_TRIES       1000000    /* an update lasts under 2 ms */

static uint8_t cmos_read(uint8_t reg)
{
	outb(CMOS_INDEX, reg);
	return inb(CMOS_DATA);
}

struct rtc_regs {
	uint8_t sec, min, hour, mday, mon, year, century, b;
};

static int read_regs(struct rtc_regs *r)
{
	unsigned n = 0;
	while (cmos_read(R_STATUS_A) & STATUS_A_UIP)
		if (++n == RTC_TRIES)
			return -1;
	*r = (struct rtc_regs){ cmos_read(R_SEC), cmos_read(R_MIN), cmos_read(R_HOUR),
				cmos_read(R_MDAY), cmos_read(R_MON), cmos_read(R_YEAR),
				cmos_read(R_CENTURY), cmos_read(R_STATUS_B) };
	return 0;
}

static unsigned from_bcd(uint8_t v, int binary) { return binary ? v : (v & 15) + (v >> 4) * 10; }

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (m 1..12). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;                                   /* 0..399 */
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  /* from March 1 */
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int64_t arch_rtc_seconds(void)
{
	struct rtc_regs a, b;
	int tries = 5;
	do {
		if (read_regs(&a) < 0 || read_regs(&b) < 0)
			return -1;
	} while (__builtin_memcmp(&a, &b, sizeof a) != 0 && --tries);
	if (!tries)
		return -1;
	int bin = a.b & STATUS_B_BINARY;
	unsigned hour = from_bcd(a.hour & 0x7f, bin);
	if (!(a.b & STATUS_B_24H))
		hour = hour % 12 + (a.hour & 0x80 ? 12 : 0);
	unsigned sec = from_bcd(a.sec, bin), min = from_bcd(a.min, bin);
	unsigned mday = from_bcd(a.mday, bin), mon = from_bcd(a.mon, bin);
	unsigned century = from_bcd(a.century, bin);
	int64_t year = (century >= 19 && century <= 99 ? century : 20) * 100 + from_bcd(a.year, bin);
	if (sec > 59 || min > 59 || hour > 23 || mday < 1 || mday > 31 || mon < 1 || mon > 12)
		return -1;
	return ((days_from_civil(year, mon, mday) * 24 + hour) * 60 + min) * 60 + sec;
}
