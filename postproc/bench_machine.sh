#!/bin/bash
# SPDX-License-Identifier: MIT
# The measurement of BENCHMARKS_16CORES.md on a many-core machine, from the
# repository root: thread sweeps of chain_drop and chain_wrap (whole runs,
# and replayed on direct-bpp's MLCPs), chain_drop's gravity ensemble and
# log_tower's whole run with 2 threads, four more scenes' first 120 steps,
# and one check that 1 and all threads write the same run file.
#
#   postproc/bench_machine.sh TESSERA OUTDIR [THREADS]
#
# TESSERA: a tessera binary or postproc/pack_tessera.sh's wrapper; THREADS:
# the sweep's thread counts (default 1,2,4,8,16; the largest is used for the
# replays and the determinism check). Writes OUTDIR/table.md (sweep.py
# table), OUTDIR/extra.txt and OUTDIR/json/ (every run's tessera compare
# --json). About 5 minutes on 16 cores. Needs python3 with h5py for the
# determinism check (skipped with a message without it).
set -u
[ $# -ge 2 ] || { echo "usage: $0 TESSERA OUTDIR [THREADS]" >&2; exit 2; }
T=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
TH=${3:-1,2,4,8,16}
MAX=${TH##*,}
J=$OUT/json
mkdir -p "$J"
here=$(dirname "$0")
log() { echo "[$(date +%T)] $*"; }
log "$(nproc) cores; $("$T" --version | head -1)"
python3 "$here/sweep.py" run examples/chain_drop.yaml examples/chain_wrap.yaml --threads "$TH" -d "$J" --tessera "$T"
python3 "$here/sweep.py" run examples/chain_drop.yaml examples/chain_wrap.yaml --threads "2,$MAX" --replay direct-bpp \
  -d "$J" --tessera "$T"
python3 "$here/sweep.py" run examples/tandem_cranes.yaml examples/net_with_truck.yaml examples/bridge.yaml \
  examples/log_tower_256.yaml --threads "2,$MAX" --steps 120 -d "$J" --tessera "$T"
python3 "$here/sweep.py" table "$J"/*.json -o "$OUT/table.md"
{
  # chain_drop's pile-up is chaotic: gravity scaled by 1 + k 1e-5 gives
  # four more trajectories (as benchmarks.py --ensemble does).
  for k in -2 -1 1 2; do
    g=$(python3 -c "print(-9.81 * (1 + $k * 1e-5))")
    echo "chain_drop, 2 threads, gravity $g:"
    "$T" compare examples/chain_drop.yaml --solvers direct-bpp,schur-bpp --threads 2 --set "settings.gravity=[0,0,$g]" -q |
      sed -n 3,4p
  done
  echo "log_tower, whole run, 2 threads:"
  "$T" compare examples/log_tower.yaml --solvers direct-bpp,schur-bpp --threads 2 -q | sed -n 3,4p
  echo "chain_drop, 300 steps, schur-bpp, --threads 1 and $MAX: the same run file?"
  "$T" run examples/chain_drop.yaml --solver schur-bpp --steps 300 --threads 1 -o "$OUT/t1.h5" --overwrite -q &&
    "$T" run examples/chain_drop.yaml --solver schur-bpp --steps 300 --threads "$MAX" -o "$OUT/tmax.h5" --overwrite -q &&
    python3 -c "
import sys
sys.path.insert(0, 'tests/substructure')
try:
    from run_datasets import datasets, same
except ImportError as e:
    sys.exit('skipped: %s' % e)
a, b = datasets(sys.argv[1]), datasets(sys.argv[2])
bad = [k for k in a if k not in b or not same(a[k], b[k])]
print(len(a), 'datasets:', 'bit-identical' if not bad and len(a) == len(b) else 'DIFFER: ' + ', '.join(bad))
" "$OUT/t1.h5" "$OUT/tmax.h5"
  rm -f "$OUT/t1.h5" "$OUT/tmax.h5"
} 2>&1 | tee "$OUT/extra.txt"
log done
