#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Shared reader for plot_stats.py and table.py: per-step statistics of a
Tessera run file (schemas/run-layout.md), also from a run that is still
going on or was killed.

Needs Debian's python3 with python3-numpy and python3-h5py (/usr/bin/python3;
a python3 from a venv or pyenv earlier on PATH may lack them).
"""
import os

import h5py
import numpy as np

STAT_SETS = ("step_seconds", "collide_seconds", "partition_seconds", "solve_seconds", "coupling_iterations",
             "solver_iterations", "converged", "mlcp_error", "constraint_rows", "contacts", "subsystems",
             "interface_rows", "joint_error", "penetration")


def _attr(f, name, default=None):
    v = f.attrs.get(name, default)
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    if isinstance(v, np.generic):
        v = v.item()
    return v


def load_stats(path):
    """Dict with the root attributes and every /stats dataset cut to the
    valid prefix S (the shortest /stats dataset, as run-layout.md asks)."""
    # swmr=True: a killed file is still marked "open for SWMR writing".
    try:
        f = h5py.File(path, "r", swmr=True)
    except OSError as e:  # h5py's message does not name the file
        raise OSError(f"{path}: {e}") from None
    with f:
        if _attr(f, "format", "") != "tessera-run/1":
            raise ValueError(f"{path}: not a Tessera run file (format = {_attr(f, 'format')!r})")
        missing = [k for k in STAT_SETS if "/stats/" + k not in f]
        if missing:
            raise ValueError(f"{path}: no /stats/{missing[0]} (a damaged run file?)")
        S = min(f["/stats/" + k].shape[0] for k in STAT_SETS)
        run = {k: f["/stats/" + k][:S] for k in STAT_SETS}
        ov = f["/model/overrides"][:] if "/model/overrides" in f else []
        run["overrides"] = tuple(sorted(x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x) for x in ov))
        run.update(path=path, name=os.path.basename(path), steps=S,
                   solver=_attr(f, "solver", "?"), partitioning=_attr(f, "partitioning", "?"),
                   model=_attr(f, "model_name", "?"), complete=int(_attr(f, "complete", 0)),
                   threads=int(_attr(f, "threads", 0)), step=float(_attr(f, "step", float("nan"))),
                   k_max=int(_attr(f, "max_coupling_iterations", 0)))
    return run


def summary(run):
    """Table 3 numbers of one run, with the definitions of `tessera info`."""
    solve_ms = run["solve_seconds"] * 1e3
    k = run["coupling_iterations"].astype(np.int64)
    err = run["mlcp_error"][~np.isnan(run["mlcp_error"])]
    S = run["steps"]

    def nanmax(a):
        a = a[~np.isnan(a)]
        return float(a.max()) if a.size else float("nan")

    # A solver that does not substructure reports k = 0 throughout: 0 %, not 100 %.
    at_kmax = 100.0 * np.count_nonzero(k >= run["k_max"]) / S if S and run["k_max"] > 0 and k.max() > 0 else 0.0
    return {
        "solve_ms_mean": float(solve_ms.mean()) if S else float("nan"),
        "solve_ms_median": float(np.median(solve_ms)) if S else float("nan"),
        "coupling_mean": float(k.mean()) if S else float("nan"),
        "pct_at_kmax": at_kmax,
        "mlcp_error_median": float(np.median(err)) if err.size else float("nan"),
        "joint_error_max": nanmax(run["joint_error"]),
        "penetration_max": nanmax(run["penetration"]),
    }


def labels(runs):
    """Solver names, with the model added where the runs are of several
    models, and the file name where two runs still share a label."""
    several = len({r["model"] for r in runs}) > 1
    base = [f"{r['solver']} ({r['model']})" if several else r["solver"] for r in runs]
    return [b if base.count(b) == 1 else f"{b} ({r['name']})" for r, b in zip(runs, base)]


# Command-line overrides that choose how a model is solved, not what it is.
SOLVE_FLAGS = ("--solver", "--partition", "--refine", "--threads", "--max-bodies", "--every")


def same_problem(a, b):
    """Two runs of one model over the same steps, with the same changes to
    the model (--set, --duration...; solver choices aside): their times
    compare."""

    def model_changes(r):
        return tuple(o for o in r.get("overrides", ()) if not o.startswith(SOLVE_FLAGS))

    return (a["model"] == b["model"] and a["steps"] == b["steps"] and a["step"] == b["step"]
            and model_changes(a) == model_changes(b))
