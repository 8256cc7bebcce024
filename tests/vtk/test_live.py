#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The live writer (tsr_vtk_writer_*) and export-vtk on synthetic frames with
rows and contacts (tests/io/synth.h): contacts carry point, normal, impulses,
index_set and interface from the rows; the live .pvd lists every frame; both
exports agree on the contacts."""
import os
import subprocess
import sys

import numpy as np

from vtkcheck import arrays, check, check_contacts, finish, read_pvd, read_vtp, run_file, tessera, tmpdir

synth = sys.argv[1]
tmp = tmpdir("vtk_live_")
run, live = os.path.join(tmp, "synth.h5"), os.path.join(tmp, "live")
p = subprocess.run([synth, run, live, "12"], capture_output=True, text=True)
check(p.returncode == 0, f"vtk_synth: {p.returncode}: {p.stderr}")
rf = run_file(run)
T = rf["T"]
out = os.path.join(tmp, "export")
p = tessera("export-vtk", run, "-o", out, check_rc=0)
for d, what in ((live, "live"), (out, "export")):
    pvd = read_pvd(os.path.join(d, "synth.pvd"))
    cpvd = read_pvd(os.path.join(d, "synth_contacts.pvd"))
    check(len(pvd) == T and len(cpvd) == T, f"{what}: {len(pvd)} time steps, {T} frames")
    check(np.allclose([t for t, _ in pvd], rf["/frames/time"][:T]), f"{what}: timesteps")
    for t in range(T):
        poly = read_vtp(pvd[t][1])
        body = arrays(poly.GetCellData())["body"][:, 0]
        check(set(body.tolist()) == set(range(rf["n"])), f"{what} frame {t}: every body has cells")
        check_contacts(read_vtp(cpvd[t][1]), rf, t, f"{what} contacts frame {t}")
    if what == "live":
        jp = read_vtp(read_pvd(os.path.join(d, "synth_joints.pvd"))[T - 1][1])
        check(jp.GetNumberOfLines() == rf["J"], f"live: {rf['J']} joint lines")
        jd = arrays(jp.GetCellData())
        check(np.array_equal(jd["joint"][:, 0], np.arange(rf["J"])), "live: joint ids")
finish("vtk_live")
