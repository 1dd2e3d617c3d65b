"""checklib.py — what the standalone check scripts share with tools/test.py:
a reporter printing one TAP-like line per check ("ok - name" / "not ok -
name", with the detail's last lines indented under a failure)."""


def reporter(results):
    """A report(ok, name, detail="") that appends ok to `results`."""
    def report(ok, name, detail=""):
        results.append(ok)
        print("%s - %s" % ("ok" if ok else "not ok", name), flush=True)
        if not ok and detail:
            for line in detail.rstrip().splitlines()[-40:]:
                print("    | " + line)
    return report
