#!/usr/bin/env python3
"""check-nofp.py — prove that FTRACE_HOT_NOFP callbacks never touch FP/SIMD
and never call a traced function.

Usage: check-nofp.py KERNEL.nm KERNEL.asm KERNEL.sites

KERNEL.nm is `nm -n` of the linked kernel, KERNEL.asm its `objdump -d`,
KERNEL.sites the sorted site table (tools/sort-sites.py: the compiler's
recorded addresses, one hex number a line).
Every function that starts in [__nofp_text_start, __nofp_text_end) is a root
(trace/ftrace.h, FTRACE_HOT_NOFP), and so is every register-preserving thunk
(a symbol ending in _preserving, arch/hooks.h: it saves no FP/SIMD register).  From the roots, every function reached by
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
    it (trace/ftrace_internal.h, ftrace_recursion_free_on), which is sound
    only while nothing they call can reach the tracer again.
"""
import re
import sys

FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2,8} )*\s*(\S+)\s*(.*)$")
TARGET = re.compile(r"<([^>+]+)(?:\+0x[0-9a-f]+)?>")

ARM_FP_REG = re.compile(r"(?<![\w#.])(?:[qdshb](?:[0-9]|[12][0-9]|3[01])(?![\w.])|"
                        r"v(?:[0-9]|[12][0-9]|3[01])\.)")
X86_PREFIXES = {"notrack", "bnd", "rep", "repz", "repnz", "lock", "data16", "cs", "ds"}
X86_FP_REG = re.compile(r"%(?:xmm|ymm|zmm|mm|st)")
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
    """{function: [(mnemonic, operands), ...]}, {function: address}; a
    function is the code from its label to the next label."""
    funcs, addr, cur = {}, {}, None
    for line in open(path):
        line = line.rstrip("\n")
        m = FUNC.match(line)
        if m:
            cur = m.group(2)
            addr[cur] = int(m.group(1), 16)
            funcs.setdefault(cur, [])
            continue
        if cur is None:
            continue
        m = INSN.match(line)
        if m:
            funcs[cur].append((m.group(2), m.group(3)))
    return funcs, addr


def offences(name, insns, arm):
    """(offending text, [called functions]) of one function."""
    bad, calls = [], []
    for mn, ops in insns:
        body = re.sub(r"\s*(//|#).*$", "", ops) if arm else ops
        m = TARGET.search(ops)
        target = m.group(1) if m else None
        if arm:
            base = mn.split(".")[0]
            if base in ARM_INDIRECT:
                bad.append("indirect %s %s" % (mn, ops))
            elif (base in ARM_DIRECT or mn.startswith("b.")) and target and target != name:
                calls.append(target)
            if mn.startswith("f") or ARM_FP_REG.search(body) or re.search(r"\bfp(cr|sr)\b", body):
                bad.append("FP/SIMD: %s %s" % (mn, ops))
        else:
            while mn in X86_PREFIXES and ops:
                mn, _, ops = ops.partition(" ")
                ops = ops.strip()
            if mn in ("call", "jmp", "callq", "jmpq") or mn.startswith("j"):
                if "*" in ops:
                    bad.append("indirect %s %s" % (mn, ops))
                elif target and target != name:
                    calls.append(target)
            if X86_FP_REG.search(ops) or (mn.startswith("f") and mn not in ("fs",)) or mn == "emms":
                bad.append("FP/SIMD: %s %s" % (mn, ops))
    return bad, calls


def parse_sites(path, arm):
    """Addresses of the traced functions (arch_site_func: an arm64 entry
    records the first of the two NOPs before the symbol)."""
    return {int(line, 16) + (8 if arm else 0) for line in open(path) if line.strip()}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    syms = parse_nm(sys.argv[1])
    funcs, addr = parse_asm(sys.argv[2])
    byname = {n: a for a, _, n in syms}
    if "__nofp_text_start" not in byname or "__nofp_text_end" not in byname:
        sys.exit("check-nofp: __nofp_text_start/__nofp_text_end missing from %s" % sys.argv[1])
    lo, hi = byname["__nofp_text_start"], byname["__nofp_text_end"]
    with open(sys.argv[2]) as f:
        head = f.read(4096)
    arm = "aarch64" in head
    traced = parse_sites(sys.argv[3], arm)
    roots = sorted(n for n, a in addr.items() if lo <= a < hi and not n.startswith("__nofp_text"))
    if not roots:
        print("check-nofp: no FTRACE_HOT_NOFP callbacks")
        return
    # Register-preserving thunks (arch/hooks.h) save no FP/SIMD register, so
    # what they call must not touch one either, whoever calls them.
    thunks = sorted(n for n in addr if n.endswith("_preserving"))
    path = {r: [r] for r in roots + thunks}
    todo, seen, errors = list(roots + thunks), set(), []
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        if f not in funcs:
            errors.append("%s: no code found for %s" % (" -> ".join(path[f]), f))
            continue
        bad, calls = offences(f, funcs[f], arm)
        if addr[f] in traced:
            bad.append("traced function (a patchable site)")
        for b in bad:
            errors.append("%s: %s" % (" -> ".join(path[f]), b))
        for c in calls:
            if c not in path:
                path[c] = path[f] + [c]
            todo.append(c)
    if errors:
        for e in errors:
            print("check-nofp: " + e, file=sys.stderr)
        sys.exit("check-nofp: FTRACE_HOT_NOFP callbacks reach FP/SIMD code, indirect calls or "
                 "traced functions (%d offences)" % len(errors))
    print("check-nofp: %d callbacks, %d preserving thunks, %d functions reached, no FP/SIMD, "
          "no indirect calls, no traced function (%s)"
          % (len(roots), len(thunks), len(seen), ", ".join(roots)))


if __name__ == "__main__":
    main()
