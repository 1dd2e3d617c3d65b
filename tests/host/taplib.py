"""taplib.py — run a list of test functions and print TAP (tests/host/*.py).

run(tests, label) prints "ok N - label: name" for each function that returns
and "not ok N - ..." with the exception's text (first 40 lines) as
diagnostics for each that raises; returns the exit status (1 if any
failed).  A test's name is its function name without the "test_" prefix.
"""


def run(tests, label):
    print("TAP version 13\n1..%d" % len(tests))
    failed = 0
    for i, t in enumerate(tests, 1):
        name = t.__name__[5:] if t.__name__.startswith("test_") else t.__name__
        try:
            t()
            print("ok %d - %s: %s" % (i, label, name))
        except Exception as e:          # noqa: BLE001 (report, go on)
            failed += 1
            print("not ok %d - %s: %s" % (i, label, name))
            for line in str(e).splitlines()[:40]:
                print("# " + line)
    return 1 if failed else 0
