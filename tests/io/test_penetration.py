#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# /stats/penetration is the largest contact penetration after the step
# (OUTPUT.md). The contacts of frame t + 1 were detected at the start of
# step t + 1, from the state after step t, and /contacts/depth holds their
# depths at detection; so for every step but the last, the statistic must be
# the largest of the next frame's depths (0 when none is positive), exactly:
# one detection gives both (sim/world.c detect_ahead). It was an estimate
# (each contact's depth moved by h J_n v+), 16 of 60 rock_pile steps read
# less than that, one 40 um where two rocks went 2.2 mm into each other.
# Checked on a pile of rocks and boxes (rock_pile: spheres, boxes, compounds)
# and a chain on a cylinder (capsules), with a whole-system and a
# substructured solver, and on a run written every 3 steps, where the frames
# do not follow one another and only the statistic's bounds can be stated.
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

TESSERA = os.environ["TSR_TESSERA"]
EXAMPLES = os.path.join(os.environ["TSR_SOURCE_ROOT"], "examples")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(model, out, *args):
    r = subprocess.run([TESSERA, "run", os.path.join(EXAMPLES, model), "-o", out, "--quiet", *args],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        sys.exit(f"FAIL: run {model} {args}: rc {r.returncode}\n{r.stderr}")


with tempfile.TemporaryDirectory(dir=os.environ.get("TSR_TEST_TMP")) as tmp:
    for model, steps, solver in (("rock_pile.yaml", 90, "direct-bpp"), ("rock_pile.yaml", 90, "schur-bpp"),
                                 ("chain_wrap.yaml", 120, "direct-bpp")):
        out = os.path.join(tmp, "run.h5")
        run(model, out, "--overwrite", "--steps", str(steps), "--solver", solver)
        with h5py.File(out, "r") as f:
            pen = f["/stats/penetration"][:]
            off = f["/contacts/offset"][:]
            depth = f["/contacts/depth"][:]
            n_frames = f["/frames/time"].shape[0]
        S = len(pen)
        after = np.array([max(0.0, depth[off[t]:off[t + 1]].max(initial=0.0)) for t in range(2, n_frames)])
        wrong = np.flatnonzero(pen[: S - 1] != after)
        check(n_frames == S + 1 and len(wrong) == 0,
              "%s, %s: penetration after each of %d steps = the next frame's largest depth (%d differ%s)"
              % (model, solver, S - 1, len(wrong),
                 "" if not len(wrong) else ": step %d %.3e vs %.3e" % (wrong[0] + 1, pen[wrong[0]], after[wrong[0]])))
        check(np.isfinite(pen[-1]) and pen[-1] >= 0.0, "%s, %s: the last step's is a depth (%g)" % (model, solver,
                                                                                                       pen[-1]))
        check(after.max() > 0.0, "%s, %s: some step ends with a penetration (largest %.3e m)" % (model, solver,
                                                                                                 after.max()))
    # Written every 3 steps: frame k holds step 3k's contacts, detected after
    # step 3k - 1; that step's statistic is their largest depth.
    out = os.path.join(tmp, "every.h5")
    run("rock_pile.yaml", out, "--steps", "60", "--set", "settings.output.every=3")
    with h5py.File(out, "r") as f:
        pen = f["/stats/penetration"][:]
        off = f["/contacts/offset"][:]
        depth = f["/contacts/depth"][:]
        step = f["/frames/step"][:]
    wrong = [k for k in range(1, len(step)) if pen[step[k] - 2] != max(0.0, depth[off[k]:off[k + 1]].max(initial=0.0))]
    check(len(step) == 21 and not wrong, "every 3 steps: step 3k - 1's penetration = frame k's largest depth (%d differ)"
          % len(wrong))

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
