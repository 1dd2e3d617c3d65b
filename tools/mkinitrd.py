#!/usr/bin/env python3
"""mkinitrd.py OUT.cpio KERNEL.btf DATADIR — pack an APP's data directory.

Writes a cpio "newc" archive (the format Linux's initramfs reads: a
110-byte ASCII header per member, magic 070701, name and data each padded
to 4 bytes, ended by a member named TRAILER!!!).  The first member is
`kernel.btf`, the image's BTF module (btf=initrd); then every regular file
under DATADIR, named by its path below DATADIR ("sub/x.txt"), in sorted
order.  Directories are not members: the guest's file system is flat
(lib/fs.h).  Modification times are written as 0 so the archive depends
only on the contents; OUT is replaced only when those change.

Refused, with the reason and exit status 2, before anything is written:
a name longer than the guest takes (FS_NAME_MAX), more files than it
holds (FS_MAX_FILES), a data file named kernel.btf, anything that is not a
regular file or a directory (a link, a device).
"""
import os
import stat
import sys

FS_NAME_MAX = 127        # lib/fs.h: longest name, bytes
FS_MAX_FILES = 256       # lib/fs.h: names in the file system, kernel.btf not counted
BTF_NAME = "kernel.btf"


def member(name, data, mode):
    raw = name.encode() + b"\0"
    fields = (0, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(raw), 0)
    head = b"070701" + b"".join(b"%08X" % f for f in fields)
    pad = lambda n: b"\0" * (-n % 4)
    return head + raw + pad(len(head) + len(raw)) + data + pad(len(data))


def data_files(top):
    """(name, path) of every regular file under top, sorted; refuses the rest."""
    out = []
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for entry in sorted(files) + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            path = os.path.join(d, entry)
            name = os.path.relpath(path, top).replace(os.sep, "/")
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                sys.exit("mkinitrd: %s: not a regular file (links and devices are not packed)" % path)
            if len(name.encode()) > FS_NAME_MAX:
                sys.exit("mkinitrd: %s: name longer than %d bytes" % (name, FS_NAME_MAX))
            if name == BTF_NAME:
                sys.exit("mkinitrd: %s: the name %s is the BTF module's" % (path, BTF_NAME))
            out.append((name, path))
    if len(out) > FS_MAX_FILES:
        sys.exit("mkinitrd: %s: %d files, at most %d" % (top, len(out), FS_MAX_FILES))
    return sorted(out)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n")[0])
    out, btf, top = sys.argv[1:]
    if not os.path.isdir(top):
        sys.exit("mkinitrd: %s: no such directory" % top)
    try:
        files = data_files(top)
        parts = [member(BTF_NAME, open(btf, "rb").read(), 0o100444)]
        for name, path in files:
            parts.append(member(name, open(path, "rb").read(), 0o100644))
    except OSError as e:
        sys.exit("mkinitrd: %s" % e)
    parts.append(member("TRAILER!!!", b"", 0))
    blob = b"".join(parts)
    try:
        with open(out, "rb") as f:
            if f.read() == blob:
                return
    except OSError:
        pass
    with open(out + ".tmp", "wb") as f:
        f.write(blob)
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    try:
        main()
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
