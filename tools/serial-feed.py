#!/usr/bin/env python3
"""serial-feed.py SCRIPT -- QEMU ARGS... — type a script into the guest's shell.

Runs QEMU with the serial console on stdio, copies everything the guest
prints to our stdout, and types one line of SCRIPT each time the shell shows
its prompt ("trace> "), then Ctrl-D, which ends the shell's script mode.
Typing only at a prompt means nothing is sent while the UART is still being
set up (a reset drops what it holds) and the guest's input buffer never
overflows.  Exits with QEMU's status.
"""
import os
import subprocess
import sys

PROMPT = b"trace> "


def main():
    script_path = sys.argv[1]
    qemu = sys.argv[sys.argv.index("--") + 1:]
    with open(script_path, "rb") as f:
        lines = [l.rstrip(b"\r\n") for l in f.read().splitlines()]
    p = subprocess.Popen(qemu, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = sys.stdout.buffer
    tail = b""
    sent_eof = False
    while True:
        chunk = os.read(p.stdout.fileno(), 4096)
        if not chunk:
            break
        out.write(chunk)
        out.flush()
        tail = (tail + chunk)[-64:]
        while PROMPT in tail and not sent_eof:
            tail = tail[tail.index(PROMPT) + len(PROMPT):]
            try:
                if lines:
                    p.stdin.write(lines.pop(0) + b"\n")
                else:
                    p.stdin.write(b"\x04")
                    sent_eof = True
                p.stdin.flush()
            except BrokenPipeError:
                break
    sys.exit(p.wait())


main()
