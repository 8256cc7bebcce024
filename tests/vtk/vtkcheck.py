# SPDX-License-Identifier: MIT
"""Helpers of the VTK tests: run tessera, read .pvd and .vtp with VTK's own
XML reader (python3-vtk9), compare with the run file (h5py)."""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import h5py
import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader

TESSERA = os.environ.get("TSR_TESSERA", "tessera")
ROOT = os.environ.get("TSR_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
FAILURES = []
_TMPDIRS = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL:", msg, file=sys.stderr)
    return cond


def finish(name):
    print(f"{name}: {'FAIL' if FAILURES else 'ok'} ({len(FAILURES)} failures)", file=sys.stderr)
    if not FAILURES:  # kept for a look when something failed
        for d in _TMPDIRS:
            shutil.rmtree(d, ignore_errors=True)
    sys.exit(1 if FAILURES else 0)


def tmpdir(prefix):
    base = os.environ.get("TSR_TEST_TMP") or None
    d = tempfile.mkdtemp(prefix=prefix, dir=base)
    _TMPDIRS.append(d)
    return d


def tessera(*args, check_rc=None):
    p = subprocess.run([TESSERA, *map(str, args)], capture_output=True, text=True)
    if check_rc is not None and p.returncode != check_rc:
        print(p.stdout, p.stderr, file=sys.stderr)
        check(False, f"tessera {' '.join(map(str, args))}: exit {p.returncode}, expected {check_rc}")
    return p


def read_pvd(path):
    """[(timestep, absolute .vtp path)] in file order."""
    root = ET.parse(path).getroot()
    assert root.get("type") == "Collection", path
    d = os.path.dirname(path)
    return [(float(e.get("timestep")), os.path.join(d, e.get("file"))) for e in root.iter("DataSet")]


def read_vtp(path):
    r = vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        raise RuntimeError(f"{path}: VTK reader error {r.GetErrorCode()}")
    return r.GetOutput()


def arrays(data):
    """{name: numpy array} of a vtkPointData / vtkCellData."""
    out = {}
    for i in range(data.GetNumberOfArrays()):
        a = data.GetArray(i)
        out[a.GetName()] = vtk_to_numpy(a).reshape(a.GetNumberOfTuples(), a.GetNumberOfComponents())
    return out


def points(poly):
    p = poly.GetPoints()
    return np.zeros((0, 3)) if p is None else vtk_to_numpy(p.GetData()).reshape(-1, 3)


def run_file(path):
    """Per-frame data of a run file (valid prefix, SWMR read)."""
    with h5py.File(path, "r", swmr=True) as f:
        T = min(f[k].shape[0] for k in ("/frames/time", "/bodies/position", "/bodies/orientation",
                                        "/bodies/velocity", "/bodies/subsystem"))
        T = min(T, f["/constraints/offset"].shape[0] - 1, f["/contacts/offset"].shape[0] - 1)
        g = lambda k: f[k][()]  # noqa: E731
        out = {k: g(k) for k in ("/frames/time", "/bodies/position", "/bodies/orientation", "/bodies/velocity",
                                 "/bodies/subsystem", "/constraints/offset", "/constraints/type",
                                 "/constraints/source", "/constraints/index_set", "/constraints/subsystem",
                                 "/contacts/offset", "/contacts/point", "/contacts/normal", "/contacts/impulse",
                                 "/contacts/depth", "/contacts/body", "/model/shape_body", "/model/shape_type",
                                 "/model/joint_body")}
        out["tangent1"] = f["/contacts/tangent1"][()] if "/contacts/tangent1" in f else None
        out["tangent2"] = f["/contacts/tangent2"][()] if "/contacts/tangent2" in f else None
        out["T"] = T
        out["n"] = f["/model/body_names"].shape[0]
        out["J"] = f["/model/joint_names"].shape[0]
        out["complete"] = int(f.attrs["complete"])
        out["name"] = f.attrs["model_name"]
    return out


def check_contacts(poly, rf, t, where):
    """Contacts piece of frame t against the run file."""
    k0, k1 = rf["/contacts/offset"][t], rf["/contacts/offset"][t + 1]
    C = k1 - k0
    pd = arrays(poly.GetPointData())
    check(poly.GetNumberOfPoints() == C and poly.GetNumberOfVerts() == C, f"{where}: {C} contacts expected")
    for name, comps in (("normal", 3), ("impulse", 3), ("impulse_normal", 1), ("impulse_tangent", 2),
                        ("friction", 1), ("depth", 1), ("bodies", 2), ("index_set", 3), ("interface", 1)):
        check(name in pd and pd[name].shape == (C, comps), f"{where}: point data {name} [{C}, {comps}]")
    if C == 0 or FAILURES:
        return
    lam = rf["/contacts/impulse"][k0:k1]
    n = rf["/contacts/normal"][k0:k1]
    check(np.allclose(points(poly), rf["/contacts/point"][k0:k1]), f"{where}: contact points")
    check(np.allclose(pd["normal"], n), f"{where}: normal")
    check(np.allclose(pd["impulse_normal"][:, 0], lam[:, 0]), f"{where}: impulse_normal")
    check(np.allclose(pd["impulse_tangent"], lam[:, 1:]), f"{where}: impulse_tangent")
    check(np.allclose(pd["friction"][:, 0], np.hypot(lam[:, 1], lam[:, 2])), f"{where}: friction")
    want = n * lam[:, :1]
    if rf["tangent1"] is not None:  # a writer that stores the tangents: the full vector
        t1 = rf["tangent1"][k0:k1]
        t2 = rf["tangent2"][k0:k1] if rf["tangent2"] is not None else np.cross(n, t1)
        want = want + t1 * lam[:, 1:2] + t2 * lam[:, 2:3]
    check(np.allclose(pd["impulse"], want), f"{where}: impulse vector")
    check(np.allclose(pd["depth"][:, 0], rf["/contacts/depth"][k0:k1]), f"{where}: depth")
    check(np.array_equal(pd["bodies"], rf["/contacts/body"][k0:k1]), f"{where}: bodies")
    # index_set and interface from the rows of types 1 and 2 whose source is the contact.
    r0, r1 = rf["/constraints/offset"][t], rf["/constraints/offset"][t + 1]
    typ, src = rf["/constraints/type"][r0:r1], rf["/constraints/source"][r0:r1]
    iset, sub = rf["/constraints/index_set"][r0:r1], rf["/constraints/subsystem"][r0:r1]
    want_iset = np.zeros((C, 3), int)
    want_if = np.full(C, -1)
    for c in range(C):
        nr = np.flatnonzero((typ == 1) & (src == c))
        fr = np.flatnonzero((typ == 2) & (src == c))
        if nr.size:
            want_iset[c, 0] = iset[nr[0]]
            want_if[c] = 1 if sub[nr[0]] == -1 else 0
        for j, r in enumerate(fr[:2]):
            want_iset[c, 1 + j] = iset[r]
    check(np.array_equal(pd["index_set"], want_iset), f"{where}: index_set {pd['index_set'].tolist()} != {want_iset.tolist()}")
    check(np.array_equal(pd["interface"][:, 0], want_if), f"{where}: interface")
