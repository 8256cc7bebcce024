#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""examples/tandem_cranes.yaml, first 1.5 s (90 steps, schur-bpp as in the
model): two cranes hold the sliding 3,500 kg pipe.

Checked: the run completes; the pipe, started at 2 m/s along its axis,
slides through both slings (more than 0.2 m relative to the bottom link of
each sling) and drags the hooks along (each moves more than 0.5 m along x);
it stays hung at the hooks' distance (3.0 m below each hook, +-0.1 m) and
well above the ground; the cranes stand still (carbodies move less than
1 cm); joint error below 1 mm, penetration below 5 mm.

Environment: TSR_TESSERA (the tessera binary), TSR_EXAMPLES (examples/).
Usage: test_tandem_cranes.py   (exit 0 pass, 1 fail, 77 skip)
"""
import os
import tempfile

from scene_check import EXAMPLES, check, failures, finish, run_tessera

import h5py  # noqa: E402 (scene_check skips when it is missing)
import numpy as np  # noqa: E402

MODEL = os.path.join(EXAMPLES, "tandem_cranes.yaml")
STEPS = 90


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "tc.h5")
    run_tessera(MODEL, out, "--steps", STEPS)
    with h5py.File(out, "r") as f:
        names = list(f["/model/body_names"].asstr()[:])
        P = f["/bodies/position"][:]
        st = {k: f["/stats/" + k][:] for k in ("joint_error", "penetration")}
        complete = f.attrs["complete"]
    check(complete == 1 and P.shape[0] == STEPS + 1, "run file complete, %d frames" % P.shape[0])
    ip = names.index("pipe")
    n_sling = sum(1 for n in names if n.startswith("a_sling_"))
    for c in ("a", "b"):
        ih = names.index(c + "_hook")
        bottom = names.index("%s_sling_%d" % (c, n_sling // 2))
        slide = (P[-1, ip, 0] - P[-1, bottom, 0]) - (P[0, ip, 0] - P[0, bottom, 0])
        check(slide > 0.2, "the pipe slides through sling %s (%.2f m)" % (c, slide))
        drag = P[-1, ih, 0] - P[0, ih, 0]
        check(drag > 0.5, "it drags hook %s along (%.2f m)" % (c, drag))
        gap = P[:, ih, 2] - P[:, ip, 2]
        check(abs(gap - 3.0).max() < 0.1, "the pipe hangs 3.0 m below hook %s (%.3f .. %.3f m)"
              % (c, gap.min(), gap.max()))
        ic = names.index(c + "_carbody")
        move = np.linalg.norm(P[:, ic] - P[0, ic], axis=1).max()
        check(move < 0.01, "crane %s stands still (carbody moved %.1e m)" % (c, move))
    check(P[:, ip, 2].min() > 2.5, "the pipe stays in the air (lowest %.2f m)" % P[:, ip, 2].min())
    check(st["joint_error"].max() < 1e-3, "joint error below 1 mm (max %.2e m)" % st["joint_error"].max())
    check(st["penetration"].max() < 5e-3, "penetration below 5 mm (max %.2e m)" % st["penetration"].max())
print("%d failed" % len(failures))
finish()
