#!/usr/bin/env python3
"""test_check_nofp.py — tools/check-nofp.py on small listings, TAP output.

Each case writes an `nm -n` file and an `objdump -d` listing in the shape
the tools print for arm64 and x86-64, runs the checker and asserts its exit
status and the offence it names: clean code passes; an FP/SIMD register in a
callee reached through a call, a tail call (branch into another function),
an indirect call, a jump table and x87 code fail, and so do a call to a
traced function (one the site table lists: on arm64 the entry is 8 bytes
before the symbol; functions are told apart by address, so two statics of
one name are not confused) and a path to the scheduler; code outside the
section is not looked at unless reached (or a register-preserving thunk);
an FP-saving thunk ends the walk, and must store q0-q7.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import taplib  # noqa: E402

CHECK = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "check-nofp.py")

ARM_HEAD = "\nkernel.elf:     file format elf64-littleaarch64\n\n\nDisassembly of section .text:\n"
X86_HEAD = "\nkernel.elf:     file format elf64-x86-64\n\n\nDisassembly of section .text:\n"

NM = """0000000040200000 T _text_start
0000000040201000 T __tramp_text_start
0000000040201000 T __nofp_text_start
0000000040201000 t cb
0000000040201040 T __nofp_text_end
0000000040201040 T __tramp_text_end
0000000040202000 T helper
0000000040203000 T other
"""


def arm(cb_body, helper_body="", other_body="    40203000:\t3dc00000 \tldr\tq0, [x0]\n"):
    return ARM_HEAD + (
        "\n0000000040201000 <__nofp_text_start>:\n"
        "\n0000000040201000 <cb>:\n" + cb_body +
        "\n0000000040202000 <helper>:\n" + (helper_body or "    40202000:\td65f03c0 \tret\n") +
        "\n0000000040203000 <other>:\n" + other_body)


def x86(cb_body, helper_body=""):
    return X86_HEAD + (
        "\n0000000040201000 <cb>:\n" + cb_body +
        "\n0000000040202000 <helper>:\n" + (helper_body or "  40202000:\tc3                   \tret\n") +
        "\n0000000040203000 <other>:\n  40203000:\t0f 28 c1             \tmovaps %xmm1,%xmm0\n")


def run(nm, asm, sites=""):
    with tempfile.TemporaryDirectory() as d:
        pn, pa, ps = (os.path.join(d, "k." + e) for e in ("nm", "asm", "sites"))
        open(pn, "w").write(nm)
        open(pa, "w").write(asm)
        open(ps, "w").write(sites)
        p = subprocess.run([sys.executable, CHECK, pn, pa, ps], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout


def expect(rc, out, want_rc, want_text):
    if rc != want_rc or want_text not in out:
        raise AssertionError("exit %d (want %d), output:\n%s\n(wanted %r)" % (rc, want_rc, out, want_text))


def test_arm_clean():
    rc, out = run(NM, arm("    40201000:\t94000400 \tbl\t40202000 <helper>\n"
                          "    40201004:\tb9400000 \tldr\tw0, [x0]\n"
                          "    40201008:\t54000040 \tb.eq\t40201010 <cb+0x10>\n"
                          "    4020100c:\td65f03c0 \tret\n"))
    expect(rc, out, 0, "2 functions reached")


def test_arm_simd_in_callee():
    rc, out = run(NM, arm("    40201000:\t94000400 \tbl\t40202000 <helper>\n",
                          "    40202000:\t3dc00000 \tldr\tq0, [x0]\n"))
    expect(rc, out, 1, "cb -> helper: FP/SIMD: ldr")


def test_arm_vector_and_fmov():
    rc, out = run(NM, arm("    40201000:\t4e080c00 \tdup\tv0.2d, x0\n"
                          "    40201004:\t9e670000 \tfmov\td0, x0\n"))
    expect(rc, out, 1, "FP/SIMD: dup")
    expect(rc, out, 1, "FP/SIMD: fmov")


def test_arm_tail_call():
    rc, out = run(NM, arm("    40201000:\t14000800 \tb\t40203000 <other>\n"))
    expect(rc, out, 1, "cb -> other: FP/SIMD: ldr")


def test_arm_indirect():
    rc, out = run(NM, arm("    40201000:\td63f0200 \tblr\tx16\n"))
    expect(rc, out, 1, "indirect blr")


def test_arm_unreached_is_ignored():
    rc, out = run(NM, arm("    40201000:\td65f03c0 \tret\n"))
    expect(rc, out, 0, "1 functions reached")


def test_x86_clean():
    rc, out = run(NM, x86("  40201000:\te8 fb 0f 00 00       \tcall   40202000 <helper>\n"
                          "  40201005:\t48 8b 07             \tmov    (%rdi),%rax\n"
                          "  40201008:\t74 06                \tje     40201010 <cb+0x10>\n"
                          "  4020100a:\tc3                   \tret\n"))
    expect(rc, out, 0, "2 functions reached")


def test_x86_sse_via_tail_jump():
    rc, out = run(NM, x86("  40201000:\te9 fb 1f 00 00       \tjmp    40203000 <other>\n"))
    expect(rc, out, 1, "cb -> other: FP/SIMD: movaps")


def test_x86_indirect_and_jump_table():
    rc, out = run(NM, x86("  40201000:\tff d0                \tcall   *%rax\n"
                          "  40201002:\t3e ff e0             \tnotrack jmp *%rax\n"))
    expect(rc, out, 1, "indirect call")
    expect(rc, out, 1, "indirect jmp *%rax")


def test_x86_x87():
    rc, out = run(NM, x86("  40201000:\tdd 07                \tfldl   (%rdi)\n"))
    expect(rc, out, 1, "FP/SIMD: fldl")


def run_with_thunk(target, word):
    """The arm64 listing plus a thunk target_preserving that calls target."""
    asm = arm("    40201000:\td65f03c0 \tret\n") + (
        "\n0000000040204000 <%s_preserving>:\n"
        "    40204000:\t%s \tbl\t4020%s000 <%s>\n"
        "    40204004:\td65f03c0 \tret\n" % (target, word, "3" if target == "other" else "2",
                                              target))
    return run(NM + "0000000040204000 T %s_preserving\n" % target, asm)


def test_arm_preserving_thunk_is_a_root():
    """A register-preserving thunk saves no FP/SIMD register: what it calls
    is checked though no callback reaches it."""
    rc, out = run_with_thunk("other", "97fffc00")
    expect(rc, out, 1, "other_preserving -> other: FP/SIMD: ldr")
    rc, out = run_with_thunk("helper", "97fff800")
    expect(rc, out, 0, "1 callbacks, 1 preserving thunks, 3 functions reached")

def run_with_fpsaving(saved, op="stp"):
    """cb calls other_fpsaving, which stores (op: or loads) the q register
    pairs that start at saved and calls other (FP/SIMD code)."""
    body = "".join("    402040%02x:\tad000400 \t%s\tq%d, q%d, [sp, #%d]\n"
                   % (4 * k, op, a, a + 1, 144 + 32 * k) for k, a in enumerate(saved))
    asm = arm("    40201000:\t94000c00 \tbl\t40204000 <other_fpsaving>\n"
              "    40201004:\td65f03c0 \tret\n") + (
        "\n0000000040204000 <other_fpsaving>:\n" + body +
        "    40204040:\t97fffc00 \tbl\t40203000 <other>\n"
        "    40204044:\td65f03c0 \tret\n")
    return run(NM + "0000000040204000 T other_fpsaving\n", asm)


def test_arm_fpsaving_thunk_is_a_boundary():
    """An FP-saving thunk that stores q0-q7 ends the walk (its FP/SIMD code
    and what it calls are not offences); one that misses one, or only
    loads them, is refused."""
    rc, out = run_with_fpsaving([0, 2, 4, 6])
    expect(rc, out, 0, "1 callbacks, 0 preserving thunks, 2 functions reached")
    rc, out = run_with_fpsaving([0, 2, 4])
    expect(rc, out, 1, "cb -> other_fpsaving: FP-saving thunk does not save q6")
    expect(rc, out, 1, "does not save q7")
    rc, out = run_with_fpsaving([0, 2, 4, 6], op="ldp")
    expect(rc, out, 1, "does not save q0")


def test_arm_traced_callee():
    """helper has a site (recorded 8 bytes before it): reaching it fails;
    a site elsewhere does not matter."""
    cb = "    40201000:\t94000400 \tbl\t40202000 <helper>\n"
    rc, out = run(NM, arm(cb), "40201ff8\n")
    expect(rc, out, 1, "cb -> helper: traced function")
    rc, out = run(NM, arm(cb), "40202ff8\n")
    expect(rc, out, 0, "no traced function")


def test_arm_same_name_statics():
    """Two static functions named helper: the traced one is the one called,
    though the other comes later in the listing."""
    asm = arm("    40201000:\t94000400 \tbl\t40202000 <helper>\n") + (
        "\n0000000040204000 <helper>:\n    40204000:\td65f03c0 \tret\n")
    nm = NM + "0000000040204000 t helper\n"
    rc, out = run(nm, asm, "40201ff8\n")
    expect(rc, out, 1, "cb -> helper: traced function")
    rc, out = run(nm, asm, "40203ff8\n")
    expect(rc, out, 0, "2 functions reached")


def test_arm_scheduler_is_refused():
    """A callback holding no recursion bit must never reach what schedules,
    traced or not."""
    asm = arm("    40201000:\t94000400 \tbl\t40202000 <helper>\n",
              "    40202000:\t14000400 \tb\t40203000 <schedule>\n").replace(
        "<other>:\n    40203000:\t3dc00000 \tldr\tq0, [x0]", "<schedule>:\n    40203000:\td65f03c0 \tret")
    rc, out = run(NM.replace(" other", " schedule"), asm)
    expect(rc, out, 1, "cb -> helper -> schedule: may schedule")


def test_x86_traced_tail_call():
    """x86-64 records the function's own address; a tail jump reaches it."""
    rc, out = run(NM, x86("  40201000:\te9 fb 0f 00 00       \tjmp    40202000 <helper>\n"),
                  "40202000\n")
    expect(rc, out, 1, "cb -> helper: traced function")


def test_arm_scheduler_copy_is_refused():
    """A compiler's copy of the scheduler (schedule.part.0) is the scheduler."""
    asm = arm("    40201000:\t14000800 \tb\t40203000 <schedule.part.0>\n").replace(
        "<other>:\n    40203000:\t3dc00000 \tldr\tq0, [x0]", "<schedule.part.0>:\n    40203000:\td65f03c0 \tret")
    rc, out = run(NM.replace(" other", " schedule.part.0"), asm)
    expect(rc, out, 1, "cb -> schedule.part.0: may schedule")


def test_arm_marker_label_after_the_callback():
    """objdump may print the section marker's label after the callback's on
    the same address: the code is still the callback's, and checked."""
    asm = arm("    40201000:\t94000400 \tbl\t40202000 <helper>\n",
              "    40202000:\t3dc00000 \tldr\tq0, [x0]\n").replace(
        "\n0000000040201000 <__nofp_text_start>:\n\n0000000040201000 <cb>:\n",
        "\n0000000040201000 <cb>:\n\n0000000040201000 <__nofp_text_start>:\n")
    rc, out = run(NM, asm)
    expect(rc, out, 1, "cb -> helper: FP/SIMD: ldr")


def test_nofp_section_without_functions():
    """Code in the section but no function label for it: an error, not
    "no callbacks"."""
    asm = ARM_HEAD + ("\n0000000040201000 <__nofp_text_start>:\n"
                      "    40201000:\td65f03c0 \tret\n")
    rc, out = run(NM, asm)
    expect(rc, out, 1, "no function found there")


def test_x86_continuation_line():
    """A long x86-64 instruction's further bytes on a line of their own (no
    mnemonic) are not an instruction: `ff` there is no x87 opcode."""
    rc, out = run(NM, x86("  40201000:\t48 c7 40 08 ff ff ff \tmovq   $0xffffffffffffffff,0x8(%rax)\n"
                          "  40201007:\tff \n"
                          "  40201008:\tc3                   \tret\n"))
    expect(rc, out, 0, "1 functions reached")


def test_missing_section_symbols():
    rc, out = run("0000000040200000 T _text_start\n", arm("    40201000:\td65f03c0 \tret\n"))
    expect(rc, out, 1, "__nofp_text_start/__nofp_text_end missing")


TESTS = [test_arm_clean, test_arm_simd_in_callee, test_arm_vector_and_fmov, test_arm_tail_call,
         test_arm_indirect, test_arm_unreached_is_ignored, test_x86_clean,
         test_x86_sse_via_tail_jump, test_x86_indirect_and_jump_table, test_x86_x87,
         test_arm_preserving_thunk_is_a_root, test_arm_fpsaving_thunk_is_a_boundary,
         test_arm_traced_callee, test_arm_same_name_statics,
         test_arm_scheduler_is_refused, test_arm_scheduler_copy_is_refused,
         test_arm_marker_label_after_the_callback, test_nofp_section_without_functions,
         test_x86_continuation_line, test_x86_traced_tail_call,
         test_missing_section_symbols]


def main():
    return taplib.run(TESTS, "check-nofp")


if __name__ == "__main__":
    sys.exit(main())
