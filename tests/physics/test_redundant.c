// SPDX-License-Identifier: MIT
// Redundant constraints without compliance. A chain whose every ball joint
// is doubled (two identical joints, compliance 0) makes A = G M^-1 G^T
// singular: each doubled pair has two equal rows. The doubled rows only
// share the load, so the motion is that of the chain with single joints:
// the two trajectories must agree to rounding, for every pivoting solver.
// Before, a singular A_FF of more than a few dozen rows went to dense LU,
// which "succeeded" on pivots of rounding size: with 1,000 links the chain
// diverged in 3 steps, at 3 s and 288 MB per step. Now the factorisation
// reports the singular block and the solvers factorise A_FF + delta I and
// refine against A_FF (bpp.c solve_set); the chol-level contract is checked
// too (a singular block is reported, not handed to LU).
#include <math.h>

#include "linalg/chol.h"
#include "sim_helpers.h"
#include "tsr_test.h"

enum { LINKS = 1000, STEPS = 10 };

// A horizontal chain pinned at one end, released at rest (it swings down):
// `doubled` adds a second, identical ball joint between every two links.
static char *chain_yaml(int doubled) {
  static const char *fmt =
      "format: tessera-model/1\n"
      "name: redundant\n"
      "settings: {step: 0.01, duration: 0.1}\n"
      "bodies:\n"
      "  - {name: link, count: %d, mass: 0.25, shape: {type: sphere, radius: 0.04},\n"
      "     position: [0.05, 0, 0], stride: {position: [0.1, 0, 0]}}\n"
      "joints:\n"
      "  - {name: top, type: ball, bodies: [world, \"link[0]\"], anchor: [0, 0, 0], compliance: 0}\n"
      "  - {name: j, type: ball, count: %d, bodies: [\"link[i]\", \"link[i+1]\"], anchor: [0.1, 0, 0],\n"
      "     stride: {anchor: [0.1, 0, 0]}, compliance: 0}\n"
      "%s";
  static const char *twin =
      "  - {name: k, type: ball, count: %d, bodies: [\"link[i]\", \"link[i+1]\"], anchor: [0.1, 0, 0],\n"
      "     stride: {anchor: [0.1, 0, 0]}, compliance: 0}\n";
  char extra[512] = "";
  if (doubled) snprintf(extra, sizeof extra, twin, LINKS - 1);
  size_t n = strlen(fmt) + strlen(extra) + 64;
  char *s = malloc(n);
  if (!s) exit(1);
  snprintf(s, n, fmt, LINKS, LINKS - 1, extra);
  return s;
}

// Runs STEPS steps; fills x [LINKS] with the final positions.
static void run(const char *solver, int doubled, TsrVec3 *x, double *joint_error) {
  char set[64];
  snprintf(set, sizeof set, "settings.solver.type=%s", solver);
  const char *sets[] = {set};
  char *yaml = chain_yaml(doubled);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, sets, 1, &m, &w);
  free(yaml);
  ENSURE(m.n_bodies == LINKS && m.n_joints == (doubled ? 2 * LINKS - 1 : LINKS));
  *joint_error = 0;
  for (int s = 0; s < STEPS; s++) {
    ENSURE_MSG(tsr_world_step(&w) == 0, "%s, doubled %d: step %d failed", solver, doubled, s);
    *joint_error = fmax(*joint_error, w.stats.joint_error);
  }
  for (int i = 0; i < LINKS; i++) x[i] = w.bodies.x[i];
  tsr_test_world_free(&m, &w);
}

static void test_doubled_joints(void) {
  static TsrVec3 a[LINKS], b[LINKS];
  const char *solvers[] = {"direct-bpp", "schur-bpp", "schur-pgs-sm", "pgs-sm"};
  for (int k = 0; k < 4; k++) {
    double ea, eb;
    run(solvers[k], 0, a, &ea);
    run(solvers[k], 1, b, &eb);
    double d = 0, moved = 0;
    for (int i = 0; i < LINKS; i++) {
      d = fmax(d, tsr_v3_norm(tsr_v3_sub(a[i], b[i])));
      moved = fmax(moved, fabs(a[i].z));
    }
    fprintf(
        stderr,
        "%-13s doubled joints: max position difference %.2e m (links fell up to %.3f m), joint error %.2e / %.2e m\n",
        solvers[k], d, moved, ea, eb);
    ENSURE(moved > 1e-3);  // the chain does swing: the comparison is not of two resting chains
    // Both runs solve for the same velocities; the impulses split differently
    // between twins, so the sums differ in rounding (1e-15 m seen).
    ENSURE_MSG(d < 1e-9, "%s: the doubled chain moved %.3e m away from the single one", solvers[k], d);
    ENSURE(fabs(ea - eb) < 1e-9);
  }
}

// The chol contract behind it: a positive semidefinite, singular symmetric
// block (rows i and i + 1 equal) larger than TSR_CHOL_DENSE_MAX is reported
// singular (-2), not factorised by dense LU; with a shift it factorises.
static void test_singular_block_reported(void) {
  enum { N = 200 };
  // A = sum_j v_j v_j^T, v_j = e_2j + e_2j+1 + 0.5 e_2j+2: rows 2j and
  // 2j + 1 coupled like a doubled joint's, rank N/2.
  static double D[N * N];
  for (int j = 0; j < N / 2; j++) {
    double v[N] = {0};
    v[2 * j] = v[2 * j + 1] = 1.0;
    if (2 * j + 2 < N) v[2 * j + 2] = 0.5;
    for (int r = 0; r < N; r++)
      for (int c = 0; c < N; c++) D[c * N + r] += v[r] * v[c];
  }
  int Ap[N + 1], nz = 0;
  static int Ai[N * N];
  static double Ax[N * N];
  for (int c = 0; c < N; c++) {
    Ap[c] = nz;
    for (int r = 0; r < N; r++)
      if (D[c * N + r] != 0.0) Ai[nz] = r, Ax[nz++] = D[c * N + r];
  }
  Ap[N] = nz;
  int F[N];
  for (int i = 0; i < N; i++) F[i] = i;
  TsrChol *c = tsr_chol_create();
  ENSURE(c != NULL);
  ENSURE(tsr_chol_set_matrix(N, Ap, Ai, Ax, 1, c) == 0);
  ENSURE(tsr_chol_factor(F, N, c) == -2);
  ENSURE(tsr_chol_factor_shifted(F, N, 1e-10 * 4.0, c) == 0);
  ENSURE(tsr_chol_stats(c)->dense_lu == 0);
  tsr_chol_free(&c);
}

int main(void) {
  RUN_TEST(test_singular_block_reported);
  RUN_TEST(test_doubled_joints);
  return TSR_TEST_RESULT();
}
