#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""examples/net_with_truck.yaml, first 250 steps (4.2 s, schur-bpp as in the
model): the net catches the 8,000 kg truck.

Checked: the run completes; the truck falls free until it meets the net
(chassis at ~2.5 m/s), then the net stops it: at 1.25 s the chassis moves
vertically at less than 0.5 m/s, it has sunk less than 1 m below its start
and no truck body is lower than 1.5 m below the posts (the ground is 3 m
below); the net's cables stay in one piece (joint error below 2 cm),
penetration below 5 cm, every step converged. And contacts are met before
they are deep: no contact is more than 1 cm deep where its two bodies had
no contact, or only separated ones, the step before (the truck moves at
under 1 m/s on the net; SPOOK lets an arriving contact in by beta v h, 2 mm
here). The filter of duplicate contacts at cable joints once dropped a
wheel's contact with the second link of a joint it rested across, 1.3 cm
in, every few steps: 35 such contacts in these steps, up to 3.4 cm deep,
each pushed out with up to 660 N s on a 0.2 kg link.

Environment: TSR_TESSERA (the tessera binary), TSR_EXAMPLES (examples/).
Usage: test_net_with_truck.py   (exit 0 pass, 1 fail, 77 skip)
"""
import os
import tempfile

from scene_check import EXAMPLES, check, failures, finish, run_tessera

import h5py  # noqa: E402 (scene_check skips when it is missing)

MODEL = os.path.join(EXAMPLES, "net_with_truck.yaml")
STEPS = 250
CAUGHT = 75  # 1.25 s: the net has stopped the truck


def sudden_contacts(f):
    """(depth, frame, body pair) of contacts deeper than 1 cm whose pair had
    no contact, or only separated ones (depth <= 0), in the frame before
    (frame 0, the initial state, has no frame before: it is only that of
    frame 1)."""
    off, body, depth = f["/contacts/offset"][:], f["/contacts/body"][:], f["/contacts/depth"][:]
    out, prev = [], {}
    for k in range(len(off) - 1):
        cur = {}
        for i in range(off[k], off[k + 1]):
            pair = (int(body[i][0]), int(body[i][1]))
            cur[pair] = max(cur.get(pair, -1.0), depth[i])
        if k > 0:
            out += [(d, k, pair) for pair, d in cur.items() if d > 0.01 and prev.get(pair, -1.0) <= 0.0]
        prev = cur
    return out



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
        sudden = sudden_contacts(f)
    check(complete == 1 and P.shape[0] == STEPS + 1, "run file complete, %d frames" % P.shape[0])
    truck = [i for i, n in enumerate(names) if not n.startswith(("xcable", "ycable", "knot", "ground"))]
    check(len(truck) == 22 and abs(mass[truck].sum() - 8000) < 1, "22 truck bodies, %.0f kg" % mass[truck].sum())
    ic = names.index("chassis")
    vmin = V[:CAUGHT + 1, ic, 2].min()
    check(vmin < -2.0, "the truck falls onto the net (fastest %.2f m/s)" % vmin)
    check(abs(V[CAUGHT, ic, 2]) < 0.5, "the net stops it (chassis vertical speed %.2f m/s at %.2f s)"
          % (V[CAUGHT, ic, 2], CAUGHT / 60))
    sink = P[0, ic, 2] - P[CAUGHT, ic, 2]
    check(0.2 < sink < 1.0, "chassis %.2f m below its start" % sink)
    low = P[:, truck, 2].min()
    check(low > -1.5, "no truck body lower than 1.5 m below the posts (lowest centre %.2f m)" % low)
    check(st["joint_error"].max() < 0.02, "joint error below 2 cm (max %.2e m)" % st["joint_error"].max())
    check(st["penetration"].max() < 0.05, "penetration below 5 cm (max %.2e m)" % st["penetration"].max())
    check(st["converged"].all(), "every step converged (%d of %d)" % (st["converged"].sum(), STEPS))
    what = "no contact 1 cm deep a step after its pair was apart"
    if sudden:
        d, k, pair = max(sudden)
        what += " (%d such; deepest %.1f mm at frame %d, %s)" % (
            len(sudden), 1e3 * d, k, " - ".join(names[b] if b >= 0 else "world" for b in pair))
    check(not sudden, what)
print("%d failed" % len(failures))
finish()
