#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tessera export-vtk on a model with every shape type and a few joints: VTK's
own XML reader reads every piece; one time step per frame (= /frames/time);
every body has cells, with its subsystem and speed; bounds contain the
centres; joint anchors at frame 0 are the model's; --every/--from/--to pick
the right frames; bad input exits 2 with "FILE: error:" or "tessera: error:"."""
import os
import shutil

import h5py
import numpy as np

from vtkcheck import (arrays, check, check_contacts, finish, points, read_pvd, read_vtp, run_file, tessera,
                      tmpdir)

MODEL = """format: tessera-model/1
name: every shape
settings: {step: 0.01, steps: 80, gravity: [0, 0, -9.81]}
bodies:
  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}
  - {name: ball, mass: 1, shape: {type: sphere, radius: 0.2}, position: [0, 0, 1]}
  - {name: crate, mass: 2, shape: {type: box, size: [0.4, 0.6, 0.8]}, position: [2, 0, 1],
     orientation: {axis: [0, 0, 1], angle_deg: 30}}
  - {name: pill, mass: 1, shape: {type: capsule, radius: 0.1, length: 0.5}, position: [-2, 0, 1]}
  - {name: can, mass: 1, shape: {type: cylinder, radius: 0.15, length: 0.3}, position: [0, 2, 1],
     orientation: {axis: [1, 0, 0], angle_deg: 90}}
  - name: truck
    mass: 5
    position: [0, -3, 1]
    shape:
      type: compound
      parts:
        - {type: box, size: [1.5, 0.8, 0.5]}
        - {type: sphere, radius: 0.2, position: [0.9, 0, 0.3]}
        - {type: cylinder, radius: 0.2, length: 0.1, position: [-0.5, 0.45, -0.25], orientation: {axis: [1, 0, 0], angle_deg: 90}}
joints:
  - {name: hang, type: ball, bodies: [world, pill], anchor: [-2, 0, 1.3]}
  - {name: door, type: hinge, bodies: [crate, can], anchor: [1, 1, 1], axis: [0, 0, 1]}
  - {name: rope, type: distance, bodies: [ball, crate], anchors: [[0.1, 0, 1], [1.9, 0, 1]]}
"""
ANCHORS = {0: ([-2, 0, 1.3], [-2, 0, 1.3]), 1: ([1, 1, 1], [1, 1, 1]), 2: ([0.1, 0, 1], [1.9, 0, 1])}

tmp = tmpdir("vtk_export_")
model = os.path.join(tmp, "every_shape.yaml")
with open(model, "w") as f:
    f.write(MODEL)
run = os.path.join(tmp, "run.h5")
tessera("run", model, "-o", run, "--quiet", "--overwrite", check_rc=0)
rf = run_file(run)
T, n = rf["T"], rf["n"]
check(T == 81 and n == 6, f"run file: {T} frames, {n} bodies")

out = os.path.join(tmp, "out", "nested")  # created with its parent
p = tessera("export-vtk", run, "-o", out, check_rc=0)
check("warning" not in p.stderr, f"complete run: no warning expected: {p.stderr}")
name = "every_shape"  # the space becomes '_'
series = {k: os.path.join(out, name + s) for k, s in (("bodies", ".pvd"), ("contacts", "_contacts.pvd"),
                                                       ("joints", "_joints.pvd"))}
pvd = {}
for k, path in series.items():
    check(os.path.isfile(path), f"{path} written")
    pvd[k] = read_pvd(path)
    check(len(pvd[k]) == T, f"{k}: {len(pvd[k])} time steps, {T} frames")
    check(np.array_equal([t for t, _ in pvd[k]], rf["/frames/time"][:T]), f"{k}: timesteps == /frames/time")

shape_bodies = set(rf["/model/shape_body"][rf["/model/shape_type"] != 4].tolist())
for t in range(T):
    x, q, v = rf["/bodies/position"][t], rf["/bodies/orientation"][t], rf["/bodies/velocity"][t]
    sub = rf["/bodies/subsystem"][t]
    poly = read_vtp(pvd["bodies"][t][1])
    cd = arrays(poly.GetCellData())
    nc = poly.GetNumberOfCells()
    check(nc > 0 and poly.GetNumberOfPolys() == nc, f"frame {t}: triangles")
    for a in ("body", "subsystem", "speed"):
        check(a in cd and cd[a].shape == (nc, 1), f"frame {t}: cell data {a} has {nc} values")
    if not all(a in cd for a in ("body", "subsystem", "speed")):
        break
    body = cd["body"][:, 0]
    check(set(body.tolist()) == set(range(n)), f"frame {t}: cell data body covers every body")
    check(np.array_equal(cd["subsystem"][:, 0], sub[body]), f"frame {t}: subsystem per cell")
    check(np.allclose(cd["speed"][:, 0], np.linalg.norm(v[body, :3], axis=1), rtol=1e-6, atol=1e-6),
          f"frame {t}: speed per cell")
    b = poly.GetBounds()
    lo, hi = np.array(b[0::2]), np.array(b[1::2])
    check(np.all(x >= lo - 1e-5) and np.all(x <= hi + 1e-5), f"frame {t}: bounds contain every centre")
    # Each shaped body's own points surround its centre.
    pts = points(poly)
    conn = np.array([[poly.GetCell(c).GetPointId(k) for k in range(3)] for c in range(nc)])
    for bi in shape_bodies:
        pb = pts[np.unique(conn[body == bi])]
        check(np.all(pb.min(0) <= x[bi] + 1e-5) and np.all(pb.max(0) >= x[bi] - 1e-5),
              f"frame {t}: body {bi}'s surface surrounds its centre")
    check_contacts(read_vtp(pvd["contacts"][t][1]), rf, t, f"contacts frame {t}")
    jp = read_vtp(pvd["joints"][t][1])
    jd = arrays(jp.GetCellData())
    check(jp.GetNumberOfLines() == rf["J"] == 3, f"frame {t}: one line per joint")
    for a in ("joint", "type", "anchor_distance", "interface"):
        check(a in jd and jd[a].shape == (3, 1), f"frame {t}: joint cell data {a}")
    if t == 0:
        jpts = points(jp).reshape(3, 4, 3)
        for j, (a0, a1) in ANCHORS.items():
            check(np.allclose(jpts[j, 1], a0, atol=1e-9) and np.allclose(jpts[j, 2], a1, atol=1e-9),
                  f"joint {j}: anchors at frame 0 {jpts[j, 1:3].tolist()} != {a0}, {a1}")
            b0, b1 = rf["/model/joint_body"][j]
            check(np.allclose(jpts[j, 0], x[b0] if b0 >= 0 else a0), f"joint {j}: line starts at body 0")
            check(np.allclose(jpts[j, 3], x[b1] if b1 >= 0 else a1), f"joint {j}: line ends at body 1")

# The bodies land on the plane by 0.8 s: the contacts above were checked, not just empty.
check(rf["/contacts/offset"][T] > 0, "contacts in the run (collision built in)")

# --every / --from / --to
sel_out = os.path.join(tmp, "sel")
tessera("export-vtk", run, "-o", sel_out, "--every", "2", "--from", "0.05", "--to", "0.155", "--quiet", check_rc=0)
times = rf["/frames/time"][:T]
want = [times[i] for i in range(T) if i % 2 == 0 and 0.05 <= times[i] <= 0.155]
got = read_pvd(os.path.join(sel_out, name + ".pvd"))
check(np.array_equal([t for t, _ in got], want), f"--every 2 --from 0.05 --to 0.155: {got} vs {want}")
check(all(os.path.isfile(f) for _, f in got), "selected pieces exist")
# Times are plain decimals: "0x1p-4" (strtod's hex float, 0.0625) and "inf" are refused.
for opt, val in (("--from", "0x1p-4"), ("--to", "inf"), ("--to", "nan")):
    p = tessera("export-vtk", run, "-o", os.path.join(tmp, "hex"), opt, val, "--quiet")
    check(p.returncode == 2 and f"'{val}'" in p.stderr and not os.path.exists(os.path.join(tmp, "hex")),
          f"{opt} {val}: exit 2, said, nothing written ({p.returncode}: {p.stderr.strip()[:120]!r})")

# Exported again into the same folder with fewer frames: the earlier
# export's pieces the new .pvd does not name are gone, other files stay.
note = os.path.join(sel_out, name, "notes.txt")
with open(note, "w") as f:
    f.write("mine")
tessera("export-vtk", run, "-o", sel_out, "--every", "4", "--to", "0.155", "--quiet", check_rc=0)
named = {os.path.basename(f) for series in ("", "_contacts", "_joints")
         if os.path.exists(os.path.join(sel_out, name + series + ".pvd"))
         for _, f in read_pvd(os.path.join(sel_out, name + series + ".pvd"))}
left = {f for f in os.listdir(os.path.join(sel_out, name)) if f.endswith(".vtp")}
check(left == named and os.path.exists(note), f"re-export: pieces {sorted(left - named)} not in the .pvd files")

# A model name longer than a file name may be: NAME is cut to 200 characters
# (run --vtk failed at its first frame with "File name too long"), the last
# nine a hash of the whole name: two names that differ only past the cut
# export side by side (they shared one folder and .pvd, the second export
# removing the first's pieces).
long_dir = os.path.join(tmp, "long")
for tail in ("a", "b"):
    long_yaml = os.path.join(tmp, "long.yaml")
    with open(long_yaml, "w") as f:
        f.write("format: tessera-model/1\nname: %s\nsettings: {step: 0.01, steps: 3}\n"
                "bodies:\n  - {name: b, mass: 1, shape: {type: sphere, radius: 0.1}}\n" % ("n" * 299 + tail))
    p = tessera("run", long_yaml, "-o", os.path.join(tmp, "long.h5"), "--quiet", "--overwrite", "--vtk", long_dir)
    check(p.returncode == 0, f"run --vtk of a 300-character model name: exit {p.returncode}, {p.stderr[-200:]!r}")
pvds = sorted(f for f in os.listdir(long_dir) if f.endswith(".pvd") and "_" not in f)
check(len(pvds) == 2 and all(len(f) == 204 and f.startswith("n" * 191 + "-") for f in pvds)
      and all(len(read_pvd(os.path.join(long_dir, f))) == 4 for f in pvds),
      f"two 300-character names differing at the end: two series of 200-character names ({pvds})")

# --threads 0 is every core, as for run and compare (it was refused).
p = tessera("export-vtk", run, "-o", os.path.join(tmp, "t0"), "--threads", "0")
check(p.returncode == 0 and "threads)" in p.stdout, f"--threads 0: exit {p.returncode}, {p.stdout!r} {p.stderr!r}")

# Bad input: exit 2 with "FILE: error:" about a file (as a model's errors
# are said), "tessera: error:" about the command line
junk = os.path.join(tmp, "junk.h5")
with open(junk, "w") as f:
    f.write("not hdf5\n")
missing = os.path.join(tmp, "missing.h5")
for args, why, lead in (([missing, "-o", os.path.join(tmp, "x")], "missing run file", missing),
                        ([junk, "-o", os.path.join(tmp, "x")], "not an HDF5 file", junk),
                        ([model, "-o", os.path.join(tmp, "x")], "a YAML file", model),
                        ([run, "-o", junk], "output is a regular file", None),
                        ([run, "-o", os.path.join(junk, "sub")], "output below a regular file", None),
                        ([run], "no -o", "tessera"),
                        ([run, "-o", tmp, "--every", "0"], "--every 0", "tessera")):
    p = tessera("export-vtk", *args)
    said = p.stderr.startswith(f"{lead}: error: ") if lead else ": error: " in p.stderr.splitlines()[0]
    check(p.returncode == 2 and said, f"{why}: exit {p.returncode}, stderr {p.stderr!r}")
p = tessera("export-vtk", run, "-o", junk)
check("not a directory" in p.stderr, f"refuses a non-directory: {p.stderr!r}")

# Damaged or foreign run files: exit 2, said. A dataset of another width than
# OUTPUT.md's (read count x width into buffers sized for the layout: a heap
# overflow, SIGSEGV), a shape of no known type or body (skipped without a
# word, exit 0), a file of no frame (empty .pvd files, exit 0). What breaks
# OUTPUT.md's contract is said as "RUNFILE: error: DATASET: WHAT"
# (test_corrupt.py has the rest); what HDF5 cannot read as "RUNFILE: error: WHAT".
def damaged(what, edit, dataset=None):
    bad = os.path.join(tmp, "damaged.h5")
    shutil.copy(run, bad)
    with h5py.File(bad, "r+") as f:
        edit(f)
    p = tessera("export-vtk", bad, "-o", os.path.join(tmp, "damaged_out"))
    said = (p.stderr.startswith(f"{bad}: error: {dataset}: ") if dataset else
            p.stderr.startswith(f"{bad}: error: ") and ("damaged" in p.stderr or "no frame" in p.stderr))
    check(p.returncode == 2 and said, f"{what}: exit {p.returncode}, stderr {p.stderr[-160:]!r}")


def widen(name):
    def edit(f):
        v = f[name][:]
        del f[name]
        f[name] = np.stack([v, v], -1)
    return edit


for name in ("frames/time", "constraints/offset"):
    damaged(f"/{name} with a second value per entry", widen(name))
for name in ("constraints/type", "contacts/body", "contacts/depth"):
    damaged(f"/{name} with a second value per entry", widen(name), "/" + name)


def set_first(name, value):
    def edit(f):
        v = f[name][:]
        v[0] = value
        f[name][...] = v
    return edit


damaged("a shape of type 7", set_first("model/shape_type", 7), "/model/shape_type")
damaged("a shape of body 99999", set_first("model/shape_body", 99999), "/model/shape_body")


def no_frames(f):
    for name in ("frames/time", "bodies/position", "bodies/orientation", "bodies/velocity", "bodies/subsystem"):
        f[name].resize(0, axis=0)
    for name in ("constraints/offset", "contacts/offset"):
        f[name].resize(1, axis=0)
    f.attrs["complete"] = 0


damaged("a run file of no frame", no_frames)
finish("vtk_export")
