#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Determinism across thread counts (ARCHITECTURE.md "Threads"): the same
# model run with --threads 1 and --threads 2 must give bit-identical datasets
# (every dataset except timings), for each substructured solver; the contact
# cases also with 3 threads (more threads than cores here, and subsystems
# dealt out unevenly) and chain_wrap's merged re-runs and direct fallbacks.
import os
import subprocess
import sys
import tempfile

from run_datasets import datasets, same

TESSERA = os.environ["TSR_TESSERA"]
EXAMPLES = os.environ["TSR_EXAMPLES"]


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
             ("rock_pile.yaml", "schur-bpp", ["--steps", "80"], 3),
             ("chain_wrap.yaml", "schur-bpp", ["--steps", "300"], 3),
             ("hanging_chain.yaml", "schur-pgs-sm", ["--steps", "20"]),
             ("hanging_chain.yaml", "fbic", ["--steps", "10"])]
    with tempfile.TemporaryDirectory() as tmp:
        for model, solver, extra, *more in cases:
            a = run(model, solver, 1, extra, tmp)
            for threads in [2] + more:
                b = run(model, solver, threads, extra, tmp)
                if a.keys() != b.keys():
                    print(f"FAIL {model} {solver} 1/{threads} threads: different datasets"); failures += 1; continue
                bad = [k for k in a if not same(a[k], b[k])]
                print(("FAIL" if bad else "ok  "), model, solver, " ".join(extra), f"1/{threads} threads", bad[:5],
                      f"({len(a)} datasets)")
                failures += bool(bad)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
