# Lua's string-hash seed (lstate.c's luai_makeseed, used only if not defined):
# a constant, so that every run, on every machine, hashes and calls alike.
APP_CPPFLAGS := '-Dluai_makeseed(L)=0x2545f491u'
