// SPDX-License-Identifier: MIT
// Rows whose own scale is far below the problem's. In tandem_cranes a
// friction row of a light body (its terms ~1) sat beside a 75 t crane with a
// 5e5 N m motor bound, so BPP's global tolerance (1e-10 of max|A_ij| times the
// largest bound) accepted that row with a slack of the wrong sign, 1e-6 of its
// own scale, and direct-bpp reported residuals of 1e-4 as converged.
//
// Here: chains of welded bodies whose masses span `ratio` (light bodies ~1
// kg, heavy ones ~ratio kg), a motor row with a bound of 50 ratio on every
// heavy body, and ground contacts (normal and two box friction rows) on the
// light ones. A PLANTED solution (A is SPD, so it is the only one) puts about
// half the contact rows at a bound with a slack of 1e-7..1e-5 of the row's own
// scale c_i = sum_j |A_ij lambda*_j| + A_ii L_i (L_i: the impulse scale of
// the row's body, its mass times 1 m/s): strictly complementary, but far
// inside the global tolerance. direct-bpp (BPP with its restarts and
// polishing) solves each cold, warm-started, and with a budget of 3 pivots
// (so that block pivoting hands over to the restarts); checked: converged,
// and every row at round-off of its own scale, tsr_mlcp_relative_residual
// <= 1e-10 (at round-off it is ~1e-16; the code before these checks existed
// left rows at 1e-7..3e-6 and failed 72 of the 90 solves).
// Not checked: lambda* itself or its index set. The friction rows are nearly
// redundant with the welds (compliance 1e-8), so impulses can differ from
// lambda* along such a direction with the slacks barely changed (seen: a
// friction impulse 0.49 off with a residual of 4e-11 of its row's scale):
// a solution at 1e-10 need not be lambda*.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp/mlcp.h"
#include "solvers/solver.h"
#include "test_util.h"
#include "tsr_test.h"

#define ROW_TOL 1e-10

typedef struct {
  TsrMlcp p;
  double *ls;  // planted lambda*
  int8_t *ss;  // planted index set
} Case;

// Rows and bodies (see the top). mass[k] returned for the impulse scales.
static void build(Rng *r, int n_bodies, double ratio, TsrRowSet *rows, double *mass, TsrMlcp *p) {
  double *inv_mass = malloc((size_t)n_bodies * sizeof(double)), *I = calloc((size_t)n_bodies * 9, sizeof(double));
  double *v = calloc((size_t)n_bodies * 6, sizeof(double));
  for (int k = 0; k < n_bodies; k++) {
    mass[k] = (rng_uniform(r) < 0.3 ? ratio : 1.0) * rng_range(r, 0.5, 2.0);
    inv_mass[k] = 1.0 / mass[k];
    for (int a = 0; a < 3; a++) I[9 * k + 4 * a] = 1.0 / (mass[k] * rng_range(r, 0.05, 0.5));
  }
  tsr_rowset_clear(rows);
  for (int k = 0; k < n_bodies; k++)
    for (int a = 0; a < 6; a++) {  // weld to the previous body (body 0: to the world)
      TsrRow *row = tsr_rowset_push(rows);
      row->body[0] = k;
      row->body[1] = k - 1;
      row->J[0][a] = 1.0;
      if (a < 3) {  // a point constraint at an offset: the angular part couples
        double arm[3] = {rng_range(r, -0.5, 0.5), rng_range(r, -0.5, 0.5), rng_range(r, -0.5, 0.5)};
        int b1 = (a + 1) % 3, b2 = (a + 2) % 3;
        row->J[0][3 + b1] = arm[b2];
        row->J[0][3 + b2] = -arm[b1];
      }
      for (int c = 0; c < 6; c++) row->J[1][c] = -row->J[0][c];
      row->compliance = 1e-8;
      row->lo = -INFINITY, row->hi = INFINITY;
      if (a == 5 && mass[k] > 10.0) row->lo = -50.0 * ratio, row->hi = 50.0 * ratio;  // the motor
      row->source = k;
    }
  for (int k = 0; k < n_bodies; k++) {
    if (mass[k] > 10.0 || rng_uniform(r) < 0.3) continue;
    for (int d = 0; d < 3; d++) {
      TsrRow *row = tsr_rowset_push(rows);
      row->body[0] = k;
      row->J[0][d] = 1.0;
      row->J[0][3 + (d + 1) % 3] = rng_range(r, -0.3, 0.3);
      row->compliance = 1e-7;
      row->lo = d == 0 ? 0.0 : -INFINITY, row->hi = INFINITY;  // friction bounds: plant() sets them
      row->type = d == 0 ? TSR_ROW_CONTACT_NORMAL : TSR_ROW_CONTACT_FRICTION;
      row->source = k;
    }
  }
  tsr_mlcp_assemble(rows, n_bodies, inv_mass, I, v, p);
  free(inv_mass), free(I), free(v);
}

// The planted solution (see the top); b = w* - A lambda*.
static void plant_rows(Rng *r, const TsrRowSet *rows, const double *mass, Case *c) {
  TsrMlcp *p = &c->p;
  int m = p->m;
  double *L = malloc((size_t)m * sizeof *L), *Al = malloc((size_t)m * sizeof *Al), *sc = malloc((size_t)m * sizeof *sc);
  int8_t *sign = calloc((size_t)m, 1);
  for (int i = 0; i < m; i++) {
    const TsrRow *row = &rows->rows[i];
    L[i] = mass[row->source];
    c->ss[i] = TSR_INDEX_FREE;
    if (row->type == TSR_ROW_CONTACT_NORMAL) {
      if (rng_uniform(r) < 0.5) {
        c->ls[i] = 0.0, c->ss[i] = TSR_INDEX_LOWER, sign[i] = 1;
      } else {
        c->ls[i] = L[i] * rng_range(r, 0.5, 2.0);
      }
    } else if (row->type == TSR_ROW_CONTACT_FRICTION) {
      double mu = L[i] * rng_range(r, 0.3, 1.0), u = rng_uniform(r);
      p->lo[i] = -mu, p->hi[i] = mu;
      if (u < 1.0 / 3)
        c->ls[i] = -mu, c->ss[i] = TSR_INDEX_LOWER, sign[i] = 1;
      else if (u < 2.0 / 3)
        c->ls[i] = mu, c->ss[i] = TSR_INDEX_UPPER, sign[i] = -1;
      else
        c->ls[i] = mu * rng_range(r, -0.8, 0.8);
    } else {
      c->ls[i] = L[i] * rng_normal(r);  // welds and motors (|lambda*| well inside 50 ratio)
    }
  }
  // c_i = sum_j |A_ij lambda*_j| + A_ii L_i, the row's own scale
  for (int i = 0; i < m; i++) sc[i] = 0.0;
  for (int j = 0; j < m; j++)
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) {
      sc[p->Ai[q]] += fabs(p->Ax[q] * c->ls[j]);
      if (p->Ai[q] == j) sc[j] += p->Ax[q] * L[j];
    }
  tsr_mlcp_matvec(p, c->ls, Al);
  for (int i = 0; i < m; i++) {
    double w = sign[i] ? sign[i] * pow(10.0, rng_range(r, -7.0, -5.0)) * sc[i] : 0.0;
    p->b[i] = w - Al[i];
  }
  free(L), free(Al), free(sc), free(sign);
}

// rc 0 and every row at round-off of its own scale.
static int check(const TsrMlcp *p, int rc, const double *lambda, const char *what) {
  int m = p->m;
  double *w = malloc((size_t)m * sizeof *w), *sigma = malloc((size_t)m * sizeof *sigma);
  double rho = tsr_mlcp_relative_residual_of(p, lambda, w, sigma);
  free(w), free(sigma);
  int ok = rc == 0 && rho <= ROW_TOL;
  if (!ok) fprintf(stderr, "  %s: rc %d, relative residual %.3e\n", what, rc, rho);
  return ok;
}

static void test_row_scale(void) {
  static const int sizes[] = {6, 20, 60};
  static const double ratios[] = {1e3, 1e5};
  static const char *const how[] = {"cold", "warm", "3 pivots"};
  TsrRowSet rows = {0};
  int cases = 0, failed = 0, tight = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (size_t ri = 0; ri < sizeof ratios / sizeof *ratios; ri++)
      for (int seed = 0; seed < 5; seed++) {
        Rng r = {1000003ULL * (uint64_t)sizes[si] + 17ULL * (uint64_t)ri + (uint64_t)seed};
        int nb = sizes[si];
        double *mass = malloc((size_t)nb * sizeof *mass);
        Case c;
        tsr_mlcp_init(&c.p);
        build(&r, nb, ratios[ri], &rows, mass, &c.p);
        int m = c.p.m;
        c.ls = malloc((size_t)m * sizeof *c.ls);
        c.ss = malloc((size_t)m);
        plant_rows(&r, &rows, mass, &c);
        for (int i = 0; i < m; i++) tight += c.ss[i] != TSR_INDEX_FREE;
        double *lambda = calloc((size_t)m, sizeof *lambda);
        int8_t *set = calloc((size_t)m, 1);
        // direct-bpp from all free; warm-started from that answer with every
        // contact row free again; and from all free with a budget of 3
        // pivots, so that the restarts (projected Newton first) make the
        // answer.
        for (int k = 0; k < 3; k++) {
          TsrSolverParams prm;
          tsr_solver_default_params(TSR_SOLVER_DIRECT_BPP, &prm);
          prm.warm_start = k == 1;
          if (k == 2) prm.max_pivots = 3;
          if (k == 1)
            for (int i = 0; i < m; i++)
              if (rows.rows[i].type != TSR_ROW_JOINT) set[i] = TSR_INDEX_FREE;
          TsrSolver *s = tsr_solver_create(&prm, NULL, 0);
          ENSURE(s);
          TsrSolveStats st;
          int rc = tsr_solver_solve(s, &c.p, NULL, lambda, set, &st);
          tsr_solver_free(&s);
          char what[128];
          snprintf(what, sizeof what, "direct-bpp %s, %d bodies, mass ratio %.0e, seed %d, %d rows", how[k], nb,
                   ratios[ri], seed, m);
          cases++;
          failed += !check(&c.p, rc, lambda, what);
        }
        tsr_mlcp_free(&c.p);
        free(c.ls), free(c.ss), free(lambda), free(set), free(mass);
      }
  fprintf(stderr, "  %d solves, %d failed; %d planted rows at a bound\n", cases, failed, tight);
  ENSURE(tight > 0);
  ENSURE_MSG(failed == 0, "%d of %d solves", failed, cases);
  tsr_rowset_free(&rows);
}

int main(void) {
  test_row_scale();
  return 0;
}
