#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Regenerates BENCHMARKS.md: our version of seed 000's Tables 2, 3 and 4 and
its strong-scaling study (Figs. 12-13), measured on this machine.

    /usr/bin/python3 postproc/benchmarks.py [--steps N] [--scenes a,b,...]
                                             [--tessera build/tessera] [-o BENCHMARKS.md]

Every number comes from `tessera compare MODEL --json FILE` (see
`tessera compare --help`): the solvers of one scene run one after the other in
one process, so their times are side by side on the same (shared, noisy)
machine. What is run:

  * Table 3: every scene with direct-bpp, pgs, pgs-sm, schur-bpp,
    schur-pgs-sm and fbic for --steps steps (default 60) from the model's
    start, the scene's own partitioning, every core; mean MLCP solve time per
    step (the paper's column) and its speedup over direct-bpp, mean coupling
    iterations k and % of steps at k_max (schur-bpp), median MLCP error
    (Eq. 29) and the largest joint error and penetration. PGS and FBIC are
    capped at --slow-steps steps (default 30): they take seconds per step on
    the large scenes.
  * Table 2: the partitioning, bodies per subsystem, and the mean condition
    number of S_Gamma over the coupling iterations (schur-bpp with --cond: a
    dense eigenvalue decomposition of S_Gamma per iteration, not timed).
  * Table 4: log_tower and rock_pile with mindp at 8, 16, 32 and 64 bodies per
    subsystem (schur-pgs-sm, as the paper's table; schur-bpp beside it).
  * Strong scaling: schur-bpp and direct-bpp on bridge, log_tower_256 and
    chain_drop (--scaling-scenes) at 1 .. nproc threads (--scaling-threads);
    a plot (benchmarks_scaling.png, beside the output) and a table.
  * Whole runs: direct-bpp and schur-bpp over the whole duration of
    chain_drop and chain_wrap (the scenes of seed 000 §7.5's claim) and
    log_tower (its collapse) at 1
    and nproc threads (--whole-threads; --repeat runs each, the median kept), with schur-bpp's phase split and its fallbacks; and
    the same on identical problems (tessera compare --replay, each solver
    driving the trajectory in turn).
  * Where chain_drop's time goes: its whole run with each solver, 1 thread,
    TSR_RETRY_TRACE=1: the time in solves that needed the restarts of
    solvers/bpp_retry.c, and the bound the longest subsystem puts on the
    speedup.
  * chain_drop's pile-up is chaotic: its whole run at each --whole-threads count
    --ensemble times (default 9) with gravity off by k parts in 1e5, the
    median and range of schur-bpp's speedup (one run's ratio is one draw).
  * Safety nets: schur-bpp on the MLCPs of a direct-bpp run of chain_drop,
    chain_wrap and log_tower (--net-steps steps) with its fallback, merged
    re-run and cycle fix switched off one after the other: what each does to
    the MLCP error (issue 4: "measure what it does to the error").
  * Shared cores: schur-bpp on chain_wrap (--shared-steps steps, nproc
    threads) alone and as nproc runs at once, with tessera's OpenMP wait
    (GOMP_SPINCOUNT=1000, src/cli/main.c), libgomp's default
    (TSR_NO_REEXEC=1) and OMP_WAIT_POLICY=passive.
  * Seed 003 Table 1: postproc/bench_partition.py on log_tower, chain_drop,
    rock_pile and large_rock_pile (every partitioner and refinement,
    schur-bpp, --partition-steps steps; 0 skips it).

Stopped by Ctrl-C or SIGTERM, it writes the tables that finished to
OUTPUT.partial.md (exit 130) and leaves OUTPUT as it was.

The header gives the cores the machine had for nproc busy processes at once,
measured at the start, before the whole runs and after the shared-cores runs:
a stretch with the second core mostly gone makes the multi-threaded numbers
incomparable (seen twice on this VM).

The paper's numbers (6-core i7, their implementation, their scenes) stand
beside ours; the scenes are ours (examples/, SCENES.md), built from what the
papers give. Run with Debian's python3 (/usr/bin/python3); matplotlib for the
plot (skipped with a note when missing).
"""
import argparse
import datetime
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sweep import thread_list  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Whole runs: the two scenes of seed 000 §7.5's claim, and log_tower, whose
# collapse the first --steps steps of Table 3 leave out.
WHOLE = ["chain_drop", "chain_wrap", "log_tower"]
# Safety nets of schur-bpp, switched off one after the other (schur.c,
# solver.c): the direct solver's re-solve of a step left above epsilon |b|,
# the merged re-run, and the fixed-set pass after a cycle (seed 000 §8.3).
NETS = [("all on (default)", {}),
        ("no fallback", {"TSR_SCHUR_NO_FALLBACK": "1"}),
        ("no fallback, no merge", {"TSR_SCHUR_NO_FALLBACK": "1", "TSR_SCHUR_NO_MERGE": "1"}),
        ("none (no cycle fix either)", {"TSR_SCHUR_NO_FALLBACK": "1", "TSR_SCHUR_NO_MERGE": "1",
                                        "TSR_SCHUR_NO_CYCLE_FIX": "1"})]
NET_SCENES = ["chain_drop", "chain_wrap", "log_tower"]
SOLVERS = ["direct-bpp", "pgs", "pgs-sm", "schur-bpp", "schur-pgs-sm", "fbic"]
SLOW = {"pgs", "fbic"}

# seed 000 Table 3: (Eigen-BPP, PGS, Schur-BPP, Schur-PGS-SM, FBIC) ms, avg k, % at k_max
PAPER_T3 = {
    "log_tower": (202.6, 302.4, 59.7, 51.4, 111.6, 5.8, 39.2),
    "cable_spinner": (141.3, 229.1, 8.7, 8.8, 93.2, 2.1, 0.0),
    "chain_wrap": (54.6, 198.5, 11.6, 12.3, 132.0, 4.4, 1.9),
    "chain_drop": (46.9, 150.5, 9.1, 8.7, 20.5, 3.2, 2.1),
    "rock_pile": (311.7, 284.4, 101.5, 98.6, 373.9, 6.3, 10.2),
    "net_with_truck": (252.3, 802.4, 11.9, 12.7, 632.0, 2.6, 0.0),
    "tandem_cranes": (180.6, 222.9, 12.9, 13.0, 134.3, 2.4, 0.2),
}
# seed 000 Table 2: partitioning (bodies), mean cond(S_Gamma)
PAPER_T2 = {
    "log_tower": ("min. degree (16)", "2.2e6"),
    "cable_spinner": ("semantic (36-48)", "3.9e7"),
    "chain_wrap": ("semantic (16)", "5.6e4"),
    "chain_drop": ("semantic (16)", "2.7e4"),
    "rock_pile": ("min. degree (16)", "1.5e4"),
    "net_with_truck": ("semantic (48)", "2.5e12"),
    "tandem_cranes": ("semantic (24-50)", "4.8e10"),
}
# seed 000 Table 4: bodies per subsystem -> (avg solve ms, avg partitions)
PAPER_T4 = {
    "log_tower": {8: (53.4, 30.4), 16: (51.4, 19.1), 32: (63.3, 14.3), 64: (88.8, 12.8)},
    "rock_pile": {8: (169.1, 21.2), 16: (98.6, 12.1), 32: (129.7, 6.8), 64: (142.7, 4.9)},
}
SCENES = ["chain_wrap", "chain_drop", "log_tower", "cable_spinner", "rock_pile", "large_rock_pile", "net_with_truck",
          "tandem_cranes", "bridge", "log_tower_256"]
SCALING = ["bridge", "log_tower_256", "chain_drop"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def compare(tessera, model, solvers, steps, threads=0, extra=(), cond=False, env=None, stderr=None):
    """Runs `tessera compare` and returns its JSON rows (dicts), or [] on failure.
    env: variables added to this process's environment for the run; stderr:
    a list the run's stderr lines are added to (traces)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "c.json")
        cmd = [tessera, "compare", model, "--solvers", ",".join(solvers), "--quiet", "--json", out]
        cmd += ["--steps", str(steps)] if steps else []  # none: the model's whole duration
        cmd += (["--threads", str(threads)] if threads else []) + (["--cond"] if cond else [])
        cmd += list(extra)
        log("  " + " ".join(["%s=%s" % kv for kv in (env or {}).items()] +
                            [os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd]))
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **env) if env else None)
        if stderr is not None:
            stderr += p.stderr.splitlines()
        if not os.path.exists(out):
            log("    failed (%d): %s" % (p.returncode, p.stderr.strip()[-400:]))
            return []
        with open(out) as f:
            return json.load(f)["rows"]


def _busy(n):
    t = time.perf_counter()
    x = 0
    for i in range(n):
        x += i
    return time.perf_counter() - t


def capacity(n=None, work=3_000_000):
    """Cores the machine gives n busy processes at once (n: every core): n
    times one process's time over the time of n at once. On this shared VM
    the second core is sometimes mostly gone for minutes; the multi-threaded
    numbers of such a stretch are not comparable."""
    n = n or os.cpu_count() or 1
    one = min(_busy(work) for _ in range(3))
    # Plain forks of this single-threaded process, not multiprocessing.Pool:
    # the pool's worker was once left blocked on a lock forked in its held
    # state (the pool's threads run in the parent), and benchmarks.py waited
    # for it forever (tests/vtk/test_postproc.py timed out at 120 s, twice in
    # some 60 runs).
    t = time.perf_counter()
    pids = []
    try:
        for _ in range(n):
            pid = os.fork()
            if pid == 0:  # the child: the work, then out without Python's exit handlers
                try:
                    _busy(work)
                finally:
                    os._exit(0)
            pids.append(pid)
    finally:
        for pid in pids:
            os.waitpid(pid, 0)
    many = time.perf_counter() - t
    return n * one / many


# The variables that set how OpenMP threads wait (src/cli/main.c).
WAIT_VARS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "TSR_NO_REEXEC")


def at_once(tessera, model, solver, steps, threads, copies, env):
    """`copies` runs of `tessera compare` started together, with this
    environment's wait variables replaced by `env`; returns their mean solve
    ms per step (a list)."""
    run_env = {k: v for k, v in os.environ.items() if k not in WAIT_VARS}
    run_env.update(env)
    outs, procs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(copies):
            out = os.path.join(tmp, "c%d.json" % k)
            cmd = [tessera, "compare", model, "--solvers", solver, "--quiet", "--json", out, "--steps", str(steps),
                   "--threads", str(threads)]
            procs.append(subprocess.Popen(cmd, env=run_env, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
            outs.append(out)
        log("  %d x %s compare %s --solvers %s --steps %d --threads %d %s" % (
            copies, os.path.relpath(tessera, ROOT), os.path.relpath(model, ROOT), solver, steps, threads,
            " ".join("%s=%s" % kv for kv in env.items())))
        ms = []
        try:
            results = [p.communicate()[1] for p in procs]
        finally:  # interrupted: the runs would go on writing into a folder about to go
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        for p, out, err in zip(procs, outs, results):
            if not os.path.exists(out):
                log("    failed (%d): %s" % (p.returncode, err.strip()[-400:]))
                continue
            with open(out) as f:
                ms += [r["mean_ms"] for r in json.load(f)["rows"]]
        return ms


def replay(tessera, model, ref, threads):
    """`tessera compare --replay REF`: direct-bpp and schur-bpp on the very
    MLCPs of a run driven by `ref`, the model's whole duration; returns
    {solver: JSON row}."""
    rows = compare(tessera, model, ["direct-bpp", "schur-bpp"], None, threads, extra=("--replay", ref))
    return {r["solver"]: r for r in rows}


RESTART_LINE = re.compile(r"^bpp restarts, (\d+) rows: .*, (\d+) factorisations \(\d+ in the first BPP\), "
                          r"residual \S+, ([0-9.]+) us \(([0-9.]+) in the first BPP\)$")


def restart_split(tessera, model, solver, threads):
    """The model's whole run with `solver` and TSR_RETRY_TRACE=1
    (solvers/bpp_retry.c: a line per solve that needed the restarts, with
    its rows, factorisations and time). Returns the compare JSON row with
    the restarted solves' count, time per step, mean rows and factorisations
    added, or None."""
    err = []
    rows = compare(tessera, model, [solver], None, threads, env={"TSR_RETRY_TRACE": "1"}, stderr=err)
    if not rows:
        return None
    row = rows[0]
    lines = [m for m in (RESTART_LINE.match(x) for x in err) if m]
    n = len(lines)
    row["restarts"] = n
    row["restart_ms"] = 1e-3 * sum(float(m.group(3)) for m in lines) / max(1, row["steps"])
    row["restart_rows"] = sum(int(m.group(1)) for m in lines) / n if n else 0.0
    row["restart_facts"] = sum(int(m.group(2)) for m in lines) / n if n else 0.0
    row["restart_first_ms"] = 1e-3 * sum(float(m.group(4)) for m in lines) / max(1, row["steps"])
    if not lines and any(x.startswith("bpp restarts") for x in err):
        log("warning: the restart lines of TSR_RETRY_TRACE no longer match RESTART_LINE")
    return row


def ms(v):
    return "-" if v is None else ("%.2f" % v if v < 100 else "%.0f" % v)


def sci(v):
    return "-" if v is None else "%.1e" % v


def speed(base, v):
    return "" if base is None or v is None or v <= 0 else " (%.1fx)" % (base / v)


def times(base, v):
    """base / v as '1.23x', '-' when either is missing."""
    return "%.2fx" % (base / v) if base and v else "-"


def table3(results, steps, slow_steps, runs):
    head = ["scene", "direct-bpp", "pgs", "pgs-sm", "schur-bpp", "schur-pgs-sm", "fbic", "avg k", "% k_max",
            "median err direct / schur", "max joint err (m)", "fallbacks", "paper: BPP / PGS / Schur-BPP / Schur-PGS-SM / FBIC ms (avg k, % k_max)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for scene, rows in results.items():
        by = {r["solver"]: r for r in rows}
        base = by.get("direct-bpp", {}).get("mean_ms")
        cells = [scene]
        for s in SOLVERS:
            r = by.get(s)
            cells.append("-" if r is None else (ms(r["mean_ms"]) + speed(base, r["mean_ms"]) + ("" if r["ok"] else " †")))
        sb = by.get("schur-bpp", {})
        cells += ["%.2f" % sb["mean_k"] if sb else "-", "%.1f" % sb["pct_kmax"] if sb else "-",
                  "%s / %s" % (sci(by.get("direct-bpp", {}).get("median_err")), sci(sb.get("median_err"))),
                  "%s / %s" % (sci(by.get("direct-bpp", {}).get("max_joint")), sci(sb.get("max_joint"))),
                  str(sb.get("fallbacks", "-"))]
        p = PAPER_T3.get(scene)
        cells.append("-" if p is None else "%s / %s / %s / %s / %s (%.1f, %.1f%%)" % p)
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Mean MLCP solve time per step in ms (speedup over direct-bpp), %d steps from the start of each "
                 "scene (pgs and fbic: %d; the others: the quietest of %d runs, the one of lowest total time); avg k and %% k_max of schur-bpp; max joint error of direct-bpp / "
                 "schur-bpp; fallbacks: schur-bpp steps re-solved by the direct solver (residual above "
                 "epsilon |b|). † the run stopped early (diverged)." % (steps, slow_steps, runs))
    return lines


def table2(cond_rows, models):
    head = ["scene", "partitioning (bodies per subsystem)", "subsystems", "|Gamma| rows", "mean cond(S_Gamma)",
            "paper: partitioning", "paper: cond(S_Gamma)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    for scene, r in cond_rows.items():
        p = PAPER_T2.get(scene, ("-", "-"))
        part = "%s (%s)" % (r.get("partition", "?"), r.get("bodies_per_subsystem") or "-")
        cells = [scene, part, str(r.get("subsystems", "-")), str(r.get("interface_rows", "-")),
                 sci(r.get("cond_mean")), p[0], p[1]]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def table4(t4):
    head = ["scene", "max bodies", "schur-pgs-sm ms", "schur-bpp ms", "direct-bpp ms", "avg subsystems",
            "paper: ms", "paper: avg partitions"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for scene, by_n in t4.items():
        for n, rows in by_n.items():
            by = {r["solver"]: r for r in rows}
            p = PAPER_T4.get(scene, {}).get(n)
            cells = [scene, str(n)] + [ms(by.get(s, {}).get("mean_ms")) for s in ("schur-pgs-sm", "schur-bpp",
                                                                                  "direct-bpp")]
            cells.append("%.1f" % by["schur-bpp"]["mean_subsystems"] if "schur-bpp" in by else "-")
            cells += ["-", "-"] if p is None else ["%.1f" % p[0], "%.1f" % p[1]]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def scaling_plot(scal, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        return "plot skipped (%s)" % e
    fig, ax = plt.subplots(figsize=(6, 4))
    for scene, pts in scal.items():
        t = sorted(k for k in pts if pts[k].get("schur-bpp"))  # the runs that gave a time
        if not t:
            continue
        base = pts[t[0]]["schur-bpp"]
        ax.plot(t, [base / pts[k]["schur-bpp"] for k in t], "o-", label="%s schur-bpp" % scene)
    ax.plot([1, max(max(p) for p in scal.values())], [1, max(max(p) for p in scal.values())], "k:", label="ideal")
    ax.set_xlabel("threads")
    ax.set_ylabel("speedup over 1 thread")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return None


def _terminated(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tessera", default=os.path.join(ROOT, "build", "tessera"))
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--slow-steps", type=int, default=30, help="steps for pgs and fbic")
    ap.add_argument("--scenes", default=",".join(SCENES))
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-table4", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole-run table")
    ap.add_argument("--table3-runs", type=int, default=2,
                    help="Table 3: runs of the fast solvers per scene; the one with the lowest total time is kept")
    ap.add_argument("--repeat", type=int, default=3,
                    help="whole runs: runs per scene and thread count; each solver's row is its median run")
    ap.add_argument("--shared-steps", type=int, default=600,
                    help="steps of the shared-cores runs (chain_wrap, schur-bpp; 0: skip)")
    ap.add_argument("--partition-steps", type=int, default=120, help="seed 003 Table 1 steps (0: skip)")
    ap.add_argument("--net-steps", type=int, default=600,
                    help="steps of the safety-net replays (chain_drop, chain_wrap, log_tower; 0: skip)")
    ap.add_argument("--scaling-scenes", default=",".join(SCALING), help="strong scaling: scenes (comma-separated)")
    ap.add_argument("--scaling-threads", type=thread_list, default=None,
                    help="strong scaling: thread counts, e.g. 1,2,4,8 (default: 1 .. --threads)")
    ap.add_argument("--whole-threads", type=thread_list, default=None,
                    help="whole runs and replays: thread counts (default: 1 and --threads)")
    ap.add_argument("--ensemble", type=int, default=9,
                    help="chain_drop's whole run at each --whole-threads count this many times, gravity scaled by "
                         "1 + k 1e-5 (k = 0, 1, -1, 2, ...), for the spread of its chaotic pile-up (0: skip)")
    ap.add_argument("--source-commit", default=None,
                    help="the commit to name in the header (a copy of the tree sent to another machine, without .git)")
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "BENCHMARKS.md"))
    a = ap.parse_args(argv)
    scaling_threads = a.scaling_threads or list(range(1, a.threads + 1))
    whole_threads = a.whole_threads or sorted({1, a.threads})
    if not os.access(a.tessera, os.X_OK):
        log("error: %s is not an executable (build first: ./scripts/build.sh)" % a.tessera)
        return 2
    models = {s: os.path.join(ROOT, "examples", s + ".yaml") for s in a.scenes.split(",") if s}
    missing = [s for s, m in models.items() if not os.path.exists(m)]
    for s in missing:
        log("note: no examples/%s.yaml, skipped" % s)
        del models[s]

    # Every table fills as its runs finish: a run stopped by Ctrl-C or SIGTERM
    # (a time limit on a borrowed machine) still writes what it measured,
    # to OUTPUT.partial.md, leaving a complete OUTPUT as it was.
    caps, results, cond_rows, t4, scal = [], {}, {}, {}, {}
    replays, whole, nets, shared, part_md, ensemble = {}, {}, {}, [], None, []
    splits = {}  # chain_drop's restarted solves, by solver (restart_split)
    interrupted = None
    stage = "start"
    signal.signal(signal.SIGTERM, _terminated)
    try:
        caps.append(("start", capacity()))
        for scene, model in models.items():
            stage = "table 3, %s" % scene
            log("table 3: %s" % scene)
            fast = [s for s in SOLVERS if s not in SLOW]
            # The quietest of a few runs: on this shared machine interference
            # only adds time (a chain_wrap row once read 0.21 ms for schur-bpp
            # where three runs right after read 0.14), and the runs solve the
            # same steps, so the lowest total is the least disturbed; its solvers
            # stay side by side.
            runs = [compare(a.tessera, model, fast, a.steps, a.threads) for _ in range(max(1, a.table3_runs))]
            runs = [r for r in runs if r] or [[]]
            # (a run where fewer solvers finished does not count as quieter)
            rows = min(runs, key=lambda rs: (-sum(r["mean_ms"] is not None for r in rs),
                                             sum(r["mean_ms"] for r in rs if r["mean_ms"] is not None)))
            rows += compare(a.tessera, model, [s for s in SOLVERS if s in SLOW], a.slow_steps, a.threads)
            order = {s: i for i, s in enumerate(SOLVERS)}
            results[scene] = sorted(rows, key=lambda r: order.get(r["solver"], 99))
            stage = "table 2, %s" % scene
            log("table 2: %s" % scene)
            c = compare(a.tessera, model, ["schur-bpp"], min(a.steps, 30), a.threads, cond=True)
            if c:
                cond_rows[scene] = c[0]
        if not a.no_table4:
            for scene in ("log_tower", "rock_pile"):
                if scene not in models:
                    continue
                t4[scene] = {}
                for n in (8, 16, 32, 64):
                    stage = "table 4, %s" % scene
                    log("table 4: %s max_bodies %d" % (scene, n))
                    t4[scene][n] = compare(a.tessera, models[scene], ["direct-bpp", "schur-bpp", "schur-pgs-sm"], a.steps,
                                           a.threads, extra=["--partition", "mindp", "--max-bodies", str(n)])
        if not a.no_scaling:
            for scene in [s for s in a.scaling_scenes.split(",") if s]:
                if scene not in models:
                    continue
                for t in scaling_threads:
                    stage = "strong scaling, %s" % scene
                    log("scaling: %s, %d threads" % (scene, t))
                    rows = compare(a.tessera, models[scene], ["direct-bpp", "schur-bpp"], a.steps, t)
                    scal.setdefault(scene, {})[t] = {r["solver"]: r["mean_ms"] for r in rows}  # (once measured)

        if not a.no_whole:
            for scene in WHOLE:
                if scene not in models:
                    continue
                for ref in ("direct-bpp", "schur-bpp"):
                    for t in whole_threads:
                        stage = "replays, %s" % scene
                        log("replay: %s, reference %s, %d threads" % (scene, ref, t))
                        replays[(scene, ref, t)] = replay(a.tessera, models[scene], ref, t)
        caps.append(("before the whole runs", capacity()))
        if not a.no_whole:
            for scene in WHOLE:
                if scene not in models:
                    continue
                for t in whole_threads:
                    runs = {}
                    for k in range(max(1, a.repeat)):
                        stage = "whole runs, %s" % scene
                        log("whole run: %s, %d threads (%d of %d)" % (scene, t, k + 1, max(1, a.repeat)))
                        for r in compare(a.tessera, models[scene], ["direct-bpp", "schur-bpp"], None, t):
                            runs.setdefault(r["solver"], []).append(r)
                    # The machine is shared: each solver's run with the median mean time.
                    whole[(scene, t)] = {name: sorted(rs, key=lambda r: r["mean_ms"])[len(rs) // 2]
                                         for name, rs in runs.items()}

        # Where chain_drop's time goes: the solves that needed the restarts.
        if not a.no_whole and "chain_drop" in models:
            for solver in ("direct-bpp", "schur-bpp"):
                stage = "restarted solves, chain_drop"
                log("restarted solves: chain_drop, %s, 1 thread" % solver)
                splits[solver] = restart_split(a.tessera, models["chain_drop"], solver, 1)

        # chain_drop's pile-up is chaotic: the same run with gravity off by a
        # few parts in 1e5 piles up differently, and its ratio with it.
        if a.ensemble > 0 and "chain_drop" in models:
            for j in range(a.ensemble):
                k = (j + 1) // 2 * (1 if j % 2 else -1)  # 0, 1, -1, 2, -2, ...
                g = -9.81 * (1 + 1e-5 * k)
                for t in whole_threads:
                    stage = "ensemble, chain_drop"
                    log("ensemble: chain_drop, gravity %.6f, %d threads (%d of %d)" % (g, t, j + 1, a.ensemble))
                    rows = {r["solver"]: r for r in compare(a.tessera, models["chain_drop"],
                                                            ["direct-bpp", "schur-bpp"], None, t,
                                                            extra=("--set", "settings.gravity=[0, 0, %.17g]" % g))}
                    d, sb = rows.get("direct-bpp"), rows.get("schur-bpp")
                    if d and sb and sb.get("mean_ms"):
                        ensemble.append((g, t, d["mean_ms"], sb["mean_ms"]))

        # Safety nets: schur-bpp on the MLCPs of a direct-bpp run, with its
        # nets switched off one after the other (what each does to the error).
        if a.net_steps > 0:
            for scene in NET_SCENES:
                if scene not in models:
                    continue
                for label, env in NETS:
                    stage = "safety nets, %s" % scene
                    log("safety nets: %s, %s" % (scene, label))
                    rows = compare(a.tessera, models[scene], ["schur-bpp"], a.net_steps, a.threads,
                                   extra=("--replay", "direct-bpp"), env=env)
                    nets[(scene, label)] = rows[0] if rows else None

        # Shared cores: a batch script running several models at once.
        if a.shared_steps > 0 and "chain_wrap" in models:
            copies = max(2, a.threads)
            for label, env in (("tessera's default (GOMP_SPINCOUNT=1000)", {}),
                               ("libgomp's default (TSR_NO_REEXEC=1)", {"TSR_NO_REEXEC": "1"}),
                               ("OMP_WAIT_POLICY=passive", {"OMP_WAIT_POLICY": "passive"})):
                stage = "shared cores"
                log("shared cores: %s" % label)
                alone = at_once(a.tessera, models["chain_wrap"], "schur-bpp", a.shared_steps, a.threads, 1, env)
                many = at_once(a.tessera, models["chain_wrap"], "schur-bpp", a.shared_steps, a.threads, copies, env)
                shared.append((label, alone, many, copies))

        caps.append(("after the shared-cores runs", capacity()))
        if a.partition_steps > 0:
            stage = "seed 003 table 1"
            log("seed 003 table 1 (postproc/bench_partition.py, %d steps)" % a.partition_steps)
            with tempfile.TemporaryDirectory() as tmp:
                out_md = os.path.join(tmp, "p.md")
                cmd = [sys.executable, os.path.join(ROOT, "postproc", "bench_partition.py"), "--steps",
                       str(a.partition_steps), "--tessera", a.tessera, "-o", out_md]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if os.path.exists(out_md):
                    with open(out_md) as f:
                        part_md = f.read()
                else:
                    log("  failed (%d): %s" % (p.returncode, p.stderr.strip()[-400:]))
    except KeyboardInterrupt:
        interrupted = stage
        log("interrupted during %s: writing what finished" % stage)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one would lose what finished
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    commit = a.source_commit or subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                               capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    except OSError:
        pass
    out = ["# Benchmarks", "",
           "Generated by `/usr/bin/python3 postproc/benchmarks.py` (%s, commit %s%s) on %s: %s, %d cores "
           "(`nproc`), %s. Shared machine: times are noisy; compare within a row (the solvers of a scene run "
           "side by side in one process), not across regenerations." % (
               datetime.date.today().isoformat(), commit, " + local changes" if dirty else "", platform.node(),
               cpu, os.cpu_count() or 1, platform.platform()),
           "", "Cores available to %d busy processes at once (postproc/benchmarks.py capacity; the second core "
           "of this VM is sometimes mostly gone for minutes, and multi-threaded numbers from such a stretch are "
           "not comparable): %s." % (os.cpu_count() or 1, ", ".join("%.2f (%s)" % (c, w) for w, c in caps)),
           "", "Seed 000's numbers are from a 6-core i7, with their own implementation of the scenes; ours are "
           "rebuilt from what the papers give (examples/, SCENES.md).", ""]
    out += ["## Table 3: solve time per step", ""] + table3(results, a.steps, a.slow_steps, max(1, a.table3_runs)) + [""]
    out += ["## Table 2: partitioning and conditioning", ""] + table2(cond_rows, models) + [
        "", "cond(S_Gamma) = lambda_max / lambda_min of the interface matrix, averaged over the coupling "
        "iterations of the first %d steps (schur-bpp)." % min(a.steps, 30), ""]
    if t4:
        out += ["## Table 4: bodies per subsystem (mindp)", ""] + table4(t4) + [""]
    if scal:
        out += ["## Strong scaling", "", "| scene | threads | direct-bpp ms | schur-bpp ms | schur-bpp speedup over "
                "1 thread | schur-bpp over direct-bpp |", "|---|---:|---:|---:|---:|---:|"]
        for scene, pts in scal.items():
            for t in sorted(pts):
                d, s = pts[t].get("direct-bpp"), pts[t].get("schur-bpp")
                s1 = pts[min(pts)].get("schur-bpp")
                out.append("| %s | %d | %s | %s | %s | %s |" % (scene, t, ms(d), ms(s),
                           "%.2f" % (s1 / s) if s and s1 else "-", "%.2f" % (d / s) if s and d else "-"))
        png = os.path.join(os.path.dirname(os.path.abspath(a.output)),
                           "benchmarks_scaling%s.png" % (".partial" if interrupted else ""))
        note = scaling_plot(scal, png)
        out += ["", note if note else "![strong scaling](%s)" % os.path.basename(png), ""]
    if whole:
        out += ["## Whole runs: chain_drop, chain_wrap and log_tower", "",
                "Seed 000 §7.5: on chain_drop and chain_wrap Schur-BPP is faster per step than the direct solver, "
                "with 6 cores and single-threaded. Here over each scene's whole duration (chain_drop: the chain "
                "slides off the plank and piles up on the ground in its last 4 s, where the whole system needs ~50 "
                "factorisations per step (block pivoting and its restarts)); log_tower's too, whose collapse "
                "comes after Table 3's first steps (its interface then holds ~800 rows of contacts between "
                "subsystems). Mean and median MLCP solve ms per step, from "
                "each solver's median of %d runs (by mean); schur-bpp's split per step (ms) and the steps it solved "
                "again with the direct solver. Longest subsystem: the longest single subsystem solve of each "
                "coupling iteration, summed (the subsystem phase's critical path: no thread count takes the "
                "phase below it); merged: time in merged re-runs (within the split). Any threads: schur-bpp's "
                "solve with every parallel loop at its longest item and its serial code as it is (`tessera "
                "compare`'s any-threads bound), and at best direct-bpp's mean over it: the most any thread count "
                "could give on these partitions (tightest from the 1-thread runs, whose items run alone)."
                % max(1, a.repeat), "",
                "| scene | threads | steps | direct-bpp mean | median | schur-bpp mean | median | speedup (means) "
                "| S_Gamma | interface | subsystems | longest subsystem | merged | fallback | fallbacks "
                "| any threads | at best |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for (scene, t), r in whole.items():
            d, sb = r.get("direct-bpp"), r.get("schur-bpp")
            if not d or not sb:
                continue
            ph = sb.get("phase_ms", {})
            bd = ph.get("any_threads_bound")
            out.append("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |" % (
                scene, t, sb["steps"], ms(d["mean_ms"]), ms(d["median_ms"]), ms(sb["mean_ms"]), ms(sb["median_ms"]),
                speed(d["mean_ms"], sb["mean_ms"]), ms(ph.get("schur")), ms(ph.get("interface")),
                ms(ph.get("subsystems")), ms(ph.get("subsystems_longest")), ms(ph.get("merged")),
                ms(ph.get("fallback")), sb.get("fallbacks", 0), ms(bd),
                times(d["mean_ms"], bd)))
        out.append("")
    if replays:
        out += ["The two solvers' trajectories diverge in chain_drop's pile-up (it is chaotic), so the means "
                "above compare different piles. `tessera compare --replay REF` removes that: one run is driven by "
                "the reference solver, and at every step both solvers solve the very MLCP it saw, from the same "
                "warm start (mean / median ms, % of steps converged; med ratio: the median over steps of "
                "direct-bpp's time over schur-bpp's on the same MLCP; at best: direct-bpp's mean over "
                "schur-bpp's any-threads bound, as above):", "",
                "| scene | reference | threads | direct-bpp | schur-bpp | speedup (means) | med ratio | at best |",
                "|---|---|---:|---:|---:|---:|---:|---:|"]
        for (scene, ref, t), r in replays.items():
            d, sb = r.get("direct-bpp"), r.get("schur-bpp")
            if not d or not sb or not sb.get("mean_ms"):
                continue
            mr = sb.get("median_ratio")
            bd = sb.get("phase_ms", {}).get("any_threads_bound")
            out.append("| %s | %s | %d | %s / %s (%.1f%%) | %s / %s (%.1f%%) | %.2fx | %s | %s |" % (
                scene, ref, t, ms(d["mean_ms"]), ms(d["median_ms"]), d["pct_converged"], ms(sb["mean_ms"]),
                ms(sb["median_ms"]), sb["pct_converged"], d["mean_ms"] / sb["mean_ms"],
                "-" if mr is None else "%.2fx" % mr, times(d["mean_ms"], bd)))
        out.append("")
    if splits.get("direct-bpp") and splits.get("schur-bpp"):
        d, sb = splits["direct-bpp"], splits["schur-bpp"]
        crit = [(t, r) for (scene, t), r in whole.items() if scene == "chain_drop" and r.get("direct-bpp")
                and r.get("schur-bpp") and r["schur-bpp"].get("phase_ms", {}).get("subsystems_longest")]
        bound = ""
        if crit:
            t, r = min(crit, key=lambda x: x[0])  # (the fewest threads: items timed alone)
            ph = r["schur-bpp"]["phase_ms"]
            longest = ph["subsystems_longest"]
            bound = (" The costliest subsystem solve of each coupling iteration runs alone whatever the thread count "
                     "(the whole-run table's longest subsystem, %.2f ms per step with %d thread%s), and in the "
                     "pile-up that is the pile's restarted solve: direct-bpp's mean over it, %.1fx, bounds "
                     "schur-bpp's speedup on this trajectory with any number of threads, before S_Gamma, the "
                     "interface and the other solves are counted." % (
                         longest, t, "" if t == 1 else "s", r["direct-bpp"]["mean_ms"] / longest))
            if ph.get("any_threads_bound"):
                bound += (" Counting them (every parallel loop at its longest item, the serial code as it is: "
                          "%.2f ms per step), the bound is %.2fx." % (
                              ph["any_threads_bound"], r["direct-bpp"]["mean_ms"] / ph["any_threads_bound"]))
        out += ["### Where chain_drop's time goes", "",
                "chain_drop's whole run again with each solver, 1 thread, `TSR_RETRY_TRACE=1`: the solves whose "
                "block pivoting stalled and went on to the restarts of `src/solvers/bpp_retry.c` (the active-set "
                "method and projected Newton from the warm start; the pile-up's redundant contacts make A_FF nearly singular), their time per "
                "step and its share of the mean solve time, the part of it spent in the block pivoting that "
                "stalled first (none where a solve after a stall started with the active-set method: "
                "`TSR_RETRY_NO_SKIP`), their number, mean rows and factorisations. "
                "direct-bpp restarts on the whole system; schur-bpp on the subsystems (and interface) the pile "
                "lies in, which are smaller, but it solves them again in later coupling iterations and merged "
                "re-runs." + bound, "",
                "| solver | mean solve ms | in restarted solves, ms | share | of which in the first BPP, ms "
                "| restarted solves | mean rows | factorisations each |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name, r in (("direct-bpp", d), ("schur-bpp", sb)):
            out.append("| %s | %s | %s | %.0f%% | %s | %d | %.0f | %.1f |" % (
                name, ms(r["mean_ms"]), ms(r["restart_ms"]), 100 * r["restart_ms"] / r["mean_ms"],
                ms(r["restart_first_ms"]), r["restarts"], r["restart_rows"], r["restart_facts"]))
        out.append("")
    if ensemble:
        spread = []
        for t in sorted({e[1] for e in ensemble}):
            r = sorted(d / sb for _, tt, d, sb in ensemble if tt == t)
            spread.append("%d thread%s: median %.2fx, from %.2fx to %.2fx over %d runs"
                          % (t, "" if t == 1 else "s", r[len(r) // 2], r[0], r[-1], len(r)))
        out += ["### chain_drop's pile-up is chaotic", "",
                "The whole run of chain_drop again with gravity scaled by 1 + k 1e-5 (k = 0, 1, -1, 2, ...): each "
                "run piles up differently, and schur-bpp's speedup over direct-bpp with it, so one run's ratio "
                "(above) is one draw. Speedup (ratio of the mean solve ms per step): %s." % "; ".join(spread), "",
                "| gravity (m/s^2) | threads | direct-bpp | schur-bpp | speedup (means) |",
                "|---:|---:|---:|---:|---:|"]
        for g, t, d, sb in ensemble:
            out.append("| %.6f | %d | %s | %s | %.2fx |" % (g, t, ms(d), ms(sb), d / sb))
        out.append("")
    if nets:
        out += ["## Safety nets: what each does to the error", "",
                "Algorithm 1 may cycle between index sets or stop at k_max (seed 000 §8.2). schur-bpp has three "
                "nets: after a repeated index set, one pass with the sets fixed so that the interface and the "
                "subsystems agree (§8.3; `TSR_SCHUR_NO_CYCLE_FIX=1` turns it off); a step left unconverged is run "
                "again on a partition with the offending neighbours merged (`TSR_SCHUR_NO_MERGE=1`); a step whose "
                "residual is still above epsilon |b| is solved again by direct-bpp (`TSR_SCHUR_NO_FALLBACK=1`). "
                "Here schur-bpp solves the MLCPs of a direct-bpp run (`tessera compare --replay direct-bpp`, "
                "first %d steps, %d threads) with the nets switched off one after the other: %% of steps "
                "converged, %% at k_max, median and largest MLCP error of the returned iterate (Eq. 29, "
                "absolute), mean k, mean solve ms, and the steps re-solved by direct-bpp." % (a.net_steps, a.threads),
                "", "| scene | nets | % converged | % k_max | median err | max err | avg k | mean ms | fallbacks |",
                "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for (scene, label), r in nets.items():
            if not r:
                out.append("| %s | %s | failed | | | | | | |" % (scene, label))
                continue
            out.append("| %s | %s | %.1f | %.1f | %s | %s | %.2f | %s | %d |" % (
                scene, label, r["pct_converged"], r["pct_kmax"], sci(r["median_err"]), sci(r.get("max_err")),
                r["mean_k"], ms(r["mean_ms"]), r.get("fallbacks", 0)))
        out.append("")
    if shared:
        out += ["## Shared cores", "",
                "A batch script may start several runs at once. schur-bpp on chain_wrap, first %d steps, %d threads "
                "each: one run alone, then %d runs started together on this %d-core machine (mean solve ms per step; "
                "for the runs at once, each run's). OpenMP threads that wait for the others spin before they "
                "sleep; on shared cores a spinning thread holds the core its partner needs, and every short "
                "parallel region then lasts a scheduler time slice. tessera sets GOMP_SPINCOUNT=1000 unless "
                "OMP_WAIT_POLICY or GOMP_SPINCOUNT is set (src/cli/main.c)." % (
                    a.shared_steps, a.threads, shared[0][3], os.cpu_count() or 1), "",
                "| OpenMP wait | alone | runs at once (each) |", "|---|---:|---:|"]
        for label, alone, many, copies in shared:
            out.append("| %s | %s | %s |" % (label, ms(alone[0]) if alone else "-",
                                             " / ".join(ms(v) for v in many) if many else "-"))
        out.append("")
    if part_md:
        out += ["## Seed 003 Table 1: partitioners and refinement", "",
                "`postproc/bench_partition.py --steps %d` (schur-bpp, the model's threads): t_s mean solve ms, "
                "t_pr mean partition + refinement ms per step; the paper's numbers (Vortex, 8-core i9, first 500 "
                "steps) in parentheses." % a.partition_steps, "", part_md]
    path = a.output
    if interrupted:
        out[1:1] = ["", "**Partial: the run was interrupted during %s; the sections below are what finished "
                    "before it.**" % interrupted]
        path = os.path.splitext(a.output)[0] + ".partial.md"
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    log("wrote %s" % path)
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
