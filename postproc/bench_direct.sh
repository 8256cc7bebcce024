#!/usr/bin/env bash
# The direct-solver floor benchmark of issue 2: median step time of
# direct-bpp on the bridge and on a 1,000-link hanging chain, next to one
# CHOLMOD factorisation + solve of the same A. Run after ./scripts/build.sh.
#   postproc/bench_direct.sh [STEPS]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-60}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 examples/gen_chain.py 1000 > "$tmp/chain1000.yaml"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(git rev-parse --short HEAD 2>/dev/null) $(nproc) cores, OPENBLAS_NUM_THREADS=1"
for m in examples/bridge.yaml "$tmp/chain1000.yaml"; do
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 ./build/bench/bench_direct "$m" "$steps"
done
