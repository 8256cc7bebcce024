#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Iterative refinement of a converged Schur iterate (solvers/schur.c,
# refine_interface): every row of the whole system within 1e-10 of its own
# terms (tsr_mlcp_relative_residual, `tessera compare`'s max_rel), as
# direct-bpp's polishing gives (solvers/bpp.h TSR_BPP_POLISH_ROW).
#
# examples/bridge.yaml is bilateral with cond(S_Gamma) ~ 1e7 (BENCHMARKS.md):
# S_Gamma, a difference of large terms (Eq. 24), and the subsystems' forward
# errors leave interface rows at up to 8.7e-9 of their own terms in its first
# 20 steps without the refinement (TSR_SCHUR_NO_REFINE=1, printed below),
# against 3.7e-16 for direct-bpp. schur-bpp and schur-pgs-sm, 1 and 2 threads.
#
# SINGULAR below (found by a sweep of random chain models) has subsystems
# that are singular (a chain of spheres with rigid ball joints lying in the
# ground, compliance 0), solved through shifted factors. A refinement that
# measured the interface rows alone took them to 1.4e-16 and left the
# subsystems' rows at 1.9e-8 of their own terms on the first step (Eq. 29:
# 5.9e-6 N s against direct-bpp's 5.8e-10, with the same index sets). Every
# row within 1e-9: ten times the polishing target, since the refinement
# stops as soon as it is under it (8.8e-11 when this was written).
import json
import os
import subprocess
import sys
import tempfile

TESSERA = os.environ["TSR_TESSERA"]
MODEL = os.path.join(os.environ["TSR_EXAMPLES"], "bridge.yaml")
SINGULAR = """format: tessera-model/1
name: singular_subsystems
settings:
  step: 0.016666666666666666
  contact: {max_per_pair: 4, margin: 0.005}
  partitioning: {method: mix, max_bodies: 4, every: 2}
materials: [{name: m, friction: 1.0, compliance: 0.0, damping: 8.0}]
bodies:
  - {name: ground, fixed: true, shape: {type: plane, normal: [0.245, -0.212, 1], offset: -1.0}}
  - {name: c0, count: 4, mass: 0.7116, shape: {type: box, size: [0.0190, 0.0190, 0.1409]}, position: [0.5438, -0.2473, 1.2787], stride: {position: [0.0524, -0.0660, -0.1547]}, group: g0, group_every: 1}
  - {name: load0, mass: 1291, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [0.7536, -0.5112, 0.6598]}
  - {name: c1, count: 9, mass: 22.84, shape: {type: sphere, radius: 0.0288}, position: [-0.8389, -0.8795, 0.2875], stride: {position: [0.0056, 0.1932, 0.0510]}, group: g1, group_every: 6}
  - {name: c2, count: 29, mass: 7.767, shape: {type: box, size: [0.0593, 0.0593, 0.1492]}, position: [-0.8525, -0.4119, -0.2874], stride: {position: [-0.1835, 0.0010, -0.0335]}, group: g2, group_every: 25}
  - {name: s0, mass: 0.173, shape: {type: sphere, radius: 0.109}, position: [0.579, -0.877, 1.870], velocity: [-1.49, -2.27, 2.82]}
joints:
  - {name: j0, count: 3, type: fixed, bodies: ["c0[i]", "c0[i+1]"], anchor: [0.5700, -0.2803, 1.2013], stride: {anchor: [0.0524, -0.0660, -0.1547]}, compliance: 1e-08}
  - {name: hook0, type: ball, bodies: ["c0[3]", load0], anchor: [0.7273, -0.4782, 0.7372]}
  - {name: j1, count: 8, type: ball, bodies: ["c1[i]", "c1[i+1]"], anchor: [-0.8360, -0.7829, 0.3130], stride: {anchor: [0.0056, 0.1932, 0.0510]}, compliance: 0.0}
  - {name: j2, count: 28, type: cable, bodies: ["c2[i]", "c2[i+1]"], anchor: [-0.9442, -0.4114, -0.3042], stride: {anchor: [-0.1835, 0.0010, -0.0335]}, compliance: {stretch: 1e-10, bend: 1.0e-3, twist: 1.0e-3}}
"""

# COPLANAR: a subsystem singular through its contacts (a box lying on the
# ground and a capsule on it, compliance 0, from a random sweep): no
# refinement step through the shifted factor halved its rows' residual,
# which stayed at 3.6e-7 of their own terms (Eq. 29 1.4e-7 N s) with the
# step marked converged, where direct-bpp reaches 2e-16. Such a step is now
# solved again on the whole system (tsr_schur_unpolished) and the better
# kept: every row within 1e-10 over 40 steps.
COPLANAR = """format: tessera-model/1
name: coplanar
settings:
  partitioning: {method: bfs, max_bodies: 2, every: 1, refine: none}
materials:
  - {name: m, friction: 0.0, compliance: 0.0, damping: 2.0}
bodies:
  - {name: ground, fixed: true, shape: {type: plane, normal: [0,0,1], offset: 0}}
  - {name: s0_0, mass: 37.99, shape: {type: box, size: [0.479,0.232,0.164]}, position: [-0.0026,-0.0134,0.0841], group: g1}
  - {name: s0_1, mass: 16.15, shape: {type: capsule, radius: 0.059, length: 0.148}, position: [0.0097,0.0167,0.2257],
     orientation: {axis: [0,1,0], angle_deg: 90}, group: g2}
  - {name: s0_2, mass: 270.5, shape: {type: capsule, radius: 0.042, length: 0.134}, position: [-0.0182,0.0151,0.3268],
     orientation: {axis: [0,1,0], angle_deg: 90}, group: g0}
  - {name: s0_3, mass: 0.4342, shape: {type: sphere, radius: 0.106}, position: [0.0081,0.0175,0.4757]}
  - {name: s2_0, mass: 0.6934, shape: {type: box, size: [0.452,0.404,0.138]}, position: [1.9883,0.0069,0.0693], group: g0}
  - {name: s2_1, mass: 6.716, shape: {type: capsule, radius: 0.040, length: 0.329}, position: [1.9971,-0.0001,0.1785],
     orientation: {axis: [0,1,0], angle_deg: 90}}
  - {name: s2_2, mass: 0.1033, shape: {type: box, size: [0.402,0.156,0.235]}, position: [2.0167,0.0023,0.3385], group: g0}
joints:
  - {name: j0, type: distance, bodies: [s0_0, s0_1], anchors: [[0.0,0,0.0841],[0.0,0,0.2257]], compliance: 1.0e-6}
  - {name: j1, type: distance, bodies: [s0_2, s0_3], anchors: [[0.0,0,0.3268],[0.0,0,0.4757]], compliance: 0, unilateral: true}
"""


def max_rel(tmp, threads, env=None, model=MODEL, steps=20):
    js = os.path.join(tmp, "c.json")
    subprocess.run([TESSERA, "compare", model, "--solvers", "direct-bpp,schur-bpp,schur-pgs-sm", "--steps", str(steps),
                    "--threads", str(threads), "--quiet", "--json", js], check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, **(env or {})))
    with open(js) as f:
        return {r["solver"]: (r["max_rel"], r["pct_converged"]) for r in json.load(f)["rows"]}


def model_rows(tmp, what, yaml, steps, tol):
    """Every solver's rows within tol of their own terms, all steps converged,
    with 1 and 2 threads, on the model yaml; returns the failures."""
    path = os.path.join(tmp, "model.yaml")
    with open(path, "w") as f:
        f.write(yaml)
    failures = 0
    for threads in (1, 2):
        for solver, (rel, conv) in max_rel(tmp, threads, model=path, steps=steps).items():
            ok = conv == 100.0 and rel is not None and rel <= tol
            print(("ok  " if ok else "FAIL"), f"{what}:", solver,
                  f"{threads} threads: max_rel {rel:.1e}, {conv:.0f}% converged")
            failures += not ok
    return failures


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        off = max_rel(tmp, 2, {"TSR_SCHUR_NO_REFINE": "1"})
        print("without the refinement:", {k: "%.1e" % v[0] for k, v in off.items()})
        for threads in (1, 2):
            rows = max_rel(tmp, threads)
            for solver, (rel, conv) in rows.items():
                ok = conv == 100.0 and rel is not None and rel <= 1e-10
                print(("ok  " if ok else "FAIL"), solver, f"{threads} threads: max_rel {rel:.1e}, {conv:.0f}% converged")
                failures += not ok
        failures += model_rows(tmp, "singular subsystems", SINGULAR, 3, 1e-9)
        failures += model_rows(tmp, "coplanar contacts, compliance 0", COPLANAR, 40, 1e-10)
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
