#!/usr/bin/env pvpython
# SPDX-License-Identifier: MIT
"""Renders a Tessera VTK export with the bodies coloured by subsystem.

ParaView is not a Python package of Debian's python3: install it with

    sudo apt-get install paraview          # Debian 12: ParaView 5.11, gives pvpython and pvbatch

and run this script with pvbatch (headless, offscreen) or pvpython:

    tessera export-vtk RUN.h5 -o DIR
    pvbatch postproc/render_subsystems.py DIR/NAME.pvd -o frames/ [--size 1280x720]
            [--every N] [--movie out.avi] [--joints] [--contacts]

writes frames/NAME_0000.png, NAME_0001.png, ... (one per exported time step,
or every Nth), and with --movie also an animation (.avi or .ogv, whatever
ParaView's SaveAnimation writes for that extension). Bodies are coloured by
the cell array `subsystem` with a categorical colour map (one colour per
subsystem id; -1, the fixed bodies, grey). --joints and --contacts add
NAME_joints.pvd (lines) and NAME_contacts.pvd (points) from the same folder.
"""
import argparse
import os
import sys

from paraview import simple as pv  # noqa: E402  (pvpython / pvbatch only)

# Colours of the categories, cycled: ColorBrewer Set1/Dark2-like, distinct on white.
PALETTE = [
    (0.894, 0.102, 0.110), (0.216, 0.494, 0.722), (0.302, 0.686, 0.290), (0.596, 0.306, 0.639),
    (1.000, 0.498, 0.000), (0.651, 0.337, 0.157), (0.969, 0.506, 0.749), (0.106, 0.620, 0.467),
    (0.851, 0.373, 0.008), (0.459, 0.439, 0.702), (0.906, 0.161, 0.541), (0.400, 0.651, 0.118),
]


def subsystem_ids(reader, times):
    """Every subsystem id over the time steps to render (sorted)."""
    ids = set()
    for t in times:
        reader.UpdatePipeline(t)
        rng = reader.CellData["subsystem"].GetRange()
        data = pv.servermanager.Fetch(reader)
        arr = data.GetCellData().GetArray("subsystem") if data is not None else None
        if arr is None:
            ids.update(range(int(rng[0]), int(rng[1]) + 1))
            continue
        for i in range(arr.GetNumberOfTuples()):
            ids.add(int(arr.GetValue(i)))
    return sorted(ids)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Render a Tessera VTK export coloured by subsystem.")
    ap.add_argument("pvd", help="DIR/NAME.pvd written by tessera export-vtk")
    ap.add_argument("-o", "--output", default="frames", help="folder of the PNG frames (default: frames)")
    ap.add_argument("--size", default="1280x720", help="image size WxH (default 1280x720)")
    ap.add_argument("--every", type=int, default=1, help="render every Nth time step")
    ap.add_argument("--movie", default=None, help="also write an animation (e.g. out.avi)")
    ap.add_argument("--joints", action="store_true", help="show NAME_joints.pvd")
    ap.add_argument("--contacts", action="store_true", help="show NAME_contacts.pvd")
    a = ap.parse_args(argv)
    if not os.path.isfile(a.pvd):
        print(f"render_subsystems.py: error: {a.pvd}: no such file", file=sys.stderr)
        return 2
    w, h = (int(v) for v in a.size.lower().split("x"))
    base = os.path.splitext(a.pvd)[0]
    name = os.path.basename(base)
    os.makedirs(a.output, exist_ok=True)

    bodies = pv.PVDReader(FileName=a.pvd)
    times = [float(t) for t in bodies.TimestepValues] or [0.0]  # a VectorProperty
    times = times[:: max(1, a.every)]

    view = pv.CreateView("RenderView")
    view.ViewSize = [w, h]
    view.Background = [1, 1, 1]
    try:
        view.UseColorPaletteForBackground = 0  # ParaView >= 5.10
    except AttributeError:
        pass
    view.OrientationAxesVisibility = 1

    disp = pv.Show(bodies, view)
    pv.ColorBy(disp, ("CELLS", "subsystem"))
    lut = pv.GetColorTransferFunction("subsystem")
    lut.InterpretValuesAsCategories = 1
    ids = subsystem_ids(bodies, times)
    annotations, colors = [], []
    for k, i in enumerate(ids):
        annotations += [str(i), "fixed" if i < 0 else f"subsystem {i}"]
        colors += list((0.6, 0.6, 0.6) if i < 0 else PALETTE[k % len(PALETTE)])
    lut.Annotations = annotations
    lut.IndexedColors = colors
    disp.SetScalarBarVisibility(view, True)

    if a.joints and os.path.isfile(base + "_joints.pvd"):
        joints = pv.PVDReader(FileName=base + "_joints.pvd")
        jd = pv.Show(joints, view)
        jd.ColorArrayName = ["POINTS", ""]  # solid colour
        jd.AmbientColor = jd.DiffuseColor = [0.1, 0.1, 0.1]
        jd.LineWidth = 2.0
    if a.contacts and os.path.isfile(base + "_contacts.pvd"):
        contacts = pv.PVDReader(FileName=base + "_contacts.pvd")
        cd = pv.Show(contacts, view)
        cd.ColorArrayName = ["POINTS", ""]
        cd.AmbientColor = cd.DiffuseColor = [0.0, 0.0, 0.0]
        cd.PointSize = 6.0
        cd.SetRepresentationType("Points")

    scene = pv.GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    view.ViewTime = times[0]
    # Oblique view from -y, z up (models use z up: gravity is -z by default).
    cam = view.GetActiveCamera()
    cam.SetFocalPoint(0, 0, 0)
    cam.SetPosition(0.6, -2.0, 0.8)
    cam.SetViewUp(0, 0, 1)
    view.ResetCamera()
    pv.Render(view)
    for k, t in enumerate(times):
        view.ViewTime = t
        pv.Render(view)
        png = os.path.join(a.output, f"{name}_{k:04d}.png")
        pv.SaveScreenshot(png, view, ImageResolution=[w, h])
    print(f"{len(times)} frames in {a.output}/")
    if a.movie:
        pv.SaveAnimation(a.movie, view, ImageResolution=[w, h], FrameWindow=[0, len(scene.TimeKeeper.TimestepValues) - 1])
        print(a.movie)
    # Release the render window while the X connection is still up: Debian's
    # ParaView under Xvfb otherwise fails in teardown (GLXBadContext, exit 1).
    pv.Delete(view)
    del view
    return 0


if __name__ == "__main__":
    sys.exit(main())
