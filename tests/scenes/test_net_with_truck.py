#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""examples/net_with_truck.yaml, first 1.25 s (75 steps, schur-bpp as in the
model): the net catches the 8,000 kg truck.

Checked: the run completes; the truck falls free until it meets the net
(chassis at ~2.5 m/s), then the net stops it: at the end the chassis moves
vertically at less than 0.5 m/s, it has sunk less than 1 m below its start
and no truck body is lower than 1.5 m below the posts (the ground is 3 m
below); the net's cables stay in one piece (joint error below 2 cm),
penetration below 5 cm, every step converged.

Environment: TSR_TESSERA (the tessera binary), TSR_EXAMPLES (examples/).
Usage: test_net_with_truck.py   (exit 0 pass, 1 fail, 77 skip)
"""
import os
import tempfile

from scene_check import EXAMPLES, check, failures, finish, run_tessera

import h5py  # noqa: E402 (scene_check skips when it is missing)

MODEL = os.path.join(EXAMPLES, "net_with_truck.yaml")
STEPS = 75


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "nt.h5")
    run_tessera(MODEL, out, "--steps", STEPS)
    with h5py.File(out, "r") as f:
        names = list(f["/model/body_names"].asstr()[:])
        P = f["/bodies/position"][:]
        V = f["/bodies/velocity"][:]
        st = {k: f["/stats/" + k][:] for k in ("joint_error", "penetration", "converged")}
        complete = f.attrs["complete"]
        mass = f["/model/body_mass"][:]
    check(complete == 1 and P.shape[0] == STEPS + 1, "run file complete, %d frames" % P.shape[0])
    truck = [i for i, n in enumerate(names) if not n.startswith(("xcable", "ycable", "knot", "ground"))]
    check(len(truck) == 22 and abs(mass[truck].sum() - 8000) < 1, "22 truck bodies, %.0f kg" % mass[truck].sum())
    ic = names.index("chassis")
    vmin = V[:, ic, 2].min()
    check(vmin < -2.0, "the truck falls onto the net (fastest %.2f m/s)" % vmin)
    check(abs(V[-1, ic, 2]) < 0.5, "the net stops it (chassis vertical speed %.2f m/s at %.2f s)"
          % (V[-1, ic, 2], STEPS / 60))
    sink = P[0, ic, 2] - P[-1, ic, 2]
    check(0.2 < sink < 1.0, "chassis %.2f m below its start" % sink)
    low = P[:, truck, 2].min()
    check(low > -1.5, "no truck body lower than 1.5 m below the posts (lowest centre %.2f m)" % low)
    check(st["joint_error"].max() < 0.02, "joint error below 2 cm (max %.2e m)" % st["joint_error"].max())
    check(st["penetration"].max() < 0.05, "penetration below 5 cm (max %.2e m)" % st["penetration"].max())
    check(st["converged"].all(), "every step converged (%d of %d)" % (st["converged"].sum(), STEPS))
print("%d failed" % len(failures))
finish()
