#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every model in examples/ loads (`tessera check`) and runs a few steps
(`tessera run --steps 3`) to a complete run file that passes the layout check
of schemas/check_run_file.py, with a finite state and a small MLCP error: every step converged (the
solver's own Eq. 29 check, within 1e-6 of the data's scale) and the error
(N s) below 1e-9 of the largest impulse, as a direct solve leaves it
(1e-11 and less here; an impulse off by a part in a billion fails)."""
import glob
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

TESSERA = os.environ["TSR_TESSERA"]
ROOT = os.environ["TSR_SOURCE_ROOT"]
models = sorted(glob.glob(os.path.join(ROOT, "examples", "*.yaml")))
failures = []
if not models:
    print("no examples found")
    sys.exit(1)
checker = os.path.join(ROOT, "schemas", "check_run_file.py")
with tempfile.TemporaryDirectory() as tmp:
    for m in models:
        name = os.path.basename(m)
        p = subprocess.run([TESSERA, "check", m], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(name + ": check: " + p.stderr.strip())
            continue
        if "initial overlaps: 0" not in p.stdout or "warning" in p.stderr:
            failures.append(name + ": shapes start inside one another: " + p.stderr.strip())
        out = os.path.join(tmp, name + ".h5")
        p = subprocess.run([TESSERA, "run", m, "-o", out, "--steps", "3", "--quiet"], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(name + ": run: " + p.stderr.strip())
            continue
        with h5py.File(out, "r") as f:
            ok = f.attrs["complete"] == 1 and f["/frames/time"].shape[0] == 4
            ok = ok and np.isfinite(f["/bodies/position"][:]).all()
            err = f["/stats/mlcp_error"][:]
            converged = f["/stats/converged"][:]
            lam = np.abs(f["/constraints/impulse"][:])
        scale = max(1.0, float(lam.max()) if lam.size else 0.0)
        if not (converged == 1).all() or not err.max() <= 1e-9 * scale:
            failures.append(name + ": MLCP error %.2e N s (largest impulse %.2e), converged %s"
                            % (err.max(), scale, converged.tolist()))
        if not ok:
            failures.append(name + ": run file incomplete or not finite")
        if os.path.exists(checker):
            p = subprocess.run([sys.executable, checker, out], capture_output=True, text=True)
            if p.returncode != 0:
                failures.append(name + ": layout check: " + (p.stdout + p.stderr).strip()[-500:])
        print("%-24s ok, max MLCP error over 3 steps %.2e" % (name, err.max()))
for f in failures:
    print("FAIL " + f)
print("%d models, %d failed" % (len(models), len(failures)))
sys.exit(1 if failures else 0)
