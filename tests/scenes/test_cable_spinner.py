#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""examples/cable_spinner.yaml, first 1.5 s (90 steps, schur-bpp as in the
model): the 8 cables wind round one another without passing through each
other.

Checked: the run completes; by the end the middle links of all 8 cables are
within 5 cm of the axis, at least 16 contacts press links of different cables
together and the ball has risen by more than 5 cm (the twist shortens the
cables); in every 5th frame no two links of different cables overlap by more
than 2 mm (closest distance of the capsule axes >= 2 r - 2 mm) and the cables
keep their cyclic order round the axis (a cable passing through another
would swap two of them); penetration below 2 mm, joint error below 1 cm
(the cable feet drift by ~5 mm while the plate spins at 7 rad/s).

Environment: TSR_TESSERA (the tessera binary), TSR_EXAMPLES (examples/).
Usage: test_cable_spinner.py   (exit 0 pass, 1 fail, 77 skip)
"""
import os
import tempfile

from scene_check import EXAMPLES, check, failures, finish, run_tessera

import h5py  # noqa: E402 (scene_check skips when it is missing)
import numpy as np  # noqa: E402

MODEL = os.path.join(EXAMPLES, "cable_spinner.yaml")
STEPS = 90
R_LINK, PITCH, N_CABLES = 0.01, 0.06, 8


def rotate(q, v):
    w, u = q[..., :1], q[..., 1:]
    t = 2 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def segment_distances(p1, q1, p2, q2):
    """Closest distances between segments p1-q1 and p2-q2 (arrays [k, 3])."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = (d1 * d1).sum(1)
    e = (d2 * d2).sum(1)
    f = (d2 * r).sum(1)
    c = (d1 * r).sum(1)
    b = (d1 * d2).sum(1)
    den = a * e - b * b
    s = np.where(den > 1e-12, np.clip((b * f - c * e) / np.where(den > 1e-12, den, 1), 0, 1), 0.0)
    t = (b * s + f) / e
    s = np.where(t < 0, np.clip(-c / a, 0, 1), np.where(t > 1, np.clip((b - c) / a, 0, 1), s))
    t = np.clip(t, 0, 1)
    return np.linalg.norm(p1 + d1 * s[:, None] - p2 - d2 * t[:, None], axis=1)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "cs.h5")
    run_tessera(MODEL, out, "--steps", STEPS)
    with h5py.File(out, "r") as f:
        names = list(f["/model/body_names"].asstr()[:])
        P = f["/bodies/position"][:]
        Q = f["/bodies/orientation"][:]
        st = {k: f["/stats/" + k][:] for k in ("joint_error", "penetration", "converged", "mlcp_error")}
        off = f["/contacts/offset"][:]
        cb = f["/contacts/body"][off[-2]:off[-1]]
        cd = f["/contacts/depth"][off[-2]:off[-1]]
        complete = f.attrs["complete"]
    check(complete == 1 and P.shape[0] == STEPS + 1, "run file complete, %d frames" % P.shape[0])
    links = sum(1 for n in names if n.startswith("cable_0["))
    idx = np.array([[names.index("cable_%d[%d]" % (c, k)) for k in range(links)] for c in range(N_CABLES)])
    cable_of = np.full(len(names), -1)
    for c in range(N_CABLES):
        cable_of[idx[c]] = c
    mid = idx[:, links // 2]
    r_end = np.linalg.norm(P[-1, mid, :2], axis=1)
    check(r_end.max() < 0.05, "middle links within 5 cm of the axis at the end (max %.3f m)" % r_end.max())
    inter = (cable_of[cb[:, 0]] >= 0) & (cable_of[cb[:, 1]] >= 0) & (cable_of[cb[:, 0]] != cable_of[cb[:, 1]])
    touching = int((inter & (cd > -0.002)).sum())
    check(touching >= 16, "links of different cables touch at the end (%d contacts)" % touching)
    ib = names.index("ball")
    rise = P[-1, ib, 2] - P[0, ib, 2]
    check(rise > 0.05, "the twist lifts the ball (%.3f m)" % rise)
    # links as segments (capsule axes), every 5th frame
    flat = idx.reshape(-1)
    pairs = np.array([(i, j) for i in range(len(flat)) for j in range(i + 1, len(flat))
                      if cable_of[flat[i]] != cable_of[flat[j]]])
    worst, order_ok = np.inf, True
    for t in range(0, P.shape[0], 5):
        axis = rotate(Q[t, flat], np.array([0.0, 0.0, 1.0]))
        half = 0.5 * (PITCH - 2 * R_LINK)
        a0, a1 = P[t, flat] - half * axis, P[t, flat] + half * axis
        d = segment_distances(a0[pairs[:, 0]], a1[pairs[:, 0]], a0[pairs[:, 1]], a1[pairs[:, 1]])
        worst = min(worst, d.min())
        if np.linalg.norm(P[t, mid, :2], axis=1).min() > 0.015:   # angles defined
            ang = np.arctan2(P[t, mid, 1], P[t, mid, 0])
            order = list(np.argsort(ang))
            k = order.index(0)
            order_ok &= order[k:] + order[:k] == list(range(N_CABLES))
    check(worst >= 2 * R_LINK - 0.002, "no two cables overlap by more than 2 mm (closest axes %.4f m, 2r = %.3f)"
          % (worst, 2 * R_LINK))
    check(order_ok, "the cables keep their cyclic order round the axis (none passed through another)")
    check(st["penetration"].max() < 0.002, "penetration below 2 mm (max %.2e m)" % st["penetration"].max())
    check(st["joint_error"].max() < 0.01, "joint error below 1 cm (max %.2e m)" % st["joint_error"].max())
    check(st["converged"].mean() > 0.95, "solver converged in %.0f%% of steps" % (100 * st["converged"].mean()))
print("%d failed" % len(failures))
finish()
