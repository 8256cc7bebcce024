#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""postproc/render_subsystems.py renders PNG frames headless with ParaView's
pvbatch (under xvfb-run when there is no display: Debian's ParaView needs
X). Skipped (exit 77) where ParaView is not installed."""
import os
import shutil
import subprocess
import sys

from vtkcheck import ROOT, check, finish, tessera, tmpdir

pvbatch = shutil.which("pvbatch") or shutil.which("pvpython")
if not pvbatch:
    print("SKIP: ParaView (pvbatch/pvpython) is not installed: apt-get install paraview python3-paraview",
          file=sys.stderr)
    sys.exit(77)
cmd = [pvbatch]
if not os.environ.get("DISPLAY"):
    xvfb = shutil.which("xvfb-run")
    if not xvfb:
        print("SKIP: no DISPLAY and no xvfb-run (apt-get install xvfb xauth)", file=sys.stderr)
        sys.exit(77)
    cmd = [xvfb, "-a", "-s", "-screen 0 1280x1024x24", pvbatch]
tmp = tmpdir("vtk_paraview_")
# ParaView's embedded Python may not see its own modules (a python3 from
# pyenv or a venv earlier in the environment): that is a broken ParaView
# set-up, not a fault of the script, so probe it first and skip.
probe = os.path.join(tmp, "probe.py")
with open(probe, "w") as fh:
    fh.write("import paraview.simple\n")
pr = subprocess.run(cmd + [probe], capture_output=True, text=True, timeout=120)
if pr.returncode != 0 and "No module named" in (pr.stderr + pr.stdout):
    print("SKIP: ParaView's Python cannot import paraview.simple here: " + (pr.stderr + pr.stdout).strip()[-300:],
          file=sys.stderr)
    sys.exit(77)
run = os.path.join(tmp, "chain.h5")
tessera("run", os.path.join(ROOT, "examples", "hanging_chain.yaml"), "-o", run, "--steps", "10", "--quiet",
        "--overwrite", check_rc=0)
tessera("export-vtk", run, "-o", os.path.join(tmp, "vtk"), "--quiet", check_rc=0)
frames = os.path.join(tmp, "frames")
args = cmd + [os.path.join(ROOT, "postproc", "render_subsystems.py"), os.path.join(tmp, "vtk", "hanging_chain.pvd"),
              "-o", frames, "--every", "5", "--size", "320x240", "--joints", "--contacts"]
p = subprocess.run(args, capture_output=True, text=True, timeout=240)
if p.returncode == -6 or p.returncode == 134:
    # Seen once under load: ParaView aborts creating its window when the new
    # Xvfb is not ready yet. That is the environment, not the script: retry once.
    print("render_subsystems.py aborted (SIGABRT); retrying once", file=sys.stderr)
    p = subprocess.run(args, capture_output=True, text=True, timeout=240)
check(p.returncode == 0, f"render_subsystems.py exit {p.returncode}: {p.stderr[-2000:]}")
pngs = sorted(f for f in os.listdir(frames) if f.endswith(".png")) if os.path.isdir(frames) else []
check(len(pngs) == 3, f"3 PNG frames (11 time steps, every 5): {pngs}")
try:
    from PIL import Image  # Debian's python3-pil; without it only the header is checked
except ImportError:
    Image = None
    print("note: no PIL (python3-pil): the frames' pixels are not checked", file=sys.stderr)
for f in pngs:
    with open(os.path.join(frames, f), "rb") as fh:
        check(fh.read(8) == b"\x89PNG\r\n\x1a\n", f"{f} is a PNG")
    if Image is not None:
        # Something was drawn: a blank frame is one colour. The chain and its
        # load cover more than 1% of a 320 x 240 frame in any view that fits them.
        with Image.open(os.path.join(frames, f)) as im:
            px = list(im.convert("RGB").getdata())
        background = max(set(px[:: 97]), key=px[:: 97].count)
        drawn = sum(1 for c in px if c != background) / len(px)
        check(drawn > 0.01, f"{f}: {100 * drawn:.1f}% of its pixels differ from the background {background}")
finish("paraview_render")
