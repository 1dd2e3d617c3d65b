/* Lua 5.4, unchanged (third_party/lua/src), driven by a fixed script: the
 * standard libraries opened, recursion, tables, string.format's %.14g over
 * libm results, string methods, and an error raised and caught by pcall
 * (lua_error's longjmp out of traced C functions).  The script's result is
 * one line, checked here; app_main returns 0 only if it is the expected one.
 * Then the auxiliary library's panic handler (lauxlib.c's static `panic`,
 * a name the kernel's panic() also has) is called as Lua calls it for an
 * error outside any pcall, just before Lua would abort().
 *
 * String hashes: Lua seeds them from time(NULL) and three addresses
 * (lstate.c's luai_makeseed, used only if the build does not define it);
 * the build defines it as a constant so that tables fill, and calls
 * happen, the same on every run and machine.
 *
 * The same file builds for the host (-DHOST_MAIN gives it a main()) so that
 * uftrace can record the same calls: tests/checks/checks_thirdparty.py compares the
 * two function_graph traces. */
#include <stdio.h>
#include <string.h>

#include "third_party/lua/src/lua.h"
#include "third_party/lua/src/lauxlib.h"
#include "third_party/lua/src/lualib.h"

static const char script[] =
	"local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end\n"
	"local squares = {}\n"
	"for i = 1, 8 do squares[#squares + 1] = i * i end\n"
	"local ok, err = pcall(function() error({code = 7}) end)\n"
	"local ok2, msg = pcall(error, 'boom', 0)\n"
	"local words = {}\n"
	"for w in ('trace your code'):gmatch('%a+') do words[#words + 1] = w:upper() end\n"
	"return string.format('%.14g %.14g %d %s %d %s %s %s', math.sin(1), math.sqrt(2),\n"
	"  fib(12), tostring(ok), err.code, msg, table.concat(squares, ','),\n"
	"  table.concat(words, '-'))\n";

static const char expected[] =
	"0.8414709848079 1.4142135623731 144 false 7 boom 1,4,9,16,25,36,49,64 TRACE-YOUR-CODE";

int app_main(void)
{
	lua_State *L = luaL_newstate();
	if (!L)
		return 2;
	luaL_openlibs(L);
	int status = luaL_loadstring(L, script);
	if (status == LUA_OK)
		status = lua_pcall(L, 0, 1, 0);
	const char *out = lua_tostring(L, -1);
	int ok = status == LUA_OK && out && strcmp(out, expected) == 0;
	printf("lua: %s\n", out ? out : "(no result)");

	lua_CFunction panicf = lua_atpanic(L, NULL);
	lua_pushliteral(L, "called by the driver");
	ok = ok && panicf && panicf(L) == 0;
	lua_atpanic(L, panicf);
	printf("lua: %s\n", ok ? "all checks passed" : "FAILED");
	lua_close(L);
	return ok ? 0 : 1;
}

#ifdef HOST_MAIN
int main(void)
{
	return app_main();
}
#endif
