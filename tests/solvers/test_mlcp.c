// SPDX-License-Identifier: MIT
// The MLCP module: body-wise assembly of A = J M^-1 J^T + C and b = J v_free +
// rhs (seed 000 Eqs. 5, 8) against a naive dense product, the natural
// residual of Eq. 29 on hand-made cases, index sets (Eq. 12), and the
// Siconos box-LCP writer read back by the reader.
#include "mlcp/mlcp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "tsr_test.h"

// Random bodies (some fixed: inv_mass 0) and rows (some with a -1 side, some
// with both sides on one body); compares every entry of A and b with the dense
// J M^-1 J^T + C, relative to max |A|. Roundoff of a 6-term dot product: 1e-12.
static void check_assembly(Rng *r, int n_bodies, int m, int reuse_passes) {
  double *inv_mass = calloc((size_t)n_bodies, sizeof(double));
  double *inv_inertia = calloc((size_t)n_bodies * 9, sizeof(double));
  double *v_free = calloc((size_t)n_bodies * 6, sizeof(double));
  for (int k = 0; k < n_bodies; k++) {
    if (rng_uniform(r) < 0.2) continue;             // fixed body
    inv_mass[k] = 1.0 / rng_range(r, 0.01, 100.0);  // mass ratios up to 1e4
    double R[9], Q[9];
    for (int a = 0; a < 9; a++) R[a] = rng_normal(r);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double s = 0;
        for (int c = 0; c < 3; c++) s += R[3 * i + c] * R[3 * j + c];
        Q[3 * i + j] = s + (i == j ? 0.1 : 0.0);  // SPD
      }
    memcpy(&inv_inertia[9 * k], Q, sizeof Q);
    for (int a = 0; a < 6; a++) v_free[6 * k + a] = rng_normal(r);
  }
  TsrRowSet rows = {0};
  TsrMlcp p;
  tsr_mlcp_init(&p);
  for (int pass = 0; pass < reuse_passes; pass++) {
    tsr_rowset_clear(&rows);
    for (int i = 0; i < m; i++) {
      TsrRow *row = tsr_rowset_push(&rows);
      ENSURE(row && row->body[0] == -1 && row->body[1] == -1);
      row->body[0] = rng_int(r, n_bodies);
      double u = rng_uniform(r);
      row->body[1] = u < 0.2 ? -1 : u < 0.25 ? row->body[0] : rng_int(r, n_bodies);
      for (int s = 0; s < 2; s++)
        for (int a = 0; a < 6; a++) row->J[s][a] = rng_normal(r);
      row->compliance = rng_uniform(r) < 0.5 ? 0.0 : rng_range(r, 1e-9, 1e-3);
      row->rhs = rng_normal(r);
      row->lo = -1.0, row->hi = 2.0;
    }
    ENSURE(tsr_mlcp_assemble(&rows, n_bodies, inv_mass, inv_inertia, v_free, &p) == 0);
    ENSURE(p.m == m && p.symmetric == 1);
    // Dense reference.
    int nd = 6 * n_bodies;
    double *J = calloc((size_t)m * nd, sizeof(double)), *Minv = calloc((size_t)nd * nd, sizeof(double));
    double *Aref = calloc((size_t)m * m, sizeof(double)), *A = calloc((size_t)m * m, sizeof(double));
    for (int i = 0; i < m; i++)
      for (int s = 0; s < 2; s++) {
        int k = rows.rows[i].body[s];
        if (k < 0) continue;
        for (int a = 0; a < 6; a++) J[(size_t)i * nd + 6 * k + a] += rows.rows[i].J[s][a];
      }
    for (int k = 0; k < n_bodies; k++) {
      if (inv_mass[k] == 0.0) continue;
      for (int a = 0; a < 3; a++) Minv[(size_t)(6 * k + a) * nd + 6 * k + a] = inv_mass[k];
      for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) Minv[(size_t)(6 * k + 3 + a) * nd + 6 * k + 3 + c] = inv_inertia[9 * k + 3 * a + c];
    }
    double amax = 0;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) {
        double s = 0;
        for (int a = 0; a < nd; a++) {
          double t = 0;
          for (int c = 0; c < nd; c++) t += Minv[(size_t)a * nd + c] * J[(size_t)j * nd + c];
          s += J[(size_t)i * nd + a] * t;
        }
        if (i == j) s += rows.rows[i].compliance;
        Aref[(size_t)i * m + j] = s;
        amax = fmax(amax, fabs(s));
      }
    int sorted = 1;
    for (int j = 0; j < m; j++)
      for (int q = p.Ap[j]; q < p.Ap[j + 1]; q++) {
        if (q > p.Ap[j] && p.Ai[q] <= p.Ai[q - 1]) sorted = 0;
        A[(size_t)p.Ai[q] * m + j] += p.Ax[q];
      }
    ENSURE_MSG(sorted, "row indices sorted and unique within each column");
    double err = 0, asym = 0;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < m; j++) {
        err = fmax(err, fabs(A[(size_t)i * m + j] - Aref[(size_t)i * m + j]));
        asym = fmax(asym, fabs(A[(size_t)i * m + j] - A[(size_t)j * m + i]));
      }
    ENSURE_MSG(err <= 1e-12 * amax, "max |A - Aref| = %.3g, max |A| = %.3g", err, amax);
    ENSURE_MSG(asym == 0.0, "A is exactly symmetric (max asymmetry %.3g)", asym);
    double berr = 0, bmax = 0;
    for (int i = 0; i < m; i++) {
      double s = rows.rows[i].rhs;
      for (int a = 0; a < nd; a++) s += J[(size_t)i * nd + a] * v_free[a];
      berr = fmax(berr, fabs(s - p.b[i]));
      bmax = fmax(bmax, fabs(s));
      ENSURE(p.lo[i] == -1.0 && p.hi[i] == 2.0);
    }
    ENSURE_MSG(berr <= 1e-12 * bmax, "max |b - bref| = %.3g", berr);
    free(J), free(Minv), free(Aref), free(A);
  }
  tsr_mlcp_free(&p);
  tsr_rowset_free(&rows);
  free(inv_mass), free(inv_inertia), free(v_free);
}

static void test_assembly_random(void) {
  Rng r = {42};
  check_assembly(&r, 1, 1, 1);
  check_assembly(&r, 3, 8, 2);
  check_assembly(&r, 6, 40, 3);   // reused buffers, growing
  check_assembly(&r, 10, 25, 1);  // and shrinking
}

static void test_assembly_empty(void) {
  TsrRowSet rows = {0};
  TsrMlcp p;
  tsr_mlcp_init(&p);
  double im = 1.0, I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, v[6] = {0};
  ENSURE(tsr_mlcp_assemble(&rows, 1, &im, I, v, &p) == 0);
  ENSURE(p.m == 0 && p.Ap[0] == 0);
  ENSURE(tsr_mlcp_residual(&p, NULL, NULL) == 0.0);
  tsr_mlcp_free(&p);
  tsr_rowset_free(&rows);
}

// Eq. 29 on hand-made 1x1 and 2x2 problems (A = I, so w = lambda + b).
static void test_residual(void) {
  TsrMlcp p;
  tsr_mlcp_init(&p);
  double A[4] = {1, 0, 0, 1}, b[2], lo[2] = {0, -1}, hi[2] = {INFINITY, 1}, l[2], r[2];
  // Interior of a box with w = 0 and at lower with w > 0: exact solution.
  b[0] = 2.0, b[1] = -0.5, l[0] = 0.0, l[1] = 0.5;
  tsr_mlcp_from_dense(2, A, b, lo, hi, &p);
  ENSURE(p.symmetric == 1);
  ENSURE_NEAR(tsr_mlcp_residual(&p, l, r), 0.0, 0.0);
  // At lower with wrong-sign slack: w = -3 at lambda = lo -> r = |min(0, 0)|, |min(inf, 3)| = 3.
  b[0] = -3.0;
  tsr_mlcp_from_dense(2, A, b, lo, hi, &p);
  ENSURE_NEAR(tsr_mlcp_residual(&p, l, r), 3.0, 1e-15);
  ENSURE_NEAR(r[0], 3.0, 1e-15);
  ENSURE_NEAR(r[1], 0.0, 0.0);
  // Interior but w != 0: r = |w| limited by the distance to the bound it pushes toward.
  b[0] = 0.0, l[0] = 0.25;  // w0 = 0.25 > 0, lambda - lo = 0.25 -> r0 = 0.25
  b[1] = 0.5, l[1] = 0.9;   // w1 = 1.4 > 0, lambda - lo = 1.9 -> r1 = 1.4
  tsr_mlcp_from_dense(2, A, b, lo, hi, &p);
  double n = tsr_mlcp_residual(&p, l, r);
  ENSURE_NEAR(r[0], 0.25, 1e-15);
  ENSURE_NEAR(r[1], 1.4, 1e-15);
  ENSURE_NEAR(n, sqrt(0.25 * 0.25 + 1.4 * 1.4), 1e-15);
  // At upper with w < 0 (correct) and w > 0 (wrong sign).
  b[1] = -2.0, l[1] = 1.0, b[0] = 0.0, l[0] = 0.0;  // w1 = -1
  tsr_mlcp_from_dense(2, A, b, lo, hi, &p);
  ENSURE_NEAR(tsr_mlcp_residual(&p, l, r), 0.0, 0.0);
  b[1] = 0.5;  // w1 = 1.5 at the upper bound: r1 = min(lambda - lo = 2, 1.5) = 1.5
  tsr_mlcp_from_dense(2, A, b, lo, hi, &p);
  tsr_mlcp_residual(&p, l, r);
  ENSURE_NEAR(r[1], 1.5, 1e-15);
  // Outside the bounds: lambda = -0.5 below lo = 0 with w = -0.5 -> |min(-0.5, 0)| = 0.5.
  b[0] = 0.0, l[0] = -0.5;
  tsr_mlcp_from_dense(2, A, b, lo, hi, &p);
  tsr_mlcp_residual(&p, l, r);
  ENSURE_NEAR(r[0], 0.5, 1e-15);
  // Bilateral rows: r = |w|.
  double lo2[2] = {-INFINITY, -INFINITY}, hi2[2] = {INFINITY, INFINITY};
  b[0] = 0.3, b[1] = -0.7, l[0] = 0, l[1] = 0;
  tsr_mlcp_from_dense(2, A, b, lo2, hi2, &p);
  tsr_mlcp_residual(&p, l, r);
  ENSURE_NEAR(r[0], 0.3, 1e-15);
  ENSURE_NEAR(r[1], 0.7, 1e-15);
  // An impulse of inf and NaN data are no solution: each such row's residual
  // is infinite, and so is the norm. The bound comparisons gave a NaN slack
  // 0 (a step reported solved at residual 0), and the scaled 2-norm made an
  // infinite row's NaN.
  l[0] = INFINITY, l[1] = 0.0;
  ENSURE(isinf(tsr_mlcp_residual(&p, l, r)) && isinf(r[0]) && r[1] == 0.7);
  b[1] = NAN, l[0] = 0.0;
  tsr_mlcp_from_dense(2, A, b, lo2, hi2, &p);
  ENSURE(isinf(tsr_mlcp_residual(&p, l, r)) && r[0] == 0.3 && isinf(r[1]));
  l[0] = INFINITY, b[0] = 0.0, b[1] = 0.0;  // a bounded row at lambda = hi = inf is no solution either
  tsr_mlcp_from_dense(2, A, b, lo, hi, &p);
  ENSURE(isinf(tsr_mlcp_residual(&p, l, r)) && isinf(r[0]));
  // Index sets (Eq. 12).
  int8_t s[2];
  l[0] = 0.0, l[1] = 1.0 - 1e-9;
  tsr_mlcp_from_dense(2, A, b, lo, hi, &p);
  tsr_mlcp_index_set(&p, l, 1e-5, s);
  ENSURE(s[0] == TSR_INDEX_LOWER && s[1] == TSR_INDEX_UPPER);
  l[0] = 0.1, l[1] = 0.0;
  tsr_mlcp_index_set(&p, l, 1e-5, s);
  ENSURE(s[0] == TSR_INDEX_FREE && s[1] == TSR_INDEX_FREE);
  // The zero-bound tolerance scales with the impulses on the same bodies:
  // rows 0-1 (a 2 t box: coupled) and rows 2-3 (a 10 g box, uncoupled from
  // them). The light box's loaded rows (4e-4 N s) are free, and a row of
  // 1e-12 beside a loaded one is at its bound, in either box. With the
  // largest impulse of the whole system as the scale (82 N s), every row of
  // the light box read "at lower".
  {
    double A4[16] = {1, 0.5, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0.5, 0, 0, 0.5, 1}, b4[4] = {0, 0, 0, 0};
    double lo4[4] = {0, 0, 0, 0}, hi4[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    double l4[4] = {81.75, 1e-12, 4.0875e-4, 1e-12};
    int8_t s4[4];
    tsr_mlcp_from_dense(4, A4, b4, lo4, hi4, &p);
    tsr_mlcp_index_set(&p, l4, 1e-5, s4);
    ENSURE(s4[0] == TSR_INDEX_FREE && s4[1] == TSR_INDEX_LOWER && s4[2] == TSR_INDEX_FREE && s4[3] == TSR_INDEX_LOWER);
  }
  // Nonsymmetric input is flagged.
  double N[4] = {1, 2, 0, 1};
  tsr_mlcp_from_dense(2, N, b, lo, hi, &p);
  ENSURE(p.symmetric == 0 && p.Ap[2] == 3);
  tsr_mlcp_free(&p);
}

// tsr_mlcp_write_relay then tsr_mlcp_read_siconos: the same problem bit for
// bit (values with 17 significant digits round-trip exactly in IEEE double),
// infinite bounds and equality rows included, the symmetric flag found
// again, and an empty problem. Random values over 1e-300..1e300.
static void roundtrip(Rng *r, int m, int symmetric) {
  double *A = calloc((size_t)m * m + 1, sizeof *A), *b = malloc((size_t)m * sizeof *b + 8);
  double *lo = malloc((size_t)m * sizeof *lo + 8), *hi = malloc((size_t)m * sizeof *hi + 8);
  ENSURE(A && b && lo && hi);
  for (int i = 0; i < m; i++)
    for (int j = symmetric ? i : 0; j < m; j++) {
      if (i != j && rng_uniform(r) < 0.7) continue;  // sparse, diagonal kept
      double v = (rng_uniform(r) < 0.5 ? -1 : 1) * pow(10.0, rng_range(r, -300, 300)) * rng_uniform(r);
      A[(size_t)i * m + j] = v;
      if (symmetric) A[(size_t)j * m + i] = v;
    }
  for (int i = 0; i < m; i++) {
    b[i] = rng_normal(r) * pow(10.0, rng_range(r, -20, 20));
    int kind = rng_int(r, 4);  // bilateral, [0, inf), box, equality
    lo[i] = kind == 0 ? -INFINITY : kind == 1 ? 0.0 : kind == 2 ? -rng_uniform(r) : 0.25;
    hi[i] = kind == 0 || kind == 1 ? INFINITY : kind == 2 ? rng_uniform(r) : 0.25;
  }
  TsrMlcp p, q;
  tsr_mlcp_init(&p);
  tsr_mlcp_init(&q);
  ENSURE(tsr_mlcp_from_dense(m, A, b, lo, hi, &p) == 0);
  char path[] = "/tmp/relay_tessera_test_XXXXXX";
  int fd = mkstemp(path);
  ENSURE(fd >= 0);
  FILE *f = fdopen(fd, "w");
  ENSURE(f && tsr_mlcp_write_relay(&p, f) == 0 && fclose(f) == 0);
  char err[256] = "";
  int rc = tsr_mlcp_read_siconos_as(path, TSR_SICONOS_RELAY, &q, err, sizeof err);
  remove(path);
  ENSURE_MSG(rc == 0, "m %d: %s", m, err);
  int same = q.m == p.m && q.symmetric == p.symmetric && (m == 0 || q.Ap[m] == p.Ap[m]);
  for (int j = 0; same && j < m; j++) same = q.Ap[j + 1] == p.Ap[j + 1];
  for (int k = 0; same && k < (m ? p.Ap[m] : 0); k++) same = q.Ai[k] == p.Ai[k] && q.Ax[k] == p.Ax[k];
  for (int i = 0; same && i < m; i++) same = q.b[i] == p.b[i] && q.lo[i] == p.lo[i] && q.hi[i] == p.hi[i];
  ENSURE_MSG(same, "m %d symmetric %d: the problem read back differs", m, symmetric);
  tsr_mlcp_free(&p);
  tsr_mlcp_free(&q);
  free(A), free(b), free(lo), free(hi);
}

static void test_relay_roundtrip(void) {
  Rng r = {20261128};
  for (int m = 0; m <= 40; m += 8)
    for (int sym = 0; sym < 2; sym++) roundtrip(&r, m, sym);
}

int main(void) {
  RUN_TEST(test_assembly_random);
  RUN_TEST(test_assembly_empty);
  RUN_TEST(test_residual);
  RUN_TEST(test_relay_roundtrip);
  return TSR_TEST_RESULT();
}
