#!/bin/sh
# SPDX-License-Identifier: MIT
# `tessera mlcp solve`: exit 0 and a residual line on a Siconos problem with a
# known solution, exit 2 on a bad file and on bad usage.
set -u
T="${TSR_TESSERA:?TSR_TESSERA not set}"
fail=0
bad=$(mktemp)
printf '3\n0\n3\n3\n3 3\n1 2\n' > "$bad"
out=$("$T" mlcp solve "$bad" --format lcp 2>&1); rc=$?
rm -f "$bad"
[ $rc -eq 2 ] || { echo "bad file: exit $rc, expected 2: $out"; fail=1; }
echo "$out" | grep -q "error: unexpected end of file" || { echo "bad file message: $out"; fail=1; }
"$T" mlcp solve >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "missing FILE: exit $rc, expected 2"; fail=1; }
"$T" mlcp solve x.dat --solver nope >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "unknown solver: exit $rc, expected 2"; fail=1; }
"$T" mlcp solve /nonexistent/lcp_x.dat >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || { echo "missing file: exit $rc, expected 2"; fail=1; }
# A large sparse LCP in triplet storage (M empty: every row's diagonal is 0,
# q = 1, so z = 0). The conversion scanned all m rows per column: a 400 KB
# file of 200,000 rows took 10 s, this one of 1,000,000 would take minutes
# (60 s: the hang guard).
big=$(mktemp)
{ printf '1000000\n2 1000000 1000000 1\nCSparse Version\ntriplet: 1000000-by-1000000, nzmax: 0 nnz: 0\n'
  awk 'BEGIN { for (i = 0; i < 1000000; i++) print 1 }'; } > "$big"
out=$(timeout 60 "$T" mlcp solve "$big" --format lcp 2>&1); rc=$?
rm -f "$big"
[ $rc -eq 0 ] || { echo "1,000,000-row triplet LCP: exit $rc: $(echo "$out" | tail -2)"; fail=1; }
# With w = q + M z = 1 for every z, complementarity leaves z = 0 alone: a zero
# residual says so.
echo "$out" | grep -q "^status: solved" && echo "$out" | grep -q "^residual: 0.000e+00$" ||
  { echo "1,000,000-row triplet LCP: not solved to z = 0: $(echo "$out" | tail -3)"; fail=1; }
# The factorisation cost limit, read as `run` reads it: a value outside its
# range (from 1e10) is bad usage, exit 2; one inside it is taken.
empty=$(mktemp)
printf '0\n0\n0\n0\n0 0\n' > "$empty"
out=$(TSR_FACTOR_FLOPS=1e9 "$T" mlcp solve "$empty" --format lcp 2>&1); rc=$?
{ [ $rc -eq 2 ] && echo "$out" | grep -q "TSR_FACTOR_FLOPS='1e9'"; } ||
  { echo "TSR_FACTOR_FLOPS=1e9: exit $rc, expected 2, named: $out"; fail=1; }
out=$(TSR_FACTOR_FLOPS=2e10 "$T" mlcp solve "$empty" --format lcp 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "TSR_FACTOR_FLOPS=2e10: exit $rc, expected 0: $out"; fail=1; }
rm -f "$empty"
# A relay file (a 2x2 box LCP: lb = -1, ub = 1) read with --format lcp: the
# bounds after q are not read, so it is solved as an LCP, with a warning that
# says so (it was silent). Read as a relay, no warning.
relay=$(mktemp)
printf '2\n0\n2\n2\n2 2\n2 0\n0 2\n-4\n4\n-1\n-1\n1\n1\n' > "$relay"
out=$("$T" mlcp solve "$relay" --format lcp 2>&1); rc=$?
{ [ $rc -eq 0 ] && echo "$out" | grep -q "warning: q is followed by 4 numbers"; } ||
  { echo "relay read as lcp: exit $rc, expected 0 and a warning: $out"; fail=1; }
out=$("$T" mlcp solve "$relay" --format relay --solution 2>&1); rc=$?
{ [ $rc -eq 0 ] && ! echo "$out" | grep -q warning && echo "$out" | grep -q "^0 1 " &&
  echo "$out" | grep -q "^1 -1 "; } ||
  { echo "relay read as relay: exit $rc, expected 0, no warning, z = (1, -1) at the bounds: $out"; fail=1; }
rm -f "$relay"
D="${TSR_SHARED:-/nonexistent}/external/siconos/numerics/src"
if [ ! -f "$D/LCP/test/data/lcp_CPS_4.dat" ]; then
  [ $fail -eq 0 ] || exit 1
  echo "SKIP: no Siconos data under TSR_SHARED"; exit 77
fi
out=$("$T" mlcp solve "$D/LCP/test/data/lcp_CPS_4.dat" --solution); rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "lcp_CPS_4: exit $rc, expected 0"; fail=1; }
echo "$out" | grep -Eq "^residual: [0-9.]+e[-+][0-9]+$" || { echo "no residual line"; fail=1; }
echo "$out" | grep -q "^3 92 " || { echo "z_4 = 92 not printed"; fail=1; }
# NaN or inf data (M[0,0] of m2n1) is refused, not solved at residual 0.
for v in nan inf -inf; do
  bad=$(mktemp --suffix=_mlcp.dat)
  awk -v v="$v" 'NR==11{$1=v}1' "$D/MLCP/test/data/m2n1_mlcp.dat" > "$bad"
  out=$("$T" mlcp solve "$bad" 2>&1); rc=$?
  rm -f "$bad"
  [ $rc -eq 2 ] || { echo "M[0] = $v: exit $rc, expected 2: $out"; fail=1; }
  echo "$out" | grep -q "M\[0\] is $v; the problem's data must be finite" || { echo "M[0] = $v message: $out"; fail=1; }
done
out=$("$T" mlcp solve "$D/MLCP/test/data/Rectangular_mlcp.dat" 2>&1); rc=$?
[ $rc -eq 2 ] || { echo "Rectangular_mlcp: exit $rc, expected 2"; fail=1; }
# PGS cannot handle the zero diagonal of lcp_CPS_4: a failure, exit 1.
"$T" mlcp solve "$D/LCP/test/data/lcp_CPS_4.dat" --solver pgs >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || { echo "pgs on a zero diagonal: exit $rc, expected 1"; fail=1; }
"$T" mlcp solve "$D/Relay/test/data/relay_2x2.dat" --solver pgs --iterations 100 >/dev/null; rc=$?
[ $rc -eq 0 ] || { echo "pgs on relay_2x2: exit $rc, expected 0"; fail=1; }
# PGS-SM reads rows as columns: a nonsymmetric problem is refused, exit 2.
out=$("$T" mlcp solve "$D/MLCP/test/data/m3n2_mlcp.dat" --solver pgs-sm 2>&1); rc=$?
[ $rc -eq 2 ] || { echo "pgs-sm on a nonsymmetric matrix: exit $rc, expected 2"; fail=1; }
echo "$out" | grep -q "needs a symmetric matrix" || { echo "pgs-sm message: $out"; fail=1; }
# Lemke's method (--solver lemke): lcp_tobenna, which no block pivoting or
# Gauss-Seidel solver here solves, is solved; an infeasible LCP ends on a ray,
# exit 1 with the reason; box bounds are refused, exit 2.
"$T" mlcp solve --help | grep -q "lemke" || { echo "--help does not list lemke"; fail=1; }
out=$("$T" mlcp solve "$D/LCP/test/data/lcp_tobenna.dat" --solver lemke 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "lemke on lcp_tobenna: exit $rc, expected 0: $out"; fail=1; }
echo "$out" | grep -q "^status: solved (0)$" || { echo "lemke on lcp_tobenna: $out"; fail=1; }
out=$("$T" mlcp solve "$D/LCP/test/data/lcp_tobenna.dat" 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "direct-bpp on lcp_tobenna: exit $rc (it does not solve it: update this test)"; fail=1; }
out=$("$T" mlcp solve "$D/LCP/test/data/lcp_Pang_isolated_sol_perturbed.dat" --solver lemke 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "lemke on an infeasible LCP: exit $rc, expected 1: $out"; fail=1; }
echo "$out" | grep -q "^status: not converged (1)$" || { echo "lemke on an infeasible LCP: $out"; fail=1; }
echo "$out" | grep -q "ray termination" || { echo "lemke ray message: $out"; fail=1; }
out=$("$T" mlcp solve "$D/LCP/test/data/lcp_exp_murty2.dat" --solver lemke --max-pivots 10 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "lemke past its pivot cap: exit $rc, expected 1: $out"; fail=1; }
echo "$out" | grep -q "pivot cap of 10" || { echo "lemke cap message: $out"; fail=1; }
out=$("$T" mlcp solve "$D/Relay/test/data/relay_2x2.dat" --solver lemke 2>&1); rc=$?
[ $rc -eq 2 ] || { echo "lemke on box bounds: exit $rc, expected 2: $out"; fail=1; }
echo "$out" | grep -q "lemke takes LCPs only" || { echo "lemke box message: $out"; fail=1; }
out=$("$T" mlcp solve "$D/MLCP/test/data/m3n2_mlcp.dat" --solver lemke --solution 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "lemke on m3n2 (2 free rows eliminated): exit $rc: $out"; fail=1; }
echo "$out" | grep -q "^3 4 " || { echo "lemke on m3n2: z_4 = 4 not printed: $out"; fail=1; }
# A singular free block fails (found by factorising it): exit 1, as README says.
out=$("$T" mlcp solve "$D/MLCP/test/data/PD_mlcp.dat" --solver lemke 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "lemke on PD_mlcp (singular A_FF): exit $rc, expected 1: $out"; fail=1; }
echo "$out" | grep -q "is singular" || { echo "lemke singular A_FF message: $out"; fail=1; }
# An empty LCP (n = 0): solved, without a sanitizer report (lemke cleared a
# NULL M of 0 bytes: memset's argument must not be NULL even then).
empty=$(mktemp)
printf '0\n0\n0\n0\n0 0\n' > "$empty"
out=$("$T" mlcp solve "$empty" --format lcp --solver lemke 2>&1); rc=$?
rm -f "$empty"
[ $rc -eq 0 ] || { echo "lemke on n = 0: exit $rc, expected 0: $out"; fail=1; }
echo "$out" | grep -q "runtime error" && { echo "lemke on n = 0: $out"; fail=1; }
exit $fail
