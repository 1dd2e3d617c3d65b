/*
 * test_dump.c — trace/dump.c in the guest: the frames' CRC, warn() with
 * traceoff_on_warning, and a binary dump of the live buffer (its frames are
 * checked on the host: tests/host/test_export.py, tests/checks/export_checks.py).
 */
#include "boot/cmdline.h"
#include "boot/panic.h"
#include "boot/test.h"
#include "trace/boot.h"
#include "trace/dump.h"
#include "trace/trace.h"

TEST_CASE(dump, crc32_is_zlibs)
{
	EXPECT_EQ(dump_crc32(0, "123456789", 9), 0xcbf43926u);
	EXPECT_EQ(dump_crc32(dump_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
	EXPECT_EQ(dump_crc32(0, "", 0), 0u);
}

TEST_CASE(dump, traceoff_on_warning_stops_recording)
{
	ASSERT_TRUE(trace_buffer != NULL);
	void (*saved)(void) = warn_hook;
	ASSERT_EQ(cmdline_parse("traceoff_on_warning"), 0);
	ASSERT_TRUE(warn_hook != NULL);
	bool was_on = tracing_is_on();
	warn("deliberate warning from the dump suite");
	EXPECT_TRUE(!rb_record_is_on(trace_buffer, 0));
	EXPECT_TRUE(!tracing_is_on());                 /* what `cat tracing_on` shows */
	if (was_on)
		tracing_on();
	EXPECT_EQ(rb_record_is_on(trace_buffer, 0), was_on);
	warn_hook = saved;
}

TEST_CASE(dump, binary_dump_of_the_live_buffer)
{
	EXPECT_EQ(dump_binary(), 0);
	EXPECT_EQ(dump_command("extra"), -1);
}
