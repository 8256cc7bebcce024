#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""kill -9 safety of the run file writer.

    test_kill.py WRITER_SOAK

1. writer_soak writes frames forever (a few ms apart) and prints
   "flushed T" after each flush. While it runs, the file is opened with
   h5py (SWMR read) and summarised by `tessera info`: a run in progress is
   readable. After ~2 s of flushed frames it is killed with SIGKILL right
   after a flush line, and the file must open, say complete = 0, hold at
   least the T flushed frames, have per-frame datasets of one length and
   consistent offsets, and pass schemas/check_run_file.py.
2. Stress: writers with no sleep and large frames (many spills between
   flushes) are killed at random moments; every file must still open and
   pass the layout check up to its valid prefix.
3. A normally closed file passes the check with complete = 1, and a
   deliberately broken copy fails it.
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

SOAK = sys.argv[1]
ROOT = os.environ.get("TSR_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(ROOT, "schemas", "check_run_file.py")
TMP = os.environ.get("TSR_TEST_TMP", ".")
TESSERA = os.environ.get("TSR_TESSERA")
failures = []


def ensure(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def check_layout(path, want_complete):
    r = subprocess.run([sys.executable, CHECK, path], capture_output=True, text=True)
    ensure(r.returncode == 0, f"check_run_file {path}: rc {r.returncode}\n{r.stdout}{r.stderr}")
    ensure(f"complete = {want_complete}" in r.stdout, f"check_run_file {path}: {r.stdout}")


def tmp(name):
    return os.path.join(TMP, f"{name}_{os.getpid()}.h5")


def test_kill_after_flush():
    path = tmp("kill")
    p = subprocess.Popen([SOAK, path, "--bodies", "20", "--sleep-ms", "2"], stdout=subprocess.PIPE, text=True)
    t_open, flushed, live_checked = None, 0, False
    try:
        for line in p.stdout:
            if line.startswith("open"):
                t_open = time.monotonic()
            elif line.startswith("flushed"):
                flushed = int(line.split()[1])
                if not live_checked:
                    # A run in progress: readable by h5py and by `tessera info`.
                    with h5py.File(path, "r", swmr=True) as f:
                        ensure(f["/frames/time"].shape[0] >= flushed, "live file lacks flushed frames")
                        ensure(int(f.attrs["complete"]) == 0, "live file says complete")
                    if TESSERA and os.access(TESSERA, os.X_OK):
                        r = subprocess.run([TESSERA, "info", path], capture_output=True, text=True)
                        ensure(r.returncode == 0 and "complete: no" in r.stdout, f"info on live file: {r}")
                    live_checked = True
                if time.monotonic() - t_open >= 2.0:
                    p.send_signal(signal.SIGKILL)  # right after a flush
                    break
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
    ensure(p.returncode == -signal.SIGKILL, f"writer exit status {p.returncode}")
    ensure(flushed >= 1, "no flush seen in 2 s")
    with h5py.File(path, "r", swmr=True) as f:
        ensure(int(f.attrs["complete"]) == 0, "killed file says complete")
        T = f["/frames/time"].shape[0]
        ensure(T >= flushed, f"killed file holds {T} frames, {flushed} were flushed")
        ensure(T >= 1, "no frames")
        for d in ("/frames/step", "/bodies/position", "/bodies/orientation", "/bodies/velocity",
                  "/bodies/subsystem"):
            ensure(f[d].shape[0] == T, f"{d} has {f[d].shape[0]} frames, /frames/time {T}")
        ensure(f["/bodies/position"].shape[1:] == (20, 3), "position shape")
        for grp, rows in (("/constraints", "/constraints/type"), ("/contacts", "/contacts/depth")):
            off = f[grp + "/offset"][:]
            ensure(off.shape[0] == T + 1, f"{grp}/offset has {off.shape[0]} entries for {T} frames")
            ensure(off[0] == 0 and np.all(np.diff(off) >= 0), f"{grp}/offset not cumulative")
            ensure(off[-1] == f[rows].shape[0], f"{grp}/offset ends at {off[-1]}, {f[rows].shape[0]} rows")
        # Values survived: frame t of writer_soak has time t/60 and step t.
        ensure(np.array_equal(f["/frames/step"][:], np.arange(T)), "steps are not 0..T-1")
        ensure(np.allclose(f["/frames/time"][:], np.arange(T) / 60.0, rtol=0, atol=0), "times differ")
    check_layout(path, 0)
    if TESSERA and os.access(TESSERA, os.X_OK):
        r = subprocess.run([TESSERA, "info", path], capture_output=True, text=True)
        ensure(r.returncode == 0, f"info on killed file: rc {r.returncode} {r.stderr}")
        ensure("complete: no" in r.stdout, "info: complete: no missing")
        ensure("run did not finish: file holds" in r.stderr, f"info warning missing: {r.stderr}")
    os.unlink(path)


def test_kill_random():
    rng = random.Random(12345)
    for i in range(6):
        path = tmp(f"kill_rand{i}")
        p = subprocess.Popen([SOAK, path, "--bodies", "200", "--rows", "600", "--contacts", "100", "--sleep-ms", "1"],
                             stdout=subprocess.PIPE, text=True)
        p.stdout.readline()  # "open"
        time.sleep(rng.uniform(0.05, 1.3))
        p.send_signal(signal.SIGKILL)
        p.communicate()
        try:
            with h5py.File(path, "r", swmr=True) as f:
                ensure(int(f.attrs["complete"]) == 0, f"{path}: complete")
                ensure(f["/constraints/offset"][0] == 0, f"{path}: offset[0]")
        except OSError as e:
            ensure(False, f"{path} unreadable after kill -9: {e}")
            continue
        check_layout(path, 0)
        os.unlink(path)


def test_closed_and_broken():
    path = tmp("closed")
    r = subprocess.run([SOAK, path, "--frames", "120", "--bodies", "7"], capture_output=True, text=True)
    ensure(r.returncode == 0, f"writer_soak --frames: {r.stderr}")
    with h5py.File(path, "r") as f:  # closed normally: no SWMR flag needed
        ensure(int(f.attrs["complete"]) == 1, "closed file not complete")
        ensure(f["/frames/time"].shape == (120,), "closed file frames")
    check_layout(path, 1)
    packed = tmp("deflate")
    r = subprocess.run([SOAK, packed, "--frames", "120", "--bodies", "7", "--deflate", "1"], capture_output=True)
    ensure(r.returncode == 0, "writer_soak --deflate 1")
    check_layout(packed, 1)
    with h5py.File(path, "r") as a, h5py.File(packed, "r") as b:
        ensure(b["/bodies/position"].compression == "gzip", "deflate not applied")
        for d in ("/bodies/position", "/constraints/impulse", "/contacts/point", "/stats/mlcp_error"):
            ensure(np.array_equal(a[d][:], b[d][:]), f"{d} differs with deflate")
    os.unlink(packed)
    broken = tmp("broken")
    shutil.copy(path, broken)
    with h5py.File(broken, "r+") as f:
        f["/constraints/offset"][5] = f["/constraints/offset"][4] - 1
        del f["/stats/mlcp_error"]
    r = subprocess.run([sys.executable, CHECK, broken], capture_output=True, text=True)
    ensure(r.returncode == 1, f"broken file passed the check: {r.stdout}")
    ensure("/stats/mlcp_error: missing" in r.stdout and "decreasing" in r.stdout, f"check output: {r.stdout}")
    os.unlink(path)
    os.unlink(broken)


for t in (test_kill_after_flush, test_kill_random, test_closed_and_broken):
    before = len(failures)
    t()
    print(("ok   " if len(failures) == before else "FAIL ") + t.__name__, file=sys.stderr)
sys.exit(1 if failures else 0)
