#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""postproc/plot_stats.py and postproc/table.py on two runs (direct-bpp and
pgs): two PNGs; a markdown table with one row per run whose numbers are those
computed here from the run files with h5py."""
import os
import subprocess
import sys

import h5py
import numpy as np

from vtkcheck import ROOT, check, finish, tessera, tmpdir

tmp = tmpdir("vtk_postproc_")
model = os.path.join(ROOT, "examples", "hanging_chain.yaml")
runs = {}
for solver in ("direct-bpp", "pgs"):
    runs[solver] = os.path.join(tmp, f"{solver}.h5")
    tessera("run", model, "-o", runs[solver], "--solver", solver, "--steps", "20", "--quiet", "--overwrite",
            check_rc=0)
py = sys.executable
post = os.path.join(ROOT, "postproc")

prefix = os.path.join(tmp, "plots", "chain")
p = subprocess.run([py, os.path.join(post, "plot_stats.py"), *runs.values(), "-o", prefix], capture_output=True,
                   text=True)
check(p.returncode == 0, f"plot_stats.py: {p.returncode}: {p.stderr}")
for suffix in ("_solve_time.png", "_mlcp_error.png"):
    path = prefix + suffix
    ok = os.path.isfile(path) and os.path.getsize(path) > 1000
    if check(ok, f"{path} written"):
        with open(path, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{path} is a PNG")

p = subprocess.run([py, os.path.join(post, "table.py"), *runs.values()], capture_output=True, text=True)
check(p.returncode == 0, f"table.py: {p.returncode}: {p.stderr}")
lines = [ln for ln in p.stdout.splitlines() if ln.startswith("|")]
check(len(lines) == 4, f"header, rule and 2 rows: {p.stdout}")
rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[2:-1]] for ln in lines[2:]}
check(set(rows) == {"direct-bpp", "pgs"}, f"rows labelled by solver: {list(rows)}")


def expected(path, base_mean):
    with h5py.File(path, "r", swmr=True) as f:
        s = {k: f["/stats/" + k][()] for k in ("solve_seconds", "coupling_iterations", "mlcp_error", "joint_error",
                                               "penetration")}
    ms = s["solve_seconds"] * 1e3
    mean = ms.mean()
    return [str(len(ms)), f"{mean:.3f}", f"{np.median(ms):.3f}", f"{base_mean / mean:.2f}",
            f"{s['coupling_iterations'].mean():.2f}", "0.0", f"{np.median(s['mlcp_error']):.3g}",
            f"{s['joint_error'].max():.3g}", f"{s['penetration'].max():.3g}"]


with h5py.File(runs["direct-bpp"], "r", swmr=True) as f:
    base = (f["/stats/solve_seconds"][()] * 1e3).mean()
for solver, path in runs.items():
    want = expected(path, base)
    got = rows.get(solver)
    check(got == want, f"{solver}: table {got} != h5py {want}")
check(rows.get("direct-bpp", [""] * 4)[3] == "1.00", "direct-bpp speedup is 1.00")

# Missing file: exit 2 with a message.
p = subprocess.run([py, os.path.join(post, "table.py"), os.path.join(tmp, "missing.h5")], capture_output=True,
                   text=True)
check(p.returncode == 2 and "error" in p.stderr, f"missing file: {p.returncode} {p.stderr!r}")
finish("postproc")
