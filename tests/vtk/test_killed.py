#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A run that diverges (gravity -1e308 on one free body) exits 1 and leaves
complete = 0; export-vtk exports every frame the file holds, exit 0, with a
warning on stderr."""
import os

import numpy as np

from vtkcheck import arrays, check, finish, read_pvd, read_vtp, run_file, tessera, tmpdir

tmp = tmpdir("vtk_killed_")
model = os.path.join(tmp, "fall.yaml")
with open(model, "w") as f:
    f.write("format: tessera-model/1\nname: fall\nsettings: {step: 0.01, steps: 1000}\n"
            "bodies:\n  - {name: rock, mass: 1, shape: {type: sphere, radius: 0.1}, position: [0, 0, 1]}\n")
run = os.path.join(tmp, "fall.h5")
p = tessera("run", model, "-o", run, "--quiet", "--overwrite", "--set", "settings.gravity=[0,0,-1e308]")
check(p.returncode == 1, f"diverging run exits 1 (got {p.returncode}: {p.stderr})")
rf = run_file(run)
check(rf["complete"] == 0 and rf["T"] >= 1, f"complete = {rf['complete']}, {rf['T']} frames")
out = os.path.join(tmp, "vtk")
p = tessera("export-vtk", run, "-o", out)
check(p.returncode == 0, f"export exits 0 (got {p.returncode}: {p.stderr})")
check("tessera: warning:" in p.stderr and "did not finish" in p.stderr, f"warning on stderr: {p.stderr!r}")
pvd = read_pvd(os.path.join(out, "fall.pvd"))
check(len(pvd) == rf["T"], f"{len(pvd)} time steps for {rf['T']} frames")
check(np.array_equal([t for t, _ in pvd], rf["/frames/time"][:rf["T"]]), "timesteps == /frames/time")
for t, (_, path) in enumerate(pvd):
    cd = arrays(read_vtp(path).GetCellData())
    check(set(cd["body"][:, 0].tolist()) == {0}, f"frame {t}: the body's cells")
check(not os.path.exists(os.path.join(out, "fall_joints.pvd")), "no joints series for a model without joints")
finish("vtk_killed")
