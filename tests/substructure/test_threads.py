#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Determinism across thread counts (ARCHITECTURE.md "Threads"): the same
# model run with --threads 1 and --threads 2 must give bit-identical datasets
# (every dataset except timings), for each substructured solver; the contact
# cases also with 3 threads (more threads than cores here, and subsystems
# dealt out unevenly), chain_wrap's merged re-runs and direct fallbacks, and
# chain_drop's pile-up (sticky merges).
import os
import subprocess
import sys
import tempfile

from run_datasets import datasets, same

TESSERA = os.environ["TSR_TESSERA"]
EXAMPLES = os.environ["TSR_EXAMPLES"]


def stats_match_frames(path):
    """Frames whose /stats/subsystems or interface_rows disagree with the
    partition the frame holds (/bodies/subsystem, /constraints/subsystem -1):
    OUTPUT.md defines both from one partition. A merged re-run (schur.c)
    once put its own N = 1, |Gamma| = 0 in the statistics."""
    import h5py
    with h5py.File(path, "r") as f:
        time, h = f["/frames/time"][:], float(f.attrs["step"])
        n_sub, n_gam = f["/stats/subsystems"][:], f["/stats/interface_rows"][:]
        bodies, rows, off = f["/bodies/subsystem"][:], f["/constraints/subsystem"][:], f["/constraints/offset"][:]
        bad = []
        for t in range(1, bodies.shape[0]):
            step = int(round(time[t] / h)) - 1  # frame t is the state after this step (0-based)
            n = len(set(bodies[t][bodies[t] >= 0].tolist()))
            g = int((rows[off[t]:off[t + 1]] == -1).sum())
            if n != n_sub[step] or g != n_gam[step]:
                bad.append((step + 1, n, int(n_sub[step]), g, int(n_gam[step])))
        return bad


def run(model, solver, threads, extra, tmp):
    path = os.path.join(tmp, f"{solver}_{threads}.h5")
    cmd = [TESSERA, "run", os.path.join(EXAMPLES, model), "-o", path, "--overwrite", "--quiet",
           "--solver", solver, "--threads", str(threads)] + extra
    subprocess.run(cmd, check=True)
    return datasets(path)


def main():
    failures = 0
    cases = [("bridge.yaml", "schur-bpp", ["--steps", "20"]),
             ("bridge.yaml", "schur-bpp", ["--steps", "10", "--partition", "mindp", "--max-bodies", "12"]),
             ("bridge.yaml", "schur-bpp", ["--steps", "5", "--partition", "mix", "--refine", "kl", "--max-bodies", "12"]),
             ("bridge.yaml", "schur-bpp", ["--steps", "5", "--partition", "metis", "--refine", "fm", "--max-bodies", "12"]),
             # contact, index sets changing, subsystem restarts and direct fallbacks
             ("rock_pile.yaml", "schur-bpp", ["--steps", "120"], 3),
             ("chain_wrap.yaml", "schur-bpp", ["--steps", "300"], 3),
             # the pile-up: sticky merges (solvers/schur.c), checked below to happen
             ("chain_drop.yaml", "schur-bpp", [], 3),
             ("hanging_chain.yaml", "schur-pgs-sm", ["--steps", "20"]),
             ("hanging_chain.yaml", "fbic", ["--steps", "10"])]
    with tempfile.TemporaryDirectory() as tmp:
        for model, solver, extra, *more in cases:
            a = run(model, solver, 1, extra, tmp)
            bad = stats_match_frames(os.path.join(tmp, f"{solver}_1.h5"))
            print(("FAIL" if bad else "ok  "), model, solver, " ".join(extra),
                  "statistics' N and |Gamma| are the frames' partition", bad[:3])
            failures += bool(bad)
            for threads in [2] + more:
                b = run(model, solver, threads, extra, tmp)
                if a.keys() != b.keys():
                    print(f"FAIL {model} {solver} 1/{threads} threads: different datasets"); failures += 1; continue
                bad = [k for k in a if not same(a[k], b[k])]
                print(("FAIL" if bad else "ok  "), model, solver, " ".join(extra), f"1/{threads} threads", bad[:5],
                      f"({len(a)} datasets)")
                failures += bool(bad)
        # chain_drop's case above covers sticky merges only if some are made.
        p = subprocess.run([TESSERA, "run", os.path.join(EXAMPLES, "chain_drop.yaml"), "-o", os.path.join(tmp, "t.h5"),
                            "--overwrite", "--quiet", "--solver", "schur-bpp", "--threads", "2"],
                           capture_output=True, text=True, env=dict(os.environ, TSR_SCHUR_TRACE="1"))
        n = p.stderr.count("schur sticky:")
        print(("ok  " if p.returncode == 0 and n > 0 else "FAIL"), f"chain_drop schur-bpp: {n} sticky-merge solves")
        failures += not (p.returncode == 0 and n > 0)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
