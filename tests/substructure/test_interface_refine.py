#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Iterative refinement of a converged Schur iterate (solvers/schur.c,
# refine_interface): every row of the whole system within 1e-10 of its own
# terms (tsr_mlcp_relative_residual, `tessera compare`'s max_rel), as
# direct-bpp's polishing gives (solvers/bpp.h TSR_BPP_POLISH_ROW).
#
# examples/bridge.yaml is bilateral with cond(S_Gamma) ~ 1e7 (BENCHMARKS.md):
# S_Gamma, a difference of large terms (Eq. 24), and the subsystems' forward
# errors leave interface rows at up to 8.7e-9 of their own terms in its first
# 20 steps without the refinement (TSR_SCHUR_NO_REFINE=1, printed below),
# against 3.7e-16 for direct-bpp. schur-bpp and schur-pgs-sm, 1 and 2 threads.
import json
import os
import subprocess
import sys
import tempfile

TESSERA = os.environ["TSR_TESSERA"]
MODEL = os.path.join(os.environ["TSR_EXAMPLES"], "bridge.yaml")


def max_rel(tmp, threads, env=None):
    js = os.path.join(tmp, "c.json")
    subprocess.run([TESSERA, "compare", MODEL, "--solvers", "direct-bpp,schur-bpp,schur-pgs-sm", "--steps", "20",
                    "--threads", str(threads), "--quiet", "--json", js], check=True, stdout=subprocess.DEVNULL,
                   env=dict(os.environ, **(env or {})))
    with open(js) as f:
        return {r["solver"]: (r["max_rel"], r["pct_converged"]) for r in json.load(f)["rows"]}


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        off = max_rel(tmp, 2, {"TSR_SCHUR_NO_REFINE": "1"})
        print("without the refinement:", {k: "%.1e" % v[0] for k, v in off.items()})
        for threads in (1, 2):
            rows = max_rel(tmp, threads)
            for solver, (rel, conv) in rows.items():
                ok = conv == 100.0 and rel is not None and rel <= 1e-10
                print(("ok  " if ok else "FAIL"), solver, f"{threads} threads: max_rel {rel:.1e}, {conv:.0f}% converged")
                failures += not ok
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
