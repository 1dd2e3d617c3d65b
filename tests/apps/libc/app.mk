# app.mk — this APP's build settings, read by the Makefile (README, "Writing
# an APP").  Paths are relative to this directory.
APP_CPPFLAGS = -Ivendor/include -DFMT_SEP='", "'
APP_NOTRACE  = vendor/raw/*.c
APP_DATA     = data
