#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""postproc/plot_stats.py and postproc/table.py on two runs (direct-bpp and
pgs): two PNGs; a markdown table with one row per run whose numbers are those
computed here from the run files with h5py. postproc/sweep.py: a thread
sweep's files and its table against them."""
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import h5py
import numpy as np

from vtkcheck import ROOT, TESSERA, check, finish, tessera, tmpdir

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

# Missing file: exit 2 with a message that names it.
missing = os.path.join(tmp, "missing.h5")
p = subprocess.run([py, os.path.join(post, "table.py"), missing], capture_output=True, text=True)
check(p.returncode == 2 and "error" in p.stderr and missing in p.stderr, f"missing file: {p.returncode} {p.stderr!r}")
# An unwritable -o: exit 2 with a message, no traceback.
p = subprocess.run([py, os.path.join(post, "table.py"), runs["pgs"], "-o", os.path.join(tmp, "no", "t.md")],
                   capture_output=True, text=True)
check(p.returncode == 2 and "cannot write" in p.stderr and "Traceback" not in p.stderr,
      f"unwritable -o: {p.returncode} {p.stderr!r}")

# Runs of two models: labelled with the model, and no speedup across models
# (rock_pile's direct-bpp time over hanging_chain's pgs time once read 10.04).
other = os.path.join(tmp, "rock_pile.h5")
tessera("run", os.path.join(ROOT, "examples", "rock_pile.yaml"), "-o", other, "--solver", "direct-bpp", "--steps",
        "20", "--quiet", "--overwrite", check_rc=0)
p = subprocess.run([py, os.path.join(post, "table.py"), other, runs["pgs"]], capture_output=True, text=True)
mixed = {c[0]: c[1:] for c in ([x.strip() for x in l.strip("|").split("|")] for l in p.stdout.splitlines()[2:])}
check(p.returncode == 0 and mixed.get("pgs (hanging_chain)", [""] * 4)[3] == "-"
      and mixed.get("direct-bpp (rock_pile)", [""] * 4)[3] == "1.00", f"two models: {p.stdout}")
# The same model changed by --set is another problem: no speedup against it.
changed = os.path.join(tmp, "changed.h5")
tessera("run", model, "-o", changed, "--solver", "direct-bpp", "--steps", "20", "--quiet", "--overwrite", "--set",
        "bodies.load.mass=10", check_rc=0)
p = subprocess.run([py, os.path.join(post, "table.py"), changed, runs["pgs"]], capture_output=True, text=True)
rows2 = {c[0]: c[1:] for c in ([x.strip() for x in l.strip("|").split("|")] for l in p.stdout.splitlines()[2:])}
check(p.returncode == 0 and rows2.get("pgs", [""] * 4)[3] == "-", f"a --set run as the baseline: {p.stdout}")
# sweep.py: one JSON per thread count, kept on a second run; the table's
# ratio is direct-bpp's mean over schur-bpp's from those files.
sw = os.path.join(tmp, "sweep")
p = subprocess.run([py, os.path.join(post, "sweep.py"), "run", model, "--threads", "2,1", "--steps", "10", "-d", sw,
                    "--tessera", TESSERA], capture_output=True, text=True)
files = sorted(os.listdir(sw)) if os.path.isdir(sw) else []
check(p.returncode == 0 and files == ["hanging_chain_t1.json", "hanging_chain_t2.json"],
      f"sweep run: {p.returncode} {files} {p.stderr[-300:]}")
p2 = subprocess.run([py, os.path.join(post, "sweep.py"), "run", model, "--threads", "1", "--steps", "10", "-d", sw,
                     "--tessera", TESSERA],
                    capture_output=True, text=True)
check(p2.returncode == 0 and "kept" in p2.stderr, f"sweep run again keeps the result: {p2.stderr!r}")
p2 = subprocess.run([py, os.path.join(post, "sweep.py"), "run", model, "--threads", "1", "--steps", "12", "-d", sw,
                     "--tessera", TESSERA], capture_output=True, text=True)
check(p2.returncode == 2 and "another run" in p2.stderr, f"sweep run of other steps into the same folder: {p2.stderr!r}")
p = subprocess.run([py, os.path.join(post, "sweep.py"), "table", *[os.path.join(sw, f) for f in files]],
                   capture_output=True, text=True)
trows = [[c.strip() for c in ln.strip("|").split("|")] for ln in p.stdout.splitlines()[2:]]
check(p.returncode == 0 and [r[2] for r in trows] == ["1", "2"], f"sweep table rows by threads: {p.stdout}")
for f, r in zip(files, trows):
    with open(os.path.join(sw, f)) as fh:
        by = {x["solver"]: x for x in json.load(fh)["rows"]}
    want = "%.2fx" % (by["direct-bpp"]["mean_ms"] / by["schur-bpp"]["mean_ms"])
    check(len(r) > 7 and r[7] == want and r[3] == "10", f"{f}: ratio {r[7:8]} != {want}, steps {r[3:4]}")
# --partitions: one result per partition, named by it, with its method in the
# table and compare's any-threads bound (no more than the solve itself) and
# direct-bpp's mean over it.
swp = os.path.join(tmp, "sweep_parts")
p = subprocess.run([py, os.path.join(post, "sweep.py"), "run", model, "--threads", "1", "--steps", "10", "-d", swp,
                    "--partitions", "none,bfs:2", "--tessera", TESSERA], capture_output=True, text=True)
pfiles = sorted(os.listdir(swp)) if os.path.isdir(swp) else []
check(p.returncode == 0 and pfiles == ["hanging_chain_t1_p-bfs2.json", "hanging_chain_t1_p-none.json"],
      f"sweep run --partitions: {p.returncode} {pfiles} {p.stderr[-300:]}")
p = subprocess.run([py, os.path.join(post, "sweep.py"), "table", *[os.path.join(swp, f) for f in pfiles]],
                   capture_output=True, text=True)
prow = {r[16].split()[0]: r for r in ([c.strip() for c in ln.strip("|").split("|")] for ln in p.stdout.splitlines()[2:])
        if len(r) > 18}
for f in pfiles:
    with open(os.path.join(swp, f)) as fh:
        by = {x["solver"]: x for x in json.load(fh)["rows"]}
    sbr, dbr = by["schur-bpp"], by["direct-bpp"]
    bd = sbr["phase_ms"]["any_threads_bound"]
    r = prow.get(sbr["partition"], [])
    check(bd is not None and bd <= sbr["mean_ms"] and len(r) > 18 and r[18] == "%.2fx" % (dbr["mean_ms"] / bd),
          f"{f}: partition {sbr['partition']}, bound {bd} <= {sbr['mean_ms']}, at best {r[18:19]}")
    if sbr["partition"] == "none":  # one subsystem: nothing for threads to split
        check(bd == sbr["mean_ms"], f"one subsystem: the bound is the solve ({bd}, {sbr['mean_ms']})")
p = subprocess.run([py, os.path.join(post, "sweep.py"), "run", model, "--threads", "1", "--partitions", "mindp:0",
                    "-d", swp, "--tessera", TESSERA], capture_output=True, text=True)
check(p.returncode == 2 and "mindp:0" in p.stderr, f"sweep --partitions mindp:0: exit 2, named: {p.stderr[-200:]!r}")
p = subprocess.run([py, os.path.join(post, "sweep.py"), "table", missing], capture_output=True, text=True)
check(p.returncode == 2 and missing in p.stderr, f"sweep table of a missing file: {p.returncode} {p.stderr!r}")
# benchmarks.py stopped by SIGTERM (a time limit) in its first table: exit
# 130, the partial file marked as such, the output itself not written.
bench_out = os.path.join(tmp, "B.md")
# Its own session, so that whatever it started can be killed with it. Its
# stderr is read by a thread, so that neither the wait for its first run nor
# the wait after the signal can outlast 60 s: twice this test waited out
# meson's 120 s, benchmarks.py blocked before its first run (a worker of its
# multiprocessing pool forked with a lock held; it forks plainly now).
proc = subprocess.Popen([py, os.path.join(post, "benchmarks.py"), "--tessera", TESSERA, "--scenes", "chain_drop",
                         "--steps", "100000", "-o", bench_out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        text=True, start_new_session=True)
lines = queue.Queue()


def pump():
    for ln in proc.stderr:
        lines.put(ln)
    lines.put(None)


threading.Thread(target=pump, daemon=True).start()
seen, rest, deadline = "", "", time.monotonic() + 60
while True:  # until the first table's runs have started
    try:
        line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
    except queue.Empty:
        rest = "\n[no run started in 60 s]"
        break
    if line is None:
        break
    seen += line
    if "compare" in line:
        break
try:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
except subprocess.TimeoutExpired:
    rest += "\n[benchmarks.py still running 60 s after SIGTERM: killed]"
finally:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # anything it left running
    except ProcessLookupError:
        pass
    proc.wait()
while True:  # what it printed after the signal (the pump ends at its end of file)
    try:
        line = lines.get(timeout=5)
    except queue.Empty:
        break
    if line is None:
        break
    rest += line
partial = os.path.join(tmp, "B.partial.md")
text = open(partial).read() if os.path.exists(partial) else ""
check(proc.returncode == 130 and "**Partial: the run was interrupted during table 3, chain_drop" in text
      and not os.path.exists(bench_out), f"benchmarks.py after SIGTERM: {proc.returncode} {(seen + rest)[-300:]!r}")
finish("postproc")
