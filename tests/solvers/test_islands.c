// SPDX-License-Identifier: MIT
// direct-bpp on MLCPs whose A is block diagonal (independent islands,
// solvers/islands.h): planted problems of very different scales, their rows
// interleaved. A with every block positive definite makes the MLCP strictly
// monotone, so the planted solution is the only one: each block's lambda must
// come out as planted, whatever the other blocks' scales, and the islands
// found must be the blocks. This checks that the decomposition is exact
// (grouping, extraction of interleaved rows, scatter, the whole system's
// residual); the robustness it brings shows on harder problems (seed 5126
// of tests/substructure/test_random_models.py, whose light chain the
// whole-system solve left at 1.4e-6 of its rows' own terms), not on these
// well-conditioned ones, which BPP also solves whole.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/islands.h"
#include "solvers/solver.h"
#include "test_util.h"
#include "tsr_test.h"

enum { BLOCKS = 4 };

// One case: BLOCKS dense SPD blocks (cond 1e3) of 3-40 rows, block k scaled
// by scale[k] (A_k and b_k: lambda* unchanged, w* scaled), rows placed at a
// random permutation. Returns 1 when every check held.
static int one_case(Rng *r, const double scale[BLOCKS], int *islands_found) {
  int size[BLOCKS], m = 0;
  for (int k = 0; k < BLOCKS; k++) m += size[k] = 3 + rng_int(r, 38);
  int *pos = malloc((size_t)m * sizeof *pos);
  for (int i = 0; i < m; i++) pos[i] = i;
  for (int i = m - 1; i > 0; i--) {  // Fisher-Yates
    int j = rng_int(r, i + 1), t = pos[i];
    pos[i] = pos[j], pos[j] = t;
  }
  double *A = calloc((size_t)m * m, sizeof *A), *b = calloc((size_t)m, sizeof *b);
  double *lo = malloc((size_t)m * sizeof *lo), *hi = malloc((size_t)m * sizeof *hi);
  double *lambda = calloc((size_t)m, sizeof *lambda);
  int8_t *set = calloc((size_t)m, 1);
  Planted q[BLOCKS];  // block k's rows are pos[first_k + i]
  for (int k = 0, first = 0; k < BLOCKS; first += size[k], k++) {
    int n = size[k];
    double *Ak = malloc((size_t)n * n * sizeof *Ak);
    random_spd(r, n, 1e3, Ak);
    planted_from_dense(r, n, Ak, &q[k]);
    for (int i = 0; i < n; i++) {
      int gi = pos[first + i];
      for (int j = 0; j < n; j++) A[(size_t)gi * m + pos[first + j]] = scale[k] * Ak[i * n + j];
      b[gi] = scale[k] * q[k].p.b[i], lo[gi] = q[k].p.lo[i], hi[gi] = q[k].p.hi[i];
    }
    free(Ak);
  }
  TsrMlcp p;
  tsr_mlcp_init(&p);
  ENSURE(tsr_mlcp_from_dense(m, A, b, lo, hi, &p) == 0);
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  prm.warm_start = 0;
  TsrIslands *is = tsr_islands_create();
  TsrSolveStats st = {0};
  int rc = tsr_islands_solve(&p, &prm, lambda, set, &st, is), ok = rc == 0 && st.converged;
  *islands_found = tsr_islands_count(is);
  ok &= *islands_found == BLOCKS;
  // Each block against its own planted solution: the forward error of a
  // backward-stable solve of that block alone (test_util.h planted_exact).
  double err[BLOCKS];
  for (int k = 0, first = 0; k < BLOCKS; first += size[k], k++) {
    for (int i = 0; i < size[k]; i++) q[k].lambda[i] = lambda[pos[first + i]], q[k].set[i] = set[pos[first + i]];
    double tol;
    int set_diff;
    ok &= planted_exact(&q[k], 1e3, &err[k], &tol, &set_diff);
    planted_free(&q[k]);
  }
  // The reported residual is the whole system's (Eq. 29).
  double res = tsr_mlcp_residual(&p, lambda, NULL);
  ok &= fabs(st.residual - res) <= 1e-12 * fmax(1.0, res);
  if (!ok)
    fprintf(stderr, "  rc %d converged %d islands %d, errors %.2e %.2e %.2e %.2e (scales %g %g %g %g)\n", rc,
            st.converged, *islands_found, err[0], err[1], err[2], err[3], scale[0], scale[1], scale[2], scale[3]);
  tsr_islands_free(&is);
  tsr_mlcp_free(&p);
  free(pos), free(A), free(b), free(lo), free(hi), free(lambda), free(set);
  return ok;
}

// Blocks of one scale and blocks 1e12 apart (a 50 g link beside a 50 t load
// has impulses and slacks that far apart in one step's MLCP).
static void test_block_diagonal(void) {
  Rng r = {7001};
  const double scales[][BLOCKS] = {{1, 1, 1, 1}, {1e6, 1, 1e-6, 1}, {1, 1e-12, 1, 1e-6}, {1e-12, 1e-12, 1, 1e-3}};
  int cases = 0, passed = 0;
  for (int c = 0; c < 4; c++)
    for (int rep = 0; rep < 25; rep++) {
      int found = 0;
      cases++;
      passed += one_case(&r, scales[c], &found);
    }
  fprintf(stderr, "  block diagonal: %d of %d solved as planted, block by block\n", passed, cases);
  ENSURE(passed == cases);
}

// One island (a chain of coupled rows) and no rows at all go to BPP whole.
static void test_connected_and_empty(void) {
  Rng r = {7002};
  int n = 30;
  double *A = malloc((size_t)n * n * sizeof *A);
  random_spd(&r, n, 1e3, A);
  Planted q;
  planted_from_dense(&r, n, A, &q);
  TsrSolverParams prm;
  tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
  prm.warm_start = 0;
  TsrIslands *is = tsr_islands_create();
  TsrSolveStats st = {0};
  ENSURE(tsr_islands_solve(&q.p, &prm, q.lambda, q.set, &st, is) == 0);
  ENSURE(tsr_islands_count(is) == 1);
  double err, tol;
  int set_diff;
  ENSURE_MSG(planted_exact(&q, 1e3, &err, &tol, &set_diff), "error %.3e (tolerance %.3e), %d rows in another set", err,
             tol, set_diff);
  TsrMlcp empty;
  tsr_mlcp_init(&empty);
  memset(&st, 0, sizeof st);
  ENSURE(tsr_islands_solve(&empty, &prm, NULL, NULL, &st, is) == 0 && st.converged);
  tsr_islands_free(&is);
  planted_free(&q);
  free(A);
}

int main(void) {
  test_block_diagonal();
  test_connected_and_empty();
  return tsr_test_failures ? 1 : 0;
}
