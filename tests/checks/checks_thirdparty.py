#!/usr/bin/env python3
"""checks_thirdparty.py — real third-party C libraries as APPs, traced by
baretrace and by uftrace, compared call by call (DESIGN.md 3.11).

Each library (LIBS) lives unchanged under tests/apps/NAME/third_party/ with
its LICENSE and a SOURCE note listing every file's SHA-256 (the Debian
source package's upstream tarball); a small driver, tests/apps/NAME/main.c,
runs a fixed workload from app_main() and checks its results.

Per library and arch:
  - the sources are the tarball's (SHA-256 of every file, nothing else there);
  - the driver is built for the host with the guest's x86-64 flags plus
    `-pg -mfentry` and recorded by `uftrace record -a -R .@retval -F app_main`
    (library calls kept: uftrace follows longjmp through its hooks on them),
    then `uftrace replay -f none`;
  - the APP is built for the arch and booted with function_graph,
    funcgraph-args and funcgraph-retval, set_graph_function=app_main (the
    APP thread only), interrupts left out, the library's function filter;
    the trace printed at the end is read from the serial log;
  - both become call trees (tests/checks/graphcmp.py), projected onto the same
    functions: the library's filter globs, among the functions the APP
    defines (the host's libc calls and the guest's kernel calls are
    neither's: they leave);
  - compared call by call: order, nesting, names, returns, integer
    arguments and return values exactly, pointers as NULL or not, strings
    where noted below.  Any difference fails, and the first ones are shown.
Differences that are legitimate are handled by rule, each named in the
output with how many values it covered (Stats.skipped):
  - floating point arguments and returns: the guest records integer
    argument registers only ("(float)");
  - pointers: addresses differ between host and guest; NULL or not is
    compared;
  - GCC clones (foo.constprop.0, .isra, .part): matched by their base name,
    their arguments not compared (the clone's parameters are not the
    source's: BTF has no signature for them, uftrace prints none);
  - a name several functions share (Lua's lauxlib.c `panic`, which the
    driver calls, and the kernel's boot/panic.c one) is compared like any
    other: the guest prints each function's own signature (by address:
    tools/btfaddr.py), and the comparison takes the APP's, the FUNC that
    build/ARCH/kernel.btf.addrs gives the definition in the APP's sources;
  - the host's return register beyond the return type's size (uftrace
    reads %rax whole; the ABI defines only the type's bytes);
  - strings: compared in every function but NO_STRINGS (lua_pushlstring,
    luaL_addlstring: they take a length, both tracers print past it, and
    those bytes differ); the guest captures them at the call, so a buffer
    changed or freed since prints as it was;
  - values that differ from run to run by the library's design, listed per
    library (`unstable`, by caller and function: Lua's math library seeds
    its random generator from time(NULL) and an address);
  - functions inlined on one side only, listed per library and arch
    (`inlined_on_host`, `inlined_in_guest`), each with its reason, and
    checked to be called on that side only: cJSON's compare_double (glibc's
    <math.h> declares fabs `const`, newlib's does not, and GCC inlines it
    on the host only).  aarch64 GCC 12 inlines exactly what x86-64 GCC 12
    does in these two libraries with these flags.
A mutation check runs the comparator on altered copies of the host trace
(a call dropped, a call moved up a level, an integer argument, a return
value, a string, a return removed, each deep in the trace): each must be
reported.

Run alone: tests/checks/checks_thirdparty.py [--arch arm64|x86_64] [--lib cjson|lua]
"""
import argparse
import copy
import fnmatch
import glob
import hashlib
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import btfsig  # noqa: E402
import graphcmp  # noqa: E402
from checklib import run  # noqa: E402

WORK = os.path.join(ROOT, "build", "thirdparty")

# The guest's x86-64 code generation (Makefile CFLAGS_BASE, arch/x86_64/
# build.mk), with uftrace's entry hook instead of a NOP site.
HOST_CFLAGS = ["-std=gnu11", "-O2", "-g", "-ffreestanding", "-fno-pic", "-fno-pie",
               "-fno-stack-protector", "-fno-omit-frame-pointer", "-fno-common",
               "-m64", "-march=x86-64", "-mno-red-zone", "-pg", "-mfentry", "-DHOST_MAIN"]


class Lib:
    def __init__(self, name, third, expect, globs=None, buf="4m",
                 inlined_on_host=None, inlined_in_guest=None, unstable=None):
        self.name, self.app = name, os.path.join("tests/apps", name)
        self.third = os.path.join(self.app, third)
        self.expect, self.globs, self.strings, self.buf = expect, globs, AllBut(NO_STRINGS), buf
        # {arch: {function: why}}: called out of line on one side only.
        self.inlined_on_host = inlined_on_host or {}
        self.inlined_in_guest = inlined_in_guest or {}
        # {(caller, function): why}: values that differ from run to run.
        self.unstable = unstable or {}


class AllBut(frozenset):
    """Every function name but these."""
    def __contains__(self, name):
        return not frozenset.__contains__(self, name)


# Strings are compared in every function but these (see the docstring).
NO_STRINGS = ("lua_pushlstring", "luaL_addlstring")

LIBS = [
    # Every function of cJSON and the driver.  (get_object_item's name is
    # also an item's key on the heap, from cJSON_Compare, freed before the
    # trace is printed: compared since strings are captured at the call.)
    Lib("cjson", "third_party/cjson", "cjson: all checks passed",
        inlined_on_host={a: {
            "compare_double": "glibc's <math.h> declares fabs const, newlib's does not: with "
                              "glibc's the host's GCC finds it cheap enough to inline"}
            for a in ("arm64", "x86_64")}),
    # Lua: its C API, the auxiliary library and the standard libraries'
    # entry points, the calls a C program and a script make (lua_*, luaL_*,
    # luaopen_*, luaB_*: 1,055 calls); the core's internals (luaV_,
    # luaD_, luaH_: ten times as many) would make the trace long, not the
    # test stronger.
    Lib("lua", "third_party/lua", "lua: all checks passed",
        globs=["app_main", "lua_*", "luaL_*", "luaopen_*", "luaB_*", "str_*", "math_*",
               "tconcat", "panic"],
        unstable={("luaopen_math", "lua_pushinteger"):
                  "math's random seed: time(NULL) and the lua_State's address "
                  "(lmathlib.c, randseed), pushed as integers"}),
]


# ---- the sources -----------------------------------------------------------------

def check_sources(lib):
    """(ok, detail): every file under the library's directory is listed in
    its SOURCE note with the tarball's SHA-256, or is SOURCE, or LICENSE."""
    note = os.path.join(ROOT, lib.third, "SOURCE")
    try:
        with open(note) as f:
            listed = dict((p, h) for h, p in re.findall(r"^([0-9a-f]{64})  (\S+)$", f.read(), re.M))
    except OSError as e:
        return False, "no SOURCE note: %s" % e
    if not listed:
        return False, "%s lists no files" % note
    bad = []
    present = set()
    for dirpath, _dirs, files in os.walk(os.path.join(ROOT, lib.third)):
        for fn in files:
            rel = os.path.relpath(os.path.join(dirpath, fn), os.path.join(ROOT, lib.third))
            present.add(rel)
            if rel in ("SOURCE", "LICENSE") and rel not in listed:
                continue
            if rel not in listed:
                bad.append("%s: not in SOURCE" % rel)
                continue
            with open(os.path.join(dirpath, fn), "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != listed[rel]:
                    bad.append("%s: SHA-256 differs from SOURCE's" % rel)
    bad += ["%s: listed in SOURCE, missing" % p for p in sorted(set(listed) - present)]
    if "LICENSE" not in present:
        bad.append("no LICENSE")
    return not bad, "\n".join(bad) or "%d files as listed" % len(listed)


# ---- the host trace (uftrace) -----------------------------------------------------

def app_mk(lib):
    """The APP's app.mk variables (VAR := value / VAR = value), values split
    as the shell splits make's command lines."""
    out = {}
    path = os.path.join(ROOT, lib.app, "app.mk")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = re.match(r"^\s*([A-Z_]+)\s*:?=\s*(.*)$", line)
                if m:
                    out[m.group(1)] = shlex.split(m.group(2))
    return out


def app_sources(lib):
    """The APP's *.c, as the Makefile finds them (every subdirectory)
    without app.mk's APP_EXCLUDE (files, globs, directories)."""
    app = os.path.join(ROOT, lib.app)
    out = []
    for path in sorted(glob.glob(os.path.join(app, "**", "*.c"), recursive=True)):
        rel = os.path.relpath(path, app)
        if not any(fnmatch.fnmatchcase(rel, p.rstrip("/")) or rel.startswith(p.rstrip("/") + "/")
                   for p in app_mk(lib).get("APP_EXCLUDE", [])):
            out.append(path)
    return out


def host_build(lib):
    """(path of the host program or None, output)."""
    os.makedirs(WORK, exist_ok=True)
    prog = os.path.join(WORK, "host-" + lib.name)
    mk = app_mk(lib)
    flags = [f if not f.startswith("-I") or f.startswith("-I/") else
             "-I" + os.path.join(ROOT, lib.app, f[2:]) for f in mk.get("APP_CPPFLAGS", [])]
    cmd = ["gcc"] + HOST_CFLAGS + ["-w", "-I" + os.path.join(ROOT, lib.app)] + flags + \
        mk.get("APP_CFLAGS", []) + app_sources(lib) + ["-no-pie", "-lm", "-o", prog]
    rc, out, _ = run(["nice"] + cmd, 600)
    return (prog if rc == 0 else None), out


def host_trace(lib, prog):
    """(uftrace replay text or None, output)."""
    data = prog + ".uftrace"
    rc, out, _ = run(["uftrace", "record", "-a", "-R", ".@retval", "-F", "app_main",
                      "-d", data, prog], 300)
    if rc != 0 or lib.expect not in out:
        return None, out
    p = subprocess.run(["uftrace", "replay", "-d", data, "-f", "none", "--no-event"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    text = p.stdout.decode("latin-1")
    return (text if p.returncode == 0 else None), text


def defined_functions(paths, nm="nm"):
    """Base names of the functions the objects or programs at paths define."""
    rc, out, _ = run([nm, "--defined-only"] + paths, 120)
    return {graphcmp.base_name(m.group(1)) for m in re.finditer(r"^[0-9a-f]+ [tTW] (\S+)$", out, re.M)}


# ---- the guest trace (baretrace) --------------------------------------------------

def cmdline(lib, strings):
    opts = "funcgraph-args,funcgraph-retval,nofuncgraph-irqs"
    if strings:
        opts += ",funcgraph-args-string"
    words = ["ftrace=function_graph", "ftrace_graph_filter=app_main",
             "trace_options=" + opts, "trace_buf_size=" + lib.buf]
    if lib.globs:
        words.append("ftrace_filter=" + ",".join(lib.globs))
    return " ".join(words)


def guest_trace(arch, lib, boot, save_log):
    """(trace text or None, output, build dir)."""
    rc, out, _ = run(["nice", "make", "-s", "ARCH=" + arch, "kernel", "APP=" + lib.app], 900)
    if rc != 0:
        return None, out, None
    rc2, elf, _ = run(["make", "-s", "--no-print-directory", "ARCH=" + arch, "print-kernel",
                       "APP=" + lib.app], 60)
    bdir = os.path.dirname(elf.strip().splitlines()[-1])
    rc, out, _ = boot(arch, cmdline(lib, True), lib.app)
    save_log("%s-thirdparty-%s" % (arch, lib.name), out)
    if rc != 0 or lib.expect not in out:
        return None, out, bdir
    i = out.find("# tracer: function_graph")
    return (out[i:] if i >= 0 else None), out, bdir


# ---- comparison ---------------------------------------------------------------------

def keep_for(lib, app_funcs):
    glob_ok = graphcmp.glob_keep(lib.globs) if lib.globs else (lambda n: True)
    return lambda n: graphcmp.base_name(n) in app_funcs and glob_ok(n)


def trees(lib, arch, guest_text, host_text, app_funcs):
    """The two projected trees, and what is wrong with the library's lists
    of functions inlined on one side (each must be called on that side only)."""
    keep = keep_for(lib, app_funcs)
    guest = graphcmp.project(graphcmp.parse_guest(guest_text), keep)
    host = graphcmp.project(graphcmp.parse_host(host_text), keep)
    bad = []
    for names, here, there, side in ((lib.inlined_on_host.get(arch, {}), guest, host, "guest"),
                                     (lib.inlined_in_guest.get(arch, {}), host, guest, "host")):
        for n in sorted(names):
            if n not in graphcmp.names(here) or n in graphcmp.names(there):
                bad.append("%s: listed as called in the %s trace only, it is not" % (n, side))
    drop = set(lib.inlined_on_host.get(arch, {})) | set(lib.inlined_in_guest.get(arch, {}))
    if drop:
        guest = graphcmp.project(guest, lambda n: n not in drop)
        host = graphcmp.project(host, lambda n: n not in drop)
    return guest, host, bad


def summary(st):
    skipped = "; ".join("%s: %d" % kv for kv in sorted(st.skipped.items()))
    return "%d calls, %d integers, %d pointers (NULL or not), %d strings compared; " \
        "not compared: %s" % (st.calls, st.ints, st.ptrs, st.strs, skipped or "nothing")


def matching(calls, pred, acc=None):
    """Every call pred accepts, in trace order."""
    acc = [] if acc is None else acc
    for c in calls:
        if pred(c):
            acc.append(c)
        matching(c.children, pred, acc)
    return acc


def middle(calls, pred):
    """The middle one of the calls pred accepts (deep in the trace, not the
    root), or None."""
    found = matching(calls, pred)
    return found[len(found) // 2] if found else None


MUTATIONS = 6


def mutations(lib, host, sigs, untyped):
    """[(what, altered copy of the host tree)]: MUTATIONS of them, each a
    change the comparison must report (values only of functions the guest
    printed with a signature: not in `untyped`)."""
    def sig(c):
        ok = c.name == graphcmp.base_name(c.name) and c.name not in untyped
        return sigs.get(c.name) if ok else None

    def arg_of(c, kinds, value_kind):
        s = sig(c)
        if not s or c.name in [n for _, n in lib.unstable]:
            return None
        if value_kind == "str" and c.name not in lib.strings:
            return None
        for i, (k, _) in enumerate(s.params):
            if k in kinds and i < len(c.args) and c.args[i].kind == value_kind and \
                    (value_kind != "str" or c.args[i].v):
                return i
        return None

    def int_ret(c):
        s = sig(c)
        return s and c.returned and s.ret[0] in (btfsig.INT, btfsig.UINT) and \
            c.ret is not None and c.name not in [n for _, n in lib.unstable]

    out = []
    h = copy.deepcopy(host)
    parent = middle(h, lambda c: c.children)
    if parent:
        gone = parent.children.pop(len(parent.children) // 2)
        out.append(("a call dropped (%s)" % gone.name, h))
    h = copy.deepcopy(host)
    parent = middle(h, lambda c: c.children and c.children[0].children)
    if parent:
        kid = parent.children[0]
        grandkid = kid.children.pop(0)
        parent.children.insert(1, grandkid)
        out.append(("a call moved up a level (%s)" % grandkid.name, h))
    h = copy.deepcopy(host)
    c = middle(h, lambda c: arg_of(c, (btfsig.INT, btfsig.UINT), "int") is not None)
    if c:
        i = arg_of(c, (btfsig.INT, btfsig.UINT), "int")
        c.args[i] = graphcmp.Val("int", c.args[i].v + 1, text=str(c.args[i].v + 1))
        out.append(("an integer argument changed (%s)" % c.name, h))
    h = copy.deepcopy(host)
    c = middle(h, int_ret)
    if c:
        c.ret = graphcmp.Val("int", c.ret.v ^ 4, text=str(c.ret.v ^ 4))
        out.append(("a return value changed (%s)" % c.name, h))
    h = copy.deepcopy(host)
    c = middle(h, lambda c: arg_of(c, (btfsig.STR,), "str") is not None)
    if c:
        i = arg_of(c, (btfsig.STR,), "str")
        a = c.args[i]
        c.args[i] = graphcmp.Val("str", "#" + a.v[1:], a.cut, text=a.text)
        out.append(("a string argument changed (%s)" % c.name, h))
    h = copy.deepcopy(host)
    c = middle(h, lambda c: c.returned and c.children)
    if c:
        c.returned = False
        out.append(("a return removed (%s)" % c.name, h))
    return out


def app_signatures(lib, bdir):
    """{name: Sig or None} of the image's BTF, where a name several
    functions share is the APP's own definition's (kernel.btf.addrs:
    "ADDRESS ID NAME COMPILATION-UNIT", tools/btfaddr.py)."""
    with open(os.path.join(bdir, "kernel.btf"), "rb") as f:
        blob = f.read()
    sigs, funcs = btfsig.signatures(blob), btfsig.func_signatures(blob)
    with open(os.path.join(bdir, "kernel.btf.addrs")) as f:
        for line in f:
            _addr, tid, fname, cu = line.rstrip("\n").split(" ", 3)
            if cu.startswith(lib.app + "/"):
                sigs[fname] = funcs[int(tid)][1]
    return sigs


def compare_lib(arch, lib, report, boot, save_log, host_cache):
    name = "%s thirdparty %s" % (arch, lib.name)
    prog, host_text, hout = host_cache[lib.name]
    if not host_text:
        report(False, "%s: the host program under uftrace" % name, hout)
        return
    guest_text, gout, bdir = guest_trace(arch, lib, boot, save_log)
    report(guest_text is not None, "%s: the APP builds, runs and passes its checks" % name, gout)
    if guest_text is None:
        return
    try:
        sigs = app_signatures(lib, bdir)
    except (OSError, ValueError, KeyError, btfsig.BTFError) as e:
        report(False, "%s: the image's BTF" % name, str(e))
        return
    cross = "aarch64-linux-gnu-nm" if arch == "arm64" else "nm"
    objs = glob.glob(os.path.join(bdir, "app", "**", "*.o"), recursive=True)
    app_funcs = defined_functions([prog]) | defined_functions(objs, cross)
    guest, host, bad = trees(lib, arch, guest_text, host_text, app_funcs)
    diffs, st = graphcmp.compare_trees(guest, host, sigs, lib.strings, lib.unstable)
    diffs = bad + diffs
    for n, why in sorted(list(lib.inlined_on_host.get(arch, {}).items()) +
                         list(lib.inlined_in_guest.get(arch, {}).items())):
        st.skip("%s: %s" % (n, why))
    ok = not diffs and graphcmp.count(guest) > 0
    report(ok, "%s: function_graph equals uftrace's (%s)" % (name, summary(st)),
           "\n".join(diffs) or "no calls traced")
    if not ok:
        return
    untyped = {c.name for c in matching(guest, lambda c: not c.typed)}
    muts = mutations(lib, host, sigs, untyped)
    missed = [what for what, h in muts
              if not graphcmp.compare_trees(guest, h, sigs, lib.strings, lib.unstable)[0]]
    report(len(muts) == MUTATIONS and not missed,
           "%s: the comparison fails on %d altered host traces (%s)" %
           (name, len(muts), ", ".join(w for w, _ in muts)),
           "not caught: %s" % ", ".join(missed) if missed else "only %d mutations built" % len(muts))


def host_side(report, host_cache, libs=None):
    """What every arch compares with, made once into host_cache: per
    library its sources checked (reported) and uftrace's trace of the
    driver built for the host."""
    for lib in LIBS:
        if libs and lib.name not in libs:
            continue
        if "sources" not in host_cache.setdefault(lib.name + ":done", set()):
            ok, detail = check_sources(lib)
            report(ok, "thirdparty %s: sources as the Debian tarball's (%s)" %
                   (lib.name, detail if ok else "SOURCE"), detail)
            host_cache[lib.name + ":done"].add("sources")
        if lib.name not in host_cache:
            prog, out = host_build(lib)
            text = None
            if prog:
                text, out = host_trace(lib, prog)
            host_cache[lib.name] = (prog, text, out)


def thirdparty(arch, report, boot, save_log, host_cache=None, libs=None):
    """tests/run.py's group `thirdparty` for one arch (host_side first if
    host_cache lacks it)."""
    host_cache = {} if host_cache is None else host_cache
    host_side(report, host_cache, libs)
    for lib in LIBS:
        if libs and lib.name not in libs:
            continue
        compare_lib(arch, lib, report, boot, save_log, host_cache)


def main():
    from checklib import log_saver, reporter
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", action="append")
    ap.add_argument("--lib", action="append")
    args = ap.parse_args()
    results = []
    report = reporter(results)
    logs = os.path.join(ROOT, "build", "test-logs")
    save_log = log_saver(logs)

    def boot(arch, cmd, app):
        rc, elf, _ = run(["make", "-s", "--no-print-directory", "ARCH=" + arch, "print-kernel",
                          "APP=" + app], 60)
        return run(["tools/qemu-run.sh", arch, elf.strip().splitlines()[-1], cmd], 330,
                   env={"SMP": "2", "TIMEOUT": "300"})

    cache = {}
    for arch in args.arch or ["arm64", "x86_64"]:
        thirdparty(arch, report, boot, save_log, cache, args.lib)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
