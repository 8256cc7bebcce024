#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hand-corrupted run files: `export-vtk` refuses each with
`RUNFILE: error: DATASET: WHAT`, exit 2, and leaves no .pvd; `info` refuses
those whose damage reaches what it summarises (lengths, offsets, frame
times and steps, /stats) the same way. Before, every one of them exported
nonsense with exit 0. A file that did not finish (complete = 0) keeps the
killed-run reading: datasets of different lengths are read to the shortest,
and the last frame may hold the non-finite state of a diverged step.

The corrupted files are made with h5py from a small real run: a ground, a
box resting on it (contacts) and a pendulum on a ball joint (joint rows)."""
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError:  # (the system interpreter has them; another may not)
    print("h5py or numpy missing: skipped")
    sys.exit(77)

TESSERA = os.environ["TSR_TESSERA"]
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def tessera(*args):
    return subprocess.run([TESSERA, *args], capture_output=True, text=True, timeout=120)


MODEL = """format: tessera-model/1
name: corrupt
settings: {step: 0.01, steps: 12}
bodies:
  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1]}}
  - {name: box, mass: 1, shape: {type: box, size: [0.4, 0.4, 0.4]}, position: [0, 0, 0.199]}
  - {name: bob, mass: 1, shape: {type: sphere, radius: 0.1}, position: [2, 0, 1.5]}
joints:
  - {name: pivot, type: ball, bodies: [world, bob], anchor: [2.5, 0, 1.5]}
"""

base = tempfile.mkdtemp(prefix="vtk_corrupt_", dir=os.environ.get("TSR_TEST_TMP") or None)
model = os.path.join(base, "corrupt.yaml")
with open(model, "w") as fh:
    fh.write(MODEL)
good = os.path.join(base, "good.h5")
p = tessera("run", model, "-o", good, "--quiet")
check(p.returncode == 0, "the small run: exit 0 (%d: %s)" % (p.returncode, p.stderr.strip()[-200:]))
with h5py.File(good, "r") as f:
    T = f["/frames/time"].shape[0]
    coff, koff = f["/constraints/offset"][:], f["/contacts/offset"][:]
    rtype = f["/constraints/type"][:]
    S = f["/stats/solve_seconds"].shape[0]
last = T - 1
crow = int(np.flatnonzero(rtype == 1)[0])  # a contact normal row
check(T == 13 and koff[last] < koff[T] and coff[T] > koff[T], "the run has %d frames, rows and contacts" % T)
p = tessera("export-vtk", good, "-o", os.path.join(base, "good_out"))
check(p.returncode == 0 and p.stderr == "", "the uncorrupted run exports: exit 0 (%d: %s)" % (p.returncode, p.stderr))


def pvds(d):
    return [os.path.join(r, x) for r, _, xs in os.walk(d) for x in xs if x.endswith(".pvd")]


def corrupt(name, edit, dataset, info_too, complete=1):
    bad = os.path.join(base, name + ".h5")
    shutil.copy(good, bad)
    with h5py.File(bad, "r+") as f:
        edit(f)
        f.attrs["complete"] = np.int32(complete)
    return bad


def refused(name, edit, dataset, info_too, complete=1):
    bad = corrupt(name, edit, dataset, info_too, complete)
    out = os.path.join(base, name + "_out")
    p = tessera("export-vtk", bad, "-o", out)
    head = "%s: error: %s: " % (bad, dataset)
    lines = p.stderr.splitlines()
    check(p.returncode == 2 and len(lines) == 1 and lines[0].startswith(head) and not pvds(out),
          "%s: export-vtk exit 2, '%s...', no .pvd (exit %d: %s; %s)"
          % (name, head[len(base) + 1:], p.returncode, p.stderr.strip()[-240:], pvds(out)))
    q = tessera("info", bad)
    if info_too:
        ok = q.returncode == 2 and q.stderr.splitlines() == lines and q.stdout == ""
    else:  # (info reads no pose, row or contact value)
        ok = q.returncode == 0
    check(ok, "%s: info %s (exit %d: %s)" % (name, "refuses it the same way" if info_too else "summarises it",
                                              q.returncode, q.stderr.strip()[-200:]))


def setv(path, index, value):
    def edit(f):
        v = f[path][...]
        v[index] = value
        f[path][...] = v
    return edit


def resize(path, n):
    return lambda f: f[path].resize(n, axis=0)


# Lengths that disagree in a file marked complete; a frame count that
# disagrees with the datasets.
refused("short_position", resize("/bodies/position", T - 1), "/bodies/position", True)
refused("long_time", resize("/frames/time", T + 1), "/frames/time", True)
refused("short_row_type", resize("/constraints/type", int(coff[T]) - 1), "/constraints/type", True)
refused("long_contact_depth", resize("/contacts/depth", int(koff[T]) + 2), "/contacts/depth", True)
refused("short_offsets", resize("/contacts/offset", T), "/contacts/offset", True)
refused("short_stats", resize("/stats/solve_seconds", S - 1), "/stats/solve_seconds", True)
refused("last_step_past_stats", setv("/frames/step", last, S + 5), "/frames/step", True)
# Offsets that do not start at 0, decrease, or point past the data.
refused("offset_start", setv("/constraints/offset", 0, 3), "/constraints/offset", True)
refused("offset_decreasing", setv("/constraints/offset", 5, int(coff[3])), "/constraints/offset", True)
refused("offset_past_end", setv("/contacts/offset", T, int(koff[T]) + 7), "/contacts/offset", True)
refused("offset_past_end_killed", setv("/constraints/offset", T, int(coff[T]) + 7), "/constraints/offset", True,
        complete=0)
# Frame times and steps out of order.
refused("time_backwards", setv("/frames/time", 4, -1.0), "/frames/time", True)
refused("time_nan", setv("/frames/time", 4, np.nan), "/frames/time", True)
refused("step_repeated", setv("/frames/step", 6, 5 if T > 6 else 0), "/frames/step", True)
# Values of a frame: poses, indices, quaternions, normals.
refused("position_nan", setv("/bodies/position", (3, 2, 0), np.nan), "/bodies/position", False)
refused("velocity_inf", setv("/bodies/velocity", (2, 1, 4), np.inf), "/bodies/velocity", False)
refused("orientation_zero", setv("/bodies/orientation", (5, 1), 0.0), "/bodies/orientation", False)
refused("orientation_unnormalised", setv("/bodies/orientation", (5, 2), [2.0, 0, 0, 0]), "/bodies/orientation", False)
refused("contact_body_99", setv("/contacts/body", (int(koff[last]), 0), 99), "/contacts/body", False)
refused("contact_body_minus_2", setv("/contacts/body", (0, 1), -2), "/contacts/body", False)
refused("contact_normal_zero", setv("/contacts/normal", 0, 0.0), "/contacts/normal", False)
refused("row_type_9", setv("/constraints/type", 0, 9), "/constraints/type", False)
refused("row_index_set_5", setv("/constraints/index_set", crow, 5), "/constraints/index_set", False)
refused("contact_row_source", setv("/constraints/source", crow, 1000), "/constraints/source", False)
refused("joint_row_source", setv("/constraints/source", 0, 7), "/constraints/source", False)
refused("subsystem_minus_5", setv("/bodies/subsystem", (1, 1), -5), "/bodies/subsystem", False)
refused("shape_pose_zero_quaternion", setv("/model/shape_pose", (1, slice(3, 7)), 0.0), "/model/shape_pose", False)
refused("shape_params_nan", setv("/model/shape_params", (2, 0), np.nan), "/model/shape_params", False)
# The bodies' names are their count: a damaged /model/body_names once read
# as "bodies: 0" in info, exit 0, where export-vtk refused the file.
refused("body_names_missing", lambda f: f.__delitem__("/model/body_names"), "/model/body_names", True)
# A non-finite pose is the diverged step's only in the last frame of a run
# that did not finish; anywhere else it is damage.
refused("position_inf_killed_not_last", setv("/bodies/position", (last - 1, 2, 2), -np.inf), "/bodies/position",
        False, complete=0)

# What a killed or diverged run leaves is still read as before.
for name, edit, frames in (("killed_short_position", resize("/bodies/position", T - 2), T - 2),
                           ("diverged_last_frame", setv("/bodies/position", (last, 2, 2), -np.inf), T)):
    ok = corrupt(name, edit, None, False, complete=0)
    out = os.path.join(base, name + "_out")
    p = tessera("export-vtk", ok, "-o", out)
    n = 0
    if pvds(out):
        with open(os.path.join(out, "corrupt.pvd")) as fh:
            n = fh.read().count("<DataSet")
    check(p.returncode == 0 and "did not finish" in p.stderr and n == frames,
          "%s (complete = 0): exported, %d of %d frames (exit %d: %s)" % (name, n, frames, p.returncode,
                                                                          p.stderr.strip()[-200:]))

print("%d failed" % len(FAILURES))
if not FAILURES:
    shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if FAILURES else 0)
