# SPDX-License-Identifier: MIT
"""The CLI tests' shared check: prints ok/FAIL per truth, collects failures."""
import sys

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def finish():
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)
