#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Partitioning benchmark shaped like seed 003 Table 1.

For each model, each partitioning method (mindp, maxdp, bfs, mass-ratio, mix,
and metis as a general-purpose baseline) and each refinement (none, kl, fm),
runs `tessera run MODEL --solver schur-bpp --partition M --refine R --steps N`
and reads the run file's /stats: t_s = mean solve_seconds, t_pr = mean
partition_seconds (partitioning and refinement), both in ms per step, as in
Table 1 ("average solve time t_s and partitioning & refinement time t_pr").
Each cell shows ours, then the paper's number in parentheses where the paper
has one (its scenes: Log Tower, Chain Drop, Rock Pile, Large Rock Pile; Vortex
on an 8-core i9, first 500 steps). The lowest t_s + t_pr of each model is in
bold (the paper's yellow). A second table gives the mean interface rows
|Gamma| and subsystems N per step, and marks runs that failed.

    /usr/bin/python3 postproc/bench_partition.py [MODEL.yaml ...] [--steps N] [-o TABLE.md]

Models default to those of examples/{log_tower,chain_drop,rock_pile,
large_rock_pile}.yaml that exist. Needs h5py (Debian's python3-h5py: run
with /usr/bin/python3 when another python3 comes first on PATH). Timings
depend on the machine and its load: run it on a quiet machine.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SCENES = ("log_tower", "chain_drop", "rock_pile", "large_rock_pile")
METHODS = ("mindp", "maxdp", "bfs", "mass-ratio", "mix", "metis")
REFINES = ("none", "kl", "fm")
METHOD_TITLES = {"mindp": "MinDP", "maxdp": "MaxDP", "bfs": "BFS", "mass-ratio": "MR", "mix": "MIX",
                 "metis": "METIS (not in seed 003)"}
SCENE_TITLES = {"log_tower": "Log Tower", "chain_drop": "Chain Drop", "rock_pile": "Rock Pile",
                "large_rock_pile": "Large Rock Pile"}

# Seed 003 Table 1, ms: scene -> method -> ((t_s, t_pr) for None, KL, FM).
PAPER = {
    "Log Tower": {"mindp": ((26.6, 10.8), (23.5, 14.7), (20.7, 15.1)),
                  "maxdp": ((48.9, 5.0), (41.7, 11.3), (50.0, 8.1)),
                  "bfs": ((103.4, 0.6), (39.0, 5.2), (29.2, 2.3)),
                  "mass-ratio": ((55.3, 0.8), (31.5, 7.5), (32.9, 3.4)),
                  "mix": ((25.3, 9.5), (15.9, 12.7), (17.5, 9.6))},
    "Chain Drop": {"mindp": ((4.5, 1.6), (3.9, 1.7), (3.9, 2.1)),
                   "maxdp": ((6.1, 0.3), (6.1, 0.8), (4.4, 0.4)),
                   "bfs": ((4.7, 0.2), (4.1, 0.6), (3.3, 0.3)),
                   "mass-ratio": ((6.3, 0.2), (5.1, 0.6), (5.4, 0.4)),
                   "mix": ((3.9, 1.3), (3.6, 1.7), (3.4, 2.4))},
    "Rock Pile": {"mindp": ((144.5, 1.2), (100.7, 1.7), (109.2, 1.7)),
                  "maxdp": ((602.8, 1.8), (271.9, 4.6), (290.3, 3.0)),
                  "bfs": ((697.1, 0.6), (241.6, 4.4), (230.2, 2.8)),
                  "mass-ratio": ((385.0, 0.7), (268.1, 3.4), (267.2, 1.8)),
                  "mix": ((105.3, 1.1), (96.1, 1.7), (78.1, 1.5))},
    "Large Rock Pile": {"mindp": ((894.1, 5.5), (738.2, 7.7), (638.7, 5.6)),
                        "maxdp": ((4166.8, 4.3), (1387.7, 10.6), (1463.3, 6.4)),
                        "bfs": ((6127.1, 0.9), (912.5, 8.3), (918.4, 3.2)),
                        "mass-ratio": ((1752.6, 1.2), (814.3, 5.1), (854.5, 2.6)),
                        "mix": ((816.2, 4.7), (671.1, 7.1), (570.3, 5.8))},
}


def scene_key(path):
    return os.path.splitext(os.path.basename(path))[0]


def run_one(args, model, method, refine, tmp):
    out = os.path.join(tmp, f"{scene_key(model)}_{method}_{refine}.h5")
    cmd = [args.tessera, "run", model, "-o", out, "--overwrite", "--quiet", "--solver", args.solver,
           "--partition", method, "--refine", refine, "--steps", str(args.steps)]
    if args.threads is not None:
        cmd += ["--threads", str(args.threads)]
    if args.max_bodies is not None:
        cmd += ["--max-bodies", str(args.max_bodies)]
    for s in args.set or []:
        cmd += ["--set", s]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    res = {"rc": proc.returncode, "wall": wall, "err": proc.stderr.strip().splitlines()[-1:] if proc.stderr else []}
    if proc.returncode == 2 or not os.path.exists(out):
        res["ok"] = False
        return res
    with h5py.File(out, "r", swmr=True) as f:
        st = f["stats"]
        solve = np.asarray(st["solve_seconds"][()], dtype=float)
        part = np.asarray(st["partition_seconds"][()], dtype=float)
        n = len(solve)
        res.update(ok=proc.returncode == 0, steps=n,
                   t_s=1e3 * float(solve.mean()) if n else float("nan"),
                   t_pr=1e3 * float(part.mean()) if n else float("nan"),
                   gamma=float(np.mean(st["interface_rows"][()])) if n else float("nan"),
                   subsystems=float(np.mean(st["subsystems"][()])) if n else float("nan"),
                   partitioning=f.attrs.get("partitioning", b"?"))
    if not args.keep:
        os.remove(out)
    return res


def fmt(x, paper=None):
    s = "-" if x is None or not np.isfinite(x) else (f"{x:.1f}" if x >= 10 else f"{x:.2f}" if x >= 1 else f"{x:.3f}")
    return s if paper is None else f"{s} ({paper:.1f})"


def tables(args, models, results):
    lines = []
    lines.append(f"Solve time t_s and partitioning + refinement time t_pr, ms per step (mean over {args.steps} steps, "
                 f"solver {args.solver}); in parentheses: seed 003 Table 1. **Bold**: lowest t_s + t_pr of the model.")
    lines.append("")
    best = {}
    for model in models:
        cand = [(r["t_s"] + r["t_pr"], m, f) for (mm, m, f), r in results.items()
                if mm == model and r.get("ok") and np.isfinite(r.get("t_s", np.nan))]
        best[model] = min(cand)[1:] if cand else None
    for method in args.methods:
        head = f"| {METHOD_TITLES.get(method, method)} | " + " | ".join(
            f"{f.upper() if f != 'none' else 'None'} t_s | {f.upper() if f != 'none' else 'None'} t_pr"
            for f in args.refines) + " |"
        lines.append(head)
        lines.append("|---" * (1 + 2 * len(args.refines)) + "|")
        for model in models:
            title = SCENE_TITLES.get(scene_key(model), scene_key(model))
            paper = PAPER.get(title, {}).get(method)
            cells = []
            for f in args.refines:
                r = results.get((model, method, f), {})
                p = paper[REFINES.index(f)] if paper else (None, None)
                mark = "**" if best[model] == (method, f) else ""
                bad = "" if r.get("ok") else " †"
                cells.append(f"{mark}{fmt(r.get('t_s'), p[0])}{mark}{bad}")
                cells.append(f"{mark}{fmt(r.get('t_pr'), p[1])}{mark}")
            lines.append(f"| {title} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append("Mean interface rows |Gamma| / mean subsystems N per step (ours):")
    lines.append("")
    lines.append("| model | method | " + " | ".join(args.refines) + " |")
    lines.append("|---|---" + "|---" * len(args.refines) + "|")
    for model in models:
        for method in args.methods:
            cells = []
            for f in args.refines:
                r = results.get((model, method, f), {})
                cells.append(f"{fmt(r.get('gamma'))} / {fmt(r.get('subsystems'))}" if "gamma" in r else "-")
            lines.append(f"| {scene_key(model)} | {method} | " + " | ".join(cells) + " |")
    failed = [(k, r) for k, r in results.items() if not r.get("ok")]
    if failed:
        lines.append("")
        lines.append("† the run failed (means over the steps it made):")
        for (model, method, f), r in failed:
            lines.append(f"- {scene_key(model)} {method}+{f}: exit {r['rc']}, {r.get('steps', 0)} steps; "
                         + " ".join(r.get("err", [])))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", help="model files (default: the seed 003 scenes present in examples/)")
    ap.add_argument("--steps", type=int, default=500, help="steps per run (seed 003: the first 500)")
    ap.add_argument("--solver", default="schur-bpp")
    ap.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: the model's)")
    ap.add_argument("--max-bodies", type=int, default=None, help="default: the model's max_bodies")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--refines", default=",".join(REFINES))
    ap.add_argument("--set", action="append", help="KEY=VALUE passed to tessera run (repeatable)")
    ap.add_argument("--tessera", default=os.path.join(ROOT, "build", "tessera"))
    ap.add_argument("--keep", metavar="DIR", help="keep the run files in DIR")
    ap.add_argument("-o", "--output", help="also write the tables to this markdown file")
    args = ap.parse_args()
    args.methods = [m for m in args.methods.split(",") if m]
    args.refines = [f for f in args.refines.split(",") if f]
    models = args.models or [p for p in (os.path.join(ROOT, "examples", s + ".yaml") for s in DEFAULT_SCENES)
                             if os.path.exists(p)]
    if not models:
        sys.exit("bench_partition: no model given and none of examples/{%s}.yaml exists" % ",".join(DEFAULT_SCENES))
    if not os.access(args.tessera, os.X_OK):
        sys.exit(f"bench_partition: {args.tessera} not found (build first, or give --tessera)")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        outdir = args.keep or tmp
        os.makedirs(outdir, exist_ok=True)
        for model in models:
            for method in args.methods:
                for f in args.refines:
                    r = run_one(args, model, method, f, outdir)
                    results[(model, method, f)] = r
                    print(f"{scene_key(model)} {method}+{f}: " + (
                        f"t_s {r['t_s']:.3f} ms, t_pr {r['t_pr']:.3f} ms, |Gamma| {r['gamma']:.1f}, "
                        f"N {r['subsystems']:.1f}, {r['steps']} steps, {r['wall']:.0f} s"
                        if "t_s" in r else f"failed (exit {r['rc']}) {' '.join(r['err'])}"), file=sys.stderr)
    text = tables(args, models, results)
    print(text, end="")
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
