#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`tessera info` on run files written by writer_soak, and on bad inputs.

    test_info.py WRITER_SOAK      (TSR_TESSERA names the tessera binary)

Every number `info` prints is recomputed here from the file with numpy.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

import h5py
import numpy as np

SOAK = sys.argv[1]
TESSERA = os.environ["TSR_TESSERA"]
TMP = os.environ.get("TSR_TEST_TMP", ".")
failures = []


def ensure(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, file=sys.stderr)


def tmp(name):
    return os.path.join(TMP, f"{name}_{os.getpid()}.h5")


def info(*args):
    return subprocess.run([TESSERA, "info", *args], capture_output=True, text=True)


def refuses_damaged(path, outdir, message, what):
    """info and export-vtk on a damaged file: each must end within 30 s with
    exit 2 and `message` on stderr. Returns their stderr texts."""
    errs = []
    for args in (["info", path], ["export-vtk", path, "-o", outdir]):
        shutil.rmtree(outdir, ignore_errors=True)
        try:
            r = subprocess.run([TESSERA, *args], capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            ensure(False, f"{args[0]} on {what}: still running after 30 s")
            continue
        ensure(r.returncode == 2 and message in r.stderr, f"{args[0]} on {what}: rc {r.returncode}, {r.stderr[-300:]!r}")
        errs.append((args[0], r.stderr))
    return errs


def parse(stdout):
    out = {}
    for line in stdout.splitlines():
        key, sep, value = line.partition(": ")
        ensure(sep == ": ", f"not a key: value line: {line!r}")
        out[key] = value
    return out


def test_complete():
    path = tmp("info")
    r = subprocess.run([SOAK, path, "--frames", "101", "--bodies", "4"], capture_output=True, text=True)
    ensure(r.returncode == 0, f"writer_soak: {r.stderr}")
    r = info(path)
    ensure(r.returncode == 0, f"info rc {r.returncode}: {r.stderr}")
    ensure(r.stderr == "", f"info printed on stderr: {r.stderr}")
    kv = parse(r.stdout)
    with h5py.File(path, "r") as f:
        solve = f["/stats/solve_seconds"][:] * 1e3
        k = f["/stats/coupling_iterations"][:]
        err = f["/stats/mlcp_error"][:]
        kmax = int(f.attrs["max_coupling_iterations"])
        jerr, pen = f["/stats/joint_error"][:].max(), f["/stats/penetration"][:].max()
    ensure(kv.get("model") == "synth", f"model: {kv.get('model')}")
    ensure(kv.get("complete") == "yes", "complete")
    ensure(kv.get("frames") == "101" and kv.get("steps") == "100", f"frames/steps {kv}")
    ensure(kv.get("solver") == "schur-bpp", "solver")
    ensure(kv.get("solve ms") == f"mean {solve.mean():.3f} median {np.median(solve):.3f} max {solve.max():.3f}",
           f"solve ms: {kv.get('solve ms')}")
    ensure(kv.get("coupling iterations", "").startswith(
        f"mean {k.mean():.2f} ({100.0 * np.mean(k >= kmax):.1f}% at k_max"), f"coupling: {kv.get('coupling iterations')}")
    ensure(kv.get("mlcp error") == f"mean {err.mean():.3g} median {np.median(err):.3g} max {err.max():.3g}",
           f"mlcp error: {kv.get('mlcp error')}")
    ensure(kv.get("max joint error") == f"{jerr:.3g} m", "max joint error")
    ensure(kv.get("max penetration") == f"{pen:.3g} m", "max penetration")
    r = info(path, "--json")
    ensure(r.returncode == 0, "info --json rc")
    j = json.loads(r.stdout)
    ensure(j["frames"] == 101 and j["steps"] == 100 and j["complete"] is True, f"json {j}")
    ensure(abs(j["solve_ms_median"] - np.median(solve)) < 1e-12, "json median")
    ensure(abs(j["mlcp_error_mean"] - err.mean()) < 1e-20, "json mlcp mean")
    os.unlink(path)


def test_incomplete():
    path = tmp("info_incomplete")
    subprocess.run([SOAK, path, "--frames", "30", "--incomplete"], capture_output=True, check=True)
    r = info(path)
    ensure(r.returncode == 0, "info on incomplete file")
    ensure(parse(r.stdout).get("complete") == "no", "complete: no")
    ensure("run did not finish: file holds 30 frames" in r.stderr, f"warning: {r.stderr!r}")
    os.unlink(path)


def test_bad_inputs():
    def refused(args, what, file=None):
        # About the run file: "RUNFILE: error: WHAT", as a model's errors
        # are said; about the command line: "tessera: error: WHAT".
        r = info(*args)
        ensure(r.returncode == 2, f"{what}: rc {r.returncode}, expected 2")
        lead = f"{file}: error: " if file else "tessera: error: "
        ensure(r.stderr.startswith(lead), f"{what}: stderr {r.stderr!r}, expected it to start {lead!r}")
        ensure(r.stdout == "", f"{what}: printed {r.stdout!r}")
        return r.stderr

    refused([], "no file")
    refused([tmp("missing")], "missing file", tmp("missing"))
    refused(["a.h5", "b.h5"], "two files")
    refused(["--bogus", "a.h5"], "unknown option")
    junk = tmp("junk")
    with open(junk, "wb") as fh:
        fh.write(os.urandom(5000))
    ensure("not an HDF5 file" in refused([junk], "random bytes", junk), "random bytes message")
    with h5py.File(junk, "w") as f:
        f["x"] = np.arange(3)
    ensure("not a Tessera run file" in refused([junk], "foreign HDF5", junk), "foreign HDF5 message")
    # A run file cut short, and one with a dataset removed: an error, never a crash.
    path = tmp("info_cut")
    subprocess.run([SOAK, path, "--frames", "200", "--bodies", "50"], capture_output=True, check=True)
    data = open(path, "rb").read()
    with open(junk, "wb") as fh:
        fh.write(data[: len(data) // 2])
    refused([junk], "truncated run file", junk)
    with h5py.File(path, "r+") as f:
        del f["/stats/solve_seconds"]
    ensure("lacks /stats/solve_seconds" in refused([path], "damaged run file", path), "damaged message")
    os.unlink(path)
    os.unlink(junk)
    ensure(refused([TMP], "a directory", TMP) != "", "directory")


def test_damaged_header():
    # One byte changed in a dataset's object header: its checksum fails. A
    # SWMR reader retries such a read with doubling sleeps (HDF5's default of
    # 100 tries never ends in practice: `info` was still asleep after 100 s);
    # info and export-vtk must say the file is damaged, at once.
    path = tmp("info_dmg")
    subprocess.run([SOAK, path, "--frames", "20", "--bodies", "10"], capture_output=True, check=True)
    with h5py.File(path, "r") as f:
        addr = h5py.h5o.get_info(f["/bodies/orientation"].id).addr
    data = bytearray(open(path, "rb").read())
    ensure(data[addr:addr + 4] == b"OHDR", "object header signature at its address")
    data[addr + 20] ^= 0xFF
    with open(path, "wb") as fh:
        fh.write(data)
    outdir = path + ".vtk"
    for cmd, err in refuses_damaged(path, outdir, "/bodies/orientation (the file is damaged)", "a damaged header"):
        ensure("HDF5" not in err, f"{cmd}: HDF5's own messages leak: {err!r}")
    shutil.rmtree(outdir, ignore_errors=True)
    os.unlink(path)


def heap_objects(data):
    """(offset of the size field, size) of every object in the file's global
    heap collections (HDF5 file format spec, "Global Heap": a 16-byte
    collection header "GCOL", then per object: index u16, reference count
    u16, reserved u32, size u64, data padded to 8 bytes; index 0 is the free
    space)."""
    out = []
    g = data.find(b"GCOL")
    while g >= 0:
        (csize,) = struct.unpack_from("<Q", data, g + 8)
        p = g + 16
        while p + 16 <= g + csize:
            idx, _, _, size = struct.unpack_from("<HHIQ", data, p)
            if idx == 0:
                break
            out.append((p + 8, size))
            p += 16 + (size + 7) // 8 * 8
        g = data.find(b"GCOL", g + 1)
    return out


def test_damaged_heap():
    # The variable-length strings (root attributes, names) live in global
    # heaps, whose object sizes HDF5 1.10.8 trusts: a size made larger than
    # its collection makes H5HG_read copy past its buffer, and the reader
    # crashed (SIGSEGV) on some of them. Each object's size set to 1 MiB in
    # turn: info and export-vtk must each end with exit 2 and say the file is
    # damaged, never die by a signal, and export-vtk must leave no series.
    path = tmp("info_heap")
    subprocess.run([SOAK, path, "--frames", "5", "--bodies", "3"], capture_output=True, check=True)
    data = bytearray(open(path, "rb").read())
    objs = heap_objects(data)
    ensure(len(objs) >= 5, f"the root's string attributes are heap objects ({len(objs)} found)")
    bad, outdir = tmp("info_heap_bad"), tmp("info_heap_bad") + ".vtk"
    for off, size in objs:
        e = bytearray(data)
        struct.pack_into("<Q", e, off, 1 << 20)
        with open(bad, "wb") as fh:
            fh.write(e)
        refuses_damaged(bad, outdir, "damaged HDF5 file", f"heap object at {off} damaged")
        ensure(not any(f.endswith(".pvd") for f in (os.listdir(outdir) if os.path.isdir(outdir) else [])),
               "export-vtk wrote a series from a damaged file")
    shutil.rmtree(outdir, ignore_errors=True)
    os.unlink(bad)
    os.unlink(path)


def test_looping_heap():
    # A run file with 512 bytes zeroed in the second half of its first global
    # heap collection (where the heap's objects end and its free space is
    # described): HDF5 1.10.8 then loops for ever reading the strings, and
    # `tessera info` and export-vtk never returned (found by fuzzing). The
    # probe child is given 10 s (run_reader.c, PROBE_SECONDS): each must end
    # with exit 2 and say the file is damaged.
    model = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "hanging_chain.yaml")
    path = tmp("info_loop")
    subprocess.run([TESSERA, "run", model, "--steps", "6", "--every", "3", "--solver", "schur-bpp", "-o", path,
                    "--overwrite", "-q"], capture_output=True, check=True)
    data = bytearray(open(path, "rb").read())
    g = data.find(b"GCOL")
    ensure(g >= 0, "the run file has a global heap")
    (csize,) = struct.unpack_from("<Q", data, g + 8)
    off = g + csize // 2
    data[off:off + 512] = bytes(512)
    bad, outdir = tmp("info_loop_bad"), tmp("info_loop_bad") + ".vtk"
    with open(bad, "wb") as fh:
        fh.write(data)
    refuses_damaged(bad, outdir, "damaged HDF5 file", "a heap zeroed in its second half")
    shutil.rmtree(outdir, ignore_errors=True)
    os.unlink(bad)
    os.unlink(path)


def test_overrides():
    """info --json gives /model/overrides as the list the file keeps: an
    override holding spaces stays one entry (they were joined into one
    string)."""
    path = tmp("info_overrides")
    model = os.path.join(os.environ.get("TSR_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", "..")),
                         "examples", "pendulum.yaml")
    r = subprocess.run([TESSERA, "run", model, "-o", path, "--overwrite", "-q", "--steps", "3",
                        "--set", "settings.gravity=[0, 0, -1.62]", "--set=bodies.ball.mass=2"],
                       capture_output=True, text=True)
    ensure(r.returncode == 0, f"run with overrides: {r.stderr}")
    with h5py.File(path, "r") as f:
        kept = [x.decode() if isinstance(x, bytes) else str(x) for x in f["/model/overrides"][:]]
    r = info(path, "--json")
    j = json.loads(r.stdout) if r.returncode == 0 else {}
    ensure(j.get("overrides") == kept and "--set settings.gravity=[0, 0, -1.62]" in kept,
           f"info --json overrides {j.get('overrides')} != {kept}")
    ensure(info(path).stdout.count("overrides: " + " ".join(kept)) == 1, "info text: overrides joined by spaces")
    os.unlink(path)


def test_long_name():
    # A model name of 150 x "é" (300 bytes; the summary held 255): info
    # --json cut it inside a character (invalid JSON), and export-vtk named
    # its folder from the cut name (another hash than run --vtk's).
    model, path = tmp("long_name.yaml"), tmp("long_name.h5")
    name = "\u00e9" * 150
    with open(model, "w", encoding="utf-8") as fh:
        fh.write("format: tessera-model/1\nname: %s\nsettings: {step: 0.01, steps: 2}\n"
                 "bodies:\n  - {name: b, mass: 1, shape: {type: sphere, radius: 0.1}}\n" % name)
    live, out = tmp("long_live"), tmp("long_export")
    shutil.rmtree(live, ignore_errors=True), shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([TESSERA, "run", model, "-o", path, "--overwrite", "--quiet", "--vtk", live],
                       capture_output=True, text=True)
    ensure(r.returncode == 0, f"run: {r.returncode} {r.stderr[-200:]}")
    r = info(path, "--json")
    try:
        j = json.loads(r.stdout)
    except ValueError as e:
        j = {}
        ensure(False, f"info --json is not JSON: {e}")
    ensure(j.get("model") == name, "info --json gives the whole name")
    subprocess.run([TESSERA, "export-vtk", path, "-o", out], capture_output=True)
    pvd = lambda d: sorted(f for f in os.listdir(d) if f.endswith(".pvd")) if os.path.isdir(d) else []
    ensure(pvd(live) and pvd(live) == pvd(out), f"run --vtk and export-vtk name the series alike: {pvd(live)} {pvd(out)}")
    os.unlink(path), os.unlink(model)
    shutil.rmtree(live, ignore_errors=True), shutil.rmtree(out, ignore_errors=True)


for t in (test_complete, test_incomplete, test_bad_inputs, test_damaged_header, test_damaged_heap, test_looping_heap,
          test_overrides, test_long_name):
    before = len(failures)
    t()
    print(("ok   " if len(failures) == before else "FAIL ") + t.__name__, file=sys.stderr)
sys.exit(1 if failures else 0)
