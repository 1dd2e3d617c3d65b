#!/usr/bin/env python3
"""check-nofp.py — prove that FTRACE_HOT_NOFP callbacks never touch FP/SIMD
and never call a traced function.

Usage: check-nofp.py KERNEL.nm KERNEL.asm KERNEL.sites

KERNEL.nm is `nm -n` of the linked kernel, KERNEL.asm its `objdump -d`,
KERNEL.sites the sorted site table (tools/sort-sites.py: the compiler's
recorded addresses, one hex number a line).
Every function that starts in [__nofp_text_start, __nofp_text_end) is a root
(trace/core/ftrace.h, FTRACE_HOT_NOFP), and so is every register-preserving thunk
(a symbol ending in _preserving, arch/hooks.h: it saves no FP/SIMD register).
An FP-saving thunk (a symbol ending in _fpsaving, CALL_FPSAVING_VOID) is a
boundary: it must store every FP/SIMD argument register (arm64 q0-q7, x86-64
xmm0-xmm7) and what it calls is not checked.  From the roots, every function reached by
a direct call or a branch into another function (a tail call) is checked:
it must contain no instruction that names an FP/SIMD register (arm64 q/d/s/h/b
and v registers, FPCR/FPSR; x86-64 xmm/ymm/zmm/mm/st registers, x87
instructions) and no indirect call or branch (its target could not be
checked), and it must not be a function with a patchable site (a traced
one).  On success prints one line; otherwise prints each offence with the
call path that reaches it and exits 1, which fails the build:
  - the trampolines of FTRACE_OPS_FL_NOFP ops do not save the FP/SIMD
    argument registers, so a callback that clobbered them would corrupt the
    traced function's arguments;
  - these callbacks only test their context's recursion bit and do not take
    it (trace/core/recursion.h, ftrace_recursion_free_on), which is sound
    only while nothing they call can reach the tracer again, nor the
    scheduler (schedule, preempt_enable, preempt_check_resched,
    arch_switch, or a compiler's copy of one: refused whether traced or not;
    boot/sched.c relies on it).
Functions are told apart by address (two static functions may share a
name); a branch target or a site belongs to the function whose code holds
it.
"""
import bisect
import re
import sys

FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
# An instruction line: address, tab, bytes, tab, mnemonic.  (x86-64 objdump
# puts a long instruction's further bytes on a line of their own, with no
# second tab: not an instruction.)
INSN = re.compile(r"^\s*([0-9a-f]+):\t(?:[0-9a-f]{2,8} )+\s*\t(\S+)\s*(.*)$")
# Section markers (__nofp_text_start, __tramp_text_end, ...): labels, not code.
MARKER = re.compile(r"^__\w+_(?:start|end)$")
TARGET = re.compile(r"\b([0-9a-f]+) <[^>]+>")

ARM_FP_REG = re.compile(r"(?<![\w#.])(?:[qdshb](?:[0-9]|[12][0-9]|3[01])(?![\w.])|"
                        r"v(?:[0-9]|[12][0-9]|3[01])\.)")
X86_PREFIXES = {"notrack", "bnd", "rep", "repz", "repnz", "lock", "data16", "cs", "ds"}
X86_FP_REG = re.compile(r"%(?:xmm|ymm|zmm|mm|st)")
# The FP/SIMD argument registers an FP-saving thunk must keep.
FP_ARG_REG = {True: re.compile(r"(?<![\w#.])(q[0-7])(?![\w.])"),
              False: re.compile(r"%(xmm[0-7])(?!\d)")}
FP_ARG_NAMES = {True: {"q%d" % n for n in range(8)}, False: {"xmm%d" % n for n in range(8)}}


def stored_fp_args(mnemonic, ops, arm):
    """The FP/SIMD argument registers an instruction stores to memory:
    arm64 str/stp/stur's source registers (before the address), x86-64 a
    mov* whose source (AT&T: first) is one and whose destination is memory."""
    if arm:
        if mnemonic not in ("str", "stp", "stur"):
            return []
        return FP_ARG_REG[True].findall(ops.split("[")[0])
    if not mnemonic.startswith("mov") or "," not in ops:
        return []
    src, dst = ops.split(",", 1)
    return FP_ARG_REG[False].findall(src) if "(" in dst else []


ARM_DIRECT = {"bl", "b", "cbz", "cbnz", "tbz", "tbnz"}
ARM_INDIRECT = {"blr", "br", "braa", "brab", "blraa", "blrab"}


def parse_nm(path):
    syms = []
    for line in open(path):
        f = line.split()
        if len(f) == 3:
            syms.append((int(f[0], 16), f[1], f[2]))
    return syms


def parse_asm(path):
    """[(address, name, [(mnemonic, operands), ...]), ...] in address order;
    a function is the code from its label to the next label.  Functions are
    told apart by address: two static functions may share a name."""
    funcs = []
    for line in open(path):
        line = line.rstrip("\n")
        m = FUNC.match(line)
        if m:
            a, name = int(m.group(1), 16), m.group(2)
            if funcs and funcs[-1][0] == a and not funcs[-1][2]:
                # Two labels on the same code: it is the function's, not
                # a section marker's, whichever objdump prints first.
                if MARKER.match(name) and not MARKER.match(funcs[-1][1]):
                    continue
                funcs.pop()
            funcs.append((a, name, []))
            continue
        m = INSN.match(line)
        if m and funcs:
            funcs[-1][2].append((m.group(2), m.group(3)))
    funcs.sort(key=lambda f: f[0])
    return funcs


def offences(insns, arm):
    """(offending text, [branch target addresses]) of one function."""
    bad, targets = [], []
    for mn, ops in insns:
        body = re.sub(r"\s*(//|#).*$", "", ops) if arm else ops
        m = TARGET.search(ops)
        target = int(m.group(1), 16) if m else None
        if arm:
            base = mn.split(".")[0]
            if base in ARM_INDIRECT:
                bad.append("indirect %s %s" % (mn, ops))
            elif (base in ARM_DIRECT or mn.startswith("b.")) and target is not None:
                targets.append(target)
            if mn.startswith("f") or ARM_FP_REG.search(body) or re.search(r"\bfp(cr|sr)\b", body):
                bad.append("FP/SIMD: %s %s" % (mn, ops))
        else:
            while mn in X86_PREFIXES and ops:
                mn, _, ops = ops.partition(" ")
                ops = ops.strip()
            if mn in ("call", "jmp", "callq", "jmpq") or mn.startswith("j"):
                if "*" in ops:
                    bad.append("indirect %s %s" % (mn, ops))
                elif target is not None:
                    targets.append(target)
            if X86_FP_REG.search(ops) or (mn.startswith("f") and mn not in ("fs",)) or mn == "emms":
                bad.append("FP/SIMD: %s %s" % (mn, ops))
    return bad, targets


def parse_sites(path, arm):
    """Addresses of the traced functions (arch_site_func: an arm64 entry
    records the first of the two NOPs before the symbol)."""
    return {int(line, 16) + (8 if arm else 0) for line in open(path) if line.strip()}


# What may schedule: a callback that holds no recursion bit (they test it
# only) must never get there, traced or not (boot/sched.c).
# (A compiler's copy, e.g. schedule.part.0, counts as the function.)
SCHEDULES = {"schedule", "preempt_enable", "preempt_check_resched", "arch_switch"}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    syms = parse_nm(sys.argv[1])
    funcs = parse_asm(sys.argv[2])
    starts = [f[0] for f in funcs]
    byname = {n: a for a, _, n in syms}
    if "__nofp_text_start" not in byname or "__nofp_text_end" not in byname:
        sys.exit("check-nofp: __nofp_text_start/__nofp_text_end missing from %s" % sys.argv[1])
    lo, hi = byname["__nofp_text_start"], byname["__nofp_text_end"]
    with open(sys.argv[2]) as f:
        head = f.read(4096)
    arm = "aarch64" in head

    def containing(a):
        """Index of the function whose code holds address a, or None."""
        i = bisect.bisect_right(starts, a) - 1
        return i if i >= 0 else None

    traced = {containing(a) for a in parse_sites(sys.argv[3], arm)} - {None}
    roots = [i for i, (a, n, _) in enumerate(funcs) if lo <= a < hi and not n.startswith("__nofp_text")]
    if not roots:
        if lo < hi:
            sys.exit("check-nofp: code in [__nofp_text_start, __nofp_text_end) but no function "
                     "found there in %s" % sys.argv[2])
        print("check-nofp: no FTRACE_HOT_NOFP callbacks")
        return
    # Register-preserving thunks (arch/hooks.h) save no FP/SIMD register, so
    # what they call must not touch one either, whoever calls them.
    thunks = [i for i, (_, n, _) in enumerate(funcs) if n.endswith("_preserving")]
    path = {r: [funcs[r][1]] for r in roots + thunks}
    todo, seen, errors = list(roots + thunks), set(), []
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        name = funcs[i][1]
        if name.endswith("_fpsaving"):
            # An FP-saving thunk (arch/hooks.h, CALL_FPSAVING_VOID): the
            # boundary; what it calls may touch FP/SIMD, so it must keep
            # every FP/SIMD argument register itself.
            stored = {r for m, ops in funcs[i][2] for r in stored_fp_args(m, ops, arm)}
            for r in sorted(FP_ARG_NAMES[arm] - stored):
                errors.append("%s: FP-saving thunk does not save %s" % (" -> ".join(path[i]), r))
            continue
        bad, targets = offences(funcs[i][2], arm)
        if i in traced:
            bad.append("traced function (a patchable site)")
        if name.split(".")[0] in SCHEDULES:
            bad.append("may schedule")
        for b in bad:
            errors.append("%s: %s" % (" -> ".join(path[i]), b))
        for t in targets:
            j = containing(t)
            if j is None:
                errors.append("%s: branch to %x, outside any function" % (" -> ".join(path[i]), t))
                continue
            if j == i:
                continue
            if j not in path:
                path[j] = path[i] + [funcs[j][1]]
            todo.append(j)
    if errors:
        for e in errors:
            print("check-nofp: " + e, file=sys.stderr)
        sys.exit("check-nofp: FTRACE_HOT_NOFP callbacks reach FP/SIMD code, indirect calls, "
                 "traced functions or the scheduler (%d offences)" % len(errors))
    print("check-nofp: %d callbacks, %d preserving thunks, %d functions reached, no FP/SIMD, "
          "no indirect calls, no traced function, no scheduling (%s)"
          % (len(roots), len(thunks), len(seen), ", ".join(funcs[r][1] for r in roots)))


if __name__ == "__main__":
    main()
