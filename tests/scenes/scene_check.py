# SPDX-License-Identifier: MIT
"""What the scene tests share: the environment (TSR_TESSERA, TSR_EXAMPLES or
TSR_SOURCE_ROOT/examples), the ok/FAIL report, running tessera and the
generators. Importing it exits 77 (skip) when h5py or numpy is missing."""
import os
import subprocess
import sys

try:
    import h5py  # noqa: F401
    import numpy  # noqa: F401
except ImportError as e:
    print("SKIP: %s" % e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
TESSERA = os.environ["TSR_TESSERA"]
EXAMPLES = os.environ.get("TSR_EXAMPLES") or os.path.join(
    os.environ.get("TSR_SOURCE_ROOT", os.path.join(HERE, "..", "..")), "examples")

failures = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def run_tessera(model, out, *args):
    """`tessera run MODEL -o OUT --quiet ARGS`; a failed run is reported and
    ends the test (exit 1): there is no run file to check."""
    p = subprocess.run([TESSERA, "run", model, "-o", out, "--quiet"] + [str(a) for a in args],
                       capture_output=True, text=True)
    check(p.returncode == 0, "tessera run %s exits 0 (%d: %s)" % (" ".join(str(a) for a in args), p.returncode,
                                                                 p.stderr.strip()[-300:]))
    if p.returncode != 0:
        sys.exit(1)


def generate(script, path, *args):
    """Writes a generator's model (examples/SCRIPT ARGS) to path."""
    with open(path, "w") as f:
        subprocess.run([sys.executable, os.path.join(EXAMPLES, script)] + [str(a) for a in args], stdout=f, check=True)


def finish():
    sys.exit(1 if failures else 0)
