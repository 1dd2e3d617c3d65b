"""checks_libc.py — the C library an APP gets (tests/run.py's app group).

APP=tests/apps/libc, a third-party-style layout (vendor/ with its own
include directory and defines from app.mk, a file kept uninstrumented, a
data directory), built and booted on one arch:
  - it builds, and the vendor file's warning stays a warning (no -Werror);
  - the APP_NOTRACE file has no patchable site, the other APP files do;
  - booted with its APP_DATA archive as -initrd and btf=initrd, the BTF
    module comes from the archive's kernel.btf and the APP prints exactly
    tests/apps/libc/expected.txt (formatted I/O, libm, files, time,
    process calls) and returns 0;
  - a truncated archive is refused at boot by name, none of it is used
    (the APP then finds no data file and fails);
and, on the host, tools/mkinitrd.py's refusals (a long name, a link, a
data file named kernel.btf), each with its message and no archive written.
"""
import os
import re
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = "tests/apps/libc"


def _make(run, arch, target):
    return run(["make", "-s", "--no-print-directory", "ARCH=" + arch, "APP=" + APP, target], 900)


def _site_of(arch, addr):
    """The site address the table records for a function (arch_site_func's inverse)."""
    return addr - 8 if arch == "arm64" else addr


def _notrace_checks(arch, report, elf):
    d = os.path.dirname(elf)
    syms = {}
    with open(os.path.join(d, "kernel.nm")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in "Tt":
                syms[parts[2]] = int(parts[0], 16)
    with open(os.path.join(d, "kernel.sites")) as f:
        sites = {int(x, 16) for x in f.read().split()}
    has = {name: name in syms and _site_of(arch, syms[name]) in sites
           for name in ("app_main", "fmt_join", "checksum_bytes")}
    report(has == {"app_main": True, "fmt_join": True, "checksum_bytes": False},
           "%s APP=%s: APP_NOTRACE file has no site, the others have (%s)" % (arch, APP, has))


def _app_output(out):
    m = re.search(r"^baretrace: running app\n(.*?)baretrace: app returned (-?\d+)$", out,
                  re.M | re.S)
    return (m.group(1), int(m.group(2))) if m else (None, None)


def libc_app(arch, run, report, save_log):
    # The vendor object is rebuilt each time so that its warning shows.
    elf = _make(run, arch, "print-kernel")[1].strip().splitlines()[-1]
    obj = os.path.join(os.path.dirname(elf), "app", "vendor", "fmt", "fmt.c.o")
    if os.path.exists(obj):
        os.remove(obj)
    rc, out, _ = _make(run, arch, "kernel")
    report(rc == 0, "%s APP=%s builds" % (arch, APP), out)
    if rc != 0:
        return
    warned = re.search(r"vendor/fmt/fmt\.c:\d+:\d+: warning: unused variable", out)
    report(warned is not None, "%s APP=%s: a third-party warning stays a warning" % (arch, APP),
           out)
    initrd = _make(run, arch, "print-initrd")[1].strip().splitlines()[-1]
    _notrace_checks(arch, report, elf)

    env = {"SMP": "2", "TIMEOUT": "120", "INITRD": initrd}
    rc, out, secs = run(["tools/qemu-run.sh", arch, elf, "btf=initrd"], 150, env=env)
    save_log("%s-app-libc" % arch, out)
    with open(os.path.join(ROOT, APP, "expected.txt")) as f:
        want = f.read()
    got, status = _app_output(out)
    btf = re.search(r"^btf: initrd: \d+ types, \d+ functions with signatures", out, re.M)
    ok = rc == 0 and status == 0 and got == want and btf is not None and \
        "initrd: cpio archive, " in out and "fs: 2 files from the initrd" in out
    detail = out
    if got is not None and got != want:
        import difflib
        detail = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                              "expected.txt", "got"))
    report(ok, "%s APP=%s prints expected.txt, BTF from the archive (%.0fs)" % (arch, APP, secs),
           detail)

    cut = os.path.join(ROOT, "build", "test-logs", arch + "-truncated.cpio")
    os.makedirs(os.path.dirname(cut), exist_ok=True)
    with open(initrd, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:-200])
    env["INITRD"] = cut
    rc, out, _ = run(["tools/qemu-run.sh", arch, elf, "btf=initrd"], 150, env=env)
    save_log("%s-app-libc-truncated" % arch, out)
    ok = rc != 0 and rc not in (99, 124) and \
        re.search(r"^initrd: cpio archive malformed at byte \d+: archive ends inside a header "
                  r"\(no TRAILER!!!\); none of it is used$", out, re.M) and \
        "btf: initrd: none" in out and "fopen hello.txt: No such file or directory" in out
    report(bool(ok), "%s a truncated APP_DATA archive is refused whole (got %d)" % (arch, rc), out)


def mkinitrd_refusals(report):
    tmp = tempfile.mkdtemp(prefix="bt-mkinitrd-")
    try:
        btf = os.path.join(tmp, "k.btf")
        with open(btf, "wb") as f:
            f.write(b"\x9f\xeb\x01\x00")
        cases = []
        d = os.path.join(tmp, "long")
        os.makedirs(d)
        open(os.path.join(d, "n" * 128), "w").close()
        cases.append((d, "name longer than 127 bytes"))
        d = os.path.join(tmp, "link")
        os.makedirs(d)
        os.symlink("/etc/hostname", os.path.join(d, "l"))
        cases.append((d, "not a regular file (links and devices are not packed)"))
        d = os.path.join(tmp, "btfname")
        os.makedirs(d)
        open(os.path.join(d, "kernel.btf"), "w").close()
        cases.append((d, "the name kernel.btf is the BTF module's"))
        for d, msg in cases:
            out = os.path.join(tmp, "out.cpio")
            p = subprocess.run([os.path.join(ROOT, "tools/mkinitrd.py"), out, btf, d],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            text = p.stdout.decode()
            ok = p.returncode == 2 and msg in text and "Traceback" not in text and \
                not os.path.exists(out)
            report(ok, "mkinitrd refuses %s: %s" % (os.path.basename(d), msg), text)
        d = os.path.join(tmp, "good")
        os.makedirs(os.path.join(d, "sub"))
        with open(os.path.join(d, "sub", "a.txt"), "w") as f:
            f.write("abc")
        p = subprocess.run([os.path.join(ROOT, "tools/mkinitrd.py"), out, btf, d])
        blob = open(out, "rb").read() if p.returncode == 0 else b""
        names = re.findall(rb"070701[0-9A-F]{104}([^\0]+)\0", blob)
        report(names == [b"kernel.btf", b"sub/a.txt", b"TRAILER!!!"] and len(blob) % 4 == 0,
               "mkinitrd packs kernel.btf first, then the data files by path (%s)" % names)
    finally:
        shutil.rmtree(tmp)
