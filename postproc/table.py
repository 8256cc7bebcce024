#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A markdown table shaped like seed 000 Table 3, one row per run file.

    postproc/table.py RUN.h5 [RUN.h5 ...] [-o TABLE.md]

Columns: run (solver; with the model when the files hold several, and the
file when two runs still share a label), steps, mean and median MLCP solve
time per step (ms), speedup (mean solve time of the direct-bpp run of the
same model, step and step count divided by this run's; "-" when there is no
such run, or more than one), mean coupling iterations, % of steps
at k_max (0 for solvers that do not substructure), median MLCP error, max
joint error (m), max penetration (m). The statistics use the same
definitions as `tessera info`. A run that did not finish is marked with *
and counts the steps it holds.

Run with Debian's python3 (/usr/bin/python3) and python3-numpy, python3-h5py.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runfile import labels, load_stats, same_problem, summary  # noqa: E402

HEADER = ("run", "steps", "mean solve (ms)", "median solve (ms)", "speedup", "mean k", "% at k_max",
          "median MLCP error", "max joint error (m)", "max penetration (m)")


def fmt(v, spec):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def table(runs):
    sums = [summary(r) for r in runs]
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join(["---"] + ["---:"] * (len(HEADER) - 1)) + "|"]
    for r, s, label in zip(runs, sums, labels(runs)):
        # only against direct-bpp on the same problem: a speedup across models means nothing
        direct = [t for q, t in zip(runs, sums) if q["solver"] == "direct-bpp" and same_problem(q, r)]
        base = direct[0]["solve_ms_mean"] if len(direct) == 1 else None
        speedup = base / s["solve_ms_mean"] if base is not None and s["solve_ms_mean"] > 0 else None
        cells = [label + ("" if r["complete"] else " *"), str(r["steps"]), fmt(s["solve_ms_mean"], ".3f"),
                 fmt(s["solve_ms_median"], ".3f"), fmt(speedup, ".2f"), fmt(s["coupling_mean"], ".2f"),
                 fmt(s["pct_at_kmax"], ".1f"), fmt(s["mlcp_error_median"], ".3g"), fmt(s["joint_error_max"], ".3g"),
                 fmt(s["penetration_max"], ".3g")]
        lines.append("| " + " | ".join(cells) + " |")
    if any(not r["complete"] for r in runs):
        lines.append("")
        lines.append("\\* run did not finish; statistics over the steps the file holds.")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="run files (.h5)")
    ap.add_argument("-o", "--output", help="write the table here instead of stdout")
    a = ap.parse_args(argv)
    try:
        runs = [load_stats(p) for p in a.runs]
    except (OSError, KeyError, ValueError) as e:
        print(f"table.py: error: {e}", file=sys.stderr)
        return 2
    text = table(runs)
    if a.output:
        try:
            with open(a.output, "w") as f:
                f.write(text)
        except OSError as e:
            print(f"table.py: error: cannot write {a.output}: {e.strerror}", file=sys.stderr)
            return 2
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
