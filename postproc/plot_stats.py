#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Solve time per step and MLCP error per step of one or several runs (the
plots of seed 000 Figs. 7 and 8), as PNG.

    postproc/plot_stats.py RUN.h5 [RUN.h5 ...] -o PREFIX [--title T] [--dpi N]

writes PREFIX_solve_time.png (MLCP solve time per step, ms, log scale) and
PREFIX_mlcp_error.png (natural residual of the whole-system MLCP per step, log
scale), one line per run, labelled by solver. Runs that were killed plot the
steps they hold.

Run with Debian's python3 (/usr/bin/python3) and python3-numpy, python3-h5py,
python3-matplotlib; a python3 from a venv or pyenv may lack them.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from runfile import labels, load_stats  # noqa: E402


def plot(runs, key, scale, ylabel, title, path, dpi):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for run, label in zip(runs, labels(runs)):
        y = run[key] * scale
        x = np.arange(1, run["steps"] + 1)
        # Zeros (an exactly solved step) cannot go on a log axis: drawn at the floor.
        pos = y[y > 0]
        floor = pos.min() / 10 if pos.size else 1e-300
        ax.plot(x, np.where(y > 0, y, floor), lw=0.8, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="run files (.h5)")
    ap.add_argument("-o", "--output", required=True, help="prefix of the PNG files")
    ap.add_argument("--title", default=None, help="title prefix (default: the model name, or the names)")
    ap.add_argument("--dpi", type=int, default=120)
    a = ap.parse_args(argv)
    try:
        runs = [load_stats(p) for p in a.runs]
    except (OSError, KeyError, ValueError) as e:
        print(f"plot_stats.py: error: {e}", file=sys.stderr)
        return 2
    for r in runs:
        if not r["complete"]:
            print(f"plot_stats.py: warning: {r['path']}: run did not finish; plotting its {r['steps']} steps",
                  file=sys.stderr)
    models = sorted({r["model"] for r in runs})
    title = a.title if a.title is not None else ", ".join(models)
    out_dir = os.path.dirname(a.output)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    solve_png, error_png = a.output + "_solve_time.png", a.output + "_mlcp_error.png"
    plot(runs, "solve_seconds", 1e3, "MLCP solve time per step (ms)", f"{title}: solve time", solve_png, a.dpi)
    plot(runs, "mlcp_error", 1.0, "MLCP error (natural residual)", f"{title}: MLCP error", error_png, a.dpi)
    print(solve_png)
    print(error_png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
