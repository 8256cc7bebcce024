#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end checks of `tessera run` / `tessera check` as a user runs them.

Each check states a contract from ARCHITECTURE.md / OUTPUT.md: exit statuses,
no output file on bad input, no silent overwrite, --set and --steps/--every
taking effect, a diverging run stopping with the step and the body named and
the file kept with complete = 0.
"""
import errno
import json
import math
import os
import shutil
import re
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clicheck import check, finish  # noqa: E402

TESSERA = os.environ["TSR_TESSERA"]
EXAMPLES = os.environ["TSR_EXAMPLES"]


def published(proc, path, timeout=60.0):
    """Wait until the run PROC has put its file at PATH (its setup is over and
    its first step starts at once), then a little longer, so that a signal
    sent next finds it inside that step; a fixed sleep found it still in
    its setup on a loaded machine."""
    t0 = time.monotonic()
    while not os.path.exists(path) and proc.poll() is None and time.monotonic() - t0 < timeout:
        time.sleep(0.02)
    time.sleep(0.3)


def run(*args):
    p = subprocess.run([TESSERA, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def write_lines(path, lines):
    """Writes the lines of a model to path; returns path."""
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


def check_and_run(path, text):
    """Writes the model text to path; yields (command, exit status, stderr)
    for `tessera check` and `tessera run` of it (the model warnings both give)."""
    with open(path, "w") as fh:
        fh.write(text)
    h5 = os.path.splitext(path)[0] + ".h5"
    for cmd in (("check", path), ("run", path, "-o", h5, "--overwrite", "--quiet")):
        rc, _, err = run(*cmd)
        yield cmd[0], rc, err


FREE_BODY = """format: tessera-model/1
name: faller
settings: {step: 0.016666666666666666, steps: 400}
bodies:
  - name: rock
    mass: 1.0
    shape: {type: sphere, radius: 0.1}
"""

# Two balls placed in one spot (a forgotten `stride`) above a ground plane, a
# third resting on the ground, a fourth 1 mm into it (a quarter of its 4 cm
# diameter is the threshold, contact/contact.h).
OVERLAP = """format: tessera-model/1
name: overlap
settings: {step: 0.016666666666666666, steps: 10}
bodies:
  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}
  - {name: a, mass: 1.0, shape: {type: sphere, radius: 0.02}, position: [0, 0, 0.5]}
  - {name: b, mass: 1.0, shape: {type: sphere, radius: 0.02}, position: [0.001, 0, 0.5]}
  - {name: resting, mass: 1.0, shape: {type: sphere, radius: 0.02}, position: [1, 0, 0.02]}
  - {name: sunk, mass: 1.0, shape: {type: sphere, radius: 0.02}, position: [2, 0, 0.019]}
"""

with tempfile.TemporaryDirectory() as tmp:
    pend = os.path.join(EXAMPLES, "pendulum.yaml")
    out = os.path.join(tmp, "p.h5")

    rc, _, err = run("run", pend, "-o", out, "--steps", "30", "--quiet")
    check(rc == 0, "run pendulum --steps 30 exits 0 (%d: %s)" % (rc, err.strip()))
    with h5py.File(out, "r") as f:
        check(f.attrs["complete"] == 1, "complete = 1 after a normal run")
        check(f["/frames/time"].shape[0] == 31, "31 frames: the initial state and 30 steps")
        check(f["/stats/step_seconds"].shape[0] == 30, "30 per-step statistics")
        check(f["/constraints/offset"].shape[0] == 32, "constraint offsets: frames + 1")
        r = f["/constraints/offset"][:]
        check(r[1] == 0 and r[2] == 3, "frame 0 has no rows; frame 1 has the ball joint's 3 rows")
        check(float(f["/frames/time"][-1]) == 30 / 60.0 or abs(f["/frames/time"][-1] - 0.5) < 1e-12, "last frame at t = 0.5 s")
        check(f["/stats/mlcp_error"][:].max() < 1e-8, "direct-bpp MLCP error below 1e-8 on every step")

    check("did not converge" not in err, "no convergence warning when every step converged (%s)" % err.strip())

    # Two distance joints of different lengths between the same bodies,
    # without compliance: no impulses solve these steps. The run completes,
    # every step says converged = 0, and the log says so even with --quiet.
    fight = os.path.join(tmp, "fight.yaml")
    with open(fight, "w") as f:
        f.write("""format: tessera-model/1
name: fight
settings: {step: 0.01, duration: 0.05}
bodies:
  - {name: ball, mass: 1.0, shape: {type: sphere, radius: 0.05}, position: [0, 0, -1]}
joints:
  - {name: a, type: distance, bodies: [world, ball], anchors: [[0, 0, 0], [0, 0, -1]], length: 1.0, compliance: 0}
  - {name: b, type: distance, bodies: [world, ball], anchors: [[0, 0, 0], [0, 0, -1]], length: 1.1, compliance: 0}
""")
    fout = os.path.join(tmp, "fight.h5")
    rc, _, err = run("run", fight, "-o", fout, "--quiet")
    check(rc == 0 and "warning: 5 of 5 steps did not converge" in err,
          "a model with no solution runs, and its log counts the steps not converged (%d: %s)" % (rc, err.strip()))
    with h5py.File(fout, "r") as f:
        check(f["/stats/converged"].shape[0] == 5 and not f["/stats/converged"][:].any(),
              "/stats/converged is 0 on every step of a model with no solution")

    # A batch job's log (stderr not a terminal) gets whole lines, no
    # carriage-return progress.
    # (bytes: text mode would turn every \r into \n)
    logs = [subprocess.run([TESSERA, "compare", pend, "--solvers", "direct-bpp", "--steps", "250", *extra],
                           capture_output=True, timeout=300) for extra in ([], ["--replay", "direct-bpp"])]
    check(all(p.returncode == 0 and b"\r" not in p.stderr for p in logs),
          "compare writes no carriage returns to a log (%r)" % [p.stderr[:60] for p in logs])

    # A model without bodies loads (MODEL.md) but has nothing to simulate:
    # said at the bodies list, FILE:LINE:COL, exit 2, no file.
    empty = os.path.join(tmp, "empty.yaml")
    with open(empty, "w") as fh:
        fh.write("format: tessera-model/1\nname: e\nbodies: []\n")
    rc, _, err = run("run", empty, "-o", os.path.join(tmp, "empty.h5"))
    check(rc == 2 and (empty + ":3:9: error: the model has no bodies") in err
          and not os.path.exists(os.path.join(tmp, "empty.h5")),
          "a model without bodies: FILE:LINE:COL error, exit 2, no file (%s)" % err.strip())

    # GNU's --name=value form, for every option that takes a value.
    eq = os.path.join(tmp, "eq.h5")
    rc, _, err = run("run", pend, "--output=" + eq, "--steps=4", "--set=bodies.ball.mass=2", "--quiet")
    ok = rc == 0 and os.path.exists(eq)
    if ok:
        with h5py.File(eq, "r") as f:
            ok = f["/stats/converged"].shape[0] == 4 and float(f["/model/body_mass"][0]) == 2.0
    check(ok, "run --output=FILE --steps=N --set=KEY=VALUE (%d: %s)" % (rc, err.strip()[:100]))
    rc, _, err = run("run", "--quiet=yes", "-o", eq, pend)
    check(rc == 2 and "takes no value" in err, "--quiet=yes: exit 2, said (%d: %s)" % (rc, err.strip()[:100]))
    # Each command knows its own flags: info's --json takes no value (it was
    # split as compare's --json FILE and read "1" as a second run file).
    rc, _, err = run("info", eq, "--json=1")
    check(rc == 2 and "'--json' takes no value" in err, "info --json=1: exit 2, said (%d: %s)" % (rc, err.strip()[:100]))
    rc, jout, err = run("info", eq, "--json")
    check(rc == 0 and jout.lstrip().startswith("{"), "info --json (%d: %s)" % (rc, err.strip()[:100]))
    # Standard output that cannot be written fails the command (it left a
    # truncated JSON with exit 0): a full device, and a file past its limit.
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            p = subprocess.run([TESSERA, "info", eq, "--json"], stdout=full, stderr=subprocess.PIPE, text=True,
                               timeout=60)
        check(p.returncode == 1 and "could not write standard output" in p.stderr,
              "info --json > /dev/full: exit 1, said (%d: %s)" % (p.returncode, p.stderr.strip()[:100]))
    small = os.path.join(tmp, "small.json")
    with open(small, "w") as f:
        p = subprocess.run([TESSERA, "info", eq, "--json"], stdout=f, stderr=subprocess.PIPE, text=True, timeout=60,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100)))
    check(p.returncode == 1 and "could not write standard output" in p.stderr and os.path.getsize(small) <= 100,
          "info --json past ulimit -f: exit 1, said (%d: %s)" % (p.returncode, p.stderr.strip()[:100]))
    rc, _, err = run("export-vtk", eq, "--output=" + os.path.join(tmp, "eqvtk"), "--segments=6", "--quiet")
    check(rc == 0 and os.path.exists(os.path.join(tmp, "eqvtk")), "export-vtk --output=DIR --segments=N (%d: %s)"
          % (rc, err.strip()[:100]))
    # Its integers are read by the parser run's options use: the range named.
    for seg, said in (("129", "at most 128"), ("2", ">= 3"), ("1e3", ">= 3")):
        rc, _, err = run("export-vtk", eq, "-o", os.path.join(tmp, "segvtk"), "--segments", seg)
        check(rc == 2 and said in err and not os.path.exists(os.path.join(tmp, "segvtk")),
              "export-vtk --segments %s: exit 2, '%s' (%d: %s)" % (seg, said, rc, err.strip()[:100]))

    # settings.output.contacts: false keeps the contact rows, whose source
    # then names contacts the file does not hold: the layout check accepts
    # that when the file says so (output_contacts = 0), and only then.
    nc = os.path.join(tmp, "nocontacts.h5")
    rc, _, err = run("run", os.path.join(EXAMPLES, "rock_pile.yaml"), "-o", nc, "--steps", "10", "--quiet",
                     "--set", "settings.output.contacts=false")
    checker = os.path.join(os.path.dirname(EXAMPLES), "schemas", "check_run_file.py")
    r1 = subprocess.run([sys.executable, checker, nc], capture_output=True, text=True)
    with h5py.File(nc, "r+") as f:
        f.attrs["output_contacts"] = np.int32(1)
    r2 = subprocess.run([sys.executable, checker, nc], capture_output=True, text=True)
    check(rc == 0 and r1.returncode == 0 and r2.returncode == 1 and "names no contact" in r2.stdout,
          "output.contacts: false passes check_run_file.py, and the same rows fail it when contacts were written "
          "(%d, %d: %s, %d: %s)" % (rc, r1.returncode, r1.stdout.strip()[:80], r2.returncode, r2.stdout.strip()[:80]))

    # A unilateral distance joint (a rope) is one-sided: slack, its impulse is
    # 0 at its lower bound (index set -1). OUTPUT.md keeps index set 0 for the
    # bilateral rows, so its row is a limit row (type 3), not a joint row
    # (type 0), and the file passes the layout check.
    rope = os.path.join(tmp, "rope.yaml")
    with open(rope, "w") as fh:
        fh.write("format: tessera-model/1\nname: rope\nsettings: {step: 0.01, steps: 3}\nbodies:\n"
                 "  - {name: ball, mass: 1, shape: {type: sphere, radius: 0.05}, position: [0, 0, -0.5]}\n"
                 "joints:\n"
                 "  - {name: r, type: distance, bodies: [world, ball], anchors: [[0, 0, 0], [0, 0, -0.5]],\n"
                 "     length: 1.0, unilateral: true}\n")
    rope_h5 = os.path.join(tmp, "rope.h5")
    rc, _, err = run("run", rope, "-o", rope_h5, "--quiet")
    r1 = subprocess.run([sys.executable, checker, rope_h5], capture_output=True, text=True)
    with h5py.File(rope_h5, "r") as f:
        rtype, ridx = f["/constraints/type"][:], f["/constraints/index_set"][:]
        rlam = f["/constraints/impulse"][:]
    check(rc == 0 and r1.returncode == 0 and len(rtype) == 3 and np.all(rtype == 3) and np.all(ridx == -1)
          and np.all(rlam == 0),
          "a slack rope's row is a limit row at its lower bound and passes check_run_file.py "
          "(rc %d, %s; types %s, index sets %s)" % (rc, r1.stdout.strip()[:120], rtype, ridx))

    # check notes a compound whose parts are not balanced about its origin
    # (the centre of mass the dynamics use): a stick with a ball to one side.
    lolly = os.path.join(tmp, "lolly.yaml")
    with open(lolly, "w") as fh:
        fh.write("format: tessera-model/1\nname: l\nbodies:\n"
                 "  - name: lolly\n    mass: 1\n"
                 "    shape: {type: compound, parts: [{type: box, size: [0.02, 0.02, 1.0]},\n"
                 "            {type: sphere, radius: 0.1, position: [0.4, 0, 0.5]}]}\n")
    vb, vs = 0.02 * 0.02 * 1.0, 4.0 / 3.0 * math.pi * 0.1 ** 3
    off = math.hypot(0.4, 0.5) * vs / (vb + vs)
    rc, _, err = run("check", lolly)
    m = re.search(r":4:5: note: body 'lolly': its shapes' centroid is ([0-9.]+) m from the body origin", err)
    check(rc == 0 and m and abs(float(m.group(1)) - off) < 0.0005 * off + 1e-3,
          "check notes an unbalanced compound at FILE:LINE:COL, %.3g m off (%s)" % (off, err.strip()[:160]))
    # An inertia a million times off its solid shape's (a unit slip) is
    # warned of, by check and run, at the body; the box's own, 1/6 kg m^2 per
    # axis for 1 kg and 1 m, times 1e-90 and times 1e-3, and 1e7 times.
    for scale, warned in ((1e-90, True), (1e-3, False), (1e7, True)):
        text = ("format: tessera-model/1\nname: i\nsettings: {duration: 0.05}\nbodies:\n"
                "  - {name: b, mass: 1, inertia: [%r, %r, %r], shape: {type: box, size: [1, 1, 1]}}\n"
                % ((scale / 6,) * 3))
        for cmd, rc, err in check_and_run(os.path.join(tmp, "inert.yaml"), text):
            m = re.search(r":5:5: warning: body 'b': its inertia is ([0-9.e+-]+) times its solid shapes'", err)
            ok = rc == 0 and (m is not None) == warned and (not m or abs(float(m.group(1)) / scale - 1) < 1e-3)
            check(ok, "%s, inertia %g of the solid box's: %s (%d: %s)"
                  % (cmd, scale, "warned" if warned else "not warned", rc, err.strip()[:160]))
    # A hinge or slider whose limits leave out its start (limits are relative
    # to the initial configuration: the coordinate starts at 0) is warned of,
    # by check and run, at the joint: the limit row then pushes it in like a
    # released spring. Limits that hold 0, at either end too, are not.
    for kind, lim, warned in (("hinge", "[0.5, 1.0]", True), ("hinge", "[-1.0, -0.2]", True),
                              ("prismatic", "[0.01, 0.01]", True), ("hinge", "[0.0, 1.0]", False),
                              ("prismatic", "[-0.1, 0.0]", False), ("prismatic", "[-0.1, 0.3]", False)):
        text = ("format: tessera-model/1\nname: l\nsettings: {duration: 0.05, gravity: [0, 0, 0]}\nbodies:\n"
                "  - {name: arm, mass: 1, shape: {type: box, size: [1, 0.1, 0.1]}, position: [0.5, 0, 0]}\n"
                "joints:\n"
                "  - {name: j, type: %s, bodies: [world, arm], anchor: [0, 0, 0], axis: [0, 0, 1], limits: %s}\n"
                % (kind, lim))
        for cmd, rc, err in check_and_run(os.path.join(tmp, "lim.yaml"), text):
            said = re.search(r":7:5: warning: joint 'j': its limits \[[-0-9.e]+, [-0-9.e]+\] (rad|m) leave out its start",
                             err)
            check(rc == 0 and (said is not None) == warned, "%s, %s limits %s: %s (%d: %s)"
                  % (cmd, kind, lim, "warned" if warned else "not warned", rc, err.strip()[:160]))

    # An unwritable --json path is bad input: exit 2 before anything runs.
    # (Before the runs: no table on stdout, which compare prints after them.)
    rc, out_j, err = run("compare", pend, "--solvers", "pgs", "--steps", "100000", "--json",
                         os.path.join(tmp, "no", "such", "dir", "t.json"))
    check(rc == 2 and "--json" in err and not out_j.strip(),
          "compare --json into a missing folder: exit 2 before the runs (%d: %s)" % (rc, err.strip()[:100]))
    for bad in ("", tmp):  # an empty name or a folder passed that test and failed after the runs (exit 1)
        rc, out_j, err = run("compare", pend, "--solvers", "pgs", "--steps", "100000", "--json=" + bad)
        check(rc == 2 and ("not a file name" in err or "not a regular file" in err) and not out_j.strip(),
              "compare --json=%r: exit 2 before the runs (%d: %s)" % (bad, rc, err.strip()[:100]))
    # /stats/coupling_iterations is k of Algorithm 1, at most k_max, also on
    # steps re-run on a merged partition (the re-run's k was added to it:
    # 20% of steps "at k_max" where 3 of 60 had reached it).
    kk = os.path.join(tmp, "kk.h5")
    rc, _, err = run("run", os.path.join(EXAMPLES, "large_rock_pile.yaml"), "-o", kk, "--solver", "schur-bpp",
                     "--partition", "mindp", "--max-bodies", "1", "--steps", "60", "--quiet",
                     "--set", "settings.solver.max_coupling_iterations=5")
    kmax_ok = False
    if rc == 0:
        with h5py.File(kk, "r") as f:
            kmax_ok = int(f["/stats/coupling_iterations"][:].max()) <= int(f.attrs["max_coupling_iterations"]) == 5
    check(kmax_ok, "coupling_iterations at most k_max with merged re-runs (%d: %s)" % (rc, err.strip()[:100]))
    # Nothing moves: no subsystem and nothing iterated (schur said N 1, k 1).
    still = os.path.join(tmp, "still.yaml")
    with open(still, "w") as fh:
        fh.write("format: tessera-model/1\nname: still\nsettings: {steps: 3}\nbodies:\n"
                 "  - {name: a, fixed: true, shape: {type: sphere, radius: 0.1}}\n")
    for solver in ("schur-bpp", "fbic", "direct-bpp", "pgs"):  # (the whole-system solvers said 1)
        rc, _, err = run("run", still, "-o", kk, "--overwrite", "--quiet", "--solver", solver)
        none = False
        if rc == 0:
            with h5py.File(kk, "r") as f:
                none = not f["/stats/subsystems"][:].any() and not f["/stats/coupling_iterations"][:].any()
        check(none, "%s, nothing moves: /stats/subsystems and coupling_iterations 0 (%d: %s)"
              % (solver, rc, err.strip()[:100]))
    # The `partitioning` attribute says what the run used: the method (and
    # refinement) for the solvers that substructure, "none" for the
    # whole-system solvers, whatever settings.partitioning says (direct-bpp
    # and pgs runs said "semantic", or "mindp+kl" with --partition mindp
    # --refine kl); `check` and `info` say the same.
    pend2 = os.path.join(EXAMPLES, "pendulum.yaml")
    for solver, want in (("direct-bpp", "none"), ("pgs", "none"), ("pgs-sm", "none"), ("schur-bpp", "mindp+kl"),
                         ("schur-pgs-sm", "mindp+kl"), ("fbic", "mindp+kl")):
        opts = ("--solver", solver, "--partition", "mindp", "--refine", "kl")
        rc, _, err = run("run", pend2, "-o", kk, "--overwrite", "--quiet", "--steps", "2", *opts)
        got = None
        if rc in (0, 1):
            with h5py.File(kk, "r") as f:
                got = f.attrs["partitioning"]
                got = got.decode() if isinstance(got, bytes) else str(got)
        rc_c, out_c, _ = run("check", pend2, *opts)
        rc_i, out_i, _ = run("info", kk, "--json")
        got_i = json.loads(out_i).get("partitioning") if rc_i == 0 else None
        check(got == want and ("partitioning: %s\n" % want) in out_c and got_i == want,
              "%s: partitioning attribute, check and info say %r (run %d: %r, check: %r, info: %r; %s)"
              % (solver, want, rc, got, out_c[out_c.find("partitioning"):].split("\n")[0], got_i, err.strip()[:80]))
    # A well-posed model of mass ratio 1e11 keeps |A||lambda| near 1e11 |b|
    # every step: the null-space guard (solver.c, SCHUR_CANCEL_JUMP) sends at
    # most its first step to direct-bpp (it sent all of them).
    mr = os.path.join(tmp, "mr11.yaml")
    with open(mr, "w") as fh:
        fh.write("format: tessera-model/1\nname: mr11\nsettings: {steps: 20}\nbodies:\n"
                 "  - {name: light, mass: 1.0e-4, shape: {type: sphere, radius: 0.05}, position: [0, 0, -0.5], "
                 "group: A}\n"
                 "  - {name: heavy, mass: 1.0e7, shape: {type: sphere, radius: 0.5}, position: [0, 0, -1.5], "
                 "group: B}\njoints:\n"
                 "  - {name: top, type: ball, bodies: [world, light], anchor: [0, 0, 0]}\n"
                 "  - {name: j, type: ball, bodies: [light, heavy], anchor: [0, 0, -1.0]}\n")
    mj = os.path.join(tmp, "mr11.json")
    rc, _, err = run("compare", mr, "--solvers", "schur-bpp", "--json", mj, "--quiet")
    fb = json.load(open(mj))["rows"][0]["fallbacks"] if rc == 0 else None
    check(fb is not None and fb <= 1, "mass ratio 1e11: at most 1 of 20 steps to direct-bpp (%s, %d: %s)"
          % (fb, rc, err.strip()[:100]))
    # Rigid rows between the same two bodies adding up to more than 6 (a
    # fixed and a ball joint, both without compliance) are certainly
    # redundant: check and run say so at the later joint; with the default
    # compliance nothing is said.
    red = os.path.join(tmp, "red.yaml")
    body = ("format: tessera-model/1\nname: red\nsettings: {steps: 2}\nbodies:\n"
            "  - {name: a, mass: 1.0, shape: {type: box, size: [0.1, 0.1, 0.1]}, position: [0, 0, -0.1]}\n"
            "  - {name: b, mass: 1.0, shape: {type: box, size: [0.1, 0.1, 0.1]}, position: [0.2, 0, -0.1]}\n"
            "joints:\n  - {name: top, type: fixed, bodies: [world, a]}\n"
            "  - {name: f, type: fixed, bodies: [a, b]%s}\n"
            "  - {name: g, type: ball, bodies: [b, a], anchor: [0.1, 0, -0.1]%s}\n")
    for zero in (True, False):
        with open(red, "w") as fh:
            fh.write(body % ((", compliance: 0",) * 2 if zero else ("", "")))
        rc, _, err = run("check", red)
        said = (red + ":10:5: warning: joint 'g': with 'f', more than the 6 relative motions") in err
        check(rc == 0 and said == zero, "check: redundant rigid joints %s (%s)" % ("named" if zero else "not named",
                                                                                    err.strip()[:160]))
    # 6 rigid rows or fewer can be dependent too: two ball joints at one
    # point (rank 3 of 6), at two points (rank 5: the axis through them is
    # held twice). A ball and a distance joint (rank 4 of 4) and the same
    # balls with one compliant are silent.
    rank_body = ("format: tessera-model/1\nname: rk\nsettings: {steps: 2}\nbodies:\n"
                 "  - {name: a, mass: 1.0, shape: {type: box, size: [1, 0.1, 0.1]}, position: [0, 0, 0]}\n"
                 "  - {name: b, mass: 2.0, shape: {type: box, size: [1, 0.1, 0.1]}, position: [1, 0, 0.3]}\n"
                 "joints:\n  - {name: top, type: ball, bodies: [world, a], anchor: [-0.5, 0, 0]}\n"
                 "  - {name: p, type: ball, bodies: [a, b], anchor: [0.5, 0, 0.1], compliance: 0}\n"
                 "  - {name: q, %s}\n")
    for second, said in (("type: ball, bodies: [b, a], anchor: [0.5, 0, 0.1], compliance: 0", "rank 3 of 6"),
                         ("type: ball, bodies: [a, b], anchor: [0.5, 0.05, 0.2], compliance: 0", "rank 5 of 6"),
                         ("type: ball, bodies: [a, b], anchor: [0.5, 0.05, 0.2]", None),
                         ("type: distance, bodies: [a, b], anchors: [[0, 0, 0], [1, 0, 0.3]], compliance: 0",
                          None)):
        with open(red, "w") as fh:
            fh.write(rank_body % second)
        for cmd in (["check", red], ["run", red, "-o", os.path.join(tmp, "rk.h5"), "--overwrite", "--quiet"]):
            rc, _, err = run(*cmd)
            named = (red + ":10:5: warning: joint 'q': with 'p', its rows held without compliance are linearly "
                     "dependent") in err
            check(rc == 0 and named == (said is not None) and (said is None or said in err)
                  and (said is not None or "warning" not in err),
                  "%s: %s -> %s (%s)" % (cmd[0], second, said or "silent", err.strip()[:200]))
    own = os.path.join(tmp, "own.yaml")  # --json naming the model replaced the model with the table
    shutil.copy(pend, own)
    rc, _, err = run("compare", own, "--solvers", "pgs", "--steps", "2", "--json", own)
    with open(own) as fh:
        kept_model = fh.read() == open(pend).read()
    check(rc == 2 and "is the model file" in err and kept_model, "compare --json MODEL: exit 2, model kept (%d: %s)"
          % (rc, err.strip()[:100]))
    rc, out_v, err = run("--version=1")
    check(rc == 2 and "takes no value" in err, "tessera --version=1: exit 2, said (%d: %s)" % (rc, err.strip()[:100]))

    rc, _, err = run("run", pend, "-o", out, "--steps", "5", "--quiet")
    check(rc == 2 and "exists" in err, "an existing output is not overwritten without --overwrite")
    rc, _, err = run("run", pend, "-o", out, "--steps", "10", "--every", "5", "--overwrite", "--quiet",
                     "--set", "bodies.ball.mass=2.5")
    check(rc == 0, "--overwrite replaces the file")
    with h5py.File(out, "r") as f:
        check(f["/frames/time"].shape[0] == 3, "--every 5 over 10 steps writes frames 0, 5, 10")
        check(abs(f["/model/body_mass"][0] - 2.5) < 1e-15, "--set bodies.ball.mass=2.5 takes effect")
    check("warning" not in err, "no warning when the steps are a multiple of --every (%s)" % err.strip())
    rc, _, err = run("run", pend, "-o", out, "--steps", "12", "--every", "5", "--overwrite", "--quiet")
    with h5py.File(out, "r") as f:
        steps = f["/frames/step"][:].tolist()
    check(rc == 0 and steps == [0, 5, 10] and "the last 2 steps are simulated but not written" in err,
          "12 steps at --every 5: frames at 0, 5, 10 and a warning about the last 2 (%s)" % err.strip())

    vtk = os.path.join(tmp, "vtk")
    rc, _, err = run("run", pend, "-o", out, "--steps", "12", "--every", "4", "--overwrite", "--quiet", "--vtk", vtk)
    check(rc == 0, "run --vtk DIR exits 0 (%s)" % err.strip())
    pvd = os.path.join(vtk, "pendulum.pvd")
    if os.path.exists(pvd):
        import xml.etree.ElementTree as ET
        sets = ET.parse(pvd).getroot().findall("./Collection/DataSet")
        check(len(sets) == 4, "--vtk writes one DataSet per written frame (%d)" % len(sets))
        check(all(os.path.exists(os.path.join(vtk, d.get("file"))) for d in sets), "every .vtp the .pvd names exists")
        with h5py.File(out, "r") as f:
            times = f["/frames/time"][:]
        check(np.allclose([float(d.get("timestep")) for d in sets], times), "timesteps are the run's frame times")
    else:
        check(False, "--vtk wrote %s" % pvd)

    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as fh:
        fh.write("format: tessera-model/1\nname: bad\nbodies:\n  - name: b\n    mass: -1\n    shape: {type: sphere, radius: 1}\n    colour: red\n")
    out2 = os.path.join(tmp, "never.h5")
    rc, _, err = run("run", bad, "-o", out2)
    check(rc == 2, "a bad model exits 2")
    check(not os.path.exists(out2), "a bad model leaves no output file")
    lines = [l for l in err.splitlines() if ": error: " in l]
    check(len(lines) >= 2 and all(l.startswith(bad + ":") for l in lines),
          "every problem reported as FILE:LINE:COL: error: (got %r)" % lines)

    notyaml = os.path.join(tmp, "junk.yaml")
    with open(notyaml, "wb") as fh:
        fh.write(b"\x00\x01{[: ]]]\n\t- :\n")
    rc, _, err = run("check", notyaml)
    check(rc == 2 and err.startswith(notyaml + ":"), "a file that is not YAML: exit 2, located error")
    rc, _, err = run("check", os.path.join(tmp, "missing.yaml"))
    check(rc == 2 and "missing.yaml" in err, "a missing model file: exit 2, named")
    # A "billion laughs" (9 levels of 9 aliases, 10^9 nodes from 600 bytes):
    # refused at the alias that would pass the file's budget, measured before
    # it is copied, in a few tens of MB. It was refused only when 4e6 nodes
    # had been copied: 0.5 GB (2.9 s, 766 MB on the audit's machine).
    laughs = os.path.join(tmp, "laughs.yaml")
    with open(laughs, "w") as fh:
        fh.write("format: tessera-model/1\nname: t\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
        for i in range(1, 10):
            fh.write("l%d: &l%d [%s]\n" % (i, i, ", ".join(["*l%d" % (i - 1)] * 9)))
    with open(os.path.join(tmp, "laughs.err"), "w+") as errf:
        p = subprocess.Popen([TESSERA, "check", laughs], stdout=subprocess.DEVNULL, stderr=errf)
        _, status, usage = os.wait4(p.pid, 0)  # the rusage of this child alone
        p.returncode = os.waitstatus_to_exitcode(status)
        errf.seek(0)
        err = errf.read()
    mb = usage.ru_maxrss / 1024.0
    check(p.returncode == 2 and re.match(re.escape(laughs) + r":8:\d+: error: alias '\*l4' would copy more than", err)
          and mb < 200, "a billion laughs: exit 2 at the alias, in %.0f MB (< 200) and %.2f s (%d: %s)"
          % (mb, usage.ru_utime + usage.ru_stime, p.returncode, err.strip()[:160]))
    # More steps than a run may have (TSR_MAX_STEPS, 1e9): refused, however
    # given (the --duration overflow ran 0 steps and said complete).
    huge = os.path.join(tmp, "huge.h5")
    for args in (["--duration", "1e308"], ["--steps", "1000000001"], ["--steps", "99999999999999999999"],
                 ["--set", "settings.duration=1e300"]):
        rc, _, err = run("run", pend, "-o", huge, *args)
        check(rc == 2 and "at most 1000000000" in err and not os.path.exists(huge),
              "%s: exit 2, the bound named, no file (%s)" % (" ".join(args), err.strip().splitlines()[0] if err else ""))
    # Fewer than one step, however given: refused like a model's duration
    # (--duration 0.001 used to run 0 steps and say complete).
    for args in (["--duration", "0.001"], ["--set", "settings.duration=0.001"]):
        rc, _, err = run("run", pend, "-o", huge, *args)
        check(rc == 2 and "gives no step" in err and not os.path.exists(huge),
              "%s: exit 2, no step named, no file (%s)" % (" ".join(args), err.strip().splitlines()[0] if err else ""))
    # Numbers written as a user writes them, nothing else: strtod read
    # "--duration 0x10" as 16 s (a hex float) and "--progress inf" as never.
    for args in (["--duration", "0x10"], ["--duration", "0x1p3"], ["--duration", "inf"], ["--duration", "nan"],
                 ["--progress", "infinity"], ["--duration", " 1"], ["--duration", "1e"]):
        rc, _, err = run("run", pend, "-o", huge, *args)
        check(rc == 2 and ("'%s'" % args[1]) in err and not os.path.exists(huge),
              "%s '%s': exit 2, the value quoted, no file (%s)" % (args[0], args[1], err.strip()[:120]))
    rc, _, err = run("run", pend, "-o", huge, "--duration", ".05", "--quiet")
    check(rc == 0 and os.path.exists(huge), "--duration .05 (a plain decimal) runs (%s)" % err.strip()[:120])
    if os.path.exists(huge):
        os.remove(huge)
    # And more threads than TSR_MAX_THREADS (libgomp crashed at 99999).
    for args in (["--threads", "99999"], ["--set", "settings.solver.threads=5000"]):
        rc, _, err = run("run", pend, "-o", huge, "--solver", "schur-bpp", *args)
        check(rc == 2 and "at most 1024" in err and not os.path.exists(huge),
              "%s: exit 2, the bound named, no file (%s)" % (" ".join(args), err.strip().splitlines()[0] if err else ""))
    rc, _, err = run("run", pend, "-o", out, "--overwrite", "--solver", "no-such")
    check(rc == 2, "an unknown --solver: exit 2")
    rc, _, err = run("run", pend, "-o", out, "--overwrite", "--set", "bodies.bal.mass=1")
    check(rc == 2 and "ball" in err, "--set naming no body: exit 2 with a suggestion (%s)" % err.strip())
    rc, out_s, err = run("check", pend)
    check(rc == 0 and "bodies: 1" in out_s, "check prints a summary")
    check("initial overlaps: 0" in out_s and "warning" not in err, "a clean model: no overlap, no warning")

    # Shapes that start inside one another: a warning located at the later
    # body's definition, the count in the summary, exit 0; run warns too.
    ovl = os.path.join(tmp, "overlap.yaml")
    with open(ovl, "w") as fh:
        fh.write(OVERLAP)
    rc, out_s, err = run("check", ovl)
    warned = re.findall(r"^%s:(\d+):\d+: warning: '(\w+)' starts inside '(\w+)'" % re.escape(ovl), err, re.M)
    check(rc == 0 and "initial overlaps: 1" in out_s, "check counts the one overlapping pair (%s)" % out_s.strip())
    check(warned == [("7", "b", "a")], "the warning names b inside a at b's line 7 (%s)" % err.strip())
    rc, _, err = run("run", ovl, "-o", os.path.join(tmp, "ovl.h5"), "--quiet")
    check(rc == 0 and "'b' starts inside 'a'" in err, "run warns before simulating (%s)" % err.strip())

    # Progress in a batch job's log (stderr not a terminal): whole lines every
    # --progress seconds, none by default on a short run, none with --quiet.
    wrap_model = os.path.join(EXAMPLES, "chain_wrap.yaml")
    logged = os.path.join(tmp, "logged.h5")
    rc, _, err = run("run", wrap_model, "-o", logged, "--steps", "1200", "--progress", "0.02")
    lines = re.findall(r"^chain_wrap: step (\d+)/1200 \((\d+)%\), t = ", err, re.M)
    check(rc == 0 and len(lines) >= 2 and all(0 < int(a) <= 1200 for a, _ in lines) and
          [int(a) for a, _ in lines] == sorted(int(a) for a, _ in lines),
          "--progress 0.02: increasing step lines in the log (%d)" % len(lines))
    rc, _, err = run("run", pend, "-o", logged, "--overwrite", "--steps", "30")
    check(rc == 0 and "step " not in err, "a short run logs no progress line by default")
    rc, _, err = run("run", wrap_model, "-o", logged, "--overwrite", "--steps", "300", "--progress", "0.01", "--quiet")
    check(rc == 0 and err == "", "--quiet: nothing on stderr (%r)" % err[:200])
    rc, _, err = run("run", pend, "-o", logged, "--overwrite", "--progress", "-1")
    check(rc == 2 and "--progress" in err, "--progress -1: exit 2")
    # export-vtk and compare take --progress too (frames; steps of each solver).
    rc, _, err = run("export-vtk", logged, "-o", os.path.join(tmp, "logged_vtk"), "--progress", "0")
    check(rc == 0 and err == "", "export-vtk --progress 0: no line (%r)" % err[:200])
    rc, _, err = run("export-vtk", logged, "-o", os.path.join(tmp, "logged_vtk"), "--progress", "1e-9", "--threads", "2")
    done = [int(a) for a in re.findall(r"^\S+logged\.h5: frame (\d+)/301 \(\d+%\), [0-9.]+ s elapsed", err, re.M)]
    check(rc == 0 and done == list(range(1, 302)), "export-vtk --progress: one line a frame, counted in order (%d)"
          % len(done))
    # OMP_NUM_THREADS is export-vtk's default thread count, bounded as --threads
    # is (libgomp crashed at 70000).
    p = subprocess.run([TESSERA, "export-vtk", logged, "-o", os.path.join(tmp, "omp_vtk"), "-q"], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, OMP_NUM_THREADS="100000"))
    check(p.returncode == 2 and "at most 1024" in p.stderr and not os.path.exists(os.path.join(tmp, "omp_vtk")),
          "export-vtk under OMP_NUM_THREADS=100000: exit 2, the bound named, no folder (%s)" % p.stderr.strip()[:160])
    rc, _, err = run("export-vtk", logged, "-o", os.path.join(tmp, "logged_vtk"), "--progress", "x")
    check(rc == 2 and "--progress expects" in err, "export-vtk --progress x: exit 2 (%s)" % err.strip())
    rc, _, err = run("compare", pend, "--solvers", "direct-bpp,pgs", "--steps", "20", "--progress", "1e-9")
    check(rc == 0 and re.findall(r"^pgs: step 20/20 ", err, re.M) and "direct-bpp: step 20/20" in err,
          "compare --progress: each solver's steps (%s)" % err.strip()[-120:])

    # A full disk (here: a file-size limit, writes fail with EFBIG): exit 1,
    # the system's reason in the message, and none of HDF5's own messages.
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (150000, 150000))

    for steps, where in (("300", "cannot finish the run file"), ("3000", "cannot write frame at step")):
        p = subprocess.run([TESSERA, "run", os.path.join(EXAMPLES, "hanging_chain.yaml"), "-o",
                            os.path.join(tmp, "full.h5"), "--overwrite", "--quiet", "--steps", steps],
                           capture_output=True, text=True, timeout=300, preexec_fn=small_files)
        check(p.returncode == 1 and where in p.stderr and os.strerror(errno.EFBIG) in p.stderr and "HDF5" not in p.stderr,
              "a write that fails (%s steps): exit 1, '%s', the reason (%s)" % (steps, where, p.stderr.strip()))

    # An interrupt ends the step in progress, not only the run between steps:
    # PGS to 1e-15 on a 2e8:1 chain takes over 100 s for its first step, and
    # SIGINT must end it within a sweep. The step is not written: the file
    # holds the initial frame, complete = 0, exit 130.
    slow = os.path.join(tmp, "slow.h5")
    proc = subprocess.Popen([TESSERA, "run", os.path.join(EXAMPLES, "hanging_chain.yaml"), "-o", slow, "--quiet",
                             "--solver", "pgs", "--set", "settings.solver.iterations=1000000000",
                             "--set", "settings.solver.tolerance=1e-15", "--set", "bodies.load.mass=5e7"],
                            stderr=subprocess.PIPE, text=True)
    published(proc, slow)
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    try:
        _, err = proc.communicate(timeout=30)
        waited = time.monotonic() - t0
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        waited = math.inf
    check(proc.returncode == 130 and waited < 30, "SIGINT ends a step in progress (%.2f s, exit %s)" %
          (waited, proc.returncode))
    check("interrupted at step 1" in err, "the message names the step (%s)" % err.strip())
    with h5py.File(slow, "r") as f:
        check(f.attrs["complete"] == 0 and f["/frames/time"].shape[0] == 1 and f["/stats/solve_seconds"].shape[0] == 0,
              "the interrupted step is not written: the initial frame alone, complete = 0")
    # With no step there is no statistic: info --json says null for each,
    # the share of steps at k_max too (it said 0).
    rc, jout, err = run("info", slow, "--json")
    js0 = json.loads(jout) if rc == 0 else {}
    check(rc == 0 and js0.get("steps") == 0 and all(js0.get(k, 0) is None for k in
                                                    ("pct_at_kmax", "coupling_iterations_mean", "solve_ms_mean")),
          "info --json of a run with no step: null statistics (%d: %s)" % (rc, {k: js0.get(k) for k in
                                                                                ("steps", "pct_at_kmax")}))

    # One signal delivered twice within microseconds (GNU timeout signals the
    # child, then its process group) is one request, not a second Ctrl-C:
    # the run still ends its step and its file.
    slow = os.path.join(tmp, "slow2.h5")  # a new name: published() waits for it to appear
    proc = subprocess.Popen([TESSERA, "run", os.path.join(EXAMPLES, "hanging_chain.yaml"), "-o", slow, "--quiet",
                             "--solver", "pgs", "--set", "settings.solver.iterations=1000000000",
                             "--set", "settings.solver.tolerance=1e-15", "--set", "bodies.load.mass=5e7"],
                            stderr=subprocess.PIPE, text=True)
    published(proc, slow)
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    check(proc.returncode == 130 and "interrupted at step 1" in err,
          "SIGTERM sent twice at once ends the run as one does (exit %s: %s)" % (proc.returncode, err.strip()[:100]))

    # Interrupted while replacing an existing file (--overwrite): the file
    # was replaced when the run was set up (README), so it holds this run's
    # frames, complete = 0, exit 130 as without --overwrite, and the message
    # says the earlier file is gone (it did not); no staging file is left.
    # Interrupted after something else replaced or removed its file: the
    # output is lost, said, and the interrupt still decides the status, 130
    # (it exited 1, and a script stopped by Ctrl-C went on).
    slow_args = ["--quiet", "--solver", "pgs", "--set", "settings.solver.iterations=1000000000",
                 "--set", "settings.solver.tolerance=1e-15", "--set", "bodies.load.mass=5e7"]
    hang = os.path.join(EXAMPLES, "hanging_chain.yaml")
    sigdir = os.path.join(tmp, "sig")
    os.mkdir(sigdir)
    for sig, other in ((signal.SIGINT, None), (signal.SIGTERM, None), (signal.SIGINT, "remove"),
                       (signal.SIGTERM, "replace")):
        target = os.path.join(sigdir, "old.h5")
        rc, _, err = run("run", pend, "-o", target, "--steps", "3", "--quiet", "--overwrite")
        old_ino = os.stat(target).st_ino
        proc = subprocess.Popen([TESSERA, "run", hang, "-o", target, "--overwrite", *slow_args],
                                stderr=subprocess.PIPE, text=True)
        t0 = time.monotonic()
        while os.stat(target).st_ino == old_ino and proc.poll() is None and time.monotonic() - t0 < 60:
            time.sleep(0.02)
        time.sleep(0.3)  # (inside its first step, which takes over 100 s)
        if other == "remove":
            os.remove(target)
        elif other == "replace":
            rc, _, _ = run("run", pend, "-o", target, "--steps", "3", "--quiet", "--overwrite")
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        left = sorted(os.listdir(sigdir))
        model = complete = frames = None
        if os.path.exists(target):
            with h5py.File(target, "r") as f:
                model, complete, frames = f.attrs["model_name"], int(f.attrs["complete"]), f["/frames/time"].shape[0]
                model = model.decode() if isinstance(model, bytes) else str(model)
        if other is None:
            ok = ("interrupted at step 1, which is not written" in err and "replaced the earlier file" in err
                  and "lost" not in err and (model, complete, frames) == ("hanging_chain", 0, 1) and left == ["old.h5"])
        else:
            ok = ("output is lost" in err and "holds" not in err and "interrupted at step 1" in err
                  and left == ([] if other == "remove" else ["old.h5"])
                  and (other == "remove" or (model, complete) == ("pendulum", 1)))
        check(proc.returncode == 130 and ok,
              "%s while replacing a file%s: exit 130, %s (exit %s, %s, %s: %s)"
              % (signal.Signals(sig).name, "" if other is None else ", after something else %sd it" % other,
                 "this run's frames, complete = 0, said" if other is None else "its output said lost",
                 proc.returncode, (model, complete, frames), left, err.strip()[:240]))

    # A step whose impulses are not finite was not solved, whatever the
    # bounds' comparisons say: its statistics say converged = 0 and an
    # infinite error (they said 1 and 0).
    nf = os.path.join(tmp, "nf.h5")
    rc, _, err = run("run", pend, "-o", nf, "--quiet", "--steps", "5", "--set", "bodies.ball.velocity=[1.7e308,0,0]")
    with h5py.File(nf, "r") as f:
        conv, merr = f["/stats/converged"][:], f["/stats/mlcp_error"][:]
    check(rc == 1 and len(conv) == 1 and conv[0] == 0 and not np.isfinite(merr[0]),
          "a step with non-finite impulses is not converged (exit %d, converged %s, error %s)" % (rc, conv, merr))

    faller = os.path.join(tmp, "faller.yaml")
    with open(faller, "w") as fh:
        fh.write(FREE_BODY)
    out3 = os.path.join(tmp, "nan.h5")
    rc, _, err = run("run", faller, "-o", out3, "--quiet", "--set", "settings.gravity=[0,0,-1e308]")
    check(rc == 1, "a diverging run exits 1 (got %d)" % rc)
    check("rock" in err and "step" in err, "the message names the step and the body (%s)" % err.strip())
    with h5py.File(out3, "r") as f:
        check(f.attrs["complete"] == 0, "the file of a diverged run says complete = 0")
        n = f["/frames/time"].shape[0]
        check(0 < n < 401, "it holds the frames up to the failure (%d)" % n)
        pos = f["/bodies/position"][: n - 1]
        check(np.isfinite(pos).all(), "frames before the failing one are finite")
    # A finite state whose joint error overflows has diverged too: a hinge
    # motor at 1e300 rad/s ran to the end with exit 0 and "100% converged".
    spun = write_lines(os.path.join(tmp, "spun.yaml"), [
        "format: tessera-model/1", "name: spun", "settings: {step: 0.01, steps: 30}", "bodies:",
        "  - {name: a, mass: 1, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [0, 0, -1]}",
        "  - {name: b, mass: 1, shape: {type: box, size: [0.2, 0.2, 0.2]}, position: [0, 0, -2]}", "joints:",
        "  - {name: j0, type: ball, bodies: [world, a], anchor: [0, 0, 0]}",
        "  - {name: j, type: hinge, bodies: [a, b], anchor: [0, 0, -1.5], axis: [0, 1, 0],",
        "     motor: {speed: 1.0e300, max_torque: 1.0e300}}"])
    spun_h5 = os.path.join(tmp, "spun.h5")
    rc, _, err = run("run", spun, "-o", spun_h5, "--quiet")
    with h5py.File(spun_h5, "r") as f:
        complete = f.attrs["complete"]
    check(rc == 1 and "not finite; the simulation diverged" in err and complete == 0,
          "a motor at 1e300 rad/s: exit 1, diverged, complete = 0 (%d, %s)" % (rc, err.strip()[:160]))

    # Steps without a single constraint row (a body in free fall): every
    # solver runs them, in run, compare and compare --replay (their arrays
    # are NULL then; under the sanitizer build a memcpy of NULL once failed).
    solvers = "direct-bpp,pgs,pgs-sm,schur-bpp,schur-pgs-sm,fbic"
    bad = []
    for s in solvers.split(","):
        rc, _, err = run("run", faller, "-o", os.path.join(tmp, "free.h5"), "--quiet", "--overwrite", "--steps", "3",
                         "--solver", s)
        if rc != 0:
            bad.append("run %s: %s" % (s, err.strip()[:80]))
    rc, _, err = run("compare", faller, "--solvers", solvers, "--steps", "3", "--quiet")
    if rc != 0:
        bad.append("compare: " + err.strip()[:80])
    rc, _, err = run("compare", faller, "--solvers", solvers, "--steps", "3", "--quiet", "--replay", "schur-bpp")
    if rc != 0:
        bad.append("compare --replay: " + err.strip()[:80])
    check(not bad, "a model without constraint rows runs with every solver, compare and replay (%s)" % bad)

    # OpenMP's wait (src/cli/main.c): tessera runs with GOMP_SPINCOUNT=1000
    # unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT (kept as given),
    # or TSR_NO_REEXEC=1. --version reports what the process runs with.
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "TSR_NO_REEXEC")}
    def version_env(extra):
        p = subprocess.run([TESSERA, "--version"], capture_output=True, text=True, env=dict(base, **extra))
        return p.returncode, p.stdout
    rc, out_v = version_env({})
    check(rc == 0 and "GOMP_SPINCOUNT=1000" in out_v and "OMP_WAIT_POLICY=(unset)" in out_v,
          "default: GOMP_SPINCOUNT=1000 (%s)" % out_v.strip().replace("\n", "; "))
    rc, out_v = version_env({"OMP_WAIT_POLICY": "passive"})
    check(rc == 0 and "OMP_WAIT_POLICY=passive" in out_v and "GOMP_SPINCOUNT=(unset)" in out_v,
          "a user's OMP_WAIT_POLICY is kept, no spin count added")
    rc, out_v = version_env({"GOMP_SPINCOUNT": "77"})
    check(rc == 0 and "GOMP_SPINCOUNT=77" in out_v, "a user's GOMP_SPINCOUNT is kept")
    rc, out_v = version_env({"TSR_NO_REEXEC": "1"})
    check(rc == 0 and "GOMP_SPINCOUNT=(unset)" in out_v, "TSR_NO_REEXEC=1: libgomp's default")

    # k_max: a model that leaves settings.solver.max_coupling_iterations out
    # runs each solver with its own (seed 000 Table 1: 250 for fbic, 10 for
    # the Schur solvers), whether the solver comes from the model or from
    # --solver; a k_max the model sets is kept, 10 included. The run file's
    # attribute is the k_max the run used.
    def kmax_of(*args):
        h5 = os.path.join(tmp, "kmax.h5")
        rc, _, err = run("run", os.path.join(EXAMPLES, "hanging_chain.yaml"), "--steps", "2", "-o", h5,
                         "--overwrite", "--quiet", *args)
        if rc != 0:
            return "rc %d: %s" % (rc, err.strip())
        with h5py.File(h5, "r") as f:
            return int(f.attrs["max_coupling_iterations"])
    got = (kmax_of("--solver", "fbic"), kmax_of("--solver", "schur-bpp"),
           kmax_of("--solver", "fbic", "--set", "settings.solver.max_coupling_iterations=10"),
           kmax_of("--solver", "schur-bpp", "--set", "settings.solver.max_coupling_iterations=40"))
    check(got == (250, 10, 10, 40), "k_max: fbic 250, schur-bpp 10 unless the model sets it (%s)" % (got,))

    # The run file keeps what the command line changed in the model beyond
    # /model/source: --set in order, then the dedicated flags as given
    # (/model/overrides), and `info` shows them; a plain run has none.
    h5 = os.path.join(tmp, "overrides.h5")
    args = ["--set", "settings.contact.friction_refresh=1", "--set", "settings.gravity=[0,0,-1.62]",
            "--solver", "schur-bpp", "--max-bodies", "8", "--threads", "2", "--steps", "2"]
    rc, _, err = run("run", os.path.join(EXAMPLES, "hanging_chain.yaml"), "-o", h5, "--overwrite", "--quiet", *args)
    want = ["--set settings.contact.friction_refresh=1", "--set settings.gravity=[0,0,-1.62]",
            "--solver schur-bpp", "--max-bodies 8", "--threads 2", "--steps 2"]
    with h5py.File(h5, "r") as f:
        got = list(f["/model/overrides"].asstr()[:])
    check(rc == 0 and got == want, "/model/overrides: %s (%s)" % (got, err.strip()))
    rc, out_i, _ = run("info", h5)
    check(rc == 0 and ("overrides: " + " ".join(want)) in out_i, "info prints the overrides")
    h5b = os.path.join(tmp, "plain.h5")
    rc, _, _ = run("run", os.path.join(EXAMPLES, "hanging_chain.yaml"), "-o", h5b, "--overwrite", "--quiet",
                   "--steps", "1")
    with h5py.File(h5b, "r") as f:
        got = list(f["/model/overrides"].asstr()[:])
    rc2, out_i, _ = run("info", h5b)
    check(rc == 0 and got == ["--steps 1"] and rc2 == 0 and "overrides: --steps 1" in out_i,
          "a run with only --steps records just that (%s)" % got)

    # tessera compare: the table, --json, --cond. hanging_chain is bilateral:
    # schur-bpp must converge in exactly one coupling iteration on every step
    # (seed 000 §4: with no unilateral rows the interface solve is exact).
    chain = os.path.join(EXAMPLES, "hanging_chain.yaml")
    js = os.path.join(tmp, "cmp.json")
    rc, out_s, err = run("compare", chain, "--solvers", "direct-bpp,schur-bpp", "--steps", "20", "--quiet",
                         "--json", js, "--cond")
    check(rc == 0 and "direct-bpp" in out_s and "schur-bpp" in out_s, "compare prints a table (%s)" % err.strip())
    with open(js) as fh:
        rows = {r["solver"]: r for r in json.load(fh)["rows"]}
    check(set(rows) == {"direct-bpp", "schur-bpp"}, "--json holds one row per solver")
    sb, db = rows.get("schur-bpp", {}), rows.get("direct-bpp", {})
    check(sb.get("steps") == 20 and db.get("steps") == 20, "both ran the 20 steps")
    # The JSON has every number of the table, its speedup column too:
    # direct-bpp's mean over the solver's.
    sp_s, sp_d = sb.get("speedup"), db.get("speedup")
    check(sp_d == 1.0 and sp_s is not None and sb.get("mean_ms", 0) > 0
          and abs(sp_s - db["mean_ms"] / sb["mean_ms"]) <= 1e-12 * sp_s,
          "--json: speedup = direct-bpp's mean_ms over the solver's (%s, %s)" % (sp_d, sp_s))
    check(sb.get("mean_k") == 1.0 and sb.get("pct_kmax") == 0.0, "schur-bpp: one coupling iteration per step")
    # Coupling iterations are not a whole-system solver's: null, and "-" in
    # the table (not 0.00, which reads as "no iteration was needed").
    check("mean_k" in db and db["mean_k"] is None and db.get("pct_kmax", 0) is None,
          "direct-bpp: no coupling iterations (null), got %s" % db.get("mean_k"))
    line = next((l for l in out_s.splitlines() if l.startswith("direct-bpp ")), "").split()
    check(len(line) > 5 and line[4] == "-" and line[5] == "-", "the table shows avg k and %% kmax of direct-bpp as - (%s)" % line)
    check(sb.get("subsystems", 0) > 1 and sb.get("interface_rows", 0) > 0, "schur-bpp substructured the chain")
    check(sb.get("median_err", 1.0) < 1e-9 and db.get("median_err", 1.0) < 1e-9, "both solve the MLCP")
    check(sb.get("median_err", 1.0) <= sb.get("max_err", 0.0) < 1e-9,
          "max_err: the largest step error, no smaller than the median")
    # max_rel: every row of every step within 1e-10 of its own terms is what
    # direct-bpp's polishing guarantees (README, "row by row"); a bilateral
    # chain solved exactly by either solver is at round-off.
    check(0.0 <= db.get("max_rel", 1.0) <= 1e-10 and 0.0 <= sb.get("max_rel", 1.0) <= 1e-10,
          "max_rel within 1e-10 for both (%s, %s)" % (db.get("max_rel"), sb.get("max_rel")))
    check("max rel" in out_s, "the table has a max rel column")
    c = sb.get("cond_mean")
    check(c is not None and c >= 1.0 and math.isfinite(c), "--cond: cond(S_Gamma) >= 1 (%s)" % c)
    check(db.get("cond_mean") is None and sb.get("fallbacks") == 0, "no cond for direct-bpp, no fallback")
    # No S_Gamma to measure (no interface rows; fbic forms none): said, not "nan".
    js_nd = os.path.join(tmp, "cmp_no_direct.json")
    rc, out_c, err = run("compare", pend, "--solvers", "schur-bpp,fbic", "--steps", "3", "--quiet", "--cond",
                         "--json", js_nd)
    check(rc == 0 and "no interface rows" in out_c and "fbic forms no S_Gamma" in out_c and "nan" not in out_c,
          "--cond without an S_Gamma says why (%d: %s)" % (rc, out_c.strip()[-160:]))
    # Without direct-bpp there is no speedup: "-" in the table, null in the JSON.
    with open(js_nd) as fh:
        nd = json.load(fh)["rows"]
    check(all("speedup" in r and r["speedup"] is None for r in nd), "--json: speedup null without direct-bpp (%s)"
          % [r.get("speedup", "absent") for r in nd])
    # A parallel phase lasts at least as long as its longest task, which is
    # timed inside it; a step converged in one coupling iteration never merges.
    ph = sb.get("phase_ms", {})
    sl, bl = ph.get("schur_longest") or 0.0, ph.get("subsystems_longest") or 0.0
    check(0.0 < sl <= ph.get("schur", 0.0) and 0.0 < bl <= ph.get("subsystems", 0.0),
          "critical paths within their phases (%s)" % ph)
    check(ph.get("merged") == 0.0 and "longest, ms:" in out_s, "no merged re-run; the table shows the critical paths")
    # The bound at any thread count: every parallel loop at its longest item
    # and the serial code as it is. It keeps both critical paths and cannot
    # exceed the solve itself; a whole-system solver has none.
    bd = ph.get("any_threads_bound")
    check(bd is not None and sl + bl <= bd * (1 + 1e-12) and bd <= sb.get("mean_ms", 0.0) * (1 + 1e-12),
          "any-threads bound between the critical paths and the solve (%s <= %s <= %s)" %
          (sl + bl, bd, sb.get("mean_ms")))
    check(db.get("phase_ms", {}).get("any_threads_bound", 0.0) is None and "any threads" in out_s,
          "no bound for direct-bpp (null); the table shows it")
    # One subsystem: no loop that threads could split, so no thread count
    # helps and the bound is the solve time itself.
    js_one = os.path.join(tmp, "cmp_one.json")
    rc, _, err = run("compare", chain, "--solvers", "schur-bpp", "--partition", "none", "--steps", "5", "--quiet",
                     "--json", js_one)
    if rc == 0:
        with open(js_one) as fh:
            one = json.load(fh)["rows"][0]
        check(one.get("phase_ms", {}).get("any_threads_bound") == one.get("mean_ms"),
              "one subsystem: the any-threads bound is the solve time (%s, %s)" %
              (one.get("phase_ms", {}).get("any_threads_bound"), one.get("mean_ms")))
    else:
        check(False, "compare --partition none runs (%s)" % err.strip()[-200:])
    # --replay: the listed solvers solve the reference run's own MLCPs from
    # its warm starts, each with its own instance and the world's partition
    # policy. A solver that is also the reference therefore repeats the
    # reference run's solves exactly: the same k and the same errors as in a
    # whole run of that solver (chain_wrap: contact, 10 subsystems).
    wrap = os.path.join(EXAMPLES, "chain_wrap.yaml")
    jw, jr = os.path.join(tmp, "whole.json"), os.path.join(tmp, "replay.json")
    rc1, _, err1 = run("compare", wrap, "--solvers", "schur-bpp", "--steps", "40", "--threads", "2", "--quiet",
                       "--json", jw)
    rc2, out_r, err2 = run("compare", wrap, "--solvers", "direct-bpp,schur-bpp", "--replay", "schur-bpp", "--steps",
                           "40", "--threads", "2", "--quiet", "--json", jr)
    check(rc1 == 0 and rc2 == 0 and "same MLCPs" in out_r, "compare --replay runs (%s%s)" % (err1, err2))
    if rc1 == 0 and rc2 == 0:
        with open(jw) as fh:
            whole = json.load(fh)["rows"][0]
        with open(jr) as fh:
            rep = json.load(fh)
        rr = {r["solver"]: r for r in rep["rows"]}
        rs, rd = rr.get("schur-bpp", {}), rr.get("direct-bpp", {})
        check(rep.get("replay") == "schur-bpp" and rs.get("steps") == 40 and rd.get("steps") == 40,
              "--replay: the reference named, 40 steps for each solver")
        check(rs.get("mean_k") == whole["mean_k"] and rs.get("median_err") == whole["median_err"] and
              rs.get("max_joint") == whole["max_joint"] and rs.get("max_rel") == whole["max_rel"],
              "--replay: schur-bpp on its own run's MLCPs repeats that run (k %s / %s, err %s / %s)" %
              (rs.get("mean_k"), whole["mean_k"], rs.get("median_err"), whole["median_err"]))
        check(rd.get("pct_converged") == 100.0 and rd.get("median_err", 1.0) < 1e-9 and rd.get("median_ratio") == 1.0,
              "--replay: direct-bpp solves every replayed MLCP; its own ratio is 1")
        check(rs.get("mean_subsystems", 0) > 1 and rs.get("phase_ms", {}).get("subsystems", 0) > 0,
              "--replay: schur-bpp substructured, phases timed")
    rc, _, err = run("compare", chain, "--solvers", "direct-bpp", "--replay", "nope", "--steps", "2")
    check(rc == 2 and "nope" in err, "compare --replay with an unknown solver: exit 2, named")
    rc, _, err = run("compare", chain, "--solvers", "direct-bpp", "--replay")
    check(rc == 2 and "--replay" in err, "compare --replay without a name: exit 2")
    rc, out0, err = run("compare", chain, "--solvers", "direct-bpp", "--steps", "0")
    check(rc == 2 and "nothing to compare" in err and "nan" not in out0, "compare --steps 0: exit 2, said, no table")
    # run and check take at least one step, as the model's `steps` (run
    # --steps 0 wrote a file of no step marked complete); --every stays
    # within an int (4294967297 became 1).
    for args in (("run", chain, "-o", os.path.join(tmp, "s0.h5"), "--steps", "0"), ("check", chain, "--steps", "0"),
                 ("run", chain, "-o", os.path.join(tmp, "e.h5"), "--steps", "2", "--every", "4294967297")):
        rc, _, err = run(*args)
        check(rc == 2 and ("--steps" in err or "--every" in err) and not os.path.exists(os.path.join(tmp, "s0.h5")),
              "%s: exit 2, said (%d: %s)" % (" ".join(args[:1] + args[-2:]), rc, err.strip()[:80]))
    rc, _, err = run("compare", chain, "--solvers", "direct-bpp", "--steps", "2", "--every", "2")
    check(rc == 2 and "--every" in err, "compare --every (no run file to thin): exit 2, said")
    rc, _, err = run("compare", chain, "--solvers", "direct-bpp,nope", "--steps", "2")
    check(rc == 2 and "nope" in err, "compare with an unknown solver: exit 2, named")
    rc, _, err = run("compare", chain, "--solvers", "direct-bpp", "--steps", "2", "--json", "/nonexistent/x.json")
    check(rc == 2 and "cannot write" in err, "compare --json to an unwritable path: exit 2 (bad input), said")

# A body that carries many contacts couples all their rows in A (world.c
# check_coupling): a plate with 100 spheres on it. Past the dense-block
# threshold the run warns once, naming the body; a step whose A would not fit
# in the memory available fails with that said and the file kept incomplete.
HUB = ["format: tessera-model/1", "name: hub", "settings: {step: 0.016666666666666666, steps: 5}",
       "bodies:", "  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}",
       "  - {name: plate, mass: 500, shape: {type: box, size: [2.4, 2.4, 0.1]}, position: [0, 0, 0.05]}"]
HUB += ["  - {name: s%d, mass: 1, shape: {type: sphere, radius: 0.05}, position: [%.2f, %.2f, 0.15]}"
        % (i, 0.22 * (i % 10) - 0.99, 0.22 * (i // 10) - 0.99) for i in range(100)]
with tempfile.TemporaryDirectory() as tmp:
    model = write_lines(os.path.join(tmp, "hub.yaml"), HUB)
    h5 = os.path.join(tmp, "hub.h5")

    def run_env(env, *args):
        p = subprocess.run([TESSERA, *args], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, **env))
        return p.returncode, p.stderr

    rc, err = run_env({}, "run", model, "-o", h5, "--quiet")
    check(rc == 0 and "warning" not in err, "a plate with 100 spheres: no dense-block warning below 3,000 rows")
    rc, err = run_env({"TSR_DENSE_ROWS": "200"}, "run", model, "-o", h5, "--quiet", "--overwrite")
    check(rc == 0 and err.count("warning") == 1 and "'plate'" in err and "dense" in err,
          "past TSR_DENSE_ROWS the run warns once, naming the plate (%s)" % err.strip()[:160])
    # A documented setting with a value that is no number in its range is
    # refused before the run starts (atoi read 'x' as 0: a warning for every
    # body, or struck bodies silently off), and the file is not replaced.
    for var, val in (("TSR_DENSE_ROWS", "x"), ("TSR_DENSE_ROWS", "0"), ("TSR_MEMORY_LIMIT", "abc"),
                     ("TSR_RECOLLIDE", "one"), ("TSR_RECOLLIDE", "5"), ("TSR_RECOLLIDE", "1.5"),
                     ("TSR_FIRST_FRICTION", "2"), ("TSR_FIRST_FRICTION", "off"), ("TSR_MEMORY_LIMIT", "0x100000"),
                     ("TSR_MEMORY_LIMIT", "inf"), ("TSR_DENSE_ROWS", "1e"), ("TSR_FACTOR_FLOPS", "1e9"),
                     ("TSR_FACTOR_FLOPS", "lots")):
        before = os.path.getmtime(h5)
        rc, err = run_env({var: val}, "run", model, "-o", h5, "--quiet", "--overwrite")
        check(rc == 2 and ("%s='%s'" % (var, val)) in err and os.path.getmtime(h5) == before,
              "%s=%s: exit 2, said, the file untouched (%s)" % (var, val, err.strip()[:160]))
    rc, err = run_env({"TSR_MEMORY_LIMIT": "100000"}, "run", model, "-o", h5, "--quiet", "--overwrite")
    complete = frames = steps = None
    if os.path.exists(h5):
        with h5py.File(h5, "r") as f:
            complete = int(f.attrs["complete"])
            frames, steps = f["/frames/time"].shape[0], f["/stats/converged"].shape[0]
    check(rc == 1 and "needs about" in err and "'plate'" in err and complete == 0,
          "A beyond TSR_MEMORY_LIMIT: exit 1, said, the file kept with complete = 0 (%s)" % err.strip()[:160])
    # The failed step has no impulses (its A was never formed): it is not
    # written, as an interrupted one is not. Written, its frame held whatever
    # memory its impulse and index-set arrays had (index sets of -85, 127).
    m = re.search(r"step (\d+):", err)
    failed_at = int(m.group(1)) if m else None
    check(failed_at is not None and steps == failed_at - 1 and frames == failed_at,
          "the step that failed (%s) is not written: %s frames for %s steps, the initial frame and the steps before"
          % (failed_at, frames, steps))

    # A solver that fails at its first step has no figures: compare's table
    # shows "-" (it showed 0.000 ms and an error of 0, as if solved at once
    # and exactly) and the JSON null; the steps asked stay in the header.
    cj = os.path.join(tmp, "cmp.json")
    p = subprocess.run([TESSERA, "compare", model, "--solvers", "direct-bpp,schur-bpp", "--steps", "3", "--quiet",
                        "--json", cj], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, TSR_MEMORY_LIMIT="1000"))
    lines = [ln.split() for ln in p.stdout.splitlines() if ln.split()[:1] in (["direct-bpp"], ["schur-bpp"])]
    # (the main table, then schur-bpp's two phase tables: every figure "-")
    phases = [ln[1:7] for ln in lines[2:]]
    lines = lines[:2]
    rows = json.load(open(cj))["rows"] if os.path.exists(cj) else []
    check(p.returncode == 1 and "3 steps" in p.stdout and len(lines) == 2
          and all(ln[1:3] == ["-", "-"] and "0.000" not in ln for ln in lines)
          and len(phases) == 2 and all(set(ph) == {"-"} for ph in phases)
          and len(rows) == 2 and all(r["mean_ms"] is None and r["median_err"] is None and r["steps"] == 0
                                     for r in rows),
          "compare: a solver failing at its first step shows '-', not 0.000 (%r)" % p.stdout[-400:])

# The Schur complement solvers' dense blocks count too. 60 spheres within a
# 10 m contact margin of one another (every pair a contact), 8 bodies a
# subsystem: 4,704 of the 5,310 rows cross subsystems, and each subsystem's
# Schur block is about 1,250 x 1,250, dense (schur-bpp's peak 290 MB against
# 70 MB with one subsystem). Such a pile (large_rock_pile with a 10 m
# margin) grew past 24 GB, where A alone needed 9 GiB, and the kernel killed
# the run. Under a 200 MB limit schur-bpp stops at once and says why;
# direct-bpp, which needs A alone, runs.
BLOB = ["format: tessera-model/1", "name: blob", "settings:", "  solver: {type: schur-bpp}",
        "  partitioning: {method: mindp, max_bodies: 8}", "  contact: {margin: 10}",
        "materials: [{name: m, friction: 0.5}]", "bodies:"]
BLOB += ["  - {name: s%d, mass: 1, shape: {type: sphere, radius: 0.1}, position: [%.1f, %.1f, %.1f]}"
         % (i, 0.3 * (i // 20), 0.3 * (i // 5 % 4), 0.3 * (i % 5)) for i in range(60)]
with tempfile.TemporaryDirectory() as tmp:
    model = write_lines(os.path.join(tmp, "blob.yaml"), BLOB)
    h5 = os.path.join(tmp, "blob.h5")
    env = dict(os.environ, TSR_MEMORY_LIMIT="200000000")
    p = subprocess.run([TESSERA, "run", model, "-o", h5, "-q", "--steps", "2"], capture_output=True, text=True,
                       timeout=120, env=env)
    check(p.returncode == 1 and "substructured solve" in p.stderr and "Schur block" in p.stderr,
          "schur-bpp past TSR_MEMORY_LIMIT through its Schur blocks: exit 1, said (%d: %s)"
          % (p.returncode, p.stderr.strip()[:200]))
    p = subprocess.run([TESSERA, "run", model, "-o", h5, "-q", "--steps", "2", "--solver", "direct-bpp",
                        "--overwrite"], capture_output=True, text=True, timeout=120, env=env)
    check(p.returncode == 0, "direct-bpp under the same limit runs (%d: %s)" % (p.returncode, p.stderr.strip()[:200]))

# The estimate must cover what the substructured solve uses, or a machine
# with that much available kills the run: 50 spheres in one spot split into
# 5 subsystems (3,000 of the 3,675 rows at the interface, all free) peaked
# at 278 MB resident while the estimate said 165 MB (S_Gamma's entries
# counted at 8 bytes, without the interface solve's copy and factor; 100
# such spheres: 2.15 GiB said, 5.6 GiB used). The peak is the whole
# process's (libraries and HDF5 included), so the estimate covering it is
# a bound with room; 3 times it would refuse runs that fit.
SPOT50 = ["format: tessera-model/1", "name: spot50", "settings:", "  step: 0.016666666666666666", "  steps: 1",
          "  solver: {type: schur-bpp}", "  partitioning: {method: bfs, max_bodies: 10}", "bodies:",
          "  - {name: ball, count: 50, mass: 1, shape: {type: sphere, radius: 0.1}, position: [0, 0, 0.5],",
          "     stride: {position: [0.001, 0, 0]}}"]
with tempfile.TemporaryDirectory() as tmp:
    model = write_lines(os.path.join(tmp, "spot50.yaml"), SPOT50)
    h5 = os.path.join(tmp, "spot50.h5")
    p = subprocess.run([TESSERA, "run", model, "-o", h5, "-q"], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, TSR_MEMORY_LIMIT="1"))
    m = re.search(r"needs about ([0-9.e+]+) GiB \((\d+) rows; (\d+) of them interface rows", p.stderr)
    said = float(m.group(1)) * 2 ** 30 if m else 0.0
    # (without meson's MALLOC_PERTURB_, whose filling of each allocation makes
    # the arrays' unused room, grown by half, resident as it is not in use)
    plain = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    proc = subprocess.Popen([TESSERA, "run", model, "-o", h5, "-q", "--overwrite"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=plain)
    _, wstatus, usage = os.wait4(proc.pid, 0)
    peak = usage.ru_maxrss * 1024.0  # (kB on Linux)
    sanitized = os.environ.get("TSR_SANITIZE", "none") not in ("", "none")  # (its shadow memory is no use's)
    check(m is not None and int(m.group(3)) == 3000 and os.waitstatus_to_exitcode(wstatus) == 0
          and (sanitized or peak <= said <= 3 * peak),
          "the substructured solve's memory estimate covers its peak: %.0f MB said, %.0f MB used%s (%s)"
          % (said / 2 ** 20, peak / 2 ** 20, " (a sanitizer build: not compared)" if sanitized else "",
             p.stderr.strip()[-200:]))

# A factorisation that would cost more than TSR_FACTOR_FLOPS (linalg/chol.h)
# is refused, and the step fails at once with the cost said. 60 spheres
# placed in one spot: every pair a contact, 5,310 rows coupled nearly densely,
# ~2e10 flops a factorisation, under a limit of 1e10. (150 such spheres: 5e12
# flops, and direct-bpp's first step had not ended after 10 minutes; at the
# default limit, 1e12, it fails in 3 s.) direct-bpp, schur-bpp and fbic,
# which factorise the whole coupled block, stop, the file kept incomplete;
# pgs, which factorises nothing, runs; so does direct-bpp at the default
# limit. The timeouts guard against a hang; they time nothing.
SPOT = ["format: tessera-model/1", "name: spot", "settings: {step: 0.016666666666666666, steps: 1}", "bodies:",
        "  - {name: ball, count: 60, mass: 1, shape: {type: sphere, radius: 0.1}, position: [0, 0, 0.5],",
        "     stride: {position: [0.001, 0, 0]}}"]
with tempfile.TemporaryDirectory() as tmp:
    model = write_lines(os.path.join(tmp, "spot.yaml"), SPOT)
    h5 = os.path.join(tmp, "spot.h5")
    low = dict(os.environ, TSR_FACTOR_FLOPS="1e10")
    for solver in ("direct-bpp", "schur-bpp", "fbic"):
        p = subprocess.run([TESSERA, "run", model, "-o", h5, "-q", "--overwrite", "--solver", solver],
                           capture_output=True, text=True, timeout=120, env=low)
        m = re.search(r"factorising (\d+) coupled rows \(of (\d+)\) would take about ([0-9.e+]+) flops", p.stderr)
        complete = frames = None
        if os.path.exists(h5):
            with h5py.File(h5, "r") as f:
                complete, frames = int(f.attrs["complete"]), f["/frames/time"].shape[0]
        check(p.returncode == 1 and m is not None and int(m.group(2)) == 5310 and float(m.group(3)) > 1e10
              and "TSR_FACTOR_FLOPS = 1e+10" in p.stderr and complete == 0 and frames == 1,
              "%s past TSR_FACTOR_FLOPS: exit 1 at step 1, the cost said, the file incomplete (%d: %s)"
              % (solver, p.returncode, p.stderr.strip()[-300:]))
    p = subprocess.run([TESSERA, "run", model, "-o", h5, "-q", "--overwrite", "--solver", "pgs"],
                       capture_output=True, text=True, timeout=120, env=low)
    check(p.returncode == 0, "pgs under the same limit runs (%d: %s)" % (p.returncode, p.stderr.strip()[-200:]))
    # At the default limit direct-bpp runs, its step of seconds watched
    # (cli_util.c, tsr_cli_step): with --progress 1, a log (stderr a pipe)
    # gets a line once the step has run 1 s, then at most one a second,
    # each saying for how long (so no more lines than the step's seconds,
    # give or take the one the watcher may print as the step returns, and at
    # least one from a step of 2.5 s); -q gets none.
    for quiet in ([], ["-q"]):
        p = subprocess.run([TESSERA, "run", model, "-o", h5, "--overwrite", "--progress", "1"] + quiet,
                           capture_output=True, text=True, timeout=300)
        watched = [int(x) for x in re.findall(r"spot: step 1/1 still being solved after (\d+) s", p.stderr)]
        with h5py.File(h5, "r") as f:
            step_s = float(f["/stats/step_seconds"][0]) if f["/stats/step_seconds"].shape[0] else 0.0
        said = (all(b > a for a, b in zip(watched, watched[1:])) and all(x >= 1 for x in watched)
                and len(watched) <= step_s + 1 and (len(watched) >= 1 or step_s < 2.5))
        check(p.returncode == 0 and (not watched if quiet else said),
              "direct-bpp at the default limit runs%s, its %.1f s step watched: %r (%d: %s)"
              % (" (-q)" if quiet else "", step_s, watched, p.returncode, p.stderr.strip()[-200:]))
    p = subprocess.run([TESSERA, "compare", model, "--solvers", "direct-bpp,pgs", "-q"], capture_output=True,
                       text=True, timeout=120, env=low)
    rows = {ln.split()[0]: ln for ln in p.stdout.splitlines() if ln.split()[:1] in (["direct-bpp"], ["pgs"])}
    check(p.returncode == 1 and "TSR_FACTOR_FLOPS" in p.stderr and "failed at its first step" in rows.get("direct-bpp", "")
          and "failed" not in rows.get("pgs", "failed"),
          "compare: direct-bpp refused (said), pgs measured (%d: %r)" % (p.returncode, p.stdout[-300:]))
    # Replayed on pgs's MLCP, direct-bpp's refused solve has no solution: its
    # error is inf (null in the JSON), not the 0 of an exact one.
    rj = os.path.join(tmp, "replay.json")
    p = subprocess.run([TESSERA, "compare", model, "--solvers", "direct-bpp,pgs", "--replay", "pgs", "-q", "--json",
                        rj], capture_output=True, text=True, timeout=120, env=low)
    row = next((ln.split() for ln in p.stdout.splitlines() if ln.split()[:1] == ["direct-bpp"]), [])
    jrow = next((r for r in json.load(open(rj))["rows"] if r["solver"] == "direct-bpp"), {}) if os.path.exists(rj) else {}
    check(p.returncode == 0 and "inf" in row and "0.0" in row and "median_err" in jrow and jrow["median_err"] is None,
          "replay: a refused solve's error is inf, null in the JSON (%r, %r)" % (row, jrow.get("median_err", "-")))

# Many bodies in one place (a `count` without a `stride`): every pair of
# their boxes overlaps, and ODE's sweep and prune built all n^2 / 2 pairs
# (100,000 spheres: SIGSEGV in check and run; 10,000: 15 GB and 49 s of
# check). Above 2e6 such pairs check and run refuse the model, exit 2.
with tempfile.TemporaryDirectory() as tmp:
    crowd = os.path.join(tmp, "crowd.yaml")
    with open(crowd, "w") as fh:
        fh.write("format: tessera-model/1\nname: crowd\nbodies:\n"
                 "  - {name: b, count: 5000, mass: 1, shape: {type: sphere, radius: 0.1}, position: [0, 0, 1]}\n")
    out = os.path.join(tmp, "crowd.h5")
    for args in (("check", crowd), ("run", crowd, "-o", out, "--steps", "2")):
        t0 = time.monotonic()
        rc, _, err = run(*args)
        # located at the array's entry (line 4, column 5), as every model error is
        check(rc == 2 and "share one place" in err and err.startswith(crowd + ":4:5: error: ")
              and time.monotonic() - t0 < 60 and not os.path.exists(out),
              "%s of 5,000 spheres at one point: exit 2, said where, no file (%d, %.1f s: %s)"
              % (args[0], rc, time.monotonic() - t0, err.strip()[:120]))

# Output files are replaced whole, never truncated in place or taken from
# under what they name.
with tempfile.TemporaryDirectory() as tmp:
    pend = os.path.join(EXAMPLES, "pendulum.yaml")
    model = os.path.join(tmp, "p.yaml")
    shutil.copy(pend, model)
    text = open(model).read()
    # -o naming the model: it became the run file (and a failed --vtk then deleted it).
    rc, _, err = run("run", model, "-o", model, "--overwrite", "--steps", "2")
    check(rc == 2 and "is the model file" in err and open(model).read() == text,
          "run -o MODEL --overwrite: exit 2, the model kept (%d: %s)" % (rc, err.strip()[:100]))
    # A pipe or device named by -o or --json stays one (a rename put a regular file there).
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    for args in (("run", model, "-o", fifo, "--overwrite", "--steps", "2"),
                 ("compare", model, "--solvers", "pgs", "--steps", "2", "--json", fifo)):
        rc, _, err = run(*args)
        check(rc == 2 and "not a regular file" in err and stat.S_ISFIFO(os.stat(fifo).st_mode),
              "%s onto a pipe: exit 2, the pipe kept (%d: %s)" % (args[0], rc, err.strip()[:100]))
    # A bad --vtk with --overwrite: refused before anything is written, the
    # earlier run file kept byte for byte (it was replaced, then removed).
    h5 = os.path.join(tmp, "keep.h5")
    rc, _, _ = run("run", model, "-o", h5, "--steps", "3", "--quiet")
    before = open(h5, "rb").read()
    afile = os.path.join(tmp, "afile")
    open(afile, "w").close()
    rc, _, err = run("run", model, "-o", h5, "--overwrite", "--steps", "2", "--vtk", afile)
    check(rc == 2 and os.path.exists(h5) and open(h5, "rb").read() == before
          and not [f for f in os.listdir(tmp) if ".tessera-" in f],
          "run --overwrite with a bad --vtk: exit 2, the old run file kept, no staging file (%d: %s)"
          % (rc, err.strip()[:100]))
    # An empty --vtk names no folder: refused like an empty -o (it wrote the
    # series into the file system's root, /p.pvd and /p/, where it could).
    # The model is renamed so that a regression cannot touch a real series.
    empty_name = "tsr_empty_vtk_%d" % os.getpid()
    with open(os.path.join(tmp, "e.yaml"), "w") as fh:
        fh.write(text.replace("name: pendulum", "name: " + empty_name))
    rc, _, err = run("run", os.path.join(tmp, "e.yaml"), "-o", os.path.join(tmp, "e.h5"), "--steps", "2", "--vtk", "")
    leaked = [f for f in os.listdir("/") if f.startswith(empty_name)]
    for f in leaked:
        if os.path.isdir("/" + f):
            shutil.rmtree("/" + f, ignore_errors=True)
        else:
            os.remove("/" + f)
    check(rc == 2 and "--vtk" in err and "empty" in err and not leaked
          and not os.path.exists(os.path.join(tmp, "e.h5")),
          "run --vtk '': exit 2, said, no run file and no series in / (%d: %s; %s)" % (rc, err.strip()[:100], leaked))
    rc, _, err = run("export-vtk", h5, "-o", "")
    check(rc == 2 and "-o" in err, "export-vtk -o '': exit 2 (%d: %s)" % (rc, err.strip()[:100]))
    # A file size limit (ulimit -f): the write fails with EFBIG, said, exit 1,
    # and the file stays readable as its last flush left it, complete = 0
    # (SIGXFSZ killed the process without a word; closing after the refused
    # writes left a file no reader could open).
    # The file is first written at its first flush, a second after it is
    # opened (or when 4 MiB wait, which would be refused with nothing on
    # disk): PGS held to 5000 sweeps makes a step of chain_drop ~0.1 s here,
    # so the first flush writes ~1 MB of the 3 MiB allowed (a machine 3 times
    # faster: ~2.5 MB), and a later flush is refused.
    big = os.path.join(tmp, "big.h5")
    p = subprocess.run([TESSERA, "run", os.path.join(EXAMPLES, "chain_drop.yaml"), "-o", big, "--solver", "pgs",
                        "--set", "settings.solver.iterations=5000", "--set", "settings.solver.tolerance=1e-300",
                        "--steps", "400", "--quiet"], capture_output=True, text=True, timeout=300,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (3 << 20, 3 << 20)))
    frames = complete = None
    rc_i, out_i, _ = run("info", big, "--json")
    if rc_i == 0:
        info = json.loads(out_i)
        frames, complete = info.get("frames"), info.get("complete")
    check(p.returncode == 1 and "File too large" in p.stderr and rc_i == 0 and complete is False
          and frames is not None and frames > 0,
          "a file size limit: exit 1, said, the file readable with its frames, complete = 0 (%d, %s frames, "
          "info %d: %s)" % (p.returncode, frames, rc_i, p.stderr.strip()[-160:]))

    # The tail of that file can be frames never written (their data past
    # the limit: time 0 at step 0); they end the frames read, and were
    # refused as "/frames/time: frame 43: time 0 is before frame 42's 0.7"
    # whenever the limit fell there (a loaded machine). The same tail in a
    # file marked complete is still refused.
    cut = os.path.join(tmp, "cut.h5")
    rc, _, _ = run("run", pend, "-o", cut, "--steps", "10", "--quiet")
    for complete, want_rc in ((0, 0), (1, 2)):
        with h5py.File(cut, "r+") as f:
            f.attrs["complete"] = complete
            f["/frames/time"][8:] = 0.0
            f["/frames/step"][8:] = 0
        rc_i, out_i, err_i = run("info", cut, "--json")
        rc_v, _, err_v = run("export-vtk", cut, "-o", os.path.join(tmp, "cutvtk%d" % complete))
        frames = json.loads(out_i)["frames"] if rc_i == 0 else None
        check(rc_i == want_rc and rc_v == want_rc and (complete or frames == 8),
              "complete = %d, frames 8-10 never written: info and export-vtk exit %d%s (%d %d, %s frames: %s %s)"
              % (complete, want_rc, "" if complete else ", 8 frames", rc_i, rc_v, frames, err_i.strip()[:100],
                 err_v.strip()[:100]))

    # An empty -o names no file: said as such, as an empty --json or --vtk
    # is (it said "cannot create : No such file or directory").
    for args in (["-o", ""], ["--output="]):
        rc, _, err = run("run", pend, *args, "--steps", "2")
        check(rc == 2 and "tessera: error: -o: '' is empty, not a file name" in err,
              "run %s: exit 2, the empty name said (%d: %s)" % (" ".join(map(repr, args)), rc, err.strip()[:120]))

    # An option given twice takes its last value, but two names for one
    # output are refused: `-o a.h5 -o b.h5` wrote b.h5 alone, without a word.
    a_h5, b_h5 = os.path.join(tmp, "twice_a.h5"), os.path.join(tmp, "twice_b.h5")
    va, vb = os.path.join(tmp, "va"), os.path.join(tmp, "vb")
    for opt, cmd in (("-o", ["run", pend, "-o", a_h5, "--output=" + b_h5, "--steps", "2"]),
                     ("--vtk", ["run", pend, "-o", a_h5, "--vtk", va, "--vtk", vb, "--steps", "2"]),
                     ("-o", ["export-vtk", out, "-o", va, "-o", vb]),
                     ("--json", ["compare", pend, "--solvers", "pgs", "--steps", "2", "--json", a_h5, "--json=" + b_h5])):
        rc, o_, err = run(*cmd)
        check(rc == 2 and ("%s: %s given twice" % (cmd[0], opt)) in err and not o_.strip()
              and not any(os.path.exists(p) for p in (a_h5, b_h5, va, vb)),
              "%s with %s given twice: exit 2, said, nothing written (%d: %s)" % (cmd[0], opt, rc, err.strip()[:120]))
    rc, _, err = run("run", pend, "-o", a_h5, "--output=" + a_h5, "--steps", "50", "--steps", "3", "--quiet")
    with h5py.File(a_h5, "r") as f:
        check(rc == 0 and f["/stats/step_seconds"].shape[0] == 3,
              "the same -o twice is one file; --steps 50 --steps 3 runs 3 steps (%d: %s)" % (rc, err.strip()[:120]))

    # `check --help` names every option check takes (it named 3 of the 9:
    # --partition, --refine, --max-bodies, --every, --threads and -q were
    # taken without a word in its help), and check applies them.
    rc, help_text, _ = run("check", "--help")
    missing = [o for o in ("--set", "--solver", "--partition", "--refine", "--max-bodies", "--steps", "--duration",
                           "--every", "--threads", "-q") if o not in help_text]
    check(rc == 0 and not missing, "check --help names every option check takes (missing: %s)" % missing)
    rc, o_, err = run("check", pend, "--solver", "schur-bpp", "--partition", "bfs", "--refine", "kl",
                      "--max-bodies", "4", "--steps", "7", "--every", "7", "--threads", "1", "-q")
    check(rc == 0 and "partitioning: bfs+kl" in o_ and "steps: 7 " in o_ and "warning" not in err,
          "check applies --partition, --refine and --steps, and takes --threads and -q (%d: %s %s)"
          % (rc, o_.strip()[-120:], err.strip()[:120]))

    # info's coupling line: a whole-system solver has no coupling loop, and
    # "mean 0.00 (0.0% at k_max = 10)" read as a limit it ran under.
    for solver, line in (("direct-bpp", "coupling iterations: none (direct-bpp solves the whole system)"),
                         ("schur-bpp", "coupling iterations: mean 1.00 (0.0% at k_max = 10)")):
        rc, _, err = run("run", pend, "-o", a_h5, "--overwrite", "--steps", "3", "--solver", solver, "--quiet")
        rc_i, o_, _ = run("info", a_h5)
        check(rc == 0 and rc_i == 0 and line in o_.splitlines(),
              "info on a %s run: '%s' (%s)" % (solver, line, [x for x in o_.splitlines() if "coupling" in x]))

    # An option before any command is an unknown option, not an unknown
    # command ('unknown command '-V''); and each short flag a command takes
    # is in its help (export-vtk took -q, its help named --quiet alone).
    for arg, said in (("-V", "unknown option '-V'"), ("--verbose", "unknown option '--verbose'"),
                      ("frobnicate", "unknown command 'frobnicate'")):
        rc, _, err = run(arg)
        check(rc == 2 and ("tessera: error: %s (see 'tessera --help')" % said) in err,
              "tessera %s: exit 2, %s (%d: %s)" % (arg, said, rc, err.strip()[:100]))
    rc, help_text, _ = run("export-vtk", "--help")
    check(rc == 0 and "-q, --quiet" in help_text, "export-vtk --help names -q")

    # Every option a command's --help names is in README.md too (info's
    # --json, export-vtk's --segments and mlcp's --solution were not).
    with open(os.path.join(EXAMPLES, "..", "README.md")) as fh:
        readme = fh.read()
    for cmd in ("run", "check", "info", "export-vtk", "compare", "mlcp"):
        rc, help_text, _ = run(cmd, "--help")
        opts = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_text)))
        missing = [o for o in opts if not re.search(re.escape(o) + r"(?![a-z-])", readme)]
        check(rc == 0 and opts and not missing, "README.md names every option of %s --help (missing: %s)" % (cmd, missing))

# --dump-mlcp: the MLCP a step handed its solver, as a Siconos box-LCP file
# that `tessera mlcp solve` reads. rock_pile's contact rows have compliance,
# so A is positive definite and the MLCP has one solution: solved again
# from no warm start it must give the step's impulses in the run file (the
# same row order) to round-off; both solves end at relative residuals near
# 1e-16, so 1e-9 of the largest impulse is loose. Steps 20-22 are solved
# once each (no friction refresh or struck-body re-solve there).
with tempfile.TemporaryDirectory() as tmp:
    rock = os.path.join(EXAMPLES, "rock_pile.yaml")
    h5 = os.path.join(tmp, "r.h5")
    dump = os.path.join(tmp, "dump", "sub")
    rc, _, err = run("run", rock, "-o", h5, "--steps", "30", "--dump-mlcp", dump, "--dump-steps", "20-22", "-q")
    names = sorted(os.listdir(dump)) if os.path.isdir(dump) else []
    want = ["relay_rock_pile_%06d.dat" % k for k in (20, 21, 22)]
    check(rc == 0 and names == want, "run --dump-mlcp DIR --dump-steps 20-22: %s (%d: %s)" % (names, rc, err.strip()[-200:]))
    if rc == 0 and names == want:
        with h5py.File(h5, "r") as f:
            off, imp = f["constraints/offset"][()], f["constraints/impulse"][()]
        for step, name in zip((20, 21, 22), want):
            rc_m, out, err_m = run("mlcp", "solve", os.path.join(dump, name), "--solution")
            lines = out.splitlines()
            lam = []
            if "# row lambda w state" in lines:
                lam = [float(x.split()[1]) for x in lines[lines.index("# row lambda w state") + 1:] if x.strip()]
            ref = imp[off[step]:off[step + 1]]
            ok = rc_m == 0 and len(lam) == len(ref) and len(ref) > 0
            diff = float(np.max(np.abs(np.array(lam) - ref))) if ok else math.inf
            scale = float(np.max(np.abs(ref))) if ok else 0.0
            check(ok and diff <= 1e-9 * max(1.0, scale),
                  "mlcp solve of step %d's dump gives the run's impulses: %d rows, max |diff| %.2e of %.2e (%d: %s)"
                  % (step, len(ref), diff, scale, rc_m, err_m.strip()[:100]))
    # Steps past the run's end: nothing to write, said (a typo'd step).
    rc, _, err = run("run", rock, "-o", h5, "--overwrite", "--steps", "3", "--dump-mlcp", dump, "--dump-steps", "10", "-q")
    check(rc == 0 and "--dump-mlcp wrote nothing: the run took 3 steps" in err,
          "run --steps 3 --dump-steps 10: exit 0 with a warning (%d: %s)" % (rc, err.strip()[-160:]))
    # A dump file that cannot be written (a folder already has its name:
    # fopen fails even for root, who writes into read-only folders) is said
    # once and ends the dump, not the run: the steps before it are kept, none
    # after it is written, the run file is complete with every step, and the
    # command exits 1.
    dump2 = os.path.join(tmp, "dump2")
    os.makedirs(os.path.join(dump2, "relay_rock_pile_000021.dat"))
    rc, _, err = run("run", rock, "-o", h5, "--overwrite", "--steps", "24", "--dump-mlcp", dump2, "--dump-steps",
                     "20-23", "-q")
    names = sorted(n for n in os.listdir(dump2) if os.path.isfile(os.path.join(dump2, n)))
    with h5py.File(h5, "r") as f:
        complete, frames = int(f.attrs["complete"]), len(f["frames/time"])
    check(rc == 1 and names == ["relay_rock_pile_000020.dat"] and err.count("--dump-mlcp: cannot write") == 1
          and "(at step 21)" in err and complete == 1 and frames == 25,
          "run --dump-steps 20-23, step 21's file not writable: exit 1, said once, step 20 kept, run complete "
          "(%d: %s; files %s, complete %d, %d frames)" % (rc, err.strip()[-200:], names, complete, frames))
    # Usage: each option needs the other, a range runs forward, the folder
    # must be one; each is refused before a run file is written.
    plain = os.path.join(tmp, "plain")
    with open(plain, "w") as fh:
        fh.write("not a folder\n")
    for extra, said in ((["--dump-mlcp", dump], "--dump-mlcp needs --dump-steps"),
                        (["--dump-steps", "3"], "--dump-steps needs --dump-mlcp"),
                        (["--dump-mlcp", dump, "--dump-steps", "5-3"], "--dump-steps expects an integer >= 5"),
                        (["--dump-mlcp", dump, "--dump-steps", "0"], "--dump-steps expects an integer >= 1"),
                        (["--dump-mlcp", os.path.join(plain, "x"), "--dump-steps", "2"], "not a directory")):
        out_h5 = os.path.join(tmp, "bad.h5")
        rc, _, err = run("run", rock, "-o", out_h5, "--steps", "3", "-q", *extra)
        check(rc == 2 and said in err and not os.path.exists(out_h5),
              "run %s: exit 2, '%s', no run file (%d: %s)" % (" ".join(extra[-2:]), said, rc, err.strip()[-160:]))

finish()
