#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""examples/chain_wrap.yaml, first 2.5 s (600 steps at h = 1/240, with the
solver given as the first argument): the 100-link chain wrapped over the
cylinder holds the swinging 500 kg box (2000:1).

Checked: the run completes and every step converged; joint error below 1 mm
and penetration below 1 mm (the links are 0.25 kg under ~5 kN); the box
swings under the cylinder to the anchor's side (x < -1 m, from +3.2 m) as a
pendulum does; and the system never gains energy: the translational kinetic
plus gravitational energy of all bodies, with the box's rotational energy,
stays below its initial value plus 1 J (friction and joint damping only take
energy out; what the sum leaves out, the links' rotation and the elastic
energy, starts at zero and is never negative). The failure this guards against (h = 1/60: links at the tangent
points spinning at 50-170 rad/s) gained 20 kJ and flung the box over the
cylinder.

Environment: TSR_TESSERA (the tessera binary), TSR_EXAMPLES (examples/).
Usage: test_chain_wrap.py [SOLVER]   (exit 0 pass, 1 fail, 77 skip)
"""
import os
import sys
import tempfile

from scene_check import EXAMPLES, check, finish, run_tessera

import h5py  # noqa: E402 (scene_check skips when it is missing)
import numpy as np  # noqa: E402

MODEL = os.path.join(EXAMPLES, "chain_wrap.yaml")
SOLVER = sys.argv[1] if len(sys.argv) > 1 else "direct-bpp"
STEPS = 600
G = 9.81


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "cw.h5")
    run_tessera(MODEL, out, "--steps", STEPS, "--solver", SOLVER)
    with h5py.File(out, "r") as f:
        names = list(f["/model/body_names"].asstr()[:])
        mass = np.where(f["/model/body_fixed"][:] != 0, 0.0, f["/model/body_mass"][:])
        P = f["/bodies/position"][:]
        V = f["/bodies/velocity"][:]
        st = {k: f["/stats/" + k][:] for k in ("joint_error", "penetration", "converged")}
    check(P.shape[0] == STEPS + 1, "%d frames" % P.shape[0])
    check(st["converged"].all(), "every step converged (%d did not)" % (st["converged"] == 0).sum())
    check(st["joint_error"].max() < 1e-3, "joint error %.2e m < 1 mm" % st["joint_error"].max())
    check(st["penetration"].max() < 1e-3, "penetration %.2e m < 1 mm" % st["penetration"].max())
    box = names.index("box")
    check(P[:, box, 0].min() < -1.0, "the box swings under the cylinder to x = %.2f m" % P[:, box, 0].min())
    E = (0.5 * mass * (V[:, :, :3] ** 2).sum(axis=2) + mass * G * P[:, :, 2]).sum(axis=1)
    # The box is a cube: its inertia is isotropic, m s^2 / 6, and its
    # rotational energy needs no orientation. Left out: the links' rotational
    # energy and the joints' and contacts' elastic energy; both are zero at
    # the start (released at rest, unstretched) and never negative, so
    # leaving them out only lowers the sum after it. 1 J is round-off's
    # and the start's elastic settling's room.
    Ibox = mass[box] * 0.5 ** 2 / 6.0
    E = E + 0.5 * Ibox * (V[:, box, 3:] ** 2).sum(axis=1)
    wl = np.array([n.startswith("link") for n in names])
    print("info: largest link spin %.1f rad/s" % np.abs(V[:, wl, 3:]).max())
    check(E.max() <= E[0] + 1.0, "energy never above its start + 1 J (max gain %.3f J)" % (E.max() - E[0]))

finish()
