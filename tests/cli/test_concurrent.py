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
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clicheck import check, finish  # noqa: E402

TESSERA = os.environ["TSR_TESSERA"]
EXAMPLES = os.environ["TSR_EXAMPLES"]


def start(*args):
    return subprocess.Popen([TESSERA, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(pred, limit=60.0):
    t0 = time.monotonic()
    while not pred() and time.monotonic() - t0 < limit:
        time.sleep(0.01)
    return pred()


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
    p = start("export-vtk", run, "-o", vtk, "--threads", "1")
    pieces = os.path.join(vtk, "chain_drop")
    wait_for(lambda: not os.path.exists(os.path.join(vtk, "chain_drop.pvd")))  # the old series removed
    time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    pvds = [f for f in os.listdir(vtk) if f.endswith(".pvd")]
    check(p.returncode == 130 and "interrupted" in err and not pvds,
          "export-vtk stopped: exit 130, said, no .pvd left (%d, %s, %s)" % (p.returncode, pvds, err.strip()[-100:]))

    # 2. compare stopped part way.
    js = os.path.join(tmp, "t.json")
    p = start("compare", chain, "--solvers", "direct-bpp,pgs", "--steps", "600", "--json", js, "--quiet")
    time.sleep(1.0)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    left = [f for f in os.listdir(tmp) if f.startswith("t.json")]
    check(p.returncode == 130 and "interrupted" in err and "direct-bpp" in out and not left,
          "compare stopped: exit 130, said, the rows so far, no JSON (%d, %s, %s)" % (p.returncode, left,
                                                                                   err.strip()[-100:]))

    # 3. Two exports into one folder at once.
    two = os.path.join(tmp, "two")
    p = start("export-vtk", run, "-o", two, "--threads", "1", "--quiet")
    wait_for(lambda: os.path.exists(os.path.join(two, "chain_drop", ".lock")))
    time.sleep(0.1)  # (the lock file is created, then locked: microseconds apart)
    q = subprocess.run([TESSERA, "export-vtk", run, "-o", two, "--quiet"], capture_output=True, text=True, timeout=120)
    p.communicate(timeout=120)
    check(q.returncode == 2 and "another export" in q.stderr and p.returncode == 0,
          "a second export into a folder being written: refused (%d, %d: %s)" % (q.returncode, p.returncode,
                                                                                 q.stderr.strip()[-100:]))

    # 4. Two runs onto one file with --overwrite.
    same = os.path.join(tmp, "same.h5")
    p = start("run", chain, "-o", same, "--overwrite", "--steps", "1500", "--quiet")
    wait_for(lambda: os.path.exists(same))
    q = subprocess.run([TESSERA, "run", os.path.join(EXAMPLES, "pendulum.yaml"), "-o", same, "--overwrite", "--steps",
                        "10", "--quiet"], capture_output=True, text=True, timeout=120)
    _, err = p.communicate(timeout=300)
    check(q.returncode == 0 and p.returncode == 1 and "output is lost" in err and info(same).get("model") == "pendulum",
          "a run whose file another --overwrite replaced: exit 1, said (%d, %d: %s)" % (p.returncode, q.returncode,
                                                                                       err.strip()[-120:]))

    # 5. The --vtk folder taken away during the run.
    out_h5, live = os.path.join(tmp, "live.h5"), os.path.join(tmp, "live")
    p = start("run", chain, "-o", out_h5, "--steps", "600", "--vtk", live, "--quiet")
    wait_for(lambda: os.path.exists(os.path.join(live, "chain_drop", "bodies_000020.vtp")))
    os.rename(live, os.path.join(tmp, "gone"))
    _, err = p.communicate(timeout=300)
    i = info(out_h5)
    check(p.returncode == 1 and "goes on without" in err and i.get("complete") is True and i.get("frames") == 601,
          "--vtk folder removed during the run: the run ends, complete, exit 1 (%d, %s frames: %s)"
          % (p.returncode, i.get("frames"), err.strip()[-120:]))

finish()
