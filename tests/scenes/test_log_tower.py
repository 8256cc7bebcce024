#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Log tower (seed 000 §7.1), shortened: examples/gen_log_tower.py writes a
48-log tower (12 log-cabin layers, 2.4 m) under the 2,500 kg box into a temp
dir, with the 1,000 kg ball (4 m/s) 2 m closer than in the full scene so it
hits at ~0.5 s; `tessera run --solver schur-bpp` (mindp, 16 bodies) runs
1.5 s (~2 s of CPU).

Physical truths checked:
  * the run completes with a finite state and no body faster than 15 m/s (the
    ball comes in at 4 m/s; a bad solve flings logs at 50+ m/s);
  * the tower stands: between t = 0.3 s (the box has landed) and the first
    ball-log contact no log moves more than 2 mm, and none more than 3 cm
    from its start (the generator starts the logs pre-compressed);
  * contact penetration stays small: under 2 cm over the whole run (the
    contact depth of every frame; the ball and box included; 3 cm for
    cylinders, below);
  * the ball transfers momentum: it loses at least 40 % of its forward speed,
    and the logs of the two bottom layers on its side (x < 0) are pushed
    forward by 10 cm or more.

With SHAPE = cylinder the logs are cylinders (`gen_log_tower.py --shape
cylinder`), and the same truths hold: before the contacts of two cylinders
were made without ODE's cylinder-cylinder (src/contact/solid.c), this tower
threw logs at 62 m/s, went 25 cm deep and moved its logs 2.9 m before the
ball arrived.

Usage: TSR_TESSERA=build/tessera TSR_EXAMPLES=examples python3 test_log_tower.py [SOLVER [SHAPE]]
(SOLVER: schur-bpp unless TSR_SOLVER says otherwise; SHAPE: capsule or
cylinder, capsule by default; TSR_EXAMPLES defaults to
TSR_SOURCE_ROOT/examples, then ../../examples.)
"""
import os
import sys
import tempfile

from scene_check import check, failures, finish, generate, run_tessera

import h5py  # noqa: E402 (scene_check skips when it is missing)
import numpy as np  # noqa: E402

SOLVER = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TSR_SOLVER", "schur-bpp")
SHAPE = sys.argv[2] if len(sys.argv) > 2 else "capsule"


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "tower48.yaml")
    generate("gen_log_tower.py", model, "--logs", 48, "--ball-distance", 2.0, "--duration", 1.5, "--shape", SHAPE)
    out = os.path.join(tmp, "tower48.h5")
    run_tessera(model, out, "--solver", SOLVER, "--threads", 1)
    with h5py.File(out, "r") as f:
        names = list(f["/model/body_names"].asstr()[:])
        x = f["/bodies/position"][:]
        v = f["/bodies/velocity"][:]
        t = f["/frames/time"][:]
        coff = f["/contacts/offset"][:]
        cbody = f["/contacts/body"][:]
        depth = f["/contacts/depth"][:]
        conv = f["/stats/converged"][:]
        err = f["/stats/mlcp_error"][:]

logs = np.array([n.startswith("log_") for n in names])
ball = names.index("ball")
check(np.isfinite(x).all() and np.isfinite(v).all(), "state finite in every frame")
vmax = np.linalg.norm(v[:, :, :3], axis=2).max()
check(vmax < 15.0, "no body faster than 15 m/s (max %.2f m/s)" % vmax)

# First frame whose contacts include the ball against a log.
hit = None
for k in range(1, len(t)):
    bb = cbody[coff[k]:coff[k + 1]]
    if any((b0 == ball and logs[b1]) or (b1 == ball and logs[b0]) for b0, b1 in bb if b0 >= 0 and b1 >= 0):
        hit = k
        break
check(hit is not None and 0.35 < t[hit] < 0.8, "the ball reaches the tower at 0.35-0.8 s (t = %s)"
      % ("%.3f" % t[hit] if hit else "never"))
if hit:
    k0 = int(round(0.3 / (t[1] - t[0])))
    d_stand = np.linalg.norm(x[k0:hit, logs] - x[k0, logs], axis=2).max()
    d_start = np.linalg.norm(x[:hit, logs] - x[0, logs], axis=2).max()
    check(d_stand < 0.002, "tower stands: max log displacement 0.3 s .. impact %.2e m < 2 mm" % d_stand)
    check(d_start < 0.03, "tower stands: max log displacement 0 .. impact %.4f m < 3 cm" % d_start)
    u0 = v[hit - 1, ball, 0]
    u1 = v[-1, ball, 0]
    check(u1 < 0.6 * u0, "ball slowed by the tower: forward speed %.2f -> %.2f m/s" % (u0, u1))
    base = logs & (x[0, :, 2] < 0.45) & (x[0, :, 0] <= 0.0)
    push = (x[-1, base, 0] - x[0, base, 0]).max()
    check(push > 0.10, "base logs on the ball's side pushed forward: max %.3f m > 0.10 m" % push)
pen = depth.max() if len(depth) else 0.0
# Cylinders meet at rim points, and the deepest point of a rim moves along
# it between steps as a falling log turns (1.97 cm measured, log on log):
# 3 cm, against 25 cm before; capsules' round ends, 2 cm.
pen_max = 0.03 if SHAPE == "cylinder" else 0.02
check(pen < pen_max, "max contact penetration %.4f m < %g cm" % (pen, 100 * pen_max))
print("info: %d steps, %d not converged, max MLCP error %.2e" % (len(conv), int((conv == 0).sum()), err.max()))
print("%d checks failed" % len(failures))
finish()
