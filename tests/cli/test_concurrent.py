#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Interruption and concurrent use (from a read-only audit of both):

1. export-vtk stopped by SIGTERM exits 130, said, and leaves no .pvd in the
   folder: the earlier export's series named 1,765 pieces the new one had
   removed.
2. compare stopped by SIGTERM exits 130, said, prints the rows it has, and
   writes no --json file and no temporary one (it died by the signal).
3. Two exports into one folder: the second is refused while the first
   writes (they removed each other's pieces and both exited 0).
4. Two runs with --overwrite onto one file: the one whose file was replaced
   says its output is lost and exits 1 (both exited 0, one result gone).
5. The --vtk folder taken away during a run: the export stops, said, the
   simulation goes on to its end, the run file complete = 1, exit 1 (the
   run stopped at that frame, complete = 0).

An export of this test's 601 frames takes a few tenths of a second, so the
processes that must still be at work when the test acts are held (held()):
their progress lines, one a frame or step, go to a pipe of 4 KiB that the
test does not read, and they stop in the middle of their work, at a write,
until it is drained. No step of the test waits on a clock.
"""
import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clicheck import check, finish  # noqa: E402

TESSERA = os.environ["TSR_TESSERA"]
EXAMPLES = os.environ["TSR_EXAMPLES"]


def held(*args):
    """Starts tessera with a progress line every frame or step into a pipe of
    4 KiB (Linux's F_SETPIPE_SZ; the smallest a pipe can be), and returns once
    the first line is there: the process is at work, and blocks in a write
    within a hundred lines, until drain()."""
    r, w = os.pipe()
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
    p = subprocess.Popen([TESSERA, *args, "--progress", "1e-9"], stdout=subprocess.PIPE, stderr=w, text=True)
    os.close(w)
    p.err = os.fdopen(r, "r")
    p.first = p.err.readline()
    return p


def drain(p, timeout):
    """Reads the held process's stderr to its end, waits for it; its stderr."""
    err = p.first + p.err.read()
    p.err.close()
    out, _ = p.communicate(timeout=timeout)
    return out, err


def info(path):
    p = subprocess.run([TESSERA, "info", path, "--json"], capture_output=True, text=True, timeout=60)
    return json.loads(p.stdout) if p.returncode == 0 else {}


with tempfile.TemporaryDirectory() as tmp:
    chain = os.path.join(EXAMPLES, "chain_drop.yaml")
    run = os.path.join(tmp, "cd.h5")
    subprocess.run([TESSERA, "run", chain, "-o", run, "--steps", "600", "--quiet"], check=True, timeout=300)
    vtk = os.path.join(tmp, "vtk")
    subprocess.run([TESSERA, "export-vtk", run, "-o", vtk, "--quiet"], check=True, timeout=300)

    # 1. export-vtk stopped part way.
    p = held("export-vtk", run, "-o", vtk, "--threads", "1")
    gone = not os.path.exists(os.path.join(vtk, "chain_drop.pvd"))  # the old series removed first
    p.send_signal(signal.SIGTERM)
    _, err = drain(p, 60)
    pvds = [f for f in os.listdir(vtk) if f.endswith(".pvd")]
    check(p.returncode == 130 and "interrupted" in err and not pvds and gone and "frame 1/601" in p.first,
          "export-vtk stopped: exit 130, said, no .pvd left (%d, %s, %s)" % (p.returncode, pvds, err.strip()[-100:]))

    # 2. compare stopped part way.
    js = os.path.join(tmp, "t.json")
    p = held("compare", chain, "--solvers", "direct-bpp,pgs", "--steps", "600", "--json", js)
    p.send_signal(signal.SIGTERM)
    out, err = drain(p, 120)
    left = [f for f in os.listdir(tmp) if f.startswith("t.json")]
    check(p.returncode == 130 and "interrupted" in err and "direct-bpp" in out and not left,
          "compare stopped: exit 130, said, the rows so far, no JSON (%d, %s, %s)" % (p.returncode, left,
                                                                                   err.strip()[-100:]))

    # 3. Two exports into one folder at once.
    two = os.path.join(tmp, "two")
    p = held("export-vtk", run, "-o", two, "--threads", "1")
    q = subprocess.run([TESSERA, "export-vtk", run, "-o", two, "--quiet"], capture_output=True, text=True, timeout=120)
    drain(p, 120)
    check(q.returncode == 2 and "another export" in q.stderr and p.returncode == 0,
          "a second export into a folder being written: refused (%d, %d: %s)" % (q.returncode, p.returncode,
                                                                                 q.stderr.strip()[-100:]))

    # 4. Two runs onto one file with --overwrite.
    same = os.path.join(tmp, "same.h5")
    p = held("run", chain, "-o", same, "--overwrite", "--steps", "600")
    published = os.path.exists(same)
    q = subprocess.run([TESSERA, "run", os.path.join(EXAMPLES, "pendulum.yaml"), "-o", same, "--overwrite", "--steps",
                        "10", "--quiet"], capture_output=True, text=True, timeout=120)
    _, err = drain(p, 300)
    check(published and q.returncode == 0 and p.returncode == 1 and "output is lost" in err
          and info(same).get("model") == "pendulum",
          "a run whose file another --overwrite replaced: exit 1, said (%d, %d: %s)" % (p.returncode, q.returncode,
                                                                                       err.strip()[-120:]))

    # 5. The --vtk folder taken away during the run.
    out_h5, live = os.path.join(tmp, "live.h5"), os.path.join(tmp, "live")
    p = held("run", chain, "-o", out_h5, "--steps", "600", "--vtk", live)
    os.rename(live, os.path.join(tmp, "gone"))
    _, err = drain(p, 300)
    i = info(out_h5)
    check(p.returncode == 1 and "goes on without" in err and i.get("complete") is True and i.get("frames") == 601,
          "--vtk folder removed during the run: the run ends, complete, exit 1 (%d, %s frames: %s)"
          % (p.returncode, i.get("frames"), err.strip()[-120:]))

finish()
